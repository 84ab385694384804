"""Prometheus metrics at ``GET /metrics`` (service/metrics.py): under ``naipes serve --workers 2``
the calls of every process, gRPC and REST, are summed with their methods and codes and the records
of the streams; a made-up path makes no new series; a gunicorn worker that dies leaves the gauges;
the metrics' directory is removed when the server stops. Without ``naipes serve`` (the in-process
servers of conftest.py) the metrics are the process's own."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
import requests
from google.protobuf import json_format
from grpc_health.v1 import health_pb2, health_pb2_grpc
from prometheus_client import CollectorRegistry, multiprocess
from prometheus_client.parser import text_string_to_metric_families
from service_support import ROOT, alive, forked_holding, load_example, rentoy_examples, stop
from test_service_workers import children, command, serve, served_dir

from bench.run import descendants
from naipes.v1 import naipes_pb2 as pb
from naipes.v1 import naipes_pb2_grpc

RECORD, _ = load_example(rentoy_examples()[0])
# An unknown card: UNKNOWN_CARD over either transport.
BAD = {"game": "rentoy", "seats": 4, "dealer": 0, "deal": {"hands": ["1o 2o 3o", "4o 5o 6o", "7o 10o 11o", "12o 1c 9c"], "stock": "2c"}}

Key = tuple[str, frozenset[tuple[str, str]]]
Samples = dict[Key, float]


def key(name: str, **labels: str) -> Key:
    return name, frozenset(labels.items())


def calls(transport: str, method: str, code: str) -> Key:
    return key("naipes_requests_total", transport=transport, method=method, code=code)


def parse(text: str) -> Samples:
    """Each sample of a Prometheus text exposition, by its name and labels."""
    return {(s.name, frozenset(s.labels.items())): s.value for family in text_string_to_metric_families(text) for s in family.samples}


def scrape(base: str) -> Samples:
    answer = requests.get(f"{base}/metrics", timeout=10)  # (a new connection: any worker answers)
    assert answer.status_code == 200 and answer.headers["Content-Type"].startswith("text/plain"), answer.text
    return parse(answer.text)


def shown(base: str, expected: dict[Key, float]) -> dict[Key, float]:
    """The values of ``expected``'s samples that /metrics shows, once it shows ``expected`` or 5
    seconds have passed: a REST call is counted once its answer has been sent, a moment after its
    client may have read it."""
    deadline = time.monotonic() + 5
    while True:
        samples = scrape(base)
        got = {k: samples.get(k, 0.0) for k in expected}
        if got == expected or time.monotonic() > deadline:
            return got
        time.sleep(0.1)


def process_samples(directory: Path, pid: int) -> Samples:
    """The metrics of one process alone (its files of the directory)."""
    with tempfile.TemporaryDirectory() as alone:
        for path in directory.glob(f"*_{pid}.db"):
            shutil.copy(path, alone)
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry, alone)
        return {(s.name, frozenset(s.labels.items())): s.value for family in registry.collect() for s in family.samples}


@pytest.fixture(scope="module")
def two_workers() -> Iterator[tuple[int, int, int]]:
    """``naipes serve --workers 2``: (its pid, REST port, gRPC port)."""
    server, rest_port, grpc_port = serve(2)
    try:
        yield server.pid, rest_port, grpc_port
    finally:
        output = stop(server)
    assert server.returncode == 0, output


def test_metrics_sum_the_calls_of_every_process(two_workers: tuple[int, int, int]) -> None:
    pid, rest_port, grpc_port = two_workers
    base = f"http://127.0.0.1:{rest_port}"
    directory = served_dir(pid)
    grpc_pids = [p for p in children(pid) if "service.grpc_server" in command(p)]
    (master,) = [p for p in children(pid) if "gunicorn" in command(p)]
    pids = {"grpc": grpc_pids, "rest": children(master)}
    assert len(pids["grpc"]) == len(pids["rest"]) == 2
    message = json_format.ParseDict(RECORD, pb.HandRecord())
    bad = json_format.ParseDict(BAD, pb.HandRecord())

    # ValidateHand, each call on a new connection, until every process of each transport has
    # answered some (the kernel spreads the connections): /metrics must show their sum. A process
    # writes the calls it answered every quarter of a second (service/metrics.py's _Flusher), so
    # the loop is bounded by time, not by a number of calls: on a loaded machine 64 calls were
    # sent before some processes had written any of theirs (CI, once).
    sent, started = 0, time.monotonic()
    while not all(process_samples(directory, p).get(calls(t, "ValidateHand", "OK")) for t in pids for p in pids[t]):
        if time.monotonic() - started > 30:
            answered = {(t, p): process_samples(directory, p).get(calls(t, "ValidateHand", "OK")) for t in pids for p in pids[t]}
            alive = {p: Path(f"/proc/{p}").exists() for t in pids for p in pids[t]}
            pytest.fail(f"{sent} calls in 30 s did not reach every process: ValidateHand OK by (transport, pid) {answered}; alive {alive}")
        with grpc.insecure_channel(f"127.0.0.1:{grpc_port}", options=[("grpc.use_local_subchannel_pool", 1)]) as channel:
            naipes_pb2_grpc.NaipesServiceStub(channel).ValidateHand(pb.ValidateHandRequest(record=message), timeout=10)
        requests.post(f"{base}/v1/hands:validate", json=RECORD, timeout=10).raise_for_status()
        sent += 1
        if sent >= 16:
            time.sleep(0.05)  # (the calls have had their chance to spread; what is left is the writing)

    with grpc.insecure_channel(f"127.0.0.1:{grpc_port}") as channel:
        stub = naipes_pb2_grpc.NaipesServiceStub(channel)
        with pytest.raises(grpc.RpcError):
            stub.ValidateHand(pb.ValidateHandRequest(record=bad), timeout=10)
        health = health_pb2_grpc.HealthStub(channel)
        assert health.Check(health_pb2.HealthCheckRequest(), timeout=10).status == health_pb2.HealthCheckResponse.SERVING
        # A stream: a record, a bad one, and a batch of two good ones and a bad one: 3 OK, 2 UNKNOWN_CARD.
        batch = [pb.ValidateHandsRequest(id=str(i), record=r) for i, r in enumerate([message, message, bad])]
        stream = [pb.ValidateHandsRequest(record=message), pb.ValidateHandsRequest(record=bad), pb.ValidateHandsRequest(batch=batch)]
        assert len(list(stub.ValidateHands(iter(stream), timeout=60))) == 3
    assert requests.post(f"{base}/v1/hands:validate", json=BAD, timeout=10).json()["code"] == "UNKNOWN_CARD"
    with socket.create_connection(("127.0.0.1", rest_port), timeout=10) as client:  # (answered before its body, which never comes)
        client.sendall(b"POST /v1/hands:validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2000000\r\n\r\n{")
        answer = b""
        while chunk := client.recv(65536):  # (to its end: the server closes the connection after it)
            answer += chunk
        assert b'"code":"PAYLOAD_TOO_LARGE"' in answer, answer
    assert requests.get(f"{base}/healthz", timeout=10).ok
    lines = [RECORD, BAD, {"batch": [{"record": RECORD}, {"record": RECORD}, {"record": BAD}]}]
    answer = requests.post(f"{base}/v1/hands:validateStream", data="".join(json.dumps(line) + "\n" for line in lines), timeout=60,
                           headers={"Content-Type": "application/x-ndjson"})
    assert len(answer.text.splitlines()) == 3

    expected = {calls("rest", "ValidateHand", "PAYLOAD_TOO_LARGE"): 1, calls("rest", "healthz", "OK"): 1, calls("grpc", "Check", "OK"): 1}
    for transport in pids:
        expected |= {
            calls(transport, "ValidateHand", "OK"): sent,
            calls(transport, "ValidateHand", "UNKNOWN_CARD"): 1,
            key("naipes_request_duration_seconds_count", transport=transport, method="ValidateHand"): sent + 1 + (transport == "rest"),
            calls(transport, "ValidateHands", "OK"): 1,
            key("naipes_stream_records_total", transport=transport, code="OK"): 3,
            key("naipes_stream_records_total", transport=transport, code="UNKNOWN_CARD"): 2,
            key("naipes_streams_in_progress", transport=transport): 0,
        }
    for _ in range(4):  # whichever worker answers, it sums every process
        assert shown(base, expected) == expected
    assert scrape(base)[key("naipes_access_log_dropped_total")] == 0  # (the log off: no line dropped, in any process)


def test_a_body_whose_chunks_cannot_be_read_is_counted_malformed_request(two_workers: tuple[int, int, int]) -> None:
    """A request whose body's chunks gunicorn cannot read once the app reads them, which the
    worker answers MALFORMED_REQUEST (tests/test_service_http_errors.py), is counted under the
    route's method with that code."""
    _, rest_port, _ = two_workers
    base = f"http://127.0.0.1:{rest_port}"
    malformed = calls("rest", "ValidateHand", "MALFORMED_REQUEST")
    before = scrape(base).get(malformed, 0.0)
    with socket.create_connection(("127.0.0.1", rest_port), timeout=10) as client:
        client.sendall(b"POST /v1/hands:validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                       b"Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n")
        assert client.recv(65536).startswith(b"HTTP/1.1 400 ")
    assert shown(base, {malformed: before + 1}) == {malformed: before + 1}


def test_a_made_up_path_makes_no_new_series(two_workers: tuple[int, int, int]) -> None:
    base = f"http://127.0.0.1:{two_workers[1]}"
    assert requests.get(f"{base}/no/such/route", timeout=10).status_code == 404
    not_found = calls("rest", "other", "NOT_FOUND")
    before, deadline = scrape(base), time.monotonic() + 5
    while not_found not in before and time.monotonic() < deadline:  # (written by its process within a quarter of a second)
        time.sleep(0.1)
        before = scrape(base)
    paths = ["/v1/hands:nothing", "/metrics/x", "/v1/games/rentoy/rules/extra", "/" + "z" * 300, "/v2/%C3%B1"]
    for path in paths:
        assert requests.post(base + path, json={}, timeout=10).json()["code"] == "NOT_FOUND", path
    assert shown(base, {not_found: before[not_found] + len(paths)}) == {not_found: before[not_found] + len(paths)}
    after = requests.get(f"{base}/metrics", timeout=10).text
    assert "nothing" not in after and "zzz" not in after and "v2" not in after
    assert {k for k in parse(after) if k[0].startswith("naipes_")} == {k for k in before if k[0].startswith("naipes_")}


def test_a_dead_worker_leaves_the_gauges_and_a_stopped_server_its_directory() -> None:
    """A gunicorn worker killed in the middle of a stream no longer counts it in progress (the
    ``child_exit`` hook marks it dead) and its validation pool's processes exit; ``naipes serve``
    removes the metrics' directory at stop, and the one where its processes said they serve
    (service/ready.py)."""
    server, rest_port, _ = serve(2)
    held: socket.socket | None = None
    pool: list[int] = []
    try:
        directory, ready = served_dir(server.pid), served_dir(server.pid, "NAIPES_READY_DIR")
        assert directory.is_dir() and directory.parent.parent == Path("/dev/shm")
        assert ready.is_dir() and ready.parent == directory.parent and ready != directory
        base = f"http://127.0.0.1:{rest_port}"
        held = socket.create_connection(("127.0.0.1", rest_port), timeout=20)
        line = (json.dumps(RECORD) + "\n").encode()
        held.sendall(b"POST /v1/hands:validateStream HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-ndjson\r\n"
                     b"Transfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n" % (len(line), line))
        answer = b""
        while b"result" not in answer and (data := held.recv(65536)):
            answer += data
        in_progress = key("naipes_streams_in_progress", transport="rest")
        assert shown(base, {in_progress: 1}) == {in_progress: 1}
        (gauges,) = directory.glob("gauge_livesum_*.db")  # the worker serving the stream
        worker = int(gauges.stem.rsplit("_", 1)[1])
        pool[:] = descendants(worker)
        assert pool and all(alive(pid) for pid in pool)
        os.kill(worker, signal.SIGKILL)
        deadline = time.monotonic() + 10
        while (gauges.exists() or any(alive(pid) for pid in pool)) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not gauges.exists()
        assert not [pid for pid in pool if alive(pid)]  # its validation pool exits on its own
        assert shown(base, {in_progress: 0}) == {in_progress: 0}
    finally:
        if held is not None:
            held.close()
        for pid in pool:  # (one left would hold the server's output open: stop would wait for it)
            if alive(pid):
                os.kill(pid, signal.SIGKILL)
        output = stop(server)
    assert server.returncode == 0, output
    assert not directory.parent.exists()


def test_without_naipes_serve_the_metrics_are_the_process_own(stub, rest_url: str) -> None:
    """The in-process servers (create_server, create_app) count in this process's default registry."""
    before = scrape(rest_url)
    stub.ValidateHand(pb.ValidateHandRequest(record=json_format.ParseDict(RECORD, pb.HandRecord())), timeout=10)
    assert requests.post(f"{rest_url}/v1/hands:validate", json=BAD, timeout=10).status_code == 400
    counted = [calls("grpc", "ValidateHand", "OK"), calls("rest", "ValidateHand", "UNKNOWN_CARD")]
    expected = {k: before.get(k, 0.0) + 1 for k in counted}
    assert shown(rest_url, expected) == expected


def test_a_grpc_call_refused_before_its_handler_runs_is_counted_with_its_code(stub, channel, rest_url: str) -> None:
    """A call whose request ID is refused (INVALID_FIELD, before any record is read) is one call of
    that code, whatever it calls: a unary RPC, a stream (not in progress, no record counted) and
    the health check each take their own way to the refusal, and each counts it."""
    refused = (("x-request-id", "a b"),)
    message = pb.ValidateHandRequest(record=json_format.ParseDict(RECORD, pb.HandRecord()))
    counted = [calls("grpc", method, "INVALID_FIELD") for method in ("ValidateHand", "ValidateHands", "Check")]
    in_progress = key("naipes_streams_in_progress", transport="grpc")
    records = key("naipes_stream_records_total", transport="grpc", code="OK")
    before = scrape(rest_url)
    for call in (lambda: stub.ValidateHand(message, metadata=refused, timeout=10),
                 lambda: list(stub.ValidateHands(iter([pb.ValidateHandsRequest(record=message.record)]), metadata=refused, timeout=10)),
                 lambda: health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), metadata=refused, timeout=10)):
        with pytest.raises(grpc.RpcError) as raised:
            call()
        assert raised.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    expected = {**{k: before.get(k, 0.0) + 1 for k in counted}, **{k: before.get(k, 0.0) for k in (in_progress, records)}}
    assert shown(rest_url, expected) == expected


def test_a_cors_preflight_is_no_call_of_the_route(rest_url: str) -> None:
    """A browser's preflight (OPTIONS, answered without calling anything) is ``other``: it was
    counted as a ValidateHand or DescribeRules call answered OK, with its duration."""
    preflight = {"Origin": "https://tables.example", "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "content-type"}
    routed = [calls("rest", "ValidateHand", "OK"), calls("rest", "DescribeRules", "OK"),
              key("naipes_request_duration_seconds_count", transport="rest", method="ValidateHand")]
    other = calls("rest", "other", "OK")
    before = scrape(rest_url)
    for path in ("/v1/hands:validate", "/v1/hands:validate", "/v1/games/rentoy/rules"):
        answer = requests.options(rest_url + path, headers=preflight, timeout=10)
        assert answer.status_code == 204 and answer.headers["Access-Control-Max-Age"] == "600"
    assert shown(rest_url, {other: before.get(other, 0.0) + 3}) == {other: before.get(other, 0.0) + 3}
    after = scrape(rest_url)
    assert {k: after.get(k, 0.0) for k in routed} == {k: before.get(k, 0.0) for k in routed}


def test_a_stream_its_client_cancels_is_counted_cancelled(stub, rest_url: str) -> None:
    """A gRPC ValidateHands stream whose client cancels it, its first record answered and the next
    never sent, is one call of code ``CANCELLED``, with its duration, and is no longer in progress;
    its answered record counted. Forty of them: up to one in five was counted OK (the handler saw
    its requests end before grpcio saw the cancel, and ended as a stream answered whole)."""
    cancelled, ok = calls("grpc", "ValidateHands", "CANCELLED"), calls("grpc", "ValidateHands", "OK")
    duration = key("naipes_request_duration_seconds_count", transport="grpc", method="ValidateHands")
    records, in_progress = key("naipes_stream_records_total", transport="grpc", code="OK"), key("naipes_streams_in_progress", transport="grpc")
    before = scrape(rest_url)
    streams = 40
    for i in range(streams):
        never = threading.Event()

        def requests_(never: threading.Event = never) -> Iterator[pb.ValidateHandsRequest]:
            yield pb.ValidateHandsRequest(id="c1", record=json_format.ParseDict(RECORD, pb.HandRecord()))
            never.wait(30)  # (the client's next record, which never comes)

        call = stub.ValidateHands(requests_(), timeout=60)
        try:
            assert next(call).id == "c1"
            if i == 0:
                assert shown(rest_url, {in_progress: before.get(in_progress, 0.0) + 1}) == {in_progress: before.get(in_progress, 0.0) + 1}
            call.cancel()
            with pytest.raises(grpc.RpcError) as ended:
                next(call)
            assert ended.value.code() == grpc.StatusCode.CANCELLED
        finally:
            never.set()
    expected = {cancelled: before.get(cancelled, 0.0) + streams, duration: before.get(duration, 0.0) + streams, ok: before.get(ok, 0.0),
                records: before.get(records, 0.0) + streams, in_progress: before.get(in_progress, 0.0)}
    assert shown(rest_url, expected) == expected


def test_a_stream_whose_deadline_passes_is_counted_deadline_exceeded(stub, rest_url: str) -> None:
    """A gRPC ValidateHands stream whose deadline passes, its first record answered and the next
    never sent, ends for its client with DEADLINE_EXCEEDED and is counted so, not CANCELLED (its
    client did not cancel it), and is no longer in progress."""
    deadline, cancelled = calls("grpc", "ValidateHands", "DEADLINE_EXCEEDED"), calls("grpc", "ValidateHands", "CANCELLED")
    in_progress = key("naipes_streams_in_progress", transport="grpc")
    before = scrape(rest_url)
    never = threading.Event()

    def requests_() -> Iterator[pb.ValidateHandsRequest]:
        yield pb.ValidateHandsRequest(id="d1", record=json_format.ParseDict(RECORD, pb.HandRecord()))
        never.wait(30)  # (the client's next record, which never comes)

    try:
        call = stub.ValidateHands(requests_(), timeout=1.5)
        assert next(call).id == "d1"
        with pytest.raises(grpc.RpcError) as ended:
            next(call)
        assert ended.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
    finally:
        never.set()
    expected = {deadline: before.get(deadline, 0.0) + 1, cancelled: before.get(cancelled, 0.0), in_progress: before.get(in_progress, 0.0)}
    assert shown(rest_url, expected) == expected


def test_a_stream_cancelled_before_its_handler_holds_its_slot_gives_the_slot_back(monkeypatch: pytest.MonkeyPatch, rest_url: str) -> None:
    """A ValidateHands stream whose client cancels it before the handler has registered its slot's
    release with the call (here the handler is held until the call has ended): ``add_callback``
    then refuses the release, and the handler releases the slot itself. The stream is counted
    CANCELLED and no longer in progress, and the process's streams slots are all free again; a
    slot kept would be a stream slot lost for good (TOO_MANY_STREAMS once all are lost). In a
    server of its own, so that only this call waits."""
    from service import access, stream
    from service.grpc_server import create_server

    real = access.grpc_request_id
    entered, held = threading.Event(), []

    def once_ended(context: grpc.ServicerContext) -> str | None:
        entered.set()
        deadline = time.monotonic() + 10
        while context.is_active() and time.monotonic() < deadline:
            time.sleep(0.01)
        held.append(context.is_active())
        return real(context)

    cancelled, in_progress = calls("grpc", "ValidateHands", "CANCELLED"), key("naipes_streams_in_progress", transport="grpc")
    before = scrape(rest_url)
    taken = stream.slots().taken
    monkeypatch.setattr(access, "grpc_request_id", once_ended)
    server, port = create_server("127.0.0.1", 0, max_workers=2)
    server.start()
    never = threading.Event()

    def nothing() -> Iterator[pb.ValidateHandsRequest]:
        never.wait(30)
        yield from ()

    try:
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            call = naipes_pb2_grpc.NaipesServiceStub(channel).ValidateHands(nothing(), timeout=60)
            assert entered.wait(10)  # the call has reached its handler
            call.cancel()
            expected = {cancelled: before.get(cancelled, 0.0) + 1, in_progress: before.get(in_progress, 0.0)}
            assert shown(rest_url, expected) == expected
            assert held == [False]  # the handler went on once the call had ended
            assert stream.slots().taken == taken
    finally:
        never.set()
        server.stop(None)


def test_a_request_whose_error_cannot_be_answered_is_counted_internal(rest_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A request the app fails outright (here its error's answer cannot be made, and the
    exception leaves the app for the HTTP server to answer 500) has no code of its own: it is
    counted under its route as ``INTERNAL``, the code of the 500 (``metrics.instrument``), not
    ``OK`` or another route's."""
    from service import rest

    def unanswerable(error: Any, headers: Any = None) -> Any:
        raise RuntimeError(f"no answer for {error.code}")

    monkeypatch.setattr(rest, "problem_response", unanswerable)
    internal, ok = calls("rest", "DescribeRules", "INTERNAL"), calls("rest", "DescribeRules", "OK")
    before = scrape(rest_url)
    assert requests.get(f"{rest_url}/v1/games/mus/rules", timeout=10).status_code == 500
    monkeypatch.undo()
    assert shown(rest_url, {internal: before.get(internal, 0.0) + 1}) == {internal: before.get(internal, 0.0) + 1}
    assert scrape(rest_url).get(ok, 0.0) == before.get(ok, 0.0)



def test_a_stream_whose_answer_fails_as_it_is_made_is_counted_internal(rest_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A REST stream whose answers fail after its 200 has gone (here the validation raises after
    the first answer, and the server leaves the answer without its end) is counted ``INTERNAL``, the code of
    the error the server closes it for, not ``OK``; its slot is given back."""
    from service import rest, stream

    def failing(lines: Any, count: Any = None) -> Iterator[bytes]:
        yield b'{"result":{}}\n'
        raise RuntimeError("the answers broke")

    monkeypatch.setattr(rest.stream, "validate_ndjson", failing)
    internal, ok = calls("rest", "ValidateHands", "INTERNAL"), calls("rest", "ValidateHands", "OK")
    before = scrape(rest_url)
    answer = requests.post(f"{rest_url}/v1/hands:validateStream", data=b"{}\n", headers={"Content-Type": "application/x-ndjson"},
                           timeout=10, stream=True)
    assert answer.status_code == 200 and next(answer.iter_lines()) == b'{"result":{}}'  # (the line before the failure)
    answer.close()  # (the answer has no end: werkzeug's server may leave the connection open)
    monkeypatch.undo()
    assert shown(rest_url, {internal: before.get(internal, 0.0) + 1}) == {internal: before.get(internal, 0.0) + 1}
    assert scrape(rest_url).get(ok, 0.0) == before.get(ok, 0.0)
    assert stream.slots().taken == 0

# A child process: a process that serves (its metrics' thread running) and has counted 3 access
# lines dropped forks while another of its threads holds the metrics' lock (gunicorn forking the
# worker of a preloaded app). The forked child notes a call and drops a line; it prints what its
# own metrics' thread wrote (the call), then what a scrape shows (the drops), a JSON line. A flush
# that hangs is killed by faulthandler, exit 1.
_FORKED = """
import faulthandler, json, os, sys, threading, time
from prometheus_client import REGISTRY
from service import access, metrics
calls = metrics.Calls("grpc", "ValidateHand")
access.QUEUED_AT_MOST = 0  # (every line dropped)
for _ in range(3):
    access.note("grpc", "ValidateHand", "OK", 0.001, None)
metrics._FLUSHER.flush()
""" + forked_holding("metrics._FLUSHER.lock") + """
sample = lambda *key: REGISTRY.get_sample_value(*key) or 0.0
ok = ("naipes_requests_total", {"transport": "grpc", "method": "ValidateHand", "code": "OK"})
before = {"calls": sample(*ok), "dropped": sample("naipes_access_log_dropped_total")}
calls.done("OK", time.perf_counter())
deadline = time.monotonic() + 5
while sample(*ok) == before["calls"] and time.monotonic() < deadline:
    time.sleep(0.05)
written = sample(*ok) - before["calls"]
access.note("grpc", "ValidateHand", "OK", 0.001, None)
metrics.exposition()
print(json.dumps({"before": before, "calls": written, "dropped": sample("naipes_access_log_dropped_total") - before["dropped"]}))
sys.stdout.flush()
os._exit(0)
"""


def test_a_forked_process_writes_its_own_metrics() -> None:
    """A process forked from one that serves (gunicorn's worker of a preloaded app) gets its own
    metrics' lock, thread and count of access lines dropped (``_Flusher.forked``): its calls are
    written by its own thread, its scrape does not wait on a lock its parent's thread held as it
    forked (it would wait for ever: that thread is not in the child), and the one line it drops is
    counted, not hidden behind the 3 its parent had counted."""
    done = subprocess.run([sys.executable, "-c", _FORKED], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"before": {"calls": 0.0, "dropped": 3.0}, "calls": 1.0, "dropped": 1.0}, done.stdout


def test_a_stream_ended_before_its_records_were_sent_counts_the_records_it_sent(rest_url: str) -> None:
    """naipes_stream_records_total is the records answered: they were counted a pool's chunk at a
    time as the pool gave them back, ahead of their lines, so a stream ended before them (here a
    compressed one past its allowance) counted records its client never got: 32,000 for the 1,000
    of its one line sent (and that count ended the stream a chunk early). Now each as its line is
    handed on."""
    import gzip

    body = gzip.compress((json.dumps({"batch": [{}] * 1000}) + "\n").encode() * 300, 9)
    missing, too_large = (key("naipes_stream_records_total", transport="rest", code=code) for code in ("MISSING_FIELD", "PAYLOAD_TOO_LARGE"))
    before = scrape(rest_url)
    answer = requests.post(f"{rest_url}/v1/hands:validateStream", data=body, timeout=60,
                           headers={"Content-Type": "application/x-ndjson", "Content-Encoding": "gzip"})
    lines = [json.loads(line) for line in answer.content.splitlines()]
    assert lines[-1]["error"]["code"] == "PAYLOAD_TOO_LARGE" and 1 < len(lines) < 300
    sent = sum(len(line["batch"]) for line in lines[:-1])
    expected = {missing: before.get(missing, 0.0) + sent, too_large: before.get(too_large, 0.0) + 1}
    assert shown(rest_url, expected) == expected
