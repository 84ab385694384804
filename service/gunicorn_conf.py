"""gunicorn's settings for ``naipes serve`` that its command line cannot give (``--config
python:service.gunicorn_conf``): server hooks.

``post_worker_init``, in a worker that has loaded the app: it tells ``naipes serve`` that it serves
(service/ready.py).

``child_exit``, in gunicorn's master: a worker that has exited (stopped, killed, or replaced by
gunicorn) no longer counts as serving, and is marked dead for prometheus_client's multiprocess mode, which drops its live gauges
(``naipes_streams_in_progress``, ``service.metrics``) from the sums; its counters stay in them,
as counters must."""

from __future__ import annotations

import os
from typing import Any

from service import ready


def post_worker_init(worker: Any) -> None:
    ready.announce("rest")


def child_exit(server: Any, worker: Any) -> None:
    if directory := os.environ.get(ready.ENV):
        ready.withdraw(directory, "rest", worker.pid)
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)  # type: ignore[no-untyped-call]
