"""The compiled engine and its Python sources give the same answers.

``make build`` compiles the engine with mypyc; ``engine/__init__.py`` runs the Python sources
instead when one is newer than its compiled module, or with ``NAIPES_PURE=1``. These tests ask the
same questions of both: the same records (random legal hands of every game and table size,
complete, cut short, and spoilt by an illegal action, and the shared samples) go to ``validate``
and ``legal_actions`` in this process and in a process that runs the sources, and every answer
must be equal. CI sets ``NAIPES_REQUIRE_COMPILED=1``: the engine it tests must be the compiled one,
and so must the service's codec (which tests/test_codec_fast.py compares with json_format).
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys

import pytest
from examples_support import ROOT, examples_dir

import engine
from bench.engine_driver import random_record
from engine import api

ASK = """
import json, sys
import engine
from engine import api
from engine.errors import IllegalAction, InvalidInput
assert not engine.COMPILED, "NAIPES_PURE=1 must run the sources"

def ask(kind, record):
    try:
        return api.validate(record) if kind == "validate" else api.legal_actions(record)
    except (InvalidInput, IllegalAction) as exc:
        return {"error": [type(exc).__name__, exc.code, getattr(exc, "field", None), exc.message]}

print(json.dumps([ask(kind, record) for kind, record in json.load(sys.stdin)]))
"""


def ask(kind: str, record: dict) -> dict:
    from engine.errors import IllegalAction, InvalidInput

    try:
        return api.validate(record) if kind == "validate" else api.legal_actions(record)
    except (InvalidInput, IllegalAction) as exc:
        return {"error": [type(exc).__name__, exc.code, getattr(exc, "field", None), exc.message]}


def questions() -> list[tuple[str, dict]]:
    rng = random.Random(5)
    out: list[tuple[str, dict]] = []
    for name, game in api.GAMES.items():
        for seats in game.SEATS:
            for _ in range(6):
                record = random_record(name, seats, seed=rng.randrange(10**6))
                actions = record["actions"]
                cut = {**record, "actions": actions[: rng.randrange(len(actions) + 1)]}
                spoilt = {**record, "actions": [*actions[:-1], f"{(int(actions[-1].split()[0]) + 1) % seats} {actions[-1].split(' ', 1)[1]}"]}
                out += [("validate", record), ("validate", cut), ("legal", cut), ("validate", spoilt)]
    for path in sorted(examples_dir().glob("*.json")):
        out.append(("validate", json.loads(path.read_text())["record"]))
    out.append(("validate", {"game": "tresillo", "seats": 4, "dealer": 0, "deal": {"hands": ["1e 1e"]}}))
    return out


def test_compiled_when_required() -> None:
    import service

    if os.environ.get("NAIPES_REQUIRE_COMPILED") == "1":
        assert engine.COMPILED, "NAIPES_REQUIRE_COMPILED=1 but the engine runs its Python sources: make build"
        assert service.COMPILED, "NAIPES_REQUIRE_COMPILED=1 but service/codec.py runs from its source: make build"


def test_compiled_and_sources_answer_alike() -> None:
    if not engine.COMPILED:
        pytest.skip("the engine is not compiled here (make build): nothing to compare")
    asked = questions()
    ours = json.loads(json.dumps([ask(kind, record) for kind, record in asked]))
    env = {**os.environ, "NAIPES_PURE": "1", "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    run = subprocess.run([sys.executable, "-c", ASK], input=json.dumps(asked), capture_output=True, text=True, env=env, cwd=ROOT, timeout=300)
    assert run.returncode == 0, run.stderr
    theirs = json.loads(run.stdout)
    assert len(theirs) == len(ours) == len(asked)
    assert sum("error" in answer for answer in ours) >= 1 and sum(answer.get("valid") is False for answer in ours) >= 10
    for (kind, record), mine, source in zip(asked, ours, theirs, strict=True):
        assert mine == source, f"{kind} of {json.dumps(record)[:300]}"
