"""The codec's wire encoder (service/_wire.pyx, ``codec.to_wire``) against protobuf.

``to_wire(data, cls)`` promises the bytes of ``from_engine(data, cls).SerializeToString()``, or
the same error. tests/test_codec_fast.py holds that over every RPC's real answers and the codec's
edge cases; these are the encoder's own: lengths that need a longer varint (a string, a nested
message, a packed list and a whole answer past 127 and 16,383 bytes, past the encoder's first
buffer), negative and extreme int32s, multi-byte UTF-8, defaults with and without presence,
and what the encoder must leave to protobuf (the answer then built as a message, as before).
The transports answer through it: the gRPC tests read every unary answer and streamed record.
"""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Any

import pytest
from examples_support import ROOT
from google.protobuf import json_format
from google.protobuf.message import Message

from naipes.v1 import naipes_pb2 as pb
from service import codec

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
]


@compiled
@pytest.mark.parametrize(("cls", "data"), WRITTEN)
def test_the_encoder_writes_protobufs_bytes(cls: type[Message], data: Any) -> None:
    assert encoded(data, cls) == reference(data, cls)
    assert codec.to_wire(data, cls) == reference(data, cls)


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
    (pb.ValidationResult, {"tricks": [{"leader": 0, "cards": "1o"}]}),
    (pb.ValidationResult, {"tricks": ({"leader": 0},)}),
    (pb.DescribeRulesResponse, {"game": "x", "options": [{"name": "a", "default": 5}]}),  # a Value
]


@compiled
@pytest.mark.parametrize(("cls", "data"), LEFT)
def test_what_the_encoder_leaves_to_protobuf(cls: type[Message], data: Any) -> None:
    """The encoder refuses, and ``to_wire`` answers as the message would: its bytes, or its error."""
    with pytest.raises(codec._wire.Doubt):
        encoded(data, cls)
    try:
        want: Any = reference(data, cls)
    except json_format.ParseError as exc:
        with pytest.raises(json_format.ParseError) as got:
            codec.to_wire(data, cls)
        assert str(got.value) == str(exc)
    else:
        assert codec.to_wire(data, cls) == want


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


def test_the_sources_run_without_the_encoder() -> None:
    """With NAIPES_PURE=1 (or the encoder stale, or never compiled) the codec has protobuf write the
    answers: the same bytes."""
    data = {"game": "revesino", "valid": True, "events": [EVENT] * 3, "net": [-19, 7, -4, 16]}
    script = ("import service, sys; from service import codec; from naipes.v1 import naipes_pb2 as pb; "
              "assert codec._wire is None and not service.COMPILED; "
              f"sys.stdout.write(codec.to_wire({data!r}, pb.ValidationResult).hex())")
    env = {**os.environ, "NAIPES_PURE": "1", "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, cwd=ROOT, timeout=60)
    assert run.returncode == 0, run.stderr
    assert bytes.fromhex(run.stdout) == reference(data, pb.ValidationResult)
