"""Naipes' rules engine: pure Python, no I/O, no transport. See ``engine.api``."""
