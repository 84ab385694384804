"""The answers a client may keep (``service.rest._conditional``): ``GET /v1/games/{game}/rules``
and ``GET /v1/openapi.json`` carry a strong ETag of their bytes as sent and ``Cache-Control:
no-cache``; asked again with ``If-None-Match``, an unchanged answer is ``304 Not Modified`` without a
body. Through the REST app on werkzeug's server in the test process."""

from __future__ import annotations

import gzip

import pytest
import requests

PATHS = ["/v1/games/tresillo/rules", "/v1/games/rentoy/rules", "/v1/openapi.json"]
PLAIN = {"Accept-Encoding": None}  # (requests' own header left out: the answer as it is)


@pytest.mark.parametrize("path", PATHS)
def test_a_kept_answer_is_asked_again_and_not_sent_twice(path: str, rest_url: str, http: requests.Session) -> None:
    """The first answer's ETag asked again (``If-None-Match``, alone or in a list, or ``*``) is a
    304 with the same ETag and no body; a tag of another answer is the whole answer again; HEAD
    says the GET's ETag."""
    first = http.get(rest_url + path, headers=PLAIN, timeout=30)
    tag = first.headers["ETag"]
    assert first.status_code == 200 and first.headers["Cache-Control"] == "no-cache" and tag.startswith('"') and not tag.startswith('W/')
    for asked in (tag, f'"other", {tag}', "*"):
        again = http.get(rest_url + path, headers={**PLAIN, "If-None-Match": asked}, timeout=30)
        assert (again.status_code, again.content, again.headers["ETag"]) == (304, b"", tag), asked
    changed = http.get(rest_url + path, headers={**PLAIN, "If-None-Match": '"0000"'}, timeout=30)
    assert (changed.status_code, changed.content, changed.headers["ETag"]) == (200, first.content, tag)
    head = http.head(rest_url + path, headers=PLAIN, timeout=30)
    assert (head.status_code, head.headers["ETag"], head.content) == (200, tag, b"")


def test_each_coding_has_its_own_tag(rest_url: str, http: requests.Session) -> None:
    """The tag is of the bytes as sent: the gzip'd answer's is another than the plain one's, and
    each is 304 only to a request in its own coding."""
    path = rest_url + "/v1/openapi.json"
    plain = http.get(path, headers=PLAIN, timeout=30)
    packed = http.get(path, headers={"Accept-Encoding": "gzip"}, stream=True, timeout=30)
    body = packed.raw.read(decode_content=False)
    assert packed.headers["Content-Encoding"] == "gzip" and gzip.decompress(body) == plain.content
    assert packed.headers["ETag"] != plain.headers["ETag"]
    again = http.get(path, headers={"Accept-Encoding": "gzip", "If-None-Match": packed.headers["ETag"]}, timeout=30)
    assert again.status_code == 304
    other = http.get(path, headers={**PLAIN, "If-None-Match": packed.headers["ETag"]}, timeout=30)
    assert (other.status_code, other.content) == (200, plain.content)


def test_other_answers_are_not_tagged(rest_url: str, http: requests.Session) -> None:
    """A validation, a refusal (an unknown game's rules), the health check and the metrics change
    with what is asked or with time: no ETag, and If-None-Match changes nothing."""
    calls = [("POST", "/v1/hands:validate", b'{"game": "mus"}', 400), ("GET", "/v1/games/mus/rules", None, 400),
             ("GET", "/healthz", None, 200), ("GET", "/metrics", None, 200)]
    for verb, path, body, status in calls:
        answer = http.request(verb, rest_url + path, data=body, headers={"Content-Type": "application/json", "If-None-Match": "*"}, timeout=30)
        assert answer.status_code == status and "ETag" not in answer.headers and "Cache-Control" not in answer.headers, path
