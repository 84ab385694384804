"""Tresillo, per ``rules/tresillo.md`` (the spec) and ``docs/rules/tresillo.md`` (our decisions).

Three active players (a fourth, the dealer, sits out as the alcalde at a 4-seat table), nine
cards each, the auction (paso / juego / más), the lance (entrada, vuelta, solo), the exchange with
the baceta, nine tricks with the matadores' privileges, surrender and defence, primeras and bola.
The money of a finished hand (the plate, puestas, the cartulina, condiciones) is in
``engine.tresillo_settle``.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import combinations
from math import comb
from typing import Any, Final, overload

from engine import tresillo_settle as settle_mod
from engine.cards import (
    DECK_40,
    KEYS,
    SUIT_BY_WORD,
    SUIT_MASKS,
    Card,
    Suit,
    by_key,
    cards_of_mask,
    cards_str,
    key_mask,
    suit_index,
    suit_word,
)
from engine.errors import IllegalAction, InvalidInput
from engine.record import (
    CARDS_ARGS,
    NO_ARGS,
    SUIT_ARG,
    Action,
    Rules,
    Setup,
    appended,
    call_actions,
    fields_repr,
    play_actions,
    remember_last,
    shared_copied,
    whose_turn,
    with_item,
)
from engine.tresillo_options import Options, solera_unsurrenderable
from engine.tresillo_settle import BASTO, ESPADA, PLAIN_ORDER, Table, trump_order
from engine.tricks import Trick

# ---- cards -------------------------------------------------------------------------------

NAME = "tresillo"
SEATS = (3, 4)
DECK = DECK_40
CALLS = {"paso": NO_ARGS, "juego": NO_ARGS, "mas": NO_ARGS, "entrada": SUIT_ARG, "vuelta": NO_ARGS,
         "solo": SUIT_ARG, "contra": NO_ARGS, "cedo": NO_ARGS, "descarte": CARDS_ARGS, "rindo": NO_ARGS,
         "bien": NO_ARGS, "defiendo": NO_ARGS, "bola": NO_ARGS, "planto": NO_ARGS}

# 1.3: the plain suits' order (``PLAIN_ORDER``, highest first) as strengths.
_PLAIN_RANKS: Final = {suit: {card: len(order) - i for i, card in enumerate(order)} for suit, order in PLAIN_ORDER.items()}

# Phases (STYLE.md, habit 5), in the order a hand goes through them.
AUCTION: Final = "auction"
DECLARE: Final = "declare"
CONTRA_ORDER: Final = "contraOrder"
EXCHANGE: Final = "exchange"
PLAY: Final = "play"
SURRENDER: Final = "surrender"
BOLA_DECISION: Final = "bolaDecision"
OVER: Final = "over"


def is_trump(card: Card, trump: Suit) -> bool:
    return card.key in _TRUMP_KEYS[trump]


def trump_rank(trump: Suit) -> dict[Card, int]:
    """The trumps of a suit, each with its index in the trump order (0 = the espada)."""
    return _TRUMP_RANKS[trump]


_TRUMP_RANKS: Final = {suit: {card: i for i, card in enumerate(trump_order(suit))} for suit in Suit}

# The same tables by ``Card.key`` (an int): the play looks cards up by key, which costs the same
# whatever a card's equality is. ``_TRUMP_KEYS[trump][key]`` is the trump's index in the trump
# order (0 = the espada; 0..2 are the matadores); ``_PLAIN_KEYS[key]`` a card's strength in its
# suit when that suit is not trump.
_TRUMP_KEYS: Final = {suit: {card.key: i for i, card in enumerate(trump_order(suit))} for suit in Suit}
_PLAIN_KEYS: Final = {card.key: rank for ranks in _PLAIN_RANKS.values() for card, rank in ranks.items()}

# The play reads them as tuples indexed by ``Card.key`` (below 64), -1 for a card not in the table
# (not a trump; a black ace, never a plain card): an index rather than a dict lookup, several
# times a card. ``_TRUMP_BY_KEY`` is by ``cards.suit_index`` of the trump.
_TRUMP_BY_KEY: Final = tuple([by_key(_TRUMP_KEYS[suit], -1) for suit in Suit])
_PLAIN_BY_KEY: Final = by_key(_PLAIN_KEYS, -1)
_TRUMP_MASKS: Final = tuple([key_mask(trump_order(suit)) for suit in Suit])
"""The trumps of each suit as a ``key_mask``, by ``cards.suit_index`` of the trump (the espada
and the basto are in every suit's)."""


def is_matador(card: Card, trump: Suit) -> bool:
    return _TRUMP_KEYS[trump].get(card.key, 3) < 3


def strength(card: Card, led: Card, trump: Suit) -> int:
    """Section 6: the lowest trump rank wins; else the best card of the suit led; else nothing."""
    ranks = _TRUMP_KEYS[trump]
    rank = ranks.get(card.key)
    if rank is not None:
        return 100 - rank
    if led.key not in ranks and card.suit is led.suit:
        return _PLAIN_KEYS[card.key]
    return -1


def trick_winner_index(cards: tuple[Card, ...] | list[Card], trump: Suit) -> int:
    return _winner_index(tuple(cards), _TRUMP_BY_KEY[suit_index(trump)])


def _winner_index(cards: tuple[Card, ...], ranks: tuple[int, ...]) -> int:
    """The position of the card that wins (so far) by ``strength``, the first of equals as in
    ``engine.tricks.winning_index``, with the trump order by key ``ranks`` (``_TRUMP_BY_KEY``)."""
    led = cards[0]
    rank = ranks[led.key]
    if rank >= 0:  # a trump led: the best trump wins
        best, best_rank = 0, rank
        for i in range(1, len(cards)):
            rank = ranks[cards[i].key]
            if rank >= 0 and rank < best_rank:
                best, best_rank = i, rank
        return best
    # a plain suit led: the best trump, else the best card of the suit led
    suit, best, best_value = led.suit, 0, _PLAIN_BY_KEY[led.key]
    for i in range(1, len(cards)):
        card = cards[i]
        rank = ranks[card.key]
        value = 100 - rank if rank >= 0 else _PLAIN_BY_KEY[card.key] if card.suit is suit else -1
        if value > best_value:
            best, best_value = i, value
    return best


HAS_TRUMP = True


def trick_size(seats: int) -> int:
    return 3  # three active players, at three seats or four


def trick_players(seats: int, dealer: int | None, leader: int, count: int) -> list[int]:
    """The seats playing to a trick from its leader; at four seats the dealer (the alcalde) is
    skipped, so the dealer must be known."""
    if seats == 4:
        if dealer is None:
            raise InvalidInput("MISSING_FIELD", "dealer", "dealer is required at a four-seat table: the alcalde plays no card")
        if leader == dealer:
            raise InvalidInput("INVALID_FIELD", "leader", f"seat {leader} deals and sits out as the alcalde: it cannot lead")
    order = active_seats(seats, dealer if dealer is not None else 0) if seats == 4 else tuple(range(3))
    first = order.index(leader)
    return [order[(first + i) % 3] for i in range(count)]


def trick_money(options: Options, request: dict[str, Any], cards: Any, players: list[int], index: int) -> dict[str, Any]:
    return {}  # Tresillo pays at the end of the hand only


# ---- state -------------------------------------------------------------------------------


_NO_TRUMP: Final = (-1,) * KEYS  # ``State.trump_keys`` before the trump is known


_STATE_FIELDS: Final = ("options", "seats", "dealer", "table", "masks", "stock", "phase", "turn", "order",
                  "bidders", "level", "holder", "forced_entrada",
                  "jugador", "lance", "trump", "trump_keys", "trump_mask", "turned", "solera", "queue", "discards", "exchanged",
                  "jugador_cards", "leader", "trick_cards", "tricks", "won",
                  "rendido", "asking", "defender", "surrender", "bola", "annulled", "resume")


class State:
    """A hand at one moment. A state is not changed once made: an action makes a ``copy`` and sets
    on it the fields it changes. (A class with ``__slots__`` rather than a NamedTuple: its copy
    costs a fraction of ``NamedTuple._replace``, and mypyc compiles it to a native class.)

    Each seat's cards are kept as a ``key_mask`` (``masks``; ``hands`` gives them as cards): an
    int below 2**62, which mypyc computes with unboxed, so a play clears one bit, holding a card
    is a bit test and following suit or trumps is a mask (``SUIT_MASKS``, ``trump_mask``), and no
    tuple of cards is searched, made or freed at each card. A mask's cards come out in canonical
    order (``cards_of_mask``)."""

    __slots__ = _STATE_FIELDS

    def __init__(self, options: Options, seats: int, dealer: int, table: Table, masks: tuple[int, ...],
                 stock: tuple[Card, ...], phase: str, turn: int | None, order: tuple[int, ...],
                 bidders: tuple[int, ...] = (), level: int = 0, holder: int | None = None, forced_entrada: bool = False,
                 jugador: int | None = None, lance: str | None = None, trump: Suit | None = None,
                 trump_keys: tuple[int, ...] = _NO_TRUMP, trump_mask: int = 0, turned: Card | None = None,
                 solera: bool = False,
                 queue: tuple[int, ...] = (), discards: tuple[tuple[Card, ...], ...] = (), exchanged: tuple[int, ...] = (),
                 jugador_cards: tuple[Card, ...] = (), leader: int = 0, trick_cards: tuple[Card, ...] = (),
                 tricks: tuple[Trick, ...] = (), won: tuple[int, ...] = (),
                 rendido: int | None = None, asking: tuple[int, ...] = (), defender: int | None = None,
                 surrender: str = "none", bola: str = "none", annulled: bool = False,
                 resume: int | None = None) -> None:
        self.options = options
        self.seats = seats
        self.dealer = dealer
        self.table = table
        self.masks = masks  # per seat, the cards held, as a key mask
        self.stock = stock  # what is left of the baceta, top first
        self.phase = phase
        self.turn = turn  # the seat to act
        self.order = order  # the active seats: mano, medio, postre
        # auction (3.3)
        self.bidders = bidders  # seats still in the auction
        self.level = level
        self.holder = holder
        self.forced_entrada = forced_entrada  # espadaForzada ifAllPass: the holder of 1e must play an entrada
        # declaration and exchange (3.4, 4)
        self.jugador = jugador
        self.lance = lance
        self.trump = trump
        self.trump_keys = trump_keys  # the trump order by card key (``_TRUMP_BY_KEY``; -1: not a trump)
        self.trump_mask = trump_mask  # the trumps as a key mask (``_TRUMP_MASKS``; 0 before the trump is known)
        self.turned = turned
        self.solera = solera
        self.queue = queue  # seats still to exchange, in order
        self.discards = discards  # private, by seat
        self.exchanged = exchanged  # public counts, by seat (-1: not yet)
        self.jugador_cards = jugador_cards  # the Jugador's hand when play starts (estuches)
        # play (5, 6)
        self.leader = leader  # the trick in progress: its leader and its cards so far
        self.trick_cards = trick_cards
        self.tricks = tricks
        self.won = won  # the tricks won so far, by seat
        # surrender and defence (7.4), bola (7.2)
        self.rendido = rendido
        self.asking = asking  # opponents still to answer a surrender
        self.defender = defender
        self.surrender = surrender  # none | accepted | defended
        self.bola = bola  # none | attempt | made | failed
        self.annulled = annulled
        self.resume = resume  # whose turn it was when the Jugador surrendered

    def copy(self) -> State:
        return State(self.options, self.seats, self.dealer, self.table, self.masks, self.stock, self.phase, self.turn,
                     self.order, self.bidders, self.level, self.holder, self.forced_entrada,
                     self.jugador, self.lance, self.trump, self.trump_keys, self.trump_mask, self.turned, self.solera, self.queue,
                     self.discards, self.exchanged, self.jugador_cards, self.leader, self.trick_cards, self.tricks, self.won,
                     self.rendido, self.asking, self.defender, self.surrender, self.bola, self.annulled,
                     self.resume)

    def __repr__(self) -> str:
        return fields_repr(self, _STATE_FIELDS)

    @property
    def hands(self) -> tuple[tuple[Card, ...], ...]:
        """Each seat's cards, in canonical order."""
        return tuple([cards_of_mask(mask) for mask in self.masks])

    @property
    def trick(self) -> Trick:
        """The trick in progress."""
        return Trick(self.leader, self.trick_cards)

    @property
    def mano(self) -> int:
        return self.order[0]

    @property
    def finished(self) -> bool:
        return self.phase == OVER

    @property
    def max_level(self) -> int:
        return 3 if self.options.favor_suit == "none" else 5

    @property
    def favor(self) -> Suit | None:
        word = self.options.favor_suit
        favor = _FAVOR_SUITS.get(word)  # (by the word: ``Suit.from_word`` is a call into a class mypyc does not compile)
        return favor if favor is not None or word == "none" else Suit.from_word(word)


_FAVOR_SUITS: Final[dict[str, Suit | None]] = {**SUIT_BY_WORD, "none": None}


def active_seats(seats: int, dealer: int) -> tuple[int, ...]:
    """2.2: mano, medio, postre. At four seats the dealer is the alcalde and does not play."""
    n = 4 if seats == 4 else 3  # (a tuple display: ``tuple`` of a generator makes a generator object)
    return ((dealer + 1) % n, (dealer + 2) % n, (dealer + 3) % n)


def read_table(table: Any, seats: int) -> Table:
    return settle_mod.read_table(table, seats)


def read_deal(hands: list[tuple[Card, ...]], stock: tuple[Card, ...], seats: int, dealer: int) -> None:
    """Nine cards for each active seat, none for the alcalde, thirteen in the stock: the whole deck."""
    for i, hand in enumerate(hands):
        if seats == 4 and i == dealer:
            if hand:
                raise InvalidInput("WRONG_HAND_SIZE", f"deal.hands[{i}]",
                                   f"seat {i} deals at this four-seat table and sits out as the alcalde: his hand must be \"\"")
        elif len(hand) != 9:
            raise InvalidInput("WRONG_HAND_SIZE", f"deal.hands[{i}]", f"deal.hands[{i}] has {len(hand)} cards; Tresillo deals 9 to each active seat")
    if len(stock) != 13:
        raise InvalidInput("WRONG_HAND_SIZE", "deal.stock", f"deal.stock has {len(stock)} cards; the baceta holds the 13 cards left")


def deal_from_pack(pack: list[Card], seats: int, dealer: int) -> tuple[list[tuple[Card, ...]], tuple[Card, ...]]:
    """2.3: packets of three, three rounds, from the mano; the 13 left are the baceta."""
    order = active_seats(seats, dealer)
    hands: list[list[Card]] = [[] for _ in range(seats)]
    for packet in range(9):
        hands[order[packet % 3]].extend(pack[3 * packet:3 * packet + 3])
    return [tuple(h) for h in hands], tuple(pack[27:])


def start(setup: Setup) -> State:
    seats, order = setup.seats, active_seats(setup.seats, setup.dealer)
    masks = tuple([key_mask(h) for h in setup.hands])
    # (the leading fields by position, the rest set: a keyword call of the 36-field constructor costs more)
    state = State(setup.options, seats, setup.dealer, setup.table, masks, setup.stock, AUCTION, order[0], order)
    state.bidders, state.discards, state.exchanged, state.won = order, ((),) * seats, (-1,) * seats, (0,) * seats
    return state


def lance_level(state: State, lance: str, suit: Suit | None) -> int:
    """3.1: entrada 1 (2 in the favour suit), vuelta 3, solo 4 (5 in favour); without a favour
    suit the ladder is entrada 1, vuelta 2, solo 3."""
    if state.favor is None:
        return {"entrada": 1, "vuelta": 2, "solo": 3}[lance]
    favored = suit is state.favor
    return {"entrada": 2 if favored else 1, "vuelta": 3, "solo": 5 if favored else 4}[lance]


def is_favor(state: State) -> bool:
    if state.trump is None or state.trump is not state.favor:
        return False
    return state.lance != "vuelta" or state.options.vuelta_favor


# ---- legal actions -----------------------------------------------------------------------


def _position(state: State, seat: int) -> int:
    return _place(state.order, seat)


def _place(order: tuple[int, ...], seat: int) -> int:
    """``order.index(seat)`` by a loop on native ints (``tuple.index`` is a generic method call)."""
    for i in range(len(order)):
        if order[i] == seat:
            return i
    raise ValueError("tuple.index(x): x not in tuple")


def _equalises(state: State, seat: int) -> bool:
    """3.2 / A4: the mano's más only equals the bid; positionally, any earlier speaker's does."""
    assert state.holder is not None
    if state.options.auction_priority == "positional":
        return _position(state, seat) < _position(state, state.holder)
    return seat == state.mano


def _auction_voices(state: State, seat: int) -> list[str]:
    voices = ["paso"]
    if state.level == 0:
        voices.append("juego")
        if state.options.espada_forzada == "mustOpen" and state.masks[seat] >> ESPADA.key & 1:
            voices.remove("paso")  # A14: the espada must open
    elif state.holder != seat and (_equalises(state, seat) or state.level < state.max_level):
        voices.append("mas")
    return voices


def _declarations(state: State) -> list[Action]:
    """The Jugador's lances at or above the auction's level; the same few lists for every hand,
    made once each (and shared: callers must not change them)."""
    seat = state.jugador
    assert seat is not None
    key = (seat, state.options.favor_suit, state.level, state.forced_entrada)
    out = _DECLARATIONS.get(key)
    if out is None:
        out = _DECLARATIONS[key] = _make_declarations(state, seat)
    return out


_DECLARATIONS: Final[dict[tuple[int, str, int, bool], list[Action]]] = {}


def _make_declarations(state: State, seat: int) -> list[Action]:
    out = []
    for lance in ("entrada", "vuelta", "solo"):
        if state.forced_entrada and lance != "entrada":
            continue
        if lance == "vuelta":
            if lance_level(state, lance, None) >= state.level:
                out.append(Action(seat, call="vuelta"))
            continue
        for suit in Suit:
            if lance_level(state, lance, suit) >= state.level:
                out.append(Action(seat, call=lance, args=(suit.word,)))
    return out


def _discard_range(state: State, seat: int) -> tuple[int, int, int]:
    """The cards a seat may discard (a key mask) and how many (4, A11, A12)."""
    hand = state.masks[seat]
    if seat == state.jugador and state.lance == "vuelta":
        if not state.options.vuelta_turned_card_discardable and state.turned is not None:
            hand &= ~(1 << state.turned.key)
        return hand, 1, min(hand.bit_count(), len(state.stock) + 1)
    if seat == state.jugador:
        return hand, state.options.entrada_min_discard, min(9, len(state.stock))
    return hand, 0, min(9, len(state.stock))


def _discards(state: State, seat: int) -> Descartes:
    cards, low, high = _discard_range(state, seat)
    return Descartes(seat, _codes(cards), low, high)


def _codes(mask: int) -> tuple[str, ...]:
    """The canonical spellings of the cards of a key mask, in canonical order."""
    return tuple([c.code for c in cards_of_mask(mask)])


class Descartes(Sequence[Action]):
    """Every descarte of ``low`` to ``high`` of the cards ``names`` (in canonical order, so every
    subset is too), fewest cards first and each size in the order of ``itertools.combinations``:
    a seat's legal list in the exchange, up to a thousand actions.

    The list is not made: an action is made when it is asked for. ``descarte[i]`` finds the i-th
    by combinatorial unranking (the size from the counts of each size, then each card in turn
    from the number of subsets that start with it), iterating makes them in order, and
    membership is decided by rule (``low`` to ``high`` distinct cards of ``names``, written in
    their order), so that ``is_legal`` and the list cannot disagree."""

    def __init__(self, seat: int, names: tuple[str, ...], low: int, high: int) -> None:
        self.seat = seat
        self.names = names
        self.low = low
        self.high = high
        # firsts[j]: the index of the first descarte of low + j cards; the last entry is the length
        firsts = [0]
        for k in range(low, high + 1):
            firsts.append(firsts[-1] + comb(len(names), k))
        self.firsts = firsts

    def __len__(self) -> int:
        return self.firsts[-1]

    @overload
    def __getitem__(self, index: int) -> Action: ...

    @overload
    def __getitem__(self, index: slice) -> list[Action]: ...

    def __getitem__(self, index: int | slice) -> Action | list[Action]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        size = self.firsts[-1]
        if index < 0:
            index += size
        if not 0 <= index < size:
            raise IndexError(f"descarte index {index} out of range ({size} descartes)")
        firsts, names = self.firsts, self.names
        j = 0
        while firsts[j + 1] <= index:
            j += 1
        k, rank = self.low + j, index - firsts[j]  # the rank-th subset of k cards
        n = len(names)
        out: list[str] = []
        at = 0  # the next card that may be taken
        while len(out) < k:
            starting = comb(n - at - 1, k - len(out) - 1)  # the subsets that take card ``at`` next
            if rank < starting:
                out.append(names[at])
            else:
                rank -= starting
            at += 1
        return Action(self.seat, None, "descarte", tuple(out))

    def __iter__(self) -> Iterator[Action]:
        seat, names = self.seat, self.names
        for k in range(self.low, self.high + 1):
            for args in combinations(names, k):
                yield Action(seat, None, "descarte", args)

    def __contains__(self, action: object) -> bool:
        if not isinstance(action, Action) or action.card is not None or action.call != "descarte" or action.seat != self.seat:
            return False
        return _is_descarte_of(action.args, self.names, self.low, self.high)


def _is_descarte_of(args: Any, names: tuple[str, ...], low: int, high: int) -> bool:
    """The rule of the exchange's list: ``low`` to ``high`` distinct cards of ``names``, written
    in their (canonical) order."""
    if type(args) is not tuple or not low <= len(args) <= high:
        return False
    at, n = 0, len(names)  # each name is found after the previous one: in order, none twice
    for name in args:
        while at < n and names[at] != name:
            at += 1
        if at == n:
            return False
        at += 1
    return True


def _is_legal_descarte(state: State, action: Action) -> bool:
    """Membership of a descarte in ``_discards``' list, by the list's own rule, without making
    the list."""
    seat = action.seat
    if seat != state.turn or action.card is not None:
        return False
    cards, low, high = _discard_range(state, seat)
    return _is_descarte_of(action.args, _codes(cards), low, high)


def playable(state: State, seat: int) -> list[Card]:
    """Section 5, as an ordered cascade: follow the suit led; on a trump lead play a trump unless
    every trump held is a privileged matador."""
    return list(cards_of_mask(_playable(state, seat)))


def _playable(state: State, seat: int) -> int:
    """``playable`` as a key mask."""
    hand = state.masks[seat]
    trick = state.trick_cards
    if not trick:
        return hand  # the leader plays anything
    led = trick[0]
    led_rank = state.trump_keys[led.key]
    if led_rank < 0:
        # A plain suit led: follow it if possible. The espada and the basto are trumps, never
        # cards of their printed suit.
        follow = hand & _plain_suit(state, led)
        return follow if follow else hand
    if _must_play_trump(state, hand, led_rank):
        return hand & state.trump_mask
    return hand


def _plain_suit(state: State, led: Card) -> int:
    """The cards that follow a plain suit led by ``led`` (its suit less the trumps), as a key mask."""
    return SUIT_MASKS[led.key >> 4] & ~state.trump_mask


def _must_play_trump(state: State, hand: int, led_rank: int) -> bool:
    """Section 5 on a trump lead (of rank ``led_rank``): whether ``hand`` (a key mask) must play a
    trump. It must when it holds an ordinary trump. When every trump it holds is a matador (rank
    0..2), it is forced only when that is the only trump held (or with multiMatadorRenege off), by
    a higher matador led by the mano (or by anyone)."""
    ranks = state.trump_keys
    trumps = hand & state.trump_mask
    count, ordinary, outranked = 0, False, False
    while trumps:
        low = trumps & -trumps
        rank = ranks[low.bit_length() - 1]
        trumps ^= low
        count += 1
        ordinary = ordinary or rank >= 3
        outranked = outranked or led_rank < rank
    if count == 0:
        return False
    if ordinary:
        return True
    if state.options.multi_matador_renege and count > 1:
        return False
    forcing = state.options.matador_forcing == "trickLeader" or state.leader == state.mano
    # (every trump held is a matador here, so a trump led that outranks one is itself a matador, rank 0 or 1)
    return forcing and outranked


def _may_play(state: State, seat: int, card: Card) -> bool:
    """Membership of ``card`` in ``playable(state, seat)``: a bit of its mask, no list made."""
    return bool(_playable(state, seat) >> card.key & 1)


def _may_surrender(state: State) -> bool:
    """7.4 / A31: entrada or vuelta (not a forbidden solera), the original Jugador, before he
    plays his card to the fourth trick."""
    jugador = state.jugador
    if state.phase != PLAY or jugador is None or state.lance == "solo" or state.rendido is not None:
        return False
    if state.lance == "vuelta" and solera_unsurrenderable(state.options, state.solera):
        return False
    if state.options.surrender_only_on_own_turn and state.turn != jugador:
        return False
    played = len(state.tricks)
    if played < 3:
        return True
    order = state.order  # the fourth trick: has the Jugador played to it yet?
    return played == 3 and (_place(order, jugador) - _place(order, state.leader)) % 3 >= len(state.trick_cards)


# Every action but a descarte, made once (actions are immutable and can be shared between lists):
# a call without arguments by (seat, call), a card played by seat and ``Card.key``.
_CALL_ACTIONS: Final = call_actions(CALLS, 4)
_CARD_ACTIONS: Final = play_actions(DECK, 4)


@remember_last
def legal_actions(state: State) -> Sequence[Action]:
    phase, seat = state.phase, state.turn
    if phase == OVER or seat is None:
        return []
    if phase == PLAY:
        actions = _CARD_ACTIONS[seat]
        out = [actions[c.key] for c in cards_of_mask(_playable(state, seat))]
        if _may_surrender(state):
            assert state.jugador is not None
            out.append(_CALL_ACTIONS[state.jugador]["rindo"])
        return out
    if phase == EXCHANGE:
        return _discards(state, seat)
    if phase == AUCTION:
        return [_CALL_ACTIONS[seat][v] for v in _auction_voices(state, seat)]
    if phase == DECLARE:
        return _declarations(state)
    if phase == CONTRA_ORDER:
        return [_CALL_ACTIONS[seat]["contra"], _CALL_ACTIONS[seat]["cedo"]]
    if phase == SURRENDER:
        return [_CALL_ACTIONS[seat]["bien"], _CALL_ACTIONS[seat]["defiendo"]]
    assert phase == BOLA_DECISION
    return [_CALL_ACTIONS[seat]["bola"], _CALL_ACTIONS[seat]["planto"]]


def is_legal(state: State, action: Action) -> bool:
    """Membership in ``legal_actions``, decided by rule rather than by building the list: in the
    play (a card of ``playable``, by ``_may_play``, or the Jugador's rindo), the exchange
    (``_is_legal_descarte``) and the phases of calls written alone; the declarations' short
    list is searched."""
    phase = state.phase
    if phase == OVER or state.turn is None:
        return False
    if phase == PLAY:
        card = action.card
        if card is not None:
            if action.seat != state.turn or action.call is not None or action.args != () or not isinstance(card, Card):
                return False
            return _may_play(state, action.seat, card)
        return (action.call == "rindo" and action.args == () and action.seat == state.jugador
                and _may_surrender(state))
    if phase == EXCHANGE:
        return action.call == "descarte" and _is_legal_descarte(state, action)
    if phase == DECLARE:
        return action in legal_actions(state)
    # The other phases' actions are calls written alone by the seat to act (``_CALL_ACTIONS``):
    # membership is the call's being one of the phase's words.
    if action.seat != state.turn or action.card is not None or action.args != ():
        return False
    call = action.call
    if phase == AUCTION:
        return call in _auction_voices(state, action.seat)
    if phase == CONTRA_ORDER:
        return call == "contra" or call == "cedo"
    if phase == SURRENDER:
        return call == "bien" or call == "defiendo"
    assert phase == BOLA_DECISION
    return call == "bola" or call == "planto"


def to_act(state: State) -> int | None:
    return None if state.finished else state.turn


def is_finished(state: State) -> bool:
    return state.finished


def out_of_turn_calls(state: State, seat: int) -> frozenset[str]:
    """Only the Jugador's surrender may come out of turn (section 0): too early or too late, it
    is NOT_ALLOWED_NOW rather than NOT_YOUR_TURN."""
    if seat == state.jugador and not state.options.surrender_only_on_own_turn:
        return frozenset({"rindo"})
    return frozenset()


def not_your_turn(state: State, seat: int) -> str:
    """What a seat that is not to act, and may not make its action out of turn, is told: whose turn it is."""
    return whose_turn(to_act(state), seat)


# Each phase as a refusal names it ("no card is played during the declaration"): its API name
# (the result's ``phase``) is a word of the wire, not of the table.
_PHASE_WORDS: Final = {
    AUCTION: "auction", DECLARE: "declaration", CONTRA_ORDER: "choice of the primer contra", EXCHANGE: "exchange",
    PLAY: "play", SURRENDER: "answers to the surrender", BOLA_DECISION: "bola decision",
}
_PHASE_CALLS: Final = {
    CONTRA_ORDER: "contra or cedo", EXCHANGE: "descarte [cards]", SURRENDER: "bien or defiendo", BOLA_DECISION: "bola or planto",
}


def _may_say(state: State, seat: int) -> str:
    """What the seat to act may say now, as its legal list has it: the auction's voices it has
    (no juego once bid, no más at the top level, no paso for the espada under espadaForzada
    mustOpen), the lances at or above the auction's level (a suit named when not every suit is
    allowed: entrada a favor, solo a favor), a card and, for the Jugador, rindo; the other phases'
    two calls or descarte, which the seat to act always has."""
    phase = state.phase
    if phase == AUCTION:
        items = _auction_voices(state, seat)
    elif phase == DECLARE:
        suits: dict[str, list[str]] = {}
        for action in _declarations(state):
            assert action.call is not None
            suits.setdefault(action.call, []).extend(action.args)
        items = [call if not args else f"{call} <suit>" if len(args) == 4 else " or ".join(f"{call} {a}" for a in args)
                 for call, args in suits.items()]
    elif phase == PLAY:
        items = ["a card", "rindo"] if seat == state.jugador and _may_surrender(state) else ["a card"]
    else:
        return _PHASE_CALLS[phase]
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " or " + items[-1]


def explain(state: State, action: Action) -> IllegalAction:
    """Why an action by a seat that may act now is not legal (section 0, Codes)."""
    seat, phase = action.seat, state.phase

    def not_now(why: str) -> IllegalAction:
        return IllegalAction("NOT_ALLOWED_NOW", why)

    if action.card is not None:
        if phase != PLAY:
            return not_now(f"no card is played during the {_PHASE_WORDS[phase]}: seat {seat} may say {_may_say(state, seat)}")
        hand = state.masks[seat]
        if not hand >> action.card.key & 1:
            return IllegalAction("CARD_NOT_IN_HAND", f"seat {seat} does not hold {action.card}; it holds {cards_str(cards_of_mask(hand))}")
        return _explain_card(state, seat, action.card)
    call = action.call
    assert call is not None
    if call == "rindo":
        return not_now(_why_no_surrender(state, seat))
    if phase == AUCTION and call in ("paso", "juego", "mas"):
        if call == "juego":
            # (at the top level a más is refused to a seat that cannot equal the bid: only paso is left)
            say = "mas or paso" if "mas" in _auction_voices(state, seat) else "paso"
            return not_now(f"the auction already stands at level {state.level}: juego only opens it; say {say}")
        if call == "paso":
            return not_now(f"seat {seat} holds the espada and nobody has bid: under espadaForzada mustOpen it must say juego")
        if state.level == 0:
            if "paso" not in _auction_voices(state, seat):
                return not_now(f"nobody has bid yet: open with juego; seat {seat} holds the espada and may not pass "
                               "(espadaForzada mustOpen)")
            return not_now("nobody has bid yet: open with juego, or paso")
        # (never the holder's own más: the holder does not speak in the auction, whose turn goes
        # to the other bidders after his bid and ends once they have all passed)
        if state.options.auction_priority == "positional":
            who = f"a seat that speaks before seat {state.holder}, who holds it, may equal it (auctionPriority positional)"
        else:
            who = "the mano may equal it"
        return not_now(f"the auction is at its top level {state.level}: only {who}; seat {seat} can only pass")
    if phase == DECLARE and call in ("entrada", "vuelta", "solo"):
        if state.forced_entrada:
            return not_now("the espada's holder must play an entrada when everybody passed (espadaForzada ifAllPass)")
        ladder = ("favorSuit none: entrada 1, vuelta 2, solo 3" if state.favor is None
                  else "entrada 1, entrada a favor 2, vuelta 3, solo 4, solo a favor 5")
        return not_now(f"the auction reached level {state.level}; {' '.join((call, *action.args))} is below it ({ladder})")
    if phase == EXCHANGE and call == "descarte":
        return _explain_discard(state, seat, action.args)
    return not_now(f"{call} is not a call of the {_PHASE_WORDS[phase]}: seat {seat} may say {_may_say(state, seat)}")


def _explain_card(state: State, seat: int, card: Card) -> IllegalAction:
    trump = state.trump
    assert trump is not None
    led = state.trick_cards[0]
    ranks = trump_rank(trump)
    legal = playable(state, seat)
    if led not in ranks:
        suit = led.suit.word
        note = f" ({card} is a trump, not a card of {suit})" if card in ranks and card.suit is led.suit else ""
        return IllegalAction("MUST_FOLLOW_SUIT", f"seat {seat} holds {cards_str(legal)} of {suit}, the suit led ({led}), "
                             f"and must follow it, not play {card}{note}")
    if len(legal) == 1 and is_matador(legal[0], trump):
        forced, by = legal[0], "the mano" if state.leader == state.mano else f"seat {state.leader}"
        name = _matador_name(forced, trump)
        return IllegalAction("MUST_PLAY_TRUMP", f"seat {seat} holds {forced}, {name}, its only trump, and {_matador_name(led, trump)} "
                             f"({led}) was led by {by}: {name} must be played, not {card}")
    trumps = "a trump" if len(legal) == 1 else "trumps"
    return IllegalAction("MUST_PLAY_TRUMP", f"seat {seat} holds {cards_str(legal)}, {trumps} ({trump.word}), and a trump was led "
                         f"({led}): seat {seat} must play a trump, not {card}")


def _matador_name(card: Card, trump: Suit) -> str:
    return "the espada" if card == ESPADA else "the basto" if card == BASTO else "the mala"


def _explain_discard(state: State, seat: int, args: tuple[str, ...]) -> IllegalAction:
    cards = [Card.parse(a) for a in args]
    hand = state.masks[seat]
    missing = [c for c in cards if not hand >> c.key & 1]
    if missing:
        return IllegalAction("CARD_NOT_IN_HAND", f"seat {seat} does not hold {cards_str(missing)}")
    if state.turned in cards and seat == state.jugador:
        return IllegalAction("NOT_ALLOWED_NOW", f"the turned card {state.turned} stays with the Jugador: it cannot be discarded")
    _, low, high = _discard_range(state, seat)
    return IllegalAction("NOT_ALLOWED_NOW", f"seat {seat} may discard {low} to {high} cards here, not {len(cards)}")


def _why_no_surrender(state: State, seat: int) -> str:
    if state.defender is not None and seat != state.jugador:  # (the Jugador himself has surrendered: below)
        who = "a defender cannot surrender" if seat == state.defender else f"seat {seat} was never the Jugador: he cannot surrender"
        return f"the surrendered entrada is defended: seat {state.defender} plays it out as the Jugador, and {who}"
    if state.jugador is not None and seat != state.jugador:  # (during the auction there is no Jugador to name)
        return f"only the Jugador (seat {state.jugador}) may surrender"
    if state.phase != PLAY:
        return f"a surrender comes after the exchange and before the Jugador's fourth card, not during the {_PHASE_WORDS[state.phase]}"
    if state.lance == "solo":
        return "a solo cannot be surrendered: the Jugador must play it out"
    if state.rendido is not None:
        return "the Jugador has already surrendered"
    if solera_unsurrenderable(state.options, state.solera):
        return "a vuelta solera cannot be surrendered (soleraSurrender forbidden)"
    # (not out of turn under surrenderOnlyOnOwnTurn: that rindo is NOT_YOUR_TURN, out_of_turn_calls
    # being empty then, and is not explained here)
    return "too late: the Jugador has played his card to the fourth trick"


# ---- applying actions --------------------------------------------------------------------

Events = list[dict[str, Any]]


def _next_in(order: tuple[int, ...], after: int, among: tuple[int, ...]) -> int | None:
    """The first seat of ``among`` after ``after`` in the cyclic ``order``."""
    start = _place(order, after)
    for k in range(1, len(order) + 1):
        seat = order[(start + k) % len(order)]
        if seat in among:
            return seat
    return None


def apply(state: State, action: Action) -> tuple[State, Events]:
    """Apply a legal action; return the new state and the events it caused."""
    if action.card is not None:
        events: Events = []
        return _play(state, action.seat, action.card, events), shared_copied(events)
    # The handler by the call's word, compared in turn: native calls (a table of functions would
    # make generic ones).
    call = action.call
    if call == "paso" or call == "juego" or call == "mas":
        return _auction(state, action)
    if call == "descarte":
        return _discard(state, action)
    if call == "entrada" or call == "vuelta" or call == "solo":
        return _declare(state, action)
    if call == "contra" or call == "cedo":
        return _contra(state, action)
    if call == "rindo":
        return _rindo(state, action)
    if call == "bien" or call == "defiendo":
        return _answer(state, action)
    if call == "bola" or call == "planto":
        return _bola(state, action)
    raise KeyError(call or "")


class _Rules(Rules):
    """``is_legal`` and ``apply`` for ``replay`` (``engine.record.Rules``)."""

    def is_legal(self, state: Any, action: Action) -> bool:
        return is_legal(state, action)

    def apply(self, state: Any, action: Action) -> tuple[Any, list[dict[str, Any]]]:
        return apply(state, action)

    def advance(self, state: Any, action: Action, events: list[dict[str, Any]] | None) -> Any:
        if action.card is None:
            return super().advance(state, action, events)
        return _play(state, action.seat, action.card, events)


RULES: Final = _Rules()


_PASS_TEXTS: Final = tuple(f"seat {seat} passes" for seat in range(4))
_JUEGO_TEXTS: Final = tuple(f"seat {seat}: juego (level 1)" for seat in range(4))


def _auction(state: State, action: Action) -> tuple[State, Events]:
    seat, voice = action.seat, action.call
    bidders, level, holder = state.bidders, state.level, state.holder
    if voice == "paso":
        bidders = tuple([s for s in bidders if s != seat])
        text = _PASS_TEXTS[seat]
    elif voice == "juego":
        level, holder = 1, seat
        text = _JUEGO_TEXTS[seat]
    else:
        if not _equalises(state, seat):
            level += 1
        holder = seat
        text = f"seat {seat}: más (level {level}{', equalling' if level == state.level else ''})"
    events: Events = [{"kind": voice, "seat": seat, "value": level, "text": text}]
    if not bidders:
        if state.options.espada_forzada == "ifAllPass":
            forced = next((s for s in state.order if state.masks[s] >> ESPADA.key & 1), None)
            if forced is not None:
                events.append({"kind": "espadaForzada", "seat": forced,
                               "text": f"everybody passed: seat {forced} holds the espada and must play an entrada"})
                new = state.copy()
                new.bidders, new.phase, new.turn, new.jugador, new.level, new.holder = bidders, DECLARE, forced, forced, 1, forced
                new.forced_entrada = True
                return new, events
        events.append({"kind": "annulled", "text": "everybody passed: the hand is annulled and the deal passes"})
        new = state.copy()
        new.bidders, new.level, new.holder, new.phase, new.turn, new.annulled = bidders, level, holder, OVER, None, True
        return new, events
    # (here and in the other actions: a copy and the fields set, cheaper than ``replace``'s keywords)
    new = state.copy()
    new.bidders, new.level, new.holder = bidders, level, holder
    if len(bidders) == 1 and level >= 1:
        winner = bidders[0]
        events.append({"kind": "jugador", "seat": winner, "value": level,
                       "text": f"seat {winner} wins the auction at level {level} and is the Jugador"})
        new.phase, new.turn, new.jugador = DECLARE, winner, winner
        return new, events
    new.turn = _next_in(state.order, seat, bidders)
    return new, events


def _declare(state: State, action: Action) -> tuple[State, Events]:
    seat, lance = action.seat, action.call
    assert lance is not None
    masks = state.masks
    stock = state.stock
    turned = None
    if lance == "vuelta":
        turned, stock = stock[0], stock[1:]
        trump = turned.suit  # A10: a turned 1e or 1b gives its printed suit
        masks = with_item(masks, seat, masks[seat] | 1 << turned.key)
        word = suit_word(trump)
        text = f"seat {seat} plays a vuelta: turns up {turned}, trumps are {word}"
    else:
        word = action.args[0]
        trump = SUIT_BY_WORD[word]
        text = f"seat {seat} plays {lance} in {word}"
    new = state.copy()
    new.lance, new.trump, new.turned, new.masks, new.stock = lance, trump, turned, masks, stock
    index = suit_index(trump)
    new.trump_keys, new.trump_mask = _TRUMP_BY_KEY[index], _TRUMP_MASKS[index]
    event: dict[str, Any] = {"kind": lance, "seat": seat}
    if turned is not None:
        event["card"] = turned.code
    event["text"] = text + (" a favor" if is_favor(new) else "")
    if lance == "solo":
        _to_opponents(new)
        return new, [event]
    new.phase, new.turn, new.queue = EXCHANGE, seat, (seat,)
    return new, [event]


def _to_opponents(new: State) -> None:
    """4: after the Jugador's exchange the opponent after him goes to the contra or cedes (or, by
    turnOrder, exchanges), then the other. Sets the fields on ``new``, a state just made by the
    action and not yet returned."""
    jugador = new.jugador
    assert jugador is not None
    first = _next_seat(new.order, jugador)
    second = _next_seat(new.order, first)
    new.phase = EXCHANGE if new.options.contra_order == "turnOrder" else CONTRA_ORDER
    new.turn, new.queue = first, (first, second)


def _contra(state: State, action: Action) -> tuple[State, Events]:
    first, second = state.queue
    queue = (first, second) if action.call == "contra" else (second, first)
    text = (f"seat {first} goes to the contra and exchanges first" if action.call == "contra"
            else f"seat {first} cedes: seat {second} exchanges first")
    new = state.copy()
    new.phase, new.turn, new.queue = EXCHANGE, queue[0], queue
    return new, [{"kind": action.call, "seat": first, "text": text}]


def _discard(state: State, action: Action) -> tuple[State, Events]:
    seat = action.seat
    out = tuple([Card.parse(a) for a in action.args])
    vuelta = seat == state.jugador and state.lance == "vuelta"
    draw = len(out) - 1 if vuelta else len(out)
    drawn, stock = state.stock[:draw], state.stock[draw:]
    masks = with_item(state.masks, seat, state.masks[seat] & ~key_mask(out) | key_mask(drawn))
    discards = with_item(state.discards, seat, state.discards[seat] + out)
    exchanged = with_item(state.exchanged, seat, len(out))
    solera = state.solera or (vuelta and len(out) == 1)
    queue = state.queue[1:]
    # (a one-card vuelta is a vuelta solera only while vueltaSoleraAllowed is on: off, it is a plain vuelta)
    named = solera and seat == state.jugador and state.options.vuelta_solera_allowed
    text = f"seat {seat} discards {len(out)} and draws {draw}" + (" (vuelta solera)" if named else "")
    events: Events = [{"kind": "descarte", "seat": seat, "value": len(out), "text": text}]
    new = state.copy()
    new.masks, new.stock, new.discards, new.exchanged, new.solera, new.queue = masks, stock, discards, exchanged, solera, queue
    if seat == state.jugador and queue == ():
        _to_opponents(new)
        return new, events
    if queue:
        new.turn = queue[0]
        return new, events
    # The last exchange is done: trick play starts with the mano (4).
    jugador, mano = state.jugador, state.mano
    assert jugador is not None
    events.append({"kind": "play", "seat": mano, "text": f"the exchange is over; seat {mano}, the mano, leads"})
    new.phase, new.turn, new.leader, new.jugador_cards = PLAY, mano, mano, cards_of_mask(masks[jugador])
    return new, events


def _rindo(state: State, action: Action) -> tuple[State, Events]:
    seat = action.seat
    new = state.copy()
    new.rendido = seat
    if state.lance == "vuelta":
        new.phase, new.turn, new.surrender = OVER, None, "accepted"
        return new, [{"kind": "rindo", "seat": seat, "text": f"seat {seat} surrenders the vuelta: the hand ends (a vuelta cannot be defended)"}]
    asking = tuple([s for s in _round_after(state, seat) if s != seat])
    text = f"seat {seat} surrenders the entrada; seat {asking[0]} answers first (bien or defiendo)"
    new.phase, new.asking, new.turn, new.resume = SURRENDER, asking, asking[0], state.turn
    return new, [{"kind": "rindo", "seat": seat, "text": text}]


def _round_after(state: State, seat: int) -> tuple[int, ...]:
    start = _place(state.order, seat)
    return tuple(state.order[(start + k) % 3] for k in range(1, 3))


def _answer(state: State, action: Action) -> tuple[State, Events]:
    seat = action.seat
    new = state.copy()
    if action.call == "defiendo":
        text = f"seat {seat} defends the surrendered entrada and plays on as the Jugador"
        new.phase, new.defender, new.surrender, new.asking, new.turn = PLAY, seat, "defended", (), state.resume
        return new, [{"kind": "defiendo", "seat": seat, "text": text}]
    asking = state.asking[1:]
    if asking:
        new.asking, new.turn = asking, asking[0]
        return new, [{"kind": "bien", "seat": seat, "text": f"seat {seat} accepts"}]
    new.phase, new.turn, new.surrender, new.asking = OVER, None, "accepted", ()
    return new, [{"kind": "bien", "seat": seat, "text": f"seat {seat} accepts: the surrendered entrada is a puesta"}]


def _bola(state: State, action: Action) -> tuple[State, Events]:
    seat = action.seat
    new = state.copy()
    if action.call == "planto":
        new.phase, new.turn = OVER, None  # (the hand ends won with primeras: 7.2)
        return new, [{"kind": "planto", "seat": seat, "text": f"seat {seat} stops after the first five tricks: a win with primeras"}]
    new.phase, new.turn, new.bola = PLAY, seat, "attempt"
    return new, [{"kind": "bola", "seat": seat, "text": f"seat {seat} goes on for the bola: all nine tricks"}]


# The events of the play, made once: a card played ("seat 2 plays 10o"), by seat and
# ``Card.key``, and a trick won ("trick 3 to seat 2 with 10o"), by the trick's number - 1, the
# seat and the winning card's key. They are shared events (``engine.record.replay``): appended
# as they are, never changed; the replay copies each with its ``action`` set (copying a dict
# costs about half of building it key by key; the key is written here, so that the copy's value
# is replaced rather than a key added), or pairs it with the action's index for the wire encoder.
_CARD_EVENTS: Final = tuple(by_key({card.key: {"kind": "card", "seat": seat, "card": card.code,
                                                       "text": f"seat {seat} plays {card}", "action": None}
                                            for card in DECK.cards}, {})
                            for seat in range(4))
_TRICK_EVENTS: Final = tuple(tuple(by_key({card.key: {"kind": "trick", "seat": seat, "card": card.code, "trick": number,
                                                              "text": f"trick {number} to seat {seat} with {card}", "action": None}
                                                   for card in DECK.cards}, {})
                                   for seat in range(4)) for number in range(1, 10))


def _next_seat(order: tuple[int, ...], seat: int) -> int:
    """The active seat after ``seat`` in the order mano, medio, postre (and round again)."""
    if seat == order[0]:
        return order[1]
    return order[2] if seat == order[1] else order[0]


def _play(state: State, seat: int, card: Card, events: Events | None) -> State:
    """A card played: the new state; its events are appended to ``events`` (None: none made)."""
    masks = with_item(state.masks, seat, state.masks[seat] & ~(1 << card.key))
    cards = appended(state.trick_cards, card)
    if events is not None:
        events.append(_CARD_EVENTS[seat][card.key])
    order = state.order
    if len(cards) < 3:
        new = state.copy()
        new.masks, new.trick_cards, new.turn = masks, cards, _next_seat(order, seat)
        return new
    leader = state.leader
    idx = _winner_index(cards, state.trump_keys)
    winner = leader
    for _ in range(idx):
        winner = _next_seat(order, winner)
    tricks = state.tricks + (Trick(leader, cards, winner),)
    number = len(tricks)
    if events is not None:
        events.append(_TRICK_EVENTS[number - 1][winner][cards[idx].key])
    return _after_trick(state, masks, tricks, winner, events)


def seat_tricks(state: State) -> list[int]:
    return list(state.won)


def _opponents(order: tuple[int, ...], seat: int) -> tuple[int, int]:
    """The two active seats other than ``seat``, in the order mano, medio, postre."""
    if seat == order[0]:
        return order[1], order[2]
    return (order[0], order[2]) if seat == order[1] else (order[0], order[1])


def _after_trick(state: State, masks: tuple[int, ...], tricks: tuple[Trick, ...], winner: int,
                 events: Events | None) -> State:
    """7.2 / 7.3: the bola decision after five straight tricks; the early end once decided. The
    state given is the one before the trick's last card; ``masks``, ``tricks`` and the trick's
    ``winner`` are after it, and the new state is built once from them. Its events are appended
    to ``events``."""
    played = len(tricks)
    # The bola and the primeras are the Jugador's, in an undefended hand only (section 0): a defence
    # comes before the fourth trick is over and leaves bola "none", and _is_over ends a defended
    # hand by the defender's, the rendido's and the mano pobre's tricks.
    jugador = state.jugador
    assert jugador is not None
    won = state.won
    won = with_item(won, winner, won[winner] + 1)
    phase, bola = PLAY, state.bola
    turn: int | None = winner
    if bola == "attempt":
        if winner != jugador:
            if events is not None:
                events.append({"kind": "bolaFailed", "seat": jugador, "text": f"seat {jugador} loses trick {played}: the bola fails"})
            phase, turn, bola = OVER, None, "failed"
        elif played == 9:
            if events is not None:
                events.append({"kind": "bolaMade", "seat": jugador, "text": f"seat {jugador} takes all nine tricks: bola"})
            phase, turn, bola = OVER, None, "made"
    elif state.defender is None and played == 5 and won[jugador] == 5:
        if events is not None:
            events.append({"kind": "primeras", "seat": jugador,
                           "text": f"seat {jugador} has won the first five tricks: bola (go on for all nine) or planto (stop)"})
        phase, turn = BOLA_DECISION, jugador
    elif _is_over(state, played, won, jugador):
        remaining = 9 - played
        if events is not None:
            events.append({"kind": "over", "text": "the result is settled" + ("" if remaining == 0 else f" with {remaining} tricks unplayed")})
        phase, turn = OVER, None
    new = state.copy()
    new.masks, new.leader, new.trick_cards, new.tricks, new.won = masks, winner, (), tricks, won
    new.turn, new.phase, new.bola = turn, phase, bola
    return new


def _is_over(state: State, played: int, won: tuple[int, ...], jugador: int) -> bool:
    """7.3: all nine tricks played, or (``stopWhenDecided``) the result is certain. ``played``
    tricks are done and ``won`` counts them by seat."""
    remaining = 9 - played
    if remaining == 0:
        return True
    if not state.options.stop_when_decided:
        return False
    if state.defender is not None:
        assert state.rendido is not None
        defender, rendido = state.defender, state.rendido
        pobre = next(s for s in state.order if s not in (defender, rendido))
        return settle_mod.decided_in_hand(won[defender], won[rendido], won[pobre], True)
    a, b = _opponents(state.order, jugador)
    return settle_mod.decided_in_hand(won[jugador], won[a], won[b], False)


# ---- results -----------------------------------------------------------------------------


def tricks(state: State) -> list[Trick]:
    out = list(state.tricks)
    if state.trick_cards:
        out.append(state.trick)
    return out


def summary(state: State) -> dict[str, Any]:
    """The public fields of a Tresillo hand in any state."""
    out: dict[str, Any] = {"phase": state.phase, "seatTricks": seat_tricks(state)}
    if state.phase == AUCTION or state.level:
        out["level"] = state.level
    if state.holder is not None and state.phase == AUCTION:
        out["holder"] = state.holder
    if state.jugador is not None:
        out["jugador"] = state.jugador
    if state.lance is not None:
        assert state.trump is not None
        out["lance"], out["trump"], out["favor"] = state.lance, suit_word(state.trump), is_favor(state)
        if state.solera:
            out["solera"] = True
    if state.turned is not None:
        out["turnUp"] = str(state.turned)
    if state.options.reveal_discard_count and any(n >= 0 for n in state.exchanged):
        out["exchanged"] = list(state.exchanged)
    if state.rendido is not None:
        out["rendido"] = state.rendido
    if state.defender is not None:
        out["defender"] = state.defender
    if state.bola != "none":
        out["bola"] = state.bola
    return out


def hand_summary(state: State) -> settle_mod.Hand:
    """What the accounting needs of a finished hand."""
    bola = state.bola
    return settle_mod.Hand(
        seats=state.seats, dealer=state.dealer, annulled=state.annulled, jugador=state.jugador, lance=state.lance,
        trump=state.trump, solera=state.solera, jugador_cards=state.jugador_cards,
        trick_winners=tuple([t.winner for t in state.tricks if t.winner is not None]),
        bola=bola if bola == "made" or bola == "failed" else "none", surrender=state.surrender, defender=state.defender)


def next_dealer(options: Options, dealer: int, seats: int) -> int:
    """The dealer of the next hand: the next seat in the order of play (section 0)."""
    return (dealer + 1) % seats


def settlement(state: State) -> dict[str, Any]:
    out = settle_mod.settle(state.options, state.table, hand_summary(state))
    out["nextDealer"] = next_dealer(state.options, state.dealer, state.seats)
    return out


def settle_summary(options: Options, table: Table, request: dict[str, Any]) -> dict[str, Any]:
    return settle_mod.settle_summary(options, table, request)


def view(state: State, seat: int) -> dict[str, Any]:
    """What one seat may see: its cards, counts of the others', the public calls and tricks."""
    out: dict[str, Any] = {"seat": seat, "hand": cards_str(cards_of_mask(state.masks[seat])),
                           "handSizes": [mask.bit_count() for mask in state.masks]}
    if state.options.reveal_discard_count or all(n < 0 for n in state.exchanged):
        # (once a seat has exchanged, what is left of the baceta tells how many it took: private
        # when the counts are, revealDiscardCount false)
        out["stockSize"] = len(state.stock)
    if state.options.reveal_remainder and state.phase not in (AUCTION, DECLARE, CONTRA_ORDER, EXCHANGE):
        out["stock"] = cards_str(state.stock)
    return out
