"""How many random playouts the playout tests play: ``NAIPES_SOAK=N`` plays N times as many
hands, from other seeds than the everyday run's (a long soak of the invariants, for instance
``NAIPES_SOAK=50 .venv/bin/pytest tests -k random_playouts``). Unset, the tests play their
usual hands from their usual seeds."""

from __future__ import annotations

import os

SOAK = max(1, int(os.environ.get("NAIPES_SOAK", "1")))


def seed(name: str) -> str:
    """A random generator's seed: ``name`` itself in the everyday run, another per soak size."""
    return name if SOAK == 1 else f"soak{SOAK}-{name}"
