"""How ``naipes serve`` knows that every process it started answers calls, not only that its ports
listen: a REST port listens as soon as gunicorn's master binds it, while each worker is still
loading the app, and the first gRPC process to listen makes the gRPC port answer while the others
are still starting. ``naipes serve`` names a fresh directory in NAIPES_READY_DIR; each gRPC process,
once it listens, and each gunicorn worker, once it has loaded the app (``post_worker_init``,
service/gunicorn_conf.py), writes an empty file there named after its kind and process ID
(``grpc-1234``, ``rest-1235``); ``naipes serve`` says ``naipes ready`` when there is one for each
process. Without the variable (a server started by hand) nothing is written."""

from __future__ import annotations

import os
from pathlib import Path

ENV = "NAIPES_READY_DIR"


def announce(kind: str) -> None:
    """This process (``kind``: ``grpc`` or ``rest``) serves."""
    if directory := os.environ.get(ENV):
        Path(directory, f"{kind}-{os.getpid()}").touch()


def withdraw(directory: str, kind: str, pid: int) -> None:
    """A process that has exited no longer counts (gunicorn replaces a worker that dies)."""
    Path(directory, f"{kind}-{pid}").unlink(missing_ok=True)


def serving(directory: str, kind: str) -> int:
    """How many processes of ``kind`` have said that they serve."""
    return sum(name.startswith(f"{kind}-") for name in os.listdir(directory))
