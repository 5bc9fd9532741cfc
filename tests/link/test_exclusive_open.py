"""A device path is one process's at a time: a second opener (another bench
on the line, or a bench reconnecting to a path the system has since given to
another pseudo-terminal, a tap's) is refused, and reads nothing the owner was
sent."""

import os
import subprocess
import sys

import pytest

from bench.protocol.link import LinkError, open_link, open_pty_pair


def test_a_second_opener_of_a_line_in_use_is_refused_and_the_owner_gets_every_byte():
    master, slave, path = open_pty_pair()
    try:
        with open_link(path) as owner:
            other = subprocess.run([sys.executable, "-c", f"from bench.protocol.link import open_link\n"
                                    f"open_link({path!r})"], capture_output=True, text=True, timeout=60)
            assert other.returncode != 0 and "LinkError" in other.stderr and path in other.stderr
            with pytest.raises(LinkError, match="cannot open link"):
                open_link(path)
            os.write(master, b"HELLO\n")
            got = b""
            for _ in range(20):
                got += owner.read_some(0.05)
                if got.endswith(b"\n"):
                    break
            assert got == b"HELLO\n"
        with open_link(path):       # closed, the line is free again
            pass
    finally:
        os.close(master)
        os.close(slave)
