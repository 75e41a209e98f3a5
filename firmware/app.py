"""The tower app: buttons, gate, light ring, display and host link wired on one asyncio loop.

ROLL (short press): "rolling..." on the display, light ring to capture white, the gate drops the
dice, then a ROLL message (acknowledged, resent) tells the host to read them. OK / NO presses (and
a long ROLL) go to the host as BTN messages; the host uses them to confirm or reject unsure
readings. The host sends the idle line (IDLE), result screens (SCR) and light modes (LIGHT).
"""
import asyncio
import sys

import board
import frame
from buttons import Pushbutton
from display import Display
from gate import Gate
from lightring import LightRing
from link import Link
from machine import I2C, Pin


class App:
    """The tower's behaviour; `link` is made here, the parts are passed in (tests pass their own)."""

    def __init__(self, write, display: Display, gate: Gate, ring: LightRing):
        self.link = Link(write, self.on_message, self.on_host_lost)
        self.display = display
        self.gate = gate
        self.ring = ring
        self.buttons = [Pushbutton(name, pin, self.on_short, self.on_long) for name, pin in board.BUTTONS]
        self.rolling = False

    # buttons ---------------------------------------------------------------------------------
    def on_short(self, name: str) -> None:
        """A short press: ROLL drops the dice, OK / NO go to the host."""
        if name == "roll":
            if not self.rolling:
                self.rolling = True
                asyncio.create_task(self.roll())
        else:
            self.link.send("BTN", {"name": name, "press": "short"})

    def on_long(self, name: str) -> None:
        """A long press (held Pushbutton.LONG_MS): told to the host."""
        self.link.send("BTN", {"name": name, "press": "long"})

    async def roll(self) -> None:
        """Light for the camera, drop the dice, then tell the host to read them."""
        try:
            self.display.rolling()
            self.ring.set("capture")
            await self.gate.drop()
            self.link.send("ROLL", {})
        finally:
            self.rolling = False

    def on_host_lost(self, kind: str) -> None:
        """A message the host never acknowledged: say so on the panel rather than wait in silence."""
        self.ring.set("alarm")
        self.display.result(["NO HOST ANSWER", "", kind + " not taken.", "Check the USB", "cable and that", "the host runs."])

    # host messages ---------------------------------------------------------------------------
    def on_message(self, kind: str, fields: dict) -> None:
        """A new message from the host (see docs/protocol.md)."""
        if kind == "SCR":
            lines = []
            for i in range(8):
                key = str(i)
                if key not in fields:
                    break
                lines.append(fields[key])
            self.display.result(lines, fields.get("big"))
        elif kind == "IDLE":
            self.display.idle(fields.get("text", ""))
        elif kind == "LIGHT":
            if not self.ring.set(fields.get("mode", "")):
                self.link.post("ERR", {"what": "unknown light mode " + fields.get("mode", "")})
        elif kind != "HELLO":
            self.link.post("ERR", {"what": "unknown message " + kind})

    async def run(self, stream) -> None:
        """Run until `stream` (the host side of the link) reaches end of file."""
        self.display.boot(board.FW_VERSION)
        self.ring.set("idle")
        self.link.post("BOOT", {"fw": board.FW_VERSION, "proto": frame.PROTO})
        for button in self.buttons:
            asyncio.create_task(button.run())
        asyncio.create_task(self.link.sender())
        await self.link.reader(stream)


def main() -> None:
    """Start the tower on the board's pins, the link on stdin/stdout."""
    i2c = I2C(board.I2C_ID, scl=Pin(board.I2C_SCL), sda=Pin(board.I2C_SDA), freq=board.I2C_FREQ)
    out = getattr(sys.stdout, "buffer", sys.stdout)
    app = App(out.write, Display(i2c), Gate(), LightRing())
    stream = asyncio.StreamReader(getattr(sys.stdin, "buffer", sys.stdin))
    asyncio.run(app.run(stream))
