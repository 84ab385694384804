"""The schema from another language's gRPC stack: the Node.js example (clients/examples/validate_grpc.mjs,
@grpc/grpc-js and @grpc/proto-loader loading protos/naipes/v1/naipes.proto as shipped) against the
real gRPC server (conftest's, on an ephemeral loopback port). It prints what validate_grpc.py
prints, byte for byte, and exits as it does; a refused record's code, field and message come from
the google.rpc.Status of the ``grpc-status-details-bin`` trailer, decoded by protobufjs; its
``--stream`` answers each record of a ValidateHands stream in order. Its module naipes_grpc.mjs
(the JSON of every call mapped to its message and back) calls every unary RPC for the three games
with the engine's answers, and a ValidateHands stream of its own messages (records, batches,
errors) with the REST stream's answers.

The packages (clients/examples/package.json) are installed from the lockfile by ``make node-grpc``
(npm ci). Without node, npm or the packages the tests are skipped, but not in CI (CI=true), which
installs node and npm (.ci/run)."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import requests
from examples_support import examples_dir
from service_support import REFUSED_CALLS, UNARY_CALLS, Listener, engine_answer, engine_error, rest_failure, rest_request

from engine import api
from service.handlers import SERVICE

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "clients" / "examples"
SCRIPT = EXAMPLES / "validate_grpc.mjs"
sys.path.insert(0, str(ROOT / "clients" / "python"))

from naipes_client import GrpcClient, NaipesError  # noqa: E402

RECORD = json.loads((EXAMPLES / "rentoy-hand.json").read_text())
HANDS = sorted(EXAMPLES.glob("*-hand.json"))
ILLEGAL = examples_dir() / "tresillo-bad-09-must-follow-suit.json"
BAD_CARD = dict(RECORD, deal=dict(RECORD["deal"], hands=[" ".join(["9c", *RECORD["deal"]["hands"][0].split()[1:]]),
                                                        *RECORD["deal"]["hands"][1:]]))  # (no 9 in the Spanish deck)


@pytest.fixture(scope="module")
def node() -> list[str]:
    """The command that runs the example, once its packages are installed (make node-grpc)."""
    missing = [tool for tool in ("node", "npm") if shutil.which(tool) is None]
    problem = f"no {' or '.join(missing)} here" if missing else None
    if problem is None:
        make = subprocess.run(["make", "-s", "node-grpc"], cwd=ROOT, capture_output=True, text=True, timeout=600)
        problem = None if make.returncode == 0 else f"make node-grpc failed:\n{make.stdout}{make.stderr}"
    if problem is not None:
        if os.environ.get("CI", "").lower() not in ("", "0", "false"):
            pytest.fail(f"CI: the Node.js gRPC example needs node, npm and its packages (.ci/run, make node-grpc): {problem}")
        pytest.skip(f"the Node.js gRPC example is left out: {problem}")
    return ["node", str(SCRIPT)]


def _run(command: list[str], *args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*command, *map(str, args)], capture_output=True, text=True, timeout=60)


def _record(path: Path) -> Any:
    data = json.loads(path.read_text())
    return data["record"] if "record" in data and "game" not in data else data


def _python_example(grpc_target: str, path: Path) -> tuple[int, str, str]:
    """What clients/examples/validate_grpc.py prints and exits for a record file (its exit code,
    stdout and stderr)."""
    run = _run([sys.executable, str(EXAMPLES / "validate_grpc.py")], path, grpc_target)
    return run.returncode, run.stdout, run.stderr


@pytest.mark.parametrize("case", ["valid", "illegal", "refused"])
def test_node_example_prints_what_the_python_example_prints(case: str, node: list[str], grpc_target: str,
                                                            tmp_path: Path) -> None:
    """A valid record is its result and exit 0, an illegal one its result (the violation) and exit
    1, a refused one the service's code, field and message (from the trailer's ErrorInfo) and exit 2."""
    path = {"valid": examples_dir() / "tresillo-full-01-random.json", "illegal": ILLEGAL, "refused": tmp_path / "bad-card.json"}[case]
    if case == "refused":
        path.write_text(json.dumps(BAD_CARD))
    record = _record(path)
    run = _run(node, path, grpc_target)
    assert (run.returncode, run.stdout, run.stderr) == _python_example(grpc_target, path)
    assert run.returncode == {"valid": 0, "illegal": 1, "refused": 2}[case], run.stderr
    if case == "refused":
        assert run.stdout == "" and run.stderr == "UNKNOWN_CARD (deal.hands[0]): deal.hands[0]: 9c is not in the 40-card deck\n"
        return
    result = json.loads(run.stdout)
    assert result == api.validate(record)
    if case == "illegal":
        assert result["violation"]["code"] == "MUST_FOLLOW_SUIT" and result["finished"] is False
    else:
        # (empty lists the service prints beside another field: a table's cartulina, a hand's condiciones)
        assert result["finished"] is True and result["table"]["cartulina"] == [] and result["condiciones"] == []


# Records no message can hold, refused by the example before sending as by the Python client
# (INVALID_FIELD naming the field), and records the service refuses.
REFUSED = {
    "unknown_field": dict(RECORD, foo=1),
    "string_for_seats": dict(RECORD, seats="four"),
    # a string quoted as the service quotes it: single quotes whatever it holds, Python's escapes,
    # a long one by its first 60 characters (a code point each) and its length
    "quote_in_a_string": dict(RECORD, seats="o'clock"),
    "escapes_in_a_string": dict(RECORD, seats="a\\b\tc\u200b\x7f\U0001f0a1 é"),
    "long_string": dict(RECORD, dealer="\U0001f0a1" + "x" * 1500),
    "number_for_an_action": dict(RECORD, actions=[7]),
    "string_for_the_deal": dict(RECORD, deal="1e 2e"),
    "seats_out_of_range": dict(RECORD, seats=2**40),
    "lone_surrogate": dict(RECORD, game="rentoy\ud800"),
    "list_for_the_record": [RECORD],
    "number_for_the_record": 5,
    # a record with a game is sent whole, its record field too (an example file has no game)
    "record_beside_a_game": dict(RECORD, record=RECORD),
    # null, bare or as an example file's record: the body null, not a record without fields
    "null_for_the_record": None,
    "null_for_an_example_files_record": {"record": None},
    "unknown_game": dict(RECORD, game="mus"),
    "null_option": dict(RECORD, rules={"ladder": None}),
    "wrong_option": dict(RECORD, rules={"ladder": "1-2-3"}),
}


def test_node_example_refuses_as_the_python_example(node: list[str], grpc_target: str, tmp_path: Path) -> None:
    """Each refusal is the same line as validate_grpc.py's and exit 2: protobufjs writes what it
    is given without a word ("four" as 0, an unknown field dropped), so the example checks the
    record against the schema first, and the rest is the service's answer."""
    for name, record in REFUSED.items():
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(record))
        run = _run(node, path, grpc_target)
        expected = _python_example(grpc_target, path)
        assert expected[0] == 2 and (run.returncode, run.stdout, run.stderr) == expected, name
        if name == "quote_in_a_string":
            assert run.stderr == "INVALID_FIELD (seats): seats: expected an integer, not 'o\\'clock'\n"
        if name == "long_string":
            assert run.stderr.endswith("x" * 59 + "'... (1,501 characters)\n"), run.stderr
    assert run.stderr.startswith("INVALID_OPTION_VALUE (rules.ladder): rules option ladder cannot be '1-2-3'")


def test_node_example_exits_2_on_a_file_not_json_and_3_without_a_server(node: list[str], tmp_path: Path) -> None:
    from bench.run import free_port

    not_json = tmp_path / "not.json"
    not_json.write_text("{not json")
    for path, target, status, code in ((not_json, "127.0.0.1:1", 2, "MALFORMED_JSON"), (EXAMPLES / "rentoy-hand.json",
                                                                                        f"127.0.0.1:{free_port()}", 3, "UNAVAILABLE: ")):
        run = _run(node, path, target)
        assert run.returncode == status, run.stderr
        assert run.stdout == "" and len(run.stderr.strip().splitlines()) == 1 and run.stderr.startswith(code), run.stderr
    # (without the service's details, the message is the status's details, not grpc-js's "14 UNAVAILABLE: ...")
    assert run.stderr.count("UNAVAILABLE") == 1, run.stderr
    # --stream without a server: the stream's failure, exit 3, no line
    run = _run(node, "--stream", EXAMPLES / "rentoy-hand.json", "--target", f"127.0.0.1:{free_port()}")
    assert (run.returncode, run.stdout) == (3, "") and run.stderr.startswith("UNAVAILABLE: ") and run.stderr.count("UNAVAILABLE") == 1, run.stderr
    for args in ((), (EXAMPLES / "rentoy-hand.json", "127.0.0.1:1", "extra")):  # (no file: not a MALFORMED_JSON of "undefined")
        run = _run(node, *args)
        assert (run.returncode, run.stdout) == (2, "") and run.stderr.startswith("usage: validate_grpc.mjs RECORD.json"), run.stderr


def test_node_example_calls_the_default_target(node: list[str]) -> None:
    """Without a target, both forms call 127.0.0.1:50051 (naipes serve's gRPC port): with no
    server there, UNAVAILABLE naming that address, exit 3."""
    import socket

    with socket.socket() as probe:
        if probe.connect_ex(("127.0.0.1", 50051)) == 0:
            pytest.skip("something listens on 127.0.0.1:50051")
    for args in ((EXAMPLES / "rentoy-hand.json",), ("--stream", EXAMPLES / "rentoy-hand.json")):
        run = _run(node, *args)
        assert (run.returncode, run.stdout) == (3, "") and run.stderr.startswith("UNAVAILABLE: ") and "127.0.0.1:50051" in run.stderr, run.stderr


def test_node_example_exits_3_when_the_server_is_silent(node: list[str]) -> None:
    """A server that takes the connection and never answers: DEADLINE_EXCEEDED after the example's
    10 s (naipes_grpc.mjs's TIMEOUT_MS), exit 3, no line, the call's deadline in the one-record
    form and the stream's wait for its answer with --stream. Both at once: 10 s in all."""
    accepted: list[socket.socket] = []
    silent = Listener(accepted.append)  # (its close() ends its thread's accept(): a closed socket alone went on listening)
    silent.start()
    target = f"127.0.0.1:{silent.port}"
    runs = [subprocess.Popen([*node, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            for args in ([str(EXAMPLES / "rentoy-hand.json"), target], ["--stream", str(EXAMPLES / "rentoy-hand.json"), "--target", target])]
    try:
        outs = [(run.communicate(timeout=40), run.returncode) for run in runs]
    finally:
        for run in runs:
            run.kill()
        silent.close()
        for connection in accepted:
            connection.close()
    for (stdout, stderr), status in outs:
        assert (status, stdout) == (3, "") and stderr.startswith("DEADLINE_EXCEEDED: ") and stderr.count("\n") == 1, stderr
    assert outs[1][0][1] == "DEADLINE_EXCEEDED: no answer within 10000 ms\n"


def test_node_example_streams_the_records_in_order(node: list[str], grpc_target: str, tmp_path: Path) -> None:
    """--stream: one ValidateHands stream, each record sent once the one before is answered; a
    line per record, in order, with the file as its id: the result, or the error entry (the
    service's for a bad card, the example's for a field no message has). The exit code is the worst."""
    bad_card, unknown = tmp_path / "bad-card.json", tmp_path / "unknown-field.json"
    bad_card.write_text(json.dumps(BAD_CARD))
    unknown.write_text(json.dumps(REFUSED["unknown_field"]))
    files = [*HANDS, bad_card, *sorted(examples_dir().glob("*-*.json")), unknown, HANDS[0]]
    run = _run(node, "--stream", *files, "--target", grpc_target)
    assert run.returncode == 2 and run.stderr == "", run.stderr
    lines = run.stdout.splitlines()
    assert len(lines) == len(files)
    for path, line in zip(files, lines, strict=True):
        answer = json.loads(line)
        if path == bad_card:
            assert line == json.dumps({"id": str(bad_card), "error": {"code": "UNKNOWN_CARD", "field": "deal.hands[0]", "message":
                                       "deal.hands[0]: 9c is not in the 40-card deck"}}, separators=(",", ":"))
        elif path == unknown:
            assert answer == {"id": str(unknown), "error": {"code": "INVALID_FIELD", "field": "foo",
                                                            "message": "foo: unknown field 'foo' of HandRecord"}}
        else:
            assert list(answer) == ["result", "id"] and answer == {"id": str(path), "result": api.validate(_record(path))}, path
    assert sum("violation" in json.loads(line).get("result", {}) for line in lines) == 3  # the shared bad samples
    for chosen, status in (([*HANDS, ILLEGAL], 1), (HANDS, 0)):
        started = time.monotonic()
        run = _run(node, "--stream", "--target", grpc_target, *chosen)  # (--target before the files as well)
        assert run.returncode == status and len(run.stdout.splitlines()) == len(chosen), run.stderr
        # ends once answered: no wait for an answered record's 10 s timer (each is cleared)
        assert time.monotonic() - started < 6, time.monotonic() - started


def test_node_reads_every_error_detail(node: list[str], grpc_target: str) -> None:
    """grpc-js and protobufjs read the whole google.rpc.Status of the trailer: its code is the
    call's status and its message the call's grpc-message; an ErrorInfo (reason, domain
    naipes.v1, metadata.field) and a BadRequest with the one field violation, as docs/api.md says."""
    source = """
import grpc from "@grpc/grpc-js";
import protoLoader from "@grpc/proto-loader";
import googleProtoFiles from "google-proto-files";
import protobuf from "protobufjs";
import { dirname } from "node:path";
const google = dirname(googleProtoFiles.getProtoPath());
const definition = protoLoader.loadSync("naipes/v1/naipes.proto", { includeDirs: ["../../protos", google] });
const { NaipesService } = grpc.loadPackageDefinition(definition).naipes.v1;
const root = protobuf.loadSync([`${google}/google/rpc/status.proto`, `${google}/google/rpc/error_details.proto`]);
const client = new NaipesService(process.argv[1], grpc.credentials.createInsecure());
const request = JSON.parse(process.argv[2]);
client.Deal(request, { deadline: Date.now() + 10000 }, (error) => {
  const [bytes] = error.metadata.get("grpc-status-details-bin");
  const status = root.lookupType("google.rpc.Status").decode(bytes);
  const details = status.details.map((any) => {
    const type = root.lookupType(any.type_url.split("/").pop());
    return { type: any.type_url, ...type.toObject(type.decode(any.value)) };
  });
  console.log(JSON.stringify({ code: error.code, details: error.details, status: { code: status.code, message: status.message, details } }));
  client.close();
});
"""
    request = {"game": "rentoy", "seats": 5, "dealer": 0, "seed": "s"}
    run = subprocess.run(["node", "--input-type=module", "-e", source, grpc_target, json.dumps(request)], cwd=EXAMPLES,
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    with GrpcClient(grpc_target) as naipes, pytest.raises(NaipesError) as error:
        naipes.deal(request)
    code, field, message = error.value.code, error.value.field, error.value.message
    assert (code, field) == ("INVALID_SEATS", "seats")
    assert out == {"code": 3, "details": message, "status": {"code": 3, "message": message, "details": [
        {"type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": code, "domain": "naipes.v1", "metadata": {"field": field}},
        {"type": "type.googleapis.com/google.rpc.BadRequest", "fieldViolations": [{"field": field, "description": message}]}]}}


# Calls unary RPCs through naipes_grpc.mjs (the module validate_grpc.mjs is built on): a list of
# [RPC, request JSON] on stdin, each answer's JSON or its error's code, field and message out.
CALLS = """
import { readFileSync } from "node:fs";
import { NaipesError, call, connect } from "./naipes_grpc.mjs";
const client = connect(process.argv[1]);
const out = [];
for (const [rpc, request] of JSON.parse(readFileSync(0, "utf8"))) {
  try { out.push({ answer: await call(client, rpc, request) }); }
  catch (e) { out.push({ error: { isNaipesError: e instanceof NaipesError, code: e.code, field: e.field, message: e.message } }); }
}
client.close();
console.log(JSON.stringify(out));
"""


def node_calls(target: str, calls: list, timeout: float = 60) -> list[Any]:
    """Each of ``calls`` (RPC, request JSON) through naipes_grpc.mjs (CALLS) against ``target``:
    its answer, or its error."""
    run = subprocess.run(["node", "--input-type=module", "-e", CALLS, target], cwd=EXAMPLES, input=json.dumps(calls),
                         capture_output=True, text=True, timeout=timeout)
    assert run.returncode == 0, run.stderr
    out: list[Any] = json.loads(run.stdout)
    return out

# Requests of each RPC no message can hold, which naipes_grpc.mjs refuses before sending as the
# service refuses their JSON over REST: fields named within the REST body (a record's own).
# (DescribeRules' one field is the REST route's path: the answer of a game that is no string is
# the last call's, below.)
UNREADABLE = [
    ("ValidateHand", {"record": dict(RECORD, foo=1)}),
    ("LegalActions", {"record": dict(RECORD, seats="four"), "seat": 1}),
    ("ResolveTrick", {"game": "rentoy", "seats": 4, "contract": {"trump": 1}, "cards": "12e 2e"}),
    ("SettleHand", {"game": "revesino", "seats": 4, "revesino": {"tricks": [{"cards": "1o 3o 12c 5e", "lead": 1}]}}),
    ("Deal", {"game": "rentoy", "seats": 4, "dealer": 0, "seed": ["s"]}),
    # The values the service words each its way: a string with characters Python's repr escapes (a
    # control, a format and a space character, below 0x100, below 0x10000 and past it) and the
    # printed ones it does not; one of 60 characters, quoted whole, and one of 61, cut short; a
    # boolean, a list and an object.
    *(("ResolveTrick", {"game": "rentoy", "seats": seats, "cards": "12e 2e"})
      for seats in ("a\x01\xad\u200b\u3000\U000e0001 é'\\\n\r", "x" * 60, "x" * 61, True, [4], {"n": 4})),    # Rules (a google.protobuf.Struct) that are no object, which the service words by their value
    # ("not 'x'", "not 5"); naipes_grpc.mjs said "not a string", "not a number".
    *(("ResolveTrick", {"game": "rentoy", "seats": 4, "cards": "12e 2e", "rules": rules}) for rules in ("x", 5, 4.5, True, [1])),
    # An integer as a string only in decimal digits (no sign +, space, fraction, exponent or hex),
    # a number with a fraction, and int32's bounds passed, as a number and as a string (quoted).
    *(("ResolveTrick", {"game": "rentoy", "seats": seats, "cards": "12e 2e"})
      for seats in ("+4", " 4", "4 ", "4.0", "1e1", "0x10", "", 4.5, -(2**31) - 1, 2**31, "2147483648", "-2147483649")),
    # A boolean that is none (json_format's words, whatever the value), a list that is none, and
    # a null item of a list (named as the type it is not: a string, an integer, an object).
    *(("SettleHand", {"game": "tresillo", "seats": 4, "dealer": 3, "tresillo": {"annulled": annulled}}) for annulled in ("yes", 1)),
    ("ValidateHand", {"record": dict(RECORD, actions="1e 2e")}),
    ("ValidateHand", {"record": dict(RECORD, actions=["1e", None])}),
    ("SettleHand", {"game": "rentoy", "seats": 4, "dealer": 1, "table": {"score": 4}, "rentoy": {"winner": 1, "value": 3, "end": "fold"}}),
    ("SettleHand", {"game": "rentoy", "seats": 4, "dealer": 1, "table": {"score": [4, None]}, "rentoy": {"winner": 1, "value": 3, "end": "fold"}}),
    ("SettleHand", {"game": "tresillo", "seats": 4, "dealer": 3, "table": {"cartulina": [None]}, "tresillo": {"annulled": True}}),
    # A field by both its names (one was kept, silently), and unknown keys: one quoting a quote,
    # and one past what an error's field and message hold (cut as the service cuts them).
    ("ValidateHand", {"record": dict(RECORD, table={"score": [0, 0], "plate_holds": "none", "plateHolds": "none"})}),
    ("ValidateHand", {"record": {**RECORD, "a'b": 1}}),
    ("ValidateHand", {"record": {**RECORD, "x" * 20_000: 1}}),
    # (cut in the middle of a three-byte character, and at the end of a whole U+FFFD, which stays)
    *(("ValidateHand", {"record": {**RECORD, character * count: 1}}) for character in ("€", "\ufffd") for count in (100, 101, 102)),
]


def test_node_calls_every_rpc_as_the_engine_answers(node: list[str], grpc_target: str, rest_url: str, http: requests.Session) -> None:
    """Every unary RPC, for the three games, over grpc-js with proto-loader against the real gRPC
    server, mapped to JSON by naipes_grpc.mjs: each answer is the engine's for the same request
    (the Values of DescribeRules' options as JSON values under their json_name, `default`; the
    empty lists the API's JSON prints, and no others); each RPC's refused request is the service's
    code, field and message, read from the grpc-status-details-bin trailer; a request no message
    can hold is refused before sending with the REST server's code, field and message."""
    unary = {method.name for method in SERVICE.methods if not method.client_streaming and not method.server_streaming}
    assert {rpc for _name, rpc, _request in UNARY_CALLS} == unary and len(unary) == 6
    calls = [*([rpc, request] for _name, rpc, request in UNARY_CALLS),
             *([rpc, request] for _name, rpc, request, _code, _field in REFUSED_CALLS), *map(list, UNREADABLE),
             ["DescribeRules", {"game": 7}]]
    out = node_calls(grpc_target, calls)
    assert len(out) == len(calls)
    answered, failed, unread, last = out[:len(UNARY_CALLS)], out[len(UNARY_CALLS):-len(UNREADABLE) - 1], out[-len(UNREADABLE) - 1:-1], out[-1]
    for (name, rpc, request), answer in zip(UNARY_CALLS, answered, strict=True):
        assert answer == {"answer": engine_answer(rpc, request)}, name
    for (name, rpc, request, code, field), answer in zip(REFUSED_CALLS, failed, strict=True):
        error = engine_error(rpc, request)
        assert answer == {"error": {"isNaipesError": True, "code": code, "field": field, "message": error.message}}, name
    for (rpc, request), answer in zip(UNREADABLE, unread, strict=True):
        refused = rest_failure(rest_request(http, rest_url, rpc, request))
        assert refused.code == "INVALID_FIELD" and refused.field is not None, (rpc, refused)
        assert answer == {"error": {"isNaipesError": True, "code": refused.code, "field": refused.field,
                                    "message": refused.message}}, rpc
    assert last == {"error": {"isNaipesError": True, "code": "INVALID_FIELD", "field": "game", "message": "game: expected a string, not 7"}}


def test_node_sends_a_rule_of_each_json_kind_as_rest_does(node: list[str], grpc_target: str, rest_url: str, http: requests.Session) -> None:
    """A record's rules are a google.protobuf.Struct: naipes_grpc.mjs makes a Value of each JSON
    kind (null, true and false, a whole and a fractional number, a string, a list, an object, and
    these within each other), and the service answers each as it answers the same JSON over REST:
    the result of a value it takes, else the same code, field and message."""
    rentoy = RECORD
    revesino = json.loads((EXAMPLES / "revesino-hand.json").read_text())
    values = [None, True, False, 0, 3, 2.5, -1, "", "3", "penalty", [], [3, "a", None, [True]], {}, {"a": {"b": [1.5, None]}}]
    calls = [["ValidateHand", {"record": dict(record, rules={name: value})}]
             for record, name in ((rentoy, "playAllTricks"), (rentoy, "renuncio"), (revesino, "stake"), (rentoy, "noSuchRule"))
             for value in values]
    out = node_calls(grpc_target, calls, timeout=120)
    taken = []
    for (rpc, request), answer in zip(calls, out, strict=True):
        rest = rest_request(http, rest_url, rpc, request)
        if rest.status_code == 200:
            assert answer == {"answer": rest.json()}, request["record"]["rules"]
            taken.append(request["record"]["rules"])
        else:
            refused = rest_failure(rest)
            assert answer == {"error": {"isNaipesError": True, "code": refused.code, "field": refused.field,
                                        "message": refused.message}}, request["record"]["rules"]
    assert taken == [{"playAllTricks": True}, {"playAllTricks": False}, {"renuncio": "penalty"}, {"stake": 3}]


# Requests the service reads (answers, or refuses for what they hold, not for their JSON), which
# naipes_grpc.mjs must send as REST reads them: a null field as the field left out, an integer as
# a decimal string and at int32's bounds, and a field under its proto name (plate_holds) as well
# as its JSON name.
READABLE = [
    ("ResolveTrick", {"game": "rentoy", "seats": None, "leader": None, "rules": None, "contract": {"trump": "copas"}, "cards": "12e 2e",
                      "dealer": None}),
    ("ValidateHand", {"record": dict(RECORD, rules=None, table=None, actions=None)}),
    ("SettleHand", {"game": "tresillo", "seats": 4, "dealer": 3, "table": {"plate": 40, "plateHolds": None, "cartulina": None},
                    "tresillo": {"annulled": True}}),
    ("ResolveTrick", {"game": "revesino", "seats": "4", "leader": "2", "cards": "6e 8e 10o 2e", "number": "3", "fondo": "14"}),
    *(("ResolveTrick", {"game": "rentoy", "seats": 4, "leader": leader, "cards": "12e 2e"})
      for leader in ("-1", -(2**31), 2**31 - 1, "-2147483648", "2147483647")),
    ("SettleHand", {"game": "tresillo", "seats": 4, "dealer": 3, "table": {"plate": 40, "plate_holds": "reservada"},
                    "tresillo": {"annulled": True}}),
    ("SettleHand", {"game": "tresillo", "seats": 3, "dealer": 2, "table": {"plate": 30, "plateHolds": "primera"},
                    "tresillo": {"jugador": 0, "lance": "entrada", "trump": "bastos", "jugador_hand": "2b 12b 11b 10b 7b 6b 5b 4b 3b",
                                 "tricks": [1, 1, 1, 1, 1]}}),
]


def test_node_reads_what_rest_reads(node: list[str], grpc_target: str, rest_url: str, http: requests.Session) -> None:
    """Each of READABLE through naipes_grpc.mjs is answered as REST answers its JSON: the same
    answer, or the same code, field and message of the service (a seat out of range, not a field
    naipes_grpc.mjs refused); most are answers."""
    answered = 0
    for (rpc, request), answer in zip(READABLE, node_calls(grpc_target, READABLE), strict=True):
        rest = rest_request(http, rest_url, rpc, request)
        if rest.status_code == 200:
            assert answer == {"answer": rest.json()}, request
            answered += 1
        else:
            refused = rest_failure(rest)
            assert refused.code != "INVALID_FIELD", (request, refused)
            assert answer == {"error": {"isNaipesError": True, "code": refused.code, "field": refused.field, "message": refused.message}}, request
    assert answered == 6


def test_node_calls_only_a_unary_rpc_with_an_object(node: list[str], grpc_target: str, rest_url: str, http: requests.Session) -> None:
    """naipes_grpc.mjs's call: a request that is no object is the REST body that is none (refused
    before sending, whether the route's body is a field, ValidateHand's record, or the request);
    one without its body field is the empty body REST reads (answered as REST answers it); and an
    RPC that is no unary one of the service is a TypeError, nothing sent."""
    calls = [["ValidateHand", None], ["LegalActions", 5], ["ValidateHand", ["x"]], ["Deal", None], ["ValidateHand", {}],
             ["LegalActions", {"seat": 1}], ["ValidateHands", {}], ["Validate", {}]]
    out = node_calls(grpc_target, calls)
    body = {"isNaipesError": True, "code": "INVALID_FIELD", "field": "body"}
    assert out[:4] == [{"error": dict(body, message=f"the body must be a JSON object, not {kind}")} for kind in ("null", "a number", "a list", "null")]
    for (rpc, request), answer in zip(calls[4:6], out[4:6], strict=True):
        refused = rest_failure(rest_request(http, rest_url, rpc, request))
        assert refused.code == "MISSING_FIELD"
        assert answer == {"error": {"isNaipesError": True, "code": refused.code, "field": refused.field, "message": refused.message}}, rpc
    assert out[6:] == [{"error": {"isNaipesError": False, "message": f"{rpc} is not a unary RPC of NaipesService"}} for rpc, _ in calls[6:]]


def test_node_sends_the_messages_rest_reads(node: list[str]) -> None:
    """On the wire, the request naipes_grpc.mjs makes of a call's JSON is the message the service
    reads from the same JSON over REST (codec.from_json), for every unary RPC: a null in the rules
    a Value holding null (not a Value of no kind, which protobuf's JSON mapping refuses to print),
    within lists and objects too, an integer given as a string, a field under its proto name. An
    empty answer is the API's JSON of that message: a field without presence printed at its default
    (a deal's `game` and `seed`), a list left out; and rule options whose Values hold objects and
    lists within each other are their JSON, as REST prints them. (A server of this test's own records
    the bytes and answers them.)"""
    from concurrent import futures

    import grpc
    from google.protobuf import json_format, message_factory

    from service.codec import from_json, to_json

    methods = {method.name: method for method in SERVICE.methods if not method.client_streaming and not method.server_streaming}
    rules = {"a": None, "b": [3, "a", None, [True, {}]], "c": {"d": {"e": [1.5, None]}}, "f": False, "g": "", "h": 0, "i": []}
    calls = [*((rpc, request) for _name, rpc, request in UNARY_CALLS), *READABLE,
             ("ValidateHand", {"record": dict(RECORD, rules=rules)}), ("ResolveTrick", {"game": "rentoy", "cards": "1e", "rules": rules})]
    options = {"game": "rentoy", "options": [{"name": "x", "default": {"a": [1, 2.5, "s", None, True, {"b": []}], "c": {}},
                                               "choices": [[], [1, [2]], {"d": None}, None, "e"], "rule": "R1", "doc": "d"}]}
    answers = {"DescribeRules": json_format.ParseDict(options, message_factory.GetMessageClass(methods["DescribeRules"].output_type)())}
    received: list[tuple[str, bytes]] = []

    def recorder(rpc: str) -> grpc.RpcMethodHandler:
        def handle(request: bytes, _context: grpc.ServicerContext) -> bytes:
            received.append((rpc, request))
            answer = answers.get(rpc)
            return answer.SerializeToString() if answer is not None else b""  # (else every field at its default)
        return grpc.unary_unary_rpc_method_handler(handle)

    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    server.add_generic_rpc_handlers([grpc.method_handlers_generic_handler(SERVICE.full_name, {rpc: recorder(rpc) for rpc in methods})])
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        out = node_calls(f"127.0.0.1:{port}", calls)
    finally:
        server.stop(None)
    assert [rpc for rpc, _request in received] == [rpc for rpc, _request in calls]
    for (rpc, request), (_rpc, data), answer in zip(calls, received, out, strict=True):
        method = methods[rpc]
        sent = message_factory.GetMessageClass(method.input_type).FromString(data)
        assert sent == from_json(request, message_factory.GetMessageClass(method.input_type)()), (rpc, request)
        if rpc != "ValidateHand":  # (its answer is its result: REST's response_body)
            assert answer == {"answer": to_json(answers.get(rpc, message_factory.GetMessageClass(method.output_type)()))}, rpc
    assert to_json(answers["DescribeRules"]) == options
    assert answer == {"answer": {"card": "", "events": []}}  # (ResolveTrick's: its card has no presence)


# One ValidateHands stream through naipes_grpc.mjs: a list of request messages' JSON on stdin, each
# mapped to its message (jsonToMessage) and written, then the stream ended; each answer's JSON out
# (messageToJson), in order.
STREAM = """
import { readFileSync } from "node:fs";
import { callError, connect, jsonToMessage, messageToJson, type } from "./naipes_grpc.mjs";
const client = connect(process.argv[1]);
const call = client.ValidateHands({ deadline: Date.now() + 30000 });
for (const request of JSON.parse(readFileSync(0, "utf8"))) call.write(jsonToMessage(type("naipes.v1.ValidateHandsRequest"), request));
call.end();
const out = [];
try {
  for await (const answer of call) out.push(messageToJson(type("naipes.v1.ValidateHandsResponse"), answer));
} catch (error) {
  out.push({ failed: callError(error).code });
}
client.close();
console.log(JSON.stringify(out));
"""


def _nothing_moves() -> tuple[dict[str, Any], dict[str, Any]]:
    """A finished Revesino hand in which no tanto moves (its table's fondo stays 30), and its
    SettleHand request: both answer an empty ``payments`` beside their ``table``."""
    from test_service_revesino import NOTHING_MOVES, settle_request

    return NOTHING_MOVES, settle_request(NOTHING_MOVES, api.validate(NOTHING_MOVES))


def test_node_validates_a_stream_as_the_engine(node: list[str], grpc_target: str, rest_url: str, http: requests.Session) -> None:
    """ValidateHands through @grpc/proto-loader and naipes_grpc.mjs's mapping, its messages as
    the REST stream's lines spell them: a record with an id and without, a finished hand whose
    result lists its empty payments beside its table, a record the service refuses (its error
    entry, the stream going on), a batch of records (one answer holding one per item, in order,
    each with its id), a record beside a batch and a batch over 1,000 items (the message's own
    error). Each answer is the REST stream's answer to the same line, and each result the engine's."""
    nothing_moves, _ = _nothing_moves()
    tresillo = _record(examples_dir() / "tresillo-full-01-random.json")
    requests_ = [
        {"id": "a", "record": RECORD},
        {"record": nothing_moves},
        {"id": "bad card", "record": BAD_CARD},
        {"id": "batch", "batch": [{"id": "b1", "record": tresillo}, {"record": _record(ILLEGAL)},
                                  {"id": "b3", "record": dict(RECORD, game="mus")}, {"id": "b4", "record": nothing_moves}]},
        {"id": "beside", "record": RECORD, "batch": [{"record": RECORD}]},
        {"batch": [{"record": RECORD}] * 1001},
    ]
    run = subprocess.run(["node", "--input-type=module", "-e", STREAM, grpc_target], cwd=EXAMPLES, input=json.dumps(requests_),
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    rest = http.post(rest_url + "/v1/hands:validateStream", data="".join(json.dumps(r) + "\n" for r in requests_),
                     headers={"Content-Type": "application/x-ndjson"}, timeout=60)
    assert rest.status_code == 200, rest.text
    assert out == [json.loads(line) for line in rest.text.splitlines()]
    assert out[0] == {"result": api.validate(RECORD), "id": "a"}
    assert out[1] == {"result": api.validate(nothing_moves)} and out[1]["result"]["payments"] == []
    assert out[2] == {"id": "bad card", "error": {"code": "UNKNOWN_CARD", "field": "deal.hands[0]",
                                                  "message": "deal.hands[0]: 9c is not in the 40-card deck"}}
    assert list(out[3]) == ["id", "batch"] and out[3]["id"] == "batch"
    batch = out[3]["batch"]
    assert batch[:2] == [{"result": api.validate(tresillo), "id": "b1"}, {"result": api.validate(_record(ILLEGAL))}]
    assert batch[2] == {"id": "b3", "error": {"code": "UNKNOWN_GAME", "field": "game", "message": engine_error(
        "ValidateHand", {"record": dict(RECORD, game="mus")}).message}}
    assert batch[3] == {"result": api.validate(nothing_moves), "id": "b4"} and batch[3]["result"]["payments"] == []
    assert [answer.get("id") for answer in out[4:]] == ["beside", None] and all("error" in answer for answer in out[4:])


def test_node_settles_a_hand_without_payments(node: list[str], grpc_target: str) -> None:
    """SettleHand of a finished hand in which nothing is paid, through naipes_grpc.mjs: its
    answer lists the empty ``payments`` beside its ``table`` (the API's JSON prints that list
    whenever the table is there), as the engine answers it; so does ValidateHand's of the same
    hand, and one in progress has neither."""
    nothing_moves, settle = _nothing_moves()
    calls = [["SettleHand", settle], ["ValidateHand", {"record": nothing_moves}],
             ["ValidateHand", {"record": dict(nothing_moves, actions=nothing_moves["actions"][:20])}]]
    settled, validated, in_progress = node_calls(grpc_target, calls)
    assert settled == {"answer": engine_answer("SettleHand", settle)}
    assert (settled["answer"]["payments"], settled["answer"]["net"], settled["answer"]["table"]) == ([], [0, 0, 0, 0], {"fondo": 30})
    assert validated == {"answer": api.validate(nothing_moves)} and validated["answer"]["payments"] == []
    assert in_progress == {"answer": api.validate(calls[2][1]["record"])}
    assert "payments" not in in_progress["answer"] and "table" not in in_progress["answer"]


def test_node_call_refuses_a_timeout_no_deadline_holds(grpc_target: str) -> None:
    """naipes_grpc.mjs's call: a timeoutMs of NaN, or one grpc-js finds too far in the future,
    threw outside the call's promise ("Deadline is too far in the future"), and the process ended,
    whatever its caller caught. It is a RangeError the caller's promise rejects with, and the next
    call is answered."""
    script = """
import { connect, call } from "./naipes_grpc.mjs";
const client = connect(process.argv[1]);
const out = [];
for (const timeoutMs of [NaN, 1e16, Infinity, -1, 5000]) {
  try { out.push(Object.keys(await call(client, "DescribeRules", { game: "rentoy" }, { timeoutMs })).length > 0); }
  catch (error) { out.push(`${error.constructor.name}: ${error.message}`); }
}
client.close();
console.log(JSON.stringify(out));
"""
    run = subprocess.run(["node", "--input-type=module", "-e", script, grpc_target], cwd=EXAMPLES, capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    refused = "RangeError: timeoutMs must be a number of milliseconds above 0 and at most 2147483647, not "
    assert json.loads(run.stdout) == [refused + "NaN", refused + "10000000000000000", refused + "Infinity", refused + "-1", True]


def test_node_calls_read_a_bigint_and_an_undefined_field_as_the_rest_client_does(grpc_target: str) -> None:
    """JSON has neither, so the parity above cannot carry them: a BigInt was JSON.stringify's
    TypeError out of naipes_grpc.mjs (now INVALID_FIELD naming it, as naipes.mjs refuses it), and a
    field left undefined was refused as an object that is none, where naipes.mjs leaves it out."""
    script = """
import { connect, call } from "./naipes_grpc.mjs";
import { readFileSync } from "node:fs";
const record = JSON.parse(readFileSync("rentoy-hand.json"));
const client = connect(process.argv[1]);
const out = [];
for (const request of [{ record: { ...record, seats: 4n } }, { record: { ...record, table: undefined } }]) {
  try { out.push((await call(client, "ValidateHand", request)).valid); }
  catch (error) { out.push([error.code, error.field, error.message]); }
}
client.close();
console.log(JSON.stringify(out));
"""
    run = subprocess.run(["node", "--input-type=module", "-e", script, grpc_target], cwd=EXAMPLES, capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout) == [["INVALID_FIELD", "seats", "seats: expected an integer, not the BigInt 4n"], True]


def test_node_call_on_a_closed_client_is_a_naipes_error(grpc_target: str) -> None:
    """naipes_grpc.mjs's call on a client once closed (``client.close()``) rejects with a NaipesError
    UNAVAILABLE, "the client is closed", before anything else is said of the request, as the
    Python GrpcClient's calls: it was grpc-js's Error "Channel has been shut down", with no code
    (a request no message can hold was refused as such, the service's request sent nowhere)."""
    script = """
import { connect, call, NaipesError } from "./naipes_grpc.mjs";
import { readFileSync } from "node:fs";
const record = JSON.parse(readFileSync("rentoy-hand.json"));
const client = connect(process.argv[1]);
const out = [(await call(client, "ValidateHand", { record }, null)).valid];  // (options null: none)
client.close();
const calls = [["ValidateHand", { record }], ["DescribeRules", { game: "rentoy" }], ["Deal", { game: "rentoy", seats: "four" }],
               ["NoSuchRpc", {}]];
for (const [rpc, request] of calls) {
  try { await call(client, rpc, request, { timeoutMs: -1 }); out.push("answered"); }
  catch (error) { out.push([error instanceof NaipesError, error.code ?? null, error.field ?? null, error.message]); }
}
console.log(JSON.stringify(out));
"""
    run = subprocess.run(["node", "--input-type=module", "-e", script, grpc_target], cwd=EXAMPLES, capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    # (closed, whatever else is wrong with the call: a bad timeout, an RPC that does not exist)
    assert json.loads(run.stdout) == [True, *[[True, "UNAVAILABLE", None, "the client is closed"]] * 4]
    with GrpcClient(grpc_target) as grpc_client:  # the Python client's words, the same
        pass
    with pytest.raises(NaipesError) as closed:
        grpc_client.deal({"game": "rentoy", "seats": "four"})
    assert (closed.value.code, closed.value.field, closed.value.message) == ("UNAVAILABLE", None, "the client is closed")
