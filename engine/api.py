"""The engine's entry points. Each takes and returns plain JSON-shaped data in the contract of
``docs/format.md`` (the same shape the API's messages have in JSON), so that the service, the
CLI and Python users all speak one format. Bad input raises ``InvalidInput``.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

from engine import options as options_mod
from engine import rentoy, revesino, shuffle, tresillo
from engine.cards import Suit, cards_str, distinct
from engine.errors import IllegalAction, InvalidInput, shown
from engine.record import Game, json_int, read_dealer, read_seats, read_setup, replay, require

GAMES: dict[str, ModuleType] = {"tresillo": tresillo, "revesino": revesino, "rentoy": rentoy}


def game_of(request: Any, field: str = "game") -> Game:
    if not isinstance(request, dict):
        raise InvalidInput("INVALID_FIELD", "record", "the request must be a JSON object")
    name = require(request, "game", str)
    game = GAMES.get(name)
    if game is None:
        raise InvalidInput("UNKNOWN_GAME", field, f"unknown game {shown(name)}: expected tresillo, revesino or rentoy")
    return game


def validate(record: Any, events: bool | str = True) -> dict[str, Any]:
    """Replay a hand record: is every action legal, and what is the hand worth (FORMAT.md section 6);
    with ``events`` false, the result's ``events`` (what happened, action by action) left empty
    (a list every result carries, printed even when empty: docs/api.md); with ``events=WIRE``
    (``engine.record``), its shared events as the wire encoder takes them, (shared event, action
    index) pairs (``record.stamped`` makes the events they stand for)."""
    game = game_of(record)
    setup, actions = read_setup(game, record)
    run = replay(game, setup, actions, events)
    state = run.state
    finished = game.is_finished(state) and run.violation is None
    result: dict[str, Any] = {
        "game": game.NAME,
        "valid": run.violation is None,
        "finished": finished,
        "tricks": [t.to_json() for t in game.tricks(state)],
    }
    if run.violation is not None:
        result["violation"] = run.violation
    elif not finished:
        legal = game.legal_actions(state)
        result["next"] = {"seat": game.to_act(state), "legal": [str(a) for a in legal]}
    result.update(game.summary(state))
    if finished:
        result.update(game.settlement(state))
    result["events"] = run.events
    return result


def legal_actions(record: Any, seat: Any = None) -> dict[str, Any]:
    """Who acts now and every legal action; seen from ``seat``, only what that seat may see."""
    game = game_of(record)
    setup, actions = read_setup(game, record)
    if seat is not None:
        seat = require({"seat": seat}, "seat", int)  # (a JSON number: 2.0 is seat 2)
    if seat is not None and not 0 <= seat < setup.seats:
        raise InvalidInput("SEAT_OUT_OF_RANGE", "seat", f"seat {seat} is not a seat of this {setup.seats}-seat table")
    run = replay(game, setup, actions, events=False)  # (its answer shows no events)
    state = run.state
    finished = game.is_finished(state)
    out: dict[str, Any] = {"game": game.NAME, "valid": run.violation is None, "finished": finished and run.violation is None}
    if run.violation is not None:
        out.update(violation=run.violation, legal=[], actions=[])
        return out
    legal = [] if finished else game.legal_actions(state)
    if seat is not None:
        legal = [a for a in legal if a.seat == seat]
    to_act = game.to_act(state)
    if to_act is not None:
        out["seat"] = to_act
    out["legal"] = [str(a) for a in legal]
    out["actions"] = [_action_json(a) for a in legal]
    public = game.summary(state)
    public["tricks"] = [t.to_json() for t in game.tricks(state)]
    if seat is not None:
        public.update(game.view(state, seat))
    out["view"] = public
    return out


def _action_json(action: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"notation": str(action), "seat": action.seat}
    if action.card is not None:
        out["card"] = str(action.card)
    else:
        out["call"] = action.call
        if action.args:
            out["args"] = list(action.args)
    return out


def resolve_trick(request: Any) -> dict[str, Any]:
    """The winner of one trick (complete or so far) under a game's contract; for Revesino also
    the trick's payments."""
    game = game_of(request)
    # (the money fields have presence: a 0 is given, as a seat 0 is; "" is no cards)
    money_fields = [key for key in revesino.TRICK_FIELDS if request.get(key) not in (None, "")]
    if money_fields and game.NAME != revesino.NAME:
        key = money_fields[0]
        raise InvalidInput("INVALID_FIELD", key, f"{key} is for the payments of a Revesino trick; a {game.NAME} trick moves none")
    if money_fields and request.get("leader") is None:
        raise InvalidInput("MISSING_FIELD", "leader",
                           f"leader is required with {money_fields[0]}: a trick's payments go from seat to seat")
    options: Any = options_mod.parse_options(game.Options, request.get("rules"))
    cards = game.DECK.parse_cards(require(request, "cards", str), "cards")
    if not cards:
        raise InvalidInput("WRONG_HAND_SIZE", "cards", "cards must hold at least the card led")
    distinct(cards, "cards")
    trump = None
    if game.HAS_TRUMP:
        contract = require(request, "contract", dict)
        try:
            trump = Suit.from_word(require(contract, "trump", str, "contract."))
        except ValueError as exc:
            raise InvalidInput("INVALID_FIELD", "contract.trump", f"contract.trump: {exc}") from None
    elif (request.get("contract") or {}).get("trump"):
        raise InvalidInput("INVALID_FIELD", "contract.trump", f"{game.NAME} has no trumps")
    seats = read_seats(game, request) if request.get("seats") is not None else None
    if seats is None and len(game.SEATS) == 1:
        seats = game.SEATS[0]  # (Revesino: its only table, four seats)
    if seats is not None:
        size = game.trick_size(seats)
        if len(cards) > size:
            raise InvalidInput("WRONG_HAND_SIZE", "cards", f"a trick at a {seats}-seat {game.NAME} table has {size} cards, not {len(cards)}")
        sizes = [size]
    else:
        # Without seats, the sizes a trick has at the tables the game is played at: one for
        # Tresillo (3 cards, at 3 seats or 4), one a table size for Rentoy.
        sizes = sorted({game.trick_size(table) for table in game.SEATS})
        if len(cards) > sizes[-1]:
            most = f"{sizes[-1]} cards" if len(sizes) == 1 else f"at most {sizes[-1]} cards (at its largest table)"
            raise InvalidInput("WRONG_HAND_SIZE", "cards", f"a {game.NAME} trick has {most}, not {len(cards)}")
    # Complete: as large as a trick is at every table it can be at. Short: smaller than at any of
    # them. Neither: complete at one table size and short at another (Rentoy without seats).
    fitting = [size for size in sizes if size >= len(cards)]
    complete = fitting == [len(cards)]
    short = len(cards) not in fitting
    index = game.trick_winner_index(cards, trump)
    out: dict[str, Any] = {"winnerIndex": index, "card": str(cards[index]), "complete": complete}
    given = request.get("leader")
    leader = None
    if given is not None:
        if seats is None:
            raise InvalidInput("MISSING_FIELD", "seats", "seats is required with leader, to name the winning seat")
        leader = json_int(given)  # (not a bool: JSON's true is no seat)
        if leader is None or not 0 <= leader < seats:
            raise InvalidInput("SEAT_OUT_OF_RANGE", "leader", f"leader {shown(given)} is not a seat of this {seats}-seat table")
    given = request.get("dealer")
    dealer = json_int(given)
    table = seats if seats is not None else max(game.SEATS)  # (a dealer given is a seat, with a leader or not)
    if given is not None and (dealer is None or not 0 <= dealer < table):
        which = f"this {seats}-seat table" if seats is not None else f"any {game.NAME} table (at most {table} seats)"
        raise InvalidInput("SEAT_OUT_OF_RANGE", "dealer", f"dealer {shown(given)} is not a seat of {which}")
    players: list[int] | None = None
    if leader is not None and seats is not None:
        players = game.trick_players(seats, dealer, leader, len(cards))
        out["winner"] = players[index]
    who = f"seat {out['winner']}" if "winner" in out else f"card {index + 1} of the trick"
    how = "trump" if trump is not None and game.is_trump(cards[index], trump) else f"highest {cards[0].suit.word}, the suit led"
    wins = "wins" if complete else "is winning so far" if short else "is ahead"  # (the last: complete or not, unknown)
    out["events"] = [{"kind": "trick", "card": str(cards[index]), "text": f"{who} {wins} with {cards[index]} ({how})"}]
    if "winner" in out:
        out["events"][0]["seat"] = out["winner"]
    if players is not None and (out["complete"] or money_fields):
        # (a trick in progress moves no money yet, but its payment fields are read all the same)
        out.update(game.trick_money(options, request, cards, players, index))
    return out


def settle_hand(request: Any) -> dict[str, Any]:
    """The money of a finished hand, from its summary and the table before it."""
    game = game_of(request)
    seats = read_seats(game, request)
    dealer = read_dealer(request, seats) if "dealer" in request else None  # (checked even where the money does not need him)
    for other in GAMES:
        if other != game.NAME and request.get(other) is not None:  # (an empty summary too)
            raise InvalidInput("INVALID_FIELD", other, f"{other} is the summary of a {other} hand; a {game.NAME} hand's is {game.NAME}")
    opts: Any = options_mod.parse_options(game.Options, request.get("rules"))
    table = game.read_table({} if request.get("table") is None else request["table"], seats)  # (not a falsy non-object: refused)
    out = game.settle_summary(opts, table, request)
    if dealer is not None:
        out["nextDealer"] = game.next_dealer(opts, dealer, seats)
    return out


def deal(request: Any) -> dict[str, Any]:
    """A deterministic deal from a seed, and the commitment to publish before the hand."""
    game = game_of(request)
    seats = read_seats(game, request)
    dealer = read_dealer(request, seats)
    seed = require(request, "seed", str)
    if not seed:
        raise InvalidInput("INVALID_FIELD", "seed", "seed must be a non-empty string")
    hands, stock = game.deal_from_pack(shuffle.shuffle(game.DECK.cards, seed), seats, dealer)
    return {"game": game.NAME, "seats": seats, "dealer": dealer, "seed": seed,
            "commitment": shuffle.commitment(seed), "algorithm": shuffle.ALGORITHM,
            "deal": {"hands": [cards_str(h) for h in hands], "stock": cards_str(stock)}}


def describe_rules(name: Any) -> dict[str, Any]:
    """Every option of a game with its default, allowed values and the spec rule it implements."""
    game = game_of({"game": name})
    return {"game": game.NAME, "seats": list(game.SEATS), "options": options_mod.describe(game.Options)}


__all__ = ["validate", "legal_actions", "resolve_trick", "settle_hand", "deal", "describe_rules",
           "IllegalAction", "InvalidInput", "GAMES"]
