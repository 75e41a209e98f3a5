"""The WS2812 light ring around the camera: one colour per mode."""
import board
import neopixel
from machine import Pin

# mode -> (r, g, b), 0..255
MODES = {
    "off": (0, 0, 0),
    "idle": (12, 8, 4),          # dim warm glow
    "capture": (255, 255, 255),  # even white light for the camera
    "unsure": (255, 120, 0),     # amber: a reading waits for OK / NO
    "alarm": (255, 0, 0),        # red: a die failed the fairness watch, or the link is lost
}


class LightRing:
    """The ring of board.RING_COUNT LEDs on board.RING_PIN."""

    def __init__(self, pin: int = board.RING_PIN, count: int = board.RING_COUNT):
        self._np = neopixel.NeoPixel(Pin(pin, Pin.OUT), count)
        self.mode = "off"

    def set(self, mode: str) -> bool:
        """Light the ring in `mode` (a key of MODES); False, and no change, for an unknown mode."""
        colour = MODES.get(mode)
        if colour is None:
            return False
        self._np.fill(colour)
        self._np.write()
        self.mode = mode
        return True
