"""The streaming validator (``ValidateHands``): records in, results out, in order, on every core:
the process serving the stream moves the messages, a pool of processes validates them.

A stream's messages are validated in a pool of worker processes (``pool_size()``:
``NAIPES_STREAM_WORKERS``, else one per CPU the server process may use, its affinity and its
container's CPU quota counted), shared by every stream of the server process and started on the
first stream. The transports hand the pool wire items and get wire items back, so the server
process only moves bytes:

* gRPC: serialized ``ValidateHandsRequest`` in, serialized ``ValidateHandsResponse`` out
  (``validate_wire``);
* REST: lines of newline-delimited JSON in (a hand record, ``{"id": ..., "record": ...}`` or
  ``{"batch": [...]}``), lines of the response's JSON out (``validate_ndjson``).

A message carries one record or a ``batch`` of them (``answer``). Moving a message costs the
serving process the same whatever its size, so batches of records are what let the pool use
every core: one record per message, the serving process is the limit (bench/NOTES.md).

``pipelined`` keeps the answers in input order and bounds the work in flight: a thread reads the
input only while the messages read and not yet answered fit in a ``Window``, in number and in
bytes (backpressure on the client), and messages go to the pool in batches that grow when the pool is busy (few
round trips under load, no waiting for a batch to fill when the client is slow). A record that
is not well formed is answered with an ``error`` entry and the stream goes on.

A gRPC message whose batch is larger than ``PART_BYTES`` goes to the pool in parts (``Part``),
runs of its items cut from its wire bytes (``split``), so that one large message is validated on
every core rather than on one; their answers (``Piece``) are joined back into the message's answer,
the same bytes as the whole message's (``validate_wire``).
"""

from __future__ import annotations

import enum
import functools
import gc
import io
import logging
import multiprocessing
import os
import queue
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from typing import Any, NamedTuple, TypeVar

import orjson

from naipes.v1 import naipes_pb2 as pb
from service.codec import as_json, from_engine, plain, read_varint, request_json, to_engine, to_json, to_wire, wire_fields
from service.errors import MAX_REQUEST_BYTES, ServiceError, from_exception
from service.handlers import ANSWERS, WIRE_ANSWERS

log = logging.getLogger("naipes.stream")

R = TypeVar("R")
T = TypeVar("T")  # a stream's items: wire messages (bytes), or NDJSON lines (``Line``)

BATCH = 32  # messages per round trip to a worker, at most
# And at most this many bytes of them (unless one message is larger). Each round trip wakes the
# serving process's threads several times: with 64 KiB (two messages of 50 Revesino records) the
# serving process took 14 µs a record, with 256 KiB (nine) 10, and a 15,000-record stream went
# from 0.78 to 0.69 s on two cores (512 KiB: 0.68). The read-ahead of a stream is a few of these.
BATCH_BYTES = 256 * 1024
MAX_BATCH = 1000  # records in one message's batch, at most
# A gRPC message's batch larger than this goes to the pool in parts of about this size (``split``):
# whole, a message of 1,000 records was validated on one core, and a stream of them held one in its
# window. Parts of 64 KiB (about 125 Revesino records) left such streams 10-12% slower than batches
# of 50 records (about 26 KB), which are not cut; 16 and 32 KiB did not (bench/NOTES.md).
PART_BYTES = 32 * 1024
BATCHES_PER_WORKER = 2  # batches in flight per worker process: one running, one queued
Counting = Callable[["Answers"], None]  # counts a batch's records answered (its ``codes``, ``violations``: metrics, naipes audit)


# ---- one record (runs in the worker processes) -----------------------------------------------


def answer(request: pb.ValidateHandsRequest, unreadable: dict[int, dict[str, Any]] | None = None) -> pb.ValidateHandsResponse:
    """A message's answer (``answer_json``) as one message. An answer the schema cannot hold is
    an INTERNAL error: the record's, not its batch's."""
    return _message(answer_json(to_engine(request), unreadable))


def answer_bytes(request: dict[str, Any], first: int = 0, unreadable: dict[int, dict[str, Any]] | None = None) -> tuple[bytes, dict[str, Any]]:
    """The serialized answer to a message in its JSON form (``answer`` serialized), written by
    the codec straight from the answer's JSON (``to_wire``); and that answer's JSON (``first``
    and ``unreadable``: ``answer_json``'s)."""
    data = answer_json(request, unreadable, first=first, wire=True)
    try:
        return to_wire(data, pb.ValidateHandsResponse), data
    except Exception:  # an answer the schema cannot hold
        message = _message(plain(data))
        return message.SerializeToString(), to_json(message)


def _message(data: dict[str, Any]) -> pb.ValidateHandsResponse:
    try:
        return from_engine(data, pb.ValidateHandsResponse)
    except Exception:
        if "batch" not in data:
            return _response(data)
        return from_engine({**data, "batch": [to_json(_response(item)) for item in data["batch"]]}, pb.ValidateHandsResponse)


def answer_json(request: dict[str, Any], unreadable: dict[int, dict[str, Any]] | None = None, first: int = 0,
                wire: bool = False) -> dict[str, Any]:
    """A message's answer in its JSON form, from the message's (``to_engine``'s: the set fields
    only): its record's (what ValidateHand answers, or its error), or its batch's, one answer per
    item in order (``unreadable``: the error of each item that could not be read, by index;
    ``first``: the index of the first item in its message's batch, when the request is a ``Part``
    of it; ``wire``: for the codec, as ``handlers.WIRE_ANSWERS`` answers)."""
    items = request.get("batch")
    if not items:
        return entry(request, wire=wire)
    head: dict[str, Any] = {"id": request["id"]} if "id" in request else {}
    if "record" in request:
        return {**head, "error": problem(ServiceError(
            "INVALID_FIELD", "a message carries one record or a batch of records, not both", "batch"))}
    if len(items) > MAX_BATCH:
        return {**head, "error": problem(ServiceError(
            "PAYLOAD_TOO_LARGE", f"a batch holds at most {MAX_BATCH} records; this one has {len(items)}", "batch"))}
    unreadable = unreadable or {}
    omit = bool(request.get("omitEvents"))
    return {**head, "batch": [entry(item, first + i, omit, wire) if i not in unreadable else {**({"id": item["id"]} if "id" in item else {}), "error": unreadable[i]}
                              for i, item in enumerate(items)]}


def entry(request: dict[str, Any], index: int | None = None, omit_events: bool = False, wire: bool = False) -> dict[str, Any]:
    """One record's answer in its JSON form: ValidateHand's ``result`` or the ``error``
    ValidateHand would answer (one bad record must not end the stream), and the ``id``.
    ``index``: the item's place in its message's batch; ``omit_events``: its message's
    ``omitEvents`` (an item's own applies too); ``wire``: as ``answer_json``'s."""
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    try:
        if request.get("batch"):
            raise ServiceError("INVALID_FIELD", "an item of a batch carries one record, not a batch", f"batch[{index}].batch")
        if "record" not in request:
            raise ServiceError("MISSING_FIELD", "record is required", "record" if index is None else f"batch[{index}].record")
        result = (WIRE_ANSWERS if wire else ANSWERS)["ValidateHand"]({**request, "omitEvents": True} if omit_events else request)["result"]
    except Exception as exc:
        error = problem(exc)
    out: dict[str, Any] = {} if result is None else {"result": result}  # in the schema's order
    if "id" in request:
        out["id"] = request["id"]
    if error is not None:
        out["error"] = error
    return out


def problem(exc: BaseException) -> dict[str, Any]:
    """An exception as a Problem's JSON (an unexpected one is INTERNAL, and logged)."""
    error = from_exception(exc)
    if error.code == "INTERNAL":
        log.exception("ValidateHands: a record failed", exc_info=exc)
    return problem_json(error)


def problem_json(error: ServiceError) -> dict[str, Any]:
    return {key: value for key, value in (("code", error.code), ("field", error.field), ("message", error.message)) if value is not None}


def _response(data: dict[str, Any]) -> pb.ValidateHandsResponse:
    """One record's answer as a message; one the schema cannot hold is an INTERNAL error."""
    try:
        return from_engine(data, pb.ValidateHandsResponse)
    except Exception as exc:
        head = {"id": data["id"]} if "id" in data else {}
        return from_engine({**head, "error": problem(exc)}, pb.ValidateHandsResponse)


class Answers(list[Any]):
    """A batch's answers, as the pool sends them back (bytes, or a ``Piece`` for a ``Part``):
    with ``codes``, how many records they answer by code (``OK``, or the record's error's), and
    ``violations``, how many of the ``OK`` ones break a rule (``pipelined``'s ``count``: the
    metrics, ``naipes audit``). An item of a message's batch is a record; a message answered whole
    by an error counts one. A ``Piece`` is counted with its message, once joined
    (``validate_wire``)."""

    def __init__(self) -> None:
        super().__init__()
        self.codes: dict[str, int] = {}
        self.violations = 0
        self.lines: list[tuple[dict[str, int], int] | None] = []  # each answer's own counts (``prefix``); a ``Piece``'s None

    def add(self, answer: bytes, data: dict[str, Any]) -> None:
        """Appends ``answer``, whose JSON is ``data``."""
        self.append(answer)
        self.tally(data)

    def add_piece(self, piece: Piece) -> None:
        """Appends a ``Part``'s answer (counted with its message: ``validate_wire``)."""
        self.append(piece)
        self.lines.append(None)

    def tally(self, data: dict[str, Any]) -> None:
        """Counts the records of an answer whose JSON is ``data``."""
        line: dict[str, int] = {}
        violations = 0
        for item in data.get("batch") or (data,):
            code = item["error"]["code"] if "error" in item else "OK"
            line[code] = line.get(code, 0) + 1
            if code == "OK" and not item["result"].get("valid"):
                violations += 1
        self.lines.append((line, violations))
        self._count(line, violations)

    def prefix(self, count: int) -> Answers:
        """The counts of the first ``count`` answers alone (a stream that ended before the rest
        were sent: ``_pipelined``)."""
        out = Answers()
        for entry in self.lines[:count]:
            if entry is not None:
                out._count(*entry)
        return out

    def merge(self, other: Answers) -> None:
        """Adds ``other``'s counts to these."""
        self._count(other.codes, other.violations)

    def _count(self, codes: dict[str, int], violations: int) -> None:
        for code, records in codes.items():
            self.codes[code] = self.codes.get(code, 0) + records
        self.violations += violations


class Part(NamedTuple):
    """A run of the items of a large message's batch (``split``): their wire bytes, themselves a
    ``ValidateHandsRequest`` holding that batch, the index of the first in the message's, and
    the message's ``omit_events``."""

    first: int
    data: bytes
    omit_events: bool = False


class Piece(NamedTuple):
    """A ``Part``'s answer: the wire bytes of its items' answers (the ``batch`` entries of a
    ``ValidateHandsResponse``), with their ``Answers`` counts. ``data`` is None when the part
    could not be read (its message is then answered whole); ``whole`` when ``data`` is the
    message's own answer (INTERNAL: the part's worker failed)."""

    data: bytes | None
    counts: Answers
    whole: bool = False


def split(data: bytes, size: int = PART_BYTES) -> tuple[bytes, list[Part]] | None:
    """A gRPC message larger than ``size`` whose fields are its ``batch``'s items, at most one
    ``id`` (valid UTF-8) and ``omit_events``, as its batch cut in parts of about ``size`` bytes,
    and the head of its answer (the ``id`` field's bytes, the same in the response, or nothing):
    the answer is the head followed by the parts' answers (``Piece``). None for any other
    message, which goes whole (and is answered, or refused, as it is)."""
    n = len(data)
    if n <= size:
        return None
    head, parts, omit = b"", [], False
    start = first = items = pos = 0  # the current part's first byte and item; items so far
    while pos < n:
        at = pos
        tag, pos = read_varint(data, pos)
        if tag == 0x1A:  # field 3, an item of the batch
            length, pos = read_varint(data, pos)
            if length < 0 or pos + length > n:
                return None
            if pos + length - start > size and at > start:
                parts.append(Part(first, data[start:at]))
                start, first = at, items
            items += 1
            pos += length
            continue
        if tag == 0x12:  # field 2, the id: once, valid UTF-8, the head of the answer
            length, end = read_varint(data, pos)
            if head or length < 0 or end + length > n:
                return None
            try:
                data[end:end + length].decode()
            except UnicodeDecodeError:
                return None
            end += length
            head = data[at:end]
        elif tag == 0x20:  # field 4, omit_events, a varint: the last one counts, as protobuf reads it
            value, end = read_varint(data, pos)
            if value < 0:
                return None
            omit = value != 0
        else:
            return None
        # A field of the message itself, not of its items: left out of the parts.
        if at > start:
            parts.append(Part(first, data[start:at]))
        start, first, pos = end, items, end
    if start < n:
        parts.append(Part(first, data[start:]))
    if items > MAX_BATCH or len(parts) < 2:
        return None
    return head, [part._replace(omit_events=True) for part in parts] if omit else parts


def answer_part(part: Part) -> Piece:
    """A ``Part``'s answer (in the pool): its items' answers, numbered as in their message."""
    counts = Answers()
    unreadable = None
    try:
        request = request_json(part.data, pb.ValidateHandsRequest)
    except Exception:
        apart = read_apart(part.data, part.first)
        if apart is None:  # the message is answered whole, as it would have been unsplit
            return Piece(None, counts)
        request, unreadable = apart
    if part.omit_events:
        request["omitEvents"] = True
    data, answer = answer_bytes(request, part.first, unreadable)
    counts.tally(answer)
    return Piece(data, counts)


def read_apart(data: bytes, first: int = 0) -> tuple[dict[str, Any], dict[int, dict[str, Any]]] | None:
    """A gRPC stream message ``request_json`` refused, read as REST reads a line whose batch holds
    an item it cannot read: the message's JSON, each item read alone, with the error of each item
    that cannot be read by its index (in its JSON's stead, its id if protobuf reads one; an error of
    the item itself, ``body``, named as its place, ``batch[2]``, ``first`` the index of the first);
    None when the message holds no batch, or its own fields are at fault (the message's error)."""
    fields = wire_fields(data)
    if fields is None:
        return None
    items = [content for number, wire, content, _whole in fields if number == 3 and wire == 2]
    if not items:
        return None
    try:
        request = request_json(b"".join(whole for number, _wire, _content, whole in fields if number != 3), pb.ValidateHandsRequest)
    except Exception:
        return None
    batch: list[dict[str, Any]] = []
    unreadable: dict[int, dict[str, Any]] = {}
    for i, item in enumerate(items):
        try:
            batch.append(request_json(item, pb.ValidateHandsRequest))
        except ServiceError as error:
            where = f"batch[{first + i}]"
            if error.field == "body":
                error = ServiceError(error.code, error.message.replace("the message", where, 1), where)
            unreadable[i] = problem_json(error)
            batch.append(message_id(item))
    return {**request, "batch": batch}, unreadable


def message_id(data: bytes) -> dict[str, Any]:
    """``{"id": ...}`` of a gRPC stream message that holds an id, else empty: the message's error
    is answered under it. Protobuf reads it; from a message it refuses (a record's rules nested
    deeper than it follows), the id is read from the message's fields when they are well formed
    and it is there once, valid UTF-8."""
    try:
        message = pb.ValidateHandsRequest.FromString(data)
    except Exception:
        ids = [content for number, wire, content, _whole in wire_fields(data) or () if number == 2 and wire == 2]
        try:
            return {"id": ids[0].decode()} if len(ids) == 1 else {}
        except UnicodeDecodeError:
            return {}
    return {"id": message.id} if message.HasField("id") else {}


def answer_wire(batch: list[Line | Part]) -> Answers:
    """Serialized requests -> serialized responses (gRPC); ``Ending.TOO_LARGE`` stands for a
    message over the limit and ``Ending.TIMED_OUT`` for a stream's pause (``validate_wire``), and a
    ``Part``'s answer is a ``Piece``."""
    out = Answers()
    for data in batch:
        if isinstance(data, Part):
            out.add_piece(answer_part(data))
            continue
        try:
            if data is Ending.TOO_LARGE:
                raise ServiceError("PAYLOAD_TOO_LARGE", f"a message of the stream is larger than the {MAX_REQUEST_BYTES} bytes the service accepts")
            if data is Ending.TIMED_OUT:
                raise ServiceError("REQUEST_TIMEOUT", f"the stream sent nothing for {IDLE_SECONDS:g} seconds: the messages before are answered")
            assert isinstance(data, bytes)
            request = request_json(data, pb.ValidateHandsRequest)
        except Exception as exc:  # not a ValidateHandsRequest (or, unexpected, INTERNAL): the message's error
            apart = read_apart(data) if isinstance(data, bytes) and isinstance(exc, ServiceError) else None
            if apart is not None:  # (its batch's items that can be read are answered, as REST's)
                out.add(*answer_bytes(apart[0], unreadable=apart[1]))
                continue
            error = {**(message_id(data) if isinstance(data, bytes) else {}), "error": problem(exc)}
            out.add(from_engine(error, pb.ValidateHandsResponse).SerializeToString(), error)
            continue
        out.add(*answer_bytes(request))
    return out


_MESSAGE_KEYS = ("record", "batch", "id", "omitEvents")


def is_message(data: Any) -> bool:
    """Whether a line's JSON is a message of the stream (``{"id": ..., "record": {...}}``, or a
    batch) rather than a bare hand record, which names its game."""
    return isinstance(data, dict) and any(key in data for key in _MESSAGE_KEYS) and "game" not in data


def request_of_line(line: bytes) -> tuple[pb.ValidateHandsRequest, dict[int, dict[str, Any]]]:
    """A line of NDJSON as a request: ``{"id": ..., "record": {...}}``, ``{"id": ...,
    "batch": [...]}`` or a bare hand record; with the errors of the batch's items that could not
    be read, by index (an unreadable record spoils its own answer, not its batch's)."""
    from service.codec import from_json, json_kind, loads_marked, twice_at_top

    data = loads_marked(line, "the line")
    if not isinstance(data, dict):
        raise ServiceError("INVALID_FIELD", f"the line must be a JSON object, not {json_kind(data)}", "body")
    if not is_message(data) or twice_at_top(data):
        # A bare record, or a message giving a key of its own twice (which of two ids or records
        # would be a guess): a key given twice is the line's error.
        _raise_twice(data)
        return pb.ValidateHandsRequest(record=from_json(data, pb.HandRecord())), {}
    items = data.get("batch")
    if not isinstance(items, list) or not items:
        _raise_twice(data, whole=False)  # (answered under the line's id: line_id)
        return _item(data), {}
    _raise_twice({key: value for key, value in data.items() if key != "batch"})
    request = from_json({key: value for key, value in data.items() if key != "batch"}, pb.ValidateHandsRequest())
    unreadable: dict[int, dict[str, Any]] = {}
    for i, item in enumerate(items):  # (the line is at most MAX_REQUEST_BYTES long)
        try:
            _raise_twice(item, f"batch[{i}]", whole=False)
            part = _item(item, f"batch[{i}]")
        except ServiceError as error:
            known = isinstance(item, dict) and not twice_at_top(item) and isinstance(item.get("id"), str)
            part = pb.ValidateHandsRequest(id=item["id"]) if known else pb.ValidateHandsRequest()
            unreadable[i] = problem_json(error)
        request.batch.append(part)
    return request, unreadable


def _raise_twice(data: Any, where: str = "", whole: bool = True) -> None:
    """INVALID_FIELD raised for a key given twice in ``data``, a line's JSON or an item of its
    batch (``where``); with ``whole`` false, a message's: one within its record is named within
    the record (``seats``), as ValidateHand names it, and the message's own within the line
    (``batch[2].id``), as ``_item`` names the fields."""
    from service.codec import twice_at_top, twice_error

    record = data.get("record") if isinstance(data, dict) and not whole and not twice_at_top(data) else None
    error = twice_error(record, "the line") if isinstance(record, dict) else None
    if error is None:
        error = twice_error(data, "the line", where)
    if error is not None:
        raise error


def _item(data: Any, where: str = "") -> pb.ValidateHandsRequest:
    """A message of the stream, or an item of its batch, read from its JSON: a field of its record
    is named within the record (``deal.hands``), as ValidateHand names it and as the engine names
    the record's other errors; the message's own fields within the line (``batch[2].id``)."""
    from service.codec import from_json

    record = data.get("record") if isinstance(data, dict) else None
    if not isinstance(record, dict):
        return from_json(data, pb.ValidateHandsRequest(), where)
    request = from_json({key: value for key, value in data.items() if key != "record"}, pb.ValidateHandsRequest(), where)
    request.record.SetInParent()
    from_json(record, request.record)
    return request


def line_id(line: bytes) -> dict[str, Any]:
    """``{"id": ...}`` of a line whose request could not be read, when its JSON names one: a
    record's error is answered under its id (an empty dict when there is none to read). JSON
    orjson refuses and the standard library reads (a lone surrogate) is read as the line was."""
    from service.codec import is_utf8, loads_marked, twice_at_top, unique_keys

    try:
        data = orjson.loads(line)
    except orjson.JSONDecodeError:
        try:
            data = loads_marked(line, "the line")
        except ServiceError:
            return {}
        if twice_at_top(data):
            return {}  # (which of two ids would be a guess: a key of the line's own given twice)
    else:
        if not unique_keys(line) and twice_at_top(loads_marked(line, "the line")):
            return {}
    ident = data.get("id") if isinstance(data, dict) else None
    # (an id that is itself a lone surrogate is no id to answer under)
    return {"id": ident} if isinstance(ident, str) and is_utf8(ident) else {}


def line_json(line: bytes) -> dict[str, Any] | None:
    """``to_engine(request_of_line(line)[0])`` read straight by orjson and the codec when it
    vouches for the line (``codec.engine_request``), the items of a batch included; else None."""
    from service.codec import engine_request, unique_keys

    try:
        data = orjson.loads(line)
    except orjson.JSONDecodeError:
        return None
    if not unique_keys(line):
        return None  # (``codec.loads`` names the key given twice)
    if not is_message(data):
        data = {"record": data}  # a bare hand record: the request's record, set even when empty
    return engine_request(data, pb.ValidateHandsRequest)


def answer_ndjson(batch: list[Line], omit_events: bool = False) -> Answers:
    """Lines of NDJSON -> lines of the responses' JSON (REST), printed from the answers' JSON as
    REST's other answers are (service/handlers.py). ``omit_events``: each line read as if it said
    ``"omitEvents": true`` (unless it says ``omitEvents`` itself)."""
    from service.codec import dumps_bytes

    out = Answers()
    for line in batch:
        try:
            if line is Ending.TOO_LARGE:
                raise ServiceError("PAYLOAD_TOO_LARGE", f"a line of the body is longer than {MAX_REQUEST_BYTES} bytes")
            if line is Ending.TIMED_OUT:
                raise ServiceError("REQUEST_TIMEOUT", f"the body sent nothing for {IDLE_SECONDS:g} seconds: the lines before are answered")
            if line is Ending.BROKEN:
                raise ServiceError("MALFORMED_JSON", "the body could not be read to its end (a chunk of it is not HTTP's): "
                                   "the lines before are answered")
            if isinstance(line, ServiceError):
                raise line
            read = line_json(line)
            if read is None:
                request, unreadable = request_of_line(line)
                read = to_engine(request)
            else:
                unreadable = {}
            if omit_events:
                read.setdefault("omitEvents", True)
            answered = answer_json(read, unreadable)
            try:
                data = as_json(answered, pb.ValidateHandsResponse)
            except Exception:  # an answer the schema cannot hold: the record's INTERNAL error
                data = to_json(_message(answered))
        except Exception as exc:  # the line's error (INTERNAL if unexpected, and logged), not its batch's
            data = {**(line_id(line) if isinstance(line, bytes) else {}), "error": problem(exc)}
        out.add(dumps_bytes(data) + b"\n", data)
    return out


def _internal(batch: list[Any], answer: Callable[[dict[str, Any]], bytes]) -> Answers:
    """An INTERNAL error for each message of a batch whose work failed (for a ``Part``, its
    message's answer, counted once with the message: ``validate_wire``)."""
    error = {"error": problem_json(from_exception(RuntimeError()))}
    data, out = answer(error), Answers()
    for item in batch:
        if isinstance(item, Part):
            counts = Answers()
            counts.tally(error)
            out.add_piece(Piece(data, counts, whole=True))
        else:
            out.add(data, error)
    return out


def internal_wire(batch: list[Line | Part], _exc: BaseException) -> Answers:
    return _internal(batch, lambda error: from_engine(error, pb.ValidateHandsResponse).SerializeToString())


def internal_ndjson(batch: list[Line], _exc: BaseException) -> Answers:
    from service.codec import dumps_bytes

    return _internal(batch, lambda error: dumps_bytes(error) + b"\n")


# ---- the pool ------------------------------------------------------------------------------


def pool_size() -> int:
    """NAIPES_STREAM_WORKERS if set; else one process per CPU this process may use: the fewest of
    the machine's CPUs, its CPU affinity (``taskset``, a cpuset) and its cgroup's CPU bandwidth
    limit (a container's CPU limit, rounded up), as loky's ``cpu_count`` reads them (and
    ``LOKY_MAX_CPU_COUNT``, if set); ``os.cpu_count()`` sees only the machine's. The number of
    serving processes (``NAIPES_WORKERS``) does not size the pool: with records sent in batches
    the process serving the stream has little to do, and the pool takes every core the server is
    given (on 2 cores, batches of 50 Rentoy records: 22,700 records/s with two pool processes,
    14,400 with one, bench/NOTES.md; a 15,000-record Revesino stream on a one-worker server:
    1.1 s with two, 1.9 s with one). A pod with no CPU limit sees every core of its node: set
    NAIPES_STREAM_WORKERS there (deploy/k8s/naipes.yaml). ``naipes serve --pin-cpus`` counts them
    before it pins its processes, each to one CPU, and sets NAIPES_STREAM_WORKERS for them."""
    configured = os.environ.get("NAIPES_STREAM_WORKERS")
    if configured:
        return max(1, int(configured))
    from loky import cpu_count  # about 7 ms to import, paid when a pool starts

    return max(1, int(cpu_count()))


_pool: ProcessPoolExecutor | None = None
_pool_processes = 0  # _pool's size, as pool_size() gave it when the pool started
_pool_lock = threading.Lock()

# A pool's processes exit once no stream has used it for this long (NAIPES_POOL_IDLE, seconds; 0
# keeps them): every serving process keeps its own pool, one process per CPU, which on a machine
# with many cores is a lot of memory to hold after an audit. The next stream starts a fresh pool
# (0.13 s for two processes on the bench machine).
POOL_IDLE = 300.0
_streams = 0  # streams using the pool now
_last_used = 0.0  # time.monotonic() when the last of them ended
_idle_timer: threading.Timer | None = None  # one at a time, however many streams end
_idle_due = 0.0  # when it looks


# The garbage collector of a pool process: validating a batch makes tens of thousands of short-lived
# objects (states, events, dicts, messages), almost all freed by reference counting. With the
# default thresholds the collector ran every 700 of them and, every hundredth time, went through
# every object of the process, the schema and the engine's tables included. The pool freezes what
# exists after start (``gc.freeze``) and collects less often: 10-19% less time per record of a batch
# of 50 (Tresillo 158 -> 141 µs, Revesino 197 -> 160; bench/NOTES.md).
POOL_GC_THRESHOLD = (50_000, 20, 100)


def _start_worker(parent: int) -> None:
    """A pool process's start: import the engine and the schema once, tune the collector, and
    watch for the end of the process it serves (``parent``, its pid: the process may have been
    killed while this one started). Ctrl-C, which a terminal sends the whole process group, is
    left to the process it serves, which shuts the pool down: each pool process wrote a
    KeyboardInterrupt's traceback (``naipes audit`` interrupted)."""
    import signal

    import service.handlers  # noqa: F401
    from service import affinity

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    affinity.unpin_from_env()  # (started by a pinned serving process: naipes serve --pin-cpus)
    gc.freeze()
    gc.set_threshold(*POOL_GC_THRESHOLD)
    threading.Thread(target=_orphaned, args=(parent,), name="naipes-pool-parent", daemon=True).start()


# How often a pool process looks whether the process it serves is still there (seconds).
PARENT_CHECK = 1.0


def _orphaned(parent: int) -> None:
    """Exit once the serving process is gone. A serving process that stops shuts its pool down; one
    killed outright (SIGKILL, the kernel's OOM killer, gunicorn's timeout) cannot, and its pool's
    processes would wait for work forever: each holds both ends of the pool's call queue, so the
    queue never reports the other end closed. Orphaned, a process is given a new parent."""
    while os.getppid() == parent:
        time.sleep(PARENT_CHECK)
    os._exit(0)


def _warm() -> int:
    return os.getpid()


def pool() -> ProcessPoolExecutor:
    """The process pool of this server process, started on first use. Workers are spawned (a
    fresh interpreter, not a fork: the gRPC runtime's threads do not survive a fork)."""
    global _pool, _pool_processes, _last_used
    with _pool_lock:
        _last_used = time.monotonic()  # (not retired within pool_idle() of this)
        if _pool is None:
            size = _pool_processes = pool_size()
            _pool = ProcessPoolExecutor(max_workers=size, mp_context=multiprocessing.get_context("spawn"), initializer=_start_worker, initargs=(os.getpid(),))
            for done in [_pool.submit(_warm) for _ in range(size)]:
                done.result()
            log.info("validation pool: %d worker processes", size)
        return _pool


def pool_idle() -> float:
    """NAIPES_POOL_IDLE if set, else POOL_IDLE: seconds without a stream before the pool retires."""
    configured = os.environ.get("NAIPES_POOL_IDLE")
    return max(0.0, float(configured)) if configured else POOL_IDLE


@contextmanager
def _using_pool() -> Iterator[None]:
    """A stream uses the pool while in this block; when the last one leaves, the pool retires if
    no stream comes within ``pool_idle()`` seconds."""
    global _streams, _last_used
    with _pool_lock:
        _streams += 1  # (a pending look finds the pool in use)
    try:
        yield
    finally:
        with _pool_lock:
            _streams -= 1
            _last_used = time.monotonic()
            idle = pool_idle()
            if _streams == 0 and idle > 0 and (_idle_timer is None or _idle_due > _last_used + idle):
                _look_later(idle, idle)


def _look_later(delay: float, idle: float) -> None:
    global _idle_timer, _idle_due
    if _idle_timer is not None:
        _idle_timer.cancel()
    _idle_due = time.monotonic() + delay
    _idle_timer = threading.Timer(delay, _retire_if_idle, (idle,))
    _idle_timer.daemon = True
    _idle_timer.start()


def _retire_if_idle(idle: float) -> None:
    global _pool, _idle_timer
    with _pool_lock:
        if threading.current_thread() is not _idle_timer:
            return  # replaced by a sooner look while it waited for the lock
        _idle_timer = None
        if _pool is None or _streams:
            return  # none, or in use: the last stream to end looks again
        left = idle - (time.monotonic() - _last_used)
        if left > 0:  # used since this look was set
            _look_later(left, idle)
            return
        current, _pool = _pool, None
    log.info("validation pool: idle for %g s, its processes exit", idle)
    current.shutdown(wait=False)


def _discard_pool(broken: ProcessPoolExecutor) -> None:
    global _pool
    with _pool_lock:
        if _pool is broken:
            _pool = None
    broken.shutdown(wait=False, cancel_futures=True)


def shutdown_pool() -> None:
    global _pool
    with _pool_lock:
        current, _pool = _pool, None
    if current is not None:
        current.shutdown(wait=True, cancel_futures=True)


# ---- streams at a time -----------------------------------------------------------------------

STREAMS = 2  # streams one server process validates at a time, unless NAIPES_STREAMS says otherwise


class Slots:
    """The streams one server process validates at a time. A stream holds one of its transport's
    handler threads for its whole length (a gunicorn worker has 4, a gRPC process one per call):
    without a bound, a few long streams would take them all and leave none for the other calls,
    the health checks included, and a load balancer or an orchestrator would take the server for
    dead. A stream beyond the bound is refused at once (``TOO_MANY_STREAMS``, to retry later); one
    stream already keeps every process of the pool busy, so more at once would not validate more
    records a second."""

    def __init__(self, count: int) -> None:
        self.count = count
        self.taken = 0
        self._lock = threading.Lock()

    def take(self) -> Callable[[], None]:
        """Hold a slot, or raise ``TOO_MANY_STREAMS``; returns the slot's release (which may be
        called more than once: only the first call frees it)."""
        with self._lock:
            if self.taken >= self.count:
                raise ServiceError("TOO_MANY_STREAMS", f"this server process validates {self.count} stream(s) at a time and all "
                                   "are in progress; retry in a moment")
            self.taken += 1
        held = [True]

        def release() -> None:
            with self._lock:
                if held[0]:
                    held[0] = False
                    self.taken -= 1

        return release


_slots: Slots | None = None


def slots() -> Slots:
    """This process's stream slots: ``NAIPES_STREAMS`` if set, else ``STREAMS``."""
    global _slots
    with _pool_lock:
        if _slots is None:
            _slots = Slots(max(1, int(os.environ.get("NAIPES_STREAMS") or STREAMS)))
        return _slots


# ---- in order, bounded ---------------------------------------------------------------------

_ITEM, _DONE, _END, _FAILED = range(4)
_NO_ITEM = object()  # (the end of ``_pipelined``'s input)


class Ending(enum.Enum):
    """What ``read_lines`` yields in place of a line (and ``validate_wire`` in place of a gRPC
    message over the limit: ``TOO_LARGE``): no line or message a client sends (bytes) can equal
    one, and a member is itself again in a pool process (an enum pickles by name)."""

    TOO_LARGE = "a line over the limit"
    TIMED_OUT = "the body paused longer than the server waits (the last item)"
    BROKEN = "the body could not be read to its end (the last item)"


# An item of a REST stream (or of a gRPC one, on its way to the pool): a line, an ``Ending``, or the
# error that ended a body its reader could not read on (one in a content coding that cannot be
# decoded: ``service.codings``), the stream's last entry.
Line = bytes | Ending | ServiceError


def _size(item: object) -> int:
    """An item's bytes, as the window counts them (an ``Ending`` none)."""
    if isinstance(item, Part):
        return len(item.data)
    return len(item) if isinstance(item, bytes) else 0


def env_seconds(name: str, default: float) -> float:
    """A number of seconds from the environment variable ``name``, else ``default`` (unset, empty,
    or no number). Read as a module is imported, so that a process that does not serve what the
    setting is for (a gRPC server, a REST one) starts whatever it says: a bad value is refused where
    a server that uses it starts (``service.cli.REST_SETTINGS``: ``naipes serve``'s usage error,
    ``service.rest.create_app``'s ValueError)."""
    try:
        return float(os.environ.get(name) or default)
    except ValueError:
        return default


# How long a stream may pause, sending nothing while the server waits for its next line or message
# (0: no bound): REST's body between two reads (its socket's timeout, service/rest.py), a gRPC
# stream between two messages (``validate_wire``). A stream holds one of its process's few slots
# (``slots``), and two that sent nothing held every slot of a gRPC process for ever.
IDLE_SECONDS = env_seconds("NAIPES_STREAM_IDLE_SECONDS", 30.0)


class Paused(Exception):
    """``pipelined``'s input waited longer than its ``idle`` bound for its next item: every item
    read before it has been answered, and no more are read."""


def pipelined(items: Iterable[T], work: Callable[[list[T]], list[R]], on_failure: Callable[[list[T], BaseException], list[R]],
              executor: ProcessPoolExecutor | None = None, workers: int | None = None, batch: int = BATCH,
              count: Counting | None = None, idle: float | None = None) -> Iterator[R]:
    """``work`` over ``items`` in batches on the pool, answers in input order.

    At most a ``Window`` of items (as many as the batches in flight and one more hold, in number
    and in bytes) is read and not yet answered: the input is read by a thread that waits for room
    before each item, so a fast client is held back by TCP flow control rather than by the
    server's memory. A batch whose worker failed is answered by
    ``on_failure`` (an INTERNAL error per item) and a fresh pool takes over. ``count`` is given
    the ``codes`` of each batch's answers that are ``Answers`` (the metrics' records). ``idle``:
    how long the input may wait for its next item (seconds; None: for ever); once it has waited
    longer, the items read are answered and ``Paused`` is raised (the input's thread is left
    waiting: it ends when its input does, as a gRPC call's requests do once the call has ended).
    """
    with _using_pool():
        executor = executor or pool()
        workers = workers or (_pool_processes if executor is _pool else pool_size())
        yield from _pipelined(items, work, on_failure, executor, workers, batch, count, idle)


def _pipelined(items: Iterable[T], work: Callable[[list[T]], list[R]], on_failure: Callable[[list[T], BaseException], list[R]],
               executor: ProcessPoolExecutor, workers: int, batch: int, count: Counting | None = None,
               idle: float | None = None) -> Iterator[R]:
    max_batches = BATCHES_PER_WORKER * workers
    window = Window((max_batches + 1) * batch, (max_batches + 1) * BATCH_BYTES)
    events: queue.SimpleQueue[tuple[int, Any]] = queue.SimpleQueue()
    stop = threading.Event()
    waiting: list[float | None] = [None]  # since when the input has waited for its next item (time.monotonic)

    def feed() -> None:
        try:
            source = iter(items)
            while True:
                waiting[0] = time.monotonic()
                item = next(source, _NO_ITEM)
                waiting[0] = None
                if item is _NO_ITEM:
                    break
                if not window.take(_size(item), stop):
                    return
                events.put((_ITEM, item))
        except BaseException as exc:  # the input broke: the stream ends with its error
            events.put((_FAILED, exc))
        else:
            events.put((_END, None))

    def paused_for() -> float | None:
        """How much longer the input may wait before it has paused too long (None: no bound)."""
        if idle is None:
            return None
        since = waiting[0]
        return idle if since is None else idle - (time.monotonic() - since)

    def notify(_future: Future[list[R]]) -> None:
        events.put((_DONE, None))

    feeder = threading.Thread(target=feed, name="naipes-stream-input", daemon=True)
    feeder.start()
    pending: deque[tuple[Future[list[R]], list[T]]] = deque()
    buffer: list[T] = []
    ended = paused = False
    try:
        while True:
            while pending and pending[0][0].done():
                future, chunk = pending.popleft()
                try:
                    answers = future.result()
                except Exception as exc:
                    answers = on_failure(chunk, exc)
                    if not isinstance(exc, BrokenProcessPool):  # the work raised: the pool is sound
                        log.error("ValidateHands: a batch failed (%r); its records are answered INTERNAL", exc)
                    else:  # a worker died, or the pool was shut down
                        log.error("ValidateHands: a worker failed (%s); a fresh pool takes over", exc)
                        if executor is _pool:
                            _discard_pool(executor)
                            executor = pool()
                # Counted as they are given: a batch whole once its last answer has been, and,
                # when the stream ends before (its client gone, a compressed stream's bound),
                # the answers given (its records were counted as it came back, though never sent).
                given = 0
                try:
                    for item, out in zip(chunk, answers, strict=True):
                        given += 1  # (handed on: a stream closed while it waits here has given it)
                        yield out
                        window.give(_size(item))
                finally:
                    if count is not None and isinstance(answers, Answers):
                        count(answers if given == len(answers) else answers.prefix(given))
            if ended and not pending and not buffer:
                if paused:
                    raise Paused
                return
            while buffer and len(pending) < max_batches:
                n = _chunk_length(buffer, batch)
                chunk, buffer = buffer[:n], buffer[n:]
                try:
                    future = executor.submit(work, chunk)
                except RuntimeError as exc:  # the pool broke, or was shut down, between two batches
                    future = Future()
                    future.set_exception(exc if isinstance(exc, BrokenProcessPool) else BrokenProcessPool(str(exc)))
                future.add_done_callback(notify)
                pending.append((future, chunk))
            left = None if ended else paused_for()
            try:
                kind, value = events.get(timeout=None if left is None else max(left, 0.0))
            except queue.Empty:
                left = paused_for()
                if left is not None and left <= 0:
                    paused = ended = True
                continue
            while True:  # (once the input has paused too long, what it reads is not taken)
                if kind == _ITEM and not paused:
                    buffer.append(value)
                elif kind == _END:
                    ended = True
                elif kind == _FAILED and not paused:
                    raise value
                try:
                    kind, value = events.get_nowait()
                except queue.Empty:
                    break
    finally:
        stop.set()
        for future, _chunk in pending:
            future.cancel()


class Window:
    """How far the input may be read ahead of the answers taken: at most ``items`` items and
    ``size`` bytes of them (one item larger than that goes alone). Bytes bound the memory when
    messages carry batches of records: a window of messages alone let a 1 MiB message, and its
    answers, be held by the hundred."""

    def __init__(self, items: int, size: int) -> None:
        self.items, self.size = items, size
        self.held_items = self.held_bytes = 0
        self._changed = threading.Condition()

    def take(self, size: int, stop: threading.Event) -> bool:
        """Wait for room for an item of ``size`` bytes and hold it; False once ``stop`` is set."""
        with self._changed:
            while self.held_items and (self.held_items >= self.items or self.held_bytes + size > self.size):
                if stop.is_set():
                    return False
                self._changed.wait(0.25)
            if stop.is_set():
                return False
            self.held_items += 1
            self.held_bytes += size
            return True

    def give(self, size: int) -> None:
        """An item of ``size`` bytes is answered: its room is free."""
        with self._changed:
            self.held_items -= 1
            self.held_bytes -= size
            self._changed.notify()


def _chunk_length(buffer: list[T], batch: int) -> int:
    """How many of the buffered items go to a worker in one round trip: up to ``batch``, and no
    more than ``BATCH_BYTES`` of them (at least one), so that messages carrying batches of
    records are spread over the pool rather than sent to one worker by the dozen."""
    size, n = 0, 0
    for item in buffer[:batch]:
        size += _size(item)
        if n and size > BATCH_BYTES:
            break
        n += 1
    return n


def validate_wire(requests: Iterable[bytes], count: Counting | None = None) -> Iterator[bytes]:
    """gRPC: serialized requests in, serialized responses out, in order (``count``: ``pipelined``'s).
    A message over the limit (grpcio takes up to ``grpc_server.MESSAGE_CEILING``) is answered by
    its error in its place, and the stream goes on: ``Ending.TOO_LARGE`` goes to the pool in its
    stead, not its bytes. A large batch goes in parts (``split``), and its answer is its
    head followed by its pieces; when a part could not be read, the message is answered
    whole here, as it would have been unsplit (the error names its place in the whole batch). A
    stream that sends nothing for ``IDLE_SECONDS`` while the server waits for its next message
    ends, once every message before is answered, with a REQUEST_TIMEOUT entry, as REST's does."""
    plans: deque[tuple[bytes, bytes, int] | None] = deque()  # per message: None, or (it, its answer's head, its parts)

    def items() -> Iterator[Line | Part]:  # (in pipelined's input thread)
        for data in requests:
            if len(data) > MAX_REQUEST_BYTES:
                plans.append(None)
                yield Ending.TOO_LARGE
                continue
            cut = split(data)
            if cut is None:
                plans.append(None)
                yield data
                continue
            head, parts = cut
            plans.append((data, head, len(parts)))
            yield from parts

    try:
        yield from _joined(pipelined(items(), answer_wire, internal_wire, count=count, idle=IDLE_SECONDS or None), plans, count)
    except Paused:  # every message before the pause is answered; the stream ends with its entry
        ending = answer_wire([Ending.TIMED_OUT])
        if count is not None:
            count(ending)
        yield ending[0]


def _joined(answers: Iterable[bytes | Piece], plans: deque[tuple[bytes, bytes, int] | None], count: Counting | None) -> Iterator[bytes]:
    """``validate_wire``'s answers, each message's whole: a split batch's answer is its head and
    its pieces joined (``plans``: per message, None or (it, its answer's head, its parts))."""
    pieces: list[Piece] = []
    for answer in answers:
        if not isinstance(answer, Piece):
            plans.popleft()
            yield answer
            continue
        pieces.append(answer)
        plan = plans[0]
        assert plan is not None
        data, head, parts = plan
        if len(pieces) < parts:
            continue
        plans.popleft()
        counts = Answers()
        broken = next((piece for piece in pieces if piece.data is None or piece.whole), None)
        if broken is None:
            for piece in pieces:
                counts.merge(piece.counts)
            joined = head + b"".join(piece.data for piece in pieces if piece.data is not None)
        elif broken.data is not None:
            counts, joined = broken.counts, broken.data
        else:
            counts = answer_wire([data])
            joined = counts[0]
        pieces = []
        if count is not None:
            count(counts)
        yield joined


def validate_ndjson(lines: Iterable[Line], count: Counting | None = None, omit_events: bool = False) -> Iterator[bytes]:
    """REST: NDJSON lines in (``read_lines``', blank lines skipped there), response lines out, in
    order (``count``: ``pipelined``'s; ``omit_events``: ``answer_ndjson``'s, for ``naipes audit
    --omit-events``)."""
    work = functools.partial(answer_ndjson, omit_events=True) if omit_events else answer_ndjson
    return pipelined(lines, work, internal_ndjson, count=count)


# The buffer over a raw stream (``read_lines``). A raw stream's read that returns what has arrived
# (``service.rest_worker.ArrivedBody``, gunicorn's body) hands a line over as soon as it has come,
# whatever the buffer's size: ARRIVED_BUFFER then only sets how much one read takes (64 KiB, few
# reads of a bulk stream). One that waits to fill the buffer (werkzeug's development server's
# dechunked input) holds a line until READ_AHEAD more bytes of the body have come, or its end.
READ_AHEAD = 1024
ARRIVED_BUFFER = 64 * 1024


# A REST stream's blank lines (nothing but ASCII whitespace: NDJSON's keep-alives, a file's last
# newline, a blank line between records) may come to this many bytes more than its other lines
# (``read_lines``' ``blanks``), past which the stream ends. They are skipped and answer nothing, so
# nothing else bounds them: reading one costs about 0.15 us (154 ms a MiB of newlines), and
# compressed about a thousandfold (a MiB of gzip is a GiB of newlines) they would cost the serving
# thread 150 us of CPU a byte sent, a hundred seconds a MiB. Bound by the lines answered, they cost
# at most about what reading those lines costs (a line's answer, far more, the client must read),
# and 64 KiB more (10 ms): a keep-alive newline a second for 18 hours.
BLANK_BYTES = 64 << 10


# A compressed REST stream may have this many records answered, and RECORDS_PER_BYTE more a byte of
# its body as sent (compressed), past which the stream ends (``within_sent``). Each record answered
# costs the serving process and its pool some tens of microseconds, whatever its size: a line "x"
# answered by its MALFORMED_JSON entry about 40, and 32 KiB of gzip inflate to 8 million such lines,
# over five minutes of a stream slot and 1 GB of answers for 32 KiB sent. Real archives come to
# 0.016 records a byte gzip'd (distinct records) and 0.8 to 1.3 (one record over and over); a
# short record repeated comes to 4, a line of one character to 500. So an attacker's compressed byte
# costs the service no more than four times what a plain one costs (two 40 us records a byte, a
# plain line's two bytes 40 us), and sent plain, any archive passes.
RECORDS_ALLOWED = 10_000
RECORDS_PER_BYTE = 2


def within_sent(answers: Iterator[bytes], count: Any, sent: Callable[[], int]) -> Iterator[bytes]:
    """A compressed REST stream's ``answers`` (``validate_ndjson``'s), ended by a PAYLOAD_TOO_LARGE
    entry, the rest of the body unread, once the records answered (``count.records``: its
    ``Counting``, which the entry is counted by too) outnumber RECORDS_ALLOWED and RECORDS_PER_BYTE
    a byte of the body read (``sent()``: ``codings.Decoding.sent``)."""
    for line in answers:
        yield line
        read = sent()  # (once: the body is read on another thread meanwhile)
        if count.records > RECORDS_ALLOWED + RECORDS_PER_BYTE * read:
            close = getattr(answers, "close", None)  # (a generator's: the pool's pipeline stops reading the body)
            if close is not None:
                close()
            ending = answer_ndjson([ServiceError(
                "PAYLOAD_TOO_LARGE", f"the compressed body's records outnumber {RECORDS_ALLOWED:,} and {RECORDS_PER_BYTE} a byte "
                f"of it sent ({read:,} bytes): the stream ends here, the rest of the body unread (records repeated over "
                "and over compress past that: send them uncompressed)")])
            count(ending)
            yield from ending
            return


def read_lines(stream: Any, limit: int = MAX_REQUEST_BYTES, buffer: int = READ_AHEAD, skip: int | None = None,
               blanks: int | None = None) -> Iterator[Line]:
    """The lines of a request body, each at most ``limit`` bytes (a longer line is answered with
    PAYLOAD_TOO_LARGE: ``Ending.TOO_LARGE`` stands for it, as ``TIMED_OUT`` and ``BROKEN`` end a
    body that cannot be read to its end, after every complete line read before). A raw stream
    (gunicorn's body as it arrives, werkzeug's dechunked input, whose ``readline`` reads a byte at
    a time) is read through a buffer of ``buffer`` bytes: a line is yielded once the raw stream has
    returned its newline (the rest of the raw read waits in the buffer for the next lines). A
    ``ServiceError`` the stream raises (``service.codings.Decoding``'s, for a body that cannot be
    decoded) is its last item, after every complete line read before. ``skip``: how much of a line
    over the limit is read past it, at most, to find the next line (None: all of it); a line that
    runs on further ends the stream, its PAYLOAD_TOO_LARGE the last item (a decoded body's: what
    follows a long line is found only by inflating all of it, which the bytes sent do not bound).
    Blank lines are skipped; ``blanks``: how many bytes of them the body may hold beyond its
    other lines' bytes (None: any number), past which the stream ends, their PAYLOAD_TOO_LARGE the
    last item."""
    if isinstance(stream, io.RawIOBase):
        stream = io.BufferedReader(stream, buffer)
    blank = 0 if blanks is None else -blanks  # (the blank lines' bytes less the others' and the allowance)
    while True:
        try:
            line = stream.readline(limit + 2)  # (a line of ``limit`` bytes and its end, CRLF or LF)
        except Exception as exc:
            yield _ending(exc)
            return
        if not line:
            return
        if len(line) > limit and not line.endswith(b"\n"):
            ending = _skip_long_line(stream, limit, skip, len(line))
            yield ending
            if ending is not Ending.TOO_LARGE:
                return
            continue
        if len(line) > limit + 1 and not line.endswith(b"\r\n"):  # (read whole, one byte over: no skipping)
            yield Ending.TOO_LARGE
            continue
        if line.isspace():
            blank += len(line)
            if blanks is not None and blank > 0:
                yield ServiceError("PAYLOAD_TOO_LARGE", f"the body's blank lines come to more than {blanks} bytes beyond its "
                                   "other lines: the stream ends here, the rest of the body unread")
                return
            continue
        blank -= len(line)
        yield line


def _ending(exc: Exception) -> Ending | ServiceError:
    """The last item of a body whose read raised ``exc`` (``read_lines``)."""
    if isinstance(exc, TimeoutError):  # (the socket's timeout: IDLE_SECONDS)
        return Ending.TIMED_OUT
    if isinstance(exc, ServiceError):  # (a body that cannot be decoded: service.codings)
        return ServiceError(exc.code, f"{exc.message}: the lines before are answered", exc.field)
    return Ending.BROKEN  # a chunk the HTTP server cannot read (gunicorn's errors are not OSErrors), the client gone


def _skip_long_line(stream: Any, limit: int, skip: int | None, skipped: int) -> Ending | ServiceError:
    """Reads past the rest of a line over the limit (``skipped`` bytes of it read): its
    ``Ending.TOO_LARGE``, or what ends the stream: the PAYLOAD_TOO_LARGE of a line that runs on
    past ``skip`` bytes, or the body's ending, met within the line (``read_lines``)."""
    try:
        while True:
            rest = stream.readline(limit)
            if not rest or rest.endswith(b"\n"):
                return Ending.TOO_LARGE
            skipped += len(rest)
            if skip is not None and skipped > skip:
                return ServiceError("PAYLOAD_TOO_LARGE", f"a line of the body is longer than {limit} bytes and has not ended "
                                    f"within {skip} bytes: the stream ends here, the rest of the body unread")
    except Exception as exc:
        return _ending(exc)
