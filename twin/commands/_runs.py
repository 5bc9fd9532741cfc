"""What the ``twin`` commands that run the physics share: whole-number
arguments checked at parse time, and the options of a series of runs (seeds
N, N+1, ..., N+K-1; pictures of the first run; one JSON object a line)."""

from __future__ import annotations

import argparse
from pathlib import Path

from tablebench_io.commandline import add_progress_option
from tablebench_io.json_lines import add_json_option


def design_of(given: str, *kinds: str) -> tuple[str, str]:
    """(path, kind) of the design a twin command is given, by one rule for
    every command: a file, or a shipped design by its name looked for among
    the kinds the command (or its options) takes: ``twin drop standard`` a
    tower, ``twin validate standard --spins N`` a wheel; a name that is still
    both a tower and a wheel is refused, saying the two to choose from."""
    from twin.kinds import design_kind
    from twin.shipped import shipped_design
    bare = "/" not in given and not Path(given).exists()     # towers/standard, a file: its kind is its own
    path = shipped_design(given, *(kinds if bare else ()))
    return path, design_kind(path)


def positive_int(text: str) -> int:
    """An argparse type: a whole number of at least 1."""
    return _whole(text, 1)


def non_negative_int(text: str) -> int:
    """An argparse type: a whole number of at least 0."""
    return _whole(text, 0)


def _whole(text: str, least: int) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < least:
        raise argparse.ArgumentTypeError(f"must be at least {least}, got {value}")
    return value


def output_file(text: str) -> str:
    """An argparse type: a file to write, in a folder that exists (checked
    before any physics runs, not after it, when the picture is saved)."""
    folder = Path(text).resolve().parent
    if not folder.is_dir():
        raise argparse.ArgumentTypeError(f"the folder {folder} does not exist")
    return text


def add_series_arguments(parser: argparse.ArgumentParser, run: str, png: str, gif: str) -> None:
    """--seed, --count, --png, --gif, --json for a series of ``run``s (e.g.
    "drop": JSON Lines of the kind ``tablebench.drop/1``, one "drop" a line)."""
    parser.add_argument("--seed", type=non_negative_int, default=0, help="first seed (default 0)")
    parser.add_argument("--count", type=positive_int, default=1, help=f"number of {run}s (default 1)")
    parser.add_argument("--png", metavar="FILE", type=output_file, help=png)
    parser.add_argument("--gif", metavar="FILE", type=output_file, help=gif)
    add_json_option(parser, run)
    add_progress_option(parser)
