"""Throwing Stones stones: face records, the stone catalogue, reading a throw, counting, exact odds,
and the seed's tables the other modules share (Table 1 ids, Table 2 monsters, Table 4 equipment).

Seed 000 "Symbole" and Table 1; RULES.md 1.1, DECISIONS TS-D01 (catalogue), TS-D02 (rainbow), TS-D03
(colourless faces), TS-D04 (at most 10 stones), GEN-D03 (rerolls by stone identity), GEN-D04.

A face record (RULES.md 0.2 and TS-D01), fields left out take their defaults:
    {"colour": "ruby"|"gold"|"silver"|"rainbow"|None, "rainbow": bool, "base_colour"?: colour,
     "swords": int, "talent": talent id|None, "pluses": int, "effects": [effect ids],
     "name_face": bool, "name"?: str, "monster_mark"?: "primaire"|"secondaire"}
The catalogue (TS-D01) maps stone_id -> list of its 6 face records (face 1..6); a table profile keeps
it per character and the procedures take it as inputs["catalogue"].

A stone in a throw may be given as:
    {"die_type": "stone", "die_id": "stone-3", "value": 4}      vision reading: identity + up face (1..6)
    {"stone_id": "stone-3", "face": 4}                          the same, written by hand
    {"die_type": "stone", "face_colour": "ruby", "symbols": ["sword", "sword", "name", ...]}
                                                                direct reading (fallback of TS-D01)
    {"colour": "ruby", "swords": 1, ...}                        a face record (the vectors' shape)
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from typing import Any, Callable, Iterable

import icepool

from .dice import merge_reroll
from .registry import Rethrow, RulesError

COLOURS = ("ruby", "gold", "silver")
#: Characteristic letter -> face colour (seed 000: Rubis = [F]orce, Or = [I]ntelligence, Argent = [A]gilité)
CHARACTERISTIC_COLOUR = {"F": "ruby", "I": "gold", "A": "silver"}
MAX_THROWN = 10  # seed 000, Héros composés de plus de 10 dés; TS-D04
FACES_PER_STONE = 6

#: Talent id -> {use: characteristic} (Table 1, Symbole de Talent; RULES.md 1.1)
TALENTS: dict[str, dict[str, str]] = {
    "equilibre": {"acrobate": "A", "grimper": "F", "discretion": "A"},
    "charisme": {"popularite": "I", "persuasion": "I", "intimidation": "F"},
    "dexterite": {"pick_pocket": "A", "crochetage": "A", "degainer": "A"},
    "nature": {"eleveur": "F", "cueilleur": "I"},
    "perception": {"perception": "I", "traquer": "I"},
    "distance": {"lancer": "A"},
    "combat_sans_armes": {"combat": "A"},
}
#: Magic talents (Table 1, Symbole de Talent magique); all test [I]
MAGIC_TALENTS = ("necromancie", "sorcellerie", "thaumaturgie", "magie_pure", "zoetrie")
ALL_TALENTS = tuple(TALENTS) + MAGIC_TALENTS + ("talent_plus",)
EFFECTS = ("berserk", "poison", "centrer", "roll", "contre_attaque", "coup_additionnel", "desarmer", "etourdir",
           "faire_tomber", "arc_en_ciel", "chance", "zele", "ignorer_armure", "primaire", "secondaire",
           "talent_plus")
#: Seed spellings (RULES.md 1.16) -> ids
ALIASES = {"bersek": "berserk", "sorcerie": "sorcellerie", "zoetry": "zoetrie", "rainbow": "arc_en_ciel",
           "epee": "sword", "circle": "primaire", "square": "secondaire"}

#: Table 2: monster -> (primary, secondary, attribute, damage W, armour AV, stones, HP modifier).
#: A capability is an effect id or (talent id, pluses); "Assommer" is etourdir (TS-D23).
MONSTERS: dict[str, dict[str, Any]] = {
    "cobra": {"primaire": "poison", "secondaire": "contre_attaque", "attribute": "A", "W": 2, "AV": 0, "stones": 3, "hp_modifier": -2},
    "cyclope": {"primaire": "berserk", "secondaire": "roll", "attribute": "F", "W": 3, "AV": 2, "stones": 7, "hp_modifier": 1},
    "gargouille": {"primaire": "desarmer", "secondaire": "zele", "attribute": "F", "W": 1, "AV": 6, "stones": 4, "hp_modifier": -2},
    "grenouille": {"primaire": ("equilibre", 3), "secondaire": "chance", "attribute": "A", "W": 1, "AV": 0, "stones": 2, "hp_modifier": -1},
    "lion": {"primaire": "coup_additionnel", "secondaire": "faire_tomber", "attribute": "F", "W": 2, "AV": 1, "stones": 5, "hp_modifier": 0},
    "minotaure": {"primaire": "faire_tomber", "secondaire": ("combat_sans_armes", 1), "attribute": "F", "W": 3, "AV": 2, "stones": 6, "hp_modifier": 1},
    "ours": {"primaire": "etourdir", "secondaire": "roll", "attribute": "F", "W": 3, "AV": 1, "stones": 5, "hp_modifier": 1},
    "scorpion_geant": {"primaire": "contre_attaque", "secondaire": "poison", "attribute": "A", "W": 3, "AV": 2, "stones": 6, "hp_modifier": 0},
    "taureau": {"primaire": "faire_tomber", "secondaire": "berserk", "attribute": "F", "W": 3, "AV": 2, "stones": 4, "hp_modifier": 1},
}


#: Table 4 weapons: [F] load, cost PO, damage/size W
WEAPONS = {"baton": (8, 5, 2), "dague": (3, 10, 1), "epee": (6, 50, 2), "epee_a_2_mains": (12, 120, 3), "matraque": (4, 2, 1)}
#: Table 4 armours: [F] load, cost PO, armour value (TS-D10: the "Dégât" column), pénalité (no rule)
ARMOURS = {"banded": (8, 150, 5, 3), "cotte_de_maille": (7, 120, 4, 2), "cuir": (5, 30, 2, 1),
           "matelassee": (4, 15, 1, 1), "ring_mail": (6, 45, 3, 2), "bouclier": (3, 5, 1, None)}


def monster(name: Any) -> dict[str, Any]:
    """Table 2 row of a monster ("cobra", "scorpion_geant", ...). Raises RulesError naming the known ones."""
    key = plain_id(name)
    if key not in MONSTERS:
        raise RulesError(f"unknown monster {name!r}; Table 2 has {', '.join(MONSTERS)}")
    return MONSTERS[key]


def plain_id(value: Any) -> str:
    """A name as an id: lower case, accents folded, spaces/dashes/quotes as "_" ("Épée à 2 mains" ->
    "epee_a_2_mains")."""
    text = unicodedata.normalize("NFKD", str(value).strip().lower()).encode("ascii", "ignore").decode("ascii")
    return "".join(ch if ch.isalnum() else "_" for ch in text)


def norm_id(value: Any) -> str:
    """Symbol/talent/effect id in the engine's spelling ("Bersek" -> "berserk", "Zoetry" -> "zoetrie")."""
    text = plain_id(value)
    return ALIASES.get(text, text)


@dataclass(frozen=True)
class Face:
    """The up face of one stone.

    colour:     printed colour "ruby"|"gold"|"silver" or None (colourless or pure rainbow, TS-D03)
    rainbow:    the face carries the rainbow symbol: in tests it counts as the colour its owner picks
                (TS-D02); in damage only its printed colour counts
    swords:     number of sword symbols (TS-D08)
    talent:     talent id or None; pluses: "+" marks on the talent face (TS-D05)
    effects:    special-effect ids (Table 1)
    name_face:  the face bearing the stone's English name (+1 on saves)
    stone_id:   identity of the stone (catalogue) or None for a direct reading; face: 1..6 or None
    """

    colour: str | None = None
    rainbow: bool = False
    swords: int = 0
    talent: str | None = None
    pluses: int = 0
    effects: tuple[str, ...] = ()
    name_face: bool = False
    stone_id: str | None = None
    face: int | None = None
    monster_mark: str | None = None

    @property
    def magic(self) -> str | None:
        """The magic talent on this face, or None (TS-D15)."""
        return self.talent if self.talent in MAGIC_TALENTS else None

    def has(self, effect: str) -> bool:
        return effect in self.effects

    def talent_pluses(self, talent: str) -> int:
        """Pluses this face adds to `talent`: its "+" marks and +1 per talent_plus symbol (TS-D05)."""
        if self.talent != talent:
            return 0
        return self.pluses + self.effects.count("talent_plus")

    def counts_as(self, colour: str, choice: str | None = None, *, allowed: Iterable[str] | None = None) -> bool:
        """Whether the face counts for `colour` in a test, save, attack, defence or initiative (TS-D02,
        TS-D03). A rainbow face takes `choice` if given, else the colour the count needs; `allowed`
        limits a monster's choice to its Attribute colour and the printed colour."""
        if not self.rainbow:
            return self.colour == colour
        options = set(COLOURS if allowed is None else allowed) | ({self.colour} if self.colour else set())
        picked = choice if choice is not None else (colour if colour in options else self.colour)
        return picked == colour

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"colour": "rainbow" if self.rainbow and not self.colour else self.colour}
        if self.rainbow and self.colour:
            out["rainbow"] = True
        for key in ("swords", "talent", "pluses", "name_face", "stone_id", "face", "monster_mark"):
            value = getattr(self, key)
            if value:
                out[key] = value
        if self.effects:
            out["effects"] = list(self.effects)
        return out


def _nonneg(record: dict[str, Any], key: str, where: str) -> int:
    value = record.get(key, 0) or 0
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise RulesError(f"{where}: {key} must be a whole number >= 0, not {value!r}")
    return value


def face_from_record(record: dict[str, Any], where: str, *, stone_id: str | None = None, face: int | None = None,
                     monster_name: str | None = None) -> Face:
    """A Face from a face record (catalogue entry or vector shape). Primary/secondary monster marks are
    replaced by the monster's Table 2 capability when `monster_name` is given.
    Raises RulesError on an unknown colour, talent or effect, or a negative count."""
    if not isinstance(record, dict):
        raise RulesError(f"{where}: a face record must be an object like {{'colour': 'ruby', 'swords': 1}}, not {record!r}")
    colour = record.get("colour")
    colour = None if colour is None else norm_id(colour)
    rainbow = bool(record.get("rainbow", False))
    if colour == "arc_en_ciel":
        colour, rainbow = None, True
    if colour is not None and colour not in COLOURS:
        raise RulesError(f"{where}: colour {record.get('colour')!r} is not ruby, gold, silver or rainbow")
    base = record.get("base_colour")
    if base is not None:
        base = norm_id(base)
        if base not in COLOURS:
            raise RulesError(f"{where}: base_colour {base!r} is not ruby, gold or silver")
        colour = base
    talent = record.get("talent")
    talent = None if talent is None else norm_id(talent)
    if talent is not None and talent not in ALL_TALENTS:
        raise RulesError(f"{where}: unknown talent {record.get('talent')!r}; Table 1 has {', '.join(ALL_TALENTS)}")
    effects = record.get("effects") or []
    if not isinstance(effects, list):
        raise RulesError(f"{where}: effects must be a list of effect ids, not {effects!r}")
    effects = [norm_id(e) for e in effects]
    for e in effects:
        if e not in EFFECTS:
            raise RulesError(f"{where}: unknown effect {e!r}; Table 1 has {', '.join(EFFECTS)}")
    if "arc_en_ciel" in effects:
        rainbow = True
    pluses = _nonneg(record, "pluses", where)
    mark = record.get("monster_mark")
    marks = [m for m in ("primaire", "secondaire") if m in effects or mark == m]
    if marks and monster_name is not None:
        row = monster(monster_name)
        effects = [e for e in effects if e not in marks]
        for m in marks:
            cap = row[m]
            if isinstance(cap, tuple):
                talent, pluses = cap
            else:
                effects.append(cap)
    return Face(colour=colour, rainbow=rainbow, swords=_nonneg(record, "swords", where), talent=talent,
                pluses=pluses, effects=tuple(effects), name_face=bool(record.get("name_face", False)),
                stone_id=stone_id, face=face, monster_mark=marks[0] if marks else None)


def face_from_symbols(reading: dict[str, Any], where: str, monster_name: str | None = None) -> Face:
    """A Face from a direct reading (TS-D01 fallback): face_colour plus symbol ids, where "sword" and
    "plus" count once per occurrence, "name" marks the name face, a talent id names the talent and any
    other id is a Table 1 effect. Raises RulesError on an unknown symbol or two talents on one face."""
    record: dict[str, Any] = {"colour": reading.get("face_colour"), "swords": 0, "pluses": 0, "effects": []}
    for raw in reading.get("symbols") or []:
        sym = norm_id(raw)
        if sym == "sword":
            record["swords"] += 1
        elif sym == "plus":
            record["pluses"] += 1
        elif sym == "name":
            record["name_face"] = True
        elif sym in ALL_TALENTS and sym != "talent_plus":
            if record.get("talent"):
                raise RulesError(f"{where}: two talent symbols ({record['talent']}, {sym}) on one face; "
                                 "throw the stone again (GEN-D01)")
            record["talent"] = sym
        elif sym in EFFECTS:
            record["effects"].append(sym)
        else:
            raise RulesError(f"{where}: unknown stone symbol {raw!r}; throw the stone again or register it (TS-D01)")
    return face_from_record(record, where, monster_name=monster_name)


def catalogue_of(inputs: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """inputs["catalogue"] checked: stone_id -> 6 face records (TS-D01). Empty dict when absent.
    Raises RulesError on a stone without exactly 6 faces."""
    cat = inputs.get("catalogue") or {}
    if not isinstance(cat, dict):
        raise RulesError("catalogue must map stone_id -> list of its 6 face records (TS-D01)")
    for sid, faces in cat.items():
        if not isinstance(faces, list) or len(faces) != FACES_PER_STONE:
            raise RulesError(f"catalogue stone {sid!r} must list exactly 6 face records (faces 1..6), "
                             f"not {faces!r}; register it again (TS-D01)")
    return cat


def stone_faces(catalogue: dict[str, Any], stone_id: str, monster_name: str | None = None) -> list[Face]:
    """The six Faces of a catalogued stone. Raises RulesError for an unknown stone (TS-D01)."""
    if stone_id not in catalogue:
        known = ", ".join(map(str, catalogue)) or "none registered"
        raise RulesError(f"unknown stone {stone_id!r} (catalogue: {known}): register it by photographing its "
                         "six faces, or take it out of the tray and throw again (TS-D01, GEN-D04)")
    return [face_from_record(rec, f"stone {stone_id} face {i + 1}", stone_id=stone_id, face=i + 1,
                             monster_name=monster_name)
            for i, rec in enumerate(catalogue[stone_id])]


def read_face(item: Any, catalogue: dict[str, Any], where: str, monster_name: str | None = None) -> Face:
    """One stone of a throw as a Face (shapes in the module docstring). Raises RulesError for a die that
    is not a stone (a standard d6 in a stone throw), a cocked/unsure stone (GEN-D01), an unknown stone
    or a face outside 1..6."""
    if not isinstance(item, dict):
        raise RulesError(f"{where}: {item!r} is not a stone reading; give {{'die_id': ..., 'value': face}} or a face record")
    if item.get("cocked") or item.get("unsure"):
        raise RulesError(f"{where} is cocked or unsure: drop that stone through the tower again (GEN-D01, not a reroll)")
    die_type = item.get("die_type")
    if die_type is not None and die_type != "stone":
        raise RulesError(f"{where} is a {die_type}, not a stone: take it out of the tray and throw only the stones "
                         "(GEN-D04)")
    stone_id = item.get("die_id", item.get("stone_id"))
    if stone_id is not None:
        face = item.get("value", item.get("face"))
        if isinstance(face, bool) or not isinstance(face, int) or not 1 <= face <= FACES_PER_STONE:
            raise RulesError(f"{where}: stone {stone_id!r} shows face {face!r}; a stone has faces 1..6: throw it again")
        return stone_faces(catalogue, str(stone_id), monster_name)[face - 1]
    if die_type == "stone":
        return face_from_symbols(item, where, monster_name)
    return face_from_record(item, where, monster_name=monster_name)


def read_throw(inputs: dict[str, Any], key: str, *, required: bool = True, who: str | None = None) -> list[Face] | None:
    """The stones of the throw at inputs[key], checked (TS-D01, TS-D04, GEN-D04), with any physical
    reroll at inputs[key + "_reroll"] = {"positions": [0-based], "roll": [new readings]} merged in by
    stone identity (GEN-D03). A monster roller is named by inputs[(who + "_") + "monster"].

    Raises RulesError: missing throw (when required), more than 10 stones, a stone twice, a stone not
    among inputs[(who_)stones] (the character's stones) when that list is given, a die that is not a
    stone, an unknown stone, a reroll whose count or identities do not match the stones picked up."""
    items = inputs.get(key)
    if items is None:
        if required:
            raise RulesError(f"inputs need {key!r}: the stones read from the tray")
        return None
    if not isinstance(items, list):
        raise RulesError(f"{key} must be a list of stone readings, not {type(items).__name__}")
    if len(items) > MAX_THROWN:
        raise RulesError(f"{len(items)} stones in {key}; at most {MAX_THROWN} are thrown for one action: the player "
                         f"picks {MAX_THROWN} and throws again (TS-D04, GEN-D04)")
    items = apply_reroll(items, inputs.get(f"{key}_reroll"), f"{key}_reroll")
    prefix = f"{who}_" if who else ""
    cat = catalogue_of(inputs)
    mon = inputs.get(f"{prefix}monster")
    faces = [read_face(item, cat, f"{key} #{i + 1}", mon) for i, item in enumerate(items)]
    ids = [f.stone_id for f in faces if f.stone_id is not None]
    if len(set(ids)) != len(ids):
        dup = sorted({i for i in ids if ids.count(i) > 1})
        raise RulesError(f"{key}: stone {', '.join(dup)} read twice; one stone shows one face: throw again")
    owned = inputs.get(f"{prefix}stones")
    if isinstance(owned, list):
        strangers = [i for i in ids if i not in owned]
        if strangers:
            raise RulesError(f"{key}: stone {', '.join(strangers)} is not one of this character's stones "
                             f"({', '.join(map(str, owned))}): take it out and throw again (GEN-D04)")
    return faces


def apply_reroll(items: list[Any], reroll: Any, where: str) -> list[Any]:
    """`items` with a physical reroll {"positions": [0-based], "roll": [new readings]} merged in
    (GEN-D03): by stone identity when every stone was read with one, else by order. None = no reroll.
    Raises RulesError when the count or the identities of the re-thrown stones do not match."""
    if reroll is None:
        return items
    if not isinstance(reroll, dict) or not isinstance(reroll.get("positions"), list) or not isinstance(reroll.get("roll"), list):
        raise RulesError(f"{where} must be {{'positions': [0-based], 'roll': [readings of the re-thrown stones]}}")
    by_identity = all(isinstance(i, dict) and i.get("die_id", i.get("stone_id")) for i in items)
    new = [_with_die_id(r) for r in reroll["roll"]] if by_identity else reroll["roll"]
    return merge_reroll([_with_die_id(i) for i in items] if by_identity else items, reroll["positions"], new,
                        by_identity=by_identity)


def rethrow_into(key: str, **extra: Any) -> Rethrow:
    """A procedure's Rethrow (rules.registry) for a reroll_request naming stones of the throw at inputs[key]: the
    inputs with the re-thrown stones' readings at inputs[key + "_reroll"] = {"positions": the request's, "roll":
    those readings}, which read_throw merges by stone identity (GEN-D03), an earlier reroll of that throw merged
    into inputs[key] first, and `extra` inputs set (e.g. mulligan_taken=True: no second mulligan, TS-D14).
    Declined (dice None): None, the outcome stands. Raises RulesError as apply_reroll does."""

    def rethrow(inputs: dict[str, Any], outcome: dict[str, Any], dice: list[Any] | None) -> dict[str, Any] | None:
        if dice is None:
            return None
        so_far = apply_reroll(inputs[key], inputs.get(f"{key}_reroll"), f"{key}_reroll")
        return {**inputs, **extra, key: so_far,
                f"{key}_reroll": {"positions": list(outcome["reroll_request"]["positions"]), "roll": list(dice)}}

    return rethrow


def _with_die_id(item: Any) -> Any:
    if isinstance(item, dict) and "die_id" not in item and "stone_id" in item:
        return {**item, "die_id": item["stone_id"]}
    return item


# ---------------------------------------------------------------- counting


def colour_count(faces: list[Face], colour: str, choices: dict[str, str] | None = None,
                 allowed: Iterable[str] | None = None) -> int:
    """Faces counting for `colour` (TS-D02 rainbow choice per 0-based position in `choices`, default the
    needed colour; TS-D03 colourless faces count for nothing). Raises RulesError for a choice on a face
    that is not a rainbow face, at a position outside the throw, or a colour a monster may not pick."""
    choices = choices or {}
    for pos, picked in choices.items():
        if not pos.isdigit() or int(pos) >= len(faces) or not faces[int(pos)].rainbow:
            raise RulesError(f"rainbow choice at position {pos}: no rainbow face there (TS-D02)")
        face = faces[int(pos)]
        options = set(COLOURS if allowed is None else allowed) | ({face.colour} if face.colour else set())
        if picked not in options:
            raise RulesError(f"rainbow face at position {pos} may be {', '.join(sorted(options))}, not {picked} (TS-D02)")
    return sum(f.counts_as(colour, choices.get(str(i)), allowed=allowed) for i, f in enumerate(faces))


def count_effect(faces: list[Face], effect: str) -> int:
    """Number of faces showing `effect`."""
    return sum(f.has(effect) for f in faces)


def rainbow_choices(inputs: dict[str, Any], key: str = "rainbow_choices") -> dict[str, str]:
    """Player's rainbow colour choices {position: colour} (TS-D02, GEN-D05); empty = engine default."""
    raw = inputs.get(key) or {}
    if not isinstance(raw, dict):
        raise RulesError(f"{key} must map a 0-based stone position to ruby/gold/silver")
    out = {}
    for pos, colour in raw.items():
        c = norm_id(colour)
        if c not in COLOURS:
            raise RulesError(f"{key}[{pos}]: {colour!r} is not ruby, gold or silver")
        out[str(pos)] = c
    return out


def allowed_rainbow(inputs: dict[str, Any], who: str | None = None) -> list[str] | None:
    """A monster's rainbow faces may only take its Attribute colour (or the printed one, TS-D02)."""
    name = inputs.get(f"{who}_monster" if who else "monster")
    if name is None:
        return None
    return [CHARACTERISTIC_COLOUR[monster(name)["attribute"]]]


def characteristic_colour(letter: Any) -> str:
    """"F"/"I"/"A" -> "ruby"/"gold"/"silver". Raises RulesError otherwise."""
    key = str(letter).strip("[] ").upper()
    if key not in CHARACTERISTIC_COLOUR:
        raise RulesError(f"characteristic must be F, I or A (Force, Intelligence, Agilité), not {letter!r}")
    return CHARACTERISTIC_COLOUR[key]


# ---------------------------------------------------------------- odds over the catalogue


def thrown_stone_faces(inputs: dict[str, Any], who: str | None = None, roll_key: str = "roll") -> list[list[Face]]:
    """The faces (6 each, 1/6 each) of the stones a roller is about to throw, for exact odds (TS-D01):
    the stone ids in inputs[(who_)stones], else the ids read in inputs[roll_key], else every stone of
    the catalogue (a catalogue of one character). Raises RulesError without a catalogue or with more
    than 10 stones."""
    cat = catalogue_of(inputs)
    prefix = f"{who}_" if who else ""
    ids = inputs.get(f"{prefix}stones")
    if not isinstance(ids, list):
        roll = inputs.get(roll_key)
        ids = [r.get("die_id", r.get("stone_id")) for r in roll] if isinstance(roll, list) and roll and all(
            isinstance(r, dict) and r.get("die_id", r.get("stone_id")) for r in roll) else None
    if ids is None and cat and who is None:
        ids = list(cat)
    if not cat or not ids:
        raise RulesError(f"odds need the stone catalogue (inputs['catalogue'], TS-D01) and the stones thrown "
                         f"(inputs['{prefix}stones']: list of stone ids): the seed prints no stone faces")
    if len(ids) > MAX_THROWN:
        raise RulesError(f"{len(ids)} stones listed; at most {MAX_THROWN} are thrown for one action (TS-D04)")
    mon = inputs.get(f"{prefix}monster")
    return [stone_faces(cat, str(i), mon) for i in ids]


def sum_die(stones: list[list[Face]], value: Callable[[Face], Any]) -> icepool.Die:
    """Exact distribution of the sum over stones of value(up face), each face 1/6 (icepool). `value` may
    return an int or an icepool.Vector (several counts at once)."""
    total: icepool.Die | None = None
    for faces in stones:
        die = icepool.Die([value(f) for f in faces])
        total = die if total is None else total + die
    if total is None:
        raise RulesError("no stones to throw")
    return total


def fold_die(stones: list[list[Face]], initial: Any, step: Callable[[Any, Face], Any]) -> icepool.Die:
    """Exact distribution of a state folded over the stones' up faces (icepool.map, each face 1/6):
    state = step(state, face) stone by stone, starting from `initial`."""
    state = icepool.Die([initial])
    for faces in stones:
        state = icepool.map(lambda s, i, faces=faces: step(s, faces[i]), state, icepool.Die(range(len(faces))), star=False)
    return state


__all__ = ["Face", "MONSTERS", "WEAPONS", "ARMOURS", "TALENTS", "MAGIC_TALENTS", "CHARACTERISTIC_COLOUR",
           "read_throw", "read_face", "apply_reroll", "rethrow_into", "colour_count", "count_effect",
           "rainbow_choices", "allowed_rainbow", "characteristic_colour", "thrown_stone_faces", "sum_die",
           "fold_die", "monster", "norm_id", "plain_id", "catalogue_of", "stone_faces"]
