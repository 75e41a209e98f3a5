"""Few-shot face model for calibrated die sets (issue 4 items 3-5): a dice set the readers have
never seen becomes readable from 3 to 5 labelled photos per face.

Every labelled crop is centred on its die (the silhouette's centroid, faces.silhouette), scaled to
the die's size and turned to ROTATIONS angles about that centre (plus a few light/blur/shift
variants), and each turned patch is described by a colour histogram of oriented gradients
(hog_features, numpy: the OpenCV 5 wheels have no cv2.HOGDescriptor; unsigned gradients, so
light-on-dark and dark-on-light marks look alike). The numeral CNN's embedding
(its "embedding" output) was measured in its place and read fickett d8 worse (0.86 against 0.96 from 3
tiles per face), so HOG stays. The bank of feature vectors is the model: a query crop is described once, upright
as photographed, and each class scores the mean cosine similarity of its K_NEAREST nearest bank
vectors (the face found at any rotation, since the bank holds every turn), minus COLOUR_WEIGHT x
the Lab distance between the query's and the class's up-face and body colours (Alkemy's white,
yellow and red bodies; Throwing Stones' ruby, gold and silver faces; a*b* only, weighted by how
well colour separates the set's faces, class_colours). Softmax of the class scores
divided by a temperature fitted on cross-validated predictions gives the confidence.

Run time: OpenCV and numpy only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from dicetower.readings import UNSURE_BELOW
from dicetower.vision.faces import silhouette, softmax, square

SIDE = 96        # px: crops are squared and resized to SIDE x SIDE before centring
PATCH = 48       # px: side of the centred, scaled patch that is described
SPAN = 0.8       # patch half-side as a fraction of the die's radius (area-equivalent circle x 1.1)
ROTATIONS = 36   # turns of every labelled crop in the bank (10 degrees apart)
K_NEAREST = 3    # bank vectors averaged per class
PCA_SAMPLE = 600   # bank vectors the principal axes are computed from
DIMS = 160       # principal components kept of the bank's feature vectors (storage: N x DIMS float16)
COLOUR_WEIGHT = 0.5  # most weight of the a*b* distance (Lab / 100) against the cosine similarity
CHROMA = [1, 2, 4, 5]  # a*, b* of the up face and of the body: lightness follows the light, hue the die

CELL = 6         # px: HOG cell side
BINS = 9         # HOG orientation bins over 0-180 degrees (unsigned gradients)


@dataclass
class Centred:
    """A die crop ready to describe: `small` SIDE x SIDE x 3 uint8 BGR (squared, resized),
    the die's centre (x, y) and radius in px of `small`, and `colour` (6,) float32: mean Lab / 100
    of the up face (inner disc, 0.45 radius) and of the whole die."""

    small: np.ndarray
    centre: tuple[float, float]
    radius: float
    colour: np.ndarray


def centre_die(crop: np.ndarray) -> Centred:
    """Find the die in a crop (HxWx3 uint8 BGR): squared, resized to SIDE, silhouette
    (faces.silhouette) centroid and area radius x 1.1; the whole crop when the silhouette is empty
    or cut by the crop's edges. Raises ValueError for a crop that is not a non-empty HxWx3 image."""
    small = cv2.resize(square(crop), (SIDE, SIDE), interpolation=cv2.INTER_AREA)
    mask = silhouette(small)
    edge = np.concatenate([mask[0], mask[-1], mask[:, 0], mask[:, -1]])
    area = float(np.count_nonzero(mask))
    if area < 0.05 * mask.size or np.mean(edge > 0) > 0.1:
        centre, radius, die = ((SIDE - 1) / 2, (SIDE - 1) / 2), SIDE / 2, np.full_like(mask, 255)
    else:
        m = cv2.moments(mask, binaryImage=True)
        centre = (m["m10"] / m["m00"], m["m01"] / m["m00"])
        radius, die = max(np.sqrt(area / np.pi) * 1.1, SIDE * 0.2), mask
    lab = cv2.cvtColor(small, cv2.COLOR_BGR2LAB).astype(np.float32) / 100
    inner = np.zeros_like(mask)
    cv2.circle(inner, (int(round(centre[0])), int(round(centre[1]))), int(radius * 0.45), 255, -1)
    colour = np.concatenate([cv2.mean(lab, inner)[:3], cv2.mean(lab, die)[:3]]).astype(np.float32)
    return Centred(small, centre, float(radius), colour)


def patches(c: Centred, angles_deg: list[float] | np.ndarray, scale: float = 1.0,
            shift: tuple[float, float] = (0.0, 0.0)) -> np.ndarray:
    """The die turned by each angle (degrees, counter-clockwise) about its centre, scaled so its
    radius x SPAN spans half the patch: N x PATCH x PATCH uint8 grey. scale, shift (fractions of
    the radius): augmentation of the centring."""
    k = PATCH / (2 * c.radius * SPAN) * scale
    cx, cy = c.centre[0] + shift[0] * c.radius, c.centre[1] + shift[1] * c.radius
    out = np.empty((len(angles_deg), PATCH, PATCH, 3), np.uint8)
    for i, a in enumerate(angles_deg):
        m = cv2.getRotationMatrix2D((cx, cy), float(a), k)
        m[:, 2] += np.array([PATCH / 2 - cx, PATCH / 2 - cy])
        out[i] = cv2.warpAffine(c.small, m, (PATCH, PATCH), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return out


def hog_features(batch: np.ndarray) -> np.ndarray:
    """N x PATCH x PATCH uint8 grey patches -> N x D float32 L2-normalised histograms of oriented
    gradients (Dalal & Triggs 2005): centred differences, BINS unsigned orientation bins with
    linear interpolation between bins, CELL px cells, 2 x 2-cell blocks at a one-cell stride,
    each block L2-Hys normalised (clip 0.2). D = (PATCH/CELL - 1)^2 x 4 x BINS (900 for 48 px).
    The OpenCV 5 wheels have no cv2.HOGDescriptor, hence numpy."""
    p = batch.astype(np.float32)
    if p.ndim == 3:
        p = p[..., None]
    gx = np.zeros_like(p)
    gy = np.zeros_like(p)
    gx[:, :, 1:-1] = p[:, :, 2:] - p[:, :, :-2]
    gy[:, 1:-1] = p[:, 2:] - p[:, :-2]
    mag = np.hypot(gx, gy)
    strongest = mag.argmax(axis=3)[..., None]  # colour HOG: the channel with the largest gradient
    mag = np.take_along_axis(mag, strongest, 3)[..., 0]
    gx = np.take_along_axis(gx, strongest, 3)[..., 0]
    gy = np.take_along_axis(gy, strongest, 3)[..., 0]
    pos = (np.arctan2(gy, gx) % np.pi) / np.pi * BINS - 0.5
    lo = np.floor(pos)
    frac = pos - lo
    lo = lo.astype(np.int64) % BINS
    n, h, w = mag.shape
    cells = h // CELL
    # cell index of every pixel, then one bincount per interpolation side (cells x cells x BINS per patch)
    cy, cx = np.divmod(np.arange(h * w), w)
    cell = (np.minimum(cy // CELL, cells - 1) * cells + np.minimum(cx // CELL, cells - 1)).reshape(h, w)
    base = (np.arange(n)[:, None, None] * cells * cells + cell) * BINS
    size = n * cells * cells * BINS
    hist = (np.bincount((base + lo).ravel(), (mag * (1 - frac)).ravel(), size)
            + np.bincount((base + (lo + 1) % BINS).ravel(), (mag * frac).ravel(), size))
    hist = hist.reshape(n, cells, cells, BINS).astype(np.float32)
    blocks = np.concatenate([hist[:, :-1, :-1], hist[:, 1:, :-1], hist[:, :-1, 1:], hist[:, 1:, 1:]], axis=3)
    blocks /= np.linalg.norm(blocks, axis=3, keepdims=True) + 1e-3
    blocks = np.minimum(blocks, 0.2)
    blocks /= np.linalg.norm(blocks, axis=3, keepdims=True) + 1e-3
    feats = blocks.reshape(n, -1)
    return feats / (np.linalg.norm(feats, axis=1, keepdims=True) + 1e-6)


def features(batch: np.ndarray, kind: str = "hog") -> np.ndarray:
    """Feature vectors (N x D float32, L2-normalised) of N x PATCH x PATCH uint8 patches;
    kind "hog" (hog_features). Raises ValueError for an unknown kind."""
    if kind == "hog":
        return hog_features(batch)
    raise ValueError(f"unknown feature kind {kind!r}; known: hog")


@dataclass
class FewShotModel:
    """Nearest-neighbour model over rotation-augmented feature vectors.

    bank: N x DIMS float16 feature vectors projected on the principal axes `basis` (D x DIMS
    float32, around `mean` (D,)) and L2-normalised, labels: (N,) class index per vector,
    colours: C x 6 float32 mean Lab / 100 (up face, body) per class, n_classes: C, feature: the
    feature kind ("hog"), temperature: class scores are divided by it before the softmax,
    threshold: the set's confidence below which a reading is unsure (chosen by cross-validation).
    """

    bank: np.ndarray
    labels: np.ndarray
    colours: np.ndarray
    n_classes: int
    mean: np.ndarray
    basis: np.ndarray
    feature: str = "hog"
    temperature: float = 0.05
    threshold: float = 0.8
    k_nearest: int = K_NEAREST
    colour_weight: float = COLOUR_WEIGHT
    _bank32: np.ndarray | None = field(default=None, repr=False)

    def confidence(self, p: float) -> float:
        """The reported confidence (0..1) of a reading whose face has probability p (0..1): p mapped
        piecewise linearly so that the set's threshold falls on UNSURE_BELOW, so a reading is unsure
        (FaceResult.unsure, GEN-D01) exactly when p < threshold; order and the ends 0, 1 are kept."""
        t = min(max(self.threshold, 1e-6), 1 - 1e-6)
        if p < t:
            return UNSURE_BELOW * p / t
        return UNSURE_BELOW + (1 - UNSURE_BELOW) * (p - t) / (1 - t)

    def proba(self, crop: np.ndarray) -> np.ndarray:
        """(C,) class probabilities of one crop: softmax(logits / temperature)."""
        return softmax(self.logits(crop)[None] / self.temperature)[0]

    def logits(self, crop: np.ndarray) -> np.ndarray:
        """(C,) class scores of one crop (HxWx3 uint8 BGR, any rotation), before the temperature."""
        c = centre_die(crop)
        return self.logits_of(self.project(features(patches(c, [0.0]), self.feature))[0], c.colour)

    def project(self, f: np.ndarray) -> np.ndarray:
        """N x D feature vectors -> N x DIMS, on the principal axes, L2-normalised."""
        return project(f, self.mean, self.basis)

    def logits_of(self, q: np.ndarray, colour: np.ndarray) -> np.ndarray:
        """(C,) class scores of a projected feature vector q (DIMS,) and a colour (6,)."""
        if self._bank32 is None:
            self._bank32 = self.bank.astype(np.float32)
        sims = self._bank32 @ q
        out = np.full(self.n_classes, -2.0, np.float32)
        for j in range(self.n_classes):
            s = sims[self.labels == j]
            if s.size:
                k = min(self.k_nearest, s.size)
                out[j] = np.partition(s, s.size - k)[s.size - k:].mean()
        return out - self.colour_weight * np.linalg.norm((self.colours - colour)[:, CHROMA], axis=1)

    def save(self, path: Path) -> None:
        """Write the model to an .npz file (bank as float16)."""
        np.savez_compressed(path, kind="fewshot", bank=self.bank.astype(np.float16), labels=self.labels,
                            colours=self.colours, n_classes=self.n_classes, mean=self.mean,
                            basis=self.basis.astype(np.float16), feature=self.feature,
                            temperature=self.temperature, threshold=self.threshold,
                            k_nearest=self.k_nearest, colour_weight=self.colour_weight)

    @classmethod
    def load(cls, path: Path) -> "FewShotModel":
        """Read a model written by save(). Raises OSError, KeyError or ValueError on a bad file."""
        with np.load(path) as z:
            return cls(z["bank"], z["labels"].astype(np.int32), z["colours"].astype(np.float32),
                       int(z["n_classes"]), z["mean"].astype(np.float32), z["basis"].astype(np.float32),
                       str(z["feature"]), float(z["temperature"]), float(z["threshold"]),
                       int(z["k_nearest"]), float(z["colour_weight"]))


def augmented_vectors(crop: np.ndarray, rng: np.random.Generator, n_aug: int, feature: str = "hog",
                      rotations: int = ROTATIONS) -> tuple[np.ndarray, np.ndarray]:
    """Bank vectors of one labelled crop: `rotations` evenly spaced turns (random start), and for
    each of n_aug variants (gain 0.8-1.2, gamma 0.8-1.25, blur sigma 0-1 px, centring shift up to
    6% and scale 0.92-1.08 of the radius) another `rotations` turns. Returns (vectors: M x D
    float32, colour (6,) of the original crop)."""
    c = centre_die(crop)
    out = [features(patches(c, np.arange(rotations) * 360.0 / rotations + rng.uniform(0, 360.0 / rotations)),
                    feature)]
    for _ in range(n_aug):
        img = c.small.astype(np.float32) * rng.uniform(0.8, 1.2)
        img = 255.0 * (img.clip(0, 255) / 255) ** rng.uniform(0.8, 1.25)
        s = rng.uniform(0, 1.0)
        if s > 0.3:
            img = np.asarray(cv2.GaussianBlur(img, (0, 0), s), np.float32)
        v = Centred(img.clip(0, 255).astype(np.uint8), c.centre, c.radius, c.colour)
        angles = np.arange(rotations) * 360.0 / rotations + rng.uniform(0, 360.0 / rotations)
        out.append(features(patches(v, angles, rng.uniform(0.92, 1.08), tuple(rng.uniform(-0.06, 0.06, 2))),
                            feature))
    return np.concatenate(out), c.colour


def fit_fewshot(crops: list[np.ndarray], y: np.ndarray, n_classes: int, rng: np.random.Generator,
                n_aug: int = 1, feature: str = "hog") -> FewShotModel:
    """A FewShotModel from labelled crops (HxWx3 uint8 BGR) with class indices y; class colours
    are the mean of their crops' colours. Raises ValueError when there are no crops."""
    if not crops:
        raise ValueError("need at least one labelled crop")
    bank, labels, crop_colours = [], [], []
    for crop, label in zip(crops, y):
        v, colour = augmented_vectors(crop, rng, n_aug, feature)
        bank.append(v)
        labels.append(np.full(len(v), label, np.int32))
        crop_colours.append(colour)
    colours, weight = class_colours(np.array(crop_colours), np.asarray(y), n_classes)
    bank_a = np.concatenate(bank)
    mean, basis = principal_axes(bank_a, DIMS, rng)
    return FewShotModel(project(bank_a, mean, basis).astype(np.float16), np.concatenate(labels), colours,
                        n_classes, mean, basis, feature, colour_weight=weight)


def class_colours(colours: np.ndarray, y: np.ndarray, n_classes: int) -> tuple[np.ndarray, float]:
    """Mean colour (C x 6) of each class from its crops' colours (N x 6, y: N class indices), and
    the weight of colour in the class scores: COLOUR_WEIGHT x F / (1 + F), F the ratio of the
    between-class to the within-class variance of a*b* (Fisher): near COLOUR_WEIGHT when the faces
    differ in colour (Alkemy's bodies, Throwing Stones' faces), near 0 when colour tells them not
    apart (every face of one die), so light changes do not sway the reading."""
    means = np.zeros((n_classes, colours.shape[1]), np.float32)
    for j in range(n_classes):
        if np.any(y == j):
            means[j] = colours[y == j].mean(axis=0)
    chroma = colours[:, CHROMA]
    within = float(np.mean(np.sum((chroma - means[y][:, CHROMA]) ** 2, axis=1)))
    present = np.unique(y)
    between = float(np.mean(np.sum((means[present][:, CHROMA] - chroma.mean(axis=0)) ** 2, axis=1)))
    f = between / (within + 1e-6)
    return means, COLOUR_WEIGHT * f / (1 + f)


def principal_axes(x: np.ndarray, dims: int, rng: np.random.Generator, sample: int = PCA_SAMPLE
                   ) -> tuple[np.ndarray, np.ndarray]:
    """Mean (D,) and the `dims` principal axes (D x dims float32, largest variance first) of the rows
    of x (N x D), from at most `sample` rows drawn at random, by the eigenvectors of their Gram
    matrix (snapshot PCA: an s x s eigenproblem instead of D x D)."""
    mean = x.mean(axis=0)
    rows = x[rng.choice(len(x), sample, replace=False)] if len(x) > sample else x
    c = (rows - mean).astype(np.float64)
    vals, vecs = np.linalg.eigh(c @ c.T)
    keep = np.argsort(-vals)[:min(dims, len(vals))]
    keep = keep[vals[keep] > 1e-9 * vals[keep[0]]]
    basis = c.T @ vecs[:, keep] / np.sqrt(vals[keep])
    return mean.astype(np.float32), np.ascontiguousarray(basis, np.float32)


def project(f: np.ndarray, mean: np.ndarray, basis: np.ndarray) -> np.ndarray:
    """N x D feature vectors -> N x d: centred on mean (D,), projected on basis (D x d), L2-normalised."""
    p = (f - mean) @ basis
    return p / (np.linalg.norm(p, axis=1, keepdims=True) + 1e-6)
