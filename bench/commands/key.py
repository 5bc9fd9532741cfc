"""``bench key``: make a bench key for sealed journals, or show one."""

from __future__ import annotations

import sys
from pathlib import Path

from bench.errors import BenchError


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "key", help="make or show the bench key that seals session journals",
        description="A bench key seals journals (bench run --key, pytest --controller-key) so that a regulator "
                    "verifies them with its fingerprint (bench replay --pubkey); see docs/bench-run.md.")
    actions = p.add_subparsers(dest="action", metavar="ACTION", required=True, help="new or show")
    new = actions.add_parser("new", help="make a key in DIR: bench.key (private, 0600), bench.pub, bench.sessions")
    new.add_argument("dir", metavar="DIR", help="the folder for the key files (made if missing)")
    new.add_argument("--sessions", type=int, default=None, metavar="N",
                     help="how many sessions the key can seal (default 16384)")
    new.set_defaults(func=run_new)
    show = actions.add_parser("show", help="print the public key and fingerprint of bench.pub or bench.key")
    show.add_argument("file", metavar="FILE", help="bench.pub or bench.key")
    show.set_defaults(func=run_show)


def run_new(args) -> int:
    from bench.journal.keys import DEFAULT_SESSIONS, PRIVATE_NAME, PUBLIC_NAME, new_key
    try:
        found = new_key(args.dir, args.sessions if args.sessions is not None else DEFAULT_SESSIONS)
    except (BenchError, OSError) as err:
        print(f"bench key new: {err}", file=sys.stderr)
        return 2
    folder = Path(args.dir)
    print(f"private key state: {folder / PRIVATE_NAME} (owner-only; bench run --key {folder / PRIVATE_NAME})")
    print(f"public key: {folder / PUBLIC_NAME}")
    print(f"fingerprint: {found}")
    print("Give the regulator the fingerprint; it verifies journals with bench replay --pubkey FINGERPRINT.")
    return 0


def run_show(args) -> int:
    from bench.journal.keys import PRIVATE_NAME, PUBLIC_NAME, SESSIONS_NAME, fingerprint, load_public, load_state
    path = Path(args.file)
    if path.name == SESSIONS_NAME:
        print(f"bench key show: {path}: the list of session public keys (public, not a key to show): give "
              f"{path.with_name(PUBLIC_NAME)} (the public key) or {path.with_name(PRIVATE_NAME)} (the key state)",
              file=sys.stderr)
        return 2
    try:
        if path.name == PUBLIC_NAME or path.suffix == ".pub":
            public, state = load_public(path), None
        else:
            state = load_state(path)
            public = state.public
    except (BenchError, OSError) as err:
        print(f"bench key show: {err}", file=sys.stderr)
        return 2
    print(f"public key: {public.hex()} (Ed25519)")
    print(f"fingerprint: {fingerprint(public)}")
    if state is not None:
        print(f"sessions: {state.next} of {state.size} used; {state.size - state.next} left")
    return 0
