"""The gRPC server: NaipesService over the shared handlers, standard health checking and
server reflection.

Invalid input is answered with the status of the error table and the rich error model: a
``google.rpc.Status`` whose details hold an ``ErrorInfo`` (``reason`` = the error code, domain
``naipes.v1``, ``metadata.field``) and a ``BadRequest`` naming the field. An unexpected exception
is logged and answered ``INTERNAL``; the server goes on serving.

Run alone: ``python -m service.grpc_server --host 127.0.0.1 --port 50051``.
"""

from __future__ import annotations

import argparse
import itertools
import logging
import os
import signal
import time
from collections.abc import Callable, Iterator
from concurrent import futures
from typing import Any, cast

import grpc
from google.protobuf import any_pb2
from google.rpc import error_details_pb2, status_pb2
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection
from grpc_status import rpc_status

from service import access, affinity, metrics, ready, stream
from service.codings import ANSWER_MIN_BYTES
from service.errors import DOMAIN, MAX_REQUEST_BYTES, ServiceError, from_exception
from service.handlers import SERVICE, WIRE_HANDLERS
from service.watchdog import BODY_SECONDS, WATCHDOG

log = logging.getLogger("naipes.grpc")
# How much of a stream the server takes in before its handler reads it (HTTP/2 flow control). The
# validator reads a stream only a bounded window ahead (service.stream.Window), but with the
# window grown by bandwidth probing grpcio took in several MB of each fast client's stream: 8
# simultaneous 15,000-record streams held one process at 118 MB, 77 MB with this (bench/NOTES.md),
# at the same records a second. 1 MiB a round trip still uploads 10 MB/s over a 100 ms path,
# about 20,000 Revesino records a second: more than two cores validate.
STREAM_WINDOW = 1 << 20
# Calls one process takes at a time, streams included; a call beyond is refused at once with
# RESOURCE_EXHAUSTED. Each call holds up to about STREAM_WINDOW of its request before its handler
# reads it: 100 simultaneous 15,000-record streams took one process to 175 MB, and a flood of them
# would take it past any memory limit. The thread pool has a thread for each: grpcio gives a call
# its thread when the call opens, before its request has come, so with fewer threads than calls,
# calls that open and never send their request held every thread and starved the process, health
# check included (such calls end after watchdog.BODY_SECONDS: ``_RequestBound``). A thread that
# waits for its request waits in grpcio's C core, without the GIL; the pool starts its threads as
# calls need them.
MAX_CALLS = 64
# The largest message grpcio takes in (its own RESOURCE_EXHAUSTED beyond, "Received message larger
# than max", before the service sees the call). The service's limit is MAX_REQUEST_BYTES: a message
# between the two is refused by the service itself, with the error table's PAYLOAD_TOO_LARGE and
# its details (a stream's message is answered so, and the stream goes on, as an NDJSON line over
# the limit is). Half as much again as the limit: a call holds up to a message while it comes, and
# 64 calls of a process holding one each is 96 MiB (64 MiB with grpcio refusing all over the limit);
# the two processes of the pod (deploy/k8s) then stay within its memory limit at its streams' peak.
MESSAGE_CEILING = 3 * MAX_REQUEST_BYTES // 2
_calls = itertools.count(1)  # unary NaipesService calls answered by this process (next() is atomic under the GIL)


def status_of(error: ServiceError) -> status_pb2.Status:
    """The rich gRPC status of an error: ErrorInfo, and BadRequest when a field is at fault."""
    details = []
    info = error_details_pb2.ErrorInfo(reason=error.code, domain=DOMAIN)
    if error.field is not None:
        info.metadata["field"] = error.field
    details.append(info)
    if error.field is not None:
        details.append(error_details_pb2.BadRequest(field_violations=[
            error_details_pb2.BadRequest.FieldViolation(field=error.field, description=error.message)]))
    if error.kind.retry_after is not None:
        retry = error_details_pb2.RetryInfo()
        retry.retry_delay.seconds = error.kind.retry_after
        details.append(retry)
    packed = []
    for detail in details:
        any_detail = any_pb2.Any()
        any_detail.Pack(detail)
        packed.append(any_detail)
    return status_pb2.Status(code=error.kind.grpc_code.value[0], message=error.message, details=packed)


def answer_compression() -> grpc.Compression | None:
    """How gRPC's answers are compressed (``NAIPES_GRPC_COMPRESSION``: ``none``, unset or empty,
    ``gzip`` or ``deflate``; a ValueError naming it for anything else): an answer of
    ``codings.ANSWER_MIN_BYTES`` or more, and a ValidateHands stream's every message (grpcio sends
    them so to every client: one that has turned the coding off fails the call, docs/api.md).
    None: every answer plain."""
    from service.cli import GRPC_SETTINGS, check_settings, compression_argument

    check_settings(GRPC_SETTINGS)
    value = compression_argument(os.environ.get("NAIPES_GRPC_COMPRESSION") or "none")
    return {"none": None, "gzip": grpc.Compression.Gzip, "deflate": grpc.Compression.Deflate}[value]


def connection_age() -> float:
    """``NAIPES_GRPC_CONNECTION_AGE``: seconds after which the server asks a client to move to a
    new connection (HTTP/2 GOAWAY, grpcio's ``grpc.max_connection_age_ms``), 0, unset or empty for
    never. Calls under way on the old connection go on to their end (no grace bound is set); the
    client's next calls open a new one, resolving the name again: a client balancing over a
    headless Service's pods (deploy/k8s) then reaches pods added since it connected. A bad value is
    refused where the server is made (``answer_compression``'s check of ``cli.GRPC_SETTINGS``)."""
    return stream.env_seconds("NAIPES_GRPC_CONNECTION_AGE", 0.0)


def _method(name: str, handler: Callable[[Any], Any], compression: grpc.Compression | None = None) -> Callable[[Any, grpc.ServicerContext], Any]:
    calls = metrics.Calls("grpc", name)

    def call(request: Any, context: grpc.ServicerContext) -> Any:
        next(_calls)
        started = time.perf_counter()
        request_id = None
        try:
            request_id = access.grpc_request_id(context)
            if len(request) > MAX_REQUEST_BYTES:
                raise ServiceError("PAYLOAD_TOO_LARGE", f"the request message is {len(request)} bytes, larger than the {MAX_REQUEST_BYTES} "
                                   "the service accepts")
            answer = handler(request)
            if compression is not None and len(answer) >= ANSWER_MIN_BYTES:
                context.set_compression(compression)
        except Exception as exc:  # every failure becomes a status; the server lives on
            error = from_exception(exc)
            calls.done(error.code, started, context, request_id)
            if error.code == "INTERNAL":
                log.exception("%s failed", name)
            context.abort_with_status(rpc_status.to_status(status_of(error)))
        calls.done("OK", started, context, request_id)
        return answer

    call.__name__ = name
    return call


def _ended(context: grpc.ServicerContext) -> str:
    """The code of a stream whose handler ended without an error, once the call has ended: OK, or
    CANCELLED if its client cancelled it (DEADLINE_EXCEEDED if its deadline ended it, ``_gone``).
    A client that cancels may end its requests first, as if its stream had ended (grpcio's request iterator stops when its receive came back empty before
    the cancel was seen), and the handler then ends as for a stream answered whole; only the call's
    end tells them apart, and grpcio tells it only in its call state (``_RPCState.client``, the
    string ``"cancelled"`` in grpcio 1.85; a grpcio without it counts such a stream OK)."""
    state = getattr(context, "_state", None)
    return _gone(context) if getattr(state, "client", None) == "cancelled" else "OK"


# A stream that ends this close to its deadline ended for it (``_gone``): the client's own timer,
# started as it sent the call, ends it about when the server's, started as the call came, would.
DEADLINE_MARGIN = 0.1  # seconds


def _gone(context: grpc.ServicerContext) -> str:
    """The code of a stream that ended before its answers did: DEADLINE_EXCEEDED if the deadline
    its client set has passed, or is less than DEADLINE_MARGIN away (the client then ends the call
    itself, sees DEADLINE_EXCEEDED, and the server sees a cancel), else CANCELLED: its client
    cancelled it or went away."""
    return "DEADLINE_EXCEEDED" if context.time_remaining() < DEADLINE_MARGIN else "CANCELLED"


# A stream's answer may wait to be taken stream.IDLE_SECONDS, and a second more for every
# UNREAD_BYTES_PER_SECOND of it: the service sees a message go whole, not its bytes, and a batch's
# answer of some megabytes takes a slow client's link (128 kbit/s) its time.
UNREAD_BYTES_PER_SECOND = 16 << 10


def _taken_in_time(answers: Iterator[bytes], seconds: float, end: Callable[[float], None]) -> Iterator[bytes]:
    """``answers``, each to be taken within ``seconds`` and a second a ``UNREAD_BYTES_PER_SECOND``
    of it (``seconds`` 0: no bound); past its time, ``end`` is given how long it has waited, once a
    stream. grpcio sends a stream's answers one at a time, each once the last has gone, and a client
    that reads none stops them at its HTTP/2 window: the handler then waits in grpcio's send, where
    no bound of the service reaches it, and held its thread and its stream slot for as long as the
    client kept its connection (two such clients held both slots of a process, every other stream
    refused ``TOO_MANY_STREAMS``). The watchdog (``watchdog.WATCHDOG``) ends it."""
    if not seconds:
        yield from answers
        return
    ended: list[float] = []

    def end_once(waited: float) -> None:
        if not ended:
            ended.append(waited)
            end(waited)

    for answer in answers:
        token = WATCHDOG.watch(seconds + len(answer) / UNREAD_BYTES_PER_SECOND, end_once)
        try:
            yield answer
        finally:
            WATCHDOG.done(token)


def _cancel(context: grpc.ServicerContext, message: str) -> None:
    """Cancel a call that waits on its client, with ``DEADLINE_EXCEEDED`` and why: a cancel goes out
    in the HTTP/2 stream's trailers, which no window holds back (an answer waiting to be taken
    could not be sent), and ends the call's wait for its request. grpcio's public ``cancel`` says
    only ``CANCELLED``; its call's own ``cancel`` takes a status (grpcio 1.85; without it, the public one)."""
    call = getattr(getattr(context, "_rpc_event", None), "call", None)
    try:
        call.cancel(grpc.StatusCode.DEADLINE_EXCEEDED.value[0], message.encode())  # type: ignore[union-attr]
    except (AttributeError, TypeError):
        context.cancel()


class _RequestBound(grpc.ServerInterceptor):
    """Ends a call whose request message has not come within ``seconds`` of its opening (every
    method whose request is one message: the service's, the health check's). grpcio gives a call
    its thread and its place among the process's MAX_CALLS as it opens, and waits for a unary
    request in its C core before the service sees the call: 64 calls that opened and sent nothing
    (one HTTP/2 connection can open them) left the process refusing every call, the health check
    included, for as long as their clients kept them. So the service takes such a method's request
    as the first message of a request stream (the same bytes on the wire) and waits for it under
    the watchdog (``watchdog.WATCHDOG``), which cancels a call past its time with
    ``DEADLINE_EXCEEDED``, counted ``REQUEST_TIMEOUT``, and logs a warning. The handlers so made
    are kept a method (those of methods that exist only). Its cost, against no bound
    (NAIPES_BODY_SECONDS=0, ``python -m bench.server_ab``): within the noise of two servers alike,
    the health check's and ValidateHand's calls a second (bench/NOTES.md)."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.handlers: dict[str, grpc.RpcMethodHandler[Any, Any]] = {}

    def intercept_service(self, continuation: Callable[[grpc.HandlerCallDetails], grpc.RpcMethodHandler[Any, Any] | None],
                          handler_call_details: grpc.HandlerCallDetails) -> grpc.RpcMethodHandler[Any, Any] | None:
        method = handler_call_details.method
        handler = self.handlers.get(method)
        if handler is None:
            handler = continuation(handler_call_details)
            if handler is None or handler.request_streaming:
                return handler
            handler = self.handlers.setdefault(method, self._bounded(handler, method))
        return handler

    def _bounded(self, handler: grpc.RpcMethodHandler[Any, Any], method: str) -> grpc.RpcMethodHandler[Any, Any]:
        """``handler`` taking its request as a stream's first message, within ``self.seconds``."""
        seconds, name = self.seconds, method.rsplit("/", 1)[-1]
        calls = metrics.Calls("grpc", name)
        behaviour = cast(Callable[[Any, grpc.ServicerContext], Any], handler.unary_stream if handler.response_streaming else handler.unary_unary)

        message = f"the request did not come within {seconds:g} seconds: the call ended"

        def call(requests: Iterator[Any], context: grpc.ServicerContext) -> Any:
            def end(waited: float) -> None:  # (on the watchdog's thread; before the cancel, which forgets the call's peer)
                try:  # (sent back in the initial metadata, as every other answer's, an error's too)
                    request_id = access.grpc_request_id(context)
                except ServiceError:  # (an ID refused: the call ends all the same, for its request's lateness)
                    request_id = None
                calls.done("REQUEST_TIMEOUT", time.perf_counter() - waited, context, request_id)
                log.warning("%s from %s: the request did not come within %g seconds; the call is ended", name, context.peer(), seconds)
                _cancel(context, message)

            token = WATCHDOG.watch(seconds, end)
            try:
                request = next(requests, None)
            except grpc.RpcError:  # (the call has ended: its client cancelled it, its deadline passed, or the watchdog ended it)
                if WATCHDOG.done(token):
                    raise
                request = None
            if not WATCHDOG.done(token):
                context.abort(grpc.StatusCode.DEADLINE_EXCEEDED, message)
            if request is None:  # (the client ended its request stream without a message: as grpcio answers it, the method named)
                context.abort(grpc.StatusCode.UNIMPLEMENTED, f'"{method}" requires exactly one request message.')
            return behaviour(request, context)

        call.__name__ = name
        make = grpc.stream_stream_rpc_method_handler if handler.response_streaming else grpc.stream_unary_rpc_method_handler
        return make(call, request_deserializer=handler.request_deserializer, response_serializer=handler.response_serializer)


def _stream_method(name: str, compression: grpc.Compression | None = None) -> Callable[[Iterator[bytes], grpc.ServicerContext], Iterator[bytes]]:
    """A streaming RPC over wire bytes: the records go to the validation pool unparsed and their
    answers come back serialized (``service.stream``); a bad record is an ``error`` entry. The
    call is counted when it ends (``CANCELLED``: its client went away; ``DEADLINE_EXCEEDED``: its
    deadline passed), its records batch by batch."""
    calls, records = metrics.Calls("grpc", name), metrics.StreamRecords("grpc")

    def call(requests: Iterator[bytes], context: grpc.ServicerContext) -> Iterator[bytes]:
        started = time.perf_counter()
        request_id = None
        try:
            request_id = access.grpc_request_id(context)
            release = metrics.streaming("grpc", stream.slots().take())
        except ServiceError as error:
            calls.done(error.code, started, context, request_id)
            context.abort_with_status(rpc_status.to_status(status_of(error)))
        count = records.call()

        def done(code: str) -> None:
            calls.done(code, started, context, request_id, count.records)

        code = "CANCELLED"  # unless the stream ends otherwise
        unread: list[str] = []  # its code, once it is ended for an answer its client has not taken

        def end_unread(waited: float) -> None:
            unread.append("REQUEST_TIMEOUT")
            log.warning("%s from %s: the client took no answer for %.0f seconds while the server waited to send it one; "
                        "the stream is ended", name, context.peer(), waited)
            _cancel(context, f"the client took no answer for {waited:.0f} seconds while the server waited to send it one: the stream ended")

        try:
            if not context.add_callback(release):  # when the call ends, however it ends
                release()  # (it has ended already)
                return
            if compression is not None:
                context.set_compression(compression)
            try:
                yield from _taken_in_time(stream.validate_wire(requests, count), stream.IDLE_SECONDS, end_unread)
            except grpc.RpcError:  # the client went away
                return
            except Exception as exc:
                log.exception("%s failed", name)
                code = "INTERNAL"
                context.abort_with_status(rpc_status.to_status(status_of(from_exception(exc))))
            code = "OK"
        finally:
            if code != "OK":
                done(unread[0] if unread else _gone(context) if code == "CANCELLED" else code)
            elif not context.add_callback(lambda: done(_ended(context))):  # (counted once the call has ended)
                done(_ended(context))

    call.__name__ = name
    return call


def rpc_handlers(compression: grpc.Compression | None = None) -> grpc.GenericRpcHandler:
    """One handler per RPC of the service descriptor, wire bytes in and out: unary RPCs call their
    shared handler's (``WIRE_HANDLERS``); ValidateHands streams through the validation pool.
    ``compression``: the answers' (``answer_compression``)."""
    handlers: dict[str, grpc.RpcMethodHandler[Any, Any]] = {}
    for method in SERVICE.methods:
        if method.client_streaming or method.server_streaming:
            handlers[method.name] = grpc.stream_stream_rpc_method_handler(_stream_method(method.name, compression))
            continue
        handlers[method.name] = grpc.unary_unary_rpc_method_handler(_method(method.name, WIRE_HANDLERS[method.name], compression))
    return grpc.method_handlers_generic_handler(SERVICE.full_name, handlers)


class _Health(health.HealthServicer):
    """The standard health service, its ``Check`` counted as the service's calls are."""

    def __init__(self) -> None:
        super().__init__()
        self.calls = metrics.Calls("grpc", "Check")

    def Check(self, request: health_pb2.HealthCheckRequest, context: grpc.ServicerContext) -> health_pb2.HealthCheckResponse:
        started = time.perf_counter()
        try:
            request_id = access.grpc_request_id(context)
        except ServiceError as error:
            self.calls.done(error.code, started, context)
            context.abort_with_status(rpc_status.to_status(status_of(error)))
        answer = super().Check(request, context)
        # (A service it does not know is answered NOT_FOUND, with an empty answer: status UNKNOWN.)
        self.calls.done("OK" if answer.status else "NOT_FOUND", started, context, request_id)
        return answer


def create_server(host: str = "127.0.0.1", port: int = 0, max_workers: int | None = None,
                  max_calls: int = MAX_CALLS, request_seconds: float | None = None,
                  connection_seconds: float | None = None) -> tuple[grpc.Server, int]:
    """A started-ready (not yet started) server bound to ``host:port``; returns it and its port.
    Its thread pool has ``max_workers`` threads, by default one for each call it takes. A call's
    request must come within ``request_seconds`` (default ``watchdog.BODY_SECONDS``; 0: no bound,
    ``_RequestBound``). Its answers compressed as ``NAIPES_GRPC_COMPRESSION`` says (``answer_compression``).
    A connection is asked to move on after ``connection_seconds`` (default ``connection_age()``; 0: never)."""
    request_seconds = BODY_SECONDS if request_seconds is None else request_seconds
    age = connection_age() if connection_seconds is None else connection_seconds
    server = grpc.server(
        futures.ThreadPoolExecutor(max_workers=max_workers or max_calls),
        interceptors=[_RequestBound(request_seconds)] if request_seconds else None,
        maximum_concurrent_rpcs=max_calls,
        # SO_REUSEPORT: `naipes serve --workers N` runs N of these processes on one port, and
        # the kernel spreads the connections over them. A stream's receive window: STREAM_WINDOW.
        options=[("grpc.max_receive_message_length", MESSAGE_CEILING), ("grpc.so_reuseport", 1),
                 ("grpc.http2.bdp_probe", 0), ("grpc.http2.lookahead_bytes", STREAM_WINDOW),
                 # (an int32 of milliseconds: its largest, about 24.8 days, grpcio reads as never)
                 *([("grpc.max_connection_age_ms", min(2**31 - 1, max(1, round(age * 1000))))] if age else [])],
    )
    server.add_generic_rpc_handlers((rpc_handlers(answer_compression()),))
    health_servicer = _Health()
    for name in ("", SERVICE.full_name):
        health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    reflection.enable_server_reflection(
        (SERVICE.full_name, health_pb2.DESCRIPTOR.services_by_name["Health"].full_name, reflection.SERVICE_NAME), server)
    bound = server.add_insecure_port(address(host, port))
    if bound == 0:
        raise OSError(f"cannot listen for gRPC on {address(host, port)}")
    return server, bound


def address(host: str, port: int) -> str:
    """``host:port``, an IPv6 address in brackets (``[::]:50051``), as gRPC and gunicorn read it."""
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


def stop_signals() -> Callable[[], int]:
    """Take SIGINT and SIGTERM as a stop from now on; return the wait for one (it returns the
    signal's number). The wait reads a pipe the signal's C handler writes the number to
    (``signal.set_wakeup_fd``), on whatever thread the kernel hands the signal to; the Python
    handler does nothing. A Python handler runs in the main thread between two of its bytecodes,
    wherever the main thread is: one that set a ``threading.Event`` could find the main thread
    inside that event's ``wait``, holding the lock ``set`` takes, and the stop hung, the process
    deaf to any further signal (seen under load: a SIGTERM sent as the port began to listen, the
    process killed 30 s later). One that wrote to the pipe itself ran only once the main thread
    ran again: a signal handed to another thread (grpcio's, the thread pool's) left the main thread
    in its read of the pipe, and the stop waited for anything else to wake it."""
    reader, writer = os.pipe()
    os.set_blocking(writer, False)  # (the pipe full of earlier signals: the byte is dropped, one is enough)
    for sig in STOP_SIGNALS:
        signal.signal(sig, lambda _signum, _frame: None)
    signal.set_wakeup_fd(writer, warn_on_full_buffer=False)

    def wait() -> int:
        while (signum := os.read(reader, 1)[0]) not in STOP_SIGNALS:  # (another signal with a Python handler)
            pass
        return signum

    return wait


def serve(host: str, port: int, max_workers: int | None = None) -> None:
    """Serve until SIGINT or SIGTERM, then stop: the port closed at once, the calls under way given
    ``NAIPES_STOP_SECONDS`` (2 s unless set) to end."""
    from service.cli import GRPC_STOP_SECONDS

    server, bound = create_server(host, port, max_workers)
    wait_for_stop = stop_signals()  # (before the port listens: a signal as soon as it does is a stop too)
    server.start()
    log.info("gRPC listening on %s", address(host, bound))
    ready.announce("grpc")
    wait_for_stop()
    server.stop(grace=stream.env_seconds("NAIPES_STOP_SECONDS", GRPC_STOP_SECONDS)).wait()  # (checked as the server started)
    stream.shutdown_pool()
    # How the connections were spread over `naipes serve --workers N` processes (the benchmark reads it).
    log.info("gRPC stopped: process %d answered %d unary calls", os.getpid(), next(_calls) - 1)


def main(argv: list[str] | None = None) -> None:
    """``python -m service.grpc_server [--host H] [--port P]``: defaults from NAIPES_HOST and
    NAIPES_GRPC_PORT (a port that is no integer from 0 to 65535 is a usage error, exit 2), else
    127.0.0.1:50051; port 0 is any free port, logged once bound. The access log as
    NAIPES_ACCESS_LOG says (1 or 0; anything else is a usage error); a bad setting of the
    streaming validator (``cli.STREAM_SETTINGS``) or of the answers' compression
    (``cli.GRPC_SETTINGS``) is a usage error too."""
    from service.cli import GRPC_PORT, GRPC_SETTINGS, HOST, STREAM_SETTINGS, any_port_argument, check_settings, env_flag, env_setting

    parser = argparse.ArgumentParser(description="Naipes gRPC server")
    parser.add_argument("--host", default=os.environ.get("NAIPES_HOST") or HOST, help=f"default: NAIPES_HOST, else {HOST}")
    parser.add_argument("--port", type=any_port_argument, help=f"default: NAIPES_GRPC_PORT, else {GRPC_PORT}; 0: any free port")
    args = parser.parse_args(argv)
    port = args.port if args.port is not None else env_setting(parser, "NAIPES_GRPC_PORT", GRPC_PORT, any_port_argument)
    try:
        check_settings((*STREAM_SETTINGS, *GRPC_SETTINGS))
    except ValueError as exc:
        parser.error(str(exc))
    access.configure(env_flag(parser, access.SETTING))
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    try:  # (naipes serve --pin-cpus: before the server starts its threads, which run where this one does)
        cpu = affinity.pin_from_env()
    except (ValueError, OSError) as exc:
        parser.error(f"{affinity.CPU_ENV}: {exc}")
    if cpu is not None:
        log.info("gRPC server pinned to CPU %d", cpu)
    serve(args.host, port)


if __name__ == "__main__":
    main()
