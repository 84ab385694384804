"""The benchmark suite (``make bench``, ``make bench-smoke``): see bench/run.py."""
