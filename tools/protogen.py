"""Generate the Python code of the API schema (``protos/``) with grpcio-tools.

The generated package ``naipes.v1`` (``naipes_pb2``, ``naipes_pb2_grpc``, the ``.pyi`` stubs:
the messages' from protoc, the gRPC stub's from mypy-protobuf's ``protoc-gen-mypy_grpc`` plugin,
and ``naipes.binpb``, the schema with its comments)
goes to ``service/gen/naipes/v1/``, which is never committed: ``setup.py``'s build hook runs this
on every install (``pip install .`` and ``pip install -e .``), and ``make proto`` runs it when the
``.proto`` changes. ``--descriptor-set PATH`` also writes a binary image of the schema (with
imports and comments) for ``buf lint``.

Usage: python tools/protogen.py [--out DIR] [--descriptor-set PATH]
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROTOS = ROOT / "protos"
OUT = ROOT / "service" / "gen"
PROTO_FILES = ["naipes/v1/naipes.proto"]


def include_paths() -> list[str]:
    """protos/, the directory holding google/api/annotations.proto (googleapis-common-protos) and
    grpc_tools' own copy of the well-known types (google/protobuf/struct.proto)."""
    import grpc_tools

    well_known = Path(grpc_tools.__file__).parent / "_proto"
    googleapis = next((Path(p) for p in sys.path if (Path(p) / "google" / "api" / "annotations.proto").is_file()), None)
    if googleapis is None:
        raise SystemExit("protogen: google/api/annotations.proto not found: pip install googleapis-common-protos")
    return [str(PROTOS), str(googleapis), str(well_known)]


def grpc_stub_plugin() -> str:
    """mypy-protobuf's protoc plugin for the gRPC stub's types (``naipes_pb2_grpc.pyi``): next to
    the running Python (a venv's bin/), else on PATH (pip's isolated build environment)."""
    name = "protoc-gen-mypy_grpc" + (".exe" if os.name == "nt" else "")
    beside = Path(sys.executable).parent / name
    found = str(beside) if beside.is_file() else shutil.which(name)
    if found is None:
        raise SystemExit(f"protogen: {name} not found next to {sys.executable} or on PATH: pip install mypy-protobuf")
    return found


def protoc(args: list[str]) -> None:
    from grpc_tools import protoc as grpc_protoc

    argv = ["grpc_tools.protoc", *(f"-I{p}" for p in include_paths()), *args]
    if grpc_protoc.main(argv) != 0:
        raise SystemExit(f"protogen: protoc failed: {' '.join(argv)}")


def generate(out: Path = OUT) -> list[Path]:
    """Write naipes/v1/naipes_pb2{,_grpc}.py{,i} under ``out``, with package __init__ files and
    naipes/py.typed.

    The messages' ``.pyi`` is protoc's own (``--pyi_out``); the stub's (``naipes_pb2_grpc.pyi``:
    each method a multi-callable typed with its request and response messages) is mypy-protobuf's
    (``--mypy_grpc_out``), as grpcio-tools writes none."""
    out.mkdir(parents=True, exist_ok=True)
    protoc([f"--plugin=protoc-gen-mypy_grpc={grpc_stub_plugin()}", f"--python_out={out}", f"--pyi_out={out}",
            f"--grpc_python_out={out}", f"--mypy_grpc_out=quiet:{out}", *PROTO_FILES])
    # The schema with its comments, for the generated OpenAPI document's descriptions.
    protoc([f"--descriptor_set_out={out / 'naipes' / 'v1' / 'naipes.binpb'}", "--include_source_info", *PROTO_FILES])
    written = []
    for package in ("naipes", "naipes/v1"):
        init = out / package / "__init__.py"
        if not init.exists():
            init.write_text('"""Generated from protos/ by tools/protogen.py: do not edit."""\n')
        written.append(init)
    # PEP 561: the installed package is typed (its .pyi stubs), for the type checkers of its users.
    marker = out / "naipes" / "py.typed"
    marker.touch()
    written.append(marker)
    written += sorted((out / "naipes" / "v1").glob("naipes_pb2*"))
    return written


def descriptor_set(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    protoc([f"--descriptor_set_out={path}", "--include_imports", "--include_source_info", *PROTO_FILES])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--descriptor-set", type=Path)
    args = parser.parse_args()
    os.chdir(ROOT)
    generate(args.out)
    if args.descriptor_set:
        descriptor_set(args.descriptor_set)


if __name__ == "__main__":
    main()
