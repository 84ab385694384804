"""The errors gunicorn answers itself, before the app sees the request (or once the app reads a
body whose chunks cannot be read), are problem JSON with a code of the error table and the status
gunicorn chose, as every other error of the service: they were gunicorn's HTML pages, and they
carry the CORS headers of the request's Origin once gunicorn has come to its headers. Through a
real ``naipes serve`` on ephemeral ports, the requests written on raw sockets; after each, the
server still answers its health check. Also: ``Expect: 100-continue`` (the 100 Continue only
once the app reads the body, none for a body over the limit). Also here, as the request target must be sent as it is
written: the game of ``/v1/games/{game}/rules`` read from the path as sent, under both servers."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from http import HTTPStatus

import pytest
from service_support import ROOT, load_example, rentoy_examples, stop
from test_service_cli import _free_port
from test_service_workers import _listening, serve

from engine import api
from engine.errors import InvalidInput
from service.cli import REST_WORKER_CLASS
from service.errors import ERRORS, MAX_REQUEST_BYTES
from service.rest_worker import CODES

RECORD = b'{"game": "rentoy", "seats": 4, "dealer": 0}'
JSON = b"Content-Type: application/json\r\n"


@pytest.fixture(scope="module")
def rest_port() -> Iterator[int]:
    server, port, _ = serve(1)
    yield port
    stop(server)


def exchange(port: int, raw: bytes) -> bytes:
    """Send ``raw`` and read everything the server writes until it closes the connection."""
    with socket.create_connection(("127.0.0.1", port), timeout=20) as sock:
        sock.sendall(raw)
        received = b""
        while chunk := sock.recv(65536):
            received += chunk
    return received


def problem_of(received: bytes) -> tuple[int, dict[str, str], dict]:
    """The status, headers and problem JSON of the one answer in ``received``."""
    head, _, body = received.partition(b"\r\n\r\n")
    status_line, *lines = head.decode("latin-1").split("\r\n")
    headers = {name.lower(): value.strip() for name, _, value in (line.partition(":") for line in lines)}
    assert len(body) == int(headers["content-length"]), received  # one answer, nothing after it
    return int(status_line.split()[1]), headers, json.loads(body)


def assert_serving(port: int) -> None:
    received = exchange(port, b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    assert received.startswith(b"HTTP/1.1 200 ") and b'"SERVING"' in received, received


# (case, request, status, code, words of gunicorn's message in the detail)
CASES = [
    ("request line too long", b"GET /v1/games/" + b"x" * 9000 + b"/rules HTTP/1.1\r\nHost: x\r\n\r\n",
     414, "URI_TOO_LONG", "Request Line is too large (8192 > 4094)"),
    ("header too large", b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 9000 + b"\r\n\r\n",
     431, "HEADERS_TOO_LARGE", "limit request headers fields size"),
    ("too many headers", b"GET /healthz HTTP/1.1\r\nHost: x\r\n" + b"".join(b"X-H%d: 1\r\n" % i for i in range(101)) + b"\r\n",
     431, "HEADERS_TOO_LARGE", "limit request headers fields"),
    ("invalid request line", b"GET\r\nHost: x\r\n\r\n", 400, "MALFORMED_REQUEST", "Invalid HTTP request line: 'GET'"),
    ("invalid method", b"G@T /healthz HTTP/1.1\r\nHost: x\r\n\r\n", 400, "MALFORMED_REQUEST", "Invalid HTTP method: 'G@T'"),
    ("invalid HTTP version", b"GET /healthz HTTP/9.1\r\nHost: x\r\n\r\n", 400, "MALFORMED_REQUEST", "Invalid HTTP Version"),
    ("invalid header name", b"GET /healthz HTTP/1.1\r\nHost: x\r\nBad Name: 1\r\n\r\n", 400, "MALFORMED_REQUEST",
     "Invalid HTTP header name: 'Bad Name'"),
    ("invalid header value", b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-A: a\x00b\r\n\r\n", 400, "MALFORMED_REQUEST", "Invalid HTTP Header: 'X-A'"),
    ("obsolete header folding", b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-A: a\r\n  b\r\n\r\n", 400, "MALFORMED_REQUEST",
     "Obsolete line folding is unacceptable"),
    ("Content-Length not a number", b"POST /v1/hands:validate HTTP/1.1\r\nHost: x\r\n" + JSON + b"Content-Length: abc\r\n\r\n" + RECORD,
     400, "MALFORMED_REQUEST", "Invalid HTTP Header: 'CONTENT-LENGTH'"),
    ("Content-Length and chunked", b"POST /v1/hands:validate HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n0\r\n\r\n",
     400, "MALFORMED_REQUEST", "Invalid HTTP Header: 'CONTENT-LENGTH'"),
    ("unsupported transfer coding", b"POST /v1/hands:validate HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: br, chunked\r\n\r\n0\r\n\r\n",
     501, "UNSUPPORTED_TRANSFER_CODING", "Unsupported transfer coding: 'br, chunked'"),
    ("expectation", b"POST /v1/hands:validate HTTP/1.1\r\nHost: x\r\nExpect: 200-ok\r\n" + JSON + b"Content-Length: 2\r\n\r\n{}",
     417, "EXPECTATION_FAILED", "Unable to comply with expectation: '200-ok'"),
    # gunicorn's own 500 (a path outside the SCRIPT_NAME a trusted front end sent): INTERNAL
    ("path outside SCRIPT_NAME", b"GET /healthz HTTP/1.1\r\nHost: x\r\nSCRIPT_NAME: /api\r\n\r\n", 500, "INTERNAL", "internal error"),
    # a body the app reads whose chunks cannot be read: it was the app's INTERNAL (500)
    ("invalid chunk size", b"POST /v1/hands:validate HTTP/1.1\r\nHost: x\r\n" + JSON + b"Transfer-Encoding: chunked\r\n\r\nzz\r\n"
     + RECORD + b"\r\n0\r\n\r\n", 400, "MALFORMED_REQUEST", "Invalid chunk size: b'zz'"),
    ("chunk without its terminator", b"POST /v1/hands:validate HTTP/1.1\r\nHost: x\r\n" + JSON + b"Transfer-Encoding: chunked\r\n\r\n5\r\nabcdeXX0\r\n\r\n",
     400, "MALFORMED_REQUEST", "Invalid chunk terminator"),
]


def test_a_header_line_is_held_to_its_bytes_with_its_crlf(rest_port) -> None:
    """docs/api.md's HEADERS_TOO_LARGE: a header line over 8,190 bytes with its CRLF, its name,
    colon and value over 8,188: 8,188 of them are served, 8,189 refused."""
    def sent(size: int) -> bytes:
        line = b"X-Big: " + b"a" * (size - len(b"X-Big: "))
        assert len(line) == size
        return exchange(rest_port, b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n" + line + b"\r\n\r\n")

    assert sent(8188).startswith(b"HTTP/1.1 200 ")
    assert sent(8189).startswith(b"HTTP/1.1 431 ")


@pytest.mark.parametrize(("case", "raw", "status", "code", "words"), CASES, ids=[c[0] for c in CASES])
def test_gunicorn_errors_are_problems(case, raw, status, code, words, rest_port) -> None:
    received = exchange(rest_port, raw)
    assert received.startswith(f"HTTP/1.1 {status} {HTTPStatus(status).phrase}\r\n".encode()), received
    answered, headers, problem = problem_of(received)
    assert headers["content-type"] == "application/problem+json" and headers["connection"] == "close"
    assert (answered, problem["status"], problem["code"]) == (status, status, code)
    assert ERRORS[code].http_status == status and CODES[status] == code
    assert problem["type"] == f"urn:naipes:error:{code}" and problem["title"] == ERRORS[code].title
    assert words in problem["detail"], problem["detail"]
    assert_serving(rest_port)


ORIGIN = "http://localhost:3000"
# The cases where gunicorn fails before it has read the request's headers: there is no Origin to answer.
BEFORE_THE_HEADERS = {"request line too long", "invalid request line", "invalid method", "invalid HTTP version"}


def with_origin(raw: bytes, origin: str = ORIGIN) -> bytes:
    """The request with an Origin header, the last of its head (after any header gunicorn cannot read)."""
    return with_header(raw, b"Origin", origin.encode())


def with_header(raw: bytes, name: bytes, value: bytes) -> bytes:
    """The request with a header, the last of its head."""
    end = raw.index(b"\r\n\r\n")
    return raw[:end] + b"\r\n" + name + b": " + value + raw[end:]


@pytest.mark.parametrize(("case", "raw", "status", "code", "words"), CASES, ids=[c[0] for c in CASES])
def test_gunicorn_errors_carry_cors(case, raw, status, code, words, rest_port) -> None:
    """docs/api.md, "Browsers (CORS)": the errors gunicorn answers carry the CORS headers the app's
    answers carry, so that a page reads the problem rather than a network error; those of a request
    whose headers gunicorn never read cannot."""
    answered, headers, problem = problem_of(exchange(rest_port, with_origin(raw)))
    assert (answered, problem["code"]) == (status, code)
    if case in BEFORE_THE_HEADERS:
        assert not [name for name in headers if name.startswith("access-control-")], headers
    else:
        assert (headers["access-control-allow-origin"], headers["access-control-expose-headers"]) == ("*", "Retry-After, X-Request-Id"), headers


@pytest.mark.parametrize(("case", "raw", "status", "code", "words"), CASES, ids=[c[0] for c in CASES])
def test_gunicorn_errors_carry_the_request_id(case, raw, status, code, words, rest_port) -> None:
    """docs/api.md, "Access log and request IDs": the errors gunicorn answers send the request's
    X-Request-Id back, as the app's answers do, once gunicorn has come to the request's headers;
    one that is not a request ID is not sent back (and a request the app sees, whose body's chunks
    it would read, is answered the ID's INVALID_FIELD before its body is read)."""
    for request_id, echoed in ((b"gunicorn-1", True), (b"a b", False)):
        answered, headers, problem = problem_of(exchange(rest_port, with_header(raw, b"X-Request-Id", request_id)))
        if not echoed and case in ("invalid chunk size", "chunk without its terminator"):
            assert (answered, problem["code"], problem["field"]) == (400, "INVALID_FIELD", "x-request-id")
            continue
        assert (answered, problem["code"]) == (status, code)
        assert headers.get("x-request-id") == (request_id.decode() if echoed and case not in BEFORE_THE_HEADERS else None), headers


def test_gunicorn_errors_read_the_headers_as_the_app_does(rest_port) -> None:
    """The CORS headers and the request ID of an answer the worker writes are those of the app's
    answer to the request: a browser's preflight gets the preflight's CORS headers, and a header
    given twice is joined by a comma (the request ID ``a,b``), whether gunicorn read the headers
    (an ``Expect`` it refuses) or failed among them (a header it cannot read)."""
    preflight = (b"OPTIONS /v1/hands:validate HTTP/1.1\r\nHost: x\r\nOrigin: " + ORIGIN.encode() + b"\r\n"
                 b"Access-Control-Request-Method: POST\r\nX-Request-Id: a\r\nX-Request-Id: b\r\n")
    app = exchange(rest_port, preflight + b"Connection: close\r\n\r\n")
    assert app.startswith(b"HTTP/1.1 204 ")
    wanted = {name: value for name, _, value in (line.decode().partition(": ") for line in app.partition(b"\r\n\r\n")[0].split(b"\r\n")[1:])
              if name.lower().startswith("access-control-") or name.lower() == "x-request-id"}
    assert (wanted["Access-Control-Allow-Methods"], wanted["X-Request-Id"]) == ("GET, POST", "a,b"), wanted
    for fault, status in ((b"Expect: 200-ok\r\n", 417), (b"X-A: a\x00b\r\n", 400)):
        answered, headers, _ = problem_of(exchange(rest_port, preflight + fault + b"\r\n"))
        assert answered == status
        assert {name: value for name, value in headers.items() if name.startswith("access-control-") or name == "x-request-id"} == {
            name.lower(): value for name, value in wanted.items()}


@pytest.mark.parametrize(("setting", "allowed"), [("https://tables.example, http://localhost:3000", True), ("none", False), (" ", False)],
                         ids=["a list", "none", "blank"])
def test_gunicorn_errors_follow_the_origins_setting(setting: str, allowed: bool) -> None:
    """With NAIPES_CORS_ORIGINS a list, gunicorn's errors answer the origins the app answers, and
    the same headers (Vary included); another origin gets none. With ``none`` (or nothing but
    white space) no origin gets any, from the app or from gunicorn's errors, which are answered
    as ever."""
    server, port, _ = serve(1, {**os.environ, "NAIPES_CORS_ORIGINS": setting})
    try:
        def cors(received: bytes) -> dict[str, str]:
            head = received.partition(b"\r\n\r\n")[0].decode("latin-1").split("\r\n")[1:]
            return {name: value.strip() for name, _, value in (line.partition(":") for line in head) if name.startswith(("Access-Control-", "Vary"))}

        too_large = b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 9000 + b"\r\n\r\n"
        healthz = b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
        for origin, listed in ((ORIGIN, allowed), ("https://evil.example", False)):
            app = exchange(port, with_origin(healthz, origin))
            refused = exchange(port, with_origin(too_large, origin))
            assert app.startswith(b"HTTP/1.1 200 ") and refused.startswith(b"HTTP/1.1 431 "), refused
            assert cors(refused) == cors(app)
            assert cors(app) == ({"Access-Control-Allow-Origin": origin, "Vary": "Origin",
                                  "Access-Control-Expose-Headers": "Retry-After, X-Request-Id"} if listed else {})
    finally:
        stop(server)


# (request target, the game DescribeRules is asked, or None: no route)
RULES_PATHS = [
    (b"/v1/games//rules", ""),
    (b"/v1/games/a%2Fb/rules", "a/b"),
    (b"/v1/games/a%2fb/rules", "a/b"),
    (b"http://x/v1/games/a%2Fb/rules", "a/b"),  # (the absolute form)
    (b"/v1/games/a%2Fb/rules?", "a/b"),  # (an empty query: the path ends before it)
    (b"//x/v1/games/a%2Fb/rules", None),  # a path that starts with two slashes is a path (x is no host): not the route's
    (b"/v1/games/a/b/rules", None),  # two segments: not the route's one
    (b"/v1//games/rentoy/rules", None),  # a double slash elsewhere: no route (it was werkzeug's HTML 308 redirect)
    (b"/v1/games/rentoy//rules", None),
]


@pytest.mark.parametrize("server", ["gunicorn", "werkzeug"])
@pytest.mark.parametrize(("target", "game"), RULES_PATHS, ids=[t.decode() for t, _ in RULES_PATHS])
def test_the_game_in_the_path_is_read_as_sent(server, target, game, request) -> None:
    """GET /v1/games/{game}/rules with an empty game or one holding an encoded slash is
    DescribeRules of that game: UNKNOWN_GAME naming ``game``, as over gRPC. Both HTTP servers decode
    %2F in PATH_INFO, where it is a slash; the game is read from the request's own target."""
    port = request.getfixturevalue("rest_port") if server == "gunicorn" else int(request.getfixturevalue("rest_url").rsplit(":", 1)[1])
    answered, _, problem = problem_of(exchange(port, b"GET " + target + b" HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"))
    if game is None:
        assert (answered, problem["code"]) == (404, "NOT_FOUND")
        return
    with pytest.raises(InvalidInput) as raised:
        api.describe_rules(game)
    assert (answered, problem["code"], problem["field"], problem["detail"]) == (400, "UNKNOWN_GAME", "game", raised.value.message)


@pytest.mark.parametrize("target", [b"//v1/games/rentoy/rules", b"///v1/games/rentoy/rules", b"http://x//v1/games/rentoy/rules",
                                    b"//v1/hands:validate", b"//healthz"])
def test_a_path_whose_first_segment_is_empty_is_no_route(target, rest_port) -> None:
    """A path that starts with two slashes is a path whose first segment is empty, no route, as a
    double slash elsewhere is (``/v1//games/rentoy/rules``): werkzeug drops a path's leading slashes,
    so it was answered as the route without them (``//v1/hands:validate`` validated the body). Under
    gunicorn, which passes the path as sent (Python's own http.server, werkzeug's development server,
    makes ``//`` one slash before any app sees it)."""
    method = b"POST" if b"validate" in target else b"GET"
    body = b'{"game": "rentoy"}'
    raw = method + b" " + target + b" HTTP/1.1\r\nHost: x\r\n" + JSON + b"Content-Length: %d\r\nConnection: close\r\n\r\n" % len(body) + body
    answered, _, problem = problem_of(exchange(rest_port, raw))
    path = target.removeprefix(b"http://x").decode()
    assert (answered, problem["code"], problem["detail"]) == (404, "NOT_FOUND", f"no route {path}; the API is described at /v1/openapi.json")
    assert_serving(rest_port)


def test_the_game_in_the_path_under_a_mount_point(rest_port) -> None:
    """Behind a front end that mounts the API under a path (gunicorn's SCRIPT_NAME, from a trusted
    address), the path as sent is read after it."""
    raw = b"GET /api/v1/games/a%2Fb/rules HTTP/1.1\r\nHost: x\r\nSCRIPT_NAME: /api\r\nConnection: close\r\n\r\n"
    answered, _, problem = problem_of(exchange(rest_port, raw))
    assert (answered, problem["code"], problem["field"]) == (400, "UNKNOWN_GAME", "game") and "'a/b'" in problem["detail"]


@pytest.mark.parametrize("server", ["gunicorn", "werkzeug"])
@pytest.mark.parametrize("framing", [b"Content-Length: 1000\r\n\r\n" + RECORD, b"Transfer-Encoding: chunked\r\n\r\n3e8\r\n" + RECORD],
                         ids=["content-length", "chunked"])
def test_a_body_its_client_cut_short_is_malformed_request(server, framing, request) -> None:
    """A body whose client closed its side of the connection before the body's end (here after a
    JSON object, of a body said to be 1000 bytes) is MALFORMED_REQUEST under both servers, and the
    connection closes: gunicorn's reader of a body of known length ended the body there silently,
    and what had come was validated as the whole request (MISSING_FIELD); werkzeug's reader, and
    gunicorn's of a chunked body, raised werkzeug's 400, answered INVALID_FIELD in werkzeug's words."""
    port = request.getfixturevalue("rest_port") if server == "gunicorn" else int(request.getfixturevalue("rest_url").rsplit(":", 1)[1])
    with socket.create_connection(("127.0.0.1", port), timeout=20) as sock:
        sock.sendall(b"POST /v1/hands:validate HTTP/1.1\r\nHost: x\r\n" + JSON + framing)
        sock.shutdown(socket.SHUT_WR)
        received = b""
        while chunk := sock.recv(65536):
            received += chunk
    answered, headers, problem = problem_of(received)
    assert (answered, problem["code"], problem["detail"], headers["connection"]) == (
        400, "MALFORMED_REQUEST", "the body ended before its end: the client closed the connection", "close"), received
    assert "field" not in problem


@pytest.mark.parametrize("coding", [b"gzip", b"deflate", b"compress", b"GZIP"])
@pytest.mark.parametrize("target", [b"/v1/hands:validate", b"/v1/hands:validateStream"])
def test_a_body_in_a_transfer_coding_other_than_chunked_is_unsupported_not_read_as_plain(coding, target, rest_port) -> None:
    """gunicorn takes ``Transfer-Encoding: gzip, chunked`` (and deflate, compress) and removes the
    chunks only: the body's compressed bytes were read as JSON (MALFORMED_JSON, a UTF-8 error), and
    a plain body so labelled was validated as if the coding were not there. The service decodes no
    coding but chunked: such a body is UNSUPPORTED_TRANSFER_CODING (501), naming the coding, and
    its connection closes (the body unread); the server goes on."""
    import gzip

    plain = (ROOT / "clients" / "examples" / "rentoy-hand.json").read_bytes().replace(b"\n", b"") + b"\n"
    for body in (plain, gzip.compress(plain)):
        raw = (b"POST " + target + b" HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: " + coding
               + b", chunked\r\n\r\n" + b"%x\r\n" % len(body) + body + b"\r\n0\r\n\r\n")
        answered, headers, problem = problem_of(exchange(rest_port, raw))
        assert (answered, problem["code"], headers["connection"]) == (501, "UNSUPPORTED_TRANSFER_CODING", "close"), problem
        assert problem["detail"] == f"the body's Transfer-Encoding is {coding.decode()}, chunked: send it chunked only, uncompressed"
    assert_serving(rest_port)


def test_a_bad_body_the_app_did_not_read_gets_no_second_answer() -> None:
    """The request is answered without its body being read (here the health check, 200, its
    connection kept); its chunks, read to their end for the connection's next request, cannot be:
    the connection closes after the one answer (gunicorn wrote its error page after it, which a
    client reads as the answer to its next request), and the worker logs it, naming the client."""
    server, port, _ = serve(1)
    try:
        raw = b"GET /healthz HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n"
        answered, headers, answer = problem_of(exchange(port, raw))
        assert (answered, headers["connection"], answer) == (200, "keep-alive", {"status": "SERVING"})
        assert_serving(port)
    finally:
        output = stop(server)
    assert "Invalid request from ip=127.0.0.1, after its answer: Invalid chunk size: b'zz'" in output, output


def test_forbidden_proxy_request() -> None:
    """gunicorn's 403, with its PROXY protocol on (``naipes serve`` leaves it off) and a PROXY
    line from an address not allowed to send one."""
    server, port, _ = serve(1, {**os.environ, "GUNICORN_CMD_ARGS": "--proxy-protocol v1 --proxy-allow-from 10.9.9.9"})
    try:
        raw = b"PROXY TCP4 1.2.3.4 5.6.7.8 1000 2000\r\nGET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
        answered, headers, problem = problem_of(exchange(port, with_origin(raw)))
        assert headers["content-type"] == "application/problem+json"
        assert (answered, problem["code"], problem["detail"]) == (403, "FORBIDDEN", "Request forbidden")
        assert "access-control-allow-origin" not in headers  # (refused before its request line was read)
        assert_serving(port)
    finally:
        stop(server)


def test_an_unexpected_failure_is_internal_and_logged(tmp_path) -> None:
    """An exception gunicorn did not expect (here a WSGI app's, before its first byte) is INTERNAL
    (500), its words kept out of the answer and its traceback logged; the worker goes on."""
    port = _free_port()
    log = tmp_path / "gunicorn.log"
    with log.open("w") as out:
        server = subprocess.Popen([sys.executable, "-m", "gunicorn", "--worker-class", REST_WORKER_CLASS, "--threads", "2",
                                   "--bind", f"127.0.0.1:{port}", "wsgi_fault:app"], cwd=ROOT / "tests", stdout=out, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 30
        while not _listening(port):
            assert server.poll() is None and time.monotonic() < deadline, log.read_text()
            time.sleep(0.1)
        answered, headers, problem = problem_of(exchange(port, b"GET /fails HTTP/1.1\r\nHost: x\r\n\r\n"))
        assert headers["content-type"] == "application/problem+json"
        assert (answered, problem["code"]) == (500, "INTERNAL")
        assert "boom" not in problem["detail"] and "RuntimeError" in problem["detail"]
        assert_serving(port)
    finally:
        server.terminate()
        server.wait(timeout=30)
    logged = log.read_text()
    assert "Error handling request GET /fails" in logged and "RuntimeError: boom" in logged, logged


def head_of(sock: socket.socket) -> bytes:
    """What the server writes until the end of an answer's head (or the connection's end)."""
    received = b""
    while b"\r\n\r\n" not in received and (chunk := sock.recv(1)):
        received += chunk
    return received


def test_a_body_over_the_limit_is_refused_before_it_is_sent(rest_port) -> None:
    """``Expect: 100-continue`` (curl 7.88 sends it for a body over 1 MiB) with a Content-Length over
    the limit: the answer is the 413 problem at once, without a 100 Continue first, so the client
    does not send a body that would be discarded; CORS headers as every answer; the connection
    closes after it. (The 100 Continue was sent first, and the 413 after the body.)"""
    head = (b"POST /v1/hands:validate HTTP/1.1\r\nHost: x\r\n" + JSON + b"Expect: 100-continue\r\n"
            b"Content-Length: %d\r\n\r\n" % (MAX_REQUEST_BYTES + 1))
    with socket.create_connection(("127.0.0.1", rest_port), timeout=20) as sock:
        sock.sendall(with_origin(head))
        received = b""
        while chunk := sock.recv(65536):  # (no body sent: the server answers and closes all the same)
            received += chunk
    assert received.startswith(b"HTTP/1.1 413 "), received
    answered, headers, problem = problem_of(received)
    assert (answered, problem["code"], headers["connection"]) == (413, "PAYLOAD_TOO_LARGE", "close")
    assert headers["content-type"] == "application/problem+json"
    assert (headers["access-control-allow-origin"], headers["access-control-expose-headers"]) == ("*", "Retry-After, X-Request-Id"), headers
    assert_serving(rest_port)


HAND = json.dumps(load_example(rentoy_examples()[0])[0]).encode()


def test_a_body_sent_with_its_head_is_answered_without_100_and_the_connection_kept(rest_port) -> None:
    """``Expect: 100-continue`` from a client that sends its body with the head, without waiting:
    the answer comes, without a 100 Continue, and the connection serves its next request (it said
    ``keep-alive`` and was closed after the answer: the 100 was never sent, the body being read
    from what had come with the head, and so the app counted as having answered without it)."""
    head = b"POST /v1/hands:validate HTTP/1.1\r\nHost: x\r\n" + JSON + b"Expect: 100-continue\r\nContent-Length: %d\r\n\r\n" % len(HAND)
    with socket.create_connection(("127.0.0.1", rest_port), timeout=20) as sock:
        sock.sendall(head + HAND)
        received = head_of(sock)
        assert received.startswith(b"HTTP/1.1 200 ") and b"connection: close" not in received.lower(), received
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")  # (the same connection)
        while chunk := sock.recv(65536):
            received += chunk
    assert b"100 Continue" not in received and received.count(b"HTTP/1.1 200 ") == 2, received
    assert b'{"game":"rentoy","valid":' in received and received.endswith(b'{"status":"SERVING"}\n'), received


def test_an_error_answered_once_its_body_is_read_keeps_the_connection(rest_port) -> None:
    """An error answered once the request's body has been read to its end (a body that is not
    JSON, a record naming a card not in the deck; of known length and chunked) keeps the connection
    for the client's next request, as any answer does: only an answer given before the body's end
    says ``Connection: close`` (``service.rest``)."""
    bad_card = b'{"game": "rentoy", "seats": 2, "dealer": 0, "deal": {"hands": ["1o 2o 3o", "4o 5o 9c"], "stock": "2c"}}'
    with socket.create_connection(("127.0.0.1", rest_port), timeout=20) as sock:
        for body, code in ((b"{oops", "MALFORMED_JSON"), (bad_card, "UNKNOWN_CARD")):
            for framing in (b"Content-Length: %d\r\n\r\n%s" % (len(body), body), b"Transfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n0\r\n\r\n" % (len(body), body)):
                sock.sendall(b"POST /v1/hands:validate HTTP/1.1\r\nHost: x\r\n" + JSON + framing)
                head = head_of(sock)
                length = int(head.lower().partition(b"\r\ncontent-length: ")[2].partition(b"\r\n")[0])
                received = head
                while len(received) < len(head) + length:
                    received += sock.recv(len(head) + length - len(received))
                answered, headers, problem = problem_of(received)
                assert (answered, problem["code"], headers["connection"]) == (400, code, "keep-alive"), received
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")  # (the same connection)
        received = b""
        while chunk := sock.recv(65536):
            received += chunk
    assert received.startswith(b"HTTP/1.1 200 ") and received.endswith(b'{"status":"SERVING"}\n'), received


def test_only_the_apps_connection_header_closes_the_connection(rest_port) -> None:
    """The worker closes a connection after its answer for the app's ``Connection: close``, not
    for another header that says ``close``: a request ID of ``close``, sent back, keeps it."""
    with socket.create_connection(("127.0.0.1", rest_port), timeout=20) as sock:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Request-Id: close\r\n\r\n")
        received = head_of(sock)
        assert b"\r\nConnection: keep-alive\r\n" in received and b"\r\nX-Request-Id: close\r\n" in received, received
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")  # (the same connection)
        while chunk := sock.recv(65536):
            received += chunk
    assert received.count(b"HTTP/1.1 200 ") == 2 and received.endswith(b'{"status":"SERVING"}\n'), received


@pytest.mark.parametrize(("target", "media_type", "body", "answer"), [
    (b"/v1/hands:validate", b"application/json", HAND, b'{"game":"rentoy","valid":'),
    (b"/v1/hands:validateStream", b"application/x-ndjson", b'{"id": "e1", "record": ' + HAND + b"}\n", b'"id":"e1"'),
], ids=["unary", "stream"])
def test_a_body_within_the_limit_gets_100_continue(target, media_type, body, answer, rest_port) -> None:
    """``Expect: 100-continue`` with a body the service reads (within the limit; a stream's, which
    has none): the 100 Continue comes before the body is sent, then the answer, and the connection
    serves its next request."""
    head = b"POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: %s\r\nExpect: 100-continue\r\nContent-Length: %d\r\n\r\n" % (target, media_type, len(body))
    with socket.create_connection(("127.0.0.1", rest_port), timeout=20) as sock:
        sock.sendall(head)
        assert head_of(sock) == b"HTTP/1.1 100 Continue\r\n\r\n"
        sock.sendall(body)
        received = head_of(sock)
        assert received.startswith(b"HTTP/1.1 200 ") and b"connection: close" not in received.lower(), received
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")  # (the same connection)
        while chunk := sock.recv(65536):
            received += chunk
    assert answer in received and received.count(b"HTTP/1.1 200 ") == 2 and received.endswith(b'{"status":"SERVING"}\n'), received
