"""What bounds ValidateHand against the health check: one gRPC server process as ``naipes
serve`` runs it (``service.grpc_server.create_server``), with two additions for the measurement
(``bench/run.py``, section "profiles"; not part of the service):

* every ValidateHand handler call is timed in CPU time of the thread that runs it, by game; on
  SIGUSR1 the server prints the calls and CPU seconds since the previous SIGUSR1 as a JSON line;
* ``bench.Stored/ValidateHand`` answers a ValidateHand request with the response the real
  handler gave the first request of its game, kept: the same bytes in and out as ValidateHand,
  without the work.

    python -m bench.bound PORT
"""

from __future__ import annotations

import json
import signal
import sys
import threading
import time
from typing import Any

import grpc

from naipes.v1 import naipes_pb2 as pb
from service import handlers

STORED_SERVICE = "bench.Stored"

_lock = threading.Lock()
_totals: dict[str, list[float]] = {}  # game -> [calls, CPU seconds]


def _game(request: bytes) -> str:
    return pb.ValidateHandRequest.FromString(request).record.game


def _timed(handler: Any) -> Any:
    def call(request: bytes) -> Any:
        start = time.thread_time()
        try:
            return handler(request)
        finally:
            spent = time.thread_time() - start
            with _lock:
                entry = _totals.setdefault(_game(request), [0, 0.0])
                entry[0] += 1
                entry[1] += spent
    return call


def _stored(handler: Any) -> Any:
    kept: dict[str, bytes] = {}

    def call(request: bytes, _context: Any) -> bytes:
        game = _game(request)
        if game not in kept:
            kept[game] = handler(request)
        return kept[game]
    return call


def _report(*_: Any) -> None:
    with _lock:
        figures = {game: {"calls": int(calls), "cpu_seconds": cpu} for game, (calls, cpu) in _totals.items()}
        _totals.clear()
    print(json.dumps(figures), flush=True)


def main() -> None:
    real = handlers.WIRE_HANDLERS["ValidateHand"]
    handlers.WIRE_HANDLERS["ValidateHand"] = _timed(real)  # read by create_server's rpc_handlers()
    from service.grpc_server import create_server

    server, port = create_server("127.0.0.1", int(sys.argv[1]))
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(STORED_SERVICE, {
        "ValidateHand": grpc.unary_unary_rpc_method_handler(_stored(real))}),))
    signal.signal(signal.SIGUSR1, _report)
    server.start()
    print(json.dumps({"port": port}), flush=True)
    server.wait_for_termination()


if __name__ == "__main__":
    main()
