"""One handler per RPC: request message -> engine -> answer (STYLE.md, habit 10).

A unary RPC's answer is first the engine's JSON, in the form of the response message's JSON
(``ANSWERS``); its handler (``HANDLERS``) builds the response message from it, which the CLI
calls. gRPC's (``wire_handler``) writes the response's wire bytes from it instead. REST prints the engine's JSON as it is: the codec's tests hold, for every RPC,
that the message built from an answer prints back as that same JSON (tests/test_codec_fast.py),
so REST skips building a message only to print it. A handler raises the engine's
``InvalidInput`` for bad input; the transport turns it into its error form through
``service.errors``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from google.protobuf import message_factory
from google.protobuf.message import Message

from engine import api
from naipes.v1 import naipes_pb2 as pb
from service.codec import from_engine, to_engine, to_wire

SERVICE = pb.DESCRIPTOR.services_by_name["NaipesService"]


def _seat(request: pb.LegalActionsRequest) -> int | None:
    return request.seat if request.HasField("seat") else None


# The engine's answer to each unary RPC, as the JSON of its response message, by the method's
# name in the service descriptor.
ANSWERS: dict[str, Callable[[Any], dict[str, Any]]] = {
    "ValidateHand": lambda request: {"result": api.validate(to_engine(request.record))},
    "LegalActions": lambda request: api.legal_actions(to_engine(request.record), _seat(request)),
    "ResolveTrick": lambda request: api.resolve_trick(to_engine(request)),
    "SettleHand": lambda request: api.settle_hand(to_engine(request)),
    "Deal": lambda request: api.deal(to_engine(request)),
    "DescribeRules": lambda request: api.describe_rules(request.game),
}


def _handler(name: str) -> Callable[[Any], Any]:
    """The RPC's handler: its answer as a response message."""
    answer = ANSWERS[name]
    response_class: type[Message] = message_factory.GetMessageClass(SERVICE.methods_by_name[name].output_type)

    def handler(request: Any) -> Any:
        return from_engine(answer(request), response_class)

    handler.__name__ = name
    return handler


def wire_handler(name: str) -> Callable[[Any], bytes]:
    """The RPC's handler as gRPC calls it: its answer as the response message's wire bytes,
    written by the codec straight from the engine's JSON (``to_wire``: the same bytes as the
    message serialized, without building it)."""
    answer = ANSWERS[name]
    response_class: type[Message] = message_factory.GetMessageClass(SERVICE.methods_by_name[name].output_type)

    def handler(request: Any) -> bytes:
        return to_wire(answer(request), response_class)

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
WIRE_HANDLERS: dict[str, Callable[[Any], bytes]] = {name: wire_handler(name) for name in ANSWERS}

