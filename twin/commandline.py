"""Sub-command discovery shared by the ``twin`` and ``bench`` console scripts.

Each module in a commands package defines ``register(subparsers)``, which adds
its sub-parser and sets ``func`` (a callable taking the parsed args and
returning the exit status). Adding a command is adding a module: no central
list to edit. (``bench`` may import this module; ``twin`` never imports ``bench``.)
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
from types import ModuleType
from typing import Callable, Sequence


def build_parser(commands: ModuleType, prog: str, description: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=prog, description=description)
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{commands.__name__}.{info.name}")
        module.register(subparsers)
    return parser


def make_main(commands: ModuleType, prog: str, description: str) -> Callable[[Sequence[str] | None], int]:
    def main(argv: Sequence[str] | None = None) -> int:
        parser = build_parser(commands, prog, description)
        args = parser.parse_args(argv)
        try:
            return int(args.func(args) or 0)
        except KeyboardInterrupt:
            print(f"{prog}: interrupted", file=sys.stderr)
            return 130
        except BrokenPipeError:
            return 0
    return main
