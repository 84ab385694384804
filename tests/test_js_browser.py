"""The JavaScript client (clients/js/naipes.mjs) in real browsers: headless Chromium and headless
Firefox, two engines (Blink, Gecko), each load a page of one origin (a small HTTP server of this
test) that imports the client and calls a real ``naipes serve`` on another origin, so every call
goes through CORS as a web page's would: the preflight of a POST, the headers a page may read
(Retry-After), the answer's stream read with TextDecoder, AbortSignal's timeouts, and the browser's
own errors (TypeError "Failed to fetch", "NetworkError when attempting to fetch resource.").
Every method is called and its answer compared with the engine's (tests/test_clients.py does the
same under Node.js). Chromium is driven over the DevTools protocol on a pipe, Firefox over
WebDriver BiDi (tests/browser_support.py); each test runs in both.

Without a browser its tests are skipped, but not in CI (CI=true), which installs both (.ci/run)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import requests
from browser_support import BROWSERS, Browser, Tab
from examples_support import examples_dir, load_example
from service_support import BIN, FakeHttp, stop

from bench.run import free_port, listening
from engine import api

ROOT = Path(__file__).resolve().parents[1]
CLIENT = ROOT / "clients" / "js" / "naipes.mjs"
RECORD = json.loads((ROOT / "clients" / "examples" / "rentoy-hand.json").read_text())

# The page: the client, and `outcome(call)`, a call's answer or what the page sees of its error, as JSON.
PAGE = b"""<!doctype html>
<meta charset="utf-8">
<title>naipes.mjs in a browser</title>
<script type="module">
import { Naipes, NaipesError } from "./naipes.mjs";
window.outcome = async (call) => {
  try {
    return { value: await call() };
  } catch (e) {
    return { error: { naipesError: e instanceof NaipesError, name: e.name, code: e.code ?? null, field: e.field ?? null,
                      status: e.status ?? null, message: String(e.message) } };
  }
};
Object.assign(window, { Naipes, NaipesError });
</script>
"""


class _PageHandler(BaseHTTPRequestHandler):
    """The page and the client, as a web server would serve them (a module needs a JavaScript type)."""

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        files = {"/": (PAGE, "text/html; charset=utf-8"), "/naipes.mjs": (CLIENT.read_bytes(), "text/javascript; charset=utf-8")}
        body, kind = files.get(self.path, (b"not found", "text/plain"))
        self.send_response(200 if self.path in files else 404)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (http.server's name)
        pass


def _serve(env: dict[str, str]) -> tuple[subprocess.Popen[str], str, int, int]:
    """``naipes serve --workers 1`` on free loopback ports with ``env`` added (not yet listening)."""
    rest_port, grpc_port = free_port(), free_port()
    server = subprocess.Popen([str(BIN / "naipes"), "serve", "--host", "127.0.0.1", "--rest-port", str(rest_port), "--grpc-port",
                               str(grpc_port), "--workers", "1"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                              env={**os.environ, **env})
    return server, f"http://127.0.0.1:{rest_port}", rest_port, grpc_port


@dataclass
class Env:
    browser: Browser
    page: Tab  # a page of one origin...
    other_page: Tab  # ...and of another
    api: str  # naipes serve, any origin (the default)
    listed: str  # naipes serve, NAIPES_CORS_ORIGINS: `page`'s origin and another, not `other_page`'s


def _executable(name: str) -> str:
    find, _driver, package = BROWSERS[name]
    found: str | None = find()
    if found is None:
        if os.environ.get("CI", "").lower() not in ("", "0", "false"):
            pytest.fail(f"CI: {name} is needed for the JavaScript client's browser test (.ci/run installs {package})")
        pytest.skip(f"no {name} here (Debian: apt-get install {package}): its browser test is left out")
    return found


@dataclass
class Servers:
    origins: list[str]  # the pages' two origins
    api: str
    listed: str


@pytest.fixture(scope="module")
def servers() -> Iterator[Servers]:
    """The pages' two origins, and two ``naipes serve`` (any origin; NAIPES_CORS_ORIGINS), for both browsers."""
    pages = [ThreadingHTTPServer(("127.0.0.1", 0), _PageHandler) for _ in range(2)]
    for page in pages:
        threading.Thread(target=page.serve_forever, daemon=True).start()
    origins = [f"http://127.0.0.1:{page.server_port}" for page in pages]
    started = [_serve({"NAIPES_STREAMS": "2"}), _serve({"NAIPES_CORS_ORIGINS": f"http://tables.example,{origins[0]}"})]
    try:
        deadline = time.monotonic() + 60
        for server, _base, rest_port, grpc_port in started:
            while not (listening(rest_port) and listening(grpc_port)):
                assert server.poll() is None and time.monotonic() < deadline, f"naipes serve did not come up: {stop(server)}"
                time.sleep(0.1)
        yield Servers(origins, started[0][1], started[1][1])
    finally:
        for server, *_ in started:
            stop(server)
        for page in pages:
            page.shutdown()
            page.server_close()
            page.server_close()


@pytest.fixture(scope="module", params=list(BROWSERS))
def env(request: pytest.FixtureRequest, servers: Servers) -> Iterator[Env]:
    """One browser (each test runs in each; pytest groups the tests by browser, so each starts once)."""
    executable = _executable(request.param)
    browser = BROWSERS[request.param][1](executable)
    try:
        tabs = [browser.tab(origin + "/") for origin in servers.origins]
        for tab in tabs:
            tab.run(f"window.record = {json.dumps(RECORD)}; typeof Naipes")
        yield Env(browser, tabs[0], tabs[1], servers.api, servers.listed)
    finally:
        browser.close()


def call(tab: Tab, base: str, method: str, *args: Any, options: dict[str, Any] | None = None, timeout: float | None = None) -> Any:
    """``new Naipes(base, options).method(...args)`` in the page: {"value": ...} or {"error": {...}}."""
    given = ", ".join(json.dumps(arg) for arg in args)
    return tab.run(f"outcome(() => new Naipes({json.dumps(base)}, {json.dumps(options or {})}).{method}({given}))", timeout=timeout)


def test_every_method_answers_as_the_engine_does(env: Env) -> None:
    partial = dict(RECORD, actions=RECORD["actions"][:5])
    trick = {"game": "rentoy", "seats": 4, "leader": 1, "contract": {"trump": "copas"}, "cards": "12e 2e 3c 1e"}
    settle = {"game": "rentoy", "seats": 4, "table": {"score": [4, 5]}, "rentoy": {"winner": 1, "value": 3, "end": "fold"}}
    deal = {"game": "rentoy", "seats": 4, "dealer": 0, "seed": "readme"}
    with requests.Session() as http:  # what the service answers a client that is no browser
        settled = http.post(env.api + "/v1/hands:settle", json=settle, timeout=10).json()
        rules = http.get(env.api + "/v1/games/rentoy/rules", timeout=10).json()
    assert call(env.page, env.api, "validateHand", RECORD) == {"value": api.validate(RECORD)}
    assert call(env.page, env.api, "legalActions", partial, 3) == {"value": api.legal_actions(partial, 3)}
    assert call(env.page, env.api, "legalActions", partial) == {"value": api.legal_actions(partial, None)}
    assert call(env.page, env.api, "resolveTrick", trick)["value"]["winner"] == 3
    assert call(env.page, env.api, "settleHand", settle) == {"value": settled}
    assert settled["table"] == {"score": [4, 8]}
    assert call(env.page, env.api, "deal", deal) == {"value": api.deal(deal)}
    assert call(env.page, env.api, "describeRules", "rentoy") == {"value": rules}
    assert rules["game"] == "rentoy" and rules["options"]


@pytest.mark.parametrize("method,request_,code,field", [
    ("validateHand", dict(RECORD, game="mus"), "UNKNOWN_GAME", "game"),
    ("validateHand", dict(RECORD, rules={"ladder": "1-2-3"}), "INVALID_OPTION_VALUE", "rules.ladder"),
    ("legalActions", dict(RECORD, deal={"hands": ["1o 2o 3o", "4o 5o 6o", "7o 10o 11o", "12o 1c 1c"], "stock": "2c"}),
     "DUPLICATE_CARD", "deal.hands[3]"),
    ("validateHand", dict(RECORD, foo=1), "INVALID_FIELD", "foo"),
    ("describeRules", "mus", "UNKNOWN_GAME", "game"),  # a GET: no preflight, the error's own CORS headers
])
def test_a_refused_request_is_a_naipes_error_with_code_and_field(env: Env, method: str, request_: Any, code: str, field: str) -> None:
    error = call(env.page, env.api, method, request_)["error"]
    assert (error["naipesError"], error["name"], error["code"], error["field"]) == (True, "NaipesError", code, field), error
    assert error["status"] in (400, 404)


def _archive() -> list[dict]:
    records = [load_example(p)[0] for p in sorted(examples_dir().glob("*.json"))]
    return [dict(r, actions=(r.get("actions") or [])[:n]) for r in records for n in (0, 3, 1000)]


def test_validate_hands_answers_an_archive_with_bad_records_in_their_place(env: Env) -> None:
    """A few hundred records, in lines of 7 and of 50, with records the service refuses (an unknown
    game, seats that are no number) and records JSON cannot hold (NaN, a BigInt), each answered
    in its place, and records whose answers quote actions in characters of 2 to 4 bytes of UTF-8
    (which TextDecoder's stream mode must put together again when a piece of the answer splits
    one); then sixty large records (1.9 MB of NDJSON, in lines under the limit)."""
    unicode = [dict(RECORD, actions=["١ 1e"]), *(dict(RECORD, actions=[f"0 ñandú€😀{i}" * 40]) for i in range(20))]
    records = (_archive() + unicode) * 4
    want = [{"result": api.validate(r)} for r in records]
    assert len(records) >= 200 and len({json.dumps(w) for w in want}) > 20
    env.page.run(f"window.archive = {json.dumps(records)}; archive.length")
    for batch in (7, 50):
        answers = env.page.run(f"""outcome(() => {{
  const records = [...archive];
  records.splice(40, 0, {{...record, game: "mus"}});
  records.splice(100, 0, {{...record, seats: "four"}});
  records.splice(150, 0, {{...record, seats: NaN}});
  records.push({{...record, table: {{score: [1n, 0]}}}});
  return new Naipes({json.dumps(env.api)}).validateHands(records, {{ batch: {batch} }});
}})""")["value"]
        assert len(answers) == len(records) + 4
        bad = [answers.pop(i) for i in (150, 100, 40)] + [answers.pop()]
        assert answers == want, batch
        assert [(b["error"]["code"], b["error"].get("field")) for b in bad] == [
            ("INVALID_FIELD", "seats"), ("INVALID_FIELD", "seats"), ("UNKNOWN_GAME", "game"), ("INVALID_FIELD", "table.score[0]")]
    # The same records, their answers read in pieces of 7 bytes, every character of 2 to 4 bytes
    # split somewhere (the browser's reads of a stream came line by line here, but may come in any
    # pieces a network gives).
    env.page.run(f"window.unicode = {json.dumps(unicode)}; unicode.length")
    answers = env.page.run(f"""outcome(() => new Naipes({json.dumps(env.api)}, {{ fetchImpl: async (url, init) => {{
  const response = await fetch(url, init);
  const pieces = new TransformStream({{ transform(chunk, out) {{
    for (let i = 0; i < chunk.length; i += 7) out.enqueue(chunk.slice(i, i + 7));
  }} }});
  return new Response(response.body.pipeThrough(pieces), response);
}} }}).validateHands(unicode, {{ batch: 5 }}))""")
    assert answers == {"value": [{"result": api.validate(r)} for r in unicode]}
    big = dict(RECORD, actions=["0 " + "x" * 28] * 1000)
    answers = env.page.run(f"""outcome(() => new Naipes({json.dumps(env.api)}).validateHands(
  Array(60).fill({{...record, actions: Array(1000).fill("0 " + "x".repeat(28))}})))""")
    assert answers == {"value": [{"result": api.validate(big)}] * 60}


def test_validate_hands_stream_answers_a_live_feed_and_can_be_left(env: Env) -> None:
    """validateHandsStream in a page: a feed that gives its next hand only once the one before is
    answered is answered hand by hand (a client that waited for a full stream would wait for
    ever); leaving the loop early closes an endless feed (its ``finally`` runs)."""
    out = env.page.run(f"""outcome(async () => {{
  const naipes = new Naipes({json.dumps(env.api)});
  let answered = () => {{}};
  async function* table() {{
    for (let hand = 1; hand <= 3; hand++) {{
      yield {{...record, actions: record.actions.slice(0, hand)}};
      await new Promise((resolve) => {{ answered = resolve; }});
    }}
  }}
  const answers = [];
  for await (const answer of naipes.validateHandsStream(table())) {{ answers.push(answer); answered(); }}
  let closed = false;
  async function* endless() {{ try {{ for (;;) yield record; }} finally {{ closed = true; }} }}
  for await (const answer of naipes.validateHandsStream(endless())) break;
  await new Promise((resolve) => setTimeout(resolve, 100));
  return {{ answers, closed }};
}})""")
    assert out == {"value": {"answers": [{"result": api.validate(dict(RECORD, actions=RECORD["actions"][:n]))} for n in (1, 2, 3)],
                             "closed": True}}


def _hold_stream(base: str) -> socket.socket:
    """A stream of the server's, held open once the server has answered its first line (it has
    taken one of the process's stream slots)."""
    port = int(base.rsplit(":", 1)[1])
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    line = (json.dumps({"id": "held", "record": RECORD}) + "\n").encode()
    sock.sendall(f"POST /v1/hands:validateStream HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/x-ndjson\r\n"
                 "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n".encode() + b"%x\r\n%s\r\n" % (len(line), line))
    received = b""
    while b'"id":"held"' not in received:
        data = sock.recv(65536)
        assert data, received
        received += data
    return sock


def _release(sock: socket.socket) -> None:
    try:
        sock.sendall(b"0\r\n\r\n")
        while sock.recv(65536):
            pass
    except OSError:
        pass
    finally:
        sock.close()


def test_a_refused_stream_is_retried_after_its_retry_after(env: Env) -> None:
    """Every stream slot of the server taken: the page reads the refusal's Retry-After (exposed to
    it by CORS), validateHands gives up with TOO_MANY_STREAMS after its retries, and with them it
    sends the stream again once a slot is free."""
    held = [_hold_stream(env.api) for _ in range(2)]  # NAIPES_STREAMS=2, one process
    freed = None
    try:
        refused = env.page.run(f"""(async () => {{
  const response = await fetch({json.dumps(env.api + "/v1/hands:validateStream")}, {{
    method: "POST", headers: {{ "Content-Type": "application/x-ndjson" }}, body: JSON.stringify(record) + "\\n" }});
  return {{ status: response.status, retryAfter: response.headers.get("Retry-After"), code: (await response.json()).code }};
}})()""")
        assert refused == {"status": 429, "retryAfter": "1", "code": "TOO_MANY_STREAMS"}
        gave_up = call(env.page, env.api, "validateHands", [RECORD], {"retries": 0})["error"]
        assert (gave_up["naipesError"], gave_up["code"], gave_up["status"]) == (True, "TOO_MANY_STREAMS", 429)
        freed = threading.Timer(1.5, lambda: [_release(sock) for sock in held])
        freed.start()
        out = env.page.run(f"""(async () => {{
  const start = performance.now();
  const answer = await outcome(() => new Naipes({json.dumps(env.api)}).validateHands([record, record]));
  return {{ ...answer, waited: performance.now() - start }};
}})()""")
        assert out["waited"] >= 1000, out  # refused at first, sent again
        assert out["value"] == [{"result": api.validate(RECORD)}] * 2
    finally:
        if freed is not None:
            freed.join()
        for sock in held:
            _release(sock)


def test_a_server_that_never_answers_is_deadline_exceeded(env: Env) -> None:
    silent = FakeHttp(None)
    try:
        for method, args in (("validateHand", [RECORD]), ("describeRules", ["rentoy"]), ("validateHands", [[RECORD]])):
            start = time.monotonic()
            error = call(env.page, silent.url, method, *args, options={"timeoutMs": 500})["error"]
            assert (error["naipesError"], error["code"], error["status"]) == (True, "DEADLINE_EXCEEDED", None), (method, error)
            assert time.monotonic() - start < 5, method
    finally:
        silent.close()


class _HeadOnly(BaseHTTPRequestHandler):
    """A server that answers a preflight, then only the head of each answer (200, its CORS header),
    and no body: the page may read the answer, which never comes."""

    protocol_version = "HTTP/1.1"
    ended: threading.Event  # (each server's own)

    def do_OPTIONS(self) -> None:  # noqa: N802 (http.server's name)
        self.send_response(204)
        for name, value in (("Access-Control-Allow-Origin", "*"), ("Access-Control-Allow-Methods", "GET, POST"),
                            ("Access-Control-Allow-Headers", "Content-Type"), ("Content-Length", "0")):
            self.send_header(name, value)
        self.end_headers()

    def do_GET(self) -> None:  # noqa: N802
        self.send_response(200)
        self.send_header("Access-Control-Allow-Origin", "*")
        self.send_header("Content-Type", "application/json")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        self.ended.wait(10)
        self.close_connection = True

    def do_POST(self) -> None:  # noqa: N802
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.do_GET()

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (http.server's name)
        pass


def test_an_answer_whose_body_never_comes_is_deadline_exceeded(env: Env) -> None:
    """The head of the answer and no body. Chromium's fetch resolves with the head and the client's
    read of the body is what times out; Firefox's resolves only with the body's first bytes (153 ESR;
    docs/api.md), so there fetch itself times out: DEADLINE_EXCEEDED either way, for every method."""
    handler = type("HeadOnly", (_HeadOnly,), {"ended": threading.Event()})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_port}"
    try:
        for method, args in (("validateHand", [RECORD]), ("describeRules", ["rentoy"]), ("validateHands", [[RECORD]])):
            start = time.monotonic()
            error = call(env.page, url, method, *args, options={"timeoutMs": 500})["error"]
            assert (error["naipesError"], error["code"], error["status"]) == (True, "DEADLINE_EXCEEDED", None), (method, error)
            assert time.monotonic() - start < 5, method
    finally:
        handler.ended.set()
        server.shutdown()
        server.server_close()


def test_a_server_that_is_down_is_unavailable(env: Env) -> None:
    down = f"http://127.0.0.1:{free_port()}"
    for method, args in (("validateHand", [RECORD]), ("describeRules", ["rentoy"]), ("validateHands", [[RECORD]])):
        error = call(env.page, down, method, *args)["error"]
        assert (error["naipesError"], error["code"], error["status"]) == (True, "UNAVAILABLE", None), (method, error)
        assert error["message"].startswith(down + ": "), error


def test_only_the_listed_origins_may_call(env: Env) -> None:
    """NAIPES_CORS_ORIGINS lists `page`'s origin and not `other_page`'s: the one's calls are
    answered, the other's are UNAVAILABLE (the browser gives the page nothing of an answer without
    its origin in Access-Control-Allow-Origin, a network error)."""
    for method, args, want in (("validateHand", [RECORD], api.validate(RECORD)), ("describeRules", ["rentoy"], None),
                               ("validateHands", [[RECORD]], [{"result": api.validate(RECORD)}])):
        answer = call(env.page, env.listed, method, *args)
        assert "value" in answer and (want is None or answer["value"] == want), (method, answer)
        error = call(env.other_page, env.listed, method, *args)["error"]
        assert (error["naipesError"], error["code"], error["status"]) == (True, "UNAVAILABLE", None), (method, error)
    # The same page calls the server that lets any origin.
    assert call(env.other_page, env.api, "validateHand", RECORD) == {"value": api.validate(RECORD)}


PROXY_502 = b"<html><body>502 Bad Gateway</body></html>"


@pytest.mark.parametrize("cors", [False, True])
def test_a_proxy_error_page(env: Env, cors: bool) -> None:
    """A proxy's HTML error page: HTTP_502 when the page may read it (the proxy sends CORS headers,
    and the call needs no preflight: describeRules, a GET); otherwise the browser gives the page a
    network error, UNAVAILABLE (a POST's preflight answered 502 fails whatever its headers)."""
    head = "HTTP/1.1 502 Bad Gateway\r\nContent-Type: text/html\r\nConnection: close\r\n"
    head += "Access-Control-Allow-Origin: *\r\n" if cors else ""
    proxy = FakeHttp(f"{head}Content-Length: {len(PROXY_502)}\r\n\r\n".encode() + PROXY_502)
    try:
        got = call(env.page, proxy.url, "describeRules", "rentoy")["error"]
        assert (got["naipesError"], got["code"], got["status"]) == ((True, "HTTP_502", 502) if cors else (True, "UNAVAILABLE", None)), got
        got = call(env.page, proxy.url, "validateHand", RECORD)["error"]
        assert (got["naipesError"], got["code"], got["status"]) == (True, "UNAVAILABLE", None), got
    finally:
        proxy.close()
