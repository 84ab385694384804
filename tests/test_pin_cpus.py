"""``naipes serve --pin-cpus`` (service/affinity.py): each gRPC process and each gunicorn worker runs,
every thread of it, on one CPU of those the server may use, in turn; the streaming validator's pool
processes they start run on all of them, as many as without the pin; a worker gunicorn starts in
place of one that died takes the CPU left free; without the flag nothing is pinned, whatever the
environment says of CPUs."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import grpc
import pytest
import requests
from google.protobuf import json_format
from service_support import ROOT, load_example, rentoy_examples, stop
from test_service_cli import NAIPES, _free_port
from test_service_workers import children, command, serve

from engine import api
from naipes.v1 import naipes_pb2 as pb
from naipes.v1 import naipes_pb2_grpc
from service import affinity
from service.codec import to_json

# (the platform's own say, not affinity.supported(): that one broken would skip every test here)
pytestmark = pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="no os.sched_setaffinity on this platform")

CPUS = affinity.available() if hasattr(os, "sched_setaffinity") else []  # (in the order the server takes them: test_spread_*)


def threads_cpus(pid: int) -> set[frozenset[int]]:
    """The CPUs each thread of process ``pid`` may run on (one set when all agree)."""
    found = set()
    for task in (Path("/proc") / str(pid) / "task").iterdir():
        try:
            status = (task / "status").read_text()
        except OSError:  # (a thread that has just ended)
            continue
        found.add(affinity.kernel_list(next(line.split(":", 1)[1].strip() for line in status.splitlines() if line.startswith("Cpus_allowed_list:"))))
    return found


def processes(server: subprocess.Popen[str]) -> tuple[list[int], int, list[int]]:
    """(the gRPC processes, gunicorn's master, its workers) of ``naipes serve``."""
    grpc_processes = sorted(p for p in children(server.pid) if "service.grpc_server" in command(p))
    gunicorn = next(p for p in children(server.pid) if "gunicorn" in command(p))
    return grpc_processes, gunicorn, sorted(p for p in children(gunicorn) if "gunicorn" in command(p))


def pool_processes(pid: int) -> list[int]:
    """The streaming validator's pool processes of serving process ``pid`` (not multiprocessing's
    resource tracker, a helper process that runs no validation)."""
    return [p for p in children(pid) if "spawn_main" in command(p)]


def one_cpu(pid: int) -> int:
    """The one CPU every thread of process ``pid`` runs on (AssertionError otherwise)."""
    found = threads_cpus(pid)
    assert len(found) == 1 and len(next(iter(found))) == 1, (pid, command(pid), found)
    return next(iter(next(iter(found))))


def validate_both(rest_port: int, grpc_port: int, stream_records: int) -> None:
    """A unary call and a stream over each transport, each answer the engine's."""
    record, _ = load_example(rentoy_examples()[0])
    message = json_format.ParseDict(record, pb.HandRecord())
    with grpc.insecure_channel(f"127.0.0.1:{grpc_port}") as channel:
        stub = naipes_pb2_grpc.NaipesServiceStub(channel)
        assert to_json(stub.ValidateHand(pb.ValidateHandRequest(record=message), timeout=30).result) == api.validate(record)
        batch = pb.ValidateHandsRequest(id="b", batch=[pb.ValidateHandsRequest(id=str(i), record=message) for i in range(stream_records)])
        (answer,) = stub.ValidateHands(iter([batch]), timeout=120)
        assert [to_json(a.result) for a in answer.batch] == [api.validate(record)] * stream_records
    with requests.Session() as http:
        assert http.post(f"http://127.0.0.1:{rest_port}/v1/hands:validate", json=record, timeout=30).json() == api.validate(record)
        lines = "".join(json.dumps(record) + "\n" for _ in range(stream_records))
        answer = http.post(f"http://127.0.0.1:{rest_port}/v1/hands:validateStream", data=lines, timeout=120,
                           headers={"Content-Type": "application/x-ndjson"})
        assert [json.loads(line) for line in answer.text.splitlines()] == [{"result": api.validate(record)}] * stream_records


def test_pin_cpus_runs_each_serving_process_on_one_cpu_in_turn_and_the_pools_on_all() -> None:
    workers = len(CPUS) + 1  # one CPU takes two of each
    lines: list[str] = []
    server, rest_port, grpc_port = serve(workers, extra=("--pin-cpus",), output=lines)
    try:
        grpc_processes, gunicorn, rest_workers = processes(server)
        assert len(grpc_processes) == len(rest_workers) == workers
        # Every thread of each serving process on one CPU: the gRPC processes on the CPUs in turn,
        # the workers on the least used, the first such after the gRPC processes' last.
        expected = Counter(CPUS[i % len(CPUS)] for i in range(workers))
        assert Counter(one_cpu(p) for p in grpc_processes) == expected
        assert Counter(one_cpu(p) for p in rest_workers) == Counter(CPUS[(workers + i) % len(CPUS)] for i in range(workers))
        for pid in (server.pid, gunicorn):  # naipes serve and gunicorn's master are not pinned
            assert threads_cpus(pid) == {frozenset(CPUS)}
        assert f"naipes serve: each gRPC process and REST worker pinned to one of CPUs {affinity.written(CPUS)}" in "".join(lines)
        said = Counter(int(cpu) for cpu in re.findall(r"gRPC server pinned to CPU (\d+)$", "".join(lines), re.M))
        assert said == expected, lines  # (each gRPC process says which CPU it took)
        said = {int(pid): int(cpu) for pid, cpu in re.findall(r" naipes.rest INFO REST worker (\d+) pinned to CPU (\d+)$", "".join(lines), re.M)}
        assert said == {pid: one_cpu(pid) for pid in rest_workers}, lines  # (and each REST worker)
        validate_both(rest_port, grpc_port, 60)
        # The pools the streams started: one process per CPU of the server's, each on all of them.
        pools = [pool_processes(p) for p in grpc_processes + rest_workers]
        started = [pool for pool in pools if pool]
        assert len(started) >= 2, pools  # (one gRPC process's and one worker's at least)
        for pool in started:
            assert len(pool) == len(CPUS), pools
            for pid in pool:
                assert threads_cpus(pid) == {frozenset(CPUS)}, (pid, command(pid))
        # The serving processes, which started threads since (the pool's), are still on their CPU.
        assert Counter(one_cpu(p) for p in grpc_processes) == expected
    finally:
        output = stop(server)
    assert server.returncode == 0, output


def test_a_worker_that_replaces_one_takes_the_cpu_left_free() -> None:
    if len(CPUS) < 2:
        pytest.skip("one CPU: every worker is on it")
    server, rest_port, _ = serve(2, extra=("--pin-cpus",))
    try:
        _, gunicorn, rest_workers = processes(server)
        cpu_of = {p: one_cpu(p) for p in rest_workers}
        assert sorted(cpu_of.values()) == CPUS[:2]
        dead = min(rest_workers)
        os.kill(dead, signal.SIGKILL)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            now = [p for p in children(gunicorn) if "gunicorn" in command(p) and p not in cpu_of]
            if now and requests.get(f"http://127.0.0.1:{rest_port}/healthz", timeout=10).ok:
                break
            time.sleep(0.1)
        else:
            raise AssertionError("gunicorn started no worker in place of the killed one")
        assert one_cpu(now[0]) == cpu_of[dead]
    finally:
        output = stop(server)
    assert server.returncode == 0, output


def test_pin_cpus_uses_the_cpus_the_server_is_given() -> None:
    """Started on one CPU (``taskset -c N naipes serve``, a container's CPU set): every serving
    process on it, and the pools of one process, as unpinned they would be."""
    cpu = CPUS[-1]
    server, rest_port, grpc_port = serve(2, extra=("--pin-cpus",), cpus=[cpu])
    try:
        grpc_processes, _, rest_workers = processes(server)
        assert [one_cpu(p) for p in grpc_processes + rest_workers] == [cpu] * 4
        validate_both(rest_port, grpc_port, 10)
        pools = [pool for pool in (pool_processes(p) for p in grpc_processes + rest_workers) if pool]
        assert pools and all(len(pool) == 1 for pool in pools), pools
    finally:
        output = stop(server)
    assert server.returncode == 0, output


def test_without_pin_cpus_nothing_is_pinned_whatever_the_environment_says() -> None:
    """NAIPES_CPU and NAIPES_SERVER_CPUS are naipes serve's word to its processes: in its own
    environment they are dropped, not obeyed."""
    env = {**os.environ, affinity.CPU_ENV: str(CPUS[0]), affinity.SERVER_CPUS_ENV: str(CPUS[0])}
    env.pop(affinity.SETTING, None)
    server, rest_port, grpc_port = serve(1, env=env)
    try:
        grpc_processes, _, rest_workers = processes(server)
        for pid in grpc_processes + rest_workers:
            assert threads_cpus(pid) == {frozenset(CPUS)}, (pid, command(pid))
        validate_both(rest_port, grpc_port, 5)
    finally:
        output = stop(server)
    assert server.returncode == 0, output


def test_pin_cpus_from_the_environment() -> None:
    server, _, _ = serve(1, env={**os.environ, affinity.SETTING: "1"})
    try:
        grpc_processes, _, rest_workers = processes(server)
        # (one of each: on two CPUs or more, gRPC's and REST's are not the same)
        assert [one_cpu(p) for p in grpc_processes + rest_workers] == [CPUS[0], CPUS[1 % len(CPUS)]]
    finally:
        output = stop(server)
    assert server.returncode == 0, output
    bad = subprocess.run([NAIPES, "serve", "--workers", "1"], env={**os.environ, affinity.SETTING: "yes"},
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and f"{affinity.SETTING}: " in bad.stderr, bad.stderr


def test_turned_starts_after_the_cpus_taken() -> None:
    assert affinity.turned([0, 1], 1) == [1, 0]
    assert affinity.turned([0, 1], 2) == [0, 1]
    assert affinity.turned([0, 1, 2, 3], 2) == [2, 3, 0, 1]
    assert affinity.turned([4], 3) == [4]


def test_least_used_gives_the_first_cpu_with_the_fewest_workers() -> None:
    assert affinity.least_used([0, 1], []) == 0
    assert affinity.least_used([0, 1], [0]) == 1
    assert affinity.least_used([0, 1], [0, 1]) == 0
    assert affinity.least_used([0, 1], [1, 1, 0]) == 0
    assert affinity.least_used([2, 5], [None, 7, 2]) == 5  # (a worker without a CPU, a CPU not the server's: not counted)


def test_pin_cpus_where_cpus_cannot_be_set_is_a_usage_error(tmp_path: Path) -> None:
    """A platform without ``os.sched_setaffinity`` (macOS, Windows), made here by taking it away
    at start-up: ``--pin-cpus`` and ``NAIPES_PIN_CPUS=1`` are refused with exit 2, nothing started."""
    (tmp_path / "sitecustomize.py").write_text("import os\ndel os.sched_setaffinity\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")])}
    for args, extra in ((["--pin-cpus"], {}), ([], {affinity.SETTING: "1"})):
        done = subprocess.run([NAIPES, "serve", "--workers", "1", "--rest-port", str(_free_port()), "--grpc-port", str(_free_port()), *args],
                              env={**env, **extra}, capture_output=True, text=True, timeout=60)
        assert done.returncode == 2, done.stderr
        assert "--pin-cpus (NAIPES_PIN_CPUS): this platform cannot set a process's CPUs" in done.stderr, done.stderr


def topology(tmp_path: Path, siblings: dict[int, str]) -> Path:
    """A sysfs CPU tree in which CPU n's hardware threads are ``siblings[n]`` (a kernel list)."""
    for cpu, listed in siblings.items():
        (tmp_path / f"cpu{cpu}" / "topology").mkdir(parents=True)
        (tmp_path / f"cpu{cpu}" / "topology" / "thread_siblings_list").write_text(listed + "\n")
    return tmp_path


def test_spread_fills_every_core_before_a_second_hardware_thread(tmp_path: Path) -> None:
    # Siblings numbered apart (Intel's usual numbering): the order is the numbers'.
    apart = topology(tmp_path / "apart", {n: f"{n % 4},{n % 4 + 4}" for n in range(8)})
    assert affinity.spread(range(8), apart) == [0, 1, 2, 3, 4, 5, 6, 7]
    # Siblings numbered together (many AMD and ARM machines, some virtual ones): one of each core first.
    together = topology(tmp_path / "together", {n: f"{n - n % 2}-{n - n % 2 + 1}" for n in range(8)})
    assert affinity.spread(range(8), together) == [0, 2, 4, 6, 1, 3, 5, 7]
    # Only the server's CPUs count: a core of which the server has one thread is a core of its own.
    assert affinity.spread([1, 2, 3, 5], together) == [1, 2, 5, 3]
    # Four threads a core.
    four = topology(tmp_path / "four", {n: f"{n - n % 4}-{n - n % 4 + 3}" for n in range(8)})
    assert affinity.spread([7, 6, 5, 4, 3, 2, 1, 0], four) == [0, 4, 1, 5, 2, 6, 3, 7]


def test_spread_without_the_kernel_s_topology_takes_each_cpu_as_a_core(tmp_path: Path) -> None:
    assert affinity.spread([3, 0, 2], tmp_path / "none") == [0, 2, 3]
    broken = topology(tmp_path / "broken", {0: "0-1", 1: "garbage"})
    assert affinity.spread([0, 1], broken) == [0, 1]  # (CPU 1's line unreadable: its own core; CPU 0 the first of its)


def test_kernel_list_reads_ranges_and_single_cpus() -> None:
    assert affinity.kernel_list("0-2,5\n") == {0, 1, 2, 5}
    assert affinity.kernel_list("7") == {7}


def test_a_grpc_process_given_its_cpu_runs_on_it_and_says_so_and_a_bad_one_is_a_usage_error() -> None:
    """``python -m service.grpc_server`` as ``naipes serve --pin-cpus`` starts it, with its CPU in
    NAIPES_CPU: every thread of it runs on that CPU, and its log says which (``gRPC server pinned
    to CPU n``), the one line that tells an operator; a NAIPES_CPU that is no CPU number is a usage
    error naming it (exit 2), not a traceback."""
    from grpc_health.v1 import health_pb2
    from test_service_cli import _grpc_health, _grpc_server_alone

    cpu = CPUS[-1]
    server, target, output = _grpc_server_alone("--port", "0", env={**os.environ, affinity.CPU_ENV: str(cpu)})
    try:
        assert _grpc_health(target) == health_pb2.HealthCheckResponse.SERVING
        assert threads_cpus(server.pid) == {frozenset([cpu])}
    finally:
        output += stop(server)
    assert server.returncode == 0, output
    assert f" naipes.grpc INFO gRPC server pinned to CPU {cpu}\n" in output, output
    for bad in ("x", "-1"):
        done = subprocess.run([sys.executable, "-m", "service.grpc_server", "--port", "0"], cwd=ROOT,
                              env={**os.environ, affinity.CPU_ENV: bad}, capture_output=True, text=True, timeout=60)
        assert done.returncode == 2 and f"error: {affinity.CPU_ENV}: " in done.stderr and "Traceback" not in done.stderr, done.stderr


def test_a_platform_that_sets_a_thread_s_cpus_supports_pinning() -> None:
    """Where ``os.sched_setaffinity`` exists (Linux), ``--pin-cpus`` is supported (it is refused
    where it does not: above)."""
    assert affinity.supported() is True


def test_pin_sets_every_thread_and_without_proc_this_one(monkeypatch: pytest.MonkeyPatch) -> None:
    """``pin`` sets the CPUs of each thread /proc lists for the process, past one that has just
    ended; without /proc, of the calling thread (0: "this thread", never another process's)."""
    calls: list[tuple[int, set[int]]] = []

    def set_cpus(tid: int, cpus: set[int]) -> None:
        if tid == 12:
            raise ProcessLookupError(tid)  # (a thread that has just ended)
        calls.append((tid, set(cpus)))

    monkeypatch.setattr(os, "sched_setaffinity", set_cpus)
    monkeypatch.setattr(os, "listdir", lambda path: ["11", "12", "13"] if path == "/proc/self/task" else [])
    affinity.pin([3, 1])
    assert calls == [(11, {1, 3}), (13, {1, 3})]

    def no_proc(path: str) -> list[str]:
        raise FileNotFoundError(path)

    calls.clear()
    monkeypatch.setattr(os, "listdir", no_proc)
    affinity.pin([2])
    assert calls == [(0, {2})]
