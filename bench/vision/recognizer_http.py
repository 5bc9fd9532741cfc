"""An HTTP recogniser's response, read from its socket by the call's one
deadline (a server trickling a byte a second cannot hold the call past it),
each part with its limit as the bytes come: a status or header line of at
most ``MAX_HEADER_LINE`` bytes, at most ``MAX_HEADERS`` header lines, a body
(by Content-Length, chunked, or to the close) of at most ``MAX_REPLY``.

Apart from ``bench.vision.recognizer`` (which sends the request and runs
commands) because it is an HTTP/1.1 reader of its own, needing nothing of
the recogniser but the socket and the deadline.
"""

from __future__ import annotations

import socket
import time

from bench.vision.reply_check import MAX_REPLY, parse_reading

MAX_HEADER_LINE = 8192           # an HTTP status or header line longer than this is the frame's error
MAX_HEADERS = 100


class _HttpError(Exception):
    pass


class _HttpReply:
    """An HTTP/1.1 response read from a socket by a deadline, each part with its limit."""

    def __init__(self, sock, deadline: float, timeout_s: float):
        self.sock, self.deadline, self.timeout_s = sock, deadline, timeout_s
        self.buffer = b""

    def _more(self) -> None:
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise _HttpError(f"no reply within {self.timeout_s:g} s")
        self.sock.settimeout(left)
        try:
            chunk = self.sock.recv(65536)
        except socket.timeout:
            raise _HttpError(f"no reply within {self.timeout_s:g} s") from None
        if not chunk:
            raise EOFError
        self.buffer += chunk

    def _line(self, what: str) -> bytes:
        while b"\r\n" not in self.buffer[:MAX_HEADER_LINE + 2]:
            if len(self.buffer) > MAX_HEADER_LINE:
                raise _HttpError(f"an HTTP {what} line longer than {MAX_HEADER_LINE} bytes")
            try:
                self._more()
            except EOFError:
                raise _HttpError(f"the connection closed in the {what}") from None
        line, _, self.buffer = self.buffer.partition(b"\r\n")
        return line

    def _exactly(self, size: int) -> bytes:
        while len(self.buffer) < size:
            try:
                self._more()
            except EOFError:
                raise _HttpError(f"the connection closed after {len(self.buffer)} of {size} bytes") from None
        data, self.buffer = self.buffer[:size], self.buffer[size:]
        return data

    def reading(self) -> dict:
        status_line = self._line("status")
        words = status_line.split(None, 2)
        if len(words) < 2 or not words[0].startswith(b"HTTP/1.") or not words[1].isdigit() or len(words[1]) != 3:
            raise _HttpError(f"not an HTTP status line: {status_line[:60]!r}")
        status = int(words[1])
        headers: dict[str, str] = {}
        for _ in range(MAX_HEADERS + 1):
            line = self._line("header")
            if not line:
                break
            key, colon, value = line.decode("latin-1").partition(":")
            if not colon:
                raise _HttpError(f"not an HTTP header line: {line[:60]!r}")
            headers[key.strip().lower()] = value.strip()
        else:
            raise _HttpError(f"more than {MAX_HEADERS} header lines")
        if not 200 <= status < 300:
            return {"error": f"HTTP {status} {words[2][:60].decode('latin-1') if len(words) > 2 else ''}".strip()}
        if "chunked" in headers.get("transfer-encoding", "").lower():
            body = self._chunked()
        elif "content-length" in headers:
            length = headers["content-length"]
            if not length.isdigit() or len(length) > 12:
                raise _HttpError(f"Content-Length {length[:20]!r} is not a size")
            if int(length) > MAX_REPLY:
                return {"error": f"a reply of more than {MAX_REPLY} bytes (Content-Length {length})"}
            body = self._exactly(int(length))
        else:
            body = self._to_close()
        return parse_reading(body)

    def _chunked(self) -> bytes:
        body = b""
        while True:
            size_text = self._line("chunk size").split(b";")[0].strip()
            try:
                size = int(size_text, 16) if size_text and len(size_text) <= 8 else -1
            except ValueError:
                size = -1
            if size < 0:
                raise _HttpError(f"not a chunk size: {size_text[:20]!r}")
            if size == 0:
                return body
            if len(body) + size > MAX_REPLY:
                raise _HttpError(f"a reply of more than {MAX_REPLY} bytes")
            body += self._exactly(size)
            self._exactly(2)

    def _to_close(self) -> bytes:
        while len(self.buffer) <= MAX_REPLY:
            try:
                self._more()
            except EOFError:
                return self.buffer
        raise _HttpError(f"a reply of more than {MAX_REPLY} bytes")
