"""Two small servers for the load generators of the benchmark suite (bench/run.py), in threads on
ephemeral 127.0.0.1 ports, that answer some requests with an error status or not at all and count
what they sent: HTTP/2 with prior knowledge for h2load, HTTP/1.1 for wrk. They made the outputs in
tests/bench_outputs/ (capture.py) and serve the short real runs of tests/test_bench_run.py."""

from __future__ import annotations

import collections
import socket
import struct
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from service_support import Listener

OUTPUTS = Path(__file__).resolve().parent / "bench_outputs"


class Answers:
    """What a server sent: the count of each status (0 for a reset stream or a closed
    connection), and the status of the n-th request by ``mode``: ``ok`` answers every request 200;
    ``mixed`` answers every 5th 500, every 7th 302 (HTTP/1.1) and resets every 7th stream (HTTP/2)
    or closes every 11th connection unanswered (HTTP/1.1)."""

    def __init__(self, mode: str, delay: float) -> None:
        self.mode, self.delay = mode, delay
        self.sent: collections.Counter[int] = collections.Counter()
        self._lock = threading.Lock()
        self._n = 0

    def next(self, http2: bool) -> int:
        with self._lock:
            self._n += 1
            n = self._n
        time.sleep(self.delay)
        status = 200
        if self.mode == "mixed":
            if http2 and n % 7 == 0 or not http2 and n % 11 == 0:
                status = 0
            elif n % 5 == 0:
                status = 500
            elif not http2 and n % 7 == 0:
                status = 302
        return status

    def record(self, status: int) -> None:
        with self._lock:
            self.sent[status] += 1


def _frame(kind: int, flags: int, stream: int, payload: bytes = b"") -> bytes:
    return struct.pack(">I", len(payload))[1:] + bytes([kind, flags]) + struct.pack(">I", stream) + payload


HPACK_STATUS = {200: b"\x88", 500: b"\x8e"}  # :status from HPACK's static table


def _h2c_connection(conn: socket.socket, answers: Answers) -> None:
    """Just enough HTTP/2 for h2load: settings and pings acknowledged, the connection's window
    refilled, and each request whose stream the client ended answered with a bare :status (or a
    RST_STREAM, INTERNAL_ERROR)."""
    buf = b""

    def read(n: int) -> bool:
        nonlocal buf
        while len(buf) < n:
            chunk = conn.recv(65536)
            if not chunk:
                return False
            buf += chunk
        return True

    with conn:
        try:
            if not read(24):
                return
            buf = buf[24:]
            conn.sendall(_frame(4, 0, 0))
            while read(9) and read(9 + int.from_bytes(buf[:3], "big")):
                length, kind, flags = int.from_bytes(buf[:3], "big"), buf[3], buf[4]
                stream = int.from_bytes(buf[5:9], "big") & 0x7FFFFFFF
                payload, buf = buf[9:9 + length], buf[9 + length:]
                if kind == 4 and not flags & 1:
                    conn.sendall(_frame(4, 1, 0))
                elif kind == 6 and not flags & 1:
                    conn.sendall(_frame(6, 1, 0, payload))
                elif kind == 7:
                    return
                elif kind == 0 and length:
                    conn.sendall(_frame(8, 0, 0, struct.pack(">I", length)))
                if kind in (0, 1) and flags & 1:
                    status = answers.next(http2=True)
                    conn.sendall(_frame(1, 5, stream, HPACK_STATUS[status]) if status else _frame(3, 0, stream, struct.pack(">I", 2)))
                    answers.record(status)
        except OSError:
            pass


class H2cServer:
    """HTTP/2 (h2c, prior knowledge) for h2load, for the duration of a ``with``."""

    def __init__(self, mode: str = "ok", delay: float = 0.0, port: int = 0) -> None:
        self.answers = Answers(mode, delay)
        self._listener = Listener(self._connection, port)
        self.port = self._listener.port

    def _connection(self, conn: socket.socket) -> None:
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        threading.Thread(target=_h2c_connection, args=(conn, self.answers), daemon=True).start()

    def __enter__(self) -> H2cServer:
        self._listener.start()
        return self

    def __exit__(self, *_: Any) -> None:
        self._listener.close()


class Http1Server:
    """HTTP/1.1 for wrk, for the duration of a ``with``."""

    def __init__(self, mode: str = "ok", delay: float = 0.0, port: int = 0) -> None:
        answers = self.answers = Answers(mode, delay)

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True

            def log_message(self, *_: Any) -> None:
                pass

            def answer(self) -> None:
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                status = answers.next(http2=False)
                if not status:
                    self.close_connection = True
                    self.connection.shutdown(socket.SHUT_RDWR)
                    answers.record(0)
                    return
                body = b'{"status": "SERVING"}'
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
                answers.record(status)

            do_GET = do_POST = answer

        class Server(ThreadingHTTPServer):
            daemon_threads = True

            def handle_error(self, *_: Any) -> None:  # wrk closes its connections in the middle of answers
                pass

        self._server = Server(("127.0.0.1", port), Handler)
        self.port = self._server.server_address[1]

    def __enter__(self) -> Http1Server:
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *_: Any) -> None:
        self._server.shutdown()
        self._server.server_close()
