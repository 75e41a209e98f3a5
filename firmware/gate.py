"""The gate servo that drops the dice: machine.PWM at 50 Hz, angle (degrees) -> pulse width."""
import asyncio

import board
from machine import PWM, Pin


def pulse_ns(deg: int) -> int:
    """Pulse width (ns) that turns the servo to `deg` degrees (0..SERVO_RANGE_DEG; clamped)."""
    deg = max(0, min(board.SERVO_RANGE_DEG, deg))
    span_us = board.SERVO_MAX_US - board.SERVO_MIN_US
    return board.SERVO_MIN_US * 1000 + span_us * 1000 * deg // board.SERVO_RANGE_DEG


class Gate:
    """The tower's gate: closed at rest, `drop()` opens it, holds, closes it again."""

    OPEN_MS = 600    # gate held open (ms): dice fall through
    SETTLE_MS = 400  # after closing (ms): the servo reaches its angle, dice settle in the tray

    def __init__(self, pin: int = board.SERVO_PIN):
        self._pwm = PWM(Pin(pin), freq=board.SERVO_FREQ_HZ, duty_ns=pulse_ns(board.GATE_CLOSED_DEG))

    def move(self, deg: int) -> None:
        """Turn the servo to `deg` degrees."""
        self._pwm.duty_ns(pulse_ns(deg))

    async def drop(self) -> None:
        """Open the gate, wait OPEN_MS, close it, wait SETTLE_MS."""
        self.move(board.GATE_OPEN_DEG)
        await asyncio.sleep_ms(self.OPEN_MS)
        self.move(board.GATE_CLOSED_DEG)
        await asyncio.sleep_ms(self.SETTLE_MS)
