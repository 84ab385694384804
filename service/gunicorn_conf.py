"""gunicorn's settings for ``naipes serve`` that its command line cannot give (``--config
python:service.gunicorn_conf``): a server hook.

``child_exit``, in gunicorn's master: a worker that has exited (stopped, killed, or replaced by
gunicorn) is marked dead for prometheus_client's multiprocess mode, which drops its live gauges
(``naipes_streams_in_progress``, ``service.metrics``) from the sums; its counters stay in them,
as counters must."""

from __future__ import annotations

import os
from typing import Any


def child_exit(server: Any, worker: Any) -> None:
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)  # type: ignore[no-untyped-call]
