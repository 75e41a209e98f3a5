"""Reading the OLED image: text art, text decoded from the 8x8 grid, the large figure, PNG."""

from __future__ import annotations

from pathlib import Path

import numpy as np

UNKNOWN = "\N{REPLACEMENT CHARACTER}"  # an 8x8 cell that is no glyph of the font
BIG_SCALE = 4   # firmware/display.py: a large figure is the font scaled 4x in rows 0..3
BIG_ROWS = 4


def text_art(img: np.ndarray) -> str:
    """64x128 0/1 image -> 32 lines of 128 characters, two pixel rows per character (half blocks)."""
    chars = {(0, 0): " ", (1, 0): "\u2580", (0, 1): "\u2584", (1, 1): "\u2588"}
    lines = []
    for y in range(0, img.shape[0], 2):
        lines.append("".join(chars[(int(a), int(b))] for a, b in zip(img[y], img[y + 1])).rstrip())
    return "\n".join(lines)


def _cell_key(cell: np.ndarray) -> bytes:
    return np.packbits(cell.astype(np.uint8), axis=1).tobytes()  # 8 bytes, MSB = leftmost pixel


def decode_row(strip: np.ndarray, glyphs: dict[bytes, str]) -> str:
    """8xW 0/1 strip -> the characters of its 8x8 cells (UNKNOWN for a cell that is no glyph),
    right-stripped of spaces."""
    cells = [glyphs.get(_cell_key(strip[:, x:x + 8]), UNKNOWN) for x in range(0, strip.shape[1] - 7, 8)]
    return "".join(cells).rstrip()


def lines(img: np.ndarray, glyphs: dict[bytes, str]) -> list[str]:
    """The 8 text rows of a 64x128 0/1 image (row i at y = 8*i), each right-stripped."""
    return [decode_row(img[y:y + 8], glyphs) for y in range(0, img.shape[0], 8)]


def big_figure(img: np.ndarray, glyphs: dict[bytes, str]) -> str | None:
    """The large figure in rows 0..3 (glyphs scaled BIG_SCALE times, centred), or None when those
    rows hold no such figure."""
    region = img[: 8 * BIG_ROWS]
    if not region.any():
        return None
    small = region[::BIG_SCALE, ::BIG_SCALE]
    # each big pixel must be a solid BIG_SCALE square
    if not np.array_equal(np.kron(small, np.ones((BIG_SCALE, BIG_SCALE), dtype=np.uint8)), region):
        return None
    for offset in range(0, 8, 2):  # centring puts glyph cells on a 2-pixel grid after downscaling
        text = decode_row(small[:, offset:], glyphs).strip()
        if text and UNKNOWN not in text:
            return text
    return None


def save_png(img: np.ndarray, path: str | Path, scale: int = 4) -> Path:
    """Write the 64x128 0/1 image as a PNG, `scale` times larger, lit pixels white on black.
    Raises OSError when OpenCV cannot write the file."""
    import cv2

    path = Path(path)
    big = np.kron(img.astype(np.uint8) * 255, np.ones((scale, scale), dtype=np.uint8))
    if not cv2.imwrite(str(path), big):
        raise OSError(f"could not write PNG {path}: check the folder exists and is writable")
    return path
