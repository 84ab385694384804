"""Each game's fast legality check is exactly membership in its legal list (STYLE.md, habit 6:
one generator, and no second validator that could disagree with it)."""

from __future__ import annotations

import itertools
import random

import pytest

from engine import api
from engine.record import Action, parse_action, read_setup


def states(game_name: str, seats: int, seed: int, rules: dict | None = None):
    """Every state of one random legal hand, with the game module."""
    rng = random.Random(seed)
    game = api.GAMES[game_name]
    record = {"game": game_name, "seats": seats, "dealer": rng.randrange(seats), "actions": [],
              "deal": {"seed": f"is-legal-{seed}"}, "rules": rules or {}}
    setup, _ = read_setup(game, record)
    state = game.start(setup)
    while not game.is_finished(state):
        yield game, state
        state, _ = game.apply(state, rng.choice(game.legal_actions(state)))


def candidates(game, state, rng: random.Random) -> list[Action]:
    """Legal actions, and near misses: other seats, other cards, other descarte subsets."""
    legal = game.legal_actions(state)
    out = list(rng.sample(legal, min(20, len(legal))))
    seats = len(state.hands)
    deck = [str(c) for c in game.DECK.cards]
    for seat in range(seats):
        hand = [str(c) for c in state.hands[seat]]
        for k in (0, 1, 2, len(hand)):
            for combo in itertools.islice(itertools.combinations(sorted(hand + rng.sample(deck, 2)), k), 5):
                text = f"{seat} descarte {' '.join(combo)}".strip()
                try:
                    out.append(parse_action(text, seats, game.DECK, game.CALLS))
                except Exception:
                    pass
        out += [parse_action(f"{seat} {c}", seats, game.DECK, game.CALLS) for c in rng.sample(deck, 3)]
    return out


RENTOY_HOUSE = {"renuncio": "penalty", "betTiming": "anytime", "answerBy": "anyOpponent", "raiseRights": "free"}


@pytest.mark.parametrize("game_name,seats,rules", [("tresillo", 3, None), ("tresillo", 4, None), ("revesino", 4, None),
                                                   ("rentoy", 4, None), ("rentoy", 2, RENTOY_HOUSE), ("rentoy", 6, RENTOY_HOUSE)])
def test_is_legal_is_membership_in_the_legal_list(game_name: str, seats: int, rules: dict | None) -> None:
    checked = 0
    for seed in range(24):
        rng = random.Random(seed)
        for game, state in states(game_name, seats, seed, rules):
            legal = set(game.legal_actions(state))
            for action in candidates(game, state, rng):
                assert game.is_legal(state, action) == (action in legal), (str(action), state)
                checked += 1
    assert checked > 1000  # enough states and near misses to mean something


@pytest.mark.parametrize("game_name,seats", [("tresillo", 3), ("tresillo", 4), ("revesino", 4), ("rentoy", 4), ("rentoy", 2)])
def test_a_finished_hand_has_no_legal_action(game_name: str, seats: int) -> None:
    """Once a hand is over nobody acts: its legal list is empty and no action, not even one that
    was legal just before the end, is legal."""
    for seed in range(3):
        played = list(states(game_name, seats, seed))
        game, last = played[-1]
        before = game.legal_actions(last)
        ends = [game.apply(last, action)[0] for action in before]
        end = next(state for state in ends if game.is_finished(state))  # the hand's last action
        assert game.to_act(end) is None
        assert list(game.legal_actions(end)) == []
        assert not any(game.is_legal(end, action) for action in before)


@pytest.mark.parametrize("game_name,seats,rules", [("tresillo", 3, None), ("tresillo", 4, None), ("revesino", 4, None),
                                                   ("revesino", 4, {"napolitanaDeclaration": "implicit"}),
                                                   ("rentoy", 4, None), ("rentoy", 2, None)])
def test_playable_is_the_legal_lists_cards(game_name: str, seats: int, rules: dict | None) -> None:
    """Each game's ``playable`` (its follow-suit rule as one function: Tresillo section 5,
    Revesino A5, Rentoy B4/T11) names exactly the cards the legal list lets the seat to play play,
    in a state where a card is due."""
    checked = restricted = 0
    for seed in range(24):
        for game, state in states(game_name, seats, seed, rules):
            cards = [a.card for a in game.legal_actions(state) if a.card is not None]
            if not cards:
                continue
            seat = game.to_act(state)
            assert sorted(game.playable(state, seat), key=str) == sorted(cards, key=str), state
            checked += 1
            restricted += len(cards) < len(state.hands[seat])
    assert checked > 50 and restricted >= 5, (checked, restricted)  # and states where the rule bars cards held


@pytest.mark.parametrize(("size", "low", "high"), [(9, 0, 8), (9, 1, 4), (10, 0, 9), (8, 2, 2), (3, 0, 3), (5, 5, 5)])
def test_tresillo_descartes_are_the_listed_subsets_in_order(size: int, low: int, high: int) -> None:
    """The exchange's lazy legal list is exactly every subset of ``low`` to ``high`` cards in
    canonical order, fewest first: by index (unranking), by iteration, by membership."""
    from engine.tresillo import Descartes

    names = tuple(f"{rank}o" for rank in (1, 2, 3, 4, 5, 6, 7, 10, 11, 12)[:size])
    want = [Action(2, None, "descarte", combo) for k in range(low, high + 1) for combo in itertools.combinations(names, k)]
    lazy = Descartes(2, names, low, high)
    assert len(lazy) == len(want)
    assert list(lazy) == want
    assert [lazy[i] for i in range(len(lazy))] == want
    assert lazy[-1] == want[-1] and lazy[1:4] == want[1:4]
    with pytest.raises(IndexError):
        lazy[len(want)]
    with pytest.raises(IndexError):
        lazy[-len(want) - 1]  # (a negative index counts from the end, as far as the first)
    assert all(action in lazy for action in want)
    assert Action(1, None, "descarte", want[0].args) not in lazy  # another seat
    if len(names) > 1 and high >= 2:
        assert Action(2, None, "descarte", (names[1], names[0])) not in lazy  # not in canonical order
        assert Action(2, None, "descarte", (names[0], names[0])) not in lazy  # a card named twice
        assert Action(2, None, "descarte", (names[-1], names[-1])) not in lazy  # the last card named twice
        assert Action(2, None, "descarte", (names[-1], names[0])) not in lazy  # the last card first
    assert Action(2, None, "descarte", ("9c",)) not in lazy  # a card not in the range
    if low > 0:
        assert Action(2, None, "descarte", ()) not in lazy  # too few
    if high < len(names):
        assert Action(2, None, "descarte", names[: high + 1]) not in lazy  # too many
