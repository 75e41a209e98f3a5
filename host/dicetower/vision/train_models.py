"""Build the shipped models (`make models` = `python -m dicetower.vision.train_models`).

models/standard/ : the "standard" die set (d4, d6 with numerals or pips, d8, d10, d12, d20), trained
only on synthetic renders (synth.py: fonts, colours, perspective, rotation, light, blur, trays),
so no unlicensed photo is in its making. Fixed seeds: the same code gives the same model.
A held-out part of the renders (15%) fits the confidence temperature and gives the printed
held-out accuracy; real-photo figures come from `make bench` and tests/faces.

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
UPRIGHT_JITTER = 15.0  # degrees: half the 30-degree step of faces.SEARCH_ANGLES


def standard_classes() -> list[FaceClass]:
    """The standard set's classes: every face of every standard die type."""
    return [FaceClass(t, v) for t in STANDARD_TYPES for v in range(1, synth.FACES[t] + 1)]


def render_standard(per_face: int, seed: int = SEED, spin_deg: float | None = UPRIGHT_JITTER,
                    size: int = 96) -> tuple[list[np.ndarray], np.ndarray]:
    """Crops (list of HxWx3 uint8) and labels (N,) of per_face renders of every standard face,
    each with a freshly drawn random die (body, ink, font, weight, pips or numerals), marks upright
    +- spin_deg degrees (None: any rotation)."""
    rng = np.random.default_rng(seed)
    crops, ys = [], []
    for label, c in enumerate(standard_classes()):
        for _ in range(per_face):
            crop, _ = synth.render_crop(synth.standard_spec(c.die_type, rng), c.value, rng,
                                        size=int(rng.integers(64, size + 1)), spin_deg=spin_deg)
            crops.append(crop)
            ys.append(label)
    return crops, np.array(ys)


def build_standard(per_face: int = 60, out: Path | None = None, seed: int = SEED) -> DieSet:
    """Render upright faces and train on them; render a separate held-out set at any rotation
    (per_face / 6 per face, another seed), read it as classify_crop does (rotation search) to fit
    the confidence temperature and to measure held-out accuracy; save to out (default
    models/standard). Returns the set."""
    t0 = time.time()
    classes = standard_classes()
    crops, y = render_standard(per_face, seed)
    x = np.array([describe(c)[0] for c in crops], np.float32)
    t_render = time.time() - t0
    model = fit_model(x, y, len(classes), seed=seed)
    t_train = time.time() - t0 - t_render
    ds = DieSet(STANDARD, classes, model, orientation="upright")
    held_crops, held_y = render_standard(max(4, per_face // 6), seed + 1, spin_deg=None)
    logits = np.array([ds.logits(c) for c in held_crops])
    model.temperature = fit_temperature(logits, held_y)
    pred = [ds.result_from_proba(p) for p in softmax(logits / model.temperature)]
    truth = [classes[i] for i in held_y]
    acc = float(np.mean([(p.die_type, p.value) == (t.die_type, t.value) for p, t in zip(pred, truth)]))
    type_acc = float(np.mean([p.die_type == t.die_type for p, t in zip(pred, truth)]))
    sure = [p.confidence >= UNSURE_BELOW for p in pred]
    sure_acc = float(np.mean([(p.die_type, p.value) == (t.die_type, t.value)
                              for p, t, s in zip(pred, truth, sure) if s])) if any(sure) else 0.0
    ds.meta = {"trained_on": "synthetic renders only (dicetower.vision.synth)", "seed": seed,
               "per_face": per_face, "heldout_face_accuracy": round(acc, 4),
               "heldout_type_accuracy": round(type_acc, 4), "heldout_unsure_rate": round(1 - float(np.mean(sure)), 4),
               "heldout_accuracy_when_sure": round(sure_acc, 4), "temperature": round(model.temperature, 4)}
    ds.save(out or models_dir() / STANDARD)
    print(f"standard: {len(y)} renders + features in {t_render:.0f} s, trained in {t_train:.0f} s; "
          f"held-out synthetic ({len(held_y)} renders, any rotation): face {acc:.3f}, die type "
          f"{type_acc:.3f}, unsure {1 - np.mean(sure):.3f}, accuracy when sure {sure_acc:.3f}, "
          f"T={model.temperature:.2f}")
    return ds


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--per-face", type=int, default=60, help="renders per face (default 60)")
    ap.add_argument("--out", type=Path, default=None, help="output folder (default models/standard)")
    args = ap.parse_args()
    ds = build_standard(args.per_face, args.out)
    for f in sorted(ds.path.iterdir()):
        print(f"  {f}: {f.stat().st_size / 1e6:.2f} MB")


if __name__ == "__main__":
    main()
