"""Prometheus metrics (docs/api.md, "Metrics"): every call answered over either transport, by its
method and code, and how long it took; the records the ValidateHands streams answered; the streams
in progress. Served at ``GET /metrics`` on the REST port, in Prometheus' text format.

Every label value comes from a closed set, whatever a client sends: ``transport`` is ``grpc`` or
``rest``; ``method`` an RPC's name in the service descriptor, ``Check`` (the gRPC health check),
or for REST's routes outside the schema ``healthz``, ``metrics``, ``openapi``, and ``other`` for
any path that is no route and any CORS preflight (``OPTIONS``); ``code`` is ``OK``, a code of the error table (``service.errors``) or
``CANCELLED`` (a call whose client went away before the end of its answer: a gRPC stream, a REST
answer whose connection broke as it was sent) or ``DEADLINE_EXCEEDED`` (a gRPC call whose deadline passed).

Under ``naipes serve`` its processes write their metrics to files in one directory
(prometheus_client's multiprocess mode: ``PROMETHEUS_MULTIPROC_DIR``, which ``naipes serve`` sets
for its children), and ``/metrics``, answered by any gunicorn worker, sums them over every process.
Without it (a server made by ``create_app`` or ``create_server``, ``python -m
service.grpc_server``), the metrics are the process's own, in prometheus_client's default registry.

The instruments are made once per method, before any call. A call is only noted (a clock read and
a deque's append, under a microsecond), and written to the metrics by a thread of its process four
times a second (``_Flusher``): /metrics may show a call a quarter of a second after its answer.
Where a call is noted, ``Calls.done``, its access line is noted too when the access log is on
(``service.access``, written by a thread of its own): the log and the metrics count the same calls
with the same codes, and the metrics count the lines the log dropped.
"""

from __future__ import annotations

import atexit
import os
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any

from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, CollectorRegistry, Counter, Gauge, Histogram, generate_latest, multiprocess

from service import access
from service.handlers import SERVICE

if TYPE_CHECKING:
    from flask import Flask

    from service.stream import Answers

# The methods of REST's routes outside the schema, by their Flask endpoint; ``other``: no route.
REST_EXTRAS = ("healthz", "metrics", "openapi", "other")
REST_METHODS = (*(method.name for method in SERVICE.methods), *REST_EXTRAS)
# Seconds: a unary call is answered in 0.1-50 ms; a stream may take minutes (+Inf).
BUCKETS = (0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0, 10.0)

REQUESTS = Counter("naipes_requests_total", "Calls answered, by transport, method and code (OK or the error table's)",
                   ["transport", "method", "code"])
DURATION = Histogram("naipes_request_duration_seconds", "Time to answer a call (a stream: its whole length)",
                     ["transport", "method"], buckets=BUCKETS)
STREAM_RECORDS = Counter("naipes_stream_records_total", "Records answered by ValidateHands streams, by code (OK or the record's error)",
                         ["transport", "code"])
STREAMS = Gauge("naipes_streams_in_progress", "ValidateHands streams being validated now", ["transport"], multiprocess_mode="livesum")
ACCESS_DROPPED = Counter("naipes_access_log_dropped_total", "Access log lines dropped, their queue full while stderr took none")

CONTENT_TYPE = CONTENT_TYPE_LATEST  # /metrics' answer (Prometheus' text format)
# The environ keys under which the REST app leaves the error code of its answer (``service.rest``)
# and, for a request it routes itself, the endpoint it took; ``instrument``'s, Flask's request.
CODE, ENDPOINT, _REQUEST = "naipes.code", "naipes.endpoint", "naipes.request"
MULTIPROCESS = "PROMETHEUS_MULTIPROC_DIR" in os.environ  # (prometheus_client chose its mode by it at import)
FLUSH_SECONDS = 0.25  # how often a process writes the calls it noted to its metrics (``_Flusher``)


class Calls:
    """The instruments of one method over one transport. ``done(code, started)`` notes a call
    answered with ``code``, started at ``time.perf_counter()`` ``started``; ``flush`` writes the
    calls noted to the metrics, for the whole process (``_Flusher``)."""

    def __init__(self, transport: str, method: str) -> None:
        self.transport, self.method = transport, method
        self.duration = DURATION.labels(transport, method)
        self.codes = {"OK": REQUESTS.labels(transport, method, "OK")}  # each code's child, made on its first call
        self.answered: deque[tuple[str, float]] = deque()  # (deque.append and popleft need no lock)
        _FLUSHER.add(self)

    def done(self, code: str, started: float, context: Any = None, request_id: str | None = None, records: int | None = None) -> None:
        """The call's end; with the access log on, its line too (``access.note``: ``context`` is the
        gRPC call's context, with its ``request_id`` and stream's ``records``, or the REST call's environ)."""
        seconds = time.perf_counter() - started
        self.answered.append((code, seconds))
        if access.ON:
            access.note(self.transport, self.method, code, seconds, context, request_id, records)

    def flush(self) -> None:
        counts: dict[str, int] = {}
        answered, observe = self.answered, self.duration.observe
        while answered:  # (one flush at a time pops)
            code, seconds = answered.popleft()
            observe(seconds)
            counts[code] = counts.get(code, 0) + 1
        for code, calls in counts.items():
            counter = self.codes.get(code)
            if counter is None:
                counter = self.codes.setdefault(code, REQUESTS.labels(self.transport, self.method, code))
            counter.inc(calls)


class _Flusher:
    """Writes the calls each ``Calls`` of the process noted: a thread every FLUSH_SECONDS, and
    /metrics before it answers, and at exit. The handler threads only note their calls:
    prometheus_client's multiprocess mode writes every value of a process under one lock, and
    written at each call by the handler threads the lock made convoys (a call's count took 33 us
    of CPU with 16 threads against 3.3 us with one, and a gRPC call 16-34 us more under load:
    bench/NOTES.md)."""

    def __init__(self) -> None:
        self.calls: list[Calls] = []
        self.lock = threading.Lock()
        self.thread: threading.Thread | None = None
        self.dropped = 0  # the access lines dropped that ACCESS_DROPPED counts
        os.register_at_fork(after_in_child=self.forked)

    def add(self, calls: Calls) -> None:
        with self.lock:
            self.calls.append(calls)
            if self.thread is None:
                self.start()

    def start(self) -> None:
        self.thread = threading.Thread(target=self.run, name="naipes-metrics", daemon=True)
        self.thread.start()

    def run(self) -> None:
        while True:
            time.sleep(FLUSH_SECONDS)
            self.flush()

    def flush(self) -> None:
        with self.lock:
            for calls in self.calls:
                calls.flush()
            dropped = access.dropped()  # (counted here, not where they are written: stderr may still take none)
            if dropped > self.dropped:
                ACCESS_DROPPED.inc(dropped - self.dropped)
                self.dropped = dropped

    def forked(self) -> None:
        """In a child (gunicorn's worker of a preloaded app): its own lock, and its own thread."""
        self.lock, self.thread, self.dropped = threading.Lock(), None, 0
        if self.calls:
            self.start()


_FLUSHER = _Flusher()
atexit.register(_FLUSHER.flush)


class StreamRecords:
    """Counts the records of a transport's streams answered, by code (``stream.Answers.codes``):
    ``call()`` is the counter of one stream, which keeps how many records it answered (``records``,
    its access line's)."""

    def __init__(self, transport: str) -> None:
        self.transport = transport
        self.counters: dict[str, Any] = {}

    def call(self) -> _StreamCount:
        return _StreamCount(self)

    def count(self, answers: Answers) -> int:
        total = 0
        for code, records in answers.codes.items():
            counter = self.counters.get(code)
            if counter is None:
                counter = self.counters.setdefault(code, STREAM_RECORDS.labels(self.transport, code))
            counter.inc(records)
            total += records
        return total


class _StreamCount:
    """One stream's records counter (``stream.Counting``)."""

    __slots__ = ("records", "shared")

    def __init__(self, shared: StreamRecords) -> None:
        self.shared, self.records = shared, 0

    def __call__(self, answers: Answers) -> None:
        self.records += self.shared.count(answers)


def streaming(transport: str, release: Callable[[], None]) -> Callable[[], None]:
    """A stream's slot ``release`` (``stream.Slots.take``), the stream counted in progress until
    it is first called."""
    gauge = STREAMS.labels(transport)
    gauge.inc()
    held = [gauge]

    def released() -> None:
        if held:
            held.pop().dec()  # (once: list.pop is atomic)
        release()

    return released


def instrument(app: Flask) -> None:
    """Counts each request of the REST app once its answer has been sent (a stream's, to its end):
    under its route's endpoint if one of ``REST_METHODS`` (else ``other``, as a path that is no
    route, and an ``OPTIONS`` request, a browser's CORS preflight, which calls nothing), and the code the app left in the environ under ``CODE`` (``OK`` if none; ``INTERNAL``
    if none and the app raised, for the HTTP server to answer)."""
    calls = {method: Calls("rest", method) for method in REST_METHODS}
    inner, make_context = app.wsgi_app, app.request_context

    def request_context(environ: dict[str, Any]) -> Any:
        # Flask's request, kept for its route (Flask lets go of it before the answer is sent).
        context = make_context(environ)
        environ[_REQUEST] = context.request
        return context

    def counted(environ: dict[str, Any], start_response: Any) -> Iterable[bytes]:
        started = time.perf_counter()
        if access.ON or access.ENVIRON_ID in environ:  # (its request ID sent back, its status noted for the access line)
            start_response = access.rest_answering(environ, start_response)
        try:
            body = inner(environ, start_response)
        except BaseException:
            _count(calls, environ, started, "INTERNAL")
            raise
        return _Answer(body, calls, environ, started)

    app.request_context = request_context  # type: ignore[method-assign]
    app.wsgi_app = counted  # type: ignore[method-assign]


class _Answer:
    """An answer's body as the WSGI server iterates it; its call is counted when the server closes
    it, under the code the app gave it, else ``OK``, or the code of the error the server closes it
    for (``_cut_code``: a stream whose client went away or took none of it)."""

    __slots__ = ("body", "calls", "environ", "started")

    def __init__(self, body: Iterable[bytes], calls: dict[str, Calls], environ: dict[str, Any], started: float) -> None:
        self.body, self.calls, self.environ, self.started = body, calls, environ, started

    def __iter__(self) -> Iterator[bytes]:
        return iter(self.body)

    def close(self) -> None:
        cut = sys.exc_info()[1]  # (what stopped the server sending it, when the server closes it for that)
        try:
            close = getattr(self.body, "close", None)
            if close is not None:
                close()
        finally:
            _count(self.calls, self.environ, self.started, "OK" if cut is None else _cut_code(cut))


def _cut_code(error: BaseException) -> str:
    """The code of an answer whose sending ``error`` stopped (its status line may have gone):
    ``REQUEST_TIMEOUT`` for a write that timed out (a stream's socket has a timeout, its client took
    none of the answer for that long), ``CANCELLED`` for a connection its client closed or reset,
    ``INTERNAL`` for an answer that failed as it was made."""
    if isinstance(error, TimeoutError):
        return "REQUEST_TIMEOUT"
    return "CANCELLED" if isinstance(error, OSError) else "INTERNAL"


def _count(calls: dict[str, Calls], environ: dict[str, Any], started: float, default: str) -> None:
    request = environ.pop(_REQUEST, None)  # (the request holds the environ: no cycle left)
    rule = getattr(request, "url_rule", None)  # (None: no route)
    if environ.get("REQUEST_METHOD") == "OPTIONS":  # a CORS preflight (Flask answers it): no call of the route's method
        rule = None
    call = calls.get(environ.get(ENDPOINT) or (rule.endpoint if rule is not None else "other"))
    (call or calls["other"]).done(environ.get(CODE, default), started, environ)


def exposition() -> bytes:
    """The metrics in Prometheus' text format (``CONTENT_TYPE``): summed over every process of
    ``naipes serve`` in multiprocess mode, else this process's."""
    _FLUSHER.flush()
    registry = REGISTRY
    if MULTIPROCESS:
        registry = CollectorRegistry()  # (one a scrape, as prometheus_client's multiprocess mode asks)
        multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
    return generate_latest(registry)
