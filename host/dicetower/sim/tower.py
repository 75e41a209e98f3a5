"""`SimTower`: the unchanged firmware in a real micropython process on a simulated board."""

from __future__ import annotations

import subprocess
import threading
from collections import deque
from pathlib import Path
from typing import Callable

import numpy as np

from dicetower import paths

from . import oled
from .board import SimBoard
from .firmware_info import FirmwareError, firmware_env, firmware_info, micropython_path
from .serial_bridge import SerialBridge

#: The firmware's heap in the simulation: what an ESP32 (no PSRAM) leaves to MicroPython, ~110 KB.
#: Objects on the 64-bit unix port are about twice their ESP32 size, so this is the stricter test.
HEAP_BYTES = 110 * 1024


class SimTower:
    """The simulated tower: `micropython firmware/main.py` with the shims of firmware/sim on
    MICROPYPATH, its serial link on a TCP port, its parts observable and its buttons pressable.

        with SimTower() as tower:
            link = serial.serial_for_url(tower.serial_url)   # "socket://127.0.0.1:PORT"
            tower.press("roll")                               # short press (80 ms)
            tower.wait_until(lambda: tower.oled_lines()[0] == "3 SUCCESSES", 5.0)

    Raises FirmwareError (from start / __enter__) when micropython or the firmware libraries are
    missing, or the firmware dies on start; the message includes its stderr.
    """

    def __init__(self) -> None:
        self._info = firmware_info()
        b = self._info.board
        self.servo_open_deg: float = float(b["GATE_OPEN_DEG"])    # what the firmware opens to (deg)
        self.servo_closed_deg: float = float(b["GATE_CLOSED_DEG"])  # ... and closes to (deg)
        self.fw_version: str = b["FW_VERSION"]
        self._board: SimBoard | None = None
        self._bridge: SerialBridge | None = None
        self._proc: subprocess.Popen[bytes] | None = None
        self._stderr: deque[str] = deque(maxlen=50)

    # lifecycle -------------------------------------------------------------------------------
    def start(self) -> "SimTower":
        """Start the firmware and wait until its boot screen is on the OLED and its BOOT announcement
        has gone out (10 s at most), so that a host connecting later does not see it, as with a real
        tower booted before the cable was plugged in. Raises FirmwareError when it does not boot."""
        b = self._info.board
        self._board = SimBoard(servo_pin=b["SERVO_PIN"], ring_pin=b["RING_PIN"])
        self._proc = subprocess.Popen(
            [micropython_path(), "-X", f"heapsize={HEAP_BYTES}", str(paths.firmware_dir() / "main.py")],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            env=firmware_env(DICETOWER_SIM_CTRL=self._board.address))
        assert self._proc.stdin is not None and self._proc.stdout is not None
        threading.Thread(target=self._keep_stderr, name="sim-stderr", daemon=True).start()
        self._bridge = SerialBridge(self._proc.stdin, self._proc.stdout)
        bridge = self._bridge
        if not self.wait_until(lambda: (self.fw_version in " ".join(self.oled_lines()) and bridge.spoke.is_set())
                               or not self.running, 10.0) or not self.running:
            err = self.stderr
            self.close()
            raise FirmwareError("the simulated tower did not boot within 10 s" + (f":\n{err}" if err else ""))
        return self

    def _keep_stderr(self) -> None:
        assert self._proc is not None and self._proc.stderr is not None
        for raw in self._proc.stderr:
            self._stderr.append(raw.decode("utf-8", "replace").rstrip())

    @property
    def stderr(self) -> str:
        """The firmware's last lines of stderr (tracebacks)."""
        return "\n".join(self._stderr)

    @property
    def running(self) -> bool:
        """True while the micropython process is alive."""
        return self._proc is not None and self._proc.poll() is None

    def close(self) -> None:
        """Stop the firmware: end its stdin (the firmware exits at end of file), then terminate,
        then kill, and close the sockets."""
        if self._bridge is not None:
            self._bridge.close()
        if self._proc is not None:
            try:
                assert self._proc.stdin is not None
                self._proc.stdin.close()
            except OSError:
                pass
            try:
                self._proc.wait(3)
            except subprocess.TimeoutExpired:
                self._proc.terminate()
                try:
                    self._proc.wait(3)
                except subprocess.TimeoutExpired:
                    self._proc.kill()
                    self._proc.wait()
            for pipe in (self._proc.stdout, self._proc.stderr):
                if pipe is not None:
                    pipe.close()
        if self._board is not None:
            self._board.close()

    def __enter__(self) -> "SimTower":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    # the parts -------------------------------------------------------------------------------
    @property
    def board(self) -> SimBoard:
        if self._board is None:
            raise RuntimeError("the simulated tower is not started; use `with SimTower() as tower:`")
        return self._board

    @property
    def serial_url(self) -> str:
        """pyserial URL of the tower's USB serial: "socket://127.0.0.1:PORT"."""
        if self._bridge is None:
            raise RuntimeError("the simulated tower is not started; use `with SimTower() as tower:`")
        return self._bridge.url

    def press(self, button: str, ms: int = 80) -> None:
        """Press `button` ("roll", "ok" or "no") for `ms` ms, then release it; returns after about
        `ms` ms. A long press is ms >= 1000 (firmware buttons.Pushbutton.LONG_MS), e.g. 1500.
        Raises ValueError for an unknown button or ms <= 0."""
        pins = self._info.buttons
        if button not in pins:
            raise ValueError(f"unknown button {button!r}; the tower has {', '.join(sorted(pins))}")
        if ms <= 0:
            raise ValueError(f"press length must be > 0 ms, got {ms}")
        self.board.press(pins[button], ms)
        threading.Event().wait(ms / 1000.0)

    @property
    def servo_angle(self) -> float:
        """The gate servo's angle (degrees); NaN before the firmware drives it."""
        with self.board.cond:
            angle = self.board.servo_angle
        return float("nan") if angle is None else angle

    @property
    def servo_history(self) -> list[float]:
        """Every angle (degrees) the servo was driven to, in order."""
        with self.board.cond:
            return [a for _, a in self.board.servo_history if a is not None]

    @property
    def leds(self) -> list[tuple[int, int, int]]:
        """The light ring's LEDs as (r, g, b), 0..255 each, as last written."""
        with self.board.cond:
            return list(self.board.leds)

    def framebuffer(self) -> np.ndarray:
        """What the OLED shows: 64x128 uint8 array of 0/1 (1 = lit)."""
        with self.board.cond:
            return self.board.oled.panel()

    def oled_text_art(self) -> str:
        """The OLED as 32 lines of half-block characters (two pixel rows per line)."""
        return oled.text_art(self.framebuffer())

    def oled_lines(self) -> list[str]:
        """The 8 text rows of the OLED decoded from its 8x8 grid (right-stripped; a cell that is no
        glyph of the built-in font reads as U+FFFD)."""
        return oled.lines(self.framebuffer(), self._info.glyphs)

    def oled_big(self) -> str | None:
        """The large figure of a result screen (rows 0..3), or None when there is none."""
        return oled.big_figure(self.framebuffer(), self._info.glyphs)

    def shows(self, lines: list[str], big: str | None = None) -> bool:
        """True when the OLED shows this result screen as the firmware lays it out (docs/protocol.md):
        `lines` from row 0, or with `big` the figure in rows 0..3 and the lines in rows 5..7."""
        want = [line[:16].rstrip() for line in lines]
        rows = self.oled_lines()
        if big is None:
            return rows[: len(want)] == want
        return self.oled_big() == big and rows[5: 5 + len(want)] == want

    def save_png(self, path: str | Path, scale: int = 4) -> Path:
        """Write the OLED as a PNG, `scale` times larger (default 512x256). Raises OSError."""
        return oled.save_png(self.framebuffer(), path, scale)

    def wait_until(self, predicate: Callable[[], bool], timeout_s: float) -> bool:
        """Wait until `predicate()` is true (checked at each change of the parts, at least every
        0.1 s); False after `timeout_s` seconds."""
        return self.board.wait_until(predicate, timeout_s)
