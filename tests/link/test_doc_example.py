"""docs/protocol.md's example exchange, replayed against the command the
document gives: the bench's lines are sent byte for byte and every line of
the controller's must come back byte for byte, in order."""

from __future__ import annotations

import re
import shlex
import time
from pathlib import Path

from bench.protocol.link import open_link
from bench.protocol import CONTROLLER, Codec, Decoded, StreamDecoder
from tests.link.conftest import REPO

DOC = Path(REPO) / "docs" / "protocol.md"


def example() -> tuple[list[str], list[tuple[str, bytes]]]:
    """The documented command's arguments and the (direction, frame) lines."""
    text = DOC.read_text()
    section = text[text.index("## 7. Example exchange"):]
    command = re.search(r"```\n(bench emulate [^\n]+)\n```", section).group(1)
    block = re.search(r"```exchange\n(.*?)```", section, re.S).group(1)
    lines = [(line[0], line[2:].encode("ascii") + b"\r\n") for line in block.splitlines() if line.strip()]
    assert {d for d, _ in lines} == {">", "<"}
    return shlex.split(command)[2:], lines


def test_the_documented_example_replays_against_bench_emulate(emulator):
    args, lines = example()
    listen = args.index("--listen")
    assert re.fullmatch(r"127\.0\.0\.1:\d+", args[listen + 1])
    args[listen:listen + 2] = []                      # an ephemeral port instead of the documented one
    decoder = StreamDecoder(Codec("lightning-dice"), sender=CONTROLLER, byte_timeout=0.5, frame_timeout=1.0)
    with emulator(*args) as url, open_link(url) as link:
        pending: list = []
        early_acks: list[bytes] = []
        for direction, frame in lines:
            if direction == ">":
                link.write(frame)
                continue
            # An ACK is sent the moment a frame arrives, so on a busy machine it
            # may overtake a message the controller was about to send; every
            # line must still come, byte for byte, and messages in order.
            if frame in early_acks:
                early_acks.remove(frame)
                continue
            while True:
                deadline = time.monotonic() + 30.0       # a hang guard: each line comes at once
                while not pending and time.monotonic() < deadline:
                    data = link.read_some(0.1)
                    pending += decoder.feed(data, time.monotonic()) if data else []
                assert pending, f"the controller did not send {frame!r}"
                got = pending.pop(0)
                assert isinstance(got, Decoded), f"rejected: {got}"
                if got.raw != frame and got.message.type == "ACK":
                    early_acks.append(got.raw)
                    continue
                assert got.raw == frame
                break
        assert early_acks == [], f"ACKs the example does not show: {early_acks}"
        assert link.read_some(0.2) == b""             # and nothing more than documented
    assert sum(1 for d, _ in lines if d == "<") >= 20
