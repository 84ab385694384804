"""Hand records (``docs/format.md``): reading them, actions, and replay as a fold.

A record is read into a ``Setup`` (who sits where, the options, the table, the deal) and its list
of action strings. ``replay`` then folds the game's ``apply`` over the actions, checking each one
by membership in the game's legal list (STYLE.md, habit 6). When an action is not legal, the
game's ``explain`` says why, after the checks every game shares (``_check``), which follow the
precedence of FORMAT.md section 6.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final, NamedTuple, Protocol, TypeVar

from engine.cards import SUIT_WORDS, Card, Deck, looks_like_card, sorted_cards
from engine.errors import IllegalAction, InvalidInput, shown
from engine.tricks import Trick

S = TypeVar("S")
R = TypeVar("R")

MAX_ACTIONS = 1000


class Action(NamedTuple):
    """One action of the record: a seat plays a card, or makes a call with arguments. (A
    NamedTuple: games build hundreds of them per legal list.)"""

    seat: int
    card: Card | None = None
    call: str | None = None
    args: tuple[str, ...] = ()

    def __str__(self) -> str:
        if self.card is not None:
            return f"{self.seat} {self.card}"
        return " ".join((str(self.seat), str(self.call), *self.args))


def replaced(state: S, fields: tuple[str, ...], changes: dict[str, Any]) -> S:
    """A copy of a game's state with some fields changed (what ``NamedTuple._replace`` does): the
    states are plain classes whose constructor takes each of ``fields`` by name."""
    values = {name: getattr(state, name) for name in fields}
    values.update(changes)
    return type(state)(**values)


def with_item(items: tuple[S, ...], index: int, item: S) -> tuple[S, ...]:
    """``items`` with the one at ``index`` replaced by ``item`` (a seat's hand among the hands, a
    seat's count among the counts). A table's three or four seats are written as one tuple
    display: one object made, at every card, rather than a list and a tuple."""
    n = len(items)
    if n == 4 and 0 <= index < 4:
        return (item if index == 0 else items[0], item if index == 1 else items[1],
                item if index == 2 else items[2], item if index == 3 else items[3])
    if n == 3 and 0 <= index < 3:
        return (item if index == 0 else items[0], item if index == 1 else items[1], item if index == 2 else items[2])
    out = list(items)
    out[index] = item
    return tuple(out)


def appended(items: tuple[S, ...], item: S) -> tuple[S, ...]:
    """``items + (item,)`` for a trick in progress (up to three cards or plays before it), written
    as a tuple display: one object made rather than two."""
    n = len(items)
    if n == 0:
        return (item,)
    if n == 1:
        return (items[0], item)
    if n == 2:
        return (items[0], items[1], item)
    if n == 3:
        return (items[0], items[1], items[2], item)
    return items + (item,)


def fields_repr(obj: object, fields: tuple[str, ...]) -> str:
    """``Name(field=value, ...)``, as a dataclass or NamedTuple writes itself."""
    return f"{type(obj).__name__}(" + ", ".join(f"{name}={getattr(obj, name)!r}" for name in fields) + ")"


def remember_last(fn: Callable[[S], R]) -> Callable[[S], R]:
    """Remember the answer for the last state asked (by identity): the replay asks for the legal
    actions of a state to check an action, and the answer asks again for the next ones. The
    answer is shared: callers must not change it. One tuple assignment, so threads are safe."""
    last: tuple[object, R] | None = None

    def wrapper(state: S) -> R:
        nonlocal last
        remembered = last
        if remembered is not None and remembered[0] is state:
            return remembered[1]
        answer = fn(state)
        last = (state, answer)
        return answer

    wrapper.__doc__, wrapper.__name__ = fn.__doc__, fn.__name__
    return wrapper


# How the arguments of a call are written (a game's ``CALLS`` maps each call word to one).
NO_ARGS, SUIT_ARG, CARD_ARG, CARDS_ARGS = "", "suit", "card", "cards"


def parse_action(text: Any, seats: int, deck: Deck, calls: dict[str, str]) -> Action:
    """Read one action in the notation of FORMAT.md section 4 (``"2 1e"``, ``"1 entrada oros"``,
    ``"1 descarte 4c 5e"``).

    ``calls`` maps each call word of the game to how its arguments are written: none, one suit
    word, one card, or any number of distinct cards (kept in canonical card order, so that
    ``"1 descarte 6c 5c"`` and ``"1 descarte 5c 6c"`` are the same action). Input may be in upper
    case or have extra spaces; the action read is canonical. An action that cannot be read raises
    ``IllegalAction('MALFORMED_ACTION')``.
    """
    if not isinstance(text, str):
        raise IllegalAction("MALFORMED_ACTION", f"an action must be a string such as \"2 1e\", not {shown(text)}")
    tokens = text.lower().split()
    if len(tokens) < 2:
        raise IllegalAction("MALFORMED_ACTION", f"cannot read action {shown(text)}: expected a seat and a card or call, e.g. \"2 1e\"")
    seat_text, word, args = tokens[0], tokens[1], tuple(tokens[2:])
    # (ASCII digits only, not "١" or "１"; leading zeros dropped before int(), which refuses more
    # than 4,300 digits: a seat is at most a few)
    seat_digits = seat_text.lstrip("0") or "0"
    if not (seat_text.isascii() and seat_text.isdigit()) or len(seat_digits) > 4 or not 0 <= int(seat_digits) < seats:
        raise IllegalAction("MALFORMED_ACTION", f"cannot read action {shown(text)}: {shown(seat_text)} is not a seat of this {seats}-seat table (0..{seats - 1})")
    seat = int(seat_digits)

    def unreadable(why: str) -> IllegalAction:
        return IllegalAction("MALFORMED_ACTION", f"cannot read action {shown(text)}: {why}")

    if looks_like_card(word):
        try:
            card = deck.parse_card(word)
        except ValueError as exc:
            raise unreadable(str(exc)) from None
        if args:
            raise unreadable(f"a card is played alone, e.g. \"{seat} {card}\"")
        return Action(seat, card=card)
    if word not in calls:
        raise unreadable(f"{shown(word)} is neither a card nor a call of this game ({', '.join(sorted(calls))})")
    kind = calls[word]
    if kind == NO_ARGS and args:
        raise unreadable(f"{word} is written alone, e.g. \"{seat} {word}\"")
    if kind == SUIT_ARG and (len(args) != 1 or args[0] not in SUIT_WORDS):
        raise unreadable(f"{word} names one suit: oros, copas, espadas or bastos, e.g. \"{seat} {word} oros\"")
    if kind in (CARD_ARG, CARDS_ARGS):
        try:
            cards = [deck.parse_card(a) for a in args]
        except ValueError as exc:
            raise unreadable(str(exc)) from None
        if kind == CARD_ARG and len(cards) != 1:
            raise unreadable(f"{word} names one card, e.g. \"{seat} {word} 4c\"")
        if len(set(cards)) != len(cards):
            raise unreadable(f"{word} names a card twice")
        args = tuple(str(c) for c in sorted_cards(cards))
    return Action(seat, call=word, args=args)


ACTION_CACHE_SIZE = 4096


def action_reader(game: Game, seats: int) -> ActionReader:
    """The ``ActionReader`` of one game and table size (made once)."""
    reader = _READERS.get((game.NAME, seats))
    if reader is None:
        reader = _READERS[game.NAME, seats] = ActionReader(seats, game.DECK, game.CALLS)
    return reader


class ActionReader:
    """``parse_action`` for one game and table size, remembering what it has read: a game has a
    few hundred action spellings (a seat and a card, a call), so records are read by lookup. The
    memory is bounded (cleared when full) and holds only actions that were read successfully.
    (A class, not a closure: under mypyc the replay's call of ``read`` is then a native call,
    without the arguments and the answer going through Python's calling convention.)"""

    def __init__(self, seats: int, deck: Deck, calls: dict[str, str]) -> None:
        self.seats: Final = seats
        self.deck: Final = deck
        self.calls: Final = calls
        self.known: Final[dict[str, Action]] = {}

    def read(self, text: Any) -> Action:
        known = self.known
        action = known.get(text) if isinstance(text, str) else None
        if action is None:
            action = parse_action(text, self.seats, self.deck, self.calls)
            if len(known) >= ACTION_CACHE_SIZE:
                known.clear()
            known[text] = action
        return action


_READERS: dict[tuple[str, int], ActionReader] = {}


class Rules:
    """A game's ``is_legal`` and ``advance`` (``apply`` into the replay's list), the calls
    ``replay`` makes at every action, as the methods of a plain class: each game module has one, ``RULES``, whose
    methods call the module's functions. Compiled, ``replay`` calls a method of a compiled class
    natively, where it calls a module's function through Python's calling convention (its
    arguments checked and boxed, the answer's tuple made): a tenth of the replay of a Revesino
    record."""

    def is_legal(self, state: Any, action: Action) -> bool:
        raise NotImplementedError

    def apply(self, state: Any, action: Action) -> tuple[Any, list[dict[str, Any]]]:
        raise NotImplementedError

    def advance(self, state: Any, action: Action, events: list[dict[str, Any]] | None) -> Any:
        """``apply``, its events appended to ``events`` (the replay's list; None: no events wanted).
        A game may play a card without making a list of its events (the commonest action), and
        without making them at all when none are wanted, by its own ``advance``."""
        state, made = self.apply(state, action)
        if events is not None:
            events += made
        return state


class Game(Protocol):
    """What a game module provides to the shared record machinery."""

    NAME: str
    SEATS: tuple[int, ...]
    DECK: Deck
    CALLS: dict[str, str]  # call word -> how its arguments are written (NO_ARGS, SUIT_ARG, CARD_ARG, CARDS_ARGS)
    Options: type

    def read_table(self, table: Any, seats: int) -> Any: ...
    def read_deal(self, hands: list[tuple[Card, ...]], stock: tuple[Card, ...], seats: int, dealer: int) -> None: ...
    def deal_from_pack(self, pack: list[Card], seats: int, dealer: int) -> tuple[list[tuple[Card, ...]], tuple[Card, ...]]: ...
    def start(self, setup: Setup) -> Any: ...
    def legal_actions(self, state: Any) -> Sequence[Action]: ...
    def is_legal(self, state: Any, action: Action) -> bool: ...  # membership in legal_actions
    def to_act(self, state: Any) -> int | None: ...
    def is_finished(self, state: Any) -> bool: ...
    def out_of_turn_calls(self, state: Any, seat: int) -> frozenset[str]: ...
    def not_your_turn(self, state: Any, seat: int) -> str: ...  # NOT_YOUR_TURN's message
    def explain(self, state: Any, action: Action) -> IllegalAction: ...
    def apply(self, state: Any, action: Action) -> tuple[Any, list[dict[str, Any]]]: ...
    RULES: Rules  # is_legal and apply, for replay
    def tricks(self, state: Any) -> list[Trick]: ...
    def summary(self, state: Any) -> dict[str, Any]: ...
    def settlement(self, state: Any) -> dict[str, Any]: ...
    def trick_winner_index(self, cards: Any, trump: Any) -> int: ...
    HAS_TRUMP: bool
    def is_trump(self, card: Card, trump: Any) -> bool: ...
    def trick_size(self, seats: int) -> int: ...
    def trick_players(self, seats: int, dealer: int | None, leader: int, count: int) -> list[int]: ...
    def trick_money(self, options: Any, request: dict[str, Any], cards: Any, players: list[int], index: int) -> dict[str, Any]: ...
    def settle_summary(self, options: Any, table: Any, request: dict[str, Any]) -> dict[str, Any]: ...
    def next_dealer(self, options: Any, dealer: int, seats: int) -> int: ...
    def view(self, state: Any, seat: int) -> dict[str, Any]: ...


class Setup:
    """Everything a record fixes before the first action. (A plain class: a dataclass's
    constructor runs interpreted even when the engine is compiled, ~1.6 µs a record.)"""

    seats: Final[int]
    dealer: Final[int]
    options: Final[Any]
    table: Final[Any]
    hands: Final[tuple[tuple[Card, ...], ...]]
    stock: Final[tuple[Card, ...]]
    seed: Final[str | None]

    def __init__(self, seats: int, dealer: int, options: Any, table: Any, hands: tuple[tuple[Card, ...], ...],
                 stock: tuple[Card, ...], seed: str | None = None) -> None:
        self.seats = seats
        self.dealer = dealer
        self.options = options
        self.table = table
        self.hands = hands
        self.stock = stock
        self.seed = seed

    def __repr__(self) -> str:
        return fields_repr(self, ("seats", "dealer", "options", "table", "hands", "stock", "seed"))


class Replay:
    """A replay's outcome: the state reached, the events of the actions applied, and the first
    illegal action's violation (the state is then the one before it)."""

    def __init__(self, state: Any, events: list[Any], violation: dict[str, Any] | None = None) -> None:
        self.state = state
        self.events = events
        self.violation = violation


def require(obj: dict[str, Any], name: str, kind: type | tuple[type, ...], where: str = "") -> Any:
    """Fetch a required field of the expected JSON type, or raise ``InvalidInput`` naming it."""
    path = f"{where}{name}"
    if name not in obj or obj[name] is None:
        raise InvalidInput("MISSING_FIELD", path, f"{path} is required")
    value = obj[name]
    if isinstance(value, float) and kind is int and value.is_integer():
        value = int(value)
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        names = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
        raise InvalidInput("INVALID_FIELD", path, f"{path} must be {_JSON_TYPE.get(names, names)}, not {shown(value)}")
    return value


_JSON_TYPE = {"int": "an integer", "str": "a string", "list": "a list", "dict": "an object"}


# The most tantos a table carries (a plate with its reserved puestas, a fondo). Every figure of an
# answer is a 32-bit integer in the schema and a hand moves a few times what the table holds at
# most; a hundred million tantos is beyond any table's stakes, and keeps every figure in range.
MAX_TANTOS: Final = 100_000_000


def check_tantos(amount: int, field: str, what: str, code: str = "INVALID_TABLE") -> None:
    """``what`` (``table.plate 30``) is at most ``MAX_TANTOS``."""
    if amount > MAX_TANTOS:
        raise InvalidInput(code, field, f"{what} is more than a table carries: at most {MAX_TANTOS:,} tantos")


def fresh_table_field(name: str, value: Any) -> bool:
    """Whether a field of another game's table holds a fresh table's value (absent, 0, "", an empty
    list, a Tresillo plate holding "none"), which a Revesino or Rentoy table reads as absent: protobuf
    JSON prints every field of the one table message, another game's at its defaults."""
    return value is None or (not isinstance(value, bool) and value in (0, [], "")) or (name == "plateHolds" and value == "none")


def json_int(value: Any) -> int | None:
    """A JSON integer (an integral float from protobuf's Struct included), else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value if isinstance(value, int) else None


def read_seats(game: Game, request: dict[str, Any]) -> int:
    """A request's ``seats``: one of the table sizes the game is played at."""
    seats: int = require(request, "seats", int)
    check_seats(game, seats)
    return seats


def check_seats(game: Game, seats: int) -> None:
    if seats not in game.SEATS:
        allowed = ", ".join(map(str, game.SEATS))
        raise InvalidInput("INVALID_SEATS", "seats", f"{game.NAME} is played with {allowed} seats, not {seats}")


def read_dealer(request: dict[str, Any], seats: int) -> int:
    """A request's ``dealer``: a seat of the table."""
    dealer: int = require(request, "dealer", int)
    if not 0 <= dealer < seats:
        raise InvalidInput("SEAT_OUT_OF_RANGE", "dealer", f"dealer {dealer} is not a seat of this {seats}-seat table (0..{seats - 1})")
    return dealer


def play_actions(deck: Deck, seats: int) -> tuple[dict[int, Action], ...]:
    """Every card play of every seat, made once: ``[seat][card.key]``. Legal lists are built by
    looking actions up in such tables (and are shared: callers must not change them)."""
    return tuple({card.key: Action(seat, card=card) for card in deck.cards} for seat in range(seats))


def call_actions(calls: dict[str, str], seats: int) -> tuple[dict[str, Action], ...]:
    """Every call written alone (``NO_ARGS``) of every seat, made once: ``[seat][call]``."""
    return tuple({call: Action(seat, call=call) for call, args in calls.items() if args == NO_ARGS} for seat in range(seats))


def read_setup(game: Game, record: Any) -> tuple[Setup, list[Any]]:
    """Check a record's shape and read its setup; return it with the action list."""
    from engine import shuffle

    if not isinstance(record, dict):
        raise InvalidInput("INVALID_FIELD", "record", "a hand record must be a JSON object")
    seats = read_seats(game, record)
    dealer = read_dealer(record, seats)
    options = game_options(game, record.get("rules"))
    table = game.read_table({} if record.get("table") is None else record["table"], seats)  # (not a falsy non-object: refused)
    deal = require(record, "deal", dict)
    unknown = set(deal) - {"hands", "stock", "seed"}
    if unknown:
        name = sorted(unknown)[0]
        raise InvalidInput("INVALID_FIELD", f"deal.{name}", f"deal has no field {shown(name)}: give hands and stock, or seed")
    seed = deal.get("seed")
    if seed is not None and (deal.get("hands") or deal.get("stock")):
        raise InvalidInput("INVALID_DEAL", "deal.seed", "give either deal.seed or deal.hands and deal.stock, not both")
    if seed is not None:
        if not isinstance(seed, str) or not seed:
            raise InvalidInput("INVALID_FIELD", "deal.seed", "deal.seed must be a non-empty string")
        hands_list, stock = game.deal_from_pack(shuffle.shuffle(game.DECK.cards, seed), seats, dealer)
        hands = tuple(hands_list)
    else:
        hands, stock = read_cards(game, deal, seats, dealer)
    actions = record.get("actions") or []
    if not isinstance(actions, list):
        raise InvalidInput("INVALID_FIELD", "actions", "actions must be a list of strings such as \"2 1e\"")
    if len(actions) > MAX_ACTIONS:
        raise InvalidInput("PAYLOAD_TOO_LARGE", "actions", f"a hand has at most {MAX_ACTIONS} actions; this record has {len(actions)}")
    return Setup(seats, dealer, options, table, hands, stock, seed), actions


def game_options(game: Game, rules: Any) -> Any:
    from engine.options import parse_options

    return parse_options(game.Options, rules)


def read_cards(game: Game, deal: dict[str, Any], seats: int, dealer: int) -> tuple[tuple[tuple[Card, ...], ...], tuple[Card, ...]]:
    """Read ``deal.hands`` and ``deal.stock``: cards of the deck, none twice."""
    hands_json = require(deal, "hands", list, "deal.")
    if len(hands_json) != seats:
        raise InvalidInput("WRONG_HAND_SIZE", "deal.hands", f"deal.hands must have one entry per seat ({seats}), not {len(hands_json)}")
    hands = tuple(game.DECK.parse_cards(h, f"deal.hands[{i}]") for i, h in enumerate(hands_json))
    stock = game.DECK.parse_cards(deal.get("stock", ""), "deal.stock")
    seen = 0  # the cards dealt so far, as a set of bits by card key (a key is below 64)
    for cards in (*hands, stock):
        for card in cards:
            bit = 1 << card.key
            if seen & bit:
                _duplicate(hands, stock)
            seen |= bit
    game.read_deal(list(hands), stock, seats, dealer)
    return hands, stock


def _duplicate(hands: tuple[tuple[Card, ...], ...], stock: tuple[Card, ...]) -> None:
    """Raise the error naming the first card dealt twice."""
    seen: dict[Card, str] = {}
    for where, cards in [*((f"deal.hands[{i}]", h) for i, h in enumerate(hands)), ("deal.stock", stock)]:
        for card in cards:
            if card in seen:
                other = seen[card]
                also = "" if other == where else f" and in {other}"
                raise InvalidInput("DUPLICATE_CARD", where, f"{card} appears twice: in {where}{also}")
            seen[card] = where


def check(game: Game, state: Any, action: Action) -> None:
    """Raise the violation of an action that is not legal, by FORMAT.md's precedence."""
    if game.is_legal(state, action):
        return
    if game.is_finished(state):
        raise IllegalAction("NOT_ALLOWED_NOW", f"seat {action.seat} cannot act: the hand is over")
    to_act = game.to_act(state)
    if action.seat != to_act and action.call not in game.out_of_turn_calls(state, action.seat):
        raise IllegalAction("NOT_YOUR_TURN", game.not_your_turn(state, action.seat))
    raise game.explain(state, action)


def whose_turn(to_act: int | None, seat: int) -> str:
    """NOT_YOUR_TURN's message as a game says it unless it has more to say (``Game.not_your_turn``)."""
    return f"it is seat {to_act}'s turn, not seat {seat}'s"


# Events are dicts, each stamped with its ``action`` (the index of the action that caused it) by
# ``replay``. A game may append *shared* events: dicts of its own tables, made once at import
# (Tresillo's and Revesino's card played, trick won), with an ``action`` key set to None, which
# are never changed nor handed out themselves. The replay hands out each shared event as a copy
# with its ``action`` set; or, for the wire encoder (``events=WIRE``), as the pair (shared event,
# action index), which the encoder writes from that event's bytes, encoded once
# (``service/_wire.pyx``): the copies made, stamped, encoded and freed were about a third of a
# Revesino record's work in the streaming validator; the pairs save 12% of it (6% of a Tresillo
# record's).
WIRE: Final = "wire"


def replay(game: Game, setup: Setup, actions: list[Any], events: bool | str = True) -> Replay:
    """Fold the actions over the game's start state; stop at the first illegal action. Without
    ``events`` the replay's events stay empty, and the games do not make those of the cards
    played (a quarter of the replay of a Revesino record); with ``events=WIRE`` a shared event is
    the pair (shared event, action index) (``stamped`` makes the event it stands for)."""
    state = game.start(setup)
    reader = action_reader(game, setup.seats)
    rules = game.RULES
    applied: list[Any] = []
    sink = applied if events else None
    pairs = events == WIRE
    for i, text in enumerate(actions):
        try:
            action = reader.read(text)
            if not rules.is_legal(state, action):
                check(game, state, action)  # raises the violation
        except IllegalAction as exc:
            return Replay(state, applied, {"action": i, "code": exc.code, "message": f"action {i} ({shown(text)}): {exc.message}"})
        first = len(applied)
        state = rules.advance(state, action, sink)
        for k in range(first, len(applied)):
            event: dict[str, Any] = applied[k]
            if "action" not in event:  # made for this action: stamped as it is
                event["action"] = i
            else:
                applied[k] = (event, i) if pairs else stamped_copy(event, i)
    return Replay(state, applied)


def stamped_copy(event: dict[str, Any], action: Any) -> dict[str, Any]:
    """A shared event as handed out: a copy with its ``action`` set (the key is the shared
    event's, so the copy's value is replaced in place)."""
    copy = event.copy()
    copy["action"] = action
    return copy


def stamped(events: list[Any]) -> list[Any]:
    """A replay's events (``replay``) with each (shared event, action index) pair as the event
    it stands for."""
    return [stamped_copy(event[0], event[1]) if type(event) is tuple else event for event in events]


def shared_copied(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """An action's events (a game's ``apply``) with each shared event copied, so that a caller
    may change them."""
    return [event.copy() if "action" in event else event for event in events]
