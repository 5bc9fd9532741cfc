"""The byte-exact examples of docs/protocol.md sections 14 and 15, replayed
against the command the document gives: the bench's lines are written as
they stand (a run of ``>`` lines in one write), and every line of the
controller's must come back byte for byte, messages and NAKs in order."""

from __future__ import annotations

import re
import shlex
import time
from pathlib import Path

import pytest

from bench.conformance.suite import connect
from bench.protocol import CONTROLLER, Codec, Decoded, StreamDecoder
from tests.link.conftest import REPO, emulator_process

DOC = Path(REPO) / "docs" / "protocol.md"
SECTIONS = ("## 14.", "## 15.")


def examples() -> list[tuple[str, str]]:
    """(section title, exchange block) of every example in SECTIONS."""
    text = DOC.read_text()
    found = []
    for heading in SECTIONS:
        start = text.index(heading)
        end = text.find("\n## ", start + 1)
        section = text[start:end]
        title = section.splitlines()[0]
        found += [(title, block) for block in re.findall(r"```exchange\n(.*?)```", section, re.S)]
    return found


def command() -> list[str]:
    text = DOC.read_text()
    section = text[text.index("## 7. Example exchange"):]
    args = shlex.split(re.search(r"```\n(bench emulate [^\n]+)\n```", section).group(1))[2:]
    listen = args.index("--listen")
    del args[listen:listen + 2]                   # an ephemeral port instead of the documented one
    return args


def steps(block: str):
    """("write", bytes) for each run of > lines, ("expect", [frames]) for each
    run of < lines, ("wait", seconds) for a comment saying "(wait N s)"."""
    out = []
    for line in block.splitlines():
        if not line.strip():
            continue
        if line.startswith("#"):
            wait = re.search(r"\(wait ([0-9.]+) s\)", line)
            if wait:
                out.append(("wait", float(wait.group(1))))
            continue
        kind = {">": "write", "<": "expect"}[line[0]]
        frame = line[2:].encode("ascii") + b"\r\n"
        if out and out[-1][0] == kind:
            out[-1][1].append(frame)
        else:
            out.append((kind, [frame]))
    return out


def test_the_sections_have_their_examples():
    titles = [title for title, _ in examples()]
    assert len(titles) == 3 and titles[0].startswith("## 14.") and titles[2].startswith("## 15.")


@pytest.mark.parametrize("index", range(3))
def test_each_example_replays_byte_for_byte_against_bench_emulate(index):
    title, block = examples()[index]
    version_2 = "proto=2" in block
    decoder = StreamDecoder(Codec("lightning-dice"), sender=CONTROLLER, byte_timeout=0.5, frame_timeout=1.0)
    with emulator_process(*command()) as url:
        link = connect(url)
        try:
            pending: list = []
            for kind, value in steps(block):
                if kind == "write":
                    link.write(b"".join(value))
                elif kind == "wait":
                    time.sleep(value)
                else:
                    messages = [f for f in value if b" ACK*" not in f]
                    controls = [f for f in value if b" ACK*" in f]
                    deadline = time.monotonic() + 30.0        # a hang guard: each reply comes at once
                    while messages or controls:
                        while not pending:
                            assert time.monotonic() < deadline, \
                                f"{title}: still waiting for {[*messages, *controls]}"
                            data = link.read_some(0.05)
                            pending += decoder.feed(data, time.monotonic()) if data else []
                        got = pending.pop(0)
                        assert isinstance(got, Decoded), f"{title}: rejected {got}"
                        if got.raw in controls:
                            controls.remove(got.raw)      # an ACK may overtake a message sent just before it
                        elif version_2 and got.message.type == "ACK" and got.raw not in messages:
                            continue                      # a read split in two: one more cumulative ACK
                        else:
                            assert messages and got.raw == messages[0], \
                                f"{title}: got {got.raw!r}, expected {messages[:1] or controls}"
                            messages.pop(0)
            assert pending == [] and link.read_some(0.3) == b"", f"{title}: more than documented"
        finally:
            link.close()
