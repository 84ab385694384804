"""How the load generators' outputs in this directory were made (tests/test_bench_run.py reads
them back through bench/run.py's parsers): h2load and wrk, with the options bench/run.py gives
them, against a real ``naipes serve --workers 1`` and against the small servers of
tests/bench_support.py, which answer some requests with an error status, reset some streams
(HTTP/2) or close some connections unanswered (HTTP/1.1).

Regenerate from the repository's root (needs h2load, wrk and the project installed):
``.venv/bin/python tests/bench_outputs/capture.py``. Each sample is ``NAME.txt`` (the tool's
standard output), ``NAME.cmd`` (the command) and for h2load ``NAME.tsv`` (its per-request log)."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from bench_support import H2cServer, Http1Server  # noqa: E402

from bench.run import free_port, listening  # noqa: E402


def sample(name: str, command: list[str], env: dict[str, str] | None = None) -> None:
    log = HERE / f"{name}.tsv"
    log.unlink(missing_ok=True)
    command = [c.replace("LOG", str(log.relative_to(ROOT))) for c in command]
    run = subprocess.run(command, capture_output=True, text=True, timeout=60, env={**os.environ, **(env or {})}, cwd=ROOT)
    (HERE / f"{name}.txt").write_text(run.stdout)
    (HERE / f"{name}.cmd").write_text("".join(f"{k}={v} " for k, v in (env or {}).items()) + shlex.join(command) + "\n")
    print(f"{name}: exit {run.returncode}", file=sys.stderr)


def main() -> None:
    from grpc_health.v1 import health_pb2

    bodies = HERE / "bodies"
    bodies.mkdir(exist_ok=True)
    data = health_pb2.HealthCheckRequest().SerializeToString()
    (bodies / "health.grpc").write_bytes(b"\0" + len(data).to_bytes(4, "big") + data)
    (bodies / "not-a-record.json").write_text('{"record": "not a record"}\n')
    rest, grpc = free_port(), free_port()
    serve = subprocess.Popen([sys.executable, "-m", "service.cli", "serve", "--host", "127.0.0.1", "--rest-port", str(rest),
                              "--grpc-port", str(grpc), "--workers", "1"], cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        with H2cServer("ok", 0.01) as h2_ok, H2cServer("mixed", 0.01) as h2_mixed, Http1Server("mixed", 0.01) as h1_mixed, \
                H2cServer("ok", 0.6) as h2_slow:
            deadline = time.monotonic() + 60
            while not (listening(rest) and listening(grpc)) and time.monotonic() < deadline:
                time.sleep(0.1)
            time.sleep(2)
            h2load = ["h2load", "-t", "1", "-m", "1", "-d", "tests/bench_outputs/bodies/health.grpc", "-H", "content-type: application/grpc",
                      "-H", "te: trailers", "--log-file=LOG"]
            timed = ["-D", "1000ms", "--warm-up-time=300ms"]
            health = "/grpc.health.v1.Health/Check"
            sample("h2load-timed-ok", [*h2load, "-c", "2", *timed, f"http://127.0.0.1:{h2_ok.port}{health}"])
            sample("h2load-timed-failed", [*h2load, "-c", "2", *timed, f"http://127.0.0.1:{h2_mixed.port}{health}"])
            sample("h2load-counted-failed", [*h2load, "-c", "2", "-n", "40", f"http://127.0.0.1:{h2_mixed.port}{health}"])
            # every connection closed after 300 ms without activity, before the server's first answer
            sample("h2load-timed-out", [*h2load, "-c", "2", "-n", "6", "-N", "300ms", f"http://127.0.0.1:{h2_slow.port}{health}"])
            sample("h2load-counted-naipes-health", [*h2load, "-c", "4", "-n", "200", f"http://127.0.0.1:{grpc}{health}"])
            sample("h2load-one-naipes-health", [*h2load, "-c", "1", "-n", "1", f"http://127.0.0.1:{grpc}{health}"])
            wrk = ["wrk", "-t", "1", "-c", "4", "-d", "1s", "-s", "bench/post.lua"]
            sample("wrk-naipes-health", [*wrk, f"http://127.0.0.1:{rest}/healthz"], {"NAIPES_BENCH_BODY": ""})
            sample("wrk-naipes-not-a-record", [*wrk, f"http://127.0.0.1:{rest}/v1/hands:validate"],
                   {"NAIPES_BENCH_BODY": "tests/bench_outputs/bodies/not-a-record.json"})
            sample("wrk-failed", [*wrk, f"http://127.0.0.1:{h1_mixed.port}/healthz"], {"NAIPES_BENCH_BODY": ""})
    finally:
        serve.terminate()
        serve.wait(timeout=30)


if __name__ == "__main__":
    main()
