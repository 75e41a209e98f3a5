"""The `dicetower` command has a thread running Python hand the interpreter's lock on after
dicetower.THREAD_SWITCH_S (dicetower.short_thread_switches), not Python's 5 ms: the reader's two
threads each wait for the lock after every OpenCV call."""

import subprocess
import sys

from dicetower import THREAD_SWITCH_S


def _switch_interval(prelude: str) -> float:
    out = subprocess.run([sys.executable, "-c", prelude + "import sys\nprint(sys.getswitchinterval())"],
                         capture_output=True, text=True, check=True)
    return float(out.stdout)


def test_cli_hands_the_interpreter_lock_on_sooner_than_python_does():
    assert THREAD_SWITCH_S < 0.005
    assert _switch_interval("") == 0.005  # Python's default
    assert _switch_interval("import dicetower.cli\n") == THREAD_SWITCH_S
