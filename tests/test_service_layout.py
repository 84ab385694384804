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
    assert service_only == {"NOT_FOUND", "METHOD_NOT_ALLOWED", "UNSUPPORTED_MEDIA_TYPE", "REQUEST_TIMEOUT", "TOO_MANY_STREAMS", "INTERNAL"}


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
        assert op["operationId"] == route.method.name
        assert "200" in op["responses"]
        assert ("requestBody" in op) == bool(route.body)
    assert doc["paths"]["/v1/games/{game}/rules"]["get"]["parameters"][0] == {
        "name": "game", "in": "path", "required": True, "schema": {"type": "string"}}
    seat = {"name": "seat", "in": "query", "required": False, "schema": {"type": "integer", "format": "int32"},
            "description": "Optionally, the seat whose view to give (REST: query parameter `seat`)."}
    assert seat in doc["paths"]["/v1/hands:legalActions"]["post"]["parameters"]
    schemas = doc["components"]["schemas"]
    # The proto's comments are the descriptions.
    assert doc["paths"]["/v1/hands:validate"]["post"]["description"].startswith("Replays a hand record")
    assert schemas["HandRecord"]["properties"]["actions"] == {
        "type": "array", "items": {"type": "string"},
        "description": 'Every action of the hand, in order ("2 1e", "1 entrada oros", "0 no-quiero").'}
    assert "turnUp" in schemas["ValidationResult"]["properties"]
    assert "default" in schemas["RuleOption"]["properties"]

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
