"""Body colour names of dice (white, yellow, red, ...), from the die's pixels in HSV."""

from __future__ import annotations

import cv2
import numpy as np

#: Hue bands (OpenCV hue, 0..180) of the chromatic colour names, checked in order.
HUE_NAMES = [(8, "red"), (20, "orange"), (35, "yellow"), (85, "green"), (130, "blue"), (155, "purple"),
             (170, "pink"), (181, "red")]


#: Below this HSV value (0..255) a die is black; below this saturation it is white or grey.
BLACK_BELOW_V = 60
GREY_BELOW_S = 50  # webcams tint white dice blue or yellow; real colours are much more saturated


def colour_name(pixels_bgr: np.ndarray) -> str:
    """Name of the dominant colour of a die body. pixels_bgr: Nx3 (or HxWx3) uint8 BGR pixels of the
    body only (no pips, no table). Returns one of white, grey, black, red, orange, yellow, green,
    blue, purple, pink. Raises ValueError on an empty pixel set."""
    px = np.asarray(pixels_bgr, dtype=np.uint8).reshape(-1, 1, 3)
    if px.shape[0] == 0:
        raise ValueError("colour_name: no pixels to name")
    hsv = cv2.cvtColor(px, cv2.COLOR_BGR2HSV).reshape(-1, 3).astype(float)
    h, s, v = np.median(hsv[:, 0]), np.median(hsv[:, 1]), np.median(hsv[:, 2])
    if v < BLACK_BELOW_V:
        return "black"
    if s < GREY_BELOW_S:
        return "white" if v > 150 else "grey"
    for upper, name in HUE_NAMES:
        if h < upper:
            return name
    return "red"


def colour_mask(image_bgr: np.ndarray, name: str) -> np.ndarray:
    """Pixels of a chromatic colour name (one of HUE_NAMES: red, orange, yellow, green, blue, purple,
    pink) by the same HSV bands as colour_name. image_bgr: HxWx3 uint8 BGR. Returns HxW bool.
    Raises ValueError for a name that is not chromatic (white, grey, black have no hue band)."""
    if name not in {n for _, n in HUE_NAMES}:
        raise ValueError(f"colour_mask: {name!r} is not one of the chromatic colour names "
                         f"{sorted({n for _, n in HUE_NAMES})}")
    hsv = cv2.cvtColor(image_bgr, cv2.COLOR_BGR2HSV)
    hue = hsv[..., 0]
    band = np.zeros(hue.shape, bool)
    lower = 0
    for upper, n in HUE_NAMES:
        if n == name:
            band |= (hue >= lower) & (hue < upper)
        lower = upper
    return band & (hsv[..., 1] >= GREY_BELOW_S) & (hsv[..., 2] >= BLACK_BELOW_V)
