"""Build the shipped models (`make models` = `python -m dicetower.vision.train_models`).

models/standard/ : the "standard" die set (d4, d6 with numerals or pips, d8, d10, d12, d20), trained
only on synthetic renders (synth.py: fonts, colours, perspective, rotation, light, blur, trays),
so no unlicensed photo is in its making. Fixed seeds: the same code gives the same model.
A separate held-out set of renders (another seed) fits the confidence temperature and gives the
printed held-out accuracy; real-photo figures come from `make bench` and tests/faces.

Usage: python -m dicetower.vision.train_models [--per-face N] [--out DIR]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from dicetower.paths import models_dir
from dicetower.vision import synth
from dicetower.readings import UNSURE_BELOW
from dicetower.vision.faces import (STANDARD, DieSet, FaceClass, describe, fit_model, fit_temperature,
                                    softmax)

STANDARD_TYPES = ("d4", "d6", "d8", "d10", "d12", "d20")
SEED = 20261121


def standard_classes() -> list[FaceClass]:
    """The standard set's classes: every face of every standard die type."""
    return [FaceClass(t, v) for t in STANDARD_TYPES for v in range(1, synth.FACES[t] + 1)]


def render_standard(per_face: int, seed: int = SEED, size: int = 96) -> tuple[list[np.ndarray], np.ndarray]:
    """Crops (list of HxWx3 uint8 BGR) and labels (N,) of per_face renders of every standard face,
    each with a freshly drawn random die (body, ink, font, weight, pips or numerals), any rotation."""
    rng = np.random.default_rng(seed)
    crops, ys = [], []
    for label, c in enumerate(standard_classes()):
        for _ in range(per_face):
            crop, _ = synth.render_crop(synth.standard_spec(c.die_type, rng), c.value, rng,
                                        size=int(rng.integers(64, size + 1)))
            crops.append(crop)
            ys.append(label)
    return crops, np.array(ys)


def build_standard(per_face: int = 24, out: Path | None = None, seed: int = SEED) -> DieSet:
    """Render per_face templates of every standard face; render a separate held-out set (per_face
    / 3 per face, another seed) to fit the confidence temperature and measure held-out accuracy;
    save to out (default models/standard). Returns the set."""
    t0 = time.time()
    classes = standard_classes()
    crops, y = render_standard(per_face, seed)
    ds = DieSet(STANDARD, classes, fit_model([describe(c) for c in crops], y, len(classes)))
    held_crops, held_y = render_standard(max(4, per_face // 3), seed + 1)
    logits = np.array([ds.logits(c) for c in held_crops])
    ds.model.temperature = fit_temperature(logits, held_y)
    pred = [ds.result_from_proba(p) for p in softmax(logits / ds.model.temperature)]
    truth = [classes[i] for i in held_y]
    right = np.array([(p.die_type, p.value) == (t.die_type, t.value) for p, t in zip(pred, truth)])
    type_right = np.array([p.die_type == t.die_type for p, t in zip(pred, truth)])
    sure = np.array([p.confidence >= UNSURE_BELOW for p in pred])
    ds.meta = {"trained_on": "synthetic renders only (dicetower.vision.synth)", "seed": seed,
               "per_face": per_face, "heldout_n": len(held_y),
               "heldout_face_accuracy": round(float(right.mean()), 4),
               "heldout_type_accuracy": round(float(type_right.mean()), 4),
               "heldout_unsure_rate": round(float(1 - sure.mean()), 4),
               "heldout_accuracy_when_sure": round(float(right[sure].mean()), 4) if sure.any() else None,
               "temperature": round(ds.model.temperature, 5)}
    ds.save(out or models_dir() / STANDARD)
    print(f"standard: {len(y)} templates, {len(held_y)} held-out renders, {time.time() - t0:.0f} s; "
          f"held-out synthetic: {ds.meta}")
    return ds


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--per-face", type=int, default=24, help="template renders per face (default 24)")
    ap.add_argument("--out", type=Path, default=None, help="output folder (default models/standard)")
    args = ap.parse_args()
    ds = build_standard(args.per_face, args.out)
    for f in sorted(ds.path.iterdir()):
        print(f"  {f}: {f.stat().st_size / 1e6:.2f} MB")


if __name__ == "__main__":
    main()
