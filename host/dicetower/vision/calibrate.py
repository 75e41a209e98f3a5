"""Calibration: teach the face classifier a dice set from a few labelled photos (issue 4 item 5).

Offline, from labels.csv (the form of ../shared/datasets):
    image,die_type,value,x,y,w,h,colour
image is relative to the images root; x,y,w,h the die's box in px, taken as `dicetower read` frames
that die when it finds it (as_read; empty: the image holds one die, found with
detect.find_die_bodies, or the whole image if none is found); value holds the face's
reading: an integer value and/or symbol ids separated by '|' or spaces ("6", "logo", "3|epee|epee",
"name"; a d10's "0" is 10, RULES.md GEN-D02, and a number no face of a d4..d20 bears is refused);
colour is the face colour when it is one word ("ruby", "yellow"), else free text that is ignored (a
body description such as "copper/steel swirl, white numerals").

The set's model is fewshot.FewShotModel (every labelled crop learned at every turn, with light,
blur and centring variants; colour per face; the standard numeral net or pip reader as a prior for
the faces it reads as labelled, so a logo d6 learns only its logo; the numeral net's view of the up
face mixed into the marks in a share, NET_SHARES). It is cross-validated with folds
that keep each photo together (a photo is never in its own test fold); the out-of-fold predictions
give the net's share, the temperatures (Guo et al. 2017), the prior's weight, and the set's threshold
(choose_threshold: the readings given as sure reach SURE_TARGET in cross-validation and claim no
more than it vouches for). One small-sample rule prices in the few cross-validated readings: the
error rate of e wrong readings in n has the posterior Beta(e + 1, n - e + 1) (uniform prior,
Laplace 1812); the temperatures are fitted to its mean (the rule of succession), and a sure reading
must claim more than that mean gives N readings all right (choose_threshold). A face the
cross-validation confused is sure only above the confusion's probability (face_floors), and a
reading the standard reader does not back (it leans to another value, or reads another face) is
never sure; a face both readers read is sure beyond what the few readings vouch for when the reader
is sure of it, or when the few-shot alone reads it, the reader names its value (fewshot.named_value)
and the two readers' error rates on the labelled photos multiply to at most 0.1 % (agreement_error,
the few-shot's counted over the readings its two descriptions agree on, described_alike;
fewshot.FewShotModel.corroborated). Then the model is learned from every photo and saved. The report
lists the labelled dice both readers read as one other face (contradicted_labels): most likely labelled
wrong, and each such label counts against the two readers' agreement.

From play (read_log, `dicetower calibrate --from-log rolls.sqlite`): the dice players confirmed or corrected
in the tower's roll log, each from the crop of the frame the service logged with it, once every face has a
few of them.

Guided, with the tower's camera: guided_calibration() tells the player which face to set in the
tray, takes the frame, finds the die, shows progress and stops when every face has its shots
(answers at the keyboard); calibrate_panel.panel_calibration() does it on the tower's panel.
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable

import cv2
import numpy as np

from dicetower.audit.rolllog import DIE_SIDES
from dicetower.paths import user_data_dir
from dicetower.readings import UNSURE_BELOW
from dicetower.vision.boxes import centre, holds, intersection
from dicetower.vision.crops import decode_crop
from dicetower.vision.detect import DieBody
from dicetower.vision.faces import DieSet, FaceClass, forget_die_set, softmax
from dicetower.vision.fewshot import (FewShotModel, describe, fit_described, named_value, net_vectors, prior_loglik,
                                      reader_support, reading_value, standard_values)
from dicetower.vision.view import TOP_DOWN, ViewEstimate, view_of_scene

AUGMENT = 1  # light/blur/centring variants per labelled crop, each at every turn (fewshot.ROTATIONS)
SEED = 7
#: the accuracy asked of the readings given as sure (issue 4: 99.9 %); the threshold is the lowest
#: probability above which the cross-validated readings reach it and which they can vouch for
#: (choose_threshold), never below MIN_THRESHOLD
SURE_TARGET = 0.999
MIN_THRESHOLD = 0.5


class CalibrationError(ValueError):
    """Bad calibration input (the message names the file/row and what to do)."""


@dataclass
class LabelledCrop:
    """One labelled die: crop HxWx3 uint8 BGR, its face, the photo it came from (group), and as the
    reader sees it there: mask HxW uint8 (non-zero = the die; None: found in the crop) and the
    scene's view (view.ViewEstimate; None: top-down); where: where its label was given, for a person to
    find it (a labels.csv row, "labels.csv:12"; a logged roll's die; empty: the group says)."""

    crop: np.ndarray
    face: FaceClass
    group: str
    mask: np.ndarray | None = None
    view: ViewEstimate | None = None
    where: str = ""

    @property
    def elevation(self) -> float:
        """The view's elevation in degrees (90: top-down)."""
        return TOP_DOWN if self.view is None else self.view.elevation


def parse_face(die_type: str, value: str, colour: str, where: str) -> FaceClass:
    """FaceClass from a labels.csv row's die_type, value and colour fields (see module doc). A d10's "0" is
    its 10 (RULES.md GEN-D02: the readers, the rules and the log all count it so).
    Raises CalibrationError (naming `where`) when die_type or value is empty, or when the number is no face
    of a standard die type (a d6's 7, a percentile d10's "00".."90", GEN-D02): a set learned from it would
    read values that no rule resolves and the roll log refuses."""
    die_type = die_type.strip().lower()
    # a whole number written as a spreadsheet may write it ("6.0") is that number
    tokens = [re.sub(r"^(\d+)\.0*$", r"\1", t) for t in re.split(r"[|\s]+", value.strip()) if t]
    if not die_type:
        raise CalibrationError(f"{where}: empty die_type (write d4..d20, stone, ...)")
    if not tokens:
        raise CalibrationError(f"{where}: empty value: every calibration row needs the face's value or symbols")
    numbers = [t for t in tokens if re.fullmatch(r"\d+", t)]
    if len(numbers) > 1:
        raise CalibrationError(f"{where}: value {value!r} holds several numbers; give one value and symbol ids")
    symbols = tuple(t for t in tokens if not re.fullmatch(r"\d+", t))
    number = int(numbers[0]) if numbers else None
    if die_type == "d10" and numbers == ["0"]:
        number = 10  # GEN-D02: a d10 face printed "0" reads as 10
    sides = DIE_SIDES.get(die_type)
    if sides is not None and number is not None and not 1 <= number <= sides:
        percentile = (" (percentile dice are not read, RULES.md GEN-D02)"
                      if die_type == "d10" and number % 10 == 0 else "")
        raise CalibrationError(f"{where}: value {value.strip()!r} is no face of a {die_type} (1..{sides}){percentile}: "
                               "correct the label")
    colour = colour.strip().lower()
    face_colour = colour if re.fullmatch(r"[a-z_-]+", colour) else None
    return FaceClass(die_type, number, symbols, face_colour)


#: a die as the reader sees it in a frame (find_die): crop HxWx3 uint8 BGR, mask HxW uint8 or None, view
Found = tuple[np.ndarray, "np.ndarray | None", ViewEstimate]


def find_die(image: np.ndarray) -> Found | None:
    """The single die of a photo (HxWx3 uint8 BGR) as `dicetower read --die-set` reads it, on the
    reader's copy of the frame (reader.reading_copy, as DiceReader.read reads it): the largest body of
    detect.find_die_bodies that reader.is_die_like accepts (whole in the frame, of a colour rarer
    than the ground's), else the die of a close-up (detect.find_close_up). Returns (crop: the body's
    box, HxWx3 uint8 BGR; mask: its DieBody.mask; view: view.view_of_scene of the frame with every
    body found whole in it: a body cut by the frame's border stands outside any floor), or None when
    neither is found (the caller then takes the photo itself for a crop of the die, seen from above).
    A realdice d20 in its dome is ~60 px of a 480 px frame, seen from ~59 degrees."""
    from dicetower.vision.detect import find_close_up, find_die_bodies
    from dicetower.vision.reader import is_die_like, reading_copy, whole_boxes

    frame, _ = reading_copy(image)
    found = find_die_bodies(frame)
    bodies = [b for b in found if is_die_like(frame, b)]
    body = max(bodies, key=lambda b: b.box[2] * b.box[3]) if bodies else find_close_up(frame)
    if body is None:
        return None
    x, y, w, h = body.box
    crop = np.ascontiguousarray(frame[y:y + h, x:x + w])
    view = view_of_scene(frame, whole_boxes(found) or [body.box])
    return crop, body.mask[:crop.shape[0], :crop.shape[1]], view


#: a labelled box lies in a reader's box of the same die when each holds the other's centre and this
#: share of the labelled box lies in the reader's (matteop65's boxes hold only the pips: a 1 is boxed
#: round its pip)
SAME_DIE_OVERLAP = 0.7
#: a labelled box holds only part of its die when the reader's box of it is at least this many times
#: its area (matteop65's pip boxes: 2x and more; boxes round the whole die differ by a few px)
PART_OF_DIE = 1.5


def reader_bodies(image: np.ndarray) -> list[DieBody]:
    """The dice bodies `dicetower read --die-set` crops dice at in a photo (HxWx3 uint8 BGR), boxes
    (x, y, w, h px) and masks: every sure pip face grown to its die (reader.pip_die_body) and every
    die body (detect.find_die_bodies) not cut by the frame's border."""
    from dicetower.vision.detect import find_die_bodies, find_pip_faces
    from dicetower.vision.reader import pip_die_body

    pips = [pip_die_body(image, f) for f in find_pip_faces(image) if f.confidence >= UNSURE_BELOW]
    return pips + [b for b in find_die_bodies(image) if not b.cut]


def as_read(box: tuple[int, int, int, int], boxes: list[tuple[int, int, int, int]]) -> tuple[int, int, int, int]:
    """A labelled die box (x, y, w, h px) that holds only part of its die, framed as the reader
    frames that die: a reader's box (reader_bodies) of the same die at least PART_OF_DIE times its
    area (each box holds the other's centre, and SAME_DIE_OVERLAP of the labelled box lies in
    it), the one sharing most of
    the labelled box when several do; else the labelled box as it is. A set learns the crops it
    will be asked to read: matteop65's boxes hold only the pips while `read` crops the whole die,
    so a set learned from the boxes as drawn met the dice at 0.7 times the scale it learned them
    at (46 % of the Valid dice unsure, 2.4 % when framed). A box round the whole die is kept: the
    reader may frame a die by a part of it (a pip face grown to the die), and a set learned from
    such boxes, or boxes moved by a few px, read synthetic logo d6 scenes worse (5 of 8 right
    against 6)."""
    area = box[2] * box[3]
    same = [b for b in boxes if holds(b, centre(box)) and holds(box, centre(b)) and b[2] * b[3] >= PART_OF_DIE * area
            and intersection(b, box) >= SAME_DIE_OVERLAP * area]
    return max(same, key=lambda b: (intersection(b, box), -b[2] * b[3])) if same else box


#: the least side (px) of a labelled die's box once framed as the reader frames that die (as_read): a die's crop
#: smaller than that holds nothing to learn
MIN_BOX_PX = 8


#: A labelled box that runs past its image's border (labelling tools round boxes out, and a die cut by the
#: border is boxed whole) is taken as its part inside the image when that is at least this share of its area
BOX_INSIDE = 0.5


def read_labels(labels_csv: Path, images_root: Path, keep: Callable[[dict], bool] | None = None
                ) -> list[LabelledCrop]:
    """Labelled crops from a labels.csv (columns image,die_type,value,x,y,w,h,colour, in any order; colour
    may be left out; header names are read without case, surrounding blanks or a UTF-8 byte-order mark, as
    spreadsheets write them). keep: optional filter on the row dict (its keys the lower-case column names).
    A box round part of a die (matteop65's round its pips: a 1's a few px across) is framed as the reader
    frames that die (as_read); a box run past the image's border, its part inside (BOX_INSIDE). Raises
    CalibrationError for a missing column, an unreadable image, a box mostly outside its image, or one under
    MIN_BOX_PX across that no die the reader finds holds (naming the row)."""
    labels_csv, images_root = Path(labels_csv), Path(images_root)
    try:
        with labels_csv.open(newline="", encoding="utf-8-sig") as fh:
            rows = [{(k or "").strip().lower(): v for k, v in row.items()} for row in csv.DictReader(fh)]
    except (OSError, UnicodeDecodeError) as exc:
        raise CalibrationError(f"cannot read {labels_csv}: {exc}") from exc
    need = {"image", "die_type", "value", "x", "y", "w", "h"}
    if not rows or not need <= set(rows[0]):
        raise CalibrationError(f"{labels_csv} must have a header image,die_type,value,x,y,w,h,colour "
                               "(colour may be left out) and at least one row")
    images: dict[str, np.ndarray] = {}
    framed: dict[str, tuple[list[DieBody], ViewEstimate]] = {}
    view: ViewEstimate | None  # None: a photo that is already a die crop, seen from above
    out = []
    for i, row in enumerate(rows, start=2):
        if keep is not None and not keep(row):
            continue
        where = f"{labels_csv}:{i}"
        face = parse_face(row["die_type"] or "", row["value"] or "", row.get("colour") or "", where)
        if not (row["image"] or "").strip():
            raise CalibrationError(f"{where}: empty image (give the photo's path relative to --images-root)")
        path = images_root / row["image"]
        if row["image"] not in images:
            img = cv2.imread(str(path), cv2.IMREAD_COLOR)
            if img is None:
                raise CalibrationError(f"{where}: cannot read image {path} (missing or not an image); "
                                       "check --images-root")
            images[row["image"]] = img
        img = images[row["image"]]
        box = [(row[k] or "").strip() for k in ("x", "y", "w", "h")]
        if all(box):
            try:
                x, y, w, h = (int(float(v)) for v in box)
            except ValueError:
                raise CalibrationError(f"{where}: box {','.join(box)} is not a number in every one of x,y,w,h "
                                       "(pixels)") from None
            H, W = img.shape[:2]
            x0, y0, x1, y1 = max(x, 0), max(y, 0), min(x + w, W), min(y + h, H)
            if w < 1 or h < 1 or x1 <= x0 or y1 <= y0 or (x1 - x0) * (y1 - y0) < BOX_INSIDE * w * h:
                raise CalibrationError(f"{where}: box {x},{y},{w},{h} is not inside the {W}x{H} image {path}")
            x, y, w, h = x0, y0, x1 - x0, y1 - y0  # a box run past the border, as labelling tools round them
            if row["image"] not in framed:
                bodies = reader_bodies(img)
                framed[row["image"]] = bodies, view_of_scene(img, [b.box for b in bodies])
            bodies, view = framed[row["image"]]
            # a box round the pips alone is framed first: a 1's pip may be boxed a few px across
            x, y, w, h = as_read((x, y, w, h), [b.box for b in bodies])
            if w < MIN_BOX_PX or h < MIN_BOX_PX:
                raise CalibrationError(f"{where}: box {x},{y},{w},{h} is under {MIN_BOX_PX} px across and no die the "
                                       f"reader finds in {path} holds it: box the whole die")
            crop = img[y:y + h, x:x + w]
            mask = None  # the standard reader finds the die in its crop
            group = f"{row['image']}#{x},{y}"
        elif any(box):
            raise CalibrationError(f"{where}: give all of x,y,w,h or none")
        else:
            found = find_die(img)
            # no die stands out: the photo is already a die crop, seen from above
            crop, mask, view = (img, None, None) if found is None else found
            group = row["image"]
        out.append(LabelledCrop(np.ascontiguousarray(crop), face, group, mask, view, f"{where} ({row['image']})"))
    if not out:
        raise CalibrationError(f"{labels_csv}: no labelled dice (after filtering)")
    return out


def photos_per_face(samples: list[LabelledCrop]) -> dict[FaceClass, int]:
    """How many photos (LabelledCrop.group) show each face class of samples."""
    photos: dict[FaceClass, set[str]] = {}
    for s in samples:
        photos.setdefault(s.face, set()).add(s.group)
    return {c: len(g) for c, g in photos.items()}


def learnable_colours(samples: list[LabelledCrop]) -> tuple[list[LabelledCrop], list[str]]:
    """samples as calibrate can learn them, and the face classes (keys, e.g. "d6:4@ivory") whose colour was
    dropped. labels.csv's colour column is free text about the die: a word there makes the face's colour part
    of its class (Throwing Stones' ruby and gold faces), and calibrate needs 2 photos of every class. When
    some face in some colour has fewer, but every face has 2 or more in its colours together, the faces are
    learned without colours (face_colour None: the reader still tells each die's body colour) and the
    short classes are returned, for the caller to say so; otherwise samples are returned as they are
    (with [] when no class is short; when a face is short in all its colours together, calibrate names it)."""
    short = sorted(c.key for c, n in photos_per_face(samples).items() if n < 2)
    if not short:
        return samples, []
    plain = [replace(s, face=replace(s.face, face_colour=None)) for s in samples]
    if any(n < 2 for n in photos_per_face(plain).values()):
        return samples, []
    return plain, short


#: the least crops of every face that `dicetower calibrate --from-log` learns from (its --shots): the guided
#: calibration's default photos per face
LOG_MIN_SHOTS = 3


@dataclass
class LogCrops:
    """What a roll log gives calibration (read_log): the labelled crops, the confirmed dice left out
    because their crop is gone or unreadable ("roll R die D: path"), and how many of the crops are
    labelled with a person's correction rather than the value read."""

    samples: list[LabelledCrop]
    unreadable: list[str]
    corrected: int = 0


def read_log(log_path: Path, min_shots: int = LOG_MIN_SHOTS) -> LogCrops:
    """Labelled crops from a roll log (audit.rolllog.RollLog, the service's SQLite file, opened read-only):
    every die a player confirmed, labelled with the face the audit counts (the value read, or the one it was
    corrected to) and cut from its frame as the service logged it (crops.die_crops: with the mask of the die
    and the view elevation it was read under, when logged). The log keeps
    values, not symbols: a set of symbol or logo faces is learned with --from-labels or guided. Dice of one
    roll share a photo (their fold in cross-validation). Sure readings nobody confirmed are not learned: no
    person vouched for them. Every face of each die type among the confirmed dice needs min_shots crops: a
    set that never saw a face would read it as another. Raises CalibrationError for no log at log_path or
    one that cannot be read, no confirmed die with a crop, or faces short of crops (each named with how
    many it has), saying how to get them."""
    from dicetower.audit.rolllog import LogError, RollLog, die_sides

    log_path = Path(log_path)
    try:
        with RollLog(log_path, readonly=True) as log:
            rolls = log.rolls()
    except LogError as exc:
        raise CalibrationError(str(exc)) from exc
    samples: list[LabelledCrop] = []
    unreadable: list[str] = []
    corrected = 0
    for roll in rolls:
        for die in roll["dice"]:
            if not die["confirmed"] or die["face"] is None or not die["crop_path"]:
                continue
            path = log_path.parent / die["crop_path"]
            where = f"roll {roll['roll_id']} die {die['die_index']}: {path}"
            try:
                logged = decode_crop(path.read_bytes())
            except (OSError, ValueError):
                unreadable.append(where)
                continue
            if min(logged.crop.shape[:2]) < 8:  # as read_labels refuses a box under 8 px
                unreadable.append(where)
                continue
            view = None if logged.elevation is None else ViewEstimate(logged.elevation)
            face = FaceClass(die["counted_type"], int(die["face"]))
            samples.append(LabelledCrop(logged.crop, face, f"roll {roll['roll_id']}", logged.mask, view,
                                        f"roll {roll['roll_id']} die {die['die_index']}"))
            corrected += die["corrected_type"] is not None or (die["corrected_value"] is not None
                                                               and die["corrected_value"] != die["value"])
    if not samples:
        raise CalibrationError(f"{log_path} holds no confirmed die with its crop"
                               + (f" ({len(unreadable)} crops unreadable)" if unreadable else "")
                               + ": roll with the tower service (which logs each die's crop) and confirm readings "
                               "on the panel, or calibrate with --from-labels or guided (--camera)")
    short = []
    for die_type in sorted({s.face.die_type for s in samples}):
        counts = {v: 0 for v in range(1, die_sides(die_type) + 1)}
        for s in samples:
            if s.face.die_type == die_type:
                counts[int(s.face.value or 0)] += 1
        short += [f"{die_type} face {v}: {n}" for v, n in counts.items() if n < min_shots]
    if short:
        raise CalibrationError(f"{log_path}: every face needs {min_shots} confirmed dice with their crops; short: "
                               + ", ".join(short)
                               + (f" ({len(unreadable)} crops unreadable)" if unreadable else "")
                               + ". Roll on and confirm those faces, or learn them with --from-labels or guided "
                               "(--camera)")
    return LogCrops(samples, unreadable, corrected)


@dataclass
class CalibrationReport:
    """Cross-validation of a calibration: accuracy over the held-out labelled crops, confusion
    matrix (rows = true class, columns = predicted, in `classes` order), folds used, the share of
    held-out crops that were unsure, and the accuracy over the sure ones (None when none was sure: no
    accuracy to give, not 0)."""

    classes: list[FaceClass]
    accuracy: float
    confusion: np.ndarray
    folds: int
    unsure_rate: float
    sure_accuracy: float | None
    n: int
    predictions: list[tuple[int, int, float]] = field(default_factory=list)  # (true, predicted, confidence)
    temperature: float = 1.0
    threshold: float = 0.5
    #: labelled dice both readers read as one other face (contradicted_labels): (where, as labelled, as read)
    contradicted: list[tuple[str, str, str]] = field(default_factory=list)

    def text(self) -> str:
        """The report as printed by `dicetower calibrate`."""
        keys = [c.key for c in self.classes]
        width = max(len(k) for k in keys)
        lines = [f"cross-validated accuracy: {self.accuracy:.3f} over {self.n} labelled dice ({self.folds} folds, "
                 f"grouped by photo); unsure {self.unsure_rate:.3f}, accuracy when sure {self.sure_accuracy_text}",
                 f"confidence: temperature {self.temperature:.4f}, a reading is sure when its face's probability "
                 f"is >= {self.threshold:.4f} (chosen so the cross-validated sure readings reach "
                 f"{SURE_TARGET:.1%})",
                 "confusion matrix (rows: true, columns: predicted):",
                 " " * width + " " + " ".join(f"{j:>3d}" for j in range(len(keys)))]
        for i, k in enumerate(keys):
            lines.append(f"{k:>{width}} " + " ".join(f"{v:>3d}" for v in self.confusion[i]) + f"   ({i})")
        if self.contradicted:
            lines.append(f"check these labels: {len(self.contradicted)} labelled dice read as the same other face by "
                         "both readers (the set's own, learned without the photo, and the standard reader): the label "
                         "may be wrong or the face hard to see; either counts as an error of each reader and can keep "
                         "their agreement from making readings sure (fix or drop the row and calibrate again):")
            lines += [f"  {photo}: labelled {labelled}, read {read}" for photo, labelled, read in self.contradicted]
        return "\n".join(lines)

    @property
    def sure_accuracy_text(self) -> str:
        """sure_accuracy to 3 decimals, or "n/a (none sure)"."""
        return "n/a (none sure)" if self.sure_accuracy is None else f"{self.sure_accuracy:.3f}"


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

    The cross-validated readings give: the numeral net's share of the mark scores (NET_SHARES,
    least log-loss once the temperatures and prior weight are fitted for each, fit_evidence; 0 and no
    net bank saved when the net is not built), the mark temperature (fit_temperature, labels smoothed by
    Laplace's rule: N right readings vouch for an error rate of 1/(N+2), not 0), the few-shot
    temperature of marks plus colour (smoothed likewise), whether the standard reader's prior helps
    and its weight (PRIOR_WEIGHTS, least log-loss; the prior keeps its own calibration, from the
    standard reader's held-out renders, and the reader's hit rate on the training photos,
    reader_recall), the threshold (choose_threshold), each face's floor (face_floors: a face
    confused in cross-validation is sure only above the confusion's probability) and whether the two
    readers agreeing makes a face sure (agreement_error); the labelled photos' standard readings give
    the faces the reader may vouch for (vouched_faces). A cross-validated reading its HOG and net
    descriptions read as different faces is unsure (FewShotModel.descriptions_agree) and, like one
    the reader does not back, sets no threshold. Raises CalibrationError when a face has fewer than 2 photos or
    the set has one face."""
    classes = sorted({s.face for s in samples}, key=lambda c: (c.die_type, c.value or 0, c.key))
    if len(classes) < 2:
        raise CalibrationError("a die set needs at least 2 different faces to tell apart")
    photos = photos_per_face(samples)
    few = [c.key for c, n in photos.items() if n < 2]
    if few:
        raise CalibrationError(f"faces with fewer than 2 labelled photos: {', '.join(few)}; label at least 2 "
                               "(3 to 5 is better) per face")
    k = max(2, min(folds, min(photos.values())))
    fold = np.array(_folds(samples, k))
    rng = np.random.default_rng(seed)
    n = len(classes)
    marks = _marks(classes)
    y_all = np.array([classes.index(s.face) for s in samples])
    reader, die_type, readings = _standard_readings(samples, classes)
    described = describe([s.crop for s in samples], rng, n_aug,
                         elevations=[s.elevation for s in samples])  # once: every fold learns from it
    nets = _net_descriptors(samples)
    parts: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []
    oof_y, oof_index, values_of, vouched_of, oof_readings = [], [], [], [], []
    for f in range(k):
        train = [i for i in range(len(samples)) if fold[i] != f]
        test = [i for i in range(len(samples)) if fold[i] == f]
        if not test:
            continue
        model = fit_described([described[i] for i in train], y_all[train], n, rng, marks=marks,
                              net=None if nets is None else nets[train])
        values = readable_values(classes, y_all[train], [readings[i] for i in train]) if reader else None
        vouched = vouched_faces(values, y_all[train], [readings[i] for i in train]) if values is not None else None
        recall = reader_recall(values, y_all[train], [readings[i] for i in train]) if values is not None else None
        for i in test:
            hog, net, colour, _ = model.mark_evidence(samples[i].crop, samples[i].mask, samples[i].elevation)
            prior = prior_loglik(readings[i], values, recall) if values is not None else np.zeros(n, np.float32)
            # the reading: readings[i]
            parts.append((hog, hog if net is None else net, model.colour_loglik(colour), prior))
            oof_y.append(y_all[i])
            oof_index.append(i)
            values_of.append(values)
            vouched_of.append(vouched)
            oof_readings.append(readings[i] if reader else None)
    y = np.array(oof_y)
    hog_s, net_s = np.array([p[0] for p in parts]), np.array([p[1] for p in parts])
    colour_s, prior_s = np.array([p[2] for p in parts]), np.array([p[3] for p in parts])
    fits = {share: fit_evidence((1 - share) * hog_s + share * net_s, colour_s, prior_s, y, marks,
                                PRIOR_WEIGHTS if reader else (0.0,))
            for share in (NET_SHARES if nets is not None else (0.0,))}
    net_share = min(fits, key=lambda a: (round(fits[a].log_loss, 6), a))
    mark_temperature, temperature, prior_weight = (fits[net_share].mark_temperature, fits[net_share].temperature,
                                                   fits[net_share].prior_weight)
    z_fewshot = fits[net_share].z_fewshot
    z = z_fewshot / temperature + prior_weight * prior_s
    proba = softmax(z)
    predicted = proba.argmax(axis=1)
    face_value = np.array([-1 if c.value is None else c.value for c in classes], np.int32)
    fewshot_pick = z_fewshot.argmax(axis=1)
    prior_value = readable_values(classes, y_all, readings) if reader else None  # what all the photos vouch for
    check = FewShotModel(np.zeros((0, 1)), np.zeros(0, np.int32), n, np.zeros(1), np.zeros((1, 1)), marks,
                         np.zeros((n, 4)), np.ones(4), prior_reader=reader, face_value=face_value,
                         net_share=net_share)
    alike = described_alike(check, z_fewshot, hog_s, net_s, oof_readings)  # the readings the agreement may make sure
    agreement = agreement_error(fewshot_pick[alike], y[alike], face_value, y_all, readings) \
        if prior_value is not None else 1.0
    check.agreement_sure = bool(agreement <= 1 - SURE_TARGET)
    backed = np.ones(len(y), bool)
    for i, (values, reading) in enumerate(zip(values_of, oof_readings)):
        check.prior_value = values
        backed[i] = check.backed(proba[i], reading) and check.descriptions_agree(proba[i], hog_s[i], net_s[i], reading)
    # the threshold from the readings the standard reader backs (the others are unsure whatever their p)
    threshold = choose_threshold(proba.max(axis=1)[backed], (proba.argmax(axis=1) == y)[backed]) \
        if backed.any() else 1.0
    check.threshold = threshold
    p_max = proba.max(axis=1)  # before corroboration: the floors are the few-shot's and the prior's
    for i, (values, vouched, reading) in enumerate(zip(values_of, vouched_of, oof_readings)):
        check.prior_value, check.vouched = values, vouched
        proba[i] = check.corroborated(proba[i], reading, int(fewshot_pick[i]))
        if not check.descriptions_agree(proba[i], hog_s[i], net_s[i], reading):  # as FewShotModel.proba flags it
            proba[i] = check.flagged(proba[i])
    floors = face_floors(y[backed], predicted[backed], p_max[backed], n)  # a mistake the reader caught counts not
    model = fit_described(described, y_all, n, rng, marks=marks, net=nets if net_share > 0 else None)
    model.net_share = net_share
    model.mark_temperature, model.fewshot_temperature, model.threshold = mark_temperature, temperature, threshold
    model.face_floor, model.face_value, model.agreement_sure = floors, face_value, check.agreement_sure
    model.elevations = (min(s.elevation for s in samples), max(s.elevation for s in samples))
    if prior_value is not None:
        model.prior_reader, model.die_type, model.prior_weight = reader, die_type, prior_weight
        model.prior_value = prior_value
        model.vouched = vouched_faces(model.prior_value, y_all, readings)
        model.prior_recall = reader_recall(model.prior_value, y_all, readings)
    ds = DieSet(name, classes, model)
    conf = np.zeros((n, n), int)
    preds = []
    for t, p in zip(y, proba):
        r = ds.result_from_proba(p)
        j = classes.index(FaceClass(r.die_type, r.value, tuple(r.symbols), r.face_colour))
        conf[t, j] += 1
        preds.append((int(t), j, r.confidence))
    correct = np.array([t == j for t, j, _ in preds])
    sure = np.array([c >= UNSURE_BELOW for _, _, c in preds])
    contradicted = contradicted_labels(fewshot_pick, y, face_value, oof_readings) if reader else np.zeros(len(y), bool)
    report = CalibrationReport(classes, float(correct.mean()), conf, k, float(1 - sure.mean()),
                               float(correct[sure].mean()) if sure.any() else None, len(preds), preds,
                               temperature, threshold,
                               [(samples[oof_index[i]].where or samples[oof_index[i]].group, classes[y[i]].key,
                                 classes[fewshot_pick[i]].key) for i in np.flatnonzero(contradicted)])
    prior_faces = ([classes[i].key for i in range(n) if model.prior_value[i] >= 0]
                   if model.prior_value is not None else [])
    sure_accuracy = None if report.sure_accuracy is None else round(report.sure_accuracy, 4)
    ds.meta = {"calibrated_from": len(samples), "cv_accuracy": round(report.accuracy, 4),
               "cv_unsure_rate": round(report.unsure_rate, 4), "cv_sure_accuracy": sure_accuracy,
               "folds": k, "augment": n_aug, "temperature": round(temperature, 5), "threshold": round(threshold, 5),
               "mark_temperature": round(mark_temperature, 5), "prior_reader": model.prior_reader,
               "prior_weight": prior_weight, "net_share": net_share, "faces_read_by_prior": prior_faces,
               "agreement_error": round(agreement, 6), "agreement_sure": check.agreement_sure,
               "contradicted_labels": len(report.contradicted),
               "view_elevations": [round(e, 1) for e in model.elevations],
               "face_floors": {classes[i].key: round(float(floors[i]), 4) for i in range(n) if floors[i] > 0}}
    ds.save(out_dir or user_data_dir() / "die_sets" / name)
    forget_die_set(name)
    return ds, report


#: weights of the standard reader's log-probabilities tried in cross-validation (0: no prior)
PRIOR_WEIGHTS = (0.0, 0.5, 1.0)
#: shares of the numeral net's mark scores in the mix with HOG's (FewShotModel.net_share) among which
#: calibrate() picks the one of least cross-validated log-loss (fit_evidence), per set
NET_SHARES = (0.0, 0.25, 0.5, 0.75, 1.0)


@dataclass
class EvidenceFit:
    """The confidence fitted on cross-validated evidence (fit_evidence): mark_temperature,
    temperature (of marks plus colour), prior_weight, z_fewshot (N x C: marks / mark_temperature +
    colour) and the log-loss (nats per reading) of the resulting probabilities."""

    mark_temperature: float
    temperature: float
    prior_weight: float
    z_fewshot: np.ndarray
    log_loss: float


def fit_evidence(mark_s: np.ndarray, colour_s: np.ndarray, prior_s: np.ndarray, y: np.ndarray, marks: np.ndarray,
                 prior_weights: tuple[float, ...]) -> EvidenceFit:
    """Temperatures and prior weight for cross-validated evidence: mark scores mark_s (N x M),
    colour log-likelihoods colour_s (N x C), prior log-likelihoods prior_s (N x C), true classes y
    (N,), marks (C,) mark index per class. The mark temperature, then that of marks plus colour
    (fit_temperature), then the prior weight among prior_weights of least log-loss (ties: the
    smaller)."""
    mark_temperature = fit_temperature(mark_s, marks[y])
    z_fewshot = mark_s[:, marks] / mark_temperature + colour_s
    temperature = fit_temperature(z_fewshot, y)

    def log_loss(w: float) -> float:
        return -float(np.mean(np.log(softmax(z_fewshot / temperature + w * prior_s)[np.arange(len(y)), y] + 1e-12)))

    weight = min(prior_weights, key=lambda w: (round(log_loss(w), 6), w))
    return EvidenceFit(mark_temperature, temperature, weight, z_fewshot, log_loss(weight))


def _net_descriptors(samples: list[LabelledCrop]) -> np.ndarray | None:
    """Net descriptors (N x E, fewshot.net_vectors) of the samples, None when the numeral net is not
    built (the set then learns HOG only)."""
    try:
        return net_vectors([s.crop for s in samples], [s.mask for s in samples], [s.elevation for s in samples])
    except FileNotFoundError:
        return None


def fit_temperature(logits: np.ndarray, y: np.ndarray) -> float:
    """Temperature T minimising the log-loss of softmax(logits / T) (N x C logits, y: N true class
    indices; Guo et al. 2017) against labels smoothed by Laplace's rule of succession: the true
    class 1 - 1/(N+2), the rest shared by the other classes (the mean of the error rate's
    posterior Beta(1, N + 1) after N right readings, choose_threshold's posterior). Without it,
    cross-validated readings that are all right drive T to 0 and every reading to certainty (a
    synthetic stone set learned from 3 photos per face then gave 2 sure wrong readings)."""
    from scipy.optimize import minimize_scalar

    n, c = logits.shape
    eps = 1.0 / (n + 2)
    target = np.full((n, c), eps / max(c - 1, 1))
    target[np.arange(n), y] = 1 - eps

    def loss(log_t: float) -> float:
        z = logits / np.exp(log_t)
        z = z - z.max(axis=1, keepdims=True)
        logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
        return -float(np.mean(np.sum(target * logp, axis=1)))

    return float(np.exp(minimize_scalar(loss, bounds=(-8, 3), method="bounded").x))


def face_floors(y: np.ndarray, predicted: np.ndarray, p_max: np.ndarray, n_classes: int) -> np.ndarray:
    """(C,) the probability a reading of each face must exceed to be sure, from the cross-validated
    readings (y true, predicted: N class indices, p_max (N,) the predicted class's probability;
    calibrate passes those the standard reader backs, since the reader catches the others at read
    time too): the highest p_max of a wrong reading of the face or taken for it, 0 for a face the
    cross-validation never confused: choose_threshold's "never down to a wrong reading", face by
    face. Measured against banning a confused face outright (calibration_eval, k=3/4/5, none sure
    wrong either way): fickett k=5 d4 0.793 -> 0.755 unsure, d12 0.546 -> 0.460, d20 0.848 -> 0.672;
    k=3 d4 0.748 -> 0.650, d12 0.793 -> 0.777, d20 0.865 -> 0.826; stone k=5 0.767 -> 0.733; the
    m65 pip set on Valid unchanged (3 of 125 unsure)."""
    floor = np.zeros(n_classes)
    for t, q, pm in zip(y, predicted, p_max):
        if t != q:
            floor[t], floor[q] = max(floor[t], float(pm)), max(floor[q], float(pm))
    return floor


def agreement_error(fewshot_pick: np.ndarray, y: np.ndarray, face_value: np.ndarray,
                    y_all: np.ndarray, readings: list[dict[int, float]]) -> float:
    """The rate (0..1) at which the few-shot evidence alone and the standard reader would both read
    a wrong face, from the set's labelled photos: the few-shot's cross-validated error rate (fewshot_
    pick: N' classes it read alone, out of fold, calibrate passes those whose descriptions agree,
    described_alike; y: N' true classes) times the reader's misread rate
    (readings: N standard_values of the labelled photos, y_all their classes; a misread is a value
    the reading names, fewshot.named_value, that is not the photo's face_value (C,): the namings
    FewShotModel.readers_agree trusts), each by Laplace's rule of succession, (e + 1) / (n + 2),
    the mean of its Beta posterior. The product holds when the two err independently (HOG marks
    against a numeral net or a pip counter, learned apart; calibration_eval checks it held out,
    none sure wrong); a set whose product is at most 1 - SURE_TARGET makes a face both name sure
    (FewShotModel.corroborated). A d6 needs 5 photos per face all read right by both: (1/32)^2 =
    0.00098; 3 or 4 give 0.0025, 0.0015; a d4 needs 8 (1/34^2). Its one "sure wrong" reading (session
    5) was fickett d6 tile #0168, labelled 2, which shows a 3 (read 3)."""
    e = int(np.count_nonzero(np.asarray(fewshot_pick) != np.asarray(y)))
    misread = 0
    for t, reading in zip(y_all, readings):
        v = named_value(reading)
        misread += int(v is not None and v != face_value[t])
    return float((e + 1) / (len(y) + 2) * (misread + 1) / (len(readings) + 2))


def contradicted_labels(fewshot_pick: np.ndarray, y: np.ndarray, face_value: np.ndarray,
                        readings: list[dict[int, float] | None]) -> np.ndarray:
    """(N,) bool: the cross-validated labelled dice whose label both readers contradict alike: the
    few-shot evidence alone (fewshot_pick: N classes it read out of fold, learned without the photo)
    reads a face of another value than the label's (y: N true classes; face_value: (C,) each class's
    value, -1 for a face of no value), and the standard reader names that face's value (readings: the
    N photos' standard_values, None where there is none; fewshot.named_value). Two readers that err
    independently (agreement_error's premise) seldom name the same wrong face, so such a die is most
    likely labelled wrong (fickett's d6 tile #0168, labelled 2, shows a 3), or the two err together
    there: either way agreement_error counts it as an error of each, and the label is worth a look
    (`dicetower calibrate` lists them)."""
    out = np.zeros(len(y), bool)
    for i, (pick, true, reading) in enumerate(zip(fewshot_pick, y, readings)):
        value = int(face_value[pick])
        out[i] = reading is not None and value >= 0 and value != int(face_value[true]) \
            and named_value(reading) == value
    return out


def described_alike(model: FewShotModel, z_fewshot: np.ndarray, hog_s: np.ndarray, net_s: np.ndarray,
                    readings: list[dict[int, float] | None] | None = None) -> np.ndarray:
    """(N,) bool: whether the up face's two descriptions agree on each cross-validated few-shot
    reading (FewShotModel.descriptions_agree on the pick of z_fewshot (N x C, marks and colour),
    HOG's mark scores hog_s (N x M), the net's net_s (N x M) and the standard reader's readings (N
    standard_values or None; None: no reading); all True for a set of one description, net_share 0 or
    1). Only such readings can be made sure by the two readers' agreement
    (FewShotModel.proba flags the others whatever the readers say), so the few-shot's error rate in
    agreement_error is counted over them: a reading its descriptions split on is an error the
    agreement could never have made sure. Measured (calibration_eval, session 13): fickett d20 k=5
    seed 7, 3 of 100 cross-validated readings wrong, 1 of the 93 described alike: agreement_error
    0.00115 -> 0.00062, the agreement on (unsure 0.578 -> 0.495), none sure wrong."""
    readings = readings if readings is not None else [None] * len(z_fewshot)
    return np.array([model.descriptions_agree(z, h, e, r) for z, h, e, r in zip(z_fewshot, hog_s, net_s, readings)],
                    bool)


def vouched_faces(prior_value: np.ndarray, y: np.ndarray, readings: list[dict[int, float]]) -> np.ndarray:
    """(C,) bool: the faces the standard reader may vouch for (FewShotModel.corroborated), from its
    readings of labelled photos (prior_value: (C,) readable_values; y: N class indices; readings: N
    standard_values; the reader learned nothing from them): a face is not vouched for when the
    reader was sure (reader_support >= UNSURE_BELOW) of it on a photo of another value, or sure of
    another value on one of its photos."""
    ok = np.ones(len(prior_value), bool)
    for t, reading in zip(y, readings):
        for j in range(len(prior_value)):
            if prior_value[j] != prior_value[t] and reader_support(prior_value, j, reading) >= UNSURE_BELOW:
                ok[j] = ok[t] = False
    return ok


def reader_recall(prior_value: np.ndarray, y: np.ndarray, readings: list[dict[int, float]]) -> np.ndarray:
    """(C,) how often the standard reader reads each class as its value (fewshot.prior_loglik), from
    its readings of labelled photos (prior_value: (C,) readable_values; y: N class indices; readings:
    N standard_values): one rate for every face it reads, (hits + 1) / (n + 2) over the n photos of
    those faces, a hit being the photo's own value read (fewshot.reading_value), by Laplace's rule of
    succession (the mean of the hit rate's posterior Beta(hits + 1, n - hits + 1), uniform prior).
    The rate is the reader's on this set (its font, colours, light), pooled over its faces: 5
    photos of one face alone vouch for no better than 6/7 (a rate per face, in every reading, took
    fickett d6 k=5 from 34.5 to 43.7 % unsure, Alkemy k=5 from 73 to 99 %). 1.0 for a class it
    cannot read."""
    out = np.ones(len(prior_value), np.float32)
    read = [i for i in range(len(y)) if prior_value[y[i]] >= 0]
    if read:
        hits = sum(1 for i in read if reading_value(readings[i], prior_value) == prior_value[y[i]])
        out[prior_value >= 0] = (hits + 1) / (len(read) + 2)
    return out


def _marks(classes: list[FaceClass]) -> np.ndarray:
    """(C,) mark index of each class: its die type, value and symbols (the face's marks, whatever
    its colour: Alkemy's white, yellow and red 3 share their photos' marks)."""
    keys = sorted({(c.die_type, c.value or 0, c.symbols) for c in classes})
    return np.array([keys.index((c.die_type, c.value or 0, c.symbols)) for c in classes], np.int32)


def _standard_readings(samples: list[LabelledCrop], classes: list[FaceClass]
                       ) -> tuple[str, str, list[dict[int, float]]]:
    """The standard reader that reads the most labelled photos as their value: ("numerals" or
    "pips", die type, its reading of every sample), or ("", "", []) when the set mixes die types,
    its die type has no standard reader, the numeral net is not built, or no face is read."""
    die_types = {c.die_type for c in classes}
    if len(die_types) != 1:
        return "", "", []
    die_type = die_types.pop()
    candidates = standard_readers(die_type)
    best: tuple[int, str, list[dict[int, float]]] = (0, "", [])
    y = np.array([classes.index(s.face) for s in samples])
    for reader in candidates:
        try:
            readings = [standard_values(s.crop, die_type, reader, s.mask, s.elevation) for s in samples]
        except FileNotFoundError:
            continue
        values = readable_values(classes, y, readings)
        agree = sum(1 for i in range(len(samples)) if values[y[i]] >= 0)
        if agree > best[0]:
            best = (agree, reader, readings)
    return (best[1], die_type, best[2]) if best[1] else ("", "", [])


def standard_readers(die_type: str) -> list[str]:
    """The standard readers (fewshot.standard_values' names) that read a die type: "numerals" for the
    numeral net's d4..d20 (numerals.DIE_FACES), and "pips" too for a d6; [] for any other type."""
    from dicetower.vision.numerals import DIE_FACES

    return (["numerals"] if die_type in DIE_FACES else []) + (["pips"] if die_type == "d6" else [])


def readable_values(classes: list[FaceClass], y: np.ndarray, readings: list[dict[int, float]]) -> np.ndarray:
    """(C,) the value a standard reader reads for each of the C classes, -1 for a face it cannot read;
    y: N class indices of the labelled photos, readings: their N standard_values.
    A face (a value without symbols) is readable when the reader names its value (fewshot.named_value:
    its most probable value, well ahead of the others) in at least two thirds of its labelled photos,
    and no photo of a face with another value (or symbols) is named as that value. Until ebe1b32 the
    reader had to read the value at probability >= 0.5: with the 24-epoch numeral net, whose
    temperature is higher (train_numerals.cautious_temperature), that left fickett d8 k=5 with no
    readable face and 69 % of its held-out readings unsure, 21 % with namings (calibration_eval)."""
    out = np.full(len(classes), -1, np.int32)
    named = [named_value(r) for r in readings]
    for j, c in enumerate(classes):
        if c.value is None or c.symbols:
            continue
        mine = [named[i] for i in range(len(y)) if y[i] == j]
        hits = sum(1 for v in mine if v == c.value)
        taken = any(named[i] == c.value for i in range(len(y))
                    if classes[y[i]].value != c.value or classes[y[i]].symbols)
        if mine and hits >= 2 * len(mine) / 3 and not taken:
            out[j] = c.value
    return out


def choose_threshold(p_max: np.ndarray, correct: np.ndarray, target: float = SURE_TARGET) -> float:
    """The set's confidence threshold from its cross-validated readings: p_max (N,) the
    probability of each held-out reading's face, correct (N,) bool. A candidate threshold t (one of
    the readings' p) gives as sure the n readings at p >= t (ties included), e of them wrong; it is
    allowed when their error rate e / n is at most 1 - target, counting down from the most
    confident reading, and t is at least 1 - 1 / (N + 2): the accuracy the rule of succession
    gives N readings all right (the mean of the error rate's posterior Beta(1, N + 1), uniform
    prior, Laplace 1812; the target fit_temperature fits the temperatures to), so a reading is sure
    only when it claims more than a set with a perfect cross-validation could vouch for: 18
    readings give 0.95. The threshold is the lowest allowed t (never below MIN_THRESHOLD); 1.0
    (nothing sure) when none is allowed (the most confident reading is wrong).
    Looser floors were measured and gave sure wrong readings on real dice (calibration_eval,
    fickett): the median accuracy Beta(e + 1, n - e + 1) gives the readings sure at t (a fickett
    d12 learned from 4 tiles per face: a 2 read as a sure 8 at 0.974), its 95 % lower bound
    (fickett d4 and d12 at k = 3 and 5: 1-3 each)."""
    order = np.argsort(-p_max, kind="stable")
    p_sorted, wrong = p_max[order], ~correct[order].astype(bool)
    n = np.searchsorted(-p_sorted, -p_sorted, side="right")  # readings at p >= each one's (ties too)
    e = np.cumsum(wrong)[n - 1]
    within = np.cumprod(e / n <= 1 - target).astype(bool)  # the run of most confident readings on target
    vouched = p_sorted >= 1 - 1 / (len(p_sorted) + 2)
    allowed = np.nonzero(within & vouched)[0]
    return max(MIN_THRESHOLD, float(p_sorted[allowed[-1]])) if allowed.size else 1.0


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
    (a camera.Frame), find the die as the reader sees it (find_die), and show progress;
    when every face has its shots, calibrate() and return (set, report).
    A frame with no die is not counted: the player is asked again (at most 3 times per shot,
    then CalibrationError). A die the standard reader reads as another value of its die
    (misplaced_value: the player set another face up) is named, and the player answers: Enter keeps the
    shot as the face asked for (the reader may be wrong, and a replayed shot stays in step with its
    face), "r" sets the die again and retakes it (one of the 3 tries). camera: ReplayCamera / LiveCamera
    of dicetower.vision.camera."""
    samples: list[LabelledCrop] = []
    total = len(faces) * shots_per_face
    for face in faces:
        label = face.key
        shown = label.split(':', 1)[1]
        for shot in range(shots_per_face):
            for attempt in range(3):
                ask(f"Set the {face.die_type} in the tray showing {shown} "
                    f"(shot {shot + 1}/{shots_per_face}), then press Enter")
                frame = camera.read()
                found = find_die(frame.image)
                if found is None:
                    say(f"no die found in {frame.source}: put the die in the middle of the tray")
                    continue
                other = misplaced_value(found, face)
                if other is not None:
                    answer = ask(f"the die reads {other} in {frame.source}, not {shown}: press Enter to learn it as "
                                 f"{shown} all the same, or type r and Enter to set it showing {shown} again")
                    if isinstance(answer, str) and answer.strip().lower() == "r":
                        continue
                samples.append(LabelledCrop(found[0], face, f"{frame.source}#{len(samples)}", *found[1:]))
                say(f"[{len(samples)}/{total}] learned {label} from {frame.source}")
                break
            else:
                raise CalibrationError(f"no shot of {label} taken after 3 tries; check the camera, the light and "
                                       "which face is up")
    say("every face learned; training")
    return calibrate(samples, name, out_dir=out_dir)


def misplaced_value(found: Found, face: FaceClass) -> int | None:
    """The value of another face that the standard readers name on a die set in the tray for `face`
    (found: find_die's crop, mask and view): a player who set the wrong face up. The numeral net (d4..d20)
    and, for a d6, the pip reader each read the die (fewshot.standard_values, named by fewshot.named_value);
    None when neither names another value of the die, either names the face's own, the face bears no
    plain value (a logo, symbols: the standard readers do not know it) or no reader is built. Measured on
    faces set right (every 3rd fickett main-cluster tile, every realdice photo): another value named on
    d4 0 of 138, d6 1 of 68, d8 3 of 91, d12 2 of 136, d20 9 of 227, realdice 5 of 159 (the player keeps
    such a shot with Enter or OK)."""
    if face.value is None or face.symbols:
        return None
    crop, mask, view = found
    named: set[int] = set()
    for reader in standard_readers(face.die_type):
        try:
            value = named_value(standard_values(crop, face.die_type, reader, mask, view.elevation))
        except FileNotFoundError:  # the numeral net is not built (`make models`)
            continue
        if value is not None:
            named.add(value)
    if face.value in named or not named:
        return None
    return min(named)
