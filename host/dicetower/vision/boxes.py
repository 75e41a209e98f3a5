"""Axis-aligned boxes (x, y, w, h) in px, as the detector, the readers, calibration and the bench
compare them: whether two meet, how much of them is shared, whether one holds a point."""

from __future__ import annotations

from collections.abc import Sequence

Box = Sequence[int]


def intersection(a: Box, b: Box) -> int:
    """Area (px^2) that boxes a and b share; 0 when they do not meet."""
    iw = min(a[0] + a[2], b[0] + b[2]) - max(a[0], b[0])
    ih = min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1])
    return max(0, iw) * max(0, ih)


def iou(a: Box, b: Box) -> float:
    """Intersection over union of boxes a and b (0..1; the PASCAL VOC overlap)."""
    inter = intersection(a, b)
    return inter / max(1, a[2] * a[3] + b[2] * b[3] - inter)


def overlap(a: Box, b: Box) -> float:
    """Intersection over the smaller box's area (0..1): 1 when one box lies within the other."""
    return intersection(a, b) / max(1, min(a[2] * a[3], b[2] * b[3]))


def meets(a: Box, b: Box) -> bool:
    """True when boxes a and b share a pixel."""
    return a[0] < b[0] + b[2] and b[0] < a[0] + a[2] and a[1] < b[1] + b[3] and b[1] < a[1] + a[3]


def holds(box: Box, point: Sequence[float]) -> bool:
    """True when box holds point (x, y) px, its edges included."""
    return box[0] <= point[0] <= box[0] + box[2] and box[1] <= point[1] <= box[1] + box[3]


def centre(box: Box) -> tuple[float, float]:
    """The centre (x, y) px of box."""
    return box[0] + box[2] / 2, box[1] + box[3] / 2


def grown(box: Box, frac: float) -> tuple[int, int, int, int]:
    """box (x, y, w, h) px grown by frac of its size on every side (shrunk for frac < 0)."""
    x, y, w, h = box
    return int(x - frac * w), int(y - frac * h), int(w * (1 + 2 * frac)), int(h * (1 + 2 * frac))
