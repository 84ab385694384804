"""One handler per RPC: request message -> engine -> response message (STYLE.md, habit 10).

Both transports call these, and so does the CLI. A handler raises the engine's ``InvalidInput``
for bad input; the transport turns it into its error form through ``service.errors``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from engine import api
from naipes.v1 import naipes_pb2 as pb
from service.codec import from_engine, to_engine


def validate_hand(request: pb.ValidateHandRequest) -> pb.ValidateHandResponse:
    result = api.validate(to_engine(request.record))
    return from_engine({"result": result}, pb.ValidateHandResponse)


def validate_hands(requests: Iterable[pb.ValidateHandsRequest]) -> Iterator[pb.ValidateHandsResponse]:
    """A stream of records, validated on the pool of worker processes, answered in order. The
    transports call ``service.stream`` with wire bytes instead (the server process only moves
    bytes); this is the same stream in messages."""
    from service import stream

    for data in stream.validate_wire(r.SerializeToString() for r in requests):
        yield pb.ValidateHandsResponse.FromString(data)


def legal_actions(request: pb.LegalActionsRequest) -> pb.LegalActionsResponse:
    seat = request.seat if request.HasField("seat") else None
    return from_engine(api.legal_actions(to_engine(request.record), seat), pb.LegalActionsResponse)


def resolve_trick(request: pb.ResolveTrickRequest) -> pb.ResolveTrickResponse:
    return from_engine(api.resolve_trick(to_engine(request)), pb.ResolveTrickResponse)


def settle_hand(request: pb.SettleHandRequest) -> pb.SettleHandResponse:
    return from_engine(api.settle_hand(to_engine(request)), pb.SettleHandResponse)


def deal(request: pb.DealRequest) -> pb.DealResponse:
    return from_engine(api.deal(to_engine(request)), pb.DealResponse)


def describe_rules(request: pb.DescribeRulesRequest) -> pb.DescribeRulesResponse:
    return from_engine(api.describe_rules(request.game), pb.DescribeRulesResponse)


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

SERVICE = pb.DESCRIPTOR.services_by_name["NaipesService"]
