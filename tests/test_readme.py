"""The README's examples run: every ```console block's commands are executed against a real REST
server and a real gRPC server, and must print exactly what the README shows."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()


def console_examples() -> list[tuple[str, str]]:
    """(command, expected output) pairs of the README's ```console blocks."""
    examples = []
    for block in re.findall(r"```console\n(.*?)```", README, re.S):
        command: list[str] = []
        output: list[str] = []
        for line in block.splitlines():
            if line.startswith("$ "):
                if command:
                    examples.append(("\n".join(command), "\n".join(output)))
                command, output = [line[2:]], []
            elif command and command[-1].endswith("\\") and not output:
                command.append(line)
            else:
                output.append(line)
        examples.append(("\n".join(command), "\n".join(output)))
    return examples


EXAMPLES = console_examples()


def test_readme_has_examples_over_both_transports() -> None:
    commands = [c for c, _ in EXAMPLES]
    assert len(commands) >= 5
    assert any("curl" in c for c in commands)
    assert any("validate_grpc.py" in c for c in commands)


def test_readme_quick_start_commands() -> None:
    assert "make serve" in README and "make test" in README


@pytest.mark.parametrize("command,expected", EXAMPLES, ids=[f"example{i}" for i in range(len(EXAMPLES))])
def test_readme_example(command: str, expected: str, rest_url: str, grpc_target: str) -> None:
    command = command.replace("http://127.0.0.1:8080", rest_url).replace("127.0.0.1:50051", grpc_target)
    run = subprocess.run(["bash", "-o", "pipefail", "-c", command], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert run.stdout.rstrip("\n") == expected.rstrip("\n")
