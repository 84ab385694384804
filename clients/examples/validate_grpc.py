"""Validate a hand record over gRPC and print the result JSON; exit as ``naipes validate``: 0 valid,
1 a violation, 2 a file that cannot be read as JSON or a request the service refused (its code,
field and message on stderr), 3 no answer (the server unreachable or silent past the timeout, or
its INTERNAL error).

    python clients/examples/validate_grpc.py clients/examples/rentoy-hand.json [127.0.0.1:50051]
"""

import json
import sys
from pathlib import Path
from typing import NoReturn

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))

from naipes_client import GrpcClient, NaipesError  # noqa: E402

NO_ANSWER = {"UNAVAILABLE", "DEADLINE_EXCEEDED", "INTERNAL", "UNKNOWN", "CANCELLED"}


def no_constant(name: str) -> NoReturn:
    raise ValueError(f"{name} is not JSON")


if len(sys.argv) not in (2, 3):
    print("usage: validate_grpc.py RECORD.json [HOST:PORT]", file=sys.stderr)
    sys.exit(2)
try:
    record = json.loads(Path(sys.argv[1]).read_bytes(), parse_constant=no_constant)
except (OSError, ValueError) as error:  # (a file not in UTF-8 included)
    print(f"MALFORMED_JSON ({sys.argv[1]}): {getattr(error, 'strerror', None) or error}", file=sys.stderr)
    sys.exit(2)
if isinstance(record, dict) and "record" in record and "game" not in record:  # an example file
    record = record["record"]
try:
    with GrpcClient(sys.argv[2] if len(sys.argv) > 2 else "127.0.0.1:50051") as naipes:
        result = naipes.validate_hand(record)
except NaipesError as error:
    print(f"{error.code}{f' ({error.field})' if error.field else ''}: {error.message}", file=sys.stderr)
    sys.exit(3 if error.code in NO_ANSWER else 2)
print(json.dumps(result, indent=2, ensure_ascii=False))
sys.exit(0 if result["valid"] else 1)
