"""The transport layer of Naipes: the same handlers behind gRPC (``grpc_server``) and REST
(``rest``), the one error table (``errors``) and the command line (``cli``)."""

import os
from pathlib import Path

from engine import use_compiled

# grpcio's transport as the gRPC server runs it: on grpcio's own poller (iomgr), without the
# EventEngine that grpcio 1.85 turns on by default for Python, whose I/O threads hand every call to
# the server's Python thread and back. By hand (bench/NOTES.md), a 2-process server answered 17-80%
# more health checks and 16-56% more ValidateHand calls a second without it on two cores, and one
# process about as many. grpc reads GRPC_EXPERIMENTS once, as it is imported: set here, before any
# module of the service imports it (``python -m service.grpc_server`` and ``naipes serve``'s gRPC
# processes), unless the environment sets it (empty: grpcio's defaults). tests/test_service_cli.py
# checks that the installed grpcio knows these experiments.
GRPC_EXPERIMENTS = "-event_engine_listener,-event_engine_for_all_other_endpoints,-event_engine_client,-event_engine_callback_cq,-event_engine_fork"
os.environ.setdefault("GRPC_EXPERIMENTS", GRPC_EXPERIMENTS)

# service/codec.py is compiled too (setup.py); chosen like the engine's modules.
COMPILED = use_compiled(__name__, Path(__file__).resolve().parent)
