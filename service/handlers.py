"""One handler per RPC: request message -> engine -> answer (STYLE.md, habit 10).

A unary RPC's answer is first the engine's JSON, in the form of the response message's JSON,
from the request message's JSON (``ANSWERS``); its handler (``HANDLERS``) takes and builds
messages, which the CLI calls. gRPC's (``WIRE_HANDLERS``) reads the request's wire bytes and
writes the response's instead. REST prints the engine's JSON as it is: the codec's tests hold,
for every RPC, that the message built from an answer prints back as that same JSON
(tests/test_codec_fast.py), so REST skips building a message only to print it. A handler raises the engine's
``InvalidInput`` for bad input; the transport turns it into its error form through
``service.errors``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from google.protobuf import message_factory
from google.protobuf.message import Message

from engine import api
from engine.record import WIRE
from naipes.v1 import naipes_pb2 as pb
from service.codec import from_engine, request_json, to_engine, to_wire

SERVICE = pb.DESCRIPTOR.services_by_name["NaipesService"]


def _validate_hand(request: dict[str, Any], events: bool | str = True) -> dict[str, Any]:
    return {"result": api.validate(request.get("record", {}), events=False if request.get("omitEvents") else events)}


# The engine's answer to each unary RPC, as the JSON of its response message, from the JSON of
# its request message (``to_engine``'s: ``json_format.MessageToDict``'s, the set fields only), by
# the method's name in the service descriptor.
ANSWERS: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
    "ValidateHand": _validate_hand,
    "LegalActions": lambda request: api.legal_actions(request.get("record", {}), request.get("seat")),
    "ResolveTrick": lambda request: api.resolve_trick(request),
    "SettleHand": lambda request: api.settle_hand(request),
    "Deal": lambda request: api.deal(request),
    "DescribeRules": lambda request: api.describe_rules(request.get("game", "")),
}


# The answers the gRPC handlers write with the codec (``to_wire``), where they differ from
# ``ANSWERS``: ValidateHand's shared events as the encoder takes them (``engine.record.WIRE``).
WIRE_ANSWERS: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
    **ANSWERS, "ValidateHand": lambda request: _validate_hand(request, WIRE)}


def _classes(name: str) -> tuple[type[Message], type[Message]]:
    method = SERVICE.methods_by_name[name]
    return message_factory.GetMessageClass(method.input_type), message_factory.GetMessageClass(method.output_type)


def _handler(name: str) -> Callable[[Any], Any]:
    """The RPC's handler: its answer as a response message."""
    answer = ANSWERS[name]
    _, response_class = _classes(name)

    def handler(request: Any) -> Any:
        return from_engine(answer(to_engine(request)), response_class)

    handler.__name__ = name
    return handler


def wire_handler(name: str) -> Callable[[bytes], bytes]:
    """The RPC's handler as gRPC calls it, wire bytes in and out: the request read and the
    answer written by the codec straight from and to the engine's JSON (``request_json``,
    ``to_wire``: what parsing the message, printing it, building the response and serializing it
    would give, without the messages). Bytes that are not the request are ``INVALID_FIELD``."""
    answer = WIRE_ANSWERS[name]
    request_class, response_class = _classes(name)

    def handler(request: bytes) -> bytes:
        return to_wire(answer(request_json(request, request_class)), response_class)

    handler.__name__ = name
    return handler


validate_hand = _handler("ValidateHand")
legal_actions = _handler("LegalActions")
resolve_trick = _handler("ResolveTrick")
settle_hand = _handler("SettleHand")
deal = _handler("Deal")
describe_rules = _handler("DescribeRules")


def validate_hands(requests: Iterable[pb.ValidateHandsRequest]) -> Iterator[pb.ValidateHandsResponse]:
    """A stream of records, validated on the pool of worker processes, answered in order. The
    transports call ``service.stream`` with wire bytes instead (the server process only moves
    bytes); this is the same stream in messages."""
    from service import stream

    for data in stream.validate_wire(r.SerializeToString() for r in requests):
        yield pb.ValidateHandsResponse.FromString(data)


# The handler of each RPC, by the method's name in the service descriptor (a streaming RPC's
# takes and returns an iterator of messages).
HANDLERS: dict[str, Callable[[Any], Any]] = {
    "ValidateHand": validate_hand,
    "ValidateHands": validate_hands,
    "LegalActions": legal_actions,
    "ResolveTrick": resolve_trick,
    "SettleHand": settle_hand,
    "Deal": deal,
    "DescribeRules": describe_rules,
}
# The handler of each unary RPC as gRPC calls it (``wire_handler``), by the method's name.
WIRE_HANDLERS: dict[str, Callable[[bytes], bytes]] = {name: wire_handler(name) for name in ANSWERS}

