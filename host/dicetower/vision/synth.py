"""Synthetic dice renders with ground truth, for training the shipped models and for testing
calibration on dice that have no public photos (Throwing Stones stones, Alkemy's coloured d6).

Each die is a real convex polyhedron (tetrahedron d4, cube d6 / stone, octahedron d8, pentagonal
trapezohedron d10, dodecahedron d12, icosahedron d20), turned so that the face being read points at
the camera, spun by a random angle about the optical axis, tilted a few degrees, and projected in
perspective. Every visible face is shaded (Lambert + ambient, marbled body texture) and carries its
numeral (Hershey fonts of OpenCV, several weights, italic), its pips or its symbols, warped onto the
face plane. The die is drawn with a soft shadow on a tray background (wood, felt, white, dark),
then blurred, noised, colour-cast and JPEG-compressed.

Public API:
    render_crop(spec: DieSpec, value, rng, size=112) -> (crop: HxWx3 uint8 BGR, truth: dict)
        one die as a detector would crop it (margin and centre jitter included)
    render_scene(specs_and_faces, rng, size=(640, 480)) -> (frame: HxWx3 uint8 BGR, truths: list[dict])
        several dice on one tray, ground-truth boxes (x, y, w, h) in px
    render_oblique_scene(specs_and_faces, rng, elevation) -> (frame, truths, floor ellipse)
        dice on a round floor seen from `elevation` degrees (the up faces foreshortened)
    DieSpec, StoneFace, standard_spec(die_type, rng), alkemy_spec(colour), demo_stone()

Everything is driven by a numpy Generator: the same seed gives the same pixels.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

import cv2
import numpy as np

from dicetower.vision.view import check_elevation

PHI = (1 + 5**0.5) / 2

#: Hershey fonts usable for numerals (PLAIN is too thin at small size; SCRIPT numerals are unusual).
FONTS = (
    cv2.FONT_HERSHEY_SIMPLEX,
    cv2.FONT_HERSHEY_DUPLEX,
    cv2.FONT_HERSHEY_COMPLEX,
    cv2.FONT_HERSHEY_TRIPLEX,
)

#: Faces per die type.
FACES = {"d4": 4, "d6": 6, "d8": 8, "d10": 10, "d12": 12, "d20": 20, "stone": 6}
#: The commercial numbered dice standard_spec draws (a stone has its own faces: demo_stone).
STANDARD_TYPES = ("d4", "d6", "d8", "d10", "d12", "d20")

#: Named colours in BGR used for bodies, inks and Throwing Stones face colours.
COLOURS = {
    "white": (235, 235, 232),
    "ivory": (200, 225, 235),
    "yellow": (40, 210, 235),
    "red": (40, 40, 200),
    "ruby": (60, 20, 170),
    "gold": (40, 170, 215),
    "silver": (185, 185, 180),
    "blue": (170, 80, 30),
    "green": (60, 140, 40),
    "purple": (130, 40, 110),
    "black": (30, 30, 30),
    "orange": (30, 120, 230),
    "grey": (120, 120, 120),
    "teal": (140, 140, 20),
}


# ---------------------------------------------------------------------------------------------
# geometry


@dataclass(frozen=True)
class Polyhedron:
    """A convex solid: vertices (Vx3 float), faces (lists of vertex indices, counter-clockwise seen
    from outside), unit outward normals (Fx3) and face centroids (Fx3)."""

    vertices: np.ndarray
    faces: tuple[tuple[int, ...], ...]
    normals: np.ndarray
    centroids: np.ndarray


def _hull(vertices: np.ndarray) -> Polyhedron:
    """Faces of the convex hull of `vertices`, merging coplanar hull triangles into polygons."""
    from scipy.spatial import ConvexHull

    vertices = vertices / np.linalg.norm(vertices, axis=1).max()
    hull = ConvexHull(vertices)
    groups: dict[tuple[float, ...], set[int]] = {}
    for simplex, eq in zip(hull.simplices, hull.equations):
        key = tuple(np.round(eq[:3], 3))
        groups.setdefault(key, set()).update(int(i) for i in simplex)
    faces, normals, centroids = [], [], []
    for key, idx in groups.items():
        n = np.array(key, float)
        n /= np.linalg.norm(n)
        ids = np.array(sorted(idx))
        c = vertices[ids].mean(axis=0)
        a = vertices[ids[0]] - c
        a /= np.linalg.norm(a)
        b = np.cross(n, a)
        ang = [np.arctan2((vertices[i] - c) @ b, (vertices[i] - c) @ a) for i in ids]
        faces.append(tuple(int(i) for i in ids[np.argsort(ang)]))
        normals.append(n)
        centroids.append(c)
    order = np.lexsort(np.array(normals).T[::-1])
    return Polyhedron(
        vertices,
        tuple(faces[i] for i in order),
        np.array(normals)[order],
        np.array(centroids)[order],
    )


@lru_cache(maxsize=None)
def polyhedron(die_type: str) -> Polyhedron:
    """The solid of a die type ("d4".."d20", "stone" = a cube). Raises KeyError for others."""
    if die_type == "d4":
        v = np.array([[1, 1, 1], [1, -1, -1], [-1, 1, -1], [-1, -1, 1]], float)
    elif die_type in ("d6", "stone"):
        v = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], float)
    elif die_type == "d8":
        v = np.array([[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1], [0, 0, -1]], float)
    elif die_type == "d10":
        c = 0.12
        h = c * (1 + np.cos(np.pi / 5)) / (1 - np.cos(np.pi / 5))
        ring = [
            [np.cos(k * np.pi / 5), np.sin(k * np.pi / 5), c if k % 2 == 0 else -c] for k in range(10)
        ]
        v = np.array(ring + [[0, 0, h], [0, 0, -h]], float)
    elif die_type == "d12":
        p, q = PHI, 1 / PHI
        corners: list[list[float]] = [[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)]
        for a in (-1, 1):
            for b in (-1, 1):
                corners += [[0, a * q, b * p], [a * q, b * p, 0], [a * p, 0, b * q]]
        v = np.array(corners, float)
    elif die_type == "d20":
        corners = []
        for a in (-1, 1):
            for b in (-1, 1):
                corners += [[0, a, b * PHI], [a, b * PHI, 0], [a * PHI, 0, b]]
        v = np.array(corners, float)
    else:
        raise KeyError(f"no solid for die type {die_type!r}; known: {sorted(FACES)}")
    return _hull(v)


def _face_numbers(die_type: str) -> list[int]:
    """Value printed on each face of `polyhedron(die_type)` (d4: on each vertex). Opposite faces
    sum to N+1 as on real dice; the pairing order is fixed (seed 0) so renders are reproducible."""
    solid = polyhedron(die_type)
    if die_type == "d4":
        return [1, 2, 3, 4]
    n = len(solid.faces)
    rng = np.random.default_rng(0)
    free = list(range(n))
    numbers = [0] * n
    lows = list(rng.permutation(np.arange(1, n // 2 + 1)))
    while free:
        i = free.pop(0)
        j = min(free, key=lambda k: float(solid.normals[i] @ solid.normals[k]))
        free.remove(j)
        low = int(lows.pop())
        numbers[i], numbers[j] = low, n + 1 - low
    return numbers


def _rotation_to_z(v: np.ndarray) -> np.ndarray:
    """3x3 rotation taking unit vector v to +z."""
    v = v / np.linalg.norm(v)
    z = np.array([0.0, 0.0, 1.0])
    axis = np.cross(v, z)
    s, c = np.linalg.norm(axis), float(v @ z)
    if s < 1e-9:
        return np.eye(3) if c > 0 else np.diag([1.0, -1.0, -1.0])
    rvec = axis / s * np.arctan2(s, c)
    return cv2.Rodrigues(rvec)[0]


# ---------------------------------------------------------------------------------------------
# what is drawn on faces


@dataclass
class StoneFace:
    """One face of a Throwing Stones stone (RULES.md 'Throwing Stones face', TS-D01):
    colour in {"ruby", "gold", "silver", "rainbow", None}, swords >= 0, talent id or None,
    pluses >= 0, effect ids, name_face (an English name is written on it)."""

    colour: str | None
    swords: int = 0
    talent: str | None = None
    pluses: int = 0
    effects: list[str] = field(default_factory=list)
    name_face: bool = False
    name: str = ""

    def symbols(self) -> list[str]:
        """Symbol ids as the classifier reports them: 'epee' per sword, the talent id, 'plus' per
        plus, effect ids, 'name' for a name face."""
        out = ["epee"] * self.swords
        if self.talent:
            out.append(self.talent)
        out += ["plus"] * self.pluses
        out += list(self.effects)
        if self.name_face:
            out.append("name")
        return out


@dataclass
class DieSpec:
    """How one physical die looks.

    die_type: "d4".."d20" or "stone"; body: BGR body colour; ink: BGR numeral/pip colour;
    font: Hershey font id; thickness_scale: stroke weight factor (0.6..1.6); italic: bool;
    pips: d6 drawn with pips instead of numerals; marble: body texture strength 0..0.4;
    zero_for_ten: d10 face 10 printed "0" (GEN-D02); logos: value -> symbol id drawn instead of the
    numeral (e.g. {6: "logo"}); stone_faces: six StoneFace for a stone (face k+1 = stone_faces[k]);
    face_colours: value -> BGR colour of that face (stones); name: body colour name (ground truth).
    ttf: path of a TrueType font drawing the numerals instead of the Hershey `font` (PIL);
    texts: value -> text printed on that face instead of its numeral ("" = a blank face);
    six_nine: how 6 and 9 are told apart, "dot" (trailing dot), "bar" (underline) or "none";
    text_height: cap height of a one-digit numeral as a fraction of the face canvas (0 = default);
    condense: horizontal scale of TrueType text (0.7 = condensed, 1 = as designed);
    swirl: BGR second body colour mixed in swirls (Chessex Gemini-like), or None for one colour;
    edge_shade: how much darker the rounded edges between faces are drawn (0 = not; 0.5 = half as
    bright), as a photo shows a real die's ridges;
    one_flag: with a TrueType font, each 1 drawn as a stem with a long flag and no foot (Chessex-like;
    a 1 easily taken for a 7), the flag's length as a fraction of the cap height; 0 = the font's own 1.
    """

    die_type: str
    body: tuple[int, int, int]
    ink: tuple[int, int, int]
    font: int = cv2.FONT_HERSHEY_SIMPLEX
    thickness_scale: float = 1.0
    italic: bool = False
    pips: bool = False
    marble: float = 0.1
    zero_for_ten: bool = False
    logos: dict[int, str] = field(default_factory=dict)
    stone_faces: list[StoneFace] = field(default_factory=list)
    name: str | None = None
    ttf: str | None = None
    texts: dict[int, str] = field(default_factory=dict)
    six_nine: str = "dot"
    text_height: float = 0.0
    condense: float = 1.0
    swirl: tuple[int, int, int] | None = None
    one_flag: float = 0.0
    edge_shade: float = 0.0


def standard_spec(die_type: str, rng: np.random.Generator, pips: bool | None = None) -> DieSpec:
    """A random commercial-looking die of `die_type` (one of STANDARD_TYPES): random body colour
    (named or any hue), contrasting ink (white, black, gold or a light/dark tone), random font and
    weight. Raises ValueError for another die type, before anything is drawn from rng."""
    if die_type not in STANDARD_TYPES:
        raise ValueError(f"standard_spec draws a die of type {', '.join(STANDARD_TYPES)}, not {die_type!r} "
                         "(a Throwing Stones stone: demo_stone; Alkemy's d6: alkemy_spec)")
    body = np.array(COLOURS[rng.choice(list(COLOURS))], float)
    if rng.random() < 0.4:  # any hue, any lightness
        hsv = np.array([[[rng.integers(0, 180), rng.integers(30, 256), rng.integers(30, 256)]]], np.uint8)
        body = cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0].astype(float)
    lum = body @ np.array([0.114, 0.587, 0.299])
    if lum > 140:
        ink = np.array(COLOURS[rng.choice(["black", "blue", "red", "black"])], float) * 0.7
    else:
        ink = np.array(COLOURS[rng.choice(["white", "white", "gold", "ivory"])], float)
    if pips is None:
        pips = die_type == "d6" and rng.random() < 0.5
    return DieSpec(
        die_type=die_type,
        body=(int(body[0]), int(body[1]), int(body[2])),
        ink=(int(ink[0]), int(ink[1]), int(ink[2])),
        font=int(rng.choice(FONTS)),
        thickness_scale=float(rng.uniform(0.6, 1.6)),
        italic=bool(rng.random() < 0.15),
        pips=bool(pips),
        marble=float(rng.uniform(0.0, 0.35)),
        zero_for_ten=bool(rng.random() < 0.5),
    )


def alkemy_spec(colour: str, logo_six: bool = False) -> DieSpec:
    """An Alkemy d6 (seed 001): body 'white', 'yellow' or 'red', black or white numerals; with
    logo_six the 6 carries the game's symbol (drawn as an axe) instead of a numeral."""
    if colour not in ("white", "yellow", "red"):
        raise ValueError(f"Alkemy dice are white, yellow or red, not {colour!r}")
    ink = COLOURS["white"] if colour == "red" else COLOURS["black"]
    return DieSpec(
        "d6", COLOURS[colour], ink, font=cv2.FONT_HERSHEY_DUPLEX, thickness_scale=1.2,
        marble=0.03, logos={6: "axe"} if logo_six else {}, name=colour,
    )


def demo_stone() -> DieSpec:
    """A player stone of Throwing Stones (seed 000, TS-D01) with one face of every kind: a ruby
    face with two swords, a gold talent face (charisme ++), a silver face with a sword and
    'chance', a rainbow face, a ruby 'centrer' face and the name face."""
    faces = [
        StoneFace("ruby", swords=2),
        StoneFace("gold", talent="charisme", pluses=2),
        StoneFace("silver", swords=1, effects=["chance"]),
        StoneFace("rainbow", effects=["arc_en_ciel"]),
        StoneFace("ruby", effects=["centrer"]),
        StoneFace("silver", name_face=True, name="BRAN"),
    ]
    return DieSpec("stone", COLOURS["grey"], COLOURS["black"], font=cv2.FONT_HERSHEY_TRIPLEX,
                   marble=0.15, stone_faces=faces, name="grey")


_PIPS = {
    1: [(0, 0)],
    2: [(-1, -1), (1, 1)],
    3: [(-1, -1), (0, 0), (1, 1)],
    4: [(-1, -1), (1, -1), (-1, 1), (1, 1)],
    5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
    6: [(-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)],
}

CANVAS = 128  # px, side of the square on which a face's marks are drawn before warping


def _draw_symbol(canvas: np.ndarray, sym: str, centre: tuple[int, int], r: int, th: int) -> None:
    """Draw one symbol glyph (white on the mask canvas) of radius r px around centre."""
    x, y = centre
    if sym == "epee":  # a sword: blade, guard, pommel
        cv2.line(canvas, (x, y - r), (x, y + r), 255, th)
        cv2.line(canvas, (x - r // 2, y + r // 3), (x + r // 2, y + r // 3), 255, th)
        cv2.circle(canvas, (x, y + r), max(2, r // 6), 255, -1)
    elif sym == "plus":
        cv2.line(canvas, (x - r // 2, y), (x + r // 2, y), 255, th)
        cv2.line(canvas, (x, y - r // 2), (x, y + r // 2), 255, th)
    elif sym == "axe":
        cv2.line(canvas, (x, y - r), (x, y + r), 255, th)
        cv2.ellipse(canvas, (x, y - r // 3), (r // 2, r // 2), 0, -90, 90, 255, -1)
    else:  # talent and effect ids: a distinct glyph per id, from a fixed shape vocabulary
        k = sum(map(ord, sym)) % 6
        if k == 0:
            cv2.circle(canvas, (x, y), r, 255, th)
        elif k == 1:
            cv2.rectangle(canvas, (x - r, y - r), (x + r, y + r), 255, th)
        elif k == 2:
            pts = np.array([[x, y - r], [x + r, y + r], [x - r, y + r]], np.int32)
            cv2.polylines(canvas, [pts], True, 255, th)
        elif k == 3:
            pts = np.array([[x, y - r], [x + r, y], [x, y + r], [x - r, y]], np.int32)
            cv2.fillPoly(canvas, [pts], 255)
        elif k == 4:
            for a in range(0, 180, 45):
                dx, dy = int(r * np.cos(np.radians(a))), int(r * np.sin(np.radians(a)))
                cv2.line(canvas, (x - dx, y - dy), (x + dx, y + dy), 255, th)
        else:
            cv2.circle(canvas, (x, y), r, 255, -1)
            cv2.circle(canvas, (x, y), r // 2, 0, -1)


@lru_cache(maxsize=64)
def _ttf(path: str, px: int):
    from PIL import ImageFont

    return ImageFont.truetype(path, px)


def _ttf_ink(text: str, spec: DieSpec) -> np.ndarray:
    """The ink of `text` in the TrueType font spec.ttf at 96 px (uint8, cut to its bounding box);
    with spec.one_flag, each 1 is a stem of the font's stem width with a flag of one_flag x the cap
    height and no foot, the other digits as the font draws them, on the font's baseline."""
    from PIL import Image, ImageDraw

    font = _ttf(spec.ttf, 96)

    def draw(t: str) -> np.ndarray:
        big = Image.new("L", (96 * max(1, len(t)) + 96, 192), 0)
        ImageDraw.Draw(big).text((48, 48), t, fill=255, font=font)
        return np.asarray(big)

    one = draw("1") if spec.one_flag and "1" in text else None
    if one is None or not (one > 64).any():  # no flag asked, or a font without digits
        ink = draw(text)
    else:
        ys, xs = np.nonzero(one > 64)
        top, base = int(ys.min()), int(ys.max())
        mid = (top + base) // 2
        stem = max(3, int(np.median(np.count_nonzero(one[mid - 3:mid + 4] > 64, axis=1))))  # stem width, px
        cap = base - top
        gap = int(0.12 * cap)
        parts = []
        for ch in text:
            if ch == "1":
                flag = int(spec.one_flag * cap)
                w = int(0.55 * flag) + stem + 2
                g = np.zeros_like(one[:, :w + 2])
                x = w - stem // 2
                cv2.line(g, (x, top + stem // 2), (x, base - stem // 2), 255, stem, cv2.LINE_AA)
                cv2.line(g, (x, top + stem // 2), (x - int(0.55 * flag), top + stem // 2 + int(0.4 * flag)),
                         255, stem, cv2.LINE_AA)
            else:
                g = draw(ch)
                cols = np.nonzero((g > 64).any(axis=0))[0]
                if not len(cols):  # a glyph the font lacks
                    continue
                g = g[:, cols.min():cols.max() + 1]
            parts += [g, np.zeros((g.shape[0], gap), np.uint8)]
        ink = np.hstack(parts[:-1])
    ys, xs = np.nonzero(ink > 64)
    if not len(xs):
        return np.zeros((0, 0), np.uint8)
    return np.ascontiguousarray(ink[ys.min():ys.max() + 1, xs.min():xs.max() + 1])


def _ttf_canvas(text: str, spec: DieSpec, height_frac: float) -> np.ndarray:
    """_text_canvas drawn with the TrueType font spec.ttf (PIL, _ttf_ink), condensed by spec.condense."""
    glyph = _ttf_ink(text, spec)
    canvas = np.zeros((CANVAS, CANVAS), np.uint8)
    if not glyph.size:
        return canvas
    h, w = glyph.shape
    scale = min(height_frac * CANVAS / h, 0.9 * CANVAS / (w * spec.condense))
    gw, gh = max(1, int(round(w * scale * spec.condense))), max(1, int(round(h * scale)))
    glyph = cv2.resize(glyph, (gw, gh), interpolation=cv2.INTER_AREA)
    x0, y0 = (CANVAS - gw) // 2, (CANVAS - gh) // 2
    canvas[y0:y0 + gh, x0:x0 + gw] = glyph
    _mark_six_nine(canvas, text, spec, (x0, y0 + gh), gw, max(2, int(round(0.09 * gh))))
    return canvas


def _mark_six_nine(canvas: np.ndarray, text: str, spec: DieSpec, org: tuple[int, int], w: int, th: int) -> None:
    """Mark a 6 or a 9 (text box bottom-left org, width w px) with spec.six_nine: a trailing dot
    or an underline."""
    if text not in ("6", "9") or spec.six_nine == "none":
        return
    if spec.six_nine == "bar":
        y = min(CANVAS - 1 - th // 2, org[1] + 2 * th)
        cv2.line(canvas, (org[0], y), (org[0] + w, y), 255, th, cv2.LINE_AA)
    else:
        cv2.circle(canvas, (min(CANVAS - th - 1, org[0] + w + max(3, th)), org[1] - th // 2), max(2, th), 255, -1,
                   cv2.LINE_AA)


def _text_canvas(text: str, spec: DieSpec, height_frac: float = 0.62) -> np.ndarray:
    """Mask (CANVAS x CANVAS uint8) with `text` centred, its cap height ~ height_frac * CANVAS.
    6 and 9 are marked as spec.six_nine says (a trailing dot by default), as on real dice."""
    if spec.ttf:
        return _ttf_canvas(text, spec, height_frac)
    canvas = np.zeros((CANVAS, CANVAS), np.uint8)
    font = spec.font | (cv2.FONT_ITALIC if spec.italic else 0)
    (w, h), _ = cv2.getTextSize(text, font, 1.0, 1)
    scale = min(height_frac * CANVAS / h, 0.9 * CANVAS / w)
    th = max(1, int(round(scale * 2.2 * spec.thickness_scale)))
    (w, h), _ = cv2.getTextSize(text, font, scale, th)
    org = ((CANVAS - w) // 2, (CANVAS + h) // 2)
    cv2.putText(canvas, text, org, font, scale, 255, th, cv2.LINE_AA)
    if text in ("6", "9") and spec.six_nine == "dot":
        cv2.circle(canvas, (org[0] + w + max(3, th), org[1]), max(2, th), 255, -1, cv2.LINE_AA)
    else:
        _mark_six_nine(canvas, text, spec, org, w, th)
    return canvas


def _face_canvas(spec: DieSpec, value: int) -> np.ndarray:
    """Mask of the marks on the face that shows `value` (numeral, pips, logo or stone symbols)."""
    if spec.die_type == "stone":
        face = spec.stone_faces[value - 1]
        canvas = np.zeros((CANVAS, CANVAS), np.uint8)
        if face.name_face:
            font = cv2.FONT_HERSHEY_SCRIPT_SIMPLEX
            (w, h), _ = cv2.getTextSize(face.name, font, 1.0, 2)
            s = 0.85 * CANVAS / w
            cv2.putText(canvas, face.name, (int(CANVAS * 0.075), int(CANVAS / 2 + h * s / 2)),
                        font, s, 255, 2, cv2.LINE_AA)
            return canvas
        syms = face.symbols()
        n = len(syms)
        cols = int(np.ceil(np.sqrt(n))) if n else 1
        rows = int(np.ceil(n / cols)) if n else 1
        r = int(CANVAS / (2.6 * max(cols, rows)))
        for i, sym in enumerate(syms):
            cx = int(CANVAS * ((i % cols) + 0.5) / cols)
            cy = int(CANVAS * ((i // cols) + 0.5) / rows)
            _draw_symbol(canvas, sym, (cx, cy), r, max(2, r // 5))
        return canvas
    if value in spec.logos:
        canvas = np.zeros((CANVAS, CANVAS), np.uint8)
        _draw_symbol(canvas, spec.logos[value], (CANVAS // 2, CANVAS // 2), CANVAS // 3, 6)
        return canvas
    if spec.pips:
        canvas = np.zeros((CANVAS, CANVAS), np.uint8)
        r = int(CANVAS * 0.09)
        for px, py in _PIPS[value]:
            cv2.circle(canvas, (int(CANVAS / 2 + px * CANVAS * 0.28), int(CANVAS / 2 + py * CANVAS * 0.28)),
                       r, 255, -1, cv2.LINE_AA)
        return canvas
    text = "0" if (spec.die_type == "d10" and value == 10 and spec.zero_for_ten) else str(value)
    text = spec.texts.get(value, text)
    if not text:
        return np.zeros((CANVAS, CANVAS), np.uint8)
    frac = 0.55 if len(text) == 1 else 0.45
    if spec.text_height:
        frac = spec.text_height * (1.0 if len(text) == 1 else 0.82)
    return _text_canvas(text, spec, frac)


# ---------------------------------------------------------------------------------------------
# rendering


def _stone_colour(spec: DieSpec, value: int) -> np.ndarray:
    face = spec.stone_faces[value - 1]
    if face.colour in (None, "rainbow"):
        return np.array(spec.body, float)
    return np.array(COLOURS[face.colour], float)


def _rainbow(mask_shape: tuple[int, int], quad: np.ndarray) -> np.ndarray:
    """Rainbow stripes (HxWx3 float) across the bounding box of `quad`."""
    h, w = mask_shape
    x0 = quad[:, 0].min()
    span = max(1.0, quad[:, 0].max() - x0)
    hue = ((np.arange(w) - x0) / span * 150).clip(0, 179).astype(np.uint8)
    hsv = np.stack([np.tile(hue, (h, 1)), np.full((h, w), 200, np.uint8), np.full((h, w), 220, np.uint8)], -1)
    return cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR).astype(float)


def _noise_field(rng: np.random.Generator, shape: tuple[int, int], cells: int) -> np.ndarray:
    """Smooth noise in [-1, 1] (bicubic upsampling of a cells x cells random grid)."""
    small = rng.uniform(-1, 1, (cells, cells)).astype(np.float32)
    return cv2.resize(small, (shape[1], shape[0]), interpolation=cv2.INTER_CUBIC).clip(-1, 1)


def tray_background(rng: np.random.Generator, size: tuple[int, int]) -> np.ndarray:
    """A tray surface (HxWx3 uint8 BGR) of size (w, h): wood, felt, white card or dark mat."""
    w, h = size
    kind = rng.choice(["wood", "felt", "white", "dark"])
    base = {
        "wood": (rng.uniform(60, 110), rng.uniform(120, 170), rng.uniform(170, 220)),
        "felt": COLOURS[rng.choice(["green", "blue", "red", "purple", "teal"])],
        "white": (rng.uniform(200, 245),) * 3,
        "dark": (rng.uniform(25, 60),) * 3,
    }[kind]
    img = np.empty((h, w, 3), np.float32)
    img[:] = np.array(base, np.float32)
    if kind == "wood":
        ys = np.arange(h, dtype=np.float32)[:, None]
        grain = np.sin(ys / rng.uniform(3, 9) + 3 * _noise_field(rng, (h, w), 6)) * 18
        img *= (1 + grain[..., None] / 255)
    img *= 1 + 0.12 * _noise_field(rng, (h, w), 5)[..., None]
    img += rng.normal(0, 6 if kind == "felt" else 3, img.shape).astype(np.float32)
    return img.clip(0, 255).astype(np.uint8)


def _face_up(solid: Polyhedron, die_type: str, fi: int, verts: np.ndarray) -> np.ndarray:
    """Direction (3,) in which the numeral of face fi reads upright: toward a vertex (triangles,
    pentagons), toward an edge (squares), toward the apex (d10 kites)."""
    fverts = verts[list(solid.faces[fi])]
    centre = fverts.mean(0)
    if die_type in ("d6", "stone"):
        return (fverts[0] + fverts[1]) / 2 - centre
    if die_type == "d10":
        apex = [vi for vi in solid.faces[fi] if vi >= 10][0]  # kites meet at vertices 10, 11
        return verts[apex] - centre
    return fverts[0] - centre


def _render_die_patch(spec: DieSpec, value: int, rng: np.random.Generator, size: int,
                      tilt_deg: float = 8.0, spin_deg: float | None = None, info: dict | None = None,
                      elevation: float | None = None, glint: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """The die alone: (colour HxWx3 float BGR, alpha HxW float 0..1) on a size x size patch,
    the die spanning about 80% of it. spin_deg None: any rotation about the optical axis;
    a number s: the up face's marks read upright, give or take s degrees.
    elevation: None, the face read looks at the camera (tilted up to tilt_deg); degrees (0, 90]: the
    face read points up and the camera looks down on it from that elevation, its image "up" away
    from the camera (the face's centre appears cos(elevation) x its inradius above the die's centre,
    foreshortened vertically by sin(elevation)), after a random tilt of up to tilt_deg.
    glint: the chance (0..1) that the lamp's reflection falls on the up face of a glossy die: a round glint
    (sigma 3..10 % of size) white at its core, the camera's ceiling, over the face and its marks alike.
    info: a dict that, when given, receives how legible the mark that is read is (before camera
    effects): "mark_px", its area in px (the up face's mark; a d4's three marks of its top
    vertex), and "mark_contrast", the mean grey-level difference between its ink and the face
    under it (0 when it has no mark)."""
    solid = polyhedron(spec.die_type)
    numbers = _face_numbers(spec.die_type) if spec.die_type != "stone" else list(range(1, 7))
    if spec.die_type == "d4":
        # the value is read at the apex: the vertex numbered `value` points at the camera
        apex = numbers.index(value)
        rot = _rotation_to_z(solid.vertices[apex])
        fi = next(i for i, f in enumerate(solid.faces) if apex in f)
        up = solid.vertices[apex] - solid.centroids[fi]
    else:
        fi = numbers.index(value)
        rot = _rotation_to_z(solid.normals[fi])
        up = _face_up(solid, spec.die_type, fi, solid.vertices)
    up = rot @ up
    if spin_deg is None:
        angle = rng.uniform(0, 2 * np.pi)
    else:  # turn the up face's "up" to image up (+y), then jitter
        angle = np.pi / 2 - np.arctan2(up[1], up[0]) + np.radians(rng.uniform(-spin_deg, spin_deg))
    spin = cv2.Rodrigues(np.array([0, 0, angle]))[0]
    axis = rng.normal(size=3)
    axis[2] = 0
    axis /= np.linalg.norm(axis) + 1e-9
    tilt = cv2.Rodrigues(axis * np.radians(rng.uniform(0, tilt_deg)))[0]
    r = tilt @ spin @ rot
    if elevation is not None:
        check_elevation(elevation)
        # turn the up face's normal (+z) toward image up (+y) by 90 - elevation about the x axis
        r = cv2.Rodrigues(np.array([-np.radians(90 - elevation), 0.0, 0.0]))[0] @ r
    verts = solid.vertices @ r.T
    normals = solid.normals @ r.T
    dist = rng.uniform(4.0, 9.0)  # camera distance in die radii: perspective strength
    f = 0.40 * size * dist
    cz = dist - verts[:, 2]
    proj = np.stack([size / 2 + f * verts[:, 0] / cz, size / 2 - f * verts[:, 1] / cz], 1)

    light = rng.normal(size=3)
    light[2] = abs(light[2]) + 1.2
    light /= np.linalg.norm(light)
    ambient = rng.uniform(0.45, 0.7)
    img: np.ndarray = np.zeros((size, size, 3), np.float32)
    alpha = np.zeros((size, size), np.float32)
    marble = 1 + spec.marble * _noise_field(rng, (size, size), 4)
    body = np.array(spec.body, np.float32)
    if spec.swirl is not None:  # two colours in swirls: a sharp blend along a noise field's level line
        mix = (0.5 + 2.5 * _noise_field(rng, (size, size), int(rng.integers(3, 7)))).clip(0, 1)[..., None]
        body = body * (1 - mix) + np.array(spec.swirl, np.float32) * mix
    ink = np.array(spec.ink, np.float32)
    order = np.argsort(solid.centroids @ r.T[:, 2])  # far faces first
    up_fi, read_px, read_diff = fi, 0.0, 0.0
    glint_place: tuple[np.ndarray, np.ndarray] | None = None  # the up face's coverage (0..1) and outline (px)
    for fi in order:
        n = normals[fi]
        view = np.array([0, 0, dist]) - verts[list(solid.faces[fi])].mean(0)
        if n @ view <= 0:
            continue
        poly = proj[list(solid.faces[fi])].astype(np.float32)
        mask = np.zeros((size, size), np.uint8)
        cv2.fillPoly(mask, [np.round(poly * 16).astype(np.int32)], 255, cv2.LINE_AA, shift=4)
        shade = ambient + (1 - ambient) * max(0.0, float(n @ light))
        if spec.die_type == "stone":
            colour = _stone_colour(spec, numbers[fi]).astype(np.float32)
            face = spec.stone_faces[numbers[fi] - 1]
            face_img: np.ndarray = (_rainbow((size, size), poly) if face.colour == "rainbow"
                                    else np.broadcast_to(colour, (size, size, 3)))
        else:
            face_img = np.broadcast_to(body, (size, size, 3))
        face_img = face_img * (marble[..., None] * shade)
        # marks: warp the face canvas onto an in-plane square around the face centroid
        centre = verts[list(solid.faces[fi])].mean(0)
        fverts = verts[list(solid.faces[fi])]
        inr = float(np.min([np.linalg.norm(np.cross(fverts[(k + 1) % len(fverts)] - fverts[k], centre - fverts[k]))
                            / np.linalg.norm(fverts[(k + 1) % len(fverts)] - fverts[k]) for k in range(len(fverts))]))
        marks = np.zeros((size, size), np.float32)
        read = np.zeros((size, size), np.float32)  # the marks that are read (info)
        if spec.die_type == "d4":
            placements = []
            for vi in solid.faces[fi]:
                up = verts[vi] - centre
                placements.append((centre + 0.5 * up, up / np.linalg.norm(up), 0.6 * inr, numbers[vi]))
        else:
            up = _face_up(solid, spec.die_type, fi, verts)
            grow = 1.25 if len(fverts) == 3 else 1.0  # numerals overhang a triangle's incircle
            placements = [(centre, up / np.linalg.norm(up), grow * inr, numbers[fi])]
        for pos, up, half, val in placements:
            right = np.cross(up, n)
            quad3 = np.array([pos - half * right + half * up, pos + half * right + half * up,
                              pos + half * right - half * up, pos - half * right - half * up])
            qz = dist - quad3[:, 2]
            quad = np.stack([size / 2 + f * quad3[:, 0] / qz, size / 2 - f * quad3[:, 1] / qz], 1)
            src = np.array([[0, 0], [CANVAS, 0], [CANVAS, CANVAS], [0, CANVAS]], np.float32)
            hmat = cv2.getPerspectiveTransform(src, quad.astype(np.float32))
            canvas = _face_canvas(spec, int(val))
            warped = cv2.warpPerspective(canvas, hmat, (size, size)).astype(np.float32) / 255
            marks = np.maximum(marks, warped)
            if info is not None and (val == value if spec.die_type == "d4" else fi == up_fi):
                read = np.maximum(read, warped)
        marks *= mask.astype(np.float32) / 255
        ink_img = ink * (0.6 + 0.4 * shade)
        if info is not None and read.any():
            read *= mask.astype(np.float32) / 255
            grey = np.array([0.114, 0.587, 0.299], np.float32)
            diff = np.abs((face_img - ink_img) @ grey)
            read_px += float(read.sum())
            read_diff += float((read * diff).sum())
        face_img = face_img * (1 - marks[..., None]) + ink_img * marks[..., None]
        if spec.edge_shade > 0:  # the rounded ridges round the face, darker
            ridge = np.zeros((size, size), np.uint8)
            cv2.polylines(ridge, [np.round(poly * 16).astype(np.int32)], True, 255,
                          max(1, int(round(size / 45))), cv2.LINE_AA, shift=4)
            face_img = face_img * (1 - spec.edge_shade * ridge.astype(np.float32)[..., None] / 255)
        m = mask.astype(np.float32)[..., None] / 255
        if fi == up_fi:
            glint_place = m[..., 0], poly
        img = img * (1 - m) + face_img * m
        alpha = np.maximum(alpha, m[..., 0])
    if glint > 0 and glint_place is not None and rng.uniform() < glint:  # drawn only then: other renders as before
        coverage, outline = glint_place
        gx, gy = rng.uniform(outline.min(0), outline.max(0))
        sigma = rng.uniform(0.03, 0.1) * size
        img = draw_glint(img, (gx, gy), sigma, rng.uniform(0.7, 1.0), coverage)
    # a soft rim darkening so edges read like a rounded solid
    edge = cv2.GaussianBlur(alpha, (0, 0), size / 60)
    img *= (0.75 + 0.25 * edge)[..., None]
    if info is not None:
        info["mark_px"] = read_px
        info["mark_contrast"] = read_diff / read_px if read_px > 0 else 0.0
    return img, alpha


def draw_glint(img: np.ndarray, centre: tuple[float, float], sigma: float, strength: float,
               within: np.ndarray | None = None) -> np.ndarray:
    """img (HxWx3 float BGR, grey levels) with a lamp's glint on a glossy surface drawn on it: a round spot, a
    Gaussian of sigma px at centre (x, y px) and peak strength (0..1), flat at its core (1.6 times it, at most 1) and
    twice white there, so that the camera's ceiling clips it; within: HxW coverage (0..1) it is drawn on (a die's up
    face), None: everywhere. A new array; img is left as it was."""
    yy, xx = np.mgrid[0:img.shape[0], 0:img.shape[1]].astype(np.float32)
    spot = strength * np.exp(-((xx - centre[0]) ** 2 + (yy - centre[1]) ** 2) / (2 * sigma * sigma))
    if within is not None:
        spot = spot * within
    spot = np.minimum(1.0, 1.6 * spot)[..., None]
    return img * (1 - spot) + 510.0 * spot


def _finish(img: np.ndarray, rng: np.random.Generator, blur_max: float = 1.3) -> np.ndarray:
    """Camera effects on a float BGR image: colour cast, gain, gamma, blur, noise, JPEG."""
    img = img * rng.uniform(0.9, 1.1, 3).astype(np.float32) * rng.uniform(0.7, 1.25)
    img = 255 * (img.clip(0, 255) / 255) ** rng.uniform(0.8, 1.25)
    sigma = rng.uniform(0, blur_max)
    if sigma > 0.3:
        img = cv2.GaussianBlur(img, (0, 0), sigma)
    img = img + rng.normal(0, rng.uniform(1, 6), img.shape)
    out = img.clip(0, 255).astype(np.uint8)
    ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(55, 96))])
    return np.asarray(cv2.imdecode(buf, cv2.IMREAD_COLOR))


def _composite(bg: np.ndarray, patch: np.ndarray, alpha: np.ndarray, x: int, y: int,
               rng: np.random.Generator) -> None:
    """Paste a die patch with its shadow onto bg (float) at top-left (x, y), in place."""
    s = patch.shape[0]
    dx, dy = rng.integers(-s // 10, s // 10 + 1, 2)
    shadow = cv2.GaussianBlur(alpha, (0, 0), s / 25)
    shadow = np.roll(shadow, (int(dy), int(dx)), (0, 1)) * rng.uniform(0.25, 0.55)
    region = bg[y:y + s, x:x + s]
    region *= (1 - shadow)[..., None]
    a = alpha[..., None]
    region[:] = region * (1 - a) + patch * a


def truth_of(spec: DieSpec, value: int) -> dict:
    """Ground truth of the face `value` of a die: die_type, value (None for a stone's symbol-only
    face is not used: stones report the face number), symbols, face_colour, colour (body)."""
    if spec.die_type == "stone":
        face = spec.stone_faces[value - 1]
        return {"die_type": "stone", "value": value, "symbols": face.symbols(),
                "face_colour": face.colour, "colour": spec.name}
    symbols = [spec.logos[value]] if value in spec.logos else []
    return {"die_type": spec.die_type, "value": value, "symbols": symbols,
            "face_colour": spec.name, "colour": spec.name}


def render_crop(spec: DieSpec, value: int, rng: np.random.Generator, size: int = 112,
                background: np.ndarray | None = None, spin_deg: float | None = None,
                elevation: float | None = None) -> tuple[np.ndarray, dict]:
    """One die showing `value` (1..N; a stone's face number 1..6) as a detector would crop it:
    returns (crop: size x size x 3 uint8 BGR, truth dict as truth_of). The die spans 65-95% of the
    crop, off centre by up to 8%. spin_deg None: any rotation; s: marks upright +- s degrees.
    elevation: None, the face shown looks at the camera; degrees (0, 90]: it points up and the camera
    looks down from that elevation (_render_die_patch).
    Raises ValueError for a value the die does not have or an elevation outside (0, 90]."""
    if not 1 <= value <= FACES[spec.die_type]:
        raise ValueError(f"{spec.die_type} has no face {value}")
    die = int(size * rng.uniform(0.68, 1.0))
    patch, alpha = _render_die_patch(spec, value, rng, die, spin_deg=spin_deg, elevation=elevation)
    bg = (tray_background(rng, (size, size)) if background is None else background).astype(np.float32)
    off = size - die
    x = int(np.clip(off / 2 + rng.uniform(-0.08, 0.08) * size, 0, off))
    y = int(np.clip(off / 2 + rng.uniform(-0.08, 0.08) * size, 0, off))
    _composite(bg, patch, alpha, x, y, rng)
    return _finish(bg, rng), truth_of(spec, value)


def render_scene(dice: list[tuple[DieSpec, int]], rng: np.random.Generator,
                 size: tuple[int, int] = (640, 480), die_px: tuple[int, int] = (60, 90), glint: float = 0.0
                 ) -> tuple[np.ndarray, list[dict]]:
    """Several dice on one tray: dice = [(spec, value), ...]. Returns (frame: HxWx3 uint8 BGR with
    (W, H) = size, truths: one dict per die as truth_of plus "box": [x, y, w, h] in px, the
    die's tight box). glint: each die's chance of a glint on its up face (_render_die_patch; glossy dice under
    a lamp). Dice do not overlap; raises ValueError when they cannot all be placed."""
    w, h = size
    bg = tray_background(rng, size).astype(np.float32)
    truths: list[dict] = []
    boxes: list[tuple[int, int, int, int]] = []
    for spec, value in dice:
        s = int(rng.integers(die_px[0], die_px[1] + 1))
        patch, alpha = _render_die_patch(spec, value, rng, s, glint=glint)
        for _ in range(200):
            x, y = int(rng.integers(0, w - s)), int(rng.integers(0, h - s))
            if _free(x, y, s, boxes):
                break
        else:
            raise ValueError(f"cannot place {len(dice)} dice of {die_px} px on a {size} tray")
        truths.append({**truth_of(spec, value), "box": _placed(bg, patch, alpha, x, y, rng, boxes)})
    return _finish(bg, rng, blur_max=0.8), truths


def _free(x: int, y: int, s: int, boxes: list[tuple[int, int, int, int]]) -> bool:
    """True when an s px square at (x, y) px overlaps none of boxes (x, y, w, h px)."""
    return all(x + s <= bx or bx + bw <= x or y + s <= by or by + bh <= y for bx, by, bw, bh in boxes)


def _placed(bg: np.ndarray, patch: np.ndarray, alpha: np.ndarray, x: int, y: int, rng: np.random.Generator,
            boxes: list[tuple[int, int, int, int]]) -> list[int]:
    """Composite a die patch (sxsx3, alpha sxs 0..1) onto bg (HxWx3 float32) at (x, y) px, record its
    square in boxes, and return the die's tight box [x, y, w, h] px (where alpha > 0.5)."""
    _composite(bg, patch, alpha, x, y, rng)
    ys, xs = np.nonzero(alpha > 0.5)
    s = patch.shape[0]
    boxes.append((x, y, s, s))
    return [x + int(xs.min()), y + int(ys.min()), int(xs.max() - xs.min() + 1), int(ys.max() - ys.min() + 1)]


def render_oblique_scene(dice: list[tuple[DieSpec, int]], rng: np.random.Generator, elevation: float,
                         size: tuple[int, int] = (640, 480), die_px: tuple[int, int] = (36, 56)
                         ) -> tuple[np.ndarray, list[dict], tuple[tuple[float, float], tuple[float, float], float]]:
    """Dice on a round floor (a dice dome's or round tray's, with a darker rim) on a table, all seen
    from a camera at `elevation` degrees above the floor's plane, its image "up" away from it: the
    floor is an ellipse of minor/major ratio sin(elevation), each die shows its face `value` pointing
    up (_render_die_patch's elevation). Returns (frame: HxWx3 uint8 BGR with (W, H) = size, truths:
    one dict per die as truth_of plus "box" [x, y, w, h] px and "elevation", the floor's ellipse
    ((cx, cy), (major, minor), 0) px). Raises ValueError for an elevation outside (0, 90] or dice
    that cannot all be placed on the floor without overlapping."""
    check_elevation(elevation)
    w, h = size
    bg: np.ndarray = tray_background(rng, size).astype(np.float32)
    major = rng.uniform(0.55, 0.8) * min(w, h / max(np.sin(np.radians(elevation)), 0.75))
    minor = major * np.sin(np.radians(elevation))
    cx = w / 2 + rng.uniform(-0.05, 0.05) * w
    cy = h / 2 + rng.uniform(-0.05, 0.05) * h
    # the rim is the one of black and white further in grey from the table: a floor that can be seen
    rim = np.array(COLOURS["black" if bg.mean() > 110 else "white"], np.float32)
    floor = np.array(COLOURS[str(rng.choice(["green", "blue", "red", "purple", "teal"]))], np.float32) * 0.8
    for colour, grow in ((rim, 1.0), (floor, 0.9)):
        layer = np.zeros((h, w), np.uint8)
        cv2.ellipse(layer, (int(round(cx)), int(round(cy))), (int(major * grow / 2), int(minor * grow / 2)),
                    0, 0, 360, 255, -1, cv2.LINE_AA)
        a = layer.astype(np.float32)[..., None] / 255
        shade = 1 + 0.1 * _noise_field(rng, (h, w), 4)[..., None]
        bg = bg * (1 - a) + colour * shade * a
    truths: list[dict] = []
    boxes: list[tuple[int, int, int, int]] = []
    for spec, value in dice:
        s = int(rng.integers(die_px[0], die_px[1] + 1))
        patch, alpha = _render_die_patch(spec, value, rng, s, tilt_deg=4.0, elevation=elevation)
        for _ in range(200):
            t, rho = rng.uniform(0, 2 * np.pi), np.sqrt(rng.uniform(0, 1)) * 0.6
            x = int(cx + rho * major / 2 * np.cos(t) - s / 2)
            y = int(cy + rho * minor / 2 * np.sin(t) - s * 0.6)
            if 0 <= x <= w - s and 0 <= y <= h - s and _free(x, y, s, boxes):
                break
        else:
            raise ValueError(f"cannot place {len(dice)} dice of {die_px} px on a floor of {major:.0f} px")
        truths.append({**truth_of(spec, value), "box": _placed(bg, patch, alpha, x, y, rng, boxes),
                       "elevation": float(elevation)})
    return _finish(bg, rng, blur_max=0.8), truths, ((float(cx), float(cy)), (float(major), float(minor)), 0.0)


def render_shape_crop(spec: DieSpec, rng: np.random.Generator, size: int = 112, tilt_deg: float = 40.0
                      ) -> tuple[np.ndarray, np.ndarray, dict]:
    """One die resting on a random face, seen from a camera tilted up to tilt_deg degrees off the
    vertical (lurig's "45angle" photos), for training and testing the die-type-by-shape reader
    (shape.py). Returns (crop: size x size x 3 uint8 BGR, mask: size x size uint8 0/255 the die's true
    silhouette, truth dict as truth_of). The die spans 45-90% of the crop, off centre by up to 10%.
    Raises ValueError when tilt_deg is outside 0..80."""
    if not 0 <= tilt_deg <= 80:
        raise ValueError(f"tilt_deg must be within 0..80 degrees, got {tilt_deg}")
    value = int(rng.integers(1, FACES[spec.die_type] + 1))
    die = int(size * rng.uniform(0.5, 1.0))
    patch, alpha = _render_die_patch(spec, value, rng, die, tilt_deg=tilt_deg)
    bg = tray_background(rng, (size, size)).astype(np.float32)
    off = size - die
    x = int(np.clip(off / 2 + rng.uniform(-0.1, 0.1) * size, 0, off))
    y = int(np.clip(off / 2 + rng.uniform(-0.1, 0.1) * size, 0, off))
    _composite(bg, patch, alpha, x, y, rng)
    mask = np.zeros((size, size), np.uint8)
    mask[y:y + die, x:x + die] = (alpha > 0.5).astype(np.uint8) * 255
    return _finish(bg, rng), mask, truth_of(spec, value)
