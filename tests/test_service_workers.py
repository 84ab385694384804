"""``naipes serve --workers 2``: two gRPC server processes share the gRPC port (SO_REUSEPORT) and
both take connections; gunicorn runs two workers; both transports answer, the streaming validator
included; SIGTERM stops every process."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import time
from pathlib import Path

import grpc
import requests
from google.protobuf import json_format
from grpc_health.v1 import health_pb2, health_pb2_grpc
from service_support import answerable_before, answered_while_sending, load_example, rentoy_examples, stop
from test_service_cli import NAIPES, _free_port

from engine import api
from naipes.v1 import naipes_pb2 as pb
from naipes.v1 import naipes_pb2_grpc
from service.codec import to_json
from service.stream import READ_AHEAD


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
    return (Path("/proc") / str(pid) / "cmdline").read_bytes().replace(b"\0", b" ").decode()


def sockets(pid: int) -> int:
    count = 0
    for fd in (Path("/proc") / str(pid) / "fd").iterdir():
        try:
            count += os.readlink(fd).startswith("socket:")
        except OSError:
            pass
    return count


def test_two_workers_serve_both_transports() -> None:
    rest_port, grpc_port = _free_port(), _free_port()
    server = subprocess.Popen([NAIPES, "serve", "--host", "127.0.0.1", "--rest-port", str(rest_port), "--grpc-port", str(grpc_port),
                               "--workers", "2"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    channels: list[grpc.Channel] = []
    try:
        deadline = time.monotonic() + 60
        while not (_listening(rest_port) and _listening(grpc_port)):
            assert server.poll() is None and time.monotonic() < deadline, "the servers did not come up"
            time.sleep(0.2)
        time.sleep(1)  # both gRPC processes listening
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
            # gunicorn's reader: the lines are answered while the body is still being sent
            records = [record] * 40
            wanted = answerable_before(records, READ_AHEAD)
            assert wanted >= 30 and answered_while_sending(f"http://127.0.0.1:{rest_port}", records, wanted) >= wanted
    finally:
        for channel in channels:
            channel.close()
        output = stop(server)
    assert server.returncode == 0, output
    with socket.socket() as s:  # every gRPC process is gone: the port is free again
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("127.0.0.1", grpc_port))


def _listening(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.2):
            return True
    except OSError:
        return False
