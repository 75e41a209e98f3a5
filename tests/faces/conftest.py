"""Shared helpers for the face-classifier tests: synthetic labelled photos written as files."""

from __future__ import annotations

import csv
from pathlib import Path

import cv2
import numpy as np
import pytest

from dicetower.vision import synth


def write_labelled_photos(root: Path, dice: list[tuple[synth.DieSpec, list[int]]], photos: int,
                          seed: int) -> Path:
    """Render `photos` crops of every listed face of every die into root/images and write
    root/labels.csv in the shared-datasets form (empty box: one die per image). Returns the csv."""
    rng = np.random.default_rng(seed)
    (root / "images").mkdir(parents=True, exist_ok=True)
    rows = []
    for d, (spec, values) in enumerate(dice):
        for v in values:
            for k in range(photos):
                crop, truth = synth.render_crop(spec, v, rng, size=int(rng.integers(80, 121)))
                name = f"images/die{d}_face{v}_{k}.png"
                cv2.imwrite(str(root / name), crop)
                value = " ".join([str(truth["value"])] + truth["symbols"])
                rows.append([name, truth["die_type"], value, "", "", "", "", truth["face_colour"] or ""])
    path = root / "labels.csv"
    with path.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["image", "die_type", "value", "x", "y", "w", "h", "colour"])
        w.writerows(rows)
    return path


@pytest.fixture
def user_data(tmp_path, monkeypatch):
    """A private user data directory (XDG_DATA_HOME) so calibrated sets do not touch the user's."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    from dicetower.paths import user_data_dir

    return user_data_dir()
