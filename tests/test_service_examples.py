"""Every sample record of shared/records/examples (every game), over gRPC and REST: both
transports answer the same result as the engine, it has the figures the sample expects, and
LegalActions agrees with it."""

from __future__ import annotations

from pathlib import Path

import pytest
from service_support import assert_matches_expect, call_both, examples_dir, load_example

from engine import api

EXAMPLES = sorted(examples_dir().glob("*.json"))


@pytest.mark.parametrize("game,least", [("rentoy", 3), ("tresillo", 5), ("revesino", 5)])
def test_there_are_examples_of_every_game(game: str, least: int) -> None:
    assert len([p for p in EXAMPLES if p.stem.startswith(f"{game}-")]) >= least


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_example_over_both_transports(path: Path, stub, http, rest_url) -> None:
    record, expect = load_example(path)
    result = call_both(stub, http, rest_url, "ValidateHand", {"record": record})
    assert result == api.validate(record)
    assert_matches_expect(result, expect)
    legal = call_both(stub, http, rest_url, "LegalActions", {"record": record})
    assert legal == api.legal_actions(record)
    assert legal["valid"] is expect["valid"]


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_example_legal_actions_agree_with_validation(path: Path, stub, http, rest_url) -> None:
    record, expect = load_example(path)
    answer = call_both(stub, http, rest_url, "LegalActions", {"record": record})
    result = api.validate(record)
    assert answer["valid"] is result["valid"]
    if "next" in result:
        assert answer["seat"] == result["next"]["seat"]
        assert answer["legal"] == result["next"]["legal"]
        assert [a["notation"] for a in answer["actions"]] == answer["legal"]
