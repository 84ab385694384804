"""Deterministic, verifiable shuffles from a seed.

The algorithm is part of the API and stays stable (``docs/deal.md`` states it for anyone who
wants to recompute a deal in another language):

1. The pack starts in canonical order: suits oros, copas, espadas, bastos; within a suit ranks
   ascending (1..7, then 8 and 9 in the 48-card deck, then 10, 11, 12).
2. A byte stream is the concatenation of ``SHA-256(seed_utf8 || counter)`` for counter = 0, 1,
   2, ... written as 8 bytes big-endian.
3. Fisher-Yates from the end: for ``i`` from ``n-1`` down to 1, read 4 bytes big-endian as
   ``x``; if ``x >= 2**32 - (2**32 mod (i+1))`` read again (no modulo bias); swap positions
   ``i`` and ``x mod (i+1)``.
4. The shuffled pack is read top first (position 0 is the top card).

The commitment published before the hand is ``SHA-256(seed_utf8)`` in lowercase hex.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from typing import TypeVar

T = TypeVar("T")

ALGORITHM = "naipes-shuffle-v1: sha256(seed||counter64be) stream, Fisher-Yates with rejection sampling"


def commitment(seed: str) -> str:
    return hashlib.sha256(seed.encode("utf-8")).hexdigest()


def _words(seed: str) -> Iterator[int]:
    base = seed.encode("utf-8")
    counter = 0
    while True:
        block = hashlib.sha256(base + counter.to_bytes(8, "big")).digest()
        for k in range(0, 32, 4):
            yield int.from_bytes(block[k:k + 4], "big")
        counter += 1


def shuffle(items: Sequence[T], seed: str) -> list[T]:
    """``items`` shuffled by ``seed`` (steps 1-4)."""
    return fisher_yates(items, _words(seed))


def fisher_yates(items: Sequence[T], words: Iterator[int]) -> list[T]:
    """Step 3 over a stream of 32-bit words. (A function of its own so that the rejection can be
    checked with chosen words: a seed whose stream has a rejected word is one in ten or
    fifteen million, by the size of the pack.)"""
    pack = list(items)
    for i in range(len(pack) - 1, 0, -1):
        bound = i + 1
        limit = 2**32 - (2**32 % bound)
        x = next(words)
        while x >= limit:
            x = next(words)
        j = x % bound
        pack[i], pack[j] = pack[j], pack[i]
    return pack
