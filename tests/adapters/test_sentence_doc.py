"""docs/adapters.md's example exchange, replayed against the command the
document gives: the bench's sentences are sent byte for byte and every
sentence of the controller's must come back byte for byte, in order, so
that the specification cannot drift from the code."""

from __future__ import annotations

import re
import shlex
import time
from pathlib import Path

from bench.adapters.sentence import AsciiSentence
from bench.emulator.process import emulator_process
from bench.protocol import CONTROLLER
from bench.protocol.codec import Decoded
from bench.protocol.link import open_link

DOC = Path(__file__).resolve().parents[2] / "docs" / "adapters.md"


def example() -> tuple[list[str], list[tuple[str, bytes]]]:
    text = DOC.read_text()
    section = text[text.index("## 7. Example exchange"):]
    command = re.search(r"```\n(bench emulate [^\n]+)\n```", section).group(1)
    block = re.search(r"```exchange\n(.*?)```", section, re.S).group(1)
    lines = [(line[0], line[2:].encode("ascii") + b"\r\n") for line in block.splitlines() if line.strip()]
    return shlex.split(command)[2:], lines


def test_the_documented_exchange_replays_against_bench_emulate():
    args, lines = example()
    listen = args.index("--listen")
    args[listen:listen + 2] = []                   # an ephemeral port instead of the documented one
    decoder = AsciiSentence().stream_decoder("lightning-dice", CONTROLLER)
    with emulator_process(args, listen="127.0.0.1:0") as url, open_link(url) as link:
        pending: list = []
        for direction, sentence in lines:
            if direction == ">":
                link.write(sentence)
                continue
            deadline = time.monotonic() + 30.0       # a hang guard: each line comes at once
            while not pending and time.monotonic() < deadline:
                data = link.read_some(0.1)
                pending += decoder.feed(data, time.monotonic()) if data else []
            assert pending, f"the controller did not send {sentence!r}"
            got = pending.pop(0)
            assert isinstance(got, Decoded), f"rejected: {got}"
            assert got.raw == sentence
        assert link.read_some(0.3) == b""          # and nothing more than documented
    assert sum(1 for d, _ in lines if d == "<") >= 20
