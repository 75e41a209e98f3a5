"""The annotated frame: each die's box, value and confidence drawn on the photo, so a person can see
what was read (unsure dice in red, sure ones in green)."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from dicetower.readings import DieReading


def annotate(image: np.ndarray, readings: list[DieReading]) -> np.ndarray:
    """A copy of image (HxWx3 uint8 BGR) with a box and a "d6 5 0.97" label per reading; unsure or
    cocked readings are drawn red with "?" / "cocked"."""
    out = image.copy()
    scale = max(out.shape[:2]) / 640.0
    thick = max(1, int(round(2 * scale)))
    for r in readings:
        x, y, w, h = r.box
        colour = (0, 0, 255) if r.unsure else (0, 200, 0)
        cv2.rectangle(out, (x, y), (x + w, y + h), colour, thick)
        label = f"{r.die_type} {'?' if r.value is None else r.value} {r.confidence:.2f}"
        if r.cocked:
            label += " cocked"
        elif r.unsure:
            label += " ?"
        org = (x, max(int(14 * scale), y - int(4 * scale)))
        cv2.putText(out, label, org, cv2.FONT_HERSHEY_SIMPLEX, 0.5 * scale, (0, 0, 0), thick + 2, cv2.LINE_AA)
        cv2.putText(out, label, org, cv2.FONT_HERSHEY_SIMPLEX, 0.5 * scale, colour, thick, cv2.LINE_AA)
    return out


def save_annotated(image: np.ndarray, readings: list[DieReading], path: Path) -> Path:
    """Write annotate(image, readings) as a PNG at path (folders created). Returns path.
    Raises OSError when the file cannot be written."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    ok, data = cv2.imencode(".png", annotate(image, readings))
    if not ok:
        raise OSError(f"{path}: PNG encoding failed")
    path.write_bytes(data.tobytes())
    return path
