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
"""

from __future__ import annotations

import html
import re
import threading
from http import HTTPStatus
from typing import Any

from gunicorn import util
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
