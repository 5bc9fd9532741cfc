"""What the ``twin`` commands that run the physics share: whole-number
arguments checked at parse time, and the options of a series of runs (seeds
N, N+1, ..., N+K-1; pictures of the first run; one JSON object a line)."""

from __future__ import annotations

import argparse
from pathlib import Path


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
    """--seed, --count, --png, --gif, --json for a series of ``run``s (e.g. "drop")."""
    parser.add_argument("--seed", type=non_negative_int, default=0, help="first seed (default 0)")
    parser.add_argument("--count", type=positive_int, default=1, help=f"number of {run}s (default 1)")
    parser.add_argument("--png", metavar="FILE", type=output_file, help=png)
    parser.add_argument("--gif", metavar="FILE", type=output_file, help=gif)
    parser.add_argument("--json", action="store_true", help="one JSON object a line")
