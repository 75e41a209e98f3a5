"""The camera's view elevation of a scene: how steeply it looks down on the surface the dice lie on.

    from dicetower.vision.view import TOP_DOWN, floor_outlines, view_of_scene
    view = view_of_scene(frame_bgr, dice_boxes)   # ViewEstimate
    outlines = floor_outlines(frame_bgr)          # the same in two steps: the part that needs no dice first
    view = outlines.view(dice_boxes)              # (the reader finds them meanwhile)
    view.elevation    # degrees above the floor's plane the camera looks from (90 = straight down)
    view.sure         # False when the floor's outlines fit ellipses loosely or disagree: flag the reading

A round floor (a dice dome's floor, a round tray, a dice ring) seen from an elevation e is an
ellipse whose minor/major axis ratio is sin(e) (orthographic approximation; the minor axis points
along the view direction; a camera held upright sees the floor's far side at the image's top).
The floor's outlines are ellipses fitted to the frame's edge chains (Canny) that edges support round
most of their perimeter, that lie whole in the frame, that are much larger than the dice and that
hold them; the elevation is the median of theirs (a dome's floor rings, its rim and its base are
concentric circles, all giving it). A frame with no such outline is seen from above (TOP_DOWN: the
tower's own camera, trays that are not round; tiles and close-ups of one die, whose only round
outline is the die's own). Nothing here is keyed to one dataset; checked on synthetic round floors of
known elevation (synth.render_oblique_scene), realdice_d20's dome (oblique) and the top-down sources
(fickett tiles, matteop65, lurig, synthetic trays: all top-down).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

#: Degrees: a camera looking straight down on the dice.
TOP_DOWN = 90.0
#: An elevation at or above this many degrees is read as top-down (a round tray seen at 75 degrees or
#: more is an ellipse of ratio >= 0.966: within the fit's and the tray's own roundness errors).
TOP_DOWN_FROM = 75.0
#: A frame whose short side is under this many px is a crop of a die (a detector's box, a montage tile),
#: not a scene with a floor: read as top-down (a round die's own outline is no floor).
MIN_SCENE_SIDE = 200
#: Long side (px) of the copy the floor is looked for on.
WORK_SIDE = 320
#: A floor's ellipse has a major axis of at least this fraction of the frame's short side ...
MIN_MAJOR_OF_FRAME = 0.3
#: ... and at least this many times the largest die's box side (a die's own outline is no floor).
MIN_MAJOR_OF_DIE = 2.0
#: Share of an ellipse's perimeter (PERIMETER_SAMPLES points) within EDGE_TOL px of an edge for a
#: sure floor; between LOOSE_FIT and SURE_FIT the floor is taken but flagged unsure; below, no floor
#: (dice and the things around a floor hide part of its outline).
SURE_FIT = 0.8
LOOSE_FIT = 0.6
PERIMETER_SAMPLES = 180
#: Canny hysteresis thresholds (grey levels of the 5x5-blurred frame's gradient).
CANNY_LOW, CANNY_HIGH = 30, 90
#: Edge chains (and pieces of longer ones) of this fraction of the frame's short side are fitted.
CHAIN_OF_FRAME = 0.4
#: A floor ellipse's minor/major ratio is at least this (a view from 15 degrees or more; thinner fits are
#: straight edges).
MIN_RATIO = 0.26
#: The elevation is the median of the closely fitted floor outlines' (SURE_FIT; a floor's rings, its rim,
#: the container's base), or of the loosely fitted ones' when none fits closely (then unsure); it is
#: sure when at least half of the close ones lie within this many degrees of it.
AGREE_DEG = 7.5
EDGE_TOL = 1.5


@dataclass(frozen=True)
class ViewEstimate:
    """The view of one frame: elevation (degrees, 0 < e <= 90; 90 = top-down), sure (False: the floor's
    outlines fit loosely or disagree, readings that depend on the elevation must be flagged unsure),
    ellipse ((cx, cy), (major, minor), angle degrees) of the floor's largest outline in frame px, or
    None (no floor seen)."""

    elevation: float
    sure: bool = True
    ellipse: tuple[tuple[float, float], tuple[float, float], float] | None = None

    @property
    def oblique(self) -> bool:
        """True when the elevation is below TOP_DOWN_FROM (the up face is foreshortened)."""
        return self.elevation < TOP_DOWN_FROM


def check_elevation(elevation: float) -> None:
    """Raise ValueError, saying so, unless elevation (degrees) is a view elevation: in (0, 90], 90 =
    top-down (TOP_DOWN; view_of_scene gives them). One check for every reader handed an elevation."""
    if not 0 < elevation <= TOP_DOWN:
        raise ValueError(f"view elevation must be in (0, 90] degrees (90 = top-down: view.view_of_scene), "
                         f"got {elevation}")


def elevation_of_ratio(minor_over_major: float) -> float:
    """Elevation (degrees) from which a circle looks like an ellipse of this axis ratio (0 < r <= 1):
    asin(r). Raises ValueError for a ratio outside (0, 1]."""
    if not 0 < minor_over_major <= 1:
        raise ValueError(f"an ellipse's minor/major axis ratio is in (0, 1], got {minor_over_major}")
    return float(np.degrees(np.arcsin(minor_over_major)))


def _supports(edges_far: np.ndarray, ellipses: np.ndarray) -> np.ndarray:
    """(K,) share of PERIMETER_SAMPLES points evenly spaced (in angle) round each of K ellipses (K x 5
    float64 rows cx, cy, w, h, angle degrees) that lie within EDGE_TOL px of an edge (edges_far: HxW
    float32 distance to the nearest edge pixel); NaN for an ellipse any of whose points falls outside
    the frame (the outline is not whole). All ellipses in one numpy pass (K x PERIMETER_SAMPLES)."""
    cx, cy, w, h, angle = (ellipses[:, i, None] for i in range(5))
    t = np.radians(angle)
    s = np.linspace(0, 2 * np.pi, PERIMETER_SAMPLES, endpoint=False)
    u, v = w / 2 * np.cos(s), h / 2 * np.sin(s)
    x = cx + u * np.cos(t) - v * np.sin(t)
    y = cy + u * np.sin(t) + v * np.cos(t)
    H, W = edges_far.shape
    whole = (x.min(axis=1) >= 0) & (y.min(axis=1) >= 0) & (x.max(axis=1) <= W - 1) & (y.max(axis=1) <= H - 1)
    out = np.full(len(ellipses), np.nan)
    near = edges_far[np.round(y[whole]).astype(int), np.round(x[whole]).astype(int)] <= EDGE_TOL
    out[whole] = near.mean(axis=1)
    return out


def _candidates(small: np.ndarray) -> tuple[list[tuple], np.ndarray]:
    """Candidate ellipses of a frame (HxWx3 uint8 BGR): one fitted to every edge chain (Canny,
    CANNY_LOW/CANNY_HIGH, on the 5x5-blurred grey frame; edges of a* and b* too found false floors
    on lurig's paper and wood) at least CHAIN_OF_FRAME x the frame's short side long, and to each
    piece of that length (overlapping by half) of longer chains; and the distance (px, float32) of
    every pixel to the nearest edge."""
    grey = cv2.GaussianBlur(cv2.cvtColor(small, cv2.COLOR_BGR2GRAY), (5, 5), 0)
    edges = cv2.Canny(grey, CANNY_LOW, CANNY_HIGH)
    far = cv2.distanceTransform(255 - edges, cv2.DIST_L2, 3)
    contours, _ = cv2.findContours(edges, cv2.RETR_LIST, cv2.CHAIN_APPROX_NONE)
    short = min(small.shape[:2])
    piece = int(CHAIN_OF_FRAME * short)
    out = []
    for c in contours:
        if len(c) < piece:
            continue
        out.append(cv2.fitEllipse(c))
        # a floor's edge chain often runs on into other edges (the dice, the container's wall):
        # its pieces, overlapping by half, are fitted too
        if len(c) >= 2 * piece:
            out += [cv2.fitEllipse(c[i:i + piece]) for i in range(0, len(c) - piece + 1, piece // 2)]
    return out, far


@dataclass(frozen=True)
class FloorOutlines:
    """The outlines a frame's floor may have, found before its dice are known (floor_outlines): the
    candidate ellipses (_candidates) supported by edges round LOOSE_FIT of their perimeter or more,
    whole in the frame, of minor/major at least MIN_RATIO and a major axis of at least
    MIN_MAJOR_OF_FRAME of the frame's short side, in the order they were fitted. scale: work px per
    frame px (the frame is looked at WORK_SIDE px long); outlines: (elevation degrees, support 0..1,
    ellipse ((cx, cy), (w, h), angle degrees) in work px) per outline; empty for a frame under
    MIN_SCENE_SIDE px."""

    scale: float
    outlines: tuple[tuple[float, float, tuple], ...] = ()

    def view(self, dice_boxes: Sequence[tuple[int, int, int, int]]) -> ViewEstimate:
        """The view elevation given the boxes (x, y, w, h frame px) of the dice found in the frame:
        the outlines whose major axis is at least MIN_MAJOR_OF_DIE x the largest die box side and
        that hold every die's centre (grown by half its major axis: a die on the far rim of a floor
        seen from low stands above its ellipse) are the floor's. The elevation is the median of the
        closely fitted ones' (SURE_FIT), or of the loose ones' when none fits closely; sure when some
        fit closely and at least half of those lie within AGREE_DEG of it. One at or above
        TOP_DOWN_FROM, no floor outline or no dice is TOP_DOWN."""
        if not len(dice_boxes) or not self.outlines:
            return ViewEstimate(TOP_DOWN)
        f = self.scale
        die_side = f * max(max(b[2], b[3]) for b in dice_boxes)
        centres = np.array([(f * (x + bw / 2), f * (y + bh / 2)) for x, y, bw, bh in dice_boxes])
        floors = []
        for elevation, support, ellipse in self.outlines:
            (cx, cy), (ew, eh), angle = ellipse
            major = max(ew, eh)
            if major < MIN_MAJOR_OF_DIE * die_side:
                continue
            grown = ((cx, cy), (ew + major, eh + major), angle)
            if all(_inside(grown, p) for p in centres):
                floors.append((elevation, support, ellipse))
        if not floors:
            return ViewEstimate(TOP_DOWN)
        close = [fl for fl in floors if fl[1] >= SURE_FIT]
        elevations = np.array([e for e, _, _ in close or floors])
        elevation = float(np.median(elevations))
        # sure: closely fitted outlines, at least half of them within AGREE_DEG of their median
        sure = bool(close) and bool(np.mean(np.abs(elevations - elevation) <= AGREE_DEG) >= 0.5)
        (cx, cy), (ew, eh), angle = max(close or floors, key=lambda fl: max(fl[2][1]))[2]
        ellipse = ((cx / f, cy / f), (max(ew, eh) / f, min(ew, eh) / f), angle)
        if elevation >= TOP_DOWN_FROM:
            return ViewEstimate(TOP_DOWN, sure, ellipse)
        return ViewEstimate(elevation, sure, ellipse)


def _check_frame(frame: np.ndarray) -> None:
    """Raise ValueError for a frame that is not HxWx3 uint8."""
    if not isinstance(frame, np.ndarray) or frame.ndim != 3 or frame.shape[2] != 3 or frame.dtype != np.uint8:
        raise ValueError(f"frame must be HxWx3 uint8 BGR, got {getattr(frame, 'shape', None)} "
                         f"{getattr(frame, 'dtype', '')}")


def floor_outlines(frame: np.ndarray) -> FloorOutlines:
    """The floor outlines of a frame (HxWx3 uint8 BGR), which do not depend on where its dice lie: the
    part of view_of_scene that needs no dice boxes (most of its time), so that it can run while the
    dice are still looked for. Raises ValueError for a frame that is not HxWx3 uint8."""
    _check_frame(frame)
    H, W = frame.shape[:2]
    f = min(1.0, WORK_SIDE / max(H, W))
    if min(H, W) < MIN_SCENE_SIDE:
        return FloorOutlines(f)
    small = cv2.resize(frame, None, fx=f, fy=f, interpolation=cv2.INTER_AREA) if f < 1 else frame
    h, w = small.shape[:2]
    candidates, far = _candidates(small)
    rows = np.array([(cx, cy, ew, eh, a) for (cx, cy), (ew, eh), a in candidates], np.float64).reshape(-1, 5)
    major, minor = rows[:, 2:4].max(axis=1), rows[:, 2:4].min(axis=1)
    kept = np.flatnonzero((minor >= MIN_RATIO * major) & (major >= MIN_MAJOR_OF_FRAME * min(h, w)))
    if not kept.size:
        return FloorOutlines(f)
    support = _supports(far, rows[kept])  # NaN (not whole) is never >= LOOSE_FIT
    return FloorOutlines(f, tuple((elevation_of_ratio(float(minor[k] / major[k])), float(sup), candidates[k])
                                  for k, sup in zip(kept, support) if sup >= LOOSE_FIT))


def view_of_scene(frame: np.ndarray, dice_boxes: Sequence[tuple[int, int, int, int]] = ()) -> ViewEstimate:
    """The view elevation of a frame (HxWx3 uint8 BGR) from its floor, given the boxes (x, y, w, h
    frame px) of the dice found in it: floor_outlines(frame).view(dice_boxes) (see FloorOutlines.view).
    No dice, or a frame under MIN_SCENE_SIDE px, is TOP_DOWN at once. Raises ValueError for a frame
    that is not HxWx3 uint8."""
    _check_frame(frame)
    if not len(dice_boxes) or min(frame.shape[:2]) < MIN_SCENE_SIDE:
        return ViewEstimate(TOP_DOWN)
    return floor_outlines(frame).view(dice_boxes)


def _inside(ellipse: tuple, point: np.ndarray) -> bool:
    """Whether a point (x, y) lies inside an ellipse ((cx, cy), (w, h), angle degrees)."""
    (cx, cy), (w, h), angle = ellipse
    t = np.radians(angle)
    dx, dy = point[0] - cx, point[1] - cy
    u = dx * np.cos(t) + dy * np.sin(t)
    v = -dx * np.sin(t) + dy * np.cos(t)
    return (u / (w / 2)) ** 2 + (v / (h / 2)) ** 2 <= 1
