"""Build hook: generate the protobuf/gRPC code from protos/ before packaging.

Everything else is declared in pyproject.toml. The generated package ``naipes.v1`` lives in
``service/gen/`` (never committed) and is installed as the top-level package ``naipes``, so that
``from naipes.v1 import naipes_pb2`` works wherever the project is installed, editable or not.
Generation needs grpcio-tools, googleapis-common-protos and mypy-protobuf (the gRPC stub's
types), the build requirements.

The engine's modules are also compiled with mypyc (part of mypy) when it and a C compiler are
present and ``NAIPES_PURE`` is not ``1``: the same Python sources, two to five times as fast. Without
them the engine runs as plain Python. With Cython too, the codec's encoder of answers
(``service/_wire.pyx``, which has no Python source) is compiled; without it protobuf writes them.
``engine/__init__.py`` picks the compiled modules only while they are newer than their sources.
"""

import importlib.util
import os
import shutil
import sysconfig
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent


def generate() -> None:
    spec = importlib.util.spec_from_file_location("protogen", HERE / "tools" / "protogen.py")
    assert spec is not None and spec.loader is not None
    protogen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(protogen)
    protogen.generate()


class BuildPyWithProtos(build_py):
    """Regenerate on every build, so a wheel never carries code older than its .proto."""

    def run(self) -> None:
        generate()
        super().run()


# The package directory must exist before setuptools reads the metadata (egg_info checks it).
if not (HERE / "service" / "gen" / "naipes" / "v1" / "naipes_pb2.py").exists():
    generate()

def compiled_engine() -> list:
    if os.environ.get("NAIPES_PURE") == "1":
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:
        print("setup.py: mypyc is not installed: the engine stays plain Python")
        return []
    compiler = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(compiler) is None:
        print(f"setup.py: no C compiler ({compiler}): the engine stays plain Python")
        return []
    modules = sorted(f"engine/{path.name}" for path in (HERE / "engine").glob("*.py") if path.name != "__init__.py")
    # The library the compiled modules share goes inside the package (engine/native__mypyc.*.so).
    # The service's codec (JSON <-> messages, on every request) is compiled on its own.
    return (mypycify(modules, opt_level="3", debug_level="0", group_name="engine.native")
            + mypycify(["service/codec.py"], opt_level="3", debug_level="0")
            + wire_encoder())


def wire_encoder() -> list:
    """service/_wire.pyx, the codec's encoder of answers to protobuf's wire format, by Cython
    (without it the codec has protobuf build and write each message)."""
    try:
        from Cython.Build import cythonize
    except ImportError:
        print("setup.py: Cython is not installed: protobuf writes the answers")
        return []
    return cythonize(["service/_wire.pyx"], quiet=True, compiler_directives={"language_level": 3})


setup(cmdclass={"build_py": BuildPyWithProtos}, ext_modules=compiled_engine())
