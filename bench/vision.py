"""Vision figures for `make bench`: per source in ../shared/datasets the reader supports, detection
recall and precision, value accuracy over detected dice, per-die accuracy, unsure rate, accuracy of the
readings given as sure, and ms per image (median, p95), through the code path of `dicetower read`
(dicetower.vision.cli.read_image_file). fickett_poly_tiles holds montages of 90x90 one-die tiles: each
tile is cut out by its labels.csv box, the white overlay text the montages print over its upper part is
painted out (faces_eval.remove_overlay: it is an artefact of the montage, not of a photo), and the
tile is saved as its own image first (here only, never in the reader), so each tile is read as a
one-die photo. A photo labelled without a box but with a body colour
(realdice_d20) counts its die as detected only when a die of that colour is read (scoring.match): a
box mostly of floor is no detection. Such a source also gets a tight-box rate (tight_box): the share of
its photos whose die is found with a box of IoU >= 0.5 (the PASCAL VOC criterion) with the reference
box, the bounding box of the largest region of the labelled colour (colour.colour_mask, gaps closed
by a 7 px disc): the die is the only thing of its colour in those photos (realdice: the one blue d20).
Six rows below matteop65 read its photos in ways a camera may show them that the set does not: turned
(turned_photos), close up (close_ups), small, four photos at half size to a frame (small_dice), shrunk, a
camera farther away (shrunk_photos), grainy, a cheap sensor in dim light (grainy_photos), and glossy dice
under a lamp, a glint on each die (glinted_photos). Below a
numbered source labelled with values, "given its die types" reads it again as a table that names the dice
it throws would (`[roll] die_types`, `dicetower read --die-types`): each image told its labelled types; its
unsure dice read wrong are then set right on the panel, and the row below gives the mean presses that takes
(correction_presses): with the reader's next guesses offered first, as the service offers them, and in
number order alone."""

from __future__ import annotations

import math
import statistics
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

from dicetower import paths
from dicetower.readings import DieReading
from dicetower.service.roll import Correction
from dicetower.service.tower import correction_faces
from dicetower.vision.boxes import iou
from dicetower.vision.camera import load_image
from dicetower.vision.colour import HUE_NAMES, colour_mask
from dicetower.vision.faces_eval import remove_overlay
from dicetower.vision.cli import read_image_file
from dicetower.vision.reader import DiceReader
from dicetower.vision.second_core import SECOND_PROCESS
from dicetower.vision.scoring import DIE_OF_PIP_BOX, close_up, load_labels, match
from dicetower.vision.synth import draw_glint

#: Sources and whether they need the numbered-dice classifier (faces.py with `make models`).
SOURCES = [("matteop65_table_d6", False), ("realdice_d20", True), ("lurig_dietype", True),
           ("fickett_poly_tiles", True)]
#: Sources whose photos are montages of one-die tiles (labels.csv boxes are the tiles).
TILED = {"fickett_poly_tiles"}

#: How long (s) the bench waits for the reader's second process to load before timing.
SECOND_PROCESS_LOAD_S = 60.0


def labelled_images(folder: Path, tiles_dir: Path | None, only: str = "") -> Iterator[tuple[str, list[dict[str, str]]]]:
    """(image path, its labels.csv rows) per image of a dataset folder whose path holds `only`. With
    tiles_dir, each labelled box is cut from its montage, its overlay text painted out, and saved
    there as its own PNG, whose one label then boxes the whole tile."""
    for image, labels in sorted(load_labels(folder).items()):
        if only not in image:
            continue
        if tiles_dir is None:
            yield str(folder / image), labels
            continue
        montage = load_image(folder / image)
        for k, lab in enumerate(labels):
            x, y, w, h = (int(lab[c]) for c in ("x", "y", "w", "h"))
            path = tiles_dir / f"{Path(image).stem}_{k:04d}.png"
            cv2.imwrite(str(path), remove_overlay(montage[y:y + h, x:x + w]))
            yield str(path), [dict(lab, image=path.name, x="0", y="0")]


def bench_source(name: str, reader: DiceReader, type_only: bool = False, only: str = "",
                 given_types: bool = False) -> dict[str, float]:
    """Figures for one dataset folder (see the module docstring), over the images whose path holds
    `only` (all when empty). given_types: each image is read as at a table that names the dice it throws
    (DiceReader's die_types: the die types labelled in that image), by a reader made once per set of types."""
    folder = paths.shared_dir() / "datasets" / name
    readers: dict[frozenset[str], DiceReader] = {}

    def typed(labels: list[dict[str, str]]) -> DiceReader:
        types = frozenset(lab["die_type"] for lab in labels)
        if types not in readers:
            readers[types] = DiceReader(die_types=types)
        return readers[types]

    with tempfile.TemporaryDirectory() as tmp:
        return _figures(reader, labelled_images(folder, Path(tmp) if name in TILED else None, only), type_only,
                        typed if given_types else None)


def reference_box(image: np.ndarray, colour: str) -> tuple[int, int, int, int] | None:
    """The bounding box (x, y, w, h px) of the largest region of a chromatic colour in image (HxWx3
    uint8 BGR), gaps closed by a 7 px disc; None when the colour is absent."""
    se = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (7, 7))
    mask = cv2.morphologyEx(colour_mask(image, colour).astype(np.uint8) * 255, cv2.MORPH_CLOSE, se)
    n, _, stats, _ = cv2.connectedComponentsWithStats(mask)
    if n < 2:
        return None
    k = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    return tuple(int(v) for v in stats[k, :4])  # type: ignore[return-value]


def correction_presses(die: dict, label: dict[str, str], die_types: tuple[str, ...]) -> tuple[int, int] | None:
    """Panel presses (OK up / NO down, the shorter way round) from the face read to the labelled face when
    a person sets an unsure die right (service.tower.correction_faces, the table throwing die_types): with
    the reader's next guesses offered first, and in number order alone (the same reading without them).
    die: a `read --json` die; label: its labels.csv row. None when the labelled face is not among those the
    panel offers (a type not thrown) or the label has no value."""
    if not label.get("value", "").isdigit():
        return None
    reading = DieReading.from_json(die)
    truth = Correction(label["die_type"], int(label["value"]))
    counts = []
    for faces in (correction_faces(reading, die_types), correction_faces(replace(reading, alternatives=[]), die_types)):
        if truth not in faces:
            return None
        k = faces.index(truth)
        counts.append(min(k, len(faces) - k))
    return counts[0], counts[1]


def _figures(reader: DiceReader, images: Iterator[tuple[str, list[dict[str, str]]]], type_only: bool,
             reader_for: Callable[[list[dict[str, str]]], DiceReader] | None = None) -> dict[str, float]:
    """bench_source's figures over (image path, labels) pairs, each image read by reader, or by
    reader_for(its labels) when given; with reader_for, also the mean panel presses to set its unsure dice
    read wrong right (presses, presses_in_order: correction_presses) and how many (corrected)."""
    labelled = detected = correct = n_dice = unsure = sure = sure_correct = boxed = tight = 0
    chromatic = {n for _, n in HUE_NAMES}
    ms: list[float] = []
    presses: list[tuple[int, int]] = []
    for image, labels in images:
        result = read_image_file(reader if reader_for is None else reader_for(labels), image)
        if "error" in result:
            print(f"  {image}: {result['error']}")
            continue
        ms.append(result["ms"])
        pairs = match(labels, result["dice"])  # labels of dice cut by the frame's edge (cut="1") come last
        ignored = {id(die) for lab, die in pairs if lab.get("cut") and die is not None}
        dice = [d for d in result["dice"] if id(d) not in ignored]  # a cut die read: neither found nor false
        n_dice += len(dice)
        unsure += sum(d["unsure"] for d in dice)
        for lab, die in pairs:
            if lab.get("cut"):
                continue
            labelled += 1
            if not lab["x"] and lab["colour"] in chromatic:
                ref = reference_box(load_image(image), lab["colour"])
                boxed += 1
                tight += die is not None and ref is not None and iou(die["box"], ref) >= 0.5
            if die is None:
                continue
            detected += 1
            ok = die["die_type"] == lab["die_type"] and (type_only or str(die["value"]) == lab["value"])
            correct += ok
            if not die["unsure"]:
                sure += 1
                sure_correct += ok
            elif not ok and not type_only and reader_for is not None:
                counted = correction_presses(die, lab, tuple(sorted({la["die_type"] for la in labels})))
                presses += [counted] if counted is not None else []
    ms_sorted = sorted(ms)
    return {
        "images": len(ms), "labelled": labelled,
        "recall": detected / max(labelled, 1), "precision": detected / max(n_dice, 1),
        "value_acc": correct / max(detected, 1), "per_die_acc": correct / max(labelled, 1),
        "unsure_rate": unsure / max(n_dice, 1), "sure_acc": sure_correct / max(sure, 1),
        "tight_box": tight / boxed if boxed else float("nan"),
        "ms_median": statistics.median(ms) if ms else float("nan"),
        "ms_p95": ms_sorted[min(len(ms_sorted) - 1, int(0.95 * len(ms_sorted)))] if ms else float("nan"),
        "corrected": len(presses),
        "presses": statistics.mean(p for p, _ in presses) if presses else float("nan"),
        "presses_in_order": statistics.mean(p for _, p in presses) if presses else float("nan"),
    }


def main() -> int:
    """Print the figures per source; return 0 (figures, not a pass/fail test)."""
    datasets = paths.shared_dir() / "datasets"
    if not datasets.is_dir():
        print(f"no datasets at {datasets}: set DICETOWER_SHARED or put the shared folder beside the repo")
        return 0
    reader = DiceReader()
    # timed as the tower service reads, a long-running process: its second process started and loaded
    # (a reader starts it at its second frame and reads alone until it is ready, about a second)
    if not SECOND_PROCESS.wait_ready(SECOND_PROCESS_LOAD_S):
        print("the reader's second process did not start: every frame read in one process (slower)")
    print("source                    imgs  dice  recall  precis  val_acc  per_die  unsure  sure_acc  ms_med  ms_p95  tight")
    rows = [(name, numbered, "") for name, numbered in SOURCES]
    rows.insert(1, ("matteop65_table_d6", False, "/Valid/"))  # the upstream validation split alone
    for name, numbered, only in rows:
        if not (datasets / name).is_dir():
            continue
        label = name + (" Valid" if only else "")
        if numbered and not reader.reads_numbered:
            print(f"{label:<25} skipped: needs the numbered-dice models (`make models`)")
            continue
        f = bench_source(name, reader, type_only=name == "lurig_dietype", only=only)
        print(f"{label:<25} {f['images']:>4} {f['labelled']:>5}  {f['recall']:.4f}  {f['precision']:.4f}  "
              f"{f['value_acc']:.4f}   {f['per_die_acc']:.4f}  {f['unsure_rate']:.4f}  {f['sure_acc']:.4f}  "
              f"{f['ms_median']:6.1f}  {f['ms_p95']:6.1f}  " + ("" if math.isnan(f["tight_box"]) else f"{f['tight_box']:.3f}"))
        if numbered and name != "lurig_dietype":  # lurig labels the type alone: given it, nothing is left to read
            f = bench_source(name, reader, given_types=True)
            print(f"{'  given its die types':<25} {f['images']:>4} {f['labelled']:>5}  {f['recall']:.4f}  "
                  f"{f['precision']:.4f}  {f['value_acc']:.4f}   {f['per_die_acc']:.4f}  {f['unsure_rate']:.4f}  "
                  f"{f['sure_acc']:.4f}  {f['ms_median']:6.1f}  {f['ms_p95']:6.1f}")
            print(f"{'    set right on the panel':<25} {f['corrected']} unsure dice read wrong: {f['presses']:.2f} "
                  f"presses each with the reader's next guesses first, {f['presses_in_order']:.2f} in number order")
        if name == "matteop65_table_d6" and not only:
            for label, images in (("  turned 90/180/270", turned_photos), ("  close-ups 0.3-0.7", close_ups),
                                  ("  small dice, 4 a frame", small_dice), ("  shrunk 0.8/0.65/0.5", shrunk_photos),
                                  ("  grainy, noise 6/12", grainy_photos),
                                  ("  a glint on each die", glinted_photos)):
                with tempfile.TemporaryDirectory() as tmp:
                    f = _figures(reader, images(datasets / name, Path(tmp)), False)
                print(f"{label:<25} {f['images']:>4} {f['labelled']:>5}  {f['recall']:.4f}  {f['precision']:.4f}  "
                      f"{f['value_acc']:.4f}   {f['per_die_acc']:.4f}  {f['unsure_rate']:.4f}  {f['sure_acc']:.4f}  "
                      f"{f['ms_median']:6.1f}  {f['ms_p95']:6.1f}")
    bench_12mp(reader)
    return 0


#: cv2.rotate codes and how each turns a box (x, y, w, h) of a W x H image
TURNS = {
    cv2.ROTATE_90_CLOCKWISE: lambda b, W, H: (H - b[1] - b[3], b[0], b[3], b[2]),
    cv2.ROTATE_180: lambda b, W, H: (W - b[0] - b[2], H - b[1] - b[3], b[2], b[3]),
    cv2.ROTATE_90_COUNTERCLOCKWISE: lambda b, W, H: (b[1], W - b[0] - b[2], b[3], b[2]),
}


def turned_photos(folder: Path, out: Path, step: int = 8) -> Iterator[tuple[str, list[dict[str, str]]]]:
    """Every step-th photo of a boxed set turned by 90, 180 and 270 degrees (a camera mounted on its
    side, a phone photo whose EXIF turn was lost), its label boxes turned with it, saved in out (PNG)."""
    for k, (image, labels) in enumerate(sorted(load_labels(folder).items())[::step]):
        img = load_image(folder / image)
        H, W = img.shape[:2]
        for code, turn in TURNS.items():
            path = out / f"{k:04d}_{code}.png"
            cv2.imwrite(str(path), cv2.rotate(img, code))
            yield str(path), [dict(lab, **dict(zip("xywh", map(str, turn(tuple(int(lab[c]) for c in "xywh"), W, H)))))
                              for lab in labels]


#: sizes of a close-up's die as fractions of the frame's height (scoring.close_up); at 0.4 its pips are about as wide
#: as the pip filter at the analysis scale (17-25 px), where a die is read at either scale or between them
CLOSE_UP_FRACS = (0.3, 0.4, 0.5, 0.7)


def close_ups(folder: Path, out: Path, step: int = 20) -> Iterator[tuple[str, list[dict[str, str]]]]:
    """Close-ups (a phone held near the dice) made from every step-th labelled die of a boxed set: at each
    of CLOSE_UP_FRACS, 640x480 (scoring.close_up), saved in out (PNG). Labelled: the dice whose whole lies in the
    crop. A die cut by the crop's edge may be read or not: it is labelled with cut="1" (its box the part of its
    die's box in the frame), and a die read there counts neither as found nor as false (_figures)."""
    by_image = load_labels(folder)
    rows = [(image, lab) for image, labels in sorted(by_image.items()) for lab in labels][::step]
    for k, (image, lab) in enumerate(rows):
        img = load_image(folder / image)
        x, y, w, h = (int(lab[c]) for c in "xywh")
        for frac in CLOSE_UP_FRACS:
            try:
                frame, (x0, y0, f) = close_up(img, (x, y, w, h), frac)
            except ValueError:
                continue  # the die is too large in the photo for a crop this wide
            path = out / f"{k:04d}_{frac}.png"
            cv2.imwrite(str(path), frame)
            cw, ch = 640 / f, 480 / f
            inside, cut = [], []
            for other in by_image[image]:
                b = [int(other[c]) for c in "xywh"]
                m = (DIE_OF_PIP_BOX - 1) / 2 * max(b[2:])
                if b[0] - m >= x0 and b[1] - m >= y0 and b[0] + b[2] + m <= x0 + cw and b[1] + b[3] + m <= y0 + ch:
                    inside.append(dict(other, x=str(int((b[0] - x0) * f)), y=str(int((b[1] - y0) * f)),
                                       w=str(int(b[2] * f)), h=str(int(b[3] * f))))
                elif b[0] + b[2] + m > x0 and b[1] + b[3] + m > y0 and b[0] - m < x0 + cw and b[1] - m < y0 + ch:
                    # the part of this die's box (its pips' box grown to the die) inside the crop
                    bx0, by0 = max(b[0] - m, x0), max(b[1] - m, y0)
                    bx1, by1 = min(b[0] + b[2] + m, x0 + cw), min(b[1] + b[3] + m, y0 + ch)
                    cut.append(dict(other, x=str(int((bx0 - x0) * f)), y=str(int((by0 - y0) * f)),
                                    w=str(int((bx1 - bx0) * f)), h=str(int((by1 - by0) * f)), cut="1"))
            yield str(path), inside + cut


def small_dice(folder: Path, out: Path, step: int = 2) -> Iterator[tuple[str, list[dict[str, str]]]]:
    """Small dice in a webcam frame (a camera high over a wide tray: dice ~20 px, pips ~3 px): every
    step-th photo of a boxed set of 640x480 photos (matteop65) at half size, four to a 640x480 frame
    (four_to_a_frame, in name order), saved in out (PNG)."""
    photos = sorted(load_labels(folder).items())[::step]
    for k in range(0, len(photos) - 3, 4):
        frame, labels = four_to_a_frame(folder, photos[k:k + 4], 0.5)
        path = out / f"{k:04d}_small.png"
        cv2.imwrite(str(path), frame)
        yield str(path), labels


#: sizes of shrunk_photos' photos, as fractions of the photo's size
SHRINK_SCALES = (0.8, 0.65, 0.5)


def shrunk_photos(folder: Path, out: Path, step: int = 3) -> Iterator[tuple[str, list[dict[str, str]]]]:
    """Every step-th photo of a boxed set at each of SHRINK_SCALES of its size (shrunk: a camera farther from
    the table; matteop65's pips ~3-5 px), saved in out (PNG)."""
    for k, (image, labels) in enumerate(sorted(load_labels(folder).items())[::step]):
        img = load_image(folder / image)
        for scale in SHRINK_SCALES:
            frame, rows = shrunk(img, labels, scale)
            path = out / f"{k:04d}_{scale}.png"
            cv2.imwrite(str(path), frame)
            yield str(path), rows


#: standard deviations (grey levels, each channel) of the white Gaussian noise grainy_photos adds
GRAIN_SIGMAS = (6.0, 12.0)
#: least and most sigma of the glint glinted_photos draws on each die, a fraction of its box's longer side
GLINT_SIGMAS = (0.08, 0.25)


def grainy_photos(folder: Path, out: Path, step: int = 3) -> Iterator[tuple[str, list[dict[str, str]]]]:
    """Every step-th photo of a boxed set with white Gaussian noise of each of GRAIN_SIGMAS added to every
    channel (a cheap camera's sensor in a dim tower; seeded by the photo's place, so every run adds the same
    grain), saved in out (PNG)."""
    for k, (image, labels) in enumerate(sorted(load_labels(folder).items())[::step]):
        img = load_image(folder / image)
        for j, sigma in enumerate(GRAIN_SIGMAS):
            grain = np.random.default_rng([k, j]).normal(0.0, sigma, img.shape)
            path = out / f"{k:04d}_{sigma:g}.png"
            cv2.imwrite(str(path), np.clip(img + grain, 0, 255).astype(np.uint8))
            yield str(path), labels


def glinted_photos(folder: Path, out: Path, step: int = 3) -> Iterator[tuple[str, list[dict[str, str]]]]:
    """Every step-th photo of a boxed set with a lamp's glint on each labelled die, as glossy dice under a lamp
    show one (vision.glints): a round spot, sigma GLINT_SIGMAS of the box's longer side, at a random place in the
    box (matteop65's boxes hold a die's pips: the glint falls on them or beside them), white at its core past the
    camera's ceiling (seeded by the photo's place, so every run draws the same glints), saved in out (PNG)."""
    for k, (image, labels) in enumerate(sorted(load_labels(folder).items())[::step]):
        img = load_image(folder / image).astype(np.float32)
        rng = np.random.default_rng([k, 99])
        for lab in labels:
            x, y, w, h = (float(lab[c]) for c in "xywh")
            gx, gy = x + rng.uniform(0, w), y + rng.uniform(0, h)
            sigma = rng.uniform(*GLINT_SIGMAS) * max(w, h)
            img = draw_glint(img, (gx, gy), sigma, rng.uniform(0.7, 1.0))
        path = out / f"{k:04d}_glint.png"
        cv2.imwrite(str(path), np.clip(img, 0, 255).astype(np.uint8))
        yield str(path), labels


def shrunk(image: np.ndarray, labels: list[dict[str, str]], scale: float
           ) -> tuple[np.ndarray, list[dict[str, str]]]:
    """A photo (HxWx3 uint8 BGR) scaled by `scale` (INTER_AREA, as a camera farther away; 1.0: itself) and its
    labels.csv rows with their boxes scaled with it (px, truncated)."""
    frame = image if scale == 1.0 else cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    return frame, [dict(lab, **{c: str(int(int(lab[c]) * scale)) for c in "xywh"}) for lab in labels]


def four_to_a_frame(folder: Path, photos: list[tuple[str, list[dict[str, str]]]], scale: float
                    ) -> tuple[np.ndarray, list[dict[str, str]]]:
    """Four photos of a boxed set of photos of one size ((image, its labels.csv rows) each, image relative
    to folder) scaled by `scale` (INTER_AREA) and laid 2 x 2 in one frame (HxWx3 uint8 BGR, twice a
    scaled photo's size), in the order given, with their rows' boxes scaled and moved with them."""
    scaled = [cv2.resize(load_image(folder / image), None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
              for image, _ in photos]
    h, w = scaled[0].shape[:2]
    frame = np.zeros((2 * h, 2 * w, 3), np.uint8)
    labels = []
    for j, (photo, (_, rows)) in enumerate(zip(scaled, photos)):
        ox, oy = (j % 2) * w, (j // 2) * h
        frame[oy:oy + h, ox:ox + w] = photo
        labels += [dict(lab, x=str(int(int(lab["x"]) * scale) + ox), y=str(int(int(lab["y"]) * scale) + oy),
                        w=str(int(int(lab["w"]) * scale)), h=str(int(int(lab["h"]) * scale))) for lab in rows]
    return frame, labels


def bench_12mp(reader: DiceReader, runs: int = 5) -> None:
    """ms per 12-megapixel photo (decode + read): the shared sets hold no 12 MP photos, so a real
    640x480 photo is upscaled to 4000x3000 and saved as JPEG (quality 90) first."""
    src = paths.repo_root() / "demo" / "matteop65" / "five_23.jpg"
    big = cv2.resize(load_image(src), (4000, 3000), interpolation=cv2.INTER_CUBIC)
    with tempfile.TemporaryDirectory() as tmp:
        path = str(Path(tmp) / "twelve_mp.jpg")
        cv2.imwrite(path, big, [cv2.IMWRITE_JPEG_QUALITY, 90])
        results = [read_image_file(reader, path) for _ in range(runs)]
    ms = sorted(r["ms"] for r in results)
    values = sorted(d["value"] for d in results[0]["dice"])
    print(f"12 MP photo (4000x3000 upscale of {src.name}): median {statistics.median(ms):.1f} ms, "
          f"max {ms[-1]:.1f} ms over {runs} reads; dice read {values}")


if __name__ == "__main__":
    raise SystemExit(main())
