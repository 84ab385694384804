"""The worked examples RT-1 ... RT-13 of rules/rentoy.md, as hand records in card notation.

Dealer 0, so the spec's seat Sn is seat n: team A = {S1, S3} is team 1, team B = {S2, S0} is
team 0, and ``table.score`` is written [B, A].
"""

from __future__ import annotations

from rentoy_support import DEAL_A, DEAL_B, PLAY_A, PLAY_B, A, B, more, rec
from results_support import cards_of, legal_of, ok, violation, winners

from engine import api


def score(a: int, b: int) -> list[int]:
    """A table score written as the spec writes it (A first), in the record's order [team 0, team 1]."""
    return [b, a]


def test_the_betting_deals_go_to_the_team_they_are_for():
    result = ok(rec(DEAL_A, "1o", PLAY_A))
    assert winners(result) == [1, 1] and result["handWinner"] == A
    result = ok(rec(DEAL_B, "1o", PLAY_B))
    assert winners(result) == [2, 2] and result["handWinner"] == B


def test_rt01_trump_beats_everything():
    hands = ["1e 4o 6b", "12e 3o 7b", "2e 5o 4b", "3c 6o 5b"]
    result = ok(rec(hands, "5c", ["1 12e", "2 2e", "3 3c", "0 1e"]))
    assert result["trump"] == "copas"
    assert winners(result) == [3]
    assert result["teamTricks"][A] == 1
    # The winner leads the next trick.
    assert result["next"]["seat"] == 3
    assert cards_of(result, 3) == {"6o", "5b"}
    # The same trick through ResolveTrick.
    out = api.resolve_trick({"game": "rentoy", "cards": "12e 2e 3c 1e", "contract": {"trump": "copas"},
                             "seats": 4, "leader": 1})
    assert (out["winnerIndex"], out["winner"], out["card"]) == (2, 3, "3c")


def test_rt02_arrastre_and_the_two_of_trumps():
    hands = ["1b 5c 6b", "12e 3o 5o", "2e 4b 7o", "10e 11e 3b"]
    record = rec(hands, "5e", ["1 12e"])
    result = ok(record)
    assert result["trump"] == "espadas"
    assert legal_of(result, 2) == {"2e", "envite"}
    result = ok(more(record, "2 2e"))
    assert legal_of(result, 3) == {"10e", "11e", "envite"}
    result = ok(more(record, "2 2e", "3 11e"))
    assert legal_of(result, 0) == {"1b", "5c", "6b", "envite"}
    result = ok(more(record, "2 2e", "3 11e", "0 5c"))
    assert winners(result) == [2]
    assert result["teamTricks"] == [1, 0]  # team B
    # S2 playing a non-trump on the trump lead is the arrastre's violation.
    assert violation(more(record, "2 4b")) == (1, "MUST_PLAY_TRUMP")
    assert violation(more(record, "2 2e", "3 3b")) == (2, "MUST_PLAY_TRUMP")
    # The refusal names the trump led (12e), not the last card played (2e).
    assert api.validate(more(record, "2 2e", "3 3b"))["violation"]["message"] == (
        "action 2 ('3 3b'): seat 3 holds 10e 11e, trump (espadas), and a trump was led (12e): "
        "the arrastre obliges seat 3 to play a trump, not 3b")


def test_rt02_through_resolve_trick_the_seat_after_the_leader_wins_with_the_two():
    """RT-2's trick through ResolveTrick: led by S1, its second card (S2's 2e) wins, and S2 is the
    seat after the leader in order of play (B2, T9), not the one before; the event says trump."""
    out = api.resolve_trick({"game": "rentoy", "cards": "12e 2e 11e 5c", "contract": {"trump": "espadas"},
                             "seats": 4, "leader": 1})
    assert (out["winnerIndex"], out["winner"], out["card"], out["complete"]) == (1, 2, "2e", True)
    assert out["events"] == [{"kind": "trick", "card": "2e", "seat": 2, "text": "seat 2 wins with 2e (trump)"}]
    # At six seats, led by S5: the third card (S1's 2e) wins.
    out = api.resolve_trick({"game": "rentoy", "cards": "12e 4e 2e 5c 3e 1e", "contract": {"trump": "espadas"},
                             "seats": 6, "leader": 5})
    assert (out["winnerIndex"], out["winner"]) == (2, 1)


def test_rt03_free_play_on_a_plain_lead():
    # The spec gives S0 the 5c that it also puts in S2's hand; S0 plays 6c here (off-suit, not
    # trump: the same role in the trick).
    hands = ["6c 1b 2b", "7e 3b 4b", "3e 5c 4o", "12e 5b 6b"]
    record = rec(hands, "1o", ["1 7e"])
    result = ok(record)
    assert result["trump"] == "oros"
    assert legal_of(result, 2) == {"3e", "5c", "4o", "envite"}
    trumped = ok(more(record, "2 4o", "3 12e", "0 6c"))
    assert winners(trumped) == [2]
    followed = ok(more(record, "2 3e", "3 12e", "0 6c"))
    assert winners(followed) == [3]
    discarded = ok(more(record, "2 5c", "3 12e", "0 6c"))
    assert winners(discarded) == [3]


def test_rt04_plain_suit_order():
    hands = ["7e 4b 5b", "2c 6b 7b", "3c 10b 11b", "1c 12b 2b"]
    result = ok(rec(hands, "5o", ["1 2c", "2 3c", "3 1c", "0 7e"]))
    assert winners(result) == [3]
    out = api.resolve_trick({"game": "rentoy", "cards": "2c 3c 1c 7e", "contract": {"trump": "oros"}})
    assert out["winnerIndex"] == 2
    # A trick without a trump in it is won by the suit led, and its event says so (not "trump").
    out = api.resolve_trick({"game": "rentoy", "cards": "2c 3c 1c 7e", "contract": {"trump": "oros"}, "seats": 4, "leader": 1})
    assert out["events"][0]["text"] == "seat 3 wins with 1c (highest copas, the suit led)"


def test_rt05_two_is_lowest_only_in_plain_suits():
    hands = ["12e 4o 5o", "2c 6e 7e", "4e 10o 11o", "6o 3c 12o"]
    record = rec(hands, "5b", ["1 2c", "2 4e"])
    assert winners(ok(more(record, "3 6o", "0 12e"))) == [1]
    assert winners(ok(more(record, "3 3c", "0 12e"))) == [3]


def test_rt06_base_hand_early_end():
    result = ok(rec(DEAL_A, "1o", PLAY_A, score=score(0, 0)))
    assert result["finished"] is True
    assert winners(result) == [1, 1]
    assert len(result["tricks"]) == 2  # the third trick is not played
    assert result["value"] == 1
    assert result["points"] == [0, 1]  # A +1
    assert result["table"] == {"score": [0, 1]}
    assert "matchWinner" not in result
    # Anything after the deciding trick is too late.
    assert violation(rec(DEAL_A, "1o", [*PLAY_A, "1 3c"])) == (8, "NOT_ALLOWED_NOW")


def test_rt06_the_events_name_each_tricks_winner_and_the_hands():
    """RT-6, B4: validation reports each trick with the seat and team that took it and the card
    that won, then the hand, after the card that decides it."""
    events = api.validate(rec(DEAL_A, "1o", PLAY_A))["events"]
    assert [e["kind"] for e in events] == ["card"] * 4 + ["trick"] + ["card"] * 4 + ["trick", "hand"]
    assert [e for e in events if e["kind"] != "card"] == [
        {"kind": "trick", "seat": 1, "team": A, "card": "2o", "trick": 1, "text": "trick 1 to seat 1 (team 1) with 2o", "action": 3},
        {"kind": "trick", "seat": 1, "team": A, "card": "12o", "trick": 2, "text": "trick 2 to seat 1 (team 1) with 12o", "action": 7},
        {"kind": "hand", "team": A, "value": 1, "text": "team 1 wins 2 tricks: the hand, worth 1", "action": 7},
    ]


def test_rt06_each_card_is_reported_with_its_seat():
    """RT-6: every card played is an event naming the seat that played it and the card, in order
    of play (S1 leads, play goes to the right)."""
    events = api.validate(rec(DEAL_A, "1o", PLAY_A[:4]))["events"]
    assert events[:4] == [
        {"kind": "card", "seat": 1, "card": "2o", "text": "seat 1 plays 2o", "action": 0},
        {"kind": "card", "seat": 2, "card": "4e", "text": "seat 2 plays 4e", "action": 1},
        {"kind": "card", "seat": 3, "card": "7c", "text": "seat 3 plays 7c", "action": 2},
        {"kind": "card", "seat": 0, "card": "10c", "text": "seat 0 plays 10c", "action": 3},
    ]


def test_rt06_once_the_hand_is_won_or_folded_nobody_is_to_act():
    """RT-6, T5: after the deciding trick, or a refused envite, LegalActions names no seat to act
    and lists nothing, for the table and for every seat."""
    for actions in (PLAY_A, ["1 envite", "2 no-quiero"]):
        record = rec(DEAL_A, "1o", actions)
        out = api.legal_actions(record)
        assert out["finished"] is True and out["valid"] is True
        assert "seat" not in out and out["legal"] == [] and out["actions"] == []
        for seat in range(4):
            out = api.legal_actions(record, seat)
            assert "seat" not in out and out["legal"] == []


def test_rt07_fold_after_a_reraise():
    record = rec(DEAL_A, "1o", ["1 envite", "2 envite"], score=score(4, 5))
    pending = ok(record)
    assert pending["next"]["seat"] == 3  # the seat after the raiser answers for A
    assert legal_of(pending, 3) == {"quiero", "no-quiero", "envite"}
    assert pending["value"] == 3 and pending["proposal"]["value"] == 6
    result = ok(more(record, "3 no-quiero"))
    assert result["finished"] is True
    assert result["points"] == [3, 0]  # B scores 3
    assert result["table"] == {"score": score(4, 8)}
    # The events: A's bet, B's raise (accepting 3, proposing 6), A's refusal at the value accepted.
    assert [(e["kind"], e["seat"], e["team"], e["value"], e["action"]) for e in result["events"][:3]] == [
        ("envite", 1, A, 3, 0), ("raise", 2, B, 6, 1), ("no-quiero", 3, A, 3, 2)]
    assert result["events"][1]["text"] == "seat 2 (team 0) accepts 3 and raises to 6"


def test_rt07_rt08_each_call_is_reported_with_its_seat_team_and_value():
    """RT-7 / RT-8, B3: the events of the envite ladder in full: A's bet proposes 3, B's raise
    accepts 3 and proposes 6; then A accepts 6 (RT-8), or refuses it and B scores the 3 accepted
    (RT-7)."""
    bets = ["1 envite", "2 envite"]
    accepted = ok(rec(DEAL_A, "1o", [*bets, "3 quiero"], score=score(4, 5)))["events"]
    assert accepted == [
        {"kind": "envite", "seat": 1, "team": A, "value": 3, "text": "seat 1 (team 1) bets: the hand would be worth 3", "action": 0},
        {"kind": "raise", "seat": 2, "team": B, "value": 6, "text": "seat 2 (team 0) accepts 3 and raises to 6", "action": 1},
        {"kind": "quiero", "seat": 3, "team": A, "value": 6, "text": "seat 3 (team 1) accepts: the hand is worth 6", "action": 2},
    ]
    refused = ok(rec(DEAL_A, "1o", [*bets, "3 no-quiero"], score=score(4, 5)))["events"]
    assert refused[2] == {"kind": "no-quiero", "seat": 3, "team": A, "value": 3, "action": 2,
                          "text": "seat 3 (team 1) refuses 6: team 0 wins the hand at its last accepted value, 3"}


def test_rt08_accept_and_play():
    bets = ["1 envite", "2 envite", "3 quiero"]
    accepted = ok(rec(DEAL_A, "1o", bets, score=score(4, 5)))
    assert accepted["value"] == 6 and accepted["raiseRight"] == A
    # Play resumes with S1, whose turn it was; A holds the right to raise, B does not.
    assert accepted["next"]["seat"] == 1
    assert legal_of(accepted, 1) == {"2o", "12o", "3c", "envite"}
    after_s1 = ok(rec(DEAL_A, "1o", [*bets, "1 2o"], score=score(4, 5)))
    assert legal_of(after_s1, 2) == {"4e", "5e", "6e"}

    a_wins = ok(rec(DEAL_A, "1o", [*bets, *PLAY_A], score=score(4, 5)))
    assert a_wins["points"] == [0, 6]
    assert a_wins["table"] == {"score": score(10, 5)}
    b_wins = ok(rec(DEAL_B, "1o", [*bets, *PLAY_B], score=score(4, 5)))
    assert b_wins["points"] == [6, 0]
    assert b_wins["table"] == {"score": score(4, 11)}
    assert "matchWinner" not in a_wins and "matchWinner" not in b_wins


def test_rt09_raise_to_nine():
    # Value 6 accepted by A; in trick 1, at S3's turn (team A), A raises to 9; S0 answers for B.
    start = ["1 envite", "2 envite", "3 quiero"]
    raised = [*start, PLAY_A[0], PLAY_A[1], "3 envite"]
    pending = ok(rec(DEAL_A, "1o", raised, score=score(4, 5)))
    assert pending["proposal"] == {"value": 9, "seat": 3}
    assert pending["next"]["seat"] == 0

    fold = ok(rec(DEAL_A, "1o", [*raised, "0 no-quiero"], score=score(4, 5)))
    assert fold["points"] == [0, 6]
    assert fold["table"] == {"score": score(10, 5)}
    assert "matchWinner" not in fold

    a_wins = ok(rec(DEAL_A, "1o", [*raised, "0 quiero", *PLAY_A[2:]], score=score(4, 5)))
    assert a_wins["value"] == 9
    assert a_wins["points"] == [0, 9]
    assert a_wins["table"] == {"score": score(13, 5)}
    assert a_wins["matchWinner"] == A

    raised_b = [*start, PLAY_B[0], PLAY_B[1], "3 envite", "0 quiero"]
    b_wins = ok(rec(DEAL_B, "1o", [*raised_b, *PLAY_B[2:]], score=score(4, 5)))
    assert b_wins["points"] == [9, 0]
    assert b_wins["table"] == {"score": score(4, 14)}
    assert b_wins["matchWinner"] == B


def test_rt10_raise_right_enforcement():
    # A bets 3, B accepts without raising: value 3, raise right B.
    accepted = ["1 envite", "2 quiero", "1 2o", "2 4e"]
    result = ok(rec(DEAL_A, "1o", accepted))
    assert result["value"] == 3 and result["raiseRight"] == B
    assert legal_of(result, 3) == {"7c", "4b", "5b"}  # S3 (A) may not raise: no envite in its list
    assert violation(rec(DEAL_A, "1o", [*accepted, "3 envite"])) == (4, "NOT_ALLOWED_NOW")

    # B may raise to 6 at a B player's turn (S2, in trick 1); A accepts; then only A may propose 9.
    b_raises = ["1 envite", "2 quiero", "1 2o", "2 envite"]
    result = ok(rec(DEAL_A, "1o", b_raises))
    assert result["proposal"] == {"value": 6, "seat": 2} and result["next"]["seat"] == 3
    a_accepts = [*b_raises, "3 quiero", "2 4e"]
    result = ok(rec(DEAL_A, "1o", a_accepts))
    assert result["value"] == 6 and result["raiseRight"] == A
    assert "envite" in legal_of(result, 3)
    result = ok(rec(DEAL_A, "1o", [*a_accepts, "3 7c"]))
    assert legal_of(result, 0) == {"10c", "11c", "12c"}
    assert violation(rec(DEAL_A, "1o", [*a_accepts, "3 7c", "0 envite"])) == (7, "NOT_ALLOWED_NOW")
    nine = ok(rec(DEAL_A, "1o", [*a_accepts, "3 envite"]))
    assert nine["proposal"] == {"value": 9, "seat": 3}


def test_rt11_first_bet_refused():
    result = ok(rec(DEAL_A, "1o", ["1 envite", "2 no-quiero"], score=score(10, 7)))
    assert result["finished"] is True
    assert result["tricks"] == []
    assert result["points"] == [0, 1]
    assert result["table"] == {"score": score(11, 7)}
    assert "matchWinner" not in result


def test_rt12_twelve():
    climb = ["1 envite", "2 envite", "3 envite", "0 envite"]  # A 3, B 6, A 9, B 12
    pending = ok(rec(DEAL_A, "1o", climb, score=score(2, 0)))
    assert pending["value"] == 9 and pending["proposal"] == {"value": 12, "seat": 0}
    assert legal_of(pending, 1) == {"quiero", "no-quiero"}  # 12 cannot be raised
    assert violation(rec(DEAL_A, "1o", [*climb, "1 envite"], score=score(2, 0))) == (4, "NOT_ALLOWED_NOW")

    fold = ok(rec(DEAL_A, "1o", [*climb, "1 no-quiero"], score=score(2, 0)))
    assert fold["points"] == [9, 0]  # the proposer of 12, team B, scores 9
    assert fold["table"] == {"score": score(2, 9)}

    accepted = ok(rec(DEAL_A, "1o", [*climb, "1 quiero"], score=score(2, 0)))
    assert accepted["value"] == 12
    assert legal_of(accepted, 1) == {"2o", "12o", "3c"}  # no bet above 12
    a_wins = ok(rec(DEAL_A, "1o", [*climb, "1 quiero", *PLAY_A], score=score(2, 0)))
    assert a_wins["points"] == [0, 12] and a_wins["table"] == {"score": score(14, 0)}
    assert a_wins["matchWinner"] == A
    b_wins = ok(rec(DEAL_B, "1o", [*climb, "1 quiero", *PLAY_B], score=score(2, 0)))
    assert b_wins["points"] == [12, 0] and b_wins["table"] == {"score": score(2, 12)}
    assert b_wins["matchWinner"] == B


def test_rt13_six_players():
    hands = ["7c 4o 5e", "3b 4c 5o", "7b 1o 2e", "10c 11o 4e", "2b 12b 5c", "1b 6c 3o"]
    record = rec(hands, "4b", ["1 3b"])
    result = ok(record)
    assert result["trump"] == "bastos"
    assert cards_of(result, 2) == {"7b"}
    played = ["1 3b", "2 7b"]
    assert cards_of(ok(rec(hands, "4b", played)), 3) == {"10c", "11o", "4e"}
    played.append("3 10c")
    assert cards_of(ok(rec(hands, "4b", played)), 4) == {"2b", "12b"}
    for s4, rest in (("2b", ["5 1b", "0 7c"]), ("12b", ["5 1b", "0 4o"])):
        so_far = [*played, f"4 {s4}"]
        assert cards_of(ok(rec(hands, "4b", so_far)), 5) == {"1b"}
        assert cards_of(ok(rec(hands, "4b", [*so_far, "5 1b"])), 0) == {"7c", "4o", "5e"}
        result = ok(rec(hands, "4b", so_far + rest))
        assert winners(result) == [4], s4
        assert result["teamTricks"] == [1, 0]  # team B = {S2, S4, S0}
        assert result["next"]["seat"] == 4
