"""bench.probes: the render probes the README's and the code's figures cite, run again by anyone."""

import json

import numpy as np
import pytest

from bench import probes
from dicetower.vision.reader import DiceReader


@pytest.fixture(scope="module")
def reader():
    return DiceReader(second_process=False)


def test_a_probe_scene_is_the_same_frame_on_every_draw():
    a, truths_a = probes.pip_scene(5, (60, 90))
    b, truths_b = probes.pip_scene(5, (60, 90))
    assert np.array_equal(a, b) and truths_a == truths_b
    assert not np.array_equal(a, probes.pip_scene(6, (60, 90))[0])


def test_run_probe_counts_each_die_once_as_its_dump_shows_it(reader):
    rows: list[dict] = []
    figures = probes.run_probe("p60", scenes=4, reader=reader, dump=rows.append)
    dice = [r for r in rows if "die" in r]
    extras = [r for r in rows if "extra" in r]
    assert figures.dice == len(dice) > 0 and figures.extras == len(extras)
    read = [r for r in dice if r["read"] is not None]
    assert figures.found == len(read)
    assert figures.right == sum(r["read"][:2] == r["truth"] for r in read)
    assert figures.unsure == sum(r["read"][3] for r in read)
    assert figures.sure_wrong == sum(r["read"][:2] != r["truth"] and not r["read"][3] for r in read)
    # the truths are the scenes' own
    for seed in range(4):
        _, truths = probes.pip_scene(seed, (60, 90))
        assert [r["truth"] for r in dice if r["seed"] == seed] == [[t["die_type"], t["value"]] for t in truths]


def test_the_command_prints_a_row_per_probe_and_dumps_its_dice(tmp_path, capsys):
    out = tmp_path / "p60.jsonl"
    assert probes.main(["p60", "--scenes", "2", "--dump", str(out)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["probe", "dice", "found", "right", "unsure", "sure_wrong", "extras", "sure_extras"]
    assert len(lines) == 2 and lines[1].split()[0] == "p60"
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert rows and all(r["probe"] == "p60" for r in rows)
    assert int(lines[1].split()[1]) == sum("die" in r for r in rows)


def test_an_unknown_probe_is_a_usage_error_naming_the_probes(capsys):
    with pytest.raises(SystemExit) as exc:
        probes.main(["p99"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "no probe p99" in err and "p60" in err
