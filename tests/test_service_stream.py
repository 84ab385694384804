"""The streaming validator, ValidateHands, over both transports on real servers: one answer per
record, in input order, ids echoed, each answer what ValidateHand answers for the record (its
result, or its error as an ``error`` entry, after which the stream goes on), many records, and a
bounded number of records in flight."""

from __future__ import annotations

import gc
import http.client
import io
import itertools
import json
import os
import re
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from urllib.parse import urlparse

import grpc
import pytest
import requests
from google.protobuf import json_format
from service_support import (
    ROOT,
    alive,
    answerable_before,
    answered_while_sending,
    call_grpc,
    examples_dir,
    grpc_failure,
    load_example,
    rest_failure,
    varint,
)
from werkzeug.test import EnvironBuilder

from naipes.v1 import naipes_pb2 as pb
from naipes.v1 import naipes_pb2_grpc as pb_grpc
from service import handlers, stream
from service.codec import from_json, to_json
from service.errors import MAX_REQUEST_BYTES, ServiceError, from_exception
from service.openapi import CODED_BODY
from service.rest import create_app

NDJSON = "application/x-ndjson"


def example_records() -> list[dict]:
    """Every shared example record of every game (a game not served yet is an error entry), and
    every prefix of each: complete hands, hands in progress, some violations."""
    records = []
    for path in sorted(examples_dir().glob("*.json")):
        if path.name == "README.md":
            continue
        record, _ = load_example(path)
        actions = record.get("actions") or []
        records += [dict(record, actions=actions[:n]) for n in range(len(actions) + 1)]
    return records


RECORDS = example_records()
BAD = {"game": "rentoy", "seats": 4, "dealer": 0, "deal": {"hands": ["1o 2o 3o", "4o 5o 6o", "7o 10o 11o", "12o 1c 9c"], "stock": "2c"}}


def expected(record: dict) -> dict:
    """What ValidateHand answers for a record, as a ValidateHands answer's JSON."""
    try:
        message = from_json(record, pb.HandRecord())
        return {"result": to_json(handlers.validate_hand(pb.ValidateHandRequest(record=message)).result)}
    except Exception as exc:
        error = from_exception(exc)
        return {"error": {k: v for k, v in (("code", error.code), ("field", error.field), ("message", error.message)) if v is not None}}


def test_the_examples_cover_every_game_and_errors() -> None:
    answers = [expected(r) for r in RECORDS]
    assert len(RECORDS) > 200
    assert {a["result"]["game"] for a in answers if "result" in a} >= {"rentoy", "tresillo"}
    assert any("result" in a and not a["result"]["valid"] for a in answers)


# ---- gRPC ----------------------------------------------------------------------------------


def grpc_requests(records: list[dict], ids: bool = True) -> list[pb.ValidateHandsRequest]:
    out = []
    for i, record in enumerate(records):
        request = pb.ValidateHandsRequest(record=json_format.ParseDict(record, pb.HandRecord()))
        if ids:
            request.id = f"r{i}"
        out.append(request)
    return out


def test_grpc_stream_answers_every_record_in_order_as_validate_hand(stub) -> None:
    records = RECORDS
    requests_ = grpc_requests(records)
    answers = list(stub.ValidateHands(iter(requests_), timeout=60))
    assert [a.id for a in answers] == [r.id for r in requests_]
    for record, answer in zip(records, answers, strict=True):
        got = to_json(answer)
        got.pop("id")
        assert got == expected(record)


def test_grpc_stream_equals_validate_hand_over_the_wire(stub) -> None:
    records = RECORDS[::4]
    answers = list(stub.ValidateHands(iter(grpc_requests(records, ids=False)), timeout=60))
    assert len(answers) == len(records)
    for record, answer in zip(records, answers, strict=True):
        assert not answer.HasField("id")
        try:
            assert to_json(answer.result) == call_grpc(stub, "ValidateHand", {"record": record})
            assert not answer.HasField("error")
        except grpc.RpcError as exc:
            failure = grpc_failure(exc)
            assert (answer.error.code, answer.error.field or None) == (failure.code, failure.field)
            assert not answer.HasField("result")


def test_the_shared_handler_of_the_stream_answers_in_messages_what_grpc_answers(stub) -> None:
    """``handlers.HANDLERS["ValidateHands"]``, the stream in messages (the transports move its wire
    bytes through ``service.stream`` instead), answers a stream of records, a bad one and an empty
    message among them, with the messages the gRPC stream answers, one for each, in order; only
    its name in ``HANDLERS`` was checked."""
    requests_ = grpc_requests(RECORDS[:12]) + [pb.ValidateHandsRequest(id="bad", record=json_format.ParseDict(BAD, pb.HandRecord())),
                                               pb.ValidateHandsRequest(id="empty")]
    answers = list(handlers.HANDLERS["ValidateHands"](iter(requests_)))
    assert all(isinstance(a, pb.ValidateHandsResponse) for a in answers)
    assert answers == list(stub.ValidateHands(iter(requests_), timeout=60))
    assert [a.id for a in answers] == [r.id for r in requests_] and answers[-2].error.code == "UNKNOWN_CARD"


def test_grpc_a_bad_record_in_the_middle_is_an_error_entry_and_the_stream_goes_on(stub) -> None:
    good = RECORDS[:20]
    requests_ = grpc_requests(good[:10]) + [pb.ValidateHandsRequest(id="bad", record=json_format.ParseDict(BAD, pb.HandRecord())),
                                            pb.ValidateHandsRequest(id="empty")] + grpc_requests(good[10:])
    answers = list(stub.ValidateHands(iter(requests_), timeout=60))
    assert [a.id for a in answers] == [r.id for r in requests_]
    bad, empty = answers[10], answers[11]
    assert not bad.HasField("result") and bad.error.code == "UNKNOWN_CARD" and bad.error.field == "deal.hands[3]"
    assert "9c is not in the 40-card deck" in bad.error.message
    assert empty.error.code == "MISSING_FIELD" and empty.error.field == "record"
    assert all(a.HasField("result") == ("result" in expected(r)) for a, r in zip(answers[12:], good[10:], strict=True))


def test_grpc_a_batch_is_answered_by_a_batch_in_order_as_validate_hand(stub) -> None:
    """Messages carrying batches of records, between messages of one record: each batch is
    answered by one message whose batch holds each item's answer (id, result or error) in order."""
    records = RECORDS[:90]
    singles = grpc_requests(records)
    batches = [pb.ValidateHandsRequest(id="b0", batch=singles[:40]), singles[40],
               pb.ValidateHandsRequest(batch=grpc_requests(records[41:90], ids=False))]
    answers = list(stub.ValidateHands(iter(batches), timeout=60))
    assert len(answers) == 3
    first, single, last = answers
    assert first.id == "b0" and [a.id for a in first.batch] == [f"r{i}" for i in range(40)]
    assert single.id == "r40" and not single.batch and to_json(single) == {"id": "r40", **expected(records[40])}
    assert not last.HasField("id") and len(last.batch) == 49 and not any(a.HasField("id") for a in last.batch)
    for record, answer in zip(records[:40] + records[41:], [*first.batch, *last.batch], strict=True):
        got = to_json(answer)
        got.pop("id", None)
        assert got == expected(record)


def test_grpc_batch_errors_name_the_item_and_the_stream_goes_on(stub) -> None:
    good = grpc_requests(RECORDS[:3])
    bad = pb.ValidateHandsRequest(id="bad", record=json_format.ParseDict(BAD, pb.HandRecord()))
    requests_ = [
        pb.ValidateHandsRequest(id="mixed", batch=[good[0], pb.ValidateHandsRequest(id="no-record"), bad,
                                                   pb.ValidateHandsRequest(id="nested", batch=good[:1]), good[1]]),
        pb.ValidateHandsRequest(id="both", record=good[0].record, batch=good[:2]),
        pb.ValidateHandsRequest(id="huge", batch=[good[0]] * (stream.MAX_BATCH + 1)),
        good[2],
    ]
    mixed, both, huge, last = stub.ValidateHands(iter(requests_), timeout=60)
    assert to_json(mixed) == {"id": "mixed", "batch": [
        {"id": "r0", **expected(RECORDS[0])},
        {"id": "no-record", "error": {"code": "MISSING_FIELD", "field": "batch[1].record", "message": "record is required"}},
        {"id": "bad", "error": {"code": "UNKNOWN_CARD", "field": "deal.hands[3]", "message": "deal.hands[3]: 9c is not in the 40-card deck"}},
        {"id": "nested", "error": {"code": "INVALID_FIELD", "field": "batch[3].batch", "message": "an item of a batch carries one record, not a batch"}},
        {"id": "r1", **expected(RECORDS[1])}]}
    assert to_json(both) == {"id": "both", "error": {"code": "INVALID_FIELD", "field": "batch",
                                                     "message": "a message carries one record or a batch of records, not both"}}
    assert to_json(huge) == {"id": "huge", "error": {"code": "PAYLOAD_TOO_LARGE", "field": "batch",
                                                     "message": f"a batch holds at most {stream.MAX_BATCH} records; this one has {stream.MAX_BATCH + 1}"}}
    assert to_json(last) == {"id": "r2", **expected(RECORDS[2])}


def test_an_answer_the_schema_cannot_hold_is_that_records_internal_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """Schema drift in the engine is never printed or dropped silently: over gRPC and NDJSON the
    record whose answer does not fit is an INTERNAL error entry, its batch's other records are
    answered."""
    from engine import api

    real = api.validate
    monkeypatch.setattr(api, "validate", lambda record, events=True: {**real(record, events), "newField": 1} if record.get("dealer") == 1 else real(record, events))
    records = [r for r in RECORDS if r["game"] == "rentoy"]
    drifted = next(i for i, r in enumerate(records) if r.get("dealer") == 1)
    fine = next(i for i, r in enumerate(records) if r.get("dealer") != 1)
    batch = pb.ValidateHandsRequest(batch=grpc_requests([records[fine], records[drifted]]))
    answered = stream.answer(batch)
    assert answered.batch[0].HasField("result") and answered.batch[1].error.code == "INTERNAL"
    lines = stream.answer_ndjson(ndjson_lines([records[fine], records[drifted]]))
    assert "result" in json.loads(lines[0]) and json.loads(lines[1])["error"]["code"] == "INTERNAL"


def test_a_record_whose_answer_the_schema_cannot_hold_is_its_own_internal_error_under_its_id(monkeypatch: pytest.MonkeyPatch,
                                                                                             caplog: pytest.LogCaptureFixture) -> None:
    """A message of one record whose answer does not fit, or such an item of a batch, is answered
    INTERNAL under its id and logged with its traceback; the other messages of its round trip to
    the pool are answered as ever, not INTERNAL with it."""
    from engine import api

    real = api.validate
    monkeypatch.setattr(api, "validate", lambda record, events=True: {**real(record, events), "newField": 1} if record.get("dealer") == 1 else real(record, events))
    records = [r for r in RECORDS if r["game"] == "rentoy"]
    fine = next(r for r in records if r.get("dealer") != 1)
    drifted = next(r for r in records if r.get("dealer") == 1)
    ok = expected(fine)
    internal = {"code": "INTERNAL", "message": "internal error (ParseError); the request was not processed and the server goes on"}
    messages = [*grpc_requests([fine, drifted, fine]), pb.ValidateHandsRequest(id="b", batch=grpc_requests([fine, drifted]))]
    answers = stream.answer_wire([m.SerializeToString() for m in messages])  # one round trip
    assert [to_json(pb.ValidateHandsResponse.FromString(a)) for a in answers] == [
        {"id": "r0", **ok}, {"id": "r1", "error": internal}, {"id": "r2", **ok},
        {"id": "b", "batch": [{"id": "r0", **ok}, {"id": "r1", "error": internal}]}]
    assert answers.codes == {"OK": 3, "INTERNAL": 2}
    failed = [r for r in caplog.records if r.name == "naipes.stream"]
    assert [(r.getMessage(), r.exc_info is not None) for r in failed] == [("ValidateHands: a record failed", True)] * 2
    lines = stream.answer_ndjson(ndjson_lines([fine, drifted, fine], ids=True))
    assert [json.loads(line) for line in lines] == [{"id": "r0", **ok}, {"id": "r1", "error": internal}, {"id": "r2", **ok}]


def test_a_record_with_a_number_no_json_can_hold_is_its_own_error(stub, rest_url) -> None:
    """A record whose rules hold an infinite number (1e400 in JSON) is answered with its own error
    and id; the records around it, and a batch holding it, are answered as ever. It used to fail
    its whole batch, take the pool down with it and answer every record in flight INTERNAL."""
    bad = {"game": "rentoy", "seats": 4, "dealer": 0, "deal": {"seed": "a"}, "rules": {"ladder": "INF"}}
    good = ndjson_lines(RECORDS[:4], ids=True)
    line = json.dumps({"id": "inf", "record": bad}).replace('"INF"', "1e400").encode() + b"\n"
    batch = json.dumps({"id": "B", "batch": [{"id": "b0", "record": RECORDS[0]}, {"id": "b1", "record": bad}]}).replace('"INF"', "1e400")
    status, _kind, answers = post_stream(rest_url, [*good[:2], line, *good[2:], batch.encode() + b"\n"])
    assert status == 200 and len(answers) == 6
    error = {"code": "INVALID_OPTION_VALUE", "field": "rules.ladder", "message": answers[2]["error"]["message"]}
    assert answers[2] == {"id": "inf", "error": error}
    assert [a["result"] for a in answers[:2] + answers[3:5]] == [expected(r)["result"] for r in RECORDS[:4]]
    assert answers[5]["batch"][0]["result"] == expected(RECORDS[0])["result"] and answers[5]["batch"][1]["error"] == error
    record = json_format.ParseDict({**bad, "rules": {}}, pb.HandRecord())
    record.rules.fields["ladder"].number_value = float("inf")
    requests_ = grpc_requests(RECORDS[:2]) + [pb.ValidateHandsRequest(id="inf", record=record)] + grpc_requests(RECORDS[2:4])
    answered = list(stub.ValidateHands(iter(requests_), timeout=60))
    assert [a.id for a in answered] == [r.id for r in requests_]
    assert answered[2].error.code == "INVALID_OPTION_VALUE" and answered[2].error.field == "rules.ladder"
    assert all(a.HasField("result") == ("result" in expected(r)) for a, r in zip(answered[:2] + answered[3:], RECORDS[:4], strict=True))


def test_a_batch_whose_work_raises_is_answered_by_on_failure_and_the_pool_stays(monkeypatch: pytest.MonkeyPatch) -> None:
    """An exception out of a batch's work answers that batch's items with ``on_failure`` and keeps
    the pool, which other streams share; only a dead worker (a broken pool) makes a fresh one."""
    discarded: list[object] = []
    fresh = ThreadPoolExecutor(1)
    monkeypatch.setattr(stream, "_discard_pool", discarded.append)
    monkeypatch.setattr(stream, "pool", lambda: fresh)

    def work(chunk: list[bytes]) -> list[bytes]:
        if chunk == [b"boom"]:
            raise ValueError("boom")
        if chunk == [b"dead"]:
            raise BrokenProcessPool("a worker died")
        return [item.upper() for item in chunk]

    def failed(chunk: list[bytes], _exc: BaseException) -> list[bytes]:
        return [b"failed"] * len(chunk)

    shared = ThreadPoolExecutor(1)
    monkeypatch.setattr(stream, "_pool", shared)
    assert list(stream._pipelined(iter([b"a", b"boom", b"c"]), work, failed, shared, 1, 1)) == [b"A", b"failed", b"C"]
    assert discarded == []
    assert list(stream._pipelined(iter([b"a", b"dead", b"c"]), work, failed, shared, 1, 1)) == [b"A", b"failed", b"C"]
    assert discarded == [shared]
    shared.shutdown()
    fresh.shutdown()


def test_a_pool_whose_processes_are_killed_is_replaced_and_the_stream_goes_on() -> None:
    """A pool process killed outright (the kernel's OOM killer) breaks the pool: the message in
    its hands is answered INTERNAL, a fresh pool takes over, and the stream's next messages, and the
    next stream's, are answered as ever."""
    wire = [r.SerializeToString() for r in grpc_requests(RECORDS[:3])]
    want = [stream.answer_wire([item])[0] for item in wire]
    answered = threading.Semaphore(0)

    def one_at_a_time() -> Iterator[bytes]:
        for item in wire:
            yield item
            assert answered.acquire(timeout=60)
            if item is wire[0]:  # answered by the pool: kill its processes
                assert stream._pool is not None
                pids = [p.pid for p in stream._pool._processes.values()]  # type: ignore[attr-defined]
                for pid in pids:
                    os.kill(pid, signal.SIGKILL)
                deadline = time.monotonic() + 30
                while any(alive(pid) for pid in pids) and time.monotonic() < deadline:
                    time.sleep(0.05)

    answers = []
    for answer in stream.validate_wire(one_at_a_time()):
        answers.append(answer)
        answered.release()
    internal = {"error": {"code": "INTERNAL", "message": "internal error (RuntimeError); the request was not processed and the server goes on"}}
    assert answers[0] == want[0] and to_json(pb.ValidateHandsResponse.FromString(answers[1])) == internal and answers[2] == want[2]
    assert list(stream.validate_wire(iter(wire))) == want


def test_the_pool_takes_batches_in_round_trips_of_bounded_size() -> None:
    small, large = b"x" * 100, b"x" * (stream.BATCH_BYTES // 3 + 1)
    assert stream._chunk_length([small] * 100, stream.BATCH) == stream.BATCH
    assert stream._chunk_length([large] * 10, stream.BATCH) == 2
    assert stream._chunk_length([b"x" * (stream.BATCH_BYTES // 2)] * 3, stream.BATCH) == 2  # BATCH_BYTES exactly go together
    assert stream._chunk_length([b"x" * (2 * stream.BATCH_BYTES), small], stream.BATCH) == 1


def batch_wire(items: list[bytes], id_: bytes | None = b"big", id_at: int = 0) -> bytes:
    """A ValidateHandsRequest's wire bytes written by hand: its batch's items (each a serialized
    ValidateHandsRequest) and its id field among them at ``id_at``."""
    fields = [b"\x1a" + varint(len(item)) + item for item in items]
    if id_ is not None:
        fields.insert(id_at, b"\x12" + varint(len(id_)) + id_)
    return b"".join(fields)


LARGE_ITEMS = [r.SerializeToString() for r in grpc_requests(RECORDS)]  # 432 records, about 140 KB
A_PROBLEM = [pb.ValidateHandsRequest(id="no-record").SerializeToString(), grpc_requests([BAD])[0].SerializeToString(),
             pb.ValidateHandsRequest(id="nested", batch=grpc_requests(RECORDS[:1])).SerializeToString()]


def test_split_cuts_a_large_batch_into_runs_of_its_items() -> None:
    """A message larger than PART_BYTES holding a batch (and an id) is cut between its items, in
    parts of at most PART_BYTES (or one item), each numbered by its first item; the head of the
    answer is the id field, which the response spells the same."""
    for id_at in (0, 100, len(LARGE_ITEMS)):
        data = batch_wire(LARGE_ITEMS, id_at=id_at)
        head, parts = stream.split(data)
        assert head == b"\x12\x03big" and len(parts) >= len(data) // stream.PART_BYTES + 1
        assert 0 < id_at < len(LARGE_ITEMS) or all(len(a.data) + len(b.data) > stream.PART_BYTES for a, b in itertools.pairwise(parts))
        assert b"".join(part.data for part in parts) == batch_wire(LARGE_ITEMS, None)
        first = 0
        for part in parts:
            items = pb.ValidateHandsRequest.FromString(part.data).batch
            assert part.first == first and not pb.ValidateHandsRequest.FromString(part.data).HasField("id")
            assert len(part.data) <= stream.PART_BYTES or len(items) == 1
            first += len(items)
        assert first == len(LARGE_ITEMS) and (id_at in (0, len(LARGE_ITEMS)) or id_at in [part.first for part in parts])
    assert stream.split(batch_wire(LARGE_ITEMS, None))[0] == b""
    assert pb.ValidateHandsResponse(id="big").SerializeToString() == b"\x12\x03big"


@pytest.mark.parametrize("data", [
    batch_wire(LARGE_ITEMS[:50]),  # not larger than a part
    batch_wire(LARGE_ITEMS) + b"\x0a\x00",  # a record beside the batch
    batch_wire(LARGE_ITEMS) + b"\x12\x01x",  # two ids
    batch_wire(LARGE_ITEMS, b"\xff\xfe"),  # an id that is not UTF-8
    batch_wire(LARGE_ITEMS) + b"\x78\x01",  # an unknown field
    batch_wire(LARGE_ITEMS * 3),  # more items than a batch holds
    batch_wire(LARGE_ITEMS)[:-1],  # cut short
    batch_wire(LARGE_ITEMS) + b"\x1a\xff\xff\xff\xff\xff\x01",  # a length no message has
], ids=["small", "record", "two-ids", "not-utf8", "unknown", "too-many", "cut-short", "huge-length"])
def test_a_message_that_is_not_a_plain_large_batch_goes_whole(data: bytes) -> None:
    assert stream.split(data) is None


def counted(answers: list[stream.Answers]) -> tuple[dict[str, int], int]:
    codes: dict[str, int] = {}
    for a in answers:
        for code, n in a.codes.items():
            codes[code] = codes.get(code, 0) + n
    return {code: n for code, n in codes.items() if n}, sum(a.violations for a in answers)


@pytest.mark.parametrize("where", [0, 150, 431])
def test_a_large_batch_in_parts_is_answered_byte_for_byte_as_whole(where: int) -> None:
    """The answer of a batch validated in parts is the whole batch's answer, the same bytes: every
    item's, with its place in the whole batch in the fields of its error; counted the same."""
    items = LARGE_ITEMS[:where] + A_PROBLEM + LARGE_ITEMS[where:]
    messages = [LARGE_ITEMS[0], batch_wire(items, id_at=where // 2), batch_wire(items, None), LARGE_ITEMS[1]]
    assert all(stream.split(m) for m in messages[1:3])
    whole = [stream.answer_wire([m]) for m in messages]
    counts: list[stream.Answers] = []
    assert list(stream.validate_wire(iter(messages), counts.append)) == [a[0] for a in whole]
    assert counted(counts) == counted(whole)
    answer = pb.ValidateHandsResponse.FromString(whole[1][0])
    assert [(a.error.code, a.error.field) for a in answer.batch[where:where + 3]] == [
        ("MISSING_FIELD", f"batch[{where}].record"), ("UNKNOWN_CARD", "deal.hands[3]"), ("INVALID_FIELD", f"batch[{where + 2}].batch")]
    assert counted(whole[1:2])[0]["OK"] == len(LARGE_ITEMS)


@pytest.mark.parametrize("where", [10, 300])
def test_a_large_batch_with_an_unreadable_item_is_answered_item_by_item(where: int) -> None:
    """An item that cannot be read (a field its schema lacks) is its own entry's error, naming its
    place in the whole batch, and the batch's other items are answered, as REST answers such a line
    (docs/api.md), whether the batch goes to the pool in parts or whole; it counts once."""
    items = list(LARGE_ITEMS)
    items[where] += b"\x78\x01"  # an unknown field in one item
    data = batch_wire(items)
    assert stream.split(data)
    whole = stream.answer_wire([data])
    counts: list[stream.Answers] = []
    assert list(stream.validate_wire(iter([data]), counts.append)) == list(whole)
    assert counted(counts) == counted([whole])
    assert counted(counts)[0] == {"OK": len(items) - 1, "INVALID_FIELD": 1}
    answer = pb.ValidateHandsResponse.FromString(whole[0])
    assert len(answer.batch) == len(items) and answer.batch[where].error.field == f"batch[{where}]"
    assert all(entry.HasField("result") for i, entry in enumerate(answer.batch) if i != where)


def test_a_large_batch_goes_to_the_pool_in_several_round_trips(monkeypatch: pytest.MonkeyPatch) -> None:
    """One large message is spread over the pool's processes: its parts go in round trips of at most
    BATCH_BYTES, which the pool's processes take at once."""
    sizes: list[int] = []
    pipelined = stream._pipelined

    class Seen:
        def __init__(self, executor) -> None:  # type: ignore[no-untyped-def]
            self.executor = executor

        def submit(self, work, chunk):  # type: ignore[no-untyped-def]
            sizes.append(sum(stream._size(item) for item in chunk))
            return self.executor.submit(work, chunk)

    def spy(items, work, on_failure, executor, workers, batch, count=None, idle=None):  # type: ignore[no-untyped-def]
        return pipelined(items, work, on_failure, Seen(executor), workers, batch, count, idle)

    monkeypatch.setattr(stream, "_pipelined", spy)
    data = batch_wire(LARGE_ITEMS * 2)
    assert len(list(stream.validate_wire(iter([data])))) == 1
    assert len(sizes) >= len(data) // stream.BATCH_BYTES + 1 and max(sizes) <= stream.BATCH_BYTES


def test_a_large_batch_whose_worker_fails_is_one_internal_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """A part whose work fails answers its whole message INTERNAL, once, counted once; the next
    message is answered."""
    pipelined = stream._pipelined

    def failing(chunk):  # type: ignore[no-untyped-def]
        if any(isinstance(item, stream.Part) and item.first > 0 for item in chunk):
            raise ValueError("boom")
        return stream.answer_wire(chunk)

    threads = ThreadPoolExecutor(2)
    monkeypatch.setattr(stream, "_pipelined", lambda items, work, on_failure, executor, workers, batch, count=None, idle=None:
                        pipelined(items, failing, on_failure, threads, 2, 1, count, idle))
    counts: list[stream.Answers] = []
    answers = list(stream.validate_wire(iter([batch_wire(LARGE_ITEMS), LARGE_ITEMS[0]]), counts.append))
    threads.shutdown()
    assert len(answers) == 2
    assert to_json(pb.ValidateHandsResponse.FromString(answers[0]))["error"]["code"] == "INTERNAL"
    assert answers[1] == stream.answer_wire([LARGE_ITEMS[0]])[0]
    assert counted(counts)[0] == {"INTERNAL": 1, **counted([stream.answer_wire([LARGE_ITEMS[0]])])[0]}


def test_grpc_a_large_batch_is_answered_in_order_as_validate_hand(stub) -> None:
    """Over the real server: a message of 432 records between two small ones, answered in order,
    each record as ValidateHand answers it."""
    singles = grpc_requests(RECORDS)
    messages = [singles[0], pb.ValidateHandsRequest(id="all", batch=singles), singles[1]]
    assert stream.split(messages[1].SerializeToString())
    first, large, last = stub.ValidateHands(iter(messages), timeout=120)
    assert (first.id, last.id, large.id) == ("r0", "r1", "all")
    assert [a.id for a in large.batch] == [f"r{i}" for i in range(len(RECORDS))]
    for record, answer in zip(RECORDS, large.batch, strict=True):
        got = to_json(answer)
        got.pop("id")
        assert got == expected(record)


def test_grpc_empty_stream(stub) -> None:
    assert list(stub.ValidateHands(iter([]), timeout=10)) == []


def test_grpc_messages_as_large_as_the_limit_pass_the_stream_window(stub) -> None:
    """The server holds a stream's receive window at 1 MiB (``grpc_server.STREAM_WINDOW``):
    messages as large as the request limit still go through it, one after another."""
    from service.grpc_server import STREAM_WINDOW

    assert STREAM_WINDOW <= MAX_REQUEST_BYTES
    record = RECORDS[-1]
    message = pb.ValidateHandsRequest(id="", record=from_json(record, pb.HandRecord()))
    padding = MAX_REQUEST_BYTES - message.ByteSize() - 8
    messages = []
    for i in range(3):
        padded = pb.ValidateHandsRequest()
        padded.CopyFrom(message)
        padded.id = str(i) * padding
        assert MAX_REQUEST_BYTES - 8 <= padded.ByteSize() <= MAX_REQUEST_BYTES
        messages.append(padded)
    answers = list(stub.ValidateHands(iter(messages), timeout=60))
    assert [a.id for a in answers] == [m.id for m in messages]
    for answer in answers:
        answer.ClearField("id")
        assert to_json(answer) == expected(record)


def test_grpc_the_server_announces_the_stream_window_as_each_streams_receive_window(grpc_target) -> None:
    """The server tells a client it may send a stream ``STREAM_WINDOW`` (1 MiB) before the
    server reads it: the ``SETTINGS_INITIAL_WINDOW_SIZE`` of the SETTINGS frame it opens an HTTP/2
    connection with (bdp probing off, grpcio keeps it). The streams' tests above pass with any
    window, grpcio's default or a window of 0 too, so only the frame shows the bound the memory of
    a process's streams rests on (bench/NOTES.md)."""
    from service.grpc_server import STREAM_WINDOW

    assert STREAM_WINDOW == 1 << 20
    host, port = grpc_target.rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=10) as client:
        client.sendall(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + bytes([0, 0, 0, 4, 0, 0, 0, 0, 0]))  # the preface, empty SETTINGS
        received = b""
        while len(received) < 9 or len(received) < 9 + int.from_bytes(received[:3], "big"):
            chunk = client.recv(65536)
            assert chunk, received
            received += chunk
    length, kind, flags = int.from_bytes(received[:3], "big"), received[3], received[4]
    assert (kind, flags) == (4, 0)  # SETTINGS, not an ACK: the server's first frame
    payload = received[9:9 + length]
    settings = {int.from_bytes(payload[i:i + 2], "big"): int.from_bytes(payload[i + 2:i + 6], "big") for i in range(0, length, 6)}
    assert settings[4] == STREAM_WINDOW  # SETTINGS_INITIAL_WINDOW_SIZE


def test_grpc_a_message_over_the_limit_is_answered_in_its_place_and_the_stream_goes_on(stub) -> None:
    """A message over 1 MiB (and within grpcio's ``MESSAGE_CEILING``) is that message's
    PAYLOAD_TOO_LARGE entry, as an NDJSON line over the limit is; the messages after it are
    answered."""
    from service.errors import MAX_REQUEST_BYTES
    from service.grpc_server import MESSAGE_CEILING

    record = RECORDS[-1]
    message = pb.ValidateHandsRequest(id="small", record=from_json(record, pb.HandRecord()))
    large = pb.ValidateHandsRequest()
    large.CopyFrom(message)
    large.id = "x" * (MAX_REQUEST_BYTES + 10)
    assert MAX_REQUEST_BYTES < large.ByteSize() <= MESSAGE_CEILING
    answers = list(stub.ValidateHands(iter([message, large, message]), timeout=60))
    assert len(answers) == 3
    assert [a.id for a in answers] == ["small", "", "small"]
    assert to_json(answers[1]) == {"error": {"code": "PAYLOAD_TOO_LARGE",
                                             "message": f"a message of the stream is larger than the {MAX_REQUEST_BYTES} bytes the service accepts"}}
    for answer in (answers[0], answers[2]):
        answer.ClearField("id")
        assert to_json(answer) == expected(record)


def test_grpc_answers_come_while_the_client_is_still_sending(stub) -> None:
    """A client that waits for each answer before sending the next record gets it: nothing
    waits for a batch to fill."""
    sent: list[pb.ValidateHandsRequest] = []
    ready = threading.Semaphore(0)
    requests_ = grpc_requests(RECORDS[:12])

    def one_at_a_time() -> Iterator[pb.ValidateHandsRequest]:
        for request in requests_:
            sent.append(request)
            yield request
            assert ready.acquire(timeout=30)

    for i, answer in enumerate(stub.ValidateHands(one_at_a_time(), timeout=60)):
        assert answer.id == f"r{i}" and len(sent) == i + 1
        ready.release()


def test_the_pool_has_a_process_per_core_the_server_is_given(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every CPU the process may use (loky's count: affinity and cgroup CPU quota), whatever the
    number of serving processes; NAIPES_STREAM_WORKERS overrides it."""
    from loky import cpu_count

    monkeypatch.delenv("NAIPES_STREAM_WORKERS", raising=False)
    monkeypatch.delenv("LOKY_MAX_CPU_COUNT", raising=False)
    monkeypatch.delenv("NAIPES_WORKERS", raising=False)
    usable = stream.pool_size()
    assert usable == cpu_count() and 1 <= usable <= (os.cpu_count() or 1)
    assert usable <= len(os.sched_getaffinity(0))
    for workers in ("1", "2", "4"):
        monkeypatch.setenv("NAIPES_WORKERS", workers)
        assert stream.pool_size() == usable
    monkeypatch.setenv("NAIPES_STREAM_WORKERS", "3")
    assert stream.pool_size() == 3


def test_the_pool_takes_only_the_cpus_the_process_may_use() -> None:
    """A process pinned to one CPU (taskset, a cpuset) gets a pool of one, however many the
    machine has."""
    code = ("import os; os.sched_setaffinity(0, {min(os.sched_getaffinity(0))}); "
            "from service import stream; print(len(os.sched_getaffinity(0)), stream.pool_size())")
    env = {k: v for k, v in os.environ.items() if k not in ("NAIPES_STREAM_WORKERS", "LOKY_MAX_CPU_COUNT")}
    run = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env={**env, "NAIPES_WORKERS": "4"},
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["1", "1"], run.stdout


def test_the_pool_processes_freeze_their_start_and_collect_less_often() -> None:
    pool = stream.pool()
    assert pool.submit(gc.get_threshold).result(timeout=60) == stream.POOL_GC_THRESHOLD
    assert pool.submit(gc.get_freeze_count).result(timeout=60) > 10_000  # the schema, the engine, their imports


def test_an_idle_pool_retires_and_the_next_stream_starts_a_fresh_one(monkeypatch: pytest.MonkeyPatch) -> None:
    """Once no stream has used the pool for NAIPES_POOL_IDLE seconds its processes exit (every
    serving process keeps a pool of one process per CPU); a stream still open keeps it."""
    monkeypatch.setenv("NAIPES_POOL_IDLE", "0.5")
    deadline = time.monotonic() + 30
    while stream._streams and time.monotonic() < deadline:  # a stream of an earlier test still ending (the servers are shared)
        gc.collect()  # (or a stream's generator abandoned in a reference cycle: it ends when collected)
        time.sleep(0.05)
    assert not stream._streams, f"streams of earlier tests still open: {stream._streams}"
    wire = [r.SerializeToString() for r in grpc_requests(RECORDS[:4])]
    assert len(list(stream.validate_wire(iter(wire)))) == len(wire)  # a look is due while the next stream is open
    answers = stream.validate_wire(iter(wire))
    first = [next(answers)]  # the stream is open: its pool must stay
    pool = stream._pool
    assert pool is not None
    processes = list(pool._processes.values())  # type: ignore[attr-defined]
    time.sleep(1.5)
    assert stream._pool is pool and all(alive(p.pid) for p in processes)
    first += list(answers)
    assert len(first) == len(wire)
    deadline = time.monotonic() + 30
    while stream._pool is not None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert stream._pool is None, (f"streams open: {stream._streams}; look due in {stream._idle_due - time.monotonic():.1f} s"
                                  if stream._idle_timer is not None else f"streams open: {stream._streams}; no look set")
    while any(alive(p.pid) for p in processes) and time.monotonic() < deadline:  # (the pool reaps them)
        time.sleep(0.05)
    assert not any(alive(p.pid) for p in processes)
    for _ in range(10):  # a fresh pool, the same answers
        assert list(stream.validate_wire(iter(wire))) == first
    assert sum(isinstance(t, threading.Timer) for t in threading.enumerate()) == 1  # one look, not one a stream
    fresh = stream._pool
    assert fresh is not None and fresh is not pool
    while stream._pool is fresh and time.monotonic() < deadline:  # no retirement left pending
        time.sleep(0.05)
    assert stream._pool is None


def test_the_idle_time_counts_from_the_last_stream_s_end(monkeypatch: pytest.MonkeyPatch) -> None:
    """A stream that starts while a look is due and ends before it keeps the pool for the whole
    idle time after its end, not after its start."""
    idle = 4.0
    monkeypatch.setenv("NAIPES_POOL_IDLE", f"{idle:g}")
    deadline = time.monotonic() + 30
    while stream._streams and time.monotonic() < deadline:  # (as in the test above)
        gc.collect()
        time.sleep(0.05)
    assert not stream._streams, f"streams of earlier tests still open: {stream._streams}"
    wire = [r.SerializeToString() for r in grpc_requests(RECORDS[:4])]
    assert len(list(stream.validate_wire(iter(wire)))) == len(wire)  # a look is due `idle` after its end
    answers = stream.validate_wire(iter(wire))
    first = next(answers)
    pool = stream._pool
    time.sleep(idle / 2)
    assert [first, *answers] == list(stream.answer_wire(wire))  # the stream ends `idle / 2` after it started
    time.sleep(idle * 3 / 4)  # more than `idle` since the first stream's end and this one's start
    assert stream._pool is pool
    deadline = time.monotonic() + 30
    while stream._pool is pool and time.monotonic() < deadline:  # no retirement left pending
        time.sleep(0.05)
    assert stream._pool is None


def test_the_pool_idle_time_is_set_by_naipes_pool_idle(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NAIPES_POOL_IDLE", raising=False)
    assert stream.pool_idle() == stream.POOL_IDLE == 300
    monkeypatch.setenv("NAIPES_POOL_IDLE", "0")
    assert stream.pool_idle() == 0  # kept for good
    monkeypatch.setenv("NAIPES_POOL_IDLE", "42.5")
    assert stream.pool_idle() == 42.5


def read_ahead(wire: list[bytes], workers: int) -> Iterator[tuple[bytes, int]]:
    """Each answer of a pipelined stream of ``wire``, with how many messages had been read and
    not yet answered when it came; checks at the end that every message was read and answered."""
    read = taken = 0

    def source() -> Iterator[bytes]:
        nonlocal read
        for item in wire:
            read += 1
            yield item

    for answer in stream.pipelined(source(), stream.answer_wire, stream.internal_wire, workers=workers):
        taken += 1
        yield answer, read - taken
    assert taken == read == len(wire)


def test_the_pipeline_bounds_the_records_in_flight() -> None:
    """However fast the input, at most `window` records are read ahead of the answers taken."""
    workers = 2
    window = (stream.BATCHES_PER_WORKER * workers + 1) * stream.BATCH
    wire = [r.SerializeToString() for r in grpc_requests(RECORDS[:40])] * 20
    answered = 0
    for _answer, ahead in read_ahead(wire, workers):
        answered += 1
        assert ahead <= window
    assert answered == len(wire)


def test_the_pipeline_bounds_the_bytes_in_flight() -> None:
    """Messages carrying batches of records are held back by their size, not only their number:
    at most as many bytes as the batches in flight and one more hold are read ahead of the
    answers taken, whatever the messages' count allows."""
    workers = 2
    window_bytes = (stream.BATCHES_PER_WORKER * workers + 1) * stream.BATCH_BYTES
    batch = pb.ValidateHandsRequest(batch=list(grpc_requests(RECORDS[:40])) * 25).SerializeToString()
    assert len(batch) * 8 > window_bytes  # a few such messages fill the window
    wire = [batch] * 12
    most, answered = 0, 0
    for answer, ahead in read_ahead(wire, workers):
        assert len(pb.ValidateHandsResponse.FromString(answer).batch) == 1000
        answered += 1
        most = max(most, ahead)
        assert ahead * len(batch) <= window_bytes
    assert answered == len(wire)
    assert most >= 2  # the pipeline still reads ahead


def test_a_stream_whose_answers_stop_being_taken_stops_reading_its_input() -> None:
    """A stream closed before its end (the client gone, the call cancelled) stops its input thread:
    it has read no more than the window holds and one more, not the rest of the client's messages."""
    workers = 2
    window = (stream.BATCHES_PER_WORKER * workers + 1) * stream.BATCH
    wire = [r.SerializeToString() for r in grpc_requests(RECORDS[:40])] * 20
    read = 0

    def source() -> Iterator[bytes]:
        nonlocal read
        for item in wire:
            read += 1
            yield item

    answers = stream.pipelined(source(), stream.answer_wire, stream.internal_wire, workers=workers)
    next(answers)
    answers.close()
    for thread in [t for t in threading.enumerate() if t.name == "naipes-stream-input"]:
        thread.join(30)
        assert not thread.is_alive()
    assert len(wire) > window + 1 and read <= window + 1


def test_a_message_larger_than_the_window_goes_alone() -> None:
    window = stream.Window(items=10, size=100)
    stop = threading.Event()
    assert window.take(500, stop)  # nothing held: it goes alone
    taken = threading.Event()
    thread = threading.Thread(target=lambda: window.take(1, stop) and taken.set())
    thread.start()
    assert not taken.wait(0.3)  # over the size while the large one is held
    window.give(500)
    assert taken.wait(5)
    thread.join()
    assert (window.held_items, window.held_bytes) == (1, 1)


def test_items_that_fill_the_window_exactly_are_held_together() -> None:
    window = stream.Window(items=2, size=100)
    stop = threading.Event()
    assert window.take(60, stop)
    with ThreadPoolExecutor(2) as threads:
        second = threads.submit(window.take, 40, stop)
        try:
            assert second.result(timeout=10)  # the size, not over it
            third = threads.submit(window.take, 0, stop)
            assert not third.done() and (window.held_items, window.held_bytes) == (2, 100)  # two items: the window is full
        finally:
            stop.set()
        assert third.result(timeout=10) is False


# ---- REST ----------------------------------------------------------------------------------


def ndjson_lines(records: Iterable[dict], ids: bool = False) -> list[bytes]:
    return [(json.dumps({"id": f"r{i}", "record": r} if ids else r) + "\n").encode() for i, r in enumerate(records)]


def post_stream(base: str, lines: Iterable[bytes], content_type: str = NDJSON) -> tuple[int, str, list[dict]]:
    """POST a chunked NDJSON body while reading the streamed answer (full duplex, as curl does):
    status, content type, and the answer's lines as JSON."""
    url = urlparse(base)
    sock = socket.create_connection((url.hostname, url.port), timeout=60)
    head = (f"POST /v1/hands:validateStream HTTP/1.1\r\nHost: {url.netloc}\r\nContent-Type: {content_type}\r\n"
            "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n").encode()
    sock.sendall(head)

    def send() -> None:
        try:
            for line in lines:
                sock.sendall(b"%x\r\n%s\r\n" % (len(line), line))
            sock.sendall(b"0\r\n\r\n")
        except OSError:
            pass  # the server answered early (an error) and closed

    sender = threading.Thread(target=send, daemon=True)
    sender.start()
    response = http.client.HTTPResponse(sock)
    try:
        response.begin()
        body = response.read().decode()
    finally:
        response.close()
        sock.close()
    sender.join(timeout=30)
    return response.status, response.getheader("Content-Type") or "", [json.loads(line) for line in body.splitlines()]


def test_rest_stream_answers_every_record_in_order_as_validate_hand(rest_url) -> None:
    records = RECORDS
    status, kind, answers = post_stream(rest_url, ndjson_lines(records, ids=True))
    assert status == 200 and kind.startswith(NDJSON)
    assert [a.get("id") for a in answers] == [f"r{i}" for i in range(len(records))]
    for record, answer in zip(records, answers, strict=True):
        answer.pop("id")
        assert answer == expected(record)


def test_rest_stream_equals_validate_hand_over_the_wire(rest_url, http: requests.Session) -> None:
    records = RECORDS[::4]
    answer = http.post(rest_url + "/v1/hands:validateStream", data=b"".join(ndjson_lines(records)),
                       headers={"Content-Type": NDJSON}, timeout=60)
    assert answer.status_code == 200 and answer.headers["Content-Type"].startswith(NDJSON)
    lines = [json.loads(line) for line in answer.text.splitlines()]
    assert len(lines) == len(records)
    for record, line in zip(records, lines, strict=True):
        single = http.post(rest_url + "/v1/hands:validate", json=record, timeout=30)
        if single.status_code == 200:
            assert line == {"result": single.json()}
        else:
            problem = single.json()
            assert line == {"error": {"code": problem["code"], **({"field": problem["field"]} if "field" in problem else {}),
                                      "message": problem["detail"]}}


def test_rest_bad_lines_are_error_entries_and_the_stream_goes_on(rest_url) -> None:
    good = ndjson_lines(RECORDS[:6])
    lines = [*good[:3], b"{not json\n", b"\n", b"   \n", json.dumps({"id": "bad", "record": BAD}).encode() + b"\n",
             b"[1, 2]\n", json.dumps({"id": "x", "record": RECORDS[0], "extra": 1}).encode() + b"\n", *good[3:], b"[" * 100_000 + b"\n"]
    status, _kind, answers = post_stream(rest_url, lines)
    assert status == 200
    assert len(answers) == 11  # blank lines are skipped
    assert answers[10]["error"]["code"] == "MALFORMED_JSON"  # nested deeper than the parser follows
    assert [a["result"] for a in answers[:3]] == [expected(r)["result"] for r in RECORDS[:3]]
    assert answers[3]["error"]["code"] == "MALFORMED_JSON" and "id" not in answers[3]
    assert answers[4] == {"id": "bad", "error": {"code": "UNKNOWN_CARD", "field": "deal.hands[3]",
                                                 "message": "deal.hands[3]: 9c is not in the 40-card deck"}}
    assert answers[5]["error"]["code"] == "INVALID_FIELD" and answers[5]["error"]["field"] == "body"
    assert answers[6]["error"] == {"code": "INVALID_FIELD", "field": "extra", "message": answers[6]["error"]["message"]}
    assert [a["result"] for a in answers[7:10]] == [expected(r)["result"] for r in RECORDS[3:6]]


def test_rest_a_body_of_known_length_past_the_request_limit_is_read_whole(rest_url, http: requests.Session) -> None:
    """A stream's body has no limit (each line has one), whether chunked or, as here, of known
    length past a request's limit under a server that does not end the body itself (werkzeug's,
    for a body of known length): it is read whole, not refused PAYLOAD_TOO_LARGE."""
    lines, size = [], 0
    for i in itertools.cycle(range(len(RECORDS))):
        lines.append(i)
        size += len(ndjson_lines(RECORDS[i:i + 1])[0])
        if size > MAX_REQUEST_BYTES:
            break
    body = b"".join(ndjson_lines(RECORDS[i] for i in lines))
    answer = http.post(rest_url + "/v1/hands:validateStream", data=body, headers={"Content-Type": NDJSON}, timeout=60)
    assert answer.status_code == 200, answer.text
    answers = [expected(r) for r in RECORDS]
    assert [json.loads(line) for line in answer.text.splitlines()] == [answers[i] for i in lines]


def test_rest_blank_lines_are_skipped_up_to_64_kib_beyond_the_other_lines(rest_url, http: requests.Session) -> None:
    """Blank lines (white space only, CRLF or LF) answer nothing: a stream may hold as many bytes of
    them as of its other lines and 64 KiB more (``stream.BLANK_BYTES``), a blank line between
    every two records say, or keep-alive newlines; past that the stream ends with their
    PAYLOAD_TOO_LARGE entry, the rest of the body unread (the record after them is not answered)."""
    good = ndjson_lines(RECORDS[:4])
    spaced = [part for line in good for part in (line, b"\r\n", b" " * (len(line) - 3) + b"\n")]  # (as many bytes as the records)
    allowance = [b"\n"] * stream.BLANK_BYTES
    status, _kind, answers = post_stream(rest_url, [*spaced, *allowance, good[0]])
    assert status == 200
    assert answers == [expected(r) for r in [*RECORDS[:4], RECORDS[0]]]
    status, _kind, answers = post_stream(rest_url, [*spaced, *allowance, b"\t\n", good[0]])
    assert status == 200
    assert answers == [*(expected(r) for r in RECORDS[:4]),
                       {"error": {"code": "PAYLOAD_TOO_LARGE", "message": f"the body's blank lines come to more than {stream.BLANK_BYTES} "
                                  "bytes beyond its other lines: the stream ends here, the rest of the body unread"}}]


def test_rest_a_line_is_never_taken_for_the_server_s_own_ending(rest_url, http: requests.Session) -> None:
    """What stands for a line over the limit, a body that paused too long or one that broke is no
    line a client can send: a last line (no newline) of exactly the bytes that stood for them was
    answered PAYLOAD_TOO_LARGE, REQUEST_TIMEOUT or MALFORMED_JSON 'could not be read to its end'."""
    good = ndjson_lines(RECORDS[:1])[0]
    for line in (b"\x00line too large", b"\x00body timed out", b"\x00body broken"):
        answer = http.post(rest_url + "/v1/hands:validateStream", data=good + line, headers={"Content-Type": NDJSON}, timeout=60)
        entries = [json.loads(text) for text in answer.text.splitlines()]
        assert entries[0] == expected(RECORDS[0])
        assert entries[1]["error"]["code"] == "MALFORMED_JSON" and "is not valid JSON" in entries[1]["error"]["message"], entries[1]
    assert [item is stream.Ending.TOO_LARGE for item in stream.read_lines(io.BytesIO(b"x" * 9000 + b"\n" + good), limit=4096)] == [True, False]
    assert json.loads(stream.answer_ndjson([stream.Ending.TOO_LARGE])[0])["error"]["code"] == "PAYLOAD_TOO_LARGE"


def test_rest_a_line_giving_a_key_twice_is_its_error_entry(rest_url) -> None:
    """A key given twice in a line's JSON (orjson would keep the last) is that line's
    INVALID_FIELD naming it (within its record, under its id, when the key is the record's); the
    lines around it are answered."""
    record = json.dumps(RECORDS[0])
    lines = [*ndjson_lines(RECORDS[:1]), b'{"id": "a", "id": "b", "record": ' + record.encode() + b"}\n",
             b'{"id": "c", "record": ' + record[:-1].encode() + b', "game": "rentoy"}}\n', *ndjson_lines(RECORDS[1:2])]
    status, _kind, answers = post_stream(rest_url, lines)
    assert status == 200 and len(answers) == 4
    assert answers[0] == expected(RECORDS[0]) and answers[3] == expected(RECORDS[1])
    assert answers[1]["error"]["code"] == "INVALID_FIELD" and answers[1]["error"]["field"] == "id" and "id" not in answers[1]
    assert answers[2]["error"]["code"] == "INVALID_FIELD" and answers[2]["error"]["field"] == "game" and answers[2]["id"] == "c"
    assert "given twice" in answers[2]["error"]["message"]


def test_rest_a_batch_line_is_answered_by_a_batch_line(rest_url) -> None:
    batch = {"id": "b", "batch": [{"id": f"r{i}", "record": r} for i, r in enumerate(RECORDS[:30])] + [{"id": "bad", "record": BAD}]
             + [{"id": "unreadable", "record": dict(BAD, seats="four")}, {"record": RECORDS[31]}]}
    status, _kind, answers = post_stream(rest_url, [*ndjson_lines(RECORDS[30:31]), json.dumps(batch).encode() + b"\n"])
    assert status == 200 and len(answers) == 2
    assert answers[0] == expected(RECORDS[30])
    assert answers[1]["id"] == "b" and len(answers[1]["batch"]) == 33
    assert answers[1]["batch"][:30] == [{"id": f"r{i}", **expected(r)} for i, r in enumerate(RECORDS[:30])]
    assert answers[1]["batch"][30]["error"]["code"] == "UNKNOWN_CARD"
    unreadable = answers[1]["batch"][31]  # one item that is not even a record spoils only its own answer
    assert unreadable["id"] == "unreadable" and unreadable["error"]["code"] == "INVALID_FIELD"
    assert unreadable["error"]["field"] == "seats"  # within the record, as ValidateHand names it
    assert unreadable["error"]["message"] == "seats: expected an integer, not 'four'"
    assert answers[1]["batch"][32] == expected(RECORDS[31])


UNREADABLE_RECORDS = [
    dict(BAD, foo=1),  # an unknown field
    dict(BAD, seats="four"),  # a word for a number
    dict(BAD, deal={"hands": ["1o 2o 3o", 5]}),  # a list's item
    dict(BAD, deal="1o 2o"),  # a string for an object
    dict(BAD, table={"cartulina": [{"seat": 1, "amount": 2}, {"seat": True}]}),  # an item of a list of objects
    dict(BAD, game="rentoy\ud800"),  # a lone surrogate, which orjson refuses and the standard library reads (the id was lost)
]


@pytest.mark.parametrize("record", UNREADABLE_RECORDS, ids=["unknown", "word", "item", "string", "nested", "surrogate"])
def test_rest_an_unreadable_record_is_named_as_validate_hand_names_it_under_its_id(record, rest_url, http: requests.Session) -> None:
    """A record the stream cannot read, alone on its line or in a batch, is answered under its id
    with the error ValidateHand gives it, the field named within the record."""
    unary = rest_failure(http.post(rest_url + "/v1/hands:validate", json=record, timeout=30))
    assert unary.code == "INVALID_FIELD" and not unary.field.startswith(("record", "batch"))
    error = {"code": unary.code, "field": unary.field, "message": unary.message}
    lines = [json.dumps({"id": "alone", "record": record}).encode() + b"\n",
             json.dumps({"id": "b", "batch": [{"id": "in", "record": record}, {"id": "ok", "record": RECORDS[0]}]}).encode() + b"\n"]
    status, _kind, answers = post_stream(rest_url, lines)
    assert status == 200
    assert answers == [{"id": "alone", "error": error}, {"id": "b", "batch": [{"id": "in", "error": error}, {"id": "ok", **expected(RECORDS[0])}]}]


def test_rest_an_item_s_own_field_is_named_within_the_line(rest_url) -> None:
    """A field of a batch's item itself, not of its record, that cannot be read is named from the
    line (``batch[1].extra``), under the item's id when it has one; the batch's other items are
    answered."""
    record = RECORDS[0]
    items = [{"id": 5, "record": record}, {"id": "i", "record": record, "extra": 1}, {"id": "k", "record": "x"}, {"id": "ok", "record": record}]
    status, _kind, answers = post_stream(rest_url, [json.dumps({"id": "b", "batch": items}).encode() + b"\n"])
    assert status == 200
    assert answers == [{"id": "b", "batch": [
        {"error": {"code": "INVALID_FIELD", "field": "batch[0].id", "message": "batch[0].id: expected a string, not 5"}},
        {"id": "i", "error": {"code": "INVALID_FIELD", "field": "batch[1].extra", "message": "batch[1].extra: unknown field 'extra' of ValidateHandsRequest"}},
        {"id": "k", "error": {"code": "INVALID_FIELD", "field": "batch[2].record", "message": "batch[2].record: expected an object, not a string"}},
        {"id": "ok", **expected(record)}]}]


def test_rest_a_batch_that_is_no_list_is_its_line_s_error(rest_url) -> None:
    """A line whose ``batch`` is a string, an object or a number is that line's INVALID_FIELD naming
    ``batch``, under its id: not a batch of the string's characters or the object's keys."""
    lines = [b'{"id": "s", "batch": "abc"}\n', b'{"id": "o", "batch": {"id": "y"}}\n', b'{"id": "n", "batch": 5}\n', *ndjson_lines(RECORDS[:1])]
    status, _kind, answers = post_stream(rest_url, lines)
    assert status == 200
    assert answers == [{"id": ident, "error": {"code": "INVALID_FIELD", "field": "batch", "message": f"batch: expected a list, not {what}"}}
                       for ident, what in (("s", "'abc'"), ("o", "an object"), ("n", "5"))] + [expected(RECORDS[0])]


def test_rest_a_message_without_its_record_is_missing_it_under_its_id(rest_url) -> None:
    status, _kind, answers = post_stream(rest_url, [b'{"id": "f"}\n', b'{"id": "g", "batch": [{"id": "g1"}]}\n'])
    assert status == 200
    assert answers == [{"id": "f", "error": {"code": "MISSING_FIELD", "field": "record", "message": "record is required"}},
                       {"id": "g", "batch": [{"id": "g1", "error": {"code": "MISSING_FIELD", "field": "batch[0].record", "message": "record is required"}}]}]


def test_rest_lines_are_answered_while_the_body_is_still_being_sent(rest_url) -> None:
    """On werkzeug's development server (the fixture's) a line is answered once its dechunked
    input has taken in at most READ_AHEAD bytes of the body beyond it (1 KiB), not when the body
    ends: every line but those of the last KiB sent is answered with the body still open
    (werkzeug's limited stream held each line for 64 KiB). gunicorn answers each line as soon as
    it has come: tests/test_service_stream_lines.py."""
    records = RECORDS[:40]
    wanted = answerable_before(records, stream.READ_AHEAD)
    assert wanted >= 30
    assert answered_while_sending(rest_url, records, wanted) >= wanted


def test_rest_a_line_too_long_is_an_error_entry(rest_url) -> None:
    huge = json.dumps({"record": dict(RECORDS[0], actions=["0 1o"] * 200_000)}).encode() + b"\n"
    status, _kind, answers = post_stream(rest_url, [*ndjson_lines(RECORDS[:1]), huge, *ndjson_lines(RECORDS[1:2])])
    assert status == 200 and len(answers) == 3
    assert answers[1]["error"]["code"] == "PAYLOAD_TOO_LARGE"
    assert answers[2] == expected(RECORDS[1])


def test_rest_a_line_as_long_as_the_limit_is_answered(rest_url) -> None:
    """The limit is on a line's bytes without its newline: a line of exactly MAX_REQUEST_BYTES is
    answered, with its newline or as the body's last line without one."""
    from service.errors import MAX_REQUEST_BYTES

    line = json.dumps({"id": "edge", "record": RECORDS[0]}).encode()
    padded = line + b" " * (MAX_REQUEST_BYTES - len(line))
    status, _kind, answers = post_stream(rest_url, [padded + b"\n", padded])
    assert status == 200 and answers == [{"id": "edge", **expected(RECORDS[0])}] * 2
    # Its end may be CRLF (it was PAYLOAD_TOO_LARGE: the CR counted in the line); one byte more
    # is over, either way.
    status, _kind, answers = post_stream(rest_url, [padded + b"\r\n", padded + b" \r\n", padded + b" \n", padded + b"\r\n"])
    assert status == 200 and [answer.get("error", {}).get("code") for answer in answers] == [None, "PAYLOAD_TOO_LARGE", "PAYLOAD_TOO_LARGE", None]


def test_rest_many_records_stream_through_a_bounded_window(rest_url) -> None:
    """Several thousand records, sent while the answers are read: each answer arrives, in order."""
    records = [r for r in RECORDS if r["game"] == "rentoy"]
    lines = ndjson_lines(records) * max(1, 3000 // len(records))
    status, _kind, answers = post_stream(rest_url, lines)
    assert status == 200 and len(answers) == len(lines)
    want = [expected(r) for r in records]
    assert all(a == want[i % len(records)] for i, a in enumerate(answers))


def test_rest_stream_refuses_other_media_types(rest_url, http: requests.Session) -> None:
    answer = http.post(rest_url + "/v1/hands:validateStream", data=b"game=rentoy", timeout=10,
                       headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert answer.status_code == 415 and answer.json()["code"] == "UNSUPPORTED_MEDIA_TYPE"
    assert http.post(rest_url + "/v1/hands:validateStream", data=b"", headers={"Content-Type": NDJSON}, timeout=10).text == ""


@pytest.mark.parametrize("kind", ["application/json", "application/jsonl"])
def test_rest_stream_takes_json_lines_under_other_names(rest_url, http: requests.Session, kind: str) -> None:
    answer = http.post(rest_url + "/v1/hands:validateStream", data=ndjson_lines(RECORDS[:1])[0], headers={"Content-Type": kind}, timeout=10)
    assert answer.status_code == 200 and json.loads(answer.text) == expected(RECORDS[0])


def test_the_stream_is_in_the_openapi_document(http: requests.Session, rest_url) -> None:
    op = http.get(rest_url + "/v1/openapi.json", timeout=10).json()["paths"]["/v1/hands:validateStream"]["post"]
    assert op["operationId"] == "ValidateHands"
    assert "application/x-ndjson" in op["requestBody"]["content"] and "application/x-ndjson" in op["responses"]["200"]["content"]
    assert op["requestBody"]["description"] == ("one ValidateHandsRequest per line (or the bare HandRecord of its first field); "
                                                "an empty body is a stream of none, answered by none. " + CODED_BODY)
    assert op["responses"]["200"]["description"] == "one ValidateHandsResponse per line, in order"


def test_the_openapi_document_lets_a_stream_be_empty(http: requests.Session, rest_url) -> None:
    """An empty body is a stream of no records, answered 200 with no lines (as gRPC answers a
    stream of no messages): the document does not require a body (it did, and schemathesis found
    the empty stream answered 200, a request the document refused)."""
    doc = http.get(rest_url + "/v1/openapi.json", timeout=10).json()
    assert doc["paths"]["/v1/hands:validateStream"]["post"]["requestBody"]["required"] is False
    answer = http.post(rest_url + "/v1/hands:validateStream", timeout=10)
    assert (answer.status_code, answer.text) == (200, "")
    for path in ("/v1/hands:validate", "/v1/hands:legalActions", "/v1/tricks:resolve", "/v1/hands:settle", "/v1/deals"):
        assert doc["paths"][path]["post"]["requestBody"]["required"] is True  # (an empty body is {}: MISSING_FIELD)


def test_readme_documents_the_stream() -> None:
    text = (ROOT / "README.md").read_text()
    assert "ValidateHands" in text and "/v1/hands:validateStream" in text


def test_grpc_streams_beyond_the_slots_are_refused_and_every_other_call_is_answered(stub, channel) -> None:
    """A server process validates ``stream.slots().count`` streams at a time. With every slot held
    by a client keeping its stream open, one more stream is refused at once (TOO_MANY_STREAMS,
    RESOURCE_EXHAUSTED, retry in 1 s), while the health check and ValidateHand are answered; once
    a held stream ends, a stream is taken again."""
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    count = stream.slots().count
    release = threading.Event()
    first = grpc_requests(RECORDS[:1])[0]

    def held() -> Iterator[pb.ValidateHandsRequest]:
        yield first
        release.wait(30)

    streams = [stub.ValidateHands(held(), timeout=60) for _ in range(count)]
    try:
        assert [next(s).id for s in streams] == ["r0"] * count  # every slot is taken
        with pytest.raises(grpc.RpcError) as refused:
            list(stub.ValidateHands(iter([first]), timeout=10))
        failure = grpc_failure(refused.value)
        assert (failure.code, failure.status, failure.retry_after) == ("TOO_MANY_STREAMS", grpc.StatusCode.RESOURCE_EXHAUSTED, 1)
        assert (failure.field, failure.message) == (None, refused_message(count))
        health = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=5)
        assert health.status == health_pb2.HealthCheckResponse.SERVING
        assert call_grpc(stub, "ValidateHand", {"record": RECORDS[0]}) == expected(RECORDS[0])["result"]
    finally:
        release.set()
    assert all(list(s) == [] for s in streams)
    slots_freed()
    assert [a.id for a in stub.ValidateHands(iter([first]), timeout=30)] == ["r0"]


def refused_message(count: int) -> str:
    return f"this server process validates {count} stream(s) at a time and all are in progress; retry in a moment"


def slots_freed() -> None:
    """Wait until the ended streams have given their slots back: a handler does it just after its
    answer's end has gone (a REST generator's close, gRPC's callback at the call's end), and the
    client may see that end first."""
    deadline = time.monotonic() + 5
    while stream.slots().taken and time.monotonic() < deadline:
        time.sleep(0.01)
    assert stream.slots().taken == 0


def test_rest_streams_beyond_the_slots_are_refused_and_every_other_call_is_answered(rest_url, http: requests.Session) -> None:
    """The same over REST: with every slot held by NDJSON streams still being sent, one more is
    answered 429 TOO_MANY_STREAMS with Retry-After, /healthz and /v1/hands:validate are answered,
    and once a held stream ends a stream is taken again."""
    count = stream.slots().count
    release = threading.Event()
    line = ndjson_lines(RECORDS[:1])[0]

    def held() -> Iterator[bytes]:
        yield line
        release.wait(30)

    results: list[tuple[int, str, list[dict]]] = []
    senders = [threading.Thread(target=lambda: results.append(post_stream(rest_url, held()))) for _ in range(count)]
    try:
        for sender in senders:
            sender.start()
        for _ in range(200):  # until every slot is taken
            if stream.slots().taken == count:
                break
            release.wait(0.05)
        assert stream.slots().taken == count
        answer = http.post(rest_url + "/v1/hands:validateStream", data=line, timeout=10, headers={"Content-Type": NDJSON})
        failure = rest_failure(answer)
        assert (failure.code, failure.status, failure.retry_after) == ("TOO_MANY_STREAMS", 429, 1)
        assert (failure.field, failure.message) == (None, refused_message(count))
        assert http.get(rest_url + "/healthz", timeout=5).json() == {"status": "SERVING"}
        assert http.post(rest_url + "/v1/hands:validate", json=RECORDS[0], timeout=10).json() == expected(RECORDS[0])["result"]
    finally:
        release.set()
        for sender in senders:
            sender.join(30)
    assert [(status, len(lines)) for status, _kind, lines in results] == [(200, 1)] * count
    slots_freed()
    status, _kind, answers = post_stream(rest_url, [line])
    assert status == 200 and answers == [expected(RECORDS[0])]


def test_rest_stream_slot_is_freed_when_its_client_resets_a_body_still_coming(rest_url) -> None:
    """A stream that has ended (here for its blank lines) while its client goes on sending gives its
    slot back though the client then resets the connection. werkzeug's development server reads
    what is left of a body after the answer, and a reset there skipped the answer's close, the one
    place the slot was given back: the slot was held for the life of the process, and the second
    such client left the process refusing every stream (TOO_MANY_STREAMS)."""
    url = urlparse(rest_url)
    sock = socket.create_connection((url.hostname, url.port), timeout=30)
    stop = threading.Event()

    def blanks() -> None:  # (a chunk of newlines every few milliseconds, until the reset)
        try:
            while not stop.is_set():
                sock.sendall(b"1000\r\n" + b"\n" * 4096 + b"\r\n")
                stop.wait(0.003)
        except OSError:
            pass  # (the server has shut the connection)

    sender = threading.Thread(target=blanks)
    try:
        sock.sendall(f"POST /v1/hands:validateStream HTTP/1.1\r\nHost: {url.netloc}\r\nContent-Type: {NDJSON}\r\n"
                     "Transfer-Encoding: chunked\r\n\r\n".encode())
        line = ndjson_lines(RECORDS[:1])[0]
        sock.sendall(b"%x\r\n%s\r\n" % (len(line), line))
        sender.start()
        received = b""
        while not received.endswith(b"\r\n0\r\n\r\n"):  # the answer's last chunk: the stream has ended
            data = sock.recv(1 << 16)
            assert data, received
            received += data
        assert b'"code":"PAYLOAD_TOO_LARGE"' in received and b'"valid":true' in received
        stop.wait(0.2)  # (the server reads the body still coming)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))  # close with a reset
    finally:
        stop.set()
        if sender.is_alive():
            sender.join(10)
        sock.close()
    slots_freed()
    status, _kind, answers = post_stream(rest_url, [line])
    assert status == 200 and answers == [expected(RECORDS[0])]


def test_rest_stream_slot_is_freed_by_answers_dropped_unclosed() -> None:
    """A server that drops a stream's answer half sent without closing it (against WSGI; werkzeug's
    development server when the connection breaks while it reads the rest of the body) still gives
    the slot back, as the answers' generator is collected."""
    app = create_app()
    line = ndjson_lines(RECORDS[:2])
    environ = EnvironBuilder(path="/v1/hands:validateStream", method="POST", data=b"".join(line),
                             content_type=NDJSON).get_environ()
    started: list[str] = []
    held = stream.slots().taken  # (0 unless a stream of another test has yet to end)
    answer = app(environ, lambda status, _headers, _exc=None: started.append(status))
    first = next(iter(answer))
    assert started == ["200 OK"] and json.loads(first) == expected(RECORDS[0])
    assert stream.slots().taken == held + 1
    del answer
    assert stream.slots().taken == held


def test_the_stream_slots_are_set_by_naipes_streams(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(stream, "_slots", None)
    monkeypatch.setenv("NAIPES_STREAMS", "5")
    assert stream.slots().count == 5
    monkeypatch.setattr(stream, "_slots", None)
    monkeypatch.delenv("NAIPES_STREAMS")
    assert stream.slots().count == stream.STREAMS == 2
    release = [stream.slots().take() for _ in range(2)]
    assert stream.slots().taken == 2
    with pytest.raises(ServiceError) as refused:
        stream.slots().take()
    assert refused.value.code == "TOO_MANY_STREAMS"
    release[0]()
    release[0]()  # a second release frees nothing more
    again = stream.slots().take()
    with pytest.raises(ServiceError):
        stream.slots().take()
    again()
    release[1]()
    assert stream.slots().taken == 0


def test_pipelined_input_that_waits_past_idle_is_answered_then_paused() -> None:
    """``idle`` bounds how long the input may wait for its next item: the items read before are
    answered, then ``Paused`` is raised (what the input reads after is not taken)."""
    gate = threading.Event()

    def items() -> Iterator[bytes]:
        yield b"a"
        yield b"b"
        gate.wait(30)  # (a client that sends nothing more)
        yield b"late"

    threads = ThreadPoolExecutor(1)
    got: list[bytes] = []
    try:
        with pytest.raises(stream.Paused):
            for answer in stream._pipelined(items(), lambda chunk: [item.upper() for item in chunk], lambda chunk, _exc: [b"failed"] * len(chunk),
                                            threads, 1, 1, idle=0.2):
                got.append(answer)
    finally:
        gate.set()
        threads.shutdown()
    assert got == [b"A", b"B"]


def test_pipelined_slow_work_is_no_pause_of_the_input() -> None:
    """The idle clock runs only while the input waits for its next item: a batch's work far longer
    than ``idle``, the input held back by the window meanwhile, does not end the stream."""

    def slow(chunk: list[bytes]) -> list[bytes]:
        time.sleep(0.4)
        return [item.upper() for item in chunk]

    threads = ThreadPoolExecutor(1)
    try:
        assert list(stream._pipelined(iter([b"a", b"b", b"c", b"d"]), slow, lambda chunk, _exc: [b"failed"] * len(chunk), threads, 1, 1,
                                      idle=0.25)) == [b"A", b"B", b"C", b"D"]
    finally:
        threads.shutdown()


def test_grpc_a_stream_that_sends_nothing_for_the_idle_bound_ends_and_frees_its_slot() -> None:
    """NAIPES_STREAM_IDLE_SECONDS bounds a gRPC stream's pauses as it bounds REST's: a stream that
    sends nothing more while the server waits for its next message gets the answers of what it sent,
    then a REQUEST_TIMEOUT entry, and the call ends OK, its slot given back. (Two clients that
    opened streams and sent nothing held both slots of a gRPC process for as long as they liked, and
    every other stream was refused TOO_MANY_STREAMS.) A stream whose pauses are shorter is answered
    as ever."""
    from service_support import stop
    from test_service_workers import serve

    server, _rest_port, grpc_port = serve(1, {**os.environ, "NAIPES_STREAM_IDLE_SECONDS": "2"})
    gate = threading.Event()
    try:
        stub = pb_grpc.NaipesServiceStub(grpc.insecure_channel(f"127.0.0.1:{grpc_port}"))
        requests_ = grpc_requests(RECORDS[:3])

        def silent(sent: list[pb.ValidateHandsRequest]) -> Iterator[pb.ValidateHandsRequest]:
            yield from sent
            gate.wait(60)

        held = [stub.ValidateHands(silent(requests_[:2]), timeout=60), stub.ValidateHands(silent([]), timeout=60)]
        entry = {"error": {"code": "REQUEST_TIMEOUT", "message": "the stream sent nothing for 2 seconds: the messages before are answered"}}
        assert [to_json(a) for a in held[0]] == [{"id": "r0", **expected(RECORDS[0])}, {"id": "r1", **expected(RECORDS[1])}, entry]
        assert [to_json(a) for a in held[1]] == [entry]
        assert [h.code() for h in held] == [grpc.StatusCode.OK] * 2

        def paced() -> Iterator[pb.ValidateHandsRequest]:
            for request in requests_:
                yield request
                time.sleep(0.2)

        deadline = time.monotonic() + 5  # (a slot is given back just after its call's end has gone)
        while True:
            try:
                answers = [to_json(a) for a in stub.ValidateHands(paced(), timeout=60)]
                break
            except grpc.RpcError as error:
                if grpc_failure(error).code != "TOO_MANY_STREAMS" or time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        assert answers == [{"id": f"r{i}", **expected(r)} for i, r in enumerate(RECORDS[:3])]
    finally:
        gate.set()
        stop(server)


def test_grpc_a_stream_whose_client_takes_no_answer_for_the_idle_bound_is_cancelled_and_frees_its_slot() -> None:
    """NAIPES_STREAM_IDLE_SECONDS bounds the wait for a client to take a stream's answers as it
    bounds its pauses: two clients that send an archive and read none of its answers are cancelled
    with DEADLINE_EXCEEDED and why (counted REQUEST_TIMEOUT, a warning logged for each), and their
    slots are given back. (grpcio waits in its send for the client's HTTP/2 window, where the
    pause's bound does not reach: two such clients held both slots of a process, and a thread each,
    for as long as they kept their connections, every other stream refused TOO_MANY_STREAMS.)"""
    from service_support import metrics_say, stop
    from test_service_workers import serve

    server, rest_port, grpc_port = serve(1, {**os.environ, "NAIPES_STREAM_IDLE_SECONDS": "2"})
    gate = threading.Event()
    channels = []
    try:
        message = grpc_requests([RECORDS[-1]])[0]  # (a complete hand: an answer of some KiB)

        def archive() -> Iterator[pb.ValidateHandsRequest]:
            yield from itertools.repeat(message, 500)
            gate.wait(60)

        def stub(*options: tuple[str, int]) -> pb_grpc.NaipesServiceStub:
            channels.append(grpc.insecure_channel(f"127.0.0.1:{grpc_port}", options=list(options)))
            return pb_grpc.NaipesServiceStub(channels[-1])

        # (the client's window kept at HTTP/2's first 64 KiB: a window grown by bandwidth probing
        # would take in more of the answers before the server waits)
        unread = [stub(("grpc.http2.bdp_probe", 0)).ValidateHands(archive(), timeout=60) for _ in range(2)]

        metrics_say(rest_port, 'naipes_streams_in_progress{transport="grpc"} 2.0')
        refused_while_held = False
        deadline = time.monotonic() + 30
        while True:
            try:
                answers = [to_json(a) for a in stub().ValidateHands(iter(grpc_requests(RECORDS[:2])), timeout=60)]
                break
            except grpc.RpcError as error:
                if grpc_failure(error).code != "TOO_MANY_STREAMS" or time.monotonic() > deadline:
                    raise
                refused_while_held = True
                time.sleep(0.1)
        assert refused_while_held  # (both slots held until the clients' waits ran out)
        assert answers == [{"id": f"r{i}", **expected(r)} for i, r in enumerate(RECORDS[:2])]
        for call in unread:
            with pytest.raises(grpc.RpcError) as failed:
                for _ in call:
                    pass
            assert failed.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
            assert re.fullmatch(r"the client took no answer for \d+ seconds while the server waited to send it one: the stream ended",
                                failed.value.details())
        metrics_say(rest_port, 'naipes_requests_total{code="REQUEST_TIMEOUT",method="ValidateHands",transport="grpc"} 2.0',
                    'naipes_streams_in_progress{transport="grpc"} 0.0')
    finally:
        gate.set()
        for channel in channels:
            channel.close()
        output = stop(server)
    warnings = re.findall(r"WARNING ValidateHands from \S+: the client took no answer for \d+ seconds while the server waited to send it "
                          r"one; the stream is ended", output)
    assert len(warnings) == 2, output


def test_unread_answers_end_a_stream_once_past_their_due_time() -> None:
    """``grpc_server._taken_in_time``: an answer not taken within its bound (the seconds, and a
    second a UNREAD_BYTES_PER_SECOND of it) ends its stream once, told how long it waited; answers
    taken in time, or with no bound (0), end nothing."""
    from service import grpc_server

    ended: list[float] = []
    watch = grpc_server._taken_in_time
    taken = list(watch(iter([b"a", b"b"]), 0.5, ended.append))
    unbounded = watch(iter([b"a", b"b"]), 0, ended.append)
    assert next(unbounded) == b"a"
    late = watch(iter([b"x" * grpc_server.UNREAD_BYTES_PER_SECOND, b"y"]), 0.5, ended.append)
    assert next(late) == b"x" * grpc_server.UNREAD_BYTES_PER_SECOND
    time.sleep(3.5)  # (due 1.5 s after it was given; the watchdog looks once a second)
    assert taken == [b"a", b"b"] and len(ended) == 1 and 1.5 < ended[0] < 3.5
    assert next(unbounded) == b"b" and next(late) == b"y"
    assert len(ended) == 1
