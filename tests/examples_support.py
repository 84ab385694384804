"""The shared sample records (shared/records/examples) and the check of their expected figures,
without any transport, for the engine tests and the service tests alike."""

from __future__ import annotations

import json
import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def examples_dir() -> Path:
    """shared/records/examples: $NAIPES_SHARED, else shared/ beside the checkout, else /work/shared."""
    candidates = [Path(os.environ["NAIPES_SHARED"])] if os.environ.get("NAIPES_SHARED") else []
    candidates += [ROOT.parent / "shared", Path("/work/shared")]
    for base in candidates:
        if (base / "records" / "examples").is_dir():
            return base / "records" / "examples"
    raise FileNotFoundError("shared/records/examples not found: set NAIPES_SHARED")


def rentoy_examples() -> list[Path]:
    return sorted(examples_dir().glob("rentoy-*.json"))


def load_example(path: Path) -> tuple[dict, dict]:
    data = json.loads(path.read_text())
    return data["record"], data["expect"]


def assert_matches_expect(result: dict, expect: dict) -> None:
    """A validation result has every figure a shared example's ``expect`` gives (validity, the
    first violation's index and code, finished, trick winners, next seat and legal set, points,
    net, table)."""
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
