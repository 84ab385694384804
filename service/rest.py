"""The REST transport: a Flask app whose routes come from the ``google.api.http`` annotations of
the service descriptor (STYLE.md, habit 11). No route is written here by hand per RPC.

For each RPC: the annotation's verb and path template make the route; the JSON body fills the
``body`` field (``"*"``: the whole request), path variables and query parameters fill the other
fields; the shared handler answers (``service.handlers.ANSWERS``: the engine's JSON, which is the
response message's JSON in protobuf's mapping, checked against the schema by ``codec.as_json``);
the ``response_body`` field (or the whole response) is printed. A body that is the whole
request (no path variables, no query) is read straight into the engine's JSON when the codec
vouches for it (``codec.request_from_json``), the same JSON the message would print. Errors are
``application/problem+json`` with the code of the error table, the same code gRPC puts in
``ErrorInfo.reason``.

Also served: ``GET /healthz`` (infrastructure, like gRPC's health service), ``GET /metrics``
(Prometheus' text format: ``service.metrics``, which counts every request) and ``GET
/v1/openapi.json`` (generated from the same descriptors).

Run: ``naipes serve``, or ``gunicorn --worker-class service.rest_worker.ProblemWorker --threads 4
'service.rest:create_app()'``: that worker answers the errors of HTTP itself (a request gunicorn
cannot read, a body whose chunks it cannot read) in problem JSON too.
"""

from __future__ import annotations

import logging
import os
import re
import socket
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, cast
from urllib.parse import unquote, urlsplit

from flask import Flask, Response, request
from google.api import annotations_pb2
from google.protobuf import message_factory
from google.protobuf.descriptor import Descriptor, FieldDescriptor, MethodDescriptor
from google.protobuf.message import Message
from gunicorn.http.errors import ParseException
from werkzeug.exceptions import ClientDisconnected, HTTPException, MethodNotAllowed, NotFound, RequestEntityTooLarge

from engine.errors import shown
from service import access, codec, codings, cors, metrics, stream
from service.errors import MAX_REQUEST_BYTES, ServiceError, from_exception, problem
from service.handlers import ANSWERS, SERVICE
from service.rest_worker import READ_SHUT, arrived_body
from service.watchdog import BODY_SECONDS, WATCHDOG

log = logging.getLogger("naipes.rest")

_VARIABLE = re.compile(r"\{([\w.]+)(?:=([^}]*))?\}")
_JSON_TYPES = re.compile(r"^application/(?:[\w.+-]+\+)?json$")
# A streaming RPC speaks newline-delimited JSON: one request per line in, one response per line out.
NDJSON = "application/x-ndjson"
_NDJSON_TYPES = frozenset({NDJSON, "application/ndjson", "application/jsonl", "application/json"})


@dataclass(frozen=True)
class Route:
    """One RPC's HTTP binding, read from its ``google.api.http`` option."""

    method: MethodDescriptor
    verb: str  # "GET", "POST", ...
    template: str  # "/v1/games/{game}/rules"
    body: str  # "" (no body), "*" (the whole request) or a field name
    response_body: str  # "" (the whole response) or a field name
    variables: tuple[str, ...]  # field paths bound by the path, in template order

    @property
    def flask_rule(self) -> str:
        count = iter(range(len(self.variables)))

        def convert(m: re.Match[str]) -> str:
            kind = "path:" if m[2] and "**" in m[2] else ""
            return f"<{kind}v{next(count)}>"

        return _VARIABLE.sub(convert, self.template)

    @property
    def request_class(self) -> type[Message]:
        return message_factory.GetMessageClass(self.method.input_type)

    @property
    def streaming(self) -> bool:
        return bool(self.method.client_streaming or self.method.server_streaming)


def http_routes() -> list[Route]:
    """Every HTTP binding of the service (additional bindings included)."""
    routes = []
    for method in SERVICE.methods:
        options = method.GetOptions()
        if not options.HasExtension(annotations_pb2.http):
            continue
        top = options.Extensions[annotations_pb2.http]
        for rule in (top, *top.additional_bindings):
            kind = rule.WhichOneof("pattern")
            verb, template = (rule.custom.kind, rule.custom.path) if kind == "custom" else (kind, getattr(rule, kind))
            variables = tuple(m[1] for m in _VARIABLE.finditer(template))
            routes.append(Route(method, verb.upper(), template, rule.body, rule.response_body, variables))
    return routes


def field_at(message: Descriptor, path: str) -> FieldDescriptor | None:
    """The field at a dotted path of JSON or proto names (``record.game``), or None."""
    field = None
    descriptor: Descriptor | None = message
    for name in path.split("."):
        if descriptor is None:
            return None
        field = descriptor.fields_by_camelcase_name.get(name) or descriptor.fields_by_name.get(name)
        if field is None:
            return None
        descriptor = field.message_type
    return field


def _parameters(route: Route, path_values: list[str]) -> dict[str, Any]:
    """Path variables and query parameters as a JSON dict to merge into the request."""
    out: dict[str, Any] = {}
    bound = dict(zip(route.variables, path_values, strict=True))
    query = [(k, request.args.getlist(k)) for k in request.args]
    for key, _values in query:
        if key in bound:  # google.api.http: a field the path binds is not a query parameter
            raise ServiceError("INVALID_FIELD", f"query parameter {shown(key)} is given by the path ({request.path})", key)
    for key, values in [*((k, [v]) for k, v in bound.items()), *query]:
        field = field_at(route.method.input_type, key)
        if field is None or (route.body == "*" and key not in bound) or (route.body and key.split(".")[0] == route.body):
            raise ServiceError("INVALID_FIELD", f"unknown query parameter {shown(key)}", key)
        if field.type == FieldDescriptor.TYPE_MESSAGE:
            raise ServiceError("INVALID_FIELD", f"query parameter {shown(key)} names a message; give its fields", key)
        converted: list[Any] = [_query_value(field, key, v) for v in values]
        node = out
        *parents, last = key.split(".")
        for name in parents:
            node = node.setdefault(name, {})
        if codec.is_repeated(field):
            node[last] = converted
        elif len(converted) > 1:
            raise ServiceError("INVALID_FIELD", f"query parameter {shown(key)} given {len(converted)} times", key)
        else:
            node[last] = converted[0]
    return out


def _query_value(field: FieldDescriptor, key: str, value: str) -> Any:
    if field.type == FieldDescriptor.TYPE_BOOL:
        if value not in ("true", "false"):
            raise ServiceError("INVALID_FIELD", f"{key}: expected true or false, not {shown(value)}", key)
        return value == "true"
    if field.type in codec.INTEGER_TYPES and (error := codec.integer_text_error(value, key)) is not None:
        raise error  # (as a body's integer given as a string: ASCII digits only)
    return value  # protobuf's JSON parser reads numbers from strings


def _sent_segments() -> list[str]:
    """The segments of the path as the client sent it, each percent-decoded on its own, so that an
    encoded slash (``%2F``) stays within its segment and an empty segment stays empty: PATH_INFO,
    which the HTTP server decodes whole, makes ``a%2Fb`` two segments. The path is gunicorn's
    ``RAW_URI`` or werkzeug's ``REQUEST_URI``, its query left out, and the script root's segments
    (a front end's mount point, which PATH_INFO lacks); PATH_INFO's if the server gives neither."""
    sent = request.environ.get("RAW_URI") or request.environ.get("REQUEST_URI")
    if not sent:
        return request.path.split("/")
    path = sent.partition("?")[0] if sent.startswith("/") else urlsplit(sent).path  # (the absolute form: http://host/path)
    segments = path.split("/")
    return [unquote(segment) for segment in segments[:1] + segments[1 + request.script_root.count("/"):]]


def _refuse_an_empty_first_segment(environ: dict[str, Any]) -> None:
    """NOT_FOUND for a path whose first segment is empty (``//v1/hands:validate``), as a double
    slash elsewhere is: werkzeug drops a path's leading slashes, so it was answered as the route
    (``/v1/hands:validate``). (A look for ``//`` in the target first: most requests have none.)"""
    sent = environ.get("RAW_URI") or environ.get("REQUEST_URI") or ""
    if "//" not in sent:
        return
    segments = _sent_segments()
    if len(segments) > 2 and segments[1] == "":
        environ[metrics.ENDPOINT] = "other"  # (counted as a path that is no route)
        raise ServiceError("NOT_FOUND", f"no route {'/'.join(segments)}; the API is described at /v1/openapi.json")


def _path_values(route: Route, segments: list[str]) -> list[str] | None:
    """The values of the route's path variables in a path's segments, or None if the path is not
    the route's: each variable is one whole segment (google.api.http's ``{game}``), empty or not."""
    template = route.template.split("/")
    if len(template) != len(segments):
        return None
    values = []
    for part, segment in zip(template, segments, strict=True):
        if _VARIABLE.fullmatch(part):
            values.append(segment)
        elif part != segment:
            return None
    return values


def _client_socket() -> Any:
    """The connection's socket: gunicorn's, or werkzeug's development server's (None elsewhere)."""
    return request.environ.get("gunicorn.socket") or request.environ.get("werkzeug.socket")


def _shut(sock: Any) -> Callable[[float], None]:
    """The end of a late body (``watchdog.WATCHDOG``): shut the reading side of its socket, which
    ends the read waiting on it (a socket timeout would bound each wait for a byte, not the whole
    body)."""

    def end(_waited: float) -> None:
        try:
            sock.shutdown(socket.SHUT_RD)
        except OSError:
            pass  # (the client has gone)

    return end


def _late_body() -> ServiceError:
    """REQUEST_TIMEOUT, for a body the watchdog ended: it shut the socket's reading side, which the
    environ tells the server's worker (``rest_worker.READ_SHUT``: it closes such a connection so)."""
    request.environ[READ_SHUT] = True
    return ServiceError("REQUEST_TIMEOUT", f"the body did not come within {BODY_SECONDS:g} seconds")


def _cut_short() -> ServiceError:
    """MALFORMED_REQUEST, for a body that ended before its end: its client closed the connection
    (werkzeug's reader says so with its ClientDisconnected, gunicorn's with fewer bytes than the
    Content-Length). What came is no request to validate."""
    return ServiceError("MALFORMED_REQUEST", "the body ended before its end: the client closed the connection")


# Set in the environ once the body has been read to its end (``_body_bytes``).
_BODY_READ = "naipes.body_read"


def _body_unread() -> bool:
    """Whether the request has a body that has not been read to its end: an error answered so
    (a refused stream, a late or too large body, a wrong route) closes the connection, rather
    than have the server read the rest of a body that may never come before the next request."""
    if request.environ.get(_BODY_READ):
        return False
    return bool(request.content_length) or "Transfer-Encoding" in request.headers


def _content_coding() -> str | None:
    """The content coding of the body (``service.codings``: ``gzip``, ``x-gzip`` or ``deflate``,
    decoded as it is read), or None for a plain one; UNSUPPORTED_MEDIA_TYPE for a coding the
    service does not decode. A body in a transfer coding but chunked (``Transfer-Encoding: gzip,
    chunked``, which gunicorn takes and removes only the chunks of), whose bytes read as if plain
    would be another body than the one sent, is UNSUPPORTED_TRANSFER_CODING."""
    value = request.headers.get("Content-Encoding")
    coding = None if value is None else codings.coding(value)
    if any(part not in ("chunked", "identity") for part in codings.named(request.headers.get("Transfer-Encoding"))):
        raise ServiceError("UNSUPPORTED_TRANSFER_CODING", f"the body's Transfer-Encoding is {request.headers['Transfer-Encoding'].strip()}: "
                           "send it chunked only, uncompressed")
    return coding


def _body_bytes() -> bytes:
    """The body's JSON text (empty for an empty body, whatever its media type), decoded from its
    content coding, if any: the limit is the decoded body's, and the body as sent is held to it too."""
    coding = _content_coding()
    sock = _client_socket()
    if sock is None or request.content_length == 0 or not BODY_SECONDS:  # (NAIPES_BODY_SECONDS=0: no bound)
        data = request.get_data(cache=False)  # enforces MAX_CONTENT_LENGTH
    else:
        token = WATCHDOG.watch(BODY_SECONDS, _shut(sock))
        try:
            data = request.get_data(cache=False)
        except Exception:
            if not WATCHDOG.done(token):
                raise _late_body() from None
            raise
        if not WATCHDOG.done(token):
            raise _late_body()
    if request.content_length is not None and len(data) < request.content_length:
        raise _cut_short()  # (gunicorn's reader of a body of known length ends where its client closed, silently)
    if request.content_length is None and len(data) >= MAX_REQUEST_BYTES and request.environ["wsgi.input"].read(1):
        # A chunked body (no Content-Length) is read up to the limit and no further, silently.
        raise ServiceError("PAYLOAD_TOO_LARGE", f"the body is larger than {MAX_REQUEST_BYTES} bytes")
    request.environ[_BODY_READ] = True
    if coding is not None:
        data = codings.decoded(data, coding, MAX_REQUEST_BYTES)
    if not data.strip():
        return b""
    if request.mimetype and not _JSON_TYPES.match(request.mimetype):
        raise ServiceError("UNSUPPORTED_MEDIA_TYPE", f"the body must be JSON (Content-Type: application/json), not {request.mimetype}")
    return data


def _endpoint(route: Route) -> Callable[..., Response]:
    answer_of = ANSWERS[route.method.name]
    request_class = route.request_class
    response_class = message_factory.GetMessageClass(route.method.output_type)
    into = None if route.body == "*" else route.body  # the request's field the body fills, if not all of it
    # The response_body field by its JSON name (the answer is the response message's JSON).
    part = route.method.output_type.fields_by_name[route.response_body].json_name if route.response_body else None

    def respond(request_json: dict[str, Any]) -> Response:
        answer = codec.as_json(answer_of(request_json), response_class)
        return _json(answer if part is None else answer[part], 200)

    def endpoint(**path: str) -> Response:
        data = _body_bytes() if route.body else b""
        if data and not route.variables and not request.query_string:
            # The body is the whole request: read straight into the engine's JSON when the codec
            # vouches for it, as the message's way below would give it.
            fast = codec.request_from_json(data, request_class, into)
            if fast is not None:
                return respond(fast)
        message = request_class()
        if route.body:
            codec.from_json(codec.loads(data, "the body") if data else {}, message if into is None else getattr(message, into))
        params = _parameters(route, [path[f"v{i}"] for i in range(len(route.variables))])
        if params:
            codec.from_json(params, message)
        return respond(codec.to_engine(message))

    endpoint.__name__ = route.method.name
    return endpoint


def _stream_endpoint(route: Route) -> Callable[..., Response]:
    """A streaming RPC over HTTP/1.1: the body is NDJSON, read line by line while the answers
    are written, one line per record and in order, as the pool validates them
    (``service.stream``). No limit on the body's size; each line is limited like a request."""
    records = metrics.StreamRecords("rest")

    def endpoint(**_path: str) -> Response:
        if request.mimetype and request.mimetype not in _NDJSON_TYPES:
            raise ServiceError("UNSUPPORTED_MEDIA_TYPE",
                               f"the body must be newline-delimited JSON (Content-Type: {NDJSON}), not {request.mimetype}")
        if request.args:
            key = next(iter(request.args))
            raise ServiceError("INVALID_FIELD", f"unknown query parameter {shown(key)}", key)
        coding = _content_coding()
        # An archive may be any size; each line is limited (``stream.read_lines``). gunicorn's body
        # is read as it arrives (``rest_worker.arrived_body``): each line is answered once it has
        # come, whatever follows it. A server that ends the body itself (werkzeug's for a chunked
        # body) is read as it is: werkzeug's limited stream over it is read 64 KiB at a time, so a
        # line would wait for 64 KiB more of the body before its answer could start.
        buffer = stream.READ_AHEAD
        if request.environ.get("wsgi.input_terminated"):
            body = request.environ["wsgi.input"]
            arrived = arrived_body(body)  # (None for a body not gunicorn's)
            if arrived is not None:
                body, buffer = arrived, stream.ARRIVED_BUFFER
        else:
            request.max_content_length = sys.maxsize
            body = request.stream
        skip = None
        decoding = None
        if coding is not None:
            # Decoded as it is read, a read of the body's at a time (as much as a read of the plain
            # body takes): a read of the decoded body returns what the compressed bytes that have
            # come give, so a line is answered once they have come. A body that cannot be decoded
            # ends the stream with its error, as a bad chunk does; a long line is skipped for
            # codings.SKIP_BYTES at most.
            body = decoding = codings.Decoding(body.read, coding, buffer, code="MALFORMED_JSON")
            buffer, skip = stream.ARRIVED_BUFFER, codings.SKIP_BYTES
        # A stream beyond the slots is refused at once, its body unread (``on_error``: the
        # connection closes with the answer); only a stream that holds a slot waits on its body.
        release = metrics.streaming("rest", stream.slots().take())
        count = request.environ[access.RECORDS] = records.call()  # (its records, for its access line)
        sock = _client_socket()
        if sock is not None:
            # A stream's body may pause at most IDLE_SECONDS between two reads (a whole body is
            # bounded by watchdog.BODY_SECONDS: ``_body_bytes``): a thread waiting on a client
            # that sends nothing is a thread no other call has (a gunicorn worker has REST_THREADS).
            # (gunicorn makes it non-blocking again for the connection's next request; NAIPES_STREAM_IDLE_SECONDS=0
            # is no bound, a blocking socket: a timeout of 0 would make it non-blocking, every pause a broken body)
            sock.settimeout(stream.IDLE_SECONDS or None)
        try:
            answers = stream.validate_ndjson(stream.read_lines(body, buffer=buffer, skip=skip, blanks=stream.BLANK_BYTES), count)
            if decoding is not None:  # (records answered bounded by the bytes sent: stream.RECORDS_PER_BYTE)
                answers = stream.within_sent(answers, count, lambda: decoding.sent)
            response = Response(_releasing(answers, release), status=200, mimetype=NDJSON)
        except BaseException:
            release()
            raise
        response.call_on_close(release)  # when the answer has been sent, or the client has gone
        return response

    endpoint.__name__ = route.method.name
    return endpoint


def _releasing(answers: Iterator[bytes], release: Callable[[], None]) -> Iterator[bytes]:
    """A stream's ``answers``, its slot given back once they have ended, are closed or are
    collected, as well as when the server closes the answer (``call_on_close``: an answer never
    iterated). werkzeug's development server reads what is left of the body once the answer has
    gone, and a reset there skips the answer's close: a client that went on sending past the end
    of its stream and reset the connection held the slot for the life of the process."""
    try:
        yield from answers
    finally:
        release()


def _json(data: Any, status: int, mimetype: str = "application/json") -> Response:
    return Response(codec.dumps_bytes(data) + b"\n", status=status, mimetype=mimetype)


def problem_response(error: ServiceError, headers: dict[str, str] | None = None) -> Response:
    response = _json(problem(error), error.kind.http_status, "application/problem+json")
    request.environ[metrics.CODE] = error.code  # (the code the request is counted under)
    if error.kind.retry_after is not None:
        response.headers["Retry-After"] = str(error.kind.retry_after)
    response.headers.update(headers or {})
    return response


def _compressed(response: Response) -> Response:
    """The after-request hook of answers' codings (``service.codings``): an answer of
    ``ANSWER_MIN_BYTES`` or more, or an NDJSON stream's, in the coding the request's
    ``Accept-Encoding`` welcomes (``gzip`` or ``deflate``), else as it is; such an answer says that
    it varies with ``Accept-Encoding``, for a cache between (a smaller one never does)."""
    if not response.is_streamed and (response.content_length or 0) < codings.ANSWER_MIN_BYTES:
        return response  # (a 204's too)
    response.headers.add("Vary", "Accept-Encoding")
    accept = request.headers.get("Accept-Encoding")
    name = None if accept is None else codings.answer_coding(accept)
    if name is None:
        return response
    if response.is_streamed:
        # (the stream's own generator, of bytes, so that closing the answer closes it: _stream_endpoint)
        response.response = codings.encoded_chunks(cast("Iterable[bytes]", response.response), name)
    else:
        response.set_data(codings.encoded(response.get_data(), name))
    response.headers["Content-Encoding"] = name
    return response


def _conditional(kept: set[str]) -> Callable[[Response], Response]:
    """The after-request hook of the answers a client may keep: a 200 to ``GET`` or ``HEAD`` of
    the endpoints ``kept`` (the API's GET routes, whose answers change only with the service
    itself, and the OpenAPI document) gets a strong ``ETag`` of its bytes as sent (so one per
    coding: it runs after ``_compressed``) and ``Cache-Control: no-cache`` (kept, but asked again
    each time, as a new version of the service may answer otherwise); a request whose
    ``If-None-Match`` holds that tag is ``304 Not Modified``, without a body (werkzeug's
    ``make_conditional``)."""

    def tagged(response: Response) -> Response:
        if request.endpoint in kept and response.status_code == 200 and request.method in ("GET", "HEAD"):
            response.add_etag()
            response.headers["Cache-Control"] = "no-cache"
            response.make_conditional(request)
        return response

    return tagged


def _cors(origins: list[str] | str) -> Callable[[Response], Response]:
    """The after-request hook of CORS (``service.cors``: the decision, which the worker's own
    answers share). (By hand, not flask-cors: its after-request hook took about 30 us of every
    request, an Origin or not, a quarter of the health check's time in Flask; this one returns at
    once without an Origin.)"""

    def add_headers(response: Response) -> Response:
        response.headers.extend(cors.headers(origins, request.method, request.headers.get))
        return response

    return add_headers


class _App(Flask):
    """Flask, its answer to an ``OPTIONS`` request (a browser's CORS preflight: ``service.cors``)
    the 204 of an answer without a body: no ``Content-Type`` (Flask's is a 200 that says
    ``text/html`` of its empty body), the route's methods in ``Allow`` as Flask gives them."""

    def make_default_options_response(self) -> Response:
        response = super().make_default_options_response()
        response.status_code = 204
        del response.headers["Content-Type"]
        return response


def compress_answers() -> bool:
    """``NAIPES_COMPRESS_ANSWERS``: whether answers are compressed for the clients that welcome it
    (``_compressed``): 1 (unset or empty) or 0 (true or false). (``create_app`` has checked it,
    with the other REST settings: ``cli.REST_SETTINGS``.)"""
    return access.setting(os.environ.get("NAIPES_COMPRESS_ANSWERS") or "1")


def create_app() -> Flask:
    """The WSGI app (gunicorn: ``service.rest:create_app()``). A bad setting of its streams or its
    bodies (``service.cli.STREAM_SETTINGS``, ``REST_SETTINGS``) is a ValueError naming it."""
    from service.cli import REST_SETTINGS, STREAM_SETTINGS, check_settings
    from service.openapi import document

    check_settings((*STREAM_SETTINGS, *REST_SETTINGS))

    app = _App("naipes", static_folder=None)  # (no static files: Flask's /static/<path:filename> answered POST /static/x 405)
    app.config["MAX_CONTENT_LENGTH"] = MAX_REQUEST_BYTES
    # An exception on_error raises again goes to the HTTP server rather than to Flask's 500 page.
    app.config["PROPAGATE_EXCEPTIONS"] = True
    # A path with a double slash is no route (NOT_FOUND, problem JSON), not werkzeug's HTML 308
    # redirect to the path with one, which an API client would follow blindly or not at all.
    app.url_map.merge_slashes = False
    routes = http_routes()
    variable_routes = []  # (route, view) of the routes with path variables
    for route in routes:
        view = _stream_endpoint(route) if route.streaming else _endpoint(route)
        app.add_url_rule(route.flask_rule, endpoint=route.method.name, view_func=view, methods=[route.verb])
        if route.variables:
            variable_routes.append((route, view))
    openapi = document(routes)
    app.add_url_rule("/v1/openapi.json", "openapi", lambda: _json(openapi, 200), methods=["GET"])
    app.add_url_rule("/healthz", "healthz", lambda: _json({"status": "SERVING"}, 200), methods=["GET"])
    app.add_url_rule("/metrics", "metrics", lambda: Response(metrics.exposition(), mimetype=None, content_type=metrics.CONTENT_TYPE),
                     methods=["GET"])
    metrics.instrument(app)
    access.configure()  # (NAIPES_ACCESS_LOG)
    origins = cors.allowed_origins()
    if origins:
        app.after_request(_cors(origins))
    kept = {route.method.name for route in routes if route.verb == "GET"} | {"openapi"}
    app.after_request(_conditional(kept))  # (after _compressed: Flask runs the hooks last registered first)
    if compress_answers():
        app.after_request(_compressed)

    @app.before_request
    def before_the_view() -> Response | None:
        """What every request meets before its route's view, in one hook, the request looked up
        once (Flask inspects each hook at each call, and each look-up of ``request`` costs 1 to 3
        us): a request ID that is not one is the request's INVALID_FIELD (``service.access``); a
        path that is no route may be one as sent (``route_the_path_as_sent``)."""
        current = request._get_current_object()  # type: ignore[attr-defined]
        request_id = current.environ.get(access.ENVIRON_ID)
        if request_id is not None:
            access.checked(request_id)
        if current.routing_exception is None:
            _refuse_an_empty_first_segment(current.environ)
            return None
        if not isinstance(current.routing_exception, NotFound):
            return None
        return route_the_path_as_sent()

    def route_the_path_as_sent() -> Response | None:
        """A route with path variables that PATH_INFO missed because a variable is empty
        (``/v1/games//rules``) or holds an encoded slash (``/v1/games/a%2Fb/rules``) is matched on
        the path as sent (``_sent_segments``) and answers for those values, as gRPC answers the
        same request (UNKNOWN_GAME naming ``game``), rather than NOT_FOUND."""
        segments = _sent_segments()
        for route, view in variable_routes:
            values = _path_values(route, segments)
            if values is not None and route.verb == request.method:
                request.environ[metrics.ENDPOINT] = route.method.name  # (counted as the route it is)
                return view(**{f"v{i}": value for i, value in enumerate(values)})
        return None

    @app.errorhandler(Exception)
    def on_error(exc: Exception) -> Response:
        if isinstance(exc, ParseException):
            # gunicorn could not read the body (a bad chunk): its worker answers, as it answers the
            # requests it cannot read at all, and closes the connection (service.rest_worker).
            request.environ[metrics.CODE] = "MALFORMED_REQUEST"  # (its code for it)
            raise exc
        if isinstance(exc, HTTPException):
            response = _http_error(exc)
        else:
            error = from_exception(exc)
            if error.code == "INTERNAL":
                log.exception("%s %s failed", request.method, request.path)
            response = problem_response(error)
        if _body_unread():
            # Answered without its whole body (a refused stream, a late or too large body, a wrong
            # route): the connection closes with the answer, the rest of the body unread. The
            # server's worker honours the header at once (service.rest_worker), and says it.
            response.headers["Connection"] = "close"
        return response

    return app


def _http_error(exc: HTTPException) -> Response:
    if isinstance(exc, NotFound):
        return problem_response(ServiceError("NOT_FOUND", f"no route {request.path}; the API is described at /v1/openapi.json"))
    if isinstance(exc, MethodNotAllowed):
        allowed = ", ".join(exc.valid_methods or [])
        return problem_response(ServiceError("METHOD_NOT_ALLOWED", f"{request.method} is not allowed on {request.path}; allowed: {allowed}"),
                                {"Allow": allowed})
    if isinstance(exc, RequestEntityTooLarge):
        return problem_response(ServiceError("PAYLOAD_TOO_LARGE", f"the body is larger than {MAX_REQUEST_BYTES} bytes"))
    if isinstance(exc, ClientDisconnected):
        return problem_response(_cut_short())
    code = "INVALID_FIELD" if exc.code and 400 <= exc.code < 500 else "INTERNAL"
    return problem_response(ServiceError(code, exc.description or exc.name))
