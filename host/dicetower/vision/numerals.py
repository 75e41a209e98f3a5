"""The numeral classifier of the standard die set: a small CNN (trained on synthetic renders only,
see train_numerals.py) run with OpenCV's dnn module from models/standard/numerals.onnx.

    from dicetower.vision.numerals import face_patch, numeral_proba, numeral_classes
    patch = face_patch(crop_bgr)            # PxP uint8: the up face's numeral region, grey, ink bright
    proba = numeral_proba([patch])          # 1xK float32 over numeral_classes()
    mean, trained = read_up_face(crop_bgr, mask, elevation)  # K each: averaged over read_patches, one patch
    value, confidence = read_value(crop_bgr, "d20", mask, elevation)  # a die of known type

Classes (numeral_classes()): "0".."20" (numerals as printed; "0" is the d10's 10, GEN-D02), "d4:1"..
"d4:4" (a d4 seen from above: its value printed three times around the top vertex), "blank" (no mark:
a plain face, the tray) and symbol classes "sym:<name>" (letters, stars, suits, arrows, crosses, pip
patterns) that the standard set never reports as values; they give marks that are not numerals
somewhere to go. The ONNX file has one output, "logits" (N x K).
The confidence is the softmax of the logits divided by a temperature fitted on held-out synthetic
renders (Guo et al. 2017), averaged over the patch turned by 0, 90, 180 and 270 degrees (the net is
trained on every rotation). A die is read over three guesses of its up face's centre and the trained
one's patch again with thinner strokes (read_patches, read_up_face), never surer than on the one patch
the net was trained on. Run time needs OpenCV and numpy only.
"""

from __future__ import annotations

import json
import re
import threading
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from dicetower.paths import models_dir
from dicetower.vision.view import TOP_DOWN, check_elevation

ONNX_FILE = "numerals.onnx"
META_FILE = "numerals.json"
PATCH = 48  # px, side of a face patch
WORK = 96  # px, side to which a die crop is squared and resized before the patch is cut
#: half side of the patch as a fraction of the die's radius (radius of a disc of the die's area)
PATCH_HALF = 0.62
#: the patch centre moves this fraction of the way from the die's centroid to the numeral nearest it
#: (the up face's, which an oblique view or a tilted die puts off the outline's centre)
MARK_PULL = 0.5
#: where the up face's centre may lie, as pulls from the centroid toward the nearest numeral: the net
#: is trained on MARK_PULL's patch (face_patch); reading a die also cuts the patch on the centroid and on
#: the numeral itself (face_patches) and averages the net over the three (read_up_face)
MARK_PULLS = (MARK_PULL, 0.0, 1.0)
#: the sizes at which read_up_face cuts a die's up face, as factors of PATCH_HALF, by die type: the trained
#: size (1.0, face_patch's) and, for a d20, once more closer in (0.8: the numeral drawn 1.25 x larger) on
#: the trained patch's centre; the net is averaged over the two, as it is over the up face's centre
#: (MARK_PULLS) and the patch's quarter turns. A d20 prints its numerals at a size the renders do not pin
#: down: its renders draw them at TEXT_HEIGHT 0.30..0.62 of the face, other dice's at 0.40..0.72, and
#: real d20s of two makers show them larger than the d20 renders (train_numerals.TEXT_HEIGHT's note). The
#: net read 1..12 mostly on those other dice's renders; cut 0.8 x as large (~ 0.46 / 0.56, the ranges'
#: middles) a d20's numeral shows at their size too. Not tuned on photos: on every 2nd fickett d20 tile a
#: closer cut of 0.6, 0.7, 0.8 or 0.9 reads alike (0.641..0.647 against 0.626); the other half read 0.606 ->
#: 0.632, all 680 tiles 0.616 -> 0.637, realdice 0.711 -> 0.698 (2 of 159 photos), d20 renders 250 top-down
#: 0.708 -> 0.704 and 250 at 50 degrees 0.448 -> 0.464, 0 sure-wrong in each (given the type, read_value).
#: Other dice print theirs at the sizes their renders have: one size (a closer cut read fickett d4 and d6
#: 0.01 lower).
READ_ZOOMS: dict[str, tuple[float, ...]] = {"d20": (1.0, 0.8)}


def read_zooms(die_type: str | None) -> tuple[float, ...]:
    """The sizes (factors of PATCH_HALF, the trained one first) at which a die_type die's up face is
    cut (READ_ZOOMS): (1.0,) for a type not in it, or None (type unknown)."""
    return READ_ZOOMS.get(die_type, (1.0,)) if die_type else (1.0,)
#: a mark whose centre is further than this x the die's radius from the centroid is not the up face's
MARK_REACH = 0.55
#: a die fills at most this fraction of the side of the square its masked crop is framed in (framed):
#: the training renders' mean (train_numerals.render_sample: die / crop 0.62..0.98)
DIE_OF_FRAME = 0.8
#: distance of the up face's centre from the die's centre (its inradius) as a fraction of the die's
#: radius (of a disc of its silhouette's area): inradius / equal-area radius of the orthographic
#: silhouette averaged over view directions, on synth.polyhedron's solids d8 0.78, d10 0.84, d12 0.87,
#: d20 0.91 (their mean; a d6 is 0.73)
UP_FACE_DEPTH = 0.85
#: the power to which thinned raises a patch's grey levels (0..1, ink bright): the net misreads legible but
#: bold numerals on real dice (heavy typefaces' 8, 6, 9, 2, 3) whose strokes are thicker than its training
#: renders draw them; squaring the levels halves a stroke's soft edge (0.5 -> 0.25) and its halo but
#: hardly its core (0.9 -> 0.81), so the stroke reads thinner at any threshold and keeps its place and
#: shape. Told the type, every 3rd fickett tile d4/d6/d8/d12/d20 and realdice: 1.5 read .913/.941/.923/
#: .919/.639 and .767, 2.0 .920/.941/.923/.926/.674 and .780, 2.5 .920/.926/.923/.919/.687 and .799, 3.0
#: .920/.912/.901/.912/.692 and .799 (0 sure-wrong in each): past 2 the d20s gain while d6 and d12 lose
#: (d8 too at 3), so the plain square, not a value fitted to the d20 photos.
STROKE_GAMMA = 2.0


@dataclass
class NumeralNet:
    """The loaded net: cv2.dnn Net (read_onnx), class names, temperature, where it came from (meta:
    training figures written by train_numerals.py), and layers: {ONNX node name: the name net.forward
    takes for its output} (onnx_layers)."""

    net: cv2.dnn.Net
    classes: list[str]
    temperature: float
    path: Path
    meta: dict
    layers: dict[str, str]


_NET: NumeralNet | None = None
_LOCK = threading.Lock()


#: Whether this OpenCV reads ONNX with its classic dnn engine: OpenCV 4 (its only engine) and 5.0 (asked for
#: it, ENGINE_CLASSIC) do; OpenCV 5.1 has no classic engine, only its new one (ENGINE_OPENCV)
CLASSIC_ENGINE = hasattr(cv2.dnn, "ENGINE_CLASSIC") or not hasattr(cv2.dnn, "ENGINE_OPENCV")
#: OpenCV 5's new dnn engine: ENGINE_NEW in 5.0, ENGINE_OPENCV in 5.1; None in OpenCV 4
NEW_ENGINE = getattr(cv2.dnn, "ENGINE_OPENCV", getattr(cv2.dnn, "ENGINE_NEW", None))


def read_onnx(path: Path, classic: bool = CLASSIC_ENGINE) -> cv2.dnn.Net:
    """The ONNX net at `path` as cv2.dnn reads it: with the classic engine where OpenCV has one (OpenCV 5.0's
    readNetFromONNX(path, engine=cv2.dnn.ENGINE_CLASSIC), OpenCV 4's readNetFromONNX(path)), else with
    OpenCV 5.1's own engine (NEW_ENGINE); classic False: OpenCV 5's new engine whatever else it has.
    OpenCV 5.0's default (ENGINE_AUTO: the new engine first) runs this small net slower: a die's 3 patches
    x 4 turns 6.4 ms a forward pass against 4.2, a d20's 24 rows 12.9 against 8.5 (2 cores, median of 200);
    OpenCV 5.1's engine runs it as fast as 5.0's classic one (12 rows 2.5 against 2.7 ms, 96 rows 20
    against 23; median of 100) and gives the same logits (3e-5 apart at most, on logits up to 12). The one
    way the numeral net is read (load_net, train_numerals.export's check). Raises cv2.error for a file
    cv2.dnn cannot parse, ValueError for classic False in OpenCV 4 (no new engine)."""
    if classic:
        engine = getattr(cv2.dnn, "ENGINE_CLASSIC", None)
        if engine is None:
            return cv2.dnn.readNetFromONNX(str(path))
        return cv2.dnn.readNetFromONNX(str(path), engine=engine)
    if NEW_ENGINE is None:
        raise ValueError(f"OpenCV {cv2.__version__} has no new dnn engine (OpenCV 5 has): "
                         "read the net with classic=True")
    return cv2.dnn.readNetFromONNX(str(path), engine=NEW_ENGINE)


#: the name torch.onnx gives a node's first output tensor: the node's name and this
OUTPUT_SUFFIX = "_output_0"


def onnx_layers(net: cv2.dnn.Net, classic: bool = CLASSIC_ENGINE) -> dict[str, str]:
    """{ONNX node name: the name net.forward takes for its output} of a net read by read_onnx(path, classic).
    The classic engine (OpenCV 4.8+ and 5.0) names a node's layer "onnx_node!" + the node's name (the
    embedding layer "/embed/embed.1/Relu" is "onnx_node!/embed/embed.1/Relu") and the graph's output by its
    own name ("logits"), and net.forward takes the layer name. OpenCV 5's new engine fuses layers (5.1 the
    embedding's ReLU into the Gemm before it, which then has no output of its own) and net.forward takes
    the name of a tensor its graph keeps: the graph's outputs ("logits") and the outputs of the layers
    left, which torch.onnx names after their node (OUTPUT_SUFFIX: "/embed/embed.1/Relu_output_0"), as
    net.dump() lists them."""
    if classic:
        return {name.split("!", 1)[-1]: name for name in net.getLayerNames()}
    tensors = re.findall(r'"([^"]+)" // <(?:Temp|Output)>', net.dump())
    tensors += list(net.getUnconnectedOutLayersNames())
    return {t.removesuffix(OUTPUT_SUFFIX): t for t in tensors}


def load_net(directory: Path | None = None) -> NumeralNet:
    """The numeral net of models/standard (or `directory`), loaded once (cached, thread-safe).
    Raises FileNotFoundError naming the missing file and `make models` when it is not built."""
    global _NET
    directory = directory or models_dir() / "standard"
    with _LOCK:
        if _NET is not None and _NET.path == directory:
            return _NET
        onnx, meta_path = directory / ONNX_FILE, directory / META_FILE
        for f in (onnx, meta_path):
            if not f.is_file():
                raise FileNotFoundError(f"numeral model file {f} is missing: run `make models`")
        meta = json.loads(meta_path.read_text())
        net = read_onnx(onnx)
        _NET = NumeralNet(net, list(meta["classes"]), float(meta["temperature"]), directory, meta.get("meta", {}),
                          onnx_layers(net))
        return _NET


def numeral_classes() -> list[str]:
    """Class names of the numeral net, in the order of numeral_proba's columns."""
    return load_net().classes


def marks_are_light(values: np.ndarray) -> bool:
    """Whether a die's marks (numerals, symbols) are lighter than its body, from its grey levels
    (values: any shape, float): the marks are the minority tail, so light marks on a dark die skew
    the levels right (positive skewness; only its sign, that of the third central moment, matters).
    True for no values."""
    if values.size == 0:
        return True
    centred = values - values.mean()
    return float(np.mean(centred * centred * centred)) >= 0  # not ** 3: numpy takes a slow pow() for it


def up_face_mark(grey: np.ndarray, mask: np.ndarray, centre: tuple[float, float], radius: float
                 ) -> tuple[float, float] | None:
    """Centre (x, y px) of the numeral nearest the die's centre, or None when no mark lies within
    MARK_REACH x radius of it.

    grey: SxS float32 grey die crop; mask: SxS uint8 (non-zero = die); centre: the die's centroid
    (px); radius: the die's radius (px, of a disc of its area). Marks are the minority tail of the
    die's grey levels (light ink on a dark die or dark on light, by the skewness), found by a
    top-hat of 0.3 x radius (wider than a stroke, narrower than a face) over an Otsu threshold
    (at least 25 grey levels) inside the die less a rim of 0.06 x radius; blobs of 0.4 % to 12 % of
    the die's area and under 0.9 x radius long. The digits of a numeral (blobs of like size within
    one blob's length of the nearest) are one mark; its centre is the middle of their bounding box."""
    inner = cv2.erode(mask, np.ones((3, 3), np.uint8), iterations=max(1, int(0.06 * radius)))
    values = grey[inner > 0]
    if values.size < 50:
        return None
    ink = grey if marks_are_light(values) else 255 - grey
    k = int(round(0.3 * radius)) | 1
    tophat = cv2.morphologyEx(ink, cv2.MORPH_TOPHAT, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    t8 = np.where(inner > 0, tophat, 0).clip(0, 255).astype(np.uint8)
    otsu, _ = cv2.threshold(t8[inner > 0], 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    n, _, stats, centroids = cv2.connectedComponentsWithStats((t8 > max(otsu, 25)).astype(np.uint8))
    die_area = np.pi * radius ** 2
    blobs = [(centroids[i], stats[i]) for i in range(1, n)
             if 0.004 * die_area <= stats[i, 4] <= 0.12 * die_area and max(stats[i, 2:4]) <= 0.9 * radius]
    if not blobs:
        return None
    cx, cy = centre
    (bx, by), first = min(blobs, key=lambda b: np.hypot(b[0][0] - cx, b[0][1] - cy))
    if np.hypot(bx - cx, by - cy) > MARK_REACH * radius:
        return None
    size = max(first[2:4])
    digits = [st for (x, y), st in blobs if 0.45 < max(st[2:4]) / size < 2.2
              and np.hypot(x - bx, y - by) < max(size, max(st[2:4]))]
    x0, y0 = min(st[0] for st in digits), min(st[1] for st in digits)
    x1, y1 = max(st[0] + st[2] for st in digits), max(st[1] + st[3] for st in digits)
    return (x0 + x1) / 2, (y0 + y1) / 2


def framed(crop_bgr: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A die crop and its mask framed as the training renders frame a die: square, the die (the
    mask's bounding box) at most DIE_OF_FRAME of the side, centred, the added border filled with the
    median colour of the crop's pixels outside the mask (the ground beside the die; the crop's border
    rows and columns when the mask leaves under 10 px out) and the mask's border with 0.
    A detector's box is tight: replicating its edge rows (faces.square) drew streaks of the die's rim
    where an oblique view's up face lies, which the net read as strokes (realdice_d20).
    crop_bgr: HxWx3 uint8 BGR; mask: HxW uint8 (non-zero = die). Returns (SxSx3 uint8, SxS uint8)."""
    h, w = crop_bgr.shape[:2]
    ys, xs = np.nonzero(mask)
    die = max(ys.max() - ys.min() + 1, xs.max() - xs.min() + 1) if len(ys) else max(h, w)
    side = max(h, w, int(np.ceil(die / DIE_OF_FRAME)))
    top, left = (side - h) // 2, (side - w) // 2
    border = (top, side - h - top, left, side - w - left)
    outside = crop_bgr[mask == 0]
    if len(outside) < 10:
        outside = np.concatenate([crop_bgr[0], crop_bgr[-1], crop_bgr[:, 0], crop_bgr[:, -1]])
    fill = [float(c) for c in np.median(outside, axis=0)]
    return (cv2.copyMakeBorder(crop_bgr, *border, cv2.BORDER_CONSTANT, value=fill),
            cv2.copyMakeBorder(mask, *border, cv2.BORDER_CONSTANT, value=0))


def face_patch(crop_bgr: np.ndarray, mask: np.ndarray | None = None, elevation: float = TOP_DOWN) -> np.ndarray:
    """The up face's numeral region of a die crop, as the numeral net reads it (at training and
    at run time).

    crop_bgr: HxWx3 uint8 BGR, one die roughly centred (a detector's box, some margin allowed);
    mask: HxW uint8 (non-zero = die) or None (then the die's silhouette is found as faces.py does:
    Otsu on the Lab distance from the crop's border colour). The crop is squared (with a mask:
    framed as the renders frame a die, framed; without: its border replicated, faces.square) and
    resized to WORK px. The patch is a PATCH x PATCH uint8 grey square of half side PATCH_HALF x the die's
    radius (radius of a disc of the die's area; the whole crop when no silhouette stands out),
    centred MARK_PULL of the way from the silhouette's centroid to the numeral nearest it
    (up_face_mark; the centroid when there is none), stretched to the 2nd..98th percentiles of its
    central disc and turned so the marks are bright (the minority tail, by the sign of the
    skewness): light-on-dark and dark-on-light dice give alike patches.
    elevation: the camera's view elevation in degrees (view.view_of_scene; 90 = top-down, the
    default). Below view.TOP_DOWN_FROM the face pointing up is not the one facing the camera: its
    centre lies UP_FACE_DEPTH x radius x cos(elevation) above the centroid in the image (a camera
    held upright: the image's up points away from it over the floor), the numeral nearest that point
    is looked for there, and the patch is stretched vertically by 1 / sin(elevation) to undo the up
    face's foreshortening.
    Raises ValueError when crop_bgr is not a non-empty HxWx3 uint8 image, mask's shape differs or
    elevation is not in (0, 90] degrees."""
    return face_patches(crop_bgr, mask, elevation, (MARK_PULL,))[0]


def face_patches(crop_bgr: np.ndarray, mask: np.ndarray | None = None, elevation: float = TOP_DOWN,
                 pulls: tuple[float, ...] = MARK_PULLS, zooms: tuple[float, ...] = (1.0,)) -> list[np.ndarray]:
    """The up face's patch (PATCH x PATCH uint8) cut as face_patch cuts it, once per pull in `pulls`:
    centred that fraction of the way from the silhouette's centroid (on an oblique view: the up face's
    expected centre) to the numeral nearest it (up_face_mark; 0 = the centroid, 1 = the numeral's
    centre). The silhouette, the mark and the grey crop are found once. When no mark is found, or no
    silhouette stands out, every pull gives the same patch and only one is returned. zooms: the
    patch's half side as factors of PATCH_HALF x radius (1.0 = face_patch's size, under 1 = closer in,
    the numeral larger; READ_ZOOMS): every pull is cut at zooms[0], then the first pull's centre again
    at each further zoom. The first patch is face_patch's when pulls[0] is MARK_PULL (the default,
    MARK_PULLS) and zooms[0] is 1. Raises ValueError as face_patch does, for no pulls, or for no zooms
    or a zoom not in (0, 2]."""
    from dicetower.vision.view import TOP_DOWN_FROM

    from dicetower.vision.faces import silhouette, square

    if not pulls:
        raise ValueError("face_patches needs at least one pull (a fraction of the way to the up face's numeral)")
    if not zooms or not all(0 < z <= 2 for z in zooms):
        raise ValueError(f"face_patches needs one or more zooms in (0, 2] (factors of the patch's size), got {zooms}")
    if not isinstance(crop_bgr, np.ndarray) or crop_bgr.ndim != 3 or crop_bgr.shape[2] != 3 \
            or min(crop_bgr.shape[:2]) < 1 or crop_bgr.dtype != np.uint8:
        raise ValueError(f"a die crop must be a non-empty HxWx3 uint8 BGR image, got "
                         f"{getattr(crop_bgr, 'shape', None)} {getattr(crop_bgr, 'dtype', '')}")
    if mask is not None and mask.shape[:2] != crop_bgr.shape[:2]:
        raise ValueError(f"mask shape {mask.shape} differs from the crop's {crop_bgr.shape[:2]}")
    check_elevation(elevation)
    oblique = elevation < TOP_DOWN_FROM
    squash = float(np.sin(np.radians(elevation))) if oblique else 1.0
    if mask is None:
        sq = square(crop_bgr)
        small = cv2.resize(sq, (WORK, WORK), interpolation=cv2.INTER_AREA if WORK < sq.shape[0] else cv2.INTER_LINEAR)
        m = silhouette(small)
    else:
        sq, msq = framed(crop_bgr, mask)
        small = cv2.resize(sq, (WORK, WORK), interpolation=cv2.INTER_AREA if WORK < sq.shape[0] else cv2.INTER_LINEAR)
        m = (cv2.resize(msq, (WORK, WORK), interpolation=cv2.INTER_NEAREST) > 0).astype(np.uint8) * 255
    area = float(np.count_nonzero(m))
    edge = np.concatenate([m[0], m[-1], m[:, 0], m[:, -1]])
    grey = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY).astype(np.float32)
    mark = None
    if area < 0.05 * m.size or np.mean(edge > 0) > 0.25:
        cx = cy = (WORK - 1) / 2
        radius = WORK * 0.42
    else:
        mo = cv2.moments(m, binaryImage=True)
        cx, cy = mo["m10"] / mo["m00"], mo["m01"] / mo["m00"]
        radius = max(np.sqrt(area / np.pi), WORK * 0.15)
        if oblique:
            cy -= UP_FACE_DEPTH * radius * float(np.cos(np.radians(elevation)))
        mark = up_face_mark(grey, m, (cx, cy), radius)
    centres = [(cx, cy)] if mark is None else [(cx + p * (mark[0] - cx), cy + p * (mark[1] - cy)) for p in pulls]
    patches: list[np.ndarray] = []
    light = None  # the marks' tone, told on the first patch and kept for the closer cuts
    for i, zoom in enumerate(zooms):
        k = PATCH / (2 * PATCH_HALF * zoom * radius)
        src = cv2.GaussianBlur(grey, (0, 0), 0.5 / k).astype(np.float32, copy=False) if k < 1 else grey
        for c in centres if i == 0 else centres[:1]:
            patch, tone = _cut(src, c, k, k / squash, light if i else None)
            light = tone if light is None else light
            patches.append(patch)
    return patches


def _cut(grey: np.ndarray, centre: tuple[float, float], k: float, ky: float,
         light: bool | None = None) -> tuple[np.ndarray, bool]:
    """(patch, light): the PATCH x PATCH uint8 patch of grey (float32, WORK x WORK) centred on centre
    (px), scaled by k across and ky down, stretched to the 2nd..98th percentiles of its central disc,
    marks bright, and whether the marks are light on the die.
    Which tone the marks are is told on the patch's central disc (light None), not on the whole die
    (up_face_mark's test): the whole die's tone turned 44 of 138 fickett d4 patches (their bright ridges
    meet at the patch's centre) and 18 % of renders, and the 12-epoch net then shipped read d4 0.891
    (0.920), d20 0.590 (0.586), realdice 0.597 (0.616) given the type (session 7). A cut closer in than
    the trained size is given the tone told on the trained patch (light): there the numeral can fill
    most of the central disc, the marks are no longer its minority, and the tone test turned a realdice
    19 dark on light (read 10 at 0.61)."""
    cx, cy = centre
    affine = np.array([[k, 0, PATCH / 2 - k * cx], [0, ky, PATCH / 2 - ky * cy]], np.float32)
    patch = cv2.warpAffine(grey, affine, (PATCH, PATCH), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    yy, xx = np.mgrid[:PATCH, :PATCH]
    inner = patch[(xx - PATCH / 2 + 0.5) ** 2 + (yy - PATCH / 2 + 0.5) ** 2 <= (0.4 * PATCH) ** 2]
    lo, mid, hi = np.percentile(inner, (2, 50, 98))
    out = (patch - lo) / max(hi - lo, 8.0)
    light = marks_are_light(inner) if light is None else light
    if not light:
        out = 1 - out
    return (out.clip(0, 1) * 255).astype(np.uint8), light


def net_outputs(patches: list[np.ndarray], node: str = "logits", directory: Path | None = None) -> np.ndarray:
    """The output of the numeral net's ONNX node `node` (its name in the ONNX graph: "logits", the
    graph's output, or an inner node's, e.g. fewshot.EMBED_NODE) for N face patches (PATCH x PATCH
    uint8, face_patch), each turned by 0, 90, 180 and 270 degrees: a 4N x D float32 array, row 4i + j
    patch i turned j quarter turns. directory: the net's folder (load_net; None: models/standard).
    Raises ValueError for an empty list, a patch of the wrong shape or a node the net does not have,
    FileNotFoundError when the model is not built (`make models`)."""
    nn = load_net(directory)
    if node not in nn.layers:
        raise ValueError(f"the numeral net {nn.path / ONNX_FILE} has no node {node!r}; it has {sorted(nn.layers)}")
    if not len(patches):
        raise ValueError("no patches given")
    for p in patches:
        if not isinstance(p, np.ndarray) or p.shape != (PATCH, PATCH):
            raise ValueError(f"a face patch must be a {PATCH}x{PATCH} uint8 array (face_patch), "
                             f"got {getattr(p, 'shape', None)}")
    turned = [np.rot90(p, j) for p in patches for j in range(4)]
    blob = (np.stack(turned).astype(np.float32)[:, None] / 255.0 - 0.5) / 0.25
    with _LOCK:  # one cv2.dnn Net, shared by every thread's reads
        nn.net.setInput(blob)
        out = nn.net.forward(nn.layers[node])
    return np.asarray(out, np.float32).reshape(len(turned), -1)


# Measured in session 32, not shipped: the net averaged over 12 turns 30 degrees apart (each patch also turned by 30
# and 60 degrees, border reflected, each at its quarter turns; the temperature refitted over the same turns on the
# 2000 held-out renders: 1.482 against 1.593, held-out accuracy 0.7865 against 0.7885). Given the type through
# read_value on every fickett main-cluster tile d4 / d6 / d8 / d12 / d20 .932 .922 .945 .912 .679 -> .930 .926 .952
# .914 .685 and realdice (colour masks) .780 -> .811, 0 sure-wrong; but through the reader (bench_source) realdice
# .7875 -> .7812 and given d20 .800 -> .794, fickett .7823 -> .7922 and given its types .8229 -> .8328 (unsure
# 98.6 -> 97.8 %), fickett d4 on every 4th tile under its floor (0.903), at 3 x the net's rows per die (fickett's
# ms median 55 -> 80 in one contended pass). The moves are the size of the net's run-to-run noise
# (train_numerals' replicates, up to 0.01) and realdice's goes both ways, so four quarter turns stay.
def numeral_proba(patches: list[np.ndarray]) -> np.ndarray:
    """Probabilities (N x K float32, rows sum to 1) of the numeral classes (numeral_classes()) for
    N face patches (PATCH x PATCH uint8, from face_patch): softmax(logits / temperature) averaged
    over the four quarter turns of each patch. Raises ValueError for a patch of the wrong shape or
    an empty list, FileNotFoundError when the model is not built."""
    z = net_outputs(patches) / load_net().temperature
    e = np.exp(z - z.max(axis=1, keepdims=True))
    p = e / e.sum(axis=1, keepdims=True)
    return p.reshape(len(patches), 4, -1).mean(axis=1).astype(np.float32)


def thinned(patch: np.ndarray) -> np.ndarray:
    """A face patch (PATCH x PATCH uint8, ink bright: face_patch) with its strokes thinned: its grey
    levels as 0..1 (face patches are already stretched to 0..255, _cut) raised to the power STROKE_GAMMA
    and back to uint8 (rounded). Dark stays dark and full ink stays full, so the ink keeps its polarity
    and place; a stroke's soft edge and the halo round it darken, so bold numerals read thinner, as the
    training renders draw them. Raises ValueError for a patch that is not a PATCH x PATCH uint8 array."""
    if not isinstance(patch, np.ndarray) or patch.shape != (PATCH, PATCH) or patch.dtype != np.uint8:
        raise ValueError(f"a face patch must be a {PATCH}x{PATCH} uint8 array (face_patch), "
                         f"got {getattr(patch, 'shape', None)} {getattr(patch, 'dtype', '')}")
    levels = patch.astype(np.float32) / 255.0
    return np.rint(255.0 * levels ** STROKE_GAMMA).astype(np.uint8)


def read_patches(crop_bgr: np.ndarray, mask: np.ndarray | None = None, elevation: float = TOP_DOWN,
                 die_type: str | None = None) -> list[np.ndarray]:
    """The patches (PATCH x PATCH uint8 each) the net reads a die's up face on (read_up_face; faces_eval's
    misread sheets show the same list): face_patches over MARK_PULLS at the type's read_zooms (the
    trained patch first, face_patch's), then each patch cut on the trained centre (MARK_PULL's: the
    trained patch and, for a die_type in READ_ZOOMS, its closer cuts) once more thinned (thinned): a
    bold numeral read again with strokes as thin as the renders'. 3 + 1 patches for a d4..d12 whose
    numeral is found (1 + 1 when none is), 4 + 2 for a d20 (2 + 2). die_type: the die's type when known,
    else None (one size). crop_bgr, mask, elevation: as face_patch; raises ValueError as face_patch does."""
    zooms = read_zooms(die_type)
    patches = face_patches(crop_bgr, mask, elevation, MARK_PULLS, zooms)
    closer = len(zooms) - 1  # face_patches puts the trained centre's closer cuts last
    trained_centre = [patches[0]] + (patches[-closer:] if closer else [])
    return patches + [thinned(p) for p in trained_centre]


def read_up_face(crop_bgr: np.ndarray, mask: np.ndarray | None = None, elevation: float = TOP_DOWN,
                 die_type: str | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The numeral net's reading of a die's up face, over where that face may lie: (mean, trained),
    each (K,) float32 over numeral_classes(). mean: numeral_proba averaged over read_patches (the
    patch cut MARK_PULL of the way to the nearest numeral, as in training, on the silhouette's
    centre and on the numeral, for a die_type in READ_ZOOMS the trained centre again closer in, and
    the trained centre's patches thinned: the net averaged over the up face's unknown centre, the
    numeral's print size and stroke weight, as it is over the patch's quarter turns); trained:
    numeral_proba of face_patch's patch alone (never a thinned one). A reader picks the reading by
    mean and caps its confidence by trained (faces.joint_reading's cap_proba, read_value): reading
    more patches can change which value is read but never makes a reading surer than the one patch
    would. About 3 more net runs per die when a numeral is found (5 for a d20; 1 and 3 when none is).
    die_type: the die's type when known (read_value), else None (one size, as for a d4..d12).
    crop_bgr, mask, elevation: as face_patch; raises ValueError as face_patch does,
    FileNotFoundError when the model is not built."""
    proba = numeral_proba(read_patches(crop_bgr, mask, elevation, die_type))
    return proba.mean(axis=0), proba[0]


def read_value(crop_bgr: np.ndarray, die_type: str, mask: np.ndarray | None = None,
               elevation: float = TOP_DOWN) -> tuple[int, float]:
    """(value, confidence 0..1) of the up face of a die whose type is known (die_type: d4, d6, d8,
    d10, d12, d20): the value most probable under read_up_face's mean (values_from_proba), its
    confidence the smaller of that and the trained patch's probability of the same value (never
    above the one-patch reading). crop_bgr, mask, elevation: as face_patch. Raises ValueError for an
    unknown die type or a bad crop, FileNotFoundError when the model is not built."""
    if die_type not in DIE_FACES:
        raise ValueError(f"the numeral net reads {', '.join(DIE_FACES)}, not {die_type!r}")
    mean, trained = read_up_face(crop_bgr, mask, elevation, die_type)
    by_mean, by_trained = values_from_proba(mean, die_type), values_from_proba(trained, die_type)
    value = max(by_mean, key=by_mean.__getitem__)
    return value, min(by_mean[value], by_trained[value])


#: Faces of each numbered die type the standard set reads: value -> the numeral classes showing it.
DIE_FACES: dict[str, dict[int, tuple[str, ...]]] = {"d4": {v: (f"d4:{v}",) for v in range(1, 5)},
    **{t: {v: (str(v),) for v in range(1, n + 1)} for t, n in (("d6", 6), ("d8", 8), ("d12", 12), ("d20", 20))},
    "d10": {**{v: (str(v),) for v in range(1, 10)}, 10: ("0", "10")}}


def values_from_proba(proba: np.ndarray, die_type: str) -> dict[int, float]:
    """Probability of each face value (1..N) of a die_type die from the numeral net's class
    probabilities (K,) of one patch: the probabilities of the classes that print that value (a
    d10's 10 is "0" or "10", GEN-D02; a d4 reads its top vertex), NOT renormalised: what the net
    gives to blank, symbol or other dice's numerals stays out, so a face that shows no numeral of
    this die keeps a low confidence. Raises ValueError for a die type other than d4, d6, d8, d10,
    d12, d20."""
    if die_type not in DIE_FACES:
        raise ValueError(f"the numeral net reads {', '.join(DIE_FACES)}, not {die_type!r}")
    index = {c: i for i, c in enumerate(numeral_classes())}
    return {v: float(sum(proba[index[c]] for c in cs)) for v, cs in DIE_FACES[die_type].items()}


def value_proba(patch: np.ndarray, die_type: str) -> dict[int, float]:
    """values_from_proba of one face patch (face_patch): {value: probability} over the faces of a
    die_type die. Raises ValueError for an unknown die type or a bad patch."""
    if die_type not in DIE_FACES:
        raise ValueError(f"the numeral net reads {', '.join(DIE_FACES)}, not {die_type!r}")
    return values_from_proba(numeral_proba([patch])[0], die_type)
