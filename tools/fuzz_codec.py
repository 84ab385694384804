"""Coverage-guided differential fuzzing of the codec's fast paths with atheris (libFuzzer), by hand.

The properties are tests/test_codec_fuzz.py's (the fast path gives protobuf's answer, or the same
error); here libFuzzer mutates raw bytes for as long as it is given, steered by coverage of the
codec's Python source (``service/codec.py``, instrumented by atheris: the same code that mypyc
compiles) and, when built so, of the compiled decoder and encoder (``service/_wire.pyx`` built by
clang with libFuzzer's coverage, ``--build``). Targets:

* ``wire``: a request's wire bytes (the first byte picks the request message), ``request_json``;
* ``json``: a REST body (the first byte picks the route), the fast read and its fallback;
* ``line``: a line of the NDJSON stream, ``stream.line_json`` and ``request_of_line``;
* ``answer``: an engine answer given as JSON (the first byte picks the response message),
  ``to_wire`` and ``as_json``.

Run from the repository (atheris and clang are not in the dev extra: ``.venv/bin/pip install
atheris``, ``apt-get install clang``)::

    .venv/bin/python tools/fuzz_codec.py --build build/fuzz           # the instrumented _wire, once
    .venv/bin/python tools/fuzz_codec.py wire build/fuzz/wire -max_total_time=300
    .venv/bin/python tools/fuzz_codec.py json build/fuzz/json -max_total_time=300 -dict=build/fuzz/json.dict

A directory argument is libFuzzer's corpus (seeded with real requests the first time); the other
arguments are libFuzzer's own. Without ``build/fuzz/_wire.so`` the compiled decoder is used
uninstrumented. A crash writes the input to ``crash-*``: rerun with the file as the argument, and
add the case to tests/test_wire.py or tests/test_codec_fast.py.
"""

from __future__ import annotations

import importlib.util
import inspect
import json
import os
import subprocess
import sys
import sysconfig
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
WIRE_SO = ROOT / "build" / "fuzz" / "_wire.so"


def build(out: Path) -> None:
    """service/_wire.pyx compiled by clang with libFuzzer's coverage (``-fsanitize=fuzzer-no-link``)."""
    out.mkdir(parents=True, exist_ok=True)
    source = out / "_wire.c"
    subprocess.run([sys.executable, "-m", "cython", "-3", str(ROOT / "service" / "_wire.pyx"), "-o", str(source)], check=True)
    include = sysconfig.get_paths()["include"]
    # Linked against atheris's libFuzzer (the module it loads to fuzz, the same library then),
    # which defines the coverage hooks; Python loads extensions privately (RTLD_LOCAL).
    import atheris

    core = next(Path(atheris.__file__).parent.glob("core_with_libfuzzer*.so"))
    subprocess.run(["clang", "-shared", "-fPIC", "-O1", "-g", "-fsanitize=fuzzer-no-link", f"-I{include}", str(source), str(core),
                    f"-Wl,-rpath,{core.parent}", "-o", str(out / "_wire.so")], check=True)
    (out / "json.dict").write_text("\n".join(f'"{token}"' for token in [
        "{", "}", "[", "]", ":", ",", '\\"', "true", "false", "null", "NaN", "Infinity", "-", "1e2", "1.0", "\\\\u", "\\\\ud800",
        "2147483648", "18446744073709551616", *_names()]) + "\n")
    print(f"built {out / '_wire.so'} and {out / 'json.dict'}")


def _names() -> list[str]:
    sys.path[:0] = [str(ROOT), str(ROOT / "service" / "gen")]
    from naipes.v1 import naipes_pb2 as pb

    names = set()
    for descriptor in pb.DESCRIPTOR.message_types_by_name.values():
        for field in descriptor.fields:
            names.update({f'\\"{field.json_name}\\"', f'\\"{field.name}\\"'})
    return sorted(names)


def load() -> None:
    """The codec from its Python source (atheris instruments it), over the instrumented _wire
    when it is built."""
    import atheris

    sys.path[:0] = [str(ROOT), str(ROOT / "tests")]
    if WIRE_SO.exists():
        spec = importlib.util.spec_from_file_location("service._wire", WIRE_SO)
        assert spec is not None and spec.loader is not None
        wire = importlib.util.module_from_spec(spec)
        sys.modules["service._wire"] = wire
        spec.loader.exec_module(wire)
    spec = importlib.util.spec_from_file_location("service.codec", ROOT / "service" / "codec.py")
    assert spec is not None and spec.loader is not None
    codec = importlib.util.module_from_spec(spec)
    sys.modules["service.codec"] = codec
    spec.loader.exec_module(codec)
    import service
    import service.stream  # noqa: F401

    service.codec = codec
    from google.protobuf import json_format

    for module in (codec, service.stream, json_format):  # (atheris.instrument_all takes many minutes)
        for value in list(vars(module).values()):
            functions = [value] if inspect.isfunction(value) else list(vars(value).values()) if inspect.isclass(value) else []
            for function in functions:
                if inspect.isfunction(function) and function.__module__ == module.__name__:
                    atheris.instrument_func(function)


def seeds(target: str, corpus: Path) -> None:
    """Real requests, a few of each kind, for a new corpus."""
    from google.protobuf import json_format

    from bench.engine_driver import random_record
    from naipes.v1 import naipes_pb2 as pb

    corpus.mkdir(parents=True, exist_ok=True)
    records = [random_record(game, 4, seed=seed) for game in ("tresillo", "revesino", "rentoy") for seed in (1, 2)]
    for i, record in enumerate(records):
        record["rules"] = {"ladder": "short", "enchilada": 100, "playAllTricks": True}
        message = json_format.ParseDict(record, pb.HandRecord())
        requests = {
            "wire": [b"\x00" + pb.ValidateHandsRequest(id="a", record=message).SerializeToString(),
                     b"\x01" + pb.LegalActionsRequest(record=message, seat=1).SerializeToString()],
            "json": [b"\x00" + json.dumps(record).encode(), b"\x01" + json.dumps({"record": record, "seat": 1}).encode()],
            "line": [json.dumps({"id": "a", "batch": [{"record": record}, {"id": "b", "record": record}]}).encode(),
                     json.dumps(record).encode()],
            "answer": [b"\x00" + json.dumps({"game": record["game"], "valid": True, "events": [{"kind": "card", "seat": 1}]}).encode()],
        }[target]
        for j, data in enumerate(requests):
            (corpus / f"seed-{i}-{j}").write_bytes(data)


def main() -> None:
    if len(sys.argv) > 2 and sys.argv[1] == "--build":
        build(Path(sys.argv[2]))
        return
    if len(sys.argv) < 2 or sys.argv[1] not in ("wire", "json", "line", "answer"):
        sys.exit(__doc__)
    target = sys.argv.pop(1)
    os.chdir(ROOT)
    import atheris

    def one(data: bytes) -> None:
        if data:
            check(data)

    atheris.Setup(sys.argv, one)  # (before the instrumented module is loaded: load())
    load()
    check = checker(target)
    atheris.Fuzz()


def checker(target: str) -> Any:
    import test_codec_fuzz as props

    from service import codec

    corpus = next((Path(a) for a in sys.argv[1:] if not a.startswith("-") and not Path(a).is_file()), None)
    if corpus is not None and not corpus.exists():
        seeds(target, corpus)
    requests = [props.cls_of(d) for d in props.REQUEST_TYPES]
    answers = [props.cls_of(d) for d in props.ANSWER_TYPES]
    routes = [(props.cls_of(d), part) for d, part in props.ROUTES]

    def check(data: bytes) -> None:
        if target == "wire":
            props.check_wire_request(data[1:], requests[data[0] % len(requests)])
        elif target == "json":
            cls, part = routes[data[0] % len(routes)]
            if data[1:].strip():
                props.check_rest_body(data[1:], cls, part)
        elif target == "line":
            props.check_ndjson_line(data)
        else:
            try:
                answer = json.loads(data[1:])
            except (ValueError, RecursionError):
                return
            props.check_answer(answer, answers[data[0] % len(answers)])

    wire = getattr(codec, "_wire", None)
    print(f"fuzzing {target}: codec {codec.__file__}, _wire {wire.__file__ if wire else None}", flush=True)
    return check


if __name__ == "__main__":
    main()
