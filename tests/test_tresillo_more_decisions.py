"""Tresillo decisions not covered elsewhere, each through complete hand records and
``engine.api.validate``: A16 (a defended entrada ending r == p > d), A22 (estuches counted on the
Jugador's hand when play starts), A27 (1-4-4 is a puesta real, settled as a puesta), A35
(irregular actions are rejected, never applied) and the section-0 rule that a surrender mid-trick
keeps that trick and its turn, play resuming exactly there after ``defiendo``.

Every record is a 4-seat hand dealt by seat 0 (mano 1, medio 2, postre 3; seat 0 the alcalde),
default options (favorSuit bastos), a fresh table unless a test says otherwise. The hands are
written out in full; in every trick the three cards are of one suit (or all trumps), so each card
is legal whatever else its seat holds, and the seat with the best of them wins the trick.
"""

from __future__ import annotations

from typing import Any

from engine import api

FRESH = {"plate": 0, "plateHolds": "none", "cartulina": []}
PRIMERA_30 = {"plate": 30, "plateHolds": "primera", "cartulina": []}


def deal(hands: list[str], stock: str, opening: str, play: str) -> dict[str, Any]:
    """A record: ``opening`` (auction, declaration, exchange) and ``play`` are comma-separated actions."""
    actions = [a.strip() for a in f"{opening}, {play}".split(",")]
    return {"game": "tresillo", "seats": 4, "dealer": 0, "table": dict(FRESH),
            "deal": {"hands": hands, "stock": stock}, "actions": actions}


def ok(record: dict[str, Any]) -> dict[str, Any]:
    result = api.validate(record)
    assert result["valid"] is True, result.get("violation")
    return result


def finished(record: dict[str, Any]) -> dict[str, Any]:
    """The record is legal, its last action ends the hand, and one action fewer it is still on."""
    result = ok(record)
    assert result["finished"] is True and "net" in result
    shorter = ok(cut(record, len(record["actions"]) - 1))
    assert shorter["finished"] is False
    return result


def cut(record: dict[str, Any], n: int) -> dict[str, Any]:
    return {**record, "actions": record["actions"][:n]}


def at(record: dict[str, Any], action: str) -> int:
    """The index of an action in the record."""
    return record["actions"].index(action)


def with_table(record: dict[str, Any], table: dict[str, Any]) -> dict[str, Any]:
    return {**record, "table": dict(table)}


def winners(result: dict[str, Any]) -> list[int]:
    return [t["winner"] for t in result["tricks"] if "winner" in t]


def paid_by(result: dict[str, Any], party: str) -> list[tuple[str, int]]:
    return [(p["payee"], p["amount"]) for p in result["payments"] if p["payer"] == party]


def legal(result: dict[str, Any]) -> set[str]:
    return set(result["next"]["legal"])


def cards_of(result: dict[str, Any], seat: int) -> set[str]:
    return {a.split()[1] for a in legal(result) if int(a.split()[0]) == seat and a.split()[1][0].isdigit()}


# ---- the records -------------------------------------------------------------------------------

# S1's entrada in oros, surrendered before the first lead: S2 bien, S3 defiendo. Then S1 (the rendido)
# takes 4 tricks, S2 (the mano pobre) 4 and S3 (the defender) 1: r == p > d. The last trick decides it.
A16 = deal(
    ['', '5o 7o 2c 5c 12c 2e 11e 4b 12b', '3o 6o 7c 10c 11c 4e 12e 2b 11b', '4o 3c 4c 6c 1e 3e 5e 3b 5b'],
    '1o 2o 10o 11o 12o 1c 6e 7e 10e 1b 6b 7b 10b',
    '1 juego, 2 paso, 3 paso, 1 entrada oros, 1 descarte, 2 contra, 2 descarte, 3 descarte',
    '1 rindo, 2 bien, 3 defiendo, 1 12c, 2 7c, 3 6c, 1 2e, 2 12e, 3 3e, 2 2b, 3 3b, 1 12b, 1 5c, 2 11c, 3 4c, 2 4e, 3 5e, 1 11e, 1 4b, 2 11b, 3 5b, 2 10c, 3 3c, 1 2c, 2 6o, 3 1e, 1 5o, 3 4o, 1 7o, 2 3o',
)

# S1's entrada in oros, no exchange: S1 takes only trick 2 (with 1e), S2 and S3 four each: 1-4-4.
PUESTA_REAL = deal(
    ['', '2c 4c 7c 1e 2e 5e 7e 3b 5b', '6o 5c 10c 12c 3e 6e 11e 4b 12b', '5o 3c 6c 11c 4e 10e 12e 2b 11b'],
    '1o 2o 3o 4o 7o 10o 11o 12o 1c 1b 6b 7b 10b',
    '1 juego, 2 paso, 3 paso, 1 entrada oros, 1 descarte, 2 contra, 2 descarte, 3 descarte',
    '1 7c, 2 12c, 3 6c, 2 6o, 3 5o, 1 1e, 1 2e, 2 3e, 3 12e, 3 2b, 1 3b, 2 12b, 2 5c, 3 11c, 1 4c, 3 4e, 1 5e, 2 11e, 2 4b, 3 11b, 1 5b, 3 3c, 1 2c, 2 10c, 2 6e, 3 10e, 1 7e',
)

# The same kind of hand ending 4-4-1 (S1 four, S2 four, S3 one), a plain puesta; no primeras contra.
PUESTA_441 = deal(
    ['', '3o 3c 7c 11c 1e 4e 12e 2b 11b', '4o 6o 5c 10c 12c 2e 11e 4b 12b', '1o 5o 2c 4c 6c 3e 5e 3b 5b'],
    '2o 7o 10o 11o 12o 1c 6e 7e 10e 1b 6b 7b 10b',
    '1 juego, 2 paso, 3 paso, 1 entrada oros, 1 descarte, 2 contra, 2 descarte, 3 descarte',
    '1 7c, 2 12c, 3 6c, 2 6o, 3 5o, 1 1e, 1 12e, 2 2e, 3 3e, 1 2b, 2 12b, 3 3b, 2 5c, 3 4c, 1 11c, 1 4e, 2 11e, 3 5e, 2 4b, 3 5b, 1 11b, 1 3c, 2 10c, 3 2c, 2 4o, 3 1o, 1 3o',
)

# S1 holds 1e and 1b, not 7o; his vuelta turns 7o (oros, the mala): 1e 7o 1b at the first lead.
# He discards 11e 2b and draws 4c (a vuelta, not a solera), wins tricks 1-5 and stops.
VUELTA_TURNS_7O = deal(
    ['', '1c 2c 3c 12c 1e 11e 12e 1b 2b', '2o 4o 6o 5c 7c 10c 11c 2e 4e', '3o 5o 10o 6c 3e 5e 6e 7e 10e'],
    '7o 4c 1o 11o 12o 3b 4b 5b 6b 7b 10b 11b 12b',
    '1 juego, 2 paso, 3 paso, 1 vuelta, 1 descarte 11e 2b, 2 contra, 2 descarte, 3 descarte',
    '1 1e, 2 6o, 3 5o, 1 7o, 2 4o, 3 3o, 1 1b, 2 2o, 3 10o, 1 12c, 2 7c, 3 6c, 1 12e, 2 2e, 3 3e, 1 planto',
)

# The same deal as an entrada in oros: discarding 11e 2b he draws 7o and 4c, the same nine cards.
ENTRADA_DRAWS_7O = deal(
    ['', '1c 2c 3c 12c 1e 11e 12e 1b 2b', '2o 4o 6o 5c 7c 10c 11c 2e 4e', '3o 5o 10o 6c 3e 5e 6e 7e 10e'],
    '7o 4c 1o 11o 12o 3b 4b 5b 6b 7b 10b 11b 12b',
    '1 juego, 2 paso, 3 paso, 1 entrada oros, 1 descarte 11e 2b, 2 contra, 2 descarte, 3 descarte',
    '1 1e, 2 6o, 3 5o, 1 7o, 2 4o, 3 3o, 1 1b, 2 2o, 3 10o, 1 12c, 2 7c, 3 6c, 1 12e, 2 2e, 3 3e, 1 planto',
)

# S1 is dealt 1e 7o 1b 1o 12o (five estuches in oros) and discards 1b for 2c before the play;
# he wins tricks 1-5 with 1e 7o 12c 12e 12b and stops.
DISCARDS_1B = deal(
    ['', '1o 7o 12o 1c 12c 1e 12e 1b 12b', '4o 6o 3c 4c 5c 7c 10c 2e 2b', '3o 5o 6c 11c 3e 4e 5e 6e 3b'],
    '2c 2o 10o 11o 7e 10e 11e 4b 5b 6b 7b 10b 11b',
    '1 juego, 2 paso, 3 paso, 1 entrada oros, 1 descarte 1b, 2 contra, 2 descarte, 3 descarte',
    '1 1e, 2 6o, 3 5o, 1 7o, 2 4o, 3 3o, 1 12c, 2 7c, 3 6c, 1 12e, 2 2e, 3 3e, 1 12b, 2 2b, 3 3b, 1 planto',
)

# The same deal and the same tricks, S1 keeping his nine cards.
KEEPS_1B = deal(
    ['', '1o 7o 12o 1c 12c 1e 12e 1b 12b', '4o 6o 3c 4c 5c 7c 10c 2e 2b', '3o 5o 6c 11c 3e 4e 5e 6e 3b'],
    '2c 2o 10o 11o 7e 10e 11e 4b 5b 6b 7b 10b 11b',
    '1 juego, 2 paso, 3 paso, 1 entrada oros, 1 descarte, 2 contra, 2 descarte, 3 descarte',
    '1 1e, 2 6o, 3 5o, 1 7o, 2 4o, 3 3o, 1 12c, 2 7c, 3 6c, 1 12e, 2 2e, 3 3e, 1 12b, 2 2b, 3 3b, 1 planto',
)

# S1's entrada in oros. S1 wins trick 1; he leads trick 2, S2 plays, and at S3's turn S1 surrenders:
# S2 bien, S3 defiendo. S3 completes trick 2 (won by S2) and takes the next five: D-WIN 5-1-1.
RINDO_OUT_OF_TURN = deal(
    ['', '4o 5o 3c 5c 12c 2e 4e 2b 4b', '3o 6o 2c 4c 7c 5e 12e 3b 5b', '7o 6c 10c 11c 1e 3e 11e 11b 12b'],
    '1o 2o 10o 11o 12o 1c 6e 7e 10e 1b 6b 7b 10b',
    '1 juego, 2 paso, 3 paso, 1 entrada oros, 1 descarte, 2 contra, 2 descarte, 3 descarte',
    '1 12c, 2 7c, 3 6c, 1 2e, 2 12e, 1 rindo, 2 bien, 3 defiendo, 3 3e, 2 6o, 3 1e, 1 5o, 3 12b, 1 2b, 2 3b, 3 11c, 1 5c, 2 4c, 3 11e, 1 4e, 2 5e, 3 7o, 1 4o, 2 3o',
)

# S1's entrada in oros. S2 wins trick 1 and leads trick 2, S3 plays, and at his own turn S1 surrenders:
# S2 defiendo. S1, now an ordinary opponent, plays his card to trick 2; S2 takes tricks 1-5: D-WIN.
RINDO_ON_HIS_TURN = deal(
    ['', '3o 5o 2c 4c 7c 3e 5e 3b 5b', '7o 10c 11c 12c 1e 11e 12e 11b 12b', '4o 6o 3c 5c 6c 2e 4e 2b 4b'],
    '1o 2o 10o 11o 12o 1c 6e 7e 10e 1b 6b 7b 10b',
    '1 juego, 2 paso, 3 paso, 1 entrada oros, 1 descarte, 2 contra, 2 descarte, 3 descarte',
    '1 7c, 2 12c, 3 6c, 2 12e, 3 2e, 1 rindo, 2 defiendo, 1 3e, 2 1e, 3 6o, 1 5o, 2 12b, 3 2b, 1 3b, 2 11c, 3 5c, 1 4c',
)


# ---- A16: a defended entrada ending r == p > d -------------------------------------------------


def test_a16_defended_entrada_r_equals_p_above_d_is_d_codillo_r():
    result = finished(A16)
    assert (result["rendido"], result["defender"]) == (1, 3)
    assert result["seatTricks"] == [0, 4, 4, 1]  # rendido 4, mano pobre 4, defender 1
    # Seed 20 item 4: the defender made fewer tricks than the first Jugador -> D-CODILLO-R, not the
    # D-PUESTA the puesta-real analogy (1-4-4) would give.
    assert result["outcome"] == "dCodilloR"
    assert "codilloTo" not in result  # no codillo payment to anybody
    # The defender makes the puesta (P = 5 + 20 into a plate holding no puesta); the rendido pays nothing.
    assert paid_by(result, "seat 1") == []
    assert paid_by(result, "seat 3") == [("plate", 25)]
    assert result["net"] == [-5, 0, 0, -25]
    assert result["table"] == {"plate": 30, "plateHolds": "primera", "cartulina": []}
    assert result["condiciones"] == []  # no condiciones in a defended hand


def test_a16_defenders_puesta_goes_to_the_cartulina_alone():
    """With a puesta already in the plate, only the defender's puesta is written: one entry, no gemelas."""
    result = finished(with_table(A16, PRIMERA_30))
    assert result["outcome"] == "dCodilloR"
    assert paid_by(result, "seat 1") == [] and paid_by(result, "seat 3") == []
    assert result["net"] == [-5, 0, 0, 0]
    assert result["table"] == {"plate": 35, "plateHolds": "primera", "cartulina": [{"seat": 3, "amount": 55}]}


def test_a16_defended_hand_ends_as_soon_as_only_d_codillo_r_is_left():
    """7.3 with the classes of 7.4: a defended hand ends once every split of the tricks left gives
    the same defended class. The A16 deal, its last two tricks played first: after trick 8 the
    rendido has 4, the mano pobre 3 and the defender 1, and the last trick gives D-CODILLO-R
    whoever takes it (2-4-3, 1-5-3, or the A16 edge 1-4-4). By the undefended classes of 7.1 it
    would still be open (codillo, or a puesta real at 1-4-4), so the hand must not wait for trick 9."""
    record = {**A16, "actions": A16["actions"][:-9] + ["2 6o", "3 1e", "1 5o", "3 4o", "1 7o", "2 3o"]}
    result = finished(record)
    assert winners(result) == [1, 2, 1, 2, 1, 2, 3, 1]
    assert result["seatTricks"] == [0, 4, 3, 1]
    assert result["outcome"] == "dCodilloR"
    assert "codilloTo" not in result
    assert paid_by(result, "seat 1") == [] and paid_by(result, "seat 3") == [("plate", 25)]
    assert result["net"] == [-5, 0, 0, -25]
    assert result["table"] == {"plate": 30, "plateHolds": "primera", "cartulina": []}


# ---- A22: estuches on the Jugador's hand when play starts --------------------------------------


def test_a22_the_turned_vuelta_card_completes_an_estuche():
    dealt = VUELTA_TURNS_7O["deal"]["hands"][1].split()
    assert {"1e", "1b"} <= set(dealt) and "7o" not in dealt and "1o" not in dealt
    result = finished(VUELTA_TURNS_7O)
    assert (result["lance"], result["trump"], result["turnUp"]) == ("vuelta", "oros", "7o")
    assert "solera" not in result and result["exchanged"][1] == 2
    assert result["outcome"] == "primeras" and winners(result) == [1] * 5
    assert result["estuches"] == 3
    assert result["condiciones"] == [{"item": "vuelta", "tantos": 2}, {"item": "estuches", "tantos": 3},
                                     {"item": "primeras", "tantos": 1}, {"item": "jugar", "tantos": 5}]
    # 2 + 3 + 1 + 5 = 11 -> 15 from each of three (without the estuches: 8 -> 10); the plate's 5.
    assert result["net"] == [-20, 50, -15, -15]


def test_a22_a_card_drawn_in_the_exchange_counts():
    result = finished(ENTRADA_DRAWS_7O)
    assert winners(result) == [1] * 5 and result["estuches"] == 3
    assert {"item": "estuches", "tantos": 3} in result["condiciones"]
    assert result["net"] == [-15, 35, -10, -10]  # 3 + 1 + 5 = 9 -> 10 each


def test_a22_a_card_discarded_in_the_exchange_does_not_count():
    assert DISCARDS_1B["deal"] == KEEPS_1B["deal"]
    kept = finished(KEEPS_1B)
    assert kept["estuches"] == 5  # 1e 7o 1b 1o 12o
    assert kept["net"] == [-20, 50, -15, -15]  # 5 + 1 + 5 = 11 -> 15 each
    discarded = finished(DISCARDS_1B)
    assert discarded["exchanged"][1] == 1
    assert winners(discarded) == winners(kept) == [1] * 5
    # 1e 7o 1o 12o without the basto: a partial holding, nothing counted.
    assert discarded["estuches"] == 0 and discarded["contraestuches"] == 0
    assert discarded["condiciones"] == [{"item": "primeras", "tantos": 1}, {"item": "jugar", "tantos": 5}]
    assert discarded["net"] == [-15, 35, -10, -10]  # 1 + 5 = 6 -> 10 each


# ---- A27: 1-4-4 is a puesta real, settled as a puesta --------------------------------------------


def test_a27_one_four_four_is_a_puesta_real_without_codillo():
    result = finished(PUESTA_REAL)
    assert result["seatTricks"] == [0, 1, 4, 4]
    assert result["outcome"] == "puestaReal"
    assert "codilloTo" not in result and result["primerasContra"] is False
    # Settled exactly as a puesta: no condiciones here (an entrada, no estuches), the puesta
    # 5 + 20 into the plate, nothing paid to either contra player.
    assert paid_by(result, "seat 1") == [("plate", 25)]
    assert result["net"] == [-5, -25, 0, 0]
    assert result["table"] == {"plate": 30, "plateHolds": "primera", "cartulina": []}
    puesta = finished(PUESTA_441)
    assert puesta["seatTricks"] == [0, 4, 4, 1] and puesta["outcome"] == "puesta"
    assert (puesta["net"], puesta["table"], puesta["payments"]) == (result["net"], result["table"], result["payments"])


def test_a27_puesta_real_on_a_plate_holding_a_puesta_goes_to_the_cartulina():
    result = finished(with_table(PUESTA_REAL, PRIMERA_30))
    assert result["outcome"] == "puestaReal" and "codilloTo" not in result
    assert paid_by(result, "seat 1") == []
    assert result["net"] == [-5, 0, 0, 0]
    assert result["table"] == {"plate": 35, "plateHolds": "primera", "cartulina": [{"seat": 1, "amount": 55}]}


# ---- A35: irregular actions are rejected, never applied ------------------------------------------

# PUESTA_441's first tricks: S1 leads 7c, S2 12c, S3 6c (S2 wins); S2 leads 6o (a trump), S3 5o, S1 1e.
LEAD = at(PUESTA_441, "1 7c")
TRUMP_LEAD = at(PUESTA_441, "2 6o")


def irregular(index: int, action: str) -> dict[str, Any]:
    """PUESTA_441 with ``action`` in place of the action at ``index``, the legal rest kept after it."""
    actions = list(PUESTA_441["actions"])
    actions[index] = action
    return {**PUESTA_441, "actions": actions}


def test_a35_irregular_actions_are_violations_and_validation_stops_there():
    cases = [
        (LEAD + 1, "3 6c", "NOT_YOUR_TURN"),  # S3 plays before S2, whose turn it is
        (LEAD + 1, "2 4o", "MUST_FOLLOW_SUIT"),  # S2 holds 5c 10c 12c: a revoke
        (TRUMP_LEAD + 1, "3 2c", "MUST_PLAY_TRUMP"),  # trumps led, S3 holds 1o 5o
        (LEAD + 1, "2 1e", "CARD_NOT_IN_HAND"),  # the espada is S1's
        (LEAD, "2 12c", "NOT_YOUR_TURN"),  # a lead out of turn: the mano leads
        (LEAD + 1, "1 rindo", None),  # control: a legal call out of turn is not an irregularity
    ]
    for index, action, code in cases:
        record = irregular(index, action)
        if code is None:
            assert ok(cut(record, index + 1))["next"]["seat"] == 2
            continue
        result = api.validate(record)
        assert result["valid"] is False, action
        assert result["finished"] is False, action
        assert result["violation"]["action"] == index and result["violation"]["code"] == code, (action, result["violation"])
        for key in ("net", "payments", "table", "next"):
            assert key not in result, (action, key)
        # Never applied: the state is the one before the irregular action (its card is in no trick),
        # whatever legal actions follow it in the record.
        before = ok(cut(record, index))
        assert result["tricks"] == before["tricks"], action
        assert result["seatTricks"] == before["seatTricks"], action
        assert api.validate(cut(record, index + 1))["violation"] == result["violation"]


def test_a35_an_action_after_the_end_is_rejected():
    record = {**PUESTA_441, "actions": [*PUESTA_441["actions"], "2 12e"]}
    result = api.validate(record)
    assert result["valid"] is False and result["finished"] is False
    assert result["violation"]["action"] == len(PUESTA_441["actions"])
    assert result["violation"]["code"] == "NOT_ALLOWED_NOW"
    assert "net" not in result


# ---- Section 0: a surrender mid-trick keeps the trick and its turn ------------------------------------


def test_section0_surrender_mid_trick_out_of_turn_resumes_with_the_seat_to_play():
    record = RINDO_OUT_OF_TURN
    rindo = at(record, "1 rindo")
    assert record["actions"][rindo - 2:rindo] == ["1 2e", "2 12e"]  # trick 2 so far; S3 to play
    before = ok(cut(record, rindo))
    assert before["next"]["seat"] == 3 and "1 rindo" in legal(before)
    asked = ok(cut(record, rindo + 1))
    assert asked["phase"] == "surrender" and legal(asked) == {"2 bien", "2 defiendo"}
    assert asked["tricks"] == before["tricks"]  # the trick in progress is kept as it was
    assert legal(ok(cut(record, rindo + 2))) == {"3 bien", "3 defiendo"}
    resumed = ok(cut(record, rindo + 3))
    assert resumed["defender"] == 3 and resumed["rendido"] == 1
    assert resumed["next"]["seat"] == 3  # the turn is the one the surrender interrupted
    assert resumed["tricks"] == before["tricks"]
    assert resumed["tricks"][-1] == {"leader": 1, "cards": ["2e", "12e"]}
    assert cards_of(resumed, 3) == {"3e", "11e"}  # S3 follows the espadas led before the surrender
    assert not any(a.endswith("rindo") for a in legal(resumed))
    trick2 = ok(cut(record, rindo + 4))
    assert trick2["tricks"][1] == {"leader": 1, "cards": ["2e", "12e", "3e"], "winner": 2}
    result = finished(record)
    # Trick 1 stays with the rendido who won it; the defender takes five of the rest: D-WIN.
    assert winners(result) == [1, 2, 3, 3, 3, 3, 3]
    assert result["outcome"] == "dWin"
    assert paid_by(result, "seat 1") == [("seat 3", 25)]  # the rendido's puesta, to the defender
    assert result["net"] == [-5, -25, 0, 25]
    assert result["table"] == {"plate": 5, "plateHolds": "none", "cartulina": []}


def test_section0_surrender_at_his_own_turn_mid_trick_the_rendido_plays_on():
    record = RINDO_ON_HIS_TURN
    rindo = at(record, "1 rindo")
    assert record["actions"][rindo - 2:rindo] == ["2 12e", "3 2e"]  # trick 2 so far; S1 to play
    before = ok(cut(record, rindo))
    assert before["next"]["seat"] == 1
    assert legal(ok(cut(record, rindo + 1))) == {"2 bien", "2 defiendo"}
    resumed = ok(cut(record, rindo + 2))
    assert (resumed["defender"], resumed["rendido"]) == (2, 1)
    assert resumed["next"]["seat"] == 1  # the rendido's own turn, kept: he plays on as an opponent
    assert resumed["tricks"] == before["tricks"] and resumed["tricks"][-1] == {"leader": 2, "cards": ["12e", "2e"]}
    assert cards_of(resumed, 1) == {"3e", "5e"}  # and must follow the espadas led
    assert "1 rindo" not in legal(resumed) and "2 rindo" not in legal(resumed)
    trick2 = ok(cut(record, rindo + 3))
    assert trick2["tricks"][1] == {"leader": 2, "cards": ["12e", "2e", "3e"], "winner": 2}
    result = finished(record)
    # Trick 1, won by S2 before he defended, counts for him: five tricks, D-WIN (no bola decision).
    assert winners(result) == [2, 2, 2, 2, 2]
    assert result["outcome"] == "dWin" and "bola" not in result
    assert result["net"] == [-5, -25, 25, 0]
