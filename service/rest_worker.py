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

Also here, as it reads gunicorn's body readers: ``ArrivedBody``, gunicorn's request body read as
it arrives, through which the NDJSON stream answers each line as soon as it has come.
"""

from __future__ import annotations

import html
import io
import re
import threading
from http import HTTPStatus
from typing import Any

from gunicorn import util
from gunicorn.http.body import Body, ChunkedReader, LengthReader
from gunicorn.workers.gthread import ThreadWorker

from service import codec
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


def answer(status: int, detail: str, exc: BaseException) -> bytes:
    """The HTTP answer, problem JSON, to an error gunicorn answered with ``status`` and ``detail``.
    A status ``CODES`` lacks (a later gunicorn's) is MALFORMED_REQUEST (400) below 500, else
    INTERNAL (500): the code's own status is answered, as the table has it. The reason phrase is
    Python's for the status (gunicorn's page says "501 Bad Request")."""
    code = CODES.get(status) or ("MALFORMED_REQUEST" if status < 500 else "INTERNAL")
    status = ERRORS[code].http_status
    # An unexpected exception is told as any other (the traceback is in the log, never in the answer).
    error = from_exception(exc) if code == "INTERNAL" else ServiceError(code, detail or HTTPStatus(status).phrase)
    body = codec.dumps_bytes(problem(error)) + b"\n"
    head = f"HTTP/1.1 {status} {HTTPStatus(status).phrase}\r\nConnection: close\r\nContent-Type: application/problem+json\r\nContent-Length: {len(body)}\r\n\r\n"
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


class ProblemWorker(ThreadWorker):
    """gunicorn's gthread worker, its errors answered as problem JSON (the module's docstring)."""

    def init_process(self) -> None:
        self.answered = threading.local()  # .request: the last request this thread answered
        super().init_process()

    def handle_request(self, req: Any, conn: Any) -> Any:
        keepalive = super().handle_request(req, conn)
        self.answered.request = req  # (its answer has been written)
        return keepalive

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
            util.write_nonblock(client, answer(*page.read(), exc))
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
