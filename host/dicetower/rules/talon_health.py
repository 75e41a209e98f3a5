"""Talon health tracks: Endurance, Équilibre Mental, Vitalité (RULES.md 3.9; seed 002 "5. Santé").

A track has three tiers (slots, free slots, damage threshold, levels taken, free levels taken) and a
Cumul. `TrackState` is the plain-data form; the procedures `talon.health_*`, `talon.npc_tracks` and
`talon.endurance_cumul_actions` read and write it. DECISIONS TAL-D12..D15, TAL-D30, TAL-D31.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .registry import RulesError, procedure
from .screen import fit
from .talon_deck import as_int, atout_levels, fold_key

#: Tier names and the state beyond tier 3 for each track (RULES.md 3.9).
TRACKS = {
    "endurance": (("fatigue", "epuisement", "syncope"), "unconscious"),
    "equilibre_mental": (("nervosite", "choc", "panique"), "gm_takes_control"),
    "vitalite": (("blessure_legere", "blessure_grave", "blessure_mortelle"), "collapsed_dying"),
}
DEFAULT_SLOTS = (4, 2, 1)
DEFAULT_THRESHOLDS = (2, 5, 10)
MALUS_PER_LEVEL = (0.5, 3, 7)
CUMUL_MAX = 3
TIER3_REPEAT_FACTOR = 2  # TAL-D15: d > 2*T3 gives floor(d/T3) tier-3 levels


def track_name(value: Any) -> str:
    """Normalise a track name ("Vitalité", "equilibre mental") to a TRACKS key. Raises RulesError."""
    key = fold_key(value)
    if key not in TRACKS:
        raise RulesError(f"unknown health track {value!r}; tracks are {', '.join(TRACKS)}")
    return key


@dataclass
class Tier:
    """One tier of a track. slots includes free slots; taken includes free levels taken.
    threshold: damage points (int) or None for a tier an NPC lacks (slots 0)."""

    name: str
    slots: int
    threshold: int | None
    free_slots: int = 0
    taken: int = 0
    free_taken: int = 0

    @property
    def nonfree_taken(self) -> int:
        return self.taken - self.free_taken


@dataclass
class TrackState:
    """A health track (RULES.md 3.9). cumul_max 0 means no Cumul (NPC tracks, TAL-D12).
    terminal: None, or the track's state beyond tier 3 once reached ("unconscious", ...)."""

    track: str
    tiers: list[Tier]
    cumul: int = 0
    cumul_max: int = CUMUL_MAX
    terminal: str | None = None
    atouts: dict[str, int] = field(default_factory=dict)

    @classmethod
    def default(cls, track: str, skill_value: int | None = None) -> "TrackState":
        """The default track (seed 002 "2. Compétences"/"5. Santé"), with the free levels of
        `talon.health_bonus_levels` when the track's skill value is given (TAL-D14)."""
        track = track_name(track)
        free = bonus_free_levels(skill_value) if skill_value is not None else (0, 0, 0)
        names = TRACKS[track][0]
        return cls(track, [Tier(names[i], DEFAULT_SLOTS[i] + free[i], DEFAULT_THRESHOLDS[i], free[i])
                           for i in range(3)])

    @classmethod
    def from_input(cls, inputs: dict[str, Any]) -> "TrackState":
        """Track from a vector's inputs: {"state": {"track", "tier1": {"slots", "threshold", "taken",
        "free_taken", "free"?}, ..., "cumul", "cumul_max"}}, or {"track", "cumul"?, "cumul_max"?}
        (default track, "state": "fresh" allowed), or per-tier counts {"tier1_nonfree_taken",
        "tier2_taken", ...}. Raises RulesError on a malformed state."""
        state = inputs.get("state")
        if isinstance(state, dict):
            track = track_name(state.get("track", inputs.get("track", "endurance")))
            names = TRACKS[track][0]
            tiers = []
            for i in range(3):
                t = state.get(f"tier{i + 1}")
                if not isinstance(t, dict):
                    raise RulesError(f"state.tier{i + 1} must be an object with slots, threshold, taken")
                free_taken = as_int(t.get("free_taken", 0), f"tier{i + 1}.free_taken")
                tier = Tier(str(t.get("name", names[i])), as_int(t.get("slots", DEFAULT_SLOTS[i]), "slots"),
                            as_int(t.get("threshold", DEFAULT_THRESHOLDS[i]), "threshold"),
                            max(as_int(t.get("free", 0), "free"), free_taken),
                            as_int(t.get("taken", 0), "taken"), free_taken)
                tiers.append(tier)
            out = cls(track, tiers, as_int(state.get("cumul", 0), "cumul"),
                      as_int(state.get("cumul_max", CUMUL_MAX), "cumul_max"))
        elif state in (None, "fresh"):
            out = cls.default(inputs.get("track", "endurance"), inputs.get("skill_value"))
            out.cumul = as_int(inputs.get("cumul", inputs.get("endurance_cumul", 0)), "cumul")
            out.cumul_max = as_int(inputs.get("cumul_max", CUMUL_MAX), "cumul_max")
            for i, tier in enumerate(out.tiers, start=1):
                nonfree = inputs.get(f"tier{i}_nonfree_taken", inputs.get(f"tier{i}_taken"))
                if nonfree is not None:
                    tier.taken = tier.free_taken + as_int(nonfree, f"tier{i}_taken")
                    tier.slots = max(tier.slots, tier.taken)
        else:
            raise RulesError(f"state must be an object or \"fresh\", not {state!r}")
        out.atouts = atout_levels(inputs.get("atouts"))
        out.check()
        return out

    def check(self) -> None:
        """Raise RulesError when counts are impossible (more taken than slots, negative values)."""
        for tier in self.tiers:
            if not 0 <= tier.free_taken <= tier.taken <= tier.slots or tier.free_slots > tier.slots:
                raise RulesError(f"tier {tier.name}: taken {tier.taken} (free {tier.free_taken}) must lie "
                                 f"within 0..slots {tier.slots}")
        if self.cumul_max > 0 and not 0 <= self.cumul <= self.cumul_max:
            raise RulesError(f"cumul {self.cumul} must lie within 0..{self.cumul_max}")

    def take_level(self, index: int) -> str:
        """Take one level in tier `index` (0..2), free slots first (TAL-D14), overflowing into the
        next tier when full; beyond tier 3 the terminal state applies. Returns the name recorded."""
        while index < 3 and self.tiers[index].taken >= self.tiers[index].slots:
            index += 1
        if index >= 3:
            self.terminal = TRACKS[self.track][1]
            return self.terminal
        tier = self.tiers[index]
        tier.taken += 1
        if tier.free_taken < tier.free_slots:
            tier.free_taken += 1
        return tier.name

    def apply_damage(self, damage: int) -> dict[str, Any]:
        """`talon.health_apply_damage` (RULES.md 3.9 steps 1-5, TAL-D12 equality reaches a threshold,
        TAL-D15 several tier-3 levels). Returns {"levels_taken": tier names hit, "levels_recorded":
        names after overflow, "cumul_after"}."""
        if damage < 0:
            raise RulesError(f"damage must be >= 0, not {damage}")
        hit: list[int] = []
        present = [i for i, t in enumerate(self.tiers) if t.threshold is not None and (t.slots or i == 2)]
        band = max((i for i in present if damage >= self.tiers[i].threshold), default=None)  # type: ignore[operator]
        if band is None:
            if self.cumul_max > 0:
                self.cumul += damage
                if self.cumul > self.cumul_max:
                    self.cumul = 0
                    hit.append(0)
        elif band == 2:
            t3 = self.tiers[2].threshold or 1
            hit += [2] * (damage // t3 if damage > TIER3_REPEAT_FACTOR * t3 else 1)
        else:
            hit.append(band)
        recorded = [self.take_level(i) for i in hit]
        return {"levels_taken": [self.tiers[i].name for i in hit], "levels_recorded": recorded,
                "cumul_after": self.cumul}

    def malus(self) -> tuple[int, str]:
        """`talon.health_malus` of this track: (malus <= 0, computation text). Only the highest tier
        with a non-free level taken counts (seed 002 "5. Santé"; TAL-D13). Atouts (seed 002
        "9. Atouts"; TAL-D14): Juste une égratignure (no Blessure légère malus), Dur à cuire (X)
        (the first X Blessure grave maluses cancelled), Infatigable (X) (the first X Épuisement
        maluses), Second souffle (the first Épuisement level left with a malus gives none and the
        Fatigue maluses are cancelled). A cancelled level counts as free."""
        n = [t.nonfree_taken for t in self.tiers]
        fatigue_cancelled = False
        if self.track == "vitalite":
            if self.atouts.get("juste_une_egratignure"):
                n[0] = 0
            n[1] = max(0, n[1] - self.atouts.get("dur_a_cuire", 0))
        if self.track == "endurance":
            n[1] = max(0, n[1] - self.atouts.get("infatigable", 0))
            if self.atouts.get("second_souffle") and n[1] > 0:
                n[1] -= 1
                fatigue_cancelled = True
        if fatigue_cancelled:
            n[0] = 0
        for i in (2, 1, 0):
            if n[i] > 0:
                if i == 0:
                    value = int(n[i] * MALUS_PER_LEVEL[0])
                    return -value, f"floor({n[i]} * 0.5) = {value}"
                value = n[i] * int(MALUS_PER_LEVEL[i])
                return -value, f"{n[i]} * {int(MALUS_PER_LEVEL[i])} = {value}"
        return 0, "no level with a malus taken"

    def summary(self) -> dict[str, Any]:
        """Counts after a change: {"tier1_taken", "tier2_taken", "tier3_taken"}."""
        return {f"tier{i + 1}_taken": t.taken for i, t in enumerate(self.tiers)}

    def to_json(self) -> dict[str, Any]:
        """The full state in the input shape of `from_input` ("state")."""
        out: dict[str, Any] = {"track": self.track, "cumul": self.cumul, "cumul_max": self.cumul_max}
        for i, t in enumerate(self.tiers):
            out[f"tier{i + 1}"] = {"name": t.name, "slots": t.slots, "free": t.free_slots,
                                   "threshold": t.threshold, "taken": t.taken, "free_taken": t.free_taken}
        if self.terminal:
            out["terminal"] = self.terminal
        return out


def bonus_free_levels(skill_value: int) -> tuple[int, int, int]:
    """Free levels added by the track's skill value: >=15 tier 1, >=18 tier 2, >=20 tier 3
    (seed 002 "2. Compétences", Endurance/Équilibre mental/Vitalité; TAL-D14)."""
    return (int(skill_value >= 15), int(skill_value >= 18), int(skill_value >= 20))


@procedure("talon.health_track_default")
def health_track_default(inputs: dict[str, Any]) -> dict[str, Any]:
    """Default track: Cumul 3; 4 levels at threshold 2, 2 at 5, 1 at 10; malus ½ / 3 / 7 per level
    (seed 002 "2. Compétences" fin, "5. Santé"; RULES.md 3.9). inputs: {"track"?}."""
    track = track_name(inputs.get("track", "endurance"))
    names = TRACKS[track][0]
    out: dict[str, Any] = {"track": track, "cumul_max": CUMUL_MAX}
    for i in range(3):
        out[f"tier{i + 1}"] = {"name": names[i], "slots": DEFAULT_SLOTS[i], "threshold": DEFAULT_THRESHOLDS[i]}
    out["malus_per_level"] = {"tier1": MALUS_PER_LEVEL[0], "tier2": int(MALUS_PER_LEVEL[1]),
                              "tier3": int(MALUS_PER_LEVEL[2])}
    out["beyond_tier3"] = TRACKS[track][1]
    return out


@procedure("talon.health_bonus_levels")
def health_bonus_levels(inputs: dict[str, Any]) -> dict[str, Any]:
    """Slots of a track whose skill (Endurance, Équilibre mental, Vitalité) has value V: one added
    free level per tier at V >= 15 / 18 / 20 (RULES.md 3.9, TAL-D14). inputs: {"skill", "value"}.
    Returns tier<i>_slots and tier<i>_free."""
    track = track_name(inputs.get("skill", inputs.get("track", "endurance")))
    state = TrackState.default(track, as_int(inputs.get("value"), "value"))
    out: dict[str, Any] = {"track": track}
    for i, t in enumerate(state.tiers, start=1):
        out[f"tier{i}_slots"], out[f"tier{i}_free"] = t.slots, t.free_slots
    return out


#: Screen names of tiers and terminal states (the OLED has 16 columns).
SHORT = {"fatigue": "Fatigue", "epuisement": "Epuis.", "syncope": "Syncope", "nervosite": "Nervos.",
         "choc": "Choc", "panique": "Panique", "blessure_legere": "NBL", "blessure_grave": "NBG",
         "blessure_mortelle": "NBM", "unconscious": "KO", "gm_takes_control": "GM ctrl", "collapsed_dying": "dying"}


def damage_track_screen(outcome: dict[str, Any]) -> list[str]:
    """OLED form of damage applied to a track: levels hit and recorded, the track, the malus."""
    track = outcome["track_after"]
    lines = [fit(f"{track['track'].upper()}")]
    for hit, rec in zip(outcome["levels_taken"], outcome["levels_recorded"]):
        lines.append(fit(f"+{SHORT.get(hit, hit)}" + (f" -> {SHORT.get(rec, rec)}" if rec != hit else "")))
    if not outcome["levels_taken"]:
        lines.append(fit(f"cumul {outcome['cumul_after']}/{track['cumul_max']}"))
    for i in (1, 2, 3):
        t = track[f"tier{i}"]
        lines.append(fit(f"{SHORT.get(t['name'], t['name'])} {t['taken']}/{t['slots']}"))
    lines.append(fit(f"malus {outcome['malus']}"))
    if outcome.get("terminal"):
        lines.append(fit(outcome["terminal"].replace("_", " ").upper()))
    return lines[:8]


@procedure("talon.health_apply_damage", screen=damage_track_screen)
def health_apply_damage(inputs: dict[str, Any]) -> dict[str, Any]:
    """Apply `damage` points (after armour) to one track (RULES.md 3.9; TAL-D12, TAL-D14, TAL-D15).

    inputs: {"damage": int} plus a track as read by TrackState.from_input.
    Returns levels_taken (tier names of the band hit), levels_recorded (after overflow), tier_hit,
    converted_to (when a full tier overflowed), cumul_after, state_after {tierN_taken}, malus,
    terminal (state beyond tier 3 or None), track_after (full state)."""
    state = TrackState.from_input(inputs)
    result = state.apply_damage(as_int(inputs.get("damage"), "damage"))
    malus, computation = state.malus()
    out: dict[str, Any] = dict(result)
    if result["levels_taken"]:
        out["tier_hit"] = result["levels_taken"][0]
        converted = [r for h, r in zip(result["levels_taken"], result["levels_recorded"]) if h != r]
        if converted:
            out["converted_to"] = converted[0]
    out.update({"state_after": state.summary(), "malus": malus, "computation": computation,
                "terminal": state.terminal, "track_after": state.to_json()})
    return out


@procedure("talon.health_malus", screen=lambda o: {"big": str(o["malus"]), "lines": [
    "HEALTH MALUS", fit(o["computation"].split(" = ")[0])]})
def health_malus(inputs: dict[str, Any]) -> dict[str, Any]:
    """Malus of one track (RULES.md 3.9 `talon.health_malus`, TAL-D13), or of several tracks added
    together (TAL-D31) when inputs has "tracks": [track inputs...].
    Returns {"malus": int <= 0, "computation": str}."""
    if "tracks" in inputs:
        parts = [TrackState.from_input(t).malus() for t in inputs["tracks"]]
        return {"malus": sum(m for m, _ in parts), "computation": " + ".join(c for _, c in parts),
                "per_track": [m for m, _ in parts]}
    malus, computation = TrackState.from_input(inputs).malus()
    return {"malus": malus, "computation": computation}


#: Endurance Cumul points added by an action (RULES.md 3.9 `talon.endurance_cumul_actions`).
CUMUL_ACTIONS = {"attaquer": 1, "feinter": 1, "defense_celerite": 2, "adrenaline": 1}


@procedure("talon.endurance_cumul_actions")
def endurance_cumul_actions(inputs: dict[str, Any]) -> dict[str, Any]:
    """Endurance Cumul bookkeeping of one action (seed 002 "6. Combat"; RULES.md 3.9; TAL-D30).

    inputs: {"action": attaquer|feinter|defense_celerite|adrenaline|gerer_son_effort|souffler,
             "endurance_cumul": int, "fatigue_levels_taken"?: int, "endurance_test_success"?: bool,
             "attacked_this_round"?: bool, "souffler_rounds_in_a_row"?: int,
             "recovered_this_combat"?: bool (an Épuisement/Syncope level already recovered, TAL-D30),
             "epuisement_levels_taken"?, "syncope_levels_taken"?}
    Returns endurance_cumul_after, levels_taken, and for souffler the levels after recovery.
    Raises RulesError for an unknown action or souffler in a round with an attack."""
    action = str(inputs.get("action", "")).lower()
    cumul = as_int(inputs.get("endurance_cumul", 0), "endurance_cumul")
    state = TrackState.default("endurance")
    state.cumul = cumul
    fatigue = as_int(inputs.get("fatigue_levels_taken", 0), "fatigue_levels_taken")
    if action in CUMUL_ACTIONS:
        state.cumul += CUMUL_ACTIONS[action]
        levels = []
        if state.cumul > state.cumul_max:
            state.cumul = 0
            levels.append("fatigue")
        return {"endurance_cumul_after": state.cumul, "levels_taken": levels,
                "cumul_added": CUMUL_ACTIONS[action]}
    if action == "gerer_son_effort":
        return {"endurance_cumul_after": 0, "levels_taken": []}
    if action == "souffler":
        if inputs.get("attacked_this_round"):
            raise RulesError("souffler needs a round with no attack (defence only): drop attacked_this_round")
        recover = 1 + (1 if inputs.get("endurance_test_success") else 0)
        out: dict[str, Any] = {"fatigue_levels_taken_after": max(0, fatigue - recover),
                               "endurance_cumul_after": 0, "levels_taken": []}
        if "endurance_test_success" not in inputs:
            out["next"] = "an Endurance test recovers 1 more Fatigue level: resolve again with endurance_test_success"
        rounds = as_int(inputs.get("souffler_rounds_in_a_row", 1), "souffler_rounds_in_a_row")
        if not inputs.get("recovered_this_combat"):
            if rounds >= 3 and as_int(inputs.get("syncope_levels_taken", 0), "syncope_levels_taken") > 0:
                out["syncope_recovered"] = 1
            elif rounds >= 2 and as_int(inputs.get("epuisement_levels_taken", 0), "epuisement_levels_taken") > 0:
                out["epuisement_recovered"] = 1
        return out
    raise RulesError(f"unknown action {action!r}; actions are {', '.join([*CUMUL_ACTIONS, 'gerer_son_effort', 'souffler'])}")


#: NPC tracks by type: (tier slots, thresholds) with None for a missing tier (RULES.md 3.11).
NPC_TRACKS = {
    "troisieme_zone": ((0, 0, 1), (None, None, 4)),
    "deuxieme_categorie": ((0, 1, 1), (None, 4, 8)),
    "premiere_classe": ((4, 2, 1), (2, 5, 10)),
}


@procedure("talon.npc_tracks", screen=lambda o: ["NPC WOUNDS"] + [fit("+" + SHORT.get(r, r)) for r in o["levels_recorded"]]
           + [fit("no effect" if not o["levels_taken"] else ""), fit(o["state"].replace("_", " ").upper())])
def npc_tracks(inputs: dict[str, Any]) -> dict[str, Any]:
    """Damage to an NPC's Vitalité track (seed 002 "6. Combat — Personnages de Troisième Zone" etc.;
    RULES.md 3.11; TAL-D12: below the lowest threshold nothing happens, no Cumul).

    inputs: {"npc": troisieme_zone|deuxieme_categorie|premiere_classe, "damage": int,
             "track"?: {"nbm_slots", "nbm_threshold", "nbg_slots", "nbg_threshold", "nbl_slots",
                        "nbl_threshold", "taken" (NBM taken), "nbg_taken", "nbl_taken"}}
    Returns levels_taken, levels_recorded, state ("active" | "collapsed_dying"), track_after."""
    npc = str(inputs.get("npc", "")).lower()
    if npc not in NPC_TRACKS:
        raise RulesError(f"unknown NPC type {npc!r}; types are {', '.join(NPC_TRACKS)}")
    slots, thresholds = NPC_TRACKS[npc]
    given = inputs.get("track") or {}
    names = TRACKS["vitalite"][0]
    keys = ("nbl", "nbg", "nbm")
    tiers = []
    for i, key in enumerate(keys):
        taken_key = "taken" if key == "nbm" and "nbm_taken" not in given else f"{key}_taken"
        tiers.append(Tier(names[i], as_int(given.get(f"{key}_slots", slots[i]), f"{key}_slots"),
                          given.get(f"{key}_threshold", thresholds[i]), 0,
                          as_int(given.get(taken_key, 0), taken_key)))
    state = TrackState("vitalite", tiers, 0, 0)
    state.check()
    result = state.apply_damage(as_int(inputs.get("damage"), "damage"))
    return {**result, "state": "collapsed_dying" if state.terminal else "active",
            "track_after": {f"{k}_taken": t.taken for k, t in zip(keys, state.tiers)}}
