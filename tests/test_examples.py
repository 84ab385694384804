"""Golden records: every sample in shared/records/examples validates to its expected figures.

The glob takes every game's samples.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from examples_support import examples_dir

from engine import api

EXAMPLES = examples_dir()
FILES = sorted(EXAMPLES.glob("*-*.json"))


def test_the_rentoy_samples_are_there():
    names = {f.name for f in FILES}
    assert {"rentoy-full-01.json", "rentoy-full-10.json", "rentoy-full-30.json",
            "rentoy-part-01-play.json", "rentoy-bad-13-must-play-trump.json"} <= names


@pytest.mark.parametrize("path", FILES, ids=[f.stem for f in FILES])
def test_example(path: Path):
    sample = json.loads(path.read_text())
    record, expect = sample["record"], sample["expect"]
    result = api.validate(record)

    assert result["valid"] is expect["valid"]
    if not expect["valid"]:
        got = result["violation"]
        assert (got["action"], got["code"]) == (expect["violation"]["action"], expect["violation"]["code"])
        assert result["finished"] is False
        assert "points" not in result and "net" not in result
        return
    assert "violation" not in result
    assert result["finished"] is expect["finished"]
    if "tricks" in expect:
        assert [t["winner"] for t in result["tricks"] if "winner" in t] == expect["tricks"]
    if expect["finished"]:
        assert "next" not in result
        for key in ("points", "net", "table"):
            if key in expect:
                assert result[key] == expect[key], key
    else:
        assert result["next"]["seat"] == expect["next"]["seat"]
        assert len(result["next"]["legal"]) == len(set(result["next"]["legal"])), "an action listed twice"
        assert set(result["next"]["legal"]) == set(expect["next"]["legal"])
