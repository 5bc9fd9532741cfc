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
``MAX_REPLY`` bytes, the limit applied while reading (an HTTP response by
``bench.vision.recognizer_http``); a reply is checked strictly
(``bench.vision.reply_check``): anything malformed costs its own frame, as
``{"error": ...}`` naming the reason. A streaming reply that names another
frame (``"frame"``), or a line more than one a frame, is a desynchronised
stream: the frame is lost and the recogniser started afresh.
"""

from __future__ import annotations

import importlib.util
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

# dice_call and pocket_call are imported from here by bench.play.camera: kept importable here.
from bench.vision.reading_calls import dice_call as dice_call, pocket_call as pocket_call
from bench.vision.recognizer_http import _HttpError, _HttpReply
from bench.vision.reply_check import MAX_REPLY, parse_reading

ENDED_GRACE_S = 0.2        # after a run-once recogniser ends, how long its pipes are still read
DEFAULT_TIMEOUT_S = 30.0

# The shipped recognisers: a name -> its module, run as ``python -m MODULE --stream --calibration FILE``.
SHIPPED = {"reference": "bench.vision.reference", "learned": "bench.vision.learned"}


def shipped() -> dict[str, bool]:
    """Each shipped recogniser's name, and whether its module is installed here."""
    return {name: importlib.util.find_spec(module) is not None for name, module in SHIPPED.items()}


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


