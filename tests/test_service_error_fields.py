"""Every bad field is named: valid requests of every RPC and game, each field (leaf or container,
list items by index) replaced in turn by a value of the wrong type, out of range, an unknown
value, an unknown or duplicated card, an extra unknown key, or left out, one change at a time.
Each answer is an error of the table whose ``field`` is the changed path and whose ``detail``
names it, or a result the change leaves valid (a field left out that has a default; an action
answered by a violation at its own index). Deterministic, in process over REST; the gRPC answers
to the same requests are held equal to REST's in test_service_errors.py.

The rules where the field named is not the changed path, each for a reason:

* a container given empty (``{}``) names the required field it then lacks (``deal.hands``);
* a card given twice is named where its later copy is, in the record's order, and the detail
  names both places;
* a field that contradicts another is named by the check that reads the pair
  (``CROSS_FIELD``): a plate holding a puesta against its amount, a defender against the
  surrender, a Revesino trick's cards against its winner or its forced cards, a deal without its
  seed (then ``deal.hands`` is required);
* a Rentoy score of 12 or more names ``table.score``: the match is over, whichever team has them.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
from examples_support import examples_dir
from service_support import ROUTES, load_example, rest_layout

from engine import api
from service.errors import ERRORS
from service.rest import create_app

CARD_LISTS = re.compile(r"(hands\[\d+\]|stock|cards|forced|revoked|outOfPlay|jugadorHand)$")
CROSS_FIELD = {("table.plate", "table.plateHolds"), ("table.plateHolds", "table.cartulina"),
               ("tresillo.surrender", "tresillo.defender"), ("deal.seed", "deal.hands")}
LEFT_OUT = object()


def _record(name: str, **changes: Any) -> dict[str, Any]:
    return dict(load_example(examples_dir() / f"{name}.json")[0], **changes)


def _requests() -> list[tuple[str, dict[str, Any]]]:
    """(rpc, request): a valid request of each RPC for each game."""
    from test_service_revesino import settle_request as revesino_settle
    from test_service_tresillo import settle_request as tresillo_settle

    records = [_record("tresillo-full-17-strong"), _record("tresillo-full-36-solo"), _record("revesino-full-21-nap"),
               _record("revesino-full-01-random", rules={"allowRevokes": True}), _record("rentoy-full-01"),
               _record("rentoy-full-10", rules={"ladder": "1-3-6-12"}),
               {"game": "rentoy", "seats": 4, "dealer": 1, "deal": {"seed": "abc"}, "actions": []}]
    out: list[tuple[str, dict[str, Any]]] = []
    for record in records:
        out += [("ValidateHand", {"record": record}), ("LegalActions", {"record": record, "seat": 1})]
        result = api.validate(record)
        if record["game"] != "rentoy":
            out.append(("SettleHand", (tresillo_settle if record["game"] == "tresillo" else revesino_settle)(record, result)))
        if result["tricks"]:
            trick = result["tricks"][1]
            request = {"game": record["game"], "seats": record["seats"], "dealer": record["dealer"], "leader": trick["leader"],
                       "cards": " ".join(trick["cards"])}
            if record["game"] == "revesino":
                request.update(number=2, fondo=10, napolitana=1)
            else:
                request["contract"] = {"trump": result["trump"]}
            out.append(("ResolveTrick", request))
    out += [("SettleHand", {"game": "rentoy", "seats": 4, "dealer": 0, "table": {"score": [5, 4]}, "rules": {"ladder": "1-3-6-12"},
                            "rentoy": {"winner": 1, "value": 3, "end": "tricks"}}),
            ("ResolveTrick", {"game": "revesino", "leader": 0, "cards": "12c 1c 5c 10c", "forced": "1c", "number": 1, "fondo": 5})]
    out += [("Deal", {"game": game, "seats": seats, "dealer": 1, "seed": "s"}) for game, seats in (("tresillo", 4), ("revesino", 4),
                                                                                                  ("rentoy", 6))]
    return out


def _paths(node: Any, path: str = "") -> Iterator[tuple[str, Any]]:
    """(path, value) of every field and list item below ``node``, in the API's spelling."""
    items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
    for key, value in items:
        here = f"{path}[{key}]" if isinstance(key, int) else f"{path}.{key}" if path else key
        yield here, value
        yield from _paths(value, here)


def _changes(path: str, value: Any) -> list[tuple[str, Any, str]]:
    """(name, new value or LEFT_OUT, the field the error must name)."""
    out = [("null item", None, path)] if path.endswith("]") else [("left out", LEFT_OUT, path)]
    if isinstance(value, bool):
        out += [("an int", 1, path), ("a string", "x", path)]
    elif isinstance(value, int):
        out += [("a word", "x", path), ("a fraction", 1.5, path), ("a bool", True, path), ("a list", [1], path), ("an object", {}, path),
                ("-1", -1, path), ("99", 99, path), ("2**31", 2**31, path), ("'+1'", "+1", path)]
    elif isinstance(value, str):
        out += [("a number", 7, path), ("a bool", True, path), ("a list", [value], path), ("an object", {}, path), ("unknown", "zzz", path)]
        if CARD_LISTS.search(path) and value:
            cards = value.split()
            out += [("no card", " ".join([*cards[:-1], "9z"]), path), ("a card twice", " ".join([*cards, cards[0]]), path)]
    elif isinstance(value, list):
        out += [("a string", "x", path), ("a number", 7, path), ("an object", {}, path)]
    elif isinstance(value, dict):
        out += [("a string", "x", path), ("a list", [], path), ("a number", 7, path), ("an unknown key", dict(value, zzUnknown=1), f"{path}.zzUnknown")]
    return out


def _changed(body: dict[str, Any], path: str, new: Any) -> dict[str, Any]:
    body = copy.deepcopy(body)
    *parents, last = re.findall(r"[^.\[\]]+", path)
    node: Any = body
    for key in parents:
        node = node[int(key)] if isinstance(node, list) else node[key]
    if isinstance(node, list):
        node[int(last)] = new
    elif new is LEFT_OUT:
        del node[last]
    else:
        node[last] = new
    return body


def _named_rightly(code: str, field: str, detail: str, path: str, expect: str) -> bool:
    if field == expect:
        return True
    if code == "MISSING_FIELD" and field.startswith(f"{path}."):
        return True  # (a container given empty: the required field it lacks)
    if code == "DUPLICATE_CARD" and path in detail:
        return True  # (the later copy named, the changed one too)
    if (path, field) in CROSS_FIELD or (re.sub(r"\[\d+\]", "[i]", path), re.sub(r"\[\d+\]", "[i]", field)) in {
            ("revesino.tricks[i].cards", "revesino.tricks[i].winner"), ("revesino.tricks[i].cards", "revesino.tricks[i].forced")}:
        return True
    return code == "INVALID_TABLE" and field == "table.score" and path.startswith("table.score[") and "match is over" in detail


@pytest.fixture(scope="module")
def client():
    return create_app().test_client()


def _answer(client, rpc: str, request: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    verb, path, body, query = rest_layout(rpc, request)
    response = client.open(path, method=verb, data=json.dumps(body), content_type="application/json", query_string=query)
    return response.status_code, response.get_json()


def test_every_changed_field_of_every_request_is_named_by_its_error(client) -> None:
    wrong, checked = [], 0
    for rpc, request in _requests():
        status, answer = _answer(client, rpc, request)
        assert status == 200 and answer.get("valid", True), (rpc, answer)
        within = ROUTES[rpc].body if ROUTES[rpc].body != "*" else None  # (the record, with the query's parameters beside it)
        body = request[within] if within else request
        for path, value in [("", body), *_paths(body)]:
            changes = _changes(path, value) if path else [("an unknown key", dict(body, zzUnknown=1), "zzUnknown")]
            for name, new, expect in changes:
                changed = new if not path else _changed(body, path, new)
                status, answer = _answer(client, rpc, {**request, within: changed} if within else changed)
                checked += 1
                if status == 200:
                    violation = answer.get("violation")
                    # a result: legitimate for a field with a default left out or given its own value,
                    # an action answered by a violation at its index, a seed, and a Revesino card of
                    # the 48 (8s and 9s) in a trick; never for a wrong type, an unknown key or card
                    refused = name in ("a word", "a number", "a string", "an int", "a bool", "a list", "an object", "an unknown key",
                                       "a fraction", "2**31", "'+1'", "no card", "a card twice")
                    if violation is not None:
                        at = re.fullmatch(r"actions\[(\d+)\]", path)
                        if not (at and violation["action"] == int(at[1])) and path != "actions":
                            wrong.append((rpc, path, name, "violation", violation))
                    elif refused:
                        wrong.append((rpc, path, name, "accepted", None))
                    continue
                code, field, detail = answer["code"], answer.get("field", ""), answer["detail"]
                assert code in ERRORS and code != "INTERNAL" and status == ERRORS[code].http_status, (rpc, path, name, answer)
                mentioned = field in detail or field.rsplit(".", 1)[-1] in detail
                if not (_named_rightly(code, field, detail, path, expect) and mentioned):
                    wrong.append((rpc, path, name, code, field, detail))
    assert checked > 5000
    assert not wrong, "\n".join(map(str, wrong[:30]))
