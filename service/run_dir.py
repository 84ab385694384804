"""The directory of one ``naipes serve``: its processes' metrics (``metrics/``, prometheus_client's
multiprocess mode) and the files by which they say that they serve (``ready/``, service/ready.py),
in memory where /dev/shm is, else in the temporary directory.

``naipes serve`` removes it when it stops. Killed outright (SIGKILL, the OOM killer) it cannot,
so it holds a lock on a file in it (``serve.lock``, flock) for as long as it lives: the kernel
lets go of the lock however the process ends, and the next ``naipes serve`` on the machine removes
the directories whose lock nobody holds (a pod's /dev/shm outlives its container's restarts; a
process ID does not say whether a server still runs: it is reused, and a container's server is
often process 1 again). A directory whose lock file is not there yet is being made, and is left,
unless it is older than ``MAKING_SECONDS`` and nobody holds the lock it is being made with: its
server was killed in the microseconds between making it and locking it."""

from __future__ import annotations

import fcntl
import logging
import os
import shutil
import tempfile
import time
from dataclasses import dataclass

PREFIX = "naipes-serve-"
LOCK = "serve.lock"
MAKING_SECONDS = 60.0  # (a directory is made and locked in microseconds: one this old without its lock was left)

log = logging.getLogger("naipes")


def shm() -> str | None:
    """/dev/shm, a memory file system, if there is one this process may write to."""
    path = "/dev/shm"
    return path if os.path.isdir(path) and os.access(path, os.W_OK) else None


@dataclass
class RunDir:
    path: str
    lock: int  # (the open lock file: closing it lets go of the lock)

    @property
    def metrics(self) -> str:
        return os.path.join(self.path, "metrics")

    @property
    def ready(self) -> str:
        return os.path.join(self.path, "ready")

    def remove(self) -> None:
        shutil.rmtree(self.path, ignore_errors=True)
        os.close(self.lock)


def make(where: str | None = None) -> RunDir:
    """A fresh directory for this server, held by its lock, once those left behind are removed.
    The lock file is locked under another name and then renamed into place: a ``serve.lock`` is
    never there unlocked while its server lives."""
    where = where or shm() or tempfile.gettempdir()
    remove_left_behind(where)
    path = tempfile.mkdtemp(prefix=PREFIX, dir=where)
    making = os.path.join(path, f".{LOCK}")
    lock = os.open(making, os.O_CREAT | os.O_RDWR | os.O_CLOEXEC, 0o600)
    fcntl.flock(lock, fcntl.LOCK_EX)
    os.rename(making, os.path.join(path, LOCK))
    for part in ("metrics", "ready"):
        os.mkdir(os.path.join(path, part))
    return RunDir(path, lock)


def remove_left_behind(where: str) -> list[str]:
    """Remove the directories in ``where`` of servers that no longer run (their lock is free);
    those of other users are not this process's to open, and are left. The paths removed."""
    removed = []
    for entry in os.scandir(where):
        if not entry.name.startswith(PREFIX) or not entry.is_dir(follow_symlinks=False):
            continue
        try:
            lock: int | None = os.open(os.path.join(entry.path, LOCK), os.O_RDWR | os.O_CLOEXEC)
        except FileNotFoundError:  # being made, or left while it was
            lock = _left_while_made(entry)
        except OSError:  # another user's
            continue
        if lock is None:
            continue
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:  # its server runs (or is making it)
            os.close(lock)
            continue
        shutil.rmtree(entry.path, ignore_errors=True)
        os.close(lock)
        log.info("naipes serve: removed %s, left by a naipes serve that no longer runs", entry.path)
        removed.append(entry.path)
    return removed


def _left_while_made(entry: os.DirEntry[str]) -> int | None:
    """The lock to take to remove a directory without its ``serve.lock``, if it was left while it
    was made: older than ``MAKING_SECONDS``. Its lock file under the name it is made with, else the
    directory itself (a lock nobody else takes). None while it may still be being made."""
    try:
        if time.time() - entry.stat(follow_symlinks=False).st_mtime < MAKING_SECONDS:
            return None
        try:
            return os.open(os.path.join(entry.path, f".{LOCK}"), os.O_RDWR | os.O_CLOEXEC)
        except FileNotFoundError:
            return os.open(entry.path, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:  # gone meanwhile, or another user's
        return None
