"""The roll log and the fairness audit (issue 5).

rolllog.py  the tamper-evident SQLite roll log (RollLog, LogError) the tower service writes to
stats.py    the fairness tests (scipy.stats, statsmodels) and Weldon-style binomial counts
sprt.py     Wald's SPRT and the live FairnessWatch that raises a die alarm
report.py   the per-die and per-set report: text, JSON, HTML with plots
io.py       CSV/JSON export and CSV import
cli.py      `dicetower audit verify | report | binomial | import | export | watch`
"""
