"""An external recogniser, asked to read frames: a command, a command that
streams, or an HTTP endpoint (docs/camera.md, "A recogniser's interface").

- ``CMD``: run once per frame as ``CMD IMAGE``; its standard output is the
  reading, one JSON object.
- ``CMD`` with ``stream=True``: started once; the bench writes one image
  path a line on its standard input and reads one JSON line back per frame.
- ``http://HOST:PORT/PATH``: each frame is POSTed (``Content-Type:
  image/jpeg`` or ``image/png``, ``X-Frame-Name``); the response body is the
  reading.
- ``reference``, ``learned``: the shipped recognisers (``SHIPPED``) in stream
  mode (``learned`` when its module is installed).

A command finds the camera's calibration at ``{calibration}`` in its
arguments (replaced by the path) and in ``$TABLEBENCH_CALIBRATION``.

The plumbing survives any recogniser (docs/camera.md, "Plumbing"): every
call has one deadline for the whole call (``timeout_s``), after which a
command's whole process group is killed; a reply is read at most
``MAX_REPLY`` bytes, the limit applied while reading; a reply is checked
strictly (``check_reading``): anything malformed costs its own frame, as
``{"error": ...}`` naming the reason. A streaming reply that names another
frame (``"frame"``), or a line more than one a frame, is a desynchronised
stream: the frame is lost and the recogniser started afresh.
"""

from __future__ import annotations

import importlib.util
import json
import math
import os
import selectors
import shlex
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import time
import urllib.parse
from pathlib import Path
from typing import Any

MAX_REPLY = 1 << 20
ENDED_GRACE_S = 0.2        # after a run-once recogniser ends, how long its pipes are still read
MAX_HEADER_LINE = 8192           # an HTTP status or header line longer than this is the frame's error
MAX_HEADERS = 100
MAX_DIGITS = 18                  # a number in a reading with more digits than this is malformed
MAX_DEPTH = 8                    # a reading nests lists and objects no deeper than this
DEFAULT_TIMEOUT_S = 30.0

# The shipped recognisers: a name -> its module, run as ``python -m MODULE --stream --calibration FILE``.
SHIPPED = {"reference": "bench.vision.reference", "learned": "bench.vision.learned"}


def shipped() -> dict[str, bool]:
    """Each shipped recogniser's name, and whether its module is installed here."""
    return {name: importlib.util.find_spec(module) is not None for name, module in SHIPPED.items()}


# -- a reading, checked ------------------------------------------------------------
class Malformed(ValueError):
    """What is wrong with a reply, in words (``check_reading``)."""


def _number(text: str) -> float | int:
    digits = sum(c.isdigit() for c in text)
    if digits > MAX_DIGITS:
        raise Malformed(f"a number of {digits} digits")
    value = float(text) if any(c in text for c in ".eE") else int(text)
    if isinstance(value, float) and not math.isfinite(value):
        raise Malformed(f"the number {text[:20]} is out of range")
    return value


def _constant(text: str):
    raise Malformed(f"{text} is not a JSON number")


def _depth(value: Any, level: int = 1) -> int:
    if level > MAX_DEPTH:
        return level
    if isinstance(value, dict):
        return max([_depth(v, level + 1) for v in value.values()], default=level)
    if isinstance(value, list):
        return max([_depth(v, level + 1) for v in value], default=level)
    return level


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _check_die(i: int, die) -> None:
    where = f"dice[{i}]"
    if not isinstance(die, dict):
        raise Malformed(f"{where} is {type(die).__name__}, not an object")
    face = die.get("face")
    if face is not None and not (_is_int(face) and 1 <= face <= 6):
        raise Malformed(f"{where}.face is {json.dumps(face)[:20]}, not 1 to 6 or null")
    if "flat" in die and not isinstance(die["flat"], bool):
        raise Malformed(f"{where}.flat is {json.dumps(die['flat'])[:20]}, not true or false")
    for key, size in (("box_px", 4), ("centre_px", 2)):
        if key in die and die[key] is not None:
            place = die[key]
            if not isinstance(place, list) or len(place) != size or not all(_is_number(v) for v in place):
                shown = f"{len(place)} values" if isinstance(place, list) else type(place).__name__
                raise Malformed(f"{where}.{key} is {shown}, not {size} numbers")
    if die.get("box_px") is None and die.get("centre_px") is None:
        raise Malformed(f"{where} has no place (box_px or centre_px)")


def check_reading(value: Any) -> None:
    """Raise ``Malformed`` naming what is wrong with a decoded reading."""
    if not isinstance(value, dict):
        raise Malformed(f"not a JSON object: {type(value).__name__}")
    if _depth(value) > MAX_DEPTH:
        raise Malformed(f"nested deeper than {MAX_DEPTH}")
    if "error" in value:
        raise Malformed(f"the recogniser's own error: {str(value['error'])[:200]}")
    if "frame" in value and not isinstance(value["frame"], str):
        raise Malformed(f"frame is {type(value['frame']).__name__}, not the frame's name")
    if "no_roll" in value and not isinstance(value["no_roll"], bool):
        raise Malformed(f"no_roll is {json.dumps(value['no_roll'])[:20]}, not true or false")
    if "pocket" in value and value["pocket"] is not None and not (_is_int(value["pocket"])
                                                                  and 0 <= value["pocket"] <= 36):
        raise Malformed(f"pocket is {json.dumps(value['pocket'])[:20]}, not 0 to 36 or null")
    if "dice" in value:
        dice = value["dice"]
        if not isinstance(dice, list):
            raise Malformed(f"dice is {type(dice).__name__}, not a list")
        for i, die in enumerate(dice):
            _check_die(i, die)


def parse_reading(raw: bytes | str) -> dict:
    """A reply as a reading: a JSON object of the reading's types, or
    ``{"error": ...}`` saying why not (the frame is lost, never the bench)."""
    if isinstance(raw, bytes):
        if len(raw) > MAX_REPLY:
            return {"error": f"a reply of more than {MAX_REPLY} bytes"}
        raw = raw.decode("utf-8", errors="replace")
    text = raw.strip()
    if not text:
        return {"error": "an empty reply"}
    try:
        value = json.loads(text, parse_int=_number, parse_float=_number, parse_constant=_constant)
        check_reading(value)
    except Malformed as err:
        return {"error": f"malformed: {err}"}
    except RecursionError:
        return {"error": "malformed: nested too deep"}
    except ValueError as err:
        msg = getattr(err, "msg", str(err))
        return {"error": f"not JSON: {msg} (reply starts {text[:60]!r})"}
    return value


# -- what a reading calls, for the round ------------------------------------------
def dice_call(reading: dict, count: int) -> tuple[tuple[int, ...], tuple[bool, ...], str | None]:
    """``(faces, flat, unread)``: the dice a checked reading gives, left to
    right in the image. A reading that calls a no roll (its ``no_roll``, else
    any die not flat) gives each die's flatness as read when it read the
    round's dice, else every die not flat; ``unread`` says why a reading
    gives no result (an error; not ``count`` dice; a flat die with no face;
    ``no_roll: false`` beside a die not flat), None when it does."""
    if "error" in reading:
        return (1,) * count, (False,) * count, str(reading["error"])
    found = list(reading.get("dice") or [])

    def x_of(die: dict) -> float:
        place = die.get("centre_px") or die.get("box_px")
        return float(place[0]) if place else 0.0

    found.sort(key=x_of)
    faces = [d.get("face") for d in found]
    said = reading.get("no_roll")
    cocked = any(d.get("flat") is False for d in found)
    shown = tuple((faces + [1] * count)[:count])
    shown = tuple(f if isinstance(f, int) else 1 for f in shown)
    if said is False and cocked:
        return shown, (False,) * count, "no_roll false, yet a die read not flat"
    if cocked and len(found) == count:          # a no roll, each die as read
        return shown, tuple(d.get("flat") is not False for d in found), None
    if said or cocked:
        return shown, (False,) * count, None
    if len(found) != count:
        return shown, (False,) * count, f"{len(found)} dice read, {count} in the tray"
    if any(f is None for f in faces):
        return shown, (False,) * count, "a die's face not read"
    return tuple(faces), (True,) * count, None


def pocket_call(reading: dict) -> tuple[int | None, str | None]:
    """``(pocket, unread)`` of a checked wheel reading."""
    if "error" in reading:
        return None, str(reading["error"])
    pocket = reading.get("pocket")
    return (pocket, None) if pocket is not None else (None, "no pocket read")


# -- the recogniser --------------------------------------------------------------
class Recognizer:
    """Ask with ``read(image_path, image_bytes)``; ``close()`` when done (or use ``with``)."""

    def __init__(self, spec: str, calibration: str | Path, *, stream: bool = False,
                 timeout_s: float = DEFAULT_TIMEOUT_S):
        self.spec, self.calibration, self.timeout_s = spec, str(calibration), timeout_s
        self.url = spec if spec.startswith(("http://", "https://")) else None
        self.restarts = 0                  # a streaming recogniser started again (stalled, died, desynchronised)
        if spec in SHIPPED:
            if importlib.util.find_spec(SHIPPED[spec]) is None:
                raise ValueError(f"{spec}: the shipped recogniser's module {SHIPPED[spec]} is not installed")
            self.argv = [sys.executable, "-m", SHIPPED[spec], "--stream", "--calibration", "{calibration}"]
            stream = True
        elif self.url is None:
            self.argv = shlex.split(spec)
            if not self.argv:
                raise ValueError("the recogniser command is empty")
        else:
            self.argv = []
            parts = urllib.parse.urlsplit(spec)
            if not parts.hostname:
                raise ValueError(f"{spec}: no host")
            try:
                _ = parts.port
            except ValueError:
                raise ValueError(f"{spec}: not a port number") from None
        self.argv = [a.replace("{calibration}", self.calibration) for a in self.argv]
        self.stream = stream and self.url is None
        self._proc: subprocess.Popen | None = None
        self._buffer = b""

    @property
    def description(self) -> str:
        return self.url or " ".join(shlex.quote(a) for a in self.argv) + (" (stream)" if self.stream else "")

    def _env(self) -> dict:
        return {**os.environ, "TABLEBENCH_CALIBRATION": self.calibration}

    def read(self, image_path: str | Path, image: bytes | None = None) -> dict:
        deadline = time.monotonic() + self.timeout_s
        if self.url:
            try:
                body = image if image is not None else Path(image_path).read_bytes()
            except OSError as err:
                return {"error": f"{image_path}: {err.strerror}"}
            return self._named(self._post(body, Path(image_path).name, deadline), str(image_path))
        if self.stream:
            return self._ask_stream(str(image_path), deadline)
        return self._run_once(str(image_path), deadline)

    @staticmethod
    def _named(reading: dict, path: str) -> dict:
        """A reply naming another frame than the one asked is not this frame's reading."""
        said = reading.get("frame")
        if "error" not in reading and said is not None and said not in (path, Path(path).name):
            return {"error": f"desynchronised: the reply names frame {said[:80]!r}, asked {Path(path).name!r}"}
        return reading

    # -- a command, once a frame -----------------------------------------------------
    def _spawn(self, argv: list[str], stdin) -> subprocess.Popen:
        # A process group of its own: a deadline kills the recogniser and every child it started.
        return subprocess.Popen(argv, stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                env=self._env(), bufsize=0, start_new_session=True)

    @staticmethod
    def _kill(proc: subprocess.Popen) -> None:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        for pipe in (proc.stdin, proc.stdout, proc.stderr):
            if pipe is not None:
                try:
                    pipe.close()
                except OSError:
                    pass
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass

    def _run_once(self, path: str, deadline: float) -> dict:
        try:
            proc = self._spawn(self.argv + [path], subprocess.DEVNULL)
        except OSError as err:
            return {"error": f"cannot run {self.argv[0]}: {err.strerror or err}"}
        out, err_tail = bytearray(), bytearray()
        problem = None
        try:
            with selectors.DefaultSelector() as selector:
                assert proc.stdout is not None and proc.stderr is not None
                selector.register(proc.stdout, selectors.EVENT_READ, out)
                selector.register(proc.stderr, selectors.EVENT_READ, err_tail)
                open_pipes = 2
                ended_at = None
                while open_pipes:
                    left = deadline - time.monotonic()
                    if left <= 0:
                        problem = f"no reply within {self.timeout_s:g} s"
                        break
                    # A recogniser that has ended may have left a child holding its pipes open (a
                    # server it started): what it wrote is read for a moment more, then taken.
                    if ended_at is None and proc.poll() is not None:
                        ended_at = time.monotonic()
                    if ended_at is not None and time.monotonic() - ended_at > ENDED_GRACE_S:
                        break
                    for key, _ in selector.select(min(left, 0.05)):
                        chunk = os.read(key.fd, 65536)
                        if not chunk:
                            selector.unregister(key.fileobj)
                            open_pipes -= 1
                        elif key.data is out:
                            out.extend(chunk)
                            if len(out) > MAX_REPLY:
                                problem = f"a reply of more than {MAX_REPLY} bytes"
                                open_pipes = 0
                                break
                        else:
                            err_tail.extend(chunk)
                            del err_tail[:-400]
            if problem is None:
                try:
                    status = proc.wait(timeout=max(0.0, deadline - time.monotonic()))
                except subprocess.TimeoutExpired:
                    problem = f"no exit within {self.timeout_s:g} s"
        finally:
            self._kill(proc)        # the whole group: no child of a recogniser outlives its frame
        if problem is not None:
            return {"error": problem}
        reading = self._named(parse_reading(bytes(out)), path)
        if status != 0 and "error" not in reading:
            reading = {"error": f"exit status {status}: {err_tail.decode(errors='replace')[-200:]}"}
        return reading

    # -- a command that streams ------------------------------------------------------
    def _start(self) -> None:
        # Its standard error to a file (a pipe nobody reads would fill), for the last words of one that ends.
        self._stderr = tempfile.TemporaryFile()
        self._proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr,
                                      env=self._env(), bufsize=0, start_new_session=True)
        self._buffer = b""

    def _last_words(self) -> str:
        try:
            self._stderr.seek(max(0, self._stderr.seek(0, os.SEEK_END) - 300))
            words = self._stderr.read().decode(errors="replace").strip().splitlines()
        except (AttributeError, OSError, ValueError):
            return ""
        return f": {words[-1][-200:]}" if words else ""

    def _ask_stream(self, path: str, deadline: float) -> dict:
        if self._proc is not None and self._proc.poll() is None and self._surplus():
            self._restart()           # lines nobody asked for: the stream is out of step
        if self._proc is None or self._proc.poll() is not None:
            if self._proc is not None:
                self._restart()
            try:
                self._start()
            except OSError as err:
                return {"error": f"cannot run {self.argv[0]}: {err.strerror or err}"}
        assert self._proc is not None and self._proc.stdin is not None
        try:
            self._proc.stdin.write(path.encode() + b"\n")
            self._proc.stdin.flush()
        except (BrokenPipeError, OSError):
            self._restart()
            return {"error": "the recogniser closed its input"}
        line = self._line(deadline)
        if isinstance(line, dict):          # no line: a stall, an exit or a flood; start afresh next frame
            self._restart()
            return line
        if self._buffer.strip():
            self._restart()
            return {"error": "desynchronised: more than one reply line for one frame"}
        reading = self._named(parse_reading(line), path)
        if str(reading.get("error", "")).startswith("desynchronised"):
            self._restart()
        return reading

    def _surplus(self) -> bool:
        """Whether the recogniser wrote anything since its last reply."""
        assert self._proc is not None and self._proc.stdout is not None
        out = self._proc.stdout
        with selectors.DefaultSelector() as selector:
            selector.register(out, selectors.EVENT_READ)
            while selector.select(0):
                chunk = os.read(out.fileno(), 65536)
                if not chunk:
                    break
                self._buffer += chunk
                if len(self._buffer) > MAX_REPLY:
                    break
        return bool(self._buffer.strip())

    def _line(self, deadline: float) -> bytes | dict:
        """The next line of the recogniser's output, by ``deadline``."""
        assert self._proc is not None and self._proc.stdout is not None
        proc, out = self._proc, self._proc.stdout
        with selectors.DefaultSelector() as selector:
            selector.register(out, selectors.EVENT_READ)
            while b"\n" not in self._buffer:
                if len(self._buffer) > MAX_REPLY:
                    return {"error": f"a reply line of more than {MAX_REPLY} bytes"}
                left = deadline - time.monotonic()
                if left <= 0 or not selector.select(left):
                    return {"error": f"no reply within {self.timeout_s:g} s"}
                chunk = os.read(out.fileno(), 65536)
                if not chunk:
                    # Its output is closed; the process may live on (the deadline holds for that too).
                    try:
                        status = proc.wait(timeout=max(0.0, deadline - time.monotonic()))
                    except subprocess.TimeoutExpired:
                        return {"error": "the recogniser closed its output and did not end"}
                    return {"error": f"the recogniser ended (status {status}){self._last_words()}"}
                self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        if len(line) > MAX_REPLY:
            return {"error": f"a reply line of more than {MAX_REPLY} bytes"}
        return line

    def _restart(self) -> None:
        """Stop the streaming recogniser; the next frame starts it again."""
        if self._proc is not None:
            self.restarts += 1
        self._stop()

    # -- HTTP ------------------------------------------------------------------------
    def _post(self, image: bytes, name: str, deadline: float) -> dict:
        """POST the frame and read the reply, all by ``deadline`` (a server
        trickling a byte a second cannot hold the call past it), every size
        limit applied as the bytes come."""
        parts = urllib.parse.urlsplit(str(self.url))
        host = str(parts.hostname)
        secure = parts.scheme == "https"
        port = parts.port or (443 if secure else 80)
        target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        kind = "image/png" if image[:8] == b"\x89PNG\r\n\x1a\n" else "image/jpeg"
        safe_name = "".join(c for c in name if 32 < ord(c) < 127)[:200]
        head = (f"POST {target} HTTP/1.1\r\nHost: {parts.netloc}\r\nContent-Type: {kind}\r\n"
                f"Content-Length: {len(image)}\r\nX-Frame-Name: {safe_name}\r\nConnection: close\r\n\r\n").encode()
        try:
            left = deadline - time.monotonic()
            sock = socket.create_connection((host, port), timeout=max(0.01, left))
        except OSError as err:
            return {"error": f"{self.url}: {err.strerror or err}"}
        try:
            if secure:
                sock = ssl.create_default_context().wrap_socket(sock, server_hostname=host)
            reply = _HttpReply(sock, deadline, self.timeout_s)
            sock.settimeout(max(0.01, deadline - time.monotonic()))
            sock.sendall(head + image)
            return reply.reading()
        except _HttpError as err:
            return {"error": f"{self.url}: {err}"}
        except (OSError, ssl.SSLError) as err:
            if time.monotonic() >= deadline or isinstance(err, socket.timeout):
                return {"error": f"no reply within {self.timeout_s:g} s"}
            return {"error": f"{self.url}: {getattr(err, 'strerror', None) or err}"}
        finally:
            sock.close()

    def _stop(self) -> None:
        if self._proc is not None:
            self._kill(self._proc)
            self._proc = None
            self._buffer = b""
            self._stderr.close()

    def close(self) -> None:
        self._stop()

    def __enter__(self) -> "Recognizer":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


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
