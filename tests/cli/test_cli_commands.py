"""The `dicetower` console script: every command the README names is there and has help."""

import subprocess
import sys

import pytest

from dicetower.cli import COMMANDS

DICETOWER = [sys.executable, "-m", "dicetower.cli"]


def test_top_level_help_lists_every_command():
    out = subprocess.run(DICETOWER + ["--help"], capture_output=True, text=True, check=True).stdout
    for name in COMMANDS:
        assert f"  {name}" in out


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_each_command_has_help(name):
    proc = subprocess.run(DICETOWER + [name, "--help"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert "Usage:" in proc.stdout


def test_unknown_command_is_a_usage_error():
    proc = subprocess.run(DICETOWER + ["fly"], capture_output=True, text=True)
    assert proc.returncode == 2 and "No such command" in proc.stderr
