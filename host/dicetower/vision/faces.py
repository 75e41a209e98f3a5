"""Face classifier: which die (type by shape) and which face (numeral, symbols, face colour) a crop
of one die shows, with a confidence.

Interface for the reader (H2) and the service:

    from dicetower.vision.faces import classify_crop, load_die_set, FaceResult, DieSetError
    result = classify_crop(crop_bgr, die_set=None)   # crop_bgr: HxWx3 uint8 BGR, one die, any rotation
    result = classify_crop(crop_bgr, view=view.view_of_scene(frame, boxes))  # a camera looking obliquely
    result = classify_crop(crop_bgr, die_types=check_die_types(["d20"]))  # d20s thrown: an unsure die read as one
    result.die_type      # "d4".."d20" | "stone" | ...   (the die's shape / the calibrated set's type)
    result.value         # face value 1..N (d10 "0" reads 10, GEN-D02), or None for symbol-only faces
    result.confidence    # 0..1; below dicetower.readings.UNSURE_BELOW the reading is unsure
    result.symbols       # symbol ids on the face (["epee", "epee"], ["logo"]), [] for plain numerals
    result.face_colour   # colour of the face as calibrated ("ruby", "yellow", ...) or None
    result.unsure        # confidence < UNSURE_BELOW: the caller must flag the die (GEN-D01)
    result.alternatives  # the next most probable faces [(die type, value)], best first

die_set None or "standard" is the shipped set (models/standard: numbered d4, d6, d8, d10, d12, d20,
trained on synthetic renders only, see train_models.py; pip d6 are read by pips.py). It reads a die
as its type by shape (shape.die_type_by_shape) and its up face's numeral (the CNN of numerals.py),
see read_numbered; its set.json says "model": "numerals". Any other name is a calibrated
set (dicetower calibrate), looked up in models/<name>/ and then in
dicetower.paths.user_data_dir()/die_sets/<name>/; an unknown name raises DieSetError listing the
sets that exist.

How a calibrated set reads: its model is vision/fewshot.py's FewShotModel (set.json "model":
"fewshot"): the die centred on its silhouette (silhouette() below), described by a colour histogram
of oriented gradients, matched against its labelled photos learned at every turn (k nearest bank
vectors per face) with the a*b* colour of the up face and body (ruby/gold/silver faces, Alkemy's
white/yellow/red bodies), and the standard readers (numeral net, pip reader) as a prior for the
faces they read (FewShotModel.proba: a reading they do not back is unsure); temperatures fitted on
the calibration's cross-validation (Guo et al. 2017), and a per-set threshold from the same
cross-validation mapped onto UNSURE_BELOW (DieSet.result_from_proba). Sets made by older versions (polar templates,
the old FaceModel) are refused with a message to calibrate again. Run time needs OpenCV and numpy
only (OpenCV 5 wheels have no cv2.ml module).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from typing import TYPE_CHECKING

from dicetower.paths import models_dir, user_data_dir
from dicetower.readings import UNSURE_BELOW
from dicetower.vision.view import TOP_DOWN, ViewEstimate

if TYPE_CHECKING:
    from dicetower.vision.fewshot import FewShotModel

STANDARD = "standard"
MODEL_FILE = "model.npz"
SET_FILE = "set.json"
FORMAT_VERSION = 1
FEWSHOT_MODEL = "fewshot"  # set.json "model" of a calibrated set (vision/fewshot.py)
NUMERALS_MODEL = "numerals"  # set.json "model" of a set read by read_numbered (the standard set)

MIN_SIDE = 12  # px: a crop with a shorter side cannot be read with confidence
#: Highest confidence of a standard reading whose scene's view elevation is unsure (view.ViewEstimate.sure
#: False): below UNSURE_BELOW, so the die is flagged
VIEW_UNSURE_CAP = 0.5
#: How many runner-up faces a reading lists (FaceResult.alternatives): the faces a player correcting an unsure
#: die is offered first (service.tower.correction_faces). Mean panel presses to set the misread unsure dice
#: right (bench.vision.correction_presses, given the types) for 0..6 guesses: realdice (31 dice) 6.19 3.65 3.00
#: 2.71 2.74 2.77 2.77, fickett's tiles (391) 3.71 2.38 2.19 2.07 2.03 2.04 2.07; set within 3 presses, fickett
#: 243 314 325 344 335 330 328. More guesses push the numbers next to the face read further up.
ALTERNATIVES = 3


class DieSetError(LookupError):
    """An unknown or unreadable die set (the message says which sets exist and how to make one)."""


@dataclass
class FaceResult:
    """What one die crop shows. confidence 0..1 (probability of the reported face, calibrated on
    held-out data); type_confidence 0..1 (summed probability of the reported die type); alternatives:
    the next most probable faces with a value, (die type, value), best first by the evidence the reported
    face was picked by (its confidence may then be lowered: read_numbered's caps), at most ALTERNATIVES of
    them, none the reported face (empty when the classifier ranks no other face)."""

    die_type: str
    value: int | None
    confidence: float
    symbols: list[str] = field(default_factory=list)
    face_colour: str | None = None
    type_confidence: float = 1.0
    alternatives: list[tuple[str, int]] = field(default_factory=list)

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
    if not isinstance(crop, np.ndarray) or crop.ndim != 3 or crop.shape[2] != 3 or min(crop.shape[:2]) < 1:
        shape = getattr(crop, "shape", None)
        raise ValueError(f"a die crop must be a non-empty HxWx3 BGR image, got {shape}")
    h, w = crop.shape[:2]
    d = abs(h - w)
    if h > w:
        return cv2.copyMakeBorder(crop, 0, 0, d // 2, d - d // 2, cv2.BORDER_REPLICATE)
    if w > h:
        return cv2.copyMakeBorder(crop, d // 2, d - d // 2, 0, 0, cv2.BORDER_REPLICATE)
    return crop


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
    d8 = cv2.normalize(dist, np.empty_like(dist), 0, 255, cv2.NORM_MINMAX).astype(np.uint8)
    _, mask = cv2.threshold(d8, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    out = np.zeros_like(mask)
    if contours:
        big = max(contours, key=cv2.contourArea)
        cv2.drawContours(out, [big], -1, 255, -1)
    return out


# ---------------------------------------------------------------------------------------------
# confidence


def softmax(logits: np.ndarray) -> np.ndarray:
    """Row-wise softmax of an N x C array."""
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


# ---------------------------------------------------------------------------------------------
# die sets


@dataclass
class DieSet:
    """A named set of dice the classifier knows: its classes (faces), model and where it lives.
    meta holds provenance (sources, seed, accuracy figures) as written by its trainer."""

    name: str
    classes: list[FaceClass]
    model: FewShotModel | None  # None: read by read_numbered (the standard set)
    path: Path | None = None
    meta: dict = field(default_factory=dict)

    def classify(self, crop: np.ndarray, mask: np.ndarray | None = None,
                 view: ViewEstimate | None = None, die_types: frozenset[str] | None = None) -> FaceResult:
        """Classify one die crop (HxWx3 uint8 BGR, any rotation; mask: HxW uint8 die mask or None;
        view: the scene's view.ViewEstimate or None for top-down; the standard set: see read_numbered;
        a calibrated set: fewshot.FewShotModel.proba). die_types: the die types in play (check_die_types),
        the standard set's only; None reads any. A crop under MIN_SIDE px is classified but given
        confidence 0 (too small to read: unsure). Raises ValueError when the crop is not a non-empty HxWx3
        image, or die_types are given to a calibrated set (it reads the dice it was calibrated on)."""
        if self.model is None:
            result = read_numbered(crop, mask, view, die_types)
        elif die_types is not None:
            raise ValueError(f"die set {self.name!r} reads the dice it was calibrated on: die types in play "
                             "restrict the standard set only; leave them out")
        else:
            result = self.result_from_proba(self.model.proba(crop, mask, view))
        if min(crop.shape[:2]) < MIN_SIDE:
            result.confidence = 0.0
        return result

    def result_from_proba(self, proba: np.ndarray) -> FaceResult:
        """FaceResult from class probabilities (C,): the most probable die type (summed over its
        faces), then its most probable face; confidence = that face's probability, for a calibrated
        set mapped by its model so that its cross-validated threshold falls on UNSURE_BELOW; alternatives:
        the other faces with a value and no symbols (those a player can set, service.tower.correction_faces)
        by their class probability, a face learned in two colours once."""
        types: dict[str, float] = {}
        for c, p in zip(self.classes, proba):
            types[c.die_type] = types.get(c.die_type, 0.0) + float(p)
        die_type = max(types, key=types.__getitem__)
        best = max((i for i, c in enumerate(self.classes) if c.die_type == die_type), key=lambda i: proba[i])
        c = self.classes[best]
        p = float(proba[best]) if self.model is None else self.model.confidence(float(proba[best]), best)
        ranked = sorted(((float(q), o.die_type, o.value) for o, q in zip(self.classes, proba)
                         if o.value is not None and not o.symbols and q > 0
                         and (o.die_type, o.value) != (c.die_type, c.value)), reverse=True)
        return FaceResult(c.die_type, c.value, p, list(c.symbols), c.face_colour, types[die_type],
                          _first_faces([(t, v) for _, t, v in ranked]))

    def save(self, directory: Path) -> Path:
        """Write set.json and model.npz into directory (created). Returns the directory."""
        directory.mkdir(parents=True, exist_ok=True)
        if self.model is not None:
            self.model.save(directory / MODEL_FILE)
        doc = {"format": FORMAT_VERSION, "name": self.name,
               "model": NUMERALS_MODEL if self.model is None else FEWSHOT_MODEL,
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
    names: set[str] = set()
    for root in (models_dir(), user_data_dir() / "die_sets"):
        if root.is_dir():
            names.update(p.name for p in root.iterdir() if (p / SET_FILE).is_file())
    return sorted(names)


def _load_calibrated(name: str, directory: Path, doc: dict) -> "FewShotModel":
    """The few-shot model of a calibrated set (set.json "model": "fewshot"). Raises DieSetError
    for a set made by an older version (another model), OSError/KeyError/ValueError for a bad file."""
    from dicetower.vision.fewshot import FewShotModel

    if doc.get("model") != FEWSHOT_MODEL:
        raise DieSetError(f"die set {name!r} in {directory} was made by an older version of `dicetower calibrate` "
                          f"(model {doc.get('model', 'templates')!r}); calibrate it again from its photos")
    return FewShotModel.load(directory / MODEL_FILE)


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
                                None if doc.get("model") == NUMERALS_MODEL else _load_calibrated(name, directory, doc),
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


def read_numbered(crop: np.ndarray, mask: np.ndarray | None = None,
                  view: ViewEstimate | None = None, die_types: frozenset[str] | None = None) -> FaceResult:
    """The standard set's reading of a numbered die (d4, d6, d8, d10, d12, d20).

    crop: HxWx3 uint8 BGR, one die, any rotation; mask: HxW uint8 (non-zero = the die, from the
    detector) or None (the die's silhouette is found in the crop). The die type's probabilities come
    from its shape (shape.die_type_by_shape), the numeral's from the CNN of numerals.py
    (numerals.read_up_face: averaged over where the up face may lie, and over the print sizes
    numerals.READ_ZOOMS gives the type the shape finds most likely), and joint_reading combines
    them, the confidence capped by the net's reading of the trained patch alone (cap_proba).
    view: the scene's view elevation (view.view_of_scene; None = top-down): seen obliquely, the type
    is told by shape's oblique model and the numeral is read on the face pointing up (face_patch's
    elevation), and when the elevation itself is unsure (view.sure False) the reading's confidence is
    at most VIEW_UNSURE_CAP, below UNSURE_BELOW: flagged, never guessed (GEN-D01).
    die_types: the die types in play (check_die_types: the dice a table throws), or None for any of
    shape.DIE_TYPES. They are a prior, never evidence: a die read sure as a type not in play is reported
    as that type (a wrong die, which the rules refuse: RULES.md GEN-D04), and so is a die read sure as
    one in play. A die read unsure (or under an unsure view, so to be flagged) is read again as one of the
    types in play (restricted_types), its confidence at most the joint probability that its type is in
    play (in_play_share), so a die that is likely of another type stays unsure: the player confirms it
    (GEN-D01).
    A crop under MIN_SIDE px gets confidence 0. Raises ValueError for a crop that is not a non-empty
    HxWx3 uint8 image,
    FileNotFoundError / shape.ShapeModelError when the shipped models are not built (`make models`)."""
    from dicetower.vision import numerals, shape

    square(crop)  # the crop's checks and message
    if min(crop.shape[:2]) < MIN_SIDE:  # too small to tell: unsure, of a type in play
        in_play_or_d6 = "d6" if die_types is None or "d6" in die_types else min(die_types, key=shape.DIE_TYPES.index)
        return FaceResult(in_play_or_d6, None, 0.0, type_confidence=0.0)
    elevation = TOP_DOWN if view is None else view.elevation
    view_unsure = view is not None and view.oblique and not view.sure
    types = shape.die_type_by_shape(crop, mask, elevation=elevation).proba
    top = max(types, key=types.__getitem__)
    mean, trained = numerals.read_up_face(crop, mask, elevation, top)
    result = joint_reading(types, mean, cap_proba=trained)
    if die_types is not None and (result.unsure or view_unsure):  # to be flagged: read as a die in play
        share = in_play_share(types, mean, die_types)
        in_play = restricted_types(types, die_types)
        top_in_play = max(in_play, key=in_play.__getitem__)
        if numerals.read_zooms(top_in_play) != numerals.read_zooms(top):  # the numeral read at its print size
            mean, trained = numerals.read_up_face(crop, mask, elevation, top_in_play)
        result = joint_reading(in_play, mean, cap_proba=trained)
        result.confidence = min(result.confidence, share)
    if view_unsure:
        result.confidence = min(result.confidence, VIEW_UNSURE_CAP)
    return result


def check_die_types(die_types: Iterable[str] | None) -> frozenset[str] | None:
    """The die types in play as the standard set takes them (read_numbered's die_types): a frozenset of
    names from shape.DIE_TYPES ("d4", "d6", "d8", "d10", "d12", "d20"; written as in RULES.md, case and
    spaces aside), or None (any type) for None. Raises ValueError naming an unknown type or an empty
    collection, and what to give instead."""
    from dicetower.vision.shape import DIE_TYPES

    if die_types is None:
        return None
    if isinstance(die_types, str):
        raise ValueError(f"die types must be a collection of names such as ['d6', 'd20'], not the string {die_types!r}")
    types = frozenset(str(t).strip().lower() for t in die_types)
    unknown = sorted(types - set(DIE_TYPES))
    if unknown:
        raise ValueError(f"unknown die type(s) {', '.join(map(repr, unknown))}: the standard set reads "
                         f"{', '.join(DIE_TYPES)} (pip d6 are d6); other dice need a calibrated set (--die-set)")
    if not types:
        raise ValueError(f"no die types given: name at least one of {', '.join(DIE_TYPES)}, or none at all "
                         "to read any of them")
    return types


def restricted_types(type_proba: dict[str, float], die_types: frozenset[str]) -> dict[str, float]:
    """type_proba ({die type: P_shape(type)}, shape.ShapeResult.proba) restricted to the die types in play
    and renormalised over them: P(type | type in die_types). When the shape gives every type in play
    probability 0, each is given the same share."""
    kept = {t: float(type_proba.get(t, 0.0)) for t in sorted(die_types)}
    total = sum(kept.values())
    if total <= 0:
        return {t: 1.0 / len(kept) for t in kept}
    return {t: p / total for t, p in kept.items()}


def joint_reading(type_proba: dict[str, float], numeral_proba: np.ndarray,
                  cap_proba: np.ndarray | None = None) -> FaceResult:
    """The (die type, value) a numbered die shows, from its shape and its numeral together.

    type_proba: {die type: P_shape(type)} over d4, d6, d8, d10, d12, d20 (shape.ShapeResult.proba);
    numeral_proba: (K,) the numeral net's class probabilities of the up face (numerals.numeral_proba,
    classes numerals.numeral_classes()). P(type, value) is P_shape(type) x P_num(the classes printing
    that value on that type, numerals.DIE_FACES), renormalised over every (type, value) pair and
    "no numeral" (the blank and symbol classes, whatever the type), so the numeral informs the type:
    a 13..20 exists only on a d20, 9..12 on a d12 or d20, the d4 classes only on a d4, and a face
    showing no numeral leaves every pair unlikely. The reading is the most probable pair; its
    probability is the confidence, the type's summed probability the type_confidence, and the next
    most probable pairs the alternatives (ALTERNATIVES of them, best first).
    A sure reading needs shape and numeral to agree: the shape's most probable type is the
    reading's (or both are look-alikes, shape.LOOKALIKES, between which the shape defers to the
    numeral) and the net's most probable class prints the reading's value on that type. Otherwise
    the confidence is lowered to the smaller of P_shape(type) and P_num(value | type), which is then
    below UNSURE_BELOW (issue 4: a reading is flagged, never silently guessed; RULES.md GEN-D01).
    So a numeral the net is fairly sure of and that only one look-alike prints (13..20: a d20)
    outweighs a shape leaning to another look-alike.
    cap_proba: (K,) or None, another reading of the same face (numerals.read_up_face's trained
    patch, when numeral_proba averages several patches): the confidence is at most the probability
    that cap_proba gives the same (type, value) pair, so a reading made of several patches is never
    surer than the one patch the net was trained on.
    Raises ValueError when numeral_proba's length differs from the net's classes or type_proba
    names a type the net does not read."""
    from dicetower.vision import numerals
    from dicetower.vision.shape import LOOKALIKES

    classes = numerals.numeral_classes()
    numeral_proba = np.asarray(numeral_proba, np.float64)
    for name, given in (("numeral_proba", numeral_proba), ("cap_proba", cap_proba)):
        if given is not None and np.shape(given) != (len(classes),):
            raise ValueError(f"{name} must have one probability per numeral class ({len(classes)}), "
                             f"got shape {np.shape(given)}")
    unknown = set(type_proba) - set(numerals.DIE_FACES)
    if unknown:
        raise ValueError(f"type_proba names die types the numeral net does not read: {sorted(unknown)}")
    support, score, total = _pairs(type_proba, numeral_proba, classes)
    if total <= 0:
        return FaceResult(max(type_proba, key=type_proba.__getitem__), None, 0.0, type_confidence=0.0)
    die_type, value = max(score, key=score.__getitem__)
    confidence = score[die_type, value] / total
    if cap_proba is not None:
        _, cap_score, cap_total = _pairs(type_proba, np.asarray(cap_proba, np.float64), classes)
        confidence = min(confidence, cap_score[die_type, value] / cap_total if cap_total > 0 else 0.0)
    type_confidence = sum(p for (t, _), p in score.items() if t == die_type) / total
    ranked = sorted(((p, t, v) for (t, v), p in score.items() if (t, v) != (die_type, value) and p > 0),
                    reverse=True)
    alternatives = _first_faces([(t, v) for _, t, v in ranked])
    shape_top = max(type_proba, key=type_proba.__getitem__)
    numeral_top = classes[int(np.argmax(numeral_proba))]
    shape_agrees = shape_top == die_type or (shape_top in LOOKALIKES and die_type in LOOKALIKES)
    if not shape_agrees or numeral_top not in numerals.DIE_FACES[die_type][value]:
        confidence = min(confidence, float(type_proba[die_type]), support[die_type, value])
    return FaceResult(die_type, value, float(confidence), type_confidence=float(type_confidence),
                      alternatives=alternatives)


def _first_faces(ranked: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """The first ALTERNATIVES distinct faces of ranked ((die type, value), best first)."""
    return list(dict.fromkeys((t, int(v)) for t, v in ranked))[:ALTERNATIVES]


def _pairs(type_proba: dict[str, float], proba: np.ndarray, classes: list[str]
           ) -> tuple[dict[tuple[str, int], float], dict[tuple[str, int], float], float]:
    """joint_reading's (support, score, total) for numeral probabilities proba (K,) over classes (the net's):
    P_num and P_shape x P_num of each (type, value) pair of type_proba's types, and their sum with the
    no-numeral classes' probability."""
    from dicetower.vision import numerals

    index = {c: i for i, c in enumerate(classes)}
    face_classes = {c for faces in numerals.DIE_FACES.values() for cs in faces.values() for c in cs}
    no_numeral = float(sum(p for c, p in zip(classes, proba) if c not in face_classes))
    support = {(t, v): float(sum(proba[index[c]] for c in cs))
               for t in type_proba for v, cs in numerals.DIE_FACES[t].items()}
    score = {(t, v): float(type_proba[t]) * p for (t, v), p in support.items()}
    return support, score, sum(score.values()) + no_numeral


def in_play_share(type_proba: dict[str, float], numeral_proba: np.ndarray, die_types: frozenset[str]) -> float:
    """The joint probability (as joint_reading weighs shape and numeral: P_shape(type) x P_num(value)) that
    a die is of one of die_types, over every (type, value) pair and no numeral; 0..1. type_proba: {die
    type: P_shape}, numeral_proba: (K,) over numerals.numeral_classes()."""
    from dicetower.vision import numerals

    _, score, total = _pairs(type_proba, np.asarray(numeral_proba, np.float64), numerals.numeral_classes())
    return sum(p for (t, _), p in score.items() if t in die_types) / total if total > 0 else 0.0


def classify_crop(crop_bgr: np.ndarray, die_set: str | None = None, mask: np.ndarray | None = None,
                  view: ViewEstimate | None = None, die_types: frozenset[str] | None = None) -> FaceResult:
    """Die type and face of one die crop.

    crop_bgr: HxWx3 uint8 BGR, one die roughly centred, the die filling most of it, any rotation,
    seen from above (or obliquely: see view). die_set: None / "standard" for the shipped models, or a calibrated set's name.
    mask: HxW uint8 (non-zero = the die, e.g. detect.DieBody.mask) or None.
    view: the scene's view elevation (view.view_of_scene of the frame the crop is cut from) or None
    for a top-down camera; an oblique view makes the standard set read the face pointing up.
    die_types: the die types in play (check_die_types), read by the standard set only; None: any.
    Returns FaceResult (result.unsure => the caller flags the die, GEN-D01; a crop under MIN_SIDE
    px gets confidence 0). Raises DieSetError for an unknown die set, ValueError for a crop that is
    not a non-empty HxWx3 image, or die_types given with a calibrated set."""
    return load_die_set(die_set).classify(crop_bgr, mask, view, die_types)
