"""The access log and request IDs (docs/api.md, "Access log and request IDs"; service/access.py).

A request ID (REST's ``X-Request-Id`` header, gRPC's ``x-request-id`` metadata) is sent back on the
answer, errors and streams included, over the in-process servers of conftest.py (whose log is
off); one that is not 1 to 128 visible ASCII characters is INVALID_FIELD naming ``x-request-id``
on both transports. The log: ``naipes serve --access-log`` writes one JSON line per call of either
transport to stderr, with the fields of the docs, read from the server's output as it runs."""

from __future__ import annotations

import json
import logging
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from typing import Any
from unittest.mock import ANY

import grpc
import pytest
import requests
from google.protobuf import json_format
from grpc_health.v1 import health_pb2, health_pb2_grpc
from service_support import ROOT, call_grpc, forked_holding, grpc_failure, read_until, rest_failure, rest_request, stop
from test_service_cli import NAIPES, _free_port, _ipv6_loopback
from test_service_metrics import BAD, RECORD  # (a valid record, and one with an unknown card)
from test_service_workers import serve

from naipes.v1 import naipes_pb2 as pb
from naipes.v1 import naipes_pb2_grpc

NDJSON = {"Content-Type": "application/x-ndjson"}
# Three lines: a record, a bad one, a batch of two good ones and a bad one: five records answered.
STREAM_LINES = [RECORD, BAD, {"batch": [{"record": RECORD}, {"record": RECORD}, {"record": BAD}]}]
LONGEST = "".join(chr(c) for c in range(0x21, 0x7F)) + "!" * 34  # every visible ASCII character, 128 in all
REFUSED = ["", "a b", "x" * 129, "a\tb", "señor"]  # (the last two only over REST: grpcio's client refuses them itself)


def stream_body(lines: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(line) + "\n" for line in lines)


def stream_messages() -> list[pb.ValidateHandsRequest]:
    good, bad = (json_format.ParseDict(r, pb.HandRecord()) for r in (RECORD, BAD))
    batch = [pb.ValidateHandsRequest(record=r) for r in (good, good, bad)]
    return [pb.ValidateHandsRequest(record=good), pb.ValidateHandsRequest(record=bad), pb.ValidateHandsRequest(batch=batch)]


def initial_id(call: Any) -> list[str]:
    """The request IDs in a gRPC call's (or error's) initial metadata."""
    return [value for key, value in call.initial_metadata() or () if key == "x-request-id"]


# ---- request IDs, over the in-process servers ---------------------------------------------------


def test_rest_sends_the_request_id_back_on_answers_errors_and_streams(http, rest_url) -> None:
    for rpc, request, status in (("ValidateHand", {"record": RECORD}, 200), ("ValidateHand", {"record": BAD}, 400),
                                 ("DescribeRules", {"game": "mus"}, 400)):
        answer = rest_request(http, rest_url, rpc, request, {"X-Request-Id": LONGEST})
        assert answer.status_code == status and answer.headers["X-Request-Id"] == LONGEST, answer.text
    streamed = http.post(f"{rest_url}/v1/hands:validateStream", data=stream_body(STREAM_LINES), headers={**NDJSON, "X-Request-Id": "s-1"},
                         timeout=60)
    assert streamed.status_code == 200 and len(streamed.text.splitlines()) == 3 and streamed.headers["X-Request-Id"] == "s-1"
    for path in ("/healthz", "/no/such/route"):
        assert http.get(rest_url + path, headers={"X-Request-Id": "h-1"}, timeout=10).headers["X-Request-Id"] == "h-1"
    assert "X-Request-Id" not in rest_request(http, rest_url, "ValidateHand", {"record": RECORD}).headers  # none given, none added


def test_grpc_sends_the_request_id_back_in_the_initial_metadata(stub) -> None:
    """On an answer, an error (whose status and details are in the trailers, as ever) and a stream."""
    message = pb.ValidateHandRequest(record=json_format.ParseDict(RECORD, pb.HandRecord()))
    _, call = stub.ValidateHand.with_call(message, metadata=(("x-request-id", LONGEST),), timeout=30)
    assert initial_id(call) == [LONGEST]
    with pytest.raises(grpc.RpcError) as raised:
        stub.DescribeRules(pb.DescribeRulesRequest(game="mus"), metadata=(("x-request-id", "e-1"),), timeout=30)
    assert initial_id(raised.value) == ["e-1"] and grpc_failure(raised.value).code == "UNKNOWN_GAME"
    answers = stub.ValidateHands(iter(stream_messages()), metadata=(("x-request-id", "s-1"),), timeout=60)
    assert initial_id(answers) == ["s-1"] and len(list(answers)) == 3
    _, call = stub.ValidateHand.with_call(message, timeout=30)
    assert initial_id(call) == []  # none given, none added


@pytest.mark.parametrize("request_id", REFUSED, ids=["empty", "space", "129 characters", "tab", "not ASCII"])
def test_a_request_id_that_is_not_one_is_invalid_field(request_id, stub, channel, http, rest_url) -> None:
    """Refused whole (never cut to 128 characters), with the same error on both transports, and
    not sent back."""
    answer = http.get(f"{rest_url}/v1/games/rentoy/rules", headers={"X-Request-Id": request_id.encode("latin-1")}, timeout=10)
    over_rest = rest_failure(answer)
    assert (over_rest.code, over_rest.field, over_rest.status) == ("INVALID_FIELD", "x-request-id", 400)
    assert over_rest.message.startswith("x-request-id: expected 1 to 128 visible ASCII characters, not '"), over_rest.message
    assert "X-Request-Id" not in answer.headers
    if request_id.isascii() and "\t" not in request_id:
        with pytest.raises(grpc.RpcError) as raised:
            stub.DescribeRules(pb.DescribeRulesRequest(game="rentoy"), metadata=(("x-request-id", request_id),), timeout=30)
        over_grpc = grpc_failure(raised.value)
        assert (over_grpc.code, over_grpc.field, over_grpc.status) == ("INVALID_FIELD", "x-request-id", grpc.StatusCode.INVALID_ARGUMENT)
        assert over_grpc.message == over_rest.message and initial_id(raised.value) == []
        with pytest.raises(grpc.RpcError) as raised:  # a stream, and the health check, alike
            list(stub.ValidateHands(iter(stream_messages()), metadata=(("x-request-id", request_id),), timeout=30))
        assert (grpc_failure(raised.value).code, grpc_failure(raised.value).field) == ("INVALID_FIELD", "x-request-id")
        with pytest.raises(grpc.RpcError) as raised:
            health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), metadata=(("x-request-id", request_id),), timeout=30)
        assert (grpc_failure(raised.value).code, grpc_failure(raised.value).field) == ("INVALID_FIELD", "x-request-id")


# ---- the access log, from naipes serve --access-log ----------------------------------------------


class Output:
    """A running server's output (stdout and stderr), read line by line by a thread."""

    def __init__(self, server: Any) -> None:
        self.lines: list[str] = []
        self.thread = threading.Thread(target=self._read, args=(server.stdout,), daemon=True)
        self.thread.start()

    def _read(self, stream: Any) -> None:
        for line in stream:
            self.lines.append(line)

    def access(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in list(self.lines) if line.startswith("{")]

    def next_lines(self, call: Callable[[], object], count: int = 1) -> list[dict[str, Any]]:
        """The access lines written for ``call``: ``count`` of them, once they have come (10 s at
        most), and none more for 0.6 s (a process writes its lines four times a second)."""
        before = len(self.access())
        call()
        deadline = time.monotonic() + 10
        while len(self.access()) < before + count and time.monotonic() < deadline:
            time.sleep(0.02)
        time.sleep(0.6)
        lines = self.access()[before:]
        assert len(lines) == count, lines
        return lines


@pytest.fixture(scope="module")
def logged() -> Iterator[tuple[Output, int, int]]:
    """``naipes serve --access-log --workers 1``: (its output, REST port, gRPC port)."""
    server, rest_port, grpc_port = serve(1, extra=("--access-log",))
    output = Output(server)
    try:
        yield output, rest_port, grpc_port
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)
        output.thread.join(timeout=10)
    assert server.returncode == 0, "".join(output.lines)


def assert_line(line: dict[str, Any], **expected: Any) -> None:
    """An access line: ``expected``'s fields, a time of the last minute in RFC 3339 with
    milliseconds (UTC), a duration in ms to 3 decimals, a loopback peer, and no other field."""
    assert set(line) == {"time", "ms", "peer", *expected}, line
    assert {key: line[key] for key in expected} == expected, line
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", line["time"]), line
    assert abs((datetime.now(UTC) - datetime.fromisoformat(line["time"])).total_seconds()) < 60, line
    assert isinstance(line["ms"], float) and line["ms"] >= 0 and round(line["ms"], 3) == line["ms"], line
    assert re.fullmatch(r"127\.0\.0\.1:\d+", line["peer"]), line


def test_rest_writes_one_access_line_per_call(logged) -> None:
    output, rest_port, _ = logged
    base = f"http://127.0.0.1:{rest_port}"

    def post(path: str, body: Any, request_id: str | None = None, headers: dict[str, str] | None = None) -> requests.Response:
        ids = {"X-Request-Id": request_id} if request_id else {}
        return requests.post(base + path, data=body if isinstance(body, str) else json.dumps(body), timeout=60,
                             headers={"Content-Type": "application/json", **(headers or {}), **ids})

    (line,) = output.next_lines(lambda: post("/v1/hands:validate", RECORD, "rest-ok").raise_for_status())
    assert_line(line, transport="rest", method="ValidateHand", http="POST /v1/hands:validate", code="OK", status=200, requestId="rest-ok")
    (line,) = output.next_lines(lambda: post("/v1/hands:legalActions?seat=1", RECORD))
    assert_line(line, transport="rest", method="LegalActions", http="POST /v1/hands:legalActions?seat=1", code="OK", status=200)
    (line,) = output.next_lines(lambda: post("/v1/hands:validate", BAD, "rest-error"))
    assert_line(line, transport="rest", method="ValidateHand", http="POST /v1/hands:validate", code="UNKNOWN_CARD", status=400,
                requestId="rest-error")
    (line,) = output.next_lines(lambda: post("/v1/hands:validate", RECORD, "a b"))  # (refused: no requestId)
    assert_line(line, transport="rest", method="ValidateHand", http="POST /v1/hands:validate", code="INVALID_FIELD", status=400)
    (line,) = output.next_lines(lambda: post("/v1/hands:validateStream", stream_body(STREAM_LINES), "rest-stream", NDJSON))
    assert_line(line, transport="rest", method="ValidateHands", http="POST /v1/hands:validateStream", code="OK", status=200, records=5,
                requestId="rest-stream")
    (line,) = output.next_lines(lambda: requests.get(f"{base}/healthz", headers={"X-Request-Id": "rest-health"}, timeout=10))
    assert_line(line, transport="rest", method="healthz", http="GET /healthz", code="OK", status=200, requestId="rest-health")
    (line,) = output.next_lines(lambda: requests.get(f"{base}/v1/games/a%2Fb/rules", timeout=10))  # (the path as sent)
    assert_line(line, transport="rest", method="DescribeRules", http="GET /v1/games/a%2Fb/rules", code="UNKNOWN_GAME", status=400)
    preflight = {"Origin": "https://tables.example", "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "x-request-id"}
    (line,) = output.next_lines(lambda: requests.options(f"{base}/v1/hands:validate", headers=preflight, timeout=10))
    assert_line(line, transport="rest", method="other", http="OPTIONS /v1/hands:validate", code="OK", status=204)
    text = "".join(output.lines)
    assert '"deal"' not in text and RECORD["deal"]["hands"][0] not in text  # no bodies


def test_grpc_writes_one_access_line_per_call(logged) -> None:
    output, _, grpc_port = logged
    with grpc.insecure_channel(f"127.0.0.1:{grpc_port}") as channel:
        stub = naipes_pb2_grpc.NaipesServiceStub(channel)
        health = health_pb2_grpc.HealthStub(channel)
        (line,) = output.next_lines(lambda: call_grpc(stub, "ValidateHand", {"record": RECORD}))
        assert_line(line, transport="grpc", method="ValidateHand", code="OK", status="OK")
        message = pb.ValidateHandRequest(record=json_format.ParseDict(BAD, pb.HandRecord()))
        (line,) = output.next_lines(lambda: pytest.raises(grpc.RpcError, stub.ValidateHand, message, metadata=(("x-request-id", "grpc-error"),)))
        assert_line(line, transport="grpc", method="ValidateHand", code="UNKNOWN_CARD", status="INVALID_ARGUMENT", requestId="grpc-error")
        (line,) = output.next_lines(lambda: list(stub.ValidateHands(iter(stream_messages()), metadata=(("x-request-id", "grpc-stream"),))))
        assert_line(line, transport="grpc", method="ValidateHands", code="OK", status="OK", records=5, requestId="grpc-stream")
        (line,) = output.next_lines(lambda: health.Check(health_pb2.HealthCheckRequest(), metadata=(("x-request-id", "grpc-health"),)))
        assert_line(line, transport="grpc", method="Check", code="OK", status="OK", requestId="grpc-health")
        (line,) = output.next_lines(lambda: pytest.raises(grpc.RpcError, health.Check, health_pb2.HealthCheckRequest(service="no.Such")))
        assert_line(line, transport="grpc", method="Check", code="NOT_FOUND", status="NOT_FOUND")


# ---- the queue of lines, while stderr takes none ------------------------------------------------


class _Stuck:
    """A stream whose writes wait until ``release`` is set (a full pipe nobody reads), keeping what
    it was given; ``waiting`` is set once a write waits."""

    def __init__(self) -> None:
        self.release, self.waiting = threading.Event(), threading.Event()
        self.text: list[str] = []

    def write(self, text: str) -> None:
        self.waiting.set()
        assert self.release.wait(30)
        self.text.append(text)

    def flush(self) -> None:
        pass


class _Peer:
    """A gRPC call's context, as ``access.note`` reads it."""

    def peer(self) -> str:
        return "ipv4:127.0.0.1:5000"


def test_the_access_lines_waiting_are_bounded_and_the_dropped_ones_counted(monkeypatch: pytest.MonkeyPatch) -> None:
    """While stderr takes nothing, the lines wait up to ``QUEUED_AT_MOST`` (made 50 here); beyond,
    a call's line is dropped and counted. The metrics' flush does not wait for stderr: it counts the
    drops in ``naipes_access_log_dropped_total`` while the write still waits (it wrote the lines
    itself, and waited with the metrics' lock held: /metrics hung). Once the write goes through, the
    lines queued are written in order, then one line with the number dropped, once."""
    from prometheus_client import REGISTRY

    from service import access, metrics

    stuck = _Stuck()
    handler = logging.StreamHandler(stuck)
    handler.setFormatter(logging.Formatter("%(message)s"))
    monkeypatch.setattr(access.log, "handlers", [handler])
    monkeypatch.setattr(access.log, "propagate", False)
    monkeypatch.setattr(access, "QUEUED_AT_MOST", 50)

    def counted() -> float:
        metrics._FLUSHER.flush()
        return REGISTRY.get_sample_value("naipes_access_log_dropped_total") or 0.0

    def note(first: int, last: int) -> None:
        for i in range(first, last):
            access.note("grpc", "ValidateHand", "OK", 0.001, _Peer(), f"id-{i}")

    before, counted_before = access.dropped(), counted()
    note(0, 10)
    writing = threading.Thread(target=access.flush, daemon=True)
    writing.start()
    assert stuck.waiting.wait(10)  # the first line's write waits; nine lines are left
    note(10, 110)  # 41 more fit, 59 do not
    assert len(access._NOTED) == 50 and access.dropped() - before == 59
    flushed = threading.Thread(target=counted, daemon=True)
    flushed.start()
    flushed.join(5)
    assert not flushed.is_alive(), "the metrics' flush waited for stderr"
    assert counted() - counted_before == 59
    stuck.release.set()
    writing.join(10)
    assert not writing.is_alive()
    lines = [json.loads(text) for text in "".join(stuck.text).splitlines()]
    assert [line.get("requestId") for line in lines[:-1]] == [f"id-{i}" for i in range(51)]
    assert set(lines[-1]) == {"time", "dropped"} and lines[-1]["dropped"] == 59, lines[-1]
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", lines[-1]["time"])
    note(110, 111)
    access.flush()  # (the drops are reported once)
    assert [json.loads(text) for text in "".join(stuck.text).splitlines()][len(lines):] == [
        {**lines[0], "time": ANY, "ms": 1.0, "requestId": "id-110"}]
    assert counted() - counted_before == 59 and not access._NOTED


@pytest.mark.skipif(not _ipv6_loopback(), reason="this machine has no IPv6 loopback")
def test_an_ipv6_peer_is_written_in_brackets() -> None:
    """``naipes serve --host ::1 --access-log``: the peer of a call of either transport is
    ``[::1]:port`` (docs/api.md), from REST's REMOTE_ADDR and from grpcio's
    ``ipv6:%5B::1%5D:port``, which is not written as grpcio gives it."""
    rest_port, grpc_port = _free_port(), _free_port()
    server = subprocess.Popen([NAIPES, "serve", "--host", "::1", "--rest-port", str(rest_port), "--grpc-port", str(grpc_port), "--workers", "1",
                               "--access-log"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    output = ""
    try:
        output = "".join(read_until(server, lambda lines: bool(lines) and "naipes ready" in lines[-1]))
        assert requests.get(f"http://[::1]:{rest_port}/healthz", timeout=10).ok
        with grpc.insecure_channel(f"[::1]:{grpc_port}") as channel:
            health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=30)
    finally:
        output += stop(server)
    assert server.returncode == 0, output
    lines = sorted((json.loads(line) for line in output.splitlines() if line.startswith("{")), key=lambda line: line["transport"])
    assert [(line["transport"], line["method"]) for line in lines] == [("grpc", "Check"), ("rest", "healthz")], output
    for line in lines:
        assert re.fullmatch(r"\[::1\]:\d+", line["peer"]), line


class _Kept(logging.Handler):
    """A handler that keeps the messages it is given."""

    def __init__(self) -> None:
        super().__init__()
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


def test_an_access_line_says_what_its_call_left(monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    """What a line says of what the call left, where no server of the tests goes (gunicorn and
    werkzeug both give the request target as sent in RAW_URI): the target as sent from REQUEST_URI
    alone (uWSGI's), else rebuilt from the environ, a peer that is neither IPv4 nor IPv6 as grpcio names it,
    the duration in ms to 3 decimals; and a line that cannot be made (a records counter that is no
    number) is logged on ``naipes`` with its transport and method, and the lines after it are
    written."""
    from service import access

    kept = _Kept()
    monkeypatch.setattr(access.log, "handlers", [kept])
    monkeypatch.setattr(access.log, "propagate", False)

    class Unix:
        def peer(self) -> str:
            return "unix:/run/naipes.sock"

    class Counter:
        records: Any = object()

    environ = {"REQUEST_METHOD": "GET", "SCRIPT_NAME": "/api", "PATH_INFO": "/v1/games/rentoy/rules", "QUERY_STRING": "x=1",
               "REMOTE_ADDR": "10.0.0.7", "REMOTE_PORT": "4242"}
    access.flush()
    access.note("rest", "DescribeRules", "OK", 0.0123456, environ)
    access.note("rest", "DescribeRules", "OK", 0.001, {**environ, "QUERY_STRING": "", "SCRIPT_NAME": ""})
    access.note("rest", "DescribeRules", "OK", 0.001, {**environ, "REQUEST_URI": "/v1/games/a%2Fb/rules", "PATH_INFO": "/v1/games/a/b/rules"})
    access.note("rest", "ValidateHands", "OK", 0.001, {**environ, access.RECORDS: Counter()})
    access.note("grpc", "Check", "OK", 0.0004, Unix())
    with caplog.at_level(logging.ERROR, logger="naipes"):
        access.flush()
    lines = [json.loads(message) for message in kept.messages]
    assert [{key: line[key] for key in ("http", "peer", "ms") if key in line} for line in lines] == [
        {"http": "GET /api/v1/games/rentoy/rules?x=1", "peer": "10.0.0.7:4242", "ms": 12.346},
        {"http": "GET /v1/games/rentoy/rules", "peer": "10.0.0.7:4242", "ms": 1.0},
        {"http": "GET /v1/games/a%2Fb/rules", "peer": "10.0.0.7:4242", "ms": 1.0},
        {"peer": "unix:/run/naipes.sock", "ms": 0.4}]
    assert [(r.name, r.getMessage()) for r in caplog.records] == [("naipes", "naipes: the access line of a rest ValidateHands call could not be made")]



# A child process: a process whose access log is on forks while another of its threads holds the
# writer's lock, a call's line noted and not yet written (gunicorn forking the worker of a preloaded
# app). The forked child notes a call of its own and prints the request IDs of the lines its
# logger got within 5 seconds, written by its own thread (it calls no flush), a JSON line.
_FORKED = """
import faulthandler, json, logging, os, sys, threading, time
from service import access
kept = []
class Keep(logging.Handler):
    def emit(self, record):
        kept.append(json.loads(record.getMessage())["requestId"])
access.log.addHandler(Keep())
access.log.propagate = False
access.configure(True)
class Peer:
    def peer(self):
        return "ipv4:127.0.0.1:5000"
""" + forked_holding("access._WRITER.lock", before_fork='access.note("grpc", "Check", "OK", 0.001, Peer(), "parent")') + """
access.note("grpc", "Check", "OK", 0.001, Peer(), "child")
deadline = time.monotonic() + 5
while not kept and time.monotonic() < deadline:
    time.sleep(0.05)
time.sleep(0.3)
print(json.dumps(kept))
sys.stdout.flush()
os._exit(0)
"""


def test_a_forked_process_writes_its_own_access_lines() -> None:
    """A process forked from one whose access log is on (gunicorn's worker of a preloaded app)
    writes its own calls' lines with a writer's thread and lock of its own (``_Writer.forked``),
    and not the lines its parent had noted and not yet written, which are the parent's to write:
    the child's line comes within a quarter of a second or so, although its parent's writer was
    holding its lock as it forked."""
    done = subprocess.run([sys.executable, "-c", _FORKED], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == ["child"], done.stdout
