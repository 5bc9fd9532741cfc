"""The ``bench`` console script: rtp, settle, emulate, run, replay, key, conformance."""

import sys

import bench.commands
from bench.errors import BenchError
from twin.commandline import make_main

main = make_main(bench.commands, "bench", "The hardware-in-the-loop test bench for regulated live table games.",
                 user_errors=(BenchError,))

if __name__ == "__main__":
    sys.exit(main())
