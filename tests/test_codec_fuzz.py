"""Property-based differential fuzzing of the codec's fast paths against protobuf's own.

The codec has three fast paths that promise protobuf's answers (service/codec.py,
service/_wire.pyx): the compiled decoder of a gRPC request's wire bytes (``request_json``), the
read of a REST body or an NDJSON line by orjson straight into the engine's JSON
(``request_from_json``, ``stream.line_json``) and the compiled encoder of an answer's wire bytes
(``to_wire``). tests/test_wire.py and tests/test_codec_fast.py hold them to protobuf over real
requests and answers and hand-picked edge cases; here hypothesis generates the inputs from the
schema's descriptors, and each property compares the whole path the service takes (fast path,
and its fallback when it doubts) with a reference that never takes a fast path:

* wire bytes of every request message: fields of the right and the wrong wire types, unknown
  fields, packed and unpacked lists, overlong, out-of-range and 10-byte negative varints, a
  singular field twice, invalid UTF-8, Structs (valid, cut short, with a key twice), wrong and
  huge lengths, truncation, flipped bytes. Reference: ``Message.FromString``, the service's
  unknown-field check, ``json_format.MessageToDict``.
* JSON bodies of every REST route that takes one, and NDJSON lines of the stream: every field by
  its JSON and its proto name, nulls, wrong types, ``1.0``, ``1e2``, ``-0``, integers as strings,
  integers beyond 64 bits and beyond ``int()``'s digits, ``\\u`` escapes and lone surrogates,
  keys given twice, deep nesting, ``NaN`` and ``Infinity``, cut-off text. Reference: the
  standard library's ``json.loads`` (the codec's ``loads``, whose errors are the service's
  words), ``json_format.ParseDict`` and ``MessageToDict``.
* answers of every response message, as the engine's dicts, with wrong types, out-of-range
  numbers, nulls, unknown and proto-named keys. Reference: ``json_format.ParseDict`` then
  ``SerializeToString``; the encoder's bytes must be the same bytes (tests/test_wire.py holds
  them byte for byte).

A result must be the same JSON (key order included, but a Struct's keys, whose order protobuf's
map gives), or both sides the same error: the same class, and for the service's errors the same
code, field and text. Known, documented departures are left out where they arise (named at
each). Deterministic (``derandomize``, no example database) and bounded: 2,700 examples, about
22 s on a 2-core machine (``.venv/bin/pytest -q -p no:cacheprovider tests/test_codec_fuzz.py``);
``NAIPES_FUZZ_SCALE=20`` runs twenty times as many, from a random seed, for a hunt by hand.
Each property was seen to fail on a planted fault (a length read in 6 bytes, a false bool left
out though optional, a Struct's integer left an int by the fast read).
tools/fuzz_codec.py runs the same properties under atheris, coverage-guided, for longer runs by
hand.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from google.protobuf import json_format, message_factory, struct_pb2
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from test_wire import varint

from naipes.v1 import naipes_pb2 as pb
from service import codec
from service.errors import ServiceError

compiled = pytest.mark.skipif(codec._wire is None, reason="service/_wire.pyx is not compiled here (make build)")

SERVICE = pb.DESCRIPTOR.services_by_name["NaipesService"]
REQUESTS = sorted({m.input_type.full_name: m.input_type for m in SERVICE.methods}.items())
ANSWERS = sorted({m.output_type.full_name: m.output_type for m in SERVICE.methods}.items())
REQUEST_TYPES = [d for _, d in REQUESTS]
ANSWER_TYPES = [d for _, d in ANSWERS]

FUZZ = settings(derandomize=True, database=None, deadline=None, print_blob=False,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much])
# NAIPES_FUZZ_SCALE=20 runs twenty times the examples (a longer hunt by hand; another seed too).
SCALE = float(os.environ.get("NAIPES_FUZZ_SCALE", "1"))


def fuzz(examples: int) -> settings:
    if SCALE == 1:
        return settings(FUZZ, max_examples=examples)
    # (NAIPES_FUZZ_SHRINK=0: the first failure as found, for inputs that take long to shrink)
    phases = [Phase.generate] if os.environ.get("NAIPES_FUZZ_SHRINK") == "0" else list(Phase)
    return settings(FUZZ, max_examples=max(1, int(examples * SCALE)), derandomize=False, phases=phases)

_C = FieldDescriptor
_STRUCT = "google.protobuf.Struct"
_VALUE = "google.protobuf.Value"


def cls_of(descriptor: Descriptor) -> type[Message]:
    return message_factory.GetMessageClass(descriptor)


# ---- outcomes and references --------------------------------------------------------------------


def outcome(fn: Callable[..., Any], *args: Any) -> tuple[str, Any]:
    """What a call gives: its value, or its error (a ServiceError by code, field and text; any
    other exception by class and text)."""
    try:
        return "ok", fn(*args)
    except ServiceError as error:
        return "error", ("ServiceError", error.code, error.field, error.message)
    except Exception as exc:  # an unexpected one: compared too (INTERNAL on the service)
        return "error", (type(exc).__name__, re.sub(r" at 0x[0-9a-f]+", "", str(exc)))  # (an object's address)


def shown(value: Any) -> str:
    """JSON text for comparing (key order counts; 1 is not 1.0; NaN shows as NaN)."""
    return json.dumps(value, ensure_ascii=False, sort_keys=False)


def structs_sorted(data: Any, descriptor: Descriptor | None) -> Any:
    """``data`` (a message's JSON) with the keys of its Structs sorted: their order is the order of
    protobuf's map, or of the body, not the schema's."""
    if descriptor is None or not isinstance(data, dict):
        return data
    if descriptor.full_name == _STRUCT:
        return sorted_keys(data)
    out = {}
    for key, value in data.items():
        field = descriptor.fields_by_camelcase_name.get(key) or descriptor.fields_by_name.get(key)
        sub = field.message_type if field is not None else None
        if isinstance(value, list):
            out[key] = [structs_sorted(item, sub) for item in value]
        else:
            out[key] = structs_sorted(value, sub)
    return out


def sorted_keys(data: Any) -> Any:
    if isinstance(data, dict):
        return {k: sorted_keys(data[k]) for k in sorted(data)}
    return [sorted_keys(item) for item in data] if isinstance(data, list) else data


def engine_json(message: Message) -> dict[str, Any]:
    """``MessageToDict``, the JSON the engine takes; where it refuses an infinite or NaN number in
    a Struct, the codec gives the number as it is (``to_engine``, a documented choice: the engine
    names the option that cannot be it; tests/test_codec_fast.py
    ``test_printing_values_json_format_refuses``)."""
    try:
        return json_format.MessageToDict(message)
    except (ValueError, json_format.SerializeToJsonError) as exc:
        assert "Infinity" in str(exc) or "NaN" in str(exc), exc
        return codec.to_engine(message)


def same(got: tuple[str, Any], want: tuple[str, Any], descriptor: Descriptor, data: Any) -> None:
    if want[0] == "ok" and got[0] == "ok":
        assert shown(structs_sorted(got[1], descriptor)) == shown(structs_sorted(want[1], descriptor)), data
    else:
        assert got == want, data


# ---- wire bytes --------------------------------------------------------------------------------


def overlong(value: int, length: int) -> bytes:
    """``value``'s varint padded to ``length`` bytes with continuation bytes (protobuf reads up to
    ten; an eleventh is an error)."""
    out = bytearray(varint(value))
    while len(out) < length:
        out[-1] |= 0x80
        out.append(0)
    return bytes(out)


def key(number: int, wire: int) -> bytes:
    return varint(number << 3 | wire)


INT32_EDGES = [0, 1, -1, 127, 128, 2**31 - 1, -(2**31), 2**31, 2**32 - 1, 2**32 + 5, -(2**31) - 1, 2**63, 2**64 - 1, -(2**63)]


@st.composite
def int_varint(draw: st.DrawFn) -> bytes:
    value = draw(st.one_of(st.sampled_from(INT32_EDGES), st.integers(-(2**31), 2**31 - 1), st.integers(0, 2**64 - 1)))
    form = draw(st.integers(0, 9))
    if form == 0:
        return overlong(value, draw(st.integers(len(varint(value)), 11)))
    if form == 1:
        return varint(value & 0xFFFFFFFF)  # a negative int32 in 5 bytes (not 10)
    return varint(value)


@st.composite
def length_of(draw: st.DrawFn, payload: bytes) -> bytes:
    """A length-delimited field's length and payload: mostly right, sometimes a wrong or huge
    length, or an overlong varint."""
    form = draw(st.integers(0, 19))
    if form == 0:
        return varint(draw(st.sampled_from([len(payload) + 1, max(len(payload) - 1, 0), 2**31, 2**32 + len(payload), 2**63, 2**64 - 1]))) + payload
    if form == 1:
        return overlong(len(payload), draw(st.integers(2, 11))) + payload
    return varint(len(payload)) + payload


TEXTS = st.one_of(st.sampled_from(["", "0 1o", "tresillo", "ñ", "𝄞", "x" * 16, "y" * 17]), st.text(max_size=20))


@st.composite
def string_bytes(draw: st.DrawFn) -> bytes:
    form = draw(st.integers(0, 7))
    if form == 0:
        return draw(st.binary(max_size=12))  # mostly not UTF-8
    if form == 1:
        return draw(st.sampled_from([b"\xed\xa0\x80", b"\xc0\x80", b"\xf4\x90\x80\x80", b"a\xff", b"\xe2\x82", b"\x00"]))
    return draw(TEXTS).encode("utf-8", "surrogatepass")


JSONISH = st.recursive(
    st.one_of(st.none(), st.booleans(), st.floats(allow_nan=True, allow_infinity=True), st.integers(-(2**60), 2**60), TEXTS),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(TEXTS, inner, max_size=3)),
    max_leaves=8)


def as_value(data: Any) -> struct_pb2.Value:
    value = struct_pb2.Value()
    if data is None:
        value.null_value = struct_pb2.NULL_VALUE
    elif isinstance(data, bool):
        value.bool_value = data
    elif isinstance(data, (int, float)):
        value.number_value = data
    elif isinstance(data, str):
        value.string_value = data
    elif isinstance(data, list):
        value.list_value.values.extend(as_value(item) for item in data)
    else:
        for k, item in data.items():
            value.struct_value.fields[k].CopyFrom(as_value(item))
    return value


@st.composite
def struct_bytes(draw: st.DrawFn) -> bytes:
    """A Struct's bytes: a real one (numbers infinite and NaN too), one key twice, an entry cut
    short, an empty Value, or garbage."""
    form = draw(st.integers(0, 9))
    if form == 0:
        return draw(st.binary(max_size=12))
    if form == 1:  # a map entry without its value, or without its key
        return draw(st.sampled_from([b"\x0a\x03\x0a\x01a", b"\x0a\x02\x12\x00", b"\x0a\x03abc", b"\x0a\x00"]))
    fields = draw(st.dictionaries(st.text(max_size=4), JSONISH, max_size=4))
    struct = struct_pb2.Struct()
    try:
        for k, v in fields.items():
            struct.fields[k].CopyFrom(as_value(v))
    except (ValueError, TypeError, UnicodeError):
        struct = struct_pb2.Struct()
    data = struct.SerializeToString()
    if form == 2 and data:
        data = data + data[: draw(st.integers(1, len(data)))]  # (entries again: the last of a key wins)
    if form == 3:
        data += b"\x0a\x05\x0a\x01k\x12\x00"  # an empty Value: null
    return data


@st.composite
def field_bytes(draw: st.DrawFn, field: FieldDescriptor, depth: int) -> bytes:
    """One occurrence of a known field, mostly in its own wire type."""
    number = field.number
    if draw(st.integers(0, 14)) == 0:  # a wrong wire type, or a group
        wire = draw(st.sampled_from([0, 1, 2, 3, 4, 5, 6, 7]))
        payload = {0: varint(draw(st.integers(0, 2**64 - 1))), 1: b"\x01" * 8, 2: varint(1) + b"a", 5: b"\x01" * 4}.get(wire, b"")
        return key(number, wire) + payload
    sub = field.message_type
    if sub is not None:
        if sub.full_name == _STRUCT:
            payload = draw(struct_bytes())
        elif sub.full_name == _VALUE:
            payload = as_value(draw(JSONISH)).SerializeToString()
        else:
            payload = draw(message_bytes(sub, depth + 1))
        return key(number, 2) + draw(length_of(payload))
    if field.type == _C.TYPE_STRING:
        return key(number, 2) + draw(length_of(draw(string_bytes())))
    if field.type == _C.TYPE_BOOL:
        return key(number, 0) + draw(st.sampled_from([b"\x00", b"\x01", b"\x02", b"\x81\x00", b"\x80\x80\x00", varint(2**64 - 1)]))
    if codec.is_repeated(field) and draw(st.booleans()):  # packed
        items = b"".join(draw(st.lists(int_varint(), max_size=4)))
        return key(number, 2) + draw(length_of(items))
    return key(number, 0) + draw(int_varint())


@st.composite
def message_bytes(draw: st.DrawFn, descriptor: Descriptor, depth: int = 0) -> bytes:
    """A message's wire bytes: its fields in any order, some twice, unknown fields, garbage."""
    fields = list(descriptor.fields)
    chunks = []
    for _ in range(draw(st.integers(0, 6 if depth < 3 else 1))):
        kind = draw(st.integers(0, 19))
        if kind == 0:
            number = draw(st.sampled_from([len(fields) + 1, 15, 16, 99, 2047, 2**29 - 1, 2**29, 2**32]))
            wire = draw(st.sampled_from([0, 1, 2, 5]))
            payload = {0: varint(7), 1: b"\x00" * 8, 2: varint(2) + b"xy", 5: b"\x00" * 4}[wire]
            chunks.append(varint(number << 3 | wire) + payload)
        elif kind == 1:
            chunks.append(draw(st.binary(max_size=6)))
        elif fields:
            field = draw(st.sampled_from(fields))
            times = 2 if kind == 2 else 1  # a singular field twice: the last wins (a message: merged)
            chunks.extend(draw(field_bytes(field, depth)) for _ in range(times))
    data = b"".join(chunks)
    if depth == 0 and data:
        edit = draw(st.integers(0, 11))
        if edit == 0:
            data = data[: draw(st.integers(0, len(data) - 1))]
        elif edit == 1:
            at = draw(st.integers(0, len(data) - 1))
            data = data[:at] + bytes([draw(st.integers(0, 255))]) + data[at + 1:]
    return data


def wire_reference(data: bytes, cls: type[Message]) -> tuple[str, Any]:
    """What protobuf makes of the bytes, as the service answers it: MessageToDict's JSON, or the
    service's INVALID_FIELD where protobuf refuses them or keeps a field aside unread."""
    try:
        message = cls.FromString(data)
    except Exception:
        where = codec._unreadable(data, cls)
        if where is not None:
            return "error", ("ServiceError", "INVALID_FIELD", where,
                             f"{where}: nested deeper than protobuf's parser follows (100 messages), or not well formed")
        return "error", ("ServiceError", "INVALID_FIELD", "body", f"the message is not a {cls.DESCRIPTOR.name}")
    unknown = codec.unknown_field_error(message)
    if unknown is not None:
        return "error", ("ServiceError", unknown.code, unknown.field, unknown.message)
    return "ok", engine_json(message)


def check_wire_request(data: bytes, cls: type[Message]) -> None:
    """``request_json`` (the compiled decoder, or protobuf when it doubts) against protobuf."""
    want = wire_reference(data, cls)
    got = outcome(codec.request_json, data, cls)
    if want[0] == "ok" and got[0] == "ok":  # (order counts: protobuf parsed any Struct on both sides)
        assert shown(got[1]) == shown(want[1]), data.hex()
    else:
        assert got == want, data.hex()


@compiled
@fuzz(800)
@given(st.data())
def test_wire_requests(data: st.DataObject) -> None:
    descriptor = data.draw(st.sampled_from(REQUEST_TYPES))
    check_wire_request(data.draw(message_bytes(descriptor)), cls_of(descriptor))


# ---- JSON text ----------------------------------------------------------------------------------
# A JSON document is drawn as a tree and written out by hand, so that it may hold what no JSON
# writer writes: a key twice, numbers as written (1.0, 1e2, -0, 30 digits), NaN, \u escapes.


class Obj(list[tuple[str, Any]]):
    """An object's members in order (a key may come twice)."""


class Token:
    """Text to write (not a str subclass: hypothesis would take one for a choice of its own)."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.text!r})"


class Num(Token):
    """A number token, as written."""


class Raw(Token):
    """Text written as it is (true, null, NaN, cut-off JSON)."""


class Esc(Token):
    """A string written with every non-ASCII character as a \\u escape."""


class Deep:
    def __init__(self, depth: int, inner: Any, bracket: str) -> None:
        self.depth, self.inner, self.bracket = depth, inner, bracket


def write(node: Any) -> str:
    if node is None or isinstance(node, bool):
        return json.dumps(node)
    if isinstance(node, Obj):
        return "{" + ", ".join(f"{write_string(k, False)}: {write(v)}" for k, v in node) + "}"
    if isinstance(node, list):
        return "[" + ",".join(write(item) for item in node) + "]"
    if isinstance(node, (Num, Raw)):
        return node.text
    if isinstance(node, Esc):
        return write_string(node.text, True)
    if isinstance(node, Deep):
        opening, closing = (("[", "]") if node.bracket == "[" else ('{"a":', "}"))
        return opening * node.depth + write(node.inner) + closing * node.depth
    return write_string(node, False)


def write_string(text: str, escaped: bool) -> str:
    return json.dumps(str(text), ensure_ascii=escaped)


def to_bytes(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")  # (a lone surrogate: bytes that are not UTF-8)


def json_string() -> st.SearchStrategy[Any]:
    return st.one_of(TEXTS, TEXTS.map(Esc), st.sampled_from(["\ud800", "\udfff x", "\ud83d\ude00", "\u2028", "\x00", "é"]).map(Esc),
                     st.sampled_from(["\ud800", "a\udc00"]))


NUMBERS = ["0", "-0", "1", "-1", "1.0", "1e2", "1E2", "-1e2", "4.5", "0.0", "-0.0", "1e-2", "2147483647", "2147483648", "-2147483648",
           "-2147483649", "4294967295", "4294967296", "9223372036854775807", "9223372036854775808", "18446744073709551615",
           "18446744073709551616", "-9223372036854775809", "1" + "0" * 30, "1e400", "-1e400", "1" + "0" * 4400, "2e9", "4.0e0",
           "9007199254740993", "123456789012345678901234567890.5"]


def json_number() -> st.SearchStrategy[Any]:
    return st.one_of(st.sampled_from(NUMBERS).map(Num), st.integers(-(2**31), 2**31 - 1).map(lambda n: Num(str(n))),
                     st.floats(allow_nan=False, allow_infinity=False).map(lambda x: Num(repr(x))))


SCALARS = st.one_of(json_number(), json_string(), st.sampled_from(["true", "false", "null", "NaN", "Infinity", "-Infinity"]).map(Raw))


def json_any(max_leaves: int = 6) -> st.SearchStrategy[Any]:
    return st.recursive(SCALARS, lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.lists(st.tuples(st.one_of(TEXTS, st.just("a")), inner), max_size=3).map(Obj)),
        max_leaves=max_leaves)


def keyed(values: list[Any]) -> Obj:
    """An object of ``values`` under distinct keys."""
    return Obj(zip(["a", "", "ñ b", "0 1o", "x" * 17], values, strict=False))


CLEAN_JSON = st.recursive(
    st.one_of(st.none(), st.booleans(), TEXTS, st.integers(-(2**53), 2**53).map(lambda n: Num(str(n))),
              st.floats(allow_nan=False, allow_infinity=False).map(lambda x: Num(repr(x)))),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.lists(inner, max_size=3).map(keyed)),
    max_leaves=6)


@st.composite
def json_value(draw: st.DrawFn, field: FieldDescriptor, depth: int, clean: bool, item: bool = False) -> Any:
    """A field's value: of its type (``clean``: what the fast read takes), or sometimes another
    type, null, or anything."""
    if not clean and draw(st.integers(0, 11)) == 0:
        return draw(st.one_of(SCALARS, st.just([]), st.just(Obj())))
    if codec.is_repeated(field) and not item:
        return draw(st.lists(json_value(field, depth, clean, True), max_size=3))
    sub = field.message_type
    if sub is not None:
        if sub.full_name in (_STRUCT, _VALUE):
            if clean:
                return keyed(draw(st.lists(CLEAN_JSON, max_size=5)))
            form = draw(st.integers(0, 9))
            if form == 0:
                return Deep(draw(st.sampled_from([31, 32, 33, 99, 100, 101, 1100])), draw(SCALARS), draw(st.sampled_from("[{")))
            return Obj(draw(st.lists(st.tuples(st.one_of(TEXTS, st.just("a")), json_any()), max_size=4)))
        return draw(json_object(sub, depth + 1, clean))
    if field.type == _C.TYPE_STRING:
        return draw(st.one_of(TEXTS, TEXTS.map(Esc)) if clean else json_string())
    if field.type == _C.TYPE_BOOL:
        return Raw(draw(st.sampled_from(["true", "false"])))
    if clean:
        return Num(str(draw(st.one_of(st.integers(-(2**31), 2**31 - 1), st.sampled_from([0, -1, 2**31 - 1, -(2**31)])))))
    # an integer: as a number, or as a string (protobuf's JSON mapping reads "4")
    number = draw(json_number())
    form = draw(st.integers(0, 5))
    return [number, number, number, number.text, " " + number.text, "４"][form]


@st.composite
def json_object(draw: st.DrawFn, descriptor: Descriptor, depth: int = 0, clean: bool = False) -> Obj:
    """A message's JSON object: fields by their JSON names; unless ``clean``, sometimes by their
    proto names, unknown keys, a key twice."""
    fields = [f for f in descriptor.fields if depth < 3 or f.message_type is None]  # (a batch holds batches)
    if clean:
        chosen = draw(st.lists(st.integers(0, len(fields) - 1), unique=True, max_size=5 if depth < 3 else 1)) if fields else []
        return Obj((fields[i].json_name, draw(json_value(fields[i], depth, True))) for i in chosen)
    out = Obj()
    for _ in range(draw(st.integers(0, 5 if depth < 3 else 1))):
        kind = draw(st.integers(0, 19))
        if kind == 0:
            out.append((draw(st.sampled_from(["foo", "[naipes.x]", "", "Game", "@type"])), draw(SCALARS)))
        elif fields:
            field = draw(st.sampled_from(fields))
            name = field.name if kind == 1 else field.json_name
            out.append((name, draw(json_value(field, depth, False))))
            if kind == 2:
                out.append((name, draw(json_value(field, depth, False))))
    return out


@st.composite
def json_body(draw: st.DrawFn, descriptor: Descriptor) -> bytes:
    """A body: a message's JSON, half of them clean (what the fast read takes), or any JSON; its
    text sometimes cut off, or with white space or a byte order mark around it."""
    clean = draw(st.booleans())
    form = draw(st.integers(0, 24))
    node: Any = draw(json_object(descriptor, 0, clean)) if form or clean else draw(json_any())
    text = write(node)
    edit = draw(st.integers(3 if clean else 0, 14))
    if edit == 0 and text:
        text = text[: draw(st.integers(0, len(text) - 1))]
    elif edit == 1:
        text = " \n" + text + "\t"
    elif edit == 2:
        text = "\ufeff" + text
    return to_bytes(text)


def ref_from_json(data: Any, message: Message, where: str = "") -> Message:
    """``codec.from_json`` without its fast path (``_merge``): ``json_format.ParseDict``, its
    errors in the service's words."""
    if not isinstance(data, dict):
        raise ServiceError("INVALID_FIELD", f"{where or 'the body'} must be a JSON object, not {codec.json_kind(data)}", where or "body")
    data = codec._checked_numbers(data, message.DESCRIPTOR, where)
    try:
        json_format.ParseDict(data, message, ignore_unknown_fields=False)
    except json_format.ParseError as exc:
        raise codec.parse_error(data, str(exc), where, message.DESCRIPTOR) from None
    except SystemError:  # (a key protobuf cannot look up: the codec names it, as from_json does)
        error = codec._name_not_utf8(data, message.DESCRIPTOR, where)
        if error is None:
            raise
        raise error from None
    return message


def rest_reference(data: bytes, cls: type[Message], part: str | None) -> dict[str, Any]:
    message = cls()
    ref_from_json(codec.loads(data, "the body"), message if part is None else getattr(message, part))
    return engine_json(message)


def rest_read(data: bytes, cls: type[Message], part: str | None) -> dict[str, Any]:
    """How REST reads a body (service/rest.py ``_endpoint``, a route without path variables)."""
    fast = codec.request_from_json(data, cls, part)
    if fast is not None:
        return fast
    message = cls()
    codec.from_json(codec.loads(data, "the body"), message if part is None else getattr(message, part))
    return codec.to_engine(message)


def _rest_routes() -> list[tuple[Descriptor, str | None]]:
    from service.rest import http_routes

    found = {(r.method.input_type.full_name, r.body): r for r in http_routes() if r.body and not r.variables and not r.streaming}
    return [(r.method.input_type, None if r.body == "*" else r.body) for _, r in sorted(found.items())]


ROUTES = _rest_routes()


def check_rest_body(data: bytes, cls: type[Message], part: str | None) -> None:
    same(outcome(rest_read, data, cls, part), outcome(rest_reference, data, cls, part), cls.DESCRIPTOR, data)


@fuzz(800)
@given(st.data())
def test_rest_bodies(data: st.DataObject) -> None:
    descriptor, part = data.draw(st.sampled_from(ROUTES))
    target = descriptor if part is None else descriptor.fields_by_name[part].message_type
    check_rest_body(data.draw(json_body(target)), cls_of(descriptor), part)


@contextlib.contextmanager
def codec_without_fast_reads() -> Iterator[None]:
    """The stream's reading of a line (``stream.request_of_line``) with ``from_json`` the
    reference's (it imports it from the codec at each call)."""
    original = codec.from_json
    codec.from_json = ref_from_json  # type: ignore[assignment]
    try:
        yield
    finally:
        codec.from_json = original  # type: ignore[assignment]


def line_reference(line: bytes) -> tuple[dict[str, Any], dict[int, Any]]:
    from service import stream

    with codec_without_fast_reads():
        request, unreadable = stream.request_of_line(line)
    return engine_json(request), unreadable


def check_ndjson_line(line: bytes) -> None:
    """``stream.line_json`` (the fast read of a line, or None) against the message's way; the
    way the stream answers a line (fast read, else ``request_of_line``) likewise."""
    from service import stream

    fast = outcome(stream.line_json, line)
    want = outcome(line_reference, line)
    if fast[0] == "error":
        raise AssertionError(f"line_json raised {fast[1]} on {line!r}")
    if fast[1] is not None:
        assert want[0] == "ok" and want[1][1] == {}, (line, want)
        same(("ok", fast[1]), ("ok", want[1][0]), pb.ValidateHandsRequest.DESCRIPTOR, line)
    got = outcome(stream.request_of_line, line)
    if got[0] == "ok":
        got = ("ok", (codec.to_engine(got[1][0]), got[1][1]))
    if want[0] == "ok" and got[0] == "ok":
        same(("ok", got[1][0]), ("ok", want[1][0]), pb.ValidateHandsRequest.DESCRIPTOR, line)
        assert got[1][1] == want[1][1], line
    else:
        assert got == want, line


@st.composite
def ndjson_line(draw: st.DrawFn) -> bytes:
    form = draw(st.integers(0, 3))
    if form == 0:
        return draw(json_body(pb.HandRecord.DESCRIPTOR))  # a bare hand record
    if form == 1:  # a batch of items
        clean = draw(st.booleans())
        item = json_object(pb.ValidateHandsRequest.DESCRIPTOR, 1, clean)
        items = draw(st.lists(item if clean else st.one_of(item, SCALARS), max_size=3))
        rest = [pair for pair in draw(json_object(pb.ValidateHandsRequest.DESCRIPTOR, 1, clean)) if not clean or pair[0] != "batch"]
        node = Obj([("batch", items), *rest])
        return to_bytes(write(node))
    return draw(json_body(pb.ValidateHandsRequest.DESCRIPTOR))


@fuzz(400)
@given(ndjson_line())
def test_ndjson_lines(line: bytes) -> None:
    check_ndjson_line(line)


# ---- answers -------------------------------------------------------------------------------------

PY_WRONG = [None, True, False, 1, -1, 0, 1.0, 1.5, math.nan, math.inf, "1", "", b"x", "\ud800", [], {}, (1,), 2**31, -(2**31) - 1, 2**64]


@st.composite
def answer_value(draw: st.DrawFn, field: FieldDescriptor, depth: int, item: bool = False) -> Any:
    if draw(st.integers(0, 14)) == 0:
        return draw(st.sampled_from(PY_WRONG))
    if codec.is_repeated(field) and not item:
        items = draw(st.lists(answer_value(field, depth, True), max_size=3))
        return tuple(items) if draw(st.integers(0, 30)) == 0 else items
    sub = field.message_type
    if sub is not None:
        if sub.full_name == _VALUE:
            return draw(JSONISH)
        if sub.full_name == _STRUCT:
            return draw(st.dictionaries(TEXTS, JSONISH, max_size=3))
        return draw(answer(sub, depth + 1))
    if field.type == _C.TYPE_STRING:
        return draw(st.one_of(TEXTS, st.sampled_from(["\ud800", "a" * 200])))
    if field.type == _C.TYPE_BOOL:
        return draw(st.booleans())
    return draw(st.one_of(st.sampled_from(INT32_EDGES[:7]), st.integers(-(2**31), 2**31 - 1), st.integers(-300, 300)))


@st.composite
def answer(draw: st.DrawFn, descriptor: Descriptor, depth: int = 0) -> dict[str, Any]:
    """An engine answer's dict: fields by their JSON names, mostly of their types."""
    fields = list(descriptor.fields)
    out: dict[str, Any] = {}
    for _ in range(draw(st.integers(0, 6 if depth < 2 else 2))):
        kind = draw(st.integers(0, 29))
        if kind == 0:
            out[draw(st.sampled_from(["foo", "", "Game"]))] = 1
        elif fields:
            field = draw(st.sampled_from(fields))
            out[field.name if kind == 1 else field.json_name] = draw(answer_value(field, depth))
    return out


def slipped(data: Any, descriptor: Descriptor) -> bool:
    """Whether an answer holds one of the two slips the codec lets through by design in its lists
    of leaf messages (events, payments, tricks, which go to protobuf's constructor unread): an
    integer given for a bool, bytes for a string (codec ``_Type.leaf``; tests/test_codec_fast.py
    ``test_lists_of_leaf_messages_go_to_the_constructor``)."""
    if not isinstance(data, dict):
        return False
    for k, value in data.items():
        field = descriptor.fields_by_camelcase_name.get(k) or descriptor.fields_by_name.get(k)
        if field is None or field.message_type is None or field.message_type.full_name in (_STRUCT, _VALUE):
            continue
        sub = field.message_type
        items = value if isinstance(value, (list, tuple)) else [value]
        leaf = codec.is_repeated(field) and codec._type(sub).leaf
        for item in items:
            if leaf and isinstance(item, dict):
                for name, v in item.items():
                    f = sub.fields_by_name.get(name)
                    if f is None:
                        continue
                    values = v if isinstance(v, (list, tuple)) else [v]
                    if any((f.type == _C.TYPE_BOOL and type(x) is int) or (f.type == _C.TYPE_STRING and type(x) is bytes) for x in values):
                        return True
            elif slipped(item, sub):
                return True
    return False


def check_answer(data: Any, cls: type[Message]) -> None:
    """``to_wire`` (the compiled encoder, or the message built) against ``ParseDict`` then
    ``SerializeToString``: the same bytes, or the same error; ``as_json`` (REST's answer)
    prints what parses back to the same message."""
    def reference() -> bytes:
        return json_format.ParseDict(data, cls(), ignore_unknown_fields=False).SerializeToString()

    want = outcome(reference)
    got = outcome(codec.to_wire, data, cls)
    if got != want and want[0] == "error" and got[0] == "ok" and slipped(data, cls.DESCRIPTOR):
        return
    assert got == want, data
    if codec._wire is not None:
        wire_type = codec._wire_type(cls.DESCRIPTOR)
        written = outcome(codec._wire.encode, data, wire_type)
        if written[0] == "ok":
            assert written == want, data
        assert (outcome(codec._wire.check, data, wire_type)[0] == "ok") == (written[0] == "ok"), data
    if want[0] == "ok":
        printed = outcome(codec.as_json, data, cls)
        if printed[0] == "ok":
            again = json_format.ParseDict(printed[1], cls(), ignore_unknown_fields=False)
            assert again.SerializeToString(deterministic=True) == cls.FromString(want[1]).SerializeToString(deterministic=True), data
        else:
            assert printed[1][0] == "ValueError" and ("Infinity" in printed[1][1] or "NaN" in printed[1][1]), printed


@fuzz(700)
@given(st.data())
def test_answers(data: st.DataObject) -> None:
    descriptor = data.draw(st.sampled_from(ANSWER_TYPES))
    check_answer(data.draw(answer(descriptor)), cls_of(descriptor))


def test_the_compiled_codec_is_fuzzed() -> None:
    """The properties run against the compiled codec (make build) wherever it is built."""
    import service

    if service.COMPILED:
        assert codec.__file__ is not None and not codec.__file__.endswith(".py")
