"""The reader's second process: while DiceReader searches a frame for pips (mostly Python, on the first
core), a worker process on the second core finds the frame's die bodies (detect.find_die_bodies), the
floor's outlines (view.floor_outlines) and first readings of the bodies that may be dice, until told the
pips are found. A process, not a thread: both halves hold Python's interpreter lock for much of their
time, so a thread beside the pip search ran little faster than reading after it.

The worker is started with `python -m dicetower.vision.second_core FD`, FD one end of a socket pair;
messages are pickled (multiprocessing.connection.Connection). Main -> worker: ("frame", seq, image,
reference, read_all, read_first), ("stop", seq). Worker -> main: ("ready",) once it has loaded the
reader, then per frame ("bodies", seq, bodies) or ("failed", seq, why), any number of ("reading", seq,
index into bodies, view, reading), and ("done", seq, outlines or None). Nothing the worker sends is needed:
when it is not ready, fails or dies, the reader does that frame's work itself (slower, same readings).
POSIX only (socket pair, file descriptor passing); elsewhere the reader reads in one process."""

from __future__ import annotations

import atexit
import logging
import os
import socket
import subprocess
import sys
import threading
import time
from multiprocessing.connection import Connection
from pathlib import Path
from typing import TYPE_CHECKING, Any

import dicetower

if TYPE_CHECKING:  # numpy is imported by the worker's reader, after set_up_process
    import numpy as np

log = logging.getLogger(__name__)

#: How long (s) the main process waits for the worker to end after closing its socket at exit, before
#: killing it.
EXIT_WAIT_S = 2.0


class WorkAhead:
    """One frame's work on the worker, as DiceReader takes it: bodies() when the pip search needs them,
    finish() once the pips are found. Any failure of the worker or its socket gives None / (None, {})
    (the reader does that part itself) and stops the worker for the rest of the process."""

    def __init__(self, process: SecondProcess, seq: int):
        self._process = process
        self._seq = seq
        self._bodies: list | None = None
        self._failed = False
        self._stopped = False
        self._finished = False

    def bodies(self) -> list | None:
        """The frame's die bodies (list of detect.DieBody, as find_die_bodies gives them), waiting for the
        worker; None when it failed (the reader finds them itself, and meets the error there)."""
        if self._bodies is None and not self._failed:
            message = self._process.receive(self._seq, ("bodies", "failed"))
            if message is None or message[0] == "failed":
                self._failed = True
            else:
                self._bodies = message[2]
        return self._bodies

    def pips_found(self) -> None:
        """Tell the worker the pips are found: it reads no further body ahead (returns at once)."""
        if not self._stopped:
            self._stopped = True
            self._process.send(("stop", self._seq))

    def finish(self) -> tuple[Any, dict[int, tuple[Any, Any]]]:
        """Take what the worker did, waiting for it to end the frame (pips_found() is sent first if it was
        not): (view.FloorOutlines or None, {index into bodies(): (view.ViewEstimate read under,
        readings.DieReading)}). The worker is idle again once this returns, whether or not bodies() was
        asked. Call once, also when the reading raised."""
        assert not self._finished, "finish() called twice"
        self._finished = True
        self.pips_found()
        first: dict[int, tuple[Any, Any]] = {}
        while True:
            message = self._process.receive(self._seq, ("bodies", "failed", "reading", "done"))
            if message is None:
                return None, {}
            kind = message[0]
            if kind == "bodies" and self._bodies is None and not self._failed:
                self._bodies = message[2]
            elif kind == "failed":
                self._failed = True
            elif kind == "reading":
                first[message[2]] = (message[3], message[4])
            elif kind == "done":
                return (message[2], first) if not self._failed else (None, {})


class SecondProcess:
    """The worker process, started on first need (ahead()) and used once it has said it is ready; one per
    main process (SECOND_PROCESS), shared by its readers one frame at a time (a lock: a second reader's
    frame meanwhile is read in its own process). Stopped at exit (closing its socket ends it)."""

    def __init__(self) -> None:
        self._conn: Connection | None = None
        self._proc: subprocess.Popen | None = None
        self._ready = False
        self._broken = os.name != "posix"
        self._seq = 0
        self._lock = threading.Lock()

    def _start(self) -> None:
        """Start the worker if it is not running (returns at once; it loads for about a second). Called
        with the lock held."""
        if self._proc is not None or self._broken:
            return
        ours, theirs = socket.socketpair()
        package_root = str(Path(dicetower.__file__).resolve().parents[1])
        env = dict(os.environ, PYTHONPATH=os.pathsep.join([package_root, os.environ.get("PYTHONPATH", "")]))
        try:
            self._proc = subprocess.Popen([sys.executable, "-m", __name__, str(theirs.fileno())],
                                          pass_fds=(theirs.fileno(),), stdin=subprocess.DEVNULL, env=env)
        except OSError as exc:
            ours.close()
            self._give_up(f"could not start it ({exc})")
            return
        finally:
            theirs.close()
        self._conn = Connection(ours.detach())
        atexit.register(self.stop)

    def wait_ready(self, timeout: float) -> bool:
        """Start the worker and wait up to timeout s for it to be ready; True when it is."""
        end = time.monotonic() + timeout
        with self._lock:
            self._start()
            while not self._is_ready() and not self._broken and time.monotonic() < end:
                time.sleep(0.02)
            return self._ready

    def ahead(self, image: np.ndarray, reference: np.ndarray | None, read_all: bool,
              read_first: bool) -> WorkAhead | None:
        """Hand the worker a frame (image: HxWx3 uint8 BGR; reference: the empty tray or None), starting
        the worker if it is not running, and return its WorkAhead; None when the worker is not ready,
        has stopped, or is busy with another reader's frame. read_all: every body not of the ground's
        colour may be read (a die set or a reference; else those reader.is_die_like); read_first: read
        them with the standard set meanwhile (False: bodies and outlines only). The caller must call
        finish() on it, also when it raises, and release() after."""
        if self._broken or not self._lock.acquire(blocking=False):
            return None
        self._start()
        if not self._is_ready():
            self._lock.release()
            return None
        self._seq += 1
        if not self.send(("frame", self._seq, image, reference, read_all, read_first)):
            self._lock.release()
            return None
        return WorkAhead(self, self._seq)

    def release(self) -> None:
        """The frame's work is finished (WorkAhead.finish): the worker may take another frame."""
        self._lock.release()

    def send(self, message: tuple) -> bool:
        """Send a message to the worker; False (and the worker given up) when it cannot be sent."""
        if self._conn is None:
            return False
        try:
            self._conn.send(message)
            return True
        except (OSError, ValueError) as exc:
            self._give_up(f"its socket failed ({exc})")
            return False

    def receive(self, seq: int, kinds: tuple[str, ...]) -> tuple | None:
        """The worker's next message of frame seq with one of kinds (older frames' are dropped), waiting
        for it; None (and the worker given up) when the worker ended or sent something unknown."""
        while self._conn is not None:
            try:
                message = self._conn.recv()
            except (EOFError, OSError) as exc:
                self._give_up(f"it ended ({exc or 'socket closed'})")
                return None
            except Exception as exc:  # noqa: BLE001 - an unpicklable message: the worker is not ours to trust
                self._give_up(f"it sent an unreadable message ({exc})")
                return None
            if len(message) > 1 and message[1] == seq and message[0] in kinds:
                return message
            if len(message) < 2 or not isinstance(message[1], int) or message[1] > seq:
                self._give_up(f"it sent {message[0]!r} out of turn")
                return None
        return None

    def _is_ready(self) -> bool:
        if not self._ready and self._conn is not None and not self._broken:
            try:
                if self._conn.poll():
                    self._ready = self._conn.recv() == ("ready",)
                    if not self._ready:
                        self._give_up("it did not say it was ready")
            except (EOFError, OSError) as exc:
                self._give_up(f"it ended while loading ({exc or 'socket closed'})")
        return self._ready

    def _give_up(self, why: str) -> None:
        """Stop using the worker for the rest of this process; reading goes on in this one."""
        if not self._broken:
            log.warning("the reader's second process: %s; reading on in one process (slower, same readings)", why)
        self._broken = True
        self._ready = False
        self.stop()

    def stop(self) -> None:
        """End the worker: close its socket (between frames it exits at the end of file: waited for up to
        EXIT_WAIT_S, then killed); one still loading is killed at once."""
        if self._conn is not None:
            self._conn.close()
            self._conn = None
        if self._proc is not None:
            if not self._ready:
                self._proc.kill()
            try:
                self._proc.wait(EXIT_WAIT_S)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
            self._proc = None


#: The main process's worker, shared by its readers.
SECOND_PROCESS = SecondProcess()


def serve(conn: Connection) -> None:
    """The worker's loop (in the worker process): take frames until the socket closes, or ends (the main
    process exited, maybe before the worker was ready: nothing to say then). See the module's
    docstring for the messages."""
    try:
        _serve(conn)
    except (EOFError, OSError):
        return


def _serve(conn: Connection) -> None:
    from dicetower.vision.detect import find_die_bodies
    from dicetower.vision.reader import DiceReader, bodies_to_read_ahead, whole_boxes
    from dicetower.vision.view import floor_outlines

    reader = DiceReader(second_process=False)
    conn.send(("ready",))
    while True:
        message = conn.recv()
        if message[0] != "frame":
            continue  # the stop of a frame already done
        _, seq, image, reference, read_all, read_first = message
        try:
            found = find_die_bodies(image, reference)
        except Exception as exc:  # noqa: BLE001 - the main process finds the bodies itself and meets the error there
            conn.send(("failed", seq, repr(exc)))
            conn.send(("done", seq, None))
            continue
        conn.send(("bodies", seq, found))
        outlines = None
        may_read = bodies_to_read_ahead(image, found, read_all)
        if may_read and not _stopped(conn, seq):
            outlines = floor_outlines(image)
            view = outlines.view(whole_boxes([found[i] for i in may_read]))
            for i in may_read if read_first and reader.reads_numbered else ():
                if _stopped(conn, seq):
                    break
                try:
                    conn.send(("reading", seq, i, view, reader._classified(image, found[i], view)))
                except Exception:  # noqa: BLE001 - the main process reads this body again and meets the error there
                    break
        conn.send(("done", seq, outlines))


def _stopped(conn: Connection, seq: int) -> bool:
    """Whether the main process has said frame seq's pips are found (a ("stop", seq) waiting)."""
    if not conn.poll():
        return False
    message = conn.recv()
    return message == ("stop", seq)


if __name__ == "__main__":
    dicetower.set_up_process()
    serve(Connection(int(sys.argv[1])))
