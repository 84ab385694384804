"""Revesino's money: every tanto that moves in a hand, from the course of play.

Spec ``rules/revesino.md`` section 0 (binding sequencing decisions) and A6 (the fondo and its
renewal, aces and the quínola placed or forced, the escrow of the quínola's fondo movements, the
revesino won or cut, the napolitana's success or failure, the hand winner's party, revokes), with
the house rules of ``engine.revesino.Options`` (``engine.revesino_options``).

Everything here is pure. ``money(options, course)`` takes what has happened in a hand so far (the
fondo before the deal, the complete tricks with every ace and quínola classified, the napolitana,
the announcer, the cards out of play) and returns the payments made so far, each seat's net, the
fondo and the escrow now, and, once the hand is over, the hand winner and the table to carry. The
same function serves a hand in progress (the antes and fee at the deal, the payments of each
trick as it completes, the escrow) and a finished one (everything, in the order of A6.9). The
invariant ``sum(net) + (fondo now + escrow now - fondo before) == 0`` holds at every point.

``trick_ledger`` is the money of one isolated trick (ResolveTrick); ``read_table`` reads the
record's ``table``; ``settle_summary`` is the SettleHand API for apps that track play themselves.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from engine.cards import DECK_48, SUIT_WORDS, Card, Suit, cards_str, distinct, key_mask
from engine.errors import InvalidInput, shown
from engine.record import check_tantos, fields_repr, fresh_table_field, json_int
from engine.revesino_options import Options
from engine.tricks import rank_table, winning_index

SEATS: Final = 4
QUINOLA: Final = Card.of(10, Suit.OROS)
HIGH_OROS: Final = frozenset({Card.of(1, Suit.OROS), Card.of(12, Suit.OROS), Card.of(11, Suit.OROS)})
"""A napolitana's quínola forced by one of these leads costs him the 2/1/1 (A6.6, R27)."""

KINDS: Final = ("led", "placed", "forced", "voluntary")
REVOKE_FINE: Final = 2
"""A6.8: the renuncio costs 2 tantos into the fondo."""


def _card_points(card: Card) -> int:
    if card == QUINOLA:
        return 3
    if card.rank == 1:
        return 5 if card.suit is Suit.COPAS else 4
    return {12: 3, 11: 2, 10: 1}.get(card.rank, 0)


POINTS: Final[dict[Card, int]] = {card: _card_points(card) for card in DECK_48.cards}
"""A1: the card points (aces 4, the ace of copas 5, kings 3, horses 2, sotas 1, the quínola 3)."""

STRENGTH: Final = rank_table("1 12 11 10 9 8 7 6 5 4 3 2")
"""A1: the rank order inside every suit, highest first."""


def strength(card: Card, led: Card) -> int:
    """A card's strength in a trick led with ``led``: only the suit led can win (no trumps)."""
    return STRENGTH[card.rank] if card.suit is led.suit else -1


def trick_winner(leader: int, cards: tuple[Card, ...] | list[Card]) -> int:
    """The seat that wins a trick of ``cards`` in play order, led by ``leader``."""
    return (leader + winning_index(cards, strength)) % SEATS


def multiplier(number: int) -> int:
    """A6: m = 2 in the first and the last trick, otherwise 1."""
    return 2 if number in (1, 11) else 1


def is_special(card: Card) -> bool:
    """An ace or the quínola: the cards classified by A5.1."""
    return card.rank == 1 or card == QUINOLA


# The same, indexed by ``Card.key`` (a small integer: a tuple index is the cheapest lookup), for
# the loops over every play.
_CARD_OF_KEY: Final[dict[int, Card]] = {card.key: card for card in DECK_48.cards}
_POINTS_BY_KEY: Final[tuple[int, ...]] = tuple([POINTS[_CARD_OF_KEY[k]] if k in _CARD_OF_KEY else 0 for k in range(64)])
SPECIAL_BY_KEY: Final[tuple[bool, ...]] = tuple([k in _CARD_OF_KEY and is_special(_CARD_OF_KEY[k]) for k in range(64)])


# ---- the course of a hand -----------------------------------------------------------------------

# Play and PlayedTrick are made for every card and trick of every hand: plain classes of Final
# fields (read-only under mypyc), with a frozen dataclass's equality, hash and repr, are several
# times cheaper to make than frozen dataclasses.

class Play:
    """One card played. ``kind`` classifies an ace or the quínola (A5.1, section 0): ``led``,
    ``placed`` (off-suit: void, or a napolitana renouncing in tricks 1-9), ``forced`` (his only
    card of the suit led by another) or ``voluntary``; ``""`` for every other card. ``revoke``:
    a renuncio accepted under ``allowRevokes``."""

    __slots__ = ("seat", "card", "kind", "revoke")

    def __init__(self, seat: int, card: Card, kind: str, revoke: bool = False) -> None:
        self.seat: Final = seat
        self.card: Final = card
        self.kind: Final = kind
        self.revoke: Final = revoke

    def _fields(self) -> tuple[int, Card, str, bool]:
        return (self.seat, self.card, self.kind, self.revoke)

    def __eq__(self, other: object) -> bool:
        return self._fields() == other._fields() if isinstance(other, Play) else NotImplemented

    def __hash__(self) -> int:
        return hash(self._fields())

    def __repr__(self) -> str:
        return fields_repr(self, ("seat", "card", "kind", "revoke"))


class PlayedTrick:
    """One trick: its number (1..11), its leader, the plays in order, the winner once complete.
    Made once, read by the money of every answer: ``specials`` (the plays of an ace or the
    quínola, and the revokes, in play order: the only plays that move money) and ``points``
    (the card points in it) are worked out here."""

    __slots__ = ("number", "leader", "plays", "winner", "specials", "points")

    def __init__(self, number: int, leader: int, plays: tuple[Play, ...], winner: int | None) -> None:
        self.number: Final = number
        self.leader: Final = leader
        self.plays: Final = plays
        self.winner: Final = winner
        specials: tuple[Play, ...] = ()  # (most tricks have none, and none is no allocation)
        points = 0
        for p in plays:
            key = p.card.key
            points += _POINTS_BY_KEY[key]
            if p.revoke or SPECIAL_BY_KEY[key]:
                specials += (p,)
        self.specials: Final = specials
        self.points: Final = points

    def _fields(self) -> tuple[int, int, tuple[Play, ...], int | None]:
        return (self.number, self.leader, self.plays, self.winner)

    def __eq__(self, other: object) -> bool:
        return self._fields() == other._fields() if isinstance(other, PlayedTrick) else NotImplemented

    def __hash__(self) -> int:
        return hash(self._fields())

    def __repr__(self) -> str:
        return fields_repr(self, ("number", "leader", "plays", "winner"))


@dataclass(frozen=True, kw_only=True)
class Course:
    """Everything the money depends on, for a hand in progress or over.

    ``fondo`` is the table's fondo before this deal's re-ante and fee; ``tricks`` the complete
    tricks in order (a last trick without a winner, in progress, only tells that it has been led);
    ``napolitana`` the seat that declared (or implicitly renounced as) napolitana; ``announcer``
    the seat that announced a revesino after trick 9; ``out_of_play`` the four cards out of play
    (the party, A6.7); ``napolitana_from`` the trick from which he is the napolitana (under
    ``napolitanaDeclaration: implicit``, that of his first renounce; 1 when he called it)."""

    dealer: int
    fondo: int
    tricks: tuple[PlayedTrick, ...]
    napolitana: int | None = None
    announcer: int | None = None
    out_of_play: tuple[Card, ...] = ()
    finished: bool = False
    napolitana_from: int = 1


# ---- the ledger ---------------------------------------------------------------------------------

FONDO: Final = -1
ESCROW: Final = -2


_PARTY_NAMES: Final = ("escrow", "fondo", *[f"seat {seat}" for seat in range(SEATS)])
"""By party + 2: the escrow, the fondo, the seats."""


def _who(party: int) -> str:
    return _PARTY_NAMES[party + 2] if ESCROW <= party < SEATS else f"seat {party}"


class _Side:
    """A side payment between seats, remembered for the revesino's cancellation and the failed
    napolitana's refunds. ``placer``: the seat whose placed ace or quínola it paid for; ``forced``:
    the seat whose forced ace or quínola it paid for (R24 ``implicitNapolitanaRefund``). (Plain
    classes here too: cheaper to make than dataclasses.)"""

    def __init__(self, payer: int, payee: int, amount: int, trick: int, what: str, placer: int | None = None,
                 forced: int | None = None) -> None:
        self.payer: Final = payer
        self.payee: Final = payee
        self.amount: Final = amount
        self.trick: Final = trick
        self.what: Final = what
        self.placer: Final = placer
        self.forced: Final = forced
        self.returned = ""  # when it was returned ("at the revesino's announcement"), "" while it stands


class _Escrow:
    """A quínola fondo movement of tricks 1-9 held apart (A6.4): ``take`` (the placer took the
    fondo) or ``pay`` (the holder paid an amount equal to the fondo)."""

    def __init__(self, seat: int, amount: int, kind: str, trick: int) -> None:
        self.seat: Final = seat
        self.amount: Final = amount
        self.kind: Final = kind
        self.trick: Final = trick


class _Ledger:
    """The money of one hand as it is computed: the payments, each seat's net, the fondo and the
    escrow, and what later payments depend on. (A plain class: one is made for every answer.)"""

    def __init__(self, options: Options, dealer: int, fondo: int, escrow_enabled: bool = True) -> None:
        self.options = options
        self.dealer = dealer
        self.fondo = fondo
        self.escrow_enabled = escrow_enabled
        self.net = [0] * SEATS
        self.escrow = 0
        self.payments: list[dict[str, Any]] = []
        self.forfeited: list[dict[str, Any]] = []
        self.side: list[_Side] = []
        self.pending: list[_Escrow] = []
        self.fines: list[tuple[int, int]] = []  # (seat, trick) of each renuncio fine
        self.revoked: dict[int, int] = {}  # seat -> trick of his first revoke
        self.gergi: list[tuple[int, int, Card]] = []  # (seat, trick, ace) led
        self.quinola_take: tuple[int, int, int] | None = None  # (seat, amount, trick) the placed quínola took from the fondo
        self.quinola_take_reversed = ""  # when the take went back to the fondo, "" while it stands
        self.doubled: set[int] = set()  # seats whose quínola fondo payment in play stands

    # -- transfers --

    def move(self, payer: int, payee: int, amount: int, reason: str, trick: int | None = None) -> None:
        """One transfer between seats, the fondo and the escrow. Zero amounts are not transfers."""
        assert amount >= 0, amount
        if amount == 0:
            return
        self._add(payer, -amount)
        self._add(payee, amount)
        item: dict[str, Any] = {"payer": _who(payer), "payee": _who(payee), "amount": amount, "reason": reason}
        if trick is not None:
            item["trick"] = trick
        self.payments.append(item)

    def _add(self, party: int, amount: int) -> None:
        if party == FONDO:
            self.fondo += amount
        elif party == ESCROW:
            self.escrow += amount
        else:
            self.net[party] += amount

    def forfeits(self, seat: int, when: int) -> bool:
        """A6.8: a seat that revoked in trick ``when`` or earlier collects nothing more."""
        first = self.revoked.get(seat)
        return first is not None and first <= when

    def forfeit(self, seat: int, amount: int, reason: str, trick: int | None) -> None:
        if amount <= 0:
            return
        item: dict[str, Any] = {"seat": seat, "amount": amount, "reason": f"{reason} (forfeited: seat {seat} revoked)"}
        if trick is not None:
            item["trick"] = trick
        self.forfeited.append(item)

    def opposite(self, payer: int, payee: int, amount: int, reason: str) -> tuple[int, str]:
        """R34 ``oppositeDouble``: a payment between a seat and the seat opposite is doubled (the
        fondo and the escrow are no seat: what moves to or from them is never doubled)."""
        if self.options.opposite_double and payer >= 0 and payee >= 0 and (payer - payee) % SEATS == 2:
            return 2 * amount, f"{reason}, doubled between opposite seats"
        return amount, reason

    def gain(self, payer: int, payee: int, base: int, reason: str, trick: int | None, when: int) -> int:
        """A payment a seat collects (not a return of his own money): doubled between opposite
        seats, forfeited by a revoker. Returns the amount paid."""
        amount, reason = self.opposite(payer, payee, base, reason)
        if amount <= 0:
            return 0
        if self.forfeits(payee, when):
            self.forfeit(payee, amount, reason, trick)
            return 0
        self.move(payer, payee, amount, reason, trick)
        return amount

    def side_payment(self, payer: int, payee: int, base: int, what: str, trick: int, placer: int | None = None,
                     forced: int | None = None) -> None:
        amount = self.gain(payer, payee, base, what, trick, trick)
        if amount:
            self.side.append(_Side(payer, payee, amount, trick, what, placer, forced))

    def into_fondo(self, seat: int, amount: int, reason: str, trick: int | None) -> None:
        """A quínola fondo payment: held in escrow in tricks 1-9 (A6.4), final otherwise."""
        self.doubled.add(seat)
        if amount <= 0:
            return
        if trick is not None and trick <= 9 and self.escrow_enabled:
            self.move(seat, ESCROW, amount, f"{reason} (held in escrow until trick 10 is led)", trick)
            self.pending.append(_Escrow(seat, amount, "pay", trick))
        else:
            self.move(seat, FONDO, amount, reason, trick)

    def take_fondo(self, seat: int, reason: str, trick: int) -> None:
        """A placed quínola takes the whole fondo (escrowed in tricks 1-9)."""
        amount = self.fondo
        if amount <= 0:
            return
        if self.forfeits(seat, trick):
            self.forfeit(seat, amount, f"{reason}: the fondo, {amount}", trick)
            return
        if trick <= 9 and self.escrow_enabled:
            self.move(FONDO, ESCROW, amount, f"{reason}: takes the fondo, {amount} (held in escrow until trick 10 is led)", trick)
            self.pending.append(_Escrow(seat, amount, "take", trick))
        else:
            self.move(FONDO, seat, amount, f"{reason}: takes the fondo, {amount}", trick)
        self.quinola_take = (seat, amount, trick)

    # -- the fondo's renewal (A6.1) --

    def renew(self, why: str, trick: int | None, at_deal: bool) -> None:
        """Every player pays the stake (``fullStake``), or the players top the fondo up to
        ``renewBelow`` (``topUp``: the shortfall in equal shares, a remainder paid one tanto each
        from the dealer in play order). A full stake is the seeds' "2 each and 3 for the dealer".
        At the deal the dealer's 3 is his stake and the fee that follows it, or, with
        ``dealerInitialStakeIncludesFee`` off, his stake one more, the fee then on top. Renewed in
        play (``renewTiming: immediately``), where no fee follows, the dealer's stake is the fee
        more (on) or one more (off): the fondo is renewed to the seeds' 9, not to 8, which is
        below 9 and which the next deal would renew a second time."""
        o = self.options
        full = o.renew_amount == "fullStake"
        if full:
            shares = [o.stake] * SEATS  # in play order from the dealer
            reason = f"{why}: each player pays {o.stake}"
        else:
            base, rest = divmod(max(0, o.renew_below - self.fondo), SEATS)
            shares = [base + (1 if i < rest else 0) for i in range(SEATS)]
            reason = f"{why}: the players top it up to {o.renew_below}"
        # The dealer's share beyond the others': his 3 (a top-up in play already reaches renewBelow).
        if not o.dealer_initial_stake_includes_fee and (at_deal or full):
            # (his share and what it is: a stake, or a top-up share; only at the deal does a fee follow)
            extra = 1
            note = (f" (the dealer's {'stake' if full else 'share'} is one more: his {shares[0] + 1}"
                    + (" before the fee)" if at_deal else ")"))
        elif full and not at_deal:
            extra, note = o.dealer_fee, f" (the dealer's stake is the fee more: his {o.stake + o.dealer_fee})"
        else:
            extra, note = 0, ""
        shares[0] += extra
        for i in range(SEATS):
            self.move((self.dealer + i) % SEATS, FONDO, shares[i], reason + (note if extra and i == 0 else ""), trick)

    # -- the escrow (A6.4) --

    def finalize_escrow(self) -> None:
        for e in self.pending:
            if e.kind == "take" and self.options.renuncio_forfeits != "laterGains" and self.forfeits(e.seat, 12):
                # R28 laterPayments: the take reaches him only now, after his revoke.
                what = f"no revesino announced: the quínola placed in trick {e.trick} keeps the fondo it took, {e.amount}"
                self.forfeit(e.seat, e.amount, what, None)
                self.move(ESCROW, FONDO, e.amount, f"the fondo taken by the quínola in trick {e.trick}, {e.amount}, goes back "
                                                   f"to the fondo: seat {e.seat} revoked in trick {self.revoked[e.seat]}")
                self.quinola_take_reversed = f"at his renuncio in trick {self.revoked[e.seat]}"
            elif e.kind == "take":
                self.move(ESCROW, e.seat, e.amount, f"no revesino announced: the quínola placed in trick {e.trick} keeps the fondo it took, {e.amount}")
            else:
                self.move(ESCROW, FONDO, e.amount, f"no revesino announced: the quínola payment of trick {e.trick}, {e.amount}, stays in the fondo")
        self.pending = []

    def reverse_escrow(self, e: _Escrow, reason: str) -> None:
        if e.kind == "take":
            self.move(ESCROW, FONDO, e.amount, f"{reason}: the fondo taken by the quínola in trick {e.trick}, {e.amount}, returned")
            self.quinola_take_reversed = "at the revesino's announcement"
        else:
            self.move(ESCROW, e.seat, e.amount, f"{reason}: the quínola payment of trick {e.trick}, {e.amount}, returned")
            self.doubled.discard(e.seat)
        self.pending.remove(e)


# ---- the deal and each trick --------------------------------------------------------------------

def _deal(led: _Ledger) -> None:
    """A6.1: re-ante when the fondo is below ``renewBelow`` (or empty, per ``renewTrigger``),
    then the dealer's fee."""
    o = led.options
    start = led.fondo
    renew = start < o.renew_below if o.renew_trigger == "belowStake" else start == 0
    if renew:
        why = "the fondo is empty" if start == 0 else f"the fondo ({start}) is below {o.renew_below}"
        led.renew(f"re-ante: {why}", None, at_deal=True)
    led.move(led.dealer, FONDO, o.dealer_fee, f"the dealer's fee of {o.dealer_fee} into the fondo")


def _ace_double(options: Options, card: Card, placed: bool) -> int:
    suit = options.double_ace_placed if placed else options.double_ace_forced
    return 2 if SUIT_WORDS[card.key >> 4] == suit else 1


def _trick(led: _Ledger, t: PlayedTrick, napolitana: int | None, announced: bool, voided: bool) -> None:
    """A6.9 step 2: the payments of one complete trick."""
    o = led.options
    n = t.number
    m = multiplier(n)
    assert t.winner is not None
    winner, leader = t.winner, t.leader
    specials = t.specials  # (the other plays move no money)
    for p in specials:
        if p.revoke:
            nothing = "nothing this hand, what he was paid before returned" if o.renuncio_forfeits == "wholeHand" else "nothing more this hand"
            led.move(p.seat, FONDO, REVOKE_FINE, f"renuncio: seat {p.seat} played {p.card} in trick {n} without following suit, "
                                                 f"{REVOKE_FINE} into the fondo; he collects {nothing}", n)
            led.fines.append((p.seat, n))
            if p.seat not in led.revoked:
                led.revoked[p.seat] = n
                if o.renuncio_forfeits == "wholeHand":
                    _forfeit_earlier(led, p.seat, n)
    late = announced and n >= 10  # A6.5 step 2: no ace or quínola payments once a revesino is on
    for p in specials:
        card, seat = p.card, p.seat
        if card.rank == 1:
            if late:
                continue
            if p.kind == "placed":
                base = _ace_double(o, card, placed=True) * m
                led.side_payment(winner, seat, base, f"{card} placed in trick {n}: the trick's winner pays {base}", n, placer=seat)
            elif p.kind == "forced":
                base = _ace_double(o, card, placed=False) * m
                led.side_payment(seat, leader, base, f"{card} forced in trick {n}: pays the trick's leader {base}", n, forced=seat)
            elif p.kind == "led" and o.gergi:
                led.gergi.append((seat, n, card))
        elif card == QUINOLA:
            _quinola(led, t, p, napolitana, late, voided)
    if o.renew_timing == "immediately" and led.fondo == 0:
        led.renew(f"the fondo emptied in trick {n}: renewed at once", n, at_deal=False)


def _forfeit_earlier(led: _Ledger, seat: int, n: int) -> None:
    """R28 ``renuncioForfeits: wholeHand``: at his first revoke, in trick ``n``, after its fine, the
    revoker gives back what he gained before it, each listed in ``forfeited``: each side payment he
    was paid, to its payer, and the fondo his quínola took, to the fondo (from the escrow in tricks
    1-9, from him once final). These returns belong to the hand, not to a trick, as R24's refunds
    (``_refund_forced``): a trick's payments stay what ResolveTrick, which knows that trick alone,
    answers. His own money returned to him stays his; later gains are forfeited as they come."""
    why = f"renuncio by seat {seat} in trick {n}"
    when = f"at his renuncio in trick {n}"
    for s in led.side:
        if s.payee == seat and not s.returned:
            led.move(seat, s.payer, s.amount, f"{why}: returned ({s.what})")
            led.forfeit(seat, s.amount, s.what, None)
            s.returned = when
    take = led.quinola_take
    if take is None or take[0] != seat or led.quinola_take_reversed:
        return
    _, amount, trick = take
    escrowed = [e for e in led.pending if e.kind == "take"]
    if escrowed:
        led.pending.remove(escrowed[0])
        led.move(ESCROW, FONDO, amount, f"{why}: the fondo taken by his quínola in trick {trick}, {amount}, returned from the escrow")
    else:
        led.move(seat, FONDO, amount, f"{why}: the fondo taken by his quínola in trick {trick}, {amount}, returned")
    led.quinola_take_reversed = when
    led.forfeit(seat, amount, f"quínola placed in trick {trick}: takes the fondo, {amount}", None)


def _quinola(led: _Ledger, t: PlayedTrick, p: Play, napolitana: int | None, late: bool, voided: bool) -> None:
    o = led.options
    n, m = t.number, multiplier(t.number)
    assert t.winner is not None
    winner, leader, holder = t.winner, t.leader, p.seat
    nap_rule = holder == napolitana and p.kind == "forced" and t.plays[0].card in HIGH_OROS
    if late and not (nap_rule and not voided):
        return
    if p.kind == "placed":
        others = [s for s in _play_order(leader) if s not in (holder, winner)]
        led.take_fondo(holder, f"quínola placed in trick {n}", n)
        base = o.quinola_placed_winner_pays * m
        led.side_payment(winner, holder, base, f"quínola placed in trick {n}: the trick's winner pays {base}", n, placer=holder)
        for s in others:
            led.side_payment(s, holder, m, f"quínola placed in trick {n}: each other player pays {m}", n, placer=holder)
        return
    if nap_rule:
        # A6.6: the napolitana's quínola forced with the 1o, 12o or 11o: he doubles the fondo and
        # pays 2 to the forcer and 1 to each other player (x m only with doubleAppliesTo all).
        k = m if o.double_applies_to == "all" else 1
        led.into_fondo(holder, led.fondo, f"the napolitana's quínola forced by {t.plays[0].card} in trick {n}: "
                                          f"he doubles the fondo, {led.fondo}", n)
        led.side_payment(holder, leader, 2 * k, f"the napolitana's quínola forced by {t.plays[0].card} in trick {n}: "
                                                f"{2 * k} to the player who forced it", n)
        for s in _play_order(leader):
            if s not in (holder, leader):
                led.side_payment(holder, s, k, f"the napolitana's quínola forced in trick {n}: {k} to each other player", n)
        return
    if o.quinola_penalty_trigger == "forced":
        trigger = p.kind == "forced" or (p.kind == "led" and o.gergi)
        what = "forced" if p.kind == "forced" else "led (gergi)"
    else:
        trigger = winner == holder
        what = "took the trick"
    if not trigger:
        return
    led.into_fondo(holder, led.fondo, f"quínola {what} in trick {n}: pays an amount equal to the fondo, {led.fondo}", n)
    if o.quinola_forced_pays_forcer and p.kind == "forced" and leader != holder:
        # [ENC]: the forcer "wins 4 from its holder and 1 from each player" (the two others).
        led.side_payment(holder, leader, 4 * m, f"quínola forced in trick {n}: {4 * m} from its holder to the player who forced it", n,
                         forced=holder)
        for s in _play_order(leader):
            if s not in (holder, leader):
                led.side_payment(s, leader, m, f"quínola forced in trick {n}: {m} from each other player to the player who forced it", n,
                                 forced=holder)


def _play_order(first: int) -> list[int]:
    return [(first + i) % SEATS for i in range(SEATS)]


# ---- the implicit napolitana's refund (R24) ------------------------------------------------------

def _refund_forced(led: _Ledger, tricks: list[PlayedTrick], nap: int, since: int) -> None:
    """R24 ``implicitNapolitanaRefund: refunded``: at his first renounce, in trick ``since``, the
    napolitana gets back what his aces and quínola forced before it cost: each side payment they
    caused (the forced ace's 1 or 2 x m to the leader; under ``quinolaForcedPaysForcer`` the 4/1/1
    to the forcer), returned by the seat that received it to the seat that paid it, and a forced
    quínola's fondo payment, returned to him from the escrow (it is still there: tricks 1-9). What
    a revoker forfeited was never paid and is not returned; a quínola fondo payment made because
    it took the trick (``quinolaPenaltyTrigger: winsTrick``) is not the forced card's and stands.
    These returns belong to the hand, not to a trick (as the revesino's cancellation)."""
    why = f"seat {nap} renounces in trick {since}, the napolitana"
    for s in led.side:
        if s.forced == nap and s.trick < since and not s.returned:
            led.move(s.payee, s.payer, s.amount, f"{why}: returned ({s.what})")
            s.returned = f"at his renounce in trick {since}"
    if led.options.quinola_penalty_trigger != "forced":
        return
    forced = {t.number for t in tricks if t.number < since for p in t.plays
              if p.seat == nap and p.card == QUINOLA and p.kind == "forced"}
    for e in list(led.pending):
        if e.kind == "pay" and e.seat == nap and e.trick in forced:
            led.reverse_escrow(e, why)


# ---- the revesino (A6.4, A6.5) ------------------------------------------------------------------

def _announce(led: _Ledger, announcer: int) -> None:
    """A6.5 step 1: every side payment returned; the other players' quínola fondo movements reversed
    (the announcer's own quínola payment stays in escrow until the revesino is decided)."""
    why = f"revesino announced by seat {announcer}"
    for s in led.side:
        if not s.returned:
            led.move(s.payee, s.payer, s.amount, f"{why}: {s.what} returned")
            s.returned = "at the revesino's announcement"
    for e in list(led.pending):
        if not (e.kind == "pay" and e.seat == announcer):
            led.reverse_escrow(e, why)
    if led.options.renuncio_penalty_refunded:
        for seat, n in led.fines:
            led.move(FONDO, seat, REVOKE_FINE, f"{why}: the renuncio fine of trick {n} returned")
    led.gergi = []


def _own_quinola(options: Options, tricks: tuple[PlayedTrick, ...], announcer: int) -> bool:
    """The announcer played the quínola himself in tricks 1-9: led, followed or forced; under
    ``announcerQuinola: forced`` only forced from him (R19: the seed's "quínola jugada"), or led
    under gergi, which pays a led quínola as forced."""
    kinds = ("forced", "led") if options.gergi else ("forced",)
    return any(p.card == QUINOLA and p.seat == announcer
               and (options.announcer_quinola == "anyPlay" or p.kind in kinds)
               for t in tricks if t.number <= 9 for p in t.plays)


def _revesino_won(led: _Ledger, tricks: tuple[PlayedTrick, ...], d: int, napolitana: int | None) -> None:
    o = led.options
    own = _own_quinola(o, tricks, d)
    for e in list(led.pending):
        led.move(ESCROW, e.seat, e.amount, f"revesino won: his quínola payment of trick {e.trick}, {e.amount}, returned to him")
        led.doubled.discard(e.seat)
        led.pending.remove(e)
    f = led.fondo
    led.gain(FONDO, d, f, f"revesino won: seat {d} takes the fondo, {f}", None, 12)
    others = [s for s in _play_order(d) if s != d]
    if napolitana is not None and napolitana != d and o.napolitana_pays_for_all:
        each = 3 * o.revesino_win_each
        led.gain(napolitana, d, each, f"revesino won: the napolitana pays for all three players, {each}", None, 12)
    else:
        for s in others:
            led.gain(s, d, o.revesino_win_each, f"revesino won: each other player pays {o.revesino_win_each}", None, 12)
    if not own:
        return
    if o.revesino_quinola_bonus == "extraFondo":
        base, rest = divmod(f, 3)
        for i, s in enumerate(others):
            share = base + (1 if i < rest else 0)
            led.gain(s, d, share, f"revesino won with his own quínola: the other players pay him the quínola, "
                                  f"an amount equal to the fondo ({f}) in equal shares", None, 12)
    elif o.revesino_quinola_bonus == "sidePayments":
        for s in others:
            led.gain(s, d, 1, "revesino won with his own quínola: each other player pays 1", None, 12)


def _revesino_cut(led: _Ledger, tricks: tuple[PlayedTrick, ...], d: int, cutter: int, napolitana: int | None) -> None:
    o = led.options
    f = led.fondo
    c = o.revesino_cut_to_cutter
    led.gain(d, cutter, c, f"revesino cut by seat {cutter}: the announcer pays the cutter {c}", None, 12)
    if napolitana is not None and napolitana not in (d, cutter):
        led.gain(napolitana, cutter, c, f"revesino cut by seat {cutter}: the napolitana also pays the cutter {c}", None, 12)
    led.move(d, FONDO, f, f"revesino cut: the announcer doubles the fondo, {f}")
    own = _own_quinola(o, tricks, d)
    escrowed = 0
    for e in list(led.pending):
        what = "his quínola payment" if own else "the quínola payment"
        led.move(ESCROW, FONDO, e.amount, f"revesino cut: {what} of trick {e.trick}, {e.amount}, goes into the fondo")
        escrowed += e.amount
        led.pending.remove(e)
    if own:
        due = f if o.cut_quinola_base == "sameBase" else 2 * f
        rest = max(0, due - escrowed)
        counted = f" ({escrowed} already paid in escrow counts)" if escrowed else ""
        led.move(d, FONDO, rest, f"revesino cut with his own quínola: he pays the quínola, {due}{counted}")


# ---- the napolitana (A6.6) and the hand winner (A6.7) -------------------------------------------

def _nap_failed(options: Options, tricks: list[PlayedTrick], napolitana: int) -> bool:
    counted = (10, 11) if options.napolitana_fail_last_two_only else tuple(range(1, 12))
    return any(t.winner == napolitana and t.number in counted for t in tricks)


def _nap_failure(led: _Ledger, tricks: list[PlayedTrick], nap: int) -> None:
    """Section 0 / A6.6: refunds of his sold cards' side payments, then at most one fondo doubling."""
    o = led.options
    received: dict[int, int] = {}
    returned: dict[int, int] = {}
    when = ""  # when they were returned: all at the revesino's announcement, or all at his renuncio
    for s in led.side:
        if s.placer == nap and s.payee == nap:
            received[s.payer] = received.get(s.payer, 0) + s.amount
            if s.returned:
                returned[s.payer] = returned.get(s.payer, 0) + s.amount
                when = s.returned
    for payer in _play_order(nap):
        r = received.get(payer, 0)
        due = o.napolitana_refund_factor * r - returned.get(payer, 0)
        if due <= 0:
            continue
        reason = (f"failed napolitana: pays back {o.napolitana_refund_factor} x the {r} he was paid for the cards he sold"
                  # (revesinoVoidsNapolitana false: the announcement of a revesino returned some of it
                  # already; renuncioForfeits wholeHand: his revoke in trick 10 or 11 did)
                  + (f", less the {returned[payer]} returned {when}" if returned.get(payer) else ""))
        back = r - returned.get(payer, 0)  # the part that only returns the payer's own money
        if led.forfeits(payer, 12) and due > back:
            led.forfeit(payer, due - max(0, back), reason, None)
            due = max(0, back)
        led.move(nap, payer, due, reason)
    forced_late = any(p.seat == nap and p.card == QUINOLA and p.kind == "forced" and t.number >= 10 for t in tricks for p in t.plays)
    doubled = nap in led.doubled  # a quínola fondo payment he made in play is his one doubling
    take = led.quinola_take if led.quinola_take is not None and led.quinola_take[0] == nap else None
    if forced_late:
        if not doubled:
            led.move(nap, FONDO, led.fondo, f"failed napolitana: his quínola was forced in trick 10 or 11, he doubles the fondo, {led.fondo}")
    elif take is not None:
        # R22: twice the take, which is also his one doubling (R23); under napolitanaQuinolaPayback
        # factor, napolitanaRefundFactor times it: under 1 he returns the take and owes no doubling
        # (Hoyle's failed espagnolette returns what he was paid, and no more).
        amount = take[1]
        times = 2 if o.napolitana_quinola_payback == "double" else o.napolitana_refund_factor
        due = times * amount - (amount if led.quinola_take_reversed else 0)
        less = f", less the {amount} returned to it {led.quinola_take_reversed}" if led.quinola_take_reversed else ""
        what = f"pays twice the fondo it took ({amount}) into the fondo" if times == 2 else \
            f"returns the fondo it took ({amount}) to the fondo, and no doubling"
        led.move(nap, FONDO, due, f"failed napolitana: he sold the quínola and {what}{less}")
    elif not doubled and _nap_led_quinola_last(tricks, nap):
        led.move(nap, FONDO, led.fondo, f"failed napolitana: he won trick 10 and led the quínola in trick 11, he doubles the fondo, {led.fondo}")


def _nap_led_quinola_last(tricks: list[PlayedTrick], nap: int) -> bool:
    last = [t for t in tricks if t.number == 11]
    return bool(last) and last[0].leader == nap and last[0].plays[0].card == QUINOLA


def seat_order(options: Options, dealer: int) -> list[int]:
    """A6.7 / R3: the seats best first: dealer, S1, S2, S3 (``playOrder``) or dealer, S3, S2, S1."""
    if options.tiebreak_order == "playOrder":
        return [(dealer + i) % SEATS for i in range(SEATS)]
    return [(dealer - i) % SEATS for i in range(SEATS)]


def choose_winner(options: Options, dealer: int, points: list[int], tricks: list[int],
                  excluded: tuple[int, ...] = ()) -> tuple[int, str]:
    """Fewest points, then fewest tricks, then the best seat, among the seats not ``excluded``."""
    low = fewest = 1000  # more than any count of points or tricks
    by_points: list[int] = []  # the candidates with the fewest points, best seat first
    for s in seat_order(options, dealer):
        if s in excluded or points[s] > low:
            continue
        if points[s] < low:
            low, by_points = points[s], []
        by_points.append(s)
    if len(by_points) == 1:
        return by_points[0], "fewestPoints"
    by_tricks: list[int] = []  # of those, the ones with the fewest tricks
    for s in by_points:
        if tricks[s] > fewest:
            continue
        if tricks[s] < fewest:
            fewest, by_tricks = tricks[s], []
        by_tricks.append(s)
    if len(by_tricks) == 1:
        return by_tricks[0], "fewestTricks"
    return by_tricks[0], "seat"


def choose_payer(options: Options, dealer: int, points: list[int], tricks: list[int], winner: int) -> int:
    """R2: most points, then more tricks, then the later seat, among the seats but the winner."""
    payer = -1
    for s in seat_order(options, dealer):  # a later seat replaces an equal one
        if s != winner and (payer < 0 or points[s] > points[payer] or (points[s] == points[payer] and tricks[s] >= tricks[payer])):
            payer = s
    return payer


def _tie(points: list[int], tricks: list[int], winner: int, payer: int) -> str:
    """How R2 chose ``payer`` among seats tied on most points ("" when none tied with him)."""
    tied = [s for s in range(SEATS) if s != winner and points[s] == points[payer]]
    if len(tied) == 1:
        return ""
    seats = ", ".join(f"seat {s}" for s in tied[:-1]) + f" and seat {tied[-1]}"
    even = [s for s in tied if tricks[s] == tricks[payer]]
    tie = f"; {seats} tie on {points[payer]} points"
    if len(even) == 1:
        return f"{tie}, seat {payer} took the most tricks"
    if len(even) == len(tied):
        tie += f" and {tricks[payer]} tricks"
    else:
        tie += f", {' and '.join(f'seat {s}' for s in even)} on the most tricks ({tricks[payer]})"
    return f"{tie}, seat {payer} the later in the tie-break order"


def party_value(options: Options, out_of_play: tuple[Card, ...]) -> int:
    """A6.7: the points of the four cards out of play plus ``partyBonus``."""
    points = options.party_bonus
    for c in out_of_play:
        points += _POINTS_BY_KEY[c.key]
    return points


# ---- the money of a hand ------------------------------------------------------------------------

def _check(tricks: tuple[PlayedTrick, ...], announcer: int | None) -> list[PlayedTrick]:
    complete = [t for t in tricks if t.winner is not None]
    if len(complete) < len(tricks) - 1 or (len(complete) < len(tricks) and tricks[-1].winner is not None):
        raise ValueError("only the last trick of a course may be in progress")
    for i, t in enumerate(complete):
        if t.number != i + 1 or len(t.plays) != SEATS:
            raise ValueError(f"trick {i + 1} is not the {i + 1}th complete trick of four plays")
        for p in t.specials:
            if SPECIAL_BY_KEY[p.card.key] and p.kind not in KINDS:
                raise ValueError(f"trick {t.number}: {p.card} needs a kind (led, placed, forced or voluntary)")
    if announcer is not None and len(complete) < 9:
        raise ValueError("a revesino is announced after trick 9")
    return complete


def _settle_escrow(led: _Ledger, announcer: int | None) -> bool:
    """A6.4 / A6.5: at the lead to trick 10 (or the end), the escrow is returned if a revesino
    was announced, else made final. Returns True (it is settled)."""
    if announcer is not None:
        _announce(led, announcer)
    else:
        led.finalize_escrow()
    return True


class Money:
    """The money of a hand so far, as ``money`` returns it (``as_dict``), field by field: the
    engine's answers take the fields they show from here, without a dict in between. The
    optional parts are None when absent: ``napolitana`` and ``revesino`` (their outcomes), the
    hand winner's ``hand_winner``, ``tiebreak``, ``party`` and ``party_payer``, and ``table``
    (once the hand is over); ``forfeited`` is empty when nobody forfeited anything."""

    def __init__(self, payments: list[dict[str, Any]], net: list[int], fondo: int, escrow: int, points: list[int],
                 seat_tricks: list[int], napolitana: dict[str, Any] | None, revesino: dict[str, Any] | None,
                 hand_winner: int | None, tiebreak: str | None, party: int | None, party_payer: int | None,
                 table: dict[str, Any] | None, forfeited: list[dict[str, Any]]) -> None:
        self.payments: Final = payments
        self.net: Final = net
        self.fondo: Final = fondo
        self.escrow: Final = escrow
        self.points: Final = points
        self.seat_tricks: Final = seat_tricks
        self.napolitana: Final = napolitana
        self.revesino: Final = revesino
        self.hand_winner: Final = hand_winner
        self.tiebreak: Final = tiebreak
        self.party: Final = party
        self.party_payer: Final = party_payer
        self.table: Final = table
        self.forfeited: Final = forfeited

    def as_dict(self) -> dict[str, Any]:
        """``money``'s answer: payments, net, fondo, escrow, points, seatTricks, then the parts
        present (napolitana, revesino, handWinner, tiebreak, party, partyPayer, table,
        forfeited), in that order."""
        out: dict[str, Any] = {"payments": self.payments, "net": self.net, "fondo": self.fondo, "escrow": self.escrow,
                               "points": self.points, "seatTricks": self.seat_tricks}
        if self.napolitana is not None:
            out["napolitana"] = self.napolitana
        if self.revesino is not None:
            out["revesino"] = self.revesino
        self.add_outcome(out)
        if self.forfeited:
            out["forfeited"] = self.forfeited
        return out

    def add_outcome(self, out: dict[str, Any]) -> None:
        """The hand's outcome, as far as it is known, into ``out``: handWinner, tiebreak and
        party; partyPayer; the table to carry."""
        if self.hand_winner is not None:
            out["handWinner"] = self.hand_winner
            out["tiebreak"] = self.tiebreak
            out["party"] = self.party
        if self.party_payer is not None:
            out["partyPayer"] = self.party_payer
        if self.table is not None:
            out["table"] = self.table


def money(options: Options, course: Course) -> dict[str, Any]:
    """The money of a hand so far (module docstring). See ``Course`` for the input."""
    return money_of(options, dealer=course.dealer, fondo=course.fondo, tricks=course.tricks, napolitana=course.napolitana,
                    announcer=course.announcer, out_of_play=course.out_of_play, finished=course.finished,
                    napolitana_from=course.napolitana_from).as_dict()


def money_of(options: Options, *, dealer: int, fondo: int, tricks: tuple[PlayedTrick, ...], napolitana: int | None = None,
             announcer: int | None = None, out_of_play: tuple[Card, ...] = (), finished: bool = False,
             napolitana_from: int = 1) -> Money:
    """``money`` of the ``Course`` with these fields, given one by one, as a ``Money`` (the
    engine's answers call this: no ``Course`` to make, a dataclass being slow to make under
    mypyc, and no dict to filter)."""
    complete = _check(tricks, announcer)
    led = _Ledger(options, dealer, fondo)
    _deal(led)
    d = announcer
    announced = d is not None
    nap = napolitana
    voided = announced and options.revesino_voids_napolitana
    nap_active = nap is not None and not voided
    escrow_settled = False
    outcome = "pending"
    cutter: int | None = None
    # R24 implicit: his in-suit plays before his first renounce were anyone's, and so were the
    # payments of a quínola forced from him then (never the napolitana's 2/1/1).
    since = napolitana_from
    refund = nap is not None and since > 1 and options.implicit_napolitana_refund == "refunded"
    for t in complete:
        if t.number == 10 and not escrow_settled:
            escrow_settled = _settle_escrow(led, d)
        if refund and t.number == since:
            assert nap is not None
            _refund_forced(led, complete, nap, since)
        _trick(led, t, nap if nap_active and t.number >= since else None, announced, voided)
        if announced and outcome == "pending" and t.number >= 10:
            assert d is not None and t.winner is not None
            if t.winner != d:
                outcome, cutter = "cut", t.winner
                _revesino_cut(led, tricks, d, t.winner, nap)
            elif t.number == 11:
                outcome = "won"
                _revesino_won(led, tricks, d, nap)
    in_progress = [t for t in tricks if t.winner is None and t.plays]
    if refund and any(t.number == since for t in in_progress):  # the renounce is in the trick in progress
        assert nap is not None
        _refund_forced(led, complete, nap, since)
    if not escrow_settled and ((announced and len(complete) >= 9) or finished
                               or any(t.number >= 10 for t in in_progress)):
        escrow_settled = _settle_escrow(led, d)

    points = [0] * SEATS
    seat_tricks = [0] * SEATS
    for t in complete:
        assert t.winner is not None
        seat_tricks[t.winner] += 1
        points[t.winner] += t.points

    nap_outcome: str | None = None
    nap_json: dict[str, Any] | None = None
    if nap is not None:
        if voided:
            nap_outcome = "void"
        elif _nap_failed(options, complete, nap) or (
                len(complete) == 11 and all(t.winner == nap for t in complete)):
            nap_outcome = "failed"
        elif finished:
            nap_outcome = "success"
        else:
            nap_outcome = "pending"
        nap_json = {"seat": nap, "outcome": nap_outcome}
    rev: dict[str, Any] | None = None
    if announced:
        rev = {"seat": d, "outcome": outcome}
        if cutter is not None:
            rev["cutter"] = cutter

    hand_winner: int | None = None
    tiebreak: str | None = None
    party: int | None = None
    party_payer: int | None = None
    table: dict[str, Any] | None = None
    if finished:
        if nap is not None and nap_outcome == "failed":
            _nap_failure(led, complete, nap)
        named = not announced or options.play_out_after_cut
        if named:
            winner, tiebreak = _hand_winner(options, dealer, nap, announcer, points, seat_tricks, nap_outcome, outcome)
            hand_winner = winner
            party = party_value(options, out_of_play)
            if not announced:
                for seat, n, card in led.gergi:
                    if seat != winner:
                        base = _ace_double(options, card, placed=False) * multiplier(n)
                        led.gain(seat, winner, base, f"{card} led in trick {n} (gergi): pays the hand winner {base}", None, 12)
                party_payer = _pay_party(led, points, seat_tricks, winner, nap if nap_outcome == "failed" else None, party)
        table = {"fondo": led.fondo}

    return Money(led.payments, list(led.net), led.fondo, led.escrow, points, seat_tricks, nap_json, rev,
                 hand_winner, tiebreak, party, party_payer, table, led.forfeited)


def _hand_winner(options: Options, dealer: int, nap: int | None, announcer: int | None, points: list[int], seat_tricks: list[int],
                 nap_outcome: str | None, revesino: str) -> tuple[int, str]:
    if revesino == "won":
        assert announcer is not None
        return announcer, "sweep"
    sweeper = seat_tricks.index(11) if 11 in seat_tricks else None
    if announcer is None and sweeper is not None and sweeper != nap and options.unannounced_sweep == "winsHand":
        return sweeper, "sweep"
    if nap is not None and nap_outcome == "success":
        return nap, "napolitana"
    excluded = (nap,) if nap is not None and nap_outcome == "failed" else ()
    return choose_winner(options, dealer, points, seat_tricks, excluded)


def _pay_party(led: _Ledger, points: list[int], seat_tricks: list[int], winner: int,
               failed_nap: int | None, party: int) -> int | None:
    """A6.7: the hand-winner payout; a failed napolitana pays it alone (R21)."""
    o = led.options
    if o.hand_payout == "none":
        return None
    alone = failed_nap if failed_nap is not None and o.napolitana_pays_party_for_all else None
    if o.hand_payout == "partyFromMost":
        payer = alone if alone is not None else choose_payer(o, led.dealer, points, seat_tricks, winner)
        why = "the failed napolitana pays" if alone is not None else "the player with most points pays" + _tie(points, seat_tricks, winner, payer)
        led.gain(payer, winner, party, f"the party to the hand winner ({why}): {party}", None, 12)
        return payer
    amount = party if o.hand_payout == "partyFromEach" else o.fixed_payout
    what = "the party" if o.hand_payout == "partyFromEach" else "the fixed payout"
    if alone is not None:
        led.gain(alone, winner, 3 * amount, f"{what} to the hand winner: the failed napolitana pays for all three, 3 x {amount}", None, 12)
        return alone
    for s in _play_order(winner):
        if s != winner:
            led.gain(s, winner, amount, f"{what} to the hand winner: each other player pays {amount}", None, 12)
    return None


def trick_payments(options: Options, trick: PlayedTrick, fondo: int, napolitana: int | None,
                   dealer: int | None = None) -> list[dict[str, Any]]:
    """The payments of one complete trick on its own (``trick_ledger``'s payments)."""
    return trick_ledger(options, trick, fondo, napolitana, dealer)[0]


def trick_ledger(options: Options, trick: PlayedTrick, fondo: int, napolitana: int | None,
                 dealer: int | None = None) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The payments of one complete trick on its own (ResolveTrick), and what a revoker of it
    forfeits: aces and the quínola placed or forced, the napolitana's forced quínola, renuncio
    fines; quínola fondo movements are applied at once (no escrow, no revesino). Gergi aces, paid
    to the hand winner, are not in it. The ``dealer`` (an immediate renewal's top-up is paid from
    him on) is, when not given, the seat before the trick's leader, as in the first trick."""
    if trick.winner is None or len(trick.plays) != SEATS:
        raise ValueError("trick_payments needs a complete trick")
    led = _Ledger(options, (trick.leader - 1) % SEATS if dealer is None else dealer, fondo, escrow_enabled=False)
    _trick(led, trick, napolitana, announced=False, voided=False)
    return led.payments, led.forfeited


# ---- the table carried between hands ------------------------------------------------------------

_OTHER_GAMES_FIELDS = ("plate", "plateHolds", "cartulina", "score")


def read_table(table: Any, seats: int) -> int:
    """Read and check a Revesino record's ``table`` (FORMAT.md section 5): ``{"fondo": n}``,
    omitted: 0. Empty fields of other games' tables are accepted (protobuf prints defaults; a
    Tresillo table's plate holding ``none``)."""
    del seats
    if table is None:
        return 0
    if not isinstance(table, dict):
        raise InvalidInput("INVALID_FIELD", "table", "table must be an object such as {\"fondo\": 12}")
    for name, value in table.items():
        if name == "fondo":
            continue
        if name in _OTHER_GAMES_FIELDS:
            if fresh_table_field(name, value):
                continue
            raise InvalidInput("INVALID_TABLE", f"table.{name}", f"table.{name} is not part of a Revesino table (fondo)")
        raise InvalidInput("INVALID_FIELD", f"table.{name}", f"unknown table field {shown(name)}; a Revesino table has fondo")
    raw = table.get("fondo")
    if raw is None:
        return 0
    fondo = json_int(raw)
    if fondo is None:
        raise InvalidInput("INVALID_FIELD", "table.fondo", f"table.fondo must be an integer (tantos), not {shown(raw)}")
    if fondo < 0:
        raise InvalidInput("INVALID_TABLE", "table.fondo", f"table.fondo {fondo} is negative")
    check_tantos(fondo, "table.fondo", f"table.fondo {fondo:,}")
    return fondo


# ---- SettleHand ---------------------------------------------------------------------------------

_SUMMARY_FIELDS = ("tricks", "napolitana", "announcer", "outOfPlay")
_TRICK_FIELDS = ("leader", "cards", "forced", "revoked", "winner")


def _seat(value: Any, where: str) -> int:
    number = json_int(value)
    if number is None:
        raise InvalidInput("INVALID_FIELD", where, f"{where} must be a seat number, not {shown(value)}")
    if not 0 <= number < SEATS:
        raise InvalidInput("SEAT_OUT_OF_RANGE", where, f"{where} {number} is not a seat of this 4-seat table")
    return number


def _card_list(value: Any, where: str) -> tuple[Card, ...]:
    if isinstance(value, list):
        if not all(isinstance(v, str) for v in value):
            raise InvalidInput("INVALID_FIELD", where, f"{where} must be a string of cards such as \"1e 7o 12c\" or a list of card strings")
        value = " ".join(value)
    return DECK_48.parse_cards(value, where)


def qualifies(cards: list[Card] | tuple[Card, ...]) -> bool:
    """A4.1: three aces and the quínola, or all four aces."""
    return qualifies_mask(key_mask(tuple(cards)))


_ACES: Final = key_mask(tuple([c for c in DECK_48.cards if c.rank == 1]))


def qualifies_mask(mask: int) -> bool:
    """``qualifies`` of the cards of a ``key_mask`` (a hand as the engine keeps it)."""
    aces = (mask & _ACES).bit_count()
    return aces == 4 or (aces == 3 and bool(mask >> QUINOLA.key & 1))


def read_course(options: Options, fondo: int, request: dict[str, Any]) -> tuple[Course, list[dict[str, Any]]]:
    """Read and check SettleHand's ``seats``, ``dealer`` and ``revesino`` fields into a finished
    ``Course`` (and the tricks as ``{"leader", "cards", "winner"}``)."""
    seats = json_int(request.get("seats"))
    if seats is None:
        raise InvalidInput("INVALID_FIELD" if "seats" in request else "MISSING_FIELD", "seats", "seats must be 4")
    if seats != SEATS:
        raise InvalidInput("INVALID_SEATS", "seats", f"revesino is played with 4 seats, not {seats}")
    if request.get("dealer") is None:
        raise InvalidInput("MISSING_FIELD", "dealer", "dealer is required")
    dealer = _seat(request.get("dealer"), "dealer")
    r = request.get("revesino")
    if r is None:
        raise InvalidInput("MISSING_FIELD", "revesino",
                           "revesino is required: {\"tricks\": [{\"leader\", \"cards\", \"forced\", \"revoked\"}], \"napolitana\", \"announcer\", \"outOfPlay\"}")
    if not isinstance(r, dict):
        raise InvalidInput("INVALID_FIELD", "revesino", "revesino must be an object")
    for name in r:
        if name not in _SUMMARY_FIELDS:
            raise InvalidInput("INVALID_FIELD", f"revesino.{name}", f"unknown field revesino.{name}; the fields are {', '.join(_SUMMARY_FIELDS)}")
    nap = None if r.get("napolitana") is None else _seat(r["napolitana"], "revesino.napolitana")
    announcer = None if r.get("announcer") is None else _seat(r["announcer"], "revesino.announcer")
    raw = r.get("tricks")
    if raw is None:
        raise InvalidInput("MISSING_FIELD", "revesino.tricks", "revesino.tricks is required: the tricks of the hand in order")
    if not isinstance(raw, list):
        raise InvalidInput("INVALID_FIELD", "revesino.tricks", "revesino.tricks must be a list of {\"leader\", \"cards\"}")
    if len(raw) > 11:
        raise InvalidInput("INVALID_FIELD", "revesino.tricks", f"revesino.tricks has {len(raw)} tricks; a hand has 11")

    seen: dict[Card, str] = {}
    leader = (dealer + 1) % SEATS
    rows: list[tuple[int, tuple[Card, ...], frozenset[Card], int]] = []  # leader, cards, forced, winner
    revoked_at: list[frozenset[Card]] = []  # by trick: the cards named as revokes
    for i, item in enumerate(raw):
        where = f"revesino.tricks[{i}]"
        if not isinstance(item, dict):
            raise InvalidInput("INVALID_FIELD", where, f"{where} must be an object {{\"leader\", \"cards\"}}")
        for name in item:
            if name not in _TRICK_FIELDS:
                raise InvalidInput("INVALID_FIELD", f"{where}.{name}", f"unknown field {where}.{name}; a trick has {', '.join(_TRICK_FIELDS)}")
        if item.get("leader") is not None:
            given = _seat(item["leader"], f"{where}.leader")
            if given != leader:
                who = "the seat after the dealer" if i == 0 else f"the winner of trick {i}"
                raise InvalidInput("INVALID_FIELD", f"{where}.leader", f"{where}.leader is {given}, but {who} leads: seat {leader}")
        if item.get("cards") is None:
            raise InvalidInput("MISSING_FIELD", f"{where}.cards", f"{where}.cards is required: the four cards in play order")
        cards = _card_list(item["cards"], f"{where}.cards")
        if len(cards) != SEATS:
            raise InvalidInput("WRONG_HAND_SIZE", f"{where}.cards", f"{where}.cards has {len(cards)} cards; a trick has 4")
        for c in cards:
            if c in seen:
                also = "" if seen[c] == f"{where}.cards" else f" and in {seen[c]}"
                raise InvalidInput("DUPLICATE_CARD", f"{where}.cards", f"{where}.cards: {c} is played twice: in {where}.cards{also}")
            seen[c] = f"{where}.cards"
        forced = distinct(_card_list(item.get("forced") or [], f"{where}.forced"), f"{where}.forced")
        revoked = distinct(_card_list(item.get("revoked") or [], f"{where}.revoked"), f"{where}.revoked")
        for c in forced:  # (a card the trick does not hold is no forced card of it: refused, not ignored)
            if c not in cards:
                raise InvalidInput("INVALID_FIELD", f"{where}.forced", f"{where}.forced: {c} is not a card of {where}.cards")
        for c in revoked:
            if c not in cards[1:] or c.suit is cards[0].suit:
                raise InvalidInput("INVALID_FIELD", f"{where}.revoked", f"{where}.revoked: {c} is not a card played off the suit led in {where}")
        revoked_at.append(revoked)
        winner = trick_winner(leader, cards)
        if item.get("winner") is not None and _seat(item["winner"], f"{where}.winner") != winner:
            raise InvalidInput("INVALID_FIELD", f"{where}.winner", f"{where}.winner is not seat {winner}, who played the highest card of the suit led")
        rows.append((leader, cards, forced, winner))
        leader = winner

    count = len(rows)
    # how many tricks a finished hand has
    if announcer is not None:
        if count < 10:
            raise InvalidInput("INVALID_FIELD", "revesino.tricks", f"a hand with a revesino announced ends after trick 10 or 11, not {count}")
        if any(w != announcer for _, _, _, w in rows[:9]):
            raise InvalidInput("INVALID_FIELD", "revesino.announcer", f"seat {announcer} did not win tricks 1-9: he cannot announce a revesino")
        if announcer == nap and not options.napolitana_may_announce:
            raise InvalidInput("INVALID_FIELD", "revesino.announcer", "a napolitana may not announce a revesino (napolitanaMayAnnounce is off)")
        cut10 = rows[9][3] != announcer
        expected = 10 if cut10 and not options.play_out_after_cut else 11
    else:
        expected = 11
    if count != expected:
        raise InvalidInput("INVALID_FIELD", "revesino.tricks", f"the hand is over after {expected} tricks, not {count}")

    full = count == 11
    # each seat's plays, trick by trick: his hand before trick i is what he plays from trick i on
    plays_of: list[list[Card]] = [[] for _ in range(SEATS)]
    for ld, cards, _, _ in rows:
        for k, c in enumerate(cards):
            plays_of[(ld + k) % SEATS].append(c)

    out_raw = r.get("outOfPlay")
    unplayed = [c for c in DECK_48.cards if c not in seen]
    if out_raw is not None:
        out_cards = _card_list(out_raw, "revesino.outOfPlay")
        distinct(out_cards, "revesino.outOfPlay")
        if len(out_cards) != 4:
            raise InvalidInput("WRONG_HAND_SIZE", "revesino.outOfPlay", "revesino.outOfPlay must be the 4 distinct cards out of play")
        for c in out_cards:
            if c in seen:
                raise InvalidInput("DUPLICATE_CARD", "revesino.outOfPlay", f"revesino.outOfPlay: {c} is out of play and played in {seen[c]}")
    elif full:
        out_cards = tuple(unplayed)
    else:
        out_cards = ()

    unseen = [c for c in unplayed if c not in out_cards]  # the last card of each hand cut in trick 10
    if nap is not None:
        held = plays_of[nap]
        ok = qualifies(held) if full else any(qualifies(held + [x]) for x in unseen)
        if not ok:
            raise InvalidInput("INVALID_FIELD", "revesino.napolitana",
                               f"seat {nap} did not hold three aces and the quínola, or the four aces: no napolitana")

    # R24 implicit: a seat that qualifies may renounce in tricks 1-9 without a call; its first
    # renounce declares it the napolitana, whose in-suit plays from that trick to the 9th are never
    # forced, as in play (before it, and if it never renounces, it plays as anyone).
    since = 1  # the first trick of the napolitana's privilege
    if options.napolitana_declaration == "implicit":
        if nap is None:
            # (a seat named as revoking in tricks 1-9 is not the napolitana: his renounces would be no revokes)
            revokers = {(ld + cards.index(c)) % SEATS for (ld, cards, _, _), named in zip(rows[:9], revoked_at, strict=False) for c in named}
            candidates = {s for s in range(SEATS) if s not in revokers
                          and (qualifies(plays_of[s]) or (not full and any(qualifies(plays_of[s] + [x]) for x in unseen)))}
        else:
            candidates = {nap}
        first = next(((seat, i + 1) for i, (ld, cards, _, _) in enumerate(rows[:9]) for k, c in enumerate(cards[1:], 1)
                      if (seat := (ld + k) % SEATS) in candidates and c.suit is not cards[0].suit
                      # (his first renounce; in a hand cut in trick 10 his unseen last card may be of the suit led)
                      and (any(x.suit is cards[0].suit for x in plays_of[seat][i + 1:]) or (nap is not None and not full))), None)
        if first is not None:
            nap, since = first
        elif nap is not None:
            raise InvalidInput("INVALID_FIELD", "revesino.napolitana",
                               f"seat {nap} never renounced in tricks 1-9: under napolitanaDeclaration implicit a seat is "
                               "the napolitana from its first renounce")
    privileged = {nap} if nap is not None else set()

    tricks: list[PlayedTrick] = []
    for i, (ld, cards, forced, winner) in enumerate(rows):
        n = i + 1
        where = f"revesino.tricks[{i}]"
        suit = cards[0].suit
        plays: list[Play] = []
        for k, c in enumerate(cards):
            seat = (ld + k) % SEATS
            later = plays_of[seat][n:]  # the cards he plays after this trick
            known = full  # without trick 11, each hand has one card nobody knows
            holds_suit = any(x.suit is suit for x in later)
            renounce = seat in privileged and since <= n <= 9
            revoke = False
            if c in revoked_at[i] and (renounce or not holds_suit):
                # A napolitana's renounce is no revoke, whatever he held; otherwise the evidence is a
                # card nobody saw played: his last, in a hand cut in trick 10.
                if full or renounce or not any(x.suit is suit for x in unseen):
                    why = (f"seat {seat} is the napolitana, whose renounces in tricks 1-9 are no revokes" if renounce
                           else f"seat {seat} held no {suit.word} after it" if full
                           else f"no card left unplayed is of {suit.word}")
                    raise InvalidInput("INVALID_FIELD", f"{where}.revoked", f"{c} was not a revoke in trick {n}: {why}")
                holds_suit = True
            if k > 0 and c.suit is not suit and holds_suit and not renounce:
                if not options.allow_revokes:
                    raise InvalidInput("INVALID_FIELD", f"{where}.cards",
                                       f"seat {seat} plays {c} in trick {n} without following suit while holding {suit.word} "
                                       f"(a renuncio; allowRevokes is off)")
                revoke = True
            kind = ""
            if is_special(c):
                if k == 0:
                    kind = "led"
                elif c.suit is not suit:
                    kind = "placed"
                elif renounce or holds_suit:
                    kind = "voluntary"
                elif known or c in forced:
                    kind = "forced"
                else:
                    kind = "voluntary"
            if c in forced and kind != "forced":
                if k == 0 or c.suit is not suit or renounce or not is_special(c):
                    why = "only an ace or the quínola played in the suit led by another player (not a napolitana's in tricks 1-9) can be forced"
                else:
                    why = f"seat {seat} still held {suit.word} after it"
                raise InvalidInput("INVALID_FIELD", f"{where}.forced", f"{c} was not forced in trick {n}: {why}")
            plays.append(Play(seat, c, kind, revoke))
        tricks.append(PlayedTrick(n, ld, tuple(plays), winner))
    course = Course(dealer=dealer, fondo=fondo, tricks=tuple(tricks), napolitana=nap, announcer=announcer,
                    out_of_play=out_cards, finished=True, napolitana_from=since)
    shown = [{"leader": ld, "cards": [str(c) for c in cards], "winner": w} for ld, cards, _, w in rows]
    return course, shown


def settle_summary(options: Options, fondo: int, request: dict[str, Any]) -> dict[str, Any]:
    """SettleHand for apps that track play themselves. ``request["revesino"]`` is
    ``{"tricks": [{"leader"?, "cards": "c1 c2 c3 c4", "forced"?: "1c", "revoked"?: "6e"}], "napolitana"?: seat,
    "announcer"?: seat, "outOfPlay"?: "c1 c2 c3 c4"}``: the cards in play order (the leader of
    trick 1 is the seat after the dealer, then each trick's winner, computed here); ``forced`` the
    aces or quínola that were their player's only card of the suit led, and ``revoked`` the cards
    played off the suit led by a seat that held it, each needed only where the later tricks do not
    show it (a hand cut in trick 10); ``outOfPlay`` may be omitted when all eleven tricks are
    given (the four cards not played)."""
    course, shown = read_course(options, fondo, request)
    result = money(options, course)
    result["tricks"] = shown
    if course.out_of_play:
        result["outOfPlay"] = cards_str(course.out_of_play)
    return result
