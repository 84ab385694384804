"""House-rule options: one frozen, keyword-only dataclass per game (STYLE.md, habit 4).

Each field carries its default, the values it accepts and the rule it changes, in the field's
metadata. The API names an option in lowerCamelCase (``playAllTricks``); the Python field is the
snake_case of that name (``play_all_tricks``). A value is written in lowerCamelCase too
(``dealerThenLeft``); the spelling of the rules specs (``dealer_then_left``) is read as the same
value (docs/format.md: "with the values the specs spell").
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any, Final, TypeVar

from engine.errors import InvalidInput, shown

T = TypeVar("T")


def option(default: Any, choices: tuple[Any, ...], rule: str, doc: str) -> Any:
    """Declare one option field: its default, its allowed values, the spec rule and a sentence."""
    assert default in choices
    return dataclasses.field(default=default, metadata={"choices": choices, "rule": rule, "doc": doc})


def camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


def snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


_FIELDS: dict[type, dict[str, dataclasses.Field[Any]]] = {}
_DEFAULTS: dict[type, Any] = {}  # options are frozen: one default object per game is shared


def _fields(cls: type) -> dict[str, dataclasses.Field[Any]]:
    """A game's option fields by API name (computed once per game)."""
    fields = _FIELDS.get(cls)
    if fields is None:
        fields = _FIELDS[cls] = {camel(f.name): f for f in dataclasses.fields(cls)}
    return fields


_MADE: dict[Any, Any] = {}  # options made from rules, by game and the rules' names, types and values
_MADE_AT_MOST = 512  # then it starts again: a table's rules repeat from hand to hand, few tables differ


def parse_options(cls: type[T], rules: Any, field: str = "rules") -> T:
    """Build ``cls`` from a record's ``rules`` object. Unknown names and values are errors.

    Options are frozen, so the options made from the same rules are shared: the dataclass's
    constructor runs interpreted even when this module is compiled (about 3.7 us, a tenth of
    validating a record). The key holds each value's type, because ``True == 1`` and
    ``1.0 == 1`` hash alike; rules that are not hashable (a list given as a value) are read
    every time, and what raises is never kept."""
    if rules is None or rules == {}:
        defaults: T | None = _DEFAULTS.get(cls)
        if defaults is None:
            defaults = _DEFAULTS[cls] = cls()
        return defaults
    if not isinstance(rules, dict):
        raise InvalidInput("INVALID_FIELD", field, f"{field} must be an object of option names and values")
    key = (cls, tuple([(name, type(value), value) for name, value in rules.items()]))
    try:
        made: T | None = _MADE.get(key)
    except TypeError:  # a value that cannot be hashed: read, and rejected, below
        return _parse(cls, rules, field)
    if made is None:
        made = _parse(cls, rules, field)
        if len(_MADE) >= _MADE_AT_MOST:
            _MADE.clear()
        _MADE[key] = made
    return made


def _parse(cls: type[T], rules: dict[str, Any], field: str) -> T:
    """The options of ``rules``; of several wrong ones, the error names the first by name, so
    that it does not depend on the order a transport keeps (a protobuf Struct's is its map's)."""
    fields = _fields(cls)
    values = {}
    for name in sorted(rules, key=str):
        value = rules[name]
        f = fields.get(name)
        if f is None:
            known = ", ".join(sorted(fields)) or "none"
            hint = f" (the API writes it {camel(name)})" if isinstance(name, str) and camel(name) in fields else ""
            raise InvalidInput("UNKNOWN_OPTION", f"{field}.{name}",
                               f"unknown rules option {shown(name)}{hint}; this game's options are: {known}")
        choices = f.metadata["choices"]
        value = _as_sent(value)  # JSON numbers arrive as floats through protobuf's Struct
        if isinstance(value, str) and "_" in value and value not in choices and camel(value) in choices \
                and snake(camel(value)) == value:
            value = camel(value)  # a value as the rules spec spells it (dealer_then_left): dealerThenLeft
        if value not in choices or type(value) is not type(f.default):
            allowed = ", ".join(repr(c) if not isinstance(c, bool) else str(c).lower() for c in choices)
            raise InvalidInput("INVALID_OPTION_VALUE", f"{field}.{name}", f"rules option {name} cannot be {shown(value)}; allowed: {allowed}")
        values[f.name] = value
    return cls(**values)


_EXACT: Final = 2**53  # a double holds every integer up to this exactly


def _as_sent(value: Any) -> Any:
    """A rules value as the caller wrote it in JSON: a Struct gives every number as a double,
    so an integral one (``3.0``, exactly representable) is the integer ``3``, in a list or an
    object too; a number beyond a double's exact integers stays the float it became (``1e+30``,
    not the 31 digits of the nearest double)."""
    if isinstance(value, float):
        return int(value) if value.is_integer() and abs(value) <= _EXACT else value
    if isinstance(value, list):
        return [_as_sent(item) for item in value]
    if isinstance(value, dict):
        return {key: _as_sent(item) for key, item in value.items()}
    return value


def describe(cls: type) -> list[dict[str, Any]]:
    """The options of a game as data: name, default, choices, rule and description."""
    return [
        {"name": camel(f.name), "default": f.default, "choices": list(f.metadata["choices"]),
         "rule": f.metadata["rule"], "doc": f.metadata["doc"]}
        for f in dataclasses.fields(cls)
    ]


def to_json(options: Any) -> dict[str, Any]:
    """Every option with its value in force (defaults included), by API name."""
    return {name: getattr(options, f.name) for name, f in _fields(type(options)).items()}
