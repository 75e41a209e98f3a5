"""Link (link.py): acknowledgement, repeats, noise, resends; on micropython's real asyncio."""
import asyncio

import frame
from link import Link


class Wire:
    """What the link wrote, and the messages it handed over."""

    def __init__(self):
        self.written = []
        self.messages = []

    def write(self, data):
        self.written.append(frame.decode(data))

    def on_message(self, kind, fields):
        self.messages.append((kind, fields))


def make():
    wire = Wire()
    return Link(wire.write, wire.on_message), wire


def feed_line(link, data):
    for b in data:
        link.feed(b)


def test_new_message_is_acted_on_then_acknowledged():
    link, wire = make()
    feed_line(link, frame.encode("SCR", 4, {"0": "3 successes"}))
    assert wire.messages == [("SCR", {"0": "3 successes"})]
    assert wire.written == [("ACK", 4, {})]


def test_repeat_is_acknowledged_again_but_not_acted_on_twice():
    link, wire = make()
    line = frame.encode("LIGHT", 9, {"mode": "idle"})
    feed_line(link, line)
    feed_line(link, line)
    assert wire.messages == [("LIGHT", {"mode": "idle"})]
    assert wire.written == [("ACK", 9, {}), ("ACK", 9, {})]
    assert link.duplicates == 1
    feed_line(link, frame.encode("LIGHT", 10, {"mode": "idle"}))
    assert len(wire.messages) == 2


def test_noise_and_overlong_lines_are_counted_and_ignored():
    link, wire = make()
    feed_line(link, b"MicroPython v1.24.1 on 2024-11-29; Generic ESP32 module with ESP32\r\n>>> \n")
    feed_line(link, b"x" * 500 + b"\n")
    feed_line(link, frame.encode("IDLE", 1, {"text": "ready"}))
    assert link.noise == 3
    assert wire.messages == [("IDLE", {"text": "ready"})]


def test_hello_is_answered_with_versions_and_resets_the_repeat_memory():
    link, wire = make()
    feed_line(link, frame.encode("IDLE", 2, {"text": "old host"}))
    feed_line(link, frame.encode("HELLO", 1, {"proto": "1", "host": "0.1.0"}))
    assert wire.written[-1] == ("ACK", 1, {"proto": str(frame.PROTO), "fw": "0.1.0"})
    # the new host numbers from 1 again: its IDLE|2 is new, not a repeat of the old host's
    feed_line(link, frame.encode("IDLE", 2, {"text": "new host"}))
    assert wire.messages[-1] == ("IDLE", {"text": "new host"})


async def until(predicate, limit_ms=5000):
    """Yield to the sender until `predicate()` holds (a cap, not a timing check)."""
    waited = 0
    while not predicate():
        assert waited < limit_ms, "the sender never got there"
        await asyncio.sleep_ms(5)
        waited += 5


def test_unacknowledged_message_is_resent_then_dropped():
    link, wire = make()
    link.RESEND_MS = 20
    link.TRIES = 3

    async def scenario():
        task = asyncio.create_task(link.sender())
        link.send("ROLL", {})
        await until(lambda: link.dropped == 1)
        task.cancel()

    asyncio.run(scenario())
    assert wire.written == [("ROLL", 1, {})] * 3


def test_acknowledged_message_is_not_resent_and_next_gets_new_seq():
    link, wire = make()
    link.RESEND_MS = 20

    async def scenario():
        task = asyncio.create_task(link.sender())
        link.send("ROLL", {})
        link.send("BTN", {"name": "ok", "press": "short"})
        await until(lambda: len(wire.written) >= 2)   # ROLL resent: no ACK yet
        feed_line(link, frame.encode("ACK", 1, {}))
        await until(lambda: wire.written[-1][0] == "BTN")
        feed_line(link, frame.encode("ACK", 2, {}))
        await asyncio.sleep_ms(5 * link.RESEND_MS)  # room for resends that must not come
        task.cancel()

    asyncio.run(scenario())
    rolls = wire.written[:-1]
    assert len(rolls) >= 2 and all(w == ("ROLL", 1, {}) for w in rolls)
    assert wire.written[-1] == ("BTN", 2, {"name": "ok", "press": "short"})
    assert link.dropped == 0


def test_reader_takes_bytes_one_at_a_time_until_end_of_file():
    link, wire = make()
    data = frame.encode("IDLE", 5, {"text": "P(2+) 55%"}) + b"noise\n"
    reads = []

    class Stream:
        pos = 0

        async def readinto(self, buf):
            reads.append(len(buf))
            if self.pos >= len(data):
                return 0
            buf[0] = data[self.pos]
            self.pos += 1
            return 1

    asyncio.run(link.reader(Stream()))
    assert set(reads) == {1}
    assert wire.messages == [("IDLE", {"text": "P(2+) 55%"})]
    assert link.noise == 1


def test_receiving_bytes_allocates_no_heap_until_a_line_ends():
    import gc

    link, wire = make()
    data = frame.encode("SCR", 3, {"0": "d6: 6 5 3 1", "1": "3 successes"})[:-1]
    gc.collect()
    before = gc.mem_alloc()
    for b in data:
        link.feed(b)
    assert gc.mem_alloc() == before, gc.mem_alloc() - before
    link.feed(10)
    assert wire.messages == [("SCR", {"0": "d6: 6 5 3 1", "1": "3 successes"})]
