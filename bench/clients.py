"""An archive through the project's clients, by hand (``make bench`` measures the service with
h2load and wrk; this, what a caller of the clients sees): records a second and the largest
resident memory of each client validating the same archive against a running server, each in a
process of its own, one after another, in alternating order over the rounds: the Python
``GrpcClient.validate_hands`` and ``RestClient.validate_hands``, and the JavaScript client's
``validateHandsStream`` (Node.js), each reading the archive line by line and counting the answers;
beside them, two ways without a client library: the server's REST stream alone (``curl``, the
answers counted by ``wc -l``) and ``naipes audit`` (no server: its own pool on the same CPUs).

``python -m bench.clients [--records N] [--game G|all] [--distinct] [--archive FILE] [--rest URL]
[--grpc HOST:PORT] [--rounds R]`` against ``naipes serve`` (by default on its default ports); the
archive is ``N`` random complete records of the game, or of the three games in turn with ``all``
(``bench.engine_driver.random_record``: 2,000 seeds over and over, or with ``--distinct`` a seed
a record, made on every CPU), written to a temporary file, or to ``FILE`` and kept (a ``FILE``
that exists is read as it is, its lines the records). Printed: a line per way and round, then
each way's median. A million distinct records of the three games::

    python -m bench.clients --records 1000000 --game all --distinct --archive /tmp/million.ndjson --rounds 1
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SEEDS = 2000
GAMES = ("tresillo", "revesino", "rentoy")

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
# The ways without a client library, timed the same way: the archive's answers counted (a
# newline each; naipes audit's from its summary, its answers to /dev/null).
CURL = """
import subprocess, sys, time
start = time.perf_counter()
out = subprocess.run(["bash", "-o", "pipefail", "-c", 'curl -sSf -X POST -T "$1" -H "Content-Type: application/x-ndjson" '
                      '"$2/v1/hands:validateStream" | wc -l', "curl", *sys.argv[1:3]], capture_output=True, text=True, check=True)
print(out.stdout.strip(), time.perf_counter() - start)
"""
AUDIT = """
import re, subprocess, sys, time
start = time.perf_counter()
out = subprocess.run([{naipes!r}, "audit", sys.argv[1]], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
if out.returncode != 0:
    sys.exit(out.stderr)
print(re.search(r"naipes: (\\d+) records", out.stderr).group(1), time.perf_counter() - start)
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
    for name, file, program in (("curl, the REST stream alone", "rest_stream.py", CURL),
                                ("naipes audit, no server", "audit.py", AUDIT.format(naipes=str(Path(sys.executable).with_name("naipes"))))):
        script = folder / file  # (not naipes.py: the other scripts import the package naipes from beside them)
        script.write_text(program)
        commands[name] = [sys.executable, str(script)]
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


def archive_lines(game: str, seeds: range) -> str:
    """The archive's lines for these seeds: a record of the game each (of the three in turn
    with ``all``), as the NDJSON stream takes them."""
    from bench.engine_driver import random_record

    lines = []
    for seed in seeds:
        name = GAMES[seed % len(GAMES)] if game == "all" else game
        lines.append(json.dumps({"id": f"{name}-{seed}", "record": random_record(name, seed=seed)}, separators=(",", ":")) + "\n")
    return "".join(lines)


def write_archive(path: Path, game: str, records: int, distinct: bool = False) -> None:
    """``records`` lines: 2,000 seeds over and over, or with ``distinct`` a seed each, made on
    every CPU (a million in about 45 s on two)."""
    with path.open("w") as out:
        if distinct:
            with ProcessPoolExecutor() as pool:
                for text in pool.map(archive_lines, [game] * -(-records // 10_000),
                                     [range(n, min(n + 10_000, records)) for n in range(0, records, 10_000)]):
                    out.write(text)
            return
        lines = archive_lines(game, range(min(records, SEEDS))).splitlines(keepends=True)
        for n in range(records):
            out.write(lines[n % len(lines)])


def count_lines(path: Path) -> int:
    with path.open("rb") as lines:
        return sum(1 for _ in lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--records", type=int, default=20_000)
    parser.add_argument("--game", default="revesino", choices=[*GAMES, "all"])
    parser.add_argument("--distinct", action="store_true", help="a seed a record (else 2,000 seeds over and over)")
    parser.add_argument("--archive", type=Path, help="write the archive here and keep it; one that exists is read as it is")
    parser.add_argument("--rest", default="http://127.0.0.1:8080")
    parser.add_argument("--grpc", default="127.0.0.1:50051")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        archive = args.archive or Path(folder) / "archive.ndjson"
        kind = f"{args.game if args.game != 'all' else 'of the three games'}{', distinct' if args.distinct else ''}"
        if archive.exists():
            args.records, kind = count_lines(archive), str(archive)
        else:
            write_archive(archive, args.game, args.records, args.distinct)
        commands = programs(Path(folder))
        if shutil.which("curl") is None:
            del commands["curl, the REST stream alone"]
        rates: dict[str, list[float]] = {name: [] for name in commands}
        memory: dict[str, list[int]] = {name: [] for name in commands}
        for turn in range(args.rounds):
            for name in (list(commands) if turn % 2 == 0 else list(reversed(commands))):
                server = args.grpc if "Grpc" in name else args.rest  # (naipes audit takes no server)
                rate, rss = run([*commands[name], str(archive), server], args.records)
                rates[name].append(rate)
                memory[name].append(rss)
                print(f"round {turn + 1}: {name}: {rate:,.0f} records a second, largest RSS {rss / 1024:.0f} MB", flush=True)
    print(f"\n{args.records:,} records ({kind}), {args.rounds} round(s); medians:")
    for name in commands:
        print(f"  {name:32} {statistics.median(rates[name]):8,.0f} records a second   "
              f"largest RSS {statistics.median(memory[name]) / 1024:.0f} MB")


if __name__ == "__main__":
    main()
