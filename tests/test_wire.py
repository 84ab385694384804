"""The codec's wire encoder and decoder (service/_wire.pyx, ``codec.to_wire``, ``codec.request_json``)
against protobuf.

``to_wire(data, cls)`` promises the bytes of ``from_engine(data, cls).SerializeToString()``, or
the same error. tests/test_codec_fast.py holds that over every RPC's real answers and the codec's
edge cases; these are the encoder's own: lengths that need a longer varint (a string, a nested
message, a packed list and a whole answer past 127 and 16,383 bytes, past the encoder's first
buffer), negative and extreme int32s, multi-byte UTF-8, defaults with and without presence,
and what the encoder must leave to protobuf (the answer then built as a message, as before).
``request_json(data, cls)`` promises ``to_engine(cls.FromString(data))``, MessageToDict's JSON
with its keys in the same order, or ``INVALID_FIELD`` where protobuf refuses the bytes:
tests/test_codec_fast.py holds it over every request the playouts make; these are the
decoder's own cases, what it reads and the forms it leaves to protobuf (unknown fields, repeated
singular fields, groups, truncation, invalid UTF-8, ...). The gRPC transport reads every request
and streamed message through both. Without them (NAIPES_PURE=1) protobuf writes gRPC's answers
and the converter vouches for REST's: both are the compiled service's bytes.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from typing import Any

import pytest
import requests
from examples_support import ROOT, examples_dir, load_example
from google.protobuf import json_format, struct_pb2
from google.protobuf.message import Message
from service_support import REFUSED_CALLS, read_until, rest_request, stop, varint
from test_service_revesino import settle_request as revesino_settle_request
from test_service_tresillo import settle_request as tresillo_settle_request

from engine import api
from naipes.v1 import naipes_pb2 as pb
from service import codec
from service.errors import ServiceError

compiled = pytest.mark.skipif(codec._wire is None, reason="service/_wire.pyx is not compiled here (make build)")


def reference(data: Any, cls: type[Message]) -> bytes:
    return json_format.ParseDict(data, cls(), ignore_unknown_fields=False).SerializeToString()


def encoded(data: Any, cls: type[Message]) -> bytes:
    """The encoder's own bytes (it must not leave these to protobuf)."""
    assert codec._wire is not None
    return codec._wire.encode(data, codec._wire_type(cls.DESCRIPTOR))


EVENT = {"kind": "card", "seat": 1, "card": "1o", "text": "seat 1 plays 1o", "action": 3}

WRITTEN: list[tuple[type[Message], Any]] = [
    # lengths: one varint byte, two, three (the content moves up for a longer length)
    (pb.ValidationResult, {"game": "x" * 127}),
    (pb.ValidationResult, {"game": "x" * 128}),
    (pb.ValidationResult, {"game": "x" * 16_384}),
    (pb.ValidationResult, {"events": [{**EVENT, "text": "t" * n} for n in (100, 120, 126, 127, 128, 200, 16_380, 16_400)]}),
    (pb.ValidationResult, {"net": list(range(200))}),
    (pb.ValidationResult, {"net": [-1] * 20}),  # 10 bytes each: a packed list past 127 bytes
    (pb.ValidateHandsResponse, {"batch": [{"result": {"game": "revesino", "events": [EVENT] * 500}, "id": str(i)} for i in range(20)]}),
    # numbers
    (pb.ValidationResult, {"net": [0, 1, -1, 127, 128, -128, 2**31 - 1, -(2**31), 300, -300]}),
    (pb.ValidationResult, {"fondo": -(2**31), "escrow": 2**31 - 1, "party": -5, "value": 0, "nextDealer": 0}),
    (pb.Event, {"seat": -1, "action": 2**31 - 1, "value": 0, "trick": 0}),
    # strings
    (pb.Payment, {"payer": "seat 0", "payee": "fondo", "amount": 9, "reason": "quínola placed in trick 11: takes the fondo, 9"}),
    (pb.Event, {"kind": "", "text": "ñ€𝄞 ü", "card": ""}),
    # defaults: written with presence (0, "", false), left out without
    (pb.ValidationResult, {"valid": False, "finished": False, "game": "", "favor": False, "solera": False, "value": 0, "trump": ""}),
    (pb.ValidationResult, {"valid": True, "finished": True, "favor": True}),
    (pb.ValidationResult, {"tricks": [], "events": [], "net": [], "payments": []}),
    (pb.ValidationResult, {"next": {}, "table": {}, "violation": {"action": 0, "code": "", "message": ""}}),
    (pb.ValidateHandsResponse, {"id": "", "result": {}}),
    # every message of the answers nested
    (pb.ValidationResult, {"tricks": [{"leader": 0, "cards": ["1o", "", "12e"], "winner": 3}], "table": {"plate": 2, "cartulina": [
        {"seat": 0, "amount": 4}], "score": [1, 2]}, "napolitana": {"seat": 0, "outcome": "pending"}}),
    # keys in reverse field order, and keys that are not the schema's own (interned) strings: placed by value
    (pb.Event, dict(reversed(EVENT.items()))),
    (pb.ValidationResult, {"".join(["ga", "me"]): "tresillo", "".join(["eve", "nts"]): [{"".join(["te", "xt"]): "t", "kind": "k"}]}),
]


@compiled
@pytest.mark.parametrize(("cls", "data"), WRITTEN)
def test_the_encoder_writes_protobufs_bytes(cls: type[Message], data: Any) -> None:
    assert encoded(data, cls) == reference(data, cls)
    assert codec.to_wire(data, cls) == reference(data, cls)
    assert codec._wire is not None
    codec._wire.check(data, codec._wire_type(cls.DESCRIPTOR))  # what it writes, it vouches for


LEFT: list[tuple[type[Message], Any]] = [
    (pb.ValidationResult, {"turn_up": "1o"}),  # a proto name: json_format reads it
    (pb.ValidationResult, {"net": [1.0]}),  # a float for an int32: json_format reads it
    (pb.ValidationResult, {"game": None}),  # a null: json_format leaves the field unset
    (pb.ValidationResult, {"events": [{"kind": "card", "seat": True}]}),  # json_format refuses these
    (pb.ValidationResult, {"valid": 1}),
    (pb.ValidationResult, {"game": b"x"}),
    (pb.ValidationResult, {"game": "\ud800"}),
    (pb.ValidationResult, {"net": [2**31]}),
    (pb.ValidationResult, {"fondo": -(2**31) - 1}),
    (pb.ValidationResult, {"foo": 1}),
    (pb.ValidationResult, {1: "x"}),  # a key that is no string
    (pb.Event, {"kind": "card", "".join(["fo", "o"]): 1}),
    (pb.ValidationResult, {"tricks": [{"leader": 0, "cards": "1o"}]}),
    (pb.ValidationResult, {"tricks": ({"leader": 0},)}),
    (pb.DescribeRulesResponse, {"game": "x", "options": [{"name": "a", "default": 5}]}),  # a Value
]


@compiled
@pytest.mark.parametrize(("cls", "data"), LEFT)
def test_what_the_encoder_leaves_to_protobuf(cls: type[Message], data: Any) -> None:
    """The encoder refuses, and ``to_wire`` answers as the message would: its bytes, or its error;
    so does its check without writing (``as_json`` then asks the converter)."""
    with pytest.raises(codec._wire.Doubt):
        encoded(data, cls)
    with pytest.raises(codec._wire.Doubt):
        codec._wire.check(data, codec._wire_type(cls.DESCRIPTOR))
    try:
        want: Any = reference(data, cls)
    except json_format.ParseError as exc:
        with pytest.raises(json_format.ParseError) as got:
            codec.to_wire(data, cls)
        assert str(got.value) == str(exc)
    else:
        assert codec.to_wire(data, cls) == want


@compiled
def test_a_message_of_more_than_64_fields_is_written_field_by_field() -> None:
    """Past ``MAX_FIELDS`` the encoder looks each field up rather than placing the dict's keys:
    the same bytes (70 int32 fields, ``f0`` numbered 1), and the same refusal of an unknown key."""
    assert codec._wire is not None
    wire = codec._wire

    def made(count: int) -> Any:
        t = wire.Type()
        t.fields = [wire.Field(f"f{i}", i + 1, wire.Kind.INT32, False, False) for i in range(count)]
        return t

    data = {"f69": 5, "f2": 1, "f0": 0}  # fields 70 (a two-byte tag), 3 and 1 (0 without presence: not written)
    assert wire.encode(data, made(70)) == bytes([3 << 3, 1, 0xB0, 0x04, 5])
    assert wire.encode({"f2": 1, "f40": 2}, made(64)) == wire.encode({"f40": 2, "f2": 1}, made(70)) == bytes([3 << 3, 1, 0xC8, 0x02, 2])  # field 41: a two-byte tag
    with pytest.raises(wire.Doubt):
        wire.encode({"f2": 1, "g": 1}, made(70))


@compiled
def test_a_dict_subclass_is_left_to_protobuf() -> None:
    class Ordered(dict):  # type: ignore[type-arg]
        pass

    with pytest.raises(codec._wire.Doubt):
        encoded(Ordered(game="x"), pb.ValidationResult)
    assert codec.to_wire(Ordered(game="x"), pb.ValidationResult) == reference({"game": "x"}, pb.ValidationResult)


def test_compiled_when_required() -> None:
    if os.environ.get("NAIPES_REQUIRE_COMPILED") == "1":
        assert codec._wire is not None, "NAIPES_REQUIRE_COMPILED=1 but service/_wire.pyx is not compiled: make build"


def written_without_the_encoder(data: Any) -> bytes:
    """``codec.to_wire(data, pb.ValidationResult)`` in a process run with NAIPES_PURE=1."""
    script = ("import service, sys; from service import codec; from naipes.v1 import naipes_pb2 as pb; "
              "assert codec._wire is None and not service.COMPILED; "
              f"sys.stdout.write(codec.to_wire({data!r}, pb.ValidationResult).hex())")
    env = {**os.environ, "NAIPES_PURE": "1", "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, cwd=ROOT, timeout=60)
    assert run.returncode == 0, run.stderr
    return bytes.fromhex(run.stdout)


def test_the_sources_run_without_the_encoder() -> None:
    """With NAIPES_PURE=1 (or the encoder stale, or never compiled) the codec has protobuf write the
    answers: the same bytes."""
    data = {"game": "revesino", "valid": True, "events": [EVENT] * 3, "net": [-19, 7, -4, 16]}
    assert written_without_the_encoder(data) == reference(data, pb.ValidationResult)


def settle_request(record: dict, result: dict) -> dict:
    """SettleHand's request for a finished record of any game, as the service tests build it."""
    if record["game"] == "tresillo":
        return tresillo_settle_request(record, result)
    if record["game"] == "revesino":
        return revesino_settle_request(record, result)
    summary = {"winner": result["handWinner"], "value": result["value"], "end": result["end"]}
    return {"game": "rentoy", "seats": record["seats"], "dealer": record["dealer"], "rules": record.get("rules") or {},
            "table": record.get("table") or {"score": [0, 0]}, "rentoy": summary}


def example_calls() -> list[tuple[str, dict]]:
    """ValidateHand, LegalActions (the whole table's and seat 0's view) and, for a finished hand,
    SettleHand of every shared example record (a legal hand of each game, one cut short, one with
    a violation), and a refused request of each of the three RPCs."""
    calls: list[tuple[str, dict]] = []
    for path in sorted(examples_dir().glob("*.json")):
        record = load_example(path)[0]
        calls += [("ValidateHand", {"record": record}), ("LegalActions", {"record": record}), ("LegalActions", {"record": record, "seat": 0})]
        result = api.validate(record)
        if result["finished"]:
            calls.append(("SettleHand", settle_request(record, result)))
    assert {record["game"] for _, request in calls if (record := request.get("record"))} == {"tresillo", "revesino", "rentoy"}
    return calls + [(rpc, request) for _, rpc, request, _, _ in REFUSED_CALLS if rpc in ("ValidateHand", "LegalActions", "SettleHand")]


# A REST server (werkzeug, as tests/conftest.py runs the app) in a process run with NAIPES_PURE=1.
PURE_REST = ("import engine, service, sys; from service import codec; from service.rest import create_app; "
             "from werkzeug.serving import make_server; "
             "assert codec._wire is None and not service.COMPILED and not engine.COMPILED; "
             "server = make_server('127.0.0.1', 0, create_app(), threaded=True); "
             "print(f'REST on {server.server_port}', flush=True); server.serve_forever()")


@compiled
def test_rest_answers_written_without_the_encoder_are_the_compiled_servers(rest_url: str, http: requests.Session) -> None:
    """With NAIPES_PURE=1 REST's answers are checked against the schema by the converter (or built
    as messages) instead of the encoder (``codec.as_json``): a server so answers every example
    record's ValidateHand, LegalActions and SettleHand, and a refused request of each, with the
    status, media type and bytes the compiled server answers."""
    env = {**os.environ, "NAIPES_PURE": "1", "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    server = subprocess.Popen([sys.executable, "-c", PURE_REST], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, cwd=ROOT)
    try:
        pure_url = "http://127.0.0.1:" + read_until(server, lambda lines: any("REST on" in line for line in lines))[-1].split()[-1]
        statuses = []
        for rpc, request in example_calls():
            want, got = rest_request(http, rest_url, rpc, request), rest_request(http, pure_url, rpc, request)
            assert (got.status_code, got.headers["Content-Type"], got.content) == (
                want.status_code, want.headers["Content-Type"], want.content), (rpc, request)
            statuses.append(want.status_code)
    finally:
        stop(server)
    assert statuses.count(200) >= 40 and statuses.count(400) == 3


# ---- the decoder: a request's bytes as its JSON ----------------------------------------------


def number(field: int, value: int) -> bytes:
    return varint(field << 3) + varint(value)


def delimited(field: int, payload: bytes) -> bytes:
    return varint(field << 3 | 2) + varint(len(payload)) + payload


def parsed(data: bytes, cls: type[Message]) -> tuple[str, Any]:
    """What protobuf makes of the bytes: MessageToDict's JSON (as text: the key order counts), or
    the service's error."""
    try:
        message = cls.FromString(data)
    except Exception:
        where = codec._unreadable(data, cls)  # (a Struct protobuf refuses is named, as REST names it)
        if where is not None:
            return "error", ("INVALID_FIELD", where, f"{where}: nested deeper than protobuf's parser follows (100 messages), or not well formed")
        return "error", ("INVALID_FIELD", "body", f"the message is not a {cls.DESCRIPTOR.name}")
    unknown = codec.unknown_field_error(message) or codec._opaque_error(data, cls)  # (a field protobuf keeps aside, unread: refused)
    if unknown is not None:
        return "error", (unknown.code, unknown.field, unknown.message)
    return "ok", json.dumps(json_format.MessageToDict(message))


def read(data: bytes, cls: type[Message]) -> tuple[str, Any]:
    try:
        return "ok", json.dumps(codec.request_json(data, cls))
    except ServiceError as error:
        return "error", (error.code, error.field, error.message)


RULES = struct_pb2.Struct(fields={"enchilada": struct_pb2.Value(number_value=100), "soleraSurrender": struct_pb2.Value(string_value="asSolo"),
                                  "multiMatadorRenege": struct_pb2.Value(bool_value=True)}).SerializeToString()

READ: list[tuple[type[Message], bytes]] = [
    (pb.HandRecord, number(3, 1) + delimited(1, b"tresillo") + number(2, 4)),  # out of order: printed by number
    (pb.HandRecord, number(2, 0) + number(3, 0) + delimited(1, b"")),  # optional fields at their defaults: printed
    (pb.HandRecord, number(3, -1) + number(2, 2**31 - 1)),
    (pb.Table, number(1, -(2**31)) + number(4, -300)),
    (pb.Table, delimited(5, b"")),  # an empty packed list: not set
    (pb.Table, delimited(5, varint(3) + varint(-4) + varint(2**31 - 1))),
    (pb.Table, number(5, 3) + number(5, 4) + delimited(5, varint(5))),  # unpacked, then packed
    (pb.HandRecord, b"".join(delimited(7, text.encode()) for text in ("0 1o", "", "ñ", "x" * 16, "y" * 17, "z" * 300, "0 1o"))),
    (pb.HandRecord, delimited(6, b"") + delimited(5, b"")),  # empty messages: printed as {}
    (pb.HandRecord, delimited(6, delimited(1, b"1o 2o") + delimited(1, b"3o") + delimited(3, b"seed")) + delimited(4, RULES)),
    (pb.HandRecord, delimited(4, b"") + delimited(5, delimited(3, number(1, 0) + number(2, 4)) + delimited(3, b""))),
    (pb.ValidateHandsRequest, delimited(2, b"") + delimited(3, delimited(3, delimited(3, delimited(2, b"deep"))))),
    (pb.LegalActionsRequest, delimited(1, delimited(1, b"rentoy")) + number(2, 0)),
    (pb.ValidationResult, number(2, 1) + number(4, 0)),  # bools (no request has one): false is not set
    # a tag and a length in 5 bytes (padded with continuation bytes): the most protobuf reads
    (pb.DescribeRulesRequest, b"\x8a\x80\x80\x80\x00" + b"\x81\x80\x80\x80\x00" + b"x"),
    (pb.HandRecord, number(2, -1) + varint(3 << 3) + b"\x85\x80\x80\x80\x80\x80\x80\x80\x80\x00"),  # a value in 10
]


@compiled
@pytest.mark.parametrize(("cls", "data"), READ)
def test_the_decoder_reads_what_protobuf_parses(cls: type[Message], data: bytes) -> None:
    want = parsed(data, cls)
    assert want[0] == "ok"
    assert json.dumps(codec._wire.decode(data, codec._wire_type(cls.DESCRIPTOR))) == want[1]
    assert read(data, cls) == want


DEEP_BATCH = b""
for _ in range(40):
    DEEP_BATCH = delimited(3, DEEP_BATCH)

UNREAD: list[tuple[type[Message], bytes]] = [
    (pb.HandRecord, number(99, 1)),  # an unknown field: protobuf keeps it apart, and the service refuses it
    (pb.HandRecord, delimited(1, b"a") + delimited(1, b"b")),  # a singular field twice: the last
    (pb.HandRecord, delimited(6, delimited(2, b"x")) + delimited(6, delimited(3, b"y"))),  # a message twice: merged
    (pb.HandRecord, delimited(4, RULES) + delimited(4, RULES)),
    (pb.ValidationResult, number(2, 2)),  # a bool of 2: true
    (pb.HandRecord, number(2, 2**32 + 5)),  # an int32 beyond 32 bits: the low ones
    (pb.HandRecord, varint(1 << 3) + varint(5)),  # a varint for a string: an unknown field
    (pb.HandRecord, varint(2 << 3 | 5) + b"\x01\x00\x00\x00"),  # a fixed32 for an int32: unknown
    (pb.HandRecord, varint(50 << 3 | 3) + varint(50 << 3 | 4)),  # a group: unknown
    (pb.HandRecord, delimited(1, b"abc")[:-1]),  # truncated
    (pb.HandRecord, delimited(1, b"\xff\xfe")),  # not UTF-8
    (pb.HandRecord, delimited(7, b"\xed\xa0\x80")),  # a surrogate in UTF-8
    (pb.HandRecord, number(0, 1)),  # field number 0
    (pb.HandRecord, b"\x10" + b"\x80" * 10 + b"\x01"),  # a varint of 11 bytes
    (pb.HandRecord, varint(1 << 3 | 2) + varint(100) + b"abc"),  # a length beyond the end
    (pb.HandRecord, delimited(4, b"\x0a\x03abc")),  # a Struct protobuf refuses (a map entry cut short)
    (pb.ValidateHandsRequest, DEEP_BATCH),  # nested deeper than the decoder goes
    # a length or a tag in 6 bytes or more: protobuf refuses the message (a value's varint may
    # take 10); the decoder read them (found by tests/test_codec_fuzz.py)
    (pb.DescribeRulesRequest, b"\x0a" + b"\x80" * 5 + b"\x00"),
    (pb.DescribeRulesRequest, b"\x0a" + b"\x81" + b"\x80" * 8 + b"\x00" + b"x"),
    (pb.DescribeRulesRequest, b"\x8a" + b"\x80" * 4 + b"\x00" + varint(1) + b"x"),
    (pb.HandRecord, delimited(7, b"a") + b"\xba\x80\x80\x80\x80\x00" + varint(1) + b"b"),  # a list's item, its tag overlong
    (pb.ValidateHandsRequest, delimited(1, b"\x0a" + b"\x80" * 5 + b"\x00")),  # within a message
]


@compiled
@pytest.mark.parametrize(("cls", "data"), UNREAD)
def test_what_the_decoder_leaves_to_protobuf(cls: type[Message], data: bytes) -> None:
    """Not the canonical form: protobuf parses it, and the service answers as it always did (its
    JSON, or INVALID_FIELD when protobuf refuses the bytes)."""
    with pytest.raises(codec._wire.Doubt):
        codec._wire.decode(data, codec._wire_type(cls.DESCRIPTOR))
    assert read(data, cls) == parsed(data, cls)


@compiled
def test_the_decoders_kept_strings_are_the_right_ones() -> None:
    """Short strings are kept by a hash of their bytes and given again: thousands of distinct
    ones (more than the slots, so that slots are taken over) read back right, twice."""
    texts = [f"{i} {i % 48}o" for i in range(10_000)] + ["0 1o", "0 1o ", "ñ 1o", "x" * 16]
    data = b"".join(delimited(7, text.encode()) for text in texts)
    for _ in range(2):
        assert codec.request_json(data, pb.HandRecord)["actions"] == texts
    assert json.dumps(codec.request_json(data, pb.HandRecord)) == parsed(data, pb.HandRecord)[1]


def mangled(rng: random.Random, data: bytes) -> bytes:
    """The bytes with one to three random edits: a byte changed, some cut, inserted, repeated."""
    out = bytearray(data)
    for _ in range(rng.randint(1, 3)):
        at = rng.randrange(len(out) + 1)
        edit = rng.randrange(5)
        if edit == 0 and at < len(out):
            out[at] = rng.randrange(256)
        elif edit == 1:
            del out[at:at + rng.randint(1, 8)]
        elif edit == 2:
            out[at:at] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 4)))
        elif edit == 3:
            out[at:at] = out[max(0, at - 12):at]
        else:
            del out[at:]
    return bytes(out)


@compiled
def test_mangled_requests_read_as_protobuf_reads_them() -> None:
    """Random edits of real requests (a record under house rules, a stream's batch): whatever the
    decoder reads is what protobuf parses and MessageToDict prints, and bytes protobuf refuses
    are INVALID_FIELD; never anything else. Bounded and deterministic."""
    from bench.engine_driver import random_record

    rng = random.Random(11)
    samples: list[tuple[type[Message], bytes]] = []
    for game in ("tresillo", "revesino", "rentoy"):
        record = json_format.ParseDict(random_record(game, 4, seed=rng.randrange(10**6)), pb.HandRecord())
        record.rules.update({"ladder": "short", "playAllTricks": True, "enchilada": 100})
        samples.append((pb.ValidateHandRequest, pb.ValidateHandRequest(record=record).SerializeToString()))
        samples.append((pb.LegalActionsRequest, pb.LegalActionsRequest(record=record, seat=1).SerializeToString()))
        samples.append((pb.ValidateHandsRequest, pb.ValidateHandsRequest(id="a", batch=[
            pb.ValidateHandsRequest(id=str(i), record=record) for i in range(3)]).SerializeToString()))
    decoded = refused = 0
    for cls, data in samples:
        for _ in range(400):
            bad = mangled(rng, data)
            want = parsed(bad, cls)
            assert read(bad, cls) == want, bad.hex()
            try:
                codec._wire.decode(bad, codec._wire_type(cls.DESCRIPTOR))
                decoded += 1
            except codec._wire.Doubt:
                pass
            refused += want[0] == "error"
    assert decoded > 50 and refused > 500  # read by the decoder, and refused by protobuf, often
