"""A long soak of ``naipes serve``: mixed load over both transports for N minutes, every answer
checked, every server process sampled (bench/SOAK.md has how to read it and the figures of a run).

    .venv/bin/python -m bench.soak --minutes 25 [--clients 6] [--rest-port P --grpc-port Q] [--out DIR]

It starts ``naipes serve --workers 2`` (free ports unless given) and runs ``--clients`` client
threads, each picking one scenario after another at random (``SCENARIOS``): the six unary calls
of all three games through the project's Python client (``clients/python``, REST and gRPC; random
legal records from ``bench.engine_driver``, hands in progress, records with an illegal action),
the same over one kept-alive HTTP connection and over new gRPC channels, both streams (small and
~1,000-record archives, bad lines and records among them, half of them with ``omit_events``), bad input (malformed JSON, unknown and
duplicate cards, oversize bodies and messages, wrong media types, routes and methods, a request
line HTTP cannot read, bytes that are no message), clients that go away mid-body, mid-stream or
mid-answer, calls that hit their deadline, late bodies and a stream that pauses past the
server's wait. Each answer is checked: a result equals what the engine answers in this process
(``engine.api``), an error is the problem JSON or gRPC status of the code the error table gives
(``service.errors``), with the engine's field and message where the engine words it. An answer
that is not so, a 5xx or an ``INTERNAL`` is a failure: printed at once, counted, and the run exits
1. The slow scenarios (a 10-second late body, a 30-second paused stream) run one at a time and
only every so often (``every``), so that they cannot take every REST thread.

Every ``--sample`` seconds it samples each process of the server's tree (the supervisor, the
gunicorn master and workers, the gRPC processes, the validation pools and their resource
trackers): resident memory (VmRSS), open file descriptors, threads; the calls of the interval per
kind (count, errors by code, p50/p99 latency); the size of ``/metrics`` and of the metrics
directory, and the POSIX semaphores of the server's processes in /dev/shm. A serving process
that exits (a gunicorn worker replaced, a gRPC process gone) or a process over ``--rss-limit-mb``
(the project's 200 MB) is a failure; pool processes that come and go are counted (a pool retires
after ``NAIPES_POOL_IDLE`` seconds without a stream: ``--pool-idle``, 30 by default here, ``0``
leaves the server's 300; every ``--lull-every`` minutes the streams pause for that long and 15
seconds more, so that the pools retire and the next streams start fresh ones), and more pool
processes under one server process than its pool's size is a failure (a pile-up). ``--only``
runs some scenarios alone (by name, ``SCENARIOS``), to chase what grows.

Out (``--out``, default bench/out/soak-<time>/): ``samples.jsonl`` (one line a sample),
``failures.jsonl``, ``serve.log`` (the server's output), ``summary.json`` and ``summary.md``
(the figures bench/SOAK.md quotes: per process kind RSS at start, after warm-up and at the end,
FDs and threads at start and end, latency p50/p99 of the first and last five minutes, calls and
errors by kind).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import re
import signal
import socket
import statistics
import struct
import subprocess
import sys
import threading
import time
import traceback
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
for _path in (ROOT, ROOT / "clients" / "python"):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

import grpc  # noqa: E402
from grpc_health.v1 import health_pb2, health_pb2_grpc  # noqa: E402
from naipes_client import GrpcClient, NaipesError, RestClient, _grpc_error  # noqa: E402

from bench import engine_driver  # noqa: E402
from bench.run import free_port, serve_ready  # noqa: E402
from engine import api  # noqa: E402
from engine.errors import InvalidInput  # noqa: E402
from naipes.v1 import naipes_pb2 as pb  # noqa: E402
from naipes.v1 import naipes_pb2_grpc  # noqa: E402
from service.errors import ERRORS, MAX_REQUEST_BYTES, from_exception  # noqa: E402
from service.grpc_server import MESSAGE_CEILING  # noqa: E402

JSON = dict[str, Any]
NDJSON = "application/x-ndjson"
SERVICE = "/naipes.v1.NaipesService/"
LARGE = 1000  # records of a large archive
MB = 1024 * 1024


class Unexpected(Exception):
    """An answer the service must not give (a wrong result, a wrong error, a 5xx, INTERNAL)."""


# ---- the records -------------------------------------------------------------------------------


def expected_entry(record: JSON) -> JSON:
    """What ValidateHand answers for a record, as a stream's entry: the engine's result, or the
    error the engine raises (its code, field and message, as the error table words it)."""
    try:
        return {"result": api.validate(record)}
    except InvalidInput as exc:
        error = from_exception(exc)
        return {"error": {k: v for k, v in (("code", error.code), ("field", error.field), ("message", error.message)) if v is not None}}


@dataclass
class Case:
    """A record and its expected entry."""

    record: JSON
    expect: JSON
    kind: str  # complete, in-progress, illegal, unknown-card, duplicate-card


def illegal(record: JSON, rng: random.Random) -> JSON:
    """The record with one action played twice in a row (the second is not legal)."""
    actions = record["actions"]
    i = rng.randrange(1, len(actions))
    return {**record, "actions": actions[:i] + [actions[i - 1]] + actions[i:]}


def unknown_card(record: JSON, rng: random.Random) -> JSON:
    hands = list(record["deal"]["hands"])
    k = rng.randrange(len(hands))
    cards = hands[k].split()
    if not cards:  # (Tresillo's alcalde holds none)
        k, cards = 0 if k else 1, hands[0 if k else 1].split()
    cards[rng.randrange(len(cards))] = rng.choice(["9c", "8o", "13e", "0b", "1x"])
    hands[k] = " ".join(cards)
    return {**record, "deal": {**record["deal"], "hands": hands}}


def duplicate_card(record: JSON, rng: random.Random) -> JSON:
    hands = [h for h in record["deal"]["hands"]]
    full = [i for i, h in enumerate(hands) if h.split()]
    a, b = rng.sample(full, 2)
    cards = hands[b].split()
    cards[0] = hands[a].split()[0]
    hands[b] = " ".join(cards)
    return {**record, "deal": {**record["deal"], "hands": hands}}


class Corpus:
    """Random legal records of every game and table size, hands in progress, records with an
    illegal action and records that are not well formed, each with its expected answer."""

    def __init__(self, per_game: int, seed: int) -> None:
        rng = random.Random(seed)
        self.good: list[Case] = []
        self.bad: list[Case] = []
        for name, game in api.GAMES.items():
            for n in range(per_game):
                seats = game.SEATS[n % len(game.SEATS)]
                record = engine_driver.random_record(name, seats, seed=seed * 100_000 + n)
                for kind, variant in (("complete", record), ("in-progress", engine_driver.in_progress(record)),
                                      ("illegal", illegal(record, rng))):
                    self.good.append(Case(variant, expected_entry(variant), kind))
                for kind, variant in (("unknown-card", unknown_card(record, rng)), ("duplicate-card", duplicate_card(record, rng))):
                    case = Case(variant, expected_entry(variant), kind)
                    assert "error" in case.expect, (kind, case.expect)
                    self.bad.append(case)
        self.finished = [c for c in self.good if c.kind == "complete" and any(t.get("cards") for t in c.expect["result"]["tricks"])]

    def archive(self, rng: random.Random, size: int, bad_share: float = 0.0) -> list[Case]:
        return [rng.choice(self.bad if rng.random() < bad_share else self.good) for _ in range(size)]


def resolve_request(case: Case, rng: random.Random) -> JSON:
    """ResolveTrick's request for one trick of a finished hand (whole or so far)."""
    result = case.expect["result"]
    record = case.record
    tricks = [t for t in result["tricks"] if t.get("cards")]
    trick = rng.choice(tricks)
    cards = trick["cards"] if isinstance(trick["cards"], list) else trick["cards"].split()
    if rng.random() < 0.3:
        cards = cards[: rng.randrange(1, len(cards) + 1)]
    request: JSON = {"game": record["game"], "cards": " ".join(cards)}
    if result.get("trump"):
        request["contract"] = {"trump": result["trump"]}
    if rng.random() < 0.7 and "leader" in trick:
        request.update(seats=record["seats"], leader=trick["leader"], dealer=record["dealer"])
    return request


SETTLE = [
    {"game": "rentoy", "seats": 4, "table": {"score": [10, 4]}, "rentoy": {"winner": 0, "value": 3}},
    {"game": "rentoy", "seats": 2, "dealer": 1, "rentoy": {"winner": 1, "value": 6}},
    {"game": "tresillo", "seats": 3, "dealer": 0,
     "tresillo": {"jugador": 1, "lance": "entrada", "trump": "oros", "jugadorHand": "1e 12o 11o 10o 2o 3o 4o 5o 6o",
                  "tricks": [1, 2, 1, 0, 1, 1, 1]}},
    {"game": "revesino", "seats": 4, "dealer": 0, "rules": {"allowRevokes": True}, "table": {"fondo": 9},
     "revesino": {"tricks": [{"cards": t} for t in ["1o 3o 12c 5e", "12o 2o 12e 4e", "11o 3c 11e 3e", "9o 4c 10e 2e", "8o 5c 9e 12b",
                                                    "7o 6c 8e 11b", "6o 7c 7e 10b", "5o 1e 11c 9b", "4o 1b 10c 8b", "2c 1c 6e 7b"]],
                  "announcer": 1, "outOfPlay": "4b 3b 2b 5b"}},
]


def engine_answer(rpc: str, request: JSON) -> JSON:
    """What the engine answers a unary call (REST's JSON), or ``{"error": ...}`` as it raises."""
    try:
        if rpc == "ValidateHand":
            return {"result": api.validate(request["record"])}
        if rpc == "LegalActions":
            return api.legal_actions(request["record"], request.get("seat"))
        if rpc == "DescribeRules":
            return api.describe_rules(request["game"])
        return {"ResolveTrick": api.resolve_trick, "SettleHand": api.settle_hand, "Deal": api.deal}[rpc](request)
    except InvalidInput as exc:
        error = from_exception(exc)
        return {"error": {"code": error.code, "field": error.field, "message": error.message}}


# ---- statistics --------------------------------------------------------------------------------


@dataclass
class Stats:
    """Every call's kind, outcome (``OK`` or a code) and latency; the failures."""

    started: float = field(default_factory=time.monotonic)
    calls: list[tuple[float, str, str, float]] = field(default_factory=list)  # (t, kind, outcome, seconds)
    failures: list[JSON] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    failures_file: Any = None

    def record(self, kind: str, outcome: str, seconds: float) -> None:
        self.calls.append((time.monotonic() - self.started, kind, outcome, seconds))  # (list.append is atomic)

    def fail(self, kind: str, what: str) -> None:
        entry = {"t": round(time.monotonic() - self.started, 1), "kind": kind, "what": what[:4000]}
        with self.lock:
            self.failures.append(entry)
            if self.failures_file is not None:
                self.failures_file.write(json.dumps(entry) + "\n")
                self.failures_file.flush()
        print(f"soak: UNEXPECTED [{kind}] at {entry['t']} s: {what[:1000]}", file=sys.stderr, flush=True)


def percentile(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def summarize_calls(calls: list[tuple[float, str, str, float]]) -> JSON:
    by_kind: dict[str, list[tuple[str, float]]] = defaultdict(list)
    for _t, kind, outcome, seconds in calls:
        by_kind[kind].append((outcome, seconds))
    out = {}
    for kind, items in sorted(by_kind.items()):
        latencies = [s for _o, s in items]
        outcomes = Counter(o for o, _s in items)
        out[kind] = {"n": len(items), "outcomes": dict(sorted(outcomes.items())),
                     "p50_ms": round(percentile(latencies, 50) * 1000, 2), "p99_ms": round(percentile(latencies, 99) * 1000, 2)}
    return out


# ---- the server and its processes -------------------------------------------------------------


def process_table() -> dict[int, tuple[int, str]]:
    """Every process: pid -> (parent pid, command line)."""
    table = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmd = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if fields[0] == "Z":
            continue
        table[int(entry.name)] = (int(fields[1]), cmd)
    return table


def tree(root: int) -> list[tuple[int, int, str]]:
    """The processes under ``root`` (itself included): (pid, parent, command line)."""
    table = process_table()
    out, frontier = [], [root]
    if root in table:
        out.append((root, table[root][0], table[root][1]))
    while frontier:
        parent = frontier.pop()
        for pid, (ppid, cmd) in table.items():
            if ppid == parent:
                out.append((pid, ppid, cmd))
                frontier.append(pid)
    return out


def kind_of(pid: int, parent: int, cmd: str, kinds: dict[int, str]) -> str:
    if "resource_tracker" in cmd:
        return "resource tracker"
    if "spawn_main" in cmd or "multiprocessing" in cmd:
        return "pool (gRPC)" if kinds.get(parent) == "gRPC server" else "pool (REST)"
    if "service.grpc_server" in cmd:
        return "gRPC server"
    if "gunicorn" in cmd:
        return "gunicorn worker" if kinds.get(parent) == "gunicorn master" else "gunicorn master"
    if "naipes" in cmd and "serve" in cmd:
        return "supervisor"
    return "other"


def proc_figures(pid: int) -> JSON | None:
    base = Path("/proc") / str(pid)
    try:
        rss = next(int(line.split()[1]) for line in (base / "status").read_text().splitlines() if line.startswith("VmRSS:"))
        stat = (base / "stat").read_text().rsplit(")", 1)[1].split()
        cpu = (int(stat[11]) + int(stat[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime
        fds = len(os.listdir(base / "fd"))
        threads = len(os.listdir(base / "task"))
    except (OSError, StopIteration):
        return None
    return {"rss_kb": rss, "fds": fds, "threads": threads, "cpu_s": round(cpu, 2)}


POOL_KINDS = ("pool (gRPC)", "pool (REST)")
SERVING = ("gunicorn worker", "gRPC server")


class Server:
    """``naipes serve`` for the soak, its output in ``serve.log``."""

    def __init__(self, out: Path, workers: int, rest_port: int, grpc_port: int, pool_idle: float) -> None:
        self.rest_port, self.grpc_port = rest_port or free_port(), grpc_port or free_port()
        naipes = Path(sys.executable).parent / "naipes"
        self.workers = workers
        self.command = [str(naipes) if naipes.exists() else "naipes", "serve", "--host", "127.0.0.1", "--rest-port", str(self.rest_port),
                        "--grpc-port", str(self.grpc_port), "--workers", str(workers)]
        self.env = dict(os.environ)
        if pool_idle:
            self.env["NAIPES_POOL_IDLE"] = f"{pool_idle:g}"
        self.log_path = out / "serve.log"

    def start(self) -> None:
        self.log = self.log_path.open("w")
        self.process = subprocess.Popen(self.command, stdout=self.log, stderr=subprocess.STDOUT, cwd=ROOT, env=self.env)
        deadline = time.monotonic() + 60
        while not serve_ready(self.log_path):
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"soak: naipes serve did not start: see {self.log_path}")
            time.sleep(0.1)

    def stop(self) -> int:
        self.process.send_signal(signal.SIGTERM)
        try:
            code = self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            code = self.process.wait()
        self.log.close()
        return code


class Sampler:
    """Samples the server's processes every ``interval`` seconds (``samples.jsonl``), and watches
    for serving processes that exit, pools that pile up and memory over the limit."""

    def __init__(self, server: Server, stats: Stats, out: Path, interval: float, rss_limit_kb: int, pool_size: int) -> None:
        self.server, self.stats, self.interval = server, stats, interval
        self.rss_limit_kb, self.pool_size = rss_limit_kb, pool_size
        self.file = (out / "samples.jsonl").open("w")
        self.samples: list[JSON] = []
        self.kinds: dict[int, str] = {}
        self.serving: dict[int, str] = {}  # the serving processes seen, pid -> kind
        self.exited: list[JSON] = []
        self.pool_pids: set[int] = set()
        self.over_limit: set[int] = set()
        self.metrics_dir: str | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="soak-sampler", daemon=True)
        self._last_call = 0
        self._cpu: dict[int, float] = {}  # each process's CPU seconds at the last sample
        self._own_cpu = _own_cpu()

    def start(self) -> None:
        self.sample()
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()
        self.sample()
        self.file.close()

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            try:
                self.sample()
            except Exception:
                self.stats.fail("sampler", traceback.format_exc())

    def sample(self) -> None:
        t = time.monotonic() - self.stats.started
        processes = []
        alive = set()
        for pid, parent, cmd in tree(self.server.process.pid):
            kind = self.kinds.get(pid) or kind_of(pid, parent, cmd, self.kinds)
            self.kinds[pid] = kind
            figures = proc_figures(pid)
            if figures is None:
                continue
            alive.add(pid)
            processes.append({"pid": pid, "parent": parent, "kind": kind, **figures})
            if kind in SERVING:
                self.serving.setdefault(pid, kind)
            if kind in POOL_KINDS:
                self.pool_pids.add(pid)
            if figures["rss_kb"] > self.rss_limit_kb and pid not in self.over_limit:
                self.over_limit.add(pid)
                self.stats.fail("memory", f"{kind} {pid}: {figures['rss_kb'] / 1024:.0f} MB resident, over {self.rss_limit_kb / 1024:.0f} MB")
            if kind == "gRPC server" and self.metrics_dir is None:
                self.metrics_dir = _environ(pid).get("PROMETHEUS_MULTIPROC_DIR")
        for pid, kind in list(self.serving.items()):
            if pid not in alive and not any(e["pid"] == pid for e in self.exited):
                self.exited.append({"pid": pid, "kind": kind, "t": round(t, 1)})
                self.stats.fail("process", f"{kind} {pid} exited (a restart or a crash): see serve.log")
        pools: Counter[int] = Counter(p["parent"] for p in processes if p["kind"] in POOL_KINDS)
        for parent, count in pools.items():
            if count > self.pool_size:
                self.stats.fail("pool", f"{count} pool processes under {self.kinds.get(parent)} {parent}, its pool has {self.pool_size}")
        calls = self.stats.calls[self._last_call:]
        self._last_call += len(calls)
        ours = {str(p["pid"]) for p in processes}
        sems = [name for name in _listdir("/dev/shm") if name.startswith("sem.") and name.split("-")[1:2] and name.split("-")[1] in ours]
        metrics = {"files": 0, "bytes": 0}
        if self.metrics_dir:
            for name in _listdir(self.metrics_dir):
                try:
                    metrics["bytes"] += os.path.getsize(os.path.join(self.metrics_dir, name))
                    metrics["files"] += 1
                except OSError:
                    pass
        cpu = {p["pid"]: p["cpu_s"] for p in processes}
        server_cpu = sum(c - self._cpu.get(pid, 0.0) for pid, c in cpu.items())
        self._cpu = cpu
        own = _own_cpu()
        soak_cpu, self._own_cpu = own - self._own_cpu, own
        sample = {"t": round(t, 1), "processes": processes, "server_cpu_s": round(server_cpu, 2), "soak_cpu_s": round(soak_cpu, 2), "calls": summarize_calls(calls), "metrics_dir": metrics,
                  "semaphores": len(sems), "exposition_bytes": _exposition_size(self.server.rest_port)}
        self.samples.append(sample)
        self.file.write(json.dumps(sample) + "\n")
        self.file.flush()
        mem = ", ".join(f"{k} {max(p['rss_kb'] for p in processes if p['kind'] == k) / 1024:.0f}"
                        for k in ("gunicorn worker", "gRPC server", "pool (REST)", "pool (gRPC)") if any(p["kind"] == k for p in processes))
        errors = sum(1 for c in calls if c[2] not in ("OK",))
        print(f"soak: {t / 60:5.1f} min  {len(calls):6d} calls ({errors} errors)  CPU s: server {server_cpu:.1f}, soak {soak_cpu:.1f}  "
              f"max RSS MB: {mem}  "
              f"failures {len(self.stats.failures)}", flush=True)


def _own_cpu() -> float:
    times = os.times()
    return times.user + times.system


def _environ(pid: int) -> dict[str, str]:
    try:
        raw = (Path("/proc") / str(pid) / "environ").read_bytes()
    except OSError:
        return {}
    return dict(item.split("=", 1) for item in raw.decode(errors="replace").split("\0") if "=" in item)


def _listdir(path: str) -> list[str]:
    try:
        return os.listdir(path)
    except OSError:
        return []


def _exposition_size(port: int) -> int:
    try:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        connection.request("GET", "/metrics")
        return len(connection.getresponse().read())
    except OSError:
        return -1


# ---- checking answers -----------------------------------------------------------------------


def check_rest_problem(kind: str, status: int, headers: http.client.HTTPMessage, body: bytes, code: str,
                       expect: JSON | None = None) -> None:
    """A REST answer is the problem JSON of ``code`` with its status (and ``expect``'s field and message)."""
    if status >= 500:
        raise Unexpected(f"{kind}: HTTP {status}: {body[:300]!r}")
    try:
        problem = json.loads(body)
    except ValueError:
        raise Unexpected(f"{kind}: HTTP {status}, not JSON: {body[:300]!r}") from None
    if not (headers.get("Content-Type", "").startswith("application/problem+json") and problem.get("code") == code
            and status == problem.get("status") == ERRORS[code].http_status):
        raise Unexpected(f"{kind}: expected {code} ({ERRORS[code].http_status}), got HTTP {status} {headers.get('Content-Type')}: {body[:300]!r}")
    if expect is not None and (problem.get("field"), problem.get("detail")) != (expect.get("field"), expect.get("message")):
        raise Unexpected(f"{kind}: expected {expect}, got {problem}")


def grpc_code(exc: grpc.RpcError) -> tuple[str, str | None, str]:
    """A gRPC error's code (ErrorInfo's reason, else the status's name), field and message, read
    as the project's client reads them."""
    error = _grpc_error(exc)
    return error.code, error.field, error.message


def check_client_error(kind: str, error: NaipesError, expect: JSON) -> None:
    if (error.code, error.field, error.message) != (expect["code"], expect.get("field"), expect["message"]):
        raise Unexpected(f"{kind}: expected {expect}, got {error.code} {error.field} {error.message!r}")


def check_entries(kind: str, got: list[JSON], cases: list[Case], omit_events: bool = False) -> None:
    """Each answer is its record's expected entry (``omit_events``: with its result's events empty)."""
    if len(got) != len(cases):
        raise Unexpected(f"{kind}: {len(got)} answers to {len(cases)} records")
    for i, (answer, case) in enumerate(zip(got, cases, strict=True)):
        expect = {**case.expect, "result": {**case.expect["result"], "events": []}} if omit_events and "result" in case.expect else case.expect
        if answer != expect:
            raise Unexpected(f"{kind}: record {i} ({case.kind}): expected {json.dumps(expect)[:500]}, got {json.dumps(answer)[:500]}")


# ---- the scenarios ---------------------------------------------------------------------------


# grpcio shares one connection among the channels of a process that have the same target and
# options (its global subchannel pool): the raw channels here would all talk to one gRPC server
# process over one connection. A channel of its own has its own connection, which the kernel gives
# to one of the processes sharing the port (SO_REUSEPORT), as a client of its own would have (and
# as each GrpcClient has).
OWN_CONNECTION = [("grpc.use_local_subchannel_pool", 1)]


class Client:
    """One client thread's connections and random choices."""

    def __init__(self, soak: Soak, index: int) -> None:
        self.soak, self.stats, self.corpus = soak, soak.stats, soak.corpus
        self.rng = random.Random(f"{soak.seed}-{index}")
        self.rest = RestClient(soak.rest_url, timeout=60)
        self.grpc = GrpcClient(soak.grpc_target, timeout=60)
        self.raw_channel = grpc.insecure_channel(soak.grpc_target, options=OWN_CONNECTION)  # (raw bytes, cancels, deadlines)
        self.raw_stream = self.raw_channel.stream_stream(SERVICE + "ValidateHands")

    def close(self) -> None:
        self.grpc.close()
        self.raw_channel.close()

    def timed(self, kind: str, call: Callable[[], str]) -> None:
        """Run one call, recording its outcome (the code it returns) and its time."""
        start = time.perf_counter()
        try:
            outcome = call()
        except Unexpected as exc:
            self.stats.record(kind, "UNEXPECTED", time.perf_counter() - start)
            self.stats.fail(kind, str(exc))
            return
        except Exception:
            self.stats.record(kind, "UNEXPECTED", time.perf_counter() - start)
            self.stats.fail(kind, traceback.format_exc())
            return
        self.stats.record(kind, outcome, time.perf_counter() - start)

    # -- unary, through the Python client

    def unary_request(self) -> tuple[str, JSON]:
        rng, corpus = self.rng, self.corpus
        rpc = rng.choices(["ValidateHand", "LegalActions", "ResolveTrick", "SettleHand", "Deal", "DescribeRules"], [8, 4, 2, 1, 1, 1])[0]
        if rpc == "ValidateHand":
            case = rng.choice(corpus.bad if rng.random() < 0.1 else corpus.good)
            return rpc, {"record": case.record}
        if rpc == "LegalActions":
            case = rng.choice(corpus.good)
            request: JSON = {"record": case.record}
            if rng.random() < 0.6:
                request["seat"] = rng.randrange(case.record["seats"])
            return rpc, request
        if rpc == "ResolveTrick":
            return rpc, resolve_request(rng.choice(corpus.finished), rng)
        if rpc == "SettleHand":
            return rpc, rng.choice(SETTLE)
        if rpc == "Deal":
            name = rng.choice(list(api.GAMES))
            seats = rng.choice(api.GAMES[name].SEATS)
            return rpc, {"game": name, "seats": seats, "dealer": rng.randrange(seats), "seed": f"soak-{rng.getrandbits(32)}"}
        return rpc, {"game": rng.choice([*api.GAMES, "mus"])}

    def call_client(self, client: RestClient | GrpcClient, rpc: str, request: JSON) -> JSON:
        if rpc == "ValidateHand":
            return {"result": client.validate_hand(request["record"])}
        if rpc == "LegalActions":
            return client.legal_actions(request["record"], request.get("seat"))
        if rpc == "DescribeRules":
            return client.describe_rules(request["game"])
        method = {"ResolveTrick": client.resolve_trick, "SettleHand": client.settle_hand, "Deal": client.deal}[rpc]
        return method(request)

    def unary(self, transport: str, client: RestClient | GrpcClient | None = None) -> None:
        rpc, request = self.unary_request()
        expect = engine_answer(rpc, request)

        def call() -> str:
            try:
                got = self.call_client(client or (self.rest if transport == "rest" else self.grpc), rpc, request)
            except NaipesError as error:
                if "error" not in expect:
                    raise Unexpected(f"{rpc}: expected a result, got {error.code}: {error.message}") from None
                check_client_error(rpc, error, expect["error"])
                return error.code
            if got != expect:
                raise Unexpected(f"{rpc}: expected {json.dumps(expect)[:600]}, got {json.dumps(got)[:600]}")
            return "OK"

        self.timed(f"{transport}.{rpc}", call)

    def grpc_new_channel(self) -> None:
        with GrpcClient(self.soak.grpc_target, timeout=60) as client:
            self.unary("grpc-new-channel", client)

    def rest_keepalive(self) -> None:
        """Ten calls over one kept-alive connection (the RestClient opens one a call)."""
        connection = http.client.HTTPConnection("127.0.0.1", self.soak.rest_port, timeout=60)
        try:
            for _ in range(10):
                rpc, request = self.unary_request()
                expect = engine_answer(rpc, request)

                def call(rpc: str = rpc, request: JSON = request, expect: JSON = expect) -> str:
                    status, headers, body = rest_call(connection, rpc, request)
                    if "error" in expect:
                        check_rest_problem(rpc, status, headers, body, expect["error"]["code"], expect["error"])
                        return str(expect["error"]["code"])
                    if status != 200:
                        raise Unexpected(f"{rpc}: HTTP {status}: {body[:300]!r}")
                    got = json.loads(body)
                    if rpc == "ValidateHand":
                        got = {"result": got}
                    if got != expect:
                        raise Unexpected(f"{rpc}: expected {json.dumps(expect)[:600]}, got {json.dumps(got)[:600]}")
                    if headers.get("Connection", "").lower() == "close":
                        raise Unexpected(f"{rpc}: a kept-alive connection closed by the server")
                    return "OK"

                self.timed(f"rest-keepalive.{rpc}", call)
        finally:
            connection.close()

    # -- streams

    def grpc_stream(self, size: int, kind: str, bad_share: float = 0.05) -> None:
        cases = self.corpus.archive(self.rng, size, bad_share)
        batch = self.rng.choice([1, 7, 50, 400])  # (400 records: a message validated in parts)
        omit = self.rng.random() < 0.5  # (half the streams ask for the results without their events)

        def call() -> str:
            check_entries(kind, list(self.grpc.validate_hands([c.record for c in cases], batch=batch, omit_events=omit)), cases, omit)
            return "OK"

        self.timed(kind, call)

    def rest_stream(self, size: int, kind: str, bad_share: float = 0.05) -> None:
        cases = self.corpus.archive(self.rng, size, bad_share)
        batch = self.rng.choice([1, 7, 50])
        omit = self.rng.random() < 0.5

        def call() -> str:
            check_entries(kind, list(self.rest.validate_hands([c.record for c in cases], batch=batch, omit_events=omit)), cases, omit)
            return "OK"

        self.timed(kind, call)

    def rest_stream_bad_lines(self) -> None:
        """An NDJSON body with lines that are not JSON, too long, bare records, ids and batches."""
        rng = self.rng
        lines: list[bytes] = []
        expect: list[Callable[[JSON], bool] | JSON] = []
        for i in range(rng.randrange(20, 120)):
            roll = rng.random()
            case = rng.choice(self.corpus.good if rng.random() < 0.9 else self.corpus.bad)
            if roll < 0.05:
                lines.append(b'{"game": "rentoy", "seats": 4,, }\n')
                expect.append(lambda a: set(a) == {"error"} and a["error"]["code"] == "MALFORMED_JSON")
            elif roll < 0.07:
                lines.append(b'{"id": "x", "record": "' + b"a" * (MAX_REQUEST_BYTES + 10) + b'"}\n')
                expect.append(lambda a: set(a) == {"error"} and a["error"]["code"] == "PAYLOAD_TOO_LARGE")
            elif roll < 0.4:
                lines.append(json.dumps(case.record).encode() + b"\n")
                expect.append(case.expect)
            elif roll < 0.8:
                lines.append(json.dumps({"id": f"l{i}", "record": case.record}).encode() + b"\n")
                expect.append({"result": case.expect["result"], "id": f"l{i}"} if "result" in case.expect else {"id": f"l{i}", **case.expect})
            else:
                items = [rng.choice(self.corpus.good) for _ in range(rng.randrange(1, 20))]
                lines.append(json.dumps({"id": f"b{i}", "batch": [{"record": c.record} for c in items]}).encode() + b"\n")
                expect.append({"id": f"b{i}", "batch": [c.expect for c in items]})

        def call() -> str:
            connection = http.client.HTTPConnection("127.0.0.1", self.soak.rest_port, timeout=60)
            try:
                connection.request("POST", "/v1/hands:validateStream", body=iter(lines), headers={"Content-Type": NDJSON},
                                   encode_chunked=True)
                response = connection.getresponse()
                if response.status == 429:
                    check_rest_problem("stream", response.status, response.headers, response.read(), "TOO_MANY_STREAMS")
                    return "TOO_MANY_STREAMS"
                if response.status != 200:
                    raise Unexpected(f"HTTP {response.status}: {response.read()[:300]!r}")
                answers = [json.loads(line) for line in response.read().splitlines()]
            finally:
                connection.close()
            if len(answers) != len(expect):
                raise Unexpected(f"{len(answers)} answers to {len(expect)} lines")
            for i, (answer, wanted) in enumerate(zip(answers, expect, strict=True)):
                if not (wanted(answer) if callable(wanted) else answer == wanted):
                    raise Unexpected(f"line {i}: got {json.dumps(answer)[:500]}")
            return "OK"

        self.timed("rest.stream-bad-lines", call)

    def grpc_stream_bad_messages(self) -> None:
        """Messages with bad records, batches with bad items, bytes that are no message, messages
        over the size limit."""
        stub = self.raw_stream
        rng = self.rng
        messages: list[bytes] = []
        checks: list[Callable[[pb.ValidateHandsResponse], bool]] = []
        for i in range(rng.randrange(10, 60)):
            roll = rng.random()
            if roll < 0.1:
                messages.append(b"\xff\xff\xff garbage")
                checks.append(lambda r: r.error.code == "INVALID_FIELD" and r.error.field == "body")
            elif roll < 0.12:  # over the limit, within grpcio's ceiling: its entry, and the stream goes on
                messages.append(b"z" * rng.randrange(MAX_REQUEST_BYTES + 1, MESSAGE_CEILING + 1))
                checks.append(lambda r: r.error.code == "PAYLOAD_TOO_LARGE" and not r.id and not r.error.field)
            elif roll < 0.5:
                case = rng.choice(self.corpus.bad + self.corpus.good)
                message = pb.ValidateHandsRequest(id=f"m{i}", record=_record_message(case.record))
                messages.append(message.SerializeToString())
                checks.append(_entry_check(case.expect, f"m{i}"))
            else:
                length = rng.randrange(1, 30) if rng.random() < 0.8 else rng.randrange(100, 300)  # (large: in parts)
                items = [rng.choice(self.corpus.good + self.corpus.bad) for _ in range(length)]
                message = pb.ValidateHandsRequest(id=f"b{i}", batch=[pb.ValidateHandsRequest(record=_record_message(c.record)) for c in items])
                messages.append(message.SerializeToString())
                item_checks = [_entry_check(c.expect, None) for c in items]
                checks.append(lambda r, ic=item_checks, ident=f"b{i}": r.id == ident and len(r.batch) == len(ic)
                              and all(check(a) for check, a in zip(ic, r.batch, strict=True)))

        def call() -> str:
            try:
                answers = [pb.ValidateHandsResponse.FromString(data) for data in stub(iter(messages), timeout=60)]
            except grpc.RpcError as exc:
                code, _f, message = grpc_code(exc)
                if code == "TOO_MANY_STREAMS":
                    return code
                raise Unexpected(f"{code}: {message}") from None
            if len(answers) != len(checks):
                raise Unexpected(f"{len(answers)} answers to {len(checks)} messages")
            for i, (answer, check) in enumerate(zip(answers, checks, strict=True)):
                if not check(answer):
                    raise Unexpected(f"message {i}: got {answer}")
            return "OK"

        self.timed("grpc.stream-bad-messages", call)

    # -- bad input

    def rest_bad(self) -> None:
        rng, port = self.rng, self.soak.rest_port
        what = rng.choice(["malformed-json", "unknown-card", "duplicate-card", "oversize", "oversize-chunked", "content-type",
                           "not-found", "method", "bad-request-line", "stream-content-type", "empty-body"])

        def call() -> str:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            try:
                if what == "malformed-json":
                    connection.request("POST", "/v1/hands:validate", body=b'{"game": "rentoy", "seats": 4,', headers={"Content-Type": "application/json"})
                    code, expect = "MALFORMED_JSON", None
                elif what in ("unknown-card", "duplicate-card"):
                    case = rng.choice([c for c in self.corpus.bad if c.kind == what])
                    connection.request("POST", "/v1/hands:validate", body=json.dumps(case.record), headers={"Content-Type": "application/json"})
                    code, expect = case.expect["error"]["code"], case.expect["error"]
                elif what == "oversize":
                    connection.request("POST", "/v1/hands:validate", body=b'{"record": "' + b"x" * (MAX_REQUEST_BYTES + rng.randrange(1, 3 * MB)) + b'"}',
                                       headers={"Content-Type": "application/json"})
                    code, expect = "PAYLOAD_TOO_LARGE", None
                elif what == "oversize-chunked":
                    chunks = [b'{"record": "'] + [b"y" * 65536] * (MAX_REQUEST_BYTES // 65536 + 2) + [b'"}']
                    connection.request("POST", "/v1/hands:validate", body=iter(chunks), headers={"Content-Type": "application/json"},
                                       encode_chunked=True)
                    code, expect = "PAYLOAD_TOO_LARGE", None
                elif what == "content-type":
                    connection.request("POST", "/v1/hands:validate", body=json.dumps(rng.choice(self.corpus.good).record),
                                       headers={"Content-Type": rng.choice(["text/plain", "application/xml", "multipart/form-data"])})
                    code, expect = "UNSUPPORTED_MEDIA_TYPE", None
                elif what == "stream-content-type":
                    connection.request("POST", "/v1/hands:validateStream", body=b"{}\n", headers={"Content-Type": "text/csv"})
                    code, expect = "UNSUPPORTED_MEDIA_TYPE", None
                elif what == "not-found":
                    connection.request("POST", rng.choice(["/v1/hands:explode", "/v2/deals", "/v1//deals", "/favicon.ico"]), body=b"{}",
                                       headers={"Content-Type": "application/json"})
                    code, expect = "NOT_FOUND", None
                elif what == "method":
                    connection.request(rng.choice(["GET", "PUT", "DELETE"]), "/v1/hands:validate")
                    code, expect = "METHOD_NOT_ALLOWED", None
                elif what == "empty-body":
                    connection.request("POST", "/v1/hands:validate", body=b"", headers={"Content-Type": "application/json"})
                    expect = engine_answer("ValidateHand", {"record": {}})["error"]
                    code = expect["code"]
                else:  # a request line HTTP cannot read
                    connection.close()
                    with socket.create_connection(("127.0.0.1", port), timeout=60) as sock:
                        sock.sendall(b"POST /v1/hands:validate HTTP/1.1 extra\r\nHost: x\r\n\r\n")
                        data = _recv_all(sock)
                    head, _, body = data.partition(b"\r\n\r\n")
                    status = int(head.split()[1])
                    headers = http.client.parse_headers(_BytesReader(head.split(b"\r\n", 1)[1] + b"\r\n\r\n"))
                    check_rest_problem(what, status, headers, body, "MALFORMED_REQUEST")
                    return "MALFORMED_REQUEST"
                response = connection.getresponse()
                body = response.read()
                check_rest_problem(what, response.status, response.headers, body, code, expect)
                return code
            finally:
                connection.close()

        self.timed(f"rest.bad.{what}", call)

    def grpc_bad(self) -> None:
        rng = self.rng
        what = rng.choice(["unknown-card", "duplicate-card", "oversize", "past-ceiling", "garbage", "unknown-method"])

        def call() -> str:
            if what in ("unknown-card", "duplicate-card"):
                case = rng.choice([c for c in self.corpus.bad if c.kind == what])
                try:
                    self.grpc.validate_hand(case.record)
                except NaipesError as error:
                    check_client_error(what, error, case.expect["error"])
                    return error.code
                raise Unexpected(f"{what}: answered")
            channel = self.raw_channel
            method = "ValidateHand" if what != "unknown-method" else "Explode"
            # Over the limit: the service's PAYLOAD_TOO_LARGE; past grpcio's ceiling, grpcio's own status.
            body = {"oversize": b"z" * rng.randrange(MAX_REQUEST_BYTES + 1, MESSAGE_CEILING + 1),
                    "past-ceiling": b"z" * (MESSAGE_CEILING + rng.randrange(1, MB)), "garbage": b"\xff\xfe\x00 not a message",
                    "unknown-method": b""}[what]
            try:
                channel.unary_unary(SERVICE + method)(body, timeout=60)
            except grpc.RpcError as exc:
                code, field_, message = grpc_code(exc)
                wanted = {"oversize": "PAYLOAD_TOO_LARGE", "past-ceiling": "RESOURCE_EXHAUSTED", "garbage": "INVALID_FIELD",
                          "unknown-method": "UNIMPLEMENTED"}[what]
                if code != wanted or (what == "garbage" and field_ != "body"):
                    raise Unexpected(f"{what}: expected {wanted}, got {code} {field_} {message}") from None
                return code
            raise Unexpected(f"{what}: answered")

        self.timed(f"grpc.bad.{what}", call)

    # -- clients that go away, deadlines

    def rest_disconnect(self) -> None:
        rng, port = self.rng, self.soak.rest_port
        what = rng.choice(["mid-body", "mid-stream", "mid-answer", "after-headers"])
        records = [c.record for c in self.corpus.archive(rng, rng.randrange(50, LARGE))]

        def call() -> str:
            with socket.create_connection(("127.0.0.1", port), timeout=60) as sock:
                if rng.random() < 0.5:  # a reset rather than an orderly close
                    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                if what == "mid-body":
                    body = json.dumps({"record": records[0]}).encode()
                    sock.sendall(b"POST /v1/hands:validate HTTP/1.1\r\nHost: soak\r\nContent-Type: application/json\r\n"
                                 b"Content-Length: %d\r\n\r\n" % len(body) + body[: len(body) // 2])
                elif what == "after-headers":
                    sock.sendall(b"POST /v1/hands:validateStream HTTP/1.1\r\nHost: soak\r\nContent-Type: application/x-ndjson\r\n"
                                 b"Transfer-Encoding: chunked\r\n\r\n")
                else:
                    sock.sendall(b"POST /v1/hands:validateStream HTTP/1.1\r\nHost: soak\r\nContent-Type: application/x-ndjson\r\n"
                                 b"Transfer-Encoding: chunked\r\n\r\n")
                    lines = [json.dumps({"batch": [{"record": r} for r in records[i:i + 10]]}).encode() + b"\n" for i in range(0, len(records), 10)]
                    cut = len(lines) // 2 if what == "mid-stream" else len(lines)
                    for line in lines[:cut]:
                        sock.sendall(b"%x\r\n%s\r\n" % (len(line), line))
                    if what == "mid-answer":
                        sock.sendall(b"0\r\n\r\n")
                    sock.settimeout(10)
                    try:
                        sock.recv(rng.choice([1, 1024, 65536]))  # some of the answer, then away
                    except TimeoutError:
                        pass
            return "CLIENT_GONE"

        self.timed(f"rest.disconnect.{what}", call)

    def grpc_cancel(self) -> None:
        rng = self.rng
        what = rng.choice(["stream-after-first-answer", "stream-while-sending", "unary-future"])

        def call() -> str:
            if what == "unary-future":
                message = pb.ValidateHandRequest(record=_record_message(rng.choice(self.corpus.good).record))
                future = naipes_pb2_grpc.NaipesServiceStub(self.raw_channel).ValidateHand.future(message, timeout=60)
                time.sleep(rng.choice([0, 0.0005, 0.002]))
                future.cancel()
                return "CANCELLED"
            release = threading.Event()
            cases = self.corpus.archive(rng, 400)

            def messages() -> Iterator[pb.ValidateHandsRequest]:
                for i in range(0, len(cases), 20):
                    yield pb.ValidateHandsRequest(batch=[pb.ValidateHandsRequest(record=_record_message(c.record)) for c in cases[i:i + 20]])
                    if what == "stream-while-sending" and i >= 100:
                        release.wait(30)  # the client holds its stream open, then cancels
                        return

            call = naipes_pb2_grpc.NaipesServiceStub(self.raw_channel).ValidateHands(messages(), timeout=60)
            try:
                first = next(call)
                if [to_entry(a) for a in first.batch] != [c.expect for c in cases[:20]]:
                    raise Unexpected(f"{what}: the first answer is wrong: {first}")
                if what == "stream-while-sending":
                    time.sleep(0.2)
                call.cancel()
            except grpc.RpcError as exc:
                code, _f, message = grpc_code(exc)
                if code != "TOO_MANY_STREAMS":
                    raise Unexpected(f"{what}: {code}: {message}") from None
                return code
            finally:
                release.set()
            return "CANCELLED"

        self.timed(f"grpc.cancel.{what}", call)

    def grpc_deadline(self) -> None:
        rng = self.rng
        what = rng.choice(["unary", "stream"])

        def call() -> str:
            stub = naipes_pb2_grpc.NaipesServiceStub(self.raw_channel)
            if what == "unary":
                case = rng.choice(self.corpus.finished)
                try:
                    answer = stub.ValidateHand(pb.ValidateHandRequest(record=_record_message(case.record)), timeout=rng.choice([0.0005, 0.002, 0.005]))
                except grpc.RpcError as exc:
                    code, _f, message = grpc_code(exc)
                    if code != "DEADLINE_EXCEEDED":
                        raise Unexpected(f"{code}: {message}") from None
                    return code
                if to_entry(pb.ValidateHandsResponse(result=answer.result)) != case.expect:
                    raise Unexpected(f"answered in time, wrongly: {answer}")
                return "OK"
            cases = self.corpus.archive(rng, LARGE)
            messages = [pb.ValidateHandsRequest(batch=[pb.ValidateHandsRequest(record=_record_message(c.record)) for c in cases[i:i + 50]])
                        for i in range(0, len(cases), 50)]
            answers = 0
            try:
                for answer in stub.ValidateHands(iter(messages), timeout=rng.choice([0.05, 0.2, 0.5])):
                    if [to_entry(a) for a in answer.batch] != [c.expect for c in cases[answers * 50:(answers + 1) * 50]]:
                        raise Unexpected(f"stream answer {answers} is wrong")
                    answers += 1
            except grpc.RpcError as exc:
                code, _f, message = grpc_code(exc)
                if code not in ("DEADLINE_EXCEEDED", "TOO_MANY_STREAMS"):
                    raise Unexpected(f"{code}: {message}") from None
                return code
            return "OK"

        self.timed(f"grpc.deadline.{what}", call)

    def rest_late_body(self) -> None:
        """A body that does not come within the server's 10 seconds: REQUEST_TIMEOUT."""

        def call() -> str:
            with socket.create_connection(("127.0.0.1", self.soak.rest_port), timeout=60) as sock:
                sock.sendall(b"POST /v1/hands:validate HTTP/1.1\r\nHost: soak\r\nContent-Type: application/json\r\nContent-Length: 300\r\n\r\n"
                             b'{"record": {"game": ')
                data = _recv_all(sock)
            head, _, body = data.partition(b"\r\n\r\n")
            status = int(head.split()[1])
            headers = http.client.parse_headers(_BytesReader(head.split(b"\r\n", 1)[1] + b"\r\n\r\n"))
            check_rest_problem("late body", status, headers, body, "REQUEST_TIMEOUT")
            return "REQUEST_TIMEOUT"

        self.timed("rest.late-body", call)

    def rest_paused_stream(self) -> None:
        """A stream whose body pauses past the server's 30 seconds: its lines answered, then a
        REQUEST_TIMEOUT entry."""
        cases = self.corpus.archive(self.rng, 30)

        def call() -> str:
            with socket.create_connection(("127.0.0.1", self.soak.rest_port), timeout=90) as sock:
                sock.sendall(b"POST /v1/hands:validateStream HTTP/1.1\r\nHost: soak\r\nContent-Type: application/x-ndjson\r\n"
                             b"Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n")
                for case in cases:
                    line = json.dumps(case.record).encode() + b"\n"
                    sock.sendall(b"%x\r\n%s\r\n" % (len(line), line))
                data = _recv_all(sock)
            head, _, body = data.partition(b"\r\n\r\n")
            status = int(head.split()[1])
            if status == 429:
                return "TOO_MANY_STREAMS"
            if status != 200:
                raise Unexpected(f"HTTP {status}: {body[:300]!r}")
            answers = [json.loads(line) for line in _dechunk(body).splitlines()]
            if answers[:-1] != [c.expect for c in cases] or answers[-1].get("error", {}).get("code") != "REQUEST_TIMEOUT":
                raise Unexpected(f"{len(answers)} answers, the last {answers[-1] if answers else None}")
            return "REQUEST_TIMEOUT"

        self.timed("rest.paused-stream", call)

    def health(self) -> None:
        what = self.rng.choice(["rest.healthz", "rest.metrics", "grpc.health"])

        def call() -> str:
            if what == "grpc.health":
                answer = health_pb2_grpc.HealthStub(self.raw_channel).Check(health_pb2.HealthCheckRequest(service=""), timeout=10)
                if answer.status != health_pb2.HealthCheckResponse.SERVING:
                    raise Unexpected(f"health: {answer}")
                return "OK"
            connection = http.client.HTTPConnection("127.0.0.1", self.soak.rest_port, timeout=10)
            try:
                connection.request("GET", "/healthz" if what == "rest.healthz" else "/metrics")
                response = connection.getresponse()
                body = response.read()
            finally:
                connection.close()
            if response.status != 200 or (what == "rest.metrics" and b"naipes_requests_total" not in body):
                raise Unexpected(f"{what}: HTTP {response.status}: {body[:300]!r}")
            return "OK"

        self.timed(what, call)


def to_entry(answer: pb.ValidateHandsResponse) -> JSON:
    from service.codec import to_json

    return to_json(answer)


def _entry_check(expect: JSON, ident: str | None) -> Callable[[pb.ValidateHandsResponse], bool]:
    wanted = {**({"id": ident} if ident else {}), **expect}

    def check(answer: pb.ValidateHandsResponse) -> bool:
        return to_entry(answer) == wanted

    return check


def _record_message(record: JSON) -> pb.HandRecord:
    from service.codec import from_json

    return from_json(record, pb.HandRecord())


class _BytesReader:
    def __init__(self, data: bytes) -> None:
        self.lines = iter(data.splitlines(keepends=True))

    def readline(self, _limit: int = -1) -> bytes:
        return next(self.lines, b"")


def _recv_all(sock: socket.socket) -> bytes:
    chunks = []
    while True:
        data = sock.recv(65536)
        if not data:
            return b"".join(chunks)
        chunks.append(data)


def _dechunk(body: bytes) -> bytes:
    out, rest = [], body
    while rest:
        size_line, _, rest = rest.partition(b"\r\n")
        size = int(size_line.split(b";")[0], 16)
        if size == 0:
            break
        out.append(rest[:size])
        rest = rest[size + 2:]
    return b"".join(out)


def rest_call(connection: http.client.HTTPConnection, rpc: str, request: JSON) -> tuple[int, http.client.HTTPMessage, bytes]:
    """One unary call over a kept-alive connection, its JSON laid out as the route says."""
    if rpc == "DescribeRules":
        connection.request("GET", f"/v1/games/{request['game']}/rules")
    else:
        path = {"ValidateHand": "/v1/hands:validate", "LegalActions": "/v1/hands:legalActions", "ResolveTrick": "/v1/tricks:resolve",
                "SettleHand": "/v1/hands:settle", "Deal": "/v1/deals"}[rpc]
        body = request
        if rpc == "LegalActions":
            body = request["record"]
            if "seat" in request:
                path += f"?seat={request['seat']}"
        elif rpc == "ValidateHand":
            body = request["record"]
        connection.request("POST", path, body=json.dumps(body), headers={"Content-Type": "application/json"})
    response = connection.getresponse()
    return response.status, response.headers, response.read()


@dataclass
class Scenario:
    name: str
    run: Callable[[Client], None]
    weight: float
    every: float = 0.0  # seconds at least between two starts (one at a time), 0: no bound
    slow: bool = False  # lasts the server's own bounds (10 or 30 s): left out by --skip-slow
    streams: bool = False  # may open a stream (the validation pool): not in a lull (--lull-every)


SCENARIOS = [
    Scenario("rest unary", lambda c: c.unary("rest"), 20),
    Scenario("grpc unary", lambda c: c.unary("grpc"), 20),
    Scenario("grpc unary, a new channel", Client.grpc_new_channel, 2),
    Scenario("rest keep-alive", Client.rest_keepalive, 3),
    Scenario("grpc stream, small", lambda c: c.grpc_stream(c.rng.randrange(1, 60), "grpc.stream-small"), 4, streams=True),
    Scenario("rest stream, small", lambda c: c.rest_stream(c.rng.randrange(1, 60), "rest.stream-small"), 4, streams=True),
    Scenario("grpc stream, large", lambda c: c.grpc_stream(LARGE, "grpc.stream-large"), 1, every=4, streams=True),
    Scenario("rest stream, large", lambda c: c.rest_stream(LARGE, "rest.stream-large"), 1, every=4, streams=True),
    Scenario("rest stream, bad lines", Client.rest_stream_bad_lines, 1.5, streams=True),
    Scenario("grpc stream, bad messages", Client.grpc_stream_bad_messages, 1.5, streams=True),
    Scenario("rest bad input", Client.rest_bad, 6),
    Scenario("grpc bad input", Client.grpc_bad, 4),
    Scenario("rest disconnects", Client.rest_disconnect, 1.5, every=1, streams=True),
    Scenario("grpc cancels", Client.grpc_cancel, 1.5, every=1, streams=True),
    Scenario("grpc deadlines", Client.grpc_deadline, 2, streams=True),
    Scenario("rest late body", Client.rest_late_body, 1, every=45, slow=True),
    Scenario("rest paused stream", Client.rest_paused_stream, 1, every=150, slow=True, streams=True),
    Scenario("health and metrics", Client.health, 2),
]


class Soak:
    def __init__(self, args: argparse.Namespace, out: Path) -> None:
        self.args, self.out = args, out
        self.seed = args.seed
        self.stats = Stats()
        self.stats.failures_file = (out / "failures.jsonl").open("w")
        print("soak: building the corpus", flush=True)
        self.corpus = Corpus(args.corpus, args.seed)
        self.server = Server(out, args.workers, args.rest_port, args.grpc_port, args.pool_idle)
        self.rest_port, self.grpc_port = self.server.rest_port, self.server.grpc_port
        self.rest_url, self.grpc_target = f"http://127.0.0.1:{self.rest_port}", f"127.0.0.1:{self.grpc_port}"
        only = {name.strip() for name in args.only.split(",")} if args.only else None
        unknown = (only or set()) - {s.name for s in SCENARIOS}
        if unknown:
            raise SystemExit(f"soak: no scenario {', '.join(sorted(unknown))}; the scenarios: {', '.join(s.name for s in SCENARIOS)}")
        self.scenarios = [s for s in SCENARIOS if not (args.skip_slow and s.slow) and (only is None or s.name in only)]
        self._last: dict[str, float] = {}
        self._running: set[str] = set()
        self._lock = threading.Lock()
        self.stop = threading.Event()

    def lull(self) -> bool:
        """Whether streams pause now: for ``--pool-idle`` and 15 seconds every ``--lull-every``
        minutes, so that the pools retire and the next streams start fresh ones."""
        every = self.args.lull_every * 60
        if not every or not self.args.pool_idle:
            return False
        elapsed = time.monotonic() - self.stats.started
        return elapsed >= every and elapsed % every < self.args.pool_idle + 15

    def pick(self, rng: random.Random) -> Scenario:
        while True:
            scenario = rng.choices(self.scenarios, [s.weight for s in self.scenarios])[0]
            if scenario.streams and self.lull():
                continue
            if not scenario.every:
                return scenario
            with self._lock:
                now = time.monotonic()
                if scenario.name not in self._running and now - self._last.get(scenario.name, 0.0) >= scenario.every:
                    self._running.add(scenario.name)
                    self._last[scenario.name] = now
                    return scenario

    def done(self, scenario: Scenario) -> None:
        with self._lock:
            self._running.discard(scenario.name)

    def client(self, index: int) -> None:
        client = Client(self, index)
        try:
            while not self.stop.is_set():
                scenario = self.pick(client.rng)
                try:
                    scenario.run(client)
                except Exception:  # (building the scenario's requests failed: the tool's fault)
                    self.stats.fail(scenario.name, traceback.format_exc())
                finally:
                    self.done(scenario)
                if self.args.think:
                    self.stop.wait(client.rng.uniform(0, 2 * self.args.think))
        finally:
            client.close()

    def run(self) -> int:
        args = self.args
        self.server.start()
        print(f"soak: naipes serve --workers {args.workers}: REST {self.rest_url}, gRPC {self.grpc_target}; "
              f"{args.clients} clients for {args.minutes:g} min; out {self.out}", flush=True)
        sampler = Sampler(self.server, self.stats, self.out, args.sample, args.rss_limit_mb * 1024, pool_size())
        sampler.start()
        threads = [threading.Thread(target=self.client, args=(i,), name=f"soak-client-{i}", daemon=True) for i in range(args.clients)]
        for thread in threads:
            thread.start()
        deadline = time.monotonic() + args.minutes * 60
        # SIGINT or SIGTERM ends the soak early, with its summary, as its deadline would (set here:
        # a soak started in the background by a shell ignores SIGINT otherwise). The handler takes
        # no lock: it runs in the main thread wherever that is, and an Event's set could find the
        # main thread holding the event's lock in its wait (service.grpc_server.stop_signals).
        ended: list[int] = []
        for signum in (signal.SIGINT, signal.SIGTERM):
            signal.signal(signum, lambda number, _frame: ended.append(number))
        while time.monotonic() < deadline and not ended:
            if self.server.process.poll() is not None:
                self.stats.fail("server", f"naipes serve exited ({self.server.process.returncode}): see serve.log")
                break
            if args.stop_on_failure and self.stats.failures:
                break
            time.sleep(min(1.0, max(0.0, deadline - time.monotonic())))
        if ended:
            print("soak: ended early by a signal", flush=True)
        self.stop.set()
        for thread in threads:
            thread.join(timeout=90)
        sampler.stop()
        code = self.server.stop()
        if code != 0:
            self.stats.fail("server", f"naipes serve exited {code} on SIGTERM")
        log_problems = scan_log(self.server.log_path)
        for line in log_problems:
            self.stats.fail("server log", line)
        summary = summarize(self, sampler, args)
        (self.out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
        text = summary_markdown(summary)
        (self.out / "summary.md").write_text(text)
        print(text, flush=True)
        self.stats.failures_file.close()
        if self.stats.failures:
            print(f"soak: FAILED: {len(self.stats.failures)} unexpected answers or events (failures.jsonl)", file=sys.stderr)
            return 1
        print("soak: passed", flush=True)
        return 0


def pool_size() -> int:
    """The validation pool's size in each serving process, as the server reckons it."""
    from service.stream import pool_size as size

    return size()


# Lines of the server's output that are a fault (gunicorn's warnings about requests it cannot read
# are the bad input the soak sends, and the pools' start and retirement are info).
_FAULT = re.compile(r"Traceback|\bERROR\b|CRITICAL|WORKER TIMEOUT|Worker .* (?:was sent|exited)|\bINTERNAL\b| failed")


def scan_log(path: Path) -> list[str]:
    lines = path.read_text(errors="replace").splitlines()
    return [f"{i + 1}: {line}" for i, line in enumerate(lines) if _FAULT.search(line)][:50]


# ---- the summary -------------------------------------------------------------------------------


def summarize(soak: Soak, sampler: Sampler, args: argparse.Namespace) -> JSON:
    samples = sampler.samples
    warm = next((s for s in samples if s["t"] >= args.warmup * 60), samples[-1])
    first, last = samples[0], samples[-1]
    kinds = sorted({p["kind"] for s in samples for p in s["processes"]})

    def at(sample: JSON, kind: str, key: str) -> list[int]:
        return sorted(p[key] for p in sample["processes"] if p["kind"] == kind)

    processes = {}
    for kind in kinds:
        processes[kind] = {
            "pids_seen": len({p["pid"] for s in samples for p in s["processes"] if p["kind"] == kind}),
            "rss_mb": {"start": _mb(at(first, kind, "rss_kb")), "warm": _mb(at(warm, kind, "rss_kb")), "end": _mb(at(last, kind, "rss_kb")),
                       "max": round(max((p["rss_kb"] for s in samples for p in s["processes"] if p["kind"] == kind), default=0) / 1024, 1)},
            "fds": {"start": at(first, kind, "fds"), "end": at(last, kind, "fds"),
                    "max": max((p["fds"] for s in samples for p in s["processes"] if p["kind"] == kind), default=0)},
            "threads": {"start": at(first, kind, "threads"), "end": at(last, kind, "threads"),
                        "max": max((p["threads"] for s in samples for p in s["processes"] if p["kind"] == kind), default=0)},
            "rss_slope_kb_per_min": _slopes(samples, kind, warm["t"]),
        }
    calls = soak.stats.calls
    end = max((c[0] for c in calls), default=0.0)
    window = min(300.0, end / 2)
    early = summarize_calls([c for c in calls if c[0] < window])
    late = summarize_calls([c for c in calls if c[0] >= end - window])
    overall = summarize_calls(calls)
    latency = {kind: {"first": {k: early.get(kind, {}).get(k) for k in ("n", "p50_ms", "p99_ms")},
                      "last": {k: late.get(kind, {}).get(k) for k in ("n", "p50_ms", "p99_ms")}} for kind in overall}
    return {
        "command": " ".join([os.path.relpath(sys.executable, ROOT), "-m", "bench.soak", *sys.argv[1:]]),
        "commit": _commit(), "minutes": round(end / 60, 2), "clients": args.clients, "workers": args.workers,
        "pool_idle": args.pool_idle, "warmup_minutes": args.warmup, "window_minutes": round(window / 60, 2),
        "server": soak.server.command, "processes": processes, "exited": sampler.exited,
        "pool_processes_started": len(sampler.pool_pids),
        "semaphores": {"start": first["semaphores"], "end": last["semaphores"], "max": max(s["semaphores"] for s in samples)},
        "metrics_dir": {"start": first["metrics_dir"], "end": last["metrics_dir"]},
        "exposition_bytes": {"start": first["exposition_bytes"], "end": last["exposition_bytes"]},
        "calls": overall, "latency": latency,
        "totals": {"calls": len(calls), "outcomes": dict(Counter(c[2] for c in calls).most_common())},
        "failures": len(soak.stats.failures), "failure_kinds": dict(Counter(f["kind"] for f in soak.stats.failures)),
    }


def _mb(values: list[int]) -> list[float]:
    return [round(v / 1024, 1) for v in values]


def _slopes(samples: list[JSON], kind: str, after: float) -> list[float]:
    """Each process's RSS trend after the warm-up (least squares, KB a minute), for processes that
    lived through at least half of it."""
    series: dict[int, list[tuple[float, int]]] = defaultdict(list)
    for s in samples:
        if s["t"] >= after:
            for p in s["processes"]:
                if p["kind"] == kind:
                    series[p["pid"]].append((s["t"] / 60, p["rss_kb"]))
    span = (samples[-1]["t"] - after) / 60
    out = []
    for points in series.values():
        if len(points) >= 3 and points[-1][0] - points[0][0] >= span / 2:
            xs, ys = [x for x, _ in points], [y for _, y in points]
            mean_x, mean_y = statistics.fmean(xs), statistics.fmean(ys)
            var = sum((x - mean_x) ** 2 for x in xs)
            out.append(round(sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys, strict=True)) / var, 1) if var else 0.0)
    return sorted(out)


def _commit() -> str:
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
        return head + ("+changes" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def summary_markdown(summary: JSON) -> str:
    lines = [f"Soak: {summary['minutes']} min, {summary['clients']} clients, `naipes serve --workers {summary['workers']}`, "
             f"commit {summary['commit']}; `{summary['command']}`", "",
             "| process kind | seen | RSS MB start | after warm-up | end | max | RSS trend KB/min | FDs start → end (max) | threads start → end (max) |",
             "|---|---|---|---|---|---|---|---|---|"]
    for kind, p in summary["processes"].items():
        r, f, t = p["rss_mb"], p["fds"], p["threads"]
        lines.append(f"| {kind} | {p['pids_seen']} | {_list(r['start'])} | {_list(r['warm'])} | {_list(r['end'])} | {r['max']} | "
                     f"{_list(p['rss_slope_kb_per_min'])} | {_list(f['start'])} → {_list(f['end'])} ({f['max']}) | "
                     f"{_list(t['start'])} → {_list(t['end'])} ({t['max']}) |")
    lines += ["", f"Pool processes started: {summary['pool_processes_started']}; serving processes that exited: {len(summary['exited'])}; "
              f"semaphores in /dev/shm {summary['semaphores']['start']} → {summary['semaphores']['end']} (max {summary['semaphores']['max']}); "
              f"metrics files {summary['metrics_dir']['start']['files']} → {summary['metrics_dir']['end']['files']} "
              f"({summary['metrics_dir']['start']['bytes']} → {summary['metrics_dir']['end']['bytes']} bytes); "
              f"/metrics {summary['exposition_bytes']['start']} → {summary['exposition_bytes']['end']} bytes.", "",
              f"| call kind | calls | outcomes | p50 / p99 ms, first {summary['window_minutes']} min | last {summary['window_minutes']} min |",
              "|---|---|---|---|---|"]
    for kind, c in summary["calls"].items():
        lat = summary["latency"][kind]
        outcomes = ", ".join(f"{k} {v}" for k, v in c["outcomes"].items())
        lines.append(f"| {kind} | {c['n']} | {outcomes} | {_lat(lat['first'])} | {_lat(lat['last'])} |")
    lines += ["", f"Calls: {summary['totals']['calls']}; failures: {summary['failures']} {summary['failure_kinds'] or ''}", ""]
    return "\n".join(lines)


def _list(values: list[Any]) -> str:
    return ", ".join(str(v) for v in values) if values else "–"


def _lat(entry: JSON) -> str:
    return "–" if not entry.get("n") else f"{entry['p50_ms']} / {entry['p99_ms']} ({entry['n']})"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.soak", description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, required=True)
    parser.add_argument("--clients", type=int, default=6, help="client threads (default 6)")
    parser.add_argument("--think", type=float, default=0.02, help="seconds a client waits between scenarios, on average (default 0.02)")
    parser.add_argument("--workers", type=int, default=2, help="naipes serve --workers (default 2)")
    parser.add_argument("--rest-port", type=int, default=0, help="default: a free port")
    parser.add_argument("--grpc-port", type=int, default=0, help="default: a free port")
    parser.add_argument("--sample", type=float, default=10.0, help="seconds between samples (default 10)")
    parser.add_argument("--warmup", type=float, default=None, help="minutes of warm-up (default: 2, or a fifth of a shorter run)")
    parser.add_argument("--pool-idle", type=float, default=30.0, help="NAIPES_POOL_IDLE for the server (default 30; 0: the server's own)")
    parser.add_argument("--lull-every", type=float, default=5.0, help="minutes between lulls of the streams, --pool-idle and 15 s long, "
                                                                       "in which the pools retire (default 5; 0: none)")
    parser.add_argument("--rss-limit-mb", type=int, default=200, help="a server process over this is a failure (default 200)")
    parser.add_argument("--corpus", type=int, default=40, help="random records per game (default 40)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--stop-on-failure", action="store_true")
    parser.add_argument("--only", default="", help="only these scenarios, by name, comma-separated (to chase a leak)")
    parser.add_argument("--skip-slow", action="store_true", help="leave out the late body and the paused stream (10 and 30 s each): a smoke run")
    parser.add_argument("--out", type=Path, default=None, help="default: bench/out/soak-<time>")
    args = parser.parse_args(argv)
    if args.warmup is None:
        args.warmup = min(2.0, args.minutes / 5)
    out = args.out or ROOT / "bench" / "out" / time.strftime("soak-%Y%m%d-%H%M%S")
    out.mkdir(parents=True, exist_ok=True)
    return Soak(args, out).run()


if __name__ == "__main__":
    sys.exit(main())
