"""Shared set-up for every test.

BLAS runs single-threaded here: the calibration's matrix products and eigendecompositions are a few
hundred rows, and on this 2-core machine shared by several jobs OpenBLAS's worker threads spin
against each other (measured: tests/calibration 172 s wall and 66 s CPU with the default threads,
66 s and 20 s with one). The variables count only when set before numpy is first imported: this
conftest is the first module pytest loads from tests/, so they hold for the whole suite. Freed
memory is kept for the next allocations (dicetower.keep_freed_memory), as under the `dicetower` command."""

from dicetower import set_up_process

set_up_process()
