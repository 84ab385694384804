"""Rentoy, per ``rules/rentoy.md`` (the spec) and ``docs/rules/rentoy.md`` (our decisions).

Two teams (even seats team 0, odd seats team 1), three cards each, a turned-up card naming
trumps, three tricks, and the envite ladder 1 -> 3 -> 6 -> 9 -> 12. The only duty in play is
the arrastre: on a trump lead, play a trump if you hold one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from engine.cards import DECK_40, SUIT_MASKS, Card, Suit, cards_of_mask, cards_str, key_mask
from engine.errors import IllegalAction, InvalidInput, shown
from engine.options import option
from engine.record import (
    NO_ARGS,
    Action,
    Rules,
    Setup,
    call_actions,
    fields_repr,
    fresh_table_field,
    json_int,
    play_actions,
    remember_last,
    replaced,
    whose_turn,
    with_item,
)
from engine.tricks import Trick, rank_table, winning_index

NAME = "rentoy"
SEATS = (2, 4, 6, 8)
DECK = DECK_40
CALLS = {"envite": NO_ARGS, "quiero": NO_ARGS, "no-quiero": NO_ARGS}  # every Rentoy call is written alone
MATCH = 12

# B1: rank orders, highest first, exactly as the spec lists them.
TRUMP_ORDER = rank_table("2 12 11 10 1 7 6 5 4 3")
PLAIN_ORDER = rank_table("12 11 10 1 7 6 5 4 3 2")

LADDERS = {"1-3-6-9-12": (1, 3, 6, 9, 12), "1-3-6-12": (1, 3, 6, 12)}


@dataclass(frozen=True, kw_only=True)
class Options:
    """Rentoy's house rules. Every field is an API option (lowerCamelCase of its name)."""

    ladder: str = option("1-3-6-9-12", tuple(LADDERS), "T1",
                         "values the hand can take; the source's sentence omits 9, its example uses it")
    bet_timing: str = option("turn", ("turn", "anytime"), "T2",
                             "turn: a seat bets only at its turn to play a card; anytime: any seat whose team "
                             "holds the right may bet whenever no proposal is pending")
    answer_by: str = option("nextOpponent", ("nextOpponent", "anyOpponent"), "T3",
                            "who answers a proposal: the seat after the proposer, or any member of that team")
    raise_rights: str = option("accepting", ("accepting", "free"), "T4",
                               "accepting: after an acceptance only the accepting team may raise; free: either team")
    play_all_tricks: bool = option(False, (False, True), "T12",
                                   "false: the hand ends when a team has two tricks; true: all three tricks are played")
    renuncio: str = option("prevent", ("prevent", "penalty"), "T13",
                           "prevent: a seat holding a trump must play one on a trump lead; penalty: it may "
                           "renounce, and its team loses the hand at the current value")
    first_leader: str = option("afterDealer", ("afterDealer", "dealer"), "T9",
                               "who leads the first trick: the seat after the dealer, or the dealer")
    next_dealer: str = option("afterDealer", ("afterDealer", "beforeDealer"), "T9",
                              "where the deal passes after the hand: to the next seat in order of play, or back")


def team(seat: int) -> int:
    return seat % 2


_PROPOSAL_FIELDS: Final = ("value", "seat", "answerer")


class Proposal:
    """A pending envite: the value proposed and the seat that proposed it. (A plain class, as
    ``State``: a dataclass's constructor runs interpreted even when the module is compiled.)"""

    __slots__ = _PROPOSAL_FIELDS

    def __init__(self, value: int, seat: int, answerer: int) -> None:
        self.value: Final = value
        self.seat: Final = seat
        self.answerer: Final = answerer  # the seat expected to answer (the next seat in order of play)

    def __repr__(self) -> str:
        return fields_repr(self, _PROPOSAL_FIELDS)


_STATE_FIELDS = ("options", "seats", "dealer", "turnup", "masks", "score", "trick", "turn", "tricks", "won", "value",
                 "proposal", "raise_right", "winner", "end", "ladder")


class State:
    """A hand at one moment. Never changed once made: ``apply`` makes a new one (the fields are
    ``Final``; a plain class, the cheapest object to make, here and compiled by mypyc).

    Each seat's cards are kept as a ``key_mask`` (``masks``; ``hands`` gives them as cards), as
    in Tresillo and Revesino: a play clears one bit, and holding a card or a trump is a bit test
    (``SUIT_MASKS``)."""

    __slots__ = _STATE_FIELDS

    def __init__(self, options: Options, seats: int, dealer: int, turnup: Card, masks: tuple[int, ...],
                 score: tuple[int, int], trick: Trick, turn: int, tricks: tuple[Trick, ...] = (), won: tuple[int, int] = (0, 0),
                 value: int = 1, proposal: Proposal | None = None, raise_right: int | None = None, winner: int | None = None,
                 end: str | None = None, ladder: tuple[int, ...] = LADDERS["1-3-6-9-12"]) -> None:
        self.options: Final = options
        self.seats: Final = seats
        self.dealer: Final = dealer
        self.turnup: Final = turnup
        self.masks: Final = masks  # per seat, the cards held, as a key mask (``State``)
        self.score: Final = score
        self.trick: Final = trick
        self.turn: Final = turn
        self.tricks: Final = tricks
        self.won: Final = won
        self.value: Final = value
        self.proposal: Final = proposal
        self.raise_right: Final = raise_right  # None: either team may bet
        self.winner: Final = winner  # team that won the hand, once finished
        self.end: Final = end  # "tricks", "fold" or "renuncio"
        self.ladder: Final = ladder

    def _replace(self, **changes: Any) -> State:
        """A copy with some fields changed (as a NamedTuple's ``_replace``)."""
        return replaced(self, _STATE_FIELDS, changes)

    def _bet(self, value: int, proposal: Proposal | None, raise_right: int | None) -> State:
        """A copy after an envite, a raise or a quiero: the value, the pending proposal and who
        may raise (made directly: ``_replace`` goes through every field by name)."""
        return State(self.options, self.seats, self.dealer, self.turnup, self.masks, self.score, self.trick, self.turn,
                     self.tricks, self.won, value, proposal, raise_right, self.winner, self.end, self.ladder)

    def _played(self, masks: tuple[int, ...], trick: Trick, turn: int) -> State:
        """A copy after a card that does not complete the trick (the commonest step, made directly)."""
        return State(self.options, self.seats, self.dealer, self.turnup, masks, self.score, trick, turn, self.tricks, self.won,
                     self.value, self.proposal, self.raise_right, self.winner, self.end, self.ladder)

    def __repr__(self) -> str:
        return fields_repr(self, _STATE_FIELDS)

    @property
    def hands(self) -> tuple[tuple[Card, ...], ...]:
        """Each seat's cards, in canonical order."""
        return tuple([cards_of_mask(mask) for mask in self.masks])

    @property
    def trump(self) -> Suit:
        return self.turnup.suit

    @property
    def finished(self) -> bool:
        return self.winner is not None


# ---- setup -------------------------------------------------------------------------------


# The fields of the other games' tables, read as absent at a fresh table's values (fresh_table_field).
_OTHER_GAMES_FIELDS = ("plate", "plateHolds", "cartulina", "fondo")


def read_table(table: Any, seats: int) -> tuple[int, int]:
    if not isinstance(table, dict):
        raise InvalidInput("INVALID_FIELD", "table", "table must be an object such as {\"score\": [4, 5]}")
    for name, value in table.items():
        if name == "score":
            continue
        if name not in _OTHER_GAMES_FIELDS:
            raise InvalidInput("INVALID_FIELD", f"table.{name}", f"unknown table field {shown(name)}; a Rentoy table has score")
        if not fresh_table_field(name, value):
            raise InvalidInput("INVALID_TABLE", f"table.{name}", f"table.{name} is not part of a Rentoy table (only score)")
    given = table.get("score")
    if given is None or given == []:  # (an empty list: protobuf JSON's printing of no score)
        given = [0, 0]
    read = [json_int(v) for v in given] if isinstance(given, list) else [None]  # (30.0 is 30, as the other games read a table)
    score = [v for v in read if v is not None]
    if len(read) != 2 or len(score) != 2:
        raise InvalidInput("INVALID_FIELD", "table.score", "table.score must be two integers: [team 0, team 1]")
    for team, points in enumerate(score):  # (a wrong item is named by its index; a match over, below, by the whole score)
        if points < 0:
            raise InvalidInput("INVALID_TABLE", f"table.score[{team}]", f"table.score[{team}]: team {team} has a negative score, {points}")
    if max(score) >= MATCH:
        raise InvalidInput("INVALID_TABLE", "table.score",
                           f"table.score {score}: a team already has {MATCH} points, so the match is over; start the next match at [0, 0]")
    return (score[0], score[1])


def read_deal(hands: list[tuple[Card, ...]], stock: tuple[Card, ...], seats: int, dealer: int) -> None:
    for i, hand in enumerate(hands):
        if len(hand) != 3:
            raise InvalidInput("WRONG_HAND_SIZE", f"deal.hands[{i}]", f"deal.hands[{i}] has {len(hand)} cards; Rentoy deals 3 to each seat")
    if not stock:
        raise InvalidInput("WRONG_HAND_SIZE", "deal.stock", "deal.stock must start with the card turned up for trumps")


def deal_from_pack(pack: list[Card], seats: int, dealer: int) -> tuple[list[tuple[Card, ...]], tuple[Card, ...]]:
    """B2: one card at a time, three rounds, from the seat after the dealer; then the turn-up."""
    hands: list[list[Card]] = [[] for _ in range(seats)]
    for i in range(3 * seats):
        hands[(dealer + 1 + i) % seats].append(pack[i])
    return [tuple(h) for h in hands], tuple(pack[3 * seats:])


def start(setup: Setup) -> State:
    options: Options = setup.options
    leader = setup.dealer if options.first_leader == "dealer" else (setup.dealer + 1) % setup.seats
    return State(options=options, seats=setup.seats, dealer=setup.dealer, turnup=setup.stock[0],
                 masks=tuple([key_mask(h) for h in setup.hands]), score=setup.table, trick=Trick(leader), turn=leader,
                 ladder=LADDERS[options.ladder])


# ---- the trick ---------------------------------------------------------------------------


def strength(card: Card, led: Card, trump: Suit) -> int:
    """B4: any trump beats every other card; otherwise only the suit led can win."""
    if card.suit is trump:
        return 100 + TRUMP_ORDER[card.rank]
    if card.suit is led.suit:
        return PLAIN_ORDER[card.rank]
    return -1


def trick_winner_index(cards: tuple[Card, ...] | list[Card], trump: Suit) -> int:
    return winning_index(cards, lambda c, led: strength(c, led, trump))


HAS_TRUMP = True


def is_trump(card: Card, trump: Suit) -> bool:
    return card.suit is trump


def trick_size(seats: int) -> int:
    return seats


def trick_players(seats: int, dealer: int | None, leader: int, count: int) -> list[int]:
    return [(leader + i) % seats for i in range(count)]


def trick_money(options: Options, request: dict[str, Any], cards: Any, players: list[int], index: int) -> dict[str, Any]:
    return {}  # a Rentoy trick moves no points by itself


# ---- legal actions -----------------------------------------------------------------------


def _decided(state: State) -> bool:
    won = state.won
    return won[0] >= 2 or won[1] >= 2


def _may_bet(state: State, seat: int) -> bool:
    """B3 / T4 / T15: no proposal pending, hand undecided, below the top, and the right to raise."""
    return (state.proposal is None and not _decided(state) and state.value < state.ladder[-1]
            and state.raise_right in (None, team(seat)))


def _answerers(state: State) -> list[int]:
    """T3: the seat after the proposer answers; as an option any member of its team may."""
    proposal = state.proposal
    assert proposal is not None
    if state.options.answer_by == "nextOpponent":
        return [proposal.answerer]
    return [s for s in _round_from(proposal.answerer, state.seats) if team(s) == team(proposal.answerer)]


def _round_from(seat: int, seats: int) -> list[int]:
    return [(seat + k) % seats for k in range(seats)]


def _trumps_held(state: State, seat: int) -> int:
    """The trumps ``seat`` holds, as a key mask."""
    return state.masks[seat] & SUIT_MASKS[state.turnup.key >> 4]


def _trump_led(state: State) -> bool:
    return bool(state.trick.cards) and state.trick.cards[0].suit is state.trump


def playable(state: State, seat: int) -> list[Card]:
    """B4 / T11: a free choice, except that on a trump lead a seat holding trumps plays one."""
    return list(cards_of_mask(_playable(state, seat)))


def _playable(state: State, seat: int) -> int:
    """``playable`` as a key mask."""
    if _trump_led(state) and state.options.renuncio == "prevent":
        trumps = _trumps_held(state, seat)
        if trumps:
            return trumps
    return state.masks[seat]


# Every action there is, made once: the legal lists are built by lookup.
_PLAY = play_actions(DECK_40, max(SEATS))
_CALL = call_actions(CALLS, max(SEATS))


@remember_last
def legal_actions(state: State) -> list[Action]:
    if state.finished:
        return []
    if state.proposal is not None:
        # An answer is due: accept, refuse, or raise while the ladder goes higher.
        can_raise = state.proposal.value < state.ladder[-1]
        out = []
        for seat in _answerers(state):
            calls = _CALL[seat]
            out += [calls["quiero"], calls["no-quiero"]]
            if can_raise:
                out.append(calls["envite"])
        return out
    seat = state.turn
    plays = _PLAY[seat]
    out = [plays[c.key] for c in playable(state, seat)]
    if _may_bet(state, seat):
        out.append(_CALL[seat]["envite"])
    if state.options.bet_timing == "anytime":
        out += [_CALL[s]["envite"] for s in _round_from(seat, state.seats)[1:] if _may_bet(state, s)]
    return out


def is_legal(state: State, action: Action) -> bool:
    """Membership in ``legal_actions``; a card (by the seat to play, no proposal pending) is a bit
    of the mask ``playable`` lists, no list made."""
    card = action.card
    if card is None or action.call is not None or action.args:
        return action in legal_actions(state)
    seat = action.seat
    if state.finished or state.proposal is not None or seat != state.turn:
        return False
    return bool(_playable(state, seat) >> card.key & 1)


def to_act(state: State) -> int | None:
    if state.finished:
        return None
    return state.proposal.answerer if state.proposal is not None else state.turn


def is_finished(state: State) -> bool:
    return state.finished


def out_of_turn_calls(state: State, seat: int) -> frozenset[str]:
    """The calls ``seat`` may make when another seat is to act (anything else is NOT_YOUR_TURN,
    FORMAT.md section 6)."""
    proposal = state.proposal
    if proposal is None:
        # T2 option: a bet whenever no proposal is pending; a team without the right to raise is
        # told NOT_ALLOWED_NOW, as it would be at its own turn.
        return frozenset({"envite"}) if state.options.bet_timing == "anytime" else frozenset()
    if state.options.answer_by == "anyOpponent" and team(seat) != team(proposal.seat):
        # T3 option: any member of the team addressed may answer.
        return frozenset({"quiero", "no-quiero", "envite"})
    return frozenset()


def not_your_turn(state: State, seat: int) -> str:
    """What a seat that is not to act, and may not make its action out of turn, is told: whose
    turn it is. Under answerBy anyOpponent (T3) a partner of the seat named to answer may answer
    too, so its card (none is played while an envite waits) is told whose turn it is to play once
    the envite is answered, and the answers it may give."""
    proposal = state.proposal
    if proposal is not None and seat in _answerers(state):
        return (f"it is seat {state.turn}'s turn to play once the pending envite is answered; "
                f"seat {seat} may answer the envite to {proposal.value} ({_answers(state, seat)})")
    return whose_turn(to_act(state), seat)


def _answers(state: State, seat: int) -> str:
    """The answers ``seat`` may give the pending envite, as its legal list has them: "quiero,
    no-quiero or envite", or without envite at the top of the ladder, saying so."""
    calls = [a.call for a in legal_actions(state) if a.seat == seat and a.call is not None]
    said = ", ".join(calls[:-1]) + " or " + calls[-1]
    return said if "envite" in calls else f"{said}: {state.ladder[-1]} is the top of the ladder"


def explain(state: State, action: Action) -> IllegalAction:
    """Why an action (by a seat that may act now) is not legal."""
    seat = action.seat
    proposal = state.proposal
    if action.card is not None:
        if proposal is not None:
            return IllegalAction("NOT_ALLOWED_NOW", f"seat {seat} must first answer the envite to {proposal.value} ({_answers(state, seat)})")
        hand = state.masks[seat]
        if not hand >> action.card.key & 1:
            return IllegalAction("CARD_NOT_IN_HAND", f"seat {seat} does not hold {action.card}; it holds {cards_str(cards_of_mask(hand))}")
        trumps = cards_of_mask(_trumps_held(state, seat))
        led = state.trick.cards[0]
        return IllegalAction("MUST_PLAY_TRUMP", f"seat {seat} holds {cards_str(trumps)}, trump ({state.trump.word}), and a trump "
                             f"was led ({led}): the arrastre obliges seat {seat} to play a trump, not {action.card}")
    # A seat that may answer a proposal may always accept or refuse it (record.check sends the
    # other seats NOT_YOUR_TURN), so a refused call here is an answer with nothing to answer, a
    # raise past the top, or a bet.
    if action.call in ("quiero", "no-quiero"):
        return IllegalAction("NOT_ALLOWED_NOW", f"there is no envite for seat {seat} to answer")
    top = state.ladder[-1]
    if proposal is not None:
        return IllegalAction("NOT_ALLOWED_NOW", f"the proposal is already {top}, the top of the ladder: it cannot be raised")
    if _decided(state):
        return IllegalAction("NOT_ALLOWED_NOW", "the hand is decided: a team already has two tricks, so no more bets")
    if state.value >= top:
        return IllegalAction("NOT_ALLOWED_NOW", f"the hand is already worth {top}: it cannot be raised")
    if state.raise_right is not None and state.raise_right != team(seat):
        return IllegalAction("NOT_ALLOWED_NOW", f"team {state.raise_right} accepted the last envite, so only team "
                             f"{state.raise_right} may raise; seat {seat} is in team {team(seat)}")
    return IllegalAction("NOT_ALLOWED_NOW", f"seat {seat} may not bet now")


# ---- applying actions --------------------------------------------------------------------


def _next_value(state: State, value: int) -> int:
    return state.ladder[state.ladder.index(value) + 1]


def _finish(state: State, winner: int, end: str) -> State:
    return State(state.options, state.seats, state.dealer, state.turnup, state.masks, state.score, state.trick, state.turn,
                 state.tricks, state.won, state.value, None, state.raise_right, winner, end, state.ladder)


def apply(state: State, action: Action) -> tuple[State, list[dict[str, Any]]]:
    """Apply a legal action; return the new state and the events it caused."""
    seat = action.seat
    if action.card is not None:
        return _play(state, seat, action.card)
    proposal = state.proposal
    if action.call == "envite":
        if proposal is None:
            new = Proposal(_next_value(state, state.value), seat, (seat + 1) % state.seats)
            text = f"seat {seat} (team {team(seat)}) bets: the hand would be worth {new.value}"
            state = state._bet(state.value, new, state.raise_right)
            return state, [{"kind": "envite", "seat": seat, "team": team(seat), "value": new.value, "text": text}]
        # A raise accepts the pending proposal and proposes the next level.
        value = proposal.value
        new = Proposal(_next_value(state, value), seat, (seat + 1) % state.seats)
        text = f"seat {seat} (team {team(seat)}) accepts {value} and raises to {new.value}"
        state = state._bet(value, new, state.raise_right)
        return state, [{"kind": "raise", "seat": seat, "team": team(seat), "value": new.value, "text": text}]
    assert proposal is not None
    if action.call == "quiero":
        right = team(seat) if state.options.raise_rights == "accepting" else None
        text = f"seat {seat} (team {team(seat)}) accepts: the hand is worth {proposal.value}"
        state = state._bet(proposal.value, None, right)
        return state, [{"kind": "quiero", "seat": seat, "team": team(seat), "value": proposal.value, "text": text}]
    # no-quiero: T5, the proposing team scores the last accepted value.
    winner = team(proposal.seat)
    text = (f"seat {seat} (team {team(seat)}) refuses {proposal.value}: team {winner} wins the hand "
            f"at its last accepted value, {state.value}")
    return _finish(state, winner, "fold"), [{"kind": "no-quiero", "seat": seat, "team": team(seat), "value": state.value, "text": text}]


class _Rules(Rules):
    """``is_legal`` and ``apply`` for ``replay`` (``engine.record.Rules``)."""

    def is_legal(self, state: Any, action: Action) -> bool:
        return is_legal(state, action)

    def apply(self, state: Any, action: Action) -> tuple[Any, list[dict[str, Any]]]:
        return apply(state, action)


RULES: Final = _Rules()


def _play(state: State, seat: int, card: Card) -> tuple[State, list[dict[str, Any]]]:
    renounced = (_trump_led(state) and card.suit is not state.trump and bool(_trumps_held(state, seat)))
    masks = with_item(state.masks, seat, state.masks[seat] & ~(1 << card.key))
    trick = state.trick.with_card(card)
    events: list[dict[str, Any]] = [{"kind": "card", "seat": seat, "card": card.code, "text": f"seat {seat} plays {card.code}"}]
    if len(trick.cards) < state.seats and not renounced:
        return state._played(masks, trick, (seat + 1) % state.seats), events
    if renounced:
        # T13 option "penalty": the offending team loses the hand at its current value.
        state = state._replace(masks=masks, trick=trick)
        winner = 1 - team(seat)
        events.append({"kind": "renuncio", "seat": seat, "team": team(seat), "value": state.value,
                       "text": f"seat {seat} renounces: holds a trump on a trump lead and plays {card}; "
                               f"team {winner} wins the hand at {state.value}"})
        return _finish(state, winner, "renuncio"), events
    idx = trick_winner_index(trick.cards, state.trump)
    winner_seat = trick.seat_of(idx, state.seats)
    done = Trick(trick.leader, trick.cards, winner_seat)
    won = list(state.won)
    won[team(winner_seat)] += 1
    state = State(state.options, state.seats, state.dealer, state.turnup, masks, state.score, Trick(winner_seat), winner_seat,
                  state.tricks + (done,), (won[0], won[1]), state.value, state.proposal, state.raise_right, state.winner, state.end,
                  state.ladder)
    events.append({"kind": "trick", "seat": winner_seat, "team": team(winner_seat), "card": str(trick.cards[idx]),
                   "trick": len(state.tricks),
                   "text": f"trick {len(state.tricks)} to seat {winner_seat} (team {team(winner_seat)}) with {trick.cards[idx]}"})
    leading = 0 if won[0] >= 2 else 1 if won[1] >= 2 else None
    if leading is not None and (not state.options.play_all_tricks or len(state.tricks) == 3):
        events.append({"kind": "hand", "team": leading, "value": state.value,
                       "text": f"team {leading} wins {won[leading]} tricks: the hand, worth {state.value}"})
        return _finish(state, leading, "tricks"), events
    return state, events


# ---- results -----------------------------------------------------------------------------


def tricks(state: State) -> list[Trick]:
    return [*state.tricks, *([state.trick] if state.trick.cards else [])]


def summary(state: State) -> dict[str, Any]:
    """The Rentoy-specific public fields of a hand in any state: trump, value, bets."""
    out: dict[str, Any] = {"trump": state.trump.word, "turnUp": str(state.turnup), "value": state.value,
                           "teamTricks": list(state.won)}
    if state.proposal is not None:
        out["proposal"] = {"value": state.proposal.value, "seat": state.proposal.seat}
    if state.raise_right is not None:
        out["raiseRight"] = state.raise_right
    return out


def settlement(state: State) -> dict[str, Any]:
    """The result fields of a finished hand: points, payments, the table after, the next dealer."""
    assert state.winner is not None and state.end is not None
    out = settle(state.score, state.winner, state.value, state.end, state.options.play_all_tricks)
    out["nextDealer"] = next_dealer(state.options, state.dealer, state.seats)
    return out


_END_REASON = {
    "tricks": "won two tricks",
    "fold": "the other team refused the envite",
    "renuncio": "the other team renounced a trump on a trump lead",
}


_PLAYED_OUT: Final = "won two or all three tricks (playAllTricks)"
"""A hand won by tricks and played out (T12): two tricks or three. (The reason is the same from
SettleHand, which is given no count of tricks, as from the record.)"""


def settle(score: tuple[int, int], winner: int, value: int, end: str, play_all_tricks: bool = False) -> dict[str, Any]:
    """B5: the winning team scores the hand's value; the match is won at 12."""
    points = [0, 0]
    points[winner] = value
    after = [score[0] + points[0], score[1] + points[1]]
    out: dict[str, Any] = {
        "handWinner": winner, "end": end, "points": points,
        "payments": [{"payee": f"team {winner}", "amount": value,
                      "reason": f"hand worth {value}: {_PLAYED_OUT if end == 'tricks' and play_all_tricks else _END_REASON[end]}"}],
        "table": {"score": after},
    }
    if after[winner] >= MATCH:
        out["matchWinner"] = winner
    return out


def next_dealer(options: Options, dealer: int, seats: int) -> int:
    return (dealer + (1 if options.next_dealer == "afterDealer" else -1)) % seats


def view(state: State, seat: int) -> dict[str, Any]:
    """What one seat may see: its own cards, the public calls and tricks, the others' counts."""
    return {"seat": seat, "hand": cards_str(cards_of_mask(state.masks[seat])),
            "handSizes": [mask.bit_count() for mask in state.masks], "team": team(seat)}


def settle_summary(options: Options, score: tuple[int, int], request: dict[str, Any]) -> dict[str, Any]:
    """SettleHand: the request's ``rentoy`` is ``{"winner": team, "value": n, "end": "tricks" |
    "fold" | "renuncio"}``."""
    from engine.record import require

    hand = request.get("rentoy")
    if not isinstance(hand, dict):
        raise InvalidInput("MISSING_FIELD", "rentoy", "rentoy is required: {\"winner\": team, \"value\": points, \"end\": \"tricks\"}")
    winner = require(hand, "winner", int, "rentoy.")
    if winner not in (0, 1):
        raise InvalidInput("INVALID_FIELD", "rentoy.winner", f"rentoy.winner is a team, 0 or 1, not {winner}")
    value = require(hand, "value", int, "rentoy.")
    ladder = LADDERS[options.ladder]
    if value not in ladder:
        raise InvalidInput("INVALID_FIELD", "rentoy.value", f"rentoy.value {value} is not on the ladder {options.ladder}")
    end = hand.get("end")
    if end is None:  # (left out or null, as any field: a hand won by its tricks)
        end = "tricks"
    if not isinstance(end, str) or end not in _END_REASON:
        raise InvalidInput("INVALID_FIELD", "rentoy.end", f"rentoy.end must be tricks, fold or renuncio, not {shown(end)}")
    if end == "renuncio" and options.renuncio != "penalty":
        raise InvalidInput("INVALID_FIELD", "rentoy.end", "a hand ends by renuncio only under the option renuncio: penalty")
    if end == "fold" and value == ladder[-1]:
        raise InvalidInput("INVALID_FIELD", "rentoy.value", f"a refused envite scores the last accepted value, which is below {value}")
    return settle(score, winner, value, end, options.play_all_tricks)
