"""Simulated `neopixel`: the same class as micropython-lib's neopixel.py (which the ESP32 firmware
freezes), writing its GRB buffer through machine.bitstream."""
from machine import bitstream


class NeoPixel:
    """`n` WS2812 LEDs on `pin`; `bpp` bytes per LED (3: GRB)."""

    ORDER = (1, 0, 2, 3)

    def __init__(self, pin, n, bpp=3, timing=1):
        self.pin = pin
        self.n = n
        self.bpp = bpp
        self.buf = bytearray(n * bpp)
        self.pin.init(pin.OUT)
        self.timing = timing

    def __len__(self):
        return self.n

    def __setitem__(self, i, v):
        offset = i * self.bpp
        for k in range(self.bpp):
            self.buf[offset + self.ORDER[k]] = v[k]

    def __getitem__(self, i):
        offset = i * self.bpp
        return tuple(self.buf[offset + self.ORDER[k]] for k in range(self.bpp))

    def fill(self, v):
        b = self.buf
        for i in range(self.bpp):
            c = v[i]
            for j in range(self.ORDER[i], len(b), self.bpp):
                b[j] = c

    def write(self):
        bitstream(self.pin, 0, self.timing, self.buf)
