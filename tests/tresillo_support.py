"""Helpers shared by the Tresillo play tests: hand records written in card notation, a builder of
deals that reach a chosen trick with chosen cards in hand, and readers of validation results. Not
a test module (pytest collects only ``test_*.py``).

Seat numbering follows FORMAT.md: seats in order of play, the dealer D; at 4 seats the mano is
D+1, the medio D+2, the postre D+3 and D is the alcalde (his ``deal.hands`` entry is ``""``); at 3
seats the mano is D+1, the medio D+2 and the postre is D. With ``dealer=0`` at 4 seats the spec's
Sn (section 10) is seat n.

The builder (``build``) deals explicit hands: the test names the cards each seat holds when the
interesting moment comes, and the builder puts before it "filler" tricks in which all three cards
are of one suit (or all trumps), so every filler card is legal whatever else the seats hold, and
the winner of each filler trick is the seat the test asks for.
"""

from __future__ import annotations

from typing import Any

RANKS = ("1", "2", "3", "4", "5", "6", "7", "10", "11", "12")
SUITS = "oceb"
WORD = {"o": "oros", "c": "copas", "e": "espadas", "b": "bastos"}
LETTER = {w: s for s, w in WORD.items()}
DECK = [r + s for s in SUITS for r in RANKS]  # canonical order: suits o, c, e, b, ranks ascending
# A 4-seat deal (dealer 0, the alcalde dealt nothing) for the auction and play examples; the stock
# is the other 13 cards.
STD = ["", "1e 7o 1b 1o 12o 11o 3c 4e 5b", "2o 3o 4o 12c 11c 10c 12e 11e 12b", "5o 6o 1c 2c 10e 7e 2b 3b 11b"]

# Spec section 1.3, highest first.
TRUMP_ORDER = {
    "o": "1e 7o 1b 1o 12o 11o 10o 2o 3o 4o 5o 6o".split(),
    "c": "1e 7c 1b 1c 12c 11c 10c 2c 3c 4c 5c 6c".split(),
    "e": "1e 2e 1b 12e 11e 10e 7e 6e 5e 4e 3e".split(),
    "b": "1e 2b 1b 12b 11b 10b 7b 6b 5b 4b 3b".split(),
}
PLAIN_ORDER = {
    "o": "12o 11o 10o 1o 2o 3o 4o 5o 6o 7o".split(),
    "c": "12c 11c 10c 1c 2c 3c 4c 5c 6c 7c".split(),
    "e": "12e 11e 10e 7e 6e 5e 4e 3e 2e".split(),
    "b": "12b 11b 10b 7b 6b 5b 4b 3b 2b".split(),
}


def canon(cards: str | list[str]) -> str:
    """Cards in canonical order (suits o, c, e, b; ranks ascending), as the engine writes them."""
    items = cards.split() if isinstance(cards, str) else list(cards)
    return " ".join(sorted(items, key=lambda c: (SUITS.index(c[-1]), int(c[:-1]))))


def active(seats: int = 4, dealer: int = 0) -> list[int]:
    """[mano, medio, postre] of a hand."""
    if seats == 4:
        return [(dealer + 1) % 4, (dealer + 2) % 4, (dealer + 3) % 4]
    return [(dealer + 1) % 3, (dealer + 2) % 3, dealer]


def after(seat: int, seats: int = 4, dealer: int = 0) -> int:
    """The active seat that acts after ``seat``."""
    order = active(seats, dealer)
    return order[(order.index(seat) + 1) % 3]


def rec(hands: list[str], actions: list[str] | tuple[str, ...] = (), *, dealer: int = 0, rules: dict[str, Any] | None = None,
        table: dict[str, Any] | None = None, stock: str | None = None, stock_top: str = "") -> dict:
    """A Tresillo record: ``hands[s]`` is seat s's nine cards (``""`` for the alcalde at 4 seats).

    The stock is ``stock`` if given, else ``stock_top`` followed by the cards left of the deck in
    canonical order."""
    seats = len(hands)
    held = [c for h in hands for c in h.split()]
    for s, h in enumerate(hands):
        n = len(h.split())
        assert n == (0 if seats == 4 and s == dealer else 9), f"test bug: seat {s} has {n} cards"
    if stock is None:
        top = stock_top.split()
        stock = " ".join(top + [c for c in DECK if c not in held and c not in top])
    assert sorted(held + stock.split()) == sorted(DECK), "test bug: the deal is not the 40 cards"
    record: dict[str, Any] = {"game": "tresillo", "seats": seats, "dealer": dealer,
                              "deal": {"hands": list(hands), "stock": stock}, "actions": list(actions)}
    if rules:
        record["rules"] = dict(rules)
    if table is not None:
        record["table"] = dict(table)
    return record


def more(record: dict, *actions: str) -> dict:
    """The same record with more actions."""
    return {**record, "actions": [*record["actions"], *actions]}


def upto(record: dict, n: int) -> dict:
    """The same record cut after its first ``n`` actions."""
    return {**record, "actions": record["actions"][:n]}


def instead(record: dict, index: int, action: str) -> dict:
    """The record up to ``index`` with ``action`` in place of the action there."""
    return {**record, "actions": [*record["actions"][:index], action]}














# ---- openings: the auction and the exchange, written for the tests --------------------------------


def opening(jugador: int, lance: str, *, seats: int = 4, dealer: int = 0, contra: str | None = "contra",
            discards: dict[int, str] | None = None) -> list[str]:
    """The actions from the deal to the first lead: every seat before the Jugador passes, he says
    juego, the rest pass; he declares ``lance`` ("entrada oros", "vuelta", "solo copas"); he
    exchanges (not in solo), the seat after him says ``contra`` (None: no question, contraOrder
    turnOrder) and the opponents exchange. ``discards[s]`` is what seat s discards (default:
    nothing; a vuelta needs at least one card)."""
    discards = discards or {}
    # The auction: the seats before the Jugador pass, he opens, the seats after him pass (when he
    # is the postre, his juego after two passes ends the auction at once).
    actions = [f"{s} juego" if s == jugador else f"{s} paso" for s in active(seats, dealer)]
    actions.append(f"{jugador} {lance}")
    if not lance.startswith("solo"):
        actions.append(f"{jugador} descarte {discards.get(jugador, '')}".strip())
    first = after(jugador, seats, dealer)
    second = after(first, seats, dealer)
    if contra is not None:
        actions.append(f"{first} {contra}")
    exchangers = [second, first] if contra == "cedo" else [first, second]
    for s in exchangers:
        actions.append(f"{s} descarte {discards.get(s, '')}".strip())
    return actions


# ---- the builder: deals that reach a chosen trick with chosen cards --------------------------------


def is_trump(card: str, trump: str) -> bool:
    return card in TRUMP_ORDER[trump]


def build(trump: str, final: dict[int, str], winners_: list[int], *, seats: int = 4, dealer: int = 0,
          stock_top: str = "", reserve: str = "", suits: str | None = None) -> tuple[list[str], list[list[str]]]:
    """Hands and filler tricks for a hand in ``trump`` (a suit letter or word).

    ``final[s]``: the cards seat s holds after the filler tricks (an active seat not named, or
    named with fewer cards, is filled up with cards the test does not care about);
    ``winners_``: the winner of each filler trick, in order (the first is led by the mano, each
    next by the previous winner). ``suits`` restricts the filler to those suit letters ("T" = the
    trumps); default: the plain suits, then the trumps. ``reserve`` and ``stock_top`` are kept out
    of every hand. Returns (hands by seat, tricks as lists of action strings)."""
    trump = LETTER.get(trump, trump)
    order = active(seats, dealer)
    n = len(winners_)
    keep = 9 - n
    finals = {s: final.get(s, "").split() for s in order}
    taken = {c for cs in finals.values() for c in cs} | set(stock_top.split()) | set(reserve.split())
    assert len(taken) == sum(len(cs) for cs in finals.values()) + len(stock_top.split()) + len(reserve.split()), "test bug: a card twice"
    groups: dict[str, list[str]] = {}
    for letter in suits or (SUITS.replace(trump, "") + "T"):
        if letter == "T":
            groups["T"] = [c for c in TRUMP_ORDER[trump] if c not in taken]
        else:
            groups[letter] = [c for c in PLAIN_ORDER[letter] if c not in taken and not is_trump(c, trump)]
    filler: dict[int, list[str]] = {s: [] for s in order}
    tricks: list[list[str]] = []
    leader = order[0]
    for w in winners_:
        name = max(groups, key=lambda g: len(groups[g]))  # the group with most cards left (first on ties)
        group = groups[name]
        assert len(group) >= 3, "test bug: not enough filler cards"
        best, low1, low2 = group.pop(0), group.pop(), group.pop()
        seq = [leader, after(leader, seats, dealer), after(after(leader, seats, dealer), seats, dealer)]
        others = iter([low1, low2])
        trick = []
        for s in seq:
            card = best if s == w else next(others)
            filler[s].append(card)
            trick.append(f"{s} {card}")
        tricks.append(trick)
        leader = w
    used = taken | {c for cs in filler.values() for c in cs}
    spare = [c for c in DECK if c not in used and not is_trump(c, trump)] + [c for c in DECK if c not in used and is_trump(c, trump)]
    hands = []
    for s in range(seats):
        if s not in order:
            hands.append("")
            continue
        while len(finals[s]) < keep:
            card = spare.pop(0)
            finals[s].append(card)
        assert len(finals[s]) == keep, f"test bug: seat {s} would hold {len(finals[s])} cards after the filler"
        hands.append(" ".join(filler[s] + finals[s]))
    return hands, tricks


def flat(tricks: list[list[str]]) -> list[str]:
    return [a for t in tricks for a in t]


def filler_winners(lead: int, n: int) -> list[int]:
    """Winners of ``n`` filler tricks taking turns among seats 1, 2, 3, the last won by ``lead``."""
    x, y = [s for s in (1, 2, 3) if s != lead]
    return ([y, x, lead] * 3)[-n:]


def trick7(trump: str, lead: int, before: list[str], to_move: int, hand: str, rules: dict | None = None) -> dict:
    """A solo of the medio (seat 2) in ``trump``; 9 - len(hand) tricks of one suit each, won in
    turn by the seats, the last by ``lead``; then the next trick so far (``before``: "seat card"
    led first); ``to_move`` holds exactly ``hand`` (the name says trick 7: the spec's rows have
    three cards in hand, some two, and then it is trick 8)."""
    final: dict[int, str] = {to_move: hand}
    for action in before:
        seat, card = action.split()
        final[int(seat)] = f"{final.get(int(seat), '')} {card}".strip()
    hands, tricks = build(trump, final, filler_winners(lead, 9 - len(hand.split())))
    return rec(hands, [*opening(2, f"solo {WORD[trump]}"), *flat(tricks), *before], rules=rules)
