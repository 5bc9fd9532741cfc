"""A report page as a reader sees it: Debian's Chromium, headless, at a given
width, driven over the DevTools protocol on a pipe (``--remote-debugging-pipe``:
JSON messages ended by a NUL byte on file descriptors 3 and 4; no socket, no
library beyond the standard one).

Why not ``chromium --screenshot --window-size=420,900``: a headless window is
never narrower than 500 px, so a 420 px shot of it is a 500 px layout cut
off at the right, and its viewport is shorter than the window. Here the
page's viewport is set exactly (``Emulation.setDeviceMetricsOverride``, a
phone's: 420 px wide, mobile), and what is where is measured in the page.

As a script, it writes the screenshots of a lab's filing:

    python tests/reports/headless_chromium.py PAGE.html... --out DIR [--width 1400 --width 420]
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import select
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

CHROMIUM = Path("/usr/bin/chromium")
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run", "--hide-scrollbars",
         "--remote-debugging-pipe")
SCREEN_HEIGHT = 900          # the first screen: what a reader sees without scrolling
TIMEOUT_S = 60.0

# Measured in the page once it has loaded: where the verdict box and the
# provenance are, how wide and tall the page is, and whether anything sticks
# out to the right of the screen (a page cut off at a phone's width).
MEASURE = """(() => {
  const box = e => { if (!e) return null; const r = e.getBoundingClientRect();
                     return {top: r.top, bottom: r.bottom, left: r.left, right: r.right}; };
  const wide = [...document.querySelectorAll('body *')].filter(e => {
      const r = e.getBoundingClientRect();
      if (r.width === 0 || r.right <= innerWidth + 1) return false;
      for (let p = e.parentElement; p; p = p.parentElement) {      // inside a scrolling box: it scrolls, not the page
        const s = getComputedStyle(p);
        if (['auto', 'scroll', 'hidden'].includes(s.overflowX) && p.getBoundingClientRect().right <= innerWidth + 1)
          return false;
      }
      return true; }).map(e => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '')).slice(0, 5);
  return {width: innerWidth, height: innerHeight, page_width: document.documentElement.scrollWidth,
          page_height: document.documentElement.scrollHeight, verdict: box(document.getElementById('verdict')),
          provenance: box(document.getElementById('provenance')), sticking_out: wide};
})()"""


class BrowserError(RuntimeError):
    pass


class Chromium:
    """One headless Chromium with a fresh profile, for one or more pages."""

    def __init__(self, executable: Path = CHROMIUM, timeout_s: float = TIMEOUT_S):
        self.timeout_s = timeout_s
        self.profile = tempfile.mkdtemp(prefix="tablebench-chromium-")
        to_chrome_r, self._to_chrome = os.pipe()
        self._from_chrome, from_chrome_w = os.pipe()

        def onto_3_and_4():          # the pipe's ends where Chromium looks for them
            os.dup2(to_chrome_r, 3)
            os.dup2(from_chrome_w, 4)
        self.process = subprocess.Popen([str(executable), *FLAGS, f"--user-data-dir={self.profile}"],
                                        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                        stderr=subprocess.DEVNULL, preexec_fn=onto_3_and_4,
                                        pass_fds=(3, 4))     # kept open after onto_3_and_4 put the pipe there
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self._buffer = b""
        self._next_id = 0
        self._events: list[dict] = []

    # -- the protocol ---------------------------------------------------------
    def _read(self, deadline: float) -> dict:
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._from_chrome], [], [], left)[0]:
                raise BrowserError(f"Chromium said nothing within {self.timeout_s:g} s")
            chunk = os.read(self._from_chrome, 1 << 20)
            if not chunk:
                raise BrowserError("Chromium closed its end of the pipe")
            self._buffer += chunk
        message, _, self._buffer = self._buffer.partition(b"\0")
        return json.loads(message)

    def call(self, method: str, session: str | None = None, **params) -> dict:
        self._next_id += 1
        message = {"id": self._next_id, "method": method, "params": params}
        if session:
            message["sessionId"] = session
        os.write(self._to_chrome, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + self.timeout_s
        while True:
            reply = self._read(deadline)
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise BrowserError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self._events.append(reply)

    def wait_for(self, event: str, session: str) -> dict:
        deadline = time.monotonic() + self.timeout_s
        while True:
            for k, found in enumerate(self._events):
                if found.get("method") == event and found.get("sessionId") == session:
                    return self._events.pop(k)
            self._events.append(self._read(deadline))

    # -- a page -----------------------------------------------------------------
    def open(self, path: Path, width: int, height: int = SCREEN_HEIGHT) -> "Tab":
        target = self.call("Target.createTarget", url="about:blank")["targetId"]
        session = self.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        self.call("Page.enable", session)
        self.call("Emulation.setDeviceMetricsOverride", session, width=width, height=height,
                  deviceScaleFactor=1, mobile=width < 700)
        self.call("Page.navigate", session, url=Path(path).resolve().as_uri())
        self.wait_for("Page.loadEventFired", session)
        return Tab(self, target, session)

    def close(self) -> None:
        try:
            self.call("Browser.close")
        except (BrowserError, OSError):
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=10)
        for fd in (self._to_chrome, self._from_chrome):
            try:
                os.close(fd)
            except OSError:
                pass
        shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class Tab:
    def __init__(self, browser: Chromium, target: str, session: str):
        self.browser, self.target, self.session = browser, target, session

    def evaluate(self, expression: str):
        result = self.browser.call("Runtime.evaluate", self.session, expression=expression, returnByValue=True)
        if "exceptionDetails" in result:     # noqa: SIM102
            raise BrowserError(f"the page's script failed: {result['exceptionDetails']}")
        return result["result"].get("value")

    def measure(self) -> dict:
        return self.evaluate(MEASURE)

    def screenshot(self) -> bytes:
        """The first screen, as a reader sees it without scrolling (PNG)."""
        return base64.b64decode(self.browser.call("Page.captureScreenshot", self.session, format="png")["data"])

    def close(self) -> None:
        self.browser.call("Target.closeTarget", targetId=self.target)


def main() -> None:
    parser = argparse.ArgumentParser(description="screenshots of report pages, first screen, at each width")
    parser.add_argument("pages", nargs="+", type=Path)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--width", type=int, action="append")
    parser.add_argument("--height", type=int, default=SCREEN_HEIGHT, help="of the screen (default 900)")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    with Chromium() as browser:
        for page in args.pages:
            for width in args.width or (1400, 420):
                tab = browser.open(page, width, args.height)
                shot = args.out / f"{page.stem}-{width}.png"
                shot.write_bytes(tab.screenshot())
                m = tab.measure()
                box = m["verdict"]
                where = f"verdict {box['top']:.0f}-{box['bottom']:.0f} px" if box else "no verdict box"
                print(f"{shot}: {where} of a {m['height']} px screen, {m['width']} px wide; page "
                      f"{m['page_width']}x{m['page_height']} px; sticking out: {m['sticking_out'] or 'nothing'}")
                tab.close()


if __name__ == "__main__":
    main()
