"""Naipes' rules engine: pure Python, no I/O, no transport. See ``engine.api``.

The modules are plain Python, and the build also compiles them with mypyc (``setup.py``; the
sources stay the reference and run unchanged without it). In a checkout the compiled modules are
used only while they are at least as new as their sources: after a source changes, or with
``NAIPES_PURE=1`` in the environment, every engine module is imported from its ``.py`` file
(``make build`` compiles again). ``COMPILED`` says which is in use.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

_HERE = Path(__file__).resolve().parent


def use_compiled(package: str, directory: Path) -> bool:
    """Whether ``package`` (its modules in ``directory``) runs its compiled modules. If not, and
    compiled ones sit beside the sources, every module of the package is imported from its
    ``.py`` file from now on. The service's compiled codec is chosen the same way."""
    if not any(_compiled(source) for source in _sources(directory)):
        return False
    if os.environ.get("NAIPES_PURE") == "1":
        sys.meta_path.insert(0, _SourceFirst(package, directory))
        return False
    # In a checkout (sources edited in place) a compiled module may be older than its source; an
    # installed wheel is built as one piece (and its files' times are those of the unpacking).
    in_checkout = (directory.parent / "setup.py").exists()
    stale = _stale(directory) if in_checkout else []
    if stale:
        warnings.warn(f"{package}: {', '.join(stale)} changed since it was compiled; running the Python sources "
                      "(make build compiles them again)", stacklevel=2)
        sys.meta_path.insert(0, _SourceFirst(package, directory))
        return False
    return True


def _sources(directory: Path) -> list[Path]:
    """The modules' sources: Python files, and Cython files (compiled only: no Python to run)."""
    return [*directory.glob("*.py"), *directory.glob("*.pyx")]


def _compiled(source: Path) -> Path | None:
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        built = source.with_name(source.stem + suffix)
        if built.exists():
            return built
    return None


def _stale(directory: Path) -> list[str]:
    """The modules whose source is newer than their compiled form."""
    return sorted(source.name for source in _sources(directory)
                  if (built := _compiled(source)) is not None and source.stat().st_mtime > built.stat().st_mtime)


class _SourceFirst(importlib.abc.MetaPathFinder):
    """Import ``<package>.<module>`` from its ``.py`` file even where a compiled one sits beside it;
    a module with only a Cython source is not importable then (its importer has a fallback)."""

    def __init__(self, package: str, directory: Path):
        self.package, self.directory = package, directory

    def find_spec(self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        package, _, module = fullname.partition(".")
        if package != self.package or not module or "." in module:
            return None
        source = self.directory / f"{module}.py"
        if source.exists():
            return importlib.util.spec_from_file_location(fullname, source)
        if (self.directory / f"{module}.pyx").exists():
            raise ModuleNotFoundError(f"{fullname} is compiled only, and {self.package} runs its sources", name=fullname)
        return None


COMPILED = use_compiled(__name__, _HERE)
