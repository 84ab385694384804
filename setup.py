"""Build hook: generate the protobuf/gRPC code from protos/ before packaging.

Everything else is declared in pyproject.toml. The generated package ``naipes.v1`` lives in
``service/gen/`` (never committed) and is installed as the top-level package ``naipes``, so that
``from naipes.v1 import naipes_pb2`` works wherever the project is installed, editable or not.
Generation needs grpcio-tools and googleapis-common-protos, the build requirements.
"""

import importlib.util
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

setup(cmdclass={"build_py": BuildPyWithProtos})
