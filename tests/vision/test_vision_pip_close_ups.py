"""Pip dice at any size: close-ups of one matteop65 die (a phone held near the dice) spanning 40-70 % of
the frame's height, whose pips are as wide as the pip filter at the analysis scale or wider
(detect.large_pip_faces). Each is read as one die, of its labelled value or flagged unsure: never
another value read sure, never its pips read as dice of their own, and a 12-megapixel close-up as its
640x480 copy."""

import numpy as np
import pytest

from dicetower import paths
from dicetower.readings import DieReading
from dicetower.vision.boxes import holds
from dicetower.vision.camera import load_image
from dicetower.vision import scoring, synth
from dicetower.vision.reader import DiceReader
from dicetower.vision.scoring import load_labels
from bench.probes import pip_scene

def close_up(image: str, x: int, y: int, frac: float,
             size: tuple[int, int] = (640, 480)) -> tuple[np.ndarray, int, tuple[float, float]]:
    """A close-up (scoring.close_up) of the matteop65 die labelled at (x, y) in image, its die spanning
    frac of the frame's height, size (w, h) px. Returns (frame, the labelled value, the die's centre in
    the frame px). Skips when ../shared is absent."""
    folder = paths.shared_dir() / "datasets" / "matteop65_table_d6"
    if not folder.is_dir():
        pytest.skip(f"shared datasets not found at {folder}")
    row = next(r for r in load_labels(folder)[image] if int(r["x"]) == x and int(r["y"]) == y)
    w, h = int(row["w"]), int(row["h"])
    frame, (x0, y0, k) = scoring.close_up(load_image(folder / image), (x, y, w, h), frac, size)
    return frame, int(row["value"]), ((x + w / 2 - x0) * k, (y + h / 2 - y0) * k)


def read_one(reader: DiceReader, frame: np.ndarray, value: int, centre: tuple[float, float]) -> DieReading:
    """The one reading of a close-up, which must be the die at centre: no other die (its pips, its side
    faces) and never a value other than the labelled one read sure."""
    readings = reader.read(frame)
    assert len(readings) == 1, f"one die expected, read {[(r.value, round(r.confidence, 2), r.box) for r in readings]}"
    r = readings[0]
    bx, by, bw, bh = r.box
    assert bx <= centre[0] <= bx + bw and by <= centre[1] <= by + bh, f"reading {r.box} is not the die at {centre}"
    assert r.value == value or r.unsure, f"a {value} read as a sure {r.value} ({r.confidence:.2f})"
    return r


def read_at(reader: DiceReader, image: str, x: int, y: int,
            frac: float) -> tuple[list[tuple[int | None, bool]], int, list]:
    """The (value, unsure) of the readings whose box holds the centre of the matteop65 die labelled at (x, y) in
    image, read close up (close_up, frac of the frame's height), with that die's labelled value and every reading
    of the frame (value, confidence, box), for the messages."""
    frame, value, centre = close_up(image, x, y, frac)
    readings = reader.read(frame)
    return ([(r.value, r.unsure) for r in readings if holds(r.box, centre)], value,
            [(r.value, round(r.confidence, 2), r.box) for r in readings])


#: (image, x, y) of matteop65 labels: 5s, 4s and 6s on a light wooden table, white dice with black pips.
DICE = [("images/Train/five_13.jpg", 384, 179), ("images/Train/four_38.jpg", 278, 151),
        ("images/Train/six_31.jpg", 263, 81), ("images/Train/four_11.jpg", 341, 158)]


@pytest.fixture(scope="module")
def reader() -> DiceReader:
    return DiceReader()


@pytest.mark.parametrize("frac", [0.5, 0.7])
def test_pips_wider_than_the_filter_are_one_die_not_dice(reader: DiceReader, frac: float):
    """The die's body is the table's colour and its pips (34-60 px at 640 px) stand out as bodies of
    their own: read at c72f92d as several unsure "dice" (6 to 11 readings) with the die missed, or as a
    side face's pip taken for a sure 1. Each must now be one die, and at least 3 of the 4 read right
    and sure (measured: all 4 at both sizes)."""
    right = 0
    for image, x, y in DICE:
        frame, value, centre = close_up(image, x, y, frac)
        r = read_one(reader, frame, value, centre)
        right += r.value == value and not r.unsure
    assert right >= 3, f"{right} of {len(DICE)} read right and sure"


def test_the_lone_pip_of_a_1_found_as_a_body_is_a_1(reader: DiceReader):
    """A 1 spanning 40-50 % of the frame: its one pip (68-84 px) stands out as a body, its side faces'
    pips as smaller ones, the white die itself is the table's colour. At c72f92d: the pip and the side
    pips read as 2 to 5 unsure numbered "dice". The pip, read where it fits the pip filter, is a sure 1
    (the largest pip there, filling its body), and the side pips in its reach are parts of it."""
    for image, x, y, frac in [("images/Train/dice_31.jpg", 301, 232, 0.4), ("images/Train/dice_31.jpg", 301, 232, 0.5),
                              ("images/Train/dice_45.jpg", 267, 338, 0.4), ("images/Train/dice_36.jpg", 390, 206, 0.5)]:
        frame, value, centre = close_up(image, x, y, frac)
        r = read_one(reader, frame, value, centre)
        assert (r.value, r.unsure) == (1, False), f"{image} at {frac}: {r.value} ({r.confidence:.2f})"


def test_a_1_nearer_than_any_close_up_scale_reads_is_a_1(reader: DiceReader):
    """A 1 so near that its die runs off the frame: its one pip (90-120 px, 0.19-0.25 of the frame's
    height) is the only body found, wider than any pip body (KERNEL_PX / PIP_OF_DIE analysis px) and too
    wide for the coarsest close-up scale's filter. Read before as a numbered die (d8 6, d12 3, d6 2, each
    at 0.01-0.02). Now a lone plain body up to LONE_PIP_OF_FRAME of the frame is read as a 1's pip at the
    scale its size tells: a 1, unsure (its layout runs off the frame) or sure."""
    for image, x, y, frac in [("images/Train/dice_31.jpg", 301, 232, 0.7), ("images/Train/dice_41.jpg", 248, 285, 0.7),
                              ("images/Train/dice_45.jpg", 267, 338, 0.7), ("images/Train/dice_49.jpg", 234, 323, 0.5)]:
        frame, value, centre = close_up(image, x, y, frac)
        r = read_one(reader, frame, value, centre)
        assert (r.die_type, r.value) == ("d6", 1), f"{image} at {frac}: {r.die_type} {r.value} ({r.confidence:.2f})"


def test_a_1s_pip_and_its_side_faces_pips_are_no_one_pattern(reader: DiceReader):
    """A 1 at 0.3 of the frame, its round pip (52 px, roundness 0.84) found as a body, and beside it its side
    faces' foreshortened pips (28-30 px by 42-54, roundness 0.38-0.49): their long sides alike, they made one
    pattern of pip bodies, in which no face was read: the 1's pip was read as a numbered die (6, 0.02), and the
    side faces' pips as five more, all unsure. Bodies foreshortened unlike are no one face's pips: one die, a
    sure 1."""
    frame, value, centre = close_up("images/Train/dice_31.jpg", 301, 232, 0.3)
    r = read_one(reader, frame, value, centre)
    assert (r.die_type, r.value, r.unsure) == ("d6", 1, False), f"{r.die_type} {r.value} ({r.confidence:.2f})"


@pytest.mark.parametrize("image, x, y, frac", [("images/Train/dice_21.jpg", 202, 170, 0.35),
                                               ("images/Train/dice_21.jpg", 202, 170, 0.45),
                                               ("images/Train/dice_43.jpg", 307, 153, 0.4),
                                               ("images/Train/dice_37.jpg", 321, 272, 0.25)])
def test_a_1s_pip_grouped_with_its_side_faces_pips_is_a_1(reader: DiceReader, image, x, y, frac):
    """A 1 close up whose side faces' pips are foreshortened less than in the test above (bodies of roundness
    0.53-0.62 beside its pip's 0.75-0.81): they join its pip's group of pip bodies, and a 1 was read from a group only
    when it was the group's one body, so the sure 1 read there was refused and the pip read as a numbered die (d10
    10 or d6 6, unsure). A 1 whose group's other bodies lie in its reach and are foreshortened more than its pip
    (detect.SIDE_PIPS_FLATTER) stands: a sure 1."""
    at, value, read = read_at(reader, image, x, y, frac)
    assert at == [(value, False)], read


def test_a_close_up_die_filling_the_frame_is_read_by_its_pips(reader: DiceReader):
    """A white 1 at 0.5 of the frame on the light table: no body whole in the frame large enough to hold pips
    wider than the filter (close_up_regions: none), so the smaller scales were not read; the die was found
    filling the frame (find_close_up) and read by the numeral net as a d10 10 (0.01). Its box is now searched
    at the smaller scales first: a sure 1."""
    frame, value, centre = close_up("images/Train/dice_25.jpg", 499, 300, 0.5)
    r = read_one(reader, frame, value, centre)
    assert (r.die_type, r.value, r.unsure) == ("d6", 1, False), f"{r.die_type} {r.value} ({r.confidence:.2f})"


def test_a_1_whose_pip_is_small_in_its_body_is_read_sure(reader: DiceReader):
    """A 1 whose body (the die with its sides and shadow) is more than twice its face box: the face, read at
    a close-up scale in the body's box, was taken for a small die or a mark on a larger body (its box 0.48
    of the body's side, under detect.CLOSE_UP_FACE) and made unsure, and the body was read instead as a
    numbered die (d6 4, d6 2; 0.01-0.02). A 1's box is its pip's; its face is FACE_SIDE_DIAMETERS pip
    diameters a side, which spans the body: a sure 1."""
    for image, x, y, frac in [("images/Train/dice_1.jpg", 255, 220, 0.5), ("images/Train/dice_2.jpg", 265, 208, 0.3),
                              ("images/Train/dice_41.jpg", 248, 285, 0.3)]:
        frame, value, centre = close_up(image, x, y, frac)
        r = read_one(reader, frame, value, centre)
        assert (r.die_type, r.value, r.unsure) == ("d6", 1, False), f"{image} at {frac}: {r.value} ({r.confidence:.2f})"


def test_a_die_beside_a_close_ups_die_is_no_side_face_of_it(reader: DiceReader):
    """Valid/valid_64 close up round its 4 (0.3 of the frame): the 1 beside the 4 (labelled at 161,73), its pip
    as large as the 4's and 8.6 of them from the 4's centre, lay in the 4's reach (its box grown by its side,
    read again at a close-up scale) and was taken for the 4's side face: lost. Both are read now, sure."""
    folder = paths.shared_dir() / "datasets" / "matteop65_table_d6"
    if not folder.is_dir():
        pytest.skip(f"shared datasets not found at {folder}")
    frame, (x0, y0, k) = scoring.close_up(load_image(folder / "images/Valid/valid_64.jpg"), (223, 89, 47, 45), 0.3)
    readings = reader.read(frame)
    for value, (x, y, w, h) in ((1, (161, 73, 13, 14)), (4, (223, 89, 47, 45))):
        at = ((x + w / 2 - x0) * k, (y + h / 2 - y0) * k)
        assert [(r.value, r.unsure) for r in readings if holds(r.box, at)] == [(value, False)], \
            [(r.value, round(r.confidence, 2), r.box) for r in readings]


def test_pips_at_the_filter_edge_are_read_at_the_scale_they_tell(reader: DiceReader):
    """A 4 spanning 40 % of the frame, its pips (21 px) at the edge of the pip filter: two of them read
    at the analysis scale as a sure 2 at c72f92d. Read again where its pips fit the filter, it is a 4 (and
    the other two dice, whose pips the filter also missed at c72f92d, are found)."""
    for image, x, y in [("images/Train/four_21.jpg", 130, 188), ("images/Train/four_33.jpg", 198, 270),
                        ("images/Train/four_50.jpg", 234, 275)]:
        frame, value, centre = close_up(image, x, y, 0.4)
        r = read_one(reader, frame, value, centre)
        assert r.value == value, f"{image}: a {value} read as {r.value}"


@pytest.mark.parametrize("image, x, y", [("images/Train/six_34.jpg", 164, 199), ("images/Train/six_16.jpg", 170, 94),
                                         ("images/Train/six_23.jpg", 186, 225), ("images/Train/six_47.jpg", 334, 312)])
def test_a_face_read_sure_is_not_cut_to_the_part_its_pip_bodies_frame(reader: DiceReader, image, x, y):
    """A 6 at 0.35 of the frame, its pips 17-19 px (the filter's edge) read sure at the analysis scale, two to five of
    them wide enough (22 px) to be found as bodies too: those bodies made a pattern, read in its region (their box
    grown by a pitch), which cut off the 6's other pips, and the 4 or 3 read there took the 6's place (six_34: a sure
    4, 0.89; the others unsure 3s and a 4). A face read in a pattern that is part of a fuller face read sure is that
    face's part: a sure 6."""
    at, value, read = read_at(reader, image, x, y, 0.35)
    assert at == [(value, False)], read


@pytest.mark.parametrize("image, x, y, frac", [("images/Train/four_22.jpg", 229, 263, 0.35),
                                               ("images/Train/five_31.jpg", 343, 184, 0.45),
                                               ("images/Train/six_53.jpg", 223, 167, 0.2),
                                               ("images/Train/two_47.jpg", 318, 238, 0.3)])
def test_a_die_whose_pips_are_wider_than_the_filter_is_read_beside_faces_read(reader: DiceReader, image, x, y, frac):
    """A die close up whose pips (25-37 px at 640 px) are wider than the pip filter at the analysis scale, its body
    found whole, while the analysis scale read something else: a side face's narrower pips as an unsure face, or
    another die cut by the frame's edge. The smaller scales were read only where the analysis scale found nothing, so
    the body went to the numeral net (read as an unsure 1, d10 10 or d8 8). A body that may hold pips that wide and
    holds no sure face is read at the smaller scales too (detect._close_ups_unread): a sure reading of its value."""
    at, value, read = read_at(reader, image, x, y, frac)
    assert at == [(value, False)], read


def test_a_body_read_at_a_close_up_scale_gives_only_faces_of_pips_wider_than_the_filter(reader: DiceReader):
    """A render of pip d6 of 100-160 px (seed 48): a grey 3 with light pips of 13 px on blue felt, which the analysis
    scale did not read, its body found in two parts. The upper part's box, read at a close-up scale beside the faces
    read elsewhere (detect._close_ups_unread), held two of its pips: a sure 2. Pips the analysis scale's filter spans
    (under PIP_OF_KERNEL of it) are that scale's to read, not a close-up's: the 3 is read as before, by its body
    (right, unsure), never as a sure other value."""
    frame, truths = pip_scene(48, (100, 160))
    x, y, w, h = truths[0]["box"]
    on = [r for r in reader.read(frame) if holds((x, y, w, h), (r.box[0] + r.box[2] / 2, r.box[1] + r.box[3] / 2))]
    assert on, "the 3 is read"
    assert all(r.unsure or r.value == truths[0]["value"] for r in on), [(r.value, r.confidence) for r in on]


def test_a_12_megapixel_close_up_reads_as_its_640_copy(reader: DiceReader):
    """The reader reads a 4000x3000 photo on a copy at most READ_LONG_SIDE px long: the same close-up at
    both sizes gives the same reading, the die's box in each frame's own px (c72f92d: 6 unsure "dice"
    at both sizes)."""
    image, x, y = DICE[0]
    small, value, centre = close_up(image, x, y, 0.6)
    big, _, big_centre = close_up(image, x, y, 0.6, (4000, 3000))
    a = read_one(reader, small, value, centre)
    b = read_one(reader, big, value, big_centre)
    assert (a.value, a.unsure) == (b.value, b.unsure) == (value, False)
    scale = 4000 / 640
    assert np.allclose(np.array(b.box) / scale, a.box, atol=0.1 * a.box[2]), f"boxes {a.box} and {b.box}"


def test_a_face_cut_by_the_frame_stays_unsure_when_read_again_closer(reader: DiceReader):
    """two_37's 2 at (277, 110) close up (0.3 of the frame): the die left of it, cut by the frame's left edge,
    shows two pips of a side face there, as wide as the pip filter. The analysis scale reads them as a 2 the edge
    cuts (runs_off); read again at a close-up scale, which does not ask about the edge, they were a sure 2 of a
    die that is not in the frame whole (ee4427e). That 2 is unsure now, and the middle die's 2 is read sure."""
    frame, value, centre = close_up("images/Train/two_37.jpg", 277, 110, 0.3)
    readings = reader.read(frame)
    middle = [r for r in readings if holds(r.box, centre)]
    assert [(r.value, r.unsure) for r in middle] == [(value, False)], [(r.value, r.confidence, r.box) for r in readings]
    assert all(r.unsure for r in readings if r not in middle), [(r.value, r.confidence, r.box) for r in readings]
