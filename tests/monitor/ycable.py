"""A Y-cable for the monitor's tests, in a process of its own: the host's
line (a pty the bench opens) joined to the controller's link, with a copy of
each direction put on a line of its own (an RS-232 Y-cable's two receive
lines).

Its own process so that nothing the test's process does (a session played
in it, its threads' share of one interpreter lock) delays the copy: a splitter
in the wire delays neither line, and a copy that lagged would show the
monitor a line behind the other, which is a fault it says (and a test that
fails on a loaded machine).

    python ycable.py CONTROLLER_URL

prints one JSON line {"bench": path, "host": path, "controller": path},
copies until a line comes on its stdin (or stdin ends), then prints one JSON
line {"written_back": hex}: whatever came back up the tap lines, which a
monitor that never sends leaves empty."""

from __future__ import annotations

import json
import os
import select
import sys

from bench.protocol.link import open_link, open_pty_pair

POLL_S = 0.002


def relay(controller_url: str) -> None:
    host = open_pty_pair()
    taps = {"host": open_pty_pair(), "controller": open_pty_pair()}
    controller = open_link(controller_url)
    print(json.dumps({"bench": host[2], **{name: tap[2] for name, tap in taps.items()}}), flush=True)
    stdin = sys.stdin.fileno()
    while True:
        ready = select.select([host[0], stdin], [], [], POLL_S)[0]
        if stdin in ready:
            break
        if host[0] in ready:
            data = os.read(host[0], 4096)
            os.write(taps["host"][0], data)
            controller.write(data)
        data = controller.read_some(POLL_S)
        if data:
            os.write(taps["controller"][0], data)
            os.write(host[0], data)
    back = b""
    for master, _, _ in taps.values():
        while select.select([master], [], [], 0.05)[0]:
            back += os.read(master, 4096)
    print(json.dumps({"written_back": back.hex()}), flush=True)
    controller.close()


if __name__ == "__main__":
    relay(sys.argv[1])
