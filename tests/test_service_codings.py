"""Request bodies in a content coding (``Content-Encoding: gzip``, ``x-gzip``, ``deflate``:
``service/codings.py``): answered as the plain body is, the limits applied to the decoded bytes
as they are inflated (a zip bomb is refused at once, never held whole), a body that cannot be
decoded refused naming its coding, and an NDJSON stream's lines answered while its compressed body
is still arriving. Through werkzeug's server in the test process (``rest_url``) and a real
``naipes serve`` (gunicorn), on raw sockets where the framing matters."""

from __future__ import annotations

import gzip
import io
import json
import os
import re
import socket
import struct
import time
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
import requests
from examples_support import examples_dir
from google.protobuf import json_format
from service_support import UNARY_CALLS, Relay, load_example, rentoy_examples, rest_failure, rest_layout, stop
from test_service_stream_lines import Stream, lines_of
from test_service_workers import serve

from bench.run import descendants
from engine import api
from naipes.v1 import naipes_pb2 as pb
from service import codings, stream
from service.codings import SKIP_BYTES
from service.errors import MAX_REQUEST_BYTES, ServiceError
from service.grpc_server import MESSAGE_CEILING
from service.openapi import CODED_BODY

IDLE = 2.0  # NAIPES_STREAM_IDLE_SECONDS and NAIPES_BODY_SECONDS of the gunicorn server
JSON = {"Content-Type": "application/json"}
NDJSON = {"Content-Type": "application/x-ndjson"}
RECORD = load_example(rentoy_examples()[0])[0]


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[int, int]]:
    """``naipes serve`` (one REST worker): its REST port and its process ID."""
    server, port, _ = serve(1, {**os.environ, "NAIPES_STREAM_IDLE_SECONDS": f"{IDLE:g}", "NAIPES_BODY_SECONDS": f"{IDLE:g}"})
    # One stream first: its pool's processes start with it, which is not what the tests time.
    answer = requests.post(f"http://127.0.0.1:{port}/v1/hands:validateStream", data=json.dumps(RECORD), headers=NDJSON, timeout=60)
    assert answer.status_code == 200 and b'"result"' in answer.content, answer.text
    yield port, server.pid
    stop(server)


@pytest.fixture(params=["werkzeug", "gunicorn"])
def base(request: pytest.FixtureRequest) -> str:
    if request.param == "werkzeug":
        url: str = request.getfixturevalue("rest_url")
        return url
    return f"http://127.0.0.1:{request.getfixturevalue('served')[0]}"


def coded(data: bytes, coding: str) -> bytes:
    return zlib.compress(data) if coding == "deflate" else gzip.compress(data)


def flushed(pieces: list[bytes], coding: str = "gzip") -> list[bytes]:
    """``pieces`` compressed as one body, the compressor flushed after each (Z_SYNC_FLUSH, as a
    streaming client flushes), so that the body's bytes up to a piece's end decode to the pieces
    up to it; the last item ends the data (gzip's trailer)."""
    compressor = zlib.compressobj(wbits=15 if coding == "deflate" else 31)
    return [*(compressor.compress(piece) + compressor.flush(zlib.Z_SYNC_FLUSH) for piece in pieces), compressor.flush()]


def bomb(mib: int, fill: bytes = b"\x00") -> bytes:
    """A gzip member of ``mib`` MiB of zeros (a multiple of 8), or of another byte, made without
    compressing them all: after a full flush the compressor is as new, so each further 8 MiB
    compress to the same bytes."""
    zeros = fill * (8 << 20)
    compressor = zlib.compressobj(9, zlib.DEFLATED, 31)
    first = compressor.compress(zeros) + compressor.flush(zlib.Z_FULL_FLUSH)
    again = compressor.compress(zeros) + compressor.flush(zlib.Z_FULL_FLUSH)
    crc = 0
    for _ in range(mib // 8):
        crc = zlib.crc32(zeros, crc)
    # An empty final block (fixed Huffman: BFINAL, BTYPE 01, end of block), then CRC-32 and size.
    return first + again * (mib // 8 - 1) + b"\x03\x00" + struct.pack("<II", crc, (mib << 20) & 0xFFFFFFFF)


def test_the_bomb_is_gzip_of_zeros() -> None:
    assert gzip.decompress(bomb(24)) == bytes(24 << 20)
    assert len(bomb(1024)) < MAX_REQUEST_BYTES  # a GiB that fits within the limit as sent


# ---- unary ------------------------------------------------------------------------------------


@pytest.mark.parametrize("coding", ["gzip", "x-gzip", "deflate", "gzip, identity", "GZip"])
def test_every_call_with_a_body_answers_a_coded_body_as_the_plain_one(coding, rest_url, http) -> None:
    """Every unary route that takes a body, each of its answers (its bytes) to the body coded the
    same as to the body plain."""
    for name, rpc, request in UNARY_CALLS:
        verb, path, body, params = rest_layout(rpc, request)
        if body is None:
            continue
        data = json.dumps(body).encode()
        plain = http.request(verb, rest_url + path, data=data, params=params, headers=JSON, timeout=30)
        answer = http.request(verb, rest_url + path, data=coded(data, coding.split(",")[0].lower()), params=params, timeout=30,
                              headers={**JSON, "Content-Encoding": coding})
        assert plain.status_code == 200, name
        assert (answer.status_code, answer.headers["Content-Type"], answer.content) == (200, plain.headers["Content-Type"], plain.content), name


@pytest.mark.parametrize("framing", ["content-length", "chunked"])
def test_a_coded_body_sent_in_small_pieces_under_gunicorn_is_answered_as_the_plain_one(framing, served) -> None:
    port, _ = served
    data = json.dumps(RECORD).encode()
    plain = requests.post(f"http://127.0.0.1:{port}/v1/hands:validate", data=data, headers=JSON, timeout=30)
    body = gzip.compress(data)
    pieces = [body[i:i + 7] for i in range(0, len(body), 7)]
    head = f"Content-Length: {len(body)}" if framing == "content-length" else "Transfer-Encoding: chunked"
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(f"POST /v1/hands:validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\n{head}\r\n"
                     "Connection: close\r\n\r\n".encode())
        for piece in pieces:
            sock.sendall(b"%x\r\n%s\r\n" % (len(piece), piece) if framing == "chunked" else piece)
        if framing == "chunked":
            sock.sendall(b"0\r\n\r\n")
        received = b""
        while chunk := sock.recv(65536):
            received += chunk
    head_bytes, _, answer = received.partition(b"\r\n\r\n")
    assert head_bytes.startswith(b"HTTP/1.1 200 "), received
    assert answer == plain.content


def test_concatenated_gzip_members_are_one_body(base, http) -> None:
    """gzip's body may be several members one after another (as ``cat a.gz b.gz`` makes): their
    contents, in order, are the body; an empty member adds nothing."""
    data = json.dumps(RECORD).encode()
    plain = http.post(base + "/v1/hands:validate", data=data, headers=JSON, timeout=30)
    body = gzip.compress(data[:10]) + gzip.compress(b"") + gzip.compress(data[10:500]) + gzip.compress(data[500:])
    for coding in ("gzip", "x-gzip"):
        answer = http.post(base + "/v1/hands:validate", data=body, headers={**JSON, "Content-Encoding": coding}, timeout=30)
        assert (answer.status_code, answer.content) == (200, plain.content)


def test_an_empty_coded_body_is_the_empty_body(base, http) -> None:
    """An empty body is empty content in any coding (nothing to decode): the empty request, as a
    plain empty body is; gzip of nothing is the same."""
    plain = http.post(base + "/v1/hands:validate", data=b"", headers=JSON, timeout=30)
    assert rest_failure(plain).code == "MISSING_FIELD"
    for body in (b"", gzip.compress(b"")):
        answer = http.post(base + "/v1/hands:validate", data=body, headers={**JSON, "Content-Encoding": "gzip"}, timeout=30)
        assert (answer.status_code, answer.content) == (plain.status_code, plain.content)


_DATA = json.dumps(RECORD).encode()
_GZ = gzip.compress(_DATA)
# (case, Content-Encoding, body, the problem's detail)
UNDECODABLE = [
    ("plain JSON said gzip", "gzip", _DATA, "the body (Content-Encoding: gzip) is not gzip: it does not start with gzip's magic bytes 1f 8b"),
    ("plain JSON said x-gzip", "x-gzip", _DATA, "the body (Content-Encoding: x-gzip) is not gzip: it does not start with gzip's magic bytes 1f 8b"),
    ("cut short", "gzip", _GZ[:-5], "the body (Content-Encoding: gzip) ended before the end of its gzip data"),
    ("its head only", "gzip", _GZ[:4], "the body (Content-Encoding: gzip) ended before the end of its gzip data"),
    ("one byte", "gzip", b"\x1f", "the body (Content-Encoding: gzip) is not gzip: it does not start with gzip's magic bytes 1f 8b"),
    ("bytes after the member", "gzip", _GZ + b"{}", "the body (Content-Encoding: gzip) has bytes after its gzip data that start no gzip "
     "member (one starts 1f 8b)"),
    ("zeros after the member", "gzip", _GZ + bytes(4), "the body (Content-Encoding: gzip) has bytes after its gzip data that start no gzip "
     "member (one starts 1f 8b)"),
    ("a wrong CRC", "gzip", _GZ[:-8] + bytes(4) + _GZ[-4:], "the body (Content-Encoding: gzip) is not valid gzip data: incorrect data check"),
    ("a wrong size", "gzip", _GZ[:-4] + bytes(4), "the body (Content-Encoding: gzip) is not valid gzip data: incorrect length check"),
    ("a reserved block type", "gzip", _GZ[:10] + b"\xff" + _GZ[11:], "the body (Content-Encoding: gzip) is not valid gzip data: invalid block type"),
    ("raw deflate said deflate", "deflate", zlib.compress(_DATA)[2:-4], "the body (Content-Encoding: deflate) is not valid deflate data: "
     "incorrect header check (deflate comes in zlib's wrapping, RFC 1950, not raw)"),
    ("gzip said deflate", "deflate", _GZ, "the body (Content-Encoding: deflate) is not valid deflate data: incorrect header check "
     "(deflate comes in zlib's wrapping, RFC 1950, not raw)"),
    ("bytes after the deflate data", "deflate", zlib.compress(_DATA) + b"x", "the body (Content-Encoding: deflate) has bytes after the end "
     "of its deflate data"),
    ("deflate said gzip", "gzip", zlib.compress(_DATA), "the body (Content-Encoding: gzip) is not gzip: it does not start with gzip's magic "
     "bytes 1f 8b"),
]


@pytest.mark.parametrize(("case", "coding", "body", "detail"), UNDECODABLE, ids=[case[0] for case in UNDECODABLE])
def test_a_body_that_cannot_be_decoded_is_malformed_request(case, coding, body, detail, base, http) -> None:
    """Not the coding it says, cut short, bytes after its data (zeros too: gzip(1) reads past
    them, with a warning), data zlib refuses: MALFORMED_REQUEST (400), the request HTTP cannot
    read, naming the body and its Content-Encoding, whatever route; the server goes on."""
    for path in ("/v1/hands:validate", "/v1/deals"):
        failure = rest_failure(http.post(base + path, data=body, headers={**JSON, "Content-Encoding": coding}, timeout=30))
        assert (failure.code, failure.status, failure.field, failure.message) == ("MALFORMED_REQUEST", 400, None, detail)
    assert http.get(base + "/healthz", timeout=10).status_code == 200


def test_the_openapi_document_says_every_body_may_come_compressed(rest_url, http) -> None:
    paths = http.get(rest_url + "/v1/openapi.json", timeout=10).json()["paths"]
    bodies = [op["requestBody"]["description"] for path in paths.values() for op in path.values() if "requestBody" in op]
    assert len(bodies) == 6 and all(text.endswith(CODED_BODY) for text in bodies), bodies
    assert "gzip" in CODED_BODY and "deflate" in CODED_BODY and "decoded" in CODED_BODY


def test_a_page_of_another_origin_may_send_a_compressed_body(http, rest_url) -> None:
    """A browser asks its preflight whether Content-Encoding may be sent (it is no CORS-safelisted
    header): it may, and the compressed body is answered with the CORS headers."""
    origin = "https://tables.example"
    preflight = http.options(f"{rest_url}/v1/hands:validateStream", timeout=10, headers={
        "Origin": origin, "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "content-type,content-encoding"})
    assert preflight.status_code == 204
    assert "content-encoding" in {name.strip().lower() for name in preflight.headers["Access-Control-Allow-Headers"].split(",")}
    answer = http.post(f"{rest_url}/v1/hands:validate", data=_GZ, headers={**JSON, "Content-Encoding": "gzip", "Origin": origin}, timeout=10)
    assert answer.status_code == 200 and answer.headers["Access-Control-Allow-Origin"] == "*"


def _padded(size: int) -> bytes:
    """The record's JSON with spaces before it: ``size`` bytes in all."""
    data = json.dumps(RECORD).encode()
    return b" " * (size - len(data)) + data


@pytest.mark.parametrize("size", [MAX_REQUEST_BYTES, MAX_REQUEST_BYTES + 1])
def test_the_limit_is_the_decoded_body_s(size, base, http) -> None:
    """A body that decodes to the limit is answered, one byte more is PAYLOAD_TOO_LARGE, as the
    same body plain is; its compressed size (some kilobytes) does not count."""
    data = _padded(size)
    plain = http.post(base + "/v1/hands:validate", data=data, headers=JSON, timeout=30)
    answer = http.post(base + "/v1/hands:validate", data=gzip.compress(data), headers={**JSON, "Content-Encoding": "gzip"}, timeout=30)
    want = 200 if size == MAX_REQUEST_BYTES else 413
    assert (answer.status_code, plain.status_code) == (want, want), answer.text
    if size == MAX_REQUEST_BYTES:
        assert answer.content == plain.content
    else:
        assert rest_failure(answer).message == f"the body is larger than {MAX_REQUEST_BYTES} bytes once decoded (Content-Encoding: gzip)"


def test_a_compressed_body_over_the_limit_as_sent_is_payload_too_large(base, http) -> None:
    """The body as sent is held to the limit too (a compressed body smaller than its content; one
    larger is no JSON's): the limit of a plain body's, before any decoding."""
    body = gzip.compress(os.urandom(MAX_REQUEST_BYTES + 1024), 1)
    assert len(body) > MAX_REQUEST_BYTES
    failure = rest_failure(http.post(base + "/v1/hands:validate", data=body, headers={**JSON, "Content-Encoding": "gzip"}, timeout=30))
    assert (failure.code, failure.message) == ("PAYLOAD_TOO_LARGE", f"the body is larger than {MAX_REQUEST_BYTES} bytes")


def _peak_memory(pids: list[int]) -> dict[int, int]:
    """Each process's peak resident memory so far (VmHWM), in bytes."""
    peaks = {}
    for pid in pids:
        try:
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            continue
        peaks[pid] = next(int(line.split()[1]) * 1024 for line in status.splitlines() if line.startswith("VmHWM:"))
    return peaks


def test_a_zip_bomb_is_refused_at_once_and_never_held_whole(served) -> None:
    """A GiB of zeros in 1 MB of gzip, to a unary route and as an NDJSON stream's line: the
    unary body is PAYLOAD_TOO_LARGE once 1 MiB is inflated, the line is its PAYLOAD_TOO_LARGE entry
    once 64 MiB of it have been skipped (the stream ends with it: what follows could only be found
    by inflating the rest). No process of the server grew by more than a few MiB (its peak memory):
    the unary body was not inflated whole, and the stream's line was skipped no further than its
    bound, which its error names. (Neither is timed: the suite times nothing, bench/ does.)"""
    port, pid = served
    body = bomb(1024)
    pids = descendants(pid)
    before = _peak_memory(pids)
    answer = requests.post(f"http://127.0.0.1:{port}/v1/hands:validate", data=body, headers={**JSON, "Content-Encoding": "gzip"}, timeout=30)
    failure = rest_failure(answer)
    assert (failure.code, failure.message) == ("PAYLOAD_TOO_LARGE", f"the body is larger than {MAX_REQUEST_BYTES} bytes once decoded "
                                                                    "(Content-Encoding: gzip)")
    answer = requests.post(f"http://127.0.0.1:{port}/v1/hands:validateStream", data=gzip.compress(lines_of(RECORD, 1)[0]) + body,
                           headers={**NDJSON, "Content-Encoding": "gzip"}, timeout=30)
    entries = [json.loads(line) for line in answer.content.splitlines()]
    assert entries == [{"id": "r0", "result": api.validate(RECORD)},
                       {"error": {"code": "PAYLOAD_TOO_LARGE", "message": f"a line of the body is longer than {MAX_REQUEST_BYTES} bytes and has "
                                  f"not ended within {SKIP_BYTES} bytes: the stream ends here, the rest of the body unread"}}]
    after = _peak_memory(pids)
    grown = {p: after[p] - before[p] for p in before if p in after}
    assert grown and max(grown.values()) < 64 << 20, grown


def test_a_bomb_of_blank_lines_ends_the_stream_past_its_allowance(served) -> None:
    """A GiB of newlines in 1 MB of gzip after a record: blank lines answer nothing, so they may
    come to only 64 KiB more than the stream's other lines (``stream.BLANK_BYTES``); past that the
    stream ends with their PAYLOAD_TOO_LARGE entry, the rest of the body uninflated (a billion
    blank lines would have held the serving thread for minutes)."""
    port, _pid = served
    record = lines_of(RECORD, 1)[0]
    answer = requests.post(f"http://127.0.0.1:{port}/v1/hands:validateStream", data=gzip.compress(record) + bomb(1024, b"\n"),
                           headers={**NDJSON, "Content-Encoding": "gzip"}, timeout=30)
    entries = [json.loads(line) for line in answer.content.splitlines()]
    assert entries == [{"id": "r0", "result": api.validate(RECORD)},
                       {"error": {"code": "PAYLOAD_TOO_LARGE", "message": f"the body's blank lines come to more than {stream.BLANK_BYTES} bytes "
                                  "beyond its other lines: the stream ends here, the rest of the body unread"}}]


def test_a_bomb_of_answered_lines_ends_the_stream_past_its_allowance(base, http) -> None:
    """A million lines "x" in 2 KB of gzip, each answered by its MALFORMED_JSON entry: a compressed
    stream may have 10,000 records answered and 2 more a byte sent (``stream.RECORDS_ALLOWED``,
    ``RECORDS_PER_BYTE``), past which it ends with a PAYLOAD_TOO_LARGE entry, the rest of the body
    uninflated (32 KiB of such gzip held a stream slot for over five minutes and sent 1 GB of
    answers). The same lines sent plain are all answered."""
    lines = b"x\n" * 1_000_000
    body = gzip.compress(lines, 9)
    assert len(body) < 4096
    answer = http.post(base + "/v1/hands:validateStream", data=body, headers={**NDJSON, "Content-Encoding": "gzip"}, timeout=120)
    entries = [json.loads(line) for line in answer.content.splitlines()]
    message = entries[-1]["error"].pop("message")
    assert entries[-1] == {"error": {"code": "PAYLOAD_TOO_LARGE"}}
    read = re.fullmatch(  # (the compressed bytes read so far: the body's, or the reads' that inflated enough)
        rf"the compressed body's records outnumber {stream.RECORDS_ALLOWED:,} and {stream.RECORDS_PER_BYTE} a byte of it "
        r"sent \(([\d,]+) bytes\): the stream ends here, the rest of the body unread \(records repeated over and over "
        r"compress past that: send them uncompressed\)", message)
    assert read and 0 < int(read[1].replace(",", "")) <= len(body), message
    bound = stream.RECORDS_ALLOWED + stream.RECORDS_PER_BYTE * int(read[1].replace(",", ""))
    answered = entries[:-1]
    # The stream ends once its records answered outnumber the allowance (each line here one record).
    # Records are counted as their lines are given, a pool's chunk (stream.BATCH lines) at a time,
    # so it may end up to a chunk later. (They were counted as the pool answered them, ahead of their
    # lines, and a stream ended up to a chunk sooner, counted for records it never sent.)
    assert bound < len(answered) <= bound + stream.BATCH + 1, (len(answered), bound)
    assert {entry["error"]["code"] for entry in answered} == {"MALFORMED_JSON"}
    plain = http.post(base + "/v1/hands:validateStream", data=lines[:2 * (bound + 100)], headers=NDJSON, timeout=120)
    assert len(plain.content.splitlines()) == bound + 100


def test_a_compressed_archive_of_one_record_over_and_over_is_answered_whole(base, http) -> None:
    """One real record sent 12,000 times (more than ``stream.RECORDS_ALLOWED``), gzip'd at its best:
    about 0.8 records a byte sent, within the bound on a compressed stream's records; every one
    answered."""
    line = lines_of(RECORD, 1)[0]
    body = gzip.compress(line * 12_000, 9)
    assert 12_000 > stream.RECORDS_ALLOWED and 12_000 / len(body) < stream.RECORDS_PER_BYTE, len(body)
    answer = http.post(base + "/v1/hands:validateStream", data=body, headers={**NDJSON, "Content-Encoding": "gzip"}, timeout=120)
    entries = answer.content.splitlines()
    assert len(entries) == 12_000 and set(entries) == {entries[0]}
    assert json.loads(entries[0]) == {"id": "r0", "result": api.validate(RECORD)}


# ---- the stream -------------------------------------------------------------------------------


def _stream_lines() -> list[bytes]:
    """Lines of every kind: records, a batch, a bad record, a line that is no JSON, a blank line."""
    bad = dict(RECORD, seats=5)
    return [*lines_of(RECORD, 40), b'{"id": "b", "batch": [{"record": %s}, {"record": %s}]}\n' % (json.dumps(RECORD).encode(), json.dumps(bad).encode()),
            b"{oops\n", b"\n", *lines_of(bad, 20), b'{"id": "last", "record": %s}' % json.dumps(RECORD).encode()]


@pytest.mark.parametrize("coding", ["gzip", "x-gzip", "deflate", "members"])
def test_a_coded_stream_is_answered_as_the_plain_stream(coding, base, http) -> None:
    """The answer's bytes to a coded stream are the plain stream's (``members``: each line its
    own gzip member)."""
    lines = _stream_lines()
    plain = http.post(base + "/v1/hands:validateStream", data=b"".join(lines), headers=NDJSON, timeout=60)
    body = b"".join(map(gzip.compress, lines)) if coding == "members" else coded(b"".join(lines), coding)
    answer = http.post(base + "/v1/hands:validateStream", data=body, timeout=60,
                       headers={**NDJSON, "Content-Encoding": "gzip" if coding == "members" else coding})
    assert plain.status_code == answer.status_code == 200
    assert len(plain.content.splitlines()) == len(lines) - 1  # (the blank line is skipped)
    assert answer.content == plain.content


@pytest.mark.parametrize("coding", ["gzip", "deflate", "members"])
@pytest.mark.parametrize("framing", ["content-length", "chunked"])
def test_a_coded_stream_s_lines_are_answered_as_they_arrive(coding, framing, served) -> None:
    """Each line's compressed bytes (flushed after it, or its own gzip member) are answered
    before the next line is sent, a piece of a few bytes at a time: the body is decoded as it
    arrives, not once it has ended; then the body ends and the stream with it."""
    port, _ = served
    lines = lines_of(RECORD, 4)
    pieces = [gzip.compress(line) for line in lines] + [b""] if coding == "members" else flushed(lines, coding)
    want = {"result": api.validate(RECORD)}
    client = Stream(port, None if framing == "chunked" else sum(map(len, pieces)), "gzip" if coding == "members" else coding)
    try:
        for i, piece in enumerate(pieces[:-1]):
            for at in range(0, len(piece), 100):
                client.send(piece[at:at + 100])
            entries = client.wait(i + 1, 10)  # (the body not ended: an answer only the body's end gave would never come)
            assert entries == [{"id": f"r{n}", **want} for n in range(i + 1)], entries
        if pieces[-1]:
            client.send(pieces[-1])
        client.end()
        assert client.wait(len(lines) + 1, 10) == [{"id": f"r{n}", **want} for n in range(len(lines))]
        assert client.sock.recv(1) == b""  # (the answer has ended: the connection closes)
    finally:
        client.close()


def _error(message: str) -> dict:
    return {"error": {"code": "MALFORMED_JSON", "message": f"{message}: the lines before are answered"}}


# (case, Content-Encoding, the body after three flushed lines, the last entry)
_PIECES = flushed(lines_of(RECORD, 3))
_BROKEN = [
    ("a reserved block type", "gzip", b"\xff\xff\xff\xff", _error("the body (Content-Encoding: gzip) is not valid gzip data: invalid block type")),
    ("cut short", "gzip", b"", _error("the body (Content-Encoding: gzip) ended before the end of its gzip data")),
    ("bytes after the member", "gzip", _PIECES[-1] + b"junk\n", _error("the body (Content-Encoding: gzip) has bytes after its gzip data that "
                                                                         "start no gzip member (one starts 1f 8b)")),
    ("bytes after the deflate data", "deflate", None, _error("the body (Content-Encoding: deflate) has bytes after the end of its deflate "
                                                              "data")),
]


@pytest.mark.parametrize(("case", "coding", "rest", "last"), _BROKEN, ids=[case[0] for case in _BROKEN])
def test_a_stream_that_cannot_be_decoded_ends_with_its_error_after_the_lines_before(case, coding, rest, last, served) -> None:
    """The lines decoded before the fault are answered, then the stream's last entry is its
    MALFORMED_JSON, as a chunk HTTP cannot read ends it (tests/test_service_stream_lines.py),
    naming the body's Content-Encoding (a body cut short: its client ended it, or closed)."""
    port, _ = served
    pieces = flushed(lines_of(RECORD, 3), coding)
    body = b"".join(pieces[:-1]) + (pieces[-1] + b"x" if rest is None else rest)
    want = {"result": api.validate(RECORD)}
    client = Stream(port, None, coding)
    try:
        client.send(body)
        client.end()
        assert client.wait(4, 10) == [*({"id": f"r{n}", **want} for n in range(3)), last]
        assert client.wait(5, 1) == [*({"id": f"r{n}", **want} for n in range(3)), last]  # (the last)
    finally:
        client.close()


def test_a_stream_cut_short_by_its_client_ends_with_its_error(served) -> None:
    """A body of known length whose client closes before its end: the lines before are answered,
    and the body cut short is the last entry, as a plain body's is (test_service_stream_lines): it
    ended before its Content-Length, and before the end of its gzip data with it."""
    port, _ = served
    pieces = _PIECES[:-1]  # (gzip's trailer not sent)
    sent = sum(map(len, pieces))
    client = Stream(port, sent + 100, "gzip")
    try:
        client.send(b"".join(pieces))
        client.sock.shutdown(socket.SHUT_WR)
        entries = client.wait(5, 10)
        assert entries[3:] == [_error(f"the body ended after {sent:,} of its {sent + 100:,} bytes (its Content-Length)")] and len(entries) == 4
    finally:
        client.close()


def test_a_stream_that_is_no_gzip_at_all_is_one_error_entry(base, http) -> None:
    answer = http.post(base + "/v1/hands:validateStream", data=b"".join(lines_of(RECORD, 3)), headers={**NDJSON, "Content-Encoding": "gzip"},
                       timeout=30)
    assert answer.status_code == 200
    assert [json.loads(line) for line in answer.content.splitlines()] == [
        _error("the body (Content-Encoding: gzip) is not gzip: it does not start with gzip's magic bytes 1f 8b")]


def test_a_paused_coded_stream_ends_with_request_timeout_after_its_lines(served) -> None:
    """NAIPES_STREAM_IDLE_SECONDS bounds a pause of the compressed body as of a plain one: the
    lines before are answered, then REQUEST_TIMEOUT."""
    port, _ = served
    client = Stream(port, None, "gzip")
    try:
        client.send(b"".join(_PIECES[:2]))
        entries = client.wait(3, IDLE * 4)
        assert [entry.get("id") for entry in entries] == ["r0", "r1", None], entries
        assert entries[2] == {"error": {"code": "REQUEST_TIMEOUT", "message": f"the body sent nothing for {IDLE:g} seconds: the lines before are answered"}}
    finally:
        client.close()


def test_a_long_line_in_a_coded_stream_is_its_entry_and_the_stream_goes_on(base, http) -> None:
    """A line over the limit (decoded), within the 64 MiB skipped, is its PAYLOAD_TOO_LARGE entry
    and the lines after it are answered, as in the plain stream."""
    lines = [lines_of(RECORD, 1)[0], b" " * (MAX_REQUEST_BYTES + 10) + b"{}\n", lines_of(RECORD, 2)[1]]
    plain = http.post(base + "/v1/hands:validateStream", data=b"".join(lines), headers=NDJSON, timeout=60)
    answer = http.post(base + "/v1/hands:validateStream", data=gzip.compress(b"".join(lines)), timeout=60,
                       headers={**NDJSON, "Content-Encoding": "gzip"})
    assert answer.content == plain.content
    assert [json.loads(line).get("error", {}).get("code") for line in answer.content.splitlines()] == [None, "PAYLOAD_TOO_LARGE", None]


def test_a_late_coded_body_is_request_timeout(served) -> None:
    """NAIPES_BODY_SECONDS bounds a compressed body as a plain one: what has not come in time is
    REQUEST_TIMEOUT (408), and the connection closes."""
    port, _ = served
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(b"POST /v1/hands:validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\n"
                     b"Content-Length: %d\r\n\r\n" % len(_GZ) + _GZ[:20])
        start, received = time.monotonic(), b""
        while chunk := sock.recv(65536):
            received += chunk
    head, _, body = received.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 408 ") and json.loads(body)["code"] == "REQUEST_TIMEOUT", received
    assert time.monotonic() - start < IDLE + 8


def test_a_coded_body_cut_short_is_malformed_request(served) -> None:
    """A compressed body whose client closed before its Content-Length is cut short as a plain
    one is (the body as sent ended before its end), before any decoding."""
    port, _ = served
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(b"POST /v1/hands:validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\n"
                     b"Content-Length: %d\r\n\r\n" % (len(_GZ) + 100) + _GZ)
        sock.shutdown(socket.SHUT_WR)
        received = b""
        while chunk := sock.recv(65536):
            received += chunk
    head, _, body = received.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 400 "), received
    assert json.loads(body)["detail"] == "the body ended before its end: the client closed the connection"


def _stream_records(port: int) -> float:
    """The REST stream records ``/metrics`` counts, every code."""
    text = requests.get(f"http://127.0.0.1:{port}/metrics", timeout=10).text
    return sum(float(line.rsplit(" ", 1)[1]) for line in text.splitlines()
               if line.startswith("naipes_stream_records_total{") and 'transport="rest"' in line)


def test_a_coded_stream_s_records_are_counted(served) -> None:
    port, _ = served
    before = _stream_records(port)
    lines = _stream_lines()
    answer = requests.post(f"http://127.0.0.1:{port}/v1/hands:validateStream", data=gzip.compress(b"".join(lines)), timeout=60,
                           headers={**NDJSON, "Content-Encoding": "gzip"})
    assert answer.status_code == 200
    records = len(lines) - 1 + 1  # (the blank line counts none, the batch's line two)
    deadline = time.monotonic() + 10
    while _stream_records(port) - before < records and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _stream_records(port) - before == records


class _Breaking(io.RawIOBase):
    """A body that gives ``data`` and then raises ``error``."""

    def __init__(self, data: bytes, error: Exception) -> None:
        self.data, self.error = data, error

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        if not self.data:
            raise self.error
        size = min(len(buffer), len(self.data))
        buffer[:size], self.data = self.data[:size], self.data[size:]
        return size


@pytest.mark.parametrize("within", [False, True], ids=["between lines", "within a long line"])
def test_a_body_whose_read_fails_ends_with_its_ending(within) -> None:
    """The stream's reader (``stream.read_lines``) ends a body whose read raises, after the lines
    before, with its ending: a pause's TIMED_OUT, a broken body's BROKEN, a decoding's error (its
    MALFORMED_JSON), between two lines or while it skips a line over the limit (which raised, and
    cut the stream's answer short)."""
    head = b"a\n" + (b"x" * 250 if within else b"")
    for error, last in ((TimeoutError(), stream.Ending.TIMED_OUT), (OSError(), stream.Ending.BROKEN),
                        (ServiceError("MALFORMED_JSON", "the body (Content-Encoding: gzip) ..."), None)):
        items = list(stream.read_lines(_Breaking(head, error), limit=100, buffer=64))
        assert items[0] == b"a\n" and len(items) == 2, items
        if last is None:
            assert isinstance(items[1], ServiceError) and (items[1].code, items[1].message) == (
                "MALFORMED_JSON", "the body (Content-Encoding: gzip) ...: the lines before are answered")
        else:
            assert items[1] is last
    lines = list(stream.read_lines(io.BytesIO(b"a\n" + b"x" * 1000), limit=100, skip=500))
    assert lines[0] == b"a\n" and isinstance(lines[1], ServiceError) and lines[1].code == "PAYLOAD_TOO_LARGE" and len(lines) == 2
    assert list(stream.read_lines(io.BytesIO(b"a\n" + b"x" * 400 + b"\nb\n"), limit=100, skip=500)) == [b"a\n", stream.Ending.TOO_LARGE, b"b\n"]


# ---- answers ----------------------------------------------------------------------------------

LARGE = load_example(sorted(examples_dir().glob("revesino-full-*.json"))[0])[0]  # (its answer, events and all: about 6.5 KB)


def _raw(http: requests.Session, verb: str, url: str, accept: str | None, **kwargs: Any) -> tuple[requests.Response, bytes]:
    """The answer to a request with ``Accept-Encoding: accept`` (None: no such header) and its body
    as sent, not decoded."""
    answer = http.request(verb, url, headers={**kwargs.pop("headers", {}), "Accept-Encoding": accept}, stream=True, timeout=30, **kwargs)
    return answer, answer.raw.read(decode_content=False)


def _inflated(body: bytes, coding: str) -> bytes:
    """``body`` decoded from ``coding``: gzip's one member, or deflate in zlib's wrapping (RFC 9110)."""
    if coding == "gzip":
        assert body[:2] == b"\x1f\x8b"
        return gzip.decompress(body)
    return zlib.decompress(body)


def _answers(base: str) -> list[tuple[str, str, dict[str, Any]]]:
    """Calls answered with 1 KiB or more: a validation with its events, the OpenAPI document, a
    game's rules."""
    return [("POST", base + "/v1/hands:validate", {"data": json.dumps(LARGE), "headers": JSON}),
            ("GET", base + "/v1/openapi.json", {}), ("GET", base + "/v1/games/tresillo/rules", {})]


@pytest.mark.parametrize(("accept", "coding"), [
    ("gzip", "gzip"), ("x-gzip", "gzip"), ("GZip", "gzip"), ("deflate", "deflate"), ("gzip, deflate, br, zstd", "gzip"),
    ("deflate, gzip;q=0.5", "deflate"), ("*", "gzip"), ("gzip;q=0, *", "deflate"), ("identity;q=0, deflate", "deflate"),
    ("br", None), ("identity", None), ("gzip;q=0, deflate;q=0", None), (None, None),
])
def test_an_answer_is_compressed_in_the_coding_the_client_welcomes_most(accept, coding, base, http) -> None:
    """An answer of 1 KiB or more comes in the coding of gzip and deflate that ``Accept-Encoding``
    welcomes most (gzip on a tie; ``x-gzip`` is gzip; ``*`` welcomes both unless named), decoding to
    the plain answer's bytes, its ``Content-Length`` the bytes sent; as it is when neither is
    welcome. Each says it varies with ``Accept-Encoding``."""
    for verb, url, kwargs in _answers(base):
        plain, plain_body = _raw(http, verb, url, None, **kwargs)
        answer, body = _raw(http, verb, url, accept, **kwargs)
        assert plain.status_code == answer.status_code == 200 and len(plain_body) >= 1024, url
        assert "Content-Encoding" not in plain.headers and "Accept-Encoding" in plain.headers["Vary"], url
        assert "Accept-Encoding" in answer.headers["Vary"] and answer.headers["Content-Type"] == plain.headers["Content-Type"], url
        assert answer.headers.get("Content-Encoding") == coding, url
        assert int(answer.headers["Content-Length"]) == len(body), url
        if coding is None:
            assert body == plain_body, url
        else:
            assert _inflated(body, coding) == plain_body and len(body) < len(plain_body) / 2, url


def test_the_metrics_come_compressed_as_prometheus_asks(base, http) -> None:
    """Prometheus asks for the metrics gzip'd (``Accept-Encoding: gzip``): they come so."""
    answer, body = _raw(http, "GET", base + "/metrics", "gzip")
    assert (answer.status_code, answer.headers["Content-Encoding"]) == (200, "gzip")
    assert b"# TYPE naipes_requests_total counter" in _inflated(body, "gzip")


def test_a_small_answer_goes_as_it_is(base, http) -> None:
    """An answer under 1 KiB (it fits one packet: compressing it saves no round trip) goes as it
    is, whatever ``Accept-Encoding`` says, and so does not vary with it: the health check, a
    refusal, a short record's validation without its events."""
    calls = [("GET", base + "/healthz", {}), ("POST", base + "/v1/hands:validate", {"data": '{"game": "mus"}', "headers": JSON}),
             ("POST", base + "/v1/hands:validate?omitEvents=true", {"data": json.dumps(RECORD), "headers": JSON})]
    for verb, url, kwargs in calls:
        answer, body = _raw(http, verb, url, "gzip, deflate", **kwargs)
        assert "Content-Encoding" not in answer.headers and "Accept-Encoding" not in answer.headers.get("Vary", ""), url
        assert 0 < len(body) < 1024 and json.loads(body), url


def test_a_head_request_says_what_its_get_would_send(base, http) -> None:
    """``HEAD`` of a route answers the headers of its ``GET`` in the same coding, the compressed
    length included, and no body."""
    get, get_body = _raw(http, "GET", base + "/v1/openapi.json", "gzip")
    head, head_body = _raw(http, "HEAD", base + "/v1/openapi.json", "gzip")
    assert (head.status_code, head.headers["Content-Encoding"], head_body) == (200, "gzip", b"")
    assert head.headers["Content-Length"] == get.headers["Content-Length"] == str(len(get_body))


@pytest.fixture
def uncompressed_url(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """The REST app made with ``NAIPES_COMPRESS_ANSWERS=0``, served by werkzeug in this process."""
    from service_support import serving

    from service.rest import create_app

    monkeypatch.setenv("NAIPES_COMPRESS_ANSWERS", "0")
    with serving(create_app()) as url:
        yield url


def test_naipes_compress_answers_0_sends_every_answer_as_it_is(uncompressed_url, http) -> None:
    """``NAIPES_COMPRESS_ANSWERS=0``: no answer is compressed, a stream's neither, whatever the
    client welcomes, and none says it varies with ``Accept-Encoding``."""
    for verb, url, kwargs in _answers(uncompressed_url):
        answer, body = _raw(http, verb, url, "gzip, deflate", **kwargs)
        assert answer.status_code == 200 and len(body) >= 1024 and json.loads(body), url
        assert "Content-Encoding" not in answer.headers and "Accept-Encoding" not in answer.headers.get("Vary", ""), url
    answer, body = _raw(http, "POST", uncompressed_url + "/v1/hands:validateStream", "gzip", data=b"".join(_stream_lines()), headers=NDJSON)
    assert "Content-Encoding" not in answer.headers and len(body.splitlines()) == len(_stream_lines()) - 1


@pytest.mark.parametrize("coding", ["gzip", "deflate"])
def test_a_stream_s_answer_is_compressed_as_the_plain_one(coding, base, http) -> None:
    """A stream's answer to a client that welcomes a coding comes in it (as it is written, no
    ``Content-Length``), decoding to the plain answer's bytes; the body sent compressed too or not."""
    lines = _stream_lines()
    plain, plain_body = _raw(http, "POST", base + "/v1/hands:validateStream", None, data=b"".join(lines), headers=NDJSON)
    for body, sent in ((b"".join(lines), {}), (gzip.compress(b"".join(lines)), {"Content-Encoding": "gzip"})):
        answer, answer_body = _raw(http, "POST", base + "/v1/hands:validateStream", coding, data=body, headers={**NDJSON, **sent})
        assert (answer.status_code, answer.headers["Content-Encoding"], answer.headers["Content-Type"]) == (200, coding, "application/x-ndjson")
        assert "Content-Length" not in answer.headers and "Accept-Encoding" in answer.headers["Vary"]
        assert _inflated(answer_body, coding) == plain_body and len(answer_body) < len(plain_body) / 2


class _CodedStream(Stream):
    """A stream (``Stream``) whose answer comes compressed: its entries are those of the bytes of
    its chunks come so far, decoded."""

    def __init__(self, port: int, length: int | None, accept: str) -> None:
        super().__init__(port, length, accept=accept)
        self.wbits = 31 if accept == "gzip" else 15

    def head(self) -> bytes:
        return self.received.partition(b"\r\n\r\n")[0]

    def body(self) -> bytes:
        """The answer's bytes of the whole chunks come so far."""
        rest, body = self.received.partition(b"\r\n\r\n")[2], b""
        while True:  # (the chunks' framing: a chunk's bytes may hold CR LF of their own)
            size, crlf, after = rest.partition(b"\r\n")
            if not crlf or not int(size, 16) or len(after) < int(size, 16) + 2:
                return body
            body, rest = body + after[:int(size, 16)], after[int(size, 16) + 2:]

    def entries(self) -> list[dict]:
        text = zlib.decompressobj(self.wbits).decompress(self.body())
        return [json.loads(line) for line in text.split(b"\n")[:-1]]  # (whole lines only)


@pytest.mark.parametrize("accept", ["gzip", "deflate"])
@pytest.mark.parametrize("framing", ["content-length", "chunked"])
def test_a_compressed_stream_s_answers_come_as_they_are_made(accept, framing, served) -> None:
    """Each line's answer, compressed, can be decoded before the next line is sent: the service
    flushes its compressor after each answer, so a client that waits for each answer before
    sending on is answered as over a plain stream; then the body ends and the answer with it,
    its compressed data complete."""
    port, _ = served
    lines = lines_of(RECORD, 4)
    want = {"result": api.validate(RECORD)}
    client = _CodedStream(port, None if framing == "chunked" else sum(map(len, lines)), accept)
    try:
        for i, line in enumerate(lines):
            client.send(line)
            assert client.wait(i + 1, 10) == [{"id": f"r{n}", **want} for n in range(i + 1)]  # (the body not ended)
        assert f"Content-Encoding: {accept}".encode() in client.head()
        client.end()
        while chunk := client.sock.recv(65536):  # (the answer ends: the connection closes)
            client.received += chunk
        assert client.received.endswith(b"\r\n0\r\n\r\n") and client.entries() == [{"id": f"r{n}", **want} for n in range(len(lines))]
        inflate = zlib.decompressobj(client.wbits)
        inflate.decompress(client.body())
        assert inflate.eof and not inflate.unused_data  # (the compressed data's end, its trailer's)
    finally:
        client.close()


def test_a_compressed_stream_let_go_by_its_client_frees_its_slot(served) -> None:
    """A stream whose client goes away mid-answer, its answer compressed, ends as a plain one
    does: its slot is freed (the server takes 2 streams at once), and the next streams are answered."""
    port, _ = served
    body = b"".join(lines_of(LARGE, 400))
    for _ in range(4):  # (twice the slots)
        with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
            sock.sendall(b"POST /v1/hands:validateStream HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-ndjson\r\n"
                         b"Accept-Encoding: gzip\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body))
            assert sock.recv(65536).startswith(b"HTTP/1.1 200 ")
    deadline = time.monotonic() + 30  # (the server finds each client gone as it next writes to it)
    while True:
        answer = requests.post(f"http://127.0.0.1:{port}/v1/hands:validateStream", data=json.dumps(RECORD), headers=NDJSON, timeout=30)
        if answer.status_code != 429 or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert answer.status_code == 200 and answer.json() == {"result": api.validate(RECORD)}, answer.text


def test_encoded_chunks_closes_what_it_encodes() -> None:
    """The compressed stream closed before its end (its client gone) closes the answer it
    compresses, which frees the stream's slot and stops its pool's work."""
    closed = []

    def answer() -> Iterator[bytes]:
        try:
            yield from (b"line %d\n" % i for i in range(100))
        finally:
            closed.append(True)

    chunks = codings.encoded_chunks(answer(), "gzip")
    first = next(chunks)
    assert zlib.decompressobj(31).decompress(first) == b"line 0\n"
    chunks.close()
    assert closed == [True]
    whole = b"".join(codings.encoded_chunks(iter([b"a\n", b"", b"b\n"]), "deflate"))
    assert zlib.decompress(whole) == b"a\nb\n"


@pytest.mark.parametrize("compression", [grpc.Compression.Gzip, grpc.Compression.Deflate], ids=["gzip", "deflate"])
def test_grpc_messages_compressed_by_the_client_are_answered_as_plain_ones(compression, stub) -> None:
    """gRPC has its own message compression (``grpc-encoding``, a client's channel or call
    option), which grpcio decodes before the service reads a message: ValidateHand and a
    ValidateHands stream sent compressed are answered as sent plain, and a message that would
    inflate past grpcio's limit (``grpc_server.MESSAGE_CEILING``, measured on the decompressed
    message) is refused RESOURCE_EXHAUSTED without reaching the service (docs/api.md)."""
    record = json_format.ParseDict(RECORD, pb.HandRecord())
    request = pb.ValidateHandRequest(record=record)
    assert stub.ValidateHand(request, timeout=10, compression=compression) == stub.ValidateHand(request, timeout=10)
    stream = [pb.ValidateHandsRequest(id=str(i), record=record) for i in range(5)]
    assert list(stub.ValidateHands(iter(stream), timeout=60, compression=compression)) == list(stub.ValidateHands(iter(stream), timeout=60))
    # 8 MiB of one repeated action: 22 KiB compressed, under every limit as sent.
    bomb = pb.ValidateHandRequest(record=pb.HandRecord(game="rentoy", actions=["x" * 1000] * 8192))
    assert bomb.ByteSize() > 5 * MESSAGE_CEILING and len(zlib.compress(bomb.SerializeToString())) < MESSAGE_CEILING // 10
    with pytest.raises(grpc.RpcError) as refused:
        stub.ValidateHand(bomb, timeout=10, compression=compression)
    assert refused.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED and "Decompressed message larger than max" in refused.value.details()
    assert stub.ValidateHand(request, timeout=10, compression=compression) == stub.ValidateHand(request, timeout=10)


@pytest.fixture(scope="module", params=["none", "gzip", "deflate"])
def compressing_server(request: pytest.FixtureRequest) -> Iterator[tuple[str, int]]:
    """A gRPC server made with ``NAIPES_GRPC_COMPRESSION`` (the param), in this process: its
    setting and its port."""
    from service.grpc_server import create_server

    with pytest.MonkeyPatch.context() as env:
        env.setenv("NAIPES_GRPC_COMPRESSION", request.param)
        server, port = create_server("127.0.0.1", 0, max_workers=4)
    server.start()
    yield request.param, port
    server.stop(grace=None)


def _received(port: int, calls: Callable[[Any], Any], options: list[tuple[str, Any]] | None = None) -> tuple[Any, int]:
    """What ``calls`` (given a stub on a fresh channel through a ``Relay``) returns, and the bytes
    the server sent for it."""
    from naipes.v1 import naipes_pb2_grpc

    relay = Relay(port)
    try:
        with grpc.insecure_channel(relay.target, options=options or []) as channel:
            got = calls(naipes_pb2_grpc.NaipesServiceStub(channel))
        return got, relay.received
    finally:
        relay.close()


def test_naipes_grpc_compression_compresses_large_answers_for_clients_that_take_it(compressing_server, stub) -> None:
    """``NAIPES_GRPC_COMPRESSION=gzip`` (or ``deflate``): a ValidateHand answer of 1 KiB or more
    and a ValidateHands stream's messages come compressed (the bytes on the wire under half
    the plain server's), the same messages once grpcio has decoded them; an answer under 1 KiB
    goes as it is. ``none`` (the default) compresses nothing. A client that has turned the coding
    off (grpc's ``grpc.compression_enabled_algorithms_bitset`` 1: identity alone) cannot read a
    compressed answer: grpcio fails its call INTERNAL (docs/api.md: set it when every client
    decodes it)."""
    setting, port = compressing_server
    large = pb.ValidateHandRequest(record=json_format.ParseDict(LARGE, pb.HandRecord()))
    small = pb.ValidateHandRequest(record=json_format.ParseDict(RECORD, pb.HandRecord()), omit_events=True)
    batch = [pb.ValidateHandsRequest(id=str(i), record=large.record) for i in range(20)]
    want_large, want_small = stub.ValidateHand(large, timeout=10), stub.ValidateHand(small, timeout=10)
    want_stream = list(stub.ValidateHands(iter(batch), timeout=60))
    assert want_large.ByteSize() > 3000 and want_small.ByteSize() < 1024

    def unary(request: Any) -> Callable[[Any], Any]:
        return lambda s: [s.ValidateHand(request, timeout=10) for _ in range(10)]

    base = _received(port, lambda s: s.ValidateHand(small, timeout=10))[1]  # (a connection's own bytes, and one small answer)
    got, large_bytes = _received(port, unary(large))
    assert got == [want_large] * 10
    got, small_bytes = _received(port, unary(small))
    assert got == [want_small] * 10
    got, stream_bytes = _received(port, lambda s: list(s.ValidateHands(iter(batch), timeout=60)))
    assert got == want_stream
    identity_only = [("grpc.compression_enabled_algorithms_bitset", 1)]
    plain_large = 10 * want_large.ByteSize()
    assert small_bytes > 10 * want_small.ByteSize()  # (never compressed)
    assert _received(port, unary(small), identity_only)[0] == [want_small] * 10
    if setting == "none":
        assert _received(port, unary(large), identity_only)[0] == [want_large] * 10
    else:
        with pytest.raises(grpc.RpcError) as refused:
            _received(port, unary(large), identity_only)
        assert refused.value.code() == grpc.StatusCode.INTERNAL
        assert refused.value.details() == f"Compression algorithm not supported: {setting}", refused.value.details()
    if setting == "none":
        assert large_bytes > plain_large and stream_bytes > sum(m.ByteSize() for m in want_stream)
    else:
        assert large_bytes - base < plain_large / 2, (large_bytes, plain_large)
        assert stream_bytes - base < sum(m.ByteSize() for m in want_stream) / 2, stream_bytes
