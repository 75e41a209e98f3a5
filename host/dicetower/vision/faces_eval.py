"""Figures for the face classifier on the real photos of ../shared/datasets (for `make bench` and the
closing note): `python -m dicetower.vision.faces_eval`.

- standard set (synthetic-trained, shipped) on fickett_poly_tiles (value and die type), lurig_dietype
  (die type, CC0) and realdice_d20 (value), with unsure rate and accuracy over the sure readings;
- calibration on fickett_poly_tiles: `per_face` tiles of each face learned, every other main-cluster
  tile of that die read (held out), and the cross-validated accuracy of the calibration itself;
- ms per crop (median, p95).
Unlicensed sources are read from ../shared at run time only; nothing is copied or trained into
the shipped models.
"""

from __future__ import annotations

import argparse
import csv
import tempfile
import time
from pathlib import Path

import cv2
import numpy as np

from dicetower.paths import shared_dir
from dicetower.readings import UNSURE_BELOW
from dicetower.vision.calibrate import LabelledCrop, calibrate
from dicetower.vision.faces import FaceClass, load_die_set


def remove_overlay(tile: np.ndarray) -> np.ndarray:
    """Inpaint (Telea) the white overlay text that the fickett montages print over every tile's
    upper part: pixels whose three channels are all >= 235, dilated by 1 px. The die itself never
    reaches that (0.0000 of the d20 tiles' lower-half pixels do, 0.108 of the upper-half ones)."""
    text = cv2.dilate((tile.min(axis=2) >= 235).astype(np.uint8) * 255, np.ones((3, 3), np.uint8))
    return cv2.inpaint(tile, text, 3, cv2.INPAINT_TELEA)


def fickett_tiles(root: Path, die_type: str, clean: bool = True) -> list[LabelledCrop]:
    """Main-cluster tiles of one fickett die (representative tiles, which carry extra overlay
    text, left out), in file order; clean: overlay text inpainted (remove_overlay)."""
    meta = {(r["image"], r["x"], r["y"]): r for r in csv.DictReader((root / "tiles_meta.csv").open())}
    images: dict[str, np.ndarray] = {}
    out = []
    for r in csv.DictReader((root / "labels.csv").open()):
        m = meta[(r["image"], r["x"], r["y"])]
        if r["die_type"] != die_type or m["main_cluster"] != "1" or m["representative_tile"] == "1":
            continue
        img = images.setdefault(r["image"], cv2.imread(str(root / r["image"])))
        x, y, w, h = (int(r[k]) for k in "xywh")
        tile = img[y:y + h, x:x + w]
        out.append(LabelledCrop(remove_overlay(tile) if clean else tile, FaceClass(die_type, int(r["value"])),
                                f"{r['image']}#{x},{y}"))
    return out


def _summary(name: str, results: list[tuple[bool, bool, float]], ms: list[float]) -> str:
    """results: (right, sure, confidence) per die."""
    right = np.array([r for r, _, _ in results])
    sure = np.array([s for _, s, _ in results])
    sure_acc = f"{right[sure].mean():.3f}" if sure.any() else "n/a"
    return (f"{name:<44} n={len(results):4d}  accuracy {right.mean():.3f}  unsure {1 - sure.mean():.3f}  "
            f"accuracy when sure {sure_acc}  ms median {np.median(ms):.1f} p95 {np.percentile(ms, 95):.1f}")


def standard_on(crops: list[tuple[np.ndarray, str, int | None]], name: str, type_only: bool) -> str:
    ds = load_die_set(None)
    results, ms = [], []
    for crop, die_type, value in crops:
        t = time.perf_counter()
        r = ds.classify(crop)
        ms.append(1000 * (time.perf_counter() - t))
        ok = r.die_type == die_type and (type_only or r.value == value)
        results.append((ok, r.confidence >= UNSURE_BELOW, r.confidence))
    return _summary(name, results, ms)


def calibration_on(tiles: list[LabelledCrop], per_face: int, name: str) -> str:
    by_face: dict[FaceClass, list[LabelledCrop]] = {}
    for t in tiles:
        by_face.setdefault(t.face, []).append(t)
    learn = [t for ts in by_face.values() for t in ts[:per_face]]
    test = [t for ts in by_face.values() for t in ts[per_face:]]
    with tempfile.TemporaryDirectory() as tmp:
        ds, report = calibrate(learn, name, out_dir=Path(tmp))
    results, ms = [], []
    for t in test:
        t0 = time.perf_counter()
        r = ds.classify(t.crop)
        ms.append(1000 * (time.perf_counter() - t0))
        results.append((r.value == t.face.value, r.confidence >= UNSURE_BELOW, r.confidence))
    return (_summary(f"{name}: {per_face}/face learned, rest held out", results, ms)
            + f"\n{'':<44} (calibration's own cross-validated accuracy {report.accuracy:.3f}, n={report.n})")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--per-face", type=int, default=5, help="tiles per face learned in calibration")
    args = ap.parse_args()
    data = shared_dir() / "datasets"
    if not data.is_dir():
        print(f"faces: {data} not found; no figures")
        return
    fickett = data / "fickett_poly_tiles"
    for die_type in ("d4", "d6", "d8", "d12", "d20"):
        tiles = fickett_tiles(fickett, die_type)
        print(standard_on([(t.crop, die_type, t.face.value) for t in tiles[::3]],
                          f"standard set, fickett {die_type} (value)", type_only=False))
        print(calibration_on(tiles, args.per_face, f"calibrated fickett {die_type}"))
    lurig = []
    for r in csv.DictReader((data / "lurig_dietype" / "labels.csv").open()):
        img = cv2.imread(str(data / "lurig_dietype" / r["image"]))
        if img is not None:
            lurig.append((img, r["die_type"], None))
    print(standard_on(lurig, "standard set, lurig_dietype (die type only)", type_only=True))
    realdice = []
    for r in list(csv.DictReader((data / "realdice_d20" / "labels.csv").open()))[::2]:
        img = cv2.imread(str(data / "realdice_d20" / r["image"]))
        if img is not None:
            realdice.append((img, "d20", int(r["value"])))
    print(standard_on(realdice, "standard set, realdice_d20 (whole frame, value)", type_only=False))


if __name__ == "__main__":
    main()
