"""The benchmark suite's figures (bench/run.py) are the ones its load generators and its results
say: the outputs of h2load and wrk read back (real outputs kept in tests/bench_outputs/, and short
real runs against tests/bench_support.py's servers), the medians, percentiles and ratios, the
targets' verdicts at their edges, the checks of a complete run, and every figure of the report
against the results it is written from."""

from __future__ import annotations

import copy
import json
import math
import re
import shutil
import socket
import time
from pathlib import Path
from typing import Any

import pytest
import requests
from bench_support import OUTPUTS, H2cServer, Http1Server

from bench import run
from bench.run import TARGETS, Load

ROOT = Path(__file__).resolve().parent.parent
RESULTS = json.loads((ROOT / "bench" / "results.json").read_text())


def h2load_sample(name: str) -> tuple[str, str, str]:
    """A kept h2load run: its output, its per-request log and its command."""
    return tuple((OUTPUTS / f"{name}.{ext}").read_text() for ext in ("txt", "tsv", "cmd"))


def logged(log: str) -> list[tuple[int, int]]:
    """h2load's per-request log as (status, microseconds), -1 for a stream that failed."""
    return [(int(status), int(us)) for _start, status, us in (line.split("\t") for line in log.splitlines())]


def splits(values: list[int], cut: float, p: float) -> bool:
    """``cut`` is a p-th percentile of ``values``: at least p% of them at or below it and at least
    100 - p% at or above it."""
    below, above = sum(v <= cut for v in values), sum(v >= cut for v in values)
    return below >= p / 100 * len(values) - 1 and above >= (100 - p) / 100 * len(values) - 1 and cut in values


# ---- medians, durations, percentiles -------------------------------------------------------


def test_the_median_of_an_odd_count_is_the_middle_value_and_of_an_even_count_the_mean_of_the_two() -> None:
    assert run.median([5.0, 1.0, 3.0]) == 3.0
    assert run.median([4.0, 1.0, 3.0, 10.0]) == 3.5
    assert run.median([2.0]) == 2.0
    assert math.isnan(run.median([]))


@pytest.mark.parametrize(("text", "ms"), [("850us", 0.85), ("967us", 0.967), ("12.5ms", 12.5), ("1.02s", 1020.0), ("3s", 3000.0)])
def test_an_h2load_duration_is_read_in_milliseconds_in_each_of_its_units(text: str, ms: float) -> None:
    assert run.duration_ms(text) == pytest.approx(ms)


@pytest.mark.parametrize("text", ["", "12", "1.5m", "2h", "12.5 ms", "-3ms", "fast"])
def test_a_duration_h2load_does_not_write_is_not_a_number(text: str) -> None:
    assert math.isnan(run.duration_ms(text))


def test_every_duration_of_the_kept_h2load_outputs_is_read() -> None:
    for path in sorted(OUTPUTS.glob("h2load-*.txt")):
        row = re.search(r"time for request:\s+(\S+)\s+(\S+)\s+(\S+)", path.read_text())
        assert row, path
        low, high, mean = (run.duration_ms(cell) for cell in row.groups())
        assert 0 <= low <= mean <= high and (high > 0 or "0 done" in path.read_text()), (path, row.groups())


def test_a_percentile_is_the_value_of_its_nearest_rank() -> None:
    values = list(range(1, 201))  # 1..200
    assert run.percentile(values, 0) == 1
    assert run.percentile(values, 100) == 200
    assert run.percentile(values, 50) == 101  # rank 99.5 of 0..199, rounded to even
    assert run.percentile(values, 99) == 198  # rank 197.01
    assert run.percentile([7], 99) == 7
    assert run.percentile([3, 9], 50) == 3 and run.percentile([3, 9], 99) == 9
    assert math.isnan(run.percentile([], 50))
    for p in (1, 25, 50, 75, 90, 99):
        assert splits(values, run.percentile(values, p), p), p


# ---- h2load's output -----------------------------------------------------------------------


def test_an_h2load_run_of_a_fixed_duration_gives_its_req_per_s_latencies_and_mean() -> None:
    text, log, command = h2load_sample("h2load-timed-ok")
    assert "-D 1000ms" in command
    load = run.h2load_figures(text, log, command.strip(), 2, counted=False)
    latencies = [us for status, us in logged(log)]
    assert all(status == 200 for status, _ in logged(log))
    assert load.requests == len(latencies) and load.errors == 0
    assert load.rps == pytest.approx(len(latencies) / 1.0)  # over the main second, not the 1.3 s with the warm-up
    assert splits(latencies, load.p50_ms * 1000, 50) and splits(latencies, load.p99_ms * 1000, 99)
    # the same log, each request's time made distinct (its place in the log, in ms): the 50th and 99th percentiles
    distinct = "\n".join(f"{line.split(chr(9))[0]}\t200\t{1000 * (i + 1)}" for i, line in enumerate(log.splitlines()))
    again = run.h2load_figures(text, distinct, command, 2, counted=False)
    assert (again.p50_ms, again.p99_ms) == (run.percentile(list(range(1, len(latencies) + 1)), 50),
                                            run.percentile(list(range(1, len(latencies) + 1)), 99))
    assert load.mean_ms == pytest.approx(run.duration_ms(re.search(r"time for request:\s+\S+\s+\S+\s+(\S+)", text)[1]))
    assert load.in_flight == 2 and load.command == command.strip()


def test_an_h2load_run_counts_only_the_requests_answered_2xx_as_throughput() -> None:
    """h2load's req/s of this run is 168: the 135 answered 200 and the 33 answered 500 over the
    main second (the 28 reset streams it leaves out). The throughput is the 135."""
    text, log, command = h2load_sample("h2load-timed-failed")
    statuses = [status for status, _ in logged(log)]
    ok, failed = statuses.count(200), statuses.count(500)
    assert ok and failed and statuses.count(-1)  # the sample has all three
    assert f"{ok + failed:.2f} req/s" in text
    load = run.h2load_figures(text, log, command, 2, counted=False)
    assert load.rps == pytest.approx(ok / 1.0)
    assert load.requests == ok
    assert load.errors == len(statuses) - ok  # every 500 and every reset stream


def test_the_latencies_of_an_h2load_run_are_those_of_its_requests_answered_2xx() -> None:
    text, log, command = h2load_sample("h2load-timed-failed")
    # the failed requests made ten seconds long: the percentiles do not move
    slowed = "\n".join(f"{start}\t{status}\t{us if status == '200' else 10_000_000}"
                       for start, status, us in (line.split("\t") for line in log.splitlines()))
    load, again = run.h2load_figures(text, log, command, 2, counted=False), run.h2load_figures(text, slowed, command, 2, counted=False)
    assert (load.p50_ms, load.p99_ms) == (again.p50_ms, again.p99_ms)
    ok = [us for status, us in logged(log) if status == 200]
    assert splits(ok, load.p99_ms * 1000, 99) and load.p99_ms < 1000


def test_an_h2load_run_of_a_fixed_number_of_requests_gives_its_2xx_answers_over_the_time_it_took() -> None:
    for name, connections in (("h2load-counted-failed", 2), ("h2load-counted-naipes-health", 4), ("h2load-one-naipes-health", 1)):
        text, log, command = h2load_sample(name)
        took = re.search(r"finished in (\S+),", text)[1]
        ok = [us for status, us in logged(log) if status == 200]
        load = run.h2load_figures(text, log, command, connections, counted=True)
        assert load.rps == pytest.approx(len(ok) / (run.duration_ms(took) / 1000)), name
        assert load.requests == len(ok) and load.errors == len(logged(log)) - len(ok), name
        assert splits(ok, load.p50_ms * 1000, 50) and splits(ok, load.p99_ms * 1000, 99), name
        assert (load.p50_ms, load.p99_ms) == (run.percentile(sorted(ok), 50) / 1000, run.percentile(sorted(ok), 99) / 1000), name
    assert "finished in 967us" in h2load_sample("h2load-one-naipes-health")[0]  # a run shorter than a millisecond


def test_an_h2load_run_whose_connections_timed_out_counts_each_request_not_answered_once_as_an_error() -> None:
    """h2load counts a timed-out stream among the errored and every request of a closed
    connection, started or not, among the failed: 6 failed, 6 errored, 2 timeout for 6 requests."""
    text, log, command = h2load_sample("h2load-timed-out")
    assert "requests: 6 total, 2 started, 0 done, 0 succeeded, 6 failed, 6 errored, 2 timeout" in text and log == ""
    load = run.h2load_figures(text, log, command, 2, counted=True)
    assert (load.rps, load.requests, load.errors) == (0.0, 0, 6)
    assert math.isnan(load.p50_ms) and math.isnan(load.p99_ms)


def test_an_h2load_log_that_does_not_match_its_counts_is_refused() -> None:
    text, log, command = h2load_sample("h2load-timed-ok")
    half = "\n".join(log.splitlines()[::2])
    with pytest.raises(RuntimeError, match="^h2load logged "):
        run.h2load_figures(text, half, command, 2, counted=False)
    text, log, command = h2load_sample("h2load-timed-failed")
    as_if_ok = "\n".join(line.replace("\t500\t", "\t200\t").replace("\t-1\t", "\t200\t") for line in log.splitlines())
    with pytest.raises(RuntimeError, match="^h2load logged "):
        run.h2load_figures(text, as_if_ok, command, 2, counted=False)


def test_an_h2load_output_without_its_time_for_request_has_no_mean() -> None:
    text, log, command = h2load_sample("h2load-timed-ok")
    load = run.h2load_figures(text.replace("time for request:", "(cut)"), log, command, 2, counted=False)
    assert math.isnan(load.mean_ms) and load.rps == run.h2load_figures(text, log, command, 2, counted=False).rps


@pytest.mark.parametrize("cut", ["finished in", "requests:", "status codes:"])
def test_an_h2load_output_without_its_summary_is_refused(cut: str) -> None:
    text, log, command = h2load_sample("h2load-timed-ok")
    with pytest.raises(RuntimeError, match="^h2load failed: "):
        run.h2load_figures(text.replace(cut, "(cut)"), log, command, 2, counted=False)


def test_a_short_real_h2load_run_counts_what_the_server_answered(tmp_path: Path) -> None:
    if not shutil.which("h2load"):
        pytest.skip("h2load is not installed")
    body = tmp_path / "body"
    body.write_bytes(b"\0\0\0\0\0")
    with H2cServer("mixed") as server:
        load = run.h2load(f"http://127.0.0.1:{server.port}/grpc.health.v1.Health/Check", body, 0, 0, tmp_path, connections=2, requests=70)
        sent = server.answers.sent
    assert sum(sent.values()) == 70 and sent[500] and sent[0]
    assert load.requests == sent[200] and load.errors == sent[500] + sent[0]
    took = re.search(r"finished in (\S+),", (tmp_path / "h2load-last.txt").read_text())[1]
    assert load.rps == pytest.approx(sent[200] / (run.duration_ms(took) / 1000))


def test_a_server_of_the_suite_says_which_calls_it_answered_with_an_error(tmp_path: Path) -> None:
    """A gRPC error comes in the trailers of an HTTP 200, which h2load counts as a success: the
    suite reads what each of its servers answered with an error from the server's /metrics as it
    stops it (bench.run.Server.failed), and a run with any is incomplete. A REST call whose client
    closed the connection before its answer went (CANCELLED: wrk's connections at the end of each
    run) is the client's doing, kept apart (Server.cut)."""
    import grpc

    from naipes.v1 import naipes_pb2 as pb
    from naipes.v1 import naipes_pb2_grpc

    with run.Server(1, tmp_path) as server, grpc.insecure_channel(f"127.0.0.1:{server.grpc_port}") as channel:
        stub = naipes_pb2_grpc.NaipesServiceStub(channel)
        stub.DescribeRules(pb.DescribeRulesRequest(game="rentoy"), timeout=30)
        for _ in range(2):
            with pytest.raises(grpc.RpcError) as failed:
                stub.ValidateHand(pb.ValidateHandRequest(), timeout=30)
        assert failed.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert requests.post(f"http://127.0.0.1:{server.rest_port}/v1/hands:validate", data="{", timeout=30).status_code == 400
        with server.refusing_streams():  # (a stream refused here is not counted, one refused later is)
            assert _refused_stream(stub) == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert _refused_stream(stub) == grpc.StatusCode.RESOURCE_EXHAUSTED
        _reset_rest_stream(server.rest_port)
    assert server.failed == {"grpc ValidateHand MISSING_FIELD": 2, "rest ValidateHand MALFORMED_JSON": 1,
                             "grpc ValidateHands TOO_MANY_STREAMS": 1}
    assert server.cut == {"rest ValidateHands CANCELLED": 1}


def _reset_rest_stream(port: int) -> None:
    """A REST stream whose client resets its connection once its first answer has come, the body
    still open: the server counts it CANCELLED."""
    from test_service_stream_lines import Stream

    stream = Stream(port, None)
    try:
        stream.send(b'{"id":"r0","record":{}}\n')
        assert [entry["id"] for entry in stream.wait(1, 30)] == ["r0"]
    finally:
        stream.reset()


def _refused_stream(stub: Any) -> Any:
    """The code of a ValidateHands stream started while the server's process validates as many
    streams as it may (service.stream.STREAMS, each waiting for its first record), which end then."""
    import threading

    import grpc

    from service.stream import STREAMS

    go = threading.Event()

    def wait() -> Any:
        go.wait(30)
        yield from ()

    held = [stub.ValidateHands(wait(), timeout=60) for _ in range(STREAMS)]
    time.sleep(1)  # (the server takes their slots)
    try:
        with pytest.raises(grpc.RpcError) as refused:
            list(stub.ValidateHands(iter([]), timeout=30))
    finally:
        go.set()
        for call in held:
            assert list(call) == []
    return refused.value.code()


def test_the_fake_servers_stop_listening_when_their_with_ends() -> None:
    """Once its ``with`` ends, nothing answers on a fake server's port: its HTTP/2 listener was
    closed while its thread waited in ``accept()``, which kept it listening, port and all, and
    took a connection from the suite's REST server when that server was given the same port."""
    with H2cServer() as h2c, Http1Server() as http1:
        ports = [h2c.port, http1.port]
        for port in ports:
            socket.create_connection(("127.0.0.1", port), timeout=5).close()  # (each waits in accept again)
    assert not any(run.listening(port) for port in ports)


# ---- wrk's output --------------------------------------------------------------------------


def wrk_text_ms(text: str) -> float:
    """A duration as wrk's own summary writes it (us, ms, s, m, h), in milliseconds."""
    found = re.fullmatch(r"([\d.]+)(us|ms|s|m|h)", text)
    assert found, text
    return float(found[1]) * {"us": 1e-3, "ms": 1.0, "s": 1e3, "m": 60e3, "h": 3600e3}[found[2]]


def wrk_sample(name: str) -> tuple[str, dict[str, Any], str]:
    text = (OUTPUTS / f"{name}.txt").read_text()
    return text, json.loads(re.search(r"^WRKJSON (.*)$", text, re.M)[1]), (OUTPUTS / f"{name}.cmd").read_text().strip()


def test_a_wrk_run_gives_its_req_per_s_latencies_and_mean_as_wrk_writes_them() -> None:
    text, data, command = wrk_sample("wrk-naipes-health")
    load = run.wrk_figures(text, command)
    assert load.requests == data["requests"] and load.errors == 0
    assert load.rps == pytest.approx(data["requests"] / (data["duration_us"] / 1e6))
    assert f"{load.rps:.2f}" == re.search(r"Requests/sec:\s+(\S+)", text)[1]
    assert (load.p50_ms, load.p99_ms) == (data["p50_us"] / 1000, data["p99_us"] / 1000)
    avg = re.search(r"Latency\s+(\S+)", text)[1]
    assert load.mean_ms == data["mean_us"] / 1000 == pytest.approx(wrk_text_ms(avg), rel=0.01)
    assert load.in_flight == run.CONCURRENCY and load.command == command


def test_wrk_text_durations_are_read_in_each_unit() -> None:
    assert [wrk_text_ms(x) for x in ("807.12us", "1.19ms", "2.50s", "1.50m", "1.00h")] == pytest.approx([0.80712, 1.19, 2500, 90e3, 3600e3])


def test_a_wrk_run_counts_only_the_answers_2xx_as_throughput() -> None:
    """Every answer of this run was a 400 (a body that is not a record): wrk's Requests/sec says
    about 1,700; the throughput is none."""
    text, data, command = wrk_sample("wrk-naipes-not-a-record")
    assert int(re.search(r"Non-2xx or 3xx responses: (\d+)", text)[1]) == data["requests"] > 0
    load = run.wrk_figures(text, command)
    assert load.rps == 0 and load.requests == 0 and load.errors == data["requests"]


def test_a_wrk_run_with_error_answers_and_closed_connections_counts_them_as_errors_not_throughput() -> None:
    text, data, command = wrk_sample("wrk-failed")
    errors_5xx = int(re.search(r"Non-2xx or 3xx responses: (\d+)", text)[1])
    read_errors = int(re.search(r"Socket errors: connect \d+, read (\d+)", text)[1])
    assert data["errors_status"] > errors_5xx > 0 and read_errors > 0  # the 302 answers too
    load = run.wrk_figures(text, command)
    ok = data["requests"] - data["errors_status"]
    assert load.requests == ok and load.rps == pytest.approx(ok / (data["duration_us"] / 1e6))
    assert load.errors == data["errors_status"] + read_errors


def test_a_wrk_output_without_its_figures_is_refused() -> None:
    text, _data, command = wrk_sample("wrk-naipes-health")
    with pytest.raises(RuntimeError, match="^wrk failed: "):
        run.wrk_figures(text.replace("WRKJSON", "(cut)"), command)


def test_a_short_real_wrk_run_counts_the_answers_not_2xx_the_server_sent(tmp_path: Path) -> None:
    if not shutil.which("wrk"):
        pytest.skip("wrk is not installed")
    with Http1Server("mixed", delay=0.002) as server:
        load = run.wrk(f"http://127.0.0.1:{server.port}/healthz", None, 1, tmp_path)
        sent = server.answers.sent
    data = json.loads(re.search(r"^WRKJSON (.*)$", (tmp_path / "wrk-last.txt").read_text(), re.M)[1])
    assert sent[500] and sent[302] and sent[0]
    # answers sent as wrk stopped are not read: at most one a connection
    assert 0 <= sent[500] + sent[302] - data["errors_status"] <= run.CONCURRENCY
    assert 0 <= sent[200] - load.requests <= run.CONCURRENCY
    assert load.errors >= data["errors_status"] > 0


# ---- ratios and the targets' verdicts ------------------------------------------------------


def service_figures(health: float, validate: float, stream: float, one_by_one: float, concurrent: float, rss_mb: float) -> dict[str, Any]:
    """One server's figures as ``measure`` gives them, only those ``ratios`` reads."""
    calls = {"health": {"rps": health}, "ValidateHand/rentoy": {"rps": validate}, "LegalActions/rentoy": {"rps": 1.0}}
    return {"grpc": copy.deepcopy(calls), "rest": copy.deepcopy(calls),
            "stream": {"rentoy": {"batch": 50, "grpc_stream_records_per_s": stream, "unary_sequential_per_s": one_by_one,
                                  "unary_concurrent_per_s": concurrent, "brief_grpc_stream_records_per_s": stream,
                                  "brief_unary_sequential_per_s": one_by_one}},
            "memory": {"max_process_mb": rss_mb}}


def verdicts(results: dict[str, Any]) -> dict[str, tuple[float, bool]]:
    return {row["target"]: (row["value"], row["met"]) for row in run.ratios(results)}


@pytest.mark.parametrize(("validate", "met"), [(850.0, True), (849.9, False), (2000.0, True)])
def test_validate_hand_against_the_health_check_meets_its_target_from_0_85_up(validate: float, met: bool) -> None:
    rows = verdicts({"service": {"1": service_figures(1000.0, validate, 1e4, 1e3, 1e3, 50.0)}})
    for transport in ("gRPC", "REST"):
        assert rows[f"ValidateHand/rentoy vs health check, {transport}, 1 worker(s)"] == (pytest.approx(validate / 1000), met)
    assert not any(target.startswith("LegalActions") for target in rows)


@pytest.mark.parametrize(("stream", "met"), [(10_000.0, True), (9_999.0, False)])
def test_the_stream_meets_its_target_from_ten_times_one_request_per_record(stream: float, met: bool) -> None:
    rows = verdicts({"service": {"2": service_figures(1000.0, 1000.0, stream, 1000.0, 500.0, 50.0)}})
    batches = "ValidateHands rentoy records/s (batches of 50)"
    assert rows[f"{batches} vs ValidateHand one request at a time, 2 worker(s)"] == (pytest.approx(stream / 1000), met)
    assert rows[f"{batches} vs ValidateHand {run.CONCURRENCY} requests in flight, 2 worker(s)"] == (pytest.approx(stream / 500), True)
    assert rows[f"{batches}, events omitted, vs ValidateHand one request at a time, events omitted, 2 worker(s)"] == (
        pytest.approx(stream / 1000), met)


@pytest.mark.parametrize(("rss", "met"), [(199.9, True), (200.0, False)])
def test_the_largest_server_process_meets_its_target_below_200_mb(rss: float, met: bool) -> None:
    rows = verdicts({"service": {"1": service_figures(1000.0, 1000.0, 1e4, 1e3, 1e3, rss)}})
    assert rows["largest server process RSS under load, 1 worker(s) (MB)"] == (rss, met)


@pytest.mark.parametrize(("two", "met"), [(1600.0, True), (1599.0, False)])
def test_two_workers_meet_their_target_from_1_6_times_one(two: float, met: bool) -> None:
    # paired runs (the scaling section), and the medians of the service section without it
    scaling = {t: {"health": {"ratio": two / 1000, "other_max": 0.0}, "ValidateHand/rentoy": {"ratio": 2.0, "other_max": 0.5}}
               for t in ("grpc", "rest")}
    rows = verdicts({"scaling": scaling})
    assert rows["2 workers vs 1: health, gRPC (paired runs)"] == (pytest.approx(two / 1000), met)
    assert [row["disturbed"] for row in run.ratios({"scaling": scaling})] == [None, 0.5, None, 0.5]
    scaling["rest"]["health"]["other_max"] = run.QUIET_CORES  # up to QUIET_CORES the machine is quiet
    assert [row["disturbed"] for row in run.ratios({"scaling": scaling})] == [None, 0.5, None, 0.5]
    assert [row["goal"] for row in run.ratios({"scaling": scaling})] == [">= 1.6"] * 4
    service = {"1": service_figures(1000.0, 1000.0, 1e4, 1e3, 1e3, 50.0), "2": service_figures(two, 1000.0, 1e4, 1e3, 1e3, 50.0)}
    service["2"]["grpc"]["health"]["rps"] = 3000.0
    rows = verdicts({"service": service})
    assert rows["2 workers vs 1: health, REST"] == (pytest.approx(two / 1000), met)
    assert rows["2 workers vs 1: health, gRPC"] == (3.0, True)
    assert rows["2 workers vs 1: ValidateHand/rentoy, gRPC"] == (1.0, False)
    assert {row["goal"] for row in run.ratios({"service": service}) if row["target"].startswith("2 workers")} == {">= 1.6"}
    assert not any(target.startswith("2 workers vs 1: LegalActions") for target in rows)


@pytest.mark.parametrize(("hands", "validate", "met"), [(1.0, 3.0, True), (0.999, 3.001, False)])
def test_the_engine_meets_its_targets_from_openspiel_hearts_rate_and_up_to_three_times_its_replay(
        hands: float, validate: float, met: bool) -> None:
    paired = {"openspiel": {"paired": {"hands": {"rentoy/4": {"ratio": hands}}, "validate": {"rentoy": {"ratio": validate}}}}}
    assert verdicts(paired) == {"random rentoy/4 hands/s vs OpenSpiel Hearts games/s (paired runs)": (hands, met),
                                "validate a complete rentoy record vs OpenSpiel Hearts replay (time, paired runs)": (validate, met)}
    # a results.json from before the paired runs: the engine's medians against OpenSpiel's
    unpaired = {"openspiel": {"games": {"hearts": {"games_per_s": 2000.0}}, "hearts_replay": {"seconds": 1e-4}},
                "engine": {"hands": {"rentoy/4": {"primary": True, "hands_per_s": 2000.0 * hands}, "rentoy/2": {"primary": False, "hands_per_s": 1.0}},
                           "validate": {"rentoy": {"seconds": 1e-4 * validate}}}}
    assert verdicts(unpaired) == {"random rentoy/4 hands/s vs OpenSpiel Hearts games/s": (pytest.approx(hands), met),
                                  "validate a complete rentoy record vs OpenSpiel Hearts replay (time)": (pytest.approx(validate), met)}
    assert [row["goal"] for row in run.ratios(unpaired)] == [row["goal"] for row in run.ratios(paired)] == [">= 1.0", "<= 3.0"]
    assert run.ratios({"openspiel": unpaired["openspiel"]}) == []  # OpenSpiel measured, the engine not


def test_the_committed_results_ratios_are_those_of_their_figures() -> None:
    assert run.ratios(RESULTS) == RESULTS["ratios"]
    for row in RESULTS["ratios"]:
        op, goal = row["goal"].split()
        assert row["met"] == {">=": row["value"] >= float(goal), "<=": row["value"] <= float(goal), "<": row["value"] < float(goal)}[op]
    assert {row["goal"] for row in RESULTS["ratios"]} == {f">= {TARGETS['engine_hands_vs_hearts']}", f"<= {TARGETS['validate_vs_hearts_replay']}",
                                                          f">= {TARGETS['validate_vs_health']}", f">= {TARGETS['two_workers_vs_one']}",
                                                          f">= {TARGETS['stream_vs_unary']}", "< 200"}


# ---- paired runs, bounds, CPU --------------------------------------------------------------


def load(rps: float, p50: float = 1.0, errors: int = 0, requests: int = 100, other: float = 0.0, generator: float = 0.5,
         command: str = "h2load") -> Load:
    return Load(rps=rps, p50_ms=p50, p99_ms=2 * p50, requests=requests, errors=errors, command=command,
                cpu={"server": 1.0, "generator": generator, "suite": 0.1, "other": other})


def test_paired_runs_give_the_median_of_their_ratios_and_each_sides_figures() -> None:
    pairs = [{1: load(100.0, p50=1.0, command="first"), 2: load(150.0, p50=3.0, other=0.3)},
             {1: load(200.0, p50=2.0, errors=1, generator=0.9), 2: load(400.0, p50=4.0, requests=7)},
             {1: load(100.0, p50=5.0), 2: load(170.0, p50=6.0, errors=2)}]
    figures = run.pair_figures(pairs, 1, 2)
    assert figures["ratios"] == [1.5, 2.0, 1.7] and figures["ratio"] == 1.7
    assert (figures["rps_1"], figures["rps_2"]) == (100.0, 170.0)
    assert (figures["runs_1"], figures["runs_2"]) == ([100.0, 200.0, 100.0], [150.0, 400.0, 170.0])
    assert (figures["p50_ms_1"], figures["p50_ms_2"]) == (2.0, 4.0)
    assert figures["errors"] == 3 and figures["requests"] == 507
    assert figures["other_max"] == 0.3 and figures["generator_max"] == 0.9
    assert figures["cpu_1"] == [p[1].cpu for p in pairs] and figures["cpu_2"] == [p[2].cpu for p in pairs]
    assert figures["command"] == "first"
    assert run.pair_figures(pairs, 2, 1)["ratio"] == pytest.approx(1 / 1.7)


def test_the_bound_of_a_game_gives_its_medians_ratios_to_the_health_check_cpu_a_call_and_budget() -> None:
    runs = {"health": [1000.0, 1200.0, 1100.0], "stored": [900.0, 990.0, 800.0], "validate": [500.0, 700.0, 600.0],
            "health cpu_us": [100.0, 300.0, 200.0], "validate cpu_us": [900.0, 700.0, 800.0], "validate switches": [3.0, 1.0, 2.0]}
    figures = run.bound_figures(runs, [400.0, 0.2], "handler")
    assert (figures["health_rps"], figures["stored_rps"], figures["validate_rps"]) == (1100.0, 900.0, 600.0)
    assert figures["stored_vs_health"] == pytest.approx(900 / 1100) and figures["validate_vs_health"] == pytest.approx(600 / 1100)
    assert (figures["health_cpu_us"], figures["validate_cpu_us"], figures["validate_switches"]) == (200.0, 800.0, 2.0)
    assert "health_switches" not in figures and figures["runs"] is runs
    assert figures["handler_us_under_load"] == pytest.approx(500.0) and figures["handler_calls_under_load"] == 400
    # ValidateHand at 0.85 of the health check: each call may take (1 / 0.85 - 1) of a health check's time
    assert figures["budget_us"] == pytest.approx((1 / 0.85 - 1) / 1100 * 1e6)
    assert 1 / (1 / 1100 + figures["budget_us"] / 1e6) == pytest.approx(0.85 * 1100)
    assert run.bound_figures(runs, [1.0, 0.001], "view")["view_us_under_load"] == pytest.approx(1000.0)
    none = run.bound_figures(runs, [0.0, 0.0], "view")
    assert none["view_us_under_load"] == 0.0 and none["view_calls_under_load"] == 0


def test_the_cpu_of_runs_is_their_median_shares_and_the_largest_share_of_other_processes() -> None:
    runs = [{"server": 1.0, "generator": 0.2, "suite": 0.05, "other": 0.1}, {"server": 1.6, "generator": 0.6, "suite": 0.01, "other": 0.7},
            {"server": 1.2, "generator": 0.4, "suite": 0.03, "other": 0.0}]
    assert run.summarize_cpu(runs) == {"server": 1.2, "generator": 0.4, "suite": 0.03, "other_max": 0.7}
    assert run.summarize_cpu(runs[1:]) == {"server": pytest.approx(1.4), "generator": pytest.approx(0.5), "suite": pytest.approx(0.02),
                                           "other_max": 0.7}


# ---- a complete run ------------------------------------------------------------------------


def test_the_committed_results_are_complete() -> None:
    assert run.check_complete(RESULTS) == []


@pytest.mark.parametrize(("where", "value", "problem"), [
    (("engine", "hands", "rentoy/4", "hands_per_s"), 0.0, "results.engine.hands.rentoy/4.hands_per_s = 0.0"),
    (("engine", "validate", "rentoy", "runs", 1), float("nan"), "results.engine.validate.rentoy.runs[1] = nan"),
    (("service", "2", "stream", "tresillo", "unary_sequential_per_s"), -1.0, "results.service.2.stream.tresillo.unary_sequential_per_s = -1.0"),
    (("service", "1", "grpc", "health", "errors"), 3, "1 worker(s) grpc health: 3 errors"),
    (("service", "2", "rest", "ValidateHand/rentoy", "requests"), 0, "2 worker(s) rest ValidateHand/rentoy: 0 errors, 0 requests"),
    (("service", "1", "stream", "revesino", "errors"), 1, "1 worker(s) stream revesino: 1 errors"),
    (("scaling", "rest", "health", "errors"), 2, "scaling rest health: 2 errors"),
    (("scaling", "grpc", "ValidateHand/tresillo", "requests"), 0, "scaling grpc ValidateHand/tresillo: 0 errors, 0 requests"),
    (("pinned", "workers", "1", "stream", "rentoy", "errors"), 4, "pinned, 1 worker(s), stream rentoy: 4 errors"),
    (("pinned", "workers", "2", "grpc", "health", "requests"), 0, "pinned, 2 worker(s), grpc health: 0 errors, 0 requests"),
    (("openspiel", "missing"), "open_spiel is not installed", "open_spiel is not installed"),
    (("service", "1", "calls_failed"), {"grpc ValidateHand INTERNAL": 3},
     "1 worker(s): its server answered calls with an error: grpc ValidateHand INTERNAL x3"),
    (("scaling", "calls_failed"), {"1": {}, "2": {"grpc Check RESOURCE_EXHAUSTED": 1}},
     "scaling, 2 worker(s): its server answered calls with an error: grpc Check RESOURCE_EXHAUSTED x1"),
    (("pinned", "workers", "2", "calls_failed"), {"unpinned": {}, "pinned": {"rest ValidateHand INTERNAL": 2}},
     "pinned, 2 worker(s), pinned: its server answered calls with an error: rest ValidateHand INTERNAL x2"),
])
def test_a_run_with_a_figure_not_positive_or_a_load_with_errors_is_incomplete(where: tuple[Any, ...], value: Any, problem: str) -> None:
    results = copy.deepcopy(RESULTS)
    entry = results
    for key in where[:-1]:
        entry = entry[key]
    entry[where[-1]] = value
    problems = run.check_complete(results)
    assert any(p.startswith(problem) for p in problems), problems


def test_cpu_shares_may_be_zero_in_a_complete_run() -> None:
    results = copy.deepcopy(RESULTS)
    results["service"]["1"]["grpc"]["health"]["cpu"]["other_max"] = 0.0
    results["service"]["1"]["grpc"]["health"]["cpu_runs"][0]["other"] = 0.0
    results["scaling"]["grpc"]["health"]["other_max"] = 0.0
    assert run.check_complete(results) == []


def test_a_load_of_one_request_without_errors_is_complete() -> None:
    results = copy.deepcopy(RESULTS)
    results["service"]["1"]["grpc"]["health"]["requests"] = 1
    results["scaling"]["rest"]["health"]["requests"] = 1
    results["pinned"]["workers"]["1"]["stream"]["rentoy"]["requests"] = 1
    assert run.check_complete(results) == []


def test_a_service_section_without_every_call_is_incomplete() -> None:
    results = copy.deepcopy(RESULTS)
    del results["service"]["2"]["rest"]["LegalActions/revesino"]
    assert run.check_complete(results) == [f"2 worker(s) rest: measured {sorted(results['service']['2']['rest'])}"]


# ---- the report ----------------------------------------------------------------------------


@pytest.mark.parametrize(("value", "digits", "text"), [(1234567.891, 0, "1,234,568"), (999.5, 0, "1,000"), (0.5, 2, "0.50"),
                                                       (12.345, 1, "12.3"), (float("nan"), 0, "nan"), (0.0, 0, "0")])
def test_a_figure_is_written_with_thousands_separated(value: float, digits: int, text: str) -> None:
    assert run.fmt(value, digits) == text


def report(results: dict[str, Any], tmp_path: Path) -> list[str]:
    path = tmp_path / "REPORT.md"
    run.write_report(results, path, "make bench")
    return path.read_text().splitlines()


def table(lines: list[str], heading: str, header: str, section: str = "") -> list[list[str]]:
    """The rows (cells) of the first table whose header starts with ``header`` after the line
    starting with ``heading`` (the first after the line starting with ``section``)."""
    after = next(i for i, line in enumerate(lines) if line.startswith(section))
    start = next(i for i in range(after, len(lines)) if lines[i].startswith(heading))
    top = next(i for i in range(start, len(lines)) if lines[i].startswith(header))
    rows = []
    for line in lines[top + 2:]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split(" | ")])
    return rows


def test_the_committed_report_is_the_one_its_results_write(tmp_path: Path) -> None:
    assert report(RESULTS, tmp_path) == (ROOT / "bench" / "REPORT.md").read_text().splitlines()


def changed_results() -> dict[str, Any]:
    """The committed results with figures changed: ValidateHand at the edge of its target and
    below it, a stream below its target, a server process at 200 MB, a scaling ratio below."""
    results = copy.deepcopy(RESULTS)
    one = results["service"]["1"]
    one["grpc"]["ValidateHand/rentoy"]["rps"] = one["grpc"]["health"]["rps"] * 0.85
    one["rest"]["ValidateHand/tresillo"]["rps"] = one["rest"]["health"]["rps"] * 0.8449
    one["rest"]["LegalActions/rentoy"]["p99_ms"] = 123.456
    one["stream"]["revesino"]["grpc_stream_records_per_s"] = one["stream"]["revesino"]["unary_sequential_per_s"] * 9.99
    results["service"]["2"]["memory"]["max_process_mb"] = 200.0
    results["scaling"]["rest"]["health"]["ratio"] = 1.2345
    results["scaling"]["rest"]["health"]["other_max"] = 0.75
    results["profiles"]["bound"]["games"]["tresillo"]["validate_rps"] = 4321.0
    results["ratios"] = run.ratios(results)
    return results


@pytest.mark.parametrize("changed", [False, True])
def test_every_target_row_of_the_report_is_a_ratio_of_the_results_and_its_verdict(changed: bool, tmp_path: Path) -> None:
    results = changed_results() if changed else RESULTS
    rows = table(report(results, tmp_path), "## Targets", "| target |")
    assert len(rows) == len(results["ratios"])
    for cells, row in zip(rows, results["ratios"], strict=True):
        verdict = "yes" if row["met"] else "**no**"
        if row.get("disturbed"):
            verdict += f" (machine busy: other processes took up to {row['disturbed']:.2f} cores)"
        assert cells == [row["target"], f"{row['value']:.2f}", row["goal"], verdict]
    if changed:
        by_target = {cells[0]: cells for cells in rows}
        assert by_target["ValidateHand/rentoy vs health check, gRPC, 1 worker(s)"][1:] == ["0.85", ">= 0.85", "yes"]
        assert by_target["ValidateHand/tresillo vs health check, REST, 1 worker(s)"][1:] == ["0.84", ">= 0.85", "**no**"]
        assert by_target["ValidateHands revesino records/s (batches of 50) vs ValidateHand one request at a time, 1 worker(s)"][1:] == [
            "9.99", ">= 10.0", "**no**"]
        assert by_target["largest server process RSS under load, 2 worker(s) (MB)"][1:] == ["200.00", "< 200", "**no**"]
        assert by_target["2 workers vs 1: health, REST (paired runs)"][1:] == [
            "1.23", ">= 1.6", "**no** (machine busy: other processes took up to 0.75 cores)"]


@pytest.mark.parametrize("changed", [False, True])
def test_every_figure_of_the_service_tables_is_the_one_of_the_results(changed: bool, tmp_path: Path) -> None:
    results = changed_results() if changed else RESULTS
    lines = report(results, tmp_path)
    for workers, figures in results["service"].items():
        rows = table(lines, f"### {workers} worker(s)", "| call | gRPC req/s |")
        assert [cells[0] for cells in rows] == list(figures["grpc"])
        for cells in rows:
            expected = []
            for entry in (figures["grpc"][cells[0]], figures["rest"][cells[0]]):
                expected += [run.fmt(entry["rps"]), f"{entry['p50_ms']:.2f} ms", f"{entry['p99_ms']:.2f} ms", f"{entry['mean_ms']:.2f} ms",
                             f"{entry['in_flight_littles_law']:.1f}", f"{entry['cpu']['server']:.2f}", f"{entry['cpu']['other_max']:.2f}"]
            assert cells[1:] == expected, cells[0]
        rows = table(lines, f"### {workers} worker(s)", "| game | records in the stream |")
        assert [cells[0] for cells in rows] == list(figures["stream"])
        for cells in rows:
            s = figures["stream"][cells[0]]
            assert cells[1:] == [str(s["records"]), *(run.fmt(s[k]) for k in (
                "grpc_stream_records_per_s", "grpc_stream_single_records_per_s", "rest_stream_records_per_s", "unary_sequential_per_s",
                "unary_concurrent_per_s", "brief_grpc_stream_records_per_s", "brief_unary_sequential_per_s"))]
        memory = figures["memory"]
        line = next(line for line in lines[lines.index(f"### {workers} worker(s)"):] if line.startswith("Resident memory"))
        assert f"largest {memory['max_process_mb']:.0f} MB" in line and f"together at most {memory['total_mb']:.0f} MB" in line
        for role, v in memory["by_role"].items():
            assert f"{role}: {v['processes']} process(es), up to {v['max_mb']:.0f} MB" in line
    if changed:
        assert "| 123.46 ms |" in "\n".join(lines)


@pytest.mark.parametrize("changed", [False, True])
def test_every_figure_of_the_scaling_pinned_and_bound_tables_is_the_one_of_the_results(changed: bool, tmp_path: Path) -> None:
    results = changed_results() if changed else RESULTS
    lines = report(results, tmp_path)
    rows = table(lines, "## Two workers against one", "| call | transport |")
    expected = [(key, label, e) for transport, label in (("grpc", "gRPC"), ("rest", "REST")) for key, e in results["scaling"][transport].items()]
    assert len(rows) == len(expected)
    for cells, (key, label, e) in zip(rows, expected, strict=True):
        assert cells[:6] == [key, label, run.fmt(e["rps_1"]), run.fmt(e["rps_2"]), f"{e['ratio']:.2f}", ", ".join(f"{r:.2f}" for r in e["ratios"])]
        assert cells[7:] == [f"{e['generator_max']:.2f}", f"{e['other_max']:.2f}"]
    for workers, figures in results["pinned"]["workers"].items():
        rows = table(lines, f"### {workers} worker(s)", "| call | transport | unpinned req/s |", "## Pinned")
        expected = [(key, e) for transport in ("grpc", "rest") for key, e in figures[transport].items()]
        for cells, (key, e) in zip(rows, expected, strict=True):
            assert cells[:8] == [key, cells[1], run.fmt(e["rps_1"]), run.fmt(e["rps_2"]), f"{e['ratio']:.2f}",
                                 ", ".join(f"{r:.2f}" for r in e["ratios"]), f"{e['p50_ms_1']:.2f} ms", f"{e['p50_ms_2']:.2f} ms"]
            assert cells[9] == f"{e['other_max']:.2f}"
    rows = table(lines, "## Where the time goes", "| game | health req/s |")
    for cells, (name, g) in zip(rows, results["profiles"]["bound"]["games"].items(), strict=True):
        assert cells[:8] == [name, run.fmt(g["health_rps"]), f"{run.fmt(g['stored_rps'])} ({g['stored_vs_health']:.2f})",
                             f"{run.fmt(g['validate_rps'])} ({g['validate_vs_health']:.2f})", f"{g['budget_us']:.0f} µs",
                             f"{g['handler_us_under_load']:.0f} µs", f"{g['handler_us_warm']:.0f} µs", f"{g['handler_us_evicted']:.0f} µs"]
        assert cells[8:] == [f"{g['health_cpu_us']:.0f} / {g['validate_cpu_us']:.0f} µs", f"{g['health_switches']:.1f} / {g['validate_switches']:.1f}"]


def test_the_engine_tables_of_the_report_are_the_figures_of_the_results(tmp_path: Path) -> None:
    lines = report(RESULTS, tmp_path)
    rows = table(lines, "## Engine", "| game / seats |")
    for cells, (key, e) in zip(rows, RESULTS["engine"]["hands"].items(), strict=True):
        assert cells == [key + (" (headline)" if e["primary"] else ""), run.fmt(e["hands_per_s"]), f"{e['actions_per_hand']:.1f}"]
    rows = table(lines, "## Engine", "| game | time per record |")
    for cells, (name, e) in zip(rows, RESULTS["engine"]["validate"].items(), strict=True):
        assert cells == [name, f"{e['seconds'] * 1e3:.3f} ms", f"{e['actions_per_record']:.1f}"]
    paired = RESULTS["openspiel"]["paired"]
    rows = table(lines, "### OpenSpiel", "| game | hands/s vs Hearts")
    for cells, (key, h), (_name, v) in zip(rows, paired["hands"].items(), paired["validate"].items(), strict=True):
        assert cells == [key, f"{h['ratio']:.2f}", ", ".join(f"{x:.2f}" for x in h["pairs"]), f"{v['ratio']:.2f}", ", ".join(f"{x:.2f}" for x in v["pairs"])]
    replay = RESULTS["openspiel"]["hearts_replay"]
    assert f"{replay['actions_per_history']:.0f} actions): {replay['seconds'] * 1e6:.0f} µs." in "\n".join(lines)


def test_a_log_line_cut_short_is_not_read() -> None:
    text, log, command = h2load_sample("h2load-timed-ok")
    lines = log.splitlines()
    cut = "\n".join([*lines[:-1], lines[-1].rsplit("\t", 1)[0]])  # its latency missing
    without = "\n".join(lines[:-1])
    short, left_out = run.h2load_figures(text, cut, command, 2, counted=False), run.h2load_figures(text, without, command, 2, counted=False)
    assert short == left_out and short.requests == len(lines)


def test_requests_answered_3xx_are_errors_not_throughput() -> None:
    """h2load counts a 3xx among its "succeeded" (not its "failed"); the sample's 500 answers made 300 and 301."""
    text, log, command = h2load_sample("h2load-timed-failed")
    statuses = [status for status, _ in logged(log)]
    fives = statuses.count(500)
    redirected = re.sub(r"status codes: (\d+) 2xx, 0 3xx, 0 4xx, (\d+) 5xx", r"status codes: \1 2xx, \2 3xx, 0 4xx, 0 5xx", text)
    ok, failed = statuses.count(200), len(statuses) - statuses.count(200)
    redirected = redirected.replace(f"{ok} succeeded, {failed} failed", f"{ok + fives} succeeded, {failed - fives} failed")
    assert f"{ok + fives} succeeded" in redirected and f"{fives} 3xx" in redirected
    n = iter(range(len(statuses)))
    moved = "\n".join(line.replace("\t500\t", "\t300\t" if next(n) % 2 else "\t301\t") for line in log.splitlines())
    load = run.h2load_figures(redirected, moved, command, 2, counted=False)
    assert load.requests == statuses.count(200) and load.rps == pytest.approx(statuses.count(200) / 1.0)
    assert load.errors == fives + statuses.count(-1)


@pytest.mark.parametrize(("answered", "missing", "refused"), [(100, 2, False), (100, 3, True), (400, 4, False), (400, 5, True)])
def test_an_h2load_log_may_miss_1_percent_of_the_2xx_answers_or_two(answered: int, missing: int, refused: bool) -> None:
    """h2load may stop with a request or two of the summary not yet written to its log."""
    text, log, command = h2load_sample("h2load-timed-ok")
    lines = (log.splitlines() * 3)[:answered - missing]
    counted = re.sub(r"(\d+) 2xx", f"{answered} 2xx", text)
    if refused:
        with pytest.raises(RuntimeError, match="^h2load logged"):
            run.h2load_figures(counted, "\n".join(lines), command, 2, counted=False)
    else:
        assert run.h2load_figures(counted, "\n".join(lines), command, 2, counted=False).requests == answered


def test_a_stream_figure_without_its_batch_is_of_one_record_a_message() -> None:
    figures = service_figures(1000.0, 1000.0, 1e4, 1e3, 1e3, 50.0)
    del figures["stream"]["rentoy"]["batch"]
    rows = verdicts({"service": {"1": figures}})
    assert "ValidateHands rentoy records/s (batches of 1) vs ValidateHand one request at a time, 1 worker(s)" in rows
    assert "ValidateHands rentoy records/s (batches of 1), events omitted, vs ValidateHand one request at a time, events omitted, 1 worker(s)" in rows


def test_a_report_says_what_was_not_measured_or_known(tmp_path: Path) -> None:
    results = copy.deepcopy(RESULTS)
    results["machine"]["cpu"] = ""
    results["openspiel"] = {"missing": "open_spiel is not installed (no module)"}
    for game in results["profiles"]["bound"]["games"].values():
        for key in ("health_cpu_us", "validate_cpu_us", "health_switches", "validate_switches"):
            del game[key]
    lines = report(results, tmp_path)
    assert lines[lines.index("## Machine") + 2].startswith(f"- {results['machine']['cores']} cores (2 usable), CPU model unknown; ")
    assert "Not measured: open_spiel is not installed (no module)" in lines
    for cells in table(lines, "## Where the time goes", "| game | health req/s |"):
        assert cells[8:] == ["", ""]


def test_a_smoke_run_is_said_so_in_the_title_and_its_hot_spots_are_its_profile(tmp_path: Path) -> None:
    results = copy.deepcopy(RESULTS)
    results["smoke"] = True
    results["profiles"]["engine"]["rentoy"][0]["own_share"] = 0.9
    lines = report(results, tmp_path)
    assert lines[0] == "# Naipes benchmark report (smoke run: tiny durations, numbers not meaningful)"
    assert "[results.json](results.json)." in lines[2]
    assert report(RESULTS, tmp_path)[0] == "# Naipes benchmark report"
    assert " 90%; " in next(line for line in lines if line.startswith("- **rentoy**: "))
    for name, rows in results["profiles"]["engine"].items():
        line = next(line for line in lines if line.startswith(f"- **{name}**: "))
        assert line == f"- **{name}**: " + "; ".join(f"`{r['function']}` {r['own_share'] * 100:.0f}%" for r in rows[:8])


def test_a_report_of_the_engine_alone_has_its_tables_and_says_openspiel_was_not_measured(tmp_path: Path) -> None:
    """``python -m bench.run --only engine``: the engine's own tables, OpenSpiel's "not measured",
    and no ratio (each needs OpenSpiel's figures); they were all left out."""
    results = {k: v for k, v in RESULTS.items() if k not in ("openspiel", "service", "scaling", "pinned", "profiles")}
    results["ratios"] = run.ratios(results)
    lines = report(results, tmp_path)
    assert results["ratios"] == [] and "## Targets (issue 5), as ratios" in lines and "## Engine" in lines
    hands = table(lines, "## Engine", "| game / seats |")
    assert [row[0].removesuffix(" (headline)") for row in hands] == list(RESULTS["engine"]["hands"])
    assert len(table(lines, "## Engine", "| game | time per record |")) == len(RESULTS["engine"]["validate"])
    assert "Not measured: not in this run (`--only`)" in lines
    assert lines[lines.index("## Targets (issue 5), as ratios") + 2].startswith("None in this run: ")


def test_the_commands_of_a_report_are_every_command_of_its_results_once_without_ports(tmp_path: Path) -> None:
    """... and without the absolute paths of the clone that ran them (a file of the checkout is
    named from the checkout)."""
    lines = report(RESULTS, tmp_path)
    block = lines[lines.index("## Commands") + 3:]
    block = block[:block.index("```")]
    assert block[0] == "make bench" and len(block) == len(set(block))
    assert not any(re.search(r"127\.0\.0\.1:\d|--(rest|grpc)-port \d|(^|[\s=])/", line) for line in block)
    assert any(line.startswith(".venv/bin/naipes serve ") for line in block) and any(" -s bench/post.lua " in line for line in block)
    scaling = RESULTS["scaling"]
    for command in [*scaling["commands"].values(), *(e["command"] for t in ("grpc", "rest") for e in scaling[t].values())]:
        generic = re.sub(r"127\.0\.0\.1:\d+", "127.0.0.1:PORT", re.sub(r"--(rest|grpc)-port \d+", r"--\1-port PORT", command))
        assert re.sub(r"/\S*/(\.venv/bin/|bench/)", r"\1", generic) in block, command
    scaling_only = {k: v for k, v in RESULTS.items() if k not in ("service", "pinned")}
    lines = report(scaling_only, tmp_path)
    commands = lines[lines.index("## Commands"):]
    assert any(line.endswith("naipes serve --host 127.0.0.1 --rest-port PORT --grpc-port PORT --workers 2") for line in commands)
    assert any(line.startswith("h2load ") for line in commands) and any(" wrk " in line for line in commands)


def test_bench_clients_runs_every_client_over_the_archive(rest_url: str, grpc_target: str, tmp_path: Path) -> None:
    """``python -m bench.clients`` (by hand, not part of ``make bench``) validates its archive
    through each client, the server's REST stream alone and ``naipes audit``, every record
    answered (a way that answered fewer, or failed, stops it), and prints each one's rate and
    memory. ``--game all --distinct`` writes a record of each game in turn, each its own seed, to
    ``--archive``; an archive that exists is read as it is."""
    import subprocess
    import sys

    ROOT = Path(__file__).resolve().parent.parent
    archive = tmp_path / "archive.ndjson"
    servers = ["--rest", rest_url, "--grpc", grpc_target]
    run_ = subprocess.run([sys.executable, "-m", "bench.clients", "--records", "150", "--rounds", "2", "--game", "all", "--distinct",
                           "--archive", str(archive), *servers], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert run_.returncode == 0, run_.stderr
    medians = run_.stdout.split("medians:\n")[1].splitlines()
    assert [line.split("  ")[1].strip() for line in medians] == [
        "python GrpcClient", "python RestClient", "javascript validateHandsStream", "curl, the REST stream alone",
        "naipes audit, no server"], run_.stdout
    for line in medians:
        rate, memory = re.search(r"([\d,]+) records a second +largest RSS (\d+) MB", line).groups()  # type: ignore[union-attr]
        assert int(rate.replace(",", "")) > 0 and 5 < int(memory) < 2000, line
    assert run_.stdout.count("round ") == 10
    assert "150 records (of the three games, distinct), 2 round(s)" in run_.stdout
    lines = [json.loads(line) for line in archive.read_text().splitlines()]
    assert [line["id"] for line in lines] == [f"{('tresillo', 'revesino', 'rentoy')[n % 3]}-{n}" for n in range(150)]
    assert [line["record"]["game"] for line in lines[:3]] == ["tresillo", "revesino", "rentoy"]
    assert len({json.dumps(line["record"]["deal"]) for line in lines}) == 150

    archive.write_text("".join(f"{json.dumps(line)}\n" for line in lines[:30]))
    again = subprocess.run([sys.executable, "-m", "bench.clients", "--records", "150", "--rounds", "1", "--archive", str(archive), *servers],
                           capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert again.returncode == 0, again.stderr
    assert f"30 records ({archive}), 1 round(s)" in again.stdout and again.stdout.count("round ") == 5, again.stdout
