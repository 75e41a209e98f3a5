"""Body colour names and the annotated frame."""

from dataclasses import replace

import cv2
import numpy as np
import pytest

from dicetower import paths
from dicetower.readings import DieReading
from dicetower.vision.annotate import LABEL_SCALE, annotate, guesses, save_annotated
from dicetower.vision.camera import load_image
from dicetower.vision.colour import channel_medians, colour_name

DEMO = paths.repo_root() / "demo" / "matteop65"


@pytest.mark.parametrize("bgr,name", [((240, 235, 230), "white"), ((20, 20, 25), "black"), ((30, 30, 200), "red"),
                                      ((40, 210, 230), "yellow"), ((200, 80, 30), "blue"), ((60, 170, 40), "green"),
                                      ((128, 128, 128), "grey")])
def test_colour_names(bgr, name):
    rng = np.random.default_rng(0)
    px = np.clip(np.array(bgr) + rng.normal(0, 6, (500, 3)), 0, 255).astype(np.uint8)
    assert colour_name(px) == name


def test_colour_name_refuses_no_pixels():
    with pytest.raises(ValueError):
        colour_name(np.zeros((0, 3), np.uint8))


@pytest.mark.parametrize("count", [1, 2, 3, 1000, 1001, None])
def test_channel_medians_are_numpys_medians(count):
    # a real photo's pixels: odd and even counts (an even count's median is the mean of the middle two)
    image = load_image(DEMO / "valid_24.jpg")
    px = image.reshape(-1, 3) if count is None else image.reshape(-1, 3)[5000:5000 + count]
    assert np.array_equal(channel_medians(px), np.median(px.astype(float), axis=0))
    grey = image[100:180, 200:291, 1:2]  # HxWx1: one channel
    assert np.array_equal(channel_medians(grey), [np.median(grey)])


@pytest.mark.parametrize("bad", [np.zeros((0, 3), np.uint8), np.zeros((4, 3), np.float32), np.zeros(5, np.uint8)])
def test_channel_medians_refuses_what_it_cannot_count(bad):
    with pytest.raises(ValueError, match="uint8 pixels"):
        channel_medians(bad)


def test_annotated_frame_marks_sure_green_and_unsure_red(tmp_path):
    image = load_image(DEMO / "valid_24.jpg")
    sure = DieReading("d6", 4, (250, 215, 85, 85), 0.98)
    unsure = DieReading("d6", 2, (400, 10, 70, 60), 0.40)
    out = annotate(image, [sure, unsure])
    assert out.shape == image.shape and not np.array_equal(out, image)
    assert (out[215, 250:335] == (0, 160, 0)).all(axis=1).any()
    assert (out[10, 400:470] == (0, 0, 255)).all(axis=1).any()
    path = save_annotated(image, [sure], tmp_path / "a" / "x.png")
    assert load_image(path).shape == image.shape


@pytest.mark.parametrize("box", [(600, 0, 40, 40), (0, 200, 60, 60), (590, 300, 50, 50)],
                         ids=["top right corner", "left edge", "right edge"])
def test_a_label_is_a_band_of_its_box_colour_whole_inside_the_frame(box):
    """The label "d20 17 0.41 ?" is white on a red band (unsure) of the size its text takes, whole inside
    a 640x480 frame whatever the box's place: above the box, or inside its top at the frame's top, moved
    left at the right edge. Before, the text ran off the frame at the right and sat on the tray as
    coloured strokes outlined in black, hard to read on a busy tray."""

    image = load_image(DEMO / "valid_24.jpg")
    out = annotate(image, [DieReading("d20", 17, box, 0.41)])
    (tw, th), base = cv2.getTextSize("d20 17 0.41 ?", cv2.FONT_HERSHEY_SIMPLEX, LABEL_SCALE, 1)
    band_w, band_h = tw + 4, th + base + 4
    x, y = box[:2]
    left = min(x, 640 - band_w)
    top = y - band_h if y >= band_h else y
    band = out[top:top + band_h, left:left + band_w].reshape(-1, 3).astype(int)
    assert left >= 0 and left + band_w <= 640
    # every pixel red, white or a blend of the two (the text's anti-aliased edge): full red, blue = green
    assert ((band[:, 2] >= 250) & (np.abs(band[:, 0] - band[:, 1]) <= 2)).all()
    red, white = (band == (0, 0, 255)).all(axis=1), (band >= 250).all(axis=1)
    assert red.mean() > 0.5 and white.mean() > 0.05


def test_an_unsure_label_ends_with_the_readers_next_guesses():
    image = load_image(DEMO / "valid_24.jpg")
    d20 = DieReading("d20", 10, (300, 200, 60, 60), 0.08, alternatives=[("d20", 16), ("d12", 10)])
    assert guesses(d20) == " or 16/d12:10" and guesses(DieReading("d6", 3, (0, 0, 9, 9), 0.4)) == ""
    plain, listed = annotate(image, [replace(d20, alternatives=[])]), annotate(image, [d20])
    (short, _), _ = cv2.getTextSize("d20 10 0.08 ?", cv2.FONT_HERSHEY_SIMPLEX, LABEL_SCALE, 1)
    (long, _), _ = cv2.getTextSize("d20 10 0.08 ? or 16/d12:10", cv2.FONT_HERSHEY_SIMPLEX, LABEL_SCALE, 1)
    def red_in_band(out: np.ndarray) -> int:  # red px along a row inside the label's band, above the box
        return int((out[200 - 3, 300:640] == (0, 0, 255)).all(axis=1).sum())

    assert red_in_band(listed) - red_in_band(plain) >= 0.5 * (long - short)  # the band runs on to hold the guesses


def test_a_numbered_label_starts_with_the_dies_number_as_the_tower_asks_for_it():
    image = load_image(DEMO / "valid_24.jpg")
    dice = [DieReading("d6", 4, (100, 200, 60, 60), 0.98), DieReading("d6", 2, (300, 200, 60, 60), 0.40)]
    (plain, _), _ = cv2.getTextSize("d6 2 0.40 ?", cv2.FONT_HERSHEY_SIMPLEX, LABEL_SCALE, 1)
    (numbered, _), _ = cv2.getTextSize("2: d6 2 0.40 ?", cv2.FONT_HERSHEY_SIMPLEX, LABEL_SCALE, 1)

    def red_in_band(out: np.ndarray) -> int:  # red px along a row inside the second die's band, above its box
        return int((out[200 - 3, 300:640] == (0, 0, 255)).all(axis=1).sum())

    assert red_in_band(annotate(image, dice, numbered=True)) - red_in_band(annotate(image, dice)) == numbered - plain
