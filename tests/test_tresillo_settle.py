"""Tresillo's accounting (engine/tresillo_settle.py): the spec's worked examples TR-7..TR-13 and
TR-15, the accounting decisions of section 9 with their defaults and options, the sample records'
net and table, SettleHand's input checks, and random hands that must conserve money."""

from __future__ import annotations

import dataclasses
import json
import random
from typing import Any

import pytest
from examples_support import examples_dir

from engine import api
from engine.cards import DECK_40, Card, Suit
from engine.errors import InvalidInput
from engine.tresillo import Options
from engine.tresillo_options import solera_unsurrenderable
from engine.tresillo_settle import (
    MATADORES,
    Hand,
    Table,
    classify,
    classify_defended,
    decided,
    estuches,
    mala,
    read_table,
    settle,
    settle_summary,
    trump_order,
)

DEFAULT = Options()
# Holds the espada only: a partial holding, no estuches and no contraestuche under any trump.
PLAIN = "1e 3o 4o 5o 6o 3c 4c 5c 6c"


def cards(text: str) -> tuple[Card, ...]:
    return DECK_40.parse_cards(text, "test")


def hand(*, seats: int = 4, dealer: int = 0, jugador: int = 1, lance: str = "entrada", trump: str = "oros",
         held: str = PLAIN, tricks: list[int] | None = None, **kw: Any) -> Hand:
    return Hand(seats=seats, dealer=dealer, jugador=jugador, lance=lance, trump=Suit.from_word(trump),
                jugador_cards=cards(held), trick_winners=tuple(tricks or ()), **kw)


def table(plate: int = 0, holds: str = "none", cartulina: tuple[tuple[int, ...], ...] = ()) -> Table:
    return Table(plate, holds, cartulina)


def run(t: Table, h: Hand, options: Options = DEFAULT) -> dict[str, Any]:
    out = settle(options, t, h)
    check_money(t, out)
    return out


def check_money(before: Table, out: dict[str, Any]) -> None:
    """sum(net) + plate change == 0; every payment a positive multiple of 5; net = the payments."""
    assert sum(out["net"]) + out["table"]["plate"] - before.plate == 0
    net = [0] * len(out["net"])
    plate = before.plate
    for p in out["payments"]:
        assert p["amount"] > 0 and p["amount"] % 5 == 0, p
        assert p["payer"] != p["payee"]
        assert isinstance(p["reason"], str) and p["reason"]
        for party, sign in ((p["payer"], -1), (p["payee"], 1)):
            if party == "plate":
                plate += sign * p["amount"]
            else:
                net[int(party.split()[1])] += sign * p["amount"]
    assert net == out["net"]
    assert plate == out["table"]["plate"]


def after(out: dict[str, Any]) -> Table:
    return read_table(out["table"], len(out["net"]))


# ---- rank tables --------------------------------------------------------------------------------

def test_rank_tables_spec_1_3() -> None:
    assert [str(c) for c in trump_order(Suit.OROS)] == "1e 7o 1b 1o 12o 11o 10o 2o 3o 4o 5o 6o".split()
    assert [str(c) for c in trump_order(Suit.BASTOS)] == "1e 2b 1b 12b 11b 10b 7b 6b 5b 4b 3b".split()
    assert str(mala(Suit.COPAS)) == "7c" and str(mala(Suit.ESPADAS)) == "2e"
    assert [str(c) for c in MATADORES[Suit.ESPADAS]] == ["1e", "2e", "1b"]
    for suit in Suit:
        assert len(trump_order(suit)) == (12 if suit in (Suit.OROS, Suit.COPAS) else 11)


# ---- TR-7, TR-8 ---------------------------------------------------------------------------------

def test_tr7_outcome_classification() -> None:
    table7 = {(5, 3, 1): ("sacada", None), (4, 3, 2): ("sacada", None), (4, 4, 1): ("puesta", None),
              (4, 5, 0): ("codillo", 0), (3, 3, 3): ("puesta", None), (3, 4, 2): ("codillo", 0),
              (2, 4, 3): ("codillo", 0), (1, 4, 4): ("puestaReal", None), (1, 5, 3): ("codillo", 0),
              (0, 5, 4): ("codillo", 0)}
    for (j, a, b), expected in table7.items():
        assert classify(j, a, b) == expected
        kind, giver = expected
        assert classify(j, b, a) == (kind, None if giver is None else 1)


def test_7_4_defended_classes_and_edge() -> None:
    assert classify_defended(5, 2, 2) == "dWin"
    assert classify_defended(4, 4, 1) == "dPuesta"
    assert classify_defended(2, 4, 3) == "dCodilloR"
    assert classify_defended(2, 2, 5) == "dCodilloP"
    assert classify_defended(1, 4, 4) == "dCodilloR"  # A16: r == p > d
    assert classify_defended(2, 3, 4) == "dCodilloP"  # p > r > d


def test_7_3_decided() -> None:
    assert decided(5, 0, 0, 4)  # a sure win
    assert not decided(4, 4, 0, 1)  # the last trick decides win or puesta
    assert decided(2, 2, 4, 1)  # full-36: codillo to the one with 4 whatever happens
    assert decided(0, 5, 0, 4)  # five tricks to one contra player: codillo to him whatever follows
    assert not decided(0, 4, 1, 4)  # the Jugador may still make 4-4-1
    assert not decided(2, 3, 0, 4)  # codillo to one or the other, or a puesta
    assert decided(3, 3, 3, 0)
    assert decided(2, 2, 5, 0, defended=True)
    assert not decided(4, 4, 0, 1, defended=True)


def test_tr8_estuches() -> None:
    oros = Suit.OROS
    assert estuches(cards("1e 7o 1b 1o 12o 3c 4c 5c 6c"), oros, False, DEFAULT) == (5, 0)
    eight = cards("1e 7o 1b 1o 12o 11o 10o 2o 3c")
    assert estuches(eight, oros, False, DEFAULT) == (5, 0)
    assert estuches(eight, oros, True, DEFAULT) == (8, 0)
    bastos = Suit.BASTOS
    assert estuches(cards("12b 3o 4o 5o 6o 3c 4c 5c 6c"), bastos, False, DEFAULT) == (0, 3)
    assert estuches(cards("11b 3o 4o 5o 6o 3c 4c 5c 6c"), bastos, False, DEFAULT) == (0, 4)
    assert estuches(cards("1e 1b 12o 4o 5o 6o 4c 5c 6c"), oros, False, DEFAULT) == (0, 0)
    # the estuche menor (mala, basto, punto) pays nothing
    assert estuches(cards("7o 1b 1o 12o 3c 4c 5c 6c 2e"), oros, False, DEFAULT) == (0, 0)


def test_a23_contraestuche_mode_and_cap() -> None:
    nothing = cards("3o 4o 5o 6o 3c 4c 5c 6c 3e")  # no trumps after the basto in bastos: runs to the end
    assert estuches(nothing, Suit.BASTOS, False, DEFAULT) == (0, 5)
    assert estuches(nothing, Suit.BASTOS, True, DEFAULT) == (0, 11)
    flat = Options(contraestuche_mode="flat")
    assert estuches(nothing, Suit.BASTOS, False, flat) == (0, 3)
    assert estuches(cards("11b 3o 4o 5o 6o 3c 4c 5c 6c"), Suit.BASTOS, False, flat) == (0, 3)
    capped9 = Options(estuche_cap=9)
    assert estuches(nothing, Suit.BASTOS, False, capped9) == (0, 9)
    eight = cards("1e 7o 1b 1o 12o 11o 10o 2o 3c")
    assert estuches(eight, Suit.OROS, False, capped9) == (8, 0)
    uncapped = Options(estuche_cap=12)  # no cap: the whole run, as in a made bola
    assert estuches(nothing, Suit.BASTOS, False, uncapped) == (0, 11)
    no_oros = cards("3c 4c 5c 6c 3e 4e 5e 6e 7c")  # none of oros's twelve trumps
    assert estuches(no_oros, Suit.OROS, False, uncapped) == (0, 12)
    assert estuches(no_oros, Suit.OROS, False, capped9) == (0, 9)
    assert estuches(no_oros, Suit.OROS, False, DEFAULT) == (0, 5)
    assert estuches(eight, Suit.OROS, False, uncapped) == (8, 0)


# ---- TR-9: the nine-deal chain ------------------------------------------------------------------

TR9 = [
    # dealer, hand, balances after, plate after, holds, cartulina
    (0, dict(jugador=1, trump="oros", tricks=[2, 1, 1, 1, 1, 3, 2, 2, 1]),
     (-10, 20, -5, -5), 0, "none", ()),
    (1, dict(jugador=2, trump="copas", tricks=[3, 3, 0, 3, 3, 2, 2, 2, 2]),
     (-5, 20, -45, 0), 30, "primera", ()),
    (2, dict(jugador=0, lance="vuelta", trump="oros", tricks=[1, 1, 0, 3, 1, 0, 3, 1, 0]),
     (-75, 80, -45, 5), 35, "primera", ((0, 55),)),
    (3, dict(jugador=1, trump="bastos", held="12b 3o 4o 5o 6o 3c 4c 5c 6c", tricks=[1, 0, 1, 1, 2, 1, 1, 1, 0]),
     (-150, 180, -65, -20), 55, "reservada", ()),
    (0, dict(jugador=3, trump="espadas", tricks=[1, 2, 1, 2, 1, 2, 3, 3, 3]),
     (-150, 185, -60, -35), 60, "reservada", ((3, 60),)),
    (1, dict(jugador=2, lance="solo", trump="oros", held="1e 7o 1b 12o 3c 4c 5c 6c 2e", tricks=[3, 3, 2, 3, 0, 2, 3, 2, 3]),
     (-125, 205, -200, 55), 65, "reservada", ((3, 60),)),
    (2, dict(jugador=0, trump="copas", tricks=[3, 0, 0, 0, 0, 1, 1, 3, 0]),
     (-55, 205, -205, -5), 60, "reservada", ()),
    (3, dict(jugador=1, lance="solo", trump="bastos", held="1e 2b 1b 12b 3o 4o 5o 6o 3c", tricks=[1, 1, 1, 1, 1]),
     (-105, 420, -255, -60), 0, "none", ()),
    (0, dict(jugador=2, trump="copas", held="1e 7c 1b 1c 12c 11c 3o 4o 5o", tricks=[2] * 9, bola="made"),
     (-225, 305, 95, -175), 0, "none", ()),
]


def test_tr9_nine_deal_chain() -> None:
    t = Table()
    balances = [0, 0, 0, 0]
    for deal, (dealer, spec, expected, plate, holds, cartulina) in enumerate(TR9, start=1):
        out = run(t, hand(dealer=dealer, **spec))  # type: ignore[arg-type]
        balances = [b + n for b, n in zip(balances, out["net"], strict=True)]
        assert tuple(balances) == expected, f"deal {deal}"
        assert out["table"] == Table(plate, holds, cartulina).to_json(), f"deal {deal}"
        assert sum(balances) + out["table"]["plate"] == 0
        t = after(out)


def test_tr9_outcomes_and_condiciones() -> None:
    t = Table()
    seen = []
    for dealer, spec, *_ in TR9:
        out = run(t, hand(dealer=dealer, **spec))  # type: ignore[arg-type]
        seen.append((out["outcome"], out.get("codilloTo"), out["favor"], out["primerasContra"]))
        t = after(out)
    assert seen == [("sacada", None, False, False), ("puesta", None, False, True), ("codillo", 1, False, False),
                    ("sacada", None, True, False), ("puesta", None, False, True), ("codillo", 3, False, False),
                    ("sacada", None, False, False), ("primeras", None, True, False), ("bola", None, False, False)]


# ---- TR-10, TR-11, TR-12, TR-13, TR-15 ----------------------------------------------------------

WIN_NO_PRIMERAS = [2, 1, 1, 1, 1, 3, 1, 2, 3]  # 5-2-2 for seat 1 of a 4-seat table dealt by 0
PUESTA_441 = [1, 2, 1, 2, 1, 2, 1, 2, 3]  # seat 1: 4, seat 2: 4, seat 3: 1, no primeras contra


def test_tr10_favour_rounding_and_vuelta_in_the_favour_suit() -> None:
    win = hand(lance="vuelta", trump="bastos", tricks=WIN_NO_PRIMERAS)
    out = run(table(), win)
    assert out["favor"] and out["net"] == [-25, 60 + 5, -20, -20]
    assert out["condiciones"] == [{"item": "vuelta", "tantos": 2}, {"item": "jugar", "tantos": 5}]
    out = run(table(), win, Options(favor_rounding="roundedDouble"))
    assert out["net"] == [-20, 45 + 5, -15, -15]
    lost = hand(lance="vuelta", trump="bastos", tricks=PUESTA_441)
    out = run(table(), lost)
    assert out["outcome"] == "puesta" and out["net"] == [10 - 5, -30 - 45, 10, 10]
    assert out["table"] == {"plate": 50, "plateHolds": "primera", "cartulina": []}
    assert any(p["reason"] == "puesta to the plate: 45 = plate 5 + 40" for p in out["payments"])
    out = run(table(), lost, Options(favor_rounding="roundedDouble"))
    assert out["net"] == [5 - 5, -15 - 45, 5, 5]


@pytest.mark.parametrize(("lance", "trump", "rounding", "each", "reckoning"), [
    ("vuelta", "oros", "doubleOfRounded", 10, "vuelta 2 + jugar 5 = 7, rounded up 10"),
    ("entrada", "oros", "doubleOfRounded", 5, "jugar 5 = 5"),
    ("vuelta", "bastos", "doubleOfRounded", 20, "vuelta 2 + jugar 5 = 7, rounded up 10, x2 a favor = 20"),
    ("vuelta", "bastos", "roundedDouble", 15, "vuelta 2 + jugar 5 = 7 x2 a favor = 14, rounded up 15"),
    ("entrada", "bastos", "doubleOfRounded", 10, "jugar 5 = 5, x2 a favor = 10"),
    ("entrada", "bastos", "roundedDouble", 10, "jugar 5 = 5 x2 a favor = 10"),
])
def test_tr10_a21_each_payment_states_its_rounding(lance: str, trump: str, rounding: str, each: int, reckoning: str) -> None:
    """TR-10 / A21 through SettleHand: the condiciones each other player pays on a win, and the
    reason that states how the figure was reached (8.1 rounding up to fives; a favor, the double
    of the rounded amount or the rounding of the double), for a plain and a favour vuelta and
    entrada won 5-2-2 with nothing else to count."""
    out = api.settle_hand({"game": "tresillo", "seats": 4, "dealer": 0, "rules": {"favorRounding": rounding},
                           "tresillo": {"jugador": 1, "lance": lance, "trump": trump, "jugadorHand": PLAIN,
                                        "tricks": WIN_NO_PRIMERAS}})
    assert out["favor"] is (trump == "bastos")
    reason = f"condiciones of the {lance} won: {reckoning}"
    assert [p for p in out["payments"] if p["payee"] == "seat 1" and p["payer"] != "plate"] == [
        {"payer": f"seat {s}", "payee": "seat 1", "amount": each, "reason": reason} for s in (0, 2, 3)]
    assert out["net"] == [-5 - each, 3 * each + 5, -each, -each]


def defended(d: int, r: int, p: int) -> list[int]:
    """Tricks for rendido 1, defender 2, mano pobre 3: the counts (d, r, p)."""
    return [2] * d + [1] * r + [3] * p


def test_tr11_entrada_rendida_all_outcomes() -> None:
    out = run(table(), hand(surrender="accepted", tricks=[1, 2]))
    assert out["outcome"] == "rendida" and out["net"] == [-5, -25, 0, 0]
    assert out["table"] == {"plate": 30, "plateHolds": "primera", "cartulina": []}
    cases = {
        (5, 2, 2): ("dWin", [-5, -25, 25, 0], 5, "none"),
        (4, 4, 1): ("dPuesta", [-5, -25, -25, 0], 55, "primera"),
        (2, 4, 3): ("dCodilloR", [-5, 0, -25, 0], 30, "primera"),
        (2, 2, 5): ("dCodilloP", [-5, -25, -25, 25], 30, "primera"),
    }
    for (d, r, p), (outcome, net, plate, holds) in cases.items():
        out = run(table(), hand(surrender="defended", defender=2, tricks=defended(d, r, p)))
        assert (out["outcome"], out["net"], out["table"]["plate"], out["table"]["plateHolds"]) == (outcome, net, plate, holds)
        assert out["condiciones"] == [] and out["estuches"] == 0
        assert ("codilloTo" in out) == (outcome == "dCodilloP")
    assert run(table(), hand(surrender="defended", defender=2, tricks=defended(2, 2, 5)))["codilloTo"] == 3


def test_tr12_vuelta_rendida() -> None:
    h = hand(lance="vuelta", trump="oros", held="1e 7o 1b 1o 12o 3c 4c 5c 6c", surrender="accepted", tricks=[1, 2])
    out = run(table(30, "primera"), h)
    assert out["outcome"] == "rendida" and out["estuches"] == 0
    assert out["net"] == [5 - 5, -15, 5, 5]
    assert out["table"] == {"plate": 35, "plateHolds": "primera", "cartulina": [{"seat": 1, "amount": 55}]}
    assert out["condiciones"] == [{"item": "vuelta", "tantos": 2}]


def test_tr13_failed_bola() -> None:
    h = hand(trump="oros", held="1e 7o 1b 12o 3c 4c 5c 6c 2e", tricks=[1] * 6 + [2], bola="failed")
    out = run(table(), h)
    assert out["outcome"] == "bolaFailed" and out["primeras"] and out["estuches"] == 3
    assert out["net"] == [90 - 5, -265, 90, 90]
    assert out["table"] == {"plate": 0, "plateHolds": "none", "cartulina": []}
    out = run(table(), h, Options(bola_failure="none"))
    assert out["net"] == [-10 - 5, 35, -10, -10]


def test_tr13_failed_bola_through_settle_hand() -> None:
    """TR-13 / A18 through SettleHand: roundUp5(5 + 3 + 1) = 10 from each, the plate, then 100 to
    each other player, each payment of the bola saying so."""
    out = api.settle_hand({"game": "tresillo", "seats": 4, "dealer": 0, "tresillo": {
        "jugador": 1, "lance": "entrada", "trump": "oros", "jugadorHand": "1e 7o 1b 12o 3c 4c 5c 6c 2e",
        "tricks": [1] * 6 + [2], "bola": "failed"}})
    assert out["outcome"] == "bolaFailed" and out["net"] == [85, -265, 90, 90]
    assert [(p["payee"], p["amount"], p["reason"]) for p in out["payments"] if p["payer"] == "seat 1"] == [
        (f"seat {s}", 100, "failed bola: 100 to each other player") for s in (0, 2, 3)]


def test_tr15_three_seats() -> None:
    h = hand(seats=3, dealer=0, jugador=1, lance="solo", trump="oros", tricks=[1, 2, 1, 1, 1, 0, 0, 1, 2])
    out = run(table(), h)
    assert out["outcome"] == "sacada" and out["net"] == [-5 - 25, 55, -25]


# ---- accounting decisions -----------------------------------------------------------------------

def test_a8_vuelta_favor_option() -> None:
    win = hand(lance="vuelta", trump="bastos", tricks=WIN_NO_PRIMERAS)
    out = run(table(), win, Options(vuelta_favor=False))
    assert not out["favor"] and out["net"] == [-15, 35, -10, -10]
    # an entrada in the favour suit is always a favor; no favour suit at all: never
    assert run(table(), hand(trump="bastos", tricks=WIN_NO_PRIMERAS), Options(vuelta_favor=False))["favor"]
    assert not run(table(), win, Options(favor_suit="none"))["favor"]


def test_a9_vuelta_solera() -> None:
    solera = hand(lance="vuelta", solera=True, trump="oros", tricks=WIN_NO_PRIMERAS)
    out = run(table(), solera)
    assert out["condiciones"][0] == {"item": "solo", "tantos": 20} and out["net"][1] == 75 + 5
    out = run(table(), solera, Options(vuelta_solera_allowed=False))
    assert out["condiciones"][0] == {"item": "vuelta", "tantos": 2} and out["net"][1] == 30 + 5
    surrendered = solera.replace(surrender="accepted", trick_winners=())
    assert run(table(), surrendered)["net"] == [-5 + 5, -15 - 25, 5, 5]  # asVuelta: the vuelta's 5
    assert run(table(), surrendered, Options(solera_surrender="asSolo"))["net"] == [-5 + 20, -60 - 25, 20, 20]
    in_favour = surrendered.replace(trump=Suit.BASTOS)
    assert run(table(), in_favour)["net"] == [-5 + 10, -30 - 45, 10, 10]
    # "considered a solo": lost by codillo in the reservada state, no puesta (A24)
    lost = solera.replace(trick_winners=(2, 2, 2, 2, 2))
    out = run(table(30, "reservada"), lost)
    assert out["outcome"] == "codillo" and out["table"]["cartulina"] == [] and out["net"][1] == -60 - 35
    out = run(table(30, "reservada"), lost, Options(vuelta_solera_allowed=False))
    assert out["table"]["cartulina"] == [{"seat": 1, "amount": 35}] and out["net"][1] == -15 - 35


def test_a9_vuelta_solera_won_and_surrendered_through_settle_hand() -> None:
    """A9 through SettleHand: a vuelta solera won counts the solo's 20 (+ jugar 5 = 25 from each
    other player), surrendered it pays the vuelta's 2, rounded up 5 (soleraSurrender asVuelta);
    the payments name it a vuelta solera."""
    summary = {"jugador": 1, "lance": "vuelta", "trump": "oros", "solera": True, "jugadorHand": PLAIN}
    out = api.settle_hand({"game": "tresillo", "seats": 4, "dealer": 0, "tresillo": {**summary, "tricks": WIN_NO_PRIMERAS}})
    assert out["net"] == [-30, 80, -25, -25] and out["condiciones"] == [{"item": "solo", "tantos": 20}, {"item": "jugar", "tantos": 5}]
    assert {p["reason"] for p in out["payments"] if p["payee"] == "seat 1" and p["payer"] != "plate"} == {
        "condiciones of the vuelta solera won: solo 20 + jugar 5 = 25"}
    out = api.settle_hand({"game": "tresillo", "seats": 4, "dealer": 0, "tresillo": {**summary, "surrender": "accepted"}})
    assert out["outcome"] == "rendida" and out["net"] == [0, -40, 5, 5]  # 5 to each, the puesta 5 + 20 into the plate
    assert {p["reason"] for p in out["payments"] if p["payer"] == "seat 1" and p["payee"] != "plate"} == {
        "condiciones of the vuelta solera surrendered: vuelta 2 = 2, rounded up 5"}


def test_a33_settle_hand_takes_tricks_played_on_past_a_decided_result() -> None:
    """A33 / docs/rules/tresillo.md (SettleHand): under ``stopWhenDecided`` (the default) the hand
    5-2-2 is decided at trick 7, the Jugador's fifth; SettleHand takes the tricks to that point or
    played on to the ninth, as the spec's examples give them, with the same money either way, but
    not tricks that stop before the result is certain."""
    summary = {"jugador": 1, "lance": "entrada", "trump": "oros", "jugadorHand": PLAIN}

    def settle(tricks: list[int], **rules: bool) -> dict[str, Any]:
        return api.settle_hand({"game": "tresillo", "seats": 4, "dealer": 0, "rules": rules, "tresillo": {**summary, "tricks": tricks}})

    decided = settle(WIN_NO_PRIMERAS[:7])
    assert decided["outcome"] == "sacada"
    for rules in ({}, {"stopWhenDecided": True}, {"stopWhenDecided": False}):
        out = settle(WIN_NO_PRIMERAS, **rules)
        assert (out["outcome"], out["net"], out["payments"]) == (decided["outcome"], decided["net"], decided["payments"]), rules
    with pytest.raises(InvalidInput) as caught:
        settle(WIN_NO_PRIMERAS[:6])
    assert (caught.value.field, caught.value.message) == (
        "tresillo.tricks", "tresillo.tricks: the hand is not over: its result still depends on the tricks to play")


def test_a9_solera_surrender_forbidden_is_rejected() -> None:
    request = summary_request(tresillo={"jugador": 1, "lance": "vuelta", "solera": True, "trump": "oros",
                                        "surrender": "accepted", "tricks": [1]})
    assert settle_summary(DEFAULT, Table(), request)["outcome"] == "rendida"
    with pytest.raises(InvalidInput) as err:
        settle_summary(Options(solera_surrender="forbidden"), Table(), request)
    assert err.value.field == "tresillo.surrender"
    # With the solera off it is a plain vuelta everywhere, surrendered for the vuelta's 5.
    plain = settle_summary(Options(solera_surrender="forbidden", vuelta_solera_allowed=False), Table(), request)
    assert plain["outcome"] == "rendida" and plain["net"] == settle_summary(DEFAULT, Table(), request)["net"]


def test_a9_solera_surrendered_as_solo_pays_and_reports_the_solo_20() -> None:
    """A9 ``soleraSurrender: asSolo``: a vuelta solera rendida pays the solo's 20 to each other
    player (40 a favor), and the hand reports that condición, 20, in its condiciones and in the
    reason of each payment (the rounding up to fives would hide a wrong figure in the amount)."""
    solera = hand(lance="vuelta", solera=True, trump="oros", surrender="accepted")
    out = run(table(), solera, Options(solera_surrender="asSolo"))
    assert out["condiciones"] == [{"item": "solo", "tantos": 20}]
    assert [(p["payee"], p["amount"], p["reason"]) for p in out["payments"] if p["payer"] == "seat 1" and p["payee"] != "plate"] == [
        (f"seat {s}", 20, "condiciones of the vuelta solera surrendered: solo 20 = 20") for s in (0, 2, 3)]
    favour = run(table(), solera.replace(trump=Suit.BASTOS), Options(solera_surrender="asSolo", favor_rounding="roundedDouble"))
    assert favour["condiciones"] == [{"item": "solo", "tantos": 20}] and favour["net"] == [-5 + 40, -120 - 45, 40, 40]


def test_a15_defender_takes_plate() -> None:
    h = hand(surrender="defended", defender=2, tricks=defended(5, 2, 2))
    t = table(30, "primera", ((3, 55), (0, 40)))
    out = run(t, h)
    assert out["net"] == [-5, -55, 55, 0] and out["table"]["plate"] == 35
    out = run(t, h, Options(defender_takes_plate=True))
    assert out["net"] == [-5, -55, 55 + 35, -55]
    assert out["table"] == {"plate": 55, "plateHolds": "reservada", "cartulina": [{"seat": 0, "amount": 40}]}


def test_a15_winning_defender_takes_the_plate_in_his_own_name() -> None:
    """A15 with ``defenderTakesPlate``: the rendido's puesta P = 35 + 20 goes to the defender,
    then the defender (not the Jugador) takes the plate of 35, and the payment says so."""
    out = api.settle_hand({"game": "tresillo", "seats": 4, "dealer": 0, "rules": {"defenderTakesPlate": True},
                           "table": {"plate": 30, "plateHolds": "primera", "cartulina": [{"seat": 3, "amount": 55}]},
                           "tresillo": {"jugador": 1, "lance": "entrada", "trump": "oros", "surrender": "defended",
                                        "defender": 2, "tricks": defended(5, 2, 2)}})
    assert out["outcome"] == "dWin"
    assert out["payments"][1:3] == [
        {"payer": "seat 1", "payee": "seat 2", "amount": 55, "reason": "the rendido's puesta to the defender who won: 55 = plate 35 + 20"},
        {"payer": "plate", "payee": "seat 2", "amount": 35, "reason": "the defender takes the plate: 35"}]


def test_a17_defender_codillo_also_puesta() -> None:
    h = hand(surrender="defended", defender=2, tricks=defended(2, 2, 5))
    out = run(table(), h, Options(defender_codillo_also_puesta=True))
    assert out["net"] == [-5, -25, -50, 25] and out["table"]["plate"] == 55
    out = run(table(30, "primera"), h, Options(defender_codillo_also_puesta=True))
    assert out["table"]["cartulina"] == [{"seat": 1, "amount": 55}, {"seat": 2, "amount": 55}]
    assert out["net"] == [-5, 0, -55, 55]


def test_a18_failed_bola_in_favour() -> None:
    h = hand(trump="bastos", tricks=[1] * 5 + [3], bola="failed")
    out = run(table(), h)
    # win with primeras: 5 + 1 = 6 -> 10, x2 = 20 each; then 200 to each
    assert out["net"] == [-20 + 200 - 5, 60 + 5 - 600, 180, 180]


def test_a19_primeras_with_bola() -> None:
    h = hand(trump="oros", tricks=[1] * 9, bola="made")
    out = run(table(), h)
    assert out["condiciones"] == [{"item": "primeras", "tantos": 1}, {"item": "bola", "tantos": 100},
                                  {"item": "jugar", "tantos": 5}]
    assert out["net"][1] == 3 * 110 + 5
    out = run(table(), h, Options(primeras_with_bola=False))
    assert out["net"][1] == 3 * 105 + 5 and out["primeras"]


def test_a20_primeras_contra_narrow_and_general() -> None:
    # a puesta 3-3-3 in which the contra took 1-5, the Jugador 6, a contra 7, the Jugador 8-9
    mixed = [2, 3, 2, 3, 2, 1, 3, 1, 1]
    assert classify(3, 3, 3) == ("puesta", None)
    narrow = run(table(), hand(tricks=mixed))
    assert narrow["outcome"] == "puesta" and not narrow["primerasContra"] and narrow["net"][1] == -25
    general = run(table(), hand(tricks=mixed), Options(primeras_contra_rule="general"))
    assert general["primerasContra"] and general["net"][1] == -15 - 25
    # the seed's own patterns count under both rules; codillo never carries primeras
    for tricks in ([2, 2, 3, 2, 2, 1, 1, 1, 1], [2, 3, 2, 3, 2, 3, 1, 1, 1], [2, 3, 2, 2, 3, 2, 3, 3, 1]):
        for rule in ("narrow", "general"):
            assert run(table(), hand(tricks=tricks), Options(primeras_contra_rule=rule))["primerasContra"]
    codillo = [2, 2, 2, 2, 2, 1, 1, 1, 1]
    assert classify(4, 5, 0)[0] == "codillo"
    assert not run(table(), hand(tricks=codillo), Options(primeras_contra_rule="general"))["primerasContra"]


@pytest.mark.parametrize("tricks", [[2, 3, 2, 3, 1, 2, 3, 1, 1], [1, 2, 3, 2, 3, 2, 3, 1, 1]], ids=["fifth", "first"])
def test_a20_primeras_contra_needs_the_contra_to_win_all_of_the_first_five(tricks: list[int]) -> None:
    """7.2 / A20: a puesta 3-3-3 in which the Jugador took one of the first five tricks (the 5th:
    the contra took 1-4 and 6-7; or the 1st: the contra took 2-7, five in a row but not tricks 1-5)
    and tricks 8-9: no primeras against him under either rule, so he pays only the puesta, 5 + 20."""
    for rule in ("narrow", "general"):
        out = run(table(), hand(tricks=tricks), Options(primeras_contra_rule=rule))
        assert out["outcome"] == "puesta" and not out["primerasContra"], rule
        assert out["condiciones"] == [] and out["net"] == [-5, -25, 0, 0], rule


def test_a20_narrow_primeras_contra_of_a_puesta_real_needs_every_trick_after_the_run() -> None:
    """7.2 / A20 in a puesta real 1-4-4: the contra won tricks 1-6, the Jugador the 7th and the
    contra the last two. ``narrow`` counts primeras against him only when the Jugador won every
    trick after the contra's opening run, so not here (5 + 20); ``general`` counts them (1,
    rounded 5 to each of the three others). With the Jugador's one trick the 9th, both count."""
    seventh = [2, 3, 2, 3, 2, 3, 1, 2, 3]
    assert classify(1, 4, 4) == ("puestaReal", None)
    out = run(table(), hand(tricks=seventh))
    assert out["outcome"] == "puestaReal" and not out["primerasContra"]
    assert out["condiciones"] == [] and out["net"] == [-5, -25, 0, 0]
    out = run(table(), hand(tricks=seventh), Options(primeras_contra_rule="general"))
    assert out["primerasContra"] and out["condiciones"] == [{"item": "primeras", "tantos": 1}]
    assert out["net"] == [-5 + 5, -15 - 25, 5, 5]
    ninth = [2, 3, 2, 3, 2, 3, 2, 3, 1]
    for rule in ("narrow", "general"):
        out = run(table(), hand(tricks=ninth), Options(primeras_contra_rule=rule))
        assert out["outcome"] == "puestaReal" and out["primerasContra"], rule
        assert out["net"] == [-5 + 5, -15 - 25, 5, 5], rule


def test_a21_favor_rounding_on_losses_and_bola_failure() -> None:
    lost = hand(lance="vuelta", trump="bastos", held="12b 3o 4o 5o 6o 3c 4c 5c 6c", tricks=PUESTA_441)  # 2 + 3 = 5
    assert run(table(), lost)["net"][0] == 10 - 5
    assert run(table(), lost, Options(favor_rounding="roundedDouble"))["net"][0] == 10 - 5
    lost6 = hand(lance="vuelta", trump="bastos", held="11b 3o 4o 5o 6o 3c 4c 5c 6c", tricks=PUESTA_441)  # 2 + 4 = 6
    assert run(table(), lost6)["net"][0] == 20 - 5
    assert run(table(), lost6, Options(favor_rounding="roundedDouble"))["net"][0] == 15 - 5


@pytest.mark.parametrize(("rules", "table_", "note"), [
    ({}, {"plate": 30, "plateHolds": "reservada"},
     "35 = the plate (it holds a reserved puesta); a solo lost by codillo while the plate holds a reserved puesta makes no puesta "
     "(it still pays its condiciones)"),
    ({"soloCodilloPaysCond": False}, {"plate": 30, "plateHolds": "reservada"},
     "35 = the plate (it holds a reserved puesta); a solo lost by codillo while the plate holds a reserved puesta pays only "
     "the codillo (soloCodilloPaysCond false)"),
    ({"soloCodilloNoPuesta": "always"}, None,
     "25 = plate 5 + 20; a solo lost by codillo makes no puesta (soloCodilloNoPuesta always; it still pays its condiciones)"),
    ({"soloCodilloNoPuesta": "always", "soloCodilloPaysCond": False}, None,
     "25 = plate 5 + 20; a solo lost by codillo pays only the codillo (soloCodilloNoPuesta always, soloCodilloPaysCond false)"),
    ({"soloCodilloNoPuesta": "off"}, {"plate": 30, "plateHolds": "reservada"}, "35 = the plate (it holds a reserved puesta)"),
])
def test_a24_the_codillo_of_a_solo_says_what_it_pays_besides(rules: dict[str, Any], table_: dict[str, Any] | None,
                                                              note: str) -> None:
    """A24 through SettleHand: the codillo of a solo lost by codillo that makes no puesta says
    when it makes none (with a reserved puesta in the plate, or always under
    ``soloCodilloNoPuesta: always``) and whether the condiciones were still paid
    (``soloCodilloPaysCond``, on by default): "pays only the codillo" only when they were not."""
    request = summary_request(tresillo={"lance": "solo", "tricks": [2, 2, 2, 2, 2]}, rules=rules)
    if table_ is not None:
        request["table"] = table_
    out = api.settle_hand(request)
    assert [p["reason"] for p in out["payments"] if p["payee"] == "seat 2" and p["payer"] == "seat 1"][-1] == (
        f"codillo to the player with most tricks: {note}")
    paid_cond = any(p["reason"].startswith("condiciones") for p in out["payments"])
    assert paid_cond == rules.get("soloCodilloPaysCond", True)


def test_a24_solo_lost_by_codillo() -> None:
    lost = hand(lance="solo", trump="oros", tricks=[2, 2, 2, 2, 2])  # codillo to seat 2 after five tricks
    for holds, plate in (("none", 0), ("primera", 30), ("reservada", 30)):
        t = table(plate, holds)
        for rule in ("reservedOnly", "always", "off"):
            for pays in (True, False):
                out = run(t, lost, Options(solo_codillo_no_puesta=rule, solo_codillo_pays_cond=pays))
                p = plate + 5 + (0 if holds == "reservada" else 20)
                no_puesta = rule == "always" or (rule == "reservedOnly" and holds == "reservada")
                cond = 0 if (no_puesta and not pays) else 20
                puesta = 0 if no_puesta or holds != "none" else p
                assert out["codilloTo"] == 2
                assert out["net"][1] == -3 * cond - p - puesta, (holds, rule, pays)
                on_cartulina = [] if no_puesta or holds == "none" else [{"seat": 1, "amount": p}]
                assert out["table"]["cartulina"] == on_cartulina
                assert out["condiciones"] == ([{"item": "solo", "tantos": 20}] if cond else [])
    # an entrada lost by codillo always makes its puesta
    out = run(table(30, "reservada"), hand(tricks=[2, 2, 2, 2, 2]), Options(solo_codillo_no_puesta="always"))
    assert out["table"]["cartulina"] == [{"seat": 1, "amount": 35}]


def test_a25_no_jugar_on_a_loss() -> None:
    out = run(table(), hand(tricks=PUESTA_441))
    assert out["condiciones"] == [] and out["net"] == [-5, -25, 0, 0]
    win = run(table(), hand(tricks=WIN_NO_PRIMERAS))
    assert win["condiciones"] == [{"item": "jugar", "tantos": 5}]


def test_a26_puesta_base_includes_every_tanto_in_the_plate() -> None:
    out = run(table(15, "none"), hand(tricks=PUESTA_441))  # three annulled deals' 5s, then this deal's
    assert out["net"][1] == -40 and out["table"]["plate"] == 60
    out = run(table(15, "none"), hand(tricks=PUESTA_441), Options(enchilada=50))
    assert out["net"][0] == -55 and out["net"][1] == 0  # a puesta reserved on the cartulina is not paid yet
    assert out["table"] == {"plate": 70, "plateHolds": "primera", "cartulina": [{"seat": 1, "amount": 90}]}


def test_a28_enchilada() -> None:
    ench = Options(enchilada=25)
    out = run(table(), hand(tricks=WIN_NO_PRIMERAS), ench)
    assert out["net"] == [-5 - 25 - 5, 15 + 30, -5, -5]  # jugar still paid: the enchilada is a primera
    assert any("enchilada" in p["reason"] for p in out["payments"])
    # only when the plate holds no puesta
    out = run(table(30, "primera"), hand(tricks=WIN_NO_PRIMERAS), ench)
    assert out["net"][0] == -5 - 5
    # an annulled hand moves only the dealer's 5
    out = run(table(10, "none"), Hand(seats=4, dealer=2, annulled=True), ench)
    assert out["net"] == [0, 0, -5, 0] and out["table"] == {"plate": 15, "plateHolds": "none", "cartulina": []}


def test_a29_gemelas_on_the_cartulina() -> None:
    h = hand(surrender="defended", defender=2, tricks=defended(4, 4, 1))
    out = run(table(30, "primera"), h)
    assert out["table"]["cartulina"] == [{"seat": 1, "amount": 55}, {"seat": 2, "amount": 55}]
    joint = Options(gemelas_on_cartulina="joint")
    out = run(table(30, "primera"), h, joint)
    assert out["table"]["cartulina"] == [{"seat": 1, "amount": 110, "partner": 2}]
    # the joint entry goes into the plate whole when its turn comes, each owner paying half
    t = after(out)
    assert t.cartulina == ((1, 110, 2),)
    win = run(dataclasses.replace(t, cartulina=((0, 100), *t.cartulina)), hand(dealer=1, jugador=3, tricks=[3] * 5))
    assert win["table"] == {"plate": 110, "plateHolds": "reservada", "cartulina": [{"seat": 0, "amount": 100}]}
    assert win["net"][1] == -5 - 55 - 10 and win["net"][2] == -55 - 10
    # gemelas into an empty plate go together under both options
    assert run(table(), h, joint)["table"] == {"plate": 55, "plateHolds": "primera", "cartulina": []}


def test_a30_cartulina_largest_first_ties_oldest() -> None:
    t = table(40, "primera", ((2, 55), (3, 70), (0, 70)))
    out = run(t, hand(tricks=WIN_NO_PRIMERAS))
    assert out["table"] == {"plate": 70, "plateHolds": "reservada", "cartulina": [{"seat": 2, "amount": 55}, {"seat": 0, "amount": 70}]}
    assert out["net"][3] == -5 - 70
    # the winner may take the plate and at once owe the next puesta himself (seed section 21)
    out = run(table(40, "primera", ((1, 60),)), hand(tricks=WIN_NO_PRIMERAS))
    assert out["net"][1] == 15 + 45 - 60


def test_a36_three_seats() -> None:
    out = run(table(), hand(seats=3, dealer=0, jugador=0, tricks=[1, 2, 0, 0, 0, 0, 1, 2, 0]))
    assert out["net"] == [10 + 5 - 5, -5, -5]  # two others pay; the dealer plays and still puts in 5
    out = run(table(), hand(seats=3, dealer=0, jugador=2, tricks=[1, 1, 1, 1, 1]))
    assert out["codilloTo"] == 1 and out["net"] == [-5, 25, -25 - 25]


def test_a37_vuelta_rendida_in_favour() -> None:
    h = hand(lance="vuelta", trump="bastos", surrender="accepted")
    assert run(table(), h)["net"] == [-5 + 10, -30 - 45, 10, 10]
    assert run(table(), h, Options(vuelta_favor=False))["net"] == [-5 + 5, -15 - 25, 5, 5]
    assert run(table(), h, Options(favor_rounding="roundedDouble"))["net"] == [-5 + 5, -15 - 45, 5, 5]


@pytest.mark.parametrize("rounding", ["asFavorRounding", "doubleOfRounded"])
def test_a37_surrendered_vuelta_rounding_option(rounding: str) -> None:
    """A37 / 8.7 with ``favorRounding: roundedDouble``: the vuelta rendida a favor pays
    roundUp5(2 x 2) = 5 to each other player by default (``asFavorRounding``), or the seed's
    rounded 5 doubled, 10 (``doubleOfRounded``). The puesta (5 + 40) is the same; under the default
    ``favorRounding`` both values pay 10; out of favour both pay 5 (TR-12), and a vuelta won a
    favor (TR-10) is no surrender: 15 each under roundedDouble either way."""
    h = hand(lance="vuelta", trump="bastos", surrender="accepted")
    each = {"asFavorRounding": 5, "doubleOfRounded": 10}[rounding]
    out = run(table(), h, Options(favor_rounding="roundedDouble", surrendered_vuelta_rounding=rounding))
    assert out["net"] == [-5 + each, -3 * each - 45, each, each]
    assert out["table"] == {"plate": 50, "plateHolds": "primera", "cartulina": []}
    assert out["condiciones"] == [{"item": "vuelta", "tantos": 2}]
    assert run(table(), h, Options(surrendered_vuelta_rounding=rounding))["net"] == [-5 + 10, -30 - 45, 10, 10]
    tr12 = hand(lance="vuelta", trump="oros", held="1e 7o 1b 1o 12o 3c 4c 5c 6c", surrender="accepted", tricks=[1, 2])
    both = Options(favor_rounding="roundedDouble", surrendered_vuelta_rounding=rounding)
    assert run(table(30, "primera"), tr12, both)["net"] == [5 - 5, -15, 5, 5]
    won = hand(lance="vuelta", trump="bastos", tricks=WIN_NO_PRIMERAS)
    assert run(table(), won, both)["net"] == [-20, 45 + 5, -15, -15]


def test_annulled_hand_keeps_the_plate_kind_and_cartulina() -> None:
    t = table(60, "reservada", ((3, 60),))
    out = run(t, Hand(seats=4, dealer=1, annulled=True))
    assert out["outcome"] == "annulled" and out["net"] == [0, -5, 0, 0]
    assert out["table"] == {"plate": 65, "plateHolds": "reservada", "cartulina": [{"seat": 3, "amount": 60}]}
    assert out["payments"] == [{"payer": "seat 1", "payee": "plate", "amount": 5, "reason": "the dealer's 5 into the plate"}]


def test_8_7_surrendered_defended_and_annulled_hands_count_no_estuches() -> None:
    """8.7 (no condiciones in a surrender beyond the vuelta's, none in a defended hand), 0 (an
    annulled hand moves only the dealer's 5) and our reading of the reported fields
    (docs/rules/tresillo.md): such a hand reports 0 estuches and 0 contraestuches whatever the
    rendido held, no primeras and no condiciones. The entrada is in bastos, the favour suit: a
    holding of all three matadores, or of none, would count 5 if the hand were played out."""
    def settled(summary: dict[str, Any]) -> dict[str, Any]:
        return api.settle_hand({"game": "tresillo", "seats": 4, "dealer": 0, "tresillo": summary})

    quiet = {"estuches": 0, "contraestuches": 0, "primeras": False, "primerasContra": False, "condiciones": []}
    out = settled({"annulled": True})
    assert {k: out[k] for k in quiet} == quiet and out["outcome"] == "annulled" and out["favor"] is False
    assert out["net"] == [-5, 0, 0, 0]
    entrada = {"jugador": 1, "lance": "entrada", "trump": "bastos"}
    for held in ("1e 2b 1b 12b 11b 10b 7b 3c 4c", "3o 4o 5o 6o 3c 4c 5c 6c 7c"):
        out = settled({**entrada, "jugadorHand": held, "surrender": "accepted"})
        assert {k: out[k] for k in quiet} == quiet and out["outcome"] == "rendida" and out["favor"] is True
        assert out["net"] == [-5, -45, 0, 0]  # the puesta 5 + 40 into the plate, nothing else
        out = settled({**entrada, "jugadorHand": held, "surrender": "defended", "defender": 2, "tricks": defended(2, 2, 5)})
        assert {k: out[k] for k in quiet} == quiet and out["outcome"] == "dCodilloP" and out["favor"] is True
        assert out["net"] == [-5, -45, -45, 45]  # the rendido's puesta; the defender's codillo to the mano pobre
    real = settle(DEFAULT, Table(), hand(trump="bastos", held="1e 2b 1b 12b 11b 10b 7b 3c 4c", tricks=WIN_NO_PRIMERAS))
    assert real["estuches"] == 5  # the same holding played out


def test_result_keys() -> None:
    out = run(table(), hand(tricks=WIN_NO_PRIMERAS))
    assert set(out) == {"net", "payments", "table", "outcome", "favor", "primeras", "primerasContra",
                        "estuches", "contraestuches", "condiciones"}
    out = run(table(), hand(tricks=[2] * 5))
    assert out["codilloTo"] == 2


# ---- the sample records -------------------------------------------------------------------------


def sample(name: str) -> tuple[dict[str, Any], dict[str, Any]]:
    data = json.loads((examples_dir() / name).read_text())
    return data["record"], data["expect"]


def check_sample(name: str, h: Hand) -> dict[str, Any]:
    record, expect = sample(name)
    rules = record.get("rules", {})
    options = Options(favor_suit=rules["favorSuit"]) if "favorSuit" in rules else DEFAULT
    t = read_table(record["table"], record["seats"])
    out = run(t, h, options)
    assert out["net"] == expect["net"]
    assert out["table"] == expect["table"]
    if h.trick_winners:
        assert list(h.trick_winners) == expect["tricks"]
    return out


def test_sample_full_01_annulled() -> None:
    out = check_sample("tresillo-full-01-random.json", Hand(seats=3, dealer=1, annulled=True))
    assert out["outcome"] == "annulled"


def test_sample_full_17_solo_primeras() -> None:
    h = hand(seats=3, dealer=0, jugador=1, lance="solo", trump="espadas", held="5o 5c 11c 1e 2e 10e 11e 12e 1b",
             tricks=[1, 1, 1, 1, 1])
    out = check_sample("tresillo-full-17-strong.json", h)
    assert out["outcome"] == "primeras" and out["estuches"] == 5


def test_sample_full_25_defended_codillo_to_the_mano_pobre() -> None:
    h = hand(seats=3, dealer=1, jugador=0, trump="oros", held="2o 10o 4o 2c 11c 4e 1b 2b 6b",
             tricks=[2, 1, 2, 2, 2, 0, 1, 0], surrender="defended", defender=1)
    out = check_sample("tresillo-full-25-rindo.json", h)
    assert out["outcome"] == "dCodilloP" and out["codilloTo"] == 2


def test_sample_full_32_solo_a_favor_lost_by_codillo() -> None:
    h = hand(seats=3, dealer=1, jugador=2, lance="solo", trump="bastos", held="3o 7o 10o 5c 4e 7e 2b 11b 12b",
             tricks=[2, 0, 0, 0, 2, 0, 2, 2, 0])
    out = check_sample("tresillo-full-32-vuelta.json", h)
    assert out["outcome"] == "codillo" and out["codilloTo"] == 0 and out["favor"]


def test_sample_full_36_solo_codillo_reservada() -> None:
    h = hand(seats=4, dealer=1, jugador=0, lance="solo", trump="espadas", held="3o 1c 2c 4c 12c 5e 2b 5b 6b",
             tricks=[2, 3, 2, 3, 3, 3, 0, 0])
    out = check_sample("tresillo-full-36-solo.json", h)
    assert out["outcome"] == "codillo" and out["codilloTo"] == 3 and out["contraestuches"] == 5


# ---- read_table ---------------------------------------------------------------------------------

def test_read_table_fresh_and_round_trip() -> None:
    assert read_table({}, 4) == Table(0, "none", ())
    assert read_table(None, 3) == Table()
    t = {"plate": 60, "plateHolds": "reservada", "cartulina": [{"seat": 3, "amount": 60}, {"seat": 0, "amount": 55}]}
    assert read_table(t, 4).to_json() == t
    # protobuf JSON prints the other games' empty fields
    assert read_table({"plate": 5.0, "score": [], "fondo": 0}, 4) == Table(5, "none", ())


@pytest.mark.parametrize(("tbl", "code", "field"), [
    ("x", "INVALID_FIELD", "table"),
    ({"plate": "5"}, "INVALID_FIELD", "table.plate"),
    ({"plate": True}, "INVALID_FIELD", "table.plate"),
    ({"plate": -5}, "INVALID_TABLE", "table.plate"),
    ({"plate": 7}, "INVALID_TABLE", "table.plate"),
    ({"plateHolds": "segunda"}, "INVALID_FIELD", "table.plateHolds"),
    ({"plate": 0, "plateHolds": "primera"}, "INVALID_TABLE", "table.plateHolds"),
    ({"plate": 0, "plateHolds": "reservada"}, "INVALID_TABLE", "table.plateHolds"),
    ({"plate": 30, "cartulina": [{"seat": 1, "amount": 30}]}, "INVALID_TABLE", "table.cartulina"),
    ({"plate": 30, "plateHolds": "primera", "cartulina": {}}, "INVALID_FIELD", "table.cartulina"),
    ({"plate": 30, "plateHolds": "primera", "cartulina": [5]}, "INVALID_FIELD", "table.cartulina[0]"),
    ({"plate": 30, "plateHolds": "primera", "cartulina": [{"seat": 4, "amount": 30}]}, "INVALID_TABLE", "table.cartulina[0].seat"),
    ({"plate": 30, "plateHolds": "primera", "cartulina": [{"seat": "1", "amount": 30}]}, "INVALID_FIELD", "table.cartulina[0].seat"),
    ({"plate": 30, "plateHolds": "primera", "cartulina": [{"amount": 30}]}, "MISSING_FIELD", "table.cartulina[0].seat"),
    ({"plate": 30, "plateHolds": "primera", "cartulina": [{"seat": 1}]}, "MISSING_FIELD", "table.cartulina[0].amount"),
    ({"plate": 30, "plateHolds": "primera", "cartulina": [{"seat": 1, "amount": 0}]}, "INVALID_TABLE", "table.cartulina[0].amount"),
    ({"plate": 30, "plateHolds": "primera", "cartulina": [{"seat": 1, "amount": 32}]}, "INVALID_TABLE", "table.cartulina[0].amount"),
    ({"plate": 30, "plateHolds": "primera", "cartulina": [{"seat": 1, "amount": 60, "partner": 1}]},
     "INVALID_TABLE", "table.cartulina[0].partner"),
    ({"plate": 30, "plateHolds": "primera", "cartulina": [{"seat": 1, "amount": 55, "partner": 2}]},
     "INVALID_TABLE", "table.cartulina[0].amount"),
    ({"score": [1, 2]}, "INVALID_TABLE", "table.score"),
    ({"fondo": 20}, "INVALID_TABLE", "table.fondo"),
    ({"pot": 20}, "INVALID_FIELD", "table.pot"),
])
def test_read_table_rejects(tbl: Any, code: str, field: str) -> None:
    with pytest.raises(InvalidInput) as err:
        read_table(tbl, 4)
    assert (err.value.code, err.value.field) == (code, field)


def settle_annulled(tbl: Any) -> dict[str, Any]:
    """SettleHand of an annulled hand on a 4-seat table dealt by seat 0, carrying ``tbl``."""
    return api.settle_hand({"game": "tresillo", "seats": 4, "dealer": 0, "table": tbl, "tresillo": {"annulled": True}})


PRIMERA_30: dict[str, Any] = {"plate": 30, "plateHolds": "primera"}


@pytest.mark.parametrize(("tbl", "code", "field", "says"), [
    ({"plate": -1}, "INVALID_TABLE", "table.plate", "table.plate -1 is negative"),
    ({"plate": 100_000_005}, "INVALID_TABLE", "table.plate", "table.plate 100,000,005 is more than a table carries"),
    ({**PRIMERA_30, "cartulina": [{"seat": 1, "amount": 30, "owner": 2}]}, "INVALID_FIELD", "table.cartulina[0].owner",
     "unknown cartulina field"),
    ({**PRIMERA_30, "cartulina": [{"seat": -1, "amount": 30}]}, "INVALID_TABLE", "table.cartulina[0].seat",
     "table.cartulina[0].seat -1 is not a seat of this 4-seat table"),
    ({**PRIMERA_30, "cartulina": [{"seat": 1, "amount": "30"}]}, "INVALID_FIELD", "table.cartulina[0].amount", "must be an integer"),
    ({**PRIMERA_30, "cartulina": [{"seat": 1, "amount": 60, "partner": "2"}]}, "INVALID_FIELD", "table.cartulina[0].partner",
     "must be an integer"),
    ({**PRIMERA_30, "cartulina": [{"seat": 1, "amount": 60, "partner": 4}]}, "INVALID_TABLE", "table.cartulina[0].partner",
     "partner 4 must be another seat of this 4-seat table"),
    ({**PRIMERA_30, "cartulina": [{"seat": 1, "amount": 60, "partner": -1}]}, "INVALID_TABLE", "table.cartulina[0].partner",
     "partner -1 must be another seat"),
    # the limit is on the plate and the cartulina together, entry by entry
    ({"plate": 99_999_970, "plateHolds": "primera", "cartulina": [{"seat": 1, "amount": 25}, {"seat": 2, "amount": 10}]},
     "INVALID_TABLE", "table.cartulina[1]", "the plate and the cartulina to table.cartulina[1] together (100,000,005)"),
])
def test_format_5_table_rejects_through_settle_hand(tbl: dict[str, Any], code: str, field: str, says: str) -> None:
    """FORMAT.md section 5 and docs/rules/tresillo.md (the table carried between hands): every
    field of a cartulina entry is checked (seats of the table, integers, no unknown field), and
    the plate and the cartulina together stay within a table's 100,000,000 tantos."""
    with pytest.raises(InvalidInput) as err:
        settle_annulled(tbl)
    assert (err.value.code, err.value.field) == (code, field)
    assert says in err.value.message


def test_format_5_table_empty_plate_holds_reads_as_none() -> None:
    """FORMAT.md section 5: a ``plateHolds`` left empty (protobuf JSON's default) or omitted is
    ``none``, as on a fresh table; the dealer's 5 goes into the plate."""
    for tbl in ({"plate": 30, "plateHolds": ""}, {"plate": 30, "plateHolds": None}, {"plate": 30}):
        assert settle_annulled(tbl)["table"] == {"plate": 35, "plateHolds": "none", "cartulina": []}


# ---- SettleHand ---------------------------------------------------------------------------------

def summary_request(seats: int = 4, dealer: int = 0, tresillo: dict[str, Any] | None = None, **kw: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"jugador": 1, "lance": "entrada", "trump": "oros", "jugadorHand": PLAIN,
                            "tricks": WIN_NO_PRIMERAS}
    body.update(tresillo or {})
    if tresillo is not None and "jugadorHand" not in tresillo and tresillo.get("surrender", "none") != "none":
        body.pop("jugadorHand")
    return {"game": "tresillo", "seats": seats, "dealer": dealer, "tresillo": body, **kw}


def test_settle_summary_matches_settle() -> None:
    for dealer, spec, *_ in TR9[:3]:
        h = hand(dealer=dealer, **spec)  # type: ignore[arg-type]
        request = summary_request(dealer=dealer, tresillo={
            "jugador": h.jugador, "lance": h.lance, "trump": h.trump.word if h.trump else None,
            "jugadorHand": " ".join(map(str, h.jugador_cards)), "tricks": list(h.trick_winners)})
        assert settle_summary(DEFAULT, Table(), request) == settle(DEFAULT, Table(), h)
    assert settle_summary(DEFAULT, Table(), {"seats": 3, "dealer": 2, "tresillo": {"annulled": True}})["net"] == [0, 0, -5]
    out = settle_summary(DEFAULT, Table(), summary_request(tresillo={"surrender": "defended", "defender": 2,
                                                                     "tricks": defended(2, 2, 5)}))
    assert out["outcome"] == "dCodilloP"
    out = settle_summary(DEFAULT, Table(), summary_request(tresillo={"tricks": [1] * 6 + [3], "bola": "failed"}))
    assert out["outcome"] == "bolaFailed"


@pytest.mark.parametrize(("change", "code", "field"), [
    ({"seats": 5}, "INVALID_SEATS", "seats"),
    ({"dealer": 4}, "SEAT_OUT_OF_RANGE", "dealer"),
    ({"dealer": "0"}, "INVALID_FIELD", "dealer"),
    ({"dealer": None}, "MISSING_FIELD", "dealer"),
    ({"tresillo": None}, "MISSING_FIELD", "tresillo"),
    ({"tresillo": []}, "INVALID_FIELD", "tresillo"),
    ({"t.jugador": 0}, "INVALID_FIELD", "tresillo.jugador"),  # the alcalde
    ({"t.jugador": 7}, "SEAT_OUT_OF_RANGE", "tresillo.jugador"),
    ({"t.jugador": 4}, "SEAT_OUT_OF_RANGE", "tresillo.jugador"),  # the first seat past a 4-seat table
    ({"t.jugador": -1}, "SEAT_OUT_OF_RANGE", "tresillo.jugador"),
    ({"t.jugador": None}, "MISSING_FIELD", "tresillo.jugador"),
    ({"t.lance": "bola"}, "INVALID_FIELD", "tresillo.lance"),
    ({"t.trump": "hearts"}, "INVALID_FIELD", "tresillo.trump"),
    ({"t.solera": True}, "INVALID_FIELD", "tresillo.solera"),
    ({"t.solera": "yes"}, "INVALID_FIELD", "tresillo.solera"),
    ({"t.jugadorHand": "1e 7o"}, "WRONG_HAND_SIZE", "tresillo.jugadorHand"),
    ({"t.jugadorHand": "1e 1e 3o 4o 5o 6o 3c 4c 5c"}, "DUPLICATE_CARD", "tresillo.jugadorHand"),
    ({"t.jugadorHand": "1e 8o 3o 4o 5o 6o 3c 4c 5c"}, "UNKNOWN_CARD", "tresillo.jugadorHand"),
    ({"t.jugadorHand": None}, "MISSING_FIELD", "tresillo.jugadorHand"),
    ({"t.tricks": [1, 2, 0]}, "INVALID_FIELD", "tresillo.tricks[2]"),
    ({"t.tricks": [1, 2, 9]}, "SEAT_OUT_OF_RANGE", "tresillo.tricks[2]"),
    ({"t.tricks": [1, 2, "3"]}, "INVALID_FIELD", "tresillo.tricks[2]"),
    ({"t.tricks": [1] * 10}, "INVALID_FIELD", "tresillo.tricks"),
    ({"t.tricks": [1, 2, 3]}, "INVALID_FIELD", "tresillo.tricks"),  # not over
    ({"t.tricks": [1] * 6}, "INVALID_FIELD", "tresillo.tricks"),  # planto after five
    ({"t.bola": "made"}, "INVALID_FIELD", "tresillo.bola"),
    ({"t.bola": "failed"}, "INVALID_FIELD", "tresillo.bola"),
    ({"t.bola": "failed", "t.tricks": [1] * 5 + [2, 3]}, "INVALID_FIELD", "tresillo.bola"),  # 7.2: it ends at the first lost trick
    ({"t.bola": "maybe"}, "INVALID_FIELD", "tresillo.bola"),
    ({"t.surrender": "accepted", "t.lance": "solo"}, "INVALID_FIELD", "tresillo.surrender"),
    ({"t.surrender": "defended", "t.lance": "vuelta", "t.defender": 2}, "INVALID_FIELD", "tresillo.surrender"),
    ({"t.surrender": "defended", "t.defender": 1}, "INVALID_FIELD", "tresillo.defender"),
    ({"t.surrender": "defended", "t.defender": 0}, "INVALID_FIELD", "tresillo.defender"),
    ({"t.surrender": "defended"}, "MISSING_FIELD", "tresillo.defender"),
    # 7.3 with 7.4: 1-3-4 with a trick to play is D-CODILLO-P, or D-CODILLO-R at the A16 edge 1-4-4: not over
    ({"t.surrender": "defended", "t.defender": 2, "t.tricks": defended(1, 3, 4)}, "INVALID_FIELD", "tresillo.tricks"),
    ({"t.surrender": "accepted", "t.tricks": [1, 2, 3, 1]}, "INVALID_FIELD", "tresillo.tricks"),
    # the Jugador's first four tricks: five more to play, nothing settled yet (a planto needs five)
    ({"t.tricks": [1, 1, 1, 1]}, "INVALID_FIELD", "tresillo.tricks"),
    # A9: the seed forbids surrendering a solo: it is played out
    ({"t.lance": "solo", "t.surrender": "accepted", "t.tricks": [1, 2]}, "INVALID_FIELD", "tresillo.surrender"),
    ({"t.surrender": "accepted", "t.bola": "failed", "t.tricks": [1, 2]}, "INVALID_FIELD", "tresillo.bola"),  # no bola in a surrender
    ({"t.defender": 2}, "INVALID_FIELD", "tresillo.defender"),
    ({"t.extra": 1}, "INVALID_FIELD", "tresillo.extra"),
])
def test_settle_summary_rejects(change: dict[str, Any], code: str, field: str) -> None:
    request = summary_request()
    for key, value in change.items():
        if key.startswith("t."):
            request["tresillo"][key[2:]] = value
        else:
            request[key] = value
    with pytest.raises(InvalidInput) as err:
        settle_summary(DEFAULT, Table(), request)
    assert (err.value.code, err.value.field) == (code, field)


def settled(**tresillo: Any) -> dict[str, Any]:
    """SettleHand (engine.api) of ``summary_request`` with these ``tresillo`` fields."""
    return api.settle_hand(summary_request(tresillo=tresillo))


def settle_rejected(**tresillo: Any) -> tuple[str, str]:
    with pytest.raises(InvalidInput) as err:
        settled(**tresillo)
    return err.value.code, err.value.field


@pytest.mark.parametrize(("field", "value", "says"), [
    ("jugador", "1", "tresillo.jugador must be an integer, not '1'"),
    ("jugador", True, "tresillo.jugador must be an integer, not true"),
    ("jugador", 1.5, "tresillo.jugador must be an integer, not 1.5"),
    ("defender", "2", "tresillo.defender must be an integer, not '2'"),
    ("annulled", "true", "tresillo.annulled must be true or false, not 'true'"),
    ("solera", "yes", "tresillo.solera must be true or false, not 'yes'"),
    ("solera", 1, "tresillo.solera must be true or false, not 1"),
    ("lance", 2, "tresillo.lance must be a string, not 2"),
    ("jugadorHand", ["1e", "3o"], "tresillo.jugadorHand must be a string, not [\"1e\", \"3o\"]"),
    ("tricks", "2 1 1 1 1 3 1 2 3", "tresillo.tricks must be a list, not '2 1 1 1 1 3 1 2 3'"),
])
def test_settle_summary_names_a_field_of_the_wrong_type(field: str, value: Any, says: str) -> None:
    """SettleHand's ``tresillo`` fields (FORMAT.md's types): a seat number that is not an integer,
    a flag that is not true or false, a word or card list that is not a string and ``tricks``
    that is not a list are refused by name, quoting the value (a vuelta solera given "yes" is not
    read as a solera)."""
    change: dict[str, Any] = {"lance": "vuelta", field: value}
    if field == "defender":
        change.update(lance="entrada", surrender="defended", tricks=defended(4, 4, 1))
    with pytest.raises(InvalidInput) as err:
        settled(**change)
    assert (err.value.code, err.value.field, err.value.message) == ("INVALID_FIELD", f"tresillo.{field}", says)


def test_settle_summary_reads_integral_numbers_as_seats() -> None:
    """SettleHand reads a seat number as JSON sends it: protobuf's Struct gives every number as a
    double, and an integral one is the seat (1.0 is seat 1), for the Jugador, the defender and the
    winners of the tricks alike."""
    assert settled(jugador=1.0, tricks=[float(w) for w in WIN_NO_PRIMERAS]) == settled()
    as_ints = settled(surrender="defended", defender=2, tricks=defended(2, 2, 5))
    assert as_ints["outcome"] == "dCodilloP"
    assert settled(jugador=1.0, surrender="defended", defender=2.0, tricks=defended(2, 2, 5)) == as_ints


def test_settle_summary_four_first_tricks_then_one_lost_is_played_out() -> None:
    """A planto needs the first five tricks: the Jugador who wins tricks 1-4 and loses the 5th
    plays on, and wins the entrada 6-2-1 (without primeras: paid as the 5-2-2 of WIN_NO_PRIMERAS)."""
    out = settle_summary(DEFAULT, Table(), summary_request(tresillo={"tricks": [1, 1, 1, 1, 2, 3, 2, 1, 1]}))
    assert out["outcome"] == "sacada"
    assert out["net"] == settle_summary(DEFAULT, Table(), summary_request())["net"] == [-10, 20, -5, -5]


def test_settle_summary_three_seats_dealer_plays() -> None:
    request = summary_request(seats=3, dealer=0, tresillo={"jugador": 0, "tricks": [1, 2, 0, 0, 0, 0, 1, 2, 0]})
    assert settle_summary(DEFAULT, Table(), request)["net"] == [10, -5, -5]


def test_8_8_annulled_summary_carries_nothing_of_a_hand() -> None:
    """8.8 (an annulled hand: no transfers beyond the dealer's 5): an annulled summary names no
    Jugador, lance, trump, cards, tricks, bola, surrender or defender; the values protobuf JSON
    prints for fields left empty are no value."""
    base = {"game": "tresillo", "seats": 4, "dealer": 0}
    empty = {"annulled": True, "jugadorHand": "", "tricks": [], "solera": False, "bola": "none", "surrender": "none"}
    out = api.settle_hand({**base, "tresillo": empty})
    assert out["outcome"] == "annulled" and out["net"] == [-5, 0, 0, 0]
    for name, value in (("jugador", 1), ("lance", "entrada"), ("trump", "oros"), ("solera", True), ("jugadorHand", PLAIN),
                        ("tricks", [1]), ("bola", "made"), ("surrender", "accepted"), ("defender", 2),
                        ("jugador", 0), ("defender", 0), ("tricks", [0])):  # (a seat 0 is a value: it read as false)
        with pytest.raises(InvalidInput) as err:
            api.settle_hand({**base, "tresillo": {"annulled": True, name: value}})
        assert (err.value.code, err.value.field) == ("INVALID_FIELD", f"tresillo.{name}"), name
        assert "an annulled hand" in err.value.message


def test_2_2_the_alcalde_neither_declares_nor_takes_tricks() -> None:
    """2.2: on a 4-seat table the dealer (the alcalde) holds no cards: SettleHand says so when he
    is named the Jugador or the winner of a trick."""
    with pytest.raises(InvalidInput) as err:
        settled(jugador=0)
    assert err.value.message == "tresillo.jugador 0 is not an active seat (the dealer of a 4-seat table does not play)"
    with pytest.raises(InvalidInput) as err:
        settled(tricks=[1, 0, 1, 1, 1, 2, 1, 2, 3])
    assert err.value.message == "tresillo.tricks[1] 0 is not an active seat: only the three players take tricks"


def test_7_1_ten_tricks_are_refused_whoever_won_them() -> None:
    """7.1: a hand has nine tricks. Ten are refused even when the first five do not make a planto
    (the Jugador's 9 against 1 would otherwise read as a finished hand)."""
    assert settle_rejected(tricks=[2] + [1] * 9) == ("INVALID_FIELD", "tresillo.tricks")


def test_7_2_planto_after_five_through_settle_hand() -> None:
    """7.2: the Jugador who wins tricks 1-5 and stops (no bola) ends the hand there: a win with
    primeras, 1 + 5 (jugar) = 6, rounded 10 from each of the three others, and the plate."""
    out = settled(tricks=[1] * 5)
    assert out["outcome"] == "primeras" and out["primeras"] is True
    assert out["net"] == [-15, 35, -10, -10]


def test_7_2_bola_cut_at_the_sixth_trick_through_settle_hand() -> None:
    """7.2 / TR-13: a bola attempt ends at the first trick the Jugador loses, the 6th included:
    the failed bola pays as TR-13 (here 0 estuches: 1 + 5 = 6, rounded 10 each)."""
    out = settled(tricks=[1] * 5 + [2], bola="failed")
    assert out["outcome"] == "bolaFailed" and out["net"] == [85, -265, 90, 90]


def test_7_2_bola_made_through_settle_hand() -> None:
    """7.2 / 8.2: all nine tricks with the bola declared: the bola's 100 and the primeras (A19)."""
    out = settled(tricks=[1] * 9, bola="made")
    assert out["outcome"] == "bola"
    assert out["condiciones"] == [{"item": "primeras", "tantos": 1}, {"item": "bola", "tantos": 100}, {"item": "jugar", "tantos": 5}]
    assert out["net"] == [-5 - 110, 330 + 5, -110, -110]


def test_7_3_early_end_through_settle_hand() -> None:
    """7.3: a summary ends where the result is settled. A contra player with five tricks gives
    codillo whatever follows (the puesta P = 5 + 20 into the plate and P to him); with one
    trick to play, 4-4-0 (a win or a puesta) and 1-4-3 (a codillo or, at 1-4-4, a puesta real)
    are not over."""
    out = settled(tricks=[2] * 5)
    assert out["outcome"] == "codillo" and out["codilloTo"] == 2 and out["net"] == [-5, -50, 25, 0]
    assert settle_rejected(tricks=[1, 2, 1, 2, 1, 2, 1, 2]) == ("INVALID_FIELD", "tresillo.tricks")
    assert settle_rejected(tricks=[2, 2, 2, 2, 3, 3, 3, 1]) == ("INVALID_FIELD", "tresillo.tricks")


def test_7_4_defended_early_end_through_settle_hand() -> None:
    """7.3 with 7.4's classes: D-PUESTA 4-4-1 after nine tricks; 1-4-3 with a trick to play is
    D-CODILLO-R whatever it gives (1-4-4 too, A16), so the hand is over; 3-4-1 (D-PUESTA or
    D-CODILLO-R) and 4-1-3 (D-WIN or D-PUESTA) with a trick to play are not."""
    def defence(d: int, r: int, p: int) -> dict[str, Any]:
        return {"surrender": "defended", "defender": 2, "tricks": defended(d, r, p)}

    out = settled(**defence(4, 4, 1))
    assert out["outcome"] == "dPuesta" and out["net"] == [-5, -25, -25, 0]  # the gemelas into the plate
    out = settled(**defence(1, 4, 3))
    assert out["outcome"] == "dCodilloR" and out["net"] == [-5, 0, -25, 0]  # the defender's puesta only
    assert settle_rejected(**defence(3, 4, 1)) == ("INVALID_FIELD", "tresillo.tricks")
    assert settle_rejected(**defence(4, 1, 3)) == ("INVALID_FIELD", "tresillo.tricks")


def test_tr14_surrender_after_three_tricks_through_settle_hand() -> None:
    """TR-14 / 7.4: the Jugador may surrender until he plays his card to the 4th trick, so after
    three tricks; the entrada rendida accepted is his puesta, 5 + 20."""
    out = settled(surrender="accepted", tricks=[1, 2, 3])
    assert out["outcome"] == "rendida" and out["net"] == [-5, -25, 0, 0]


def test_8_7_surrendered_hand_still_checks_a_given_jugador_hand() -> None:
    """8.7: a surrendered hand needs no ``jugadorHand`` (no estuches are paid), but one given is
    still read and checked."""
    assert settled(surrender="accepted", tricks=[1, 2])["outcome"] == "rendida"
    assert settle_rejected(surrender="accepted", tricks=[1, 2], jugadorHand="1e 7o") == ("WRONG_HAND_SIZE", "tresillo.jugadorHand")
    assert settle_rejected(surrender="accepted", tricks=[1, 2], jugadorHand="1e 1e 3o 4o 5o 6o 3c 4c 5c") == (
        "DUPLICATE_CARD", "tresillo.jugadorHand")


# ---- random hands -------------------------------------------------------------------------------

def random_options(rng: random.Random) -> Options:
    values = {}
    for f in dataclasses.fields(Options):
        values[f.name] = rng.choice(f.metadata["choices"])
    return Options(**values)


def random_hand(rng: random.Random, seats: int, dealer: int, options: Options) -> Hand:
    if rng.random() < 0.08:
        return Hand(seats=seats, dealer=dealer, annulled=True)
    active = [(dealer + 1 + i) % seats for i in range(3)]
    jugador = rng.choice(active)
    contra = [s for s in active if s != jugador]
    lance = rng.choice(("entrada", "vuelta", "solo"))
    solera = lance == "vuelta" and rng.random() < 0.3
    held = tuple(rng.sample(DECK_40.cards, 9))
    trump = rng.choice(list(Suit))
    base = dict(seats=seats, dealer=dealer, jugador=jugador, lance=lance, trump=trump, solera=solera, jugador_cards=held)
    roll = rng.random()
    if lance != "solo" and roll < 0.15 and not solera_unsurrenderable(options, solera):
        return Hand(**base, surrender="accepted", trick_winners=tuple(rng.choice(active) for _ in range(rng.randint(0, 3))))  # type: ignore[arg-type]
    if lance == "entrada" and roll < 0.35:
        defender = rng.choice(contra)
        winners: list[int] = []
        while not decided(winners.count(defender), winners.count(jugador), winners.count(next(s for s in contra if s != defender)),
                          9 - len(winners), defended=True):
            winners.append(rng.choice(active))
        return Hand(**base, surrender="defended", defender=defender, trick_winners=tuple(winners))  # type: ignore[arg-type]
    winners = []
    while True:
        if len(winners) == 5 and all(w == jugador for w in winners):
            if rng.random() < 0.5:
                return Hand(**base, trick_winners=tuple(winners))  # type: ignore[arg-type]
            while len(winners) < 9:
                winners.append(jugador if rng.random() < 0.7 else rng.choice(contra))
                if winners[-1] != jugador:
                    return Hand(**base, trick_winners=tuple(winners), bola="failed")  # type: ignore[arg-type]
            return Hand(**base, trick_winners=tuple(winners), bola="made")  # type: ignore[arg-type]
        if decided(winners.count(jugador), winners.count(contra[0]), winners.count(contra[1]), 9 - len(winners)) and not (
                len(winners) < 5 and all(w == jugador for w in winners)):
            return Hand(**base, trick_winners=tuple(winners))  # type: ignore[arg-type]
        winners.append(jugador if rng.random() < 0.45 else rng.choice(contra))


@pytest.mark.parametrize("seed", range(40))
def test_random_sessions_conserve_money(seed: int) -> None:
    rng = random.Random(seed)
    seats = rng.choice((3, 4))
    options = random_options(rng)
    t = Table()
    balances = [0] * seats
    dealer = rng.randrange(seats)
    for _ in range(30):
        h = random_hand(rng, seats, dealer, options)
        out = run(t, h, options)
        balances = [b + n for b, n in zip(balances, out["net"], strict=True)]
        assert sum(balances) + out["table"]["plate"] == 0
        new = after(out)
        # the cartulina: each debt is paid into the plate once, when the plate is won, and leaves it
        paid_in = [p for p in out["payments"] if "cartulina" in p["reason"]]
        old, kept = list(t.cartulina), list(new.cartulina)
        rest = old
        if paid_in:
            best = max(range(len(old)), key=lambda i: (old[i][1], -i))
            entry = old[best]
            rest = old[:best] + old[best + 1:]
            owners = [entry[0]] + ([entry[2]] if len(entry) > 2 else [])
            assert sorted(int(p["payer"].split()[1]) for p in paid_in) == sorted(owners)
            assert sum(p["amount"] for p in paid_in) == entry[1] == new.plate and new.holds == "reservada"
            assert any(p["payee"] != "plate" and p["payer"] == "plate" for p in out["payments"])  # the plate was won
        assert kept[:len(rest)] == rest  # the other debts stay, in order; new ones are appended
        assert len(kept) - len(rest) <= 2
        if new.cartulina:
            assert new.holds != "none"
        if h.annulled:
            assert (new.holds, new.cartulina) == (t.holds, t.cartulina) and new.plate == t.plate + 5
        assert out["outcome"] in ("annulled", "sacada", "primeras", "bola", "bolaFailed", "puesta", "puestaReal", "codillo",
                                  "rendida", "dWin", "dPuesta", "dCodilloR", "dCodilloP")
        t = new
        dealer = (dealer + 1) % seats
