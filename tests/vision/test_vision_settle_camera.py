"""Settling on a stream of real frames, and the cameras."""

import cv2
import numpy as np
import pytest

from dicetower import paths
from dicetower.vision.camera import Frame, FrameError, ReplayCamera, TurnedCamera, load_image
from dicetower.vision.settle import NotSettled, frame_motion, wait_settled

DEMO = paths.repo_root() / "demo" / "matteop65"


class ListCamera:
    """Serves prepared frames in order (the last one repeats), counting reads."""

    def __init__(self, images):
        self.images = images
        self.reads = 0

    def read(self) -> Frame:
        image = self.images[min(self.reads, len(self.images) - 1)]
        self.reads += 1
        return Frame(image, f"frame:{self.reads}")


def noisy(image, rng, sigma=2.0):
    return np.clip(image.astype(np.float32) + rng.normal(0, sigma, image.shape), 0, 255).astype(np.uint8)


def shifted(image, dx, dy):
    m = np.float32([[1, 0, dx], [0, 1, dy]])
    return cv2.warpAffine(image, m, (image.shape[1], image.shape[0]), borderMode=cv2.BORDER_REFLECT)


def test_motion_is_small_for_sensor_noise_and_large_for_moving_dice():
    rng = np.random.default_rng(1)
    image = load_image(DEMO / "valid_28.jpg")
    assert frame_motion(image, noisy(image, rng)) < 1.0
    assert frame_motion(image, shifted(image, 12, 5)) > 3.0


def test_settles_after_the_dice_stop_and_returns_a_still_frame():
    rng = np.random.default_rng(2)
    image = load_image(DEMO / "valid_28.jpg")
    moving = [cv2.GaussianBlur(shifted(image, 20 - 4 * i, 3 * i), (9, 9), 0) for i in range(5)]
    still = [noisy(image, rng) for _ in range(6)]
    cam = ListCamera(moving + still)
    frame = wait_settled(cam, window=3, timeout_s=60)
    assert cam.reads == len(moving) + 4  # the first still frame, then three still differences
    assert frame_motion(frame.image, image) < 1.0


def test_not_settled_after_the_timeout_rather_than_reading_a_blurred_frame():
    image = load_image(DEMO / "valid_28.jpg")
    frames = [cv2.GaussianBlur(shifted(image, 8 * (i % 4), 6 * (i % 3)), (7, 7), 0) for i in range(40)]
    with pytest.raises(NotSettled, match="not settled"):
        wait_settled(ListCamera(frames), timeout_s=60, max_frames=30)


def test_replay_camera_serves_in_order_and_loops():
    paths_ = [DEMO / "valid_24.jpg", DEMO / "valid_28.jpg"]
    cam = ReplayCamera(paths_)
    assert [cam.read().source for _ in range(3)] == [str(p) for p in paths_ + paths_[:1]]
    assert cam.read().image.shape == (480, 640, 3)
    once = ReplayCamera(paths_[:1], loop=False)
    once.read()
    with pytest.raises(FrameError, match="served"):
        once.read()


def test_replay_camera_names_a_corrupt_file_and_moves_on(tmp_path):
    bad = tmp_path / "torn.png"
    bad.write_bytes(b"\x89PNG\r\n\x1a\n truncated")
    cam = ReplayCamera([bad, DEMO / "valid_24.jpg"])
    with pytest.raises(FrameError, match="torn.png"):
        cam.read()
    assert cam.read().source.endswith("valid_24.jpg")
    with pytest.raises(ValueError):
        ReplayCamera([])


def test_read_when_settled_reads_the_still_frame_once():
    from dicetower.vision.reader import DiceReader
    from dicetower.vision.settle import read_when_settled

    rng = np.random.default_rng(3)
    image = load_image(DEMO / "valid_24.jpg")
    frames = [cv2.GaussianBlur(shifted(image, 15 - 5 * i, 0), (11, 11), 0) for i in range(3)]
    frames += [noisy(image, rng) for _ in range(5)]
    frame, readings = read_when_settled(ListCamera(frames), DiceReader(), window=3, timeout_s=60)
    assert sorted(r.value for r in readings) == [4, 4]
    assert frame_motion(frame.image, image) < 1.0


@pytest.mark.parametrize("degrees, rows, cols", [(90, slice(0, 10), slice(None)), (180, slice(None), slice(-10, None)),
                                                 (270, slice(-10, None), slice(None))])
def test_a_turned_camera_brings_the_trays_back_wall_to_the_top(tmp_path, degrees, rows, cols):
    image = np.zeros((40, 60, 3), np.uint8)
    image[:, :10] = 255  # the back wall, at the frame's left as a webcam strapped a quarter turn off shows it
    cv2.imwrite(str(tmp_path / "frame.png"), image)
    frame = TurnedCamera(ReplayCamera([tmp_path / "frame.png"]), degrees).read()
    assert frame.image.shape == ((60, 40, 3) if degrees != 180 else (40, 60, 3))
    assert frame.source == str(tmp_path / "frame.png")  # its SHA-256 stays the file's
    assert (frame.image[rows, cols] == 255).all() and frame.image.sum() == image.sum()


def test_a_camera_turn_other_than_a_quarter_turns_is_refused():
    with pytest.raises(ValueError, match="90, 180 or 270"):
        TurnedCamera(ReplayCamera(["x.png"]), 45)
