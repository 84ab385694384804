"""JSON <-> protobuf, the one way both transports and the CLI do it.

* Requests reach the engine as ``json_format.MessageToDict``: exactly the record JSON of
  FORMAT.md (lowerCamelCase; ``optional`` fields keep an explicit ``0``).
* Engine answers become messages with ``json_format.ParseDict(ignore_unknown_fields=False)``, so
  a field the engine returns but the schema lacks fails loudly (a test catches the drift).
* Messages are printed for REST and the CLI with every field that has no presence (``false``,
  ``0``, ``""``: FORMAT.md section 6 wants ``"valid": false`` and ``"seat": 0``), less the empty
  lists that are not always part of an answer, so a printed result equals the engine's dict.
"""

from __future__ import annotations

import json
import re
from typing import Any, TypeVar

from google.protobuf import json_format
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from service.errors import ServiceError

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
# lists its cartulina, and a settled Tresillo hand (it has an outcome) its condiciones; a Rentoy
# answer, which shares these messages, has neither.
PRINTED_WITH = {
    "naipes.v1.Table": {"cartulina": "plate"},
    "naipes.v1.ValidationResult": {"condiciones": "outcome"},
    "naipes.v1.SettleHandResponse": {"condiciones": "outcome"},
}
_OPAQUE = frozenset({"google.protobuf.Struct", "google.protobuf.Value", "google.protobuf.ListValue"})


def to_engine(message: Message) -> dict[str, Any]:
    """A request message as the plain JSON dict the engine takes."""
    return json_format.MessageToDict(message)


def from_engine(data: dict[str, Any], message: M) -> M:
    """An engine answer into its message. A field the schema lacks raises (an INTERNAL error)."""
    json_format.ParseDict(data, message, ignore_unknown_fields=False)
    return message


def dumps(data: Any) -> str:
    """The API's JSON text: what REST answers and the CLI prints."""
    return json.dumps(data, ensure_ascii=False)


def to_json(message: Message) -> dict[str, Any]:
    """A message as the API's JSON: defaults printed, empty optional lists dropped, fields in the
    schema's order, integral numbers inside a ``google.protobuf.Value`` as integers."""
    data = json_format.MessageToDict(message, always_print_fields_with_no_presence=True)
    return _prune(data, message.DESCRIPTOR)


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
        raise ServiceError("INVALID_FIELD", f"{where or 'the body'} must be a JSON object, not {type(data).__name__}", where or "body")
    try:
        json_format.ParseDict(data, message, ignore_unknown_fields=False)
    except json_format.ParseError as exc:
        path, reason = parse_error_field(str(exc))
        field = ".".join(p for p in (where, path) if p) or "body"
        raise ServiceError("INVALID_FIELD", f"{field}: {reason}", field) from None
    return message


_FAILED = re.compile(r"Failed to parse (\S+) field: ")
_NO_FIELD = re.compile(r'Message type "([\w.]+)" has no field named "([^"]+)"')
_AT = re.compile(r' at "?([\w.\[\]]+?)"?\.*$')


def parse_error_field(message: str) -> tuple[str, str]:
    """The dotted field path and the reason of a ``json_format.ParseError`` message.

    ``'Failed to parse deal field: Failed to parse hands field: expected string ...'`` gives
    ``("deal.hands", "expected string ...")``; ``'Message type "naipes.v1.HandRecord" has no
    field named "foo" at "HandRecord". ...'`` gives ``("foo", "unknown field ...")``.
    """
    text = message.splitlines()[0] if message else ""
    parts: list[str] = []
    while m := _FAILED.match(text):
        parts.append(m[1])
        text = text[m.end():]
    if m := _NO_FIELD.search(text):
        parts.append(m[2])
        return ".".join(parts), f"unknown field {m[2]!r} of {m[1].rsplit('.', 1)[-1]}"
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
]


def _plain(reason: str) -> str:
    for pattern, replacement in _REASONS:
        if pattern.fullmatch(reason):
            return pattern.sub(replacement, reason)
    return reason or "invalid value"
