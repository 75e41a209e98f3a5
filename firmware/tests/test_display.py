"""Screen layout (display.py) through the real ssd1306 driver, with an I2C bus that records writes."""
import framebuf

import display


class RecordingI2C:
    """Keeps each I2C write; the last 1025-byte write is the frame buffer sent by show()."""

    def __init__(self):
        self.writes = []

    def writeto(self, addr, buf, stop=True):
        self.writes.append((addr, bytes(buf)))
        return len(buf)

    def frame(self):
        for addr, data in reversed(self.writes):
            if len(data) == 1025:
                assert addr == 0x3C and data[0] == 0x40  # data (D/C#=1) to the OLED's address
                return data[1:]
        raise AssertionError("no frame buffer was sent")


def make():
    bus = RecordingI2C()
    return display.Display(bus), bus


def expected(rows):
    """The frame buffer bytes of text `rows` ((row, text) pairs) drawn at x=0, y=8*row."""
    buf = bytearray(1024)
    fb = framebuf.FrameBuffer(buf, 128, 64, framebuf.MONO_VLSB)
    for row, text in rows:
        fb.text(text, 0, 8 * row, 1)
    return bytes(buf)


def test_result_lines_are_on_the_8px_grid_and_sent_to_the_oled():
    screen, bus = make()
    lines = ["d6: 6 5 3 1", "", "3 successes", "x" * 20]
    screen.result(lines)
    assert bus.frame() == expected([(0, "d6: 6 5 3 1"), (2, "3 successes"), (3, "x" * 16)])


def test_at_most_eight_rows_are_drawn():
    screen, bus = make()
    screen.result(["row %d" % i for i in range(10)])
    assert bus.frame() == expected([(i, "row %d" % i) for i in range(8)])


def test_big_figure_is_the_glyph_scaled_4x_centred_with_three_lines_below():
    screen, bus = make()
    screen.result(["d6: 6 6 5", "successes", "5 sixes", "dropped"], "4")
    fb = screen.fb
    glyph = bytearray(8)
    small = framebuf.FrameBuffer(glyph, 8, 8, framebuf.MONO_HLSB)
    small.text("4", 0, 0, 1)
    x0 = (128 - 32) // 2
    for y in range(32):
        for x in range(128):
            inside = x0 <= x < x0 + 32
            want = small.pixel((x - x0) // 4, y // 4) if inside else 0
            assert fb.pixel(x, y) == want, (x, y)
    rows = expected([(5, "d6: 6 6 5"), (6, "successes"), (7, "5 sixes")])
    assert bus.frame()[5 * 128:] == rows[5 * 128:]   # pages 5..7: the lines, the 4th cut
    assert bus.frame()[4 * 128:5 * 128] == bytes(128)  # page 4 blank between figure and lines


def test_idle_screen_shows_title_and_wrapped_host_line():
    screen, bus = make()
    screen.idle("P(3+ successes) = 42.1%")
    assert bus.frame() == expected([(0, "DICE TOWER"), (2, "P(3+ successes)"), (3, "= 42.1%")])


def test_wrap_keeps_words_and_cuts_long_ones():
    assert display.wrap("a bb ccc") == ["a bb ccc"]
    assert display.wrap("one two three four five six") == ["one two three", "four five six"]
    assert display.wrap("x" * 20 + " y") == ["x" * 16, "xxxx y"]
    assert all(len(r) <= 16 for r in display.wrap("lorem ipsum dolor sit amet consectetur adipiscing"))
