"""The client libraries against real servers: the Python client gives the same JSON over REST
and gRPC, and the same error code and field; the JavaScript client speaks the same JSON."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from engine import api

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "clients" / "python"))

from naipes_client import GrpcClient, NaipesError, RestClient  # noqa: E402

RECORD = json.loads((ROOT / "clients" / "examples" / "rentoy-hand.json").read_text())


@pytest.fixture(scope="module")
def clients(rest_url: str, grpc_target: str):
    with RestClient(rest_url) as rest, GrpcClient(grpc_target) as grpc_client:
        yield rest, grpc_client


def test_python_clients_agree_with_the_engine(clients) -> None:
    rest, grpc_client = clients
    partial = dict(RECORD, actions=RECORD["actions"][:5])
    assert rest.validate_hand(RECORD) == grpc_client.validate_hand(RECORD) == api.validate(RECORD)
    assert rest.legal_actions(partial, seat=3) == grpc_client.legal_actions(partial, seat=3) == api.legal_actions(partial, 3)
    trick = {"game": "rentoy", "seats": 4, "leader": 1, "contract": {"trump": "copas"}, "cards": "12e 2e 3c 1e"}
    assert rest.resolve_trick(trick)["winner"] == grpc_client.resolve_trick(trick)["winner"] == 3
    settle = {"game": "rentoy", "seats": 4, "table": {"score": [4, 5]}, "rentoy": {"winner": 1, "value": 3, "end": "fold"}}
    assert rest.settle_hand(settle) == grpc_client.settle_hand(settle)
    assert rest.settle_hand(settle)["table"] == {"score": [4, 8]}
    deal = {"game": "rentoy", "seats": 4, "dealer": 0, "seed": "readme"}
    assert rest.deal(deal) == grpc_client.deal(deal) == api.deal(deal)
    assert rest.describe_rules("rentoy") == grpc_client.describe_rules("rentoy")


@pytest.mark.parametrize("record,code,field", [
    (dict(RECORD, game="mus"), "UNKNOWN_GAME", "game"),
    (dict(RECORD, rules={"ladder": "1-2-3"}), "INVALID_OPTION_VALUE", "rules.ladder"),
    (dict(RECORD, deal={"hands": ["1o 2o 3o", "4o 5o 6o", "7o 10o 11o", "12o 1c 1c"], "stock": "2c"}), "DUPLICATE_CARD", "deal.hands[3]"),
])
def test_python_clients_raise_the_same_error(clients, record: dict, code: str, field: str) -> None:
    for client in clients:
        with pytest.raises(NaipesError) as err:
            client.validate_hand(record)
        assert (err.value.code, err.value.field) == (code, field)


def test_python_clients_validate_an_archive_in_batches(clients) -> None:
    """validate_hands: one answer per record, in order, the same over both transports, in
    batches smaller and larger than the archive; a bad record is its error in its place."""
    from examples_support import examples_dir, load_example

    records = [load_example(p)[0] for p in sorted(examples_dir().glob("*.json"))]
    records = [dict(r, actions=(r.get("actions") or [])[:n]) for r in records for n in (0, 3, 1000)]
    bad = {"game": "mus"}
    unreadable = dict(RECORD, seats="four")  # not even a message: the gRPC client's own error
    archive = records[:40] + [bad] + records[40:] + [unreadable]
    want = [{"result": api.validate(r)} for r in records[:40]] + [None] + [{"result": api.validate(r)} for r in records[40:]] + [None]
    for client in clients:
        for batch in (7, 500):
            answers = list(client.validate_hands(iter(archive), batch=batch))
            assert len(answers) == len(archive)
            assert [a for a, w in zip(answers, want, strict=True) if w is not None] == [w for w in want if w is not None]
            assert answers[40]["error"]["code"] == "UNKNOWN_GAME" and answers[40]["error"]["field"] == "game"
            assert answers[-1]["error"]["code"] == "INVALID_FIELD" and answers[-1]["error"]["field"] == "seats"


def test_javascript_client(rest_url: str, tmp_path: Path) -> None:
    node = subprocess.run(["node", "--version"], capture_output=True, text=True)
    assert node.returncode == 0, "Node.js is needed for the JavaScript client's test (.ci/run installs it)"
    script = tmp_path / "check.mjs"
    script.write_text(f"""
import {{ Naipes, NaipesError }} from {json.dumps(str(ROOT / "clients/js/naipes.mjs"))};
const naipes = new Naipes({json.dumps(rest_url)});
const record = {json.dumps(RECORD)};
const out = {{ result: await naipes.validateHand(record),
              legal: await naipes.legalActions({{...record, actions: record.actions.slice(0, 5)}}, 3),
              hands: await naipes.validateHands([record, {{...record, game: "mus"}}, {{...record, seats: "four"}}, record], {{ batch: 3 }}) }};
try {{ await naipes.validateHand({{...record, game: "mus"}}); }}
catch (e) {{ out.error = {{ isNaipesError: e instanceof NaipesError, code: e.code, field: e.field, status: e.status }}; }}
console.log(JSON.stringify(out));
""")
    run = subprocess.run(["node", str(script)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    assert out["result"] == api.validate(RECORD)
    assert out["legal"] == api.legal_actions(dict(RECORD, actions=RECORD["actions"][:5]), 3)
    assert out["error"] == {"isNaipesError": True, "code": "UNKNOWN_GAME", "field": "game", "status": 400}
    hands = out["hands"]
    assert len(hands) == 4 and hands[0] == hands[3] == {"result": api.validate(RECORD)}
    assert (hands[1]["error"]["code"], hands[1]["error"]["field"]) == ("UNKNOWN_GAME", "game")
    assert (hands[2]["error"]["code"], hands[2]["error"]["field"]) == ("INVALID_FIELD", "seats")
