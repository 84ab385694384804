"""The TypeScript types of the JavaScript client (clients/js/naipes.d.mts, and messages.d.mts,
generated from the proto): up to date with the proto, right about the client's methods, strict
enough that a wrong use does not type-check, and true of what the real server answers (each answer
written as a typed constant and checked by tsc, whose excess-property checks catch a field the
types lack, as its required fields catch one they claim and the server leaves out). A request's
house rules are typed by its game (rules.d.mts, generated from the engine's option tables): the
types take what the real server takes, option by option and value by value, and refuse what it
refuses but a number off an option's range; every sample record and the README's requests type-check.

The tools (clients/js/package.json: ts-proto, TypeScript) are installed from the lockfile into
build/js-tools by ``make js-tools`` (npm, the first time only)."""

from __future__ import annotations

import json
import random
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests
from examples_support import examples_dir

from engine import api
from engine.options import snake

ROOT = Path(__file__).resolve().parents[1]
JS = ROOT / "clients" / "js"
TOOLS = ROOT / "build" / "js-tools" / "node_modules"
CLIENT = json.dumps(str(JS / "naipes.mjs"))
MESSAGES = json.dumps(str(JS / "messages.mjs"))
EXAMPLES = sorted((ROOT / "clients" / "examples").glob("*-hand.json"))


@pytest.fixture(scope="module")
def tsc(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """``tsc(*files, node=False)``: tsc --strict --noEmit over the files (ES modules; with ``node``,
    Node.js's types too), its exit code and output."""
    assert shutil.which("npm"), "npm is needed to install the TypeScript tools (.ci/run installs it)"
    make = subprocess.run(["make", "-s", "js-tools"], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert make.returncode == 0, make.stdout + make.stderr
    projects = tmp_path_factory.mktemp("tsc")

    def run(*files: Path, node: bool = False) -> tuple[int, str]:
        project = projects / f"tsconfig-{len(list(projects.iterdir()))}.json"
        project.write_text(json.dumps({"compilerOptions": {
            "strict": True, "noEmit": True, "module": "nodenext", "target": "es2022", "typeRoots": [str(TOOLS / "@types")],
            "types": ["node"] if node else []}, "files": [str(f) for f in files]}))
        done = subprocess.run([str(TOOLS / ".bin" / "tsc"), "-p", str(project)], cwd=ROOT, capture_output=True, text=True,
                              timeout=300)
        return done.returncode, done.stdout + done.stderr

    yield run


def test_message_types_are_generated_from_the_proto(tsc: Any, tmp_path: Path) -> None:
    """clients/js/messages.d.mts is what tools/jstypes.py makes of the proto now, and
    clients/js/rules.d.mts what it makes of the engine's option tables (make js-types)."""
    run = subprocess.run([sys.executable, str(ROOT / "tools" / "jstypes.py"), "--out", str(tmp_path)], cwd=tmp_path,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    for name in ("messages.d.mts", "rules.d.mts"):  # (rules.d.mts: an option added to the engine's tables)
        assert (tmp_path / name).read_text() == (JS / name).read_text(), f"clients/js/{name} is out of date: make js-types"
    fresh = (tmp_path / "messages.d.mts").read_text()
    # Every list the server may leave out is optional; the lists every answer has are not.
    assert re.search(r"(?m)^  tricks: Trick\[\];$", fresh) and re.search(r"(?m)^  net\?: number\[\] \| undefined;$", fresh)


def test_declarations_name_the_clients_methods() -> None:
    """naipes.d.mts declares every method of naipes.mjs's Naipes, and no other."""
    source = (JS / "naipes.mjs").read_text()
    body = source[source.index("export class Naipes {"):]
    body = body[:body.index("\n}\n")]
    methods = set(re.findall(r"(?m)^  (?:async )?\*?([a-zA-Z]\w*)\(", body)) - {"constructor"}
    declared = (JS / "naipes.d.mts").read_text()
    declared = declared[declared.index("export class Naipes {"):]
    assert set(re.findall(r"(?m)^  ([a-zA-Z]\w*)[(<]", declared)) - {"constructor"} == methods
    assert "export class NaipesError extends Error" in (JS / "naipes.d.mts").read_text()


def test_codes_are_the_tables() -> None:
    """messages.d.mts's ServiceErrorCode is service/errors.py's table and ViolationCode the engine's
    violations, code for code and in their order; an error's and a violation's code are typed so."""
    from engine.errors import VIOLATION_CODES
    from service.errors import ERRORS

    declared = (JS / "messages.d.mts").read_text()
    for name, table in (("ServiceErrorCode", ERRORS), ("ViolationCode", VIOLATION_CODES)):
        union = declared[declared.index(f"export type {name} ="):]
        union = union[:union.index(";")]
        assert re.findall(r'\| "([A-Z_]+)"', union) == list(table), name
    for interface, name in (("Violation", "ViolationCode"), ("Problem", "ServiceErrorCode")):
        body = declared[declared.index(f"export interface {interface} {{"):]
        assert f"  code: {name};" in body[:body.index("\n}")], interface


def test_the_typescript_example_type_checks(tsc: Any) -> None:
    """clients/examples/validate.mts, validate.mjs in TypeScript reading the result's fields."""
    status, output = tsc(ROOT / "clients" / "examples" / "validate.mts", node=True)
    assert status == 0, output


# Wrong uses, each of which tsc must refuse, with a word of its message.
WRONG = {
    "misspelt_answer_field": ("const r = await naipes.validateHand(record); r.violaton;", "violaton"),
    "misspelt_record_field": ("await naipes.validateHand({ ...record, dealr: 0 });", "dealr"),
    "number_for_an_action": ('await naipes.validateHand({ ...record, actions: ["1 1e", 7] });', "number"),
    "number_for_a_card": ("await naipes.validateHand({ ...record, deal: { hands: [1], stock: \"5c\" } });", "number"),
    "number_for_cards": ('await naipes.resolveTrick({ game: "rentoy", seats: 2, contract: { trump: "oros" }, cards: 12 });', "number"),
    "string_for_seats": ('await naipes.legalActions(record, "3");', "string"),
    "number_for_a_game": ("await naipes.describeRules(3);", "number"),
    "rules_of_no_such_game": ('await naipes.describeRules("mus");', '"mus"'),
    "rules_of_any_string": ('const name: string = "rentoy"; await naipes.describeRules(name);', "Game"),
    "deal_of_no_such_game": ('await naipes.deal({ game: "mus", seats: 4, dealer: 0, seed: "s" });', '"mus"'),
    "number_for_a_request_id": ("await naipes.validateHand(record, { requestId: 7 });", "number"),
    "misspelt_request_id": ('await naipes.deal({}, { requestID: "abc-1" });', "requestID"),
    "request_id_for_the_seat": ('await naipes.legalActions(record, { requestId: "abc-1" });', "requestId"),
    "string_for_omit_events": ('await naipes.validateHand(record, { omitEvents: "true" });', "string"),
    "omit_events_on_legal_actions": ('await naipes.legalActions(record, 3, { omitEvents: true });', "omitEvents"),
    "list_that_may_be_absent": ("const r = await naipes.validateHand(record); r.payments.length;", "undefined"),
    "answer_not_narrowed": ("const [a] = await naipes.validateHands([record]); a.result.valid;", "undefined"),
    "streamed_answer_not_narrowed": ("for await (const a of naipes.validateHandsStream([record])) a.result.valid;", "undefined"),
    "stream_awaited_as_a_list": ("const answers = await naipes.validateHandsStream([record]); answers.length;", "length"),
    "field_the_answer_lacks": ('const r: ValidationResult = { game: "rentoy", tricks: [], events: [], valide: true };', "valide"),
    "field_the_answer_has": ('const r: ValidationResult = { game: "rentoy", tricks: [] };', "events"),
    "error_code_as_number": ("try { await naipes.deal({}); } catch (e) { if (e instanceof NaipesError) { const n: number = e.code; } }", "number"),
    "violation_code_not_in_the_table": ('const r = await naipes.validateHand(record); if (r.violation?.code === "MUST_FOLLOW") {}',
                                        "MUST_FOLLOW"),
    "error_code_not_in_the_table": ('try { await naipes.deal({}); } catch (e) { if (e instanceof NaipesError && e.code === "TOO_MANY_STREAM") {} }',
                                    "TOO_MANY_STREAM"),
    # House rules, typed by the request's game (rules.d.mts).
    "rentoy_ladder_not_a_ladder": ('await naipes.validateHand({ game: "rentoy", seats: 4, rules: { ladder: "1-2-3" } });', '"1-2-3"'),
    "record_ladder_not_a_ladder": ('const r: HandRecord = { game: "rentoy", seats: 4, rules: { ladder: "1-2-3" } };', '"1-2-3"'),
    "unknown_option": ('await naipes.validateHand({ game: "rentoy", rules: { ladders: "1-3-6-12" } });', "ladders"),
    "tresillo_option_on_revesino": ('await naipes.validateHand({ game: "revesino", seats: 4, rules: { favorSuit: "oros" } });',
                                    "favorSuit"),
    "revesino_option_on_a_tresillo_record": ('const r: HandRecord = { game: "tresillo", rules: { stake: 3 } };', "stake"),
    "option_value_of_another_option": ('await naipes.legalActions({ game: "tresillo", rules: { favorSuit: "asSolo" } });', "asSolo"),
    "number_not_in_the_list": ('await naipes.validateHand({ game: "tresillo", rules: { estucheCap: 7 } });', "7"),
    "number_as_a_string": ('await naipes.validateHand({ game: "revesino", rules: { stake: "3" } });', "string"),
    "boolean_as_a_string": ('await naipes.validateHand({ game: "rentoy", rules: { playAllTricks: "true" } });', "boolean"),
    "spelling_no_spec_has": ('await naipes.validateHand({ game: "revesino", rules: { tiebreakOrder: "dealer__then_left" } });',
                             "dealer__then_left"),
    "trick_rules_of_another_game": ('await naipes.resolveTrick({ game: "rentoy", cards: "1e", rules: { favorSuit: "oros" } });',
                                    "favorSuit"),
    "settle_rules_of_another_game": ('await naipes.settleHand({ game: "tresillo", seats: 3, rules: { ladder: "1-3-6-12" } });',
                                     "ladder"),
    # (tsc's message names the rules of a game the record might be: rules need a game)
    "rules_without_a_game": ('await naipes.validateHand({ seats: 4, rules: { ladder: "1-3-6-12" } });', "not assignable"),
    "game_not_a_game": ('await naipes.validateHand({ game: "mus", seats: 4 });', '"mus"'),
    "rules_typed_apart_for_another_game": ('const rules: RentoyRules = { ladder: "1-3-6-12" }; await naipes.validateHand({ game: "tresillo", rules });',
                                           "TresilloRules"),
}


# Three lines before each use: the client, a client, a record.
PREAMBLE = f"""import {{ Naipes, NaipesError, type CallOptions, type Game, type HandRecord, type RentoyRules, type ValidationResult }} from {CLIENT};
const naipes = new Naipes("http://127.0.0.1:8080");
const record: HandRecord = {{ game: "rentoy", seats: 4, dealer: 0, deal: {{ hands: ["12e 7o 3b", "2c 1e 4o", "11o 6b 5e", "10c 1o 12b"], stock: "5c" }} }};
"""


def test_wrong_uses_do_not_type_check(tsc: Any, tmp_path: Path) -> None:
    """A misspelt field, a number where a card or action string is expected, a list or an answer
    read without the check its absence needs: each is a type error."""
    files = {}
    for name, (code, _) in WRONG.items():
        files[name] = tmp_path / f"{name}.mts"
        files[name].write_text(PREAMBLE + f"{code}\n")  # (the wrong use on line 4)
    right = tmp_path / "right.mts"  # the same preamble, used rightly
    right.write_text(PREAMBLE + """const timed = new Naipes("http://127.0.0.1:8080", { timeoutMs: 5000 });
const r: ValidationResult = await timed.validateHand({ ...record, actions: ["1 envite"] });
const paid: number = (r.payments ?? []).reduce((sum, p) => sum + (p.amount ?? 0), 0) + r.tricks.length + r.events.length;
for (const answer of await naipes.validateHands([record], { batch: 10 })) {
  if (answer.result) answer.result.valid; else answer.error.code;
}
const view = await naipes.legalActions(record, 3);
const legal: string[] = [...view.legal, ...view.actions.map((a) => a.notation), view.view?.hand ?? ""];
const rules = await naipes.describeRules("tresillo");
for (const game of ["tresillo", "revesino", "rentoy"] as const) await naipes.describeRules(game);
const chosen: Game = "revesino";
await naipes.deal({ game: chosen, seats: 4, dealer: 0, seed: "s" });
await naipes.deal({ seats: 4 });
await naipes.validateHand(record, { requestId: "abc-1" });
await naipes.legalActions(record, null, { requestId: "abc-2" });
await naipes.describeRules("rentoy", { requestId: undefined });
const ids: CallOptions = { requestId: null };
await naipes.validateHand(record, null);  // (options null: none, as undefined)
await naipes.legalActions(record, null, null);
await naipes.deal({ seats: 4 }, null);
await naipes.describeRules("rentoy", null);
await naipes.validateHands([record], null);
for await (const answer of naipes.validateHandsStream([record], null)) answer.result?.valid;
await naipes.validateHands([record], { batch: 10, retries: 1, requestId: "abc-3" });
const brief: ValidationResult = await naipes.validateHand(record, { omitEvents: true, requestId: "abc-4" });
await naipes.validateHands([record], { batch: 10, omitEvents: true });
async function* feed(): AsyncGenerator<HandRecord> { yield record; }
for await (const answer of naipes.validateHandsStream(feed(), { batch: 10, omitEvents: true })) {
  if (answer.result) answer.result.valid; else answer.error.code;
}
await naipes.validateHands(feed());
console.log(brief.events.length);
await naipes.settleHand({ game: "rentoy", rentoy: { winner: 0, value: 1 } }, ids);
const names: string[] = (rules.options ?? []).map((o) => `${o.name}=${o.default}`);
const trick = await naipes.resolveTrick({ game: "rentoy", seats: 2, leader: 0, contract: { trump: "oros" }, cards: "1e 2c" });
const dealt = await naipes.deal({ game: "rentoy", seats: 2, dealer: 1, seed: "s" });
const settled = await naipes.settleHand({ game: "rentoy", seats: 2, rentoy: { winner: 0, value: 1 }, table: { score: [0, 0] } });
try { await naipes.deal({}); } catch (e) { if (e instanceof NaipesError) console.log(e.code, e.field, e.status, e.problem.detail); }
try { await naipes.deal({}); } catch (e) {
  if (e instanceof NaipesError && (e.code === "TOO_MANY_STREAMS" || e.code === "UNAVAILABLE" || e.code === "HTTP_502")) throw e;
}
if (r.violation?.code === "MUST_FOLLOW_SUIT") console.log(r.violation.message);
console.log(paid, legal, names, trick.card, trick.winner, dealt.commitment, dealt.deal?.hands, settled.points);
const house: RentoyRules = { ladder: "1-3-6-12", betTiming: "anytime" };
await naipes.validateHand({ ...record, rules: house });
await naipes.validateHand({ game: "revesino", seats: 4, rules: { tiebreakOrder: "dealer_then_left", stake: 3.0, gergi: true } });
await naipes.resolveTrick({ game: "revesino", cards: "1e", rules: { doubleAcePlaced: "copas" } });
await naipes.settleHand({ game: "tresillo", seats: 3, rules: { favorSuit: "oros", estucheCap: 12 } });
const defaults: (string | number | boolean | undefined)[] = (rules.options ?? []).flatMap((o) => [o.default, ...(o.choices ?? [])]);
console.log(defaults);
""")
    status, output = tsc(right, *files.values())
    assert status != 0
    lines = output.splitlines()
    assert not [line for line in lines if f"/{right.name}(" in line], output
    for name, (_, word) in WRONG.items():
        errors = [line for line in lines if f"/{files[name].name}(4," in line]
        assert errors and any(word in line for line in errors), f"{name} type-checked:\n{output}"


def _post(http: requests.Session, url: str, body: Any, ok: bool = True) -> Any:
    response = http.post(url, json=body, timeout=30)
    assert (response.status_code == 200) is ok, response.text
    return response.json()


def test_real_answers_conform_to_the_types(tsc: Any, rest_url: str, http: requests.Session, tmp_path: Path) -> None:
    """What the real REST server answers (the example records and every third step of them, each
    game's playouts, errors, an NDJSON stream, every other call) is of the declared types."""
    from test_service_revesino import settle_request as revesino_settle
    from test_service_tresillo import settle_request as tresillo_settle

    answers: list[tuple[str, Any]] = []
    records = [json.loads(path.read_text()) for path in EXAMPLES]
    assert len(records) == 3
    rng = random.Random(7)
    for game, seats in (("tresillo", 3), ("tresillo", 4), ("revesino", 4), ("rentoy", 2), ("rentoy", 6)):
        request = {"game": game, "seats": seats, "dealer": seats - 1, "seed": f"ts-{game}-{seats}"}
        answers.append(("DealResponse", _post(http, rest_url + "/v1/deals", request)))
        record = {"game": game, "seats": seats, "dealer": seats - 1, "deal": answers[-1][1]["deal"], "actions": []}
        while not (result := api.validate(record))["finished"]:
            record = dict(record, actions=[*record["actions"], rng.choice(result["next"]["legal"])])
        records.append(record)
    for record in records:
        for cut in sorted({*range(0, len(record["actions"]) + 1, 3), len(record["actions"])}):
            prefix = dict(record, actions=record["actions"][:cut])
            answers.append(("ValidationResult", _post(http, rest_url + "/v1/hands:validate", prefix)))
            answers.append(("LegalActionsResponse", _post(http, rest_url + "/v1/hands:legalActions", prefix)))
            answers.append(("LegalActionsResponse", _post(http, rest_url + "/v1/hands:legalActions?seat=1", prefix)))
        result = api.validate(record)
        assert result["valid"] and result["finished"]
        if record["game"] != "rentoy":
            settle = (tresillo_settle if record["game"] == "tresillo" else revesino_settle)(record, result)
            answers.append(("SettleHandResponse", _post(http, rest_url + "/v1/hands:settle", settle)))
        if record["game"] != "tresillo":  # (a Tresillo trick's trump is its lance's)
            for trick in result["tricks"][:2]:
                request = {"game": record["game"], "seats": record["seats"], "dealer": record["dealer"], "leader": trick["leader"],
                           "cards": " ".join(trick["cards"]), **({"contract": {"trump": result["trump"]}} if "trump" in result else {})}
                answers.append(("ResolveTrickResponse", _post(http, rest_url + "/v1/tricks:resolve", request)))
    rentoy = records[[r["game"] for r in records].index("rentoy")]
    answers.append(("SettleHandResponse", _post(http, rest_url + "/v1/hands:settle",
                                                {"game": "rentoy", "seats": 4, "dealer": 0, "rentoy": {"winner": 1, "value": 3},
                                                 "table": {"score": [5, 4]}})))
    illegal = dict(rentoy, actions=[rentoy["actions"][1], *rentoy["actions"][1:]])
    answers.append(("ValidationResult", violation := _post(http, rest_url + "/v1/hands:validate", illegal)))
    assert violation["valid"] is False and "violation" in violation
    for game in api.GAMES:
        answers.append(("DescribeRulesResponse", http.get(f"{rest_url}/v1/games/{game}/rules", timeout=10).json()))
    # Errors: a field's, one without a field, a route's; as NaipesError.problem holds them.
    answers.append(("ProblemJson", _post(http, rest_url + "/v1/hands:validate", dict(rentoy, game="mus"), ok=False)))
    answers.append(("ProblemJson", http.post(rest_url + "/v1/hands:validate", data="{", timeout=10,
                                             headers={"Content-Type": "application/json"}).json()))
    answers.append(("ProblemJson", http.get(rest_url + "/v1/nothing", timeout=10).json()))
    # An NDJSON stream: a line per message, and a batch's answers as validateHands gives them.
    body = "\n".join(json.dumps(line) for line in (
        rentoy, {"id": "x", "record": dict(rentoy, seats="four")},
        {"batch": [{"record": r} for r in records[:3]] + [{"record": dict(rentoy, game="mus")}]}, {"batch": [{}] * 1001}))
    stream = http.post(rest_url + "/v1/hands:validateStream", data=body, headers={"Content-Type": "application/x-ndjson"}, timeout=30)
    lines = [json.loads(line) for line in stream.text.splitlines()]
    assert len(lines) == 4 and "error" in lines[1] and "error" in lines[3], lines
    answers += [("M.ValidateHandsResponse", line) for line in lines]
    answers += [("ValidateHandsAnswer", item) for item in lines[2]["batch"]]
    assert {key for _, answer in answers for key in answer if key in ("violation", "payments", "condiciones", "error")} == \
        {"violation", "payments", "condiciones", "error"}

    types = sorted({kind for kind, _ in answers if not kind.startswith("M.")})
    source = [f"import type {{ {', '.join(types)} }} from {CLIENT};", f"import type * as M from {MESSAGES};"]
    source += [f"export const a{i}: {kind} = {json.dumps(answer)};" for i, (kind, answer) in enumerate(answers)]
    path = tmp_path / "answers.mts"
    path.write_text("\n".join(source) + "\n")
    status, output = tsc(path)
    assert status == 0, output[:5000]
    assert len(answers) > 150


def _interface(declared: str, name: str) -> str:
    body = declared[declared.index(f"export interface {name} {{\n"):]
    return body[:body.index("\n}\n")]


def _is_run(choices: list[Any]) -> bool:
    """An option's values are a run of three integers or more (range(1, 51)), typed as number."""
    return all(type(c) is int for c in choices) and len(choices) > 2 and sorted(choices) == list(range(min(choices), max(choices) + 1))


def test_rule_types_are_the_engines_tables() -> None:
    """rules.d.mts has every game's every option, in DescribeRules' order, typed by the values it
    takes: a closed list as its literals (a lowerCamelCase string also as the rules specs spell
    it), a switch as boolean, a run of integers as number with its bounds; its doc comment gives
    its description, rule and default. GameRules names each game's interface."""
    declared = (JS / "rules.d.mts").read_text()
    for game in api.GAMES:
        body = _interface(declared, f"{game.title()}Rules")
        fields = re.findall(r"(?ms)^  /\*\*(.*?)\*/\n  (\w+)\?: (.+?) \| undefined;$", body)
        options = api.describe_rules(game)["options"]
        assert [name for _, name, _ in fields] == [option["name"] for option in options], game
        for (doc, name, type_text), option in zip(fields, options, strict=True):
            doc = " ".join(doc.replace("*", " ").split())
            assert option["doc"] in doc and f"(rule {option['rule']})" in doc and doc.endswith(f"Default {json.dumps(option['default'])}."), doc
            choices = option["choices"]
            if all(isinstance(c, bool) for c in choices):
                assert type_text == "boolean", name
            elif _is_run(choices):
                assert type_text == "number" and f"An integer from {min(choices)} to {max(choices)}." in doc, name
            else:
                spellings = {json.dumps(c) for c in choices} | {json.dumps(snake(c)) for c in choices if isinstance(c, str)}
                assert set(type_text.split(" | ")) == spellings, name
    assert _interface(declared, "GameRules").splitlines()[1:] == [f"  {game}: {game.title()}Rules;" for game in api.GAMES]


def _rule_cases() -> list[tuple[str, dict[str, Any], bool, bool]]:
    """(game, rules, accepted, typed): every option of every game at each value it takes (a
    lowerCamelCase string also as the rules spec spells it; a run of integers at its bounds, and
    its top as a float), then rules the service refuses: a value off the list, another option's
    value, a number or a boolean as a string, a spelling no spec has, another game's option, an
    unknown name; all of which the types refuse but a number off a run, which is a number."""
    cases: list[tuple[str, dict[str, Any], bool, bool]] = []
    for game in api.GAMES:
        for option in api.describe_rules(game)["options"]:
            choices = option["choices"]
            if _is_run(choices):
                values = [min(choices), max(choices)]
                cases += [(game, {option["name"]: float(max(choices))}, True, True), (game, {option["name"]: max(choices) + 1}, False, True)]
            else:
                values = [*choices, *{snake(c) for c in choices if isinstance(c, str)} - set(choices)]
            cases += [(game, {option["name"]: value}, True, True) for value in values]
    refused = [("rentoy", {"ladder": "1-2-3"}), ("tresillo", {"favorSuit": "asSolo"}), ("revesino", {"stake": "3"}),
               ("rentoy", {"playAllTricks": "true"}), ("tresillo", {"estucheCap": 7}), ("tresillo", {"enchilada": 20}),
               ("revesino", {"tiebreakOrder": "dealer__then_left"}), ("revesino", {"tiebreakOrder": "Dealer_then_left"}),
               ("revesino", {"favorSuit": "oros"}), ("rentoy", {"ladders": "1-3-6-12"})]
    cases += [(game, rules, False, False) for game, rules in refused]
    cases.append(("tresillo", {"favorSuit": "oros", "estucheCap": 9, "soleraSurrender": "as_solo"}, True, True))
    return cases


def test_rule_types_accept_what_the_server_accepts(tsc: Any, rest_url: str, http: requests.Session, tmp_path: Path) -> None:
    """Each game's every option at each value it takes type-checks as a record's rules (in a
    validateHand call and as a HandRecord) and the real REST server takes it; what the types
    refuse, the server refuses (INVALID_OPTION_VALUE, UNKNOWN_OPTION), case by case. Only a number
    off an option's run of integers is the server's to refuse (the types say number)."""
    examples = {game: json.loads((ROOT / "clients" / "examples" / f"{game}-hand.json").read_text()) for game in api.GAMES}
    cases = _rule_cases()
    assert sum(accepted for _, _, accepted, _ in cases) > 200
    by_server = []
    for game, rules, _, _ in cases:
        response = http.post(rest_url + "/v1/hands:validate", json=dict(examples[game], rules=rules), timeout=30)
        assert response.status_code in (200, 400), response.text
        by_server.append(response.status_code == 200)
        if response.status_code == 400:
            assert response.json()["code"] in ("INVALID_OPTION_VALUE", "UNKNOWN_OPTION"), response.text
    assert by_server == [accepted for _, _, accepted, _ in cases]
    source = [f"import {{ Naipes, type HandRecord }} from {CLIENT};", "const naipes = new Naipes();"]
    source += [f"await naipes.validateHand({json.dumps(dict(examples[game], rules=rules))});" for game, rules, _, _ in cases]
    source += [f"export const r{i}: HandRecord = {json.dumps({'game': game, 'rules': rules})};" for i, (game, rules, _, _) in enumerate(cases)]
    path = tmp_path / "rules.mts"
    path.write_text("\n".join(source) + "\n")
    status, output = tsc(path)
    lines = {int(line) for line in re.findall(rf"(?m)^\S*/{path.name}\((\d+),", output)}
    typed = [typed for _, _, _, typed in cases]
    assert [3 + i not in lines for i in range(len(cases))] == typed, output[:5000]  # (the calls from line 3)
    assert [3 + len(cases) + i not in lines for i in range(len(cases))] == typed, output[:5000]  # (then the records)
    assert status != 0 and not [ok for ok, typed_ok in zip(by_server, typed, strict=True) if ok and not typed_ok]


def _readme_requests() -> list[tuple[str, str]]:
    """The README's requests that carry a game: its record, and each curl body sent to an RPC whose
    request has rules, with the type it is; and each `"rules": {...}` it quotes, as some game's."""
    readme = (ROOT / "README.md").read_text()
    found = [("HandRecord", block) for block in re.findall(r"```json\n(.*?)```", readme, re.S)]
    kinds = {"hands:validate": "HandRecord", "hands:legalActions": "HandRecord", "tricks:resolve": "ResolveTrickRequest",
             "hands:settle": "SettleHandRequest"}
    for route, body in re.findall(r"curl -s '?http://[^/]+/v1/([\w:]+)[^\n]*\\\n\s*-d '(\{.*?\})'", readme):
        if route in kinds:
            found.append((kinds[route], body))
    found += [("TresilloRules | RevesinoRules | RentoyRules", rules) for rules in re.findall(r'`"rules": (\{.*?\})`', readme)]
    return found


def test_sample_records_type_check_as_requests(tsc: Any, tmp_path: Path) -> None:
    """Every sample record (shared/records/examples, tests/records, clients/examples) type-checks as
    a HandRecord and as validateHand's argument, with its rules those of its game; so do the
    README's record, requests and rules."""
    paths = sorted(examples_dir().glob("*.json")) + sorted((ROOT / "tests" / "records").rglob("*.json")) + EXAMPLES
    records = [(path, json.loads(path.read_text())) for path in paths]
    records = [(path, data.get("record", data)) for path, data in records]
    assert len(records) > 25 and any(record.get("rules") for _, record in records)
    readme = _readme_requests()
    assert len(readme) >= 5 and {kind for kind, _ in readme} >= {"HandRecord", "ResolveTrickRequest", "SettleHandRequest"}
    source = [f"import {{ Naipes, type HandRecord, type ResolveTrickRequest, type SettleHandRequest, type TresilloRules, "
              f"type RevesinoRules, type RentoyRules }} from {CLIENT};", "const naipes = new Naipes();"]
    for i, (path, record) in enumerate(records):
        source += [f"// {path.name}", f"export const r{i}: HandRecord = {json.dumps(record)};",
                   f"await naipes.validateHand({json.dumps(record)});"]
    source += [f"export const readme{i}: {kind} = {body};" for i, (kind, body) in enumerate(readme)]
    path = tmp_path / "samples.mts"
    path.write_text("\n".join(source) + "\n")
    status, output = tsc(path)
    assert status == 0, output[:5000]
