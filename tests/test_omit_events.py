"""``omit_events``: a validation result with its ``events`` (what happened, action by action) empty,
every other field as without it; on ValidateHand (gRPC field, REST ``?omitEvents=true``) and on a
ValidateHands message (its record, every item of its batch, or one item alone), over the real
servers and through the stream's split of a large batch."""

from __future__ import annotations

import json

import pytest
from service_support import call_grpc, events_emptied, rest_failure, varint
from test_service_stream import LARGE_ITEMS, RECORDS, batch_wire, expected, grpc_requests, post_stream

from engine import api
from naipes.v1 import naipes_pb2 as pb
from service import stream
from service.codec import to_json

SOME = RECORDS[::9]  # complete hands, hands in progress and violations of every game
OMIT = b"\x20\x01"  # ValidateHandsRequest.omit_events = true, as the wire writes it


def test_the_examples_have_events_to_omit() -> None:
    assert sum(bool(expected(r).get("result", {}).get("events")) for r in SOME) > len(SOME) // 2


def test_omit_events_leaves_out_the_events_and_nothing_else_in_the_engine() -> None:
    for record in SOME:
        try:
            full = api.validate(record)
        except Exception:
            continue  # (a record that is not well formed has no result)
        assert "events" in full
        assert api.validate(record, events=False) == {**full, "events": []}


def validate_over_rest(http, rest_url: str, record: dict, omit: str | None) -> dict:
    response = http.post(rest_url + "/v1/hands:validate", params={} if omit is None else {"omitEvents": omit}, json=record, timeout=30)
    assert response.status_code == 200, response.text
    return response.json()


def test_validate_hand_omit_events_over_grpc_and_rest(stub, http, rest_url) -> None:
    answered = 0
    for record in SOME:
        if "result" not in expected(record):
            continue
        full = call_grpc(stub, "ValidateHand", {"record": record})
        assert validate_over_rest(http, rest_url, record, None) == validate_over_rest(http, rest_url, record, "false") == full
        brief = call_grpc(stub, "ValidateHand", {"record": record, "omitEvents": True})
        assert brief == validate_over_rest(http, rest_url, record, "true") == {**full, "events": []}
        assert call_grpc(stub, "ValidateHand", {"record": record, "omitEvents": False}) == full
        answered += bool(full["events"])
    assert answered > 10


def test_omit_events_on_a_record_that_breaks_a_rule_keeps_the_violation(stub) -> None:
    record = next(r for r in RECORDS if not expected(r).get("result", {"valid": True})["valid"])
    brief = call_grpc(stub, "ValidateHand", {"record": record, "omitEvents": True})
    assert brief["valid"] is False and brief["violation"] == expected(record)["result"]["violation"] and brief["events"] == []


def test_rest_omit_events_must_be_true_or_false(http, rest_url) -> None:
    for value in ("yes", "True", "1", ""):
        failure = rest_failure(http.post(rest_url + "/v1/hands:validate", params={"omitEvents": value}, json=SOME[-1], timeout=30))
        assert (failure.code, failure.field, failure.status) == ("INVALID_FIELD", "omitEvents", 400), value
    failure = rest_failure(http.post(rest_url + "/v1/hands:validate?omitEvents=true&omitEvents=true", json=SOME[-1], timeout=30))
    assert (failure.code, failure.field) == ("INVALID_FIELD", "omitEvents")
    assert validate_over_rest(http, rest_url, SOME[-1], "true")["events"] == []  # (the server goes on)


# ---- ValidateHands -------------------------------------------------------------------------


def test_grpc_stream_omit_events_on_a_message_a_batch_and_an_item(stub) -> None:
    singles = grpc_requests(SOME)
    for request in singles[::2]:
        request.omit_events = True
    batch = pb.ValidateHandsRequest(id="batch", batch=grpc_requests(SOME), omit_events=True)
    mixed = pb.ValidateHandsRequest(id="mixed", batch=grpc_requests(SOME))
    mixed.batch[1].omit_events = True  # one item alone
    answers = list(stub.ValidateHands(iter([*singles, batch, mixed]), timeout=120))
    for i, (record, answer) in enumerate(zip(SOME, answers, strict=False)):
        got = to_json(answer)
        assert got.pop("id") == f"r{i}"
        assert got == (events_emptied(expected(record)) if i % 2 == 0 else expected(record))
    batch_answer, mixed_answer = answers[len(SOME)], answers[len(SOME) + 1]
    assert [{k: v for k, v in to_json(a).items() if k != "id"} for a in batch_answer.batch] == [events_emptied(expected(r)) for r in SOME]
    got = [{k: v for k, v in to_json(a).items() if k != "id"} for a in mixed_answer.batch]
    assert got == [events_emptied(expected(r)) if i == 1 else expected(r) for i, r in enumerate(SOME)]


@pytest.mark.parametrize("at", [0, 200, len(LARGE_ITEMS)])
def test_split_carries_omit_events_to_every_part(at: int) -> None:
    """A large batch's ``omit_events`` (wherever the message writes it: before, among or after
    its items) goes with every part, and the answer is the whole message's, byte for byte."""
    fields = [b"\x1a" + varint(len(item)) + item for item in LARGE_ITEMS]
    data = b"\x12\x03big" + b"".join(fields[:at]) + OMIT + b"".join(fields[at:])
    head, parts = stream.split(data)
    assert head == b"\x12\x03big" and len(parts) > 2 and all(part.omit_events for part in parts)
    assert sum(len(pb.ValidateHandsRequest.FromString(part.data).batch) for part in parts) == len(LARGE_ITEMS)
    assert not any(pb.ValidateHandsRequest.FromString(part.data).HasField("omit_events") for part in parts)
    whole = stream.answer_wire([data])[0]
    assert list(stream.validate_wire(iter([data]))) == [whole]
    answer = pb.ValidateHandsResponse.FromString(whole)
    assert len(answer.batch) == len(LARGE_ITEMS) and not any(a.result.events for a in answer.batch)
    assert any(a.HasField("result") for a in answer.batch)


def test_split_reads_omit_events_as_protobuf_does() -> None:
    plain = batch_wire(LARGE_ITEMS)
    assert not any(part.omit_events for part in stream.split(plain)[1])
    assert not any(part.omit_events for part in stream.split(plain + b"\x20\x00")[1])  # false
    assert not any(part.omit_events for part in stream.split(plain + OMIT + b"\x20\x00")[1])  # the last one counts
    assert all(part.omit_events for part in stream.split(plain + b"\x20\x00" + b"\x20\x02")[1])  # any other number is true
    assert stream.split(plain + b"\x20\xff") is None  # cut short: goes whole (and is refused as it is)
    assert pb.ValidateHandsRequest(omit_events=True).SerializeToString() == OMIT


def test_grpc_a_large_batch_with_omit_events_is_answered_events_emptied(stub) -> None:
    request = pb.ValidateHandsRequest(id="all", batch=grpc_requests(RECORDS), omit_events=True)
    assert stream.split(request.SerializeToString())
    (answer,) = stub.ValidateHands(iter([request]), timeout=120)
    assert [{k: v for k, v in to_json(a).items() if k != "id"} for a in answer.batch] == [events_emptied(expected(r)) for r in RECORDS]


def test_rest_stream_omit_events_on_a_line_and_a_batch(rest_url) -> None:
    lines = [json.dumps({"id": f"r{i}", "record": r, "omitEvents": True}).encode() + b"\n" for i, r in enumerate(SOME)]
    lines.append(json.dumps({"id": "batch", "omitEvents": True, "batch": [{"record": r} for r in SOME]}).encode() + b"\n")
    lines.append(json.dumps({"id": "mixed", "batch": [{"record": r, "omitEvents": i == 0} for i, r in enumerate(SOME)]}).encode() + b"\n")
    status, _kind, answers = post_stream(rest_url, lines)
    assert status == 200 and len(answers) == len(SOME) + 2
    for i, (record, answer) in enumerate(zip(SOME, answers, strict=False)):
        assert answer.pop("id") == f"r{i}"
        assert answer == events_emptied(expected(record))
    assert answers[-2]["batch"] == [events_emptied(expected(r)) for r in SOME]
    assert answers[-1]["batch"] == [events_emptied(expected(r)) if i == 0 else expected(r) for i, r in enumerate(SOME)]


def test_rest_stream_a_line_with_only_omit_events_lacks_its_record(rest_url) -> None:
    """``{"omitEvents": true}`` is a message of the stream (not a hand record with an unknown
    field): its record is missing."""
    status, _kind, answers = post_stream(rest_url, [b'{"omitEvents": true}\n', json.dumps(SOME[-1]).encode() + b"\n"])
    assert status == 200
    assert (answers[0]["error"]["code"], answers[0]["error"]["field"]) == ("MISSING_FIELD", "record")
    assert answers[1] == expected(SOME[-1])
