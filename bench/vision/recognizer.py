"""An external recogniser, asked to read frames: a command, a command that
streams, or an HTTP endpoint (docs/camera.md, "A recogniser's interface").

- ``CMD``: run once per frame as ``CMD IMAGE``; its standard output is the
  reading, one JSON object.
- ``CMD`` with ``stream=True``: started once; the bench writes one image
  path a line on its standard input and reads one JSON line back per frame.
- ``http://HOST:PORT/PATH``: each frame is POSTed (``Content-Type:
  image/jpeg`` or ``image/png``); the response body is the reading.
- ``reference``: the shipped reference recogniser (``bench.vision.reference``)
  in stream mode.

A command finds the camera's calibration at ``{calibration}`` in its
arguments (replaced by the path) and in ``$TABLEBENCH_CALIBRATION``.

Every call has a deadline (``timeout_s``), a reply is at most
``MAX_REPLY`` bytes, and a reply that is not a JSON object is answered as
``{"error": ...}``: a recogniser that crashes, stalls, floods or talks
nonsense costs its frames, never the bench. A stream recogniser that died
or stalled is started again for the next frame.
"""

from __future__ import annotations

import json
import os
import selectors
import shlex
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

MAX_REPLY = 1 << 20
DEFAULT_TIMEOUT_S = 30.0


def parse_reading(raw: bytes | str) -> dict:
    """A reply as a reading: a JSON object, or ``{"error": ...}`` saying why not."""
    if isinstance(raw, bytes):
        if len(raw) > MAX_REPLY:
            return {"error": f"a reply of more than {MAX_REPLY} bytes"}
        raw = raw.decode("utf-8", errors="replace")
    text = raw.strip()
    if not text:
        return {"error": "an empty reply"}
    try:
        value = json.loads(text)
    except ValueError as err:
        return {"error": f"not JSON: {err.msg} (reply starts {text[:60]!r})"}
    if not isinstance(value, dict):
        return {"error": f"not a JSON object: {type(value).__name__}"}
    return value


class Recognizer:
    """Ask with ``read(image_path, image_bytes)``; ``close()`` when done (or use ``with``)."""

    def __init__(self, spec: str, calibration: str | Path, *, stream: bool = False,
                 timeout_s: float = DEFAULT_TIMEOUT_S):
        self.spec, self.calibration, self.timeout_s = spec, str(calibration), timeout_s
        self.url = spec if spec.startswith(("http://", "https://")) else None
        if spec == "reference":
            self.argv = [sys.executable, "-m", "bench.vision.reference", "--stream", "--calibration", "{calibration}"]
            stream = True
        elif self.url is None:
            self.argv = shlex.split(spec)
            if not self.argv:
                raise ValueError("the recogniser command is empty")
        else:
            self.argv = []
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
        if self.url:
            return self._post(image if image is not None else Path(image_path).read_bytes(), str(image_path))
        if self.stream:
            return self._ask_stream(str(image_path))
        return self._run_once(str(image_path))

    # -- the three ways --------------------------------------------------------
    def _run_once(self, path: str) -> dict:
        try:
            done = subprocess.run(self.argv + [path], stdin=subprocess.DEVNULL, capture_output=True,
                                  timeout=self.timeout_s, env=self._env())
        except subprocess.TimeoutExpired:
            return {"error": f"no reply within {self.timeout_s:g} s"}
        except OSError as err:
            return {"error": f"cannot run {self.argv[0]}: {err.strerror or err}"}
        reading = parse_reading(done.stdout[:MAX_REPLY + 1])
        if done.returncode != 0 and "error" not in reading:
            reading = {"error": f"exit status {done.returncode}: {done.stderr.decode(errors='replace')[-200:]}"}
        return reading

    def _start(self) -> None:
        self._proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      stderr=subprocess.DEVNULL, env=self._env(), bufsize=0)
        self._buffer = b""

    def _ask_stream(self, path: str) -> dict:
        if self._proc is None or self._proc.poll() is not None:
            try:
                self._start()
            except OSError as err:
                return {"error": f"cannot run {self.argv[0]}: {err.strerror or err}"}
        try:
            self._proc.stdin.write(path.encode() + b"\n")
            self._proc.stdin.flush()
        except (BrokenPipeError, OSError):
            self._stop()
            return {"error": "the recogniser closed its input"}
        line = self._line(time.monotonic() + self.timeout_s)
        if isinstance(line, dict):          # no line: a stall, an exit or a flood; start afresh next frame
            self._stop()
            return line
        return parse_reading(line)

    def _line(self, deadline: float) -> bytes | dict:
        """The next line of the recogniser's output, by ``deadline``."""
        out = self._proc.stdout
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
                    return {"error": f"the recogniser ended (status {self._proc.wait()})"}
                self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line

    def _post(self, image: bytes, name: str) -> dict:
        kind = "image/png" if image[:8] == b"\x89PNG\r\n\x1a\n" else "image/jpeg"
        request = urllib.request.Request(self.url, data=image, method="POST",
                                         headers={"Content-Type": kind, "X-Frame-Name": Path(name).name})
        try:
            with urllib.request.urlopen(request, timeout=self.timeout_s) as response:
                return parse_reading(response.read(MAX_REPLY + 1))
        except urllib.error.HTTPError as err:
            return {"error": f"HTTP {err.code} {err.reason}"}
        except (urllib.error.URLError, OSError) as err:
            return {"error": f"{self.url}: {getattr(err, 'reason', err)}"}

    def _stop(self) -> None:
        if self._proc is not None:
            try:
                self._proc.stdin.close()
            except OSError:
                pass
            if self._proc.poll() is None:
                self._proc.kill()
            self._proc.wait()
            self._proc = None

    def close(self) -> None:
        self._stop()

    def __enter__(self) -> "Recognizer":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
