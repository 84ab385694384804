"""The ambiguities T1 ... T17 of rules/rentoy.md: each default, and each OPTION through the
record's ``rules`` object (API names as in engine/rentoy.py's ``Options``).

Dealer 0 unless stated: the spec's Sn is seat n, team A = odd seats (team 1), team B = even
seats (team 0); ``table.score`` is [team 0, team 1].
"""

from __future__ import annotations

import pytest
from rentoy_support import DEAL_A, DEAL_B, PLAY_A, PLAY_B, A, B, more, rec
from results_support import cards_of, legal, legal_of, ok, violation, winners

from engine import api, shuffle
from engine.cards import DECK_40
from engine.errors import InvalidInput

CLIMB = ["1 envite", "2 envite", "3 envite", "0 envite"]  # A 3, B 6, A 9, B 12 (default ladder)


# ---- B2: seating, direction, deal ----------------------------------------------------------


@pytest.mark.parametrize("seats, dealer", [(4, 2), (6, 5)])
def test_b2_seeded_deal_three_rounds_from_the_dealers_right_then_the_turn_up(seats, dealer):
    """B2: each player gets 3 cards, one at a time in three rounds from the seat after the
    dealer; the next card is turned up and its suit is trump; it belongs to nobody (T10)."""
    out = api.deal({"game": "rentoy", "seats": seats, "dealer": dealer, "seed": f"b2-{seats}"})
    pack = [str(c) for c in shuffle.shuffle(DECK_40.cards, f"b2-{seats}")]
    assert out["deal"]["hands"] == [" ".join(pack[(s - dealer - 1) % seats:3 * seats:seats]) for s in range(seats)]
    result = ok({"game": "rentoy", "seats": seats, "dealer": dealer, "deal": {"seed": f"b2-{seats}"}, "actions": []})
    words = {"o": "oros", "c": "copas", "e": "espadas", "b": "bastos"}
    assert result["turnUp"] == pack[3 * seats] and result["trump"] == words[pack[3 * seats][-1]]
    assert result["next"]["seat"] == (dealer + 1) % seats


def test_b2_partners_alternate_play_goes_to_the_right_three_tricks_of_one_card_each():
    """B2: partners alternate (even seats one team, odd seats the other); the dealer's right-hand
    neighbour (S1, seat dealer + 1) leads, play goes on to seat + 1 and the trick's winner leads
    the next; a hand has up to 3 tricks of one card from every player; the deal passes to S1."""
    # Dealer 2: S1 = seat 3, S2 = seat 0, S3 = seat 1, S0 = seat 2. Trump oros; nobody holds one.
    hands = ["3c 12e 6b", "4c 5e 12b", "5c 6e 7b", "12c 4e 5b"]
    play = ["3 12c", "0 3c", "1 4c", "2 5c",    # seat 3 (team 1)
            "3 4e", "0 12e", "1 5e", "2 6e",    # seat 0 (team 0)
            "0 6b", "1 12b", "2 7b", "3 5b"]    # seat 1 (team 1): team 1 has two tricks
    record = rec(hands, "1o", play, dealer=2)
    turns = [ok({**record, "actions": play[:i]})["next"]["seat"] for i in range(len(play))]
    assert turns == [int(a.split()[0]) for a in play]
    result = ok(record)
    assert winners(result) == [3, 0, 1] and [len(t["cards"]) for t in result["tricks"]] == [4, 4, 4]
    assert result["teamTricks"] == [1, 2] and result["handWinner"] == 1 and result["points"] == [0, 1]
    assert result["nextDealer"] == 3


# ---- T1: the ladder -------------------------------------------------------------------------


def test_t01_default_ladder_has_nine():
    steps = []
    for n in range(1, len(CLIMB) + 1):
        steps.append(ok(rec(DEAL_A, "1o", CLIMB[:n]))["proposal"]["value"])
    assert steps == [3, 6, 9, 12]
    accepted_nine = ok(rec(DEAL_A, "1o", [*CLIMB[:3], "0 quiero"]))
    assert accepted_nine["value"] == 9
    won = ok(rec(DEAL_A, "1o", [*CLIMB[:3], "0 quiero", *PLAY_A]))
    assert won["points"] == [0, 9]


def test_t01_option_ladder_without_nine():
    rules = {"ladder": "1-3-6-12"}
    steps = [ok(rec(DEAL_A, "1o", CLIMB[:n], rules=rules))["proposal"]["value"] for n in (1, 2, 3)]
    assert steps == [3, 6, 12]
    top = ok(rec(DEAL_A, "1o", CLIMB[:3], rules=rules))
    assert legal_of(top, 0) == {"quiero", "no-quiero"}  # 12 is the top: no raise
    assert violation(rec(DEAL_A, "1o", CLIMB, rules=rules)) == (3, "NOT_ALLOWED_NOW")
    fold = ok(rec(DEAL_A, "1o", [*CLIMB[:3], "0 no-quiero"], rules=rules))
    assert fold["points"] == [0, 6]  # 12 refused: the last accepted value, 6
    won = ok(rec(DEAL_A, "1o", [*CLIMB[:3], "0 quiero", *PLAY_A], rules=rules))
    assert won["value"] == 12 and won["points"] == [0, 12]


def test_t01_only_the_two_ladders():
    with pytest.raises(InvalidInput) as err:
        api.validate(rec(DEAL_A, "1o", rules={"ladder": "1-3-6-9"}))
    assert (err.value.code, err.value.field) == ("INVALID_OPTION_VALUE", "rules.ladder")


# ---- T2: when a bet may be made -------------------------------------------------------------


def test_t02_default_bet_only_at_ones_turn():
    start = ok(rec(DEAL_A, "1o"))
    assert legal(start) == {"1 2o", "1 12o", "1 3c", "1 envite"}
    assert violation(rec(DEAL_A, "1o", ["3 envite"])) == (0, "NOT_YOUR_TURN")
    assert violation(rec(DEAL_A, "1o", ["0 envite"])) == (0, "NOT_YOUR_TURN")
    # In mid-trick, at its own turn to play a card, a seat may bet.
    assert "envite" in legal_of(ok(rec(DEAL_A, "1o", ["1 2o", "2 4e"])), 3)


def test_t02_option_bet_any_time():
    rules = {"betTiming": "anytime"}
    start = ok(rec(DEAL_A, "1o", rules=rules))
    assert start["next"]["seat"] == 1
    assert {a for a in legal(start) if a.endswith("envite")} == {"0 envite", "1 envite", "2 envite", "3 envite"}
    # S3 bets while S1 is to play; S0, the seat after the bettor, answers; then S1 plays.
    bet = ok(rec(DEAL_A, "1o", ["3 envite"], rules=rules))
    assert bet["proposal"] == {"value": 3, "seat": 3} and bet["next"]["seat"] == 0
    assert legal(bet) == {"0 quiero", "0 no-quiero", "0 envite"}
    taken = ok(rec(DEAL_A, "1o", ["3 envite", "0 quiero"], rules=rules))
    assert taken["next"]["seat"] == 1
    assert {a for a in legal(taken) if a.endswith("envite")} == {"0 envite", "2 envite"}  # team B holds the right
    # Team A may not bet now, in turn or out of it.
    assert violation(rec(DEAL_A, "1o", ["3 envite", "0 quiero", "3 envite"], rules=rules)) == (2, "NOT_ALLOWED_NOW")
    assert violation(rec(DEAL_A, "1o", ["3 envite", "0 quiero", "1 envite"], rules=rules)) == (2, "NOT_ALLOWED_NOW")
    # S0 raises out of turn while S2 is to play; S1 answers; S2 then plays.
    raised = ok(rec(DEAL_A, "1o", ["3 envite", "0 quiero", "1 2o", "0 envite", "1 quiero"], rules=rules))
    assert raised["value"] == 6 and raised["next"]["seat"] == 2
    # Cards are still played in turn.
    assert violation(rec(DEAL_A, "1o", ["3 7c"], rules=rules)) == (0, "NOT_YOUR_TURN")
    # While a proposal is pending, nobody but the answerer acts.
    assert violation(rec(DEAL_A, "1o", ["3 envite", "2 envite"], rules=rules)) == (1, "NOT_YOUR_TURN")


def test_t02_option_bet_any_time_lists_the_turn_first_then_the_other_seats_in_the_order_of_play():
    # (docs/rules/rentoy.md, "Bets under betTiming anytime": the order of `next.legal`)
    rules = {"betTiming": "anytime"}
    assert ok(rec(DEAL_A, "1o", rules=rules))["next"]["legal"] == [
        "1 2o", "1 12o", "1 3c", "1 envite", "2 envite", "3 envite", "0 envite"]
    assert ok(rec(DEAL_A, "1o", ["1 2o", "2 4e"], rules=rules))["next"]["legal"] == [
        "3 7c", "3 4b", "3 5b", "3 envite", "0 envite", "1 envite", "2 envite"]

# ---- T3: who answers ------------------------------------------------------------------------


def test_t03_default_next_opponent_answers():
    bet = ok(rec(DEAL_A, "1o", ["1 envite"]))
    assert bet["next"]["seat"] == 2
    assert legal(bet) == {"2 quiero", "2 no-quiero", "2 envite"}
    assert violation(rec(DEAL_A, "1o", ["1 envite", "0 quiero"])) == (1, "NOT_YOUR_TURN")
    assert violation(rec(DEAL_A, "1o", ["1 envite", "3 quiero"])) == (1, "NOT_YOUR_TURN")
    # The bettor cannot play on before the answer.
    assert violation(rec(DEAL_A, "1o", ["1 envite", "1 2o"])) == (1, "NOT_YOUR_TURN")


def test_t03_option_any_opponent_answers():
    rules = {"answerBy": "anyOpponent"}
    bet = ok(rec(DEAL_A, "1o", ["1 envite"], rules=rules))
    assert bet["next"]["seat"] == 2  # the seat after the proposer is still named
    assert legal(bet) == {"2 quiero", "2 no-quiero", "2 envite", "0 quiero", "0 no-quiero", "0 envite"}
    taken = ok(rec(DEAL_A, "1o", ["1 envite", "0 quiero"], rules=rules))
    assert taken["value"] == 3 and taken["raiseRight"] == B and taken["next"]["seat"] == 1
    # S0 raises for B; team A answers, through S1 (after the raiser) or S3.
    raised = ok(rec(DEAL_A, "1o", ["1 envite", "0 envite"], rules=rules))
    assert raised["next"]["seat"] == 1
    assert {a.split()[0] for a in legal(raised)} == {"1", "3"}
    fold = ok(rec(DEAL_A, "1o", ["1 envite", "0 envite", "3 no-quiero"], rules=rules))
    assert fold["points"] == [3, 0]
    # The proposer's own partner cannot answer: it may not act out of turn.
    assert violation(rec(DEAL_A, "1o", ["1 envite", "3 quiero"], rules=rules)) == (1, "NOT_YOUR_TURN")
    # A partner of the seat named may act out of turn, so a raise of his past the top is refused
    # as a raise (NOT_ALLOWED_NOW), not as a turn he does not have.
    twelve = ["1 envite", "2 envite", "3 envite", "2 envite"]  # B's S2 raises to 12 for S0
    assert ok(rec(DEAL_A, "1o", twelve, rules=rules))["next"]["seat"] == 3
    assert violation(rec(DEAL_A, "1o", [*twelve, "1 envite"], rules=rules)) == (4, "NOT_ALLOWED_NOW")


def test_t03_option_any_opponent_a_partners_card_is_told_whose_turn_it_is_to_play_and_the_answers_it_may_give():
    """T3 option: while an envite waits, a card from a partner of the seat named to answer is
    NOT_YOUR_TURN (FORMAT.md's precedence), told who plays once the envite is answered and the
    answers that partner may give, from its legal list (no envite at the top of the ladder)."""
    rules = {"answerBy": "anyOpponent"}

    def refusal(actions: list[str]) -> dict:
        return api.validate(rec(DEAL_A, "1o", actions, rules=rules))["violation"]

    assert refusal(["1 envite", "0 10c"]) == {"action": 1, "code": "NOT_YOUR_TURN", "message": (
        "action 1 ('0 10c'): it is seat 1's turn to play once the pending envite is answered; "
        "seat 0 may answer the envite to 3 (quiero, no-quiero or envite)")}
    # S2's raise is answered by S3 or S1, the bettor, whose turn to play waits for the answer.
    assert refusal(["1 envite", "2 envite", "1 2o"])["message"] == (
        "action 2 ('1 2o'): it is seat 1's turn to play once the pending envite is answered; "
        "seat 1 may answer the envite to 6 (quiero, no-quiero or envite)")
    assert refusal([*CLIMB, "3 7c"])["message"] == (
        "action 4 ('3 7c'): it is seat 1's turn to play once the pending envite is answered; "
        "seat 3 may answer the envite to 12 (quiero or no-quiero: 12 is the top of the ladder)")
    # The proposer's partner may not answer: told only whose turn it is, as by default.
    assert refusal(["1 envite", "3 7c"])["message"] == "action 1 ('3 7c'): it is seat 2's turn, not seat 3's"


# ---- T4: raise rights -----------------------------------------------------------------------


def test_t04_default_either_team_bets_first_then_only_the_accepting_team():
    assert "envite" in legal_of(ok(rec(DEAL_A, "1o")), 1)  # team A may open
    assert "envite" in legal_of(ok(rec(DEAL_A, "1o", ["1 2o"])), 2)  # and so may team B
    accepted = ["1 envite", "2 quiero", "1 2o", "2 4e"]
    assert "envite" not in legal_of(ok(rec(DEAL_A, "1o", accepted)), 3)
    assert violation(rec(DEAL_A, "1o", [*accepted, "3 envite"])) == (4, "NOT_ALLOWED_NOW")
    # The accepting team B may raise at S0's turn.
    assert ok(rec(DEAL_A, "1o", [*accepted, "3 7c", "0 envite"]))["proposal"] == {"value": 6, "seat": 0}


def test_t04_option_free_raising():
    rules = {"raiseRights": "free"}
    accepted = ["1 envite", "2 quiero", "1 2o", "2 4e"]
    result = ok(rec(DEAL_A, "1o", accepted, rules=rules))
    assert "raiseRight" not in result
    assert "envite" in legal_of(result, 3)
    raised = ok(rec(DEAL_A, "1o", [*accepted, "3 envite", "0 quiero", "3 7c"], rules=rules))
    assert raised["value"] == 6
    assert "envite" in legal_of(raised, 0)  # and B, which accepted, may raise again too


# ---- T5: the value of a fold ----------------------------------------------------------------


@pytest.mark.parametrize("actions, points", [
    (["1 envite", "2 no-quiero"], [0, 1]),  # the first bet refused: 1
    (["1 envite", "2 envite", "3 no-quiero"], [3, 0]),  # 3 accepted by the raise, 6 refused: 3
    (["1 envite", "2 envite", "3 envite", "0 no-quiero"], [0, 6]),  # 9 refused: 6
    ([*CLIMB, "1 no-quiero"], [9, 0]),  # 12 refused: 9
    (["1 envite", "2 quiero", "1 2o", "2 envite", "3 no-quiero"], [3, 0]),  # a later raise refused
], ids=["first-bet", "raise-to-6", "raise-to-9", "raise-to-12", "later-raise"])
def test_t05_fold_scores_the_last_accepted_value(actions, points):
    result = ok(rec(DEAL_A, "1o", actions, score=[4, 5]))
    assert result["finished"] is True and result["end"] == "fold"
    assert result["points"] == points
    assert result["table"] == {"score": [4 + points[0], 5 + points[1]]}


# ---- T6: no concession without a bet --------------------------------------------------------


def test_t06_no_concession_without_a_pending_bet():
    assert violation(rec(DEAL_A, "1o", ["1 no-quiero"])) == (0, "NOT_ALLOWED_NOW")
    assert violation(rec(DEAL_A, "1o", ["1 quiero"])) == (0, "NOT_ALLOWED_NOW")
    assert violation(rec(DEAL_A, "1o", ["1 envite", "2 quiero", "1 no-quiero"])) == (2, "NOT_ALLOWED_NOW")
    assert not any("quiero" in a for a in legal(ok(rec(DEAL_A, "1o", ["1 envite", "2 quiero"]))))


# ---- T7: twelve decides the match -----------------------------------------------------------


def test_t07_a_hand_worth_twelve_always_decides_the_match():
    for a in range(12):
        for b in range(12):
            for winner in (0, 1):
                out = api.settle_hand({"game": "rentoy", "seats": 4, "table": {"score": [a, b]},
                                       "rentoy": {"winner": winner, "value": 12, "end": "tricks"}})
                assert out["matchWinner"] == winner
                assert out["table"]["score"][winner] == [a, b][winner] + 12
    # From the bottom of the table: A at 0 wins a hand at 12 against B at 11.
    result = ok(rec(DEAL_A, "1o", [*CLIMB, "1 quiero", *PLAY_A], score=[11, 0]))
    assert result["table"] == {"score": [11, 12]} and result["matchWinner"] == A


def test_b5_the_table_carries_only_the_score_another_games_field_is_accepted_only_empty():
    """B5 and FORMAT.md section 5: a Rentoy table is its score; a field of another game's table is
    read as that game's fresh table (0, empty, none) and refused with a value."""
    for empty in ({"fondo": 0}, {"plate": 0, "plateHolds": "none", "cartulina": []}, {"fondo": None}):
        result = ok(rec(DEAL_A, "1o", PLAY_A) | {"table": {"score": [4, 5], **empty}})
        assert result["table"] == {"score": [4, 6]}
    for name, value in (("fondo", 1), ("plate", 5), ("fondo", -1), ("cartulina", [{"seat": 0, "amount": 5}])):
        with pytest.raises(InvalidInput) as err:
            api.validate(rec(DEAL_A, "1o") | {"table": {"score": [4, 5], name: value}})
        assert (err.value.code, err.value.field) == ("INVALID_TABLE", f"table.{name}")


def test_b5_a_table_that_is_not_an_object_is_refused_naming_the_table():
    """B5 and FORMAT.md section 5: the table is an object ({"score": [...]}); a list such as the
    score alone, or a string, is INVALID_FIELD on ``table``, in a record and in SettleHand."""
    for table in ([4, 5], "4 5"):
        with pytest.raises(InvalidInput) as err:
            api.validate(rec(DEAL_A, "1o") | {"table": table})
        assert (err.value.code, err.value.field) == ("INVALID_FIELD", "table")
        with pytest.raises(InvalidInput) as err:
            api.settle_hand({"game": "rentoy", "seats": 4, "table": table, "rentoy": {"winner": 0, "value": 1}})
        assert (err.value.code, err.value.field) == ("INVALID_FIELD", "table")



@pytest.mark.parametrize("score", [[12, 0], [3, 15], [12, 12]])
def test_b5_a_table_where_a_team_already_has_twelve_is_refused_the_match_is_over(score):
    """B5 (docs/rules/rentoy.md, Score and match): a ``table.score`` in which a team already has 12
    or more is INVALID_TABLE, in a record and in SettleHand: that match is over, the next hand
    starts a new one at [0, 0]. 11 is still a match in play."""
    with pytest.raises(InvalidInput) as err:
        api.validate(rec(DEAL_A, "1o", score=score))
    assert (err.value.code, err.value.field) == ("INVALID_TABLE", "table.score")
    assert "the match is over" in err.value.message
    with pytest.raises(InvalidInput) as err:
        api.settle_hand({"game": "rentoy", "seats": 4, "table": {"score": score}, "rentoy": {"winner": 0, "value": 1}})
    assert (err.value.code, err.value.field) == ("INVALID_TABLE", "table.score")
    assert ok(rec(DEAL_A, "1o", PLAY_A, score=[11, 11]))["table"] == {"score": [11, 12]}


def test_b5_settle_hand_reads_an_end_left_out_as_tricks_and_an_empty_score_as_a_fresh_match():
    """B5 / T12 (docs/rules/rentoy.md, SettleHand's summary): a summary without ``end`` is a hand
    won by tricks (so is one whose ``end`` is null, as any field given null), and ``table.score: []`` is [0, 0], as a table left out is."""
    request = {"game": "rentoy", "seats": 4, "dealer": 0, "rentoy": {"winner": 1, "value": 3}}
    by_tricks = api.settle_hand({**request, "rentoy": {"winner": 1, "value": 3, "end": "tricks"}})
    assert api.settle_hand(request) == by_tricks
    assert api.settle_hand({**request, "rentoy": {"winner": 1, "value": 3, "end": None}}) == by_tricks  # (null, as left out)
    assert by_tricks["end"] == "tricks" and by_tricks["points"] == [0, 3] and by_tricks["table"] == {"score": [0, 3]}
    assert api.settle_hand({**request, "table": {"score": []}}) == by_tricks
    assert api.settle_hand({**request, "table": {"score": [0, 0]}}) == by_tricks
    assert ok(rec(DEAL_A, "1o", PLAY_A) | {"table": {"score": []}})["table"] == {"score": [0, 1]}

# ---- T8: partners alternate -----------------------------------------------------------------


def test_t08_partners_alternate_and_pool_their_tricks():
    # Six seats, trump oros: S3 wins trick 1 with the only trump, S5 trick 2: team A (1, 3, 5).
    hands = ["4c 5c 6c", "4e 5e 6e", "7e 10e 11e", "12o 3b 4b", "5b 6b 7b", "2o 10c 11c"]
    play = ["1 4e", "2 7e", "3 12o", "4 5b", "5 10c", "0 4c", "3 3b", "4 6b", "5 2o", "0 5c", "1 5e", "2 10e"]
    result = ok(rec(hands, "1o", play))
    assert winners(result) == [3, 5]
    assert result["teamTricks"] == [0, 2] and result["handWinner"] == A
    assert result["points"] == [0, 1]


@pytest.mark.parametrize("seats", [2, 4, 6, 8])
def test_t08_the_seat_after_a_bettor_is_an_opponent(seats):
    for bettor in range(seats):
        # The bettor leads (firstLeader "dealer" with the bettor as dealer); its neighbour answers.
        out = api.deal({"game": "rentoy", "seats": seats, "dealer": bettor, "seed": f"t8-{seats}-{bettor}"})
        record = {"game": "rentoy", "seats": seats, "dealer": bettor, "rules": {"firstLeader": "dealer"},
                  "deal": out["deal"], "actions": [f"{bettor} envite"]}
        answerer = (bettor + 1) % seats
        assert ok(record)["next"]["seat"] == answerer
        folded = ok(more(record, f"{answerer} no-quiero"))
        assert folded["handWinner"] == bettor % 2 != answerer % 2
        assert folded["points"][bettor % 2] == 1


# ---- T9: first leader and the next dealer ---------------------------------------------------


@pytest.mark.parametrize("seats, dealer", [(4, 0), (4, 2), (6, 5), (2, 1)])
def test_t09_defaults_first_player_after_dealer_deal_passes_on(seats, dealer):
    out = api.deal({"game": "rentoy", "seats": seats, "dealer": dealer, "seed": "t9"})
    record = {"game": "rentoy", "seats": seats, "dealer": dealer, "deal": out["deal"], "actions": []}
    first = (dealer + 1) % seats
    assert ok(record)["next"]["seat"] == first
    done = ok(more(record, f"{first} envite", f"{(first + 1) % seats} no-quiero"))
    assert done["nextDealer"] == (dealer + 1) % seats


@pytest.mark.parametrize("seats, dealer", [(4, 0), (4, 2), (6, 5), (2, 1)])
def test_t09_options_dealer_leads_deal_passes_back(seats, dealer):
    rules = {"firstLeader": "dealer", "nextDealer": "beforeDealer"}
    out = api.deal({"game": "rentoy", "seats": seats, "dealer": dealer, "seed": "t9"})
    record = {"game": "rentoy", "seats": seats, "dealer": dealer, "rules": rules, "deal": out["deal"], "actions": []}
    assert ok(record)["next"]["seat"] == dealer
    assert violation(more(record, f"{(dealer + 1) % seats} envite")) == (0, "NOT_YOUR_TURN")
    done = ok(more(record, f"{dealer} envite", f"{(dealer + 1) % seats} no-quiero"))
    assert done["nextDealer"] == (dealer - 1) % seats
    # SettleHand names him too, given the dealer: the same hand from its summary.
    summary = {"winner": done["handWinner"], "value": done["points"][done["handWinner"]], "end": done["end"]}
    settled = api.settle_hand({"game": "rentoy", "seats": seats, "dealer": dealer, "rules": rules, "rentoy": summary})
    assert (settled["nextDealer"], settled["points"]) == (done["nextDealer"], done["points"])
    assert "nextDealer" not in api.settle_hand({"game": "rentoy", "seats": seats, "rules": rules, "rentoy": summary})



@pytest.mark.parametrize("seats, dealer", [(4, 0), (4, 2), (6, 5), (2, 1)])
def test_t09_option_dealer_leads_a_seeded_deal_still_starts_with_the_seat_after_the_dealer(seats, dealer):
    """T9 / B2 (docs/rules/rentoy.md, the seeded deal): ``firstLeader: "dealer"`` moves the first
    lead, not the deal: a seeded record deals its first card to the seat after the dealer, as the
    ``Deal`` call (which takes no rules) does, and the dealer leads."""
    seed = f"t9-dealer-{seats}"
    pack = [str(c) for c in shuffle.shuffle(DECK_40.cards, seed)]
    record = {"game": "rentoy", "seats": seats, "dealer": dealer, "rules": {"firstLeader": "dealer"},
              "deal": {"seed": seed}, "actions": []}
    dealt = api.deal({"game": "rentoy", "seats": seats, "dealer": dealer, "seed": seed})["deal"]
    for seat in range(seats):
        held = set(api.legal_actions(record, seat)["view"]["hand"].split())
        assert held == set(pack[(seat - dealer - 1) % seats:3 * seats:seats]) == set(dealt["hands"][seat].split())
    assert pack[0] in api.legal_actions(record, (dealer + 1) % seats)["view"]["hand"].split()  # the first card dealt
    assert ok(record)["next"]["seat"] == dealer

# ---- T10: the turned-up card ----------------------------------------------------------------


def test_t10_the_turn_up_cannot_be_played():
    result = ok(rec(DEAL_A, "1o"))
    assert result["turnUp"] == "1o" and result["trump"] == "oros"
    assert "1 1o" not in legal(result)
    assert violation(rec(DEAL_A, "1o", ["1 1o"])) == (0, "CARD_NOT_IN_HAND")
    # The turn-up does not count as a trump held: on a trump lead S2, without trumps, plays freely.
    assert cards_of(ok(rec(DEAL_A, "1o", ["1 2o"])), 2) == {"4e", "5e", "6e"}


# ---- T11: the arrastre is the only duty -----------------------------------------------------


def test_t11_arrastre_must_play_a_trump_but_need_not_beat():
    hands = ["7o 6o 5o", "2e 4b 5b", "3e 12b 1c", "11e 10e 4o"]
    record = rec(hands, "6e", ["1 2e"])
    assert cards_of(ok(record), 2) == {"3e"}  # the lowest trump, and it cannot beat the 2
    assert cards_of(ok(more(record, "2 3e")), 3) == {"10e", "11e"}
    result = ok(more(record, "2 3e", "3 10e", "0 7o"))
    assert winners(result) == [1]
    assert violation(more(record, "2 12b")) == (1, "MUST_PLAY_TRUMP")


def test_t11_a_plain_lead_is_free():
    hands = ["7o 6o 1o", "7c 4b 5b", "3c 4e 5o", "11c 10e 4o"]
    record = rec(hands, "6e", ["1 7c"])
    assert cards_of(ok(record), 2) == {"3c", "4e", "5o"}  # follow, trump or discard
    assert winners(ok(more(record, "2 5o", "3 4o", "0 6o"))) == [1]  # off-suit cards never win
    assert winners(ok(more(record, "2 3c", "3 11c", "0 6o"))) == [3]


# ---- T12: early end of the hand -------------------------------------------------------------


def test_t12_default_stops_after_the_second_trick():
    result = ok(rec(DEAL_A, "1o", PLAY_A))
    assert result["finished"] is True and len(result["tricks"]) == 2
    assert violation(rec(DEAL_A, "1o", [*PLAY_A, "1 3c"])) == (8, "NOT_ALLOWED_NOW")


def test_t12_option_play_all_tricks():
    rules = {"playAllTricks": True}
    decided = ok(rec(DEAL_A, "1o", PLAY_A, rules=rules))
    assert decided["finished"] is False
    assert legal(decided) == {"1 3c"}  # the third trick, and no bet (T15)
    done = ok(rec(DEAL_A, "1o", [*PLAY_A, "1 3c", "2 6e", "3 5b", "0 12c"], rules=rules))
    assert done["finished"] is True
    assert winners(done) == [1, 1, 0]
    assert done["teamTricks"] == [1, 2]
    assert done["points"] == [0, 1]  # the third trick changes nothing
    assert violation(rec(DEAL_A, "1o", [*PLAY_A, "1 3c", "2 6e", "3 5b", "0 12c", "1 envite"], rules=rules)) \
        == (12, "NOT_ALLOWED_NOW")


def test_t12_option_play_all_tricks_a_hand_won_by_tricks_is_paid_for_two_or_three():
    """T12 ``playAllTricks``: the hand is played out, and a team may take all three tricks; the
    payment's reason says two or three, not "won two tricks" (SettleHand, told no trick count,
    gives the same reason as the record). Without the option it is two."""
    rules = {"playAllTricks": True}
    hands = ["10c 11c 4c", "2o 12o 12c", "4e 5e 6e", "7c 4b 5b"]
    actions = ["1 2o", "2 4e", "3 7c", "0 10c", "1 12o", "2 5e", "3 4b", "0 11c", "1 12c", "2 6e", "3 5b", "0 4c"]
    swept = ok(rec(hands, "1o", actions, rules=rules))
    assert swept["teamTricks"] == [0, 3]
    played_out = [{"payee": "team 1", "amount": 1, "reason": "hand worth 1: won two or all three tricks (playAllTricks)"}]
    assert swept["payments"] == played_out
    request = {"game": "rentoy", "seats": 4, "dealer": 0, "rentoy": {"winner": 1, "value": 1}}
    assert api.settle_hand({**request, "rules": rules})["payments"] == played_out
    assert api.settle_hand(request)["payments"][0]["reason"] == "hand worth 1: won two tricks"


# ---- T13: renuncio --------------------------------------------------------------------------

RENUNCIO_HANDS = ["1b 5c 6b", "12e 3o 5o", "2e 4b 7o", "10e 11e 3b"]  # trump espadas (turn-up 5e)


def test_t13_default_renuncio_is_prevented():
    record = rec(RENUNCIO_HANDS, "5e", ["1 12e"])
    assert cards_of(ok(record), 2) == {"2e"}
    assert violation(more(record, "2 4b")) == (1, "MUST_PLAY_TRUMP")


def test_t13_option_renuncio_penalty():
    rules = {"renuncio": "penalty"}
    record = rec(RENUNCIO_HANDS, "5e", ["1 envite", "2 quiero", "1 12e"], score=[3, 3], rules=rules)
    assert cards_of(ok(record), 2) == {"2e", "4b", "7o"}
    result = ok(more(record, "2 4b"))
    assert result["finished"] is True and result["end"] == "renuncio"
    assert result["handWinner"] == A  # seat 2 is team B: team A wins the hand
    assert result["points"] == [0, 3]  # at the current value
    assert result["table"] == {"score": [3, 6]}
    assert winners(result) == []  # the renounced trick has no winner
    assert violation(more(record, "2 4b", "3 10e")) == (4, "NOT_ALLOWED_NOW")
    # Not a renuncio: a seat without trumps, and any play on a plain lead.
    assert ok(more(record, "2 2e", "3 11e", "0 6b"))["finished"] is False
    plain = rec(RENUNCIO_HANDS, "5e", ["1 3o", "2 4b"], rules=rules)
    assert ok(plain)["finished"] is False


def test_t13_option_renuncio_penalty_the_event_names_the_offender_and_the_value():
    """T13 option: the hand's last event is the renuncio, naming the seat and team that renounced
    and the value the other team wins (the card before it is the renounced one)."""
    record = rec(RENUNCIO_HANDS, "5e", ["1 envite", "2 quiero", "1 12e", "2 4b"], score=[3, 3], rules={"renuncio": "penalty"})
    events = ok(record)["events"]
    assert [e["kind"] for e in events[-2:]] == ["card", "renuncio"]
    last = events[-1]
    assert {k: last[k] for k in ("seat", "team", "value", "action")} == {"seat": 2, "team": B, "value": 3, "action": 3}
    assert last["text"] == "seat 2 renounces: holds a trump on a trump lead and plays 4b; team 1 wins the hand at 3"


# ---- T14: two and eight players -------------------------------------------------------------


def test_t14_two_players():
    hands = ["7c 5b 6b", "12c 11c 4e"]
    record = rec(hands, "1o", ["1 12c", "0 7c", "1 11c", "0 5b"])
    result = ok(record)
    assert winners(result) == [1, 1] and result["points"] == [0, 1]
    bet = ok(rec(hands, "1o", ["1 envite"]))
    assert legal(bet) == {"0 quiero", "0 no-quiero", "0 envite"}


def test_t14_eight_players_use_24_cards_and_the_turn_up():
    out = api.deal({"game": "rentoy", "seats": 8, "dealer": 3, "seed": "t14"})
    hands = [h.split() for h in out["deal"]["hands"]]
    assert [len(h) for h in hands] == [3] * 8
    assert len(out["deal"]["stock"].split()) == 40 - 24
    record = {"game": "rentoy", "seats": 8, "dealer": 3, "deal": {"seed": "t14"}, "actions": []}
    result = ok(record)
    assert result["turnUp"] == out["deal"]["stock"].split()[0]
    assert legal(result) == {f"4 {c}" for c in hands[4]} | {"4 envite"}
    # The stock may hold the turn-up alone.
    short = rec(out["deal"]["hands"], out["deal"]["stock"].split()[0], dealer=3)
    assert ok(short)["next"] == result["next"]


@pytest.mark.parametrize("seats", [1, 3, 5, 10])
def test_t14_other_table_sizes_are_invalid(seats):
    with pytest.raises(InvalidInput) as err:
        api.validate({"game": "rentoy", "seats": seats, "dealer": 0, "deal": {"seed": "x"}})
    assert (err.value.code, err.value.field) == ("INVALID_SEATS", "seats")


# ---- T15: no bet once the hand is decided ---------------------------------------------------


def test_t15_no_bet_once_decided():
    rules = {"playAllTricks": True}
    assert violation(rec(DEAL_A, "1o", [*PLAY_A, "1 envite"], rules=rules)) == (8, "NOT_ALLOWED_NOW")
    anytime = {"playAllTricks": True, "betTiming": "anytime"}
    assert not any(a.endswith("envite") for a in legal(ok(rec(DEAL_A, "1o", PLAY_A, rules=anytime))))
    assert violation(rec(DEAL_A, "1o", [*PLAY_A, "2 envite"], rules=anytime)) == (8, "NOT_ALLOWED_NOW")
    # Undecided at one trick each: the bet is still open to the seat to play.
    one_each = ok(rec(DEAL_A, "1o", ["1 2o", "2 4e", "3 7c", "0 10c", "1 3c", "2 5e", "3 4b", "0 11c"]))
    assert winners(one_each) == [1, 0] and "envite" in legal_of(one_each, 0)


def test_t15_t06_the_refusals_say_which_rule_applies():
    """T15 and T6 through the violation's message: a bet once a team has two tricks is refused
    because the hand is decided; a quiero with no envite pending, because there is none."""
    decided = api.validate(rec(DEAL_A, "1o", [*PLAY_A, "1 envite"], rules={"playAllTricks": True}))["violation"]
    assert decided == {"action": 8, "code": "NOT_ALLOWED_NOW",
                       "message": "action 8 ('1 envite'): the hand is decided: a team already has two tricks, so no more bets"}
    nothing = api.validate(rec(DEAL_A, "1o", ["1 quiero"]))["violation"]
    assert nothing == {"action": 0, "code": "NOT_ALLOWED_NOW", "message": "action 0 ('1 quiero'): there is no envite for seat 1 to answer"}


def test_t04_t17_the_refusals_of_a_raise_say_which_rule_applies():
    """T4, T17 and B3 through the violation's message: a raise by the team that did not accept
    names the team holding the right; a raise of a proposal of 12, and a bet on a hand worth 12,
    are refused because 12 is the top of the ladder."""
    def message(actions: list[str]) -> str:
        return api.validate(rec(DEAL_A, "1o", actions))["violation"]["message"]

    assert message(["1 envite", "2 quiero", "1 2o", "2 4e", "3 envite"]) == (
        "action 4 ('3 envite'): team 0 accepted the last envite, so only team 0 may raise; seat 3 is in team 1")
    assert message([*CLIMB, "1 envite"]) == "action 4 ('1 envite'): the proposal is already 12, the top of the ladder: it cannot be raised"
    assert message([*CLIMB, "1 quiero", "1 envite"]) == "action 5 ('1 envite'): the hand is already worth 12: it cannot be raised"


def test_t17_b3_a_card_played_before_answering_a_proposal_of_twelve_is_told_quiero_or_no_quiero():
    """T17 / B3: a proposal of 12, the top of the ladder (under either ladder), cannot be raised:
    a card played before answering it is refused naming quiero or no-quiero only; below the top
    the answer may also be an envite."""
    assert api.validate(rec(DEAL_A, "1o", [*CLIMB, "1 2o"]))["violation"]["message"] == (
        "action 4 ('1 2o'): seat 1 must first answer the envite to 12 (quiero or no-quiero: 12 is the top of the ladder)")
    short = ["1 envite", "2 envite", "3 envite"]  # 3, 6, 12 on the ladder without 9
    assert api.validate(rec(DEAL_A, "1o", [*short, "0 10c"], rules={"ladder": "1-3-6-12"}))["violation"]["message"] == (
        "action 3 ('0 10c'): seat 0 must first answer the envite to 12 (quiero or no-quiero: 12 is the top of the ladder)")
    assert api.validate(rec(DEAL_A, "1o", ["1 envite", "2 4e"]))["violation"]["message"] == (
        "action 1 ('2 4e'): seat 2 must first answer the envite to 3 (quiero, no-quiero or envite)")


def test_t15_the_trick_winner_may_bet_before_leading():
    result = ok(rec(DEAL_A, "1o", PLAY_A[:4]))
    assert result["next"]["seat"] == 1 and "envite" in legal_of(result, 1)


# ---- T16: no envido, flor or señas ----------------------------------------------------------


@pytest.mark.parametrize("word", ["envido", "flor", "truco", "retruco", "vale-cuatro", "senas", "me-voy"])
def test_t16_truco_calls_do_not_exist(word):
    assert violation(rec(DEAL_A, "1o", [f"1 {word}"])) == (0, "MALFORMED_ACTION")


def test_t16_the_only_calls_are_envite_quiero_no_quiero():
    calls = {a.split()[1] for a in legal(ok(rec(DEAL_A, "1o", ["1 envite"])))}
    assert calls == {"envite", "quiero", "no-quiero"}


# ---- T17: raising to 12 when it changes nothing ---------------------------------------------


def test_t17_raising_to_twelve_is_allowed_even_when_pointless():
    # At 11-11 any hand decides the match, yet the ladder still climbs to 12.
    pending = ok(rec(DEAL_B, "1o", CLIMB[:3], score=[11, 11]))
    assert "envite" in legal_of(pending, 0)
    result = ok(rec(DEAL_B, "1o", [*CLIMB, "1 quiero", *PLAY_B], score=[11, 11]))
    assert result["value"] == 12 and result["points"] == [12, 0]
    assert result["table"] == {"score": [23, 11]} and result["matchWinner"] == B


# ---- options: names and values --------------------------------------------------------------


def test_every_option_of_the_spec_is_exposed_with_its_default():
    described = {o["name"]: o for o in api.describe_rules("rentoy")["options"]}
    assert {name: o["default"] for name, o in described.items()} == {
        "ladder": "1-3-6-9-12", "betTiming": "turn", "answerBy": "nextOpponent", "raiseRights": "accepting",
        "playAllTricks": False, "renuncio": "prevent", "firstLeader": "afterDealer", "nextDealer": "afterDealer",
    }
    assert set(described["ladder"]["choices"]) == {"1-3-6-9-12", "1-3-6-12"}


def test_an_unknown_option_is_invalid_input():
    with pytest.raises(InvalidInput) as err:
        api.validate(rec(DEAL_A, "1o", rules={"xyz": True}))
    assert (err.value.code, err.value.field) == ("UNKNOWN_OPTION", "rules.xyz")
    with pytest.raises(InvalidInput) as err:  # the Python spelling is not the API name
        api.validate(rec(DEAL_A, "1o", rules={"play_all_tricks": True}))
    assert (err.value.code, err.value.field) == ("UNKNOWN_OPTION", "rules.play_all_tricks")


@pytest.mark.parametrize("name, value", [
    ("ladder", "1-3-6-9-12-24"), ("betTiming", "never"), ("answerBy", 2), ("raiseRights", None),
    ("playAllTricks", "true"), ("playAllTricks", 1), ("renuncio", "PREVENT"), ("firstLeader", "left"),
    ("nextDealer", ["afterDealer"]),
])
def test_a_bad_option_value_is_invalid_input(name, value):
    with pytest.raises(InvalidInput) as err:
        api.validate(rec(DEAL_A, "1o", rules={name: value}))
    assert (err.value.code, err.value.field) == ("INVALID_OPTION_VALUE", f"rules.{name}")
