"""Mangled requests never crash the service: every answer is a result or an error of the table
never INTERNAL (bounded, deterministic, in-process)."""

from __future__ import annotations

import copy
import json
import random

import pytest
from service_support import load_example, rentoy_examples

from service.errors import ERRORS
from service.rest import create_app

VALUES = [None, 0, -1, 1, 2, 3, 7, 100, 2**31 - 1, "", "x", "1o", "1o 1o", "12b 11b 10b", [], ["1o"], {}, {"a": 1}, True, False,
          1.5, ["1o 2o 3o", "4o 5o 6o"], "0 envite", ["0 envite", "1 quiero"]]
RECORD_PATHS = [("game",), ("seats",), ("dealer",), ("rules",), ("rules", "ladder"), ("rules", "renuncio"), ("rules", "playAllTricks"),
                ("table",), ("table", "score"), ("table", "plate"), ("table", "plateHolds"), ("deal",), ("deal", "hands"),
                ("deal", "stock"), ("deal", "seed"), ("actions",)]
INTS = [0, -1, 1, 2, 3, 4, 5, 7, 8, 12, 100, 2**31 - 1]
STRINGS = ["", "x", "rentoy", "tresillo", "1o", "1o 1o", "12b 11b 10b", "8o 9o", "oros", "0 envite", "1 1o", "fold"]
LISTS = [[], ["1o"], ["1o 2o 3o", "4o 5o 6o"], ["0 envite", "1 quiero"], ["3 12b", "0 no-quiero", "x"], [1, 2]]
TYPED = {"game": STRINGS, "seats": INTS, "dealer": INTS, "leader": INTS, "seed": STRINGS, "cards": STRINGS, "stock": STRINGS,
         "hands": LISTS, "actions": LISTS, "score": LISTS + [[0, 0], [11, 11], [-1, 3], [12, 0]], "plate": INTS}


def _value(rng: random.Random, name: str) -> object:
    """Mostly a value of the field's type (to reach the engine), sometimes anything."""
    return copy.deepcopy(rng.choice(TYPED[name] if name in TYPED and rng.random() < 0.8 else VALUES))


REQUEST_FIELDS = {"/v1/tricks:resolve": ["game", "seats", "leader", "rules", "contract", "cards"],
                  "/v1/hands:settle": ["game", "seats", "rules", "table", "rentoy"],
                  "/v1/deals": ["game", "seats", "dealer", "seed"]}


@pytest.fixture(scope="module")
def client():
    return create_app().test_client()


def _check(response) -> None:
    if response.status_code != 200:
        assert response.json["code"] in ERRORS and response.json["code"] != "INTERNAL", response.json
        assert response.status_code == ERRORS[response.json["code"]].http_status


def _same_without_the_fast_read(client, url: str, body: object) -> None:
    """REST's fast read of a body (``codec.request_from_json``) answers as the message's way does:
    the same status and bytes, for a body it takes as for one it leaves."""
    from service import codec

    data = json.dumps(body).encode()
    fast = client.post(url, data=data, content_type="application/json")
    original = codec.request_from_json
    codec.request_from_json = lambda *_args: None
    try:
        slow = client.post(url, data=data, content_type="application/json")
    finally:
        codec.request_from_json = original
    assert (fast.status_code, fast.data) == (slow.status_code, slow.data)


def test_mangled_records(client) -> None:
    rng = random.Random(7)
    records = [load_example(p)[0] for p in rentoy_examples()]
    for _ in range(1500):
        record = copy.deepcopy(rng.choice(records))
        for _ in range(rng.randint(1, 3)):
            *parents, last = rng.choice(RECORD_PATHS)
            node = record
            for key in parents:
                if not isinstance(node.get(key), dict):
                    node[key] = {}
                node = node[key]
            value = _value(rng, last)
            if value is None:
                node.pop(last, None)
            else:
                node[last] = value
        url = rng.choice(["/v1/hands:validate", "/v1/hands:legalActions", f"/v1/hands:legalActions?seat={rng.randint(-1, 8)}"])
        _check(client.post(url, json=record))
        if "?" not in url and rng.random() < 0.3:
            _same_without_the_fast_read(client, url, record)


def test_mangled_requests(client) -> None:
    rng = random.Random(11)
    for _ in range(1500):
        url = rng.choice(sorted(REQUEST_FIELDS))
        fields = REQUEST_FIELDS[url]
        body = {k: _value(rng, k) for k in rng.sample(fields, rng.randint(1, len(fields)))}
        if rng.random() < 0.7:
            body["game"] = "rentoy"
        if "contract" in body and rng.random() < 0.5:
            body["contract"] = {"trump": rng.choice(["oros", "x", ""])}
        if "rentoy" in body and rng.random() < 0.7:
            body["rentoy"] = {k: rng.choice([0, 1, 2, 3, -1, 12, "tricks", "fold", "x"])
                              for k in rng.sample(["winner", "value", "end"], rng.randint(0, 3))}
        _check(client.post(url, json=body))
        if rng.random() < 0.3:
            _same_without_the_fast_read(client, url, body)


# Every game's records and settlements, mangled anywhere in their JSON: a value of another type or
# size (amounts up to and past what a table carries), an item removed, repeated or swapped, a word
# of an action replaced. (Rentoy's fields alone, above, never reached Tresillo's and Revesino's
# tables: a fondo of 2**31 - 1 was an INTERNAL error, the answer's fondo out of the schema's range.)
ANY = [None, 0, -1, 1, 2, 3, 4, 5, 9, 12, 40, 100, 2**31 - 1, 2_147_483_645, 10**8, 10**8 + 5, 5 * 10**7, "", "x", "1o", "1o 1o",
       "10o", "oros", [], [0], [1, 2, 3], ["1o"], {}, {"a": 1}, True, False, 1.5, "entrada", "vuelta", "0 paso"]
WORDS = ["0", "1", "3", "-1", "1o", "12b", "9c", "8e", "paso", "juego", "mas", "entrada", "vuelta", "solo", "descarte", "contra",
         "rindo", "bien", "defiendo", "bola", "planto", "oros", "cambio", "quedo", "envite", "quiero", "revesino", "napolitana", ""]


def _mangle(rng: random.Random, node: object, depth: int = 0) -> None:
    if isinstance(node, dict) and node:
        key = rng.choice(sorted(node))
        if isinstance(node[key], (dict, list)) and node[key] and depth < 4 and rng.random() < 0.6:
            _mangle(rng, node[key], depth + 1)
        elif rng.random() < 0.2:
            del node[key]
        else:
            node[key] = copy.deepcopy(rng.choice(ANY))
    elif isinstance(node, list) and node:
        i, op = rng.randrange(len(node)), rng.random()
        if op < 0.25 and isinstance(node[i], (dict, list)):
            _mangle(rng, node[i], depth + 1)
        elif op < 0.45:
            node.pop(i)
        elif op < 0.6:
            node.insert(i, copy.deepcopy(rng.choice(node)))
        elif op < 0.7:
            j = rng.randrange(len(node))
            node[i], node[j] = node[j], node[i]
        elif isinstance(node[i], str) and " " in node[i]:
            words = node[i].split(" ")
            words[rng.randrange(len(words))] = rng.choice(WORDS)
            node[i] = " ".join(words)
        else:
            node[i] = copy.deepcopy(rng.choice(ANY))


def test_mangled_records_and_settlements_of_every_game(client) -> None:
    from examples_support import examples_dir
    from test_service_revesino import settle_request as revesino_settle
    from test_service_tresillo import settle_request as tresillo_settle

    from engine import api

    records = [load_example(p)[0] for p in sorted(examples_dir().glob("*.json"))]
    settles = [(tresillo_settle if r["game"] == "tresillo" else revesino_settle)(r, result)
               for r in records if r["game"] != "rentoy" and (result := api.validate(r))["valid"] and result["finished"]]
    assert {r["game"] for r in records} == set(api.GAMES) and len(settles) >= 6
    rng = random.Random(5)
    for _ in range(3000):
        options = api.describe_rules(rng.choice(sorted(api.GAMES)))["options"]
        settle = rng.random() < 0.3
        body = copy.deepcopy(rng.choice(settles if settle else records))
        for _ in range(rng.randint(1, 3)):
            if rng.random() < 0.25 and isinstance(body.get("rules", {}), dict):
                option = rng.choice(options)
                body.setdefault("rules", {})[option["name"]] = rng.choice([*option["choices"], rng.choice(ANY)])
            else:
                _mangle(rng, body)
        url = "/v1/hands:settle" if settle else rng.choice(["/v1/hands:validate", "/v1/hands:legalActions"])
        _check(client.post(url, json=body))
