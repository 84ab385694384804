"""Revesino play rules, test-first: the worked examples RV-1, RV-2 and RV-13 of rules/revesino.md,
the sequencing decisions of its section 0, A1-A5 (deal, exchange, napolitana, legal moves, trick
winner, the classification of aces and the quínola), A4 (the napolitana window, the revesino
announcement and its cut), R6, R10, R24, R25, R28, R32, R37, the violation codes of
records/FORMAT.md section 6, and what a seat may see.

Dealer 0 unless stated, so the spec's Sn is seat n: S1 leads trick 1, then S2, S3 and the dealer.
The money of a hand is engine/revesino_money.py's (tests/test_revesino_money.py); here the
single-trick examples RV-3 ... RV-7 are played and the transfers of their trick read, with the
fondo and the escrow as the play makes them.
"""

from __future__ import annotations

import json

import pytest
from examples_support import examples_dir
from results_support import cards_of, legal, legal_of, ok, violation, winners
from revesino_support import DECK, build, canon, card_points, cards_in, keep_all, more, moves, rec, trick_winner, upto, with_rules

from engine import (
    api,
    revesino,
    shuffle,
)
from engine.cards import DECK_48
from engine.errors import InvalidInput
from engine.record import parse_action, read_setup, replay

EXAMPLES = examples_dir()


# ---- helpers -------------------------------------------------------------------------------------




def bad(record: dict, *actions: str) -> tuple[int, str]:
    """The violation of ``actions`` appended to a legal record, with its index relative to them."""
    n = len(record["actions"])
    index, code = violation(more(record, *actions))
    return index - n, code


def view(record: dict, seat: int) -> dict:
    return api.legal_actions(record, seat)["view"]


def hand_of(record: dict, seat: int) -> set[str]:
    return set(view(record, seat)["hand"].split())


def kind_of(record: dict, index: int) -> str:
    """How the card played by action ``index`` is classified (A5.1, section 0): "led", "placed",
    "forced", "voluntary", or "" for a card that is neither an ace nor the quínola. Judged by
    the engine's own ``classify`` on the state just before the card."""
    setup, actions = read_setup(revesino, record)
    run = replay(revesino, setup, actions[:index])
    assert run.violation is None, run.violation
    action = parse_action(actions[index], 4, revesino.DECK, revesino.CALLS)
    assert action.card is not None
    return revesino.classify(run.state, action.seat, action.card)


def play_out(record: dict, pick=min) -> dict:
    """Play the hand to its end with a deterministic legal card (no calls); return the record."""
    record = {**record, "actions": list(record["actions"])}
    while True:
        result = ok(record)
        if result["finished"]:
            return record
        cards = sorted(a for a in result["next"]["legal"] if a.split()[1][0].isdigit() and int(a.split()[0]) == result["next"]["seat"])
        record["actions"].append(pick(cards))


def first_card(result: dict) -> str:
    """The first legal card of the seat to act, as an action."""
    seat = result["next"]["seat"]
    return f"{seat} " + sorted(a for a in legal_of(result, seat) if a[0].isdigit())[0]


def trick_money(record: dict, n: int) -> list[tuple]:
    """The transfers made for trick ``n`` -- (payer, payee, amount), a seat or the fondo/escrow --
    once the hand is played out from ``record`` with deterministic cards and no calls."""
    def who(party: str) -> int | str:
        return int(party.split()[1]) if party.startswith("seat ") else party

    result = ok(play_out(record))
    assert result["finished"]
    return sorted(((who(p["payer"]), who(p["payee"]), p["amount"]) for p in result["payments"] if p.get("trick") == n), key=str)


def points_by_seat(result: dict) -> list[int]:
    """Card points each seat took, counted from the tricks (A1's table)."""
    out = [0, 0, 0, 0]
    for t in result["tricks"]:
        if "winner" in t:
            out[t["winner"]] += sum(card_points(c) for c in t["cards"])
    return out


# ---- RV-1: legal moves, ordinary player ----------------------------------------------------------


def test_rv01_must_follow_suit_but_need_not_beat():
    # Trick 3: S1 leads 7c; S2 holds 3c 9c 1e 5b 10o 2o (and three more cards, none of copas).
    r = build({1: "7c", 2: "3c 9c 1e 5b 10o 2o 6b 7o 8e"}, [3, 1])
    result = ok(more(r, "1 7c"))
    assert len(winners(result)) == 2 and result["tricks"][-1] == {"leader": 1, "cards": ["7c"]}
    assert result["next"]["seat"] == 2
    assert legal(result) == {"2 3c", "2 9c"}
    ok(more(r, "1 7c", "2 3c"))  # legal although it does not beat 7c
    ok(more(r, "1 7c", "2 9c"))
    for card in ("1e", "5b", "10o", "2o"):
        assert bad(r, "1 7c", f"2 {card}") == (1, "MUST_FOLLOW_SUIT")


def test_rv01_without_the_suit_led_every_card_is_legal_and_aces_are_placed():
    r = build({1: "7c", 2: "1e 5b 10o 2o 6b 7o 8e 4b 9b"}, [3, 1])
    assert "c" not in {c[-1] for c in hand_of(more(r, "1 7c"), 2)}
    result = ok(more(r, "1 7c"))
    assert cards_of(result, 2) == {"1e", "5b", "10o", "2o", "6b", "7o", "8e", "4b", "9b"}
    n = len(r["actions"]) + 1
    assert kind_of(more(r, "1 7c", "2 1e"), n) == "placed"
    assert kind_of(more(r, "1 7c", "2 10o"), n) == "placed"
    assert kind_of(more(r, "1 7c", "2 5b"), n) == ""


# ---- RV-2: legal moves, napolitana -------------------------------------------------------------------


def test_rv02a_napolitana_renounces_in_tricks_1_to_9():
    # S2 declared a napolitana (1o 1c 1e 10o); trick 5, S1 leads 7c, S2 holds 3c 9c 1e 5b ...
    r = build({1: "7c", 2: "3c 9c 1e 5b 1o 1c 10o"}, [3, 0, 3, 1], calls=["2 napolitana"])
    result = ok(more(r, "1 7c"))
    assert len(winners(result)) == 4
    assert cards_of(result, 2) == {"3c", "9c", "1e", "5b", "1o", "1c", "10o"}
    n = len(r["actions"]) + 1
    for card in ("1e", "5b", "10o", "9c"):
        ok(more(r, "1 7c", f"2 {card}"))
    # R25: a renounced ace or quínola is placed (colocado), even though he held copas.
    assert kind_of(more(r, "1 7c", "2 1e"), n) == "placed"
    assert kind_of(more(r, "1 7c", "2 10o"), n) == "placed"
    # Not forced either when he follows: he could have renounced.
    assert kind_of(more(r, "1 7c", "2 1c"), n) == "voluntary"


def test_rv02a_only_the_napolitana_renounces():
    r = build({1: "7c", 2: "3c 9c 1e 5b 1o 1c 10o", 3: "2c 5e"}, [3, 0, 3, 1], calls=["2 napolitana"])
    result = ok(more(r, "1 7c", "2 1e"))
    assert cards_of(result, 3) == {c for c in hand_of(more(r, "1 7c", "2 1e"), 3) if c.endswith("c")}
    assert bad(r, "1 7c", "2 1e", "3 5e") == (2, "MUST_FOLLOW_SUIT")


def test_rv02b_napolitana_must_follow_in_trick_10_and_fails_by_winning_it():
    # S2 renounced his aces and quínola in tricks 1-4; trick 10: S1 leads 7c, S2 holds 9c 5b.
    r = build({1: "7c 2e", 2: "9c 5b", 3: "2c 3e", 0: "4c 4e"}, [1, 1, 3, 0, 1, 3, 0, 3, 1],
              calls=["2 napolitana"], renounce={2: "1o 1c 1e 10o"})
    result = ok(more(r, "1 7c"))
    assert len(winners(result)) == 9 and 2 not in winners(result)
    assert result["napolitana"]["seat"] == 2
    assert cards_of(result, 2) == {"9c"}
    assert bad(r, "1 7c", "2 5b") == (1, "MUST_FOLLOW_SUIT")
    # Nobody plays a higher copas: S2 wins trick 10 and his napolitana fails.
    result = ok(more(r, "1 7c", "2 9c", "3 2c", "0 4c"))
    assert winners(result)[-1] == 2
    assert result["napolitana"]["seat"] == 2 and result["napolitana"]["outcome"] in ("pending", "failed")
    # Trick 11 is played (a napolitana's failure does not end the hand).
    assert not result["finished"] and result["next"]["seat"] == 2
    result = ok(more(r, "1 7c", "2 9c", "3 2c", "0 4c", "2 5b", "3 3e", "0 4e", "1 2e"))
    assert result["finished"] and len(winners(result)) == 11
    assert result["napolitana"] == {"seat": 2, "outcome": "failed"}


def test_rv02b_napolitana_who_wins_no_trick_succeeds():
    r = build({1: "7c 2e", 2: "3c 5b", 3: "2c 3e", 0: "4c 4e"}, [1, 1, 3, 0, 1, 3, 0, 3, 1],
              calls=["2 napolitana"], renounce={2: "1o 1c 1e 10o"})
    result = ok(more(r, "1 7c", "2 3c", "3 2c", "0 4c", "1 2e", "2 5b", "3 3e", "0 4e"))
    assert result["finished"] and 2 not in winners(result)
    assert result["napolitana"] == {"seat": 2, "outcome": "success"}


def test_r37_napolitana_who_already_took_a_trick_keeps_renouncing_until_trick_9():
    # S2 renounces 1c in trick 1, then wins tricks 2 and 3; in trick 5 he still renounces.
    r = build({3: "7c", 2: "3c 9c 1e 5b 1o 10o 4b"}, [1, 2, 2, 3], calls=["2 napolitana"], renounce={2: "1c"})
    assert winners(ok(r))[1:3] == [2, 2]
    record = more(r, "3 7c")
    record = more(record, first_card(ok(record)))  # the dealer
    record = more(record, first_card(ok(record)))  # S1
    result = ok(record)
    assert result["next"]["seat"] == 2
    assert cards_of(result, 2) == {"3c", "9c", "1e", "5b", "1o", "10o", "4b"}
    ok(more(record, "2 5b"))


# ---- RV-13 and R6: the exchange --------------------------------------------------------------------------

# Undealt cards in order: 1c (S1's), 4e (S2's), 12b (S3's).
RV13 = rec(["10e 2o 3o", "11o 5c 6c", "7o 7c 9b", "3b 2e 8b"], undealt="1c 4e 12b")
RV13_EXCHANGE = ["1 cambio 11o", "2 quedo", "3 cambio 3b", "0 descarte 10e"]


def test_rv13_exchange_order_and_choices():
    hands = [set(h.split()) for h in RV13["deal"]["hands"]]
    result = ok(RV13)
    assert result["phase"] == "exchange" and result["exchanges"] == ["", "", "", ""]
    assert result["next"]["seat"] == 1
    assert legal(result) == {f"1 cambio {c}" for c in hands[1]} | {"1 quedo"}
    for n, seat in enumerate([2, 3, 0], start=1):
        result = ok(upto(more(RV13, *RV13_EXCHANGE), n))
        assert result["next"]["seat"] == seat
        if seat == 0:  # the dealer must discard one of his 12 cards and takes nothing
            assert legal(result) == {f"0 descarte {c}" for c in hands[0]}
        else:
            assert legal(result) == {f"{seat} cambio {c}" for c in hands[seat]} | {f"{seat} quedo"}
    result = ok(more(RV13, *RV13_EXCHANGE))
    assert result["phase"] == "play"
    assert result["exchanges"] == ["descarte", "cambio", "quedo", "cambio"]
    assert result["next"]["seat"] == 1 and result["tricks"] == []


def test_rv13_who_holds_what_after_the_exchange():
    record = more(RV13, *RV13_EXCHANGE)
    dealt = [set(h.split()) for h in RV13["deal"]["hands"]]
    after = [hand_of(record, s) for s in range(4)]
    assert after[1] == dealt[1] - {"11o"} | {"1c"}  # exchanged blind: 11o out, 1c in
    assert after[2] == dealt[2]  # kept; 4e goes out unused
    assert after[3] == dealt[3] - {"3b"} | {"12b"}
    assert after[0] == dealt[0] - {"10e"}  # the dealer takes nothing
    assert [len(h) for h in after] == [11, 11, 11, 11]
    assert view(record, 0)["handSizes"] == [11, 11, 11, 11]
    # Out of play: 11o, 4e, 3b, 10e -- the four cards no hand holds.
    assert set(DECK) - set().union(*after) == {"11o", "4e", "3b", "10e"}


def test_rv13_out_of_play_cards_make_the_party():
    record = play_out(more(RV13, *RV13_EXCHANGE))
    result = ok(record)
    assert result["finished"]
    played = [c for t in result["tricks"] for c in t["cards"]]
    assert len(played) == len(set(played)) == 44 and set(DECK) - set(played) == {"11o", "4e", "3b", "10e"}
    # 11o 2 + 4e 0 + 3b 0 + 10e 1 = 3 points out of play; 40 taken in tricks; party 3 + 4 = 7.
    assert sum(result["cardPoints"]) == 40
    assert result["cardPoints"] == points_by_seat(result)
    assert result["party"] == 7


def test_rv13_sizes_during_the_exchange():
    assert view(RV13, 1)["handSizes"] == [12, 11, 11, 11]
    assert view(more(RV13, "1 cambio 11o"), 1)["handSizes"] == [12, 11, 11, 11]
    assert view(more(RV13, "1 cambio 11o", "2 quedo", "3 quedo"), 0)["handSizes"] == [12, 11, 11, 11]


def test_rv13_the_exchange_is_told_in_events_then_s1_leads():
    """A3 / RV-13: each exchange call is an event of its seat and kind, in the order made; the
    dealer's discard ends the exchange, and a ``play`` event of the same action says that S1
    leads trick 1."""
    result = ok(more(RV13, *RV13_EXCHANGE))
    assert [(e["kind"], e["seat"], e["text"], e["action"]) for e in result["events"]] == [
        ("cambio", 1, "seat 1 exchanges one card for his undealt card", 0),
        ("quedo", 2, "seat 2 keeps his cards", 1),
        ("cambio", 3, "seat 3 exchanges one card for his undealt card", 2),
        ("descarte", 0, "seat 0 (the dealer) discards a card", 3),
        ("play", 1, "the exchange is over; seat 1 leads", 3),
    ]


def test_sample_exchange_record_legal_list():
    sample = json.loads((EXAMPLES / "revesino-part-01-exchange.json").read_text())
    result = ok(sample["record"])
    expect = sample["expect"]
    assert result["finished"] is False and result["tricks"] == []
    assert result["next"]["seat"] == expect["next"]["seat"] == 0  # dealer 3: S1 is seat 0
    assert legal(result) == set(expect["next"]["legal"])


@pytest.mark.parametrize("name", ["full-01-random", "full-21-nap", "full-28-sweep", "full-31-sweep-cut", "part-01-exchange"])
def test_sample_records_play(name: str):
    sample = json.loads((EXAMPLES / f"revesino-{name}.json").read_text())
    result = ok(sample["record"])
    expect = sample["expect"]
    assert result["finished"] == expect["finished"]
    assert winners(result) == expect["tricks"]


def test_exchange_with_another_dealer():
    # Dealer 2: S1 = 3, S2 = 0, S3 = 1; the undealt cards go to 3, 0, 1 in that order.
    record = rec(["4o", "5o", "6o 7o", "8o"], undealt="1c 4e 12b", dealer=2)
    assert ok(record)["next"]["seat"] == 3
    record = more(record, "3 cambio 8o", "0 cambio 4o", "1 cambio 5o", "2 descarte 7o")
    result = ok(record)
    assert result["next"]["seat"] == 3 and result["exchanges"] == ["cambio", "cambio", "descarte", "cambio"]
    assert "1c" in hand_of(record, 3) and "4e" in hand_of(record, 0) and "12b" in hand_of(record, 1)


def test_seeded_deal_gives_eleven_twelve_and_three_undealt():
    for dealer in range(4):
        out = api.deal({"game": "revesino", "seats": 4, "dealer": dealer, "seed": f"rv-deal-{dealer}"})
        hands = [h.split() for h in out["deal"]["hands"]]
        stock = out["deal"]["stock"].split()
        assert [len(h) for h in hands] == [12 if s == dealer else 11 for s in range(4)]
        assert len(stock) == 3
        assert sorted([*(c for h in hands for c in h), *stock]) == sorted(DECK)
        # The same deal from its seed or written out: the same hand.
        seeded = {"game": "revesino", "seats": 4, "dealer": dealer, "deal": {"seed": f"rv-deal-{dealer}"}, "actions": []}
        written = {**seeded, "deal": out["deal"]}
        assert ok(seeded)["next"] == ok(written)["next"]
        assert ok(seeded)["next"]["seat"] == (dealer + 1) % 4


@pytest.mark.parametrize("dealer", range(4))
def test_a3_the_seeded_deal_goes_round_from_s1_in_packets_of_3_4_4(dealer):
    """A3 as docs/deal.md lays it out: three rounds from the seat after the dealer, in order of
    play, the dealer last; packets of 3, 4 and 4 to each non-dealer, of 4 to the dealer; the three
    cards left are S1's, S2's and S3's undealt cards, in that order."""
    pack = [str(c) for c in shuffle.shuffle(DECK_48.cards, "rv-packets")]
    hands: list[list[str]] = [[] for _ in range(4)]
    position = 0
    for packet in (3, 4, 4):
        for k in (1, 2, 3, 0):
            seat = (dealer + k) % 4
            size = 4 if k == 0 else packet
            hands[seat] += pack[position:position + size]
            position += size
    out = api.deal({"game": "revesino", "seats": 4, "dealer": dealer, "seed": "rv-packets"})
    assert out["deal"]["hands"] == [" ".join(h) for h in hands]  # (in the order dealt)
    assert out["deal"]["stock"] == " ".join(pack[45:])


# ---- A1, A5: trick winners ------------------------------------------------------------------------------

# S1, S2, S3, S0 in play order (S1 leads trick 1); the winner; suits each seat is void in.
TRICKS = [
    ("2c 1c 12c 11c", 2, {}),
    ("12c 11c 10c 9c", 1, {}),
    ("10c 11c 12c 1c", 0, {}),
    ("5o 8o 9o 6o", 3, {}),
    ("10o 9o 12o 11o", 3, {}),
    ("3e 2e 4e 1o", 3, {0: "e"}),  # an off-suit ace never wins
    ("2b 1o 1c 1e", 1, {2: "b", 3: "b", 0: "b"}),  # the lowest card of the suit led wins alone
    ("7e 12b 1b 11b", 1, {2: "e", 3: "e", 0: "e"}),
    ("11e 12e 1e 10e", 3, {}),
    ("3b 2b 12e 4b", 0, {3: "b"}),
]


@pytest.mark.parametrize("cards,winner,voids", TRICKS)
def test_trick_winner_is_the_highest_of_the_suit_led(cards: str, winner: int, voids: dict):
    c1, c2, c3, c0 = cards.split()
    r = build({1: c1, 2: c2, 3: c3, 0: c0}, [], voids=voids)
    result = ok(more(r, f"1 {c1}", f"2 {c2}", f"3 {c3}", f"0 {c0}"))
    assert winners(result) == [winner]
    assert result["tricks"][0] == {"leader": 1, "cards": cards.split(), "winner": winner}
    assert result["next"]["seat"] == winner  # the winner leads the next trick
    assert [1, 2, 3, 0][trick_winner(cards.split())] == winner  # the helper agrees


def test_rank_order_one_above_twelve_above_eleven_down_to_two():
    # For each pair of neighbours in the order, S1 leads one and the dealer plays the other (S2
    # and S3 are void in copas): the higher wins, whoever plays it.
    order = [1, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2]
    for hi, lo in zip(order, order[1:], strict=False):
        for first, last, winner in ((f"{lo}c", f"{hi}c", 0), (f"{hi}c", f"{lo}c", 1)):
            r = build({1: first, 2: "5e", 3: "6e", 0: last}, [], voids={2: "c", 3: "c"})
            result = ok(more(r, f"1 {first}", "2 5e", "3 6e", f"0 {last}"))
            assert winners(result) == [winner], (first, last)


def test_rv03_placed_ace_in_trick_4():
    # Trick 4 (m = 1): S1 5e, S2 12e, S3 1b (void in espadas), S0 9e. Winner S2, 3 + 4 points.
    r = build({1: "5e", 2: "12e", 3: "1b", 0: "9e"}, [3, 2, 1], voids={3: "e"})
    assert not any(c.endswith("e") for c in hand_of(r, 3))
    n = len(r["actions"])
    record = more(r, "1 5e", "2 12e", "3 1b", "0 9e")
    result = ok(record)
    assert winners(result)[-1] == 2
    assert kind_of(record, n + 2) == "placed"
    assert result["cardPoints"] == points_by_seat(result)
    assert result["cardPoints"][2] - ok(r)["cardPoints"][2] == 3 + 4  # 12e and 1b
    assert trick_money(record, 4) == [(2, 3, 1)]  # the winner S2 pays the placer S3 1


def test_rv04_oros_ace_placed_in_trick_1_doubled():
    # Trick 1 (m = 2): S1 4c, S2 1o (void in copas), S3 11c, S0 2c. Winner S3 with 4 + 2 points.
    r = build({1: "4c", 2: "1o", 3: "11c", 0: "2c"}, [], voids={2: "c"})
    record = more(r, "1 4c", "2 1o", "3 11c", "0 2c")
    result = ok(record)
    assert winners(result) == [3] and result["cardPoints"] == [0, 0, 0, 6]
    assert kind_of(record, len(r["actions"]) + 1) == "placed"
    assert trick_money(record, 1) == [(3, 2, 4)]  # oros ace placed: 2 x m = 4, paid by the winner S3
    assert trick_money(with_rules(record, doubleAcePlaced="copas"), 1) == [(3, 2, 2)]  # 1 x 2


def test_seat_tricks_and_card_points_follow_the_tricks():
    record = play_out(more(RV13, *RV13_EXCHANGE), pick=max)
    for n in range(len(RV13_EXCHANGE), len(record["actions"]) + 1, 4):
        result = ok(upto(record, n))
        ws = winners(result)
        assert result["seatTricks"] == [ws.count(s) for s in range(4)]
        assert result["cardPoints"] == points_by_seat(result)


# ---- A5.1 and section 0: classification of aces and the quínola, as seen in play ------------------------


def test_led_ace_and_led_quinola():
    """A5.1: an ace or the quínola led is "led", and pays nothing."""
    r = build({1: "1o 10o 2c", 2: "3o 4o"}, [1, 1])
    n = len(r["actions"])
    assert kind_of(more(r, "1 1o"), n) == "led"
    assert kind_of(more(r, "1 10o"), n) == "led"
    assert trick_money(more(r, "1 1o"), 3) == []  # no payment for a led ace (no gergi)
    assert trick_money(more(r, "1 10o"), 3) == []


def test_rv05_ace_forced_in_the_last_trick():
    # Trick 11: S0 leads 5c, S1's last card 1c, S2 8c, S3 2b.
    r = build({0: "5c", 1: "1c", 2: "8c", 3: "2b"}, [1, 2, 3, 0, 1, 2, 3, 0, 1, 0])
    n = len(r["actions"])
    record = more(r, "0 5c", "1 1c", "2 8c", "3 2b")
    result = ok(record)
    assert result["finished"] and winners(result)[-1] == 1
    assert kind_of(record, n + 1) == "forced"  # his only copas
    assert kind_of(record, n + 3) == ""  # a blank discard
    assert trick_money(record, 11) == [(1, 0, 4)]  # forced copas ace: 2 x m = 4 to the leader


def test_ace_forced_in_a_middle_trick_always_wins():
    # Trick 3: S2 leads 12e; S3's only espada is 1e.
    r = build({2: "12e 4b", 3: "1e 2c 3c", 0: "2e", 1: "3e"}, [2, 2], voids={3: "e"})
    n = len(r["actions"])
    record = more(r, "2 12e", "3 1e", "0 2e", "1 3e")
    assert kind_of(record, n + 1) == "forced"
    assert winners(ok(record))[-1] == 3
    assert trick_money(record, 3) == [(3, 2, 1)]  # the forced player pays the leader 1


def test_ace_in_suit_with_other_cards_is_voluntary():
    r = build({2: "12e", 3: "1e 5e", 0: "2e", 1: "3e"}, [2, 2])
    n = len(r["actions"])
    assert kind_of(more(r, "2 12e", "3 1e"), n + 1) == "voluntary"
    assert trick_money(more(r, "2 12e", "3 1e", "0 2e", "1 3e"), 3) == []


def test_rv06_quinola_placed_takes_the_fondo_into_escrow():
    # Fondo 14 before trick 3 (13 carried, the dealer's fee 1). S2 leads 6e, S3 8e, S0 10o (void
    # in espadas), S1 2e. Winner S3. S0 takes the fondo: 14 into escrow, fondo 0.
    r = build({2: "6e 4b", 3: "8e 5b", 0: "10o 6b", 1: "2e 7b"}, [2, 2], voids={0: "e"}, table={"fondo": 13})
    assert ok(r)["fondo"] == 14 and ok(r)["escrow"] == 0
    n = len(r["actions"])
    record = more(r, "2 6e", "3 8e", "0 10o", "1 2e")
    assert kind_of(record, n + 2) == "placed"
    result = ok(record)
    assert winners(result)[-1] == 3
    assert (result["fondo"], result["escrow"]) == (0, 14)
    # Side payments: the winner S3 pays S0 2, S1 and S2 1 each.
    assert trick_money(record, 3) == sorted([("fondo", "escrow", 14), (3, 0, 2), (1, 0, 1), (2, 0, 1)], key=str)
    # No revesino after trick 9: S0 keeps the 14 (the escrow's); the next deal finds an empty
    # fondo: four antes of 2 and the fee make it 9.
    played = ok(play_out(record))
    assert ("escrow", "seat 0", 14) in [(p["payer"], p["payee"], p["amount"]) for p in played["payments"]]
    assert played["table"] == {"fondo": 0}
    assert ok(rec(["", "", "", ""], dealer=played["nextDealer"], table=played["table"]))["fondo"] == 9


def test_rv06_quinola_placed_in_trick_11_pays_double_and_takes_the_fondo_at_once():
    # The same trick as trick 11 (m = 2), the fondo 14: the side payments are 4/2/2, the fondo
    # goes to S0 at once (no escrow).
    r = build({2: "6e", 3: "8e", 0: "10o", 1: "2e"}, [1, 2, 3, 0, 1, 2, 3, 0, 1, 2], voids={0: "e"}, table={"fondo": 13})
    record = more(r, "2 6e", "3 8e", "0 10o", "1 2e")
    result = ok(record)
    assert result["finished"] and winners(result)[-1] == 3
    assert kind_of(record, len(r["actions"]) + 2) == "placed"
    assert trick_money(record, 11) == sorted([("fondo", 0, 14), (3, 0, 4), (1, 0, 2), (2, 0, 2)], key=str)
    assert not [p for p in result["payments"] if "escrow" in (p["payer"], p["payee"])]
    assert result["table"] == {"fondo": 0}


def test_rv07_quinola_forced_pays_the_fondo_into_escrow():
    # Fondo 12 before trick 5. S1 leads 12o; S2's only oros is 10o; S3 4o; S0 7o. Winner S1.
    r = build({1: "12o 2c", 2: "10o 3c", 3: "4o 5c", 0: "7o 6c"}, [3, 0, 2, 1], voids={2: "o"}, table={"fondo": 11})
    assert ok(r)["fondo"] == 12
    n = len(r["actions"])
    record = more(r, "1 12o", "2 10o", "3 4o", "0 7o")
    assert kind_of(record, n + 1) == "forced"
    result = ok(record)
    assert winners(result)[-1] == 1
    assert result["escrow"] == 12
    assert result["fondo"] + result["escrow"] == 24
    # The holder S2 pays 12 (into the escrow); no seat is paid for it.
    assert [(payer, amount) for payer, payee, amount in trick_money(record, 5)] == [(2, 12)]


def test_quinola_escrow_is_final_once_trick_10_is_led_without_an_announcement():
    # RV-7's forced quínola in trick 5, then tricks 6-9, then the lead to trick 10.
    r = build({1: "12o 2c", 2: "10o 3c", 3: "4o 5c", 0: "7o 6c"}, [3, 0, 2, 1], voids={2: "o"}, table={"fondo": 11})
    record = more(r, "1 12o", "2 10o", "3 4o", "0 7o")
    while len(winners(ok(record))) < 9:
        record = more(record, first_card(ok(record)))
    result = ok(record)
    assert not result["tricks"][-1]["cards"] or "winner" in result["tricks"][-1]
    assert result["escrow"] == 12
    result = ok(more(record, first_card(result)))
    assert (result["fondo"], result["escrow"]) == (24, 0)


def test_a6_4_r15_the_lead_to_trick_9_leaves_the_quinola_escrow_pending():
    """A6.4, R15: only the lead to trick 10 (without an announcement) makes the escrow final; with
    trick 9 led and not complete, RV-7's forced quínola payment is still in the escrow."""
    r = build({1: "12o 2c", 2: "10o 3c", 3: "4o 5c", 0: "7o 6c"}, [3, 0, 2, 1], voids={2: "o"}, table={"fondo": 11})
    record = more(r, "1 12o", "2 10o", "3 4o", "0 7o")
    while len(winners(ok(record))) < 8:
        record = more(record, first_card(ok(record)))
    result = ok(more(record, first_card(ok(record))))
    assert len(result["tricks"]) == 9 and "winner" not in result["tricks"][-1]
    assert (result["fondo"], result["escrow"]) == (12, 12)


def test_quinola_in_suit_with_other_oros_is_voluntary():
    r = build({1: "12o 2c", 2: "10o 2o", 3: "4o 5c", 0: "7o 6c"}, [3, 0, 2, 1])
    assert kind_of(more(r, "1 12o", "2 10o"), len(r["actions"]) + 1) == "voluntary"


def test_napolitana_forced_in_trick_10():
    # RV-11, trick 10: S3 leads 2o; the napolitana S2's only oros is 1o: sacado, and it wins.
    r = build({3: "2o 5b", 2: "1o 6b", 0: "3o 7b", 1: "4o 8b"}, [1, 1, 3, 0, 1, 3, 0, 1, 3],
              calls=["2 napolitana"], renounce={2: "1c 1e 10o"}, voids={2: "o"})
    n = len(r["actions"])
    record = more(r, "3 2o", "0 3o", "1 4o", "2 1o")
    assert kind_of(record, n + 3) == "forced"
    result = ok(record)
    assert winners(result)[-1] == 2
    result = ok(more(record, "2 6b", "3 5b", "0 7b", "1 8b"))
    assert result["finished"] and result["napolitana"] == {"seat": 2, "outcome": "failed"}


def test_napolitana_single_card_of_the_suit_in_tricks_1_to_9_is_not_forced():
    # Trick 3: S1 leads 5c; the napolitana S2 holds 1c, his only copas, and plays it.
    r = build({1: "5c", 2: "1c 1o 1e 10o 2b"}, [3, 1], calls=["2 napolitana"], voids={2: "c"})
    n = len(r["actions"])
    assert kind_of(more(r, "1 5c", "2 1c"), n + 1) == "voluntary"
    assert kind_of(more(r, "1 5c", "2 1o"), n + 1) == "placed"


def test_rv02a_the_napolitanas_only_card_of_the_suit_in_trick_9_is_still_not_forced():
    """Section 0, A5.1: a napolitana's in-suit play in tricks 1-9 is never forced, trick 9 included
    (he could still renounce); from trick 10 it is (test_napolitana_forced_in_trick_10)."""
    r = build({1: "5c", 2: "1c 1o 2b"}, [3, 1, 3, 1, 3, 1, 3, 1], calls=["2 napolitana"], voids={2: "c"},
              renounce={2: "1e 10o"})
    n = len(r["actions"])
    assert len(winners(ok(r))) == 8
    assert kind_of(more(r, "1 5c", "2 1c"), n + 1) == "voluntary"


# ---- section 0, A4.1, R24: the napolitana window -------------------------------------------------------

# S2 is dealt three aces and the quínola.
NAP = rec(["", "", "1o 1c 1e 10o 2c", ""], undealt="5b 6b 7b")
NAP_EXCHANGE = keep_all(0, NAP["deal"]["hands"][0].split()[0])


def test_napolitana_is_listed_out_of_turn_after_the_dealers_discard():
    """A4.1: a qualifying seat may declare the napolitana after the dealer's discard, out of turn,
    before the first card."""
    result = ok(more(NAP, *NAP_EXCHANGE))
    assert result["next"]["seat"] == 1
    assert "2 napolitana" in legal(result)
    assert legal_of(result, 3) == set() and legal_of(result, 0) == set()
    assert "napolitana" not in legal_of(result, 1)
    result = ok(more(NAP, *NAP_EXCHANGE, "2 napolitana"))
    assert result["napolitana"] == {"seat": 2, "outcome": "pending"}
    assert result["next"]["seat"] == 1  # the call does not move the turn
    assert not any(a.endswith("napolitana") for a in legal(result))
    assert bad(more(NAP, *NAP_EXCHANGE), "2 napolitana", "2 napolitana") == (1, "NOT_ALLOWED_NOW")


def test_a4_1_the_napolitana_call_is_an_event_of_the_declaring_seat():
    result = ok(more(NAP, *NAP_EXCHANGE, "2 napolitana"))
    assert result["events"][-1] == {"kind": "napolitana", "seat": 2, "text": "seat 2 declares a napolitana: he may renounce in tricks 1-9",
                                    "action": len(NAP_EXCHANGE)}


def test_napolitana_not_during_the_exchange():
    for n in range(4):
        record = upto(more(NAP, *NAP_EXCHANGE), n)
        assert not any(a.endswith("napolitana") for a in legal(ok(record)))
        assert bad(record, "2 napolitana") == (0, "NOT_ALLOWED_NOW")
    assert "napolitana" not in ok(more(NAP, *NAP_EXCHANGE[:3]))


def test_napolitana_not_after_the_first_card():
    record = more(NAP, *NAP_EXCHANGE)
    first = sorted(cards_of(ok(record), 1))[0]
    result = ok(more(record, f"1 {first}"))
    assert not any(a.endswith("napolitana") for a in legal(result))
    assert bad(record, f"1 {first}", "2 napolitana") == (1, "NOT_ALLOWED_NOW")
    assert "napolitana" not in result


def test_napolitana_not_by_a_seat_that_does_not_qualify():
    record = more(NAP, *NAP_EXCHANGE)
    for seat in (0, 1, 3):
        assert bad(record, f"{seat} napolitana") == (0, "NOT_ALLOWED_NOW")


def test_napolitana_by_the_seat_to_act_and_by_the_dealer():
    # S1 qualifies: listed with his cards.
    r = rec(["", "1o 1c 1e 1b", "", ""], undealt="5b 6b 7b")
    record = more(r, *keep_all(0, r["deal"]["hands"][0].split()[0]))
    assert legal_of(ok(record), 1) == set(hand_of(record, 1)) | {"napolitana"}
    ok(more(record, "1 napolitana", "1 1o"))
    # The dealer qualifies on the 11 cards he keeps.
    r = rec(["1o 1c 1e 10o 2c", "", "", ""], undealt="5b 6b 7b")
    result = ok(more(r, *keep_all(0, "2c")))
    assert "0 napolitana" in legal(result) and result["next"]["seat"] == 1
    ok(more(r, *keep_all(0, "2c"), "0 napolitana"))


@pytest.mark.parametrize("given,undealt,exchange,qualifies", [
    # Three aces and the quínola, but one of them exchanged away.
    ("1o 1c 1e 10o", "5b 6b 7b", ["1 quedo", "2 cambio 1o", "3 quedo", "0 descarte 2o"], False),
    # Two aces and the quínola; the undealt card taken in is the third ace.
    ("1o 1c 10o", "5b 1e 7b", ["1 quedo", "2 cambio 2c", "3 quedo", "0 descarte 2o"], True),
    # The declined undealt card does not count.
    ("1o 1c 10o", "5b 1e 7b", ["1 quedo", "2 quedo", "3 quedo", "0 descarte 2o"], False),
    # Four aces without the quínola, and four aces with it.
    ("1o 1c 1e 1b", "5b 6b 7b", ["1 quedo", "2 quedo", "3 quedo", "0 descarte 2o"], True),
    ("1o 1c 1e 1b 10o", "5b 6b 7b", ["1 quedo", "2 cambio 1b", "3 quedo", "0 descarte 2o"], True),
    # Three aces and no quínola.
    ("1o 1c 1e", "5b 6b 7b", ["1 quedo", "2 quedo", "3 quedo", "0 descarte 2o"], False),
])
def test_napolitana_is_checked_on_the_11_cards_after_the_exchange(given, undealt, exchange, qualifies):
    r = rec(["2o", "", f"{given} 2c", ""], undealt=undealt)
    record = more(r, *exchange)
    result = ok(record)
    assert ("2 napolitana" in legal(result)) is qualifies
    if qualifies:
        ok(more(record, "2 napolitana"))
    else:
        assert bad(record, "2 napolitana") == (0, "NOT_ALLOWED_NOW")


def test_dealer_discarding_an_ace_loses_the_napolitana():
    r = rec(["1o 1c 1e 1b", "", "", ""], undealt="5b 6b 7b")
    record = more(r, *keep_all(0, "1b"))
    assert "0 napolitana" not in legal(ok(record))
    assert bad(record, "0 napolitana") == (0, "NOT_ALLOWED_NOW")


def test_without_a_declaration_the_qualifying_seat_must_follow():
    # NAP's S2 holds 2c: S1 leads a copas; S2 did not declare and must follow.
    r = rec(["", "3c", "1o 1c 1e 10o 2c", ""], undealt="5b 6b 7b")
    record = more(r, *keep_all(0, r["deal"]["hands"][0].split()[0]), "1 3c")
    assert cards_of(ok(record), 2) == {"1c", "2c"}
    assert bad(record, "2 1o") == (0, "MUST_FOLLOW_SUIT")
    ok(more(record, "2 2c"))


# ---- A4.2, section 0: the revesino ------------------------------------------------------------------------

# S1 wins tricks 1-9 and leads trick 10 with 1o 1c in hand.
SWEEP = build({1: "1o 1c", 2: "2o 2c", 3: "3o 3c", 0: "4o 4c"}, [1] * 9)


def test_revesino_listed_for_the_leader_of_trick_10_who_won_tricks_1_to_9():
    """A4.2: the leader of trick 10 who won tricks 1 to 9 may announce the revesino, then leads."""
    result = ok(SWEEP)
    assert winners(result) == [1] * 9
    assert result["next"]["seat"] == 1
    assert legal(result) == {"1 1o", "1 1c", "1 revesino"}
    result = ok(more(SWEEP, "1 revesino"))
    assert result["revesino"] == {"seat": 1, "outcome": "pending"}
    assert result["next"]["seat"] == 1  # he announces, then leads
    assert legal(result) == {"1 1o", "1 1c"}
    assert bad(SWEEP, "1 revesino", "1 revesino") == (1, "NOT_ALLOWED_NOW")


def test_a4_2_the_announcement_is_an_event_of_the_announcer():
    record = more(SWEEP, "1 revesino")
    assert ok(record)["events"][-1] == {"kind": "revesino", "seat": 1, "text": "seat 1 announces a revesino: he will take tricks 10 and 11",
                                        "action": len(record["actions"]) - 1}


def test_revesino_won():
    result = ok(more(SWEEP, "1 revesino", "1 1o", "2 2o", "3 3o", "0 4o"))
    assert not result["finished"] and result["revesino"]["outcome"] == "pending"
    result = ok(more(SWEEP, "1 revesino", "1 1o", "2 2o", "3 3o", "0 4o", "1 1c", "2 2c", "3 3c", "0 4c"))
    assert result["finished"] and winners(result) == [1] * 11
    assert result["revesino"]["seat"] == 1 and result["revesino"]["outcome"] == "won"
    assert result["revesino"].get("cutter") is None


def test_revesino_not_before_trick_10():
    r = build({1: "1o 1c 1e", 2: "2o 2c 2e", 3: "3o 3c 3e", 0: "4o 4c 4e"}, [1] * 8)
    assert "1 revesino" not in legal(ok(r))
    assert bad(r, "1 revesino") == (0, "NOT_ALLOWED_NOW")
    for k in range(0, len(r["actions"]), 7):
        record = upto(r, k)
        seat = ok(record)["next"]["seat"]
        assert bad(record, f"{seat} revesino") == (0, "NOT_ALLOWED_NOW")


def test_revesino_not_after_the_lead_to_trick_10():
    assert bad(SWEEP, "1 1o", "1 revesino") == (1, "NOT_YOUR_TURN")
    record = more(SWEEP, "1 1o", "2 2o", "3 3o", "0 4o")
    assert legal(ok(record)) == {"1 1c"}
    assert bad(record, "1 revesino") == (0, "NOT_ALLOWED_NOW")


def test_revesino_not_without_all_of_tricks_1_to_9():
    r = build({1: "1o 1c", 2: "2o 2c", 3: "3o 3c", 0: "4o 4c"}, [2] + [1] * 8)
    result = ok(r)
    assert result["next"]["seat"] == 1 and winners(result)[0] == 2
    assert legal(result) == {"1 1o", "1 1c"}
    assert bad(r, "1 revesino") == (0, "NOT_ALLOWED_NOW")


def test_revesino_by_another_seat_is_not_its_turn():
    for seat in (0, 2, 3):
        assert bad(SWEEP, f"{seat} revesino") == (0, "NOT_YOUR_TURN")


def test_revesino_cut_in_trick_10_ends_the_hand():
    r = build({1: "5c 1o", 2: "12c 2o", 3: "3c 3o", 0: "4c 4o"}, [1] * 9)
    record = more(r, "1 revesino", "1 5c", "2 12c", "3 3c", "0 4c")
    result = ok(record)
    assert result["finished"] and "next" not in result
    assert winners(result) == [1] * 9 + [2] and len(result["tricks"]) == 10
    assert result["revesino"] == {"seat": 1, "outcome": "cut", "cutter": 2}
    assert bad(record, "2 2o") == (0, "NOT_ALLOWED_NOW")  # the hand is over


def test_revesino_cut_with_play_out_after_cut():
    r = build({1: "5c 1o", 2: "12c 2o", 3: "3c 3o", 0: "4c 4o"}, [1] * 9, rules={"playOutAfterCut": True})
    result = ok(more(r, "1 revesino", "1 5c", "2 12c", "3 3c", "0 4c"))
    assert not result["finished"] and result["next"]["seat"] == 2
    assert result["revesino"]["outcome"] == "cut" and result["revesino"]["cutter"] == 2
    assert legal(result) == {"2 2o"}
    result = ok(more(r, "1 revesino", "1 5c", "2 12c", "3 3c", "0 4c", "2 2o", "3 3o", "0 4o", "1 1o"))
    assert result["finished"] and winners(result)[-1] == 1 and len(winners(result)) == 11
    assert result["revesino"] == {"seat": 1, "outcome": "cut", "cutter": 2}


def test_revesino_first_cutter_is_kept_when_trick_11_goes_to_another():
    r = build({1: "5c 2b", 2: "12c 3b", 3: "3c 1b", 0: "4c 4b"}, [1] * 9, rules={"playOutAfterCut": True})
    result = ok(more(r, "1 revesino", "1 5c", "2 12c", "3 3c", "0 4c", "2 3b", "3 1b", "0 4b", "1 2b"))
    assert result["finished"] and winners(result)[-2:] == [2, 3]
    assert result["revesino"] == {"seat": 1, "outcome": "cut", "cutter": 2}
    # One cut: trick 11, won by S3, cuts nothing more.
    assert [(e["seat"], e["trick"]) for e in result["events"] if e["kind"] == "cut"] == [(2, 10)]


def test_revesino_cut_in_trick_11():
    r = build({1: "1o 5c", 2: "2o 12c", 3: "3o 3c", 0: "4o 4c"}, [1] * 9)
    result = ok(more(r, "1 revesino", "1 1o", "2 2o", "3 3o", "0 4o"))
    assert not result["finished"]
    result = ok(more(r, "1 revesino", "1 1o", "2 2o", "3 3o", "0 4o", "1 5c", "2 12c", "3 3c", "0 4c"))
    assert result["finished"] and winners(result) == [1] * 10 + [2]
    assert result["revesino"] == {"seat": 1, "outcome": "cut", "cutter": 2}


def test_unannounced_sweep_plays_all_eleven_tricks():
    result = ok(more(SWEEP, "1 1o", "2 2o", "3 3o", "0 4o", "1 1c", "2 2c", "3 3c", "0 4c"))
    assert result["finished"] and winners(result) == [1] * 11
    assert result.get("revesino") is None


def test_revesino_by_a_seat_other_than_s1():
    # S3 wins trick 1 and every trick after: he leads trick 10.
    r = build({3: "1o 1c", 2: "2o 2c", 1: "3o 3c", 0: "4o 4c"}, [3] * 9)
    result = ok(r)
    assert result["next"]["seat"] == 3 and "3 revesino" in legal(result)


def test_napolitana_cannot_announce_a_revesino_unless_the_option():
    # S1 declares a napolitana (the filler gives him the four aces) and then wins tricks 1-9.
    r = build({1: "12o 12c"}, [1] * 9, aces=True, calls=["1 napolitana"])
    result = ok(r)
    assert result["napolitana"]["seat"] == 1 and winners(result) == [1] * 9
    assert "1 revesino" not in legal(result)
    assert bad(r, "1 revesino") == (0, "NOT_ALLOWED_NOW")
    result = ok(with_rules(r, napolitanaMayAnnounce=True))
    assert "1 revesino" in legal(result)
    ok(more(with_rules(r, napolitanaMayAnnounce=True), "1 revesino"))


def test_a4_2_settle_hand_refuses_a_napolitanas_revesino_unless_the_option():
    """A4.2 (DEFAULT: a napolitana may not announce a revesino; OPTION napolitanaMayAnnounce) in
    SettleHand: S1 declares a napolitana, wins tricks 1-9 and announces under the option; the
    hand settled under the option is the hand played, and refused without it."""
    record = with_rules(build({1: "12o 12c"}, [1] * 9, aces=True, calls=["1 napolitana"]), napolitanaMayAnnounce=True)
    result = ok(play_out(more(record, "1 revesino")))
    assert result["napolitana"] == {"seat": 1, "outcome": "void"} and result["revesino"] == {"seat": 1, "outcome": "won"}
    body = {"tricks": [{"cards": " ".join(t["cards"])} for t in result["tricks"]], "napolitana": 1, "announcer": 1}
    request = {"game": "revesino", "seats": 4, "dealer": 0, "rules": {"napolitanaMayAnnounce": True}, "revesino": body}
    assert api.settle_hand(request)["net"] == result["net"]
    with pytest.raises(InvalidInput) as err:
        api.settle_hand({**request, "rules": {}})
    assert (err.value.code, err.value.field, err.value.message) == (
        "INVALID_FIELD", "revesino.announcer", "a napolitana may not announce a revesino (napolitanaMayAnnounce is off)")


def test_a4_2_settle_hand_refuses_an_announced_hand_that_ends_before_trick_10():
    """A4.2: a revesino is announced after trick 9 and the hand goes on to trick 10 at least (cut
    there, or played to 11). SettleHand refuses an announcer with only nine tricks given."""
    result = ok(play_out(more(SWEEP, "1 revesino")))
    assert result["revesino"] == {"seat": 1, "outcome": "won"}
    tricks = [{"cards": " ".join(t["cards"])} for t in result["tricks"]]
    request = {"game": "revesino", "seats": 4, "dealer": 0, "revesino": {"tricks": tricks, "announcer": 1}}
    assert api.settle_hand(request)["net"] == result["net"]
    for count in (8, 9):
        with pytest.raises(InvalidInput) as err:
            api.settle_hand({**request, "revesino": {"tricks": tricks[:count], "announcer": 1}})
        assert (err.value.code, err.value.field, err.value.message) == (
            "INVALID_FIELD", "revesino.tricks", f"a hand with a revesino announced ends after trick 10 or 11, not {count}")


def test_a4_1_a4_2_a_refused_call_says_which_rule_refuses_it():
    """A4.1 and A4.2 (section 0) through the violation's message: a second napolitana call, a call
    by a seat that does not qualify, and a napolitana's revesino are each refused for their own
    reason."""
    def message(record: dict) -> str:
        return api.validate(record)["violation"]["message"]

    record = more(NAP, *NAP_EXCHANGE)
    n = len(record["actions"])
    assert message(more(record, "2 napolitana", "2 napolitana")).endswith("seat 2 has already declared the napolitana")
    assert message(more(record, "0 napolitana")) == (f"action {n} ('0 napolitana'): seat 0 does not hold three aces and the "
                                                     "quínola, or the four aces: no napolitana")
    r = build({1: "12o 12c"}, [1] * 9, aces=True, calls=["1 napolitana"])
    assert message(more(r, "1 revesino")).endswith("seat 1 plays a napolitana and cannot announce a revesino")
    r = build({1: "12o 12c"}, [1] * 8 + [2])
    assert message(more(r, "2 revesino")).endswith("seat 2 has not won all of tricks 1-9: no revesino")
    implicit = {**record, "rules": {"napolitanaDeclaration": "implicit"}}
    assert message(more(implicit, "2 napolitana")).endswith(
        "under napolitanaDeclaration implicit the napolitana is declared by its first renounce, not called")


def test_a4_2_under_napolitana_may_announce_a_napolitanas_refused_revesino_names_the_tricks_he_lost():
    """A4.2 with ``napolitanaMayAnnounce``: a napolitana may announce a revesino; his call after
    losing one of tricks 1-9 is refused because he did not win them all, not because he plays a
    napolitana (the reason by default)."""
    r = build({1: "12o 12c"}, [1] * 4 + [2] + [1] * 4, aces=True, calls=["1 napolitana"],
              rules={"napolitanaMayAnnounce": True})
    n = len(r["actions"])
    assert api.validate(more(r, "1 revesino"))["violation"] == {
        "action": n, "code": "NOT_ALLOWED_NOW", "message": f"action {n} ('1 revesino'): seat 1 has not won all of tricks 1-9: no revesino"}
    assert api.validate(more({**r, "rules": {}}, "1 revesino"))["violation"]["message"] == (
        f"action {n} ('1 revesino'): seat 1 plays a napolitana and cannot announce a revesino")


def test_a_napolitana_elsewhere_does_not_stop_the_revesino():
    # S2 declares (and renounces his aces); S1 still wins tricks 1-9 and may announce.
    r = build({1: "11o 11c", 2: "2o 2c"}, [1] * 9, calls=["2 napolitana"], renounce={2: "1o 1c 1e 10o"})
    result = ok(r)
    assert result["napolitana"]["seat"] == 2 and "1 revesino" in legal(result)


# ---- FORMAT.md section 6: violation codes ---------------------------------------------------------------


def test_exchange_out_of_order_is_not_your_turn():
    assert violation(more(RV13, "2 quedo")) == (0, "NOT_YOUR_TURN")
    assert violation(more(RV13, "3 cambio 3b")) == (0, "NOT_YOUR_TURN")
    assert violation(more(RV13, "0 descarte 10e")) == (0, "NOT_YOUR_TURN")
    assert violation(more(RV13, "1 quedo", "1 quedo")) == (1, "NOT_YOUR_TURN")
    assert violation(more(RV13, "1 quedo", "3 quedo")) == (1, "NOT_YOUR_TURN")
    assert violation(more(RV13, "1 quedo", "2 quedo", "3 quedo", "1 2o")) == (3, "NOT_YOUR_TURN")


def test_a_card_during_the_exchange_is_not_allowed_now():
    assert violation(more(RV13, "1 11o")) == (0, "NOT_ALLOWED_NOW")
    assert violation(more(RV13, "1 quedo", "2 quedo", "3 quedo", "0 10e")) == (3, "NOT_ALLOWED_NOW")
    assert violation(more(RV13, "2 7o")) == (0, "NOT_YOUR_TURN")  # not his turn comes first


def test_wrong_exchange_call_for_the_seat_is_not_allowed_now():
    dealer_turn = more(RV13, "1 quedo", "2 quedo", "3 quedo")
    assert violation(more(dealer_turn, "0 cambio 10e")) == (3, "NOT_ALLOWED_NOW")
    assert violation(more(dealer_turn, "0 quedo")) == (3, "NOT_ALLOWED_NOW")
    assert violation(more(RV13, "1 descarte 11o")) == (0, "NOT_ALLOWED_NOW")
    # The exchange calls after the exchange.
    after = more(RV13, *RV13_EXCHANGE)
    for call in ("1 quedo", "1 cambio 1c", "1 descarte 1c"):
        assert violation(more(after, call)) == (4, "NOT_ALLOWED_NOW"), call


def test_wrong_exchange_call_with_a_card_not_held_is_not_allowed_now():
    # FORMAT.md's precedence: a call the phase does not accept (for this seat) before CARD_NOT_IN_HAND.
    dealer_turn = more(RV13, "1 quedo", "2 quedo", "3 quedo")
    assert violation(more(dealer_turn, "0 cambio 11o")) == (3, "NOT_ALLOWED_NOW")
    assert violation(more(RV13, "1 descarte 10e")) == (0, "NOT_ALLOWED_NOW")


def test_exchange_with_a_card_not_held():
    assert violation(more(RV13, "1 cambio 10e")) == (0, "CARD_NOT_IN_HAND")
    assert violation(more(RV13, "1 cambio 1c")) == (0, "CARD_NOT_IN_HAND")  # his undealt card is not his yet
    assert violation(more(RV13, "1 quedo", "2 quedo", "3 quedo", "0 descarte 11o")) == (3, "CARD_NOT_IN_HAND")


def test_calls_out_of_place():
    assert violation(more(RV13, "1 revesino")) == (0, "NOT_ALLOWED_NOW")
    assert violation(more(RV13, "1 napolitana")) == (0, "NOT_ALLOWED_NOW")
    assert violation(more(RV13, *RV13_EXCHANGE, "1 revesino")) == (4, "NOT_ALLOWED_NOW")


def test_a3_a4_1_a4_2_an_exchange_call_or_announcement_out_of_place_says_why():
    """A3, A4.1 and A4.2 (section 0) through the violation's message (its code, NOT_ALLOWED_NOW,
    is the tests' above): the dealer's quedo, a quedo after the exchange, a napolitana after the
    first card and a second revesino are each refused for their own reason."""
    def message(record: dict) -> str:
        return api.validate(record)["violation"]["message"]

    dealer_turn = more(RV13, "1 quedo", "2 quedo", "3 quedo")
    assert message(more(dealer_turn, "0 quedo")).endswith("seat 0 deals and must discard one card (descarte <card>)")
    assert message(more(RV13, *RV13_EXCHANGE, "1 quedo")).endswith("the exchange is over: quedo is not allowed now")
    record = more(NAP, *NAP_EXCHANGE)
    first = sorted(cards_of(ok(record), 1))[0]
    assert message(more(record, f"1 {first}", "2 napolitana")).endswith(
        "the napolitana is declared after the exchange and before the first card is led")
    assert message(more(SWEEP, "1 revesino", "1 revesino")).endswith("seat 1 has already announced the revesino")


def test_a3_the_wrong_exchange_call_for_the_seat_says_what_that_seat_does():
    """A3: the dealer discards one card and takes nothing; a seat that does not deal exchanges or
    keeps. The dealer's cambio and another seat's descarte are each refused (NOT_ALLOWED_NOW,
    tested above) with what that seat does instead, whether or not he holds the card named."""
    dealer_turn = more(RV13, "1 quedo", "2 quedo", "3 quedo")
    for action in ("0 cambio 10e", "0 cambio 11o"):
        assert api.validate(more(dealer_turn, action))["violation"]["message"].endswith(
            "seat 0 deals: he discards one card (descarte <card>) and takes nothing"), action
    for action in ("1 descarte 11o", "1 descarte 10e"):
        assert api.validate(more(RV13, action))["violation"]["message"].endswith(
            "seat 1 does not deal: he exchanges (cambio <card>) or keeps (quedo)"), action


def test_a3_a_card_during_the_exchange_says_what_that_seat_does_instead():
    """A3: no card is played before the exchange is over; the refusal (NOT_ALLOWED_NOW, tested
    above) says what the seat to act does: a seat that does not deal exchanges or keeps, the
    dealer discards."""
    assert api.validate(more(RV13, "1 11o"))["violation"]["message"].endswith(
        "no card is played during the exchange: seat 1 says cambio <card> or quedo")
    assert api.validate(more(RV13, "1 quedo", "2 quedo", "3 quedo", "0 10e"))["violation"]["message"].endswith(
        "no card is played during the exchange: seat 0 says descarte <card>")


def test_a3_an_exchange_or_discard_after_the_exchange_says_the_exchange_is_over():
    """A3: each seat exchanges or discards once, before the play. A cambio or a descarte once the
    exchange is over is refused (NOT_ALLOWED_NOW, tested above) for that."""
    after = more(RV13, *RV13_EXCHANGE)
    for action in ("1 cambio 1c", "1 descarte 1c"):
        call = action.split()[1]
        assert api.validate(more(after, action))["violation"]["message"].endswith(
            f"the exchange is over: {call} is not allowed now"), action


def test_a4_2_a_revesino_called_before_trick_9_is_over_is_refused_for_its_timing():
    """A4.2 (section 0): the revesino is announced after trick 9, before the lead to trick 10. Called
    by the leader of trick 3, who won tricks 1 and 2, it is refused for the moment, not for the
    tricks he has won."""
    record = build({1: "12o 12c"}, [1, 1])
    assert ok(record)["next"]["seat"] == 1
    assert bad(record, "1 revesino") == (0, "NOT_ALLOWED_NOW")
    assert api.validate(more(record, "1 revesino"))["violation"]["message"].endswith(
        "a revesino is announced after trick 9, before the lead to trick 10")


def test_a5_must_follow_suit_names_the_suit_led_not_the_last_card_played():
    """A5: a seat that holds the suit led must follow it. The refusal names that suit, its first
    card and the seat's cards of it, though the card played just before his is of another suit
    (a seat void in the suit led)."""
    record = build({1: "7c", 2: "5b", 3: "2c 9c 5e 6b"}, [3, 1], voids={2: "c"})
    before = more(record, "1 7c", "2 5b")
    copas = canon([c for c in hand_of(before, 3) if c.endswith("c")])
    assert "2c" in copas and "9c" in copas
    assert bad(record, "1 7c", "2 5b", "3 5e") == (2, "MUST_FOLLOW_SUIT")
    assert api.validate(more(before, "3 5e"))["violation"]["message"].endswith(
        f"seat 3 holds {copas} of copas, the suit led (7c), and must follow it, not play 5e")


def test_card_not_in_hand_and_must_follow_suit():
    r = build({1: "7c", 2: "3c 9c 1e 5b 10o 2o 6b 7o 8e"}, [3, 1])
    assert bad(r, "1 7c", "2 4c") == (1, "CARD_NOT_IN_HAND")
    assert bad(r, "1 7c", "2 7c") == (1, "CARD_NOT_IN_HAND")  # on the table already
    assert bad(r, "1 7c", "2 5b") == (1, "MUST_FOLLOW_SUIT")
    assert bad(r, "1 3c") == (0, "CARD_NOT_IN_HAND")
    assert bad(r, "2 3c") == (0, "NOT_YOUR_TURN")
    # A card played earlier in the hand is not in the hand any more.
    played = r["actions"][-1]
    seat = ok(r)["next"]["seat"]
    if int(played.split()[0]) == seat:
        assert bad(r, played) == (0, "CARD_NOT_IN_HAND")


@pytest.mark.parametrize("action", ["2 cambio", "2 cambio 1o 2o", "2 quedo 5c", "2 descarte", "2 napolitana 1o",
                                    "2 revesino 3", "2 cambio 13o", "2 cambio 0c", "4 quedo", "-1 quedo", "2", "x quedo",
                                    "2 envite", "2 paso", "2 1o 2o", "2 13c", "2 cambio oros", "", 7, None])
def test_malformed_actions(action):
    at_s2 = more(RV13, "1 quedo")
    assert violation(more(at_s2, action)) == (1, "MALFORMED_ACTION")


def test_malformed_before_any_other_code():
    # Even after the end of the hand, an unreadable action is malformed.
    record = play_out(more(RV13, *RV13_EXCHANGE))
    n = len(record["actions"])
    assert violation(more(record, "2 cambio")) == (n, "MALFORMED_ACTION")
    assert violation(more(record, "2 quedo")) == (n, "NOT_ALLOWED_NOW")
    assert violation(more(record, "1 1o")) == (n, "NOT_ALLOWED_NOW")


def test_actions_are_read_case_and_space_insensitive():
    ok(more(RV13, " 1  CAMBIO  11O ", "2 Quedo"))


@pytest.mark.parametrize("dealer, sizes, field, message", [
    (0, (13, 11, 11, 10), "deal.hands[0]", "deal.hands[0]: seat 0 deals and holds 12 cards, not 13"),
    (0, (12, 12, 11, 10), "deal.hands[1]", "deal.hands[1]: seat 1 does not deal and holds 11 cards, not 12"),
    (2, (11, 11, 11, 12), "deal.hands[2]", "deal.hands[2]: seat 2 deals and holds 12 cards, not 11"),
    (2, (11, 10, 12, 12), "deal.hands[1]", "deal.hands[1]: seat 1 does not deal and holds 11 cards, not 10")])
def test_a3_a_hand_of_the_wrong_size_says_what_that_seat_holds(dealer, sizes, field, message):
    """A3: the dealer holds 12 cards, every other seat 11. A hand of another size is refused by its
    field, saying whether that seat deals and what it holds."""
    cards = list(DECK)
    hands = []
    for n in sizes:
        hands.append(" ".join(cards[:n]))
        cards = cards[n:]
    record = {"game": "revesino", "seats": 4, "dealer": dealer, "deal": {"hands": hands, "stock": " ".join(cards)}, "actions": []}
    with pytest.raises(InvalidInput) as err:
        api.validate(record)
    assert (err.value.code, err.value.field, err.value.message) == ("WRONG_HAND_SIZE", field, message)


@pytest.mark.parametrize("sizes", [(13, 11, 11, 10), (12, 12, 11, 10), (11, 12, 11, 11), (12, 11, 11, 12)])
def test_wrong_hand_sizes_are_invalid_input(sizes):
    cards = list(DECK)
    hands = []
    for n in sizes:
        hands.append(" ".join(cards[:n]))
        cards = cards[n:]
    record = {"game": "revesino", "seats": 4, "dealer": 0, "deal": {"hands": hands, "stock": " ".join(cards)}, "actions": []}
    with pytest.raises(InvalidInput) as err:
        api.validate(record)
    assert err.value.code == "WRONG_HAND_SIZE"


def test_thirteen_cards_in_a_hand():
    good = rec(["", "", "", ""], undealt="5b 6b 7b")
    hands = [h.split() for h in good["deal"]["hands"]]
    hands[2].append(hands[3].pop())
    record = {**good, "deal": {"hands": [" ".join(h) for h in hands], "stock": good["deal"]["stock"]}}
    assert len(hands[2]) == 12
    hands[2].append(hands[1].pop())
    record = {**good, "deal": {"hands": [" ".join(h) for h in hands], "stock": good["deal"]["stock"]}}
    with pytest.raises(InvalidInput) as err:
        api.validate(record)
    assert err.value.code == "WRONG_HAND_SIZE"


@pytest.mark.parametrize("size", [1, 2])
def test_a3_a_stock_of_other_than_three_cards_is_wrong_hand_size(size):
    """A3: the three cards left after the deal are the undealt ones. With every hand of its right
    size, a stock short of them is refused by the stock's own field."""
    good = rec(["", "", "", ""], undealt="5b 6b 7b")
    hands = good["deal"]["hands"]
    stock = good["deal"]["stock"].split()[:size]
    assert [len(h.split()) for h in hands] == [12, 11, 11, 11]
    with pytest.raises(InvalidInput) as err:
        api.validate({**good, "deal": {"hands": hands, "stock": " ".join(stock)}})
    assert (err.value.code, err.value.field) == ("WRONG_HAND_SIZE", "deal.stock")
    assert err.value.message == f"deal.stock holds the 3 undealt cards, not {size}"


def test_r32_only_four_seats():
    for seats in (3, 5):
        with pytest.raises(InvalidInput) as err:
            api.validate({**RV13, "seats": seats})
        assert err.value.code == "INVALID_SEATS"


# ---- options: napolitanaDeclaration implicit (R24) -----------------------------------------------------


IMPLICIT = {"napolitanaDeclaration": "implicit"}


def test_implicit_napolitana_has_no_call():
    r = rec(["", "3c 4c", "1o 1c 1e 10o 2c", ""], undealt="5b 6b 7b", rules=IMPLICIT)
    record = more(r, *keep_all(0, r["deal"]["hands"][0].split()[0]))
    assert not any(a.endswith("napolitana") for a in legal(ok(record)))
    assert bad(record, "2 napolitana") == (0, "NOT_ALLOWED_NOW")
    assert "napolitana" not in ok(record)


def test_implicit_napolitana_first_renounce_declares():
    r = rec(["", "3c 4c", "1o 1c 1e 10o 2c", ""], undealt="5b 6b 7b", rules=IMPLICIT, voids={1: "o"})
    record = more(r, *keep_all(0, r["deal"]["hands"][0].split()[0]), "1 3c")
    result = ok(record)
    assert cards_of(result, 2) == hand_of(record, 2)  # he may renounce
    assert "napolitana" not in result
    result = ok(more(record, "2 1o"))
    assert result["napolitana"] == {"seat": 2, "outcome": "pending"}
    assert kind_of(more(record, "2 1o"), len(record["actions"])) == "placed"
    # Following suit declares nothing.
    result = ok(more(record, "2 2c"))
    assert "napolitana" not in result


def test_implicit_napolitana_other_seats_must_follow():
    r = rec(["", "3c 4c", "1o 1c 1e 10o 2c", "5c"], undealt="5b 6b 7b", rules=IMPLICIT)
    record = more(r, *keep_all(0, r["deal"]["hands"][0].split()[0]), "1 3c", "2 1o")
    assert cards_of(ok(record), 3) == {c for c in hand_of(record, 3) if c.endswith("c")}
    non_copas = sorted(c for c in hand_of(record, 3) if not c.endswith("c"))[0]
    assert bad(record, f"3 {non_copas}") == (0, "MUST_FOLLOW_SUIT")


def test_implicit_napolitana_keeps_renouncing_until_trick_9_and_follows_after():
    # The implicit napolitana S2 renounces 1o in trick 1; in trick 5 he may still renounce.
    r = build({1: "7c", 2: "3c 9c 1e 5b 1c 10o 4b"}, [1, 3, 0, 1], renounce={2: "1o"}, rules=IMPLICIT)
    result = ok(r)
    assert result["napolitana"]["seat"] == 2
    result = ok(more(r, "1 7c"))
    assert cards_of(result, 2) == {"3c", "9c", "1e", "5b", "1c", "10o", "4b"}
    # Trick 10: he follows.
    r = build({1: "7c 2e", 2: "9c 5b", 3: "2c 3e", 0: "4c 4e"}, [1, 1, 3, 0, 1, 3, 0, 3, 1],
              renounce={2: "1o 1c 1e 10o"}, rules=IMPLICIT)
    assert ok(r)["napolitana"]["seat"] == 2
    assert cards_of(ok(more(r, "1 7c")), 2) == {"9c"}


# ---- options: allowRevokes (R28), peekBeforeExchange (R6) ---------------------------------------------------


def test_allow_revokes_accepts_and_marks_a_revoke():
    r = build({1: "7c", 2: "3c 9c 1e 5b 10o 2o 6b 7o 8e"}, [3, 1], rules={"allowRevokes": True})
    result = ok(more(r, "1 7c"))
    assert cards_of(result, 2) == {"3c", "9c", "1e", "5b", "10o", "2o", "6b", "7o", "8e"}
    n = len(r["actions"]) + 1
    result = ok(more(r, "1 7c", "2 5b"))
    revokes = [e for e in result["events"] if e["kind"] == "renuncio"]
    assert [(e["seat"], e["action"]) for e in revokes] == [(2, n)]
    # Following suit, or renouncing when void, is no revoke.
    result = ok(more(r, "1 7c", "2 3c"))
    assert not [e for e in result["events"] if e["kind"] == "renuncio"]
    # Default: no revoke is accepted.
    assert bad(with_rules(r, allowRevokes=False), "1 7c", "2 5b") == (1, "MUST_FOLLOW_SUIT")


def test_allow_revokes_a_napolitana_renounce_is_no_revoke():
    r = build({1: "7c", 2: "3c 9c 1e 5b 1o 1c 10o"}, [3, 0, 3, 1], calls=["2 napolitana"], rules={"allowRevokes": True})
    result = ok(more(r, "1 7c", "2 1e"))
    assert not [e for e in result["events"] if e["kind"] == "renuncio"]


def test_a6_8_a_napolitanas_card_off_suit_in_trick_10_is_a_revoke():
    """A4.1 and A6.8 (``allowRevokes``): the napolitana's renounces are exempt in tricks 1-9 only;
    in trick 10 he must follow suit like everybody else, so 5b on 4c while he holds 7c is a
    renuncio (2 into the fondo), and his four renounces in tricks 1-4 were none."""
    r = build({1: "4c 2e", 2: "7c 5b", 3: "3c 8e", 0: "6c 9e"}, [1, 3, 1, 3, 1, 3, 1, 3, 1], calls=["2 napolitana"],
              renounce={2: "1o 1c 1e 10o"}, rules={"allowRevokes": True})
    n = len(r["actions"]) + 1
    result = ok(more(r, "1 4c", "2 5b", "3 3c", "0 6c", "0 9e", "1 2e", "2 7c", "3 8e"))
    assert [(e["seat"], e["card"], e["action"]) for e in result["events"] if e["kind"] == "renuncio"] == [(2, "5b", n)]
    assert moves(result, 10) == [("seat 2", "fondo", 2)]


def test_allow_revokes_still_requires_the_card_in_hand_and_the_turn():
    r = build({1: "7c", 2: "3c 9c 1e 5b 10o 2o 6b 7o 8e"}, [3, 1], rules={"allowRevokes": True})
    assert bad(r, "1 7c", "2 4c") == (1, "CARD_NOT_IN_HAND")
    assert bad(r, "1 7c", "3 5b") == (1, "NOT_YOUR_TURN")


def test_blind_exchange_by_default():
    assert "undealtCard" not in view(RV13, 1)
    assert view(more(RV13, "1 cambio 11o"), 1)["undealtCard"] == "1c"
    assert view(more(RV13, "1 quedo"), 1)["undealtCard"] == "1c"  # he may look at the card he leaves
    assert "undealtCard" not in view(more(RV13, "1 quedo"), 2)
    assert view(more(RV13, "1 quedo", "2 quedo"), 2)["undealtCard"] == "4e"
    for seat in range(4):
        assert "undealtCard" not in view(RV13, seat)
    # The dealer has no undealt card.
    assert "undealtCard" not in view(more(RV13, *RV13_EXCHANGE), 0)


def test_peek_before_exchange():
    r = with_rules(RV13, peekBeforeExchange=True)
    assert view(r, 1)["undealtCard"] == "1c"
    assert view(more(r, "1 cambio 11o"), 2)["undealtCard"] == "4e"
    assert view(more(r, "1 cambio 11o", "2 quedo"), 3)["undealtCard"] == "12b"
    assert "undealtCard" not in view(r, 0)
    # Still nobody else's.
    assert "1c" not in cards_in(view(r, 2)) and "4e" not in cards_in(view(r, 1))


# ---- hidden information (STYLE.md 13) -----------------------------------------------------------------------


def _forbidden(record: dict, seat: int) -> set[str]:
    """Cards seat ``seat`` may not see at this point: others' hands, others' undealt cards and
    discards (the four cards out of play except his own)."""
    dealer = record["dealer"]
    hands = [set(h.split()) for h in record["deal"]["hands"]]
    undealt = record["deal"]["stock"].split()
    own = undealt[(seat - dealer - 1) % 4] if seat != dealer else None
    mine = hands[seat] | ({own} if own else set())
    played: set[str] = set()
    for a in record["actions"]:
        parts = a.split()
        if len(parts) == 2 and parts[1][0].isdigit():
            played.add(parts[1])
    # Everything dealt or undealt that is not his, minus what has been played openly.
    return (set(DECK) - mine) - played


def test_a_view_never_shows_other_seats_cards():
    record = play_out(more(RV13, *RV13_EXCHANGE))
    for n in list(range(0, 6)) + list(range(6, len(record["actions"]) + 1, 5)):
        partial = upto(record, n)
        for seat in range(4):
            out = api.legal_actions(partial, seat)
            seen = cards_in({k: v for k, v in out["view"].items() if k != "tricks"})
            seen |= cards_in(out["legal"]) | cards_in(out["actions"])
            leak = seen & _forbidden(partial, seat)
            assert not leak, (n, seat, leak)


def test_a_view_shows_own_hand_undealt_card_and_discard_only():
    record = more(RV13, *RV13_EXCHANGE)
    v1, v2, v3, v0 = (view(record, s) for s in (1, 2, 3, 0))
    assert v1["undealtCard"] == "1c" and v1["discarded"] == "11o"
    assert v2["undealtCard"] == "4e" and "discarded" not in v2
    assert v3["undealtCard"] == "12b" and v3["discarded"] == "3b"
    assert v0["discarded"] == "10e" and "undealtCard" not in v0
    for v, seat in ((v1, 1), (v2, 2), (v3, 3), (v0, 0)):
        others = {"11o", "4e", "3b", "10e", "1c", "12b"} - {v.get("undealtCard"), v.get("discarded")} - set(v["hand"].split())
        assert not cards_in(v) & others, seat
    # The view of seat None (no seat) shows no hand at all.
    public = api.legal_actions(record)["view"]
    assert "hand" not in public and not cards_in({k: v for k, v in public.items() if k != "tricks"})


def test_hand_in_view_is_canonical():
    record = more(RV13, *RV13_EXCHANGE)
    for seat in range(4):
        h = view(record, seat)["hand"]
        assert h == canon(h)
