"""tests/console.py gives what a process would: below Python too."""

import os
import sys

from tests import console


def test_an_in_process_command_s_writes_to_its_file_descriptors_are_caught(monkeypatch):
    import bench.cli

    def main(argv):
        print("python out")
        print("python err", file=sys.stderr)
        os.write(1, b"c out\n")           # as a C library writes: below sys.stdout
        os.write(2, b"c err\n")
        return 3
    monkeypatch.setattr(bench.cli, "main", main)
    done = console.bench("anything")
    assert done.returncode == 3
    assert done.stdout.splitlines() == ["python out", "c out"]
    assert done.stderr.splitlines() == ["python err", "c err"]
