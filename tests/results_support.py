"""Readers of validation results shared by the games' play tests: a record that must be legal,
the trick winners, the legal actions (all, one seat's, one seat's cards) and a record's first
violation. Not a test module (pytest collects only ``test_*.py``)."""

from __future__ import annotations

import re

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


# A refusal's lists of what a seat may say: "seat 2 may say paso or mas", "say mas or paso", "open
# with juego, or paso", "seat 1 says cambio <card> or quedo", "(quiero, no-quiero or envite)".
_CALL_LISTS = re.compile(r"(?:seat (\d+) )?\b(?:may say|must say|says|say|open with) ([^;:()]+)"
                         r"|answer the envite to \d+ \(([^:)]+)")


def listed_calls(message: str, seat: int) -> list[tuple[int, set[str]]]:
    """The lists of calls a refusal names as what a seat may say, each with the seat it names
    (``seat``, the acting seat, when it names none) and as a set of call words ("card" for "a
    card"; "entrada" for "entrada <suit>" and "entrada bastos")."""
    out = []
    for found in _CALL_LISTS.finditer(message):
        named = int(found.group(1)) if found.group(1) else seat
        items = re.split(r",\s*(?:or\s+)?|\s+or\s+", (found.group(2) or found.group(3)).strip())
        out.append((named, {"card" if item.startswith("a card") else item.split()[0] for item in items}))
    return out


def calls_of(result: dict, seat: int) -> set[str]:
    """The words of one seat's legal actions ("card" for its cards): {"card", "rindo"}."""
    return {"card" if a.split()[1][0].isdigit() else a.split()[1] for a in result["next"]["legal"] if int(a.split()[0]) == seat}


def check_listed_calls(record: dict, result: dict, tried: list[str]) -> int:
    """Every refusal of an action of ``tried`` (those not legal, appended to ``record``, whose
    validation is ``result``) that lists what a seat may say lists exactly that seat's legal
    calls; the number of lists checked."""
    checked = 0
    for action in tried:
        if action in result["next"]["legal"]:
            continue
        spoiled = {**record, "actions": [*record["actions"], action]}
        message = api.validate(spoiled, events=False)["violation"]["message"].split("): ", 1)[1]
        for seat, words in listed_calls(message, int(action.split()[0])):
            assert words == calls_of(result, seat), (spoiled, message, sorted(calls_of(result, seat)))
            checked += 1
    return checked
