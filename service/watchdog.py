"""One thread a process that ends what waits too long on a client: a REST body that does not come
(``service.rest``), a gRPC call whose request does not come, a gRPC stream whose client takes no
answer (``service.grpc_server``). Each of them waits where no timeout of the service reaches (a
read of the whole body, grpcio's C core): the watchdog looks once a second at what is being
waited for, and ends any past its due time.

A wait costs a dict entry, set and removed; whoever removes it first, the waiter when what it
waited for has come or the watchdog at the due time, decides.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from service.stream import env_seconds

log = logging.getLogger("naipes.watchdog")

# A request must have come within BODY_SECONDS of the server starting to wait for it: REST's body
# (read whole, as the server starts to read it) and a gRPC call's request message (as the call
# opens). A thread waiting on a client that sends nothing is a thread no other call has, and a
# slot of the few a process takes at a time. 0 is no bound (for a proxy in front that bounds a
# request's time itself).
BODY_SECONDS = env_seconds("NAIPES_BODY_SECONDS", 10.0)


class Watchdog:
    """The due times of one process's waits, and the thread that ends those past theirs."""

    def __init__(self) -> None:
        self.due: dict[object, tuple[float, float, Callable[[float], None]]] = {}
        self.lock = threading.Lock()
        self.thread: threading.Thread | None = None

    def watch(self, seconds: float, end: Callable[[float], None]) -> object:
        """A wait from now, to end within ``seconds``: past them, ``end`` is called once, on the
        watchdog's thread, with the seconds it has waited. Returns its token for ``done``."""
        token = object()
        now = time.monotonic()
        self.due[token] = (now + seconds, now, end)
        if self.thread is None:
            with self.lock:
                if self.thread is None:
                    self.thread = threading.Thread(target=self._run, name="naipes-watchdog", daemon=True)
                    self.thread.start()
        return token

    def done(self, token: object) -> bool:
        """The wait is over: whether it ended in time (the watchdog had not ended it)."""
        return self.due.pop(token, None) is not None

    def _run(self) -> None:
        while True:
            time.sleep(1.0)
            now = time.monotonic()
            for token, (due, since, end) in list(self.due.items()):
                if due < now and self.due.pop(token, None) is not None:
                    try:
                        end(now - since)
                    except Exception:  # (the watchdog goes on for the other waits)
                        log.exception("ending a wait past its time failed")


WATCHDOG = Watchdog()
