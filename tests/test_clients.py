"""The client libraries against real servers: the Python client gives the same JSON over REST
and gRPC, and the same error code and field; the JavaScript client speaks the same JSON."""

from __future__ import annotations

import base64
import gzip
import json
import os
import queue
import re
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from engine import api
from naipes.v1 import naipes_pb2_grpc

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "clients" / "python"))

from naipes_client import GrpcClient, NaipesError, RestClient  # noqa: E402
from service_support import (  # noqa: E402
    REFUSED_CALLS,
    TLS_PEM,
    UNARY_CALLS,
    FakeHttp,
    Listener,
    call_unary,
    engine_answer,
    engine_error,
    examples_dir,
    load_example,
    tool,
)

from service.errors import ERRORS  # noqa: E402

RECORD = json.loads((ROOT / "clients" / "examples" / "rentoy-hand.json").read_text())


@pytest.fixture(scope="module")
def clients(rest_url: str, grpc_target: str):
    with RestClient(rest_url) as rest, GrpcClient(grpc_target) as grpc_client:
        yield rest, grpc_client


def test_python_clients_agree_with_the_engine(clients) -> None:
    rest, grpc_client = clients
    partial = dict(RECORD, actions=RECORD["actions"][:5])
    assert rest.validate_hand(RECORD) == grpc_client.validate_hand(RECORD) == api.validate(RECORD)
    assert rest.legal_actions(partial, seat=3) == grpc_client.legal_actions(partial, seat=3) == api.legal_actions(partial, 3)
    trick = {"game": "rentoy", "seats": 4, "leader": 1, "contract": {"trump": "copas"}, "cards": "12e 2e 3c 1e"}
    assert rest.resolve_trick(trick)["winner"] == grpc_client.resolve_trick(trick)["winner"] == 3
    settle = {"game": "rentoy", "seats": 4, "table": {"score": [4, 5]}, "rentoy": {"winner": 1, "value": 3, "end": "fold"}}
    assert rest.settle_hand(settle) == grpc_client.settle_hand(settle)
    assert rest.settle_hand(settle)["table"] == {"score": [4, 8]}
    deal = {"game": "rentoy", "seats": 4, "dealer": 0, "seed": "readme"}
    assert rest.deal(deal) == grpc_client.deal(deal) == api.deal(deal)
    assert rest.describe_rules("rentoy") == grpc_client.describe_rules("rentoy")


@pytest.mark.parametrize("record,code,field", [
    (dict(RECORD, game="mus"), "UNKNOWN_GAME", "game"),
    (dict(RECORD, rules={"ladder": "1-2-3"}), "INVALID_OPTION_VALUE", "rules.ladder"),
    (dict(RECORD, deal={"hands": ["1o 2o 3o", "4o 5o 6o", "7o 10o 11o", "12o 1c 1c"], "stock": "2c"}), "DUPLICATE_CARD", "deal.hands[3]"),
    # JSON no request message can hold: the gRPC client refuses it before sending, as NaipesError too.
    (dict(RECORD, foo=1), "INVALID_FIELD", "foo"),
    (dict(RECORD, seats="x"), "INVALID_FIELD", "seats"),
])
def test_python_clients_raise_the_same_error(clients, record: dict, code: str, field: str) -> None:
    for client in clients:
        with pytest.raises(NaipesError) as err:
            client.validate_hand(record)
        assert (err.value.code, err.value.field) == (code, field)


@pytest.mark.parametrize("call", ["validate_hand", "legal_actions", "resolve_trick", "settle_hand", "deal"])
def test_python_clients_refuse_a_request_of_none_as_the_body_null(clients, call: str) -> None:
    """A record or request given as None is JSON null, which the service refuses as the body
    (INVALID_FIELD naming ``body``), as the gRPC client, the JavaScript client and the examples
    answer it. The REST client sent no body at all, which the service reads as {}: MISSING_FIELD
    naming ``game``."""
    errors = []
    for client in clients:
        with pytest.raises(NaipesError) as raised:
            getattr(client, call)(None)
        errors.append((raised.value.code, raised.value.field, raised.value.message))
    assert errors == [("INVALID_FIELD", "body", "the body must be a JSON object, not null")] * 2


def _archive() -> list[dict]:
    from examples_support import examples_dir, load_example

    records = [load_example(p)[0] for p in sorted(examples_dir().glob("*.json"))]
    return [dict(r, actions=(r.get("actions") or [])[:n]) for r in records for n in (0, 3, 1000)]


@pytest.mark.parametrize(("seat", "field"), [("3", None), (3, None), (2**40, "seat"), (True, "seat"), ([3], "seat"), (3.0, "seat")])
def test_python_clients_take_or_refuse_the_same_seat(clients, seat: object, field: str | None) -> None:
    """A seat of legal_actions is sent by the REST client as its query parameter and by the gRPC
    client as the request's field, read as the query's text: both answer a seat given as a decimal
    string ("3", as the API reads an integer), and both refuse one the API would not take with the
    same NaipesError naming ``seat`` (README: every failure of a call is a NaipesError). The gRPC
    client raised protobuf's TypeError or ValueError for them; then it read them as JSON, so that
    it answered 3.0, which the REST client's query sends as "3.0" and the service refuses, and
    worded 2**40 and True otherwise (``1099511627776``, ``true``, not ``'1099511627776'``, ``'True'``).
    A boolean now goes as JSON writes it, "true", as the JavaScript client sends it: both say ``'true'``."""
    rest, grpc_client = clients
    partial = dict(RECORD, actions=RECORD["actions"][:5])
    answers = []
    for client in (rest, grpc_client):
        try:
            answers.append(client.legal_actions(partial, seat))  # type: ignore[arg-type]
        except NaipesError as error:
            answers.append((error.code, error.field, error.message))
    if field is None:
        assert answers == [api.legal_actions(partial, 3)] * 2
    else:
        assert answers[0] == answers[1] and answers[0][:2] == ("INVALID_FIELD", field), answers


@pytest.mark.parametrize(("game", "code"), [(5, "INVALID_FIELD"), (None, "UNKNOWN_GAME"), ("", "UNKNOWN_GAME")])
def test_python_clients_answer_describe_rules_of_any_game_with_a_naipes_error(clients, game: object, code: str) -> None:
    """describe_rules of a game that is not a game's name is the same NaipesError from both clients,
    naming ``game``: a string the service answers UNKNOWN_GAME, no game (None) as the empty one, and
    anything else INVALID_FIELD, as the service words it (``game: expected a string, not 5``). Both
    raised a TypeError for a number, the REST client from urllib's quote."""
    errors = []
    for client in clients:
        with pytest.raises(NaipesError) as raised:
            client.describe_rules(game)  # type: ignore[arg-type]
        errors.append((raised.value.code, raised.value.field, raised.value.message))
    assert errors[0] == errors[1] and errors[0][:2] == (code, "game"), errors
    if game == 5:
        assert errors[0][2] == "game: expected a string, not 5"


def test_python_clients_validate_an_archive_in_batches(clients) -> None:
    """validate_hands: one answer per record, in order, the same over both transports, in
    batches smaller and larger than the archive; a bad record is its error in its place."""
    records = _archive()
    bad = {"game": "mus"}
    unreadable = dict(RECORD, seats="four")  # not even a message: the gRPC client's own error
    archive = records[:40] + [bad] + records[40:] + [unreadable]
    want = [{"result": api.validate(r)} for r in records[:40]] + [None] + [{"result": api.validate(r)} for r in records[40:]] + [None]
    errors = []
    for client in clients:
        for batch in (7, 500):
            answers = list(client.validate_hands(iter(archive), batch=batch))
            assert len(answers) == len(archive)
            assert [a for a, w in zip(answers, want, strict=True) if w is not None] == [w for w in want if w is not None]
            assert answers[40]["error"]["code"] == "UNKNOWN_GAME" and answers[40]["error"]["field"] == "game"
            assert answers[-1]["error"]["code"] == "INVALID_FIELD" and answers[-1]["error"]["field"] == "seats"
            errors.append((answers[40]["error"], answers[-1]["error"]))
    assert all(e == errors[0] for e in errors), errors  # the same words whatever the client and the batch
    assert errors[0][1]["message"].startswith("seats: ")


def test_python_clients_keep_each_message_under_the_limit(clients) -> None:
    """Fifty large records (1,000 actions each, about 33 KB of JSON) would make a 1.6 MB message
    or line: the clients send them in smaller batches, and every record gets its result (over
    REST the whole line was refused, over gRPC the stream ended)."""
    big = dict(RECORD, actions=["0 " + "x" * 28] * 1000)  # read, and refused at action 0: a result
    archive = [big] * 60
    for client in clients:
        answers = list(client.validate_hands(iter(archive)))
        assert answers == [{"result": api.validate(big)}] * 60
    # Characters of several bytes each (the limit is in bytes): "€" is three in UTF-8, six in
    # Python's escaped JSON, and each batch still fits.
    wide = dict(RECORD, actions=["0 " + "€" * 28] * 1000)
    for client in clients:
        assert list(client.validate_hands([wide] * 60)) == [{"result": api.validate(wide)}] * 60, type(client).__name__


def _sized(length: int) -> dict:
    """A record whose JSON (as the Python clients write it) is exactly ``length`` characters."""
    record = dict(RECORD, actions=["0 "])
    record["actions"] = ["0 " + "x" * (length - len(json.dumps(record)))]
    assert len(json.dumps(record)) == length
    return record


def test_python_clients_fill_a_batch_to_its_size_exactly(rest_url: str, grpc_target: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A batch takes records up to ``BATCH_BYTES`` of JSON, that size included: two records of
    half of it each go in one line or message, and a record one byte larger goes in a batch of its
    own, over REST and gRPC alike; each record gets its result."""
    import urllib.request

    from naipes_client import BATCH_BYTES

    half, more = _sized(BATCH_BYTES // 2), _sized(BATCH_BYTES // 2 + 1)
    archive = [half, half, more, half, half, half]
    want = [{"result": api.validate(record)} for record in archive]
    lines: list[int] = []  # REST: the records of each line sent
    urlopen = urllib.request.urlopen

    def recording(request: Any, *args: Any, **kwargs: Any) -> Any:
        lines.extend(len(json.loads(line)["batch"]) for line in request.data.splitlines())
        return urlopen(request, *args, **kwargs)

    monkeypatch.setattr(urllib.request, "urlopen", recording)
    with RestClient(rest_url) as rest:
        assert list(rest.validate_hands(archive)) == want
    messages: list[int] = []  # gRPC: the records of each message sent
    with GrpcClient(grpc_target) as grpc_client:
        streaming = grpc_client._stubs[0].ValidateHands
        monkeypatch.setattr(grpc_client._stubs[0], "ValidateHands", lambda requests, **kwargs: streaming(
            (messages.append(len(request.batch)) or request for request in requests), **kwargs))
        assert list(grpc_client.validate_hands(archive)) == want
    assert lines == messages == [2, 1, 2, 1]


def test_python_clients_send_an_archive_in_batches_of_50_and_requests_of_2000(rest_url: str, grpc_target: str,
                                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """Without ``batch``, an archive goes 50 records a line or message (BATCH); over REST, 2,000
    records a request (REST_CHUNK): 2,001 records are two requests, the second of one record;
    every record answered in order."""
    import urllib.request

    archive = [{"game": "mus", "seats": 4, "dealer": n % 4} for n in range(2001)]  # (cheap to answer: UNKNOWN_GAME)
    requests_sent: list[list[int]] = []  # REST: the records of each line of each request
    urlopen = urllib.request.urlopen

    def recording(request: Any, *args: Any, **kwargs: Any) -> Any:
        requests_sent.append([len(json.loads(line)["batch"]) for line in request.data.splitlines()])
        return urlopen(request, *args, **kwargs)

    monkeypatch.setattr(urllib.request, "urlopen", recording)
    with RestClient(rest_url) as rest:
        answers = list(rest.validate_hands(iter(archive)))
    assert [answer["error"]["code"] for answer in answers] == ["UNKNOWN_GAME"] * 2001
    assert requests_sent == [[50] * 40, [1]]
    messages: list[int] = []  # gRPC: the records of each message
    with GrpcClient(grpc_target) as grpc_client:
        streaming = grpc_client._stubs[0].ValidateHands
        monkeypatch.setattr(grpc_client._stubs[0], "ValidateHands", lambda requests, **kwargs: streaming(
            (messages.append(len(request.batch)) or request for request in requests), **kwargs))
        assert list(grpc_client.validate_hands(iter(archive[:120]))) == answers[:120]
    assert messages == [50, 50, 20]


def test_rest_client_compress_is_answered_as_plain(rest_url: str) -> None:
    """``RestClient(compress=True)`` sends every body gzip-compressed: every call's answer, an
    archive's answers (records, records the service refuses, a batch line's) and every refusal are
    the plain client's."""
    with RestClient(rest_url, compress=True) as packed, RestClient(rest_url) as plain:
        _answered_as_plain(packed, plain)


def _answered_as_plain(packed: RestClient | GrpcClient, plain: RestClient | GrpcClient) -> None:
    """Every call's answer, an archive's (records, records the service refuses, a batch line's;
    with and without events) and every refusal of ``packed`` are ``plain``'s."""
    archive = [*(load_example(path)[0] for path in sorted(examples_dir().glob("*.json"))[:30]), {"game": "mus", "seats": 4}]
    for name, rpc, request in UNARY_CALLS:
        assert call_unary(packed, rpc, request) == call_unary(plain, rpc, request), name
    for name, rpc, request, _code, _field in REFUSED_CALLS:
        with pytest.raises(NaipesError) as packed_error:
            call_unary(packed, rpc, request)
        with pytest.raises(NaipesError) as plain_error:
            call_unary(plain, rpc, request)
        assert (packed_error.value.code, packed_error.value.field, packed_error.value.message) == (
            plain_error.value.code, plain_error.value.field, plain_error.value.message), name
    assert list(packed.validate_hands(iter(archive), batch=7)) == list(plain.validate_hands(archive, batch=7))
    assert list(packed.validate_hands(archive, omit_events=True)) == list(plain.validate_hands(archive, omit_events=True))


def test_grpc_client_compress_is_answered_as_plain(grpc_target: str) -> None:
    """``GrpcClient(compress=True)`` sends every message gzip-compressed (gRPC's own compression):
    every call's answer, an archive's and every refusal are the plain client's; a message of 8 MiB
    is refused by both before sending, in the server's words. Sent compressed all the same, it
    reaches the server as a few KiB, which grpcio refuses once decompressed, where sent plain it is
    refused as it comes (grpcio's words, without the service's code)."""
    import grpc

    from naipes.v1 import naipes_pb2 as pb

    large = {"game": "rentoy", "seats": 4, "dealer": 0, "actions": ["x" * 1000] * 8192}
    with GrpcClient(grpc_target, compress=True) as packed, GrpcClient(grpc_target) as plain:
        _answered_as_plain(packed, plain)
        with pytest.raises(NaipesError) as packed_error:
            packed.validate_hand(large)
        with pytest.raises(NaipesError) as plain_error:
            plain.validate_hand(large)
    assert packed_error.value.code == plain_error.value.code == "PAYLOAD_TOO_LARGE"
    assert packed_error.value.message == plain_error.value.message
    request = pb.ValidateHandRequest(record=pb.HandRecord(game="rentoy", seats=4, dealer=0, actions=large["actions"])).SerializeToString()
    said = []
    for compression in (grpc.Compression.Gzip, None):
        with grpc.insecure_channel(grpc_target, compression=compression) as channel:
            call = channel.unary_unary("/naipes.v1.NaipesService/ValidateHand", request_serializer=None, response_deserializer=None)
            with pytest.raises(grpc.RpcError) as raised:
                call(request, timeout=30)
            said.append((raised.value.code(), raised.value.details()))
    assert said[0] == (grpc.StatusCode.RESOURCE_EXHAUSTED, "Decompressed message larger than max"), said
    assert said[1][0] == grpc.StatusCode.RESOURCE_EXHAUSTED and "Received message larger than max" in said[1][1], said


def _read_request(conn: socket.socket) -> tuple[str, dict[str, str], bytes]:
    """An HTTP/1.1 request a fake server reads: its request line, its headers (names in lower
    case) and its body of ``Content-Length`` bytes."""
    data = b""
    while b"\r\n\r\n" not in data:
        data += conn.recv(65536)
    head, _, body = data.partition(b"\r\n\r\n")
    request_line, *lines = head.decode("latin-1").split("\r\n")
    headers = {name.lower(): value.strip() for name, _, value in (line.partition(":") for line in lines)}
    while len(body) < int(headers.get("content-length", 0)):
        body += conn.recv(65536)
    return request_line, headers, body


def test_rest_client_compress_sends_gzip_that_it_says() -> None:
    """What ``compress=True`` sends: ``Content-Encoding: gzip`` and the body in one gzip member,
    the JSON the plain client sends (a stream's NDJSON, its lines compressed as they are written);
    a GET sends no body and says no coding; every call asks for its answer gzip'd (``Accept-Encoding:
    gzip``), which it decodes."""
    from service_support import Listener

    sent: list[tuple[str, dict[str, str], bytes]] = []
    answers = {b"POST /v1/hands:validate ": b"{}", b"POST /v1/hands:validateStream ": b'{"batch": [{"result": {}}, {"result": {}}]}\n',
               b"GET ": b"{}"}

    def handle(conn: socket.socket) -> None:
        with conn:
            request_line, headers, body = _read_request(conn)
            sent.append((request_line, headers, body))
            answer = next(value for key, value in answers.items() if request_line.encode().startswith(key))
            coding = b""
            if headers.get("accept-encoding") == "gzip":  # (answered gzip'd, as the service answers 1 KiB or more)
                answer, coding = gzip.compress(answer), b"Content-Encoding: gzip\r\n"
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n%sContent-Length: %d\r\nConnection: close\r\n\r\n%s"
                         % (coding, len(answer), answer))

    server = Listener(handle)
    server.start()
    try:
        with RestClient(f"http://127.0.0.1:{server.port}", compress=True) as packed:
            assert packed.validate_hand(RECORD) == {}
            assert list(packed.validate_hands([RECORD, RECORD])) == [{"result": {}}, {"result": {}}]
            assert packed.describe_rules("rentoy") == {}
    finally:
        server.close()
    (unary_line, unary, unary_body), (stream_line, stream, stream_body), (get_line, get, get_body) = sent
    assert unary_line.startswith("POST /v1/hands:validate ") and unary["content-encoding"] == "gzip"
    assert json.loads(gzip.decompress(unary_body)) == RECORD
    assert unary_body[:2] == b"\x1f\x8b" and len(gzip.decompress(unary_body)) > len(unary_body)
    assert stream_line.startswith("POST /v1/hands:validateStream ") and stream["content-encoding"] == "gzip"
    assert stream["content-type"] == "application/x-ndjson"
    assert json.loads(gzip.decompress(stream_body)) == {"batch": [{"record": RECORD}, {"record": RECORD}]}
    assert get_line.startswith("GET /v1/games/rentoy/rules ") and "content-encoding" not in get and get_body == b""
    assert unary["accept-encoding"] == stream["accept-encoding"] == get["accept-encoding"] == "gzip"


def test_rest_client_reads_a_gzip_answer_or_says_it_cannot() -> None:
    """How ``compress=True`` reads what comes gzip'd: a refusal's problem JSON is its error; a
    stream's answer in pieces that split its lines and gzip's blocks is every line; an answer that
    is not the gzip it says, or ends before its gzip data does (a stream's too, every line come),
    is UNAVAILABLE naming what could not be read, the client going on. A plain client asks for none (``identity``)."""
    import zlib

    from service_support import Listener

    problem = json.dumps({"code": "UNKNOWN_GAME", "detail": "unknown game 'mus'", "field": "game", "status": 400}).encode()
    deflate = zlib.compressobj(6, zlib.DEFLATED, 31)
    line = json.dumps({"batch": [{"result": {}}] * 4}).encode() + b"\n"  # (in two blocks, flushed mid-line)
    stream = deflate.compress(line[:20]) + deflate.flush(zlib.Z_SYNC_FLUSH) + deflate.compress(line[20:]) + deflate.flush()
    unended = zlib.compressobj(6, zlib.DEFLATED, 31)
    unended_stream = unended.compress(line) + unended.flush(zlib.Z_SYNC_FLUSH)  # (every line, but not gzip's end)
    answers = {"/v1/deals": (b"400 Bad Request", gzip.compress(problem)), "/v1/hands:validateStream": (b"200 OK", stream),
               "/v1/hands:validateStream?unended": (b"200 OK", unended_stream),
               "/v1/hands:validateStream?unterminated": (b"200 OK", gzip.compress(line.rstrip(b"\n"))),
               "/v1/hands:settle": (b"200 OK", b"\x1f\x8b not gzip"), "/v1/tricks:resolve": (b"200 OK", gzip.compress(b"{}")[:-9]),
               "/v1/hands:legalActions": (b"200 OK", b"{}")}
    asked: list[str | None] = []
    stream_kind = [""]  # (which of the stream's answers the next stream gets)

    def handle(conn: socket.socket) -> None:
        with conn:
            request_line, headers, _body = _read_request(conn)
            asked.append(headers.get("accept-encoding"))
            path = request_line.split()[1].split("?")[0]
            status, answer = answers[path + "?" + stream_kind[0] if path == "/v1/hands:validateStream" and stream_kind[0] else path]
            coding = b"" if answer == b"{}" else b"Content-Encoding: gzip\r\n"
            conn.sendall(b"HTTP/1.1 %s\r\nContent-Type: application/json\r\n%sConnection: close\r\n\r\n" % (status, coding))
            for at in range(0, len(answer), 5):  # (in pieces of 5 bytes)
                conn.sendall(answer[at:at + 5])
                time.sleep(0.001)

    server = Listener(handle)
    server.start()
    try:
        with RestClient(f"http://127.0.0.1:{server.port}", compress=True) as packed:
            with pytest.raises(NaipesError) as refused:
                packed.deal({"game": "mus"})
            assert (refused.value.code, refused.value.field, refused.value.message) == ("UNKNOWN_GAME", "game", "unknown game 'mus'")
            assert list(packed.validate_hands([RECORD] * 4)) == [{"result": {}}] * 4
            stream_kind[0] = "unterminated"  # (its last line without its newline: read as the plain client reads it)
            assert list(packed.validate_hands([RECORD] * 4)) == [{"result": {}}] * 4
            stream_kind[0] = "unended"
            with pytest.raises(NaipesError) as unended_error:
                list(packed.validate_hands([RECORD] * 4))
            assert unended_error.value.code == "UNAVAILABLE" and "ended before the end of its gzip data" in unended_error.value.message
            for call, request in ((packed.settle_hand, {}), (packed.resolve_trick, {})):
                with pytest.raises(NaipesError) as unread:
                    call(request)
                assert unread.value.code == "UNAVAILABLE" and "no answer could be read" in unread.value.message, unread.value.message
            assert packed.legal_actions(RECORD) == {}
        with RestClient(f"http://127.0.0.1:{server.port}") as plain:
            assert plain.legal_actions(RECORD) == {}
    finally:
        server.close()
    assert asked == ["gzip"] * 7 + ["identity"]  # (http.client's own, for a plain client)


def _counting_refusals(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count the streams this process's servers refuse for want of a slot."""
    from service import stream
    from service.errors import ServiceError

    refused = [0]
    slots = stream.slots()
    take = slots.take

    def counted() -> Any:
        try:
            return take()
        except ServiceError:
            refused[0] += 1
            raise

    monkeypatch.setattr(slots, "take", counted)
    return refused


def _take_every_slot() -> list[Any]:
    """Hold every stream slot of this process (once the streams before have let theirs go: a
    server frees a slot once it has sent the last answer, which the client may read first)."""
    from service import stream

    slots = stream.slots()
    for _ in range(100):
        if slots.taken == 0:
            break
        threading.Event().wait(0.05)
    return [slots.take() for _ in range(slots.count)]


def test_python_clients_retry_a_stream_refused_for_want_of_a_slot(clients, monkeypatch: pytest.MonkeyPatch) -> None:
    """A server process validates a few streams at a time and refuses more (TOO_MANY_STREAMS):
    validate_hands tries again a second later, sending again what it had sent, and gives every
    answer once a slot is free; records given as a one-pass iterator lose none."""
    archive = _archive()
    want = [{"result": api.validate(r)} for r in archive]
    refused = _counting_refusals(monkeypatch)
    for client in clients:
        held = _take_every_slot()
        freed = threading.Timer(1.5, lambda h=held: [release() for release in h])
        freed.start()
        before = refused[0]
        try:
            assert list(client.validate_hands(iter(archive), batch=7)) == want
        finally:
            freed.cancel()
            for release in held:
                release()
        assert refused[0] > before, type(client).__name__  # it was refused, and tried again


def test_python_clients_give_up_after_their_retries(clients, monkeypatch: pytest.MonkeyPatch) -> None:
    import naipes_client

    monkeypatch.setattr(naipes_client, "STREAM_RETRIES", 1)
    refused = _counting_refusals(monkeypatch)
    held = _take_every_slot()
    try:
        for client in clients:
            before = refused[0]
            with pytest.raises(NaipesError) as err:
                list(client.validate_hands(iter([RECORD])))
            assert err.value.code == "TOO_MANY_STREAMS"
            assert refused[0] - before == 2, type(client).__name__  # the stream and its one retry
    finally:
        for release in held:
            release()


def test_javascript_client(rest_url: str, tmp_path: Path) -> None:
    node = subprocess.run(["node", "--version"], capture_output=True, text=True)
    assert node.returncode == 0, "Node.js is needed for the JavaScript client's test (.ci/run installs it)"
    script = tmp_path / "check.mjs"
    script.write_text(f"""
import {{ Naipes, NaipesError }} from {json.dumps(str(ROOT / "clients/js/naipes.mjs"))};
const naipes = new Naipes({json.dumps(rest_url)});
const record = {json.dumps(RECORD)};
const out = {{ result: await naipes.validateHand(record),
              legal: await naipes.legalActions({{...record, actions: record.actions.slice(0, 5)}}, 3),
              hands: await naipes.validateHands([record, {{...record, game: "mus"}}, {{...record, seats: "four"}}, record], {{ batch: 3 }}),
              big: await naipes.validateHands(Array(60).fill({{...record, actions: Array(1000).fill("0 " + "x".repeat(28))}})) }};
try {{ await naipes.validateHand({{...record, game: "mus"}}); }}
catch (e) {{ out.error = {{ isNaipesError: e instanceof NaipesError, code: e.code, field: e.field, status: e.status }}; }}
console.log(JSON.stringify(out));
""")
    run = subprocess.run(["node", str(script)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    assert out["result"] == api.validate(RECORD)
    assert out["legal"] == api.legal_actions(dict(RECORD, actions=RECORD["actions"][:5]), 3)
    assert out["error"] == {"isNaipesError": True, "code": "UNKNOWN_GAME", "field": "game", "status": 400}
    hands = out["hands"]
    assert len(hands) == 4 and hands[0] == hands[3] == {"result": api.validate(RECORD)}
    assert (hands[1]["error"]["code"], hands[1]["error"]["field"]) == ("UNKNOWN_GAME", "game")
    assert (hands[2]["error"]["code"], hands[2]["error"]["field"]) == ("INVALID_FIELD", "seats")
    # Sixty large records (1.9 MB of JSON) go in lines under the limit: each gets its result.
    assert out["big"] == [{"result": api.validate(dict(RECORD, actions=["0 " + "x" * 28] * 1000))}] * 60


# naipes.mjs's method for each unary RPC, and its arguments from the RPC's request.
JS_METHODS = {"ValidateHand": "validateHand", "LegalActions": "legalActions", "ResolveTrick": "resolveTrick",
              "SettleHand": "settleHand", "Deal": "deal", "DescribeRules": "describeRules"}


def _js_call(rpc: str, request: dict) -> list[Any]:
    if rpc in ("ValidateHand", "LegalActions"):
        return [JS_METHODS[rpc], [request["record"], *([request["seat"]] if "seat" in request else [])]]
    return [JS_METHODS[rpc], [request["game"]] if rpc == "DescribeRules" else [request]]


# Each call's answer, or its error as the caller sees it; "<NaN>" and "<BigInt>" in a call's
# arguments are NaN and 1n, which JSON cannot carry to the script.
JS_CALLS = """
const calls = JSON.parse(CALLS, (key, value) => value === "<NaN>" ? NaN : value === "<BigInt>" ? 1n : value);
const out = [];
async function gathered(answer) {  // a promise's value; validateHandsStream's async iterator's answers
  if (!answer[Symbol.asyncIterator]) return answer;
  const answers = [];
  for await (const item of answer) answers.push(item);
  return answers;
}
for (const [method, args] of calls) {
  try { out.push({ answer: await gathered(naipes[method](...args)) }); }
  catch (e) { out.push({ error: { isNaipesError: e instanceof NaipesError, code: e.code ?? null, field: e.field ?? null,
                                  status: e.status ?? null, message: e.message } }); }
}
out.push(Object.getOwnPropertyNames(Naipes.prototype).filter((name) => name !== "constructor").sort());  // the client's methods
console.log(JSON.stringify(out));
"""

# A body JSON cannot hold, for each method that sends one: (method, arguments, the field named).
UNWRITABLE = [
    ("validateHand", [dict(RECORD, seats="<NaN>")], "seats"),
    ("legalActions", [dict(RECORD, dealer="<BigInt>"), 1], "dealer"),
    ("resolveTrick", [{"game": "rentoy", "seats": 4, "leader": "<NaN>", "contract": {"trump": "copas"}, "cards": "12e 2e"}], "leader"),
    ("settleHand", [{"game": "rentoy", "seats": 4, "table": {"score": ["<BigInt>", 0]}, "rentoy": {"winner": 1, "value": 3}}],
     "table.score[0]"),
    ("deal", [{"game": "rentoy", "seats": 4, "dealer": "<NaN>", "seed": "s"}], "dealer"),
]


def test_javascript_client_answers_every_rpc_as_the_engine(rest_url: str, tmp_path: Path) -> None:
    """Every method of naipes.mjs, for the three games, against the real REST server: each
    answer is the engine's for the same request; each method's refused request is a NaipesError
    with the service's code, field, message and HTTP status; validateHands answers the three
    games' records in order; a method with a body JSON cannot hold (NaN, a BigInt) refuses it
    before sending, INVALID_FIELD naming the field (NaN went as null, the field lost: "seats is
    required"; a BigInt threw TypeError); legalActions with a null seat is everyone's view (it
    sent ?seat=null, refused)."""
    partial = dict(RECORD, actions=RECORD["actions"][:5])
    records = [request["record"] for _name, rpc, request in UNARY_CALLS if rpc == "ValidateHand"]
    calls = [*(_js_call(rpc, request) for _name, rpc, request in UNARY_CALLS),
             *(_js_call(rpc, request) for _name, rpc, request, _code, _field in REFUSED_CALLS),
             ["validateHands", [records, {"batch": 2}]], ["validateHandsStream", [records, {"batch": 2}]],
             *([method, args] for method, args, _field in UNWRITABLE),
             ["legalActions", [partial, None]]]
    out = _node(tmp_path, f"const naipes = new Naipes({json.dumps(rest_url)});\nconst CALLS = {json.dumps(json.dumps(calls))};\n{JS_CALLS}")
    assert out.pop() == sorted({method for method, _args in calls})  # every method of the client is called
    assert len(out) == len(calls)
    answered, out = out[:len(UNARY_CALLS)], out[len(UNARY_CALLS):]
    failed, out = out[:len(REFUSED_CALLS)], out[len(REFUSED_CALLS):]
    hands, streamed, unwritten, everyone = out[0], out[1], out[2:-1], out[-1]
    for (name, rpc, request), answer in zip(UNARY_CALLS, answered, strict=True):
        assert answer == {"answer": engine_answer(rpc, request)}, name
    for (name, rpc, request, code, field), answer in zip(REFUSED_CALLS, failed, strict=True):
        error = engine_error(rpc, request)
        assert (error.code, error.field) == (code, field), name
        assert answer == {"error": {"isNaipesError": True, "code": code, "field": field, "status": ERRORS[code].http_status,
                                    "message": error.message}}, name
    assert hands == streamed == {"answer": [{"result": api.validate(record)} for record in records]}
    for (method, args, field), answer in zip(UNWRITABLE, unwritten, strict=True):
        what = "NaN" if "<NaN>" in json.dumps(args) else "the BigInt 1n"
        assert answer == {"error": {"isNaipesError": True, "code": "INVALID_FIELD", "field": field, "status": None,
                                    "message": f"{field}: JSON cannot hold {what}"}}, method
    assert everyone == {"answer": api.legal_actions(partial)}


def test_javascript_client_compress_is_answered_as_plain(rest_url: str, tmp_path: Path) -> None:
    """naipes.mjs's ``compress: true`` sends every body gzip-compressed, as the Python
    ``RestClient(compress=True)``: ``Content-Encoding: gzip`` and the plain client's body in one
    gzip member (a GET without a body or a coding); every call's answer, a stream's and every
    refusal are the plain client's."""
    records = [request["record"] for _name, rpc, request in UNARY_CALLS if rpc == "ValidateHand"]
    calls = [*(_js_call(rpc, request) for _name, rpc, request in UNARY_CALLS),
             *(_js_call(rpc, request) for _name, rpc, request, _code, _field in REFUSED_CALLS),
             ["validateHands", [records, {"batch": 2}]], ["validateHands", [records, {"omitEvents": True}]]]
    out = _node(tmp_path, f"""
const CALLS = {json.dumps(calls)};
const sent = [];
const recording = (url, init) => {{
  sent.push({{ encoding: init.headers["Content-Encoding"] ?? null, body: init.body === undefined ? null : Buffer.from(init.body).toString("base64") }});
  return fetch(url, init);
}};
const answers = async (naipes) => {{
  const out = [];
  for (const [method, args] of CALLS) {{
    try {{ out.push({{ answer: await naipes[method](...args) }}); }}
    catch (e) {{ out.push({{ error: {{ code: e.code, field: e.field ?? null, status: e.status ?? null, message: e.message }} }}); }}
  }}
  return out;
}};
const packed = await answers(new Naipes({json.dumps(rest_url)}, {{ compress: true, fetchImpl: recording }}));
const packedSent = sent.splice(0);
const plain = await answers(new Naipes({json.dumps(rest_url)}, {{ fetchImpl: recording }}));
console.log(JSON.stringify({{ packed, plain, packedSent, plainSent: sent }}));
""")
    assert out["packed"] == out["plain"]
    assert sum("answer" in answer for answer in out["plain"]) > len(UNARY_CALLS)  # (the calls were answered, not all refused)
    assert len(out["packedSent"]) == len(out["plainSent"]) >= len(calls) - len(REFUSED_CALLS)
    for packed, plain in zip(out["packedSent"], out["plainSent"], strict=True):
        assert plain["encoding"] is None
        if plain["body"] is None:
            assert packed == plain
            continue
        body = base64.b64decode(packed["body"])
        assert packed["encoding"] == "gzip" and body[:2] == b"\x1f\x8b"
        assert gzip.decompress(body) == base64.b64decode(plain["body"])


def test_javascript_client_retries_a_refused_stream(rest_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """validateHands sends a stream refused with TOO_MANY_STREAMS again after its Retry-After,
    and throws the error once its retries are spent; the wait for Retry-After (a second) is no
    silence of the server's, even past a shorter timeoutMs."""
    refused = _counting_refusals(monkeypatch)
    script = tmp_path / "retry.mjs"
    script.write_text(f"""
import {{ Naipes }} from {json.dumps(str(ROOT / "clients/js/naipes.mjs"))};
const naipes = new Naipes({json.dumps(rest_url)});
const record = {json.dumps(RECORD)};
const out = {{}};
try {{ await naipes.validateHands([record], {{ retries: 0 }}); }} catch (e) {{ out.gaveUp = e.code; }}
out.hands = await new Naipes({json.dumps(rest_url)}, {{ timeoutMs: 500 }}).validateHands([record, record]);
console.log(JSON.stringify(out));
""")
    held = _take_every_slot()
    freed = threading.Timer(1.5, lambda: [release() for release in held])
    freed.start()
    try:
        run = subprocess.run(["node", str(script)], capture_output=True, text=True, timeout=60)
    finally:
        freed.cancel()
        for release in held:
            release()
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    assert out == {"gaveUp": "TOO_MANY_STREAMS", "hands": [{"result": api.validate(RECORD)}] * 2}
    assert refused[0] >= 2  # the first call's refusal, and at least one of the second's


@pytest.mark.parametrize("example", ["validate_grpc.py", "validate.mjs"])
def test_example_scripts_exit_as_the_cli(example: str, rest_url: str, grpc_target: str, tmp_path: Path) -> None:
    """The examples print the result and exit 0 (valid) or 1 (a violation); a request the service
    refuses is its code, field and message on stderr and exit 2, not a traceback."""
    script = ROOT / "clients" / "examples" / example
    command = [sys.executable, str(script)] if example.endswith(".py") else ["node", str(script)]
    target = grpc_target if example.endswith(".py") else rest_url
    illegal = dict(RECORD, actions=[RECORD["actions"][1], *RECORD["actions"][1:]])
    for name, record, status in (("valid", RECORD, 0), ("illegal", illegal, 1), ("refused", dict(RECORD, game="mus"), 2)):
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(record))
        run = subprocess.run([*command, str(path), target], capture_output=True, text=True, timeout=60)
        assert run.returncode == status, run.stderr
        if status < 2:
            assert json.loads(run.stdout) == api.validate(record)
        else:
            assert run.stdout == "" and "Traceback" not in run.stderr, run.stderr
            assert run.stderr.strip().splitlines()[-1].startswith("UNKNOWN_GAME (game): unknown game 'mus'"), run.stderr



AUDIT = ROOT / "clients" / "examples" / "audit.mjs"


def test_audit_example_prints_each_records_answer_and_exits_as_naipes_audit(rest_url: str, tmp_path: Path) -> None:
    """clients/examples/audit.mjs over an archive of every kind of line: each record's answer a
    line, in order, as the service's stream answers it (its ``id`` when it has one; a batch's
    records a line each; a line not JSON MALFORMED_JSON naming it), the same from the archive
    gzip'd (``.gz``); the counts on stderr; the exit
    code the worst record's, as ``naipes audit``: 2 with an error entry, 1 with a violation, 0 all
    valid (``--omit-events``: the results without their events); 3 when no server answers."""
    illegal = dict(RECORD, actions=[RECORD["actions"][1], *RECORD["actions"][1:]])
    lines = [json.dumps({"id": "a", "record": RECORD}), "", json.dumps(illegal), "{not json",
             json.dumps({"batch": [{"id": 7, "record": dict(RECORD, game="mus")}, {"record": RECORD}]}), json.dumps(RECORD)]
    archive = tmp_path / "archive.ndjson"
    archive.write_text("\n".join(lines) + "\n")
    run = subprocess.run(["node", str(AUDIT), str(archive), rest_url], capture_output=True, text=True, timeout=60)
    assert run.returncode == 2, run.stderr
    answers = [json.loads(line) for line in run.stdout.splitlines()]
    assert answers[:2] == [{"id": "a", "result": api.validate(RECORD)}, {"result": api.validate(illegal)}]
    assert answers[2] == {"error": {"code": "MALFORMED_JSON", "message": answers[2]["error"]["message"]}}
    assert answers[2]["error"]["message"].startswith("line 4 is not valid JSON: ")
    assert answers[3] == {"id": 7, "error": {"code": "UNKNOWN_GAME", "field": "game",
                                             "message": "unknown game 'mus': expected tresillo, revesino or rentoy"}}
    assert answers[4:] == [{"result": api.validate(RECORD)}] * 2
    assert re.fullmatch(r"audit\.mjs: 6 records in [\d.]+ s \([\d,]+ a second\): 3 valid, 1 with a violation, "
                        r"2 not validated \(an error entry\)\n", run.stderr), run.stderr
    packed = tmp_path / "archive.ndjson.gz"  # (read gunzipped: the same answers)
    packed.write_bytes(gzip.compress(archive.read_bytes()))
    unpacked = subprocess.run(["node", str(AUDIT), str(packed), rest_url], capture_output=True, text=True, timeout=60)
    assert (unpacked.returncode, unpacked.stdout) == (2, run.stdout), unpacked.stderr
    for kept, status in (([0, 2], 1), ([0, 5], 0)):
        archive.write_text("\n".join(lines[i] for i in kept) + "\n")
        run = subprocess.run(["node", str(AUDIT), str(archive), rest_url, "--omit-events"], capture_output=True, text=True, timeout=60)
        assert run.returncode == status, run.stderr
        assert [json.loads(line) for line in run.stdout.splitlines()] == [
            {**({"id": "a"} if i == 0 else {}), "result": api.validate(json.loads(lines[i]).get("record", json.loads(lines[i])), events=False)}
            for i in kept]
    run = subprocess.run(["node", str(AUDIT), str(archive), f"http://127.0.0.1:{_free_port()}"], capture_output=True, text=True, timeout=60)
    assert (run.returncode, run.stdout) == (3, ""), run.stderr
    assert run.stderr.startswith("UNAVAILABLE: ") and "    at " not in run.stderr, run.stderr  # (no stack trace)
    run = subprocess.run(["node", str(AUDIT)], capture_output=True, text=True, timeout=60)
    assert (run.returncode, run.stdout) == (2, "") and run.stderr.startswith("usage: audit.mjs ARCHIVE.ndjson|-"), run.stderr


def test_audit_example_answers_a_live_feed_line_by_line(rest_url: str) -> None:
    """``tail -f hands.ndjson | node audit.mjs -``: each line's answer is printed before the next
    line is written (this test writes a line, then waits for its answer, 20 s at most: a client that
    held its records for a full request or for the feed's end would not answer); a line that is not
    JSON is answered at once too. The feed's end ends the audit, exit 2 (the line not JSON)."""
    audit = subprocess.Popen(["node", str(AUDIT), "-", rest_url], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    assert audit.stdin and audit.stdout
    answers: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [answers.put(line) for line in audit.stdout or ()], daemon=True).start()
    got = []
    try:
        for n, line in enumerate([json.dumps(dict(RECORD, actions=RECORD["actions"][:n])) for n in (1, 2)] + ["{", json.dumps(RECORD)]):
            audit.stdin.write(line + "\n")
            audit.stdin.flush()
            try:
                got.append(json.loads(answers.get(timeout=20)))
            except queue.Empty:
                raise AssertionError(f"no answer to line {n + 1} within 20 s") from None
        audit.stdin.close()
        assert audit.wait(30) == 2
    finally:
        audit.kill()
    assert got[:2] == [{"result": api.validate(dict(RECORD, actions=RECORD["actions"][:n]))} for n in (1, 2)]
    assert got[2]["error"]["code"] == "MALFORMED_JSON" and got[3] == {"result": api.validate(RECORD)}


@pytest.mark.parametrize("example", ["validate_grpc.py", "validate.mjs"])
def test_example_scripts_exit_2_on_a_file_not_json_and_3_without_a_server(example: str, tmp_path: Path) -> None:
    """A file that is not JSON is one line on stderr and exit 2, as ``naipes validate``; a server
    that cannot be reached is exit 3, no answer (both were a traceback and exit 1, the code of a
    violation), its code and message without a field ("UNAVAILABLE (None)" was Python's word for
    none); no file at all is a usage line and exit 2 (a traceback and exit 1 in Python)."""
    script = ROOT / "clients" / "examples" / example
    command = [sys.executable, str(script)] if example.endswith(".py") else ["node", str(script)]
    port = _free_port()
    target = f"127.0.0.1:{port}" if example.endswith(".py") else f"http://127.0.0.1:{port}"
    not_json = tmp_path / "not.json"
    not_json.write_text("{not json")
    valid = tmp_path / "valid.json"
    valid.write_text(json.dumps(RECORD))
    for path, status, code in ((not_json, 2, "MALFORMED_JSON"), (valid, 3, "UNAVAILABLE: ")):
        run = subprocess.run([*command, str(path), target], capture_output=True, text=True, timeout=60)
        assert run.returncode == status, run.stderr
        assert run.stdout == "" and len(run.stderr.strip().splitlines()) == 1 and run.stderr.startswith(code), run.stderr
    run = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert (run.returncode, run.stdout) == (2, "") and run.stderr.startswith(f"usage: {example} RECORD.json"), run.stderr


@pytest.mark.parametrize("example", ["validate_grpc.py", "validate.mjs"])
def test_example_scripts_take_a_shared_example_file_and_refuse_a_third_argument(example: str, rest_url: str, grpc_target: str,
                                                                               tmp_path: Path) -> None:
    """A shared example file (its record beside its ``expect``) is validated as its record; a
    file that is not a record (JSON null, a record without its game) is sent as it is and refused
    by the service, exit 2; a third argument is the usage line and exit 2."""
    script = ROOT / "clients" / "examples" / example
    command = [sys.executable, str(script)] if example.endswith(".py") else ["node", str(script)]
    target = grpc_target if example.endswith(".py") else rest_url
    shared = examples_dir() / "rentoy-full-30.json"
    record, _expect = load_example(shared)
    run = subprocess.run([*command, str(shared), target], capture_output=True, text=True, timeout=60)
    assert (run.returncode, json.loads(run.stdout)) == (0, api.validate(record)), run.stderr
    for name, text, refused in (("null", "null", "INVALID_FIELD (body): the body must be a JSON object, not null"),
                                ("no-game", json.dumps({key: value for key, value in RECORD.items() if key != "game"}),
                                 "MISSING_FIELD (game): game is required")):
        path = tmp_path / f"{name}.json"
        path.write_text(text)
        run = subprocess.run([*command, str(path), target], capture_output=True, text=True, timeout=60)
        assert (run.returncode, run.stdout, run.stderr) == (2, "", refused + "\n"), name
    run = subprocess.run([*command, str(shared), target, "extra"], capture_output=True, text=True, timeout=60)
    assert (run.returncode, run.stdout) == (2, "") and run.stderr.startswith(f"usage: {example} RECORD.json"), run.stderr


def test_a_fake_page_stops_listening_when_closed() -> None:
    """Once closed, nothing answers on a fake page's port, whether it answers or holds its
    connections silent (``service_support.Listener``: closed while its thread waited in
    ``accept()``, a listener went on taking connections on its port)."""
    pages = [FakeHttp(None), FakeHttp(PROXY_502)]
    ports = [int(page.url.rsplit(":", 1)[1]) for page in pages]
    for page, port in zip(pages, ports, strict=True):
        with socket.create_connection(("127.0.0.1", port), timeout=5) as conn:  # (its thread waits in accept again)
            conn.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            if page.answer is not None:
                assert conn.recv(100).startswith(b"HTTP/1.1 502 ")
        page.close()
    for port in ports:
        with pytest.raises(ConnectionRefusedError):
            socket.create_connection(("127.0.0.1", port), timeout=5)


def test_javascript_example_exits_3_for_no_answer_and_2_for_a_proxy_s_refusal(tmp_path: Path) -> None:
    """validate.mjs exits 3, no answer, for a server silent past the client's timeout (10 s), the
    service's INTERNAL error and a proxy's 5xx page, and 2 for a proxy's 4xx page (a request
    refused), its code and message on stderr; with no address given it calls http://127.0.0.1:8080."""
    problem = json.dumps({"code": "INTERNAL", "status": 500, "detail": "the engine failed"}).encode()
    pages = [FakeHttp(None),
             FakeHttp(b"HTTP/1.1 500 Internal Server Error\r\nContent-Type: application/problem+json\r\nContent-Length: %d\r\n"
                      b"Connection: close\r\n\r\n%s" % (len(problem), problem)),
             FakeHttp(PROXY_502),
             FakeHttp(b"HTTP/1.1 404 Not Found\r\nContent-Type: text/plain\r\nContent-Length: 9\r\nConnection: close\r\n\r\nnot found")]
    path = tmp_path / "valid.json"
    path.write_text(json.dumps(RECORD))
    script = str(ROOT / "clients" / "examples" / "validate.mjs")
    try:
        runs = [subprocess.Popen(["node", script, str(path), page.url], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                for page in pages]
        ended = [(run.wait(timeout=60), *run.communicate()) for run in runs]
    finally:
        for page in pages:
            page.close()
    assert ended == [(3, "", f"DEADLINE_EXCEEDED: {pages[0].url}: no answer within the timeout\n"),
                     (3, "", "INTERNAL: the engine failed\n"),
                     (3, "", "HTTP_502: HTTP 502 Bad Gateway: <html><body>502 Bad Gateway</body></html>\n"),
                     (2, "", "HTTP_404: HTTP 404 Not Found: not found\n")]
    with socket.socket() as probe:
        if probe.connect_ex(("127.0.0.1", 8080)) == 0:
            pytest.skip("port 8080 is held: the default address cannot be shown unreachable")
    run = subprocess.run(["node", script, str(path)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 3 and run.stderr.startswith("UNAVAILABLE: http://127.0.0.1:8080: fetch failed"), run.stderr


# The README's oversized record: 999 actions of 1,100 characters, over 1 MiB in any encoding.
HUGE = dict(RECORD, actions=["0 " + "x" * 1098] * 999)


def test_python_clients_answer_a_record_over_the_limit_in_its_place(clients) -> None:
    """A record too large for any message is answered PAYLOAD_TOO_LARGE in its place, and the
    records around it are validated: the gRPC client ended the whole archive with grpcio's own
    RESOURCE_EXHAUSTED (field None). Over REST the error is the service's for its line; the gRPC
    client answers it itself, before sending, naming the limit."""
    archive = [RECORD, HUGE, RECORD]
    messages = ["a line of the body is longer than 1048576 bytes", "the record is larger than a message's 1048576 bytes"]
    for client, message in zip(clients, messages, strict=True):
        answers = list(client.validate_hands(iter(archive)))
        assert answers[0] == answers[2] == {"result": api.validate(RECORD)}, type(client).__name__
        assert answers[1] == {"error": {"code": "PAYLOAD_TOO_LARGE", "message": message}}, type(client).__name__


PROXY_502 = (b"HTTP/1.1 502 Bad Gateway\r\nContent-Type: text/html\r\nContent-Length: 44\r\nConnection: close\r\n\r\n"
             b"<html><body>502 Bad Gateway</body></html>\r\n\r\n")
NOT_JSON_200 = b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello"
# A proxy's error of JSON that is not the service's problem (no code).
JSON_503 = (b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nContent-Length: 17\r\nConnection: close\r\n\r\n"
            b'{"error": "busy"}')


def _free_port() -> int:
    import socket

    with socket.create_server(("127.0.0.1", 0)) as sock:
        return int(sock.getsockname()[1])


@pytest.mark.parametrize("answer,code,message", [
    (None, "DEADLINE_EXCEEDED", "{url}: no answer within the timeout"),
    (PROXY_502, "HTTP_502", "HTTP 502 Bad Gateway: <html><body>502 Bad Gateway</body></html>"),
    (NOT_JSON_200, "UNAVAILABLE", "{url}: no answer could be read: JSONDecodeError: Expecting value: line 1 column 1 (char 0)"),
    (JSON_503, "HTTP_503", 'HTTP 503 Service Unavailable: {{"error": "busy"}}'),
])
def test_rest_client_raises_naipes_error_for_every_failure(answer: bytes | None, code: str, message: str) -> None:
    """A silent server, a proxy's HTML page and an answer that is not JSON are NaipesErrors with
    a code and a message that says what came, no field, as a rejected request is (they were
    TimeoutError, json.JSONDecodeError); the proxy's page keeps its status and its words, its
    whitespace folded."""
    server = FakeHttp(answer)
    try:
        with RestClient(server.url, timeout=0.5) as rest:
            for call in (lambda: rest.validate_hand(RECORD), lambda: list(rest.validate_hands([RECORD]))):
                with pytest.raises(NaipesError) as err:
                    call()
                assert (err.value.code, err.value.field, err.value.message) == (code, None, message.format(url=server.url))
                assert err.value.status == (int(code[5:]) if code.startswith("HTTP_") else None)
    finally:
        server.close()


def test_python_clients_raise_unavailable_for_a_server_that_is_down() -> None:
    port = _free_port()
    with RestClient(f"http://127.0.0.1:{port}") as rest, GrpcClient(f"127.0.0.1:{port}", timeout=2) as grpc_client:
        for client in (rest, grpc_client):
            for call in (lambda c=client: c.validate_hand(RECORD), lambda c=client: list(c.validate_hands([RECORD]))):
                with pytest.raises(NaipesError) as err:
                    call()
                assert err.value.code == "UNAVAILABLE", type(client).__name__


CLOSED = ("UNAVAILABLE", None, "the client is closed")  # a call of a closed client: code, field, message


def _every_call(client: RestClient | GrpcClient, read: list[int]) -> dict[str, Any]:
    """Each call of a Python client, once (``read`` counts the records validate_hands takes)."""
    def records() -> Any:
        read.append(1)
        yield RECORD

    trick = {"game": "rentoy", "seats": 4, "leader": 1, "contract": {"trump": "copas"}, "cards": "12e 2e 3c 1e"}
    settle = {"game": "rentoy", "seats": 4, "table": {"score": [4, 5]}, "rentoy": {"winner": 1, "value": 3, "end": "fold"}}
    return {
        "validate_hand": lambda: client.validate_hand(RECORD),
        "legal_actions": lambda: client.legal_actions(RECORD, 3),
        "resolve_trick": lambda: client.resolve_trick(trick),
        "settle_hand": lambda: client.settle_hand(settle),
        "deal": lambda: client.deal({"game": "rentoy", "seats": 4, "dealer": 0, "seed": "s"}),
        "describe_rules": lambda: client.describe_rules("rentoy"),
        "validate_hands": lambda: list(client.validate_hands(records())),
        "validate_hands of no records": lambda: list(client.validate_hands([])),
        # (refused first as closed, whatever else is wrong: the gRPC client refuses these itself)
        "validate_hand of a record no message holds": lambda: client.validate_hand(dict(RECORD, seats="four")),
        "legal_actions of a seat True": lambda: client.legal_actions(RECORD, True),  # type: ignore[arg-type]
        "describe_rules of a game 5": lambda: client.describe_rules(5),  # type: ignore[arg-type]
        "deal with a request ID refused": lambda: client.deal({"game": "rentoy"}, request_id=""),
        "validate_hands of a batch 0": lambda: list(client.validate_hands(records(), batch=0)),
    }


@pytest.mark.parametrize("used", [False, True], ids=["closed unused", "closed after a call"])
def test_python_clients_raise_naipes_error_once_closed(used: bool, rest_url: str, grpc_target: str) -> None:
    """Every call of a closed client (``close()``, or its ``with`` block left) is a NaipesError
    UNAVAILABLE, "the client is closed", before anything else is said of it (both clients alike,
    though the gRPC client refuses some requests itself) and before it reads a record: the gRPC
    client's were grpcio's ValueError ("Cannot invoke RPC on closed channel!", a stream's "Cannot
    invoke RPC: Channel closed!"), and the REST client went on sending them as if it were open.
    Closing again is nothing."""
    for client in (RestClient(rest_url), GrpcClient(grpc_target)):
        if used:
            assert client.validate_hand(RECORD) == api.validate(RECORD)
        with client:
            pass
        read: list[int] = []
        for name, call in _every_call(client, read).items():
            with pytest.raises(NaipesError) as raised:
                call()
            assert (raised.value.code, raised.value.field, raised.value.message) == CLOSED, (type(client).__name__, name)
        assert read == [], type(client).__name__
        client.close()


def test_python_clients_raise_naipes_error_for_validate_hands_closed_while_it_runs(rest_url: str, grpc_target: str,
                                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """A client closed between validate_hands' answers: the next is NaipesError UNAVAILABLE, "the
    client is closed". Over gRPC the stream is cut short (grpcio's CANCELLED "Stream removed
    (Channel closed!)") or, its records having paused past PAUSE_SECONDS, the next stream would
    open on the closed channel (grpcio's ValueError); over REST the next request (here a record
    each) was sent as if the client were open."""
    import naipes_client

    monkeypatch.setattr(naipes_client, "REST_CHUNK", 1)
    monkeypatch.setattr(naipes_client, "PAUSE_SECONDS", 0.2)

    def feed() -> Any:
        yield RECORD
        time.sleep(0.5)
        yield RECORD

    for make in (lambda: RestClient(rest_url), lambda: GrpcClient(grpc_target)):
        for pause in (0.0, 0.3):  # (gRPC: the first stream still open when closed, then ended)
            client = make()
            answers = client.validate_hands(feed(), batch=1)
            assert next(answers) == {"result": api.validate(RECORD)}
            time.sleep(pause)
            client.close()
            with pytest.raises(NaipesError) as raised:
                next(answers)
            assert (raised.value.code, raised.value.field, raised.value.message) == CLOSED, (type(client).__name__, pause)


def test_rest_client_answers_records_json_cannot_hold_without_a_request() -> None:
    """An archive whose every record JSON cannot hold is answered by the REST client alone: no
    request is sent (here to a server that is down), where an empty body would have been."""
    archive = [dict(RECORD, seats=float("nan")), {1, 2}]
    with RestClient(f"http://127.0.0.1:{_free_port()}") as rest:
        assert list(rest.validate_hands(archive)) == [
            {"error": {"code": "INVALID_FIELD", "field": "seats", "message": "seats: JSON cannot hold NaN"}},
            {"error": {"code": "INVALID_FIELD", "message": "the record: JSON cannot hold a set"}}]


def _node(tmp_path: Path, source: str, timeout: float = 60) -> Any:
    script = tmp_path / "check.mjs"
    script.write_text(f'import {{ Naipes, NaipesError }} from {json.dumps(str(ROOT / "clients/js/naipes.mjs"))};\n'
                      f"const record = {json.dumps(RECORD)};\n{source}")
    run = subprocess.run(["node", str(script)], capture_output=True, text=True, timeout=timeout)
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


def test_javascript_client_throws_naipes_error_for_every_failure(tmp_path: Path) -> None:
    """A server that is down, a proxy's HTML page, an error page of JSON without a code and an
    answer that is not JSON are NaipesErrors with a code and a message saying what came (they
    were TypeError: fetch failed and SyntaxError); a stream's failure is thrown at once, its
    request not sent again (only TOO_MANY_STREAMS is)."""
    down_url = f"http://127.0.0.1:{_free_port()}"
    pages = [FakeHttp(PROXY_502), FakeHttp(JSON_503), FakeHttp(NOT_JSON_200)]
    try:
        out = _node(tmp_path, f"""
const out = [];
for (const url of [{json.dumps(down_url)}, ...{json.dumps([page.url for page in pages])}]) {{
  for (const call of [(n) => n.validateHand(record), (n) => n.validateHands([record])]) {{
    try {{ await call(new Naipes(url)); out.push("no error"); }}
    catch (e) {{ out.push({{ isNaipesError: e instanceof NaipesError, code: e.code, status: e.status ?? null, message: e.message }}); }}
  }}
}}
console.log(JSON.stringify(out));
""")
        connections = [len(page.held) for page in pages]
    finally:
        for page in pages:
            page.close()
    down = {"isNaipesError": True, "code": "UNAVAILABLE", "status": None}
    assert out[:2] == [dict(down, message=out[0]["message"])] * 2
    assert out[0]["message"].startswith(f"{down_url}: fetch failed (") and "ECONNREFUSED" in out[0]["message"], out[0]
    bad_gateway = {"isNaipesError": True, "code": "HTTP_502", "status": 502, "message": "HTTP 502 Bad Gateway: <html><body>502 Bad Gateway</body></html>"}
    unavailable = {"isNaipesError": True, "code": "HTTP_503", "status": 503, "message": 'HTTP 503 Service Unavailable: {"error": "busy"}'}
    not_json = {"isNaipesError": True, "code": "UNAVAILABLE", "status": None, "message": f"{pages[2].url}: the answer is not JSON: hello"}
    assert out[2:] == [bad_gateway, bad_gateway, unavailable, unavailable, not_json, not_json]
    assert connections == [2, 2, 2]  # a call and a stream each, none sent again


def _busy(retry_after: str) -> bytes:
    """An answer refusing a stream with TOO_MANY_STREAMS, with ``retry_after``'s header line (or none)."""
    problem = json.dumps({"code": "TOO_MANY_STREAMS", "detail": "busy", "status": 429}).encode()
    return (b"HTTP/1.1 429 Too Many Requests\r\nContent-Type: application/problem+json\r\n" + retry_after.encode() +
            b"Content-Length: %d\r\nConnection: close\r\n\r\n%s" % (len(problem), problem))


def test_rest_client_honours_retry_after(monkeypatch: pytest.MonkeyPatch) -> None:
    """The REST client sends a stream refused with TOO_MANY_STREAMS again after the answer's
    Retry-After (2 s here), or a second without one, STREAM_RETRIES times: with one retry, two
    requests, then the error."""
    import naipes_client

    monkeypatch.setattr(naipes_client, "STREAM_RETRIES", 1)
    pages = [FakeHttp(_busy("Retry-After: 2\r\n")), FakeHttp(_busy(""))]
    try:
        for page, (least, most) in zip(pages, ((2, 2.8), (1, 1.8)), strict=True):
            start = time.monotonic()
            with RestClient(page.url) as rest, pytest.raises(NaipesError) as err:
                list(rest.validate_hands([RECORD]))
            assert (err.value.code, err.value.retry_after, len(page.held)) == ("TOO_MANY_STREAMS", "2" if least == 2 else None, 2)
            assert least <= time.monotonic() - start < most
    finally:
        for page in pages:
            page.close()


def test_javascript_client_honours_retry_after_and_its_retries(tmp_path: Path) -> None:
    """A stream refused with TOO_MANY_STREAMS is sent again after the answer's Retry-After (2 s
    here), or a second without one, and ``retries`` times exactly: with ``retries: 1`` two
    requests, then the error."""
    pages = [FakeHttp(_busy("Retry-After: 2\r\n")), FakeHttp(_busy(""))]
    try:
        out = _node(tmp_path, f"""
const out = [];
for (const url of {json.dumps([page.url for page in pages])}) {{
  const start = Date.now();
  try {{ await new Naipes(url).validateHands([record], {{ retries: 1 }}); out.push("no error"); }}
  catch (e) {{ out.push({{ code: e.code, seconds: (Date.now() - start) / 1000 }}); }}
}}
console.log(JSON.stringify(out));
""")
        connections = [len(page.held) for page in pages]
    finally:
        for page in pages:
            page.close()
    assert [answer["code"] for answer in out] == ["TOO_MANY_STREAMS"] * 2 and connections == [2, 2]
    assert 2 <= out[0]["seconds"] < 2.8 and 1 <= out[1]["seconds"] < 1.8, out


def test_javascript_client_answers_a_short_stream_and_a_line_error(tmp_path: Path) -> None:
    """An error entry answering a whole line (one line of two records here) is each of its
    records' answer; a stream that ends before every line is answered is UNAVAILABLE saying how
    many came (two lines of a record each, one answer)."""
    entry = {"error": {"code": "PAYLOAD_TOO_LARGE", "message": "a line of the body is longer than 1048576 bytes"}}
    line = json.dumps(entry).encode() + b"\n"
    page = FakeHttp(b"HTTP/1.1 200 OK\r\nContent-Type: application/x-ndjson\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s"
                    % (len(line), line))
    try:
        out = _node(tmp_path, f"""
const naipes = new Naipes({json.dumps(page.url)});
const out = [await naipes.validateHands([record, record], {{ batch: 2 }})];
try {{ await naipes.validateHands([record, record], {{ batch: 1 }}); out.push("no error"); }}
catch (e) {{ out.push({{ code: e.code, message: e.message }}); }}
console.log(JSON.stringify(out));
""")
    finally:
        page.close()
    assert out == [[entry, entry], {"code": "UNAVAILABLE", "message": f"{page.url}: the stream ended after 1 of 2 answers"}]


def test_javascript_client_calls_fetch_as_a_function(rest_url: str, tmp_path: Path) -> None:
    """A browser's fetch called as a method of any other object than the window throws TypeError
    "Illegal invocation": the client calls its fetch with no receiver (it called this.fetch(...),
    and every call in a browser was UNAVAILABLE; Node's fetch does not care, hence this fetch
    that does as a browser's does; tests/test_js_browser.py has the real browser)."""
    out = _node(tmp_path, f"""
function browserFetch(...args) {{
  if (this !== undefined && this !== globalThis) throw new TypeError("Failed to execute 'fetch' on 'Window': Illegal invocation");
  return fetch(...args);
}}
const naipes = new Naipes({json.dumps(rest_url)}, {{ fetchImpl: browserFetch }});
console.log(JSON.stringify([await naipes.validateHand(record), await naipes.validateHands([record])]));
""")
    assert out == [api.validate(RECORD), [{"result": api.validate(RECORD)}]]


class _SlowServicer(naipes_pb2_grpc.NaipesServiceServicer):
    """A NaipesService whose ValidateHands answers each message ``delay`` seconds after it came
    (every record valid), or never (``None``: for ``hold`` seconds); its first ``refuse`` streams
    it refuses with ``refusal`` (TOO_MANY_STREAMS) once it has read their first message. Past a stream's first
    ``answering`` messages (all by default) it answers no more: it is silent, or, ``busy``, it
    refuses the stream then."""

    def __init__(self, delay: float | None, refuse: int = 0, hold: float = 60, answering: int | None = None, busy: bool = False,
                 refusal: str = "TOO_MANY_STREAMS"):
        super().__init__()
        self.delay, self.refuse, self.hold, self.answering, self.busy = delay, refuse, hold, answering, busy
        self.refusal = refusal
        self.released, self.calls = threading.Event(), 0

    def ValidateHands(self, requests: Any, context: Any) -> Any:  # noqa: N802 (gRPC's name)
        from grpc_status import rpc_status

        from naipes.v1 import naipes_pb2 as pb
        from service.errors import ServiceError
        from service.grpc_server import status_of

        busy = rpc_status.to_status(status_of(ServiceError("TOO_MANY_STREAMS", "busy")))
        self.calls += 1
        if self.calls <= self.refuse:
            next(requests)
            context.abort_with_status(rpc_status.to_status(status_of(ServiceError(self.refusal, "refused"))))
        for sent, request in enumerate(requests):
            if self.delay is None or self.answering is not None and sent >= self.answering:
                if self.busy:
                    context.abort_with_status(busy)
                self.released.wait(self.hold)
                return
            threading.Event().wait(self.delay)
            yield pb.ValidateHandsResponse(batch=[pb.ValidateHandsResponse(result=pb.ValidationResult(valid=True))] * len(request.batch))


def _slow_grpc_server(delay: float | None, **behaviour: Any) -> tuple[Any, str, _SlowServicer]:
    from concurrent.futures import ThreadPoolExecutor

    import grpc

    servicer = _SlowServicer(delay, **behaviour)
    server = grpc.server(ThreadPoolExecutor(max_workers=4))
    naipes_pb2_grpc.add_NaipesServiceServicer_to_server(servicer, server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    return server, f"127.0.0.1:{port}", servicer


def test_grpc_client_reads_answers_with_the_compiled_decoder(grpc_target: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The GrpcClient's answers, a call's and a stream's of the three games, are read from their
    wire bytes by the compiled decoder (``codec.answer_from_wire``), which vouches for each (no
    ``Doubt``): none is printed from protobuf's message (``to_json``, four times slower, which
    held the client's stream below the REST client's). Every answer is the engine's."""
    from service import codec

    wire = codec._wire
    if wire is None:
        pytest.skip("the compiled decoder is not built here (make build)")
    read: list[str] = []

    class Counted:  # the compiled module, its decode counted (api mode) and its doubts kept
        Doubt = wire.Doubt

        def __getattr__(self, name: str) -> Any:
            return getattr(wire, name)

        def decode(self, data: bytes, t: Any, api: bool = False) -> Any:
            try:
                answer = wire.decode(data, t, api)
            except wire.Doubt:
                read.append("doubt")
                raise
            read.append("read" if api else "request")
            return answer

    records = [request["record"] for _name, rpc, request in UNARY_CALLS if rpc == "ValidateHand"]
    assert {record["game"] for record in records} == {"tresillo", "revesino", "rentoy"}
    monkeypatch.setattr(codec, "_wire", Counted())
    with GrpcClient(grpc_target) as grpc_client:
        assert [grpc_client.validate_hand(record) for record in records] == [api.validate(record) for record in records]
        assert list(grpc_client.validate_hands(records * 3, batch=2)) == [{"result": api.validate(record)} for record in records * 3]
    assert read.count("read") == len(records) + (len(records) * 3 + 1) // 2 and "doubt" not in read, read  # (a message a batch of 2)


def test_grpc_client_answer_that_is_no_message_is_internal() -> None:
    """The client reads each answer's wire bytes itself (``codec.answer_from_wire``): bytes that are not
    the answer's message, from a server that is not the service, are a NaipesError INTERNAL naming
    the message, for a call and for a stream's answer, as grpcio's failure to read them was."""
    from concurrent.futures import ThreadPoolExecutor

    import grpc

    garbage = b"\xff\xff\xff"  # (a varint cut short)
    handler = grpc.method_handlers_generic_handler("naipes.v1.NaipesService", {
        "ValidateHand": grpc.unary_unary_rpc_method_handler(lambda request, context: garbage),
        "ValidateHands": grpc.stream_stream_rpc_method_handler(lambda requests, context: (garbage for _ in requests)),
    })
    server = grpc.server(ThreadPoolExecutor(max_workers=2), handlers=(handler,))
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        with GrpcClient(f"127.0.0.1:{port}") as grpc_client:
            for call, name in ((lambda: grpc_client.validate_hand(RECORD), "ValidateHandResponse"),
                               (lambda: list(grpc_client.validate_hands([RECORD])), "ValidateHandsResponse")):
                with pytest.raises(NaipesError) as err:
                    call()
                assert (err.value.code, err.value.message) == ("INTERNAL", f"the answer is not a {name}: {garbage!r}")
    finally:
        server.stop(None)


def test_grpc_client_bounds_a_stream_by_its_progress() -> None:
    """A stream that answers nothing is cancelled after the client's timeout (DEADLINE_EXCEEDED;
    it waited forever, timeout=None); one that answers every message in time may take longer."""
    import time

    server, target, servicer = _slow_grpc_server(None)
    try:
        with GrpcClient(target, timeout=0.5) as grpc_client:
            start = time.monotonic()
            with pytest.raises(NaipesError) as err:
                list(grpc_client.validate_hands(iter([RECORD])))
            assert err.value.code == "DEADLINE_EXCEEDED" and time.monotonic() - start < 5
            assert err.value.message == "no answer to the stream's messages within 0.5 s"
    finally:
        servicer.released.set()
        server.stop(grace=None)
    server, target, _ = _slow_grpc_server(0.3)
    try:
        with GrpcClient(target, timeout=0.8) as grpc_client:
            start = time.monotonic()
            answers = list(grpc_client.validate_hands(iter([RECORD] * 6), batch=1))
            assert len(answers) == 6 and time.monotonic() - start > 1.6  # longer than the timeout, in time
    finally:
        server.stop(grace=None)


def test_grpc_client_bounds_a_retried_stream_by_its_progress() -> None:
    """A stream refused (TOO_MANY_STREAMS) once its message was sent is sent again, message
    included, and that attempt is bounded by its progress as the first was: a server that then
    answers nothing is DEADLINE_EXCEEDED after the timeout, not waited for."""
    import time

    server, target, servicer = _slow_grpc_server(None, refuse=1, hold=20)
    try:
        with GrpcClient(target, timeout=0.5) as grpc_client:
            start = time.monotonic()
            with pytest.raises(NaipesError) as err:
                list(grpc_client.validate_hands(iter([RECORD])))
            assert err.value.code == "DEADLINE_EXCEEDED" and time.monotonic() - start < 10
            assert servicer.calls == 2
    finally:
        servicer.released.set()
        server.stop(grace=None)


def test_grpc_client_bounds_a_stream_by_its_progress_after_an_answer() -> None:
    """A stream that answers its first message and then nothing is cancelled after the client's
    timeout once the caller has taken that answer (the clock, stopped while the caller held the
    answer, starts again)."""
    server, target, servicer = _slow_grpc_server(0, answering=1, hold=20)
    try:
        with GrpcClient(target, timeout=0.5) as grpc_client:
            answers = grpc_client.validate_hands(iter([RECORD] * 3), batch=1)
            assert next(answers)["result"]["valid"] is True
            start = time.monotonic()
            with pytest.raises(NaipesError) as err:
                next(answers)
            assert err.value.code == "DEADLINE_EXCEEDED" and time.monotonic() - start < 10
    finally:
        servicer.released.set()
        server.stop(grace=None)


def test_grpc_client_waits_for_a_caller_slow_to_take_the_answers(grpc_target: str) -> None:
    """The progress bound is the server's, not the caller's: a caller that takes each answer a
    second after the one before, twice the timeout, has every answer (the stream is not cancelled
    while the caller holds an answer, though the server's next answers wait for it)."""
    with GrpcClient(grpc_target, timeout=0.5) as grpc_client:
        answers = []
        for answer in grpc_client.validate_hands(iter([RECORD] * 3), batch=1):
            answers.append(answer)
            time.sleep(1)
    assert answers == [{"result": api.validate(RECORD)}] * 3


def test_grpc_client_raises_a_refusal_after_answers(grpc_target: str) -> None:
    """A stream refused (TOO_MANY_STREAMS) after it has answered is not sent again, which would
    answer its first records twice: the answers given stand and the error is raised."""
    server, target, servicer = _slow_grpc_server(0, answering=1, busy=True)
    try:
        with GrpcClient(target, timeout=5) as grpc_client:
            answers = grpc_client.validate_hands(iter([RECORD] * 3), batch=1)
            assert next(answers)["result"]["valid"] is True
            with pytest.raises(NaipesError) as err:
                next(answers)
            assert err.value.code == "TOO_MANY_STREAMS" and servicer.calls == 1
    finally:
        server.stop(grace=None)


def test_grpc_client_waits_for_records_slow_to_come() -> None:
    """The progress bound counts the messages sent and not yet answered, each from when it was
    sent: records that come to the client slower than its timeout (a generator reading them from
    a slow source) are all validated by a server that takes 0.3 s of the 0.5 s to answer each, the
    stream not cancelled while every message sent has its answer."""

    def slowly() -> Any:
        for _ in range(3):
            time.sleep(1)
            yield RECORD

    server, target, _ = _slow_grpc_server(0.3)
    try:
        with GrpcClient(target, timeout=0.5) as grpc_client:
            assert [answer["result"]["valid"] for answer in grpc_client.validate_hands(slowly(), batch=1)] == [True] * 3
    finally:
        server.stop(grace=None)


def test_python_clients_raise_a_stream_refused_for_another_reason_at_once() -> None:
    """Only TOO_MANY_STREAMS is worth sending a stream again: a stream refused with another code
    (here INTERNAL) is raised at its first refusal, over gRPC and REST alike."""
    server, target, servicer = _slow_grpc_server(0, refuse=3, refusal="INTERNAL")
    try:
        with GrpcClient(target) as grpc_client, pytest.raises(NaipesError) as err:
            list(grpc_client.validate_hands(iter([RECORD])))
        assert (err.value.code, err.value.message, servicer.calls) == ("INTERNAL", "refused", 1)
    finally:
        server.stop(grace=None)
    problem = json.dumps({"code": "INTERNAL", "detail": "refused"}).encode()
    proxy = FakeHttp(b"HTTP/1.1 500 Internal Server Error\r\nContent-Type: application/problem+json\r\n"
                     b"Content-Length: %d\r\nConnection: close\r\n\r\n%s" % (len(problem), problem))
    try:
        with RestClient(proxy.url) as rest, pytest.raises(NaipesError) as err:
            list(rest.validate_hands([RECORD]))
        assert (err.value.code, err.value.message, err.value.status, len(proxy.held)) == ("INTERNAL", "refused", 500, 1)
    finally:
        proxy.close()


def test_javascript_client_has_a_timeout(tmp_path: Path) -> None:
    """A server that accepts and never answers is DEADLINE_EXCEEDED after timeoutMs, for a call
    and a stream alike (the client waited forever)."""
    silent = FakeHttp(None)
    try:
        out = _node(tmp_path, f"""
const naipes = new Naipes({json.dumps(silent.url)}, {{ timeoutMs: 500 }});
const out = [];
for (const call of [() => naipes.validateHand(record), () => naipes.validateHands([record])]) {{
  const start = Date.now();
  try {{ await call(); out.push("no error"); }}
  catch (e) {{ out.push({{ code: e.code, isNaipesError: e instanceof NaipesError, quick: Date.now() - start < 5000 }}); }}
}}
console.log(JSON.stringify(out));
""", timeout=30)
    finally:
        silent.close()
    assert out == [{"code": "DEADLINE_EXCEEDED", "isNaipesError": True, "quick": True}] * 2


def _answer_in_pieces(pieces: list[bytes], content_type: str = "application/json") -> list[bytes]:
    """An HTTP 200 answer whose body is ``pieces``, its head sent with the first (for FakeHttp to send apart)."""
    head = b"HTTP/1.1 200 OK\r\nContent-Type: %s\r\nContent-Length: %d\r\nConnection: close\r\n\r\n" % (
        content_type.encode(), sum(map(len, pieces)))
    return [head + pieces[0], *pieces[1:]]


def test_javascript_client_bounds_a_call_by_its_timeout_not_each_read(tmp_path: Path) -> None:
    """A call's timeoutMs is its deadline, as the client's docs promise ("how long a call waits for
    its answer"): an answer whose every piece comes within the timeout (0.25 s apart, timeoutMs
    700) but whose whole takes longer (2 s) is DEADLINE_EXCEEDED at the timeout, not waited for."""
    body = json.dumps(api.validate(RECORD)).encode()
    slow = FakeHttp(_answer_in_pieces([body[i * len(body) // 8:(i + 1) * len(body) // 8] for i in range(8)]), pause=0.25)
    try:
        out = _node(tmp_path, f"""
const start = Date.now();
try {{ await new Naipes({json.dumps(slow.url)}, {{ timeoutMs: 700 }}).validateHand(record); console.log(JSON.stringify("no error")); }}
catch (e) {{ console.log(JSON.stringify({{ code: e.code, message: e.message, seconds: (Date.now() - start) / 1000 }})); }}
""", timeout=30)
    finally:
        slow.close()
    assert out == {"code": "DEADLINE_EXCEEDED", "message": f"{slow.url}: no answer within the timeout", "seconds": out["seconds"]}
    assert 0.7 <= out["seconds"] < 1.5, out


def test_rest_client_bounds_a_call_by_its_timeout_not_each_read() -> None:
    """RestClient's timeout is a call's deadline, as the README says of every client: an answer
    whose every piece comes within it (0.25 s apart, timeout 0.7 s) but whose whole takes longer
    (2 s) is DEADLINE_EXCEEDED at the timeout (it was read to its end, each read within the
    socket's timeout); the same answer within a longer timeout is read whole, by a call made first
    in another thread (its deadline, further off, is the one the client's watchdog waited for)."""
    body = json.dumps(api.validate(RECORD)).encode()
    slow = FakeHttp(_answer_in_pieces([body[i * len(body) // 8:(i + 1) * len(body) // 8] for i in range(8)]), pause=0.25)
    try:
        whole: list[Any] = []
        first = threading.Thread(target=lambda: whole.append(RestClient(slow.url, timeout=10).validate_hand(RECORD)))
        first.start()
        time.sleep(0.1)
        start = time.monotonic()
        with pytest.raises(NaipesError) as failed, RestClient(slow.url, timeout=0.7) as rest:
            rest.validate_hand(RECORD)
        took = time.monotonic() - start
        first.join(30)
        answer = whole[0]
    finally:
        slow.close()
    assert (failed.value.code, failed.value.message, failed.value.field) == ("DEADLINE_EXCEEDED", f"{slow.url}: no answer within the timeout", None)
    assert 0.7 <= took < 1.5, took
    assert answer == api.validate(RECORD)


def test_rest_client_bounds_a_call_by_its_timeout_over_https_too(monkeypatch: pytest.MonkeyPatch) -> None:
    """Over HTTPS (a service behind TLS) as over HTTP: the answer in pieces 0.25 s apart is read
    whole within a 10 s timeout, and is DEADLINE_EXCEEDED at a 0.7 s timeout."""
    monkeypatch.setenv("SSL_CERT_FILE", str(TLS_PEM))
    body = json.dumps(api.validate(RECORD)).encode()
    slow = FakeHttp(_answer_in_pieces([body[i * len(body) // 8:(i + 1) * len(body) // 8] for i in range(8)]), pause=0.25, tls=True)
    try:
        assert slow.url.startswith("https://")
        assert RestClient(slow.url, timeout=10).validate_hand(RECORD) == api.validate(RECORD)
        start = time.monotonic()
        with pytest.raises(NaipesError) as failed:
            RestClient(slow.url, timeout=0.7).validate_hand(RECORD)
        took = time.monotonic() - start
    finally:
        slow.close()
    assert (failed.value.code, failed.value.message) == ("DEADLINE_EXCEEDED", f"{slow.url}: no answer within the timeout")
    assert 0.7 <= took < 1.5, took


def test_rest_client_deadline_shuts_a_connection_made_after_it_passed(rest_url: str) -> None:
    """A deadline that passes while its call is still connecting shuts the connection as soon as
    it is made (a read on it ends at once, not at the socket's timeout); a call over lets go of its
    connection, although its deadline is kept until its time (10 s by default)."""
    import naipes_client

    late, peer = socket.socketpair()
    with late, peer:
        deadline = naipes_client._Deadline(0.05)
        wait_until = time.monotonic() + 10
        while not deadline.passed and time.monotonic() < wait_until:
            time.sleep(0.01)
        assert deadline.passed
        deadline.connected(late)
        late.settimeout(5)
        assert late.recv(1) == b""
    RestClient(rest_url).describe_rules("rentoy")
    over = naipes_client._CALL.deadline
    assert (over.done, over.passed, over._sock) == (True, False, None)


def test_rest_client_bounds_a_call_by_its_timeout_in_a_forked_process_too() -> None:
    """A process forked after a call (a pre-forking server's worker) keeps its calls' deadlines:
    the thread that shuts a late call's connection is the parent's, and the child starts its own."""
    body = json.dumps(api.validate(RECORD)).encode()
    slow = FakeHttp(_answer_in_pieces([body[i * len(body) // 8:(i + 1) * len(body) // 8] for i in range(8)]), pause=0.25)
    script = f"""
import json, os, sys, time
sys.path.insert(0, {str(ROOT / "clients" / "python")!r})
from naipes_client import NaipesError, RestClient
record = json.loads({json.dumps(json.dumps(RECORD))})
try:
    RestClient({slow.url!r}, timeout=0.3).validate_hand(record)  # (the parent's watchdog starts)
except NaipesError as error:
    assert error.code == "DEADLINE_EXCEEDED", error
pid = os.fork()
if pid:
    sys.exit(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))
start = time.monotonic()
try:
    RestClient({slow.url!r}, timeout=0.7).validate_hand(record)
    print("answered")
except NaipesError as error:
    print(error.code, round(time.monotonic() - start, 1))
"""
    try:
        done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    finally:
        slow.close()
    assert done.returncode == 0, done.stderr
    code, seconds = done.stdout.split()
    assert code == "DEADLINE_EXCEEDED" and 0.7 <= float(seconds) < 1.5, done.stdout


def test_javascript_client_bounds_a_stream_by_its_progress(tmp_path: Path) -> None:
    """validateHands' timeoutMs bounds the stream's silence, not its length: answers 0.3 s apart
    with timeoutMs 500 are all read (1.2 s in all); a stream silent past timeoutMs after its first
    answer is DEADLINE_EXCEEDED then, not waited for (its second answer would come 3 s later)."""
    result = json.dumps({"result": api.validate(RECORD)}).encode()
    line, pair = b'{"batch": [%s]}\n' % result, b'{"batch": [%s, %s]}\n' % (result, result)
    slow = FakeHttp(_answer_in_pieces([line] * 4, "application/x-ndjson"), pause=0.3)
    stalled = FakeHttp(_answer_in_pieces([pair] * 2, "application/x-ndjson"), pause=3)
    try:
        out = _node(tmp_path, f"""
const out = [];
for (const [url, batch] of {json.dumps([[slow.url, 1], [stalled.url, 2]])}) {{
  const start = Date.now();
  try {{ out.push({{ answers: await new Naipes(url, {{ timeoutMs: 500 }}).validateHands([record, record, record, record], {{ batch }}) }}); }}
  catch (e) {{ out.push({{ code: e.code, seconds: (Date.now() - start) / 1000 }}); }}
}}
console.log(JSON.stringify(out));
""", timeout=30)
    finally:
        slow.close()
        stalled.close()
    assert out[0] == {"answers": [{"result": api.validate(RECORD)}] * 4}
    assert out[1] == {"code": "DEADLINE_EXCEEDED", "seconds": out[1]["seconds"]} and 0.5 <= out[1]["seconds"] < 2, out


def test_javascript_client_cuts_an_answer_not_json_at_200_characters(tmp_path: Path) -> None:
    """An answer that is not JSON (a call's, a stream's line) is UNAVAILABLE quoting its first 200
    characters, and a proxy's page that is not the service's problem JSON HTTP_<status> quoting its
    first 200 (whitespace folded), no more: a long page does not fill the message."""
    text = "".join(chr(ord("a") + i % 26) for i in range(300))
    html = f"<p>{text}</p>"
    pages = [FakeHttp(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s"
                      % (len(text), text.encode())),
             FakeHttp(b"HTTP/1.1 502 Bad Gateway\r\nContent-Type: text/html\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s"
                      % (len(html) + 2, b"\n " + html.encode()))]
    try:
        out = _node(tmp_path, f"""
const out = [];
for (const url of {json.dumps([page.url for page in pages])}) {{
  for (const call of [(n) => n.validateHand(record), (n) => n.validateHands([record])]) {{
    try {{ await call(new Naipes(url)); out.push("no error"); }}
    catch (e) {{ out.push({{ code: e.code, message: e.message }}); }}
  }}
}}
console.log(JSON.stringify(out));
""")
    finally:
        for fake in pages:
            fake.close()
    not_json = {"code": "UNAVAILABLE", "message": f"{pages[0].url}: the answer is not JSON: {text[:200]}"}
    bad_gateway = {"code": "HTTP_502", "message": f"HTTP 502 Bad Gateway: {html[:200]}"}
    assert out == [not_json, not_json, bad_gateway, bad_gateway]


def test_javascript_client_sends_its_body_as_json_and_a_stream_as_ndjson(rest_url: str, tmp_path: Path) -> None:
    """A call with a body says Content-Type application/json, a stream application/x-ndjson, and a
    GET (describeRules) none, which in a browser would make it a call with a preflight."""
    out = _node(tmp_path, f"""
const types = [];
const naipes = new Naipes({json.dumps(rest_url)}, {{ fetchImpl: (url, init) => {{ types.push(init.headers["Content-Type"] ?? null); return fetch(url, init); }} }});
await naipes.validateHand(record);
await naipes.describeRules("rentoy");
await naipes.validateHands([record]);
console.log(JSON.stringify(types));
""")
    assert out == ["application/json", None, "application/x-ndjson"]


def test_javascript_client_reads_a_character_split_across_a_stream_s_pieces(tmp_path: Path) -> None:
    """A stream's answer read in pieces that cut a character's UTF-8 bytes apart (ñ, é here) gives
    the character whole, not two U+FFFD; a line of only whitespace between answers is no answer."""
    lines = [json.dumps({"batch": [{"error": {"code": "UNKNOWN_GAME", "field": "game", "message": f"unknown game '{game}'"}}]},
                        ensure_ascii=False).encode() + b"\n" for game in ("señor", "café")]
    body = lines[0] + b" \r\n" + lines[1]
    cuts = [body.index("ñ".encode()) + 1, body.index("é".encode()) + 1]
    page = FakeHttp(_answer_in_pieces([body[:cuts[0]], body[cuts[0]:cuts[1]], body[cuts[1]:]], "application/x-ndjson"), pause=0.1)
    try:
        out = _node(tmp_path, f"console.log(JSON.stringify(await new Naipes({json.dumps(page.url)}).validateHands([record, record], {{ batch: 1 }})));")
    finally:
        page.close()
    assert out == [json.loads(line)["batch"][0] for line in lines]


def test_javascript_client_names_a_value_json_cannot_hold_past_nulls_and_to_json(tmp_path: Path) -> None:
    """The field JSON cannot hold is found past a null field (it threw TypeError reading null's
    toJSON) and not inside an object JSON writes by its toJSON (that object's own fields are not
    sent); a value whose toJSON gives one JSON cannot hold, and a record that is NaN itself, are
    the record's, no field named. No request is sent."""
    out = _node(tmp_path, """
globalThis.fetch = () => { throw new Error("fetch was called"); };
const records = [{ note: null, when: { toJSON: () => "today", hidden: NaN }, ...record, seats: NaN },
                 { ...record, seats: { toJSON: () => NaN } }, NaN];
console.log(JSON.stringify(await new Naipes("http://127.0.0.1:9").validateHands(records)));
""")
    assert out == [{"error": {"code": "INVALID_FIELD", "field": "seats", "message": "seats: JSON cannot hold NaN"}},
                   {"error": {"code": "INVALID_FIELD", "message": "the record: JSON cannot hold NaN"}},
                   {"error": {"code": "INVALID_FIELD", "message": "the record: JSON cannot hold NaN"}}]


def test_javascript_client_words_what_its_fetch_threw(tmp_path: Path) -> None:
    """What the client's fetch throws is a NaipesError saying what: an AbortError (a fetch that
    does not give the timeout's reason, as node-fetch) DEADLINE_EXCEEDED; a failure its message and
    its cause's message (else its cause's code) in brackets, nothing more without a cause."""
    out = _node(tmp_path, """
const failures = [new DOMException("The operation was aborted.", "AbortError"),
                  new TypeError("fetch failed", { cause: Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" }) }),
                  new TypeError("fetch failed", { cause: { code: "ENOTFOUND" } }),
                  new TypeError("Failed to fetch")];
const out = [];
for (const failure of failures) {
  const naipes = new Naipes("http://naipes.test", { fetchImpl: () => Promise.reject(failure) });
  for (const call of [() => naipes.validateHand(record), () => naipes.validateHands([record])]) {
    try { await call(); out.push("no error"); } catch (e) { out.push([e instanceof NaipesError, e.code, e.message]); }
  }
}
console.log(JSON.stringify(out));
""")
    words = [["DEADLINE_EXCEEDED", "http://naipes.test: no answer within the timeout"],
             ["UNAVAILABLE", "http://naipes.test: fetch failed (connect ECONNREFUSED)"],
             ["UNAVAILABLE", "http://naipes.test: fetch failed (ENOTFOUND)"],
             ["UNAVAILABLE", "http://naipes.test: Failed to fetch"]]
    assert out == [[True, *said] for said in words for _call in range(2)]


def test_javascript_client_words_a_proxy_s_page_by_its_status_and_words(tmp_path: Path) -> None:
    """A proxy's page is HTTP_<status> with its words, each run of whitespace one space; an empty
    page its status alone; a problem JSON with a code but no detail or title is a NaipesError
    saying "request failed" (its name NaipesError, as String() shows it)."""
    def page(status: bytes, content_type: bytes, body: bytes) -> bytes:
        return b"HTTP/1.1 %s\r\nContent-Type: %s\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s" % (
            status, content_type, len(body), body)

    pages = [FakeHttp(page(b"502 Bad Gateway", b"text/html", b"<h1>Bad  \n\t Gateway</h1>\n\n<p>nginx</p>")),
             FakeHttp(page(b"504 Gateway Timeout", b"text/html", b"")),
             FakeHttp(page(b"500 Internal Server Error", b"application/problem+json", b'{"code": "INTERNAL", "status": 500}'))]
    try:
        out = _node(tmp_path, f"""
const out = [];
for (const url of {json.dumps([fake.url for fake in pages])}) {{
  try {{ await new Naipes(url).validateHand(record); out.push("no error"); }}
  catch (e) {{ out.push([e.code, e.status ?? null, String(e)]); }}
}}
console.log(JSON.stringify(out));
""")
    finally:
        for fake in pages:
            fake.close()
    assert out == [["HTTP_502", 502, "NaipesError: HTTP 502 Bad Gateway: <h1>Bad Gateway</h1> <p>nginx</p>"],
                   ["HTTP_504", 504, "NaipesError: HTTP 504 Gateway Timeout"],
                   ["INTERNAL", 500, "NaipesError: request failed"]]


def test_python_clients_answer_a_record_json_cannot_hold_in_its_place(clients) -> None:
    """A record with NaN, an infinity or a set is INVALID_FIELD naming the field and saying what
    JSON cannot hold in JSON's words (NaN, Infinity, -Infinity), in its place, and its batch's
    other records are validated (over REST, NaN made the whole batch MALFORMED_JSON and a set
    aborted the archive with TypeError)."""
    unwritable = [(dict(RECORD, seats=float("nan")), "seats", "NaN"),
                  (dict(RECORD, deal=dict(RECORD["deal"], hands={"12e 7o 3b"})), "deal.hands", "a set"),
                  (dict(RECORD, dealer=float("inf")), "dealer", "Infinity"),
                  (dict(RECORD, actions=[*RECORD["actions"][:2], -float("inf")]), "actions[2]", "-Infinity")]
    archive = [record for bad, _field, _what in unwritable for record in (RECORD, bad)] + [RECORD]
    for client in clients:
        answers = list(client.validate_hands(iter(archive), batch=500))
        assert answers[0::2] == [{"result": api.validate(RECORD)}] * 5, type(client).__name__
        assert answers[1::2] == [{"error": {"code": "INVALID_FIELD", "field": field, "message": f"{field}: JSON cannot hold {what}"}}
                                 for _bad, field, what in unwritable], type(client).__name__


def test_python_clients_name_the_field_json_cannot_hold_past_a_shared_value(clients) -> None:
    """A value the record holds twice (``[entry] * 2``) is no cycle: the field named is the one
    JSON cannot hold, here the NaN of actions[3]. The REST client named the second reference
    (``table.cartulina[1]: JSON cannot hold a reference to itself``); a real cycle is still one."""
    tresillo = json.loads((ROOT / "clients" / "examples" / "tresillo-hand.json").read_text())
    shared = dict(tresillo, table=dict(tresillo["table"], cartulina=[{"seat": 0, "amount": 60}] * 2),
                  actions=[*tresillo["actions"][:3], float("nan")])
    cyclic = dict(RECORD, table={"score": [5, 4]})
    cyclic["table"]["score"].append(cyclic["table"]["score"])
    for client in clients:
        answers = list(client.validate_hands(iter([RECORD, shared, RECORD]), batch=500))
        assert answers[0::2] == [{"result": api.validate(RECORD)}] * 2, type(client).__name__
        assert (answers[1]["error"]["code"], answers[1]["error"]["field"]) == ("INVALID_FIELD", "actions[3]"), type(client).__name__
    rest = clients[0]
    assert list(rest.validate_hands([cyclic])) == [{"error": {
        "code": "INVALID_FIELD", "field": "table.score[2]", "message": "table.score[2]: JSON cannot hold a reference to itself"}}]


def test_python_clients_agree_on_a_key_json_cannot_hold(clients) -> None:
    """A NaN as a key (``rules={nan: 1}``) is INVALID_FIELD naming ``rules`` in the same words from
    both clients, for a stream's record and for a call (REST said "the record: JSON cannot hold Out
    of range float values are not JSON compliant", gRPC "rules: bad argument type for built-in
    operation")."""
    record = dict(RECORD, rules={float("nan"): 1})
    want = {"code": "INVALID_FIELD", "field": "rules", "message": "rules: JSON cannot hold a key nan"}
    for client in clients:
        assert list(client.validate_hands([RECORD, record])) == [{"result": api.validate(RECORD)}, {"error": want}], type(client).__name__
        with pytest.raises(NaipesError) as raised:
            client.validate_hand(record)
        assert (raised.value.code, raised.value.field, raised.value.message) == (want["code"], want["field"], want["message"]), type(client).__name__


def test_python_clients_agree_on_keys_json_writes_as_strings(clients) -> None:
    """Keys JSON writes as strings (``1``, ``None``, ``True``: "1", "null", "true") are sent as
    JSON writes them by both clients, and what the service answers of them is the same error from
    both, for a stream's record and for a call: the gRPC client raised TypeError ("str object
    expected; got int") for such a key of a message, and said "rules: bad argument type for
    built-in operation" (INVALID_FIELD) for one of the rules."""
    cases = [({**RECORD, 1: 2}, "INVALID_FIELD", "1"), (dict(RECORD, rules={1: 2}), "UNKNOWN_OPTION", "rules.1"),
             (dict(RECORD, rules={None: 2}), "UNKNOWN_OPTION", "rules.null"), (dict(RECORD, table={True: 1}), "INVALID_FIELD", "table.true")]
    answers = []
    for client in clients:
        name = type(client).__name__
        stream = list(client.validate_hands([RECORD, *(record for record, _code, _field in cases)]))
        assert stream[0] == {"result": api.validate(RECORD)}, name
        assert [(a["error"]["code"], a["error"]["field"]) for a in stream[1:]] == [(code, field) for _r, code, field in cases], name
        for (record, _code, _field), entry in zip(cases, stream[1:], strict=True):
            with pytest.raises(NaipesError) as raised:
                client.validate_hand(record)
            assert {"code": raised.value.code, "field": raised.value.field, "message": raised.value.message} == entry["error"], name
        answers.append(stream)
    assert answers[0] == answers[1]  # the same words


def test_python_clients_answer_a_cycle_and_a_key_json_cannot_hold_in_their_place(clients) -> None:
    """A record holding itself, a record with a key JSON cannot hold (a tuple) and a record that
    is itself what JSON cannot hold (a set) are each INVALID_FIELD in the same words from both
    clients, in their place in a stream (the records around them validated) and raised by a call.
    The gRPC client's stream measured each record's JSON to fill its messages, which raised on the
    first two, and grpcio ended the whole stream with UNKNOWN ("Exception iterating requests!");
    its call raised TypeError for a tuple key at the top, and it called a set "the request"."""
    cyclic = dict(RECORD, table={"score": [5, 4]})
    cyclic["table"]["score"].append(cyclic["table"]["score"])
    cases = [
        (cyclic, {"code": "INVALID_FIELD", "field": "table.score[2]", "message": "table.score[2]: JSON cannot hold a reference to itself"}),
        (dict(RECORD, rules={(1, 2): 3}), {"code": "INVALID_FIELD", "field": "rules", "message": "rules: JSON cannot hold a key (1, 2)"}),
        ({**RECORD, (1, 2): 3}, {"code": "INVALID_FIELD", "message": "the record: JSON cannot hold a key (1, 2)"}),
        ({1, 2}, {"code": "INVALID_FIELD", "message": "the record: JSON cannot hold a set"}),
    ]
    valid = {"result": api.validate(RECORD)}
    for client in clients:
        name = type(client).__name__
        for batch in (1, 50):
            archive = [RECORD, *(record for record, _error in cases), RECORD]
            assert list(client.validate_hands(archive, batch=batch)) == [valid, *({"error": e} for _r, e in cases), valid], (name, batch)
        for record, error in cases:
            with pytest.raises(NaipesError) as raised:
                client.validate_hand(record)
            assert (raised.value.code, raised.value.field, raised.value.message) == (error["code"], error.get("field"), error["message"]), name


def test_javascript_client_answers_a_record_json_cannot_hold_in_its_place(rest_url: str, tmp_path: Path) -> None:
    """NaN and the infinities (which JSON.stringify writes as null) and a BigInt (on which it
    throws) are INVALID_FIELD naming the field and what it is, in the record's place; the others
    are validated."""
    out = _node(tmp_path, f"""
const naipes = new Naipes({json.dumps(rest_url)});
console.log(JSON.stringify(await naipes.validateHands([record, {{...record, seats: NaN}}, record, {{...record, table: {{score: [1n, 0]}}}}, record,
                                                        {{...record, dealer: Infinity}}, record, {{...record, actions: [-Infinity]}}, record])));
""")
    assert out[0::2] == [{"result": api.validate(RECORD)}] * 5
    assert out[1::2] == [{"error": {"code": "INVALID_FIELD", "field": field, "message": f"{field}: JSON cannot hold {what}"}} for field, what in (
        ("seats", "NaN"), ("table.score[0]", "the BigInt 1n"), ("dealer", "Infinity"), ("actions[0]", "-Infinity"))]


def test_javascript_client_keeps_each_line_under_the_limit_in_bytes(rest_url: str, tmp_path: Path) -> None:
    """A line is at most 1 MiB of UTF-8, not of characters: sixty records of "€" (three bytes
    each, about 87 KB a record) go in lines of at most BATCH_BYTES bytes and each gets its result.
    naipes.mjs counted a line's characters (JavaScript's UTF-16 units), sent lines of 2.2 MB, and
    every record was answered PAYLOAD_TOO_LARGE."""
    wide = dict(RECORD, actions=["0 " + "€" * 28] * 1000)
    out = _node(tmp_path, f"""
const lines = [];  // each line's length in bytes
const recording = (url, init) => {{
  lines.push(...init.body.split("\\n").filter((line) => line).map((line) => new TextEncoder().encode(line).length));
  return fetch(url, init);
}};
const naipes = new Naipes({json.dumps(rest_url)}, {{ fetchImpl: recording }});
console.log(JSON.stringify({{ hands: await naipes.validateHands(Array(60).fill({json.dumps(wide)})), lines }}));
""")
    assert out["hands"] == [{"result": api.validate(wide)}] * 60
    assert max(out["lines"]) < 1 << 20 and len(out["lines"]) < 12, out["lines"]  # under the limit, and not a record a line


def test_javascript_client_sends_an_archive_in_lines_of_50_filled_to_the_byte(rest_url: str, tmp_path: Path) -> None:
    """Without ``batch``, validateHands sends 50 records a line (as the Python clients do); a line
    takes records up to BATCH_BYTES of JSON, that size included, a record one byte larger going
    in a line of its own; an archive whose every record JSON cannot hold is answered without a
    request."""
    cheap = [{"game": "mus", "seats": 4, "dealer": n % 4} for n in range(120)]  # (answered UNKNOWN_GAME)
    out = _node(tmp_path, f"""
const lines = [];  // the records of each line sent
const recording = (url, init) => {{
  lines.push(init.body.split("\\n").filter((line) => line).map((line) => JSON.parse(line).batch.length));
  return fetch(url, init);
}};
const naipes = new Naipes({json.dumps(rest_url)}, {{ fetchImpl: recording }});
const sized = (length) => {{  // a record whose JSON is exactly `length` bytes
  const sized = {{ ...record, actions: ["0 "] }};
  sized.actions = ["0 " + "x".repeat(length - JSON.stringify(sized).length)];
  return sized;
}};
const half = sized({768 * 1024 // 2}), more = sized({768 * 1024 // 2 + 1});
const out = {{ cheap: await naipes.validateHands({json.dumps(cheap)}) }};
out.sized = (await naipes.validateHands([half, half, more, half, half, half])).map((answer) => answer.result.valid);
out.unwritable = await naipes.validateHands([{{ ...record, seats: NaN }}]);
out.lines = lines;
console.log(JSON.stringify(out));
""")
    assert [answer["error"]["code"] for answer in out["cheap"]] == ["UNKNOWN_GAME"] * 120
    assert out["sized"] == [False] * 6  # (each read, and refused at its action: a result)
    assert out["unwritable"] == [{"error": {"code": "INVALID_FIELD", "field": "seats", "message": "seats: JSON cannot hold NaN"}}]
    assert out["lines"] == [[50, 50, 20], [2, 1, 2, 1]]  # (and no request for the third call)


def test_javascript_client_sends_an_archive_2000_records_a_request(rest_url: str, tmp_path: Path) -> None:
    """validateHands sends 2,000 records a request at most (REQUEST_RECORDS, the Python
    RestClient's REST_CHUNK): 2,001 records are two requests, the second of one record, every
    record answered in order. (One request for a whole archive gathered all its answers in one
    string, past V8's bound on a string's length for some 160,000 Revesino results.)"""
    import naipes_client

    archive = [{"game": "mus", "seats": 4, "dealer": n % 4} for n in range(2001)]  # (answered UNKNOWN_GAME)
    out = _node(tmp_path, f"""
const requests = [];  // the records of each line of each request
const recording = (url, init) => {{
  requests.push(init.body.split("\\n").filter((line) => line).map((line) => JSON.parse(line).batch.length));
  return fetch(url, init);
}};
const naipes = new Naipes({json.dumps(rest_url)}, {{ fetchImpl: recording }});
const answers = await naipes.validateHands({json.dumps(archive)});
console.log(JSON.stringify({{ dealers: answers.map((answer) => answer.error.code), requests }}));
""")
    assert out["dealers"] == ["UNKNOWN_GAME"] * 2001
    assert out["requests"] == [[50] * 40, [1]]
    source = (ROOT / "clients" / "js" / "naipes.mjs").read_text()
    limit = re.search(r"const REQUEST_RECORDS = (\d+);", source)
    assert limit and int(limit[1]) == naipes_client.REST_CHUNK


def test_javascript_client_answers_a_live_feed_as_it_comes(rest_url: str, tmp_path: Path) -> None:
    """validateHandsStream takes an async iterable and sends what has come once it pauses
    (FLUSH_MS, the Python clients' FLUSH_SECONDS): a feed that gives its next record only once the
    one before is answered (a table's next hand) is answered record by record, each its own
    request. A client that waited for a full request, or for the feed's end, would wait for ever
    (the script's timeout fails the test)."""
    import naipes_client

    out = _node(tmp_path, f"""
const requests = [];  // the records of each request
const recording = (url, init) => {{ requests.push(init.body.split("\\n").filter((line) => line).length); return fetch(url, init); }};
const naipes = new Naipes({json.dumps(rest_url)}, {{ fetchImpl: recording }});
let answered = () => {{}};
async function* table(hands) {{  // the next hand once the one before is answered
  for (let hand = 1; hand <= hands; hand++) {{
    yield {{ ...record, actions: record.actions.slice(0, hand) }};
    await new Promise((resolve) => {{ answered = resolve; }});
  }}
}}
const answers = [];
for await (const answer of naipes.validateHandsStream(table(5))) {{
  answers.push(answer);
  answered();
}}
console.log(JSON.stringify({{ answers, requests }}));
""", timeout=60)
    assert out == {"answers": [{"result": api.validate(dict(RECORD, actions=RECORD["actions"][:n]))} for n in range(1, 6)],
                   "requests": [1] * 5}
    source = (ROOT / "clients" / "js" / "naipes.mjs").read_text()
    flush = re.search(r"const FLUSH_MS = (\d+);", source)
    assert flush and int(flush[1]) / 1000 == naipes_client.FLUSH_SECONDS


def test_javascript_client_streams_an_archive_one_request_at_a_time(rest_url: str, tmp_path: Path) -> None:
    """validateHandsStream over an async generator of 4,500 records: every record answered in
    order, in requests of 2,000, 2,000 and 500 records (lines of 50), and the generator read at most
    one request ahead of the answers taken (one stream answered, the next gathered): an archive's
    records and answers are never all held (validateHands gathered every record first)."""
    out = _node(tmp_path, f"""
const requests = [];  // the records of each line of each request
const recording = (url, init) => {{
  requests.push(init.body.split("\\n").filter((line) => line).map((line) => JSON.parse(line).batch.length));
  return fetch(url, init);
}};
let given = 0, taken = 0, ahead = 0;
async function* archive() {{
  for (let n = 0; n < 4500; n++) {{ given++; yield {{ game: `mus${{n}}`, seats: 4, dealer: 0 }}; }}
}}
const names = [];
for await (const answer of new Naipes({json.dumps(rest_url)}, {{ fetchImpl: recording }}).validateHandsStream(archive())) {{
  taken++;
  ahead = Math.max(ahead, given - taken);
  names.push(answer.error.message.match(/'(mus\\d+)'/)[1]);
}}
console.log(JSON.stringify({{ names, requests, ahead }}));
""", timeout=120)
    assert out["names"] == [f"mus{n}" for n in range(4500)]
    assert out["requests"] == [[50] * 40, [50] * 40, [50] * 10]
    assert 2000 <= out["ahead"] <= 4000, out["ahead"]


def test_javascript_client_stream_left_early_closes_the_feed(rest_url: str, tmp_path: Path) -> None:
    """Leaving validateHandsStream's loop early (break) closes the caller's iterable (an endless
    feed's `finally` runs, its records read no further than the two requests gathered) and cancels
    the stream in flight; the script ends (nothing left waiting) and the client and the server go
    on answering."""
    out = _node(tmp_path, f"""
const naipes = new Naipes({json.dumps(rest_url)});
let given = 0, closed = false;
async function* endless() {{
  try {{ for (;;) {{ given++; yield record; }} }} finally {{ closed = true; }}
}}
const valid = [];
for await (const answer of naipes.validateHandsStream(endless())) {{
  valid.push(answer.result.valid);
  if (valid.length === 3) break;
}}
await new Promise((resolve) => setTimeout(resolve, 100));
const after = await naipes.validateHands([record, record]);
console.log(JSON.stringify({{ valid, closed, given, after: after.map((answer) => answer.result.valid) }}));
""", timeout=60)
    assert out["valid"] == [True] * 3 and out["closed"] is True and out["after"] == [True, True]
    assert 2000 <= out["given"] <= 4001, out["given"]


def test_javascript_client_throws_the_feeds_error_after_its_answers(rest_url: str, tmp_path: Path) -> None:
    """An error the caller's iterable throws (an async generator's, a generator's) is thrown by
    validateHandsStream and validateHands as it was thrown (not a NaipesError), after the answers
    of the records before it; records that are not an iterable are INVALID_FIELD naming records."""
    out = _node(tmp_path, f"""
const naipes = new Naipes({json.dumps(rest_url)});
async function* broken() {{ yield record; yield record; yield record; throw new RangeError("the feed broke"); }}
function* brokenNow() {{ yield record; throw new RangeError("the list broke"); }}
const out = [];
for (const feed of [broken, brokenNow]) {{
  const answers = [];
  try {{ for await (const answer of naipes.validateHandsStream(feed())) answers.push(answer.result.valid); answers.push("no error"); }}
  catch (e) {{ answers.push([e.name, e.message]); }}
  out.push(answers);
  try {{ await naipes.validateHands(feed()); out.push("no error"); }} catch (e) {{ out.push([e.name, e.message]); }}
}}
for (const records of [5, null, JSON.stringify(record)]) {{
  try {{ await naipes.validateHands(records); out.push("no error"); }}
  catch (e) {{ out.push([e.code, e.field, e.message]); }}
}}
console.log(JSON.stringify(out));
""", timeout=60)
    assert out[:4] == [[True, True, True, ["RangeError", "the feed broke"]], ["RangeError", "the feed broke"],
                       [True, ["RangeError", "the list broke"]], ["RangeError", "the list broke"]]
    expected = "records: expected an array, an iterable or an async iterable of records, not "
    text = json.dumps(RECORD, separators=(",", ":"))  # (JSON.stringify's; no quote or backslash to escape)
    assert out[4:] == [["INVALID_FIELD", "records", expected + "5"], ["INVALID_FIELD", "records", expected + "null"],
                       ["INVALID_FIELD", "records", f"{expected}'{text[:60]}'... ({len(text):,} characters)"]]


def test_javascript_client_stream_waits_for_its_caller(rest_url: str, tmp_path: Path) -> None:
    """validateHandsStream's timeoutMs bounds the server's silence, not the caller's: a caller that
    holds each answer 1.5 s, with timeoutMs 1000, has every answer (the clock runs while the client
    waits for the server only; a stream first, so that the server's pool is up)."""
    out = _node(tmp_path, f"""
await new Naipes({json.dumps(rest_url)}).validateHands([record]);
const valid = [];
for await (const answer of new Naipes({json.dumps(rest_url)}, {{ timeoutMs: 1000 }}).validateHandsStream([record, record, record], {{ batch: 1 }})) {{
  valid.push(answer.result.valid);
  await new Promise((resolve) => setTimeout(resolve, 1500));
}}
console.log(JSON.stringify(valid));
""", timeout=60)
    assert out == [True] * 3


def test_javascript_client_gives_each_answer_as_its_line_comes(tmp_path: Path) -> None:
    """validateHandsStream gives a stream's answers as their lines come, not once the stream has
    ended: a server that sends its first line, then its second only once the client has shown it
    has the first (a request to /seen), is answered in that order. (A client that waited for the
    stream's end would let it wait out its 20 s, and ``seen_first`` would be False.)"""
    result = json.dumps({"result": api.validate(RECORD)}).encode()
    line = b'{"batch": [%s]}\n' % result
    seen = threading.Event()
    order: list[bool] = []

    def handle(conn: socket.socket) -> None:
        def serve() -> None:
            with conn:
                head = conn.recv(65536)
                if head.startswith(b"GET /seen"):
                    seen.set()
                    conn.sendall(b"HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n")
                    return
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/x-ndjson\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s"
                             % (2 * len(line), line))
                order.append(seen.wait(20))
                conn.sendall(line)
        threading.Thread(target=serve, daemon=True).start()

    server = Listener(handle)
    server.start()
    url = f"http://127.0.0.1:{server.port}"
    try:
        out = _node(tmp_path, f"""
const valid = [];
for await (const answer of new Naipes({json.dumps(url)}, {{ timeoutMs: 30000 }}).validateHandsStream([record, record], {{ batch: 1 }})) {{
  valid.push(answer.result.valid);
  if (valid.length === 1) await fetch({json.dumps(url + "/seen")});
}}
console.log(JSON.stringify(valid));
""", timeout=60)
    finally:
        server.close()
    assert out == [True, True]
    assert order == [True]  # (the second line went once the client had the first)


def test_javascript_client_batches_as_the_python_clients() -> None:
    """naipes.mjs's defaults are the Python client's: 50 records a line, 30 retries of a refused
    stream (the README's "30 times at most" is said of both), lines of at most 768 KiB of records."""
    import naipes_client

    source = (ROOT / "clients" / "js" / "naipes.mjs").read_text()
    defaults = re.search(r"\{ batch = (\d+), retries = (\d+),", source)
    batch_bytes = re.search(r"const BATCH_BYTES = (\d+) \* (\d+);", source)
    assert defaults and batch_bytes
    assert (int(defaults[1]), int(defaults[2])) == (naipes_client.BATCH, naipes_client.STREAM_RETRIES)
    assert int(batch_bytes[1]) * int(batch_bytes[2]) == naipes_client.BATCH_BYTES


def test_javascript_client_takes_a_base_url_ending_in_a_slash_and_any_game_name(rest_url: str, tmp_path: Path) -> None:
    """A base URL given with a trailing slash calls the same routes (its slashes, one or more,
    dropped), none given is http://127.0.0.1:8080, and a game
    name is sent as one segment of the path: a name with "/", "?" or "#" is the service's
    UNKNOWN_GAME naming it, not another route or a query; the Python REST client's too. So are
    "." and "..", which fetch cannot send as a segment (they were NOT_FOUND: no route /v1/rules)."""
    games = ["a/b", "x?y=1", "#z", ".", ".."]  # (fetch's URL parser drops "." and "..": refused before sending)
    out = _node(tmp_path, f"""
const naipes = new Naipes({json.dumps(rest_url + "/")});
const out = [new Naipes().baseUrl, new Naipes({json.dumps(rest_url + "//")}).baseUrl, await naipes.validateHand(record)];
for (const game of {json.dumps(games)}) {{
  try {{ await naipes.describeRules(game); out.push("no error"); }} catch (e) {{ out.push([e.code, e.field, e.message]); }}
}}
console.log(JSON.stringify(out));
""")
    want = [[error.code, error.field, error.message] for error in (engine_error("DescribeRules", {"game": game}) for game in games)]
    assert out == ["http://127.0.0.1:8080", rest_url, api.validate(RECORD), *want]
    with RestClient(rest_url + "/") as rest:
        assert rest.validate_hand(RECORD) == api.validate(RECORD)
        for game, (code, field, message) in zip(games, want, strict=True):
            with pytest.raises(NaipesError) as raised:
                rest.describe_rules(game)
            assert (raised.value.code, raised.value.field, raised.value.message) == (code, field, message)


def test_javascript_client_names_the_field_json_cannot_hold_past_a_shared_value(rest_url: str, tmp_path: Path) -> None:
    """A value the record holds twice (``[entry, entry]``) is no cycle: the field named is the one
    JSON cannot hold, here the NaN of actions[3], for a stream's record and for a call, as the
    Python clients name it. naipes.mjs named the second reference (``table.cartulina[1]: JSON
    cannot hold a reference to itself``); a real cycle is still one."""
    tresillo = json.loads((ROOT / "clients" / "examples" / "tresillo-hand.json").read_text())
    out = _node(tmp_path, f"""
const naipes = new Naipes({json.dumps(rest_url)});
const tresillo = {json.dumps(tresillo)};
const entry = {{ seat: 0, amount: 60 }};
const shared = {{ ...tresillo, table: {{ ...tresillo.table, cartulina: [entry, entry] }}, actions: [...tresillo.actions.slice(0, 3), NaN] }};
const cyclic = {{ ...record, table: {{ score: [5, 4] }} }};
cyclic.table.score.push(cyclic.table.score);
const out = {{ hands: await naipes.validateHands([record, shared, record, cyclic]) }};
try {{ await naipes.validateHand(shared); out.call = "no error"; }}
catch (e) {{ out.call = {{ isNaipesError: e instanceof NaipesError, code: e.code, field: e.field, message: e.message }}; }}
console.log(JSON.stringify(out));
""")
    nan = {"code": "INVALID_FIELD", "field": "actions[3]", "message": "actions[3]: JSON cannot hold NaN"}
    cycle = {"code": "INVALID_FIELD", "field": "table.score[2]", "message": "table.score[2]: JSON cannot hold a reference to itself"}
    assert out["hands"] == [{"result": api.validate(RECORD)}, {"error": nan}, {"result": api.validate(RECORD)}, {"error": cycle}]
    assert out["call"] == {"isNaipesError": True, **nan}


STUB_MISUSE = """
import grpc
from naipes.v1 import naipes_pb2, naipes_pb2_grpc

stub = naipes_pb2_grpc.NaipesServiceStub(grpc.insecure_channel("127.0.0.1:1"))
reveal_type(stub.ValidateHand)
answer: naipes_pb2.ValidateHandResponse = stub.ValidateHand(naipes_pb2.ValidateHandRequest(), timeout=1)
stub.ValidateHand(naipes_pb2.DealRequest())
deal: naipes_pb2.DealResponse = stub.ValidateHand(naipes_pb2.ValidateHandRequest())
"""


def test_the_generated_stub_is_typed(tmp_path: Path) -> None:
    """The generated package carries the stub's types (naipes_pb2_grpc.pyi, mypy-protobuf's, by
    tools/protogen.py): mypy --strict sees each method's request and response messages, and
    refuses a wrong request and a wrong use of the answer."""
    stub = Path(naipes_pb2_grpc.__file__).with_suffix(".pyi")
    assert "class NaipesServiceStub" in stub.read_text()
    (tmp_path / "misuse.py").write_text(STUB_MISUSE)
    checked = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-error-summary", "--cache-dir", str(tmp_path / "cache"),
                              "misuse.py"], cwd=tmp_path, capture_output=True, text=True,
                             env={"MYPYPATH": str(stub.parents[2]), "PATH": "/usr/bin:/bin"})
    # (protoc's .pyi of the messages has bare Mappings, which --strict reports there: pyproject.toml's [tool.mypy])
    assert "naipes_pb2_grpc.pyi" not in checked.stdout, checked.stdout
    lines = [line for line in checked.stdout.splitlines() if line.startswith("misuse.py:")]
    assert [line.split(": ", 1)[1] for line in lines if line.startswith("misuse.py:6:")] == [
        'note: Revealed type is "grpc.UnaryUnaryMultiCallable[naipes.v1.naipes_pb2.ValidateHandRequest, '
        'naipes.v1.naipes_pb2.ValidateHandResponse]"'], checked.stdout + checked.stderr
    errors = [line for line in lines if ": error: " in line]
    assert len(errors) == 2 and errors[0].startswith("misuse.py:8:") and "[arg-type]" in errors[0] and '"DealRequest"' in errors[0], checked.stdout
    assert errors[1].startswith("misuse.py:9:") and "[assignment]" in errors[1], checked.stdout


def _connections_to(port: int) -> int:
    """This process's established TCP connections to ``port`` (its sockets in /proc/net/tcp*)."""
    sockets = set()
    for fd in os.listdir("/proc/self/fd"):
        try:
            link = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:  # (closed meanwhile)
            continue
        if link.startswith("socket:["):
            sockets.add(link[len("socket:["):-1])
    found = 0
    for table in ("/proc/self/net/tcp", "/proc/self/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            remote, state, inode = fields[2], fields[3], fields[9]
            found += state == "01" and int(remote.rsplit(":", 1)[1], 16) == port and inode in sockets
    return found


def _settled(port: int, expected: int) -> int:
    """The connections to ``port`` once they are ``expected`` (a closed channel's go a moment later), or after 5 s."""
    deadline = time.monotonic() + 5
    while (now := _connections_to(port)) != expected and time.monotonic() < deadline:
        time.sleep(0.05)
    return now


def test_grpc_client_takes_its_connections_in_turn(grpc_target: str) -> None:
    """GrpcClient(connections=N) opens N connections of its own and its calls take them in turn (a
    channel connects at its first call: three calls on three connections); two clients of one
    process have a connection each, where grpcio's channels would share one (the processes of
    ``naipes serve --workers N`` are given connections, not calls)."""
    port = int(grpc_target.rsplit(":", 1)[1])
    before = _connections_to(port)
    rules = None
    with GrpcClient(grpc_target, connections=3) as client:
        for _ in range(3):
            answer = client.describe_rules("rentoy")
            assert rules is None or answer == rules
            rules = answer
        assert _connections_to(port) - before == 3
    assert _settled(port, before) == before
    with GrpcClient(grpc_target) as one, GrpcClient(grpc_target) as other:
        assert one.describe_rules("rentoy") == other.describe_rules("rentoy") == rules
        assert _connections_to(port) - before == 2
    assert _settled(port, before) == before
    with pytest.raises(ValueError, match="connections must be at least 1, not 0"):
        GrpcClient(grpc_target, connections=0)


def test_grpc_client_takes_the_replicas_of_a_name_in_turn() -> None:
    """A target of several addresses (as a headless Kubernetes Service's DNS name resolves) is a
    replica each: the client connects to every one and its calls take them in turn, where grpcio's
    default (pick_first) would send every call to the first."""
    from service.grpc_server import create_server

    servers = [create_server("127.0.0.1", 0, max_workers=2) for _ in range(2)]
    try:
        for server, _port in servers:
            server.start()
        ports = [port for _server, port in servers]
        with GrpcClient("ipv4:" + ",".join(f"127.0.0.1:{port}" for port in ports), connections=1) as client:
            answers = [client.describe_rules("revesino") for _ in range(4)]
            assert answers == [answers[0]] * 4 and answers[0]["game"] == "revesino"
            assert [_connections_to(port) for port in ports] == [1, 1]
    finally:
        for server, _port in servers:
            server.stop(None)


BAD_BATCHES = [0, -1, 1001, 2.5, True, "50", None]


def test_python_clients_refuse_a_batch_the_service_would_not_take(clients) -> None:
    """``validate_hands``' ``batch`` is a number of records from 1 to 1000 (the service's limit on
    a batch); any other is INVALID_FIELD naming ``batch``, before anything is sent (a batch of 0
    was taken silently as no limit but the bytes, and one over 1000 had every record refused by
    the service). 1 and 1000 are taken."""
    shown = ["0", "-1", "1001", "2.5", "true", "'50'", "null"]  # (as JSON writes them, a string as the service quotes it)
    for client in clients:
        for bad, text in zip(BAD_BATCHES, shown, strict=True):
            with pytest.raises(NaipesError) as err:
                next(iter(client.validate_hands([RECORD] * 2, batch=bad)))  # type: ignore[arg-type]
            assert (err.value.code, err.value.field, err.value.message) == (
                "INVALID_FIELD", "batch", f"batch: expected a number of records from 1 to 1000, not {text}")
        for good in (1, 1000):
            assert [answer["result"]["valid"] for answer in client.validate_hands([RECORD] * 3, batch=good)] == [True] * 3


def test_javascript_client_refuses_a_batch_the_service_would_not_take(tmp_path: Path) -> None:
    """naipes.mjs's ``validateHands`` takes a ``batch`` from 1 to 1000 (sent: its fetch is called)
    and refuses any other before sending (fetch is not called), a NaipesError INVALID_FIELD naming
    ``batch``."""
    out = _node(tmp_path, f"""
globalThis.fetch = () => {{ throw new Error("fetch was called"); }};
const client = new Naipes("http://127.0.0.1:9");
const out = [];
for (const batch of {json.dumps([*BAD_BATCHES, 1, 1000])}) {{
  try {{ await client.validateHands([record], {{ batch }}); out.push(null); }}
  catch (e) {{ out.push([e instanceof NaipesError, e.code, e.field ?? null, e.message]); }}
}}
console.log(JSON.stringify(out));
""")
    shown = ["0", "-1", "1001", "2.5", "true", "50", "null"]
    assert out[:-2] == [[True, "INVALID_FIELD", "batch", f"batch: expected a number of records from 1 to 1000, not {text}"] for text in shown]
    assert out[-2:] == [[True, "UNAVAILABLE", None, "http://127.0.0.1:9: fetch was called"]] * 2


def test_python_clients_word_a_boolean_and_none_as_the_javascript_client(clients, tmp_path: Path) -> None:
    """A seat, a batch or the records given as a boolean or None are worded as JSON writes them
    (true, false, null), as the JavaScript client and the service word them: the Python clients
    said True, False and None (a seat True went as the query's "True", which the service quoted
    back as 'True', where the JavaScript client's seat true is 'true')."""
    js = _node(tmp_path, """
globalThis.fetch = () => { throw new Error("fetch was called"); };
const naipes = new Naipes("http://127.0.0.1:9");
const said = async (promise) => { try { await promise; return "answered"; } catch (error) { return error.message; } };
console.log(JSON.stringify([
  await said(naipes.legalActions(record, true)), await said(naipes.legalActions(record, false)),
  await said(naipes.validateHands([record], { batch: true })), await said(naipes.validateHands([record], { batch: null })),
]));
""")
    batch = "batch: expected a number of records from 1 to 1000, not "
    assert js == ["seat: expected an integer, not 'true'", "seat: expected an integer, not 'false'", batch + "true", batch + "null"]
    for client in clients:
        python = []
        for call in (lambda c=client: c.legal_actions(RECORD, True), lambda c=client: c.legal_actions(RECORD, False),
                     lambda c=client: next(c.validate_hands([RECORD], batch=True)),
                     lambda c=client: next(c.validate_hands([RECORD], batch=None))):  # type: ignore[arg-type]
            with pytest.raises(NaipesError) as raised:
                call()
            python.append(raised.value.message)
        assert python == js, type(client).__name__
        with pytest.raises(NaipesError) as refused:
            list(client.validate_hands(None))  # type: ignore[arg-type]
        assert refused.value.message == "records: expected an iterable of records (a list, a generator), not null"


def test_python_clients_send_a_request_id(clients, monkeypatch: pytest.MonkeyPatch) -> None:
    """A call's ``request_id`` reaches the server (the in-process servers' reading of it,
    ``service.access.checked``, sees it: REST's header, gRPC's metadata), a stream's too; none is
    sent without one; one the service would refuse is refused before sending, as the service words it."""
    from service import access

    seen: list[str] = []
    checked = access.checked
    monkeypatch.setattr(access, "checked", lambda value: checked(seen.append(value) or value))
    for name, client in zip(("rest", "grpc"), clients, strict=True):
        assert client.validate_hand(RECORD, request_id=f"{name}-1") == api.validate(RECORD)
        assert client.describe_rules("rentoy", request_id=f"{name}-2") == client.describe_rules("rentoy")
        with pytest.raises(NaipesError) as err:
            client.deal({"game": "mus", "seats": 4, "dealer": 0, "seed": "x"}, request_id=f"{name}-3")
        assert err.value.code == "UNKNOWN_GAME"
        assert [answer["result"]["valid"] for answer in client.validate_hands([RECORD] * 3, request_id=f"{name}-4")] == [True] * 3
        for refused in ("a b", "", "x" * 129, "señor"):
            with pytest.raises(NaipesError) as err:
                client.validate_hand(RECORD, request_id=refused)
            assert (err.value.code, err.value.field) == ("INVALID_FIELD", "x-request-id")
            assert err.value.message.startswith("x-request-id: expected 1 to 128 visible ASCII characters, not ")
    assert seen == ["rest-1", "rest-2", "rest-3", "rest-4", "grpc-1", "grpc-2", "grpc-3", "grpc-4"]


# IDs the service refuses, which the clients refuse before sending.
REFUSED_IDS = ["a b", "", "x" * 129, "it's\tme\\", "señor"]
LONGEST_ID = "!~" * 64  # 128 visible ASCII characters, from the first to the last: taken


def test_javascript_client_sends_a_request_id(rest_url: str, http: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every method of naipes.mjs takes a ``requestId`` (its last argument's) and sends it as the
    request's X-Request-Id: the server reads it (``service.access.checked`` sees it) and sends it
    back on the answer, an error's too; none is sent without one; the longest it takes (128
    characters, of ``!`` and ``~``) is sent. One the service would refuse is refused before sending
    (fetch is not called), INVALID_FIELD naming x-request-id, in the words the service answers the
    same header with (a long one cut short as the service cuts it)."""
    from service import access

    seen: list[str] = []
    checked = access.checked
    monkeypatch.setattr(access, "checked", lambda value: checked(seen.append(value) or value))
    partial = dict(RECORD, actions=RECORD["actions"][:5])
    trick = {"game": "rentoy", "seats": 4, "leader": 1, "contract": {"trump": "copas"}, "cards": "12e 2e 3c 1e"}
    settle = {"game": "rentoy", "seats": 4, "table": {"score": [4, 5]}, "rentoy": {"winner": 1, "value": 3, "end": "fold"}}
    calls = [["validateHand", [RECORD, {"requestId": "js-1"}]], ["legalActions", [partial, 3, {"requestId": "js-2"}]],
             ["resolveTrick", [trick, {"requestId": "js-3"}]], ["settleHand", [settle, {"requestId": "js-4"}]],
             ["deal", [{"game": "mus", "seats": 4, "dealer": 0, "seed": "x"}, {"requestId": "js-5"}]],
             ["describeRules", ["rentoy", {"requestId": "js-6"}]], ["validateHands", [[RECORD] * 3, {"batch": 2, "requestId": "js-7"}]],
             ["validateHand", [RECORD]], ["validateHand", [RECORD, {"requestId": None}]], ["validateHand", [RECORD, {"requestId": LONGEST_ID}]],
             *(["validateHand", [RECORD, {"requestId": refused}]] for refused in [*REFUSED_IDS, 7])]
    out = _node(tmp_path, f"""
const sent = [];  // each request as fetch saw it: the ID it sent, the answer's status and the ID sent back
async function recording(url, init) {{
  const response = await fetch(url, init);
  sent.push([init.headers["X-Request-Id"] ?? null, response.status, response.headers.get("X-Request-Id")]);
  return response;
}}
const naipes = new Naipes({json.dumps(rest_url)}, {{ fetchImpl: recording }});
const out = [];
for (const [method, args] of {json.dumps(calls)}) {{
  const before = sent.length;
  try {{ out.push({{ answer: await naipes[method](...args), sent: sent.slice(before) }}); }}
  catch (e) {{ out.push({{ error: {{ isNaipesError: e instanceof NaipesError, code: e.code, field: e.field, message: e.message }},
                          sent: sent.slice(before) }}); }}
}}
console.log(JSON.stringify(out));
""")
    assert len(out) == len(calls)
    ok = [[f"js-{i}", 200, f"js-{i}"] for i in range(1, 8)]
    assert out[:4] == [{"answer": api.validate(RECORD), "sent": [ok[0]]}, {"answer": api.legal_actions(partial, 3), "sent": [ok[1]]},
                       {"answer": engine_answer("ResolveTrick", trick), "sent": [ok[2]]},
                       {"answer": engine_answer("SettleHand", settle), "sent": [ok[3]]}]
    unknown = engine_error("Deal", calls[4][1][0])
    assert out[4] == {"error": {"isNaipesError": True, "code": "UNKNOWN_GAME", "field": "game", "message": unknown.message},
                      "sent": [["js-5", 400, "js-5"]]}  # (the error's answer carries it back too)
    assert out[5] == {"answer": engine_answer("DescribeRules", {"game": "rentoy"}), "sent": [ok[5]]}
    assert out[6] == {"answer": [{"result": api.validate(RECORD)}] * 3, "sent": [ok[6]]}
    assert out[7] == out[8] == {"answer": api.validate(RECORD), "sent": [[None, 200, None]]}
    assert out[9] == {"answer": api.validate(RECORD), "sent": [[LONGEST_ID, 200, LONGEST_ID]]}
    for refused, answer in zip([*REFUSED_IDS, 7], out[10:], strict=True):
        if isinstance(refused, str):  # the service's words for the same header, sent as it is
            problem = http.post(f"{rest_url}/v1/hands:validate", json=RECORD, headers={"X-Request-Id": refused}, timeout=10).json()
            assert (problem["code"], problem["field"]) == ("INVALID_FIELD", "x-request-id"), problem
            message = problem["detail"]
        else:
            message = "x-request-id: expected 1 to 128 visible ASCII characters, not 7"
        assert answer == {"error": {"isNaipesError": True, "code": "INVALID_FIELD", "field": "x-request-id", "message": message},
                          "sent": []}, refused
    assert seen == [f"js-{i}" for i in range(1, 8)] + [LONGEST_ID] + REFUSED_IDS  # (the last ones sent here, by requests)


# IDs the service refuses, quoted in its words: a quote, control characters (\x00 too, \x01 two hex digits; \x7f alone, just
# past the visible ones), 60 characters (quoted whole), 61 (cut short) and 1,200 (its length with a thousands separator).
QUOTED_IDS = ["it's me", "a\nb", "\r\x7f\x9f", "\x00\x01\x1f", "\x7f", " " * 60, " " * 61, "x y" * 400, "señor"]


def _service_words(request_id: str) -> str:
    from service import access
    from service.errors import ServiceError

    with pytest.raises(ServiceError) as refused:
        access.checked(request_id)
    return refused.value.message


def test_python_clients_word_a_refused_request_id_as_the_service(clients) -> None:
    """A request ID the service would refuse is refused before sending in the service's own words
    (engine/errors.py's ``shown``: single quotes, Python's escapes, a long one cut at 60
    characters with its length), as naipes.mjs words it; the Python clients gave its repr whole
    (``"it's me"`` in double quotes, 1,200 characters of ``'x yx y...'``)."""
    for client in clients:
        for request_id in QUOTED_IDS:
            with pytest.raises(NaipesError) as err:
                client.validate_hand(RECORD, request_id=request_id)
            assert (err.value.code, err.value.field, err.value.message) == ("INVALID_FIELD", "x-request-id", _service_words(request_id))


def test_javascript_client_words_a_refused_request_id_as_the_service(tmp_path: Path) -> None:
    """naipes.mjs refuses the same IDs in the service's words: its escapes of a newline, of the
    control characters \\x7f to \\x9f, the cut at more than 60 characters and the length's
    thousands separator (only tab, quote and backslash were checked)."""
    out = _node(tmp_path, f"""
const naipes = new Naipes("http://127.0.0.1:1");
const out = [];
for (const requestId of {json.dumps(QUOTED_IDS)}) {{
  try {{ await naipes.validateHand(record, {{ requestId }}); out.push("no error"); }} catch (e) {{ out.push([e.code, e.field, e.message]); }}
}}
console.log(JSON.stringify(out));
""")
    assert out == [["INVALID_FIELD", "x-request-id", _service_words(request_id)] for request_id in QUOTED_IDS]


# ---- omit_events (omitEvents): results without their events, when asked ---------------------------


def _events_omitted(brief: dict, full: dict) -> None:
    """``brief`` is ``full`` without its events: none (the service prints the list empty, as it
    prints every result's, docs/api.md), every other field the same."""
    assert brief.get("events", []) == []
    assert {k: v for k, v in brief.items() if k != "events"} == {k: v for k, v in full.items() if k != "events"}


def _omit_archive() -> tuple[list[dict], list[dict | None]]:
    """The archive of the omit_events tests: the examples' records at three points of their hands
    (most with events), a record the service refuses and one no message holds; and what the
    engine answers each record (None for the two errors)."""
    records = _archive()
    archive = [*records[:5], {"game": "mus"}, *records[5:], dict(RECORD, seats="four")]
    full = [{"result": api.validate(r)} for r in records[:5]] + [None] + [{"result": api.validate(r)} for r in records[5:]] + [None]
    assert sum(bool(answer["result"]["events"]) for answer in full if answer) > len(records) // 2  # events to omit
    return archive, full


def test_python_clients_validate_hand_omits_events_only_when_asked(clients) -> None:
    """validate_hand(omit_events=True), over REST and gRPC: the result without its events, every
    other field as without the option (violations, tricks, points, payments, the table); without
    it (or with False) the events are there, as the engine gives them."""
    records = [r for r in _archive() if api.validate(r)["events"]]
    assert {r["game"] for r in records} == {"rentoy", "revesino", "tresillo"}
    for client in clients:
        for record in records:
            full = api.validate(record)
            assert client.validate_hand(record) == client.validate_hand(record, omit_events=False) == full, type(client).__name__
            _events_omitted(client.validate_hand(record, omit_events=True, request_id="omit-1"), full)


def test_python_clients_raise_the_same_error_with_omit_events(clients) -> None:
    for client in clients:
        for omit_events in (False, True):
            with pytest.raises(NaipesError) as err:
                client.validate_hand(dict(RECORD, game="mus"), omit_events=omit_events)
            assert (err.value.code, err.value.field) == ("UNKNOWN_GAME", "game"), type(client).__name__


def test_python_clients_validate_an_archive_without_events_only_when_asked(clients) -> None:
    """validate_hands(omit_events=True), over REST and gRPC, in batches smaller and larger than the
    archive: one answer per record, in order, each result without its events and otherwise the
    same; each error entry the same as without the option; without it, every result's events."""
    archive, full = _omit_archive()
    for client in clients:
        name = type(client).__name__
        for batch in (4, 500):
            plain = list(client.validate_hands(iter(archive), batch=batch))
            brief = list(client.validate_hands(iter(archive), batch=batch, omit_events=True))
            assert len(plain) == len(brief) == len(archive), name
            assert [a for a, f in zip(plain, full, strict=True) if f] == [f for f in full if f], name
            for got, want, without in zip(brief, full, plain, strict=True):
                if want is None:
                    assert got == without and "error" in got, name  # (an error is the same with or without the option)
                else:
                    assert list(got) == ["result"], name
                    _events_omitted(got["result"], want["result"])


def test_python_clients_send_omit_events_only_when_asked(rest_url: str, grpc_target: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """What the clients send: with omit_events, REST's ``?omitEvents=true`` and ``"omitEvents": true``
    on every NDJSON line, gRPC's ``omit_events`` on the request and on every message of the stream;
    without it (False, the default) no trace of the field, as before the option."""
    import urllib.request

    sent: list[tuple[str, bytes]] = []  # REST: each request's URL and body
    opened = urllib.request.OpenerDirector.open  # (a unary call's opener and urlopen's)

    def recording(opener: Any, request: Any, *args: Any, **kwargs: Any) -> Any:
        sent.append((request.full_url, request.data or b""))
        return opened(opener, request, *args, **kwargs)

    monkeypatch.setattr(urllib.request.OpenerDirector, "open", recording)
    with RestClient(rest_url) as rest:
        for omit_events in (False, True):
            sent.clear()
            rest.validate_hand(RECORD, omit_events=omit_events)
            list(rest.validate_hands([RECORD] * 5, batch=2, omit_events=omit_events))
            (url, _), (stream_url, body) = sent
            assert url == rest_url + ("/v1/hands:validate?omitEvents=true" if omit_events else "/v1/hands:validate")
            assert stream_url == rest_url + "/v1/hands:validateStream"
            lines = [json.loads(line) for line in body.splitlines()]
            assert [len(line["batch"]) for line in lines] == [2, 2, 1]
            assert [line.get("omitEvents") for line in lines] == [True if omit_events else None] * 3
            assert not any("omitEvents" in item for line in lines for item in line["batch"])
    messages: list[Any] = []  # gRPC: each request message

    def recording_stub(stub: Any) -> None:
        unary, streaming = stub.ValidateHand, stub.ValidateHands
        monkeypatch.setattr(stub, "ValidateHand", lambda request, **kwargs: unary(messages.append(request) or request, **kwargs))
        monkeypatch.setattr(stub, "ValidateHands", lambda requests, **kwargs: streaming(
            (messages.append(request) or request for request in requests), **kwargs))

    with GrpcClient(grpc_target) as grpc_client:
        for stub in grpc_client._stubs:
            recording_stub(stub)
        for omit_events in (False, True):
            messages.clear()
            grpc_client.validate_hand(RECORD, omit_events=omit_events)
            list(grpc_client.validate_hands([RECORD] * 5, batch=2, omit_events=omit_events))
            assert [type(m).__name__ for m in messages] == ["ValidateHandRequest"] + ["ValidateHandsRequest"] * 3
            assert [len(m.batch) for m in messages[1:]] == [2, 2, 1]
            assert [m.HasField("omit_events") for m in messages] == [omit_events] * 4
            assert all(m.omit_events for m in messages) is omit_events
            assert not any(item.HasField("omit_events") for m in messages[1:] for item in m.batch)


def test_javascript_client_omits_events_only_when_asked(rest_url: str, tmp_path: Path) -> None:
    """naipes.mjs: validateHand(record, { omitEvents: true }) sends ?omitEvents=true and
    validateHands(records, { omitEvents: true }) "omitEvents": true on every line; each result
    comes without its events, every other field (and every error entry) as without the option;
    without it (or false) nothing is sent and the events are there."""
    archive, full = _omit_archive()
    records = [r for r, f in zip(archive, full, strict=True) if f]  # (those validated)
    out = _node(tmp_path, f"""
const sent = [];  // each request as fetch saw it: its URL and body
const recording = (url, init) => {{ sent.push([url, init.body ?? ""]); return fetch(url, init); }};
const naipes = new Naipes({json.dumps(rest_url)}, {{ fetchImpl: recording }});
const records = {json.dumps(records)};
const archive = {json.dumps(archive)};
const out = [];
for (const options of [undefined, {{ omitEvents: false }}, {{ omitEvents: true, requestId: "omit-1" }}]) {{
  const before = sent.length;
  const answers = [];
  for (const record of records) answers.push(await naipes.validateHand(record, options));
  const hands = await naipes.validateHands(archive, {{ ...options, batch: 4 }});
  out.push({{ answers, hands, sent: sent.slice(before) }});
}}
console.log(JSON.stringify(out));
""")
    want = [f["result"] for f in full if f]
    for options, run in zip(("absent", "false", "true"), out, strict=True):
        urls = [url for url, _body in run["sent"]]
        lines = [json.loads(line) for _url, body in run["sent"][len(records):] for line in body.splitlines()]
        assert [len(line["batch"]) for line in lines] == [4] * (len(archive) // 4) + [len(archive) % 4] * (len(archive) % 4 > 0), options
        if options == "true":
            assert urls == [rest_url + "/v1/hands:validate?omitEvents=true"] * len(records) + [rest_url + "/v1/hands:validateStream"]
            assert all(line["omitEvents"] is True for line in lines)
            for got, expected in zip(run["answers"], want, strict=True):
                _events_omitted(got, expected)
            for got, expected, without in zip(run["hands"], full, out[0]["hands"], strict=True):
                if expected is None:
                    assert got == without and "error" in got
                else:
                    _events_omitted(got["result"], expected["result"])
        else:
            assert urls == [rest_url + "/v1/hands:validate"] * len(records) + [rest_url + "/v1/hands:validateStream"], options
            assert not any("omitEvents" in line for line in lines), options
            assert run["answers"] == want, options
            assert [h for h, f in zip(run["hands"], full, strict=True) if f] == [f for f in full if f], options


def _calls_counted(client: GrpcClient) -> list[int]:
    """Counts the ValidateHands calls ``client`` makes."""
    calls = [0]
    stub = client._stub
    original = stub.ValidateHands

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls[0] += 1
        return original(*args, **kwargs)

    stub.ValidateHands = counted
    return calls


@pytest.mark.parametrize("who", ["client", "server"])
def test_grpc_client_opens_another_stream_after_a_long_pause_of_its_records(who: str, grpc_target: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The service ends a stream that sends nothing for NAIPES_STREAM_IDLE_SECONDS (here 1 s, with
    its REQUEST_TIMEOUT entry). Records that pause longer (a live feed) are all answered, once each,
    and no REQUEST_TIMEOUT reaches the caller: the client ends its stream itself once the records
    have paused PAUSE_SECONDS (``client``: 0.3 s), or the server ends it (``server``: the client
    would wait 60 s), and the next record opens another."""
    import naipes_client

    from service import stream

    monkeypatch.setattr(stream, "IDLE_SECONDS", 1.0)
    monkeypatch.setattr(naipes_client, "PAUSE_SECONDS", 0.3 if who == "client" else 60.0)
    other = dict(RECORD, actions=RECORD["actions"][:2])

    def feed() -> Any:
        yield RECORD
        yield other
        time.sleep(1.6)
        yield other
        time.sleep(1.6)
        yield RECORD

    with GrpcClient(grpc_target, timeout=5) as grpc_client:
        calls = _calls_counted(grpc_client)
        answers = list(grpc_client.validate_hands(feed(), batch=2))
    assert answers == [{"result": api.validate(r)} for r in (RECORD, other, other, RECORD)]
    assert calls[0] == 3


def test_python_clients_send_what_has_come_when_their_records_pause(clients) -> None:
    """Records that come slowly are answered as they come, not once a whole batch (50) or REST
    request (2,000) has come: the client sends what it has once they pause (FLUSH_SECONDS). (It
    waited for a batch, or a request's worth, or their end, before sending the first: a feed of a
    record a minute had no answer for an hour over gRPC, for 33 hours over REST.)"""
    for client in clients:
        gate = threading.Event()
        released: list[bool] = []

        def feed(gate: threading.Event = gate, released: list[bool] = released) -> Any:
            yield RECORD
            yield RECORD
            released.append(gate.wait(30))  # (True: the caller had both answers while the feed waited)

        answers = client.validate_hands(feed())
        got = [next(answers), next(answers)]
        gate.set()
        assert list(answers) == []
        assert got == [{"result": api.validate(RECORD)}] * 2
        assert released == [True], type(client).__name__


def test_python_clients_fill_their_batches_from_a_steady_feed(monkeypatch: pytest.MonkeyPatch) -> None:
    """A batch is cut short only by a pause of FLUSH_SECONDS (here 0.5 s): records that come
    steadily, a hundred times faster, fill whole batches (``_Records.chunks``: the chunks a REST
    client sends as requests)."""
    import naipes_client

    monkeypatch.setattr(naipes_client, "FLUSH_SECONDS", 0.5)

    def feed() -> Any:
        for n in range(12):
            time.sleep(0.005)
            yield {"n": n}

    source = naipes_client._Records(feed(), 5)
    try:
        assert [[r["n"] for r in chunk] for chunk in source.chunks()] == [[0, 1, 2, 3, 4], [5, 6, 7, 8, 9], [10, 11]]
    finally:
        source.close()


@pytest.mark.parametrize("same_thread", [False, True])
def test_python_clients_raise_their_records_error_after_the_answers_before_it(clients, same_thread: bool) -> None:
    """An iterable of records that fails mid-way: the records before it are answered, then its own
    error is raised to the caller (over gRPC it was raised in grpcio's thread, which cancelled the
    call: the caller saw CANCELLED, and lost the answers in flight; over REST the records of the
    request it interrupted were never sent). Alike with the records read on the caller's thread."""

    def feed() -> Any:
        yield RECORD
        yield RECORD
        raise OSError("the archive could not be read")

    for client in clients:
        got = []
        with pytest.raises(OSError, match="the archive could not be read"):
            for answer in client.validate_hands(feed(), batch=1, same_thread=same_thread):
                got.append(answer)
        assert got == [{"result": api.validate(RECORD)}] * 2, type(client).__name__


def _hands_table(records: list[dict]) -> Any:
    """An SQLite database of these records, as a tournament's tool might keep its hands: its
    connection and cursors are bound to the thread that made it (``check_same_thread``)."""
    import sqlite3

    db = sqlite3.connect(":memory:")
    db.execute("create table hands (record text)")
    db.executemany("insert into hands values (?)", [(json.dumps(r),) for r in records])
    return db


def test_python_clients_read_a_cursor_bound_to_its_thread_with_same_thread(clients, monkeypatch: pytest.MonkeyPatch) -> None:
    """``same_thread=True`` reads the records on the caller's thread: an SQLite cursor, which
    refuses any other thread (its ProgrammingError, which is what the default, reading on the
    client's own thread, raises), gives an archive of 90 records, answered in order as from a list.
    The records are read as the client needs them: at the first answer, a REST request's worth
    (here 40) over REST, at most nine batches a stream opened over gRPC (one to see that there are
    records, four more before the call takes them, four more before its first answer is waited
    for: four at most each time, however fast the call takes them; a stream the server refuses
    for want of a slot, TOO_MANY_STREAMS, as the suite's shared server may while an earlier
    test's stream ends, is opened again), all answered by one stream (were they read only as each
    stream begins, each would end once they had paused, PAUSE_SECONDS, and the next answer
    the rest)."""
    import sqlite3
    from collections import deque

    import naipes_client

    streams = []

    class Answered(deque):  # (a stream's messages sent: each taken off as its answer comes)
        taken = 0

        def popleft(self) -> Any:
            self.taken += 1
            return super().popleft()

    class Stream(naipes_client._Stream):
        def __init__(self) -> None:
            super().__init__()
            self.pending = Answered()
            streams.append(self)

    monkeypatch.setattr(naipes_client, "REST_CHUNK", 40)
    monkeypatch.setattr(naipes_client, "_Stream", Stream)
    records = (_archive() * 10)[:90]
    want = list(clients[0].validate_hands(records, batch=7))
    assert len(want) == 90 and sum("result" in a for a in want) == 90
    db = _hands_table(records)
    for client in clients:
        with pytest.raises(sqlite3.ProgrammingError):
            list(client.validate_hands((json.loads(text) for (text,) in db.execute("select record from hands order by rowid")), batch=7))
        assert streams == []  # (refused its first record: no stream opened)
        threads: set[int] = set()
        read = 0

        def rows(threads: set[int] = threads) -> Any:
            nonlocal read
            for (text,) in db.execute("select record from hands order by rowid"):
                threads.add(threading.get_ident())
                read += 1
                yield json.loads(text)

        answers = client.validate_hands(rows(), batch=7, same_thread=True)
        first = next(answers)
        ahead = 9 * 7 * len(streams) if isinstance(client, GrpcClient) else 40
        assert 0 < read <= ahead, (type(client).__name__, read, len(streams))
        assert [first, *answers] == want, type(client).__name__
        assert read == 90 and threads == {threading.get_ident()}, type(client).__name__
    assert [stream.pending.taken for stream in streams if stream.pending.taken] == [13]  # (90 records in batches of 7)


def test_python_clients_let_ctrl_c_through_at_once_with_same_thread(clients) -> None:
    """With ``same_thread`` the records are read on the caller's thread, so a KeyboardInterrupt
    while they are read is the caller's own: it goes up at once, not kept to be raised after the
    answers of the records before it as the iterable's errors are."""

    def feed() -> Any:
        yield RECORD
        yield RECORD
        raise KeyboardInterrupt

    for client in clients:
        got = []
        with pytest.raises(KeyboardInterrupt):
            for answer in client.validate_hands(feed(), batch=1, same_thread=True):
                got.append(answer)
        assert got == [], type(client).__name__


@pytest.mark.parametrize("client_class", [RestClient, GrpcClient])
def test_python_clients_answer_every_record_of_a_caller_that_holds_an_answer_past_the_idle_bound(
        client_class: type, monkeypatch: pytest.MonkeyPatch) -> None:
    """The service ends a stream whose client takes none of its answers for
    NAIPES_STREAM_IDLE_SECONDS (here 1 s) while it waits to send one, and a caller that holds an
    answer that long stops the client taking them. Every record is answered, once and in order:
    the client sends again what the stream it ended had not answered (the REST client raised
    UNAVAILABLE, "zip() argument 2 is shorter than argument 1", once it read on; the gRPC client
    would raise the server's DEADLINE_EXCEEDED), and the server gives back both streams' slots.
    Through a ``naipes serve`` of its own: werkzeug's development server, this process's, keeps
    the slot of a stream whose write timed out, and the suite's later streams were refused."""
    import grpc as grpc_module
    from service_support import metrics_say, stop
    from test_service_workers import serve

    plain = grpc_module.insecure_channel
    # (the gRPC client's window kept at HTTP/2's first 64 KiB, as over a path whose bandwidth
    # probing has not grown it: the server waits once it has sent that much)
    monkeypatch.setattr(grpc_module, "insecure_channel",
                        lambda target, options=None, **kw: plain(target, options=[*(options or []), ("grpc.http2.bdp_probe", 0)], **kw))
    record = load_example(examples_dir() / "revesino-full-01-random.json")[0]
    expected = {"result": api.validate(record)}
    server, rest_port, grpc_port = serve(1, {**os.environ, "NAIPES_STREAM_IDLE_SECONDS": "1"})
    try:
        opened = [0]
        if client_class is RestClient:
            import urllib.request

            urlopen = urllib.request.urlopen

            def counted(*args: Any, **kwargs: Any) -> Any:
                opened[0] += 1
                return urlopen(*args, **kwargs)

            monkeypatch.setattr(urllib.request, "urlopen", counted)
            client: Any = RestClient(f"http://127.0.0.1:{rest_port}", timeout=30)
        else:
            client = GrpcClient(f"127.0.0.1:{grpc_port}", timeout=30)
            opened = _calls_counted(client)
        answers = []
        with client:
            for answer in client.validate_hands([record] * 2000, batch=5):
                answers.append(answer)
                if len(answers) == 10:
                    time.sleep(4)  # (gRPC: an answer of 5 records may wait 1 s and one more for each 16 KiB of it)
        assert len(answers) == 2000 and all(answer == expected for answer in answers)
        assert opened[0] == 2  # (the request or call the server ended, and the one that sent again what it had not answered)
        transport = "rest" if client_class is RestClient else "grpc"
        metrics_say(rest_port, f'naipes_streams_in_progress{{transport="{transport}"}} 0.0')
    finally:
        stop(server)


class _CuttingProxy:
    """An HTTP server in front of the service's REST stream that cuts its first answer short after
    ``lines`` lines (its connection closed without the chunked body's end, as a server that ends a
    stream does) and passes every later request through whole; ``bodies``: the lines of each
    request's body."""

    def __init__(self, target: str, lines: int) -> None:
        import http.server
        import urllib.request

        self.bodies: list[int] = []
        proxy = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                body = self.rfile.read(int(self.headers["Content-Length"]))
                proxy.bodies.append(body.count(b"\n"))
                forwarded = urllib.request.Request(target + self.path, data=body, headers={"Content-Type": "application/x-ndjson"})
                with urllib.request.urlopen(forwarded, timeout=60) as answer:
                    sent = answer.read().splitlines(keepends=True)
                cut = len(proxy.bodies) == 1
                self.send_response(200)
                self.send_header("Content-Type", "application/x-ndjson")
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                for line in sent[:lines] if cut else sent:
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(line), line))
                if not cut:
                    self.wfile.write(b"0\r\n\r\n")
                self.wfile.flush()
                self.close_connection = True

            def log_message(self, *args: Any) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def test_javascript_client_sends_again_the_lines_of_a_stream_cut_short(rest_url: str, tmp_path: Path) -> None:
    """A stream whose answer ends after some of its lines (the server ends a stream whose caller
    takes none of its answer for 30 s, as a Python client's test shows through the service) is sent
    again from its first line not answered: every record is answered, once and in order (the
    stream failed UNAVAILABLE, "terminated (other side closed)")."""
    records = [dict(RECORD, actions=RECORD["actions"][:n]) for n in range(len(RECORD["actions"]) + 1)] * 4
    proxy = _CuttingProxy(rest_url, 3)
    try:
        out = _node(tmp_path, f"""
const naipes = new Naipes({json.dumps(proxy.url)});
console.log(JSON.stringify(await naipes.validateHands({json.dumps(records)}, {{ batch: 2 }})));
""")
    finally:
        proxy.close()
    assert out == [{"result": api.validate(r)} for r in records]
    lines = -(-len(records) // 2)
    assert proxy.bodies == [lines, lines - 3]


def test_rest_client_sends_again_the_lines_of_a_stream_cut_short_but_not_of_one_ended_short(rest_url: str) -> None:
    """As the JavaScript client: a stream whose answer is cut short after some of its lines (its
    connection closed before the chunked body's end) is sent again from its first line not
    answered, every record answered once and in order; one that ends cleanly with fewer lines
    than it was sent (a server at fault, not a cut) is UNAVAILABLE, sent once."""
    records = [dict(RECORD, actions=RECORD["actions"][:n]) for n in range(len(RECORD["actions"]) + 1)] * 4
    proxy = _CuttingProxy(rest_url, 3)
    try:
        answers = list(RestClient(proxy.url).validate_hands(records, batch=2))
    finally:
        proxy.close()
    assert answers == [{"result": api.validate(r)} for r in records]
    lines = -(-len(records) // 2)
    assert proxy.bodies == [lines, lines - 3]

    entry = {"error": {"code": "PAYLOAD_TOO_LARGE", "message": "a line of the body is longer than 1048576 bytes"}}
    line = json.dumps(entry).encode() + b"\n"
    page = FakeHttp(b"HTTP/1.1 200 OK\r\nContent-Type: application/x-ndjson\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s"
                    % (len(line), line))
    try:
        with pytest.raises(NaipesError) as short:
            list(RestClient(page.url).validate_hands([RECORD, RECORD], batch=1))
    finally:
        page.close()
    assert short.value.code == "UNAVAILABLE" and len(page.held) == 1, short.value.message


@pytest.mark.parametrize("timeout", [float("inf"), float("nan"), None, 0, -1, 1e12, True, "5"], ids=repr)
def test_python_clients_take_a_timeout_only_of_seconds_a_deadline_can_hold(timeout, rest_url: str, grpc_target: str) -> None:
    """A timeout is a number of seconds above 0, at most a year. An infinite one was an
    OverflowError on the process's deadline thread, which died with it and took every other
    RestClient's deadlines along (a call then waited for its server however long); over gRPC a
    huge one ended every call at once DEADLINE_EXCEEDED, and None was a TypeError in a thread."""
    for client in (RestClient, GrpcClient):
        with pytest.raises(ValueError, match="timeout must be a number of seconds above 0 and at most 31536000"):
            client(rest_url if client is RestClient else grpc_target, timeout=timeout)
    with RestClient(rest_url, timeout=365 * 24 * 3600) as rest, GrpcClient(grpc_target, timeout=365 * 24 * 3600) as grpc_client:
        assert rest.validate_hand(RECORD) == grpc_client.validate_hand(RECORD) == api.validate(RECORD)


@pytest.mark.parametrize("records", [None, 5, RECORD, "abc", b"{}"], ids=["None", "a number", "one record", "a string", "bytes"])
def test_python_clients_validate_hands_take_an_iterable_of_records_only(records, clients) -> None:
    """As the JavaScript client: INVALID_FIELD naming records. A record given alone (a dict) was
    iterated key by key, each key sent as a record, and None or a number was a bare TypeError."""
    for client in clients:
        with pytest.raises(NaipesError) as refused:
            list(client.validate_hands(records))
        assert (refused.value.code, refused.value.field) == ("INVALID_FIELD", "records")
        assert refused.value.message.startswith("records: expected an iterable of records (a list, a generator), not ")


def test_a_retry_after_is_seconds_or_a_date_within_a_minute() -> None:
    """RFC 9110 10.2.3: Retry-After is seconds or an HTTP date; a date was a bare ValueError out of
    validate_hands where a TOO_MANY_STREAMS answer is retried. Waits are held from 0 to 60 s, and
    anything else waits 1 s, as the JavaScript client does."""
    from datetime import UTC, datetime, timedelta
    from email.utils import format_datetime

    from naipes_client import _retry_delay

    soon = format_datetime(datetime.now(UTC) + timedelta(seconds=30), usegmt=True)
    assert 28 <= _retry_delay(soon) <= 30
    assert _retry_delay("Wed, 21 Oct 2015 07:28:00 GMT") == 0.0  # (past)
    assert (_retry_delay("2"), _retry_delay("0.5"), _retry_delay("1e9"), _retry_delay("-3")) == (2.0, 0.5, 60.0, 0.0)
    assert (_retry_delay(None), _retry_delay(""), _retry_delay("soon"), _retry_delay("nan")) == (1.0, 1.0, 1.0, 1.0)


def test_javascript_client_refuses_what_it_would_send_otherwise(tmp_path: Path, rest_url: str) -> None:
    """What JSON or a URL would turn into another request, refused as the Python clients refuse it:
    a POST's record left undefined went without a body, read as {} (MISSING_FIELD game), where
    null and Python's None are the body refused; a record undefined or a function in
    validateHands answered undefined; a Map in the rules was written {} (the hand validated under
    the default rules); a seat [3] and a game ["rentoy"] went as their text (3, rentoy), and a game
    5 asked for game '5', null for 'null'. And a timeoutMs no timer holds ended every call at once
    (2 ** 31 ms and more, Infinity) or threw RangeError or TypeError from the call: the
    constructor refuses it."""
    out = _node(tmp_path, f"""
const naipes = new Naipes({json.dumps(rest_url)});
const said = async (promise) => {{
  try {{ return await promise; }} catch (error) {{ return {{ code: error.code, field: error.field ?? null, message: error.message }}; }}
}};
const timeouts = [];
for (const timeoutMs of [2 ** 31, Infinity, NaN, -1, null, 0]) {{
  try {{ new Naipes("http://x", {{ timeoutMs }}); timeouts.push("made"); }} catch (error) {{ timeouts.push(`${{error.constructor.name}}: ${{error.message}}`); }}
}}
console.log(JSON.stringify([
  await said(naipes.validateHand(undefined)),
  (await naipes.validateHands([undefined, () => 1, record])).map((answer) => answer.error ?? "result"),
  await said(naipes.validateHand({{ ...record, rules: new Map([["ladder", "bogus"]]) }})),
  await said(naipes.legalActions(record, [3])),
  await said(naipes.describeRules(["rentoy"])),
  await said(naipes.describeRules(5)),
  await said(naipes.describeRules(null)),
  timeouts,
  Object.keys(await naipes.describeRules("rentoy")).length > 0,
]));
""")
    assert out[0] == {"code": "INVALID_FIELD", "field": "body", "message": "the body must be a JSON object, not null"}
    assert out[1] == [{"code": "INVALID_FIELD", "message": "the record: JSON cannot hold undefined"},
                      {"code": "INVALID_FIELD", "message": "the record: JSON cannot hold a function"}, "result"]
    assert out[2] == {"code": "INVALID_FIELD", "field": "rules", "message": "rules: JSON cannot hold a Map (an object or a list is sent)"}
    assert out[3] == {"code": "INVALID_FIELD", "field": "seat", "message": "seat: expected an integer, not '[3]'"}
    assert out[4] == {"code": "INVALID_FIELD", "field": "game", "message": "game: expected a string, not a list"}
    assert out[5] == {"code": "INVALID_FIELD", "field": "game", "message": "game: expected a string, not 5"}
    assert out[6] == {"code": "UNKNOWN_GAME", "field": "game", "message": "unknown game '': expected tresillo, revesino or rentoy"}
    refused = "RangeError: timeoutMs must be a number of milliseconds above 0 and at most 2147483647 (a timer's), not "
    assert out[7] == [refused + text for text in ("2147483648", "Infinity", "NaN", "-1", "null", "0")]
    assert out[8] is True
    with RestClient(rest_url) as rest:  # the Python client's words, the same
        with pytest.raises(NaipesError) as refused_seat:
            rest.legal_actions(RECORD, [3])  # type: ignore[arg-type]
        assert refused_seat.value.message == out[3]["message"]
        with pytest.raises(NaipesError) as refused_game:
            rest.describe_rules(5)  # type: ignore[arg-type]
        assert refused_game.value.message == out[5]["message"]


def test_javascript_client_never_throws_at_once(rest_url: str, tmp_path: Path) -> None:
    """Every method of naipes.mjs answers with a promise (validateHandsStream with its async
    iterator) whatever it is given, its failure that promise's rejection, never a throw at once,
    outside the promise its caller awaits or catches. Options null are no options, as undefined
    are (and a requestId, a seat or a game null): each method threw TypeError at once for them
    ("Cannot destructure ... as it is null"), validateHands rejected with it. A seat JSON cannot
    write (a cycle) is refused as any seat that is no integer (JSON.stringify's TypeError, at
    once); an option whose getter throws rejects with its error."""
    calls = [_js_call(rpc, request) for _name, rpc, request in UNARY_CALLS]
    for call in calls:  # (options null after the arguments; legalActions' seat null without one)
        call[1] = [*call[1], *([None] if call[0] == "legalActions" and len(call[1]) == 1 else []), None]
    out = _node(tmp_path, f"""
const naipes = new Naipes({json.dumps(rest_url)}, null);  // (the constructor's options null: none too)
const cyclic = {{}};
cyclic.self = cyclic;
const throwing = {{ get requestId() {{ throw new Error("the getter's own"); }}, get batch() {{ throw new Error("the getter's own"); }} }};
const calls = [
  ...{json.dumps(calls)},
  ["validateHands", [[record], null]], ["validateHandsStream", [[record], null]],
  ["legalActions", [record, cyclic]], ["validateHand", [record, throwing]], ["validateHandsStream", [[record], throwing]],
];
const out = [];
for (const [method, args] of calls) {{
  let made;
  try {{ made = naipes[method](...args); }} catch (error) {{ out.push({{ atOnce: `${{error.constructor.name}}: ${{error.message}}` }}); continue; }}
  try {{
    if (!made[Symbol.asyncIterator]) {{ out.push({{ answer: await made }}); continue; }}
    const answers = [];
    for await (const answer of made) answers.push(answer);
    out.push({{ answer: answers }});
  }} catch (error) {{
    out.push({{ error: [error.constructor.name, error.code ?? null, error.field ?? null, error.message] }});
  }}
}}
console.log(JSON.stringify(out));
""")
    unary, out = out[:len(UNARY_CALLS)], out[len(UNARY_CALLS):]
    for (name, rpc, request), answer in zip(UNARY_CALLS, unary, strict=True):
        assert answer == {"answer": engine_answer(rpc, request)}, name
    assert out[:2] == [{"answer": [{"result": api.validate(RECORD)}]}] * 2
    assert out[2] == {"error": ["NaipesError", "INVALID_FIELD", "seat", "seat: expected an integer, not '[object Object]'"]}
    assert out[3:] == [{"error": ["Error", None, None, "the getter's own"]}] * 2


def test_javascript_audit_answers_a_message_without_its_record_as_naipes_audit(tmp_path: Path, rest_url: str) -> None:
    """A line that is a message with no record to send ({"id": "b"}, an empty batch) was sent as a
    record (its id lost, "unknown field 'id'") or not answered at all (the audit counted one record
    fewer than naipes audit); a batch that is no list was read as a record. Each is its entry's
    error under its id, as naipes audit answers it (the first two to the byte)."""
    lines = [json.dumps({"id": "b"}), json.dumps({"batch": [], "id": "h"}), json.dumps({"batch": "x", "id": "i"}),
             json.dumps({"id": "k", "record": RECORD})]
    archive = tmp_path / "archive.ndjson"
    archive.write_text("\n".join(lines) + "\n")
    run = subprocess.run(["node", str(AUDIT), str(archive), rest_url], capture_output=True, text=True, timeout=60)
    cli = subprocess.run([tool("naipes"), "audit", str(archive)], capture_output=True, text=True, timeout=60)
    assert run.returncode == cli.returncode == 2, run.stderr
    answers, expected = run.stdout.splitlines(), cli.stdout.splitlines()
    assert answers[:2] == expected[:2] and len(answers) == len(expected) == 4
    assert json.loads(answers[2]) == {"id": "i", "error": {"code": "INVALID_FIELD", "field": "batch", "message": 'batch: expected a list, not "x"'}}
    assert json.loads(answers[3]) == {"id": "k", "result": api.validate(RECORD)}
    assert "4 records" in run.stderr.splitlines()[-1]


def test_grpc_client_refuses_a_request_over_the_limit_as_the_server_would(grpc_target: str) -> None:
    """A request over 1 MiB is the server's PAYLOAD_TOO_LARGE, and one past grpcio's 1.5 MiB was
    grpcio's RESOURCE_EXHAUSTED alone, without the service's code: GrpcClient.validate_hands said
    PAYLOAD_TOO_LARGE for such a record, validate_hand did not. The client says the server's words
    for both, before sending."""
    from service.grpc_server import MESSAGE_CEILING

    with GrpcClient(grpc_target) as grpc_client:
        for size in (MESSAGE_CEILING - 4096, MESSAGE_CEILING + 4096):
            record = dict(RECORD, actions=["x" * size])
            with pytest.raises(NaipesError) as refused:
                grpc_client.validate_hand(record)
            assert refused.value.code == "PAYLOAD_TOO_LARGE" and refused.value.field is None
            assert re.fullmatch(r"the request message is \d+ bytes, larger than the 1048576 the service accepts", refused.value.message)
        assert grpc_client.validate_hand(RECORD) == api.validate(RECORD)
