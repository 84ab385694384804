"""Revesino, per ``rules/revesino.md`` (the spec) and ``docs/rules/revesino.md`` (our decisions).

Four players, the 48-card pack, no trumps, eleven tricks: avoid card points. The exchange with
the three undealt cards, the napolitana's renounces, and the revesino announced after nine
straight tricks are here; every tanto that moves (aces and the quínola placed or forced, the
fondo and its escrow, the revesino, the napolitana's failure, the hand winner's party) is
computed from the course of the hand by ``engine.revesino_money``.
"""

from __future__ import annotations

from typing import Any, Final

from engine import revesino_money as money_mod
from engine.cards import DECK_48, SUIT_MASKS, Card, Suit, cards_of_mask, cards_str, distinct, key_mask
from engine.errors import IllegalAction, InvalidInput, shown
from engine.record import (
    CARD_ARG,
    NO_ARGS,
    Action,
    Rules,
    Setup,
    appended,
    call_actions,
    check_tantos,
    fields_repr,
    json_int,
    remember_last,
    replaced,
    shared_copied,
    whose_turn,
    with_item,
)
from engine.revesino_money import SPECIAL_BY_KEY, STRENGTH, Money, Play, PlayedTrick, is_special, qualifies_mask, strength
from engine.revesino_options import Options
from engine.tricks import Trick, winning_index

# ---- the game ----------------------------------------------------------------------------

NAME = "revesino"
SEATS = (4,)
DECK = DECK_48
CALLS = {"cambio": CARD_ARG, "quedo": NO_ARGS, "descarte": CARD_ARG, "napolitana": NO_ARGS, "revesino": NO_ARGS}
EXCHANGE: Final = "exchange"
PLAY: Final = "play"
OVER: Final = "over"


def trick_winner_index(cards: tuple[Card, ...] | list[Card], trump: Suit | None = None) -> int:
    return winning_index(cards, strength)


HAS_TRUMP = False


def is_trump(card: Card, trump: Suit) -> bool:
    return False


def trick_size(seats: int) -> int:
    return 4


def trick_players(seats: int, dealer: int | None, leader: int, count: int) -> list[int]:
    return [(leader + i) % 4 for i in range(count)]


TRICK_FIELDS: Final = ("number", "fondo", "napolitana", "forced", "revoked")  # ResolveTrick's, for a trick's payments


def trick_money(options: Options, request: dict[str, Any], cards: Any, players: list[int], index: int) -> dict[str, Any]:
    """ResolveTrick: the payments of one trick (A6.2, A6.3). ``number`` (1-11) sets the first and
    last tricks' doubling, ``fondo`` what a quínola takes or doubles, ``napolitana`` his seat, and
    ``forced`` the aces and quínola that were their player's only card of the suit led, and
    ``revoked`` the cards played off the suit led by a seat that held it (A6.8, under
    ``allowRevokes``: 2 into the fondo, and the revoker collects nothing more this hand)."""
    given = request.get("number", 2)
    number = json_int(given)  # (not a bool: JSON's true is no number)
    if number is None or not 1 <= number <= 11:
        raise InvalidInput("INVALID_FIELD", "number", f"number is the trick's number, 1 to 11, not {shown(given)}")
    given = request.get("fondo", 0)
    fondo = json_int(given)
    if fondo is None or fondo < 0:
        raise InvalidInput("INVALID_FIELD", "fondo", f"fondo must be a whole number of tantos, not {shown(given)}")
    check_tantos(fondo, "fondo", f"fondo {fondo:,}", "INVALID_FIELD")
    given = request.get("napolitana")
    napolitana = json_int(given)
    if given is not None and (napolitana is None or not 0 <= napolitana < 4):
        raise InvalidInput("SEAT_OUT_OF_RANGE", "napolitana", f"napolitana {shown(given)} is not a seat")
    forced = distinct(DECK.parse_cards(request.get("forced") or "", "forced"), "forced")
    revoked = distinct(DECK.parse_cards(request.get("revoked") or "", "revoked"), "revoked")
    for name, named in (("forced", forced), ("revoked", revoked)):
        for card in named.difference(cards):
            raise InvalidInput("INVALID_FIELD", name, f"{name}: {card} is not a card of this trick")
    led = cards[0].suit
    plays = []
    for i, (seat, card) in enumerate(zip(players, cards, strict=True)):
        kind = ""
        privileged = seat == napolitana and number <= 9
        # ``forced`` says a card was its player's only one of the suit led: a napolitana's in tricks
        # 1-9 may be, and is still played by choice (A6.6); a card led or off-suit cannot be.
        if card in forced and (i == 0 or card.suit is not led or not is_special(card)):
            raise InvalidInput("INVALID_FIELD", "forced",
                               f"{card} was not forced: only an ace or the quínola played in the suit led by another player can be forced")
        if is_special(card):
            kind = ("led" if i == 0 else "placed" if card.suit is not led
                    else "forced" if card in forced and not privileged else "voluntary")
        if card in revoked:
            why = ("it is not a card played off the suit led" if i == 0 or card.suit is led
                   else "allowRevokes is off: a renuncio is not accepted" if not options.allow_revokes
                   else f"seat {seat} is the napolitana, whose renounces in tricks 1-9 are no revokes" if privileged else "")
            if why:
                raise InvalidInput("INVALID_FIELD", "revoked", f"{card} is not a revoke: {why}")
        plays.append(Play(seat, card, kind, card in revoked))
    if len(plays) < trick_size(SEATS[0]):
        return {}  # a trick in progress: its fields are read, and it moves no money yet
    trick = PlayedTrick(number, players[0], tuple(plays), players[index])
    payments, forfeited = money_mod.trick_ledger(options, trick, fondo, napolitana, request.get("dealer"))  # (checked by api)
    return {key: value for key, value in (("payments", payments), ("forfeited", forfeited)) if value}


_STATE_FIELDS: Final = ("options", "dealer", "fondo", "held", "gone", "undealt", "phase", "turn", "choices", "out_of_play",
                 "napolitana", "announcer", "trick_leader", "plays", "played", "cut")


class State:
    """A hand at one moment. Never changed once made: ``apply`` makes a new one (the fields are
    ``Final``; a plain class, the cheapest object to make, here and compiled by mypyc).

    Cards are kept as ``key_mask`` bits: an int below 2**62, which mypyc computes with unboxed,
    so holding a card or a suit is a bit test (``SUIT_MASKS``), and no tuple of cards is
    searched, made or freed at each card (that was a tenth of a record's validation). ``held``
    is each seat's cards as the exchange leaves them, and ``gone`` the cards played since, for
    the whole table: a seat holds ``held[seat] & ~gone`` (``_hand``; ``masks`` and ``hands``
    give every seat's), and a play sets one bit of ``gone``, a plain int, where a tuple of four
    masks was made and freed at each card. A mask's cards come out in canonical order
    (``cards_of_mask``)."""

    __slots__ = _STATE_FIELDS

    def __init__(self, options: Options, dealer: int, fondo: int, held: tuple[int, ...], gone: int,
                 undealt: tuple[Card, ...], phase: str, turn: int | None,
                 choices: tuple[str, ...] = ("", "", "", ""), out_of_play: tuple[Card, ...] = (),
                 napolitana: int | None = None, announcer: int | None = None, trick_leader: int = 0,
                 plays: tuple[Play, ...] = (), played: tuple[PlayedTrick, ...] = (), cut: bool = False) -> None:
        self.options: Final = options
        self.dealer: Final = dealer
        self.fondo: Final = fondo
        self.held: Final = held  # per seat, the cards held when the exchange is over (during it, now), as a key mask
        self.gone: Final = gone  # the cards played, as a key mask
        self.undealt: Final = undealt  # the three cards under the dish: S1's, S2's, S3's
        self.phase: Final = phase
        self.turn: Final = turn
        self.choices: Final = choices  # per seat: "cambio", "quedo", "descarte" once made
        self.out_of_play: Final = out_of_play  # discards, declined undealt cards and the dealer's discard
        self.napolitana: Final = napolitana
        self.announcer: Final = announcer
        self.trick_leader: Final = trick_leader  # the trick in progress: its leader and its plays so far, classified
        self.plays: Final = plays
        self.played: Final = played  # the complete tricks, classified (for the money too)
        self.cut: Final = cut

    def _replace(self, **changes: Any) -> State:
        """A copy with some fields changed (as a NamedTuple's ``_replace``)."""
        return replaced(self, _STATE_FIELDS, changes)

    def __repr__(self) -> str:
        return fields_repr(self, _STATE_FIELDS)

    @property
    def masks(self) -> tuple[int, ...]:
        """Each seat's cards, as a key mask."""
        return tuple([_hand(self, seat) for seat in range(4)])

    @property
    def hands(self) -> tuple[tuple[Card, ...], ...]:
        """Each seat's cards, in canonical order."""
        return tuple([cards_of_mask(mask) for mask in self.masks])

    @property
    def trick_cards(self) -> tuple[Card, ...]:
        """The cards of the trick in progress, in play order."""
        return tuple(p.card for p in self.plays)  # (a generator over a tuple: one allocation, under mypyc)

    @property
    def trick(self) -> Trick:
        """The trick in progress."""
        return Trick(self.trick_leader, self.trick_cards)

    @property
    def finished(self) -> bool:
        return self.phase == OVER

    @property
    def number(self) -> int:
        """The number of the trick in progress (1..11)."""
        return len(self.played) + 1


def _as_trick(t: PlayedTrick) -> Trick:
    return Trick(t.leader, tuple(p.card for p in t.plays), t.winner)


def read_table(table: Any, seats: int) -> int:
    return money_mod.read_table(table, seats)


def read_deal(hands: list[tuple[Card, ...]], stock: tuple[Card, ...], seats: int, dealer: int) -> None:
    """Eleven cards to each non-dealer, twelve to the dealer, three undealt: the whole pack."""
    for seat, hand in enumerate(hands):
        size = 12 if seat == dealer else 11
        if len(hand) != size:
            role = "deals and holds" if seat == dealer else "does not deal and holds"
            raise InvalidInput("WRONG_HAND_SIZE", f"deal.hands[{seat}]", f"deal.hands[{seat}]: seat {seat} {role} {size} cards, not {len(hand)}")
    if len(stock) != 3:
        raise InvalidInput("WRONG_HAND_SIZE", "deal.stock", f"deal.stock holds the 3 undealt cards, not {len(stock)}")


def deal_from_pack(pack: list[Card], seats: int, dealer: int) -> tuple[list[tuple[Card, ...]], tuple[Card, ...]]:
    """A3: three rounds from S1; packets of 3, 4, 4 to each non-dealer and 4, 4, 4 to the dealer;
    the last three cards are undealt, for S1, S2 and S3 in that order."""
    hands: list[list[Card]] = [[] for _ in range(4)]
    position = 0
    for packet in (3, 4, 4):
        for k in range(1, 5):
            seat = (dealer + k) % 4
            size = 4 if seat == dealer else packet
            hands[seat].extend(pack[position:position + size])
            position += size
    return [tuple(h) for h in hands], tuple(pack[position:])


def start(setup: Setup) -> State:
    return State(options=setup.options, dealer=setup.dealer, fondo=setup.table, held=tuple([key_mask(h) for h in setup.hands]), gone=0,
                 undealt=setup.stock, phase=EXCHANGE, turn=(setup.dealer + 1) % 4)


# ---- tables, built once -----------------------------------------------------------------
# The hot paths reuse the actions, texts and plain plays built here, per seat and card: a card's
# entry is at its place in ``DECK_48.cards`` (``_slot``; a tuple index is the cheapest lookup).


def _slot(card: Card) -> int:
    """A card's place in ``DECK_48.cards``: the suits in order (``key >> 4``), the ranks ascending."""
    return (card.key >> 4) * 12 + card.rank - 1


assert all(_slot(c) == i for i, c in enumerate(DECK_48.cards))

_SEATS: Final = range(4)
_PLAY_ACTION: Final[tuple[tuple[Action, ...], ...]] = tuple(tuple([Action(s, card=c) for c in DECK_48.cards]) for s in _SEATS)
_CALL_ACTION: Final = call_actions(CALLS, 4)  # quedo, napolitana, revesino
_CAMBIO: Final[tuple[tuple[Action, ...], ...]] = tuple(tuple([Action(s, call="cambio", args=(str(c),)) for c in DECK_48.cards])
                                                     for s in _SEATS)
_DESCARTE: Final[tuple[tuple[Action, ...], ...]] = tuple(tuple([Action(s, call="descarte", args=(str(c),)) for c in DECK_48.cards])
                                                       for s in _SEATS)
_CARD_EVENT: Final[tuple[tuple[dict[str, Any], ...], ...]] = tuple(
    tuple([{"kind": "card", "seat": s, "card": str(c), "text": f"seat {s} plays {c}", "action": None} for c in DECK_48.cards])
    for s in _SEATS)
"""The event of each seat's play of each card: a shared event (``engine.record.replay``),
appended as it is and never changed; the replay copies it with its ``action`` set (a copy of a
small dict is cheaper than building it; the key is written here, so that the copy's value is
replaced rather than a key added), or pairs it with the action's index for the wire encoder."""
_RANK_STRENGTH: Final[tuple[int, ...]] = tuple([STRENGTH.get(rank, 0) for rank in range(13)])
"""``STRENGTH`` indexed by rank."""
_PLAIN_PLAY: Final[tuple[tuple[Play, ...], ...]] = tuple(tuple([Play(s, c, "") for c in DECK_48.cards]) for s in _SEATS)
"""The play of a card that is neither an ace nor the quínola, nor a revoke (read-only: shared)."""


_KEY_BY_CODE: Final[dict[str, int]] = {c.code: c.key for c in DECK_48.cards}
"""A card's key by its canonical spelling."""


# ---- legal actions -----------------------------------------------------------------------


def _napolitana_open(state: State) -> bool:
    """Section 0: between the dealer's discard and the first card of trick 1."""
    return (state.phase == PLAY and not state.played and not state.plays and state.napolitana is None
            and state.options.napolitana_declaration == "explicit")


def _renounces(state: State, seat: int) -> bool:
    """Whether a seat may renounce now: the napolitana in tricks 1-9 (implicitly: the seat that
    qualifies, until it has played its first renounce)."""
    if len(state.played) >= 9:  # trick 10 or 11
        return False
    if state.napolitana is not None:
        return seat == state.napolitana
    return state.options.napolitana_declaration == "implicit" and qualifies_mask(state.held[seat])  # (his cards played included)


def _hand(state: State, seat: int) -> int:
    """The cards ``seat`` holds, as a key mask."""
    return state.held[seat] & ~state.gone


def _suit_to_follow(state: State, seat: int) -> int:
    """A5: the suit led (its ``SUIT_MASKS`` entry), which ``seat`` must follow if it holds any;
    0 when it may play any card (it leads, renounces as the napolitana in tricks 1-9, or revokes
    are allowed)."""
    plays = state.plays
    if not plays or state.options.allow_revokes or _renounces(state, seat):
        return 0
    return SUIT_MASKS[plays[0].card.key >> 4]


def _playable(state: State, seat: int) -> int:
    """``playable`` as a key mask."""
    hand = _hand(state, seat)
    follow = hand & _suit_to_follow(state, seat)
    return follow if follow else hand


def playable(state: State, seat: int) -> list[Card]:
    """A5: lead anything; follow the suit led if able, except a napolitana in tricks 1-9."""
    return list(cards_of_mask(_playable(state, seat)))


def _may_announce(state: State, seat: int) -> bool:
    """A4.2 / section 0: the leader of trick 10 who won tricks 1-9, before he leads."""
    return (len(state.played) == 9 and not state.plays and state.announcer is None
            and all(t.winner == seat for t in state.played)
            and (seat != state.napolitana or state.options.napolitana_may_announce))


@remember_last
def legal_actions(state: State) -> list[Action]:
    seat = state.turn
    if state.phase == OVER or seat is None:
        return []
    if state.phase == EXCHANGE:
        if seat == state.dealer:
            descarte = _DESCARTE[seat]
            return [descarte[_slot(c)] for c in cards_of_mask(_hand(state, seat))]
        cambio = _CAMBIO[seat]
        out = [cambio[_slot(c)] for c in cards_of_mask(_hand(state, seat))]
        out.append(_CALL_ACTION[seat]["quedo"])
        return out
    play = _PLAY_ACTION[seat]
    out = [play[_slot(c)] for c in cards_of_mask(_playable(state, seat))]
    if not state.plays:  # before a lead: the calls
        if _may_announce(state, seat):
            out.append(_CALL_ACTION[seat]["revesino"])
        if _napolitana_open(state):
            out += [_CALL_ACTION[s]["napolitana"] for s in _round_from(seat) if qualifies_mask(_hand(state, s))]
    return out


def _round_from(seat: int) -> list[int]:
    return [(seat + k) % 4 for k in range(4)]


def is_legal(state: State, action: Action) -> bool:
    """Membership in ``legal_actions``; a card is a bit of the mask ``playable`` lists (the seat
    to play holds it, of the suit to follow if he holds that suit), no list made."""
    card = action.card
    if card is None and action.call in _EXCHANGE_CALLS:
        return _is_legal_exchange(state, action)
    if card is None or action.call is not None or action.args:
        return action in legal_actions(state)
    seat = action.seat
    if state.phase != PLAY or seat != state.turn:
        return False
    return bool(_playable(state, seat) >> card.key & 1)


_EXCHANGE_CALLS: Final = ("cambio", "descarte", "quedo")


def _is_legal_exchange(state: State, action: Action) -> bool:
    """``is_legal`` of an exchange call, by the rule ``legal_actions`` builds its list from (the
    seat to act; the dealer discards a card he holds, another seat exchanges one or keeps)."""
    seat, call, args = action.seat, action.call, action.args
    if state.phase != EXCHANGE or seat != state.turn:
        return False
    if call == "quedo":
        return seat != state.dealer and not args
    if (call == "descarte") != (seat == state.dealer) or len(args) != 1:
        return False
    key = _KEY_BY_CODE.get(args[0])
    return key is not None and bool(_hand(state, seat) >> key & 1)


def to_act(state: State) -> int | None:
    return None if state.phase == OVER else state.turn


def is_finished(state: State) -> bool:
    return state.phase == OVER


def out_of_turn_calls(state: State, seat: int) -> frozenset[str]:
    """Section 0: the napolitana may be called whoever's turn it is."""
    return frozenset({"napolitana"})


def not_your_turn(state: State, seat: int) -> str:
    """What a seat that is not to act, and may not make its action out of turn, is told: whose turn it is."""
    return whose_turn(to_act(state), seat)


def explain(state: State, action: Action) -> IllegalAction:
    seat, call = action.seat, action.call

    def not_now(why: str) -> IllegalAction:
        return IllegalAction("NOT_ALLOWED_NOW", why)

    if action.card is not None:
        if state.phase != PLAY:
            return not_now(f"no card is played during the exchange: seat {seat} says "
                           + ("descarte <card>" if seat == state.dealer else "cambio <card> or quedo"))
        hand = _hand(state, seat)
        if not hand >> action.card.key & 1:
            return IllegalAction("CARD_NOT_IN_HAND", f"seat {seat} does not hold {action.card}; it holds {cards_str(cards_of_mask(hand))}")
        led = state.trick_cards[0]
        follow = cards_of_mask(hand & SUIT_MASKS[led.key >> 4])
        return IllegalAction("MUST_FOLLOW_SUIT", f"seat {seat} holds {cards_str(follow)} of {led.suit.word}, the suit led ({led}), "
                             f"and must follow it, not play {action.card}")
    if call in ("cambio", "descarte"):
        if state.phase != EXCHANGE:
            return not_now(f"the exchange is over: {call} is not allowed now")
        # FORMAT.md 6: a call this seat cannot make now comes before a card it does not hold.
        if seat == state.dealer and call == "cambio":
            return not_now(f"seat {seat} deals: he discards one card (descarte <card>) and takes nothing")
        if seat != state.dealer and call == "descarte":
            return not_now(f"seat {seat} does not deal: he exchanges (cambio <card>) or keeps (quedo)")
        return IllegalAction("CARD_NOT_IN_HAND", f"seat {seat} does not hold {Card.parse(action.args[0])}")
    if call == "quedo":
        if state.phase != EXCHANGE:
            return not_now("the exchange is over: quedo is not allowed now")
        return not_now(f"seat {seat} deals and must discard one card (descarte <card>)")
    if call == "napolitana":
        if state.options.napolitana_declaration == "implicit":
            return not_now("under napolitanaDeclaration implicit the napolitana is declared by its first renounce, not called")
        if state.napolitana is not None:
            return not_now(f"seat {state.napolitana} has already declared the napolitana")
        if state.phase != PLAY or state.played or state.plays:
            return not_now("the napolitana is declared after the exchange and before the first card is led")
        return not_now(f"seat {seat} does not hold three aces and the quínola, or the four aces: no napolitana")
    # revesino
    if len(state.played) != 9 or state.plays:
        return not_now("a revesino is announced after trick 9, before the lead to trick 10")
    if state.announcer is not None:
        return not_now(f"seat {state.announcer} has already announced the revesino")
    if seat == state.napolitana and not state.options.napolitana_may_announce:
        return not_now(f"seat {seat} plays a napolitana and cannot announce a revesino")
    return not_now(f"seat {seat} has not won all of tricks 1-9: no revesino")


# ---- applying actions --------------------------------------------------------------------

Events = list[dict[str, Any]]




def apply(state: State, action: Action) -> tuple[State, Events]:
    seat = action.seat
    if action.card is not None:
        events: Events = []
        return _play(state, seat, action.card, events), shared_copied(events)
    call = action.call
    if call in ("cambio", "quedo", "descarte"):
        return _exchange(state, action)
    if call == "napolitana":
        return state._replace(napolitana=seat), [{"kind": "napolitana", "seat": seat,
                                                  "text": f"seat {seat} declares a napolitana: he may renounce in tricks 1-9"}]
    return state._replace(announcer=seat), [{"kind": "revesino", "seat": seat,
                                             "text": f"seat {seat} announces a revesino: he will take tricks 10 and 11"}]


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


_EXCHANGE_TEXT: Final[dict[str, tuple[str, ...]]] = {
    "descarte": tuple([f"seat {s} (the dealer) discards a card" for s in _SEATS]),
    "cambio": tuple([f"seat {s} exchanges one card for his undealt card" for s in _SEATS]),
    "quedo": tuple([f"seat {s} keeps his cards" for s in _SEATS]),
    "play": tuple([f"the exchange is over; seat {s} leads" for s in _SEATS]),
}
"""The texts of the exchange's events, per seat."""

_TRICK_EVENTS: Final[tuple[tuple[tuple[dict[str, Any], ...], ...], ...]] = tuple(
    tuple(tuple([{"kind": "trick", "seat": winner, "card": c.code, "trick": number, "text": f"trick {number} to seat {winner} with {c}",
                  "action": None} for c in DECK_48.cards]) for winner in _SEATS) for number in range(12))
"""The event of a trick, by number (1..11), winner and winning card's ``_slot``: a shared event,
as ``_CARD_EVENT``. (Its ``action`` key is written here: adding a sixth key to the copy made the
dict grow.)"""


def _exchange(state: State, action: Action) -> tuple[State, Events]:
    """A3: S1, S2, S3 exchange with their undealt card or keep; then the dealer discards one."""
    seat, call = action.seat, action.call
    assert call is not None
    hand, out = state.held[seat], state.out_of_play  # (nothing is played yet)
    if call == "descarte":
        card = Card.parse(action.args[0])
        hand &= ~(1 << card.key)
        out += (card,)
        text = _EXCHANGE_TEXT["descarte"][seat]
    else:
        undealt = state.undealt[(seat - state.dealer - 1) % 4]
        if call == "cambio":
            card = Card.parse(action.args[0])
            hand = (hand & ~(1 << card.key)) | 1 << undealt.key
            out += (card,)
            text = _EXCHANGE_TEXT["cambio"][seat]
        else:
            out += (undealt,)
            text = _EXCHANGE_TEXT["quedo"][seat]
    choices = with_item(state.choices, seat, call)
    held = with_item(state.held, seat, hand)
    events: Events = [{"kind": call, "seat": seat, "text": text}]
    if seat != state.dealer:
        return State(state.options, state.dealer, state.fondo, held, state.gone, state.undealt, state.phase, (seat + 1) % 4, choices, out,
                     state.napolitana, state.announcer, state.trick_leader, state.plays, state.played,
                     state.cut), events
    first = (state.dealer + 1) % 4
    events.append({"kind": "play", "seat": first, "text": _EXCHANGE_TEXT["play"][first]})
    return State(state.options, state.dealer, state.fondo, held, state.gone, state.undealt, PLAY, first, choices, out,
                 state.napolitana, state.announcer, first, state.plays, state.played, state.cut), events


def classify(state: State, seat: int, card: Card) -> str:
    """A5.1 / section 0: how an ace or the quínola was played, judged on the hand before it."""
    if not SPECIAL_BY_KEY[card.key]:
        return ""
    if not state.plays:
        return "led"
    led = state.plays[0].card.suit
    if card.suit is not led:
        return "placed"
    in_suit = _hand(state, seat) & SUIT_MASKS[card.key >> 4]  # (the card played among them)
    if not in_suit & (in_suit - 1) and not (seat == state.napolitana and len(state.played) < 9):  # his one card of the suit
        # (the napolitana in tricks 1-9 had a choice; under napolitanaDeclaration implicit a seat is
        # the napolitana from its first renounce: before it, it plays as anyone, R24)
        return "forced"
    return "voluntary"


def _trick_winner_index(plays: tuple[Play, ...]) -> int:
    """``trick_winner_index`` of a complete trick: the highest card of the suit led (A1)."""
    first = plays[0].card
    led = first.suit
    best, best_value = 0, _RANK_STRENGTH[first.rank]
    for i in range(1, len(plays)):
        card = plays[i].card
        if card.suit is led and _RANK_STRENGTH[card.rank] > best_value:
            best, best_value = i, _RANK_STRENGTH[card.rank]
    return best


def _play(state: State, seat: int, card: Card, events: Events | None) -> State:
    """A card played: the new state; its events are appended to ``events`` (None: none made)."""
    key = card.key
    hand, plays, played = _hand(state, seat), state.plays, state.played
    slot = _slot(card)
    if events is not None:
        events.append(_CARD_EVENT[seat][slot])
    napolitana = state.napolitana
    revoke = False
    if plays:
        first = plays[0].card
        led = first.suit
        if card.suit is not led and hand & SUIT_MASKS[first.key >> 4]:  # off suit while holding the suit led
            if napolitana is None and _renounces(state, seat):
                napolitana = seat  # R24 implicit: the first renounce declares the napolitana
                if events is not None:
                    events.append({"kind": "napolitana", "seat": seat, "text": f"seat {seat} renounces: a napolitana"})
            revoke = not (seat == napolitana and len(played) < 9)
            if revoke:
                if events is not None:
                    events.append({"kind": "renuncio", "seat": seat, "card": card.code,
                                   "text": f"seat {seat} revokes: holds {led.word} and plays {card}"})
    # (classify reads the state before a renounce declared the napolitana: his card is placed either way)
    kind = classify(state, seat, card) if SPECIAL_BY_KEY[key] else ""
    plays = appended(plays, Play(seat, card, kind, revoke) if kind or revoke else _PLAIN_PLAY[seat][slot])
    gone = state.gone | 1 << key
    leader = state.trick_leader
    if len(plays) < 4:
        return State(state.options, state.dealer, state.fondo, state.held, gone, state.undealt, state.phase, (seat + 1) % 4,
                     state.choices, state.out_of_play, napolitana, state.announcer, leader, plays,
                     played, state.cut)
    index = _trick_winner_index(plays)
    winner = (leader + index) % 4
    number = len(played) + 1
    if events is not None:
        events.append(_TRICK_EVENTS[number][winner][_slot(plays[index].card)])
    phase, cut = state.phase, state.cut
    turn: int | None = winner
    if state.announcer is not None and winner != state.announcer and not cut:
        if events is not None:
            events.append({"kind": "cut", "seat": winner, "trick": number, "text": f"seat {winner} cuts the revesino"})
        cut = True
        if not state.options.play_out_after_cut:
            phase, turn = OVER, None
    if number == 11:
        phase, turn = OVER, None
    return State(state.options, state.dealer, state.fondo, state.held, gone, state.undealt, phase, turn,
                 state.choices, state.out_of_play, napolitana, state.announcer, winner, (),
                 played + (PlayedTrick(number, leader, plays, winner),), cut)


# ---- results -----------------------------------------------------------------------------


def tricks(state: State) -> list[Trick]:
    out = [_as_trick(t) for t in state.played]
    if state.plays:
        out.append(state.trick)
    return out


def napolitana_from(state: State) -> int:
    """The trick from which the napolitana has his privilege: 1 when he called it; under
    ``napolitanaDeclaration: implicit`` the trick of his first renounce (R24), found from the
    cards he held when the exchange was over and those he played since."""
    nap = state.napolitana
    if nap is None or state.options.napolitana_declaration != "implicit":
        return 1
    hand = state.held[nap]
    for t in _course_tricks(state):
        first = t.plays[0].card
        for i, p in enumerate(t.plays):
            if p.seat == nap:
                if i > 0 and p.card.suit is not first.suit and hand & SUIT_MASKS[first.key >> 4]:
                    return t.number
                hand &= ~(1 << p.card.key)
    return 1  # (not reached: an implicit napolitana is set by a renounce)


def _course_tricks(state: State) -> tuple[PlayedTrick, ...]:
    """The complete tricks and the trick in progress (a lead to trick 10 without an announcement
    makes the quínola escrow final, A6.4)."""
    played = state.played
    if state.plays:
        played += (PlayedTrick(state.number, state.trick_leader, state.plays, None),)
    return played


# The card points each seat has taken; `points` in a result is Rentoy's team score (FORMAT.md 6).
_RENAMED: Final = {"points": "cardPoints"}


_last_money: tuple[State | None, Money | None] = (None, None)


def _money(state: State) -> Money:
    """The money of a state, computed once for the summary and the settlement of one answer
    (the last state is remembered by identity; one tuple assignment, so threads are safe)."""
    global _last_money
    last, money = _last_money
    if last is not state or money is None:
        money = money_mod.money_of(state.options, dealer=state.dealer, fondo=state.fondo, tricks=_course_tricks(state),
                                   napolitana=state.napolitana, announcer=state.announcer,
                                   out_of_play=state.out_of_play if state.phase != EXCHANGE else (), finished=state.finished,
                                   napolitana_from=napolitana_from(state))
        _last_money = (state, money)
    return money


def summary(state: State) -> dict[str, Any]:
    """The public fields of a hand in any state: the exchange choices, the napolitana and
    revesino, tricks and points taken (``cardPoints``), the fondo and the escrow, and what was
    forfeited."""
    money = _money(state)
    out: dict[str, Any] = {"phase": state.phase, "exchanges": list(state.choices), "fondo": money.fondo,
                           "escrow": money.escrow, "cardPoints": money.points, "seatTricks": money.seat_tricks}
    # (money_of gives the napolitana whenever the state has one, and the revesino whenever it has
    # an announcer, each with its outcome "pending" until it is decided)
    if money.napolitana is not None:
        out["napolitana"] = money.napolitana
    if money.revesino is not None:
        out["revesino"] = money.revesino
    if money.forfeited:
        out["forfeited"] = money.forfeited
    return out


def next_dealer(options: Options, dealer: int, seats: int) -> int:
    """The dealer of the next hand: the old mano deals (section 0)."""
    return (dealer + 1) % seats


def settlement(state: State) -> dict[str, Any]:
    """The payments and each seat's net; once the hand is over, the hand winner, the party and
    the table to carry; the next dealer."""
    money = _money(state)
    out: dict[str, Any] = {"payments": money.payments, "net": money.net}
    money.add_outcome(out)
    out["nextDealer"] = next_dealer(state.options, state.dealer, 4)
    return out


def settle_summary(options: Options, fondo: int, request: dict[str, Any]) -> dict[str, Any]:
    return {_RENAMED.get(k, k): v for k, v in money_mod.settle_summary(options, fondo, request).items()}


def view(state: State, seat: int) -> dict[str, Any]:
    """What one seat may see: its own cards; its own undealt card once it has chosen (R6, or
    before with peekBeforeExchange); the dealer's own discard; never the others' cards."""
    out: dict[str, Any] = {"seat": seat, "hand": cards_str(cards_of_mask(_hand(state, seat))),
                           "handSizes": [mask.bit_count() for mask in state.masks]}
    index = 3 if seat == state.dealer else (seat - state.dealer - 1) % 4
    if seat != state.dealer and (state.choices[seat] or state.options.peek_before_exchange):
        out["undealtCard"] = str(state.undealt[index])
    if state.choices[seat] in ("cambio", "descarte"):
        out["discarded"] = str(state.out_of_play[index])
    return out
