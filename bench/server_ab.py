"""Two settings of the gRPC server timed against each other in alternation, for a change's A/B on a
shared machine (by hand; ``make bench`` is the measurement of record).

``python -m bench.server_ab A B [--rounds N] [--seconds S]``: A and B are each a list of
``NAME=VALUE`` environment settings, comma-separated (``NAIPES_BODY_SECONDS=0``; ``-`` for none).
Each round starts three one-process gRPC servers (``python -m service.grpc_server``): one as A
says, one as B says, and a second as A says (the A/A pair: how far two servers that differ in
nothing land apart, which the A/B pair is read against); then loads each in turn with h2load (16
calls in flight, as ``make bench``) on the health check and on ValidateHand of each game, in an
order that rotates round by round, and stops them. Fresh processes each round, on ports that
rotate too: one pair of processes kept for every round carried a difference of its own (a
process's memory layout and hash seed), which landed in every pair. Printed per call: the
medians of the paired ratios B/A and A'/A, with their quartiles.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.run import free_port, h2load, listening, unary_payloads

GAMES = ("tresillo", "revesino", "rentoy")


def settings(text: str) -> dict[str, str]:
    """``NAME=VALUE,NAME=VALUE`` (``-``: none) as a dict."""
    if text == "-":
        return {}
    pairs = [item.split("=", 1) for item in text.split(",")]
    if any(len(pair) != 2 or not pair[0] for pair in pairs):
        raise argparse.ArgumentTypeError(f"expected NAME=VALUE[,NAME=VALUE...] or -, not {text!r}")
    return dict(pairs)  # type: ignore[arg-type]


def start(env: dict[str, str], log: Path) -> tuple[subprocess.Popen[bytes], int]:
    port = free_port()
    process = subprocess.Popen([sys.executable, "-m", "service.grpc_server", "--port", str(port)], env={**os.environ, **env},
                               stdout=subprocess.DEVNULL, stderr=log.open("ab"))
    deadline = time.monotonic() + 30
    while not listening(port):
        if process.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"the server as {env} did not start: {log.read_text()[-2000:]}")
        time.sleep(0.05)
    return process, port


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("a", type=settings)
    parser.add_argument("b", type=settings)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=3.0, help="each load's length (after half a second's warm-up)")
    args = parser.parse_args()
    out = Path(tempfile.mkdtemp(prefix="naipes-server-ab-"))
    files = unary_payloads(out)
    calls = {"health": ("/grpc.health.v1.Health/Check", files["health.grpc"])}
    calls.update({game: ("/naipes.v1.NaipesService/ValidateHand", files[f"ValidateHand/{game}"]["grpc"]) for game in GAMES})
    arms = {"A": args.a, "B": args.b, "A'": args.a}
    ratios: dict[str, dict[str, list[float]]] = {call: {"B/A": [], "A'/A": []} for call in calls}
    for round_ in range(args.rounds):
        labels = list(arms)[round_ % 3:] + list(arms)[:round_ % 3]
        servers = {label: start(arms[label], out / "servers.log") for label in labels}
        try:
            time.sleep(1.0)  # (each server's pool and caches warm under the first load's warm-up)
            for call, (path, body) in calls.items():
                order = labels if round_ % 2 == 0 else labels[::-1]
                rps = {label: h2load(f"http://127.0.0.1:{servers[label][1]}{path}", body, args.seconds, 0.5, out).rps for label in order}
                ratios[call]["B/A"].append(rps["B"] / rps["A"])
                ratios[call]["A'/A"].append(rps["A'"] / rps["A"])
                print(f"round {round_ + 1} {call}: " + ", ".join(f"{label} {rps[label]:,.0f}" for label in arms) + " calls/s", flush=True)
        finally:
            for process, _ in servers.values():
                process.terminate()
                process.wait()
    for call, pairs in ratios.items():
        for name, values in pairs.items():
            low, _, high = statistics.quantiles(values, n=4) if len(values) > 1 else (values[0], 0, values[0])
            print(f"{call} {name}: median {statistics.median(values):.3f} (quartiles {low:.3f}-{high:.3f}, {len(values)} rounds)")


if __name__ == "__main__":
    main()
