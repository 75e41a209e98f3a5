"""The `dicetower` command runs numpy's BLAS on one thread (dicetower.single_threaded_blas), set before
numpy is imported, and leaves a user's own setting alone."""

import os
import subprocess
import sys

from dicetower import BLAS_THREAD_VARIABLES

PROBE = ("import os, sys, dicetower.cli; "
         "print(*[os.environ.get(v) for v in dicetower.BLAS_THREAD_VARIABLES], 'numpy' in sys.modules)")


def _probe(**env: str) -> list[str]:
    clean = {k: v for k, v in os.environ.items() if k not in BLAS_THREAD_VARIABLES}
    out = subprocess.run([sys.executable, "-c", PROBE], env={**clean, **env}, capture_output=True, text=True,
                         check=True).stdout.split()
    return out


def test_cli_sets_one_blas_thread_before_numpy_is_imported():
    assert _probe() == ["1", "1", "1", "False"]


def test_cli_keeps_the_users_blas_threads():
    out = _probe(OPENBLAS_NUM_THREADS="3")
    assert out[0] == "3" and out[1:] == ["1", "1", "False"]
