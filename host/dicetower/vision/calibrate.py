"""Calibration: teach the face classifier a dice set from a few labelled photos (issue 4 item 5).

Offline, from labels.csv (the form of ../shared/datasets):
    image,die_type,value,x,y,w,h,colour
image is relative to the images root; x,y,w,h the die's box in px (empty: the image holds one die,
found with detect.find_die_bodies, or the whole image if none is found); value holds the face's
reading: an integer value and/or symbol ids separated by '|' or spaces ("6", "logo", "3|epee|epee",
"name"); colour is the face colour when it is one word ("ruby", "yellow"), else free text that is
ignored (a body description such as "copper/steel swirl, white numerals").

Every labelled crop is augmented (any rotation, scale, shift, light, gamma, blur, noise; hue kept,
since face colours matter), cross-validated with folds that keep each photo's augmentations
together (a photo is never in its own test fold), then the set keeps every crop and its augmentations as
templates and is saved with a confidence temperature fitted on the out-of-fold predictions.

Guided, with the tower's camera: guided_calibration() tells the player which face to set in the
tray, takes the frame, finds the die, shows progress and stops when every face has its shots.
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import cv2
import numpy as np

from dicetower.paths import user_data_dir
from dicetower.readings import UNSURE_BELOW
from dicetower.vision.faces import (Descriptor, DieSet, FaceClass, describe, fit_model, fit_temperature,
                                    forget_die_set, softmax)

AUGMENT = 4  # augmented copies per labelled crop (light, blur, shift, scale, turn): measured +15-20
# points on synthetic sets whose photos vary in light, -5 to -10 on fickett's uniform real tiles
SEED = 7


class CalibrationError(ValueError):
    """Bad calibration input (the message names the file/row and what to do)."""


@dataclass
class LabelledCrop:
    """One labelled die: crop HxWx3 uint8 BGR, its face, and the photo it came from (group)."""

    crop: np.ndarray
    face: FaceClass
    group: str


def parse_face(die_type: str, value: str, colour: str, where: str) -> FaceClass:
    """FaceClass from a labels.csv row's die_type, value and colour fields (see module doc).
    Raises CalibrationError (naming `where`) when die_type or value is empty."""
    die_type = die_type.strip()
    tokens = [t for t in re.split(r"[|\s]+", value.strip()) if t]
    if not die_type:
        raise CalibrationError(f"{where}: empty die_type (write d4..d20, stone, ...)")
    if not tokens:
        raise CalibrationError(f"{where}: empty value: every calibration row needs the face's value or symbols")
    numbers = [t for t in tokens if re.fullmatch(r"\d+", t)]
    if len(numbers) > 1:
        raise CalibrationError(f"{where}: value {value!r} holds several numbers; give one value and symbol ids")
    symbols = tuple(t for t in tokens if not re.fullmatch(r"\d+", t))
    colour = colour.strip().lower()
    face_colour = colour if re.fullmatch(r"[a-z_-]+", colour) else None
    return FaceClass(die_type, int(numbers[0]) if numbers else None, symbols, face_colour)


def _die_crop(image: np.ndarray) -> np.ndarray:
    """The single die in a photo without a box: the largest body detect.find_die_bodies finds
    (at least 15% of the image's short side), with a 10% margin, or the whole image when there is
    none (the photo is already a die crop)."""
    from dicetower.vision.detect import find_die_bodies

    short = min(image.shape[:2])
    bodies = [b for b in find_die_bodies(image) if min(b.box[2:]) >= 0.15 * short]
    if not bodies:
        return image
    x, y, w, h = max(bodies, key=lambda b: b.box[2] * b.box[3]).box
    m = int(0.1 * max(w, h))
    H, W = image.shape[:2]
    return image[max(0, y - m): min(H, y + h + m), max(0, x - m): min(W, x + w + m)]


def read_labels(labels_csv: Path, images_root: Path, keep: Callable[[dict], bool] | None = None
                ) -> list[LabelledCrop]:
    """Labelled crops from a labels.csv (columns image,die_type,value,x,y,w,h,colour).
    keep: optional filter on the row dict. Raises CalibrationError for a missing column, an
    unreadable image or a box outside its image (naming the row)."""
    labels_csv, images_root = Path(labels_csv), Path(images_root)
    try:
        rows = list(csv.DictReader(labels_csv.open(newline="")))
    except OSError as exc:
        raise CalibrationError(f"cannot read {labels_csv}: {exc}") from exc
    need = {"image", "die_type", "value", "x", "y", "w", "h", "colour"}
    if not rows or not need <= set(rows[0]):
        raise CalibrationError(f"{labels_csv} must have a header image,die_type,value,x,y,w,h,colour "
                               "and at least one row")
    images: dict[str, np.ndarray] = {}
    out = []
    for i, row in enumerate(rows, start=2):
        if keep is not None and not keep(row):
            continue
        where = f"{labels_csv}:{i}"
        face = parse_face(row["die_type"], row["value"] or "", row["colour"] or "", where)
        path = images_root / row["image"]
        if row["image"] not in images:
            img = cv2.imread(str(path), cv2.IMREAD_COLOR)
            if img is None:
                raise CalibrationError(f"{where}: cannot read image {path} (missing or not an image); "
                                       "check --images-root")
            images[row["image"]] = img
        img = images[row["image"]]
        box = [row[k].strip() for k in ("x", "y", "w", "h")]
        if all(box):
            x, y, w, h = (int(float(v)) for v in box)
            H, W = img.shape[:2]
            if w < 8 or h < 8 or x < 0 or y < 0 or x + w > W or y + h > H:
                raise CalibrationError(f"{where}: box {x},{y},{w},{h} is not inside the {W}x{H} image {path}")
            crop = img[y:y + h, x:x + w]
            group = f"{row['image']}#{x},{y}"
        elif any(box):
            raise CalibrationError(f"{where}: give all of x,y,w,h or none")
        else:
            crop = _die_crop(img)
            group = row["image"]
        out.append(LabelledCrop(np.ascontiguousarray(crop), face, group))
    if not out:
        raise CalibrationError(f"{labels_csv}: no labelled dice (after filtering)")
    return out


def augment(crop: np.ndarray, rng: np.random.Generator, n: int) -> list[np.ndarray]:
    """n variants of a die crop (HxWx3 uint8 BGR): rotation 0-360 degrees, scale 0.9-1.1, shift
    up to 6%, gain 0.75-1.25, gamma 0.8-1.25, Gaussian blur sigma 0-1.2 px, noise; hue untouched."""
    h, w = crop.shape[:2]
    out = []
    for _ in range(n):
        m = cv2.getRotationMatrix2D((w / 2 + rng.uniform(-0.06, 0.06) * w, h / 2 + rng.uniform(-0.06, 0.06) * h),
                                    rng.uniform(0, 360), rng.uniform(0.9, 1.1))
        img = cv2.warpAffine(crop, m, (w, h), borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
        img = 255 * ((img * rng.uniform(0.75, 1.25)).clip(0, 255) / 255) ** rng.uniform(0.8, 1.25)
        s = rng.uniform(0, 1.2)
        if s > 0.3:
            img = cv2.GaussianBlur(img, (0, 0), s)
        img += rng.normal(0, rng.uniform(0, 5), img.shape)
        out.append(img.clip(0, 255).astype(np.uint8))
    return out


def _templates(samples: list[LabelledCrop], idx: list[int], n_aug: int, rng: np.random.Generator,
               classes: list[FaceClass]) -> tuple[list[Descriptor], np.ndarray]:
    """Descriptors and class indices of the samples idx and n_aug augmented copies of each."""
    ds, ys = [], []
    for i in idx:
        label = classes.index(samples[i].face)
        for c in [samples[i].crop] + augment(samples[i].crop, rng, n_aug):
            ds.append(describe(c))
            ys.append(label)
    return ds, np.array(ys)


@dataclass
class CalibrationReport:
    """Cross-validation of a calibration: accuracy over the held-out labelled crops, confusion
    matrix (rows = true class, columns = predicted, in `classes` order), folds used, the share of
    held-out crops that were unsure, and the accuracy over the sure ones."""

    classes: list[FaceClass]
    accuracy: float
    confusion: np.ndarray
    folds: int
    unsure_rate: float
    sure_accuracy: float
    n: int
    predictions: list[tuple[int, int, float]] = field(default_factory=list)  # (true, predicted, confidence)

    def text(self) -> str:
        """The report as printed by `dicetower calibrate`."""
        keys = [c.key for c in self.classes]
        width = max(len(k) for k in keys)
        lines = [f"cross-validated accuracy: {self.accuracy:.3f} over {self.n} labelled dice ({self.folds} folds, "
                 f"grouped by photo); unsure {self.unsure_rate:.3f}, accuracy when sure {self.sure_accuracy:.3f}",
                 "confusion matrix (rows: true, columns: predicted):",
                 " " * width + " " + " ".join(f"{j:>3d}" for j in range(len(keys)))]
        for i, k in enumerate(keys):
            lines.append(f"{k:>{width}} " + " ".join(f"{v:>3d}" for v in self.confusion[i]) + f"   ({i})")
        return "\n".join(lines)


def _folds(samples: list[LabelledCrop], k: int) -> list[int]:
    """Fold index per sample: photos (groups) of each class spread round-robin over k folds."""
    group_fold: dict[str, int] = {}
    per_class: dict[str, int] = {}
    for s in samples:
        if s.group not in group_fold:
            n = per_class.get(s.face.key, 0)
            group_fold[s.group] = n % k
            per_class[s.face.key] = n + 1
    return [group_fold[s.group] for s in samples]


def calibrate(samples: list[LabelledCrop], name: str, out_dir: Path | None = None, n_aug: int = AUGMENT,
              folds: int = 5, seed: int = SEED) -> tuple[DieSet, CalibrationReport]:
    """Cross-validate, then train the die set `name` on all samples and save it to out_dir
    (default user_data_dir()/die_sets/<name>). Each face needs at least 2 labelled photos
    (one to learn from while the other is tested); folds = min(folds, fewest photos of a face).
    Raises CalibrationError when a face has fewer than 2 photos or the set has one face."""
    classes = sorted({s.face for s in samples}, key=lambda c: (c.die_type, c.value or 0, c.key))
    if len(classes) < 2:
        raise CalibrationError("a die set needs at least 2 different faces to tell apart")
    photos: dict[FaceClass, set[str]] = {}
    for s in samples:
        photos.setdefault(s.face, set()).add(s.group)
    few = [c.key for c, g in photos.items() if len(g) < 2]
    if few:
        raise CalibrationError(f"faces with fewer than 2 labelled photos: {', '.join(few)}; label at least 2 "
                               "(3 to 5 is better) per face")
    k = max(2, min(folds, min(len(g) for g in photos.values())))
    fold = np.array(_folds(samples, k))
    rng = np.random.default_rng(seed)
    n = len(classes)
    conf = np.zeros((n, n), int)
    oof_logits, oof_y, preds = [], [], []
    for f in range(k):
        train = [i for i in range(len(samples)) if fold[i] != f]
        test = [i for i in range(len(samples)) if fold[i] == f]
        if not test:
            continue
        x, y = _templates(samples, train, n_aug, rng, classes)
        ds = DieSet(name, classes, fit_model(x, y, n))
        for i in test:
            logit = ds.logits(samples[i].crop)
            oof_logits.append(logit)
            oof_y.append(classes.index(samples[i].face))
    oof_logits_a, oof_y_a = np.array(oof_logits), np.array(oof_y)
    temperature = fit_temperature(oof_logits_a, oof_y_a)
    proba = softmax(oof_logits_a / temperature)
    for t, p in zip(oof_y_a, proba):
        r = ds.result_from_proba(p)
        j = classes.index(FaceClass(r.die_type, r.value, tuple(r.symbols), r.face_colour))
        conf[t, j] += 1
        preds.append((int(t), j, r.confidence))
    correct = np.array([t == j for t, j, _ in preds])
    sure = np.array([c >= UNSURE_BELOW for _, _, c in preds])
    report = CalibrationReport(classes, float(correct.mean()), conf, k, float(1 - sure.mean()),
                               float(correct[sure].mean()) if sure.any() else 0.0, len(preds), preds)
    x, y = _templates(samples, list(range(len(samples))), n_aug, rng, classes)
    model = fit_model(x, y, n)
    model.temperature = temperature
    ds = DieSet(name, classes, model,
                meta={"calibrated_from": len(samples), "cv_accuracy": round(report.accuracy, 4),
                      "cv_unsure_rate": round(report.unsure_rate, 4), "folds": k, "augment": n_aug,
                      "temperature": round(temperature, 4)})
    ds.save(out_dir or user_data_dir() / "die_sets" / name)
    forget_die_set(name)
    return ds, report


def save_confusion_png(report: CalibrationReport, path: Path, title: str = "") -> Path:
    """Write the confusion matrix as a PNG heat map (matplotlib, Agg). Returns path."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    n = len(report.classes)
    fig, ax = plt.subplots(figsize=(2 + 0.45 * n, 1.5 + 0.45 * n))
    ax.imshow(report.confusion, cmap="Blues")
    labels = [c.key for c in report.classes]
    ax.set_xticks(range(n), labels, rotation=90, fontsize=7)
    ax.set_yticks(range(n), labels, fontsize=7)
    for i in range(n):
        for j in range(n):
            if report.confusion[i, j]:
                ax.text(j, i, str(report.confusion[i, j]), ha="center", va="center", fontsize=7,
                        color="white" if report.confusion[i, j] > report.confusion.max() / 2 else "black")
    ax.set_xlabel("predicted")
    ax.set_ylabel("true")
    ax.set_title(title or f"cross-validated accuracy {report.accuracy:.3f} (n={report.n})", fontsize=9)
    fig.tight_layout()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def guided_calibration(camera, faces: list[FaceClass], name: str, shots_per_face: int = 3,
                       ask: Callable[[str], object] = input, say: Callable[[str], None] = print,
                       out_dir: Path | None = None) -> tuple[DieSet, CalibrationReport]:
    """Calibrate with the tower's camera: for each face in `faces`, `shots_per_face` times, say
    which die and face to set in the tray, wait for the player (ask(prompt)), take camera.read()
    (a camera.Frame), find the die (the largest body, detect.find_die_bodies), and show progress;
    when every face has its shots, calibrate() and return (set, report).
    A frame with no die is not counted: the player is asked again (at most 3 times per shot,
    then CalibrationError). camera: ReplayCamera / LiveCamera of dicetower.vision.camera."""
    from dicetower.vision.detect import find_die_bodies

    samples: list[LabelledCrop] = []
    total = len(faces) * shots_per_face
    for face in faces:
        label = face.key
        for shot in range(shots_per_face):
            for attempt in range(3):
                ask(f"Set the {face.die_type} in the tray showing {label.split(':', 1)[1]} "
                    f"(shot {shot + 1}/{shots_per_face}), then press Enter")
                frame = camera.read()
                bodies = find_die_bodies(frame.image)
                if bodies:
                    x, y, w, h = max(bodies, key=lambda b: b.box[2] * b.box[3]).box
                    m = int(0.1 * max(w, h))
                    img = frame.image
                    crop = img[max(0, y - m): y + h + m, max(0, x - m): x + w + m]
                    samples.append(LabelledCrop(np.ascontiguousarray(crop), face, f"{frame.source}#{len(samples)}"))
                    say(f"[{len(samples)}/{total}] learned {label} from {frame.source}")
                    break
                say(f"no die found in {frame.source}: put the die in the middle of the tray")
            else:
                raise CalibrationError(f"no die seen for {label} after 3 tries; check the camera and the light")
    say("every face learned; training")
    return calibrate(samples, name, out_dir=out_dir)
