"""Every Rentoy sample record of shared/records/examples, over gRPC and REST: both transports
answer the same result, and it has the figures the sample expects."""

from __future__ import annotations

from pathlib import Path

import pytest
from service_support import assert_matches_expect, call_both, load_example, rentoy_examples

from engine import api

EXAMPLES = rentoy_examples()


def test_there_are_rentoy_examples() -> None:
    assert len(EXAMPLES) >= 3


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_example_over_both_transports(path: Path, stub, http, rest_url) -> None:
    record, expect = load_example(path)
    result = call_both(stub, http, rest_url, "ValidateHand", {"record": record})
    assert result == api.validate(record)

    assert_matches_expect(result, expect)


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
