"""TowerLink over a real TCP socket opened by pyserial (socket://), against a scripted tower."""

import re
import socket
import threading

import pytest

from dicetower import paths
from dicetower.link import Frame, FrameError, LinkError, TowerLink


class ScriptedTower:
    """A TCP peer standing for the tower: records every line the host sends and answers through
    `reply(frame) -> list[bytes]` (default: ACK every reliable frame, HELLO with versions)."""

    def __init__(self, reply=None):
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = "socket://127.0.0.1:%d" % self.listener.getsockname()[1]
        self.received: list[bytes] = []
        self.conn: socket.socket | None = None
        self.connected = threading.Event()
        self.changed = threading.Condition()
        self.reply = reply or self.ack_all
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    @staticmethod
    def ack_all(frame: Frame) -> list[bytes]:
        if frame.kind == "HELLO":
            return [Frame("ACK", frame.seq, {"proto": "1", "fw": "0.1.0"}).encode()]
        return [Frame("ACK", frame.seq).encode()] if frame.seq else []

    def _serve(self):
        conn, _ = self.listener.accept()
        self.conn = conn
        self.connected.set()
        with conn, conn.makefile("rb") as lines:
            for line in lines:
                with self.changed:
                    self.received.append(line)
                    self.changed.notify_all()
                try:
                    frame = Frame.decode(line)
                except FrameError:
                    continue
                try:
                    for out in self.reply(frame):
                        conn.sendall(out)
                except OSError:  # the host under test closed the port: nothing left to answer
                    return

    def send(self, data: bytes):
        assert self.connected.wait(5)
        self.conn.sendall(data)

    def wait_received(self, count: int, timeout_s: float = 5.0) -> list[bytes]:
        with self.changed:
            assert self.changed.wait_for(lambda: len(self.received) >= count, timeout_s), self.received
            return list(self.received)

    def hang_up(self):
        self.conn.shutdown(socket.SHUT_RDWR)

    def close(self):
        self.listener.close()


@pytest.fixture
def tower():
    t = ScriptedTower()
    yield t
    t.close()


def test_handshake_returns_the_tower_versions(tower):
    with TowerLink(tower.url) as link:
        assert link.handshake() == {"proto": 1, "fw": "0.1.0"}
    hello = Frame.decode(tower.received[0])
    assert hello.kind == "HELLO" and hello.fields["proto"] == "1"


def test_handshake_timeout_says_what_was_expected():
    silent = ScriptedTower(reply=lambda frame: [])
    with TowerLink(silent.url, timeout_s=0.6) as link:
        with pytest.raises(LinkError, match=r"did not answer the handshake.*0\.1\.0 \(protocol 1\)") as err:
            link.handshake()
        assert silent.url in str(err.value)
    assert len(silent.received) >= 2  # HELLO was resent while waiting
    silent.close()


def test_other_protocol_version_is_refused():
    old = ScriptedTower(reply=lambda f: [Frame("ACK", f.seq, {"proto": "0", "fw": "0.0.1"}).encode()])
    with TowerLink(old.url) as link, pytest.raises(LinkError, match="speaks protocol 0, this host speaks 1"):
        link.handshake()
    old.close()


def test_missing_port_names_the_port_and_the_cable():
    with pytest.raises(LinkError, match=r"/dev/ttyUSB_dicetower_absent.*USB cable"):
        TowerLink("/dev/ttyUSB_dicetower_absent")


def test_doc_session_replayed_against_the_host():
    """The example session of docs/protocol.md, replayed: after each host line the scripted tower
    sends the tower lines that follow it in the document (so the host's first ACK of ROLL is
    answered by the repeated ROLL, as if it were lost); the host must write exactly the host lines
    of the document, in order, and deliver one ROLL."""
    doc = (paths.repo_root() / "docs" / "protocol.md").read_text()
    session = re.search(r"^```session\n(.*?)^```", doc, re.S | re.M).group(1).splitlines()
    steps = [(who.strip(), rest.split("  ")[0].encode() + b"\n") for who, _, rest in (l.partition(" -> ") for l in session)]
    host_lines = [line for who, line in steps if who == "host"]
    answers: list[list[bytes]] = []  # tower lines after each host line
    for who, line in steps:
        if who == "host":
            answers.append([])
        else:
            answers[-1].append(line)
    count = iter(range(len(answers)))
    t = ScriptedTower(reply=lambda frame: answers[next(count)])
    with TowerLink(t.url) as link:
        assert link.handshake() == {"proto": 1, "fw": "0.1.0"}
        link.show_idle("P(3+ succ) 42.1%")
        roll = link.next_event(5)
        assert roll is not None and (roll.type, roll.seq) == ("ROLL", 1)
        t.wait_received(4)                    # the host acknowledged the repeat too
        assert link.next_event(0.3) is None   # ... and did not deliver it as a second ROLL
        assert link.duplicates == 1
        link.set_light("idle")
        link.show_screen(["d6: 6 5 3 1", "", "3 successes"])
        received = t.wait_received(len(host_lines))
    assert received == host_lines
    t.close()


def test_noise_is_counted_and_repeats_are_delivered_once(tower):
    with TowerLink(tower.url) as link:
        link.handshake()
        btn = Frame("BTN", 7, {"name": "ok", "press": "short"}).encode()
        tower.send(b"MicroPython v1.24.1 on 2024-11-29; Generic ESP32 module with ESP32\r\n>>> \r\n")
        tower.send(b"\xff\xfe garbage \x00\n" + btn + btn + btn[:-3] + b"zz\n")
        event = link.next_event(5)
        assert (event.type, event.seq, event.fields) == ("BTN", 7, {"name": "ok", "press": "short"})
        acks = [l for l in tower.wait_received(3) if l.startswith(b"ACK|7#")]
        assert len(acks) == 2  # the repeat is acknowledged again
        assert link.next_event(0.3) is None
        assert link.noise == 4
        assert link.duplicates == 1
        tower.send(b"\x00" * 5000)  # a stream with no newline is dropped, not buffered without end
        tower.send(b"\n" + Frame("BTN", 8, {"name": "no", "press": "short"}).encode())
        assert link.next_event(5).fields == {"name": "no", "press": "short"}
        assert link.noise > 4


def test_tower_boot_restarts_its_numbering(tower):
    with TowerLink(tower.url) as link:
        roll = Frame("ROLL", 1).encode()
        tower.send(roll)
        assert link.next_event(5).type == "ROLL"
        tower.send(Frame("BOOT", 0, {"fw": "0.1.0", "proto": "1"}).encode() + roll)
        assert link.next_event(5).type == "BOOT"
        second = link.next_event(5)
        assert second is not None and second.type == "ROLL"  # a new roll after the reboot, not a repeat


def test_unacknowledged_screen_is_resent_then_raises():
    deaf = ScriptedTower(reply=lambda f: ScriptedTower.ack_all(f) if f.kind == "HELLO" else [])
    with TowerLink(deaf.url) as link:
        link.handshake()
        link.RESEND_S = 0.05
        link.TRIES = 3
        with pytest.raises(LinkError, match="did not acknowledge SCR after 3 sends"):
            link.show_screen(["hello"])
        scr = [l for l in deaf.wait_received(4) if l.startswith(b"SCR|")]
        assert len(scr) == 3 and len(set(scr)) == 1  # the same frame, same seq, three times
    deaf.close()


def test_screen_content_is_checked_before_sending(tower):
    with TowerLink(tower.url) as link:
        with pytest.raises(ValueError, match="at most 8"):
            link.show_screen([str(i) for i in range(9)])
        with pytest.raises(ValueError, match="at most 3 under a large figure"):
            link.show_screen(["a", "b", "c", "d"], big="3")
        with pytest.raises(ValueError, match="1 to 4 characters"):
            link.show_screen(["a"], big="12345")
        with pytest.raises(ValueError, match="unknown light mode 'disco'"):
            link.set_light("disco")
        with pytest.raises(ValueError, match="at most 96"):
            link.show_idle("x" * 97)
        link.show_screen(["a line much longer than sixteen"])
    sent = Frame.decode(tower.received[-1])
    assert sent.fields == {"0": "a line much long"}


def test_unplugged_tower_raises_on_next_event(tower):
    with TowerLink(tower.url) as link:
        link.handshake()
        tower.hang_up()
        with pytest.raises(LinkError, match=re.escape(tower.url) + r".*is gone.*USB cable"):
            for _ in range(50):
                link.next_event(0.1)
