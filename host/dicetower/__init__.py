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

__version__ = "0.1.0"

#: the environment variables that set how many threads numpy's BLAS (OpenBLAS, OpenMP, MKL) starts
BLAS_THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
#: the environment variable OpenCV reads, when first imported, for the threads of its parallel loops
OPENCV_THREAD_VARIABLE = "OPENCV_FOR_THREADS_NUM"


def single_threaded_blas() -> None:
    """Run numpy's BLAS on one thread unless the user set its variables (BLAS_THREAD_VARIABLES).

    Our matrix products are small (calibration's few-shot scores: a few hundred rows), and the reader
    already keeps both cores of the tower's host busy (the die-body search runs beside the pip search,
    vision.second_core):
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


def single_threaded_opencv() -> None:
    """Run OpenCV's parallel loops on the calling thread (OPENCV_THREAD_VARIABLE = 1) unless the user set it.

    The reader already keeps both cores busy with two processes (vision.second_core), so OpenCV's own pool
    threads only contend with the other process: a small-dice frame read in 78.6 / 74.6 / 77.4 ms median
    with one thread against 82.7 / 82.9 / 93.9 ms with OpenCV's two (passes interleaved, this 2-core machine),
    a 12 MP photo alike (131-133 ms against 124-139). And a process forked while a pool thread still held
    the pool's lock inherits it held: a forked child's first parallel loop then waits on it for ever
    (tests/vision/test_vision_read_ahead.py's forked child hung in a cv2 call in 5 of 26 runs on a loaded
    machine; in none of 16 with one thread). Counts only when called before cv2 is first imported
    (set_up_process)."""
    os.environ.setdefault(OPENCV_THREAD_VARIABLE, "1")


def set_up_process() -> None:
    """The process-wide settings the `dicetower` command (cli.py), `make bench` and the tests start with,
    before anything imports numpy or cv2, and the reader's second process (vision.second_core) too:
    single_threaded_blas, single_threaded_opencv, keep_freed_memory."""
    single_threaded_blas()
    single_threaded_opencv()
    keep_freed_memory()
