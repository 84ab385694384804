"""Every RPC other than ValidateHand, over both transports: same answers, equal to the engine's."""

from __future__ import annotations

import re

import pytest
from service_support import assert_same_error, call_both, call_rest, cards_in, load_example, rentoy_examples

from engine import api

CARD = re.compile(r"^(?:1[0-2]|[1-9])[oceb]$")


def _in_progress() -> dict:
    for path in rentoy_examples():
        record, expect = load_example(path)
        if expect["valid"] and not expect.get("finished"):
            return record
    raise AssertionError("no sample of a hand in progress")


def test_legal_actions_without_seat(stub, http, rest_url) -> None:
    record = _in_progress()
    answer = call_both(stub, http, rest_url, "LegalActions", {"record": record})
    assert answer == api.legal_actions(record)
    assert answer["valid"] is True and answer["finished"] is False
    assert answer["seat"] == api.validate(record)["next"]["seat"]
    assert "hand" not in answer["view"]
    # Without a seat, the view is public: no hidden card appears anywhere.
    hands = [set(h.split()) for h in record["deal"]["hands"]]
    played = {c for t in answer["view"]["tricks"] for c in t["cards"]}
    hidden = set().union(*hands) - played
    assert not (cards_in(answer["view"], CARD) & hidden)


@pytest.mark.parametrize("seat", range(6))
def test_a_seats_view_never_shows_another_seats_cards(seat: int, stub, http, rest_url) -> None:
    record = _in_progress()
    assert record["seats"] == 6
    answer = call_both(stub, http, rest_url, "LegalActions", {"record": record, "seat": seat})
    assert answer == api.legal_actions(record, seat)
    view = answer["view"]
    assert view["seat"] == seat
    played = {c for t in view["tricks"] for c in t["cards"]}
    own = set(record["deal"]["hands"][seat].split()) - played
    assert set(view["hand"].split()) == own
    others = set().union(*(set(h.split()) for i, h in enumerate(record["deal"]["hands"]) if i != seat)) - played
    stock = set(record["deal"]["stock"].split()[1:])  # the turn-up (first) is public
    assert not (cards_in(answer, CARD) & (others | stock))
    assert all(action.split()[0] == str(seat) for action in answer["legal"])
    assert all(a["seat"] == seat for a in answer["actions"])


def test_legal_actions_of_a_finished_hand_and_of_a_broken_one(stub, http, rest_url) -> None:
    for path in rentoy_examples():
        record, expect = load_example(path)
        answer = call_both(stub, http, rest_url, "LegalActions", {"record": record})
        assert answer["valid"] is expect["valid"]
        if not expect["valid"]:
            assert answer["violation"]["code"] == expect["violation"]["code"]
            assert "seat" not in answer
        elif expect.get("finished"):
            assert answer["finished"] is True and answer["legal"] == [] and answer["actions"] == []


def test_resolve_trick(stub, http, rest_url) -> None:
    request = {"game": "rentoy", "seats": 4, "leader": 1, "contract": {"trump": "oros"}, "cards": "1e 2o 3c 12o"}
    answer = call_both(stub, http, rest_url, "ResolveTrick", request)
    assert answer == api.resolve_trick(request)
    index = answer["winnerIndex"]
    assert answer["winner"] == (1 + index) % 4 and answer["card"] == "1e 2o 3c 12o".split()[index]
    assert answer["card"].endswith("o") and answer["complete"] is True  # a trump takes it
    # A trick so far, no leader: winnerIndex 0 and complete false still printed.
    partial = {"game": "rentoy", "contract": {"trump": "bastos"}, "cards": "3e 2e"}
    answer = call_both(stub, http, rest_url, "ResolveTrick", partial)
    assert answer == api.resolve_trick(partial)
    assert answer["winnerIndex"] == 0 and answer["complete"] is False and "winner" not in answer


def test_resolve_trick_without_seats(stub, http, rest_url) -> None:
    """A Tresillo trick has 3 cards at either table: complete without seats, its winner "wins" (it
    was complete false, as every trick without seats); a Rentoy trick of 4 cards may be complete or
    not (4 seats or more): complete false, its card "is ahead"; too many cards for the game are
    refused as they are at a table of known size."""
    for game, cards, complete, verb in (("tresillo", "1e 2e 3o", True, "wins"), ("tresillo", "1e 2e", False, "is winning so far"),
                                        ("rentoy", "1e 2e 3e 4e", False, "is ahead")):
        request = {"game": game, "contract": {"trump": "oros"}, "cards": cards}
        answer = call_both(stub, http, rest_url, "ResolveTrick", request)
        assert answer == api.resolve_trick(request)
        assert answer["complete"] is complete and f" {verb} with {answer['card']} (" in answer["events"][0]["text"], answer
    request = {"game": "tresillo", "contract": {"trump": "oros"}, "cards": "1e 2e 3e 4e"}
    assert_same_error(stub, http, rest_url, "ResolveTrick", request, "WRONG_HAND_SIZE", "cards")


def test_settle_hand(stub, http, rest_url) -> None:
    request = {"game": "rentoy", "seats": 4, "table": {"score": [10, 4]}, "rentoy": {"winner": 0, "value": 3}}
    answer = call_both(stub, http, rest_url, "SettleHand", request)
    assert answer == api.settle_hand(request)
    assert answer["points"] == [3, 0] and answer["table"]["score"][1] == 4
    assert answer["handWinner"] == 0


def test_deal(stub, http, rest_url) -> None:
    request = {"game": "rentoy", "seats": 4, "dealer": 0, "seed": "naipes"}
    answer = call_both(stub, http, rest_url, "Deal", request)
    assert answer == api.deal(request)
    assert answer["dealer"] == 0 and len(answer["deal"]["hands"]) == 4
    record = {"game": "rentoy", "seats": 4, "dealer": 0, "deal": answer["deal"]}
    assert call_rest(http, rest_url, "ValidateHand", {"record": record})["valid"] is True


def test_describe_rules(stub, http, rest_url) -> None:
    answer = call_both(stub, http, rest_url, "DescribeRules", {"game": "rentoy"})
    assert answer == api.describe_rules("rentoy")
    assert any(option["default"] is False for option in answer["options"])  # false is printed


def test_grpc_standard_json_carries_the_fields_that_apply_at_their_defaults(stub) -> None:
    """FORMAT.md section 6: a result carries the fields that apply even when false or 0. A client
    in any language printing a response with protobuf's standard JSON mapping (defaults left out)
    still gets them: they have presence in the schema, and the server sets them."""
    from google.protobuf import json_format

    from naipes.v1 import naipes_pb2 as pb
    from service.codec import is_repeated

    deal = api.deal({"game": "rentoy", "seats": 4, "dealer": 3, "seed": "presence"})["deal"]
    record = {"game": "rentoy", "seats": 4, "dealer": 3, "deal": deal, "actions": []}  # seat 0 to act
    fresh = json_format.MessageToDict(stub.ValidateHand(pb.ValidateHandRequest(record=json_format.ParseDict(record, pb.HandRecord())),
                                                        timeout=10).result)
    assert fresh["valid"] is True and fresh["finished"] is False and fresh["next"]["seat"] == 0
    bad = dict(record, actions=["2 envite"])  # not seat 2's turn: the violation of action 0
    result = json_format.MessageToDict(stub.ValidateHand(pb.ValidateHandRequest(record=json_format.ParseDict(bad, pb.HandRecord())),
                                                         timeout=10).result)
    assert result["valid"] is False and result["finished"] is False and result["violation"]["action"] == 0
    legal = json_format.MessageToDict(stub.LegalActions(pb.LegalActionsRequest(record=json_format.ParseDict(record, pb.HandRecord())),
                                                        timeout=10))
    assert legal["valid"] is True and legal["finished"] is False and {a["seat"] for a in legal["actions"]} == {0}
    trick = json_format.MessageToDict(stub.ResolveTrick(json_format.ParseDict(
        {"game": "rentoy", "contract": {"trump": "oros"}, "cards": "2o 1o"}, pb.ResolveTrickRequest()), timeout=10))
    assert trick["winnerIndex"] == 0 and trick["complete"] is False
    dealt = json_format.MessageToDict(stub.Deal(pb.DealRequest(game="rentoy", seats=4, dealer=0, seed="x"), timeout=10))
    assert dealt["dealer"] == 0
    # Seat 0's envite, waiting for its answer: the proposal names seat 0 (it printed only its value).
    betting = dict(record, actions=["0 envite"])
    proposal = json_format.MessageToDict(stub.ValidateHand(pb.ValidateHandRequest(record=json_format.ParseDict(betting, pb.HandRecord())),
                                                           timeout=10).result)["proposal"]
    assert proposal == {"value": 3, "seat": 0} == api.validate(betting)["proposal"]
    # Every int32 of an answer where 0 is a value (a seat, an amount) has presence, as every
    # bool does: a standard printer leaves out only what the answer does not set.
    for message in pb.DESCRIPTOR.message_types_by_name.values():
        if message.name.endswith("Request") or message.name in ("HandRecord", "Deal", "Table", "CartulinaEntry", "Contract",
                                                                 "RentoySummary", "TresilloSummary", "RevesinoSummary", "RevesinoTrick"):
            continue
        for field in message.fields:
            if field.type in (field.TYPE_INT32, field.TYPE_BOOL) and not is_repeated(field):
                assert field.has_presence, f"{message.name}.{field.name}"
