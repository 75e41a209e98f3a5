"""`dicetower audit ...`: verify the roll log's hash chain, report on the dice's fairness, test binomial
counts (Weldon's dice), import and export rolls, watch a session live."""

from __future__ import annotations

import json
import sys
import time
from fractions import Fraction
from pathlib import Path

import click

from dicetower import paths

from .rolllog import LogError, RollLog

LOG_OPTION = click.option("--log", "log_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
                          help="Roll log SQLite file (default: rolls.sqlite in the user's data directory).")


def _open(log_path: Path | None, readonly: bool = True) -> RollLog:
    try:
        return RollLog(log_path or paths.default_log_path(), readonly=readonly)
    except LogError as exc:
        raise click.ClickException(str(exc)) from exc


@click.group()
def audit() -> None:
    """Audit the roll log: is it intact, and are the dice and the tower fair?"""


@audit.command()
@LOG_OPTION
def verify(log_path: Path | None) -> None:
    """Recompute the log's hash chain; name every edited, inserted or deleted row. Exit 1 on tampering."""
    with _open(log_path) as log:
        try:
            result = log.verify()
        except LogError as exc:
            raise click.ClickException(str(exc)) from exc
    for fault in result.faults:
        click.echo(f"TAMPERED ({fault.kind}): {fault.detail}")
    if result.ok:
        click.echo(f"intact: {result.rows} rows chained; head seq {result.head_seq} hash {result.head_hash}")
        return
    click.echo(f"{len(result.faults)} problem(s) in {log.path}; head seq {result.head_seq} hash {result.head_hash}")
    sys.exit(1)


@audit.command()
@LOG_OPTION
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object per die (die_id, die_type, n, counts, "
              "chi2, p_chi2, g, p_g, ...).")
@click.option("--html", "html_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Also write an HTML report with plots (PNG) into this folder.")
@click.option("--sets/--no-sets", default=True, help="Also report each die type pooled as a dice set "
              "(in the text and HTML report; --json prints dice only).")
@click.option("--alpha", type=click.FloatRange(0, 1, min_open=True, max_open=True), default=0.05, show_default=True)
@click.option("--bias", "relative_bias", type=click.FloatRange(0, min_open=True), default=0.2, show_default=True,
              help="Stated bias to size the rolls needed for: one face (1 + BIAS) times as likely as fair.")
def report(log_path: Path | None, as_json: bool, html_dir: Path | None, sets: bool, alpha: float,
           relative_bias: float) -> None:
    """Per die and per dice set: counts, chi-square and G-tests, per-face exact tests (Holm), serial
    independence, tower effects, and what the rolls so far can and cannot rule out."""
    from .report import audit_log, render_text, write_html

    with _open(log_path) as log:
        try:
            audits = audit_log(log, alpha=alpha, stated_relative_bias=relative_bias, sets=sets and not as_json)
        except LogError as exc:
            raise click.ClickException(str(exc)) from exc
        if as_json:
            for a in audits:
                click.echo(json.dumps(a.to_json()))
        else:
            click.echo(render_text(audits, alpha))
        if html_dir is not None:
            if as_json and sets:
                audits = audit_log(log, alpha=alpha, stated_relative_bias=relative_bias, sets=True)
            index = write_html(log, audits, html_dir, alpha)
            click.echo(f"HTML report: {index}", err=as_json)


def _probability(text: str) -> float:
    try:
        return float(Fraction(text.strip()))
    except (ValueError, ZeroDivisionError) as exc:
        raise click.BadParameter(f"{text!r} is not a probability (write 1/3 or 0.3333)") from exc


@audit.command()
@click.option("--counts", required=True, help="Throws with 0, 1, ..., N successes, comma-separated.")
@click.option("--n-dice", type=click.IntRange(1), required=True, help="Dice per throw (N).")
@click.option("--p", "p_text", default=None, help="Success probability per die (1/3, 0.5). Required unless --estimate-p.")
@click.option("--pool-from", type=int, default=None, help="Pool the cells with this many successes or more.")
@click.option("--estimate-p", is_flag=True, help="Estimate p from the data (one degree of freedom less).")
@click.option("--json", "as_json", is_flag=True, help="Print the result as one JSON object.")
def binomial(counts: str, n_dice: int, p_text: str | None, pool_from: int | None, estimate_p: bool,
             as_json: bool) -> None:
    """Goodness of fit of success counts to binomial(N, p), e.g. Weldon's 12 dice counting fives and sixes:
    --counts 185,1149,3265,5475,6114,5194,3067,1331,403,105,14,4,0 --n-dice 12 --p 1/3 --pool-from 10"""
    from .stats import binomial_counts

    try:
        values = [int(v) for v in counts.replace(" ", "").split(",") if v]
    except ValueError as exc:
        raise click.BadParameter(f"{exc}: give whole numbers separated by commas", param_hint="--counts") from exc
    if p_text is None and not estimate_p:
        raise click.UsageError("give --p (e.g. 1/3) or --estimate-p")
    p = None if estimate_p else _probability(p_text or "")
    try:
        res = binomial_counts(values, n_dice, p, pool_from)
    except ValueError as exc:
        raise click.ClickException(str(exc)) from exc
    if as_json:
        click.echo(json.dumps({"n_dice": res.n_dice, "throws": res.throws, "p": res.p, "estimated": res.estimated,
                               "cells": res.labels, "observed": res.observed.tolist(),
                               "expected": res.expected.tolist(), "df": res.chi2.df,
                               "chi2": res.chi2.statistic, "p_chi2": res.chi2.pvalue,
                               "g": res.g.statistic, "p_g": res.g.pvalue}))
        return
    click.echo(f"{res.throws} throws of {res.n_dice} dice against binomial({res.n_dice}, p = {res.p:.6f}"
               f"{', estimated' if res.estimated else ''}); {len(res.labels)} cells, df {res.chi2.df}")
    click.echo("successes  observed  expected")
    for label, o, e in zip(res.labels, res.observed, res.expected):
        click.echo(f"{label:>9}  {int(o):8d}  {e:8.1f}")
    click.echo(f"X2 = {res.chi2.statistic:.3f}, p = {res.chi2.pvalue:.3g}")
    click.echo(f"G2 = {res.g.statistic:.3f}, p = {res.g.pvalue:.3g}")


@audit.command("import")
@click.argument("csv_file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@LOG_OPTION
@click.option("--tower", default="import", show_default=True, help="Tower name to record the rows under.")
@click.option("--table", default=None, help="Table or session name to record the rows under.")
def import_(csv_file: Path, log_path: Path | None, tower: str, table: str | None) -> None:
    """Import rolls from a CSV with columns die_id,die_type,face (all or nothing, chained like any roll)."""
    from .io import import_csv

    with _open(log_path, readonly=False) as log:
        try:
            ids = import_csv(log, csv_file, tower=tower, table=table)
        except LogError as exc:
            raise click.ClickException(str(exc)) from exc
    click.echo(f"imported {len(ids)} readings from {csv_file} into {log.path} (rolls {ids[0]}..{ids[-1]})")


@audit.command()
@LOG_OPTION
@click.option("--format", "fmt", type=click.Choice(["csv", "json"]), default="csv", show_default=True)
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="File to write (default: standard output).")
def export(log_path: Path | None, fmt: str, output: Path | None) -> None:
    """Export the log as CSV (one row per die read) or JSON (one object per roll)."""
    from .io import export_csv, export_json

    with _open(log_path) as log:
        writer = export_csv if fmt == "csv" else export_json
        if output is None:
            writer(log, sys.stdout)
        else:
            with open(output, "w", encoding="utf-8", newline="") as fh:
                count = writer(log, fh)
            click.echo(f"wrote {count} {'readings' if fmt == 'csv' else 'rolls'} to {output}")


@audit.command()
@LOG_OPTION
@click.option("--bias", "relative_bias", type=click.FloatRange(0, min_open=True), default=0.2, show_default=True,
              help="Alarm when a face looks (1 + BIAS) times as likely as fair.")
@click.option("--follow", is_flag=True, help="Keep watching for new rolls (Ctrl-C stops).")
def watch(log_path: Path | None, relative_bias: float, follow: bool) -> None:
    """Run the live SPRT watch over the log's rolls (and new ones with --follow); print each alarm."""
    from dicetower.readings import DieReading

    from .sprt import FairnessWatch

    watcher = FairnessWatch(relative_bias=relative_bias)
    seen, last = 0, 0
    with _open(log_path) as log:
        while True:
            for roll in log.rolls(after=last):
                seen, last = seen + 1, roll["roll_id"]
                readings = [DieReading(d["counted_type"], d["face"], tuple(d["box"]), d["confidence"], die_id=d["die_id"])
                            for d in roll["dice"]]
                for alarm in watcher.feed_roll(readings):
                    click.echo(f"roll {roll['roll_id']}: {alarm.message}")
            if not follow:
                break
            time.sleep(1.0)
    click.echo(f"{seen} rolls watched, {sum(watcher.rolls.values())} readings, {len(watcher.alarms)} alarm(s)")
