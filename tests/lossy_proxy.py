"""A unix-socket proxy in front of a real FalkorDB that can lose one reply: the request reaches the server (and
is committed), the reply never reaches the client, whose connection is closed. What a crash between commit and
reply looks like from the client, made deterministic."""

from __future__ import annotations

import contextlib
import socket
import threading
from pathlib import Path


class LossyProxy:
    """Listens on ``listen`` and forwards to ``upstream``; ``lose_reply_to(marker)`` arms a one-shot loss."""

    def __init__(self, listen: Path, upstream: Path) -> None:
        self.listen, self.upstream = listen, upstream
        self._marker: bytes | None = None
        self.lost = 0
        """Replies lost so far."""
        self._server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._server.bind(str(listen))
        self._server.listen(16)
        self._closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    def lose_reply_to(self, marker: bytes) -> None:
        """Drop the reply to the next request containing ``marker`` and close that client connection."""
        self._marker = marker

    def _accept(self) -> None:
        while not self._closed:
            try:
                client, _ = self._server.accept()
            except OSError:
                return
            upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            upstream.connect(str(self.upstream))
            armed = threading.Event()
            threading.Thread(target=self._requests, args=(client, upstream, armed), daemon=True).start()
            threading.Thread(target=self._replies, args=(upstream, client, armed), daemon=True).start()

    def _requests(self, client: socket.socket, upstream: socket.socket, armed: threading.Event) -> None:
        with contextlib.suppress(OSError):
            while data := client.recv(1 << 16):
                if self._marker is not None and self._marker in data:
                    self._marker = None
                    armed.set()
                upstream.sendall(data)
        with contextlib.suppress(OSError):
            upstream.shutdown(socket.SHUT_WR)

    def _replies(self, upstream: socket.socket, client: socket.socket, armed: threading.Event) -> None:
        with contextlib.suppress(OSError):
            while data := upstream.recv(1 << 16):
                if armed.is_set():
                    self.lost += 1
                    break  # the server answered (the write is committed); the client never hears it
                client.sendall(data)
        for sock in (client, upstream):
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()

    def close(self) -> None:
        """Stop accepting (open connections close with their peers)."""
        self._closed = True
        self._server.close()
        self.listen.unlink(missing_ok=True)
