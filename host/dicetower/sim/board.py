"""The simulated board's hardware, driven over the control socket by the shims in firmware/sim.

`SimBoard` listens on 127.0.0.1, takes the one connection of the firmware's shim (_simbus.py), and
keeps what the firmware's outputs did to the parts: the servo's angle (from the PWM pulse width,
with its history), the WS2812 ring's colours (from the GRB bitstream), the SSD1306's GDDRAM (from
the I2C writes). `press(pin, ms)` holds an active-low button down for `ms` ms of firmware time.
"""

from __future__ import annotations

import socket
import threading
import time
from typing import Callable

from .serial_bridge import shutdown
from .ssd1306 import SSD1306Model

# The gate servo as a part (SG90 / MG90S class, see hardware/bom.md): 500..2500 us over 0..180 deg.
SERVO_MIN_US = 500.0
SERVO_MAX_US = 2500.0
SERVO_RANGE_DEG = 180.0


def servo_angle(duty_ns: int) -> float | None:
    """Angle (degrees) a servo turns to for a pulse of `duty_ns` ns; None for no pulse."""
    if duty_ns <= 0:
        return None
    us = min(max(duty_ns / 1000.0, SERVO_MIN_US), SERVO_MAX_US)
    return round((us - SERVO_MIN_US) / (SERVO_MAX_US - SERVO_MIN_US) * SERVO_RANGE_DEG, 3)


class SimBoard:
    """Server end of the control socket and the state of the simulated parts.

    servo_pin, ring_pin: GPIO numbers of the gate servo and the light ring (firmware/board.py)
    Thread-safe: state is read under `cond`, which is notified on every report.
    """

    def __init__(self, servo_pin: int, ring_pin: int):
        self.servo_pin = servo_pin
        self.ring_pin = ring_pin
        self.servo_angle: float | None = None
        self.servo_history: list[tuple[float, float | None]] = []  # (time.monotonic(), degrees)
        self.leds: list[tuple[int, int, int]] = []
        self.oled = SSD1306Model()
        self.errors: list[str] = []  # report lines that could not be understood
        self.cond = threading.Condition()
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.address = "127.0.0.1:%d" % self._listener.getsockname()[1]
        self._conn: socket.socket | None = None
        self._connected = threading.Event()
        self._thread = threading.Thread(target=self._serve, name="sim-board", daemon=True)
        self._thread.start()

    # control socket --------------------------------------------------------------------------
    def _serve(self) -> None:
        try:
            conn, _ = self._listener.accept()
        except OSError:
            return  # closed before the firmware connected
        self._conn = conn
        self._connected.set()
        with conn, conn.makefile("rb") as reports:
            for raw in reports:
                self._report(raw.decode("ascii", "replace").split())

    def _report(self, words: list[str]) -> None:
        with self.cond:
            try:
                if words[0] == "pwm" and int(words[1]) == self.servo_pin:
                    self.servo_angle = servo_angle(int(words[3]))
                    self.servo_history.append((time.monotonic(), self.servo_angle))
                elif words[0] == "bits" and int(words[1]) == self.ring_pin:
                    grb = bytes.fromhex(words[2])
                    self.leds = [(grb[i + 1], grb[i], grb[i + 2]) for i in range(0, len(grb) - 2, 3)]
                elif words[0] == "i2c":
                    self.oled.write(bytes.fromhex(words[3]))
                else:
                    self.errors.append(" ".join(words))
            except (IndexError, ValueError):
                self.errors.append(" ".join(words))
            self.cond.notify_all()

    def press(self, pin: int, ms: int) -> None:
        """Hold the button on `pin` down for `ms` ms (counted by the firmware from when it reads
        the command, so a busy machine does not shorten the press). Raises RuntimeError when the
        firmware has not connected within 10 s."""
        if not self._connected.wait(10):
            raise RuntimeError("the simulated firmware never connected to its board; see its stderr")
        assert self._conn is not None
        self._conn.sendall(b"press %d %d\n" % (pin, ms))

    def wait_until(self, predicate: Callable[[], bool], timeout_s: float) -> bool:
        """Wait until `predicate()` is true, re-checking at each report; False on timeout."""
        deadline = time.monotonic() + timeout_s
        with self.cond:
            while not predicate():
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self.cond.wait(min(left, 0.1))
            return True

    def close(self) -> None:
        """Stop listening and drop the firmware's connection."""
        shutdown(self._listener)  # wakes the thread blocked in accept()
        self._listener.close()
        if self._conn is not None:
            shutdown(self._conn)
        self._thread.join(2)
