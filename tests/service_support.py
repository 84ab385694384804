"""Helpers of the service tests: one RPC called over gRPC and over REST, errors read back from
either transport, the shared sample records. Not a test module."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

import grpc
import pytest
import requests
from examples_support import assert_matches_expect, examples_dir, load_example, rentoy_examples  # noqa: F401 (re-exported)
from google.protobuf import json_format, message_factory
from google.rpc import error_details_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_status import rpc_status

from bench.run import descendants
from engine import api
from engine.errors import InvalidInput
from service.codec import to_json
from service.errors import ERRORS
from service.handlers import SERVICE
from service.rest import http_routes

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent  # this environment's commands: naipes, buf, hadolint, ...


def alive(pid: int) -> bool:
    """The process runs (an exited process its new parent has not reaped yet is a zombie)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def tool(name: str) -> str:
    """A command of this environment (installed with the project), else the one on PATH."""
    return str(BIN / name) if (BIN / name).exists() else name
ROUTES = {route.method.name: route for route in http_routes()}


@dataclass
class Failure:
    """An error answer, from either transport."""

    code: str  # the error table's code: ErrorInfo.reason (gRPC) or problem "code" (REST)
    field: str | None
    message: str
    status: Any  # grpc.StatusCode or the HTTP status
    retry_after: int | None = None  # seconds: RetryInfo (gRPC) or the Retry-After header (REST)


def call_grpc(stub: Any, rpc: str, request: dict) -> dict:
    """Call an RPC with a request given as JSON; the answer as the API's JSON (the response_body
    field for REST-shaped comparison), or raise grpc.RpcError."""
    method = SERVICE.methods_by_name[rpc]
    message = json_format.ParseDict(request, message_factory.GetMessageClass(method.input_type)())
    answer = getattr(stub, rpc)(message, timeout=30)
    body = ROUTES[rpc].response_body
    return to_json(getattr(answer, body) if body else answer)


def rest_layout(rpc: str, request: dict) -> tuple[str, str, Any, dict]:
    """An RPC's request as its http annotation lays it out over REST: (verb, path, JSON body or
    None, query parameters)."""
    route = ROUTES[rpc]
    request = dict(request)
    path = route.template
    for var in route.variables:  # (a segment's value percent-encoded, its slashes included: %2F)
        path = path.replace("{" + var + "}", quote(str(request.pop(var)), safe=""))
    if route.body == "*":
        return route.verb, path, request, {}
    if route.body:
        return route.verb, path, request.pop(route.body, {}), request
    return route.verb, path, None, request


def rest_request(http: requests.Session, base: str, rpc: str, request: dict, headers: dict[str, str] | None = None) -> requests.Response:
    """Call an RPC over REST with the request's JSON laid out as its http annotation says (and ``headers``)."""
    verb, path, body, params = rest_layout(rpc, request)
    return http.request(verb, base + path, json=body, params=params, headers=headers, timeout=30)


def call_rest(http: requests.Session, base: str, rpc: str, request: dict) -> dict:
    response = rest_request(http, base, rpc, request)
    assert response.status_code == 200, response.text
    assert response.headers["Content-Type"].startswith("application/json")
    return response.json()


def call_both(stub: Any, http: requests.Session, base: str, rpc: str, request: dict) -> dict:
    """The answer over both transports; they must be equal."""
    over_grpc = call_grpc(stub, rpc, request)
    over_rest = call_rest(http, base, rpc, request)
    assert over_rest == over_grpc
    return over_rest


def grpc_failure(exc: grpc.RpcError) -> Failure:
    """The error of a failed call. A status with the error table's details (the rich error model,
    docs/api.md) holds one ``ErrorInfo``; when it names a field, one ``BadRequest`` with that one
    field's violation, described by the status's message; and no ``BadRequest`` otherwise."""
    status = rpc_status.from_call(exc)  # type: ignore[arg-type]
    code, field, retry_after = "", None, None
    violations: list[tuple[str, str]] | None = None
    if status is not None:
        infos = 0
        for detail in status.details:
            if detail.Is(error_details_pb2.RetryInfo.DESCRIPTOR):
                retry = error_details_pb2.RetryInfo()
                detail.Unpack(retry)
                retry_after = retry.retry_delay.seconds
            if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
                info = error_details_pb2.ErrorInfo()
                detail.Unpack(info)
                assert info.domain == "naipes.v1"
                assert set(info.metadata) <= {"field"}, dict(info.metadata)
                code, field = info.reason, info.metadata.get("field")
                infos += 1
            elif detail.Is(error_details_pb2.BadRequest.DESCRIPTOR):
                assert violations is None, "two BadRequest details"
                bad = error_details_pb2.BadRequest()
                detail.Unpack(bad)
                violations = [(v.field, v.description) for v in bad.field_violations]
        assert infos == 1, status
        assert violations == (None if field is None else [(field, status.message)]), status
    return Failure(code, field, exc.details() or "", exc.code(), retry_after)


def rest_failure(response: requests.Response) -> Failure:
    assert response.headers["Content-Type"].startswith("application/problem+json"), response.text
    body = response.json()
    assert body["status"] == response.status_code
    assert {"type", "title", "status", "detail", "code"} <= set(body)
    assert (body["type"], body["title"]) == (f"urn:naipes:error:{body['code']}", ERRORS[body["code"]].title), body
    if "field" in body:
        assert body["fieldViolations"] == [{"field": body["field"], "description": body["detail"]}]
    retry_after = response.headers.get("Retry-After")
    return Failure(body["code"], body.get("field"), body["detail"], response.status_code, None if retry_after is None else int(retry_after))


def assert_same_error(stub: Any, http: requests.Session, base: str, rpc: str, request: dict, code: str, field: str) -> None:
    """The request fails over both transports with the same code, field and message, and each
    transport's status is the one the error table gives the code."""
    with pytest.raises(grpc.RpcError) as raised:
        call_grpc(stub, rpc, request)
    over_grpc = grpc_failure(raised.value)
    over_rest = rest_failure(rest_request(http, base, rpc, request))
    assert (over_grpc.code, over_grpc.field) == (code, field), over_grpc.message
    assert (over_rest.code, over_rest.field) == (code, field), over_rest.message
    assert over_grpc.status == ERRORS[code].grpc_code
    assert over_rest.status == ERRORS[code].http_status
    assert over_grpc.message == over_rest.message


def call_unary(target: Any, rpc: str, request: dict) -> Any:
    """The answer of ``target``, ``engine.api`` or a Python client (``RestClient``,
    ``GrpcClient``), to the request of a unary RPC, as its REST route answers it (ValidateHand's
    the validation result itself): the method of the RPC's name in snake case, ValidateHand the
    engine's ``validate``."""
    if rpc == "ValidateHand":
        return (api.validate if target is api else target.validate_hand)(request["record"])
    if rpc == "LegalActions":
        return target.legal_actions(request["record"], request.get("seat"))
    if rpc == "DescribeRules":
        return target.describe_rules(request["game"])
    return getattr(target, {"SettleHand": "settle_hand", "ResolveTrick": "resolve_trick", "Deal": "deal"}[rpc])(request)


def engine_answer(rpc: str, request: dict) -> dict:
    """The engine's answer to the request of a unary RPC (``call_unary``)."""
    answer: dict = call_unary(api, rpc, request)
    return answer


def engine_error(rpc: str, request: dict) -> InvalidInput:
    """What the engine itself raises for the request of an RPC (which must be rejected)."""
    with pytest.raises(InvalidInput) as raised:
        engine_answer(rpc, request)
    return raised.value


def cards_in(value: object, card: re.Pattern[str]) -> set[str]:
    """Every card (``card``: the deck's pattern) named anywhere in a JSON value (card lists are
    space-separated strings)."""
    if isinstance(value, dict):
        return set().union(*(cards_in(v, card) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(cards_in(v, card) for v in value)) if value else set()
    if isinstance(value, str):
        return {token for token in value.split() if card.match(token)}
    return set()


def read_until(server: subprocess.Popen[str], done: Callable[[list[str]], bool], seconds: float = 60) -> list[str]:
    """The lines a server has written (its ``stdout``, a text pipe) up to the one after which
    ``done(lines)`` holds: the server's own word that it serves (``gRPC listening on ...``,
    ``naipes ready``), the condition to wait on before calling it. A client's wait for a port to
    answer is not: a gRPC channel that found the port closed retries after a growing backoff (1,
    1.6, 2.6 ... s), so that a server up after 17 s of a slow start was not reached within a 30 s
    deadline. AssertionError with the lines if the server ends first, or has not written them
    within ``seconds`` (it is killed then, with every process it started, which ends its output)."""
    assert server.stdout is not None
    watchdog = threading.Timer(seconds, kill, (server,))
    watchdog.start()
    lines: list[str] = []
    try:
        while not done(lines):
            line = server.stdout.readline()
            if not line:
                raise AssertionError(f"the server ended (status {server.wait()}) before it was ready: {''.join(lines)}")
            lines.append(line)
    finally:
        watchdog.cancel()
    return lines


def kill(server: subprocess.Popen[str]) -> None:
    """Kill a server and every process it started, at once: a killed ``naipes serve``'s servers
    stop on the SIGTERM the kernel sends them (``cli._ended_with_this_process``) within their
    grace, and hold its output open until then."""
    started = descendants(server.pid)  # (each parent before its children: gunicorn before a worker it would replace)
    server.kill()
    for pid in started:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def stop(server: subprocess.Popen[str]) -> str:
    """Stop a ``naipes serve`` process as an operator would (SIGTERM; killed, with every process it
    started, if it has not ended 30 s later); its output."""
    server.send_signal(signal.SIGTERM)
    try:
        output, _ = server.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        kill(server)
        output, _ = server.communicate()
    return output


def assert_healthy(channel: grpc.Channel, http: requests.Session, base: str) -> None:
    """Both servers still answer their health checks."""
    health = health_pb2_grpc.HealthStub(channel)
    for service in ("", SERVICE.full_name):
        answer = health.Check(health_pb2.HealthCheckRequest(service=service), timeout=10)
        assert answer.status == health_pb2.HealthCheckResponse.SERVING
    response = http.get(base + "/healthz", timeout=10)
    assert response.status_code == 200 and response.json() == {"status": "SERVING"}




def answerable_before(records: list[dict], read_ahead: int) -> int:
    """How many of ``records``, sent as ``answered_while_sending`` sends them, end at least
    ``read_ahead`` bytes before the end of the body sent: the lines the server must have answered
    while the body is still open."""
    import json

    sizes = [len(json.dumps({"id": f"w{i}", "record": record})) + 1 for i, record in enumerate(records)]
    ends = [sum(sizes[: i + 1]) for i in range(len(sizes))]
    return sum(end <= ends[-1] - read_ahead for end in ends)


def answered_while_sending(base: str, records: list[dict], wanted: int, seconds: float = 10.0) -> int:
    """POST ``records`` to the NDJSON stream, one line and one chunk each, with ids ``w0``, ``w1``
    ..., leave the body open and count the answers that come back before it ends: until ``wanted``
    have or ``seconds`` have passed (then end the body)."""
    import json
    import socket
    import time
    from urllib.parse import urlparse

    url = urlparse(base)
    sock = socket.create_connection((url.hostname, url.port), timeout=seconds)
    try:
        sock.sendall(f"POST /v1/hands:validateStream HTTP/1.1\r\nHost: {url.netloc}\r\nContent-Type: application/x-ndjson\r\n"
                     "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n".encode())
        for i, record in enumerate(records):
            line = (json.dumps({"id": f"w{i}", "record": record}) + "\n").encode()
            sock.sendall(b"%x\r\n%s\r\n" % (len(line), line))
        received, deadline = b"", time.monotonic() + seconds
        while received.count(b'"id":"w') < wanted and time.monotonic() < deadline:
            sock.settimeout(max(deadline - time.monotonic(), 0.01))
            try:
                data = sock.recv(1 << 16)
            except TimeoutError:
                break
            if not data:
                break
            received += data
        sock.sendall(b"0\r\n\r\n")
        return received.count(b'"id":"w')
    finally:
        sock.close()


class Listener:
    """A test server's listening socket on 127.0.0.1 (``port``; 0, any free one) whose thread
    hands each connection to ``handle``, from ``start()`` to ``close()``. ``close()`` shuts the
    socket down before it closes it: ``close()`` alone does not end the thread's wait in
    ``accept()`` (Linux), and the waiting call kept the socket listening on its port, with no
    descriptor left to close it, while the kernel let another socket bind that port again
    (SO_REUSEADDR): a server started later on it lost a connection to this thread (the suite's
    REST server, to a closed HTTP/2 fake: a stream test waited 60 s for an answer)."""

    def __init__(self, handle: Callable[[socket.socket], None], port: int = 0) -> None:
        self.sock = socket.create_server(("127.0.0.1", port))
        self.port: int = self.sock.getsockname()[1]
        self._handle = handle
        self._thread = threading.Thread(target=self._accept, daemon=True)

    def start(self) -> None:
        self._thread.start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self._handle(conn)

    def close(self) -> None:
        try:
            self.sock.shutdown(socket.SHUT_RDWR)  # (ends the wait in accept(), which raises)
        except OSError:
            pass  # (already closed)
        self._thread.join(10)
        self.sock.close()
        assert not self._thread.is_alive(), "the server's thread still waits in accept()"


class Relay:
    """A TCP relay to the server on 127.0.0.1:``port`` (``target`` is its own address) that counts
    the connections it is given (``connections``) and the bytes the server sends back (``received``)."""

    def __init__(self, port: int) -> None:
        self.received = self.connections = 0
        self._lock = threading.Lock()

        def handle(client: socket.socket) -> None:
            self.connections += 1  # (on the listener's one thread)
            server = socket.create_connection(("127.0.0.1", port))
            threading.Thread(target=self._pipe, args=(client, server, False), daemon=True).start()
            threading.Thread(target=self._pipe, args=(server, client, True), daemon=True).start()

        self.listener = Listener(handle)
        self.listener.start()
        self.target = f"127.0.0.1:{self.listener.port}"

    def _pipe(self, source: socket.socket, sink: socket.socket, counted: bool) -> None:
        try:
            while data := source.recv(65536):
                if counted:  # (before it is sent on: the client may read it and return at once)
                    with self._lock:
                        self.received += len(data)
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for sock in (source, sink):
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def close(self) -> None:
        self.listener.close()


# A self-signed certificate for 127.0.0.1 and localhost, and its key, for the tests only (valid to 2126).
TLS_PEM = ROOT / "tests" / "tls" / "localhost.pem"


class FakeHttp:
    """A socket server on 127.0.0.1 that reads each request's head and answers ``answer``
    (raw bytes), or nothing at all (``None``: the connection is held open, silent): a proxy's page,
    a server that hangs, for the clients' tests. An answer given in pieces (a list) is sent a piece
    at a time, ``pause`` seconds apart: a server slow to answer, that answers all the same.
    ``tls``: over HTTPS, with ``TLS_PEM``'s certificate (a client trusts it with SSL_CERT_FILE)."""

    def __init__(self, answer: bytes | list[bytes] | None, pause: float = 0, tls: bool = False):
        self.answer, self.pause, self.held = answer, pause, []
        self._tls = None
        if tls:
            import ssl

            self._tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            self._tls.load_cert_chain(TLS_PEM)
        self._listener = Listener(self._serve)
        self.url = f"{'https' if tls else 'http'}://127.0.0.1:{self._listener.port}"
        self._listener.start()

    def _serve(self, conn: socket.socket) -> None:
        if self._tls is not None:
            conn = self._tls.wrap_socket(conn, server_side=True)
        self.held.append(conn)
        if isinstance(self.answer, bytes):
            conn.recv(65536)
            conn.sendall(self.answer)
            conn.close()
        elif self.answer is not None:
            threading.Thread(target=self._answer_slowly, args=(conn, self.answer), daemon=True).start()

    def _answer_slowly(self, conn: socket.socket, pieces: list[bytes]) -> None:
        import time

        conn.recv(65536)
        try:
            for i, piece in enumerate(pieces):
                time.sleep(self.pause if i else 0)
                conn.sendall(piece)
        except OSError:
            pass  # the client let go before the end
        finally:
            conn.close()

    def close(self) -> None:
        self._listener.close()
        for conn in self.held:
            conn.close()


# ---- every unary RPC of the three games, for the clients' tests ----------------------------------


def _example_record(name: str) -> dict:
    return load_example(examples_dir() / f"{name}.json")[0]


def _cut(record: dict, actions: int) -> dict:
    return dict(record, actions=record["actions"][:actions])


_TRESILLO = _example_record("tresillo-full-36-solo")  # four seats, a reserved plate, two cartulina entries
_REVESINO = _example_record("revesino-full-21-nap")
_RENTOY = _example_record("rentoy-full-30")  # eight seats
# (name, RPC, request) as the REST route and the gRPC message both spell it (LegalActions' `seat`
# the route's query parameter): each game's every unary RPC, with answers that carry every kind
# of field the schema has (lists of messages, a Struct of rules, the Values of DescribeRules) and
# the empty lists the API's JSON prints (a violation's `legal` and `actions`, a view's `tricks`, a
# settled Tresillo hand's `condiciones` beside its outcome, a Tresillo table's `cartulina`).
UNARY_CALLS: list[tuple[str, str, dict]] = [
    ("tresillo validate", "ValidateHand", {"record": _TRESILLO}),
    ("tresillo validate, a violation", "ValidateHand", {"record": _example_record("tresillo-bad-09-must-follow-suit")}),
    ("tresillo legal actions", "LegalActions", {"record": _cut(_TRESILLO, 12)}),
    ("tresillo legal actions, a seat's view", "LegalActions", {"record": _cut(_TRESILLO, 12), "seat": 2}),
    ("tresillo legal actions, a violation", "LegalActions", {"record": _example_record("tresillo-bad-13-must-play-trump")}),
    ("tresillo trick, the alcalde plays none", "ResolveTrick",
     {"game": "tresillo", "seats": 4, "dealer": 0, "leader": 3, "contract": {"trump": "oros"}, "cards": "1e 3o 12c"}),
    ("tresillo settle, codillo", "SettleHand",
     {"game": "tresillo", "seats": 3, "dealer": 2, "rules": {"favorSuit": "bastos"},
      "table": {"plate": 30, "plateHolds": "primera", "cartulina": []},
      "tresillo": {"jugador": 0, "lance": "entrada", "trump": "bastos", "jugadorHand": "2b 12b 11b 10b 7b 6b 5b 4b 3b",
                   "tricks": [1, 1, 1, 1, 1]}}),
    ("tresillo settle, annulled", "SettleHand",
     {"game": "tresillo", "seats": 4, "dealer": 3, "table": {"plate": 40, "plateHolds": "reservada", "cartulina": [{"seat": 0, "amount": 25}]},
      "tresillo": {"annulled": True}}),
    ("tresillo deal", "Deal", {"game": "tresillo", "seats": 4, "dealer": 3, "seed": "every rpc"}),
    ("tresillo rules", "DescribeRules", {"game": "tresillo"}),
    ("revesino validate", "ValidateHand", {"record": _REVESINO}),
    ("revesino legal actions", "LegalActions", {"record": _cut(_REVESINO, 20)}),
    ("revesino legal actions, before the exchange", "LegalActions",
     {"record": _example_record("revesino-part-01-exchange"), "seat": 0}),
    ("revesino trick, the quínola", "ResolveTrick",
     {"game": "revesino", "seats": 4, "leader": 2, "cards": "6e 8e 10o 2e", "number": 3, "fondo": 14}),
    ("revesino trick, a revoke", "ResolveTrick",
     {"game": "revesino", "leader": 1, "cards": "5e 12e 1b 9e", "number": 4, "rules": {"allowRevokes": True}, "revoked": "1b"}),
    ("revesino settle, a cut hand", "SettleHand",
     {"game": "revesino", "seats": 4, "dealer": 0, "rules": {"allowRevokes": True}, "table": {"fondo": 9},
      "revesino": {"announcer": 1, "outOfPlay": "4b 3b 2b 5b", "tricks": [
          {"cards": "1o 3o 12c 5e"}, {"cards": "12o 2o 12e 4e"}, {"cards": "11o 3c 11e 3e"}, {"cards": "9o 4c 10e 2e"},
          {"cards": "8o 5c 9e 12b"}, {"cards": "7o 6c 8e 11b"}, {"cards": "6o 7c 7e 10b"}, {"cards": "5o 1e 11c 9b"},
          {"cards": "4o 1b 10c 8b"}, {"cards": "2c 1c 6e 7b", "revoked": "6e"}]}}),
    ("revesino deal", "Deal", {"game": "revesino", "seats": 4, "dealer": 0, "seed": "every rpc"}),
    ("revesino rules", "DescribeRules", {"game": "revesino"}),
    ("rentoy validate", "ValidateHand", {"record": _RENTOY}),
    ("rentoy legal actions", "LegalActions", {"record": _cut(_RENTOY, 5), "seat": 3}),
    ("rentoy legal actions, a violation", "LegalActions", {"record": _example_record("rentoy-bad-13-must-play-trump"), "seat": 0}),
    ("rentoy trick", "ResolveTrick", {"game": "rentoy", "seats": 4, "leader": 1, "contract": {"trump": "copas"}, "cards": "12e 2e 3c 1e"}),
    ("rentoy trick, no seats", "ResolveTrick", {"game": "rentoy", "contract": {"trump": "copas"}, "cards": "12e 2e"}),
    ("rentoy settle", "SettleHand", {"game": "rentoy", "seats": 4, "dealer": 1, "table": {"score": [4, 5]},
                                     "rentoy": {"winner": 1, "value": 3, "end": "fold"}}),
    ("rentoy deal", "Deal", {"game": "rentoy", "seats": 6, "dealer": 5, "seed": "every rpc"}),
    ("rentoy rules", "DescribeRules", {"game": "rentoy"}),
]

# (name, RPC, request, code, field): a request of each RPC the service refuses.
REFUSED_CALLS: list[tuple[str, str, dict, str, str]] = [
    ("validate, a wrong option", "ValidateHand", {"record": dict(_REVESINO, rules={"handPayout": "all"})}, "INVALID_OPTION_VALUE",
     "rules.handPayout"),
    ("legal actions, no such seat", "LegalActions", {"record": _cut(_TRESILLO, 12), "seat": 4}, "SEAT_OUT_OF_RANGE", "seat"),
    ("trick, a trump in revesino", "ResolveTrick", {"game": "revesino", "contract": {"trump": "oros"}, "cards": "1o"},
     "INVALID_FIELD", "contract.trump"),
    ("settle, another game's summary", "SettleHand", {"game": "revesino", "seats": 4, "tresillo": {"annulled": True}},
     "INVALID_FIELD", "tresillo"),
    ("deal, five at rentoy", "Deal", {"game": "rentoy", "seats": 5, "dealer": 0, "seed": "s"}, "INVALID_SEATS", "seats"),
    ("rules, no such game", "DescribeRules", {"game": "mus"}, "UNKNOWN_GAME", "game"),
]


def varint(value: int) -> bytes:
    """``value`` as protobuf's wire format writes an integer (a negative one as its 64 bits)."""
    value &= 2**64 - 1
    out = bytearray()
    while value >= 0x80:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def events_emptied(answer: dict[str, Any]) -> dict[str, Any]:
    """A stream's answer (``{"result": ...}``, ``{"error": ...}`` or ``{"batch": [...]}``) as it is
    with its results' events omitted (``omitEvents``: the list left empty)."""
    if "batch" in answer:
        return {**answer, "batch": [events_emptied(item) for item in answer["batch"]]}
    return {**answer, "result": {**answer["result"], "events": []}} if "result" in answer else answer


def forked_holding(lock: str, before_fork: str = "") -> str:
    """Lines of a child script (it imports ``os``, ``sys``, ``threading`` and ``faulthandler``):
    another thread takes ``lock`` (an expression) and holds it while the process runs
    ``before_fork`` and forks, as gunicorn forks the worker of a preloaded app while a thread of
    the app holds a lock. The parent then lets the lock go, waits for its child and exits with its
    status; the lines after these run in the child, a hang ended by faulthandler within 10 s."""
    return f"""
held, done = threading.Event(), threading.Event()
def hold():
    with {lock}:
        held.set()
        done.wait(30)
threading.Thread(target=hold, daemon=True).start()
held.wait()
{before_fork}
pid = os.fork()
if pid:
    done.set()
    _, status = os.waitpid(pid, 0)
    sys.exit(os.waitstatus_to_exitcode(status))
faulthandler.dump_traceback_later(10, exit=True)
"""


@contextmanager
def serving(app: Any) -> Iterator[str]:
    """The WSGI ``app`` on werkzeug's threaded server, on a free 127.0.0.1 port, in a thread of this
    process: its base URL, until the block ends."""
    from werkzeug.serving import make_server

    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, name="rest-test-server", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        thread.join(timeout=5)


def metrics_say(rest_port: int, *lines: str, seconds: float = 10) -> None:
    """Wait until the server's /metrics holds every one of ``lines`` (a process notes a call once
    it has ended and writes its notes every quarter second); fail naming the lines of their metrics."""
    import time

    names = {line.split("{")[0] for line in lines}
    deadline = time.monotonic() + seconds
    while not all(line in (metrics := requests.get(f"http://127.0.0.1:{rest_port}/metrics", timeout=10).text) for line in lines):
        assert time.monotonic() < deadline, [line for line in metrics.splitlines() if line.split("{")[0] in names]
        time.sleep(0.1)


def never_sent(release: Any) -> Iterator[bytes]:
    """A gRPC call's requests that never come: nothing until ``release`` (a threading.Event) is
    set or 30 s have passed, then the end of the requests, empty."""
    release.wait(30)
    yield from ()
