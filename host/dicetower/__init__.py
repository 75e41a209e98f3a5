"""dicetower: host software for the camera-read dice tower.

Subpackages, one job each:
  link     framed serial messages to and from the tower (pyserial)
  sim      the simulated tower: the unchanged firmware in a real micropython process
  vision   cameras, dice detection, face reading, calibration
  rules    the rules engine of the five seed systems (procedure ids of shared/rules/RULES.md)
  audit    the roll log (SQLite) and the fairness statistics
  service  the tower service that joins them: ROLL -> frame -> readings -> outcome -> log -> display
"""

import ctypes
import os
import sys

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
    line (cli.py), `make bench` and the tests call it first thing (set_up_process)."""
    for name in BLAS_THREAD_VARIABLES:
        os.environ.setdefault(name, "1")


#: glibc's mallopt parameters (malloc.h): the free memory at the heap's top kept from the system, and the
#: size from which a block is mapped on its own (and unmapped when freed) rather than taken from the heap
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3
#: Blocks up to this size (bytes) come from the heap: a 1280 px frame's arrays (HxWx3 float32: 14 MB) do.
HEAP_BLOCK_MAX = 32 * 1024 * 1024
#: Free memory up to this much (bytes) stays with the process for the next frame's arrays.
KEPT_FREE_MAX = 64 * 1024 * 1024


def keep_freed_memory() -> bool:
    """Have glibc's malloc keep the memory a frame's arrays free for the next frame's (mallopt: blocks
    under HEAP_BLOCK_MAX from the heap, up to KEPT_FREE_MAX of it kept free) instead of handing it back
    to the system and faulting it in again page by page, which glibc does by default for blocks of
    128 kB or more (a 320 px frame's Lab image as float32 is 1.2 MB) and on each worker thread's heap.
    Measured on this 2-core machine: find_die_bodies on a lurig photo 12.5 -> 7.5 ms, lurig's read
    (`make bench`'s path, both threads' CPU) 85.9 -> 79.5 ms median; readings unchanged. The memory kept
    is what one frame needs again. Returns True when set; False (nothing done) without glibc's mallopt
    (macOS, Windows, musl, whose mallopt sets nothing). The command line (cli.py), `make bench` and the
    tests call it first thing (set_up_process)."""
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError, TypeError):  # no C library to ask (Windows), or no mallopt in it (macOS)
        return False
    return bool(mallopt(_M_MMAP_THRESHOLD, HEAP_BLOCK_MAX)) and bool(mallopt(_M_TRIM_THRESHOLD, KEPT_FREE_MAX))


#: How long (s) a thread running Python code holds the interpreter's lock before another may take it
#: (sys.setswitchinterval; Python's default 5 ms).
THREAD_SWITCH_S = 0.001


def short_thread_switches() -> None:
    """Have a thread running Python code hand the interpreter's lock on after THREAD_SWITCH_S, not 5 ms.

    The reader runs its pip search beside the die-body search and first readings (reader._SECOND_CORE):
    both are thousands of short OpenCV calls, which let the lock go, between Python lines, which need
    it. Each time an OpenCV call returns, its thread waits for the other to give the lock up, up to the
    switch interval: with 5 ms, most of a frame's calls wait. Measured on this 2-core machine, reads
    interleaved image by image (median ms, 5 ms -> 1 ms): realdice 39.4 -> 37.0, lurig 44.0 -> 42.3,
    matteop65 (every 4th photo) 31.3 -> 29.0; 0.5 and 0.2 ms moved them by under 1 ms more either
    way. Readings cannot change: the reader keeps a first reading only when reading afterwards gives
    the same. The command line (cli.py), `make bench` and the tests call it first thing (set_up_process)."""
    sys.setswitchinterval(THREAD_SWITCH_S)


def set_up_process() -> None:
    """The process-wide settings the `dicetower` command (cli.py), `make bench` and the tests start with,
    before anything imports numpy: single_threaded_blas, keep_freed_memory, short_thread_switches."""
    single_threaded_blas()
    keep_freed_memory()
    short_thread_switches()
