"""Tresillo over the service, on both transports (gRPC and REST), against the engine.

* Random legal playouts (3 and 4 seats, random dealers, options, tables and deals): the REST JSON
  of every prefix's ValidateHand is ``engine.api.validate(record)`` exactly, gRPC answers the same,
  LegalActions (the table's view and each seat's) is ``api.legal_actions`` on both transports, and
  a seat's view shows no card it may not see.
* The shared Tresillo sample records, with the figures they expect.
* SettleHand: hands worked out by hand from the spec (section 8), and the settlement of finished
  playouts rebuilt from their ValidateHand result agrees with that result.
* Bad Tresillo input: the same error code and field on both transports.
* DescribeRules: the 29 options of the spec's Appendix A with their defaults.
"""

from __future__ import annotations

import copy
import functools
import random
import re
from typing import Any

import pytest
from service_support import (
    assert_healthy,
    assert_same_error,
    call_both,
    call_grpc,
    call_rest,
    cards_in,
    engine_error,
    rest_failure,
)

from engine import api

CARD = re.compile(r"^(?:1[0-2]|[1-7])[oceb]$")
HANDS = 14  # random playouts; every prefix of each goes over REST


# ---- helpers -------------------------------------------------------------------------------------


def _dealt(record: dict) -> tuple[list[list[str]], list[str]]:
    """The record's deal as card lists (a seed is dealt by api.deal)."""
    deal = record["deal"]
    if "seed" in deal:
        deal = api.deal({"game": "tresillo", "seats": record["seats"], "dealer": record["dealer"],
                         "seed": deal["seed"]})["deal"]
    return [h.split() for h in deal["hands"]], deal["stock"].split()


class Tracker:
    """Where every card is, replayed from a record's actions independently of the engine: each
    seat's hand, the stock, each seat's discards, the turned vuelta card, the cards played, and
    the Jugador's nine cards when trick play starts."""

    def __init__(self, record: dict) -> None:
        self.hands, self.stock = _dealt(record)
        self.discards: list[list[str]] = [[] for _ in self.hands]
        self.played: list[str] = []
        self.turned: str | None = None
        self.jugador: int | None = None
        self.lance: str | None = None
        dealt = [list(h) for h in self.hands]
        drawn: list[str] = []
        for action in record["actions"]:
            seat_text, word, *args = action.split()
            seat = int(seat_text)
            if word in ("entrada", "vuelta", "solo"):
                self.jugador, self.lance = seat, word
                if word == "vuelta":
                    self.turned = self.stock.pop(0)
                    self.hands[seat].append(self.turned)
            elif word == "descarte":
                draw = len(args) - 1 if seat == self.jugador and self.lance == "vuelta" else len(args)
                got, self.stock = self.stock[:draw], self.stock[draw:]
                self.hands[seat] = [c for c in self.hands[seat] if c not in args] + got
                self.discards[seat] += args
                if seat == self.jugador:
                    drawn = got
            elif CARD.match(word):
                self.hands[seat].remove(word)
                self.played.append(word)
        # The Jugador's cards at play start: dealt, plus the turned card of a vuelta, less his
        # discards, plus what he drew from the stock, in order.
        self.jugador_hand: list[str] = []
        if self.jugador is not None:
            j = self.jugador
            start = dealt[j] + ([self.turned] if self.turned else [])
            self.jugador_hand = [c for c in start if c not in self.discards[j]] + drawn


def random_table(rng: random.Random, seats: int) -> dict | None:
    kind = rng.choice(["omitted", "fresh", "plate", "primera", "reservada"])
    if kind == "omitted":
        return None
    if kind == "fresh":
        return {"plate": 0, "plateHolds": "none", "cartulina": []}
    if kind == "plate":
        return {"plate": 5 * rng.randrange(1, 6), "plateHolds": "none", "cartulina": []}
    if kind == "primera":
        return {"plate": 5 * rng.randrange(5, 20), "plateHolds": "primera", "cartulina": []}
    entries = [{"seat": 0, "amount": 5 * rng.randrange(4, 12)}]
    entries += [{"seat": rng.randrange(seats), "amount": 5 * rng.randrange(4, 12)} for _ in range(rng.randrange(3))]
    rng.shuffle(entries)
    return {"plate": 5 * rng.randrange(5, 20), "plateHolds": "reservada", "cartulina": entries}


STRONG = ("1e", "2e", "1b", "12e", "11e", "10e", "7e", "6e", "5e")  # the nine best trumps in espadas
WEAKER = (*STRONG[:8], "7o")  # eight of them and the lowest oros: a bola that may fail


def random_record(rng: random.Random, seats: int, strong: bool = False) -> dict:
    """A random hand's record; ``strong``: the mano is dealt the nine best espadas trumps, or
    eight and a loser (so that primeras, planto, bola and failed bolas come up)."""
    rules: dict[str, Any] = {}
    for option in api.describe_rules("tresillo")["options"]:
        if rng.random() < 0.3:
            rules[option["name"]] = rng.choice(option["choices"])
    dealer = rng.randrange(seats)
    record: dict[str, Any] = {"game": "tresillo", "seats": seats, "dealer": dealer, "rules": rules,
                              "deal": {"seed": f"tresillo-playout-{rng.random()}"}, "actions": []}
    table = random_table(rng, seats)
    if table is not None:
        record["table"] = table
    # Half the deals spelled out as cards, as an app would send them (every strong one).
    if strong or rng.random() < 0.5:
        record["deal"] = api.deal({"game": "tresillo", "seats": seats, "dealer": dealer,
                                   "seed": record["deal"]["seed"]})["deal"]
    if strong:
        piles = [h.split() for h in record["deal"]["hands"]] + [record["deal"]["stock"].split()]
        mano = piles[(dealer + 1) % seats]
        wanted = rng.choice([STRONG, WEAKER])
        for card in wanted:
            if card in mano:
                continue
            pile = next(p for p in piles if card in p)
            give = next(c for c in mano if c not in wanted)
            pile[pile.index(card)], mano[mano.index(give)] = give, card
        record["deal"] = {"hands": [" ".join(p) for p in piles[:-1]], "stock": " ".join(piles[-1])}
    return record


def _kind(action: str) -> str:
    return action.split()[1]


def choose(rng: random.Random, legal: list[str], strong_seat: int | None) -> str:
    """A random legal action: its kind first (the word after the seat), then one of that kind (a
    descarte: how many cards first), so the hundreds of descartes do not swamp the other calls.
    With ``strong_seat``, that seat bids and declares espadas, the others pass, and it plays its
    loser (the 7o) last."""
    kinds = sorted({_kind(a) for a in legal})
    if strong_seat is not None and {"paso", "juego", "mas"} & set(kinds):
        mine = [a for a in legal if a.startswith(f"{strong_seat} ") and _kind(a) in ("juego", "mas")]
        passes = [a for a in legal if _kind(a) == "paso" and not a.startswith(f"{strong_seat} ")]
        if mine or passes:
            return (mine or passes)[0]
    if strong_seat is not None and f"{strong_seat} 7o" in legal and len(kinds) > 1:
        kinds.remove("7o")  # the strong seat keeps its loser for last
    kind = rng.choice(kinds)
    of_kind = [a for a in legal if _kind(a) == kind]
    if kind == "descarte":
        count = rng.choice(sorted({len(a.split()) for a in of_kind}))
        of_kind = [a for a in of_kind if len(a.split()) == count]
    if strong_seat is not None and kind in ("entrada", "solo"):
        of_kind = [a for a in of_kind if a.endswith(" espadas")] or of_kind
    return rng.choice(of_kind)


def playout(rng: random.Random, seats: int, strong: bool = False) -> list[dict]:
    """Every prefix of one random legal hand."""
    record = random_record(rng, seats, strong)
    strong_seat = (record["dealer"] + 1) % seats if strong else None
    prefixes = [copy.deepcopy(record)]
    while True:
        result = api.validate(record)
        assert result["valid"], result.get("violation")
        if result["finished"]:
            return prefixes
        action = choose(rng, result["next"]["legal"], strong_seat)
        record = dict(record, actions=[*record["actions"], action])
        prefixes.append(record)


PLAYOUTS = [(3 + seed % 2, seed) for seed in range(HANDS)]


@functools.cache
def _playout(seats: int, seed: int) -> list[dict]:
    return playout(random.Random(f"tresillo-{seats}-{seed}"), seats, strong=seed % 3 == 2)


# ---- 1. random playouts ---------------------------------------------------------------------------


@pytest.mark.parametrize(("seats", "seed"), PLAYOUTS, ids=[f"{s}seats-{n}" for s, n in PLAYOUTS])
def test_playout_validation_is_the_engine_result(seats: int, seed: int, stub, http, rest_url) -> None:
    records = _playout(seats, seed)
    for record in records:
        assert call_rest(http, rest_url, "ValidateHand", {"record": record}) == api.validate(record)
    rng = random.Random(seed)
    for record in (records[0], records[len(records) // 2], rng.choice(records), records[-1]):
        assert call_grpc(stub, "ValidateHand", {"record": record}) == api.validate(record)
    # An action after the end, and a random cut ending in an illegal action.
    last = records[-1]
    over = dict(last, actions=[*last["actions"], f"{(last['dealer'] + 1) % seats} paso"])
    result = call_both(stub, http, rest_url, "ValidateHand", {"record": over})
    assert result == api.validate(over)
    assert result["valid"] is False and result["violation"]["action"] == len(last["actions"])
    assert result["violation"]["code"] == "NOT_ALLOWED_NOW"
    cut = rng.randrange(len(last["actions"]))  # the hand is not over yet
    bad = rng.choice([f"{last['dealer']} paso", f"{seats} paso", "0 rindo", "1 descarte 1e", "2 bola", "0 x", "1 1o"])
    broken = dict(last, actions=[*last["actions"][:cut], bad])
    result = call_both(stub, http, rest_url, "ValidateHand", {"record": broken})
    assert result == api.validate(broken)
    if seats == 4 and bad == f"{last['dealer']} paso":
        assert result["violation"] == {**result["violation"], "action": cut, "code": "NOT_YOUR_TURN"}  # the alcalde
    if bad in (f"{seats} paso", "0 x"):
        assert result["violation"] == {**result["violation"], "action": cut, "code": "MALFORMED_ACTION"}


def _view_prefixes(records: list[dict]) -> list[dict]:
    """The first prefix of every phase, the last one, and one more in the trick play."""
    chosen, seen = [], set()
    for record in records:
        phase = api.validate(record)["phase"]
        if phase not in seen:
            seen.add(phase)
            chosen.append(record)
    playing = [r for r in records if api.validate(r)["phase"] == "play"]
    if playing:
        chosen.append(playing[len(playing) // 2])
    if all(r is not records[-1] for r in chosen):
        chosen.append(records[-1])
    return chosen


@pytest.mark.parametrize(("seats", "seed"), PLAYOUTS[::2] + PLAYOUTS[1::4], ids=lambda v: str(v))
def test_playout_legal_actions_and_views(seats: int, seed: int, stub, http, rest_url) -> None:
    for record in _view_prefixes(_playout(seats, seed)):
        track = Tracker(record)
        played = set(track.played)
        turn_up = {track.turned} if track.turned else set()
        reveal = (record["rules"].get("revealRemainder") is True)
        answer = call_both(stub, http, rest_url, "LegalActions", {"record": record})
        assert answer == api.legal_actions(record)
        phase = answer["view"]["phase"]
        revealed = reveal and phase not in ("auction", "declare", "contraOrder", "exchange")
        shown_stock = set(track.stock) if revealed else set()
        # The table's view is public (its legal list is the acting seat's, as ValidateHand's next):
        # played cards, the turned vuelta card, a revealed remainder.
        assert "hand" not in answer["view"]
        assert cards_in(answer["view"], CARD) <= played | turn_up | shown_stock
        for seat in range(seats):
            answer = call_both(stub, http, rest_url, "LegalActions", {"record": record, "seat": seat})
            assert answer == api.legal_actions(record, seat)
            view = answer["view"]
            assert view["seat"] == seat
            own = set(track.hands[seat])
            assert set(view["hand"].split()) == own
            assert view["handSizes"] == [len(h) for h in track.hands]
            if record["rules"].get("revealDiscardCount") is False and any(track.discards):
                assert "stockSize" not in view and "exchanged" not in answer["view"]  # it would tell the counts
            else:
                assert view["stockSize"] == len(track.stock)
            if revealed:  # (an empty remainder is shown empty)
                assert view["stock"].split() == track.stock
            else:
                assert "stock" not in view
            others = set().union(*(set(h) for i, h in enumerate(track.hands) if i != seat))
            discards = set().union(*(set(d) for d in track.discards))
            hidden = (others | set(track.stock) | discards) - turn_up - shown_stock
            seen = cards_in(answer, CARD)
            assert not (seen & hidden), (seat, sorted(seen & hidden))
            assert seen <= own | played | turn_up | shown_stock
            assert all(a.split()[0] == str(seat) for a in answer["legal"])
            assert all(a["seat"] == seat for a in answer["actions"])


def test_playouts_cover_the_game() -> None:
    """The playouts above do reach every phase and several kinds of ending."""
    phases, outcomes, lances = set(), set(), set()
    for seats, seed in PLAYOUTS:
        records = _playout(seats, seed)
        phases |= {api.validate(r)["phase"] for r in records}
        last = api.validate(records[-1])
        assert last["finished"] is True and "net" in last and "table" in last
        assert sum(last["net"]) == (record_plate(records[-1]) - last["table"]["plate"])
        outcomes.add(last["outcome"])
        lances.add(last.get("lance"))
    assert {"auction", "declare", "exchange", "play", "over"} <= phases
    assert len(outcomes) >= 3, outcomes
    assert len(lances) >= 3, lances


def record_plate(record: dict) -> int:
    return (record.get("table") or {}).get("plate", 0)


# ---- 2. the shared sample records ----------------------------------------------------------------

# (The shared samples of every game: test_service_examples.py.)


# ---- 3. SettleHand ----------------------------------------------------------------------------------

# (case, request, net, table): figures worked out by hand from the spec's section 8.
SETTLE_CASES = [
    # Entrada in oros won 5-1-1 at a fresh 3-seat table: jugar 5 from each, and the plate (the
    # dealer's 5).
    ("win", {"game": "tresillo", "seats": 3, "dealer": 0, "rules": {},
             "table": {"plate": 0, "plateHolds": "none", "cartulina": []},
             "tresillo": {"jugador": 1, "lance": "entrada", "trump": "oros", "jugadorHand": "1e 12o 11o 10o 2o 3o 4o 5o 6o",
                          "tricks": [1, 2, 1, 0, 1, 1, 1]}},
     [-10, 15, -5], {"plate": 0, "plateHolds": "none", "cartulina": []}),
    # Entrada in copas with five estuches, 3-3-3 at a 4-seat table: 5 to each of the three others
    # (the alcalde too); the puesta 15 + 20 into a plate holding no puesta.
    ("puesta", {"game": "tresillo", "seats": 4, "dealer": 0, "rules": {},
                "table": {"plate": 10, "plateHolds": "none", "cartulina": []},
                "tresillo": {"jugador": 2, "lance": "entrada", "trump": "copas", "jugadorHand": "1e 7c 1b 1c 12c 2o 3o 4o 5o",
                             "tricks": [1, 3, 2, 1, 3, 2, 1, 3, 2]}},
     [0, 5, -50, 5], {"plate": 50, "plateHolds": "primera", "cartulina": []}),
    # Entrada a favor (bastos) lost by codillo to seat 1 over a puesta primera: P = 35 + 40; the
    # puesta goes onto the cartulina (seat 0), the codillo to seat 1.
    ("codillo", {"game": "tresillo", "seats": 3, "dealer": 2, "rules": {"favorSuit": "bastos"},
                 "table": {"plate": 30, "plateHolds": "primera", "cartulina": []},
                 "tresillo": {"jugador": 0, "lance": "entrada", "trump": "bastos", "jugadorHand": "2b 12b 11b 10b 7b 6b 5b 4b 3b",
                              "tricks": [1, 1, 1, 1, 1]}},
     [-75, 75, -5], {"plate": 35, "plateHolds": "primera", "cartulina": [{"seat": 0, "amount": 75}]}),
    # Everybody passed: only the dealer's 5 moves; the plate's kind and the cartulina stay.
    ("annulled", {"game": "tresillo", "seats": 4, "dealer": 3, "rules": {},
                  "table": {"plate": 40, "plateHolds": "reservada", "cartulina": [{"seat": 0, "amount": 25}]},
                  "tresillo": {"annulled": True}},
     [0, 0, 0, -5], {"plate": 45, "plateHolds": "reservada", "cartulina": [{"seat": 0, "amount": 25}]}),
    # An entrada surrendered after one trick, both opponents accept: a puesta of 5 + 20 into the
    # plate, no condiciones.
    ("surrender", {"game": "tresillo", "seats": 3, "dealer": 1, "rules": {},
                   "table": {"plate": 0, "plateHolds": "none", "cartulina": []},
                   "tresillo": {"jugador": 0, "lance": "entrada", "trump": "oros", "tricks": [2], "surrender": "accepted"}},
     [-25, -5, 0], {"plate": 30, "plateHolds": "primera", "cartulina": []}),
    # A surrendered entrada in copas defended by seat 2, who wins 5-0-0: the rendido pays his
    # puesta (25 + 20) to the defender; the plate keeps its puesta and gains the dealer's 5.
    ("defended", {"game": "tresillo", "seats": 4, "dealer": 0, "rules": {},
                  "table": {"plate": 20, "plateHolds": "primera", "cartulina": []},
                  "tresillo": {"jugador": 1, "lance": "entrada", "trump": "copas", "jugadorHand": "4o 5o 6o 7o 2c 3c 4c 5c 6c",
                               "tricks": [2, 2, 2, 2, 2], "surrender": "defended", "defender": 2}},
     [-5, -45, 45, 0], {"plate": 25, "plateHolds": "primera", "cartulina": []}),
]


@pytest.mark.parametrize(("case", "request_json", "net", "table"), SETTLE_CASES, ids=[c[0] for c in SETTLE_CASES])
def test_settle_hand_by_hand(case, request_json, net, table, stub, http, rest_url) -> None:
    answer = call_both(stub, http, rest_url, "SettleHand", request_json)
    assert answer == api.settle_hand(request_json)
    assert answer["net"] == net
    assert answer["table"] == table
    # Money is conserved: what the seats lose the plate gains.
    assert sum(answer["net"]) == request_json["table"]["plate"] - table["plate"]
    assert "condiciones" in answer and "outcome" in answer
    for payment in answer["payments"]:
        assert payment["amount"] > 0 and payment["amount"] % 5 == 0 and payment["reason"]


def settle_request(record: dict, result: dict) -> dict:
    """SettleHand's request for a finished record, built from its ValidateHand result and the
    cards the record moves."""
    table = record.get("table") or {}
    request = {"game": "tresillo", "seats": record["seats"], "dealer": record["dealer"],
               "rules": record.get("rules", {}), "table": table}
    if result["outcome"] == "annulled":
        request["tresillo"] = {"annulled": True}
        return request
    summary: dict[str, Any] = {"jugador": result["jugador"], "lance": result["lance"], "trump": result["trump"],
                               "solera": result.get("solera", False),
                               "tricks": [t["winner"] for t in result["tricks"] if "winner" in t],
                               "bola": result["bola"] if result.get("bola") in ("made", "failed") else "none"}
    if "defender" in result:
        summary.update(surrender="defended", defender=result["defender"])
    elif "rendido" in result:
        summary["surrender"] = "accepted"
    else:
        summary["surrender"] = "none"
    track = Tracker(record)
    assert len(track.jugador_hand) == 9
    summary["jugadorHand"] = " ".join(track.jugador_hand)
    request["tresillo"] = summary
    return request


# 64 hands: an annulled one is rare (about one playout in thirty), and the random rules each hand
# draws (one draw per option) shift the stream whenever an option is added.
SETTLED = [(3 + seed % 2, seed) for seed in range(64)]


@functools.cache
def _settled(seats: int, seed: int) -> dict:
    return playout(random.Random(f"settle-{seats}-{seed}"), seats, strong=seed % 3 == 2)[-1]


def test_settle_hand_agrees_with_validation_of_the_same_hand() -> None:
    """The engine alone, over many finished playouts: every settlement figure SettleHand gives is
    the one ValidateHand gave."""
    outcomes = set()
    for seats, seed in SETTLED:
        record = _settled(seats, seed)
        result = api.validate(record)
        answer = api.settle_hand(settle_request(record, result))
        outcomes.add(result["outcome"])
        for key, value in answer.items():
            assert result[key] == value, (seed, key)
    assert {"sacada", "primeras", "bola", "bolaFailed", "codillo", "rendida", "annulled"} <= outcomes, outcomes
    assert {"dWin", "dCodilloR", "dCodilloP"} & outcomes, outcomes


@pytest.mark.parametrize(("seats", "seed"), SETTLED[:8], ids=lambda v: str(v))
def test_settle_hand_over_both_transports_agrees_with_validate_hand(seats, seed, stub, http, rest_url) -> None:
    record = _settled(seats, seed)
    result = call_both(stub, http, rest_url, "ValidateHand", {"record": record})
    answer = call_both(stub, http, rest_url, "SettleHand", settle_request(record, result))
    assert (answer["net"], answer["table"], answer["payments"]) == (result["net"], result["table"], result["payments"])
    assert answer["outcome"] == result["outcome"]


# ---- 4. bad input ------------------------------------------------------------------------------------


def _base(seats: int = 3) -> dict:
    dealt = api.deal({"game": "tresillo", "seats": seats, "dealer": 0, "seed": "bad-input"})["deal"]
    return {"game": "tresillo", "seats": seats, "dealer": 0, "rules": {},
            "table": {"plate": 10, "plateHolds": "none", "cartulina": []}, "deal": dealt, "actions": ["1 juego"]}


def _with(change, seats: int = 3) -> dict:
    record = _base(seats)
    change(record)
    return record


def _eight_cards(r: dict) -> None:
    hand = r["deal"]["hands"][1].split()
    r["deal"]["hands"][1] = " ".join(hand[:8])
    r["deal"]["stock"] += " " + hand[8]


def _alcalde_with_cards(r: dict) -> None:
    # The dealer of a 4-seat table holds nine cards; seat 1 sits out instead.
    r["deal"]["hands"][0], r["deal"]["hands"][1] = r["deal"]["hands"][1], ""


def _short_stock(r: dict) -> None:
    stock = r["deal"]["stock"].split()
    r["deal"]["stock"] = " ".join(stock[:12])
    r["deal"]["hands"][1] += " " + stock[12]


SETTLE_OK = {"game": "tresillo", "seats": 3, "dealer": 0,
             "tresillo": {"jugador": 1, "lance": "entrada", "trump": "oros", "jugadorHand": "1e 12o 11o 10o 2o 3o 4o 5o 6o",
                          "tricks": [1, 2, 1, 0, 1, 1, 1]}}

BAD_CASES = [
    ("hand of 8 cards", "ValidateHand", {"record": _with(_eight_cards)}, "WRONG_HAND_SIZE", "deal.hands[1]"),
    ("hand of 10 cards", "ValidateHand", {"record": _with(_short_stock)}, "WRONG_HAND_SIZE", "deal.hands[1]"),
    ("alcalde with cards", "ValidateHand", {"record": _with(_alcalde_with_cards, 4)}, "WRONG_HAND_SIZE", "deal.hands[0]"),
    ("stock of 12", "ValidateHand",
     {"record": _with(lambda r: r["deal"].__setitem__("stock", " ".join(r["deal"]["stock"].split()[:12])))},
     "WRONG_HAND_SIZE", "deal.stock"),
    ("unknown option", "ValidateHand", {"record": _with(lambda r: r.__setitem__("rules", {"foo": 1}))}, "UNKNOWN_OPTION", "rules.foo"),
    ("bad favorSuit", "ValidateHand", {"record": _with(lambda r: r.__setitem__("rules", {"favorSuit": "rosas"}))},
     "INVALID_OPTION_VALUE", "rules.favorSuit"),
    ("favorSuit of the wrong type", "ValidateHand", {"record": _with(lambda r: r.__setitem__("rules", {"favorSuit": 1}))},
     "INVALID_OPTION_VALUE", "rules.favorSuit"),
    ("estucheCap not a choice", "ValidateHand", {"record": _with(lambda r: r.__setitem__("rules", {"estucheCap": 7}))},
     "INVALID_OPTION_VALUE", "rules.estucheCap"),
    ("primera in an empty plate", "ValidateHand",
     {"record": _with(lambda r: r.__setitem__("table", {"plate": 0, "plateHolds": "primera", "cartulina": []}))},
     "INVALID_TABLE", "table.plateHolds"),
    ("unknown plateHolds", "ValidateHand",
     {"record": _with(lambda r: r.__setitem__("table", {"plate": 10, "plateHolds": "segunda", "cartulina": []}))},
     "INVALID_FIELD", "table.plateHolds"),
    ("plate not in fives", "ValidateHand",
     {"record": _with(lambda r: r.__setitem__("table", {"plate": 12, "plateHolds": "none", "cartulina": []}))},
     "INVALID_TABLE", "table.plate"),
    ("cartulina seat out of range", "ValidateHand",
     {"record": _with(lambda r: r.__setitem__("table", {"plate": 30, "plateHolds": "primera",
                                                        "cartulina": [{"seat": 0, "amount": 25}, {"seat": 3, "amount": 25}]}))},
     "INVALID_TABLE", "table.cartulina[1].seat"),
    ("cartulina without a puesta in the plate", "ValidateHand",
     {"record": _with(lambda r: r.__setitem__("table", {"plate": 30, "plateHolds": "none", "cartulina": [{"seat": 0, "amount": 25}]}))},
     "INVALID_TABLE", "table.cartulina"),
    ("a Rentoy score on a Tresillo table", "ValidateHand",
     {"record": _with(lambda r: r.__setitem__("table", {"plate": 10, "score": [3, 4]}))}, "INVALID_TABLE", "table.score"),
    ("legal: unknown card", "LegalActions", {"record": _with(lambda r: r["deal"]["hands"].__setitem__(2, "8o " + r["deal"]["hands"][2].split(" ", 1)[1]))},
     "UNKNOWN_CARD", "deal.hands[2]"),
    ("view of no seat", "LegalActions", {"record": _base(), "seat": 3}, "SEAT_OUT_OF_RANGE", "seat"),
    ("settle: jugador is the alcalde", "SettleHand",
     {**SETTLE_OK, "seats": 4, "tresillo": {**SETTLE_OK["tresillo"], "jugador": 0, "tricks": [0, 2, 0, 1, 0, 0, 0]}},
     "INVALID_FIELD", "tresillo.jugador"),
    ("settle: hand not over", "SettleHand", {**SETTLE_OK, "tresillo": {**SETTLE_OK["tresillo"], "tricks": [1, 2]}},
     "INVALID_FIELD", "tresillo.tricks"),
    ("settle: jugadorHand of 8", "SettleHand",
     {**SETTLE_OK, "tresillo": {**SETTLE_OK["tresillo"], "jugadorHand": "1e 12o 11o 10o 2o 3o 4o 5o"}},
     "WRONG_HAND_SIZE", "tresillo.jugadorHand"),
    ("settle: cartulina seat out of range", "SettleHand",
     {**SETTLE_OK, "table": {"plate": 30, "plateHolds": "primera", "cartulina": [{"seat": 5, "amount": 25}]}},
     "INVALID_TABLE", "table.cartulina[0].seat"),
    ("settle: unknown option", "SettleHand", {**SETTLE_OK, "rules": {"foo": True}}, "UNKNOWN_OPTION", "rules.foo"),
    # an annulled hand with the fields of a played one (they were left out, silently)
    ("settle: an empty Rentoy summary", "SettleHand", {**SETTLE_OK, "rentoy": {}}, "INVALID_FIELD", "rentoy"),
    ("settle: annulled, with tricks", "SettleHand", {**SETTLE_OK, "tresillo": {**SETTLE_OK["tresillo"], "annulled": True}},
     "INVALID_FIELD", "tresillo.jugador"),
    ("trick: duplicated card", "ResolveTrick",
     {"game": "tresillo", "seats": 3, "contract": {"trump": "oros"}, "cards": "1e 1e"}, "DUPLICATE_CARD", "cards"),
    ("trick: 8 of the 48-card deck", "ResolveTrick",
     {"game": "tresillo", "seats": 3, "contract": {"trump": "oros"}, "cards": "8o 1e"}, "UNKNOWN_CARD", "cards"),
    ("trick: four cards at three seats", "ResolveTrick",
     {"game": "tresillo", "seats": 3, "contract": {"trump": "oros"}, "cards": "1e 2e 3e 4e"}, "WRONG_HAND_SIZE", "cards"),
    ("deal: five seats", "Deal", {"game": "tresillo", "seats": 5, "dealer": 0, "seed": "x"}, "INVALID_SEATS", "seats"),
]


@pytest.mark.parametrize(("case", "rpc", "request_json", "code", "field"), BAD_CASES, ids=[c[0] for c in BAD_CASES])
def test_bad_tresillo_input(case, rpc, request_json, code, field, stub, http, rest_url) -> None:
    error = engine_error(rpc, request_json)  # the engine itself rejects it the same way
    assert (error.code, error.field) == (code, field)
    assert_same_error(stub, http, rest_url, rpc, request_json, code, field)


def test_bad_tresillo_input_leaves_the_servers_serving(channel, http, rest_url) -> None:
    assert_healthy(channel, http, rest_url)


def test_the_base_record_of_the_bad_cases_is_good(stub, http, rest_url) -> None:
    for seats in (3, 4):
        record = _base(seats)
        result = call_both(stub, http, rest_url, "ValidateHand", {"record": record})
        assert result == api.validate(record)
        assert result["valid"] is True and result["finished"] is False


# REST-only (a gRPC request cannot carry them): JSON of the wrong type in a Tresillo table. The
# field is the one the engine names for the same mistake, where protobuf's parser lets the REST
# codec name it as precisely (it does not say which list element held a wrong type).
TYPE_CASES = [
    ("cartulina a string", {"plate": 30, "plateHolds": "primera", "cartulina": "x"}, "table.cartulina", True),
    ("plate a word", {"plate": "ten", "plateHolds": "none"}, "table.plate", True),
    ("plateHolds a number", {"plate": 30, "plateHolds": 3}, "table.plateHolds", True),
    ("cartulina seat a word", {"plate": 30, "plateHolds": "primera", "cartulina": [{"seat": "x", "amount": 25}]},
     "table.cartulina[0].seat", False),
    ("cartulina seat a fraction", {"plate": 30, "plateHolds": "primera",
                                   "cartulina": [{"seat": 1, "amount": 25}, {"seat": 1.5, "amount": 25}]},
     "table.cartulina[1].seat", True),
]


@pytest.mark.parametrize(("case", "table", "field", "as_engine"), TYPE_CASES, ids=[c[0] for c in TYPE_CASES])
def test_wrong_types_over_rest(case, table, field, as_engine, channel, http, rest_url) -> None:
    record = dict(_base(), table=table)
    failure = rest_failure(http.post(rest_url + "/v1/hands:validate", json=record, timeout=30))
    assert (failure.code, failure.field, failure.status) == ("INVALID_FIELD", field, 400)
    assert field in failure.message
    if as_engine:
        with pytest.raises(api.InvalidInput) as raised:
            api.validate(record)
        assert (raised.value.code, raised.value.field) == ("INVALID_FIELD", field)
    assert_healthy(channel, http, rest_url)


def test_resolve_trick(stub, http, rest_url) -> None:
    request = {"game": "tresillo", "seats": 3, "leader": 0, "contract": {"trump": "bastos"}, "cards": "12e 1e 2e"}
    answer = call_both(stub, http, rest_url, "ResolveTrick", request)
    assert answer == api.resolve_trick(request)
    assert (answer["winnerIndex"], answer["winner"], answer["card"], answer["complete"]) == (1, 1, "1e", True)
    # The basto is a trump on a bastos lead under oros; the mala of oros beats it; seat 2 leads.
    # At four seats the alcalde plays no card: dealer 3, leader 2 -> seats 2, 0, 1; three cards make the trick.
    request = {"game": "tresillo", "seats": 4, "dealer": 3, "leader": 2, "contract": {"trump": "oros"}, "cards": "12b 1b 7o"}
    answer = call_both(stub, http, rest_url, "ResolveTrick", request)
    assert (answer["winnerIndex"], answer["winner"], answer["card"], answer["complete"]) == (2, 1, "7o", True)
    # Red plain suits run backwards: the 2 beats the 6; a trick so far at seat 0 is printed.
    request = {"game": "tresillo", "seats": 3, "leader": 0, "contract": {"trump": "espadas"}, "cards": "6c 2c"}
    answer = call_both(stub, http, rest_url, "ResolveTrick", request)
    assert (answer["winnerIndex"], answer["winner"]) == (1, 1)
    request = {"game": "tresillo", "seats": 3, "leader": 1, "contract": {"trump": "espadas"}, "cards": "2c 6c"}
    answer = call_both(stub, http, rest_url, "ResolveTrick", request)
    assert (answer["winnerIndex"], answer["winner"]) == (0, 1)


def test_a37_surrendered_vuelta_rounding_option(stub, http, rest_url) -> None:
    """A37 / 8.7 over gRPC and REST: a vuelta turned 4b (the favour suit) surrendered at once, under
    ``favorRounding: roundedDouble``: 5 to each other player by default, 10 with
    ``surrenderedVueltaRounding: doubleOfRounded``; the puesta 45 either way. SettleHand agrees."""
    record = {"game": "tresillo", "seats": 4, "dealer": 0,
              "deal": {"hands": ["", "1e 7o 1b 1o 12o 11o 3c 4e 5b", "2o 3o 4o 12c 11c 10c 12e 11e 12b", "5o 6o 1c 2c 10e 7e 2b 3b 11b"],
                       "stock": "4b 10o 4c 5c 6c 7c 2e 3e 5e 6e 6b 7b 10b"},
              "actions": ["1 juego", "2 paso", "3 paso", "1 vuelta", "1 descarte 5b", "2 contra", "2 descarte", "3 descarte", "1 rindo"]}
    summary = {"jugador": 1, "lance": "vuelta", "trump": "bastos", "solera": True, "tricks": [], "surrender": "accepted"}
    for value, each in (("asFavorRounding", 5), ("doubleOfRounded", 10)):
        rules = {"favorRounding": "roundedDouble", "surrenderedVueltaRounding": value}
        result = call_both(stub, http, rest_url, "ValidateHand", {"record": {**record, "rules": rules}})
        assert result["outcome"] == "rendida" and result["net"] == [-5 + each, -3 * each - 45, each, each]
        answer = call_both(stub, http, rest_url, "SettleHand",
                           {"game": "tresillo", "seats": 4, "dealer": 0, "rules": rules, "tresillo": summary})
        assert (answer["net"], answer["payments"]) == (result["net"], result["payments"])
    bad = {**record, "rules": {"surrenderedVueltaRounding": 10}}
    assert_same_error(stub, http, rest_url, "ValidateHand", {"record": bad}, "INVALID_OPTION_VALUE", "rules.surrenderedVueltaRounding")


# ---- 5. DescribeRules ------------------------------------------------------------------------------

APPENDIX_A = {
    "favorSuit": "bastos",
    "vueltaSoleraAllowed": True,
    "soleraSurrender": "asVuelta",
    "revealDiscardCount": True,
    "vueltaFavor": True,
    "vueltaTurnedCardDiscardable": False,
    "entradaMinDiscard": 0,
    "auctionPriority": "manoOnly",
    "espadaForzada": "off",
    "contraOrder": "rightChooses",
    "revealRemainder": False,
    "matadorForcing": "handMano",
    "multiMatadorRenege": True,
    "surrenderOnlyOnOwnTurn": False,
    "defenceOrder": "afterJugador",
    "defenderTakesPlate": False,
    "defenderCodilloAlsoPuesta": False,
    "bolaFailure": "payBola",
    "primerasWithBola": True,
    "primerasContraRule": "narrow",
    "contraestucheMode": "symmetric",
    "estucheCap": 5,
    "favorRounding": "doubleOfRounded",
    "soloCodilloNoPuesta": "reservedOnly",
    "soloCodilloPaysCond": True,
    "enchilada": 0,
    "enchiladaPayer": "dealer",
    "gemelasOnCartulina": "separate",
    "stopWhenDecided": True,
    "surrenderedVueltaRounding": "asFavorRounding",  # (A37: not in Appendix A; docs/rules/tresillo.md)
}


def test_describe_rules(stub, http, rest_url) -> None:
    answer = call_both(stub, http, rest_url, "DescribeRules", {"game": "tresillo"})
    assert answer == api.describe_rules("tresillo")
    assert answer["game"] == "tresillo" and answer["seats"] == [3, 4]
    assert len(APPENDIX_A) == 30
    assert {o["name"]: o["default"] for o in answer["options"]} == APPENDIX_A
    assert [o["name"] for o in answer["options"]] == list(APPENDIX_A)
    for option in answer["options"]:
        assert option["default"] in option["choices"], option["name"]
        # 0 stays an int (never 0.0: google.protobuf.Value holds doubles), false a bool.
        assert type(option["default"]) is type(APPENDIX_A[option["name"]]), option["name"]
        assert all(type(c) is type(option["default"]) for c in option["choices"]), option["name"]
        assert option["rule"] and option["doc"]
    # Every choice of every option is accepted by ValidateHand, on both transports.
    record = _base()
    for option in answer["options"]:
        for choice in option["choices"]:
            rules = {option["name"]: choice}
            result = call_rest(http, rest_url, "ValidateHand", {"record": dict(record, rules=rules)})
            assert result["valid"] is True, rules
