"""Scoring readings against a labelled photo set (the labels.csv form of ../shared/datasets:
image,die_type,value,x,y,w,h,colour): labels grouped per image, each labelled die paired with the
die read for it, and close-ups made from a labelled die. Used by `make bench` and the vision tests."""

from __future__ import annotations

import csv
from collections import defaultdict
from pathlib import Path

import cv2
import numpy as np


def load_labels(folder: Path) -> dict[str, list[dict[str, str]]]:
    """labels.csv rows grouped by image (path relative to folder)."""
    by_image: dict[str, list[dict[str, str]]] = defaultdict(list)
    with open(folder / "labels.csv", newline="") as fh:
        for row in csv.DictReader(fh):
            by_image[row["image"]].append(row)
    return by_image


def match(labels: list[dict[str, str]], dice: list[dict]) -> list[tuple[dict[str, str], dict | None]]:
    """Pair each labelled die (labels.csv rows of one image) with at most one read die (DieReading.to_json()
    dicts, box [x, y, w, h] px): the nearest whose box holds the label's centre or whose centre lies in
    the label's box (labels may box only the pip pattern, so no IoU). A label without a box (one die
    per image) takes the most confident die of the label's colour when the label names a colour (the
    only check, without a box, that the die found is the labelled one and not a piece of the scene or
    a box mostly of floor), else the most confident die. Returns (label row, die dict or None) per
    label."""
    free = list(range(len(dice)))
    pairs: list[tuple[dict[str, str], dict | None]] = []
    for lab in labels:
        if not lab["x"]:
            named = [i for i in free if not lab["colour"] or dice[i].get("colour") == lab["colour"]]
            best = max(named, key=lambda i: dice[i]["confidence"], default=None)
        else:
            lx, ly, lw, lh = (float(lab[k]) for k in ("x", "y", "w", "h"))
            cx, cy = lx + lw / 2, ly + lh / 2
            best, best_d = None, float("inf")
            for i in free:
                x, y, w, h = dice[i]["box"]
                dx, dy = x + w / 2, y + h / 2
                inside = (x <= cx <= x + w and y <= cy <= y + h) or (lx <= dx <= lx + lw and ly <= dy <= ly + lh)
                d = (dx - cx) ** 2 + (dy - cy) ** 2
                if inside and d < best_d:
                    best, best_d = i, d
        if best is not None:
            free.remove(best)
        pairs.append((lab, None if best is None else dice[best]))
    return pairs


#: a label that boxes a pip die's pip pattern (matteop65's): the die's side is about this many times the
#: box's larger side
DIE_OF_PIP_BOX = 1.45


def close_up(photo: np.ndarray, box: tuple[int, int, int, int], frac: float,
             size: tuple[int, int] = (640, 480)) -> tuple[np.ndarray, tuple[int, int, float]]:
    """A close-up (a phone held near the dice) of the die whose pip pattern is labelled box (x, y, w, h
    px) in photo (HxWx3 uint8 BGR): a 4:3 crop, kept inside the photo, in which the die (DIE_OF_PIP_BOX
    x the box's larger side) spans frac of the height, resized to size (w, h) px by cubic interpolation
    (so blurrier than a real close-up). Returns (frame, (x0, y0, k)): a photo point (x, y) lies at
    ((x - x0) k, (y - y0) k) in the frame. Raises ValueError when the crop is larger than the photo."""
    x, y, w, h = box
    ch = DIE_OF_PIP_BOX * max(w, h) / frac
    cw = ch * 4 / 3
    if cw > photo.shape[1] or ch > photo.shape[0]:
        raise ValueError(f"a close-up spanning {frac} of its height needs a {cw:.0f}x{ch:.0f} px crop, larger "
                         f"than the {photo.shape[1]}x{photo.shape[0]} photo: give a larger frac")
    x0 = int(np.clip(x + w / 2 - cw / 2, 0, photo.shape[1] - cw))
    y0 = int(np.clip(y + h / 2 - ch / 2, 0, photo.shape[0] - ch))
    frame = cv2.resize(photo[y0:y0 + int(ch), x0:x0 + int(cw)], size, interpolation=cv2.INTER_CUBIC)
    return frame, (x0, y0, size[0] / cw)
