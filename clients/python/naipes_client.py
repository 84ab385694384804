"""Naipes client for Python: the same calls over REST or gRPC, the same JSON back.

    from naipes_client import RestClient, GrpcClient
    with GrpcClient("127.0.0.1:50051") as naipes:          # or RestClient("http://127.0.0.1:8080")
        result = naipes.validate_hand(record)              # the validation result of FORMAT.md
        print(result["valid"], result.get("points"))

Both clients take and return the JSON of ``docs/format.md`` as plain dicts, so code written
against one runs against the other. ``validate_hands`` audits an archive: records in (any
iterable), one answer per record out, in order, sent in batches (the fast way to stream); a stream
the server refuses for being busy (``TOO_MANY_STREAMS``) is sent again a second later. A request the service rejects raises ``NaipesError`` with the
error's stable ``code`` and the offending ``field``. Every call takes a ``request_id`` (1 to 128
visible ASCII characters, as the service reads it), sent as the request's ``X-Request-Id`` (gRPC:
``x-request-id`` metadata), which the service writes in its access log. ``validate_hand`` and
``validate_hands`` take ``omit_events=True`` for results with their ``events`` (what happened,
action by action: most of a result's size) left empty, every other field as without it, for a caller
that needs only the verdicts and the money. ``RestClient(url, compress=True)`` sends every body
gzip-compressed (an archive's NDJSON in about a tenth of its bytes), ``GrpcClient(target,
compress=True)`` every message (gRPC's own compression). The REST client needs only the standard
library; the gRPC client needs the ``naipes`` package (``pip install .`` in this repository) for
the generated stubs and the service's codec between the messages and their JSON (``service.codec``).
"""

from __future__ import annotations

import email.utils
import gzip
import heapq
import http.client
import json
import math
import os
import re
import socket
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import zlib
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from itertools import count, islice
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:  # (imported when a GrpcClient is made: the REST client needs only the standard library)
    import grpc
    from google.protobuf.message import Message

    from naipes.v1 import naipes_pb2

JSON = dict[str, Any]
T = TypeVar("T")
M = TypeVar("M", bound="Message")
BATCH = 50  # records per message of a ValidateHands stream
REST_CHUNK = 2000  # records per REST request of validate_hands
# RestClient.validate_hands waits for an answer its timeout and this long a record of the request more.
REST_SECONDS_A_RECORD = 0.01
# A server process validates a few streams at a time and refuses more with TOO_MANY_STREAMS,
# to retry in a moment: validate_hands retries a refused stream this many times, a second apart.
STREAM_RETRIES = 30
# validate_hands reads the caller's records as they come: a batch (a REST request) not yet full is
# sent once they have paused this long (seconds), and a gRPC stream ends once they have paused this
# long (the service ends a stream that sends nothing for NAIPES_STREAM_IDLE_SECONDS, 30 by
# default), the next record opening another.
FLUSH_SECONDS = 0.05
PAUSE_SECONDS = 10.0


# The JSON text of a batch's records at most (a message or line of a stream is at most 1 MiB;
# JSON is longer than the record's protobuf, so the gRPC message fits too).
BATCH_BYTES = 768 * 1024
MAX_MESSAGE = 1 << 20  # the service's limit on a request, a gRPC message or an NDJSON line
MAX_BATCH = 1000  # the service's limit on the records of one message or line
REQUEST_ID = re.compile(r"[\x21-\x7e]{1,128}")  # a request ID, as the service reads it (docs/api.md)


def _batch(batch: object) -> int:
    """``validate_hands``' ``batch``: a number of records from 1 to ``MAX_BATCH`` (the service
    refuses a batch of more); anything else is refused here, INVALID_FIELD naming ``batch``, worded
    as the service words a value (True and None as JSON writes them, ``true`` and ``null``)."""
    if isinstance(batch, bool) or not isinstance(batch, int) or not 1 <= batch <= MAX_BATCH:
        raise NaipesError("INVALID_FIELD", f"batch: expected a number of records from 1 to {MAX_BATCH}, not {_shown(batch)}", "batch")
    return batch


def _request_id(request_id: str | None) -> tuple[tuple[str, str], ...]:
    """The request ID a call sends, as a header or metadata (none without one); one the service
    would refuse is refused here, before sending, with its error (some cannot be sent at all)."""
    if request_id is None:
        return ()
    if not isinstance(request_id, str) or REQUEST_ID.fullmatch(request_id) is None:
        raise NaipesError("INVALID_FIELD", f"x-request-id: expected 1 to 128 visible ASCII characters, not {_shown(request_id)}", "x-request-id")
    return (("x-request-id", request_id),)


def _shown(value: object) -> str:
    """A value quoted as the service quotes it in a message (engine/errors.py, ``shown``): a
    string in single quotes, escaped as ``repr`` escapes it and a quote as ``\\'``, a long one
    by its first 60 characters and its length; anything else as JSON writes it."""
    def quoted(text: str) -> str:
        written = repr(text)
        return "'" + written[1:-1].replace("'", "\\'") + "'" if written.startswith('"') else written

    if not isinstance(value, str):
        return json.dumps(value, default=repr)
    return quoted(value) if len(value) <= 60 else f"{quoted(value[:60])}... ({len(value):,} characters)"


def _query_text(value: object) -> str:
    """A value as the text of a query parameter (a seat), as the JavaScript client sends it: a
    string as it is, anything else as JSON writes it (True is "true", not "True"; [3, 4] "[3,4]")."""
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, separators=(",", ":"))
    except (TypeError, ValueError):  # (what JSON cannot write: its text, refused by the service as any)
        return str(value)


def _json_length(record: object) -> int:
    """The length of a record's JSON, to fill a message; 0 for a record JSON cannot hold at all (a
    reference to itself, a tuple as a key), answered by its own error and not sent."""
    try:
        return len(json.dumps(record, default=repr))  # (what JSON cannot hold is the record's own error later)
    except (TypeError, ValueError):
        return 0


def _batches(records: Iterable[T], size: int, length_of: Callable[[T], int] = _json_length) -> Iterator[list[T]]:
    """``records`` in batches of at most ``size`` records and ``BATCH_BYTES`` of JSON, so that no
    message or line outgrows the service's limit by holding many large records (one record
    larger than that goes alone, and is answered by its own error)."""
    chunk: list[T] = []
    used = 0
    for record in records:
        length = length_of(record)
        if chunk and (len(chunk) == size or used + length > BATCH_BYTES):
            yield chunk
            chunk, used = [], 0
        chunk.append(record)
        used += length
    if chunk:
        yield chunk


def _record_text(record: object) -> str | JSON:
    """A record's JSON text, or, when JSON cannot hold it (NaN, a set), the error entry that
    answers it: ``INVALID_FIELD`` naming the field, as the gRPC client answers it."""
    try:
        return json.dumps(record, allow_nan=False)
    except (TypeError, ValueError) as exc:
        field, what = _unwritable(record, "", set()) or ("", str(exc))
        return {"error": {"code": "INVALID_FIELD", **({"field": field} if field else {}),
                          "message": f"{field or 'the record'}: JSON cannot hold {what}"}}


def _unwritable(value: object, path: str, enclosing: set[int]) -> tuple[str, str] | None:
    """The first value under ``value`` that JSON cannot write: its field (``deal.hands[1]``), what it is.
    ``enclosing``: the containers around ``value`` (a value held twice, side by side, is no cycle)."""
    if isinstance(value, float) and not math.isfinite(value):
        return path, {"nan": "NaN", "inf": "Infinity", "-inf": "-Infinity"}[repr(value)]
    if isinstance(value, (dict, list, tuple)):
        if id(value) in enclosing:
            return path, "a reference to itself"
        enclosing.add(id(value))
        items = value.items() if isinstance(value, dict) else enumerate(value)
        for key, item in items:
            if isinstance(value, dict) and (not isinstance(key, str | int | float | bool | None)
                                            or isinstance(key, float) and not math.isfinite(key)):
                return path, f"a key {key!r}"
            found = _unwritable(item, f"{path}[{key}]" if not isinstance(value, dict) else f"{path}.{key}" if path else str(key), enclosing)
            if found:
                return found
        enclosing.discard(id(value))
        return None
    if value is not None and not isinstance(value, str | int | float | bool):
        return path, f"a {type(value).__name__}"
    return None


class _Progress:
    """Cancels a stream once messages it sent have waited ``seconds`` for an answer: a stream is
    bounded by its progress, not its length (an archive may take hours, an answer comes within
    moments of its message)."""

    def __init__(self, seconds: float):
        self.seconds, self.expired, self._waiting, self._since = seconds, False, 0, time.monotonic()
        self._paused = False
        self._lock, self._done = threading.Lock(), threading.Event()

    def sent(self) -> None:
        with self._lock:
            if not self._waiting:
                self._since = time.monotonic()
            self._waiting += 1

    def answered(self) -> None:
        with self._lock:
            self._waiting -= 1
            self._since = time.monotonic()

    def pause(self, paused: bool) -> None:
        """While the caller holds an answer, the clock stops (it starts again on ``False``)."""
        with self._lock:
            self._paused, self._since = paused, time.monotonic()

    def watch(self, cancel: Callable[[], object]) -> None:
        def run() -> None:
            while not self._done.wait(min(self.seconds / 4, 1.0)):
                with self._lock:
                    if self._waiting and not self._paused and time.monotonic() - self._since > self.seconds:
                        self.expired = True
                        cancel()
                        return

        threading.Thread(target=run, name="naipes-stream-progress", daemon=True).start()

    def stop(self) -> None:
        self._done.set()


class _Stream:
    """One ValidateHands call of ``GrpcClient.validate_hands``: its messages sent and not yet
    answered, each with the local error of each of its records (or None: sent), and whether the
    call is over (it takes no more messages)."""

    def __init__(self) -> None:
        self.pending: deque[tuple[list[JSON | None], Any]] = deque()
        self.over = False


class _Records:
    """The caller's records for ``validate_hands``, read on a thread of their own, so that the
    client may send what has come when the records pause, however slowly the caller's iterable
    gives them (a live feed): a batch not yet full once they have paused ``FLUSH_SECONDS``, and over
    gRPC it ends its stream once they have paused ``PAUSE_SECONDS``. The thread reads at most four
    chunks (``size`` records) ahead of what has been taken. With ``same_thread`` there is no such
    thread: the client reads them on the caller's own, as it needs them (``pump``), for an iterable
    bound to its thread."""

    def __init__(self, records: Iterable[JSON], size: int,
                 message: Callable[[list[JSON]], tuple[list[JSON | None], Any]] | None = None, *, same_thread: bool = False) -> None:
        if isinstance(records, (str, bytes, dict)) or not hasattr(records, "__iter__"):
            # (a record given alone, or a string, would be iterated key by key, character by character)
            raise NaipesError("INVALID_FIELD", "records: expected an iterable of records (a list, a generator), "
                              f"not {_kind(records)}", "records")
        self._size, self._message = size, message
        self._records: deque[JSON] = deque()
        self._ended = self._closed = False
        self._error: BaseException | None = None
        self._ready = threading.Condition()
        self._source: Iterator[JSON] | None = iter(records) if same_thread else None  # (same_thread: read by pump)
        if not same_thread:
            threading.Thread(target=self._read, args=(records,), name="naipes-records", daemon=True).start()

    @property
    def same_thread(self) -> bool:
        return self._source is not None

    def _read(self, records: Iterable[JSON]) -> None:
        try:
            for record in records:
                with self._ready:
                    self._ready.wait_for(lambda: self._closed or len(self._records) < 4 * self._size)
                    if self._closed:
                        return
                    self._add(record)
        except BaseException as exc:  # the caller's iterable failed: raised to the caller after the records before
            self._error = exc
        self._end()

    def _add(self, record: JSON) -> None:
        """(The lock held.)"""
        self._records.append(record)
        if len(self._records) in (1, self._size):  # (what a taker waits for: a record, then a chunk's worth)
            self._ready.notify_all()

    def _end(self) -> None:
        with self._ready:
            self._ended = True
            self._ready.notify_all()

    def pump(self, chunks: int = 4) -> None:
        """With ``same_thread``, on the caller's thread: reads records until ``chunks`` chunks'
        worth wait to be taken, or it has read as many (they are taken as they come, so that
        waiting alone would not stop it), or they end (nothing without: the thread reads them)."""
        if self._source is None:
            return
        for _ in range(chunks * self._size):
            with self._ready:
                if self._ended or self._closed or len(self._records) >= chunks * self._size:
                    return
            try:
                record = next(self._source)
            except StopIteration:
                self._end()
                return
            except Exception as exc:  # raised to the caller after the records before, as the thread's (Ctrl-C at once)
                self._error = exc
                self._end()
                return
            with self._ready:
                self._add(record)

    def more(self) -> bool:
        """Waits for a record: whether one has come (False: the records have ended; the
        iterable's error is raised here, once every record before it is taken). With
        ``same_thread`` it reads a chunk's worth first, so that gathering one does not wait."""
        self.pump(1)
        with self._ready:
            self._ready.wait_for(lambda: self._records or self._ended)
            if self._records:
                return True
        if self._error is not None:
            raise self._error
        return False

    def _gathered(self, pause: float | None, over: Callable[[], bool]) -> bool:
        """(The lock held.) Waits, at most ``pause`` seconds (None: for ever), for a record, then
        for a chunk's worth until the records pause FLUSH_SECONDS or end: whether there are
        records to take (and ``over()`` is not true)."""
        if not self._ready.wait_for(lambda: self._records or self._ended or over(), pause):
            return False
        while len(self._records) < self._size and not self._ended and not over():
            had = len(self._records)
            self._ready.wait(FLUSH_SECONDS)
            if len(self._records) == had:
                break  # (they paused)
        return bool(self._records) and not over()

    def chunks(self) -> Iterator[list[JSON]]:
        """The records in chunks of at most ``size``, each as soon as it is full or the records
        have paused (REST: a request each)."""
        while self.more():
            with self._ready:
                self._gathered(None, lambda: False)
                chunk = [self._records.popleft() for _ in range(min(self._size, len(self._records)))]
                self._ready.notify_all()
            yield chunk

    def take(self, stream: _Stream) -> Any | None:
        """The next message for ``stream``, put among its pending ones: a batch of the records
        that have come (``size`` records and ``BATCH_BYTES`` at most) once it is full or the records
        have paused or ended. None once they have paused PAUSE_SECONDS, or ended, or the stream is
        over (gRPC)."""
        assert self._message is not None
        with self._ready:
            if not self._gathered(PAUSE_SECONDS, lambda: stream.over):
                return None
            chunk = next(_batches(islice(self._records, self._size), self._size))
            for _ in chunk:
                self._records.popleft()
            self._ready.notify_all()
            layout, request = self._message(chunk)
            stream.pending.append((layout, request))
            return request

    def end(self, stream: _Stream) -> list[tuple[list[JSON | None], Any]]:
        """Ends ``stream`` (it takes no more messages): its messages sent and not answered."""
        with self._ready:
            stream.over = True
            self._ready.notify_all()
            return list(stream.pending)

    def close(self) -> None:
        with self._ready:
            self._closed = True
            self._ready.notify_all()


class NaipesError(Exception):
    """A call failed: ``code`` (``UNKNOWN_CARD``), ``field`` (``deal.hands[1]``). Besides the
    service's codes (docs/api.md): ``UNAVAILABLE`` (no server, or no answer to be read, or the
    client closed: "the client is closed"), ``DEADLINE_EXCEEDED`` (no answer within the
    timeout), and over REST ``HTTP_<status>`` (``HTTP_502``) for an HTTP error that is not the
    service's problem JSON (a proxy's page)."""

    retry_after: str | None = None  # REST: the Retry-After of a TOO_MANY_STREAMS answer

    def __init__(self, code: str, message: str, field: str | None = None, status: int | grpc.StatusCode | None = None):
        super().__init__(f"{code}: {message}")
        self.code, self.message, self.field, self.status = code, message, field, status


def _closed() -> NaipesError:
    """The error of a call of a client once closed (``close()``, or its ``with`` block left),
    raised before anything else is said of the call, so that both clients say it alike (the gRPC
    client refuses some requests itself that the REST client leaves to the server)."""
    return NaipesError("UNAVAILABLE", "the client is closed")


class _Closable:
    """What both clients share of their ``close()``: ``_closed``, set by it, and ``_open()``,
    a call's first step, refused once it is set."""

    _closed = False

    def _open(self) -> None:
        if self._closed:
            raise _closed()


# The longest timeout a client takes (a year, in seconds): a socket's and a gRPC deadline's
# arithmetic overflows somewhere past 1e9 s, and an infinite one raised OverflowError on the
# process's deadline thread, which then ended every other REST client's deadlines with it.
MAX_TIMEOUT = 365 * 24 * 3600.0


def _seconds(timeout: float) -> float:
    """``timeout`` checked: a number of seconds above 0, at most ``MAX_TIMEOUT``; ValueError else."""
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not 0 < timeout <= MAX_TIMEOUT:
        raise ValueError(f"timeout must be a number of seconds above 0 and at most {MAX_TIMEOUT:.0f} (a year), not {timeout!r}")
    return float(timeout)


def _kind(value: object) -> str:
    """What a value given for the records is, in a message (None and True as JSON writes them, null
    and true, as the JavaScript client words them)."""
    if value is None:
        return "null"
    if isinstance(value, dict):
        return "a dict (one record: give a list of them)"
    if isinstance(value, (str, bytes)):
        return f"a {type(value).__name__}"
    shown = json.dumps(value) if isinstance(value, int | float) else repr(value)  # (True as JSON writes it: true)
    return f"{type(value).__name__} {shown}"[:80]


class RestClient(_Closable):
    """Naipes over REST (JSON over HTTP/1.1). ``timeout``: a call's deadline, the seconds it waits
    for the server's whole answer (``DEADLINE_EXCEEDED`` then, however steadily the answer was
    coming); ``validate_hands``: how long a stream may stay silent. ``compress``: every body is
    sent gzip-compressed (``Content-Encoding: gzip``), a stream's as its lines are written, and the
    answers are asked for gzip-compressed (``Accept-Encoding: gzip``: the service compresses an
    answer of 1 KiB or more, a stream's a line at a time) and decoded here: about a tenth of the
    bytes for an archive's NDJSON, a fifth to a quarter of its answers', for some CPU on both sides."""

    def __init__(self, base_url: str = "http://127.0.0.1:8080", timeout: float = 10.0, *, compress: bool = False):
        self.base_url = base_url.rstrip("/")
        self.timeout = _seconds(timeout)
        self.compress = compress
        self._accept = {"Accept-Encoding": "gzip"} if compress else {}

    def _call(self, method: str, path: str, body: JSON | None = None, request_id: str | None = None) -> JSON:
        self._open()
        headers = {**dict(_request_id(request_id)), **self._accept}
        text = None if method == "GET" else _record_text(body)  # (a POST's None is sent: JSON null, refused as the body)
        if isinstance(text, dict):  # JSON cannot hold it: refused before sending, as the gRPC client does
            error = text["error"]
            raise NaipesError(error["code"], error["message"], error.get("field"))
        data = None if text is None else text.encode()
        if data:
            headers["Content-Type"] = "application/json"
            if self.compress:
                data = _gzip([data])
                headers["Content-Encoding"] = "gzip"
        request = urllib.request.Request(self.base_url + path, data=data, method=method, headers=headers)
        deadline = _CALL.deadline = _Deadline(self.timeout)
        try:
            with _rest_errors(self.base_url):
                with _OPENER.open(request, timeout=self.timeout) as response:
                    answer: JSON = json.loads(_answer_body(response))  # (the service answers a JSON object)
                    return answer
        except NaipesError:
            if deadline.passed:  # its connection shut: the answer was cut short, whatever the error says
                raise NaipesError("DEADLINE_EXCEEDED", f"{self.base_url}: no answer within the timeout") from None
            raise
        finally:
            deadline.cancel()

    def validate_hand(self, record: JSON, *, omit_events: bool = False, request_id: str | None = None) -> JSON:
        """The record's validation result. ``omit_events``: the result's ``events`` left empty,
        every other field as without it (``?omitEvents=true``; nothing is sent when false)."""
        query = "?omitEvents=true" if omit_events else ""
        return self._call("POST", "/v1/hands:validate" + query, record, request_id)

    def legal_actions(self, record: JSON, seat: int | None = None, *, request_id: str | None = None) -> JSON:
        query = "" if seat is None else "?" + urllib.parse.urlencode({"seat": _query_text(seat)})
        return self._call("POST", "/v1/hands:legalActions" + query, record, request_id)

    def resolve_trick(self, request: JSON, *, request_id: str | None = None) -> JSON:
        return self._call("POST", "/v1/tricks:resolve", request, request_id)

    def settle_hand(self, request: JSON, *, request_id: str | None = None) -> JSON:
        return self._call("POST", "/v1/hands:settle", request, request_id)

    def deal(self, request: JSON, *, request_id: str | None = None) -> JSON:
        return self._call("POST", "/v1/deals", request, request_id)

    def describe_rules(self, game: str, *, request_id: str | None = None) -> JSON:
        """A game's house-rule options. ``game`` None is no game, the empty one (as the gRPC client
        sends it); anything but a string is refused here, as the service words it (INVALID_FIELD)."""
        self._open()
        if game is None:
            game = ""
        if not isinstance(game, str):
            raise NaipesError("INVALID_FIELD", f"game: expected a string, not {_shown(game)}", "game")
        return self._call("GET", f"/v1/games/{urllib.parse.quote(game, safe='')}/rules", None, request_id)

    def validate_hands(self, records: Iterable[JSON], batch: int = BATCH, *, omit_events: bool = False,
                       request_id: str | None = None, same_thread: bool = False) -> Iterator[JSON]:
        """Validate many records: one answer per record, in order: ``{"result": ...}`` (what
        validate_hand answers) or ``{"error": {"code", "field", "message"}}`` for a record that
        is not well formed (or JSON cannot hold: NaN, a set; ``INVALID_FIELD`` naming the field,
        answered here). NDJSON requests of up to ``REST_CHUNK`` records, in lines of
        ``batch`` records (fewer when they are large: ``BATCH_BYTES``); a request fails with
        ``DEADLINE_EXCEEDED`` when the server sends nothing for ``timeout`` seconds (plus 10 ms a
        record of the request), however long the whole takes; ``batch`` is from 1 to ``MAX_BATCH``
        (else INVALID_FIELD naming it, raised for the first answer). ``omit_events``: every result's
        ``events`` left empty, every other field as without it (``"omitEvents": true`` on each
        line; nothing is sent when false). ``request_id``: each request's. ``records`` may come as
        slowly as they like (a live feed): they are read on a thread of the client's own, and a
        request not yet full is sent once they pause (``FLUSH_SECONDS``), so that each is answered
        soon after it comes; an error the iterable raises is raised here, after the answers of the
        records before it. ``same_thread=True`` reads them on the caller's thread instead, a
        request's worth at a time as the client needs them, for an iterable bound to its thread (a
        SQLite cursor, which raises its ProgrammingError on another): for an archive, not a live
        feed, since a request is sent only once it is full or the records have ended. A request
        whose answer is cut short after some of its lines (the service ends a stream whose caller
        holds an answer 30 seconds, the client then taking none) is sent again from its first line
        not answered."""
        self._open()  # (before its records are read)
        headers, batch = {"Content-Type": "application/x-ndjson", **dict(_request_id(request_id)), **self._accept}, _batch(batch)
        source = _Records(records, REST_CHUNK, same_thread=same_thread)
        try:
            for chunk in source.chunks():
                texts = [_record_text(record) for record in chunk]  # each alone: one bad record is its own error
                parts = list(_batches([t for t in texts if isinstance(t, str)], batch, len))
                answers = self._stream(parts, len(chunk), headers, omit_events)
                for text in texts:
                    yield next(answers) if isinstance(text, str) else text
                next(answers, None)  # (none is left: this reads the body to its end and closes it)
        finally:
            source.close()

    def _stream(self, parts: list[list[str]], records: int, headers: dict[str, str], omit_events: bool = False) -> Iterator[JSON]:
        """The answers to one NDJSON request of ``parts`` (batches of records' JSON texts), each
        line ``omitEvents`` when ``omit_events`` is true."""
        if not parts:
            return
        body, headers = self._body(parts, headers, omit_events)
        attempt = 0
        while True:
            self._open()  # (closed between the requests of validate_hands: those after are not sent)
            request = urllib.request.Request(self.base_url + "/v1/hands:validateStream", data=body, method="POST", headers=headers)
            answered, cut = 0, False  # (the lines answered by this request; whether its answer was cut short, not ended)
            try:
                with _rest_errors(self.base_url):
                    with urllib.request.urlopen(request, timeout=self.timeout + records * REST_SECONDS_A_RECORD) as response:
                        try:
                            for part, line in zip(parts, _answer_lines(response), strict=True):
                                answer: JSON = json.loads(line)  # a line's error (too long, say) is each of its records' answer
                                answered += 1
                                yield from answer["batch"] if "batch" in answer else [answer] * len(part)
                        except Exception:
                            cut = _cut_short(response)
                            raise
                return
            except NaipesError as error:
                if cut and 0 < answered < len(parts) and error.code == "UNAVAILABLE":
                    # Cut short after some answers (the server ends a stream whose caller takes none
                    # of its answer for 30 s, or it went away): the lines not answered are sent again.
                    parts = parts[answered:]
                    records = sum(map(len, parts))
                    body, headers = self._body(parts, headers, omit_events)
                    attempt = 0
                    continue
                if error.code != "TOO_MANY_STREAMS" or attempt == STREAM_RETRIES:
                    raise
                delay = _retry_delay(error.retry_after)
            attempt += 1
            time.sleep(delay)

    def _body(self, parts: list[list[str]], headers: dict[str, str], omit_events: bool) -> tuple[bytes, dict[str, str]]:
        """An NDJSON request's body of ``parts``, a line each, and its headers."""
        head = '{"omitEvents": true, "batch": [' if omit_events else '{"batch": ['
        lines = ((head + ", ".join('{"record": ' + t + "}" for t in part) + "]}\n").encode() for part in parts)
        if self.compress:
            return _gzip(lines), {**headers, "Content-Encoding": "gzip"}
        return b"".join(lines), headers

    def close(self) -> None:
        """Every call after it raises NaipesError UNAVAILABLE, "the client is closed" (a call under
        way ends as it would have: the client holds no connection between calls)."""
        self._closed = True

    def __enter__(self) -> RestClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _answer_body(response: Any) -> bytes:
    """An answer's body (``http.client.HTTPResponse``, or the ``HTTPError`` of one), decoded from
    gzip if the service compressed it (``Accept-Encoding: gzip``)."""
    body: bytes = response.read()
    return gzip.decompress(body) if _gzipped(response) else body


def _answer_lines(response: Any) -> Iterator[bytes]:
    """A stream's answer, line by line as it comes, decoded from gzip if the service compressed
    it: a line is had once the compressed bytes that give it have come (the service flushes its
    compressor after each line)."""
    if not _gzipped(response):
        yield from response
        return
    inflate, held = zlib.decompressobj(31), b""
    while data := response.read1(64 * 1024):
        held += inflate.decompress(data)
        *lines, held = held.split(b"\n")
        yield from lines
    if not inflate.eof:
        raise EOFError("the answer ended before the end of its gzip data")
    if held:
        yield held


def _cut_short(response: Any) -> bool:
    """Whether an answer (``http.client.HTTPResponse``) ended before its end: a chunked one before
    its last chunk (http.client may read a connection closed there as the answer's end: its
    ``chunk_left`` is None only once the last chunk has come), one of known length short of it."""
    if response.chunked:
        return response.chunk_left is not None
    return bool(response.length)


def _gzipped(response: Any) -> bool:
    coding: str = response.headers.get("Content-Encoding", "")
    return coding.strip().lower() == "gzip"


def _gzip(pieces: Iterable[bytes]) -> bytes:
    """``pieces``, one body, in one gzip member, compressed as they come (the plain body is never
    held whole)."""
    compressor = zlib.compressobj(6, zlib.DEFLATED, 31)
    out = [compressor.compress(piece) for piece in pieces]
    out.append(compressor.flush())
    return b"".join(out)


class _Stub:
    """The service's methods on one channel (``NaipesServiceStub``'s), each answer left as its wire
    bytes: the codec's compiled decoder reads them into the REST API's JSON (``answer_from_wire``), a
    Revesino result in about 39 µs where printing protobuf's message took 170 (the client's
    ValidateHands stream was slower than the REST client's)."""

    ValidateHand: Any
    ValidateHands: Any
    LegalActions: Any
    ResolveTrick: Any
    SettleHand: Any
    Deal: Any
    DescribeRules: Any

    def __init__(self, channel: grpc.Channel, pb: Any) -> None:
        service = pb.DESCRIPTOR.services_by_name["NaipesService"]
        for method in service.methods:
            path = f"/{service.full_name}/{method.name}"
            serialize = getattr(pb, method.input_type.name).SerializeToString
            calling = channel.stream_stream if method.client_streaming else channel.unary_unary
            setattr(self, method.name, calling(path, request_serializer=serialize))


class GrpcClient(_Closable):
    """Naipes over gRPC; answers are converted to the same JSON the REST API gives. ``target``:
    ``host:port``, or a gRPC name of several addresses, each a replica of the service, which the
    calls take in turn (gRPC's ``round_robin``): ``dns:///naipes-grpc.games.svc:50051`` (a headless
    Kubernetes Service: deploy/k8s), ``ipv4:10.0.0.1:50051,10.0.0.2:50051``. ``timeout``: each
    call's deadline in seconds; a ValidateHands stream's bound on each message's answer.

    ``connections``: the HTTP/2 connections the client opens (each when first used), its calls
    and streams taking them in turn. The processes of ``naipes serve --workers N`` share one port
    and the kernel gives each a share of the connections, not of the calls: every call of one
    connection is answered by one process. A client that sends many calls at once (from threads,
    or streams side by side) opens as many connections as the server has processes, or more, to
    spread them. The connections are the client's own: grpcio would otherwise give every channel
    of a process to one target the same one.

    ``compress``: every message is sent gzip-compressed, in gRPC's own message compression (the
    service's limits are the decompressed message's; the answers come compressed only if the
    server's ``NAIPES_GRPC_COMPRESSION`` says, which grpcio decodes unseen), as
    ``RestClient(compress=True)`` sends its bodies."""

    def __init__(self, target: str = "127.0.0.1:50051", timeout: float = 10.0, connections: int = 1, *, compress: bool = False):
        import grpc

        from naipes.v1 import naipes_pb2

        if connections < 1:
            raise ValueError(f"connections must be at least 1, not {connections}")
        self._grpc, self._pb, self.timeout = grpc, naipes_pb2, _seconds(timeout)
        # Connections of this channel's own, to every address of the target, taken in turn.
        options = [("grpc.use_local_subchannel_pool", 1), ("grpc.lb_policy_name", "round_robin")]
        compression = grpc.Compression.Gzip if compress else None
        self._channels = [grpc.insecure_channel(target, options=options, compression=compression) for _ in range(connections)]
        self._stubs = [_Stub(channel, naipes_pb2) for channel in self._channels]
        self._turns = count()  # (next() on it is atomic: threads may share the client)

    @property
    def _stub(self) -> _Stub:
        """The stub of the connection whose turn it is."""
        return self._stubs[next(self._turns) % len(self._stubs)]

    def _call(self, method: Any, request: Message, request_id: str | None = None) -> bytes:
        """One unary call: ``method``, the stub's (``self._stub.Deal``), with the call's deadline
        and request ID; the answer's wire bytes, or its error as a NaipesError."""
        metadata = _request_id(request_id)
        size = request.ByteSize()
        if size > MAX_MESSAGE:  # (the server's answer to it, said here: past 1.5 MiB grpcio refused it, RESOURCE_EXHAUSTED alone)
            raise NaipesError("PAYLOAD_TOO_LARGE", f"the request message is {size} bytes, larger than the {MAX_MESSAGE} the service accepts")
        self._open()  # (closed by another thread since the call's start)
        try:
            answer: bytes = method(request, timeout=self.timeout, metadata=metadata)
            return answer
        except self._grpc.RpcError as exc:
            raise self._cut_short(exc) from None
        except ValueError:  # grpcio's "Cannot invoke RPC on closed channel!": closed by another thread meanwhile
            if self._closed:
                raise _closed() from None
            raise

    def _cut_short(self, exc: grpc.RpcError) -> NaipesError:
        """A call's error as a NaipesError; one the client's ``close()`` cancelled (grpcio's
        CANCELLED "Channel closed!") is the closed client's."""
        if self._closed and exc.code() == self._grpc.StatusCode.CANCELLED:
            return _closed()
        return _grpc_error(exc)

    def _message(self, cls: type[M], data: JSON) -> M:
        """JSON into the request message; JSON no message can hold is refused here, before
        sending, with the ``NaipesError`` the server would answer (the REST client's)."""
        from service.codec import from_json
        from service.errors import ServiceError

        try:
            return from_json(data, cls())
        except (ServiceError, TypeError, ValueError):  # (TypeError: a key that is not a string)
            unwritable = _unwritable(data, "", set())  # (in the REST client's words, where JSON cannot hold it)
            if unwritable is not None:
                field, what = unwritable
                raise NaipesError("INVALID_FIELD", f"{field or 'the record'}: JSON cannot hold {what}", field or None) from None
        try:  # the JSON the REST client sends: keys JSON writes as strings (1, None, True: "1", "null", "true") are those
            return from_json(json.loads(json.dumps(data)), cls())
        except ServiceError as exc:
            raise NaipesError(exc.code, exc.message, exc.field) from None

    @staticmethod
    def _json(data: bytes, cls: type[Message]) -> JSON:
        """An answer's wire bytes as the REST API's JSON (``service.codec.answer_from_wire``); bytes
        that are not the answer's message are INTERNAL (as grpcio's failure to deserialize them was)."""
        from service.codec import answer_from_wire

        try:
            return answer_from_wire(data, cls)
        except Exception:  # protobuf's DecodeError
            raise NaipesError("INTERNAL", f"the answer is not a {cls.DESCRIPTOR.name}: {data[:40]!r}") from None

    def validate_hand(self, record: JSON, *, omit_events: bool = False, request_id: str | None = None) -> JSON:
        """The record's validation result. ``omit_events``: the result's ``events`` left empty,
        every other field as without it (the request's ``omit_events``, not set when false)."""
        self._open()
        request = self._pb.ValidateHandRequest(record=self._message(self._pb.HandRecord, record))
        if omit_events:
            request.omit_events = True
        answer = self._json(self._call(self._stub.ValidateHand, request, request_id), self._pb.ValidateHandResponse)
        return answer["result"] if "result" in answer else self._json(b"", self._pb.ValidationResult)

    def legal_actions(self, record: JSON, seat: int | None = None, *, request_id: str | None = None) -> JSON:
        """Who acts and every legal action; with ``seat``, that seat's view only. The seat is read
        as the REST client's query parameter is (an integer, or one in a decimal string), else
        refused before sending (INVALID_FIELD naming ``seat``), after the record's own errors."""
        self._open()
        hand = self._message(self._pb.HandRecord, record)
        # (the seat as the text the REST client's query sends: 3.0 is "3.0", True is "true", both refused)
        request = self._pb.LegalActionsRequest() if seat is None else self._message(self._pb.LegalActionsRequest, {"seat": _query_text(seat)})
        request.record.CopyFrom(hand)
        return self._json(self._call(self._stub.LegalActions, request, request_id), self._pb.LegalActionsResponse)

    def resolve_trick(self, request: JSON, *, request_id: str | None = None) -> JSON:
        self._open()
        return self._json(self._call(self._stub.ResolveTrick, self._message(self._pb.ResolveTrickRequest, request), request_id),
                          self._pb.ResolveTrickResponse)

    def settle_hand(self, request: JSON, *, request_id: str | None = None) -> JSON:
        self._open()
        return self._json(self._call(self._stub.SettleHand, self._message(self._pb.SettleHandRequest, request), request_id),
                          self._pb.SettleHandResponse)

    def deal(self, request: JSON, *, request_id: str | None = None) -> JSON:
        self._open()
        return self._json(self._call(self._stub.Deal, self._message(self._pb.DealRequest, request), request_id), self._pb.DealResponse)

    def describe_rules(self, game: str, *, request_id: str | None = None) -> JSON:
        """A game's house-rule options (``game`` read as the REST client reads it: None is the empty game)."""
        self._open()
        return self._json(self._call(self._stub.DescribeRules, self._message(self._pb.DescribeRulesRequest, {"game": game}), request_id),
                          self._pb.DescribeRulesResponse)

    def validate_hands(self, records: Iterable[JSON], batch: int = BATCH, *, omit_events: bool = False,
                       request_id: str | None = None, same_thread: bool = False) -> Iterator[JSON]:
        """Validate many records over one ValidateHands stream, ``batch`` records per message
        (fewer when they are large: ``BATCH_BYTES``; from 1 to ``MAX_BATCH``, else INVALID_FIELD
        naming ``batch``, raised for the first answer): one answer per record, in order, as the
        REST client gives them. The stream has no deadline for its whole length but a bound on its progress: it is cancelled (``DEADLINE_EXCEEDED``)
        when a message sent waits ``timeout`` seconds for its answer. A record this client
        cannot put in a message is answered by its error in its place: ``INVALID_FIELD`` for JSON
        no record holds, ``PAYLOAD_TOO_LARGE`` for a record over the 1 MiB a message may be (which
        the server would refuse with its whole batch, or grpcio past 1.5 MiB, ending the stream).
        ``omit_events``: every result's ``events`` left empty, every other field as without it
        (each message's ``omit_events``, not set when false). ``request_id``: the stream's (each
        attempt's).

        ``records`` may come as slowly as they like (a live feed): they are read as they come, a
        batch not yet full is sent once they pause (``FLUSH_SECONDS``), so that each is answered
        soon after it comes, and once they pause ``PAUSE_SECONDS`` the stream ends, the next record
        opening another (the service ends a stream that sends nothing for 30 seconds: one that does
        so first is handled alike). A stream the service ends because its caller held an answer 30
        seconds (the client then takes no answers) is sent again from its first record not
        answered. They are read on a thread of the client's own; an error the iterable raises is
        raised here, after the answers of the records before it.
        ``same_thread=True`` reads them on the caller's thread instead, between answers, four
        batches ahead of them, for an iterable bound to its thread (a SQLite cursor, which raises
        its ProgrammingError on another): for an archive, not a live feed, since the answers wait
        while the client reads."""
        self._open()  # (before its records are read)
        metadata = _request_id(request_id)
        size = _batch(batch)

        def message(chunk: list[JSON]) -> tuple[list[JSON | None], naipes_pb2.ValidateHandsRequest]:
            """A batch's message, and the local error of each record (or None: sent)."""
            items: list[naipes_pb2.ValidateHandsRequest] = []
            layout: list[JSON | None] = []
            for record in chunk:
                try:
                    item = self._pb.ValidateHandsRequest(record=self._message(self._pb.HandRecord, record))
                    if item.ByteSize() > MAX_MESSAGE - 16:  # (with the batch's framing) the server would refuse its batch
                        raise NaipesError("PAYLOAD_TOO_LARGE", f"the record is larger than a message's {MAX_MESSAGE} bytes")
                    items.append(item)
                    layout.append(None)
                except Exception as exc:  # the codec's error, as the server would word it
                    layout.append({"error": {k: v for k, v in (("code", getattr(exc, "code", "INVALID_FIELD")),
                                                               ("field", getattr(exc, "field", None)),
                                                               ("message", getattr(exc, "message", str(exc)))) if v is not None}})
            request = self._pb.ValidateHandsRequest(batch=items)
            if omit_events:
                request.omit_events = True
            return layout, request

        def messages(stream: _Stream, progress: _Progress) -> Iterator[naipes_pb2.ValidateHandsRequest]:
            """One call's messages: those its stream starts with (sent before and not answered),
            then the records' as they come, until they end or pause long (``_Records.take``)."""
            for _layout, request in list(stream.pending):
                progress.sent()
                yield request
            while (request := source.take(stream)) is not None:
                progress.sent()
                yield request

        # A call refused with TOO_MANY_STREAMS is refused before its first answer: its messages
        # sent are sent first again on the next attempt. A call ends when the records pause long
        # (or the server ends it for a pause, with its REQUEST_TIMEOUT entry): the next record
        # opens another, which sends first what the last did not have answered.
        source = _Records(records, size, message, same_thread=same_thread)
        again: list[tuple[list[JSON | None], naipes_pb2.ValidateHandsRequest]] = []
        attempt = 0
        try:
            while again or source.more():
                stream, progress = _Stream(), _Progress(self.timeout)
                stream.pending.extend(again)
                source.pump()  # (same_thread: the first messages' records, read before the call takes them)
                self._open()  # (closed since the last stream)
                try:
                    call = self._stub.ValidateHands(messages(stream, progress), metadata=metadata)
                except ValueError:  # grpcio's "Cannot invoke RPC: Channel closed!": closed by another thread meanwhile
                    if self._closed:
                        raise _closed() from None
                    raise
                progress.watch(call.cancel)
                answered = failed = False
                try:
                    for data in _pumped(call, source, progress):
                        response = self._json(data, self._pb.ValidateHandsResponse)
                        if not response.get("batch") and response.get("error", {}).get("code") == "REQUEST_TIMEOUT":
                            failed = True  # the server ended the call for a pause: what it did not answer is sent again
                            continue
                        progress.answered()
                        answered = True
                        layout, _request = stream.pending.popleft()
                        answers: list[JSON] = response.get("batch", [])
                        if not answers and any(local is None for local in layout):
                            answers = [response] * len(layout)  # the message's error is each record's answer
                        sent = iter(answers)
                        progress.pause(True)
                        for local in layout:
                            yield local if local is not None else next(sent)
                        progress.pause(False)
                except self._grpc.RpcError as exc:
                    if progress.expired:
                        raise NaipesError("DEADLINE_EXCEEDED", f"no answer to the stream's messages within {self.timeout} s") from None
                    error = self._cut_short(exc)
                    if error.code == "DEADLINE_EXCEEDED":
                        # The call has no deadline: the server ended it, the caller having taken no
                        # answer for 30 s (the answers it had sent and the caller had not taken are
                        # lost): what it did not have answered is sent again.
                        failed = True
                    elif error.code != "TOO_MANY_STREAMS" or answered or attempt == STREAM_RETRIES:
                        raise error from None
                    else:
                        failed = True
                        time.sleep(1)
                finally:
                    progress.stop()
                    call.cancel()  # (nothing, once the call has ended; else the caller has let the answers go)
                    again = source.end(stream)
                # A call that ended without answering anything (refused, or ended by the server for a
                # pause before its first answer) is tried again, as often as a refused one.
                attempt = 0 if answered or not (failed or again) else attempt + 1
                if attempt > STREAM_RETRIES:
                    raise NaipesError("UNAVAILABLE", f"the stream ended {attempt} times running before answering its messages")
        finally:
            source.close()

    def close(self) -> None:
        """Closes the client's connections: every call after it, and one under way that it cancels,
        raises NaipesError UNAVAILABLE, "the client is closed" (not grpcio's ValueError)."""
        self._closed = True
        for channel in self._channels:
            channel.close()

    def __enter__(self) -> GrpcClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _pumped(answers: Iterable[bytes], source: _Records, progress: _Progress) -> Iterator[bytes]:
    """A stream's answers, the caller's records read before each is waited for (``same_thread``;
    the reading is the client's, not the server's: its progress clock stops meanwhile)."""
    waiting = iter(answers)
    while True:
        if source.same_thread:
            progress.pause(True)
            try:
                source.pump()
            finally:
                progress.pause(False)
        data = next(waiting, None)
        if data is None:
            return
        yield data


def _retry_delay(value: str | None) -> float:
    """The seconds a ``Retry-After`` says to wait: a number of them, or an HTTP date to wait until
    (RFC 9110, 10.2.3), from 0 to 60; 1 when there is none or it is neither."""
    if not value:
        return 1.0
    try:
        seconds = float(value)
    except ValueError:
        try:
            seconds = email.utils.parsedate_to_datetime(value).timestamp() - time.time()
        except (TypeError, ValueError, OverflowError):
            return 1.0
    return min(max(seconds, 0.0), 60.0) if math.isfinite(seconds) else 1.0


class _Deadline:
    """A REST call's deadline: its connection is shut down once ``seconds`` have passed, which ends
    the read waiting on it (a socket's timeout bounds each read, and an answer that comes a piece
    at a time within it could take any time in all). Watched by ``_WATCHDOG``; ``cancel()`` when
    the call is over."""

    def __init__(self, seconds: float) -> None:
        self.passed = self.done = False
        self._sock: socket.socket | None = None
        self._lock = threading.Lock()
        _WATCHDOG.watch(self, time.monotonic() + seconds)

    def pass_(self) -> None:
        with self._lock:
            if self.done:
                return
            self.passed = True
            if self._sock is not None:
                self._shut(self._sock)

    def connected(self, sock: socket.socket) -> None:
        with self._lock:
            self._sock = sock
            if self.passed:  # (while it connected)
                self._shut(sock)

    @staticmethod
    def _shut(sock: socket.socket) -> None:
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass  # (already closed)

    def cancel(self) -> None:
        """The call is over (the watchdog lets go of it when its time comes)."""
        with self._lock:
            self.done, self._sock = True, None


class _Watchdog:
    """One thread a process that passes each REST call's deadline when its time comes (a few
    microseconds a call; a ``threading.Timer`` a call cost about 250)."""

    def __init__(self) -> None:
        self.forked()

    def forked(self) -> None:
        """Start empty: at first, and in a forked child, whose thread would be its parent's (the
        child's starts with its first call)."""
        self._due: list[tuple[float, int, _Deadline]] = []  # a heap, the soonest first
        self._order = count()
        self._changed = threading.Condition()
        self._thread: threading.Thread | None = None

    def watch(self, deadline: _Deadline, when: float) -> None:
        with self._changed:
            heapq.heappush(self._due, (when, next(self._order), deadline))
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="naipes-client-deadlines", daemon=True)
                self._thread.start()
            elif self._due[0][2] is deadline:  # sooner than the one it waits for
                self._changed.notify()

    def _run(self) -> None:
        with self._changed:
            while True:
                now = time.monotonic()
                while self._due and (self._due[0][0] <= now or self._due[0][2].done):
                    heapq.heappop(self._due)[2].pass_()
                self._changed.wait(self._due[0][0] - now if self._due else None)


_WATCHDOG = _Watchdog()
os.register_at_fork(after_in_child=_WATCHDOG.forked)
_CALL = threading.local()  # .deadline: the deadline of the REST call this thread makes


class _WatchedHttp(http.client.HTTPConnection):
    def connect(self) -> None:
        super().connect()
        _CALL.deadline.connected(self.sock)


class _WatchedHttps(http.client.HTTPSConnection):
    def connect(self) -> None:
        super().connect()
        _CALL.deadline.connected(self.sock)


class _HttpHandler(urllib.request.HTTPHandler):
    def http_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(_WatchedHttp, req)


class _HttpsHandler(urllib.request.HTTPSHandler):
    def https_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(_WatchedHttps, req)  # (the default context, as urlopen's)


# urllib's opener (proxies, redirects) with the connections above: a unary REST call's.
_OPENER = urllib.request.build_opener(_HttpHandler, _HttpsHandler)


@contextmanager
def _rest_errors(base_url: str) -> Iterator[None]:
    """Every failure of a REST call as a NaipesError: the service's problem JSON with its code;
    ``HTTP_502`` (``HTTP_`` and the status) for an HTTP error without one (a proxy's page, say);
    ``DEADLINE_EXCEEDED`` when the server stays silent past the timeout; ``UNAVAILABLE`` when no
    answer can be had (refused, reset, cut short, not JSON)."""
    try:
        yield
    except urllib.error.HTTPError as exc:
        raise _http_error(exc) from None
    except (TimeoutError, urllib.error.URLError) as exc:
        reason = exc.reason if isinstance(exc, urllib.error.URLError) else exc
        if isinstance(reason, TimeoutError):
            raise NaipesError("DEADLINE_EXCEEDED", f"{base_url}: no answer within the timeout") from None
        raise NaipesError("UNAVAILABLE", f"{base_url}: {reason}") from None
    except (OSError, http.client.HTTPException, ValueError, EOFError, zlib.error) as exc:  # (json.JSONDecodeError is a ValueError; gzip's)
        raise NaipesError("UNAVAILABLE", f"{base_url}: no answer could be read: {type(exc).__name__}: {exc}") from None


def _http_error(exc: urllib.error.HTTPError) -> NaipesError:
    """The service's problem JSON as a NaipesError; ``HTTP_<status>`` for any other answer."""
    try:
        body = _answer_body(exc)
    except (OSError, EOFError, zlib.error):
        body = b""
    try:
        problem = json.loads(body)
    except ValueError:
        problem = None
    if not isinstance(problem, dict) or "code" not in problem:
        text = " ".join(body.decode("utf-8", "replace").split())[:200]
        return NaipesError(f"HTTP_{exc.code}", f"HTTP {exc.code} {exc.reason}" + (f": {text}" if text else ""), None, exc.code)
    error = NaipesError(problem["code"], problem.get("detail", str(exc)), problem.get("field"), exc.code)
    error.retry_after = exc.headers.get("Retry-After")
    return error


def _grpc_error(exc: grpc.RpcError) -> NaipesError:
    """The service's rich error (google.rpc.Status with ErrorInfo) as a NaipesError."""
    import grpc
    from google.rpc import error_details_pb2
    from grpc_status import rpc_status

    code, field, message = exc.code().name, None, exc.details() or ""
    # (grpcio raises each call's error as an RpcError that is also the grpc.Call, whose trailers hold the status)
    status = rpc_status.from_call(exc) if isinstance(exc, grpc.Call) else None
    if status is not None:
        for detail in status.details:
            info = error_details_pb2.ErrorInfo()
            if detail.Unpack(info):
                code = info.reason
                field = info.metadata.get("field", field)
    return NaipesError(code, message, field, exc.code())
