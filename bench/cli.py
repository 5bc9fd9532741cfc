"""The ``bench`` console script: rtp, settle, emulate, run, replay, key, conformance."""

import sys

import bench.commands
from bench.errors import BenchError
from tablebench_io.commandline import make_main
from twin.errors import TwinError  # a design the bench loads for its plant

main = make_main(bench.commands, "bench", "The hardware-in-the-loop test bench for regulated live table games.",
                 user_errors=(BenchError, TwinError))

if __name__ == "__main__":
    sys.exit(main())
