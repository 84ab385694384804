"""Validate a hand record over gRPC and print the result JSON; exit 0 valid, 1 a violation, 2 a
request the service refused (its code, field and message on stderr), as ``naipes validate``.

    python clients/examples/validate_grpc.py clients/examples/rentoy-hand.json [127.0.0.1:50051]
"""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))

from naipes_client import GrpcClient, NaipesError  # noqa: E402

record = json.loads(Path(sys.argv[1]).read_text(encoding="utf-8"))
try:
    with GrpcClient(sys.argv[2] if len(sys.argv) > 2 else "127.0.0.1:50051") as naipes:
        result = naipes.validate_hand(record.get("record", record))
except NaipesError as error:
    print(f"{error.code} ({error.field}): {error.message}", file=sys.stderr)
    sys.exit(2)
print(json.dumps(result, indent=2, ensure_ascii=False))
sys.exit(0 if result["valid"] else 1)
