"""The benchmark suite (issue 5): ``make bench`` (full, writes bench/REPORT.md and
bench/results.json) and ``make bench-smoke`` (a few seconds, writes bench/out/smoke/; asserts
nothing about speed, only that every measurement ran and produced numbers).

Everything is measured in the same run, on the same machine, medians over repeats:

* engine: random legal complete hands per second for every game of ``engine.api.GAMES``
  (bench/engine_driver.py), and the time to validate one complete record (``engine.api.validate``);
* OpenSpiel (the optional ``open_spiel`` package): random Hearts and Spades games per second,
  driven from Python like ours, and the time to replay a Hearts game from its history;
* service: ``naipes serve --workers W`` for W = 1 and 2; requests/s and p50/p99 latency at a
  fixed concurrency for ValidateHand (a complete record of each game) and LegalActions (a hand in
  progress) over gRPC (h2load, a prebuilt gRPC frame as the body) and REST (wrk, a Lua script
  posting the JSON), beside the health check of the same server in the same run; the streaming
  validator (h2load posting one ValidateHands stream of many records, in batches of
  ``STREAM_BATCH`` records per message and one record per message) against one request per
  record; the resident memory of every server process during the load;
* where the time goes: a profile of the engine driver, the cost of each step of a request, and
  what bounds ValidateHand against the health check (``bound``, with the server ``bench/bound.py``).

* scaling: two workers against one in paired runs (both servers up, runs alternating), with the
  CPU of every server process, of the load generator and of the rest of the machine per run.
* pinned: ``naipes serve --pin-cpus`` against the default in paired runs the same way, for 1 and
  2 workers (the health check and ValidateHand over both transports; with one worker also
  ValidateHand one request at a time and the stream).

Usage: python -m bench.run [--smoke] [--only engine,openspiel,service,scaling,pinned,profiles] [--out DIR]
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import platform
import pstats
import random
import re
import shlex
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import engine_driver  # noqa: E402
from engine import api  # noqa: E402
from engine.record import WIRE  # noqa: E402

STREAM_BATCH = 50  # records per ValidateHands message (the batch a client auditing an archive sends)
CONCURRENCY = 16  # requests in flight: h2load -c 16 -m 1 (16 connections, one stream each), wrk -c 16
SECTIONS = ("engine", "openspiel", "service", "scaling", "pinned", "profiles")
TARGETS = {"engine_hands_vs_hearts": 1.0, "validate_vs_hearts_replay": 3.0, "validate_vs_health": 0.85,
           "two_workers_vs_one": 1.6, "stream_vs_unary": 10.0, "rss_mb": 200.0}


@dataclass
class Config:
    smoke: bool
    repeats: int  # engine and OpenSpiel repeats
    service_repeats: int
    engine_seconds: float
    service_seconds: float
    warm_up: float
    workers: tuple[int, ...]
    stream_records: dict[str, int] = field(default_factory=dict)


# The streamed archives are long enough (about a second on two cores) that filling and draining the
# pool's pipeline at the start and end of a stream is a small part of the run (bench/NOTES.md).
FULL = Config(smoke=False, repeats=5, service_repeats=3, engine_seconds=1.0, service_seconds=3.0, warm_up=1.0, workers=(1, 2),
              stream_records={"rentoy": 30000, "tresillo": 15000, "revesino": 15000})
SMOKE = Config(smoke=True, repeats=1, service_repeats=1, engine_seconds=0.2, service_seconds=0.5, warm_up=0.0, workers=(1, 2),
               stream_records={"rentoy": 60, "tresillo": 20, "revesino": 20})


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def log(message: str) -> None:
    print(f"bench: {message}", file=sys.stderr, flush=True)


# ---- the machine ---------------------------------------------------------------------------


def engine_compiled() -> bool:
    """Whether this run's engine (here and in the servers it starts) is the mypyc-compiled one."""
    import engine

    return bool(engine.COMPILED)


def machine() -> dict[str, Any]:
    model = ""
    try:
        model = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                      if line.startswith("model name")), "")
    except OSError:
        pass
    versions = {}
    for package in ("grpcio", "protobuf", "flask", "werkzeug", "gunicorn", "mypy", "open_spiel", "numpy"):
        try:
            versions[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            versions[package] = None
    tools = {}
    for tool, args in (("h2load", ["--version"]), ("wrk", ["-v"])):
        try:
            out = subprocess.run([tool, *args], capture_output=True, text=True, timeout=10)
            tools[tool] = (out.stdout + out.stderr).strip().splitlines()[0]
        except (OSError, IndexError, subprocess.TimeoutExpired):
            tools[tool] = None
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    return {"cores": os.cpu_count(), "affinity": len(os.sched_getaffinity(0)), "cpu": model, "platform": platform.platform(),
            "python": platform.python_version(), "implementation": platform.python_implementation(),
            "packages": versions, "tools": tools, "commit": commit, "engine_compiled": engine_compiled(), "load_average_before": os.getloadavg(),
            "date": time.strftime("%Y-%m-%d %H:%M:%S %z")}


# ---- the engine ----------------------------------------------------------------------------


def timed_loop(step: Callable[[], Any], seconds: float) -> tuple[int, float]:
    count, start = 0, time.perf_counter()
    while True:
        step()
        count += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return count, elapsed


def validate_each(records: list[dict[str, Any]]) -> None:
    """Validate the records one after the other, each answer dropped before the next is made, as
    a server drops it once sent (and as the Hearts replay keeps nothing). A list of the 20
    answers kept them all alive together, and making them in fresh memory instead of memory just
    freed cost 10-15% (Revesino 50-52 us a record against 43-45, in one process after the other)."""
    for record in records:
        api.validate(record)


def engine(cfg: Config) -> dict[str, Any]:
    out: dict[str, Any] = {"hands": {}, "validate": {}}
    for name, game in api.GAMES.items():
        table_sizes = (engine_driver.primary_seats(game),) if cfg.smoke else tuple(game.SEATS)
        for seats in table_sizes:
            rates, actions = [], []
            for repeat in range(cfg.repeats):
                rng = random.Random(repeat)
                counted: list[int] = []
                n, elapsed = timed_loop(lambda g=game, s=seats, r=rng, c=counted: c.append(engine_driver.random_hand(g, s, r)),
                                        cfg.engine_seconds)
                rates.append(n / elapsed)
                actions.append(sum(counted) / len(counted))
            out["hands"][f"{name}/{seats}"] = {"game": name, "seats": seats, "primary": seats == engine_driver.primary_seats(game),
                                               "hands_per_s": median(rates), "runs": rates, "actions_per_hand": median(actions)}
            log(f"engine {name}/{seats}: {median(rates):.0f} hands/s")
        records = [engine_driver.random_record(name, seed=seed) for seed in range(20)]
        for record in records:
            result = api.validate(record)
            assert result["valid"] and result["finished"], (name, result.get("violation"))
        times = []
        for _ in range(cfg.repeats):
            n, elapsed = timed_loop(lambda rs=records: validate_each(rs), cfg.engine_seconds)
            times.append(elapsed / (n * len(records)))
        out["validate"][name] = {"seconds": median(times), "runs": times, "records": len(records),
                                 "actions_per_record": sum(len(r["actions"]) for r in records) / len(records)}
        log(f"engine validate {name}: {median(times) * 1e3:.3f} ms")
    return out


# ---- OpenSpiel -----------------------------------------------------------------------------


def openspiel(cfg: Config) -> dict[str, Any]:
    try:
        import pyspiel  # type: ignore[import-not-found]
    except ImportError as exc:
        return {"missing": f"open_spiel is not installed ({exc}): pip install -e '.[bench]'"}

    def play(game: Any, rng: random.Random) -> list[int]:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                action = rng.choice(state.chance_outcomes())[0]
            else:
                action = rng.choice(state.legal_actions())
            state.apply_action(action)
        state.returns()
        return state.history()  # type: ignore[no-any-return]

    out: dict[str, Any] = {"version": metadata.version("open_spiel"), "games": {}}
    for name in ("hearts", "spades"):
        game = pyspiel.load_game(name)
        rates = []
        for repeat in range(cfg.repeats):
            rng = random.Random(repeat)
            n, elapsed = timed_loop(lambda g=game, r=rng: play(g, r), cfg.engine_seconds)
            rates.append(n / elapsed)
        out["games"][name] = {"games_per_s": median(rates), "runs": rates,
                              "actions_per_game": len(play(game, random.Random(0)))}
        log(f"openspiel {name}: {median(rates):.0f} games/s")
    hearts = pyspiel.load_game("hearts")
    histories = [play(hearts, random.Random(seed)) for seed in range(20)]

    def replay(history: list[int]) -> None:
        state = hearts.new_initial_state()
        for action in history:
            state.apply_action(action)
        assert state.is_terminal()
        state.returns()

    times = []
    for _ in range(cfg.repeats):
        n, elapsed = timed_loop(lambda: [replay(h) for h in histories], cfg.engine_seconds)
        times.append(elapsed / (n * len(histories)))
    out["hearts_replay"] = {"seconds": median(times), "runs": times, "actions_per_history": sum(map(len, histories)) / len(histories)}
    log(f"openspiel hearts replay: {median(times) * 1e6:.0f} us")
    out["paired"] = paired_with_hearts(cfg, lambda rng: play(hearts, rng), lambda: [replay(h) for h in histories], len(histories))
    return out


PAIRS = 5  # paired runs per figure (``paired_with_hearts``)


def paired_with_hearts(cfg: Config, hearts_game: Callable[[random.Random], Any], hearts_replays: Callable[[], Any],
                       replays: int) -> dict[str, Any]:
    """The engine's targets as paired ratios: each run of ours (random hands of a game, or
    validating its 20 records) is followed at once by the same run of OpenSpiel's Hearts (random
    games, or replaying its 20 histories), in alternating order, and the ratio is the median of
    the pairs' ratios. The sections above measure our games for minutes before OpenSpiel; on a
    shared machine whose speed drifts between minutes, that drift went into the ratio."""
    seconds = cfg.engine_seconds / 2
    out: dict[str, Any] = {"hands": {}, "validate": {}, "seconds": seconds}

    def pairs(ours: Callable[[], float], theirs: Callable[[], float]) -> dict[str, Any]:
        ratios, runs = [], []
        for i in range(PAIRS if not cfg.smoke else 1):
            if i % 2:
                b, a = theirs(), ours()
            else:
                a, b = ours(), theirs()
            ratios.append(a / b)
            runs.append([a, b])
        return {"ratio": median(ratios), "pairs": ratios, "runs": runs}

    def rate(step: Callable[[], Any]) -> float:
        n, elapsed = timed_loop(step, seconds)
        return n / elapsed

    def time_each(step: Callable[[], Any], count: int) -> float:
        n, elapsed = timed_loop(step, seconds)
        return elapsed / (n * count)

    for name, game in api.GAMES.items():
        seats = engine_driver.primary_seats(game)
        rng, hearts_rng = random.Random(0), random.Random(0)
        out["hands"][f"{name}/{seats}"] = pairs(lambda g=game, s=seats, r=rng: rate(lambda: engine_driver.random_hand(g, s, r)),
                                                lambda hr=hearts_rng: rate(lambda: hearts_game(hr)))
        records = [engine_driver.random_record(name, seed=seed) for seed in range(20)]
        out["validate"][name] = pairs(lambda rs=records: time_each(lambda: validate_each(rs), len(rs)),
                                      lambda: time_each(hearts_replays, replays))
        log(f"paired with hearts: {name} hands/s {out['hands'][f'{name}/{seats}']['ratio']:.2f}x, "
            f"validate {out['validate'][name]['ratio']:.2f}x the replay")
    return out


# ---- the service ---------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def listening(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.2):
            return True
    except OSError:
        return False


def serve_ready(log: Path) -> bool:
    """``naipes serve``, its output in ``log``, has written that it is ready: every gRPC process
    listens and every REST worker has loaded the app."""
    return "naipes ready" in log.read_text(errors="replace")


def descendants(pid: int) -> list[int]:
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parents[int(entry.name)] = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                pass
    out, frontier = [], [pid]
    while frontier:
        parent = frontier.pop()
        kids = [p for p, pp in parents.items() if pp == parent]
        out += kids
        frontier += kids
    return out


def role(pid: int) -> str:
    try:
        cmd = (Path("/proc") / str(pid) / "cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return "gone"
    if "multiprocessing" in cmd or "spawn_main" in cmd:
        return "validation pool worker"
    if "service.grpc_server" in cmd:
        return "gRPC server"
    if "gunicorn" in cmd:
        return "gunicorn"
    if "resource_tracker" in cmd:
        return "multiprocessing resource tracker"
    if "naipes serve" in cmd:
        return "naipes serve (the supervisor)"
    return cmd[:60]


def rss_kb(pid: int) -> int:
    try:
        for line in (Path("/proc") / str(pid) / "status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


class MemorySampler:
    """The largest resident set of each server process while it runs, sampled every 0.2 s."""

    def __init__(self, root_pid: int) -> None:
        self.root = root_pid
        self.peak: dict[int, tuple[str, int]] = {}
        self.total_peak = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.wait(0.2):
            pids = [self.root, *descendants(self.root)]
            total = 0
            for pid in pids:
                kb = rss_kb(pid)
                total += kb
                if kb > self.peak.get(pid, ("", 0))[1]:
                    self.peak[pid] = (role(pid), kb)
            self.total_peak = max(self.total_peak, total)

    def __enter__(self) -> MemorySampler:
        self._thread.start()
        return self

    def __exit__(self, *_: Any) -> None:
        self._stop.set()
        self._thread.join()

    def report(self) -> dict[str, Any]:
        by_role: dict[str, list[float]] = {}
        for name, kb in self.peak.values():
            by_role.setdefault(name, []).append(kb / 1024)
        return {"max_process_mb": max((kb / 1024 for _, kb in self.peak.values()), default=0.0),
                "total_mb": self.total_peak / 1024,
                "by_role": {name: {"processes": len(v), "max_mb": max(v)} for name, v in sorted(by_role.items())}}


class Server:
    """``naipes serve --workers W`` on free ports, for the duration of a ``with``."""

    def __init__(self, workers: int, out: Path, tag: str = "", extra: tuple[str, ...] = ()) -> None:
        self.workers = workers
        self.rest_port, self.grpc_port = free_port(), free_port()
        naipes = Path(sys.executable).parent / "naipes"
        self.command = [str(naipes) if naipes.exists() else "naipes", "serve", "--host", "127.0.0.1", "--rest-port", str(self.rest_port),
                        "--grpc-port", str(self.grpc_port), "--workers", str(workers), *extra]
        self.log = (out / f"serve{tag}-w{workers}.log").open("w")
        self.refused: dict[str, int] = {}  # (calls_failed's keys)
        self.failed: dict[str, int] | None = None
        self.cut: dict[str, int] | None = None  # (REST calls whose client went before their answer: ``__exit__``)

    def __enter__(self) -> Server:
        self.process = subprocess.Popen(self.command, stdout=self.log, stderr=subprocess.STDOUT, cwd=ROOT)
        deadline = time.monotonic() + 60
        while not serve_ready(Path(self.log.name)):
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"naipes serve did not start: see {self.log.name}")
            time.sleep(0.1)
        return self

    def calls_failed(self) -> dict[str, int]:
        """The calls this server has answered with an error, by ``transport method code``, from its
        /metrics (every process's). h2load counts a gRPC error, which comes in the trailers of an
        HTTP 200, as a success: a load run's own error count cannot see it."""
        from prometheus_client.parser import text_string_to_metric_families

        time.sleep(0.5)  # (each process writes its calls to the metrics four times a second)
        with urllib.request.urlopen(f"http://127.0.0.1:{self.rest_port}/metrics", timeout=30) as answer:
            text = answer.read().decode()
        return {f"{sample.labels['transport']} {sample.labels['method']} {sample.labels['code']}": int(sample.value)
                for family in text_string_to_metric_families(text) if family.name == "naipes_requests"
                for sample in family.samples if sample.name == "naipes_requests_total" and sample.labels["code"] != "OK" and sample.value}

    @contextmanager
    def refusing_streams(self) -> Iterator[None]:
        """Streams started at once beyond the server's bound (to start every process's pool) are
        refused, TOO_MANY_STREAMS: those of the ``with`` are not counted in ``failed``."""
        before = self.calls_failed()
        yield
        for key, count in self.calls_failed().items():
            if key.endswith(" TOO_MANY_STREAMS"):
                self.refused[key] = self.refused.get(key, 0) + count - before.get(key, 0)

    def __exit__(self, failure: type[BaseException] | None, *_: Any) -> None:
        if failure is None:
            failed = {key: count - self.refused.get(key, 0) for key, count in self.calls_failed().items() if count > self.refused.get(key, 0)}
            # A REST call is CANCELLED when its client closed the connection before the answer went:
            # wrk does so at the end of each run, with a call in flight on each of its connections. Not
            # the server's error (wrk counts a connection it closes mid-run, on its timeout, as its own).
            self.cut = {key: count for key, count in failed.items() if key.startswith("rest ") and key.endswith(" CANCELLED")}
            self.failed = {key: count for key, count in failed.items() if key not in self.cut}
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.log.close()


def grpc_frame(message: Any) -> bytes:
    data = message.SerializeToString()
    return b"\0" + len(data).to_bytes(4, "big") + data


@dataclass
class Load:
    """One load run's figures."""

    rps: float
    p50_ms: float
    p99_ms: float
    requests: int
    errors: int
    command: str
    mean_ms: float = float("nan")  # the load generator's own mean request time
    in_flight: int = CONCURRENCY
    cpu: dict[str, Any] = field(default_factory=dict)  # accounted(): where the machine's CPU went during the run


HZ = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process so far (0 once it is gone)."""
    try:
        fields = (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / HZ
    except (OSError, ValueError, IndexError):
        return 0.0


def switches(pid: int) -> int:
    """Context switches of a process's threads so far, voluntary and not (0 once it is gone; a
    thread's own count goes with it when it ends)."""
    total = 0
    try:
        tasks = list((Path("/proc") / str(pid) / "task").iterdir())
    except OSError:
        return 0
    for task in tasks:
        try:
            lines = (task / "status").read_text().splitlines()
            total += sum(int(line.split()[1]) for line in lines if "ctxt_switches:" in line)
        except (OSError, ValueError, IndexError):
            pass
    return total


def busy_seconds() -> float:
    """CPU seconds the whole machine has spent busy (every core, /proc/stat)."""
    values = [int(x) for x in Path("/proc/stat").read_text().splitlines()[0].split()[1:9]]
    return (sum(values) - values[3] - values[4]) / HZ  # all but idle and iowait


QUIET_CORES = 0.2  # other processes' share of the cores above which a run is flagged as disturbed


def wait_quiet(max_wait: float = 30.0, sample: float = 0.5) -> float:
    """Wait (at most ``max_wait`` s) until the machine is idle between load runs: busy below
    QUIET_CORES over ``sample`` s, the servers being idle then. Returns the seconds waited.
    On a machine shared with other jobs this keeps a run from starting in the middle of theirs."""
    start = time.monotonic()
    deadline = start + max_wait
    while True:
        before = busy_seconds()
        time.sleep(sample)
        busy = (busy_seconds() - before) / sample
        if busy < QUIET_CORES or time.monotonic() > deadline:
            if busy >= QUIET_CORES:
                log(f"machine still busy ({busy:.2f} cores) after {max_wait:.0f} s of waiting; running anyway")
            return time.monotonic() - start


def accounted(root: int, run: Callable[[], Load]) -> Load:
    """Run a load and record where the machine's CPU went meanwhile, in cores (CPU seconds per
    second of the run): each server process (the tree under ``root``), the load generator (this
    suite's child), this suite itself, and everything else on the machine ("other": another job
    sharing the cores makes a run meaningless, and a ratio of two such runs unstable)."""
    pids = [root, *descendants(root)]
    before = {pid: cpu_seconds(pid) for pid in pids}
    switched = {pid: switches(pid) for pid in pids}
    own0, busy0, start = os.times(), busy_seconds(), time.perf_counter()
    load = run()
    wall = time.perf_counter() - start
    own1, busy1 = os.times(), busy_seconds()
    after = [root, *descendants(root)]
    per = {pid: (cpu_seconds(pid) - before.get(pid, 0.0)) / wall for pid in after}
    server = sum(per.values())
    server_switches = sum(switches(pid) - switched.get(pid, 0) for pid in after) / wall
    generator = (own1.children_user + own1.children_system - own0.children_user - own0.children_system) / wall
    suite = (own1.user + own1.system - own0.user - own0.system) / wall
    busy = (busy1 - busy0) / wall
    other = min(float(os.cpu_count() or 1), max(0.0, busy - server - generator - suite))  # clamped: /proc/stat can jump
    load.cpu = {"server": server, "server_switches": server_switches, "generator": generator, "suite": suite, "other": other,
                "busy": busy, "processes": sorted(([role(pid), round(c, 3)] for pid, c in per.items() if c >= 0.01), key=lambda x: -x[1])}
    return load


def h2load(url: str, body: Path, seconds: float, warm_up: float, out: Path, connections: int = CONCURRENCY, requests: int = 0) -> Load:
    """gRPC load with h2load: POST a prebuilt gRPC frame with content-type application/grpc and
    te: trailers; p50/p99 from its per-request log, the mean from its summary. h2load appends to
    an existing log file: it is removed before every run (until 2026-11-29 it was not, and every
    run's percentiles were those of all the runs before it together)."""
    logfile = out / "h2load-requests.tsv"
    logfile.unlink(missing_ok=True)
    command = ["h2load", "-t", "1", "-c", str(connections), "-m", "1", "-d", str(body),
               "-H", "content-type: application/grpc", "-H", "te: trailers", f"--log-file={logfile}"]
    if requests:
        command += ["-n", str(requests)]
    else:
        command += ["-D", f"{round(seconds * 1000)}ms"] + ([f"--warm-up-time={round(warm_up * 1000)}ms"] if warm_up else [])
    command.append(url)
    run = subprocess.run(command, capture_output=True, text=True, timeout=seconds + warm_up + 600)
    (out / "h2load-last.txt").write_text(run.stdout + run.stderr)
    if run.returncode != 0:
        raise RuntimeError(f"h2load failed: {shlex.join(command)}\n{run.stdout}{run.stderr}")
    return h2load_figures(run.stdout, logfile.read_text(), shlex.join(command), connections, counted=bool(requests))


def h2load_figures(text: str, log: str, command: str, connections: int, counted: bool) -> Load:
    """One h2load run's figures, from its output ``text`` and its per-request ``log`` (a line a
    request: start, status or -1 for a stream that failed, microseconds). Only the requests
    answered 2xx count: h2load's own req/s counts every request answered with a status, 4xx and
    5xx included, and its "succeeded" the 3xx too. The throughput is theirs over the main
    duration (h2load's req/s scaled to them) or, for a run of a fixed number of requests
    (``counted``), over the time it took; the percentiles are theirs; the mean is h2load's (every
    request answered with a status). The errors: failed streams, timeouts and answers not 2xx."""
    finished = re.search(r"finished in ([\d.]+(?:us|ms|s)), ([\d.]+) req/s", text)
    counts = re.search(r"requests: (\d+) total, (\d+) started, (\d+) done, (\d+) succeeded, (\d+) failed, (\d+) errored, (\d+) timeout", text)
    status = re.search(r"status codes: (\d+) 2xx, (\d+) 3xx, (\d+) 4xx, (\d+) 5xx", text)
    if not finished or not counts or not status:
        raise RuntimeError(f"h2load failed: {command}\n{text}")
    elapsed = duration_ms(finished[1]) / 1000
    answered, ok = sum(int(n) for n in status.groups()), int(status[1])
    latencies = sorted(int(fields[2]) for fields in (line.split("\t") for line in log.splitlines())
                       if len(fields) >= 3 and 200 <= int(fields[1]) < 300)
    if abs(len(latencies) - ok) > max(2, ok // 100):
        raise RuntimeError(f"h2load logged {len(latencies)} requests answered 2xx but counted {ok}: {command}")
    summary = re.search(r"time for request:\s+(\S+)\s+(\S+)\s+(\S+)", text)
    mean_ms = duration_ms(summary[3]) if summary else float("nan")
    errors = int(counts[5]) + int(status[2])  # every request not answered 2xx, once (timeouts are failed streams)
    if counted:
        rps = ok / elapsed
    else:  # (h2load's req/s over the main duration, scaled to the requests answered 2xx)
        rps = float(finished[2]) * ok / answered if answered else 0.0
    return Load(rps=rps, p50_ms=percentile(latencies, 50) / 1000, p99_ms=percentile(latencies, 99) / 1000, requests=ok, errors=errors,
                command=command, mean_ms=mean_ms, in_flight=connections)


def duration_ms(text: str) -> float:
    """h2load's durations: 850us, 12.5ms, 1.02s."""
    found = re.fullmatch(r"([\d.]+)(us|ms|s)", text)
    if not found:
        return float("nan")
    return float(found[1]) * {"us": 1e-3, "ms": 1.0, "s": 1e3}[found[2]]


def percentile(values: list[int], p: float) -> float:
    if not values:
        return float("nan")
    return float(values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))])


WRK_SCRIPT = ROOT / "bench" / "post.lua"


def wrk(url: str, body: Path | None, seconds: float, out: Path) -> Load:
    command = ["wrk", "-t", "1", "-c", str(CONCURRENCY), "-d", f"{max(1, round(seconds))}s", "-s", str(WRK_SCRIPT), url]
    env = {**os.environ, "NAIPES_BENCH_BODY": str(body) if body else ""}
    run = subprocess.run(command, capture_output=True, text=True, timeout=seconds + 120, env=env)
    (out / "wrk-last.txt").write_text(run.stdout + run.stderr)
    if run.returncode != 0:
        raise RuntimeError(f"wrk failed: {shlex.join(command)}\n{run.stdout}{run.stderr}")
    body_note = f"NAIPES_BENCH_BODY={body} " if body else ""
    return wrk_figures(run.stdout, body_note + shlex.join(command))


def wrk_figures(text: str, command: str) -> Load:
    """One wrk run's figures, from the line bench/post.lua writes. wrk counts every answer in its
    requests, whatever its status; the throughput counts those answered 2xx only (post.lua's
    ``errors_status``: the answers that were not). The errors: wrk's socket errors and
    timeouts, and the answers not 2xx; the latencies are wrk's, of every answer."""
    found = re.search(r"^WRKJSON (\{.*\})$", text, re.M)
    if not found:
        raise RuntimeError(f"wrk failed: {command}\n{text}")
    data = json.loads(found[1])
    errors = sum(v for k, v in data.items() if k.startswith("errors"))
    ok = data["requests"] - data["errors_status"]
    return Load(rps=ok / (data["duration_us"] / 1e6), p50_ms=data["p50_us"] / 1000, p99_ms=data["p99_us"] / 1000,
                requests=ok, errors=errors, command=command, mean_ms=data.get("mean_us", float("nan")) / 1000)


def repeated(cfg: Config, run: Callable[[], Load], root: int) -> dict[str, Any]:
    """``cfg.service_repeats`` runs against the server whose process tree starts at ``root``.
    Beside the latencies: Little's law, requests in flight = req/s x mean request time, which must
    give back the client's concurrency (a check on the latency figures), and the CPU accounting."""
    loads = [accounted(root, run) for _ in range(cfg.service_repeats)]
    return {"rps": median([x.rps for x in loads]), "p50_ms": median([x.p50_ms for x in loads]),
            "p99_ms": median([x.p99_ms for x in loads]), "mean_ms": median([x.mean_ms for x in loads]),
            "in_flight_littles_law": median([x.rps * x.mean_ms / 1000 for x in loads]), "in_flight": loads[0].in_flight,
            "requests": sum(x.requests for x in loads),
            "errors": sum(x.errors for x in loads), "runs": [x.rps for x in loads], "command": loads[0].command,
            "cpu": summarize_cpu([x.cpu for x in loads]), "cpu_runs": [x.cpu for x in loads]}


def summarize_cpu(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Medians over runs of the server's, the generator's and the suite's cores; the largest share
    taken by other processes (the figure that says whether the machine was quiet)."""
    return {"server": median([r["server"] for r in runs]), "generator": median([r["generator"] for r in runs]),
            "suite": median([r["suite"] for r in runs]), "other_max": max(r["other"] for r in runs)}


def unary_payloads(out: Path) -> dict[str, Any]:
    """The bodies of the unary calls: the health check, a complete record of median length per
    game (ValidateHand) and the same hand stopped half way (LegalActions)."""
    from google.protobuf import json_format
    from grpc_health.v1 import health_pb2

    from naipes.v1 import naipes_pb2 as pb

    files: dict[str, Any] = {"health.grpc": out / "health.grpc"}
    files["health.grpc"].write_bytes(grpc_frame(health_pb2.HealthCheckRequest()))
    for name in api.GAMES:
        record = engine_driver.typical_record(name)
        partial = engine_driver.in_progress(record)
        for rpc, data in (("ValidateHand", record), ("LegalActions", partial)):
            (out / f"{rpc}-{name}.json").write_text(json.dumps(data))
            message = json_format.ParseDict({"record": data}, getattr(pb, f"{rpc}Request")())
            (out / f"{rpc}-{name}.grpc").write_bytes(grpc_frame(message))
            files[f"{rpc}/{name}"] = {"json": out / f"{rpc}-{name}.json", "grpc": out / f"{rpc}-{name}.grpc",
                                      "actions": len(data["actions"])}
        brief = out / f"ValidateHand-{name}-brief.grpc"  # the same record, its events omitted
        brief.write_bytes(grpc_frame(pb.ValidateHandRequest(record=json_format.ParseDict(record, pb.HandRecord()), omit_events=True)))
        files[f"ValidateHand/{name}"]["grpc_brief"] = brief
    return files


def payloads(out: Path, cfg: Config) -> dict[str, Any]:
    """The request bodies: those of the unary calls (``unary_payloads``) and a stream of records
    per game (ValidateHands)."""
    from google.protobuf import json_format

    from naipes.v1 import naipes_pb2 as pb

    files = unary_payloads(out)
    for name in api.GAMES:
        count = cfg.stream_records.get(name, 200)
        records = [engine_driver.random_record(name, seed=seed) for seed in range(min(count, 200))]
        messages = [pb.ValidateHandsRequest(id=str(i), record=json_format.ParseDict(records[i % len(records)], pb.HandRecord()))
                    for i in range(count)]
        (out / f"ValidateHands-{name}.grpc").write_bytes(b"".join(grpc_frame(pb.ValidateHandsRequest(batch=messages[i:i + STREAM_BATCH]))
                                                                   for i in range(0, count, STREAM_BATCH)))
        (out / f"ValidateHands-{name}-brief.grpc").write_bytes(b"".join(
            grpc_frame(pb.ValidateHandsRequest(batch=messages[i:i + STREAM_BATCH], omit_events=True)) for i in range(0, count, STREAM_BATCH)))
        (out / f"ValidateHands-{name}-single.grpc").write_bytes(b"".join(grpc_frame(m) for m in messages))
        (out / f"ValidateHands-{name}.ndjson").write_text("".join(json.dumps(records[i % len(records)]) + "\n" for i in range(count)))
        files[f"ValidateHands/{name}"] = {"grpc": out / f"ValidateHands-{name}.grpc", "ndjson": out / f"ValidateHands-{name}.ndjson",
                                          "grpc_single": out / f"ValidateHands-{name}-single.grpc", "records": count,
                                          "grpc_brief": out / f"ValidateHands-{name}-brief.grpc"}
    return files


def check_payloads(server: Server, files: dict[str, Any], streams: bool = True) -> None:
    """Every body is answered without error over both transports (h2load counts a gRPC error,
    which comes in the trailers of an HTTP 200, as a success)."""
    import grpc
    import requests

    from naipes.v1 import naipes_pb2 as pb

    with grpc.insecure_channel(f"127.0.0.1:{server.grpc_port}") as channel:
        grpc.channel_ready_future(channel).result(timeout=30)
        for key, entry in files.items():
            if key == "health.grpc":
                call = channel.unary_unary("/grpc.health.v1.Health/Check")
                call(entry.read_bytes()[5:], timeout=30)
                continue
            rpc, _game = key.split("/")
            data = entry["grpc"].read_bytes()
            if rpc == "ValidateHands" and not streams:
                continue
            if rpc == "ValidateHands":
                call_stream = channel.stream_stream(f"/naipes.v1.NaipesService/{rpc}")
                for body, brief in ((data, False), (entry["grpc_single"].read_bytes(), False), (entry["grpc_brief"].read_bytes(), True)):
                    frames = split_frames(body)
                    answers = [pb.ValidateHandsResponse.FromString(a) for a in call_stream(iter(frames), timeout=600)]
                    assert len(answers) == len(frames), key
                    results = [item for a in answers for item in (a.batch if a.batch else [a])]
                    assert len(results) == entry["records"] and all(r.HasField("result") and r.result.valid for r in results), key
                    assert all(bool(r.result.events) != brief for r in results), (key, brief)
                continue
            call = channel.unary_unary(f"/naipes.v1.NaipesService/{rpc}")
            call(data[5:], timeout=30)
            if "grpc_brief" in entry:
                answer = pb.ValidateHandResponse.FromString(call(entry["grpc_brief"].read_bytes()[5:], timeout=30))
                assert answer.result.valid and not answer.result.events, key
                brief = requests.post(f"http://127.0.0.1:{server.rest_port}/v1/hands:validate?omitEvents=true", data=entry["json"].read_bytes(),
                                      headers={"Content-Type": "application/json"}, timeout=30)
                assert brief.status_code == 200 and brief.json()["valid"] and brief.json()["events"] == [], (key, brief.text[:300])
            answer = requests.post(f"http://127.0.0.1:{server.rest_port}/v1/hands:{'validate' if rpc == 'ValidateHand' else 'legalActions'}",
                                   data=entry["json"].read_bytes(), headers={"Content-Type": "application/json"}, timeout=30)
            assert answer.status_code == 200 and answer.json()["valid"], (key, answer.text[:300])


def split_frames(data: bytes) -> list[bytes]:
    frames, i = [], 0
    while i < len(data):
        size = int.from_bytes(data[i + 1:i + 5], "big")
        frames.append(data[i + 5:i + 5 + size])
        i += 5 + size
    return frames


def stream_rest(server: Server, body: Path, records: int) -> float:
    """Records/s of one NDJSON stream over REST (curl sends and reads at once)."""
    command = ["curl", "-sS", "-o", "-", "-H", "Content-Type: application/x-ndjson", "--data-binary", f"@{body}",
               f"http://127.0.0.1:{server.rest_port}/v1/hands:validateStream"]
    start = time.perf_counter()
    run = subprocess.run(command, capture_output=True, timeout=600)
    elapsed = time.perf_counter() - start
    lines = run.stdout.splitlines()
    if run.returncode != 0 or len(lines) != records or b'"error"' in run.stdout:
        raise RuntimeError(f"REST stream failed: {shlex.join(command)}: {len(lines)} lines of {records}")
    return records / elapsed


def measure(cfg: Config, server: Server, files: dict[str, Any], raw: Path) -> dict[str, Any]:
    """Every load run against one server."""
    check_payloads(server, files)
    root = server.process.pid
    grpc_base = f"http://127.0.0.1:{server.grpc_port}"
    rest_base = f"http://127.0.0.1:{server.rest_port}"
    figures: dict[str, Any] = {"command": shlex.join(server.command), "grpc": {}, "rest": {}, "stream": {}}
    # Health first and last: the same server's cheapest call, around the others.
    health_runs: dict[str, list[dict[str, Any]]] = {"grpc": [], "rest": []}

    def health() -> None:
        health_runs["grpc"].append(repeated(cfg, lambda: h2load(grpc_base + "/grpc.health.v1.Health/Check", files["health.grpc"],
                                                                cfg.service_seconds, cfg.warm_up, raw), root))
        health_runs["rest"].append(repeated(cfg, lambda: wrk(rest_base + "/healthz", None, cfg.service_seconds, raw), root))

    health()
    calls = []  # (key, RPC, its gRPC body, its REST path, the payload's entry)
    for key, entry in files.items():
        if key == "health.grpc" or key.startswith("ValidateHands"):
            continue
        rpc, _game = key.split("/")
        calls.append((key, rpc, entry["grpc"], "/v1/hands:validate" if rpc == "ValidateHand" else "/v1/hands:legalActions", entry))
    for name in api.GAMES:  # the same records, their answers' events omitted (omit_events)
        entry = files[f"ValidateHand/{name}"]
        calls.append((f"ValidateHand/{name}, events omitted", "ValidateHand", entry["grpc_brief"], "/v1/hands:validate?omitEvents=true", entry))
    for key, rpc, body, path, entry in calls:
        figures["grpc"][key] = repeated(cfg, lambda b=body, r=rpc: h2load(f"{grpc_base}/naipes.v1.NaipesService/{r}", b,
                                                                          cfg.service_seconds, cfg.warm_up, raw), root)
        figures["rest"][key] = repeated(cfg, lambda e=entry, p=path: wrk(rest_base + p, e["json"], cfg.service_seconds, raw), root)
        figures["grpc"][key]["actions"] = figures["rest"][key]["actions"] = entry["actions"]
        log(f"  {key}: gRPC {figures['grpc'][key]['rps']:.0f} req/s, REST {figures['rest'][key]['rps']:.0f} req/s")
    if not cfg.smoke:
        health()
    for transport in ("grpc", "rest"):
        runs = health_runs[transport]
        figures[transport]["health"] = {**runs[0], "rps": median([r["rps"] for r in runs]),
                                        "p50_ms": median([r["p50_ms"] for r in runs]), "p99_ms": median([r["p99_ms"] for r in runs]),
                                        "mean_ms": median([r["mean_ms"] for r in runs]),
                                        "in_flight_littles_law": median([r["in_flight_littles_law"] for r in runs]),
                                        "runs": [x for r in runs for x in r["runs"]], "errors": sum(r["errors"] for r in runs),
                                        "cpu_runs": [c for r in runs for c in r["cpu_runs"]],
                                        "cpu": summarize_cpu([c for r in runs for c in r["cpu_runs"]])}
        log(f"  health {transport}: {figures[transport]['health']['rps']:.0f} req/s")
    # The streaming validator against one request per record, records of each game.
    for name in api.GAMES:
        entry = files[f"ValidateHands/{name}"]
        url = f"{grpc_base}/naipes.v1.NaipesService/ValidateHands"
        with server.refusing_streams():  # start every gRPC process's pool
            h2load(url, entry["grpc"], 0, 0, raw, connections=8, requests=8)
        stream = [h2load(url, entry["grpc"], 0, 0, raw, connections=1, requests=1) for _ in range(cfg.service_repeats)]
        stream_rps = [entry["records"] / (1 / x.rps) for x in stream]
        single = [h2load(url, entry["grpc_single"], 0, 0, raw, connections=1, requests=1) for _ in range(cfg.service_repeats)]
        single_rps = [entry["records"] / (1 / x.rps) for x in single]
        unary = files[f"ValidateHand/{name}"]
        one_by_one = repeated(cfg, lambda u=unary: h2load(f"{grpc_base}/naipes.v1.NaipesService/ValidateHand", u["grpc"],
                                                          cfg.service_seconds, cfg.warm_up, raw, connections=1), root)
        # The same with every answer's events omitted (omit_events), the stream and one request at a time.
        brief = [h2load(url, entry["grpc_brief"], 0, 0, raw, connections=1, requests=1) for _ in range(cfg.service_repeats)]
        brief_rps = [entry["records"] / (1 / x.rps) for x in brief]
        brief_one_by_one = repeated(cfg, lambda u=unary: h2load(f"{grpc_base}/naipes.v1.NaipesService/ValidateHand", u["grpc_brief"],
                                                                cfg.service_seconds, cfg.warm_up, raw, connections=1), root)
        stream_rest(server, entry["ndjson"], entry["records"])  # warm the REST workers' pools
        rest_rates = [stream_rest(server, entry["ndjson"], entry["records"]) for _ in range(cfg.service_repeats)]
        figures["stream"][name] = {
            "records": entry["records"], "batch": STREAM_BATCH, "grpc_stream_records_per_s": median(stream_rps), "runs": stream_rps,
            "errors": sum(x.errors for x in stream + single + brief) + brief_one_by_one["errors"], "command": stream[0].command,
            "brief_grpc_stream_records_per_s": median(brief_rps), "brief_runs": brief_rps, "brief_command": brief[0].command,
            "brief_unary_sequential_per_s": brief_one_by_one["rps"], "brief_unary_sequential": brief_one_by_one,
            "grpc_stream_single_records_per_s": median(single_rps), "single_runs": single_rps, "single_command": single[0].command,
            "unary_sequential_per_s": one_by_one["rps"], "unary_sequential": one_by_one,
            "unary_concurrent_per_s": figures["grpc"][f"ValidateHand/{name}"]["rps"],
            "rest_stream_records_per_s": median(rest_rates), "rest_runs": rest_rates}
        log(f"  stream {name}: {median(stream_rps):.0f} records/s in batches of {STREAM_BATCH}, {median(single_rps):.0f} one per message "
            f"(one by one {one_by_one['rps']:.0f}/s); events omitted {median(brief_rps):.0f} records/s (one by one {brief_one_by_one['rps']:.0f}/s)")
    return figures


def service(cfg: Config, out: Path) -> dict[str, Any]:
    raw = out / "raw"
    raw.mkdir(parents=True, exist_ok=True)
    files = payloads(raw, cfg)
    results: dict[str, Any] = {}
    for workers in cfg.workers:
        log(f"service: naipes serve --workers {workers}")
        with Server(workers, out) as server, MemorySampler(server.process.pid) as memory:
            figures = measure(cfg, server, files, raw)
        figures["memory"] = memory.report()
        figures["calls_failed"], figures["calls_cut"] = server.failed, server.cut
        results[str(workers)] = figures
    return results


def scaling(cfg: Config, out: Path) -> dict[str, Any]:
    """Two workers against one, paired. A 1-worker and a 2-worker server run side by side (the idle
    one costs nothing), and each load run on one is followed at once by the same run on the other,
    in alternating order: a change in the machine's load between minutes then hits both sides of a
    ratio, which it did not when all the 1-worker runs came minutes before the 2-worker ones. The
    ratio is the median of the paired ratios. Every run records where the CPU went (per server
    process: how the kernel spread the connections; the generator; other processes), and each gRPC
    process logs at exit how many calls it answered."""
    raw = out / "raw"
    raw.mkdir(parents=True, exist_ok=True)
    files = payloads(raw, cfg)
    calls = ["health", *(key for key in files if key.startswith("ValidateHand/"))]
    results: dict[str, Any] = {"grpc": {}, "rest": {}}
    patience = [120.0]  # seconds of waiting for an idle machine in the whole section, at most
    with Server(1, out, tag="-scaling") as one, Server(2, out, tag="-scaling") as two:
        servers = {1: one, 2: two}
        for server in servers.values():
            check_payloads(server, files, streams=False)
        for transport in ("grpc", "rest"):
            for key in calls:
                pairs = paired(cfg, servers, lambda s, t=transport, k=key: unary_load(cfg, files, raw, s, t, k), patience)
                results[transport][key] = pair_figures(pairs, 1, 2)
                log(f"  scaling {transport} {key}: {results[transport][key]['ratio']:.2f}x "
                    f"({', '.join(f'{r:.2f}' for r in results[transport][key]['ratios'])}; "
                    f"other processes up to {results[transport][key]['other_max']:.2f} cores)")
        results["commands"] = {str(w): shlex.join(s.command) for w, s in servers.items()}
        logs = {w: s.log.name for w, s in servers.items()}
    results["calls_failed"] = {str(workers): server.failed for workers, server in servers.items()}
    text = Path(logs[2]).read_text()
    results["grpc_calls_per_process"] = [int(n) for n in re.findall(r"answered (\d+) unary calls", text)]
    return results


def unary_load(cfg: Config, files: dict[str, Any], raw: Path, server: Server, transport: str, key: str) -> Load:
    """One load run of a unary call (``health`` or ``ValidateHand/<game>``) on ``server``, at
    ``CONCURRENCY`` requests in flight."""
    if transport == "grpc":
        path, body = ("/grpc.health.v1.Health/Check", files["health.grpc"]) if key == "health" else \
            (f"/naipes.v1.NaipesService/{key.split('/')[0]}", files[key]["grpc"])
        return h2load(f"http://127.0.0.1:{server.grpc_port}{path}", body, cfg.service_seconds, cfg.warm_up, raw)
    path, json_body = ("/healthz", None) if key == "health" else ("/v1/hands:validate", files[key]["json"])
    return wrk(f"http://127.0.0.1:{server.rest_port}{path}", json_body, cfg.service_seconds, raw)


def paired(cfg: Config, servers: dict[Any, Server], run: Callable[[Server], Load], patience: list[float]) -> list[dict[Any, Load]]:
    """``cfg.service_repeats`` pairs of ``run``, each on one server of two followed at once by the
    other (order alternating), each pair started once the machine is idle (``wait_quiet``, out of
    ``patience[0]`` seconds left for the section)."""
    first, second = servers
    pairs: list[dict[Any, Load]] = []
    for repeat in range(cfg.service_repeats):
        pair = {}
        patience[0] -= wait_quiet(min(30.0, max(0.0, patience[0])))
        for side in ((first, second) if repeat % 2 == 0 else (second, first)):
            server = servers[side]
            pair[side] = accounted(server.process.pid, lambda s=server: run(s))
        pairs.append(pair)
    return pairs


def pair_figures(pairs: list[dict[Any, Load]], base: Any, other: Any) -> dict[str, Any]:
    """A call's paired runs: the median of the ratios other / base, each side's req/s, CPU, errors."""
    ratios_ = [p[other].rps / p[base].rps for p in pairs]
    sides = (base, other)
    return {"ratio": median(ratios_), "ratios": ratios_, "rps_1": median([p[base].rps for p in pairs]),
            "rps_2": median([p[other].rps for p in pairs]), "runs_1": [p[base].rps for p in pairs], "runs_2": [p[other].rps for p in pairs],
            "p50_ms_1": median([p[base].p50_ms for p in pairs]), "p50_ms_2": median([p[other].p50_ms for p in pairs]),
            "errors": sum(p[w].errors for p in pairs for w in sides), "requests": sum(p[w].requests for p in pairs for w in sides),
            "cpu_1": [p[base].cpu for p in pairs], "cpu_2": [p[other].cpu for p in pairs],
            "other_max": max(p[w].cpu["other"] for p in pairs for w in sides),
            "generator_max": max(p[w].cpu["generator"] for p in pairs for w in sides), "command": pairs[0][base].command}


def rpc_url(server: Server, rpc: str) -> str:
    return f"http://127.0.0.1:{server.grpc_port}/naipes.v1.NaipesService/{rpc}"


def pinned(cfg: Config, out: Path) -> dict[str, Any]:
    """``naipes serve --pin-cpus`` (service/affinity.py) against the default, paired as the
    scaling section pairs its servers: for each number of workers, an unpinned and a pinned server
    side by side, each run on one followed at once by the same on the other. The unary calls at
    ``CONCURRENCY`` in flight over both transports; with one worker also ValidateHand one request
    at a time and the ValidateHands stream (batches of ``STREAM_BATCH``), the two sides of the
    streaming target's ratio."""
    raw = out / "raw"
    raw.mkdir(parents=True, exist_ok=True)
    files = payloads(raw, cfg)
    calls = ["health", *(f"ValidateHand/{name}" for name in api.GAMES)]
    results: dict[str, Any] = {"workers": {}, "commands": {}}
    patience = [120.0]
    for workers in cfg.workers:
        figures: dict[str, Any] = {"grpc": {}, "rest": {}, "lone": {}, "stream": {}}
        with Server(workers, out, tag="-unpinned") as plain, Server(workers, out, tag="-pinned", extra=("--pin-cpus",)) as pin:
            servers = {"unpinned": plain, "pinned": pin}
            for server in servers.values():
                check_payloads(server, files, streams=False)
            for transport in ("grpc", "rest"):
                for key in calls:
                    pairs = paired(cfg, servers, lambda s, t=transport, k=key: unary_load(cfg, files, raw, s, t, k), patience)
                    figures[transport][key] = pair_figures(pairs, "unpinned", "pinned")
                    log(f"  pinned, {workers} worker(s), {transport} {key}: {figures[transport][key]['rps_1']:.0f} -> "
                        f"{figures[transport][key]['rps_2']:.0f} req/s ({figures[transport][key]['ratio']:.2f}x)")
            if workers == 1:
                for name in api.GAMES:
                    pairs = paired(cfg, servers, lambda s, n=name: h2load(rpc_url(s, "ValidateHand"), files[f"ValidateHand/{n}"]["grpc"],
                                                                            cfg.service_seconds, cfg.warm_up, raw, connections=1), patience)
                    figures["lone"][name] = pair_figures(pairs, "unpinned", "pinned")
                    entry = files[f"ValidateHands/{name}"]

                    def stream(server: Server, body: Path = entry["grpc"]) -> Load:  # one ValidateHands stream of the archive
                        return h2load(rpc_url(server, "ValidateHands"), body, 0, 0, raw, connections=1, requests=1)

                    for server in servers.values():  # start each server's pool
                        stream(server)
                    pairs = paired(cfg, servers, stream, patience)
                    figures["stream"][name] = {**pair_figures(pairs, "unpinned", "pinned"), "records": entry["records"]}
                    log(f"  pinned, one at a time {name}: {figures['lone'][name]['rps_1']:.0f} -> {figures['lone'][name]['rps_2']:.0f} req/s; "
                        f"stream {figures['stream'][name]['rps_1'] * entry['records']:.0f} -> "
                        f"{figures['stream'][name]['rps_2'] * entry['records']:.0f} records/s")
            results["commands"][str(workers)] = {side: shlex.join(s.command) for side, s in servers.items()}
        figures["calls_failed"] = {side: server.failed for side, server in servers.items()}
        results["workers"][str(workers)] = figures
    return results


# ---- where the time goes -------------------------------------------------------------------


def profiles(cfg: Config, work: Path) -> dict[str, Any]:
    """cProfile of the engine driver (top functions by own time), the cost of each step of a
    ValidateHand request, per game, and what bounds ValidateHand against the health check."""
    out: dict[str, Any] = {"engine": {}, "request_steps": {}, "bound": bound(cfg, work)}
    for name, game in api.GAMES.items():
        seats = engine_driver.primary_seats(game)
        rng = random.Random(0)
        profiler = cProfile.Profile()
        profiler.enable()
        timed_loop(lambda g=game, s=seats, r=rng: engine_driver.random_hand(g, s, r), cfg.engine_seconds)
        profiler.disable()
        stats = pstats.Stats(profiler, stream=io.StringIO())
        total = sum(v[2] for v in stats.stats.values())  # type: ignore[attr-defined]
        rows = sorted(stats.stats.items(), key=lambda kv: kv[1][2], reverse=True)[:12]  # type: ignore[attr-defined]
        out["engine"][name] = [{"function": f"{Path(f).name}:{line}({fn})", "own_share": v[2] / total, "calls": v[1]}
                               for (f, line, fn), v in rows]
        record = engine_driver.typical_record(name)
        timings = request_steps(record, cfg)
        out["request_steps"][name] = {"actions": len(record["actions"]), "microseconds": timings}
    return out


EVICT_BYTES = 16 << 20  # written between two calls to evict them from the CPU's caches (L1 and L2: 4 MiB a core here)


def bound(cfg: Config, work: Path) -> dict[str, Any]:
    """What bounds ValidateHand against the health check (target 0.85), per game, on one gRPC
    server process (``bench/bound.py``): its health check, ValidateHand answered with a stored
    response (the same bytes in and out, without the work) and ValidateHand itself, in turn, at
    the suite's concurrency; the CPU time of the ValidateHand handler per call in that server
    under that load; and the same handler in this process, called in a loop (its code and data
    stay in the CPU's caches) and with ``EVICT_BYTES`` written before each call."""
    from service.handlers import WIRE_HANDLERS

    raw = work / "raw"
    raw.mkdir(parents=True, exist_ok=True)
    files = unary_payloads(raw)
    port = free_port()
    process = subprocess.Popen([sys.executable, "-m", "bench.bound", str(port)], stdout=subprocess.PIPE, text=True, cwd=ROOT)
    assert process.stdout is not None
    try:
        json.loads(process.stdout.readline())  # listening

        def handler_cpu() -> dict[str, Any]:
            process.send_signal(signal.SIGUSR1)
            assert process.stdout is not None
            return json.loads(process.stdout.readline())

        base = f"http://127.0.0.1:{port}"
        urls = {"health": "/grpc.health.v1.Health/Check", "stored": "/bench.Stored/ValidateHand",
                "validate": "/naipes.v1.NaipesService/ValidateHand"}

        def load(name: str, kind: str) -> Load:
            data = files["health.grpc"] if kind == "health" else files[f"ValidateHand/{name}"]["grpc"]
            return accounted(process.pid, lambda: h2load(base + urls[kind], data, cfg.service_seconds, cfg.warm_up, raw))

        runs, cpu = bound_rounds(cfg, load, lambda name: handler_cpu().get(name, {"calls": 0, "cpu_seconds": 0.0}))
    finally:
        process.terminate()
        process.wait(timeout=30)
    evict = bytearray(EVICT_BYTES)
    handler = WIRE_HANDLERS["ValidateHand"]
    results: dict[str, Any] = {"evict_bytes": EVICT_BYTES, "games": {}}
    for name in api.GAMES:
        data = files[f"ValidateHand/{name}"]["grpc"].read_bytes()[5:]

        def call(d: bytes = data) -> bytes:
            return handler(d)

        n, elapsed = timed_loop(call, max(0.05, cfg.engine_seconds / 2))
        cold, spent = (20 if cfg.smoke else 300), 0.0
        for _ in range(cold):
            evict[:] = bytes(EVICT_BYTES)
            start = time.thread_time()
            call()
            spent += time.thread_time() - start
        entry = results["games"][name] = {**bound_figures(runs[name], cpu[name], "handler"),
                                          "handler_us_warm": elapsed / n * 1e6, "handler_us_evicted": spent / cold * 1e6}
        log(f"  bound {name}: stored answer {entry['stored_vs_health']:.2f}, ValidateHand {entry['validate_vs_health']:.2f} of health; "
            f"handler {entry['handler_us_under_load']:.0f} us under load, {entry['handler_us_warm']:.0f} warm, "
            f"{entry['handler_us_evicted']:.0f} evicted (budget {entry['budget_us']:.0f})")
    results["command"] = f"{Path(sys.executable).name} -m bench.bound PORT"
    results["rest"] = bound_rest(cfg, files, raw)
    return results


def bound_rest(cfg: Config, files: dict[str, Any], raw: Path) -> dict[str, Any]:
    """The same for REST, per game, on one gunicorn worker as ``naipes serve --workers 1`` runs
    it (``bench.bound:rest_app()``): its health check, a record answered with a stored body and
    ValidateHand itself, in turn, at the suite's concurrency, and the CPU time of the ValidateHand
    view per call under that load."""
    import urllib.request

    from service.cli import REST_THREADS, REST_WORKER_CLASS

    port = free_port()
    command = [sys.executable, "-m", "gunicorn", "--workers", "1", "--worker-class", REST_WORKER_CLASS, "--threads", str(REST_THREADS),
               "--bind", f"127.0.0.1:{port}", "--log-level", "warning", "bench.bound:rest_app()"]
    log_file = (raw / "bound-rest.log").open("w")
    process = subprocess.Popen(command, stdout=log_file, stderr=subprocess.STDOUT, cwd=ROOT)
    base = f"http://127.0.0.1:{port}"

    def view_cpu() -> dict[str, Any]:
        with urllib.request.urlopen(base + "/bench/cpu", timeout=10) as answer:
            return json.loads(answer.read()).get("rest", {"calls": 0, "cpu_seconds": 0.0})

    try:
        deadline = time.monotonic() + 60
        while not listening(port):
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"bound: gunicorn did not start: see {log_file.name}")
            time.sleep(0.1)
        urls = {"health": "/healthz", "stored": "/bench/stored", "validate": "/v1/hands:validate"}

        def load(name: str, kind: str) -> Load:
            body = None if kind == "health" else files[f"ValidateHand/{name}"]["json"]
            return accounted(process.pid, lambda: wrk(base + urls[kind], body, cfg.service_seconds, raw))

        runs, cpu = bound_rounds(cfg, load, lambda _name: view_cpu())
    finally:
        process.terminate()
        process.wait(timeout=30)
        log_file.close()
    results: dict[str, Any] = {"games": {}, "command": shlex.join([Path(command[0]).name, *command[1:]]).replace(str(port), "PORT")}
    for name in api.GAMES:
        entry = results["games"][name] = bound_figures(runs[name], cpu[name], "view")
        log(f"  bound {name} REST: stored answer {entry['stored_vs_health']:.2f}, ValidateHand {entry['validate_vs_health']:.2f} of health; "
            f"view {entry['view_us_under_load']:.0f} us under load (budget {entry['budget_us']:.0f})")
    return results


def bound_rounds(cfg: Config, load: Callable[[str, str], Load], spent: Callable[[str], dict[str, Any]]
                 ) -> tuple[dict[str, dict[str, list[float]]], dict[str, list[float]]]:
    """``cfg.service_repeats`` rounds of, per game, the health check, the stored answer and
    ValidateHand (``load(game, kind)``); their req/s by game and kind, and the calls and CPU
    seconds ValidateHand's handler spent by game (``spent(game)``: since it was last asked).
    A load that was ``accounted`` also gives the server's CPU and context switches a call, by
    game and kind (under ``"<kind> cpu_us"`` and ``"<kind> switches"``)."""
    runs: dict[str, dict[str, list[float]]] = {name: {"health": [], "stored": [], "validate": []} for name in api.GAMES}
    cpu = {name: [0.0, 0.0] for name in api.GAMES}
    for _ in range(cfg.service_repeats):
        for name in api.GAMES:
            for kind in ("health", "stored", "validate"):
                spent(name)
                result = load(name, kind)
                if result.errors:
                    raise RuntimeError(f"bound: {result.errors} errors: {result.command}")
                runs[name][kind].append(result.rps)
                if result.cpu:
                    runs[name].setdefault(f"{kind} cpu_us", []).append(result.cpu["server"] / result.rps * 1e6)
                    runs[name].setdefault(f"{kind} switches", []).append(result.cpu["server_switches"] / result.rps)
                if kind == "validate":
                    figures = spent(name)
                    cpu[name][0] += figures["calls"]
                    cpu[name][1] += figures["cpu_seconds"]
    return runs, cpu


def bound_figures(runs: dict[str, list[float]], cpu: list[float], what: str) -> dict[str, Any]:
    """One game's figures of ``bound_rounds``: the medians, their ratios to the health check, the
    CPU of ``what`` (the handler, the view) per call under load, and the budget."""
    health, stored, validate = (median(runs[k]) for k in ("health", "stored", "validate"))
    per_call = {f"{kind}_{figure}".replace(" ", "_"): median(runs[f"{kind} {figure}"])
                for kind in ("health", "validate") for figure in ("cpu_us", "switches") if f"{kind} {figure}" in runs}
    return {"health_rps": health, "stored_rps": stored, "validate_rps": validate, "runs": runs, **per_call,
            "stored_vs_health": stored / health, "validate_vs_health": validate / health,
            f"{what}_us_under_load": cpu[1] / max(1, cpu[0]) * 1e6, f"{what}_calls_under_load": int(cpu[0]),
            # the most a call may add to the health check's time and keep ValidateHand at the target
            "budget_us": (1 / TARGETS["validate_vs_health"] - 1) / health * 1e6}


def request_steps(record: dict[str, Any], cfg: Config) -> dict[str, float]:
    """Microseconds of each step of one ValidateHand request for ``record``."""
    from google.protobuf import json_format

    from naipes.v1 import naipes_pb2 as pb
    from service.codec import as_json, dumps_bytes, from_engine, from_json, request_json, to_engine, to_wire

    wire = pb.ValidateHandRequest(record=json_format.ParseDict(record, pb.HandRecord())).SerializeToString()
    body = json.dumps(record).encode()
    request = pb.ValidateHandRequest.FromString(wire)
    data = to_engine(request)["record"]
    result = api.validate(data)
    for_wire = api.validate(data, events=WIRE)  # what gRPC's handler has written (engine.record: shared events)
    steps: dict[str, Callable[[], Any]] = {
        "gRPC: wire bytes -> dict (request_json)": lambda: request_json(wire, pb.ValidateHandRequest),
        "REST: JSON text -> message (json.loads + from_json)": lambda: from_json(json.loads(body), pb.HandRecord()),
        "REST: message -> dict (to_engine)": lambda: to_engine(request),
        "engine (api.validate)": lambda: api.validate(data),
        "gRPC: engine, its answer for the wire (api.validate, events=WIRE)": lambda: api.validate(data, events=WIRE),
        "gRPC: dict -> wire bytes (to_wire)": lambda: to_wire({"result": for_wire}, pb.ValidateHandResponse),
        "REST: answer -> JSON text (as_json + dumps_bytes)": lambda: dumps_bytes(as_json({"result": result}, pb.ValidateHandResponse)["result"]),
        "(gRPC by protobuf's messages: parse + to_engine)": lambda: to_engine(pb.ValidateHandRequest.FromString(wire)),
        "(gRPC by protobuf's messages: from_engine + serialize)": lambda: from_engine({"result": result}, pb.ValidateHandResponse).SerializeToString(),
    }
    timings = {}
    for step, fn in steps.items():
        n, elapsed = timed_loop(fn, max(0.05, cfg.engine_seconds / 4))
        timings[step] = elapsed / n * 1e6
    return timings


# ---- the report ----------------------------------------------------------------------------


def ratios(results: dict[str, Any]) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    os_ = results.get("openspiel", {})
    eng = results.get("engine", {})
    svc = results.get("service", {})
    if "paired" in os_:
        for key, entry in os_["paired"]["hands"].items():
            rows.append({"target": f"random {key} hands/s vs OpenSpiel Hearts games/s (paired runs)", "value": entry["ratio"],
                         "goal": f">= {TARGETS['engine_hands_vs_hearts']}", "met": entry["ratio"] >= TARGETS["engine_hands_vs_hearts"]})
        for name, entry in os_["paired"]["validate"].items():
            rows.append({"target": f"validate a complete {name} record vs OpenSpiel Hearts replay (time, paired runs)", "value": entry["ratio"],
                         "goal": f"<= {TARGETS['validate_vs_hearts_replay']}", "met": entry["ratio"] <= TARGETS["validate_vs_hearts_replay"]})
    elif "games" in os_ and eng:  # a results.json from before the paired runs
        hearts = os_["games"]["hearts"]["games_per_s"]
        for key, entry in eng["hands"].items():
            if entry["primary"]:
                rows.append({"target": f"random {key} hands/s vs OpenSpiel Hearts games/s", "value": entry["hands_per_s"] / hearts,
                             "goal": f">= {TARGETS['engine_hands_vs_hearts']}", "met": entry["hands_per_s"] / hearts >= TARGETS["engine_hands_vs_hearts"]})
        replay = os_["hearts_replay"]["seconds"]
        for name, entry in eng["validate"].items():
            rows.append({"target": f"validate a complete {name} record vs OpenSpiel Hearts replay (time)", "value": entry["seconds"] / replay,
                         "goal": f"<= {TARGETS['validate_vs_hearts_replay']}", "met": entry["seconds"] / replay <= TARGETS["validate_vs_hearts_replay"]})
    for workers, figures in svc.items():
        for transport in ("grpc", "rest"):
            health = figures[transport]["health"]["rps"]
            for key, entry in figures[transport].items():
                if key.startswith("ValidateHand/"):
                    value = entry["rps"] / health
                    rows.append({"target": f"{key} vs health check, {transport.upper() if transport == 'rest' else 'gRPC'}, {workers} worker(s)",
                                 "value": value, "goal": f">= {TARGETS['validate_vs_health']}", "met": value >= TARGETS["validate_vs_health"]})
    if "scaling" in results:
        for transport in ("grpc", "rest"):
            for key, entry in results["scaling"][transport].items():
                rows.append({"target": f"2 workers vs 1: {key}, {'gRPC' if transport == 'grpc' else 'REST'} (paired runs)",
                             "value": entry["ratio"], "goal": f">= {TARGETS['two_workers_vs_one']}",
                             "met": entry["ratio"] >= TARGETS["two_workers_vs_one"],
                             "disturbed": entry["other_max"] if entry["other_max"] > QUIET_CORES else None})
    elif "1" in svc and "2" in svc:
        for transport in ("grpc", "rest"):
            for key in svc["1"][transport]:
                if key.startswith("ValidateHand/") or key == "health":
                    value = svc["2"][transport][key]["rps"] / svc["1"][transport][key]["rps"]
                    rows.append({"target": f"2 workers vs 1: {key}, {'gRPC' if transport == 'grpc' else 'REST'}", "value": value,
                                 "goal": f">= {TARGETS['two_workers_vs_one']}", "met": value >= TARGETS["two_workers_vs_one"]})
    for workers, figures in svc.items():
        for name, entry in figures["stream"].items():
            for against, label in (("unary_sequential_per_s", "one request at a time"), ("unary_concurrent_per_s", f"{CONCURRENCY} requests in flight")):
                value = entry["grpc_stream_records_per_s"] / entry[against]
                rows.append({"target": f"ValidateHands {name} records/s (batches of {entry.get('batch', 1)}) vs ValidateHand {label}, "
                                       f"{workers} worker(s)", "value": value,
                             "goal": f">= {TARGETS['stream_vs_unary']}", "met": value >= TARGETS["stream_vs_unary"]})
            if "brief_grpc_stream_records_per_s" in entry:
                value = entry["brief_grpc_stream_records_per_s"] / entry["brief_unary_sequential_per_s"]
                rows.append({"target": f"ValidateHands {name} records/s (batches of {entry.get('batch', 1)}), events omitted, vs ValidateHand "
                                       f"one request at a time, events omitted, {workers} worker(s)", "value": value,
                             "goal": f">= {TARGETS['stream_vs_unary']}", "met": value >= TARGETS["stream_vs_unary"]})
        mem = figures["memory"]["max_process_mb"]
        rows.append({"target": f"largest server process RSS under load, {workers} worker(s) (MB)", "value": mem,
                     "goal": f"< {TARGETS['rss_mb']:.0f}", "met": mem < TARGETS["rss_mb"]})
    return rows


def fmt(value: float, digits: int = 0) -> str:
    return f"{value:,.{digits}f}"


def write_report(results: dict[str, Any], path: Path, command: str) -> None:
    m = results["machine"]
    lines = [f"# Naipes benchmark report{' (smoke run: tiny durations, numbers not meaningful)' if results['smoke'] else ''}", "",
             f"Generated by `{command}` on {m['date']} at commit `{m['commit']}`. Every figure below comes from this one run on this "
             f"machine; each is the median of {results['repeats']} repeat(s) (engine, OpenSpiel) or "
             f"{results['service_repeats']} (service). The raw figures are in "
             f"[{'results.json' if not results['smoke'] else path.with_name('results.json').name}](results.json).", "",
             "## Machine", "",
             f"- {m['cores']} cores ({m['affinity']} usable), {m['cpu'] or 'CPU model unknown'}; {m['platform']}",
             f"- Python {m['python']} ({m['implementation']}); " + ", ".join(f"{k} {v}" for k, v in m["packages"].items() if v),
             "- engine: " + ("compiled by mypyc (`make build`) from its Python sources" if m.get("engine_compiled")
                             else "the Python sources, not compiled (`make build` compiles them)"),
             f"- load generators: {m['tools']['h2load']}; {m['tools']['wrk']}; load average before the run: "
             + ", ".join(f"{x:.2f}" for x in m["load_average_before"]),
             "- The load generators run on the same machine as the server and take part of its cores.", ""]
    lines += ["## Targets (issue 5), as ratios", ""]
    lines += ["| target | measured | goal | met |", "|---|---:|---|---|"] if results["ratios"] else \
        ["None in this run: each ratio needs the sections it compares (the engine's with OpenSpiel's, the service's, scaling)."]
    for row in results["ratios"]:
        disturbed = f" (machine busy: other processes took up to {row['disturbed']:.2f} cores)" if row.get("disturbed") else ""
        lines.append(f"| {row['target']} | {row['value']:.2f} | {row['goal']} | {'yes' if row['met'] else '**no**'}{disturbed} |")
    lines += [""]
    if "engine" in results:
        engine_report(results, lines)
    if "service" in results:
        service_report(results, lines)
    if "scaling" in results:
        scaling_report(results, lines)
    if "pinned" in results:
        pinned_report(results, lines)
    if "profiles" in results:
        profiles_report(results, lines)
    lines += ["## Commands", "", "```sh", command]
    seen = set()
    commands = []
    for figures in results.get("service", {}).values():
        commands += [figures["command"], *(e["command"] for t in ("grpc", "rest") for e in figures[t].values()),
                     *(s["command"] for s in figures["stream"].values()), *(s["single_command"] for s in figures["stream"].values() if "single_command" in s),
                     *(s["unary_sequential"]["command"] for s in figures["stream"].values()),
                     *(s["brief_command"] for s in figures["stream"].values() if "brief_command" in s),
                     *(s["brief_unary_sequential"]["command"] for s in figures["stream"].values() if "brief_unary_sequential" in s)]
    if "scaling" in results:
        commands += [*results["scaling"]["commands"].values(), *(e["command"] for t in ("grpc", "rest") for e in results["scaling"][t].values())]
    if "pinned" in results:
        commands += [c for sides in results["pinned"]["commands"].values() for c in sides.values()]
    for cmd in commands:
        generic = re.sub(r"127\.0\.0\.1:\d+", "127.0.0.1:PORT", re.sub(r"--(rest|grpc)-port \d+", r"--\1-port PORT", cmd))
        generic = re.sub(r"/\S*/(\.venv/bin/|bench/)", r"\1", generic)  # (the checkout's paths, from where it is)
        if generic not in seen:
            seen.add(generic)
            lines.append(generic)
    lines += ["```", ""]
    if results.get("notes"):
        lines += ["## Reading the figures", "", results["notes"].strip(), ""]
    path.write_text("\n".join(lines))


def cfg_pairs(os_: dict[str, Any]) -> int:
    return len(next(iter(os_["paired"]["validate"].values()))["pairs"])


def cores(cpu: dict[str, Any]) -> str:
    return " + ".join(f"{c:.2f}" for _role, c in cpu["processes"]) or "0"


def engine_report(results: dict[str, Any], lines: list[str]) -> None:
    eng, os_ = results["engine"], results.get("openspiel", {"missing": "not in this run (`--only`)"})
    lines += ["## Engine", "", "Random legal complete hands (deal, every action generated from the legal list, checked and applied, "
              "the hand settled), single process, `bench/engine_driver.py`:", "",
              "| game / seats | hands/s | actions per hand |", "|---|---:|---:|"]
    for key, entry in eng["hands"].items():
        lines.append(f"| {key}{' (headline)' if entry['primary'] else ''} | {fmt(entry['hands_per_s'])} | {entry['actions_per_hand']:.1f} |")
    lines += ["", "Validating one complete record (`engine.api.validate`: read the record, replay it, the result with its events "
              "and settlement), mean over 20 random complete records:", "", "| game | time per record | actions per record |", "|---|---:|---:|"]
    for name, entry in eng["validate"].items():
        lines.append(f"| {name} | {entry['seconds'] * 1e3:.3f} ms | {entry['actions_per_record']:.1f} |")
    lines += ["", "### OpenSpiel, same machine, same run", ""]
    if "games" in os_:
        lines += [f"open_spiel {os_['version']} (C++ engine, Python bindings), random games driven from Python exactly as ours are "
                  "(chance outcomes and actions picked with `random.choice`, `apply_action`, `returns()` at the end):", "",
                  "| game | games/s | actions per game (chance included) |", "|---|---:|---:|"]
        for name, entry in os_["games"].items():
            lines.append(f"| {name} | {fmt(entry['games_per_s'])} | {entry['actions_per_game']} |")
        lines += ["", f"Replaying a Hearts game from its history (`new_initial_state()`, `apply_action` for each of "
                  f"{os_['hearts_replay']['actions_per_history']:.0f} actions): {os_['hearts_replay']['seconds'] * 1e6:.0f} µs.", ""]
        if "paired" in os_:
            lines += ["The targets' ratios come from paired runs: each run of ours is followed at once by the same run of OpenSpiel "
                      f"(random Hearts games, or replaying its histories), in alternating order, {cfg_pairs(os_)} pairs of "
                      f"{os_['paired']['seconds']:g} s runs; the ratio is the median of the pairs' ratios (so that a change "
                      "in the machine's speed between the sections above does not go into it):", "",
                      "| game | hands/s vs Hearts games/s | pairs | validate vs Hearts replay (time) | pairs |", "|---|---:|---|---:|---|"]
            hands = os_["paired"]["hands"]
            for (key, h), (_name, v) in zip(hands.items(), os_["paired"]["validate"].items(), strict=True):
                lines.append(f"| {key} | {h['ratio']:.2f} | {', '.join(f'{x:.2f}' for x in h['pairs'])} | {v['ratio']:.2f} | "
                             f"{', '.join(f'{x:.2f}' for x in v['pairs'])} |")
            lines.append("")
    else:
        lines += [f"Not measured: {os_['missing']}", ""]


def service_report(results: dict[str, Any], lines: list[str]) -> None:
    lines += ["## Service", "", f"`naipes serve --workers W` (W gRPC processes on one port with SO_REUSEPORT, W gunicorn gthread "
              f"workers); {CONCURRENCY} requests in flight (h2load: 16 connections, one stream each; wrk: 16 connections); "
              f"{results['service_seconds']:g} s per run after {results['warm_up_seconds']:g} s of warm-up (h2load; wrk runs whole seconds); the "
              "health check is measured before and after the other calls and its median kept. Bodies: a complete record of median length per game (ValidateHand), the "
              "same hand stopped half way (LegalActions). Latencies: p50 and p99 from the load generator's "
              "per-request figures, the mean from its summary; req/s x mean gives back the requests in flight "
              f"(Little's law; {CONCURRENCY} expected). CPU in cores (CPU seconds per second of the run, warm-up included): the server "
              "processes, and the largest share any run left to other processes of the machine (not the server, the "
              "load generator or the suite).", ""]
    for workers, figures in results["service"].items():
        lines += [f"### {workers} worker(s)", "", "| call | gRPC req/s | p50 | p99 | mean | in flight | server CPU | other CPU | REST req/s | p50 | p99 | mean | in flight | server CPU | other CPU |",
                  "|---|" + "---:|" * 14]
        for key in figures["grpc"]:
            cells = []
            for entry in (figures["grpc"][key], figures["rest"][key]):
                cpu = entry.get("cpu", {})
                cells += [fmt(entry["rps"]), f"{entry['p50_ms']:.2f} ms", f"{entry['p99_ms']:.2f} ms", f"{entry.get('mean_ms', float('nan')):.2f} ms",
                          f"{entry.get('in_flight_littles_law', float('nan')):.1f}", f"{cpu.get('server', float('nan')):.2f}",
                          f"{cpu.get('other_max', float('nan')):.2f}"]
            lines.append(f"| {key} | " + " | ".join(cells) + " |")
        lines += ["", "Streaming validator (one ValidateHands stream, records/s) against one ValidateHand request per record:", "",
                  f"| game | records in the stream | gRPC stream, batches of {STREAM_BATCH} | gRPC stream, one record per message | "
                  "REST NDJSON stream, one record per line | unary, one at a time | unary, 16 in flight | "
                  f"events omitted: gRPC stream, batches of {STREAM_BATCH} | events omitted: unary, one at a time |",
                  "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for name, s in figures["stream"].items():
            lines.append(f"| {name} | {s['records']} | {fmt(s['grpc_stream_records_per_s'])} | {fmt(s.get('grpc_stream_single_records_per_s', float('nan')))} | "
                         f"{fmt(s['rest_stream_records_per_s'])} | {fmt(s['unary_sequential_per_s'])} | {fmt(s['unary_concurrent_per_s'])} | "
                         f"{fmt(s.get('brief_grpc_stream_records_per_s', float('nan')))} | {fmt(s.get('brief_unary_sequential_per_s', float('nan')))} |")
        mem = figures["memory"]
        lines += ["", f"Resident memory during the load (peak per process): largest {mem['max_process_mb']:.0f} MB; all server processes "
                  f"together at most {mem['total_mb']:.0f} MB. " + "; ".join(f"{role}: {v['processes']} process(es), up to {v['max_mb']:.0f} MB"
                                                                       for role, v in mem["by_role"].items()) + ".", ""]
        if (failed := figures.get("calls_failed")) is not None:  # (results written before it was read have none)
            lines += ["Calls the server answered with an error (its /metrics as it stopped: h2load counts a gRPC error, in an HTTP "
                      "200's trailers, as a success; the warm-up's streams refused at once excepted): "
                      + (", ".join(f"{k} x{n}" for k, n in sorted(failed.items())) or "none") + ".", ""]
        if (cut := figures.get("calls_cut")) is not None:
            lines += ["REST calls whose client closed the connection before the answer went, counted `CANCELLED` (wrk closes its "
                      f"{CONCURRENCY} connections at the end of each run, a call in flight on each): "
                      + (", ".join(f"{k} x{n}" for k, n in sorted(cut.items())) or "none") + ".", ""]


def scaling_report(results: dict[str, Any], lines: list[str]) -> None:
    sc = results["scaling"]
    lines += ["## Two workers against one (paired runs)", "",
              "`naipes serve --workers 1` and `--workers 2` side by side; each run on one followed at once by the same run on the other "
              f"(order alternating), {results['service_repeats']} pairs per call, each pair started once the machine is idle "
              f"(below {QUIET_CORES} cores busy; 30 s of waiting at most, 120 s in all); the ratio is the median of the paired ratios. "
              "CPU in cores, per run: each server process (how the kernel spread the connections over the SO_REUSEPORT listeners), "
              "and the largest share of the load generator and of other processes in any run of the call.", "",
              "| call | transport | 1 worker req/s | 2 workers req/s | ratio | paired ratios | 2 workers: CPU per server process | generator CPU | other CPU |",
              "|---|---|---:|---:|---:|---|---|---:|---:|"]
    for transport in ("grpc", "rest"):
        for key, e in sc[transport].items():
            lines.append(f"| {key} | {'gRPC' if transport == 'grpc' else 'REST'} | {fmt(e['rps_1'])} | {fmt(e['rps_2'])} | {e['ratio']:.2f} | "
                         + ", ".join(f"{r:.2f}" for r in e["ratios"]) + " | " + "; ".join(cores(c) for c in e["cpu_2"])
                         + f" | {e['generator_max']:.2f} | {e['other_max']:.2f} |")
    if sc.get("grpc_calls_per_process"):
        lines += ["", "Unary calls answered by each gRPC process of the 2-worker server over the section (its log at exit): "
                  + ", ".join(fmt(n) for n in sc["grpc_calls_per_process"]) + "."]
    lines += [""]


def pinned_report(results: dict[str, Any], lines: list[str]) -> None:
    pn = results["pinned"]
    transports = {"grpc": "gRPC", "rest": "REST"}
    lines += ["## Pinned to CPUs (`naipes serve --pin-cpus`) against the default (paired runs)", "",
              "For each number of workers an unpinned and a pinned server side by side (`--pin-cpus`: each gRPC process and REST "
              "worker on one CPU, in turn; service/affinity.py), each run on one followed at once by the same run on the other, "
              f"{results['service_repeats']} pairs per call, as in the scaling section; the ratio is pinned / unpinned, the median of the "
              "paired ratios. Not the configuration the targets above are read on (the default, unpinned): pinning is for CPUs the "
              "server has to itself (README).", ""]
    for workers, figures in pn["workers"].items():
        lines += [f"### {workers} worker(s)", "",
                  "| call | transport | unpinned req/s | pinned req/s | ratio | paired ratios | p50 unpinned | p50 pinned | "
                  "pinned: CPU per server process | other CPU |", "|---|---|---:|---:|---:|---|---:|---:|---|---:|"]
        for transport, label in transports.items():
            for key, e in figures[transport].items():
                lines.append(f"| {key} | {label} | {fmt(e['rps_1'])} | {fmt(e['rps_2'])} | {e['ratio']:.2f} | "
                             + ", ".join(f"{r:.2f}" for r in e["ratios"]) + f" | {e['p50_ms_1']:.2f} ms | {e['p50_ms_2']:.2f} ms | "
                             + "; ".join(cores(c) for c in e["cpu_2"]) + f" | {e['other_max']:.2f} |")
        lines += [""]
    lines += ["What the pin does to the ratios of the targets (from the medians above; the target rows are the unpinned server's):", "",
              "| ratio | workers | transport | unpinned | pinned |", "|---|---:|---|---|---|"]
    for workers, figures in pn["workers"].items():
        for transport, label in transports.items():
            health = figures[transport]["health"]
            cells = []
            for side in ("1", "2"):
                cells.append(" / ".join(f"{e['rps_' + side] / health['rps_' + side]:.2f}" for key, e in figures[transport].items() if key != "health"))
            lines.append(f"| ValidateHand vs health ({' / '.join(api.GAMES)}) | {workers} | {label} | {cells[0]} | {cells[1]} |")
    if {"1", "2"} <= set(pn["workers"]):
        one, two = pn["workers"]["1"], pn["workers"]["2"]
        for transport, label in transports.items():
            cells = [" / ".join(f"{two[transport][key]['rps_' + side] / one[transport][key]['rps_' + side]:.2f}" for key in one[transport])
                     for side in ("1", "2")]
            lines.append(f"| two workers vs one (health / {' / '.join(api.GAMES)}; unpaired medians) | 2 : 1 | {label} | {cells[0]} | {cells[1]} |")
    one = pn["workers"].get("1", {})
    if one.get("stream"):
        lines += ["", "With one worker, the two sides of the streaming target: ValidateHand one request at a time, and a ValidateHands "
                  f"stream in batches of {STREAM_BATCH} (records/s):", "",
                  "| game | one at a time, unpinned | pinned | stream, unpinned | pinned | stream vs one at a time, unpinned | pinned |",
                  "|---|---:|---:|---:|---:|---:|---:|"]
        for name, lone in one["lone"].items():
            st = one["stream"][name]
            rec_1, rec_2 = st["rps_1"] * st["records"], st["rps_2"] * st["records"]
            lines.append(f"| {name} | {fmt(lone['rps_1'])} | {fmt(lone['rps_2'])} | {fmt(rec_1)} | {fmt(rec_2)} | "
                         f"{rec_1 / lone['rps_1']:.2f} | {rec_2 / lone['rps_2']:.2f} |")
    lines += [""]


def per_call(g: dict[str, Any]) -> str:
    """A bound table's last two cells: the server's CPU and context switches a call, health check
    and ValidateHand (blank in a report of a run that did not count them)."""
    if "validate_switches" not in g:
        return " | "
    return (f"{g['health_cpu_us']:.0f} / {g['validate_cpu_us']:.0f} µs | "
            f"{g['health_switches']:.1f} / {g['validate_switches']:.1f}")


def profiles_report(results: dict[str, Any], lines: list[str]) -> None:
    prof = results["profiles"]
    lines += ["## Where the time goes", "", "Cost of each step of one ValidateHand request (in process, one core):", "",
              "| game (actions) | " + " | ".join(next(iter(prof["request_steps"].values()))["microseconds"]) + " |",
              "|---|" + "---:|" * len(next(iter(prof["request_steps"].values()))["microseconds"])]
    for name, entry in prof["request_steps"].items():
        lines.append(f"| {name} ({entry['actions']}) | " + " | ".join(f"{v:.0f} µs" for v in entry["microseconds"].values()) + " |")
    if "bound" in prof:
        bound_ = prof["bound"]
        lines += ["", "What bounds ValidateHand against the health check (target 0.85): one gRPC server process "
                  f"(`{bound_['command']}`: the service's server, its ValidateHand handler timed in CPU time of its thread, "
                  "and the same call answered with a stored response: the same bytes in and out, without the work), loaded "
                  f"in turn at {CONCURRENCY} requests in flight, medians of {len(next(iter(bound_['games'].values()))['runs']['health'])} "
                  "rounds; then the same handler (the request's wire bytes read, the engine, the response's written) in this process, called in a loop "
                  f"and with {bound_['evict_bytes'] >> 20} MiB written before each call (evicting it from the CPU's L1 and L2 "
                  "caches). The budget is what a call may add to the health check's time for ValidateHand to stay at 0.85 of it. "
                  "The server's CPU and context switches a call are its process's (every thread: gRPC's own included) over "
                  "the run, warm-up included, divided by the calls of its req/s over that time.", "",
                  "| game | health req/s | stored answer req/s (vs health) | ValidateHand req/s (vs health) | budget | "
                  "handler under load | handler in a loop | handler, caches evicted | server CPU a call: health / ValidateHand | "
                  "context switches a call: health / ValidateHand |",
                  "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for name, g in bound_["games"].items():
            lines.append(f"| {name} | {fmt(g['health_rps'])} | {fmt(g['stored_rps'])} ({g['stored_vs_health']:.2f}) | "
                         f"{fmt(g['validate_rps'])} ({g['validate_vs_health']:.2f}) | {g['budget_us']:.0f} µs | "
                         f"{g['handler_us_under_load']:.0f} µs | {g['handler_us_warm']:.0f} µs | {g['handler_us_evicted']:.0f} µs | "
                         f"{per_call(g)} |")
        if "rest" in bound_:
            rest = bound_["rest"]
            lines += ["", f"The same for REST: one gunicorn worker as `naipes serve --workers 1` runs it (`{rest['command']}`: "
                      "the service's Flask app, its ValidateHand view timed in CPU time of its thread, and a record answered with "
                      "the stored body of the real view's answer, the body read and parsed as the view does), loaded in turn by wrk "
                      f"at {CONCURRENCY} connections. The view's work in a loop is the sum of its steps above (JSON text to message, "
                      "message to dict, engine, answer to JSON text).", "",
                      "| game | health req/s | stored answer req/s (vs health) | ValidateHand req/s (vs health) | budget | "
                      "view under load | its steps in a loop | server CPU a call: health / ValidateHand | "
                      "context switches a call: health / ValidateHand |",
                      "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
            for name, g in rest["games"].items():
                steps = prof["request_steps"].get(name, {}).get("microseconds", {})
                in_loop = sum(v for k, v in steps.items() if k.startswith("REST") or k.startswith("engine"))
                lines.append(f"| {name} | {fmt(g['health_rps'])} | {fmt(g['stored_rps'])} ({g['stored_vs_health']:.2f}) | "
                             f"{fmt(g['validate_rps'])} ({g['validate_vs_health']:.2f}) | {g['budget_us']:.0f} µs | "
                             f"{g['view_us_under_load']:.0f} µs | {in_loop:.0f} µs | {per_call(g)} |")
    lines += ["", "Engine hot spots (cProfile of the random-hand driver, share of own time):", ""]
    for name, rows in prof["engine"].items():
        lines.append(f"- **{name}**: " + "; ".join(f"`{r['function']}` {r['own_share'] * 100:.0f}%" for r in rows[:8]))
    lines += [""]


def check_complete(results: dict[str, Any]) -> list[str]:
    """What the smoke run asserts: every measurement ran and gave a positive, finite number, and no
    load run had an error."""
    problems = []

    def walk(value: Any, where: str) -> None:
        if isinstance(value, dict):
            for k, v in value.items():
                if not k.startswith("cpu") and not k.endswith("_max"):  # CPU shares may well be 0
                    walk(v, f"{where}.{k}")
        elif isinstance(value, list):
            for i, v in enumerate(value):
                walk(v, f"{where}[{i}]")
        elif isinstance(value, float) and not value > 0 and not where.endswith("load_average_before"):
            problems.append(f"{where} = {value}")

    walk({k: results[k] for k in SECTIONS if k in results}, "results")
    if "missing" in results.get("openspiel", {}):
        problems.append(results["openspiel"]["missing"])
    for transport in ("grpc", "rest"):
        for key, entry in results.get("scaling", {}).get(transport, {}).items():
            if entry["errors"] or entry["requests"] <= 0:
                problems.append(f"scaling {transport} {key}: {entry['errors']} errors, {entry['requests']} requests")
    for workers, figures in results.get("pinned", {}).get("workers", {}).items():
        for kind in ("grpc", "rest", "lone", "stream"):
            for key, entry in figures[kind].items():
                if entry["errors"] or entry["requests"] <= 0:
                    problems.append(f"pinned, {workers} worker(s), {kind} {key}: {entry['errors']} errors, {entry['requests']} requests")
    for workers, figures in results.get("service", {}).items():
        for transport in ("grpc", "rest"):
            for key, entry in figures[transport].items():
                if entry["errors"] or entry["requests"] <= 0:
                    problems.append(f"{workers} worker(s) {transport} {key}: {entry['errors']} errors, {entry['requests']} requests")
        for name, entry in figures["stream"].items():
            if entry["errors"]:
                problems.append(f"{workers} worker(s) stream {name}: {entry['errors']} errors")
    failed = [(f"{workers} worker(s)", figures.get("calls_failed")) for workers, figures in results.get("service", {}).items()]
    failed += [(f"scaling, {workers} worker(s)", calls) for workers, calls in results.get("scaling", {}).get("calls_failed", {}).items()]
    failed += [(f"pinned, {workers} worker(s), {side}", calls) for workers, figures in results.get("pinned", {}).get("workers", {}).items()
               for side, calls in figures.get("calls_failed", {}).items()]
    for server, calls in failed:
        if calls:  # (None in results written before servers' errors were read)
            problems.append(f"{server}: its server answered calls with an error: {', '.join(f'{k} x{n}' for k, n in sorted(calls.items()))}")
    expected_keys = ({f"{rpc}/{g}" for rpc in ("ValidateHand", "LegalActions") for g in api.GAMES} | {"health"}
                     | {f"ValidateHand/{g}, events omitted" for g in api.GAMES})
    for workers, figures in results.get("service", {}).items():
        for transport in ("grpc", "rest"):
            if set(figures[transport]) != expected_keys:
                problems.append(f"{workers} worker(s) {transport}: measured {sorted(figures[transport])}")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--smoke", action="store_true", help="a few seconds; check that every measurement runs")
    parser.add_argument("--out", type=Path, help="where REPORT.md and results.json go (default: bench/, smoke: bench/out/smoke/)")
    parser.add_argument("--render", action="store_true", help="only rewrite REPORT.md from results.json (and the notes)")
    parser.add_argument("--notes", type=Path, default=ROOT / "bench" / "NOTES.md", help="the analysis appended to the report")
    parser.add_argument("--only", help=f"comma-separated sections to run, of {','.join(SECTIONS)} (default: all); "
                        "a partial run writes to bench/out/partial/ unless --out is given")
    args = parser.parse_args(argv)
    cfg = SMOKE if args.smoke else FULL
    sections = SECTIONS if not args.only else tuple(x.strip() for x in args.only.split(",") if x.strip())
    if unknown := set(sections) - set(SECTIONS):
        parser.error(f"--only: unknown section(s) {', '.join(sorted(unknown))}; choose from {', '.join(SECTIONS)}")
    partial = set(sections) != set(SECTIONS)
    out = args.out or (ROOT / "bench" / "out" / "smoke" if args.smoke else ROOT / "bench" / "out" / "partial" if partial else ROOT / "bench")
    out.mkdir(parents=True, exist_ok=True)
    work = ROOT / "bench" / "out" / ("smoke" if args.smoke else "full")
    work.mkdir(parents=True, exist_ok=True)
    command = "make bench-smoke" if args.smoke else "make bench"
    if partial:
        command = f"python -m bench.run{' --smoke' if args.smoke else ''} --only {','.join(sections)}"
    if args.render:
        results = json.loads((out / "results.json").read_text())
        if args.notes.exists() and not results["smoke"]:
            results["notes"] = args.notes.read_text()
            (out / "results.json").write_text(json.dumps(results, indent=1, default=str) + "\n")
        write_report(results, out / "REPORT.md", command)
        return 0
    started = time.monotonic()
    results: dict[str, Any] = {"smoke": cfg.smoke, "repeats": cfg.repeats, "service_repeats": cfg.service_repeats,
                               "service_seconds": cfg.service_seconds, "warm_up_seconds": cfg.warm_up,
                               "concurrency": CONCURRENCY, "targets": TARGETS, "machine": machine()}
    runners: dict[str, Callable[[], Any]] = {"engine": lambda: engine(cfg), "openspiel": lambda: openspiel(cfg),
                                             "service": lambda: service(cfg, work), "scaling": lambda: scaling(cfg, work), "pinned": lambda: pinned(cfg, work),
                                             "profiles": lambda: profiles(cfg, work)}
    for section in SECTIONS:
        if section in sections:
            results[section] = runners[section]()
    results["ratios"] = ratios(results)
    results["seconds"] = time.monotonic() - started
    if args.notes.exists() and not cfg.smoke and not partial:
        results["notes"] = args.notes.read_text()
    (out / "results.json").write_text(json.dumps(results, indent=1, default=str) + "\n")
    write_report(results, out / "REPORT.md", command)
    log(f"wrote {out / 'REPORT.md'} and {out / 'results.json'} in {results['seconds']:.0f} s")
    problems = check_complete(results)
    for problem in problems:
        log(f"MISSING: {problem}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
