"""The worked examples of rules/revesino.md whose figures were checked only on a hand summary
(engine/revesino_money.py's ``money``), here played out as whole hand records through
``engine.api.validate``: RV-7's announced revesino, RV-8 (the hand winner and the party, with its
variant and option) and RV-12 (the fondo over three deals, with ``allowRevokes``).

Every hand is scripted trick by trick (revesino_support.scripted): the cards of each trick in
play order, trick 1 led by S1, each next by the winner of the last; the hands dealt are the cards
each seat plays. Dealer 0 unless stated, so the spec's Sn is seat n.
"""

from __future__ import annotations

from results_support import legal, ok, winners
from revesino_support import moves, scripted, through_trick, upto

# ---- RV-7: the forced quínola's payment returned on an announcement ---------------------------------

# S1 leads and wins every trick. Trick 1 takes S2's only other oros, so in trick 5 (S1 leads 12o)
# his quínola is forced. 1o 6o 8o are S1's, S2's and S3's undealt cards (kept), 9o the dealer's
# discard. The aces S1 leads pay nothing.
RV7 = ["11o 2o 3o 5o", "1e 2e 3e 4e", "12e 5e 6e 7e", "1b 2b 3b 4b", "12o 10o 4o 7o", "12b 5b 6b 7b", "1c 2c 3c 4c",
       "12c 5c 6c 7c", "11e 8e 9e 10e", "11b 8b 9b 10b", "11c 8c 9c 10c"]


def rv7(**kw) -> dict:
    return scripted(RV7, undealt="1o 6o 8o", exchange={0: "descarte 9o"}, table={"fondo": 11}, **kw)


def test_rv07_the_forced_quinola_is_returned_when_the_trick_5_winner_announces():
    """RV-7: fondo 12 before trick 5 (11 carried, the fee 1); S1 leads 12o and S2's only oros, the
    quínola, is forced: S2 pays 12 into the escrow. S1 has won tricks 1-9 and announces: S2's 12
    is returned and the fondo is 12 again before the revesino is settled; S1 then wins it: the
    fondo and 16 from each. Without the announcement the 12 is final at the lead to trick 10:
    S2 -12, fondo 24."""
    plain = rv7()
    # (fondo, escrow) after trick 5, after trick 9, and once trick 10 is led
    for n, led, pool in ((5, False, (12, 12)), (9, False, (12, 12)), (9, True, (24, 0))):
        result = ok(through_trick(plain, n, led=led))
        assert winners(result)[:n] == [1] * n and (result["fondo"], result["escrow"]) == pool, (n, led)
    assert "1 revesino" in legal(ok(through_trick(plain, 9)))
    unannounced = ok(plain)
    assert moves(unannounced)[:3] == [("seat 0", "fondo", 1), ("seat 2", "escrow", 12), ("escrow", "fondo", 12)]
    assert unannounced["net"][2] == -12 and unannounced["table"] == {"fondo": 24}

    announced = rv7(before={10: ["1 revesino"]})
    on = ok(upto(announced, announced["actions"].index("1 revesino") + 1))
    assert on["revesino"] == {"seat": 1, "outcome": "pending"}
    assert (on["fondo"], on["escrow"]) == (12, 0)
    result = ok(announced)
    assert result["finished"] and result["revesino"] == {"seat": 1, "outcome": "won"}
    assert sorted(moves(result)) == sorted([("seat 0", "fondo", 1), ("seat 2", "escrow", 12), ("escrow", "seat 2", 12),
                                            ("fondo", "seat 1", 12), ("seat 0", "seat 1", 16), ("seat 2", "seat 1", 16),
                                            ("seat 3", "seat 1", 16)])
    assert result["net"] == [-17, 60, -16, -16] and result["table"] == {"fondo": 0}


# ---- RV-8: the hand winner and the party -----------------------------------------------------------

# Out of play: 12e 5b 7c (S1's, S2's, S3's undealt cards, kept) and 9o (the dealer's discard): 3
# points, party 3 + 4 = 7. No ace or quínola pays: S1 leads the quínola, S0 leads 1e and 1b and
# plays 1c and 1o in suit holding another card of it. Points / tricks: S0 18/5 (tricks 4, 6, 7, 8,
# 9), S1 3/2 (1 and 11), S2 3/1 (2), S3 16/3 (3, 5, 10).
RV8 = ["10o 8o 7o 6o", "5e 11e 6e 10e", "6b 12b 11b 10b", "2c 1c 3c 4c", "5c 6c 11c 12c", "2o 1o 3o 4o",
       "1e 2e 3e 4e", "1b 2b 3b 4b", "9b 7b 10c 8b", "11o 5o 9c 12o", "7e 8e 9e 8c"]
# The variant: S1 and S3 swap 9e and 7e, so S3 takes the last trick: S1 3/1, S3 16/4.
RV8_VARIANT = [*RV8[:10], "9e 8e 7e 8c"]


def rv8(tricks: list[str], **kw) -> dict:
    return scripted(tricks, undealt="12e 5b 7c", exchange={0: "descarte 9o"}, table={"fondo": 20}, **kw)


def test_rv08_fewest_points_then_fewest_tricks():
    """RV-8: S1 and S2 have the fewest points (3); S2 has fewer tricks and wins; S0 has the most
    points (18) and pays him the party, 7. The fondo (20, no re-ante) only gains the fee."""
    result = ok(rv8(RV8))
    assert result["finished"] and winners(result) == [1, 2, 3, 0, 3, 0, 0, 0, 0, 3, 1]
    assert result["cardPoints"] == [18, 3, 3, 16] and result["seatTricks"] == [5, 2, 1, 3]
    assert (result["handWinner"], result["tiebreak"]) == (2, "fewestTricks")
    assert (result["party"], result["partyPayer"]) == (7, 0)
    assert moves(result) == [("seat 0", "fondo", 1), ("seat 0", "seat 2", 7)]
    assert result["net"] == [-8, 0, 7, 0] and result["table"] == {"fondo": 21}


def test_rv08_variant_tie_on_points_and_tricks_goes_by_seat():
    """RV-8's variant: S1 and S2 tie on points (3) and tricks (1): by seat order S0, S1, S2, S3,
    S1 wins; with ``tiebreakOrder: dealerThenLeft`` (S0, S3, S2, S1) S2 wins. S0 pays the
    winner 7."""
    result = ok(rv8(RV8_VARIANT))
    assert result["cardPoints"] == [18, 3, 3, 16] and result["seatTricks"] == [5, 1, 1, 4]
    assert (result["handWinner"], result["tiebreak"], result["partyPayer"]) == (1, "seat", 0)
    assert moves(result) == [("seat 0", "fondo", 1), ("seat 0", "seat 1", 7)]
    assert result["net"] == [-8, 7, 0, 0]
    left = ok(rv8(RV8_VARIANT, rules={"tiebreakOrder": "dealerThenLeft"}))
    assert (left["handWinner"], left["tiebreak"], left["partyPayer"]) == (2, "seat", 0)
    assert moves(left) == [("seat 0", "fondo", 1), ("seat 0", "seat 2", 7)]
    assert left["net"] == [-8, 0, 7, 0]


# ---- RV-12: the fondo over three deals, with allowRevokes ----------------------------------------------

# Deal 1, dealer P0 (seat 0): RV-8's variant where S1, holding 3c and 6c, revokes with 7b on
# trick 4 (copas led) and throws 3c on trick 9 (bastos led), void in bastos by then. S1 still wins
# the hand (3 points, 1 trick, before S2 by seat) but collects nothing more: not the party.
RV12_DEAL1 = [*RV8_VARIANT[:3], "2c 1c 7b 4c", *RV8_VARIANT[4:8], "9b 3c 10c 8b", *RV8_VARIANT[9:]]
# Deal 2, dealer P1 (seat 1), so S1 = P2, S2 = P3, S3 = P0. S1 takes tricks 1-5 leading 1c 1e 1b
# 12c 12e; in trick 6 S2 (P3), void in bastos since trick 3, places the quínola and S0 (P1) wins
# it; S0 takes the rest. Out of play 2b 3b 4b 5b (0 points): party 4. S2 and S3 tie at 0 points
# and 0 tricks: S2 wins by seat; S0 (24 points) pays.
RV12_DEAL2 = ["1c 2c 3c 4c", "1e 2e 3e 4e", "1b 6b 7b 8b", "12c 5c 6c 7c", "12e 5e 6e 7e", "9b 10o 10b 12b",
              "1o 6o 7o 8o", "11c 8c 9c 10c", "11e 8e 9e 10e", "5o 2o 3o 4o", "12o 11o 9o 11b"]


def test_rv12_fondo_lifecycle_over_three_deals_with_revokes_allowed():
    """RV-12 (A6.1, A6.8, A6.4): deal 1 (dealer P0) on an empty fondo: antes 4 x 2 and the fee
    -> 9, P0 putting in 3; P1's revoke pays 2 -> 11, and he collects nothing more. Deal 2 (dealer
    P1): 11 >= 9, no ante; the fee -> 12; P3 places the quínola in trick 6 and takes the 12 (in
    escrow, final when trick 10 is led) -> 0. Deal 3 (dealer P2): 0 < 9 -> antes 8, the fee -> 9."""
    deal1 = scripted(RV12_DEAL1, undealt="12e 5b 7c", exchange={0: "descarte 9o"}, table={"fondo": 0},
                     rules={"allowRevokes": True})
    assert ok(upto(deal1, 0))["fondo"] == 9
    first = ok(deal1)
    assert first["finished"] and winners(first) == [1, 2, 3, 0, 3, 0, 0, 0, 0, 3, 3]
    assert moves(first)[:5] == [("seat 0", "fondo", 2), ("seat 1", "fondo", 2), ("seat 2", "fondo", 2),
                                ("seat 3", "fondo", 2), ("seat 0", "fondo", 1)]
    assert moves(first, 4) == [("seat 1", "fondo", 2)]
    assert first["handWinner"] == 1 and [(f["seat"], f["amount"]) for f in first["forfeited"]] == [(1, 7)]
    assert not [m for m in moves(first) if m[1] == "seat 1"]
    assert first["net"] == [-3, -4, -2, -2] and first["table"] == {"fondo": 11}

    deal2 = scripted(RV12_DEAL2, dealer=first["nextDealer"], undealt="2b 3b 4b", exchange={0: "descarte 5b"},
                     table=first["table"])
    assert deal2["dealer"] == 1 and ok(upto(deal2, 0))["fondo"] == 12
    after6 = ok(through_trick(deal2, 6))
    assert winners(after6)[-1] == 1 and (after6["fondo"], after6["escrow"]) == (0, 12)
    assert (ok(through_trick(deal2, 9))["escrow"], ok(through_trick(deal2, 9, led=True))["escrow"]) == (12, 0)
    second = ok(deal2)
    assert moves(second, 6) == [("fondo", "escrow", 12), ("seat 1", "seat 3", 2), ("seat 2", "seat 3", 1), ("seat 0", "seat 3", 1)]
    assert ("escrow", "seat 3", 12) in moves(second)
    assert (second["handWinner"], second["partyPayer"], second["party"]) == (3, 1, 4)
    assert second["net"] == [-1, -7, -1, 20] and second["table"] == {"fondo": 0}

    deal3 = scripted(RV8, dealer=second["nextDealer"], undealt="12e 5b 7c", exchange={0: "descarte 9o"}, table=second["table"])
    assert deal3["dealer"] == 2
    assert ok(upto(deal3, 0))["fondo"] == 9
    assert sorted(moves(ok(deal3))[:5]) == [("seat 0", "fondo", 2), ("seat 1", "fondo", 2), ("seat 2", "fondo", 1),
                                            ("seat 2", "fondo", 2), ("seat 3", "fondo", 2)]
