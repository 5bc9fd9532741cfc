"""Frames served as an IP camera serves them: an MJPEG stream over HTTP.

``GET /stream.mjpg`` is ``multipart/x-mixed-replace`` with one JPEG part per
frame as the bench makes them (what a vision-based controller or a
recogniser reads from a studio camera); ``GET /frame.jpg`` is the latest
frame; ``GET /calibration.json`` the camera's calibration. Each client has its
own thread; a client that stops reading is dropped after ``CLIENT_TIMEOUT_S``
(its socket's timeout), so it never holds the bench.
"""

from __future__ import annotations

import io
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from PIL import Image

CLIENT_TIMEOUT_S = 10.0
BOUNDARY = "tablebench-frame"


def as_jpeg(image: bytes) -> bytes:
    if image[:3] == b"\xff\xd8\xff":
        return image
    out = io.BytesIO()
    Image.open(io.BytesIO(image)).convert("RGB").save(out, format="JPEG", quality=92)
    return out.getvalue()


class MjpegServer:
    def __init__(self, address: str, calibration: bytes = b"{}"):
        host, _, port = address.rpartition(":")
        try:
            port_number = int(port)
        except ValueError:
            raise ValueError(f"--camera-stream {address}: expected HOST:PORT") from None
        self.calibration = calibration
        self.latest: bytes | None = None
        self.count = 0
        self.changed = threading.Condition()
        self.closed = False
        server = self

        class Handler(BaseHTTPRequestHandler):
            timeout = CLIENT_TIMEOUT_S

            def log_message(self, *args) -> None:      # the session's stderr is for the session
                pass

            def do_GET(self) -> None:
                if self.path == "/stream.mjpg":
                    self._stream()
                elif self.path == "/frame.jpg" and server.latest is not None:
                    self._send(200, "image/jpeg", server.latest)
                elif self.path == "/calibration.json":
                    self._send(200, "application/json", server.calibration)
                else:
                    self._send(404, "text/plain", b"/stream.mjpg, /frame.jpg or /calibration.json\n")

            def _send(self, status: int, kind: str, body: bytes) -> None:
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def _stream(self) -> None:
                self.send_response(200)
                self.send_header("Content-Type", f"multipart/x-mixed-replace; boundary={BOUNDARY}")
                self.send_header("Cache-Control", "no-cache")
                self.end_headers()
                seen = 0
                try:
                    while not server.closed:
                        with server.changed:
                            def ready(seen: int = seen) -> bool:
                                return server.count > seen or server.closed
                            server.changed.wait_for(ready, timeout=1.0)
                            if server.count == seen:
                                continue
                            seen, frame = server.count, server.latest
                        # The count moved past seen (>= 0) only in publish(), which set latest with it under
                        # the same lock: a frame is there.
                        assert frame is not None
                        self.wfile.write(f"--{BOUNDARY}\r\nContent-Type: image/jpeg\r\n"
                                         f"Content-Length: {len(frame)}\r\n\r\n".encode() + frame + b"\r\n")
                        self.wfile.flush()
                except OSError:        # the client left or stalled past its timeout
                    return

        try:
            self.http = ThreadingHTTPServer((host or "127.0.0.1", port_number), Handler)
        except OSError as err:
            raise ValueError(f"--camera-stream {address}: cannot listen: {err.strerror or err}") from None
        self.http.daemon_threads = True
        # server_address is the bound socket's getsockname(): its host a str for AF_INET and AF_INET6
        # (typeshed types it as any address one may pass in, bytes too).
        bound_host, bound_port = self.http.server_address[:2]
        assert isinstance(bound_host, str)
        self.address = "%s:%d" % (bound_host, bound_port)
        self.thread = threading.Thread(target=self.http.serve_forever, name="mjpeg", daemon=True)
        self.thread.start()

    def publish(self, image: bytes) -> None:
        frame = as_jpeg(image)
        with self.changed:
            self.latest, self.count = frame, self.count + 1
            self.changed.notify_all()

    def close(self) -> None:
        with self.changed:
            self.closed = True
            self.changed.notify_all()
        self.http.shutdown()
        self.http.server_close()
