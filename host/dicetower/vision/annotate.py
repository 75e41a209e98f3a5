"""The annotated frame: each die's box, value and confidence drawn on the photo, so a person can see
what was read (unsure dice in red, sure ones in green)."""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path

import cv2
import numpy as np

from dicetower.readings import DieReading


#: the label's font (OpenCV Hershey simplex) at a 640 px frame, and its least size at any frame
LABEL_SCALE = 0.5
LABEL_SCALE_MIN = 0.45
#: the box colour (BGR) of a reading a person said is no die
NO_DIE = (128, 128, 128)


def guesses(reading: DieReading) -> str:
    """The reader's next guesses for a reading as an unsure die's label ends with them: " or 16/19/18"
    (another die type's as "d8:3": DieReading.guess_label), "" when it has none."""
    shown = [reading.guess_label(t, v) for t, v in reading.alternatives]
    return " or " + "/".join(shown) if shown else ""


def annotate(image: np.ndarray, readings: list[DieReading], numbered: bool = False,
             not_dice: Collection[int] = ()) -> np.ndarray:
    """A copy of image (HxWx3 uint8 BGR) with a box and a "d6 5 0.97" label per reading; unsure or cocked readings are
    drawn red with "?" / "cocked", sure ones green; an unsure reading's label ends with the reader's next guesses
    ("d20 10 0.08 ? or 16/19/18": guesses). numbered: each label starts with the die's number in readings, from 1
    ("2: d6 4 0.60 ?"), as the tower's prompt numbers it ("UNSURE DIE 2"). not_dice: indices into readings a person
    said are no die (RollResult.not_dice), drawn grey and labelled "no die". The label is white on a band of its box's
    colour, above the box (inside its top when the box touches the frame's top), moved left to stay inside the
    frame: legible on any tray, at any frame size (the font grows with the frame, never under LABEL_SCALE_MIN)."""
    out = image.copy()
    height, width = out.shape[:2]
    scale = max(height, width) / 640.0
    thick = max(1, int(round(2 * scale)))
    font, font_scale = cv2.FONT_HERSHEY_SIMPLEX, max(LABEL_SCALE_MIN, LABEL_SCALE * scale)
    text_thick = max(1, int(round(scale)))
    pad = max(2, int(round(2 * scale)))
    for i, r in enumerate(readings):
        x, y, w, h = r.box
        colour = NO_DIE if i in not_dice else (0, 0, 255) if r.unsure else (0, 160, 0)
        cv2.rectangle(out, (x, y), (x + w, y + h), colour, thick)
        label = f"{r.die_type} {'?' if r.value is None else r.value} {r.confidence:.2f}"
        if i in not_dice:
            label = "no die"
        elif r.cocked:
            label += " cocked"
        elif r.unsure:
            label += " ?" + guesses(r)
        if numbered:
            label = f"{i + 1}: {label}"
        (tw, th), base = cv2.getTextSize(label, font, font_scale, text_thick)
        band_w, band_h = tw + 2 * pad, th + base + 2 * pad
        left = min(max(x, 0), max(width - band_w, 0))
        top = y - band_h if y - band_h >= 0 else max(y, 0)
        cv2.rectangle(out, (left, top), (left + band_w - 1, top + band_h - 1), colour, cv2.FILLED)
        cv2.putText(out, label, (left + pad, top + pad + th), font, font_scale, (255, 255, 255), text_thick,
                    cv2.LINE_AA)
    return out


def save_annotated(image: np.ndarray, readings: list[DieReading], path: Path, numbered: bool = False,
                   not_dice: Collection[int] = ()) -> Path:
    """Write annotate(image, readings, numbered, not_dice) as a PNG at path (folders created). Returns path.
    Raises OSError when the file cannot be written."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    ok, data = cv2.imencode(".png", annotate(image, readings, numbered, not_dice))
    if not ok:
        raise OSError(f"{path}: PNG encoding failed")
    path.write_bytes(data.tobytes())
    return path
