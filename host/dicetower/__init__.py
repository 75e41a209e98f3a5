"""dicetower: host software for the camera-read dice tower.

Subpackages, one job each:
  link     framed serial messages to and from the tower (pyserial)
  sim      the simulated tower: the unchanged firmware in a real micropython process
  vision   cameras, dice detection, face reading, calibration
  rules    the rules engine of the five seed systems (procedure ids of shared/rules/RULES.md)
  audit    the roll log (SQLite) and the fairness statistics
  service  the tower service that joins them: ROLL -> frame -> readings -> outcome -> log -> display
"""

import os

__version__ = "0.1.0"

#: the environment variables that set how many threads numpy's BLAS (OpenBLAS, OpenMP, MKL) starts
BLAS_THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def single_threaded_blas() -> None:
    """Run numpy's BLAS on one thread unless the user set its variables (BLAS_THREAD_VARIABLES).

    Our matrix products are small (calibration's few-shot scores: a few hundred rows), and the reader
    already keeps both cores of the tower's host busy (the die-body search runs beside the pip search):
    BLAS worker threads only spin against them. Measured on this 2-core machine: a calibrated fickett
    d12 read 16 ms per die with the default threads, 6-9 ms with one; tests/calibration 172 s wall
    with them, 66 s without. Counts only when called before numpy is first imported: the command
    line (cli.py), `make bench` and the tests call it first thing."""
    for name in BLAS_THREAD_VARIABLES:
        os.environ.setdefault(name, "1")
