"""THE error table: every error code the service can answer with, and what it becomes on each
transport (STYLE.md, habit 12).

Codes are the engine's invalid-input codes (``engine.errors.INPUT_CODES``) plus a few the
transport itself raises. A rule violation is not an error: it is a successful validation with
``valid: false``. On gRPC the code travels as the ``reason`` of a ``google.rpc.ErrorInfo`` (domain
``naipes.v1``); on REST as the ``code`` of an ``application/problem+json`` body.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import grpc

DOMAIN = "naipes.v1"


@dataclass(frozen=True)
class ErrorKind:
    grpc_code: grpc.StatusCode
    http_status: int
    title: str
    retry_after: int | None = None  # seconds, for an error worth retrying: REST's Retry-After, gRPC's RetryInfo


_BAD = grpc.StatusCode.INVALID_ARGUMENT

ERRORS: dict[str, ErrorKind] = {
    # Invalid input (engine.errors.INPUT_CODES): the request is not well formed.
    "MALFORMED_JSON": ErrorKind(_BAD, 400, "The body is not valid JSON"),
    "INVALID_FIELD": ErrorKind(_BAD, 400, "A field has the wrong type or shape"),
    "MISSING_FIELD": ErrorKind(_BAD, 400, "A required field is absent"),
    "UNKNOWN_GAME": ErrorKind(_BAD, 400, "Unknown game"),
    "INVALID_SEATS": ErrorKind(_BAD, 400, "Wrong number of seats for the game"),
    "SEAT_OUT_OF_RANGE": ErrorKind(_BAD, 400, "Seat out of range"),
    "UNKNOWN_CARD": ErrorKind(_BAD, 400, "Unknown card"),
    "DUPLICATE_CARD": ErrorKind(_BAD, 400, "Duplicated card"),
    "WRONG_HAND_SIZE": ErrorKind(_BAD, 400, "Wrong number of cards"),
    "UNKNOWN_OPTION": ErrorKind(_BAD, 400, "Unknown rules option"),
    "INVALID_OPTION_VALUE": ErrorKind(_BAD, 400, "Invalid rules option value"),
    "INVALID_TABLE": ErrorKind(_BAD, 400, "Impossible table"),
    "INVALID_DEAL": ErrorKind(_BAD, 400, "Invalid deal"),
    "PAYLOAD_TOO_LARGE": ErrorKind(grpc.StatusCode.RESOURCE_EXHAUSTED, 413, "Request too large"),
    # The transport's own.
    "TOO_MANY_STREAMS": ErrorKind(grpc.StatusCode.RESOURCE_EXHAUSTED, 429, "Too many streams at once", retry_after=1),
    "REQUEST_TIMEOUT": ErrorKind(grpc.StatusCode.DEADLINE_EXCEEDED, 408, "The body came too slowly"),
    "NOT_FOUND": ErrorKind(grpc.StatusCode.NOT_FOUND, 404, "No such route"),
    "METHOD_NOT_ALLOWED": ErrorKind(grpc.StatusCode.UNIMPLEMENTED, 405, "Method not allowed on this route"),
    "UNSUPPORTED_MEDIA_TYPE": ErrorKind(_BAD, 415, "Unsupported media type"),
    # The HTTP server's (service.rest_worker): the status gunicorn answers, each its code.
    "MALFORMED_REQUEST": ErrorKind(_BAD, 400, "The HTTP request cannot be read"),
    "URI_TOO_LONG": ErrorKind(grpc.StatusCode.RESOURCE_EXHAUSTED, 414, "Request line too long"),
    "HEADERS_TOO_LARGE": ErrorKind(grpc.StatusCode.RESOURCE_EXHAUSTED, 431, "Request headers too large"),
    "EXPECTATION_FAILED": ErrorKind(grpc.StatusCode.FAILED_PRECONDITION, 417, "Expectation failed"),
    "UNSUPPORTED_TRANSFER_CODING": ErrorKind(grpc.StatusCode.UNIMPLEMENTED, 501, "Unsupported transfer coding"),
    "FORBIDDEN": ErrorKind(grpc.StatusCode.PERMISSION_DENIED, 403, "Forbidden"),
    "INTERNAL": ErrorKind(grpc.StatusCode.INTERNAL, 500, "Internal error"),
}


# The most an error's message and field hold, in bytes of UTF-8; longer ones are cut (``cut``).
# Messages quote a request's values cut already (``engine.errors.shown``); this bounds what they
# are made of besides (a field named after a request's key, a list of cards), on both transports
# alike. gRPC sends the message three times and the field twice in its trailers (grpc-message,
# percent-encoded, and the status details: its message, ErrorInfo's field, BadRequest's field and
# description), which grpcio holds to 16 KiB: over it, the call failed RESOURCE_EXHAUSTED
# "received metadata size exceeds hard limit", the error's code and field lost.
MESSAGE_AT_MOST = 2000
FIELD_AT_MOST = 200


def cut(text: str, at_most: int) -> str:
    """``text``, or, when it is longer than ``at_most`` bytes of UTF-8, as much of it as those
    bytes hold beside its length in characters (``rules.xxx... (20,006 characters)``), as a
    message quotes a long value: ``at_most`` bytes in all."""
    if len(text) <= at_most // 4:
        return text
    encoded = text.encode("utf-8", "surrogatepass")
    if len(encoded) <= at_most:
        return text
    tail = f"... ({len(text):,} characters)"
    return encoded[:at_most - len(tail)].decode("utf-8", "ignore") + tail


class ServiceError(Exception):
    """An error answer: a code of ``ERRORS``, a message, and the offending field if any (in the
    record's JSON spelling, ``deal.hands[1]``, ``rules.foo``). (A plain exception class, as the
    engine's are: an exception that refuses attribute assignment, as a frozen dataclass does,
    breaks ``contextlib``, which sets ``__traceback__`` on the exceptions it re-raises.)"""

    def __init__(self, code: str, message: str, field: str | None = None) -> None:
        assert code in ERRORS, code
        message, field = cut(message, MESSAGE_AT_MOST), None if field is None else cut(field, FIELD_AT_MOST)
        super().__init__(code, message, field)
        self.code, self.message, self.field = code, message, field

    @property
    def kind(self) -> ErrorKind:
        return ERRORS[self.code]

    def __str__(self) -> str:
        return self.message

    def __repr__(self) -> str:
        return f"ServiceError({self.code!r}, {self.message!r}, {self.field!r})"


def from_exception(exc: BaseException) -> ServiceError:
    """The engine's ``InvalidInput`` as a service error; anything else is INTERNAL."""
    from engine.errors import InvalidInput

    if isinstance(exc, ServiceError):
        return exc
    if isinstance(exc, InvalidInput):
        return ServiceError(exc.code, exc.message, exc.field)
    return ServiceError("INTERNAL", f"internal error ({type(exc).__name__}); the request was not processed and the server goes on")


def problem(error: ServiceError) -> dict[str, Any]:
    """The RFC 9457 ``application/problem+json`` body of an error."""
    kind = error.kind
    body: dict[str, Any] = {"type": f"urn:naipes:error:{error.code}", "title": kind.title, "status": kind.http_status,
                  "detail": error.message, "code": error.code}
    if error.field is not None:
        body["field"] = error.field
        body["fieldViolations"] = [{"field": error.field, "description": error.message}]
    return body


# The largest request either transport accepts (gRPC: RESOURCE_EXHAUSTED; REST: 413).
MAX_REQUEST_BYTES = 1 << 20
