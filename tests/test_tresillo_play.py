"""The worked examples of rules/tresillo.md section 10 that concern play: TR-1 ... TR-6 and TR-14,
as hand records in card notation.

Dealer 0 at 4 seats unless stated, so the spec's Sn is seat n: mano 1, medio 2, postre 3, and
seat 0 is the alcalde. Favour suit bastos (the default) unless stated.
"""

from __future__ import annotations

import pytest
from results_support import cards_of, legal, ok, violation, winners
from tresillo_support import DECK, LETTER, STD, build, filler_winners, flat, is_trump, more, opening, rec, trick7

from engine import api

SOLOS = {"solo oros", "solo copas", "solo espadas", "solo bastos"}
ENTRADAS = {"entrada oros", "entrada copas", "entrada espadas", "entrada bastos"}


def at(seat: int, calls: set[str]) -> set[str]:
    return {f"{seat} {c}" for c in calls}


# ---- TR-1: the medio reaches the vuelta level --------------------------------------------------


def test_tr01_auction_medio_reaches_vuelta():
    """TR-1, with the level and holder the example writes after each voice (L1, S1 · L2, S2 · L2, S2
    · L2, S1 · L3, S2): S2 is the Jugador at level 3."""
    voices = ["1 juego", "2 mas", "3 paso", "1 mas", "2 mas", "1 paso"]
    levels = [(1, 1), (2, 2), (2, 2), (2, 1), (3, 2)]  # (level, holder) after voices 1..5
    for n, (level, holder) in enumerate(levels, start=1):
        result = ok(rec(STD, voices[:n]))
        assert (result["phase"], result["level"], result["holder"]) == ("auction", level, holder), voices[:n]
    # Who may say what at each step: the mano equalises, the others raise by one.
    steps = [at(1, {"paso", "juego"}), at(2, {"paso", "mas"}), at(3, {"paso", "mas"}), at(1, {"paso", "mas"}),
             at(2, {"paso", "mas"}), at(1, {"paso", "mas"})]
    for n, expected in enumerate(steps):
        result = ok(rec(STD, voices[:n]))
        assert legal(result) == expected, (n, voices[:n])
        assert result["next"]["seat"] == int(voices[n][0])
    result = ok(rec(STD, voices))
    assert result["next"]["seat"] == 2
    assert (result["phase"], result["level"], result["jugador"]) == ("declare", 3, 2)
    # Level 3: the vuelta or any solo; no entrada, not even a favour one.
    assert legal(result) == at(2, {"vuelta"} | SOLOS)
    assert violation(rec(STD, [*voices, "2 entrada oros"])) == (6, "NOT_ALLOWED_NOW")
    assert violation(rec(STD, [*voices, "2 entrada bastos"])) == (6, "NOT_ALLOWED_NOW")
    ok(rec(STD, [*voices, "2 vuelta"]))
    ok(rec(STD, [*voices, "2 solo copas"]))


# ---- TR-2: the mano holds to the top -------------------------------------------------------------


def test_tr02_auction_mano_holds_to_the_top():
    voices = ["1 juego", "2 mas", "3 mas", "1 mas", "2 mas", "3 paso", "1 mas", "2 mas", "1 mas"]
    for n in range(len(voices)):
        ok(rec(STD, voices[:n + 1]))
    result = ok(rec(STD, voices))
    assert result["next"]["seat"] == 2
    assert legal(result) == {"2 paso"}  # level 5 held by the mano: the medio can only pass
    assert violation(rec(STD, [*voices, "2 mas"])) == (9, "NOT_ALLOWED_NOW")
    result = ok(rec(STD, [*voices, "2 paso"]))
    assert result["next"]["seat"] == 1
    assert legal(result) == {"1 solo bastos"}  # level 5 = solo in the favour suit, nothing else
    assert violation(rec(STD, [*voices, "2 paso", "1 solo oros"])) == (10, "NOT_ALLOWED_NOW")
    assert violation(rec(STD, [*voices, "2 paso", "1 vuelta"])) == (10, "NOT_ALLOWED_NOW")


def test_tr02_mano_equalises_at_every_level():
    # After S3's más (3) the mano's más keeps level 3: the medio's next más is 4, not 5.
    voices = ["1 juego", "2 mas", "3 mas", "1 mas", "2 mas", "3 paso", "1 paso"]
    result = ok(rec(STD, voices))
    assert result["next"]["seat"] == 2
    assert legal(result) == at(2, SOLOS)  # level 4: any solo (bastos a favor is higher still)


# ---- TR-3: the annulled hand -------------------------------------------------------------------


def test_tr03_all_pass_annulled():
    record = rec(STD, ["1 paso", "2 paso", "3 paso"])
    result = ok(record)
    assert result["finished"] is True
    assert "next" not in result
    assert result["tricks"] == []
    assert result["net"] == [-5, 0, 0, 0]  # only the dealer's 5 moves, into the plate
    assert result["table"] == {"plate": 5, "plateHolds": "none", "cartulina": []}
    assert result["nextDealer"] == 1  # the deal passes: S1 deals the next hand, and S2 is its mano
    assert ok({**record, "dealer": 1, "deal": {"hands": [STD[3], "", STD[1], STD[2]], "stock": record["deal"]["stock"]},
               "actions": []})["next"]["seat"] == 2
    # Nothing is legal after the end, whoever acts (the alcalde too).
    for late in ("1 juego", "2 paso", "0 juego", "1 1e"):
        assert violation(more(record, late)) == (3, "NOT_ALLOWED_NOW")


def test_tr03_annulled_hand_keeps_the_plate_kind():
    table = {"plate": 30, "plateHolds": "primera", "cartulina": [{"seat": 2, "amount": 25}]}
    result = ok(rec(STD, ["1 paso", "2 paso", "3 paso"], table=table))
    assert result["net"] == [-5, 0, 0, 0]
    assert result["table"] == {"plate": 35, "plateHolds": "primera", "cartulina": [{"seat": 2, "amount": 25}]}


def test_tr03_annulled_at_three_seats():
    hands = ["1e 7o 1b 1o 12o 11o 3c 4e 5b", "2o 3o 4o 12c 11c 10c 12e 11e 12b", "5o 6o 1c 2c 10e 7e 2b 3b 11b"]
    # Dealer 1: mano 2, medio 0, postre 1 (the dealer plays).
    assert ok(rec(hands, dealer=1))["next"]["seat"] == 2
    result = ok(rec(hands, ["2 paso", "0 paso", "1 paso"], dealer=1))
    assert result["finished"] and result["net"] == [0, -5, 0]


# ---- TR-4: the late opener and the 3-level ladder --------------------------------------------------


def test_tr04_no_favour_suit_three_levels():
    rules = {"favorSuit": "none"}
    voices = ["1 paso", "2 juego", "3 mas", "2 mas"]
    result = ok(rec(STD, voices, rules=rules))
    assert legal(result) == {"3 paso"}  # level 3 is the top without a favour suit
    result = ok(rec(STD, [*voices, "3 paso"], rules=rules))
    assert result["next"]["seat"] == 2
    assert legal(result) == at(2, SOLOS)  # must play a solo, in any suit
    # At level 2 (the vuelta level without a favour suit) no entrada is left.
    result = ok(rec(STD, ["1 paso", "2 juego", "3 mas", "2 paso"], rules=rules))
    assert legal(result) == at(3, {"vuelta"} | SOLOS)


def test_tr04_same_voices_with_bastos_favour():
    voices = ["1 paso", "2 juego", "3 mas", "2 mas"]
    result = ok(rec(STD, voices))
    assert legal(result) == {"3 paso", "3 mas"}  # level 3 of 5: the postre may still raise
    result = ok(rec(STD, [*voices, "3 paso"]))
    assert result["next"]["seat"] == 2
    assert legal(result) == at(2, {"vuelta"} | SOLOS)  # level 3: vuelta or higher
    # Level 2 with a favour suit is the entrada a favor.
    result = ok(rec(STD, ["1 paso", "2 juego", "3 mas", "2 paso"]))
    assert legal(result) == at(3, {"entrada bastos", "vuelta"} | SOLOS)


# ---- TR-5: legal moves --------------------------------------------------------------------------


# row: (T, leader of trick 7, trick so far, seat to move, hand, {rules name: legal})
TR5 = {
    "a": ("o", 1, ["1 5o"], 2, "1e 3c 12b", {"default": "1e 3c 12b"}),
    "b": ("o", 1, ["1 1e"], 2, "7o 3c 12b", {"default": "7o"}),
    "c": ("o", 1, ["1 1e"], 2, "7o 4o 3c", {"default": "7o 4o"}),
    "d": ("o", 1, ["1 12o"], 2, "7o 1b 3c", {"default": "7o 1b 3c"}),
    "e": ("o", 1, ["1 7o"], 2, "1e 1b 2c", {"default": "1e 1b 2c", "multiMatadorRenege=false": "1e 1b"}),
    "f": ("o", 1, ["1 1b"], 2, "1e 5c", {"default": "1e 5c"}),
    "g": ("c", 1, ["1 5e"], 2, "1e 7e 3o", {"default": "7e"}),
    "h": ("c", 1, ["1 5e"], 2, "1e 3o", {"default": "1e 3o"}),
    "i": ("b", 1, ["1 1b"], 2, "2b 1e 4o", {"default": "2b 1e 4o"}),
    "j": ("o", 1, ["1 4o", "2 1e"], 3, "7o 3c", {"default": "7o 3c"}),
    "k": ("o", 3, ["3 1e"], 1, "7o 3c", {"default": "7o 3c", "matadorForcing=trickLeader": "7o"}),
    "l": ("o", 1, ["1 1e"], 2, "7o 1b 3c", {"default": "7o 1b 3c", "multiMatadorRenege=false": "7o 1b"}),
}
OPTION = {"default": {}, "multiMatadorRenege=false": {"multiMatadorRenege": False},
          "matadorForcing=trickLeader": {"matadorForcing": "trickLeader"}}


@pytest.mark.parametrize("row,rules_name", [(r, n) for r, spec in TR5.items() for n in spec[5]])
def test_tr05_legal_moves(row: str, rules_name: str):
    trump, lead, before, to_move, hand, expected = TR5[row]
    # The hand has exactly the row's cards (the remaining tricks are played out behind them).
    hand_cards = hand.split()
    result = ok(trick7(trump, lead, before, to_move, hand, OPTION[rules_name]))
    assert winners(result) == filler_winners(lead, 9 - len(hand_cards))
    assert result["tricks"][-1]["leader"] == lead
    assert result["tricks"][-1]["cards"] == [a.split()[1] for a in before]
    assert result["next"]["seat"] == to_move
    assert cards_of(result, to_move) == set(expected[rules_name].split())
    assert cards_of(result, to_move) <= set(hand_cards)
    assert legal(result) == {f"{to_move} {c}" for c in expected[rules_name].split()}  # a solo: no rindo


def test_tr05_default_and_options_also_as_violations():
    def code(record: dict, action: str) -> str:
        index, code = violation(more(record, action))
        assert index == len(record["actions"])
        return code

    # b: the lone mala on the espada led by the mano is forced.
    record = trick7("o", 1, ["1 1e"], 2, "7o 3c 12b")
    assert code(record, "2 3c") == "MUST_PLAY_TRUMP"
    assert code(record, "2 12b") == "MUST_PLAY_TRUMP"
    assert code(record, "2 5c") == "CARD_NOT_IN_HAND"
    # c: any trump, but a trump.
    record = trick7("o", 1, ["1 1e"], 2, "7o 4o 3c")
    ok(more(record, "2 4o"))
    ok(more(record, "2 7o"))
    assert code(record, "2 3c") == "MUST_PLAY_TRUMP"
    # g: a plain suit led is followed.
    assert code(trick7("c", 1, ["1 5e"], 2, "1e 7e 3o"), "2 3o") == "MUST_FOLLOW_SUIT"
    # k with trickLeader: the postre's espada forces the lone mala too.
    record = trick7("o", 3, ["3 1e"], 1, "7o 3c", {"matadorForcing": "trickLeader"})
    assert code(record, "1 3c") == "MUST_PLAY_TRUMP"
    ok(more(trick7("o", 3, ["3 1e"], 1, "7o 3c"), "1 3c"))
    # l with multiMatadorRenege=false: one of the two matadores.
    record = trick7("o", 1, ["1 1e"], 2, "7o 1b 3c", {"multiMatadorRenege": False})
    assert code(record, "2 3c") == "MUST_PLAY_TRUMP"
    ok(more(record, "2 1b"))
    # Out of turn the card is the wrong seat's, whatever it is.
    assert code(record, "3 3c") == "NOT_YOUR_TURN"


# ---- TR-6: trick winners --------------------------------------------------------------------------


TR6 = [
    ("bastos", "12e 1e 2e", "1e"),
    ("oros", "1c 12c 7c", "12c"),
    ("copas", "2c 1c 1b", "1b"),
    ("espadas", "3e 2e 12e", "2e"),
    ("oros", "7e 2e 12b", "7e"),
    ("oros", "6o 2o 12c", "2o"),
    ("oros", "12b 1e 7b", "1e"),
    ("espadas", "1o 10o 12o", "12o"),
]


@pytest.mark.parametrize("trump,cards,winner", TR6)
def test_tr06_resolve_trick(trump: str, cards: str, winner: str):
    index = cards.split().index(winner)
    out = api.resolve_trick({"game": "tresillo", "seats": 3, "leader": 0, "contract": {"trump": trump}, "cards": cards})
    assert (out["winnerIndex"], out["winner"], out["card"]) == (index, index, winner)
    # At four seats the dealer (the alcalde) plays no card: dealer 0, leader 2 -> seats 2, 3, 1.
    out = api.resolve_trick({"game": "tresillo", "seats": 4, "dealer": 0, "leader": 2, "contract": {"trump": trump}, "cards": cards})
    assert (out["winnerIndex"], out["winner"]) == (index, (2, 3, 1)[index])


def test_tr06_resolve_trick_event_says_whether_a_trump_or_the_suit_led_won():
    """6 / 1.4: a trick is won by its highest trump (the espada and the basto are trumps under every
    suit), else by the highest card of the suit led; the trick event says which."""
    for trump, cards, how in (("bastos", "12e 1e 2e", "trump"), ("copas", "2c 1c 1b", "trump"),
                              ("oros", "12b 1e 7b", "trump"), ("oros", "6o 2o 12c", "trump"),
                              ("oros", "1c 12c 7c", "highest copas, the suit led"),
                              ("espadas", "1o 10o 12o", "highest oros, the suit led")):
        winner = next(w for t, c, w in TR6 if (t, c) == (trump, cards))  # the TR-6 row's winner
        index = cards.split().index(winner)
        out = api.resolve_trick({"game": "tresillo", "seats": 3, "leader": 0, "contract": {"trump": trump}, "cards": cards})
        assert out["events"] == [{"kind": "trick", "card": winner, "seat": index,
                                  "text": f"seat {index} wins with {winner} ({how})"}], (trump, cards)


def one_trick(trump: str, cards: str) -> dict:
    """A solo of the mano (seat 1) in ``trump`` whose first trick is ``cards`` (seats 1, 2, 3):
    the followers hold nothing of the suit led and no trump, so each card is legal."""
    t = LETTER[trump]
    played = cards.split()

    def eff(card: str) -> str:
        return "T" if is_trump(card, t) else card[-1]

    led = eff(played[0])
    free = [c for c in DECK if c not in played and eff(c) not in (led, "T")]
    hands = ["", "", " ".join([played[1], *free[:8]]), " ".join([played[2], *free[8:16]])]
    rest = [c for c in DECK if c not in played and c not in free[:16]]
    hands[1] = " ".join([played[0], *rest[:8]])
    plays = [f"{s} {c}" for s, c in zip((1, 2, 3), played, strict=True)]
    return rec(hands, [*opening(1, f"solo {trump}"), *plays])


@pytest.mark.parametrize("trump,cards,winner", TR6)
def test_tr06_in_played_records(trump: str, cards: str, winner: str):
    result = ok(one_trick(trump, cards))
    assert result["tricks"][0]["leader"] == 1
    assert result["tricks"][0]["cards"] == cards.split()
    seat = 1 + cards.split().index(winner)
    assert winners(result) == [seat]
    assert result["next"]["seat"] == seat  # the winner leads the next trick


# ---- TR-14: surrender timing ------------------------------------------------------------------------


def tr14() -> tuple[dict, int]:
    """Entrada in oros by the postre (seat 3); the mano wins tricks 1-3, the Jugador trick 4.
    Returns the record up to the Jugador's card to trick 4 (not played) and its length."""
    hands, tricks = build("o", {}, [1, 1, 1, 3])
    actions = [*opening(3, "entrada oros"), *flat(tricks)]
    return rec(hands, actions[:-1]), len(actions) - 1


def test_tr14_surrender_until_the_jugadors_fourth_card():
    record, n = tr14()
    result = ok(record)
    # Trick 4 led by the mano, the medio has played, the Jugador is to play: he may still surrender.
    assert result["tricks"][-1]["leader"] == 1 and len(result["tricks"][-1]["cards"]) == 2
    assert result["next"]["seat"] == 3
    assert "3 rindo" in legal(result)
    surrendered = ok(more(record, "3 rindo"))
    assert surrendered["finished"] is False
    assert surrendered["next"]["seat"] == 1  # the first opponent after the Jugador answers
    assert legal(surrendered) == {"1 bien", "1 defiendo"}
    # After his 4th card, no longer: he won trick 4 and leads, and rindo is not among his actions.
    full = build("o", {}, [1, 1, 1, 3])
    played = more(record, full[1][3][2])
    result = ok(played)
    assert winners(result) == [1, 1, 1, 3]
    assert result["next"]["seat"] == 3
    assert "3 rindo" not in legal(result)
    assert violation(more(played, "3 rindo")) == (n + 1, "NOT_ALLOWED_NOW")


def test_tr14_surrender_possible_earlier_in_and_out_of_turn():
    record, n = tr14()
    start = len(opening(3, "entrada oros"))
    for k in range(start, n + 1):  # before the first lead and at every card of tricks 1-4 up to his 4th
        part = {**record, "actions": record["actions"][:k]}
        result = ok(part)
        assert "3 rindo" in legal(result), k
        assert ok(more(part, "3 rindo"))["next"]["seat"] == 1
    # Before the last exchange it is not yet possible.
    assert violation({**record, "actions": [*record["actions"][:start - 1], "3 rindo"]}) == (start - 1, "NOT_ALLOWED_NOW")


def test_section_6_the_trick_tables_decide_as_the_strength_rule():
    """Section 6 as one pure function (``tresillo.strength``: the lowest trump rank wins, else the
    best card of the suit led) and the precomputed tables the play decides tricks by
    (``trick_winner_index``, as ResolveTrick and ValidateHand use it) name the same winner: every
    trick of 20,000 random ones of one to three cards, under each trump."""
    import random

    from engine import tresillo
    from engine.cards import SUIT_BY_WORD, Card
    from engine.tricks import winning_index

    rng = random.Random(6)
    cards = [Card.parse(code) for code in DECK]
    for _ in range(20_000):
        trump = SUIT_BY_WORD[rng.choice(["oros", "copas", "espadas", "bastos"])]
        trick = rng.sample(cards, rng.randint(1, 3))
        by_rule = winning_index(trick, lambda c, led, trump=trump: tresillo.strength(c, led, trump))
        assert tresillo.trick_winner_index(trick, trump) == by_rule, (trick, trump)
