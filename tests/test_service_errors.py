"""Bad input over both transports: a clear error naming the field, with the same code (gRPC's
ErrorInfo reason, REST's problem "code"), and both servers keep serving afterwards."""

from __future__ import annotations

import copy
import json
import re
import socket
import threading
import time
from collections.abc import Callable, Iterator

import grpc
import pytest
import requests
from google.protobuf import json_format
from service_support import (
    ROOT,
    ROUTES,
    assert_healthy,
    assert_same_error,
    call_grpc,
    call_rest,
    grpc_failure,
    load_example,
    never_sent,
    rentoy_examples,
    rest_failure,
    rest_request,
    varint,
)

from engine import api
from naipes.v1 import naipes_pb2 as pb
from naipes.v1 import naipes_pb2_grpc
from service import codec, grpc_server, rest
from service.errors import ERRORS, MAX_REQUEST_BYTES, ServiceError
from service.grpc_server import MAX_CALLS, create_server
from service.handlers import SERVICE


def _record() -> dict:
    for path in rentoy_examples():
        record, expect = load_example(path)
        if expect["valid"] and not expect.get("finished"):
            return record
    raise AssertionError("no sample of a hand in progress")


def _changed(change: Callable[[dict], object]) -> dict:
    record = copy.deepcopy(_record())
    change(record)
    return record


def _hand(seat: int, cards: str) -> Callable[[dict], object]:
    return lambda r: r["deal"]["hands"].__setitem__(seat, cards)


# (case, rpc, request, code, field): requests any transport can carry.
CASES = [
    ("unknown card", "ValidateHand", {"record": _changed(_hand(1, "5o 7o 8b"))}, "UNKNOWN_CARD", "deal.hands[1]"),
    ("not a card", "ValidateHand", {"record": _changed(_hand(1, "5o 7o 13b"))}, "UNKNOWN_CARD", "deal.hands[1]"),
    ("duplicated card", "ValidateHand", {"record": _changed(_hand(1, "5o 7o 12c"))}, "DUPLICATE_CARD", "deal.hands[1]"),
    ("wrong hand size", "ValidateHand", {"record": _changed(_hand(1, "5o 7o"))}, "WRONG_HAND_SIZE", "deal.hands[1]"),
    ("wrong number of hands", "ValidateHand", {"record": _changed(lambda r: r["deal"]["hands"].pop())}, "WRONG_HAND_SIZE", "deal.hands"),
    ("unknown option", "ValidateHand", {"record": _changed(lambda r: r.__setitem__("rules", {"foo": 1}))}, "UNKNOWN_OPTION", "rules.foo"),
    ("bad option value", "ValidateHand", {"record": _changed(lambda r: r.__setitem__("rules", {"ladder": "1-2"}))},
     "INVALID_OPTION_VALUE", "rules.ladder"),
    ("option of the wrong type", "ValidateHand", {"record": _changed(lambda r: r.__setitem__("rules", {"playAllTricks": 1}))},
     "INVALID_OPTION_VALUE", "rules.playAllTricks"),
    # of several wrong options, the first by name, whatever order the transport keeps them in
    ("several wrong options", "ValidateHand", {"record": _changed(lambda r: r.__setitem__("rules", {"zz": 1, "ladder": "1-2", "aa": 2}))},
     "UNKNOWN_OPTION", "rules.aa"),
    ("several wrong options, a bad value first", "ValidateHand",
     {"record": _changed(lambda r: r.__setitem__("rules", {"zz": 1, "yy": 2, "playAllTricks": 1}))}, "INVALID_OPTION_VALUE", "rules.playAllTricks"),
    ("unknown game", "ValidateHand", {"record": _changed(lambda r: r.__setitem__("game", "mus"))}, "UNKNOWN_GAME", "game"),
    ("seats", "ValidateHand", {"record": _changed(lambda r: r.__setitem__("seats", 5))}, "INVALID_SEATS", "seats"),
    ("dealer out of range", "ValidateHand", {"record": _changed(lambda r: r.__setitem__("dealer", 6))}, "SEAT_OUT_OF_RANGE", "dealer"),
    ("missing deal", "ValidateHand", {"record": _changed(lambda r: r.pop("deal"))}, "MISSING_FIELD", "deal"),
    ("impossible table", "ValidateHand", {"record": _changed(lambda r: r.__setitem__("table", {"score": [13, 0]}))},
     "INVALID_TABLE", "table.score"),
    ("seed and cards", "ValidateHand", {"record": _changed(lambda r: r["deal"].__setitem__("seed", "x"))}, "INVALID_DEAL", "deal.seed"),
    ("too many actions", "ValidateHand", {"record": _changed(lambda r: r.__setitem__("actions", ["0 1o"] * 1001))},
     "PAYLOAD_TOO_LARGE", "actions"),
    ("view of no seat", "LegalActions", {"record": _record(), "seat": 9}, "SEAT_OUT_OF_RANGE", "seat"),
    ("legal: unknown card", "LegalActions", {"record": _changed(_hand(0, "1o 2o 9o"))}, "UNKNOWN_CARD", "deal.hands[0]"),
    ("trick: unknown trump", "ResolveTrick", {"game": "rentoy", "contract": {"trump": "rosas"}, "cards": "1o"},
     "INVALID_FIELD", "contract.trump"),
    ("trick: duplicated card", "ResolveTrick", {"game": "rentoy", "contract": {"trump": "oros"}, "cards": "1o 1o"},
     "DUPLICATE_CARD", "cards"),
    ("trick: leader out of range", "ResolveTrick",
     {"game": "rentoy", "seats": 2, "leader": 3, "contract": {"trump": "oros"}, "cards": "1o"}, "SEAT_OUT_OF_RANGE", "leader"),
    ("trick: a Revesino field for Rentoy", "ResolveTrick", {"game": "rentoy", "contract": {"trump": "oros"}, "cards": "1o", "fondo": 3},
     "INVALID_FIELD", "fondo"),
    ("settle: seats", "SettleHand", {"game": "rentoy", "seats": 3, "rentoy": {"winner": 0, "value": 1}}, "INVALID_SEATS", "seats"),
    ("settle: dealer out of range", "SettleHand", {"game": "rentoy", "seats": 4, "dealer": 9, "rentoy": {"winner": 0, "value": 1}},
     "SEAT_OUT_OF_RANGE", "dealer"),
    ("settle: another game's summary", "SettleHand",
     {"game": "rentoy", "seats": 4, "rentoy": {"winner": 0, "value": 1}, "tresillo": {"jugador": 1}}, "INVALID_FIELD", "tresillo"),
    ("deal: dealer out of range", "Deal", {"game": "rentoy", "seats": 4, "dealer": 4, "seed": "x"}, "SEAT_OUT_OF_RANGE", "dealer"),
    ("deal: empty seed", "Deal", {"game": "rentoy", "seats": 4, "dealer": 0, "seed": ""}, "INVALID_FIELD", "seed"),
    ("deal: unknown game", "Deal", {"game": "mus", "seats": 4, "dealer": 0, "seed": "x"}, "UNKNOWN_GAME", "game"),
    ("rules: unknown game", "DescribeRules", {"game": "chess"}, "UNKNOWN_GAME", "game"),
    # REST: an empty path segment (/v1/games//rules) and an encoded slash (/v1/games/a%2Fb/rules)
    ("rules: no game", "DescribeRules", {"game": ""}, "UNKNOWN_GAME", "game"),
    ("rules: a game holding a slash", "DescribeRules", {"game": "a/b"}, "UNKNOWN_GAME", "game"),
]


@pytest.mark.parametrize(("case", "rpc", "request_json", "code", "field"), CASES, ids=[c[0] for c in CASES])
def test_same_error_on_both_transports(case, rpc, request_json, code, field, stub, channel, http, rest_url) -> None:
    assert_same_error(stub, http, rest_url, rpc, request_json, code, field)
    assert_healthy(channel, http, rest_url)


# REST-only mistakes (a gRPC request cannot spell them): the JSON itself is wrong.
def _post(http, rest_url, path: str, body: str, content_type: str = "application/json"):
    return http.post(rest_url + path, data=body.encode(), headers={"Content-Type": content_type}, timeout=30)


REST_CASES = [
    ("malformed JSON", '{"game": "rentoy", ', "MALFORMED_JSON", None),
    ("not an object", '["rentoy"]', "INVALID_FIELD", "body"),
    ("NaN", '{"seats": NaN}', "MALFORMED_JSON", None),
    ("nested too deeply", "[" * 100_000, "MALFORMED_JSON", None),  # deeper than the parser follows
    ("objects nested too deeply", '{"game": "rentoy", "rules": ' + '{"a": ' * 5_000 + "1" + "}" * 5_001, "MALFORMED_JSON", None),
    ("seats as a word", '{"game": "rentoy", "seats": "four", "dealer": 0}', "INVALID_FIELD", "seats"),
    ("seats as a fraction", '{"game": "rentoy", "seats": 4.5, "dealer": 0}', "INVALID_FIELD", "seats"),
    ("actions not a list", '{"game": "rentoy", "seats": 4, "dealer": 0, "actions": "x"}', "INVALID_FIELD", "actions"),
    ("hands not strings", '{"game": "rentoy", "seats": 2, "dealer": 0, "deal": {"hands": [1, 2]}}', "INVALID_FIELD", "deal.hands[0]"),
    ("rules not an object", '{"game": "rentoy", "rules": 5}', "INVALID_FIELD", "rules"),
    ("unknown field", '{"game": "rentoy", "foo": 1}', "INVALID_FIELD", "foo"),
    ("unknown nested field", '{"game": "rentoy", "deal": {"cards": "1o"}}', "INVALID_FIELD", "deal.cards"),
    # a message's field given a string or a list is named itself (json_format read "deal.x", "deal.1")
    ("deal a string", '{"game": "rentoy", "deal": "x"}', "INVALID_FIELD", "deal"),
    ("deal a list", '{"game": "rentoy", "deal": [1]}', "INVALID_FIELD", "deal"),
    ("rules a list", '{"game": "rentoy", "rules": [1]}', "INVALID_FIELD", "rules"),
    ("an action not a string", '{"game": "rentoy", "actions": ["1 2c", 7]}', "INVALID_FIELD", "actions[1]"),
    ("an action null", '{"game": "rentoy", "actions": [null]}', "INVALID_FIELD", "actions[0]"),
    # A key given twice: JSON readers differ on which counts (orjson and json keep the last), so neither.
    ("a key given twice", '{"game": "rentoy", "seats": 4, "game": "tresillo"}', "INVALID_FIELD", "game"),
    ("an option given twice", '{"game": "rentoy", "rules": {"ladder": "x", "ladder": "1-3-6-9-12"}}', "INVALID_FIELD", "rules.ladder"),
    ("a key given twice in a list's object", '{"game": "tresillo", "table": {"cartulina": [{"seat": 0, "seat": 1}]}}',
     "INVALID_FIELD", "table.cartulina[0].seat"),
    ("a cartulina entry's field", '{"game": "tresillo", "table": {"cartulina": [{"seat": 0}, {"seat": [1]}]}}',
     "INVALID_FIELD", "table.cartulina[1].seat"),
    # (protobuf's words were read to the key's newline: "body: Message type ... has no field named "a")
    ("an unknown key holding a newline", '{"game": "rentoy", "a\\nb": 1}', "INVALID_FIELD", "a\nb"),
    ("an unknown key holding a quote", '{"game": "rentoy", "deal": {"x\\" at \\"y": 1}}', "INVALID_FIELD", 'deal.x" at "y'),
]


@pytest.mark.parametrize(("case", "body", "code", "field"), REST_CASES, ids=[c[0] for c in REST_CASES])
def test_bad_json_over_rest(case, body, code, field, channel, http, rest_url) -> None:
    failure = rest_failure(_post(http, rest_url, "/v1/hands:validate", body))
    assert (failure.code, failure.field) == (code, field)
    assert failure.status == 400
    if field:
        assert field in failure.message
    assert_healthy(channel, http, rest_url)


@pytest.mark.parametrize(("body", "message"), [
    ('{"game": "rentoy", ', "the body is not valid JSON: Expecting property name enclosed in double quotes: line 1 column 20 (char 19)"),
    ('{"seats": NaN}', "the body is not valid JSON: NaN is not JSON"),
    ("[" * 100_000, "the body nests arrays or objects too deeply to be read"),
], ids=["cut short", "NaN", "nested too deeply"])
def test_malformed_json_names_the_body_and_says_why(body, message, http, rest_url) -> None:
    """docs/api.md (MALFORMED_JSON): the detail says what was not read (the body; a stream's line
    says the line) and why, in the JSON reader's words."""
    failure = rest_failure(_post(http, rest_url, "/v1/hands:validate", body))
    assert (failure.status, failure.code, failure.message) == (400, "MALFORMED_JSON", message)
    answer = http.post(rest_url + "/v1/hands:validateStream", data=body.encode() + b"\n", headers={"Content-Type": "application/x-ndjson"},
                       timeout=30)
    said = [json.loads(line)["error"]["message"] for line in answer.text.splitlines()]
    assert [text.split(":")[0] for text in said] == [message.replace("the body", "the line").split(":")[0]]  # (its position counts the newline)


@pytest.mark.parametrize(("body", "field"), [
    ('{"game": "rentoy", "seats": 1e400, "dealer": 0}', "seats"),
    ('{"game": "rentoy", "seats": 4, "dealer": -1e400}', "dealer"),
    ('{"game": "rentoy", "seats": 2, "dealer": 0, "table": {"score": [0, 1e400]}}', "table.score[1]"),
], ids=["seats", "dealer", "a score"])
def test_an_integer_field_given_a_number_beyond_a_double_says_so(body, field, http, rest_url) -> None:
    """JSON readers read 1e400 as infinite: an integer field given it is out of range, and the
    detail says why rather than quoting an infinity the client did not write."""
    failure = rest_failure(_post(http, rest_url, "/v1/hands:validate", body))
    assert (failure.status, failure.code, failure.field, failure.message) == (
        400, "INVALID_FIELD", field, f"{field}: the number is beyond a double's range, so out of range")

@pytest.mark.parametrize(("body", "code", "field"), [
    ('{"game": "rentoy", "seats": 4, "dealer": 0, "rules": {"ladder": 1e400}}', "INVALID_OPTION_VALUE", "rules.ladder"),
    ('{"game": "revesino", "seats": 4, "dealer": 0, "rules": {"stake": -1e999}}', "INVALID_OPTION_VALUE", "rules.stake"),
    ('{"game": "rentoy", "seats": 4, "dealer": 0, "rules": {"zz": [1e400]}}', "UNKNOWN_OPTION", "rules.zz"),
    (f'{{"game": "rentoy", "seats": 4, "dealer": 0, "rules": {{"ladder": {2**1024 - 1}}}}}', "INVALID_OPTION_VALUE", "rules.ladder"),
], ids=["beyond a double", "below a double", "unknown, beyond a double", "an integer rounding beyond a double"])
def test_an_option_beyond_a_double_over_rest(body, code, field, channel, http, rest_url) -> None:
    """A JSON number beyond a double's range is read as infinite: the option is named, as any
    wrong option; it was a 500 (json_format cannot print it), and so was an integer below 2**1024
    that rounds beyond the largest double (protobuf's OverflowError)."""
    failure = rest_failure(_post(http, rest_url, "/v1/hands:validate", body))
    assert (failure.status, failure.code, failure.field) == (400, code, field)
    assert_healthy(channel, http, rest_url)


def test_messages_speak_json_not_python(channel, http, rest_url) -> None:
    """What a request holds is named as JSON writes it (null, true, a list), never as Python does."""
    for body, words in (("null", "must be a JSON object, not null"), ("[1, 2]", "must be a JSON object, not a list"),
                        ('{"game": "rentoy", "seats": 4, "dealer": 0, "rules": {"ladder": null}}', "cannot be null"),
                        ('{"game": "rentoy", "seats": 4, "dealer": 0, "rules": {"ladder": true}}', "cannot be true"),
                        ('{"game": "rentoy", "seats": true}', "seats: expected an integer, not true"),
                        ('{"game": "rentoy", "seats": [4]}', "seats: expected an integer, not a list"),
                        ('{"game": "rentoy", "deal": "x"}', "deal: expected an object, not a string"),
                        ('{"game": "rentoy", "actions": [null]}', "actions[0]: expected a string, not null"),
                        ('{"game": "rentoy", "seats": 4, "dealer": 0, "deal": {"hands": ["1o", null]}}', "deal.hands[1]: expected a string, not null"),
                        # a rules value as it was sent, though a Struct carries every number as a double
                        ('{"game": "revesino", "seats": 4, "dealer": 0, "rules": {"stake": 1e30}}', "stake cannot be 1e+30;"),
                        ('{"game": "revesino", "seats": 4, "dealer": 0, "rules": {"stake": [1, 2.5]}}', "stake cannot be [1, 2.5];"),
                        ('{"game": "revesino", "seats": 4, "dealer": 0, "rules": {"stake": {"a": 3}}}', 'stake cannot be {"a": 3};'),
                        ('{"game": "revesino", "seats": 4, "dealer": 0, "rules": {"stake": 11.0}}', "stake cannot be 11;"),
                        ('{"game": "rentoy", "dealer": 1e30}', "dealer: 1e+30 is out of range"),
                        # (beyond a double's range JSON readers read a number as infinite, which JSON cannot write)
                        ('{"game": "rentoy", "dealer": 1e400}', "dealer: the number is beyond a double's range, so out of range"),
                        ('{"game": "rentoy", "table": {"score": [0, -1e400]}}', "table.score[1]: the number is beyond a double's range"),
                        # (an item of a list named by its index, as any wrong item is)
                        ('{"game": "rentoy", "table": {"score": [0, 1099511627776]}}', "table.score[1]: 1099511627776 is out of range"),
                        ('{"game": "rentoy", "table": {"score": ["-3000000000", 0]}}', "table.score[0]: '-3000000000' is out of range"),
                        ('{"game": "tresillo", "seats": 4, "dealer": 0, "table": {"plate": {"a": 1}}}', "table.plate: expected an integer, not an object"),
                        # (a list of integers given one value is no list, whatever the value)
                        ('{"game": "rentoy", "table": {"score": "xy"}}', "table.score: expected a list, not 'xy'"),
                        ('{"game": "rentoy", "table": {"score": "12"}}', "table.score: expected a list, not '12'"),
                        ('{"game": "rentoy", "table": {"score": 5}}', "table.score: expected a list, not 5")):
        failure = rest_failure(_post(http, rest_url, "/v1/hands:validate", body))
        assert words in failure.message, failure.message
        assert not re.search(r"\b(None|True|False|int|float|dict)\b|\{'|got ", failure.message), failure.message
    assert_healthy(channel, http, rest_url)


def test_a_null_field_is_the_field_absent(http, rest_url) -> None:
    """docs/api.md: a field given as ``null`` is read as the field absent (protobuf's JSON mapping),
    which the OpenAPI document does not describe (tests/test_rest_contract.py reads a generated
    request so before expecting it refused); a list's item is never null."""
    record = {"game": "rentoy", "seats": 4, "dealer": 0, "deal": {"seed": "null"}}
    plain = api.validate(record)
    for field in ("table", "rules", "actions"):
        answer = _post(http, rest_url, "/v1/hands:validate", json.dumps({**record, field: None}))
        assert (answer.status_code, answer.json()) == (200, plain), field
    for field in ("game", "seats", "deal"):
        failure = rest_failure(_post(http, rest_url, "/v1/hands:validate", json.dumps({**record, field: None})))
        assert (failure.code, failure.field) == ("MISSING_FIELD", field)
    failure = rest_failure(_post(http, rest_url, "/v1/hands:validate", json.dumps({**record, "actions": [None]})))
    assert (failure.code, failure.field) == ("INVALID_FIELD", "actions[0]")


def test_an_empty_body_is_the_empty_request(http, rest_url) -> None:
    """docs/api.md (MALFORMED_JSON): an empty body is read as ``{}``, as gRPC's HTTP transcoding
    reads a request without a body: answered by what that request lacks, as an empty gRPC message is."""
    for path in ("/v1/hands:validate", "/v1/hands:legalActions", "/v1/hands:settle", "/v1/deals"):
        failure = rest_failure(_post(http, rest_url, path, ""))
        assert (failure.code, failure.field) == ("MISSING_FIELD", "game"), (path, failure)


@pytest.mark.parametrize("number", [float("inf"), float("-inf"), float("nan")], ids=["inf", "-inf", "nan"])
def test_an_option_no_json_can_hold_over_grpc(number, stub, channel, http, rest_url) -> None:
    """A Struct may carry an infinite or NaN number (a gRPC client can set one): the option is
    named, as any wrong option value; it was an INTERNAL error (json_format cannot print it)."""
    for rpc, request in (("ValidateHand", pb.ValidateHandRequest(record=pb.HandRecord(game="rentoy", seats=4, dealer=0))),
                         ("LegalActions", pb.LegalActionsRequest(record=pb.HandRecord(game="rentoy", seats=4, dealer=0)))):
        request.record.rules.fields["ladder"].number_value = number
        with pytest.raises(grpc.RpcError) as raised:
            getattr(stub, rpc)(request, timeout=10)
        failure = grpc_failure(raised.value)
        assert (failure.code, failure.field) == ("INVALID_OPTION_VALUE", "rules.ladder")
        assert raised.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert_healthy(channel, http, rest_url)


def test_wrong_query_parameter(http, rest_url) -> None:
    record = json.dumps(_record())
    for query, field in (("seat=four", "seat"), ("sit=1", "sit"), ("record.game=rentoy", "record.game"),
                         ("seat=%D9%A1", "seat"), ("seat=%EF%BC%94", "seat"), ("seat=1%0A", "seat"), ("seat=%201", "seat")):
        failure = rest_failure(_post(http, rest_url, "/v1/hands:legalActions?" + query, record))
        assert (failure.code, failure.field, failure.status) == ("INVALID_FIELD", field, 400)
    # A field the path binds is not also a query parameter (it used to override the path).
    failure = rest_failure(http.get(rest_url + "/v1/games/rentoy/rules?game=tresillo", timeout=10))
    assert (failure.code, failure.field, failure.status) == ("INVALID_FIELD", "game", 400)


def test_query_parameters_a_route_does_not_take_are_refused_saying_why(http, rest_url) -> None:
    """google.api.http: a route whose body is the whole request takes no query parameter (one
    would override the body), a field is given once, and a field the path binds is not also a
    query parameter; each refused INVALID_FIELD naming the parameter."""
    deal = json.dumps({"game": "rentoy", "seats": 4, "dealer": 0, "seed": "x"})
    record = json.dumps(_record())
    for path, body, field, detail in (
        ("/v1/deals?seed=y", deal, "seed", "unknown query parameter 'seed'"),
        ("/v1/hands:legalActions?seat=1&seat=2", record, "seat", "query parameter 'seat' given 2 times"),
        ("/v1/hands:legalActions?record.game=rentoy", record, "record.game", "unknown query parameter 'record.game'"),
    ):
        failure = rest_failure(_post(http, rest_url, path, body))
        assert (failure.code, failure.field, failure.message, failure.status) == ("INVALID_FIELD", field, detail, 400), path
    failure = rest_failure(http.get(rest_url + "/v1/games/rentoy/rules?game=tresillo", timeout=10))
    assert (failure.code, failure.field, failure.message) == ("INVALID_FIELD", "game", "query parameter 'game' is given by the path (/v1/games/rentoy/rules)")


def test_huge_chunked_payload(channel, http, rest_url) -> None:
    """A body without a Content-Length (chunked) is refused past the limit as any other; it
    used to be read up to the limit and validated, or called malformed, without a word."""
    body = (json.dumps(_record()) + " " * MAX_REQUEST_BYTES).encode()

    def chunks() -> Iterator[bytes]:  # requests sends a generator chunked
        for i in range(0, len(body), 65536):
            yield body[i:i + 65536]

    response = requests.post(rest_url + "/v1/hands:validate", data=chunks(), headers={"Content-Type": "application/json"}, timeout=30)
    failure = rest_failure(response)
    assert (failure.code, failure.status, failure.message) == ("PAYLOAD_TOO_LARGE", 413, f"the body is larger than {MAX_REQUEST_BYTES} bytes")
    small = json.dumps(_record()).encode()
    response = requests.post(rest_url + "/v1/hands:validate", data=iter([small[:100], small[100:]]),
                             headers={"Content-Type": "application/json"}, timeout=30)
    assert response.status_code == 200 and response.json()["valid"]
    assert_healthy(channel, http, rest_url)


def test_huge_payload(stub, channel, http, rest_url) -> None:
    huge = _changed(lambda r: r.__setitem__("actions", ["0 1o" * 100] * (MAX_REQUEST_BYTES // 300)))
    body = json.dumps(huge)
    assert len(body) > MAX_REQUEST_BYTES
    failure = rest_failure(_post(http, rest_url, "/v1/hands:validate", body))
    assert (failure.code, failure.status, failure.message) == ("PAYLOAD_TOO_LARGE", 413, f"the body is larger than {MAX_REQUEST_BYTES} bytes")
    size = json_format.ParseDict({"record": huge}, pb.ValidateHandRequest()).ByteSize()
    assert MAX_REQUEST_BYTES < size <= grpc_server.MESSAGE_CEILING
    with pytest.raises(grpc.RpcError) as raised:
        call_grpc(stub, "ValidateHand", {"record": huge})
    failure = grpc_failure(raised.value)
    assert (failure.code, failure.field, failure.status) == ("PAYLOAD_TOO_LARGE", None, grpc.StatusCode.RESOURCE_EXHAUSTED)
    assert f"is {size} bytes, larger than the {MAX_REQUEST_BYTES}" in failure.message
    assert_healthy(channel, http, rest_url)


def test_a_grpc_request_of_exactly_the_limit_is_answered_and_one_byte_more_is_refused(channel) -> None:
    """``MAX_REQUEST_BYTES`` is the largest request the service accepts, not the smallest it
    refuses: a ValidateHand message of exactly 1 MiB (a seeded deal, the seed padding it) is
    validated, the same message a byte longer is PAYLOAD_TOO_LARGE, its message saying both sizes.
    (test_huge_payload's message is far past the limit.)"""
    call = channel.unary_unary(f"/{SERVICE.full_name}/ValidateHand", request_serializer=None, response_deserializer=None)
    for size in (MAX_REQUEST_BYTES, MAX_REQUEST_BYTES + 1):
        request = pb.ValidateHandRequest(record=pb.HandRecord(game="rentoy", seats=4, dealer=1))
        length = size - request.ByteSize()
        while True:  # (the seed's length is in the lengths of the messages around it)
            request.record.deal.seed = "s" * length
            if request.ByteSize() <= size:
                break
            length -= 1
        assert request.ByteSize() == size
        if size == MAX_REQUEST_BYTES:
            assert pb.ValidateHandResponse.FromString(call(request.SerializeToString(), timeout=30)).result.valid
            continue
        with pytest.raises(grpc.RpcError) as raised:
            call(request.SerializeToString(), timeout=30)
        failure = grpc_failure(raised.value)
        assert (failure.code, failure.field, failure.status, failure.message) == (
            "PAYLOAD_TOO_LARGE", None, grpc.StatusCode.RESOURCE_EXHAUSTED,
            f"the request message is {size} bytes, larger than the {MAX_REQUEST_BYTES} the service accepts")


def test_a_grpc_message_past_grpcios_ceiling_is_refused_by_grpcio(stub, channel, http, rest_url) -> None:
    """Beyond ``MESSAGE_CEILING`` grpcio refuses the message before the service sees it: its own
    RESOURCE_EXHAUSTED, without the error table's details (docs/api.md), and the server goes on."""
    huge = _changed(lambda r: r.__setitem__("actions", ["0 1o" * 100] * (grpc_server.MESSAGE_CEILING // 300)))
    assert json_format.ParseDict({"record": huge}, pb.ValidateHandRequest()).ByteSize() > grpc_server.MESSAGE_CEILING
    with pytest.raises(grpc.RpcError) as raised:
        call_grpc(stub, "ValidateHand", {"record": huge})
    assert raised.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert "larger than max" in (raised.value.details() or "")
    assert grpc_failure(raised.value).code == ""  # (no ErrorInfo)
    assert_healthy(channel, http, rest_url)


def test_routes_and_media_types(http, rest_url) -> None:
    failure = rest_failure(http.get(rest_url + "/v1/nowhere", timeout=10))
    assert (failure.code, failure.status, failure.message) == ("NOT_FOUND", 404, "no route /v1/nowhere; the API is described at /v1/openapi.json")
    response = http.get(rest_url + "/v1/hands:validate", timeout=10)
    failure = rest_failure(response)
    assert (failure.code, failure.status) == ("METHOD_NOT_ALLOWED", 405)
    allowed = response.headers["Allow"]  # (in werkzeug's order, which varies from one process to the next)
    assert (sorted(allowed.split(", ")), failure.message) == (["OPTIONS", "POST"], f"GET is not allowed on /v1/hands:validate; allowed: {allowed}")
    failure = rest_failure(_post(http, rest_url, "/v1/hands:validate", "game=rentoy", "application/x-www-form-urlencoded"))
    assert (failure.code, failure.status, failure.message) == (
        "UNSUPPORTED_MEDIA_TYPE", 415, "the body must be JSON (Content-Type: application/json), not application/x-www-form-urlencoded")


@pytest.mark.parametrize("coding, decodes", [("br", "gzip, x-gzip and deflate"), ("compress", "gzip, x-gzip and deflate"),
                                              ("gzip, gzip", "one coding"), ("x-gzip, Deflate", "one coding"), ("identity, br", "gzip, x-gzip and deflate")])
@pytest.mark.parametrize("path, content_type", [("/v1/hands:validate", "application/json"), ("/v1/deals", "application/json"),
                                                ("/v1/hands:validateStream", "application/x-ndjson")])
def test_a_body_in_a_content_coding_the_service_does_not_decode_is_unsupported_not_read_as_plain(coding, decodes, path, content_type, http,
                                                                                                  rest_url) -> None:
    """The service decodes gzip (x-gzip) and deflate (tests/test_service_codings.py); a body in any
    other content coding, or coded twice, was read as if plain, its compressed bytes answered
    MALFORMED_JSON (a UTF-8 error at byte 0x8b), and a plain body so labelled validated as if the
    header were not there. It is UNSUPPORTED_MEDIA_TYPE (HTTP's 415 for a content coding it does not
    take, RFC 9110 15.5.16), saying which, whatever the body holds; ``identity`` is the body as it is."""
    import gzip

    record = json.dumps({"game": "rentoy", "seats": 4, "dealer": 0, "seed": "s"} if path == "/v1/deals" else _record()).encode()
    for body in (record, gzip.compress(record)):
        response = http.post(rest_url + path, data=body, headers={"Content-Type": content_type, "Content-Encoding": coding}, timeout=30)
        failure = rest_failure(response)
        assert (failure.code, failure.status) == ("UNSUPPORTED_MEDIA_TYPE", 415), response.text
        assert failure.message.startswith(f"the body's Content-Encoding is {coding}: the service decodes {decodes}"), failure.message
    response = http.post(rest_url + path, data=record, headers={"Content-Type": content_type, "Content-Encoding": "identity"}, timeout=30)
    assert response.status_code == 200, response.text


@pytest.mark.parametrize("change, field", [
    ({"actions": ["1 envite", "2 quiero", "1 \ud800"]}, "actions[2]"),
    ({"deal": {"hands": ["12e 7o 3b", "2c 1e 4o\udc00", "11o 6b 5e", "10c 1o 12b"], "stock": "5c"}}, "deal.hands[1]"),
    ({"rules": {"ladder": "\ud800"}}, "rules.ladder"),
    ({"rules": {"ladder": ["1-3-6-12", {"x": "a\ud800"}]}}, "rules.ladder[1].x"),
    ({"rules": {"\ud800": 1}}, "rules.\\ud800")])
def test_a_lone_surrogate_is_named_where_it_is(change, field, http, rest_url) -> None:
    """A string holding a lone surrogate (JSON's ``"\\ud800"``: no Unicode text, which protobuf
    refuses) is INVALID_FIELD naming where it is, as any other wrong value is named: a list's item
    by its index, a value or key of ``rules`` by its path. They were named by the whole list
    (``actions``) or the whole ``rules``, the latter in Python's words ("'utf-8' codec can't encode
    character ...")."""
    record = {**_record(), **change}
    failure = rest_failure(http.post(rest_url + "/v1/hands:validate", data=json.dumps(record), headers={"Content-Type": "application/json"},
                                     timeout=30))
    assert (failure.code, failure.field, failure.message) == ("INVALID_FIELD", field, f"{field}: Unpaired surrogate")


def test_an_engine_failure_is_internal_and_the_servers_live_on(monkeypatch, stub, channel, http, rest_url) -> None:
    def broken(record, events=True):
        raise RuntimeError("boom")

    monkeypatch.setattr(api, "validate", broken)
    request = {"record": _record()}
    with pytest.raises(grpc.RpcError) as raised:
        call_grpc(stub, "ValidateHand", request)
    assert raised.value.code() == grpc.StatusCode.INTERNAL
    assert grpc_failure(raised.value).code == "INTERNAL"
    assert "boom" not in (raised.value.details() or "")  # no internals leak
    failure = rest_failure(rest_request(http, rest_url, "ValidateHand", request))
    assert (failure.code, failure.status) == ("INTERNAL", 500)
    monkeypatch.undo()
    assert call_rest(http, rest_url, "ValidateHand", request)["valid"] is True
    assert_healthy(channel, http, rest_url)


def test_a_handler_failure_over_grpc_is_internal_and_logged_with_its_traceback(monkeypatch, caplog) -> None:
    """An unexpected exception in a unary gRPC handler (here ResolveTrick's, in a server of its
    own): the call is answered INTERNAL with the error table's details and none of the exception's
    words, the exception is logged by ``naipes.grpc`` with its traceback, and the server answers
    its next call."""
    def broken(request: bytes) -> bytes:
        raise ZeroDivisionError("secret-words")

    monkeypatch.setitem(grpc_server.WIRE_HANDLERS, "ResolveTrick", broken)
    server, port = create_server("127.0.0.1", 0, max_workers=2)
    server.start()
    try:
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel, caplog.at_level("ERROR", logger="naipes.grpc"):
            stub = naipes_pb2_grpc.NaipesServiceStub(channel)
            with pytest.raises(grpc.RpcError) as raised:
                call_grpc(stub, "ResolveTrick", {"game": "rentoy", "contract": {"trump": "oros"}, "cards": "1e"})
            assert raised.value.code() == grpc.StatusCode.INTERNAL and grpc_failure(raised.value).code == "INTERNAL"
            assert "secret-words" not in (raised.value.details() or "")
            (logged,) = [r for r in caplog.records if r.name == "naipes.grpc"]
            assert (logged.levelname, logged.getMessage()) == ("ERROR", "ResolveTrick failed")
            assert logged.exc_info is not None and logged.exc_info[0] is ZeroDivisionError
            assert "Traceback (most recent call last)" in caplog.text and "ZeroDivisionError: secret-words" in caplog.text
            assert call_grpc(stub, "DescribeRules", {"game": "rentoy"})["game"] == "rentoy"
    finally:
        server.stop(grace=None)


def test_a_stream_handler_failure_over_grpc_is_internal_logged_and_counted_internal(monkeypatch, caplog) -> None:
    """An unexpected exception out of the validator of a ValidateHands stream (here after its first
    answer, in a server of its own): the answers before it arrive, the call ends INTERNAL with the
    error table's details and none of the exception's words, the exception is logged by
    ``naipes.grpc`` with its traceback, the call is counted INTERNAL (not CANCELLED, not OK) and is
    no longer in progress, and the server answers its next stream."""
    from prometheus_client import REGISTRY

    from service import stream

    real = stream.validate_wire

    def broken(requests: Iterator[bytes], count: object = None) -> Iterator[bytes]:
        next(iter(requests))
        yield pb.ValidateHandsResponse(id="first").SerializeToString()
        raise ZeroDivisionError("secret-words")

    def sample(name: str, **labels: str) -> float:
        return REGISTRY.get_sample_value(name, {"transport": "grpc", **labels}) or 0.0

    codes = ("INTERNAL", "CANCELLED", "OK")
    before = [sample("naipes_requests_total", method="ValidateHands", code=code) for code in codes]
    in_progress = sample("naipes_streams_in_progress")
    record = json_format.ParseDict(_record(), pb.HandRecord())
    monkeypatch.setattr(stream, "validate_wire", broken)
    server, port = create_server("127.0.0.1", 0, max_workers=2)
    server.start()
    try:
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel, caplog.at_level("ERROR", logger="naipes.grpc"):
            stub = naipes_pb2_grpc.NaipesServiceStub(channel)
            answers = stub.ValidateHands(iter([pb.ValidateHandsRequest(id="first", record=record)] * 2), timeout=30)
            assert next(answers).id == "first"
            with pytest.raises(grpc.RpcError) as raised:
                next(answers)
            failure = grpc_failure(raised.value)
            assert (failure.status, failure.code, failure.field) == (grpc.StatusCode.INTERNAL, "INTERNAL", None)
            assert failure.message == "internal error (ZeroDivisionError); the request was not processed and the server goes on"
            (logged,) = [r for r in caplog.records if r.name == "naipes.grpc"]
            assert (logged.levelname, logged.getMessage()) == ("ERROR", "ValidateHands failed")
            assert logged.exc_info is not None and logged.exc_info[0] is ZeroDivisionError
            expected = ([before[0] + 1, *before[1:]], in_progress)
            deadline = time.monotonic() + 5  # (counted as the call ends, a moment after its client may see it end)
            while (counted := ([sample("naipes_requests_total", method="ValidateHands", code=code) for code in codes],
                               sample("naipes_streams_in_progress"))) != expected and time.monotonic() < deadline:
                time.sleep(0.02)
            assert counted == expected
            monkeypatch.setattr(stream, "validate_wire", real)
            assert [a.id for a in stub.ValidateHands(iter([pb.ValidateHandsRequest(id="next", record=record)]), timeout=30)] == ["next"]
    finally:
        server.stop(grace=None)


def test_a_handler_failure_over_rest_is_internal_and_logged_with_its_traceback(monkeypatch, caplog, http, rest_url) -> None:
    """As over gRPC: an unexpected exception in a REST handler is answered INTERNAL without the
    exception's words and logged by ``naipes.rest`` with its traceback; an error of the request
    (UNKNOWN_GAME here) is answered and not logged."""
    def broken(record, events=True):
        raise ZeroDivisionError("secret-words")

    monkeypatch.setattr(api, "validate", broken)
    with caplog.at_level("ERROR", logger="naipes.rest"):
        failure = rest_failure(rest_request(http, rest_url, "ValidateHand", {"record": _record()}))
        assert (failure.code, failure.status) == ("INTERNAL", 500) and "secret-words" not in failure.message
        assert rest_failure(http.get(rest_url + "/v1/games/chess/rules", timeout=10)).code == "UNKNOWN_GAME"
    (logged,) = [r for r in caplog.records if r.name == "naipes.rest"]
    assert (logged.levelname, logged.getMessage()) == ("ERROR", "POST /v1/hands:validate failed")
    assert logged.exc_info is not None and logged.exc_info[0] is ZeroDivisionError


def test_engine_schema_drift_is_caught(monkeypatch, stub, http, rest_url) -> None:
    """A field the engine returns but the schema lacks is an error, never silently dropped."""
    real = api.validate
    monkeypatch.setattr(api, "validate", lambda record, events=True: {**real(record, events), "newField": 1})
    request = {"record": _record()}
    with pytest.raises(grpc.RpcError) as raised:
        call_grpc(stub, "ValidateHand", request)
    assert raised.value.code() == grpc.StatusCode.INTERNAL
    assert rest_failure(rest_request(http, rest_url, "ValidateHand", request)).code == "INTERNAL"


def test_every_route_answers_errors_as_problems(http, rest_url) -> None:
    for rpc, route in ROUTES.items():
        request = {var: "nonesuch" for var in route.variables}
        if route.streaming:
            continue  # a stream answers a bad line with an error line (tests/test_service_stream.py)
        if route.body:
            response = _post(http, rest_url, route.template, "{oops") if not route.variables else None
            if response is not None:
                assert rest_failure(response).code == "MALFORMED_JSON", rpc
        else:
            assert rest_failure(rest_request(http, rest_url, rpc, request)).code in ERRORS


def test_a_late_body_is_request_timeout_under_werkzeug_too(monkeypatch, channel, http, rest_url) -> None:
    """Under werkzeug's development server (its socket is ``werkzeug.socket``) as under gunicorn
    (tests/test_service_workers.py): a body that has not come within ``BODY_SECONDS`` is
    REQUEST_TIMEOUT (408), whatever its framing and length, not the disconnected client's error of
    werkzeug's reader, and the connection closes."""
    monkeypatch.setattr(rest, "BODY_SECONDS", 1.0)
    port = int(rest_url.rsplit(":", 1)[1])
    for framing in (b"Content-Length: 1000\r\n\r\n{", b"Content-Length: 1\r\n\r\n", b"Transfer-Encoding: chunked\r\n\r\n3e8\r\n{"):
        with socket.create_connection(("127.0.0.1", port), timeout=10) as client:
            client.sendall(b"POST /v1/hands:validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n" + framing)
            start, answer = time.monotonic(), b""
            while chunk := client.recv(65536):  # (the server closes the connection after its answer)
                answer += chunk
        head, _, body = answer.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 408 "), head
        assert json.loads(body)["code"] == "REQUEST_TIMEOUT" and json.loads(body)["detail"] == "the body did not come within 1 seconds"
        assert time.monotonic() - start < 5
    assert_healthy(channel, http, rest_url)


def test_calls_beyond_the_limit_are_refused_at_once_and_the_server_goes_on() -> None:
    """A gRPC process takes a bounded number of calls at a time (``MAX_CALLS``), streams
    included: one more is refused at once with RESOURCE_EXHAUSTED rather than held with its
    request buffered (a flood of open streams cannot outgrow the process's memory); once calls
    end, it serves again. Shown with a limit of 2 (two open streams)."""
    assert 8 < MAX_CALLS <= 128  # more than a process runs at once, few enough to bound its memory
    server, port = create_server("127.0.0.1", 0, max_workers=4, max_calls=2)
    server.start()
    release = threading.Event()
    record = json_format.ParseDict(_record(), pb.HandRecord())

    def held() -> object:  # a stream whose client keeps it open after its first record
        yield pb.ValidateHandsRequest(id="held", record=record)
        release.wait(30)

    try:
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            stub = naipes_pb2_grpc.NaipesServiceStub(channel)
            streams = [stub.ValidateHands(held(), timeout=60) for _ in range(2)]
            assert [next(s).id for s in streams] == ["held"] * 2  # both calls are being served
            with pytest.raises(grpc.RpcError) as refused:
                stub.ValidateHand(pb.ValidateHandRequest(record=record), timeout=10)
            assert refused.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            release.set()
            assert all(list(s) == [] for s in streams)
            assert stub.ValidateHand(pb.ValidateHandRequest(record=record), timeout=10).result.valid
    finally:
        release.set()
        server.stop(None)


def test_calls_that_never_send_their_request_leave_the_process_serving() -> None:
    """A process has a thread for every call it takes (``MAX_CALLS``), and a call waiting for its
    request waits without the GIL: 40 calls that open and send nothing more (five times what the
    pool had when it ran four threads per core) leave the health check and ValidateHand answering
    at once. Beyond the process's call limit they are
    refused at once, the health check too, rather than left waiting (shown with a limit of 4);
    once their clients cancel them, the process serves again."""
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    record = json_format.ParseDict(_record(), pb.HandRecord())
    check = health_pb2.HealthCheckRequest()
    for limit, stalled in ((MAX_CALLS, 40), (4, 4)):
        server, port = create_server("127.0.0.1", 0, max_calls=limit)
        server.start()
        release = threading.Event()

        try:
            with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
                opened = channel.stream_unary(f"/{SERVICE.full_name}/ValidateHand", request_serializer=None, response_deserializer=None)
                calls = [opened.future(never_sent(release), timeout=60) for _ in range(stalled)]
                health = health_pb2_grpc.HealthStub(channel)
                stub = naipes_pb2_grpc.NaipesServiceStub(channel)
                time.sleep(0.5)  # (the calls have reached the server)
                start = time.monotonic()
                if stalled < limit:
                    assert health.Check(check, timeout=5).status == health_pb2.HealthCheckResponse.SERVING
                    assert stub.ValidateHand(pb.ValidateHandRequest(record=record), timeout=5).result.valid
                else:
                    with pytest.raises(grpc.RpcError) as refused:
                        health.Check(check, timeout=5)
                    assert refused.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
                assert time.monotonic() - start < 2
                assert not any(call.done() for call in calls)  # still open, waiting
                for call in calls:
                    call.cancel()
            with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
                health = health_pb2_grpc.HealthStub(channel)
                for _ in range(50):  # (the cancellations reach the server)
                    try:
                        assert health.Check(check, timeout=5).status == health_pb2.HealthCheckResponse.SERVING
                        break
                    except grpc.RpcError as exc:
                        assert exc.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
                        time.sleep(0.1)
                else:
                    pytest.fail("the cancelled calls still hold the process's call limit")
        finally:
            release.set()
            server.stop(None)


def _requests_never_sent(channel: grpc.Channel, release: threading.Event) -> list[tuple[str, Callable[[], object]]]:
    """Calls opened on ``channel`` that send no request until ``release`` (then none: their
    request streams end empty), without a deadline: the service's ValidateHand and LegalActions,
    the health check's Check and Watch. Each is (its method, the wait for its outcome)."""

    waits: list[tuple[str, Callable[[], object]]] = []
    for method in (f"/{SERVICE.full_name}/ValidateHand", f"/{SERVICE.full_name}/LegalActions", "/grpc.health.v1.Health/Check"):
        call = channel.stream_unary(method, request_serializer=None, response_deserializer=None).future(never_sent(release))
        waits.append((method, lambda call=call: call.result(timeout=10)))
    watch = channel.stream_stream("/grpc.health.v1.Health/Watch", request_serializer=None, response_deserializer=None)(never_sent(release))
    waits.append(("/grpc.health.v1.Health/Watch", lambda: list(watch)))
    return waits


def test_a_call_whose_request_does_not_come_in_time_is_ended_whatever_its_method(caplog) -> None:
    """A call whose request has not come within NAIPES_BODY_SECONDS of its opening (1 s here) is
    cancelled with DEADLINE_EXCEEDED and why, and a warning is logged, for every method whose
    request is one message: a client without a deadline cannot hold the process's place for it.
    (grpcio gives a unary call its place among the process's MAX_CALLS as it opens and waits for
    its request where the service did not see it: calls that sent nothing made the process refuse
    every call, the health check included, for as long as their clients kept them:
    tests/test_service_workers.py shows the places held, then given back.)"""
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    server, port = create_server("127.0.0.1", 0, request_seconds=1)
    server.start()
    release = threading.Event()
    record = json_format.ParseDict(_record(), pb.HandRecord())
    check = health_pb2.HealthCheckRequest()
    try:
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel, caplog.at_level("WARNING", logger="naipes.grpc"):
            waits = _requests_never_sent(channel, release)
            health = health_pb2_grpc.HealthStub(channel)
            for method, wait in waits:
                with pytest.raises(grpc.RpcError) as ended:
                    wait()
                assert ended.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED, method
                assert ended.value.details() == "the request did not come within 1 seconds: the call ended", method
            assert health.Check(check, timeout=5).status == health_pb2.HealthCheckResponse.SERVING
            assert naipes_pb2_grpc.NaipesServiceStub(channel).ValidateHand(pb.ValidateHandRequest(record=record), timeout=5).result.valid
        warned = sorted(r.getMessage() for r in caplog.records if r.name == "naipes.grpc" and r.levelname == "WARNING")
        assert [re.sub(r"ipv4:127\.0\.0\.1:\d+", "PEER", line) for line in warned] == [
            f"{name} from PEER: the request did not come within 1 seconds; the call is ended"
            for name in ("Check", "LegalActions", "ValidateHand", "Watch")], warned
    finally:
        release.set()
        server.stop(None)


def test_a_call_whose_request_does_not_come_in_time_sends_its_request_id_back() -> None:
    """docs/api.md (Request IDs): every answer, errors included, sends the call's x-request-id
    back in its initial metadata; a call ended for a request that did not come (1 s here) sent
    none, where REST's 408 for a body that did not come echoes its header. Its ID is sent before
    the cancel, and the metrics count the call under it (an ID refused: the call ends all the same)."""
    server, port = create_server("127.0.0.1", 0, request_seconds=1)
    server.start()
    release = threading.Event()
    try:
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            method = channel.stream_unary(f"/{SERVICE.full_name}/ValidateHand", request_serializer=None, response_deserializer=None)
            for given, back in (("late-1", (("x-request-id", "late-1"),)), ("bad id", ())):
                call = method.future(never_sent(release), metadata=(("x-request-id", given),))
                with pytest.raises(grpc.RpcError) as ended:
                    call.result(timeout=10)
                assert ended.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
                assert tuple(call.initial_metadata()) == back, given
    finally:
        release.set()
        server.stop(None)


def test_a_request_within_its_bound_is_answered_and_none_is_unimplemented() -> None:
    """The bound on a call's request leaves the calls it does not end as they were: a request that
    comes within it (after 0.5 s of 2) is answered; a client that ends its request stream with no
    message gets the answer grpcio gives a unary method called so, UNIMPLEMENTED, naming the method;
    and 0 is no bound (a call that has sent nothing is still open after 2.5 s)."""
    record = json_format.ParseDict(_record(), pb.HandRecord())
    request = pb.ValidateHandRequest(record=record).SerializeToString()
    release = threading.Event()

    def late() -> Iterator[bytes]:
        time.sleep(0.5)
        yield request

    for seconds in (2, 0):
        release.clear()
        server, port = create_server("127.0.0.1", 0, request_seconds=seconds)
        server.start()
        try:
            with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
                opened = channel.stream_unary(f"/{SERVICE.full_name}/ValidateHand", request_serializer=None, response_deserializer=None)
                assert pb.ValidateHandResponse.FromString(opened(late(), timeout=10)).result.valid
                with pytest.raises(grpc.RpcError) as none:
                    opened(iter(()), timeout=10)
                assert none.value.code() == grpc.StatusCode.UNIMPLEMENTED
                # (grpcio's own wording without the bound shows the method as bytes: "b'/naipes...'")
                method = f"/{SERVICE.full_name}/ValidateHand" if seconds else f"b'/{SERVICE.full_name}/ValidateHand'"
                assert none.value.details() == f'"{method}" requires exactly one request message.'
                if not seconds:
                    waiting = opened.future(never_sent(release), timeout=30)
                    time.sleep(2.5)
                    assert not waiting.done()
                    waiting.cancel()
        finally:
            release.set()
            server.stop(None)


@pytest.mark.parametrize("rpc", ["ValidateHand", "LegalActions", "ResolveTrick", "SettleHand", "Deal", "DescribeRules"])
def test_bytes_that_are_not_the_request_are_an_invalid_body(rpc, channel, http, rest_url) -> None:
    """A unary gRPC call reads its request's bytes itself (service.codec.request_json): bytes
    protobuf cannot parse are INVALID_FIELD naming the body, and the server goes on."""
    method = SERVICE.methods_by_name[rpc]
    call = channel.unary_unary(f"/{SERVICE.full_name}/{rpc}", request_serializer=None, response_deserializer=None)
    for garbage in (b"\x0a\x05ab", b"\xff" * 12, b"\x00\x01"):
        with pytest.raises(grpc.RpcError) as raised:
            call(garbage, timeout=10)
        assert raised.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        failure = grpc_failure(raised.value)
        assert (failure.code, failure.field) == ("INVALID_FIELD", "body")
        assert raised.value.details() == f"the message is not a {method.input_type.name}"
    assert_healthy(channel, http, rest_url)


def test_a_field_the_schema_lacks_is_refused_over_grpc_too(channel, http, rest_url) -> None:
    """Protobuf keeps a field it does not know (a newer client's, or one of the wrong wire type)
    aside and reads on; REST refuses an unknown key, and gRPC now does too, naming where it is
    (a record validated without a field its client thought it sent could be wrong)."""
    record = pb.HandRecord(game="rentoy", seats=4, dealer=0)
    call = channel.unary_unary(f"/{SERVICE.full_name}/ValidateHand", request_serializer=None, response_deserializer=None)
    inner = record.SerializeToString() + b"\x98\x06\x01"  # field 99, a varint
    seats_as_text = record.SerializeToString() + b"\x12\x01x"  # field 2 (seats) as a string
    for data, field, number in ((b"\x0a" + bytes([len(inner)]) + inner, "record", 99),
                                (pb.ValidateHandRequest(record=record).SerializeToString() + b"\xa0\x06\x01", "body", 100),
                                (b"\x0a" + bytes([len(seats_as_text)]) + seats_as_text, "record", 2)):
        with pytest.raises(grpc.RpcError) as raised:
            call(data, timeout=10)
        assert raised.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        failure = grpc_failure(raised.value)
        assert (failure.code, failure.field) == ("INVALID_FIELD", field)
        assert f"field number {number} is not a field of" in failure.message
    stream = channel.stream_stream(f"/{SERVICE.full_name}/ValidateHands", request_serializer=None, response_deserializer=None)
    good = pb.ValidateHandsRequest(id="ok", record=json_format.ParseDict(_record(), pb.HandRecord())).SerializeToString()
    answers = [pb.ValidateHandsResponse.FromString(a) for a in stream(iter([good + b"\xa0\x06\x01", good]), timeout=30)]
    assert answers[0].error.code == "INVALID_FIELD" and answers[1].id == "ok" and answers[1].HasField("result")
    assert_healthy(channel, http, rest_url)


def _example(name: str) -> dict:
    from examples_support import examples_dir

    return load_example(examples_dir() / name)[0]


def test_a_table_beyond_what_a_table_carries(stub, channel, http, rest_url) -> None:
    """A plate, a cartulina or a fondo of more than MAX_TANTOS is INVALID_TABLE naming it: a hand's
    figures are a few times the table's, and each must fit the schema's 32 bits (a fondo of 2**31 - 1
    was an INTERNAL error, the answer's fondo out of range). At the bound, the hand is answered."""
    from engine.record import MAX_TANTOS

    tresillo, revesino = _example("tresillo-full-01-random.json"), _example("revesino-full-01-random.json")
    over = [
        (dict(tresillo, table={"plate": 2_147_483_645, "plateHolds": "primera"}), "table.plate"),
        (dict(tresillo, table={"plate": MAX_TANTOS + 5, "plateHolds": "primera"}), "table.plate"),
        (dict(tresillo, table={"plate": MAX_TANTOS - 10, "plateHolds": "reservada",
                               "cartulina": [{"seat": 0, "amount": 5}, {"seat": 1, "amount": 10}]}), "table.cartulina[1]"),
        (dict(revesino, table={"fondo": 2**31 - 1}), "table.fondo"),
        (dict(revesino, table={"fondo": MAX_TANTOS + 1}), "table.fondo"),
    ]
    for record, field in over:
        for rpc, request in (("ValidateHand", {"record": record}), ("LegalActions", {"record": record})):
            failure = rest_failure(rest_request(http, rest_url, rpc, request))
            assert (failure.status, failure.code, failure.field) == (400, "INVALID_TABLE", field), failure.message
            assert "at most 100,000,000 tantos" in failure.message
            with pytest.raises(grpc.RpcError) as raised:
                call_grpc(stub, rpc, request)
            assert (grpc_failure(raised.value).code, grpc_failure(raised.value).field) == ("INVALID_TABLE", field)
    trick = {"game": "revesino", "seats": 4, "dealer": 0, "leader": 1, "cards": "10o 2o 3o 4o", "fondo": MAX_TANTOS + 1}
    failure = rest_failure(rest_request(http, rest_url, "ResolveTrick", trick))
    assert (failure.code, failure.field) == ("INVALID_FIELD", "fondo")
    for record in (dict(tresillo, table={"plate": MAX_TANTOS, "plateHolds": "primera"}),
                   dict(tresillo, table={"plate": MAX_TANTOS - 15, "plateHolds": "reservada", "cartulina": [{"seat": 2, "amount": 15}]}),
                   dict(revesino, table={"fondo": MAX_TANTOS})):
        result = call_rest(http, rest_url, "ValidateHand", {"record": record})
        assert result == call_grpc(stub, "ValidateHand", {"record": record}) == api.validate(record)
        assert result["valid"] and result["finished"] and result["table"] != record["table"]
    trick["fondo"] = MAX_TANTOS
    assert call_rest(http, rest_url, "ResolveTrick", trick) == api.resolve_trick(trick)
    assert_healthy(channel, http, rest_url)


# An integer given as a string (protobuf's JSON mapping allows it) is ASCII digits: Python's int(),
# which protobuf's parser calls, read '４' as 4 and '2\n' as 2.
NOT_DECIMAL = ["４", "٣", "2\n", " 2", "2 ", "1_0", "+2", "2.0", "1e1", "0x2", ""]


def _integer_bodies(text: str) -> list[tuple[str, dict, str]]:
    """(rpc, request, field) with ``text`` as an integer field at several depths."""
    rentoy, tresillo = _record(), _example("tresillo-full-01-random.json")
    return [
        ("ValidateHand", {"record": dict(rentoy, seats=text)}, "seats"),
        ("ValidateHand", {"record": dict(rentoy, dealer=text)}, "dealer"),
        ("ValidateHand", {"record": dict(rentoy, table={"score": [text, 0]})}, "table.score[0]"),
        ("LegalActions", {"record": dict(tresillo, table={"plate": 10, "plateHolds": "reservada",
                                                          "cartulina": [{"seat": 0, "amount": 5}, {"seat": text, "amount": 5}]})},
         "table.cartulina[1].seat"),
        ("ResolveTrick", {"game": "rentoy", "seats": 2, "leader": text, "contract": {"trump": "oros"}, "cards": "1o"}, "leader"),
        ("SettleHand", {"game": "rentoy", "seats": 4, "dealer": text, "rentoy": {"winner": 0, "value": 1}}, "dealer"),
    ]


@pytest.mark.parametrize("text", NOT_DECIMAL)
def test_an_integer_as_a_string_is_ascii_digits_over_rest(text, channel, http, rest_url) -> None:
    _integer_refused_over_rest(http, rest_url, text, f"expected an integer, not {text!r}")
    assert_healthy(channel, http, rest_url)


def _integer_refused_over_rest(http, rest_url: str, text: str, why: str) -> None:
    """``text`` given for every integer field of a body, at every depth, and for a query parameter
    is refused INVALID_FIELD, naming the field, saying ``why``."""
    for rpc, request, field in _integer_bodies(text):
        failure = rest_failure(rest_request(http, rest_url, rpc, request))
        assert (failure.status, failure.code, failure.field) == (400, "INVALID_FIELD", field), (rpc, failure.message)
        assert failure.message == f"{field}: {why}"
    failure = rest_failure(rest_request(http, rest_url, "LegalActions", {"record": _record(), "seat": text}))  # a query parameter
    assert (failure.code, failure.field, failure.message) == ("INVALID_FIELD", "seat", f"seat: {why}")


def test_an_integer_as_a_string_in_a_stream_line_and_the_cli(http, rest_url, tmp_path) -> None:
    from test_service_cli import naipes

    lines = [json.dumps(dict(_record(), seats=text)).encode() + b"\n" for text in NOT_DECIMAL]
    batch = {"id": "b", "batch": [{"id": "x", "record": dict(_record(), table={"score": [0, "４"]})}, {"record": _record()}]}
    lines.append(json.dumps(batch).encode() + b"\n")
    answer = http.post(rest_url + "/v1/hands:validateStream", data=b"".join(lines), headers={"Content-Type": "application/x-ndjson"}, timeout=60)
    entries = [json.loads(line) for line in answer.text.splitlines()]
    assert [e["error"] for e in entries[:-1]] == [
        {"code": "INVALID_FIELD", "field": "seats", "message": f"seats: expected an integer, not {text!r}"} for text in NOT_DECIMAL]
    assert entries[-1]["batch"][0] == {"id": "x", "error": {"code": "INVALID_FIELD", "field": "table.score[1]",
                                                            "message": "table.score[1]: expected an integer, not '４'"}}
    assert entries[-1]["batch"][1]["result"]["valid"]
    path = tmp_path / "record.json"
    path.write_text(json.dumps(dict(_record(), dealer="٣")), encoding="utf-8")
    done = naipes("validate", str(path))
    assert done.returncode == 2
    assert json.loads(done.stderr.strip().splitlines()[-1])["detail"] == "dealer: expected an integer, not '٣'"


def test_an_integer_as_a_string_of_ascii_digits_is_read(stub, http, rest_url) -> None:
    record = _record()
    expected = api.validate(record)
    for seats in (str(record["seats"]), "0" + str(record["seats"])):
        assert call_rest(http, rest_url, "ValidateHand", {"record": dict(record, seats=seats, dealer=str(record["dealer"]))}) == expected
    assert call_rest(http, rest_url, "LegalActions", {"record": record, "seat": "-0"})["valid"] is not None


LONG = "1" + "0" * 4999  # more digits than Python's int() reads (4,300): valid JSON all the same


def _long(data: dict, number: str = LONG) -> str:
    """``data``'s JSON with each string "LONG" written as the number ``number``."""
    return json.dumps(data).replace('"LONG"', number)


def _shown_long(text: str) -> str:
    return f"{text[:60]}... ({len(text):,} characters)"


def test_an_integer_of_thousands_of_digits_is_out_of_range_naming_its_field(channel, http, rest_url, tmp_path) -> None:
    """It was MALFORMED_JSON ("Exceeds the limit (4300 digits) for integer string conversion"),
    naming no field; it is answered as a 30-digit number is. In rules, an integer beyond a
    double's range is infinite, as 1e400 is (a 400-digit one was an INTERNAL error)."""
    from test_service_cli import naipes

    thirty = rest_failure(_post(http, rest_url, "/v1/hands:validate", '{"game": "rentoy", "seats": 1' + "0" * 29 + ', "dealer": 0}'))
    assert (thirty.code, thirty.field, thirty.message) == ("INVALID_FIELD", "seats", "seats: 1" + "0" * 29 + " is out of range")
    for text, field, body in (
        (LONG, "seats", _long({"game": "rentoy", "seats": "LONG", "dealer": 0})),
        ("-" + LONG, "dealer", _long({"game": "rentoy", "seats": 4, "dealer": "LONG"}, "-" + LONG)),
        (LONG, "table.score[1]", _long(dict(_record(), table={"score": [0, "LONG"]}))),
        (LONG, "table.cartulina[0].amount",
         _long({"game": "tresillo", "seats": 4, "dealer": 0, "table": {"cartulina": [{"seat": 1, "amount": "LONG"}]}})),
    ):
        failure = rest_failure(_post(http, rest_url, "/v1/hands:validate", body))
        assert (failure.status, failure.code, failure.field) == (400, "INVALID_FIELD", field), failure.message
        assert failure.message == f"{field}: {_shown_long(text)} is out of range"
    for number in (LONG, "-" + LONG, "1" + "0" * 400):
        body = _long(dict(_record(), rules={"ladder": "LONG"}), number)
        failure = rest_failure(_post(http, rest_url, "/v1/hands:validate", body))
        assert (failure.status, failure.code, failure.field) == (400, "INVALID_OPTION_VALUE", "rules.ladder"), failure.message
        assert "cannot be -Infinity" in failure.message if number.startswith("-") else "cannot be Infinity" in failure.message
    failure = rest_failure(_post(http, rest_url, "/v1/tricks:resolve",
                                 _long({"game": "rentoy", "seats": 2, "leader": "LONG", "contract": {"trump": "oros"}, "cards": "1o"})))
    assert (failure.code, failure.field) == ("INVALID_FIELD", "leader")
    lines = (_long(dict(_record(), dealer="LONG")) + "\n"
             + _long({"id": "b", "batch": [{"record": dict(_record(), seats="LONG")}, {"id": "x", "record": _record()}]}) + "\n").encode()
    answer = http.post(rest_url + "/v1/hands:validateStream", data=lines, headers={"Content-Type": "application/x-ndjson"}, timeout=60)
    entries = [json.loads(line) for line in answer.text.splitlines()]
    assert entries[0] == {"error": {"code": "INVALID_FIELD", "field": "dealer", "message": f"dealer: {_shown_long(LONG)} is out of range"}}
    assert entries[1]["batch"][0]["error"]["field"] == "seats" and entries[1]["batch"][1]["result"]["valid"]
    path = tmp_path / "record.json"
    path.write_text(_long({"game": "rentoy", "seats": "LONG", "dealer": 0}), encoding="utf-8")
    done = naipes("validate", str(path))
    assert done.returncode == 2 and json.loads(done.stderr.strip().splitlines()[-1])["field"] == "seats"
    assert_healthy(channel, http, rest_url)


def test_an_integer_given_as_a_string_of_thousands_of_digits_is_out_of_range_naming_its_field(channel, http, rest_url) -> None:
    """As the number of thousands of digits (above), in a body at every depth and in a query
    parameter: out of range, naming the field; ``int()``, which would read a shorter string,
    refuses one of more than 4,300 digits."""
    from engine.errors import shown

    _integer_refused_over_rest(http, rest_url, LONG, f"{shown(LONG)} is out of range")
    assert_healthy(channel, http, rest_url)


@pytest.mark.parametrize("value", [[4], ["4"], ["x"], ["４"], [2**40], []], ids=repr)
def test_a_list_given_for_a_single_integer_is_named_by_the_field(value, http, rest_url) -> None:
    """``"seats": [4]``: the field takes one integer, not a list, whatever the list holds (an item
    that was not a decimal integer, or out of range, was named as if the field were a list:
    ``seats[0]: expected an integer, not 'x'``)."""
    for rpc, request, field in _integer_bodies("FIELD"):
        request = json.loads(json.dumps(request).replace('"FIELD"', json.dumps(value)))
        failure = rest_failure(rest_request(http, rest_url, rpc, request))
        assert (failure.status, failure.code, failure.field) == (400, "INVALID_FIELD", field), (rpc, failure.message)
        assert failure.message == f"{field}: expected an integer, not a list"


@pytest.mark.parametrize(("items", "field", "message"), [
    ([None], "table.cartulina[0]", "table.cartulina[0]: expected an object, not null"),
    ([{"seat": 0, "amount": 5}, 7], "table.cartulina[1]", "table.cartulina[1]: expected an object, not 7"),
    ([{"seat": 0, "amount": 5}, True], "table.cartulina[1]", "table.cartulina[1]: expected an object, not true"),
], ids=["null", "a number", "true"])
def test_an_item_of_a_list_of_objects_that_is_no_object_is_named_by_its_index(items, field, message, http, rest_url) -> None:
    body = dict(_example("tresillo-full-01-random.json"), table={"plate": 10, "plateHolds": "reservada", "cartulina": items})
    failure = rest_failure(rest_request(http, rest_url, "ValidateHand", {"record": body}))
    assert (failure.status, failure.code, failure.field, failure.message) == (400, "INVALID_FIELD", field, message)


@pytest.mark.parametrize(("rpc", "request_", "field"), [
    ("Deal", ["game", "seats"], "body"),
    ("ValidateHand", {"record": ["game"]}, "body"),
    ("ValidateHand", {"record": {"game": "rentoy", "seats": 2, "dealer": 0, "deal": ["hands", "stock"]}}, "deal"),
    ("SettleHand", {"game": "rentoy", "seats": 4, "rentoy": ["winner", "value"]}, "rentoy"),
], ids=["a body", "a record", "deal", "rentoy"])
def test_a_list_of_field_names_given_for_an_object_is_refused(rpc, request_, field, http, rest_url) -> None:
    """A JSON list whose items are names of the object's fields is no object (REST's fast read of
    a body iterated it as one, a list's items as its keys)."""
    failure = rest_failure(rest_request(http, rest_url, rpc, request_)) if rpc != "Deal" else \
        rest_failure(_post(http, rest_url, "/v1/deals", json.dumps(request_)))
    assert (failure.status, failure.code, failure.field) == (400, "INVALID_FIELD", field), failure.message
    assert failure.message.endswith("not a list"), failure.message


def _deep_rules(depth: int) -> tuple[dict, object]:
    """Rules nested ``depth`` objects deep: as JSON, and as a Struct (protobuf's JSON parser
    refuses to build it)."""
    from google.protobuf import struct_pb2

    data: object = 1
    value = struct_pb2.Value(number_value=1)
    for _ in range(depth):
        data = {"a": data}
        outer = struct_pb2.Value()
        outer.struct_value.fields["a"].CopyFrom(value)
        value = outer
    rules = struct_pb2.Struct()
    rules.fields["ladder"].CopyFrom(value)
    return {"ladder": data}, rules


@pytest.mark.parametrize("depth", [40, 60, 300])
def test_rules_nested_too_deeply_are_named_on_both_transports(depth, stub, channel, http, rest_url) -> None:
    """Protobuf's binary parser refuses the whole message (it reads 100 messages deep, and a JSON
    object in a Struct is three): gRPC named the body, REST the rules; both name the rules now
    (from 33 objects deep over gRPC, 49 over REST)."""
    rules_json, rules = _deep_rules(depth)
    record = _record()
    trick = {"game": "rentoy", "seats": 2, "leader": 0, "contract": {"trump": "oros"}, "cards": "1o"}
    settle = {"game": "rentoy", "seats": 4, "rentoy": {"winner": 0, "value": 1}}
    for rpc, request, holder in (("ValidateHand", {"record": record}, "record"), ("LegalActions", {"record": record}, "record"),
                                 ("ResolveTrick", trick, None), ("SettleHand", settle, None)):
        deep = copy.deepcopy(request)
        (deep[holder] if holder else deep)["rules"] = rules_json
        failure = rest_failure(rest_request(http, rest_url, rpc, deep))
        if depth > 48:  # (REST's JSON parser follows 48 objects in a record's rules, protobuf's binary one 32)
            assert (failure.code, failure.field) == ("INVALID_FIELD", "rules"), failure.message
        else:
            assert failure.field.startswith("rules."), failure.message  # the option is read, and refused
        message = json_format.ParseDict(request, getattr(pb, SERVICE.methods_by_name[rpc].input_type.name)())
        (getattr(message, holder) if holder else message).rules.CopyFrom(rules)
        with pytest.raises(grpc.RpcError) as raised:
            getattr(stub, rpc)(message, timeout=10)
        failure = grpc_failure(raised.value)
        assert (failure.code, failure.field) == ("INVALID_FIELD", "rules"), failure.message
        assert failure.message.startswith("rules: nested deeper than protobuf's parser follows")
    good = pb.ValidateHandsRequest(id="ok", record=json_format.ParseDict(record, pb.HandRecord()))
    deep = pb.ValidateHandsRequest(id="deep", record=json_format.ParseDict(record, pb.HandRecord()))
    deep.record.rules.CopyFrom(rules)
    items = [good.SerializeToString(), deep.SerializeToString()]  # (protobuf would not copy deep into a batch)
    batch = pb.ValidateHandsRequest(id="batch").SerializeToString() + b"".join(b"\x1a" + varint(len(i)) + i for i in items)
    call = channel.stream_stream(f"/{SERVICE.full_name}/ValidateHands", request_serializer=None, response_deserializer=None)
    answers = [pb.ValidateHandsResponse.FromString(a) for a in call(iter([items[1], items[0], batch]), timeout=30)]
    assert (answers[0].error.code, answers[0].error.field) == ("INVALID_FIELD", "rules")
    assert answers[1].id == "ok" and answers[1].result.valid
    # In a batch, the deep item is its own entry's error, named within its record, under its id, and
    # the other items are answered (it was the whole message's error, batch[1].record.rules).
    assert answers[2].id == "batch" and not answers[2].HasField("error")
    assert [entry.id for entry in answers[2].batch] == ["ok", "deep"] and answers[2].batch[0].result.valid
    assert (answers[2].batch[1].error.code, answers[2].batch[1].error.field) == ("INVALID_FIELD", "rules")
    assert_healthy(channel, http, rest_url)


def test_rules_nested_too_deeply_are_found_among_fields_of_every_wire_type() -> None:
    """The gRPC reader finds the deep rules (above) by walking the refused request's fields in
    protobuf's wire format: a field it does not know, whatever its wire type (a varint, 8 or 4
    fixed bytes, whatever those bytes are), is stepped over; bytes that are not well-formed fields
    (a varint cut short at the end, a tag's or a varint field's value) are the message's fault, and
    the body is named. So is a field numbered 0, which protobuf refuses whatever its wire type."""
    _, rules = _deep_rules(40)
    message = pb.ResolveTrickRequest(game="rentoy", seats=2, cards="1o")
    message.rules.CopyFrom(rules)
    deep = message.SerializeToString()
    for unknown in (varint(99 << 3 | 0) + varint(300), varint(99 << 3 | 1) + bytes(8), varint(99 << 3 | 5) + bytes(4),
                    varint(99 << 3 | 1) + bytes(range(0x0A, 0x12)), varint(99 << 3 | 5) + bytes(range(0x0A, 0x0E)),
                    varint(99 << 3 | 2) + varint(0), varint(99 << 3 | 2) + varint(3) + b"abc"):
        with pytest.raises(ServiceError) as raised:
            codec.request_json(unknown + deep, pb.ResolveTrickRequest)
        assert (raised.value.code, raised.value.field) == ("INVALID_FIELD", "rules"), raised.value.message
    field_zero = [varint(0 << 3 | 0) + varint(1), varint(0 << 3 | 1) + bytes(8), varint(0 << 3 | 2) + varint(1) + b"x",
                  varint(0 << 3 | 5) + bytes(4)]
    for bad in [deep + b"\x80", deep + varint(99 << 3 | 0) + b"\x80", *(field + deep for field in field_zero)]:
        with pytest.raises(ServiceError) as raised:
            codec.request_json(bad, pb.ResolveTrickRequest)
        assert (raised.value.code, raised.value.field, raised.value.message) == (
            "INVALID_FIELD", "body", "the message is not a ResolveTrickRequest")


@pytest.mark.parametrize(("record", "field", "message"), [
    ({"deal": ""}, "deal", "deal: expected an object, not a string"),
    ({"deal": []}, "deal", "deal: expected an object, not a list"),
    ({"table": ""}, "table", "table: expected an object, not a string"),
    ({"table": []}, "table", "table: expected an object, not a list"),
    ({"table": {"cartulina": [""]}}, "table.cartulina[0]", "table.cartulina[0]: expected an object, not ''"),
    ({"table": {"cartulina": [{"seat": 0}, []]}}, "table.cartulina[1]", "table.cartulina[1]: expected an object, not a list"),
    ({"rules": ""}, "rules", "rules: expected an object, not ''"),
], ids=["deal ''", "deal []", "table ''", "table []", "cartulina ['']", "cartulina [{}, []]", "rules ''"])
def test_a_field_that_takes_an_object_given_an_empty_string_or_list_is_named(record, field, message, http, rest_url) -> None:
    """docs/api.md, Errors: a field that takes an object but was given a string or a list is named
    by its own name (``deal: expected an object, not a string``), an empty one too. Protobuf's JSON
    parser reads a string's characters, or a list's items, as keys: ``""`` and ``[]`` were an empty
    message, silently (a hand with ``"table": ""`` was validated as with a fresh table, a cartulina
    entry ``""`` was ``seat is required``), and ``"rules": ""`` was worded "rules: Struct must be in
    a dict which is"."""
    body = {**_record(), **record}
    failure = rest_failure(rest_request(http, rest_url, "ValidateHand", {"record": body}))
    assert (failure.code, failure.field, failure.message) == ("INVALID_FIELD", field, message)


def test_the_problem_docs_api_shows_is_the_one_rest_answers(http, rest_url) -> None:
    """docs/api.md, Errors: the ``application/problem+json`` body it shows for a fourth hand
    holding 9c is REST's answer, key for key (its violation's description, elided there, is the
    detail); its title is the error table's, which nothing else held to a text: the tests read
    each title back from the table itself."""
    text = (ROOT / "docs" / "api.md").read_text()
    shown = json.loads(text.split("## Errors", 1)[1].split("```json\n", 1)[1].split("```", 1)[0])
    hand = _record()["deal"]["hands"][3].split()
    body = _changed(_hand(3, " ".join(["9c", *hand[1:]])))
    response = rest_request(http, rest_url, "ValidateHand", {"record": body})
    assert response.status_code == 400 and response.headers["Content-Type"].startswith("application/problem+json")
    shown["fieldViolations"][0]["description"] = shown["detail"]
    assert response.json() == shown


def test_an_error_of_no_field_is_a_problem_without_field_or_field_violations(http, rest_url) -> None:
    """docs/api.md, Errors: a problem names its field in ``field`` and ``fieldViolations``; an error
    that concerns no field (MALFORMED_JSON, NOT_FOUND) has neither key, not a null field."""
    for response in (_post(http, rest_url, "/v1/hands:validate", '{"game": "rentoy", '), http.get(rest_url + "/v1/nowhere", timeout=10)):
        body = response.json()
        assert set(body) == {"type", "title", "status", "detail", "code"}, body


def test_internal_says_the_request_was_not_processed_and_names_only_the_exceptions_type(monkeypatch, stub, http, rest_url) -> None:
    """docs/api.md, Errors: INTERNAL is a fault of the service: the request was not processed and
    the server goes on. The message says so, with the exception's type and none of its words."""
    def broken(record, events=True):
        raise KeyError("secret-words")

    monkeypatch.setattr(api, "validate", broken)
    request = {"record": _record()}
    expected = "internal error (KeyError); the request was not processed and the server goes on"
    with pytest.raises(grpc.RpcError) as raised:
        call_grpc(stub, "ValidateHand", request)
    assert grpc_failure(raised.value).message == expected
    failure = rest_failure(rest_request(http, rest_url, "ValidateHand", request))
    assert (failure.code, failure.field, failure.message) == ("INTERNAL", None, expected)



def test_a_field_the_schema_lacks_is_named_in_any_message_of_the_request_over_grpc(channel) -> None:
    """docs/api.md, Errors: a gRPC message holding a field its schema lacks is INVALID_FIELD naming
    where, wherever it is: in a list's later item (the cartulina's second entry, by its index), or
    in a message past the record's others (the deal, after the table)."""
    call = channel.unary_unary(f"/{SERVICE.full_name}/ValidateHand", request_serializer=None, response_deserializer=None)
    in_entry = pb.HandRecord(game="tresillo", seats=4, dealer=0)
    in_entry.table.cartulina.add(seat=0)
    in_entry.table.cartulina.add(seat=1).MergeFromString(b"\x98\x06\x01")  # field 99, a varint
    in_deal = pb.HandRecord(game="tresillo", seats=4, dealer=0)
    in_deal.table.cartulina.add(seat=0)
    in_deal.deal.hands.append("1o")
    in_deal.deal.MergeFromString(b"\x98\x06\x01")
    for record, where in ((in_entry, "record.table.cartulina[1]"), (in_deal, "record.deal")):
        with pytest.raises(grpc.RpcError) as raised:
            call(pb.ValidateHandRequest(record=record).SerializeToString(), timeout=10)
        failure = grpc_failure(raised.value)
        assert (failure.code, failure.field) == ("INVALID_FIELD", where), failure.message
        assert f"{where}: field number 99 is not a field of" in failure.message
    with pytest.raises(grpc.RpcError) as raised:  # the request message's own: the body
        call(pb.ValidateHandRequest(record=in_deal).SerializeToString() + b"\xa0\x06\x01", timeout=10)
    failure = grpc_failure(raised.value)
    assert (failure.code, failure.field, failure.message) == ("INVALID_FIELD", "body", "the message: field number 100 is not a field of "
                                                              "ValidateHandRequest (or not of its type): this service reads no such field")


@pytest.mark.parametrize(("body", "message"), [
    ("true", "the body must be a JSON object, not true"),
    ("false", "the body must be a JSON object, not false"),
    ("5", "the body must be a JSON object, not a number"),
    ("2.5", "the body must be a JSON object, not a number"),
    ('"rentoy"', "the body must be a JSON object, not a string"),
    ("null", "the body must be a JSON object, not null"),
])
def test_a_body_that_is_not_an_object_is_said_as_json_writes_it(body, message, http, rest_url) -> None:
    """docs/api.md, Errors: a message quotes what the request held as JSON writes it (``null``,
    ``true``), a value by its kind: a body that is not a JSON object is INVALID_FIELD ``body``."""
    failure = rest_failure(_post(http, rest_url, "/v1/hands:validate", body))
    assert (failure.code, failure.field, failure.message) == ("INVALID_FIELD", "body", message)


def test_an_unknown_field_is_named_with_the_message_that_lacks_it(http, rest_url) -> None:
    """docs/api.md, Errors: an unknown key is INVALID_FIELD naming it, and the message says which
    message of the schema has no such field (by its own name, not its package's)."""
    failure = rest_failure(_post(http, rest_url, "/v1/hands:validate", '{"game": "rentoy", "deal": {"cards": "1o"}}'))
    assert (failure.code, failure.field, failure.message) == ("INVALID_FIELD", "deal.cards", "deal.cards: unknown field 'cards' of Deal")


def _revesino_settle(change: Callable[[dict], object]) -> dict:
    """SettleHand's request for a finished Revesino example (its first trick has a forced ace), changed."""
    from test_service_revesino import settle_request

    record = _example("revesino-full-21-nap.json")
    request = settle_request(record, api.validate(record))
    change(request["revesino"])
    return request


def _set_forced(cards: str) -> Callable[[dict], object]:
    return lambda summary: summary["tricks"][0].__setitem__("forced", cards)


# (case, rpc, request maker, code, field, the message's start): a card list of a trick that names a
# card the trick lacks or a card twice is refused naming that list, never read as if it did not.
CARD_LIST_CASES = [
    ("settle: a forced card the trick does not hold", "SettleHand", lambda: _revesino_settle(_set_forced("8o")),
     "INVALID_FIELD", "revesino.tricks[0].forced", "revesino.tricks[0].forced: 8o is not a card of revesino.tricks[0].cards"),
    ("settle: a forced card named twice", "SettleHand", lambda: _revesino_settle(_set_forced("1e 1e")),
     "DUPLICATE_CARD", "revesino.tricks[0].forced", "revesino.tricks[0].forced: 1e is named twice"),
    ("settle: a revoked card named twice", "SettleHand",
     lambda: _revesino_settle(lambda s: s["tricks"][0].__setitem__("revoked", "10e 10e")),
     "DUPLICATE_CARD", "revesino.tricks[0].revoked", "revesino.tricks[0].revoked: 10e is named twice"),
    ("settle: a card twice in one trick", "SettleHand", lambda: _revesino_settle(lambda s: s["tricks"][0].__setitem__("cards", "6e 10e 9e 6e")),
     "DUPLICATE_CARD", "revesino.tricks[0].cards", "revesino.tricks[0].cards: 6e is played twice: in revesino.tricks[0].cards"),
    ("settle: a card out of play twice", "SettleHand",
     lambda: _revesino_settle(lambda s: s.__setitem__("outOfPlay", " ".join([*s["outOfPlay"].split()[:3], s["outOfPlay"].split()[0]]))),
     "DUPLICATE_CARD", "revesino.outOfPlay", "revesino.outOfPlay: "),
    ("trick: a forced card named twice", "ResolveTrick",
     lambda: {"game": "revesino", "leader": 0, "cards": "12c 1c 5c 10c", "forced": "1c 1c"}, "DUPLICATE_CARD", "forced", "forced: 1c is named twice"),
    ("trick: a revoked card named twice", "ResolveTrick",
     lambda: {"game": "revesino", "leader": 0, "cards": "12c 1c 5e 10c", "revoked": "5e 5e", "rules": {"allowRevokes": True}},
     "DUPLICATE_CARD", "revoked", "revoked: 5e is named twice"),
    ("trick: a forced card the trick does not hold", "ResolveTrick",
     lambda: {"game": "revesino", "leader": 0, "cards": "12c 1c 5c 10c", "forced": "1e"}, "INVALID_FIELD", "forced", "forced: 1e is not a card"),
]


@pytest.mark.parametrize(("case", "rpc", "make", "code", "field", "start"), CARD_LIST_CASES, ids=[c[0] for c in CARD_LIST_CASES])
def test_a_trick_card_list_naming_a_card_twice_or_not_in_the_trick_is_refused_naming_it(case, rpc, make, code, field, start, stub, http,
                                                                                         rest_url) -> None:
    assert_same_error(stub, http, rest_url, rpc, make(), code, field)
    assert rest_failure(rest_request(http, rest_url, rpc, make())).message.startswith(start)


@pytest.mark.parametrize("score, field", [([-1, 3], "table.score[0]"), ([4, -2], "table.score[1]")])
def test_a_negative_rentoy_score_is_named_by_its_item(score, field, stub, http, rest_url) -> None:
    """docs/api.md: a list's wrong item is named by its index (a finished match, a team at 12, is the
    whole score's: table.score)."""
    assert_same_error(stub, http, rest_url, "ValidateHand", {"record": _changed(lambda r: r.__setitem__("table", {"score": score}))},
                      "INVALID_TABLE", field)


def test_a_wrong_hand_size_and_a_plate_without_tantos_name_their_field_in_the_message(http, rest_url) -> None:
    revesino = _example("revesino-full-21-nap.json")
    revesino["deal"]["hands"][2] = ""
    failure = rest_failure(rest_request(http, rest_url, "ValidateHand", {"record": revesino}))
    assert (failure.code, failure.field) == ("WRONG_HAND_SIZE", "deal.hands[2]")
    assert failure.message.startswith("deal.hands[2]: seat 2 ")
    tresillo = _example("tresillo-full-01-random.json")
    tresillo["table"] = {"plate": 0, "plateHolds": "primera"}
    failure = rest_failure(rest_request(http, rest_url, "ValidateHand", {"record": tresillo}))
    assert (failure.code, failure.field) == ("INVALID_TABLE", "table.plateHolds")
    assert failure.message.startswith("table.plateHolds: ")


# ---- long values, Struct fields, a field by two names, stream keys given twice ------------------

LONG_TWICE = "1e " * 3000  # 9,000 characters: the whole list was quoted in the message


@pytest.mark.parametrize(("rpc", "request_", "field"), [
    ("ResolveTrick", {"game": "rentoy", "contract": {"trump": "oros"}, "cards": LONG_TWICE}, "cards"),
    ("SettleHand", {"game": "tresillo", "seats": 4, "dealer": 0,
                    "tresillo": {"jugador": 1, "lance": "entrada", "trump": "oros", "jugadorHand": LONG_TWICE, "tricks": [1] * 9}},
     "tresillo.jugadorHand"),
], ids=["a trick's cards", "the Jugador's hand"])
def test_a_long_list_naming_a_card_twice_names_the_card_on_both_transports(rpc, request_, field, stub, channel, http, rest_url) -> None:
    """docs/api.md: a long value is quoted by its first characters; a list of cards naming one
    twice says which. It quoted the whole list, and over gRPC the error's trailers then passed
    grpcio's 16 KiB: the call failed RESOURCE_EXHAUSTED without the error's code or field."""
    assert_same_error(stub, http, rest_url, rpc, request_, "DUPLICATE_CARD", field)
    assert rest_failure(rest_request(http, rest_url, rpc, request_)).message == f"{field}: 1e is named twice"
    assert_healthy(channel, http, rest_url)


def test_an_error_of_a_long_field_is_cut_and_reaches_a_grpc_client(stub, channel, http, rest_url) -> None:
    """An option's name is the client's: 20,000 characters of it named the field whole, which over
    gRPC (the field twice in the trailers) failed the call RESOURCE_EXHAUSTED without its details.
    An error's field and message are cut (service.errors.cut), alike on both transports."""
    name = "x" * 20_000
    request_ = {"record": _changed(lambda r: r.__setitem__("rules", {name: 1}))}
    field = f"rules.{'x' * 171}... (20,006 characters)"
    assert len(field) == 200
    assert_same_error(stub, http, rest_url, "ValidateHand", request_, "UNKNOWN_OPTION", field)
    assert_healthy(channel, http, rest_url)


def test_an_error_is_cut_to_its_bytes_of_utf8() -> None:
    from service.errors import FIELD_AT_MOST, MESSAGE_AT_MOST, cut

    assert cut("rules.ladder", FIELD_AT_MOST) == "rules.ladder"
    assert cut("x" * 201, 200) == "x" * 180 + "... (201 characters)"  # (200 bytes in all, the length's 20 among them)
    assert cut("x" * 200, 200) == "x" * 200
    assert cut("ñ" * 150, 200) == "ñ" * 90 + "... (150 characters)"  # (two bytes each)
    assert cut("€" * 100, 200) == "€" * 60 + "... (100 characters)"  # (three bytes each: the 61st would pass 200)
    assert cut("ñ" * 100, 200) == "ñ" * 100
    error = ServiceError("UNKNOWN_OPTION", "m" * 5000, "rules." + "€" * 1000)
    assert len(error.message.encode()) == MESSAGE_AT_MOST and error.message.endswith("... (5,000 characters)")
    assert error.field is not None and error.field.endswith("... (1,006 characters)") and FIELD_AT_MOST - 2 <= len(error.field.encode()) <= FIELD_AT_MOST


def _len(data: bytes) -> bytes:
    return varint(len(data)) + data


def test_a_field_the_struct_types_lack_is_refused_over_grpc(channel, http, rest_url) -> None:
    """docs/api.md, Errors: a gRPC message holding a field its schema lacks is INVALID_FIELD naming
    where, within the record's ``rules`` too (a Struct of Values, whose map entries protobuf reads
    dropping such a field). They were read as if absent."""
    call = channel.unary_unary(f"/{SERVICE.full_name}/ValidateHand", request_serializer=None, response_deserializer=None)
    record = json_format.ParseDict(_record(), pb.HandRecord()).SerializeToString()
    value = b"\x1a" + _len(b"1-3-6-12")  # Value{string_value}
    unknown = b"\x98\x06\x01"  # field 99, a varint

    def request(struct: bytes) -> bytes:
        return b"\x0a" + _len(record + b"\x22" + _len(struct))  # ValidateHandRequest{record{rules}}

    def entry(value_: bytes, extra: bytes = b"") -> bytes:
        return b"\x0a" + _len(b"\x0a" + _len(b"ladder") + b"\x12" + _len(value_) + extra)

    in_list = b"\x32" + _len(b"\x0a" + _len(b"\x20\x01") + b"\x0a" + _len(b"\x20\x01" + unknown))  # list_value [true, true + 99]
    assert pb.ValidateHandResponse.FromString(call(request(entry(value)), timeout=10)).result.valid  # (the Struct well made)
    for struct, field, name in ((entry(value + unknown), "rules.ladder", "Value"), (entry(value) + unknown, "rules", "Struct"),
                                (entry(value, unknown), "rules.ladder", "a map entry of Struct"),
                                (entry(in_list), "rules.ladder[1]", "Value")):
        with pytest.raises(grpc.RpcError) as raised:
            call(request(struct), timeout=10)
        failure = grpc_failure(raised.value)
        assert (failure.code, failure.field, failure.message) == (
            "INVALID_FIELD", field, f"{field}: field number 99 is not a field of {name} (or not of its type): this service reads no such field")
    assert_healthy(channel, http, rest_url)


@pytest.mark.parametrize(("body", "field", "message"), [
    ('{"game": "rentoy", "seats": 2, "dealer": 0, "table": {"score": [0, 3e9]}}', "table.score[1]", "3000000000.0 is out of range"),
    ('{"game": "rentoy", "seats": 2, "dealer": 0, "table": {"score": [-1e30, 0]}}', "table.score[0]", "-1e+30 is out of range"),
    ('{"game": "tresillo", "table": {"plateHolds": "none", "plate_holds": "none"}}', "table.plateHolds",
     "the field is given twice in one object, as 'plateHolds' and as 'plate_holds'"),
    ('{"game": "tresillo", "seats": 4, "dealer": 0, "tresillo": {"jugador_hand": "1o", "jugadorHand": "1o"}}', "tresillo.jugadorHand",
     "the field is given twice in one object, as 'jugador_hand' and as 'jugadorHand'"),
], ids=["a float item beyond its range", "a negative one", "a field by both its names", "the other name first"])
def test_an_item_a_float_out_of_range_and_a_field_by_both_names_are_named(body, field, message, channel, http, rest_url) -> None:
    """docs/api.md: a list's wrong item is named by its index, its value as JSON writes it; a field
    given twice, by its JSON name and its proto name, as a key given twice is. They were protobuf's
    words, naming the list (``Value out of range: 3000000000``) or the object holding the field
    (``should not have multiple "_plate_holds" oneof fields``)."""
    path = "/v1/hands:settle" if '"tresillo": {' in body else "/v1/hands:validate"
    failure = rest_failure(_post(http, rest_url, path, body))
    assert (failure.status, failure.code, failure.field, failure.message) == (400, "INVALID_FIELD", field, f"{field}: {message}")
    assert_healthy(channel, http, rest_url)


def test_a_key_given_twice_in_a_streams_record_is_that_records_error(http, rest_url) -> None:
    """docs/api.md: an entry's error is the one ValidateHand gives its record, its field named within
    the record, under its message's or item's id, and the batch's other items are answered. A key
    given twice within a record was the whole line's error, named within the line, without its id
    (a key of the message's own given twice still is: which of two ids would be a guess)."""
    record = json.dumps(_record())
    twice = record.replace('"game": "rentoy"', '"game": "rentoy", "game": "rentoy"', 1)
    assert twice != record
    lines = [f'{{"id": "a", "batch": [{{"id": "a0", "record": {twice}}}, {{"id": "a1", "record": {record}}}]}}',
             f'{{"id": "b", "record": {twice}}}',
             f'{{"id": "c", "id": "c", "record": {record}}}',
             f'{{"id": "d", "batch": [{{"id": "d0", "id": "d0", "record": {record}}}, {{"id": "d1", "record": {record}}}]}}',
             twice]
    answer = _post(http, rest_url, "/v1/hands:validateStream", "\n".join(lines) + "\n", "application/x-ndjson")
    entries = [json.loads(line) for line in answer.text.splitlines()]
    said = "game: the key is given twice in one object of the line"
    assert entries[0]["id"] == "a" and entries[0]["batch"][0] == {
        "id": "a0", "error": {"code": "INVALID_FIELD", "field": "game", "message": said}}
    assert entries[0]["batch"][1]["id"] == "a1" and entries[0]["batch"][1]["result"]["valid"]
    assert entries[1] == {"id": "b", "error": {"code": "INVALID_FIELD", "field": "game", "message": said}}
    assert entries[2] == {"error": {"code": "INVALID_FIELD", "field": "id", "message": "id: the key is given twice in one object of the line"}}
    assert entries[3]["id"] == "d" and entries[3]["batch"][0] == {
        "error": {"code": "INVALID_FIELD", "field": "batch[0].id", "message": "batch[0].id: the key is given twice in one object of the line"}}
    assert entries[3]["batch"][1]["result"]["valid"]
    assert entries[4] == {"error": {"code": "INVALID_FIELD", "field": "game", "message": said}}


def test_a_grpc_stream_message_holding_a_field_its_schema_lacks_is_answered_as_rest_answers_its_line(channel, http, rest_url) -> None:
    """docs/api.md: an entry's error carries its message's or item's id, and a batch's other items
    are answered, over both transports: a gRPC message holding an unknown field (in itself, or in
    an item of its batch) was answered by one error without the id, and its batch's good items
    not at all, where REST answers the same line under its id, item by item. A batch large enough
    to go to the pool in parts too."""
    from service.stream import PART_BYTES

    stream = channel.stream_stream(f"/{SERVICE.full_name}/ValidateHands", request_serializer=None, response_deserializer=None)
    record = json_format.ParseDict(_record(), pb.HandRecord())
    unknown = b"\x98\x06\x01"  # field 99, a varint

    def item(ident: str, extra: bytes = b"") -> bytes:
        data = pb.ValidateHandsRequest(id=ident, record=record).SerializeToString() + extra
        return b"\x1a" + varint(len(data)) + data

    one = pb.ValidateHandsRequest(id="m1", record=record).SerializeToString() + unknown
    small = pb.ValidateHandsRequest(id="m2").SerializeToString() + item("m2.0", unknown) + item("m2.1")
    count = PART_BYTES // len(item("x")) * 3  # (three parts or so)
    large = pb.ValidateHandsRequest(id="m3").SerializeToString() + b"".join(
        item(f"m3.{i}", unknown if i == count - 2 else b"") for i in range(count))
    own = pb.ValidateHandsRequest(id="m4").SerializeToString() + unknown + item("m4.0")  # the message's own field: its error
    answers = [pb.ValidateHandsResponse.FromString(a) for a in stream(iter([one, small, large, own]), timeout=60)]
    said = "field number 99 is not a field of ValidateHandsRequest (or not of its type): this service reads no such field"
    assert (answers[0].id, answers[0].error.code, answers[0].error.field) == ("m1", "INVALID_FIELD", "body")
    assert answers[1].id == "m2" and [entry.id for entry in answers[1].batch] == ["m2.0", "m2.1"]
    assert (answers[1].batch[0].error.field, answers[1].batch[0].error.message) == ("batch[0]", f"batch[0]: {said}")
    assert answers[1].batch[1].result.valid
    assert answers[2].id == "m3" and [entry.id for entry in answers[2].batch] == [f"m3.{i}" for i in range(count)]
    bad = answers[2].batch[count - 2]
    assert (bad.error.code, bad.error.field) == ("INVALID_FIELD", f"batch[{count - 2}]")
    assert all(entry.result.valid for i, entry in enumerate(answers[2].batch) if i != count - 2)
    assert (answers[3].id, answers[3].error.field, len(answers[3].batch)) == ("m4", "body", 0)
    assert_healthy(channel, http, rest_url)


def test_a_stream_line_that_is_no_object_and_a_flag_given_a_string_say_what_they_hold(http, rest_url) -> None:
    """docs/api.md: a message says what the request held, as JSON writes it, and what it read: a
    line that is no JSON object was called "the body", and omitEvents given "true" was protobuf's
    "Expected true or false without quotes", the value unsaid."""
    record = json.dumps(_record())
    lines = ["[1, 2]", '"text"', f'{{"id": "x", "omitEvents": "true", "record": {record}}}', f'{{"id": "y", "omitEvents": 1, "record": {record}}}']
    answer = _post(http, rest_url, "/v1/hands:validateStream", "\n".join(lines) + "\n", "application/x-ndjson")
    assert [json.loads(line) for line in answer.text.splitlines()] == [
        {"error": {"code": "INVALID_FIELD", "field": "body", "message": "the line must be a JSON object, not a list"}},
        {"error": {"code": "INVALID_FIELD", "field": "body", "message": "the line must be a JSON object, not a string"}},
        {"id": "x", "error": {"code": "INVALID_FIELD", "field": "omitEvents", "message": "omitEvents: expected true or false, not 'true'"}},
        {"id": "y", "error": {"code": "INVALID_FIELD", "field": "omitEvents", "message": "omitEvents: expected true or false, not 1"}}]
