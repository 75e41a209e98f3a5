"""Debounce, short and long press (buttons.py), fed with sampled levels at chosen times."""
import time

from buttons import Debouncer, Pushbutton


class Recorder:
    def __init__(self):
        self.events = []

    def short(self, name):
        self.events.append(("short", name))

    def long(self, name):
        self.events.append(("long", name))


def make():
    rec = Recorder()
    return Pushbutton("ok", 26, rec.short, rec.long), rec


def feed(button, levels, start, step=Pushbutton.POLL_MS):
    """Sample `levels` (a list of 0/1, one per poll) from ticks `start`; returns the next tick."""
    now = start
    for level in levels:
        button.update(level, now)
        now = time.ticks_add(now, step)
    return now


def held(ms, level):
    return [level] * (ms // Pushbutton.POLL_MS)


def test_glitch_shorter_than_debounce_is_ignored():
    d = Debouncer(1)
    changed = [d.update(level, t) for t, level in ((0, 1), (5, 0), (10, 0), (15, 1), (20, 1), (40, 1))]
    assert not any(changed)
    assert d.level == 1


def test_level_change_is_taken_after_debounce_time():
    d = Debouncer(1)
    d.update(0, 100)
    assert not d.update(0, 100 + Debouncer.DEBOUNCE_MS - 1)
    assert d.update(0, 100 + Debouncer.DEBOUNCE_MS)
    assert d.level == 0


def test_bouncy_short_press_gives_one_short_on_release():
    button, rec = make()
    bounce = [0, 1, 0, 1, 0, 1]
    now = feed(button, held(50, 1) + bounce + held(150, 0), 0, step=1)
    assert rec.events == []  # nothing while held
    feed(button, bounce + held(100, 1), now, step=1)
    assert rec.events == [("short", "ok")]


def test_long_press_fires_once_while_held_and_no_short_after():
    button, rec = make()
    now = feed(button, held(20, 1) + held(Pushbutton.LONG_MS - 100, 0), 0)
    assert rec.events == []
    now = feed(button, held(400, 0), now)
    assert rec.events == [("long", "ok")]
    feed(button, held(100, 1), now)
    assert rec.events == [("long", "ok")]


def test_two_quick_presses_are_two_shorts():
    button, rec = make()
    feed(button, held(20, 1) + held(80, 0) + held(80, 1) + held(80, 0) + held(80, 1), 0)
    assert rec.events == [("short", "ok"), ("short", "ok")]


def test_press_across_the_ticks_wraparound():
    button, rec = make()
    start = time.ticks_add(0, -300)  # 300 ms before ticks_ms wraps to 0
    feed(button, held(50, 1) + held(Pushbutton.LONG_MS + 200, 0) + held(50, 1), start)
    assert rec.events == [("long", "ok")]
    button2, rec2 = make()
    feed(button2, held(50, 1) + held(400, 0) + held(50, 1), start)
    assert rec2.events == [("short", "ok")]


def test_polling_allocates_no_heap():
    import gc

    button = Pushbutton("roll", 25, None, None)
    gc.collect()
    before = gc.mem_alloc()
    now = 0
    for i in range(3000):  # released, then pressed (a long press), then released: 15 s of polls
        button.update(0 if 1000 <= i < 2000 else 1, now)
        now = time.ticks_add(now, Pushbutton.POLL_MS)
    assert gc.mem_alloc() == before, gc.mem_alloc() - before
