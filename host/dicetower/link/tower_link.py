"""The host end of the tower link over pyserial: handshake, events from the tower, screens to it.

Built like pyserial's serial.threaded: a ReaderThread owns the port and feeds a Packetizer protocol
(`_FrameProtocol`), which decodes each line with `Frame` and hands it to `TowerLink`. Protocol:
docs/protocol.md.
"""

from __future__ import annotations

import queue
import threading
from dataclasses import dataclass, field

import serial
import serial.threaded

from .codec import MAX_FRAME_BYTES, PROTO_VERSION, Frame, FrameError, next_seq

#: the firmware version this host was written against (firmware/board.py FW_VERSION)
FIRMWARE_VERSION = "0.1.0"
SCREEN_COLS = 16       # characters per OLED row (8x8 font, 128 px)
SCREEN_ROWS = 8        # rows of text (64 px)
BIG_CHARS = 4          # characters of a large figure
BIG_LINES = 3          # text rows under a large figure
IDLE_CHARS = 6 * SCREEN_COLS  # the idle line is wrapped over 6 rows
LIGHT_MODES = ("off", "idle", "capture", "unsure", "alarm")  # firmware/lightring.py MODES


class LinkError(RuntimeError):
    """The tower cannot be reached or does not answer; the message says which port and what to check."""


@dataclass(frozen=True)
class Event:
    """A message from the tower. type: "ROLL" (dice dropped: read them), "BTN" (fields name: "ok",
    "no" or "roll", press: "short" or "long"), "BOOT" (the tower started: fields fw, proto), "ERR"
    (the tower rejected a message: field what). seq: the tower's sequence number (0: unacknowledged)."""

    type: str
    seq: int
    fields: dict[str, str] = field(default_factory=dict)


class _FrameProtocol(serial.threaded.Packetizer):
    """serial.threaded protocol: newline-terminated lines -> TowerLink."""

    TERMINATOR = b"\n"

    def __init__(self, link: "TowerLink"):
        super().__init__()
        self.link = link

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if len(self.buffer) > MAX_FRAME_BYTES:  # no newline within a frame's length: noise, drop it
            del self.buffer[:]
            self.link.noise += 1

    def handle_packet(self, packet: bytes) -> None:
        self.link._on_line(packet)

    def connection_lost(self, exc: BaseException | None) -> None:
        super().connection_lost(None)
        self.link._on_lost(exc)


class TowerLink:
    """The link to one tower on a serial port.

    url:       pyserial URL: "/dev/ttyUSB0", "socket://127.0.0.1:PORT" (simulated tower), "loop://"
    timeout_s: handshake timeout (s)
    Raises LinkError when the port cannot be opened (which port, and to check the cable).

    Counters: `noise` (lines that were not frames: boot banner, REPL output, corrupted bytes),
    `duplicates` (repeats of a tower message, acknowledged again but delivered once).
    """

    RESEND_S = 0.3   # resend a reliable message when no ACK came within this (s)
    TRIES = 10       # sends before giving up with LinkError

    def __init__(self, url: str, timeout_s: float = 5.0):
        self.url = url
        self.timeout_s = timeout_s
        self.noise = 0
        self.duplicates = 0
        self._events: "queue.Queue[Event]" = queue.Queue()
        self._acks: dict[int, Frame] = {}
        self._cond = threading.Condition()
        self._send_lock = threading.Lock()
        self._tx_seq = 0
        self._rx_seq: int | None = None
        self._lost: str | None = None
        self._closing = False
        try:
            self._serial = serial.serial_for_url(url, baudrate=115200, timeout=1)
        except (serial.SerialException, ValueError, OSError) as exc:
            raise LinkError(f"cannot open the tower's serial port {url}: {exc}. Check that the tower is "
                            "plugged in (USB cable) and the port name (ls /dev/ttyUSB* /dev/ttyACM*)") from None
        self._reader = serial.threaded.ReaderThread(self._serial, lambda: _FrameProtocol(self))
        self._reader.start()
        self._reader.connect()
        if not hasattr(self._serial, "cancel_read"):
            # ports that cannot cancel a read (socket://) are polled, so close() is quick
            self._serial.timeout = 0.1

    # receiving (reader thread) ---------------------------------------------------------------
    def _on_line(self, line: bytes) -> None:
        if not line.strip():
            return
        try:
            frame = Frame.decode(line)
        except FrameError:
            self.noise += 1
            return
        if frame.kind == "ACK":
            with self._cond:
                self._acks[frame.seq] = frame
                self._cond.notify_all()
            return
        if frame.kind == "BOOT":
            self._rx_seq = None  # the tower restarted: its numbering starts again
        if frame.seq:
            self._write(Frame("ACK", frame.seq).encode())
            if frame.seq == self._rx_seq:
                self.duplicates += 1
                return
            self._rx_seq = frame.seq
        self._events.put(Event(frame.kind, frame.seq, dict(frame.fields)))

    def _on_lost(self, exc: BaseException | None) -> None:
        with self._cond:
            self._lost = str(exc) if exc else "port closed"
            self._cond.notify_all()

    def _write(self, data: bytes) -> None:
        if self._closing:
            return
        try:
            self._reader.write(data)
        except (serial.SerialException, OSError) as exc:
            raise LinkError(f"cannot write to the tower on {self.url}: {exc}. Check the USB cable") from None

    def _check_alive(self) -> None:
        if self._lost is not None:
            raise LinkError(f"the tower's serial port {self.url} is gone ({self._lost}); "
                            "check the USB cable and that the tower is powered")

    # sending ---------------------------------------------------------------------------------
    def _request(self, kind: str, fields: dict[str, str], tries: int) -> Frame:
        """Send a reliable message, resending every RESEND_S s, `tries` times; returns the ACK.
        Raises LinkError when it is never acknowledged or the port is gone."""
        with self._send_lock:
            self._tx_seq = next_seq(self._tx_seq)
            seq = self._tx_seq
            line = Frame(kind, seq, fields).encode()
            with self._cond:
                self._acks.pop(seq, None)
            for _ in range(tries):
                self._check_alive()
                self._write(line)
                with self._cond:
                    if self._cond.wait_for(lambda: seq in self._acks or self._lost is not None, self.RESEND_S):
                        self._check_alive()
                        return self._acks.pop(seq)
            raise LinkError(f"the tower on {self.url} did not acknowledge {kind} after {tries} sends "
                            f"({tries * self.RESEND_S:.1f} s); check the cable and that its firmware runs")

    def handshake(self) -> dict:
        """Say HELLO and get the tower's versions: {"proto": 1, "fw": "0.1.0"}. Resends for up to
        `timeout_s` (a tower reset by the port opening needs a moment to boot). Raises LinkError
        when the tower does not answer or speaks another protocol version."""
        tries = max(1, round(self.timeout_s / self.RESEND_S))
        try:
            ack = self._request("HELLO", {"proto": str(PROTO_VERSION), "host": FIRMWARE_VERSION}, tries)
        except LinkError as exc:
            if self._lost is not None:
                raise
            raise LinkError(f"the tower on {self.url} did not answer the handshake within {self.timeout_s:g} s: "
                            f"is the dice-tower firmware {FIRMWARE_VERSION} (protocol {PROTO_VERSION}) running "
                            "on it? Flash firmware/ (see hardware/README.md) and check the cable") from exc
        proto = int(ack.fields.get("proto", "0"))
        if proto != PROTO_VERSION:
            raise LinkError(f"the tower on {self.url} speaks protocol {proto}, this host speaks {PROTO_VERSION}: "
                            f"flash the firmware of this checkout ({FIRMWARE_VERSION})")
        return {"proto": proto, "fw": ack.fields.get("fw", "")}

    def next_event(self, timeout_s: float) -> Event | None:
        """The next message from the tower, waiting up to `timeout_s` s; None when none came.
        Raises LinkError when the port is gone and no event is left."""
        try:
            return self._events.get(timeout=timeout_s) if timeout_s > 0 else self._events.get_nowait()
        except queue.Empty:
            self._check_alive()
            return None

    def show_screen(self, lines: list[str], big: str | None = None) -> None:
        """Show a result screen: up to 8 lines, or up to 3 lines under a large figure `big` (at most
        4 characters). Lines are cut to 16 characters (the OLED's width in the 8x8 font).
        Raises ValueError for too many lines or too long a figure, LinkError if never acknowledged."""
        limit = BIG_LINES if big else SCREEN_ROWS
        if len(lines) > limit:
            raise ValueError(f"{len(lines)} lines do not fit the OLED: at most {limit}"
                             + (" under a large figure" if big else ""))
        if big is not None and not 0 < len(big) <= BIG_CHARS:
            raise ValueError(f"large figure {big!r} must be 1 to {BIG_CHARS} characters")
        fields = {str(i): line[:SCREEN_COLS] for i, line in enumerate(lines)}
        if big:
            fields["big"] = big
        self._request("SCR", fields, self.TRIES)

    def show_idle(self, line: str) -> None:
        """Idle screen text (e.g. the odds of the next roll), wrapped by the tower over 6 rows of 16.
        Raises ValueError when longer than 96 characters, LinkError if never acknowledged."""
        if len(line) > IDLE_CHARS:
            raise ValueError(f"idle line of {len(line)} characters: at most {IDLE_CHARS} fit the idle screen")
        self._request("IDLE", {"text": line}, self.TRIES)

    def set_light(self, mode: str) -> None:
        """Light ring mode: "off", "idle", "capture", "unsure" or "alarm". Raises ValueError for
        another mode, LinkError if never acknowledged."""
        if mode not in LIGHT_MODES:
            raise ValueError(f"unknown light mode {mode!r}; use one of {', '.join(LIGHT_MODES)}")
        self._request("LIGHT", {"mode": mode}, self.TRIES)

    def close(self) -> None:
        """Close the port (idempotent)."""
        if not self._closing:
            self._closing = True
            self._reader.close()

    def __enter__(self) -> "TowerLink":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
