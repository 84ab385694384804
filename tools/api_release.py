"""The schema as released, and what ``buf breaking`` checks every change of the schema against.

``protos/released/naipes-v1.json`` holds the descriptor of ``naipes/v1/naipes.proto`` as clients
have it (protobuf's JSON form of its FileDescriptorProto, without comments): a change to the
schema that would break their generated code, their binary messages or their JSON (a field
removed, renumbered, renamed or retyped; an RPC or a message removed; a REST path's change is not
a descriptor's) fails ``make lint``. Additions pass. A breaking change is a new package
(``naipes.v2``), not an edit of v1.

    python tools/api_release.py record IMAGE     # the schema of IMAGE becomes the released one
    python tools/api_release.py against IMAGE OUT  # write the image buf breaking compares IMAGE with

``IMAGE`` is the image ``make`` builds (``build/naipes.binpb``: ``protogen.py --descriptor-set``,
imports included). The released image is the released file with IMAGE's imports (google/api and
the well-known types, which do not change with the schema).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from google.protobuf import descriptor_pb2, json_format

ROOT = Path(__file__).resolve().parent.parent
RELEASED = ROOT / "protos" / "released" / "naipes-v1.json"
SCHEMA = "naipes/v1/naipes.proto"


def _image(path: Path) -> descriptor_pb2.FileDescriptorSet:
    return descriptor_pb2.FileDescriptorSet.FromString(path.read_bytes())


def schema_file(images: descriptor_pb2.FileDescriptorSet) -> descriptor_pb2.FileDescriptorProto:
    """The schema's file among an image's (its imports are the others)."""
    (schema,) = [f for f in images.file if f.name == SCHEMA]
    return schema


def record(image: Path, released: Path = RELEASED) -> None:
    """Write the schema of ``image`` as the released one (without its comments)."""
    schema = schema_file(_image(image))
    schema.ClearField("source_code_info")
    released.parent.mkdir(parents=True, exist_ok=True)
    released.write_text(json_format.MessageToJson(schema, indent=1) + "\n")


def against(image: Path, out: Path, released: Path = RELEASED) -> None:
    """Write the released schema as an image, with the imports ``image`` holds."""
    schema = json_format.Parse(released.read_text(), descriptor_pb2.FileDescriptorProto())
    files = [f for f in _image(image).file if f.name != SCHEMA]
    missing = set(schema.dependency) - {f.name for f in files}
    if missing:
        raise SystemExit(f"api_release: {image} lacks the released schema's imports {sorted(missing)}")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(descriptor_pb2.FileDescriptorSet(file=[*files, schema]).SerializeToString())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("record").add_argument("image", type=Path)
    against_parser = commands.add_parser("against")
    against_parser.add_argument("image", type=Path)
    against_parser.add_argument("out", type=Path)
    args = parser.parse_args()
    if args.command == "record":
        record(args.image)
    else:
        against(args.image, args.out)


if __name__ == "__main__":
    main()
