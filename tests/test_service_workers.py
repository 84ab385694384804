"""``naipes serve --workers 2``: two gRPC server processes share the gRPC port (SO_REUSEPORT) and
both take connections; gunicorn runs two workers; both transports answer, the streaming validator
included; SIGTERM stops every process."""

from __future__ import annotations

import http.client
import json
import os
import re
import select
import signal
import socket
import struct
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
import requests
from google.protobuf import json_format
from grpc_health.v1 import health_pb2, health_pb2_grpc
from service_support import alive, answered_while_sending, load_example, read_until, rentoy_examples, stop
from test_service_cli import NAIPES, _free_port

from engine import api
from naipes.v1 import naipes_pb2 as pb
from naipes.v1 import naipes_pb2_grpc
from service.codec import to_json


def children(pid: int) -> list[int]:
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                out.append(int(entry.name))
    return out


def command(pid: int) -> str:
    """The process's command line; empty once it has gone (a killed worker can be reaped between
    listing a parent's children and reading this)."""
    try:
        return (Path("/proc") / str(pid) / "cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def sockets(pid: int) -> int:
    count = 0
    for fd in (Path("/proc") / str(pid) / "fd").iterdir():
        try:
            count += os.readlink(fd).startswith("socket:")
        except OSError:
            pass
    return count


def serve(workers: int, env: dict[str, str] | None = None, extra: tuple[str, ...] = (), cpus: list[int] | None = None,
          output: list[str] | None = None, session: bool = False) -> tuple[subprocess.Popen[str], int, int]:
    """``naipes serve`` (with ``extra`` arguments) on free loopback ports, once it has written that
    it is ready (every gRPC process listens and every REST worker has loaded the app): (server,
    REST port, gRPC port). ``cpus``: started on those CPUs only (its affinity, as ``taskset``
    sets it); ``output``: gets the lines it wrote up to ``naipes ready``; ``session``: in a session
    (and process group) of its own, as a terminal runs a command, for a Ctrl-C sent to its group."""
    rest_port, grpc_port = _free_port(), _free_port()
    server = subprocess.Popen([NAIPES, "serve", "--host", "127.0.0.1", "--rest-port", str(rest_port), "--grpc-port", str(grpc_port),
                               "--workers", str(workers), *extra], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
                              preexec_fn=(lambda: os.sched_setaffinity(0, cpus)) if cpus else None, start_new_session=session)
    lines = read_until(server, lambda lines: bool(lines) and "naipes ready" in lines[-1])
    if output is not None:
        output.extend(lines)
    return server, rest_port, grpc_port


def test_two_workers_serve_both_transports() -> None:
    server, rest_port, grpc_port = serve(2)
    channels: list[grpc.Channel] = []
    try:
        grpc_children = [p for p in children(server.pid) if "service.grpc_server" in command(p)]
        gunicorn = [p for p in children(server.pid) if "gunicorn" in command(p)]
        assert len(grpc_children) == 2 and len(gunicorn) == 1
        assert len([p for p in children(gunicorn[0]) if "gunicorn" in command(p)]) == 2
        before = {p: sockets(p) for p in grpc_children}
        # Sixteen connections: the kernel spreads them over both gRPC processes.
        record, _ = load_example(rentoy_examples()[0])
        message = json_format.ParseDict(record, pb.HandRecord())
        for _ in range(16):
            channel = grpc.insecure_channel(f"127.0.0.1:{grpc_port}", options=[("grpc.use_local_subchannel_pool", 1)])
            channels.append(channel)
            health = health_pb2_grpc.HealthStub(channel)
            assert health.Check(health_pb2.HealthCheckRequest(), timeout=10).status == health_pb2.HealthCheckResponse.SERVING
            stub = naipes_pb2_grpc.NaipesServiceStub(channel)
            answer = stub.ValidateHand(pb.ValidateHandRequest(record=message), timeout=10)
            assert to_json(answer.result) == api.validate(record)
        assert all(sockets(p) > before[p] for p in grpc_children), (before, {p: sockets(p) for p in grpc_children})
        stub = naipes_pb2_grpc.NaipesServiceStub(channels[0])
        stream = [pb.ValidateHandsRequest(id=str(i), record=message) for i in range(50)]
        assert [a.id for a in stub.ValidateHands(iter(stream), timeout=60)] == [str(i) for i in range(50)]
        with requests.Session() as http:
            for _ in range(8):
                assert http.post(f"http://127.0.0.1:{rest_port}/v1/hands:validate", json=record, timeout=10).json() == api.validate(record)
            lines = "".join(json.dumps(record) + "\n" for _ in range(20))
            answer = http.post(f"http://127.0.0.1:{rest_port}/v1/hands:validateStream", data=lines, timeout=60,
                               headers={"Content-Type": "application/x-ndjson"})
            assert [json.loads(line) for line in answer.text.splitlines()] == [{"result": api.validate(record)}] * 20
            # gunicorn's body is read as it arrives: every line is answered while the body is still being sent
            records = [record] * 40
            assert answered_while_sending(f"http://127.0.0.1:{rest_port}", records, 40) == 40
    finally:
        for channel in channels:
            channel.close()
        output = stop(server)
    assert server.returncode == 0, output
    with socket.socket() as s:  # every gRPC process is gone: the port is free again
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("127.0.0.1", grpc_port))


@pytest.mark.parametrize(("stop_seconds", "how"), [(None, "SIGTERM"), ("8", "SIGTERM"), ("8", "Ctrl-C"), ("30", "twice")])
def test_a_stop_gives_the_calls_under_way_the_stop_seconds(stop_seconds: str | None, how: str) -> None:
    """NAIPES_STOP_SECONDS (the manifest's 20, with its preStop pause): how long the calls under way
    when naipes serve is told to stop may go on. Unset, gRPC's are ended 2 s after SIGTERM
    (UNAVAILABLE), so a stream of 4 s more was cut; set to 8, a gRPC and a REST stream sent over
    4 s after the signal are answered to their end, naipes serve exits 0, and meanwhile both ports
    refuse new connections (REST's stayed open and silent: each a wait, then a reset). A terminal's
    Ctrl-C (SIGINT to the process group) gives the same grace (gunicorn, given it too, ended its
    calls at once); a second stop signal ends the calls under way at once."""
    import threading

    env = {**os.environ, "NAIPES_STOP_SECONDS": stop_seconds} if stop_seconds else None
    server, rest_port, grpc_port = serve(1, env=env, session=True)
    record, _ = load_example(rentoy_examples()[0])
    message = json_format.ParseDict(record, pb.HandRecord())
    outcome: dict[str, Any] = {}
    started = threading.Barrier(3)

    def slowly(item: Callable[[int], Any]) -> Iterator[Any]:
        started.wait()
        for i in range(10):  # (4 s of a stream after the stop)
            time.sleep(0.4)
            yield item(i)

    def over_grpc() -> None:
        with grpc.insecure_channel(f"127.0.0.1:{grpc_port}") as channel:
            answers = naipes_pb2_grpc.NaipesServiceStub(channel).ValidateHands(
                slowly(lambda i: pb.ValidateHandsRequest(id=str(i), record=message)), timeout=60)
            ids = []
            try:
                ids.extend(answer.id for answer in answers)
                outcome["grpc"] = ids
            except grpc.RpcError as exc:
                outcome["grpc"] = (exc.code(), ids)

    def over_rest() -> None:
        try:
            answer = requests.post(f"http://127.0.0.1:{rest_port}/v1/hands:validateStream",
                                   data=slowly(lambda i: (json.dumps(record) + "\n").encode()),
                                   headers={"Content-Type": "application/x-ndjson"}, timeout=60)
            outcome["rest"] = len(answer.text.splitlines())
        except requests.RequestException as exc:
            outcome["rest"] = exc

    threads = [threading.Thread(target=over_grpc), threading.Thread(target=over_rest)]
    refused = []
    try:
        for thread in threads:
            thread.start()
        started.wait()
        time.sleep(0.2)  # (the streams open: the stop comes with their first records in flight)
        if how == "Ctrl-C":
            os.killpg(server.pid, signal.SIGINT)
        else:
            server.send_signal(signal.SIGTERM)
        time.sleep(1)
        for port in (rest_port, grpc_port):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=5).close()
            except ConnectionRefusedError:
                refused.append(port)
        if how == "twice":
            server.send_signal(signal.SIGTERM)
            output, _ = server.communicate(timeout=10)  # (not the 30 s of the grace)
        for thread in threads:
            thread.join(60)
        if how != "twice":
            output, _ = server.communicate(timeout=60)
    finally:
        if server.poll() is None:
            stop(server)
    assert refused == [rest_port, grpc_port], output
    if how == "twice":
        assert "naipes: stopped again: the calls under way are ended" in output, output
        assert outcome["grpc"][0] == grpc.StatusCode.UNAVAILABLE and isinstance(outcome["rest"], requests.RequestException), outcome
    elif stop_seconds:
        assert outcome == {"grpc": [str(i) for i in range(10)], "rest": 10}, outcome
        assert server.returncode == 0, output
    else:
        code, ids = outcome["grpc"]
        assert code == grpc.StatusCode.UNAVAILABLE and len(ids) < 10, outcome


def served_dir(pid: int, name: str = "PROMETHEUS_MULTIPROC_DIR") -> Path:
    """A directory that ``naipes serve`` (process ``pid``) gives the processes it starts in the
    environment variable ``name``: its metrics' (PROMETHEUS_MULTIPROC_DIR), the one where they say
    that they serve (NAIPES_READY_DIR, service/ready.py), both in its own (service/run_dir.py);
    read from a child's environment."""
    environ = (Path("/proc") / str(children(pid)[0]) / "environ").read_bytes().split(b"\0")
    return Path(next(item.split(b"=", 1)[1].decode() for item in environ if item.startswith(name.encode() + b"=")))


@pytest.mark.parametrize(("workers", "killed", "name"), [(2, "service.grpc_server", r"gRPC worker [12]"), (1, "gunicorn", "REST")],
                         ids=["a gRPC process", "gunicorn"])
def test_a_server_that_exits_stops_naipes_serve(workers: int, killed: str, name: str) -> None:
    """A process ``naipes serve`` started that exits (killed here) stops the others, with SIGTERM
    as a stop does, and ``naipes serve`` itself, exit 1, its log naming the process and how it
    ended; nothing it started is left running. (gunicorn's workers are gunicorn's: it replaces
    one that exits.)"""
    server, _, _ = serve(workers)
    try:
        started = {pid: command(pid) for pid in children(server.pid)}
        (victim,) = [pid for pid in sorted(started) if killed in started[pid]][-1:]
        workers_of = {pid: children(pid) for pid in started if "gunicorn" in started[pid]}
        os.kill(victim, signal.SIGKILL)
        server.wait(timeout=30)
    finally:
        output = stop(server) if server.returncode is None else server.communicate()[0]
    assert server.returncode == 1, output
    assert re.search(rf"^naipes: the {name} server exited \(status -9\); stopping$", output, re.M), output
    assert output.rstrip().endswith("naipes stopped"), output
    for pid in started:  # the other gRPC processes stopped as SIGTERM stops them, not killed
        assert pid == victim or "service.grpc_server" not in started[pid] or f"gRPC stopped: process {pid} answered" in output, output
    everything = [*started, *(worker for pids in workers_of.values() for worker in pids)]
    deadline = time.monotonic() + 5  # (a killed gunicorn's workers exit once they see their parent gone, within a second)
    while (left := [pid for pid in everything if alive(pid)]) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not left, [command(pid) for pid in left]


def test_ready_counts_the_processes_that_serve_and_a_replaced_worker_once() -> None:
    """service/ready.py: at ``naipes ready`` each gRPC process and each gunicorn worker has said
    that it serves, under its own process ID; a worker that dies stops counting (gunicorn's
    ``child_exit``) and the one gunicorn starts in its place counts once it has loaded the app."""
    server, rest_port, _ = serve(2)
    try:
        directory = served_dir(server.pid, "NAIPES_READY_DIR")
        grpc_processes = {p for p in children(server.pid) if "service.grpc_server" in command(p)}
        gunicorn = next(p for p in children(server.pid) if "gunicorn" in command(p))
        workers = {p for p in children(gunicorn) if "gunicorn" in command(p)}
        expected = {f"grpc-{p}" for p in grpc_processes} | {f"rest-{p}" for p in workers}
        assert {entry.name for entry in directory.iterdir()} == expected
        dead = min(workers)
        os.kill(dead, signal.SIGKILL)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            now = {p for p in children(gunicorn) if "gunicorn" in command(p)}
            names = {entry.name for entry in directory.iterdir()}
            if len(now) == 2 and dead not in now and names == {f"grpc-{p}" for p in grpc_processes} | {f"rest-{p}" for p in now}:
                break
            time.sleep(0.1)
        else:
            raise AssertionError(f"the replaced worker's files: {names}, workers {now}")
        assert requests.get(f"http://127.0.0.1:{rest_port}/healthz", timeout=10).json() == {"status": "SERVING"}
    finally:
        output = stop(server)
    assert server.returncode == 0, output
    assert not directory.exists()  # (removed at the stop, as the metrics' directory is)


def _listening(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.2):
            return True
    except OSError:
        return False


def test_late_bodies_do_not_hold_the_rest_threads() -> None:
    """A body that does not come within NAIPES_BODY_SECONDS is REQUEST_TIMEOUT (408, the
    connection closed), so that four clients sending headers and nothing more no longer hold a
    gunicorn worker's four threads and its health check; a stream whose body pauses longer than
    NAIPES_STREAM_IDLE_SECONDS ends with a REQUEST_TIMEOUT entry after the answers of its lines."""
    server, rest_port, _ = serve(1, {**os.environ, "NAIPES_BODY_SECONDS": "1", "NAIPES_STREAM_IDLE_SECONDS": "2"})
    stalled: list[socket.socket] = []
    try:
        for _ in range(4):
            client = socket.create_connection(("127.0.0.1", rest_port), timeout=20)
            client.sendall(b"POST /v1/hands:validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                           b"Origin: http://localhost:3000\r\nContent-Length: 1000\r\n\r\n{")
            stalled.append(client)
        start = time.monotonic()
        assert requests.get(f"http://127.0.0.1:{rest_port}/healthz", timeout=15).json() == {"status": "SERVING"}
        assert time.monotonic() - start < 8
        for client in stalled:
            answer = b""
            while chunk := client.recv(65536):  # the server closes the connection after its answer
                answer += chunk
            head, _, body = answer.partition(b"\r\n\r\n")
            assert head.startswith(b"HTTP/1.1 408"), head
            assert b"\r\nConnection: close\r\n" in head, head  # (as the server then closes)
            assert b"\r\nAccess-Control-Allow-Origin: *\r\n" in head, head  # (a browser's page reads it: docs/api.md)
            assert json.loads(body)["code"] == "REQUEST_TIMEOUT"
        record, _ = load_example(rentoy_examples()[0])
        with socket.create_connection(("127.0.0.1", rest_port), timeout=20) as client:
            client.sendall(b"POST /v1/hands:validateStream HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-ndjson\r\n"
                           b"Transfer-Encoding: chunked\r\n\r\n")
            lines = (json.dumps(record) + "\n") * 2  # (each answered once it has come: tests/test_service_stream_lines.py)
            client.sendall(f"{len(lines.encode()):x}\r\n{lines}\r\n".encode())
            answer = b""
            while b"REQUEST_TIMEOUT" not in answer and (chunk := client.recv(65536)):
                answer += chunk
        entries = [json.loads(line) for line in answer.split(b"\r\n") if line.startswith(b"{")]
        assert entries[:2] == [{"result": api.validate(record)}] * 2
        assert entries[2]["error"]["code"] == "REQUEST_TIMEOUT" and len(entries) == 3
        # A body that comes too slowly is answered 408 while its client is still sending it: the
        # client sends the rest, slowly, then reads the answer, and gets it, not a broken pipe (the
        # server shut the socket's reading side to end its wait, then closed it at once, and a
        # client sending on was reset; now it reads on and discards what comes).
        with socket.create_connection(("127.0.0.1", rest_port), timeout=20) as client:
            client.sendall(b"POST /v1/hands:validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                           b"Content-Length: 301000\r\n\r\n" + b" " * 1000)
            assert select.select([client], [], [], 10)[0]  # (the answer has come, unread)
            for _ in range(3):
                client.sendall(b" " * 100000)
                time.sleep(0.2)
            head, body, _ = _answer_then_closed(client)
        assert head.startswith(b"HTTP/1.1 408"), head
        assert json.loads(body)["code"] == "REQUEST_TIMEOUT"
        assert requests.get(f"http://127.0.0.1:{rest_port}/healthz", timeout=5).json() == {"status": "SERVING"}
    finally:
        for client in stalled:
            client.close()
        output = stop(server)
    assert server.returncode == 0, output


def test_grpc_calls_that_never_send_their_request_are_ended_and_the_process_serves_again() -> None:
    """NAIPES_BODY_SECONDS bounds a gRPC call's request as it bounds a REST body: ValidateHand
    calls opened on one connection without a deadline, their request never sent, hold every place
    of a one-process server (MAX_CALLS: the health check refused RESOURCE_EXHAUSTED, as the calls
    beyond) for 4 s, not for as long as their client keeps them: each is cancelled
    DEADLINE_EXCEEDED and why, counted REQUEST_TIMEOUT, a warning logged for each, and the server
    answers again."""
    import threading
    from collections import Counter

    from service_support import metrics_say, never_sent

    from service.grpc_server import MAX_CALLS
    from service.handlers import SERVICE

    server, rest_port, grpc_port = serve(1, {**os.environ, "NAIPES_BODY_SECONDS": "4"})  # (every call opened within it: 2 s was short on a busy machine)
    release = threading.Event()

    try:
        with grpc.insecure_channel(f"127.0.0.1:{grpc_port}") as channel:
            opened = channel.stream_unary(f"/{SERVICE.full_name}/ValidateHand", request_serializer=None, response_deserializer=None)
            calls = [opened.future(never_sent(release)) for _ in range(MAX_CALLS + 8)]
            health = health_pb2_grpc.HealthStub(channel)
            deadline = time.monotonic() + 10
            while True:  # (until the calls have reached the server: they open one by one)
                try:
                    health.Check(health_pb2.HealthCheckRequest(), timeout=5)
                except grpc.RpcError as exc:
                    assert exc.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
                    break
                assert time.monotonic() < deadline, "the calls never held the process's places"
                time.sleep(0.02)
            ended = Counter()
            for call in calls:
                with pytest.raises(grpc.RpcError) as outcome:
                    call.result(timeout=20)
                ended[outcome.value.code(), outcome.value.details()] += 1
            held = ended.pop((grpc.StatusCode.DEADLINE_EXCEEDED, "the request did not come within 4 seconds: the call ended"), 0)
            assert held >= MAX_CALLS and {code for code, _ in ended} <= {grpc.StatusCode.RESOURCE_EXHAUSTED}, ended
            assert health.Check(health_pb2.HealthCheckRequest(), timeout=5).status == health_pb2.HealthCheckResponse.SERVING
            record, _ = load_example(rentoy_examples()[0])
            request = pb.ValidateHandRequest(record=json_format.ParseDict(record, pb.HandRecord()))
            assert to_json(naipes_pb2_grpc.NaipesServiceStub(channel).ValidateHand(request, timeout=5).result) == api.validate(record)
        metrics_say(rest_port, f'naipes_requests_total{{code="REQUEST_TIMEOUT",method="ValidateHand",transport="grpc"}} {held}.0')
    finally:
        release.set()
        output = stop(server)
    assert server.returncode == 0, output
    warnings = re.findall(r"WARNING ValidateHand from ipv4:127\.0\.0\.1:\d+: the request did not come within 4 seconds; the call is ended",
                          output)
    assert len(warnings) == held, output
    assert "Traceback" not in output and "ERROR" not in output, output


def test_zero_seconds_lift_the_bounds_on_bodies() -> None:
    """NAIPES_BODY_SECONDS=0 and NAIPES_STREAM_IDLE_SECONDS=0 (seconds from 0, README) bound
    nothing, as NAIPES_POOL_IDLE=0 keeps the pool: a body that pauses is read to its end and
    answered. (0 was a watchdog that ended any body not come within its first second, 408; and a
    stream's socket timeout of 0, non-blocking, which ended every stream whose next line had not
    come yet with a MALFORMED_JSON entry, "a chunk of it is not HTTP's".)"""
    server, rest_port, _ = serve(1, {**os.environ, "NAIPES_BODY_SECONDS": "0", "NAIPES_STREAM_IDLE_SECONDS": "0"})
    try:
        record, _ = load_example(rentoy_examples()[0])
        body = json.dumps(record).encode()
        with socket.create_connection(("127.0.0.1", rest_port), timeout=20) as client:
            client.sendall(b"POST /v1/hands:validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nConnection: close\r\n"
                           + f"Content-Length: {len(body)}\r\n\r\n".encode() + body[:10])
            time.sleep(2.5)
            client.sendall(body[10:])
            answer = b""
            while chunk := client.recv(65536):
                answer += chunk
        head, _, text = answer.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 200"), answer
        assert json.loads(text) == api.validate(record)
        line = (json.dumps(record) + "\n").encode()
        with socket.create_connection(("127.0.0.1", rest_port), timeout=20) as client:
            client.sendall(b"POST /v1/hands:validateStream HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-ndjson\r\n"
                           b"Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n")
            for _ in range(2):
                time.sleep(1.5)
                client.sendall(f"{len(line):x}\r\n".encode() + line + b"\r\n")
            client.sendall(b"0\r\n\r\n")
            answer = b""
            while chunk := client.recv(65536):
                answer += chunk
        entries = [json.loads(part) for part in answer.split(b"\r\n") if part.startswith(b"{")]
        assert entries == [{"result": api.validate(record)}] * 2, entries
    finally:
        output = stop(server)
    assert server.returncode == 0, output


def _answer_then_closed(client: socket.socket) -> tuple[bytes, bytes, float]:
    """The answer's head and body, once the server has closed the connection after it, and the
    seconds until then."""
    start, answer = time.monotonic(), b""
    while chunk := client.recv(65536):
        answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    return head, body, time.monotonic() - start


def test_answers_without_the_body_close_at_once() -> None:
    """With every stream slot taken, each further stream is refused at once (TOO_MANY_STREAMS,
    429) with ``Connection: close`` and its connection closed, however much of its body is still
    to come; twelve such clients, keeping their bodies unfinished, hold no thread: the health check
    answers at once. So are a body too large (413) and a wrong route (404) answered before their
    bodies have come. Each carries the CORS headers of its Origin, as every answer does."""
    server, rest_port, _ = serve(1, {**os.environ, "NAIPES_STREAMS": "1"})
    record, _ = load_example(rentoy_examples()[0])
    line = (json.dumps(record) + "\n").encode()
    chunk = b"%x\r\n%s\r\n" % (len(line), line)
    origin = b"Origin: http://localhost:3000\r\n"
    stream = b"POST /v1/hands:validateStream HTTP/1.1\r\nHost: x\r\n" + origin + b"Content-Type: application/x-ndjson\r\nTransfer-Encoding: chunked\r\n\r\n"
    clients: list[socket.socket] = []
    try:
        held = socket.create_connection(("127.0.0.1", rest_port), timeout=10)
        clients.append(held)
        held.sendall(stream + chunk)
        answer = b""
        while b"result" not in answer and (data := held.recv(65536)):  # (the slot is taken: its first line is answered)
            answer += data
        assert b"result" in answer, answer
        for _ in range(12):
            client = socket.create_connection(("127.0.0.1", rest_port), timeout=10)
            clients.append(client)
            client.sendall(stream + chunk)  # (and the body's end never comes)
            head, body, seconds = _answer_then_closed(client)
            assert head.startswith(b"HTTP/1.1 429"), head
            assert b"\r\nConnection: close\r\n" in head and b"\r\nAccess-Control-Allow-Origin: *\r\n" in head, head
            assert json.loads(body)["code"] == "TOO_MANY_STREAMS"
            assert seconds < 1, seconds
        start = time.monotonic()
        assert requests.get(f"http://127.0.0.1:{rest_port}/healthz", timeout=5).json() == {"status": "SERVING"}
        assert time.monotonic() - start < 0.5
        for request, status, code in [
            (b"POST /v1/hands:validate HTTP/1.1\r\nHost: x\r\n" + origin + b"Content-Type: application/json\r\nContent-Length: 2000000\r\n\r\n{",
             b"413", "PAYLOAD_TOO_LARGE"),
            (b"POST /v1/nowhere HTTP/1.1\r\nHost: x\r\n" + origin + b"Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{",
             b"404", "NOT_FOUND"),
        ]:
            client = socket.create_connection(("127.0.0.1", rest_port), timeout=10)
            clients.append(client)
            client.sendall(request)
            head, body, seconds = _answer_then_closed(client)
            assert head.startswith(b"HTTP/1.1 " + status), head
            assert b"\r\nConnection: close\r\n" in head and b"\r\nAccess-Control-Allow-Origin: *\r\n" in head, head
            assert json.loads(body)["code"] == code
            assert seconds < 1, seconds
        held.sendall(b"0\r\n\r\n")  # the held stream ends, answered as ever
        answer = b""
        while not answer.endswith(b"0\r\n\r\n") and (data := held.recv(65536)):
            answer += data
        assert answer.endswith(b"0\r\n\r\n"), answer  # (the answer's last chunk)
    finally:
        for client in clients:
            client.close()
        output = stop(server)
    assert server.returncode == 0, output


def test_a_body_answered_unread_gets_its_answer_not_a_reset() -> None:
    """A client that sends its whole body before it reads the answer, as http.client, urllib and
    requests do, gets the answer the server gave before reading the body (413 for a Content-Length
    over the limit, 404 for a wrong route), not "connection reset by peer", 20 times in a row: the
    server shuts its sending side after the answer and reads and discards the rest of the body
    until the client closes (a lingering close). Closed with the body unread, the socket made the
    kernel reset the connection, and the reset discarded the answer the client had not read yet.
    The body, 16 MiB, is far beyond what the sockets' buffers hold on loopback (a few MiB), so that
    the client is still sending when the server has answered: without the lingering close every
    attempt failed (the client's send with EPIPE or ECONNRESET, or its read with ECONNRESET). A
    keep-alive connection answered as ever stays open for its next request."""
    server, rest_port, _ = serve(1)
    size = 16 << 20
    body = b" " * size
    try:
        for path, status, code in [("/v1/hands:validate", b"413", "PAYLOAD_TOO_LARGE")] * 20 + [("/v1/nowhere", b"404", "NOT_FOUND")] * 3:
            with socket.create_connection(("127.0.0.1", rest_port), timeout=30) as client:
                client.sendall(f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                               f"Content-Length: {size}\r\n\r\n".encode() + body)
                head, answer, _ = _answer_then_closed(client)
            assert head.startswith(b"HTTP/1.1 " + status), head
            assert b"\r\nConnection: close\r\n" in head, head
            assert json.loads(answer)["code"] == code
        record, _ = load_example(rentoy_examples()[0])
        keep_alive = http.client.HTTPConnection("127.0.0.1", rest_port, timeout=10)
        try:
            keep_alive.request("GET", "/healthz")
            assert keep_alive.getresponse().read() == b'{"status":"SERVING"}\n'
            sock = keep_alive.sock
            keep_alive.request("POST", "/v1/hands:validate", body=json.dumps(record), headers={"Content-Type": "application/json"})
            assert json.loads(keep_alive.getresponse().read()) == api.validate(record)
            assert keep_alive.sock is sock and sock is not None  # (the same connection)
        finally:
            keep_alive.close()
    finally:
        output = stop(server)
    assert server.returncode == 0, output


def test_clients_that_keep_a_closed_connection_open_do_not_stall_the_others() -> None:
    """A connection the server closes after its answer (the client asked ``Connection: close``,
    or gunicorn answered a request it could not read, 431 here) is closed lingering without waiting
    (``ProblemWorker._linger``): a client that reads its answer and keeps its side open stalls no
    one. gunicorn's own graceful close waited on the worker's one event-loop thread for up to two
    seconds for that client to close, and every other connection of the worker, health checks
    included, waited with it: three such clients in a row held a health check for about 6 s."""
    server, rest_port, _ = serve(1)
    held: list[socket.socket] = []
    try:
        requests_ = [b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
                     b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 9000 + b"\r\n\r\n"]
        for raw in requests_ * 2:
            client = socket.create_connection(("127.0.0.1", rest_port), timeout=10)
            held.append(client)  # read the answer, and keep the connection open
            client.sendall(raw)
            head = client.recv(65536)
            assert head.startswith((b"HTTP/1.1 200", b"HTTP/1.1 431")), head
        start = time.monotonic()
        answer = requests.get(f"http://127.0.0.1:{rest_port}/healthz", timeout=30)
        waited = time.monotonic() - start
        assert answer.status_code == 200
        assert waited < 1.0, f"the health check waited {waited:.1f} s for the clients that kept their connections open"
    finally:
        for client in held:
            client.close()
        output = stop(server)
    assert server.returncode == 0, output


def _the_worker(server: subprocess.Popen[str]) -> int:
    """The one gunicorn worker of a server ``serve(1, ...)`` started."""
    (master,) = [p for p in children(server.pid) if "gunicorn" in command(p)]
    (worker,) = children(master)
    return worker


def _health_check_then_closed(rest_port: int) -> None:
    """A health check on a connection of its own, ``Connection: close``: answered, then closed."""
    with socket.create_connection(("127.0.0.1", rest_port), timeout=5) as client:
        client.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        head, body, _ = _answer_then_closed(client)
    assert head.startswith(b"HTTP/1.1 200 ") and body == b'{"status":"SERVING"}\n', head


def _sockets_once_settled(worker: int, expected: int) -> int:
    """The worker's sockets once they are ``expected``, or after 2 s: a connection is closed a
    moment after its client has seen its end."""
    deadline = time.monotonic() + 2
    while sockets(worker) != expected and time.monotonic() < deadline:
        time.sleep(0.05)
    return sockets(worker)


def test_a_connection_closed_after_its_answer_is_let_go_once_its_client_closes() -> None:
    """A connection closed after its answer (the client asked ``Connection: close``) lingers until
    its client closes, and is then closed and no longer counted among gunicorn's
    ``--worker-connections`` (8 here): forty such connections one after another are all answered,
    which a worker still counting the closed ones (it accepts no ninth) or keeping them until their
    linger's end (``LINGER_SECONDS``) would not do, and the worker is left with the sockets it had."""
    server, rest_port, _ = serve(1, {**os.environ, "GUNICORN_CMD_ARGS": "--worker-connections 8"})
    try:
        worker = _the_worker(server)
        before = sockets(worker)
        for _ in range(40):
            _health_check_then_closed(rest_port)
        assert _sockets_once_settled(worker, before) == before
    finally:
        output = stop(server)
    assert server.returncode == 0, output


def test_a_connection_its_client_resets_before_its_answer_is_let_go() -> None:
    """A client that resets its connection (a close with SO_LINGER 0, as a client that gives up
    does) right after its request: the worker finds it gone, reading the request or writing its
    answer, and its close (``ProblemWorker._linger``) then finds the socket reset already, before
    the event loop reads it. The connection is closed there, not left to the garbage collector
    (Python's ResourceWarning "unclosed", shown here), and no longer counted among gunicorn's
    ``--worker-connections`` (8 here): after forty, a health check is answered and the worker has
    the sockets it had; a worker still counting them would accept no ninth connection."""
    server, rest_port, _ = serve(1, {**os.environ, "GUNICORN_CMD_ARGS": "--worker-connections 8", "PYTHONWARNINGS": "always::ResourceWarning"})
    try:
        worker = _the_worker(server)
        before = sockets(worker)
        for _ in range(40):
            client = socket.create_connection(("127.0.0.1", rest_port), timeout=5)
            client.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            client.close()  # (a reset, not a FIN)
        _health_check_then_closed(rest_port)
        assert _sockets_once_settled(worker, before) == before
    finally:
        output = stop(server)
    assert server.returncode == 0, output
    assert "unclosed" not in output, output


def test_a_late_body_still_being_sent_gets_its_answer_not_a_reset() -> None:
    """A client whose body is late (REQUEST_TIMEOUT: NAIPES_BODY_SECONDS, 1 here) and that goes on
    sending it, reading only at its end as http.client does, gets the 408, not "connection reset
    by peer": the server, which shut the socket's reading side to end the wait on the body, reads
    and discards what still comes for as long as it keeps coming (``LINGER_IDLE_SECONDS`` of
    silence end it); closed at its first read that found nothing, the socket answered the client's
    next bytes with a reset, which discarded the answer it had not read."""
    server, rest_port, _ = serve(1, {**os.environ, "NAIPES_BODY_SECONDS": "1"})
    try:
        with socket.create_connection(("127.0.0.1", rest_port), timeout=20) as client:
            client.sendall(b"POST /v1/hands:validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{")
            for _ in range(20):  # four seconds of a byte every 0.2 s: late from the first second on
                time.sleep(0.2)
                client.sendall(b" ")
            head, body, _ = _answer_then_closed(client)
        assert head.startswith(b"HTTP/1.1 408 "), head
        assert json.loads(body)["code"] == "REQUEST_TIMEOUT"
    finally:
        output = stop(server)
    assert server.returncode == 0, output
