"""Validate a hand record over gRPC and print the result JSON.

    python clients/examples/validate_grpc.py clients/examples/rentoy-hand.json [127.0.0.1:50051]
"""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))

from naipes_client import GrpcClient  # noqa: E402

record = json.loads(Path(sys.argv[1]).read_text())
with GrpcClient(sys.argv[2] if len(sys.argv) > 2 else "127.0.0.1:50051") as naipes:
    result = naipes.validate_hand(record.get("record", record))
print(json.dumps(result, indent=2, ensure_ascii=False))
sys.exit(0 if result["valid"] else 1)
