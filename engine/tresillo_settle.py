"""Tresillo's money: rank tables, the outcome classes and the accounting of a finished hand.

Spec ``rules/tresillo.md`` sections 1.3 (rank orders), 7 (outcome classes, early end), 8 (the
plate, puestas primeras and reservadas, the cartulina, condiciones, codillo, surrender and
defence) and the decisions of section 0 and 9; our own decisions are in ``docs/rules/tresillo.md``.

Everything here is pure: ``settle(options, table, hand)`` takes the table carried from earlier
hands and the summary of one finished hand, and returns the payments, each seat's ``net`` and the
table to carry into the next hand. ``settle_summary`` is the SettleHand API for apps that track
play themselves.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from engine.cards import DECK_40, Card, Suit, distinct, suit_index, suit_word
from engine.errors import InvalidInput, shown
from engine.record import check_tantos, fields_repr, json_int, read_dealer, replaced
from engine.tresillo_options import Options, solera_unsurrenderable

# ---- rank tables (spec 1.3), highest first ------------------------------------------------------

def _cards(text: str) -> tuple[Card, ...]:
    return tuple(Card.parse(t) for t in text.split())


ESPADA = Card.parse("1e")
BASTO = Card.parse("1b")

TRUMP_ORDER: dict[Suit, tuple[Card, ...]] = {
    Suit.OROS: _cards("1e 7o 1b 1o 12o 11o 10o 2o 3o 4o 5o 6o"),
    Suit.COPAS: _cards("1e 7c 1b 1c 12c 11c 10c 2c 3c 4c 5c 6c"),
    Suit.ESPADAS: _cards("1e 2e 1b 12e 11e 10e 7e 6e 5e 4e 3e"),
    Suit.BASTOS: _cards("1e 2b 1b 12b 11b 10b 7b 6b 5b 4b 3b"),
}
"""The trumps of each trump suit, highest first (spec 1.3): espada, mala, basto, then the suit."""

PLAIN_ORDER: dict[Suit, tuple[Card, ...]] = {
    Suit.OROS: _cards("12o 11o 10o 1o 2o 3o 4o 5o 6o 7o"),
    Suit.COPAS: _cards("12c 11c 10c 1c 2c 3c 4c 5c 6c 7c"),
    Suit.ESPADAS: _cards("12e 11e 10e 7e 6e 5e 4e 3e 2e"),
    Suit.BASTOS: _cards("12b 11b 10b 7b 6b 5b 4b 3b 2b"),
}
"""Each suit when it is not trump, highest first (spec 1.3); the black aces are never in it."""

MATADORES: dict[Suit, tuple[Card, Card, Card]] = {
    suit: (order[0], order[1], order[2]) for suit, order in TRUMP_ORDER.items()
}
"""The three matadores (estuches) under each trump suit: espada, mala, basto."""


def trump_order(trump: Suit) -> tuple[Card, ...]:
    """The trumps under ``trump``, highest first (spec 1.3)."""
    return TRUMP_ORDER[trump]


def mala(trump: Suit) -> Card:
    """The second trump: the 7 of a long (red) trump suit, the 2 of a short (black) one."""
    return TRUMP_ORDER[trump][1]


# ---- outcome classes (spec 7) -------------------------------------------------------------------

def classify(j: int, a: int, b: int) -> tuple[str, int | None]:
    """7.1: the Jugador's ``j`` tricks against the contra's ``a`` and ``b``. Returns the class and,
    for a codillo, which contra player gives it (0: the one with ``a``, 1: the one with ``b``)."""
    best = max(a, b)
    if j > best:
        return "sacada", None
    if j == best:
        return "puesta", None
    if a == b:
        return "puestaReal", None
    return "codillo", 0 if a > b else 1


def classify_defended(d: int, r: int, p: int) -> str:
    """7.4: a defended entrada, with the defender's ``d``, the rendido's ``r`` and the mano
    pobre's ``p`` tricks. The edge ``r == p > d`` is D-CODILLO-R (A16)."""
    best = max(r, p)
    if d > best:
        return "dWin"
    if d == best:
        return "dPuesta"
    if r >= p:
        return "dCodilloR"
    return "dCodilloP"


def decided(j: int, a: int, b: int, remaining: int, defended: bool = False) -> bool:
    """7.3: every split of the ``remaining`` tricks gives the same class (and the same codillo
    giver). With ``defended`` the counts are (defender, rendido, mano pobre) and 7.4 applies.
    The counts of a hand (nine tricks in all) are looked up in ``_DECIDED``."""
    known = _DECIDED.get((j, a, b, remaining, defended))
    return _decided(j, a, b, remaining, defended) if known is None else known


def _decided(j: int, a: int, b: int, remaining: int, defended: bool) -> bool:
    results: set[object] = set()
    for x in range(remaining + 1):
        for y in range(remaining - x + 1):
            z = remaining - x - y
            results.add(classify_defended(j + x, a + y, b + z) if defended else classify(j + x, a + y, b + z))
            if len(results) > 1:
                return False
    return True


_DECIDED: Final = {(j, a, b, 9 - j - a - b, defended): _decided(j, a, b, 9 - j - a - b, defended)
                   for j in range(10) for a in range(10 - j) for b in range(10 - j - a) for defended in (False, True)}
"""``decided`` for every split of a hand's nine tricks into (j, a, b, remaining)."""


def decided_in_hand(j: int, a: int, b: int, defended: bool) -> bool:
    """``decided(j, a, b, 9 - j - a - b, defended)`` for the counts of a hand in play (at most
    nine tricks), looked up by position in a flat table (no key tuple to make and hash, at
    every trick)."""
    return _DECIDED_IN_HAND[((j * 10 + a) * 10 + b) * 2 + (1 if defended else 0)]


_DECIDED_IN_HAND: Final = tuple([j + a + b <= 9 and _DECIDED[j, a, b, 9 - j - a - b, defended]
                                 for j in range(10) for a in range(10) for b in range(10) for defended in (False, True)])


# ---- estuches (spec 8.2, A22, A23) --------------------------------------------------------------

def estuches(cards: tuple[Card, ...] | list[Card] | frozenset[Card], trump: Suit, bola_made: bool,
             options: Options) -> tuple[int, int]:
    """The (estuches, contraestuches) of the Jugador's nine cards when trick play starts.

    All three matadores held: 3 plus the unbroken run of trumps after the basto. None held
    (contraestuche): 3 plus the unbroken run of missing trumps after the basto (``symmetric``), or
    always 3 (``flat``). Either is capped at ``estucheCap`` unless the bola is made. Any other
    holding (the estuche menor included) counts nothing."""
    held = 0  # the keys held, as the bits of an int (``Card.key`` is below 64)
    for c in cards:
        held |= 1 << c.key
    order = _TRUMP_ORDER_KEYS_BY_SUIT[suit_index(trump)]
    cap = len(order) if bola_made else options.estuche_cap
    matadores = (held >> order[0] & 1) + (held >> order[1] & 1) + (held >> order[2] & 1)
    if matadores == 3:
        k = 3
        while k < len(order) and held >> order[k] & 1:
            k += 1
        return min(k, cap), 0
    if matadores == 0:
        if options.contraestuche_mode == "flat":
            return 0, 3
        k = 3
        while k < len(order) and not held >> order[k] & 1:
            k += 1
        return 0, min(k, cap)
    return 0, 0


_TRUMP_ORDER_KEYS: Final = {suit: tuple(card.key for card in order) for suit, order in TRUMP_ORDER.items()}
"""``TRUMP_ORDER`` by ``Card.key``."""
_TRUMP_ORDER_KEYS_BY_SUIT: Final = tuple([_TRUMP_ORDER_KEYS[suit] for suit in Suit])
"""The same by ``suit_index``."""


def round_up5(x: int) -> int:
    """``roundUp5``: every payment is rounded up to a multiple of 5 (seed section 15)."""
    return (x + 4) // 5 * 5  # 5 * ceil(x / 5) in integers (math.ceil of a float is a generic call)


# ---- the table carried between hands -------------------------------------------------------------

HOLDS = ("none", "primera", "reservada")
_OTHER_GAMES_FIELDS = ("score", "fondo")


@dataclass(frozen=True)
class Table:
    """The plate (its tantos and whether it holds a puesta, ``none`` | ``primera`` |
    ``reservada``) and the cartulina: reserved puestas not yet paid, ``(seat, amount)``, oldest
    first. A joint entry of puestas gemelas (``gemelasOnCartulina: joint``) is ``(seat, amount,
    partner)``: the two seats owe half each and pay it into the plate together."""

    plate: int = 0
    holds: str = "none"
    cartulina: tuple[tuple[int, ...], ...] = ()

    def to_json(self) -> dict[str, Any]:
        return table_json(self.plate, self.holds, self.cartulina)


def table_json(plate: int, holds: str, cartulina: tuple[tuple[int, ...], ...] | list[tuple[int, ...]]) -> dict[str, Any]:
    """``Table(plate, holds, cartulina).to_json()``, without making the ``Table``."""
    entries: list[dict[str, int]] = []
    for entry in cartulina:
        item = {"seat": entry[0], "amount": entry[1]}
        if len(entry) > 2:
            item["partner"] = entry[2]
        entries.append(item)
    return {"plate": plate, "plateHolds": holds, "cartulina": entries}


FRESH_TABLE: Final = Table()
"""A fresh table (plate 0 holding no puesta, an empty cartulina): what an omitted table reads as."""


def read_table(table: Any, seats: int) -> Table:
    """Read and check a record's ``table`` (FORMAT.md section 5). Omitted fields are a fresh
    table's: plate 0 holding no puesta, an empty cartulina."""
    if table is None or table == {}:
        return FRESH_TABLE  # (a Table is frozen: one is shared)
    if not isinstance(table, dict):
        raise InvalidInput("INVALID_FIELD", "table", "table must be an object such as {\"plate\": 30, \"plateHolds\": \"primera\", \"cartulina\": []}")
    for name, value in table.items():
        if name in ("plate", "plateHolds", "cartulina"):
            continue
        if name in _OTHER_GAMES_FIELDS:
            if value in (None, [], 0):  # protobuf JSON prints empty repeated fields
                continue
            raise InvalidInput("INVALID_TABLE", f"table.{name}",
                               f"table.{name} is not part of a Tresillo table (plate, plateHolds, cartulina)")
        raise InvalidInput("INVALID_FIELD", f"table.{name}", f"unknown table field {shown(name)}; a Tresillo table has plate, plateHolds and cartulina")
    raw_plate = table.get("plate")
    plate = 0 if raw_plate is None else json_int(raw_plate)
    if plate is None:
        raise InvalidInput("INVALID_FIELD", "table.plate", f"table.plate must be an integer (tantos), not {shown(raw_plate)}")
    if plate < 0:
        raise InvalidInput("INVALID_TABLE", "table.plate", f"table.plate {plate} is negative")
    if plate % 5:
        raise InvalidInput("INVALID_TABLE", "table.plate", f"table.plate {plate} is not a multiple of 5: every payment is in fives")
    check_tantos(plate, "table.plate", f"table.plate {plate:,}")
    holds = table.get("plateHolds")
    if holds is None or holds == "":
        holds = "none"
    if not isinstance(holds, str) or holds not in HOLDS:
        raise InvalidInput("INVALID_FIELD", "table.plateHolds", f"table.plateHolds must be none, primera or reservada, not {shown(holds)}")
    if holds != "none" and plate == 0:
        raise InvalidInput("INVALID_TABLE", "table.plateHolds", f"table.plateHolds: the plate holds a puesta {holds} but table.plate is 0")
    raw = table.get("cartulina")
    if raw is None:
        raw = []
    if not isinstance(raw, list):
        raise InvalidInput("INVALID_FIELD", "table.cartulina", "table.cartulina must be a list of {\"seat\", \"amount\"}")
    entries: list[tuple[int, ...]] = []
    carried = plate  # the tantos of the plate and of the cartulina so far
    for i, item in enumerate(raw):
        where = f"table.cartulina[{i}]"
        if not isinstance(item, dict):
            raise InvalidInput("INVALID_FIELD", where, f"{where} must be an object {{\"seat\", \"amount\"}}")
        for name in item:
            if name not in ("seat", "amount", "partner"):
                raise InvalidInput("INVALID_FIELD", f"{where}.{name}", f"unknown cartulina field {shown(name)}; an entry has seat and amount")
        for name in ("seat", "amount"):
            if item.get(name) is None:
                raise InvalidInput("MISSING_FIELD", f"{where}.{name}", f"{where}.{name} is required")
        seat = json_int(item.get("seat"))
        if seat is None:
            raise InvalidInput("INVALID_FIELD", f"{where}.seat", f"{where}.seat must be an integer, not {shown(item.get('seat'))}")
        if not 0 <= seat < seats:
            raise InvalidInput("INVALID_TABLE", f"{where}.seat", f"{where}.seat {seat} is not a seat of this {seats}-seat table")
        amount = json_int(item.get("amount"))
        if amount is None:
            raise InvalidInput("INVALID_FIELD", f"{where}.amount", f"{where}.amount must be an integer, not {shown(item.get('amount'))}")
        if amount <= 0 or amount % 5:
            raise InvalidInput("INVALID_TABLE", f"{where}.amount", f"{where}.amount {amount} must be a positive multiple of 5")
        entry: tuple[int, ...] = (seat, amount)
        if item.get("partner") is not None:
            partner = json_int(item["partner"])
            if partner is None:
                raise InvalidInput("INVALID_FIELD", f"{where}.partner", f"{where}.partner must be an integer, not {shown(item['partner'])}")
            if not 0 <= partner < seats or partner == seat:
                raise InvalidInput("INVALID_TABLE", f"{where}.partner", f"{where}.partner {partner} must be another seat of this {seats}-seat table")
            if amount % 10:
                raise InvalidInput("INVALID_TABLE", f"{where}.amount", f"{where}.amount {amount}: a joint entry is two equal puestas, a multiple of 10")
            entry = (seat, amount, partner)
        entries.append(entry)
        carried += amount
        check_tantos(carried, where, f"the plate and the cartulina to {where} together ({carried:,})")
    if entries and holds == "none":
        raise InvalidInput("INVALID_TABLE", "table.cartulina",
                           "the cartulina holds reserved puestas but the plate holds no puesta: a puesta is reserved only while one is in the plate")
    return Table(plate, holds, tuple(entries))


# ---- the summary of a finished hand -------------------------------------------------------------

_HAND_FIELDS: Final = ("seats", "dealer", "annulled", "jugador", "lance", "trump", "solera", "jugador_cards",
                       "trick_winners", "bola", "surrender", "defender")


class Hand:
    """What the accounting needs of a finished hand: made by ``engine.tresillo`` from its final
    state, or by SettleHand from the request (``read_hand``). Never changed once made.

    ``jugador`` is the declarer (the rendido when surrendered); ``jugador_cards`` his nine cards
    when trick play started (for estuches); ``trick_winners`` the seat that won each trick played,
    in order (fewer than nine when the hand ended early; in a defended hand every trick, those won
    before the surrender included). (A plain class: mypyc compiles its constructor, which a
    dataclass's is not.)"""

    def __init__(self, *, seats: int, dealer: int, annulled: bool = False, jugador: int | None = None,
                 lance: str | None = None, trump: Suit | None = None, solera: bool = False,
                 jugador_cards: tuple[Card, ...] = (), trick_winners: tuple[int, ...] = (), bola: str = "none",
                 surrender: str = "none", defender: int | None = None) -> None:
        self.seats: Final = seats
        self.dealer: Final = dealer
        self.annulled: Final = annulled
        self.jugador: Final = jugador
        self.lance: Final = lance
        self.trump: Final = trump
        self.solera: Final = solera
        self.jugador_cards: Final = jugador_cards
        self.trick_winners: Final = trick_winners
        self.bola: Final = bola
        self.surrender: Final = surrender
        self.defender: Final = defender

    def replace(self, **changes: Any) -> Hand:
        """A copy with the fields named changed."""
        return replaced(self, _HAND_FIELDS, changes)

    def __repr__(self) -> str:
        return fields_repr(self, _HAND_FIELDS)

    @property
    def active(self) -> tuple[int, ...]:
        """The three seats that hold cards, in turn order from the mano."""
        return _active(self.seats, self.dealer)

    @property
    def contra(self) -> tuple[int, ...]:
        """The Jugador's two opponents, in turn order starting after him."""
        assert self.jugador is not None
        return _contra(self.seats, self.dealer, self.jugador)

    def tricks_of(self, seat: int) -> int:
        count = 0  # (a loop on native ints: ``tuple.count`` is a generic method call)
        for winner in self.trick_winners:
            if winner == seat:
                count += 1
        return count


def _active(seats: int, dealer: int) -> tuple[int, ...]:
    return ((dealer + 1) % seats, (dealer + 2) % seats, (dealer + 3) % seats)


def _contra(seats: int, dealer: int, jugador: int) -> tuple[int, ...]:
    """The two active seats other than ``jugador``, in turn order starting after him."""
    first, second, third = _active(seats, dealer)
    if jugador == first:
        return second, third
    if jugador == second:
        return third, first
    if jugador == third:
        return first, second
    raise ValueError(f"seat {jugador} is not an active seat")


# ---- settlement ---------------------------------------------------------------------------------

def _who(party: int | None) -> str:
    if party is None:
        return "plate"
    return _SEAT_NAMES[party] if 0 <= party < len(_SEAT_NAMES) else f"seat {party}"


_SEAT_NAMES: Final = tuple(f"seat {seat}" for seat in range(4))


class _Ledger:
    """The plate and cartulina as they change during one settlement, and every transfer made.
    (A plain class rather than a dataclass: mypyc compiles its constructor too.)"""

    def __init__(self, seats: int, plate: int, holds: str, cartulina: list[tuple[int, ...]]) -> None:
        self.seats = seats
        self.plate = plate
        self.holds = holds
        self.cartulina = cartulina
        self.payments: list[dict[str, Any]] = []
        self.net = [0] * seats

    def pay(self, payer: int | None, payee: int | None, amount: int, reason: str) -> None:
        """One transfer; ``None`` is the plate. Zero amounts are not transfers."""
        assert amount >= 0 and amount % 5 == 0, amount
        if amount == 0:
            return
        if payer is None:
            self.plate -= amount
        else:
            self.net[payer] -= amount
        if payee is None:
            self.plate += amount
        else:
            self.net[payee] += amount
        self.payments.append({"payer": _who(payer), "payee": _who(payee), "amount": amount, "reason": reason})

    def puesta_amount(self, favor: bool) -> tuple[int, str]:
        """8.6: the puesta's amount P and how it was reckoned."""
        if self.holds == "reservada":
            return self.plate, f"{self.plate} = the plate (it holds a reserved puesta)"
        extra = 40 if favor else 20
        return self.plate + extra, f"{self.plate + extra} = plate {self.plate} + {extra}"

    def puestas(self, owners: list[int], amount: int, how: str, joint: bool) -> None:
        """Each of ``owners`` makes a puesta of ``amount``: into the plate when it holds no puesta
        (a puesta primera; gemelas go in together), else onto the cartulina (not a transfer)."""
        if self.holds == "none":
            for owner in owners:
                self.pay(owner, None, amount, f"puesta to the plate: {how}")
            self.holds = "primera"
        elif joint and len(owners) == 2:
            self.cartulina.append((owners[0], 2 * amount, owners[1]))
        else:
            for owner in owners:
                self.cartulina.append((owner, amount))

    def take_plate(self, seat: int, why: str) -> None:
        """8.3: the winner takes the plate; the largest reserved puesta (ties: the oldest) is then
        paid into it by its owner(s), else the plate is empty."""
        self.pay(None, seat, self.plate, f"{why} takes the plate: {self.plate}")
        assert self.plate == 0
        if not self.cartulina:
            self.holds = "none"
            return
        cartulina = self.cartulina
        best = 0  # the largest amount; of equal ones the oldest
        for i in range(1, len(cartulina)):
            if cartulina[i][1] > cartulina[best][1]:
                best = i
        entry = cartulina.pop(best)
        if len(entry) > 2:
            half = entry[1] // 2
            for owner in (entry[0], entry[2]):
                self.pay(owner, None, half, f"reserved puesta from the cartulina into the plate: {half} (half of the gemelas' {entry[1]})")
        else:
            self.pay(entry[0], None, entry[1], f"reserved puesta from the cartulina into the plate: {entry[1]}")
        self.holds = "reservada"


def _favor_amount(tantos: int, favor: bool, options: Options, rounding: str | None = None) -> int:
    """8.5/A21: a simple amount rounded up to fives, doubled in the favour suit (``rounding``, when
    given, in place of ``favorRounding``)."""
    if tantos == 0:
        return 0
    if not favor:
        return round_up5(tantos)
    if (rounding or options.favor_rounding) == "roundedDouble":
        return round_up5(2 * tantos)
    return 2 * round_up5(tantos)


def _reckoning(tantos: int, favor: bool, options: Options, rounding: str | None = None) -> str:
    """How ``_favor_amount`` got its figure, for a payment's reason: ``7, rounded 10, x2 a favor = 20``."""
    each = _favor_amount(tantos, favor, options, rounding)
    if not favor:
        return f"{tantos}" if each == tantos else f"{tantos}, rounded up {each}"
    if (rounding or options.favor_rounding) == "roundedDouble":
        return f"{tantos} x2 a favor = {2 * tantos}" + ("" if each == 2 * tantos else f", rounded up {each}")
    rounded = round_up5(tantos)
    return f"{tantos}" + ("" if rounded == tantos else f", rounded up {rounded}") + f", x2 a favor = {each}"


def is_favor(options: Options, hand: Hand) -> bool:
    """The hand is played a favor: its trump is the favour suit (a vuelta only with ``vueltaFavor``)."""
    if hand.trump is None or options.favor_suit == "none" or suit_word(hand.trump) != options.favor_suit:
        return False
    return hand.lance != "vuelta" or options.vuelta_favor


def _solo_like(options: Options, hand: Hand) -> bool:
    """A solo, or a vuelta solera scored as one (A9)."""
    return hand.lance == "solo" or (hand.lance == "vuelta" and hand.solera and options.vuelta_solera_allowed)


def _lance_item(options: Options, hand: Hand) -> dict[str, Any] | None:
    if hand.lance == "solo" or _solo_like(options, hand):
        return {"item": "solo", "tantos": 20}
    if hand.lance == "vuelta":
        return {"item": "vuelta", "tantos": 2}
    return None


def _primeras_contra(options: Options, hand: Hand, contra: tuple[int, ...]) -> bool:
    """7.2 / A20: in a puesta, the contra won the first tricks and (``narrow``) the Jugador all the rest."""
    w = hand.trick_winners
    if len(w) < 5 or not all(s in contra for s in w[:5]):
        return False
    if options.primeras_contra_rule == "general":
        return True
    k = 5
    while k < len(w) and w[k] in contra:
        k += 1
    return all(s == hand.jugador for s in w[k:])


def _describe(items: list[dict[str, Any]]) -> str:
    return " + ".join(f"{i['item']} {i['tantos']}" for i in items)


def settle(options: Options, table: Table, hand: Hand) -> dict[str, Any]:
    """The money of one finished hand (spec section 8): payments, each seat's net (the dealer's 5,
    the enchilada and any reserved puesta paid into the plate included), and the table after."""
    led = _Ledger(hand.seats, table.plate, table.holds, list(table.cartulina))
    dealer = hand.dealer
    led.pay(dealer, None, 5, "the dealer's 5 into the plate")
    out: dict[str, Any] = {"outcome": "annulled", "favor": False, "primeras": False, "primerasContra": False,
                           "estuches": 0, "contraestuches": 0, "condiciones": []}
    if hand.annulled:
        return _result(led, out)
    if options.enchilada and led.holds == "none":
        led.pay(dealer, None, options.enchilada, f"the enchilada into the plate: {options.enchilada} (a puesta primera)")
        led.holds = "primera"
    assert hand.jugador is not None and hand.lance is not None and hand.trump is not None
    jug = hand.jugador
    others = [s for s in range(hand.seats) if s != jug]
    favor = is_favor(options, hand)
    out["favor"] = favor
    if hand.surrender != "none":
        _settle_surrender(options, hand, led, out, favor)
        return _result(led, out)

    contra = hand.contra
    j, a, b = hand.tricks_of(jug), hand.tricks_of(contra[0]), hand.tricks_of(contra[1])
    cls, giver = classify(j, a, b)
    primeras = len(hand.trick_winners) >= 5 and all(w == jug for w in hand.trick_winners[:5])
    bola_made = hand.bola == "made"
    est, contra_est = estuches(hand.jugador_cards, hand.trump, bola_made, options)
    out["estuches"], out["contraestuches"] = est, contra_est
    items: list[dict[str, Any]] = []
    lance_item = _lance_item(options, hand)
    if lance_item:
        items.append(lance_item)
    if est:
        items.append({"item": "estuches", "tantos": est})
    if contra_est:
        items.append({"item": "contraestuches", "tantos": contra_est})

    if cls == "sacada" or hand.bola != "none":
        # 8.5: a win (a failed bola is a win with primeras, then the bola is paid, A18)
        count_primeras = primeras and (not bola_made or options.primeras_with_bola)
        if count_primeras:
            items.append({"item": "primeras", "tantos": 1})
        if bola_made:
            items.append({"item": "bola", "tantos": 100})
        if led.holds != "reservada":
            items.append({"item": "jugar", "tantos": 5})
        base = sum(i["tantos"] for i in items)
        each = _favor_amount(base, favor, options)
        reason = f"condiciones of the {_lance_name(options, hand)} won: {_describe(items)} = {_reckoning(base, favor, options)}"
        for o in others:
            led.pay(o, jug, each, reason)
        led.take_plate(jug, "the Jugador")
        if hand.bola == "failed":
            out["outcome"] = "bolaFailed"
            if options.bola_failure == "payBola":
                bola = _favor_amount(100, favor, options)
                reason = f"failed bola: {_reckoning(100, favor, options)} to each other player"
                for o in others:
                    led.pay(jug, o, bola, reason)
        else:
            out["outcome"] = "bola" if bola_made else ("primeras" if primeras else "sacada")
        out["primeras"], out["condiciones"] = primeras, items
        return _result(led, out)

    # 8.6: a loss by puesta, puesta real or codillo
    primeras_contra = cls in ("puesta", "puestaReal") and _primeras_contra(options, hand, contra)
    if primeras_contra:
        items.append({"item": "primeras", "tantos": 1})
    out["outcome"], out["primerasContra"] = cls, primeras_contra
    solo_codillo = cls == "codillo" and _solo_like(options, hand) and (
        options.solo_codillo_no_puesta == "always"
        or (options.solo_codillo_no_puesta == "reservedOnly" and led.holds == "reservada"))
    pays_cond = not solo_codillo or options.solo_codillo_pays_cond
    if pays_cond:
        base = sum(i["tantos"] for i in items)
        each = _favor_amount(base, favor, options)
        reason = f"condiciones of the {_lance_name(options, hand)} lost: {_describe(items)} = {_reckoning(base, favor, options)}"
        for o in others:
            led.pay(jug, o, each, reason)
        out["condiciones"] = items
    amount, how = led.puesta_amount(favor)
    if not solo_codillo:
        led.puestas([jug], amount, how, joint=False)
    if cls == "codillo":
        assert giver is not None
        to = contra[giver]
        out["codilloTo"] = to
        no_puesta = _no_puesta_note(options, hand) if solo_codillo else ""
        led.pay(jug, to, amount, f"codillo to the player with most tricks: {how}{no_puesta}")
    return _result(led, out)


def _lance_name(options: Options, hand: Hand) -> str:
    """The lance as a payment's reason names it: a one-card vuelta is a vuelta solera only while
    ``vueltaSoleraAllowed`` is on (A9; off, it is a plain vuelta everywhere)."""
    if hand.lance == "vuelta" and hand.solera and options.vuelta_solera_allowed:
        return "vuelta solera"
    return hand.lance or ""


def _no_puesta_note(options: Options, hand: Hand) -> str:
    """A24: why a solo (or a vuelta solera) lost by codillo makes no puesta, for the codillo's
    reason: in the reserved-puesta state only (``reservedOnly``) or always; and whether it paid its
    condiciones (``soloCodilloPaysCond``), which the seed's "pays only the codillo" denies."""
    what = f"a {_lance_name(options, hand)} lost by codillo"
    if options.solo_codillo_no_puesta == "reservedOnly":
        what += " while the plate holds a reserved puesta"
    if options.solo_codillo_pays_cond:
        always = "soloCodilloNoPuesta always; " if options.solo_codillo_no_puesta == "always" else ""
        return f"; {what} makes no puesta ({always}it still pays its condiciones)"
    always = "soloCodilloNoPuesta always, " if options.solo_codillo_no_puesta == "always" else ""
    return f"; {what} pays only the codillo ({always}soloCodilloPaysCond false)"


def _settle_surrender(options: Options, hand: Hand, led: _Ledger, out: dict[str, Any], favor: bool) -> None:
    """8.7: a vuelta rendida, an entrada rendida accepted, or an entrada rendida and defended."""
    assert hand.jugador is not None
    rendido = hand.jugador
    others = [s for s in range(hand.seats) if s != rendido]
    amount, how = led.puesta_amount(favor)
    if hand.surrender == "accepted":
        out["outcome"] = "rendida"
        if hand.lance == "vuelta":
            solo = hand.solera and options.vuelta_solera_allowed and options.solera_surrender == "asSolo"
            item: dict[str, Any] = {"item": "solo", "tantos": 20} if solo else {"item": "vuelta", "tantos": 2}
            # A37: the seed gives the vuelta rendida's 2 already rounded ("que redondeados son 5");
            # ``surrenderedVueltaRounding: doubleOfRounded`` doubles that 5 a favor whatever favorRounding.
            rounding = "doubleOfRounded" if not solo and options.surrendered_vuelta_rounding == "doubleOfRounded" else None
            each = _favor_amount(item["tantos"], favor, options, rounding)
            reason = (f"condiciones of the {_lance_name(options, hand)} surrendered: "
                      f"{item['item']} {item['tantos']} = {_reckoning(item['tantos'], favor, options, rounding)}")
            for o in others:
                led.pay(rendido, o, each, reason)
            out["condiciones"] = [item]
        led.puestas([rendido], amount, how, joint=False)
        return
    # defended (an entrada): no condiciones in any case
    assert hand.defender is not None
    defender = hand.defender
    pobre = next(s for s in hand.active if s not in (rendido, defender))
    d, r, p = hand.tricks_of(defender), hand.tricks_of(rendido), hand.tricks_of(pobre)
    cls = classify_defended(d, r, p)
    out["outcome"] = cls
    joint = options.gemelas_on_cartulina == "joint"
    if cls == "dWin":
        led.pay(rendido, defender, amount, f"the rendido's puesta to the defender who won: {how}")
        if options.defender_takes_plate:
            led.take_plate(defender, "the defender")
    elif cls == "dPuesta":
        led.puestas([rendido, defender], amount, f"{how} (puestas gemelas)", joint=joint)
    elif cls == "dCodilloR":
        led.puestas([defender], amount, f"{how} (the defender takes over the rendido's puesta)", joint=False)
    else:
        if options.defender_codillo_also_puesta:
            led.puestas([rendido, defender], amount, how, joint=joint)
        else:
            led.puestas([rendido], amount, how, joint=False)
        out["codilloTo"] = pobre
        led.pay(defender, pobre, amount, f"codillo from the defender to the mano pobre: {how}")


def _result(led: _Ledger, out: dict[str, Any]) -> dict[str, Any]:
    return {"net": list(led.net), "payments": led.payments, "table": table_json(led.plate, led.holds, led.cartulina), **out}


# ---- SettleHand ---------------------------------------------------------------------------------

_LANCES = ("entrada", "vuelta", "solo")
_BOLA = ("none", "made", "failed")
_SURRENDER = ("none", "accepted", "defended")


def _get(obj: dict[str, Any], name: str, kind: type, default: Any = None, required: bool = False) -> Any:
    path = f"tresillo.{name}"
    value = obj.get(name)
    if value is None:
        if required:
            raise InvalidInput("MISSING_FIELD", path, f"{path} is required")
        return default
    if kind is int:
        number = json_int(value)
        if number is None:
            raise InvalidInput("INVALID_FIELD", path, f"{path} must be an integer, not {shown(value)}")
        return number
    if not isinstance(value, kind):
        names = {bool: "true or false", str: "a string", list: "a list"}
        raise InvalidInput("INVALID_FIELD", path, f"{path} must be {names.get(kind, kind.__name__)}, not {shown(value)}")
    return value


def _choice(obj: dict[str, Any], name: str, choices: tuple[str, ...], default: str | None = None) -> str:
    value = _get(obj, name, str, default, required=default is None)
    if value not in choices:
        raise InvalidInput("INVALID_FIELD", f"tresillo.{name}", f"tresillo.{name} must be {', '.join(choices[:-1])} or {choices[-1]}, not {shown(value)}")
    return str(value)


def read_hand(options: Options, request: dict[str, Any]) -> Hand:
    """Read and check SettleHand's ``seats``, ``dealer`` and ``tresillo`` fields."""
    seats = json_int(request.get("seats"))
    if seats is None:
        raise InvalidInput("INVALID_FIELD" if "seats" in request else "MISSING_FIELD", "seats", "seats must be 3 or 4")
    if seats not in (3, 4):
        raise InvalidInput("INVALID_SEATS", "seats", f"tresillo is played with 3 or 4 seats, not {seats}")
    dealer = read_dealer(request, seats)
    t = request.get("tresillo")
    if t is None:
        raise InvalidInput("MISSING_FIELD", "tresillo",
                           "tresillo is required: {\"jugador\", \"lance\", \"trump\", \"jugadorHand\", \"tricks\", ...} or {\"annulled\": true}")
    if not isinstance(t, dict):
        raise InvalidInput("INVALID_FIELD", "tresillo", "tresillo must be an object")
    known = ("annulled", "jugador", "lance", "trump", "solera", "jugadorHand", "tricks", "bola", "surrender", "defender")
    for name in t:
        if name not in known:
            raise InvalidInput("INVALID_FIELD", f"tresillo.{name}", f"unknown field tresillo.{name}; the fields are {', '.join(known)}")
    if _get(t, "annulled", bool, False):
        for name in known[1:]:  # (an annulled hand was never played: nothing of it is settled)
            value = t.get(name)  # (empty: absent, false, "", "none" or []; a seat 0 is a seat)
            if not (value is None or value is False or (isinstance(value, str) and value in ("", "none")) or value == []):
                raise InvalidInput("INVALID_FIELD", f"tresillo.{name}",
                                   f"an annulled hand (everybody passed) has no {name}: give annulled alone, or the hand without it")
        return Hand(seats=seats, dealer=dealer, annulled=True)
    active = tuple((dealer + 1 + i) % seats for i in range(3))

    def seat(where: str, allowed: tuple[int, ...], what: str, value: Any) -> int:
        number = json_int(value)
        if number is None:
            raise InvalidInput("INVALID_FIELD", where, f"{where} must be a seat number, not {shown(value)}")
        if not 0 <= number < seats:
            raise InvalidInput("SEAT_OUT_OF_RANGE", where, f"{where} {number} is not a seat of this {seats}-seat table")
        if number not in allowed:
            raise InvalidInput("INVALID_FIELD", where, f"{where} {number} is not {what}")
        return number

    jugador = seat("tresillo.jugador", active, "an active seat (the dealer of a 4-seat table does not play)",
                   _get(t, "jugador", int, required=True))
    lance = _choice(t, "lance", _LANCES)
    trump_word = _choice(t, "trump", tuple(s.word for s in Suit))
    trump = Suit.from_word(trump_word)
    solera = _get(t, "solera", bool, False)
    if solera and lance != "vuelta":
        raise InvalidInput("INVALID_FIELD", "tresillo.solera", f"only a vuelta can be a vuelta solera, not a {lance}")
    bola = _choice(t, "bola", _BOLA, "none")
    surrender = _choice(t, "surrender", _SURRENDER, "none")
    contra = tuple(s for s in active if s != jugador)

    raw_tricks = _get(t, "tricks", list, [])
    if len(raw_tricks) > 9:
        raise InvalidInput("INVALID_FIELD", "tresillo.tricks", f"tresillo.tricks has {len(raw_tricks)} tricks; a hand has at most 9")
    winners = tuple(seat(f"tresillo.tricks[{i}]", active, "an active seat: only the three players take tricks", w)
                    for i, w in enumerate(raw_tricks))

    cards: tuple[Card, ...] = ()
    if t.get("jugadorHand") is not None or surrender == "none":
        text = _get(t, "jugadorHand", str, required=True)
        cards = DECK_40.parse_cards(text, "tresillo.jugadorHand")
        distinct(cards, "tresillo.jugadorHand")
        if len(cards) != 9:
            raise InvalidInput("WRONG_HAND_SIZE", "tresillo.jugadorHand",
                               f"tresillo.jugadorHand has {len(cards)} cards; the Jugador holds 9 when trick play starts")

    defender: int | None = None
    if surrender != "none":
        if bola != "none":
            raise InvalidInput("INVALID_FIELD", "tresillo.bola", "a surrendered hand has no bola")
        if lance == "solo":
            raise InvalidInput("INVALID_FIELD", "tresillo.surrender", "a solo cannot be surrendered (the Jugador must play it out)")
        if lance == "vuelta" and solera_unsurrenderable(options, solera):
            raise InvalidInput("INVALID_FIELD", "tresillo.surrender", "a vuelta solera cannot be surrendered under soleraSurrender: forbidden")
        if surrender == "defended":
            if lance == "vuelta":
                raise InvalidInput("INVALID_FIELD", "tresillo.surrender", "a vuelta rendida cannot be defended; the hand ends at once")
            defender = seat("tresillo.defender", contra, f"an opponent of the Jugador ({' or '.join(map(str, contra))})",
                            _get(t, "defender", int, required=True))
            pobre = next(s for s in contra if s != defender)
            if not decided(sum(w == defender for w in winners), sum(w == jugador for w in winners),
                           sum(w == pobre for w in winners), 9 - len(winners), defended=True):
                raise InvalidInput("INVALID_FIELD", "tresillo.tricks", "tresillo.tricks: the defended hand is not over: its result still depends on the tricks to play")
        else:
            if len(winners) > 3:
                raise InvalidInput("INVALID_FIELD", "tresillo.tricks",
                                   f"tresillo.tricks: a surrender comes before the Jugador's card to the 4th trick, so at most 3 tricks, not {len(winners)}")
    if t.get("defender") is not None and surrender != "defended":
        raise InvalidInput("INVALID_FIELD", "tresillo.defender", "a defender is named only when the surrender is defended")

    if surrender == "none":
        first_five = len(winners) >= 5 and all(w == jugador for w in winners[:5])
        if bola == "made" and (len(winners) != 9 or any(w != jugador for w in winners)):
            raise InvalidInput("INVALID_FIELD", "tresillo.bola", "bola made means the Jugador took all nine tricks")
        if bola == "failed":
            if not first_five or winners[-1] == jugador or any(w != jugador for w in winners[:-1]):
                raise InvalidInput("INVALID_FIELD", "tresillo.bola",
                                   "a failed bola: the Jugador won tricks 1-5 and every trick until the first he lost, which ends the hand")
        if bola == "none":
            if first_five and len(winners) > 5:
                raise InvalidInput("INVALID_FIELD", "tresillo.tricks",
                                   "tresillo.tricks: the Jugador won tricks 1-5: he stops there (planto) unless he goes for the bola")
            j, a, b = (sum(w == s for w in winners) for s in (jugador, *contra))
            if not first_five and not decided(j, a, b, 9 - len(winners)):
                raise InvalidInput("INVALID_FIELD", "tresillo.tricks", "tresillo.tricks: the hand is not over: its result still depends on the tricks to play")
    return Hand(seats=seats, dealer=dealer, jugador=jugador, lance=lance, trump=trump, solera=solera, jugador_cards=cards,
                trick_winners=winners, bola=bola, surrender=surrender, defender=defender)


def settle_summary(options: Options, table: Table, request: dict[str, Any]) -> dict[str, Any]:
    """SettleHand for apps that track play themselves. ``request["tresillo"]`` is ``{"annulled",
    "jugador", "lance", "trump", "solera", "jugadorHand", "tricks" (the winner of each trick),
    "bola", "surrender", "defender"}``."""
    return settle(options, table, read_hand(options, request))
