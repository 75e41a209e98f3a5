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


@pytest.mark.skipif(sys.platform != "linux", reason="platformdirs reads XDG_DATA_HOME on Linux")
def test_a_user_data_folder_that_cannot_be_made_is_one_error_line(tmp_path):
    """The user's data directory (the default roll log's, calibrated sets') where a file stands: an OSError
    the command does not report itself is one "Error:" line naming the path, exit 1, not a traceback."""
    import os

    blocker = tmp_path / "data"
    blocker.write_text("a file where the data folder goes")
    proc = subprocess.run(DICETOWER + ["audit", "verify"], capture_output=True, text=True,
                          env={**os.environ, "XDG_DATA_HOME": str(blocker)})
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert proc.stderr.startswith("Error: ") and str(blocker / "dicetower") in proc.stderr
