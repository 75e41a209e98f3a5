"""The `dicetower` command runs numpy's BLAS on one thread (dicetower.single_threaded_blas) and OpenCV's parallel
loops on the calling thread (dicetower.single_threaded_opencv), set before numpy and cv2 are imported, and leaves a
user's own setting alone."""

import os
import subprocess
import sys

from dicetower import BLAS_THREAD_VARIABLES, OPENCV_THREAD_VARIABLE

PROBE = ("import os, sys, dicetower.cli; "
         "print(*[os.environ.get(v) for v in dicetower.BLAS_THREAD_VARIABLES], 'numpy' in sys.modules)")
#: the reader's module, imported as `dicetower read` does: OpenCV's threads as it sees them
CV_PROBE = "import dicetower.cli, dicetower.vision.reader, cv2; print(cv2.getNumThreads())"


def _run(code: str, **env: str) -> list[str]:
    clean = {k: v for k, v in os.environ.items() if k not in BLAS_THREAD_VARIABLES + (OPENCV_THREAD_VARIABLE,)}
    out = subprocess.run([sys.executable, "-c", code], env={**clean, **env}, capture_output=True, text=True,
                         check=True).stdout.split()
    return out


def test_cli_sets_one_blas_thread_before_numpy_is_imported():
    assert _run(PROBE) == ["1", "1", "1", "False"]


def test_cli_keeps_the_users_blas_threads():
    out = _run(PROBE, OPENBLAS_NUM_THREADS="3")
    assert out[0] == "3" and out[1:] == ["1", "1", "False"]


def test_cli_runs_opencv_on_one_thread_unless_told_otherwise():
    assert _run(CV_PROBE) == ["1"]
    assert _run(CV_PROBE, **{OPENCV_THREAD_VARIABLE: "2"}) == ["2"]
