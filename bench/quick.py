"""A quick look at the engine's speed while working on it: random hands/s and the time to
validate one record, per game, in this process (seconds, not minutes; ``make bench`` is the
measurement of record). ``python -m bench.quick [game ...] [--seconds S]``."""

from __future__ import annotations

import argparse
import random
import time

from bench.engine_driver import primary_seats, random_hand, random_record
from engine import api


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("games", nargs="*", default=list(api.GAMES))
    parser.add_argument("--seconds", type=float, default=2.0)
    args = parser.parse_args()
    for name in args.games:
        game = api.GAMES[name]
        rng = random.Random(1)
        seats = primary_seats(game)
        n, start = 0, time.perf_counter()
        while time.perf_counter() - start < args.seconds:
            random_hand(game, seats, rng)
            n += 1
        hands = n / (time.perf_counter() - start)
        records = [random_record(name, seed=s) for s in range(20)]
        k, start = 0, time.perf_counter()
        while time.perf_counter() - start < args.seconds / 2:
            for record in records:
                api.validate(record)
            k += len(records)
        validate = (time.perf_counter() - start) / k
        print(f"{name:9} {hands:8.0f} hands/s   validate {validate * 1e6:7.0f} us/record")


if __name__ == "__main__":
    main()
