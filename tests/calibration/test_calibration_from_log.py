"""`dicetower calibrate --from-log`: a dice set learned from the readings players confirmed (or corrected) in
the tower's roll log, from the crops the service logged with them (crops.die_crops: each with the mask of its
die and the view it was read under); a real SQLite roll log, synthetic tray photos and a real oblique photo,
fresh photos read back with the stored set."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from click.testing import CliRunner

from dicetower.audit.rolllog import RollLog
from dicetower.paths import shared_dir
from dicetower.readings import DieReading
from dicetower.service.plan import RollPlan
from dicetower.service.roll import Correction, RollPipeline
from dicetower.vision import synth
from dicetower.vision.boxes import iou
from dicetower.vision.calibrate import CalibrationError, find_die, read_log
from dicetower.vision.camera import load_image
from dicetower.vision.crops import decode_crop, die_crops, encode_crop
from dicetower.vision.reader import DiceReader
from dicetower.vision.calibrate_cli import calibrate as calibrate_cmd
from dicetower.vision.faces import forget_die_set, load_die_set

SPEC = synth.alkemy_spec("white")


class Unused:
    def read(self, image):  # the pipeline is handed its readings
        raise AssertionError("not called")


def _played_log(path, values, rng, misread=(), unconfirmed=()):
    """A roll log of tray photos of two SPEC dice each (faces `values`, in pairs), each roll logged through the
    service's pipeline (its crops with it) as read unsure, then confirmed; die k of the whole list is logged
    read as 1 + value % 6 and corrected when k is in misread, and left unconfirmed when k is in unconfirmed.
    Returns the log's path."""
    pipeline = RollPipeline(Unused(), RollLog(path), RollPlan())
    k = 0
    for i in range(0, len(values), 2):
        frame, truths = synth.render_scene([(SPEC, v) for v in values[i:i + 2]], rng, size=(400, 300),
                                           die_px=(90, 110))
        readings, truth = [], []
        for t in truths:
            read = 1 + t["value"] % 6 if k + len(readings) in misread else t["value"]
            readings.append(DieReading("d6", read, tuple(t["box"]), 0.3))
            truth.append(t["value"])
        confirmed = {j: Correction("d6", value) if k + j in misread else None for j, value in enumerate(truth)
                     if k + j not in unconfirmed}
        pipeline.resolve_and_log(frame, f"tray_{i}", readings, rejected=False, confirmed=confirmed)
        k += len(truth)
    pipeline.log.close()
    return path


def test_the_service_logs_each_dies_crop_of_the_frame(tmp_path):
    rng = np.random.default_rng(3)
    frame, truths = synth.render_scene([(SPEC, 2), (SPEC, 5)], rng, size=(400, 300), die_px=(90, 110))
    readings = [DieReading("d6", t["value"], tuple(t["box"]), 0.95) for t in truths]
    with RollLog(tmp_path / "rolls.sqlite") as log:
        RollPipeline(Unused(), log, RollPlan()).resolve_and_log(frame, "tray", readings)
        dice = log.rolls()[0]["dice"]
        assert log.verify().ok
    for die, reading in zip(dice, readings):
        crop = cv2.imread(str(tmp_path / die["crop_path"]))
        x, y, w, h = reading.box
        # PNG: the pixels as read, of the die body's box (its mask's; its shadow too) at the reading's (the die's)
        assert crop is not None
        found = cv2.matchTemplate(frame, crop, cv2.TM_SQDIFF)
        cy, cx = (int(v) for v in np.unravel_index(int(np.argmin(found)), found.shape))
        assert np.array_equal(frame[cy:cy + crop.shape[0], cx:cx + crop.shape[1]], crop)
        assert iou((cx, cy, crop.shape[1], crop.shape[0]), reading.box) >= 0.8
    # a box reaching past the frame is cut to it; one wholly outside gives the whole frame
    odd = [DieReading("d6", 1, (380, 290, 40, 40), 0.5), DieReading("d6", 1, (500, 500, 10, 10), 0.5)]
    clipped, whole = (cv2.imdecode(np.frombuffer(b, np.uint8), cv2.IMREAD_COLOR) for b in die_crops(frame, odd))
    assert np.array_equal(clipped, frame[290:300, 380:400]) and np.array_equal(whole, frame)


def test_an_oblique_photos_crop_keeps_the_dies_mask_and_the_view_it_was_read_under(tmp_path):
    # realdice_d20: one d20 in a dice dome, seen from ~60 degrees; learned from crops alone (its die found again in
    # its crop, read as if from above) the set cross-validated 0.10, from crops with these 0.84
    photo = load_image(shared_dir() / "datasets" / "realdice_d20" / "images" / "7" / sorted(
        (shared_dir() / "datasets" / "realdice_d20" / "images" / "7").iterdir())[0].name)
    readings = [r for r in DiceReader(second_process=False).read(photo) if r.die_type != "d6"][:1]
    assert readings, "the reader found no numbered die in the photo"
    with RollLog(tmp_path / "rolls.sqlite") as log:
        RollPipeline(Unused(), log, RollPlan()).resolve_and_log(photo, "dome", readings,
                                                                confirmed={0: Correction("d20", 7)})
    logged = read_log(tmp_path / "rolls.sqlite", min_shots=0).samples  # one die: no face minimum
    assert (logged[0].face.die_type, logged[0].face.value) == ("d20", 7)  # learned as set, whatever type was read
    crop, mask, view = find_die(photo)  # the die as `calibrate --from-labels` finds it in the whole photo
    assert len(logged) == 1 and logged[0].view is not None and logged[0].mask is not None
    assert 40.0 < logged[0].view.elevation < 80.0 and abs(logged[0].view.elevation - view.elevation) < 1.0
    assert logged[0].crop.shape == crop.shape and np.mean((logged[0].mask > 0) == (mask > 0)) > 0.97


def test_a_crop_encodes_its_mask_and_elevation_and_an_older_plain_png_reads_back_without(tmp_path):
    rng = np.random.default_rng(5)
    crop = rng.integers(0, 256, (30, 40, 3), dtype=np.uint8)
    mask = np.zeros((30, 40), np.uint8)
    mask[5:25, 10:30] = 255
    back = decode_crop(encode_crop(crop, mask, 58.734))
    assert np.array_equal(back.crop, crop) and np.array_equal(back.mask, mask) and back.elevation == 58.73
    ok, plain = cv2.imencode(".png", crop)  # as logs before masks and views were kept
    older = decode_crop(plain.tobytes())
    assert np.array_equal(older.crop, crop) and older.mask is None and older.elevation is None
    with pytest.raises(ValueError, match="not a readable PNG image"):
        decode_crop(b"\x89PNG truncated")
    with pytest.raises(ValueError, match="must be the crop's size"):
        encode_crop(crop, mask[:10])
    # a pip die (no die body read) is logged without a mask or a view
    frame, truths = synth.render_scene([(SPEC, 3)], rng, size=(400, 300), die_px=(90, 110))
    pip = decode_crop(die_crops(frame, [DieReading("d6", 3, (0, 0, 20, 20), 0.9)])[0])
    assert pip.mask is None and pip.elevation is None


def test_calibrate_from_the_log_then_read_with_the_stored_set(tmp_path, user_data, read_back):
    rng = np.random.default_rng(21)
    values = [v for v in range(1, 7) for _ in range(4)]
    rng.shuffle(values)
    log = _played_log(tmp_path / "rolls.sqlite", values, rng, misread={0, 7}, unconfirmed={3})
    logged = read_log(log)
    assert len(logged.samples) == len(values) - 1 and not logged.unreadable  # the unconfirmed die is left out
    assert [s.face.value for s in logged.samples[:3]] == values[:3]  # die 0: read wrong, learned as corrected
    assert len({s.group for s in logged.samples}) == len(values) // 2  # one photo per roll
    result = CliRunner().invoke(calibrate_cmd, ["--from-log", str(log), "--die-set", "played"])
    assert result.exit_code == 0, result.output
    assert f"{len(values) - 1} confirmed dice (2 of them corrected) from" in result.output  # dice 0 and 7
    assert "cross-validated accuracy" in result.output and logged.corrected == 2
    forget_die_set("played")
    assert {c.key for c in load_die_set("played").classes} == {f"d6:{v}" for v in range(1, 7)}
    right, sure_wrong, lines = read_back(SPEC, "played", [6, 2, 5, 3, 1, 4, 6, 2], 98)
    assert right >= 6 and sure_wrong == 0, lines  # of 8


def test_a_face_short_of_confirmed_dice_is_named(tmp_path):
    rng = np.random.default_rng(22)
    values = [1, 2, 3, 4, 5, 6] * 2 + [1, 2, 3, 4, 5, 1]  # four 1s, three of 2..5, two 6s
    log = _played_log(tmp_path / "rolls.sqlite", values, rng)
    with pytest.raises(CalibrationError, match=r"every face needs 3 confirmed dice .* short: d6 face 6: 2\b"):
        read_log(log)
    assert len(read_log(log, min_shots=2).samples) == len(values)
    # a crop gone from the disk (roll 1's first die, a 1) is left out and named, not guessed
    crops = sorted((tmp_path / "rolls.sqlite.crops").iterdir())
    crops[0].unlink()
    logged = read_log(log, min_shots=1)
    assert len(logged.samples) == len(values) - 1 and logged.unreadable and "roll 1 die 0" in logged.unreadable[0]
    result = CliRunner().invoke(calibrate_cmd, ["--from-log", str(log), "--die-set", "short"])
    assert result.exit_code != 0 and "short: d6 face 6: 2 (1 crops unreadable)" in result.output


def test_no_log_no_confirmed_dice_and_both_sources_are_refused(tmp_path):
    with pytest.raises(CalibrationError, match="there is no roll log at"):
        read_log(tmp_path / "missing.sqlite")
    rng = np.random.default_rng(23)
    log = _played_log(tmp_path / "rolls.sqlite", [1, 2], rng, unconfirmed={0, 1})
    with pytest.raises(CalibrationError, match="holds no confirmed die with its crop"):
        read_log(log)
    result = CliRunner().invoke(calibrate_cmd, ["--from-log", str(log), "--from-labels", str(tmp_path / "l.csv"),
                                                "--die-set", "x"])
    assert result.exit_code != 0 and "not both" in result.output
    result = CliRunner().invoke(calibrate_cmd, ["--from-log", str(log), "--shots", "1", "--die-set", "x"])
    assert result.exit_code != 0 and "--shots must be at least 2" in result.output
