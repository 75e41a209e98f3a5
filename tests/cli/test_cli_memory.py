"""The `dicetower` command has glibc's malloc keep the memory a frame's arrays free for the next frame's
(dicetower.keep_freed_memory): arrays allocated and freed again, as each frame's are, fault no pages in
once the first ones have (glibc's default hands 1 MB blocks back to the system and faults them in again)."""

import subprocess
import sys

import pytest

from dicetower import keep_freed_memory

#: allocates and frees two 1 MB arrays 20 times, twice; prints the page faults of the second time
CHURN = """
import resource
import numpy as np

def churn():
    for _ in range(20):
        a = np.ones((1000, 1000), np.uint8)
        b = a + 1
        del a, b

churn()
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
churn()
print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
"""


def _page_faults(prelude: str) -> int:
    out = subprocess.run([sys.executable, "-c", prelude + CHURN], capture_output=True, text=True, check=True)
    return int(out.stdout)


@pytest.mark.skipif(not keep_freed_memory(), reason="no glibc mallopt to set")
def test_cli_keeps_freed_memory_for_the_next_frame():
    assert _page_faults("") > 1000  # glibc's default: each 1 MB array's pages faulted in anew
    assert _page_faults("import dicetower.cli\n") < 50
