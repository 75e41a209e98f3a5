"""Panel buttons: polled, debounced, short and long press (after Peter Hinch's Pushbutton).

Buttons are active-low (pin to GND, internal pull-up). A button's task polls its pin every POLL_MS
ms; `Debouncer` accepts a new level only once it has held for DEBOUNCE_MS ms, and `Pushbutton`
turns the debounced level into presses: `on_long(name)` once the button has been held LONG_MS ms,
`on_short(name)` on release of a press shorter than that.
"""
import asyncio
import time

from machine import Pin


class Debouncer:
    """Raw samples -> stable level: a change counts once it has held DEBOUNCE_MS ms."""

    DEBOUNCE_MS = 20

    def __init__(self, level: int):
        self.level = level          # the debounced level
        self._raw = level
        self._since = 0             # ticks_ms when the raw level last changed

    def update(self, raw: int, now_ms) -> bool:
        """Take one sample `raw` (0/1) read at `now_ms` (ticks_ms); True when the debounced level
        changed with it."""
        if raw != self._raw:
            self._raw = raw
            self._since = now_ms
            return False
        if raw != self.level and time.ticks_diff(now_ms, self._since) >= self.DEBOUNCE_MS:
            self.level = raw
            return True
        return False


class Pushbutton:
    """One active-low button: short press on release, long press while held.

    name:     "roll", "ok" or "no" (passed to the callbacks)
    pin:      GPIO number (board.BTN_*)
    on_short, on_long: callable(name) or None
    """

    POLL_MS = 5
    LONG_MS = 1000

    def __init__(self, name: str, pin: int, on_short, on_long):
        self.name = name
        self._pin = Pin(pin, Pin.IN, Pin.PULL_UP)
        self._on_short = on_short
        self._on_long = on_long
        self._debounce = Debouncer(1)
        self._down_at = 0
        self._long_sent = False

    def update(self, raw: int, now_ms) -> None:
        """Take one raw sample (1 released, 0 pressed) at `now_ms`; fires the callbacks."""
        if self._debounce.update(raw, now_ms):
            if self._debounce.level == 0:
                self._down_at = now_ms
                self._long_sent = False
            elif not self._long_sent and self._on_short:
                self._on_short(self.name)
        elif (self._debounce.level == 0 and not self._long_sent
              and time.ticks_diff(now_ms, self._down_at) >= self.LONG_MS):
            self._long_sent = True
            if self._on_long:
                self._on_long(self.name)

    async def run(self) -> None:
        """Poll the pin forever."""
        pin = self._pin
        while True:
            self.update(pin.value(), time.ticks_ms())
            await asyncio.sleep_ms(self.POLL_MS)
