"""The shape of the service: one error table covering every engine code, one handler and one
HTTP binding per RPC, an engine free of transport imports, a generated OpenAPI document, and a
schema that passes buf lint."""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import grpc
import openapi_spec_validator
import pytest
from service_support import ROOT, tool

from engine.errors import INPUT_CODES, VIOLATION_CODES
from service.codec import parse_error_field
from service.errors import ERRORS, ServiceError, problem
from service.handlers import HANDLERS, SERVICE
from service.rest import http_routes

TRANSPORT_MODULES = ("grpc", "google.protobuf", "google.rpc", "google.api", "flask", "werkzeug", "gunicorn", "naipes", "service")


def test_every_input_code_has_one_entry_in_the_error_table() -> None:
    assert set(INPUT_CODES) <= set(ERRORS)
    service_only = set(ERRORS) - set(INPUT_CODES)
    assert service_only == {"NOT_FOUND", "METHOD_NOT_ALLOWED", "UNSUPPORTED_MEDIA_TYPE", "REQUEST_TIMEOUT", "TOO_MANY_STREAMS", "INTERNAL",
                            "MALFORMED_REQUEST", "URI_TOO_LONG", "HEADERS_TOO_LARGE", "EXPECTATION_FAILED", "UNSUPPORTED_TRANSFER_CODING", "FORBIDDEN"}


def test_violations_are_not_errors() -> None:
    assert not set(VIOLATION_CODES) & set(ERRORS)


def test_error_table_is_consistent() -> None:
    for code, kind in ERRORS.items():
        assert isinstance(kind.grpc_code, grpc.StatusCode) and kind.grpc_code != grpc.StatusCode.OK, code
        assert 400 <= kind.http_status < 600 and kind.title, code
        body = problem(ServiceError(code, "x", "f"))
        assert body["code"] == code and body["status"] == kind.http_status


def test_one_handler_and_one_http_binding_per_rpc() -> None:
    names = {m.name for m in SERVICE.methods}
    assert set(HANDLERS) == names
    assert {r.method.name for r in http_routes()} == names


def test_the_engine_does_no_io() -> None:
    """No module under engine/ imports a transport (STYLE.md, habit 9)."""
    offenders = []
    for path in sorted((ROOT / "engine").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                if any(name == m or name.startswith(m + ".") for m in TRANSPORT_MODULES):
                    offenders.append(f"{path.relative_to(ROOT)}:{node.lineno} imports {name}")
    assert not offenders


@pytest.mark.parametrize(("message", "field"), [
    ("Failed to parse seats field: invalid literal for int() with base 10: 'four'.", "seats"),
    ("Failed to parse deal field: Failed to parse hands field: expected string or bytes-like object, got 'int'..", "deal.hands"),
    ('Message type "naipes.v1.HandRecord" has no field named "foo" at "HandRecord".\n Available Fields: "[]"', "foo"),
    ('Failed to parse deal field: Message type "naipes.v1.Deal" has no field named "cards" at "HandRecord.deal".', "deal.cards"),
    ("Couldn't parse integer: 1.5 at HandRecord.seats", "seats"),
    ("Failed to parse table field: Couldn't parse integer: 1.5 at HandRecord.table.score.", "table.score"),
])
def test_parse_error_paths(message: str, field: str) -> None:
    assert parse_error_field(message)[0] == field


def test_openapi_is_generated_from_the_schema(http, rest_url) -> None:
    doc = http.get(rest_url + "/v1/openapi.json", timeout=10).json()
    assert doc["openapi"].startswith("3.")
    for route in http_routes():
        op = doc["paths"][route.template][route.verb.lower()]
        assert (op["operationId"], op["summary"]) == (route.method.name, f"{SERVICE.full_name}.{route.method.name} (gRPC)")
        assert "200" in op["responses"]
        assert ("requestBody" in op) == bool(route.body)
    assert doc["paths"]["/v1/games/{game}/rules"]["get"]["parameters"] == [{  # (the path's game, not a query parameter too)
        "name": "game", "in": "path", "required": True, "schema": {"type": "string"}}]
    seat = {"name": "seat", "in": "query", "required": False, "schema": {"type": "integer", "format": "int32"},
            "description": "Optionally, the seat whose view to give (REST: query parameter `seat`)."}
    assert seat in doc["paths"]["/v1/hands:legalActions"]["post"]["parameters"]
    schemas = doc["components"]["schemas"]
    # The proto's comments are the descriptions.
    assert doc["paths"]["/v1/hands:validate"]["post"]["description"].startswith("Replays a hand record")
    assert schemas["HandRecord"]["properties"]["actions"] == {
        "type": "array", "items": {"type": "string"},
        "description": 'Every action of the hand, in order ("2 1e", "1 entrada oros", "0 no-quiero").'}
    # A message's comment describes its schema; a field of a message type keeps its own comment
    # beside the reference (a sibling of a $ref is ignored in OpenAPI 3.0: hence allOf).
    assert schemas["HandRecord"]["description"] == "One hand of play from the table before the deal to the last action (FORMAT.md section 3)."
    assert schemas["HandRecord"]["properties"]["deal"] == {
        "allOf": [{"$ref": "#/components/schemas/Deal"}], "description": "The cards dealt, or a seed for a deterministic deal."}
    assert "turnUp" in schemas["ValidationResult"]["properties"]
    assert "default" in schemas["RuleOption"]["properties"]
    # No message takes a property its schema lacks (REST refuses an unknown key: INVALID_FIELD), nor
    # does a problem have one.
    assert [name for name, schema in schemas.items() if schema.get("additionalProperties") is not False] == []

    def refs(value: object) -> list[str]:
        if isinstance(value, dict):
            own = [value["$ref"]] if "$ref" in value else []
            return own + [r for v in value.values() for r in refs(v)]
        if isinstance(value, list):
            return [r for v in value for r in refs(v)]
        return []

    for ref in refs(doc):
        assert ref.removeprefix("#/components/schemas/") in schemas, ref
    openapi_spec_validator.validate(doc)


def test_the_openapi_document_has_every_route_the_server_answers_with_its_methods(http, rest_url) -> None:
    """The REST app's routes are the document's paths, each with the methods it takes (HEAD and
    OPTIONS aside, which werkzeug adds to every route): GET /metrics was served and not in the
    document, and Flask's static files route made ``POST /static/x`` a 405 METHOD_NOT_ALLOWED whose
    ``Allow`` named GET, where GET answered 404; it is no route (NOT_FOUND) whatever the method."""
    from service.rest import create_app

    doc = http.get(rest_url + "/v1/openapi.json", timeout=10).json()
    templates = {route.method.name: route.template for route in http_routes()}  # (the app's rules name their variables v0, v1, ...)
    served: dict[str, set[str]] = {}
    for rule in create_app().url_map.iter_rules():
        served.setdefault(templates.get(rule.endpoint, rule.rule), set()).update(
            method.lower() for method in rule.methods or () if method not in ("HEAD", "OPTIONS"))
    assert served == {path: set(item) for path, item in doc["paths"].items()}
    for method in ("GET", "POST"):
        answer = http.request(method, rest_url + "/static/x", timeout=10)
        assert (answer.status_code, answer.json()["code"]) == (404, "NOT_FOUND"), method
    answer = http.get(rest_url + "/metrics", timeout=10)
    assert answer.status_code == 200 and answer.headers["Content-Type"].split(";")[0] in doc["paths"]["/metrics"]["get"]["responses"]["200"]["content"]


def test_every_operation_of_the_openapi_document_declares_its_errors_as_problem_json(http, rest_url) -> None:
    """Every path answers its errors in problem JSON, those of HTTP itself included (a wrong method,
    a request gunicorn cannot read): /healthz and /v1/openapi.json declared only their 200, so a
    POST /healthz's 405 was an undocumented status."""
    doc = http.get(rest_url + "/v1/openapi.json", timeout=10).json()
    for path, item in doc["paths"].items():
        for verb, op in item.items():
            assert op["responses"]["default"] == {"description": "an error of the error table", "content": {
                "application/problem+json": {"schema": {"$ref": "#/components/schemas/ProblemDetails"}}}}, (verb, path)
    answer = http.post(rest_url + "/healthz", timeout=10)
    assert (answer.status_code, answer.headers["Content-Type"], answer.json()["code"]) == (405, "application/problem+json", "METHOD_NOT_ALLOWED")
    # A problem, with a field and without, is what the document's schema says: no property it lacks.
    from openapi_schema_validator import OAS30Validator

    missing = http.post(rest_url + "/v1/hands:validate", json={}, timeout=10)
    assert missing.json()["fieldViolations"] == [{"field": "game", "description": "game is required"}]
    for problem_answer in (answer.json(), missing.json()):
        OAS30Validator(doc["components"]["schemas"]["ProblemDetails"]).validate(problem_answer)


def test_the_openapi_document_enumerates_the_codes_of_its_tables(http, rest_url) -> None:
    """A problem's code, a stream entry's error code and a violation's code are the codes of their
    tables (as the JavaScript client types them): the stream's error code and the violation's code
    were any string."""
    schemas = http.get(rest_url + "/v1/openapi.json", timeout=10).json()["components"]["schemas"]
    assert schemas["ProblemDetails"]["properties"]["code"]["enum"] == sorted(ERRORS)
    assert schemas["Problem"]["properties"]["code"]["enum"] == sorted(ERRORS)
    assert schemas["Violation"]["properties"]["code"]["enum"] == list(VIOLATION_CODES)


def test_a_request_lacking_a_property_the_openapi_document_requires_is_missing_field(http, rest_url) -> None:
    """Each request body's schema says what it requires, and each such property left out of a valid
    example of the operation is 400 MISSING_FIELD naming it. (Not the converse: a game may require
    more, a contract's trump say, or seats with a leader, which one schema for every game cannot say.)"""
    from test_rest_contract import _example_requests

    doc = http.get(rest_url + "/v1/openapi.json", timeout=10).json()
    schemas = doc["components"]["schemas"]
    checked = 0
    for (path, verb), example in _example_requests().items():
        content = doc["paths"][path][verb]["requestBody"]["content"]
        if "application/json" not in content:
            continue  # (the stream answers a line's error in band: tests/test_service_stream.py)
        required = schemas[content["application/json"]["schema"]["$ref"].rsplit("/", 1)[1]]["required"]
        assert required and set(required) <= set(example), (path, required)
        for name in required:
            answer = http.request(verb, rest_url + path, json={k: v for k, v in example.items() if k != name}, timeout=10)
            assert (answer.status_code, answer.json()["code"], answer.json()["field"]) == (400, "MISSING_FIELD", name), (path, answer.text)
            checked += 1
    assert checked >= 14


def test_every_scalar_schema_of_the_openapi_generator_is_a_json_schema() -> None:
    """The generator's schema of each protobuf scalar is valid as a schema (uint32's ``minimum`` was
    the string "0"; no field of the API is a uint32 yet, so no document showed it)."""
    from jsonschema import Draft4Validator

    from service.openapi import _SCALARS

    for kind, schema in _SCALARS.items():
        Draft4Validator.check_schema(schema)
        if schema.get("format") == "int64" and schema["type"] == "integer":
            assert (schema["minimum"], schema["maximum"]) == (0, 2**32 - 1), kind


def test_buf_lint(tmp_path: Path) -> None:
    buf = tool("buf")
    image = tmp_path / "naipes.binpb"
    subprocess.run([sys.executable, str(ROOT / "tools" / "protogen.py"), "--out", str(tmp_path / "gen"),
                    "--descriptor-set", str(image)], check=True)
    lint = subprocess.run([buf, "lint", str(image), "--config", str(ROOT / "buf.yaml"), "--path", "naipes/v1/naipes.proto"],
                          capture_output=True, text=True, env={"BUF_CACHE_DIR": str(tmp_path / "cache"), "PATH": "/usr/bin:/bin",
                                                               "HOME": str(tmp_path)})
    assert lint.returncode == 0, lint.stdout + lint.stderr


def test_a_service_error_passes_through_context_managers_and_pickles() -> None:
    """A ServiceError crosses a ``contextlib`` context manager as itself (which sets its
    ``__traceback__``: an exception that refuses attribute assignment came out of one as a
    FrozenInstanceError) and crosses to and from the validation pool's processes (pickle)."""
    import contextlib
    import pickle

    @contextlib.contextmanager
    def around() -> Iterator[None]:
        yield

    with pytest.raises(ServiceError) as raised:
        with around():
            raise ServiceError("TOO_MANY_STREAMS", "busy")
    assert (raised.value.code, raised.value.message, raised.value.field) == ("TOO_MANY_STREAMS", "busy", None)
    copy = pickle.loads(pickle.dumps(ServiceError("UNKNOWN_CARD", "no such card", "deal.hands[1]")))
    assert (type(copy), copy.code, copy.message, copy.field, str(copy)) == (ServiceError, "UNKNOWN_CARD", "no such card", "deal.hands[1]", "no such card")


def test_a_service_errors_repr_pastes_back_as_the_same_error() -> None:
    """A ServiceError prints as its constructor call (STYLE.md, habit 1: a repr that pastes back
    into Python), as it shows in a log or a failed test: its code, message and field, quoted, a
    quote inside its message too; and ``str`` is the message alone."""
    for error in (ServiceError("UNKNOWN_CARD", "deal.hands[1]: 'x' is not a card", "deal.hands[1]"), ServiceError("INTERNAL", "oops")):
        assert repr(error) == f"ServiceError({error.code!r}, {error.message!r}, {error.field!r})"
        copy = eval(repr(error), {"ServiceError": ServiceError})  # (the repr under test)
        assert (type(copy), copy.code, copy.message, copy.field, str(copy)) == (ServiceError, error.code, error.message, error.field, error.message)
    assert repr(ServiceError("INTERNAL", "oops")) == "ServiceError('INTERNAL', 'oops', None)"


def test_every_answer_is_what_the_openapi_document_says(http, rest_url) -> None:
    """The answers of every example record and each of its prefixes (ValidateHand, LegalActions
    with and without a seat), a random playout of every table size, SettleHand, ResolveTrick,
    Deal and DescribeRules, validated against the document's schemas: no property it lacks, every
    property it requires (a generated client relies on both), and the requests it requires; and
    what an answer's schema requires is what each of its answers held, no more, no less."""
    import random

    from examples_support import examples_dir, load_example
    from openapi_schema_validator import OAS30Validator
    from referencing import Registry
    from referencing.jsonschema import DRAFT4
    from test_service_revesino import settle_request as revesino_settle
    from test_service_tresillo import settle_request as tresillo_settle

    from engine import api

    doc = http.get(rest_url + "/v1/openapi.json", timeout=10).json()
    registry = Registry().with_resource("urn:naipes:openapi", DRAFT4.create_resource(doc))  # (OpenAPI 3.0's schemas are draft 4's, extended)

    seen: dict[str, list[set[str]]] = {}  # the properties of each answer, by its schema's name

    def check(schema: str, answer: object) -> None:
        OAS30Validator({"$ref": f"urn:naipes:openapi#/components/schemas/{schema}"}, registry=registry).validate(answer)
        held(schema, answer)

    def held(schema: str, answer: dict) -> None:
        seen.setdefault(schema, []).append(set(answer))
        for name, value in answer.items():
            prop = doc["components"]["schemas"][schema]["properties"][name]
            prop = prop["allOf"][0] if "allOf" in prop else prop  # (a described $ref)
            prop, values = (prop["items"], value) if prop.get("type") == "array" else (prop, [value])
            if "$ref" in prop:
                for item in values:
                    held(prop["$ref"].rsplit("/", 1)[1], item)

    def post(path: str, body: object) -> object:
        response = http.post(rest_url + path, json=body, timeout=10)
        assert response.status_code == 200, response.text
        return response.json()

    records = [load_example(p)[0] for p in sorted(examples_dir().glob("*.json"))]
    rng = random.Random(3)
    for game, seats in (("tresillo", 3), ("tresillo", 4), ("revesino", 4), ("rentoy", 2), ("rentoy", 6), ("rentoy", 8)):
        record = {"game": game, "seats": seats, "dealer": seats - 1, "deal": api.deal(
            {"game": game, "seats": seats, "dealer": seats - 1, "seed": f"oas-{seats}"})["deal"], "actions": []}
        check("DealResponse", post("/v1/deals", {"game": game, "seats": seats, "dealer": seats - 1, "seed": f"oas-{seats}"}))
        while not (result := api.validate(record))["finished"]:
            record = dict(record, actions=[*record["actions"], rng.choice(result["next"]["legal"])])
        records.append(record)
    checked = 0
    for record in records:
        for cut in sorted({*range(0, len(record["actions"]) + 1, 3), len(record["actions"])}):
            prefix = dict(record, actions=record["actions"][:cut])
            result = post("/v1/hands:validate", prefix)
            check("ValidationResult", result)
            check("LegalActionsResponse", post("/v1/hands:legalActions", prefix))
            check("LegalActionsResponse", post("/v1/hands:legalActions?seat=1", prefix))
            checked += 1
        result = api.validate(record)
        if result["valid"] and result["finished"] and record["game"] != "rentoy":
            settle = (tresillo_settle if record["game"] == "tresillo" else revesino_settle)(record, result)
            check("SettleHandResponse", post("/v1/hands:settle", settle))
        for trick in result["tricks"][:2]:
            request = {"game": record["game"], "seats": record["seats"], "dealer": record["dealer"], "leader": trick["leader"],
                       "cards": " ".join(trick["cards"])}
            if "trump" in result:
                request["contract"] = {"trump": result["trump"]}
            if record["game"] == "tresillo":
                continue  # (a Tresillo trick's trump is its lance's: the examples' contracts are checked elsewhere)
            check("ResolveTrickResponse", post("/v1/tricks:resolve", request))
    for game in api.GAMES:
        check("DescribeRulesResponse", http.get(f"{rest_url}/v1/games/{game}/rules", timeout=10).json())
    assert checked > 200
    schemas = doc["components"]["schemas"]
    # The converse, for the answers whose schema says what they always hold: each property it
    # requires is one that every answer of that schema here held, and each property every such
    # answer held is required, but for a trick's winning seat, given only with the trick's leader
    # (every trick here has one).
    always = {name: set.intersection(*answers) for name, answers in seen.items()}
    not_always = {"ResolveTrickResponse": {"winner"}}
    for name in ("ValidationResult", "Violation", "Next", "Trick", "Payment", "Event", "LegalActionsResponse", "ResolveTrickResponse", "DealResponse"):
        assert len(seen[name]) >= 6 and set(schemas[name]["required"]) == always[name] - not_always.get(name, set()), name
    assert schemas["HandRecord"]["required"] == ["game", "seats", "dealer", "deal"]
    for missing in ("game", "seats", "dealer", "deal"):
        response = http.post(rest_url + "/v1/hands:validate", json={k: v for k, v in records[0].items() if k != missing}, timeout=10)
        assert (response.status_code, response.json()["code"]) == (400, "MISSING_FIELD")
    assert "/v1/openapi.json" in doc["paths"]
