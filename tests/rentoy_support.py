"""Small helpers shared by the Rentoy rules tests: hand records written in card notation, and
readers of validation results. Not a test module (pytest collects only ``test_*.py``).

Seat numbering follows FORMAT.md: seats in order of play, the first player is the seat after the
dealer. The rules spec numbers seats from the dealer (S0 = dealer, S1 = first player), so with
``dealer=0`` the spec's Sn is seat n: team A = {S1, S3, ...} is team 1, team B = {S0, S2, ...}
is team 0.
"""

from __future__ import annotations

from typing import Any

A, B = 1, 0  # the spec's team A (first player's) and team B (dealer's)

# Two full 4-seat deals for betting scenarios (dealer 0, trump oros, turn-up 1o).
# In DEAL_A team A's S1 holds the two top trumps and wins the first two tricks (PLAY_A);
# in DEAL_B it is team B's S2 (PLAY_B). Nobody else holds a trump.
DEAL_A = ["10c 11c 12c", "2o 12o 3c", "4e 5e 6e", "7c 4b 5b"]
PLAY_A = ["1 2o", "2 4e", "3 7c", "0 10c", "1 12o", "2 5e", "3 4b", "0 11c"]
DEAL_B = ["10c 11c 12c", "4e 5e 6e", "2o 12o 3c", "7c 4b 5b"]
PLAY_B = ["1 4e", "2 2o", "3 7c", "0 10c", "2 12o", "3 4b", "0 11c", "1 5e"]


def rec(hands: list[str], turnup: str, actions: list[str] | tuple[str, ...] = (), *, dealer: int = 0,
        score: list[int] | None = None, rules: dict[str, Any] | None = None, rest: str = "") -> dict:
    """A Rentoy record: ``hands[s]`` is seat s's three cards, ``turnup`` the card turned for trumps."""
    record: dict[str, Any] = {
        "game": "rentoy",
        "seats": len(hands),
        "dealer": dealer,
        "deal": {"hands": list(hands), "stock": f"{turnup} {rest}".strip()},
        "actions": list(actions),
    }
    if score is not None:
        record["table"] = {"score": list(score)}
    if rules:
        record["rules"] = dict(rules)
    return record


def more(record: dict, *actions: str) -> dict:
    """The same record with more actions."""
    return {**record, "actions": [*record["actions"], *actions]}











