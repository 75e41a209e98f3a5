"""The reader's second process: while DiceReader searches a frame for pips (mostly Python, on the first
core), a worker process on the second core finds the frame's die bodies (detect.find_die_bodies), the
floor's outlines (view.floor_outlines) and first readings of the bodies that may be dice, until told the
pips are found. A process, not a thread: both halves hold Python's interpreter lock for much of their
time, so a thread beside the pip search ran little faster than reading after it.

Once it has nothing else to do, the worker also reads the analysis scale's light pips
(detect.analysis_light_faces) if the pip search has not come to them yet: which of the two reads them
is settled by a token, one byte the main process puts in a pipe both can read (non-blocking), taken
by whichever asks first (claim_light). Wood grain costs the light read 100 ms and more on some close-up
photos, while the worker has done its part in 25.

The worker is started with `python -m dicetower.vision.second_core FD TOKEN_FD`, FD one end of a socket
pair, TOKEN_FD the token pipe's read end; messages are pickled (multiprocessing.connection.Connection).
Main -> worker: ("frame", seq, image, reference, read_all, read_first, die_types), ("stop", seq).
Once its part of the frame is done, the reader may also send ("fine", seq, polarities): the worker reads
the whole frame finer (detect.whole_fine_faces, small dice) while the reader reads the small faces'
regions, and answers ("fine", seq, faces or None).
Worker -> main: ("ready",) once it has loaded the reader, then per frame ("bodies", seq, bodies) or
("failed", seq, why), any number of ("reading", seq, index into bodies, view, reading), ("light", seq,
faces or None) when it took the token, and ("done", seq, outlines or None). Nothing the worker sends is
needed: when it is not ready, fails or dies, the reader does that frame's work itself (slower, same
readings). POSIX only (socket pair, file descriptor passing); elsewhere the reader reads in one process."""

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
from typing import TYPE_CHECKING, Any, Callable

import dicetower

if TYPE_CHECKING:  # numpy is imported by the worker's reader, after set_up_process
    import numpy as np

log = logging.getLogger(__name__)

#: How long (s) the main process waits for the worker to end after closing its socket at exit, before
#: killing it.
EXIT_WAIT_S = 2.0


class WorkAhead:
    """One frame's work on the worker, as DiceReader takes it (detect.ReadsElsewhere): bodies() when the
    pip search needs them, light() for the analysis scale's light pips, whole_fine() for small dice's
    whole frame read finer, finish() once the pips are found. The worker's
    messages are filed as they come (_take), in whichever order they are asked for. Any failure of the
    worker or its socket gives None / (None, {}) (the reader does that part itself) and stops the
    worker for the rest of the process."""

    def __init__(self, process: SecondProcess, seq: int):
        self._process = process
        self._seq = seq
        self._got: dict[str, Any] = {}  # kind -> what came: bodies, failed, light, done, fine
        self._first: dict[int, tuple[Any, Any]] = {}
        self._lost = False  # the worker failed or ended: nothing more comes
        self._stopped = False
        self._fine_asked = False
        self._finished = False

    def _take(self, *kinds: str, until_done: bool = True) -> None:
        """File the worker's messages of this frame until one of kinds (or, until_done, "done") has come."""
        while not self._lost and not any(k in self._got for k in kinds + (("done",) if until_done else ())):
            self._file(self._process.receive(self._seq))

    def _file(self, message: tuple | None) -> None:
        if message is None:
            self._lost = True
        elif message[0] == "reading":
            self._first[message[2]] = (message[3], message[4])
        else:
            self._got[message[0]] = message[2]

    def bodies(self) -> list | None:
        """The frame's die bodies (list of detect.DieBody, as find_die_bodies gives them), waiting for the
        worker; None when it failed (the reader finds them itself, and meets the error there)."""
        self._take("bodies", "failed")
        return self._got.get("bodies")

    def light(self) -> list | None:
        """The analysis scale's light pip faces (detect.analysis_light_faces) when the worker took them
        (waited for; None if it failed), else None, and the token taken: read them here."""
        if self._process.claim_light():
            return None
        self._take("light", "failed")
        return self._got.get("light")

    def whole_fine(self, polarities: list[str]) -> Callable[[], list | None] | None:
        """Have the worker read the whole frame finer (detect.whole_fine_faces) when it is idle, its own
        part of the frame done; returns how to take its faces (waited for; None if it failed), or None
        when it is still busy: read it here."""
        while not self._lost and "done" not in self._got and self._process.waiting():
            self._file(self._process.receive(self._seq))
        if self._lost or "done" not in self._got:
            return None
        if not self._process.send(("fine", self._seq, polarities)):
            self._lost = True
            return None
        self._fine_asked = True
        return self._fine

    def _fine(self) -> list | None:
        self._take("fine", until_done=False)
        return self._got.get("fine")

    def pips_found(self) -> None:
        """Tell the worker the pips are found: it reads no further body ahead (returns at once)."""
        if not self._stopped:
            self._stopped = True
            if not self._process.send(("stop", self._seq)):
                self._lost = True

    def finish(self) -> tuple[Any, dict[int, tuple[Any, Any]]]:
        """Take what the worker did, waiting for it to end the frame (pips_found() is sent first if it was
        not): (view.FloorOutlines or None, {index into bodies(): (view.ViewEstimate read under,
        readings.DieReading)}). The worker is idle again once this returns, whatever was asked of it
        before (a whole-frame read asked and not taken, the reading having raised, is waited for), and
        free for the next frame (SecondProcess.release). Call once, also when the reading raised."""
        assert not self._finished, "finish() called twice"
        self._finished = True
        try:
            self.pips_found()
            self._take("done")
            if self._fine_asked:
                self._take("fine", until_done=False)
            self._process.claim_light()  # a token no one took (the read raised first): none left for the next frame
        finally:
            self._process.release()
        if self._lost or "bodies" not in self._got:
            return None, {}
        return self._got["done"], self._first


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
        self._token_read, self._token_write = -1, -1
        if hasattr(os, "register_at_fork"):
            os.register_at_fork(after_in_child=self._forget)

    def _forget(self) -> None:
        """In a child forked from this process: the worker, its socket and its token are the parent's,
        not the child's to use or end; the child starts its own worker if it reads frames."""
        self._conn = None
        self._proc = None
        self._ready = False
        self._lock = threading.Lock()
        for fd in (self._token_read, self._token_write):
            if fd >= 0:
                os.close(fd)  # the child's copies: the parent's stay open
        self._token_read = self._token_write = -1

    def _start(self) -> None:
        """Start the worker if it is not running (returns at once; it loads for about a second). Called
        with the lock held."""
        if self._proc is not None or self._broken:
            return
        ours, theirs = socket.socketpair()
        self._token_read, self._token_write = os.pipe()
        os.set_blocking(self._token_read, False)  # one open file: non-blocking in the worker too
        package_root = str(Path(dicetower.__file__).resolve().parents[1])
        env = dict(os.environ, PYTHONPATH=os.pathsep.join([package_root, os.environ.get("PYTHONPATH", "")]))
        try:
            self._proc = subprocess.Popen(
                [sys.executable, "-m", __name__, str(theirs.fileno()), str(self._token_read)],
                pass_fds=(theirs.fileno(), self._token_read), stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL, env=env)  # stdout is the caller's (`dicetower read --json`); stderr stays
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
              read_first: bool, die_types: frozenset[str] | None = None) -> WorkAhead | None:
        """Hand the worker a frame (image: HxWx3 uint8 BGR; reference: the empty tray or None), starting
        the worker if it is not running, and return its WorkAhead; None when the worker is not ready,
        has stopped, or is busy with another reader's frame. read_all: every body not of the ground's
        colour may be read (a die set or a reference; else those reader.is_die_like); read_first: read
        them with the standard set meanwhile (False: bodies and outlines only), as one of die_types (the
        die types in play, DiceReader's; None: any) when given. The frame's light-read
        token is put in its pipe (WorkAhead.light). The caller must call finish() on it, also when it
        raises."""
        if self._broken or not self._lock.acquire(blocking=False):
            return None
        self._start()
        if not self._is_ready():
            self._lock.release()
            return None
        self._seq += 1
        os.write(self._token_write, b"t")
        if not self.send(("frame", self._seq, image, reference, read_all, read_first, die_types)):
            self._lock.release()
            return None
        return WorkAhead(self, self._seq)

    def waiting(self) -> bool:
        """Whether a message from the worker has come and is not read yet."""
        try:
            return self._conn is not None and self._conn.poll()
        except (EOFError, OSError):
            return True  # receive() meets the end and gives the worker up

    def claim_light(self) -> bool:
        """Take the frame's light-read token: True when it was there (the worker has not taken it)."""
        return _claim(self._token_read)

    def release(self) -> None:
        """The frame's work is finished (called by WorkAhead.finish): the worker may take another frame."""
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

    def receive(self, seq: int) -> tuple | None:
        """The worker's next message of frame seq (older frames' are dropped), waiting for it; None (and
        the worker given up) when the worker ended or sent something unknown."""
        while self._conn is not None:
            try:
                message = self._conn.recv()
            except (EOFError, OSError) as exc:
                self._give_up(f"it ended ({exc or 'socket closed'})")
                return None
            except Exception as exc:  # noqa: BLE001 - an unpicklable message: the worker is not ours to trust
                self._give_up(f"it sent an unreadable message ({exc})")
                return None
            if (not isinstance(message, tuple) or len(message) < 2 or message[0] not in _FROM_WORKER
                    or not isinstance(message[1], int) or message[1] > seq):
                self._give_up(f"it sent {message!r:.60} out of turn")
                return None
            if message[1] == seq:
                return message
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
        for fd in (self._token_read, self._token_write):
            if fd >= 0:
                os.close(fd)
        self._token_read = self._token_write = -1
        if self._proc is not None:
            if not self._ready:
                self._proc.kill()
            try:
                self._proc.wait(EXIT_WAIT_S)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
            self._proc = None


#: The kinds of message the worker sends for a frame.
_FROM_WORKER = ("bodies", "failed", "light", "reading", "done", "fine")

#: The main process's worker, shared by its readers.
SECOND_PROCESS = SecondProcess()


def serve(conn: Connection, token: int) -> None:
    """The worker's loop (in the worker process): take frames until the socket closes, or ends (the main
    process exited, maybe before the worker was ready: nothing to say then). See the module's
    docstring for the messages."""
    try:
        _serve(conn, token)
    except (EOFError, OSError):
        return


def _serve(conn: Connection, token: int) -> None:
    from dicetower.vision.detect import analysis_light_faces, find_die_bodies, whole_fine_faces
    from dicetower.vision.reader import DiceReader, bodies_to_read_ahead, whole_boxes
    from dicetower.vision.view import floor_outlines

    reader = DiceReader(second_process=False)
    conn.send(("ready",))
    seq, image = 0, None
    while True:
        message = conn.recv()
        if message[0] == "fine" and message[1] == seq and image is not None:  # the frame done: its finer read
            try:
                fine = whole_fine_faces(image, message[2])
            except Exception:  # noqa: BLE001 - the main process reads it itself and meets the error there
                fine = None
            conn.send(("fine", seq, fine))
            continue
        if message[0] != "frame":
            continue  # the stop of a frame already done
        _, seq, image, reference, read_all, read_first, reader.die_types = message
        try:
            found = find_die_bodies(image, reference)
        except Exception as exc:  # noqa: BLE001 - the main process finds the bodies itself and meets the error there
            conn.send(("failed", seq, repr(exc)))
            conn.send(("done", seq, None))
            continue
        conn.send(("bodies", seq, found))
        outlines = None
        may_read = bodies_to_read_ahead(image, found, read_all)
        stopped = _stopped(conn, seq)
        if may_read and not stopped:
            outlines = floor_outlines(image)
            view = outlines.view(whole_boxes([found[i] for i in may_read]))
            for i in may_read if read_first and reader.reads_numbered else ():
                stopped = _stopped(conn, seq)
                if stopped:
                    break
                try:
                    conn.send(("reading", seq, i, view, reader._classified(image, found[i], view)))
                except Exception:  # noqa: BLE001 - the main process reads this body again and meets the error there
                    break
        if not stopped and not _stopped(conn, seq) and _claim(token):  # no token: no light read asked
            try:
                light = analysis_light_faces(image)
            except Exception:  # noqa: BLE001 - the main process reads them itself and meets the error there
                light = None
            conn.send(("light", seq, light))
        conn.send(("done", seq, outlines))


def _claim(token: int) -> bool:
    """Take the light-read token from its pipe (token: its read end, non-blocking): True when this
    process got it, False when the pipe was empty (the other took it) or is closed."""
    try:
        return os.read(token, 1) == b"t"
    except (BlockingIOError, OSError):
        return False


def _stopped(conn: Connection, seq: int) -> bool:
    """Whether the main process has said frame seq's pips are found (a ("stop", seq) waiting)."""
    return conn.poll() and conn.recv() == ("stop", seq)


if __name__ == "__main__":
    dicetower.set_up_process()
    serve(Connection(int(sys.argv[1])), int(sys.argv[2]))
