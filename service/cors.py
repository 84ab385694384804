"""CORS (docs/api.md, "Browsers"): a page of another origin may call the REST API. Its answers,
errors included, carry ``Access-Control-Allow-Origin``, and the preflight of a POST with a JSON
body (compressed or not, ``Content-Encoding``: ``service.codings``; and a request ID,
``X-Request-Id``: ``service.access``) is answered; a page may read an
answer's ``Retry-After`` and ``X-Request-Id``. No credentials: the API has no cookies or sessions to guard.

One decision, ``headers``, for every answer: the app's (``service.rest``, an after-request hook)
and those the HTTP server's worker writes itself for the requests gunicorn cannot read
(``service.rest_worker``)."""

from __future__ import annotations

import os
from collections.abc import Callable

MAX_AGE = 600  # seconds a browser may keep a preflight's answer


def allowed_origins() -> list[str] | str:
    """The origins whose pages may call the API from a browser: ``NAIPES_CORS_ORIGINS``, a
    comma-separated list of origins, ``*`` (the default: any origin) or ``none``."""
    value = os.environ.get("NAIPES_CORS_ORIGINS", "*").strip()
    if value in ("", "none"):
        return []
    if value == "*":
        return "*"
    return [origin.strip() for origin in value.split(",") if origin.strip()]


def headers(origins: list[str] | str, method: str | None, header: Callable[[str], str | None]) -> list[tuple[str, str]]:
    """The CORS headers of the answer to a request (none if it has no Origin, or one not allowed):
    ``method`` is the request's, ``header`` gives the value of one of its headers by name
    (case-insensitive), None if it has none. It returns at once without an Origin."""
    origin = header("Origin")
    if origin is None:
        return []
    if origins == "*":
        allow = [("Access-Control-Allow-Origin", "*")]
    elif origin in origins:
        allow = [("Access-Control-Allow-Origin", origin), ("Vary", "Origin")]
    else:
        return []
    if method == "OPTIONS" and header("Access-Control-Request-Method") is not None:
        return [*allow, ("Access-Control-Allow-Methods", "GET, POST"), ("Access-Control-Allow-Headers", "Content-Type, Content-Encoding, X-Request-Id"),
                ("Access-Control-Max-Age", str(MAX_AGE))]
    return [*allow, ("Access-Control-Expose-Headers", "Retry-After, X-Request-Id")]
