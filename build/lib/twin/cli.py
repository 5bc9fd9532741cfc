"""The ``twin`` console script: drop, spin, validate."""

import sys

import twin.commands
from twin.commandline import make_main

main = make_main(twin.commands, "twin", "The physics digital twin of a Lightning Dice tower and a roulette wheel.")

if __name__ == "__main__":
    sys.exit(main())
