"""What bounds ValidateHand against the health check: one gRPC server process as ``naipes
serve`` runs it (``service.grpc_server.create_server``), with two additions for the measurement
(``bench/run.py``, section "profiles"; not part of the service):

* every ValidateHand handler call is timed in CPU time of the thread that runs it, by game; on
  SIGUSR1 the server prints the calls and CPU seconds since the previous SIGUSR1 as a JSON line;
* ``bench.Stored/ValidateHand`` answers a ValidateHand request with the response the real
  handler gave the first request of its game, kept: the same bytes in and out as ValidateHand,
  without the work.

    python -m bench.bound PORT

``rest_app()`` is the same for REST: the service's Flask app, as ``naipes serve`` runs it under
gunicorn, with its ValidateHand view timed in CPU time of its thread, ``POST /bench/stored``
answering a record with the body the real view gave the first record of its game (the body read
and parsed as the view does, to know the game), and ``GET /bench/cpu`` answering the view's calls
and CPU seconds since the previous ``GET /bench/cpu``.

    gunicorn --worker-class service.rest_worker.ProblemWorker ... 'bench.bound:rest_app()'
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


def _add(game: str, spent: float) -> None:
    with _lock:
        entry = _totals.setdefault(game, [0, 0.0])
        entry[0] += 1
        entry[1] += spent


def _taken() -> dict[str, Any]:
    """The calls and CPU seconds by game since the previous time, and start again."""
    with _lock:
        figures = {game: {"calls": int(calls), "cpu_seconds": cpu} for game, (calls, cpu) in _totals.items()}
        _totals.clear()
    return figures


def _timed(handler: Any) -> Any:
    def call(request: bytes) -> Any:
        start = time.thread_time()
        try:
            return handler(request)
        finally:
            spent = time.thread_time() - start  # (before reading the game: that parse is the measurement's, not the handler's)
            _add(_game(request), spent)
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
    print(json.dumps(_taken()), flush=True)


def rest_app() -> Any:
    """The REST app of ``naipes serve`` with the measurement's additions (module docstring)."""
    from flask import Response, request

    from service import codec, rest

    app = rest.create_app()
    view = app.view_functions["ValidateHand"]

    def timed(**path: str) -> Any:
        start = time.thread_time()
        try:
            return view(**path)
        finally:
            _add("rest", time.thread_time() - start)

    kept: dict[str, bytes] = {}

    def stored() -> Response:
        data = request.get_data(cache=False)
        game = codec.loads(data, "the body")["game"]
        if game not in kept:
            with app.test_request_context("/v1/hands:validate", method="POST", data=data, content_type="application/json"):
                kept[game] = view().get_data()
        return Response(kept[game], status=200, mimetype="application/json")

    app.view_functions["ValidateHand"] = timed
    app.add_url_rule("/bench/stored", "bench-stored", stored, methods=["POST"])
    app.add_url_rule("/bench/cpu", "bench-cpu", lambda: Response(json.dumps(_taken()), mimetype="application/json"), methods=["GET"])
    return app


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
