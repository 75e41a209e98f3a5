"""Sensor noise: how much a frame has, and the smoothing that takes it off before the dice are read.

A cheap camera in a dim tower gives grainy frames. The grain breaks a pip's edge and roughens a plain face,
so the pip filter finds pips it should not, and a face read right is flagged unsure: matteop65's photos with
Gaussian noise of 12 grey levels added per channel were read 0.818 per die, 42 % unsure, against 0.992 and
0.9 % clean. A Gaussian blur of up to a pixel takes the grain off and keeps a small die's 2-3 px pips, so a
frame is smoothed in proportion to the noise measured in it, and only when there is noise to take off: a
sharp photo is read as it is.

    from dicetower.vision.noise import noise_sigma, smoothed
    sigma = noise_sigma(grey)      # grey levels: ~0.4 for a phone photo, ~5.4 with sigma 8 added per channel
    frame = smoothed(frame_bgr)    # the frame itself when it is not noisy
"""

from __future__ import annotations

import cv2
import numpy as np

#: Immerkaer's mask: the difference of two Laplacians, blind to a frame's smooth shading and its ramps
LAPLACE_DIFFERENCE = np.array([[1, -2, 1], [-2, 4, -2], [1, -2, 1]], np.float32)
#: the share (%) of pixels with the strongest gradients left out of the estimate: a die's edges and numerals
#: and a table's grain are not noise (Tai and Yang 2008)
EDGE_SHARE = 10.0
#: grey levels of noise under which a frame is read as it is (matteop65's and realdice's photos measure 0.1-0.6,
#: lurig's up to 1.8; fickett's tiles, cut from JPEG photos of many dice, 1.6-3.8)
SMOOTH_FROM = 2.0
#: the Gaussian's sigma (px) per grey level of noise measured: 8 levels a channel (5.4 in grey) -> 0.38 px. 0.1 read
#: grainy pip dice better (matteop65 at 8 levels a channel: 1.1 % unsure, against 7.4 %) but blurred a numbered die's
#: numeral into a pip-like blob (a render's d10 "4", ~8 px, on felt measuring 6.6: a sure 1 at 0.66 px, unsure at 0.46);
#: 0.15 lost small dice's pips (bench small-dice row at 12 levels a channel: 0.84 per die)
BLUR_PER_LEVEL = 0.07
#: the widest smoothing (px): wider merges the pips of a small die (16 levels a channel: 1.07 px read the small-dice
#: row 0.94 per die, 0.75 px 0.976)
BLUR_MAX = 1.0


def noise_sigma(grey: np.ndarray) -> float:
    """The standard deviation (grey levels) of the white noise in a frame (grey: HxW uint8, at least 3x3
    px), by Immerkaer's estimator (J. Immerkaer, "Fast noise variance estimation", CVIU 64(2), 1996) over
    the pixels outside its strongest edges (EDGE_SHARE; S.-C. Tai and S.-M. Yang, "A fast method for image
    noise estimation using Laplacian operator and adaptive edge detection", ISCCSP 2008).
    Raises ValueError for a frame that is not HxW uint8 of at least 3x3 px."""
    if not isinstance(grey, np.ndarray) or grey.ndim != 2 or grey.dtype != np.uint8 or min(grey.shape) < 3:
        raise ValueError(f"noise is measured on a grey frame (HxW uint8, at least 3x3 px), got "
                         f"{getattr(grey, 'shape', None)} {getattr(grey, 'dtype', '')}")
    inner = (slice(1, -1), slice(1, -1))  # the border's responses see pixels reflected, not the frame's
    response = np.abs(cv2.filter2D(grey, cv2.CV_16S, LAPLACE_DIFFERENCE)[inner])
    gradient = cv2.add(cv2.convertScaleAbs(cv2.Sobel(grey, cv2.CV_16S, 1, 0)),
                       cv2.convertScaleAbs(cv2.Sobel(grey, cv2.CV_16S, 0, 1)))[inner]  # |dx| + |dy|, to 255
    counts = np.cumsum(np.bincount(gradient.ravel(), minlength=256))
    limit = int(np.searchsorted(counts, counts[-1] * (1.0 - EDGE_SHARE / 100.0)))
    response = response[gradient <= limit]
    return float(np.sqrt(np.pi / 2.0) * response.mean() / 6.0)


def smoothing_sigma(noise: float) -> float:
    """The Gaussian's sigma (px, 0.0 for none) that a frame with `noise` grey levels of noise
    (noise_sigma) is smoothed by: none under SMOOTH_FROM, then BLUR_PER_LEVEL px a level, at most BLUR_MAX."""
    return 0.0 if noise < SMOOTH_FROM else min(BLUR_MAX, BLUR_PER_LEVEL * noise)


def smoothed(frame: np.ndarray) -> np.ndarray:
    """The frame (HxWx3 uint8 BGR) with its noise smoothed off (a Gaussian blur of smoothing_sigma of its
    noise_sigma), or the frame itself when it is not noisy or smaller than 3x3 px."""
    if min(frame.shape[:2]) < 3:
        return frame
    sigma = smoothing_sigma(noise_sigma(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)))
    return frame if sigma == 0.0 else cv2.GaussianBlur(frame, (0, 0), sigma)
