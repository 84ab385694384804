"""Tresillo worked example TR-9 (rules/tresillo.md section 10): the nine-deal accounting chain as
nine complete hand records, validated in order with each record's ``table`` the previous
result's ``table``.

The records are golden files in ``tests/records/tresillo-tr09/deal-N.json`` (``{"record",
"expect"}``, the format of shared/records/examples). Each is a legal hand from the deal to the
action that ends it: explicit hands (``""`` for the alcalde) and 13-card stock, the auction, the
declaration, contra, the descartes, every card, and ``bola``/``planto`` where the deal needs one.
Four seats, favorSuit bastos, no enchilada, every other option at its default.

With ``stopWhenDecided`` (the default) a hand ends as soon as its result is certain, so two deals
stop before the split the spec's table names: deal 4 (the table says 6-2-1) ends at 5-1-1 after
trick 7, and deal 7 (5-2-2) at 4-2-2 after trick 8 -- once the Jugador of deal 7 holds 4 tricks
against 2 and 2, the last trick cannot change the result. ``test_tr9_unplayed_tricks_...`` plays
those hands out with the option off, to the table's exact splits, and finds the same money (A33).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from engine import api

RECORDS = Path(__file__).resolve().parent / "records" / "tresillo-tr09"
FRESH = {"plate": 0, "plateHolds": "none", "cartulina": []}

# The spec's TR-9 table, column by column: dealer; the event (Jugador, lance, trump, outcome,
# codillo giver, favour); plate and plateHolds after; cartulina after; balances after.
SPEC = [
    # D1: S1 entrada (oros) wins 5-3-1, no extras
    dict(dealer=0, jugador=1, lance="entrada", trump="oros", outcome="sacada", codillo=None, favor=False,
         plate=0, holds="none", cartulina=[], balances=(-10, 20, -5, -5)),
    # D2: S2 entrada (copas) puesta 4-4-1, contra took tricks 1-5 (4+1) -> primeras contra
    dict(dealer=1, jugador=2, lance="entrada", trump="copas", outcome="puesta", codillo=None, favor=False,
         plate=30, holds="primera", cartulina=[], balances=(-5, 20, -45, 0)),
    # D3: S0 vuelta (turned 4o) loses 3-4-2, S1 has 4 -> codillo; P = 55 to the cartulina
    dict(dealer=2, jugador=0, lance="vuelta", trump="oros", outcome="codillo", codillo=1, favor=False,
         plate=35, holds="primera", cartulina=[{"seat": 0, "amount": 55}], balances=(-75, 80, -45, 5)),
    # D4: S1 entrada a favor (bastos), contraestuche 3, wins 6-2-1; S0 pays his 55 in
    dict(dealer=3, jugador=1, lance="entrada", trump="bastos", outcome="sacada", codillo=None, favor=True,
         plate=55, holds="reservada", cartulina=[], balances=(-150, 180, -65, -20)),
    # D5: S3 entrada (espadas) 3-3-3, contra took the first six (3+3) -> primeras contra; P = 60 on the cartulina
    dict(dealer=0, jugador=3, lance="entrada", trump="espadas", outcome="puesta", codillo=None, favor=False,
         plate=60, holds="reservada", cartulina=[{"seat": 3, "amount": 60}], balances=(-150, 185, -60, -35)),
    # D6: S2 solo (oros) with 1e 7o 1b loses by codillo 3-5-1 to S3; no puesta (solo codillo)
    dict(dealer=1, jugador=2, lance="solo", trump="oros", outcome="codillo", codillo=3, favor=False,
         plate=65, holds="reservada", cartulina=[{"seat": 3, "amount": 60}], balances=(-125, 205, -200, 55)),
    # D7: S0 entrada (copas) wins 5-2-2, nothing extra, no jugar; S3 pays 60 in
    dict(dealer=2, jugador=0, lance="entrada", trump="copas", outcome="sacada", codillo=None, favor=False,
         plate=60, holds="reservada", cartulina=[], balances=(-55, 205, -205, -5)),
    # D8: S1 solo a favor, estuches 4 (1e 2b 1b 12b), wins tricks 1-5 and stops
    dict(dealer=3, jugador=1, lance="solo", trump="bastos", outcome="primeras", codillo=None, favor=True,
         plate=0, holds="none", cartulina=[], balances=(-105, 420, -255, -60)),
    # D9: S2 entrada (copas) bola, holds 1e 7c 1b 1c 12c 11c (6)
    dict(dealer=0, jugador=2, lance="entrada", trump="copas", outcome="bola", codillo=None, favor=False,
         plate=0, holds="none", cartulina=[], balances=(-225, 305, 95, -175)),
]

# Each deal's net, read off the spec's balances (D1's net is D1's balances).
SPEC_NET = [tuple(b - a for a, b in zip((0, 0, 0, 0) if i == 0 else SPEC[i - 1]["balances"], row["balances"], strict=True))
            for i, row in enumerate(SPEC)]


def sample(n: int) -> dict[str, Any]:
    return json.loads((RECORDS / f"deal-{n}.json").read_text())


def chain() -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(record as validated, result) for the nine deals, the table carried from result to record."""
    table = copy.deepcopy(FRESH)
    out = []
    for n in range(1, 10):
        record = {**sample(n)["record"], "table": table}
        result = api.validate(record)
        assert result["valid"], (n, result.get("violation"))
        out.append((record, result))
        table = result["table"]
    return out


def tricks_won(result: dict[str, Any]) -> list[int]:
    return [t["winner"] for t in result["tricks"] if "winner" in t]


def counts(result: dict[str, Any]) -> list[int]:
    won = tricks_won(result)
    return [won.count(s) for s in range(4)]


def test_the_nine_records_are_there_and_well_formed():
    for n in range(1, 10):
        stored = sample(n)
        record = stored["record"]
        assert set(stored) == {"record", "expect"}
        assert record["game"] == "tresillo" and record["seats"] == 4
        assert record["rules"] == {"favorSuit": "bastos", "enchilada": 0}
        assert record["dealer"] == SPEC[n - 1]["dealer"], f"deal {n}"
        hands = record["deal"]["hands"]
        assert hands[record["dealer"]] == "", f"deal {n}: the alcalde gets no cards"
        assert all(len(h.split()) == 9 for s, h in enumerate(hands) if s != record["dealer"]), f"deal {n}"
        assert len(record["deal"]["stock"].split()) == 13, f"deal {n}"


def test_tr9_chain_each_record_carries_the_previous_table():
    """The stored ``table`` of deal N+1 is exactly the ``table`` deal N's validation returns."""
    table = FRESH
    for n, (_record, result) in enumerate(chain(), start=1):
        assert sample(n)["record"]["table"] == table, f"deal {n}: the record's table is not the previous result's"
        table = result["table"]


def test_tr9_every_record_is_legal_and_stops_where_the_engine_finishes():
    for n, (record, result) in enumerate(chain(), start=1):
        expect = sample(n)["expect"]
        assert result["valid"] is True and "violation" not in result, f"deal {n}"
        assert result["finished"] is True and "next" not in result, f"deal {n}"
        assert tricks_won(result) == expect["tricks"], f"deal {n}"
        assert result["net"] == expect["net"] and result["table"] == expect["table"], f"deal {n}"
        # the last action is the one that ends the hand: one action fewer, it is still going on
        shorter = api.validate({**record, "actions": record["actions"][:-1]})
        assert shorter["valid"] is True and shorter["finished"] is False, f"deal {n}"


def test_tr9_chain_money_as_the_spec_table():
    balances = [0, 0, 0, 0]
    for n, ((_record, result), spec) in enumerate(zip(chain(), SPEC, strict=True), start=1):
        assert tuple(result["net"]) == SPEC_NET[n - 1], f"deal {n}: net"
        assert result["table"]["plate"] == spec["plate"], f"deal {n}: plate"
        assert result["table"]["plateHolds"] == spec["holds"], f"deal {n}: plateHolds"
        assert result["table"]["cartulina"] == spec["cartulina"], f"deal {n}: cartulina"
        balances = [b + x for b, x in zip(balances, result["net"], strict=True)]
        assert tuple(balances) == spec["balances"], f"deal {n}: balances"
        assert sum(balances) + result["table"]["plate"] == 0, f"deal {n}: sum(balances) + plate"
        # net is the itemized payments (the plate is not a seat)
        net = [0, 0, 0, 0]
        for p in result["payments"]:
            for party, sign in ((p["payer"], -1), (p["payee"], 1)):
                if party != "plate":
                    net[int(party.split()[1])] += sign * p["amount"]
        assert net == result["net"], f"deal {n}: payments"
    assert tuple(balances) == (-225, 305, 95, -175)


def test_tr9_each_record_is_the_event_the_table_describes():
    results = chain()
    for n, ((_record, result), spec) in enumerate(zip(results, SPEC, strict=True), start=1):
        j = spec["jugador"]
        assert result["jugador"] == j, f"deal {n}"
        assert (result["lance"], result["trump"], result["favor"]) == (spec["lance"], spec["trump"], spec["favor"]), f"deal {n}"
        assert result["outcome"] == spec["outcome"], f"deal {n}"
        assert result.get("codilloTo") == spec["codillo"], f"deal {n}"
        assert "rendido" not in result and "defender" not in result, f"deal {n}"
    by = {n: result for n, (_, result) in enumerate(results, start=1)}
    rec = {n: record for n, (record, _) in enumerate(results, start=1)}
    # D1: 5-3-1 to S1, no extras: "jugar" only, no primeras.
    assert counts(by[1]) == [0, 5, 3, 1]
    assert by[1]["condiciones"] == [{"item": "jugar", "tantos": 5}] and by[1]["primeras"] is False
    # D2: 4-4-1; the contra (S3 four, S0 one) took tricks 1-5, S2 tricks 6-9: primeras contra.
    assert counts(by[2]) == [1, 0, 4, 4]
    assert tricks_won(by[2])[:5].count(3) == 4 and tricks_won(by[2])[:5].count(0) == 1
    assert tricks_won(by[2])[5:] == [2, 2, 2, 2]
    assert by[2]["primerasContra"] is True and by[2]["condiciones"] == [{"item": "primeras", "tantos": 1}]
    # D3: a vuelta turning 4o (not favour), not a solera; 3-4-2 with S1 on 4.
    assert by[3]["turnUp"] == "4o" and "solera" not in by[3] and by[3]["exchanged"][0] >= 2
    assert counts(by[3]) == [3, 4, 0, 2]
    assert by[3]["condiciones"] == [{"item": "vuelta", "tantos": 2}]
    # D4: entrada a favor with contraestuche 3 (12b, none of 1e 2b 1b); 5-1-1 when decided (see D4 below).
    assert by[4]["contraestuches"] == 3 and by[4]["estuches"] == 0 and by[4]["primeras"] is False
    assert counts(by[4]) == [1, 5, 1, 0]
    # D5: 3-3-3; S1 and S2 took the first six (3+3), S3 the last three.
    assert counts(by[5]) == [0, 3, 3, 3]
    assert sorted(tricks_won(by[5])[:6]) == [1, 1, 1, 2, 2, 2] and tricks_won(by[5])[6:] == [3, 3, 3]
    assert by[5]["primerasContra"] is True
    # D6: solo oros with 1e 7o 1b and not 1o: 3 estuches; codillo 3-5-1 to S3.
    dealt6 = rec[6]["deal"]["hands"][2].split()
    assert {"1e", "7o", "1b"} <= set(dealt6) and "1o" not in dealt6
    assert by[6]["estuches"] == 3 and counts(by[6]) == [1, 0, 3, 5]
    assert by[6]["condiciones"] == [{"item": "solo", "tantos": 20}, {"item": "estuches", "tantos": 3}]
    # D7: S0 wins, nothing extra (and no "jugar": a reserved puesta is in the plate).
    assert counts(by[7]) == [4, 2, 0, 2] and by[7]["condiciones"] == []
    # D8: solo a favor with 1e 2b 1b 12b and not 11b: 4 estuches; tricks 1-5, then planto.
    dealt8 = rec[8]["deal"]["hands"][1].split()
    assert {"1e", "2b", "1b", "12b"} <= set(dealt8) and "11b" not in dealt8
    assert tricks_won(by[8]) == [1] * 5 and rec[8]["actions"][-1] == "1 planto"
    assert by[8]["estuches"] == 4 and by[8]["primeras"] is True
    # D9: entrada copas, no exchange by S2, 1e 7c 1b 1c 12c 11c and not 10c: bola with 6 estuches.
    dealt9 = rec[9]["deal"]["hands"][2].split()
    assert {"1e", "7c", "1b", "1c", "12c", "11c"} <= set(dealt9) and "10c" not in dealt9
    assert "2 descarte" in rec[9]["actions"] and "2 bola" in rec[9]["actions"]
    assert tricks_won(by[9]) == [2] * 9 and by[9]["bola"] == "made" and by[9]["estuches"] == 6
    assert by[9]["condiciones"] == [{"item": "estuches", "tantos": 6}, {"item": "primeras", "tantos": 1},
                                    {"item": "bola", "tantos": 100}, {"item": "jugar", "tantos": 5}]


# The tricks the early end leaves unplayed in deals 4 and 7, played out to the table's splits.
UNPLAYED = {
    4: (["1 11e", "2 4e", "0 5e", "1 3o", "2 2o", "0 10o"], [2, 6, 1, 0]),  # 6-2-1
    7: (["3 3o", "0 10o", "1 2o"], [5, 2, 0, 2]),  # 5-2-2
}


@pytest.mark.parametrize("n", sorted(UNPLAYED))
def test_tr9_unplayed_tricks_to_the_tables_split_change_nothing(n: int):
    record, result = chain()[n - 1]
    rest, split = UNPLAYED[n]
    played_out = api.validate({**record, "rules": {**record["rules"], "stopWhenDecided": False},
                               "actions": [*record["actions"], *rest]})
    assert played_out["valid"] is True and played_out["finished"] is True
    assert counts(played_out) == split
    assert (played_out["outcome"], played_out["net"], played_out["table"]) == (result["outcome"], result["net"], result["table"])
    # with the default, the first of those actions comes after the end
    late = api.validate({**record, "actions": [*record["actions"], rest[0]]})
    assert late["valid"] is False and late["violation"]["code"] == "NOT_ALLOWED_NOW"


def test_tr9_the_table_is_really_carried():
    """A record fed a fresh table instead of the previous deal's moves other money."""
    results = chain()
    record4, result4 = results[3]
    fresh4 = api.validate({**record4, "table": copy.deepcopy(FRESH)})
    assert fresh4["valid"] and fresh4["finished"]
    # Fresh: S1 takes only the dealer's 5 and nobody pays a cartulina puesta in.
    assert fresh4["net"] != result4["net"]
    assert tuple(result4["net"]) == (-75, 100, -20, -25)
    assert tuple(fresh4["net"]) == (-20, 65, -20, -25)
    assert fresh4["table"] == FRESH
    # Every deal whose carried table is not an empty plate settles differently on a fresh one.
    for n, (record, result) in enumerate(results, start=1):
        if record["table"] == FRESH:
            continue
        fresh = api.validate({**record, "table": copy.deepcopy(FRESH)})
        assert fresh["valid"] and fresh["finished"], f"deal {n}"
        assert (fresh["net"], fresh["table"]) != (result["net"], result["table"]), f"deal {n}"
