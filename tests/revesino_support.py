"""Helpers shared by the Revesino play tests: hand records written in card notation, a builder of
deals that reach a chosen trick with chosen cards in hand, and readers of validation results. Not
a test module (pytest collects only ``test_*.py``).

Seat numbering follows FORMAT.md: seats in order of play; the dealer is D, S1 = D+1 leads trick 1,
S2 = D+2, S3 = D+3. With ``dealer=0`` the spec's Sn is seat n. The dealer is dealt 12 cards and
every other seat 11; ``deal.stock`` holds the three undealt cards, S1's first.

Nothing here imports the engine's Revesino modules: the helpers are an independent reading of the
spec.

``rec`` writes a record from (possibly partial) hands; ``build`` writes one that reaches a chosen
trick: the test names the cards each seat holds when the interesting moment comes, and the builder
puts before it the exchange (every non-dealer keeps, the dealer discards) and "filler" tricks in
which all four cards are of one suit, so every filler card is legal whatever else the seats hold,
and the winner of each filler trick is the seat the test asks for. Filler tricks use no ace and
not the quínola, so nobody qualifies for a napolitana by accident -- unless ``aces=True`` (the
winner takes the aces first), or more tricks are asked for than the plain cards allow (four suits
of eleven make eight tricks): then a suit's ace, and for oros the quínola, join when that suit is
needed. ``scripted`` writes a whole hand from its tricks (the cards of each trick in play order), the
hands dealt being the cards each seat plays, with the exchange's cards put back.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

SUITS = "oceb"
RANKS = tuple(range(1, 13))
DECK = [f"{r}{s}" for s in SUITS for r in RANKS]  # canonical order: suits o, c, e, b; ranks ascending
WORD = {"o": "oros", "c": "copas", "e": "espadas", "b": "bastos"}
ACES = ("1o", "1c", "1e", "1b")
QUINOLA = "10o"
# A1: the rank order inside every suit, highest first.
ORDER = (1, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2)
POINTS = {1: 4, 12: 3, 11: 2, 10: 1}


def suit(card: str) -> str:
    return card[-1]


def rank(card: str) -> int:
    return int(card[:-1])


def strength(card: str) -> int:
    """The higher, the better, inside one suit (A1)."""
    return len(ORDER) - ORDER.index(rank(card))


def card_points(card: str) -> int:
    """A1's table: aces 4 (1c 5), reyes 3, caballos 2, sotas 1 (the quínola 3), the rest 0."""
    if card == "1c":
        return 5
    if card == QUINOLA:
        return 3
    return POINTS.get(rank(card), 0)


def canon(cards: str | Sequence[str]) -> str:
    """Cards in canonical order (suits o, c, e, b; ranks ascending), as the engine writes them."""
    items = cards.split() if isinstance(cards, str) else list(cards)
    return " ".join(sorted(items, key=lambda c: (SUITS.index(suit(c)), rank(c))))


def qualifies(cards: str | Sequence[str]) -> bool:
    """A4.1: three aces and the quínola, or the four aces."""
    items = set(cards.split() if isinstance(cards, str) else cards)
    aces = len(items & set(ACES))
    return aces == 4 or (aces == 3 and QUINOLA in items)


def trick_winner(cards: Sequence[str]) -> int:
    """A5: the index of the highest card of the suit led; other suits never win."""
    led = suit(cards[0])
    return max((i for i, c in enumerate(cards) if suit(c) == led), key=lambda i: strength(cards[i]))


def seat_after(seat: int, k: int = 1) -> int:
    return (seat + k) % 4


def plain(card: str) -> bool:
    """Neither an ace nor the quínola."""
    return card not in ACES and card != QUINOLA


def special_last(cards: Sequence[str]) -> list[str]:
    """Cards with the aces and the quínola moved to the end (the quínola last)."""
    plain = [c for c in cards if c not in ACES and c != QUINOLA]
    return plain + [c for c in cards if c in ACES] + [c for c in cards if c == QUINOLA]


# ---- records ---------------------------------------------------------------------------------------


def _fill(hands: dict[int, list[str]], want: dict[int, int], out_slots: int, used: set[str],
          voids: dict[int, str] | None) -> list[str]:
    """Fill every hand (in place) to ``want[s]`` cards and return ``out_slots`` more cards. The
    unnamed aces and the quínola go to the out slots first, so no seat holds a napolitana it was
    not given; the seats with ``voids`` are filled first, from the cards outside those suits."""
    voids = voids or {}
    spare = special_last([c for c in DECK if c not in used])
    out = [spare.pop() for _ in range(out_slots)]
    for s in sorted(hands, key=lambda s: (s not in voids, s)):
        while len(hands[s]) < want[s]:
            hands[s].append(_take(spare, voids.get(s, "")))
    assert not spare, f"test bug: {len(spare)} cards left over"
    return out


def rec(hands: Sequence[str], actions: Sequence[str] = (), *, undealt: str = "", dealer: int = 0, rules: dict[str, Any] | None = None,
        table: dict[str, Any] | None = None, voids: dict[int, str] | None = None) -> dict:
    """A Revesino record: ``hands[s]`` is what seat s is dealt (12 cards for the dealer, 11 for the
    others); ``undealt`` the undealt cards, S1's first. A hand or the undealt cards given short are
    filled from the rest of the pack in canonical order (``voids[s]``: suit letters seat s must
    not be given); the aces and the quínola nobody was given go out of play first."""
    assert len(hands) == 4, "test bug: Revesino has four seats"
    given = {s: h.split() for s, h in enumerate(hands)}
    top = undealt.split()
    named = [c for h in given.values() for c in h] + top
    assert len(named) == len(set(named)), "test bug: a card twice"
    assert all(c in DECK for c in named), f"test bug: not a card: {[c for c in named if c not in DECK]}"
    for s, h in given.items():
        assert len(h) <= (12 if s == dealer else 11), f"test bug: seat {s} is given {len(h)} cards"
    out = _fill(given, {s: 12 if s == dealer else 11 for s in range(4)}, 3 - len(top), set(named), voids)
    stock = top + out
    record: dict[str, Any] = {"game": "revesino", "seats": 4, "dealer": dealer,
                              "deal": {"hands": [" ".join(given[s]) for s in range(4)], "stock": " ".join(stock)},
                              "actions": list(actions)}
    if rules:
        record["rules"] = dict(rules)
    if table is not None:
        record["table"] = dict(table)
    assert sorted([*(c for h in record["deal"]["hands"] for c in h.split()), *stock]) == sorted(DECK), "test bug: not the 48 cards"
    return record


def keep_all(dealer: int, discard: str) -> list[str]:
    """The exchange where S1, S2 and S3 keep their cards and the dealer discards ``discard``."""
    return [f"{seat_after(dealer, k)} quedo" for k in (1, 2, 3)] + [f"{dealer} descarte {discard}"]


def build(final: dict[int, str], winners: Sequence[int] = (), *, dealer: int = 0, undealt: str = "", discard: str = "",
          calls: Sequence[str] = (), voids: dict[int, str] | None = None, renounce: dict[int, str] | None = None, aces: bool = False,
          reserve: str = "", rules: dict[str, Any] | None = None, table: dict[str, Any] | None = None) -> dict:
    """A record that reaches trick ``len(winners) + 1`` with ``final[s]`` in seat s's hand.

    The actions are: the exchange (S1, S2, S3 keep; the dealer discards ``discard``, or a card the
    test does not care about), then ``calls`` (e.g. ``["2 napolitana"]``), then one filler trick
    for each entry of ``winners`` (the winner of that trick; the first is led by S1, each next by
    the previous winner). A seat not named in ``final``, or named with fewer cards than it holds
    then, is filled up with cards the test does not care about (never of the suits in
    ``voids[s]``). ``renounce[s]``: cards seat s plays, one per filler trick from the first, in
    place of its filler card (a napolitana's renounces; he must neither lead nor win those
    tricks). ``reserve``: cards kept out of every filler trick (they end where the fill puts them).
    """
    n = len(winners)
    keep = 11 - n
    renounce = {s: cs.split() for s, cs in (renounce or {}).items()}
    finals = {s: final.get(s, "").split() for s in range(4)}
    for s, cs in finals.items():
        assert len(cs) <= keep, f"test bug: seat {s} would hold {len(cs)} cards in trick {n + 1}"
    named = [c for cs in finals.values() for c in cs] + undealt.split() + discard.split() + reserve.split()
    named += [c for cs in renounce.values() for c in cs]
    assert len(named) == len(set(named)), "test bug: a card twice"
    taken = set(named)
    # The filler groups: one per suit, highest first; no ace and no quínola unless asked (or short).
    groups = {x: [f"{r}{x}" for r in ORDER if f"{r}{x}" not in taken and (aces or plain(f"{r}{x}"))] for x in SUITS}
    extras = {x: [f"{r}{x}" for r in ORDER if f"{r}{x}" not in taken and f"{r}{x}" not in groups[x]] for x in SUITS}
    filler: dict[int, list[str]] = {s: [] for s in range(4)}
    tricks: list[list[str]] = []
    leader = seat_after(dealer)
    for i, w in enumerate(winners):
        renouncers = [s for s, cs in renounce.items() if i < len(cs)]
        for s in renouncers:
            assert s not in (leader, w), f"test bug: seat {s} renounces in filler trick {i + 1} but leads or wins it"
        need = 4 - len(renouncers)
        # The suit with most cards left (first on ties), never the suit of a card renounced to it.
        allowed = [g for g in groups if all(suit(renounce[s][i]) != g for s in renouncers)]
        name = max(allowed, key=lambda g: len(groups[g]))
        if len(groups[name]) < need:  # short of plain cards: a suit's ace (and the quínola) join
            name = max(allowed, key=lambda g: len(groups[g]) + len(extras[g]))
            groups[name] = sorted(groups[name] + extras[name], key=lambda c: ORDER.index(rank(c)))
            extras[name] = []
        group = groups[name]
        assert len(group) >= need, "test bug: not enough filler cards"
        best = group.pop(0)
        lows = [group.pop() for _ in range(need - 1)]
        trick = []
        for k in range(4):
            s = seat_after(leader, k)
            if s in renouncers:
                card = renounce[s][i]
            else:
                card = best if s == w else lows.pop(0)
                filler[s].append(card)
            trick.append(f"{s} {card}")
        tricks.append(trick)
        leader = w
    # Each seat's hand after the exchange: its filler cards, its renounces, its final cards.
    hands = {s: filler[s] + renounce.get(s, []) + finals[s] for s in range(4)}
    if discard:
        hands[dealer].append(discard)
    used = set(named) | {c for cs in filler.values() for c in cs}
    # Fill: every seat to 11 cards (the final cards) plus the dealer's discard; then the undealt.
    want = {s: 12 if s == dealer else 11 for s in range(4)}
    top = undealt.split()
    if not discard:  # the dealer discards a card the test does not care about
        discard = _take([c for c in DECK if c not in used and c not in ACES and c != QUINOLA], (voids or {}).get(dealer, ""))
        hands[dealer].append(discard)
        used.add(discard)
    out = _fill(hands, want, 3 - len(top), used, voids)
    record = rec([" ".join(hands[s]) for s in range(4)], undealt=" ".join(top + out), dealer=dealer, rules=rules, table=table)
    record["actions"] = [*keep_all(dealer, discard), *calls, *(a for t in tricks for a in t)]
    return record


def scripted(tricks: Sequence[str], *, dealer: int = 0, undealt: str, exchange: dict[int, str] | None = None,
             calls: Sequence[str] = (), before: dict[int, Sequence[str]] | None = None,
             rules: dict[str, Any] | None = None, table: dict[str, Any] | None = None) -> dict:
    """A whole hand record from its tricks.

    ``tricks``: the cards of each trick in play order from its leader. ``undealt``: S1's, S2's
    and S3's undealt cards. ``exchange``: by relative seat, ``"quedo"`` (default for S1-S3),
    ``"cambio <card>"`` or, for S0, ``"descarte <card>"`` (required): the hands dealt are the
    hands the tricks show, with a cambio's discard in place of the undealt card taken and the
    dealer's discard added. ``calls``: actions (relative seat first, e.g. ``"2 napolitana"``)
    made after the exchange; ``before[n]``: actions made just before the first card of trick n.
    """
    exchange = dict(exchange or {})
    stock = undealt.split()
    assert len(stock) == 3, "test bug: three undealt cards"
    held: list[list[str]] = [[] for _ in range(4)]
    plays: list[list[str]] = []
    leader = seat_after(dealer, 1)
    for text in tricks:
        cards = text.split()
        assert len(cards) == 4, f"test bug: {text!r}"
        plays.append([f"{(leader + k) % 4} {c}" for k, c in enumerate(cards)])
        for k, c in enumerate(cards):
            held[(leader + k) % 4].append(c)
        leader = (leader + trick_winner(cards)) % 4
    dealt = [list(h) for h in held]
    actions = []
    for k in (1, 2, 3):
        s = seat_after(dealer, k)
        choice = exchange.get(k, "quedo")
        if choice.startswith("cambio "):
            out = choice.split()[1]
            assert stock[k - 1] in dealt[s], f"test bug: S{k} takes {stock[k - 1]} but never plays it"
            dealt[s].remove(stock[k - 1])
            dealt[s].append(out)
        actions.append(f"{s} {choice}")
    discard = exchange[0].split()[1]
    dealt[dealer].append(discard)
    actions.append(f"{dealer} descarte {discard}")

    def absolute(action: str) -> str:
        k, rest = action.split(" ", 1)
        return f"{seat_after(dealer, int(k))} {rest}"

    actions += [absolute(a) for a in calls]
    for n, trick in enumerate(plays, start=1):
        actions += [absolute(a) for a in (before or {}).get(n, ())]
        actions += trick
    record = rec([" ".join(h) for h in dealt], actions, undealt=undealt, dealer=dealer, rules=rules, table=table)
    assert record["deal"]["stock"].split() == stock
    return record


def _take(spare: list[str], void: str) -> str:
    card = next((c for c in spare if suit(c) not in void), None)
    assert card is not None, f"test bug: no card left outside suits {void!r}"
    spare.remove(card)
    return card


# ---- reading results ------------------------------------------------------------------------------


def more(record: dict, *actions: str) -> dict:
    """The same record with more actions."""
    return {**record, "actions": [*record["actions"], *actions]}


def upto(record: dict, n: int) -> dict:
    """The same record cut after its first ``n`` actions."""
    return {**record, "actions": record["actions"][:n]}


def first_card_of_trick(record: dict, n: int) -> int:
    """The index of the action that plays the first card of trick ``n``."""
    count = 0
    for i, a in enumerate(record["actions"]):
        if a.split()[1][0].isdigit():
            if count == 4 * (n - 1):
                return i
            count += 1
    raise AssertionError(f"no trick {n}")


def through_trick(record: dict, n: int, led: bool = False) -> dict:
    """The record cut after trick ``n`` (and the lead to trick n + 1 when ``led``)."""
    end = first_card_of_trick(record, n + 1) if n < 11 else len(record["actions"])
    return upto(record, end + (1 if led else 0))


def moves(result: dict, trick: int | None = None) -> list[tuple[str, str, int]]:
    """The payments as (payer, payee, amount), in order; those of one trick when ``trick``."""
    return [(p["payer"], p["payee"], p["amount"]) for p in result["payments"] if trick is None or p.get("trick") == trick]


def with_rules(record: dict, **rules: Any) -> dict:
    return {**record, "rules": {**record.get("rules", {}), **rules}}










def cards_in(value: Any) -> set[str]:
    """Every card named anywhere inside a JSON value (strings split on spaces)."""
    found: set[str] = set()
    if isinstance(value, str):
        found |= {t for t in value.split() if t in DECK}
    elif isinstance(value, dict):
        for v in value.values():
            found |= cards_in(v)
    elif isinstance(value, list):
        for v in value:
            found |= cards_in(v)
    return found
