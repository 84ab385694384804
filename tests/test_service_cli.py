"""The ``naipes`` command: validate/legal/deal/audit print what REST answers, with the documented
exit codes, and ``naipes serve`` starts both servers, answers both health checks and stops on SIGTERM."""

from __future__ import annotations

import contextlib
import fcntl
import json
import logging
import os
import re
import select
import signal
import socket
import subprocess
import sys
import threading
import time
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
import requests
from grpc_health.v1 import health_pb2, health_pb2_grpc
from service_support import (
    ROOT,
    alive,
    call_rest,
    events_emptied,
    kill,
    load_example,
    read_until,
    rentoy_examples,
    rest_request,
    stop,
    tool,
)

from engine import api
from service import run_dir

NAIPES = tool("naipes")


def naipes(*args: str, stdin: str | bytes | None = None, text: bool = True) -> subprocess.CompletedProcess[Any]:
    """``naipes`` run with ``args``: its exit code and its output, as text (``text``) or bytes."""
    return subprocess.run([NAIPES, *args], input=stdin, capture_output=True, text=text, timeout=60)


@pytest.mark.parametrize("path", rentoy_examples(), ids=lambda p: p.stem)
def test_validate_prints_what_rest_answers(path: Path, http, rest_url) -> None:
    record, expect = load_example(path)
    done = naipes("validate", str(path))
    assert done.returncode == (0 if expect["valid"] else 1), done.stderr
    printed = json.loads(done.stdout)
    assert printed == call_rest(http, rest_url, "ValidateHand", {"record": record}) == api.validate(record)


def test_validate_reads_a_bare_record_from_stdin() -> None:
    record, _ = load_example(rentoy_examples()[0])
    done = naipes("validate", "-", stdin=json.dumps(record))
    assert json.loads(done.stdout) == api.validate(record)


def test_validate_invalid_input_exits_2_with_a_problem() -> None:
    record, _ = load_example(rentoy_examples()[0])
    record["deal"]["hands"][1] = "1o 2o 8o"
    done = naipes("validate", "-", stdin=json.dumps(record))
    assert done.returncode == 2 and done.stdout == ""
    problem = json.loads(done.stderr.strip().splitlines()[-1])
    assert problem["code"] == "UNKNOWN_CARD" and problem["field"] == "deal.hands[1]"
    for text in ("{not json", '{"game": "rentoy", "seats": NaN}', "[" * 100_000):  # as REST reads a body
        done = naipes("validate", "-", stdin=text)
        assert done.returncode == 2 and json.loads(done.stderr.strip().splitlines()[-1])["code"] == "MALFORMED_JSON"
    done = naipes("validate", "-", stdin='{"game": "rentoy", "seats": "four"}')
    assert done.returncode == 2 and json.loads(done.stderr.strip().splitlines()[-1])["field"] == "seats"


@pytest.mark.parametrize(("text", "code", "field"), [("[1, 2]", "INVALID_FIELD", "body"), ('"rentoy"', "INVALID_FIELD", "body"),
                                                     ("{}", "MISSING_FIELD", "game"), ('{"expect": {}}', "INVALID_FIELD", "expect"),
                                                     ('{"record": null, "expect": {}}', "INVALID_FIELD", "record"),
                                                     ('{"record": [1], "expect": {}}', "INVALID_FIELD", "record")],
                         ids=["a list", "a string", "an empty object", "no record nor game", "a null record", "a list for a record"])
def test_validate_and_legal_of_json_that_is_no_record_exit_2(text: str, code: str, field: str) -> None:
    """JSON that is neither a record nor an example file ``{"record": ...}`` is invalid input,
    exit 2, with the error REST answers for that body (a body that is no object, a record without
    its game, a field no record has), never an internal error (3) from reading it as an example
    file; an example file's record that is no object is named ``record``, not ``body``."""
    for args in (("validate", "-"), ("legal", "-")):
        done = naipes(*args, stdin=text)
        assert done.returncode == 2 and done.stdout == "", done.stderr
        problem = json.loads(done.stderr.strip().splitlines()[-1])
        assert (problem["code"], problem["field"]) == (code, field), problem


def test_rules_prints_what_rest_answers(http, rest_url) -> None:
    """``naipes rules GAME`` prints a game's house-rule options as GET /v1/games/{game}/rules
    answers them, exit 0; a game the service does not have is its UNKNOWN_GAME problem, exit 2."""
    for game in ("rentoy", "tresillo", "revesino"):
        done = naipes("rules", game)
        assert done.returncode == 0 and json.loads(done.stdout) == call_rest(http, rest_url, "DescribeRules", {"game": game}), done.stderr
    done = naipes("rules", "mus")
    assert done.returncode == 2 and done.stdout == "", done.stderr
    problem = json.loads(done.stderr.strip().splitlines()[-1])
    assert problem == rest_request(http, rest_url, "DescribeRules", {"game": "mus"}).json(), problem


def test_validate_an_unreadable_file_exits_2(tmp_path: Path) -> None:
    """A file that is not there, a directory or bytes that are not UTF-8 are invalid input (2), as
    a body REST cannot read is, never an internal error (3) or a violation (1)."""
    for path in (tmp_path / "absent.json", tmp_path):
        done = naipes("validate", str(path))
        assert done.returncode == 2 and done.stdout == ""
        assert f"naipes: cannot read {path}: " in done.stderr and "Traceback" not in done.stderr
    latin1 = tmp_path / "latin1.json"
    latin1.write_bytes('{"game": "rentoy", "actions": ["señor"]}'.encode("latin-1"))
    done = naipes("validate", str(latin1))
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert json.loads(done.stderr.strip().splitlines()[-1])["code"] == "MALFORMED_JSON"


@pytest.mark.parametrize("command", ["validate", "legal"])
def test_a_file_over_the_request_limit_is_payload_too_large(command: str, tmp_path: Path, http, rest_url) -> None:
    """A file over 1 MiB is PAYLOAD_TOO_LARGE, exit 2, as REST answers such a body (and as audit
    answers such a line), whatever it holds: a valid record padded with spaces was validated, and
    /dev/zero was read until memory ran out. A file of exactly 1 MiB is read."""
    from service.errors import MAX_REQUEST_BYTES

    text = json.dumps(_valid_record())
    padded = tmp_path / "padded.json"
    padded.write_text(text[:-1] + " " * (MAX_REQUEST_BYTES + 1 - len(text)) + "}")
    done = naipes(command, str(padded))
    assert (done.returncode, done.stdout) == (2, ""), done.stderr
    problem = json.loads(done.stderr.strip().splitlines()[-1])
    body = padded.read_bytes()
    rest = http.post(f"{rest_url}/v1/hands:validate", data=body, headers={"Content-Type": "application/json"}, timeout=30)
    assert problem["code"] == rest.json()["code"] == "PAYLOAD_TOO_LARGE"
    assert problem["detail"] == f"{padded} is larger than {MAX_REQUEST_BYTES} bytes"
    padded.write_bytes(body[:-2] + b"}")  # (1 MiB exactly)
    assert naipes(command, str(padded)).returncode == 0
    done = subprocess.run([NAIPES, command, "/dev/zero"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and json.loads(done.stderr.strip().splitlines()[-1])["code"] == "PAYLOAD_TOO_LARGE", done.stderr


@pytest.mark.parametrize("command", ["validate", "legal", "audit"])
def test_a_closed_stdin_is_a_file_that_cannot_be_read(command: str) -> None:
    """``naipes validate - <&-``: no stdin at all (Python sets ``sys.stdin`` None) is a file that
    cannot be read, exit 2 naming it, not an AttributeError's traceback (exit 3, audit's exit 1)."""
    done = subprocess.run([NAIPES, command, "-"], capture_output=True, text=True, timeout=60, preexec_fn=lambda: os.close(0))
    assert (done.returncode, done.stdout) == (2, ""), done.stderr
    assert done.stderr == "naipes: cannot read -: stdin is closed\n"


def _valid_record() -> dict[str, Any]:
    return next(record for record, expect in map(load_example, rentoy_examples()) if expect["valid"])


def _archive(tmp_path: Path) -> tuple[Path, bytes]:
    """An archive of every kind of line: records under ids, a bare record, a batch, a record with a
    violation, a record not well formed, a line that is not JSON, a blank line."""
    record = _valid_record()
    broken = {**record, "actions": ["1 2c", "2 5e", "3 1o"]}
    lines = [json.dumps({"id": f"r{i}", "record": record}) for i in range(30)]
    lines += [json.dumps(record), json.dumps({"id": "b", "batch": [{"id": "b1", "record": record}, {"id": "b2", "record": broken}]}),
              json.dumps({"id": "bad", "record": {"game": "rentoy"}}), "{not json", "", json.dumps({"id": "v", "record": broken})]
    body = ("\n".join(lines) + "\n").encode()
    path = tmp_path / "archive.ndjson"
    path.write_bytes(body)
    return path, body


def test_audit_prints_what_the_rest_stream_answers(tmp_path: Path, http, rest_url) -> None:
    """``naipes audit`` answers an archive line for line as POST /v1/hands:validateStream does,
    counts its records on stderr and exits with the worst record's code."""
    path, body = _archive(tmp_path)
    done = naipes("audit", str(path))
    streamed = http.post(rest_url + "/v1/hands:validateStream", data=body, headers={"Content-Type": "application/x-ndjson"}, timeout=60)
    assert streamed.status_code == 200
    assert [json.loads(line) for line in done.stdout.splitlines()] == [json.loads(line) for line in streamed.text.splitlines()]
    assert len(done.stdout.splitlines()) == 35  # the blank line is skipped, as the stream skips it
    assert done.returncode == 2, done.stderr  # two lines are not well formed: the worst is invalid input
    assert "36 records" in done.stderr and "32 valid, 2 with a violation, 2 not validated" in done.stderr, done.stderr


def test_audit_reads_a_gzipped_archive_as_it_is_read(tmp_path: Path) -> None:
    """A gzip'd archive (``archive.ndjson.gz``; two members one after another, as ``cat a.gz b.gz``
    makes; on stdin, as a pipe gives it) is audited as the archive itself: the same answers, counts
    and exit code."""
    import gzip

    path, body = _archive(tmp_path)
    plain = naipes("audit", str(path))
    packed = tmp_path / "archive.ndjson.gz"
    packed.write_bytes(gzip.compress(body))
    half = body.index(b"\n", len(body) // 2) + 1
    members = tmp_path / "members.ndjson.gz"
    members.write_bytes(gzip.compress(body[:half]) + gzip.compress(body[half:]))
    for done in (naipes("audit", str(packed), text=False), naipes("audit", str(members), text=False), naipes("audit", "-", stdin=gzip.compress(body), text=False)):
        assert (done.returncode, done.stdout.decode(), done.stderr.decode().split(" in ")[0]) == (2, plain.stdout, plain.stderr.split(" in ")[0])
        assert "32 valid, 2 with a violation, 2 not validated" in done.stderr.decode()


def test_audit_of_a_gzipped_archive_cut_short_ends_with_its_error(tmp_path: Path) -> None:
    """A gzip'd archive cut short (a copy that stopped), or not gzip after its first byte: every
    line decoded before the fault is answered, then the fault's MALFORMED_JSON entry naming the file,
    and the exit code of a record not well formed."""
    import gzip

    record = _valid_record()
    body = b"".join(json.dumps({"id": f"r{i}", "record": record}).encode() + b"\n" for i in range(40))
    compressor = zlib.compressobj(6, zlib.DEFLATED, 31)
    data = b"".join(compressor.compress(body[i:i + 500]) + compressor.flush(zlib.Z_SYNC_FLUSH) for i in range(0, len(body), 500))
    data += compressor.flush()
    cut = tmp_path / "cut.ndjson.gz"
    cut.write_bytes(data[:len(data) // 2])
    done = naipes("audit", str(cut), text=False)
    *answers, last = [json.loads(line) for line in done.stdout.splitlines()]
    assert 0 < len(answers) < 40 and answers == [{"id": f"r{i}", "result": api.validate(record)} for i in range(len(answers))]
    assert last == {"error": {"code": "MALFORMED_JSON",
                              "message": f"{cut} (gzip) ended before the end of its gzip data: the lines before are answered"}}
    assert done.returncode == 2 and b"Traceback" not in done.stderr
    assert gzip.decompress(data) == body
    odd = tmp_path / "odd.ndjson"
    odd.write_bytes(b"\x1f" + body)
    done = naipes("audit", str(odd), text=False)
    assert [json.loads(line) for line in done.stdout.splitlines()] == [
        {"error": {"code": "MALFORMED_JSON",
                   "message": f"{odd} (gzip) is not gzip: it does not start with gzip's magic bytes 1f 8b: the lines before are answered"}}]
    assert done.returncode == 2


def test_audit_of_a_gzipped_archive_skips_a_long_line_for_64_mib_at_most(tmp_path: Path) -> None:
    """A gzip'd archive's line over the 1 MiB limit is skipped to find the next line for 64 MiB at
    most, as a gzip'd REST stream's is (a few KB of gzip may inflate to gigabytes): a line of
    70 MiB ends the audit with its PAYLOAD_TOO_LARGE entry, the lines after it unread; one of
    2 MiB is its entry and the audit goes on."""
    from service.codings import SKIP_BYTES

    record = json.dumps({"id": "a", "record": _valid_record()}).encode() + b"\n"
    for run_on, ends in ((2 << 20, False), (SKIP_BYTES + (6 << 20), True)):
        compressor = zlib.compressobj(9, zlib.DEFLATED, 31)
        data = compressor.compress(record)
        for _ in range(run_on >> 20):
            data += compressor.compress(b"x" * (1 << 20))
        data += compressor.compress(b"\n" + record) + compressor.flush()
        path = tmp_path / "long.ndjson.gz"
        path.write_bytes(data)
        done = naipes("audit", str(path), text=False)
        codes = [json.loads(line).get("error", {}).get("code", "OK") for line in done.stdout.splitlines()]
        assert codes == (["OK", "PAYLOAD_TOO_LARGE"] if ends else ["OK", "PAYLOAD_TOO_LARGE", "OK"]), done.stdout[-300:]
        if ends:
            assert b"has not ended within 67108864 bytes" in done.stdout.splitlines()[-1]
        assert done.returncode == 2 and len(data) < 100_000


def test_validate_and_legal_read_a_gzipped_record(tmp_path: Path) -> None:
    """``naipes validate`` and ``legal`` read a gzip'd record file as the record itself; the limit
    is the decoded JSON's (PAYLOAD_TOO_LARGE naming the file), and a file that starts as gzip does
    and is not gzip is MALFORMED_JSON naming it."""
    import gzip

    path = rentoy_examples()[0]
    packed = tmp_path / "hand.json.gz"
    packed.write_bytes(gzip.compress(path.read_bytes()))
    for command in ("validate", "legal"):
        plain, done = naipes(command, str(path)), naipes(command, str(packed))
        assert (done.returncode, done.stdout) == (plain.returncode, plain.stdout) and plain.stdout, done.stderr
    large = tmp_path / "large.json.gz"
    large.write_bytes(gzip.compress(b" " * (2 << 20) + b"{}"))
    odd = tmp_path / "odd.json"
    odd.write_bytes(b"\x1f{}")
    for file, code, detail in ((large, "PAYLOAD_TOO_LARGE", f"{large} (gzip) is larger than 1048576 bytes once decoded"),
                               (odd, "MALFORMED_JSON", f"{odd} (gzip) is not gzip: it does not start with gzip's magic bytes 1f 8b")):
        done = naipes("validate", str(file))
        assert done.returncode == 2 and done.stdout == "", done.stdout
        problem = json.loads(done.stderr)
        assert (problem["code"], problem["detail"]) == (code, detail)


def test_audit_exit_codes_and_stdin(tmp_path: Path) -> None:
    record = _valid_record()
    good = json.dumps({"id": "a", "record": record}) + "\n"
    done = naipes("audit", "-", stdin=good * 3)
    assert done.returncode == 0 and [json.loads(line)["result"]["valid"] for line in done.stdout.splitlines()] == [True] * 3
    assert "3 records" in done.stderr and "3 valid, 0 with a violation, 0 not validated" in done.stderr
    broken = json.dumps({**record, "actions": ["1 2c", "2 5e", "3 1o"]}) + "\n"
    done = naipes("audit", "-", stdin=good + broken)
    assert done.returncode == 1 and json.loads(done.stdout.splitlines()[1])["result"]["violation"]["action"] == 0
    done = naipes("audit", "-", stdin="")
    assert done.returncode == 0 and done.stdout == "" and "0 records" in done.stderr
    done = naipes("audit", str(tmp_path / "absent.ndjson"))
    assert done.returncode == 2 and done.stdout == "" and "naipes: cannot read" in done.stderr and "Traceback" not in done.stderr



def test_audit_exits_3_for_an_internal_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]) -> None:
    """A record the pool answers INTERNAL (its batch's work failed: ``stream.internal_ndjson``)
    makes the audit's exit code 3, the worst, above a record not well formed (2), as README's
    "naipes audit" says; the line is printed and counted as not validated."""
    from service import cli, stream

    def failing(lines: Any, count: Any, omit_events: bool = False) -> Any:
        """The first record's batch failed; the second is not well formed."""
        answers = stream.internal_ndjson(list(lines)[:1], RuntimeError())
        missing = {"error": {"code": "MISSING_FIELD", "field": "seats", "message": "seats is required"}}
        answers.add(json.dumps(missing).encode() + b"\n", missing)
        count(answers)
        yield from answers

    archive = tmp_path / "archive.ndjson"
    archive.write_text(json.dumps({"id": "a", "record": _valid_record()}) + "\n{\"game\": \"x\"}\n")
    monkeypatch.setattr(stream, "validate_ndjson", failing)
    pool_log = logging.getLogger("naipes.stream")
    monkeypatch.setattr(pool_log, "level", pool_log.level)  # (audit quiets it: restored after)
    assert cli.audit(str(archive)) == cli.EXIT_INTERNAL == 3
    out, err = capfd.readouterr()
    assert [json.loads(line)["error"]["code"] for line in out.splitlines()] == ["INTERNAL", "MISSING_FIELD"]
    assert "2 records" in err and "0 valid, 0 with a violation, 2 not validated" in err, err

def test_audit_interrupted_says_so_and_exits_130() -> None:
    """Ctrl-C during ``naipes audit`` (SIGINT to its process group, as a terminal sends it), its
    pool started and the archive not at its end: "naipes: interrupted" and exit 130, as a shell
    reports a command SIGINT ended, with no traceback, neither the command's nor its pool
    processes' (each wrote one). Its SIGINT is as a terminal's command has it (SIG_DFL): a
    background job of a shell without job control, as a suite started with ``make test &`` runs,
    ignores SIGINT, which its processes inherit, and the audit ran on to its end, exit 0."""
    audit = subprocess.Popen([NAIPES, "audit", "-"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             start_new_session=True, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        assert audit.stdin is not None and audit.stdout is not None
        audit.stdin.write((json.dumps({"id": "a", "record": _valid_record()}) + "\n") * 100)  # (answers past stdout's buffer)
        audit.stdin.flush()
        assert json.loads(audit.stdout.readline())["id"] == "a"
        time.sleep(2)  # (every pool process started: one still importing when interrupted is not this test's)
        os.killpg(audit.pid, signal.SIGINT)
        _out, err = audit.communicate(timeout=30)
    finally:
        kill(audit)
    assert (audit.returncode, err) == (130, "naipes: interrupted\n"), err


def test_audit_answers_a_live_feed_s_lines_as_they_come() -> None:
    """``tail -f hands.ndjson | naipes audit -``: each line's answer is written soon after the line
    comes, while stdin stays open, one line at a time (the answers waited in stdout's buffer until
    8 KiB of them had come, or the input's end). Bounded by 60 s a line, far beyond the flush's
    AUDIT_FLUSH_SECONDS: the test times nothing."""
    audit = subprocess.Popen([NAIPES, "audit", "-", "--omit-events"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert audit.stdin is not None and audit.stdout is not None
        for i in range(3):
            audit.stdin.write((json.dumps({"id": f"hand-{i}", "record": _valid_record()}) + "\n").encode())
            audit.stdin.flush()
            ready, _, _ = select.select([audit.stdout], [], [], 60)
            assert ready, f"no answer to line {i} while the feed stays open"
            assert json.loads(audit.stdout.readline())["id"] == f"hand-{i}"
        audit.stdin.close()
        assert audit.wait(timeout=60) == 0 and audit.stdout.read() == b""
    finally:
        kill(audit)


def test_audit_reads_crlf_lines_and_skips_blank_ones() -> None:
    """An archive written with CRLF line ends (a Windows editor's) and with blank or white-space
    lines between its records is answered as the same records with LF ends: one answer per record,
    in order (README, "An archive, streamed")."""
    record = _valid_record()
    lines = [json.dumps({"id": "a", "record": record}), json.dumps({"id": "b", "record": {**record, "actions": ["1 2c"]}}), '{"game": "x"}']
    plain = naipes("audit", "-", stdin="\n".join(lines) + "\n")
    windows = naipes("audit", "-", stdin="\r\n\r\n".join(lines) + "\r\n  \t\r\n")
    assert plain.returncode == windows.returncode == 2 and len(plain.stdout.splitlines()) == 3
    assert windows.stdout == plain.stdout, windows.stdout


def test_audit_omit_events_leaves_out_the_events_and_nothing_else(tmp_path: Path) -> None:
    """``naipes audit --omit-events``: every line answered as without it but for the results'
    events, left empty (records under ids, a bare record, a batch, violations, records not well
    formed, a line that is not JSON), with the same counts and exit code; without it, the events
    are printed."""
    path, body = _archive(tmp_path)
    plain = naipes("audit", str(path))
    brief = naipes("audit", "--omit-events", str(path))
    full = [json.loads(line) for line in plain.stdout.splitlines()]
    assert sum(bool(answer.get("result", {}).get("events")) for answer in full) >= 30  # events to omit
    assert [json.loads(line) for line in brief.stdout.splitlines()] == [events_emptied(answer) for answer in full]
    assert brief.returncode == plain.returncode == 2
    for done in (plain, brief):
        assert "36 records" in done.stderr and "32 valid, 2 with a violation, 2 not validated" in done.stderr, done.stderr


def test_audit_omit_events_reads_every_kind_of_line_as_without_it() -> None:
    """``--omit-events`` on lines written otherwise: CRLF ends and white space around a bare
    record, a message that says ``omitEvents`` itself (its own say kept), a record that gives a
    key twice (the same error, naming the key), a line that is not an object: each answered as
    without the option but for the events."""
    record = _valid_record()
    text = json.dumps(record)
    lines = [f"  {text} ", json.dumps({"id": "own", "omitEvents": False, "record": record}),
             json.dumps({"omitEvents": True, "batch": [{"record": record}]}), text[:-1] + ', "dealer": 1}',
             json.dumps({"id": "twice", "record": record})[:-1] + ', "id": "again"}', "[1, 2]", '"text"', "{}"]
    stdin = "\r\n".join(lines) + "\r\n"
    plain, brief = naipes("audit", "-", stdin=stdin), naipes("audit", "--omit-events", "-", stdin=stdin)
    full = [json.loads(line) for line in plain.stdout.splitlines()]
    assert len(full) == len(lines) and full[0]["result"]["events"] and full[1]["result"]["events"]
    assert full[3]["error"]["field"] == "dealer" and "given twice" in full[3]["error"]["message"]
    want = [events_emptied(answer) if i != 1 else answer for i, answer in enumerate(full)]
    assert [json.loads(line) for line in brief.stdout.splitlines()] == want
    assert brief.returncode == plain.returncode == 2
    # (--help says so: it said "every result with its events left empty", README too)
    assert "a line that says omitEvents itself keeps its say" in " ".join(naipes("audit", "--help").stdout.split())


def test_legal_and_deal() -> None:
    done = naipes("deal", "--game", "rentoy", "--seats", "4", "--dealer", "0", "--seed", "X")
    assert done.returncode == 0
    assert json.loads(done.stdout) == api.deal({"game": "rentoy", "seats": 4, "dealer": 0, "seed": "X"})
    record = {"game": "rentoy", "seats": 4, "dealer": 0, "deal": json.loads(done.stdout)["deal"]}
    done = naipes("legal", "-", "--seat", "1", stdin=json.dumps(record))
    assert done.returncode == 0
    assert json.loads(done.stdout) == api.legal_actions(record, 1)


@pytest.mark.parametrize("args", [("rules", "rentoy"), ("deal", "--seed", "x"), ("validate", "-"), ("legal", "-"), ("audit", "-")],
                         ids=lambda args: args[0])
def test_an_answer_to_a_closed_pipe_exits_1_quietly(args: tuple[str, ...]) -> None:
    """``naipes rules rentoy | head -0``: stdout a pipe whose reader has gone. The command exits 1
    with nothing on stderr (``main``: stdout's broken pipe), whether its answer is written as it
    prints (PYTHONUNBUFFERED, as the tests' environment may set) or, as by default on a pipe,
    buffered until its end: then the write failed as Python exited, after ``main``, which wrote
    "Exception ignored ... BrokenPipeError" on stderr and exited 120."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    line = json.dumps({"id": "a", "record": _valid_record()}) + "\n"  # (audit's stdin; the others', a record)
    for unbuffered in ({}, {"PYTHONUNBUFFERED": "1"}):
        read, write = os.pipe()
        os.close(read)
        try:
            done = subprocess.run([NAIPES, *args], input=(line if args[0] == "audit" else json.dumps(_valid_record())).encode(), stdout=write,
                                  stderr=subprocess.PIPE, env={**env, **unbuffered}, timeout=60)
        finally:
            os.close(write)
        assert (done.returncode, done.stderr) == (1, b""), (unbuffered, done.stderr)


@pytest.mark.parametrize(("args", "field"), [(("rules", b"\xff"), "game"), (("deal", "--game", b"\xffrentoy"), "game"),
                                             (("deal", "--seed", b"se\xffd"), "seed")], ids=["rules", "deal game", "deal seed"])
def test_an_argument_that_is_not_utf8_is_invalid_field(args: tuple[str | bytes, ...], field: str, http, rest_url) -> None:
    """An argument that is not UTF-8 (Python reads the byte as a lone surrogate) is INVALID_FIELD
    naming its field, exit 2, as REST answers a body's "\\udcff" there: not protobuf's
    UnicodeEncodeError, an INTERNAL error (exit 3)."""
    done = subprocess.run([NAIPES, *args], capture_output=True, timeout=60)
    assert (done.returncode, done.stdout) == (2, b""), done.stderr
    problem = json.loads(done.stderr.strip().splitlines()[-1])
    rest = http.post(f"{rest_url}/v1/deals", data=json.dumps({"game": "rentoy", "seed": "x", field: "\udcff"}),
                     headers={"Content-Type": "application/json"}, timeout=30).json()
    assert (problem["code"], problem["field"], problem["detail"]) == (rest["code"], rest["field"], rest["detail"]) == ("INVALID_FIELD", field, f"{field}: Unpaired surrogate")


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full (Linux)")
@pytest.mark.parametrize("args", [("rules", "rentoy"), ("deal", "--seed", "x"), ("validate", "-"), ("legal", "-"), ("audit", "-")],
                         ids=lambda args: args[0])
def test_an_answer_stdout_refuses_is_said_and_exits_3(args: tuple[str, ...]) -> None:
    """stdout a full disk (/dev/full), or closed (``>&-``): the command says it cannot write its
    answer, exit 3, not an OSError's traceback, exit 1 (a violation's code), nor, closed, an
    AttributeError's (print() dropped the answer, and the flush after it had no stdout)."""
    line = json.dumps({"id": "a", "record": _valid_record()}) + "\n"  # (audit's stdin; the others', a record)
    given = (line if args[0] == "audit" else json.dumps(_valid_record())).encode()
    with open("/dev/full", "wb") as full:
        done = subprocess.run([NAIPES, *args], input=given, stdout=full, stderr=subprocess.PIPE, timeout=60)
    assert (done.returncode, done.stderr) == (3, b"naipes: cannot write to stdout: No space left on device\n"), done.stderr
    done = subprocess.run([NAIPES, *args], input=given, stderr=subprocess.PIPE, timeout=60, preexec_fn=lambda: os.close(1))
    assert (done.returncode, done.stderr) == (3, b"naipes: cannot write to stdout: it is closed\n"), done.stderr


def test_deal_defaults_to_rentoy_4_seats_dealer_0_and_a_fresh_seed() -> None:
    """``naipes deal``'s defaults, as its help says: Rentoy, 4 seats, seat 0 deals, and a fresh
    random seed (16 hex digits, a new one each time), which the answer gives for the deal to be
    made again."""
    done = naipes("deal", "--seed", "X")
    assert done.returncode == 0 and json.loads(done.stdout) == api.deal({"game": "rentoy", "seats": 4, "dealer": 0, "seed": "X"})
    first, second = (json.loads(naipes("deal").stdout) for _ in range(2))
    assert re.fullmatch(r"[0-9a-f]{16}", first["seed"]) and first["seed"] != second["seed"], (first["seed"], second["seed"])
    for dealt in (first, second):
        assert dealt == api.deal({"game": "rentoy", "seats": 4, "dealer": 0, "seed": dealt["seed"]})


def test_deal_with_an_empty_seed_is_invalid_field_as_rest_answers(http, rest_url) -> None:
    """``naipes deal --seed ''`` is a seed given, and empty: REST's INVALID_FIELD seed, exit 2, not
    a fresh random seed in its stead (a deal the caller did not ask for, exit 0)."""
    done = naipes("deal", "--seed", "")
    assert (done.returncode, done.stdout) == (2, ""), done.stdout
    problem = json.loads(done.stderr.strip().splitlines()[-1])
    assert problem == rest_request(http, rest_url, "Deal", {"game": "rentoy", "seats": 4, "dealer": 0, "seed": ""}).json()
    assert (problem["code"], problem["field"]) == ("INVALID_FIELD", "seed")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _grpc_server_alone(*args: str, env: dict[str, str] | None = None) -> tuple[subprocess.Popen[str], str, str]:
    """``python -m service.grpc_server`` with ``args``, once it has written that it listens (it
    serves from then on: ``read_until``): the server, the address it wrote, and its output so far."""
    server = subprocess.Popen([sys.executable, "-m", "service.grpc_server", *args], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True)
    lines = read_until(server, lambda lines: bool(lines) and "gRPC listening on " in lines[-1])
    return server, lines[-1].split("gRPC listening on ", 1)[1].strip(), "".join(lines)


def _ready(lines: list[str]) -> bool:
    """``naipes serve`` has written that it is ready: every process it started serves."""
    return bool(lines) and "naipes ready" in lines[-1]


# sitecustomize for the test below: importing service.rest (a gunicorn worker loading the app, and
# nothing else ``naipes serve`` starts) first sleeps, then leaves a file named after the process.
_SLOW_APP = """
import os, sys, time
class SlowApp:
    def find_spec(self, name, path=None, target=None):
        if name == "service.rest":
            time.sleep(float(os.environ["SLOW_APP_SECONDS"]))
            open(os.path.join(os.environ["SLOW_APP_LOADED"], str(os.getpid())), "w").close()
        return None
sys.meta_path.insert(0, SlowApp())
"""


def _serve_loading_slowly(tmp_path: Path, workers: int) -> tuple[subprocess.Popen[str], Path]:
    """``naipes serve`` with ``workers`` REST workers, each loading the app 3 s more (``_SLOW_APP``);
    the server, and the directory where each worker that has loaded it leaves a file named by its
    pid."""
    (tmp_path / "sitecustomize.py").write_text(_SLOW_APP)
    loaded = tmp_path / "loaded"
    loaded.mkdir()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")]),
           "SLOW_APP_SECONDS": "3", "SLOW_APP_LOADED": str(loaded)}
    server = subprocess.Popen([NAIPES, "serve", "--host", "127.0.0.1", "--rest-port", str(_free_port()), "--grpc-port", str(_free_port()),
                               "--workers", str(workers)], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return server, loaded


def test_serve_is_ready_once_every_process_serves(tmp_path: Path) -> None:
    """``naipes ready`` waits for each REST worker to load the app and each gRPC process to listen
    (service/ready.py): it had been written once both ports listened, while the workers were still
    loading (a request then waited for them) and the second gRPC process was still starting. Here
    each worker's load takes 3 s more."""
    server, loaded = _serve_loading_slowly(tmp_path, workers=2)
    output = ""
    try:
        lines = read_until(server, _ready)
        output = "".join(lines)
        assert len(list(loaded.iterdir())) == 2, output  # both workers had loaded the app
        assert sum("gRPC listening on " in line for line in lines) == 2, output
        assert "(gunicorn, 2 workers), gRPC on 127.0.0.1:" in lines[-1] and lines[-1].endswith(" (2 processes)\n"), lines[-1]
    finally:
        output += stop(server)
    assert server.returncode == 0, output


def test_a_worker_killed_while_it_loads_the_app_is_replaced_and_serve_gets_ready(tmp_path: Path) -> None:
    """A gunicorn worker that exits before it has loaded the app (killed here, during a load made
    3 s longer) never said that it serves: gunicorn's ``child_exit`` (service/gunicorn_conf.py)
    has nothing of it to withdraw, gunicorn starts another, and ``naipes ready`` comes once that
    one has loaded the app."""
    from test_service_workers import children, command

    server, loaded = _serve_loading_slowly(tmp_path, workers=1)
    output = ""
    try:
        deadline = time.monotonic() + 30
        while not (workers := [w for g in children(server.pid) if "gunicorn" in command(g) for w in children(g)]):
            assert time.monotonic() < deadline and server.poll() is None, "gunicorn started no worker"
            time.sleep(0.05)
        (killed,) = workers
        os.kill(killed, signal.SIGKILL)
        output = "".join(read_until(server, _ready))
        (replacement,) = [int(entry.name) for entry in loaded.iterdir()]
        assert replacement != killed, output
    finally:
        output += stop(server)
    assert server.returncode == 0, output


# sitecustomize for the test below: a gRPC server process (and every thread it starts) blocks
# SIGTERM, so that it never stops on one; nothing else ``naipes serve`` starts is touched.
_DEAF_GRPC = """
import signal
if b"service.grpc_server" in open("/proc/self/cmdline", "rb").read():
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
"""


def test_serve_kills_a_server_that_does_not_stop_within_10_seconds(tmp_path: Path) -> None:
    """A stop (SIGTERM) that a server ``naipes serve`` started does not heed: 10 seconds on, the
    server is killed (it never says it stopped, and its port is closed) and ``naipes serve``
    stops as ever (exit 0, "naipes stopped"), rather than wait for it for ever."""
    (tmp_path / "sitecustomize.py").write_text(_DEAF_GRPC)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")])}
    grpc_port = _free_port()
    server = subprocess.Popen([NAIPES, "serve", "--host", "127.0.0.1", "--rest-port", str(_free_port()), "--grpc-port", str(grpc_port),
                               "--workers", "1"], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    output = ""
    try:
        output = "".join(read_until(server, _ready))
    finally:
        start = time.monotonic()
        server.send_signal(signal.SIGTERM)
        try:
            output += server.communicate(timeout=30)[0]
        except subprocess.TimeoutExpired:  # (naipes serve waiting for it: the deaf server is killed here, not left running)
            for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
                with contextlib.suppress(OSError):
                    if f"--port\0{grpc_port}\0".encode() in cmdline.read_bytes():
                        os.kill(int(cmdline.parent.name), signal.SIGKILL)
            server.kill()
            output += server.communicate()[0]
    waited = time.monotonic() - start
    assert server.returncode == 0 and output.rstrip().endswith("naipes stopped"), output
    assert 9 < waited < 25 and "gRPC stopped" not in output, (waited, output)
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", grpc_port), timeout=5).close()


def test_serve_killed_outright_stops_every_process_it_started() -> None:
    """``naipes serve`` killed with SIGKILL (``kill -9``, the OOM killer) cannot stop its servers:
    the kernel sends each of them SIGTERM as it ends (PR_SET_PDEATHSIG), and every process it
    started exits (gunicorn and its workers, the gRPC processes, the streams' pools), its ports free
    again; they went on serving with nobody to stop them. Its directory (metrics, readiness) is left
    behind, and the next ``naipes serve`` removes it as it starts (it was left for good)."""
    from test_service_workers import served_dir

    from bench.run import descendants

    rest_port, grpc_port = _free_port(), _free_port()
    env = {**os.environ, "NAIPES_WORKERS": "2"}
    server = subprocess.Popen([NAIPES, "serve", "--host", "127.0.0.1", "--rest-port", str(rest_port), "--grpc-port", str(grpc_port)],
                              env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    started: list[int] = []
    try:
        read_until(server, _ready)
        record, _ = load_example(rentoy_examples()[0])
        answer = requests.post(f"http://127.0.0.1:{rest_port}/v1/hands:validateStream", data=json.dumps(record) + "\n",
                               headers={"Content-Type": "application/x-ndjson"}, timeout=60)
        assert answer.json() == {"result": api.validate(record)}  # (a pool started)
        started = descendants(server.pid)
        assert len(started) >= 6, started  # two gRPC processes, gunicorn and two workers, a pool's process
        left = served_dir(server.pid).parent
        assert run_dir.remove_left_behind(str(left.parent)) == [] and left.is_dir()  # (its server runs)
        server.kill()
        server.wait(timeout=10)
        deadline = time.monotonic() + 30
        while any(alive(pid) for pid in started) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not [pid for pid in started if alive(pid)]
    finally:
        kill(server)
        for pid in started:  # (no longer its descendants once it is dead)
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        server.communicate(timeout=30)
    for port in (rest_port, grpc_port):
        with pytest.raises(ConnectionRefusedError):
            socket.create_connection(("127.0.0.1", port), timeout=5).close()
    assert (left / "metrics").is_dir()
    rest_port, grpc_port = _free_port(), _free_port()
    server = subprocess.Popen([NAIPES, "serve", "--host", "127.0.0.1", "--rest-port", str(rest_port), "--grpc-port", str(grpc_port)],
                              env={**os.environ, "NAIPES_WORKERS": "1"}, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        output = "".join(read_until(server, _ready))
        own = served_dir(server.pid).parent
    finally:
        output += stop(server)
    assert f"removed {left}, left by a naipes serve that no longer runs" in output and not left.exists(), output
    assert server.returncode == 0 and not own.exists(), output  # (its own, at its stop)


def test_a_server_directory_is_removed_once_its_server_no_longer_runs(tmp_path: Path) -> None:
    """service/run_dir.py: a directory is removed when its lock is free (its server ended without
    removing it), not while its server holds the lock, nor while its lock file is not there yet (it
    is being made); nothing else in the directory is touched."""
    live, ended = run_dir.make(str(tmp_path)), run_dir.make(str(tmp_path))
    os.close(ended.lock)  # (its process ended: the kernel let go of its lock)
    (tmp_path / f"{run_dir.PREFIX}being-made").mkdir()
    (tmp_path / "something-else").mkdir()
    assert run_dir.remove_left_behind(str(tmp_path)) == [ended.path]
    assert sorted(os.listdir(tmp_path)) == sorted([Path(live.path).name, f"{run_dir.PREFIX}being-made", "something-else"])
    assert sorted(os.listdir(live.path)) == ["metrics", "ready", run_dir.LOCK]
    live.remove()
    assert not Path(live.path).exists()


def test_a_server_directory_left_while_it_was_made_is_removed_once_old(tmp_path: Path) -> None:
    """service/run_dir.py: a directory without its lock file (a server killed between making it
    and locking it) is left while it may still be being made, and removed once older than
    MAKING_SECONDS if nobody holds the lock it is made with."""
    old = time.time() - run_dir.MAKING_SECONDS - 5

    def made(name: str, making_lock: bool = False, age: float = old) -> Path:
        path = tmp_path / f"{run_dir.PREFIX}{name}"
        path.mkdir()
        if making_lock:
            (path / f".{run_dir.LOCK}").touch()
        os.utime(path, (age, age))
        return path

    empty, unlocked = made("empty"), made("unlocked", making_lock=True)
    fresh, held = made("fresh", age=time.time()), made("held", making_lock=True)
    lock = os.open(held / f".{run_dir.LOCK}", os.O_RDWR)
    fcntl.flock(lock, fcntl.LOCK_EX)  # (its server is making it, however slowly)
    os.utime(held, (old, old))
    try:
        assert sorted(run_dir.remove_left_behind(str(tmp_path))) == sorted([str(empty), str(unlocked)])
        assert sorted(os.listdir(tmp_path)) == sorted([fresh.name, held.name])
    finally:
        os.close(lock)


def test_serve_starts_both_servers_and_stops_on_sigterm() -> None:
    rest_port, grpc_port = _free_port(), _free_port()
    env = {**os.environ, "NAIPES_WORKERS": "1"}
    server = subprocess.Popen([NAIPES, "serve", "--host", "127.0.0.1", "--rest-port", str(rest_port), "--grpc-port", str(grpc_port)],
                              env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    output = ""
    try:
        output = "".join(read_until(server, _ready))
        answer = requests.get(f"http://127.0.0.1:{rest_port}/healthz", timeout=10)
        assert answer.status_code == 200 and answer.json() == {"status": "SERVING"}
        with grpc.insecure_channel(f"127.0.0.1:{grpc_port}") as channel:
            health = health_pb2_grpc.HealthStub(channel)
            for service in ("", "naipes.v1.NaipesService"):
                status = health.Check(health_pb2.HealthCheckRequest(service=service), timeout=30).status
                assert status == health_pb2.HealthCheckResponse.SERVING
        record, _ = load_example(rentoy_examples()[0])
        answer = requests.post(f"http://127.0.0.1:{rest_port}/v1/hands:validate", json=record, timeout=10)
        assert answer.json() == api.validate(record)
    finally:
        output += stop(server)
    assert server.returncode == 0, output
    assert f"http://127.0.0.1:{rest_port}" in output and f"127.0.0.1:{grpc_port}" in output
    # The access log is off by default: nothing is written per call (its start and stop only).
    assert not [line for line in output.splitlines() if line.startswith("{") or '"transport"' in line], output
    for port in (rest_port, grpc_port):  # both children are gone: the ports are free again
        with socket.socket() as s:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # TIME_WAIT is fine, a listener is not
            s.bind(("127.0.0.1", port))


def test_serve_runs_and_stops_with_stdout_closed() -> None:
    """``naipes serve``, which answers nothing on stdout, serves with stdout closed (``>&-``) and
    stops cleanly (it ended in an AttributeError's traceback; the commands that answer on stdout
    refuse to run so, test_an_answer_stdout_refuses_is_said_and_exits_3)."""
    rest_port, grpc_port = _free_port(), _free_port()
    server = subprocess.Popen([NAIPES, "serve", "--host", "127.0.0.1", "--rest-port", str(rest_port), "--grpc-port", str(grpc_port)],
                              env={**os.environ, "NAIPES_WORKERS": "1"}, stderr=subprocess.PIPE, text=True,
                              preexec_fn=lambda: os.close(1))
    server.stdout, server.stderr = server.stderr, None  # (what read_until and stop read: its log, on stderr)
    output = ""
    try:
        output = "".join(read_until(server, _ready))
        assert requests.get(f"http://127.0.0.1:{rest_port}/healthz", timeout=10).status_code == 200
    finally:
        output += stop(server)
    assert server.returncode == 0 and "Traceback" not in output, output


def test_serve_refuses_a_port_another_server_listens_on() -> None:
    """Another server listening with SO_REUSEPORT, as a second ``naipes serve`` does: gunicorn and
    grpcio bound the port beside it and the kernel shared the connections between the two servers,
    which started without a word ("naipes ready"). Now ``naipes serve`` names the port and exits 1."""
    for flag in ("--rest-port", "--grpc-port"):
        with socket.socket() as other:
            other.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
            other.bind(("127.0.0.1", 0))
            other.listen()
            taken = other.getsockname()[1]
            ports = {"--rest-port": _free_port(), "--grpc-port": _free_port(), flag: taken}
            server = subprocess.Popen([NAIPES, "serve", "--host", "127.0.0.1", "--workers", "1", *(str(x) for item in ports.items() for x in item)],
                                      stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            try:  # (it exits of itself: its start takes seconds under load, and a stop before its check was a kill)
                server.wait(timeout=60)
            except subprocess.TimeoutExpired:
                pass
            output = stop(server) if server.returncode is None else server.communicate()[0]
        assert server.returncode == 1, output
        assert output.strip() == f"naipes serve: 127.0.0.1:{taken} ({flag}, NAIPES_{flag[2:].replace('-', '_').upper()}) is in use: something listens there already", output


@pytest.mark.parametrize(("flag", "other", "default"), [("--rest-port", "--grpc-port", 8080), ("--grpc-port", "--rest-port", 50051)])
def test_serve_listens_on_8080_and_50051_unless_told_otherwise(flag: str, other: str, default: int) -> None:
    """Without --rest-port and NAIPES_REST_PORT REST listens on 8080, and gRPC on 50051 without
    --grpc-port and NAIPES_GRPC_PORT (README): with something listening on that port, ``naipes
    serve`` names it as the port it would take, and exits 1 before anything starts."""
    env = {k: v for k, v in os.environ.items() if k not in ("NAIPES_REST_PORT", "NAIPES_GRPC_PORT")}
    with socket.socket() as taken:
        try:
            taken.bind(("127.0.0.1", default))
        except OSError:
            pytest.skip(f"port {default} is taken on this machine")
        taken.listen()
        server = subprocess.Popen([NAIPES, "serve", "--host", "127.0.0.1", "--workers", "1", other, str(_free_port())], env=env,
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        try:  # (it exits of itself; one that serves instead is stopped, its children with it)
            server.wait(timeout=60)
        except subprocess.TimeoutExpired:
            pass
        output = stop(server) if server.returncode is None else server.communicate()[0]
    assert server.returncode == 1, output
    assert output == f"naipes serve: 127.0.0.1:{default} ({flag}, NAIPES_{flag[2:].replace('-', '_').upper()}) is in use: something listens there already\n", output


def test_an_empty_naipes_host_is_the_default_host() -> None:
    """NAIPES_HOST set but empty is unset, as NAIPES_REST_PORT's and the other variables' empty
    values are (``cli.env_setting``): the host is 127.0.0.1 (--help: "default: NAIPES_HOST, else
    127.0.0.1"). It was the empty host: ``naipes serve`` took it for the wildcard, and its gRPC
    server exited with a traceback ("host must not be empty"), as ``python -m service.grpc_server``
    did."""
    env = {**os.environ, "NAIPES_HOST": ""}
    with socket.socket() as other:
        other.bind(("127.0.0.1", 0))
        other.listen()
        taken = other.getsockname()[1]
        done = subprocess.run([NAIPES, "serve", "--workers", "1", "--rest-port", str(_free_port()), "--grpc-port", str(taken)],
                              cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 1, done.stderr
    assert done.stderr == f"naipes serve: 127.0.0.1:{taken} (--grpc-port, NAIPES_GRPC_PORT) is in use: something listens there already\n", done.stderr
    server, target, output = _grpc_server_alone("--port", "0", env=env)
    try:
        assert target.startswith("127.0.0.1:"), output
    finally:
        output += stop(server)
    assert server.returncode == 0, output


def test_grpc_server_alone_listens_where_the_environment_says() -> None:
    """``python -m service.grpc_server`` without arguments: its host and port from NAIPES_HOST
    and NAIPES_GRPC_PORT; it answers the health check and stops on SIGTERM."""
    port = _free_port()
    env = {**os.environ, "NAIPES_HOST": "127.0.0.1", "NAIPES_GRPC_PORT": str(port)}
    server, target, output = _grpc_server_alone(env=env)
    try:
        assert target == f"127.0.0.1:{port}", output
        with grpc.insecure_channel(target) as channel:
            answer = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(service="naipes.v1.NaipesService"), timeout=30)
            assert answer.status == health_pb2.HealthCheckResponse.SERVING
    finally:
        output += stop(server)
    assert server.returncode == 0, output


# A child process: the gRPC server's wait for a stop (``stop_signals``), with SIGTERM raised at the
# K-th line the main thread runs from the moment it starts waiting (a trace function), else sent by
# another thread after a second. It prints the number of lines it saw; a wait that hangs is killed
# by faulthandler, exit 1.
_STOP_AT_LINE = """
import faulthandler, os, signal, sys, threading
from service.grpc_server import stop_signals
faulthandler.dump_traceback_later(10, exit=True)
target, seen = int(sys.argv[1]), 0
def trace(frame, event, arg):
    global seen
    if event == "line":
        seen += 1
        if seen == target:
            signal.raise_signal(signal.SIGTERM)
    return trace
wait = stop_signals()
threading.Timer(1.0, os.kill, (os.getpid(), signal.SIGTERM)).start()
sys.settrace(trace)
got = wait()
sys.settrace(None)
print(got, seen)
"""


def test_the_grpc_server_stops_on_a_signal_whenever_it_arrives() -> None:
    """SIGTERM raised at each line the main thread runs while it waits for a stop. The handler
    set a threading.Event, and a signal that arrived inside that event's ``wait`` found its lock
    held by the main thread: the stop hung and the process ignored every later signal (a test
    saw a server killed 30 s after its SIGTERM, under load). Every such moment is a stop now."""
    def run(line: int) -> list[int]:
        done = subprocess.run([sys.executable, "-c", _STOP_AT_LINE, str(line)], cwd=ROOT, capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        return [int(x) for x in done.stdout.split()]
    signum, lines = run(0)  # (at no line: the other thread's signal; the lines of the wait and of the handler)
    assert signum == signal.SIGTERM and lines >= 2
    for line in range(1, lines + 1):
        signum, seen = run(line)
        assert signum == signal.SIGTERM and seen >= line


# A child process: the gRPC server's wait for a stop (``stop_signals``), with SIGINT or SIGTERM sent
# to another of its threads (grpcio's, say), which then runs the signal's C handler. It prints the
# signal the wait returned; a wait that hangs is killed by faulthandler, exit 1.
_STOP_ON_ANOTHER_THREAD = """
import faulthandler, signal, sys, threading
from service.grpc_server import stop_signals
faulthandler.dump_traceback_later(10, exit=True)
wait = stop_signals()
other = threading.Thread(target=threading.Event().wait, args=(60,), daemon=True)
other.start()
signal.pthread_kill(other.ident, int(sys.argv[1]))
print(wait())
"""


# A child process: the wait for a stop, with another signal that has a Python handler (SIGUSR1)
# and then SIGTERM both raised before it starts waiting, so that both numbers wait in its pipe.
_STOP_AFTER_ANOTHER_SIGNAL = """
import faulthandler, signal
from service.grpc_server import stop_signals
faulthandler.dump_traceback_later(10, exit=True)
wait = stop_signals()
signal.signal(signal.SIGUSR1, lambda _signum, _frame: None)
signal.raise_signal(signal.SIGUSR1)
signal.raise_signal(signal.SIGTERM)
print(wait())
"""


def test_the_grpc_server_stops_on_a_signal_that_came_after_another_one() -> None:
    """The pipe holds one byte per signal with a Python handler, in the order they came; the wait
    reads them one at a time, passing over another signal's (SIGUSR1 here) to the SIGTERM behind
    it. A wait that read them by two took the first alone and hung with the stop read and lost."""
    done = subprocess.run([sys.executable, "-c", _STOP_AFTER_ANOTHER_SIGNAL], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert int(done.stdout) == signal.SIGTERM


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=lambda s: s.name)
def test_the_grpc_server_stops_on_a_signal_another_thread_receives(signum: signal.Signals) -> None:
    """The kernel may hand a process's signal to any of its threads that does not block it (the
    gRPC server has a dozen, grpcio's and the thread pool's); Python runs the handler in the main
    thread only when that thread runs again, and the main thread waiting in its read of the pipe
    did not: the stop waited for anything else to wake it (seconds to never). The signal's C
    handler now writes the signal's number to the pipe itself (``signal.set_wakeup_fd``), on
    whatever thread it runs."""
    done = subprocess.run([sys.executable, "-c", _STOP_ON_ANOTHER_THREAD, str(int(signum))], cwd=ROOT, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    assert int(done.stdout) == signum


@pytest.mark.parametrize(("command", "name", "value"), [
    ((sys.executable, "-m", "service.grpc_server"), "NAIPES_GRPC_PORT", "abc"),
    ((sys.executable, "-m", "service.grpc_server"), "NAIPES_GRPC_PORT", "٣"),
    ((NAIPES, "serve"), "NAIPES_GRPC_PORT", "abc"),
    ((NAIPES, "serve"), "NAIPES_REST_PORT", "8o80"),
    ((NAIPES, "serve"), "NAIPES_WORKERS", "two"),
], ids=lambda v: v if isinstance(v, str) else v[-1])
def test_a_bad_setting_in_the_environment_is_a_usage_error(command, name, value) -> None:
    """A setting that is no integer is the command's usage error naming the variable, exit 2 (it
    was a ValueError's traceback, exit 1, for every naipes command); a command that does not read
    it runs, and an argument given on the command line is taken without reading the variable."""
    env = {**os.environ, name: value}
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert done.stderr.endswith(f"error: {name}: expected an integer, not '{value}'\n"), done.stderr
    assert subprocess.run([NAIPES, "rules", "rentoy"], env=env, capture_output=True, timeout=60).returncode == 0
    if command[-1] == "service.grpc_server":
        server, target, output = _grpc_server_alone("--port", "0", env=env)
        try:
            assert _grpc_health(target) == health_pb2.HealthCheckResponse.SERVING
        finally:
            output += stop(server)
        assert server.returncode == 0, output


@pytest.mark.parametrize("command", [(NAIPES, "serve"), (sys.executable, "-m", "service.grpc_server")], ids=lambda c: c[-1])
def test_a_bad_access_log_setting_is_a_usage_error(command) -> None:
    """NAIPES_ACCESS_LOG is 1 or 0 (true or false); anything else is the command's usage error
    naming it, exit 2, before anything starts."""
    done = subprocess.run(command, cwd=ROOT, env={**os.environ, "NAIPES_ACCESS_LOG": "yes please"}, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and done.stderr.endswith("error: NAIPES_ACCESS_LOG: expected 1 or 0 (or true or false), not 'yes please'\n"), done.stderr
    assert "Traceback" not in done.stderr and "listening" not in done.stderr, done.stderr


@pytest.mark.parametrize(("command", "name", "value", "why"), [
    ((NAIPES, "serve"), "NAIPES_STREAMS", "two", "expected an integer, not 'two'"),
    ((NAIPES, "serve"), "NAIPES_STREAM_WORKERS", "0", "0 is not a number of processes (1 or more)"),
    ((NAIPES, "serve"), "NAIPES_POOL_IDLE", "-5", "expected a number of seconds (0 or more, at most 31536000: a year), not '-5'"),
    ((NAIPES, "serve"), "NAIPES_BODY_SECONDS", "ten", "expected a number of seconds (0 or more, at most 31536000: a year), not 'ten'"),
    ((NAIPES, "serve"), "NAIPES_STREAM_IDLE_SECONDS", "inf", "expected a number of seconds (0 or more, at most 31536000: a year), not 'inf'"),
    # (past what a socket's timeout holds: every REST stream was a 500; a pool's wait, a traceback after each stream)
    ((NAIPES, "serve"), "NAIPES_STREAM_IDLE_SECONDS", "99999999999",
     "expected a number of seconds (0 or more, at most 31536000: a year), not '99999999999'"),
    ((NAIPES, "audit", "-"), "NAIPES_POOL_IDLE", "9223372037", "expected a number of seconds (0 or more, at most 31536000: a year), not '9223372037'"),
    ((NAIPES, "serve"), "NAIPES_BODY_SECONDS", "31536000.5", "expected a number of seconds (0 or more, at most 31536000: a year), not '31536000.5'"),
    ((NAIPES, "serve"), "NAIPES_COMPRESS_ANSWERS", "gzip", "expected 1 or 0 (or true or false), not 'gzip'"),
    ((NAIPES, "serve"), "NAIPES_GRPC_COMPRESSION", "br", "expected none, gzip or deflate, not 'br'"),
    ((sys.executable, "-m", "service.grpc_server"), "NAIPES_GRPC_COMPRESSION", "1", "expected none, gzip or deflate, not '1'"),
    ((NAIPES, "serve"), "NAIPES_GRPC_CONNECTION_AGE", "5m", "expected a number of seconds (0 or more, at most 31536000: a year), not '5m'"),
    ((NAIPES, "serve"), "NAIPES_STOP_SECONDS", "twenty", "expected a number of seconds (0 or more, at most 31536000: a year), not 'twenty'"),
    ((NAIPES, "serve"), "NAIPES_GRPC_CONNECTION_AGE", "0.001", "expected 0 (never) or a number of seconds from 1, not '0.001'"),
    ((sys.executable, "-m", "service.grpc_server"), "NAIPES_STOP_SECONDS", "1e3",
     "expected a number of seconds (0 or more, at most 31536000: a year), not '1e3'"),
    ((sys.executable, "-m", "service.grpc_server"), "NAIPES_GRPC_CONNECTION_AGE", "-1",
     "expected a number of seconds (0 or more, at most 31536000: a year), not '-1'"),
    ((sys.executable, "-m", "service.grpc_server"), "NAIPES_STREAMS", "0", "0 is not a number of streams (1 or more)"),
    ((sys.executable, "-m", "service.grpc_server"), "NAIPES_STREAM_IDLE_SECONDS", "ten", "expected a number of seconds (0 or more, at most 31536000: a year), not 'ten'"),
    ((sys.executable, "-m", "service.grpc_server"), "NAIPES_BODY_SECONDS", "ten", "expected a number of seconds (0 or more, at most 31536000: a year), not 'ten'"),
    ((NAIPES, "audit", "-"), "NAIPES_STREAM_WORKERS", "0", "0 is not a number of processes (1 or more)"),
    ((NAIPES, "audit", "-"), "NAIPES_STREAM_WORKERS", "two", "expected an integer, not 'two'"),
    ((NAIPES, "audit", "-"), "NAIPES_POOL_IDLE", "junk", "expected a number of seconds (0 or more, at most 31536000: a year), not 'junk'"),
], ids=lambda v: v if isinstance(v, str) and v.startswith("NAIPES") else None)
def test_a_bad_stream_or_body_setting_is_a_usage_error(command, name, value, why) -> None:
    """The streaming validator's and REST bodies' and answers' settings are checked as the server starts: a bad
    one is the command's usage error naming it, exit 2, before anything starts. (The processes read
    them as they need them: NAIPES_STREAMS=two was every stream's INTERNAL error, REST's 500 and
    gRPC's UNKNOWN, from a server that had started; NAIPES_BODY_SECONDS=ten a REST worker that
    could not start; NAIPES_STREAM_WORKERS=0 a pool of one process, for ``naipes audit`` too, which
    reads it and NAIPES_POOL_IDLE, and =two its traceback; NAIPES_POOL_IDLE=junk audit's traceback
    once every record was answered, exit 1.)"""
    done = subprocess.run(command, cwd=ROOT, env={**os.environ, name: value}, input="", capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and done.stderr.endswith(f"error: {name}: {why}\n"), done.stderr
    assert "Traceback" not in done.stderr and "listening" not in done.stderr, done.stderr


@pytest.mark.parametrize(("name", "value", "why"), [
    ("NAIPES_BODY_SECONDS", "ten", "expected a number of seconds (0 or more, at most 31536000: a year), not 'ten'"),
    ("NAIPES_STREAM_IDLE_SECONDS", "-1", "expected a number of seconds (0 or more, at most 31536000: a year), not '-1'"),
    ("NAIPES_STREAMS", "two", "expected an integer, not 'two'"),
    ("NAIPES_COMPRESS_ANSWERS", "yes", "expected 1 or 0 (or true or false), not 'yes'"),
])
def test_the_rest_app_made_without_naipes_serve_refuses_a_bad_setting_naming_it(monkeypatch, name, value, why) -> None:
    """gunicorn running ``service.rest:create_app()`` itself: a bad setting of the streams or the
    bodies stops the app being made, a ValueError naming the setting (naipes serve's usage error,
    above, comes first when it runs the app)."""
    from service import rest

    monkeypatch.setenv(name, value)
    with pytest.raises(ValueError) as refused:
        rest.create_app()
    assert str(refused.value) == f"{name}: {why}"


def test_a_rest_setting_does_not_stop_the_grpc_server_alone() -> None:
    """``python -m service.grpc_server`` serves no REST answers: a bad NAIPES_COMPRESS_ANSWERS is
    not its to refuse, and it serves. (NAIPES_STREAM_IDLE_SECONDS bounds its streams' pauses, and
    NAIPES_BODY_SECONDS the time its calls' requests take to come, as REST's: its own, above.)"""
    server, target, output = _grpc_server_alone("--port", "0", env={**os.environ, "NAIPES_COMPRESS_ANSWERS": "gzip"})
    try:
        status = _grpc_health(target)
    finally:
        output += stop(server)
    assert status == health_pb2.HealthCheckResponse.SERVING, output
    assert server.returncode == 0 and "Traceback" not in output, output


def test_grpc_server_alone_writes_the_access_log_the_environment_asks_for() -> None:
    """``NAIPES_ACCESS_LOG=1 python -m service.grpc_server``: a JSON line per call on stderr, the
    line alone (not in the format of the server's other log lines)."""
    server, target, output = _grpc_server_alone("--port", "0", env={**os.environ, "NAIPES_ACCESS_LOG": "1"})
    try:
        with grpc.insecure_channel(target) as channel:
            health = health_pb2_grpc.HealthStub(channel)
            health.Check(health_pb2.HealthCheckRequest(), metadata=(("x-request-id", "alone-1"),), timeout=30)
    finally:
        output += stop(server)
    assert server.returncode == 0, output
    (line,) = [json.loads(line) for line in output.splitlines() if line.startswith("{")]
    assert {k: line[k] for k in ("transport", "method", "code", "status", "requestId")} == {
        "transport": "grpc", "method": "Check", "code": "OK", "status": "OK", "requestId": "alone-1"}, line


@pytest.mark.parametrize(("value", "on"), [("1", True), ("true", True), (" True ", True), ("0", False), ("false", False), ("FALSE", False),
                                          ("", False)], ids=repr)
def test_the_access_log_setting_reads_1_or_0_true_or_false_in_any_case(value: str, on: bool) -> None:
    """NAIPES_ACCESS_LOG is 1 or 0, and ``true`` and ``false`` are read too (docs/api.md), in any
    case and with white space around them; empty is off: each turns the log on or off as it says
    (``python -m service.grpc_server`` reads it, as every serving process does)."""
    server, target, output = _grpc_server_alone("--port", "0", env={**os.environ, "NAIPES_ACCESS_LOG": value})
    try:
        assert _grpc_health(target) == health_pb2.HealthCheckResponse.SERVING
    finally:
        output += stop(server)
    assert server.returncode == 0, output
    lines = [json.loads(line) for line in output.splitlines() if line.startswith("{")]
    assert [(line["method"], line["code"]) for line in lines] == ([("Check", "OK")] if on else []), output


@pytest.mark.parametrize(("args", "env", "message"), [
    (("--rest-port", "70000"), {}, "argument --rest-port: 70000 is not a port (1 to 65535)"),
    (("--grpc-port", "0"), {}, "argument --grpc-port: 0 is not a port (1 to 65535)"),
    (("--rest-port", "-1"), {}, "argument --rest-port: -1 is not a port (1 to 65535)"),
    (("--workers", "0"), {}, "argument --workers: 0 is not a number of workers (1 or more)"),
    ((), {"NAIPES_REST_PORT": "65536"}, "NAIPES_REST_PORT: 65536 is not a port (1 to 65535)"),
    ((), {"NAIPES_WORKERS": "-2"}, "NAIPES_WORKERS: -2 is not a number of workers (1 or more)"),
], ids=lambda v: " ".join(v) if isinstance(v, tuple) else "+".join(f"{k}={x}" for k, x in v.items()) if isinstance(v, dict) else None)
def test_serve_refuses_a_port_or_a_number_of_workers_out_of_range(args, env, message) -> None:
    """naipes serve's ports are from 1 to 65535 (a port beyond was gunicorn's traceback after the
    gRPC server had started; 0, any free port, left it waiting for port 0 to answer, never ready)
    and it has one worker or more (0 or fewer was served by one, silently): a usage error, exit 2,
    before anything starts."""
    done = subprocess.run([NAIPES, "serve", *args], cwd=ROOT, env={**os.environ, **env}, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and done.stderr.endswith(f"error: {message}\n"), done.stderr
    assert "Traceback" not in done.stderr and "listening" not in done.stderr, done.stderr


@pytest.mark.parametrize(("host", "why"), [("no.such.host.invalid", None), ("192.0.2.1", "Cannot assign requested address"),
                                           ("", "no host given (0.0.0.0 or :: for every interface)")])
def test_serve_refuses_a_host_it_cannot_listen_on(host, why) -> None:
    """A name that does not resolve, an address of another machine (192.0.2.1, TEST-NET-1) or no
    host at all (``--host ''``): a message naming --host and why, exit 1, before anything starts.
    (The first was gunicorn's retries for 5 seconds and its error after the gRPC server had
    started; the second could be taken for a port in use; the third passed the check, as the
    wildcard, and the gRPC server's traceback followed, "host must not be empty".)"""
    done = subprocess.run([NAIPES, "serve", "--host", host, "--rest-port", str(_free_port()), "--grpc-port", str(_free_port())],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 1 and done.stderr.startswith(f"naipes serve: host {host} (--host, NAIPES_HOST): "), done.stderr
    assert why is None or done.stderr == f"naipes serve: host {host} (--host, NAIPES_HOST): {why}\n", done.stderr
    assert "listening" not in done.stderr and "Traceback" not in done.stderr, done.stderr


def _grpc_health(target: str) -> int:
    """The health check's status of the gRPC server at ``target``, once it answers (30 s at most)."""
    with grpc.insecure_channel(target) as channel:
        return int(health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=30, wait_for_ready=True).status)


def _ipv6_loopback() -> bool:
    try:
        with socket.socket(socket.AF_INET6) as probe:
            probe.bind(("::1", 0))
        return True
    except OSError:
        return False


@pytest.mark.skipif(not _ipv6_loopback(), reason="this machine has no IPv6 loopback")
def test_serve_listens_on_an_ipv6_address() -> None:
    """--host ::1 (or ::): both servers listen on it (gunicorn and gRPC were given ':::PORT',
    which gRPC could not read: a traceback), and the ready line writes it in brackets."""
    rest_port, grpc_port = _free_port(), _free_port()
    server = subprocess.Popen([NAIPES, "serve", "--host", "::1", "--rest-port", str(rest_port), "--grpc-port", str(grpc_port), "--workers", "1"],
                              cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    output = ""
    try:
        output = "".join(read_until(server, _ready))
        ready = output.splitlines()[-1]
        assert f"REST on http://[::1]:{rest_port} (gunicorn, 1 worker), gRPC on [::1]:{grpc_port} (1 process)" in ready, ready
        assert requests.get(f"http://[::1]:{rest_port}/healthz", timeout=10).json() == {"status": "SERVING"}
        assert _grpc_health(f"[::1]:{grpc_port}") == health_pb2.HealthCheckResponse.SERVING
    finally:
        output += stop(server)
    assert server.returncode == 0, output


def test_grpc_server_alone_takes_port_0_and_logs_the_port_it_got() -> None:
    """python -m service.grpc_server --port 0 listens on a free port and logs it (a test's or a
    supervisor's way to run it); beyond 65535 is a usage error, exit 2."""
    command = (sys.executable, "-m", "service.grpc_server")
    done = subprocess.run([*command, "--port", "65536"], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and done.stderr.endswith("error: argument --port: 65536 is not a port (0 to 65535; 0: any free port)\n")
    server, target, output = _grpc_server_alone("--port", "0")
    try:
        host, port = target.rsplit(":", 1)
        assert host == "127.0.0.1" and int(port) > 0, output
        assert _grpc_health(target) == health_pb2.HealthCheckResponse.SERVING
    finally:
        output += stop(server)
    assert server.returncode == 0, output


def test_grpc_server_alone_stops_on_sigterm_saying_how_many_unary_calls_it_answered() -> None:
    """The gRPC process's last line, once SIGTERM has stopped it (exit 0), counts the unary
    NaipesService calls it answered, an error's answer too, and neither the health checks nor
    the streams: the benchmark reads it to see how ``naipes serve --workers N`` spread the
    connections over its processes (bench/run.py, ``answered (\\d+) unary calls``)."""
    from google.protobuf import json_format

    from naipes.v1 import naipes_pb2 as pb
    from naipes.v1 import naipes_pb2_grpc

    record, _ = load_example(rentoy_examples()[0])
    server, target, output = _grpc_server_alone("--port", "0")
    try:
        assert _grpc_health(target) == health_pb2.HealthCheckResponse.SERVING
        with grpc.insecure_channel(target) as channel:
            stub = naipes_pb2_grpc.NaipesServiceStub(channel)
            assert stub.DescribeRules(pb.DescribeRulesRequest(game="rentoy"), timeout=30).game == "rentoy"
            with pytest.raises(grpc.RpcError):
                stub.DescribeRules(pb.DescribeRulesRequest(game="chess"), timeout=30)
            message = pb.ValidateHandsRequest(id="1", record=json_format.ParseDict(record, pb.HandRecord()))
            assert [a.id for a in stub.ValidateHands(iter([message]), timeout=60)] == ["1"]
    finally:
        output += stop(server)
    assert server.returncode == 0, output
    assert output.splitlines()[-1].endswith(f" naipes.grpc INFO gRPC stopped: process {server.pid} answered 2 unary calls"), output


def test_grpc_server_alone_lets_a_stream_in_progress_finish_once_stopped() -> None:
    """SIGTERM stops the gRPC process with a grace period (``server.stop(grace=2)``): it takes no
    new call from then on (a new connection's health check fails), but a stream in progress goes
    on, its next record answered and its end OK, before the process exits 0. A stop without grace
    cancelled it at once; no test held a call open across the stop."""
    from google.protobuf import json_format

    from naipes.v1 import naipes_pb2 as pb
    from naipes.v1 import naipes_pb2_grpc

    record, _ = load_example(rentoy_examples()[0])
    message = json_format.ParseDict(record, pb.HandRecord())
    server, target, output = _grpc_server_alone("--port", "0")
    second = threading.Event()

    def records() -> Iterator[pb.ValidateHandsRequest]:
        yield pb.ValidateHandsRequest(id="before", record=message)
        assert second.wait(30)
        yield pb.ValidateHandsRequest(id="after", record=message)

    try:
        with grpc.insecure_channel(target) as channel:
            answers = naipes_pb2_grpc.NaipesServiceStub(channel).ValidateHands(records(), timeout=60)
            assert next(answers).id == "before"
            server.send_signal(signal.SIGTERM)
            deadline = time.monotonic() + 1.5  # (within the grace)
            while time.monotonic() < deadline:
                with grpc.insecure_channel(target) as fresh:
                    try:
                        health_pb2_grpc.HealthStub(fresh).Check(health_pb2.HealthCheckRequest(), timeout=0.5)
                    except grpc.RpcError:
                        break  # the server has stopped taking calls
            else:
                pytest.fail("the server still takes new calls after SIGTERM")
            second.set()
            assert [a.id for a in answers] == ["after"]
            assert answers.code() == grpc.StatusCode.OK
    finally:
        second.set()
        output += stop(server)
    assert server.returncode == 0, output


def test_the_grpc_server_runs_grpcio_on_its_own_poller_unless_the_environment_says_otherwise() -> None:
    """Importing ``service`` sets GRPC_EXPERIMENTS before grpc reads it (as grpc is imported: the
    gRPC processes of ``naipes serve``, ``python -m service.grpc_server``) unless the environment
    sets it, empty included; the installed grpcio knows every experiment it names, since an
    unknown one is an error line at every start (shown by one that is unknown)."""
    import service

    code = ("import os, service, grpc; from concurrent import futures; server = grpc.server(futures.ThreadPoolExecutor(1)); "
            "server.add_insecure_port('127.0.0.1:0'); server.start(); server.stop(None); print(repr(os.environ['GRPC_EXPERIMENTS']))")
    env = {k: v for k, v in os.environ.items() if k != "GRPC_EXPERIMENTS"}
    for given, expected in ((None, service.GRPC_EXPERIMENTS), ("", ""), ("-no_such_experiment", "-no_such_experiment")):
        done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env if given is None else {**env, "GRPC_EXPERIMENTS": given},
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 0 and done.stdout == f"{expected!r}\n", done.stderr
        assert ("Unknown experiment: no_such_experiment" in done.stderr) == (given == "-no_such_experiment"), done.stderr
        assert "experiment" not in done.stderr.lower() or given, done.stderr


def test_integer_arguments_are_ascii_digits() -> None:
    """As the API reads an integer given as a string: int() alone read '٣' as 3. The message names
    the argument once (it read "argument --seats: value: expected an integer", a field "value"
    that no argument has)."""
    record, _ = load_example(rentoy_examples()[0])
    for args in (("legal", "-", "--seat", "٣"), ("deal", "--seats", "４"), ("deal", "--dealer", "+1")):
        done = naipes(*args, stdin=json.dumps(record))
        assert done.returncode == 2 and f"error: argument {args[-2]}: expected an integer, not '{args[-1]}'\n" in done.stderr, done.stderr
    # beyond an int32 (the fields they fill): an INTERNAL error and exit 3, from protobuf's ValueError
    for args in (("legal", "-", "--seat", "100000000000"), ("deal", "--seats", "100000000000"), ("deal", "--dealer", "-2147483649")):
        done = naipes(*args, stdin=json.dumps(record))
        assert done.returncode == 2 and done.stderr.endswith(f"error: argument {args[-2]}: {args[-1]} is out of range\n"), done.stderr
    done = naipes("deal", "--seats", "1" + "0" * 30)
    assert done.returncode == 2 and "error: argument --seats: " in done.stderr and " is out of range" in done.stderr, done.stderr
    assert naipes("deal", "--seats", "4", "--dealer", "-0", "--seed", "x").returncode == 0


def test_with_stderr_closed_nothing_but_answers_goes_to_stdout(tmp_path) -> None:
    """README: stdout carries the answers, errors and the audit's summary go to stderr. Started with
    stderr closed (2>&-), print(file=sys.stderr) wrote to stdout: a problem JSON where an answer is
    looked for, and an audit's summary as the last line of its NDJSON."""
    record = json.loads((ROOT / "clients" / "examples" / "rentoy-hand.json").read_text())
    archive = tmp_path / "one.ndjson"
    archive.write_text(json.dumps(record) + "\n")
    (tmp_path / "bad.json").write_text("nope")
    for command, status, lines in ((f"{NAIPES} deal --seats 3 --seed a", 2, 0), (f"{NAIPES} validate {tmp_path / 'bad.json'}", 2, 0),
                                   (f"{NAIPES} audit {archive}", 0, 1)):
        done = subprocess.run(["bash", "-c", f"{command} 2>&-"], cwd=ROOT, capture_output=True, text=True, timeout=60)
        assert done.returncode == status, (command, done.stdout)
        assert len(done.stdout.splitlines()) == lines and all("result" in json.loads(line) for line in done.stdout.splitlines()), command


def test_validate_and_legal_print_the_bytes_rest_answers(http, rest_url) -> None:
    """cli.py: every answer is printed as the REST API answers it, to the byte: validate and legal
    printed the message's JSON, its keys in the schema's order, where REST (and naipes audit) keep
    the engine's (the same JSON, other bytes)."""
    from examples_support import examples_dir

    for path in [*sorted(examples_dir().glob("*.json")), *sorted((ROOT / "clients" / "examples").glob("*-hand.json"))]:
        data = json.loads(path.read_text())
        record = data.get("record", data)
        done = subprocess.run([NAIPES, "validate", str(path)], cwd=ROOT, capture_output=True, timeout=60)
        answer = http.post(rest_url + "/v1/hands:validate", json=record, timeout=30)
        assert done.stdout == answer.content, path.name
        for seat in (None, 1):
            done = subprocess.run([NAIPES, "legal", str(path), *(["--seat", str(seat)] if seat is not None else [])], cwd=ROOT,
                                  capture_output=True, timeout=60)
            answer = http.post(rest_url + "/v1/hands:legalActions", json=record, params={} if seat is None else {"seat": seat}, timeout=30)
            assert done.stdout == answer.content, (path.name, seat)


@pytest.mark.parametrize("key", ["rules", "omitEvents", "seats"])
def test_a_samples_field_beside_its_record_and_expect_is_refused(key, tmp_path) -> None:
    """records/examples/README.md: a sample is {"record": ..., "expect": ...}; a record's field given
    beside the record (rules, seats) or a request's (omitEvents) was ignored, silently: the record
    validated under the default rules, with its events."""
    record = json.loads((ROOT / "clients" / "examples" / "rentoy-hand.json").read_text())
    path = tmp_path / "sample.json"
    path.write_text(json.dumps({"record": record, key: {"noSuchOption": True} if key == "rules" else True}))
    done = subprocess.run([NAIPES, "validate", str(path)], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout) == (2, "")
    problem = json.loads(done.stderr)
    assert (problem["code"], problem["field"]) == ("INVALID_FIELD", key)
    assert problem["detail"] == f"{key}: unknown field '{key}' of a sample (record and expect: a record's own fields go inside it)"
