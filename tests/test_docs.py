"""The docs say what the code does: the error table of docs/api.md is the service's table, the
options table of docs/rules/rentoy.md and the option amounts of docs/rules/revesino.md are the
engine's."""

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


def test_revesino_doc_gives_each_amount_option_its_values() -> None:
    """docs/rules/revesino.md's "Option amounts": the range (``1–50``) or the alternatives
    (``4 or 0``) of every integer option are the values DescribeRules offers, and a record's rules
    may set each of them."""
    from engine.options import parse_options, snake
    from engine.revesino_options import Options

    text = (DOCS / "rules" / "revesino.md").read_text()
    amounts = re.search(r"^\*\*Option amounts\.\*\*(.*?)\n\n", text, re.M | re.S)
    assert amounts
    said = {}
    for name, low, high, either, other in re.findall(r"`(\w+)` (?:(\d+)–(\d+)|(?:is )?(\d+) or (\d+))", amounts[1]):
        said[name] = list(range(int(low), int(high) + 1)) if low else [int(either), int(other)]
    offered = {o["name"]: o["choices"] for o in api.describe_rules("revesino")["options"] if type(o["default"]) is int}
    assert said == offered
    for name, values in said.items():
        for value in values:
            assert getattr(parse_options(Options, {name: value}), snake(name)) == value


def test_format_doc_is_the_shared_contract_with_its_decisions_marked() -> None:
    """docs/format.md is records/FORMAT.md of the shared specification: each of its paragraphs
    (tables and examples included) is there, and each paragraph of the project's copy that is not
    the contract's is its title comment, a link to the project's rules docs where the contract
    points at ../rules/, or a Naipes decision saying so."""
    from examples_support import examples_dir

    shared = (examples_dir().parent / "FORMAT.md").read_text().split("\n\n")
    ours = (DOCS / "format.md").read_text().split("\n\n")
    missing = [p for p in shared if p not in ours and "../rules/" not in p]
    assert missing == []
    added = [p for p in ours if p not in shared and not p.startswith("<!--") and "](rules/" not in p and "(A Naipes decision" not in p]
    assert added == []


def test_api_doc_names_every_media_type_the_rest_api_reads() -> None:
    from service import rest

    text = (DOCS / "api.md").read_text()
    row = next(line for line in text.splitlines() if line.startswith("| `UNSUPPORTED_MEDIA_TYPE` |"))
    assert all(f"`{media}`" in row for media in rest._NDJSON_TYPES), row
    assert rest._JSON_TYPES.match("application/problem+json") and "`application/*+json`" in row


def test_deal_doc_gives_the_algorithm_as_a_deal_answer_names_it() -> None:
    text = " ".join((DOCS / "deal.md").read_text().split())
    algorithm = api.deal({"game": "rentoy", "seats": 4, "dealer": 0, "seed": "s"})["algorithm"]
    assert f"`{algorithm}`" in text and f"`{algorithm.split(':')[0]}`" in text
