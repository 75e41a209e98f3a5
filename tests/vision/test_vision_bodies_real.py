"""Die-body detection (find_die_bodies, no reference frame) on real numbered-dice photos from
../shared/datasets/lurig_dietype (one die on coloured paper or wood, 480x480, CC0): the body found
must cover the die the photographer centred, without a flood of false bodies."""

import csv

import pytest

from dicetower import paths
from dicetower.vision.camera import load_image
from dicetower.vision.detect import find_die_bodies

LURIG = paths.shared_dir() / "datasets" / "lurig_dietype"


@pytest.mark.skipif(not LURIG.is_dir(), reason=f"shared datasets not found at {LURIG}")
def test_numbered_die_bodies_found_on_every_eighth_lurig_photo():
    with open(LURIG / "labels.csv", newline="") as fh:
        sample = list(csv.DictReader(fh))[::8]
    covered = n_bodies = 0
    for row in sample:
        image = load_image(LURIG / row["image"])
        h, w = image.shape[:2]
        bodies = find_die_bodies(image)
        n_bodies += len(bodies)
        covered += any(x < w / 2 < x + bw and y < h / 2 < y + bh for x, y, bw, bh in (b.box for b in bodies))
    # measured 9 of 13 photos covered, 22 bodies over 13 one-die photos (2026-11-21, detect.py at cb89878);
    # 11 of 13, 21 bodies with the container/large-die test of large blobs; 10 of 13, 26 bodies at
    # 227ba87, 11 of 13, 27 bodies with the chromaticity pass (a die joined to its shadow or the grain)
    assert covered >= 11, f"die covered in {covered} of {len(sample)} photos"
    assert n_bodies <= 3 * len(sample), f"{n_bodies} bodies over {len(sample)} one-die photos"


REALDICE = paths.shared_dir() / "datasets" / "realdice_d20"


@pytest.mark.skipif(not REALDICE.is_dir(), reason=f"shared datasets not found at {REALDICE}")
def test_d20_in_a_dice_dome_gets_a_body_of_its_labelled_colour():
    """The dome's floor and the die differ from the table as one blob cut by the frame's edge; the
    search inside that blob must give the die its own die-sized body, of the labelled body colour."""
    from dicetower.vision.colour import colour_name

    with open(REALDICE / "labels.csv", newline="") as fh:
        sample = list(csv.DictReader(fh))[::8]
    found = 0
    for row in sample:
        image = load_image(REALDICE / row["image"])
        w = image.shape[1]
        for body in find_die_bodies(image):
            x, y, bw, bh = body.box
            if max(bw, bh) < 0.25 * w and colour_name(image[y:y + bh, x:x + bw][body.mask > 0]) == row["colour"]:
                found += 1
                break
    # measured 6 of 20 with the k-means colour split (1 of 20 before it), 18 of 20 with MSER regions
    # of rare colour inside the blob (2026-11-21); 20 of 20 with bodies of one colour (k-means) in it
    assert found >= 19, f"a {sample[0]['colour']} die-sized body in {found} of {len(sample)} photos"
