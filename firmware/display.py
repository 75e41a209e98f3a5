"""The 128x64 SSD1306 OLED (driver build/fwlib/ssd1306.py over machine.I2C): the tower's screens.

Text is the built-in 8x8 font on the 8 px grid: row i at y = 8*i, from x = 0, at most COLS = 16
characters per row (longer lines are cut) and ROWS = 8 rows. A result screen is up to 8 lines, or
one large figure (the font scaled BIG_SCALE times, at most BIG_CHARS characters, centred in rows
0..3) and up to 3 lines in rows 5..7.
"""
import framebuf
import ssd1306
from micropython import const

import board

COLS = const(16)
ROWS = const(8)
BIG_SCALE = const(4)
BIG_CHARS = const(4)
BIG_LINES_ROW = const(5)   # first text row under a large figure
TITLE = "DICE TOWER"


def wrap(text: str, width: int = COLS) -> list:
    """`text` cut into rows of at most `width` characters, at spaces where it can."""
    rows = []
    line = ""
    for word in text.split():
        while len(word) > width:
            if line:
                rows.append(line)
                line = ""
            rows.append(word[:width])
            word = word[width:]
        if not line:
            line = word
        elif len(line) + 1 + len(word) <= width:
            line = line + " " + word
        else:
            rows.append(line)
            line = word
    if line:
        rows.append(line)
    return rows


class Display:
    """The tower's screens on an SSD1306 at board.OLED_ADDR on `i2c` (machine.I2C)."""

    def __init__(self, i2c):
        self.oled = ssd1306.SSD1306_I2C(board.OLED_WIDTH, board.OLED_HEIGHT, i2c, board.OLED_ADDR)
        self.fb = self.oled.framebuf
        # one row of up to BIG_CHARS glyphs, drawn once and scaled up for a large figure
        self._big_buf = bytearray(BIG_CHARS * 8)
        self._big = framebuf.FrameBuffer(self._big_buf, BIG_CHARS * 8, 8, framebuf.MONO_HLSB)

    def _rows(self, lines, first_row: int = 0) -> None:
        row = first_row
        for line in lines:
            if row >= ROWS:
                break
            self.fb.text(line[:COLS], 0, 8 * row, 1)
            row += 1

    def _big_figure(self, text: str) -> None:
        text = text[:BIG_CHARS]
        self._big.fill(0)
        self._big.text(text, 0, 0, 1)
        size = 8 * BIG_SCALE
        x0 = (board.OLED_WIDTH - size * len(text)) // 2
        for y in range(8):
            for x in range(8 * len(text)):
                if self._big.pixel(x, y):
                    self.fb.fill_rect(x0 + x * BIG_SCALE, y * BIG_SCALE, BIG_SCALE, BIG_SCALE, 1)

    def boot(self, fw: str) -> None:
        """Boot screen: title, firmware version, waiting for the host."""
        self.fb.fill(0)
        self._rows((TITLE, "fw " + fw, "", "waiting for", "the host..."))
        self.oled.show()

    def idle(self, text: str) -> None:
        """Idle screen: title, then the host's line (e.g. the odds of the next roll) wrapped."""
        self.fb.fill(0)
        self._rows((TITLE, ""))
        self._rows(wrap(text)[:ROWS - 2], 2)
        self.oled.show()

    def rolling(self) -> None:
        """Shown while the dice drop and the host reads them."""
        self.fb.fill(0)
        self._rows((TITLE, "", "", "rolling..."))
        self.oled.show()

    def result(self, lines, big=None) -> None:
        """Result screen as the host sent it: `lines` (up to 8, or up to 3 under a `big` figure)."""
        self.fb.fill(0)
        if big:
            self._big_figure(big)
            self._rows(lines[:ROWS - BIG_LINES_ROW], BIG_LINES_ROW)
        else:
            self._rows(lines)
        self.oled.show()
