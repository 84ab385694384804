"""Fixtures of the service tests: a real gRPC server and a real HTTP server (werkzeug) on
ephemeral 127.0.0.1 ports, in threads of the test process, shared by the whole session."""

from __future__ import annotations

# isort: off
import service  # noqa: F401  (first: it sets GRPC_EXPERIMENTS, which grpc reads as it is imported, as the servers run)
# isort: on
import time
from collections.abc import Iterator

import grpc
import pytest
import requests
from service_support import serving

from naipes.v1 import naipes_pb2_grpc
from service.grpc_server import create_server
from service.rest import create_app


@pytest.fixture(scope="session")
def grpc_target() -> Iterator[str]:
    server, port = create_server("127.0.0.1", 0, max_workers=4)
    server.start()
    yield f"127.0.0.1:{port}"
    server.stop(grace=None)


@pytest.fixture(scope="session")
def channel(grpc_target: str) -> Iterator[grpc.Channel]:
    with grpc.insecure_channel(grpc_target) as ch:
        grpc.channel_ready_future(ch).result(timeout=10)
        yield ch


@pytest.fixture(scope="session")
def stub(channel: grpc.Channel) -> naipes_pb2_grpc.NaipesServiceStub:
    return naipes_pb2_grpc.NaipesServiceStub(channel)


@pytest.fixture(scope="session")
def rest_url() -> Iterator[str]:
    with serving(create_app()) as url:
        yield url


@pytest.fixture(scope="session")
def http() -> Iterator[requests.Session]:
    with requests.Session() as session:
        yield session


# How long a test's streams may keep a slot of this process after it has ended: a stream's client
# that has gone without a word is found out within stream.IDLE_SECONDS (its server's next read or
# write times out), and a few seconds more for its thread to end.
SLOT_SECONDS = 40


@pytest.fixture(autouse=True)
def _streams_give_their_slots_back(request: pytest.FixtureRequest) -> Iterator[None]:
    """Fail a test whose streams keep a slot of the in-process servers once they have had time to
    end: the slots are the process's, and a slot held for good was found much later, by a test of
    another file refused TOO_MANY_STREAMS (with two slots, one held is enough)."""
    yield
    from service import stream

    slots = stream.slots()
    if not slots.taken:  # (every test but the few that end as their streams do)
        return
    deadline = time.monotonic() + SLOT_SECONDS
    while slots.taken and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not slots.taken, f"{slots.taken} stream slot(s) of this process still held {SLOT_SECONDS} s after {request.node.nodeid} ended"
