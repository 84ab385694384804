"""The content codings of REST bodies. A request's body (``Content-Encoding``) may come gzip
(``gzip``, or its alias ``x-gzip``: RFC 1952, one member or several one after another, as gzip
writes them) or ``deflate`` (RFC 9110's: deflate data in zlib's wrapping, RFC 1950), and is
decoded as it is read (``Decoding``), so that an NDJSON stream's lines are answered while its
compressed body is still arriving (``service.rest``). One coding at most: a body coded twice
(``gzip, gzip``) is refused, as is a coding the service does not decode (``coding``).

What is limited is the decoded body, as it is inflated: a read never inflates more than it was
asked for (zlib's ``max_length``), so a body that inflates to gigabytes (a zip bomb) is never
held whole; the reader stops at the limit (``decoded``: a unary body's; the stream's is each
line's, ``service.stream.read_lines``). Data that cannot be decoded (not gzip, corrupt, cut
short, bytes after the end) is a ``ServiceError`` naming the body and its coding.

An answer is compressed for a client that says it takes gzip or deflate (``Accept-Encoding``:
``answer_coding``), whole (``encoded``) or, an NDJSON stream's, a line at a time as each is
written (``encoded_chunks``).
"""

from __future__ import annotations

import functools
import io
import zlib
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from service.errors import ServiceError

# The codings decoded -> zlib's wbits for their wrapping: gzip's (a 32 KiB window, 16 + 15) or zlib's.
WBITS = {"gzip": 31, "x-gzip": 31, "deflate": 15}
GZIP_MAGIC = b"\x1f\x8b"  # the first two bytes of a gzip member (RFC 1952, 2.3.1)
READ = 64 * 1024  # the compressed bytes a read takes at most (``decoded``)
# An NDJSON stream's line over the limit is skipped to find the next line (``stream.read_lines``),
# in a decoded body for this many bytes at most, and the stream ends with it past them: skipping
# inflates what it skips, about 2 ms of CPU a MiB of zeros, and a MiB sent may inflate to a GiB
# (deflate's most is about a thousandfold). 64 MiB is 64 times the limit, as much as the server
# discards of a refused body (``rest_worker.LINGER_BYTES``).
SKIP_BYTES = 64 << 20


def named(value: str | None) -> list[str]:
    """The codings a ``Content-Encoding`` or ``Transfer-Encoding`` header's value names, in lower
    case, in the order they were applied (none for a header that is not there)."""
    return [] if value is None else [part.strip().lower() for part in value.split(",") if part.strip()]


def coding(value: str) -> str | None:
    """The coding a ``Content-Encoding`` header's value names, in lower case (``gzip``, ``x-gzip``
    or ``deflate``), or None for none (``identity``, which is no coding, may be listed with it);
    UNSUPPORTED_MEDIA_TYPE (RFC 9110, 15.5.16) for one the service does not decode, or for several
    (the body coded once and then again: never written by an HTTP client, and each layer would
    multiply what a small body can inflate to)."""
    applied = [part for part in named(value) if part != "identity"]
    if not applied:
        return None
    if len(applied) > 1:
        raise ServiceError("UNSUPPORTED_MEDIA_TYPE", f"the body's Content-Encoding is {value.strip()}: the service decodes one coding "
                           "(gzip, x-gzip or deflate), not several; send the body coded once, or uncompressed")
    if applied[0] not in WBITS:
        raise ServiceError("UNSUPPORTED_MEDIA_TYPE", f"the body's Content-Encoding is {value.strip()}: the service decodes gzip, "
                           "x-gzip and deflate; send the body in one of them, or uncompressed (no Content-Encoding, or identity)")
    return applied[0]


class Decoding(io.RawIOBase):
    """A body in a content coding, read decoded: a read returns the decoded bytes the compressed
    bytes that have come give (at least one, unless the body has ended), inflating no more than it
    is asked for. ``read``: the body's own read (``read(size)``: up to ``size`` bytes, empty at its
    end), asked for ``size`` bytes at a time; ``code``: the error table's code of a body that cannot
    be decoded (MALFORMED_REQUEST for a request's body; a stream's entry is MALFORMED_JSON, as its
    body's bad chunks are); ``label``: what its errors call it (a REST body's ``the body
    (Content-Encoding: gzip)``; ``naipes audit``'s its file's name). An empty body is empty
    content, in any coding. ``sent``: how many of the body's bytes, compressed, it has read."""

    def __init__(self, read: Callable[[int], bytes], name: str, size: int, code: str = "MALFORMED_REQUEST", label: str | None = None) -> None:
        super().__init__()
        self._read, self._size, self._code = read, size, code
        self.name = name
        self._label = label or f"the body (Content-Encoding: {name})"
        self._gzip = WBITS[name] == 31
        self._inflate: Any = None  # the member being inflated (zlib's Decompress), None between members
        self._held = b""  # compressed bytes read and not yet inflated: the start of the next member
        self._members = 0
        self._full = False  # the last inflate filled its output: zlib may hold more without more input
        self._tail = b""  # the input the last inflate left, its output full
        # After an error, the input that holds it, given again a byte at a time (``readinto``).
        self._again: bytes | None = None
        self._ended = False
        self.sent = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        room = len(buffer)
        while room and not self._ended:
            inflate = self._inflate
            if inflate is None:
                data = self._next_member()
                if data is None:
                    self._ended = True
                    return 0
                inflate = self._inflate
            elif self._tail or self._full:
                data = self._tail
            elif self._again:
                data, self._again = self._again[:1], self._again[1:]
            else:
                data = self._take()
                if not data:
                    raise self._error(f"ended before the end of its {self._kind} data")
            before = inflate.copy() if self._again is None else None
            try:
                out = inflate.decompress(data, room)
            except zlib.error as exc:  # (zlib's words: 'invalid block type', 'incorrect data check', ...)
                if before is not None:
                    # What the input gave before its fault is lost with the error: it is given
                    # again from the state before it, a byte at a time, up to the fault, so that
                    # every line before it is read (as the lines before a bad chunk are).
                    self._inflate, self._again, self._tail, self._full = before, data, b"", False
                    continue
                words = str(exc).rpartition(": ")[2]
                if not self._gzip and words == "incorrect header check":
                    words += " (deflate comes in zlib's wrapping, RFC 1950, not raw)"
                raise self._error(f"is not valid {self._kind} data: {words}") from None
            self._full, self._tail = len(out) == room, inflate.unconsumed_tail
            if inflate.eof:
                self._held, self._inflate, self._full, self._again = inflate.unused_data + (self._again or b""), None, False, None
            if out:
                buffer[:len(out)] = out
                return len(out)
        return 0

    def _take(self) -> bytes:
        """The body's next compressed bytes (empty at its end), counted in ``sent``."""
        data = self._read(self._size)
        self.sent += len(data)
        return data

    def _next_member(self) -> bytes | None:
        """The compressed bytes that start the next member (its inflater made), or None at the
        body's end: a gzip member starts with gzip's magic bytes (anything else after a member is
        refused, zeros included), and deflate data is one zlib stream."""
        held = self._held
        while len(held) < 2:
            more = self._take()
            if not more:
                break
            held += more
        self._held = b""
        if not held:
            return None
        if self._members and not self._gzip:
            raise self._error("has bytes after the end of its deflate data")
        if self._gzip and not held.startswith(GZIP_MAGIC):
            if self._members:
                raise self._error("has bytes after its gzip data that start no gzip member (one starts 1f 8b)")
            raise self._error("is not gzip: it does not start with gzip's magic bytes 1f 8b")
        self._members += 1
        self._inflate = zlib.decompressobj(WBITS[self.name])
        return held

    @property
    def _kind(self) -> str:
        return "gzip" if self._gzip else "deflate"

    def _error(self, what: str) -> ServiceError:
        return ServiceError(self._code, f"{self._label} {what}")


def decoded(data: bytes, name: str, limit: int, label: str | None = None, code: str = "MALFORMED_REQUEST") -> bytes:
    """A request's whole body (``data``, in the coding ``name``) decoded; PAYLOAD_TOO_LARGE as soon
    as it decodes to more than ``limit`` bytes, having inflated at most one byte more. ``label``
    and ``code``: ``Decoding``'s (a file's name and MALFORMED_JSON: ``naipes validate``)."""
    body = io.BytesIO(data)
    decoding = Decoding(body.read, name, READ, code, label)
    out = bytearray(limit + 1)
    view, size = memoryview(out), 0
    while size <= limit:
        got = decoding.readinto(view[size:])
        if not got:
            return bytes(view[:size])
        size += got
    if label is not None:
        raise ServiceError("PAYLOAD_TOO_LARGE", f"{label} is larger than {limit} bytes once decoded")
    raise ServiceError("PAYLOAD_TOO_LARGE", f"the body is larger than {limit} bytes once decoded (Content-Encoding: {name})")


# Answers: a REST answer is compressed for a client whose ``Accept-Encoding`` takes gzip or deflate
# (``answer_coding``; gzip where both are as welcome), unless NAIPES_COMPRESS_ANSWERS=0 (``service.rest``).
# An answer under ANSWER_MIN_BYTES is sent as it is: it fits one packet on any network (an MTU of
# 1,500 bytes), so compressing it saves no round trip. zlib's level 1 (nginx's default): a Revesino
# answer with its events, 6.5 KB, is 1.6 KB in 21 us, against 1.3 KB in 41 us at zlib's default, 6.
ANSWER_CODINGS = ("gzip", "deflate")  # (the order breaks a tie of their q-values)
ANSWER_MIN_BYTES = 1024
ANSWER_LEVEL = 1


@functools.lru_cache(maxsize=256)  # (a client sends the same header each time: parsing it takes about 5 us)
def answer_coding(accept: str) -> str | None:
    """The coding of an answer for a request whose ``Accept-Encoding`` is ``accept`` (RFC 9110,
    12.5.3: q-values, ``*``, any case, ``x-gzip`` for gzip): the one of ``gzip`` and ``deflate`` it
    welcomes most, or None for neither (the answer is then sent as it is, ``identity;q=0`` or not)."""
    from werkzeug.http import parse_accept_header  # (here: the gRPC server and the CLI, which import this module, need no werkzeug)

    named = {value.lower(): q for value, q in parse_accept_header(accept)}
    rest = named.get("*", 0)
    welcome = {"gzip": named.get("gzip", named.get("x-gzip", rest)), "deflate": named.get("deflate", rest)}
    best = max(ANSWER_CODINGS, key=lambda name: welcome[name])  # (max keeps the first of a tie)
    return best if welcome[best] > 0 else None


def _compressor(name: str) -> Any:
    return zlib.compressobj(ANSWER_LEVEL, zlib.DEFLATED, WBITS[name])


def encoded(data: bytes, name: str) -> bytes:
    """A whole answer in the coding ``name`` (``gzip``: one member; ``deflate``: zlib's wrapping)."""
    compressor = _compressor(name)
    out: bytes = compressor.compress(data) + compressor.flush()
    return out


def encoded_chunks(chunks: Iterable[bytes], name: str) -> Iterator[bytes]:
    """An answer written as it is made (an NDJSON stream's lines) in the coding ``name``: each
    chunk's compressed bytes are flushed with it (zlib's ``Z_SYNC_FLUSH``), so a client decodes
    each line once its chunk has come, as it reads a plain stream's. ``chunks`` is closed with
    this (its client gone, the answer ended)."""
    compressor = _compressor(name)
    try:
        for chunk in chunks:
            if chunk:
                yield compressor.compress(chunk) + compressor.flush(zlib.Z_SYNC_FLUSH)
        yield compressor.flush()
    finally:
        close = getattr(chunks, "close", None)
        if close is not None:
            close()
