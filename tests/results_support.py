"""Readers of validation results shared by the games' play tests: a record that must be legal,
the trick winners, the legal actions (all, one seat's, one seat's cards) and a record's first
violation. Not a test module (pytest collects only ``test_*.py``)."""

from __future__ import annotations

from engine import api


def ok(record: dict) -> dict:
    """Validate a record that must be legal throughout; return the result."""
    result = api.validate(record)
    assert result["valid"], result.get("violation")
    return result


def winners(result: dict) -> list[int]:
    """The winners of the completed tricks, in order."""
    return [t["winner"] for t in result["tricks"] if "winner" in t]


def legal(result: dict) -> set[str]:
    assert not result["finished"], "the hand is over: nothing is legal"
    listed = result["next"]["legal"]
    assert len(listed) == len(set(listed)), "an action listed twice"
    return set(listed)


def legal_of(result: dict, seat: int) -> set[str]:
    """The legal actions of one seat, without the seat number: {"2e", "envite"}."""
    return {a.split(" ", 1)[1] for a in legal(result) if int(a.split(" ", 1)[0]) == seat}


def cards_of(result: dict, seat: int) -> set[str]:
    """The cards one seat may legally play now."""
    return {a for a in legal_of(result, seat) if a[0].isdigit()}


def violation(record: dict) -> tuple[int, str]:
    """The first illegal action of a record: (index, code)."""
    result = api.validate(record)
    assert not result["valid"], "expected a violation, the record is legal"
    assert result["finished"] is False
    return result["violation"]["action"], result["violation"]["code"]
