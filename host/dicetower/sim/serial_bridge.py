"""The firmware's USB serial, as pyserial sees it: a TCP listener on 127.0.0.1 bridged to the
micropython process's stdin/stdout (open it with serial.serial_for_url("socket://127.0.0.1:PORT")).

Like a USB-serial adapter, bytes the firmware writes while no host has the port open are lost, and
the port can be closed and opened again.
"""

from __future__ import annotations

import socket
import threading
from typing import IO


def shutdown(sock: socket.socket) -> None:
    """Shut both directions of a socket, waking any thread blocked on it; a socket that is already
    closed or was never connected is fine."""
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass


class SerialBridge:
    """Bridges one host connection at a time to the process's `stdin` and `stdout` pipes."""

    def __init__(self, stdin: IO[bytes], stdout: IO[bytes]):
        self._stdin = stdin
        self._stdout = stdout
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.url = "socket://127.0.0.1:%d" % self._listener.getsockname()[1]
        self._client: socket.socket | None = None
        self._lock = threading.Lock()
        self.spoke = threading.Event()  # set once the process wrote anything to stdout
        self._threads = [threading.Thread(target=self._accept, name="sim-serial-in", daemon=True),
                         threading.Thread(target=self._pump_out, name="sim-serial-out", daemon=True)]
        for t in self._threads:
            t.start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self._listener.accept()
            except OSError:
                return  # listener closed
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            with self._lock:
                old, self._client = self._client, conn
            if old is not None:
                old.close()
            self._pump_in(conn)

    def _pump_in(self, conn: socket.socket) -> None:
        """Host -> firmware until the host closes the port."""
        with conn:
            while True:
                try:
                    data = conn.recv(4096)
                except OSError:
                    data = b""
                if not data:
                    break
                try:
                    self._stdin.write(data)
                    self._stdin.flush()
                except (BrokenPipeError, ValueError, OSError):
                    break  # the firmware process ended
        with self._lock:
            if self._client is conn:
                self._client = None

    def _pump_out(self) -> None:
        """Firmware -> host (dropped while no host is connected) until the process ends."""
        while True:
            data = self._stdout.read1(4096) if hasattr(self._stdout, "read1") else self._stdout.read(4096)
            if not data:
                break
            self.spoke.set()
            with self._lock:
                client = self._client
            if client is not None:
                try:
                    client.sendall(data)
                except OSError:
                    pass
        with self._lock:
            client, self._client = self._client, None
        if client is not None:
            client.close()  # the tower is gone: the host sees the port drop, as when unplugged

    def close(self) -> None:
        """Stop accepting and close the host connection (the pipes belong to the caller)."""
        shutdown(self._listener)  # wakes the thread blocked in accept()
        self._listener.close()
        with self._lock:
            client, self._client = self._client, None
        if client is not None:
            shutdown(client)
            client.close()
