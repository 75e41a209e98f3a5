"""Type-check the firmware (firmware/*.py) with mypy against the MicroPython ESP32 stubs.

Usage: python firmware/tools/typecheck.py

The stubs come from the dev dependencies installed in this Python's environment:
micropython-esp32-stubs (machine.pyi, neopixel.pyi, framebuf.pyi, ... installed top-level in
site-packages) and micropython-stdlib-stubs (a typeshed `stdlib/` folder for MicroPython's sys,
asyncio, ...). mypy refuses site-packages on its search path, so the ESP32 stubs are linked into a
temporary folder given as MYPYPATH, and the stdlib stubs are given as --custom-typeshed-dir. The
firmware's own libraries (build/fwlib: ssd1306.py) are followed silently. firmware/sim (the unix
simulation shims) and firmware/tests are not checked: they run only on the unix port.
Exits with mypy's status (non-zero on errors).
"""

import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FIRMWARE = ROOT / "firmware"
FWLIB = ROOT / "build" / "fwlib"
SKIP = {"LICENSE.md", "README.md", "pyproject.toml", "__builtins__.pyi"}


def stub_entries(site: Path, dist: str) -> list[Path]:
    """Top-level files and folders installed by the distribution named `dist` (from its RECORD)."""
    records = sorted(site.glob(dist.replace("-", "_") + "-*.dist-info/RECORD"))
    if not records:
        raise SystemExit(f"typecheck: {dist} is not installed in {site}; run `make venv`")
    tops = {line.split(",")[0].split("/")[0] for line in records[-1].read_text().splitlines() if line}
    return sorted(site / t for t in tops if t not in SKIP and not t.endswith(".dist-info"))


def main() -> int:
    site = Path(sysconfig.get_paths()["purelib"])
    sources = sorted(str(p) for p in FIRMWARE.glob("*.py"))
    with tempfile.TemporaryDirectory(prefix="fw-stubs-") as tmp:
        stubs = Path(tmp) / "stubs"
        typeshed = Path(tmp) / "typeshed"
        stubs.mkdir()
        typeshed.mkdir()
        for entry in stub_entries(site, "micropython-esp32-stubs"):
            (stubs / entry.name).symlink_to(entry)
        for entry in stub_entries(site, "micropython-stdlib-stubs"):
            if entry.name in ("stdlib", "stubs"):  # typeshed's layout: stdlib/ and stubs/mypy-extensions
                (typeshed / entry.name).symlink_to(entry)
            else:
                (stubs / entry.name).symlink_to(entry)
        # the stubs have errors of their own (they target pyright first): check only our code
        config = Path(tmp) / "mypy.ini"
        modules = ",".join(f"{e.name.removesuffix('.pyi')},{e.name.removesuffix('.pyi')}.*" for e in stubs.iterdir())
        config.write_text(f"[mypy]\n[mypy-{modules}]\nignore_errors = True\n")
        cmd = [sys.executable, "-m", "mypy", "--config-file", str(config), "--custom-typeshed-dir", str(typeshed), "--no-site-packages",
               "--python-version", "3.11", "--follow-imports", "silent", "--no-error-summary",
               "--cache-dir", str(Path(tmp) / "cache"), "--check-untyped-defs", *sources]
        env = {"MYPYPATH": f"{stubs}:{FWLIB}:{FIRMWARE}", "PATH": "/usr/bin:/bin"}
        proc = subprocess.run(cmd, env=env, cwd=ROOT)
    print(f"typecheck: firmware {'clean' if proc.returncode == 0 else 'has type errors'} "
          f"({len(sources)} files, mypy with micropython-esp32-stubs)")
    return proc.returncode


if __name__ == "__main__":
    sys.exit(main())
