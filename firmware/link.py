"""The host link over the USB serial (stdin/stdout): framed lines, acknowledgements, resends.

Protocol: docs/protocol.md. Bytes are read ONE AT A TIME from an asyncio stream (a pending partial
readline() stalls the whole asyncio loop on MicroPython) into a buffer made once. Lines that are not
valid frames (boot banner, REPL noise, bad CRC) are counted in `noise` and ignored.
Reliable messages (seq 1..255) are acknowledged with ACK and resent every RESEND_MS ms up to TRIES
times; a repeat of the last acted-on seq is acknowledged again but not acted on twice.
"""
import asyncio

import frame
from board import FW_VERSION
from micropython import const

OUTBOX_MAX = const(8)


class Link:
    """One end of the framed link.

    write:      callable(bytes) that sends one frame (sys.stdout.buffer.write on the tower)
    on_message: callable(kind: str, fields: dict) for each new message from the host (not ACKs,
                not repeats)
    on_give_up: callable(kind: str) or None, called when a reliable message was never acknowledged
    """

    RESEND_MS = 300  # wait for an ACK this long (ms) before resending
    TRIES = 10       # sends of one reliable message before it is given up (counted in `dropped`)

    def __init__(self, write, on_message, on_give_up=None):
        self._write = write
        self._on_message = on_message
        self._on_give_up = on_give_up
        self._buf = bytearray(frame.MAX_FRAME)
        self._n = 0
        self._overflow = False
        self._one = bytearray(1)
        self._tx_seq = 0
        self._rx_seq = 0          # last acted-on seq from the host (0: none yet)
        self._wait_seq = 0        # seq of the reliable frame waiting for its ACK
        self._acked = asyncio.Event()
        self._pending = asyncio.Event()
        self._outbox = []
        self.noise = 0            # lines ignored: not a frame, bad CRC, too long
        self.duplicates = 0       # repeats recognised and acknowledged again
        self.dropped = 0          # reliable messages never acknowledged after TRIES sends

    # receiving -------------------------------------------------------------------------------
    def feed(self, byte: int) -> None:
        """Take one received byte; a newline completes a line, which is decoded and handled."""
        if byte == 10:
            if self._overflow:
                self.noise += 1
            elif self._n:
                self._line(memoryview(self._buf)[:self._n])
            self._n = 0
            self._overflow = False
        elif self._n < frame.MAX_FRAME:
            self._buf[self._n] = byte
            self._n += 1
        else:
            self._overflow = True

    def _line(self, line) -> None:
        msg = frame.decode(line)
        if msg is None:
            self.noise += 1
            return
        kind, seq, fields = msg
        if kind == "ACK":
            if seq and seq == self._wait_seq:
                self._acked.set()
            return
        if kind == "HELLO":
            # a (new) host: its numbering starts again, so forget the last seq seen
            self._rx_seq = seq
            self._on_message(kind, fields)
            self._write(frame.encode("ACK", seq, {"proto": frame.PROTO, "fw": FW_VERSION}))
            return
        if seq and seq == self._rx_seq:
            self.duplicates += 1
        else:
            if seq:
                self._rx_seq = seq
            self._on_message(kind, fields)
        if seq:
            # acknowledged once acted on: an ACK tells the host its message took effect
            self._write(frame.encode("ACK", seq, {}))

    async def reader(self, stream) -> None:
        """Read `stream` (asyncio.StreamReader over stdin) a byte at a time until end of file."""
        one = self._one
        while True:
            if not await stream.readinto(one):
                return
            self.feed(one[0])

    # sending ---------------------------------------------------------------------------------
    def post(self, kind: str, fields: dict) -> None:
        """Send a frame once, unacknowledged (seq 0): announcements and error reports."""
        self._write(frame.encode(kind, 0, fields))

    def send(self, kind: str, fields: dict) -> bool:
        """Queue a reliable message (acknowledged, resent). Returns False, and counts it in
        `dropped`, when OUTBOX_MAX messages are already waiting."""
        if len(self._outbox) >= OUTBOX_MAX:
            self.dropped += 1
            return False
        self._outbox.append((kind, fields))
        self._pending.set()
        return True

    async def sender(self) -> None:
        """Send queued reliable messages one at a time, each until acknowledged or TRIES sends."""
        while True:
            await self._pending.wait()
            self._pending.clear()
            while self._outbox:
                kind, fields = self._outbox.pop(0)
                self._tx_seq = frame.next_seq(self._tx_seq)
                line = frame.encode(kind, self._tx_seq, fields)
                self._wait_seq = self._tx_seq
                for _ in range(self.TRIES):
                    self._acked.clear()
                    self._write(line)
                    try:
                        await asyncio.wait_for_ms(self._acked.wait(), self.RESEND_MS)
                        break
                    except asyncio.TimeoutError:
                        pass
                else:
                    self.dropped += 1
                    if self._on_give_up:
                        self._on_give_up(kind)
                self._wait_seq = 0
