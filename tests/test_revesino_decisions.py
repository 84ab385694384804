"""The Revesino decisions of rules/revesino.md that had no test named after them: R3, R4, R6, R7,
R8, R15, R24, R25, R27, R28, R29-R31 and R38, and the money sections A6.2 (aces), A6.3 (the
quínola), A6.7 (the hand winner) and A6.9 (the order of the settlement), each through whole hand
records (``engine.api.validate``; SettleHand and ResolveTrick where they fit), default and OPTION
where the spec says Configurable.

Every hand here is scripted trick by trick (``scripted``): the cards of each trick in play order,
the leader of trick 1 being S1 and of each next trick the winner of the last. The hands dealt
are derived from the tricks and the exchange, so every figure below (points, tricks, payments,
net, fondo, escrow) is computed by hand from the spec and written out. Seats are written
relative to the dealer (S0 = dealer, S1 = the seat after him, ...); ``seat_after(d, k)`` is the
absolute seat of Sk when seat d deals. Fresh table (fondo 0) unless stated: the deal's antes
2 each and the fee 1 make the fondo 9.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest
from results_support import legal, legal_of, ok, violation, winners
from revesino_support import DECK, card_points, first_card_of_trick, more, moves, scripted, seat_after, through_trick, upto

from engine import api
from engine.errors import InvalidInput

# ---- scripted hands ----------------------------------------------------------------------------


def view(record: dict, s: int) -> dict:
    return api.legal_actions(record, s)["view"]


def hand(record: dict, s: int) -> set[str]:
    return set(view(record, s)["hand"].split())


def settle(record: dict, result: dict, **extra: Any) -> dict:
    """SettleHand on the summary of a validated hand (the tricks, the napolitana, the announcer)."""
    body: dict[str, Any] = {"tricks": [{"leader": t["leader"], "cards": " ".join(t["cards"])} for t in result["tricks"]], **extra}
    if "napolitana" in result:
        body["napolitana"] = result["napolitana"]["seat"]
    request = {"game": "revesino", "seats": 4, "dealer": record["dealer"], "rules": record.get("rules", {}),
               "table": record.get("table", {}), "revesino": body}
    return api.settle_hand(request)


def resolve(cards: str, leader: int, number: int, fondo: int, **extra: Any) -> list[tuple[str, str, int]]:
    out = api.resolve_trick({"game": "revesino", "seats": 4, "cards": cards, "leader": leader, "number": number,
                             "fondo": fondo, **extra})
    return [(p["payer"], p["payee"], p["amount"]) for p in out.get("payments", [])]  # none: no field


# ---- the hands ---------------------------------------------------------------------------------

# H1: S0 and S2 take every trick; S1 and S3 take none (0 points, 0 tricks each). No ace or
# quínola payment: 1c, 1e led, 1b and 1o played in suit with other cards of it, 10o led.
# Out of play 2o 3o 4o 5o (0 points): party 4. S0 takes 6 tricks and 26 points (T2 3, T3 7,
# T4 4, T5 3, T6 3, T10 6), S2 5 tricks and 17 points (T1 1, T7 4, T8 3, T9 3, T11 6).
H1 = [
    "2c 10c 5c 9c",    # 1: S1 leads; S0 plays 9c under S2's 10c though he holds 1c and 12c: S2
    "8c 6c 12c 3c",    # 2: S2 leads: S0
    "1c 4c 11c 7c",    # 3: S0
    "1e 2e 8e 5e",     # 4: S0
    "12e 3e 9e 6e",    # 5: S0
    "11e 4e 10e 7e",   # 6: S0
    "8b 2b 1b 5b",     # 7: S2 (1b in suit, he holds 12b 11b)
    "12b 6b 9b 3b",    # 8: S2 leads: S2
    "11b 7b 10b 4b",   # 9: S2
    "11o 8o 1o 6o",    # 10: S2 leads; S0's 1o (he holds 10o): S0
    "10o 7o 12o 9o",   # 11: S0 leads the quínola; S2's 12o wins
]
H1_WINNERS = [2, 0, 0, 0, 0, 0, 2, 2, 2, 0, 2]


def h1(dealer: int = 0, tricks: Sequence[str] = H1, **kw: Any) -> dict:
    return scripted(tricks, dealer=dealer, undealt="2o 3o 4o", exchange={0: "descarte 5o"}, **kw)


def rel(values: list[int], dealer: int) -> list[int]:
    """A list by relative seat (S0, S1, S2, S3) as a list by absolute seat."""
    out = [0] * 4
    for k, v in enumerate(values):
        out[seat_after(dealer, k)] = v
    return out


# ---- R3: the last tie-break for the hand winner ------------------------------------------------


@pytest.mark.parametrize("dealer", [0, 2])
def test_r03_tiebreak_play_order_by_default(dealer: int):
    # S1 and S3 tie on points (0) and tricks (0): dealer, S1, S2, S3 -> S1 wins. S0 has most
    # points (26) and pays him the party, 4. Antes 2 each, the dealer's fee 1.
    result = ok(h1(dealer))
    assert result["finished"] and winners(result) == [seat_after(dealer, k) for k in H1_WINNERS]
    assert result["cardPoints"] == rel([26, 0, 17, 0], dealer) and result["seatTricks"] == rel([6, 0, 5, 0], dealer)
    assert result["handWinner"] == seat_after(dealer, 1) and result["tiebreak"] == "seat"
    assert result["party"] == 4 and result["partyPayer"] == seat_after(dealer, 0)
    assert result["net"] == rel([-7, 2, -2, -2], dealer)
    assert result["table"] == {"fondo": 9}
    assert settle(h1(dealer), result)["net"] == result["net"]


@pytest.mark.parametrize("dealer", [0, 2])
def test_r03_tiebreak_dealer_then_left_option(dealer: int):
    # dealer, S3, S2, S1: S3 wins the same tie.
    record = h1(dealer, rules={"tiebreakOrder": "dealerThenLeft"})
    result = ok(record)
    assert result["handWinner"] == seat_after(dealer, 3) and result["tiebreak"] == "seat"
    assert result["partyPayer"] == seat_after(dealer, 0)
    assert result["net"] == rel([-7, -2, -2, 2], dealer)
    assert settle(record, result)["handWinner"] == seat_after(dealer, 3)


# ---- R4: does the dealer's 3 include the fee? ---------------------------------------------------


def test_r04_dealer_stake_includes_fee_by_default():
    record = h1()
    assert ok(upto(record, 0))["fondo"] == 9  # 2 + 2 + 2 + 2 antes, then the fee 1
    result = ok(record)
    assert moves(result)[:5] == [("seat 0", "fondo", 2), ("seat 1", "fondo", 2), ("seat 2", "fondo", 2),
                                 ("seat 3", "fondo", 2), ("seat 0", "fondo", 1)]
    assert result["net"] == [-7, 2, -2, -2] and result["table"] == {"fondo": 9}


def test_r04_dealer_stake_plus_fee_option():
    # The dealer's stake is 3 on top of the fee: the first fondo is 10.
    record = h1(rules={"dealerInitialStakeIncludesFee": False})
    assert ok(upto(record, 0))["fondo"] == 10
    result = ok(record)
    assert sum(a for payer, payee, a in moves(result) if payer == "seat 0" and payee == "fondo") == 4
    assert result["net"] == [-8, 2, -2, -2] and result["table"] == {"fondo": 10}
    assert settle(record, result)["net"] == [-8, 2, -2, -2]
    # Without a re-ante the option changes nothing: 12 + the fee.
    for rules in ({}, {"dealerInitialStakeIncludesFee": False}):
        carried = ok(h1(rules=rules, table={"fondo": 12}))
        assert carried["table"] == {"fondo": 13} and carried["net"] == [-5, 4, 0, 0]


# ---- R6: the exchange -----------------------------------------------------------------------------

# H2: H1's first nine tricks, then tricks 10 and 11 in low oros (S0 takes both). Dealer 3, so
# S1 = seat 0, S2 = seat 1, S3 = seat 2, S0 = seat 3. Undealt: 2o (S1's), 12o (S2's), 4o (S3's).
# S1 exchanges 1o for 2o; S2 keeps (12o goes out unseen by anyone else); S3 exchanges 11o for
# 4o; the dealer discards 10o. Out of play: 1o 12o 11o 10o = 4 + 3 + 2 + 3 = 12 points.
H2 = H1[:9] + [
    "7o 4o 9o 2o",     # 10: S2 leads: S0
    "8o 3o 6o 5o",     # 11: S0
]
H2_EXCHANGE = {1: "cambio 1o", 2: "quedo", 3: "cambio 11o", 0: "descarte 10o"}


def h2(**kw: Any) -> dict:
    return scripted(H2, dealer=3, undealt="2o 12o 4o", exchange=H2_EXCHANGE, **kw)


def test_r06_exchange_order_s1_s2_s3_then_the_dealer():
    record = h2()
    dealt = [set(h.split()) for h in record["deal"]["hands"]]
    start = upto(record, 0)
    assert ok(start)["phase"] == "exchange" and ok(start)["next"]["seat"] == 0
    assert legal(ok(start)) == {f"0 cambio {c}" for c in dealt[0]} | {"0 quedo"}
    for s in (1, 2, 3):
        assert violation(more(start, f"{s} quedo" if s != 3 else "3 descarte 10o")) == (0, "NOT_YOUR_TURN")
    assert [ok(upto(record, n))["next"]["seat"] for n in range(4)] == [0, 1, 2, 3]
    # The dealer, last, discards one of his twelve and takes nothing.
    assert legal(ok(upto(record, 3))) == {f"3 descarte {c}" for c in dealt[3]}
    assert violation(more(upto(record, 2), "3 descarte 10o")) == (2, "NOT_YOUR_TURN")
    after = ok(upto(record, 4))
    assert after["phase"] == "play" and after["next"]["seat"] == 0  # S1 leads trick 1
    assert after["exchanges"] == ["cambio", "quedo", "cambio", "descarte"]
    assert hand(upto(record, 4), 3) == dealt[3] - {"10o"}
    assert view(upto(record, 4), 3)["handSizes"] == [11, 11, 11, 11]


def test_r06_blind_by_default():
    record = h2()
    start = upto(record, 0)
    for s in range(4):
        assert "undealtCard" not in view(start, s), s
    # S1 chooses blind, then sees the card he took; S2 and S3 still see nothing of theirs.
    one = upto(record, 1)
    assert view(one, 0)["undealtCard"] == "2o" and view(one, 0)["discarded"] == "1o"
    assert "undealtCard" not in view(one, 1) and "undealtCard" not in view(one, 2)
    # S2 keeps, and then may look at the card he left.
    two = upto(record, 2)
    assert view(two, 1)["undealtCard"] == "12o" and "discarded" not in view(two, 1)
    assert "undealtCard" not in view(two, 2)
    three = upto(record, 3)
    assert view(three, 2)["undealtCard"] == "4o" and view(three, 2)["discarded"] == "11o"
    # The dealer has no undealt card; after his discard he sees it.
    done = upto(record, 4)
    assert "undealtCard" not in view(done, 3) and view(done, 3)["discarded"] == "10o"


def test_r06_peek_before_exchange_option():
    record = h2(rules={"peekBeforeExchange": True})
    start = upto(record, 0)
    assert [view(start, s).get("undealtCard") for s in range(4)] == ["2o", "12o", "4o", None]
    # Seeing it does not put it in his hand: the card exchanged comes from his original 11.
    assert "2o" not in hand(start, 0)
    assert violation(more(start, "0 cambio 2o")) == (0, "CARD_NOT_IN_HAND")
    assert violation(more(upto(record, 2), "2 cambio 4o")) == (2, "CARD_NOT_IN_HAND")
    result = ok(record)
    assert result["finished"] and result["net"] == ok(h2())["net"]


def test_r06_exchanged_card_comes_from_the_original_eleven():
    record = h2()
    dealt = [set(h.split()) for h in record["deal"]["hands"]]
    start = upto(record, 0)
    assert violation(more(start, "0 cambio 2o")) == (0, "CARD_NOT_IN_HAND")  # his undealt card is not his yet
    assert violation(more(upto(record, 2), "2 cambio 4o")) == (2, "CARD_NOT_IN_HAND")
    done = upto(record, 4)
    assert hand(done, 0) == dealt[0] - {"1o"} | {"2o"}
    assert hand(done, 2) == dealt[2] - {"11o"} | {"4o"}
    assert hand(done, 1) == dealt[1]


def test_r06_keepers_declined_card_goes_out_of_play():
    record = h2()
    kept = upto(record, 2)
    for s in range(4):
        assert "12o" not in hand(kept, s)
    # Nobody gets it: not the next seats, not the dealer.
    assert violation(more(upto(record, 3), "3 descarte 12o")) == (3, "CARD_NOT_IN_HAND")
    done = upto(record, 4)
    assert all("12o" not in hand(done, s) for s in range(4))
    assert set(DECK) - set().union(*(hand(done, s) for s in range(4))) == {"1o", "12o", "11o", "10o"}
    result = ok(record)
    assert "12o" not in {c for t in result["tricks"] for c in t["cards"]}
    assert result["party"] == 12 + 4  # its 3 points are in the party


# ---- R7: the four cards out of play ----------------------------------------------------------------


def test_r07_out_of_play_cards_count_for_nobody_but_make_the_party():
    record = h2()
    result = ok(record)
    played = [c for t in result["tricks"] for c in t["cards"]]
    assert len(played) == 44 and set(DECK) - set(played) == {"1o", "12o", "11o", "10o"}
    # Trick points: S0 (seat 3) 20, S2 (seat 1) 11; 31 = 43 - the 12 out of play.
    assert result["cardPoints"] == [0, 11, 0, 20] and sum(result["cardPoints"]) == 31
    assert result["cardPoints"] == [sum(card_points(c) for t in result["tricks"] if t["winner"] == s for c in t["cards"])
                                    for s in range(4)]
    # S1 and S3 tie at 0/0: S1 (seat 0) wins; S0 (seat 3) pays the party 12 + 4.
    assert result["handWinner"] == 0 and result["partyPayer"] == 3 and result["party"] == 16
    assert result["net"] == [14, -2, -2, -19] and result["table"] == {"fondo": 9}
    # SettleHand finds the same cards out of play (the four not played).
    s = settle(record, result)
    assert s["outOfPlay"] == "1o 10o 11o 12o" and s["party"] == 16 and s["net"] == result["net"]
    # The same hand with the low oros out of play (H1's tricks 10-11) makes a party of 4 only.
    assert ok(h1(3))["party"] == 4
    # partyBonus 0: the party is exactly the points out of play.
    assert ok(h2(rules={"partyBonus": 0}))["party"] == 12


# ---- R8: no obligation to beat ---------------------------------------------------------------------------


def test_r08_no_obligation_to_beat():
    record = h1()
    # Trick 1: S1 2c, S2 10c, S3 5c; the dealer holds 1c 12c 9c: all three are legal.
    at_s0 = upto(record, 7)
    result = ok(at_s0)
    assert result["next"]["seat"] == 0 and legal(result) == {"0 1c", "0 12c", "0 9c"}
    assert legal_of(result, 0) == {"1c", "12c", "9c"}
    result = ok(upto(record, 8))  # he plays 9c under the 10c
    assert result["tricks"][0] == {"leader": 1, "cards": ["2c", "10c", "5c", "9c"], "winner": 2}
    # S3 played 5c under S2's 10c; he held 6c and 7c: the low cards are legal too.
    assert legal_of(ok(upto(record, 6)), 3) == {"5c", "6c", "7c"}
    # No off-suit card is legal while he holds the suit.
    assert violation(more(at_s0, "0 1e")) == (7, "MUST_FOLLOW_SUIT")
    assert ok(record)["finished"]


# ---- R15: the quínola's escrow ------------------------------------------------------------------------

# H4: S3 is void in espadas. Tricks 1-6 go to S0, 7-9 to S2 (1b in suit with 12b 11b), 10 to S0
# (1o in suit with 9o), 11 to S2. S0 30 points in 7 tricks, S2 13 in 4; S1, S3 0/0: S1 wins and
# S0 pays him 4. Out of play 2e 3e 4e 2o. S3 places the quínola in trick 5 (H4), 10 (H4B) or
# 11 (H4C): he takes the fondo (9) and the winner S0 pays him 2, S1 and S2 1 each (x 2 in 11).
H4 = [
    "2c 8c 5c 11c",    # 1: S0
    "1c 3c 9c 6c",     # 2: S0
    "12c 4c 10c 7c",   # 3: S0
    "1e 5e 8e 3o",     # 4: S0 (S3 void)
    "12e 6e 9e 10o",   # 5: S0; S3 places the quínola
    "11e 7e 10e 4o",   # 6: S0
    "8b 2b 1b 5b",     # 7: S2
    "12b 6b 9b 3b",    # 8: S2
    "11b 7b 10b 4b",   # 9: S2
    "11o 7o 1o 5o",    # 10: S2 leads: S0
    "9o 6o 12o 8o",    # 11: S2
]
H4B = H4[:3] + [
    "8b 2b 1b 5b",     # 4: S2
    "12b 6b 9b 3b",    # 5: S2
    "11b 7b 10b 4b",   # 6: S2
    "11o 7o 1o 5o",    # 7: S0
    "9o 6o 12o 8o",    # 8: S2
    "8e 3o 1e 5e",     # 9: S2 leads, S3 void: S0 (1e in suit with 12e 11e)
    "12e 6e 9e 10o",   # 10: S0; S3 places the quínola
    "11e 7e 10e 4o",   # 11: S0
]
H4C = H4B[:9] + ["12e 6e 9e 4o", "11e 7e 10e 10o"]  # the quínola placed in trick 11


def h4(tricks: Sequence[str] = H4, **kw: Any) -> dict:
    return scripted(tricks, undealt="2e 3e 4e", exchange={0: "descarte 2o"}, **kw)


def test_r15_quinola_placed_in_tricks_1_to_9_is_escrowed_until_trick_10_is_led():
    """R15, A6.4: the fondo a quínola takes in tricks 1-9 waits in the escrow; made final when
    trick 10 is led without an announcement."""
    record = h4()
    assert ok(through_trick(record, 4))["fondo"] == 9
    after5 = ok(through_trick(record, 5))
    assert winners(after5)[-1] == 0
    assert (after5["fondo"], after5["escrow"]) == (0, 9)
    for n in (6, 7, 8, 9):
        r = ok(through_trick(record, n))
        assert (r["fondo"], r["escrow"]) == (0, 9), n
    # Trick 9 is over but nobody has led to trick 10: a revesino could still come; still escrowed.
    assert ok(through_trick(record, 9))["next"]["seat"] == 2
    led = ok(through_trick(record, 9, led=True))
    assert (led["fondo"], led["escrow"]) == (0, 0)
    result = ok(record)
    assert moves(result, 5) == [("fondo", "escrow", 9), ("seat 0", "seat 3", 2), ("seat 1", "seat 3", 1), ("seat 2", "seat 3", 1)]
    assert ("escrow", "seat 3", 9) in moves(result)
    assert result["cardPoints"] == [30, 0, 13, 0] and result["handWinner"] == 1 and result["partyPayer"] == 0
    assert result["net"] == [-9, 1, -3, 11] and result["escrow"] == 0 and result["table"] == {"fondo": 0}
    assert settle(record, result)["net"] == [-9, 1, -3, 11]
    # ResolveTrick has no escrow: the trick's payments, final.
    assert resolve("12e 6e 9e 10o", 0, 5, 9) == [("fondo", "seat 3", 9), ("seat 0", "seat 3", 2), ("seat 1", "seat 3", 1),
                                                 ("seat 2", "seat 3", 1)]


# H4R: H4 where S0 takes tricks 1-9 (7-9 with 1b 12b 11b), so he may announce before trick 10.
H4R = H4[:6] + [
    "1b 2b 8b 5b",     # 7: S0
    "12b 3b 9b 6b",    # 8: S0
    "11b 4b 10b 7b",   # 9: S0
    "9o 5o 11o 7o",    # 10: S0 leads: S2 takes it
    "12o 8o 1o 6o",    # 11: S2 leads; S0's 1o is his only oros: forced, he pays S2 1 x 2
]


def test_r15_escrow_waits_for_the_revesino_decision():
    """R15, A6.4: after trick 9 the escrow is made final if trick 10 is led without an
    announcement, reversed (the taker returns it to the fondo) if another seat announces."""
    plain = h4(H4R)
    after9 = ok(through_trick(plain, 9))
    assert winners(after9) == [0] * 9 and "0 revesino" in legal(after9)
    assert (after9["fondo"], after9["escrow"]) == (0, 9)
    # Led without an announcement: S3 keeps the 9.
    led = ok(through_trick(plain, 9, led=True))
    assert (led["fondo"], led["escrow"]) == (0, 0)
    result = ok(plain)
    assert result["cardPoints"] == [41, 0, 2, 0] and result["handWinner"] == 1 and result["partyPayer"] == 0
    assert moves(result, 11) == [("seat 0", "seat 2", 2)]
    assert result["net"] == [-11, 1, -1, 11] and result["table"] == {"fondo": 0}
    # Announced: the escrow goes back to the fondo and the side payments to their payers; S2
    # cuts in trick 10: S0 pays him 64 and doubles the fondo (9 -> 18). The hand ends there.
    announced = h4(H4R, before={10: ["0 revesino"]})
    announced = upto(announced, len(announced["actions"]) - 4)
    on = ok(through_trick(announced, 9))  # the announcement is made
    assert on["revesino"] == {"seat": 0, "outcome": "pending"} and (on["fondo"], on["escrow"]) == (9, 0)
    result = ok(announced)
    assert result["finished"] and result["revesino"] == {"seat": 0, "outcome": "cut", "cutter": 2}
    assert ("escrow", "fondo", 9) in moves(result) and not [m for m in moves(result) if m[:2] == ("escrow", "seat 3")]
    assert {("seat 3", "seat 0", 2), ("seat 3", "seat 1", 1), ("seat 3", "seat 2", 1)} <= set(moves(result))
    assert result["net"] == [-76, -2, 62, -2] and result["table"] == {"fondo": 18}


def test_r15_quinola_placed_in_trick_10_is_final_at_once():
    """R15, A6.4: a quínola movement in trick 10 or 11 is applied at once and finally."""
    record = h4(H4B)
    before = ok(through_trick(record, 9, led=True))
    assert (before["fondo"], before["escrow"]) == (9, 0)
    after = ok(through_trick(record, 10))
    assert winners(after) == [0, 0, 0, 2, 2, 2, 0, 2, 0, 0]
    assert (after["fondo"], after["escrow"]) == (0, 0) and not after["finished"]
    result = ok(record)
    assert moves(result, 10) == [("fondo", "seat 3", 9), ("seat 0", "seat 3", 2), ("seat 1", "seat 3", 1), ("seat 2", "seat 3", 1)]
    assert not [m for m in moves(result) if "escrow" in m[:2]]
    assert result["net"] == [-9, 1, -3, 11] and result["table"] == {"fondo": 0}


def test_r15_quinola_placed_in_trick_11_is_final_at_once_and_doubled():
    record = h4(H4C)
    result = ok(record)
    assert result["cardPoints"] == [30, 0, 13, 0]
    assert moves(result, 11) == [("fondo", "seat 3", 9), ("seat 0", "seat 3", 4), ("seat 1", "seat 3", 2), ("seat 2", "seat 3", 2)]
    assert not [m for m in moves(result) if "escrow" in m[:2]]
    assert result["net"] == [-11, 0, -4, 15] and result["table"] == {"fondo": 0}
    assert settle(record, result)["net"] == [-11, 0, -4, 15]
    assert resolve("11e 7e 10e 10o", 0, 11, 9) == [("fondo", "seat 3", 9), ("seat 0", "seat 3", 4), ("seat 1", "seat 3", 2),
                                                   ("seat 2", "seat 3", 2)]


# ---- R24, R25: the napolitana ----------------------------------------------------------------------

# H5: S2 holds 1o 1c 1e 10o and takes no trick. He renounces 1e in trick 1 holding 2c, the
# quínola in trick 3 (void in copas), 1c in trick 5 holding 3e, 1o in trick 7 holding 2b 3b.
# Out of play 3c 4b 4o 5o: party 4. S0 19 points in 4 tricks, S1 16 in 3, S3 8 in 4.
H5 = [
    "4c 1e 5c 12c",    # 1: S1 leads; S2 renounces 1e: S0 pays him 1 x 2
    "7c 8c 2c 9c",     # 2: S3
    "10c 11c 6c 10o",  # 3: S3 leads; S2 places the quínola: the fondo 9; S0 pays 2, S3 and S1 1
    "4e 5e 2e 6e",     # 4: S3
    "7e 8e 9e 1c",     # 5: S3 leads; S2 renounces 1c: S1 pays him 1
    "10e 3e 11e 12e",  # 6: S0
    "5b 6b 1o 7b",     # 7: S2 renounces 1o: S3 pays him 2 (the oros ace)
    "1b 8b 9b 2b",     # 8: S3
    "10b 11b 12b 3b",  # 9: S1
    "6o 2o 7o 8o",     # 10: S0; the napolitana follows suit now
    "9o 12o 3o 11o",   # 11: S1
]
H5_NET = [-11, -4, 20, -5]


def h5(**kw: Any) -> dict:
    return scripted(H5, undealt="3c 4b 4o", exchange={0: "descarte 5o"}, **kw)


def test_r24_napolitana_explicit_by_default():
    record = h5(calls=["2 napolitana"])
    exchange_end = 4
    assert "2 napolitana" in legal(ok(upto(record, exchange_end)))
    result = ok(record)
    assert result["napolitana"] == {"seat": 2, "outcome": "success"}
    assert result["handWinner"] == 2 and result["tiebreak"] == "napolitana"
    assert result["net"] == H5_NET and result["table"] == {"fondo": 0}
    # Without the call, his first renounce is a renuncio.
    bare = h5()
    assert violation(bare) == (first_card_of_trick(bare, 1) + 1, "MUST_FOLLOW_SUIT")


def test_r24_napolitana_implicit_option():
    record = h5(rules={"napolitanaDeclaration": "implicit"})
    assert not any(a.endswith("napolitana") for a in legal(ok(upto(record, 4))))
    called = h5(calls=["2 napolitana"], rules={"napolitanaDeclaration": "implicit"})
    assert violation(called) == (4, "NOT_ALLOWED_NOW")
    # Before his first renounce nobody knows; it declares the napolitana.
    first = first_card_of_trick(record, 1)
    assert "napolitana" not in ok(upto(record, first + 1))
    assert ok(upto(record, first + 2))["napolitana"] == {"seat": 2, "outcome": "pending"}
    result = ok(record)
    assert result["napolitana"] == {"seat": 2, "outcome": "success"} and result["handWinner"] == 2
    assert result["net"] == H5_NET
    assert settle(record, result)["net"] == H5_NET



# A seat that qualifies under implicit and never renounces (1o 1c 1e 10o): its only espada, the 1e,
# is forced in trick 1 by S1's lead, and it follows suit all hand.
NEVER_RENOUNCES = {
    "game": "revesino", "seats": 4, "dealer": 0, "rules": {"napolitanaDeclaration": "implicit"},
    "deal": {"hands": ["7e 9e 2b 11e 12c 9b 2e 7c 4e 2c 5o 10c", "5e 8b 12b 6c 3e 5b 4b 11c 3b 4c 8e",
                       "1o 1c 1e 10o 4o 3c 3o 10b 7o 12o 9c", "11b 2o 7b 8o 5c 6e 12e 10e 1b 9o 8c"], "stock": "11o 6b 6o"},
    "actions": ["1 quedo", "2 quedo", "3 quedo", "0 descarte 10c", "1 5e", "2 1e", "3 6e", "0 11e", "2 9c", "3 5c", "0 7c", "1 11c",
                "1 8b", "2 10b", "3 11b", "0 2b", "3 2o", "0 5o", "1 3b", "2 1o", "2 12o", "3 8o", "0 12c", "1 5b", "2 10o", "3 9o",
                "0 7e", "1 12b", "2 4o", "3 10e", "0 2e", "1 4b", "2 3c", "3 8c", "0 2c", "1 4c", "3 7b", "0 9b", "1 3e", "2 3o",
                "0 9e", "1 8e", "2 1c", "3 12e", "3 1b", "0 4e", "1 6c", "2 7o"]}


def test_r24_implicit_the_privilege_starts_at_the_first_renounce():
    """R24 implicit: "the privilege is invoked implicitly by the first renounce". A qualifying seat
    that never renounces is no napolitana, so its forced ace pays as anyone's (it was excused,
    though the result named no napolitana); one that renounces is the napolitana from that trick,
    its earlier forced plays having paid. SettleHand reads a hand the same way, and refuses a
    napolitana named under implicit that never renounced."""
    result = ok(NEVER_RENOUNCES)
    assert "napolitana" not in result
    assert [p for p in result["payments"] if p.get("trick") == 1] == [
        {"payer": "seat 2", "payee": "seat 1", "amount": 2, "reason": "1e forced in trick 1: pays the trick's leader 2", "trick": 1}]
    assert result["net"] == ok({**NEVER_RENOUNCES, "rules": {}})["net"] == [4, 0, -10, -3]
    tricks = [{"cards": " ".join(t["cards"])} for t in result["tricks"]]
    request = {"game": "revesino", "seats": 4, "dealer": 0, "rules": NEVER_RENOUNCES["rules"], "table": {"fondo": 0},
               "revesino": {"tricks": tricks}}
    assert api.settle_hand(request)["net"] == result["net"]
    with pytest.raises(InvalidInput) as raised:
        api.settle_hand({**request, "revesino": {"tricks": tricks, "napolitana": 2}})
    assert (raised.value.code, raised.value.field) == ("INVALID_FIELD", "revesino.napolitana")
    assert "never renounced" in raised.value.message

# implicitNapolitanaRefund (R24): S2 holds 1c 1e 1b 10o and no other copa or oros. Trick 1: S1 leads
# 12o and the quínola is forced (the fondo's 9 into the escrow, as anyone's: he is no napolitana
# yet, so not the napolitana's 2/1/1 for a high oros either); trick 2: S1 leads 2c and the 1c is
# forced (2 to S1) and wins; trick 4: S3 leads 6e and S2, holding 2e 3e 4e, renounces 1b: he is
# the napolitana from trick 4 (1b placed: S3 pays him 1). He won trick 2, so he fails (refunds 2 x 1
# to S3, pays the party 4 + 6 = 10 to S0, the hand winner). Out of play 1o 11o 9o 5o.
FORCED_THEN_RENOUNCES = {
    "game": "revesino", "seats": 4, "dealer": 0, "rules": {"napolitanaDeclaration": "implicit"},
    "deal": {"hands": ["3o 4c 5c 6c 10e 11e 12e 5e 10b 11b 4o 5o", "12o 2c 7c 8c 9c 10c 11c 12c 6o 7o 8o",
                       "1c 1e 1b 10o 2e 3e 4e 2b 3b 4b 5b", "2o 3c 12b 6e 7e 8e 9e 6b 7b 8b 9b"], "stock": "1o 11o 9o"},
    "actions": ["1 quedo", "2 quedo", "3 quedo", "0 descarte 5o", "1 12o", "2 10o", "3 2o", "0 3o", "1 2c", "2 1c", "3 3c", "0 4c",
                "2 2b", "3 12b", "0 10b", "1 6o", "3 6e", "0 5e", "1 7c", "2 1b", "3 7e", "0 10e", "1 7o", "2 1e", "2 2e", "3 8e",
                "0 11e", "1 8o", "0 4o", "1 8c", "2 3e", "3 9e", "0 5c", "1 9c", "2 4e", "3 6b", "1 10c", "2 3b", "3 7b", "0 6c",
                "1 11c", "2 4b", "3 8b", "0 12e", "1 12c", "2 5b", "3 9b", "0 11b"]}
RENOUNCE = 19  # the action "2 1b": his first renounce
REFUNDED = {"napolitanaDeclaration": "implicit", "implicitNapolitanaRefund": "refunded"}


def test_r24_implicit_the_first_renounce_is_told_as_the_napolitanas_declaration():
    """R24 implicit: the first renounce declares the napolitana, an event of his seat beside the
    card's (and no renuncio: a napolitana's renounce in tricks 1-9 is no revoke)."""
    result = ok(upto(FORCED_THEN_RENOUNCES, RENOUNCE + 1))
    events = [e for e in result["events"] if e["action"] == RENOUNCE]
    assert [(e["kind"], e["seat"]) for e in events] == [("card", 2), ("napolitana", 2), ("trick", 3)]  # (the last card of trick 4)
    assert events[1] == {"kind": "napolitana", "seat": 2, "text": "seat 2 renounces: a napolitana", "action": RENOUNCE}


def test_r24_implicit_napolitana_refund_none_by_default():
    """R24 implicit, default ``implicitNapolitanaRefund: none``: what his quínola and ace forced
    before his first renounce paid stays paid. S2: -2 antes, -9 quínola, -2 ace, +1 placed 1b,
    -2 refund of it (failed), -10 party = -24; the fondo 9 + 9 = 18."""
    for rules in ({"napolitanaDeclaration": "implicit"}, {"napolitanaDeclaration": "implicit", "implicitNapolitanaRefund": "none"}):
        record = {**FORCED_THEN_RENOUNCES, "rules": rules}
        result = ok(record)
        assert result["napolitana"] == {"seat": 2, "outcome": "failed"} and result["handWinner"] == 0
        assert moves(result, 1) == [("seat 2", "escrow", 9)]  # the ordinary forced quínola, not the napolitana's 2/1/1
        assert moves(result, 2) == [("seat 2", "seat 1", 2)]
        assert not [p for p in result["payments"] if "renounces" in p["reason"]]
        assert result["net"] == [7, 0, -24, -1] and result["table"] == {"fondo": 18}
        assert settle(record, result)["net"] == [7, 0, -24, -1]
        # Nothing moves at the renounce: his quínola payment stays in the escrow.
        assert ok(upto(record, RENOUNCE))["escrow"] == ok(upto(record, RENOUNCE + 1))["escrow"] == 9
    # ResolveTrick: each trick as the hand shows it (no napolitana before trick 4).
    assert resolve("12o 10o 2o 3o", 1, 1, 9, forced="10o") == [("seat 2", "fondo", 9)]
    assert resolve("2c 1c 3c 4c", 1, 2, 9, forced="1c") == [("seat 2", "seat 1", 2)]



def test_r24_a6_6_implicit_a_trick_won_before_the_first_renounce_fails_the_napolitana():
    """R24 implicit with A6.6 (docs/rules/revesino.md, Napolitana): the napolitana must win no
    trick of the hand, so a trick won before his first renounce counts: S2 takes trick 2 with his
    forced 1c and renounces in trick 4, a napolitana failed from the start; SettleHand agrees.
    Under ``napolitanaFailLastTwoOnly`` trick 2 does not count and he succeeds."""
    record = FORCED_THEN_RENOUNCES
    assert winners(ok(upto(record, RENOUNCE)))[1] == 2 and "napolitana" not in ok(upto(record, RENOUNCE))
    assert ok(upto(record, RENOUNCE + 1))["napolitana"] == {"seat": 2, "outcome": "failed"}
    result = ok(record)
    assert result["napolitana"] == {"seat": 2, "outcome": "failed"} and result["handWinner"] == 0
    assert settle(record, result)["napolitana"] == {"seat": 2, "outcome": "failed"}
    last_two = {**record, "rules": {**record["rules"], "napolitanaFailLastTwoOnly": True}}
    assert ok(last_two)["napolitana"] == {"seat": 2, "outcome": "success"} and ok(last_two)["handWinner"] == 2

def test_r24_implicit_napolitana_refund_refunded_option():
    """R24 implicit, ``implicitNapolitanaRefund: refunded``: at his first renounce (trick 4) the
    payments of his quínola and ace forced in tricks 1 and 2 go back to him, from the escrow (9)
    and from S1 (2), as payments of the hand (no trick: ResolveTrick's answers for each trick are
    unchanged). S2: -24 + 9 + 2 = -13; S1: 0 - 2; the fondo stays 9."""
    record = {**FORCED_THEN_RENOUNCES, "rules": REFUNDED}
    result = ok(record)
    assert result["napolitana"] == {"seat": 2, "outcome": "failed"} and result["handWinner"] == 0
    refunds = [p for p in result["payments"] if "renounces" in p["reason"]]
    assert [(p["payer"], p["payee"], p["amount"], "trick" in p) for p in refunds] == [
        ("seat 1", "seat 2", 2, False), ("escrow", "seat 2", 9, False)]
    assert refunds[0]["reason"] == ("seat 2 renounces in trick 4, the napolitana: returned "
                                    "(1c forced in trick 2: pays the trick's leader 2)")
    # The trick's own payments are those of the default.
    assert moves(result, 1) == [("seat 2", "escrow", 9)] and moves(result, 2) == [("seat 2", "seat 1", 2)]
    assert moves(result, 4) == [("seat 3", "seat 2", 1)]
    assert result["net"] == [7, -2, -13, -1] and result["table"] == {"fondo": 9}
    assert sum(result["net"]) + result["table"]["fondo"] == 0  # (a fresh table: fondo 0 before the deal)
    s = settle(record, result)
    assert (s["net"], s["payments"], s["table"]) == (result["net"], result["payments"], result["table"])
    # The refund is made when he renounces, in the trick in progress (a hand in progress shows the
    # escrow, not the payments): with trick 4 still in progress, his 9 has left the escrow.
    before, after = ok(upto(record, RENOUNCE)), ok(upto(record, RENOUNCE + 1))
    assert (before["escrow"], before["fondo"], after["escrow"], after["fondo"]) == (9, 9, 0, 9)
    refunds_first = [m for m in moves(result) if m[1] == "seat 2"][:2]
    assert refunds_first == [("seat 1", "seat 2", 2), ("escrow", "seat 2", 9)]  # before trick 4's 1b placed
    # ResolveTrick gives each trick's own payments, the same under both values (a quínola's fondo
    # movement straight into the fondo: a trick alone has no escrow).
    for number, (cards, leader, extra) in {1: ("12o 10o 2o 3o", 1, {"forced": "10o"}), 2: ("2c 1c 3c 4c", 1, {"forced": "1c"}),
                                          4: ("6e 5e 7c 1b", 3, {"napolitana": 2})}.items():
        shown = [(a, "fondo" if b == "escrow" else b, n) for a, b, n in moves(result, number)]
        for rules in (REFUNDED, {"napolitanaDeclaration": "implicit"}):
            assert resolve(cards, leader, number, 9, rules=rules, **extra) == shown
    # The hand of the service tests: his 1c forced in trick 1 (4 to S1), his renounce in trick 3.
    implicit = {
        "game": "revesino", "seats": 4, "dealer": 0,
        "deal": {"hands": ["2b 3b 4b 5b 6b 7b 8b 9b 10b 11b 12b 8c", "2c 5c 2o 3o 4o 5o 6o 7o 8o 9o 11o",
                           "1o 1c 1e 10o 2e 3e 4e 5e 6e 7e 8e", "3c 4c 6c 7c 9c 10c 11c 12c 9e 10e 11e"], "stock": "12o 1b 12e"},
        "actions": ["1 quedo", "2 quedo", "3 quedo", "0 descarte 8c", "1 2c", "2 1c", "3 3c", "0 2b", "2 2e", "3 9e", "0 3b",
                    "1 2o", "3 10e", "0 4b", "1 3o", "2 10o", "3 10c", "0 10b", "1 5c", "2 1e", "3 11c", "0 11b", "1 11o",
                    "2 1o", "3 11e", "0 12b", "1 4o", "2 3e", "3 12c", "0 5b", "1 5o", "2 4e", "3 4c", "0 6b", "1 6o",
                    "2 5e", "3 6c", "0 7b", "1 7o", "2 6e", "3 7c", "0 8b", "1 8o", "2 7e", "3 9c", "0 9b", "1 9o", "2 8e"]}
    assert ok({**implicit, "rules": {"napolitanaDeclaration": "implicit"}})["net"] == [12, 3, -36, 3]
    assert ok({**implicit, "rules": REFUNDED})["net"] == [12, -1, -32, 3]
    # A qualifying seat that never renounces is no napolitana: nothing is returned.
    assert ok({**NEVER_RENOUNCES, "rules": REFUNDED})["net"] == [4, 0, -10, -3]
    # With the call (explicit) nothing is forced from the napolitana before his privilege: no effect.
    assert ok(h5(calls=["2 napolitana"], rules={"implicitNapolitanaRefund": "refunded"}))["net"] == H5_NET
    with pytest.raises(InvalidInput) as err:
        api.validate({**record, "rules": {**REFUNDED, "implicitNapolitanaRefund": "returned"}})
    assert (err.value.code, err.value.field) == ("INVALID_OPTION_VALUE", "rules.implicitNapolitanaRefund")


def test_r25_napolitana_renounced_ace_is_placed_and_paid_even_holding_the_suit():
    record = h5(calls=["2 napolitana"])
    result = ok(record)
    assert moves(result, 1) == [("seat 0", "seat 2", 2)]  # 1e on copas, holding 2c: 1 x m (2)
    assert moves(result, 3) == [("fondo", "escrow", 9), ("seat 0", "seat 2", 2), ("seat 3", "seat 2", 1), ("seat 1", "seat 2", 1)]
    assert moves(result, 5) == [("seat 1", "seat 2", 1)]  # 1c on espadas, holding 3e (copas: 1 placed)
    assert moves(result, 7) == [("seat 3", "seat 2", 2)]  # 1o on bastos, holding 2b 3b: the oros ace, 2
    assert ("escrow", "seat 2", 9) in moves(result)
    assert ("seat 0", "seat 2", 4) == moves(result)[-1]  # the party: S0 has most points (19)
    assert result["cardPoints"] == [19, 16, 0, 8] and result["seatTricks"] == [4, 3, 0, 4]
    assert result["partyPayer"] == 0 and result["net"] == H5_NET
    # ResolveTrick with the napolitana's seat: the same, from one trick.
    assert resolve("4c 1e 5c 12c", 1, 1, 9, napolitana=2) == [("seat 0", "seat 2", 2)]
    assert resolve("7e 8e 9e 1c", 3, 5, 0, napolitana=2) == [("seat 1", "seat 2", 1)]


def test_a5_1_a6_8_resolve_trick_the_napolitanas_privilege_lasts_through_trick_9():
    """A5.1 (section 0) and A6.8 in ResolveTrick: in tricks 1-9, trick 9 included, the
    napolitana's in-suit ace or quínola is never forced (he could renounce) and his card off the
    suit led is no revoke; from trick 10 he follows like anyone: his only card of the suit led is
    forced (1o: 1 to the leader; 10o: the fondo's amount) and a card off it, a revoke."""
    assert resolve("2o 1o 3o 4o", 1, 9, 12, napolitana=2, forced="1o") == []
    assert resolve("2o 1o 3o 4o", 1, 10, 12, napolitana=2, forced="1o") == [("seat 2", "seat 1", 1)]
    assert resolve("9o 10o 4o 7o", 1, 9, 12, napolitana=2, forced="10o") == []
    assert resolve("9o 10o 4o 7o", 1, 10, 12, napolitana=2, forced="10o") == [("seat 2", "fondo", 12)]
    revokes = {"rules": {"allowRevokes": True}, "revoked": "5b"}
    with pytest.raises(InvalidInput) as err:
        resolve("4c 5b 6c 7c", 1, 9, 12, napolitana=2, **revokes)
    assert err.value.message == "5b is not a revoke: seat 2 is the napolitana, whose renounces in tricks 1-9 are no revokes"
    assert resolve("4c 5b 6c 7c", 1, 10, 12, napolitana=2, **revokes) == [("seat 2", "fondo", 2)]


def test_resolve_trick_forced_and_revoked_are_strings_of_cards():
    """ResolveTrick's ``forced`` and ``revoked`` are strings of cards ("1e 7o"): anything else (a
    number, a list) is INVALID_FIELD on that field, as a card that is none is UNKNOWN_CARD."""
    for field, value, code in (("forced", 5, "INVALID_FIELD"), ("forced", ["1e"], "INVALID_FIELD"),
                               ("revoked", 1, "INVALID_FIELD"), ("revoked", "13e", "UNKNOWN_CARD")):
        with pytest.raises(InvalidInput) as err:
            resolve("5e 1e 9e 2e", 1, 4, 9, **{field: value}, rules={"allowRevokes": True})
        assert (err.value.code, err.value.field) == (code, field)
        assert err.value.message.startswith(field)


def test_a5_1_resolve_trick_refuses_a_led_card_named_forced():
    """A5.1: the leader's ace or quínola is led, never forced (a forced card is played to a suit
    another player led). ResolveTrick refuses one named in ``forced`` (INVALID_FIELD), as
    docs/rules/revesino.md says; the same ace played second and named is forced."""
    for cards, card in (("1e 5e 9e 2e", "1e"), ("10o 2o 3o 4o", "10o")):
        with pytest.raises(InvalidInput) as err:
            resolve(cards, 1, 4, 9, forced=card)
        assert (err.value.code, err.value.field) == ("INVALID_FIELD", "forced")
        assert err.value.message == (f"{card} was not forced: only an ace or the quínola played in the suit led "
                                     "by another player can be forced")
    assert resolve("5e 1e 9e 2e", 1, 4, 9, forced="1e") == [("seat 2", "seat 1", 1)]


def test_a5_a6_8_resolve_trick_refuses_a_card_of_the_suit_led_named_revoked():
    """A5 and A6.8 (under ``allowRevokes``): a revoke is a card played off the suit led by a seat
    that held it. ResolveTrick refuses a card of the suit led named in ``revoked``, led or
    followed (INVALID_FIELD), and fines the one played off it (2 into the fondo)."""
    revokes = {"rules": {"allowRevokes": True}}
    for card in ("4c", "5c"):
        with pytest.raises(InvalidInput) as err:
            resolve("4c 5c 6c 7c", 1, 4, 9, revoked=card, **revokes)
        assert (err.value.code, err.value.field) == ("INVALID_FIELD", "revoked")
        assert err.value.message == f"{card} is not a revoke: it is not a card played off the suit led"
    assert resolve("4c 5b 6c 7c", 1, 4, 9, revoked="5b", **revokes) == [("seat 2", "fondo", 2)]


# ---- R28: revokes ----------------------------------------------------------------------------------

# H1 with S1 playing 6o on trick 2 (copas led) while he holds 3c and 4c; he then follows 7o on
# trick 10 and, void in oros by then, throws 3c on trick 11. Still S1 and S3 at 0/0: S1 wins.
H1_REVOKE = [H1[0], "8c 6c 12c 6o", *H1[2:9], "11o 8o 1o 7o", "10o 3c 12o 9o"]


def test_r28_revoke_not_allowed_by_default():
    record = h1(tricks=H1_REVOKE)
    index = first_card_of_trick(record, 2) + 3
    assert record["actions"][index] == "1 6o"
    assert violation(record) == (index, "MUST_FOLLOW_SUIT")
    assert legal_of(ok(upto(record, index)), 1) == {"3c", "4c"}


def test_r28_revoke_allowed_fined_and_forfeits_option():
    record = h1(tricks=H1_REVOKE, rules={"allowRevokes": True})
    index = first_card_of_trick(record, 2) + 3
    assert "1 6o" in legal(ok(upto(record, index)))
    result = ok(record)
    assert result["finished"] and winners(result) == H1_WINNERS
    assert [(e["seat"], e["action"]) for e in result["events"] if e["kind"] == "renuncio"] == [(1, index)]
    assert moves(result, 2) == [("seat 1", "fondo", 2)]
    # He still wins the hand (0 points, 0 tricks, seat order) but forfeits the party of 4.
    assert result["handWinner"] == 1 and result["partyPayer"] == 0
    assert [(f["seat"], f["amount"]) for f in result["forfeited"]] == [(1, 4)]
    assert not [m for m in moves(result) if m[1] == "seat 1"]
    assert result["net"] == [-3, -4, -2, -2] and result["table"] == {"fondo": 11}
    s = settle(record, result)
    assert s["net"] == [-3, -4, -2, -2] and s["table"] == {"fondo": 11}


# ---- R29, R30, R31: sessions, balances, the deal's rotation ----------------------------------------


@pytest.mark.parametrize("dealer", range(4))
def test_r31_next_dealer_is_the_seat_after_the_dealer(dealer: int):
    result = ok(h1(dealer))
    assert result["nextDealer"] == (dealer + 1) % 4
    assert result["nextDealer"] == result["tricks"][0]["leader"]  # the old S1, first to play


def test_r29_r30_r31_a_session_is_a_chain_of_hands():
    # R29: the engine is stateless and has no session length; a session is a chain of hand
    # records, any number of them, each from the last one's table and nextDealer: nothing more
    # to observe. Here four hands, so each seat deals once and the deal comes back to seat 0.
    # R30: the engine holds no balances (nothing to stop at "bust"; no option offers it): what
    # is observable is that nets go negative and a player's payments are never capped.
    table: dict[str, Any] = {"fondo": 0}
    dealer = 0
    totals = [0, 0, 0, 0]
    dealers = []
    fondos = []
    for _ in range(4):
        result = ok(h1(dealer, table=table))
        dealers.append(dealer)
        totals = [t + n for t, n in zip(totals, result["net"], strict=True)]
        table, dealer = result["table"], result["nextDealer"]
        fondos.append(table["fondo"])
    assert dealers == [0, 1, 2, 3] and dealer == 0
    assert fondos == [9, 10, 11, 12]  # one re-ante at the first deal, then the fee alone
    assert totals == [-3, -3, -3, -3] and sum(totals) == -12
    # Each hand the dealer (the most points) pays the full party whatever his running total.
    last = ok(h1(3, table={"fondo": 11}))
    assert last["net"] == [4, 0, 0, -5] and ("seat 3", "seat 0", 4) in moves(last)
    assert not [o for o in api.describe_rules("revesino")["options"] if o["rule"] in ("R29", "R30", "R31")]


# ---- R38: the stakes ----------------------------------------------------------------------------


@pytest.mark.parametrize("rules, fondo, fondo_after_deal, antes, fee", [
    ({}, 0, 9, 2, 1),
    ({"stake": 3}, 0, 13, 3, 1),
    ({"dealerFee": 2}, 0, 10, 2, 2),
    ({"dealerFee": 0}, 0, 8, 2, 0),
    ({}, 10, 11, 0, 1),                    # 10 >= 9: no re-ante
    ({"renewBelow": 12}, 10, 19, 2, 1),    # 10 < 12: re-ante
    ({"renewBelow": 12}, 12, 13, 0, 1),
    ({"stake": 3, "dealerFee": 2, "renewBelow": 20}, 15, 29, 3, 2),
])
def test_r38_stake_dealer_fee_and_renew_below(rules: dict, fondo: int, fondo_after_deal: int, antes: int, fee: int):
    record = h1(rules=rules, table={"fondo": fondo})
    assert ok(upto(record, 0))["fondo"] == fondo_after_deal
    result = ok(record)
    # H1's money otherwise: the dealer S0 pays S1 the party, 4.
    assert result["net"] == [-antes - fee - 4, -antes + 4, -antes, -antes]
    assert result["table"] == {"fondo": fondo_after_deal}
    deal = moves(result)[:5 if antes else 1]
    if antes:
        assert deal[:4] == [(f"seat {s}", "fondo", antes) for s in range(4)]
    if fee:
        assert deal[-1] == ("seat 0", "fondo", fee)
    assert settle(record, result)["net"] == result["net"]


def test_r38_options_are_checked():
    for name, value in (("stake", 0), ("dealerFee", 6), ("renewBelow", 0), ("stake", "2")):
        with pytest.raises(InvalidInput) as err:
            api.validate(h1(rules={name: value}))
        assert (err.value.code, err.value.field) == ("INVALID_OPTION_VALUE", f"rules.{name}")


# ---- A6.2: the aces -------------------------------------------------------------------------------

# H6: each of the four aces pays once, by its kind, its suit and its trick. Out of play 8o 9o
# 11b 10o (the three non-dealers keep; the dealer discards the quínola): 5 points, party 9.
# Points / tricks: S0 17/5 (T2 7, T11 10), S1 7/2 (T3), S2 6/1 (T7), S3 8/3 (T1 7, T9 1).
H6 = [
    "5c 1e 12c 2c",    # 1 (m 2): S1 leads; S2, void in copas, places 1e: the winner S3 pays him 1 x 2
    "12b 1b 4b 5b",    # 2: S3 leads; 1b is S0's only basto (forced, it wins): S0 pays the leader S3 1
    "11c 1c 2o 3c",    # 3: S0 leads; 1c is S1's only copas left (forced): copas, S1 pays S0 2
    "2e 3e 4e 5e",     # 4: S0
    "6e 7e 8e 9e",     # 5: S3
    "4c 6c 3o 4o",     # 6: S0
    "10e 11e 12e 2b",  # 7: S2
    "3b 6b 7o 7b",     # 8: S1
    "8b 9b 10b 8c",    # 9: S3
    "7c 9c 5o 6o",     # 10: S0
    "10c 12o 11o 1o",  # 11 (m 2): S0 leads; S3's last card 1o is placed: oros, the winner S0 pays him 2 x 2
]
H6_WINNERS = [3, 0, 1, 0, 3, 0, 2, 1, 3, 0, 0]


def h6(dealer: int = 0, **kw: Any) -> dict:
    return scripted(H6, dealer=dealer, undealt="8o 9o 11b", exchange={0: "descarte 10o"}, **kw)


@pytest.mark.parametrize("dealer", [0, 3])
@pytest.mark.parametrize("rules, t1, t2, t3, t11", [
    ({}, 2, 1, 2, 4),                                                      # literal: oros placed, copas forced double
    ({"doubleAcePlaced": "copas"}, 2, 1, 2, 2),                            # R11: 1o placed pays 1 x m
    ({"doubleAceForced": "oros"}, 2, 1, 1, 4),                             # R11: 1c forced pays 1 x m
    ({"doubleAcePlaced": "copas", "doubleAceForced": "oros"}, 2, 1, 1, 2),
])
def test_a6_2_aces_placed_and_forced_pay_by_suit_and_trick(dealer: int, rules: dict, t1: int, t2: int, t3: int, t11: int):
    """A6.2: a placed ace is paid by the trick's winner to its placer, 1 x m (2 x m the oros ace);
    a forced ace pays the trick's leader 1 x m (2 x m the copas ace); m is 2 in tricks 1 and 11;
    each is paid with its trick. R11's options swap the doubled suits."""
    record = h6(dealer, rules=rules)
    result = ok(record)
    assert result["finished"] and winners(result) == [seat_after(dealer, k) for k in H6_WINNERS]

    def s(k: int) -> str:
        return f"seat {seat_after(dealer, k)}"

    assert [(payer, payee, amount, p["trick"]) for p in result["payments"] if "trick" in p
            for payer, payee, amount in [(p["payer"], p["payee"], p["amount"])]] == [
        (s(3), s(2), t1, 1), (s(0), s(3), t2, 2), (s(1), s(0), t3, 3), (s(0), s(3), t11, 11)]
    # Antes 2 each and the fee 1; the aces; S0 (most points) pays S2 (fewest) the party, 9.
    assert result["net"] == rel([-3 - t2 + t3 - t11 - 9, -2 - t3, -2 + t1 + 9, -2 - t1 + t2 + t11], dealer)
    assert result["table"] == {"fondo": 9}
    assert settle(record, result)["net"] == result["net"]


def test_a6_2_led_and_voluntary_aces_pay_nothing():
    """A6.2: a led ace and an ace played in suit with other cards of it pay nothing (R9's gergi
    off): H1 leads 1c and 1e, and plays 1b and 1o in suit; only the deal and the party move."""
    result = ok(h1())
    assert not [p for p in result["payments"] if "trick" in p]
    assert moves(result)[5:] == [("seat 0", "seat 1", 4)]


# ---- A6.3: the quínola ----------------------------------------------------------------------------


@pytest.mark.parametrize("number, m", [(1, 2), (5, 1), (11, 2)])
def test_a6_3_quinola_placed_forced_or_played_by_choice(number: int, m: int):
    """A6.3: placed, the quínola takes the whole fondo and is paid 2 x m by the trick's winner and
    1 x m by each other player; forced, its holder pays an amount equal to the fondo (never times
    m) and nobody is paid for forcing it; led or played in suit by choice, nothing (ResolveTrick:
    one trick, no escrow). R12 and R14 are the options."""
    # S2 leads 6e, S3 8e (wins), S0 places the quínola, S1 2e; the fondo holds 14.
    assert resolve("6e 8e 10o 2e", 2, number, 14) == [
        ("fondo", "seat 0", 14), ("seat 3", "seat 0", 2 * m), ("seat 2", "seat 0", m), ("seat 1", "seat 0", m)]
    assert resolve("6e 8e 10o 2e", 2, number, 14, rules={"quinolaPlacedWinnerPays": 3})[1] == ("seat 3", "seat 0", 3 * m)
    # S1 leads 12o; the quínola is S2's only oros; the fondo holds 12.
    assert resolve("12o 10o 4o 7o", 1, number, 12, forced="10o") == [("seat 2", "fondo", 12)]
    assert resolve("12o 10o 4o 7o", 1, number, 12, forced="10o", rules={"quinolaForcedPaysForcer": True}) == [
        ("seat 2", "fondo", 12), ("seat 2", "seat 1", 4 * m), ("seat 3", "seat 1", m), ("seat 0", "seat 1", m)]
    # The same cards, the quínola not his only oros: played by choice; and led.
    assert resolve("12o 10o 4o 7o", 1, number, 12) == []
    assert resolve("10o 12o 4o 7o", 1, number, 12) == []


# ---- A6.7: the hand winner and the party ------------------------------------------------------------


@pytest.mark.parametrize("rules, paid", [
    ({}, [9, 0, 0]),                                          # partyFromMost: S0, the most points (17)
    ({"handPayout": "partyFromEach"}, [9, 9, 9]),             # R1
    ({"handPayout": "fixedFromEach", "fixedPayout": 5}, [5, 5, 5]),
    ({"handPayout": "none"}, [0, 0, 0]),
    ({"partyBonus": 0}, [5, 0, 0]),                           # R1: the party is the out-of-play points alone
])
def test_a6_7_hand_winner_collects_the_party_not_the_fondo(rules: dict, paid: list[int]):
    """A6.7: with no revesino the hand winner is the fewest points (S2, 6); the party is the points
    of the four cards out of play (11b 2, 10o 3) and partyBonus 4, paid by the most points (S0,
    17) or by each other player per handPayout; the fondo is nobody's prize and is carried."""
    record = h6(rules=rules)
    result = ok(record)
    assert result["cardPoints"] == [17, 7, 6, 8] and result["seatTricks"] == [5, 2, 1, 3]
    assert (result["handWinner"], result["tiebreak"], result["party"]) == (2, "fewestPoints", 5 + rules.get("partyBonus", 4))
    assert result.get("partyPayer") == (0 if "handPayout" not in rules else None)
    party = sorted((p["payer"], p["amount"]) for p in result["payments"] if p["payee"] == "seat 2" and "trick" not in p)
    assert party == [(f"seat {s}", a) for s, a in zip((0, 1, 3), paid, strict=True) if a]
    assert [p for p in result["payments"] if p["payer"] == "fondo"] == []
    # H6's money before the party: the deal (S0 3, the others 2) and the aces.
    assert result["net"] == [-3 - 1 + 2 - 4 - paid[0], -2 - 2 - paid[1], -2 + 2 + sum(paid), -2 - 2 + 1 + 4 - paid[2]]
    assert result["table"] == {"fondo": 9}
    assert settle(record, result)["net"] == result["net"]


# ---- A6.9: the order of the settlement ------------------------------------------------------------

# H5F: H5 with S2's 12o for S1's 2o: the napolitana S2 must follow oros in trick 10 and takes it
# with 12o (3 points): he fails. S3 takes trick 11 (11o). Points / tricks: S0 19/3, S1 11/2,
# S2 3/1, S3 10/5; the hand winner among S0, S1, S3 is S3; party 4 (out of play 3c 4b 4o 5o).
H5F = H5[:9] + [
    "6o 12o 7o 8o",    # 10: S1 leads; S2's 12o wins: the napolitana fails
    "3o 11o 9o 2o",    # 11: S3
]


def test_a6_9_settlement_order_deal_tricks_escrow_napolitana_then_the_party():
    """A6.9: the deal's antes and fee; each trick's payments in trick order; the escrow made final
    when trick 10 is led; at the end the failed napolitana's refunds (2 x what each player paid
    him) and fondo payment (2 x the 9 his quínola took), then the party, which he pays (R21)."""
    record = scripted(H5F, undealt="3c 4b 4o", exchange={0: "descarte 5o"}, calls=["2 napolitana"])
    result = ok(record)
    assert winners(result) == [0, 3, 0, 3, 1, 0, 3, 3, 1, 2, 3] and result["napolitana"] == {"seat": 2, "outcome": "failed"}
    assert result["cardPoints"] == [19, 11, 3, 10] and (result["handWinner"], result["partyPayer"], result["party"]) == (3, 2, 4)
    assert [(p["payer"], p["payee"], p["amount"], p.get("trick")) for p in result["payments"]] == [
        ("seat 0", "fondo", 2, None), ("seat 1", "fondo", 2, None), ("seat 2", "fondo", 2, None), ("seat 3", "fondo", 2, None),
        ("seat 0", "fondo", 1, None),
        ("seat 0", "seat 2", 2, 1),                   # 1e placed in trick 1 (m 2)
        ("fondo", "escrow", 9, 3), ("seat 0", "seat 2", 2, 3), ("seat 3", "seat 2", 1, 3), ("seat 1", "seat 2", 1, 3),
        ("seat 1", "seat 2", 1, 5),                   # 1c placed
        ("seat 3", "seat 2", 2, 7),                   # 1o placed
        ("escrow", "seat 2", 9, None),                # trick 10 led, no revesino: the quínola keeps the 9
        ("seat 2", "seat 3", 6, None), ("seat 2", "seat 0", 8, None), ("seat 2", "seat 1", 4, None),
        ("seat 2", "fondo", 18, None),
        ("seat 2", "seat 3", 4, None),                # the party
    ]
    assert result["net"] == [1, 0, -24, 5] and result["table"] == {"fondo": 18} and result["escrow"] == 0
    assert sum(result["net"]) + result["table"]["fondo"] == 0  # antes and fee: nothing is created
    assert settle(record, result)["payments"] == result["payments"]


def test_a6_9_settlement_order_with_a_revesino():
    """A6.9: after trick 9 the announcement returns the side payments and the escrow; the cut
    revesino is settled at the end, and no party is paid."""
    announced = h4(H4R, before={10: ["0 revesino"]})
    result = ok(upto(announced, len(announced["actions"]) - 4))
    assert moves(result)[5:] == [
        ("fondo", "escrow", 9), ("seat 0", "seat 3", 2), ("seat 1", "seat 3", 1), ("seat 2", "seat 3", 1),   # trick 5
        ("seat 3", "seat 0", 2), ("seat 3", "seat 1", 1), ("seat 3", "seat 2", 1), ("escrow", "fondo", 9),  # announced
        ("seat 0", "seat 2", 64), ("seat 0", "fondo", 9),                                                   # cut in trick 10
    ]
    assert "partyPayer" not in result and sum(result["net"]) + result["table"]["fondo"] == 0


# ---- R27: the napolitana's quínola forced "with an as, rey or caballo de oros" --------------------


@pytest.mark.parametrize("number", [10, 11])
def test_r27_the_high_oros_is_the_card_led(number: int):
    """R27: the napolitana's 2/1/1 applies when the card led is 1o, 12o or 11o; a lower oros led
    forces his quínola by the ordinary rule (A6.3: the fondo's amount only), even when a higher
    oros is played after it in the trick. S1 leads; S2 the napolitana; fondo 12."""
    for led in ("1o", "12o", "11o"):
        assert resolve(f"{led} 10o 4o 7o", 1, number, 12, napolitana=2, forced="10o") == [
            ("seat 2", "fondo", 12), ("seat 2", "seat 1", 2), ("seat 2", "seat 3", 1), ("seat 2", "seat 0", 1)], led
    for cards in ("5o 10o 1o 7o", "5o 10o 12o 7o", "5o 10o 4o 11o", "9o 10o 4o 7o"):
        assert resolve(cards, 1, number, 12, napolitana=2, forced="10o") == [("seat 2", "fondo", 12)], cards


# ---- money the mutation tests of engine/revesino_money.py found unchecked -------------------------
#
# Each hand below is written so that a figure of the spec (or of docs/rules/revesino.md) differs if
# one line of the money is changed: boundaries (trick 9 vs 10, trick 10 vs 11), the forfeits of a
# revoker, the implicit napolitana's refund against a revesino, the announcer's own quínola.


# H7: S2 (the napolitana: 1o 1c 1e 10o) fails at once, taking tricks 1-3 with 1c (played by
# choice, trick 1-9), 1o and 1e led; S1 takes tricks 4-10 in single suits; in trick 11 S1 leads
# 6o and the quínola, S2's last card, is forced; S3's 12o takes it. No ace pays (none placed or
# forced). Out of play 2o 3o 4o 5o (0 points): party 4. Points / tricks: S0 0/0, S1 22/7,
# S2 15/3, S3 6/1.
H7 = [
    "4c 1c 5c 6c",     # 1: S1 leads; S2's 1c (a napolitana's, in trick 1: by choice) wins: he fails
    "1o 8o 9o 11o",    # 2: S2
    "1e 2e 3e 4e",     # 3: S2
    "2c 7c 8c 9c",     # 4: S2 leads: S1
    "1b 2b 3b 4b",     # 5: S1
    "12b 5b 6b 7b",    # 6: S1
    "11b 8b 9b 10b",   # 7: S1
    "12e 5e 6e 7e",    # 8: S1
    "11e 8e 9e 10e",   # 9: S1
    "12c 3c 10c 11c",  # 10: S1
    "6o 10o 12o 7o",   # 11: S1 leads 6o; S2's quínola is forced; S3's 12o takes it
]


def h7(tricks: list[str], **kw: Any) -> dict:
    return scripted(tricks, undealt="2o 3o 4o", exchange={0: "descarte 5o"}, calls=["2 napolitana"], **kw)


# H7_TEN: H7 with its last two tricks swapped: the quínola forced by S1's 6o in trick 10 (S3's 12o
# takes it), and S3 leads the copas of trick 11, which S1 takes.
H7_TEN = [*H7[:9], "6o 10o 12o 7o", "10c 11c 12c 3c"]


@pytest.mark.parametrize("tricks, forced_in", [(H7, 11), (H7_TEN, 10)])
def test_r23_failed_napolitanas_quinola_forced_late_that_paid_nothing_doubles_the_fondo(tricks: list[str], forced_in: int):
    """R23 / section 0 / A6.6: a quínola forced from the failed napolitana in trick 10 or 11 is his
    one fondo doubling. Under quinolaPenaltyTrigger winsTrick the forced quínola that does not
    take its trick pays nothing in play, so he doubles the fondo at the end (docs/rules/revesino.md,
    "the napolitana's one doubling"): 9 into the fondo, after the deal, before the party. Under
    the default trigger the quínola paid the fondo's 9 in its trick, and that is his one doubling."""
    record = h7(tricks, rules={"quinolaPenaltyTrigger": "winsTrick"})
    result = ok(record)
    assert winners(result) == [2, 2, 2, 1, 1, 1, 1, 1, 1] + ([1, 3] if forced_in == 11 else [3, 1])
    assert result["napolitana"] == {"seat": 2, "outcome": "failed"}
    assert result["cardPoints"] == [0, 22, 15, 6] and result["seatTricks"] == [0, 7, 3, 1]
    assert (result["handWinner"], result["partyPayer"], result["party"]) == (0, 2, 4)
    assert moves(result)[5:] == [("seat 2", "fondo", 9), ("seat 2", "seat 0", 4)]
    assert [p.get("trick") for p in result["payments"][5:]] == [None, None]
    assert result["net"] == [1, -2, -15, -2] and result["table"] == {"fondo": 18}
    assert settle(record, result)["payments"] == result["payments"]
    # The default trigger: the forced quínola pays the fondo's 9 in its trick; no second doubling.
    default = ok(h7(tricks))
    assert moves(default)[5:] == [("seat 2", "fondo", 9), ("seat 2", "seat 0", 4)]
    assert [p.get("trick") for p in default["payments"][5:]] == [forced_in, None]
    assert default["net"] == [1, -2, -15, -2] and default["table"] == {"fondo": 18}


# H8: S2 holds 1c 1e 1b 10o, the quínola his only oros. Trick 1: S1 leads 5o and the quínola,
# forced (he is no napolitana yet), takes the trick; trick 3: S1 leads 7e and S2, holding 3e 4e,
# renounces 1b: the napolitana from trick 3 (implicit), 1b placed (S0 pays him 1); trick 5 he
# renounces 1e (S1 pays 1); trick 6 he takes with 1c. He fails: refunds 2 to S0 and 2 to S1 and
# pays the party 6 + 4 = 10 to S0 (points / tricks S0 4/1, S1 14/4, S2 9/3, S3 10/3). Out of play
# 1o 11o 9o 4o.
H8 = [
    "5o 10o 2o 3o",    # 1: S1 leads; S2's quínola, his only oros, is forced and takes the trick
    "2e 5e 6e 12e",    # 2: S2 leads: S1
    "7e 1b 8e 9e",     # 3: S2 renounces 1b holding 3e 4e: S0
    "10e 11e 4e 2c",   # 4: S0 leads: S1
    "12c 1e 6c 7c",    # 5: S2 renounces 1e: S1
    "8c 1c 9c 10c",    # 6: S2 (1c by choice: the napolitana's, trick 6)
    "3e 4b 5b 6b",     # 7: S2
    "4c 11c 3c 7b",    # 8: S3
    "12o 6o 7o 5c",    # 9: S3
    "8b 9b 10b 2b",    # 10: S1
    "11b 3b 12b 8o",   # 11: S3
]


def test_r24_implicit_refund_leaves_a_quinola_payment_for_taking_the_trick():
    """R24 ``implicitNapolitanaRefund: refunded``: at his first renounce the napolitana gets back
    what his forced aces and quínola paid, but "a quínola payment made under
    quinolaPenaltyTrigger: winsTrick is owed for taking the trick, not for being forced, and
    stands" (docs/rules/revesino.md). His forced quínola took trick 1: the fondo's 9 stays paid
    under winsTrick and goes back to him at the renounce (trick 3) under the default trigger."""
    rules = {"napolitanaDeclaration": "implicit", "implicitNapolitanaRefund": "refunded"}
    record = scripted(H8, undealt="1o 11o 9o", exchange={0: "descarte 4o"}, rules={**rules, "quinolaPenaltyTrigger": "winsTrick"})
    result = ok(record)
    assert winners(result) == [2, 1, 0, 1, 1, 2, 2, 3, 3, 1, 3]
    assert result["napolitana"] == {"seat": 2, "outcome": "failed"}
    assert result["cardPoints"] == [4, 14, 9, 10] and (result["handWinner"], result["partyPayer"], result["party"]) == (0, 2, 10)
    assert moves(result)[5:] == [
        ("seat 2", "escrow", 9),                    # trick 1: his quínola took the trick
        ("seat 0", "seat 2", 1), ("seat 1", "seat 2", 1),   # 1b and 1e placed (tricks 3, 5)
        ("escrow", "fondo", 9),                     # trick 10 led, no revesino: the 9 stays in the fondo
        ("seat 2", "seat 0", 2), ("seat 2", "seat 1", 2),   # the failed napolitana refunds 2 x
        ("seat 2", "seat 0", 10),                   # the party
    ]
    assert not [p for p in result["payments"] if "renounces" in p["reason"]]
    assert result["net"] == [8, -1, -23, -2] and result["table"] == {"fondo": 18}
    assert settle(record, result)["payments"] == result["payments"]
    # The default trigger: the quínola was forced; its 9 goes back to him from the escrow at trick 3.
    forced_record = scripted(H8, undealt="1o 11o 9o", exchange={0: "descarte 4o"}, rules=rules)
    forced = ok(forced_record)
    assert [m for m in moves(forced) if "escrow" in m[:2]] == [("seat 2", "escrow", 9), ("escrow", "seat 2", 9)]
    assert forced["net"] == [8, -1, -14, -2] and forced["table"] == {"fondo": 9}
    # "The refund is made at the renounce, so it shows as soon as the renounce card is played":
    # his 1b is the second card of trick 3, and the escrow drops before S3 and S0 play.
    renounce = first_card_of_trick(forced_record, 3) + 1
    assert forced_record["actions"][renounce] == "2 1b"
    before, after = ok(upto(forced_record, renounce)), ok(upto(forced_record, renounce + 1))
    assert (before["escrow"], before["fondo"], after["escrow"], after["fondo"]) == (9, 9, 0, 9)
    assert ok(upto(record, renounce + 1))["escrow"] == 9  # (winsTrick: his payment stands)


H4D = H4B[:8] + ["8e 10o 1e 5e", "12e 6e 9e 3o", H4B[10]]  # S3 places the quínola in trick 9


def test_r15_quinola_placed_in_trick_9_is_escrowed():
    """R15, A6.4: trick 9 is the last whose quínola movement is escrowed: the fondo S3's quínola
    takes in trick 9 waits in the escrow (a revesino could still be announced) and becomes his
    when trick 10 is led."""
    record = h4(H4D)
    after9 = ok(through_trick(record, 9))
    assert winners(after9) == [0, 0, 0, 2, 2, 2, 0, 2, 0]
    assert (after9["fondo"], after9["escrow"]) == (0, 9)
    led = ok(through_trick(record, 9, led=True))
    assert (led["fondo"], led["escrow"]) == (0, 0)
    result = ok(record)
    assert moves(result, 9) == [("fondo", "escrow", 9), ("seat 0", "seat 3", 2), ("seat 2", "seat 3", 1), ("seat 1", "seat 3", 1)]
    assert ("escrow", "seat 3", 9) in moves(result) and not moves(result, 10)
    assert result["net"] == [-9, 1, -3, 11] and result["table"] == {"fondo": 0}


def test_a6_3_forced_quinola_pays_the_fondo_however_small():
    """A6.3: the forced quínola's holder pays an amount equal to the fondo's content: 1 when it
    holds 1; nothing when it is empty (A6.1: "a doubling of an empty fondo costs 0")."""
    assert resolve("12o 10o 4o 7o", 1, 5, 1, forced="10o") == [("seat 2", "fondo", 1)]
    assert resolve("12o 10o 4o 7o", 1, 5, 0, forced="10o") == []


def test_a6_8_a_revoker_forfeits_the_fondo_and_every_tanto_of_his_placed_quinola():
    """A6.8 / R28: the revoker "forfeits every payment he would otherwise receive": when his revoke
    is the quínola placed on trick 4 (m 1), he pays the fine of 2 into the fondo and takes neither
    the fondo (now 11) nor the 2 from the trick's winner and the 1 from each other player; each
    is listed in ``forfeited``, the 1s too."""
    out = api.resolve_trick({"game": "revesino", "seats": 4, "cards": "5e 10o 9e 2e", "leader": 1, "number": 4, "fondo": 9,
                             "revoked": "10o", "rules": {"allowRevokes": True}})
    assert out["winner"] == 3
    assert [(p["payer"], p["payee"], p["amount"]) for p in out["payments"]] == [("seat 2", "fondo", 2)]
    assert [(f["seat"], f["amount"], f["trick"]) for f in out["forfeited"]] == [(2, 11, 4), (2, 2, 4), (2, 1, 4), (2, 1, 4)]



def settle_cut(cards: list[str], named: dict[int, str], dealer: int, announcer: int, **rules: Any) -> dict:
    """SettleHand of a hand cut in trick 10 at a fondo of 20, revokes allowed: ``cards`` the
    tricks' cards, ``named`` the card named revoked in a trick, by the trick's number."""
    tricks = [{"cards": c, **({"revoked": named[n]} if n in named else {})} for n, c in enumerate(cards, 1)]
    return api.settle_hand({"game": "revesino", "seats": 4, "dealer": dealer, "rules": {"allowRevokes": True, **rules},
                            "table": {"fondo": 20}, "revesino": {"tricks": tricks, "announcer": announcer}})


def test_r28_settle_of_a_cut_hand_takes_the_revokes_named_in_any_trick():
    """R28 in SettleHand: a hand cut in trick 10 leaves each seat's last card unseen, and that card
    may be the only proof of a revoke in any earlier trick. S2 takes tricks 1-9, announces and is
    cut; S0 plays 10o on the bastos led in trick 6 and keeps a basto to the end, which nobody sees.
    Named on trick 6, the revoke is fined (2 into the fondo, which the cut then doubles: 2 more
    from S2); not named, the tricks cannot show it. Naming a revoke the tricks do show (S0's 3e in
    trick 7: he plays 12c in trick 9) changes nothing."""
    cards = ["4o 4b 8o 3b", "9o 2c 2b 7e", "1c 5e 11o 4c", "7o 5b 1b 6b", "9c 10e 8b 3c",
             "11b 7c 10o 5o", "8c 5c 3e 1o", "10b 2o 11c 2e", "12b 1e 12c 8e", "6c 10c 4e 6o"]

    def settled(named: dict[int, str]) -> dict:
        return settle_cut(cards, named, dealer=3, announcer=2)

    unnamed, named = settled({}), settled({6: "10o"})
    assert ("seat 0", "fondo", 2) in moves(named, 6) and not moves(unnamed, 6)
    assert named["revesino"] == unnamed["revesino"] == {"seat": 2, "outcome": "cut", "cutter": 3}
    assert [n - u for n, u in zip(named["net"], unnamed["net"], strict=True)] == [-2, 0, -2, 0]
    assert (unnamed["table"], named["table"]) == ({"fondo": 94}, {"fondo": 98})
    assert ("seat 0", "fondo", 2) in moves(unnamed, 7)  # trick 7's revoke: the 12c of trick 9 shows it
    assert settled({6: "10o", 7: "3e"}) == named

def test_r24_r28_under_implicit_a_seat_that_does_not_qualify_revokes_in_a_cut_hand():
    """R24 (implicit) and R28 in SettleHand: under ``napolitanaDeclaration: implicit`` only a seat
    that qualifies (three aces and the quínola, or the four aces) is the napolitana by its first
    renounce, in a hand cut in trick 10 too, whose last cards nobody saw. The cut hand of the R28
    test above: seat 0, who does not qualify, plays 3e on the copas led in trick 7 holding 12c (he
    plays it in trick 9): a revoke, fined 2 as without the option, not a napolitana's renounce."""
    cards = ["4o 4b 8o 3b", "9o 2c 2b 7e", "1c 5e 11o 4c", "7o 5b 1b 6b", "9c 10e 8b 3c",
             "11b 7c 10o 5o", "8c 5c 3e 1o", "10b 2o 11c 2e", "12b 1e 12c 8e", "6c 10c 4e 6o"]
    plain = settle_cut(cards, {}, dealer=3, announcer=2)
    implicit = settle_cut(cards, {}, dealer=3, announcer=2, napolitanaDeclaration="implicit")
    assert "napolitana" not in implicit
    assert moves(implicit, 7) == [("seat 0", "fondo", 2)]
    assert implicit["net"] == plain["net"] and implicit["table"] == plain["table"] == {"fondo": 94}


# H9: S1 takes every trick and announces after trick 9. S2 holds 1c 1e 1b 10o. Trick 1: S1 leads
# 12o and forces the quínola, S2's only oros (he is no napolitana yet): under
# quinolaForcedPaysForcer S2 pays the fondo's 9 (escrow) and 4 x 2 to S1, S3 and S0 1 x 2 each to
# S1. Trick 2: S2 renounces 1b holding 2c: the napolitana from trick 2 (implicit); refunded, the
# 8, 2, 2 and the 9 go back. He places 1e (trick 4) and 1c (trick 5): S1 pays him 1 each time.
# Out of play 1o 8o 9c 10b.
H9 = [
    "12o 10o 2o 3o",   # 1: S1 forces the quínola
    "12c 1b 3c 4c",    # 2: S2 renounces 1b (he holds 2c): 1 from S1
    "11c 2c 5c 6c",    # 3
    "10c 1e 7c 8c",    # 4: 1e placed: 1 from S1
    "12e 1c 2e 3e",    # 5: 1c placed: 1 from S1
    "11e 4e 5e 6e",    # 6
    "10e 7e 8e 9e",    # 7
    "12b 2b 3b 4b",    # 8
    "11b 5b 6b 7b",    # 9
    "11o 8b 4o 5o",    # 10
    "9o 9b 6o 7o",     # 11
]


def test_r24_implicit_refund_is_not_returned_again_by_a_revesino():
    """R24 ``implicitNapolitanaRefund: refunded`` with A6.5's cancellation: "a revesino announced
    later returns only the side payments not already returned, so its cancellation nets the
    same" (docs/rules/revesino.md). The forced quínola's 8/2/2 went back at S2's renounce; the
    announcement returns only his placed aces' three 1s. S1 then takes the fondo (9) and 16 from
    each: S1 -2 + 9 + 48 = +55."""
    rules = {"napolitanaDeclaration": "implicit", "implicitNapolitanaRefund": "refunded", "quinolaForcedPaysForcer": True}
    record = scripted(H9, undealt="1o 8o 9c", exchange={0: "descarte 10b"}, before={10: ["1 revesino"]}, rules=rules)
    result = ok(record)
    assert winners(result) == [1] * 11
    assert result["revesino"] == {"seat": 1, "outcome": "won"} and result["napolitana"] == {"seat": 2, "outcome": "void"}
    assert moves(result)[5:] == [
        ("seat 2", "escrow", 9), ("seat 2", "seat 1", 8), ("seat 3", "seat 1", 2), ("seat 0", "seat 1", 2),   # trick 1
        ("seat 1", "seat 2", 8), ("seat 1", "seat 3", 2), ("seat 1", "seat 0", 2), ("escrow", "seat 2", 9),   # the renounce
        ("seat 1", "seat 2", 1), ("seat 1", "seat 2", 1), ("seat 1", "seat 2", 1),                            # 1b, 1e, 1c placed
        ("seat 2", "seat 1", 1), ("seat 2", "seat 1", 1), ("seat 2", "seat 1", 1),                            # announced
        ("fondo", "seat 1", 9), ("seat 2", "seat 1", 16), ("seat 3", "seat 1", 16), ("seat 0", "seat 1", 16),  # won
    ]
    assert result["net"] == [-19, 55, -18, -18] and result["table"] == {"fondo": 0}
    assert settle(record, result, announcer=1)["payments"] == result["payments"]


def test_r24_r28_an_implicit_napolitana_named_revoking_in_trick_10_of_a_cut_hand_stays_the_napolitana():
    """R24 (implicit) and R28 in SettleHand: H9's first nine tricks, then S1's announced revesino
    is cut by S3's 11o in trick 10, where S2 plays 8b on the oros led. S2 renounced 1b in trick 2
    holding 2c: under ``napolitanaDeclaration: implicit`` that first renounce made him the
    napolitana, privileged in tricks 1-9 only. Named revoking in trick 10 (his unseen last card an
    oros), he is fined 2, which the cut doubles (2 more from S1); he is still the napolitana, his
    aces of tricks 2, 4 and 5 placed (1 each from S1), not revokes: only a seat named revoking in
    tricks 1-9 is kept from being the napolitana, whose renounces there would be no revokes."""
    tricks = [*H9[:9], "4o 8b 11o 5o"]

    def settled(named: dict[int, str]) -> dict:
        return settle_cut(tricks, named, dealer=0, announcer=1, napolitanaDeclaration="implicit")

    unnamed, named = settled({}), settled({10: "8b"})
    for result in (unnamed, named):
        assert result["napolitana"] == {"seat": 2, "outcome": "void"}
        assert result["revesino"] == {"seat": 1, "outcome": "cut", "cutter": 3}
        assert [moves(result, n) for n in (2, 4, 5)] == [[("seat 1", "seat 2", 1)]] * 3
    assert moves(named, 10) == [("seat 2", "fondo", 2)] and moves(unnamed, 10) == []
    assert [n - u for n, u in zip(named["net"], unnamed["net"], strict=True)] == [0, -2, -2, 0]
    assert (unnamed["table"], named["table"]) == ({"fondo": 42}, {"fondo": 46})



# H15: H9 with S2 holding 1o instead of 1c (1c out of play): he places 1o on the espadas led in
# trick 5 (2 from S1). His copas are 2c only, played in trick 3, the trick after his renounce.
H15 = [*H9[:4], "12e 1o 2e 3e", *H9[5:]]


def test_r24_implicit_settle_hand_takes_the_very_next_trick_as_proof_of_the_first_renounce():
    """R24 (implicit) in SettleHand: a seat that qualifies is the napolitana from its first
    renounce, a card off the suit led while it holds that suit, as the later tricks show. In H15
    S2 renounces 1b on the copas led in trick 2 holding 2c, his last copas, which only trick 3
    shows. Read from the tricks alone (no napolitana named, or S2 named), the hand is the one
    played, its tricks told back with their leaders and winners: S2 is the napolitana from trick
    2, his 1b there placed (1 from S1), not a revoke (allowRevokes is off), then 1e on copas in
    trick 4 (void: 1 from S1) and 1o on espadas in trick 5 (2 from S1)."""
    rules = {"napolitanaDeclaration": "implicit"}
    record = scripted(H15, undealt="1c 8o 9c", exchange={0: "descarte 10b"}, rules=rules)
    result = ok(record)
    assert result["napolitana"] == {"seat": 2, "outcome": "success"} and winners(result) == [1] * 11
    assert [moves(result, n) for n in (2, 4, 5)] == [[("seat 1", "seat 2", 1)], [("seat 1", "seat 2", 1)], [("seat 1", "seat 2", 2)]]
    unnamed = api.settle_hand({"game": "revesino", "seats": 4, "dealer": 0, "rules": rules,
                               "revesino": {"tricks": [{"cards": " ".join(t["cards"])} for t in result["tricks"]]}})
    for settled in (unnamed, settle(record, result)):
        assert settled["napolitana"] == result["napolitana"]
        assert settled["payments"] == result["payments"] and settled["net"] == result["net"]
        assert settled["tricks"] == result["tricks"]  # each {"leader", "cards", "winner"}, as played


def test_r24_r28_settle_hand_refuses_a_napolitana_s_renounce_named_as_a_revoke_the_tricks_show():
    """R24 and R28 in SettleHand: a napolitana's renounces in tricks 1-9 are no revokes, so naming
    one as a revoke is INVALID_FIELD, as in ResolveTrick, also where the later tricks show he held
    the suit. In H15 S2, the napolitana, renounces 1b on the copas led in trick 2 holding 2c (played
    in trick 3); named revoked there, with S2 named the napolitana (implicit or explicit) and revokes
    allowed, the request is refused with the reason. Not named, the hand settles as played."""
    record = scripted(H15, undealt="1c 8o 9c", exchange={0: "descarte 10b"}, rules={"napolitanaDeclaration": "implicit"})
    tricks = [{"cards": " ".join(t["cards"])} for t in ok(record)["tricks"]]
    assert tricks[1]["cards"].split()[(2 - ok(record)["tricks"][1]["leader"]) % 4] == "1b"
    for declaration in ("implicit", "explicit"):
        rules = {"napolitanaDeclaration": declaration, "allowRevokes": True}
        request = {"game": "revesino", "seats": 4, "dealer": 0, "rules": rules, "revesino": {"tricks": tricks, "napolitana": 2}}
        assert api.settle_hand(request)["napolitana"] == {"seat": 2, "outcome": "success"}
        named = [dict(t) for t in tricks]
        named[1]["revoked"] = "1b"
        with pytest.raises(InvalidInput) as err:
            api.settle_hand({**request, "revesino": {"tricks": named, "napolitana": 2}})
        assert (err.value.code, err.value.field) == ("INVALID_FIELD", "revesino.tricks[1].revoked")
        assert err.value.message == "1b was not a revoke in trick 2: seat 2 is the napolitana, whose renounces in tricks 1-9 are no revokes"


def test_r24_r28_a_seat_named_revoking_in_trick_9_of_a_cut_hand_is_not_the_implicit_napolitana():
    """R24 (implicit) and R28 in SettleHand: a seat named as revoking in tricks 1-9 is not the
    napolitana (docs/rules/revesino.md), trick 9 included. H15's first nine tricks with S2's 5b and
    7e swapped (5b on the espadas led in trick 7, 7e on the bastos led in trick 9), then S1's
    announced revesino cut by S3's 11o in trick 10, where S2 follows with 6o. S2 qualifies and
    renounces 1b in trick 2 holding 2c: not named, he is the napolitana from there, his aces of
    tricks 2, 4 and 5 placed (1, 1, 2 from S1). Named revoking 7e in trick 9 (his unseen last card
    a basto), he is no napolitana: each card he played off the suit led while holding it is a
    revoke fined 2 (1b in trick 2, 1o in trick 5 holding 4e, 5b in trick 7 holding 7e, 7e in trick
    9), and as a revoker he collects nothing, his 1e of trick 4 (placed while void) included."""
    tricks = [*H15[:6], "10e 5b 8e 9e", H15[7], "11b 7e 6b 7b", "4o 6o 11o 5o"]

    def settled(named: dict[int, str]) -> dict:
        return settle_cut(tricks, named, dealer=0, announcer=1, napolitanaDeclaration="implicit")

    unnamed, named = settled({}), settled({9: "7e"})
    assert unnamed["napolitana"] == {"seat": 2, "outcome": "void"} and "napolitana" not in named
    for result in (unnamed, named):
        assert result["revesino"] == {"seat": 1, "outcome": "cut", "cutter": 3}
    assert [moves(unnamed, n) for n in (2, 4, 5, 7, 9)] == [
        [("seat 1", "seat 2", 1)], [("seat 1", "seat 2", 1)], [("seat 1", "seat 2", 2)], [], []]
    assert [moves(named, n) for n in (2, 4, 5, 7, 9)] == [
        [("seat 2", "fondo", 2)], [], [("seat 2", "fondo", 2)], [("seat 2", "fondo", 2)], [("seat 2", "fondo", 2)]]



# H16: S1 leads and takes every trick. S2, void in copas, places 1b, 1e and 1o on the copas led in
# tricks 1-3 (2, 1, 2 from S1); his quínola is his last oros in trick 7, forced by S1's 11o. His
# first renounce is 8b on the espadas led in trick 9, holding 5e (trick 10). Out of play 2o 8o 9o 10b.
H16 = ["1c 1b 2c 3c", "12c 1e 4c 5c", "11c 1o 6c 7c", "12b 2b 3b 4b", "11b 5b 6b 7b", "12o 5o 3o 4o",
       "11o 10o 6o 7o", "12e 2e 3e 4e", "11e 8b 6e 7e", "10e 5e 8e 9e", "10c 9b 8c 9c"]


def test_r24_implicit_a_first_renounce_in_trick_9_declares_the_napolitana_from_trick_9():
    """R24 (implicit): the qualifying seat may renounce in tricks 1-9, and its first renounce makes
    it the napolitana from that trick; before it he plays as anyone. In H16 S2 (1b 1e 1o and the
    quínola) follows suit or is void through trick 8 and renounces first in trick 9, the last trick
    of the privilege: the napolitana from trick 9, not a revoke (allowRevokes is off); his quínola
    forced in trick 7, before it, paid the fondo's 9 as anyone's (escrowed, then kept by the
    fondo). SettleHand reads the hand the same way from its tricks, with S2 named or not."""
    rules = {"napolitanaDeclaration": "implicit"}
    record = scripted(H16, undealt="10b 8o 9o", exchange={0: "descarte 2o"}, rules=rules)
    result = ok(record)
    assert winners(result) == [1] * 11 and result["napolitana"] == {"seat": 2, "outcome": "success"}
    assert moves(result, 7) == [("seat 2", "escrow", 9)] and moves(result, 9) == []
    body: dict[str, Any] = {"tricks": [{"cards": c} for c in H16]}
    for named in ({}, {"napolitana": 2}):
        settled = api.settle_hand({"game": "revesino", "seats": 4, "dealer": 0, "rules": rules, "revesino": {**body, **named}})
        assert settled["napolitana"] == result["napolitana"]
        assert settled["payments"] == result["payments"] and settled["net"] == result["net"]


def test_r24_implicit_a_first_renounce_in_trick_10_is_a_revoke_and_no_napolitana():
    """R24 (implicit): only a renounce in tricks 1-9 declares the napolitana. H16 with S2 following
    espadas in trick 9 and playing 8b on S1's 8o in trick 10 while holding 2o (trick 11): a revoke
    (allowRevokes: 2 into the fondo), and S2 is no napolitana. SettleHand agrees, and refuses S2
    named as the napolitana, who never renounced in tricks 1-9."""
    rules = {"napolitanaDeclaration": "implicit", "allowRevokes": True}
    tricks = [*H16[:5], "12o 10o 3o 4o", "11o 5o 6o 7o", H16[7], "11e 5e 6e 7e", "8o 8b 8e 9e", "10c 2o 8c 9c"]
    record = scripted(tricks, undealt="10b 10e 9o", exchange={0: "descarte 9b"}, rules=rules)
    result = ok(record)
    assert winners(result) == [1] * 11 and "napolitana" not in result
    assert moves(result, 10) == [("seat 2", "fondo", 2)]
    request = {"game": "revesino", "seats": 4, "dealer": 0, "rules": rules, "revesino": {"tricks": [{"cards": c} for c in tricks]}}
    settled = api.settle_hand(request)
    assert "napolitana" not in settled and settled["payments"] == result["payments"]
    request["revesino"]["napolitana"] = 2
    with pytest.raises(InvalidInput) as err:
        api.settle_hand(request)
    assert (err.value.code, err.value.field) == ("INVALID_FIELD", "revesino.napolitana")
    assert err.value.message.startswith("seat 2 never renounced in tricks 1-9")


def test_r24_implicit_in_a_cut_hand_an_unproven_renounce_declares_only_a_named_napolitana():
    """R24 (implicit) in SettleHand of a hand cut in trick 10, whose last cards nobody saw: H16's
    first nine tricks, then S1's announced revesino cut by S3's 10c in trick 10 (S1 holds 8c, S3
    10c). S2 discards 1b, 1e, 1o on the copas led in tricks 1-3 (void) and plays 8b on the espadas
    led in trick 9, his last espadas unseen. Not named, nothing shown is a renounce: S2 is no
    napolitana, his aces placed as anyone's (2, 1, 2 from S1). Named the napolitana, his first
    card off the suit led is his renounce (his unseen card may be of that suit): the napolitana,
    void by the revesino (A6.5), his share of the cut's payment (64) the napolitana's too."""
    cut = [*H16[:9], "8c 9b 10c 9c"]
    request = {"game": "revesino", "seats": 4, "dealer": 0, "rules": {"napolitanaDeclaration": "implicit"}, "table": {"fondo": 20},
               "revesino": {"tricks": [{"cards": c} for c in cut], "announcer": 1}}
    unnamed = api.settle_hand(request)
    named = api.settle_hand({**request, "revesino": {**request["revesino"], "napolitana": 2}})
    assert "napolitana" not in unnamed and named["napolitana"] == {"seat": 2, "outcome": "void"}
    for result in (unnamed, named):
        assert result["revesino"] == {"seat": 1, "outcome": "cut", "cutter": 3}
        assert [moves(result, n) for n in (1, 2, 3)] == [[("seat 1", "seat 2", 2)], [("seat 1", "seat 2", 1)], [("seat 1", "seat 2", 2)]]
    assert (unnamed["net"], named["net"]) == ([-1, -85, 0, 64], [-1, -85, -64, 128])


def test_r28_settle_hand_refuses_a_named_revoke_no_unseen_card_could_prove():
    """R28 in SettleHand: in a hand cut in trick 10 a revoke the tricks do not show may be named,
    its proof a card nobody saw; where no card left unplayed is of the suit led, it cannot have
    been one. In the cut hand of the R28 test above every copas is played: S1's 1o on the copas
    led in trick 7 named as a revoke is INVALID_FIELD."""
    cards = ["4o 4b 8o 3b", "9o 2c 2b 7e", "1c 5e 11o 4c", "7o 5b 1b 6b", "9c 10e 8b 3c",
             "11b 7c 10o 5o", "8c 5c 3e 1o", "10b 2o 11c 2e", "12b 1e 12c 8e", "6c 10c 4e 6o"]
    with pytest.raises(InvalidInput) as err:
        settle_cut(cards, {7: "1o"}, dealer=3, announcer=2)
    assert (err.value.code, err.value.field) == ("INVALID_FIELD", "revesino.tricks[6].revoked")
    assert err.value.message == "1o was not a revoke in trick 7: no card left unplayed is of copas"


# H10: H9 with the napolitana called: S2 renounces 1b in trick 1 (1 x 2 from S1) and keeps the
# quínola, his only oros, to trick 10, where S1's 11o forces it.
H10 = ["12o 1b 2o 3o", "12c 8b 3c 4c", *H9[2:9], "11o 10o 4o 5o", H9[10]]


def test_r36_napolitanas_quinola_forced_by_a_high_oros_after_an_announcement():
    """A6.5 step 2 and R36: once a revesino is announced no quínola payment is made in tricks
    10-11, and by default the napolitana's consequences are void: his quínola forced by S1's 11o
    in trick 10 pays nothing (no 2/1/1, no doubling). With ``revesinoVoidsNapolitana: false`` it
    doubles the fondo and pays 2 to S1, 1 to S3 and S0 "sea en la baza que sea", and S1's won
    revesino takes the doubled fondo, 18."""
    def hand(**rules: Any) -> dict:
        return ok(scripted(H10, undealt="1o 8o 9c", exchange={0: "descarte 10b"}, calls=["2 napolitana"],
                           before={10: ["1 revesino"]}, rules=rules))
    void = hand()
    assert winners(void) == [1] * 11 and void["revesino"] == {"seat": 1, "outcome": "won"}
    assert void["napolitana"] == {"seat": 2, "outcome": "void"}
    assert moves(void, 10) == []
    assert moves(void)[5:] == [
        ("seat 1", "seat 2", 2), ("seat 1", "seat 2", 1), ("seat 1", "seat 2", 1),   # 1b, 1e, 1c placed
        ("seat 2", "seat 1", 2), ("seat 2", "seat 1", 1), ("seat 2", "seat 1", 1),   # announced
        ("fondo", "seat 1", 9), ("seat 2", "seat 1", 16), ("seat 3", "seat 1", 16), ("seat 0", "seat 1", 16),
    ]
    assert void["net"] == [-19, 55, -18, -18] and void["table"] == {"fondo": 0}
    kept = hand(revesinoVoidsNapolitana=False)
    assert kept["napolitana"] == {"seat": 2, "outcome": "success"}
    assert moves(kept, 10) == [("seat 2", "fondo", 9), ("seat 2", "seat 1", 2), ("seat 2", "seat 3", 1), ("seat 2", "seat 0", 1)]
    assert ("fondo", "seat 1", 18) in moves(kept)
    assert kept["net"] == [-18, 66, -31, -17] and kept["table"] == {"fondo": 0}


# H11: S1 leads and takes every trick (his aces led: no payment). S3, void in bastos, places the
# quínola on S1's 12b in trick 10, after S1's announcement. Out of play 8o 11o 9b 10b.
H11 = ["1c 2c 3c 4c", "12c 5c 6c 7c", "11c 8c 9c 10c", "1e 2e 3e 4e", "12e 5e 6e 7e", "11e 8e 9e 10e",
       "1o 2o 3o 4o", "12o 5o 6o 7o", "1b 2b 3b 4b", "12b 5b 10o 6b", "11b 7b 9o 8b"]


@pytest.mark.parametrize("voids", [True, False])
def test_a6_5_no_quinola_payment_in_tricks_10_and_11_once_announced(voids: bool):
    """A6.5 step 2 (A6.3: "if a revesino is announced by another player, the quínola becomes an
    ordinary sota"): S3's quínola placed in trick 10 after S1's announcement takes no fondo and
    collects nothing, whether or not the revesino voids the napolitana's consequences (R36: only
    his are kept). S1 wins the revesino: the fondo 9 and 16 from each."""
    record = scripted(H11, undealt="8o 11o 9b", exchange={0: "descarte 10b"}, before={10: ["1 revesino"]},
                      rules={"revesinoVoidsNapolitana": voids})
    result = ok(record)
    assert winners(result) == [1] * 11 and result["revesino"] == {"seat": 1, "outcome": "won"}
    assert moves(result, 10) == []
    assert moves(result)[5:] == [("fondo", "seat 1", 9), ("seat 2", "seat 1", 16), ("seat 3", "seat 1", 16), ("seat 0", "seat 1", 16)]
    assert result["net"] == [-19, 55, -18, -18] and result["table"] == {"fondo": 0}
    assert settle(record, result, announcer=1)["payments"] == result["payments"]


# H12: S1 leads and takes every trick, his aces led (no payment), and leads his own quínola in
# trick 9 (S0, void in oros, throws 2b). Out of play 11o 9b 10b 11b. H12_LATE: the same with
# tricks 9 and 10 swapped: the quínola led in trick 10, after the announcement.
H12 = ["1c 2c 3c 4c", "12c 5c 6c 7c", "11c 8c 9c 10c", "1e 2e 3e 4e", "12e 5e 6e 7e", "11e 8e 9e 10e",
       "1o 2o 3o 4o", "12o 5o 6o 7o", "10o 8o 9o 2b", "1b 3b 4b 5b", "12b 6b 7b 8b"]
H12_LATE = [*H12[:8], H12[9], H12[8], H12[10]]


def test_a6_5_the_announcers_own_quinola_is_one_he_played_in_tricks_1_to_9():
    """A6.5 / R19: the announcer's own quínola counts when he played it in tricks 1-9 (led here,
    in trick 9): his won revesino also collects an amount equal to the fondo (9) from the other
    three in equal shares, 3 each (extraFondo). Led in trick 10, after the announcement, it is
    an ordinary sota: no bonus."""
    def hand(tricks: list[str]) -> dict:
        record = scripted(tricks, undealt="11o 9b 10b", exchange={0: "descarte 11b"}, before={10: ["1 revesino"]})
        result = ok(record)
        assert winners(result) == [1] * 11 and result["revesino"] == {"seat": 1, "outcome": "won"}
        assert settle(record, result, announcer=1)["payments"] == result["payments"]
        return result
    own = hand(H12)
    assert moves(own)[5:] == [("fondo", "seat 1", 9), ("seat 2", "seat 1", 16), ("seat 3", "seat 1", 16), ("seat 0", "seat 1", 16),
                              ("seat 2", "seat 1", 3), ("seat 3", "seat 1", 3), ("seat 0", "seat 1", 3)]
    assert own["net"] == [-22, 64, -21, -21] and own["table"] == {"fondo": 0}
    late = hand(H12_LATE)
    assert moves(late)[5:] == moves(own)[5:9]
    assert late["net"] == [-19, 55, -18, -18] and late["table"] == {"fondo": 0}


def test_r19_announcer_quinola_forced_a_led_quinola_is_an_ordinary_sota_for_the_revesino() -> None:
    """R19 ``announcerQuinola: forced``: the quínola S1 led in trick 9 (H12) is not the quínola
    jugada the seed pays with the revesino, so his won revesino collects the fondo and the 16s
    only, as when he led it in trick 10 (H12_LATE); the default pays him the quínola too. The
    one forced from S2 in trick 1 (H13) still counts."""
    rules = {"announcerQuinola": "forced"}
    for tricks, net in ((H12, [-19, 55, -18, -18]), (H12_LATE, [-19, 55, -18, -18])):
        record = scripted(tricks, undealt="11o 9b 10b", exchange={0: "descarte 11b"}, before={10: ["1 revesino"]}, rules=rules)
        result = ok(record)
        assert result["revesino"] == {"seat": 1, "outcome": "won"} and result["net"] == net
        assert settle(record, result, announcer=1)["payments"] == result["payments"]
    default = ok(scripted(H12, undealt="11o 9b 10b", exchange={0: "descarte 11b"}, before={10: ["1 revesino"]}))
    assert default["net"] == [-22, 64, -21, -21]
    forced = ok(scripted(H13, undealt="1o 9o 11o", exchange={0: "descarte 12o"}, before={10: ["2 revesino"]}, rules=rules))
    assert forced["net"] == [-22, -21, 64, -21] and forced["table"] == {"fondo": 0}


# H13: S2's quínola, his only oros, is forced by S1's 2o in trick 1 and takes it (the fondo's 9
# into the escrow); S2 then leads and takes every trick and announces. Out of play 1o 9o 11o 12o.
H13 = ["2o 10o 3o 4o", "1c 2c 3c 4c", "12c 5c 6c 7c", "11c 8c 9c 5o", "10c 6o 7o 8o", "1e 2e 3e 4e", "12e 5e 6e 7e",
       "11e 8e 9e 10e", "1b 2b 3b 4b", "12b 5b 6b 7b", "11b 8b 9b 10b"]


def test_a6_4_the_announcers_own_quinola_payment_waits_in_the_escrow():
    """A6.4: when the announcer himself was forced to play the quínola (and won that trick), his
    fondo payment is kept in escrow until the revesino is decided, not returned at the
    announcement: the escrow holds his 9 through trick 10 and the won revesino returns it to him
    (then he takes the fondo, 9, the 16s and his quínola's 9 in shares of 3)."""
    record = scripted(H13, undealt="1o 9o 11o", exchange={0: "descarte 12o"}, before={10: ["2 revesino"]})
    announced = ok(through_trick(record, 9))
    assert announced["revesino"] == {"seat": 2, "outcome": "pending"}
    assert (announced["fondo"], announced["escrow"]) == (9, 9)
    ten = ok(through_trick(record, 10))
    assert (ten["fondo"], ten["escrow"]) == (9, 9)
    result = ok(record)
    assert winners(result) == [2] * 11 and result["revesino"] == {"seat": 2, "outcome": "won"}
    assert moves(result)[5:] == [
        ("seat 2", "escrow", 9),                    # trick 1: forced
        ("escrow", "seat 2", 9), ("fondo", "seat 2", 9),
        ("seat 3", "seat 2", 16), ("seat 0", "seat 2", 16), ("seat 1", "seat 2", 16),
        ("seat 3", "seat 2", 3), ("seat 0", "seat 2", 3), ("seat 1", "seat 2", 3),
    ]
    assert result["net"] == [-22, -21, 64, -21] and result["table"] == {"fondo": 0}
    assert settle(record, result, announcer=2)["payments"] == result["payments"]


def test_r20_napolitana_fails_by_winning_trick_10_under_last_two_only():
    """R20 ``napolitanaFailLastTwoOnly``: winning trick 10 counts as much as trick 11. In H5F the
    napolitana S2 takes trick 10 alone (12o): he fails under the option as by default, with the
    same settlement (refunds, twice the fondo his quínola took, the party)."""
    for rules in ({}, {"napolitanaFailLastTwoOnly": True}):
        record = scripted(H5F, undealt="3c 4b 4o", exchange={0: "descarte 5o"}, calls=["2 napolitana"], rules=rules)
        result = ok(record)
        assert winners(result) == [0, 3, 0, 3, 1, 0, 3, 3, 1, 2, 3]
        assert result["napolitana"] == {"seat": 2, "outcome": "failed"}, rules
        assert (result["handWinner"], result["partyPayer"]) == (3, 2)
        assert result["net"] == [1, 0, -24, 5] and result["table"] == {"fondo": 18}


# H5F_REVOKE: H5F where S1 throws 2o on S0's 7c in trick 2 while holding 6c (a renuncio), and
# 8c, void in oros by then, in trick 11.
H5F_REVOKE = [H5F[0], "7c 2o 2c 9c", *H5F[2:10], "3o 11o 9o 8c"]


def test_a6_8_a_revoker_gets_back_only_his_own_money_from_a_failed_napolitana():
    """A6.8 with A6.6: the failed napolitana refunds twice what each player paid him, but a
    revoker "forfeits every payment he would otherwise receive": S1, who revoked in trick 2 and
    paid S2 2 (the quínola's 1 in trick 3, 1c placed in trick 5), gets back his own 2 and forfeits
    the other 2: S1 0 - 2 (the fine) - 2 = -4. (The fine made the fondo 11 before S2's quínola took
    it in trick 3: his failure pays 22 into it.)"""
    record = scripted(H5F_REVOKE, undealt="3c 4b 4o", exchange={0: "descarte 5o"}, calls=["2 napolitana"],
                      rules={"allowRevokes": True})
    result = ok(record)
    assert winners(result) == [0, 3, 0, 3, 1, 0, 3, 3, 1, 2, 3] and result["napolitana"] == {"seat": 2, "outcome": "failed"}
    assert moves(result, 2) == [("seat 1", "fondo", 2)]
    refunds = [m for m in moves(result) if m[0] == "seat 2" and m[1] != "fondo"]
    assert refunds == [("seat 2", "seat 3", 6), ("seat 2", "seat 0", 8), ("seat 2", "seat 1", 2), ("seat 2", "seat 3", 4)]
    assert [(f["seat"], f["amount"]) for f in result["forfeited"]] == [(1, 2)]
    assert ("seat 2", "fondo", 22) in moves(result)
    assert result["net"] == [1, -4, -24, 5] and result["table"] == {"fondo": 22}


# SettleHand checks the announcer against the tricks (A4.2): H11 where S0 takes trick 9 with 1b.
H11_LOST9 = [*H11[:8], "4b 2b 3b 1b", "6b 12b 5b 10o", "11b 7b 9o 8b"]


@pytest.mark.parametrize(("cards", "winners"), [
    (H11_LOST9, [1] * 8 + [0, 1, 1]),
    # H11 with S1's 1c and S2's 2c exchanged: S2 takes trick 1 with 1c, S1 trick 2 with 12c over
    # S2's lead and every trick after
    (["2c 1c 3c 4c", "5c 6c 7c 12c", *H11[2:]], [2] + [1] * 10),
], ids=["lost trick 9", "lost trick 1"])
def test_a4_2_settle_hand_refuses_an_announcer_who_did_not_win_tricks_1_to_9(cards: list[str], winners: list[int]):
    """A4.2 / section 0: only the leader of trick 10 who won tricks 1-9, the first included, may
    announce. S1 leads trick 10 having lost trick 9 (to S0) or trick 1 (to S2): SettleHand
    refuses S1 as the announcer; without him the hand settles."""
    tricks = [{"cards": t} for t in cards]
    request = {"game": "revesino", "seats": 4, "dealer": 0, "revesino": {"tricks": tricks, "announcer": 1}}
    with pytest.raises(InvalidInput) as err:
        api.settle_hand(request)
    assert (err.value.code, err.value.field) == ("INVALID_FIELD", "revesino.announcer")
    assert "did not win tricks 1-9" in err.value.message
    plain = api.settle_hand({**request, "revesino": {"tricks": tricks}})
    assert [t["winner"] for t in plain["tricks"]] == winners and "revesino" not in plain


def test_a5_1_settle_hand_refuses_a_forced_card_its_player_could_follow_with_another():
    """A5.1: an ace is forced only when it is its player's only card of the suit led. In H1's
    trick 7 S2 plays 1b on 8b holding 12b and 11b (by choice): SettleHand refuses it named as
    forced, saying he still held bastos."""
    record = h1()
    result = ok(record)
    request = {"game": "revesino", "seats": 4, "dealer": 0, "revesino": {
        "tricks": [{"cards": " ".join(t["cards"]), **({"forced": "1b"} if i == 6 else {})} for i, t in enumerate(result["tricks"])]}}
    with pytest.raises(InvalidInput) as err:
        api.settle_hand(request)
    assert (err.value.code, err.value.field) == ("INVALID_FIELD", "revesino.tricks[6].forced")
    assert err.value.message == "1b was not forced in trick 7: seat 2 still held bastos after it"


def test_a5_1_settle_hand_refuses_a_led_ace_named_forced_saying_a_led_card_is_never_forced():
    """A5.1: the leader's ace is led, never forced. In H1's trick 3 S0 leads 1c: SettleHand refuses
    it named as forced, saying which cards can be forced (not that he held the suit)."""
    result = ok(h1())
    assert result["tricks"][2]["cards"][0] == "1c"
    request = {"game": "revesino", "seats": 4, "dealer": 0, "revesino": {
        "tricks": [{"cards": " ".join(t["cards"]), **({"forced": "1c"} if i == 2 else {})} for i, t in enumerate(result["tricks"])]}}
    with pytest.raises(InvalidInput) as err:
        api.settle_hand(request)
    assert (err.value.code, err.value.field) == ("INVALID_FIELD", "revesino.tricks[2].forced")
    assert err.value.message == ("1c was not forced in trick 3: only an ace or the quínola played in the suit led by another "
                                 "player (not a napolitana's in tricks 1-9) can be forced")


def test_r9_resolve_trick_a_led_quinola_pays_the_fondo_under_gergi():
    """R9 (OPTION ``gergi``): a led quínola pays as if forced, an amount equal to the fondo into
    it (A6.3), in ResolveTrick as in a hand; by default a led card pays nothing. A led ace's
    gergi is paid to the hand winner at the hand's end, which one trick does not know."""
    assert resolve("10o 2o 3o 4o", 0, 5, 12) == []
    assert resolve("10o 2o 3o 4o", 0, 5, 12, rules={"gergi": True}) == [("seat 0", "fondo", 12)]
    assert resolve("1c 2c 3c 4c", 0, 5, 12, rules={"gergi": True}) == []


# H14: S1 takes tricks 1-9 and announces; S2 (the napolitana, called) places the quínola in trick
# 2 (the fondo 9 into the escrow; S1 pays him 2, S3 and S0 1 each) and 1b, 1c in tricks 4 and 5
# (1 each from S1); S3 revokes in trick 3 (6o on copas, holding 7c). S2 cuts the revesino with
# 1e in trick 10, and with ``revesinoVoidsNapolitana: false`` he also fails. The last card of
# each hand is never played (8o, 5c, 9c, 7e); out of play 1o 9o 10b 7o.
H14 = ["12o 8b 2o 3o", "12c 10o 3c 4c", "11c 2c 6o 6c", "10c 1b 7c 8c", "12e 1c 2e 3e", "11e 4e 5e 6e",
       "11o 9b 4o 5o", "12b 2b 3b 4b", "11b 5b 6b 7b", "10e 1e 8e 9e"]


def test_a6_8_a_revoker_forfeits_a_failed_napolitanas_refund_beyond_what_a_revesino_returned():
    """A6.8 with A6.6 and R36 ``revesinoVoidsNapolitana: false``: the announcement returned every
    side payment (docs/rules/revesino.md: a failed napolitana then pays only the rest, (factor - 1)
    x); S3, a revoker, paid S2 1 and got it back at the announcement, so the rest, 1, is a gain he
    forfeits; S0 gets his 1, S1 his 4. S2 also pays the 9 his quínola took once more (the
    announcement returned the take). S1 pays the cutter 64 and doubles the fondo (11)."""
    record = scripted(H14, undealt="1o 9o 10b", exchange={0: "descarte 7o"}, calls=["2 napolitana"], before={10: ["1 revesino"]},
                      rules={"allowRevokes": True, "revesinoVoidsNapolitana": False})
    result = ok(record)
    assert winners(result) == [1] * 9 + [2] and result["finished"]
    assert result["revesino"] == {"seat": 1, "outcome": "cut", "cutter": 2}
    assert result["napolitana"] == {"seat": 2, "outcome": "failed"}
    assert moves(result)[-5:] == [("seat 1", "seat 2", 64), ("seat 1", "fondo", 11),
                                  ("seat 2", "seat 0", 1), ("seat 2", "seat 1", 4), ("seat 2", "fondo", 9)]
    assert [(f["seat"], f["amount"]) for f in result["forfeited"]] == [(3, 1)]
    assert result["net"] == [-2, -73, 48, -4] and result["table"] == {"fondo": 31}
    assert settle(record, result, announcer=1)["payments"] == result["payments"]


# S2 qualifies (1c 1e 1b 10o) under implicit and holds no other oros or copas. Trick 1: S1 leads 12o and
# the quínola is forced; trick 2: S1 leads oros again and S2, void, discards 2b (no renounce); trick
# 3: S1 leads 2c and the 1c is forced from S2 (2 to S1); trick 5: S3 leads 6e and S2, holding
# espadas, renounces 1b: the napolitana from trick 5, not from trick 2 (where he held no oros).
VOID_BEFORE_RENOUNCE = {
    "game": "revesino", "seats": 4, "dealer": 0, "rules": {"napolitanaDeclaration": "implicit"},
    "deal": FORCED_THEN_RENOUNCES["deal"],
    "actions": ["1 quedo", "2 quedo", "3 quedo", "0 descarte 5o", "1 12o", "2 10o", "3 2o", "0 3o", "1 6o", "2 2b", "3 6b", "0 4o",
                "1 2c", "2 1c", "3 3c", "0 4c", "2 3b", "3 12b", "0 10b", "1 7o", "3 6e", "0 5e", "1 7c", "2 1b"]}


def test_r24_implicit_a_discard_while_void_is_no_renounce_the_privilege_starts_later():
    """R24 implicit: the napolitana's privilege starts at the trick of his first renounce, a card off
    the suit led while he holds it. Discarding while void (trick 2, oros led after his only oros was
    forced in trick 1) is no renounce, so his 1c forced in trick 3 pays the leader 2 as anyone's,
    and ResolveTrick, told the napolitana from trick 5 only, agrees."""
    record = dict(VOID_BEFORE_RENOUNCE)
    result = ok(record)
    assert result["napolitana"] == {"seat": 2, "outcome": "failed"} and winners(result) == [1, 1, 2, 3, 3]  # he won trick 3
    while not result["finished"]:  # played out with the first legal card of the seat to act
        seat = result["next"]["seat"]
        record["actions"] = [*record["actions"], f"{seat} " + sorted(a for a in legal_of(result, seat) if a[0].isdigit())[0]]
        result = ok(record)
    assert moves(result, 1) == [("seat 2", "escrow", 9)]
    assert moves(result, 2) == []
    assert moves(result, 3) == [("seat 2", "seat 1", 2)]
    assert settle(record, result)["net"] == result["net"]
    assert resolve("2c 1c 3c 4c", 1, 3, 9, forced="1c") == [("seat 2", "seat 1", 2)]
    # implicitNapolitanaRefund refunded: both forced payments, tricks 1 and 3, go back at trick 5.
    refunded = ok({**record, "rules": REFUNDED})
    refunds = [p for p in refunded["payments"] if "renounces" in p["reason"]]
    assert [(p["payer"], p["payee"], p["amount"]) for p in refunds] == [("seat 1", "seat 2", 2), ("escrow", "seat 2", 9)]
    assert refunds[0]["reason"] == ("seat 2 renounces in trick 5, the napolitana: returned "
                                    "(1c forced in trick 3: pays the trick's leader 2)")


# S2 places the quínola in trick 2 (17 into the escrow), renounces espadas in trick 3 holding 1e,
# and places 1e in trick 11; S1 wins the hand.
R28_REVOKER = {"game": "revesino", "seats": 4, "dealer": 0, "rules": {"allowRevokes": True}, "table": {"fondo": 16},
              "deal": {"hands": ["4e 2c 2b 5b 3o 4o 5o 4c 6c 8c 6o 1b", "2e 3c 3b 6b 7o 8o 9o 5c 7c 9c 7b",
                                 "3e 10o 5e 4b 6e 7e 8e 9e 10e 11e 1e", "12e 12c 12b 11b 1o 12o 11o 1c 11c 10c 2o"],
                       "stock": "8b 9b 10b"},
              "actions": ["1 quedo", "2 quedo", "3 quedo", "0 descarte 1b",
                          "1 2e", "2 3e", "3 12e", "0 4e", "3 12c", "0 2c", "1 3c", "2 10o", "3 12b", "0 2b", "1 3b", "2 5e",
                          "3 11b", "0 5b", "1 6b", "2 4b", "3 1o", "0 3o", "1 7o", "2 6e", "3 12o", "0 4o", "1 8o", "2 7e",
                          "3 11o", "0 5o", "1 9o", "2 8e", "3 1c", "0 4c", "1 5c", "2 9e", "3 11c", "0 6c", "1 7c", "2 10e",
                          "3 10c", "0 8c", "1 9c", "2 11e", "3 2o", "0 6o", "1 7b", "2 1e"]}


def test_r28_a_revoker_keeps_the_quinola_take_he_made_before_his_revoke():
    """docs/rules/revesino.md (Revokes): the forfeiture covers gains from the revoking trick on; a
    quínola placed in an earlier trick took the fondo then, and its escrow becoming final when
    trick 10 is led pays him, not forfeited (``renuncioForfeits: laterGains``, the default). S2's
    take of trick 2 is paid him; his 1e payment of trick 11 is forfeited."""
    result = ok(R28_REVOKER)
    held = [p for p in result["payments"] if "escrow" in (p["payer"], p["payee"])]
    assert [(p["payer"], p["payee"], p["amount"]) for p in held] == [("fondo", "escrow", 17), ("escrow", "seat 2", 17)]
    assert [(f["seat"], f["amount"], f["trick"]) for f in result["forfeited"]] == [(2, 2, 11)]
    assert result["net"] == [-2, 8, 19, -11] and result["table"] == {"fondo": 2}
    assert result == ok({**R28_REVOKER, "rules": {"allowRevokes": True, "renuncioForfeits": "laterGains"}})


def test_r28_renuncio_forfeits_later_payments_sends_an_escrowed_take_back_to_the_fondo():
    """R28 ``renuncioForfeits: laterPayments`` (docs/rules/revesino.md): the take of trick 2, still
    in the escrow when S2 revokes in trick 3, would reach him when trick 10 is led, after his
    revoke: it goes back to the fondo and is listed in ``forfeited`` (no trick, as the payment it
    replaces). The side payments of trick 2 were paid to him before and stand. SettleHand agrees."""
    record = {**R28_REVOKER, "rules": {"allowRevokes": True, "renuncioForfeits": "laterPayments"}}
    result = ok(record)
    held = [p for p in result["payments"] if "escrow" in (p["payer"], p["payee"])]
    assert [(p["payer"], p["payee"], p["amount"]) for p in held] == [("fondo", "escrow", 17), ("escrow", "fondo", 17)]
    assert held[1]["reason"] == "the fondo taken by the quínola in trick 2, 17, goes back to the fondo: seat 2 revoked in trick 3"
    assert "trick" not in held[1]
    assert [(f["seat"], f["amount"], f.get("trick")) for f in result["forfeited"]] == [(2, 17, None), (2, 2, 11)]
    assert moves(result, 2)[1:] == [("seat 3", "seat 2", 2), ("seat 0", "seat 2", 1), ("seat 1", "seat 2", 1)]
    assert result["net"] == [-2, 8, 2, -11] and result["table"] == {"fondo": 19}
    summary = settle(record, result)
    assert (summary["net"], summary["payments"], summary["forfeited"]) == (result["net"], result["payments"], result["forfeited"])


def test_r28_renuncio_forfeits_whole_hand_returns_what_he_was_paid_before_his_revoke():
    """R28 ``renuncioForfeits: wholeHand`` (docs/rules/revesino.md): at his revoke in trick 3,
    right after its fine, S2 gives back what he gained in trick 2, the side payments to their
    payers and the quínola's take from the escrow to the fondo, each listed in ``forfeited``;
    these returns belong to the hand (no trick), so trick 3's payments are ResolveTrick's for it;
    trick 11's 1e payment is forfeited as it comes. SettleHand agrees."""
    record = {**R28_REVOKER, "rules": {"allowRevokes": True, "renuncioForfeits": "wholeHand"}}
    result = ok(record)
    fine = next(i for i, p in enumerate(result["payments"]) if p.get("trick") == 3)
    returned = result["payments"][fine + 1:fine + 5]
    assert [(p["payer"], p["payee"], p["amount"], "trick" in p) for p in returned] == [
        ("seat 2", "seat 3", 2, False), ("seat 2", "seat 0", 1, False), ("seat 2", "seat 1", 1, False), ("escrow", "fondo", 17, False)]
    assert result["payments"][fine]["reason"].endswith("he collects nothing this hand, what he was paid before returned")
    assert returned[0]["reason"] == "renuncio by seat 2 in trick 3: returned (quínola placed in trick 2: the trick's winner pays 2)"
    assert returned[3]["reason"] == "renuncio by seat 2 in trick 3: the fondo taken by his quínola in trick 2, 17, returned from the escrow"
    assert [(f["seat"], f["amount"], f.get("trick")) for f in result["forfeited"]] == [
        (2, 2, None), (2, 1, None), (2, 1, None), (2, 17, None), (2, 2, 11)]
    assert result["forfeited"][3]["reason"] == "quínola placed in trick 2: takes the fondo, 17 (forfeited: seat 2 revoked)"
    assert result["net"] == [-1, 9, -2, -9] and result["table"] == {"fondo": 19} and result["escrow"] == 0
    trick = result["tricks"][2]
    alone = api.resolve_trick({"game": "revesino", "seats": 4, "dealer": 0, "leader": trick["leader"], "cards": " ".join(trick["cards"]),
                               "number": 3, "fondo": 0, "revoked": "5e", "rules": record["rules"]})
    assert alone["payments"] == [p for p in result["payments"] if p.get("trick") == 3] and "forfeited" not in alone
    summary = settle(record, result)
    assert (summary["net"], summary["payments"], summary["forfeited"]) == (result["net"], result["payments"], result["forfeited"])
