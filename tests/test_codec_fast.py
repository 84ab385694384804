"""service.codec's descriptor-driven converter against json_format, byte for byte.

The reference is the codec as it was before the converter (kept below: ``json_format``'s
``MessageToDict`` and ``ParseDict``, and the old ``to_json`` pruning), compared with the codec's
functions over the engine's real answers for random legal playouts of the three games (Tresillo
with 3 and 4 seats, Revesino, Rentoy with 2 to 8 seats, several option sets; hands in progress,
finished and with violations), every request message built from those records, and hand-made
edge cases. Dicts must be equal *and* dump to the same JSON text (same key order, ints not
floats); messages must serialize to the same bytes and print the same JSON; errors must be of the
same class with the same text. On real engine answers the fast path must really be taken (no
fallback to json_format).

Speed (not a timed test): ValidateHand handler time per request (``to_engine``, engine,
``from_engine``, the response message), in process, one core, best of 7 x 100, for a complete
record of each game (``bench.engine_driver.random_record(game, min_actions=30)``, Rentoy 6), with
the codec of aa2083f (``git show aa2083f:service/codec.py``, loaded beside it) against this one;
the same plus REST's ``dumps(to_json(result))`` in the last column:

    ==================  ======  ==================  ===============  ===================
    game (actions)      engine  handler             codec's share    handler + REST JSON
    ==================  ======  ==================  ===============  ===================
    tresillo (34)       879 us  1853 -> 1012 us     975 -> 133 us    2316 -> 1213 us
    revesino (48)      1003 us  2138 -> 1244 us    1135 -> 241 us    2903 -> 1444 us
    rentoy (19)         299 us   684 ->  354 us     384 ->  54 us    1053 ->  485 us
    ==================  ======  ==================  ===============  ===================

The per-message floor left is protobuf's own (``ListFields``, the constructor), not Python.
"""

from __future__ import annotations

import json
import math
import random
from typing import Any

import pytest
from google.protobuf import duration_pb2, json_format, message_factory, struct_pb2
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from engine import api
from engine.errors import InvalidInput
from naipes.v1 import naipes_pb2 as pb
from service import codec
from service.errors import ServiceError

# ---- the reference: the codec before the converter ---------------------------------------------


def ref_to_engine(message: Message) -> dict[str, Any]:
    return json_format.MessageToDict(message)


def ref_from_engine(data: Any, message: Message) -> Message:
    json_format.ParseDict(data, message, ignore_unknown_fields=False)
    return message


def ref_to_json(message: Message) -> dict[str, Any]:
    data = json_format.MessageToDict(message, always_print_fields_with_no_presence=True)
    return _ref_prune(data, message.DESCRIPTOR)


def _ref_prune(data: Any, descriptor: Any) -> Any:
    if descriptor.full_name in {"google.protobuf.Struct", "google.protobuf.Value", "google.protobuf.ListValue"}:
        return _ref_integral(data)
    out: dict[str, Any] = {}
    for field in descriptor.fields:
        key = field.json_name
        if key not in data:
            continue
        value = data[key]
        repeated = codec.is_repeated(field)
        if repeated and not value and key not in codec.ALWAYS_PRINTED.get(descriptor.full_name, ()) \
                and codec.PRINTED_WITH.get(descriptor.full_name, {}).get(key) not in data:
            continue
        sub = field.message_type
        if sub is not None:
            value = [_ref_prune(v, sub) for v in value] if repeated else _ref_prune(value, sub)
        out[key] = value
    return out


def _ref_integral(value: Any) -> Any:
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {k: _ref_integral(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_ref_integral(v) for v in value]
    return value


def ref_from_json(data: Any, message: Message, where: str = "") -> Message:
    if not isinstance(data, dict):
        raise ServiceError("INVALID_FIELD", f"{where or 'the body'} must be a JSON object, not {codec.json_kind(data)}", where or "body")
    data = codec._checked_numbers(data, message.DESCRIPTOR, where)  # (the codec's checks before json_format's: "deal": [] is refused)
    try:
        json_format.ParseDict(data, message, ignore_unknown_fields=False)
    except json_format.ParseError as exc:
        raise codec.parse_error(data, str(exc), where, message.DESCRIPTOR) from None
    return message


# ---- comparisons -------------------------------------------------------------------------------


def text(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False)


def same_json(got: Any, want: Any) -> None:
    assert got == want
    assert text(got) == text(want)  # key order, 1 against 1.0, true against 1


def same_message(got: Message, want: Message, key_order: bool = True) -> None:
    """``got`` is ``want``, its JSON's keys in the same order unless ``key_order`` is false: a
    Struct built by hand, its keys put in another order than the converter's, may list them in
    another order (protobuf's map; its order varies from one process to the next)."""
    assert type(got) is type(want)
    assert got.SerializeToString(deterministic=True) == want.SerializeToString(deterministic=True)
    assert got == want
    if key_order:
        assert text(ref_to_json(got)) == text(ref_to_json(want))  # a Struct's keys in the same order


def outcome(fn: Any, *args: Any) -> tuple[str, Any]:
    """What a call gives: its value, or its exception's class and text."""
    try:
        return "ok", fn(*args)
    except ServiceError as exc:
        return "error", ("ServiceError", exc.code, exc.message, exc.field)
    except Exception as exc:
        return "error", (type(exc).__name__, str(exc))


def check_answer(data: dict[str, Any], cls: type[Message]) -> None:
    """An engine answer: into its message (fast path taken), and printed back."""
    want = ref_from_engine(data, cls())
    fast = cls()
    codec._merge(data, fast)  # raises _Doubt if the fast path would fall back
    same_message(fast, want)
    same_message(codec.from_engine(data, cls), want)
    check_wire(data, cls, want)
    same_json(codec.to_json(want), ref_to_json(want))
    same_json(codec._print(want, codec._type(want.DESCRIPTOR), True), ref_to_json(want))
    assert codec.to_json(want) == data  # the API's promise: the printed answer is the engine's dict
    check_answer_wire(want)


def check_answer_wire(message: Message) -> None:
    """``answer_from_wire``: the message's wire bytes as ``to_json`` prints the message, read by the
    compiled decoder itself (the Python gRPC client's read of every answer)."""
    data = message.SerializeToString()
    want = ref_to_json(type(message).FromString(data))  # (a Struct's keys in the order parsing gives them)
    same_json(codec.answer_from_wire(data, type(message)), want)
    if codec._wire is not None:
        same_json(codec._wire.decode(data, codec._wire_type(message.DESCRIPTOR), True), want)


def check_wire(data: dict[str, Any], cls: type[Message], want: Message) -> None:
    """``to_wire``: the message's bytes, written by the compiled encoder itself (no fallback to
    the message) unless the answer holds a ``google.protobuf.Value`` (DescribeRules')."""
    assert codec.to_wire(data, cls) == want.SerializeToString()
    if codec._wire is not None and cls is not pb.DescribeRulesResponse:
        assert codec._wire.encode(data, codec._wire_type(cls.DESCRIPTOR)) == want.SerializeToString()
        codec._wire.check(data, codec._wire_type(cls.DESCRIPTOR))  # REST prints it as it is (as_json)


def check_request(data: dict[str, Any], cls: type[Message]) -> Message:
    """A request: client JSON into its message as the old from_json, and to the engine as
    MessageToDict (fast path taken)."""
    kind, want = outcome(ref_from_json, data, cls())
    got = outcome(codec.from_json, data, cls())
    if kind == "error":
        assert got == (kind, want)
        return cls()
    same_message(got[1], want)
    same_json(codec.to_engine(want), ref_to_engine(want))
    same_json(codec._print(want, codec._type(want.DESCRIPTOR), False), ref_to_engine(want))
    same_json(codec.to_json(want), ref_to_json(want))
    check_request_wire(want)
    return want


def check_request_wire(message: Message) -> None:
    """``request_json``: the message's wire bytes as MessageToDict prints the message, read by the
    compiled decoder itself (protobuf writes the canonical form it reads)."""
    data = message.SerializeToString()
    want = ref_to_engine(type(message).FromString(data))  # (a Struct's keys in the order parsing gives them)
    same_json(codec.request_json(data, type(message)), want)
    if codec._wire is not None:
        same_json(codec._wire.decode(data, codec._wire_type(message.DESCRIPTOR)), want)
    check_answer_wire(message)  # (any message prints so: a request too)


def check_rest_body(body: Any, cls: type[Message], part: str | None = None) -> bool:
    """``request_from_json``, REST's read of a body straight into the engine's JSON, against the
    message's way (``json.loads``, ``from_json`` into ``cls`` or its field ``part``, then
    ``MessageToDict``): the same dict, or None where that way must decide (then whether the fast
    read was taken is returned). A Struct's keys keep the body's order, where the message's
    way gives them in protobuf's map order: those are compared sorted."""
    data = json.dumps(body).encode()
    got = codec.request_from_json(data, cls, part)
    if got is None:
        return False
    message = cls()
    assert outcome(ref_from_json, json.loads(data), message if part is None else getattr(message, part))[0] == "ok"
    want = ref_to_engine(message)
    assert got == want
    assert text(structs_sorted(got)) == text(structs_sorted(want))  # field order, 1 against 1.0
    return True


def structs_sorted(data: Any) -> Any:
    """``data`` with the keys of its Structs (the ``rules`` objects) sorted."""
    if isinstance(data, dict):
        return {key: (dict(sorted(value.items())) if key == "rules" and isinstance(value, dict) else structs_sorted(value))
                for key, value in data.items()}
    if isinstance(data, list):
        return [structs_sorted(item) for item in data]
    return data


# ---- real answers: random legal playouts -------------------------------------------------------

CONFIGS = [("tresillo", 3), ("tresillo", 4), ("revesino", 4), ("rentoy", 2), ("rentoy", 4), ("rentoy", 6), ("rentoy", 8)]
BAD = ["0 1o", "1 envite", "0 quiero", "9 1o", "1 x", "2 paso", "0 entrada oros", "3 12b"]


def random_rules(game: str, rng: random.Random) -> dict[str, Any]:
    rules = {}
    for option in api.describe_rules(game)["options"]:
        if rng.random() < 0.5:
            rules[option["name"]] = rng.choice(option["choices"])
    return rules


def playout(game: str, seats: int, seed: int) -> list[dict[str, Any]]:
    """Every prefix of one random legal hand (options, dealer and deal random)."""
    rng = random.Random(f"{game}-{seats}-{seed}")
    dealer = rng.randrange(seats)
    record: dict[str, Any] = {"game": game, "seats": seats, "dealer": dealer, "rules": random_rules(game, rng) if seed % 3 else {},
                              "deal": {"seed": f"codec-{seed}"}, "actions": []}
    if game == "rentoy" and rng.random() < 0.7:
        record["table"] = {"score": [rng.randrange(12), rng.randrange(12)]}
    if rng.random() < 0.5:
        record["deal"] = api.deal({"game": game, "seats": seats, "dealer": dealer, "seed": record["deal"]["seed"]})["deal"]
    try:
        api.validate(record)
    except InvalidInput:  # an option set the game refuses together: play with the defaults
        record["rules"] = {}
    prefixes = [record]
    for _ in range(300):
        result = api.validate(record)
        assert result["valid"]
        if result["finished"]:
            break
        record = dict(record, actions=[*record["actions"], rng.choice(result["next"]["legal"])])
        prefixes.append(record)
    return prefixes


def check_record(record: dict[str, Any], rng: random.Random, *, seats_views: bool) -> dict[str, Any]:
    message = check_request(record, pb.HandRecord)
    check_request({"record": record}, pb.ValidateHandRequest)
    check_request({"record": record, "seat": 0}, pb.LegalActionsRequest)
    check_request({"record": record, "id": "x"}, pb.ValidateHandsRequest)
    assert check_rest_body(record, pb.ValidateHandRequest, "record")
    assert check_rest_body(record, pb.LegalActionsRequest, "record")
    result = api.validate(codec.to_engine(message))
    check_answer(result, pb.ValidationResult)
    check_answer({"result": result}, pb.ValidateHandResponse)
    check_answer({"result": result, "id": "r1"}, pb.ValidateHandsResponse)
    if seats_views:
        for seat in (None, *range(record["seats"])):
            check_answer(api.legal_actions(record, seat), pb.LegalActionsResponse)
    else:
        check_answer(api.legal_actions(record, None), pb.LegalActionsResponse)
    return result


def resolve_requests(record: dict[str, Any], result: dict[str, Any]) -> list[dict[str, Any]]:
    requests = []
    trump = result.get("trump")
    for number, trick in enumerate(result["tricks"], 1):
        request: dict[str, Any] = {"game": record["game"], "seats": record["seats"], "leader": trick["leader"],
                                   "cards": " ".join(trick["cards"]), "rules": record.get("rules") or {}}
        if trump:
            request["contract"] = {"trump": trump}
        if record["game"] == "revesino":
            request.update(dealer=record["dealer"], number=number, fondo=0)
        elif record["seats"] == 4 and record["game"] == "tresillo":
            request["dealer"] = record["dealer"]
        requests.append(request)
    return requests


@pytest.mark.parametrize(("game", "seats"), CONFIGS)
def test_playouts(game: str, seats: int) -> None:
    finished = violations = resolved = 0
    for seed in range(4):
        rng = random.Random(seed)
        prefixes = playout(game, seats, seed)
        step = 1 if game == "rentoy" else 3
        for i, record in enumerate(prefixes):
            if i % step and record is not prefixes[-1]:
                continue
            result = check_record(record, rng, seats_views=i % (4 * step) == 0 or record is prefixes[-1])
            finished += result["finished"]
            for request in resolve_requests(record, result)[-2:]:
                check_request(request, pb.ResolveTrickRequest)
                assert check_rest_body(request, pb.ResolveTrickRequest)
                try:
                    answer = api.resolve_trick(request)
                except InvalidInput:
                    continue
                check_answer(answer, pb.ResolveTrickResponse)
                resolved += 1
        final = prefixes[-1]
        for bad in rng.sample(BAD, 3):
            cut = rng.randrange(len(final["actions"]) + 1)
            record = dict(final, actions=[*final["actions"][:cut], bad])
            violations += not check_record(record, rng, seats_views=False)["valid"]
        check_settle(game, final, api.validate(final))
    assert finished == 4 and violations >= 4 and resolved > 0


def check_settle(game: str, record: dict[str, Any], result: dict[str, Any]) -> None:
    """SettleHand of the finished hand, its request built as the service tests build it."""
    if game == "rentoy":
        summary = {"winner": result["handWinner"], "value": result["value"]}
        if "end" in result:
            summary["end"] = result["end"]
        request = {"game": "rentoy", "seats": record["seats"], "dealer": record["dealer"], "rules": record.get("rules") or {},
                   "table": record.get("table") or {"score": [0, 0]}, "rentoy": summary}
    elif game == "tresillo":
        from test_service_tresillo import settle_request as tresillo_request
        request = tresillo_request(record, result)
    else:
        from test_service_revesino import settle_request as revesino_request
        request = revesino_request(record, result)
    check_request(request, pb.SettleHandRequest)
    assert check_rest_body(request, pb.SettleHandRequest)
    check_answer(api.settle_hand(request), pb.SettleHandResponse)


def test_deals_and_rules() -> None:
    for game, seats in CONFIGS:
        for dealer in range(seats):
            request = {"game": game, "seats": seats, "dealer": dealer, "seed": f"s{dealer}"}
            check_request(request, pb.DealRequest)
            assert check_rest_body(request, pb.DealRequest)
            check_answer(api.deal(request), pb.DealResponse)
        check_request({"game": game}, pb.DescribeRulesRequest)
        check_answer(api.describe_rules(game), pb.DescribeRulesResponse)


# ---- hand-made edge cases ----------------------------------------------------------------------


DEEP: Any = 1
for _ in range(40):
    DEEP = [DEEP]
RECORD = {"game": "tresillo", "seats": 4, "dealer": 0, "deal": {"seed": "x"}, "actions": []}

EDGE_REQUESTS: list[tuple[type[Message], Any]] = [
    (pb.HandRecord, {}),
    (pb.HandRecord, {"dealer": 0, "seats": 0, "game": ""}),
    (pb.HandRecord, {"actions": []}),
    (pb.HandRecord, {"deal": {}}),
    (pb.HandRecord, {"deal": {"hands": [], "stock": ""}}),
    (pb.HandRecord, {"rules": {}}),
    (pb.HandRecord, {"rules": {"a": True, "b": False, "c": "joint", "d": 5, "e": 2.5, "f": -0.0, "g": None, "h": [1, "x", None, [True]],
                               "i": {"j": {"k": 3}}, "z": 1e300, "y": 2**60}}),
    (pb.HandRecord, {"rules": {"deep": DEEP}}),  # deeper than the converter follows
    (pb.HandRecord, {"table": {"cartulina": [{"seat": 0, "amount": 0}, {"seat": 0, "amount": 4, "partner": 0}], "plate": 0, "plateHolds": "none"}}),
    (pb.HandRecord, {"table": {"score": [0, 0], "fondo": 0}}),
    (pb.HandRecord, {"table": {"plate_holds": "none"}}),  # a proto name: json_format takes it
    (pb.HandRecord, {"seats": 4.0}),
    (pb.HandRecord, {"seats": 4.5}),
    (pb.HandRecord, {"seats": "4"}),
    (pb.HandRecord, {"seats": " 4"}),
    (pb.HandRecord, {"seats": True}),
    (pb.HandRecord, {"seats": 2**31}),
    (pb.HandRecord, {"seats": -(2**31)}),
    (pb.HandRecord, {"seats": None}),
    (pb.HandRecord, {"game": 5}),
    (pb.HandRecord, {"game": ["x"]}),
    (pb.HandRecord, {"game": "\ud800"}),
    (pb.HandRecord, {"game": "\ud83d\ude00"}),
    (pb.HandRecord, {"game": "ñandú 🂡"}),
    (pb.HandRecord, {"actions": "0 1o"}),
    (pb.HandRecord, {"actions": ("0 1o",)}),
    (pb.HandRecord, {"actions": [1]}),
    (pb.HandRecord, {"actions": [None]}),
    (pb.HandRecord, {"deal": {"hands": "1e"}}),
    (pb.HandRecord, {"deal": {"hands": ["1e", 2]}}),
    (pb.HandRecord, {"deal": []}),
    (pb.HandRecord, {"deal": None}),
    (pb.HandRecord, {"table": {"cartulina": [None]}}),
    (pb.HandRecord, {"table": {"cartulina": {"seat": 0}}}),
    (pb.HandRecord, {"table": {"cartulina": [{"seat": "0"}]}}),
    (pb.HandRecord, {"table": {"score": [1, True]}}),
    (pb.HandRecord, {"rules": []}),
    (pb.HandRecord, {"rules": "x"}),
    (pb.HandRecord, {"rules": {"a": (1, 2)}}),
    (pb.HandRecord, {"rules": {1: 2}}),
    (pb.HandRecord, {"foo": 1}),
    (pb.HandRecord, {"deal": {"foo": 1}}),
    (pb.HandRecord, {"[foo.bar]": 1}),
    (pb.HandRecord, []),
    (pb.HandRecord, "x"),
    (pb.LegalActionsRequest, {"record": RECORD, "seat": 0}),
    (pb.LegalActionsRequest, {"record": {}, "seat": -1}),
    (pb.LegalActionsRequest, {"record": None}),
    (pb.ValidateHandsRequest, {"record": RECORD, "id": ""}),
    (pb.ResolveTrickRequest, {"game": "rentoy", "contract": {}, "cards": "", "leader": 0, "napolitana": 0, "rules": {"x": 1}}),
    (pb.SettleHandRequest, {"game": "rentoy", "rentoy": {"winner": 0, "value": 0, "end": ""}, "table": {"score": []}}),
    (pb.SettleHandRequest, {"tresillo": {"annulled": False, "tricks": [0, 0, 0], "defender": 0}}),
    (pb.SettleHandRequest, {"tresillo": {"annulled": 1}}),
    (pb.SettleHandRequest, {"revesino": {"tricks": [{"leader": 0, "cards": "1o", "winner": 0, "forced": ""}], "napolitana": 0}}),
    (pb.DealRequest, {"game": "rentoy", "seats": 2, "dealer": 0, "seed": "0"}),
    (pb.DescribeRulesRequest, {"game": ""}),
    (pb.DescribeRulesRequest, {}),
]


@pytest.mark.parametrize(("cls", "data"), EDGE_REQUESTS)
def test_edge_requests(cls: type[Message], data: Any) -> None:
    check_request(data, cls)
    same_outcome(lambda d, m: codec.from_engine(d, type(m)), ref_from_engine, data, cls)
    if not isinstance(data, dict) or all(isinstance(key, str) for key in data):
        check_rest_body(data, cls)
        if cls is pb.HandRecord:
            check_rest_body(data, pb.ValidateHandRequest, "record")


# REST bodies the fast read takes (True) or leaves to the message's way (False).
REST_BODIES: list[tuple[type[Message], str | None, Any, bool]] = [
    (pb.ValidateHandRequest, "record", RECORD, True),
    (pb.ValidateHandRequest, "record", {}, True),  # the record left unset, as the message's way leaves it
    (pb.ValidateHandRequest, "record", {"seats": 0, "dealer": 0, "game": ""}, True),  # optional: kept
    (pb.ValidateHandRequest, "record", {"actions": []}, False),  # nothing set (an empty list): protobuf decides
    (pb.ValidateHandRequest, "record", {"deal": {"hands": [], "stock": ""}, "actions": []}, True),  # an empty message is set
    (pb.ValidateHandRequest, "record", {"deal": {"hands": ["", "1o"]}, "table": {"score": [0, 0], "cartulina": []}}, True),
    (pb.ValidateHandRequest, "record", {"rules": {"b": 1, "a": [2, {"c": 3}], "d": 2.5, "e": True, "f": None}}, True),  # numbers as floats
    (pb.ValidateHandRequest, "record", {"rules": {"y": 2**63 + 1}}, False),
    (pb.ValidateHandRequest, "record", {"table": {"plate_holds": "none"}}, False),  # a proto name
    (pb.ValidateHandRequest, "record", {"seats": None}, False),
    (pb.ValidateHandRequest, "record", {"seats": 4.0}, False),
    (pb.ValidateHandRequest, "record", {"seats": 2**64}, False),  # orjson reads beyond 64 bits as a float
    (pb.ValidateHandRequest, "record", {"game": "\ud800"}, False),  # orjson refuses a lone surrogate
    (pb.ValidateHandRequest, "record", [], False),
    (pb.ValidateHandRequest, "record", {"foo": 1}, False),
    (pb.ResolveTrickRequest, None, {"game": "rentoy", "cards": "1o 2o", "leader": 0, "napolitana": 0, "rules": {}}, True),
    (pb.ResolveTrickRequest, None, {"cards": "1o", "contract": {"trump": ""}}, True),
    (pb.SettleHandRequest, None, {"tresillo": {"annulled": False, "tricks": [0, 0, 0], "defender": 0}}, True),
    (pb.SettleHandRequest, None, {"revesino": {"tricks": [{"leader": 0, "cards": "1o", "winner": 0, "forced": ""}]}}, True),
    (pb.DealRequest, None, {"game": "rentoy", "seats": 2, "dealer": 0, "seed": "0"}, True),
]


@pytest.mark.parametrize(("cls", "part", "body", "taken"), REST_BODIES)
def test_rest_bodies(cls: type[Message], part: str | None, body: Any, taken: bool) -> None:
    assert check_rest_body(body, cls, part) is taken


# Lines of a REST NDJSON stream (ValidateHands) the fast read takes (True) or leaves (False).
NDJSON_LINES: list[tuple[Any, bool]] = [
    (RECORD, True),  # a bare hand record
    ({}, True),  # a bare record setting nothing: set all the same
    ({"id": "a", "record": RECORD}, True),
    ({"record": {}}, True),
    ({"id": "a"}, True),  # a message without its record: "record is required", under its id
    ({"id": "b", "batch": [{"id": "1", "record": RECORD}, {"record": {"rules": {"x": 1}}}, {}]}, True),
    ({"batch": []}, True),
    ({"id": "b", "batch": [{"record": RECORD}, {"record": {"seats": "4"}}]}, False),  # an unreadable item: its own error
    ({"record": RECORD, "batch": [{"record": RECORD}]}, True),  # both: answer_json's error, as before
    ({"game": "rentoy", "record": RECORD}, False),
    ({"batch": [{"batch": [{"record": RECORD}]}]}, True),
    ([RECORD], False),
    ("x", False),
    ({"id": 5, "record": RECORD}, False),
]


@pytest.mark.parametrize(("body", "taken"), NDJSON_LINES)
def test_ndjson_lines(body: Any, taken: bool) -> None:
    """``stream.line_json`` against the message's way (``request_of_line``, ``to_engine``)."""
    from service import stream

    line = json.dumps(body).encode()
    got = stream.line_json(line)
    assert (got is not None) is taken
    if got is not None:
        request, unreadable = stream.request_of_line(line)
        assert unreadable == {}
        want = ref_to_engine(request)
        assert got == want
        assert text(structs_sorted(got)) == text(structs_sorted(want))
        assert stream.answer_ndjson([line]) == answer_by_messages(line)


def answer_by_messages(line: bytes) -> list[bytes]:
    """``stream.answer_ndjson`` without the fast read."""
    from service import stream

    original = stream.line_json
    stream.line_json = lambda _line: None  # type: ignore[assignment]
    try:
        return stream.answer_ndjson([line])
    finally:
        stream.line_json = original  # type: ignore[assignment]


def same_outcome(fast: Any, ref: Any, data: Any, cls: type[Message]) -> None:
    """The same message, or the same error (class and text)."""
    got, want = outcome(fast, data, cls()), outcome(ref, data, cls())
    assert got[0] == want[0]
    if want[0] == "ok":
        same_message(got[1], want[1])
    else:
        assert got == want


EDGE_ANSWERS: list[tuple[type[Message], Any]] = [
    (pb.ValidationResult, {}),
    (pb.ValidationResult, {"game": "rentoy", "valid": False, "finished": False, "tricks": [], "events": []}),
    (pb.ValidationResult, {"game": "tresillo", "valid": True, "finished": True, "tricks": [], "events": [], "outcome": "sacada",
                           "condiciones": [], "table": {"plate": 0, "plateHolds": "none", "cartulina": []}}),
    (pb.ValidationResult, {"table": {"cartulina": [{"seat": 0, "amount": 4}], "score": []}, "net": [0, 0, 0, 0], "nextDealer": 0}),
    (pb.ValidationResult, {"next": {"seat": 0, "legal": []}, "violation": {"action": 0, "code": "", "message": ""}}),
    (pb.ValidationResult, {"tricks": [{"leader": 0, "cards": []}, {"leader": 0, "cards": ["1o"], "winner": 0}]}),
    (pb.ValidationResult, {"payments": [{"payee": "seat 0", "amount": 0, "reason": ""}, {"payer": "plate", "payee": "seat 0", "amount": 1,
                                                                                         "reason": "x", "trick": 0}]}),
    (pb.ValidationResult, {"napolitana": {"seat": 0, "outcome": "pending"}, "revesino": {"seat": 0, "outcome": "cut", "cutter": 0},
                           "forfeited": [{"seat": 0, "amount": 0, "reason": "", "trick": 0}], "escrow": 0, "exchanges": ["", "cambio"]}),
    (pb.ValidationResult, {"favor": False, "solera": False, "primeras": False, "primerasContra": False}),
    (pb.ValidationResult, {"turn_up": "1o"}),  # a proto name: json_format takes it
    (pb.ValidationResult, {"foo": 1}),
    (pb.ValidationResult, {"game": "x", "foo": 1}),
    (pb.ValidationResult, {"events": [{"kind": "card", "text": "t", "foo": 1}]}),
    (pb.ValidationResult, {"events": [{"kind": "card", "seat": True}]}),
    (pb.ValidationResult, {"events": [{"kind": 1}]}),
    (pb.ValidationResult, {"events": [{"seat": 1.0}]}),
    (pb.ValidationResult, {"events": [{"seat": "1"}]}),
    (pb.ValidationResult, {"events": [None]}),
    (pb.ValidationResult, {"events": ({"seat": 1},)}),
    (pb.ValidationResult, {"payments": [{"amount": 2**40}]}),
    (pb.ValidationResult, {"tricks": [{"leader": 0, "cards": "1o"}]}),
    (pb.ValidationResult, {"tricks": [{"leader": 0, "cards": ("1o",)}]}),
    (pb.ValidationResult, {"tricks": [{"leader": 0, "cards": {"1o": 1}}]}),
    (pb.ValidationResult, {"tricks": [{"leader": 0, "cards": ["1o", 1]}]}),
    (pb.ValidationResult, {"tricks": [{"leader": 0, "cards": ["1o", None]}]}),
    (pb.ValidationResult, {"tricks": [{"leader": 0, "cards": None}, {"leader": True, "cards": []}]}),
    (pb.ValidationResult, {"tricks": [{"leader": 0, "cards": [], "foo": []}]}),
    (pb.ValidationResult, {"tricks": [{"leader": 2**31, "cards": []}]}),
    (pb.ValidationResult, {"tricks": ["1o"]}),
    (pb.ValidationResult, {"valid": 1}),
    (pb.ValidationResult, {"valid": "true"}),
    (pb.ValidationResult, {"net": [1.5]}),
    (pb.ValidationResult, {"net": [1.0]}),
    (pb.ValidationResult, {"net": "1"}),
    (pb.ValidationResult, {"net": [2**31]}),
    (pb.ValidationResult, {"tricks": [None]}),
    (pb.ValidationResult, {"tricks": [{"leader": None}]}),
    (pb.ValidationResult, {"violation": None}),
    (pb.ValidationResult, {"next": {"seat": True}}),
    (pb.ValidationResult, {"game": None}),
    (pb.ValidationResult, {"game": b"x"}),
    (pb.ResolveTrickResponse, {"winnerIndex": 0, "card": "", "complete": False, "events": [], "payments": []}),
    (pb.ResolveTrickResponse, {"winnerIndex": 2**40}),
    (pb.SettleHandResponse, {"net": [], "outcome": "x", "condiciones": [], "table": {}}),
    (pb.SettleHandResponse, {"table": {"plate": 0}}),
    (pb.LegalActionsResponse, {"game": "rentoy", "valid": True, "finished": False, "seat": 0, "legal": [], "actions": [
        {"notation": "0 1o", "seat": 0, "card": "1o", "args": []}], "view": {"seat": 0, "hand": "", "handSizes": [0], "tricks": []}}),
    (pb.DescribeRulesResponse, {"game": "x", "seats": [], "options": [
        {"name": "a", "default": 5, "choices": [5, 5.5, True, "x", None, [1, 2.0], {"k": 1, "l": [None, {}]}], "rule": "", "doc": ""},
        {"name": "b", "default": None, "choices": []}, {"name": "c", "default": {}}, {"name": "d", "default": []},
        {"name": "e", "default": -0.0}, {"name": "f", "default": 2**53}]}),
    (pb.DescribeRulesResponse, {"options": [{"default": (1,)}]}),
    (pb.DescribeRulesResponse, {"options": [{"default": {1: 2}}]}),
    (pb.DescribeRulesResponse, {"options": [{"default_value": 1}]}),
    (pb.ValidateHandsResponse, {"error": {"code": "INVALID_FIELD", "field": "", "message": ""}, "id": ""}),
    (pb.ValidateHandsResponse, {"result": {}}),
]


@pytest.mark.parametrize(("cls", "data"), EDGE_ANSWERS)
def test_edge_answers(cls: type[Message], data: Any) -> None:
    kind, want = outcome(ref_from_engine, data, cls())
    got = outcome(codec.from_engine, data, cls)
    wire = outcome(codec.to_wire, data, cls)
    if kind == "error":
        assert got == wire == (kind, want)
        assert want[0] == "ParseError"  # the service answers INTERNAL for it, as before
        return
    same_message(got[1], want)
    assert wire == ("ok", want.SerializeToString())
    same_json(codec.to_json(want), ref_to_json(want))
    check_answer_wire(want)
    same_json(codec.to_engine(want), ref_to_engine(want))
    same_outcome(codec.from_json, ref_from_json, data, cls)


def test_lists_of_leaf_messages_go_to_the_constructor() -> None:
    """An engine answer's events, payments and tricks (flat messages of ints, bools and strings,
    or lists of them, each field under its own name) are not read value by value: the
    constructor reads them, and refuses what json_format refuses (the cases above) but for an int
    given for a bool and bytes given for a string, which it reads. A string given for a list of
    strings is still refused: the constructor would read it as a list of its characters."""
    leaf = codec._type(pb.Event.DESCRIPTOR)
    assert leaf.leaf and codec._type(pb.Payment.DESCRIPTOR).leaf and not leaf.lists
    trick = codec._type(pb.Trick.DESCRIPTOR)
    assert trick.leaf and trick.lists == ("cards",)  # its lists are looked at
    assert not codec._type(pb.ValidationResult.DESCRIPTOR).leaf  # seatTricks is not its name
    events = [{"kind": "card", "seat": 1, "card": "1o", "text": "seat 1 plays 1o", "action": 3}]
    tricks = [{"leader": 1, "cards": ["1o", "2o", "3o", "4o"], "winner": 1}, {"leader": 1, "cards": []}]
    kwargs = codec._kwargs({"events": events, "tricks": tricks}, codec._type(pb.ValidationResult.DESCRIPTOR), 1, True)
    assert kwargs["events"] is events and kwargs["tricks"] is tricks
    for data in ({"events": [{"kind": b"card"}]}, {"payments": [{"amount": 1, "reason": b"x"}]}):
        assert outcome(ref_from_engine, data, pb.ValidationResult())[0] == "error"
        assert outcome(codec.from_engine, data, pb.ValidationResult)[0] == "ok"
    with pytest.raises(json_format.ParseError):
        codec.from_engine({"tricks": [{"leader": 0, "cards": "1o 2o"}]}, pb.ValidationResult)


def test_printing_values_json_format_refuses() -> None:
    """An infinite or NaN number in a Value: printed, the same error as before, from json_format;
    in the engine's JSON, the number as it is (the engine refuses it as an option's value)."""
    for number in (math.inf, -math.inf, math.nan):
        message = pb.DescribeRulesResponse(options=[pb.RuleOption(name="a", default_value=struct_pb2.Value(number_value=number))])
        assert outcome(codec.to_json, message) == outcome(ref_to_json, message)
        assert outcome(codec.to_json, message)[0] == "error"
        assert outcome(ref_to_engine, message)[0] == "error"
        read = codec.to_engine(message)["options"][0]["default"]
        assert read == number or (math.isnan(read) and math.isnan(number))


def test_from_json_reads_a_number_beyond_a_double_in_a_copy() -> None:
    """An option's integer beyond a double's range, which a Struct holds as an infinite double, is
    made infinite in a copy of the client's JSON: the caller's objects keep what the client sent
    (the same dict, the same integer), whichever of the record's fields is read so."""
    huge = 10**400
    rules = {"ladder": huge}
    data = {"game": "tresillo", "seats": 4, "rules": rules, "table": {"score": [1, 2]}}
    message = codec.from_json(data, pb.HandRecord())
    assert math.isinf(message.rules["ladder"])
    assert data == {"game": "tresillo", "seats": 4, "rules": {"ladder": huge}, "table": {"score": [1, 2]}}
    assert data["rules"] is rules and rules["ladder"] is huge


def test_from_json_reads_an_integer_as_the_double_it_rounds_to() -> None:
    """A Struct holds numbers as doubles: an option's integer is read as the double nearest it,
    and as infinite from the least integer that rounds beyond the largest double, 2**1024 -
    2**970 (protobuf raised OverflowError below 2**1024, an INTERNAL error), in a list as in
    an object."""
    largest = 2**1024 - 2**971  # the largest double, an integer
    beyond = 2**1024 - 2**970
    data = {"game": "tresillo", "seats": 4,
            "rules": {"a": largest, "b": 2**1023, "c": beyond - 1, "d": beyond, "e": [-beyond, 2**1024 - 1, 3, -(2**1023)]}}
    rules = codec.from_json(data, pb.HandRecord()).rules
    assert (rules["a"], rules["b"], rules["c"]) == (float(largest), float(2**1023), float(largest))
    assert rules["d"] == math.inf
    assert list(rules["e"]) == [-math.inf, math.inf, 3.0, -float(2**1023)]


def test_rest_bodies_nested_deeper_than_the_converter_follows() -> None:
    """Lists in a Struct are followed as deep as objects: nested deeper than the converter follows
    (32), a REST body takes the message's way, which refuses what protobuf's parser does not
    follow (100 messages; a list in a Value is two)."""
    for depth in (40, 60):
        value: Any = 1
        for _ in range(depth):
            value = [value]
        body = {"game": "rentoy", "seats": 2, "cards": "1o", "rules": {"ladder": value}}
        assert codec.request_from_json(json.dumps(body).encode(), pb.ResolveTrickRequest) is None
    with pytest.raises(ServiceError) as raised:
        codec.from_json(body, pb.ResolveTrickRequest())
    assert (raised.value.code, raised.value.field) == ("INVALID_FIELD", "rules")

def test_from_json_into_a_request_part() -> None:
    """REST fills the body's field of a request, then the query parameters into the request."""
    for body in ({}, {"actions": []}, {"rules": {}}, RECORD, {"foo": 1}):
        got, want = pb.LegalActionsRequest(), pb.LegalActionsRequest()
        assert outcome(codec.from_json, body, got.record)[0] == outcome(ref_from_json, body, want.record)[0]
        same_message(got, want)
        assert got.HasField("record") == want.HasField("record")
        for params in ({"seat": 0}, {"seat": "2"}, {"seat": "x"}, {"record": {"game": "x"}}):
            a, b = pb.LegalActionsRequest(), pb.LegalActionsRequest()
            a.CopyFrom(got)
            b.CopyFrom(want)
            assert outcome(codec.from_json, params, a)[0] == outcome(ref_from_json, params, b)[0]
            same_message(a, b)


def test_every_message_type_of_the_schema() -> None:
    """Every message of naipes.v1, empty and with every field set, prints and parses alike."""
    for descriptor in pb.DESCRIPTOR.message_types_by_name.values():
        cls = message_factory.GetMessageClass(descriptor)
        empty = cls()
        same_json(codec.to_json(empty), ref_to_json(empty))
        same_json(codec.to_engine(empty), ref_to_engine(empty))
        check_answer_wire(empty)
        full = json_format.ParseDict(_fill(descriptor, 0), cls())
        same_json(codec.to_json(full), ref_to_json(full))
        check_answer_wire(full)
        same_json(codec.to_engine(full), ref_to_engine(full))
        data = ref_to_engine(full)
        same_message(codec.from_engine(data, cls), ref_from_engine(data, cls()))
        assert cls.FromString(codec.to_wire(data, cls)) == full
        same_json(codec.request_json(full.SerializeToString(), cls), ref_to_engine(cls.FromString(full.SerializeToString())))
        fast = cls()
        codec._merge(data, fast)
        # data holds full's Struct keys in full's print order, which need not be the order they
        # were set in (upb's map order depends on insertion and a per-process seed): print order is
        # compared against a message made from data, equality against full.
        same_message(fast, ref_from_engine(data, cls()))
        assert fast == full


def test_messages_of_types_the_converter_does_not_read_are_json_formats() -> None:
    """The converter reads only the schema's own kinds of message; a message of another type (a
    well-known one) goes to json_format whole, as before the converter: the message from an
    answer, and, for one whose JSON is an object (a Struct), the engine's JSON and the API's
    (integral numbers as ints)."""
    struct = struct_pb2.Struct(fields={"a": struct_pb2.Value(number_value=1), "b": struct_pb2.Value(string_value="x")})
    values = struct_pb2.ListValue(values=[struct_pb2.Value(number_value=2.0), struct_pb2.Value(bool_value=True)])
    duration = duration_pb2.Duration(seconds=5, nanos=1000)
    for message in (struct, values, duration):
        assert not codec._type(message.DESCRIPTOR).prints
        same_message(codec.from_engine(ref_to_engine(message), type(message)), message, key_order=message is not struct)
    same_json(codec.to_engine(struct), ref_to_engine(struct))
    assert codec.to_engine(struct) == {"a": 1.0, "b": "x"}
    same_json(codec.to_json(struct), ref_to_json(struct))
    printed = codec.to_json(struct)
    assert printed == {"a": 1, "b": "x"} and type(printed["a"]) is int


def test_a_batch_nested_as_deep_as_protobuf_follows_is_named() -> None:
    """A batch of batches nested deeper than protobuf's JSON parser follows (100 messages; a
    record's deal is one of them) is refused naming the batch whose items protobuf reads alone:
    the batch itself, or, one level deeper, its first item's."""
    data: dict[str, Any] = {"record": RECORD}
    for _ in range(97):
        data = {"batch": [data]}
    assert outcome(codec.from_json, data, pb.ValidateHandsRequest())[0] == "ok"
    reason = "nested deeper than protobuf's parser follows (100 messages)"
    for field in ("batch", "batch[0].batch"):
        data = {"batch": [data]}
        assert outcome(codec.from_json, data, pb.ValidateHandsRequest()) == ("error", (
            "ServiceError", "INVALID_FIELD", f"{field}: {reason}", field))

def _fill(descriptor: Any, depth: int) -> dict[str, Any]:
    """Every field set to a zero-ish value (seat 0, "", false), lists of one."""
    out: dict[str, Any] = {}
    for field in descriptor.fields:
        sub = field.message_type
        if sub is None:
            value: Any = {FieldDescriptor.CPPTYPE_BOOL: False, FieldDescriptor.CPPTYPE_STRING: ""}.get(field.cpp_type, 0)
        elif sub.full_name == "google.protobuf.Struct":
            value = {"a": 1, "b": True}
        elif sub.full_name == "google.protobuf.Value":
            value = 3
        else:
            value = _fill(sub, depth + 1) if depth < 3 else {}
        out[field.json_name] = [value] if codec.is_repeated(field) else value
    return out


# Keys protobuf's descriptors cannot look up, a lone surrogate (JSON's "\ud800", or its UTF-8
# bytes, which the standard library reads): json_format met them with a SystemError, an INTERNAL
# error; they are unknown fields, named with the surrogate escaped (an answer's JSON is UTF-8),
# and a string or a list given for a message whose first character or item is one is an object
# expected, as of any other string or list. Found by tests/test_codec_fuzz.py.
UNLOOKABLE: list[tuple[type[Message], bytes, str, str]] = [
    (pb.DealRequest, b'{"\\ud800": 1}', "\\ud800", "\\ud800: unknown field '\\ud800' of DealRequest"),
    (pb.DealRequest, b'{"seed": "x", "a\xed\xb0\x80": 1}', "a\\udc00", "a\\udc00: unknown field 'a\\udc00' of DealRequest"),
    (pb.DealRequest, b'{"dealer": "x", "\\ud800": 1}', "dealer", "dealer: expected an integer, not 'x'"),  # json_format's first
    (pb.SettleHandRequest, b'{"rentoy": "\\ud800"}', "rentoy", "rentoy: expected an object, not a string"),
    (pb.SettleHandRequest, b'{"rentoy": "\xed\xa0\x80"}', "rentoy", "rentoy: expected an object, not a string"),
    (pb.SettleHandRequest, b'{"rentoy": ["\\ud800"]}', "rentoy", "rentoy: expected an object, not a list"),
    (pb.SettleHandRequest, b'{"table": {"cartulina": [{}, {"x\\udc00": 1}]}}', "table.cartulina[1].x\\udc00",
     "table.cartulina[1].x\\udc00: unknown field 'x\\udc00' of CartulinaEntry"),
    (pb.DealRequest, b'{"\\ud800": 1, "\\ud800": 2}', "\\ud800", "\\ud800: the key is given twice in one object of the body"),
]


@pytest.mark.parametrize(("cls", "body", "field", "message"), UNLOOKABLE)
def test_keys_protobuf_cannot_look_up(cls: type[Message], body: bytes, field: str, message: str) -> None:
    from service.rest import create_app

    assert codec.request_from_json(body, cls) is None  # (orjson refuses a lone surrogate)
    with pytest.raises(ServiceError) as error:
        codec.from_json(codec.loads(body, "the body"), cls())
    assert (error.value.code, error.value.field, error.value.message) == ("INVALID_FIELD", field, message)
    path = {pb.DealRequest: "/v1/deals", pb.SettleHandRequest: "/v1/hands:settle"}[cls]
    answer = create_app().test_client().post(path, data=body, content_type="application/json")
    assert answer.status_code == 400
    assert (answer.json["code"], answer.json["field"]) == ("INVALID_FIELD", field)


def test_a_lone_surrogate_is_written_escaped() -> None:
    """The API's JSON text of a value holding a lone surrogate (a client's, quoted in an error):
    ``\\ud800``, which orjson and UTF-8 refuse to write."""
    assert codec.dumps_bytes({"a": "x\ud800"}) == b'{"a": "x\\ud800"}'
    assert json.loads(codec.dumps_bytes({"a": "x\ud800", "b": "ñ"})) == {"a": "x\ud800", "b": "ñ"}
