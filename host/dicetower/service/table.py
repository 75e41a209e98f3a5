"""Table profiles (TOML): the table's rule system, characters and what a press of ROLL resolves.

A profile (see tables/*.toml in the repository):

    name = "Thursday d6 pool"
    system = "d6pool"                       # one of dicetower.rules.SYSTEMS
    [roll]                                  # what a press of ROLL resolves
    procedure = "d6pool.count_successes"    # RULES.md procedure id
    dice_input = "faces"                    # the inputs key that receives the dice readings
    [roll.inputs]                           # fixed inputs; "@a.b.c" refers to a profile value
    # [roll] die_types = ["d6", "d8"]       # the dice thrown, when not only those the procedure takes (see
    #                                       # RollPlan.types_in_play): an unsure numbered die is read as one of them
    [characters.NAME] ...                   # characteristics, skills, health tracks, stones

State changed by outcomes is saved back with save_profile(), atomically.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import tomllib
from pathlib import Path
from typing import Any

import tomli_w

from dicetower import rules

from .plan import RollPlan


class ProfileError(ValueError):
    """A table profile that cannot be used; the message names the file and the field to fix."""


def load_profile(path: Path) -> dict[str, Any]:
    """Parse a profile. Raises ProfileError naming the file on bad TOML or a missing/unknown system."""
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise ProfileError(f"{path}: cannot read the table profile ({exc})") from exc
    except tomllib.TOMLDecodeError as exc:
        raise ProfileError(f"{path}: not valid TOML ({exc}); fix the file and retry") from exc
    system = data.get("system")
    if system not in rules.SYSTEMS:
        raise ProfileError(f"{path}: 'system' must be one of {', '.join(rules.SYSTEMS)}, not {system!r}")
    return data


def _deref(value: Any, profile: dict[str, Any], path: Path) -> Any:
    """Replace "@a.b.c" strings by the profile's value at a.b.c (recursively in lists and tables)."""
    if isinstance(value, str) and value.startswith("@"):
        node: Any = profile
        for key in value[1:].split("."):
            if not isinstance(node, dict) or key not in node:
                raise ProfileError(f"{path}: {value} refers to nothing in the profile")
            node = node[key]
        return node
    if isinstance(value, dict):
        return {k: _deref(v, profile, path) for k, v in value.items()}
    if isinstance(value, list):
        return [_deref(v, profile, path) for v in value]
    return value


def plan_from_profile(profile: dict[str, Any], path: Path) -> RollPlan:
    """The RollPlan of a parsed profile. Raises ProfileError on a `[roll]` whose inputs, odds or apply are not
    tables (inputs and odds dereferenced; apply's targets profile paths) or whose dice_input is not an input's
    name, an unknown procedure id, a `[roll] die_types` that is not a list of die types the standard set reads
    (vision.faces.check_die_types) or that leaves out the die the procedure takes (GEN-D04), and `[roll] inputs`
    that do not say which die the procedure takes (stepdie.test with no die: rules.Procedure.die_type)."""
    roll = profile.get("roll", {})
    if not isinstance(roll, dict):
        raise ProfileError(f"{path}: 'roll' must be a table ([roll] with procedure = \"...\"), not {roll!r}")
    inputs = _deref(roll.get("inputs", {}), profile, path)
    # apply is read as written (Table.apply follows its targets itself), inputs and odds dereferenced
    for key, value in (("inputs", inputs), ("odds", _deref(roll.get("odds", {}), profile, path)),
                       ("apply", roll.get("apply", {}))):
        if not isinstance(value, dict):
            raise ProfileError(f"{path}: [roll] {key} must be a table such as {{ dice = 5 }}, not {roll[key]!r}")
    if not isinstance(roll.get("dice_input", "faces"), str):
        raise ProfileError(f"{path}: [roll] dice_input must name the input the dice go to (e.g. \"faces\"), "
                           f"not {roll['dice_input']!r}")
    if not all(isinstance(target, str) for target in roll.get("apply", {}).values()):
        raise ProfileError(f"{path}: [roll.apply] maps an outcome key to a profile path such as "
                           f"\"characters.brom.health.wounds\"")
    procedure = roll.get("procedure")
    if not procedure or not isinstance(procedure, str):
        raise ProfileError(f"{path}: [roll] needs a 'procedure' (a RULES.md procedure id)")
    if not procedure.startswith(profile["system"] + "."):
        raise ProfileError(f"{path}: procedure {procedure} is not of the table's system {profile['system']}")
    try:
        rules.get(procedure)
    except rules.RulesError as exc:
        raise ProfileError(f"{path}: {exc}") from exc
    plan = RollPlan(procedure=procedure, dice_input=roll.get("dice_input", "faces"),
                    inputs=inputs,
                    die_types=_die_types(_deref(roll.get("die_types"), profile, path), path))
    try:
        taken = plan.procedure_die()
    except rules.RulesError as exc:
        raise ProfileError(f"{path}: [roll] inputs do not say which die {procedure} takes as "
                           f"{plan.dice_input!r}: {exc}") from exc
    if taken is not None and plan.die_types is not None and taken not in plan.die_types:
        raise ProfileError(f"{path}: [roll] die_types {list(plan.die_types)} leave out the {taken} that {procedure} "
                           f"takes as {plan.dice_input!r} (GEN-D04): add it, or drop die_types to throw only the "
                           f"procedure's own")
    return plan


def _die_types(value: Any, path: Path) -> tuple[str, ...] | None:
    """`[roll] die_types` (dereferenced) as a tuple from the fewest faces up (d4, d6, ..., d20: the panel steps
    through their faces in this order), or None when absent. Raises ProfileError naming the file when it is
    not a list of known die types."""
    if value is None:
        return None
    from dicetower.vision.faces import check_die_types
    from dicetower.vision.shape import DIE_TYPES

    if not isinstance(value, list):
        raise ProfileError(f"{path}: [roll] die_types must be a list such as [\"d6\"], not {value!r}")
    try:
        types = check_die_types(value)
    except ValueError as exc:
        raise ProfileError(f"{path}: [roll] die_types: {exc}") from exc
    assert types is not None
    return tuple(sorted(types, key=DIE_TYPES.index))


class Table:
    """A loaded table profile: what ROLL resolves, the idle line, and outcomes applied to its state.

    path: the profile file (TOML). `[roll.odds]` gives the inputs of the roll about to be made for
    the idle screen's odds line (e.g. `faces = 5` dice); `[roll.apply]` maps an outcome key to a
    profile value it adds to (e.g. `damage = "characters.brom.health.wounds"`), saved back
    atomically after each resolved roll. Raises ProfileError on a bad profile.
    """

    def __init__(self, path: Path):
        self.path = Path(path)
        self.profile = load_profile(self.path)
        self.plan = plan_from_profile(self.profile, self.path)

    @property
    def name(self) -> str:
        return str(self.profile.get("name", self.path.stem))

    def idle_line(self) -> str:
        """One OLED line with the odds of the roll about to be made (issue 3 item 7; `[roll.odds]`
        completes the plan's inputs, e.g. the pool size), or the table's name when the procedure
        rolls no dice or the roll is not fixed yet."""
        from dicetower.rules.odds import idle_line_for

        odds_inputs = self.profile.get("roll", {}).get("odds")
        if odds_inputs is None:
            return self.name[:16]
        line = idle_line_for(self.plan.procedure, {**self.plan.inputs, **_deref(odds_inputs, self.profile, self.path)})
        return line or self.name[:16]

    def apply(self, outcome: dict[str, Any]) -> list[str]:
        """Add the outcome's values to the state fields named in `[roll.apply]` and save the profile
        atomically. Returns the changed fields as "path: old -> new". Raises ProfileError when a
        target is not a number, OSError when the file cannot be written (the old file stays)."""
        changes = []
        for key, target in self.profile.get("roll", {}).get("apply", {}).items():
            if not isinstance(outcome.get(key), (int, float)) or isinstance(outcome.get(key), bool):
                continue
            *parents, leaf = target.split(".")
            node: Any = self.profile
            for part in parents:
                node = node.get(part) if isinstance(node, dict) else None
            if not isinstance(node, dict) or not isinstance(node.get(leaf, 0), (int, float)):
                raise ProfileError(f"{self.path}: [roll.apply] {key} -> {target} is not a number in the profile")
            old = node.get(leaf, 0)
            node[leaf] = old + outcome[key]
            changes.append(f"{target}: {old} -> {node[leaf]}")
        if changes:
            save_profile(self.path, self.profile)
        return changes


def save_profile(path: Path, profile: dict[str, Any]) -> None:
    """Write the profile back atomically: a temporary file in the same folder, fsync, then rename,
    so a crash leaves either the old or the new file, never half of one. Raises OSError (disk full,
    read-only) with the old file intact."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            tomli_w.dump(profile, fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise

