"""The access log and request IDs (docs/api.md, "Access log and request IDs").

A request ID is a client's ``X-Request-Id`` header (REST) or ``x-request-id`` metadata (gRPC): 1 to
128 visible ASCII characters (``ID``), sent back on the answer, errors included (REST: the same
header; gRPC: initial metadata, sent as the call starts); any other value is the request's
``INVALID_FIELD`` error naming ``x-request-id``.

The access log, off unless ``NAIPES_ACCESS_LOG`` is 1 (``naipes serve --access-log`` sets it for
its processes), is one JSON line per call of either transport on the logger ``naipes.access``
(stderr, the message alone, unless it has been given handlers of its own): noted where the call is
counted in the metrics (``metrics.Calls.done``, the one place that sees every call end, with its
method and code), and made and written four times a second by a thread of its own (``note``,
``flush``, ``_Writer``); ``line`` decides what the line says for both transports. With the log off,
a call pays one test of ``ON``.

The lines wait in a bounded queue (``QUEUED_AT_MOST``): while stderr takes nothing (a full pipe
nobody reads), the writer's thread waits in its write, and a call noted with the queue full is
dropped, only counted (``dropped``). Once a write goes through again, one line says how many were
dropped (``{"time": ..., "dropped": 25}``), and the metrics count them as they go
(``naipes_access_log_dropped_total``, ``metrics._Flusher``). The writer has its own thread so that a
stderr that blocks holds neither the metrics' thread nor a scrape of /metrics.
"""

from __future__ import annotations

import atexit
import json
import logging
import os
import re
import sys
import threading
import time
from collections import deque
from datetime import UTC, datetime
from typing import Any
from urllib.parse import unquote

from engine.errors import shown
from service.errors import ERRORS, ServiceError

log = logging.getLogger("naipes.access")
ON = False  # whether this process writes the access log (``configure``)
_NOTED: deque[tuple[Any, ...]] = deque()  # the calls whose lines are to be written (``note``, ``flush``; append and popleft need no lock)
# The lines waiting at most: beyond them a call's line is dropped and counted (``note``). A line
# waits a quarter of a second while stderr takes them, so the bound is reached only when it does not:
# 10,000 lines are 2.5 s of the busiest process's calls (4,000 a second, bench/NOTES.md), ten write
# intervals' worth, and about 4 MB (some 400 bytes a line; 45 MB at most, every line's request
# target as long as gunicorn reads one, 4 KB).
QUEUED_AT_MOST = 10_000
WRITE_SECONDS = 0.25  # how often the writer's thread writes the lines noted (``_Writer``)

ID = re.compile(r"[\x21-\x7e]{1,128}")  # a request ID: 1 to 128 visible ASCII characters
HEADER, METADATA = "X-Request-Id", "x-request-id"
ENVIRON_ID = "HTTP_X_REQUEST_ID"  # the header in a WSGI environ (two of them joined by a comma)
# The environ keys under which a REST call leaves its answer's status (noted only with the log on)
# and its stream's records counter (``metrics.StreamRecords.call``).
STATUS, RECORDS = "naipes.status", "naipes.records"

_JSON = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode  # (made once: json.dumps makes one a call)
_GRPC_STATUS = {code: kind.grpc_code.name for code, kind in ERRORS.items()}  # the gRPC status's name of each code

SETTING = "NAIPES_ACCESS_LOG"
_FLAGS = {"1": True, "true": True, "0": False, "false": False}


def setting(text: str) -> bool:
    """``NAIPES_ACCESS_LOG``'s value: 1 or 0 (true or false, any case; empty: 0); ValueError for
    anything else."""
    flag = _FLAGS.get(text.strip().lower() or "0")
    if flag is None:
        raise ValueError(f"expected 1 or 0 (or true or false), not {text!r}")
    return flag


def configure(on: bool | None = None) -> None:
    """Turns the access log on or off for this process (``on``; None: as ``NAIPES_ACCESS_LOG``
    says, a ValueError naming it if it says neither). The logger gets a handler writing the line
    alone to stderr, unless it has one."""
    global ON
    if on is None:
        try:
            on = setting(os.environ.get(SETTING, ""))
        except ValueError as exc:
            raise ValueError(f"{SETTING}: {exc}") from None
    ON = on
    if on and not log.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(message)s"))
        log.addHandler(handler)
        log.setLevel(logging.INFO)
        log.propagate = False  # (not again through the root logger's format)
    if on:
        _WRITER.start()


def checked(value: str) -> str:
    """A request ID as given, or the request's INVALID_FIELD error."""
    if ID.fullmatch(value) is None:
        raise ServiceError("INVALID_FIELD", f"x-request-id: expected 1 to 128 visible ASCII characters, not {shown(value)}", METADATA)
    return value


def grpc_request_id(context: Any) -> str | None:
    """The request ID of a gRPC call (``checked``; given twice, the values joined by a comma, as
    HTTP joins a header given twice), sent back at once in the call's initial metadata; None if
    the call has none."""
    given = [value for key, value in context.invocation_metadata() if key == METADATA]
    if not given:
        return None
    request_id = checked(",".join(given))
    try:
        context.send_initial_metadata(((METADATA, request_id),))
    except Exception:  # noqa: BLE001 (grpc.RpcError: the client has gone, and the answer with it)
        pass
    return request_id


def valid(request_id: str | None) -> str | None:
    """A REST request's ID if it is one (``ID``); None if it has none, or one refused (INVALID_FIELD)."""
    return request_id if request_id is not None and ID.fullmatch(request_id) else None


def echoed(request_id: str | None) -> list[tuple[str, str]]:
    """The header that sends a REST request's ID back: none if it has none, or one refused."""
    request_id = valid(request_id)
    return [] if request_id is None else [(HEADER, request_id)]


def rest_answering(environ: dict[str, Any], start_response: Any) -> Any:
    """The WSGI ``start_response`` of a REST call that has a request ID or is logged: the answer
    carries the ID if it is one (``ID``: a refused one is not sent back), and its status is noted
    in the environ (``STATUS``) for the access line."""
    echo = echoed(environ.get(ENVIRON_ID))

    def start(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
        environ[STATUS] = int(status[:3])
        headers.extend(echo)
        return start_response(status, headers, exc_info) if exc_info else start_response(status, headers)

    return start


def note(transport: str, method: str, code: str, seconds: float, context: Any, request_id: str | None = None,
         records: int | None = None) -> None:
    """Notes a call's access line, to be made and written by the writer's thread (``flush``), or
    drops it, counted, with the queue full (``QUEUED_AT_MOST``): on the call's thread, only what
    the line says is read (``context``: the gRPC call's context, its ``request_id`` and ``records``
    given; or the REST call's WSGI environ, which holds them). Made and written there, each line
    took the handler's lock and a write on the handler threads, where the metrics' writes had made
    convoys (bench/NOTES.md): on loopback the log on cost 20 to 30% of the requests a second."""
    if len(_NOTED) >= QUEUED_AT_MOST:  # (the few calls noted at this very moment may pass it by one each)
        _WRITER.drop()
        return
    if transport == "rest":
        environ = context
        http: str | None = f"{environ.get('REQUEST_METHOD', '')} {_sent(environ)}"
        status: int | str = environ.get(STATUS) or (ERRORS[code].http_status if code in ERRORS else 200)
        peer = _address(environ.get("REMOTE_ADDR", ""), environ.get("REMOTE_PORT", ""))
        request_id = valid(environ.get(ENVIRON_ID))
        counter = environ.get(RECORDS)
        records = None if counter is None else counter.records
    else:
        http, status, peer = None, _GRPC_STATUS.get(code, code), context.peer()  # (OK, CANCELLED: their own names)
    _NOTED.append((time.time(), transport, method, http, code, status, seconds, records, peer, request_id))


def line(ended: float, transport: str, method: str, http: str | None, code: str, status: int | str, seconds: float, records: int | None,
         peer: str, request_id: str | None) -> str:
    """A call's access line, from what ``note`` read of it (``ended``: the time it ended)."""
    entry: dict[str, Any] = {"time": datetime.fromtimestamp(ended, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z"),
                             "transport": transport, "method": method}
    if http is not None:
        entry["http"] = http
    entry |= {"code": code, "status": status, "ms": round(seconds * 1000, 3)}
    if records is not None:
        entry["records"] = records
    entry["peer"] = _grpc_peer(peer) if transport == "grpc" else peer
    if request_id is not None:
        entry["requestId"] = request_id
    return _JSON(entry)


def flush() -> None:
    """Writes the access lines noted (``note``) to the logger's handlers, in the order of their
    calls' ends (each record made directly: ``log.info`` would look for its caller's source line),
    then, if calls were dropped since the last such line, one that says how many. A line that
    cannot be made is logged, never the call's failure. The writer's thread calls it four times a
    second (``_Writer``), and at exit."""
    with _WRITER.lock:  # (one flush at a time: the lines in order, each drop reported once)
        while _NOTED:
            noted = _NOTED.popleft()
            try:
                _write(line(*noted))
            except Exception:
                logging.getLogger("naipes").exception("naipes: the access line of a %s %s call could not be made", noted[1], noted[2])
        dropped = _WRITER.dropped
        if dropped > _WRITER.reported:
            now = datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
            _write(_JSON({"time": now, "dropped": dropped - _WRITER.reported}))
            _WRITER.reported = dropped


def dropped() -> int:
    """The calls whose lines this process has dropped, their queue full (``QUEUED_AT_MOST``)."""
    return _WRITER.dropped


def _write(text: str) -> None:
    log.handle(log.makeRecord(log.name, logging.INFO, __file__, 0, text, (), None))


class _Writer:
    """The thread that writes the access lines (``flush``) every WRITE_SECONDS, started with the log
    (``configure``), and again in a forked child; and the count of the lines dropped (``dropped``),
    of which ``reported`` have been written as such."""

    def __init__(self) -> None:
        self.lock, self.counting = threading.Lock(), threading.Lock()
        self.thread: threading.Thread | None = None
        self.dropped = self.reported = 0
        os.register_at_fork(after_in_child=self.forked)

    def start(self) -> None:
        if self.thread is None:
            self.thread = threading.Thread(target=self.run, name="naipes-access-log", daemon=True)
            self.thread.start()

    def run(self) -> None:
        while True:
            time.sleep(WRITE_SECONDS)
            flush()

    def drop(self) -> None:
        with self.counting:  # (only with the queue full: a call's noting takes no lock)
            self.dropped += 1

    def forked(self) -> None:
        """In a child (gunicorn's worker of a preloaded app): its own calls' lines only, its own
        count, its own locks and thread."""
        _NOTED.clear()
        self.lock, self.counting = threading.Lock(), threading.Lock()
        self.thread, self.dropped, self.reported = None, 0, 0
        if ON:
            self.start()


_WRITER = _Writer()
atexit.register(flush)


def _sent(environ: dict[str, Any]) -> str:
    """The request target as sent (RAW_URI: gunicorn and werkzeug; REQUEST_URI: uWSGI), else rebuilt."""
    sent = environ.get("RAW_URI") or environ.get("REQUEST_URI")
    if sent:
        return str(sent)
    query = environ.get("QUERY_STRING")
    return str(environ.get("SCRIPT_NAME", "")) + str(environ.get("PATH_INFO", "")) + (f"?{query}" if query else "")


def _address(host: str, port: object) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def _grpc_peer(peer: str) -> str:
    """grpcio's peer (``ipv4:127.0.0.1:5000``, ``ipv6:%5B::1%5D:5000``) as ``host:port``."""
    kind, _, rest = peer.partition(":")
    if kind == "ipv4":
        return rest
    return unquote(rest) if kind == "ipv6" else peer
