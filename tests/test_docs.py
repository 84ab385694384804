"""The docs say what the code does: the error table of docs/api.md is the service's table, and
the options table of docs/rules/rentoy.md is the engine's."""

from __future__ import annotations

import re
from pathlib import Path

from engine import api
from engine.errors import VIOLATION_CODES
from service.errors import ERRORS

DOCS = Path(__file__).resolve().parents[1] / "docs"


def test_api_doc_lists_every_error_with_its_statuses() -> None:
    text = (DOCS / "api.md").read_text()
    rows = {m[0]: (int(m[1]), m[2]) for m in re.findall(r"^\| `(\w+)` \| (\d+) \| `(\w+)` \|", text, re.M)}
    assert rows == {code: (kind.http_status, kind.grpc_code.name) for code, kind in ERRORS.items()}


def test_api_doc_lists_every_violation_code() -> None:
    text = (DOCS / "api.md").read_text()
    for code in VIOLATION_CODES:
        assert f"| `{code}` |" in text


def test_rentoy_doc_lists_every_option_with_its_default() -> None:
    text = (DOCS / "rules" / "rentoy.md").read_text()
    rows = dict(re.findall(r"^\| `(\w+)` \| `?([^`|]+?)`? \|", text, re.M))
    for option in api.describe_rules("rentoy")["options"]:
        default = option["default"]
        shown = str(default).lower() if isinstance(default, bool) else f'"{default}"'
        assert rows.get(option["name"]) == shown, option["name"]
