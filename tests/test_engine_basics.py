"""Engine basics: card notation, decks, invalid input, the violation precedence of FORMAT.md
section 6, seeded deals (docs/deal.md), ResolveTrick and SettleHand, and the engine's isolation.
"""

from __future__ import annotations

import copy
import dataclasses
import hashlib
import json
import pickle
import random
import re
from pathlib import Path
from typing import Any

import pytest
from rentoy_support import DEAL_A, PLAY_A, rec
from results_support import ok, violation
from service_support import UNARY_CALLS, engine_answer
from tresillo_support import STD
from tresillo_support import rec as tresillo_rec

from engine import api, shuffle
from engine.cards import DECK_40, DECK_48, Card, Suit
from engine.errors import INPUT_CODES, VIOLATION_CODES, InvalidInput, NaipesError

ENGINE = Path(__file__).resolve().parent.parent / "engine"


def invalid(request_or_call, *args) -> InvalidInput:
    """The InvalidInput raised by validate(request) (or by call(*args))."""
    with pytest.raises(InvalidInput) as err:
        if callable(request_or_call):
            request_or_call(*args)
        else:
            api.validate(request_or_call)
    assert err.value.code in INPUT_CODES
    assert str(err.value) == err.value.message
    return err.value


# ---- cards and decks --------------------------------------------------------------------------


def test_card_parse_and_print():
    card = Card.parse("10o")
    assert card is Card.of(10, Suit.OROS) and card == Card.of(10, Suit.OROS)
    assert str(card) == "10o"
    assert card.name == "sota de oros"
    assert str(Card.parse("1e")) == "1e" and Card.parse("1e").name == "as de espadas"
    assert Card.parse("12C") == Card.of(12, Suit.COPAS)  # input may be upper case; output is canonical
    assert eval(repr(card)) == card  # noqa: S307 - the repr pastes back into Python
    assert pickle.loads(pickle.dumps(card)) is card  # noqa: S301 - one object per card, unpickled too
    assert copy.copy(card) is card and copy.deepcopy([card])[0] is card


def test_a_card_is_looked_up_never_made():
    """One object per card of the pack: a card is found with ``Card.of`` or ``Card.parse``, and
    making another is refused (cards compare by identity)."""
    with pytest.raises(TypeError, match="cards are not made but looked up"):
        Card(1, Suit.OROS)
    assert Card.of(1, Suit.OROS) is Card.parse("1o")


def test_every_card_round_trips():
    for card in DECK_48.cards:
        assert Card.parse(str(card)) == card
    assert len({str(c) for c in DECK_48.cards}) == 48
    assert len({c.name for c in DECK_48.cards}) == 48 and Card.parse("7b").name == "siete de bastos"


@pytest.mark.parametrize("text", ["13o", "0o", "1x", "", "10", "o10", "1 o", "01o", "1oo", "-1o"])
def test_not_a_card(text):
    with pytest.raises(ValueError):
        Card.parse(text)


def test_cards_in_order_are_distinct():
    from engine.cards import in_order, sorted_cards

    hand = (Card.parse("12b"), Card.parse("1e"), Card.parse("7o"))
    assert [str(c) for c in in_order(hand)] == ["7o", "1e", "12b"] == [str(c) for c in sorted_cards(hand)]
    with pytest.raises(ValueError, match="a card given twice: 7o 7o"):
        in_order((hand[2], hand[0], hand[2]))


@pytest.mark.parametrize("rank", [0, 13])
def test_no_card_of_that_rank(rank):
    with pytest.raises(ValueError):
        Card.of(rank, Suit.OROS)


def test_decks():
    assert len(DECK_40) == 40 and len(set(DECK_40.cards)) == 40
    assert len(DECK_48) == 48 and len(set(DECK_48.cards)) == 48
    assert {c.rank for c in DECK_40.cards} == {1, 2, 3, 4, 5, 6, 7, 10, 11, 12}
    assert {c.rank for c in DECK_48.cards} == set(range(1, 13))
    assert Card.parse("8o") in DECK_48 and Card.parse("8o") not in DECK_40
    assert set(DECK_40.cards) < set(DECK_48.cards)
    for suit in Suit:
        assert sum(c.suit is suit for c in DECK_40.cards) == 10
    with pytest.raises(ValueError):
        DECK_40.parse_card("9b")
    err = invalid(DECK_40.parse_cards, "1o 9b", "deal.stock")
    assert (err.code, err.field) == ("UNKNOWN_CARD", "deal.stock")
    assert api.describe_rules("rentoy")["seats"] == [2, 4, 6, 8]


def test_a_list_of_cards_reads_alike_in_every_spelling():
    """parse_cards reads canonical text ("1e 10o") by character codes and any other spelling
    token by token: the same cards either way, and the same errors."""
    rng = random.Random(5)
    for deck in (DECK_40, DECK_48):
        for _ in range(2000):
            cards = tuple(rng.sample(deck.cards, rng.randint(0, 12)))
            codes = [c.code for c in cards]
            canonical = (" " * rng.randint(1, 3)).join(codes)
            other = "\t".join(c.upper() if rng.random() < 0.5 else c for c in codes) + " \n"
            assert deck.parse_cards(canonical, "f") == cards == deck.parse_cards(other, "f")
            assert deck._canonical(canonical) == cards  # by character codes, not token by token
            assert deck.parse_cards(f" {canonical} ", "f") == cards
    bad = ("1o 13o", "1o 01o", "1oo", "1 o", "1o2o", "1o 10", "1o 1", "1o,2o", "1x", "1p", "20o", "31e", "1/o",
           ":o", "1o ;c", "<e", "/b")  # the characters either side of the digits are no rank
    for deck, text in [*((DECK_40, text) for text in (*bad, "8o")), *((DECK_48, text) for text in bad)]:
        err = invalid(deck.parse_cards, text, "deal.hands[1]")
        assert (err.code, err.field) == ("UNKNOWN_CARD", "deal.hands[1]")
        assert err.message.startswith("deal.hands[1]: ")


def test_options_made_from_the_same_rules_are_shared_and_checked_by_type():
    """parse_options keeps the options it made by the rules' names, types and values: the same
    rules give the same (frozen) object; a value equal to an accepted one but of another type
    (1 for true, 1 for 1.0's integer) is still judged on its own, and what raises is not kept."""
    from engine.options import parse_options
    from engine.revesino_options import Options

    made = parse_options(Options, {"napolitanaMayAnnounce": True})
    assert made is parse_options(Options, {"napolitanaMayAnnounce": True})
    assert made.napolitana_may_announce is True and made != Options()
    for bad in (1, [True], {"x": 1}, None):
        err = invalid(parse_options, Options, {"napolitanaMayAnnounce": bad})
        assert (err.code, err.field) == ("INVALID_OPTION_VALUE", "rules.napolitanaMayAnnounce")
    assert parse_options(Options, {"napolitanaMayAnnounce": True}) is made  # still there, unchanged
    bonus = parse_options(Options, {"partyBonus": 4.0})  # a JSON number through protobuf's Struct
    assert bonus.party_bonus == 4 and type(bonus.party_bonus) is int
    assert parse_options(Options, {"partyBonus": 4}) == bonus


@pytest.mark.parametrize("game", sorted(api.GAMES))
def test_option_values_as_the_rules_specs_spell_them(game: str) -> None:
    """docs/format.md: option names in lowerCamelCase "with the values the specs spell". A value
    the Revesino spec writes in snake_case (``tiebreak_order = dealer_then_left``) is the same
    value as its lowerCamelCase (``dealerThenLeft``), which answers write; a snake_case name is
    unknown, and the error gives the name's API spelling."""
    from engine.options import parse_options, snake

    cls = api.GAMES[game].Options
    spelled = 0
    for option in api.describe_rules(game)["options"]:
        for choice in option["choices"]:
            if isinstance(choice, str) and snake(choice) != choice:
                as_spec = parse_options(cls, {option["name"]: snake(choice)})
                assert as_spec == parse_options(cls, {option["name"]: choice})
                spelled += 1
        if snake(option["name"]) != option["name"]:
            err = invalid(parse_options, cls, {snake(option["name"]): option["default"]})
            assert (err.code, err.field) == ("UNKNOWN_OPTION", f"rules.{snake(option['name'])}")
            assert f"(the API writes it {option['name']})" in err.message
    assert spelled > 0 or game == "rentoy"
    if game == "revesino":
        made = parse_options(cls, {"tiebreakOrder": "dealer_then_left", "handPayout": "party_from_each"})
        assert (made.tiebreak_order, made.hand_payout) == ("dealerThenLeft", "partyFromEach")
        err = invalid(parse_options, cls, {"tiebreakOrder": "dealer_then_lef"})
        assert (err.code, err.field) == ("INVALID_OPTION_VALUE", "rules.tiebreakOrder")
        # Only the spec's spelling: not another casing, a doubled or a trailing underscore
        # (clients/js/rules.d.mts types the two spellings, and no other).
        for other in ("dealer_THEN_left", "dealer__then_left", "dealerThenLeft_", "dealer_then_Left"):
            err = invalid(parse_options, cls, {"tiebreakOrder": other})
            assert (err.code, err.field) == ("INVALID_OPTION_VALUE", "rules.tiebreakOrder"), other



@pytest.mark.parametrize("game", sorted(api.GAMES))
def test_a_boolean_option_takes_true_and_false(game: str) -> None:
    """Every option whose default is a boolean is a switch: a record's rules may set it either
    way (the spec's ``[CFG:revealRemainder=false]``, Revesino's R21 ``napolitanaPaysPartyForAll``),
    and DescribeRules offers both values."""
    from engine.options import parse_options, snake

    cls = api.GAMES[game].Options
    switches = [option for option in api.describe_rules(game)["options"] if isinstance(option["default"], bool)]
    assert switches or game == "rentoy"
    for option in switches:
        assert sorted(option["choices"]) == [False, True], option["name"]
        for value in (True, False):
            made = parse_options(cls, {option["name"]: value})
            assert getattr(made, snake(option["name"])) is value


@pytest.mark.parametrize("game", sorted(api.GAMES))
def test_options_cannot_be_changed(game: str) -> None:
    """A game's options are frozen: the options made from the same rules are one shared object."""
    from engine.options import parse_options

    options = parse_options(api.GAMES[game].Options, None)
    for field in dataclasses.fields(options):
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(options, field.name, getattr(options, field.name))

def test_the_action_reader_remembers_what_it_read_within_a_bound():
    """A record's actions are read by lookup (record.ActionReader): an action read once is the
    same object when read again, among others, and the memory is bounded: full, it starts again."""
    from engine.record import ACTION_CACHE_SIZE, ActionReader

    reader = ActionReader(4, DECK_40, {"envite": ""})
    played, called = reader.read("1 2o"), reader.read("2 envite")
    assert reader.read("1 2o") is played and reader.read("2 envite") is called
    for k in range(ACTION_CACHE_SIZE - 2):  # other spellings of one action: the memory is then full
        reader.read("1" + " " * (k + 2) + "2o")
    assert len(reader.known) == ACTION_CACHE_SIZE
    assert str(reader.read(" 1 2o")) == "1 2o"
    assert len(reader.known) == 1


def test_the_options_made_from_rules_are_remembered_within_a_bound():
    """parse_options keeps the options it made by the rules (shared, as they are frozen), up to
    a bound: a table's rules repeat from hand to hand, but a service reads any number of them."""
    from engine import options as options_mod
    from engine.revesino_options import Options

    first = options_mod.parse_options(Options, {"stake": 3})
    second = options_mod.parse_options(Options, {"stake": 4})
    assert options_mod.parse_options(Options, {"stake": 3}) is first
    assert options_mod.parse_options(Options, {"stake": 4}) is second
    for each in range(1, 101):
        for stake in range(1, 11):
            made = options_mod.parse_options(Options, {"revesinoWinEach": each, "stake": stake})
            assert (made.revesino_win_each, made.stake) == (each, stake)
            assert len(options_mod._MADE) <= options_mod._MADE_AT_MOST



def test_an_option_number_is_read_as_json_sent_it():
    """Protobuf's Struct gives every JSON number as a double: an integral one is the integer the
    client wrote (3.0 is 3, in a list too), any other number is no integer option's value, and a
    number beyond a double's exact integers stays the number it became (1e+30, not 31 digits).
    The message lists the allowed values as JSON writes them."""
    from engine.options import parse_options
    from engine.revesino_options import Options

    assert parse_options(Options, {"stake": 3.0}).stake == 3
    for bad, quoted in ((2.5, "2.5"), (1e30, "1e+30"), ([1.0, 2.0], "[1, 2]"), ({"a": 2.0}, '{"a": 2}')):
        err = invalid(parse_options, Options, {"stake": bad})
        assert (err.code, err.field) == ("INVALID_OPTION_VALUE", "rules.stake")
        assert f"cannot be {quoted}; allowed: 1, 2, 3," in err.message
    err = invalid(parse_options, Options, {"napolitanaMayAnnounce": "yes"})
    assert err.message.endswith("cannot be 'yes'; allowed: false, true")
    err = invalid(parse_options, Options, {"napolitanaDeclaration": True})
    assert err.message.endswith("cannot be true; allowed: 'explicit', 'implicit'")


def test_an_unknown_option_is_named_with_the_options_of_the_game():
    """Of several unknown options the first by name is named (docs/api.md), and the message
    lists the game's options."""
    from engine.options import parse_options
    from engine.revesino_options import Options

    err = invalid(parse_options, Options, {"xyz": 1, "abc": 2})
    assert (err.code, err.field) == ("UNKNOWN_OPTION", "rules.abc")
    assert err.message.startswith("unknown rules option 'abc'; this game's options are: allowRevokes, announcerQuinola, cutQuinolaBase, ")



def test_a_trick_is_a_value():
    """A trick (engine.tricks.Trick) equals and hashes as its leader, cards and winner."""
    from engine.tricks import Trick

    one, two = Card.parse("1o"), Card.parse("2o")
    trick = Trick(1, (one, two), 2)
    assert trick == Trick(1, (one, two), 2) and hash(trick) == hash(Trick(1, (one, two), 2))
    assert len({trick, Trick(1, (one, two), 2), Trick(1, (one, two))}) == 2
    for other in (Trick(1, (one, two)), Trick(2, (one, two), 2), Trick(1, (two, one), 2), (1, (one, two), 2)):
        assert trick != other
    assert Trick(1).with_card(one).with_card(two) == Trick(1, (one, two))
    assert (trick == (1, (one, two), 2)) is False  # not a trick: Python's own answer, a plain False
    assert eval(repr(trick)) == trick  # noqa: S307 - the repr pastes back into Python


def test_a_setup_and_a_state_write_themselves_as_their_fields():
    """record.fields_repr: a record's Setup and a game's state write themselves as a dataclass
    would, ``Name(field=value, ...)``, every field by name."""
    from engine import rentoy
    from engine.record import read_setup

    setup, _ = read_setup(rentoy, rec(DEAL_A, "1o"))
    text = repr(setup)
    assert text.startswith("Setup(seats=4, dealer=0, options=") and text.endswith(", seed=None)")
    assert "hands=((Card.parse('10c'), Card.parse('11c'), Card.parse('12c')), " in text
    state = repr(rentoy.start(setup))
    assert state.startswith("State(options=") and ", turnup=Card.parse('1o'), " in state and state.endswith(")")


# ---- records that are not well formed --------------------------------------------------------


def test_a_well_formed_record_for_reference():
    assert ok(rec(DEAL_A, "1o"))["next"]["seat"] == 1


def test_an_integer_field_may_be_written_as_a_whole_number():
    """An integer field given as a whole JSON number (4.0, as protobuf's Struct carries every
    number) is that integer; any other number is no integer."""
    assert ok({**rec(DEAL_A, "1o", ["1 2o"]), "seats": 4.0, "dealer": 0.0})["next"]["seat"] == 2
    err = invalid({**rec(DEAL_A, "1o"), "dealer": 0.5})
    assert (err.code, err.field) == ("INVALID_FIELD", "dealer")
    for field in ("seats", "dealer"):  # JSON's true is no integer, though Python's True is 1
        err = invalid({**rec(DEAL_A, "1o"), field: True})
        assert (err.code, err.field, err.message) == ("INVALID_FIELD", field, f"{field} must be an integer, not true")


@pytest.mark.parametrize("change, code, field", [
    (lambda r: r["deal"]["hands"].__setitem__(1, "2o 12o 13c"), "UNKNOWN_CARD", "deal.hands[1]"),
    (lambda r: r["deal"]["hands"].__setitem__(2, "4e 5e 8e"), "UNKNOWN_CARD", "deal.hands[2]"),
    (lambda r: r["deal"].__setitem__("stock", "9o"), "UNKNOWN_CARD", "deal.stock"),
    (lambda r: r["deal"]["hands"].__setitem__(2, "4e 5e 5e"), "DUPLICATE_CARD", "deal.hands[2]"),
    (lambda r: r["deal"]["hands"].__setitem__(2, "4e 5e 2o"), "DUPLICATE_CARD", "deal.hands[2]"),
    (lambda r: r["deal"].__setitem__("stock", "12c"), "DUPLICATE_CARD", "deal.stock"),
    (lambda r: r["deal"]["hands"].__setitem__(2, "4e 5e"), "WRONG_HAND_SIZE", "deal.hands[2]"),
    (lambda r: r["deal"]["hands"].__setitem__(3, "7c 4b 5b 6b"), "WRONG_HAND_SIZE", "deal.hands[3]"),
    (lambda r: r["deal"]["hands"].pop(), "WRONG_HAND_SIZE", "deal.hands"),
    (lambda r: r["deal"].__setitem__("stock", ""), "WRONG_HAND_SIZE", "deal.stock"),
    (lambda r: r.__setitem__("seats", 3), "INVALID_SEATS", "seats"),
    (lambda r: r.__setitem__("seats", 5), "INVALID_SEATS", "seats"),
    (lambda r: r.__setitem__("dealer", 4), "SEAT_OUT_OF_RANGE", "dealer"),
    (lambda r: r.__setitem__("dealer", -1), "SEAT_OUT_OF_RANGE", "dealer"),
    (lambda r: r.__setitem__("dealer", "0"), "INVALID_FIELD", "dealer"),
    (lambda r: r.__setitem__("game", "mus"), "UNKNOWN_GAME", "game"),
    (lambda r: r.pop("game"), "MISSING_FIELD", "game"),
    (lambda r: r.pop("deal"), "MISSING_FIELD", "deal"),
    (lambda r: r["deal"].__setitem__("seed", "s"), "INVALID_DEAL", "deal.seed"),
    (lambda r: r.__setitem__("deal", {"seed": ""}), "INVALID_FIELD", "deal.seed"),
    (lambda r: r.__setitem__("deal", {"seed": 5}), "INVALID_FIELD", "deal.seed"),
    (lambda r: r["deal"].__setitem__("cards", "1o"), "INVALID_FIELD", "deal.cards"),
    (lambda r: r["deal"].__setitem__("stock", 5), "INVALID_FIELD", "deal.stock"),
    (lambda r: r["deal"].__setitem__("stock", ["5c", "6c"]), "INVALID_FIELD", "deal.stock"),
    (lambda r: r["deal"]["hands"].__setitem__(1, None), "INVALID_FIELD", "deal.hands[1]"),
    (lambda r: r.__setitem__("table", {"score": [12, 0]}), "INVALID_TABLE", "table.score"),
    (lambda r: r.__setitem__("table", {"score": [3, 15]}), "INVALID_TABLE", "table.score"),
    (lambda r: r.__setitem__("table", {"score": [-1, 0]}), "INVALID_TABLE", "table.score[0]"),
    (lambda r: r.__setitem__("table", {"score": [1]}), "INVALID_FIELD", "table.score"),
    (lambda r: r.__setitem__("table", {"score": [1, "2"]}), "INVALID_FIELD", "table.score"),
    (lambda r: r.__setitem__("table", {"score": [0, 0], "plate": 30}), "INVALID_TABLE", "table.plate"),
    (lambda r: r.__setitem__("rules", ["ladder"]), "INVALID_FIELD", "rules"),
    (lambda r: r.__setitem__("actions", "1 2o"), "INVALID_FIELD", "actions"),
    (lambda r: r.__setitem__("actions", ["1 envite"] * 1001), "PAYLOAD_TOO_LARGE", "actions"),
], ids=lambda v: v if isinstance(v, str) else None)
def test_records_that_are_not_well_formed(change, code, field):
    record = rec(DEAL_A, "1o", rest="5c 6c")
    change(record)
    err = invalid(record)
    assert (err.code, err.field) == (code, field)
    assert field.split("[")[0].split(".")[-1] in err.message or field == "deal.seed"


@pytest.mark.parametrize("cards", ["hands", "stock"])
def test_a_deal_is_a_seed_or_cards_not_both(cards):
    """FORMAT.md section 3: ``deal`` is either the cards or a seed; a seed with hands alone, or
    with a stock alone, is refused as one with both."""
    record = rec(DEAL_A, "1o", rest="5c 6c")
    deal = {"seed": "s", cards: record["deal"][cards]}
    err = invalid({**record, "deal": deal})
    assert (err.code, err.field) == ("INVALID_DEAL", "deal.seed")


def test_a_record_of_1000_actions_is_read():
    """docs/api.md: PAYLOAD_TOO_LARGE is a record of more than 1,000 actions; one of 1,000 is read
    (this one has an illegal action, named as usual)."""
    record = rec(DEAL_A, "1o", rest="5c 6c")
    record["actions"] = ["1 envite"] * 1000
    assert violation(record) == (1, "NOT_YOUR_TURN")


def test_a_card_dealt_twice_is_named_with_where_it_is():
    record = rec(DEAL_A, "1o", rest="5c 6c")
    record["deal"]["hands"][2] = "4e 5e 2o"
    assert invalid(record).message == "2o appears twice: in deal.hands[2] and in deal.hands[1]"
    record["deal"]["hands"][2] = "4e 5e 5e"
    assert invalid(record).message == "5e appears twice: in deal.hands[2]"


def test_the_check_of_a_legal_action_passes():
    """record.check raises the violation of an action that is not legal, and passes a legal one
    (the benchmark's driver checks every action it picks so)."""
    from engine import rentoy
    from engine.record import check, read_setup

    setup, _ = read_setup(rentoy, rec(DEAL_A, "1o"))
    state = rentoy.start(setup)
    for action in rentoy.legal_actions(state):
        check(rentoy, state, action)


def test_every_game_is_served_and_a_record_must_be_an_object():
    assert set(api.GAMES) == {"tresillo", "revesino", "rentoy"}
    assert invalid({**rec(DEAL_A, "1o"), "game": "mus"}).code == "UNKNOWN_GAME"
    assert invalid("not a record").code == "INVALID_FIELD"


def test_a_table_carries_at_most_max_tantos():
    from engine.record import MAX_TANTOS

    record = json.loads((ENGINE.parent / "clients" / "examples" / "revesino-hand.json").read_text())
    assert ok({**record, "table": {"fondo": MAX_TANTOS}})["finished"]
    err = invalid({**record, "table": {"fondo": MAX_TANTOS + 1}})
    assert (err.code, err.field) == ("INVALID_TABLE", "table.fondo")
    assert err.message == "table.fondo 100,000,001 is more than a table carries: at most 100,000,000 tantos"


def test_a_fresh_table_is_all_zeros():
    result = ok(rec(DEAL_A, "1o", PLAY_A))
    assert result["table"] == {"score": [0, 1]}
    assert ok({**rec(DEAL_A, "1o", PLAY_A), "table": {}})["table"] == {"score": [0, 1]}


# ---- the violation precedence (FORMAT.md section 6) -------------------------------------------


def test_violation_codes_are_listed_in_precedence_order():
    assert list(VIOLATION_CODES) == ["MALFORMED_ACTION", "NOT_YOUR_TURN", "NOT_ALLOWED_NOW", "CARD_NOT_IN_HAND",
                                     "MUST_FOLLOW_SUIT", "MUST_PLAY_TRUMP"]


def test_precedence_malformed_first_even_after_the_end():
    assert violation(rec(DEAL_A, "1o", [*PLAY_A, "7 2o"])) == (8, "MALFORMED_ACTION")  # seat out of range
    assert violation(rec(DEAL_A, "1o", [*PLAY_A, "0 paso"])) == (8, "MALFORMED_ACTION")  # unknown word


@pytest.mark.parametrize("late", ["1 3c", "0 12c", "2 2o", "3 envite", "0 quiero", "2 no-quiero"])
def test_precedence_after_the_end_not_allowed_now_whoever_acts(late):
    # The hand is over: wrong seat, card not held, nothing to answer -- still NOT_ALLOWED_NOW.
    assert violation(rec(DEAL_A, "1o", [*PLAY_A, late])) == (8, "NOT_ALLOWED_NOW")
    assert violation(rec(DEAL_A, "1o", ["1 envite", "2 no-quiero", late])) == (2, "NOT_ALLOWED_NOW")


@pytest.mark.parametrize("name", ["tresillo", "revesino", "rentoy"])
def test_a_record_with_an_action_after_the_end_is_not_a_finished_hand(name):
    """docs/format.md section 6 (a decision): with a violation the result is not finished and
    carries no money, though the actions before it ended the hand; it describes the hand as it
    stood (its tricks, the phase over). Without the late action the same hand is finished."""
    record = json.loads((ENGINE.parent / "clients" / "examples" / f"{name}-hand.json").read_text())
    whole = api.validate(record)
    assert whole["valid"] and whole["finished"]
    late = api.validate({**record, "actions": [*record["actions"], "0 paso" if name == "tresillo" else "0 1o"]})
    assert (late["valid"], late["finished"], late["violation"]["code"]) == (False, False, "NOT_ALLOWED_NOW")
    assert late["violation"]["action"] == len(record["actions"])
    assert not {"net", "points", "payments", "table"} & late.keys()
    assert late["tricks"] == whole["tricks"]


def test_precedence_wrong_seat_before_not_allowed_now():
    # Seat 3 has no right to raise and nothing to answer -- but first of all it is not its turn.
    accepted = ["1 envite", "2 quiero"]
    assert violation(rec(DEAL_A, "1o", [*accepted, "3 envite"])) == (2, "NOT_YOUR_TURN")
    assert violation(rec(DEAL_A, "1o", ["3 no-quiero"])) == (0, "NOT_YOUR_TURN")
    assert violation(rec(DEAL_A, "1o", ["1 envite", "3 2o"])) == (1, "NOT_YOUR_TURN")


def test_precedence_wrong_seat_before_card_not_in_hand():
    assert violation(rec(DEAL_A, "1o", ["2 2o"])) == (0, "NOT_YOUR_TURN")


def test_precedence_not_allowed_now_before_card_not_in_hand():
    # An answer is due from seat 2: a card it does not even hold is first of all out of phase.
    assert violation(rec(DEAL_A, "1o", ["1 envite", "2 2o"])) == (1, "NOT_ALLOWED_NOW")
    assert violation(rec(DEAL_A, "1o", ["1 envite", "2 4e"])) == (1, "NOT_ALLOWED_NOW")


def test_precedence_card_not_in_hand_before_must_play_trump():
    hands = ["1b 5c 6b", "12e 3o 5o", "2e 4b 7o", "10e 11e 3b"]  # trump espadas; S2 must play 2e
    assert violation(rec(hands, "5e", ["1 12e", "2 6b"])) == (1, "CARD_NOT_IN_HAND")
    assert violation(rec(hands, "5e", ["1 12e", "2 4b"])) == (1, "MUST_PLAY_TRUMP")


def test_only_the_first_violation_is_reported():
    result = api.validate(rec(DEAL_A, "1o", ["1 2o", "3 7c", "9 x", "0 envido"]))
    assert result["valid"] is False and result["finished"] is False
    assert result["violation"]["action"] == 1 and result["violation"]["code"] == "NOT_YOUR_TURN"
    assert "seat 2" in result["violation"]["message"]
    assert [t["cards"] for t in result["tricks"]] == [["2o"]]  # the state before the violation


def test_a_violation_at_action_zero_is_reported_as_zero():
    result = api.validate(rec(DEAL_A, "1o", ["0 10c"]))
    assert result["violation"]["action"] == 0 and result["valid"] is False


@pytest.mark.parametrize("bad", [17, None, "", "1", "1 2o 12o", "one 2o", "1 8o", "1 envite 3", "1 quiero please",
                                 "\u0661 2o", "\uff11 2o",  # seat 1 in Arabic-Indic and full-width digits
                                 ["1", "2o"], {"seat": 1, "card": "2o"}])  # JSON, but no string
def test_malformed_actions(bad):
    assert violation(rec(DEAL_A, "1o", [bad])) == (0, "MALFORMED_ACTION")


def test_a_seat_out_of_range_is_named_with_the_seats_of_the_table():
    """FORMAT.md sections 2 and 4: the dealer and an action's seat are seats of the table, 0 to
    seats - 1; the message of one that is not names them."""
    result = api.validate(rec(DEAL_A, "1o", ["4 2o"]))
    assert result["violation"]["message"] == "action 0 ('4 2o'): cannot read action '4 2o': '4' is not a seat of this 4-seat table (0..3)"
    assert invalid(rec(DEAL_A, "1o", dealer=4)).message == "dealer 4 is not a seat of this 4-seat table (0..3)"


def test_a_seat_of_more_digits_than_int_reads_is_a_malformed_action_not_an_internal_error():
    """An action's seat of more than 4,300 digits (Python's ``int()`` refuses them with a
    ValueError) is a seat out of range, MALFORMED_ACTION, as '99 2o' is; it was an INTERNAL
    error. Leading zeros still read as the seat they write."""
    for seat in ("9" * 4301, "1" * 5000, "0" * 5000 + "4"):
        result = api.validate(rec(DEAL_A, "1o", [f"{seat} 2o"]))
        assert (result["valid"], result["violation"]["code"]) == (False, "MALFORMED_ACTION")
        assert "is not a seat of this 4-seat table (0..3)" in result["violation"]["message"]
    assert api.validate(rec(DEAL_A, "1o", ["0" * 5000 + "1 2o"])) == api.validate(rec(DEAL_A, "1o", ["1 2o"]))


def test_a_long_bad_action_is_quoted_by_its_start():
    huge = "x" * 900_000 + " 2o"
    message = api.validate(rec(DEAL_A, "1o", [huge]))["violation"]["message"]
    assert len(message) < 400 and "(900,003 characters)" in message
    with pytest.raises(InvalidInput) as err:
        api.validate({**rec(DEAL_A, "1o", []), "deal": {"hands": ["y" * 100_000 + " 2o", "", "", ""], "stock": ""}})
    assert len(err.value.message) < 300 and "(100,000 characters)" in err.value.message  # the bad token


def test_a_string_in_a_message_is_in_single_quotes_and_cut_after_its_60th_character():
    """docs/api.md: a message quotes a string in single quotes, to read plainly inside the JSON of
    its text, a long one by its first 60 characters and its length. A string holding a quote was
    in double quotes (Python's repr: "o'clock", \\"o'clock\\" in JSON), and a long one lost its
    closing quote and its 60th character."""
    with pytest.raises(InvalidInput) as err:
        api.validate({"game": "o'clock"})
    assert err.value.message.startswith("unknown game 'o\\'clock': ")
    action = "1 " + "x" * 98
    message = api.validate(rec(DEAL_A, "1o", [action]))["violation"]["message"]
    assert message.startswith(f"action 0 ('1 {'x' * 58}'... (100 characters)): ")


def test_a_value_is_quoted_as_json_writes_it_and_cut_short_when_long():
    """errors.shown: a string in single quotes, anything else as JSON writes it (non-ASCII letters
    as they are), and a value of more than SHOWN_AT_MOST characters by its start and its length."""
    from engine.errors import SHOWN_AT_MOST, shown

    assert (shown("2 1e"), shown(None), shown(True), shown(["año", 1.5])) == ("'2 1e'", "null", "true", '["año", 1.5]')
    at_most = "x" * SHOWN_AT_MOST
    assert shown(at_most) == f"'{at_most}'"
    assert shown(at_most + "y") == f"'{at_most}'... ({SHOWN_AT_MOST + 1} characters)"
    assert shown([1] * 30) == json.dumps([1] * 30)[:SHOWN_AT_MOST] + "... (90 characters)"


def test_non_canonical_actions_are_read_and_results_are_canonical():
    result = ok(rec(DEAL_A, "1o", ["1  2O", " 2 4E ", "3 ENVITE"]))
    assert result["tricks"][0]["cards"] == ["2o", "4e"]
    assert result["proposal"] == {"value": 3, "seat": 3}
    assert set(result["next"]["legal"]) == {"0 quiero", "0 no-quiero", "0 envite"}


# ---- seeded deals (docs/deal.md) --------------------------------------------------------------


def reference_words(seed: str):
    """docs/deal.md, step 2, written again from the document."""
    counter = 0
    while True:
        block = hashlib.sha256(seed.encode() + counter.to_bytes(8, "big")).digest()
        yield from (int.from_bytes(block[k:k + 4], "big") for k in range(0, 32, 4))
        counter += 1


def reference_fisher_yates(cards: list, words) -> list:
    """docs/deal.md, step 3, written again from the document."""
    pack = list(cards)
    for i in range(len(pack) - 1, 0, -1):
        x = next(words)
        while x >= 2**32 - (2**32 % (i + 1)):
            x = next(words)
        j = x % (i + 1)
        pack[i], pack[j] = pack[j], pack[i]
    return pack


def reference_shuffle(cards: list[str], seed: str) -> list[str]:
    """docs/deal.md, steps 2-4, written again from the document."""
    return reference_fisher_yates(cards, reference_words(seed))


CANONICAL_40 = [f"{r}{s}" for s in "oceb" for r in (1, 2, 3, 4, 5, 6, 7, 10, 11, 12)]
# Pinned so that the algorithm cannot change silently (docs/deal.md).
NAIPES_40 = ("10e 2b 3c 11b 2o 11c 3o 4e 6e 4c 7b 6b 5o 10c 12o 12c 7e 12b 10o 2e 4b 7c 5b 10b 5e 7o 4o 1b "
             "11e 6o 3e 3b 12e 1e 1o 11o 5c 1c 2c 6c").split()


def test_the_canonical_pack_order():
    assert [str(c) for c in DECK_40.cards] == CANONICAL_40


def test_the_shuffle_is_the_documented_algorithm_and_is_pinned():
    assert reference_shuffle(CANONICAL_40, "naipes") == NAIPES_40
    for seed in ("naipes", "a", "seed with spaces", "ñ", "0" * 100):
        assert [str(c) for c in shuffle.shuffle(DECK_40.cards, seed)] == reference_shuffle(CANONICAL_40, seed)
    canonical_48 = [str(c) for c in DECK_48.cards]
    assert [str(c) for c in shuffle.shuffle(DECK_48.cards, "naipes")] == reference_shuffle(canonical_48, "naipes")


def test_the_shuffle_reads_a_word_again_at_and_above_the_limit():
    """docs/deal.md, step 3: a word at or above 2**32 - (2**32 mod (i+1)) is read again and the
    first word below that limit is taken (no modulo bias). A seed's stream holds such a word once
    in ten million shuffles or so, so the words are chosen here: at every i of a 48-card pack the
    limit itself and 2**32 - 1, both read again where the limit is below 2**32, then a word just
    below the limit."""
    words = []
    for i in range(47, 0, -1):
        limit = 2**32 - (2**32 % (i + 1))
        if limit < 2**32:
            words += [limit, 2**32 - 1]
        words.append(limit - 1 - i % 5)
    assert len(words) == 47 + 2 * 42  # every size but the five powers of two rejects
    stream = iter(words)
    assert shuffle.fisher_yates(range(48), stream) == reference_fisher_yates(list(range(48)), iter(words))
    assert next(stream, None) is None  # every word read, and none beyond


def test_the_deal_from_a_seed():
    out = api.deal({"game": "rentoy", "seats": 4, "dealer": 0, "seed": "naipes"})
    assert out["commitment"] == hashlib.sha256(b"naipes").hexdigest()
    assert (out["game"], out["seats"], out["dealer"], out["seed"]) == ("rentoy", 4, 0, "naipes")
    assert out["algorithm"].startswith("naipes-shuffle-v1")
    # One card at a time, three rounds, from the seat after the dealer; then the turn-up.
    pack = NAIPES_40
    assert out["deal"]["hands"] == [" ".join(pack[3:12:4]), " ".join(pack[0:12:4]), " ".join(pack[1:12:4]),
                                    " ".join(pack[2:12:4])]
    assert out["deal"]["hands"] == ["11b 4e 6b", "10e 2o 6e", "2b 11c 4c", "3c 3o 7b"]
    assert out["deal"]["stock"] == " ".join(pack[12:])
    assert api.deal({"game": "rentoy", "seats": 4, "dealer": 0, "seed": "naipes"}) == out
    assert api.deal({"game": "rentoy", "seats": 4, "dealer": 0, "seed": "naipes2"})["deal"] != out["deal"]


@pytest.mark.parametrize("seats, dealer", [(2, 0), (4, 3), (6, 2), (8, 7)])
def test_a_record_with_a_seed_is_the_record_with_its_deal(seats, dealer):
    seed = f"basics-{seats}-{dealer}"
    out = api.deal({"game": "rentoy", "seats": seats, "dealer": dealer, "seed": seed})
    pack = reference_shuffle(CANONICAL_40, seed)
    for i in range(3 * seats):
        assert pack[i] in out["deal"]["hands"][(dealer + 1 + i) % seats].split()
    seeded = ok({"game": "rentoy", "seats": seats, "dealer": dealer, "deal": {"seed": seed}, "actions": []})
    explicit = ok({"game": "rentoy", "seats": seats, "dealer": dealer, "deal": out["deal"], "actions": []})
    assert seeded == explicit
    assert seeded["turnUp"] == pack[3 * seats]


@pytest.mark.parametrize("request_, code, field", [
    ({"game": "rentoy", "seats": 4, "dealer": 0, "seed": ""}, "INVALID_FIELD", "seed"),
    ({"game": "rentoy", "seats": 4, "dealer": 0}, "MISSING_FIELD", "seed"),
    ({"game": "rentoy", "seats": 7, "dealer": 0, "seed": "x"}, "INVALID_SEATS", "seats"),
    ({"game": "rentoy", "seats": 4, "dealer": 4, "seed": "x"}, "SEAT_OUT_OF_RANGE", "dealer"),
])
def test_bad_deal_requests(request_, code, field):
    err = invalid(api.deal, request_)
    assert (err.code, err.field) == (code, field)


# ---- ResolveTrick and SettleHand --------------------------------------------------------------


def test_resolve_trick_figures():
    out = api.resolve_trick({"game": "rentoy", "cards": "12e 2e 3c 1e", "contract": {"trump": "copas"},
                             "seats": 4, "leader": 1})
    assert (out["winnerIndex"], out["card"], out["winner"], out["complete"]) == (2, "3c", 3, True)
    assert out["events"] == [{"kind": "trick", "card": "3c", "seat": 3, "text": "seat 3 wins with 3c (trump)"}]
    for leader, dealer, winner in ((0, 3, 2), (1.0, None, 3), (3, 0.0, 1)):  # (a whole number is the integer)
        request = {"game": "rentoy", "cards": "12e 2e 3c 1e", "contract": {"trump": "copas"}, "seats": 4, "leader": leader}
        assert api.resolve_trick({**request, "dealer": dealer})["winner"] == winner
    # The two of trumps over the rey of trumps; a trick so far, which no one has won yet.
    out = api.resolve_trick({"game": "rentoy", "cards": "12e 2e", "contract": {"trump": "espadas"}, "seats": 4, "leader": 0})
    assert (out["winnerIndex"], out["winner"], out["complete"]) == (1, 1, False)
    assert out["events"][0]["text"] == "seat 1 is winning so far with 2e (trump)"
    # Off-suit, non-trump cards never win, however high.
    out = api.resolve_trick({"game": "rentoy", "cards": "2c 12e 12o", "contract": {"trump": "bastos"}})
    assert out["winnerIndex"] == 0


# A trick without seats: (game, cards, complete, the event's verb). Tresillo's trick has 3 cards at
# either table, Revesino's 4: complete or short, known without seats (both were complete: false,
# and "wins"). A Rentoy trick has as many cards as seats (2, 4, 6 or 8): 3 cards are short at every
# table, 8 complete at the one table they fit, 2, 4 or 6 complete at one table and short at another.
TRICKS_WITHOUT_SEATS = [
    ("tresillo", "1e 2e 3o", True, "wins"),
    ("tresillo", "1e 2e", False, "is winning so far"),
    ("tresillo", "1e", False, "is winning so far"),
    ("revesino", "1e 2e 3e 4e", True, "wins"),
    ("revesino", "1e 2e 3e", False, "is winning so far"),
    ("rentoy", "1e 2e 3e", False, "is winning so far"),
    ("rentoy", "1e 2e 3e 4e 5e 6e 7e 10e", True, "wins"),
    ("rentoy", "1e 2e", False, "is ahead"),
    ("rentoy", "1e 2e 3e 4e", False, "is ahead"),
    ("rentoy", "1e 2e 3e 4e 5e 6e", False, "is ahead"),
]


@pytest.mark.parametrize(("game", "cards", "complete", "verb"), TRICKS_WITHOUT_SEATS)
def test_a_trick_without_seats_is_complete_where_the_game_fixes_its_size(game, cards, complete, verb):
    request = {"game": game, "cards": cards, **({} if game == "revesino" else {"contract": {"trump": "oros"}})}
    out = api.resolve_trick(request)
    index, played = out["winnerIndex"], cards.split()
    assert (out["complete"], out["card"]) == (complete, played[index])
    assert out["events"][0]["text"].startswith(f"card {index + 1} of the trick {verb} with {played[index]} (")
    assert "winner" not in out and "payments" not in out


@pytest.mark.parametrize(("game", "cards", "message"), [
    ("tresillo", "1e 2e 3e 4e", "a tresillo trick has 3 cards, not 4"),
    ("revesino", "1e 2e 3e 4e 5e", "a trick at a 4-seat revesino table has 4 cards, not 5"),  # (its one table)
    ("rentoy", "1e 2e 3e 4e 5e 6e 7e 10e 11e", "a rentoy trick has at most 8 cards (at its largest table), not 9"),
])
def test_a_trick_without_seats_larger_than_the_game_has_is_refused(game, cards, message):
    """It was answered, as the trick of a table of that many seats (the game has none)."""
    request = {"game": game, "cards": cards, **({} if game == "revesino" else {"contract": {"trump": "oros"}})}
    err = invalid(api.resolve_trick, request)
    assert (err.code, err.field, str(err)) == ("WRONG_HAND_SIZE", "cards", message)


@pytest.mark.parametrize("request_, code, field", [
    ({"cards": "", "contract": {"trump": "oros"}}, "WRONG_HAND_SIZE", "cards"),
    ({"cards": "1o 1o", "contract": {"trump": "oros"}}, "DUPLICATE_CARD", "cards"),
    ({"cards": "1o 8o", "contract": {"trump": "oros"}}, "UNKNOWN_CARD", "cards"),
    ({"cards": "1o 2o", "contract": {"trump": "o"}}, "INVALID_FIELD", "contract.trump"),
    ({"cards": "1o 2o"}, "MISSING_FIELD", "contract"),
    ({"cards": "1o 2o 3o", "contract": {"trump": "oros"}, "seats": 2}, "WRONG_HAND_SIZE", "cards"),
    ({"cards": "1o 2o", "contract": {"trump": "oros"}, "leader": 1}, "MISSING_FIELD", "seats"),
    ({"cards": "1o 2o", "contract": {"trump": "oros"}, "seats": 4, "leader": 4}, "SEAT_OUT_OF_RANGE", "leader"),
    ({"cards": "1o 2o", "contract": {"trump": "oros"}, "seats": 4, "leader": -1}, "SEAT_OUT_OF_RANGE", "leader"),
    ({"cards": "1o 2o", "contract": {"trump": "oros"}, "seats": 4, "leader": 0, "dealer": 4}, "SEAT_OUT_OF_RANGE", "dealer"),
    ({"cards": "1o 2o", "contract": {"trump": "oros"}, "seats": 4, "leader": 0, "dealer": -1}, "SEAT_OUT_OF_RANGE", "dealer"),
    ({"cards": "1o 2o", "contract": {"trump": "oros"}, "rules": {"xyz": 1}}, "UNKNOWN_OPTION", "rules.xyz"),
    # A Rentoy trick moves no money: the fields of a Revesino trick's payments are refused, the first named.
    ({"cards": "1o 2o", "contract": {"trump": "oros"}, "seats": 4, "leader": 1, "revoked": "1o", "fondo": 0}, "INVALID_FIELD", "fondo"),
])
def test_bad_resolve_trick_requests(request_, code, field):
    err = invalid(api.resolve_trick, {"game": "rentoy", **request_})
    assert (err.code, err.field) == (code, field)



def test_resolve_trick_of_a_game_without_trumps_or_money():
    """Revesino has no trumps, and a trick's payments go from seat to seat (its leader is
    required with them); a Rentoy trick moves no money, and a field of no cards is no field."""
    trick = {"game": "revesino", "seats": 4, "cards": "1c 2c 3c 4c"}
    assert api.resolve_trick(trick)["winnerIndex"] == 0
    for request, code, field in (({**trick, "contract": {"trump": "oros"}}, "INVALID_FIELD", "contract.trump"),
                                 ({**trick, "number": 2}, "MISSING_FIELD", "leader"),
                                 ({**trick, "revoked": "2c"}, "MISSING_FIELD", "leader")):
        err = invalid(api.resolve_trick, request)
        assert (err.code, err.field) == (code, field)
    assert api.resolve_trick({**trick, "contract": {}, "revoked": ""})["winnerIndex"] == 0
    rentoy = {"game": "rentoy", "cards": "1o 2o", "contract": {"trump": "oros"}, "seats": 4, "leader": 1}
    assert api.resolve_trick({**rentoy, "revoked": "", "forced": None})["winner"] == 2


def test_a_revesino_trick_is_of_four_seats_when_seats_is_not_given():
    """Revesino has one table, four seats: without seats its trick is answered as with seats 4,
    its leader and payments included (a leader without seats was MISSING_FIELD seats). Tresillo
    (three seats or four) and Rentoy still need seats to name the winning seat."""
    for trick in ({"cards": "1c 2c 3c 4c", "leader": 2},
                  {"cards": "12c 1c 3c 4c", "leader": 0, "number": 1, "fondo": 6, "forced": "1c"},
                  {"cards": "5c 11c 3o 4c", "leader": 3, "number": 11, "napolitana": 1, "dealer": 2}):
        given = api.resolve_trick({"game": "revesino", "seats": 4, **trick})
        assert api.resolve_trick({"game": "revesino", **trick}) == given
        assert given["complete"] and "winner" in given
    forced = api.resolve_trick({"game": "revesino", "cards": "12c 1c 3c 4c", "leader": 0, "number": 1, "fondo": 6, "forced": "1c"})
    assert [(p["payer"], p["payee"], p["amount"]) for p in forced["payments"]] == [("seat 1", "seat 0", 4)]  # (RV forced ace, trick 1 double)
    err = invalid(api.resolve_trick, {"game": "revesino", "seats": 3, "cards": "1c 2c 3c"})
    assert (err.code, err.field) == ("INVALID_SEATS", "seats")
    err = invalid(api.resolve_trick, {"game": "tresillo", "cards": "1o 2o 3o", "contract": {"trump": "oros"}, "leader": 1})
    assert (err.code, err.field) == ("MISSING_FIELD", "seats")


@pytest.mark.parametrize("trick, dealer, message", [
    ({"game": "rentoy", "cards": "1o 2o", "contract": {"trump": "oros"}, "seats": 4}, 4, "dealer 4 is not a seat of this 4-seat table"),
    ({"game": "revesino", "cards": "1c 2c 3c 4c"}, -5, "dealer -5 is not a seat of this 4-seat table"),
    ({"game": "revesino", "cards": "1c 2c 3c 4c"}, True, "dealer true is not a seat of this 4-seat table"),
    ({"game": "tresillo", "cards": "1o 2o 3o", "contract": {"trump": "oros"}}, 99, "dealer 99 is not a seat of any tresillo table (at most 4 seats)"),
    ({"game": "rentoy", "cards": "1o 2o", "contract": {"trump": "oros"}}, 8, "dealer 8 is not a seat of any rentoy table (at most 8 seats)")])
def test_resolve_trick_refuses_a_dealer_out_of_range_without_a_leader_too(trick, dealer, message):
    """A trick without ``leader`` names no seat, and its ``dealer`` places none: a dealer that is no
    seat (of the table given, or of any table of the game) was accepted unread, where the same
    dealer with a leader is SEAT_OUT_OF_RANGE (as SettleHand checks a dealer its money does not need).
    A dealer that is a seat is still answered as before."""
    err = invalid(api.resolve_trick, {**trick, "dealer": dealer})
    assert (err.code, err.field, err.message) == ("SEAT_OUT_OF_RANGE", "dealer", message)
    assert api.resolve_trick({**trick, "dealer": 1}) == api.resolve_trick(trick)


@pytest.mark.parametrize("field, code", [("leader", "SEAT_OUT_OF_RANGE"), ("dealer", "SEAT_OUT_OF_RANGE"),
                                         ("number", "INVALID_FIELD"), ("fondo", "INVALID_FIELD"),
                                         ("napolitana", "SEAT_OUT_OF_RANGE")])
@pytest.mark.parametrize("value", [True, False])
def test_resolve_trick_refuses_a_boolean_for_a_number(field, code, value):
    """JSON's true and false are no numbers, though Python's bool is an int: the engine's API
    refuses them by the field, as REST and gRPC do before it."""
    request = {"game": "revesino", "seats": 4, "cards": "1c 2c 3c 4c", "leader": 1, "dealer": 0, "number": 2, "fondo": 5}
    assert api.resolve_trick(request)["winner"] == 1
    err = invalid(api.resolve_trick, {**request, field: value})
    assert (err.code, err.field) == (code, field)
    assert ("true" if value else "false") in err.message


def settle(score, winner, value, end="tricks", rules=None):
    request = {"game": "rentoy", "seats": 4, "table": {"score": score},
               "rentoy": {"winner": winner, "value": value, "end": end}}
    if rules:
        request["rules"] = rules
    return api.settle_hand(request)


def test_settle_hand_figures():
    out = settle([4, 5], 1, 6)
    assert out["points"] == [0, 6] and out["table"] == {"score": [4, 11]} and "matchWinner" not in out
    assert out["payments"] == [{"payee": "team 1", "amount": 6, "reason": "hand worth 6: won two tricks"}]
    out = settle([4, 5], 0, 9, "fold")
    assert out["points"] == [9, 0] and out["table"] == {"score": [13, 5]} and out["matchWinner"] == 0
    out = settle([10, 7], 1, 1, "fold")
    assert out["table"] == {"score": [10, 8]}
    out = settle([3, 3], 1, 3, "renuncio", {"renuncio": "penalty"})
    assert out["points"] == [0, 3] and out["end"] == "renuncio"
    # SettleHand agrees with the settlement of a validated record.
    result = ok(rec(DEAL_A, "1o", PLAY_A, score=[2, 2]))
    assert settle([2, 2], result["handWinner"], result["value"]) == {
        k: result[k] for k in ("handWinner", "end", "points", "payments", "table")}


@pytest.mark.parametrize("hand, rules, field", [
    ({"winner": 2, "value": 1}, None, "rentoy.winner"),
    ({"winner": 0, "value": 2}, None, "rentoy.value"),
    ({"winner": 0, "value": 9}, {"ladder": "1-3-6-12"}, "rentoy.value"),
    ({"winner": 0, "value": 12, "end": "fold"}, None, "rentoy.value"),  # a fold never scores the top
    ({"winner": 0, "value": 1, "end": "renuncio"}, None, "rentoy.end"),  # only under renuncio: penalty
    ({"winner": 0, "value": 1, "end": "timeout"}, None, "rentoy.end"),
])
def test_bad_settle_hand_requests(hand, rules, field):
    request = {"game": "rentoy", "seats": 4, "table": {"score": [0, 0]}, "rentoy": hand}
    if rules:
        request["rules"] = rules
    err = invalid(api.settle_hand, request)
    assert (err.code, err.field) == ("INVALID_FIELD", field)
    assert invalid(api.settle_hand, {"game": "rentoy", "seats": 4}).code == "MISSING_FIELD"
    other = invalid(api.settle_hand, {**request, "rentoy": {"winner": 0, "value": 1}, "tresillo": {}})
    assert (other.code, other.field) == ("INVALID_FIELD", "tresillo")
    assert invalid(api.settle_hand, {"game": "rentoy", "seats": 4, "table": {"score": [12, 0]},
                                     "rentoy": {"winner": 0, "value": 1}}).code == "INVALID_TABLE"


# ---- what a seat may see, and the engine's isolation -----------------------------------------


def test_a_seat_sees_its_own_hand_only():
    record = rec(DEAL_A, "1o", ["1 2o"], rest="5c 6c 7o")
    out = api.legal_actions(record, 2)
    assert out["seat"] == 2 and set(out["legal"]) == {"2 4e", "2 5e", "2 6e", "2 envite"}
    assert out["view"]["hand"] == "4e 5e 6e"
    assert out["view"]["handSizes"] == [3, 2, 3, 3]
    seen = set(re.findall(r"\b(?:1[0-2]|[1-9])[oceb]\b", json.dumps(out["view"])))
    assert seen == {"4e", "5e", "6e", "2o", "1o"}  # its cards, the trick, the turn-up
    assert api.legal_actions(record, 3)["legal"] == []  # not seat 3's turn
    assert invalid(api.legal_actions, record, 4).code == "SEAT_OUT_OF_RANGE"
    assert invalid(api.legal_actions, record, -1).code == "SEAT_OUT_OF_RANGE"  # (not the last seat's view)


def test_legal_actions_are_itemized_as_a_card_or_a_call_with_its_arguments():
    """Each of ``actions`` is its ``legal`` notation taken apart (LegalAction in the .proto): a card
    play has ``card`` and no ``call``; a call has ``call``, and ``args`` only when it takes some."""
    out = api.legal_actions(rec(DEAL_A, "1o", ["1 2o"]), 2)
    assert out["actions"] == [{"notation": "2 4e", "seat": 2, "card": "4e"}, {"notation": "2 5e", "seat": 2, "card": "5e"},
                              {"notation": "2 6e", "seat": 2, "card": "6e"}, {"notation": "2 envite", "seat": 2, "call": "envite"}]
    out = api.legal_actions(tresillo_rec(STD, ["1 juego", "2 paso", "3 paso"]), 1)
    assert [a["notation"] for a in out["actions"]] == out["legal"]
    assert out["actions"][0] == {"notation": "1 entrada oros", "seat": 1, "call": "entrada", "args": ["oros"]}
    assert {"notation": "1 vuelta", "seat": 1, "call": "vuelta"} in out["actions"]



def test_legal_actions_of_a_hand_in_play_over_and_after_a_violation():
    """LegalActions says whether the record is valid and the hand finished, as Validate does:
    after an illegal action (one after the end included) it is neither, with the violation and
    nothing legal."""
    playing = api.legal_actions(rec(DEAL_A, "1o", ["1 2o"]))
    assert (playing["valid"], playing["finished"], playing["seat"], len(playing["legal"])) == (True, False, 2, 4)
    over = api.legal_actions(rec(DEAL_A, "1o", PLAY_A))
    assert (over["valid"], over["finished"], over["legal"], over["actions"]) == (True, True, [], [])
    late = api.legal_actions(rec(DEAL_A, "1o", [*PLAY_A, "1 3c"]))
    assert late == {"game": "rentoy", "valid": False, "finished": False, "legal": [], "actions": [],
                    "violation": {"action": 8, "code": "NOT_ALLOWED_NOW",
                                  "message": "action 8 ('1 3c'): seat 1 cannot act: the hand is over"}}

def test_the_engine_does_no_io():
    transports = re.compile(r"^\s*(import|from)\s+(grpc|flask|fastapi|requests|socket|http|google\.protobuf|service)\b",
                            re.MULTILINE)
    for path in ENGINE.glob("*.py"):
        assert not transports.search(path.read_text()), path.name


# Any JSON value in any field of a request: the engine's answer or its error, never a crash.
# (engine.api is called with JSON as parsed, by the service's codec and by apps that embed the
# engine; compiled, a parameter typed int or str refuses anything else with a bare TypeError, so
# each field is checked as the request's JSON, whatever the function's types.)
_ANY_JSON = [None, True, 7, -1, 1.5, "x", "", [], {}, [None], {"a": 1}, 2**70, ["1o"], [[1]]]


def _json_paths(value: Any, at: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    if isinstance(value, dict):
        return [at] + [p for k, v in value.items() for p in _json_paths(v, (*at, k))]
    if isinstance(value, list):
        return [at] + [p for i, v in enumerate(value) for p in _json_paths(v, (*at, i))]
    return [at]


def _with(request: dict[str, Any], at: tuple[Any, ...], value: Any) -> dict[str, Any]:
    out = copy.deepcopy(request)
    node: Any = out
    for key in at[:-1]:
        node = node[key]
    node[at[-1]] = value
    return out


@pytest.mark.parametrize(("name", "rpc", "request_"), UNARY_CALLS, ids=[c[0] for c in UNARY_CALLS])
def test_any_json_value_in_any_field_is_answered_or_refused_never_a_crash(name: str, rpc: str, request_: dict[str, Any]) -> None:
    refused = 0
    for at in _json_paths(request_)[1:]:
        for value in _ANY_JSON:
            try:
                answer = engine_answer(rpc, _with(request_, at, value))
            except NaipesError as exc:
                refused += 1
                assert exc.code in INPUT_CODES or exc.code in VIOLATION_CODES, (at, value, exc.code)
            else:
                assert isinstance(answer, dict), (at, value)
    assert refused > 0  # (the request's own fields, given a list or an object, are refused)


@pytest.mark.parametrize("game", ["tresillo", "revesino", "rentoy"])
def test_a_table_the_service_refuses_is_refused_by_the_engine_too(game: str) -> None:
    """engine.api takes the contract the service speaks: a table that is no object ([], 0, false,
    "") was read as a fresh table (``or {}``) where REST refuses it naming ``table``; a Rentoy
    score that is no list ({}, 0) was [0, 0], an unknown Rentoy table field with an empty value
    (``bogus: 0``) was taken, and a score of integral floats ([4.0, 5], as a Struct holds numbers)
    was refused where the other games read 30.0 as 30. None and an empty list still read as fresh."""
    from engine.errors import InvalidInput

    record = {"game": game, "seats": 4, "dealer": 0, "deal": {"seed": "t"}, "actions": []}
    for table in ([], 0, False, ""):
        with pytest.raises(InvalidInput) as err:
            api.validate({**record, "table": table})
        assert (err.value.code, err.value.field) == ("INVALID_FIELD", "table"), table
        with pytest.raises(InvalidInput) as err:
            api.settle_hand({"game": game, "seats": 4, "dealer": 0, "table": table, game: {}})
        assert (err.value.code, err.value.field) == ("INVALID_FIELD", "table"), table
    assert api.validate({**record, "table": None})["valid"] is True
    if game != "rentoy":
        return
    for score in ({}, 0, "", False, [4.5, 5], [1, 2, 3]):
        with pytest.raises(InvalidInput) as err:
            api.validate({**record, "table": {"score": score}})
        assert (err.value.code, err.value.field) == ("INVALID_FIELD", "table.score"), score
    with pytest.raises(InvalidInput) as err:
        api.validate({**record, "table": {"bogus": 0}})
    assert (err.value.code, err.value.field, err.value.message) == (
        "INVALID_FIELD", "table.bogus", "unknown table field 'bogus'; a Rentoy table has score")
    assert api.validate({**record, "table": {"score": [4.0, 5]}})["valid"] is True
    assert api.validate({**record, "table": {"score": [], "plate": 0, "plateHolds": "none", "cartulina": [], "fondo": 0}})["valid"] is True
