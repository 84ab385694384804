"""The decisions of rules/tresillo.md for the auction, the exchange and the play: section 0
(sequencing, codes), the ambiguities A1-A14, A31-A33, A38-A40 of section 9, each default and
each option through the record's ``rules`` object (API names as in engine/tresillo.py's
``Options``), and Appendix B2 (the actions of each phase).

Dealer 0 at 4 seats unless stated: mano 1, medio 2, postre 3, seat 0 is the alcalde. Favour suit
bastos (the default) unless stated.
"""

from __future__ import annotations

import re
from math import comb

import pytest
from examples_support import examples_dir
from results_support import cards_of, legal, legal_of, ok, violation, winners
from tresillo_support import STD, WORD, build, flat, more, opening, rec, trick7

from engine import api
from engine.errors import InvalidInput

STD_STOCK = "10o 4c 5c 6c 7c 2e 3e 5e 6e 4b 6b 7b 10b"  # the rest of the deck, canonical order
# The same cards with the espada in the medio's hand.
STD2 = ["", STD[2], STD[1], STD[3]]
SOLOS = {"solo oros", "solo copas", "solo espadas", "solo bastos"}
ENTRADAS = {"entrada oros", "entrada copas", "entrada espadas", "entrada bastos"}
MANO_WINS = ["1 juego", "2 paso", "3 paso"]


def at(seat: int, calls: set[str] | list[str]) -> set[str]:
    return {f"{seat} {c}" for c in calls}


def descartes(result: dict, seat: int) -> set[str]:
    return {a for a in legal_of(result, seat) if a.split()[0] == "descarte"}


def subsets_up_to(k: int, n: int = 9) -> int:
    return sum(comb(n, i) for i in range(k + 1))


def hand(tricks_and_final, *, jugador: int = 1, lance: str = "entrada oros", rules: dict | None = None,
         discards: dict[int, str] | None = None, stock_top: str = "", contra: str | None = "contra"):
    """(record of the whole built hand, index of the first card) for a hand whose filler tricks
    are won by ``tricks_and_final[0]`` with final cards ``tricks_and_final[1]``."""
    wins, final = tricks_and_final
    trump = stock_top[-1] if lance == "vuelta" else lance.split()[1][0]  # oros -> o, copas -> c, ...
    hands, tricks = build(trump, final, wins, stock_top=stock_top)
    op = opening(jugador, lance, discards=discards, contra=contra)
    return rec(hands, [*op, *flat(tricks)], rules=rules, stock_top=stock_top), len(op)


def cut(record: dict, n: int) -> dict:
    return {**record, "actions": record["actions"][:n]}


def swap(record: dict, n: int, action: str) -> dict:
    """The record up to action n, with ``action`` as action n."""
    return {**record, "actions": [*record["actions"][:n], action]}


# ---- A1: which lead forces a lone lower matador --------------------------------------------------


def test_a01_hand_mano_forces_by_default():
    # The hand's mano leads the espada: the lone mala is forced (TR-5 b).
    assert cards_of(ok(trick7("o", 1, ["1 1e"], 2, "7o 3c 12b")), 2) == {"7o"}
    # The medio leads it (trick 7 won by him): not the hand's mano, no forcing.
    assert cards_of(ok(trick7("o", 2, ["2 1e"], 3, "7o 3c 12b")), 3) == {"7o", "3c", "12b"}
    # The mala led by the mano forces a lone basto (the mala ranks above it).
    assert cards_of(ok(trick7("o", 1, ["1 7o"], 2, "1b 3c 12e")), 2) == {"1b"}


def test_a01_option_trick_leader():
    rules = {"matadorForcing": "trickLeader"}
    assert cards_of(ok(trick7("o", 2, ["2 1e"], 3, "7o 3c 12b", rules)), 3) == {"7o"}
    assert cards_of(ok(trick7("o", 3, ["3 1e"], 1, "7o 3c", rules)), 1) == {"7o"}
    record = trick7("o", 2, ["2 1e"], 3, "7o 3c 12b", rules)
    assert violation(more(record, "3 12b")) == (len(record["actions"]), "MUST_PLAY_TRUMP")
    # Still only a higher matador led forces: a small trump led leaves the lone mala free.
    assert cards_of(ok(trick7("o", 2, ["2 4o"], 3, "7o 3c 12b", rules)), 3) == {"7o", "3c", "12b"}


# ---- A2: several matadores, no ordinary trump ------------------------------------------------------


def test_a02_multi_matador_renege_default_and_option():
    # Mala and basto against the espada led by the mano (TR-5 l).
    assert cards_of(ok(trick7("o", 1, ["1 1e"], 2, "7o 1b 3c")), 2) == {"7o", "1b", "3c"}
    rules = {"multiMatadorRenege": False}
    assert cards_of(ok(trick7("o", 1, ["1 1e"], 2, "7o 1b 3c", rules)), 2) == {"7o", "1b"}
    # Espada and basto against the mala: only the basto is forced (the espada ranks above the mala),
    # and with the option the Ombre reading "it or another trump" lets the espada be played.
    assert cards_of(ok(trick7("o", 1, ["1 7o"], 2, "1e 1b 2c")), 2) == {"1e", "1b", "2c"}
    assert cards_of(ok(trick7("o", 1, ["1 7o"], 2, "1e 1b 2c", rules)), 2) == {"1e", "1b"}
    # An ordinary trump beside the matadores: a trump must be played either way.
    assert cards_of(ok(trick7("o", 1, ["1 1e"], 2, "7o 5o 3c")), 2) == {"7o", "5o"}


# ---- A3: the espada and the basto are not of their printed suit ------------------------------------


def test_a03_espada_does_not_follow_espadas():
    record = trick7("c", 1, ["1 5e"], 2, "1e 7e 3o")
    n = len(record["actions"])
    assert cards_of(ok(record), 2) == {"7e"}
    assert violation(more(record, "2 1e")) == (n, "MUST_FOLLOW_SUIT")
    assert violation(more(record, "2 3o")) == (n, "MUST_FOLLOW_SUIT")
    ok(more(record, "2 7e"))
    # Holding only the espada among the espadas is being void: anything goes (TR-5 h).
    assert cards_of(ok(trick7("c", 1, ["1 5e"], 2, "1e 3o")), 2) == {"1e", "3o"}


def test_a03_basto_does_not_follow_bastos():
    record = trick7("o", 1, ["1 5b"], 2, "1b 7b 3c")
    assert cards_of(ok(record), 2) == {"7b"}
    assert violation(more(record, "2 1b")) == (len(record["actions"]), "MUST_FOLLOW_SUIT")
    assert cards_of(ok(trick7("o", 1, ["1 5b"], 2, "1b 3c 4c")), 2) == {"1b", "3c", "4c"}
    # The espada led is a trump lead even when espadas is a plain suit: espadas cards do not follow it.
    record = trick7("c", 1, ["1 1e"], 2, "7e 6e 5c")
    assert cards_of(ok(record), 2) == {"5c"}
    assert violation(more(record, "2 7e")) == (len(record["actions"]), "MUST_PLAY_TRUMP")


# ---- A4, A5, A6, A39: the auction ------------------------------------------------------------------


def test_a04_priority_mano_only_by_default():
    voices = ["1 paso", "2 juego", "3 mas", "2 mas", "3 paso"]
    result = ok(rec(STD, voices))
    assert legal(result) == at(2, {"vuelta"} | SOLOS)  # the medio's más raised to 3


def test_a04_priority_positional():
    rules = {"auctionPriority": "positional"}
    result = ok(rec(STD, ["1 paso", "2 juego", "3 mas", "2 mas", "3 paso"], rules=rules))
    assert legal(result) == at(2, {"entrada bastos", "vuelta"} | SOLOS)  # he held the postre's 2
    # The medio holds the postre's bids up to the top.
    voices = ["1 paso", "2 juego", "3 mas", "2 mas", "3 mas", "2 mas", "3 mas", "2 mas", "3 mas"]
    result = ok(rec(STD, voices, rules=rules))
    assert legal(result) == {"2 paso", "2 mas"}
    result = ok(rec(STD, [*voices, "2 mas"], rules=rules))
    assert legal(result) == {"3 paso"}
    result = ok(rec(STD, [*voices, "2 mas", "3 paso"], rules=rules))
    assert legal(result) == {"2 solo bastos"}
    # The medio's más over the mano still raises.
    result = ok(rec(STD, ["1 juego", "2 mas", "3 paso", "1 paso"], rules=rules))
    assert legal(result) == at(2, {"entrada bastos", "vuelta"} | SOLOS)
    # The same nine voices with manoOnly: the medio's más raise, and 3 is stopped at 5 earlier.
    assert violation(rec(STD, voices)) == (6, "NOT_ALLOWED_NOW")


def test_a05_pass_is_final():
    voices = ["1 juego", "2 paso", "3 mas"]
    result = ok(rec(STD, voices))
    assert result["next"]["seat"] == 1
    assert violation(rec(STD, [*voices, "2 mas"])) == (3, "NOT_YOUR_TURN")
    result = ok(rec(STD, [*voices, "1 mas"]))
    assert result["next"]["seat"] == 3  # the passed medio is skipped
    assert legal(result) == {"3 paso", "3 mas"}
    assert violation(rec(STD, [*voices, "1 mas", "2 mas"])) == (4, "NOT_YOUR_TURN")
    assert violation(rec(STD, [*voices, "1 mas", "2 paso"])) == (4, "NOT_YOUR_TURN")
    result = ok(rec(STD, [*voices, "1 mas", "3 paso"]))
    assert result["next"]["seat"] == 1
    assert legal(result) == at(1, {"entrada bastos", "vuelta"} | SOLOS)  # the mano won at level 2


def test_a05_no_jump_bids():
    # A más raises one level only: after juego, más (2), más (3) the level is 3, not higher.
    result = ok(rec(STD, ["1 juego", "2 mas", "3 mas", "1 paso", "2 paso"]))
    assert legal(result) == at(3, {"vuelta"} | SOLOS)


def test_a06_declaring_above_the_level_reached():
    result = ok(rec(STD, MANO_WINS))
    assert result["next"]["seat"] == 1
    assert legal(result) == at(1, ENTRADAS | {"vuelta"} | SOLOS)
    for lance in ("entrada copas", "entrada bastos", "vuelta", "solo oros", "solo bastos"):
        ok(rec(STD, [*MANO_WINS, f"1 {lance}"]))
    # Below the level reached: not allowed.
    voices = ["1 juego", "2 mas", "3 mas", "1 paso", "2 paso"]  # the postre at 3
    for lance in ("entrada oros", "entrada bastos"):
        assert violation(rec(STD, [*voices, f"3 {lance}"])) == (5, "NOT_ALLOWED_NOW")
    # Only the Jugador declares.
    assert violation(rec(STD, [*voices, "2 vuelta"])) == (5, "NOT_YOUR_TURN")


def test_a39_juego_only_while_nobody_has_bid():
    assert violation(rec(STD, ["1 juego", "2 juego"])) == (1, "NOT_ALLOWED_NOW")
    assert violation(rec(STD, ["1 paso", "2 juego", "3 juego"])) == (2, "NOT_ALLOWED_NOW")
    assert violation(rec(STD, ["1 mas"])) == (0, "NOT_ALLOWED_NOW")  # más needs a bid to top
    assert legal(ok(rec(STD))) == {"1 paso", "1 juego"}
    # A late opener: the postre's juego after two passes wins the auction at once.
    result = ok(rec(STD, ["1 paso", "2 paso", "3 juego"]))
    assert result["next"]["seat"] == 3
    assert legal(result) == at(3, ENTRADAS | {"vuelta"} | SOLOS)


# ---- A7, A40: the favour suit ---------------------------------------------------------------------------


@pytest.mark.parametrize("favor", ["oros", "copas", "espadas", "bastos"])
def test_a07_favour_suit_is_level_two(favor: str):
    rules = {"favorSuit": favor}
    result = ok(rec(STD, ["1 juego", "2 mas", "3 paso", "1 paso"], rules=rules))
    assert legal(result) == at(2, {f"entrada {favor}", "vuelta"} | SOLOS)
    # Level 5: the solo in the favour suit only.
    voices = ["1 juego", "2 mas", "3 mas", "1 mas", "2 mas", "3 paso", "1 mas", "2 mas", "1 mas", "2 paso"]
    assert legal(ok(rec(STD, voices, rules=rules))) == {f"1 solo {favor}"}


def test_a07_no_favour_suit():
    rules = {"favorSuit": "none"}
    result = ok(rec(STD, ["1 juego", "2 mas", "3 paso", "1 paso"], rules=rules))
    assert legal(result) == at(2, {"vuelta"} | SOLOS)
    result = ok(rec(STD, MANO_WINS, rules=rules))
    assert legal(result) == at(1, ENTRADAS | {"vuelta"} | SOLOS)


def test_a07_favour_suit_values():
    for bad in ("oro", "Bastos", "null", "", None, 1, True):
        with pytest.raises(InvalidInput) as err:
            api.validate(rec(STD, rules={"favorSuit": bad}))
        assert (err.value.code, err.value.field) == ("INVALID_OPTION_VALUE", "rules.favorSuit"), bad


def planto_hand(trump: str) -> dict:
    """The mano's entrada in ``trump``; he holds the espada and the basto but not the mala of oros
    or bastos (no estuches either way), wins tricks 1-5 with plain cards and stops."""
    hands, tricks = build(trump, {1: "1e 1b"}, [1] * 5, suits="ce", reserve="7o 2b")
    return rec(hands, [*opening(1, f"entrada {WORD[trump]}"), *flat(tricks), "1 planto"])


def test_a40_entrada_in_the_favour_suit_at_level_one():
    assert "1 entrada bastos" in legal(ok(rec(STD, MANO_WINS)))
    sencilla = ok(planto_hand("o"))
    favor = ok(planto_hand("b"))
    assert sencilla["finished"] and favor["finished"]
    # Primeras 1 + jugar 5 -> 10 from each of the three others; a favor, twice that.
    assert sencilla["net"] == [-15, 35, -10, -10]
    assert favor["net"] == [-25, 65, -20, -20]


# ---- A9, A10, A11: the vuelta --------------------------------------------------------------------------


def test_a09_vuelta_solera_allowed():
    record = rec(STD, [*MANO_WINS, "1 vuelta"], stock_top="4b")
    result = ok(record)
    assert result["next"]["seat"] == 1
    listed = descartes(result, 1)
    assert len(listed) == 2 ** 9 - 1  # one to nine of his nine dealt cards, never none
    assert "descarte" not in listed and "descarte 5b" in listed
    assert violation(more(record, "1 descarte")) == (4, "NOT_ALLOWED_NOW")
    solera = ok(more(record, "1 descarte 5b"))
    assert legal(solera) == {"2 contra", "2 cedo"}
    for rules in ({"vueltaSoleraAllowed": False}, {"vueltaSoleraAllowed": True}):
        ok({**more(record, "1 descarte 5b"), "rules": rules})
    # He keeps 9 cards: the turned 4b in, the 5b out, nothing drawn.
    played = ok(more(record, "1 descarte 5b", "2 contra", "2 descarte", "3 descarte"))
    assert cards_of(played, 1) == set("1e 7o 1b 1o 12o 11o 3c 4e 4b".split())


def test_4_reveal_discard_count_off_keeps_the_counts_private():
    """4 [CFG:revealDiscardCount=false]: the number each seat exchanges is private, so no view
    gives it, neither as ``exchanged`` nor as what is left of the baceta once a seat has
    exchanged; before any exchange the baceta's size is the deal's, public either way."""
    from engine import api

    before = rec(STD, [*MANO_WINS, "1 entrada oros"])
    after = more(before, "1 descarte 5b 3c 4e")
    for rules, private in (({}, False), ({"revealDiscardCount": True}, False), ({"revealDiscardCount": False}, True)):
        for seat in (1, 2, 3):
            view = api.legal_actions({**before, "rules": rules}, seat)["view"]
            assert view["stockSize"] == 13 and "exchanged" not in view
            view = api.legal_actions({**after, "rules": rules}, seat)["view"]
            if private:
                assert "stockSize" not in view and "exchanged" not in view, view
            else:
                assert view["stockSize"] == 10 and view["exchanged"][1] == 3
        assert ("exchanged" in ok({**after, "rules": rules})) is not private


def test_a09_solera_surrender_forbidden_only_while_it_counts_as_a_solera():
    exchanged = rec(STD, [*MANO_WINS, "1 vuelta", "1 descarte 5b", "2 contra", "2 descarte", "3 descarte"], stock_top="4b")
    forbidden = {"soleraSurrender": "forbidden"}
    assert "1 rindo" in legal(ok(exchanged))
    assert "1 rindo" not in legal(ok({**exchanged, "rules": forbidden}))
    assert violation({**more(exchanged, "1 rindo"), "rules": forbidden}) == (len(exchanged["actions"]), "NOT_ALLOWED_NOW")
    # vueltaSoleraAllowed off: a one-card vuelta is a plain vuelta everywhere, and any vuelta may
    # be surrendered (7.4), paid as by default: the turned 4b makes it a favor, 10 to each of the
    # three others (the alcalde's less his 5 to the plate), and the Jugador's puesta of 45.
    plain = {**forbidden, "vueltaSoleraAllowed": False}
    assert "1 rindo" in legal(ok({**exchanged, "rules": plain}))
    rendida = ok({**more(exchanged, "1 rindo"), "rules": plain})
    assert rendida["finished"] and rendida["outcome"] == "rendida"
    assert rendida["net"] == ok(more(exchanged, "1 rindo"))["net"] == [-5 + 10, -30 - 45, 10, 10]


def test_a37_surrendered_vuelta_rounding_option():
    """A37 / 8.7: the vuelta solera above, turned 4b (bastos, the favour suit), surrendered at once
    (paid as a vuelta). Under ``favorRounding: roundedDouble`` its 2 pays roundUp5(4) = 5 to each
    of the three others (default ``surrenderedVueltaRounding: asFavorRounding``) or the seed's
    rounded 5 doubled, 10 (``doubleOfRounded``); the puesta is 5 + 40 = 45 either way. ValidateHand
    and SettleHand agree; a wrong value is refused naming the option."""
    exchanged = rec(STD, [*MANO_WINS, "1 vuelta", "1 descarte 5b", "2 contra", "2 descarte", "3 descarte"], stock_top="4b")
    record = more(exchanged, "1 rindo")
    summary = {"jugador": 1, "lance": "vuelta", "trump": "bastos", "solera": True, "tricks": [], "surrender": "accepted"}
    for rules, net in (({"favorRounding": "roundedDouble"}, [-5 + 5, -15 - 45, 5, 5]),
                       ({"favorRounding": "roundedDouble", "surrenderedVueltaRounding": "asFavorRounding"}, [-5 + 5, -15 - 45, 5, 5]),
                       ({"favorRounding": "roundedDouble", "surrenderedVueltaRounding": "doubleOfRounded"}, [-5 + 10, -30 - 45, 10, 10]),
                       ({"surrenderedVueltaRounding": "doubleOfRounded"}, [-5 + 10, -30 - 45, 10, 10]),
                       ({"favorRounding": "roundedDouble", "surrenderedVueltaRounding": "doubleOfRounded", "vueltaFavor": False},
                        [-5 + 5, -15 - 25, 5, 5])):
        result = ok({**record, "rules": rules})
        assert result["outcome"] == "rendida" and result["net"] == net, rules
        settled = api.settle_hand({"game": "tresillo", "seats": 4, "dealer": 0, "rules": rules, "tresillo": summary})
        assert (settled["net"], settled["payments"]) == (result["net"], result["payments"]), rules
    with pytest.raises(InvalidInput) as err:
        api.validate({**record, "rules": {"surrenderedVueltaRounding": "roundedDouble"}})
    assert (err.value.code, err.value.field) == ("INVALID_OPTION_VALUE", "rules.surrenderedVueltaRounding")


def test_a09_vuelta_discards_k_draws_k_minus_one():
    record = rec(STD, [*MANO_WINS, "1 vuelta", "1 descarte 3c 4e 5b", "2 contra", "2 descarte", "3 descarte"], stock_top="4b")
    # 4b turned and kept; 3c 4e 5b out; two drawn from the stock after the 4b: 10o 4c.
    assert cards_of(ok(record), 1) == set("1e 7o 1b 1o 12o 11o 4b 10o 4c".split())
    # All nine dealt cards out: eight drawn.
    all9 = "1o 7o 11o 12o 3c 1e 4e 1b 5b"
    record = rec(STD, [*MANO_WINS, "1 vuelta", f"1 descarte {all9}", "2 contra"], stock_top="4b")
    result = ok(record)
    assert len(descartes(result, 2)) == subsets_up_to(4)  # 12 after the turn, 8 drawn: 4 left


def test_a10_vuelta_turning_the_espada_makes_espadas_trump():
    hands = ["", "5o 1o 12o 11o 3c 4c 5b 6b 7b", "3e 12c 11c 10c 12e 11e 12b 2c 7c", "4o 6o 1c 5c 10e 7e 2b 3b 11b"]
    record = rec(hands, [*MANO_WINS, "1 vuelta", "1 descarte 7b", "2 contra", "2 descarte", "3 descarte",
                         "1 5o", "2 3e", "3 4o"], stock_top="1e")
    result = ok(record)
    if "trump" in result:
        assert result["trump"] == "espadas"
    assert winners(result) == [2]  # the 3e is a trump; in any other trump the 4o would win
    # The espada is in the Jugador's hand.
    assert "1e" in cards_of(ok(cut(record, 8)), 1)


def test_a11_turned_card_is_kept():
    record = rec(STD, [*MANO_WINS, "1 vuelta"], stock_top="4b")
    assert not any("4b" in a for a in descartes(ok(record), 1))
    assert violation(more(record, "1 descarte 4b")) == (4, "NOT_ALLOWED_NOW")
    assert violation(more(record, "1 descarte 4b 5b")) == (4, "NOT_ALLOWED_NOW")
    opt = {**record, "rules": {"vueltaTurnedCardDiscardable": True}}
    listed = descartes(ok(opt), 1)
    assert "descarte 4b" in listed and "descarte 3c 4b" in listed and "descarte 5b" in listed
    ok(more(opt, "1 descarte 4b"))


# ---- A12: discard limits; section 0: discard codes and the draw ---------------------------------------


def test_a12_entrada_min_discard_default_zero():
    record = rec(STD, [*MANO_WINS, "1 entrada oros"])
    result = ok(record)
    listed = descartes(result, 1)
    assert len(listed) == 2 ** 9
    assert len(legal(result)) == 2 ** 9  # nothing else: no surrender before the exchange is over
    assert {"descarte", "descarte 3c", "descarte 3c 4e 5b", "descarte 12o 1e",
            "descarte 1o 7o 11o 12o 3c 1e 4e 1b 5b"} <= listed
    assert "descarte 1e 12o" not in listed  # listed in canonical order
    ok(more(record, "1 descarte"))


def test_a12_entrada_min_discard_one():
    record = {**rec(STD, [*MANO_WINS, "1 entrada oros"]), "rules": {"entradaMinDiscard": 1}}
    listed = descartes(ok(record), 1)
    assert len(listed) == 2 ** 9 - 1 and "descarte" not in listed
    assert violation(more(record, "1 descarte")) == (4, "NOT_ALLOWED_NOW")
    ok(more(record, "1 descarte 5b"))


def test_a12_opponents_limited_by_the_stock():
    all9 = "1o 7o 11o 12o 3c 1e 4e 1b 5b"
    record = rec(STD, [*MANO_WINS, "1 entrada oros", f"1 descarte {all9}", "2 contra"])
    result = ok(record)
    assert len(descartes(result, 2)) == subsets_up_to(4)  # 4 cards left in the stock
    assert violation(more(record, "2 descarte 2o 3o 4o 12c 11c")) == (6, "NOT_ALLOWED_NOW")
    record = more(record, "2 descarte 2o 3o 4o 12c")
    result = ok(record)
    assert legal(result) == {"3 descarte"}  # nothing left to draw
    assert violation(more(record, "3 descarte 5o")) == (7, "NOT_ALLOWED_NOW")
    played = ok(more(record, "3 descarte"))
    # The draws come from the top of the stock, in order.
    assert cards_of(played, 1) == set("10o 4c 5c 6c 7c 2e 3e 5e 6e".split())
    assert violation(more(record, "3 descarte", "1 1e")) == (8, "CARD_NOT_IN_HAND")
    # The medio drew the last four.
    assert violation(more(record, "3 descarte", "1 10o", "2 2o")) == (9, "CARD_NOT_IN_HAND")
    ok(more(record, "3 descarte", "1 6e", "2 12e"))



def test_a_lance_names_one_suit_or_cannot_be_read():
    """FORMAT.md section 4: entrada and solo name one suit, spelled out; anything else is an
    action that cannot be read (MALFORMED_ACTION), not a lance the phase refuses."""
    record = rec(STD, MANO_WINS)
    assert ok(more(record, "1 entrada oros"))["valid"] and ok(more(record, "1 SOLO  Copas"))["valid"]
    for bad in ("1 entrada", "1 entrada oro", "1 entrada o", "1 solo oros copas", "1 solo 1o", "1 vuelta oros"):
        assert violation(more(record, bad)) == (3, "MALFORMED_ACTION"), bad

def test_descarte_codes_and_card_order():
    record = rec(STD, [*MANO_WINS, "1 entrada oros"])
    assert record["deal"]["stock"] == STD_STOCK
    assert violation(more(record, "1 descarte 2c")) == (4, "CARD_NOT_IN_HAND")
    assert violation(more(record, "1 descarte 3c 2c")) == (4, "CARD_NOT_IN_HAND")
    assert violation(more(record, "1 descarte 3c 3c")) == (4, "MALFORMED_ACTION")
    assert violation(more(record, "1 descarte 8c")) == (4, "MALFORMED_ACTION")
    # Cards in any order are the same exchange.
    a = ok(more(record, "1 descarte 5b 3c", "2 contra", "2 descarte", "3 descarte"))
    b = ok(more(record, "1 descarte 3c 5b", "2 contra", "2 descarte", "3 descarte"))
    assert cards_of(a, 1) == cards_of(b, 1) == set("1e 7o 1b 1o 12o 11o 4e 10o 4c".split())
    # A descarte outside the exchange, or by a seat not exchanging now.
    assert violation(rec(STD, [*MANO_WINS, "1 descarte"])) == (3, "NOT_ALLOWED_NOW")
    assert violation(more(record, "2 descarte")) == (4, "NOT_YOUR_TURN")


# ---- A13: who exchanges first among the opponents ------------------------------------------------------


def test_a13_right_chooses_contra():
    record = rec(STD, [*MANO_WINS, "1 entrada oros", "1 descarte"])
    result = ok(record)
    assert legal(result) == {"2 contra", "2 cedo"}
    assert violation(more(record, "3 contra")) == (5, "NOT_YOUR_TURN")
    assert violation(more(record, "2 descarte")) == (5, "NOT_ALLOWED_NOW")
    result = ok(more(record, "2 contra"))
    assert result["next"]["seat"] == 2 and descartes(result, 2)
    assert ok(more(record, "2 contra", "2 descarte"))["next"]["seat"] == 3
    # Trick play starts with the mano.
    assert ok(more(record, "2 contra", "2 descarte", "3 descarte"))["next"]["seat"] == 1


def test_a13_right_chooses_cedo():
    record = rec(STD, [*MANO_WINS, "1 entrada oros", "1 descarte", "2 cedo"])
    assert ok(record)["next"]["seat"] == 3
    assert violation(more(record, "2 descarte")) == (6, "NOT_YOUR_TURN")
    assert ok(more(record, "3 descarte 5o"))["next"]["seat"] == 2
    # The stock goes to the first exchanger first: the 3 drew 10o, the 2 draws 4c next.
    done = more(record, "3 descarte 5o", "2 descarte 2o", "1 3c")
    assert ok(done)["next"]["seat"] == 2
    assert violation(more(done, "2 10o")) == (9, "CARD_NOT_IN_HAND")
    ok(more(done, "2 4c"))


def test_a13_asked_seat_is_the_active_one_after_the_jugador():
    # The postre is Jugador: the mano is asked (the alcalde is skipped).
    record = rec(STD, ["1 paso", "2 paso", "3 juego", "3 entrada copas", "3 descarte"])
    assert legal(ok(record)) == {"1 contra", "1 cedo"}
    assert violation(more(record, "0 contra")) == (5, "NOT_YOUR_TURN")
    result = ok(more(record, "1 cedo", "2 descarte", "1 descarte"))
    assert result["next"]["seat"] == 1  # the mano leads whoever the Jugador is
    # The medio is Jugador of a solo: the question comes right after the declaration.
    record = rec(STD, ["1 paso", "2 juego", "3 paso", "2 solo espadas"])
    assert legal(ok(record)) == {"3 contra", "3 cedo"}
    assert violation(more(record, "2 descarte")) == (4, "NOT_YOUR_TURN")  # no exchange for a solo's Jugador
    result = ok(more(record, "3 cedo"))
    assert result["next"]["seat"] == 1 and descartes(result, 1)
    assert ok(more(record, "3 cedo", "1 descarte", "3 descarte"))["next"]["seat"] == 1


def test_a13_turn_order():
    rules = {"contraOrder": "turnOrder"}
    record = rec(STD, [*MANO_WINS, "1 entrada oros", "1 descarte"], rules=rules)
    result = ok(record)
    assert result["next"]["seat"] == 2
    assert len(descartes(result, 2)) == 2 ** 9 and legal(result) == {f"2 {d}" for d in descartes(result, 2)}
    assert violation(more(record, "2 contra")) == (5, "NOT_ALLOWED_NOW")
    assert violation(more(record, "2 cedo")) == (5, "NOT_ALLOWED_NOW")
    assert ok(more(record, "2 descarte"))["next"]["seat"] == 3
    assert ok(more(record, "2 descarte", "3 descarte"))["next"]["seat"] == 1
    # In a solo the first opponent exchanges right after the declaration.
    solo = rec(STD, [*MANO_WINS, "1 solo oros"], rules=rules)
    assert ok(solo)["next"]["seat"] == 2 and descartes(ok(solo), 2)


# ---- A14: espada forzada --------------------------------------------------------------------------------


def test_a14_off_by_default():
    assert legal(ok(rec(STD))) == {"1 paso", "1 juego"}
    assert ok(rec(STD2, ["1 paso", "2 paso", "3 paso"]))["finished"] is True


def test_a14_must_open():
    rules = {"espadaForzada": "mustOpen"}
    assert legal(ok(rec(STD, rules=rules))) == {"1 juego"}  # the mano holds 1e
    assert violation(rec(STD, ["1 paso"], rules=rules)) == (0, "NOT_ALLOWED_NOW")
    # The medio holds it: forced to open only while nobody has bid.
    assert legal(ok(rec(STD2, ["1 paso"], rules=rules))) == {"2 juego"}
    assert violation(rec(STD2, ["1 paso", "2 paso"], rules=rules)) == (1, "NOT_ALLOWED_NOW")
    assert legal(ok(rec(STD2, ["1 juego"], rules=rules))) == {"2 paso", "2 mas"}
    ok(rec(STD2, ["1 juego", "2 paso"], rules=rules))
    # Others may pass freely.
    assert legal(ok(rec(STD2, rules=rules))) == {"1 paso", "1 juego"}


def test_a14_if_all_pass():
    rules = {"espadaForzada": "ifAllPass"}
    assert legal(ok(rec(STD2, ["1 paso"], rules=rules))) == {"2 paso", "2 juego"}  # he may pass
    result = ok(rec(STD2, ["1 paso", "2 paso", "3 paso"], rules=rules))
    assert result["finished"] is False
    assert result["next"]["seat"] == 2
    assert legal(result) == at(2, ENTRADAS)  # he must play an entrada
    result = ok(rec(STD2, ["1 paso", "2 paso", "3 paso", "2 entrada copas"], rules=rules))
    assert result["next"]["seat"] == 2 and len(descartes(result, 2)) == 2 ** 9
    # The espada sleeps in the stock: all passing annuls the hand.
    hands = ["", "10o 7o 1b 1o 12o 11o 3c 4e 5b", STD[2], STD[3]]
    result = ok(rec(hands, ["1 paso", "2 paso", "3 paso"], rules=rules))
    assert result["finished"] is True and result["tricks"] == [] and result["net"] == [-5, 0, 0, 0]


# ---- A31: surrender timing -------------------------------------------------------------------------------


def test_a31_surrender_before_the_first_lead_and_out_of_turn():
    record, start = hand(([2, 1, 1, 1, 1], {}))
    result = ok(cut(record, start))
    assert result["next"]["seat"] == 1
    assert "1 rindo" in legal(result)
    assert ok(swap(record, start, "1 rindo"))["next"]["seat"] == 2
    # Out of turn: the medio is to play; the Jugador's rindo is listed and accepted.
    result = ok(cut(record, start + 1))
    assert result["next"]["seat"] == 2 and "1 rindo" in legal(result)
    assert ok(swap(record, start + 1, "1 rindo"))["next"]["seat"] == 2
    # Before the exchange is over: not yet.
    assert violation(swap(record, start - 1, "1 rindo")) == (start - 1, "NOT_ALLOWED_NOW")


def test_a31_not_after_the_fourth_card():
    record, start = hand(([1, 1, 1, 1, 2], {}))
    at_trick4 = start + 9  # the Jugador (mano, winner of 1-3) leads trick 4
    assert "1 rindo" in legal(ok(cut(record, at_trick4)))  # he has played three cards
    # Once his card to trick 4 is down: no more, in turn or out of it (the Jugador of an entrada
    # may say rindo out of turn, so out of turn it is a call not allowed now, not a wrong turn).
    result = ok(cut(record, at_trick4 + 1))
    assert result["next"]["seat"] == 2 and "1 rindo" not in legal(result)
    assert violation(swap(record, at_trick4 + 1, "1 rindo")) == (at_trick4 + 1, "NOT_ALLOWED_NOW")
    pass_4th = start + 12  # tricks 1-4 complete, he leads trick 5
    result = ok(cut(record, pass_4th))
    assert result["next"]["seat"] == 1 and "1 rindo" not in legal(result)
    assert violation(swap(record, pass_4th, "1 rindo")) == (pass_4th, "NOT_ALLOWED_NOW")


def test_a31_fourth_card_played_second_in_a_trick_led_across_the_alcalde():
    # 4 seats, dealer 0: the postre (3) leads trick 4 and the Jugador, the mano (1), plays his 4th
    # card right after him (seat 0, the alcalde, is skipped). Then rindo is over for him.
    record, start = hand(([1, 1, 3, 2], {}))
    fourth = start + 11  # tricks 1-3 done, the postre led trick 4, the mano's card is action start + 10
    assert record["actions"][start + 9].startswith("3 ") and record["actions"][start + 10].startswith("1 ")
    assert "1 rindo" in legal(ok(cut(record, start + 10)))
    result = ok(cut(record, fourth))
    assert result["next"]["seat"] == 2
    assert "1 rindo" not in legal(result)
    assert violation(swap(record, fourth, "1 rindo")) == (fourth, "NOT_ALLOWED_NOW")


def test_a31_never_in_solo():
    record, start = hand(([2, 1, 1], {}), lance="solo oros")
    result = ok(cut(record, start))
    assert "1 rindo" not in legal(result)
    assert violation(swap(record, start, "1 rindo")) == (start, "NOT_ALLOWED_NOW")
    # Out of turn either (the Jugador of a solo never has the call).
    assert violation(swap(record, start + 1, "1 rindo")) == (start + 1, "NOT_ALLOWED_NOW")


def test_a31_only_the_jugador_surrenders():
    record, start = hand(([2, 1, 1], {}))
    assert violation(swap(record, start + 1, "2 rindo")) == (start + 1, "NOT_ALLOWED_NOW")  # his turn, not his call
    assert violation(swap(record, start + 1, "3 rindo")) == (start + 1, "NOT_YOUR_TURN")
    assert violation(swap(record, start + 1, "0 rindo")) == (start + 1, "NOT_YOUR_TURN")


def test_a31_option_only_on_own_turn():
    record, start = hand(([2, 1, 1], {}), rules={"surrenderOnlyOnOwnTurn": True})
    assert "1 rindo" in legal(ok(cut(record, start)))
    result = ok(cut(record, start + 1))
    assert "1 rindo" not in legal(result)
    assert violation(swap(record, start + 1, "1 rindo")) == (start + 1, "NOT_YOUR_TURN")
    ok(swap(record, start, "1 rindo"))


# ---- A32 and section 0: answering a surrender -----------------------------------------------------------


def test_a32_answers_in_turn_order_after_the_jugador():
    record, start = hand(([2, 1, 1], {}))
    rindo = swap(record, start, "1 rindo")
    assert legal(ok(rindo)) == {"2 bien", "2 defiendo"}
    assert violation(more(rindo, "3 defiendo")) == (start + 1, "NOT_YOUR_TURN")
    assert violation(more(rindo, "1 bien")) == (start + 1, "NOT_YOUR_TURN")
    assert violation(more(rindo, "0 bien")) == (start + 1, "NOT_YOUR_TURN")
    assert violation(more(rindo, "2 2o")) == (start + 1, "NOT_ALLOWED_NOW")  # play waits for the answers
    assert legal(ok(more(rindo, "2 bien"))) == {"3 bien", "3 defiendo"}
    accepted = ok(more(rindo, "2 bien", "3 bien"))
    assert accepted["finished"] is True and "net" in accepted
    # The first defiendo ends the asking.
    result = ok(more(rindo, "2 defiendo"))
    assert result["next"]["seat"] == 1 and "3 bien" not in legal(result)
    assert violation(more(rindo, "2 defiendo", "3 defiendo")) == (start + 2, "NOT_YOUR_TURN")


def test_a32_order_when_the_medio_or_postre_surrenders():
    hands, _ = build("c", {}, [])
    medio = rec(hands, [*opening(2, "entrada copas"), "2 rindo"])
    assert legal(ok(medio)) == {"3 bien", "3 defiendo"}
    assert legal(ok(more(medio, "3 bien"))) == {"1 bien", "1 defiendo"}
    postre = rec(hands, [*opening(3, "entrada copas"), "3 rindo"])
    assert legal(ok(postre)) == {"1 bien", "1 defiendo"}  # the alcalde is not asked
    assert legal(ok(more(postre, "1 bien"))) == {"2 bien", "2 defiendo"}
    assert ok(more(postre, "1 bien", "2 bien"))["finished"] is True


def test_defiendo_resumes_play_where_it_stopped():
    record, start = hand(([3, 1, 1], {}))
    mid = cut(record, start + 2)  # the mano led, the medio played; the postre to play
    result = ok(more(mid, "1 rindo"))
    assert result["next"]["seat"] == 2
    resumed = more(mid, "1 rindo", "2 defiendo")
    result = ok(resumed)
    assert result["next"]["seat"] == 3
    assert result["tricks"][-1]["cards"] == [a.split()[1] for a in record["actions"][start:start + 2]]
    assert "winner" not in result["tricks"][-1]
    # Play goes on with the same trump and the same cards.
    rest = record["actions"][start + 2:]
    result = ok(more(resumed, *rest))
    assert winners(result) == [3, 1, 1]
    # Neither the rendido nor the defender may surrender now.
    assert "1 rindo" not in legal(result) and "2 rindo" not in legal(result)
    assert violation(more(resumed, *rest, "1 rindo")) == (len(resumed["actions"]) + len(rest), "NOT_ALLOWED_NOW")



def test_after_a_defence_a_rindo_by_the_defender_or_the_mano_pobre_is_not_your_turn_out_of_turn_not_allowed_now_in_turn():
    """A31 / A32 with section 0's codes (docs/rules/tresillo.md, Surrender, defence, bola): rindo
    is the Jugador's call out of turn; after a defence nobody surrenders. The defender (S3) and
    the mano pobre (S2) were never the Jugador, so their rindo out of turn is NOT_YOUR_TURN and at
    their own turn NOT_ALLOWED_NOW; the rendido's (S1) is NOT_ALLOWED_NOW at any point."""
    record, start = hand(([3] * 6, {}), rules={"stopWhenDecided": False})
    defended = {**record, "actions": [*record["actions"][:start], "1 rindo", "2 bien", "3 defiendo",
                                      *record["actions"][start:]]}
    first = start + 3
    for k in range(first, first + 8):
        to_act = ok(cut(defended, k))["next"]["seat"]
        for seat in (2, 3):
            code = "NOT_ALLOWED_NOW" if seat == to_act else "NOT_YOUR_TURN"
            assert violation(swap(defended, k, f"{seat} rindo")) == (k, code), (k, seat)
        assert violation(swap(defended, k, "1 rindo")) == (k, "NOT_ALLOWED_NOW"), k
    assert "cannot surrender" in api.validate(swap(defended, first + 1, "2 rindo"))["violation"]["message"]

def test_vuelta_rendida_ends_the_hand_at_once():
    record, start = hand(([2, 3, 1], {1: "5b"}), lance="vuelta", stock_top="4o", discards={1: "5b"})
    for k in (start, start + 2, start + 6):
        result = ok(swap(record, k, "1 rindo"))
        assert result["finished"] is True and "next" not in result and "net" in result
        assert violation(more(swap(record, k, "1 rindo"), "2 bien")) == (k + 1, "NOT_ALLOWED_NOW")


# ---- A33: early end ---------------------------------------------------------------------------------------


def test_a33_stop_when_decided():
    # The medio's solo; the mano wins tricks 1-5: codillo whatever follows.
    record, start = hand(([1] * 9, {}), jugador=2, lance="solo oros")
    after5 = start + 15
    result = ok(cut(record, after5))
    assert result["finished"] is True and winners(result) == [1] * 5 and "net" in result
    assert not ok(cut(record, after5 - 1))["finished"]
    assert violation(cut(record, after5 + 1)) == (after5, "NOT_ALLOWED_NOW")
    # All nine tricks with the option off.
    record = {**record, "rules": {"stopWhenDecided": False}}
    result = ok(cut(record, after5))
    assert result["finished"] is False and result["next"]["seat"] == 1
    result = ok(record)
    assert result["finished"] is True and winners(result) == [1] * 9 and "net" in result


# ---- Bola and planto (section 0, A38) -----------------------------------------------------------------------


def test_bola_decision_after_tricks_one_to_five():
    record, start = hand(([1] * 9, {}))
    after5 = start + 15
    result = ok(cut(record, after5))
    assert result["finished"] is False
    assert legal(result) == {"1 bola", "1 planto"}
    assert violation(swap(record, after5, record["actions"][after5])) == (after5, "NOT_ALLOWED_NOW")
    assert violation(swap(record, after5, "2 bola")) == (after5, "NOT_YOUR_TURN")
    planto = ok(swap(record, after5, "1 planto"))
    assert planto["finished"] is True and winners(planto) == [1] * 5 and "net" in planto
    # bola: play goes on to the ninth trick even though the result is decided.
    bola = {**record, "actions": [*record["actions"][:after5], "1 bola", *record["actions"][after5:]]}
    result = ok(cut(bola, after5 + 1))
    assert result["finished"] is False and result["next"]["seat"] == 1
    assert all(a[2].isdigit() for a in legal(result))  # his cards to lead trick 6
    result = ok(bola)
    assert result["finished"] is True and winners(result) == [1] * 9


def test_failed_bola_ends_at_the_first_lost_trick():
    record, start = hand(([1, 1, 1, 1, 1, 2, 1, 1, 1], {}))
    after5 = start + 15
    bola = {**record, "actions": [*record["actions"][:after5], "1 bola", *record["actions"][after5:]]}
    result = ok(cut(bola, after5 + 4))
    assert result["finished"] is True and winners(result) == [1, 1, 1, 1, 1, 2] and "net" in result
    assert violation(cut(bola, after5 + 5)) == (after5 + 4, "NOT_ALLOWED_NOW")


def test_bola_decision_in_a_solo_and_for_a_non_mano_jugador():
    record, start = hand(([2] * 6, {}), jugador=2, lance="solo copas")
    result = ok(cut(record, start + 15))
    assert legal(result) == {"2 bola", "2 planto"}


def test_no_bola_decision_without_all_first_five():
    record, start = hand(([1, 1, 1, 1, 2, 1], {}), rules={"stopWhenDecided": False})
    result = ok(cut(record, start + 15))
    assert result["next"]["seat"] == 2 and all(a[2].isdigit() for a in legal(result))
    record, start = hand(([2, 1, 1, 1, 1, 1], {}), rules={"stopWhenDecided": False})
    result = ok(cut(record, start + 15))
    assert result["next"]["seat"] == 1 and all(a[2].isdigit() for a in legal(result))


def test_a38_no_bola_decision_in_a_defended_hand():
    # The mano surrenders his entrada before the first lead; the postre defends and wins 1-5.
    record, start = hand(([3] * 6, {}), rules={"stopWhenDecided": False})
    defended = {**record, "actions": [*record["actions"][:start], "1 rindo", "2 bien", "3 defiendo",
                                      *record["actions"][start:]]}
    first = start + 3
    result = ok(cut(defended, first))
    assert result["next"]["seat"] == 1  # play resumes with the mano's lead
    assert "3 rindo" not in legal(result) and "1 rindo" not in legal(result)
    assert violation(swap(defended, first, "1 rindo")) == (first, "NOT_ALLOWED_NOW")
    result = ok(cut(defended, first + 15))
    assert winners(result) == [3] * 5 and result["next"]["seat"] == 3
    assert all(a[2].isdigit() for a in legal(result))  # cards, no bola or planto
    assert violation(swap(defended, first + 15, "3 planto")) == (first + 15, "NOT_ALLOWED_NOW")
    # By default the defender's five tricks decide the hand at once.
    result = ok({**cut(defended, first + 15), "rules": {}})
    assert result["finished"] is True and "net" in result


# ---- Appendix B2: the actions of each phase, and the order of the phases (section 0) ------------------------


def calls(record: dict) -> tuple[str, int | None, set[str]]:
    """The phase, the seat to act, and what each listed action is: "seat call", or "seat card"."""
    result = ok(record)
    if result["finished"]:
        assert "next" not in result
        return result["phase"], None, set()
    kinds = {f"{a.split()[0]} {'card' if a.split()[1][0].isdigit() else a.split()[1]}" for a in legal(result)}
    return result["phase"], result["next"]["seat"], kinds


def test_b2_actions_per_phase_and_their_order():
    """Appendix B2 and section 0: auction (the seat on turn: paso, juego, mas), declare (the
    Jugador: entrada, vuelta, solo), exchange of the Jugador right after declaring, contraOrder (the
    opponent after the Jugador: contra or cedo), exchange of the primer contra then the mano pobre,
    play (a card; the Jugador's rindo listed, out of turn too), surrender (the contra: bien or
    defiendo), bolaDecision (the Jugador: bola or planto), over (nothing)."""
    steps = [
        ([], ("auction", 1, {"1 paso", "1 juego"})),
        (["1 paso"], ("auction", 2, {"2 paso", "2 juego"})),
        (["2 juego"], ("auction", 3, {"3 paso", "3 mas"})),
        (["3 paso"], ("declare", 2, {"2 entrada", "2 vuelta", "2 solo"})),
        (["2 entrada oros"], ("exchange", 2, {"2 descarte"})),
        (["2 descarte 12e"], ("contraOrder", 3, {"3 contra", "3 cedo"})),
        (["3 cedo"], ("exchange", 1, {"1 descarte"})),  # the mano pobre ceded: the other discards first
        (["1 descarte 3c"], ("exchange", 3, {"3 descarte"})),
        (["3 descarte"], ("play", 1, {"1 card", "2 rindo"})),  # the mano leads; the Jugador is the medio
        (["1 1o"], ("play", 2, {"2 card", "2 rindo"})),
        (["2 rindo"], ("surrender", 3, {"3 bien", "3 defiendo"})),
        (["3 bien"], ("surrender", 1, {"1 bien", "1 defiendo"})),
        (["1 bien"], ("over", None, set())),
    ]
    actions: list[str] = []
    for more_actions, expected in steps:
        actions += more_actions
        assert calls(rec(STD, actions)) == expected, actions
    # A solo: no exchange for the Jugador, the contra question right after the declaration.
    solo = ["1 paso", "2 juego", "3 paso", "2 solo oros"]
    assert calls(rec(STD, solo)) == ("contraOrder", 3, {"3 contra", "3 cedo"})
    assert calls(rec(STD, [*solo, "3 contra"])) == ("exchange", 3, {"3 descarte"})
    assert calls(rec(STD, [*solo, "3 contra", "3 descarte"])) == ("exchange", 1, {"1 descarte"})
    # contraOrder turnOrder: no question, the opponent after the Jugador exchanges first.
    entrada = ["1 paso", "2 juego", "3 paso", "2 entrada oros", "2 descarte"]
    assert calls(rec(STD, entrada, rules={"contraOrder": "turnOrder"})) == ("exchange", 3, {"3 descarte"})
    # A vuelta: the top stock card is turned and taken.
    vuelta = ok(rec(STD, ["1 paso", "2 juego", "3 paso", "2 vuelta"]))
    assert (vuelta["phase"], vuelta["turnUp"], vuelta["trump"]) == ("exchange", STD_STOCK.split()[0], "oros")
    # The bola decision after the Jugador's first five tricks.
    record, start = hand(([1] * 9, {}))
    assert calls(cut(record, start + 15)) == ("bolaDecision", 1, {"1 bola", "1 planto"})
    assert calls(swap(record, start + 15, "1 planto")) == ("over", None, set())


# ---- Section 0: the alcalde never acts ----------------------------------------------------------------------


def test_the_alcalde_never_acts():
    record, start = hand(([2, 1, 1], {}))
    for k, action in [(0, "0 juego"), (0, "0 paso"), (3, "0 entrada oros"), (4, "0 descarte"), (5, "0 contra"),
                      (start, "0 1o"), (start, "0 rindo"), (start + 1, "0 12c")]:
        assert violation(swap(record, k, action)) == (k, "NOT_YOUR_TURN"), action
    for k in range(len(record["actions"])):
        result = ok(cut(record, k))
        if not result["finished"]:
            assert not any(a.startswith("0 ") for a in legal(result)), k



def test_the_alcalde_acting_after_the_hand_is_over_is_not_allowed_now():
    """Section 0 with FORMAT section 6's precedence (docs/rules/tresillo.md, Seats and phases): any
    action after the hand is over is NOT_ALLOWED_NOW, whoever makes it, the alcalde's too; before
    the end his is NOT_YOUR_TURN."""
    record, _ = hand(([3] * 5, {}))  # the postre's five tricks decide the hand: it ends there
    assert ok(record)["finished"] is True and ok(record)["outcome"] == "codillo"
    annulled = rec(STD, ["1 paso", "2 paso", "3 paso"])
    for done in (record, annulled):
        end = len(done["actions"])
        for action in ("0 juego", "0 paso", "0 rindo", "0 12c", "0 descarte"):
            assert violation(more(done, action)) == (end, "NOT_ALLOWED_NOW"), action
        assert violation(more(done, "0 juego"))[1] == violation(more(done, "1 juego"))[1]
    assert violation(rec(STD, ["1 paso", "0 juego"])) == (1, "NOT_YOUR_TURN")

def test_three_seats_dealer_is_postre():
    # Dealer 2: mano 0, medio 1, postre 2 (the dealer plays).
    hands = [STD[1], STD[2], STD[3]]
    assert ok(rec(hands, dealer=2))["next"]["seat"] == 0
    record = rec(hands, ["0 paso", "1 juego", "2 paso", "1 solo oros"], dealer=2)
    assert legal(ok(record)) == {"2 contra", "2 cedo"}
    result = ok(more(record, "2 contra", "2 descarte", "0 descarte"))
    assert result["next"]["seat"] == 0
    assert cards_of(result, 0) == set(STD[1].split())



def test_4_reveal_remainder_an_annulled_hand_shows_all_13_stock_cards_to_every_seat():
    """4 [CFG:revealRemainder] (docs/rules/tresillo.md, revealRemainder on an annulled hand): the
    hand is over, so every seat's view, the alcalde's too, shows the whole baceta, 13 cards: when
    everybody passed, and when A14 ``ifAllPass`` annuls the hand because 1e sleeps there."""
    passes = ["1 paso", "2 paso", "3 paso"]
    sleeping = ["", "10o 7o 1b 1o 12o 11o 3c 4e 5b", STD[2], STD[3]]
    for record in (rec(STD, passes, rules={"revealRemainder": True}),
                   rec(sleeping, passes, rules={"espadaForzada": "ifAllPass", "revealRemainder": True}, stock_top="1e")):
        assert ok(record)["outcome"] == "annulled"
        for seat in range(4):
            view = api.legal_actions(record, seat)["view"]
            assert (view["phase"], view["stock"]) == ("over", record["deal"]["stock"])
            assert len(view["stock"].split()) == 13
        assert "stock" not in api.legal_actions({**record, "rules": {}}, 1)["view"]
    assert api.legal_actions(record, 2)["view"]["stock"].split()[0] == "1e"

# ---- Options --------------------------------------------------------------------------------------------


def test_unknown_option_and_bad_values():
    with pytest.raises(InvalidInput) as err:
        api.validate(rec(STD, rules={"favourSuit": "oros"}))
    assert (err.value.code, err.value.field) == ("UNKNOWN_OPTION", "rules.favourSuit")
    for name, bad in [("entradaMinDiscard", 2), ("contraOrder", "leftChooses"), ("stopWhenDecided", "yes"),
                      ("matadorForcing", "mano"), ("espadaForzada", True), ("auctionPriority", "Positional")]:
        with pytest.raises(InvalidInput) as err:
            api.validate(rec(STD, rules={name: bad}))
        assert (err.value.code, err.value.field) == ("INVALID_OPTION_VALUE", f"rules.{name}"), name


def test_every_default_spelled_out_is_accepted():
    defaults = {"favorSuit": "bastos", "vueltaSoleraAllowed": True, "soleraSurrender": "asVuelta", "revealDiscardCount": True,
                "vueltaFavor": True, "vueltaTurnedCardDiscardable": False, "entradaMinDiscard": 0, "auctionPriority": "manoOnly",
                "espadaForzada": "off", "contraOrder": "rightChooses", "revealRemainder": False, "matadorForcing": "handMano",
                "multiMatadorRenege": True, "surrenderOnlyOnOwnTurn": False, "defenceOrder": "afterJugador",
                "defenderTakesPlate": False, "defenderCodilloAlsoPuesta": False, "bolaFailure": "payBola",
                "primerasWithBola": True, "primerasContraRule": "narrow", "contraestucheMode": "symmetric", "estucheCap": 5,
                "favorRounding": "doubleOfRounded", "surrenderedVueltaRounding": "asFavorRounding",
                "soloCodilloNoPuesta": "reservedOnly", "soloCodilloPaysCond": True,
                "enchilada": 0, "enchiladaPayer": "dealer", "gemelasOnCartulina": "separate", "stopWhenDecided": True}
    assert legal(ok(rec(STD, rules=defaults))) == legal(ok(rec(STD)))


def test_the_spec_cfg_values_are_the_options_choices():
    """The spec's ``[CFG:name = a | b]`` (and ``favorSuit ∈ {...}``) marks list an option's values:
    each is accepted in a record's rules, and they are the values DescribeRules offers (the
    enchilada's ``0 | 25..100``: none below 25 but 0, none above 100). docs/rules/tresillo.md:
    ``estucheCap`` takes 5, 9 or 12."""
    from engine.options import parse_options, snake
    from engine.tresillo_options import Options

    text = (examples_dir().parent.parent / "rules" / "tresillo.md").read_text()
    choices = {o["name"]: o["choices"] for o in api.describe_rules("tresillo")["options"]}
    marks = re.findall(r"\[CFG:(\w+)\s*(?:=\s*([^\]]*\|[^\]]*)|∈\s*\{([^}]*)\})\]", text)
    assert len({name for name, *_ in marks}) == 12
    for name, alternatives, members in marks:
        values = [v.strip().strip('"') for v in (alternatives.split("|") if alternatives else members.split(","))]
        if name == "enchilada":
            assert values == ["0", "25..100"]
            assert min(choices[name]) == 0 and min(set(choices[name]) - {0}) == 25 and max(choices[name]) == 100
            values = ["0", "25", "100"]
            offered = set(choices[name])
        else:
            offered = set(values)
            assert set(choices[name]) == offered, name
        for value in values:
            rules = {name: int(value) if value.isdigit() else value}
            ok(rec(STD, rules=rules))
            assert getattr(parse_options(Options, rules), snake(name)) == rules[name]
    assert choices["estucheCap"] == [5, 9, 12]
    for cap in (5, 9, 12):
        ok(rec(STD, rules={"estucheCap": cap}))
