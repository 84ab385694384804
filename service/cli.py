"""The ``naipes`` command.

  naipes serve [--host H] [--rest-port P] [--grpc-port P] [--workers N] [--access-log] [--pin-cpus]
      REST under gunicorn (N workers) and gRPC (N processes on one port), until SIGINT or SIGTERM;
      --access-log: a JSON line per call on stderr (service/access.py); --pin-cpus: each gRPC
      process and REST worker on one CPU of the server's (service/affinity.py).
      Defaults from NAIPES_HOST, NAIPES_REST_PORT, NAIPES_GRPC_PORT, NAIPES_WORKERS, NAIPES_ACCESS_LOG,
      NAIPES_PIN_CPUS.
  naipes validate FILE|-      replay a hand record (or {"record": ..., "expect": ...});
                              exit 0 valid, 1 a rule is broken, 2 invalid input, 3 an internal error
  naipes audit FILE|- [--omit-events]
                              validate an archive: NDJSON, one record (or {"id": ..., "record": ...}, or
                              {"id": ..., "batch": [...]}) per line, on every core; each line answered
                              as POST /v1/hands:validateStream answers it, a count on stderr; exit 0
                              every record valid, 1 a rule broken, 2 a record not well formed, 3 an
                              internal error; --omit-events: every result's events left empty (each
                              line as if it carried "omitEvents": true, unless it says omitEvents itself)
                              A FILE (or stdin) that is gzip'd is read gunzipped.
  naipes legal FILE|- [--seat N]
  naipes deal --game rentoy --seats 4 --dealer 0 [--seed S]
  naipes rules GAME

Every answer is printed exactly as the REST API answers it; an error is printed to stderr as
the REST API's problem JSON.
"""

from __future__ import annotations

import argparse
import errno
import logging
import math
import os
import re
import secrets
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, BinaryIO, TypeVar

EXIT_VALID, EXIT_VIOLATION, EXIT_INVALID, EXIT_INTERNAL = 0, 1, 2, 3
EXIT_INTERRUPTED = 128 + signal.SIGINT  # Ctrl-C: 130, as a shell reports a command SIGINT ended
REST_THREADS = 4  # threads per gunicorn worker
REST_WORKER_CLASS = "service.rest_worker.ProblemWorker"  # gunicorn's gthread worker, its own errors in problem JSON

log = logging.getLogger("naipes")
T = TypeVar("T")


def env_setting(parser: argparse.ArgumentParser, name: str, default: T, read: Callable[[str], T]) -> T:
    """A setting from the environment variable ``name`` (``default`` if unset or empty), read as its
    argument is (``read``: ``port_argument``, say), once the command line has not given it: a bad
    value is the parser's error naming the variable, exit 2 (it was a ValueError's traceback, as the
    parser was made, for every command)."""
    text = os.environ.get(name)
    if not text:
        return default
    try:
        return read(text)
    except argparse.ArgumentTypeError as exc:
        parser.error(f"{name}: {exc}")


def env_flag(parser: argparse.ArgumentParser, name: str) -> bool:
    """An on/off setting from the environment variable ``name`` (``access.setting``: 1 or 0, off if
    unset or empty); a bad value is the parser's error naming the variable, exit 2, as
    ``env_setting``'s."""
    from service.access import setting

    try:
        return setting(os.environ.get(name, ""))
    except ValueError as exc:
        parser.error(f"{name}: {exc}")


def _worker_tmp_dir() -> list[str]:
    """gunicorn's heartbeat files in /dev/shm, where there is one (gunicorn's advice for
    containers): a container's root file system may be read-only (deploy/k8s), and without a
    writable temporary directory gunicorn cannot start."""
    from service.run_dir import shm

    where = shm()
    return ["--worker-tmp-dir", where] if where else []


PR_SET_PDEATHSIG = 1  # linux/prctl.h


def _ended_with_this_process() -> Callable[[], None] | None:
    """A child's ``preexec_fn``: the kernel sends the child SIGTERM when this process ends, however
    (Linux's PR_SET_PDEATHSIG): ``naipes serve`` killed outright (SIGKILL, the OOM killer) stops its
    servers, as on SIGTERM, rather than leave them serving with nobody to stop them. None on other
    systems (the servers are stopped only by ``naipes serve``'s own stop there)."""
    if not sys.platform.startswith("linux"):
        return None
    import ctypes

    prctl = ctypes.CDLL(None, use_errno=True).prctl
    parent = os.getpid()

    def preexec() -> None:
        prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
        if os.getppid() != parent:  # (it ended before the call)
            os.kill(os.getpid(), signal.SIGTERM)

    return preexec


def serve(host: str, rest_port: int, grpc_port: int, workers: int, access_log: bool = False, pin_cpus: bool = False) -> int:
    """Run ``workers`` gRPC server processes sharing one port (SO_REUSEPORT: the kernel spreads
    connections over them) and gunicorn (REST) with ``workers`` worker processes; stop them all on
    SIGINT or SIGTERM, or when one dies. NAIPES_WORKERS is passed on (the number of serving
    processes); each process's pool for the streaming validator has NAIPES_STREAM_WORKERS
    processes, else one per CPU the server may use (service/stream.py), whatever ``workers``.
    ``access_log``: every process writes a JSON line per call to stderr (NAIPES_ACCESS_LOG=1 is
    passed on: service/access.py). ``naipes ready`` is logged once every process serves: each gRPC
    process listens and each gunicorn worker has loaded the app (service/ready.py). ``pin_cpus``:
    the gRPC processes, then the gunicorn workers, each run on the next CPU this process may use,
    in turn; the pools on all of them (service/affinity.py)."""
    from prometheus_client import multiprocess

    from service import affinity, ready, run_dir
    from service.grpc_server import address
    from service.stream import env_seconds

    # A host the servers cannot listen on (a name that does not resolve, an address of another
    # machine) was gunicorn's retries for 5 seconds and its error, or taken for a port in use.
    if (why := _host_error(host)) is not None:
        raise SystemExit(f"naipes serve: host {host} (--host, NAIPES_HOST): {why}")
    # Both servers bind with SO_REUSEPORT (their processes share a port), which lets them bind a port
    # another server of this user listens on with it too (another naipes serve): the kernel would
    # share the connections between the two, silently. A port something listens on is refused.
    for name, port in (("--rest-port, NAIPES_REST_PORT", rest_port), ("--grpc-port, NAIPES_GRPC_PORT", grpc_port)):
        if _listening(host, port):  # (the argument or the variable: either may have given it)
            raise SystemExit(f"naipes serve: {address(host, port)} ({name}) is in use: something listens there already")
    # The metrics of every process, summed at /metrics (service/metrics.py): prometheus_client's
    # multiprocess mode, in a fresh directory of this server's own, in memory where /dev/shm is
    # (else in the temporary directory: an in-memory emptyDir under deploy/k8s), removed at stop,
    # or by the next naipes serve if this one is killed outright (service/run_dir.py). Beside it,
    # where each process says that it serves (service/ready.py): "naipes ready" waits for all of them.
    run = run_dir.make()
    metrics_dir, ready_dir = run.metrics, run.ready
    env = {**os.environ, "NAIPES_WORKERS": str(workers), "PROMETHEUS_MULTIPROC_DIR": metrics_dir, ready.ENV: ready_dir,
           "NAIPES_ACCESS_LOG": "1" if access_log else "0"}
    for name in (affinity.CPU_ENV, affinity.SERVER_CPUS_ENV):  # (naipes serve's own, to its processes)
        env.pop(name, None)
    cpus: list[int] = []
    if pin_cpus:
        from service.stream import pool_size

        cpus = affinity.available()
        env[affinity.SERVER_CPUS_ENV] = affinity.written(cpus)
        env["NAIPES_STREAM_WORKERS"] = str(pool_size())  # (counted here: a pinned process sees one CPU)
        log.info("naipes serve: each gRPC process and REST worker pinned to one of CPUs %s", affinity.written(cpus))
    grpc_command = [sys.executable, "-m", "service.grpc_server", "--host", host, "--port", str(grpc_port)]
    # How long calls under way may go on once a stop is asked (NAIPES_STOP_SECONDS, each server
    # reading it; unset, gRPC's 2 s and gunicorn's 5), then 5 s more before a server that has not
    # ended is killed.
    grace = env_seconds("NAIPES_STOP_SECONDS", REST_STOP_SECONDS)  # (checked by the command)
    ended_with_this = _ended_with_this_process()
    children = {f"gRPC worker {i + 1}" if workers > 1 else "gRPC":
                subprocess.Popen(grpc_command, env={**env, affinity.CPU_ENV: str(cpus[i % len(cpus)])} if cpus else env,
                                 preexec_fn=ended_with_this, process_group=0)
                for i in range(workers)}
    # gthread workers: keep-alive connections, and a long ValidateHands stream does not trip the
    # worker timeout (a sync worker is killed after --timeout seconds in one request); ours
    # (service.rest_worker) answers the requests gunicorn cannot read in problem JSON, not HTML.
    # --no-control-socket: gunicorn's runtime control socket (worker count, reload, shutdown; in
    # $HOME/.gunicorn since gunicorn 25) is not opened: nothing here uses it, and a container's
    # root file system may be read-only.
    # --reuse-port: each worker listens on its own SO_REUSEPORT socket and the kernel spreads the
    # connections, as for gRPC; on one shared socket a gthread worker accepts every connection it
    # can, so one worker held all of a client's keep-alive connections and the other stayed idle.
    # --config: service/gunicorn_conf.py, a worker that exits is marked dead for the metrics.
    children["REST"] = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "--workers", str(workers), "--worker-class", REST_WORKER_CLASS, "--threads", str(REST_THREADS),
         "--reuse-port", "--bind", address(host, rest_port), "--graceful-timeout", str(math.ceil(grace)), "--log-level", "warning",
         "--no-control-socket", "--config", "python:service.gunicorn_conf", *_worker_tmp_dir(), "service.rest:create_app()"],
        env={**env, affinity.SERVER_CPUS_ENV: affinity.written(affinity.turned(cpus, workers))} if cpus else env,
        preexec_fn=ended_with_this, process_group=0)
    # Each server in a process group of its own (process_group=0): a terminal's Ctrl-C reaches
    # this process alone, which stops them with SIGTERM and their grace (gunicorn's master, given
    # the SIGINT itself, ended its calls at once).
    stopping: list[int] = []

    def on_signal(signum: int, _frame: Any) -> None:
        stopping.append(signum)

    previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGINT, signal.SIGTERM)}
    status = 0
    announced = False
    started = time.monotonic()
    try:
        while not stopping:
            if not announced and ready.serving(ready_dir, "grpc") >= workers and ready.serving(ready_dir, "rest") >= workers:
                announced = True
                one = workers == 1
                log.info("naipes ready in %.1f s: REST on http://%s (gunicorn, %d worker%s), gRPC on %s (%d process%s)",
                         time.monotonic() - started, address(host, rest_port), workers, "" if one else "s",
                         address(host, grpc_port), workers, "" if one else "es")
            dead = [name for name, child in children.items() if child.poll() is not None]
            if dead:
                for name in dead:  # (its live gauges leave the metrics' sums at once)
                    multiprocess.mark_process_dead(children[name].pid, metrics_dir)  # type: ignore[no-untyped-call]
                log.error("naipes: the %s server exited (status %s); stopping", dead[0], children[dead[0]].returncode)
                status = 1
                break
            time.sleep(0.2)
    finally:
        for child in children.values():
            if child.poll() is None:
                child.send_signal(signal.SIGTERM)
        # A server not ended 5 s after the grace (and 10 s after the stop) is killed with every
        # process of its group, and so is every one at a second stop signal (Ctrl-C again): the
        # calls under way end then.
        deadline, asked = time.monotonic() + max(grace, REST_STOP_SECONDS) + 5, len(stopping)
        while any(child.poll() is None for child in children.values()):
            if time.monotonic() > deadline or len(stopping) > asked:
                if len(stopping) > asked:
                    log.info("naipes: stopped again: the calls under way are ended")
                for child in children.values():
                    try:  # (its group: gunicorn's workers and the pools' processes with it)
                        os.killpg(child.pid, signal.SIGKILL)
                    except ProcessLookupError:
                        pass
                break
            time.sleep(0.05)
        for child in children.values():
            child.wait()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        run.remove()
    log.info("naipes stopped")
    return status


def _host_error(host: str) -> str | None:
    """Why nothing can listen on ``host`` (the name does not resolve, or it is no address of this
    machine, or there is none: gRPC refuses an empty host, which a socket binds as the wildcard),
    None if a socket binds it."""
    if not host:
        return "no host given (0.0.0.0 or :: for every interface)"
    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, 0, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)[0]
        with socket.socket(family, kind, proto) as probe:
            probe.bind(address)
    except OSError as exc:  # (socket.gaierror is one)
        return str(exc.strerror or exc)
    return None


def _listening(host: str, port: int) -> bool:
    """Whether something accepts connections on the port (a wildcard host is reached on loopback)."""
    target = "127.0.0.1" if host in ("0.0.0.0", "") else "::1" if host == "::" else host
    try:
        with socket.create_connection((target, port), timeout=0.2):
            return True
    except OSError:
        return False


def _stdin() -> BinaryIO:
    """stdin's bytes (``-``); an OSError when there is no stdin to read: started with it closed
    (``naipes validate - <&-``), Python sets ``sys.stdin`` None (it was an AttributeError's
    traceback, exit 3, or exit 1 for audit)."""
    if sys.stdin is None:
        raise OSError(errno.EBADF, "stdin is closed")
    return sys.stdin.buffer


def _gzipped(start: bytes) -> bool:
    """Whether a file or stdin that starts with ``start`` (a byte at least, unless empty) is read
    gunzipped (``naipes validate``, ``legal``, ``audit``), as ``zcat`` would give it: its first byte
    is gzip's (``codings.GZIP_MAGIC``, 1f 8b). No JSON text starts with it (a control character,
    not white space); a file that is not gzip after it is refused as not gzip (MALFORMED_JSON), as
    it would have been as JSON."""
    from service.codings import GZIP_MAGIC

    return start[:1] == GZIP_MAGIC[:1]


def _read_json(path: str) -> Any:
    """A file's JSON, read as REST reads a body (``codec.loads``: MALFORMED_JSON naming the file),
    up to the size REST reads (a larger file is PAYLOAD_TOO_LARGE, as a body is: it was read
    whole, however large, and /dev/zero until memory ran out); gzip'd (``_gzipped``), read decoded,
    the limit the decoded JSON's and the file's as it is."""
    from service.codec import loads
    from service.codings import decoded
    from service.errors import MAX_REQUEST_BYTES, ServiceError

    try:
        if path == "-":
            text = _stdin().read(MAX_REQUEST_BYTES + 1)
        else:
            with open(path, "rb") as file:
                text = file.read(MAX_REQUEST_BYTES + 1)
    except OSError as exc:  # a file that cannot be read is invalid input, as MALFORMED_JSON is
        print(f"naipes: cannot read {path}: {exc.strerror}", file=sys.stderr)
        raise SystemExit(EXIT_INVALID) from None
    if len(text) > MAX_REQUEST_BYTES:
        raise ServiceError("PAYLOAD_TOO_LARGE", f"{path} is larger than {MAX_REQUEST_BYTES} bytes")
    if _gzipped(text):
        text = decoded(text, "gzip", MAX_REQUEST_BYTES, f"{path} (gzip)", "MALFORMED_JSON")
    return loads(text, path)  # (bytes: text that is not UTF-8 is MALFORMED_JSON, as a body's is)


def _record(path: str) -> Any:
    """A hand record, or the ``record`` of an example file ``{"record": ..., "expect": ...}``."""
    from engine.errors import shown
    from service.codec import json_kind
    from service.errors import ServiceError

    data = _read_json(path)
    if isinstance(data, dict) and "record" in data and "game" not in data:
        if not isinstance(data["record"], dict):  # (it was named the body, an object)
            raise ServiceError("INVALID_FIELD", f"record must be a JSON object, not {json_kind(data['record'])}", "record")
        other = next((key for key in data if key not in SAMPLE_KEYS), None)
        if other is not None:  # (rules or omitEvents beside the record were ignored, silently)
            raise ServiceError("INVALID_FIELD", f"{other}: unknown field {shown(other)} of a sample (record and expect: "
                               "a record's own fields go inside it)", other)
        return data["record"]
    return data


# The fields of a sample file (records/examples/README.md): the record, and the figures it must
# give, which validate reads past (tests/test_examples.py checks them).
SAMPLE_KEYS = ("record", "expect")


class OutputError(Exception):
    """stdout refused the answer (a full disk, an I/O error: ``_writing``); ``main`` says so on
    stderr, exit 3. (A broken pipe, its reader gone, is not one: ``main`` ends quietly.)"""


@contextmanager
def _writing() -> Iterator[None]:
    """A write to stdout: its OSError, but a broken pipe, is an ``OutputError`` (it was a
    traceback, exit 1, a violation's code), as is a stdout closed from the start (an
    AttributeError's traceback). ``naipes serve``, which writes none, runs without one."""
    if sys.stdout is None:  # started with stdout closed (>&-): print() would drop the answer
        raise OutputError("it is closed")
    try:
        yield
    except BrokenPipeError:
        raise
    except OSError as exc:
        raise OutputError(exc.strerror or str(exc)) from None


def _answer(call: Callable[[], tuple[Any, int]]) -> int:
    """Run a handler; print its answer as REST would (a message, or its JSON as REST prints it),
    or the error as problem JSON on stderr."""
    from service.codec import dumps, to_json
    from service.errors import from_exception, problem

    try:
        message, status = call()
    except Exception as exc:
        error = from_exception(exc)
        if error.code == "INTERNAL":
            log.exception("naipes: internal error")
        print(dumps(problem(error)), file=sys.stderr)
        return EXIT_INTERNAL if error.code == "INTERNAL" else EXIT_INVALID
    with _writing():
        print(dumps(message if isinstance(message, dict) else to_json(message)))
    return status


def validate(path: str) -> int:
    from naipes.v1 import naipes_pb2 as pb
    from service import handlers
    from service.codec import as_json, from_json, to_engine

    def call() -> tuple[Any, int]:
        # (the engine's answer as REST prints it, codec.as_json: its keys in the same order, where
        # to_json of the message printed them in the schema's)
        request = pb.ValidateHandRequest(record=from_json(_record(path), pb.HandRecord()))
        result = as_json(handlers.ANSWERS["ValidateHand"](to_engine(request)), pb.ValidateHandResponse)["result"]
        return result, EXIT_VALID if result.get("valid") else EXIT_VIOLATION

    return _answer(call)


# How soon an answer ``naipes audit`` has written reaches its stdout, however few follow it.
AUDIT_FLUSH_SECONDS = 0.2


class _Flusher:
    """Flushes ``out`` (a buffered stdout) from a thread of its own, every AUDIT_FLUSH_SECONDS that
    something has been written to it (``written``), so that the answers of a live feed's lines
    (``tail -f hands.ndjson | naipes audit -``) come soon after their lines however slowly the
    lines come, and an archive's are written a buffer at a time. An error of a flush ends the
    thread: the audit's next write meets it."""

    def __init__(self, out: BinaryIO) -> None:
        self.out, self.written, self._done = out, False, threading.Event()
        threading.Thread(target=self._run, name="naipes-audit-flush", daemon=True).start()

    def _run(self) -> None:
        while not self._done.wait(AUDIT_FLUSH_SECONDS):
            if self.written:
                self.written = False
                try:
                    self.out.flush()
                except (OSError, ValueError):  # (a broken pipe, a full disk; ValueError: closed)
                    return

    def stop(self) -> None:
        self._done.set()


def audit(path: str, omit_events: bool = False) -> int:
    """An archive validated as the REST NDJSON stream validates it (``service.stream``, on a pool
    of one process per CPU this process may use), with no server: each answer line printed as it
    comes, in order, then on stderr how many records were valid, broke a rule or were not well
    formed, as the pool tallies them (``stream.Answers``). The exit code is the worst record's, as
    ``validate``'s (3 for an internal error). ``omit_events``: every result's ``events`` left
    empty (``stream.validate_ndjson``'s), every other field and the counts as without it. A gzip'd
    archive (``_gzipped``: ``archive.ndjson.gz``, several members too) is read gunzipped as
    it is read, as REST reads a gzip'd stream: data that is not gzip, corrupt or cut short is the
    last answer, MALFORMED_JSON naming the file, after those of every line before it."""
    from service import stream

    # Buffered whatever PYTHONUNBUFFERED says (a write a line costs a third of what validating
    # takes), and flushed by a thread when the answers pause (_Flusher).
    with _writing():
        out = open(sys.stdout.fileno(), "wb", closefd=False)  # noqa: SIM115 (flushed below; stdout stays open)
    try:
        # stdin through a reader of its own: the stream reads it on a thread (service.stream's
        # input), and on Ctrl-C the interpreter's exit closed sys.stdin while that thread held its
        # reader's lock, a "Fatal Python error: _enter_buffered_busy" and an abort, not exit 130.
        body = open(_stdin().fileno(), "rb", closefd=False) if path == "-" else open(path, "rb")  # noqa: SIM115 (closed below)
    except OSError as exc:
        print(f"naipes: cannot read {path}: {exc.strerror}", file=sys.stderr)
        return EXIT_INVALID
    peek = getattr(body, "peek", None)  # (a file's and stdin's BufferedReader; at least a byte unless at its end)
    if peek is not None and _gzipped(peek(1)):  # read gunzipped, as REST reads a gzip'd stream
        from service import codings

        decoding = codings.Decoding(body.read, "gzip", codings.READ, code="MALFORMED_JSON", label=f"{path} (gzip)")
        lines = stream.read_lines(decoding, buffer=stream.ARRIVED_BUFFER, skip=codings.SKIP_BYTES)
    else:
        lines = stream.read_lines(body)
    logging.getLogger("naipes.stream").setLevel(logging.WARNING)  # (the pool's start-up line)
    codes: dict[str, int] = {}
    violations = 0

    def count(answers: stream.Answers) -> None:
        nonlocal violations
        violations += answers.violations
        for code, records in answers.codes.items():
            codes[code] = codes.get(code, 0) + records

    start = time.perf_counter()
    flusher = _Flusher(out)
    try:
        for line in stream.validate_ndjson(lines, count, omit_events):
            with _writing():
                out.write(line)
            flusher.written = True
        with _writing():
            out.flush()
    finally:
        flusher.stop()
        stream.shutdown_pool()
        if path != "-":
            body.close()
    elapsed = time.perf_counter() - start
    records = sum(codes.values())
    answered = codes.get("OK", 0)
    print(f"naipes: {records} record{'' if records == 1 else 's'} in {elapsed:.1f} s ({records / elapsed if elapsed else 0:,.0f} a second): {answered - violations} valid, "
          f"{violations} with a violation, {records - answered} not validated (an error entry)", file=sys.stderr)
    if codes.get("INTERNAL"):
        return EXIT_INTERNAL
    if records > answered:
        return EXIT_INVALID
    return EXIT_VIOLATION if violations else EXIT_VALID


def legal(path: str, seat: int | None) -> int:
    from naipes.v1 import naipes_pb2 as pb
    from service import handlers
    from service.codec import as_json, from_json, to_engine

    def call() -> tuple[Any, int]:
        request = pb.LegalActionsRequest(record=from_json(_record(path), pb.HandRecord()), seat=seat)
        answer = as_json(handlers.ANSWERS["LegalActions"](to_engine(request)), pb.LegalActionsResponse)  # (as validate's)
        return answer, EXIT_VALID if answer.get("valid") else EXIT_VIOLATION

    return _answer(call)


# deal's and rules' requests are read from their arguments as REST reads a body (``from_json``): an
# argument that is not UTF-8 (a byte Python decodes as a lone surrogate) is INVALID_FIELD naming it,
# as a body's "\udcff" is; protobuf refused it with a UnicodeEncodeError, an INTERNAL error (exit 3).
def deal(game: str, seats: int, dealer: int, seed: str) -> int:
    from naipes.v1 import naipes_pb2 as pb
    from service import handlers
    from service.codec import from_json

    request = {"game": game, "seats": seats, "dealer": dealer, "seed": seed}
    return _answer(lambda: (handlers.deal(from_json(request, pb.DealRequest())), EXIT_VALID))


def rules(game: str) -> int:
    from naipes.v1 import naipes_pb2 as pb
    from service import handlers
    from service.codec import from_json

    return _answer(lambda: (handlers.describe_rules(from_json({"game": game}, pb.DescribeRulesRequest())), EXIT_VALID))


def integer_argument(text: str) -> int:
    """An integer argument, in ASCII digits as the API reads an integer given as a string
    (``int()`` alone reads '٣' and '４' too), and within an int32 as the fields it fills (seats,
    dealer, seat): protobuf refused a wider one with a ValueError, an INTERNAL error (exit 3)."""
    from service.codec import INT32_RANGE, integer_text_error, out_of_range

    error = integer_text_error(text, "value")
    if error is None:
        value = int(text)
        low, high = INT32_RANGE
        if low <= value <= high:
            return value
        error = out_of_range(value, "value")
    # (argparse names the argument: "argument --seats: expected an integer, not 'four'")
    raise argparse.ArgumentTypeError(error.message.removeprefix("value: "))


def _within(low: int, high: int | None, what: str) -> Callable[[str], int]:
    """An integer argument (``integer_argument``: an int32) from ``low`` to ``high`` (None: no
    bound but the int32's), else a usage error that says what the value must be."""

    def read(text: str) -> int:
        value = integer_argument(text)
        if value < low or (high is not None and value > high):
            raise argparse.ArgumentTypeError(f"{value} is not {what}")
        return value

    return read


# naipes serve's ports are fixed ones (its processes share them, and it waits for them to answer
# before it says it is ready): 0, the system's choice, is refused as a port beyond 65535 is (both
# were gunicorn's traceback); python -m service.grpc_server takes 0 and logs the port it got.
port_argument = _within(1, 65535, "a port (1 to 65535)")
any_port_argument = _within(0, 65535, "a port (0 to 65535; 0: any free port)")
# (0 or fewer workers was served by one, silently)
workers_argument = _within(1, None, "a number of workers (1 or more)")


# The most seconds a setting takes (a year): a socket's timeout and a thread's wait overflow past
# about 9.2e9 s, and NAIPES_STREAM_IDLE_SECONDS=99999999999 was every REST stream's 500
# (socket.settimeout's OverflowError), NAIPES_POOL_IDLE=9223372037 a traceback after every stream.
MAX_SECONDS = 365 * 24 * 3600


def seconds_argument(text: str) -> float:
    """A number of seconds from 0 to ``MAX_SECONDS``, in ASCII digits with an optional decimal
    part (``2``, ``0.5``): ``float()`` alone reads ``nan``, ``inf``, ``-1`` and ``1e3`` too."""
    from engine.errors import shown

    if re.fullmatch(r"[0-9]+(?:\.[0-9]+)?", text) is None or not 0 <= float(text) <= MAX_SECONDS:
        raise argparse.ArgumentTypeError(f"expected a number of seconds (0 or more, at most {MAX_SECONDS}: a year), not {shown(text)}")
    return float(text)


def age_argument(text: str) -> float:
    """``NAIPES_GRPC_CONNECTION_AGE``: seconds as ``seconds_argument`` reads them, 0 (never) or 1 and
    more: a connection asked to move on every few milliseconds refused its calls (grpc-js's
    'Stream refused by server' for three calls in four at 0.001 s)."""
    from engine.errors import shown

    seconds = seconds_argument(text)
    if 0 < seconds < 1:
        raise argparse.ArgumentTypeError(f"expected 0 (never) or a number of seconds from 1, not {shown(text)}")
    return seconds


def flag_argument(text: str) -> bool:
    """An on/off setting's value (``access.setting``: 1 or 0, true or false, any case):
    ``NAIPES_COMPRESS_ANSWERS``'s."""
    from service.access import setting

    try:
        return setting(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def compression_argument(text: str) -> str:
    """``NAIPES_GRPC_COMPRESSION``'s value: ``none``, ``gzip`` or ``deflate`` (any case)."""
    from engine.errors import shown

    value = text.strip().lower()
    if value not in ("none", "gzip", "deflate"):
        raise argparse.ArgumentTypeError(f"expected none, gzip or deflate, not {shown(text)}")
    return value


# The settings of the streaming validator (service/stream.py), of the requests' time to come
# (service/watchdog.py) and of REST's answers (service/rest.py),
# checked as a server starts, each a usage error naming it: the processes read them as they need
# them, and a bad one was each stream's INTERNAL error (NAIPES_STREAMS=two), a worker that could
# not start (NAIPES_BODY_SECONDS=ten), or read as 1 (NAIPES_STREAM_WORKERS=0). ``naipes audit``
# checks the two it reads, its pool's: NAIPES_STREAM_WORKERS, and NAIPES_POOL_IDLE as the audit ends
# (NAIPES_POOL_IDLE=junk was a traceback once every record was answered, exit 1).
POOL_SETTINGS = (("NAIPES_STREAM_WORKERS", _within(1, None, "a number of processes (1 or more)")), ("NAIPES_POOL_IDLE", seconds_argument))
STREAM_SETTINGS = (("NAIPES_STREAMS", _within(1, None, "a number of streams (1 or more)")), ("NAIPES_STREAM_IDLE_SECONDS", seconds_argument),
                   *POOL_SETTINGS)
# How long a request may take to come (service/watchdog.py): REST's bodies, gRPC's requests.
BODY_SETTINGS = (("NAIPES_BODY_SECONDS", seconds_argument),)
REST_SETTINGS = (*BODY_SETTINGS, ("NAIPES_COMPRESS_ANSWERS", flag_argument))
# How long calls under way may go on after a stop signal (naipes serve's servers; 0: they end at
# once), and how long unless it is set.
STOP_SETTINGS = (("NAIPES_STOP_SECONDS", seconds_argument),)
GRPC_STOP_SECONDS, REST_STOP_SECONDS = 2.0, 5.0
# The bound on a call's request, the compression of gRPC's answers, its connections' age and its
# stop (service/grpc_server.py), checked as naipes serve and python -m service.grpc_server start.
GRPC_SETTINGS = (*BODY_SETTINGS, ("NAIPES_GRPC_COMPRESSION", compression_argument), ("NAIPES_GRPC_CONNECTION_AGE", age_argument),
                 *STOP_SETTINGS)


def check_settings(settings: tuple[tuple[str, Callable[[str], object]], ...]) -> None:
    """Each of ``settings`` the environment gives (not empty), read by its check: a bad one is a
    ValueError naming it, which a command makes its usage error (``naipes serve``, ``python -m
    service.grpc_server``) and ``service.rest.create_app`` raises."""
    for name, check in settings:
        text = os.environ.get(name)
        if text:
            try:
                check(text)
            except argparse.ArgumentTypeError as exc:
                raise ValueError(f"{name}: {exc}") from None


# naipes serve's integer arguments: (its argument's dest, the environment variable of its default,
# the default's default, how it is read).
HOST, REST_PORT, GRPC_PORT = "127.0.0.1", 8080, 50051  # where the servers listen unless told (also python -m service.grpc_server's)
SERVE_SETTINGS = (("rest_port", "NAIPES_REST_PORT", REST_PORT, port_argument), ("grpc_port", "NAIPES_GRPC_PORT", GRPC_PORT, port_argument),
                  ("workers", "NAIPES_WORKERS", 2, workers_argument))


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="naipes", description="Naipes: rules-as-a-service for Spanish card games")
    sub = p.add_subparsers(dest="command", required=True)
    s = sub.add_parser("serve", help="serve REST (gunicorn) and gRPC until SIGINT/SIGTERM")
    # (NAIPES_HOST empty is unset, as every variable's empty value is: env_setting)
    s.add_argument("--host", default=os.environ.get("NAIPES_HOST") or HOST, help=f"default: NAIPES_HOST, else {HOST}")
    # (the integers' defaults from the environment are read once the arguments are: SERVE_SETTINGS)
    said = {"workers": "gRPC server processes and gunicorn workers; "}
    for dest, name, default, read in SERVE_SETTINGS:
        s.add_argument(f"--{dest.replace('_', '-')}", type=read, help=f"{said.get(dest, '')}default: {name}, else {default}")
    s.add_argument("--access-log", action="store_true", default=None,
                   help="write one JSON line per call of either transport to stderr (no bodies); default: NAIPES_ACCESS_LOG=1, else off")
    s.add_argument("--pin-cpus", action="store_true", default=None,
                   help="run each gRPC process and REST worker on one CPU of those the server may use, in turn (Linux; for a "
                        "machine or CPU set of the server's own); default: NAIPES_PIN_CPUS=1, else off")
    v = sub.add_parser("validate", help="replay a hand record; exit 0 valid, 1 violation, 2 invalid input, 3 internal error")
    v.add_argument("file", help="a hand record or an example {\"record\": ...}, gzip'd or not; - for stdin")
    a = sub.add_parser("audit", help="validate an archive of hand records (NDJSON) on every core; exit 0 all valid, "
                                     "1 a violation, 2 a record not well formed, 3 an internal error")
    a.add_argument("file", help="NDJSON: one record, {\"id\": ..., \"record\": ...} or {\"id\": ..., \"batch\": [...]} a line; "
                                "gzip'd or not; - for stdin")
    a.add_argument("--omit-events", action="store_true",
                   help="every result with its events (what happened, action by action) left empty, every other field "
                        "as without it: about a third of the output or less (a line that says omitEvents itself keeps its say)")
    lg = sub.add_parser("legal", help="who acts and every legal action of a hand in progress; exit as validate")
    lg.add_argument("file", help="a hand record or an example {\"record\": ...}, gzip'd or not; - for stdin")
    lg.add_argument("--seat", type=integer_argument, help="the view of this seat only")
    d = sub.add_parser("deal", help="a deterministic deal from a seed")
    d.add_argument("--game", default="rentoy", help="default: rentoy")
    d.add_argument("--seats", type=integer_argument, default=4, help="default: 4")
    d.add_argument("--dealer", type=integer_argument, default=0, help="default: 0")
    d.add_argument("--seed", default=None, help="default: a fresh random seed")
    r = sub.add_parser("rules", help="a game's house-rule options")
    r.add_argument("game")
    return p


def main(argv: list[str] | None = None) -> int:
    if sys.stderr is None:  # started with stderr closed (2>&-): print(file=sys.stderr) would write to stdout
        sys.stderr = open(os.devnull, "w")  # noqa: SIM115 (the process's, to its end)
    try:
        status = _main(argv)
        # (on a pipe stdout is buffered: its broken pipe is met here, not at exit, where Python
        # wrote "Exception ignored ... BrokenPipeError" and exited 120)
        if sys.stdout is not None:
            with _writing():
                sys.stdout.flush()
        return status
    except BrokenPipeError:  # naipes validate x.json | head
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except KeyboardInterrupt:  # Ctrl-C, naipes audit of a large archive say (it was a traceback)
        print("naipes: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except OutputError as exc:  # naipes audit big.ndjson > /full/disk/out
        print(f"naipes: cannot write to stdout: {exc}", file=sys.stderr)
        if sys.stdout is not None:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # (what is left in its buffer, at exit)
        return EXIT_INTERNAL


def _main(argv: list[str] | None) -> int:
    commands = parser()
    args = commands.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    if args.command == "serve":
        for dest, name, default, read in SERVE_SETTINGS:
            if getattr(args, dest) is None:
                setattr(args, dest, env_setting(commands, name, default, read))
        try:
            check_settings((*STREAM_SETTINGS, *REST_SETTINGS, *GRPC_SETTINGS))
        except ValueError as exc:
            commands.error(str(exc))
        access_log = args.access_log or env_flag(commands, "NAIPES_ACCESS_LOG")
        from service import affinity

        pin_cpus = args.pin_cpus or env_flag(commands, affinity.SETTING)
        if pin_cpus and not affinity.supported():
            commands.error(f"--pin-cpus ({affinity.SETTING}): this platform cannot set a process's CPUs (os.sched_setaffinity)")
        return serve(args.host, args.rest_port, args.grpc_port, args.workers, access_log, pin_cpus)
    if args.command == "validate":
        return validate(args.file)
    if args.command == "audit":
        try:  # the settings of the streaming validator's that an audit reads: its pool's
            check_settings(POOL_SETTINGS)
        except ValueError as exc:
            commands.error(str(exc))
        return audit(args.file, args.omit_events)
    if args.command == "legal":
        return legal(args.file, args.seat)
    if args.command == "deal":
        # (--seed '' is given, not left out: REST's INVALID_FIELD seed, not a fresh seed in its stead)
        return deal(args.game, args.seats, args.dealer, secrets.token_hex(8) if args.seed is None else args.seed)
    return rules(args.game)


if __name__ == "__main__":
    sys.exit(main())
