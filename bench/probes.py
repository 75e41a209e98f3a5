"""The render probes: scenes drawn by the synthetic renderer (dicetower.vision.synth), read through the reader and
scored against their truths. The README and the code's notes give "render probe" figures from these, so anyone can
run them again: a change to the reader that moves a die on them says how many, and which. g60 and g25 are p60's
and p25's scenes with a glint on every die's up face (most wash a pip out: their dice are mostly unsure by design).

    make probes                                        # every probe's figures (300 scenes each; minutes on 2 cores)
    python -m bench probes p60 crowds --scenes 50      # two probes, fewer scenes
    python -m bench probes p25 --dump p25.jsonl        # each die's truth and reading, one JSON line each

Each probe draws scene `seed` (0 .. scenes-1) from the random seed [9371, seed], so a scene is the same frame on every
run and every machine numpy draws alike on; a scene whose dice cannot be placed is skipped. Figures per probe (a
die matched to a reading by scoring.match, as the bench matches labelled photos):
- right: dice read with their type and value, sure or unsure; unsure: dice read unsure; found: dice matched to a
  reading; sure_wrong: dice read sure and wrong (what a change must not raise);
- extras: readings matched to no die (sure_extras: those read sure, dice no one threw)."""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict, dataclass
from typing import Callable

import numpy as np

from dicetower.vision import synth
from dicetower.vision.reader import DiceReader
from dicetower.vision.scoring import match

#: the random seed's first part, the same for every probe
PROBE_SEED = 9371
#: scenes a probe reads unless told
SCENES = 300


def pip_scene(seed: int, die_px: tuple[int, int], glint: float = 0.0) -> tuple[np.ndarray, list[dict]]:
    """A render of 2-6 pip d6 in random colours (the pip probes' scene `seed`, die_px least and most px a die; glint:
    each die's chance of the lamp's glint on its up face, synth.render_scene's): the frame (HxWx3 uint8 BGR) and its
    truths (synth.render_scene's). Raises ValueError when the dice cannot all be placed."""
    rng = np.random.default_rng([PROBE_SEED, seed])
    count = int(rng.integers(2, 7))
    dice = [(synth.standard_spec("d6", rng, pips=True), int(rng.integers(1, 7))) for _ in range(count)]
    return synth.render_scene(dice, rng, die_px=die_px, glint=glint)


def glint_scene(seed: int, die_px: tuple[int, int]) -> tuple[np.ndarray, list[dict]]:
    """pip_scene with the lamp's glint on every die's up face (glossy dice under the tower's light ring: session 58's
    glint probes). Raises ValueError when the dice cannot all be placed."""
    return pip_scene(seed, die_px, glint=1.0)


def crowd_scene(seed: int, die_px: tuple[int, int]) -> tuple[np.ndarray, list[dict]]:
    """A render of 12-21 pip d6 in random colours (the crowds probe's scene `seed`, die_px least and most px a die):
    the frame (HxWx3 uint8 BGR) and its truths. Raises ValueError when the dice cannot all be placed."""
    rng = np.random.default_rng([PROBE_SEED, seed])
    count = int(rng.integers(12, 22))
    dice = [(synth.standard_spec("d6", rng, pips=True), int(rng.integers(1, 7))) for _ in range(count)]
    return synth.render_scene(dice, rng, die_px=die_px)


def any_type_scene(seed: int, die_px: tuple[int, int]) -> tuple[np.ndarray, list[dict]]:
    """A render of 2-6 dice of any standard type in random colours (the any-type probes' scene `seed`, die_px least
    and most px a die): the frame (HxWx3 uint8 BGR) and its truths. Raises ValueError when the dice cannot all be
    placed."""
    rng = np.random.default_rng([PROBE_SEED, seed])
    dice = []
    for _ in range(int(rng.integers(2, 7))):
        kind = synth.STANDARD_TYPES[int(rng.integers(0, 6))]
        dice.append((synth.standard_spec(kind, rng), int(rng.integers(1, synth.FACES[kind] + 1))))
    return synth.render_scene(dice, rng, die_px=die_px)


def truth_labels(truths: list[dict]) -> list[dict[str, str]]:
    """A render's truths (synth.render_scene's) as labels.csv rows (image, die_type, value, x, y, w, h, colour: all
    text, image and colour empty), to match readings against (scoring.match) as a labelled photo's."""
    return [{"image": "", "die_type": t["die_type"], "value": str(t["value"]), "x": str(t["box"][0]),
             "y": str(t["box"][1]), "w": str(t["box"][2]), "h": str(t["box"][3]), "colour": ""} for t in truths]


Scene = Callable[[int, tuple[int, int]], tuple[np.ndarray, list[dict]]]
#: probe name -> (its scenes, least and most px a die)
PROBES: dict[str, tuple[Scene, tuple[int, int]]] = {
    "p60": (pip_scene, (60, 90)), "p25": (pip_scene, (25, 45)), "p18": (pip_scene, (18, 36)),
    "crowds": (crowd_scene, (25, 45)), "a25": (any_type_scene, (25, 45)), "a60": (any_type_scene, (60, 90)),
    "g60": (glint_scene, (60, 90)), "g25": (glint_scene, (25, 45)),
}


@dataclass
class ProbeFigures:
    """One probe's counts over its scenes (dice, readings); see the module's notes for each."""

    dice: int = 0
    found: int = 0
    right: int = 0
    unsure: int = 0
    sure_wrong: int = 0
    extras: int = 0
    sure_extras: int = 0


def run_probe(name: str, scenes: int = SCENES, reader: DiceReader | None = None,
              dump: Callable[[dict], None] | None = None) -> ProbeFigures:
    """Read probe `name`'s scenes 0 .. scenes-1 (PROBES) with reader (a DiceReader of the shipped models when None)
    and count them (ProbeFigures). dump: called with each die as {"seed", "die", "truth": [type, value], "read":
    [type, value, confidence, unsure] or None}, and with each reading matched to no die as {"seed", "extra": [type,
    value, confidence, unsure]}. Raises KeyError for a probe not in PROBES."""
    scene, die_px = PROBES[name]
    reader = reader or DiceReader()
    figures = ProbeFigures()
    for seed in range(scenes):
        try:
            frame, truths = scene(seed, die_px)
        except ValueError:
            continue  # its dice could not all be placed
        dice = [r.to_json() for r in reader.read(frame)]
        labels = truth_labels(truths)
        matched = set()
        for k, (label, die) in enumerate(match(labels, dice)):
            figures.dice += 1
            read = None
            if die is not None:
                matched.add(id(die))
                ok = die["die_type"] == label["die_type"] and str(die["value"]) == label["value"]
                figures.found += 1
                figures.right += ok
                figures.unsure += die["unsure"]
                figures.sure_wrong += not ok and not die["unsure"]
                read = [die["die_type"], die["value"], die["confidence"], die["unsure"]]
            if dump is not None:
                dump({"seed": seed, "die": k, "truth": [label["die_type"], int(label["value"])], "read": read})
        for die in dice:
            if id(die) not in matched:
                figures.extras += 1
                figures.sure_extras += not die["unsure"]
                if dump is not None:
                    dump({"seed": seed, "extra": [die["die_type"], die["value"], die["confidence"], die["unsure"]]})
    return figures


def main(argv: list[str]) -> int:
    """`python -m bench probes [PROBE ...] [--scenes N] [--dump FILE]`: print each probe's figures (every probe when
    none is named); each die's truth and reading written to FILE as JSON lines, with the probe's name. Returns 0;
    exits with argparse's usage error (2) for a probe not in PROBES."""
    parser = argparse.ArgumentParser(prog="python -m bench probes", description=__doc__.split("\n\n")[0])
    parser.add_argument("probes", nargs="*", metavar="PROBE",
                        help=f"probes to read ({', '.join(PROBES)}; all when none is named)")
    parser.add_argument("--scenes", type=int, default=SCENES, help=f"scenes per probe (default {SCENES})")
    parser.add_argument("--dump", metavar="FILE", help="each die's truth and reading, one JSON line each")
    args = parser.parse_args(argv)
    unknown = [name for name in args.probes if name not in PROBES]
    if unknown:
        parser.error(f"no probe {', '.join(unknown)}: name any of {', '.join(PROBES)}")
    reader = DiceReader()
    out = open(args.dump, "w") if args.dump else None
    try:
        print(f"{'probe':<8}" + "".join(f"{k:>12}" for k in asdict(ProbeFigures())))
        for name in args.probes or list(PROBES):
            def dump(row: dict, name: str = name) -> None:
                assert out is not None
                out.write(json.dumps({"probe": name, **row}) + "\n")

            figures = run_probe(name, args.scenes, reader, dump if out is not None else None)
            print(f"{name:<8}" + "".join(f"{v:>12}" for v in asdict(figures).values()), flush=True)
    finally:
        if out is not None:
            out.close()
    return 0
