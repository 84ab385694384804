"""Trick mechanics shared by the three games.

Every game decides a trick the same way (STYLE.md, habit 3): a pure ``strength(card, led)``
function of the contract gives each card a number, ``-1`` when the card cannot win the trick,
and the winner is the argmax.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final

from engine.cards import Card

Strength = Callable[[Card, Card], int]


class Trick:
    """One trick: who led it, the cards in play order, and the winning seat once complete."""

    leader: Final[int]
    cards: Final[tuple[Card, ...]]
    winner: Final[int | None]

    def __init__(self, leader: int, cards: tuple[Card, ...] = (), winner: int | None = None) -> None:
        self.leader = leader
        self.cards = cards
        self.winner = winner

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Trick):
            return NotImplemented
        return (self.leader, self.cards, self.winner) == (other.leader, other.cards, other.winner)

    def __hash__(self) -> int:
        return hash((self.leader, self.cards, self.winner))

    def __repr__(self) -> str:
        return f"Trick(leader={self.leader!r}, cards={self.cards!r}, winner={self.winner!r})"

    def seat_of(self, index: int, seats: int) -> int:
        """The seat that played the ``index``-th card of the trick."""
        return (self.leader + index) % seats

    def with_card(self, card: Card) -> Trick:
        return Trick(self.leader, self.cards + (card,))

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"leader": self.leader, "cards": [c.code for c in self.cards]}
        if self.winner is not None:
            out["winner"] = self.winner
        return out


def winning_index(cards: Sequence[Card], strength: Strength) -> int:
    """The position in ``cards`` (play order) of the card that wins the trick so far."""
    led = cards[0]
    best, best_value = 0, strength(led, led)
    for i in range(1, len(cards)):
        value = strength(cards[i], led)
        if value > best_value:
            best, best_value = i, value
    return best


def rank_table(order: str) -> dict[int, int]:
    """A rank order written highest first (``"2 12 11 10 1 7 6 5 4 3"``) as rank -> strength,
    the highest rank getting the largest number."""
    ranks = [int(r) for r in order.split()]
    return {rank: len(ranks) - i for i, rank in enumerate(ranks)}
