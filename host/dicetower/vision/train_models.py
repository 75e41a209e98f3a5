"""Build the shipped models (`make models` = `python -m dicetower.vision.train_models`).

models/standard/ : the "standard" die set (numbered d4, d6, d8, d10, d12, d20; pip d6 are read by
pips.py). It reads a die by its up face's numeral (numerals.py: numerals.onnx + numerals.json, a CNN
built by train_numerals.build_numerals from synthetic renders only) and its shape (shape.py: shape.npz,
built by shape.build_model from synthetic renders and CC0 lurig photos; its features hold the numeral
net's embedding, so it is built second, on the net just built). set.json lists the set's
faces and says "model": "numerals" (faces.read_numbered). Fixed seeds: the same code gives the same
models. Real-photo figures come from `make bench` (faces_eval) and tests/numerals.

Training the numeral net needs torch and onnx (the `train` extra); run time needs neither.

Usage: python -m dicetower.vision.train_models [--out DIR]
(`python -m dicetower.vision.shape` rebuilds the shape model alone, on the shipped numeral net.)
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from dicetower.paths import models_dir
from dicetower.vision import synth
from dicetower.vision.faces import STANDARD, DieSet, FaceClass


def standard_classes() -> list[FaceClass]:
    """The standard set's classes: every face of every standard die type."""
    return [FaceClass(t, v) for t in synth.STANDARD_TYPES for v in range(1, synth.FACES[t] + 1)]


def build_standard(out: Path | None = None) -> DieSet:
    """Build the standard set into out (default models/standard): the numeral net, then the shape model
    (whose features hold that net's embedding), and set.json. Returns the set."""
    from dicetower.vision import shape, train_numerals

    t0 = time.time()
    out = out or models_dir() / STANDARD
    meta = train_numerals.build_numerals(out=out)
    shape.build_model(out=out / shape.MODEL_PATH_PARTS[-1], net_dir=out)
    ds = DieSet(STANDARD, standard_classes(), None,
                meta={"trained_on": "synthetic renders only (numeral net); shape: synthetic renders + CC0 "
                                    "lurig photos", "numerals": meta})
    ds.save(out)
    print(f"standard: built in {time.time() - t0:.0f} s")
    return ds


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=None, help="output folder (default models/standard)")
    args = ap.parse_args()
    ds = build_standard(args.out)
    assert ds.path is not None  # DieSet.save set it
    for f in sorted(ds.path.iterdir()):
        print(f"  {f}: {f.stat().st_size / 1e6:.2f} MB")


if __name__ == "__main__":
    main()
