"""What the access log costs (docs/api.md, "Access log and request IDs"), in process: the time a
call takes in the service's own layer of each transport, one thread, no network, in three variants,
each a process of its own: this tree with the log off, this tree with it on (its lines written to a
file, by the access log's thread of the same process), and, with ``--base DIR``, a checkout of the code
before it (its ``engine`` and ``service``, built: make build). The loads: the gRPC health check
(``Check``) and ValidateHand (a Rentoy record of median length, as wire bytes) through the server's
handlers (``service.grpc_server``, a stand-in for grpcio's call context), and ``GET /healthz`` and
``POST /v1/hands:validate`` through the REST app (``service.rest.create_app()``, called as a WSGI
server calls it, its answer iterated and closed). A figure is the least time of batches of calls
(each with its share of the metrics' and the access log's threads' work), which the machine's other processes move
least; rounds interleave the variants (their order turning each round), and the table gives the
median of the rounds.

    python -m bench.access_log [--base DIR] [--rounds 7] [--seconds 1] [--out DIR]

On a loopback (h2load, wrk, ``naipes serve --workers 1``) the same comparison moved by 2 to 4
times from one run to the next on a shared machine, far more than the log costs: in process, the
network, grpcio's and gunicorn's own work and the load generators are left out.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
LOADS = ("grpc Check", "grpc ValidateHand", "rest healthz", "rest ValidateHand")
USER_AGENT = "grpc-python/1.85.3 grpc-c/58.0.0 (linux; chttp2)"
BATCH = 20  # calls timed together (``worker``)


class Context:
    """grpcio's call context, as far as the handlers use it on a call answered OK."""

    def invocation_metadata(self) -> tuple[tuple[str, str], ...]:
        return (("user-agent", USER_AGENT),)

    def peer(self) -> str:
        return "ipv4:127.0.0.1:50000"

    def send_initial_metadata(self, metadata: Any) -> None:
        pass

    def abort_with_status(self, status: Any) -> None:
        raise RuntimeError(f"the call failed: {status}")


def loads(record: dict[str, Any]) -> dict[str, Callable[[], object]]:
    """One call of each load, in this process's tree (the variant's)."""
    from google.protobuf import json_format
    from grpc_health.v1 import health_pb2

    from naipes.v1 import naipes_pb2 as pb
    from service import grpc_server
    from service.rest import create_app

    class Details:
        method, invocation_metadata = "/naipes.v1.NaipesService/ValidateHand", ()

    context: Any = Context()
    details: Any = Details()
    handler = grpc_server.rpc_handlers().service(details)
    assert handler is not None and handler.unary_unary is not None
    validate = handler.unary_unary
    request = pb.ValidateHandRequest(record=json_format.ParseDict(record, pb.HandRecord())).SerializeToString()
    health = grpc_server._Health()
    health.set("", health_pb2.HealthCheckResponse.SERVING)
    check = health_pb2.HealthCheckRequest()
    app = create_app()
    body = json.dumps(record).encode()
    base = {"SERVER_NAME": "127.0.0.1", "SERVER_PORT": "8080", "SERVER_PROTOCOL": "HTTP/1.1", "REMOTE_ADDR": "127.0.0.1",
            "REMOTE_PORT": "50000", "SCRIPT_NAME": "", "QUERY_STRING": "", "wsgi.url_scheme": "http", "wsgi.errors": sys.stderr,
            "wsgi.multithread": True, "wsgi.multiprocess": False, "wsgi.run_once": False, "HTTP_HOST": "127.0.0.1:8080"}

    def rest(method: str, path: str, data: bytes) -> Callable[[], object]:
        environ = {**base, "REQUEST_METHOD": method, "PATH_INFO": path, "RAW_URI": path, "CONTENT_LENGTH": str(len(data))}
        if data:
            environ["CONTENT_TYPE"] = "application/json"

        def call() -> object:
            start_response: Any = lambda status, headers, exc_info=None: None  # noqa: E731
            answer = app({**environ, "wsgi.input": io.BytesIO(data)}, start_response)
            for _ in answer:
                pass
            answer.close()  # type: ignore[attr-defined]
            return answer

        return call

    return {"grpc Check": lambda: health.Check(check, context), "grpc ValidateHand": lambda: validate(request, context),
            "rest healthz": rest("GET", "/healthz", b""), "rest ValidateHand": rest("POST", "/v1/hands:validate", body)}


def worker() -> None:
    """A variant's process: each line on stdin names a load and seconds; it answers the time a call
    of that load took, in microseconds: the least of batches of BATCH calls made for that long
    (the batch the machine's other processes interrupted least), each batch with the work the
    metrics' thread does for it (writing its calls' metrics) and, with the log on, the access log's
    (writing their lines)."""
    sys.path.append(str(ROOT))  # (bench's modules from this tree; the service's from the variant's, first on PYTHONPATH)
    from bench.engine_driver import typical_record

    calls = loads(typical_record("rentoy"))
    for call in calls.values():  # (warm: every instrument made, every code path taken once)
        for _ in range(200):
            call()
    from service.metrics import _FLUSHER

    try:
        from service.access import flush as write_lines
    except ImportError:  # (a checkout before the access log)
        def write_lines() -> None:
            pass

    for command in sys.stdin:
        kind, seconds = command.rsplit(" ", 1)
        call, least, end = calls[kind], float("inf"), time.perf_counter() + float(seconds)
        while (start := time.perf_counter()) < end:
            for _ in range(BATCH):
                call()
            _FLUSHER.flush()  # (what the metrics' thread does for these calls)
            write_lines()  # (and the access log's thread: their lines, with the log on)
            least = min(least, time.perf_counter() - start)
        print(least / BATCH * 1e6, flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--base", type=Path, help="a checkout of the code before the access log (built: make build)")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--seconds", type=float, default=1.0)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "out" / "access-log")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker()
        return
    args.out.mkdir(parents=True, exist_ok=True)
    trees = {"off": (ROOT, "0"), "on": (ROOT, "1")}
    if args.base:
        trees = {"before": (args.base.resolve(), "0"), **trees}
    variants = {}
    for name, (tree, log) in trees.items():
        env = {**os.environ, "PYTHONPATH": str(tree), "NAIPES_ACCESS_LOG": log}
        variants[name] = subprocess.Popen([sys.executable, __file__, "--worker"], cwd=tree, env=env, text=True,
                                          stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=(args.out / f"{name}.log").open("w"))
    rates: dict[tuple[str, str], list[float]] = {}
    try:
        order = list(variants)
        for round_ in range(args.rounds):
            turn = order[round_ % len(order):] + order[:round_ % len(order)]
            for kind in LOADS:
                for name in turn:
                    process = variants[name]
                    assert process.stdin is not None and process.stdout is not None
                    process.stdin.write(f"{kind} {args.seconds}\n")
                    process.stdin.flush()
                    rates.setdefault((name, kind), []).append(float(process.stdout.readline()))
            print(f"round {round_ + 1} of {args.rounds} done", file=sys.stderr)
    finally:
        for process in variants.values():
            if process.stdin is not None:
                process.stdin.close()
            process.wait(timeout=30)
    names = list(variants)
    print(f"Microseconds a call in process, one thread (the least of batches of {BATCH} calls for {args.seconds:g} s), medians of "
          f"{args.rounds} interleaved rounds; and the differences:")
    against = [("off", "before"), ("on", "off")] if "before" in names else [("on", "off")]
    print(f"| load | {' | '.join(names)} | {' | '.join(f'{a} - {b}' for a, b in against)} |")
    print(f"|---|{'---:|' * (len(names) + len(against))}")
    for kind in LOADS:
        us = {name: statistics.median(rates[name, kind]) for name in names}
        print(f"| {kind} | {' | '.join(f'{us[name]:.1f}' for name in names)} | {' | '.join(f'{us[a] - us[b]:+.1f}' for a, b in against)} |")
    for kind in LOADS:
        print(kind, {name: [round(us, 1) for us in rates[name, kind]] for name in names}, file=sys.stderr)


if __name__ == "__main__":
    main()
