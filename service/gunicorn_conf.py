"""gunicorn's settings for ``naipes serve`` that its command line cannot give (``--config
python:service.gunicorn_conf``): server hooks.

``post_worker_init``, in a worker that has loaded the app: it tells ``naipes serve`` that it serves
(service/ready.py).

``on_starting``, in gunicorn's master as it starts: the REST side's own lines (the ``naipes.rest``
logger) are written to stderr from INFO up, as each gRPC process writes its own; gunicorn's own
stay at ``--log-level`` (warning under ``naipes serve``).

``pre_fork``, in gunicorn's master, and ``post_fork``, in the worker it has just forked: under
``naipes serve --pin-cpus`` each worker runs on one CPU of the server's, the one with the fewest
of the live workers (service/affinity.py), and says which.

``child_exit``, in gunicorn's master: a worker that has exited (stopped, killed, or replaced by
gunicorn) no longer counts as serving, and is marked dead for prometheus_client's multiprocess mode, which drops its live gauges
(``naipes_streams_in_progress``, ``service.metrics``) from the sums; its counters stay in them,
as counters must."""

from __future__ import annotations

import logging
import os
from typing import Any

from service import affinity, ready

log = logging.getLogger("naipes.rest")


def on_starting(server: Any) -> None:
    if not log.handlers:
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("%(asctime)s %(name)s %(levelname)s %(message)s"))  # (the gRPC processes' format)
        log.addHandler(handler)
        log.setLevel(logging.INFO)
        log.propagate = False


def pre_fork(server: Any, worker: Any) -> None:
    cpus = affinity.server_cpus()
    if cpus is not None:
        worker.naipes_cpu = affinity.least_used(cpus, (getattr(w, "naipes_cpu", None) for w in server.WORKERS.values()))


def post_fork(server: Any, worker: Any) -> None:
    cpu = getattr(worker, "naipes_cpu", None)
    if cpu is not None:
        affinity.pin([cpu])
        log.info("REST worker %d pinned to CPU %d", worker.pid, cpu)  # (gunicorn's own log is at warning under naipes serve)


def post_worker_init(worker: Any) -> None:
    ready.announce("rest")


def child_exit(server: Any, worker: Any) -> None:
    if directory := os.environ.get(ready.ENV):
        ready.withdraw(directory, "rest", worker.pid)
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)  # type: ignore[no-untyped-call]
