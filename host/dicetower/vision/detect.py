"""Find the dice in a frame, at any resolution from 640x480 webcam frames to 12-megapixel photos.

Pip dice are found by their pips (pips.read_faces, dark and light pips). Dice without pips (numbered,
symbol dice) are found as die bodies: colour distance from the table, where the table is the empty-tray
reference frame when the tower has one (background subtraction) and otherwise a smooth model of the
frame itself (a heavy median filter: dice are small against the tray), thresholded by Otsu."""

from __future__ import annotations

from dataclasses import dataclass, replace

import cv2
import numpy as np

from .pips import PipFace, Pip, read_faces

#: Frames are analysed with their long side at most this many px (12 MP photos are downscaled).
ANALYSIS_LONG_SIDE = 640
#: The pip filter's structuring size at every analysis scale, px: larger than any pip when dice are
#: up to about a sixth of the frame at 640 px. Close-ups are read at 320 and 160 px, where the same
#: filter spans a larger part of the frame.
KERNEL_PX = 21
ANALYSIS_SCALES = (ANALYSIS_LONG_SIDE, ANALYSIS_LONG_SIDE // 2, ANALYSIS_LONG_SIDE // 4)


def analysis_scale(shape: tuple[int, ...], long_side: int = ANALYSIS_LONG_SIDE) -> float:
    """Factor (<= 1) from frame px to analysis px for a frame of shape (H, W[, C])."""
    return min(1.0, long_side / float(max(shape[0], shape[1])))


def _scaled_face(face: PipFace, factor: float) -> PipFace:
    """The face with its pips, box and centre in frame px (factor = 1 / analysis scale)."""
    x, y, w, h = face.box
    pips = [replace(p, x=p.x * factor, y=p.y * factor, area=p.area * factor * factor) for p in face.pips]
    return replace(face, pips=pips, box=(int(round(x * factor)), int(round(y * factor)),
                                         int(round(w * factor)), int(round(h * factor))),
                   centre=(face.centre[0] * factor, face.centre[1] * factor))


def _overlap(a: tuple[int, int, int, int], b: tuple[int, int, int, int]) -> float:
    """Intersection over the smaller box's area (0..1)."""
    ax, ay, aw, ah = a
    bx, by, bw, bh = b
    iw = max(0, min(ax + aw, bx + bw) - max(ax, bx))
    ih = max(0, min(ay + ah, by + bh) - max(ay, by))
    return iw * ih / max(1, min(aw * ah, bw * bh))


def _plausible_polarity(dark: list[PipFace], light: list[PipFace]) -> list[PipFace]:
    """Lone pips (faces showing 1) are weak evidence: a key on a keyboard or a glint looks like one.
    The frame's pip polarity is the one with more sure multi-pip faces (then more sure faces, then
    more faces); the other polarity's lone pips are dropped, its multi-pip faces kept."""
    from dicetower.readings import UNSURE_BELOW

    def evidence(faces: list[PipFace]) -> tuple[int, int, int]:
        sure = [f for f in faces if f.confidence >= UNSURE_BELOW]
        return sum(len(f.pips) > 1 for f in sure), len(sure), len(faces)

    main = "dark" if evidence(dark) >= evidence(light) else "light"
    return [f for f in dark + light if len(f.pips) > 1 or f.polarity == main]


def find_pip_faces(image: np.ndarray) -> list[PipFace]:
    """Top faces of the pip dice in a frame. image: HxWx3 uint8 BGR, any size. Boxes and pips in frame
    px. Dark and light pips are both looked for; where both readings claim one die, the more confident
    stays. When nothing is found at the analysis scale, smaller scales are tried (close-up photos,
    where pips are larger than the pip filter)."""
    gray_full = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    for long_side in ANALYSIS_SCALES:
        s = analysis_scale(gray_full.shape, long_side)
        gray = gray_full if s == 1.0 else cv2.resize(gray_full, None, fx=s, fy=s, interpolation=cv2.INTER_AREA)
        k = KERNEL_PX
        faces = _plausible_polarity(read_faces(gray, "dark", k), read_faces(gray, "light", k))
        faces.sort(key=lambda f: -f.confidence)
        kept: list[PipFace] = []
        for f in faces:
            if all(_overlap(f.box, g.box) < 0.3 for g in kept):
                kept.append(f)
        if kept:
            return [_scaled_face(f, 1.0 / s) for f in kept]
    return []


@dataclass
class DieBody:
    """A die-sized blob that differs from the table. box: (x, y, w, h) frame px; mask: hxw uint8
    (255 = die) over the box.

    ground_share: pixels of the frame outside every body whose Lab colour is within GROUND_LAB of
        the body's median colour, per body pixel (0 = a colour found nowhere else; a piece of the
        floor, a laptop key among its keys or a patch of wood grain scores several times its area)
    cut: True when the box touches the frame's border (a die cut off, or no die at all)"""

    box: tuple[int, int, int, int]
    mask: np.ndarray
    ground_share: float = 0.0
    cut: bool = False


def _table_distance(small: np.ndarray, reference: np.ndarray | None) -> np.ndarray:
    """Per-pixel Lab distance (HxW float32) of a frame from the table. With a reference (the empty
    tray, same size) it is plain background subtraction. Without one the table is modelled twice:
    locally (median of an 1/8-size copy: follows light gradients, forgets dice smaller than ~40 px)
    and globally (median colour of the frame's border strip: dice seldom touch the border, and it
    does not forget large dice); a pixel is as far from the table as the larger of the two says,
    the global one counted at half weight since one colour cannot follow the light."""
    lab = cv2.cvtColor(cv2.GaussianBlur(small, (5, 5), 0), cv2.COLOR_BGR2LAB).astype(np.float32)
    if reference is not None:
        ref = cv2.resize(reference, (small.shape[1], small.shape[0]), interpolation=cv2.INTER_AREA)
        table = cv2.cvtColor(cv2.GaussianBlur(ref, (5, 5), 0), cv2.COLOR_BGR2LAB).astype(np.float32)
        return np.sqrt(((lab - table) ** 2).sum(axis=2))
    h, w = lab.shape[:2]
    b = max(2, int(0.04 * min(h, w)))
    border = np.concatenate([lab[:b].reshape(-1, 3), lab[-b:].reshape(-1, 3),
                             lab[:, :b].reshape(-1, 3), lab[:, -b:].reshape(-1, 3)])
    d_global = np.sqrt(((lab - np.median(border, axis=0)) ** 2).sum(axis=2))
    tiny = cv2.medianBlur(cv2.resize(small, None, fx=1 / 8, fy=1 / 8, interpolation=cv2.INTER_AREA), 5)
    local = cv2.cvtColor(cv2.resize(tiny, (w, h), interpolation=cv2.INTER_LINEAR), cv2.COLOR_BGR2LAB).astype(np.float32)
    d_local = np.sqrt(((lab - local) ** 2).sum(axis=2))
    return np.maximum(0.5 * d_global, d_local)


def find_die_bodies(image: np.ndarray, reference: np.ndarray | None = None,
                    min_side_frac: float = 0.04, max_side_frac: float = 0.6) -> list[DieBody]:
    """Die-sized compact blobs that differ from the table (see _table_distance), Otsu-thresholded.
    image: HxWx3 uint8 BGR; reference: the empty tray, same shape, or None; die sides between
    min_side_frac and max_side_frac of the frame's long side. A blob larger than a quarter of the
    frame (a tray, a dice dome) is searched again inside for the dice it holds; touching dice (one
    blob with a waist) are split at the waist (_split_touching). Each body carries its ground_share
    and cut (see DieBody), the evidence the reader weighs to tell a die from a piece of the scene.
    Raises ValueError when reference's shape differs from image's."""
    if reference is not None and reference.shape != image.shape:
        raise ValueError(f"reference frame is {reference.shape}, frame is {image.shape}: take the empty-tray "
                         "reference with the same camera and resolution")
    bodies = _bodies(image, reference, min_side_frac, max_side_frac, inner=False)
    return _with_ground_share(image, bodies)


def _bodies(image: np.ndarray, reference: np.ndarray | None, min_side_frac: float, max_side_frac: float,
            inner: bool) -> list[DieBody]:
    """find_die_bodies without ground_share; inner=True inside a large blob (no further search)."""
    s = analysis_scale(image.shape, 320)
    small = cv2.resize(image, None, fx=s, fy=s, interpolation=cv2.INTER_AREA) if s < 1 else image
    dist8 = np.clip(_table_distance(small, reference) * 3, 0, 255).astype(np.uint8)
    _, mask = cv2.threshold(dist8, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    se = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5))
    mask = cv2.morphologyEx(cv2.morphologyEx(mask, cv2.MORPH_CLOSE, se), cv2.MORPH_OPEN, se)
    long_side = max(small.shape[:2])
    bodies: list[DieBody] = []
    n, labels, stats, _ = cv2.connectedComponentsWithStats(mask)
    f = 1.0 / s
    for i in range(1, n):
        x, y, w, h, area = stats[i]
        side = max(w, h)
        if not min_side_frac * long_side <= side <= max_side_frac * long_side:
            continue
        box = (int(x * f), int(y * f), int(round(w * f)), int(round(h * f)))
        if side > 0.25 * long_side and not inner and reference is None:
            bx, by, bw, bh = box
            found = _bodies(image[by:by + bh, bx:bx + bw], None, 0.1, 0.6, inner=True)
            # a large blob cut by the frame's edge is no whole die (a dome's floor, a tray): when no die
            # stands out inside it, the die may share its colour distance, so split it by colour
            split = not found and (x == 0 or y == 0 or x + w >= small.shape[1] or y + h >= small.shape[0])
            found = found or (_colour_split(image[by:by + bh, bx:bx + bw]) if split else [])
            bodies += [DieBody((ix + bx, iy + by, iw, ih), m) for (ix, iy, iw, ih), m in
                       ((b.box, b.mask) for b in found)]
            if found and not split:
                continue  # an edge-cut blob is still kept below, as before (the reader drops it when unsure)
        comp = (labels[y:y + h, x:x + w] == i).astype(np.uint8) * 255
        for px, py, piece in _split_touching(comp):
            ph, pw = piece.shape
            parea = cv2.countNonZero(piece)
            if parea < 0.45 * pw * ph or max(pw, ph) > 2.0 * min(pw, ph):
                continue  # dice are compact, not cables or edges
            if max(pw, ph) < min_side_frac * long_side:
                continue
            pbox = (int((x + px) * f), int((y + py) * f), int(round(pw * f)), int(round(ph * f)))
            bodies.append(DieBody(pbox, cv2.resize(piece, (pbox[2], pbox[3]), interpolation=cv2.INTER_NEAREST)))
    return bodies


#: Lab distance (sum of |dL|, |da|, |db|, OpenCV 8-bit Lab) within which a pixel has a body's colour.
GROUND_LAB = 20.0


def _with_ground_share(image: np.ndarray, bodies: list[DieBody]) -> list[DieBody]:
    """bodies with ground_share and cut set (see DieBody), measured on a copy of the frame whose long
    side is 160 px."""
    if not bodies:
        return bodies
    s = analysis_scale(image.shape, 160)
    small = cv2.resize(image, None, fx=s, fy=s, interpolation=cv2.INTER_AREA) if s < 1 else image
    lab = cv2.cvtColor(small, cv2.COLOR_BGR2LAB).astype(np.float32)
    outside = np.ones(small.shape[:2], bool)
    H, W = image.shape[:2]
    for b in bodies:
        x, y, w, h = b.box
        outside[int(y * s):int(np.ceil((y + h) * s)), int(x * s):int(np.ceil((x + w) * s))] = False
    ground = lab[outside]
    out = []
    for b in bodies:
        x, y, w, h = b.box
        crop = image[y:y + h, x:x + w]
        px = crop[b.mask > 0] if (b.mask > 0).any() else crop.reshape(-1, 3)
        colour = np.median(cv2.cvtColor(px.reshape(-1, 1, 3), cv2.COLOR_BGR2LAB).reshape(-1, 3), axis=0)
        near = int((np.abs(ground - colour).sum(axis=1) < GROUND_LAB).sum())
        area = max(1.0, cv2.countNonZero(b.mask) * s * s)
        cut = x <= 1 or y <= 1 or x + w >= W - 1 or y + h >= H - 1
        out.append(replace(b, ground_share=near / area, cut=cut))
    return out


def _split_touching(comp: np.ndarray) -> list[tuple[int, int, np.ndarray]]:
    """Pieces of a blob mask (hxw uint8, 255 = blob) that holds touching dice: the cores of the blob
    (distance transform above 0.7 of its peak) are the dice's centres when there are several, and each
    blob pixel goes to the nearest core. A convex blob (solidity >= 0.9) is one die. Returns
    (x, y, piece mask cropped to its box) per piece, x, y in comp px."""
    contours, _ = cv2.findContours(comp, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    area = cv2.countNonZero(comp)
    hull = cv2.contourArea(cv2.convexHull(np.vstack(contours))) if contours else 0.0
    if hull <= 0 or area >= 0.9 * hull:
        return [(0, 0, comp)]
    dist = cv2.distanceTransform(comp, cv2.DIST_L2, 5)
    cores = (dist >= 0.7 * dist.max()).astype(np.uint8)
    n, core_labels = cv2.connectedComponents(cores)
    if n <= 2:
        return [(0, 0, comp)]
    _, nearest = cv2.distanceTransformWithLabels(1 - cores, cv2.DIST_L2, 5, labelType=cv2.DIST_LABEL_CCOMP)
    pieces = []
    for k in np.unique(nearest[cores > 0]):
        piece = ((nearest == k) & (comp > 0)).astype(np.uint8) * 255
        x, y, w, h = cv2.boundingRect(piece)
        if w and h:
            pieces.append((x, y, piece[y:y + h, x:x + w]))
    return pieces


def _colour_split(crop: np.ndarray, clusters: int = 4) -> list[DieBody]:
    """Dice inside a large blob that differs from the table as one piece (a die in a dice dome whose
    coloured floor also differs from the table): the blob's pixels clustered by Lab colour (k-means,
    fixed seed), each cluster's connected pieces kept when die-sized (sides 0.1..0.4 of the blob's long
    side) and compact (fill >= 0.5 of the box, aspect <= 1.6). crop: hxwx3 uint8 BGR; boxes in crop px."""
    s = analysis_scale(crop.shape, 160)
    small = cv2.resize(crop, None, fx=s, fy=s, interpolation=cv2.INTER_AREA) if s < 1 else crop
    lab = cv2.cvtColor(cv2.GaussianBlur(small, (3, 3), 0), cv2.COLOR_BGR2LAB).reshape(-1, 3).astype(np.float32)
    cv2.setRNGSeed(0)
    _, labels, _ = cv2.kmeans(lab, clusters, None, (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 1.0),
                              2, cv2.KMEANS_PP_CENTERS)
    labels = labels.reshape(small.shape[:2])
    long_side, f = max(small.shape[:2]), 1.0 / s
    se = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3))
    bodies: list[DieBody] = []
    for k in range(clusters):
        mask = cv2.morphologyEx((labels == k).astype(np.uint8) * 255, cv2.MORPH_OPEN, se)
        mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, se)
        n, comp, stats, _ = cv2.connectedComponentsWithStats(mask)
        for i in range(1, n):
            x, y, w, h, area = stats[i]
            if not 0.1 * long_side <= max(w, h) <= 0.4 * long_side:
                continue
            if area < 0.5 * w * h or max(w, h) > 1.6 * min(w, h):
                continue
            box = (int(x * f), int(y * f), int(round(w * f)), int(round(h * f)))
            m = (comp[y:y + h, x:x + w] == i).astype(np.uint8) * 255
            bodies.append(DieBody(box, cv2.resize(m, (box[2], box[3]), interpolation=cv2.INTER_NEAREST)))
    return bodies


__all__ = ["DieBody", "Pip", "PipFace", "analysis_scale", "find_die_bodies", "find_pip_faces"]
