"""``naipes serve --pin-cpus``: each serving process on one CPU of the server's.

A serving process is a handful of threads that hand every call to one another: gRPC's poller and
completion queue, the thread that runs the handler, gRPC's own threads (gunicorn's gthread worker
likewise: its event loop and its request threads). Left to the scheduler they run on whichever
CPU is free, and every hand-off to a thread on another CPU is a wake-up across CPUs, on a virtual
machine an interrupt through the hypervisor; on one CPU the same hand-offs stay within it, and the
handler runs on caches its process keeps warm. Measured on the 2-core bench machine (bench/REPORT.md,
"Pinned to CPUs": one gRPC process, h2load at 16 calls in flight, paired runs): the health check
7,954 calls a second pinned against 3,928, ValidateHand 1.7-1.8 times as many, a lone call 1.5 times
as many one after another.

Off by default: pinning is for a machine (or a container's CPU set) the server has to itself. In a
container that may use every CPU of a shared node, every server pinning its first process to the
node's first CPU would crowd that CPU while others idle; with Kubernetes, pin only under the static
CPU manager, which gives a Guaranteed pod CPUs of its own (deploy/k8s/naipes.yaml).

How: ``naipes serve`` reads the CPUs it may use (its affinity: ``taskset``, a cpuset), orders them
one hardware thread of each core first (``spread``), and gives them to its processes in turn, each
by an environment variable: the i-th gRPC process pins itself to the i-th CPU (``CPU_ENV``) as it
starts, before gRPC starts its threads; gunicorn's master gives each worker it forks the CPU with
the fewest of its workers (``gunicorn_conf.pre_fork``), the first such after those the gRPC
processes took last (``turned``), a worker that replaces one that exited included, and the worker
pins itself at once (``post_fork``). The streaming validator's pool processes are started by the
serving processes and would inherit their CPU: they take back all of the server's CPUs
(``SERVER_CPUS_ENV``, ``stream._start_worker``), and their number is counted by ``naipes serve``
before any process is pinned (NAIPES_STREAM_WORKERS, unless set: ``stream.pool_size``)."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

CPU_ENV = "NAIPES_CPU"  # the one CPU a gRPC process of naipes serve runs on
SERVER_CPUS_ENV = "NAIPES_SERVER_CPUS"  # every CPU of the server, "0,1": set when its processes are pinned
SETTING = "NAIPES_PIN_CPUS"  # naipes serve --pin-cpus, from the environment (1 or 0)
TOPOLOGY = Path("/sys/devices/system/cpu")  # Linux's description of each CPU (which share a core)


def supported() -> bool:
    """Whether this platform sets a thread's CPUs (Linux does; macOS and Windows do not)."""
    return hasattr(os, "sched_setaffinity")


def available() -> list[int]:
    """The CPUs this process may run on, in the order its processes take them: one hardware
    thread of each core first (``spread``)."""
    return spread(os.sched_getaffinity(0))


def spread(cpus: Iterable[int], topology: Path = TOPOLOGY) -> list[int]:
    """``cpus`` ordered so that processes taking them in turn fill every core before any core's
    second hardware thread (SMT, hyperthreads): a core's threads share its execution units and
    caches, so two serving processes on one core do less than on two. The first of each core's
    threads among ``cpus``, by number, then the second ones, and so on: siblings numbered 0 and 4
    (four cores) keep the order 0-7, siblings numbered 0 and 1 give 0, 2, 4, 6, 1, 3, 5, 7. Where
    the kernel does not say which CPUs share a core (``topology``, Linux's sysfs), each CPU is
    its own core."""
    mine = sorted(set(cpus))
    rank: dict[int, int] = {}
    for cpu in mine:
        try:
            siblings = kernel_list((topology / f"cpu{cpu}" / "topology" / "thread_siblings_list").read_text())
        except (OSError, ValueError):
            siblings = frozenset([cpu])
        rank[cpu] = sum(1 for other in siblings if other < cpu and other in rank)
    return sorted(mine, key=lambda cpu: (rank[cpu], cpu))


def kernel_list(text: str) -> frozenset[int]:
    """A CPU list as the kernel writes it, ``0-2,5``."""
    cpus: set[int] = set()
    for part in text.strip().split(","):
        low, _, high = part.partition("-")
        cpus.update(range(int(low), int(high or low) + 1))
    return frozenset(cpus)


def written(cpus: Iterable[int]) -> str:
    return ",".join(str(cpu) for cpu in cpus)


def read(text: str) -> list[int]:
    return [int(part) for part in text.split(",") if part]


def server_cpus() -> list[int] | None:
    """The server's CPUs when its serving processes are pinned (``SERVER_CPUS_ENV``), else None."""
    text = os.environ.get(SERVER_CPUS_ENV)
    return read(text) if text else None


def pin(cpus: Iterable[int]) -> None:
    """Run every thread of this process, and every thread or process it starts from now on, on
    ``cpus`` only."""
    wanted = set(cpus)
    try:
        threads = [int(tid) for tid in os.listdir("/proc/self/task")]
    except OSError:  # (no /proc: this thread, which starts the others)
        threads = [0]
    for tid in threads:
        try:
            os.sched_setaffinity(tid, wanted)
        except ProcessLookupError:  # a thread that has just ended
            pass


def pin_from_env() -> int | None:
    """In a gRPC process of ``naipes serve --pin-cpus``: run on the CPU it was given
    (``CPU_ENV``); the CPU, or None when it was given none."""
    text = os.environ.get(CPU_ENV)
    if not text:
        return None
    cpu = int(text)
    pin([cpu])
    return cpu


def unpin_from_env() -> None:
    """In a pool process a pinned serving process started: run on every CPU of the server again."""
    cpus = server_cpus()
    if cpus is not None:
        pin(cpus)


def turned(cpus: list[int], taken: int) -> list[int]:
    """``cpus`` in the order the next processes take them once ``taken`` processes have taken
    them in turn: gunicorn's workers start where the gRPC processes ended, so that with fewer
    processes of each than CPUs the two transports run on different CPUs (one worker on two
    CPUs: gRPC on the first, REST on the second)."""
    k = taken % len(cpus)
    return cpus[k:] + cpus[:k]


def least_used(cpus: list[int], taken: Iterable[int | None]) -> int:
    """The first of ``cpus`` that the fewest of ``taken`` (the CPUs of live workers) are."""
    counts = dict.fromkeys(cpus, 0)
    for cpu in taken:
        if cpu in counts:
            counts[cpu] += 1
    return min(cpus, key=lambda cpu: counts[cpu])
