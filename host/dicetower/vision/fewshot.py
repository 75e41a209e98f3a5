"""Few-shot face model for calibrated die sets (issue 4 items 3-5): a dice set the readers have
never seen becomes readable from 3 to 5 labelled photos per face.

Every labelled crop is centred on its die's face pointing up (seen from above: the silhouette's
centroid, faces.silhouette; from an oblique camera: above it by the view's elevation, and stretched
back to undo the foreshortening, centre_die), scaled to the die's size and turned to ROTATIONS angles
about that centre (plus a few light/blur/shift variants), and each turned patch is described by a colour histogram of oriented gradients
(hog_features, numpy: the OpenCV 5 wheels have no cv2.HOGDescriptor; unsigned gradients, so
light-on-dark and dark-on-light marks look alike). The bank of feature vectors is the model: a
query crop is described at the QUERY_TURNS turns, and each mark (a face's value and symbols, whatever
its colour) scores the mean cosine similarity of its K_NEAREST nearest bank vectors (the face found
at any rotation, since the bank holds every turn), averaged over the turns. Each labelled crop is
also described by what the numeral net sees of its up face (net_embedding: the net's 128-value
embedding before its class layer, on numerals.face_patch), matched the same way (net_scores); the
mark score is (1 - net_share) x HOG's + net_share x the net's, net_share chosen per set by
calibrate's cross-validation, divided by a mark temperature. The net's view mixed with HOG reads
every calibration_eval set but fickett d6 better (realdice's blurred, oblique d20s: 0.06 -> 0.61
right from 3 photos per face with the class log-probabilities, where HOG learns nothing); the
embedding, each labelled patch turned (NET_TURNS) and the bank whitened by the set's own
within-class scatter (within_class_whitening), reads more right than the class log-probabilities
did (realdice from 5 photos per face 0.750 -> 0.833, fickett d20 0.959 -> 0.966, calibration_eval
session 11). A face neither description reads first is unsure (FewShotModel.descriptions_agree).

Three sources of evidence are added as log-likelihoods (issue 4 items 3-5):
- the marks (HOG, above), learned from every colour of the set at once (Alkemy's white, yellow and
  red 3 pool their photos);
- the colour (colour_loglik): a Gaussian over the a*b* of the up face and of the body per face
  (Alkemy's white, yellow, red bodies; Throwing Stones' ruby, gold, silver faces; even the faces of
  one swirled die differ: fickett's copper/steel d4 reads 0.79 with it, 0.66 without), with a
  spread pooled over the set's photos, weighted by how well colour tells the faces apart (Fisher's
  ratio F, weight F / (1 + F): near 0 for a die whose faces all look alike in colour);
- the standard readers as a prior (standard_values): when the set's faces are ordinary numerals or
  pips that the numeral net or the pip reader reads as their labelled value in the calibration
  photos, those faces get the reader's log-probability of their value, and the faces it cannot
  read (a logo, symbols) share the log-probability of "none of these values". A face the reader
  reads is also missed now and then (the net does not read 43 of fickett d4's 105 1s as 1): when it
  reads none of the set's values, such a face's likelihood is recall x P(its value) + (1 - recall)
  x P(none), recall the reader's hit rate on the set's labelled photos by Laplace's rule of
  succession, so seeing nothing is no strong evidence against a face it may have missed
  (prior_loglik).
Softmax of the sum divided by a temperature fitted on cross-validated predictions gives the
confidence (calibrate.py), weighed against the standard reader's own reading (corroborated): a face
it does not back is unsure, and a face it reads sure, that no other face of the set shows, is sure
(two independent readers agree); so is a face the few-shot alone reads and the reader names
(named_value: its most probable value, well ahead of the others, whatever its calibrated level)
when the set's two readers' error rates multiply to at most 0.1 % (calibrate.agreement_error).
The readers lift no die seen under another light than the labelled photos' (learned_light): their
error rates were measured under that light.

Run time: OpenCV and numpy only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from dicetower.readings import UNSURE_BELOW
from dicetower.vision.faces import silhouette, softmax, square
from dicetower.vision.view import AGREE_DEG, TOP_DOWN, TOP_DOWN_FROM, ViewEstimate, check_elevation

SIDE = 96        # px: crops are squared and resized to SIDE x SIDE before centring
PATCH = 48       # px: side of the centred, scaled patch that is described
SPAN = 0.8       # patch half-side as a fraction of the die's radius (area-equivalent circle x 1.1)
ROTATIONS = 36   # turns of every labelled crop in the bank (10 degrees apart)
#: turns of the crop read (degrees): each is matched against the bank, which holds every turn, and the
#: mark scores are averaged over them (test-time augmentation: the bank's turns are 10 degrees apart
#: from a random start, so one turn meets them off by up to 5 degrees and the pixel grid differently)
QUERY_TURNS = (0.0, 45.0, 90.0, 135.0, 180.0, 225.0, 270.0, 315.0)
K_NEAREST = 3    # bank vectors averaged per class
PCA_SAMPLE = 600   # bank vectors the principal axes are computed from
DIMS = 160       # principal components kept of the bank's feature vectors (storage: N x DIMS float16)
CHROMA = [1, 2, 4, 5]  # a*, b* of the up face and of the body: lightness follows the light, hue the die
LIGHTNESS = [0, 3]  # L* of the up face and of the body
#: a die whose colour (every channel: CHROMA and LIGHTNESS) lies within LIGHT_Z spreads pooled within
#: classes of the labelled photos' mean for the face read is seen under the set's light (learned_light).
#: Measured on fickett k=5 (calibration_eval, 1,725 held-out tiles at the labelled photos' light): 6
#: withholds one lift (a d8), 5 one more (a d20); a x0.6 exposure puts every die past 6, x0.8
#: every d6, d8 and d20 and about half of the d4s and d12s
LIGHT_Z = 6.0
COLOUR_SD_MIN = 0.02  # Lab / 100: the colour spread is never taken below 2 Lab units
COLOUR_D2_CAP = 50.0  # squared standardised colour distance counted at most (7 sd: a colour is either it or not)
PRIOR_FLOOR = 1e-3  # least probability a standard reader's reading is given (one misread cannot veto a face)
#: the standard reader reads another face (reads_another_face) when it gives that face's value at least
#: READS_AT (below it the reader reads no numeral: a face it cannot read spreads ~0.01 over every value) and
#: LEAN_RATIO times what it gives the reading's value: a likelihood ratio of 10, "strong" evidence on
#: Jeffreys' scale of Bayes factors (Jeffreys 1961, Theory of Probability, app. B)
READS_AT = 0.1
LEAN_RATIO = 10.0
#: the standard reader names a value (named_value) when it gives it at least READS_AT and NAMES_RATIO
#: times any other value of the die: a likelihood ratio of 10^0.5, "substantial" on Jeffreys' scale
#: (Jeffreys 1961, app. B); a looser naming vouches for no more than its misreads on the set's own
#: photos allow (calibrate.agreement_error)
NAMES_RATIO = 10 ** 0.5
#: a standard reading gives a value faintly under this probability: backed() asks at least this support of
#: a reading that leans to no value, and descriptions_agree does not let the numeral net's embedding and its
#: faint reading of the same face back it together
FAINT_BELOW = 0.5

CELL = 6         # px: HOG cell side
BINS = 9         # HOG orientation bins over 0-180 degrees (unsigned gradients)


@dataclass
class Centred:
    """A die crop ready to describe: `small` SIDE x SIDE x 3 uint8 BGR (squared, resized), the
    centre (x, y px of `small`) of the face pointing up (the die's centre seen from above), the die's
    radius in px of `small`, `colour` (6,) float32: mean Lab / 100 of the up face (inner disc, 0.45
    radius) and of the whole die, and `squash` (0..1]: how much the view foreshortens the up face
    vertically (sin of the view's elevation; 1 seen from above)."""

    small: np.ndarray
    centre: tuple[float, float]
    radius: float
    colour: np.ndarray
    squash: float = 1.0


def centre_die(crop: np.ndarray, elevation: float = TOP_DOWN) -> Centred:
    """Find the die in a crop (HxWx3 uint8 BGR): squared, resized to SIDE, silhouette
    (faces.silhouette) centroid and area radius x 1.1; the whole crop when the silhouette is empty
    or cut by the crop's edges (the die fills the crop: a labelled box, or the reader's box tight
    round the die, whose mask is not used, so that a set learned from boxes drawn by hand and read
    in the reader's boxes centres its dice alike: the reader's masks took a synthetic logo d6 set
    read from tray photos from 6 of 8 right to 4). elevation: the view's, degrees
    (view.view_of_scene; 90 = top-down). Seen obliquely (below view.TOP_DOWN_FROM) the face pointing
    up is not the one facing the camera: its centre lies numerals.UP_FACE_DEPTH x the area radius x
    cos(elevation) above the centroid, foreshortened by sin(elevation) (numerals.face_patch's
    geometry: the face the reader reads); the die is described about that centre, unsquashed
    (patches), so a set learns and reads the up face whatever the camera's elevation.
    Raises ValueError for a crop that is not a non-empty HxWx3 image, or an elevation outside (0, 90]."""
    from dicetower.vision.numerals import UP_FACE_DEPTH

    check_elevation(elevation)
    small = cv2.resize(square(crop), (SIDE, SIDE), interpolation=cv2.INTER_AREA)
    die = silhouette(small)
    edge = np.concatenate([die[0], die[-1], die[:, 0], die[:, -1]])
    if np.count_nonzero(die) < 0.05 * die.size or np.mean(edge > 0) > 0.1:
        cx = cy = (SIDE - 1) / 2
        radius, die = SIDE / 2, np.full(small.shape[:2], 255, np.uint8)
    else:
        m = cv2.moments(die, binaryImage=True)
        cx, cy = m["m10"] / m["m00"], m["m01"] / m["m00"]
        radius = max(np.sqrt(np.count_nonzero(die) / np.pi) * 1.1, SIDE * 0.2)
    squash = 1.0
    if elevation < TOP_DOWN_FROM:
        squash = float(np.sin(np.radians(elevation)))
        cy -= UP_FACE_DEPTH * radius / 1.1 * float(np.cos(np.radians(elevation)))
    lab = cv2.cvtColor(small, cv2.COLOR_BGR2LAB).astype(np.float32) / 100
    inner = np.zeros_like(die)
    cv2.ellipse(inner, (int(round(cx)), int(round(cy))), (int(radius * 0.45), int(radius * 0.45 * squash)),
                0, 0, 360, 255, -1)
    colour = np.concatenate([cv2.mean(lab, inner)[:3], cv2.mean(lab, die)[:3]]).astype(np.float32)
    return Centred(small, (float(cx), float(cy)), float(radius), colour, squash)


def patches(c: Centred, angles_deg: list[float] | np.ndarray, scale: float = 1.0,
            shift: tuple[float, float] = (0.0, 0.0)) -> np.ndarray:
    """The die's up face turned by each angle (degrees, counter-clockwise) about its centre, first
    stretched vertically by 1 / c.squash (undoing an oblique view's foreshortening), scaled so its
    radius x SPAN spans half the patch: N x PATCH x PATCH x 3 uint8 BGR. scale, shift (fractions of
    the radius): augmentation of the centring."""
    k = PATCH / (2 * c.radius * SPAN) * scale
    centre = np.array([c.centre[0] + shift[0] * c.radius, c.centre[1] + shift[1] * c.radius])
    unsquash = np.diag([1.0, 1.0 / c.squash])
    out = np.empty((len(angles_deg), PATCH, PATCH, 3), np.uint8)
    for i, a in enumerate(angles_deg):
        t = np.radians(float(a))
        linear = k * np.array([[np.cos(t), np.sin(t)], [-np.sin(t), np.cos(t)]]) @ unsquash
        m = np.hstack([linear, (PATCH / 2 - linear @ centre)[:, None]])
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
    """Nearest-neighbour model over rotation-augmented feature vectors, with colour and a standard
    reader as further evidence (module doc).

    bank: N x DIMS float16 feature vectors projected on the principal axes `basis` (D x DIMS
    float32, around `mean` (D,)) and L2-normalised; labels: (N,) mark index per vector; n_classes: C;
    marks: (C,) mark index of each class (classes that differ only in colour share a mark);
    colour_means: C x 4 float32 a*b* (Lab / 100) of the up face and body per class; colour_sd: (4,)
    spread pooled within classes (Lab / 100); colour_weight: 0..1 (colour_model);
    mark_temperature: the mark scores (cosine similarities) are divided by it;
    prior_reader: "numerals", "pips" or "" (no prior); die_type: the die the prior reads;
    prior_value: (C,) the value the reader reads for each class, -1 for a face it cannot read;
    prior_recall: (C,) how often the reader reads each readable class as its value (0..1,
    calibrate.reader_recall; None: always);
    prior_weight: weight of the prior's log-probabilities; feature: "hog";
    fewshot_temperature: marks plus colour are divided by it before the prior is added;
    threshold: the set's
    probability below which a reading is unsure; face_floor: (C,) the probability a reading of each
    face must exceed to be sure (calibrate.face_floors: the most confident cross-validated
    confusion involving the face, 0 when there was none); vouched: (C,) bool,
    the faces the standard reader may vouch for when it is sure (corroborated(); calibrate.
    vouched_faces: it was never sure and wrong about them on the labelled photos); face_value: (C,)
    the value each class shows (its labelled value, -1 for a face of symbols only), whether the
    reader reads it or not (backed: reads_another_face); agreement_sure: the standard reader and
    the few-shot reading the same face makes it sure (corroborated(); calibrate.agreement_error);
    elevations: the lowest and highest view elevation (degrees) of the labelled photos (learned_view);
    net_bank: N' x E float32 net descriptors of the labelled crops (net_vectors: NET_TURNS turns of
    each), whitened by net_mean (E,) and net_whiten (E x E, within_class_whitening), net_labels (N',)
    their mark indices (None: no numeral net when the set was learned); net_share: 0..1, the mark
    score is (1 - net_share) x HOG's + net_share x the net's (calibrate: chosen per set by
    cross-validated log-loss, NET_SHARES); light_means: C x 2 float32 L* (Lab / 100) of the up face
    and body per class, light_sd: (2,) their spread pooled within classes (learned_light; None only
    in a model that reads no crop: calibrate's cross-validation check).
    """

    bank: np.ndarray
    labels: np.ndarray
    n_classes: int
    mean: np.ndarray
    basis: np.ndarray
    marks: np.ndarray
    colour_means: np.ndarray
    colour_sd: np.ndarray
    colour_weight: float = 0.0
    feature: str = "hog"
    mark_temperature: float = 1.0
    prior_reader: str = ""
    die_type: str = ""
    prior_value: np.ndarray | None = None
    prior_recall: np.ndarray | None = None
    prior_weight: float = 0.0
    fewshot_temperature: float = 0.05
    threshold: float = 0.8
    face_floor: np.ndarray | None = None
    k_nearest: int = K_NEAREST
    vouched: np.ndarray | None = None
    face_value: np.ndarray | None = None
    agreement_sure: bool = False
    elevations: tuple[float, float] = (TOP_DOWN, TOP_DOWN)
    net_bank: np.ndarray | None = None
    net_labels: np.ndarray | None = None
    net_share: float = 0.0
    net_mean: np.ndarray | None = None
    net_whiten: np.ndarray | None = None
    light_means: np.ndarray | None = None
    light_sd: np.ndarray | None = None
    _bank32: np.ndarray | None = field(default=None, repr=False)

    def confidence(self, p: float, face: int | None = None) -> float:
        """The reported confidence (0..1) of a reading whose face (class index, or None) has
        probability p (0..1): p mapped piecewise linearly so that the set's threshold falls on
        UNSURE_BELOW, so a reading is unsure (FaceResult.unsure, GEN-D01) exactly when
        p < threshold; order and the ends 0, 1 are kept. A reading at or under its face's floor
        (face_floor) is capped just under UNSURE_BELOW."""
        t = min(max(self.threshold, 1e-6), 1 - 1e-6)
        if p < t:
            return UNSURE_BELOW * p / t
        if face is not None and self.face_floor is not None and p <= self.face_floor[face]:
            return UNSURE_BELOW * 0.999
        return UNSURE_BELOW + (1 - UNSURE_BELOW) * (p - t) / (1 - t)

    def proba(self, crop: np.ndarray, mask: np.ndarray | None = None, view: ViewEstimate | None = None
              ) -> np.ndarray:
        """(C,) class probabilities of one crop (HxWx3 uint8 BGR, any rotation; mask: HxW uint8,
        non-zero = the die, as the reader gives it, or None: for the standard reader, as
        read_numbered uses it; view: the scene's view.ViewEstimate, None
        = top-down): softmax of logits(), then corroborated() with the standard reader's reading when
        the set has a prior. Seen obliquely from an elevation the view is unsure of (view.sure False),
        or from a view the set was not learned under (learned_view), the most probable class is
        capped just under the threshold: the face pointing up is found from the elevation, so the
        reading is flagged (GEN-D01), as the standard set's is. A die under a light the set was not
        learned under (learned_light) is not lifted by the readers (corroborated)."""
        hog, net, colour, values = self.mark_evidence(crop, mask, TOP_DOWN if view is None else view.elevation)
        marks, colour_ll = self.mixed(hog, net), self.colour_loglik(colour)
        p = softmax(self.combine(marks, colour_ll, self.prior_loglik(values))[None])[0]
        p = self.corroborated(p, values, self.fewshot_pick(marks, colour_ll), colour)
        if view is not None and view.oblique and not view.sure or not self.learned_view(view) \
                or not self.descriptions_agree(p, hog, net, values):
            return self.flagged(p)
        return p

    def flagged(self, p: np.ndarray) -> np.ndarray:
        """Class probabilities p (C,) with the most probable one capped just under the set's threshold
        (a copy): the reading is unsure, whatever the evidence for it, and keeps its class."""
        out = np.array(p, copy=True)
        j = int(np.argmax(out))
        out[j] = min(out[j], self.threshold * 0.999)
        return out

    def learned_view(self, view: ViewEstimate | None) -> bool:
        """Whether a scene's view (None: top-down) is one the set was learned and cross-validated
        under: its elevation within view.AGREE_DEG (the spread of one floor's outlines) of the range
        of the labelled photos' (elevations). The up face is found from the elevation by a model of
        the die (centre_die), and its misplacement grows with the gap: a set learned from above and
        read from the side, or the other way, has nothing vouching for its readings, which are then
        flagged (proba)."""
        e = TOP_DOWN if view is None else view.elevation
        return self.elevations[0] - AGREE_DEG <= e <= self.elevations[1] + AGREE_DEG

    def learned_light(self, colour: np.ndarray, j: int) -> bool:
        """Whether a die of colour (6,) (Centred.colour: Lab / 100 of the up face and body) read as
        class j is seen under the light the set was learned under: each of its a*, b* and L* lies
        within LIGHT_Z spreads pooled within classes (colour_sd, light_sd) of the labelled photos'
        mean for class j. A dimmer or brighter exposure moves L*, a coloured light a* and b*; the
        readers' agreement that lifts a reading (corroborated) was vouched for on the labelled
        photos, under their light, and two readers misread alike under another: fickett d20 k=5
        read two 18s as sure 10s (the net and the few-shot both seeing a 10) at x0.6 exposure and
        at gamma 0.6, 27 and 13 spreads off; a cast that moves a die's colour less still passes (two
        d6 6s lifted wrong under a cool light, 5.1 and 5.6 off; calibration_eval, session 16).
        Raises AssertionError on a model without light_means (one that reads no crop)."""
        assert self.light_means is not None and self.light_sd is not None
        z_chroma = np.abs(colour[CHROMA] - self.colour_means[j]) / self.colour_sd
        z_light = np.abs(colour[LIGHTNESS] - self.light_means[j]) / self.light_sd
        return bool(max(float(z_chroma.max()), float(z_light.max())) < LIGHT_Z)

    def logits(self, crop: np.ndarray, mask: np.ndarray | None = None, elevation: float = TOP_DOWN) -> np.ndarray:
        """(C,) class scores of one crop (HxWx3 uint8 BGR, any rotation; mask and elevation as for
        evidence()), whose softmax gives the probabilities before corroboration: see combine()."""
        marks, colour, values = self.evidence(crop, mask, elevation)
        return self.combine(marks, colour, self.prior_loglik(values))

    def combine(self, marks: np.ndarray, colour: np.ndarray, prior: np.ndarray) -> np.ndarray:
        """Class scores (C,) from evidence(): (mark scores / mark_temperature + colour
        log-likelihood) / fewshot_temperature + prior_weight x prior (prior_loglik)."""
        return (marks[self.marks] / self.mark_temperature + colour) / self.fewshot_temperature \
            + self.prior_weight * prior

    def fewshot_pick(self, marks: np.ndarray, colour_ll: np.ndarray) -> int:
        """The class (index) the few-shot evidence alone reads: the most probable under mark scores
        (M,) (mixed) and colour log-likelihood (C,) (colour_loglik), without the standard reader's prior."""
        return int(np.argmax(self.combine(marks, colour_ll, np.zeros_like(colour_ll))))

    def corroborated(self, p: np.ndarray, values: dict[int, float] | None, fewshot_pick: int | None = None,
                     colour: np.ndarray | None = None) -> np.ndarray:
        """Class probabilities p (C,) weighed against the standard reader's reading `values`
        ({value: probability}, standard_values) of the most probable class j (reader_support);
        fewshot_pick: the class the few-shot evidence alone (marks and colour) reads, or None;
        colour: the die's colour (6,) (Centred.colour), or None for a crop of the labelled photos
        (calibrate's cross-validation: under their light by definition):
        - the reader does not back j (backed(): it leans to another value than j's, and it gives j
          support under 0.5 or reads another face of the die, reads_another_face): p[j] is capped
          just under the set's threshold: the reading is unsure, never a few-shot guess from 3-5
          photos given as sure against the standard reader;
        - p[j] is under the threshold and the reader vouches for j (reader_sure(): it is sure of j
          on its own calibration) or the two readers agree on it (readers_agree(): both name j,
          in a set whose two readers' error rates multiply to at most 0.1 %): p[j] is raised to
          the threshold (the rest scaled down): the few cross-validated readings alone cannot
          vouch for 99.9 %, but a wrong sure reading would now need both readers wrong the same way;
          unless the die is under a light the set was not learned under (learned_light with colour):
          the readers' error rates were measured under the labelled photos' light;
        - otherwise p is unchanged. No prior: p unchanged."""
        if not self.prior_reader or self.prior_value is None or values is None:
            return p
        j = int(np.argmax(p))
        out = p.copy()
        if not self.backed(p, values):
            out = self.flagged(p)
        elif p[j] < self.threshold and (colour is None or self.learned_light(colour, j)) \
                and (self.reader_sure(p, j, values) or self.readers_agree(p, j, values, fewshot_pick)):
            rest = 1.0 - p[j]
            out[j] = self.threshold
            if rest > 0:
                others = np.arange(len(p)) != j
                out[others] = p[others] * (1.0 - self.threshold) / rest
        return out

    def reader_sure(self, p: np.ndarray, j: int, values: dict[int, float]) -> bool:
        """Whether the standard reader alone vouches for class j of p (C,) (corroborated()): its
        support for j (reader_support) is at least UNSURE_BELOW, the reader's own sure level (its
        sure readings are right 99.9 % of the time on its held-out data), the set's labelled photos
        never caught it sure and wrong about a face showing what it read (vouched), and what it read
        picks j (reader_picks among the faces of j's prior_value: its value, or "none of the readable
        values" for a lone logo)."""
        assert self.prior_value is not None
        group = self.prior_value == self.prior_value[j]
        return (self.reader_support(j, values) >= UNSURE_BELOW and self.vouched is not None
                and bool(self.vouched[group].all()) and self.reader_picks(p, j, group))

    def readers_agree(self, p: np.ndarray, j: int, values: dict[int, float], fewshot_pick: int | None) -> bool:
        """Whether the two readers agree on class j of p (C,) (corroborated()): the set's two readers'
        error rates on its labelled photos multiply to at most 0.1 % (agreement_sure, calibrate.
        agreement_error, which counts the reader's namings exactly as here), the few-shot evidence
        alone reads j (fewshot_pick), the standard reader names j's value (named_value: whether or not
        its probability is calibrated on this set, the value it names against every other), and
        that value picks j (reader_picks among the faces showing it). Asking instead, as until
        06c8a78, that the reader read one of the set's readable values at probability >= 0.5 left
        fickett k=5 unsure d6 0.353, d8 0.414, d12 0.509; namings: 0.121, 0.211, 0.296, d4 k=8
        0.676 -> 0.545, none sure wrong on any calibration_eval row."""
        if not self.agreement_sure or fewshot_pick != j or self.face_value is None or self.face_value[j] < 0:
            return False
        return (named_value(values) == self.face_value[j]
                and self.reader_picks(p, j, self.face_value == self.face_value[j]))

    def reader_picks(self, p: np.ndarray, j: int, group: np.ndarray) -> bool:
        """Whether a standard reading that points to the classes `group` ((C,) bool, j among them)
        picks class j of p (C,) (corroborated()): j is the only class of the group; or the group's
        faces differ only in colour (one mark: Alkemy's white, yellow and red 3) and the few-shot
        gives j at least the set's threshold among them (its colour as sure as a reading the
        cross-validation vouches for). Measured (calibration_eval, Alkemy k=5): 42 of the 135 unsure
        readings made sure, none wrong (0.75 -> 0.52 unsure)."""
        if np.count_nonzero(group) == 1:
            return True
        return bool(np.all(self.marks[group] == self.marks[j]) and p[j] >= self.threshold * p[group].sum())

    def backed(self, p: np.ndarray, values: dict[int, float] | None) -> bool:
        """Whether the standard reader's reading `values` backs the most probable class j of p (C,)
        (corroborated()): it leans to no other value than j's (leaning_value: its most probable
        value, if any at READS_AT, is j's face_value; a reader that reads nothing is no evidence
        against a face: the prior already prices its misses in, prior_loglik, and the few-shot's
        probability must still clear the threshold), or it gives j reader_support >= 0.5 and does
        not read another face of the die (reads_another_face with j's face_value: a few-shot 8 that
        the numeral net reads as 7 at 0.28 and as 8 at 0.008 was a sure wrong fickett d12 reading,
        though 7 is no value the net reads on the set's photos, so "none of them" backed the 8 at
        0.92). True without a prior. Until session 13 a reading the reader leaned to no value on
        backed only a face it gave support >= 0.5 (or named): a readable face the net saw faintly
        ({6: 0.25} on a fickett 6) was unsure at any probability (calibration_eval)."""
        if not self.prior_reader or self.prior_value is None or values is None:
            return True
        j = int(np.argmax(p))
        own = -1 if self.face_value is None else int(self.face_value[j])
        if leaning_value(values) in (None, own):
            return True
        return self.reader_support(j, values) >= FAINT_BELOW and not reads_another_face(values, own)

    def reader_support(self, j: int, values: dict[int, float]) -> float:
        """reader_support (module function) of class j under this set's prior_value."""
        assert self.prior_value is not None
        return reader_support(self.prior_value, j, values)

    def evidence(self, crop: np.ndarray, mask: np.ndarray | None = None, elevation: float = TOP_DOWN
                 ) -> tuple[np.ndarray, np.ndarray, dict[int, float] | None]:
        """What a crop (HxWx3 uint8 BGR; mask HxW uint8 or None; elevation: the view's, degrees, 90 =
        top-down) shows: mark scores (M,) ((1 - net_share) x HOG's + net_share x the net's,
        mark_evidence), colour log-likelihood per class (C,), and the standard reader's reading
        ({value: probability}, standard_values; None without a prior)."""
        hog, net, colour, values = self.mark_evidence(crop, mask, elevation)
        return self.mixed(hog, net), self.colour_loglik(colour), values

    def mixed(self, hog: np.ndarray, net: np.ndarray | None) -> np.ndarray:
        """(M,) mark scores from HOG's (M,) and the net's (M,) or None (mark_evidence): (1 -
        net_share) x HOG's + net_share x the net's; HOG's alone without the net."""
        return hog if net is None else (1 - self.net_share) * hog + self.net_share * net

    def descriptions_agree(self, p: np.ndarray, hog: np.ndarray, net: np.ndarray | None,
                           values: dict[int, float] | None = None) -> bool:
        """Whether one of the up face's two descriptions reads the most probable class j of p (C,):
        when the set mixes them (0 < net_share < 1), HOG's mark scores (M,) or the net's (M,) rank
        j's mark first; True for a set that uses one description. A face that neither description
        reads first was made by the mix and the prior (the same numeral net's reading again), not by
        either matching: it is unsure (proba), as a reading the standard reader does not back is.
        Measured on fickett d20 k=5 (calibration_eval): a 5 whose up-face numeral is small under a
        large 18 on a side face, HOG reading 5 and the net 16, was read as a sure 18 (0.9918 against
        a threshold of 0.9902). Asking both descriptions to read j flagged 14 of 60 logo d6 renders
        more (k=5: unsure 0.02 -> 0.23).
        values: the standard reader's reading of the face (standard_values; None: none). When the set's
        prior is the numeral net ("numerals") and its reading ranks j's value first but under FAINT_BELOW
        (0.5, the support backed() asks of a reading that does not lean), the net's own first rank does
        not count: its embedding and its faint reading are one net's view of the face, backing j twice
        with nothing learned apart from the net; HOG must rank j first. Measured (session 14, not shipped): a numeral
        net trained with more fonts read a fickett d20 10 as a sure 12 at calibrate seeds 7 and 11 (HOG
        ranked 10 first, the net's embedding 12 at 0.75, its reading 12 first at 0.19; p 0.990 against a
        threshold of 0.9888); with this rule none (unsure 0.486, 0.512). Cost on the shipped net (fickett
        k=5, seed 7; accuracy unchanged, none sure wrong either way): unsure d20 0.495 -> 0.505, d8 0.203 ->
        0.220, d12 0.195 -> 0.236, d4 and d6 unchanged; logo d6 0 -> 0.017, Alkemy d6 0.039 -> 0.050.
        Without the 0.5 (any reading ranking j's value first): d12 0.267, logo d6 0.233, Alkemy 0.156."""
        if net is None or not 0 < self.net_share < 1:
            return True
        j = int(np.argmax(p))
        mark = self.marks[j]
        if int(np.argmax(hog)) == mark:
            return True
        if int(np.argmax(net)) != mark:
            return False
        top = top_value(values) if values is not None else None
        if self.prior_reader != "numerals" or values is None or top is None or self.face_value is None:
            return True
        return not (top == self.face_value[j] and values[top] < FAINT_BELOW)

    def mark_evidence(self, crop: np.ndarray, mask: np.ndarray | None = None, elevation: float = TOP_DOWN
                      ) -> tuple[np.ndarray, np.ndarray | None, np.ndarray, dict[int, float] | None]:
        """evidence() before the mark scores are mixed and the colour is weighed: HOG mark scores (M,)
        (mean cosine similarity of the nearest bank vectors, the crop described at every QUERY_TURNS
        turn), the numeral net's (M,) (net_scores; None when the set has no net bank: calibrate keeps
        none when it chose net_share 0), the die's colour (6,) (Centred.colour, Lab / 100 of the up
        face and body: colour_loglik weighs it) and the standard reader's reading (None without a prior).
        The net runs once on the up-face patch (numerals.face_patch) for both its descriptor and
        the "numerals" prior."""
        c = centre_die(crop, elevation)
        q = project(features(patches(c, list(QUERY_TURNS)), self.feature), self.mean, self.basis)
        net = values = None
        if self.net_bank is not None or self.prior_reader == "numerals":
            from dicetower.vision import numerals

            patch = numerals.face_patch(crop, mask, elevation)
            if self.prior_reader == "numerals":
                values = numerals.values_from_proba(numerals.numeral_proba([patch])[0], self.die_type)
            if self.net_bank is not None:
                net = self.net_scores(net_embedding([patch])[0])
        if self.prior_reader and self.prior_reader != "numerals":  # the pip reader, whether or not the net describes
            values = standard_values(crop, self.die_type, self.prior_reader, mask, elevation)
        return self.mark_scores(q), net, c.colour, values

    def net_scores(self, d: np.ndarray) -> np.ndarray:
        """(M,) mark scores of a net descriptor d (E,) (net_embedding): whitened as the bank was
        (whitened), the mean of the k_nearest largest cosine similarities to each mark's vectors in
        net_bank (NET_TURNS turns of each labelled crop; -2 for a mark with none). The nearest one alone
        let a fickett d4 1 the net reads nothing on and a d20 15 be read as sure 4 and 12
        (calibration_eval k=5); k_nearest of them did not."""
        assert self.net_bank is not None and self.net_labels is not None
        assert self.net_mean is not None and self.net_whiten is not None
        sims = self.net_bank @ whitened(d, self.net_mean, self.net_whiten)
        out = np.full(int(self.marks.max()) + 1, -2.0, np.float32)
        for j in range(len(out)):
            s = sims[self.net_labels == j]
            if len(s):
                out[j] = np.sort(s)[-min(self.k_nearest, len(s)):].mean()
        return out

    def mark_scores(self, q: np.ndarray) -> np.ndarray:
        """(M,) mark scores of projected feature vectors q (Q x DIMS, the turns of one crop): for each
        turn, the mean of the k nearest cosine similarities of each mark's bank vectors, averaged
        over the turns (-2 for a mark with no vector)."""
        if self._bank32 is None:
            self._bank32 = self.bank.astype(np.float32)
        sims = self._bank32 @ np.atleast_2d(q).T  # N x Q
        out = np.full(int(self.marks.max()) + 1, -2.0, np.float32)
        for j in range(len(out)):
            s = sims[self.labels == j]
            if len(s):
                k = min(self.k_nearest, len(s))
                out[j] = np.partition(s, len(s) - k, axis=0)[len(s) - k:].mean()
        return out

    def colour_loglik(self, colour: np.ndarray) -> np.ndarray:
        """(C,) Gaussian log-likelihood (up to a constant) of a crop's colour (6,) Lab / 100 under
        each class, times colour_weight; squared standardised distances capped at COLOUR_D2_CAP."""
        d2 = np.sum(((colour[CHROMA] - self.colour_means) / self.colour_sd) ** 2, axis=1)
        return (-0.5 * self.colour_weight * np.minimum(d2, COLOUR_D2_CAP)).astype(np.float32)

    def prior_loglik(self, values: dict[int, float] | None) -> np.ndarray:
        """(C,) log-probability the standard reader's reading `values` gives each class
        (prior_loglik below); zeros without a prior."""
        if values is None or self.prior_value is None:
            return np.zeros(self.n_classes, np.float32)
        return prior_loglik(values, self.prior_value, self.prior_recall)

    def save(self, path: Path) -> None:
        """Write the model to an .npz file (bank as float16). Raises ValueError for a model without
        its labelled photos' light (light_means: fit_described sets it)."""
        if self.light_means is None or self.light_sd is None:
            raise ValueError("the model has no light_means: fit it with fit_described before saving it")
        np.savez_compressed(path, kind="fewshot", bank=self.bank.astype(np.float16), labels=self.labels,
                            n_classes=self.n_classes, mean=self.mean, basis=self.basis.astype(np.float16),
                            marks=self.marks, colour_means=self.colour_means, colour_sd=self.colour_sd,
                            colour_weight=self.colour_weight, feature=self.feature,
                            mark_temperature=self.mark_temperature,
                            fewshot_temperature=self.fewshot_temperature, prior_reader=self.prior_reader,
                            die_type=self.die_type,
                            prior_value=np.full(self.n_classes, -1) if self.prior_value is None else self.prior_value,
                            prior_recall=np.ones(self.n_classes) if self.prior_recall is None else self.prior_recall,
                            prior_weight=self.prior_weight,
                            threshold=self.threshold,
                            face_floor=np.zeros(self.n_classes) if self.face_floor is None else self.face_floor,
                            k_nearest=self.k_nearest,
                            vouched=np.zeros(self.n_classes, bool) if self.vouched is None else self.vouched,
                            face_value=np.full(self.n_classes, -1) if self.face_value is None else self.face_value,
                            naming_agreement_sure=self.agreement_sure, elevations=np.array(self.elevations),
                            net_embeddings=np.zeros((0, 0), np.float32) if self.net_bank is None else self.net_bank,
                            net_labels=np.zeros(0, np.int32) if self.net_labels is None else self.net_labels,
                            net_share=self.net_share,
                            net_mean=np.zeros(0, np.float32) if self.net_mean is None else self.net_mean,
                            net_whiten=np.zeros((0, 0), np.float32) if self.net_whiten is None else self.net_whiten,
                            light_means=self.light_means, light_sd=self.light_sd)

    @classmethod
    def load(cls, path: Path) -> "FewShotModel":
        """Read a model written by save(). Raises OSError, KeyError or ValueError on a bad file
        (KeyError for a model saved by an older version: calibrate again; agreement_sure is stored
        as naming_agreement_sure since it counts the reader's namings, calibrate.agreement_error, so
        a set whose agreement counted only its readings at >= 0.5 is not read under the new rule; the
        net bank is stored as net_embeddings since it holds net_embedding's vectors, so a set whose
        bank held the net's class log-probabilities is not matched against embeddings; a set saved
        before light_means were stored, session 16, has no light to check its readings against)."""
        with np.load(path) as z:
            return cls(z["bank"], z["labels"].astype(np.int32), int(z["n_classes"]), z["mean"].astype(np.float32),
                       z["basis"].astype(np.float32), z["marks"].astype(np.int32),
                       z["colour_means"].astype(np.float32), z["colour_sd"].astype(np.float32),
                       float(z["colour_weight"]), str(z["feature"]),
                       float(z["mark_temperature"]), str(z["prior_reader"]), str(z["die_type"]),
                       z["prior_value"].astype(np.int32), z["prior_recall"].astype(np.float32),
                       float(z["prior_weight"]),
                       float(z["fewshot_temperature"]),
                       float(z["threshold"]), z["face_floor"].astype(np.float32), int(z["k_nearest"]),
                       z["vouched"].astype(bool), z["face_value"].astype(np.int32), bool(z["naming_agreement_sure"]),
                       (float(z["elevations"][0]), float(z["elevations"][1])),
                       z["net_embeddings"].astype(np.float32) if z["net_embeddings"].size else None,
                       z["net_labels"].astype(np.int32) if z["net_embeddings"].size else None,
                       float(z["net_share"]),
                       z["net_mean"].astype(np.float32) if z["net_embeddings"].size else None,
                       z["net_whiten"].astype(np.float32) if z["net_embeddings"].size else None,
                       z["light_means"].astype(np.float32), z["light_sd"].astype(np.float32))


def standard_values(crop: np.ndarray, die_type: str, reader: str, mask: np.ndarray | None = None,
                    elevation: float = TOP_DOWN) -> dict[int, float]:
    """What a standard reader makes of a die crop (HxWx3 uint8 BGR; mask: HxW uint8 die mask or None;
    elevation: the view's, degrees, 90 = top-down): {value: probability} over the faces of a die_type
    die, not summing to 1 (the rest: none of them). reader "numerals": the numeral net
    (numerals.value_proba on numerals.face_patch(crop, mask, elevation): the face pointing up, as the
    standard set reads it, its trained patch, which bounds the standard set's confidence); "pips": the pip reader
    (detect.find_pip_faces on the crop; mask and elevation unused: pips are read top-down), its most confident face's value with its confidence, {}
    when it finds no face. Raises ValueError for an unknown reader or a die type it cannot read,
    FileNotFoundError when the numeral net is not built (`make models`)."""
    if reader == "numerals":
        from dicetower.vision import numerals

        return numerals.value_proba(numerals.face_patch(crop, mask, elevation), die_type)
    if reader == "pips":
        if die_type != "d6":
            raise ValueError(f"the pip reader reads d6, not {die_type!r}")
        from dicetower.vision.detect import find_pip_faces

        # padded with the crop's median colour (its face): a box drawn tight round the pips (labels.csv)
        # cuts them, and a pip cut by the frame's edge is no pip to the pip reader
        pad = max(crop.shape[:2]) // 4
        face = [float(c) for c in np.median(crop.reshape(-1, 3), axis=0)]
        found = find_pip_faces(cv2.copyMakeBorder(crop, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=face))
        if not found:
            return {}
        best = max(found, key=lambda f: f.confidence)
        return {int(best.value): float(best.confidence)} if best.value is not None else {}
    raise ValueError(f"unknown standard reader {reader!r}; known: numerals, pips")


def reader_support(prior_value: np.ndarray, j: int, values: dict[int, float]) -> float:
    """The probability (0..1) a standard reading `values` ({value: probability}, standard_values)
    gives to what class j shows, prior_value (C,) the value the reader reads for each class (-1: it
    cannot): P(its value) for a face the reader reads, P(none of the readable values) for one it
    cannot (a logo)."""
    v = int(prior_value[j])
    if v >= 0:
        return values.get(v, 0.0)
    readable = {int(r) for r in prior_value if r >= 0}
    return 1.0 - sum(values.get(r, 0.0) for r in readable)


def top_value(values: dict[int, float]) -> int | None:
    """The most probable value of a standard reading `values` ({value: probability}, standard_values),
    None for an empty reading (the pip reader found no face). Ties go to the value listed first."""
    return max(values, key=values.__getitem__) if values else None


def reads_another_face(values: dict[int, float], own: int) -> bool:
    """Whether a standard reading `values` ({value: probability}, standard_values) reads another face
    than one showing the value `own` (-1: a face of symbols only, never): its most probable value is
    not `own`, at probability >= READS_AT and >= LEAN_RATIO x P(own). Measured over every
    calibration_eval set at k = 3 and 5: it flags the one sure wrong reading (fickett d12 k=5) and
    none of the 958 sure right ones that had a standard reading; a ratio of 3 flagged 3 of them,
    no READS_AT 1."""
    top = top_value(values)
    if own < 0 or top is None:
        return False
    return top != own and values[top] >= READS_AT and values[top] >= LEAN_RATIO * values.get(own, 0.0)


def leaning_value(values: dict[int, float]) -> int | None:
    """The value a standard reading `values` ({value: probability} over the die's faces,
    standard_values) leans to: its most probable value when that has probability >= READS_AT, else
    None (below READS_AT the reader reads no numeral: a face it cannot read spreads ~0.01 over every
    value). Looser than named_value (no margin over the runner-up): a reading that leans to no value,
    or to a face's own, backs that face (FewShotModel.backed)."""
    top = top_value(values)
    return top if top is not None and values[top] >= READS_AT else None


def named_value(values: dict[int, float]) -> int | None:
    """The value a standard reading `values` ({value: probability} over the die's faces,
    standard_values) names: its most probable value when that has probability >= READS_AT (below
    it the reader reads no numeral) and NAMES_RATIO times any other value's, else None. It asks no
    calibrated probability: the numeral net reads fickett d6's faces as their value (its most
    probable) on 30 of 30 labelled tiles at 0.09-0.95, the rest going to "no numeral of this die",
    so a test of >= 0.5 took 4 of its 6 faces for faces it cannot read. How often its namings are
    wrong on a set is counted on the set's own photos (calibrate.agreement_error). The leaning_value,
    when it leads the runner-up by that margin."""
    top = leaning_value(values)
    if top is None:
        return None
    runner_up = max((p for v, p in values.items() if v != top), default=0.0)
    return top if values[top] >= NAMES_RATIO * runner_up else None


def reading_value(values: dict[int, float], prior_value: np.ndarray) -> int | None:
    """The value a standard reading `values` ({value: probability}, standard_values) reads among the
    set's readable values (prior_value (C,) >= 0): the value it names (named_value, the test
    calibrate.readable_values puts) when that is one of them, else None (the reader read none of
    them: a face it cannot read, or one it missed)."""
    v = named_value(values)
    return v if v is not None and v in {int(r) for r in prior_value if r >= 0} else None


def prior_loglik(values: dict[int, float], prior_value: np.ndarray, recall: np.ndarray | None = None
                 ) -> np.ndarray:
    """(C,) log-likelihood of each class under a standard reading `values` ({value: probability},
    standard_values): log P(value) for a class whose prior_value is a value (>= 0), log P(none of
    the classes' values) for a class it cannot read (-1); floored at PRIOR_FLOOR. When the reader
    read none of the set's values (reading_value None), a face it reads may have been missed: its
    likelihood is then recall x P(value) + (1 - recall) x P(none), recall (C,) its hit rate on the
    set (calibrate.reader_recall; None: 1), so seeing nothing is evidence against that face only as
    far as the reader is known to read it (fickett d4: a 1 the net missed was read as a sure 4 at
    0.955 when its silence counted as from a reader that never misses). A reading of one of the
    set's values is no miss (the hit recall counts) and keeps its full weight: the mixture in
    every reading took Alkemy k=5 from 73 to 91 % unsure (calibration_eval)."""
    readable = {int(v) for v in prior_value if v >= 0}
    none = 1.0 - sum(values.get(v, 0.0) for v in readable)
    r = np.ones(len(prior_value)) if recall is None or reading_value(values, prior_value) is not None \
        else np.asarray(recall, np.float64)
    p = np.array([r[j] * values.get(int(v), 0.0) + (1 - r[j]) * none if v >= 0 else none
                  for j, v in enumerate(prior_value)], np.float64)
    return np.log(np.maximum(p, PRIOR_FLOOR)).astype(np.float32)


#: degrees each labelled up-face patch is turned before the net describes it (net_vectors); the
#: quarter turns are averaged in every description (net_embedding), so these cover every rotation
NET_TURNS = (0.0, 15.0, 30.0, 45.0, 60.0, 75.0)
#: weight of the identity (scaled to the mean variance) in the shrunk within-class covariance the net
#: bank is whitened by (within_class_whitening; Ledoit & Wolf 2004's target, a fixed weight: with 3
#: photos per face, 60 x 6 vectors estimate 128 x 128 covariances poorly)
NET_SHRINK = 0.5
#: the numeral net's ONNX node that describes a face: its embedding, the ReLU before the last linear
#: layer (the class logits), 128 values; numerals.net_outputs runs the net up to it by this name
EMBED_NODE = "/embed/embed.1/Relu"


def net_embedding(patches: list[np.ndarray], directory: Path | None = None) -> np.ndarray:
    """N x E float32 descriptors of N up-face patches (PATCH x PATCH uint8, numerals.face_patch): the
    numeral net's embedding (EMBED_NODE) averaged over the patch's four quarter turns (as
    numerals.numeral_proba averages its probabilities: any rotation reads alike), L2-normalised and
    matched by cosine similarity like the HOG vectors. What the net sees of a face before it is
    squeezed into its classes: a blurred bold 16 the classes call "10: 0.6, 16: 0.3" keeps its own
    direction here (calibration_eval: righter than the class log-probabilities on realdice and fickett).
    directory: the numeral net's folder (numerals.load_net; None: models/standard). Raises ValueError for
    no patches or a patch of the wrong shape, FileNotFoundError when the numeral net is not built
    (`make models`)."""
    from dicetower.vision import numerals

    e = numerals.net_outputs(patches, EMBED_NODE, directory)
    e = e.reshape(len(patches), 4, -1).mean(axis=1)
    return e / (np.linalg.norm(e, axis=1, keepdims=True) + 1e-9)


def net_vectors(crops: list[np.ndarray], masks: list[np.ndarray | None], elevations: list[float],
                turns: tuple[float, ...] = NET_TURNS) -> np.ndarray:
    """Net descriptors (N x T x E float32, net_embedding) of N labelled crops (HxWx3 uint8 BGR), each
    read on its up-face patch (numerals.face_patch(crop, mask, elevation), as the standard reader
    reads it) turned by each of the T `turns` (degrees, about the patch's centre, the edge
    replicated). Raises FileNotFoundError when the numeral net is not built (`make models`),
    ValueError for mismatched lists or no turns."""
    from dicetower.vision import numerals

    if not len(crops) == len(masks) == len(elevations):
        raise ValueError(f"{len(crops)} crops need as many masks and elevations, got {len(masks)}, {len(elevations)}")
    if not turns:
        raise ValueError("net_vectors needs at least one turn (degrees)")
    side = numerals.PATCH
    out = []
    for p in (numerals.face_patch(c, m, e) for c, m, e in zip(crops, masks, elevations)):
        turned = [cv2.warpAffine(p, cv2.getRotationMatrix2D(((side - 1) / 2, (side - 1) / 2), a, 1.0), (side, side),
                                 flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE) for a in turns]
        out.append(net_embedding(turned))
    return np.stack(out)


def within_class_whitening(x: np.ndarray, labels: np.ndarray, shrink: float = NET_SHRINK
                           ) -> tuple[np.ndarray, np.ndarray]:
    """(mean (E,), W (E x E float32)) for N x E vectors x of classes labels (N,): W = S^(-1/2), S the
    within-class covariance (about each class's mean) shrunk towards the identity scaled to its mean
    variance, (1 - shrink) S + shrink tr(S)/E I. (x - mean) @ W makes the spread of a face's own
    photos round, so the cosine between two vectors weighs the directions in which faces differ over
    those in which one face's photos scatter (a metric learned from the set's labelled crops, the
    Mahalanobis distance of linear discriminant analysis). Raises ValueError for mismatched lengths or
    shrink outside (0, 1]."""
    x = np.asarray(x, np.float64)
    labels = np.asarray(labels)
    if len(x) != len(labels) or not len(x):
        raise ValueError(f"{len(x)} vectors need as many labels, got {len(labels)}")
    if not 0 < shrink <= 1:
        raise ValueError(f"shrink must be in (0, 1], got {shrink}")
    centred = x.copy()
    for j in np.unique(labels):
        centred[labels == j] -= x[labels == j].mean(axis=0)
    s = centred.T @ centred / len(x)
    dims = s.shape[0]
    s = (1 - shrink) * s + shrink * np.eye(dims) * max(np.trace(s) / dims, 1e-12)
    w, v = np.linalg.eigh(s)
    return x.mean(axis=0).astype(np.float32), (v @ np.diag(w ** -0.5) @ v.T).astype(np.float32)


def whitened(d: np.ndarray, mean: np.ndarray, w: np.ndarray) -> np.ndarray:
    """N x E (or E,) net descriptors -> the same shape: (d - mean) @ w, L2-normalised
    (within_class_whitening)."""
    z = (np.asarray(d, np.float32) - mean) @ w
    return z / (np.linalg.norm(z, axis=-1, keepdims=True) + 1e-9)


def augmented_vectors(crop: np.ndarray, rng: np.random.Generator, n_aug: int, feature: str = "hog",
                      rotations: int = ROTATIONS, elevation: float = TOP_DOWN) -> tuple[np.ndarray, np.ndarray]:
    """Bank vectors of one labelled crop (HxWx3 uint8 BGR; elevation: its view's, centre_die's):
    `rotations` evenly spaced turns (random start), and for each of n_aug variants (gain 0.8-1.2,
    gamma 0.8-1.25, blur sigma 0-1 px, centring shift up to 6% and scale 0.92-1.08 of the radius)
    another `rotations` turns. Returns (vectors: M x D float32, colour (6,) of the original crop)."""
    c = centre_die(crop, elevation)
    out = [features(patches(c, np.arange(rotations) * 360.0 / rotations + rng.uniform(0, 360.0 / rotations)),
                    feature)]
    for _ in range(n_aug):
        img = c.small.astype(np.float32) * rng.uniform(0.8, 1.2)
        img = 255.0 * (img.clip(0, 255) / 255) ** rng.uniform(0.8, 1.25)
        s = rng.uniform(0, 1.0)
        if s > 0.3:
            img = np.asarray(cv2.GaussianBlur(img, (0, 0), s), np.float32)
        v = Centred(img.clip(0, 255).astype(np.uint8), c.centre, c.radius, c.colour, c.squash)
        angles = np.arange(rotations) * 360.0 / rotations + rng.uniform(0, 360.0 / rotations)
        out.append(features(patches(v, angles, rng.uniform(0.92, 1.08), tuple(rng.uniform(-0.06, 0.06, 2))),
                            feature))
    return np.concatenate(out), c.colour


def describe(crops: list[np.ndarray], rng: np.random.Generator, n_aug: int = 1, feature: str = "hog",
             elevations: list[float] | None = None) -> list[tuple[np.ndarray, np.ndarray]]:
    """The bank vectors and colour of each labelled crop (HxWx3 uint8 BGR; elevations: its view's
    elevation in degrees, per crop; default top-down):
    augmented_vectors of each, [(M x D float32, (6,) float32)]. Computed once per crop, then shared
    by every model learned from it (calibrate's cross-validation folds, the panel's refits:
    fit_described)."""
    elevations = elevations or [TOP_DOWN] * len(crops)
    if len(elevations) != len(crops):
        raise ValueError(f"{len(crops)} crops need as many elevations, got {len(elevations)}")
    return [augmented_vectors(crop, rng, n_aug, feature, elevation=e) for crop, e in zip(crops, elevations)]


def fit_described(described: list[tuple[np.ndarray, np.ndarray]], y: np.ndarray, n_classes: int,
                  rng: np.random.Generator, feature: str = "hog", marks: np.ndarray | None = None,
                  net: np.ndarray | None = None) -> FewShotModel:
    """A FewShotModel from described crops (describe: [(M x D vectors, (6,) colour)]) with class
    indices y (N,). marks: (C,) mark index per class (default: every class its own mark); net: N x K
    net descriptors of the same crops (net_vectors) or None. The prior, the temperatures and
    net_share are set by calibrate.py. Raises ValueError when there are none."""
    if not described:
        raise ValueError("need at least one labelled crop")
    y = np.asarray(y)
    marks = np.arange(n_classes) if marks is None else np.asarray(marks, np.int32)
    colours = np.array([colour for _, colour in described])
    means, sd, weight = colour_model(colours, y, n_classes)
    bank_a = np.concatenate([v for v, _ in described])
    labels = np.concatenate([np.full(len(v), marks[label], np.int32) for (v, _), label in zip(described, y)])
    mean, basis = principal_axes(bank_a, DIMS, rng)
    model = FewShotModel(project(bank_a, mean, basis).astype(np.float16), labels, n_classes,
                         mean, basis, marks, means, sd, weight, feature)
    model.light_means, model.light_sd = class_means(colours[:, LIGHTNESS], y, n_classes)
    if net is not None:
        if len(net) != len(y):
            raise ValueError(f"{len(y)} described crops need as many net descriptors, got {len(net)}")
        net = np.asarray(net, np.float32)
        if net.ndim == 2:
            net = net[:, None]
        vectors = net.reshape(-1, net.shape[-1])
        model.net_labels = np.repeat(marks[y], net.shape[1]).astype(np.int32)
        model.net_mean, model.net_whiten = within_class_whitening(vectors, model.net_labels)
        model.net_bank = whitened(vectors, model.net_mean, model.net_whiten)
    return model


def colour_model(colours: np.ndarray, y: np.ndarray, n_classes: int) -> tuple[np.ndarray, np.ndarray, float]:
    """Mean a*b* (C x 4, Lab / 100, up face and body) of each class from its crops' colours (N x 6,
    y: N class indices), the spread (4,) pooled within classes (never under COLOUR_SD_MIN), and the
    colour's weight F / (1 + F), F Fisher's ratio of the between-class to the within-class variance:
    near 1 when the faces differ in colour, near 0 when colour tells them not apart, so light
    changes do not sway the reading. A class without crops keeps a mean of 0."""
    chroma = colours[:, CHROMA]
    means, sd = class_means(chroma, y, n_classes)
    present = np.unique(y)
    between = float(np.mean(np.sum((means[present] - chroma.mean(axis=0)) ** 2, axis=1)))
    f = between / (float(np.sum(sd ** 2)) + 1e-9)
    return means, sd, f / (1 + f)


def class_means(values: np.ndarray, y: np.ndarray, n_classes: int) -> tuple[np.ndarray, np.ndarray]:
    """The mean (C x K float32) of each class's values (N x K, y: N class indices; a class without
    values keeps a mean of 0) and their spread (K,) float32 pooled within classes, never under
    COLOUR_SD_MIN."""
    means = np.zeros((n_classes, values.shape[1]), np.float32)
    for j in range(n_classes):
        if np.any(y == j):
            means[j] = values[y == j].mean(axis=0)
    sd = np.maximum(np.sqrt(np.mean((values - means[y]) ** 2, axis=0)), COLOUR_SD_MIN).astype(np.float32)
    return means, sd


def principal_axes(x: np.ndarray, dims: int, rng: np.random.Generator, sample: int = PCA_SAMPLE
                   ) -> tuple[np.ndarray, np.ndarray]:
    """Mean (D,) and the `dims` principal axes (D x dims float32, largest variance first) of the rows
    of x (N x D), from at most `sample` rows drawn at random, by the eigenvectors of their Gram
    matrix (snapshot PCA: an s x s eigenproblem instead of D x D; only its largest `dims`
    eigenpairs are computed, LAPACK ?syevx)."""
    import scipy.linalg  # calibration time only: reading needs OpenCV and numpy

    mean = x.mean(axis=0)
    rows = x[rng.choice(len(x), sample, replace=False)] if len(x) > sample else x
    c = (rows - mean).astype(np.float64)
    s = len(c)
    vals, vecs = scipy.linalg.eigh(c @ c.T, subset_by_index=[max(0, s - dims), s - 1], driver="evx")
    keep = np.argsort(-vals)
    keep = keep[vals[keep] > 1e-9 * vals[keep[0]]]
    basis = c.T @ vecs[:, keep] / np.sqrt(vals[keep])
    return mean.astype(np.float32), np.ascontiguousarray(basis, np.float32)


def project(f: np.ndarray, mean: np.ndarray, basis: np.ndarray) -> np.ndarray:
    """N x D feature vectors -> N x d: centred on mean (D,), projected on basis (D x d), L2-normalised."""
    p = (f - mean) @ basis
    return p / (np.linalg.norm(p, axis=1, keepdims=True) + 1e-6)
