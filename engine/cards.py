"""Spanish cards in the notation of the hand-record format (``docs/format.md`` section 1).

A card is written ``<rank><suit>``: ``1e`` (as de espadas), ``10o`` (sota de oros), ``12c``
(rey de copas). ``Card.parse`` reads that notation and ``str(card)`` writes it back.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Callable, Collection, Mapping
from functools import lru_cache
from typing import Final, TypeVar

from engine.errors import InvalidInput, shown


class Suit(enum.Enum):
    """The four Spanish suits, in the canonical order used for sorting and dealing."""

    OROS = "o"
    COPAS = "c"
    ESPADAS = "e"
    BASTOS = "b"

    @property
    def word(self) -> str:
        """The suit spelled out, as in calls (``entrada oros``) and API fields."""
        return suit_word(self)

    @classmethod
    def from_word(cls, word: str) -> Suit:
        suit = SUIT_BY_WORD.get(word)
        if suit is None:
            raise ValueError(f"unknown suit {shown(word)}: expected oros, copas, espadas or bastos")
        return suit


SUITS: Final = tuple(Suit)
"""The suits in canonical order: a suit's index (``suit_index``) is its place here, and a card's
``key >> 4``."""
SUIT_WORDS: Final = tuple([suit.name.lower() for suit in SUITS])
"""The suits spelled out, by suit index."""
SUIT_BY_WORD: Final = dict(zip(SUIT_WORDS, SUITS, strict=True))


def suit_index(suit: Suit) -> int:
    """A suit's index (oros 0 .. bastos 3), found by identity. The engine's tables by suit are
    read through it on hot paths: ``Suit`` is an enum, which mypyc does not compile, so a dict
    keyed by a suit calls the enum's ``__hash__`` (Python code) and ``suit.word`` is a Python
    property."""
    for i in range(4):
        if SUITS[i] is suit:
            return i
    raise ValueError(f"not a suit: {suit!r}")


def suit_word(suit: Suit) -> str:
    """``suit.word``, by ``suit_index``."""
    return SUIT_WORDS[suit_index(suit)]


RANK_NAMES = {
    1: "as", 2: "dos", 3: "tres", 4: "cuatro", 5: "cinco", 6: "seis", 7: "siete",
    8: "ocho", 9: "nueve", 10: "sota", 11: "caballo", 12: "rey",
}

_CARD_RE = re.compile(r"^(1[0-2]|[1-9])([ocebOCEB])$")


class Card:
    """One card: ``rank`` 1..12 and ``suit``. Written ``10o``, ``1e`` (see ``parse``).

    There is exactly one object per card of the 48-card pack, made when this module is loaded:
    ``Card.of(10, Suit.OROS)`` and ``Card.parse("10o")`` return it. Cards therefore compare by
    identity (the fastest comparison there is; hands are searched and filtered all the time) and
    hash by ``key``, so that sets of cards iterate in the same order on every run. A card's
    fields never change.
    """

    rank: Final[int]
    suit: Final[Suit]
    code: Final[str]  # the record notation, "10o"
    key: Final[int]  # suit order * 16 + rank: sorts oros, copas, espadas, bastos, ranks ascending

    def __init__(self, rank: int, suit: Suit) -> None:
        if _PACK_MADE:
            raise TypeError(f"cards are not made but looked up: Card.of({rank!r}, {suit!r}) or Card.parse")
        self.rank = rank
        self.suit = suit
        self.code = f"{rank}{suit.value}"
        self.key = suit_index(suit) * 16 + rank

    @staticmethod
    def of(rank: int, suit: Suit) -> Card:
        """The card of that rank and suit (``ValueError`` if there is none)."""
        card = _PACK.get((rank, suit))
        if card is None:
            raise ValueError(f"there is no card of rank {rank!r} and suit {suit!r}")
        return card

    def __hash__(self) -> int:
        return self.key

    def __reduce__(self) -> tuple[Callable[[int, Suit], Card], tuple[int, Suit]]:
        return Card.of, (self.rank, self.suit)  # unpickles to the one object of that card

    def __copy__(self) -> Card:
        return self

    def __deepcopy__(self, memo: object) -> Card:
        return self

    @staticmethod
    def parse(text: str) -> Card:
        """Read one card in record notation; raise ``ValueError`` if it is not one."""
        card = _BY_CODE.get(text)
        return card if card is not None else _parse_card(text)

    def __str__(self) -> str:
        return self.code

    def __repr__(self) -> str:
        return f"Card.parse({self.code!r})"

    @property
    def name(self) -> str:
        """The card's Spanish name: ``as de espadas``."""
        return f"{RANK_NAMES[self.rank]} de {self.suit.word}"


_PACK_MADE = False
_PACK = {(rank, suit): Card(rank, suit) for suit in Suit for rank in range(1, 13)}
_PACK_MADE = True
_BY_CODE = {card.code: card for card in _PACK.values()}  # the canonical spellings, read at once

KEYS: Final = 64  # every ``Card.key`` is below this
T = TypeVar("T")


def by_key(values: Mapping[int, T], missing: T) -> tuple[T, ...]:
    """A table of ``values`` by ``Card.key`` as a tuple indexed by the key (``missing`` where no
    card of theirs has it): an index is the cheapest lookup in the hot paths."""
    return tuple([values.get(key, missing) for key in range(KEYS)])


@lru_cache(maxsize=256)  # other spellings (" 1E"): bounded, as they come from requests
def _parse_card(text: str) -> Card:
    match = _CARD_RE.match(text.strip())
    if not match:
        raise ValueError(f"{shown(text)} is not a card (expected rank 1-12 and suit o, c, e or b, e.g. 10o)")
    return Card.of(int(match.group(1)), Suit(match.group(2).lower()))


def looks_like_card(token: str) -> bool:
    """True when ``token`` has the shape of a card (``7o``), whatever the deck."""
    return bool(_CARD_RE.match(token))


class Deck:
    """A Spanish pack: the 40-card deck (no 8 or 9) or the full 48-card deck."""

    def __init__(self, ranks: tuple[int, ...]):
        self.ranks = ranks
        self.cards: tuple[Card, ...] = tuple(Card.of(r, s) for s in Suit for r in ranks)
        self._set = frozenset(self.cards)
        self._by_code = {card.code: card for card in self.cards}
        self._by_key: tuple[Card | None, ...] = by_key({card.key: card for card in self.cards}, None)

    def __len__(self) -> int:
        return len(self.cards)

    def __contains__(self, card: object) -> bool:
        return card in self._set

    def parse_card(self, text: str) -> Card:
        """Read a card and check that it belongs to this deck (``ValueError`` otherwise)."""
        card = self._by_code.get(text)
        if card is not None:
            return card
        card = Card.parse(text)
        if card not in self._set:
            raise ValueError(f"{card} is not in the {len(self)}-card deck")
        return card

    def parse_cards(self, text: object, field: str) -> tuple[Card, ...]:
        """Read a space-separated list of cards of this deck; errors name ``field``. ``text`` is
        whatever the request held (typed ``object``: a ``str`` parameter would make the compiled
        module raise a bare ``TypeError`` for a number or a list, before the check below)."""
        if not isinstance(text, str):
            raise InvalidInput("INVALID_FIELD", field, f"{field} must be a string of cards such as \"1e 7o 12c\"")
        canonical = self._canonical(text)
        if canonical is not None:
            return canonical
        tokens = text.split()  # another spelling ("1E", tabs), or not a card of this deck: one by one
        found = []
        for token in tokens:
            try:
                found.append(self.parse_card(token))
            except ValueError as exc:
                raise InvalidInput("UNKNOWN_CARD", field, f"{field}: {exc}") from None
        return tuple(found)

    def _canonical(self, text: str) -> tuple[Card, ...] | None:
        """The cards of ``text`` written canonically (``"1e 10o"``: ranks 1-12, suits o c e b,
        spaces between), read by character codes: no token made, hashed or looked up by name
        (twelve cards: 0.59 -> 0.30 us). None for anything else, which ``parse_cards`` reads
        token by token and explains."""
        by_key = self._by_key
        found: list[Card] = []
        i, n = 0, len(text)
        while i < n:
            c = ord(text[i])
            if c == 32:  # " "
                i += 1
                continue
            if not 49 <= c <= 57:  # "1".."9"
                return None
            rank = c - 48
            i += 1
            if rank == 1 and i < n and 48 <= ord(text[i]) <= 50:  # "10".."12"
                rank = 10 + ord(text[i]) - 48
                i += 1
            if i == n:
                return None
            letter = ord(text[i]) - 98  # "b"
            suit = _SUIT_BY_LETTER[letter] if 0 <= letter < len(_SUIT_BY_LETTER) else -1
            i += 1
            if suit < 0 or (i < n and ord(text[i]) != 32):
                return None
            card = by_key[suit * 16 + rank]
            if card is None:  # not of this deck
                return None
            found.append(card)
        return tuple(found)


_SUIT_BY_LETTER: Final = tuple([SUITS.index(Suit(chr(98 + i))) if chr(98 + i) in "ocbe" else -1 for i in range(14)])
"""A suit letter's suit index (``suit_index``), by its code point less ``ord("b")``; -1 for no suit."""

DECK_40 = Deck((1, 2, 3, 4, 5, 6, 7, 10, 11, 12))
DECK_48 = Deck((1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12))


def cards_str(cards: tuple[Card, ...] | list[Card]) -> str:
    """Cards as one canonical string: ``"1e 7o 12c"``."""
    return " ".join(str(c) for c in cards)


def sorted_cards(cards: Collection[Card]) -> list[Card]:
    """Distinct cards in canonical order: suits oros, copas, espadas, bastos, ranks ascending (a
    card's ``key``); ``in_order`` as a list."""
    return list(in_order(tuple(cards)))


def in_order(cards: tuple[Card, ...]) -> tuple[Card, ...]:
    """Distinct cards (a hand) in canonical order, through their ``key_mask``: about half the
    cost of an insertion sort on the keys, and a quarter of ``sorted`` with a key function.
    ``ValueError`` if a card is given twice."""
    out = cards_of_mask(key_mask(cards))
    if len(out) != len(cards):
        raise ValueError(f"a card given twice: {cards_str(sorted(cards, key=lambda c: c.key))}")
    return out


def distinct(cards: tuple[Card, ...], where: str) -> frozenset[Card]:
    """``cards`` as a set; a card named twice is ``DUPLICATE_CARD`` naming ``where``, not read once."""
    named = frozenset(cards)
    if len(named) != len(cards):
        twice = next(c for i, c in enumerate(cards) if c in cards[:i])
        raise InvalidInput("DUPLICATE_CARD", where, f"{where}: {twice} is named twice")
    return named


def key_mask(cards: tuple[Card, ...]) -> int:
    """Cards as a set of bits by ``Card.key`` (a key is below 64)."""
    mask = 0
    for card in cards:
        mask |= 1 << card.key
    return mask


def cards_of_mask(mask: int) -> tuple[Card, ...]:
    """The cards whose keys are the bits of ``mask``, lowest key first: canonical order."""
    out: list[Card] = []
    while mask:
        low = mask & -mask
        found = _CARD_BY_KEY[low.bit_length() - 1]
        assert found is not None
        out.append(found)
        mask ^= low
    return tuple(out)


SUIT_MASKS: Final[tuple[int, ...]] = tuple([key_mask(tuple([card for card in _PACK.values() if card.suit is suit])) for suit in SUITS])
"""By suit index, the ``key_mask`` of the suit's twelve cards (a card's key is the suit index
times 16 plus the rank): ``mask & SUIT_MASKS[card.key >> 4]`` is the cards of ``mask`` of that
card's suit. (Ranks 1-12 only, not the suit's sixteen bits: every mask then stays below 2**62,
which mypyc computes unboxed; the sixteen bits of bastos reached 2**64.)"""


_CARD_BY_KEY: Final = by_key({card.key: card for card in _PACK.values()}, None)
"""Every card at its key (``None`` where no card has that key)."""
