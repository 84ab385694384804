"""Shared events (``engine.record``): the events of Tresillo's and Revesino's card play are dicts
of the games' own tables, made once; the replay hands out copies with their ``action`` set, or,
for the wire encoder (``events=WIRE``), (shared event, action index) pairs, which the encoder
writes from the event's bytes encoded once. Whatever way an answer is made, it is the same."""

from __future__ import annotations

import copy
import os
import subprocess
import sys
from typing import Any

import pytest
from examples_support import ROOT
from google.protobuf import json_format
from test_service_stream import RECORDS
from test_wire import reference, written_without_the_encoder

from bench.engine_driver import random_record
from engine import api, revesino, tresillo
from engine.record import WIRE, action_reader, read_setup, stamped
from naipes.v1 import naipes_pb2 as pb
from service import codec

compiled = pytest.mark.skipif(codec._wire is None, reason="service/_wire.pyx is not compiled here (make build)")

TABLES = {"tresillo card": tresillo._CARD_EVENTS, "tresillo trick": tresillo._TRICK_EVENTS,
          "revesino card": revesino._CARD_EVENT, "revesino trick": revesino._TRICK_EVENTS}


def results() -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(full result, result for the wire) of every shared example that has one, and of random
    hands of every game, whole and cut in the middle of their play."""
    records = list(RECORDS)
    for game in api.GAMES:
        for seed in range(20):
            record = random_record(game, seed=seed)
            records += [record, {**record, "actions": record["actions"][:len(record["actions"]) // 2]}]
    out = []
    for record in records:
        try:
            full = api.validate(record)
        except Exception:
            continue  # (a record that is not well formed has no result)
        out.append((full, api.validate(record, events=WIRE)))
    return out


RESULTS = results()


def test_shared_events_for_the_wire_stand_for_the_events_and_nothing_else_changes() -> None:
    paired = 0
    for full, wire in RESULTS:
        assert stamped(wire["events"]) == full["events"]
        assert codec.plain(wire) == full
        assert {**wire, "events": None} == {**full, "events": None}
        paired += sum(type(event) is tuple for event in wire["events"])
        assert all(type(event) is dict and type(event["action"]) is int for event in full["events"])
    assert paired > 1000


@compiled
def test_the_encoder_writes_a_shared_event_as_protobuf_writes_the_event() -> None:
    assert codec._wire is not None
    for full, wire in RESULTS:
        want = reference({"result": full}, pb.ValidateHandResponse)
        # the encoder's own bytes (not left to protobuf), twice: the second time from its store
        for _ in range(2):
            assert codec._wire.encode({"result": wire}, codec._wire_type(pb.ValidateHandResponse.DESCRIPTOR)) == want
        assert codec.to_wire({"result": wire}, pb.ValidateHandResponse) == want


def test_the_sources_write_shared_events_without_the_encoder() -> None:
    """With NAIPES_PURE=1 the codec has protobuf write an answer for the wire: its pairs become the
    events they stand for."""
    full, wire = next((f, w) for f, w in RESULTS if f["game"] == "revesino" and len(f["events"]) > 40)
    assert written_without_the_encoder(wire) == reference(full, pb.ValidationResult)


def test_grpc_answers_written_without_the_encoder_hold_the_events_of_a_record_and_of_a_batch() -> None:
    """With NAIPES_PURE=1 protobuf writes gRPC's answers: the (shared event, action index) pairs
    of a ValidateHand answer's result, and of each result in a ValidateHands batch's answer,
    become the events they stand for (``codec.plain``), the bytes of the answers with events."""
    record = random_record("revesino", seed=3)
    full = api.validate(record)
    assert sum(type(event) is tuple for event in api.validate(record, events=WIRE)["events"]) > 40
    message = json_format.ParseDict(record, pb.HandRecord())
    hand = pb.ValidateHandRequest(record=message).SerializeToString()
    batch = pb.ValidateHandsRequest(id="b", batch=[pb.ValidateHandsRequest(id="x", record=message),
                                                    pb.ValidateHandsRequest(id="y", record=message)]).SerializeToString()
    script = ("import service, sys; from service import codec, handlers, stream; from naipes.v1 import naipes_pb2 as pb; "
              "assert codec._wire is None and not service.COMPILED; "
              f"hand = handlers.WIRE_HANDLERS['ValidateHand'](bytes.fromhex({hand.hex()!r})); "
              f"batch, _ = stream.answer_bytes(codec.request_json(bytes.fromhex({batch.hex()!r}), pb.ValidateHandsRequest)); "
              "sys.stdout.write(hand.hex() + ' ' + batch.hex())")
    env = {**os.environ, "NAIPES_PURE": "1", "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, cwd=ROOT, timeout=60)
    assert run.returncode == 0, run.stderr
    hand_answer, batch_answer = (bytes.fromhex(part) for part in run.stdout.split())
    assert hand_answer == reference({"result": full}, pb.ValidateHandResponse)
    assert batch_answer == reference({"id": "b", "batch": [{"result": full, "id": "x"}, {"result": full, "id": "y"}]},
                                     pb.ValidateHandsResponse)

SHARED = {"kind": "card", "seat": 1, "card": "1o", "text": "seat 1 plays 1o", "action": None}
NOT_SHARED = [
    ({"kind": "card", "seat": 1, "action": 3}, 4),  # an event with its action: not a shared one
    ({"kind": "card", "seat": 1}, 4),  # no action key
    ({**SHARED, "foo": 1}, 4),  # a key the schema lacks
    (SHARED, "4"),  # an action index that is no int
    (SHARED, 2**31),  # out of int32's range
    (SHARED, True),
]


@compiled
@pytest.mark.parametrize("pair", NOT_SHARED, ids=range(len(NOT_SHARED)))
def test_what_the_encoder_leaves_to_protobuf_among_shared_events(pair: tuple[dict[str, Any], Any]) -> None:
    """A pair that is not (shared event, action index) is left to protobuf, which writes (or
    refuses) the event the pair stands for, as it would the event itself."""
    assert codec._wire is not None
    data = {"game": "revesino", "events": [dict(SHARED, action=0), pair]}
    with pytest.raises(codec._wire.Doubt):
        codec._wire.encode(data, codec._wire_type(pb.ValidationResult.DESCRIPTOR))
    plain = codec.plain(data)
    assert plain["events"][1] == {**pair[0], "action": pair[1]}
    try:
        want = reference(plain, pb.ValidationResult)
    except json_format.ParseError as exc:
        with pytest.raises(json_format.ParseError) as got:
            codec.to_wire(data, pb.ValidationResult)
        assert str(got.value) == str(exc)
    else:
        assert codec.to_wire(data, pb.ValidationResult) == want


@compiled
def test_past_the_encoders_store_shared_events_are_written_all_the_same(monkeypatch) -> None:
    assert codec._wire is not None
    monkeypatch.setattr(codec._wire, "MAX_SHARED", 0)
    events = [{**SHARED, "text": f"event {i}"} for i in range(20)]
    data = {"events": [(event, i) for i, event in enumerate(events)]}
    want = reference({"events": [{**event, "action": i} for i, event in enumerate(events)]}, pb.ValidationResult)
    assert codec.to_wire(data, pb.ValidationResult) == codec.to_wire(data, pb.ValidationResult) == want


def test_a_games_apply_hands_out_copies_of_its_shared_events() -> None:
    """``apply``'s events are the caller's to change: changing them changes no later answer."""
    for name in ("tresillo", "revesino"):
        game = api.GAMES[name]
        record = random_record(name, seed=7)
        before = api.validate(record)
        seen = 0
        setup, actions = read_setup(game, record)
        reader = action_reader(game, setup.seats)
        state = game.start(setup)
        for text in actions:
            state, events = game.apply(state, reader.read(text))
            for event in events:
                event["text"], event["seat"] = "changed", 99
                seen += 1
        assert seen > 40
        assert api.validate(record) == before


def test_the_shared_events_are_never_changed() -> None:
    kept = copy.deepcopy(TABLES)
    for full, _ in RESULTS:
        for event in full["events"]:
            event["action"] = -1  # a caller's copy: changing it changes no table
    assert TABLES == kept
    for name, table in TABLES.items():
        flat = table
        while isinstance(flat[0], tuple):
            flat = tuple(e for t in flat for e in t)
        assert all(e["action"] is None for e in flat if e), name
