"""``bench emulate``: the emulated game controller, in its own process, behind
a TCP port, a pty or a serial device, speaking the protocol of docs/protocol.md."""

from __future__ import annotations

import argparse
import dataclasses
import os
import logging
import signal
import sys

from bench.adapters.registry import DEFAULT as DEFAULT_ADAPTER
from bench.emulator.faults import FAULT_NAMES, FaultyPort, parse_faults
from bench.emulator.link_misbehaviours import LINK_MISBEHAVIOURS
from bench.emulator.misbehaviours import every_misbehaviour
from bench.errors import BenchError
from tablebench_io.commandline import Exit
from bench.protocol.messages import CONTROLLER, PROTOCOL_VERSIONS
from bench.rules import DEFAULT_GAME, game_names
from bench.protocol.timeouts import Timeouts


def register(subparsers) -> None:
    misbehaviours = "\n".join(
        f"  {cls.name:<27} {cls.clause:<18} {', '.join(sorted(cls.games))}: {cls.summary}"
        for cls in sorted(every_misbehaviour().values(), key=lambda c: (len(c.games) > 1, sorted(c.games), c.name)))
    epilog = (
        "misbehaviours (--misbehave NAME; each breaks the clause shown):\n" + misbehaviours + "\n\n"
        "link-level misbehaviours (--misbehave-link NAME; each breaks a rule of docs/protocol.md):\n"
        + "\n".join(f"  {c.name:<27} {c.section:<18} {c.summary}" for c in LINK_MISBEHAVIOURS.values()) + "\n"
        "  (with --adapter NAME, that adapter's own: bench adapters NAME)\n\n"
        "faults (--fault, repeatable; rates from 0 to 1, seeded by --seed):\n"
        "  corrupt=RATE  drop=RATE  duplicate=RATE  delay=RATE:SECONDS  reset=ROUND\n\n"
        "The first line on stdout is where to connect, e.g. 'listening socket://127.0.0.1:7001'\n"
        "or 'listening /dev/pts/7'. Protocol: bench docs protocol.\n\n"
        "Exit status: 0 stopped by SIGTERM or done serving, 2 bad arguments or an address that cannot be\n"
        "listened on, 4 interrupted (Ctrl-C).")
    p = subparsers.add_parser(
        "emulate", help="run the emulated game controller behind a link",
        description="Run the emulated game controller: each game's round state machine, Lucky Numbers "
                    "drawn from a seeded RNG with the submission's distribution, settlement through the "
                    "rules, and on demand faults and named breaches of the regulations.",
        epilog=epilog, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--game", default=DEFAULT_GAME, metavar="GAME",
                   help=f"the game the controller runs: {', '.join(game_names())}, or a game file (YAML, "
                        "docs/rules.md); default %(default)s, as bench run")
    p.add_argument("--submission", metavar="FILE", help="rules submission (YAML); default: the regulation's defaults")
    p.add_argument("--paytable", help="paytable without a submission: A or B (sic-bo, default A), 1 or 2 (dice-ology, default 1)")
    p.add_argument("--listen", required=True, metavar="ADDRESS",
                   help="HOST:PORT (port 0: any free port), 'pty', or a device path / pyserial URL")
    p.add_argument("--seed", type=int, default=None, help="seed of the Lucky Numbers and the faults (default: random, reported)")
    p.add_argument("--misbehave", metavar="NAME", choices=sorted(every_misbehaviour()),
                   help="break one regulation on purpose (see the list below)")
    p.add_argument("--misbehave-link", metavar="NAME",
                   help="break one rule of the link layer on purpose (see the list below; with --adapter, "
                        "one of that adapter's: bench adapters --misbehaviours)")
    p.add_argument("--adapter", metavar="NAME",
                   help="speak this wire format (bench adapters lists them; default: the bench's own protocol, "
                        "docs/protocol.md); the timeouts are then the adapter's unless given")
    p.add_argument("--protocol", type=int, choices=PROTOCOL_VERSIONS, default=None, metavar="VERSION",
                   help="speak only this protocol version (1: a version-1 controller, which answers a "
                        "version-2 HELLO with ERROR code=version); default: every version, answering in "
                        "the one the bench greets with")
    p.add_argument("--fault", action="append", default=[], metavar="NAME=VALUE",
                   help=f"inject a fault ({', '.join(FAULT_NAMES)}); repeatable")
    defaults = Timeouts()
    p.add_argument("--byte-timeout", type=float, default=None, metavar="S",
                   help=f"longest silence inside a frame (default {defaults.byte} s; docs/protocol.md)")
    p.add_argument("--frame-timeout", type=float, default=None, metavar="S",
                   help=f"longest a whole frame may take to arrive (default {defaults.frame} s)")
    p.add_argument("--response-timeout", type=float, default=None, metavar="S",
                   help=f"wait for an ACK before sending again (default {defaults.response} s)")
    p.add_argument("--retries", type=int, default=None,
                   help=f"sends of a frame before giving it up (default {defaults.retries})")
    p.set_defaults(func=run)


def rules_from_options(args):
    """The rules ``--submission`` or ``--paytable`` give (``bench emulate``, ``bench monitor``)."""
    from bench.rules.submission import default_rules, load_submission
    if args.submission:
        rules = load_submission(args.submission)
        if rules.game != args.game:
            raise BenchError(f"{args.submission}: game: the submission is for {rules.game}, not {args.game}")
        return rules
    from bench.rules import describe
    return default_rules(args.game, args.paytable or describe(args.game).default_paytable)


def link_timeouts(args, defaults: Timeouts) -> Timeouts:
    """The ``--byte-timeout`` ... ``--retries`` options over ``defaults`` (a wire format's own)."""
    given = dict(byte=args.byte_timeout, frame=args.frame_timeout, response=args.response_timeout,
                 retries=args.retries)
    return dataclasses.replace(defaults, **{name: value for name, value in given.items() if value is not None})


def link_misbehaviour(name: str | None, adapter):
    """The port wrapper of ``--misbehave-link NAME``: one of the bench
    protocol's, or with an adapter, one of the adapter's own."""
    if name is None:
        return None
    table = LINK_MISBEHAVIOURS if adapter.name == DEFAULT_ADAPTER else adapter.link_misbehaviours()
    if name not in table:
        whose = "the bench's protocol" if adapter.name == DEFAULT_ADAPTER else f"adapter {adapter.name}"
        raise BenchError(f"--misbehave-link {name}: {whose} has no such misbehaviour "
                         f"(it has: {', '.join(sorted(table)) or 'none'})")
    return table[name]


def run(args) -> int:
    from bench.emulator.controller import EmulatedController
    from bench.emulator.misbehaviours import policy_for
    from bench.emulator.server import serve
    from bench.adapters.registry import get_adapter

    try:
        adapter = get_adapter(args.adapter)
        if args.protocol and adapter.name != DEFAULT_ADAPTER:
            raise BenchError(f"--protocol {args.protocol}: versions are the bench protocol's; adapter "
                             f"{adapter.name} speaks its own wire format")
        misbehave_link = link_misbehaviour(args.misbehave_link, adapter)
        faults = parse_faults(args.fault)
        timeouts = link_timeouts(args, adapter.timeouts)
        from bench.rules.variant import resolve_game
        args.game = resolve_game(args.game)
        rules = rules_from_options(args)
        policy = policy_for(args.misbehave, args.game, rules.paytable)
    except (BenchError, ValueError) as err:
        print(f"bench emulate: {err}", file=sys.stderr)
        return 2
    seed = args.seed if args.seed is not None else int.from_bytes(os.urandom(4), "big")
    banner = (f"bench emulate: {args.game}, seed {seed}, {policy.name}"
              + (f" (breaks {policy.clause})" if policy.clause else "")
              + (f", faults {' '.join(args.fault)}" if args.fault else "")
              + (f", adapter {adapter.label()}" if adapter.name != DEFAULT_ADAPTER else ""))

    def announce(line: str) -> None:
        # Said once listening: a port that cannot be had gets its one error line alone.
        print(banner, file=sys.stderr, flush=True)
        print(line, flush=True)

    def on_connection(link) -> None:
        port = FaultyPort(link, faults, seed) if faults.touches_frames else link
        if misbehave_link is not None:
            port = misbehave_link(port)
        session = adapter.open(port, args.game, role=CONTROLLER, timeouts=timeouts)
        controller = EmulatedController(session, game=args.game, rules=rules, seed=seed, policy=policy,
                                        reset_round=faults.reset_round,
                                        versions=(args.protocol,) if args.protocol else PROTOCOL_VERSIONS)
        controller.serve()

    # What the emulator says while it serves (a link given up, a peer gone) goes to stderr.
    logging.basicConfig(stream=sys.stderr, format="bench emulate: %(message)s", level=logging.INFO)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        serve(args.listen, on_connection, announce=announce)
    except BenchError as err:
        print(f"bench emulate: {err}", file=sys.stderr)
        return Exit.BAD_INPUT
    except OSError as err:            # the port is taken, the address is not ours: set-up, not a violation
        print(f"bench emulate: cannot listen on {args.listen!r}: {err.strerror or err}", file=sys.stderr)
        return Exit.BAD_INPUT
    return Exit.OK
