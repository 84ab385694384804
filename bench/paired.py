"""Two builds of the engine timed against each other in alternation, for a change's A/B on a
shared machine (by hand; ``make bench`` is the measurement of record).

``python -m bench.paired BASE NEW [--rounds N] [--what validate|handler|encode]``: BASE and NEW are
checkouts, each built (``make install build``). One worker process per checkout holds the 20
records of each game (``bench.engine_driver.random_record``, seeds 0-19) and times a burst of
passes over them when asked: ``validate`` (``engine.api.validate``), ``handler`` (gRPC's
ValidateHand handler, wire bytes in and out) or ``encode`` (the answer's wire bytes,
``service.codec.to_wire``). The two workers take turns, burst by burst, in alternating order, so
that a change in the machine's speed falls on both; each burst is timed in the worker's CPU time,
which does not count the time other processes hold the CPU. Printed per game: the two medians and
the median of the paired ratios NEW/BASE, with its quartiles.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

GAMES = ("tresillo", "revesino", "rentoy")
PASSES = {"tresillo": 15, "revesino": 15, "rentoy": 40}  # a burst: some milliseconds a game
ENCODE_PASSES = 6  # times more passes for ``encode``, ten times cheaper than a validation


def worker(what: str) -> None:
    """Answer each line ``GAME PASSES`` on stdin with the CPU µs of one item, as JSON."""
    from bench.engine_driver import random_record
    from engine import api

    records = {name: [random_record(name, seed=s) for s in range(20)] for name in GAMES}
    items: dict[str, list[Any]] = dict(records)
    run: Callable[[Any], object] = api.validate
    if what in ("handler", "encode"):
        from google.protobuf import json_format

        from naipes.v1 import naipes_pb2 as pb
        from service import handlers
        from service.codec import to_wire

        if what == "handler":
            run = handlers.WIRE_HANDLERS["ValidateHand"]
            items = {name: [json_format.ParseDict({"record": r}, pb.ValidateHandRequest()).SerializeToString() for r in rs]
                     for name, rs in records.items()}
        else:
            def run(answer: Any) -> object:
                return to_wire(answer, pb.ValidateHandResponse)
            items = {name: [{"result": api.validate(r)} for r in rs] for name, rs in records.items()}
    for batch in items.values():  # warm
        for item in batch:
            run(item)
    print("ready", flush=True)
    for line in sys.stdin:
        name, passes = line.split()
        batch = items[name]
        start = time.process_time()
        for _ in range(int(passes)):
            for item in batch:
                run(item)
        print(json.dumps((time.process_time() - start) / (int(passes) * len(batch)) * 1e6), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("base")
    parser.add_argument("new")
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--what", choices=("validate", "handler", "encode"), default="validate")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.what)
        return
    workers = {}  # (each runs this file with its checkout's Python, engine and service: BASE need not have it)
    for label, checkout in (("base", args.base), ("new", args.new)):
        python = os.path.join(checkout, ".venv", "bin", "python")
        workers[label] = proc = subprocess.Popen(
            [python, os.path.abspath(__file__), args.base, args.new, "--what", args.what, "--worker"], cwd=checkout,
            env={**os.environ, "PYTHONPATH": "."}, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert proc.stdin is not None and proc.stdout is not None
        if proc.stdout.readline().strip() != "ready":
            sys.exit(f"the worker of {checkout} did not start")
    times: dict[str, dict[str, list[float]]] = {name: {"base": [], "new": []} for name in GAMES}
    scale = ENCODE_PASSES if args.what == "encode" else 1
    for i in range(args.rounds):
        for name in GAMES:
            for label in ("base", "new") if i % 2 == 0 else ("new", "base"):
                proc = workers[label]
                assert proc.stdin is not None and proc.stdout is not None
                proc.stdin.write(f"{name} {PASSES[name] * scale}\n")
                proc.stdin.flush()
                times[name][label].append(json.loads(proc.stdout.readline()))
    for proc in workers.values():
        assert proc.stdin is not None
        proc.stdin.close()
        proc.wait()
    for name in GAMES:
        base, new = times[name]["base"], times[name]["new"]
        ratios = [n / b for b, n in zip(base, new, strict=True)]
        low, _, high = statistics.quantiles(ratios, n=4)
        print(f"{name:9} {args.what}: base {statistics.median(base):7.2f} µs  new {statistics.median(new):7.2f} µs  "
              f"paired new/base {statistics.median(ratios):.3f} (quartiles {low:.3f}-{high:.3f}, {args.rounds} rounds)")


if __name__ == "__main__":
    main()
