"""``bench rtp SUBMISSION... [--json] [--all]``: the exact return to player of
every wager of each rules submission."""

from __future__ import annotations

import argparse
import sys

import bench

from bench.errors import RulesError
from bench.rules.exact import percent
from bench.rules.registry import get_game
from bench.rules.rtp_table import RtpRow, rtp_rows
from bench.rules.submission import Rules
from bench.rules.variant import load_rules_file
from tablebench_io.commandline import Exit, add_list_option
from tablebench_io.json_lines import JsonLines, add_json_option

DESCRIPTION = """\
For every wager of each rules submission: the chance of winning, the exact
return to player (RTP: the expected amount handed back per unit staked, stake
included) and the house edge (1 - RTP), as fractions and as percents, computed
with exact fractions over every equally likely outcome (216 rolls of three
dice, 37 pockets, the two-dice rolls of craps) and, for the lightning games,
the submission's Lucky Number distribution.

Without --all, bets of one kind with identical figures (e.g. the 60 splits)
share one line. --json writes a "submission" line for each (every bet,
fractions as "p/q" strings), then the verdict (docs/json.md).

Exit status: 0 every submission read, 2 one could not be read (the others
are still shown).
"""


def register(subparsers) -> None:
    parser = subparsers.add_parser("rtp", help="exact RTP and house edge of every wager of a submission",
                                   description=DESCRIPTION,
                                   formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("submissions", nargs="+", metavar="FILE",
                        help="a rules submission or a game file (YAML; docs/rules.md), or a shipped submission "
                             "by name (sic-bo-B; --list)")
    add_list_option(parser, "submission")
    add_json_option(parser, "rtp")
    parser.add_argument("--all", action="store_true", help="one line per bet, none grouped")
    parser.set_defaults(func=run)


def _fraction(value) -> str:
    return f"{value.numerator}/{value.denominator}" if value.denominator != 1 else str(value.numerator)


def _grouped(rows: list[RtpRow]) -> list[tuple[str, RtpRow]]:
    """Consecutive bets of one kind with identical figures as one labelled row:
    "split:* (60 bets)" when the group is the whole kind, else "total:10, 11"."""
    groups: list[list[RtpRow]] = []
    for row in rows:
        last = groups[-1][0] if groups else None
        if (last is not None and ":" in row.bet and last.bet.partition(":")[0] == row.bet.partition(":")[0]
                and (last.win_probability, last.rtp) == (row.win_probability, row.rtp)):
            groups[-1].append(row)
        else:
            groups.append([row])
    kind_sizes: dict[str, int] = {}
    for row in rows:
        kind = row.bet.partition(":")[0]
        kind_sizes[kind] = kind_sizes.get(kind, 0) + 1
    labelled = []
    for members in groups:
        kind = members[0].bet.partition(":")[0]
        if len(members) == 1:
            label = members[0].bet
        elif len(members) == kind_sizes[kind]:
            label = f"{kind}:* ({len(members)} bets)"
        else:
            label = f"{kind}:" + ", ".join(m.bet.partition(":")[2] for m in members)
        labelled.append((label, members[0]))
    return labelled


def _header(rules: Rules) -> list[str]:
    game = get_game(rules.game)
    lines = [f"{rules.source}: {rules.game} ({game.regulation})"
             + (f", paytable {rules.paytable}" if rules.paytable else "")]
    if rules.description:
        lines.append(f"  {rules.description}")
    if rules.options:
        lines.append("  readings: " + ", ".join(f"{k}={v}" for k, v in rules.options.items()))
    if rules.lucky is not None:
        counts = ", ".join(f"{k}: {_fraction(p)}" for k, p in rules.lucky.count)
        lines.append(f"  Lucky Numbers per round {{{counts}}} (mean {float(rules.lucky.expected_count()):.3g}) "
                     f"on {len(rules.lucky.positions)} positions")
    return lines


def _table(rules: Rules, show_all: bool) -> str:
    rows = rtp_rows(rules)
    labelled = [(r.bet, r) for r in rows] if show_all else _grouped(rows)
    head = ("bet", "win", "RTP", "edge", "win chance", "RTP (exact)", "house edge (exact)", "clause")
    body = [(label, percent(r.win_probability), percent(r.rtp, 3), percent(r.house_edge, 3),
             _fraction(r.win_probability), _fraction(r.rtp), _fraction(r.house_edge), r.clause)
            for label, r in labelled]
    widths = [max(len(str(line[i])) for line in [head, *body]) for i in range(len(head))]
    right = {1, 2, 3}
    out = []
    for line in [head, *body]:
        cells = [str(c).rjust(w) if i in right else str(c).ljust(w) for i, (c, w) in enumerate(zip(line, widths))]
        out.append("  " + "  ".join(cells).rstrip())
    return "\n".join(_header(rules) + [""] + out)


def _json(rules: Rules) -> dict:
    return {
        "tablebench": bench.__version__, "submission": rules.source, "game": rules.game, "paytable": rules.paytable,
        "options": dict(rules.options),
        "bets": [{"bet": r.bet, "win_probability": _fraction(r.win_probability), "rtp": _fraction(r.rtp),
                  "house_edge": _fraction(r.house_edge), "rtp_percent": float(r.rtp * 100),
                  "house_edge_percent": float(r.house_edge * 100), "clause": r.clause}
                 for r in rtp_rows(rules)],
    }


def run(args) -> int:
    status = Exit.OK
    lines = JsonLines("rtp") if args.json else None
    texts = []
    for path in args.submissions:
        try:
            rules = load_rules_file(path)
        except RulesError as err:
            print(f"bench rtp: {err}", file=sys.stderr)
            if lines is not None:
                lines.write("error", given=path, error=str(err))
            status = Exit.BAD_INPUT
            continue
        if lines is not None:
            lines.write("submission", **_json(rules))
        else:
            texts.append(_table(rules, args.all))
    if lines is not None:
        lines.verdict(passed=status == Exit.OK, status=status)
    elif texts:
        print("\n\n".join(texts))
    return status
