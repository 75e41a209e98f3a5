"""The app's wiring (app.py): ROLL -> light, gate, ROLL message; host messages -> display and ring.
The display, gate and ring are recording stand-ins; the link and buttons are the real ones."""
import asyncio

import frame
from app import App


class Parts:
    def __init__(self):
        self.log = []
        self.written = []

    # display
    def rolling(self):
        self.log.append(("display", "rolling"))

    def result(self, lines, big=None):
        self.log.append(("display", "result", lines, big))

    def idle(self, text):
        self.log.append(("display", "idle", text))

    # gate
    async def drop(self):
        self.log.append(("gate", "open"))
        await asyncio.sleep_ms(1)
        self.log.append(("gate", "closed"))

    # ring
    def set(self, mode):
        if mode not in ("idle", "capture", "off", "unsure", "alarm"):
            return False
        self.log.append(("ring", mode))
        return True

    def write(self, data):
        self.written.append(frame.decode(data))


def make():
    parts = Parts()
    return App(parts.write, parts, parts, parts), parts


def deliver(app, kind, seq, fields):
    for b in frame.encode(kind, seq, fields):
        app.link.feed(b)


def test_roll_lights_drops_then_tells_the_host():
    app, parts = make()

    async def scenario():
        asyncio.create_task(app.link.sender())
        app.on_short("roll")
        app.on_short("roll")  # a second press while rolling is ignored
        for _ in range(100):
            await asyncio.sleep_ms(5)
            if parts.written:
                break

    asyncio.run(scenario())
    assert parts.log == [("display", "rolling"), ("ring", "capture"), ("gate", "open"), ("gate", "closed")]
    assert parts.written == [("ROLL", 1, {})]
    assert not app.rolling


def test_ok_and_no_presses_go_to_the_host_as_btn():
    app, parts = make()

    async def scenario():
        asyncio.create_task(app.link.sender())
        app.on_short("ok")
        app.on_long("no")
        for _ in range(100):
            await asyncio.sleep_ms(5)
            if parts.written:
                deliver(app, "ACK", parts.written[-1][1], {})
            if len(parts.written) == 2:
                break

    asyncio.run(scenario())
    assert parts.written == [("BTN", 1, {"name": "ok", "press": "short"}), ("BTN", 2, {"name": "no", "press": "long"})]


def test_host_screens_and_light_reach_the_parts():
    app, parts = make()
    deliver(app, "IDLE", 1, {"text": "P(3+) 42%"})
    deliver(app, "SCR", 2, {"0": "d6: 6 5", "1": "", "2": "3 successes"})
    deliver(app, "SCR", 3, {"big": "3", "0": "successes"})
    deliver(app, "LIGHT", 4, {"mode": "idle"})
    assert parts.log == [("display", "idle", "P(3+) 42%"), ("display", "result", ["d6: 6 5", "", "3 successes"], None),
                         ("display", "result", ["successes"], "3"), ("ring", "idle")]
    assert [w[0] for w in parts.written] == ["ACK"] * 4


def test_unknown_light_mode_and_message_are_reported_not_acted_on():
    app, parts = make()
    deliver(app, "LIGHT", 1, {"mode": "disco"})
    deliver(app, "DANCE", 2, {})
    assert parts.log == []
    errors = [w for w in parts.written if w[0] == "ERR"]
    assert errors == [("ERR", 0, {"what": "unknown light mode disco"}), ("ERR", 0, {"what": "unknown message DANCE"})]


def test_message_the_host_never_takes_is_shown_as_an_alarm():
    app, parts = make()
    app.link.RESEND_MS = 5
    app.link.TRIES = 2

    async def scenario():
        asyncio.create_task(app.link.sender())
        app.on_short("ok")
        for _ in range(200):
            await asyncio.sleep_ms(5)
            if app.link.dropped:
                break

    asyncio.run(scenario())
    assert [w[0] for w in parts.written] == ["BTN", "BTN"]
    assert parts.log[0] == ("ring", "alarm")
    kind, what, lines, big = parts.log[1]
    assert (kind, what, lines[0], lines[2]) == ("display", "result", "NO HOST ANSWER", "BTN not taken.")
