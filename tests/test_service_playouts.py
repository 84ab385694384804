"""Random legal playouts, every prefix validated over REST: the JSON REST answers equals
``engine.api.validate(record)`` exactly (the proto schema and its JSON printing lose nothing and
add nothing), and the gRPC answer equals the REST one."""

from __future__ import annotations

import random

import pytest
from service_support import call_both, call_grpc, call_rest

from engine import api

HANDS = 60


def random_record(rng: random.Random) -> dict:
    seats = rng.choice([2, 4, 6, 8])
    rules = {}
    for option in api.describe_rules("rentoy")["options"]:
        if rng.random() < 0.5:
            rules[option["name"]] = rng.choice(option["choices"])
    record = {"game": "rentoy", "seats": seats, "dealer": rng.randrange(seats), "rules": rules,
              "deal": {"seed": f"playout-{rng.random()}"}, "actions": []}
    if rng.random() < 0.7:
        record["table"] = {"score": [rng.randrange(12), rng.randrange(12)]}
    # Half the deals are spelled out as cards, as an app would send them.
    if rng.random() < 0.5:
        record["deal"] = api.deal({"game": "rentoy", "seats": seats, "dealer": record["dealer"],
                                   "seed": record["deal"]["seed"]})["deal"]
    return record


def playout(rng: random.Random) -> list[dict]:
    """Every prefix of one random legal hand, plus one record ending in an illegal action."""
    record = random_record(rng)
    prefixes = [dict(record, actions=[])]
    while True:
        result = api.validate(record)
        assert result["valid"]
        if result["finished"]:
            break
        record = dict(record, actions=[*record["actions"], rng.choice(result["next"]["legal"])])
        prefixes.append(record)
    cut = rng.randrange(len(record["actions"]))
    bad = rng.choice(["0 1o", "1 envite", "0 quiero", "9 1o", "1 x", f"{rng.randrange(record['seats'])} 12b"])
    prefixes.append(dict(record, actions=[*record["actions"][:cut], bad]))
    return prefixes


@pytest.mark.parametrize("seed", range(HANDS))
def test_rest_result_is_the_engine_result(seed: int, stub, http, rest_url) -> None:
    rng = random.Random(seed)
    records = playout(rng)
    for record in records:
        assert call_rest(http, rest_url, "ValidateHand", {"record": record}) == api.validate(record)
    for record in (records[len(records) // 2], records[-2], records[-1]):
        assert call_grpc(stub, "ValidateHand", {"record": record}) == api.validate(record)


def test_playouts_reach_violations_and_ends() -> None:
    """The playouts above do exercise finished hands and violations."""
    finished = violations = 0
    for seed in range(HANDS):
        records = playout(random.Random(seed))
        finished += api.validate(records[-2])["finished"]
        violations += not api.validate(records[-1])["valid"]
    assert finished == HANDS
    assert violations >= HANDS // 2


@pytest.mark.parametrize("seed", range(0, HANDS, 6))
def test_rest_legal_actions_are_the_engine_legal_actions(seed: int, stub, http, rest_url) -> None:
    """LegalActions, for every seat's view and the table's, is the engine's answer on both
    transports, including records that end in an illegal action."""
    records = playout(random.Random(seed))
    for record in (records[0], records[len(records) // 2], records[-2], records[-1]):
        for seat in (None, *range(record["seats"])):
            request = {"record": record} if seat is None else {"record": record, "seat": seat}
            expected = api.legal_actions(record, seat)
            assert call_both(stub, http, rest_url, "LegalActions", request) == expected
