"""The docs say what the code does: the error table of docs/api.md is the service's table, the
options table of each docs/rules page and the option amounts of docs/rules/revesino.md are the
engine's, README's API table is the schema's routes, the metrics and access log tables are
service/metrics.py's and service/access.py's, and every limit or default the docs give a number
is the code's (``limits``)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from engine import api
from engine.errors import VIOLATION_CODES
from service.errors import ERRORS

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
README = ROOT / "README.md"


def joined(path: Path) -> str:
    """A doc's text with its lines joined: a phrase may be wrapped anywhere."""
    return " ".join(path.read_text().split())


def test_api_doc_lists_every_error_with_its_statuses_and_title() -> None:
    """The title is the problem JSON's ``title``: this page is what pins it (the answers' tests read it
    from the table)."""
    text = (DOCS / "api.md").read_text()
    rows = {m[0]: (int(m[1]), m[2], m[3]) for m in re.findall(r"^\| `(\w+)` \| (\d+) \| `(\w+)` \| ([^|`]+?) \|", text, re.M)}
    assert rows == {code: (kind.http_status, kind.grpc_code.name, kind.title) for code, kind in ERRORS.items()}


def test_api_doc_lists_every_violation_code() -> None:
    text = (DOCS / "api.md").read_text()
    for code in VIOLATION_CODES:
        assert f"| `{code}` |" in text


def shown(value: object) -> str:
    """An option value as the docs' tables write it: JSON (``true``, ``"oros"``, ``5``)."""
    return json.dumps(value)


@pytest.mark.parametrize("game", ["tresillo", "revesino", "rentoy"])
def test_rules_doc_lists_every_option_with_its_default_values_and_rule(game: str) -> None:
    """docs/rules/<game>.md's options table has a row for every option DescribeRules lists, no
    other, each with its default, its other values (a range of amounts as ``1``–``50``, Tresillo's
    enchilada as multiples of 5) and the rule it settles (a section as ``§4``)."""
    text = (DOCS / "rules" / f"{game}.md").read_text()
    rows = {m[0]: m[1:] for m in re.findall(r"^\| `(\w+)` \| `([^`|]+)` \| ([^|]+) \| ([^|]+) \| [^|]+ \|$", text, re.M)}
    options = api.describe_rules(game)["options"]
    assert sorted(rows) == sorted(o["name"] for o in options)
    for option in options:
        default, others, rule = rows[option["name"]]
        assert default == shown(option["default"]), option["name"]
        assert rule.lstrip("§") == option["rule"], option["name"]
        rest = [c for c in option["choices"] if c != option["default"]]
        span = re.fullmatch(r"`(\d+)`–`(\d+)`(, multiples of 5)?", others)
        if span:
            low, high, step = int(span[1]), int(span[2]), 5 if span[3] else 1
            assert set(range(low, high + 1, step)) in (set(rest), set(option["choices"])), option["name"]
        else:
            assert others == (", ".join(f"`{shown(c)}`" for c in rest) or "none"), option["name"]


def test_revesino_doc_gives_each_amount_option_its_values() -> None:
    """docs/rules/revesino.md's "Option amounts": the range (``1–50``) or the alternatives
    (``4 or 0``) of every integer option are the values DescribeRules offers, and a record's rules
    may set each of them."""
    from engine.options import parse_options, snake
    from engine.revesino_options import Options

    text = (DOCS / "rules" / "revesino.md").read_text()
    amounts = re.search(r"^\*\*Option amounts\.\*\*(.*?)\n\n", text, re.M | re.S)
    assert amounts
    said = {}
    for name, low, high, either, other in re.findall(r"`(\w+)` (?:(\d+)–(\d+)|(?:is )?(\d+) or (\d+))", amounts[1]):
        said[name] = list(range(int(low), int(high) + 1)) if low else [int(either), int(other)]
    offered = {o["name"]: o["choices"] for o in api.describe_rules("revesino")["options"] if type(o["default"]) is int}
    assert said == offered
    for name, values in said.items():
        for value in values:
            assert getattr(parse_options(Options, {name: value}), snake(name)) == value


def test_format_doc_is_the_shared_contract_with_its_decisions_marked() -> None:
    """docs/format.md is records/FORMAT.md of the shared specification: each of its paragraphs
    (tables and examples included) is there, and each paragraph of the project's copy that is not
    the contract's is its title comment, a link to the project's rules docs where the contract
    points at ../rules/, or a Naipes decision saying so."""
    from examples_support import examples_dir

    shared = (examples_dir().parent / "FORMAT.md").read_text().split("\n\n")
    ours = (DOCS / "format.md").read_text().split("\n\n")
    missing = [p for p in shared if p not in ours and "../rules/" not in p]
    assert missing == []
    added = [p for p in ours if p not in shared and not p.startswith("<!--") and "](rules/" not in p and "(A Naipes decision" not in p]
    assert added == []


def test_api_doc_names_every_media_type_the_rest_api_reads() -> None:
    from service import rest

    text = (DOCS / "api.md").read_text()
    row = next(line for line in text.splitlines() if line.startswith("| `UNSUPPORTED_MEDIA_TYPE` |"))
    assert all(f"`{media}`" in row for media in rest._NDJSON_TYPES), row
    assert rest._JSON_TYPES.match("application/problem+json") and "`application/*+json`" in row


def test_deal_doc_gives_the_algorithm_as_a_deal_answer_names_it() -> None:
    text = joined(DOCS / "deal.md")
    algorithm = api.deal({"game": "rentoy", "seats": 4, "dealer": 0, "seed": "s"})["algorithm"]
    assert f"`{algorithm}`" in text and f"`{algorithm.split(':')[0]}`" in text


def test_readme_api_table_gives_every_rpc_its_route() -> None:
    """README's "The API": every RPC with the verb and path of its google.api.http annotation, which
    service/rest.py makes its route."""
    from service.rest import http_routes

    rows = dict(re.findall(r"^\| `(\w+)` \| `(\w+ /[^`\[]+)", README.read_text(), re.M))
    assert rows == {route.method.name: f"{route.verb} {route.template}" for route in http_routes()}


def test_api_doc_lists_every_metric_with_its_type_and_labels() -> None:
    from prometheus_client.metrics import MetricWrapperBase

    from service import metrics

    text = (DOCS / "api.md").read_text()
    rows = {m[0]: (m[1], m[2].strip()) for m in re.findall(r"^\| `(naipes_\w+)` \| (\w+) \|([^|]*)\|", text, re.M)}
    made = {m._name + ("_total" if m._type == "counter" else ""): (m._type, ", ".join(f"`{label}`" for label in m._labelnames))
            for m in vars(metrics).values() if isinstance(m, MetricWrapperBase)}
    assert rows == made
    assert f"(`{metrics.CONTENT_TYPE}`" in joined(DOCS / "api.md")


def test_api_doc_gives_an_access_line_its_fields_in_order() -> None:
    """The access log's table names a line's fields in the order service/access.py writes them, and
    the example line is the line of the call it describes."""
    from datetime import datetime

    from service import access

    text = (DOCS / "api.md").read_text()
    table = re.search(r"^\| field \| what \|\n\|---\|---\|\n((?:\|.*\n)+)", text, re.M)
    assert table
    rest = json.loads(access.line(0.0, "rest", "ValidateHands", "POST /v1/hands:validateStream", "OK", 200, 1.5, 3, "127.0.0.1:1", "a"))
    assert re.findall(r"^\| `(\w+)` \|", table[1], re.M) == list(rest)
    grpc = json.loads(access.line(0.0, "grpc", "Check", None, "OK", "OK", 0.1, None, "ipv6:[::1]:42546", None))
    assert list(grpc) == [field for field in rest if field not in ("http", "records", "requestId")] and grpc["peer"] == "[::1]:42546"
    shown = json.loads(next(line for line in text.splitlines() if line.startswith('{"time"') and '"transport"' in line))
    ended = datetime.fromisoformat(shown["time"].replace("Z", "+00:00")).timestamp()
    made = access.line(ended, shown["transport"], shown["method"], shown["http"], shown["code"], shown["status"], shown["ms"] / 1000, None,
                       shown["peer"], shown["requestId"])
    assert json.loads(made) == shown


WORDS = {"a": 1, "two": 2, "four": 4}


def limits() -> list[tuple[str, str, tuple[float, ...]]]:
    """(doc, phrase, values): each number a doc states of a limit or a default, as the phrase's
    groups, and the code's value of it."""
    import inspect
    import sys

    from gunicorn.config import Config

    from engine.record import MAX_ACTIONS
    from service import access, cli, codings, cors, grpc_server, metrics, rest, rest_worker, stream, watchdog
    from service.errors import MAX_REQUEST_BYTES

    sys.path.insert(0, str(ROOT / "clients" / "python"))
    import naipes_client

    mib = 1 << 20
    serve = {dest: default for dest, _, default, _ in cli.SERVE_SETTINGS}
    gunicorn = Config()
    timeout = {cls: inspect.signature(cls).parameters["timeout"].default for cls in (naipes_client.RestClient, naipes_client.GrpcClient)}
    js_timeout = re.search(r"timeoutMs = ([\d_]+)", (ROOT / "clients" / "js" / "naipes.mjs").read_text())
    assert js_timeout
    request_id = re.search(r"\{1,(\d+)\}", access.ID.pattern)
    assert request_id
    return [
        ("README.md", r"REST on http://127\.0\.0\.1:(\d+), gRPC on 127\.0\.0\.1:(\d+)", (serve["rest_port"], serve["grpc_port"])),
        ("README.md", r"`--workers N` \(default (\d+)\)", (serve["workers"],)),
        ("README.md", r"no stream has used for (\d+) minutes", (stream.POOL_IDLE / 60,)),
        ("README.md", r"validates (\d+) streams at a time", (stream.STREAMS,)),
        ("README.md", r"record\": \.\.\.}`, at most (\d+)\)", (stream.MAX_BATCH,)),
        ("README.md", r"\((\d+) times at most\)", (naipes_client.STREAM_RETRIES,)),
        ("README.md", r"that long and (\d+) ms more a record of its request, which holds ([\d,]+) records at most",
         (naipes_client.REST_SECONDS_A_RECORD * 1000, naipes_client.REST_CHUNK)),
        ("api.md", r"that long and (\d+) ms more a record of its request", (naipes_client.REST_SECONDS_A_RECORD * 1000,)),
        ("README.md", r"RestClient\(url, timeout=([\d.]+)\)", (timeout[naipes_client.RestClient],)),
        ("README.md", r"GrpcClient\(target, timeout=([\d.]+)\)", (timeout[naipes_client.GrpcClient],)),
        ("README.md", r"timeoutMs: (\d+) \}", (int(js_timeout[1].replace("_", "")),)),
        ("api.md", r"validates (\d+) streams at a time", (stream.STREAMS,)),
        ("api.md", r"(\d+) slots, `NAIPES_STREAMS`", (stream.STREAMS,)),
        ("api.md", r"kept by the browser (\d+) s", (cors.MAX_AGE,)),
        ("api.md", r"is over ([\d,]+) bytes \|", (gunicorn.limit_request_line,)),
        ("api.md", r"or over ([\d,]+) bytes \(`URI_TOO_LONG`\)", (gunicorn.limit_request_line,)),
        ("api.md", r"a header line over ([\d,]+) bytes with its CRLF \(its name, colon and value over ([\d,]+)\), or more than (\d+) headers",
         (gunicorn.limit_request_field_size, gunicorn.limit_request_field_size - 2, gunicorn.limit_request_fields)),
        ("api.md", r"after ([\d,]+) bytes \((\d+) headers of ([\d,]+) bytes",
         (gunicorn.limit_request_fields * (gunicorn.limit_request_field_size + 2) + 4, gunicorn.limit_request_fields,
          gunicorn.limit_request_field_size)),
        ("api.md", r"more than ([\d,]+) actions", (MAX_ACTIONS,)),
        ("api.md", r"a record to ([\d,]+) actions", (MAX_ACTIONS,)),
        ("api.md", r"a batch (?:of more than|over) ([\d,]+) records", (stream.MAX_BATCH,)),
        ("api.md", r"limited to (\d+) MiB on both transports", (MAX_REQUEST_BYTES / mib,)),
        ("api.md", r"(?:NDJSON line|gRPC message|unary gRPC request) over (\d+) MiB", (MAX_REQUEST_BYTES / mib,)),
        ("api.md", r"message past ([\d.]+) MiB", (grpc_server.MESSAGE_CEILING / mib,)),
        ("api.md", r"within (\d+) seconds of the server starting to read it", (rest.BODY_SECONDS,)),
        ("api.md", r"request message did not come within (\d+) seconds of the call opening", (watchdog.BODY_SECONDS,)),
        ("api.md", r"request\s+message has not come within (\d+) seconds of its opening", (watchdog.BODY_SECONDS,)),
        ("api.md", r"the request did not come within\s+(\d+) seconds: the call ended", (watchdog.BODY_SECONDS,)),
        ("api.md", r"pause at most (\d+) seconds between two reads", (stream.IDLE_SECONDS,)),
        ("api.md", r"sends no message for (\d+) seconds", (stream.IDLE_SECONDS,)),
        ("README.md", r"have\s+paused (\d+) seconds", (naipes_client.PAUSE_SECONDS,)),
        ("README.md", r"each answer within\s+([\d.]+) seconds of its line", (cli.AUDIT_FLUSH_SECONDS,)),
        ("README.md", r"sends nothing for\s+(\d+) seconds, `NAIPES_STREAM_IDLE_SECONDS", (stream.IDLE_SECONDS,)),
        ("api.md", r"stream sent nothing for (\d+) seconds:\s+the messages before", (stream.IDLE_SECONDS,)),
        ("api.md", r"a stream sent nothing for (\d+) seconds, its body", (stream.IDLE_SECONDS,)),
        ("api.md", r"takes none of its\s+answers for (\d+) seconds while the server waits", (stream.IDLE_SECONDS,)),
        ("api.md", r"it may wait (\d+) seconds\s+and a second more for every (\d+) KiB of it", (stream.IDLE_SECONDS, grpc_server.UNREAD_BYTES_PER_SECOND / 1024)),
        ("api.md", r"took no answer for (\d+) seconds while the server waited to send it one \(REST: [^;]*; gRPC: a second more for every (\d+) KiB",
         (stream.IDLE_SECONDS, grpc_server.UNREAD_BYTES_PER_SECOND / 1024)),
        ("api.md", r"has sent nothing for (\d+) seconds", (rest_worker.LINGER_IDLE_SECONDS,)),
        ("api.md", r"for (\d+) seconds and (\d+) MiB at most", (rest_worker.LINGER_SECONDS, rest_worker.LINGER_BYTES / mib)),
        ("api.md", r"up to (\d+) MiB of it", (rest_worker.LINGER_BYTES / mib,)),
        ("api.md", r"skipped for (\d+) MiB at most", (codings.SKIP_BYTES / mib,)),
        ("api.md", r"within (\d+) bytes: the stream ends here", (codings.SKIP_BYTES,)),
        ("api.md", r"blank lines come to\s+more than (\d+) bytes beyond", (stream.BLANK_BYTES,)),
        ("api.md", r"lines and (\d+) KiB besides", (stream.BLANK_BYTES / 1024,)),
        ("api.md", r"once (\d+) KiB more of them", (stream.BLANK_BYTES / 1024,)),
        ("api.md", r"bounded by its bytes as sent: ([\d,]+) records and (\d+) more a byte", (stream.RECORDS_ALLOWED, stream.RECORDS_PER_BYTE)),
        ("api.md", r"records outnumber ([\d,]+)\s+and (\d+) a byte of it sent", (stream.RECORDS_ALLOWED, stream.RECORDS_PER_BYTE)),
        ("api.md", r"compressed one's records more than ([\d,]+) and (\d+) a byte sent", (stream.RECORDS_ALLOWED, stream.RECORDS_PER_BYTE)),
        ("api.md", r"larger than (\d+)\s+bytes once decoded", (MAX_REQUEST_BYTES,)),
        ("api.md", r"A gunicorn worker has (\w+) threads", (cli.REST_THREADS,)),
        ("api.md", r"(\d+) calls at a time", (grpc_server.MAX_CALLS,)),
        ("api.md", r"(?:each of the|count toward the) (\d+)", (grpc_server.MAX_CALLS,)),
        ("api.md", r"buckets ([\d.]+) ms to (\d+) s", (metrics.BUCKETS[0] * 1000, metrics.BUCKETS[-1])),
        ("api.md", r"(\w+) times a second", (1 / metrics.FLUSH_SECONDS,)),
        ("api.md", r"(\w+) times a second", (1 / access.WRITE_SECONDS,)),
        ("api.md", r"([\d,]+) lines at most \(`QUEUED_AT_MOST`", (access.QUEUED_AT_MOST,)),
        ("api.md", r"An ID is 1 to (\d+) visible ASCII characters", (int(request_id[1]),)),
        ("api.md", r"(\d+) seconds by default", (timeout[naipes_client.RestClient],)),
    ]


LIMITS = limits()


@pytest.mark.parametrize("doc, phrase, values", LIMITS, ids=[f"{doc}: {' '.join(re.findall(r'[A-Za-z]+', phrase)[:6])}" for doc, phrase, _ in LIMITS])
def test_docs_state_the_limits_and_defaults_of_the_code(doc: str, phrase: str, values: tuple[float, ...]) -> None:
    """Every place a doc gives one of these numbers (a limit, a default, a bound) gives the code's."""
    said = re.findall(phrase, joined(README if doc == "README.md" else DOCS / doc))
    assert said, phrase
    for found in said:
        numbers = [WORDS[n] if n in WORDS else float(n.replace(",", "")) for n in ((found,) if isinstance(found, str) else found)]
        assert numbers == [float(v) for v in values], (phrase, found)


def test_tresillo_doc_gives_the_options_values_the_engine_offers() -> None:
    """docs/rules/tresillo.md's "Options": ``estucheCap`` takes 5, 9 or 12; the values the spec leaves
    undefined are not offered (``bolaFailure: "net"``, ``defenceOrder`` and ``enchiladaPayer``
    other than their defaults); ``surrenderedVueltaRounding`` is ``asFavorRounding`` unless set to
    ``doubleOfRounded``."""
    text = joined(DOCS / "rules" / "tresillo.md")
    offered = {o["name"]: (o["default"], o["choices"]) for o in api.describe_rules("tresillo")["options"]}
    cap = re.search(r"`estucheCap` takes (\d+) \(the rulebook\), (\d+) or (\d+)", text)
    assert cap and offered["estucheCap"] == (int(cap[1]), [int(cap[1]), int(cap[2]), int(cap[3])])
    assert 'not offered: `bolaFailure: "net"`' in text and "net" not in offered["bolaFailure"][1]
    assert "`defenceOrder` and `enchiladaPayer` other than their defaults" in text
    assert [offered[name][1] for name in ("defenceOrder", "enchiladaPayer")] == [[offered[name][0]] for name in ("defenceOrder", "enchiladaPayer")]
    rounding = re.search(r"\*\*`surrenderedVueltaRounding`\*\*, default `(\w+)` .*?, or `(\w+)` \(always", text)
    assert rounding and offered["surrenderedVueltaRounding"] == (rounding[1], [rounding[1], rounding[2]])


GAMES = ("Tresillo", "Revesino", "Rentoy")


def proto_field_comments(message: str) -> dict[str, str]:
    """Each field of a message of the proto, by its JSON name, with its leading comment."""
    text = (ROOT / "protos" / "naipes" / "v1" / "naipes.proto").read_text()
    body = re.search(rf"^message {message} \{{\n(.*?)^\}}", text, re.M | re.S)
    assert body, message
    fields: dict[str, str] = {}
    comment: list[str] = []
    for line in body[1].splitlines():
        line = line.strip()
        if line.startswith("//"):
            comment.append(line[2:].strip())
            continue
        field = re.match(r"(?:optional |repeated )?[\w.]+ (\w+) = \d+", line)
        if field:
            json_name = re.sub(r"_(\w)", lambda m: m[1].upper(), field[1])
            fields[json_name] = " ".join(comment)
        comment = []
    return fields


def played_fields(game: str, hands: int = 12) -> tuple[set[str], set[str]]:
    """The fields of the validation results and of the seats' views of random hands of ``game``,
    at every action (each hand dealt from a seed, each action a random legal one)."""
    import random

    chance = random.Random(f"fields of {game}")
    results: set[str] = set()
    views: set[str] = set()
    seats = {"tresillo": (3, 4), "revesino": (4,), "rentoy": (2, 4)}[game]
    for hand in range(hands):
        table = seats[hand % len(seats)]
        record = {"game": game, "seats": table, "dealer": hand % table, "deal": {"seed": f"{game}-{hand}"}, "actions": []}
        while True:
            result = api.validate(record)
            results |= set(result)
            for seat in range(table):
                views |= set(api.legal_actions(record, seat).get("view", {}))
            if result["finished"]:
                break
            record["actions"].append(chance.choice(result["next"]["legal"]))
    return results, views


@pytest.mark.parametrize("game", ["tresillo", "revesino", "rentoy"])
def test_proto_comments_name_every_game_that_sets_a_field(game: str) -> None:
    """A field of the validation result or of a seat's view whose comment in the proto names the
    games it is for (``Tresillo: the phase``) is set only in those games' answers: the comment is
    what the OpenAPI document and the TypeScript types say of it."""
    results, views = played_fields(game)
    for message, seen in (("ValidationResult", results), ("View", views)):
        for name, comment in proto_field_comments(message).items():
            named = [g for g in GAMES if g in comment]
            if name in seen and named:
                assert game.capitalize() in named, f"{message}.{name}: set in {game}, but its comment names {named}: {comment!r}"
