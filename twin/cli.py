"""The ``twin`` console script: drop, spin, validate."""

import sys

import twin.commands
from tablebench_io.commandline import make_main
from twin.errors import TwinError

main = make_main(twin.commands, "twin", "The physics digital twin of a Lightning Dice tower and a roulette wheel.",
                 user_errors=(TwinError,))

if __name__ == "__main__":
    sys.exit(main())
