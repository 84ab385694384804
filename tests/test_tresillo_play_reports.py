"""What the play of a Tresillo hand reports while it goes on and as it ends, through
``engine.api.validate``: the public fields of a hand in play (the lance's ``favor``, A8 and A40)
and the events of the bola (7.2), and the rules of the play a mutation pass over
engine/tresillo.py found no test checking.

Dealer 0 at 4 seats: mano 1, medio 2, postre 3, seat 0 is the alcalde. Favour suit bastos (the
default) unless stated.
"""

from __future__ import annotations

import pytest
from results_support import legal, legal_of, ok, violation, winners
from test_tresillo_decisions import cut, hand
from tresillo_support import STD, more, rec, trick7

from engine import api
from engine.errors import InvalidInput


def kinds(result: dict, first: int) -> list[tuple[str, int | None]]:
    """The events caused by the actions from index ``first`` on: (kind, seat)."""
    return [(e["kind"], e.get("seat")) for e in result["events"] if e["action"] >= first]


# ---- 3.3: the auction's state as the hand reports it --------------------------------------------


def test_3_3_level_zero_before_any_bid_and_no_level_in_an_annulled_hand():
    """3.3: the auction starts at ``level = 0``, ``holder = null``, the mano to speak; the public
    fields say so (level 0, no holder). The holder is reported only while the auction goes on; an
    annulled hand (everybody passed) reached no level and reports none."""
    result = ok(rec(STD, []))
    assert (result["phase"], result["level"], result["next"]["seat"]) == ("auction", 0, 1) and "holder" not in result
    result = ok(rec(STD, ["1 paso"]))
    assert (result["level"], result["next"]["seat"]) == (0, 2) and "holder" not in result
    result = ok(rec(STD, ["1 paso", "2 juego"]))
    assert (result["phase"], result["level"], result["holder"]) == ("auction", 1, 2)
    declare = ok(rec(STD, ["1 paso", "2 juego", "3 paso"]))
    assert (declare["phase"], declare["level"], declare["jugador"]) == ("declare", 1, 2) and "holder" not in declare
    annulled = ok(rec(STD, ["1 paso", "2 paso", "3 paso"]))
    assert (annulled["phase"], annulled["outcome"]) == ("over", "annulled")
    assert "level" not in annulled and "holder" not in annulled and "jugador" not in annulled


# ---- A8, A40: is the hand in play a favour hand ------------------------------------------------------


def test_a40_a8_favor_reported_while_the_hand_is_in_play():
    """A40: an entrada in the favour suit is a favour hand from its declaration; another suit is
    not. A8: a vuelta turning the favour suit is one too, unless ``vueltaFavor`` is off. The field
    is read from the unfinished hand (a finished hand's comes from the settlement)."""
    for lance, favor in (("entrada oros", False), ("entrada bastos", True), ("solo copas", False), ("solo bastos", True)):
        record, start = hand(([1, 2], {}), lance=lance)
        result = ok(cut(record, start))
        assert result["finished"] is False and (result["lance"], result["favor"]) == (lance.split()[0], favor), lance
        assert ok(cut(record, start + 3))["favor"] is favor
    vuelta, start = hand(([1, 2], {1: "5o"}), lance="vuelta", stock_top="4b", discards={1: "5o"})
    result = ok(cut(vuelta, start))
    assert (result["lance"], result["trump"], result["turnUp"], result["favor"]) == ("vuelta", "bastos", "4b", True)
    off = ok({**cut(vuelta, start), "rules": {"vueltaFavor": False}})
    assert (off["lance"], off["trump"], off["favor"]) == ("vuelta", "bastos", False)
    plain, start = hand(([1, 2], {1: "5b"}), lance="vuelta", stock_top="4o", discards={1: "5b"})
    assert ok(cut(plain, start))["favor"] is False


def test_a8_vuelta_favor_off_leaves_an_entrada_or_a_solo_in_the_favour_suit_a_favor():
    """A8: ``vueltaFavor`` touches only the vuelta; an entrada or a solo in the favour suit is a
    favour hand in play under ``vueltaFavor: false`` too (the field, and the declaration's event)."""
    for lance in ("entrada bastos", "solo bastos"):
        record, start = hand(([1, 2], {}), lance=lance)
        result = ok({**cut(record, start), "rules": {"vueltaFavor": False}})
        assert (result["lance"], result["trump"], result["favor"]) == (lance.split()[0], "bastos", True), lance
        declared = [e["text"] for e in result["events"] if e["kind"] == lance.split()[0]]
        assert declared == [f"seat 1 plays {lance.replace(' ', ' in ')} a favor"]


# ---- 7.2: the bola's events ---------------------------------------------------------------------------


def test_7_2_bola_events_decision_attempt_failure_and_bola():
    """7.2: after the Jugador's fifth straight trick the events say ``primeras`` (the decision is
    his); ``bola`` says he goes on; the first trick he loses is followed by ``bolaFailed`` and the
    hand ends there; nine tricks are followed by ``bolaMade``."""
    record, start = hand(([1, 1, 1, 1, 1, 2, 1, 1, 1], {}))
    after5 = start + 15
    decided = ok(cut(record, after5))
    assert kinds(decided, after5 - 1) == [("card", 3), ("trick", 1), ("primeras", 1)]
    assert legal(decided) == {"1 bola", "1 planto"}
    failed = {**record, "actions": [*record["actions"][:after5], "1 bola", *record["actions"][after5:after5 + 3]]}
    result = ok(failed)
    assert result["finished"] is True and result["outcome"] == "bolaFailed"
    assert kinds(result, after5) == [("bola", 1), ("card", 1), ("card", 2), ("card", 3), ("trick", 2), ("bolaFailed", 1)]
    record, start = hand(([1] * 9, {}))
    made = {**record, "actions": [*record["actions"][:after5], "1 bola", *record["actions"][after5:]]}
    result = ok(made)
    assert result["finished"] is True and result["outcome"] == "bola"
    last = len(made["actions"]) - 1
    assert kinds(result, last) == [("card", 3), ("trick", 1), ("bolaMade", 1)]
    assert [e["kind"] for e in result["events"]].count("bolaFailed") == 0
    planto = ok({**record, "actions": [*record["actions"][:after5], "1 planto"]})
    assert kinds(planto, after5) == [("planto", 1)] and planto["outcome"] == "primeras"


# ---- 2.2: the seats of a trick at four seats ----------------------------------------------------------


def test_2_2_resolve_trick_at_four_seats_skips_the_alcalde_whoever_deals():
    """2.2: at four seats the dealer is the alcalde; a trick is played by the three seats after
    him, from its leader round the table without him. Oros led under copas, the 12o second wins:
    the winner is the active seat after the leader, for every dealer and leader."""
    for dealer in range(4):
        order = [(dealer + k) % 4 for k in (1, 2, 3)]
        for leader in order:
            second = order[(order.index(leader) + 1) % 3]
            request = {"game": "tresillo", "seats": 4, "dealer": dealer, "leader": leader,
                       "contract": {"trump": "copas"}, "cards": "4o 12o 5o"}
            answer = api.resolve_trick(request)
            assert (answer["winnerIndex"], answer["winner"], answer["card"], answer["complete"]) == (1, second, "12o", True), (dealer, leader)


def test_2_2_resolve_trick_at_four_seats_needs_the_dealer_and_the_alcalde_cannot_lead():
    """2.2: at four seats the trick's seats depend on who deals (the alcalde plays no card), so
    ResolveTrick without a dealer is MISSING_FIELD on ``dealer``, and a leader who is the dealer
    is INVALID_FIELD on ``leader``. At three seats no dealer is needed."""
    request = {"game": "tresillo", "seats": 4, "leader": 1, "contract": {"trump": "copas"}, "cards": "4o 12o 5o"}
    with pytest.raises(InvalidInput) as err:
        api.resolve_trick(request)
    assert (err.value.code, err.value.field) == ("MISSING_FIELD", "dealer")
    with pytest.raises(InvalidInput) as err:
        api.resolve_trick({**request, "dealer": 2, "leader": 2})
    assert (err.value.code, err.value.field) == ("INVALID_FIELD", "leader")
    answer = api.resolve_trick({**request, "seats": 3})
    assert (answer["winnerIndex"], answer["winner"], answer["card"]) == (1, 2, "12o")


# ---- A12: a vuelta discards at least one card ------------------------------------------------------------


def test_a12_vuelta_discards_at_least_one_card():
    """A12 and section 0: the Jugador of a vuelta holds ten cards with the turned one and discards
    k >= 1 of the nine others (511 descartes); discarding nothing is NOT_ALLOWED_NOW. The entrada's
    Jugador may discard nothing (512 descartes)."""
    vuelta = rec(STD, ["1 juego", "2 paso", "3 paso", "1 vuelta"], stock_top="4b")
    listed = {a for a in legal_of(ok(vuelta), 1) if a.startswith("descarte")}
    assert len(listed) == 511 and "descarte" not in listed and "descarte 5b" in listed
    assert violation({**vuelta, "actions": [*vuelta["actions"], "1 descarte"]}) == (4, "NOT_ALLOWED_NOW")
    entrada = rec(STD, ["1 juego", "2 paso", "3 paso", "1 entrada oros"], stock_top="4b")
    listed = {a for a in legal_of(ok(entrada), 1) if a.startswith("descarte")}
    assert len(listed) == 512 and "descarte" in listed


# ---- A14: everybody passed, the espada forced --------------------------------------------------------------


def test_a14_if_all_pass_events_name_the_forced_seat_or_the_annulment():
    """A14 ``ifAllPass``: when the last seat passes, the events say ``espadaForzada`` with the seat
    holding 1e, who must now declare an entrada; by default (off), or with 1e in the baceta, the
    events say the hand is ``annulled``."""
    passes = ["1 paso", "2 paso", "3 paso"]
    forced = ok(rec(STD, passes, rules={"espadaForzada": "ifAllPass"}))
    assert kinds(forced, 2) == [("paso", 3), ("espadaForzada", 1)]
    assert (forced["phase"], forced["jugador"], forced["level"]) == ("declare", 1, 1)
    assert legal(forced) == {"1 entrada oros", "1 entrada copas", "1 entrada espadas", "1 entrada bastos"}
    annulled = ok(rec(STD, passes))
    assert kinds(annulled, 2) == [("paso", 3), ("annulled", None)] and annulled["outcome"] == "annulled"
    sleeping = ["", "10o 7o 1b 1o 12o 11o 3c 4e 5b", STD[2], STD[3]]  # 1e sleeps in the baceta
    annulled = ok(rec(sleeping, passes, rules={"espadaForzada": "ifAllPass"}, stock_top="1e"))
    assert kinds(annulled, 2) == [("paso", 3), ("annulled", None)] and annulled["outcome"] == "annulled"


# ---- A9, A33: the texts of the exchange and of the early end -------------------------------------------------


def test_a09_only_the_jugadors_one_card_vuelta_discard_is_called_a_vuelta_solera():
    """A9: the descarte event of the Jugador's one-card vuelta exchange says it is a vuelta
    solera; the opponents' descartes after it, and an entrada's exchange, say nothing of it."""
    def texts(record: dict, start: int) -> list[str]:
        return [e["text"] for e in ok(cut(record, start))["events"] if e["kind"] == "descarte"]

    solera, start = hand(([1, 2], {1: "5o"}), lance="vuelta", stock_top="4b", discards={1: "5o"})
    assert texts(solera, start) == ["seat 1 discards 1 and draws 0 (vuelta solera)", "seat 2 discards 0 and draws 0",
                                    "seat 3 discards 0 and draws 0"]
    entrada, start = hand(([1, 2], {}))
    assert texts(entrada, start) == ["seat 1 discards 0 and draws 0", "seat 2 discards 0 and draws 0", "seat 3 discards 0 and draws 0"]


def test_a09_under_vuelta_solera_allowed_false_a_one_card_vuelta_is_not_called_a_vuelta_solera():
    """A9: with ``vueltaSoleraAllowed`` off a one-card vuelta is a plain vuelta everywhere (scored
    2, not the solo's 20): neither its descarte event nor its condiciones call it a vuelta
    solera."""
    solera, start = hand(([1, 1, 1, 1, 2, 2, 1], {1: "5o"}), lance="vuelta", stock_top="4b", discards={1: "5o"})
    plain = {**solera, "rules": {"vueltaSoleraAllowed": False}}  # (won 5-2-0: decided after seven tricks)
    events = ok(cut(plain, start))["events"]
    assert [e["text"] for e in events if e["kind"] == "descarte"] == [
        "seat 1 discards 1 and draws 0", "seat 2 discards 0 and draws 0", "seat 3 discards 0 and draws 0"]
    reasons = {p["reason"] for p in ok(plain)["payments"] if p["payee"] == "seat 1" and p["payer"] != "plate"}
    assert reasons == {"condiciones of the vuelta won: vuelta 2 + jugar 5 = 7, rounded up 10, x2 a favor = 20"}  # (4b: bastos)


def test_a33_the_early_end_event_counts_the_tricks_left_unplayed():
    """A33 / 7.3: a hand that ends once its result is certain says how many tricks were left
    unplayed (the medio's solo, the mano taking tricks 1-5: a codillo, 4 tricks left); played
    out (``stopWhenDecided: false``), the last trick settles it with none left."""
    record, start = hand(([1] * 9, {}), jugador=2, lance="solo oros")
    after5 = start + 15
    result = ok(cut(record, after5))
    assert result["events"][-1] == {"kind": "over", "text": "the result is settled with 4 tricks unplayed", "action": after5 - 1}
    played_out = ok({**record, "rules": {"stopWhenDecided": False}})
    last = len(record["actions"]) - 1
    assert played_out["events"][-1] == {"kind": "over", "text": "the result is settled", "action": last}


# ---- 3.2, 3.4, 3.5, A14, A31: the refusals say which rule applies ----------------------------------------


def message(record: dict) -> str:
    """The message of a record's first violation, NOT_ALLOWED_NOW."""
    violation_ = api.validate(record)["violation"]
    assert violation_["code"] == "NOT_ALLOWED_NOW", violation_
    return violation_["message"]


def test_3_2_a14_3_4_the_refusals_of_the_auction_and_the_declaration_say_why():
    """3.2: juego only opens the auction; A14 ``mustOpen``: the espada's holder may not pass before
    any bid; A14 ``ifAllPass``: the forced holder declares an entrada; 3.4: a lance below the level
    reached is refused naming the level."""
    assert message(rec(STD, ["1 juego", "2 juego"])) == (
        "action 1 ('2 juego'): the auction already stands at level 1: juego only opens it; say mas or paso")
    assert message(rec(STD, ["1 paso"], rules={"espadaForzada": "mustOpen"})) == (
        "action 0 ('1 paso'): seat 1 holds the espada and nobody has bid: under espadaForzada mustOpen it must say juego")
    assert message(rec(STD, ["1 paso", "2 paso", "3 paso", "1 vuelta"], rules={"espadaForzada": "ifAllPass"})) == (
        "action 3 ('1 vuelta'): the espada's holder must play an entrada when everybody passed (espadaForzada ifAllPass)")
    voices = ["1 juego", "2 mas", "3 paso", "1 mas", "2 mas", "1 paso"]  # TR-1: S2 at level 3
    assert message(rec(STD, [*voices, "2 entrada oros"])) == (
        "action 6 ('2 entrada oros'): the auction reached level 3; entrada oros is below it "
        "(entrada 1, entrada a favor 2, vuelta 3, solo 4, solo a favor 5)")


def test_3_4_a7_without_a_favour_suit_a_lance_below_the_level_is_refused_citing_the_three_level_ladder():
    """3.4 / A7: under ``favorSuit: none`` the ladder is entrada 1, vuelta 2, solo 3, with no lance
    a favor; a lance below the level reached is refused citing that ladder, not the default's five
    levels (under which a vuelta would be 3, above the 2 reached here)."""
    voices = ["1 juego", "2 mas", "3 paso", "1 paso"]  # S2 at level 2
    assert message(rec(STD, [*voices, "2 entrada oros"], rules={"favorSuit": "none"})) == (
        "action 4 ('2 entrada oros'): the auction reached level 2; entrada oros is below it "
        "(favorSuit none: entrada 1, vuelta 2, solo 3)")


def test_3_2_a4_a_juego_at_the_top_level_is_told_to_pass_when_it_cannot_equal():
    """3.2 / A4: juego only opens the auction; at its top level (5, or 3 under ``favorSuit:
    none``) a seat that may not equal the bid can only pass, and the refusal of its juego says
    paso alone, not "mas or paso". Under ``auctionPriority: positional`` a seat speaking before
    the holder may still equal it, and is told mas or paso."""
    top = ["1 juego", "2 mas", "3 mas", "1 mas", "2 mas", "3 mas", "1 mas"]  # level 5, held by the mano
    assert message(rec(STD, [*top, "2 juego"])) == (
        "action 7 ('2 juego'): the auction already stands at level 5: juego only opens it; say paso")
    top3 = ["1 juego", "2 mas", "3 paso", "1 mas", "2 mas", "1 mas"]  # level 3 of 3, held by the mano
    assert message(rec(STD, [*top3, "2 juego"], rules={"favorSuit": "none"})) == (
        "action 6 ('2 juego'): the auction already stands at level 3: juego only opens it; say paso")
    held_by_3 = ["1 juego", "2 mas", "3 mas", "1 mas", "2 mas", "3 mas", "1 paso"]  # level 5, held by seat 3
    assert message(rec(STD, [*held_by_3, "2 juego"])) == (
        "action 7 ('2 juego'): the auction already stands at level 5: juego only opens it; say paso")
    assert message(rec(STD, [*held_by_3, "2 juego"], rules={"auctionPriority": "positional"})) == (
        "action 7 ('2 juego'): the auction already stands at level 5: juego only opens it; say mas or paso")


def test_a31_the_refusals_of_a_surrender_say_why():
    """A31 and 7.4: a rindo is refused during the exchange, after a surrender already made, for a
    vuelta solera under ``soleraSurrender: forbidden``, and once the Jugador has played to the
    fourth trick (also at his own turn under ``surrenderOnlyOnOwnTurn``), each saying which."""
    assert message(rec(STD, ["1 juego", "2 paso", "3 paso", "1 entrada oros", "1 rindo"])) == (
        "action 4 ('1 rindo'): a surrender comes after the exchange and before the Jugador's fourth card, not during the exchange")
    solera, start = hand(([1, 2], {1: "5o"}), lance="vuelta", stock_top="4b", discards={1: "5o"})
    assert message({**solera, "actions": [*solera["actions"][:start], "1 rindo"], "rules": {"soleraSurrender": "forbidden"}}) == (
        f"action {start} ('1 rindo'): a vuelta solera cannot be surrendered (soleraSurrender forbidden)")
    record, start = hand(([1] * 9, {}))  # S1's entrada, S1 wins every trick (and leads each)
    actions = record["actions"]
    assert message({**record, "actions": [*actions[:start], "1 rindo", "2 bien", "3 defiendo", "1 rindo"]}) == (
        f"action {start + 3} ('1 rindo'): the Jugador has already surrendered")
    late = "too late: the Jugador has played his card to the fourth trick"
    assert message({**record, "actions": [*actions[:start + 10], "1 rindo"]}) == f"action {start + 10} ('1 rindo'): {late}"
    own_turn = {**record, "actions": [*actions[:start + 12], "1 rindo"], "rules": {"surrenderOnlyOnOwnTurn": True}}
    assert ok(cut(own_turn, start + 12))["next"]["seat"] == 1  # S1 leads trick 5
    assert message(own_turn) == f"action {start + 12} ('1 rindo'): {late}"


def test_a31_a_rindo_by_an_opponent_or_in_a_solo_is_refused_saying_why():
    """A31 and 7.4: only the Jugador surrenders, and only an entrada or a vuelta: an opponent's
    rindo at his own turn names the Jugador, the Jugador's in a solo says it must be played out."""
    record, start = hand(([2, 1, 1], {}))  # S2 takes the first trick and leads the second
    assert message({**record, "actions": [*record["actions"][:start + 3], "2 rindo"]}) == (
        f"action {start + 3} ('2 rindo'): only the Jugador (seat 1) may surrender")
    solo, start = hand(([2, 1, 1], {}), lance="solo oros")
    assert message({**solo, "actions": [*solo["actions"][:start], "1 rindo"]}) == (
        f"action {start} ('1 rindo'): a solo cannot be surrendered: the Jugador must play it out")


def test_a31_a_rindo_during_the_auction_is_refused_saying_when_a_surrender_comes():
    """A31 and 7.4: a surrender is the Jugador's, after the exchange; during the auction nobody is
    the Jugador yet, and the mano's rindo there is refused saying when a surrender comes (it names
    no Jugador)."""
    assert message(rec(STD, ["1 rindo"])) == (
        "action 0 ('1 rindo'): a surrender comes after the exchange and before the Jugador's fourth card, not during the auction")
    assert message(rec(STD, ["1 juego", "2 rindo"])) == (
        "action 1 ('2 rindo'): a surrender comes after the exchange and before the Jugador's fourth card, not during the auction")


# ---- 3.3, 4, 7.2, 7.4: a card played outside the play ------------------------------------------------


def test_3_3_4_7_a_card_outside_the_play_is_refused_naming_what_the_seat_may_say():
    """Sections 3.3, 4, 7.2 and 7.4: cards are played only in the play (section 5). A card the seat
    to act holds, played during the auction, the declaration, the exchange, the contra question,
    the answers to a surrender or the bola decision, is NOT_ALLOWED_NOW, naming the phase in words
    (not by its API name) and what the seat may say in it (FORMAT.md's "a card during the auction")."""
    record, start = hand(([1] * 9, {}))  # S1's entrada; S1 wins every trick (and leads each)
    actions = record["actions"]  # S1 holds 1e, S2 6o (their first cards)
    cases = [
        (0, "1 1e", "auction", "auction", "seat 1 may say paso or juego"),
        (3, "1 1e", "declare", "declaration", "seat 1 may say entrada <suit>, vuelta or solo <suit>"),
        (4, "1 1e", "exchange", "exchange", "seat 1 may say descarte [cards]"),
        (5, "2 6o", "contraOrder", "choice of the primer contra", "seat 2 may say contra or cedo"),
    ]
    for n, card, phase, named, says in cases:  # (the phase's API name, and as the text names it)
        assert ok(cut(record, n))["phase"] == phase
        assert message({**record, "actions": [*actions[:n], card]}) == (
            f"action {n} ('{card}'): no card is played during the {named}: {says}"), phase
    surrender = [*actions[:start], "1 rindo"]
    assert message({**record, "actions": [*surrender, "2 6o"]}) == (
        f"action {start + 1} ('2 6o'): no card is played during the answers to the surrender: seat 2 may say bien or defiendo")
    five = actions[:start + 15]  # S1 has won tricks 1-5: the bola decision is his
    assert ok({**record, "actions": five})["phase"] == "bolaDecision"
    lead = actions[start + 15]
    assert message({**record, "actions": [*five, lead]}) == (
        f"action {start + 15} ('{lead}'): no card is played during the bola decision: seat 1 may say bola or planto")


# ---- 7.4, A32: the texts of a surrender and of its answers -------------------------------------------


def test_a32_the_surrender_events_name_who_answers_and_when_the_puesta_is_made():
    """7.4 / A32: an entrada surrendered asks the opponents in turn after the Jugador, and its
    event names the first asked; the first "bien" only accepts (the other opponent is still to
    answer), the second makes the surrendered entrada a puesta. A vuelta surrendered ends the hand
    (it cannot be defended)."""
    def said(record: dict, kind: str) -> list[str]:
        return [e["text"] for e in ok(record)["events"] if e["kind"] == kind]

    record, start = hand(([1, 2], {}))
    surrendered = {**record, "actions": [*record["actions"][:start], "1 rindo"]}
    assert said(surrendered, "rindo") == ["seat 1 surrenders the entrada; seat 2 answers first (bien or defiendo)"]
    assert said(more(surrendered, "2 bien"), "bien") == ["seat 2 accepts"]
    assert said(more(surrendered, "2 bien", "3 bien"), "bien") == [
        "seat 2 accepts", "seat 3 accepts: the surrendered entrada is a puesta"]
    vuelta, start = hand(([1, 2], {1: "5o"}), lance="vuelta", stock_top="4b", discards={1: "5o 6o"})
    assert said({**vuelta, "actions": [*vuelta["actions"][:start], "1 rindo"]}, "rindo") == [
        "seat 1 surrenders the vuelta: the hand ends (a vuelta cannot be defended)"]


def test_a32_a_defence_is_reported_as_defiendo_naming_the_defender():
    """7.4 / A32: the opponent who defends the surrendered entrada is reported by a "defiendo"
    event naming him (he plays on as the Jugador), not as one more "bien"."""
    record, start = hand(([1, 2], {}))
    defended = ok({**record, "actions": [*record["actions"][:start], "1 rindo", "2 bien", "3 defiendo"]})
    assert [(e["kind"], e["seat"], e["text"]) for e in defended["events"] if e["action"] >= start + 1] == [
        ("bien", 2, "seat 2 accepts"),
        ("defiendo", 3, "seat 3 defends the surrendered entrada and plays on as the Jugador")]
    assert (defended["phase"], defended["defender"]) == ("play", 3)


def test_a32_after_a_defence_a_rindo_is_refused_saying_the_defender_plays_the_hand_out():
    """7.4 / A32: the defender plays on as the Jugador and, by default, cannot surrender (the seed
    gives him no such right); the mano pobre never could, and the rendido has surrendered already.
    Each one's rindo is refused saying so, not naming the rendido as the Jugador who may."""
    record, start = hand(([1, 2], {}))
    acts = [*record["actions"][:start], "1 rindo", "2 bien", "3 defiendo"]
    defended = "the surrendered entrada is defended: seat 3 plays it out as the Jugador, and "
    assert message({**record, "actions": [*acts, "1 rindo"]}) == f"action {start + 3} ('1 rindo'): the Jugador has already surrendered"
    assert message({**record, "actions": [*acts, "1 1c", "2 rindo"]}) == \
        f"action {start + 4} ('2 rindo'): {defended}seat 2 was never the Jugador: he cannot surrender"  # (the mano pobre)
    assert message({**record, "actions": [*acts, "1 1c", "2 12c", "3 rindo"]}) == \
        f"action {start + 5} ('3 rindo'): {defended}a defender cannot surrender"


# ---- 6: the trick events -----------------------------------------------------------------------------


def test_6_each_trick_event_numbers_the_trick_and_names_its_winner_and_card():
    """6: each trick played is reported with its number (1 to 9 in the order played), its winner
    (who leads the next) and the winning card."""
    record, start = hand(([1, 2, 2, 3, 1], {}))
    result = ok(cut(record, start + 15))
    said = [(e["trick"], e["seat"], e["card"], e["text"]) for e in result["events"] if e["kind"] == "trick"]
    assert [(n, seat) for n, seat, _, _ in said] == [(1, 1), (2, 2), (3, 2), (4, 3), (5, 1)]
    assert [seat for _, seat, _, _ in said] == [t["winner"] for t in result["tricks"]]
    assert all(card in t["cards"] for (_, _, card, _), t in zip(said, result["tricks"], strict=True))
    assert all(text == f"trick {n} to seat {seat} with {card}" for n, seat, card, text in said)


# ---- 3.4: the vuelta's event ---------------------------------------------------------------------------


def test_3_4_the_vuelta_event_shows_the_turned_card_and_its_trump():
    """3.4: a vuelta turns the top baceta card face up (the Jugador takes it) and its printed suit
    is trump; the declaration's event shows the card. An entrada turns nothing."""
    vuelta, start = hand(([1, 2], {1: "5o"}), lance="vuelta", stock_top="4b", discards={1: "5o"})
    declared = [e for e in ok(cut(vuelta, start))["events"] if e["kind"] == "vuelta"]
    assert [(e["seat"], e["card"]) for e in declared] == [(1, "4b")]
    assert declared[0]["text"].startswith("seat 1 plays a vuelta: turns up 4b, trumps are bastos")
    entrada, start = hand(([1, 2], {}))
    assert all("card" not in e for e in ok(cut(entrada, start))["events"] if e["kind"] == "entrada")


def test_a12_an_entrada_discard_below_the_minimum_says_how_many_may_go():
    """A12 ``entradaMinDiscard: 1``: the Jugador of an entrada discards 1 to 9 (his nine cards,
    the baceta holding 13); none is refused saying so."""
    record = {**rec(STD, ["1 juego", "2 paso", "3 paso", "1 entrada oros", "1 descarte"]), "rules": {"entradaMinDiscard": 1}}
    assert message(record) == "action 4 ('1 descarte'): seat 1 may discard 1 to 9 cards here, not 0"


# ---- 7.3: the early end counts each opponent's tricks -----------------------------------------------------


def test_7_3_the_mano_as_jugador_plays_on_while_the_medio_and_postre_can_still_change_the_result():
    """7.3: the hand ends early only when every split of the tricks left gives the same result,
    counting each opponent's tricks apart. The mano's entrada; he takes trick 1 and the postre
    tricks 2-5: with four left (1, 0, 4 by mano, medio, postre) the postre's codillo, a puesta or
    even the medio's codillo may come, so play goes on to the end; the medio takes three and the
    mano the last, and the postre's four tricks against 2 and 3 are a codillo."""
    record, start = hand(([1, 3, 3, 3, 3, 2, 2, 2, 1], {}))
    after5 = ok(cut(record, start + 15))
    assert (after5["phase"], after5["seatTricks"]) == ("play", [0, 1, 0, 4])
    result = ok(record)
    assert (result["outcome"], winners(result)) == ("codillo", [1, 3, 3, 3, 3, 2, 2, 2, 1])


# ---- 3.2, A1: refusals of a bid before any, and of a card other than a forced lone matador ------------


def test_3_2_mas_before_anybody_has_bid_is_refused_saying_to_open_with_juego():
    """3.2: más raises the current bid, and juego opens the auction while nobody has bid; the mano's
    más before any bid is refused saying so (not as a bid he already holds)."""
    assert message(rec(STD, ["1 mas"])) == "action 0 ('1 mas'): nobody has bid yet: open with juego, or paso"
    assert message(rec(STD, ["1 paso", "2 mas"])) == "action 1 ('2 mas'): nobody has bid yet: open with juego, or paso"


def test_a1_a_lone_matador_forced_by_a_higher_one_is_named_in_the_refusal():
    """Section 5 and A1: a lone lower matador is forced by a higher matador led by the mano (TR-5
    b), or by any seat under ``matadorForcing: trickLeader`` (TR-5 k); the MUST_PLAY_TRUMP refusal
    names the matador held, the one led and who led it. An ordinary trump held is a plain "must
    play a trump" (TR-5 c)."""
    def refusal(record: dict) -> tuple[str, str]:
        violation_ = api.validate(record)["violation"]
        return violation_["code"], violation_["message"]

    record = trick7("o", 1, ["1 1e"], 2, "7o 3c 12b")
    assert refusal(more(record, "2 3c")) == ("MUST_PLAY_TRUMP", (
        f"action {len(record['actions'])} ('2 3c'): seat 2 holds 7o, the mala, its only trump, and the espada (1e) "
        "was led by the mano: the mala must be played, not 3c"))
    record = trick7("o", 3, ["3 1e"], 1, "1b 3c", {"matadorForcing": "trickLeader"})
    assert refusal(more(record, "1 3c")) == ("MUST_PLAY_TRUMP", (
        f"action {len(record['actions'])} ('1 3c'): seat 1 holds 1b, the basto, its only trump, and the espada (1e) "
        "was led by seat 3: the basto must be played, not 3c"))
    record = trick7("o", 1, ["1 1e"], 2, "7o 4o 3c")
    assert refusal(more(record, "2 3c")) == ("MUST_PLAY_TRUMP", (
        f"action {len(record['actions'])} ('2 3c'): seat 2 holds 4o 7o, trumps (oros), and a trump was led (1e): "
        "seat 2 must play a trump, not 3c"))


def test_1_2_the_punto_held_alone_is_an_ordinary_trump_not_a_forced_matador():
    """1.2 / 1.4: the matadores are the espada, the mala and the basto; the punto (the ace of a red
    trump suit, the fourth trump) is not one. A seat whose only trump is the punto must play it on
    a trump lead as any ordinary trump, and the refusal says so (it names no matador)."""
    record = trick7("o", 1, ["1 1e"], 2, "1o 3c")
    violation_ = api.validate(more(record, "2 3c"))["violation"]
    assert (violation_["code"], violation_["message"]) == ("MUST_PLAY_TRUMP", (
        f"action {len(record['actions'])} ('2 3c'): seat 2 holds 1o, a trump (oros), and a trump was led (1e): "
        "seat 2 must play a trump, not 3c"))


def test_3_2_3_4_a_call_of_another_phase_is_refused_naming_the_calls_of_this_one():
    """3.2: the auction has only three words (paso, juego, más); 3.4: after it the Jugador declares
    a lance. A lance named during the auction, or a voice of the auction during the declaration,
    is refused naming what the seat may say now (not as a lance below the level reached)."""
    assert message(rec(STD, ["1 entrada oros"])) == (
        "action 0 ('1 entrada oros'): entrada is not a call of the auction: seat 1 may say paso or juego")
    assert message(rec(STD, ["1 juego", "2 paso", "3 paso", "1 paso"])) == (
        "action 3 ('1 paso'): paso is not a call of the declaration: seat 1 may say entrada <suit>, vuelta or solo <suit>")


def test_3_2_a14_a_refusal_in_the_auction_names_only_the_voices_the_seat_has():
    """3.2 / A4 / A14: juego opens the auction and más raises it, up to the top level where only
    the mano equals; under ``espadaForzada: mustOpen`` the espada's holder may not pass while
    nobody has bid. A card or a call of another phase in the auction is refused naming the voices
    the seat has then, not all three words of the auction."""
    assert message(rec(STD, ["1 1e"])) == "action 0 ('1 1e'): no card is played during the auction: seat 1 may say paso or juego"
    assert message(rec(STD, ["1 juego", "2 4o"])) == (
        "action 1 ('2 4o'): no card is played during the auction: seat 2 may say paso or mas")
    voices = ["1 juego", "2 mas", "3 mas", "1 mas", "2 mas", "3 mas", "1 mas"]  # S1 holds level 5, the top
    assert message(rec(STD, [*voices, "2 bola"])) == "action 7 ('2 bola'): bola is not a call of the auction: seat 2 may say paso"
    forced = {"espadaForzada": "mustOpen"}  # S1 holds the espada
    assert message(rec(STD, ["1 3c"], rules=forced)) == (
        "action 0 ('1 3c'): no card is played during the auction: seat 1 may say juego")
    assert message(rec(STD, ["1 mas"], rules=forced)) == (
        "action 0 ('1 mas'): nobody has bid yet: open with juego; seat 1 holds the espada and may not pass (espadaForzada mustOpen)")


def test_3_4_a7_a_refusal_in_the_declaration_names_only_the_lances_at_the_level():
    """3.4 / A7: the Jugador declares a lance at or above the level the auction reached (entrada 1,
    entrada a favor 2, vuelta 3, solo 4, solo a favor 5). A card or a call of another phase then
    is refused naming those lances: at level 2 the entrada only in the favour suit, at level 3 no
    entrada, at level 5 only the solo a favor."""
    assert message(rec(STD, ["1 juego", "2 mas", "3 paso", "1 paso", "2 paso"])) == (
        "action 4 ('2 paso'): paso is not a call of the declaration: seat 2 may say entrada bastos, vuelta or solo <suit>")
    assert message(rec(STD, ["1 juego", "2 mas", "3 mas", "1 mas", "2 paso", "3 paso", "1 12o"])) == (
        "action 6 ('1 12o'): no card is played during the declaration: seat 1 may say vuelta or solo <suit>")
    voices = ["1 juego", "2 mas", "3 mas", "1 mas", "2 mas", "3 mas", "1 mas", "2 paso", "3 paso"]
    assert message(rec(STD, [*voices, "1 12o"])) == (
        "action 9 ('1 12o'): no card is played during the declaration: seat 1 may say solo bastos")


def test_7_4_a_call_in_the_play_names_the_jugadors_rindo_while_he_may_surrender():
    """7.4: the Jugador of an entrada may surrender until his card to the fourth trick. A call of
    another phase in the play is refused naming what the seat may do: the Jugador at his turn may
    play a card or say rindo; an opponent only plays a card."""
    record, start = hand(([1] * 9, {}))  # S1's entrada; S1 leads trick 1
    actions = record["actions"]
    assert message({**record, "actions": [*actions[:start], "1 paso"]}) == (
        f"action {start} ('1 paso'): paso is not a call of the play: seat 1 may say a card or rindo")
    assert message({**record, "actions": [*actions[:start + 1], "2 paso"]}) == (
        f"action {start + 1} ('2 paso'): paso is not a call of the play: seat 2 may say a card")


def test_3_2_a4_a_raise_at_the_top_level_is_refused_saying_only_the_mano_may_equal_it():
    """3.2 / A4: más raises by one, and at the ladder's top (level 5, solo a favor) only the mano's
    más, which equals, is left; the medio's más there is refused saying so."""
    voices = ["1 juego", "2 mas", "3 mas", "1 mas", "2 mas", "3 mas", "1 mas"]  # S1 holds level 5
    top = ok(rec(STD, voices))
    assert (top["level"], top["holder"], top["next"]["seat"]) == (5, 1, 2)
    assert message(rec(STD, [*voices, "2 mas"])) == (
        "action 7 ('2 mas'): the auction is at its top level 5: only the mano may equal it; seat 2 can only pass")


def test_a04_positional_a_raise_at_the_top_level_is_refused_naming_who_may_equal_it():
    """A4, ``auctionPriority: positional``: any seat speaking before the holder equals the bid, not
    only the mano; at the top level the postre's más over the medio's bid is refused saying so."""
    voices = ["1 paso", "2 juego", "3 mas", "2 mas", "3 mas", "2 mas", "3 mas", "2 mas", "3 mas", "2 mas"]
    top = ok({**rec(STD, voices), "rules": {"auctionPriority": "positional"}})
    assert (top["level"], top["holder"], top["next"]["seat"]) == (5, 2, 3)
    assert message({**rec(STD, [*voices, "3 mas"]), "rules": {"auctionPriority": "positional"}}) == (
        "action 10 ('3 mas'): the auction is at its top level 5: only a seat that speaks before seat 2, who holds it, "
        "may equal it (auctionPriority positional); seat 3 can only pass")


def test_5_a3_a_card_off_the_suit_led_is_refused_naming_the_cards_that_follow():
    """Section 5: a seat holding the plain suit led must follow it; A3: the espada (a trump) is no
    card of espadas, so playing it on an espadas lead is refused with a note saying why. An
    ordinary trump of another suit, or a plain card, is refused without the note."""
    record = trick7("c", 1, ["1 5e"], 2, "1e 7e 4c 3o")  # TR-5 g, copas trumps, and a trump 4c
    start = len(record["actions"])
    follow = "seat 2 holds 7e of espadas, the suit led (5e), and must follow it, not play"
    for card, note in (("1e", " (1e is a trump, not a card of espadas)"), ("4c", ""), ("3o", "")):
        violation_ = api.validate(more(record, f"2 {card}"))["violation"]
        assert (violation_["code"], violation_["message"]) == (
            "MUST_FOLLOW_SUIT", f"action {start} ('2 {card}'): {follow} {card}{note}"), card


def test_4_a_discard_of_no_cards_is_a_public_count_of_zero():
    """4 [CFG:revealDiscardCount=true, the default]: the number each seat exchanges is public, and
    the Jugador's entrada kept whole (no card discarded) is a count of 0 as soon as it is made;
    the seats that have not exchanged yet show -1, and before any exchange there is no count."""
    declared = rec(STD, ["1 juego", "2 paso", "3 paso", "1 entrada oros"])
    assert "exchanged" not in ok(declared)
    kept = ok(more(declared, "1 descarte"))
    assert (kept["phase"], kept["exchanged"]) == ("contraOrder", [-1, 0, -1, -1])
    assert "exchanged" not in ok({**more(declared, "1 descarte"), "rules": {"revealDiscardCount": False}})


def test_4_reveal_discard_count_off_hides_the_baceta_after_an_exchange_of_no_cards():
    """4 [CFG:revealDiscardCount=false]: the count is private even when it is 0. Once the
    Jugador has kept his entrada whole, the baceta's size (still 13) would tell it: no view gives
    it, as none does after an exchange of some cards."""
    kept = {**rec(STD, ["1 juego", "2 paso", "3 paso", "1 entrada oros", "1 descarte"]), "rules": {"revealDiscardCount": False}}
    for seat in (1, 2, 3):
        view = api.legal_actions(kept, seat)["view"]
        assert "stockSize" not in view and "exchanged" not in view, view
    assert api.legal_actions({**kept, "rules": {}}, 2)["view"]["stockSize"] == 13


def test_4_reveal_remainder_shows_the_baceta_once_every_exchange_is_made():
    """4 [CFG:revealRemainder]: the cards left in the baceta "sleep" unseen (the default); under
    ``revealRemainder`` true every view shows them once the exchange is over, and none does
    while a seat has still to exchange."""
    exchanged = rec(STD, ["1 juego", "2 paso", "3 paso", "1 entrada oros", "1 descarte 5b", "2 contra", "2 descarte 12b",
                          "3 descarte 11b"])
    shown = {**exchanged, "rules": {"revealRemainder": True}}
    for seat in (1, 2, 3):
        view = api.legal_actions(shown, seat)["view"]
        assert (view["phase"], view["stock"]) == ("play", "6c 7c 2e 3e 5e 6e 4b 6b 7b 10b")
        assert "stock" not in api.legal_actions(exchanged, seat)["view"]
        assert "stock" not in api.legal_actions({**shown, "actions": shown["actions"][:7]}, seat)["view"]


# ---- A12, A11: the vuelta's refusal says how many may go ---------------------------------------------------


def test_a12_a11_a_vuelta_kept_whole_is_refused_saying_one_to_nine_or_ten():
    """A12 / A11: the Jugador of a vuelta discards 1 to 9 (his nine dealt cards; the turned card
    stays), or 1 to 10 with ``vueltaTurnedCardDiscardable``: the twelve cards left in the baceta
    never bound it. Discarding nothing is refused naming that range."""
    vuelta = rec(STD, ["1 juego", "2 paso", "3 paso", "1 vuelta", "1 descarte"], stock_top="4b")
    assert message(vuelta) == "action 4 ('1 descarte'): seat 1 may discard 1 to 9 cards here, not 0"
    assert message({**vuelta, "rules": {"vueltaTurnedCardDiscardable": True}}) == (
        "action 4 ('1 descarte'): seat 1 may discard 1 to 10 cards here, not 0")


def test_a11_discarding_the_turned_card_is_refused_saying_it_stays_with_the_jugador():
    """A11: the card a vuelta turns up stays with the Jugador (default
    ``vueltaTurnedCardDiscardable: false``): a descarte naming it, alone or with others, is refused
    saying so, not by the count."""
    vuelta = rec(STD, ["1 juego", "2 paso", "3 paso", "1 vuelta"], stock_top="4b")
    stays = "the turned card 4b stays with the Jugador: it cannot be discarded"
    assert message(more(vuelta, "1 descarte 4b")) == f"action 4 ('1 descarte 4b'): {stays}"
    assert message(more(vuelta, "1 descarte 4b 5b")) == f"action 4 ('1 descarte 4b 5b'): {stays}"


# ---- 3.2, A4: the events of a más ------------------------------------------------------------------------


def test_3_2_a4_a_mas_event_says_whether_it_raises_the_bid_or_equals_it():
    """3.2 / A4: a más raises the bid a level, except the mano's (or, under ``auctionPriority:
    positional``, an earlier speaker's), which equals it; its event gives the level and says
    when it equals."""
    def mases(record: dict) -> list[tuple[int, int, str]]:
        return [(e["seat"], e["value"], e["text"]) for e in ok(record)["events"] if e["kind"] == "mas"]

    assert mases(rec(STD, ["1 juego", "2 mas", "3 mas", "1 mas"])) == [
        (2, 2, "seat 2: más (level 2)"), (3, 3, "seat 3: más (level 3)"), (1, 3, "seat 1: más (level 3, equalling)")]
    positional = {**rec(STD, ["1 paso", "2 juego", "3 mas", "2 mas"]), "rules": {"auctionPriority": "positional"}}
    assert mases(positional) == [(3, 2, "seat 3: más (level 2)"), (2, 2, "seat 2: más (level 2, equalling)")]
