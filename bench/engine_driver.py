"""Random legal complete hands, driven through the engine's own replay primitives.

A hand is dealt from a random shuffle (``game.deal_from_pack``), started (``game.start``), and
grown one action at a time: the legal list is generated (``game.legal_actions``), an action is
picked from it at random, checked (``engine.record.check``: the game's legality check, as the
replay checks every action) and applied (``game.apply``); when the hand is over it is settled
(``game.settlement``). The state is carried from action to action, as ``engine.record.replay``
does, rather than re-validating the whole record at every step.

``random_record`` writes such a hand as a hand record (deal as cards, actions in notation), for
the validation and service benchmarks. Nothing here changes the engine.
"""

from __future__ import annotations

import random
from types import ModuleType
from typing import Any

from engine import api
from engine.cards import cards_str
from engine.record import Setup, check, game_options

MAX_STEPS = 1000


def primary_seats(game: ModuleType) -> int:
    """The table size a game's headline figure is measured at: four seats when the game has them."""
    seats: tuple[int, ...] = game.SEATS
    return 4 if 4 in seats else seats[0]


def random_setup(game: ModuleType, seats: int, rng: random.Random) -> Setup:
    pack = list(game.DECK.cards)
    rng.shuffle(pack)
    dealer = rng.randrange(seats)
    hands, stock = game.deal_from_pack(pack, seats, dealer)
    return Setup(seats, dealer, game_options(game, None), game.read_table({}, seats), tuple(hands), tuple(stock))


def play_hand(game: ModuleType, setup: Setup, rng: random.Random) -> tuple[Any, list[Any]]:
    """One random legal hand from ``setup`` to its settlement: the final state and the actions."""
    state = game.start(setup)
    actions = []
    choice = rng.choice
    for _ in range(MAX_STEPS):
        if game.is_finished(state):
            break
        legal = game.legal_actions(state)
        action = choice(legal)
        check(game, state, action)
        state, _events = game.apply(state, action)
        actions.append(action)
    else:
        raise RuntimeError(f"{game.NAME}: no end after {MAX_STEPS} actions")
    game.settlement(state)
    return state, actions


def random_hand(game: ModuleType, seats: int, rng: random.Random) -> int:
    """Deal and play one random complete hand; the number of actions."""
    _state, actions = play_hand(game, random_setup(game, seats, rng), rng)
    return len(actions)


def random_record(name: str, seats: int | None = None, seed: int = 1, *, min_actions: int = 0) -> dict[str, Any]:
    """A complete, legal hand record of a game (the longest of a few random hands when
    ``min_actions`` asks for a long one)."""
    game = api.GAMES[name]
    seats = seats or primary_seats(game)
    rng = random.Random(seed)
    for _ in range(200):
        setup = random_setup(game, seats, rng)
        _state, actions = play_hand(game, setup, rng)
        if len(actions) >= min_actions:
            break
    return {"game": name, "seats": seats, "dealer": setup.dealer,
            "deal": {"hands": [cards_str(h) for h in setup.hands], "stock": cards_str(setup.stock)},
            "actions": [str(a) for a in actions]}


def in_progress(record: dict[str, Any]) -> dict[str, Any]:
    """The same hand stopped half way: a hand in progress (for LegalActions)."""
    return {**record, "actions": record["actions"][: len(record["actions"]) // 2]}


def typical_record(name: str, seats: int | None = None, samples: int = 21) -> dict[str, Any]:
    """A complete record of median length among ``samples`` random hands (the request body the
    service benchmarks send)."""
    records = sorted((random_record(name, seats, seed) for seed in range(samples)), key=lambda r: len(r["actions"]))
    return records[len(records) // 2]
