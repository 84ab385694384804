"""An archive through the project's clients, by hand (``make bench`` measures the service with
h2load and wrk; this, what a caller of the clients sees): records a second and the largest
resident memory of each client validating the same archive against a running server, each in a
process of its own, one after another, in alternating order over the rounds: the Python
``GrpcClient.validate_hands`` and ``RestClient.validate_hands``, and the JavaScript client's
``validateHandsStream`` (Node.js), each reading the archive line by line and counting the answers.

``python -m bench.clients [--records N] [--game G] [--rest URL] [--grpc HOST:PORT] [--rounds R]``
against ``naipes serve`` (by default on its default ports); the archive is ``N`` random complete
records of the game (``bench.engine_driver.random_record``, 2,000 seeds over and over), written
to a temporary file. Printed: a line per client and round, then each client's median.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SEEDS = 2000

# Each client as a program: argv[1] the archive, argv[2] the server; prints the records answered and the seconds.
PYTHON = """
import json, sys, time
sys.path.insert(0, {clients!r})
from naipes_client import GrpcClient, RestClient
def records():
    with open(sys.argv[1]) as lines:
        for line in lines:
            yield json.loads(line)["record"]
client = {make}(sys.argv[2])
start, answered = time.perf_counter(), 0
for answer in client.validate_hands(records()):
    answered += 1
print(answered, time.perf_counter() - start)
"""
NODE = """
import {{ createReadStream }} from "node:fs";
import {{ createInterface }} from "node:readline";
import {{ Naipes }} from {client};
async function* records() {{
  for await (const line of createInterface({{ input: createReadStream(process.argv[2]) }})) yield JSON.parse(line).record;
}}
const start = performance.now();
let answered = 0;
for await (const answer of new Naipes(process.argv[3]).validateHandsStream(records())) answered++;
console.log(answered, (performance.now() - start) / 1000);
"""


def programs(folder: Path) -> dict[str, list[str]]:
    """Each client's command, less its two arguments."""
    clients = str(ROOT / "clients" / "python")
    commands = {}
    for name, make in (("python GrpcClient", "GrpcClient"), ("python RestClient", "RestClient")):
        script = folder / f"{make}.py"
        script.write_text(PYTHON.format(clients=clients, make=make))
        commands[name] = [sys.executable, str(script)]
    script = folder / "validateHandsStream.mjs"
    script.write_text(NODE.format(client=json.dumps(str(ROOT / "clients" / "js" / "naipes.mjs"))))
    commands["javascript validateHandsStream"] = ["node", str(script)]
    return commands


def run(command: list[str], records: int) -> tuple[float, int]:
    """One client's run: records a second, and its largest RSS in KiB (the kernel's, ``wait4``)."""
    child = subprocess.Popen(command, stdout=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert child.stdout is not None
    out = child.stdout.read()
    _pid, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        raise SystemExit(f"{command[-1]} failed ({child.returncode}): {out}")
    answered, seconds = out.split()
    if int(answered) != records:
        raise SystemExit(f"{command[-1]} answered {answered} records of {records}")
    return records / float(seconds), usage.ru_maxrss


def write_archive(path: Path, game: str, records: int) -> None:
    from bench.engine_driver import random_record

    lines = [json.dumps({"id": f"{game}-{seed}", "record": random_record(game, seed=seed)}, separators=(",", ":"))
             for seed in range(min(records, SEEDS))]
    with path.open("w") as out:
        for n in range(records):
            out.write(lines[n % len(lines)] + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--records", type=int, default=20_000)
    parser.add_argument("--game", default="revesino", choices=["tresillo", "revesino", "rentoy"])
    parser.add_argument("--rest", default="http://127.0.0.1:8080")
    parser.add_argument("--grpc", default="127.0.0.1:50051")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        archive = Path(folder) / "archive.ndjson"
        write_archive(archive, args.game, args.records)
        commands = programs(Path(folder))
        rates: dict[str, list[float]] = {name: [] for name in commands}
        memory: dict[str, list[int]] = {name: [] for name in commands}
        for turn in range(args.rounds):
            for name in (list(commands) if turn % 2 == 0 else list(reversed(commands))):
                server = args.grpc if "Grpc" in name else args.rest
                rate, rss = run([*commands[name], str(archive), server], args.records)
                rates[name].append(rate)
                memory[name].append(rss)
                print(f"round {turn + 1}: {name}: {rate:,.0f} records a second, largest RSS {rss / 1024:.0f} MB", flush=True)
    print(f"\n{args.records:,} {args.game} records, {args.rounds} round(s); medians:")
    for name in commands:
        print(f"  {name:32} {statistics.median(rates[name]):8,.0f} records a second   "
              f"largest RSS {statistics.median(memory[name]) / 1024:.0f} MB")


if __name__ == "__main__":
    main()
