"""The benchmark suite's figures (bench/run.py) are the ones its load generators and its results
say: the outputs of h2load and wrk read back (real outputs kept in tests/bench_outputs/, and short
real runs against tests/bench_support.py's servers), the medians, percentiles and ratios, the
targets' verdicts at their edges, the checks of a complete run, and every figure of the report
against the results it is written from."""

from __future__ import annotations

import json
import math
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from bench_support import OUTPUTS, H2cServer, Http1Server

from bench import run

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
        assert 0 < low <= mean <= high, (path, row.groups())


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
    assert "finished in 967us" in h2load_sample("h2load-one-naipes-health")[0]  # a run shorter than a millisecond


def test_an_h2load_log_that_does_not_match_its_counts_is_refused() -> None:
    text, log, command = h2load_sample("h2load-timed-ok")
    half = "\n".join(log.splitlines()[::2])
    with pytest.raises(RuntimeError, match="logged"):
        run.h2load_figures(text, half, command, 2, counted=False)
    text, log, command = h2load_sample("h2load-timed-failed")
    as_if_ok = "\n".join(line.replace("\t500\t", "\t200\t").replace("\t-1\t", "\t200\t") for line in log.splitlines())
    with pytest.raises(RuntimeError, match="logged"):
        run.h2load_figures(text, as_if_ok, command, 2, counted=False)


@pytest.mark.parametrize("cut", ["finished in", "requests:", "status codes:"])
def test_an_h2load_output_without_its_summary_is_refused(cut: str) -> None:
    text, log, command = h2load_sample("h2load-timed-ok")
    with pytest.raises(RuntimeError, match="h2load failed"):
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
    assert load.mean_ms == pytest.approx(wrk_text_ms(avg), rel=0.01)
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
    with pytest.raises(RuntimeError, match="wrk failed"):
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
