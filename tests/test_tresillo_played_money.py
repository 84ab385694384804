"""The accounting decisions of rules/tresillo.md section 9 played out: A8, A15, A17-A21, A23, A25,
A26, A28-A30 and A36 (with TR-13 and TR-15), and the accounting examples of section 10 (TR-7,
TR-8, TR-10, TR-11, TR-12), each through complete hand records in card notation and
``engine.api.validate``, under the default and under every option the decision names, with the
figures the spec gives. tests/test_tresillo_settle.py checks the same decisions on the
accounting module alone (``settle`` with a hand summary); these check that the play hands the
accounting the hand the cards describe (who won which trick, the bola, the surrender and the
defence, the Jugador's cards when play starts) and that the record's ``rules`` and ``table`` reach
it.

Dealer 0 at 4 seats unless stated: mano 1, medio 2, postre 3, seat 0 the alcalde; favour suit
bastos (the default) unless stated; a fresh table unless stated. Every trick is written out in
play order; in each the three cards are of one plain suit (or all trumps), so every card is legal
whatever else its seat holds, and the best of them wins. A seat's cards are the cards it plays
plus ``hold`` (cards it holds and never plays), filled up to nine with plain cards nobody plays;
the stock is the rest of the deck. (TR-7 and TR-11, nine tricks for each of many splits, deal
with tresillo_support.build instead: tricks of one suit each, won by the seats asked for.)
"""

from __future__ import annotations

from typing import Any

import pytest
from results_support import ok, violation, winners
from tresillo_support import DECK, LETTER, TRUMP_ORDER, active, build, flat, opening, rec

from engine import api

FRESH = {"plate": 0, "plateHolds": "none", "cartulina": []}
PRIMERA_30 = {"plate": 30, "plateHolds": "primera", "cartulina": []}


def hand(lance: str, play: list[str], *, jugador: int = 1, seats: int = 4, dealer: int = 0,
         hold: dict[int, str] | None = None, vuelta: tuple[str, str, str] | None = None,
         surrender: str = "", rules: dict[str, Any] | None = None, table: dict[str, Any] | None = None) -> dict[str, Any]:
    """The record of a hand: ``lance`` as declared ("entrada oros", "vuelta", "solo copas"), ``play``
    the tricks (each "seat card, seat card, seat card", other calls such as "1 bola" allowed among
    them), ``surrender`` the calls before the first lead ("1 rindo, 2 bien, 3 defiendo").

    ``vuelta`` is (turned card, card drawn, the two cards discarded): the Jugador discards two and
    draws one, a vuelta and not a solera; the turned and the drawn cards are among his cards in
    play (``play`` or ``hold``), the discards in nobody's. The opponents exchange nothing."""
    actions = [a.strip() for t in [surrender, *play] for a in t.split(",") if a.strip()]
    order = active(seats, dealer)
    cards: dict[int, list[str]] = {s: [] for s in order}
    for a in actions:
        seat, word = a.split()
        if word[0].isdigit():
            cards[int(seat)].append(word)
    for s, held in (hold or {}).items():
        cards[s] += held.split()
    trump = vuelta[0][-1] if vuelta else LETTER[lance.split()[1]]
    discards = vuelta[2].split() if vuelta else []
    used = {c for cs in cards.values() for c in cs} | set(discards)
    assert len(used) == sum(len(cs) for cs in cards.values()) + len(discards), "test bug: a card twice"
    spare = [c for c in DECK if c not in used and c not in TRUMP_ORDER[trump]]
    for s in order:
        assert len(cards[s]) <= 9, f"test bug: seat {s} has {len(cards[s])} cards"
        while len(cards[s]) < 9:
            cards[s].append(spare.pop(0))
    top: list[str] = []
    if vuelta:
        turned, drawn, _ = vuelta
        assert turned in cards[jugador] and drawn in cards[jugador], "test bug: the vuelta's cards"
        cards[jugador] = [c for c in cards[jugador] if c not in (turned, drawn)] + discards
        top = [turned, drawn]
    held = {c for cs in cards.values() for c in cs}
    stock = top + [c for c in DECK if c not in held and c not in top]
    hands = [" ".join(cards[s]) if s in cards else "" for s in range(seats)]
    opened = opening(jugador, lance, seats=seats, dealer=dealer, discards={jugador: vuelta[2]} if vuelta else None)
    out: dict[str, Any] = {"game": "tresillo", "seats": seats, "dealer": dealer,
                           "deal": {"hands": hands, "stock": " ".join(stock)}, "actions": [*opened, *actions],
                           "table": dict(table or FRESH)}
    if rules:
        out["rules"] = dict(rules)
    return out


def finished(record: dict[str, Any]) -> dict[str, Any]:
    """The record is legal and its last action ends the hand (one action fewer, it is still on)."""
    result = ok(record)
    assert result["finished"] is True and "net" in result
    assert ok({**record, "actions": record["actions"][:-1]})["finished"] is False
    return result


def under(record: dict[str, Any], rules: dict[str, Any] | None = None, table: dict[str, Any] | None = None) -> dict[str, Any]:
    """The same hand under other rules or on another table, finished."""
    out = {**record, "rules": {**record.get("rules", {}), **(rules or {})}}
    if table is not None:
        out["table"] = dict(table)
    return finished(out)


def paid(result: dict[str, Any]) -> list[tuple[str, str, int]]:
    return [(p["payer"], p["payee"], p["amount"]) for p in result["payments"]]


# ---- the hands -----------------------------------------------------------------------------------

# S1's entrada in oros, won 5-1-1 without the first five (S2 takes trick 1); S1 holds 1e, so no
# estuches and no contraestuche. The hand ends at his fifth trick (trick 7).
WIN = ["1 7c, 2 12c, 3 6c", "2 5c, 3 4c, 1 11c", "1 12e, 2 3e, 3 4e", "1 12b, 2 3b, 3 4b",
       "1 11e, 2 5e, 3 6e", "1 2b, 2 5b, 3 11b", "3 3c, 1 10c, 2 2c"]
WIN_ORO = hand("entrada oros", WIN, hold={1: "1e"})

# S1's entrada in oros lost 4-4-1 (S1 four, S2 four, S3 one), S1 taking trick 2: no primeras contra.
PUESTA = ["1 7c, 2 12c, 3 6c", "2 5c, 3 4c, 1 11c", "1 12e, 2 3e, 3 4e", "1 2e, 2 11e, 3 5e",
          "2 12b, 3 3b, 1 4b", "2 10c, 3 2c, 1 3c", "2 5b, 3 11b, 1 6b", "3 6e, 1 10e, 2 7e", "1 1e, 2 1c, 3 7b"]
PUESTA_ORO = hand("entrada oros", PUESTA)

# S1 wins tricks 1-5 with plain cards, then says planto (trump oros; he holds 1e).
FIRST_FIVE = ["1 12c, 2 7c, 3 6c", "1 12e, 2 3e, 3 4e", "1 12b, 2 3b, 3 4b", "1 11c, 2 5c, 3 4c",
              "1 11e, 2 5e, 3 6e"]

# TR-13: S1's entrada in oros with 1e 7o 1b (not 1o): tricks 1-5, bola, trick 6 with the espada,
# trick 7 lost to S2's 10c.
TR13 = hand("entrada oros", [*FIRST_FIVE, "1 bola", "1 1e, 2 5o, 3 6o", "1 3c, 2 10c, 3 2c"], hold={1: "7o 1b"})

# The same in bastos, the favour suit: S1 holds 1e 2b 1b (not 12b), 3 estuches.
BOLA_FAILED_FAVOR = hand("entrada bastos", ["1 12c, 2 7c, 3 6c", "1 12e, 2 3e, 3 4e", "1 12o, 2 7o, 3 6o",
                                            "1 11c, 2 5c, 3 4c", "1 11e, 2 5e, 3 6e", "1 bola",
                                            "1 1e, 2 5b, 3 6b", "1 3c, 2 10c, 3 2c"], hold={1: "2b 1b"})

# S1's entrada in oros, all nine tricks after "bola"; he holds 1e of the matadores only (no estuches).
BOLA_MADE = hand("entrada oros", [*FIRST_FIVE, "1 bola", "1 1e, 2 5o, 3 6o", "1 10c, 2 3c, 3 2c",
                                  "1 10e, 2 7e, 3 2e", "1 10b, 2 7b, 3 2b"])

# S1's entrada in bastos (a favor), lost 4-4-1: the contra take tricks 1-5 (S2 four, S3 one), S1 the
# last four: the seed's first pattern of primeras against the Jugador.
PUESTA_PRIMERAS_CONTRA = ["1 7c, 2 12c, 3 6c", "2 11c, 3 5c, 1 4c", "2 3e, 3 12e, 1 4e", "3 5e, 1 6e, 2 11e",
                          "2 12o, 3 7o, 1 6o", "2 5o, 3 4o, 1 11o", "1 10c, 2 3c, 3 2c", "1 10e, 2 7e, 3 2e",
                          "1 1e, 2 1c, 3 3o"]
PUESTA_FAVOR = hand("entrada bastos", PUESTA_PRIMERAS_CONTRA)

# A 3-3-3 puesta in oros: the contra take tricks 1-5 (S2 1, 3, 5; S3 2, 4), S1 trick 6, S3 trick 7,
# S1 tricks 8 and 9.
MIXED_333 = hand("entrada oros", ["1 7c, 2 12c, 3 6c", "2 5c, 3 11c, 1 4c", "3 3e, 1 4e, 2 12e", "2 5e, 3 11e, 1 6e",
                                  "3 3b, 1 4b, 2 12b", "2 5b, 3 6b, 1 11b", "1 3c, 2 2c, 3 10c", "3 7e, 1 10e, 2 2e",
                                  "1 1e, 2 1c, 3 7b"])


# ---- A8: a vuelta turning up the favour suit -----------------------------------------------------

# S1's vuelta turns 4b (bastos, the favour suit); he discards 6o 7o and draws 7c. He wins 5-1-1
# without the first five (the WIN tricks, oros in place of bastos), holding 1e: no estuches.
VUELTA_WIN = hand("vuelta", ["1 7c, 2 12c, 3 6c", "2 5c, 3 4c, 1 11c", "1 12e, 2 3e, 3 4e", "1 12o, 2 3o, 3 4o",
                             "1 11e, 2 5e, 3 6e", "1 2o, 2 5o, 3 11o", "3 3c, 1 10c, 2 2c"],
                  hold={1: "1e 4b"}, vuelta=("4b", "7c", "6o 7o"))
# The same vuelta lost 4-4-1: void in espadas, S1 takes trick 8 with the espada, and trick 9 with
# the turned 4b. He discards 2o 10o and draws 7c.
VUELTA_PUESTA = hand("vuelta", ["1 7c, 2 12c, 3 6c", "2 5c, 3 4c, 1 11c", "1 12e, 2 3e, 3 4e", "1 2e, 2 11e, 3 5e",
                                "2 12o, 3 3o, 1 4o", "2 10c, 3 2c, 1 3c", "2 5o, 3 11o, 1 6o", "3 6e, 1 1e, 2 7e",
                                "1 4b, 2 1c, 3 7o"], vuelta=("4b", "7c", "2o 10o"))


def test_a8_vuelta_turning_the_favour_suit_is_played_a_favor():
    """A8 (TR-10): a vuelta turning up F is a favor by default (``vueltaFavor``): doubled
    condiciones, puesta + 40; ``vueltaFavor: false`` plays it as a plain vuelta; with no favour
    suit (``favorSuit: none``) no vuelta is a favor."""
    result = finished(VUELTA_WIN)
    assert (result["lance"], result["trump"], result["turnUp"], result["favor"]) == ("vuelta", "bastos", "4b", True)
    assert "solera" not in result and result["exchanged"][1] == 2
    assert winners(result) == [2, 1, 1, 1, 1, 3, 1] and result["outcome"] == "sacada"
    assert (result["estuches"], result["contraestuches"]) == (0, 0)
    # vuelta 2 + jugar 5 = 7 -> 10, x2 = 20 from each of three; the plate's 5
    assert result["condiciones"] == [{"item": "vuelta", "tantos": 2}, {"item": "jugar", "tantos": 5}]
    assert result["net"] == [-25, 65, -20, -20]
    plain = under(VUELTA_WIN, {"vueltaFavor": False})
    assert plain["favor"] is False and plain["net"] == [-15, 35, -10, -10]
    assert under(VUELTA_WIN, {"favorSuit": "none"})["net"] == [-15, 35, -10, -10]
    # lost by a puesta: vuelta 2 -> 5, x2 = 10 to each; the puesta 5 + 40 into the plate
    lost = finished(VUELTA_PUESTA)
    assert lost["seatTricks"] == [0, 4, 4, 1] and lost["outcome"] == "puesta" and lost["favor"] is True
    assert lost["net"] == [10 - 5, -30 - 45, 10, 10]
    assert lost["table"] == {"plate": 50, "plateHolds": "primera", "cartulina": []}
    plain = under(VUELTA_PUESTA, {"vueltaFavor": False})
    assert plain["net"] == [5 - 5, -15 - 25, 5, 5]
    assert plain["table"] == {"plate": 30, "plateHolds": "primera", "cartulina": []}
    # the option touches only the vuelta: an entrada in the favour suit stays a favor
    assert under(PUESTA_FAVOR, {"vueltaFavor": False})["favor"] is True


# ---- A15, A17, A29: defended entradas ----------------------------------------------------------------

# S1's entrada in oros, surrendered before the first lead: S2 bien, S3 defiendo.
DEFENDED = "1 rindo, 2 bien, 3 defiendo"
# D-WIN: the defender S3 takes tricks 2, 4, 6, 8, the rendido 1 and 5, the mano pobre S2 3 and 7;
# after trick 8 the defender wins whatever the last trick does (4-2-2).
D_WIN = hand("entrada oros", ["1 12c, 2 6c, 3 7c", "1 5c, 2 4c, 3 11c", "3 3e, 1 4e, 2 12e", "2 5e, 3 11e, 1 6e",
                              "3 3b, 1 12b, 2 4b", "1 5b, 2 6b, 3 11b", "3 3c, 1 2c, 2 10c", "2 7e, 3 10e, 1 2e"],
             surrender=DEFENDED)
# D-CODILLO-P: the mano pobre S2 takes tricks 2, 4, 6, 8, the rendido 1 and 5, the defender 3 and 7;
# after trick 8 the mano pobre gives codillo whatever the last trick does.
D_CODILLO_P = hand("entrada oros", ["1 12c, 2 6c, 3 7c", "1 5c, 2 11c, 3 4c", "2 3e, 3 12e, 1 4e", "3 5e, 1 6e, 2 11e",
                                    "2 3b, 3 4b, 1 12b", "1 5b, 2 11b, 3 6b", "2 3c, 3 10c, 1 2c", "3 7e, 1 2e, 2 10e"],
                   surrender=DEFENDED)
# D-PUESTA: defender S3 four (tricks 1, 3, 5, 7), rendido S1 four (2, 4, 6, 9, the last with the
# espada, void in copas), mano pobre S2 one (8).
D_PUESTA = hand("entrada oros", ["1 7c, 2 6c, 3 12c", "3 5c, 1 11c, 2 4c", "1 3e, 2 4e, 3 12e", "3 5e, 1 11e, 2 6e",
                                 "1 3b, 2 4b, 3 12b", "3 5b, 1 11b, 2 6b", "1 3c, 2 2c, 3 10c", "3 7e, 1 2e, 2 10e",
                                 "2 1c, 3 7b, 1 1e"], surrender=DEFENDED)
CARTULINA_2_0 = {"plate": 30, "plateHolds": "primera", "cartulina": [{"seat": 2, "amount": 55}, {"seat": 0, "amount": 40}]}


def test_a15_defender_wins_collects_the_rendidos_puesta_plate_untouched():
    """A15: a defender who wins collects the rendido's puesta P, paid to him directly; the plate
    stays (default ``defenderTakesPlate: false``). With the option he also takes the plate, which
    the cartulina then refills."""
    result = under(D_WIN, table=CARTULINA_2_0)
    assert (result["rendido"], result["defender"], result["outcome"]) == (1, 3, "dWin")
    assert result["seatTricks"] == [0, 2, 2, 4]
    # P = plate 30 + this deal's 5 + 20 = 55, from the rendido to the defender; no condiciones
    assert paid(result) == [("seat 0", "plate", 5), ("seat 1", "seat 3", 55)]
    assert result["net"] == [-5, -55, 0, 55] and result["condiciones"] == []
    assert result["table"] == {**CARTULINA_2_0, "plate": 35}
    takes = under(D_WIN, {"defenderTakesPlate": True}, table=CARTULINA_2_0)
    # he also takes the 35; the largest cartulina entry (seat 2's 55) is paid into the plate
    assert takes["net"] == [-5, -55, -55, 55 + 35]
    assert takes["table"] == {"plate": 55, "plateHolds": "reservada", "cartulina": [{"seat": 0, "amount": 40}]}


def test_a17_defender_giving_codillo_to_the_mano_pobre_pays_only_the_codillo():
    """A17 (TR-11's D-CODILLO-P): the rendido makes his puesta, the defender pays the codillo P to
    the mano pobre and makes no puesta (default ``defenderCodilloAlsoPuesta: false``); with the
    option he makes one too, gemelas with the rendido's."""
    result = finished(D_CODILLO_P)
    assert (result["outcome"], result["codilloTo"]) == ("dCodilloP", 2)
    assert result["seatTricks"] == [0, 2, 4, 2]
    assert result["net"] == [-5, -25, 25, -25]
    assert result["table"] == {"plate": 30, "plateHolds": "primera", "cartulina": []}
    both = under(D_CODILLO_P, {"defenderCodilloAlsoPuesta": True})
    assert both["net"] == [-5, -25, 25, -50]
    assert both["table"] == {"plate": 55, "plateHolds": "primera", "cartulina": []}
    reserved = under(D_CODILLO_P, {"defenderCodilloAlsoPuesta": True}, table=PRIMERA_30)
    assert reserved["net"] == [-5, 0, 55, -55]
    assert reserved["table"]["cartulina"] == [{"seat": 1, "amount": 55}, {"seat": 3, "amount": 55}]


def test_a29_gemelas_on_the_cartulina_separate_or_joint():
    """A29 (TR-11's D-PUESTA): puestas gemelas go into an empty plate together; onto the cartulina
    as two entries, the rendido's first (default ``gemelasOnCartulina: separate``), or as one
    entry of 2P (``joint``)."""
    result = finished(D_PUESTA)
    assert result["outcome"] == "dPuesta" and result["seatTricks"] == [0, 4, 1, 4]
    assert result["net"] == [-5, -25, 0, -25]
    assert result["table"] == {"plate": 55, "plateHolds": "primera", "cartulina": []}
    assert under(D_PUESTA, {"gemelasOnCartulina": "joint"})["table"] == result["table"]
    separate = under(D_PUESTA, table=PRIMERA_30)
    assert separate["net"] == [-5, 0, 0, 0]
    assert separate["table"] == {"plate": 35, "plateHolds": "primera",
                                 "cartulina": [{"seat": 1, "amount": 55}, {"seat": 3, "amount": 55}]}
    joint = under(D_PUESTA, {"gemelasOnCartulina": "joint"}, table=PRIMERA_30)
    assert joint["net"] == [-5, 0, 0, 0]
    assert joint["table"]["cartulina"] == [{"seat": 1, "amount": 110, "partner": 3}]


# ---- A18, A19, A21: bola -------------------------------------------------------------------------


def test_a18_tr13_failed_bola_pays_the_bola_to_each():
    """A18 (TR-13): a failed bola ends at the first trick lost and is a win with primeras (without
    the 100), plate taken; then the Jugador pays 100 (x2 in favour) to each other player (default
    ``bolaFailure: payBola``); ``none``: only the win."""
    result = finished(TR13)
    assert winners(result) == [1] * 6 + [2] and result["bola"] == "failed"
    assert result["outcome"] == "bolaFailed" and result["primeras"] is True and result["estuches"] == 3
    # roundUp5(estuches 3 + primeras 1 + jugar 5 = 9) = 10 from each (+30), the plate (+5), 100 to each (-300)
    assert result["net"] == [90 - 5, -265, 90, 90]
    assert result["table"] == FRESH
    assert under(TR13, {"bolaFailure": "none"})["net"] == [-10 - 5, 35, -10, -10]
    favor = finished(BOLA_FAILED_FAVOR)
    assert favor["favor"] is True and favor["estuches"] == 3 and favor["outcome"] == "bolaFailed"
    assert favor["net"] == [-20 + 200 - 5, 60 + 5 - 600, 180, 180]  # 9 -> 10, x2 = 20; 200 to each
    assert under(BOLA_FAILED_FAVOR, {"bolaFailure": "none"})["net"] == [-25, 65, -20, -20]


def test_a19_bola_collects_the_primeras_too():
    """A19: a bola made counts the primeras (1) and the bola (100) together (default
    ``primerasWithBola``); with the option off, the bola without the primeras."""
    result = finished(BOLA_MADE)
    assert winners(result) == [1] * 9 and result["outcome"] == "bola" and result["estuches"] == 0
    assert result["condiciones"] == [{"item": "primeras", "tantos": 1}, {"item": "bola", "tantos": 100},
                                     {"item": "jugar", "tantos": 5}]
    assert result["net"] == [-115, 3 * 110 + 5, -110, -110]  # 106 -> 110 each
    without = under(BOLA_MADE, {"primerasWithBola": False})
    assert without["net"] == [-110, 3 * 105 + 5, -105, -105]  # 105 each


# S1's entrada in bastos (a favor): tricks 1-5 with plain cards and planto; he holds 1e (no estuches).
FIRST_FIVE_BASTOS = ["1 12c, 2 7c, 3 6c", "1 12e, 2 3e, 3 4e", "1 12o, 2 7o, 3 6o", "1 11c, 2 5c, 3 4c",
                     "1 11e, 2 5e, 3 6e"]
PLANTO_FAVOR = hand("entrada bastos", [*FIRST_FIVE_BASTOS, "1 planto"], hold={1: "1e"})


def test_a21_favour_rounding_double_of_rounded_or_rounded_double():
    """A21: a favour amount is 2 x roundUp5(x) (default ``favorRounding: doubleOfRounded``) or
    roundUp5(2x) (``roundedDouble``), on a win and on a loss."""
    won = finished(PLANTO_FAVOR)
    assert won["outcome"] == "primeras" and won["favor"] is True and won["estuches"] == 0
    # primeras 1 + jugar 5 = 6: 2 x 10 = 20, or roundUp5(12) = 15, from each
    assert won["net"] == [-25, 65, -20, -20]
    assert under(PLANTO_FAVOR, {"favorRounding": "roundedDouble"})["net"] == [-20, 50, -15, -15]
    # lost with primeras against him: 1 -> 2 x 5 = 10, or roundUp5(2) = 5, to each; puesta 5 + 40
    lost = finished(PUESTA_FAVOR)
    assert lost["outcome"] == "puesta" and lost["primerasContra"] is True
    assert lost["net"] == [10 - 5, -30 - 45, 10, 10]
    assert under(PUESTA_FAVOR, {"favorRounding": "roundedDouble"})["net"] == [5 - 5, -15 - 45, 5, 5]


# ---- A20: primeras against the Jugador ----------------------------------------------------------------


def test_a20_primeras_contra_narrow_and_general():
    """A20: in a puesta the contra's first five count against the Jugador when he won every trick
    after them (default ``primerasContraRule: narrow``, the seed's patterns), or whatever followed
    (``general``)."""
    mixed = finished(MIXED_333)
    assert winners(mixed) == [2, 3, 2, 3, 2, 1, 3, 1, 1] and mixed["outcome"] == "puesta"
    assert mixed["primerasContra"] is False and mixed["net"] == [-5, -25, 0, 0]
    general = under(MIXED_333, {"primerasContraRule": "general"})
    assert general["primerasContra"] is True
    assert general["net"] == [5 - 5, -15 - 25, 5, 5]  # primeras 1 -> 5 to each
    # the seed's 4+1 pattern counts under both rules (favour: 1 -> 10 each)
    for rule in ("narrow", "general"):
        seed = under(PUESTA_FAVOR, {"primerasContraRule": rule})
        assert winners(seed) == [2, 2, 3, 2, 2, 1, 1, 1, 1]
        assert seed["primerasContra"] is True and seed["net"] == [10 - 5, -30 - 45, 10, 10]


# ---- A23: contraestuche -----------------------------------------------------------------------------

# S1's entrada in copas, tricks 1-5 with plain cards and planto, holding 10c of the trumps: none of
# 1e 7c 1b, nor 1c 12c 11c.
CONTRA_PLANTO = ["1 12o, 2 7o, 3 6o", "1 12e, 2 3e, 3 4e", "1 12b, 2 3b, 3 4b", "1 11o, 2 5o, 3 4o",
                 "1 11e, 2 5e, 3 6e", "1 planto"]
# A bola in copas by S1 holding no trump at all; the trumps sleep in the stock.
CONTRA_BOLA = hand("entrada copas", ["1 12o, 2 1o, 3 4o", "1 12e, 2 7e, 3 4e", "1 12b, 2 7b, 3 4b",
                                     "1 11o, 2 2o, 3 5o", "1 11e, 2 6e, 3 3e", "1 bola", "1 11b, 2 6b, 3 3b",
                                     "1 10o, 2 3o, 3 6o", "1 10e, 2 5e, 3 2e", "1 10b, 2 5b, 3 2b"])


def test_a23_contraestuche_symmetric_or_flat():
    """A23 (TR-8): a Jugador holding none of the three matadores counts 3 + the consecutive missing
    trumps after the basto, at most 5 unless he makes the bola (default ``contraestucheMode:
    symmetric``), or always 3 (``flat``); the estuche menor (mala, basto, punto without the
    espada) pays nothing."""
    six = finished(hand("entrada copas", CONTRA_PLANTO, hold={1: "10c"}))
    assert six["outcome"] == "primeras" and (six["estuches"], six["contraestuches"]) == (0, 5)  # 6, capped
    assert six["net"] == [-20, 50, -15, -15]  # 5 + primeras 1 + jugar 5 = 11 -> 15 each
    assert {"item": "contraestuches", "tantos": 5} in six["condiciones"]
    assert not any(c["item"] == "estuches" for c in six["condiciones"])
    flat = under(hand("entrada copas", CONTRA_PLANTO, hold={1: "10c"}), {"contraestucheMode": "flat"})
    assert flat["contraestuches"] == 3 and flat["net"] == [-15, 35, -10, -10]  # 9 -> 10 each
    four = finished(hand("entrada copas", CONTRA_PLANTO, hold={1: "12c"}))
    assert four["contraestuches"] == 4
    assert under(hand("entrada copas", CONTRA_PLANTO, hold={1: "12c"}), {"contraestucheMode": "flat"})["contraestuches"] == 3
    menor = finished(hand("entrada copas", CONTRA_PLANTO, hold={1: "7c 1b 1c"}))
    assert (menor["estuches"], menor["contraestuches"]) == (0, 0) and menor["net"] == [-15, 35, -10, -10]
    # a made bola lifts the cap: none of the twelve copas trumps is 12
    bola = finished(CONTRA_BOLA)
    assert bola["outcome"] == "bola" and bola["contraestuches"] == 12
    assert bola["net"] == [-125, 3 * 120 + 5, -120, -120]  # 12 + 1 + 100 + 5 = 118 -> 120 each
    flat = under(CONTRA_BOLA, {"contraestucheMode": "flat"})
    assert flat["contraestuches"] == 3 and flat["net"] == [-115, 3 * 110 + 5, -110, -110]  # 109 -> 110


# ---- A25, A26, A28, A30: the plate -----------------------------------------------------------------------


def test_a25_jugar_only_on_a_win():
    """A25: the 5 "for playing" is collected on a win and never paid on a loss."""
    won = finished(WIN_ORO)
    assert won["outcome"] == "sacada" and winners(won) == [2, 1, 1, 1, 1, 3, 1]
    assert won["condiciones"] == [{"item": "jugar", "tantos": 5}] and won["net"] == [-10, 20, -5, -5]
    lost = finished(PUESTA_ORO)
    assert lost["outcome"] == "puesta" and lost["seatTricks"] == [0, 4, 4, 1] and lost["primerasContra"] is False
    assert lost["condiciones"] == [] and lost["net"] == [-5, -25, 0, 0]  # the puesta only
    assert paid(lost) == [("seat 0", "plate", 5), ("seat 1", "plate", 25)]
    # a vuelta lost pays its 2 -> 5, not 2 + 5 -> 10 (VUELTA_PUESTA without favour)
    assert under(VUELTA_PUESTA, {"vueltaFavor": False})["net"] == [0, -40, 5, 5]


def test_a26_puesta_base_is_everything_in_the_plate():
    """A26: the puesta is reckoned on all the plate holds: this deal's 5, the 5s of annulled deals,
    the enchilada and a puesta already in it (then + 20 still, unless it is a reserved puesta)."""
    annulled = under(PUESTA_ORO, table={"plate": 15, "plateHolds": "none", "cartulina": []})
    assert annulled["net"] == [-5, -40, 0, 0]  # 15 + 5 + 20
    assert annulled["table"] == {"plate": 60, "plateHolds": "primera", "cartulina": []}
    enchilada = under(PUESTA_ORO, {"enchilada": 50}, table={"plate": 15, "plateHolds": "none", "cartulina": []})
    assert enchilada["net"] == [-55, 0, 0, 0]  # the enchilada is a puesta primera: this one is reserved
    assert enchilada["table"] == {"plate": 70, "plateHolds": "primera", "cartulina": [{"seat": 1, "amount": 90}]}
    primera = under(PUESTA_ORO, table=PRIMERA_30)
    assert primera["table"] == {"plate": 35, "plateHolds": "primera", "cartulina": [{"seat": 1, "amount": 55}]}
    reservada = under(PUESTA_ORO, table={"plate": 30, "plateHolds": "reservada", "cartulina": []})
    assert reservada["table"] == {"plate": 35, "plateHolds": "reservada", "cartulina": [{"seat": 1, "amount": 35}]}


def test_a28_enchilada_by_the_dealer_into_a_plate_without_puesta():
    """A28: with an enchilada, the dealer puts it into a plate holding no puesta; it counts as a
    puesta primera, so "jugar" is still collected; not when the plate holds a puesta, and not in
    an annulled hand."""
    result = under(WIN_ORO, {"enchilada": 25})
    assert ("seat 0", "plate", 25) in paid(result)
    assert result["net"] == [-5 - 25 - 5, 15 + 30, -5, -5]
    assert result["table"] == FRESH
    held = under(WIN_ORO, {"enchilada": 25}, table=PRIMERA_30)
    assert held["net"] == [-5 - 5, 15 + 35, -5, -5]
    annulled = {**WIN_ORO, "actions": ["1 paso", "2 paso", "3 paso"], "rules": {"enchilada": 25}}
    result = ok(annulled)
    assert result["finished"] and result["net"] == [-5, 0, 0, 0]
    assert result["table"] == {"plate": 5, "plateHolds": "none", "cartulina": []}


def test_a30_cartulina_largest_first_ties_oldest():
    """A30: when the plate is won, the largest cartulina entry is paid into it, the oldest among
    equals; the winner may owe it himself (seed section 21)."""
    table = {"plate": 40, "plateHolds": "primera",
             "cartulina": [{"seat": 2, "amount": 55}, {"seat": 3, "amount": 70}, {"seat": 0, "amount": 70}]}
    result = under(WIN_ORO, table=table)
    assert result["net"] == [-10, 15 + 45, -5, -5 - 70]
    assert result["table"] == {"plate": 70, "plateHolds": "reservada",
                               "cartulina": [{"seat": 2, "amount": 55}, {"seat": 0, "amount": 70}]}
    own = under(WIN_ORO, table={"plate": 40, "plateHolds": "primera", "cartulina": [{"seat": 1, "amount": 60}]})
    assert own["net"] == [-10, 15 + 45 - 60, -5, -5]
    assert own["table"] == {"plate": 60, "plateHolds": "reservada", "cartulina": []}


# ---- A36: three seats -------------------------------------------------------------------------------

# Dealer 0 at 3 seats: mano 1, medio 2, postre 0 (the dealer plays). The WIN tricks with seat 0 as
# the third player.
WIN3 = [t.replace("3 ", "0 ") for t in WIN]


def test_a36_tr15_three_seats():
    """A36, TR-15: at 3 seats the dealer is the postre, plays, and still puts 5 into the plate; the
    Jugador settles with the two others. TR-15: a solo sencillo with no extras, 25 from each of
    two."""
    solo = finished(hand("solo oros", WIN3, seats=3, hold={1: "1e"}))
    assert solo["outcome"] == "sacada" and winners(solo) == [2, 1, 1, 1, 1, 0, 1]
    assert solo["net"] == [-5 - 25, 50 + 5, -25]
    # the dealer as the Jugador: his own 5 goes in and comes back with the plate
    dealer = finished(hand("entrada oros", ["1 7c, 2 6c, 0 12c", "0 12e, 1 3e, 2 4e", "0 4b, 1 12b, 2 3b",
                                            "1 5c, 2 4c, 0 11c", "0 11e, 1 5e, 2 6e", "0 2b, 1 5b, 2 11b",
                                            "2 3c, 0 10c, 1 2c"], jugador=0, seats=3, hold={0: "1e"}))
    assert dealer["jugador"] == 0 and dealer["outcome"] == "sacada" and winners(dealer) == [0, 0, 1, 0, 0, 2, 0]
    assert dealer["net"] == [10 + 5 - 5, -5, -5]


# ---- section 10's accounting examples played out: TR-7, TR-8, TR-10, TR-11, TR-12 -------------------


def played_to(record: dict[str, Any]) -> dict[str, Any]:
    """The result of a record under the default ``stopWhenDecided``: the hand may end before its
    last action; the record is then cut where it ended (the next action is refused as too late)."""
    result = api.validate(record)
    if result["valid"]:
        assert result["finished"] is True
        return result
    late = result["violation"]["action"]
    assert result["violation"]["code"] == "NOT_ALLOWED_NOW"
    return finished({**record, "actions": record["actions"][:late]})


def built(winners_: list[int], calls: tuple[str, ...] = (), rules: dict[str, Any] | None = None) -> dict[str, Any]:
    """S1's entrada in oros on a fresh table, ``calls`` before the first lead, then nine tricks of
    one suit each (tresillo_support.build) won by ``winners_``."""
    hands, tricks = build("o", {}, winners_)
    return rec(hands, [*opening(1, "entrada oros"), *calls, *flat(tricks)], rules=rules, table=dict(FRESH))


# TR-7: (Jugador S1, S2, S3) tricks -> the class and the codillo giver; no trick order gives S1
# tricks 1-5 (no bola decision).
TR7 = {
    (5, 3, 1): ([2, 1, 1, 1, 1, 2, 3, 2, 1], "sacada", None),
    (4, 3, 2): ([1, 2, 1, 3, 2, 1, 3, 2, 1], "sacada", None),
    (4, 4, 1): ([2, 1, 2, 1, 2, 1, 2, 1, 3], "puesta", None),
    (4, 5, 0): ([2, 2, 1, 2, 1, 2, 1, 2, 1], "codillo", 2),
    (3, 3, 3): ([1, 2, 3] * 3, "puesta", None),
    (3, 4, 2): ([2, 1, 2, 3, 2, 1, 3, 2, 1], "codillo", 2),
    (2, 4, 3): ([2, 3, 2, 1, 3, 2, 3, 2, 1], "codillo", 2),
    (1, 4, 4): ([2, 3, 2, 3, 2, 3, 2, 3, 1], "puestaReal", None),
    (1, 5, 3): ([2, 2, 3, 2, 3, 2, 3, 2, 1], "codillo", 2),
    (0, 5, 4): ([2, 3, 2, 3, 2, 3, 2, 3, 2], "codillo", 2),
}


@pytest.mark.parametrize("split", list(TR7), ids=lambda s: "-".join(map(str, s)))
def test_tr07_each_split_played_out(split: tuple[int, int, int]):
    """TR-7 (7.1): each split of the example, played to the ninth trick (``stopWhenDecided:
    false``), has the example's class and codillo giver; with the default the hand ends as soon
    as the class is certain, with the same class and the same money."""
    order, outcome, giver = TR7[split]
    record = built(order, rules={"stopWhenDecided": False})
    result = finished(record)
    assert winners(result) == order
    assert result["seatTricks"] == [0, *split]
    assert result["outcome"] == outcome
    assert result.get("codilloTo") == giver
    early = played_to({**record, "rules": {}})
    assert (early["outcome"], early.get("codilloTo"), early["net"], early["table"]) == (outcome, giver, result["net"], result["table"])


# TR-8: S1's entrada in oros holding 1e 7o 1b 1o 12o, not 11o: tricks 1-5 and planto.
TR8_FIVE = hand("entrada oros", ["1 1e, 2 3o, 3 4o", "1 7o, 2 5o, 3 6o", "1 12c, 2 7c, 3 6c", "1 12e, 2 3e, 3 4e",
                                 "1 12b, 2 3b, 3 4b", "1 planto"], hold={1: "1b 1o 12o"})
# S1 holds the eight trumps in sequence 1e 7o 1b 1o 12o 11o 10o 2o, and 3b; S2 and S3 two small
# trumps each, which they give to his first two tricks. He goes on for the bola and takes all nine.
TR8_RUN = hand("entrada oros", ["1 1e, 2 3o, 3 4o", "1 7o, 2 5o, 3 6o", "1 1b, 2 12c, 3 12e", "1 1o, 2 11c, 3 11e",
                                "1 12o, 2 10c, 3 10e", "1 bola", "1 11o, 2 12b, 3 7c", "1 10o, 2 11b, 3 6c",
                                "1 2o, 2 10b, 3 5c", "1 3b, 2 2b, 3 4c"])


def test_tr08_estuches_played():
    """TR-8 (8.2) in played hands: 1e 7o 1b 1o 12o without 11o count 5; eight trumps in sequence
    count 5 on a stop after the first five, 8 in a bola made; in bastos, holding none of 1e 2b 1b
    but 12b is a contraestuche of 3, without 12b but with 11b of 4; 1e and 1b without the mala
    count nothing."""
    five = finished(TR8_FIVE)
    assert (five["outcome"], five["estuches"], five["contraestuches"]) == ("primeras", 5, 0)
    assert five["net"] == [-20, 50, -15, -15]  # 5 + primeras 1 + jugar 5 = 11 -> 15 each
    stop = finished({**TR8_RUN, "actions": [*TR8_RUN["actions"][:-13], "1 planto"]})
    assert winners(stop) == [1] * 5 and (stop["outcome"], stop["estuches"]) == ("primeras", 5)
    assert stop["net"] == [-20, 50, -15, -15]
    bola = finished(TR8_RUN)
    assert winners(bola) == [1] * 9 and (bola["outcome"], bola["estuches"]) == ("bola", 8)
    assert bola["net"] == [-120, 3 * 115 + 5, -115, -115]  # 8 + 1 + 100 + 5 = 114 -> 115 each
    for held, count in (("12b", 3), ("11b", 4)):
        contra = finished(hand("entrada bastos", [*FIRST_FIVE_BASTOS, "1 planto"], hold={1: held}))
        assert (contra["outcome"], contra["estuches"], contra["contraestuches"]) == ("primeras", 0, count), held
        assert contra["net"] == [-25, 65, -20, -20]  # 3 or 4 + 1 + 5 -> 10, x2 a favor = 20 each
    partial = finished(hand("entrada oros", [*FIRST_FIVE, "1 planto"], hold={1: "1e 1b"}))
    assert (partial["estuches"], partial["contraestuches"]) == (0, 0)
    assert partial["net"] == [-15, 35, -10, -10]  # primeras 1 + jugar 5 = 6 -> 10 each


def test_tr10_vuelta_turning_the_favour_suit_played():
    """TR-10 (A8, A21) played: a vuelta turning 4b (bastos = F) on a plate of 5, won with nothing
    extra: 5 + 2 = 7 -> 10, x2 = 20 from each (``favorRounding: roundedDouble``: roundUp5(14) =
    15); lost by a puesta: 2 -> 5, x2 = 10 to each, and the puesta 5 + 40 = 45 into the plate."""
    won = finished(VUELTA_WIN)
    assert (won["turnUp"], won["favor"], won["outcome"]) == ("4b", True, "sacada")
    assert won["net"] == [-25, 3 * 20 + 5, -20, -20]
    rounded = under(VUELTA_WIN, {"favorRounding": "roundedDouble"})
    assert rounded["net"] == [-20, 3 * 15 + 5, -15, -15]
    assert sorted(paid(rounded)) == sorted([("seat 0", "plate", 5), ("seat 0", "seat 1", 15), ("seat 2", "seat 1", 15),
                                            ("seat 3", "seat 1", 15), ("plate", "seat 1", 5)])
    lost = finished(VUELTA_PUESTA)
    assert (lost["outcome"], lost["favor"]) == ("puesta", True)
    assert sorted(paid(lost)) == sorted([("seat 0", "plate", 5), ("seat 1", "seat 0", 10), ("seat 1", "seat 2", 10),
                                         ("seat 1", "seat 3", 10), ("seat 1", "plate", 45)])
    assert lost["table"] == {"plate": 50, "plateHolds": "primera", "cartulina": []}


# TR-11: S1's entrada in oros surrendered before the first lead, S2 bien, S3 defiendo: the defender
# S3 (d), the rendido S1 (r), the mano pobre S2 (p). Tricks in order, the split, net, plate after,
# and the payments besides the dealer's 5.
TR11 = {
    "dWin": ([3, 1, 3, 2, 3, 1, 3, 2, 3], (5, 2, 2), [-5, -25, 0, 25], (5, "none"), [("seat 1", "seat 3", 25)]),
    "dPuesta": ([3, 1, 3, 1, 3, 1, 3, 1, 2], (4, 4, 1), [-5, -25, 0, -25], (55, "primera"),
                [("seat 1", "plate", 25), ("seat 3", "plate", 25)]),
    "dCodilloR": ([1, 2, 1, 3, 2, 1, 2, 1, 3], (2, 4, 3), [-5, 0, 0, -25], (30, "primera"), [("seat 3", "plate", 25)]),
    "dCodilloP": ([2, 1, 2, 3, 2, 1, 2, 3, 2], (2, 2, 5), [-5, -25, 25, -25], (30, "primera"),
                  [("seat 1", "plate", 25), ("seat 3", "seat 2", 25)]),
}
DEFENDED_BY_3 = ("1 rindo", "2 bien", "3 defiendo")


def test_tr11_entrada_rendida_accepted_played():
    """TR-11 (8.7): plate 5 (none), entrada sencilla, P = 5 + 20 = 25: both say bien, the rendido
    pays 25 into the plate, which then holds a puesta primera of 30."""
    result = finished(built([], calls=("1 rindo", "2 bien", "3 bien")))
    assert (result["outcome"], result["rendido"]) == ("rendida", 1) and result["tricks"] == []
    assert paid(result) == [("seat 0", "plate", 5), ("seat 1", "plate", 25)]
    assert result["net"] == [-5, -25, 0, 0] and result["condiciones"] == []
    assert result["table"] == {"plate": 30, "plateHolds": "primera", "cartulina": []}


@pytest.mark.parametrize("outcome", list(TR11))
def test_tr11_entrada_rendida_defended_played(outcome: str):
    """TR-11 (7.4, 8.7): the four defended outcomes at the example's splits (d, r, p), played to
    the ninth trick, no condiciones: D-WIN, the rendido pays 25 to the defender, plate 5 none;
    D-PUESTA, both pay 25 into the plate (55 primera); D-CODILLO-R, the defender pays 25 into it
    (30 primera); D-CODILLO-P, the rendido pays 25 into it (30 primera) and the defender 25 to the
    mano pobre. With the default ``stopWhenDecided`` the hand ends earlier with the same money."""
    order, (d, r, p), net, (plate, holds), moved = TR11[outcome]
    record = built(order, calls=DEFENDED_BY_3, rules={"stopWhenDecided": False})
    result = finished(record)
    assert (result["rendido"], result["defender"]) == (1, 3)
    assert winners(result) == order and result["seatTricks"] == [0, r, p, d]
    assert result["outcome"] == outcome and result.get("codilloTo") == (2 if outcome == "dCodilloP" else None)
    assert sorted(paid(result)) == sorted([("seat 0", "plate", 5), *moved])
    assert result["net"] == net and result["condiciones"] == []
    assert result["table"] == {"plate": plate, "plateHolds": holds, "cartulina": []}
    early = played_to({**record, "rules": {}})
    assert (early["outcome"], early["net"], early["table"]) == (outcome, net, result["table"])


# TR-12: S1's vuelta turns 2o; holding 1e 7o 1b 1o 12o he discards 6b 7b and draws 5c; he wins
# tricks 1 and 2, then surrenders.
TR12 = hand("vuelta", ["1 12c, 2 7c, 3 6c", "1 12e, 2 3e, 3 4e", "1 rindo"], hold={1: "1e 7o 1b 1o 12o 2o 5c"},
            vuelta=("2o", "5c", "6b 7b"), table=PRIMERA_30)


def test_tr12_vuelta_rendida_played():
    """TR-12 (8.7): on a plate of 35 holding a puesta primera, a vuelta (turned 2o, not favour)
    surrendered after trick 2 pays the vuelta's 2 -> 5 to each other player, estuches ignored,
    and its puesta 35 + 20 = 55 goes onto the cartulina; the hand ends, nobody may defend it."""
    result = finished(TR12)
    assert (result["lance"], result["turnUp"], result["favor"], result["outcome"]) == ("vuelta", "2o", False, "rendida")
    assert "solera" not in result and winners(result) == [1, 1]
    assert result["estuches"] == 0 and result["condiciones"] == [{"item": "vuelta", "tantos": 2}]
    assert sorted(paid(result)) == sorted([("seat 0", "plate", 5), ("seat 1", "seat 0", 5), ("seat 1", "seat 2", 5),
                                           ("seat 1", "seat 3", 5)])
    assert result["net"] == [0, -15, 5, 5]
    assert result["table"] == {"plate": 35, "plateHolds": "primera", "cartulina": [{"seat": 1, "amount": 55}]}
    for answer in ("2 bien", "2 defiendo"):
        assert violation({**TR12, "actions": [*TR12["actions"], answer]}) == (len(TR12["actions"]), "NOT_ALLOWED_NOW")
