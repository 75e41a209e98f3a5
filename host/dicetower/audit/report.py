"""The fairness report over a roll log: per die and per dice set, as text, JSON, and an HTML page of
plots (issue 5, items 2, 5 and 6). The statistics are in stats.py, the SPRT in sprt.py.

A "die" is one physical die (its die_id; readings without an id are pooled per die type as one
unidentified die). A "dice set" is every die of one type in the log pooled: its tower effects (face
before, drop position, time of day) are about the tower rather than one die.
"""

from __future__ import annotations

import gc
import html
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .rolllog import DIE_SIDES, LogError, RollLog, die_sides
from .sprt import FairnessWatch
from .stats import DieAudit, audit_faces, binned_effect

#: Time-of-day bins (UTC hours): night 0-6, morning 6-12, afternoon 12-18, evening 18-24.
TIME_BINS_H = 6
#: Drop position: the tray split into this many bands by the die's box centre x (quantiles).
POSITION_BINS = 3


@dataclass
class AuditData:
    """The log's readings as columns, in roll order (n = readings with a face value).

    key: shape (n,) index into `dice` ((die_id, die_type) pairs); face: (n,) 1..sides;
    x: (n,) box centre x, px; epoch: (n,) roll time, Unix s; corrected: (n,) bool, the face is a person's
    correction of the value read;
    uncounted: {(die_id, die_type): readings not counted (no number read, or unsure and never confirmed)};
    not_dice: {(die_id, die_type): of those, the readings a person said are no die (RollLog.not_dice)}.
    """

    dice: list[tuple[str | None, str]]
    key: np.ndarray
    face: np.ndarray
    x: np.ndarray
    epoch: np.ndarray
    corrected: np.ndarray
    uncounted: dict[tuple[str | None, str], int]
    not_dice: dict[tuple[str | None, str], int]


def load(log: RollLog) -> AuditData:
    """Read every die reading of a log into columns (corrections applied)."""
    dice, rows = log.audit_columns()
    read = rows["face"] > 0
    uncounted: dict[tuple[str | None, str], int] = {}
    if not read.all():
        for k, c in zip(*np.unique(rows["key"][~read], return_counts=True)):
            uncounted[dice[k]] = int(c)
    rows = rows[read]
    return AuditData(dice, rows["key"], rows["face"], rows["x"], rows["epoch"], rows["corrected"], uncounted,
                     log.not_dice())


def tower_effects(face: np.ndarray, x: np.ndarray, epoch: np.ndarray, sides: int):
    """Tower effects on faces of one die or dice set: face vs drop position band (box centre x
    quantiles), vs UTC time of day (6 h bins). Tests with a single non-empty band are left out (e.g.
    imported rows carry no position). (Face vs the face before is the audit's serial test: for a set
    it is the tower's sequence of that die type.)"""
    effects = {}
    if face.size > 2 and np.ptp(x) > 0:
        edges = np.quantile(x, np.linspace(0, 1, POSITION_BINS + 1)[1:-1])
        res = binned_effect(face, np.searchsorted(edges, x, side="right"), sides, "face vs drop position (chi2_contingency)")
        if res:
            effects["drop_position"] = res
    if face.size > 2:
        hours = ((epoch % 86400) // 3600).astype(np.int64)
        res = binned_effect(face, hours // TIME_BINS_H, sides, "face vs time of day (chi2_contingency)")
        if res:
            effects["time_of_day"] = res
    return effects


def audit_log(log: RollLog, *, alpha: float = 0.05, stated_relative_bias: float = 0.2,
              sets: bool = True) -> list[DieAudit]:
    """Audit every die of the log (ordered by die type, then die_id), then, with `sets`, every die type
    pooled as a dice set. Readings with no number, and unsure readings nobody confirmed (GEN-D01), are
    reported as `uncounted`, not counted as faces."""
    data = load(log)
    gc.freeze()  # statsmodels' multipletests calls gc.collect(): skip the objects that exist already
    try:
        return _audit(data, alpha, stated_relative_bias, sets)
    finally:
        gc.unfreeze()


def _check(data: AuditData) -> None:
    """Refuse faces a log written by dicetower cannot hold (it was edited outside dicetower)."""
    for k, (die_id, die_type) in enumerate(data.dice):
        sides = die_sides(die_type, where=f"(die {die_id or 'without id'} in the log: run `dicetower audit verify`)")
        faces = data.face[data.key == k]
        if faces.size and faces.max() > sides:
            raise LogError(f"the log holds face {faces.max()} for the {die_type} {die_id or 'without id'}, out of "
                           f"range 1..{sides}: it was edited outside dicetower; run `dicetower audit verify`")


def _audit(data: AuditData, alpha: float, stated_relative_bias: float, sets: bool) -> list[DieAudit]:
    _check(data)
    order = np.argsort(data.key, kind="stable")
    bounds = np.searchsorted(data.key[order], np.arange(len(data.dice) + 1))
    out: list[DieAudit] = []
    for k in sorted(range(len(data.dice)), key=lambda k: (DIE_SIDES.get(data.dice[k][1], 0), data.dice[k][1],
                                                           data.dice[k][0] or "")):
        die_id, die_type = data.dice[k]
        sides = DIE_SIDES[die_type]
        sel = order[bounds[k]:bounds[k + 1]]
        face = data.face[sel]
        label = die_id if die_id else f"{die_type} (no id)"
        out.append(audit_faces(die_id, die_type, sides, face, alpha=alpha, stated_relative_bias=stated_relative_bias,
                               uncounted=data.uncounted.get((die_id, die_type), 0), label=label,
                               corrected=int(data.corrected[sel].sum()),
                               not_dice=data.not_dice.get((die_id, die_type), 0),
                               effects=tower_effects(face, data.x[sel], data.epoch[sel], sides)))
    if sets:
        types = sorted({t for _, t in data.dice}, key=lambda t: (DIE_SIDES[t], t))
        for die_type in types:
            keys = [k for k, (_, t) in enumerate(data.dice) if t == die_type]
            if len(keys) < 2:
                continue  # a set of one die is that die
            sel = np.flatnonzero(np.isin(data.key, keys))
            sides = DIE_SIDES[die_type]
            face = data.face[sel]
            out.append(audit_faces(None, die_type, sides, face, kind="set", alpha=alpha,
                                   stated_relative_bias=stated_relative_bias, label=f"all {die_type}s",
                                   uncounted=sum(v for (i, t), v in data.uncounted.items() if t == die_type),
                                   corrected=int(data.corrected[sel].sum()),
                                   not_dice=sum(v for (i, t), v in data.not_dice.items() if t == die_type),
                                   serial_test="face vs face before in the tower (lag-1)",
                                   effects=tower_effects(face, data.x[sel], data.epoch[sel], sides)))
    return out


def _counted(a: DieAudit) -> str:
    """What n leaves out and what of it a person set: readings not counted (those a person said are no die),
    faces counted as corrected."""
    left_out = f", {a.not_dice} of them left out by a person as no die" if a.not_dice else ""
    notes = ([f"{a.uncounted} not counted: no number read, or unsure and unconfirmed{left_out}"] if a.uncounted
             else []) + ([f"{a.corrected} counted as a person corrected them, not as read"] if a.corrected else [])
    return f" ({'; '.join(notes)})" if notes else ""


def _p(p: float | None) -> str:
    return "n/a" if p is None or (isinstance(p, float) and math.isnan(p)) else f"{p:.3g}"


def verdict(audit: DieAudit, alpha: float = 0.05) -> str:
    """One honest sentence: biased, or no evidence yet and what the rolls so far can rule out."""
    if audit.n == 0:
        return "no readings yet"
    biased = [f.face for f in audit.faces if f.biased]
    faces = f"faces off (exact binomial, Holm): {', '.join(map(str, biased))}" if biased else ""
    if audit.small_sample:
        caution = (f"few rolls: {audit.n / audit.counts.size:.1f} expected per face (< 5), so the chi-square and "
                   "G p-values are rough; ")
        if biased:
            return f"EVIDENCE OF BIAS: {faces} ({caution.rstrip('; ')})"
        return caution + f"the exact per-face tests find nothing at alpha {alpha}: roll more"
    if audit.chi2.pvalue < alpha or biased:
        return f"EVIDENCE OF BIAS: chi-square p = {_p(audit.chi2.pvalue)} < {alpha}" + (f"; {faces}" if faces else "")
    pw = audit.power
    if pw.min_face_p_gof is None:
        return "too few rolls to judge"
    return (f"no evidence of bias at alpha {alpha}; with {audit.n} rolls only a face at p >= "
            f"{pw.min_face_p_gof:.4f} (fair {1 / pw.sides:.4f}) would be detected with power {pw.power}; "
            f"a face at {pw.stated_face_p:.4f} needs about {pw.rolls_needed} rolls")


def render_text(audits: list[DieAudit], alpha: float = 0.05) -> str:
    """The report as plain text for the terminal."""
    if not audits:
        return "the log holds no die readings yet"
    lines = []
    for a in audits:
        lines.append(f"== {a.label} [{a.kind}, {a.die_type}] n = {a.n}{_counted(a)}")
        lines.append("   counts: " + " ".join(f"{i + 1}:{c}" for i, c in enumerate(a.counts)))
        lines.append(f"   chi-square = {a.chi2.statistic:.3f} (df {a.chi2.df}) p = {_p(a.chi2.pvalue)};  "
                     f"G = {a.g.statistic:.3f} p = {_p(a.g.pvalue)}" if a.n else "   no readings")
        if a.faces:
            worst = min(a.faces, key=lambda f: f.pvalue)
            lines.append(f"   per-face exact binomial, Holm: smallest adjusted p = {_p(worst.pvalue_holm)} (face "
                         f"{worst.face}: {worst.count} vs {worst.expected:.1f} expected)")
        if a.serial:
            lines.append(f"   {a.serial.test}: chi2 = {a.serial.statistic:.2f} (df {a.serial.df}) "
                         f"p = {_p(a.serial.pvalue)}")
        for name, res in a.effects.items():
            lines.append(f"   tower effect, {name.replace('_', ' ')}: chi2 = {res.statistic:.2f} (df {res.df}) "
                         f"p = {_p(res.pvalue)}")
        lines.append("   " + verdict(a, alpha))
    return "\n".join(lines)


# -- plots and HTML --------------------------------------------------------------------------------
def _faces_of(data: AuditData, audit: DieAudit) -> np.ndarray:
    keys = [k for k, (die_id, t) in enumerate(data.dice) if t == audit.die_type and
            (audit.kind == "set" or die_id == audit.die_id)]
    return data.face[np.isin(data.key, keys)]


def plot_die(audit: DieAudit, faces: np.ndarray, folder: Path, stem: str, alpha: float = 0.05) -> list[Path]:
    """Write four PNGs for one die: counts with expected count and 95 % band, chi-square p-value as rolls
    accumulate, the watch's SPRT path for the most frequent face with its bounds, and the lag-1
    transition heat map. faces: shape (n,), 1..sides in roll order. Returns the files written."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from scipy import stats

    from .stats import goodness_of_fit

    sides, n = audit.counts.size, audit.n
    files = []
    xs = np.arange(1, sides + 1)

    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    ax.bar(xs, audit.counts, color="#4c78a8", label="observed", zorder=3)
    lo, hi = stats.binom.interval(0.95, n, 1.0 / sides) if n else (0, 0)
    ax.axhspan(lo, hi, color="#f58518", alpha=0.2, label="95 % range of a fair die", zorder=0)
    ax.axhline(n / sides, color="#f58518", lw=1.5, label=f"expected {n / sides:.1f}", zorder=4)
    for f in audit.faces:
        if f.biased:
            ax.bar([f.face], [f.count], color="#e45756", zorder=3)
    ax.set(xlabel="face", ylabel="count", title=f"{audit.label}: {n} rolls, chi-square p = {_p(audit.chi2.pvalue)}",
           xticks=xs)
    ax.legend(fontsize=7, loc="lower right")
    files.append(_save(fig, folder / f"{stem}-counts.png"))

    fig, ax = plt.subplots(figsize=(6.4, 3.2))
    if n >= sides:
        checkpoints = np.unique(np.geomspace(sides, n, num=min(80, n)).astype(int))
        cum = np.cumsum(np.eye(sides, dtype=np.int64)[faces - 1], axis=0) if n <= 200_000 else None
        pvals = [goodness_of_fit(cum[m - 1] if cum is not None else np.bincount(faces[:m] - 1, minlength=sides))[0].pvalue
                 for m in checkpoints]
        ax.plot(checkpoints, pvals, color="#4c78a8")
        ax.set_xscale("log")
    ax.axhline(alpha, color="#e45756", ls="--", label=f"alpha {alpha}")
    ax.set(xlabel="rolls", ylabel="chi-square p-value", ylim=(0, 1), title="p-value as rolls accumulate")
    ax.legend(fontsize=7)
    files.append(_save(fig, folder / f"{stem}-pvalue.png"))

    fig, ax = plt.subplots(figsize=(6.4, 3.2))
    test = FairnessWatch().face_test(sides)
    face = int(np.argmax(audit.counts)) + 1 if n else 1
    path = test.trace(faces == face)
    ax.plot(np.arange(1, path.size + 1), path, color="#4c78a8", lw=1)
    ax.axhline(test.upper, color="#e45756", ls="--", label=f"alarm bound {test.upper:+.2f}")
    ax.axhline(test.lower, color="#54a24b", ls="--", label=f"fair bound {test.lower:+.2f} (restart)")
    ax.set(xlabel="rolls", ylabel="log-likelihood ratio",
           title=f"SPRT of face {face} (most frequent): p {test.p0:.3f} vs {test.p1:.3f}")
    ax.legend(fontsize=7)
    files.append(_save(fig, folder / f"{stem}-sprt.png"))

    fig, ax = plt.subplots(figsize=(4.8, 4.2))
    im = ax.imshow(audit.transition, cmap="viridis", origin="lower", extent=(0.5, sides + 0.5, 0.5, sides + 0.5))
    fig.colorbar(im, ax=ax, label="count")
    ax.set(xlabel="face", ylabel="face before",
           title=f"transitions, p = {_p(audit.serial.pvalue if audit.serial else None)}")
    files.append(_save(fig, folder / f"{stem}-transitions.png"))
    return files


def _save(fig, path: Path) -> Path:  # type: ignore[no-untyped-def]
    import matplotlib.pyplot as plt

    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return path


def write_html(log: RollLog, audits: list[DieAudit], folder: Path, alpha: float = 0.05) -> Path:
    """Write index.html and the plots (PNG) of every die and set into `folder` (created), headed by the
    log's hash-chain check. Returns index.html."""
    folder.mkdir(parents=True, exist_ok=True)
    data = load(log)
    parts = ["<!doctype html><html><head><meta charset='utf-8'><title>Dice fairness report</title>"
             "<style>body{font-family:sans-serif;max-width:1100px;margin:auto}img{max-width:49%}"
             "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 6px}</style></head><body>",
             f"<h1>Dice fairness report</h1><p>Log: {html.escape(str(log.path))}; {log.count_readings()} readings.</p>"]
    chain = log.verify()
    if chain.ok:
        parts.append(f"<p>Hash chain intact: {chain.rows} rows, head hash <code>{chain.head_hash}</code>.</p>")
    else:
        parts.append(f"<p style='color:#c00'><b>The log was altered ({len(chain.faults)} problem(s)); these figures "
                     "cannot be trusted:</b></p><ul>" +
                     "".join(f"<li>{html.escape(f.detail)}</li>" for f in chain.faults[:20]) + "</ul>")
    for i, a in enumerate(audits):
        stem = f"{i:02d}-{a.kind}-{a.die_type}"
        files = plot_die(a, _faces_of(data, a), folder, stem, alpha) if a.n else []
        parts.append(f"<h2>{html.escape(a.label)} ({a.kind}, {a.die_type}), n = {a.n}{html.escape(_counted(a))}</h2>")
        parts.append(f"<p><b>{html.escape(verdict(a, alpha))}</b></p>")
        parts.append("<table><tr><th>test</th><th>statistic</th><th>df</th><th>p</th></tr>")
        for res in [a.chi2, a.g] + ([a.serial] if a.serial else []) + list(a.effects.values()):
            parts.append(f"<tr><td>{html.escape(res.test)}</td><td>{res.statistic:.3f}</td><td>{res.df}</td>"
                         f"<td>{_p(res.pvalue)}</td></tr>")
        parts.append("</table>")
        parts.extend(f"<img src='{f.name}' alt='{f.stem}'>" for f in files)
    parts.append("</body></html>")
    index = folder / "index.html"
    index.write_text("\n".join(parts), encoding="utf-8")
    return index
