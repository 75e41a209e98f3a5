"""Shared by the calibration tests: a private user data directory for the sets they store, and fresh
synthetic photos read back with a stored set through `dicetower read --die-set NAME --json`."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest
from click.testing import CliRunner

from dicetower.vision import synth
from dicetower.vision.cli import read as read_cmd


@pytest.fixture
def user_data(tmp_path, monkeypatch):
    """A private user data directory (XDG_DATA_HOME) so calibrated sets do not touch the user's."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    from dicetower.paths import user_data_dir

    return user_data_dir()


@pytest.fixture
def read_back(tmp_path):
    """read_back(spec, die_set, values, seed) -> (right, sure_wrong, lines): one fresh photo of a spec die per
    value (synth.render_scene, 400x300, the die 90-110 px, drawn from seed), all read by `dicetower read --json
    --die-set die_set`; a photo is right when its most confident die shows its value and symbols, sure wrong
    when that die is wrong and not flagged unsure; lines: the command's JSON objects, one per photo (a photo
    whose die is not found fails the test: a die is read, sure or unsure, never dropped)."""

    def run(spec: synth.DieSpec, die_set: str, values: list[int], seed: int) -> tuple[int, int, list[dict]]:
        fresh = np.random.default_rng(seed)
        images, truth = [], {}
        for i, v in enumerate(values):
            frame, t = synth.render_scene([(spec, v)], fresh, size=(400, 300), die_px=(90, 110))
            path = tmp_path / f"fresh_{die_set}_{i}.png"
            cv2.imwrite(str(path), frame)
            images.append(str(path))
            truth[str(path)] = (v, t[0]["symbols"])
        out = CliRunner().invoke(read_cmd, ["--json", "--die-set", die_set, *images])
        assert out.exit_code == 0, out.output
        lines = [json.loads(line) for line in out.output.splitlines() if line.startswith("{")]
        assert len(lines) == len(images), out.output
        right = sure_wrong = 0
        for res in lines:
            assert res["dice"], res
            best = max(res["dice"], key=lambda d: d["confidence"])
            ok = (best["value"], best.get("symbols", [])) == truth[res["image"]]
            right += ok
            sure_wrong += (not ok) and not best["unsure"]
        return right, sure_wrong, lines

    return run
