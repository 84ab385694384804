"""The ceiling of one Python gRPC stream on this machine: a server whose ValidateHands answers
every message with itself, doing no work at all. Loaded with the suite's own stream files, it
shows how many messages per second one stream can move in and out of a Python gRPC process
(bench/NOTES.md, the streaming validator). Not part of ``make bench``.

    python -m bench.echo_stream PORT &
    h2load -t 1 -c 1 -n 1 -d bench/out/full/raw/ValidateHands-rentoy.grpc \\
      -H 'content-type: application/grpc' -H 'te: trailers' http://127.0.0.1:PORT/naipes.v1.NaipesService/ValidateHands
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from concurrent import futures
from typing import Any

import grpc


def echo(messages: Iterator[bytes], _context: Any) -> Iterator[bytes]:
    yield from messages


def main() -> None:
    handlers = grpc.method_handlers_generic_handler("naipes.v1.NaipesService", {"ValidateHands": grpc.stream_stream_rpc_method_handler(echo)})
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=8))
    server.add_generic_rpc_handlers((handlers,))
    server.add_insecure_port(f"127.0.0.1:{sys.argv[1]}")
    server.start()
    server.wait_for_termination()


if __name__ == "__main__":
    main()
