"""The transport layer of Naipes: the same handlers behind gRPC (``grpc_server``) and REST
(``rest``), the one error table (``errors``) and the command line (``cli``)."""

from pathlib import Path

from engine import use_compiled

# service/codec.py is compiled too (setup.py); chosen like the engine's modules.
COMPILED = use_compiled(__name__, Path(__file__).resolve().parent)
