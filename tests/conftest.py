"""Fixtures of the service tests: a real gRPC server and a real HTTP server (werkzeug) on
ephemeral 127.0.0.1 ports, in threads of the test process, shared by the whole session."""

from __future__ import annotations

# isort: off
import service  # noqa: F401  (first: it sets GRPC_EXPERIMENTS, which grpc reads as it is imported, as the servers run)
# isort: on
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
