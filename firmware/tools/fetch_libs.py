"""Fetch the firmware's third-party MicroPython libraries from PyPI into a lib folder.

Usage: python firmware/tools/fetch_libs.py build/fwlib

Only the package registries are reachable, so firmware libraries come from PyPI source
distributions (not from the MicroPython package index). Each entry names the PyPI package,
its pinned version, and the one file the firmware imports from it.

Raises SystemExit with a message when pip cannot fetch a package or the file is missing.
"""

import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

# (PyPI requirement, member path inside the sdist, name installed on MICROPYPATH)
LIBS = [
    # The classic SSD1306 I2C/SPI driver over framebuf (Adafruit/MicroPython), MIT.
    ("micropython-ssd1306py==3.1", "ssd1306py/ssd1306.py", "ssd1306.py"),
]


def fetch(dest: Path) -> None:
    dest.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        for req, member, name in LIBS:
            cmd = [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", ":all:", "-d", tmp, req]
            if subprocess.run(cmd).returncode != 0:
                raise SystemExit(f"fetch_libs: pip could not download {req}; check the network to PyPI and retry")
            pkg = req.split("==")[0]
            sdists = [p for p in Path(tmp).glob("*.tar.gz") if p.name.startswith(pkg)]
            if not sdists:
                raise SystemExit(f"fetch_libs: no source distribution of {req} in {tmp}")
            with tarfile.open(sdists[0]) as tar:
                found = [m for m in tar.getmembers() if m.name.endswith("/" + member)]
                if not found:
                    raise SystemExit(f"fetch_libs: {member} is not in {sdists[0].name}")
                data = tar.extractfile(found[0]).read()
            (dest / name).write_bytes(data)
            print(f"fetch_libs: {req} -> {dest / name}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit("usage: fetch_libs.py DEST_DIR")
    fetch(Path(sys.argv[1]))
