"""The SSD1306 emulation and the OLED readers, on command streams written as the datasheet gives."""

import numpy as np
import pytest

from dicetower.sim import oled
from dicetower.sim.firmware_info import firmware_info
from dicetower.sim.ssd1306 import SSD1306Model


def cmds(*codes: int) -> bytes:
    """Commands sent one per control byte (Co=1, D/C#=0), as the ssd1306 driver does."""
    return b"".join(bytes([0x80, c]) for c in codes)


def powered() -> SSD1306Model:
    chip = SSD1306Model()
    chip.write(cmds(0xAE, 0x20, 0x00, 0xA1, 0xC8, 0xAF))  # off, horizontal, remap, COM reversed, on
    return chip


def test_horizontal_mode_window_wraps_to_next_page():
    chip = powered()
    chip.write(cmds(0x21, 10, 11, 0x22, 2, 3))
    chip.write(bytes([0x40, 0x01, 0x02, 0x04, 0x08]))  # Co=0 D/C#=1: all data
    assert chip.gddram[2, 10:12].tolist() == [0x01, 0x02]
    assert chip.gddram[3, 10:12].tolist() == [0x04, 0x08]
    img = chip.panel()
    assert img[16, 10] == 1 and img[17, 11] == 1 and img[26, 10] == 1 and img[27, 11] == 1
    assert img.sum() == 4


def test_page_and_vertical_modes():
    chip = powered()
    chip.write(cmds(0x20, 0x02, 0xB5, 0x03, 0x11))  # page mode, page 5, column 0x13
    chip.write(bytes([0x40, 0xFF, 0x81]))
    assert chip.gddram[5, 0x13] == 0xFF and chip.gddram[5, 0x14] == 0x81
    chip.write(cmds(0x20, 0x01, 0x21, 0, 127, 0x22, 0, 7))  # vertical: down the pages first
    chip.write(bytes([0x40, 1, 2, 3]))
    assert chip.gddram[0:3, 0].tolist() == [1, 2, 3]


def test_display_off_inverse_and_orientation():
    chip = powered()
    chip.write(cmds(0x21, 0, 127, 0x22, 0, 7))
    chip.write(bytes([0x40, 0x01]))
    assert chip.panel()[0, 0] == 1
    chip.write(cmds(0xA7))
    assert chip.panel()[0, 0] == 0 and chip.panel().sum() == 64 * 128 - 1
    chip.write(cmds(0xA6, 0xA0, 0xC0))  # no remap, normal scan: the module shows it rotated 180
    assert chip.panel()[63, 127] == 1
    chip.write(cmds(0xAE))
    assert chip.panel().sum() == 0


def test_multi_byte_commands_do_not_swallow_data():
    chip = powered()
    chip.write(cmds(0x81, 0xCF, 0xD5, 0x80, 0x21, 0, 127, 0x22, 0, 7))  # contrast, clock, window
    chip.write(bytes([0x40, 0x3C]))
    assert chip.gddram[0, 0] == 0x3C


def draw_text(rows: dict[int, str]) -> np.ndarray:
    """A 64x128 image with `rows` drawn from the firmware's own glyphs at x=0, y=8*row."""
    glyph_of = {c: k for k, c in firmware_info().glyphs.items()}
    img = np.zeros((64, 128), dtype=np.uint8)
    for row, text in rows.items():
        for i, ch in enumerate(text):
            bits = np.unpackbits(np.frombuffer(glyph_of[ch], dtype=np.uint8)).reshape(8, 8)
            img[8 * row:8 * row + 8, 8 * i:8 * i + 8] = bits
    return img


def test_lines_decode_every_printable_character():
    glyphs = firmware_info().glyphs
    assert len(glyphs) == 95  # every printable ASCII character has its own glyph
    chars = "".join(chr(c) for c in range(33, 127))
    rows = {i: chars[16 * i:16 * (i + 1)] for i in range(6)}
    assert oled.lines(draw_text(rows), glyphs)[:6] == [rows[i] for i in range(6)]


def test_cell_that_is_no_glyph_reads_as_replacement():
    img = draw_text({0: "ab"})
    img[0:8, 16:24] = np.eye(8, dtype=np.uint8)
    assert oled.lines(img, firmware_info().glyphs)[0] == "ab" + oled.UNKNOWN


def test_big_figure_decoded_from_scaled_glyphs():
    small = draw_text({0: "12"})[:8, :16]
    img = np.zeros((64, 128), dtype=np.uint8)
    img[0:32, 32:96] = np.kron(small, np.ones((4, 4), dtype=np.uint8))
    assert oled.big_figure(img, firmware_info().glyphs) == "12"
    assert oled.big_figure(draw_text({0: "12"}), firmware_info().glyphs) is None


def test_text_art_and_png(tmp_path):
    cv2 = pytest.importorskip("cv2")
    img = draw_text({3: "HELLO"})
    art = oled.text_art(img).split("\n")
    assert len(art) == 32 and art[12:16] != ["", "", "", ""]
    path = oled.save_png(img, tmp_path / "oled.png", scale=3)
    png = cv2.imread(str(path), cv2.IMREAD_GRAYSCALE)
    assert png.shape == (192, 384)
    assert np.array_equal(png[::3, ::3] > 0, img.astype(bool))
    with pytest.raises(OSError, match="could not write PNG"):
        oled.save_png(img, tmp_path / "missing" / "oled.png")
