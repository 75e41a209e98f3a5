"""shape.face_structure (where face edges and numerals lie inside the die) on drawn top-down dice
whose geometry is known, and shape.close_up (renders framed as close-ups)."""

from __future__ import annotations

import cv2
import numpy as np

from dicetower.vision import synth
from dicetower.vision.shape import (EDGE_DISTANCE_BINS, FACE_STRUCTURE_NAMES, RING_HARMONICS, RINGS, SIDE,
                                    close_up, face_structure)

CENTRE = (SIDE / 2, SIDE / 2)
RADIUS = 50.0


def polygon(n: int, circumradius: float, turn: float = 0.0) -> np.ndarray:
    """Vertices (n x 2, px) of a regular n-gon centred on CENTRE."""
    a = turn + 2 * np.pi * np.arange(n) / n
    return np.stack([CENTRE[0] + circumradius * np.cos(a), CENTRE[1] + circumradius * np.sin(a)], 1)


def drawn_die(faces: list[np.ndarray]) -> np.ndarray:
    """A light grey disc of RADIUS on a white tray with the given face outlines drawn as dark 2 px
    edges (a top-down die seen square on)."""
    img = np.full((SIDE, SIDE), 235, np.uint8)
    cv2.circle(img, (SIDE // 2, SIDE // 2), int(RADIUS), 150, -1)
    for f in faces:
        cv2.polylines(img, [np.round(f).astype(np.int32)], True, 40, 2, cv2.LINE_AA)
    return img


def structure(img: np.ndarray) -> dict[str, float]:
    blur = cv2.GaussianBlur(img.astype(np.float32), (0, 0), 1.5)
    gx, gy = cv2.Sobel(blur, cv2.CV_32F, 1, 0), cv2.Sobel(blur, cv2.CV_32F, 0, 1)
    die = np.zeros_like(img)
    cv2.circle(die, (SIDE // 2, SIDE // 2), int(RADIUS), 255, -1)
    segs = cv2.createLineSegmentDetector().detect(img)[0]
    values = face_structure(img, gx, gy, die, CENTRE, RADIUS, segs)
    assert values.shape == (len(FACE_STRUCTURE_NAMES),) and np.isfinite(values).all()
    return dict(zip(FACE_STRUCTURE_NAMES, values.tolist()))


def ring_of(r: float) -> int:
    return next(i for i, (a, b) in enumerate(RINGS) if a <= r < b)


def distance_bin(d: float) -> str:
    a, b = next((a, b) for a, b in EDGE_DISTANCE_BINS if a <= d < b)
    return f"edge_distance_{a}_{b}"


def test_a_d8s_up_triangle_puts_its_edges_at_half_the_radius_with_threefold_symmetry():
    # a d8 seen square on: its up face is a triangle whose edges lie 0.55 radii from the centre
    s = structure(drawn_die([polygon(3, 2 * 0.55 * RADIUS)]))
    lengths = {f"edge_distance_{a}_{b}": s[f"edge_distance_{a}_{b}"] for a, b in EDGE_DISTANCE_BINS}
    assert max(lengths, key=lengths.__getitem__) == distance_bin(0.55)
    ring = ring_of(0.6)
    h3, h5 = (s[f"ring{ring}_edge_h{k}"] for k in (3, 5))
    assert h3 > 2 * h5
    assert s[f"ring{ring}_tangential_share"] > 0.6  # edges across the radius, not along it


def test_a_pentagon_rings_at_five_and_a_small_triangle_lies_nearer_the_centre():
    d12 = structure(drawn_die([polygon(5, 0.64 * RADIUS)]))
    ring = ring_of(0.55)
    assert d12[f"ring{ring}_edge_h5"] > 2 * d12[f"ring{ring}_edge_h3"]
    # a d20's small up triangle: edges 0.34 radii from the centre, not 0.55 as on a d8
    d20 = structure(drawn_die([polygon(3, 2 * 0.34 * RADIUS)]))
    assert d20[distance_bin(0.34)] > d20[distance_bin(0.55)]
    assert set(RING_HARMONICS) >= {3, 5}


def test_the_central_numeral_is_measured_over_the_die():
    img = drawn_die([])
    cv2.putText(img, "8", (SIDE // 2 - 12, SIDE // 2 + 14), cv2.FONT_HERSHEY_SIMPLEX, 1.2, 250, 3, cv2.LINE_AA)
    s = structure(img)
    assert s["ink_blobs"] > 0 and 0.1 < s["ink_central_extent"] < 0.7
    assert s[f"ring{ring_of(0.1)}_ink"] > s[f"ring{ring_of(0.9)}_ink"]
    assert structure(drawn_die([]))["ink_blobs"] == 0  # a plain die has no numeral


def test_a_close_up_frames_the_die_tightly():
    rng = np.random.default_rng(11)
    crop, mask, _ = synth.render_shape_crop(synth.standard_spec("d20", rng), rng, 140, tilt_deg=10.0)
    _, _, w, h = cv2.boundingRect(cv2.findNonZero(mask))
    for _ in range(5):
        tight = close_up(crop, mask, rng)
        assert tight.ndim == 3 and tight.shape[0] == tight.shape[1] and tight.dtype == np.uint8
        assert 0.9 * max(w, h) <= tight.shape[0] <= 1.13 * max(w, h)
