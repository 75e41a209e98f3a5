"""An SSD1306 128x64 OLED controller, emulated from the bytes written to it over I2C.

It keeps the chip's GDDRAM (8 pages x 128 columns, one byte = 8 vertical pixels, LSB on top) and
follows the command stream (datasheet, SSD1306 rev 1.1, section 10): the control byte (Co, D/C#),
addressing modes (0x20: horizontal, vertical, page), column/page windows (0x21, 0x22, 0xB0-0xB7,
0x00-0x1F), display on/off (0xAE/0xAF), inverse (0xA6/0xA7), entire-on (0xA4/0xA5), segment remap
(0xA0/0xA1) and COM scan direction (0xC0/0xC8). `panel()` is what the glass shows, assuming the
module is mounted so that remap 0xA1 with scan 0xC8 (what drivers send) shows GDDRAM upright.
"""

from __future__ import annotations

import numpy as np

WIDTH = 128
HEIGHT = 64
PAGES = HEIGHT // 8

# commands followed by parameter bytes: opcode -> number of parameters
_PARAMS = {0x20: 1, 0x21: 2, 0x22: 2, 0x81: 1, 0x8D: 1, 0xA8: 1, 0xD3: 1, 0xD5: 1, 0xD9: 1, 0xDA: 1,
           0xDB: 1, 0x26: 6, 0x27: 6, 0x29: 5, 0x2A: 5, 0xA3: 2}


class SSD1306Model:
    """The chip's state. Feed it each I2C write with `write(data)`; read `gddram` or `panel()`."""

    def __init__(self) -> None:
        self.gddram = np.zeros((PAGES, WIDTH), dtype=np.uint8)
        self.display_on = False
        self.inverse = False
        self.entire_on = False
        self.seg_remap = False
        self.com_reversed = False
        self.mode = 2  # page addressing after reset
        self.col_start, self.col_end, self.col = 0, WIDTH - 1, 0
        self.page_start, self.page_end, self.page = 0, PAGES - 1, 0
        self.writes = 0  # I2C transactions taken
        self._cmd: list[int] = []

    # I2C ------------------------------------------------------------------------------------
    def write(self, data: bytes) -> None:
        """One I2C write transaction to the chip (the bytes after the address). Each control byte
        says whether the next byte (Co=1) or all the remaining bytes (Co=0) are commands
        (D/C#=0) or GDDRAM data (D/C#=1)."""
        self.writes += 1
        i = 0
        while i < len(data):
            control = data[i]
            i += 1
            co, dc = control & 0x80, control & 0x40
            chunk = data[i:i + 1] if co else data[i:]
            i += len(chunk)
            for byte in chunk:
                if dc:
                    self._data(byte)
                else:
                    self._command_byte(byte)

    def _command_byte(self, byte: int) -> None:
        self._cmd.append(byte)
        if len(self._cmd) - 1 < _PARAMS.get(self._cmd[0], 0):
            return
        op, args = self._cmd[0], self._cmd[1:]
        self._cmd = []
        if op == 0x20:
            self.mode = args[0] & 0x03
        elif op == 0x21:
            self.col_start, self.col_end = args[0] & 0x7F, args[1] & 0x7F
            self.col = self.col_start
        elif op == 0x22:
            self.page_start, self.page_end = args[0] & 0x07, args[1] & 0x07
            self.page = self.page_start
        elif 0xB0 <= op <= 0xB7:
            self.page = op & 0x07
        elif op <= 0x0F:
            self.col = (self.col & 0xF0) | op
        elif op <= 0x1F:
            self.col = (self.col & 0x0F) | ((op & 0x07) << 4)
        elif op in (0xAE, 0xAF):
            self.display_on = op == 0xAF
        elif op in (0xA6, 0xA7):
            self.inverse = op == 0xA7
        elif op in (0xA4, 0xA5):
            self.entire_on = op == 0xA5
        elif op in (0xA0, 0xA1):
            self.seg_remap = op == 0xA1
        elif op in (0xC0, 0xC8):
            self.com_reversed = op == 0xC8
        # other commands (contrast, timing, charge pump, scrolling setup) do not change the image

    def _data(self, byte: int) -> None:
        self.gddram[self.page, self.col] = byte
        if self.mode == 0:  # horizontal: columns, then next page, wrapping within the window
            if self.col >= self.col_end:
                self.col = self.col_start
                self.page = self.page_start if self.page >= self.page_end else self.page + 1
            else:
                self.col += 1
        elif self.mode == 1:  # vertical: pages, then next column
            if self.page >= self.page_end:
                self.page = self.page_start
                self.col = self.col_start if self.col >= self.col_end else self.col + 1
            else:
                self.page += 1
        else:  # page mode: column pointer wraps within the page
            self.col = 0 if self.col >= WIDTH - 1 else self.col + 1

    # image ----------------------------------------------------------------------------------
    def pixels(self) -> np.ndarray:
        """GDDRAM as a 64x128 uint8 array of 0/1 (row = page*8 + bit)."""
        bits = np.unpackbits(self.gddram[:, None, :], axis=1, bitorder="little")  # pages x 8 x 128
        return bits.reshape(HEIGHT, WIDTH)

    def panel(self) -> np.ndarray:
        """What the glass shows: 64x128 uint8 array of 0/1 (1 = lit)."""
        if not self.display_on:
            return np.zeros((HEIGHT, WIDTH), dtype=np.uint8)
        if self.entire_on:
            return np.ones((HEIGHT, WIDTH), dtype=np.uint8)
        img = self.pixels()
        if not self.seg_remap:
            img = img[:, ::-1]
        if not self.com_reversed:
            img = img[::-1, :]
        if self.inverse:
            img = 1 - img
        return np.ascontiguousarray(img)
