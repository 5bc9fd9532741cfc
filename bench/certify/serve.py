"""``python -m bench.certify.serve [EMULATOR OPTIONS] -- COMMAND ...``: one
command of a certification step run against an emulated controller behind a
real link, as it is run against a device.

It starts ``bench emulate`` (``bench.emulator.process.emulated_controller``:
a pty, or a loopback TCP port where the system has no ptys) with the plan's
game, seed, submission and misbehaviour, puts the address it announces where
the command says ``{url}``, runs the command, stops the emulator, and exits
with the command's status. A lab repeats it by hand as::

    bench emulate --game lightning-dice --seed 7 --listen pty &     # "listening /dev/pts/N"
    bench rng --collect 20000 --controller /dev/pts/N ...

The emulator dies with this process (SIGTERM to the step's process group,
or the kernel's parent-death signal after a SIGKILL), so a step stopped
half-way leaves no controller holding a pty or a port.
"""

from __future__ import annotations

import argparse
import signal
import subprocess
import sys

from bench.errors import BenchError
from tablebench_io.commandline import Exit

URL = "{url}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.certify.serve",
                                     description="run COMMAND against a freshly started emulated controller")
    parser.add_argument("--game", required=True)
    parser.add_argument("--seed", type=int, required=True, help="the emulated controller's seed (recorded)")
    parser.add_argument("--submission", help="the rules submission the controller runs")
    parser.add_argument("--misbehave", help="a misbehaviour of bench emulate --misbehave or --misbehave-link")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- COMMAND ... with {url} where the link goes")
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command or URL not in command:
        print(f"bench certify serve: give -- COMMAND ... with {URL} where the controller's address goes",
              file=sys.stderr)
        return Exit.BAD_INPUT
    from bench.emulator.link_misbehaviours import LINK_MISBEHAVIOURS
    from bench.emulator.process import emulated_controller
    link = args.misbehave in LINK_MISBEHAVIOURS
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(Exit.INTERRUPTED))   # the emulator is stopped on the way out
    try:
        with emulated_controller(args.game, seed=args.seed, submission=args.submission,
                                 misbehave=None if link else args.misbehave,
                                 extra=("--misbehave-link", args.misbehave) if link else ()) as url:
            print(f"bench certify: the emulated controller (seed {args.seed}"
                  + (f", {args.misbehave}" if args.misbehave else "") + f") listens on {url}",
                  file=sys.stderr, flush=True)
            return subprocess.call([url if a == URL else a for a in command])
    except BenchError as err:
        print(f"bench certify: the emulated controller did not start: {err}", file=sys.stderr)
        return Exit.LINK


if __name__ == "__main__":
    sys.exit(main())
