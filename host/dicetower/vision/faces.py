"""Face classifier: which die (type by shape) and which face (numeral, symbols, face colour) a crop
of one die shows, with a confidence.

Interface for the reader (H2) and the service:

    from dicetower.vision.faces import classify_crop, load_die_set, FaceResult, DieSetError
    result = classify_crop(crop_bgr, die_set=None)   # crop_bgr: HxWx3 uint8 BGR, one die, any rotation
    result.die_type      # "d4".."d20" | "stone" | ...   (the die's shape / the calibrated set's type)
    result.value         # face value 1..N (d10 "0" reads 10, GEN-D02), or None for symbol-only faces
    result.confidence    # 0..1; below dicetower.readings.UNSURE_BELOW the reading is unsure
    result.symbols       # symbol ids on the face (["epee", "epee"], ["logo"]), [] for plain numerals
    result.face_colour   # colour of the face as calibrated ("ruby", "yellow", ...) or None
    result.unsure        # confidence < UNSURE_BELOW: the caller must flag the die (GEN-D01)

die_set None or "standard" is the shipped set (models/standard: d4, d6 numerals and pips, d8, d10,
d12, d20, trained on synthetic renders only, see train_models.py). Any other name is a calibrated
set (dicetower calibrate), looked up in models/<name>/ and then in
dicetower.paths.user_data_dir()/die_sets/<name>/; an unknown name raises DieSetError listing the
sets that exist.

How it works: the crop is squared and described by gradient-orientation histograms (HOG, Dalal &
Triggs 2005) of the whole die and of its centre (the up face), by the Fourier magnitudes of the
die's outline (triangle, square, hexagon, decagon: rotation-invariant die type by shape) and by
hue/saturation/value statistics of the up face (face colours). PCA (cv2.PCACompute2) reduces the
HOG part; a one-hidden-layer perceptron (softmax output, trained with scipy's L-BFGS) gives class
probabilities, sharpened or softened by a temperature fitted on held-out data so that the
confidence is calibrated. At read time the crop is classified at 0/90/180/270 degrees and the
logits averaged (sets trained on all rotations), or turned in 30-degree steps and the
most confident turn kept (the standard set, trained on upright numerals). Run time needs OpenCV and numpy only (OpenCV 5 wheels have no cv2.ml
and no HOGDescriptor, hence our small HOG and numpy forward pass).
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from dicetower.paths import models_dir, user_data_dir
from dicetower.readings import UNSURE_BELOW

STANDARD = "standard"
MODEL_FILE = "model.npz"
SET_FILE = "set.json"
FORMAT_VERSION = 1

SIDE = 96  # px: crops are squared and resized to SIDE x SIDE before description
SEARCH_ANGLES = tuple(float(a) for a in range(0, 360, 30))  # degrees tried for "upright" sets


class DieSetError(LookupError):
    """An unknown or unreadable die set (the message says which sets exist and how to make one)."""


@dataclass
class FaceResult:
    """What one die crop shows. confidence 0..1 (probability of the reported face, calibrated on
    held-out data); type_confidence 0..1 (summed probability of the reported die type)."""

    die_type: str
    value: int | None
    confidence: float
    symbols: list[str] = field(default_factory=list)
    face_colour: str | None = None
    type_confidence: float = 1.0

    @property
    def unsure(self) -> bool:
        """True when the caller must flag the die rather than trust it (RULES.md GEN-D01)."""
        return self.confidence < UNSURE_BELOW


@dataclass(frozen=True)
class FaceClass:
    """One class of a die set: the face it stands for."""

    die_type: str
    value: int | None
    symbols: tuple[str, ...] = ()
    face_colour: str | None = None

    @property
    def key(self) -> str:
        """Stable text id, e.g. 'd20:17', 'd6:6|logo', 'stone:2|charisme|plus@gold'."""
        parts = [] if self.value is None else [str(self.value)]
        body = "|".join(parts + list(self.symbols)) or "-"
        return f"{self.die_type}:{body}" + (f"@{self.face_colour}" if self.face_colour else "")

    def to_json(self) -> dict:
        return {"die_type": self.die_type, "value": self.value, "symbols": list(self.symbols),
                "face_colour": self.face_colour}

    @classmethod
    def from_json(cls, obj: dict) -> "FaceClass":
        return cls(str(obj["die_type"]), None if obj.get("value") is None else int(obj["value"]),
                   tuple(obj.get("symbols", ())), obj.get("face_colour"))


# ---------------------------------------------------------------------------------------------
# description of a crop


def square(crop: np.ndarray) -> np.ndarray:
    """Pad a crop (HxWx3 uint8) to a square by replicating its border, keeping the die centred.
    Raises ValueError for an empty or non-BGR crop."""
    if crop is None or crop.ndim != 3 or crop.shape[2] != 3 or min(crop.shape[:2]) < 8:
        shape = None if crop is None else crop.shape
        raise ValueError(f"a die crop must be an HxWx3 BGR image of at least 8x8 px, got {shape}")
    h, w = crop.shape[:2]
    d = abs(h - w)
    if h > w:
        return cv2.copyMakeBorder(crop, 0, 0, d // 2, d - d // 2, cv2.BORDER_REPLICATE)
    if w > h:
        return cv2.copyMakeBorder(crop, d // 2, d - d // 2, 0, 0, cv2.BORDER_REPLICATE)
    return crop


def hog(grey: np.ndarray, cell: int = 8, bins: int = 9) -> np.ndarray:
    """Histogram of oriented gradients of a square grey image (SxS float32, S a multiple of cell):
    unsigned orientation (0-180 degrees) in `bins` bins with linear vote interpolation, cells of
    cell x cell px, 2x2-cell blocks with stride one cell, L2-Hys normalised (Dalal & Triggs 2005).
    Returns a float32 vector of ((S/cell)-1)^2 * 4 * bins values."""
    gx = cv2.Sobel(grey, cv2.CV_32F, 1, 0, ksize=1)
    gy = cv2.Sobel(grey, cv2.CV_32F, 0, 1, ksize=1)
    mag, ang = cv2.cartToPolar(gx, gy, angleInDegrees=True)
    ang = np.mod(ang, 180.0) / (180.0 / bins)
    lo = np.floor(ang).astype(np.int32)
    frac = ang - lo
    n = grey.shape[0] // cell
    hist = np.zeros((n, n, bins), np.float32)
    cy, cx = np.divmod(np.arange(grey.size).reshape(grey.shape), grey.shape[1])
    cells = (cy // cell) * n + (cx // cell)
    flat = hist.reshape(-1)
    np.add.at(flat, (cells * bins + lo % bins).ravel(), (mag * (1 - frac)).ravel())
    np.add.at(flat, (cells * bins + (lo + 1) % bins).ravel(), (mag * frac).ravel())
    blocks = np.concatenate([hist[:-1, :-1], hist[1:, :-1], hist[:-1, 1:], hist[1:, 1:]], axis=2)
    blocks = blocks.reshape(-1, 4 * bins)
    blocks /= np.linalg.norm(blocks, axis=1, keepdims=True) + 1e-6
    blocks = np.minimum(blocks, 0.2)
    blocks /= np.linalg.norm(blocks, axis=1, keepdims=True) + 1e-6
    return blocks.ravel()


def silhouette(sq: np.ndarray) -> np.ndarray:
    """Mask (SxS uint8 0/255) of the die in a square crop: pixels far (Otsu) in Lab from the
    median colour of the crop's border ring, largest component, holes filled."""
    lab = cv2.cvtColor(sq, cv2.COLOR_BGR2LAB).astype(np.float32)
    s = sq.shape[0]
    b = max(2, s // 16)
    ring = np.concatenate([lab[:b].reshape(-1, 3), lab[-b:].reshape(-1, 3),
                           lab[:, :b].reshape(-1, 3), lab[:, -b:].reshape(-1, 3)])
    dist = np.linalg.norm(lab - np.median(ring, axis=0), axis=2)
    dist = cv2.GaussianBlur(dist, (5, 5), 0)
    d8 = cv2.normalize(dist, None, 0, 255, cv2.NORM_MINMAX).astype(np.uint8)
    _, mask = cv2.threshold(d8, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    out = np.zeros_like(mask)
    if contours:
        big = max(contours, key=cv2.contourArea)
        cv2.drawContours(out, [big], -1, 255, -1)
    return out


def shape_features(mask: np.ndarray, harmonics: int = 12) -> np.ndarray:
    """Rotation-invariant outline descriptor of a die mask: magnitudes of the first `harmonics`
    Fourier coefficients of the convex hull's radius as a function of arc length (a triangle has
    a strong 3rd harmonic, a square a 4th, the hexagonal outline of a d8/d20 a 6th), then the
    solidity, hull area / enclosing circle area, and hull area / crop area. float32, harmonics+3."""
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    if not contours:
        return np.zeros(harmonics + 3, np.float32)
    c = max(contours, key=cv2.contourArea)
    hull = cv2.convexHull(c).reshape(-1, 2).astype(np.float32)
    area = cv2.contourArea(c)
    harea = max(cv2.contourArea(hull), 1.0)
    closed = np.vstack([hull, hull[:1]])
    seg = np.linalg.norm(np.diff(closed, axis=0), axis=1)
    arc = np.concatenate([[0], np.cumsum(seg)])
    t = np.linspace(0, arc[-1], 128, endpoint=False)
    pts = np.stack([np.interp(t, arc, closed[:, 0]), np.interp(t, arc, closed[:, 1])], 1)
    m = cv2.moments(hull)
    centre = np.array([m["m10"] / max(m["m00"], 1e-6), m["m01"] / max(m["m00"], 1e-6)])
    r = np.linalg.norm(pts - centre, axis=1)
    spec = np.abs(np.fft.rfft(r / (r.mean() + 1e-6)))[1:harmonics + 1] / 128
    (_, _), rad = cv2.minEnclosingCircle(hull)
    extra = [area / harea, harea / max(np.pi * rad * rad, 1.0), harea / mask.size]
    return np.concatenate([spec * 10, extra]).astype(np.float32)


def colour_features(sq: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Colour of the up face (central half of the crop) and of the whole die: a 12-bin hue
    histogram weighted by saturation x value, mean saturation and value, value spread, and the
    die's mean Lab. float32, 18 values in 0..1."""
    s = sq.shape[0]
    hsv = cv2.cvtColor(sq, cv2.COLOR_BGR2HSV).astype(np.float32)
    c = hsv[s // 4: 3 * s // 4, s // 4: 3 * s // 4].reshape(-1, 3)
    w = c[:, 1] * c[:, 2] / (255.0 * 255.0)
    hist = np.bincount((c[:, 0] / 15).astype(np.int32).clip(0, 11), weights=w, minlength=12)
    hist = hist / max(len(c), 1)
    lab = cv2.cvtColor(sq, cv2.COLOR_BGR2LAB).reshape(-1, 3).astype(np.float32) / 255
    sel = mask.reshape(-1) > 0
    mean_lab = lab[sel].mean(0) if sel.any() else lab.mean(0)
    stats = [c[:, 1].mean() / 255, c[:, 2].mean() / 255, c[:, 2].std() / 255]
    return np.concatenate([hist * 4, stats, mean_lab]).astype(np.float32)


def centred(sq: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """The square crop re-centred on the die and scaled so that the die's enclosing circle fills
    it (SIDE x SIDE x 3 uint8): removes the detector's offset and margin. sq: SxSx3, mask: the
    silhouette of sq resized to SIDE. Falls back to sq resized when no die outline is found."""
    pts = cv2.findNonZero(mask)
    if pts is None or len(pts) < 0.05 * mask.size:
        return cv2.resize(sq, (SIDE, SIDE), interpolation=cv2.INTER_AREA)
    (cx, cy), r = cv2.minEnclosingCircle(pts)
    k = sq.shape[0] / SIDE
    cx, cy, half = cx * k, cy * k, max(r * 1.05, SIDE * 0.25) * k
    pad = int(np.ceil(half)) + 1
    big = cv2.copyMakeBorder(sq, pad, pad, pad, pad, cv2.BORDER_REPLICATE)
    x0, y0 = int(round(cx - half)) + pad, int(round(cy - half)) + pad
    side = int(round(2 * half))
    return cv2.resize(big[y0:y0 + side, x0:x0 + side], (SIDE, SIDE), interpolation=cv2.INTER_AREA)


def describe(crop: np.ndarray, angles: tuple[float, ...] = (0.0,)) -> np.ndarray:
    """Raw feature vectors of a die crop (HxWx3 uint8 BGR): one row per rotation of the squared,
    die-centred crop by each of `angles` (degrees, counter-clockwise). Returns float32
    (len(angles) x D): HOG of the whole die (32x32, 8 px cells) and of its centre, the up face
    (48x48, 6 px cells), N_HOG values together, then outline and colour features (rotation-
    invariant, computed once). Raises ValueError on a bad crop."""
    sq = square(crop)
    small = cv2.resize(sq, (SIDE, SIDE), interpolation=cv2.INTER_AREA)
    mask = silhouette(small)
    fixed = np.concatenate([shape_features(mask), colour_features(small, mask)])
    grey = cv2.cvtColor(centred(sq, mask), cv2.COLOR_BGR2GRAY).astype(np.float32)
    grey = (grey - grey.mean()) / (grey.std() + 1e-3)
    m = SIDE // 4
    rows = []
    for angle in angles:
        g = grey
        if angle % 360:
            rot = cv2.getRotationMatrix2D(((SIDE - 1) / 2, (SIDE - 1) / 2), float(angle), 1.0)
            g = cv2.warpAffine(grey, rot, (SIDE, SIDE), flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_REPLICATE)
        whole = cv2.resize(g, (32, 32), interpolation=cv2.INTER_AREA)
        centre = cv2.resize(g[m: SIDE - m, m: SIDE - m], (48, 48), interpolation=cv2.INTER_LINEAR)
        rows.append(np.concatenate([hog(whole, 8), hog(centre, 6)]))
    rows = np.array(rows, np.float32)
    return np.hstack([rows, np.tile(fixed, (len(rows), 1))])


# ---------------------------------------------------------------------------------------------
# the classifier


@dataclass
class FaceModel:
    """PCA + one-hidden-layer perceptron over describe() vectors.

    n_hog: how many leading feature columns the PCA reduces; pca_mean (1 x n_hog), pca_basis
    (k x n_hog); mu, sigma: standardisation of the reduced vector (1 x d); w1 (d x h), b1 (h),
    w2 (h x C), b2 (C); temperature: logits are divided by it before the softmax."""

    n_hog: int
    pca_mean: np.ndarray
    pca_basis: np.ndarray
    mu: np.ndarray
    sigma: np.ndarray
    w1: np.ndarray
    b1: np.ndarray
    w2: np.ndarray
    b2: np.ndarray
    temperature: float = 1.0

    def reduce(self, x: np.ndarray) -> np.ndarray:
        """N x D raw features -> N x d standardised inputs of the perceptron."""
        z = cv2.PCAProject(np.ascontiguousarray(x[:, : self.n_hog]), self.pca_mean, self.pca_basis)
        z = np.hstack([z, x[:, self.n_hog:]])
        return (z - self.mu) / self.sigma

    def logits(self, x: np.ndarray) -> np.ndarray:
        """N x D raw features -> N x C logits (before temperature)."""
        hidden = np.tanh(self.reduce(x) @ self.w1 + self.b1)
        return hidden @ self.w2 + self.b2

    def proba(self, x: np.ndarray) -> np.ndarray:
        """N x D raw features -> N x C class probabilities (temperature applied)."""
        return softmax(self.logits(x) / self.temperature)

    def save(self, path: Path) -> None:
        np.savez_compressed(path, n_hog=self.n_hog, pca_mean=self.pca_mean, pca_basis=self.pca_basis,
                            mu=self.mu, sigma=self.sigma, w1=self.w1, b1=self.b1, w2=self.w2,
                            b2=self.b2, temperature=self.temperature)

    @classmethod
    def load(cls, path: Path) -> "FaceModel":
        with np.load(path) as z:
            return cls(int(z["n_hog"]), z["pca_mean"], z["pca_basis"], z["mu"], z["sigma"], z["w1"],
                       z["b1"], z["w2"], z["b2"], float(z["temperature"]))


def softmax(logits: np.ndarray) -> np.ndarray:
    """Row-wise softmax of an N x C array."""
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


N_HOG = (3 * 3 + 7 * 7) * 36  # HOG of 32x32 in 8 px cells (3x3 blocks) + 48x48 in 6 px cells (7x7)


def fit_model(x: np.ndarray, y: np.ndarray, n_classes: int, hidden: int = 96, l2: float = 3e-3,
              max_components: int = 120, max_iter: int = 250, seed: int = 0) -> FaceModel:
    """Train a FaceModel on raw features x (N x D float32) and labels y (N ints in 0..n_classes-1):
    PCA keeping 95% of the HOG variance (at most max_components), standardisation, then the
    cross-entropy + l2 * |W|^2 / 2 of the perceptron minimised with scipy's L-BFGS-B.
    The temperature is left at 1 (see fit_temperature). Raises ValueError on fewer than 2 samples."""
    from scipy.optimize import minimize

    if len(x) < 2:
        raise ValueError("need at least 2 training samples")
    hog_part = np.ascontiguousarray(x[:, :N_HOG])
    k = int(min(max_components, len(x) - 1))
    mean, basis, _ = cv2.PCACompute2(hog_part, mean=None, maxComponents=k)
    z = np.hstack([cv2.PCAProject(hog_part, mean, basis), x[:, N_HOG:]])
    mu, sigma = z.mean(0, keepdims=True), z.std(0, keepdims=True) + 1e-3
    z = (z - mu) / sigma
    n, d = z.shape
    rng = np.random.default_rng(seed)
    shapes = [(d, hidden), (hidden,), (hidden, n_classes), (n_classes,)]
    sizes = [int(np.prod(s)) for s in shapes]
    theta0 = np.concatenate([rng.normal(0, 1 / np.sqrt(d), sizes[0]), np.zeros(sizes[1]),
                             rng.normal(0, 1 / np.sqrt(hidden), sizes[2]), np.zeros(sizes[3])])
    onehot = np.eye(n_classes)[y]

    def unpack(theta):
        out, i = [], 0
        for s, m in zip(shapes, sizes):
            out.append(theta[i:i + m].reshape(s))
            i += m
        return out

    def loss(theta):
        w1, b1, w2, b2 = unpack(theta)
        h = np.tanh(z @ w1 + b1)
        p = softmax(h @ w2 + b2)
        ce = -np.sum(onehot * np.log(p + 1e-12)) / n
        reg = 0.5 * l2 * (np.sum(w1 * w1) + np.sum(w2 * w2))
        g_out = (p - onehot) / n
        g_w2 = h.T @ g_out + l2 * w2
        g_b2 = g_out.sum(0)
        g_h = (g_out @ w2.T) * (1 - h * h)
        g_w1 = z.T @ g_h + l2 * w1
        g_b1 = g_h.sum(0)
        return ce + reg, np.concatenate([g_w1.ravel(), g_b1, g_w2.ravel(), g_b2])

    res = minimize(loss, theta0, jac=True, method="L-BFGS-B", options={"maxiter": max_iter})
    w1, b1, w2, b2 = (a.astype(np.float32) for a in unpack(res.x))
    return FaceModel(N_HOG, mean.astype(np.float32), basis.astype(np.float32), mu.astype(np.float32),
                     sigma.astype(np.float32), w1, b1, w2, b2)


def fit_temperature(logits: np.ndarray, y: np.ndarray) -> float:
    """Temperature T minimising the negative log-likelihood of softmax(logits / T) on held-out
    logits (N x C) with true labels y (Guo et al. 2017, 'temperature scaling')."""
    from scipy.optimize import minimize_scalar

    def nll(log_t):
        p = softmax(logits / np.exp(log_t))
        return -np.mean(np.log(p[np.arange(len(y)), y] + 1e-12))

    return float(np.exp(minimize_scalar(nll, bounds=(-3, 3), method="bounded").x))


# ---------------------------------------------------------------------------------------------
# die sets


@dataclass
class DieSet:
    """A named set of dice the classifier knows: its classes (faces), model and where it lives.
    meta holds provenance (sources, seed, accuracy figures) as written by its trainer."""

    name: str
    classes: list[FaceClass]
    model: FaceModel
    orientation: str = "any"
    path: Path | None = None
    meta: dict = field(default_factory=dict)

    def logits(self, crop: np.ndarray) -> np.ndarray:
        """Logits (C,) of one crop, orientation handled: for an "upright" set (trained on marks
        read upright, +-15 degrees) the crop is turned in 30-degree steps and the turn whose best
        class is most probable wins; for an "any" set (trained on all rotations) the logits of
        the crop turned 0/90/180/270 degrees are averaged."""
        if self.orientation == "upright":
            rows = self.model.logits(describe(crop, SEARCH_ANGLES))
            return rows[int(np.argmax(softmax(rows).max(axis=1)))]
        return self.model.logits(describe(crop, (0.0, 90.0, 180.0, 270.0))).mean(axis=0)

    def classify(self, crop: np.ndarray) -> FaceResult:
        """Classify one die crop (HxWx3 uint8 BGR, any rotation). Raises ValueError on a bad crop."""
        return self.result_from_proba(softmax(self.logits(crop)[None] / self.model.temperature)[0])

    def result_from_proba(self, proba: np.ndarray) -> FaceResult:
        """FaceResult from class probabilities (C,): the most probable die type (summed over its
        faces), then its most probable face; confidence = that face's probability."""
        types: dict[str, float] = {}
        for c, p in zip(self.classes, proba):
            types[c.die_type] = types.get(c.die_type, 0.0) + float(p)
        die_type = max(types, key=types.__getitem__)
        best = max((i for i, c in enumerate(self.classes) if c.die_type == die_type), key=lambda i: proba[i])
        c = self.classes[best]
        return FaceResult(c.die_type, c.value, float(proba[best]), list(c.symbols), c.face_colour,
                          types[die_type])

    def save(self, directory: Path) -> Path:
        """Write set.json and model.npz into directory (created). Returns the directory."""
        directory.mkdir(parents=True, exist_ok=True)
        self.model.save(directory / MODEL_FILE)
        doc = {"format": FORMAT_VERSION, "name": self.name, "orientation": self.orientation,
               "classes": [c.to_json() for c in self.classes], "meta": self.meta}
        (directory / SET_FILE).write_text(json.dumps(doc, indent=1) + "\n")
        self.path = directory
        return directory


def die_set_dirs(name: str) -> list[Path]:
    """Where a die set named `name` may live, in lookup order: models/<name>/, then
    user_data_dir()/die_sets/<name>/."""
    return [models_dir() / name, user_data_dir() / "die_sets" / name]


def available_die_sets() -> list[str]:
    """Names of the die sets found in models/ and in the user's data directory."""
    names = set()
    for root in (models_dir(), user_data_dir() / "die_sets"):
        if root.is_dir():
            names.update(p.name for p in root.iterdir() if (p / SET_FILE).is_file())
    return sorted(names)


_CACHE: dict[str, DieSet] = {}
_LOCK = threading.Lock()


def load_die_set(name: str | None = None) -> DieSet:
    """The die set called `name` (None = "standard"), loaded once and cached.
    Raises DieSetError when no such set exists (naming the sets that do and how to calibrate one)
    or when its files are unreadable."""
    name = name or STANDARD
    if any(ch in name for ch in "/\\") or name.startswith("."):
        raise DieSetError(f"die set name {name!r} must be a plain name (letters, digits, - and _)")
    with _LOCK:
        if name in _CACHE:
            return _CACHE[name]
        for directory in die_set_dirs(name):
            if (directory / SET_FILE).is_file():
                try:
                    doc = json.loads((directory / SET_FILE).read_text())
                    if doc.get("format") != FORMAT_VERSION:
                        raise DieSetError(
                            f"die set {name!r} in {directory} has format {doc.get('format')}, this "
                            f"version reads format {FORMAT_VERSION}: recalibrate it")
                    ds = DieSet(doc["name"], [FaceClass.from_json(c) for c in doc["classes"]],
                                FaceModel.load(directory / MODEL_FILE), doc.get("orientation", "any"),
                                directory, doc.get("meta", {}))
                except (OSError, ValueError, KeyError) as exc:
                    raise DieSetError(f"die set {name!r} in {directory} is unreadable ({exc}); "
                                      f"recalibrate it or, for 'standard', run `make models`") from exc
                _CACHE[name] = ds
                return ds
        known = ", ".join(available_die_sets()) or "none"
        hint = ("run `make models` to build it" if name == STANDARD else
                f"make it with `dicetower calibrate --die-set {name}` (guided, with the tower's camera) "
                f"or `dicetower calibrate --from-labels labels.csv --images-root DIR --die-set {name}`")
        raise DieSetError(f"unknown die set {name!r} (looked in {', '.join(map(str, die_set_dirs(name)))}; "
                          f"known sets: {known}): {hint}")


def forget_die_set(name: str) -> None:
    """Drop a cached die set so the next load_die_set reads it again (after recalibration)."""
    with _LOCK:
        _CACHE.pop(name, None)


def classify_crop(crop_bgr: np.ndarray, die_set: str | None = None) -> FaceResult:
    """Die type and face of one die crop.

    crop_bgr: HxWx3 uint8 BGR, one die roughly centred, the die filling most of it, any rotation,
    top-down view. die_set: None / "standard" for the shipped models, or a calibrated set's name.
    Returns FaceResult (result.unsure => the caller flags the die, GEN-D01).
    Raises DieSetError for an unknown die set, ValueError for a crop that is not HxWx3 >= 8x8 px."""
    return load_die_set(die_set).classify(crop_bgr)
