"""The REST API keeps the contract of its own OpenAPI document: schemathesis generates requests for
every operation of ``GET /v1/openapi.json`` (from the document's schemas, valid and invalid, and
around a valid example of each request) and sends them to a real ``naipes serve`` (gunicorn with
the service's worker) on an ephemeral loopback port, with all of its checks: no 5xx, every status
and media type documented, every answer valid against the document's schema (the 200s and the
problem JSON of the errors, whose ``code`` the document enumerates from the error table), a request
the schema refuses refused with a 4xx (never accepted silently), and an undeclared method 405 with
``Allow``. Deterministic (a fixed seed, derandomized) and bounded (``EXAMPLES`` per operation).

What the checks are told, and why (the service's documented decisions, not bent to the tool):

- A request that matches the schema may still be refused with 400: the schema says what a record
  looks like, not whether it is a hand (a card in the deck, a seat at the table, the game's own
  required summary). It is never refused otherwise (404, 405, 413, 415, 5xx).
- Protobuf's JSON mapping, which the service reads, takes ``null`` for a field as the field absent
  and an integer as a JSON string of decimal digits (``"seats": "4"``); the document describes the
  one form to send (docs/api.md). So a request the schema refuses only for those is not expected to
  be refused: ``_as_protojson_reads`` reads it so before judging.
- The stream (``/v1/hands:validateStream``) is NDJSON: a request is one line, its answer one line
  per request line; a line that is not well formed is answered in band, with an ``error`` entry of
  the error table, and the stream goes on (docs/api.md). So an invalid line must get an ``error``,
  not a 4xx, and never a result.
- No stateful phase: the API is stateless, and the document has no links between operations.
  ``response_headers_conformance`` and ``missing_required_header`` pass vacuously: the document
  declares no headers.

What it found (each fixed, with its own test beside the area's): the document required the stream's
body, which may be empty (a stream of no records, answered 200 with no lines); and, reading the
document for what the checks could not reach, /healthz and /v1/openapi.json declared no error answer
(a POST's 405), a stream entry's error code and a violation's code were any string, and uint32's
``minimum`` was the string "0". No 5xx and no answer off its schema, in 400 examples per operation
and phase under two more seeds (``NAIPES_CONTRACT_SEED``, ``NAIPES_CONTRACT_EXAMPLES``).

Each check fails when the service breaks it (tried by breaking service/rest.py or service/openapi.py
one way at a time): a 500 on /v1/games/revesino/rules (ST101); Deal without its ``default`` answer
(ST103); the problem JSON as application/json (ST105); an extra property in an answer, a problem
code off the table (ST108); UNKNOWN_GAME as 422 (ST202); ``actions: 5`` dropped silently (ST201);
the stream's error lines left out (the stream check here), or each answer line twice (ST110); DELETE
/healthz answered 200 (ST204), or allowed (ST205).
"""

from __future__ import annotations

import copy
import json
import os
import re
from collections.abc import Iterator
from typing import Any

import pytest
import requests
import schemathesis
from jsonschema import Draft4Validator
from referencing import Registry
from referencing.jsonschema import DRAFT4
from schemathesis.checks import not_a_server_error
from schemathesis.core.parameters import ParameterLocation
from schemathesis.specs.openapi import checks as oas
from service_support import ROOT, stop
from test_service_workers import serve

from service.errors import ERRORS
from service.openapi import document
from service.rest import http_routes

SEED = int(os.environ.get("NAIPES_CONTRACT_SEED", "20261201"))
EXAMPLES = int(os.environ.get("NAIPES_CONTRACT_EXAMPLES", "60"))  # per operation and phase (fuzzing); the coverage phase adds its own, bounded by the schema
STREAM = "/v1/hands:validateStream"
NDJSON = "application/x-ndjson"
_DECIMAL = re.compile(r"-?[0-9]+")


@schemathesis.serializer(NDJSON)
def _one_line(ctx: Any, value: Any) -> bytes:
    """A generated stream request is one message: one line of JSON."""
    return value if isinstance(value, bytes) else json.dumps(value).encode() + b"\n"


@schemathesis.deserializer(NDJSON)
def _the_one_answer(ctx: Any, response: Any) -> Any:
    """The answer to a one-line stream is one line, validated against the document's schema of a
    line; an empty stream has none to validate."""
    lines = [line for line in response.content.split(b"\n") if line.strip()]
    if not lines:
        raise NotImplementedError  # (schemathesis: nothing to validate)
    if len(lines) > 1:
        raise ValueError(f"{len(lines)} answer lines to a one-line stream")
    return json.loads(lines[0])


@pytest.fixture(scope="module")
def contract_url() -> Iterator[str]:
    server, port, _ = serve(1)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        stop(server)


def _example_requests() -> dict[tuple[str, str], Any]:
    """A valid request of each operation with a body, the fuzzer's starting point near real hands."""
    record = json.loads((ROOT / "clients" / "examples" / "rentoy-hand.json").read_text())  # (the README's hand)
    return {
        ("/v1/hands:validate", "post"): record,
        ("/v1/hands:legalActions", "post"): record,
        (STREAM, "post"): {"id": "a", "record": record},
        ("/v1/tricks:resolve", "post"): {"game": "rentoy", "seats": 4, "leader": 1, "contract": {"trump": "copas"},
                                         "cards": "1e 5e 12b 12e"},
        ("/v1/hands:settle", "post"): {"game": "rentoy", "seats": 4, "dealer": 0, "table": {"score": [5, 4]},
                                       "rentoy": {"winner": 1, "value": 3}},
        ("/v1/deals", "post"): {"game": "tresillo", "seats": 4, "dealer": 1, "seed": "contract"},
    }


def _with_examples(doc: dict[str, Any]) -> dict[str, Any]:
    """The document as served, with an example of each request (the document itself has none)."""
    doc = copy.deepcopy(doc)
    for (path, verb), example in _example_requests().items():
        body = doc["paths"][path][verb]["requestBody"]["content"]
        for media in body.values():
            media["example"] = example
    for op in (op for item in doc["paths"].values() for op in item.values()):
        for parameter in op.get("parameters", []):
            parameter["example"] = {"game": "revesino", "seat": 1, "omitEvents": True}[parameter["name"]]
    return doc


# The document as the server generates it: served at /v1/openapi.json (the first test checks that
# the served one is this one); built here so that schemathesis has the operations at collection.
DOCUMENT = document(http_routes())
CONFIG = schemathesis.Config.from_dict({
    "seed": SEED,
    "generation": {"max-examples": EXAMPLES, "deterministic": True, "database": "none"},
    "phases": {"examples": {"enabled": True}, "coverage": {"enabled": True}, "fuzzing": {"enabled": True},
               "stateful": {"enabled": False}},
    "checks": {"positive_data_acceptance": {"expected-statuses": ["2xx", 400]}},
})


TESTED = _with_examples(DOCUMENT)
# (OpenAPI 3.0's schemas are draft 4's, extended: the document's refs resolved as test_service_layout does)
_REGISTRY = Registry().with_resource("urn:doc", DRAFT4.create_resource(TESTED))


def _resolve(ref: str) -> dict[str, Any]:
    return _REGISTRY.resolver("urn:doc").lookup("urn:doc" + ref).contents  # type: ignore[no-any-return]


def test_the_document_tested_is_the_one_served(contract_url: str) -> None:
    assert requests.get(contract_url + "/v1/openapi.json", timeout=10).json() == json.loads(json.dumps(DOCUMENT))


def _request_schema(case: Any) -> dict[str, Any] | None:
    content = case.operation.definition.raw.get("requestBody", {}).get("content", {})
    media = content.get(case.media_type) if case.media_type else next(iter(content.values()), None)
    return None if media is None else media.get("schema")


def _as_protojson_reads(value: Any, schema: dict[str, Any], resolve: Any) -> Any:
    """``value`` as protobuf's JSON mapping reads it against the document's ``schema``: a ``null``
    field is absent, an integer given as a string of decimal digits is that integer."""
    while "$ref" in schema or "allOf" in schema:
        schema = resolve(schema["$ref"]) if "$ref" in schema else schema["allOf"][0]
    if isinstance(value, dict) and "properties" in schema:
        return {key: _as_protojson_reads(item, schema["properties"].get(key, {}), resolve)
                for key, item in value.items() if item is not None}
    if isinstance(value, list) and "items" in schema:
        return [_as_protojson_reads(item, schema["items"], resolve) for item in value]
    if schema.get("type") == "integer" and isinstance(value, str) and _DECIMAL.fullmatch(value):
        return int(value)
    return value


def _valid_as_protojson_reads(case: Any) -> bool:
    """Whether the case's body, read as protobuf's JSON mapping reads it, matches the document
    (its query and path must be valid too: only the body is read so)."""
    schema = _request_schema(case)
    if schema is None or case.body is None or not isinstance(case.body, (dict, list)):
        return False
    if any(case.meta.is_negative_at(location) for location in _OTHER_LOCATIONS):
        return False
    body = _as_protojson_reads(case.body, schema, _resolve)
    return Draft4Validator({"$ref": "urn:doc" + schema["$ref"]} if "$ref" in schema else schema, registry=_REGISTRY).is_valid(body)


_OTHER_LOCATIONS = (ParameterLocation.PATH, ParameterLocation.QUERY, ParameterLocation.HEADER, ParameterLocation.COOKIE)


def _answers(response: Any) -> list[dict[str, Any]]:
    return [json.loads(line) for line in response.content.split(b"\n") if line.strip()]


def _entries(answer: dict[str, Any]) -> Iterator[dict[str, Any]]:
    yield answer
    for item in answer.get("batch", []):
        yield from _entries(item)


def negative_data_rejection(ctx: Any, response: Any, case: Any) -> bool | None:
    """schemathesis's check, for what the service reads as invalid: a request the schema refuses,
    unless protobuf's JSON mapping reads it as one the schema takes, is refused with a 4xx, or on
    the stream answered by an ``error`` entry of the error table."""
    if case.meta is None or not case.meta.generation.mode.is_negative or _valid_as_protojson_reads(case):
        return None
    if case.operation.path == STREAM and response.status_code == 200:
        answers = _answers(response)
        errors = [entry["error"]["code"] for answer in answers for entry in _entries(answer) if "error" in entry]
        assert errors, f"an invalid line was answered without an error: {answers}"
        assert set(errors) <= set(ERRORS), errors
        return True
    return oas.negative_data_rejection(ctx, response, case)


CHECKS = [
    not_a_server_error, oas.status_code_conformance, oas.content_type_conformance, oas.response_headers_conformance,
    oas.response_schema_conformance, oas.positive_data_acceptance, negative_data_rejection, oas.missing_required_header,
    oas.unsupported_method, oas.allow_header_conformance,
]

schema = schemathesis.openapi.from_dict(TESTED, config=CONFIG)


@schema.parametrize()
def test_every_operation_keeps_the_documented_contract(case: Any, contract_url: str) -> None:
    case.call_and_validate(base_url=contract_url, checks=CHECKS, timeout=30)
