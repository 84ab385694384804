"""CORS: a page of another origin may call the REST API from a browser (clients/js runs in
browsers). docs/api.md, "Browsers (CORS)"."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from service import cors, rest

ORIGIN = "http://localhost:3000"
RECORD = json.loads((Path(__file__).resolve().parent.parent / "clients" / "examples" / "rentoy-hand.json").read_text())


def test_a_preflight_is_answered_for_a_json_post(http, rest_url) -> None:
    """A 204, without a body or a Content-Type (it was a 200 saying ``text/html`` of its empty body)."""
    answer = http.options(f"{rest_url}/v1/hands:validate", timeout=10, headers={
        "Origin": ORIGIN, "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "content-type"})
    assert answer.status_code == 204 and answer.content == b""
    assert "Content-Type" not in answer.headers
    assert answer.headers["Access-Control-Allow-Origin"] == "*"
    assert "POST" in answer.headers["Access-Control-Allow-Methods"]
    assert "content-type" in answer.headers["Access-Control-Allow-Headers"].lower()
    assert int(answer.headers["Access-Control-Max-Age"]) == cors.MAX_AGE
    assert set(answer.headers["Allow"].split(", ")) == {"POST", "OPTIONS"}  # (the route's own, as for any OPTIONS)
    assert "Access-Control-Allow-Credentials" not in answer.headers


def test_answers_and_errors_carry_the_origin_header(http, rest_url) -> None:
    valid = http.post(f"{rest_url}/v1/hands:validate", json=RECORD, headers={"Origin": ORIGIN}, timeout=10)
    assert valid.status_code == 200 and valid.json()["valid"]
    assert valid.headers["Access-Control-Allow-Origin"] == "*"
    bad = http.post(f"{rest_url}/v1/hands:validate", json={**RECORD, "game": "mus"}, headers={"Origin": ORIGIN}, timeout=10)
    assert bad.status_code == 400 and bad.json()["code"] == "UNKNOWN_GAME"
    assert bad.headers["Access-Control-Allow-Origin"] == "*"
    assert bad.headers["Access-Control-Expose-Headers"] == "Retry-After, X-Request-Id"
    health = http.get(f"{rest_url}/healthz", headers={"Origin": ORIGIN}, timeout=10)
    assert health.headers["Access-Control-Allow-Origin"] == "*"
    # (docs/api.md: only a request that names its Origin, as a browser's cross-origin one does)
    plain = http.get(f"{rest_url}/healthz", timeout=10)
    assert plain.status_code == 200 and not [h for h in plain.headers if h.lower().startswith("access-control-")]


@pytest.mark.parametrize(("setting", "allowed", "refused"), [
    ("none", None, ORIGIN),
    ("", None, ORIGIN),
    ("https://tables.example, http://localhost:3000", ORIGIN, "https://evil.example"),
])
def test_the_origins_are_a_setting(monkeypatch, setting, allowed, refused) -> None:
    """NAIPES_CORS_ORIGINS: a list of origins, ``*`` (the default) or ``none``; set but empty, an
    empty list: no origin (not the default, any origin, as unset)."""
    monkeypatch.setenv("NAIPES_CORS_ORIGINS", setting)
    client = rest.create_app().test_client()
    if allowed is not None:
        answer = client.get("/healthz", headers={"Origin": allowed})
        assert answer.headers["Access-Control-Allow-Origin"] == allowed and "Origin" in answer.headers.getlist("Vary")
    assert "Access-Control-Allow-Origin" not in client.get("/healthz", headers={"Origin": refused}).headers


@pytest.mark.parametrize("path", ["/v1/games/rentoy/rules", "/healthz", "/v1/openapi.json"])
def test_any_options_request_is_a_204_without_a_body(path) -> None:
    """Every route's OPTIONS (an Origin or not, CORS on or not) is the same empty 204 with the
    route's methods in Allow."""
    answer = rest.create_app().test_client().options(path)
    assert (answer.status_code, answer.data, answer.headers.get("Content-Type")) == (204, b"", None)
    assert set(answer.headers["Allow"].split(", ")) == {"GET", "HEAD", "OPTIONS"}


def test_a_page_may_send_and_read_a_request_id(http, rest_url) -> None:
    """docs/api.md, "Access log and request IDs": the preflight allows the X-Request-Id header, and
    the answers, errors included, expose it to the page."""
    preflight = http.options(f"{rest_url}/v1/hands:validate", timeout=10, headers={
        "Origin": ORIGIN, "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "content-type,x-request-id"})
    assert preflight.status_code == 204
    assert {"content-type", "x-request-id"} <= {name.strip().lower() for name in preflight.headers["Access-Control-Allow-Headers"].split(",")}
    for body, status in ((RECORD, 200), ({**RECORD, "game": "mus"}, 400)):
        answer = http.post(f"{rest_url}/v1/hands:validate", json=body, headers={"Origin": ORIGIN, "X-Request-Id": "page-1"}, timeout=10)
        assert answer.status_code == status and answer.headers["X-Request-Id"] == "page-1"
        assert "X-Request-Id" in [name.strip() for name in answer.headers["Access-Control-Expose-Headers"].split(",")]


def test_only_a_preflight_gets_the_preflight_s_headers(http, rest_url) -> None:
    """A preflight is an OPTIONS request that names the method it asks for
    (``Access-Control-Request-Method``). An OPTIONS request with an Origin and no such header, or
    a request of another method that carries one, is answered as any other request: the page may
    read the answer's headers, and no methods, headers or max age are offered."""
    answers = [http.options(f"{rest_url}/v1/hands:validate", headers={"Origin": ORIGIN}, timeout=10),
               http.post(f"{rest_url}/v1/hands:validate", json=RECORD, headers={"Origin": ORIGIN, "Access-Control-Request-Method": "POST"},
                         timeout=10)]
    for answer in answers:
        assert {name: value for name, value in answer.headers.items() if name.startswith("Access-Control-")} == {
            "Access-Control-Allow-Origin": "*", "Access-Control-Expose-Headers": "Retry-After, X-Request-Id"}, answer.headers
    assert answers[0].status_code == 204 and answers[1].status_code == 200
