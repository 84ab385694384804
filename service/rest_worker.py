"""REST's gunicorn worker: gunicorn's gthread worker, except that the errors gunicorn answers
itself are answered as every other error of the service, in problem JSON with a code of the error
table (``service.errors``), not as gunicorn's HTML page. They are the requests gunicorn cannot
read before the app sees them (a request line over 4094 bytes, a header over 8190 bytes or more
than 100 headers, a malformed request line, method, HTTP version or header, a Content-Length that
is not a number, an ``Expect`` other than ``100-continue``, a transfer coding it does not know),
and the bodies whose chunks it cannot read once the app reads them (``service.rest`` passes those
on to the worker).

gunicorn still decides: its ``Worker.handle_error`` chooses the status, words the error and logs
it (a warning for the client's errors, the traceback for anything else); the page it writes is
kept (``_Page``), never sent, and the worker answers the same status with gunicorn's words as
the ``detail``, the code ``CODES`` gives the status, and ``Connection: close``, as gunicorn's
page has. An unexpected exception is gunicorn's 500: ``INTERNAL``, its traceback logged. Nothing
here names gunicorn's exception classes, which differ from one gunicorn version to the next.

    gunicorn --worker-class service.rest_worker.ProblemWorker --threads 4 'service.rest:create_app()'

(``naipes serve`` runs it so: ``service.cli.REST_WORKER_CLASS``.)

Every answer the worker writes carries the CORS headers the app's answer would carry for the
request's Origin (``service.cors``: one decision for both), and its request ID (``X-Request-Id``,
``service.access``), once gunicorn has come to the request's
headers: the headers it read, or, when it failed among them (a header too large or malformed, too
many, an ``Expect`` it refuses), the header lines of the head as they came (``_Request``). A
request refused before its headers (its request line, a PROXY line) has no Origin to answer.

The worker also honours the app's ``Connection: close``, which gunicorn drops as a hop-by-hop
header: the app says it with an answer given before the request's body was read to its end (a
refused stream, a late or too large body, a wrong route: ``service.rest``), and the connection
then closes right after the answer, which says ``Connection: close``, its body unread and no
thread held (gunicorn would read the rest of the body first, for up to five seconds, on the
thread). The close lingers, as nginx's does: the answer is followed by its end (a FIN), and what
the client still sends is read and discarded by the worker's event loop, without waiting, until
the client closes (at most ``LINGER_BYTES`` and ``LINGER_SECONDS``); closed with the body unread,
the socket would answer the rest of it with a reset, and a client that reads the answer only once
it has sent its body (http.client, urllib) would get "connection reset by peer" instead. Every
other connection that closes after its answer (the client's ``Connection: close``, an error
gunicorn answered) lingers the same way: gunicorn's graceful close waited for the client's end on
the event loop, up to two seconds, and every other connection of the worker waited with it.

The 100 Continue a request's ``Expect: 100-continue`` asks for goes out when the app first reads
the request's body (``_OwedContinue``), not before the app sees the request as gunicorn sends it: a
request the app answers without its body (a body over the limit, 413; a wrong route; a refused
stream) is answered at once, without the 100, and its client does not send a body that would be
discarded (RFC 9110, 10.1.1: a server may answer with the final status instead). Such a connection
closes after the answer (lingering, as above), since its client may or may not send the body it was
not asked for; the app's answers of that kind say ``Connection: close`` already. A client that sent
(some of) its body with the head, without waiting, is owed no 100 (gunicorn's reader holds those
bytes already), and its connection is kept as any other.

Also here, as it reads gunicorn's body readers: ``ArrivedBody``, gunicorn's request body read as
it arrives, through which the NDJSON stream answers each line as soon as it has come.
"""

from __future__ import annotations

import html
import io
import re
import selectors
import socket
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from functools import partial
from http import HTTPStatus
from typing import Any

from gunicorn import util
from gunicorn.http.body import Body, ChunkedReader, LengthReader
from gunicorn.http.message import Request
from gunicorn.http.parser import RequestParser
from gunicorn.workers.gthread import ThreadWorker

from service import access, codec, cors
from service.errors import ERRORS, ServiceError, from_exception, problem

# The lingering close of a connection answered before its body was read (``ProblemWorker._linger``;
# nginx's lingering_close, with lingering_time 30 s and lingering_timeout 5 s). It holds no thread
# and never waits: the worker's event loop reads what has come, each time some has. What it holds is
# a connection (an open socket, one of gunicorn's --worker-connections, 1000 a worker), until the
# client closes or one of these bounds is reached, after which the socket is closed as it is (a
# reset if the client sends on):
# - LINGER_SECONDS: the time a body the service reads is given (NAIPES_BODY_SECONDS' default), for
#   the client to send the rest of one it refused. A client that sends nothing more and keeps its
#   connection open holds it that long, no longer than a silent body holds a thread.
# - LINGER_BYTES: 64 times the largest body the service reads (1 MiB), so that a client sending a
#   body of several MiB by mistake gets the answer, and a client that sends on and on is cut off;
#   discarding 64 MiB costs the worker 20 to 30 ms of CPU (measured on loopback).
# - LINGER_READ: what one read takes, at most, each time the socket is readable (a buffer of this
#   size, the worker's own): the event loop takes a turn at every other connection between two
#   reads, so that a client sending fast delays none of them.
# - LINGER_IDLE_SECONDS: for a connection whose reading side was shut here (a late body's: READ_SHUT),
#   which cannot be told the client's end (a read finds an end whenever nothing has come) and must not
#   shut its sending side (Linux answers whatever comes after that with a reset, RFC 1122): it is
#   closed once nothing has come for this long, as gunicorn's keep-alive (2 s); a client still sending
#   a body sends far more often, and one that has stopped is not kept waiting for the end long. Such a
#   socket is always readable, so it is read once a turn of the event loop (at least once a second:
#   LINGER_READ a second at least, more than a client too slow for its body's 10 seconds sends).
LINGER_SECONDS = 10.0
LINGER_BYTES = 64 << 20
LINGER_READ = 256 << 10
LINGER_IDLE_SECONDS = 2.0

# The app sets this in a request's environ when it has shut the socket's reading side (to end the
# wait on a late body: REQUEST_TIMEOUT, ``service.rest``).
READ_SHUT = "naipes.read_shut"

# The status gunicorn chose -> the error table's code of that status.
CODES = {
    400: "MALFORMED_REQUEST",
    403: "FORBIDDEN",
    414: "URI_TOO_LONG",
    417: "EXPECTATION_FAILED",
    431: "HEADERS_TOO_LARGE",
    500: "INTERNAL",
    501: "UNSUPPORTED_TRANSFER_CODING",
}


def answer(status: int, detail: str, exc: BaseException, headers: list[tuple[str, str]] | None = None) -> bytes:
    """The HTTP answer, problem JSON, to an error gunicorn answered with ``status`` and ``detail``,
    with ``headers`` besides (CORS's, the request ID's). A status ``CODES`` lacks (a later gunicorn's) is
    MALFORMED_REQUEST (400) below 500, else INTERNAL (500): the code's own status is answered, as
    the table has it. The reason phrase is Python's for the status (gunicorn's page says "501 Bad
    Request")."""
    code = CODES.get(status) or ("MALFORMED_REQUEST" if status < 500 else "INTERNAL")
    status = ERRORS[code].http_status
    # An unexpected exception is told as any other (the traceback is in the log, never in the answer).
    error = from_exception(exc) if code == "INTERNAL" else ServiceError(code, detail or HTTPStatus(status).phrase)
    body = codec.dumps_bytes(problem(error)) + b"\n"
    extra = "".join(f"{name}: {value}\r\n" for name, value in headers or [])
    head = (f"HTTP/1.1 {status} {HTTPStatus(status).phrase}\r\nConnection: close\r\nContent-Type: application/problem+json\r\n"
            f"Content-Length: {len(body)}\r\n{extra}\r\n")
    return head.encode("latin-1") + body


class _Page:
    """The client's socket as gunicorn's ``handle_error`` sees it: the HTML page it writes there
    (``gunicorn.util.write_error``) is kept, not sent."""

    def __init__(self) -> None:
        self.data = b""

    def gettimeout(self) -> float:
        return 0.0  # (util.write_nonblock: "already non-blocking", so it only calls sendall)

    def sendall(self, data: bytes) -> None:
        self.data += data

    def read(self) -> tuple[int, str]:
        """The status of the page's status line, and gunicorn's message under its heading (500
        and no message if gunicorn wrote nothing)."""
        head, _, page = self.data.partition(b"\r\n\r\n")
        words = head.split(b" ", 2)
        if len(words) < 2 or not words[1].isdigit():
            return 500, ""
        message = re.search(rb"</h1>(.*?)</body>", page, re.DOTALL)
        return int(words[1]), html.unescape(message[1].decode("latin-1").strip()) if message else ""


class _Request(Request):  # type: ignore[misc]  # (gunicorn has no type hints)
    """gunicorn's request, which keeps its head's header lines as they came (``head``), and is put
    on the exception it raises when it cannot be read (``naipes_request``): the answer to a request
    whose headers gunicorn could not read still knows its Origin (``request_head``)."""

    head = b""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        try:
            super().__init__(*args, **kwargs)
        except Exception as exc:
            exc.naipes_request = self  # type: ignore[attr-defined]
            raise

    def parse_headers(self, data: bytes, from_trailer: bool = False) -> Any:
        if not from_trailer:
            self.head = data
        return super().parse_headers(data, from_trailer)


def request_head(req: Any, exc: BaseException) -> tuple[str | None, Callable[[str], str | None]]:
    """The method of the request an error answers and its headers (the value of one by name,
    case-insensitive), as far as gunicorn read them: the headers it read, or, if it failed among
    them, the head's lines as they came; none if it failed before them. A header given twice is
    joined by a comma, as gunicorn joins it for the app."""
    request = req if req is not None else getattr(exc, "naipes_request", None)
    if request is None:
        return None, lambda name: None
    lines = (line.partition(b":") for line in getattr(request, "head", b"").split(b"\r\n"))
    pairs = getattr(request, "headers", None) or [(name.decode("latin-1"), value.strip(b" \t").decode("latin-1"))
                                                   for name, colon, value in lines if colon]
    fields: dict[str, str] = {}
    for name, value in pairs:
        key = name.lower()
        fields[key] = f"{fields[key]},{value}" if key in fields else value
    return getattr(request, "method", None), lambda name: fields.get(name.lower())


class _OwedContinue:
    """The 100 Continue a request expects, sent when the app first reads its body: it stands, while
    the request is served, for the ``chunk`` of the connection's reader (gunicorn's
    ``SocketUnreader``, the one place its body readers read the socket from), sends the 100 before
    that first read and withdraws (``sent``). gunicorn would send it before the app sees the request
    (``gunicorn.http.wsgi.create``, for a request whose ``_expected_100_continue`` is set), which
    ``ProblemWorker.handle_request`` unsets."""

    CONTINUE = b"HTTP/1.1 100 Continue\r\n\r\n"

    def __init__(self, unreader: Any, sock: socket.socket) -> None:
        self.unreader, self.sock, self.sent = unreader, sock, False
        unreader.chunk = self

    def __call__(self, size_hint: int | None = None) -> bytes:
        self.withdraw()
        self.sent = True
        try:
            self.sock.sendall(self.CONTINUE)
        except OSError:
            pass  # (the client has gone: the read below finds it so, as any body's read does)
        data: bytes = self.unreader.chunk(size_hint)
        return data

    def withdraw(self) -> None:
        self.unreader.__dict__.pop("chunk", None)  # (the class's chunk again)


class ProblemWorker(ThreadWorker):  # type: ignore[misc]  # (gunicorn has no type hints)
    """gunicorn's gthread worker, its errors answered as problem JSON (the module's docstring)."""

    wsgi: Any  # (gunicorn's: the app)

    def init_process(self) -> None:
        self.answered = threading.local()  # .request: the last request this thread answered
        self.serving = threading.local()  # .request: the request this thread is answering
        self.cors_origins = cors.allowed_origins()
        RequestParser.mesg_class = _Request  # (this process's HTTP/1 requests: their heads are kept)
        self.lingering: OrderedDict[Any, float] = OrderedDict()  # connection -> when its linger ends, oldest first
        self.read_shut: set[Any] = set()  # the lingering connections whose reading side was shut here (READ_SHUT)
        self.discarded = memoryview(bytearray(LINGER_READ))  # (only the event loop's thread reads into it)
        super().init_process()

    def load_wsgi(self) -> None:
        super().load_wsgi()
        self.wsgi = self._honouring_close(self.wsgi)

    def set_accept_enabled(self, enabled: bool) -> None:
        """gunicorn's, and once the worker stops (``alive`` false: a stop signal) its listening
        sockets closed at once: with ``--reuse-port`` each worker has its own, which gunicorn closes
        only after the calls under way end (NAIPES_STOP_SECONDS), and meanwhile the kernel went on
        handing it new connections that nothing accepted, each a wait and then a reset, where a
        closed port refuses them at once (a client, a load balancer, tries elsewhere)."""
        super().set_accept_enabled(enabled)
        if not enabled and not self.alive:
            for listener in self.sockets:
                listener.close()

    def _honouring_close(self, app: Any) -> Any:
        """The app, its ``Connection: close`` honoured: gunicorn drops the header (hop-by-hop)
        and would keep the connection, reading the rest of an unread body first (for up to five
        seconds, on the thread) before the next request. The request is marked to close, so that
        gunicorn's answer says ``Connection: close`` and the connection closes after it
        (``finish_request``), its body unread."""

        def wsgi(environ: dict[str, Any], start_response: Any) -> Any:
            def start(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
                if any(name.lower() == "connection" and "close" in value.lower().replace(" ", "").split(",") for name, value in headers):
                    req = getattr(self.serving, "request", None)
                    if req is not None:
                        req.force_close()
                        self.serving.close_at_once = READ_SHUT if environ.get(READ_SHUT) else True
                return start_response(status, headers, exc_info) if exc_info else start_response(status, headers)

            return app(environ, start)

        return wsgi

    def handle_request(self, req: Any, conn: Any) -> Any:
        self.serving.request, self.serving.close_at_once = req, False
        owed = None
        if getattr(req, "_expected_100_continue", False):  # (gunicorn's: Expect: 100-continue, HTTP/1.1)
            req._expected_100_continue = False  # sent when the app reads the body, if it does
            if not req.unreader.buf.getbuffer().nbytes:  # (a client that sent its body with the head waits for no 100)
                owed = _OwedContinue(req.unreader, conn.sock)
        try:
            keepalive = super().handle_request(req, conn)
        except TimeoutError:
            # Only a stream's socket has a timeout (``service.rest``: its body's pauses), and it
            # bounds the answer's writes too: the client has taken none of its answer for that long.
            # gunicorn has logged its access line and closed the answer (the stream's slot is
            # given back); it would log this with a traceback, for a client's fault, and close the
            # connection as this does.
            self.log.warning("%s %s from ip=%s: the client took none of its answer for %g seconds; the connection is closed",
                             req.method, req.path, (conn.client or ("",))[0], conn.sock.gettimeout() or 0)
            keepalive = False
        finally:
            if self.serving.close_at_once:
                conn.naipes_close_at_once = self.serving.close_at_once
            self.serving.request, self.serving.close_at_once = None, False
            if owed is not None:
                owed.withdraw()
        self.answered.request = req  # (its answer has been written)
        if owed is not None and not owed.sent:
            return False  # answered without asking for the body: the connection closes (the module's docstring)
        return keepalive

    def finish_request(self, conn: Any, fs: Any) -> None:
        """gunicorn's, except for a connection that closes after its answer (the app's
        ``Connection: close``, the client's, or an error gunicorn answered): gunicorn would close
        it gracefully on the worker's one event-loop thread, waiting up to two seconds for the
        client to close its side, and every other connection of the worker waited with it (a
        client that keeps its side open, as the client of an unfinished body does, held them all).
        It lingers instead (``_linger``), without waiting."""
        if not fs.cancelled() and fs.exception() is None and fs.result() is False:
            self._linger(conn)
            return
        super().finish_request(conn, fs)

    def _linger(self, conn: Any) -> None:
        """Closes the connection after its answer, lingering: its sending side is shut at once
        (the client sees the answer's end), and what the client still sends is discarded as it
        comes (``_discard``, on the event loop) until the client closes, or for ``LINGER_SECONDS``
        or ``LINGER_BYTES`` at most (``murder_keepalived``), and the socket is closed then. A socket
        whose reading side was shut here is read at every turn of the loop instead, its sending
        side left open, and closed once nothing has come for ``LINGER_IDLE_SECONDS``."""
        read_shut = getattr(conn, "naipes_close_at_once", False) == READ_SHUT
        try:
            conn.sock.setblocking(False)
            if not read_shut:
                conn.sock.shutdown(socket.SHUT_WR)  # (the answer has been written whole: a FIN follows it)
                self.poller.register(conn.sock, selectors.EVENT_READ, partial(self._discard, conn))
        except (OSError, ValueError):  # the client has gone
            self.nr_conns -= 1
            util.close(conn.sock)
            return
        conn.naipes_discarded, conn.naipes_heard = 0, time.monotonic()
        self.lingering[conn] = time.monotonic() + LINGER_SECONDS
        if read_shut:
            self.read_shut.add(conn)

    def _discard(self, conn: Any, _sock: Any = None) -> None:
        """One read of a lingering connection, its bytes dropped; at the client's end (or past
        ``LINGER_BYTES``) the connection is closed. The event loop calls it when the socket is
        readable, and at each of its turns for a socket whose reading side was shut here, whose
        read finds an end whenever nothing has come: that end counts once it has lasted
        ``LINGER_IDLE_SECONDS``."""
        try:
            size = conn.sock.recv_into(self.discarded)
        except BlockingIOError:
            return
        except OSError:  # (a reset: the client has gone)
            size = 0
        now = time.monotonic()
        if size == 0 and conn in self.read_shut and now - conn.naipes_heard < LINGER_IDLE_SECONDS:
            return
        conn.naipes_discarded += size
        conn.naipes_heard = now
        if size == 0 or conn.naipes_discarded >= LINGER_BYTES:
            self._end_linger(conn)

    def _end_linger(self, conn: Any) -> None:
        del self.lingering[conn]
        if conn in self.read_shut:
            self.read_shut.remove(conn)
        else:
            self.poller.unregister(conn.sock)
        self.nr_conns -= 1
        util.close(conn.sock)

    def murder_keepalived(self, force: bool = False) -> None:
        """gunicorn's (which its event loop calls at every turn, and with ``force`` as the worker
        ends); and the lingering connections past their time are closed (all, with ``force``), and
        those whose reading side was shut here are read."""
        super().murder_keepalived(force)
        now = time.monotonic()
        while self.lingering:
            conn, until = next(iter(self.lingering.items()))
            if until > now and not force:
                break
            self._end_linger(conn)
        for conn in list(self.read_shut):
            self._discard(conn)

    def _cap_keepalive(self, deadline: float) -> None:
        """gunicorn's, as the worker stops (its kept-alive connections close by ``deadline``, two
        seconds on): the lingering connections close by then too, not to hold the stop longer."""
        super()._cap_keepalive(deadline)
        for conn in list(self.lingering):
            self.lingering[conn] = min(self.lingering[conn], deadline)

    def handle_error(self, req: Any, client: Any, addr: Any, exc: BaseException) -> None:
        if req is not None and req is getattr(self.answered, "request", None):
            # The request was answered, and then its body, which the app had not read, could not
            # be read to its end for the connection's next request (a bad chunk): the connection
            # closes, without a second answer (gunicorn wrote its page after the first).
            self.log.warning("Invalid request from ip=%s, after its answer: %s", (addr or ("",))[0], exc)
            return
        page = _Page()
        super().handle_error(req, page, addr, exc)  # gunicorn's choice of status and words, and its log
        method, header = request_head(req, exc)
        headers = [*cors.headers(self.cors_origins, method, header), *access.echoed(header(access.HEADER))]
        try:
            util.write_nonblock(client, answer(*page.read(), exc, headers))
        except Exception:
            self.log.debug("Failed to send error message.")


# ---- a body read as it comes -----------------------------------------------------------------


class ArrivedBody(io.RawIOBase):
    """gunicorn's request body (``wsgi.input``), read as the socket delivers it: a read returns
    the bytes of the body that have arrived (at least one, unless the body has ended), with at most
    one read of the socket, where gunicorn's ``Body`` waits until it has the size asked for (its
    ``readline`` asks 1 KiB at a time) or the body ends. An NDJSON stream's line is then answered as
    soon as it has come, whatever follows it (``service.stream.read_lines``).

    It reads through gunicorn's own readers, which keep their part: a body of known length is
    read to its ``Content-Length`` and no further (bytes past it go back to the connection's reader
    for the next request), a chunked one through gunicorn's chunk parser, its errors and limits
    included. A read that raises (the socket's timeout, a chunk gunicorn cannot read) marks the
    body failed, as gunicorn's ``Body`` does, so that the connection closes after the answer.
    ``arrived_body`` gives one only for a body it knows how to read so."""

    def __init__(self, body: Body) -> None:
        super().__init__()
        self.body = body
        self.reader = body.reader
        self.pending = memoryview(b"")  # bytes taken from gunicorn's reader, not yet read
        # A body of known length: its Content-Length (what its reader has left to read, and what
        # is held read ahead), to say how much of it came when it ends short.
        self.length = self.reader.length + body.buf.tell() if isinstance(self.reader, LengthReader) else None

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        if not self.pending:
            try:
                self.pending = memoryview(self._arrived())
            except Exception:
                self.body.failed = True  # (gunicorn then closes the connection rather than read on)
                raise
        size = min(len(buffer), len(self.pending))
        buffer[:size] = self.pending[:size]
        self.pending = self.pending[size:]
        return size

    def _arrived(self) -> bytes:
        """What has arrived of the body, waiting only when nothing has (empty: the body's end)."""
        held = self.body.buf  # what gunicorn's Body read ahead, if the body was read before
        if held.tell():
            data: bytes = held.getvalue()
            self.body.buf = io.BytesIO()
            return data
        reader = self.reader
        if isinstance(reader, LengthReader):
            if reader.length <= 0:
                return b""
            # The bytes gunicorn holds, else one read of the socket (of up to the rest of the body).
            data = reader.unreader.read(None, read_ahead=reader.length)
            if not data:  # the client closed before the end (gunicorn's reader ends the body there, silently)
                came = (self.length or 0) - reader.length
                reader.length = 0
                raise ServiceError("MALFORMED_JSON", f"the body ended after {came:,} of its {self.length:,} bytes (its Content-Length)")
            if len(data) > reader.length:  # the next request's bytes
                reader.unreader.unread(data[reader.length:])
                data = data[:reader.length]
            reader.length -= len(data)
            return data
        if reader.buf.tell():  # what gunicorn's chunk reader read ahead
            data = reader.buf.getvalue()
            reader.buf = io.BytesIO()
            return data
        while reader.parser:
            try:
                data = next(reader.parser)  # the next piece of a chunk (the parser reads the socket once for it)
            except StopIteration:
                reader.parser = None
                break
            if data:
                return data
        return b""


def arrived_body(body: Any) -> ArrivedBody | None:
    """``ArrivedBody`` over gunicorn's ``wsgi.input``, or None if it is not a body of gunicorn's
    that it knows (another server's, or another gunicorn's readers): read that one as it is."""
    if type(body) is not Body or not isinstance(getattr(body, "buf", None), io.BytesIO):
        return None
    reader = getattr(body, "reader", None)
    if type(reader) is LengthReader and isinstance(getattr(reader, "length", None), int) and hasattr(reader, "unreader"):
        return ArrivedBody(body)
    if type(reader) is ChunkedReader and isinstance(getattr(reader, "buf", None), io.BytesIO) and hasattr(reader, "parser"):
        return ArrivedBody(body)
    return None
