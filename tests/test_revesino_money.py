"""Revesino's money (``engine.revesino_money``): the spec's worked examples RV-3..RV-12 with their
exact figures, the shared sample records' net and fondo, the decisions R1-R38 that concern money
(default and option), SettleHand's summary, and random courses for the money invariant."""

from __future__ import annotations

import copy
import dataclasses
import glob
import json
import random
from typing import Any

import pytest

from engine import api
from engine.cards import DECK_48, Card, Suit
from engine.errors import InvalidInput
from engine.revesino import Options
from engine.revesino_money import (
    POINTS,
    QUINOLA,
    Course,
    Play,
    PlayedTrick,
    choose_payer,
    choose_winner,
    is_special,
    money,
    read_table,
    settle_summary,
    trick_payments,
    trick_winner,
)

EXAMPLES = "/work/shared/records/examples"


def C(text: str) -> Card:
    return Card.parse(text)


def T(n: int, leader: int, cards: str, forced: str = "", nap: int | None = None, revoke: str = "") -> PlayedTrick:
    """A complete trick from its cards in play order; aces and the quínola classified per A5.1:
    the leader's is led, an off-suit one placed, an in-suit one forced when listed in ``forced``
    (never a napolitana's in tricks 1-9), else voluntary."""
    cs = [C(x) for x in cards.split()]
    forced_set = {C(x) for x in forced.split()}
    revoked = {C(x) for x in revoke.split()}
    plays = []
    for k, c in enumerate(cs):
        seat = (leader + k) % 4
        kind = ""
        if is_special(c):
            if k == 0:
                kind = "led"
            elif c.suit is not cs[0].suit:
                kind = "placed"
            elif c in forced_set and not (seat == nap and n <= 9):
                kind = "forced"
            else:
                kind = "voluntary"
        plays.append(Play(seat, c, kind, c in revoked))
    return PlayedTrick(n, leader, tuple(plays), trick_winner(leader, cs))


def F(n: int, leader: int, winner: int, suit: str = "b") -> PlayedTrick:
    """A blank filler trick (no points, no payments) that ``winner`` takes."""
    plays = []
    low = iter(["2", "3", "4"])
    for k in range(4):
        seat = (leader + k) % 4
        rank = "9" if seat == winner else next(low)
        plays.append(Play(seat, C(rank + suit), ""))
    return PlayedTrick(n, leader, tuple(plays), winner)


def chain(specs: list[Any], dealer: int = 0) -> tuple[PlayedTrick, ...]:
    """Tricks 1.. from ``specs``: an int is a filler won by that seat; a (cards, kwargs) pair or a
    string is a trick of those cards; each led by the previous winner (trick 1 by the dealer's right)."""
    leader = (dealer + 1) % 4
    out = []
    for i, spec in enumerate(specs):
        n = i + 1
        if isinstance(spec, int):
            t = F(n, leader, spec)
        elif isinstance(spec, str):
            t = T(n, leader, spec)
        else:
            t = T(n, leader, spec[0], **spec[1])
        out.append(t)
        assert t.winner is not None
        leader = t.winner
    return tuple(out)


def run(course: Course, **rules: Any) -> dict[str, Any]:
    result = money(Options(**rules), course)
    check_invariants(course, result)
    return result


def check_invariants(course: Course, result: dict[str, Any]) -> None:
    assert sum(result["net"]) + result["fondo"] + result["escrow"] - course.fondo == 0
    assert result["fondo"] >= 0 and result["escrow"] >= 0
    names = {"fondo", "escrow", "seat 0", "seat 1", "seat 2", "seat 3"}
    for p in result["payments"]:
        assert type(p["amount"]) is int and p["amount"] > 0, p
        assert p["payer"] in names and p["payee"] in names and p["payer"] != p["payee"], p
        assert p["reason"]
    if course.finished:
        assert result["escrow"] == 0
        assert result["table"] == {"fondo": result["fondo"]}


def pay(result: dict[str, Any], payer: str, payee: str, trick: int | None = None) -> list[int]:
    return [p["amount"] for p in result["payments"]
            if p["payer"] == payer and p["payee"] == payee and (trick is None or p.get("trick") == trick)]


def total(result: dict[str, Any], payer: str, payee: str, trick: int | None = None) -> int:
    return sum(pay(result, payer, payee, trick))


def fee_free(result: dict[str, Any], dealer: int = 0, fee: int = 1) -> list[int]:
    net = list(result["net"])
    net[dealer] += fee
    return net


# ---- A1 -----------------------------------------------------------------------------------------

def test_a1_points_total_43() -> None:
    assert sum(POINTS.values()) == 43
    assert POINTS[QUINOLA] == 3 and POINTS[C("1c")] == 5 and POINTS[C("1o")] == 4
    assert POINTS[C("12e")] == 3 and POINTS[C("11b")] == 2 and POINTS[C("10c")] == 1 and POINTS[C("9o")] == 0


def test_course_plays_and_tricks_compare_and_hash_by_their_fields() -> None:
    """``Play`` and ``PlayedTrick`` (the course of a hand) are values, equal and hashed by their
    fields as the frozen dataclasses they replace: a play differs by seat, card, kind or revoke."""
    play = Play(1, C("1o"), "placed")
    assert play == Play(1, C("1o"), "placed") and hash(play) == hash(Play(1, C("1o"), "placed"))
    assert play != Play(2, C("1o"), "placed") and play != Play(1, C("1c"), "placed")
    assert play != Play(1, C("1o"), "forced") and play != Play(1, C("1o"), "placed", revoke=True)
    trick = T(4, 1, "5e 12e 1b 9e")
    assert trick == T(4, 1, "5e 12e 1b 9e") and hash(trick) == hash(T(4, 1, "5e 12e 1b 9e"))
    assert trick != T(5, 1, "5e 12e 1b 9e") and trick != T(4, 1, "5e 11e 1b 9e") and trick != T(4, 2, "5e 12e 1b 9e")


def test_course_money_refuses_a_course_that_cannot_happen() -> None:
    """``money`` takes the complete tricks in order, at most the last in progress, each of four
    plays with every ace and quínola classified, and a revesino only after trick 9: anything else
    is a ValueError, not money computed from it."""
    done = chain([1, 2, 3])
    open_trick = PlayedTrick(2, 1, (Play(1, C("5c"), ""),), None)
    bad = [
        (done[0], open_trick, done[2]),  # a trick in progress before a complete one
        (done[0], done[2]),  # trick 3 as the second complete trick
        (done[0], PlayedTrick(2, 1, done[1].plays[:3], 2)),  # a complete trick of three plays
        (PlayedTrick(1, 1, (Play(1, C("1o"), ""), *done[0].plays[1:]), 1),),  # an ace without a kind
    ]
    bad += [(done[0], open_trick, PlayedTrick(2, 1, done[1].plays, done[1].winner)),  # a complete trick after one in progress
            (done[0], open_trick, PlayedTrick(3, 1, (Play(1, C("6c"), ""),), None))]  # two in progress
    for tricks in bad:
        with pytest.raises(ValueError):
            money(Options(), Course(dealer=0, fondo=16, tricks=tricks))
    with pytest.raises(ValueError):
        money(Options(), Course(dealer=0, fondo=16, tricks=chain([1] * 8), announcer=1))
    assert money(Options(), Course(dealer=0, fondo=16, tricks=(done[0], open_trick)))["fondo"] == 17


def test_course_money_shows_the_table_once_over_and_forfeited_only_when_someone_forfeits() -> None:
    """``money``'s answer (module docstring): the table to carry comes once the hand is over, and
    ``forfeited`` only when a revoker forfeited something (RV-8: nobody revoked)."""
    over = run(_rv8_course(False))
    assert over["table"] == {"fondo": over["fondo"]} and "forfeited" not in over
    in_progress = run(dataclasses.replace(_rv8_course(False), finished=False))
    assert "table" not in in_progress and "forfeited" not in in_progress and "handWinner" not in in_progress


# ---- worked examples ----------------------------------------------------------------------------

def test_rv3_trick_winner_and_placed_ace() -> None:
    t = T(4, 1, "5e 12e 1b 9e")
    assert t.winner == 2
    assert sum(POINTS[p.card] for p in t.plays) == 7
    assert [p.kind for p in t.plays] == ["", "", "placed", ""]
    got = trick_payments(Options(), t, 20, None)
    assert [(p["payer"], p["payee"], p["amount"], p["trick"]) for p in got] == [("seat 2", "seat 3", 1, 4)]


def test_rv4_oros_ace_placed_in_trick_1_doubled() -> None:
    t = T(1, 1, "4c 1o 11c 2c")
    assert t.winner == 3
    got = trick_payments(Options(), t, 20, None)
    assert [(p["payer"], p["payee"], p["amount"]) for p in got] == [("seat 3", "seat 2", 4)]
    got = trick_payments(Options(double_ace_placed="copas"), t, 20, None)
    assert [(p["payer"], p["payee"], p["amount"]) for p in got] == [("seat 3", "seat 2", 2)]


def test_rv5_ace_forced_in_the_last_trick() -> None:
    t = T(11, 0, "5c 1c 8c 2b", forced="1c")
    assert t.winner == 1
    got = trick_payments(Options(), t, 20, None)
    assert [(p["payer"], p["payee"], p["amount"]) for p in got] == [("seat 1", "seat 0", 4)]


def _rv6(trick: int = 3) -> list[Any]:
    # S2 leads 6e, S3 8e, S0 places the quínola, S1 2e: S3 wins
    specs: list[Any] = [2] * (trick - 1) + ["6e 8e 10o 2e"] + [3] * (11 - trick)
    return specs


def test_rv6_quinola_placed_escrow_then_final() -> None:
    tricks = chain(_rv6())
    course = Course(dealer=0, fondo=13, tricks=tricks[:3])  # 13 + fee 1 = 14 before trick 3
    r = run(course)
    assert r["escrow"] == 14 and r["fondo"] == 0
    assert total(r, "seat 3", "seat 0") == 2 and total(r, "seat 1", "seat 0") == 1 and total(r, "seat 2", "seat 0") == 1
    assert r["net"] == [-1 + 4, -1, -1, -2]
    # after trick 9 the escrow is still pending: a revesino could still be announced
    r9 = run(Course(dealer=0, fondo=13, tricks=tricks[:9]))
    assert r9["escrow"] == 14
    # trick 10 led without an announcement: final
    lead10 = PlayedTrick(10, 3, (Play(3, C("5b"), ""),), None)
    r10 = run(Course(dealer=0, fondo=13, tricks=tricks[:9] + (lead10,)))
    assert r10["escrow"] == 0 and r10["net"][0] == 3 + 14 and r10["fondo"] == 0
    done = run(Course(dealer=0, fondo=13, tricks=tricks, finished=True, out_of_play=(C("2o"), C("3o"), C("4o"), C("5o"))))
    assert done["table"] == {"fondo": 0}
    # next deal: 0 < 9 -> four antes of 2 + fee 1 -> 9
    nxt = run(Course(dealer=1, fondo=done["table"]["fondo"], tricks=()))
    assert nxt["fondo"] == 9 and nxt["net"] == [-2, -3, -2, -2]
    # the same event in trick 11: 4/2/2 and the fondo take final at once
    t11 = chain(_rv6(11))
    r11 = run(Course(dealer=0, fondo=13, tricks=t11, finished=True))
    assert pay(r11, "seat 3", "seat 0", 11) == [4] and pay(r11, "seat 1", "seat 0", 11) == [2] and pay(r11, "seat 2", "seat 0", 11) == [2]
    assert pay(r11, "fondo", "seat 0", 11) == [14] and not pay(r11, "fondo", "escrow")


def test_rv7_quinola_forced_escrow_then_final_or_returned() -> None:
    """RV-7, A6.4: a forced quínola's payment waits in the escrow; final after trick 9, or
    returned to the payer when another seat announces."""
    # fondo 12 before trick 5: S1 leads 12o, S2's only oros is 10o, S3 4o, S0 7o
    specs: list[Any] = [1, 1, 1, 1, ("12o 10o 4o 7o", {"forced": "10o"})] + [1] * 6
    tricks = chain(specs)
    r5 = run(Course(dealer=0, fondo=11, tricks=tricks[:5]))
    assert r5["escrow"] == 12 and r5["fondo"] == 12 and r5["net"][2] == -12
    r = run(Course(dealer=0, fondo=11, tricks=tricks, finished=True))
    assert r["net"][2] == -12 and r["fondo"] == 24
    assert r["payments"][-2]["reason"].startswith("no revesino announced") or any(
        p["payer"] == "escrow" and p["payee"] == "fondo" and p["amount"] == 12 for p in r["payments"])
    # S1 won tricks 1-9 and announces: S2's 12 is returned before the revesino settlement
    ra = run(Course(dealer=0, fondo=11, tricks=tricks[:9], announcer=1))
    assert ra["escrow"] == 0 and ra["fondo"] == 12 and ra["net"][2] == 0
    assert pay(ra, "escrow", "seat 2") == [12]


def test_a6_4_a_quinola_payment_of_trick_9_is_escrowed_and_returned_on_a_revesino() -> None:
    """A6.4: trick 9 is among tricks 1-9, whose quínola fondo movements are held in escrow. S3 leads
    12o in trick 9 and forces S0's quínola: S0 pays the fondo, 21, into the escrow, where it waits
    until trick 10 is led; S3 announces a revesino, which returns it to S0."""
    tricks = chain([3] * 8 + [("12o 10o 5o 6o", {"forced": "10o"}), 3, 3])
    assert tricks[8].plays[1].kind == "forced" and tricks[8].plays[1].seat == 0 and tricks[8].winner == 3
    nine = run(Course(dealer=0, fondo=20, tricks=tricks[:9]))
    assert pay(nine, "seat 0", "escrow", trick=9) == [21] and nine["escrow"] == 21 and nine["fondo"] == 21
    r = run(Course(dealer=0, fondo=20, tricks=tricks, announcer=3, finished=True))
    assert pay(r, "escrow", "seat 0") == [21] and pay(r, "seat 0", "fondo") == [1]  # the fee only
    assert r["revesino"]["outcome"] == "won" and fee_free(r) == [-16, -16, -16, 21 + 48]


def _rv8_course(variant: bool) -> Course:
    s1_blank = 3 if variant else 1
    tricks = [
        T(1, 0, "1o 2o 3o 4o"), T(2, 0, "1e 2e 3e 4e"), T(3, 0, "1b 2b 3b 4b"), T(4, 0, "12o 5o 6o 7o"), T(5, 0, "12c 2c 3c 4c"),
        T(6, 1, "12b 5b 6b 7b"), F(7, s1_blank, s1_blank, "e"),
        T(8, 2, "10c 10e 10b 5c"),
        T(9, 3, "1c 6c 8c 9c"), T(10, 3, "11o 10o 8o 2e"), T(11, 3, "11c 11e 11b 2c"),
    ]
    return Course(dealer=0, fondo=20, tricks=tuple(tricks), finished=True, out_of_play=(C("12e"), C("5b"), C("7c"), C("9o")))


def test_rv8_hand_winner_and_party() -> None:
    r = run(_rv8_course(False))
    assert r["points"] == [18, 3, 3, 16] and r["seatTricks"] == [5, 2, 1, 3]
    assert r["handWinner"] == 2 and r["tiebreak"] == "fewestTricks" and r["party"] == 7 and r["partyPayer"] == 0
    assert pay(r, "seat 0", "seat 2") == [7]
    v = run(_rv8_course(True))
    assert v["points"] == [18, 3, 3, 16] and v["seatTricks"] == [5, 1, 1, 4]
    assert v["handWinner"] == 1 and v["tiebreak"] == "seat" and pay(v, "seat 0", "seat 1") == [7]
    w = run(_rv8_course(True), tiebreak_order="dealerThenLeft")
    assert w["handWinner"] == 2 and pay(w, "seat 0", "seat 2") == [7]


def _rv9_tricks(last: list[Any], nap: int | None = None) -> tuple[PlayedTrick, ...]:
    specs: list[Any] = [
        ("5c 6c 9c 2c", {}),             # 1: S1 leads, S3 wins
        ("9c 2c 1e 3c", {}),             # 2: S3 leads, S1 places 1e
        3,                               # 3
        ("9b 2b 3b 10o", {"nap": nap}),  # 4: S2 places the quínola
        3, 3, 3, 3, 3,                   # 5-9
    ] + last
    return chain(specs)


def test_rv9_revesino_won_with_cancellation() -> None:
    tricks = _rv9_tricks([3, 3])
    r = run(Course(dealer=0, fondo=16, tricks=tricks, announcer=3, finished=True))
    assert r["revesino"] == {"seat": 3, "outcome": "won"}
    assert fee_free(r) == [-16, -16, -16, 65]
    assert r["fondo"] == 0 and r["table"] == {"fondo": 0}
    assert "handWinner" not in r and "partyPayer" not in r
    # the cancellation: S1 returns 1 to S3; S2 returns 17 to the fondo and 2, 1, 1
    assert pay(r, "seat 1", "seat 3") == [1, 16]
    assert pay(r, "escrow", "fondo") == [17]
    assert total(r, "seat 2", "seat 3") == 2 + 16 and pay(r, "seat 2", "seat 0") == [1] and pay(r, "seat 2", "seat 1") == [1]
    assert pay(r, "fondo", "seat 3") == [17]
    # in progress after the announcement: cancelled, pending
    p = run(Course(dealer=0, fondo=16, tricks=tricks[:9], announcer=3))
    assert p["revesino"] == {"seat": 3, "outcome": "pending"} and p["fondo"] == 17 and p["escrow"] == 0
    assert fee_free(p) == [0, 0, 0, 0]


def test_rv10_revesino_cut() -> None:
    tricks = _rv9_tricks([("2o 3o 9o 4o", {})])  # S3 2o, S0 3o, S1 9o, S2 4o: S1 cuts
    assert tricks[9].winner == 1
    r = run(Course(dealer=0, fondo=16, tricks=tricks, announcer=3, finished=True))
    assert r["revesino"] == {"seat": 3, "outcome": "cut", "cutter": 1}
    assert fee_free(r) == [0, 64, 0, -81] and r["fondo"] == 34
    # S2 a napolitana (who won no trick): he also pays the cutter 64
    n = run(Course(dealer=0, fondo=16, tricks=tricks, announcer=3, napolitana=2, finished=True))
    assert fee_free(n) == [0, 128, -64, -81] and n["napolitana"] == {"seat": 2, "outcome": "void"}
    # S2 the napolitana is the cutter: S3 pays him 64 and doubles the fondo; nobody else pays
    cut2 = _rv9_tricks([("2o 3o 4o 9o", {})])
    assert cut2[9].winner == 2
    c = run(Course(dealer=0, fondo=16, tricks=cut2, announcer=3, napolitana=2, finished=True))
    assert fee_free(c) == [0, 0, 64, -81] and c["fondo"] == 34 and c["revesino"]["cutter"] == 2


def _rv11_course(**kw: Any) -> Course:
    nap = 2
    specs: list[Any] = [
        1, 1,
        ("4b 10o 9b 12b", {"nap": nap}),      # 3: S1 leads, S2 renounces the quínola; S0 wins
        0,
        ("3e 11e 1c 2e", {"nap": nap}),       # 5: S0 leads, S2 renounces 1c; S1 wins
        1,
        ("5c 1e 7c 9c", {"nap": nap}),        # 7: S1 leads, S2 renounces 1e; S0 wins
        3, 3,
        ("2o 4o 5o 1o", {"nap": nap, "forced": "1o"}),  # 10: S3 leads 2o; S2's only oros 1o, forced: he wins
        ("2b 3b 5b 6b", {}),                  # 11: S2 leads, S1 wins
    ]
    tricks = chain(specs)
    assert [t.winner for t in tricks] == [1, 1, 0, 0, 1, 1, 0, 3, 3, 2, 1]
    return Course(dealer=0, fondo=11, tricks=tricks, napolitana=nap, out_of_play=(C("12e"), C("5b"), C("7c"), C("9o")), **kw)


def test_rv11_napolitana_fails() -> None:
    """RV-11, A6.6: a failed napolitana pays back, into the fondo, and pays the party."""
    r = run(_rv11_course(finished=True))
    assert r["napolitana"] == {"seat": 2, "outcome": "failed"}
    assert pay(r, "seat 2", "seat 0")[-1] == 6 and pay(r, "seat 2", "seat 1")[-1] == 4 and pay(r, "seat 2", "seat 3")[-3:] == [1, 2, 7]
    assert pay(r, "seat 2", "fondo") == [24] and r["fondo"] == 24
    assert r["handWinner"] == 3 and r["partyPayer"] == 2 and r["party"] == 7 and pay(r, "seat 2", "seat 3")[-1] == 7
    assert r["net"][2] == -19 - 7
    # before the end: trick 10 done, failure known but not yet settled
    mid = run(dataclasses.replace(_rv11_course(), tricks=_rv11_course().tricks[:10]))
    assert mid["napolitana"]["outcome"] == "failed" and mid["net"][2] == 4 + 12 + 2 - 1


def test_rv12_fondo_over_three_deals_with_a_revoke() -> None:
    """RV-12, A6.1: the fondo kept over three deals: antes, the dealer's fee, renewal."""
    out = (C("12e"), C("5e"), C("7e"), C("9o"))
    # deal 1 (dealer P0): 0 -> antes 8 + fee 1 -> 9; P1 revokes in trick 2 -> 11, and collects
    # nothing more: not his placed ace of trick 4, not the party he wins
    specs1: list[Any] = [
        ("2c 3c 9c 4c", {}),                 # 1: P1 leads, P3 wins
        ("9c 5c 5b 6c", {"revoke": "5b"}),   # 2: P3 leads, P0 5c, P1 revokes 5b, P2 6c: P3 wins
        3,
        ("9b 2b 1o 3b", {}),                 # 4: P3 leads, P0 2b, P1 places 1o, P2 3b: P3 wins
    ] + [0] * 7
    tricks1 = chain(specs1)
    assert tricks1[1].plays[2] == Play(1, C("5b"), "", True) and tricks1[3].plays[2].kind == "placed"
    d1 = run(Course(dealer=0, fondo=0, tricks=tricks1, out_of_play=out, finished=True), allow_revokes=True)
    assert d1["table"] == {"fondo": 11}
    assert pay(d1, "seat 1", "fondo", 2) == [2]
    assert d1["handWinner"] == 1 and d1["net"][1] == -2 - 2
    assert [f["amount"] for f in d1["forfeited"]] == [2, 7] and {f["seat"] for f in d1["forfeited"]} == {1}
    # deal 2 (dealer P1): 11 >= 9, fee -> 12; P3 places the quínola in trick 6 -> takes 12 (escrow,
    # final after trick 9) -> fondo 0
    specs2: list[Any] = [2, 2, 2, 2, 2, ("3e 10o 4e 5e", {})] + [2] * 5
    tricks2 = chain(specs2, dealer=1)
    assert tricks2[5].plays[1] == Play(3, QUINOLA, "placed")
    d2 = run(Course(dealer=1, fondo=d1["table"]["fondo"], tricks=tricks2, finished=True, out_of_play=out))
    assert d2["payments"][0] == {"payer": "seat 1", "payee": "fondo", "amount": 1, "reason": "the dealer's fee of 1 into the fondo"}
    assert pay(d2, "fondo", "escrow", 6) == [12] and pay(d2, "escrow", "seat 3") == [12]
    assert d2["table"] == {"fondo": 0}
    # deal 3 (dealer P2): 0 < 9 -> antes 8 + fee 1 -> 9
    d3 = run(Course(dealer=2, fondo=d2["table"]["fondo"], tricks=()))
    assert d3["fondo"] == 9 and d3["net"] == [-2, -2, -3, -2]


# ---- the shared sample records ------------------------------------------------------------------

def replay(rec: dict[str, Any]) -> Course:
    """A record's actions to a Course: the exchange, the calls, the plays classified per A5.1
    on the player's hand before he plays."""
    d = rec["dealer"]
    hands = [{C(c) for c in h.split()} for h in rec["deal"]["hands"]]
    stock = [C(c) for c in rec["deal"]["stock"].split()]
    oop: list[Card] = []
    nap = ann = None
    tricks: list[PlayedTrick] = []
    cur: list[Play] = []
    for action in rec["actions"]:
        s_text, rest = action.split(" ", 1)
        s, words = int(s_text), rest.split()
        if words[0] == "cambio":
            c = C(words[1])
            hands[s].remove(c)
            oop.append(c)
            hands[s].add(stock[(s - d - 1) % 4])
        elif words[0] == "quedo":
            oop.append(stock[(s - d - 1) % 4])
        elif words[0] == "descarte":
            c = C(words[1])
            hands[s].remove(c)
            oop.append(c)
        elif words[0] == "napolitana":
            nap = s
        elif words[0] == "revesino":
            ann = s
        else:
            c = C(words[0])
            cur.append(Play(s, c, classify(s, c, hands[s], cur, len(tricks) + 1, nap)))
            hands[s].remove(c)
            if len(cur) == 4:
                tricks.append(PlayedTrick(len(tricks) + 1, cur[0].seat, tuple(cur), trick_winner(cur[0].seat, [p.card for p in cur])))
                cur = []
    return Course(dealer=d, fondo=rec.get("table", {}).get("fondo", 0), tricks=tuple(tricks), napolitana=nap, announcer=ann,
                  out_of_play=tuple(oop), finished=True)


def classify(seat: int, card: Card, hand: set[Card] | list[Card], trick: list[Play], n: int, nap: int | None) -> str:
    if not is_special(card):
        return ""
    if not trick:
        return "led"
    suit = trick[0].card.suit
    if card.suit is not suit:
        return "placed"
    if seat == nap and n <= 9:
        return "voluntary"
    return "forced" if sum(1 for c in hand if c.suit is suit) == 1 else "voluntary"


@pytest.mark.parametrize("path", sorted(glob.glob(f"{EXAMPLES}/revesino-full-*.json")), ids=lambda p: p.rsplit("/", 1)[-1])
def test_sample_records_net_and_fondo(path: str) -> None:
    sample = json.load(open(path))
    course = replay(sample["record"])
    assert [t.winner for t in course.tricks] == sample["expect"]["tricks"]
    r = run(course)
    assert r["net"] == sample["expect"]["net"]
    assert r["table"] == sample["expect"]["table"]


def test_sample_sweep_is_a_won_revesino_and_the_cut_one_is_cut() -> None:
    won = run(replay(json.load(open(f"{EXAMPLES}/revesino-full-28-sweep.json"))["record"]))
    assert won["revesino"] == {"seat": 3, "outcome": "won"} and "handWinner" not in won
    cut = run(replay(json.load(open(f"{EXAMPLES}/revesino-full-31-sweep-cut.json"))["record"]))
    assert cut["revesino"] == {"seat": 2, "outcome": "cut", "cutter": 3}


def _summary(course: Course, rules: dict[str, Any] | None = None, forced: bool = False) -> dict[str, Any]:
    tricks = []
    for t in course.tricks:
        item: dict[str, Any] = {"leader": t.leader, "cards": " ".join(str(p.card) for p in t.plays)}
        if forced:
            item["forced"] = [str(p.card) for p in t.plays if p.kind == "forced"]
        tricks.append(item)
    body: dict[str, Any] = {"tricks": tricks}
    if course.napolitana is not None:
        body["napolitana"] = course.napolitana
    if course.announcer is not None:
        body["announcer"] = course.announcer
    if course.out_of_play:
        body["outOfPlay"] = " ".join(map(str, course.out_of_play))
    return {"game": "revesino", "seats": 4, "dealer": course.dealer, "rules": rules or {}, "table": {"fondo": course.fondo},
            "revesino": body}


@pytest.mark.parametrize("path", sorted(glob.glob(f"{EXAMPLES}/revesino-full-*.json")), ids=lambda p: p.rsplit("/", 1)[-1])
def test_settle_summary_of_the_sample_records(path: str) -> None:
    sample = json.load(open(path))
    course = replay(sample["record"])
    request = _summary(course, forced=True)
    r = settle_summary(Options(), read_table(request["table"], 4), request)
    assert r["net"] == sample["expect"]["net"] and r["table"] == sample["expect"]["table"]
    assert [t["winner"] for t in r["tricks"]] == sample["expect"]["tricks"]
    # the later tricks show which aces were forced: the list is optional, and so is outOfPlay with 11 tricks
    bare = _summary(course)
    if len(course.tricks) == 11:
        del bare["revesino"]["outOfPlay"]
    for t in bare["revesino"]["tricks"]:
        del t["leader"]
    assert settle_summary(Options(), course.fondo, bare)["net"] == sample["expect"]["net"]


# ---- decisions R1-R38 that concern money --------------------------------------------------------

def test_a61_first_deal_and_r4_dealer_stake() -> None:
    assert run(Course(dealer=0, fondo=0, tricks=()))["fondo"] == 9
    r = run(Course(dealer=0, fondo=0, tricks=()), dealer_initial_stake_includes_fee=False)
    assert r["fondo"] == 10 and r["net"] == [-4, -2, -2, -2]
    assert run(Course(dealer=0, fondo=9, tricks=()))["fondo"] == 10  # no re-ante at 9


def test_r4_the_dealers_extra_stake_is_said_in_his_payment_alone() -> None:
    """R4 off (``dealerInitialStakeIncludesFee``): the re-ante of an empty fondo at the deal is 3
    from the dealer and 2 from each other player, then the fee; the reason of the dealer's payment
    says why his is one more, the others' say only the stake."""
    r = run(Course(dealer=1, fondo=0, tricks=()), dealer_initial_stake_includes_fee=False)
    assert [(p["payer"], p["amount"], p["reason"]) for p in r["payments"]] == [
        ("seat 1", 3, "re-ante: the fondo is empty: each player pays 2 (the dealer's stake is one more: his 3 before the fee)"),
        ("seat 2", 2, "re-ante: the fondo is empty: each player pays 2"),
        ("seat 3", 2, "re-ante: the fondo is empty: each player pays 2"),
        ("seat 0", 2, "re-ante: the fondo is empty: each player pays 2"),
        ("seat 1", 1, "the dealer's fee of 1 into the fondo")]


def test_r4_r38_r5_the_dealers_extra_share_names_what_he_pays() -> None:
    """R4 off with R38's ``stake`` and R5's ``topUp``: the reason of the dealer's re-ante names his
    own share, the stake one more (4 of a stake of 3) or his top-up share one more (2 of a
    shortfall of 3), never the seeds' 3; renewed in play (``renewTiming: immediately``) no fee
    follows, and the reason says none."""
    def dealers(payments: list[dict[str, Any]]) -> tuple[int, str]:
        first = payments[0]
        assert first["payer"] == "seat 0"
        return first["amount"], first["reason"]

    off = {"dealer_initial_stake_includes_fee": False}
    assert dealers(run(Course(dealer=0, fondo=6, tricks=()), stake=3, **off)["payments"]) == (
        4, "re-ante: the fondo (6) is below 9: each player pays 3 (the dealer's stake is one more: his 4 before the fee)")
    assert dealers(run(Course(dealer=0, fondo=6, tricks=()), renew_amount="topUp", **off)["payments"]) == (
        2, "re-ante: the fondo (6) is below 9: the players top it up to 9 (the dealer's share is one more: his 2 before the fee)")
    request = {"game": "revesino", "cards": "6e 8e 10o 12e", "seats": 4, "leader": 2, "number": 3, "fondo": 9,
               "rules": {"renewTiming": "immediately", "dealerInitialStakeIncludesFee": False}}
    renewal = [p for p in api.resolve_trick(request)["payments"] if p["reason"].startswith("the fondo emptied")]
    assert (renewal[0]["payer"], renewal[0]["amount"], renewal[0]["reason"]) == (
        "seat 1", 3, "the fondo emptied in trick 3: renewed at once: each player pays 2 (the dealer's stake is one more: his 3)")


def _napolitana_sold_the_quinola_and_cut_a_revesino() -> Course:
    """Seat 2, the napolitana, sells the quínola in trick 1 and cuts seat 1's revesino in trick 10."""
    plain = iter([c for c in DECK_48.cards if c.rank != 1 and c != QUINOLA])
    tricks = []
    for n in range(1, 11):
        plays = tuple(Play(s, QUINOLA, "placed") if (n, s) == (1, 2) else Play(s, next(plain), "") for s in (1, 2, 3, 0))
        tricks.append(PlayedTrick(n, 1, plays, 1 if n <= 9 else 2))
    return Course(dealer=0, fondo=9, tricks=tuple(tricks), napolitana=2, announcer=1, finished=True)


def test_r36_a_failed_napolitanas_refunds_after_an_announced_revesino_count_what_it_returned() -> None:
    """R36 ``revesinoVoidsNapolitana: false``: the napolitana sold the quínola in trick 1 and
    cuts seat 1's revesino in trick 10, so he fails. The announcement already returned the side
    payments and the fondo his quínola took; the failure's payments, the rest of twice each, say
    so beside the amounts they pay."""
    course = _napolitana_sold_the_quinola_and_cut_a_revesino()
    out = run(course, revesino_voids_napolitana=False)
    assert out["napolitana"] == {"seat": 2, "outcome": "failed"}
    assert [(p["payee"], p["amount"], p["reason"]) for p in out["payments"] if p["reason"].startswith("failed napolitana")] == [
        ("seat 3", 2, "failed napolitana: pays back 2 x the 2 he was paid for the cards he sold, "
                      "less the 2 returned at the revesino's announcement"),
        ("seat 0", 2, "failed napolitana: pays back 2 x the 2 he was paid for the cards he sold, "
                      "less the 2 returned at the revesino's announcement"),
        ("seat 1", 4, "failed napolitana: pays back 2 x the 4 he was paid for the cards he sold, "
                      "less the 4 returned at the revesino's announcement"),
        ("fondo", 10, "failed napolitana: he sold the quínola and pays twice the fondo it took (10) into the fondo, "
                      "less the 10 returned to it at the revesino's announcement")]


def test_r5_renewal_trigger_amount_and_r38_stakes() -> None:
    assert run(Course(dealer=0, fondo=5, tricks=()), renew_trigger="empty")["fondo"] == 6
    assert run(Course(dealer=0, fondo=0, tricks=()), renew_trigger="empty")["fondo"] == 9
    top = run(Course(dealer=0, fondo=6, tricks=()), renew_amount="topUp")
    assert top["fondo"] == 10 and top["net"] == [-2, -1, -1, 0]  # 3 short: dealer, S1, S2 pay 1; then the fee
    # R4 off: at the deal the dealer's share of a top-up is one more too (his 3 before the fee)
    top = run(Course(dealer=0, fondo=6, tricks=()), renew_amount="topUp", dealer_initial_stake_includes_fee=False)
    assert top["fondo"] == 11 and top["net"] == [-3, -1, -1, 0]
    r = run(Course(dealer=2, fondo=3, tricks=()), stake=3, dealer_fee=2, renew_below=20)
    assert r["fondo"] == 3 + 12 + 2 and r["net"] == [-3, -3, -5, -3]


@pytest.mark.parametrize("fondo", [-1, "9", 9.5, 100_000_001])
def test_a6_1_resolve_trick_reads_the_fondo_as_whole_tantos_a_table_may_carry(fondo: object) -> None:
    # A6.1/A6.3 through ResolveTrick: the fondo a quínola takes is a whole number of tantos, at
    # least 0 and at most MAX_TANTOS (100,000,000), as a table's fondo is; anything else is INVALID_FIELD.
    request = {"game": "revesino", "cards": "6e 8e 10o 12e", "seats": 4, "leader": 2, "number": 3}
    assert api.resolve_trick({**request, "fondo": 100_000_000})["winner"] == 1
    with pytest.raises(InvalidInput) as err:
        api.resolve_trick({**request, "fondo": fondo})
    assert (err.value.code, err.value.field) == ("INVALID_FIELD", "fondo")


def test_a6_3_resolve_trick_reads_a_fondo_not_given_as_0() -> None:
    # A6.3 through ResolveTrick: a fondo not given is 0 (docs/rules/revesino.md), as protobuf reads
    # an absent integer: the placed quínola takes nothing from it, and its side payments stand.
    request = {"game": "revesino", "cards": "6e 8e 10o 12e", "seats": 4, "leader": 2, "number": 3}
    got = api.resolve_trick(request)["payments"]
    assert [(p["payer"], p["payee"], p["amount"]) for p in got] == [("seat 1", "seat 0", 2), ("seat 2", "seat 0", 1),
                                                                    ("seat 3", "seat 0", 1)]
    assert got == api.resolve_trick({**request, "fondo": 0})["payments"]


def test_a6_2_resolve_trick_reads_a_number_not_given_as_2_a_trick_paid_single() -> None:
    # A6.2 through ResolveTrick: a trick's number not given is 2 (docs/rules/revesino.md), a trick
    # neither first nor last: a placed ace is paid 1, not the first and last tricks' 2.
    request = {"game": "revesino", "cards": "5e 12e 1b 9e", "seats": 4, "leader": 1, "fondo": 9}
    got = api.resolve_trick(request)["payments"]
    assert [(p["payer"], p["payee"], p["amount"], p["trick"]) for p in got] == [("seat 2", "seat 3", 1, 2)]
    assert got == api.resolve_trick({**request, "number": 2})["payments"]
    assert [p["amount"] for p in api.resolve_trick({**request, "number": 1})["payments"]] == [2]


def test_a6_2_resolve_trick_reads_the_trick_number_1_to_11_and_the_napolitana_as_a_seat() -> None:
    # A6.2 (first and last tricks doubled) needs the trick's number, 1 to 11; the napolitana is a
    # seat, 0 to 3. The edges: 0 and 12 are no trick's number, 4 and -1 no seat.
    request = {"game": "revesino", "cards": "6e 8e 10o 12e", "seats": 4, "leader": 2, "fondo": 9}
    for number in (1, 11):
        assert api.resolve_trick({**request, "number": number})["winner"] == 1
    for number in (0, 12):
        with pytest.raises(InvalidInput) as err:
            api.resolve_trick({**request, "number": number})
        assert (err.value.code, err.value.field) == ("INVALID_FIELD", "number")
    for napolitana in (0, 3):  # the dealer may hold the napolitana too
        assert api.resolve_trick({**request, "number": 3, "napolitana": napolitana})["winner"] == 1
    for napolitana in (4, -1):
        with pytest.raises(InvalidInput) as err:
            api.resolve_trick({**request, "number": 3, "napolitana": napolitana})
        assert (err.value.code, err.value.field) == ("SEAT_OUT_OF_RANGE", "napolitana")


@pytest.mark.parametrize("change, code, field", [
    ({"number": 0}, "INVALID_FIELD", "number"), ({"number": 12}, "INVALID_FIELD", "number"), ({"fondo": -3}, "INVALID_FIELD", "fondo"),
    ({"fondo": 100_000_001}, "INVALID_FIELD", "fondo"), ({"napolitana": 9}, "SEAT_OUT_OF_RANGE", "napolitana"),
    ({"forced": "xx"}, "UNKNOWN_CARD", "forced"), ({"forced": "1o"}, "INVALID_FIELD", "forced"), ({"forced": "6e"}, "INVALID_FIELD", "forced"),
    ({"revoked": "8e 8e"}, "DUPLICATE_CARD", "revoked"), ({"revoked": "10o"}, "INVALID_FIELD", "revoked")])
def test_resolve_trick_checks_the_payment_fields_of_a_trick_in_progress_too(change: dict, code: str, field: str) -> None:
    # A Revesino trick's payments come once it is complete; its payment fields given with a trick
    # still awaiting cards were accepted unread (a number 0, a napolitana 9, forced 'xx', a card not
    # of the trick), where the same fields of the complete trick are refused: now refused alike,
    # and the trick in progress with good ones is answered without payments, as before.
    request = {"game": "revesino", "cards": "6e 8e 10o", "seats": 4, "leader": 2, "number": 3, "fondo": 9}
    answer = api.resolve_trick(request)
    assert (answer["complete"], answer["winner"], "payments" in answer) == (False, 3, False)
    for cards in ("6e 8e 10o", "6e 8e 10o 12e"):
        with pytest.raises(InvalidInput) as err:
            api.resolve_trick({**request, "cards": cards, **change})
        assert (err.value.code, err.value.field) == (code, field), cards


@pytest.mark.parametrize("dealer", range(4))
def test_r5_resolve_trick_tops_up_from_the_dealer_given(dealer: int) -> None:
    # ResolveTrick of a trick that empties the fondo, with an immediate top-up to 10: the 10 is
    # paid one tanto each from the request's dealer on (3, 3, 2, 2), as ValidateHand pays it.
    request = {"game": "revesino", "rules": {"renewTiming": "immediately", "renewAmount": "topUp", "renewBelow": 10},
               "cards": "12c 4c 10o 11c", "seats": 4, "leader": 2, "dealer": dealer, "number": 4, "fondo": 21}
    refill = [(p["payer"], p["amount"]) for p in api.resolve_trick(request)["payments"] if p["payee"] == "fondo"]
    assert refill == [(f"seat {(dealer + k) % 4}", amount) for k, amount in enumerate((3, 3, 2, 2))]
    # without a dealer, docs/rules/revesino.md: the seat before the trick's leader (S1 for leader S2)
    del request["dealer"]
    refill = [(p["payer"], p["amount"]) for p in api.resolve_trick(request)["payments"] if p["payee"] == "fondo"]
    assert refill == [("seat 1", 3), ("seat 2", 3), ("seat 3", 2), ("seat 0", 2)]


def test_r5_r35_immediate_refill_and_escrow_reversal() -> None:
    tricks = _rv9_tricks([3, 3])  # S2 places the quínola in trick 4 and takes 17
    r4 = run(Course(dealer=0, fondo=16, tricks=tricks[:4]), renew_timing="immediately")
    # renewed at once to the seeds' 9: 2 from each, and the dealer's 3 (his stake and the fee's 1)
    assert r4["escrow"] == 17 and r4["fondo"] == 9
    assert [(p["payer"], p["amount"]) for p in r4["payments"] if p["reason"].startswith("the fondo emptied in trick 4")] == [
        ("seat 0", 3), ("seat 1", 2), ("seat 2", 2), ("seat 3", 2)]
    # announced: the escrow returns exactly 17; the refill stands
    r = run(Course(dealer=0, fondo=16, tricks=tricks, announcer=3, finished=True), renew_timing="immediately")
    assert pay(r, "escrow", "fondo") == [17]
    assert pay(r, "fondo", "seat 3") == [26]
    assert fee_free(r) == [-3 - 16, -2 - 16, -2 - 16, -2 + 26 + 48]


def test_r5_a_renewal_in_play_is_not_renewed_again_at_the_next_deal() -> None:
    # the quínola placed in trick 4 empties the fondo (16 + the fee); renewed at once to 9, it is
    # not below 9 when the next hand is dealt: that deal adds only its fee
    tricks = _rv9_tricks([3, 3])
    r = run(Course(dealer=0, fondo=16, tricks=tricks[:4]), renew_timing="immediately")
    assert r["fondo"] == 9
    assert run(Course(dealer=1, fondo=r["fondo"], tricks=()))["fondo"] == 10
    # with the dealer's 3 on top of the fee (R4 off), the renewal in play is 2 + 2 + 2 + 3 as well
    off = run(Course(dealer=0, fondo=16, tricks=tricks[:4]), renew_timing="immediately", dealer_initial_stake_includes_fee=False)
    assert off["fondo"] == 9
    # ... one more, whatever the fee; with R4 on it is the fee more (a fee of 2: 2 + 2 + 2 + 4)
    for includes_fee, fondo in ((False, 9), (True, 10)):
        r = run(Course(dealer=0, fondo=16, tricks=tricks[:4]), renew_timing="immediately", dealer_fee=2,
                dealer_initial_stake_includes_fee=includes_fee)
        assert r["fondo"] == fondo
    # a top-up renews to renewBelow whatever the dealer's stake
    top = run(Course(dealer=0, fondo=16, tricks=tricks[:4]), renew_timing="immediately", renew_amount="topUp")
    assert top["fondo"] == 9



def test_r5_immediately_refills_a_fondo_a_quinola_empties_in_trick_11_not_one_a_won_revesino_takes() -> None:
    """R5 ``renewTiming: immediately`` (docs/rules/revesino.md, Fondo renewal): the fondo is renewed
    when a trick's payments leave it at 0, the last trick's too: S3 places the quínola in trick 11
    and takes 17, and the fondo is refilled to 9 in that trick. A won revesino takes the fondo in
    the hand's settlement, after trick 11, not in a trick: the fondo stays 0 for the next deal to
    renew."""
    last = chain([1] * 10 + [("9b 2b 10o 3b", {})])
    r = run(Course(dealer=0, fondo=16, tricks=last, finished=True), renew_timing="immediately")
    assert pay(r, "fondo", "seat 3", trick=11) == [17]
    assert [(p["payer"], p["amount"]) for p in r["payments"] if p["reason"].startswith("the fondo emptied in trick 11")] == [
        ("seat 0", 3), ("seat 1", 2), ("seat 2", 2), ("seat 3", 2)]
    assert r["fondo"] == 9 and r["table"] == {"fondo": 9}
    won = run(Course(dealer=0, fondo=16, tricks=_rv9_tricks([3, 3]), announcer=3, finished=True), renew_timing="immediately")
    assert won["revesino"] == {"seat": 3, "outcome": "won"} and pay(won, "fondo", "seat 3") == [26]
    assert won["fondo"] == 0 and not [p for p in won["payments"] if p["reason"].startswith("the fondo emptied in trick 1")]
    assert run(Course(dealer=1, fondo=won["fondo"], tricks=()))["fondo"] == 9  # the next deal renews it


def test_r5_immediately_with_below_stake_refills_in_play_only_an_empty_fondo() -> None:
    """R5 ``renewTiming: immediately`` with the default ``renewTrigger: belowStake``
    (docs/rules/revesino.md, Fondo renewal): below ``renewBelow`` is the deal's test; in play the
    fondo is refilled only when a trick leaves it at 0. A deal renewing 3 to 12 under
    ``renewBelow: 20`` plays on at 12; ResolveTrick's fondo of 5 stays 5 after a trick that moves
    nothing, and is refilled when it is 0."""
    r = run(Course(dealer=0, fondo=3, tricks=chain([1, 1])), renew_timing="immediately", renew_below=20)
    assert r["fondo"] == 3 + 8 + 1 and not [p for p in r["payments"] if p["reason"].startswith("the fondo emptied")]
    request = {"game": "revesino", "seats": 4, "cards": "5c 6c 7c 9c", "leader": 1, "number": 5,
               "rules": {"renewTiming": "immediately"}}
    assert "payments" not in api.resolve_trick({**request, "fondo": 5})
    refill = api.resolve_trick({**request, "fondo": 0})["payments"]
    assert sum(p["amount"] for p in refill if p["payee"] == "fondo") == 9

def test_r9_gergi() -> None:
    # default: a led ace pays nothing
    c = _rv8_course(False)
    assert not [p for p in run(c)["payments"] if "gergi" in p["reason"]]
    g = run(c, gergi=True)
    # S0 led 1o (trick 1, m 2: 1 x 2), 1e (1), 1b (1); S3 led 1c (copas: 2) -> all to the hand winner S2
    assert sorted(pay(g, "seat 0", "seat 2")) == [1, 1, 2, 7] and pay(g, "seat 3", "seat 2") == [2]
    # a led quínola pays the fondo under gergi
    t = T(5, 1, "10o 2o 3o 4o")
    got = trick_payments(Options(gergi=True), t, 12, None)
    assert [(p["payer"], p["payee"], p["amount"]) for p in got] == [("seat 1", "fondo", 12)]
    assert trick_payments(Options(), t, 12, None) == []


def test_r10_quinola_penalty_trigger() -> None:
    forced_loses = T(5, 1, "12o 10o 4o 7o", forced="10o")
    assert [p["amount"] for p in trick_payments(Options(), forced_loses, 12, None)] == [12]
    assert trick_payments(Options(quinola_penalty_trigger="winsTrick"), forced_loses, 12, None) == []
    voluntary_wins = T(5, 1, "4o 10o 2o 7o")
    assert voluntary_wins.winner == 2
    assert trick_payments(Options(), voluntary_wins, 12, None) == []
    got = trick_payments(Options(quinola_penalty_trigger="winsTrick"), voluntary_wins, 12, None)
    assert [(p["payer"], p["payee"], p["amount"]) for p in got] == [("seat 2", "fondo", 12)]


def test_r11_double_ace_forced_option() -> None:
    t = T(4, 1, "5o 1o 6o 7o", forced="1o")
    assert [p["amount"] for p in trick_payments(Options(), t, 12, None)] == [1]
    assert [p["amount"] for p in trick_payments(Options(double_ace_forced="oros"), t, 12, None)] == [2]
    c = T(4, 1, "5c 1c 6c 7c", forced="1c")
    assert [p["amount"] for p in trick_payments(Options(), c, 12, None)] == [2]


def test_r12_quinola_placed_winner_pays_3() -> None:
    t = T(3, 2, "6e 8e 10o 2e")
    got = trick_payments(Options(quinola_placed_winner_pays=3), t, 14, None)
    assert [(p["payer"], p["payee"], p["amount"]) for p in got] == [
        ("fondo", "seat 0", 14), ("seat 3", "seat 0", 3), ("seat 2", "seat 0", 1), ("seat 1", "seat 0", 1)]


def test_r13_r27_napolitana_quinola_forced_by_a_high_oros() -> None:
    high = T(11, 1, "1o 10o 4o 7o", forced="10o")
    got = trick_payments(Options(), high, 12, 2)
    assert [(p["payer"], p["payee"], p["amount"]) for p in got] == [
        ("seat 2", "fondo", 12), ("seat 2", "seat 1", 2), ("seat 2", "seat 3", 1), ("seat 2", "seat 0", 1)]
    got = trick_payments(Options(double_applies_to="all"), high, 12, 2)
    assert [p["amount"] for p in got] == [12, 4, 2, 2]
    low = T(11, 1, "9o 10o 4o 7o", forced="10o")
    assert [(p["payer"], p["payee"], p["amount"]) for p in trick_payments(Options(), low, 12, 2)] == [("seat 2", "fondo", 12)]
    # not a napolitana: the ordinary rule
    assert [p["amount"] for p in trick_payments(Options(), high, 12, None)] == [12]



def test_r13_double_applies_to_all_doubles_the_napolitanas_2_1_1_not_the_revesino_or_the_fondo() -> None:
    """R13 ``doubleAppliesTo: all`` (docs/rules/revesino.md): besides the side payments, only the
    napolitana's 2/1/1 is doubled in the first and last tricks. A fondo take is never doubled
    (A6), nor are the revesino's 16s and 64, the hand's price: a cut in trick 11 pays 64 and
    doubles the fondo once, a won revesino is paid 16 by each, under both values."""
    last = chain([1] * 10 + [("9b 2b 10o 3b", {})])
    for rules in ({}, {"double_applies_to": "all"}):
        r = run(Course(dealer=0, fondo=16, tricks=last, finished=True), **rules)
        assert pay(r, "fondo", "seat 3", trick=11) == [17]
        assert [pay(r, f"seat {s}", "seat 3", trick=11) for s in (1, 2, 0)] == [[4], [2], [2]]
        cut = run(Course(dealer=0, fondo=16, tricks=_rv9_tricks([3, ("2o 3o 9o 4o", {})]), announcer=3, finished=True), **rules)
        assert cut["revesino"] == {"seat": 3, "outcome": "cut", "cutter": 1}
        assert fee_free(cut) == [0, 64, 0, -81] and cut["fondo"] == 34
        won = run(Course(dealer=0, fondo=16, tricks=_rv9_tricks([3, 3]), announcer=3, finished=True), **rules)
        assert fee_free(won) == [-16, -16, -16, 65]

def test_r14_quinola_forced_pays_forcer() -> None:
    # [ENC]: the forcer "wins 4 from its holder and 1 from each player": S1 leads 12o and forces
    # S2's 10o; S2 pays the fondo and 4 to S1, and S3 and S0 pay S1 one each.
    t = T(4, 1, "12o 10o 4o 7o", forced="10o")
    got = trick_payments(Options(quinola_forced_pays_forcer=True), t, 12, None)
    assert [(p["payer"], p["payee"], p["amount"]) for p in got] == [
        ("seat 2", "fondo", 12), ("seat 2", "seat 1", 4), ("seat 3", "seat 1", 1), ("seat 0", "seat 1", 1)]


def test_r16_renuncio_fine_refunded_on_a_revesino() -> None:
    specs: list[Any] = [("5c 6c 9c 2c", {}), ("9c 2b 3c 4c", {"revoke": "2b"})] + [3] * 9
    tricks = chain(specs)
    r = run(Course(dealer=0, fondo=16, tricks=tricks, announcer=3, finished=True), allow_revokes=True)
    assert pay(r, "seat 0", "fondo") == [1, 2] and not pay(r, "fondo", "seat 0")
    assert r["net"][0] == -3 - 16
    r2 = run(Course(dealer=0, fondo=16, tricks=tricks, announcer=3, finished=True), allow_revokes=True, renuncio_penalty_refunded=True)
    assert pay(r2, "fondo", "seat 0") == [2] and r2["net"][0] == -1 - 16


def test_r17_play_out_after_cut() -> None:
    tricks = _rv9_tricks([("2o 3o 9o 4o", {}), ("5b 6b 8b 7b", {})])
    r = run(Course(dealer=0, fondo=16, tricks=tricks, announcer=3, finished=True, out_of_play=(C("2e"), C("3e"), C("4e"), C("5e"))),
            play_out_after_cut=True)
    assert r["revesino"]["outcome"] == "cut" and fee_free(r) == [0, 64, 0, -81]
    assert "handWinner" in r and "partyPayer" not in r and r["party"] == 4
    d = run(Course(dealer=0, fondo=16, tricks=tricks[:10], announcer=3, finished=True))
    assert "handWinner" not in d


def _sweep(nap: int | None = None) -> Course:
    return Course(dealer=0, fondo=20, tricks=chain([3] * 11), napolitana=nap, finished=True,
                  out_of_play=(C("12e"), C("5b"), C("7c"), C("9o")))


def test_r18_unannounced_sweep() -> None:
    r = run(_sweep())
    assert r["handWinner"] == 3 and r["tiebreak"] == "sweep" and "revesino" not in r
    assert r["partyPayer"] == 2 and pay(r, "seat 2", "seat 3") == [7]  # all 0/0: the later seat S3... but S3 won, so S2
    s = run(_sweep(), unannounced_sweep="scoredNormally")
    assert s["handWinner"] == 0 and s["tiebreak"] == "seat" and s["partyPayer"] == 3
    # another seat's napolitana (who won nothing) does not beat the sweeper
    n = run(_sweep(nap=1))
    assert n["handWinner"] == 3 and n["napolitana"] == {"seat": 1, "outcome": "success"}
    # a napolitana who sweeps has failed
    f = run(_sweep(nap=3))
    assert f["napolitana"]["outcome"] == "failed" and f["handWinner"] == 0 and f["partyPayer"] == 3


def test_r2_r18_a_sweeper_is_paid_by_another_seat() -> None:
    """R18 / R2: the dealer S0 takes all eleven (blank) tricks unannounced: he is the hand winner,
    and the party (7) is paid by the later of the three others, tied on no points and no tricks,
    S3, never by the winner himself (who has the most tricks)."""
    r = run(Course(dealer=0, fondo=20, tricks=chain([0] * 11), finished=True,
                   out_of_play=(C("12e"), C("5b"), C("7c"), C("9o"))))
    assert r["handWinner"] == 0 and r["tiebreak"] == "sweep" and r["partyPayer"] == 3
    assert pay(r, "seat 3", "seat 0") == [7] and fee_free(r) == [7, 0, 0, -7]


def test_r17_a_won_revesino_played_out_names_the_announcer() -> None:
    """R17 ``playOutAfterCut``: a hand with a revesino announced names a hand winner; when the
    revesino is won it is the announcer, by his sweep, and no party is paid."""
    r = run(Course(dealer=0, fondo=16, tricks=_rv9_tricks([3, 3]), announcer=3, finished=True), play_out_after_cut=True)
    assert r["revesino"]["outcome"] == "won" and (r["handWinner"], r["tiebreak"]) == (3, "sweep")
    assert "partyPayer" not in r and fee_free(r) == [-16, -16, -16, 65]


def _own_quinola(last: list[Any]) -> tuple[PlayedTrick, ...]:
    # S3 wins 1-9; in trick 3 his only oros is the quínola, forced by S1? S3 leads trick 3: make S0
    # lead instead is impossible, so S3 follows a trick led by ... S3 leads everything after trick 1.
    # Trick 1: S1 leads 2o, S2 3o, S3 10o (forced, wins), S0 4o.
    specs: list[Any] = [("2o 3o 10o 4o", {"forced": "10o"})] + [3] * 8 + last
    return chain(specs)


def test_r19_announcers_own_quinola_won_extra_fondo() -> None:
    """R19, A6.4, A6.5: the announcer's own forced quínola stays in the escrow until the revesino
    is decided; won, it is returned to him, and extraFondo (or its options) pays the quínola."""
    tricks = _own_quinola([3, 3])
    assert tricks[0].plays[2].kind == "forced" and tricks[0].winner == 3
    r = run(Course(dealer=0, fondo=16, tricks=tricks, announcer=3, finished=True))
    # forced in trick 1: paid 17 into escrow, returned on the win; takes 17 + 48 + 17 (6, 6, 5 from S0, S1, S2)
    assert pay(r, "seat 3", "escrow") == [17] and pay(r, "escrow", "seat 3") == [17]
    assert fee_free(r) == [-16 - 6, -16 - 6, -16 - 5, 17 + 48 + 17]
    side = run(Course(dealer=0, fondo=16, tricks=tricks, announcer=3, finished=True), revesino_quinola_bonus="sidePayments")
    assert fee_free(side) == [-17, -17, -17, 17 + 48 + 3]
    assert [(p["payer"], p["reason"]) for p in side["payments"] if "own quínola" in p["reason"]] == [
        (f"seat {s}", "revesino won with his own quínola: each other player pays 1") for s in (0, 1, 2)]
    none = run(Course(dealer=0, fondo=16, tricks=tricks, announcer=3, finished=True), revesino_quinola_bonus="none")
    assert fee_free(none) == [-16, -16, -16, 17 + 48]


def test_r19_announcers_own_quinola_cut() -> None:
    """R19, A6.4, A6.5: cut, the announcer's escrowed quínola payment goes into the fondo as part
    of his quínola payment (3F; 4F under cut_quinola_base sequential)."""
    tricks = _own_quinola([("2b 3b 9b 4b", {})])  # S1 cuts in trick 10
    assert tricks[9].winner == 1
    r = run(Course(dealer=0, fondo=16, tricks=tricks, announcer=3, finished=True))
    # fondo 17: 64 to S1, doubling 17, the quínola 17 of which the escrowed 17 counts: fondo 3F = 51
    assert r["fondo"] == 51 and fee_free(r) == [0, 64, 0, -64 - 34]
    s = run(Course(dealer=0, fondo=16, tricks=tricks, announcer=3, finished=True), cut_quinola_base="sequential")
    assert s["fondo"] == 68 and fee_free(s) == [0, 64, 0, -64 - 51]


def test_r19_announcer_quinola_forced_counts_only_the_quinola_jugada() -> None:
    """R19 ``announcerQuinola`` (docs/rules/revesino.md): the seed names the forced play "quínola
    jugada" before "El jugador que ha jugado la quínola puede ganar también el revesino". By
    default (anyPlay) a quínola the announcer followed with by choice or led in tricks 1-9 is his
    own, as a forced one is: a won revesino collects the quínola (17 in shares 6, 6, 5), a cut one
    pays it (fondo 3F). Under ``forced`` only the forced one is (or a led one under gergi, which
    pays it as forced): the others leave the revesino's money alone."""
    followed = chain([("2o 3o 10o 4o", {})] + [3] * 8 + [3, 3])  # S3 follows with the quínola by choice
    led = chain([3, ("10o 2o 3o 4o", {})] + [3] * 7 + [3, 3])  # S3 leads it in trick 2
    forced = _own_quinola([3, 3])
    assert followed[0].plays[2].kind == "voluntary" and led[1].plays[0].kind == "led" and forced[0].plays[2].kind == "forced"
    bonus, plain = [-16 - 6, -16 - 6, -16 - 5, 17 + 48 + 17], [-16, -16, -16, 17 + 48]
    for tricks in (followed, led, forced):
        assert fee_free(run(Course(dealer=0, fondo=16, tricks=tricks, announcer=3, finished=True))) == bonus
    assert fee_free(run(Course(dealer=0, fondo=16, tricks=followed, announcer=3, finished=True), announcer_quinola="forced")) == plain
    assert fee_free(run(Course(dealer=0, fondo=16, tricks=led, announcer=3, finished=True), announcer_quinola="forced")) == plain
    assert fee_free(run(Course(dealer=0, fondo=16, tricks=forced, announcer=3, finished=True), announcer_quinola="forced")) == bonus
    gergi = run(Course(dealer=0, fondo=16, tricks=led, announcer=3, finished=True), announcer_quinola="forced", gergi=True)
    assert pay(gergi, "seat 3", "escrow") == [17] and pay(gergi, "escrow", "seat 3") == [17] and fee_free(gergi) == bonus
    # a payment his quínola made for taking the trick (winsTrick) is returned on a win, no bonus
    wins = run(Course(dealer=0, fondo=16, tricks=followed, announcer=3, finished=True), announcer_quinola="forced",
               quinola_penalty_trigger="winsTrick")
    assert pay(wins, "seat 3", "escrow") == [17] and pay(wins, "escrow", "seat 3") == [17] and fee_free(wins) == plain
    # cut by S1 in trick 10: the doubling alone (fondo 34), or the quínola too by default (51)
    cut = chain([("2o 3o 10o 4o", {})] + [3] * 8 + [("2b 3b 9b 4b", {})])
    assert cut[9].winner == 1
    r = run(Course(dealer=0, fondo=16, tricks=cut, announcer=3, finished=True))
    assert r["fondo"] == 51 and fee_free(r) == [0, 64, 0, -64 - 34]
    r = run(Course(dealer=0, fondo=16, tricks=cut, announcer=3, finished=True), announcer_quinola="forced")
    assert r["fondo"] == 34 and fee_free(r) == [0, 64, 0, -64 - 17]
    assert not any("own quínola" in p["reason"] for p in r["payments"])


def test_r20_napolitana_fails_in_the_last_two_only() -> None:
    specs: list[Any] = [1, ("5e 6e 9e 7e", {})] + [2] * 9  # S2 wins tricks 2..11? no: S2 wins trick 2 onwards
    tricks = chain(specs)
    short = Course(dealer=0, fondo=20, tricks=tricks[:9], napolitana=2)
    assert run(short)["napolitana"]["outcome"] == "failed"
    assert run(short, napolitana_fail_last_two_only=True)["napolitana"]["outcome"] == "pending"
    specs2: list[Any] = [1, ("5e 6e 9e 7e", {}), 0] + [0] * 8
    ok = Course(dealer=0, fondo=20, tricks=chain(specs2), napolitana=2, finished=True)
    r = run(ok, napolitana_fail_last_two_only=True)
    assert r["napolitana"]["outcome"] == "success" and r["handWinner"] == 2 and r["tiebreak"] == "napolitana"
    # A6.6: the last trick is one of the eleven, and one of the last two: winning it alone fails him
    last = Course(dealer=0, fondo=20, tricks=chain([1] * 10 + [2]), napolitana=2, finished=True)
    for rules in ({}, {"napolitana_fail_last_two_only": True}):
        assert run(last, **rules)["napolitana"]["outcome"] == "failed"


def test_r21_r22_failed_napolitana_options() -> None:
    r = run(_rv11_course(finished=True), napolitana_pays_party_for_all=False)
    assert r["partyPayer"] != 2 or r["points"][2] == max(r["points"])
    one = run(_rv11_course(finished=True), napolitana_refund_factor=1)
    assert one["net"][2] == -19 - 7 + 6  # refunds 3, 2, 1 instead of 6, 4, 2



def test_r22_refund_factor_1_changes_only_the_side_payment_refunds_a_sold_quinola_still_pays_twice_the_fondo() -> None:
    """R22 ``napolitanaRefundFactor: 1`` (docs/rules/revesino.md): RV-11's failed napolitana pays
    back once the side payments he was paid for his sold cards (3, 2, 1 instead of 6, 4, 2), but
    for the quínola he sold still twice the fondo it took, 24 for 12: that payment is also his one
    fondo doubling (A6.6, R23)."""
    for factor, refunds in ((2, [6, 4, 2]), (1, [3, 2, 1])):
        r = run(_rv11_course(finished=True), napolitana_refund_factor=factor)
        back = {p["payee"]: p["amount"] for p in r["payments"] if p["reason"].startswith("failed napolitana: pays back")}
        assert [back["seat 0"], back["seat 1"], back["seat 3"]] == refunds
        assert pay(r, "seat 2", "fondo") == [24] and r["fondo"] == 24


def _balances(result: dict[str, Any]) -> dict[str, int]:
    """What each party (the seats, the fondo, the escrow) gained by the payments of ``result``."""
    out: dict[str, int] = {}
    for p in result["payments"]:
        out[p["payer"]] = out.get(p["payer"], 0) - p["amount"]
        out[p["payee"]] = out.get(p["payee"], 0) + p["amount"]
    return out


def test_r22_r23_napolitana_quinola_payback_factor_pays_back_the_sold_quinolas_take_factor_times() -> None:
    """R22, R23 ``napolitanaQuinolaPayback`` (docs/rules/revesino.md): RV-11's failed napolitana
    sold the quínola for the fondo's 12. ``double`` (the default) pays back twice it, 24, whatever
    the factor; ``factor`` pays it back napolitanaRefundFactor times: under 2 the same hand as
    the default, under 1 he returns the 12 and owes no doubling besides (Hoyle's "returns the
    consolations"): fondo 12, his net -8 (18 taken, 1 paid for his forced 1o, 6 refunded, 12
    returned, the party 7). Every payment's amount is one party's loss and another's gain."""
    default = run(_rv11_course(finished=True))
    assert default == run(_rv11_course(finished=True), napolitana_quinola_payback="double")
    assert default["net"] == [2, 2, -26, 9] and default["fondo"] == 24 and pay(default, "seat 2", "fondo") == [24]
    # double ignores the factor for the fondo take (the decision of napolitanaRefundFactor: 1)
    once = run(_rv11_course(finished=True), napolitana_quinola_payback="double", napolitana_refund_factor=1)
    assert once["net"] == [-1, 0, -20, 8] and once["fondo"] == 24 and pay(once, "seat 2", "fondo") == [24]
    # factor under 2: the default hand, payment for payment
    assert run(_rv11_course(finished=True), napolitana_quinola_payback="factor") == default
    assert run(_rv11_course(finished=True), napolitana_quinola_payback="factor", napolitana_refund_factor=2) == default
    # factor under 1: the side payments and the take returned once, and no doubling
    hoyle = run(_rv11_course(finished=True), napolitana_quinola_payback="factor", napolitana_refund_factor=1)
    failure = [(p["payee"], p["amount"]) for p in hoyle["payments"] if p["reason"].startswith("failed napolitana")]
    assert failure == [("seat 3", 1), ("seat 0", 3), ("seat 1", 2), ("fondo", 12)]
    assert [p["reason"] for p in hoyle["payments"] if p["payee"] == "fondo" and p["payer"] == "seat 2"] == [
        "failed napolitana: he sold the quínola and returns the fondo it took (12) to the fondo, and no doubling"]
    assert hoyle["net"] == [-1, 0, -8, 8] and hoyle["fondo"] == 12 and hoyle["table"] == {"fondo": 12}
    assert hoyle["net"][2] == 4 + 12 + 1 + 1 - 1 - 6 - 12 - 7
    assert (hoyle["handWinner"], hoyle["partyPayer"], hoyle["party"]) == (3, 2, 7)
    # money is conserved: the transfers sum to 0, the seats' nets and the fondo are their balances
    for r in (default, once, hoyle):
        balances = _balances(r)
        assert sum(balances.values()) == 0
        assert [balances.get(f"seat {s}", 0) for s in range(4)] == r["net"]
        assert balances["fondo"] == r["fondo"] - 11 and balances.get("escrow", 0) == 0
        assert sum(r["net"]) + r["fondo"] - 11 == 0


def test_r22_napolitana_quinola_payback_factor_after_an_announced_revesino() -> None:
    """R22, R36: under ``revesinoVoidsNapolitana: false`` the announcement returned the 10 the
    napolitana's quínola took and the side payments; under ``factor`` with napolitanaRefundFactor
    1 that was all he owed: the failure pays nothing more (``double``: 10 more into the fondo)."""
    course = _napolitana_sold_the_quinola_and_cut_a_revesino()
    rules: dict[str, Any] = {"revesino_voids_napolitana": False, "napolitana_refund_factor": 1}
    double = run(course, **rules)
    factor = run(course, napolitana_quinola_payback="factor", **rules)
    assert factor["napolitana"] == {"seat": 2, "outcome": "failed"}
    assert pay(double, "seat 2", "fondo") == [10] and pay(factor, "seat 2", "fondo") == []
    assert not [p for p in factor["payments"] if p["reason"].startswith("failed napolitana")]
    assert factor["fondo"] == double["fondo"] - 10 and factor["net"][2] == double["net"][2] + 10
    assert sum(_balances(factor).values()) == 0


def test_a6_6_a_failed_napolitana_refunds_only_what_he_sold() -> None:
    """Section 0 / A6.6: a failed napolitana pays back twice what he was paid for his own placed
    cards, not what he received as the leader who forced someone's ace: S2 leads 5c in trick 2 and
    forces S3's 1c (2, the ace of copas forced), and keeps it when he fails."""
    tricks = chain([2, ("5c 1c 6c 7c", {"forced": "1c"})] + [3] * 9)
    assert tricks[1].plays[1].kind == "forced" and tricks[1].plays[1].seat == 3
    r = run(Course(dealer=0, fondo=20, tricks=tricks, napolitana=2, finished=True,
                   out_of_play=(C("12e"), C("5b"), C("7c"), C("9o"))))
    assert r["napolitana"]["outcome"] == "failed" and pay(r, "seat 3", "seat 2", trick=2) == [2]
    assert not [p for p in r["payments"] if p["reason"].startswith("failed napolitana: pays back")]
    assert not pay(r, "seat 2", "seat 3")


def test_r23_one_doubling_only() -> None:
    # a failed napolitana whose quínola is forced in trick 11 (a low lead): the forced payment is his one doubling
    specs: list[Any] = [1] * 8 + [2, ("2c 3c 4c 9c", {}), ("5o 10o 6o 7o", {"forced": "10o", "nap": 2})]
    tricks = chain(specs, dealer=0)
    assert tricks[9].winner == 1 and tricks[10].plays[1].kind == "forced"
    c = Course(dealer=0, fondo=20, tricks=tricks, napolitana=2, finished=True)
    r = run(c)
    assert r["napolitana"]["outcome"] == "failed" and pay(r, "seat 2", "fondo") == [21]
    # he won trick 10 and leads the quínola in trick 11: doubles the fondo at the end
    specs2: list[Any] = [1] * 9 + [("2c 9c 3c 4c", {}), ("10o 2o 3o 4o", {})]
    r2 = run(Course(dealer=0, fondo=20, tricks=chain(specs2), napolitana=2, finished=True))
    assert pay(r2, "seat 2", "fondo") == [21] and r2["fondo"] == 42
    # with gergi the led quínola already paid in trick 11: no second doubling
    r3 = run(Course(dealer=0, fondo=20, tricks=chain(specs2), napolitana=2, finished=True), gergi=True)
    assert pay(r3, "seat 2", "fondo") == [21]


def test_r23_r10_a_quinola_forced_late_that_paid_nothing_in_play_is_doubled_at_the_end() -> None:
    """R23 / section 0 with R10 ``quinolaPenaltyTrigger: winsTrick`` (docs/rules/revesino.md, the
    napolitana's one doubling): S1 leads 5o in trick 11 and forces the failed napolitana S2's
    quínola, which S3's 12o beats; it took no trick, so it paid nothing in play, and the failure
    doubles the fondo at the end, 21 (20 + the fee). Under the default trigger the forced quínola
    paid the 21 in trick 11, and that was his one doubling."""
    specs: list[Any] = [1] * 8 + [2, ("2c 3c 4c 9c", {}), ("5o 10o 12o 7o", {"forced": "10o", "nap": 2})]
    tricks = chain(specs, dealer=0)
    assert tricks[10].plays[1].kind == "forced" and tricks[10].winner == 3
    course = Course(dealer=0, fondo=20, tricks=tricks, napolitana=2, finished=True)
    r = run(course, quinola_penalty_trigger="winsTrick")
    assert r["napolitana"]["outcome"] == "failed" and pay(r, "seat 2", "fondo") == [21] and r["fondo"] == 42
    assert not pay(r, "seat 2", "fondo", trick=11)
    d = run(course)
    assert pay(d, "seat 2", "fondo", trick=11) == [21] and pay(d, "seat 2", "fondo") == [21] and d["fondo"] == 42


def test_r24_refunded_returns_only_the_napolitanas_own_forced_quinola_payment() -> None:
    """R24 ``implicitNapolitanaRefund: refunded`` (docs/rules/revesino.md): at S2's first renounce
    (trick 4) only what his own forced cards cost comes back. Another seat's forced quínola (S3's,
    trick 2) stays escrowed, another seat's placed ace (S1's 1e, trick 3) stays paid, and the
    napolitana's own quínola led under gergi (a led quínola is no forced card) stays escrowed: 21
    (20 + the fee) in the escrow either way."""
    rules = {"napolitana_declaration": "implicit", "implicit_napolitana_refund": "refunded"}
    renounce = ("5e 6e 7e 3c", {})  # S3 leads, S2 plays a copa last
    # S3's quínola forced in trick 2; S1 places 1e in trick 3, which S0 wins and pays him 1 for
    other = chain([1, ("5o 6o 10o 7o", {"forced": "10o"}), ("5b 9b 1e 6b", {}), ("5e 6e 3c 7e", {})])
    assert other[1].plays[2].kind == "forced" and other[1].plays[2].seat == 3 and other[3].plays[2].seat == 2
    r = run(Course(dealer=0, fondo=20, tricks=other, napolitana=2, napolitana_from=4), **rules)
    assert pay(r, "seat 3", "escrow") == [21] and not pay(r, "escrow", "seat 3") and r["escrow"] == 21
    assert pay(r, "seat 0", "seat 1") == [1] and not pay(r, "seat 1", "seat 0")
    led = chain([2, ("10o 5o 6o 7o", {}), 3, renounce])
    assert led[1].plays[0].kind == "led" and led[1].plays[0].seat == 2
    r = run(Course(dealer=0, fondo=20, tricks=led, napolitana=2, napolitana_from=4), gergi=True, **rules)
    assert pay(r, "seat 2", "escrow") == [21] and not pay(r, "escrow", "seat 2") and r["escrow"] == 21


def test_r26_napolitana_pays_for_all_on_a_won_revesino() -> None:
    tricks = _rv9_tricks([3, 3])
    r = run(Course(dealer=0, fondo=16, tricks=tricks, announcer=3, napolitana=1, finished=True), napolitana_pays_for_all=True)
    assert fee_free(r) == [0, -48, 0, 65]
    d = run(Course(dealer=0, fondo=16, tricks=tricks, announcer=3, napolitana=1, finished=True))
    assert fee_free(d) == [-16, -16, -16, 65] and d["napolitana"]["outcome"] == "void"


def test_r33_revesino_amounts() -> None:
    won = run(Course(dealer=0, fondo=16, tricks=_rv9_tricks([3, 3]), announcer=3, finished=True), revesino_win_each=20)
    assert fee_free(won) == [-20, -20, -20, 77]
    cut = run(Course(dealer=0, fondo=16, tricks=_rv9_tricks([("2o 3o 9o 4o", {})]), announcer=3, finished=True), revesino_cut_to_cutter=80)
    assert fee_free(cut) == [0, 80, 0, -97]


def test_a6_9_trick_payments_are_those_of_a_complete_trick() -> None:
    """A6.9 step 2: a trick's payments are made once it is complete (its winner known): a trick
    without a winner, or of fewer than four plays, has none to give."""
    t = T(4, 1, "5e 12e 1b 9e")
    assert [p["amount"] for p in trick_payments(Options(), t, 20, None)] == [1]
    for partial in (PlayedTrick(4, 1, t.plays, None), PlayedTrick(4, 1, t.plays[:3], 2)):
        with pytest.raises(ValueError):
            trick_payments(Options(), partial, 20, None)


def test_a6_3_a_placed_quinola_takes_a_fondo_of_1() -> None:
    """A6.3 through ResolveTrick's payments: the placed quínola takes the whole fondo, however
    small (1), the trick's winner pays 2 and each other player 1."""
    got = trick_payments(Options(), T(4, 1, "5e 12e 10o 9e"), 1, None)
    assert [(p["payer"], p["payee"], p["amount"]) for p in got] == [
        ("fondo", "seat 3", 1), ("seat 2", "seat 3", 2), ("seat 1", "seat 3", 1), ("seat 0", "seat 3", 1)]


def test_r34_opposite_double() -> None:
    t = T(4, 1, "5e 12e 1b 9e")  # S2 pays S3: not opposite
    assert [p["amount"] for p in trick_payments(Options(opposite_double=True), t, 20, None)] == [1]
    t3 = T(4, 2, "5e 12e 6e 1b")  # S2 leads, S3 12e wins, S1 places 1b: S3 pays S1, opposite
    got = trick_payments(Options(opposite_double=True), t3, 20, None)
    assert [(p["payer"], p["payee"], p["amount"]) for p in got] == [("seat 3", "seat 1", 2)]
    won = run(Course(dealer=0, fondo=16, tricks=_rv9_tricks([3, 3]), announcer=3, finished=True), opposite_double=True)
    assert fee_free(won) == [-16, -32, -16, 17 + 64]


@pytest.mark.parametrize("shift", range(4))
def test_r34_opposite_double_never_doubles_the_fondo(shift: int) -> None:
    # The dealer's left-hand neighbour wins every trick and announces the revesino after the
    # ninth: he takes the fondo (20 and the dealer's 1) once, though for seat 1 the fondo (party -1
    # in the ledger) is "opposite" by seat arithmetic; the 16 from each player are doubled for the
    # seat opposite him. The same hand at every position of the table (dealer ``shift``).
    hands = ["4o 7o 4c 7c 10c 4e 7e 10e 4b 7b 10b 10o", "1o 12o 1c 12c 11c 1e 12e 11e 1b 12b 11b",
             "2o 5o 2c 5c 8c 2e 5e 8e 2b 5b 8b", "3o 6o 3c 6c 9c 3e 6e 9e 3b 6b 9b"]
    actions = ["1 quedo", "2 quedo", "3 quedo", "0 descarte 10o",
               "1 1o", "2 2o", "3 3o", "0 4o", "1 12o", "2 5o", "3 6o", "0 7o", "1 1c", "2 2c", "3 3c", "0 4c",
               "1 12c", "2 5c", "3 6c", "0 7c", "1 11c", "2 8c", "3 9c", "0 10c", "1 1e", "2 2e", "3 3e", "0 4e",
               "1 12e", "2 5e", "3 6e", "0 7e", "1 11e", "2 8e", "3 9e", "0 10e", "1 1b", "2 2b", "3 3b", "0 4b",
               "1 revesino", "1 12b", "2 5b", "3 6b", "0 7b", "1 11b", "2 8b", "3 9b", "0 10b"]

    def seat(s: int) -> int:
        return (s + shift) % 4

    record = {"game": "revesino", "seats": 4, "dealer": shift, "table": {"fondo": 20}, "rules": {"oppositeDouble": True},
              "deal": {"hands": [hands[(s - shift) % 4] for s in range(4)], "stock": "8o 9o 11o"},
              "actions": [f"{seat(int(a.split()[0]))} {a.split(maxsplit=1)[1]}" for a in actions]}
    result = api.validate(record)
    winner = seat(1)
    assert result["valid"] and result["finished"] and result["revesino"] == {"seat": winner, "outcome": "won"}
    net = [-17, 21 + 16 + 16 + 32, -16, -32]  # by position: the dealer, the announcer, ...
    assert result["net"] == [net[(s - shift) % 4] for s in range(4)] and result["table"] == {"fondo": 0}
    assert [p for p in result["payments"] if p["payer"] == "fondo"] == [
        {"payer": "fondo", "payee": f"seat {winner}", "amount": 21, "reason": f"revesino won: seat {winner} takes the fondo, 21"}]


def test_r36_revesino_does_not_void_napolitana() -> None:
    # S2 napolitana cuts in trick 10: he fails too (option off); his sold quínola of trick 4 was
    # reversed by the announcement, so he pays the fondo once more (2 x 17 - the 17 returned)
    cut2 = _rv9_tricks([("2o 3o 4o 9o", {})])
    r = run(Course(dealer=0, fondo=16, tricks=cut2, announcer=3, napolitana=2, finished=True), revesino_voids_napolitana=False)
    assert r["napolitana"]["outcome"] == "failed"
    # refunds: he was paid 2 + 1 + 1 for the quínola and got them returned: pays 1x more each
    assert pay(r, "seat 2", "seat 3")[-1] == 2 and pay(r, "seat 2", "seat 0")[-1] == 1
    assert pay(r, "seat 2", "fondo") == [17]
    v = run(Course(dealer=0, fondo=16, tricks=cut2, announcer=3, napolitana=2, finished=True))
    assert v["napolitana"]["outcome"] == "void" and not pay(v, "seat 2", "fondo")


def test_r1_hand_payout_modes_and_party_bonus() -> None:
    c = _rv8_course(False)
    each = run(c, hand_payout="partyFromEach")
    assert pay(each, "seat 0", "seat 2") == [7] and pay(each, "seat 1", "seat 2") == [7] and pay(each, "seat 3", "seat 2") == [7]
    assert "partyPayer" not in each
    fixed = run(c, hand_payout="fixedFromEach", fixed_payout=5)
    assert total(fixed, "seat 1", "seat 2") == 5 and fixed["net"][2] == 15
    none = run(c, hand_payout="none")
    assert none["net"] == [-1, 0, 0, 0] and none["handWinner"] == 2
    assert run(c, party_bonus=0)["party"] == 3
    # a failed napolitana pays all three shares under partyFromEach
    r = run(_rv11_course(finished=True), hand_payout="partyFromEach")
    assert pay(r, "seat 2", "seat 3")[-1] == 21 and r["partyPayer"] == 2


def test_r1_each_payment_to_the_hand_winner_names_the_party_or_the_fixed_payout() -> None:
    """R1 / A6.7: under ``partyFromEach`` each other player pays the party (7 in RV-8), under
    ``fixedFromEach`` the fixed payout (5), one payment each in play order from the winner, and
    each payment's reason says which it is."""
    c = _rv8_course(False)
    for mode, what, amount in (("partyFromEach", "the party", 7), ("fixedFromEach", "the fixed payout", 5)):
        r = run(c, hand_payout=mode, fixed_payout=5)
        assert [(p["payer"], p["amount"], p["reason"]) for p in r["payments"] if p["payee"] == "seat 2"] == [
            (f"seat {s}", amount, f"{what} to the hand winner: each other player pays {amount}") for s in (3, 0, 1)], mode


def test_r2_payer_ties() -> None:
    o = Options()
    assert choose_payer(o, 0, [5, 9, 9, 0], [1, 3, 4, 3], 3) == 2
    assert choose_payer(o, 0, [5, 9, 9, 0], [1, 4, 4, 2], 3) == 2   # later seat in play order
    assert choose_payer(Options(tiebreak_order="dealerThenLeft"), 0, [5, 9, 9, 0], [1, 4, 4, 2], 3) == 1
    assert choose_winner(o, 2, [0, 0, 0, 0], [0, 0, 0, 0]) == (2, "seat")


def test_a6_7_a_tie_on_points_broken_by_fewer_tricks_says_so() -> None:
    """A6.7: S1 and S2 tie on the fewest points (0); S1, the better seat, also has fewer tricks, and
    a third tied seat with more tricks after him does not make it a tie broken by seat."""
    o = Options()
    assert choose_winner(o, 0, [5, 0, 0, 10], [3, 2, 4, 2]) == (1, "fewestTricks")
    assert choose_winner(o, 0, [0, 0, 0, 10], [3, 2, 4, 2]) == (1, "fewestTricks")
    assert choose_winner(o, 0, [0, 0, 0, 10], [2, 2, 4, 2]) == (0, "seat")


def test_a68_revoke_forfeits_what_he_would_collect() -> None:
    # S1 revokes in trick 2; in trick 4 he places 1o: the winner keeps the 2
    specs: list[Any] = [("5c 6c 9c 2c", {}), ("9c 3c 2b 4c", {"revoke": "2b"}), 3, ("9b 2b 1o 3b", {})] + [3] * 7
    tricks = chain(specs)
    assert tricks[3].plays[2].seat == 1
    r = run(Course(dealer=0, fondo=16, tricks=tricks, finished=True), allow_revokes=True)
    assert not pay(r, "seat 3", "seat 1") and r["forfeited"][0]["seat"] == 1 and r["forfeited"][0]["amount"] == 2



def test_a6_8_a_revoke_fine_goes_into_the_fondo_before_a_quinola_placed_in_that_trick_takes_it() -> None:
    """A6.8 / A6.9 (docs/rules/revesino.md, Revokes): the revoke is proven when its card is played,
    the quínola takes the fondo when the trick is taken: S2 revokes 6b on S1's 5c in trick 5 and
    S3 places the quínola in the same trick; the fine of 2 goes in first, and the quínola takes
    17 + 2 = 19 (into the escrow in a hand; ResolveTrick, which has no escrow, pays it out)."""
    specs: list[Any] = [1, 1, 1, 1, ("5c 6b 10o 9c", {"revoke": "6b"})]
    tricks = chain(specs)
    assert (tricks[4].winner, tricks[4].plays[2].kind) == (0, "placed")
    r = run(Course(dealer=0, fondo=16, tricks=tricks), allow_revokes=True)
    moved = [(p["payer"], p["payee"], p["amount"]) for p in r["payments"] if p.get("trick") == 5]
    assert moved[:2] == [("seat 2", "fondo", 2), ("fondo", "escrow", 19)]
    assert r["escrow"] == 19 and r["fondo"] == 0
    request = {"game": "revesino", "seats": 4, "cards": "5c 6b 10o 9c", "leader": 1, "number": 5, "fondo": 17,
               "revoked": "6b", "rules": {"allowRevokes": True}}
    got = [(p["payer"], p["payee"], p["amount"]) for p in api.resolve_trick(request)["payments"]]
    assert got[:2] == [("seat 2", "fondo", 2), ("fondo", "seat 3", 19)]

def test_r2_on_equal_points_the_payer_is_the_one_with_more_tricks_whatever_his_seat() -> None:
    """R2: most points, then more tricks, then the later seat: S1 and S2 tie on 9 points and S1,
    the earlier seat, took more tricks (4 to 3): S1 pays, not the later S2 (under both orders)."""
    assert choose_payer(Options(), 0, [5, 9, 9, 0], [1, 4, 3, 3], 3) == 1
    assert choose_payer(Options(tiebreak_order="dealerThenLeft"), 0, [5, 9, 9, 0], [1, 3, 4, 3], 3) == 2


def test_r21_the_party_payment_says_who_pays_it() -> None:
    """A6.7 / R21: the party's payment says whether the failed napolitana pays it alone (RV-11:
    S2 pays, though S0 has most points) or the player with most points (RV-8)."""
    failed = run(_rv11_course(finished=True))
    assert [(p["payer"], p["payee"], p["amount"], p["reason"]) for p in failed["payments"] if "party" in p["reason"]] == [
        ("seat 2", "seat 3", 7, "the party to the hand winner (the failed napolitana pays): 7")]
    plain = run(_rv8_course(False))
    assert [(p["payer"], p["payee"], p["amount"], p["reason"]) for p in plain["payments"] if "party" in p["reason"]] == [
        ("seat 0", "seat 2", 7, "the party to the hand winner (the player with most points pays): 7")]


def test_a6_8_a_revoker_who_wins_the_hand_forfeits_the_party_which_names_no_trick() -> None:
    """A6.8: S1 revokes in trick 2 and, with no points and no tricks, is the hand winner (S1 before
    S3 on seat): the party (3 + 4 = 7) is forfeited, listed with its reason and, like the payment
    it replaces, no trick (it belongs to the hand)."""
    tricks = chain([2, ("3c 4c 5c 2b", {"revoke": "2b"}), 2, 0, 2, 0, 2, 0, 2, 0, 2])
    r = run(Course(dealer=0, fondo=16, tricks=tricks, finished=True, out_of_play=(C("12e"), C("5b"), C("7c"), C("9o"))),
            allow_revokes=True)
    assert r["handWinner"] == 1 and r["party"] == 7 and not pay(r, "seat 2", "seat 1")
    assert r["forfeited"] == [
        {"seat": 1, "amount": 7, "reason": "the party to the hand winner (the player with most points pays; seat 0, seat 2 and seat 3 tie "
                                           "on 0 points, seat 2 took the most tricks): 7 (forfeited: seat 1 revoked)"}]


def test_r2_r3_the_party_payment_says_how_a_tie_on_points_was_broken() -> None:
    """R2 / R3: the party's reason names the tie-break that chose its payer among seats tied on most
    points: more tricks (above), or tricks tied too, the later seat in the ``tiebreakOrder``; with
    no tie it says only "the player with most points pays" (RV-8, test_r21)."""
    out = (C("12e"), C("5b"), C("7c"), C("9o"))

    def party(winners: list[int], **rules: Any) -> str:
        r = run(Course(dealer=0, fondo=16, tricks=chain(winners), finished=True, out_of_play=out), **rules)
        assert r["points"] == [0, 0, 0, 0]
        return next(p["reason"] for p in r["payments"] if "party" in p["reason"])

    even = [0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3]  # S3 wins on fewest tricks; S0, S1 and S2 took 3 each
    assert party(even) == ("the party to the hand winner (the player with most points pays; seat 0, seat 1 and seat 2 tie on 0 "
                           "points and 3 tricks, seat 2 the later in the tie-break order): 7")
    assert party(even, tiebreak_order="dealerThenLeft") == (
        "the party to the hand winner (the player with most points pays; seat 0, seat 1 and seat 2 tie on 0 points and 3 tricks, "
        "seat 1 the later in the tie-break order): 7")
    some = [0, 1, 1, 1, 2, 2, 2, 3, 3, 1, 2]  # S0 wins on 1 trick; S1 and S2 took 4 each, S3 2
    assert party(some) == ("the party to the hand winner (the player with most points pays; seat 1, seat 2 and seat 3 tie on 0 points, "
                           "seat 1 and seat 2 on the most tricks (4), seat 2 the later in the tie-break order): 7")


def test_r28_renuncio_forfeits_whole_hand_returns_a_final_quinola_take_from_the_revoker() -> None:
    """R28 ``renuncioForfeits: wholeHand``: S0 places the quínola in trick 10 (final at once: 17
    from the fondo, 2 + 1 + 1 from the others) and revokes in trick 11: with that trick's payments,
    after the fine, he pays the take back to the fondo from his own and each side payment back to
    its payer; the party he would win is forfeited as it comes. Under ``laterGains`` and
    ``laterPayments`` the take was collected before the revoke and stays his."""
    tricks = chain([3] * 9 + [("5c 10o 6c 9c", {}), ("3c 4c 2b 8c", {"revoke": "2b"})])
    assert (tricks[9].plays[1].seat, tricks[9].plays[1].kind, tricks[10].plays[2].seat) == (0, "placed", 0)
    course = Course(dealer=0, fondo=16, tricks=tricks, finished=True)
    whole = run(course, allow_revokes=True, renuncio_forfeits="wholeHand")
    assert [(p["payer"], p["payee"], p["amount"], p.get("trick")) for p in whole["payments"][-5:]] == [
        ("seat 0", "fondo", 2, 11), ("seat 0", "seat 2", 2, None), ("seat 0", "seat 3", 1, None), ("seat 0", "seat 1", 1, None),
        ("seat 0", "fondo", 17, None)]
    assert whole["payments"][-1]["reason"] == "renuncio by seat 0 in trick 11: the fondo taken by his quínola in trick 10, 17, returned"
    assert [(f["amount"], f.get("trick")) for f in whole["forfeited"]] == [(2, None), (1, None), (1, None), (17, None), (4, None)]
    assert whole["net"] == [-3, 0, 0, 0] and whole["fondo"] == 19
    for value in ("laterGains", "laterPayments"):
        later = run(course, allow_revokes=True, renuncio_forfeits=value)
        assert later["net"] == [18, -1, -2, -1] and later["fondo"] == 2, value
        assert [(f["amount"], f.get("trick")) for f in later["forfeited"]] == [(4, None)], value


def test_r28_whole_hand_a_failed_napolitana_pays_back_less_what_his_revoke_returned() -> None:
    """R28 ``renuncioForfeits: wholeHand`` with A6.6: the napolitana S1 sells 1b in trick 2 (S2
    pays him 1), revokes in trick 10 (his renounces after trick 9 are revokes) and fails by
    winning trick 11. The revoke returned the 1; his failure's refund of 2 x 1 says so and pays the
    other 1, as after a revesino's announcement: the same net as under the default."""
    tricks = chain([3, ("5c 6c 1b 9c", {})] + [3] * 7 + [("5c 6c 2b 9c", {"revoke": "2b"}), 1])
    course = Course(dealer=0, fondo=16, tricks=tricks, finished=True, napolitana=1)
    whole = run(course, allow_revokes=True, renuncio_forfeits="wholeHand")
    assert whole["napolitana"] == {"seat": 1, "outcome": "failed"}
    refunds = [(p["payer"], p["payee"], p["amount"], p["reason"]) for p in whole["payments"] if p["payee"] == "seat 2"]
    assert refunds == [("seat 1", "seat 2", 1, "renuncio by seat 1 in trick 10: returned (1b placed in trick 2: the trick's winner pays 1)"),
                       ("seat 1", "seat 2", 1, "failed napolitana: pays back 2 x the 1 he was paid for the cards he sold, "
                                               "less the 1 returned at his renuncio in trick 10")]
    assert whole["net"] == run(course, allow_revokes=True)["net"] == [3, -7, 1, 0]


# ---- read_table ---------------------------------------------------------------------------------

def test_read_table() -> None:
    assert read_table(None, 4) == 0 and read_table({}, 4) == 0 and read_table({"fondo": 12}, 4) == 12
    assert read_table({"fondo": 12.0, "plate": 0, "plateHolds": "", "cartulina": [], "score": []}, 4) == 12
    # A Tresillo table's fresh values, "none" in the plate as a Rentoy table reads it (one with a value is refused below)
    assert read_table({"fondo": 3, "plate": 0, "plateHolds": "none", "cartulina": []}, 4) == 3
    for bad, code, fld in [({"fondo": "x"}, "INVALID_FIELD", "table.fondo"), ({"plateHolds": "puesta"}, "INVALID_TABLE", "table.plateHolds"), ({"fondo": True}, "INVALID_FIELD", "table.fondo"),
                           ({"fondo": -1}, "INVALID_TABLE", "table.fondo"), ({"plate": 5}, "INVALID_TABLE", "table.plate"),
                           ({"score": [1, 2]}, "INVALID_TABLE", "table.score"), ({"pot": 1}, "INVALID_FIELD", "table.pot"),
                           ([], "INVALID_FIELD", "table")]:
        with pytest.raises(InvalidInput) as err:
            read_table(bad, 4)
        assert err.value.code == code and err.value.field == fld


# ---- settle_summary -----------------------------------------------------------------------------

def _rec(name: str) -> dict[str, Any]:
    record: dict[str, Any] = json.load(open(f"{EXAMPLES}/{name}.json"))["record"]
    return record


@pytest.mark.parametrize("mutate, code, fld", [
    (lambda r: r.update(seats=3), "INVALID_SEATS", "seats"),
    (lambda r: r.pop("revesino"), "MISSING_FIELD", "revesino"),
    (lambda r: r.update(revesino=[r["revesino"]]), "INVALID_FIELD", "revesino"),  # an object, not a list
    (lambda r: r.update(revesino=5), "INVALID_FIELD", "revesino"),
    (lambda r: r["revesino"]["tricks"][3].update(cards="1o 1o 2o 3o"), "DUPLICATE_CARD", "revesino.tricks[3].cards"),
    (lambda r: r["revesino"]["tricks"][3].update(cards="2o 3o 4o"), "WRONG_HAND_SIZE", "revesino.tricks[3].cards"),
    (lambda r: r["revesino"]["tricks"][3].update(cards="2o 3o 4o 13o"), "UNKNOWN_CARD", "revesino.tricks[3].cards"),
    (lambda r: r["revesino"]["tricks"][0].update(leader=3), "INVALID_FIELD", "revesino.tricks[0].leader"),
    # (the winner of trick 1 leads trick 2; another seat named as its winner is refused)
    (lambda r: r["revesino"]["tricks"][0].update(winner=(r["revesino"]["tricks"][1]["leader"] + 1) % 4), "INVALID_FIELD",
     "revesino.tricks[0].winner"),
    (lambda r: r["revesino"]["tricks"].pop(), "INVALID_FIELD", "revesino.tricks"),
    (lambda r: r["revesino"].update(announcer=1), "INVALID_FIELD", "revesino.announcer"),
    (lambda r: r["revesino"].update(announcer=4), "SEAT_OUT_OF_RANGE", "revesino.announcer"),
    (lambda r: r["revesino"].update(napolitana=1), "INVALID_FIELD", "revesino.napolitana"),
    (lambda r: r["revesino"].update(napolitana=9), "SEAT_OUT_OF_RANGE", "revesino.napolitana"),
    (lambda r: r["revesino"].update(napolitana=-1), "SEAT_OUT_OF_RANGE", "revesino.napolitana"),
    (lambda r: r["revesino"].update(napolitana="2"), "INVALID_FIELD", "revesino.napolitana"),  # a seat is a number
    (lambda r: r.pop("dealer"), "MISSING_FIELD", "dealer"),
    (lambda r: r.update(dealer=4), "SEAT_OUT_OF_RANGE", "dealer"),
    (lambda r: r.update(dealer="0"), "INVALID_FIELD", "dealer"),
    (lambda r: r["revesino"]["tricks"][4].pop("cards"), "MISSING_FIELD", "revesino.tricks[4].cards"),
    (lambda r: r["revesino"]["tricks"][1].update(forced=["1o", 1]), "INVALID_FIELD", "revesino.tricks[1].forced"),
    (lambda r: r["revesino"]["tricks"][1].update(forced=["10c"]), "INVALID_FIELD", "revesino.tricks[1].forced"),
    # (3c, seat 1's last copas in trick 3: no ace or quínola, never forced)
    (lambda r: r["revesino"]["tricks"][2].update(forced="3c"), "INVALID_FIELD", "revesino.tricks[2].forced"),
    (lambda r: r["revesino"].update(extra=1), "INVALID_FIELD", "revesino.extra"),
    (lambda r: r["revesino"].pop("tricks"), "MISSING_FIELD", "revesino.tricks"),
    (lambda r: r["revesino"].update(tricks=None), "MISSING_FIELD", "revesino.tricks"),
    (lambda r: r["revesino"].update(tricks="1o 2o 3o 4o"), "INVALID_FIELD", "revesino.tricks"),
    (lambda r: r["revesino"]["tricks"].__setitem__(0, "1o 2o 3o 4o"), "INVALID_FIELD", "revesino.tricks[0]"),
    (lambda r: r.pop("seats"), "MISSING_FIELD", "seats"),
    (lambda r: r.update(seats="four"), "INVALID_FIELD", "seats"),
    # the four cards out of play, one of them twice
    (lambda r: r["revesino"].update(outOfPlay=" ".join((lambda o: [o[0], o[0], o[1], o[2]])(r["revesino"]["outOfPlay"].split()))),
     "DUPLICATE_CARD", "revesino.outOfPlay"),
    (lambda r: r["revesino"]["tricks"][2].update(extra=1), "INVALID_FIELD", "revesino.tricks[2].extra"),
    (lambda r: r["revesino"].update(outOfPlay="1o 2o 3o 4o"), "DUPLICATE_CARD", "revesino.outOfPlay"),
    (lambda r: r["revesino"].update(outOfPlay="13o"), "UNKNOWN_CARD", "revesino.outOfPlay"),
    # cards are a string or a list of strings: a number is refused as the field's, as a list of numbers is
    (lambda r: r["revesino"].update(outOfPlay=5), "INVALID_FIELD", "revesino.outOfPlay"),
    (lambda r: r["revesino"]["tricks"][3].update(cards=1), "INVALID_FIELD", "revesino.tricks[3].cards"),
])
def test_settle_summary_bad_input(mutate: Any, code: str, fld: str) -> None:
    request = _summary(replay(_rec("revesino-full-01-random")))
    mutate(request)
    with pytest.raises(InvalidInput) as err:
        settle_summary(Options(), 5, request)
    assert err.value.code == code and err.value.field == fld


def test_a5_settle_hand_refuses_a_trick_leader_saying_who_leads_it() -> None:
    """A5: S1, the seat after the dealer, leads trick 1, and the winner of each trick leads the
    next. SettleHand refuses another leader named for a trick, saying who leads it."""
    request = _summary(replay(_rec("revesino-full-01-random")))
    tricks = request["revesino"]["tricks"]
    assert request["dealer"] == 0 and [t["leader"] for t in tricks[:3]] == [1, 3, 0]
    for i, message in ((0, "revesino.tricks[0].leader is 2, but the seat after the dealer leads: seat 1"),
                       (2, "revesino.tricks[2].leader is 1, but the winner of trick 2 leads: seat 0")):
        changed = copy.deepcopy(request)
        changed["revesino"]["tricks"][i]["leader"] = (tricks[i]["leader"] + 1) % 4
        with pytest.raises(InvalidInput) as err:
            settle_summary(Options(), 5, changed)
        assert (err.value.code, err.value.field, err.value.message) == ("INVALID_FIELD", f"revesino.tricks[{i}].leader", message)


def test_a3_settle_hand_refuses_a_twelfth_trick() -> None:
    """A3: eleven tricks are played. SettleHand refuses a twelfth (the four cards out of play led
    as one) by the count, before reading its cards."""
    request = _summary(replay(_rec("revesino-full-01-random")))
    request["revesino"]["tricks"].append({"cards": request["revesino"]["outOfPlay"]})
    with pytest.raises(InvalidInput) as err:
        settle_summary(Options(), 5, request)
    assert (err.value.code, err.value.field, err.value.message) == (
        "INVALID_FIELD", "revesino.tricks", "revesino.tricks has 12 tricks; a hand has 11")


def test_settle_summary_accepts_the_winner_each_trick_had() -> None:
    request = _summary(replay(_rec("revesino-full-01-random")))
    plain = settle_summary(Options(), 5, copy.deepcopy(request))
    for i, item in enumerate(request["revesino"]["tricks"]):
        item["winner"] = plain["tricks"][i]["winner"]
    assert settle_summary(Options(), 5, request) == plain


def test_settle_summary_takes_cards_as_a_list_of_card_strings() -> None:
    """SettleHand's cards (a trick's, ``forced``, ``revoked``, ``outOfPlay``) are a string of cards
    or a list of card strings: the hand given with lists settles as with strings."""
    request = _summary(replay(_rec("revesino-full-01-random")))
    plain = settle_summary(Options(), 5, copy.deepcopy(request))
    body = request["revesino"]
    for item in body["tricks"]:
        item["cards"] = item["cards"].split()
    body["outOfPlay"] = body["outOfPlay"].split()
    assert len(body["outOfPlay"]) == 4
    assert settle_summary(Options(), 5, request) == plain


def test_settle_summary_revoke_needs_allow_revokes() -> None:
    course = replay(_rec("revesino-full-01-random"))
    request = _summary(course)
    # swap seat 1's 6c (trick 2, copas led) and 6e (trick 6): a renuncio in trick 2 (and in trick 6)
    t = request["revesino"]["tricks"]
    t[1]["cards"] = t[1]["cards"].replace("6c", "6e")
    t[5]["cards"] = t[5]["cards"].replace("6e", "6c")
    with pytest.raises(InvalidInput) as err:
        settle_summary(Options(), 5, request)
    assert err.value.code == "INVALID_FIELD" and err.value.field == "revesino.tricks[1].cards"
    r = settle_summary(Options(allow_revokes=True), 5, request)
    assert pay(r, "seat 1", "fondo", 2) == [2] and pay(r, "seat 1", "fondo", 6) == [2]
    assert r["handWinner"] == 1 and pay(r, "seat 3", "seat 1") == [] and r["forfeited"][0]["seat"] == 1


def test_settle_summary_cut_hand_needs_forced_list_for_trick_10_only() -> None:
    course = replay(_rec("revesino-full-31-sweep-cut"))
    assert len(course.tricks) == 10
    r = settle_summary(Options(), 5, _summary(course))
    assert r["net"] == [-2, -3, -80, 62] and "outOfPlay" in r
    # A cut hand names no hand winner and pays no party: outOfPlay may be left out.
    bare = _summary(course)
    del bare["revesino"]["outOfPlay"]
    b = settle_summary(Options(), 5, bare)
    assert (b["net"], b["payments"], b["table"]) == (r["net"], r["payments"], r["table"]) and "outOfPlay" not in b


# A hand cut in trick 10 under allowRevokes: seat 1 announces, seat 2 cuts with 1c; each seat's last
# card is never played. The same deal serves both tests below.
CUT_DEAL = {"hands": ["5e 4e 3e 2e 12b 11b 10b 9b 8b 7b 6b 5b", "1o 12o 11o 9o 8o 7o 6o 5o 4o 10o 2c",
                      "1c 1e 1b 3o 2o 3c 4c 5c 6c 7c 8c", "12c 11c 10c 9c 12e 11e 10e 9e 8e 7e 6e"], "stock": "4b 3b 2b"}


def _cut_hand(rules: dict[str, Any], plays: str, deal: dict[str, Any] = CUT_DEAL, discard: str = "5b") -> tuple[dict[str, Any], dict[str, Any]]:
    """The record of the hand of ``deal`` (the dealer, seat 0, discards ``discard``) played as ``plays``
    (tricks 1-9, seat 1's call, trick 10) and its SettleHand summary, built from ValidateHand's
    tricks as an app would."""
    actions = ["1 quedo", "2 quedo", "3 quedo", f"0 descarte {discard}", *plays.split(",")]
    record = {"game": "revesino", "seats": 4, "dealer": 0, "rules": rules, "table": {"fondo": 9}, "deal": deal, "actions": actions}
    result = api.validate(record)
    assert result["valid"] and result["finished"]
    summary = {"tricks": [{"cards": " ".join(t["cards"])} for t in result["tricks"]], "announcer": 1,
               "outOfPlay": f"{deal['stock']} {discard}"}
    return record, {"game": "revesino", "seats": 4, "dealer": 0, "rules": rules, "table": {"fondo": 9}, "revesino": summary}


def test_settle_summary_names_a_revoke_the_cut_hand_cannot_show() -> None:
    # Trick 10: seat 3 plays 6e on the 2c led while holding 9c, his last card, never played.
    record, request = _cut_hand({"allowRevokes": True}, (
        "1 1o,2 3o,3 12c,0 5e,1 12o,2 2o,3 12e,0 4e,1 11o,2 3c,3 11e,0 3e,1 9o,2 4c,3 10e,0 2e,1 8o,2 5c,3 9e,0 12b,"
        "1 7o,2 6c,3 8e,0 11b,1 6o,2 7c,3 7e,0 10b,1 5o,2 1e,3 11c,0 9b,1 4o,2 1b,3 10c,0 8b,1 revesino,1 2c,2 1c,3 6e,0 7b"))
    played = api.validate(record)
    assert played["net"] == [-1, -76, 64, -2] and played["table"] == {"fondo": 24}  # the fine of 2, then the doubled fondo
    assert api.settle_hand(request)["net"] == [-1, -74, 64, 0]  # unnamed, nothing shows the revoke
    request["revesino"]["tricks"][9]["revoked"] = "6e"
    settled = api.settle_hand(request)
    assert (settled["net"], settled["table"], settled["payments"]) == (played["net"], played["table"], played["payments"])
    # Not a card played off the suit led: the card led, a card that followed suit.
    for trick, card in ((0, "1o"), (0, "3o")):
        bad = copy.deepcopy(request)
        bad["revesino"]["tricks"][trick]["revoked"] = card
        with pytest.raises(InvalidInput) as err:
            api.settle_hand(bad)
        assert (err.value.code, err.value.field) == ("INVALID_FIELD", f"revesino.tricks[{trick}].revoked")


# A hand cut in trick 10 in which S2's only oros is the quínola: S1 leads 1o to trick 1 and S2
# must play it (A5.1: forced), then S1 takes tricks 2-9 with his oros, announces and leads 2c;
# S2 cuts with 1c. The last cards (3o, 9c, 11c, 2e) are never played: nothing later in the hand
# shows that S2 held no more oros. The dealer discards 2o; out of play 1e 1b 2b 2o.
FORCED_DEAL = {"hands": ["5e 4e 3e 2e 12b 11b 10b 9b 8b 7b 6b 2o", "1o 12o 11o 9o 8o 7o 6o 5o 4o 3o 2c",
                         "1c 4b 3b 10o 3c 4c 5c 6c 7c 8c 9c", "12c 11c 10c 12e 11e 10e 9e 8e 7e 6e 5b"], "stock": "1e 1b 2b"}
FORCED_PLAYS = ("1 1o,2 10o,3 5b,0 12b,1 12o,2 3c,3 12e,0 5e,1 11o,2 4c,3 11e,0 4e,1 9o,2 5c,3 10e,0 3e,1 8o,2 6c,3 9e,0 11b,"
                "1 7o,2 7c,3 8e,0 10b,1 6o,2 8c,3 7e,0 9b,1 5o,2 4b,3 6e,0 8b,1 4o,2 3b,3 10c,0 7b,1 revesino,1 2c,2 1c,3 12c,0 6b")


def test_a5_1_a6_4_a_cut_hands_quinola_followed_in_suit_is_forced_only_when_named() -> None:
    """A5.1, A6.4, A6.5: in a hand cut in trick 10 SettleHand cannot see that S2's 10o, played on
    S1's 1o in trick 1, was his only oros. Named in the trick's ``forced`` it is forced, as in play:
    S2 pays the fondo's 10 into the escrow, returned to him when S1 announces. Not named it was
    played by choice: no payment. Either way the net is the cut revesino's (64 to S2, the fondo
    doubled)."""
    record, request = _cut_hand({}, FORCED_PLAYS, deal=FORCED_DEAL, discard="2o")
    played = api.validate(record)
    fee = {"payer": "seat 0", "payee": "fondo", "amount": 1, "reason": "the dealer's fee of 1 into the fondo"}
    escrow = [{"payer": "seat 2", "payee": "escrow", "amount": 10, "trick": 1,
               "reason": "quínola forced in trick 1: pays an amount equal to the fondo, 10 (held in escrow until trick 10 is led)"},
              {"payer": "escrow", "payee": "seat 2", "amount": 10,
               "reason": "revesino announced by seat 1: the quínola payment of trick 1, 10, returned"}]
    cut = [{"payer": "seat 1", "payee": "seat 2", "amount": 64, "reason": "revesino cut by seat 2: the announcer pays the cutter 64"},
           {"payer": "seat 1", "payee": "fondo", "amount": 10, "reason": "revesino cut: the announcer doubles the fondo, 10"}]
    assert played["payments"] == [fee, *escrow, *cut]
    assert played["net"] == [-1, -74, 64, 0] and played["table"] == {"fondo": 20}
    assert played["revesino"] == {"seat": 1, "outcome": "cut", "cutter": 2}
    unnamed = api.settle_hand(request)
    assert unnamed["payments"] == [fee, *cut]
    assert (unnamed["net"], unnamed["table"]) == (played["net"], played["table"])
    request["revesino"]["tricks"][0]["forced"] = "10o"
    named = api.settle_hand(request)
    assert (named["payments"], named["net"], named["table"]) == (played["payments"], played["net"], played["table"])

# A hand cut in trick 10 under revesinoVoidsNapolitana false: S2, the napolitana (1c 1e 1b 10o),
# renounces in tricks 1-9 (placing 1e and 1b) while S1 takes them with his copas; S1 announces and
# leads 12o; S2's quínola is his only oros (his last card, 1c, is never played) and S3 cuts with 1o.
NAP_CUT_DEAL = {"hands": ["2o 3o 4o 5o 6o 7o 8o 9o 6b 7b 8b 9b", "12c 11c 10c 9c 8c 7c 6c 5c 4c 12o 11o",
                          "10o 1c 1e 1b 2e 3e 4e 2b 3b 4b 5b", "1o 2c 3c 12e 11e 10e 9e 8e 7e 6e 5e"], "stock": "10b 11b 12b"}
NAP_CUT_PLAYS = ("2 napolitana,1 12c,2 2e,3 2c,0 2o,1 11c,2 1e,3 3c,0 3o,1 10c,2 3e,3 12e,0 4o,1 9c,2 1b,3 11e,0 5o,"
                 "1 8c,2 4e,3 10e,0 6o,1 7c,2 2b,3 9e,0 7o,1 6c,2 3b,3 8e,0 6b,1 5c,2 4b,3 7e,0 7b,1 4c,2 5b,3 6e,0 8b,"
                 "1 revesino,1 12o,2 10o,3 1o,0 8o")


def test_r36_a6_6_cut_hands_napolitana_quinola_forced_by_high_oros_only_when_named() -> None:
    """R36 (revesinoVoidsNapolitana false), A6.6, A6.5: the napolitana's quínola forced by 12o in
    trick 10 of a hand cut there doubles the fondo (10) and pays 2 to S1, who forced it, and 1 to
    S0 and to S3. SettleHand cannot see that 10o was S2's only oros (S1's unplayed 11o could have
    been his): named in ``forced`` the hand settles as played; not named it was played by choice
    and only the cut revesino is paid (S2 pays the cutter 64 too)."""
    record, request = _cut_hand({"revesinoVoidsNapolitana": False}, NAP_CUT_PLAYS, deal=NAP_CUT_DEAL, discard="9b")
    request["revesino"]["napolitana"] = 2
    played = api.validate(record)
    placed = played["payments"][1:5]  # 1e and 1b placed, returned at the announcement: 0 net
    assert [(p["payer"], p["payee"], p["amount"]) for p in placed] == [("seat 1", "seat 2", 1)] * 2 + [("seat 2", "seat 1", 1)] * 2
    quinola = [("seat 2", "fondo", 10), ("seat 2", "seat 1", 2), ("seat 2", "seat 3", 1), ("seat 2", "seat 0", 1)]
    cut = [("seat 1", "seat 3", 64), ("seat 2", "seat 3", 64)]
    triples = [(p["payer"], p["payee"], p["amount"]) for p in played["payments"][5:]]
    assert triples == [*quinola, *cut, ("seat 1", "fondo", 20)]  # the cut doubles the fondo already doubled
    assert played["net"] == [0, -82, -78, 129] and played["table"] == {"fondo": 40}
    assert played["revesino"] == {"seat": 1, "outcome": "cut", "cutter": 3}
    unnamed = api.settle_hand(request)
    assert [(p["payer"], p["payee"], p["amount"]) for p in unnamed["payments"][5:]] == [*cut, ("seat 1", "fondo", 10)]
    assert unnamed["net"] == [-1, -74, -64, 128] and unnamed["table"] == {"fondo": 20}
    request["revesino"]["tricks"][9]["forced"] = "10o"
    named = api.settle_hand(request)
    assert (named["payments"], named["net"], named["table"]) == (played["payments"], played["net"], played["table"])
    # Under the default (R36: voided by the announcement) the named quínola moves nothing.
    request["rules"] = {}
    voided = api.settle_hand(request)
    assert (voided["net"], voided["table"]) == (unnamed["net"], unnamed["table"]) and voided["napolitana"]["outcome"] == "void"


# A hand cut in trick 10 whose announcer, S2, is not the first leader: S1 leads 2e to trick 1 and
# S2's only espada is 1e (A5.1: forced, he pays the leader 1 x 2); S2 takes tricks 1-9, announces
# and leads 2c; S3 cuts with 1c. S3's last card, 10e, is never played.
ACE_CUT_DEAL = {"hands": ["11e 12e 9c 10c 11c 12c 9b 10b 11b 2o 3o 4o", "2e 3e 4e 5e 2b 3b 4b 5b 6b 7b 8b",
                          "1e 1o 12o 11o 9o 8o 7o 6o 5o 2c 3c", "1c 6e 7e 8e 9e 10e 4c 5c 6c 7c 8c"], "stock": "10o 1b 12b"}
ACE_CUT_PLAYS = ("1 2e,2 1e,3 6e,0 11e,2 1o,3 7e,0 2o,1 3e,2 12o,3 8e,0 3o,1 4e,2 11o,3 9e,0 4o,1 5e,2 9o,3 4c,0 12e,1 2b,"
                 "2 8o,3 5c,0 10c,1 3b,2 7o,3 6c,0 11c,1 4b,2 6o,3 7c,0 12c,1 5b,2 5o,3 8c,0 9b,1 6b,2 revesino,2 2c,3 1c,0 9c,1 7b")


def test_a6_2_a6_5_cut_hands_announcers_own_ace_forced_in_trick_1_only_when_named() -> None:
    """A6.2, A6.5: the announcer's ace forced in trick 1 pays the leader 2, returned when he
    announces. SettleHand cannot see that 1e was S2's only espada (S3's unplayed 10e could have
    been his): named in ``forced`` the payment and its return are listed as in play; not named
    neither is. The net is the cut revesino's either way."""
    record, request = _cut_hand({}, ACE_CUT_PLAYS, deal=ACE_CUT_DEAL, discard="11b")
    request["revesino"]["announcer"] = 2
    played = api.validate(record)
    fee = {"payer": "seat 0", "payee": "fondo", "amount": 1, "reason": "the dealer's fee of 1 into the fondo"}
    ace = [{"payer": "seat 2", "payee": "seat 1", "amount": 2, "trick": 1, "reason": "1e forced in trick 1: pays the trick's leader 2"},
           {"payer": "seat 1", "payee": "seat 2", "amount": 2,
            "reason": "revesino announced by seat 2: 1e forced in trick 1: pays the trick's leader 2 returned"}]
    cut = [{"payer": "seat 2", "payee": "seat 3", "amount": 64, "reason": "revesino cut by seat 3: the announcer pays the cutter 64"},
           {"payer": "seat 2", "payee": "fondo", "amount": 10, "reason": "revesino cut: the announcer doubles the fondo, 10"}]
    assert played["payments"] == [fee, *ace, *cut]
    assert played["net"] == [-1, 0, -74, 64] and played["table"] == {"fondo": 20}
    unnamed = api.settle_hand(request)
    assert unnamed["payments"] == [fee, *cut] and (unnamed["net"], unnamed["table"]) == (played["net"], played["table"])
    request["revesino"]["tricks"][0]["forced"] = "1e"
    named = api.settle_hand(request)
    assert (named["payments"], named["net"], named["table"]) == (played["payments"], played["net"], played["table"])


def test_settle_summary_a_revoke_the_tricks_disprove_is_refused() -> None:
    # All eleven tricks show every hand: a card played off suit by a seat that held no more of it
    # was no revoke.
    request = _summary(replay(_rec("revesino-full-01-random")))
    tricks = request["revesino"]["tricks"]
    i, card = next((i, c) for i, t in enumerate(tricks) for c in t["cards"].split()[1:] if c[-1] != t["cards"].split()[0][-1])
    tricks[i]["revoked"] = card
    with pytest.raises(InvalidInput) as err:
        settle_summary(Options(allow_revokes=True), 5, request)
    assert (err.value.code, err.value.field) == ("INVALID_FIELD", f"revesino.tricks[{i}].revoked")
    assert "was not a revoke" in err.value.message


def test_settle_summary_a_named_revoke_is_no_implicit_napolitana() -> None:
    # Seat 2 (three aces, no quínola: the 10o is seat 1's unplayed last card) plays 3c on the 1o
    # led in trick 1 while holding 3o: a revoke, not a napolitana's renounce. Unnamed, SettleHand
    # could only take him for the napolitana (he might have held the quínola).
    rules = {"napolitanaDeclaration": "implicit", "allowRevokes": True}
    record, request = _cut_hand(rules, (
        "1 1o,2 3c,3 12c,0 5e,1 12o,2 3o,3 12e,0 4e,1 11o,2 2o,3 11e,0 3e,1 9o,2 4c,3 10e,0 2e,1 8o,2 5c,3 9e,0 12b,"
        "1 7o,2 6c,3 8e,0 11b,1 6o,2 7c,3 7e,0 10b,1 5o,2 1e,3 6e,0 9b,1 4o,2 1b,3 11c,0 8b,1 revesino,1 2c,2 1c,3 10c,0 7b"))
    played = api.validate(record)
    assert played["net"] == [-1, -12, -2, 0] and "napolitana" not in played
    assert api.settle_hand(request)["napolitana"] == {"seat": 2, "outcome": "void"}
    request["revesino"]["tricks"][0]["revoked"] = "3c"
    settled = api.settle_hand(request)
    assert (settled["net"], settled["table"], settled["payments"]) == (played["net"], played["table"], played["payments"])
    assert "napolitana" not in settled or settled["napolitana"] is None


# ---- random courses -----------------------------------------------------------------------------

MONEY_FIELDS = [f for f in dataclasses.fields(Options) if f.name not in ("peek_before_exchange", "napolitana_declaration")]


def random_options(rng: random.Random) -> Options:
    values: dict[str, Any] = {}
    for f in MONEY_FIELDS:
        if rng.random() < 0.35:
            choices = f.metadata["choices"]
            values[f.name] = rng.choice(choices[:12]) if isinstance(choices[0], int) and not isinstance(choices[0], bool) else rng.choice(choices)
    return Options(**values)


def legal(hand: list[Card], trick: list[Play], n: int, seat: int, nap: int | None) -> list[Card]:
    if not trick or (seat == nap and n <= 9):
        return list(hand)
    same = [c for c in hand if c.suit is trick[0].card.suit]
    return same or list(hand)


def random_course(rng: random.Random, options: Options) -> Course:
    """A legal-looking hand: a random (sometimes rigged) deal and exchange, a napolitana when one
    qualifies, random or strong play, a revesino announced when possible."""
    deck = list(DECK_48.cards)
    rng.shuffle(deck)
    dealer = rng.randrange(4)
    hero = (dealer + rng.randrange(1, 4)) % 4
    if rng.random() < 0.3:  # give a non-dealer the strongest cards, to make sweeps and revesinos
        strong = [c for c in deck if c.rank in (1, 12, 11)][:11]
        if rng.random() < 0.5:  # with the quínola, for the announcer's own quínola
            strong = strong[:10] + [QUINOLA]
        deck = strong + [c for c in deck if c not in strong]
        order = [hero] + [s for s in range(4) if s != hero]
    else:
        order = list(range(4))
    hands: list[list[Card]] = [[] for _ in range(4)]
    pos = 0
    for s in order:
        size = 12 if s == dealer else 11
        hands[s] = deck[pos:pos + size]
        pos += size
    stock = deck[pos:]
    oop: list[Card] = []
    for i in range(3):
        s = (dealer + 1 + i) % 4
        if rng.random() < 0.5:
            out = rng.choice(hands[s])
            hands[s].remove(out)
            hands[s].append(stock[i])
            oop.append(out)
        else:
            oop.append(stock[i])
    out = rng.choice(hands[dealer])
    hands[dealer].remove(out)
    oop.append(out)
    nap = None
    for s in range(4):
        aces = sum(1 for c in hands[s] if c.rank == 1)
        if (aces == 4 or (aces == 3 and QUINOLA in hands[s])) and rng.random() < 0.8:
            nap = s
    strongplay = rng.random() < 0.5
    leader = (dealer + 1) % 4
    tricks: list[PlayedTrick] = []
    announcer: int | None = None
    for n in range(1, 12):
        if n == 10 and len({t.winner for t in tricks}) == 1:
            first = tricks[0].winner
            if first is not None and (first != nap or options.napolitana_may_announce) and rng.random() < 0.7:
                announcer = first
        cur: list[Play] = []
        for k in range(4):
            seat = (leader + k) % 4
            choices = legal(hands[seat], cur, n, seat, nap)
            revoke = False
            if options.allow_revokes and cur and len(choices) < len(hands[seat]) and rng.random() < 0.05:
                card = rng.choice([c for c in hands[seat] if c not in choices])
                revoke = True
            elif strongplay and seat == hero and n >= 10 and rng.random() < 0.3:
                card = min(choices, key=lambda c: c.rank if c.rank != 1 else 13)  # let the revesino be cut
            elif strongplay:
                key = (lambda c: POINTS[c] * 20 + c.rank) if seat == hero else (lambda c: -(POINTS[c] * 20 + c.rank))
                card = max(choices, key=key) if rng.random() < 0.8 else rng.choice(choices)
            else:
                card = rng.choice(choices)
            cur.append(Play(seat, card, classify(seat, card, hands[seat], cur, n, nap), revoke))
            hands[seat].remove(card)
        winner = trick_winner(leader, [p.card for p in cur])
        tricks.append(PlayedTrick(n, leader, tuple(cur), winner))
        leader = winner
        if announcer is not None and n == 10 and winner != announcer and not options.play_out_after_cut:
            break
    return Course(dealer=dealer, fondo=rng.choice([0, 3, 8, 9, 15, 40]), tricks=tuple(tricks), napolitana=nap, announcer=announcer,
                  out_of_play=tuple(oop), finished=True)


def prefixes(course: Course) -> list[Course]:
    """Every moment of the hand: k complete tricks, then k complete and the next one led."""
    out = []
    for k in range(len(course.tricks) + 1):
        ann = course.announcer if k >= 9 else None
        base = dataclasses.replace(course, tricks=course.tricks[:k], announcer=ann, finished=False)
        out.append(base)
        if k < len(course.tricks):
            nxt = course.tricks[k]
            led = PlayedTrick(nxt.number, nxt.leader, nxt.plays[:1], None)
            out.append(dataclasses.replace(base, tricks=course.tricks[:k] + (led,)))
    out.append(course)
    return out


@pytest.mark.parametrize("seed", range(300))
def test_random_courses_conserve_money(seed: int) -> None:
    rng = random.Random(seed)
    options = Options() if seed % 3 == 0 else random_options(rng)
    course = random_course(rng, options)
    previous: list[dict[str, Any]] = []
    for c in prefixes(course):
        r = money(options, c)
        check_invariants(c, r)
        # a payment once made never changes: each moment's payments extend the previous moment's
        assert r["payments"][:len(previous)] == previous
        previous = r["payments"] if not c.finished else previous
        assert r["points"] == [sum(POINTS[p.card] for t in c.tricks if t.winner == s for p in t.plays) for s in range(4)]
    r = money(options, course)
    named = course.announcer is None or options.play_out_after_cut
    assert ("handWinner" in r) == named
    if course.announcer is not None:
        assert r["revesino"]["outcome"] in ("won", "cut")
    if course.napolitana is not None:
        assert r["napolitana"]["outcome"] in ("success", "failed", "void")
    if len(course.tricks) == 11:
        s = settle_summary(options, course.fondo, _summary(course))
        assert s["net"] == r["net"] and s["table"] == r["table"]


def test_random_courses_reach_the_interesting_cases() -> None:
    seen: set[str] = set()
    for seed in range(300):
        rng = random.Random(seed)
        options = Options() if seed % 3 == 0 else random_options(rng)
        r = money(options, random_course(rng, options))
        if "revesino" in r:
            seen.add("revesino-" + r["revesino"]["outcome"])
        if "napolitana" in r:
            seen.add("napolitana-" + r["napolitana"]["outcome"])
        if r.get("tiebreak") == "sweep":
            seen.add("sweep")
        if r.get("forfeited"):
            seen.add("forfeit")
        if any("quínola placed" in p["reason"] for p in r["payments"]):
            seen.add("quinola-placed")
        if any("quínola forced" in p["reason"] for p in r["payments"]):
            seen.add("quinola-forced")
    assert {"revesino-won", "revesino-cut", "napolitana-failed", "quinola-placed", "quinola-forced"} <= seen, seen


def test_suits_cover_the_deck() -> None:
    assert len({c.suit for c in DECK_48.cards}) == len(Suit)
