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
request's Origin (``service.cors``: one decision for both), once gunicorn has come to the request's
headers: the headers it read, or, when it failed among them (a header too large or malformed, too
many, an ``Expect`` it refuses), the header lines of the head as they came (``_Request``). A
request refused before its headers (its request line, a PROXY line) has no Origin to answer.

The worker also honours the app's ``Connection: close``, which gunicorn drops as a hop-by-hop
header: the app says it with an answer given before the request's body was read to its end (a
refused stream, a late or too large body, a wrong route: ``service.rest``), and the connection
then closes right after the answer, which says ``Connection: close``, its body unread and no
thread held (gunicorn would read the rest of the body first, for up to five seconds).

Also here, as it reads gunicorn's body readers: ``ArrivedBody``, gunicorn's request body read as
it arrives, through which the NDJSON stream answers each line as soon as it has come.
"""

from __future__ import annotations

import html
import io
import re
import threading
from collections.abc import Callable
from http import HTTPStatus
from typing import Any

from gunicorn import util
from gunicorn.http.body import Body, ChunkedReader, LengthReader
from gunicorn.http.message import Request
from gunicorn.http.parser import RequestParser
from gunicorn.workers.gthread import ThreadWorker

from service import codec, cors
from service.errors import ERRORS, ServiceError, from_exception, problem

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
    with ``headers`` besides (CORS's). A status ``CODES`` lacks (a later gunicorn's) is
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


class _Request(Request):
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


class ProblemWorker(ThreadWorker):
    """gunicorn's gthread worker, its errors answered as problem JSON (the module's docstring)."""

    wsgi: Any  # (gunicorn's: the app)

    def init_process(self) -> None:
        self.answered = threading.local()  # .request: the last request this thread answered
        self.serving = threading.local()  # .request: the request this thread is answering
        self.cors_origins = cors.allowed_origins()
        RequestParser.mesg_class = _Request  # (this process's HTTP/1 requests: their heads are kept)
        super().init_process()

    def load_wsgi(self) -> None:
        super().load_wsgi()
        self.wsgi = self._honouring_close(self.wsgi)

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
                        self.serving.close_at_once = True
                return start_response(status, headers, exc_info) if exc_info else start_response(status, headers)

            return app(environ, start)

        return wsgi

    def handle_request(self, req: Any, conn: Any) -> Any:
        self.serving.request, self.serving.close_at_once = req, False
        try:
            keepalive = super().handle_request(req, conn)
        finally:
            if self.serving.close_at_once:
                conn.naipes_close_at_once = True
            self.serving.request, self.serving.close_at_once = None, False
        self.answered.request = req  # (its answer has been written)
        return keepalive

    def finish_request(self, conn: Any, fs: Any) -> None:
        """gunicorn's, except for a connection the app closed (``Connection: close``): gunicorn
        would close it gracefully, on the worker's one event-loop thread, waiting up to two
        seconds for the client to close its side, and the client of an unfinished body does not.
        It is closed at once instead, on a FIN rather than a reset: what has already arrived of
        the body is discarded, without waiting for more."""
        if getattr(conn, "naipes_close_at_once", False) and not fs.cancelled() and fs.exception() is None and fs.result() is False:
            self.nr_conns -= 1
            _close_at_once(conn.sock)
            return
        super().finish_request(conn, fs)

    def handle_error(self, req: Any, client: Any, addr: Any, exc: BaseException) -> None:
        if req is not None and req is getattr(self.answered, "request", None):
            # The request was answered, and then its body, which the app had not read, could not
            # be read to its end for the connection's next request (a bad chunk): the connection
            # closes, without a second answer (gunicorn wrote its page after the first).
            self.log.warning("Invalid request from ip=%s, after its answer: %s", (addr or ("",))[0], exc)
            return
        page = _Page()
        super().handle_error(req, page, addr, exc)  # gunicorn's choice of status and words, and its log
        try:
            util.write_nonblock(client, answer(*page.read(), exc, cors.headers(self.cors_origins, *request_head(req, exc))))
        except Exception:
            self.log.debug("Failed to send error message.")


def _close_at_once(sock: Any) -> None:
    """Closes the socket without waiting: the bytes already arrived are read and dropped first
    (at most ``_DROP_BYTES``), else the close would send a reset, which may cost the client the
    answer it has not yet read."""
    try:
        sock.setblocking(False)
        dropped = 0
        while dropped < _DROP_BYTES:
            data = sock.recv(65536)
            if not data:
                break
            dropped += len(data)
    except OSError:  # (BlockingIOError: nothing more has arrived)
        pass
    util.close(sock)


_DROP_BYTES = 1 << 20


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
            data = held.getvalue()
            self.body.buf = io.BytesIO()
            return data
        reader = self.reader
        if isinstance(reader, LengthReader):
            if reader.length <= 0:
                return b""
            # The bytes gunicorn holds, else one read of the socket (of up to the rest of the body).
            data = reader.unreader.read(None, read_ahead=reader.length)
            if not data:  # the client closed before the end: the body ends there, as gunicorn's reader has it
                reader.length = 0
                return b""
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
