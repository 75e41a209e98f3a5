"""Audit scale figures (issue 5, item 7): logging throughput, and report and verify time on one
million logged readings. Printed, never asserted."""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

import numpy as np

from dicetower.audit.report import audit_log
from dicetower.audit.rolllog import RollLog
from dicetower.readings import DieReading

DICE_PER_ROLL = 10
MILLION = 1_000_000
SHA = "0" * 64


KINDS = [("d20", 20), ("d6", 6), ("d6", 6), ("d8", 8), ("d10", 10), ("d12", 12), ("d4", 4), ("d6", 6), ("d6", 6),
         ("d20", 20)]


def _dice(rng: np.random.Generator, n: int) -> list[DieReading]:
    """One roll of n (<= 10) fair dice with ids die0..die9, at random places in a 640 px wide tray."""
    sides = np.array([s for _, s in KINDS[:n]])
    faces = (rng.random(n) * sides).astype(int) + 1
    xs = rng.integers(0, 640, size=n)
    return [DieReading(t, int(f), (int(x), 40, 30, 30), 0.95, die_id=f"die{i}")
            for i, ((t, _), f, x) in enumerate(zip(KINDS[:n], faces, xs))]


def logging_throughput(folder: Path, seconds: float = 3.0) -> tuple[float, float]:
    """record_roll as the service calls it (one durable transaction per roll of 10 dice), for `seconds`.
    Returns (readings/s, rolls/s)."""
    rng = np.random.default_rng(0)
    with RollLog(folder / "throughput.sqlite") as log:
        rolls = 0
        start = time.perf_counter()
        while time.perf_counter() - start < seconds:
            log.record_roll(_dice(rng, DICE_PER_ROLL), {"successes": 1}, system="d6pool",
                            procedure="d6pool.count_successes", frame_sha256=SHA)
            rolls += 1
        elapsed = time.perf_counter() - start
    return rolls * DICE_PER_ROLL / elapsed, rolls / elapsed


def build_million(path: Path) -> float:
    """Log 1,000,000 readings (100,000 rolls of 10 dice, chained) in batches; return seconds taken."""
    rng = np.random.default_rng(1)
    start = time.perf_counter()
    with RollLog(path) as log:
        for batch in range(MILLION // DICE_PER_ROLL // 10_000):
            base = 1.79e9 + batch * 10_000 * 60
            rolls = [({"time_epoch": base + 60 * i, "tower": "bench", "system": "d6pool",
                       "procedure": "d6pool.count_successes", "outcome": {"successes": 1}, "frame_sha256": SHA},
                      _dice(rng, DICE_PER_ROLL)) for i in range(10_000)]
            log.append_rows(rolls, "bench batch")
    return time.perf_counter() - start


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        readings_s, rolls_s = logging_throughput(folder)
        print(f"logging throughput: {readings_s:,.0f} readings/s ({rolls_s:,.0f} durable rolls/s of "
              f"{DICE_PER_ROLL} dice; goal >= 1,000 readings/s)")
        path = folder / "million.sqlite"
        built = build_million(path)
        print(f"logged 1,000,000 chained readings in batches: {built:.1f} s ({MILLION / built:,.0f} readings/s)")
        with RollLog(path, readonly=True) as log:
            start, cpu = time.perf_counter(), time.process_time()
            audits = audit_log(log)
            report_s, report_cpu = time.perf_counter() - start, time.process_time() - cpu
            print(f"report on {log.count_readings():,} readings ({len(audits)} dice and sets): {report_s:.2f} s "
                  f"wall, {report_cpu:.2f} s CPU (goal < 5 s; load average {os.getloadavg()[0]:.1f} "
                  f"on {os.cpu_count()} cores)")
            start = time.perf_counter()
            result = log.verify()
            print(f"verify of {result.rows:,} chained rows: {time.perf_counter() - start:.2f} s "
                  f"({'intact' if result.ok else 'FAULTS'})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
