"""The die types in play (a table profile's `[roll] die_types`, `dicetower read --die-types`): the standard set
reads every numbered die as one of them (faces.read_numbered), in this process, in the reader's second
process and through the command line; unknown types and types given with a calibrated set are refused.
Real tiles of ../shared/datasets (fickett_poly_tiles' numbered d6, realdice_d20); skipped without them."""

import json
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from dicetower import paths
from dicetower.vision import faces
from dicetower.vision.camera import load_image
from dicetower.vision.faces import check_die_types, read_numbered, restricted_types
from dicetower.vision.faces_eval import remove_overlay
from dicetower.vision.reader import DiceReader
from dicetower.vision.scoring import load_labels

DATASETS = paths.shared_dir() / "datasets"
DICETOWER = Path(sys.executable).with_name("dicetower")
needs_models = pytest.mark.skipif(DiceReader(second_process=False).classify is None,
                                  reason="numbered dice need the shipped models (`make models`)")


def test_die_types_are_checked_and_written_as_the_standard_set_names_them():
    assert check_die_types(None) is None
    assert check_die_types([" D20", "d6", "d6"]) == frozenset({"d6", "d20"})
    with pytest.raises(ValueError, match=r"'d7'.*d4, d6, d8, d10, d12, d20.*--die-set"):
        check_die_types(["d6", "d7"])
    with pytest.raises(ValueError, match="no die types given"):
        check_die_types([])
    with pytest.raises(ValueError, match="not the string 'd20'"):
        check_die_types("d20")  # a string is a collection of letters: refused, not read as {"d", "2", "0"}


def test_the_shapes_probabilities_are_renormalised_over_the_types_in_play():
    proba = {"d4": 0.1, "d6": 0.2, "d8": 0.3, "d10": 0.0, "d12": 0.0, "d20": 0.4}
    assert restricted_types(proba, frozenset({"d6", "d20"})) == pytest.approx({"d6": 1 / 3, "d20": 2 / 3})
    assert restricted_types(proba, frozenset({"d10", "d12"})) == {"d10": 0.5, "d12": 0.5}  # the shape rules both out


def fickett_tiles(die_type: str, n: int) -> list:
    """n of fickett_poly_tiles' tiles of one die type (90x90 BGR, the montage's overlay text painted out) with
    their labelled values, spread over the montage."""
    folder = DATASETS / "fickett_poly_tiles"
    if not folder.is_dir():
        pytest.skip(f"needs fickett_poly_tiles in {DATASETS} (the team's shared folder)")
    (image, labels), = [(i, labs) for i, labs in load_labels(folder).items() if f"{die_type}chessex" in i]
    montage = load_image(folder / image)
    rows = labels[::max(1, len(labels) // n)][:n]
    return [(remove_overlay(montage[int(r["y"]):int(r["y"]) + int(r["h"]), int(r["x"]):int(r["x"]) + int(r["w"])]),
             int(r["value"])) for r in rows]


@needs_models
def test_an_unsure_d6_is_read_again_as_a_die_in_play():
    tiles = fickett_tiles("d6", 80)
    free = [DiceReader(second_process=False).read(tile) for tile, _ in tiles]
    told = [DiceReader(second_process=False, die_types=["d6"]).read(tile) for tile, _ in tiles]

    def right(readings: list) -> int:
        return sum([(d.die_type, d.value) for d in dice] == [("d6", v)] for dice, (_, v) in zip(readings, tiles))

    assert any(d.die_type != "d6" for dice in free for d in dice), "every tile read a d6 anyway: the test shows nothing"
    assert all(d.die_type == "d6" or not d.unsure for dice in told for d in dice)
    assert right(told) > right(free), (right(told), right(free))
    assert not any(not d.unsure and d.value != v for dice, (_, v) in zip(told, tiles) for d in dice)  # none sure, wrong


@needs_models
def test_a_die_read_sure_as_a_type_not_in_play_keeps_its_type_and_unsure_ones_stay_unsure_when_likely_foreign():
    # GEN-D04: a wrong die is refused by the rules, so the reader must not pass it off as one in play
    sure_d4 = [(tile, v) for tile, v in fickett_tiles("d4", 120) if not read_numbered(tile).unsure]
    assert sure_d4, "no d4 tile read sure: the test shows nothing"
    for tile, v in sure_d4:
        r = read_numbered(tile, die_types=frozenset({"d6", "d8"}))
        assert (r.die_type, r.value) == ("d4", v) and not r.unsure
    for tile, _ in fickett_tiles("d20", 12):
        free = read_numbered(tile)
        told = read_numbered(tile, die_types=frozenset({"d4"}))  # a d20 where d4s are thrown
        assert told.die_type == "d4" or (told.die_type, told.value) == (free.die_type, free.value)
        assert told.unsure or told.die_type != "d4"


@needs_models
def test_with_several_types_in_play_an_unsure_die_is_one_of_them():
    in_play = frozenset({"d8", "d12"})
    for tile, _ in fickett_tiles("d6", 12):
        r = read_numbered(tile, die_types=in_play)
        assert r.die_type in in_play or not r.unsure


def test_a_calibrated_set_refuses_die_types(monkeypatch):
    class Calibrated:
        def proba(self, crop, mask, view):
            raise AssertionError("not read")

    die_set = faces.DieSet("mine", [faces.FaceClass("d6", 1)], Calibrated())  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="reads the dice it was calibrated on"):
        die_set.classify(fickett_tiles("d6", 1)[0][0], die_types=frozenset({"d6"}))


@needs_models
def test_the_reader_passes_the_types_in_play_and_refuses_them_with_a_die_set():
    reader = DiceReader(second_process=False, die_types=["d20"])
    assert reader.die_types == frozenset({"d20"})
    seen = []
    classify = reader.classify
    assert classify is not None

    def recorded(crop, **kw):  # type: ignore[no-untyped-def]
        seen.append(kw["die_types"])
        return classify(crop, **kw)

    reader.classify = recorded
    names = sorted(load_labels(DATASETS / "realdice_d20"))[:3] if (DATASETS / "realdice_d20").is_dir() else []
    if not names:
        pytest.skip(f"needs realdice_d20 in {DATASETS}")
    dice = [d for name in names for d in reader.read(load_image(DATASETS / "realdice_d20" / name))]
    assert seen and set(seen) == {frozenset({"d20"})}
    assert dice and all(d.die_type == "d20" for d in dice)
    with pytest.raises(ValueError, match="calibrated on"):
        DiceReader("standard", die_types=["d20"], second_process=False)
    with pytest.raises(ValueError, match="unknown die type"):
        DiceReader(die_types=["d100"], second_process=False)


@needs_models
def test_read_die_types_on_the_command_line(tmp_path):
    files = []
    for k, (tile, _) in enumerate(fickett_tiles("d6", 8)):
        files.append(str(tmp_path / f"t{k}.png"))
        cv2.imwrite(files[-1], tile)
    proc = subprocess.run([str(DICETOWER), "read", "--json", "--die-types", "D8,d12", *files],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    dice = [d for line in proc.stdout.splitlines() for d in json.loads(line)["dice"]]
    assert dice and all(d["die_type"] in ("d8", "d12") or not d["unsure"] for d in dice)
    proc = subprocess.run([str(DICETOWER), "read", "--die-types", "d6,d7", files[0]],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode != 0 and "'d7'" in proc.stderr and "Traceback" not in proc.stderr


@needs_models
def test_a_sure_reading_under_an_unsure_view_is_flagged_as_a_die_in_play(monkeypatch):
    # shape and numeral agree on a d4 showing 3, but the view's elevation is unsure, so the reading will be
    # flagged (VIEW_UNSURE_CAP): flagged, it is read as a die in play like any unsure one
    from dicetower.vision import numerals, shape
    from dicetower.vision.view import ViewEstimate

    classes = numerals.numeral_classes()
    proba = np.full(len(classes), 0.001)
    proba[classes.index("d4:3")] = 0.5
    proba[classes.index("3")] = 0.4
    proba /= proba.sum()
    monkeypatch.setattr(shape, "die_type_by_shape", lambda crop, mask, elevation: shape.ShapeResult(
        "d4", 0.9, {"d4": 0.9, "d6": 0.04, "d8": 0.02, "d10": 0.02, "d12": 0.01, "d20": 0.01}))
    monkeypatch.setattr(numerals, "read_up_face", lambda crop, mask, elevation, die_type: (proba, proba))
    crop = np.full((60, 60, 3), 128, np.uint8)
    assert (read_numbered(crop).die_type, read_numbered(crop).unsure) == ("d4", False)
    sure_view, unsure_view = ViewEstimate(55.0, sure=True), ViewEstimate(55.0, sure=False)
    assert read_numbered(crop, view=sure_view, die_types=frozenset({"d6"})).die_type == "d4"  # sure: a wrong die
    told = read_numbered(crop, view=unsure_view, die_types=frozenset({"d6"}))
    assert (told.die_type, told.value) == ("d6", 3) and told.unsure
