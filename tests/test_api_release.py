"""The schema may grow but not break the released one (tools/api_release.py, ``make buf-breaking``,
part of ``make lint``): buf breaking passes the schema as it is, and fails a change that would break
a client of protos/released/naipes-v1.json."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from google.protobuf import descriptor_pb2
from service_support import BIN

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import api_release  # noqa: E402
import protogen  # noqa: E402


@pytest.fixture(scope="module")
def images(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The schema's image as make builds it, and the released schema's."""
    out = tmp_path_factory.mktemp("images")
    image, released = out / "naipes.binpb", out / "released.binpb"
    protogen.descriptor_set(image)
    api_release.against(image, released)
    return image, released


def breaking(image: Path, released: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(BIN / "buf"), "breaking", str(image), "--against", str(released), "--config", str(ROOT / "buf.yaml"),
                           "--path", api_release.SCHEMA], capture_output=True, text=True, timeout=120)


def changed(image: Path, out: Path, change: object) -> Path:
    """A copy of ``image`` with ``change`` applied to the schema's file descriptor."""
    images = descriptor_pb2.FileDescriptorSet.FromString(image.read_bytes())
    change(api_release.schema_file(images))  # type: ignore[operator]
    out.write_bytes(images.SerializeToString())
    return out


def message(schema: descriptor_pb2.FileDescriptorProto, name: str) -> descriptor_pb2.DescriptorProto:
    (found,) = [m for m in schema.message_type if m.name == name]
    return found


def test_the_schema_keeps_the_released_one(images: tuple[Path, Path]) -> None:
    result = breaking(*images)
    assert result.returncode == 0, result.stdout + result.stderr


def test_an_added_field_passes(images: tuple[Path, Path], tmp_path: Path) -> None:
    def add(schema: descriptor_pb2.FileDescriptorProto) -> None:
        record = message(schema, "HandRecord")
        record.field.add(name="comment", number=99, type=descriptor_pb2.FieldDescriptorProto.TYPE_STRING,
                         label=descriptor_pb2.FieldDescriptorProto.LABEL_OPTIONAL, json_name="comment")

    image, released = images
    result = breaking(changed(image, tmp_path / "added.binpb", add), released)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize("what", ["removed field", "renamed field", "renumbered field", "removed rpc"])
def test_a_breaking_change_fails(images: tuple[Path, Path], tmp_path: Path, what: str) -> None:
    def change(schema: descriptor_pb2.FileDescriptorProto) -> None:
        record = message(schema, "HandRecord")
        (actions,) = [f for f in record.field if f.name == "actions"]
        if what == "removed field":
            record.field.remove(actions)
        elif what == "renamed field":
            actions.name, actions.json_name = "moves", "moves"
        elif what == "renumbered field":
            actions.number = 98
        else:
            (service,) = schema.service
            (method,) = [m for m in service.method if m.name == "ResolveTrick"]
            service.method.remove(method)

    image, released = images
    result = breaking(changed(image, tmp_path / "changed.binpb", change), released)
    assert result.returncode != 0
    expected = {"removed field": 'Previously present field "7" with name "actions" on message "HandRecord" was deleted',
                "renamed field": 'changed name from "actions" to "moves"',
                "renumbered field": 'Previously present field "7" with name "actions" on message "HandRecord" was deleted',
                "removed rpc": 'Previously present RPC "ResolveTrick" on service "NaipesService" was deleted'}[what]
    assert expected in result.stdout, result.stdout + result.stderr
