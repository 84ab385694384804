"""JSON <-> protobuf, the one way both transports and the CLI do it.

* Requests reach the engine as ``json_format.MessageToDict``: exactly the record JSON of
  FORMAT.md (lowerCamelCase; ``optional`` fields keep an explicit ``0``).
* Engine answers become messages with ``json_format.ParseDict(ignore_unknown_fields=False)``, so
  a field the engine returns but the schema lacks fails loudly (a test catches the drift).
* Messages are printed for REST and the CLI with every field that has no presence (``false``,
  ``0``, ``""``: FORMAT.md section 6 wants ``"valid": false`` and ``"seat": 0``), less the empty
  lists that are not always part of an answer, so a printed result equals the engine's dict.

All three directions, and the happy path of ``from_json``, go through a converter read once per
message type from its descriptor (``_Type``): the same dicts and messages as ``json_format``, an
order of magnitude faster. It vouches only for what it knows (plain ints, strings, bools, lists,
objects, the schema's Struct and Value); on any doubt (an unknown or proto-named key, a null, a
float for an int, a number out of range, an infinite ``Value``, a type the schema does not use)
it hands the whole call to ``json_format``, which then answers or words the error exactly as
before. One exception, for speed: an engine answer's lists of flat messages (its events,
payments and tricks) go to the protobuf constructor unread but for the type of their lists, and
it reads an int given for a bool and bytes given for a string where json_format refuses them
(``_Type.leaf``). ``tests/test_codec_fast.py``
compares the two over real engine answers and edge cases.
"""

from __future__ import annotations

import base64
import json
import math
import re
import sys
import threading
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import orjson
from google.protobuf import json_format, message_factory
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.internal import type_checkers
from google.protobuf.message import Message

from engine.errors import shown
from engine.record import stamped
from service.errors import ServiceError

try:  # compiled from service/_wire.pyx (setup.py) with Cython and a C compiler; else protobuf writes
    from service import _wire
except ImportError:
    _wire = None  # type: ignore[assignment]

M = TypeVar("M", bound=Message)

# Lists printed even when empty: a client can always read them (FORMAT.md section 6).
ALWAYS_PRINTED = {
    "naipes.v1.ValidationResult": frozenset({"tricks", "events"}),
    "naipes.v1.Next": frozenset({"legal"}),
    "naipes.v1.LegalActionsResponse": frozenset({"legal", "actions"}),
    "naipes.v1.View": frozenset({"tricks"}),
    "naipes.v1.ResolveTrickResponse": frozenset({"events"}),
}
# Lists printed even when empty beside another field: a Tresillo table (it has a plate) always
# lists its cartulina, a settled Tresillo hand (it has an outcome) its condiciones, and a finished
# hand (it has the table to carry) its payments, none in a Revesino hand where no tanto moved; a
# Rentoy answer, which shares these messages, has no cartulina or condiciones.
PRINTED_WITH = {
    "naipes.v1.Table": {"cartulina": "plate"},
    "naipes.v1.ValidationResult": {"condiciones": "outcome", "payments": "table"},
    "naipes.v1.SettleHandResponse": {"condiciones": "outcome", "payments": "table"},
}
_OPAQUE = frozenset({"google.protobuf.Struct", "google.protobuf.Value", "google.protobuf.ListValue"})


def to_engine(message: Message) -> dict[str, Any]:
    """A request message as the plain JSON dict the engine takes (``MessageToDict``'s)."""
    try:
        return _print(message, _type(message.DESCRIPTOR), False)
    except _Doubt:
        return json_format.MessageToDict(message)


def from_engine(data: Any, cls: type[M]) -> M:
    """An engine answer as a new message of ``cls``. A field the schema lacks raises (an INTERNAL
    error)."""
    try:
        return _build(data, cls)
    except _Doubt:
        return json_format.ParseDict(data, cls(), ignore_unknown_fields=False)


def to_wire(data: Any, cls: type[Message]) -> bytes:
    """``from_engine(data, cls).SerializeToString()``: the same bytes, written straight from the
    engine's answer by the compiled encoder (``service/_wire.pyx``) when it vouches for every key
    and value, else from the message built. A field the schema lacks raises (an INTERNAL error)."""
    if _wire is not None:
        try:
            return _wire.encode(data, _wire_type(cls.DESCRIPTOR))
        except _wire.Doubt:
            pass
    return from_engine(plain(data), cls).SerializeToString()


def plain(data: Any) -> Any:
    """An answer for the wire (a validation result, or a ValidateHand or ValidateHands answer
    holding them: ``engine.api.validate(events=WIRE)``) with each (shared event, action index)
    pair of its events as the event it stands for: what ``from_engine`` takes. Another answer
    as it is."""
    if not isinstance(data, dict):
        return data
    out = dict(data)
    if isinstance(data.get("events"), list):
        out["events"] = stamped(data["events"])
    if isinstance(data.get("result"), dict):
        out["result"] = plain(data["result"])
    if isinstance(data.get("batch"), list):
        out["batch"] = [plain(item) for item in data["batch"]]
    return out


def answer_from_wire(data: bytes, cls: type[Message]) -> dict[str, Any]:
    """``to_json(cls.FromString(data))``: an answer's wire bytes as the API's JSON, read by the
    compiled decoder (``service/_wire.pyx``) when they are in the canonical form the service
    writes, else parsed by protobuf (whose ``DecodeError`` is raised for bytes that are not a
    ``cls``). For the Python gRPC client: a Revesino result in about 39 µs instead of 170
    (Tresillo 26 against 81, Rentoy 8 against 28; a loop over 50 results)."""
    if _wire is not None:
        try:
            return _wire.decode(data, _wire_type(cls.DESCRIPTOR), True)
        except _wire.Doubt:
            pass
    return to_json(cls.FromString(data))


def request_json(data: bytes, cls: type[Message]) -> dict[str, Any]:
    """``to_engine(cls.FromString(data))``: a request's wire bytes as the JSON the engine takes,
    read by the compiled decoder (``service/_wire.pyx``) when they are in the canonical form,
    else parsed by protobuf. Bytes that are not a ``cls`` are ``INVALID_FIELD`` ("body")."""
    if _wire is not None:
        try:
            return _wire.decode(data, _wire_type(cls.DESCRIPTOR))
        except _wire.Doubt:
            pass
    try:
        message = cls.FromString(data)
    except Exception:  # protobuf's DecodeError
        where = _unreadable(data, cls)
        if where is not None:  # (a Struct nested deeper than protobuf follows: REST names it too)
            raise ServiceError("INVALID_FIELD", f"{where}: nested deeper than protobuf's parser follows (100 messages), "
                               "or not well formed", where) from None
        raise ServiceError("INVALID_FIELD", f"the message is not a {cls.DESCRIPTOR.name}", "body") from None
    error = unknown_field_error(message) or _opaque_error(data, cls)
    if error is not None:
        raise error
    return to_engine(message)


def _unreadable(data: bytes, cls: type[Message]) -> str | None:
    """Where, in JSON's words, the bytes of a request protobuf refuses hold the Struct, Value or
    ListValue field it cannot read (nested deeper than it follows, 100 messages, which only these
    can be), named as REST names it (a record's fields within the record: ``rules``; a batch
    item's ``batch[2].record.rules``); None when the fault is elsewhere. Each message field is
    tried alone, inside its enclosing fields, so that it is parsed as deep as it was."""

    def find(chunk: bytes, descriptor: Any, path: str, wrap: Callable[[bytes], bytes]) -> str | None:
        for field, where, key, content in _message_fields(chunk, descriptor, path):

            def inner(sub: bytes, key: bytes = key) -> bytes:
                return wrap(key + _varint(len(sub)) + sub)

            try:
                cls.FromString(inner(content))
                continue
            except Exception:  # this field's bytes are at fault
                pass
            if field.message_type.full_name in _OPAQUE:
                return where
            return find(content, field.message_type, where, inner)
        return None

    found = find(data, cls.DESCRIPTOR, "", lambda chunk: chunk)
    return found.removeprefix("record.") if found is not None else None


def _message_fields(chunk: bytes, descriptor: Any, path: str) -> Iterator[tuple[Any, str, bytes, bytes]]:
    """The fields of a ``descriptor`` message's wire bytes that are messages (a map's entries
    aside), each with its path in JSON's words (``table.cartulina[1]``, within ``path``), its key
    and its content; none when the bytes are not well-formed fields."""
    counts: dict[int, int] = {}
    for number, kind, content, _whole in wire_fields(chunk) or ():
        field = descriptor.fields_by_number.get(number)
        if kind != 2 or field is None or field.message_type is None or field.message_type.GetOptions().map_entry:
            continue
        index = counts[number] = counts.get(number, -1) + 1
        where = f"{path}.{field.json_name}" if path else field.json_name
        yield field, f"{where}[{index}]" if is_repeated(field) else where, _varint(number << 3 | 2), content


def read_varint(data: bytes, i: int) -> tuple[int, int]:
    """The varint at ``i`` and the index after it; (-1, -1) when there is none."""
    value, shift = 0, 0
    while i < len(data) and shift < 64:
        byte = data[i]
        value |= (byte & 0x7F) << shift
        i += 1
        if byte < 0x80:
            return value, i
        shift += 7
    return -1, -1


def _varint(value: int) -> bytes:
    out = bytearray()
    while value >= 0x80:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def unknown_field_error(message: Message) -> ServiceError | None:
    """INVALID_FIELD for a parsed request holding a field its schema lacks, naming where."""
    unknown = _unknown_field(message, "")
    if unknown is None:
        return None
    return _unknown_error(*unknown)


def _unknown_error(where: str, number: int, name: str) -> ServiceError:
    """INVALID_FIELD for field ``number`` of a ``name`` message at ``where`` (the request's own: the body)."""
    return ServiceError("INVALID_FIELD", f"{where or 'the message'}: field number {number} is not a field of {name} "
                        "(or not of its type): this service reads no such field", where or "body")


def _unknown_field(message: Message, path: str) -> tuple[str, int, str] | None:
    """Where a request holds a field its schema does not (protobuf keeps it aside, unread, as it
    does a field of the wrong wire type): REST refuses an unknown key, and so does gRPC."""
    from google.protobuf.unknown_fields import UnknownFieldSet

    unknown = UnknownFieldSet(message)
    if len(unknown):
        return path, unknown[0].field_number, message.DESCRIPTOR.name
    for field, value in message.ListFields():
        if field.message_type is None or field.message_type.full_name in _OPAQUE:
            continue
        where = f"{path}.{field.json_name}" if path else field.json_name
        items = enumerate(value) if is_repeated(field) else ((None, value),)
        for i, item in items:
            found = _unknown_field(item, where if i is None else f"{where}[{i}]")
            if found is not None:
                return found
    return None


# The fields of the opaque types, by type: number -> (wire type, the type of a message field or "").
_OPAQUE_FIELDS: dict[str, dict[int, tuple[int, str]]] = {
    "Struct": {1: (2, "entry")},
    "entry": {1: (2, ""), 2: (2, "Value")},  # (a map entry of Struct's fields: key, value)
    "Value": {1: (0, ""), 2: (1, ""), 3: (2, ""), 4: (0, ""), 5: (2, "Struct"), 6: (2, "ListValue")},
    "ListValue": {1: (2, "Value")},
}


def _opaque_error(data: bytes, cls: type[Message]) -> ServiceError | None:
    """INVALID_FIELD for a request (its wire bytes, which protobuf has read) holding, within a
    Struct, a Value or a ListValue (a record's ``rules``), a field that type lacks: protobuf keeps
    such a field aside in a Value, and drops it from a map entry, where ``_unknown_field`` cannot
    see it; REST refuses any key of ``rules`` that is not an option, and so does gRPC."""

    def walk(chunk: bytes, descriptor: Any, path: str) -> tuple[str, int, str] | None:
        for field, where, _key, content in _message_fields(chunk, descriptor, path):
            if field.message_type.full_name in _OPAQUE:
                found = opaque_unknown(content, field.message_type.name)
                if found is not None:
                    return where + found[0], found[1], found[2]
            elif (found := walk(content, field.message_type, where)) is not None:
                return found
        return None

    unknown = walk(data, cls.DESCRIPTOR, "")
    if unknown is None:
        return None
    where, number, name = unknown
    return _unknown_error(where.removeprefix("record."), number, name)  # (a record's fields within the record, as REST names them)


def opaque_unknown(data: bytes, name: str) -> tuple[str, int, str] | None:
    """Where the wire bytes of a ``google.protobuf`` Struct, Value or ListValue (``name``) hold a
    field the type lacks, or one of the wrong wire type: (the path within it in JSON's words,
    ``.ladder`` or ``[2]``, the field's number, the type's name); None when it holds none, or
    when the bytes are not well-formed fields (protobuf, which has read them, says)."""
    fields = wire_fields(data)
    if fields is None:
        return None
    known = _OPAQUE_FIELDS[name]
    key = next((content.decode("utf-8", "replace") for number, wire, content, _whole in fields if number == 1 and wire == 2), "")
    index = -1
    for number, wire, content, _whole in fields:
        expected = known.get(number)
        if expected is None or expected[0] != wire:
            if name == "entry":
                return (f".{key}" if key else ""), number, "a map entry of Struct"
            return "", number, name
        sub = expected[1]
        if not sub:
            continue
        index += 1
        found = opaque_unknown(content, sub)
        if found is not None:
            if name == "Struct":  # (the entry's key names where)
                return found
            if name == "entry":
                return f".{key}{found[0]}", found[1], found[2]
            if name == "ListValue":
                return f"[{index}]{found[0]}", found[1], found[2]
            return found
    return None


def wire_fields(data: bytes) -> list[tuple[int, int, bytes, bytes]] | None:
    """A message's fields in protobuf's wire format: (number, wire type, content: the bytes of a
    length-delimited one, else empty, and the field's own bytes, its tag included); None when the
    bytes are not well-formed fields."""
    out = []
    i, end = 0, len(data)
    while i < end:
        at = i
        tag, i = read_varint(data, i)
        if tag < 8:  # (none, or field number 0, which protobuf refuses)
            return None
        kind = tag & 7
        content = b""
        if kind == 0:
            _, i = read_varint(data, i)
            if i < 0:
                return None
        elif kind in (1, 5):
            i += 8 if kind == 1 else 4
            if i > end:
                return None
        elif kind == 2:
            length, start = read_varint(data, i)
            if length < 0 or start + length > end:
                return None
            content = data[start:start + length]
            i = start + length
        else:
            return None  # (groups: no message of this schema has one)
        out.append((tag >> 3, kind, content, data[at:i]))
    return out


def request_from_json(data: bytes, cls: type[Message], part: str | None = None) -> dict[str, Any] | None:
    """``to_engine`` of the request that a REST body makes (``json.loads``, then ``from_json``
    into ``cls`` or, with ``part``, into its field of that name), read by orjson and the
    converter when it vouches for the body (``_engine_json``); else None, and the caller takes
    the message's way, which answers or words the error as before. The body's JSON as orjson
    reads it is used only when vouched for: orjson refuses some JSON the standard library reads
    (a lone surrogate, a byte order mark) and reads integers beyond 64 bits as floats, which
    the converter never takes for an integer field."""
    try:
        body = orjson.loads(data)
    except orjson.JSONDecodeError:
        return None
    if not unique_keys(data):
        return None  # (``loads`` names the key given twice)
    return engine_request(body, cls, part)


def engine_request(body: Any, cls: type[Message], part: str | None = None) -> dict[str, Any] | None:
    """``request_from_json`` of a body orjson has read (which holds no NaN or infinity)."""
    try:
        if part is None:
            return _engine_json(body, _type(cls.DESCRIPTOR), 1)
        field = cls.DESCRIPTOR.fields_by_name[part]
        inner = _engine_json(body, _type(field.message_type), 2)
        if not inner:
            if body:
                raise _Doubt  # (whether the field is then set is protobuf's to say)
            return {}
        return {field.json_name: inner}
    except _Doubt:
        return None


def loads(text: bytes | str, what: str) -> Any:
    """A client's JSON text (standard JSON only: no NaN or Infinity); ``MALFORMED_JSON`` naming
    ``what`` ("the body", "the line") otherwise, and for arrays and objects nested deeper than
    the parser follows (about a thousand levels; RFC 8259 section 9 lets a parser set a limit).
    A key given twice in one object is ``INVALID_FIELD`` naming it, as protobuf's JSON parser
    has it: JSON readers differ on which of the two counts, so neither is taken. An integer of more
    digits than Python's ``int()`` reads (4,300) is valid JSON: it is read as a ``LongInteger``."""
    data = loads_marked(text, what)
    error = twice_error(data, what)
    if error is not None:
        raise error
    return data


def loads_marked(text: bytes | str, what: str) -> Any:
    """``loads``, a key given twice in an object left for ``twice_error`` to name: such an
    object is a dict that ``twice_error`` knows (the last value of the key kept)."""
    try:
        try:
            data = json.loads(text, parse_constant=_reject_constant, object_pairs_hook=_object)
        except ValueError as exc:
            if type(exc) is not ValueError:
                raise  # (not JSON: a JSONDecodeError, a UnicodeDecodeError, _NotJson)
            # int()'s digit limit: read again, such integers as LongInteger (the common read
            # keeps the standard library's own integer parsing)
            data = json.loads(text, parse_constant=_reject_constant, object_pairs_hook=_object, parse_int=_integer)
    except (ValueError, UnicodeDecodeError) as exc:
        raise ServiceError("MALFORMED_JSON", f"{what} is not valid JSON: {exc}") from None
    except RecursionError:
        raise ServiceError("MALFORMED_JSON", f"{what} nests arrays or objects too deeply to be read") from None
    return data


def twice_error(data: Any, what: str, where: str = "") -> ServiceError | None:
    """INVALID_FIELD naming the first key given twice in an object of ``data`` (``loads_marked``'s),
    its path prefixed by ``where``; None when there is none."""
    twice = _twice(data, where)
    if twice is None:
        return None
    twice = _escaped(twice)  # (a lone surrogate written \\ud800: the answer's text is UTF-8)
    return ServiceError("INVALID_FIELD", f"{twice}: the key is given twice in one object of {what}", twice)


def twice_at_top(data: Any) -> bool:
    """Whether ``data`` (``loads_marked``'s) is an object that gives one of its own keys twice."""
    return isinstance(data, _Twice)


class _Twice(dict[str, Any]):
    """A JSON object in which ``key`` was given twice."""

    key = ""


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``json.loads``'s object: a plain dict, or a ``_Twice`` when a key comes twice."""
    made = dict(pairs)
    if len(made) == len(pairs):
        return made
    twice = _Twice(made)
    seen: set[str] = set()
    twice.key = next(key for key, _ in pairs if key in seen or seen.add(key))  # type: ignore[func-returns-value]
    return twice


def _twice(data: Any, path: str) -> str | None:
    """The path (``rules.ladder``, ``batch[1].id``) of the first key given twice, if any."""
    if isinstance(data, _Twice):
        return f"{path}.{data.key}" if path else data.key
    if isinstance(data, dict):
        for key, value in data.items():
            if isinstance(value, (dict, list)) and (found := _twice(value, f"{path}.{key}" if path else key)) is not None:
                return found
    elif isinstance(data, list):
        for i, value in enumerate(data):
            if isinstance(value, (dict, list)) and (found := _twice(value, f"{path}[{i}]")) is not None:
                return found
    return None


_OBJECTS = json.JSONDecoder(object_pairs_hook=_object)


def unique_keys(data: bytes) -> bool:
    """Whether no object of ``data`` (JSON orjson has read: UTF-8, standard) gives a key twice:
    orjson keeps the last, silently (about 2 us for a record's body)."""
    try:
        return _twice(_OBJECTS.decode(data.decode()), "") is None
    except (ValueError, RecursionError):
        return False  # (what orjson reads and this does not takes the message's way, which answers it)


class _NotJson(ValueError):
    pass


def _reject_constant(name: str) -> Any:
    raise _NotJson(f"{name} is not JSON")


class LongInteger:
    """A JSON integer of more digits than ``int()`` reads (``sys.get_int_max_str_digits()``,
    4,300), by its text: reading its exact value is the quadratic work the limit is there to
    prevent, and no field takes it. An integer field refuses it as out of range, as any number
    beyond its range; in a Struct it is infinite, as JSON readers take ``1e400``
    (``_as_doubles``). ``shown`` quotes it by its text (its repr)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.negative = text.startswith("-")

    def __repr__(self) -> str:
        return self.text


def _integer(text: str) -> int | LongInteger:
    try:
        return int(text)
    except ValueError:  # more digits than int() reads
        return LongInteger(text)


def as_json(data: Any, cls: type[Message]) -> Any:
    """An engine answer as the API prints it (``to_json(from_engine(data, cls))``): ``data``
    itself when the compiled encoder (``_wire.check``, its checks without the writing) or the
    converter vouches for it (every key a field of ``cls``'s schema, every value of its field's
    type: then the message built from it prints back as ``data``, which
    tests/test_codec_fast.py holds for every RPC's answers), else the message built and printed
    (a field the schema lacks raises). The encoder leaves a Struct or a Value to the converter."""
    if _wire is not None:
        try:
            _wire.check(data, _wire_type(cls.DESCRIPTOR))
            return data
        except _wire.Doubt:
            pass
    try:
        _kwargs(data, _type(cls.DESCRIPTOR), 1, False)
        return data
    except _Doubt:
        return to_json(from_engine(data, cls))


def dumps(data: Any) -> str:
    """The API's JSON text: what REST answers and the CLI prints."""
    return dumps_bytes(data).decode("utf-8")


def dumps_bytes(data: Any) -> bytes:
    """The API's JSON text in UTF-8, by orjson (several times faster than the standard library's
    encoder on a hand's result), or by the standard library for what orjson refuses (integers
    beyond 64 bits, keys that are not strings, a lone surrogate, which it writes as ``\\ud800``)."""
    try:
        return orjson.dumps(data)
    except TypeError:  # orjson.JSONEncodeError
        try:
            return json.dumps(data, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate (a client's, quoted): escaped, \ud800
            return json.dumps(data).encode("utf-8")


def to_json(message: Message) -> dict[str, Any]:
    """A message as the API's JSON: defaults printed, empty optional lists dropped, fields in the
    schema's order, integral numbers inside a ``google.protobuf.Value`` as integers."""
    try:
        return _print(message, _type(message.DESCRIPTOR), True)
    except _Doubt:
        data = json_format.MessageToDict(message, always_print_fields_with_no_presence=True)
        pruned: dict[str, Any] = _prune(data, message.DESCRIPTOR)
        return pruned


def _prune(data: Any, descriptor: Any) -> Any:
    if descriptor.full_name in _OPAQUE:
        return _integral(data)
    out: dict[str, Any] = {}
    for field in descriptor.fields:
        key = field.json_name
        if key not in data:
            continue
        value = data[key]
        repeated = is_repeated(field)
        if repeated and not value and key not in ALWAYS_PRINTED.get(descriptor.full_name, ()) \
                and PRINTED_WITH.get(descriptor.full_name, {}).get(key) not in data:
            continue
        sub = field.message_type
        if sub is not None:
            value = [_prune(v, sub) for v in value] if repeated else _prune(value, sub)
        out[key] = value
    return out


def _integral(value: Any) -> Any:
    """A JSON value with every integral number as an integer. ``google.protobuf.Value`` holds
    numbers as doubles, so an option's default ``5`` would print as ``5.0``: a typed client
    (Go's ``int``, Java's ``Integer``) cannot read that back, and it is not what the spec spells."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {k: _integral(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_integral(v) for v in value]
    return value


def is_repeated(field: FieldDescriptor) -> bool:
    """Whether a field is a list (``is_repeated`` in newer protobuf; ``label`` in older)."""
    flag = getattr(field, "is_repeated", None)
    return bool(flag) if flag is not None else field.label == FieldDescriptor.LABEL_REPEATED  # type: ignore[attr-defined]


def from_json(data: Any, message: M, where: str = "") -> M:
    """Client JSON into a message; a wrong type or an unknown field is ``INVALID_FIELD`` naming
    the field's path (``deal.hands``, ``foo``), prefixed by ``where``."""
    if not isinstance(data, dict):
        raise ServiceError("INVALID_FIELD", f"{where or 'the body'} must be a JSON object, not {json_kind(data)}", where or "body")
    try:
        _merge(data, message)
        return message
    except _Doubt:
        pass  # json_format parses it, or names what is wrong
    data = _checked_numbers(data, message.DESCRIPTOR, where)
    try:
        json_format.ParseDict(data, message, ignore_unknown_fields=False)
    except json_format.ParseError as exc:
        raise parse_error(data, str(exc), where, message.DESCRIPTOR) from None
    except SystemError:
        error = _name_not_utf8(data, message.DESCRIPTOR, where)
        if error is None:
            raise
        raise error from None
    return message


def _name_not_utf8(data: Any, descriptor: Any, where: str) -> ServiceError | None:
    """The error of a key json_format cannot look up, the first on its way through ``data``: a
    key with a lone surrogate (JSON's ``"\\ud800"``, or the UTF-8 bytes of one, which the standard
    library reads), which protobuf's descriptors answer with a SystemError (an INTERNAL error), not
    with "no field named". An unknown field, then, named with the surrogate escaped (``\\ud800``:
    an answer's JSON text is UTF-8); a string or a list given for a message whose first character
    or item is such a key is an object expected, as parse_error says of any other."""
    if isinstance(data, (str, list)):  # json_format reads its characters, or items, as keys
        first = next(iter(data), None)
        if isinstance(first, str) and not is_utf8(first):
            return ServiceError("INVALID_FIELD", f"{where or 'the body'}: expected an object, not {json_kind(data)}", where or "body")
        return None
    if not isinstance(data, dict):
        return None
    for key, value in data.items():
        if not is_utf8(key):
            named = f"{where}.{_escaped(key)}" if where else _escaped(key)
            return ServiceError("INVALID_FIELD", f"{named}: unknown field {shown(key)} of {descriptor.name}", named)
        field = _field_named(descriptor, key)
        if field is None:
            return None  # (json_format refused it before)
        sub = field.message_type
        if value is None or sub is None or sub.full_name in _OPAQUE or sub.GetOptions().map_entry:
            continue
        path = f"{where}.{key}" if where else key
        if _is_list(field) and isinstance(value, list):
            for i, item in enumerate(value):
                if (error := _name_not_utf8(item, sub, f"{path}[{i}]")) is not None:
                    return error
        elif (error := _name_not_utf8(value, sub, path)) is not None:
            return error
    return None


def is_utf8(text: str) -> bool:
    """Whether ``text`` is valid Unicode for UTF-8 (no lone surrogate)."""
    if text.isascii():
        return True
    try:
        text.encode("utf-8")
        return True
    except UnicodeEncodeError:
        return False


def _escaped(text: str) -> str:
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


_INTEGER = re.compile(r"-?[0-9]+")
_DIGITS_AT_MOST = 20  # (2**64 has 20 digits: a longer integer is out of every integer field's range)


def integer_text_error(text: str, where: str) -> ServiceError | None:
    """``INVALID_FIELD`` naming ``where`` when ``text``, an integer field's value given as a string
    (protobuf's JSON mapping allows it, as REST's query parameters give every value), is not a
    decimal integer in ASCII: ``-?[0-9]+``, no sign ``+``, no spaces, exponent or fraction. Python's
    ``int()``, which json_format uses, also reads ``'４'``, ``'٣'``, ``'1_0'``, ``'+2'`` and ``'2\\n'``.
    Digits beyond any integer field's range are out of range (``int()`` refuses more than 4,300)."""
    if not _INTEGER.fullmatch(text):
        return ServiceError("INVALID_FIELD", f"{where}: expected an integer, not {shown(text)}", where)
    if len(text.lstrip("-").lstrip("0")) > _DIGITS_AT_MOST:
        return out_of_range(text, where)
    return None


def _checked_numbers(data: Any, descriptor: Any, where: str) -> Any:
    """``data``, a ``descriptor`` message's JSON, for json_format: ``integer_text_error`` raised
    for the first integer field (or item) given as a string that is not a decimal integer, and
    ``out_of_range`` for one given a ``LongInteger``; a Struct's or Value's integers beyond a
    double's range made infinite (``_as_doubles``: protobuf raised OverflowError, an INTERNAL
    error), in a copy. What else is wrong is json_format's to say."""
    if type(data) is not dict:
        return data
    out = data
    named: dict[Any, str] = {}  # field -> the key that gave it
    for key, value in data.items():
        field = _field_named(descriptor, key)
        if field is not None and named.setdefault(field, key) != key:
            # (by its JSON name and by its proto name: json_format's words were of a oneof of its own)
            path = f"{where}.{field.json_name}" if where else field.json_name
            raise ServiceError("INVALID_FIELD", f"{path}: the field is given twice in one object, as {shown(named[field])} "
                               f"and as {shown(key)}", path)
        if field is None or value is None:
            continue
        path = f"{where}.{key}" if where else key
        new = value
        if field.type in INTEGER_TYPES:
            # (a list for a single integer, and anything but a list for a repeated one, is
            # json_format's to refuse: "expected an integer, not a list", "expected a list, not 5")
            if is_repeated(field) and type(value) is not list:
                continue
            scalars = enumerate(value) if type(value) is list and is_repeated(field) else ((None, value),)
            for i, item in scalars:
                kind = type(item)
                at = path if i is None else f"{path}[{i}]"
                error = (integer_text_error(item, at) if kind is str
                         else out_of_range(item, at) if kind is LongInteger or (kind is float and math.isinf(item)) else None)
                if error is None and (kind is int or kind is str or (kind is float and item.is_integer())):
                    # (a decimal integer, or a float of one, 3e9: beyond its type's range?)
                    low, high = _INTEGER_RANGE[field.type]
                    if not low <= int(item) <= high:
                        error = out_of_range(item, at)
                if error is not None:
                    raise error
        elif field.message_type is None or field.message_type.GetOptions().map_entry:
            continue
        elif field.message_type.full_name == "google.protobuf.Struct" and type(value) is not dict:
            # (json_format's words for an empty string lacked the value: "Struct must be in a dict which is")
            raise _not_an_object(value, path)
        elif field.message_type.full_name in _OPAQUE:
            new = _as_doubles(value, 1)
        elif not is_repeated(field) and isinstance(value, (str, list)):
            # (json_format reads a string's characters, or a list's items, as keys: "" and [] were
            # an empty message, silently)
            raise _not_an_object(value, path, json_kind(value))
        elif type(value) is list:
            for i, item in enumerate(value):
                if isinstance(item, (str, list)):  # (the same, of an item)
                    raise _not_an_object(item, f"{path}[{i}]")
            items = [_checked_numbers(item, field.message_type, f"{path}[{i}]") for i, item in enumerate(value)]
            if any(a is not b for a, b in zip(items, value, strict=True)):
                new = items
        else:
            new = _checked_numbers(value, field.message_type, path)
        if new is not value:
            if out is data:
                out = dict(data)
            out[key] = new
    return out


def out_of_range(value: Any, where: str) -> ServiceError:
    """INVALID_FIELD for a number beyond its field's range (a number beyond a double's, as ``1e400``,
    is read as infinite by JSON readers, and said so)."""
    if type(value) is float and math.isinf(value):
        return ServiceError("INVALID_FIELD", f"{where}: the number is beyond a double's range, so out of range", where)
    return ServiceError("INVALID_FIELD", f"{where}: {shown(value)} is out of range", where)


def _as_doubles(value: Any, depth: int) -> Any:
    """JSON for a Struct or a Value, its integers beyond a double's range infinite (the value
    itself when none is); not followed beyond json_format's depth, which refuses it."""
    kind = type(value)
    if kind is int:
        return value if -_DOUBLE_BOUND < value < _DOUBLE_BOUND else math.inf if value > 0 else -math.inf
    if kind is LongInteger:
        return -math.inf if value.negative else math.inf
    if depth > _JSON_FORMAT_DEPTH or (kind is not dict and kind is not list):
        return value
    if kind is dict:
        made = {key: _as_doubles(item, depth + 1) for key, item in value.items()}
        return value if all(made[key] is item for key, item in value.items()) else made
    items = [_as_doubles(item, depth + 1) for item in value]
    return value if all(a is b for a, b in zip(items, value, strict=True)) else items


_DOUBLE_BOUND = 2**1024 - 2**970  # (an integer this large, or larger, rounds beyond the largest double, 2**1024 - 2**971)
_JSON_FORMAT_DEPTH = 100


def parse_error(data: Any, text: str, where: str = "", descriptor: Any = None) -> ServiceError:
    """``json_format``'s ParseError ``text`` about ``data`` (a ``descriptor`` message's JSON) as
    ``INVALID_FIELD``, in JSON's words, naming the value that is wrong, which is looked up in
    ``data`` along the error's path: a message's field given a string or a list is named itself
    ("deal: expected an object, not a string"; json_format reads its characters or items as
    fields: ``deal.x``), a repeated field's wrong item by its index (``actions[2]``), a wrong value
    as JSON writes it (``"4x"``, ``true``)."""
    path, reason = parse_error_field(text)
    parts = path.split(".") if path else []
    value: Any = data
    field = None
    for depth, part in enumerate(parts):
        if not isinstance(value, dict):
            parts, reason, value = parts[:depth], f"expected an object, not {json_kind(value)}", _MISSING
            break
        value = value.get(part, _MISSING)
        field = _field_named(descriptor, part)
        if value is _MISSING or field is None:
            break
        descriptor = field.message_type
        if _is_list(field) and descriptor is not None and isinstance(value, list):  # the item at fault
            here = ".".join(p for p in (where, *parts[: depth + 1]) if p)
            return _item_error(value, descriptor, here) or ServiceError("INVALID_FIELD", f"{here}: {reason}", here)
    else:
        at = _surrogate_at(value) if field is not None and _SURROGATE.search(reason) else None
        if at is not None and parts:  # (json_format names the list, or the whole Struct)
            parts, reason = [*parts[:-1], parts[-1] + at], "Unpaired surrogate"
        elif field is not None:
            reason, parts = _in_json(reason, value, parts, field)
    named = ".".join(p for p in (where, ".".join(parts)) if p) or "body"
    return ServiceError("INVALID_FIELD", f"{named}: {reason}", named)


# json_format's words for a string holding a lone surrogate: its own for a string field, the UTF-8
# codec's for a Struct's or a Value's
_SURROGATE = re.compile(r"^Unpaired surrogate$|surrogates not allowed")


def _surrogate_at(value: Any, depth: int = 0) -> str | None:
    """Where in ``value`` (JSON) the first string holding a lone surrogate is, as a path suffix
    (``""``: the value itself, ``[2]``, ``.ladder[1].x``, a key itself escaped, ``.\\ud800``); None
    if it holds none."""
    if isinstance(value, str):
        return None if is_utf8(value) else ""
    if depth > _JSON_FORMAT_DEPTH:
        return None
    if isinstance(value, list):
        for i, item in enumerate(value):
            if (at := _surrogate_at(item, depth + 1)) is not None:
                return f"[{i}]{at}"
    elif isinstance(value, dict):
        for key, item in value.items():
            if isinstance(key, str) and not is_utf8(key):
                return f".{_escaped(key)}"
            if (at := _surrogate_at(item, depth + 1)) is not None:
                return f".{key}{at}"
    return None


def _item_error(items: list[Any], descriptor: Any, where: str) -> ServiceError | None:
    """The error of the first item of a list of messages that json_format refuses."""
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            return _not_an_object(item, f"{where}[{i}]")
        try:
            json_format.ParseDict(item, message_factory.GetMessageClass(descriptor)(), ignore_unknown_fields=False)
        except json_format.ParseError as exc:
            return parse_error(item, str(exc), f"{where}[{i}]", descriptor)
    return None


def _not_an_object(value: Any, where: str, said: str | None = None) -> ServiceError:
    """INVALID_FIELD for a value given where the schema takes an object."""
    return ServiceError("INVALID_FIELD", f"{where}: expected an object, not {said or _said(value)}", where)


def _said(value: Any) -> str:
    """A wrong value as a message says it: a list or an object by its kind, else its JSON."""
    return json_kind(value) if isinstance(value, (list, dict)) else shown(value)


def _field_named(descriptor: Any, name: str) -> FieldDescriptor | None:
    if descriptor is None or not is_utf8(name):
        return None  # (protobuf's lookup of a lone surrogate raises SystemError)
    field: FieldDescriptor | None = descriptor.fields_by_camelcase_name.get(name) or descriptor.fields_by_name.get(name)
    return field


def _is_list(field: FieldDescriptor) -> bool:
    return is_repeated(field) and not (field.message_type is not None and field.message_type.GetOptions().map_entry)


_EXPECTED = re.compile(r"expected (a string|an integer|a list|an object|true or false)\b.*")
# What a repeated scalar field's items may be (a repeated message's are read by ``_item_error``).
_KINDS: dict[str, Callable[[Any], bool]] = {
    "a string": lambda v: isinstance(v, str),
    "an integer": lambda v: isinstance(v, (int, str)) and not isinstance(v, bool),  # "4" is read as 4
}


def _in_json(reason: str, value: Any, parts: list[str], field: FieldDescriptor) -> tuple[str, list[str]]:
    """The reason said of the value as JSON writes it (of a repeated field's first wrong item)."""
    expected = _EXPECTED.fullmatch(reason)
    wanted = expected[1] if expected else None
    is_list = _is_list(field)
    if is_list and isinstance(value, list):
        fits = _KINDS.get(wanted or "", lambda v: v is not None)  # (protobuf: null is not an item)
        index = next((i for i, item in enumerate(value) if not fits(item)), None)
        if index is None:
            return reason, parts
        parts = [*parts[:-1], f"{parts[-1]}[{index}]"]
        value = value[index]
    elif is_list and value is not None:
        wanted = "a list"
    if wanted is None and value is not None:
        return (f"{shown(value)} is out of range" if reason.startswith("Value out of range") else reason), parts
    return f"expected {wanted or _KIND_OF.get(field.type, 'a value')}, not {_said(value)}", parts


INTEGER_TYPES = frozenset({FieldDescriptor.TYPE_INT32, FieldDescriptor.TYPE_INT64, FieldDescriptor.TYPE_UINT32,
                           FieldDescriptor.TYPE_UINT64, FieldDescriptor.TYPE_SINT32, FieldDescriptor.TYPE_SINT64,
                           FieldDescriptor.TYPE_FIXED32, FieldDescriptor.TYPE_FIXED64, FieldDescriptor.TYPE_SFIXED32,
                           FieldDescriptor.TYPE_SFIXED64})
# Each integer type's range, as json_format checks it (its words lack the item's index).
_INTEGER_RANGE: dict[int, tuple[int, int]] = {
    **dict.fromkeys((FieldDescriptor.TYPE_INT32, FieldDescriptor.TYPE_SINT32, FieldDescriptor.TYPE_SFIXED32), (-2**31, 2**31 - 1)),
    **dict.fromkeys((FieldDescriptor.TYPE_UINT32, FieldDescriptor.TYPE_FIXED32), (0, 2**32 - 1)),
    **dict.fromkeys((FieldDescriptor.TYPE_INT64, FieldDescriptor.TYPE_SINT64, FieldDescriptor.TYPE_SFIXED64), (-2**63, 2**63 - 1)),
    **dict.fromkeys((FieldDescriptor.TYPE_UINT64, FieldDescriptor.TYPE_FIXED64), (0, 2**64 - 1)),
}
# What a field's JSON value is (a null item names it: json_format says only that null is refused).
_KIND_OF: dict[int, str] = {
    FieldDescriptor.TYPE_STRING: "a string", FieldDescriptor.TYPE_BYTES: "a string", FieldDescriptor.TYPE_ENUM: "a string",
    FieldDescriptor.TYPE_BOOL: "true or false", FieldDescriptor.TYPE_DOUBLE: "a number", FieldDescriptor.TYPE_FLOAT: "a number",
    FieldDescriptor.TYPE_MESSAGE: "an object", **dict.fromkeys(INTEGER_TYPES, "an integer"),
}


def json_kind(value: Any) -> str:
    """What a JSON value is, in JSON's words (``null``, ``a list``), for a message."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float, LongInteger)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    return "an object" if isinstance(value, dict) else type(value).__name__


_FAILED = re.compile(r"Failed to parse (\S+) field: ")
_NO_FIELD = re.compile(r'Message type "([\w.]+)" has no field named "(.+)" at "[\w.]*"\.?$', re.DOTALL)
_AT = re.compile(r' at "?([\w.\[\]]+?)"?\.*$')


def parse_error_field(message: str) -> tuple[str, str]:
    """The dotted field path and the reason of a ``json_format.ParseError`` message.

    ``'Failed to parse deal field: Failed to parse hands field: expected string ...'`` gives
    ``("deal.hands", "expected string ...")``; ``'Message type "naipes.v1.HandRecord" has no
    field named "foo" at "HandRecord". ...'`` gives ``("foo", "unknown field ...")``.
    """
    # (its first line, but a key's own newlines: json_format lists the fields it has on the next)
    text = message.split("\n Available Fields")[0] if message else ""
    parts: list[str] = []
    while m := _FAILED.match(text):
        parts.append(m[1])
        text = text[m.end():]
    if m := _NO_FIELD.search(text):
        parts.append(m[2])
        return ".".join(parts), f"unknown field {shown(m[2])} of {m[1].rsplit('.', 1)[-1]}"
    at = _AT.search(text)
    if at:
        where = at[1].split(".")[1:]  # drop the root message's name
        if len(where) > len(parts):
            parts = where
        text = text[: at.start()]
    return ".".join(parts), _plain(text.rstrip(".").strip())


_REASONS = [
    (re.compile(r"invalid literal for int\(\) with base 10: (.*)"), r"expected an integer, not \1"),
    (re.compile(r"int\(\) argument must be .*, not '(\w+)'"), r"expected an integer, got \1"),
    (re.compile(r"Couldn't parse integer: (.*)"), r"expected an integer, not \1"),
    (re.compile(r"Bool value (\w+) is not acceptable for integer field"), r"expected an integer, not \1"),
    (re.compile(r"repeated field \w+ must be in \[\] which is (.*)"), r"expected a list, not \1"),
    (re.compile(r"expected string or bytes-like object, got '(\w+)'"), r"expected a string, got \1"),
    (re.compile(r"Struct must be in a dict which is (.*)"), r"expected an object, not \1"),
    (re.compile(r"'(\w+)' object is not iterable"), r"expected an object, got \1"),
    (re.compile(r"Message too deep\. Max recursion depth is (\d+)"), r"nested deeper than protobuf's parser follows (\1 messages)"),
    (re.compile(r"Expected true or false without quotes"), r"expected true or false"),  # (the value is said after: _in_json)
]


def _plain(reason: str) -> str:
    for pattern, replacement in _REASONS:
        if pattern.fullmatch(reason):
            return pattern.sub(replacement, reason)
    return reason or "invalid value"


# ---- the converter: one ``_Type`` per message type, read from its descriptor once ------------


class _Doubt(Exception):
    """The converter cannot vouch for this input or message: ``json_format`` takes the call."""


_MISSING = object()
_MAX_DEPTH = 32  # JSON nesting the converter follows (json_format refuses beyond 100 messages)
_WELL_KNOWN = "google/protobuf/"

# Field kinds. _PLAIN values are the same in Python and JSON (int32, uint32, bool, string).
_PLAIN, _CONVERTED, _MESSAGE, _STRUCT, _VALUE, _UNSUPPORTED = range(6)
_C = FieldDescriptor
INT32_RANGE = (-(2**31), 2**31 - 1)  # (the CLI's integer arguments fill int32 fields)
_INT_RANGES = {
    _C.CPPTYPE_INT32: INT32_RANGE,
    _C.CPPTYPE_UINT32: (0, 2**32 - 1),
    _C.CPPTYPE_INT64: (-(2**63), 2**63 - 1),
    _C.CPPTYPE_UINT64: (0, 2**64 - 1),
}


def _int64_json(value: int) -> str:
    return str(value)


def _double_json(value: float) -> Any:
    if math.isinf(value):
        return "-Infinity" if value < 0 else "Infinity"
    return "NaN" if math.isnan(value) else value


def _float_json(value: float) -> Any:
    if math.isinf(value) or math.isnan(value):
        return _double_json(value)
    return type_checkers.ToShortestFloat(value)


def _bytes_json(value: bytes) -> str:
    return base64.b64encode(value).decode("utf-8")


class _Field:
    """What the converter needs of one field, in both directions."""

    __slots__ = ("descriptor", "name", "key", "kind", "repeated", "presence", "default", "check", "low", "high",
                 "convert", "sub", "keep_empty", "partner")

    def __init__(self, field: Any, owner: Any) -> None:
        # (typed: compiled, _kwargs reads these natively on every key of every answer)
        self.descriptor = field
        # Interned: the engine's keys are literals (interned), so a lookup of one of these in its
        # answers, or of its keys in what the decoder makes, matches by identity, without
        # comparing the characters (protobuf gives new strings).
        self.name: str = sys.intern(field.name)
        self.key: str = sys.intern(field.json_name)
        self.repeated: bool = is_repeated(field)
        self.presence: bool = field.has_presence
        self.check: Any = None  # the one Python type a parsed value must have (_PLAIN)
        self.low: int = 0
        self.high: int = 0
        self.convert: Any = None  # message value -> JSON value (_CONVERTED)
        self.sub: Any = None  # the _Type of a message field
        self.default: Any = None  # printed when unset and without presence
        cpp = field.cpp_type
        self.kind: int = _PLAIN
        if cpp == _C.CPPTYPE_MESSAGE:
            sub = field.message_type
            if sub.full_name == "google.protobuf.Struct":
                self.kind = _STRUCT
            elif sub.full_name == "google.protobuf.Value":
                self.kind = _VALUE
            elif sub.file.name.startswith(_WELL_KNOWN) or sub.GetOptions().map_entry:
                self.kind = _UNSUPPORTED  # maps, Any, wrappers, ListValue, Timestamp...: json_format
            else:
                self.kind = _MESSAGE
                self.sub = _type(sub)
        elif cpp in (_C.CPPTYPE_INT32, _C.CPPTYPE_UINT32):
            self.check, self.default = int, field.default_value
            self.low, self.high = _INT_RANGES[cpp]
        elif cpp == _C.CPPTYPE_BOOL:
            self.check, self.default = bool, field.default_value
        elif cpp == _C.CPPTYPE_STRING and field.type != _C.TYPE_BYTES:
            self.check, self.default = str, field.default_value
        else:
            # Printed through a conversion; never parsed by the converter (int64 as strings,
            # floats, bytes). Enums are left to json_format altogether.
            self.kind = _CONVERTED
            if cpp in (_C.CPPTYPE_INT64, _C.CPPTYPE_UINT64):
                self.convert = _int64_json
            elif cpp == _C.CPPTYPE_DOUBLE:
                self.convert = _double_json
            elif cpp == _C.CPPTYPE_FLOAT:
                self.convert = _float_json
            elif field.type == _C.TYPE_BYTES:
                self.convert = _bytes_json
            else:
                self.kind = _UNSUPPORTED
            if self.convert is not None:
                self.default = self.convert(field.default_value)
        # to_json's pruning: an empty list is printed always, beside a set partner, or never.
        always = ALWAYS_PRINTED.get(owner.full_name, ())
        partner_key = PRINTED_WITH.get(owner.full_name, {}).get(self.key)
        partner = next((f for f in owner.fields if f.json_name == partner_key), None)
        self.keep_empty = self.key in always or (partner is not None and not partner.has_presence)
        self.partner = partner if partner is not None and partner.has_presence else None


class _Type:
    """One message type, read from its descriptor: how to print and how to parse each field."""

    __slots__ = ("cls", "fields", "prints", "parses", "printing", "template", "plan", "parsing", "by_number", "same_names", "maps",
                 "leaf", "lists", "wire")

    def __init__(self, descriptor: Any) -> None:
        _BUILDING[descriptor] = self  # before the fields: a type may contain itself
        self.cls = message_factory.GetMessageClass(descriptor)
        fields = self.fields = [_Field(f, descriptor) for f in descriptor.fields]
        plain = (not descriptor.file.name.startswith(_WELL_KNOWN) and not descriptor.is_extendable
                 and not any(f.kind == _UNSUPPORTED for f in fields))
        # A real oneof (two members or more) has rules of its own in json_format.
        oneofs = any(len(o.fields) > 1 for o in descriptor.oneofs)
        self.prints = plain
        self.parses = plain and not oneofs and not any(f.kind == _CONVERTED for f in fields)
        aux = [f.sub if f.kind == _MESSAGE else f.convert for f in fields]
        # Printing walks ListFields (the set fields, by number, as json_format does).
        self.printing = {f.descriptor: _printing(f) for f in fields}
        # to_json: every field in the schema's order (the plan), or, when the fields without
        # presence come first and no empty list is ever printed, their defaults (the template)
        # followed by the set fields in ListFields' order, which is then the schema's.
        self.plan = [(f.descriptor, f.key, f.kind, f.repeated, f.presence, f.default, f.keep_empty, f.partner, a)
                     for f, a in zip(fields, aux, strict=True)]
        template: dict[str, Any] | None = None
        numbers = [f.descriptor.number for f in fields if f.repeated or f.presence]
        if (plain and numbers == sorted(numbers) and not any(f.keep_empty or f.partner is not None for f in fields)
                and not any(f.repeated or f.presence for f in fields[: len(fields) - len(numbers)])):
            template = {f.key: f.default for f in fields if not (f.repeated or f.presence)}
        self.template = template
        self.parsing = {f.key: f for f in fields}
        self.by_number = sorted(fields, key=lambda f: f.descriptor.number)  # ListFields' order
        # Every field's JSON name is its proto name ("seat", "text"): the JSON object may serve
        # as the constructor's keyword arguments as it is (_kwargs).
        self.same_names = all(f.key == f.name for f in fields)
        # Whether a Struct (a map) may be inside: a type still being read counts as yes.
        self.maps = any(f.kind in (_STRUCT, _VALUE) or (f.kind == _MESSAGE and getattr(f.sub, "maps", True)) for f in fields)
        # An engine answer's objects of this type may go to the constructor unread (_build):
        # each field an int, bool or string, or a list of them, under its own name (an event, a
        # payment, a trick). The constructor refuses what json_format refuses (an unknown field;
        # a string, float or bool for an integer; an integer out of range; a number for a string)
        # but for two slips the engine's typed answers do not make and the codec's tests would
        # show: it reads an integer given for a bool, and bytes for a string. Only the lists are
        # looked at (``lists``, the keys of the list fields): the constructor would read a string
        # given for a list of strings as a list of its characters.
        self.leaf = self.parses and self.same_names and all(f.kind == _PLAIN for f in fields)
        self.lists = tuple([f.key for f in fields if f.repeated])
        self.wire: Any = None  # the compiled encoder's Type (_wire_type)


_TYPES: dict[Any, _Type] = {}  # complete ones only: read without the lock
_BUILDING: dict[Any, _Type] = {}  # those of the _Type being read, by the thread holding the lock
_LOCK = threading.RLock()
# How _print handles a set field: as is, a copied list, a message, a list of them, or _convert.
_AS_IS, _COPY, _SUB, _SUBS, _OTHER = range(5)


def _printing(field: _Field) -> tuple[str, int, Any]:
    if field.kind == _PLAIN:
        return field.key, _COPY if field.repeated else _AS_IS, None
    if field.kind == _MESSAGE:
        return field.key, _SUBS if field.repeated else _SUB, field.sub
    return field.key, _OTHER, (field.kind, field.repeated, field.convert)


def _type(descriptor: Any) -> _Type:
    """A message type's ``_Type``, read once (servers convert on many threads at once)."""
    found = _TYPES.get(descriptor)
    if found is not None:
        return found
    with _LOCK:
        found = _TYPES.get(descriptor) or _BUILDING.get(descriptor)
        if found is not None:
            return found
        outer = not _BUILDING
        try:
            found = _Type(descriptor)
            if outer:
                _TYPES.update(_BUILDING)
        finally:
            if outer:
                _BUILDING.clear()
        return found


def _wire_type(descriptor: Any) -> Any:
    """The compiled encoder's ``Type`` of a message type, made once from its ``_Type``: int32,
    bool and string fields and the service's own messages; any other field (a Struct, an
    int64, a uint32, a sint32) is ``OTHER``, which the encoder leaves to protobuf."""
    spec = _type(descriptor)
    found = spec.wire
    if found is not None:
        return found
    with _LOCK:
        made: dict[Any, Any] = {}
        found = _wire_types(spec, made)
        for other, wire in made.items():  # published complete, the types they refer to first
            other.wire = wire
        return found


# A field's protobuf type -> the encoder's kind: the types it writes.
_WIRE_KINDS: dict[int, int] = {} if _wire is None else {
    _C.TYPE_INT32: _wire.Kind.INT32, _C.TYPE_BOOL: _wire.Kind.BOOL, _C.TYPE_STRING: _wire.Kind.STRING}


def _wire_types(spec: _Type, made: dict[Any, Any]) -> Any:
    if spec.wire is not None:
        return spec.wire
    if spec in made:
        return made[spec]
    assert _wire is not None
    wire = made[spec] = _wire.Type()
    fields = []
    for f in spec.by_number:
        sub = None
        kind: int = _wire.Kind.MESSAGE
        if f.kind == _MESSAGE:
            sub = _wire_types(f.sub, made)
        else:
            kind = _WIRE_KINDS.get(f.descriptor.type, _wire.Kind.OTHER) if f.kind == _PLAIN else _wire.Kind.OTHER
        other = f.kind in (_STRUCT, _VALUE)
        fields.append(_wire.Field(f.key, f.descriptor.number, kind, f.repeated, f.presence, sub,
                                  _OtherField(f, False) if other else None, _OtherField(f, True) if other else None))
    wire.fields = fields
    if spec.prints:  # (to_json's rules, _print_in_order's, for decode with api)
        place = {f.descriptor: i for i, f in enumerate(spec.by_number)}
        wire.plan = [(place[f.descriptor], f.key, None if f.repeated or f.presence else f.default,
                      _wire.EMPTY_ALWAYS if f.keep_empty else place[f.partner] if f.partner is not None else _wire.EMPTY_NEVER)
                     for f in spec.fields]
    return wire


class _OtherField:
    """A Struct or Value field's bytes as ``to_engine`` prints it (``integral``: as ``to_json``
    does), for the compiled decoder: protobuf reads them."""

    def __init__(self, field: _Field, integral: bool) -> None:
        self.cls = message_factory.GetMessageClass(field.descriptor.message_type)
        self.kind = field.kind
        self.integral = integral

    def __call__(self, raw: bytes) -> Any:
        value = self.cls.FromString(raw)
        if opaque_unknown(raw, self.cls.DESCRIPTOR.name) is not None:
            raise _wire.Doubt  # (protobuf's parse of the request, and _opaque_error, name it)
        return _struct_json(value, self.integral) if self.kind == _STRUCT else _value_json(value, self.integral)


# ---- message -> JSON ---------------------------------------------------------------------------


def _print(message: Any, spec: _Type, api: bool) -> dict[str, Any]:
    """Without ``api``, ``json_format.MessageToDict(message)``: the set fields, by number. With
    it, ``to_json``'s answer: every field without presence and the set ones in the schema's
    order, less the empty lists not always printed, integral numbers of a Value as ints."""
    if api:
        template = spec.template
        if template is None:
            return _print_in_order(message, spec)
        out = template.copy()
    elif spec.prints:
        out = {}
    else:
        raise _Doubt
    printing = spec.printing
    for descriptor, value in message.ListFields():
        key, how, aux = printing[descriptor]
        if how == _AS_IS:
            out[key] = value
        elif how == _COPY:
            out[key] = value[:]
        elif how == _SUB:
            out[key] = _print(value, aux, api)
        elif how == _SUBS:
            out[key] = [_print(v, aux, api) for v in value]
        else:
            kind, repeated, convert = aux
            out[key] = _convert(kind, repeated, convert, value, api)
    return out


def _print_in_order(message: Any, spec: _Type) -> dict[str, Any]:
    """``to_json``'s answer field by field in the schema's order (``_prune``'s rules)."""
    if not spec.prints:
        raise _Doubt
    present = dict(message.ListFields())
    out: dict[str, Any] = {}
    for descriptor, key, kind, repeated, presence, default, keep_empty, partner, aux in spec.plan:
        value = present.get(descriptor, _MISSING)
        if value is _MISSING:
            if repeated:
                if keep_empty or (partner is not None and partner in present):
                    out[key] = []
            elif not presence:
                out[key] = default
        elif kind == _PLAIN:
            out[key] = value[:] if repeated else value
        elif kind == _MESSAGE:
            out[key] = [_print(v, aux, True) for v in value] if repeated else _print(value, aux, True)
        else:
            out[key] = _convert(kind, repeated, aux, value, True)
    return out


def _convert(kind: int, repeated: bool, convert: Any, value: Any, integral: bool) -> Any:
    """A scalar printed through a conversion, a Struct or a Value (a list of them if repeated)."""
    if kind == _CONVERTED:
        return [convert(v) for v in value] if repeated else convert(value)
    if kind == _STRUCT:
        return [_struct_json(v, integral) for v in value] if repeated else _struct_json(value, integral)
    return [_value_json(v, integral) for v in value] if repeated else _value_json(value, integral)


def _struct_json(struct: Any, integral: bool) -> dict[str, Any]:
    fields = struct.fields
    return {key: _value_json(fields[key], integral) for key in fields}


def _value_json(value: Any, integral: bool) -> Any:
    """A ``google.protobuf.Value`` as json_format prints it (with ``integral``, as ``_integral``
    then makes it, for ``to_json``). An infinite or NaN number is json_format's to refuse when
    printing; in the engine's JSON (``to_engine``) it is given as it is, and the engine names the
    option that cannot be it."""
    which = value.WhichOneof("kind")
    if which == "number_value":
        number = value.number_value
        if integral and not math.isfinite(number):
            raise _Doubt
        return int(number) if integral and number.is_integer() else number
    if which == "string_value":
        return value.string_value
    if which == "bool_value":
        return value.bool_value
    if which == "struct_value":
        return _struct_json(value.struct_value, integral)
    if which == "list_value":
        return [_value_json(v, integral) for v in value.list_value.values]
    return None  # null_value, or nothing set


# ---- JSON -> message ---------------------------------------------------------------------------


def _engine_json(data: Any, spec: _Type, depth: int) -> dict[str, Any]:
    """``to_engine(from_json(data, message))`` for a JSON object the converter vouches for (the
    checks of ``_kwargs``: every key a field's JSON name, every value of its field's type, no
    nulls), built without the message: the set fields by number, a scalar without presence left
    out when it is its default and an empty list always, a Struct's numbers as floats; else
    ``_Doubt``."""
    if type(data) is not dict or not spec.parses or depth > _MAX_DEPTH:
        raise _Doubt
    parsing = spec.parsing
    for key in data:
        if key not in parsing:
            raise _Doubt  # unknown, or spelled by its proto name: json_format decides
    out: dict[str, Any] = {}
    for entry in spec.by_number:
        key = entry.key
        value = data.get(key, _MISSING)
        if value is _MISSING:
            continue
        if value is None:
            raise _Doubt
        kind = entry.kind
        if kind == _PLAIN:
            if entry.repeated:
                if _checked(entry, value):
                    out[key] = value
                continue
            _check_scalar(entry, value)
            if entry.presence or value != entry.default:
                out[key] = value
        elif kind == _MESSAGE:
            if not entry.repeated:
                out[key] = _engine_json(value, entry.sub, depth + 1)
            elif type(value) is not list:
                raise _Doubt
            elif value:
                out[key] = [_engine_json(item, entry.sub, depth + 1) for item in value]
        elif kind == _STRUCT and not entry.repeated:
            if type(value) is not dict:
                raise _Doubt
            _check_json(value, depth + 1)
            out[key] = _doubles(value)
        else:
            raise _Doubt
    return out


def _doubles(value: Any) -> Any:
    """Checked JSON (``_check_json``) as protobuf's Struct holds it and json_format prints it:
    every number a float."""
    kind = type(value)
    if kind is int:
        return float(value)
    if kind is dict:
        return {key: _doubles(item) for key, item in value.items()}
    if kind is list:
        return [_doubles(item) for item in value]
    return value


def _merge(data: Any, message: Message) -> None:
    """``json_format.ParseDict(data, message)`` into an empty message, for input the converter
    can vouch for; else ``_Doubt`` (and ``message`` is untouched)."""
    if message.ListFields():
        raise _Doubt
    spec = _type(message.DESCRIPTOR)
    kwargs = _kwargs(data, spec, 1, False)
    built = _construct(type(message), kwargs)  # (shows the constructor takes them all)
    if not kwargs:
        return  # json_format sets nothing either (a submessage stays unset)
    if spec.maps:
        # MergeFrom would copy a Struct's map in another order than json_format inserts its
        # keys (its iteration order, hence the JSON and the wire bytes, would differ); the
        # constructor inserts them in the same order.
        message.__init__(**kwargs)  # type: ignore[misc]
    else:
        message.MergeFrom(built)


def _build(data: Any, cls: type[M]) -> M:
    """``json_format.ParseDict(data, cls())`` for an engine answer, built by the message's
    constructor in one call, for input the converter can vouch for (its lists of leaf messages
    unread: ``_Type.leaf``); else ``_Doubt``. (The constructor inserts a Struct's keys in the
    order json_format does, so the wire bytes are the same too.)"""
    return _construct(cls, _kwargs(data, _type(cls.DESCRIPTOR), 1, True))


def _construct(cls: type[M], kwargs: dict[str, Any]) -> M:
    try:
        return cls(**kwargs)
    except Exception:  # e.g. a string with surrogates: json_format words it
        raise _Doubt from None


def _kwargs(data: Any, spec: _Type, depth: int, leaves: bool) -> dict[str, Any]:
    """A JSON object as the keyword arguments of its message's constructor, each value checked
    to be exactly what json_format would store unchanged (with ``leaves``, but the lists of leaf
    messages: ``_Type.leaf``). When every key is its field's name and no value needs converting
    (an event, a trick), that is ``data`` itself: nothing is copied."""
    if type(data) is not dict or not spec.parses or depth > _MAX_DEPTH:
        raise _Doubt
    parsing = spec.parsing
    out: dict[str, Any] | None = None if spec.same_names else {}
    for key, value in data.items():
        entry = parsing.get(key)
        if entry is None:
            raise _Doubt  # unknown, or spelled by its proto name: json_format decides
        if entry.kind != _PLAIN:
            new = _field_kwargs(entry, value, depth, leaves)
        elif entry.repeated:
            new = _checked(entry, value)
        else:  # the commonest case
            _check_scalar(entry, value)
            new = value
        if out is not None:
            out[entry.name] = new
        elif new is not value:  # the first value converted: the arguments become a copy
            out = dict(data)
            out[key] = new
    return data if out is None else out


def _check_scalar(entry: _Field, value: Any) -> None:
    """A plain singular field's value: of its one Python type, an integer within its range."""
    check = entry.check
    if type(value) is not check:
        raise _Doubt
    if check is int:
        number: int = value
        if not entry.low <= number <= entry.high:
            raise _Doubt


def _checked(entry: _Field, value: Any) -> Any:
    """A plain repeated field's list of values, checked: the list itself."""
    check = entry.check
    if type(value) is not list:
        raise _Doubt
    if check is int:
        low, high = entry.low, entry.high
        for item in value:
            if type(item) is not int:
                raise _Doubt
            number = item
            if not low <= number <= high:
                raise _Doubt
    else:
        for item in value:
            if type(item) is not check:
                raise _Doubt
    return value


def _field_kwargs(entry: _Field, value: Any, depth: int, leaves: bool) -> Any:
    """A message, Struct or Value field's value as its constructor argument (a list of them if
    repeated): the value itself when nothing in it needs converting."""
    kind = entry.kind
    if not entry.repeated:
        if kind == _MESSAGE:
            return _kwargs(value, entry.sub, depth + 1, leaves)
        if kind == _STRUCT:
            if type(value) is not dict:
                raise _Doubt
            _check_json(value, depth + 1)
            return value
        return _value_kwargs(value, depth + 1)
    if type(value) is not list:
        raise _Doubt
    if kind == _MESSAGE:
        sub = entry.sub
        if leaves and sub.leaf:
            lists = sub.lists
            if lists:  # (a trick's cards): each object's lists are lists
                for item in value:
                    if type(item) is not dict:
                        raise _Doubt
                    for key in lists:
                        found = item.get(key)
                        if found is not None and type(found) is not list:
                            raise _Doubt
            return value
        items = [_kwargs(item, sub, depth + 1, leaves) for item in value]
        for item, original in zip(items, value, strict=True):
            if item is not original:
                return items
        return value
    if kind == _STRUCT:
        for item in value:
            if type(item) is not dict:
                raise _Doubt
            _check_json(item, depth + 1)
        return value
    return [_value_kwargs(item, depth + 1) for item in value]


def _value_kwargs(value: Any, depth: int) -> dict[str, Any]:
    """A JSON value as a ``google.protobuf.Value``'s constructor arguments."""
    kind = type(value)
    if value is None:
        return {"null_value": 0}
    if kind is bool:
        return {"bool_value": value}
    if kind is str:
        return {"string_value": value}
    if kind is int or kind is float:
        _check_json(value, depth)
        return {"number_value": value}
    if kind is dict:
        _check_json(value, depth)
        return {"struct_value": value}
    if kind is list:
        _check_json(value, depth)
        return {"list_value": value}
    raise _Doubt


def _check_json(value: Any, depth: int) -> None:
    """Plain JSON only (str keys, no tuples, no huge ints), not too deep: what a Struct's
    constructor stores as json_format does."""
    kind = type(value)
    if kind is str or kind is bool or kind is float or value is None:
        return
    if kind is int:
        if not -(2**63) <= value <= 2**63:
            raise _Doubt
        return
    if depth > _MAX_DEPTH:
        raise _Doubt
    if kind is dict:
        for key, item in value.items():
            if type(key) is not str:
                raise _Doubt
            _check_json(item, depth + 1)
    elif kind is list:
        for item in value:
            _check_json(item, depth + 1)
    else:
        raise _Doubt
