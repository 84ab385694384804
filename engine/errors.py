"""The engine's errors and their stable codes.

Two families, as ``docs/format.md`` section 6 separates them:

* **Violations** (``VIOLATION_CODES``): a well-formed record whose action breaks a rule. They are
  not exceptions to the caller: validation answers ``valid: false`` with the first violation.
  Inside the engine they travel as ``IllegalAction``.
* **Invalid input** (``INPUT_CODES``): a request that is not well formed (unknown game, a card
  that does not exist, a duplicated card, a seat out of range, an unknown option). The service
  turns ``InvalidInput`` into an error response naming the field.

Every code has exactly one entry in the service's error table (``service/errors.py``).
"""

from __future__ import annotations

import json

# Violation codes (FORMAT.md section 6), in the order of precedence used when several apply.
VIOLATION_CODES: dict[str, str] = {
    "MALFORMED_ACTION": "the action string cannot be read",
    "NOT_YOUR_TURN": "the seat is not the one to act, and the call is not one it may make out of turn",
    "NOT_ALLOWED_NOW": "the rules do not allow this action at this point",
    "CARD_NOT_IN_HAND": "the seat does not hold the card",
    "MUST_FOLLOW_SUIT": "the seat holds a card of the suit led and played another",
    "MUST_PLAY_TRUMP": "a trump was led and the seat holds a trump it is obliged to play",
}

# Invalid-input codes: the request is not well formed.
INPUT_CODES: dict[str, str] = {
    "MALFORMED_JSON": "the body is not valid JSON",
    "INVALID_FIELD": "a field has the wrong type or shape",
    "MISSING_FIELD": "a required field is absent",
    "UNKNOWN_GAME": "the game is not tresillo, revesino or rentoy",
    "INVALID_SEATS": "the number of seats is not one the game is played with",
    "SEAT_OUT_OF_RANGE": "a seat number is outside 0 .. seats-1",
    "UNKNOWN_CARD": "a card that does not exist in the game's deck",
    "DUPLICATE_CARD": "the same card appears twice",
    "WRONG_HAND_SIZE": "a hand or the stock has the wrong number of cards",
    "UNKNOWN_OPTION": "a rules option the game does not have",
    "INVALID_OPTION_VALUE": "a rules option with a value the game does not have",
    "INVALID_TABLE": "the table carried from earlier hands is impossible",
    "INVALID_DEAL": "the deal is not one the game allows",
    "PAYLOAD_TOO_LARGE": "the request is larger than the service accepts",
}


class NaipesError(Exception):
    """Base of every error the engine raises: a stable ``code`` and a message."""

    code: str = "INTERNAL"

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
        self.message = message


class InvalidInput(NaipesError):
    """The request is not well formed. ``field`` is the path of the offending field, in the
    record's JSON spelling (``deal.hands[2]``, ``rules.ladder``)."""

    def __init__(self, code: str, field: str, message: str):
        assert code in INPUT_CODES, code
        super().__init__(code, message)
        self.field = field


class IllegalAction(NaipesError):
    """An action breaks a rule. Becomes the ``violation`` of a validation result."""

    def __init__(self, code: str, message: str):
        assert code in VIOLATION_CODES, code
        super().__init__(code, message)


SHOWN_AT_MOST = 60  # characters of a bad value quoted in a message (an action or a card may be any size)


def _single_quoted(text: str) -> str:
    """``text`` in single quotes, escaped as ``repr`` escapes it (a backslash, a control character)
    and a single quote inside as ``\\'``: ``repr`` itself switches to double quotes for a string
    holding a single quote (``"o'clock"``), which a message's JSON would show as ``\\"o'clock\\"``."""
    quoted = repr(text)
    if quoted.startswith('"'):  # (then ``text`` holds a ' and no ", and repr escaped neither)
        quoted = "'" + quoted[1:-1].replace("'", "\\'") + "'"
    return quoted


def shown(value: object) -> str:
    """A value of a request quoted in a message: a string in single quotes (``'2 1e'``,
    ``'o\\'clock'``: readable inside a JSON message's text), anything else as JSON writes it
    (``null``, ``true``, ``[1, 2]``: a message speaks JSON, not Python), cut short when long: a
    900 KB action is quoted by its first 60 characters, in quotes, and its length
    (``'xxx...x'... (900,003 characters)``)."""
    if isinstance(value, str):
        if len(value) <= SHOWN_AT_MOST:
            return _single_quoted(value)
        return f"{_single_quoted(value[:SHOWN_AT_MOST])}... ({len(value):,} characters)"
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):  # not a JSON value (a Python object or a cycle): its repr
        text = repr(value)
    if len(text) <= SHOWN_AT_MOST:
        return text
    return f"{text[:SHOWN_AT_MOST]}... ({len(text):,} characters)"
