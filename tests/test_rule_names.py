"""Every rule of the specification has a test named after it (shared/rules/<game>.md): each ID the
spec defines (a heading or a bold lead-in such as ``**A18.``, ``**R27**``, ``**RV-8 —``) is named
by a test function of tests/, in its name (``test_a18_...``, ``test_a6_2_...``, ``test_rv02a_...``)
or in its docstring (``R15, A6.4: ...``)."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest
from examples_support import examples_dir

TESTS = Path(__file__).resolve().parent

# IDs that name no rule to test, each with the reason.
NOT_RULES = {
    ("tresillo", "A34"): "a note that the seed lacks its sections 16 and 17",
    ("revesino", "S0"): "a seat's name (the dealer), in a heading of the worked examples",
    ("rentoy", "S2"): "a seat's name, in a heading of the worked examples",
}


def spec_ids(game: str) -> list[str]:
    """The IDs the spec of ``game`` defines: at the start of a heading or of a bold lead-in."""
    text = (examples_dir().parent.parent / "rules" / f"{game}.md").read_text()
    found = re.findall(r"^(?:#+ |\*\*|[*-] \*\*)([A-Z]{1,2}-?\d+(?:\.\d+)?)\b", text, re.MULTILINE)
    return sorted(set(found))


def functions() -> list[tuple[str, str]]:
    """Every test function's name and docstring, in every test module."""
    out = []
    for path in TESTS.glob("test_*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
                out.append((node.name, ast.get_docstring(node) or ""))
    return out


def named(rule: str, tests: list[tuple[str, str]]) -> list[str]:
    """The tests naming ``rule``: A6.2 as ``a6_2`` in the name or ``A6.2`` in the docstring; RV-8
    as ``rv8``, ``rv08`` or ``rv08b`` in the name or ``RV-8`` in the docstring."""
    letters, number = re.match(r"([A-Z]+)-?(\d+(?:\.\d+)?)", rule).groups()  # type: ignore[union-attr]
    major, _, minor = number.partition(".")
    in_name = re.compile(rf"(?:^|_){letters.lower()}0?{major}{'_' + minor if minor else ''}[a-z]?(?:_(?!\d)|$)")
    in_doc = re.compile(rf"\b{re.escape(rule)}(?![\d.]*\d)")
    return [name for name, doc in tests if in_name.search(name) or in_doc.search(doc)]


@pytest.mark.parametrize("game", ["tresillo", "revesino", "rentoy"])
def test_every_rule_of_the_spec_has_a_test_named_after_it(game: str) -> None:
    ids = spec_ids(game)
    assert len(ids) >= 30, ids  # the spec was read (each defines 30 to 80)
    tests = functions()
    missing = [rule for rule in ids if (game, rule) not in NOT_RULES and not named(rule, tests)]
    assert missing == [], f"{game}: no test names {missing}"


def test_the_names_are_read_as_ids() -> None:
    tests = [("test_a6_2_aces", ""), ("test_r13_r27_napolitana", ""), ("test_rv02a_sweep", ""), ("test_x", "R15, A6.4: the escrow")]
    assert named("A6.2", tests) == ["test_a6_2_aces"]
    assert named("A6", tests) == []  # A6.2 is not its heading A6
    assert named("R27", tests) == ["test_r13_r27_napolitana"]
    assert named("R2", tests) == []  # not R27
    assert named("RV-2", tests) == ["test_rv02a_sweep"]
    assert named("A6.4", tests) == ["test_x"] and named("R15", tests) == ["test_x"] and named("A6", tests) == []


@pytest.mark.parametrize("game", ["tresillo", "revesino", "rentoy"])
def test_every_option_names_a_rule_of_the_spec(game: str) -> None:
    """Each rules option names the rule it changes (DescribeRules' ``rule``): an ID the spec
    defines, or the number of one of its sections (Tresillo's 4 and 8.2)."""
    from engine import api

    text = (examples_dir().parent.parent / "rules" / f"{game}.md").read_text()
    ids = set(spec_ids(game))
    for option in api.describe_rules(game)["options"]:
        rule = option["rule"]
        assert rule in ids or re.search(rf"^#+ {re.escape(rule)}\.? ", text, re.MULTILINE), (option["name"], rule)


# Options of the engine that no spec names, each with the reason (docs/rules/<game>.md says more).
NOT_IN_SPEC = {
    ("tresillo", "surrenderedVueltaRounding"): "A37 and §8.7 against A21's roundedDouble",
    ("revesino", "implicitNapolitanaRefund"): "a case of R24 the spec does not raise",
    ("revesino", "napolitanaQuinolaPayback"): "R22's factor for the sold quínola's fondo take, Hoyle's reading",
    ("revesino", "announcerQuinola"): "R19's own quínola as the seed's quínola jugada, forced only",
    ("revesino", "renuncioForfeits"): "R28's scope, read from the seed's 'no tendrá derecho a cobrar ninguno'",
}


@pytest.mark.parametrize("game", ["tresillo", "revesino", "rentoy"])
def test_every_option_the_spec_names_is_offered_with_its_default_and_values(game: str) -> None:
    """The options the spec names are DescribeRules' options: Tresillo's Appendix A gives every
    name and default, and each ``[CFG:name]`` mark names one; Revesino writes option names in
    snake_case (``allow_revokes``, ``tiebreak_order = dealer_then_left``, alternatives as
    ``wins_hand | scored_normally``), each an option whose values include those written; Rentoy
    names ``ladder``. Every option the spec leaves unnamed but describes (R5, R12, T2, ...) is an
    option only by the rule it names (test above)."""
    from engine import api
    from engine.options import camel

    text = (examples_dir().parent.parent / "rules" / f"{game}.md").read_text()
    flat = " ".join(text.split())
    offered = {o["name"]: o for o in api.describe_rules(game)["options"]}
    if game == "tresillo":
        appendix = re.search(r"## Appendix A.*?```json\n(.*?)```", text, re.S)
        assert appendix
        defaults = json.loads(appendix[1])
        ours = {name: o["default"] for name, o in offered.items() if (game, name) not in NOT_IN_SPEC}
        assert ours == defaults
        assert all(type(ours[name]) is type(value) for name, value in defaults.items())
        marks = set(re.findall(r"\[CFG:(\w+)", text)) - {"name"}  # the intro's `[CFG:name]`
        assert len(marks) >= 25 and marks <= set(offered), marks - set(offered)
        for name, value in re.findall(r"\[CFG:(\w+)\s*=\s*(\w+)\]", flat):  # [CFG:name=default]
            assert json.dumps(offered[name]["default"]) == value, name
    elif game == "revesino":
        named = re.findall(r"`([a-z][a-z0-9]*_[a-z0-9_]*)(?:\(n\))?(?:\s*=\s*([^`]+))?`", flat)
        values = {v for o in offered.values() for v in o["choices"] if isinstance(v, str)}
        names = set()
        for name, written in named:
            if camel(name) in values and not written:
                continue  # a value (`party_from_each`, `extra_fondo`)
            names.add(camel(name))
            assert camel(name) in offered, name
            for value in (v.strip() for v in written.split("|") if written):
                assert camel(value) in offered[camel(name)]["choices"] or value.isdigit() and int(value) in offered[camel(name)]["choices"], (name, value)
        assert len(names) >= 20
        assert {n for g, n in NOT_IN_SPEC if g == game} <= set(offered) - names
    else:
        assert re.search(r"Configurable \(`ladder`\)", flat) and "ladder" in offered
    assert {n for g, n in NOT_IN_SPEC if g == game} <= set(offered)
