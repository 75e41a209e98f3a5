"""Body colour names of dice (white, yellow, red, ...), from the die's pixels in HSV."""

from __future__ import annotations

import cv2
import numpy as np

#: Hue bands (OpenCV hue, 0..180) of the chromatic colour names, checked in order.
HUE_NAMES = [(8, "red"), (20, "orange"), (35, "yellow"), (85, "green"), (130, "blue"), (155, "purple"),
             (170, "pink"), (181, "red")]


def colour_name(pixels_bgr: np.ndarray) -> str:
    """Name of the dominant colour of a die body. pixels_bgr: Nx3 (or HxWx3) uint8 BGR pixels of the
    body only (no pips, no table). Returns one of white, grey, black, red, orange, yellow, green,
    blue, purple, pink. Raises ValueError on an empty pixel set."""
    px = np.asarray(pixels_bgr, dtype=np.uint8).reshape(-1, 1, 3)
    if px.shape[0] == 0:
        raise ValueError("colour_name: no pixels to name")
    hsv = cv2.cvtColor(px, cv2.COLOR_BGR2HSV).reshape(-1, 3).astype(float)
    h, s, v = np.median(hsv[:, 0]), np.median(hsv[:, 1]), np.median(hsv[:, 2])
    if v < 60:
        return "black"
    if s < 50:  # webcams tint white dice blue or yellow; real colours are much more saturated
        return "white" if v > 150 else "grey"
    for upper, name in HUE_NAMES:
        if h < upper:
            return name
    return "red"
