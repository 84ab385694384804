"""A WSGI app for tests/test_service_http_errors.py: ``/healthz`` answers; any other path fails
after ``start_response``, before its first byte, so that the failure reaches gunicorn's
``handle_error`` (the service's Flask app answers its own failures). Not a test module."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any


def app(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterator[bytes]:
    start_response("200 OK", [("Content-Type", "application/json")])
    if environ["PATH_INFO"] == "/healthz":
        return iter([b'{"status": "SERVING"}'])
    return _failing()


def _failing() -> Iterator[bytes]:
    raise RuntimeError("boom: a fault of the server")
    yield b""  # (a generator: the error comes as gunicorn reads the body)
