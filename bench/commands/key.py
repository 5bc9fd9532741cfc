"""``bench key``: make a bench key for sealed journals, or show one."""

from __future__ import annotations

import sys
from pathlib import Path

from bench.errors import BenchError
from tablebench_io.commandline import Exit
from tablebench_io.json_lines import JsonLines, add_json_option


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "key", help="make or show the bench key that seals session journals",
        description="A bench key seals journals (bench run --key, pytest --controller-key) so that a regulator "
                    "verifies them with its fingerprint (bench replay --pubkey); see docs/bench-run.md. "
                    "Exit status: 0 done, 2 a folder or key file that cannot be used.")
    actions = p.add_subparsers(dest="action", metavar="ACTION", required=True, help="new or show")
    new = actions.add_parser("new", help="make a key in DIR: bench.key (private, 0600), bench.pub, bench.sessions",
                             description="Make a bench key in DIR: bench.key (private, 0600), bench.pub and "
                                         "bench.sessions. Exit status: 0 made, 2 DIR cannot be written or holds a "
                                         "key already.")
    new.add_argument("dir", metavar="DIR", help="the folder for the key files (made if missing)")
    new.add_argument("--sessions", type=int, default=None, metavar="N",
                     help="how many sessions the key can seal (default 16384)")
    add_json_option(new, "key")          # a "key" line (its files and fingerprint), then the verdict
    new.set_defaults(func=run_new)
    show = actions.add_parser("show", help="print the public key and fingerprint of bench.pub or bench.key",
                              description="Print the public key and fingerprint of bench.pub or bench.key (and, "
                                          "for bench.key, the sessions it has left). Exit status: 0 shown, 2 a "
                                          "file that is not a bench key.")
    show.add_argument("file", metavar="FILE", help="bench.pub or bench.key")
    add_json_option(show, "key")         # a "key" line (public key, fingerprint, sessions left), then the verdict
    show.set_defaults(func=run_show)


def run_new(args) -> int:
    from bench.journal.keys import DEFAULT_SESSIONS, PRIVATE_NAME, PUBLIC_NAME, new_key
    try:
        found = new_key(args.dir, args.sessions if args.sessions is not None else DEFAULT_SESSIONS)
    except (BenchError, OSError) as err:
        print(f"bench key new: {err}", file=sys.stderr)
        return Exit.BAD_INPUT
    folder = Path(args.dir)
    if args.json:
        lines = JsonLines("key")
        lines.write("key", action="new", private=str(folder / PRIVATE_NAME), public=str(folder / PUBLIC_NAME),
                    fingerprint=found)
        lines.verdict(passed=True, status=Exit.OK)
        return Exit.OK
    print(f"private key state: {folder / PRIVATE_NAME} (owner-only; bench run --key {folder / PRIVATE_NAME})")
    print(f"public key: {folder / PUBLIC_NAME}")
    print(f"fingerprint: {found}")
    print("Give the regulator the fingerprint; it verifies journals with bench replay --pubkey FINGERPRINT.")
    return Exit.OK


def run_show(args) -> int:
    from bench.journal.keys import PRIVATE_NAME, PUBLIC_NAME, SESSIONS_NAME, fingerprint, load_public, load_state
    path = Path(args.file)
    if path.name == SESSIONS_NAME:
        print(f"bench key show: {path}: the list of session public keys (public, not a key to show): give "
              f"{path.with_name(PUBLIC_NAME)} (the public key) or {path.with_name(PRIVATE_NAME)} (the key state)",
              file=sys.stderr)
        return Exit.BAD_INPUT
    try:
        if path.name == PUBLIC_NAME or path.suffix == ".pub":
            public, state = load_public(path), None
        else:
            state = load_state(path)
            public = state.public
    except (BenchError, OSError) as err:
        print(f"bench key show: {err}", file=sys.stderr)
        return Exit.BAD_INPUT
    if args.json:
        lines = JsonLines("key")
        lines.write("key", action="show", file=str(path), public_key=public.hex(), algorithm="Ed25519",
                    fingerprint=fingerprint(public),
                    **({} if state is None else {"sessions_used": state.next, "sessions": state.size}))
        lines.verdict(passed=True, status=Exit.OK)
        return Exit.OK
    print(f"public key: {public.hex()} (Ed25519)")
    print(f"fingerprint: {fingerprint(public)}")
    if state is not None:
        print(f"sessions: {state.next} of {state.size} used; {state.size - state.next} left")
    return Exit.OK
