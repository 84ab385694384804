"""deploy/: the Kubernetes manifest is valid against Kubernetes' schemas, the Dockerfile passes
hadolint, and the manifest's memory limit holds the server as the manifest runs it (its
NAIPES_WORKERS serving processes, each with a validation pool of NAIPES_STREAM_WORKERS) with
archives streaming through every serving process at once, each of which then keeps its pool
(service/stream.py). Memory is counted as the kernel charges it to the container: the
proportional set size of every process (shared pages divided among them)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import grpc
import pytest
import requests
import yaml
from google.protobuf import json_format
from service_support import stop, tool
from test_service_cli import NAIPES, _free_port
from test_service_workers import _listening, command

from bench.engine_driver import random_record
from bench.run import descendants
from naipes.v1 import naipes_pb2 as pb
from naipes.v1 import naipes_pb2_grpc

ROOT = Path(__file__).resolve().parent.parent
MANIFEST = ROOT / "deploy" / "k8s" / "naipes.yaml"
DOCKERFILE = ROOT / "deploy" / "Dockerfile"
UNITS = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "K": 10**3, "M": 10**6, "G": 10**9, "": 1}
STREAMS = 16  # per transport: the kernel spreads the connections over the serving processes
RECORDS = 300  # per stream


def installed(name: str) -> str:
    path = tool(name)
    if shutil.which(path) is None:
        pytest.fail(f"{name} is not installed (a dev dependency: pip install -e '.[dev]')")
    return path


def container() -> dict[str, Any]:
    documents = list(yaml.safe_load_all(MANIFEST.read_text()))
    deployment = next(d for d in documents if d["kind"] == "Deployment")
    (naipes,) = deployment["spec"]["template"]["spec"]["containers"]
    return naipes


def quantity(text: str) -> int:
    """A Kubernetes memory quantity in bytes (``640Mi``)."""
    found = re.fullmatch(r"(\d+)([KMG]i?|)", str(text))
    assert found, text
    return int(found[1]) * UNITS[found[2]]


def test_the_manifest_is_valid_kubernetes() -> None:
    run = subprocess.run([installed("kubernetes-validate"), "--strict", str(MANIFEST)], capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.count("passed") == 4, run.stdout  # the Deployment, the two Services and the disruption budget


def test_the_grpc_service_gives_every_pod_to_a_balancing_client() -> None:
    """gRPC's calls share a connection and a Service's virtual IP balances connections: the headless
    Service naipes-grpc resolves to every pod, for clients that take them in turn (GrpcClient)."""
    services = {d["metadata"]["name"]: d["spec"] for d in yaml.safe_load_all(MANIFEST.read_text()) if d["kind"] == "Service"}
    deployment = next(d for d in yaml.safe_load_all(MANIFEST.read_text()) if d["kind"] == "Deployment")
    assert services["naipes-grpc"]["clusterIP"] == "None"
    assert services["naipes-grpc"]["selector"] == deployment["spec"]["selector"]["matchLabels"]
    assert [(p["port"], p["targetPort"]) for p in services["naipes-grpc"]["ports"]] == [(50051, "grpc")]


def test_a_grpc_connection_past_its_age_moves_on_and_its_calls_go_on() -> None:
    """NAIPES_GRPC_CONNECTION_AGE (the manifest's 300 s): a balancing client resolves a name's pods
    when it connects, so without it pods added later got none of its calls. A connection past the
    age is asked to move on (GOAWAY): the client's next call goes on a new connection, while a stream
    under way on the old one is answered to its end. Counted at a relay in front of the server."""
    from service_support import Relay

    from clients.python.naipes_client import GrpcClient
    from service.grpc_server import create_server

    server, port = create_server(port=0, connection_seconds=0.5)
    server.start()
    relay = Relay(port)
    record = random_record("rentoy")

    def slowly() -> Any:
        for _ in range(6):  # (1.5 s of a stream: three times the age)
            time.sleep(0.25)
            yield record

    try:
        with GrpcClient(relay.target) as client:
            assert client.validate_hand(record)["valid"] is True
            answers = list(client.validate_hands(slowly(), batch=1))
            assert len(answers) == 6 and all(a["result"]["valid"] for a in answers)
            assert client.validate_hand(record)["valid"] is True
        assert relay.connections >= 2  # (the last call's connection is not the first)
    finally:
        relay.close()
        server.stop(None)


def test_the_pod_s_grace_holds_its_pause_and_the_servers_stop() -> None:
    """The pod's terminationGracePeriodSeconds holds the preStop pause, NAIPES_STOP_SECONDS and the
    5 s naipes serve gives its servers after them (else the kubelet kills it mid-stop)."""
    documents = list(yaml.safe_load_all(MANIFEST.read_text()))
    pod = next(d for d in documents if d["kind"] == "Deployment")["spec"]["template"]["spec"]
    naipes = container()
    env = {e["name"]: e["value"] for e in naipes["env"]}
    pause = naipes["lifecycle"]["preStop"]["exec"]["command"]
    assert pause[0] == "sleep"
    assert pod["terminationGracePeriodSeconds"] > int(pause[1]) + float(env["NAIPES_STOP_SECONDS"]) + 5


def test_the_replicas_spread_and_are_drained_one_at_a_time() -> None:
    """The pods spread over the nodes, and a PodDisruptionBudget lets a drain take one at a time,
    both selecting the Deployment's pods (the audit: a drain could evict all three at once)."""
    documents = list(yaml.safe_load_all(MANIFEST.read_text()))
    deployment = next(d for d in documents if d["kind"] == "Deployment")
    labels = deployment["spec"]["selector"]["matchLabels"]
    budget = next(d for d in documents if d["kind"] == "PodDisruptionBudget")
    assert budget["spec"] == {"maxUnavailable": 1, "selector": {"matchLabels": labels}}
    (spread,) = deployment["spec"]["template"]["spec"]["topologySpreadConstraints"]
    assert spread["topologyKey"] == "kubernetes.io/hostname" and spread["labelSelector"] == {"matchLabels": labels}
    assert deployment["spec"]["replicas"] > 1


def test_the_manifest_tells_prometheus_where_to_scrape() -> None:
    """The pod's scrape annotations name the REST port, where GET /metrics is served."""
    deployment = next(d for d in yaml.safe_load_all(MANIFEST.read_text()) if d["kind"] == "Deployment")
    annotations = deployment["spec"]["template"]["metadata"]["annotations"]
    ports = {p["name"]: p["containerPort"] for p in container()["ports"]}
    assert annotations == {"prometheus.io/scrape": "true", "prometheus.io/port": str(ports["http"]), "prometheus.io/path": "/metrics"}


def test_an_isolated_build_has_what_the_compiled_modules_import() -> None:
    """The image's ``pip wheel .`` builds in an environment holding only pyproject.toml's
    build requirements, where mypyc type-checks the modules it compiles (setup.py: engine/*.py and
    service/codec.py): a package one of them imports that is not among the requirements fails the
    build (``orjson`` did, while ``make``, which builds without isolation in the full venv,
    passed). Every package they import is the project's, the standard library's, or required."""
    import ast
    import sys
    import tomllib

    requires = tomllib.loads((ROOT / "pyproject.toml").read_text())["build-system"]["requires"]
    names = {re.match(r"[A-Za-z0-9_.-]+", r)[0].lower().replace("_", "-") for r in requires}  # type: ignore[index]
    provided = {"google": "grpcio-tools"}  # (google.protobuf comes with grpcio-tools, which needs it)
    modules = [p for p in (ROOT / "engine").glob("*.py") if p.name != "__init__.py"] + [ROOT / "service" / "codec.py"]
    imported = set()
    for path in modules:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                imported |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                imported.add(node.module.split(".")[0])
    third = imported - set(sys.stdlib_module_names) - {"engine", "service", "__future__"}
    assert "orjson" in third  # (the check reads the imports: codec.py's is among them)
    missing = sorted(name for name in third if provided.get(name, name).lower() not in names)
    assert missing == [], f"compiled modules import {missing}, not in pyproject.toml's build-system requires"


def test_the_dockerfile_passes_hadolint() -> None:
    run = subprocess.run([installed("hadolint"), str(DOCKERFILE)], capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr


def test_the_image_and_the_manifest_run_the_same_workers() -> None:
    env = {e["name"]: e["value"] for e in container()["env"]}
    # The pod has no CPU limit: unset, the pool would take every core of the node.
    for name in ("NAIPES_WORKERS", "NAIPES_STREAM_WORKERS"):
        assert f"{name}={env[name]}" in DOCKERFILE.read_text(), name


def tree(pid: int) -> list[int]:
    """The process and all its descendants."""
    return [pid, *descendants(pid)]


def pss_bytes(pids: list[int]) -> int:
    total = 0
    for pid in pids:
        try:
            text = (Path("/proc") / str(pid) / "smaps_rollup").read_text()
        except OSError:
            continue  # gone meanwhile
        found = re.search(r"^Pss:\s+(\d+) kB", text, re.M)
        assert found, text
        total += int(found[1]) * 1024
    return total


def test_the_manifest_memory_limit_holds_every_pool() -> None:
    naipes = container()
    env = {e["name"]: e["value"] for e in naipes["env"]}
    workers, pool = int(env["NAIPES_WORKERS"]), int(env["NAIPES_STREAM_WORKERS"])
    limit = quantity(naipes["resources"]["limits"]["memory"])
    request = quantity(naipes["resources"]["requests"]["memory"])
    rest_port, grpc_port = _free_port(), _free_port()
    server = subprocess.Popen([NAIPES, "serve", "--host", "127.0.0.1", "--rest-port", str(rest_port), "--grpc-port", str(grpc_port),
                               "--workers", str(workers)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                              env={**os.environ, "NAIPES_STREAM_WORKERS": str(pool)})
    peak = [0]
    done = threading.Event()

    def sample() -> None:
        while not done.is_set():
            peak[0] = max(peak[0], pss_bytes(tree(server.pid)))
            time.sleep(0.1)

    records = [random_record("revesino", seed=seed) for seed in range(RECORDS)]
    messages = [pb.ValidateHandsRequest(batch=[pb.ValidateHandsRequest(id=str(i), record=json_format.ParseDict(r, pb.HandRecord()))
                                               for i, r in enumerate(records[k:k + 50], k)]) for k in range(0, RECORDS, 50)]
    lines = "".join(json.dumps(r) + "\n" for r in records)
    answered: list[int] = []

    # A process validates a few streams at a time and refuses more (TOO_MANY_STREAMS): the clients
    # retry, on a new connection, as a client of the service would.
    def grpc_stream() -> None:
        while True:
            with grpc.insecure_channel(f"127.0.0.1:{grpc_port}", options=[("grpc.use_local_subchannel_pool", 1)]) as channel:
                stub = naipes_pb2_grpc.NaipesServiceStub(channel)
                try:
                    answered.append(sum(len(a.batch) for a in stub.ValidateHands(iter(messages), timeout=120)))
                    return
                except grpc.RpcError as error:
                    if error.code() != grpc.StatusCode.RESOURCE_EXHAUSTED:  # type: ignore[attr-defined]
                        raise
            time.sleep(0.1)

    def rest_stream() -> None:
        while True:
            with requests.Session() as http:
                answer = http.post(f"http://127.0.0.1:{rest_port}/v1/hands:validateStream", data=lines, timeout=120,
                                   headers={"Content-Type": "application/x-ndjson"})
            if answer.status_code != 429:
                answered.append(len(answer.text.splitlines()))
                return
            time.sleep(0.1)

    try:
        deadline = time.monotonic() + 60
        while not (_listening(rest_port) and _listening(grpc_port)):
            assert server.poll() is None and time.monotonic() < deadline, "the servers did not come up"
            time.sleep(0.2)
        time.sleep(1)
        idle = pss_bytes(tree(server.pid))
        sampler = threading.Thread(target=sample)
        sampler.start()
        clients = [threading.Thread(target=grpc_stream) for _ in range(STREAMS)] + [threading.Thread(target=rest_stream) for _ in range(STREAMS)]
        for client in clients:
            client.start()
        for client in clients:
            client.join()
        time.sleep(0.5)
        done.set()
        sampler.join()
        after = pss_bytes(tree(server.pid))
        pools = [p for p in tree(server.pid) if "multiprocessing" in command(p) and "resource_tracker" not in command(p)]
    finally:
        done.set()
        output = stop(server)
    assert answered == [RECORDS] * (2 * STREAMS), output[-2000:]
    # Every serving process (gRPC processes and gunicorn workers) streamed and keeps its pool.
    assert len(pools) == 2 * workers * pool, (pools, output[-2000:])
    mib = 2**20
    assert peak[0] < limit, f"peak {peak[0] / mib:.0f} MiB against the manifest's limit of {limit / mib:.0f} MiB"
    # The request covers what the pod holds once its pools are up.
    assert idle < after < request, f"idle {idle / mib:.0f} MiB, after the streams {after / mib:.0f} MiB, request {request / mib:.0f} MiB"


def test_the_service_runs_on_a_read_only_root_file_system() -> None:
    """The manifest makes the container's root file system read-only: ``naipes serve`` must start
    and answer there, a stream through the validation pool included, with nothing written under
    the root (gunicorn's heartbeat files in /dev/shm; its control socket, which it would create in
    $HOME, not opened). It failed to start (gunicorn: "No usable temporary directory found").
    Shown in a mount namespace whose root is remounted read-only (root and unshare needed)."""
    unshare = shutil.which("unshare")
    if os.geteuid() != 0 or unshare is None:
        pytest.skip("needs root and unshare to remount the root file system read-only")
    rest_port, grpc_port = _free_port(), _free_port()
    script = (f"mount -o remount,bind,ro / || exit 97; exec {NAIPES} serve --host 127.0.0.1 --workers 1 "
              f"--rest-port {rest_port} --grpc-port {grpc_port}")
    server = subprocess.Popen([unshare, "-m", "--propagation", "private", "sh", "-c", script],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + 60
        while not (_listening(rest_port) and _listening(grpc_port)):
            if server.poll() is not None:
                if server.returncode == 97:
                    pytest.skip("this machine does not let the root file system be remounted read-only")
                raise AssertionError(f"naipes serve did not start on a read-only root: {stop(server)}")
            assert time.monotonic() < deadline, "the servers did not come up"
            time.sleep(0.2)
        base = f"http://127.0.0.1:{rest_port}"
        assert requests.get(f"{base}/healthz", timeout=10).json() == {"status": "SERVING"}
        lines = "".join(json.dumps(random_record("rentoy", seed=seed)) + "\n" for seed in range(3))
        answer = requests.post(f"{base}/v1/hands:validateStream", data=lines, headers={"Content-Type": "application/x-ndjson"}, timeout=60)
        assert [json.loads(line)["result"]["valid"] for line in answer.text.splitlines()] == [True, True, True]
    finally:
        output = stop(server)
    assert "Read-only file system" not in output and "Traceback" not in output, output


def test_the_manifest_gives_a_writable_tmp() -> None:
    """With a read-only root, /tmp is an emptyDir in memory, for whatever a library writes there."""
    deployment = next(d for d in yaml.safe_load_all(MANIFEST.read_text()) if d["kind"] == "Deployment")
    spec = deployment["spec"]["template"]["spec"]
    mounts = {m["mountPath"]: m["name"] for m in container()["volumeMounts"]}
    volumes = {v["name"]: v for v in spec["volumes"]}
    assert container()["securityContext"]["readOnlyRootFilesystem"] is True
    assert volumes[mounts["/tmp"]]["emptyDir"]["medium"] == "Memory"
