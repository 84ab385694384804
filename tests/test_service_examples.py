"""Every Rentoy sample record of shared/records/examples, over gRPC and REST: both transports
answer the same result, and it has the figures the sample expects."""

from __future__ import annotations

from pathlib import Path

import pytest
from service_support import call_both, load_example, rentoy_examples

from engine import api

EXAMPLES = rentoy_examples()


def test_there_are_rentoy_examples() -> None:
    assert len(EXAMPLES) >= 3


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_example_over_both_transports(path: Path, stub, http, rest_url) -> None:
    record, expect = load_example(path)
    result = call_both(stub, http, rest_url, "ValidateHand", {"record": record})
    assert result == api.validate(record)

    assert result["valid"] is expect["valid"]
    if "violation" in expect:
        assert result["violation"]["action"] == expect["violation"]["action"]
        assert result["violation"]["code"] == expect["violation"]["code"]
    else:
        assert "violation" not in result
    if "finished" in expect:
        assert result["finished"] is expect["finished"]
    if "tricks" in expect:
        assert [t["winner"] for t in result["tricks"] if "winner" in t] == expect["tricks"]
    if "next" in expect:
        assert result["next"]["seat"] == expect["next"]["seat"]
        assert sorted(result["next"]["legal"]) == sorted(expect["next"]["legal"])
    for key in ("points", "net", "table"):
        if key in expect:
            assert result[key] == expect[key], key


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
