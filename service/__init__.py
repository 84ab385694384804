"""The transport layer of Naipes: the same handlers behind gRPC (``grpc_server``) and REST
(``rest``), the one error table (``errors``) and the command line (``cli``)."""
