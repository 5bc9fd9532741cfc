"""``bench settle [--submission FILE]``: settle rounds given as JSON lines on stdin."""

from __future__ import annotations

import argparse
import json
import sys

from bench.errors import RulesError
from tablebench_io.jsonline import MAX_BYTES, JsonLineError, numbered_lines, parse_line
from bench.rules.settle_json import settle_line
from bench.rules.submission import load_submission
from tablebench_io.commandline import Exit
from tablebench_io.json_lines import JsonLines, add_json_option

DESCRIPTION = """\
Reads one round per line of JSON on stdin and writes one line of JSON per
settled round on stdout, in the same order:

  in:  {"game": "sic-bo", "paytable": "A", "dice": [2, 2, 5],
        "wagers": [{"id": "w1", "bet": "single:2", "stake": 100}]}
  out: {"line": 1, "settlements": [{"id": "w1", "returned": 300, "clause": "625a.6(b)(2)"}]}

"returned" is everything handed back to the player, stake included, in
integer minor units (0 for a loss; "N to 1" returns stake * (N + 1)); "clause"
is the regulation clause that decided the wager. "line" is the input line
number; an optional "round" field of the input is echoed back.

Exit status: 0 every line settled, 2 a bad line or submission (the other
lines are still settled), 4 interrupted.

With --json
the same, each line with "schema": "tablebench.settle/1" and "record":
"settlement", a bad line as an "error" line, and a last "verdict" line
(docs/json.md).

Round fields by game:
  sic-bo              "paytable": "A" | "B" (58 Pa. Code 625a.6(a)), "dice": [d1, d2, d3]
  lightning-dice      "dice", "lucky": [{"bet": "total:11", "pays": 49}, ...]
                      (2-4 Lucky Numbers, 625b.2(d)(2); pays = N of "N to 1",
                      within 625b.2(g)(3)); "no_roll": true when a die did not
                      land flat (625b.2(d)(5); "dice" may then be left out), or
                      "flat": [true, false, true] to let the rules decide
  lightning-roulette  "pocket": 0-36, "lucky": [{"bet": "straight:17", "pays": 499}]
                      (1-5 Lucky Numbers, 617c.3(d); pays from 617c.3(g))
  dice-ology          "paytable": 1 | 2, "rolls": [[1, 2], [3, 3], ...] (the
                      two-dice rolls made after the bets, come-out first)

Bet names:
  dice (sic-bo; lightning-dice offers low, high, any-double, any-triple, total:3-18):
    small, big         totals 4-10 / 11-17, lose on any three of a kind (625a.3(6),(7))
    low, high          lightning-dice: the small / big bet (625b.2(e)(1),(2))
    any-double         two dice alike (625b.2(e)(3))
    any-triple         all three dice alike (625a.3(3), 625b.2(e)(4))
    total:N            the three dice sum to N: 4-17 sic-bo, 3-18 lightning-dice
    triple:N           three of a kind: N on all three dice (625a.3(1))
    double:N           two of a kind: N on two of the three dice (625a.3(2))
    combo:A-B          two dice combination, A < B both showing (625a.3(5))
    single:N           one of a kind: N on one or more dice, paid by count (625a.6(b))
  roulette:
    straight:N         one number 0-36: 29 to 1, or its Lucky payout (617c.3(e),(f))
    split:A-B          two adjacent numbers, low first (0-1, 0-2, 0-3 included): 17 to 1
    street:N           the row of three starting at N (1, 4, .. 34): 11 to 1
    corner:A-B-C-D     four numbers meeting at a corner, low first (and 0-1-2-3): 8 to 1
    six-line:N         two rows starting at N (1, 4, .. 31): 5 to 1
    dozen:1|2|3        1-12, 13-24, 25-36: 2 to 1
    column:1|2|3       the column starting at 1, 2 or 3: 2 to 1
    red, black, odd, even, 1-18, 19-36: 1 to 1 (all lose on 0)
  dice-ology (S.D. Admin. R. 20:18:33:14):
    little-ones        2, 3, 4, 5 and 6 all rolled before a seven: 34 / 30 to 1
    big-ones           8, 9, 10, 11 and 12 all rolled before a seven: 34 / 30 to 1
    boom-or-bust       all of 2-6 and 8-12 rolled before a seven: 175 / 150 to 1
    A bet still unresolved after the given rolls comes back with "open": true
    and "returned": 0 (it stays on the layout).

With --submission FILE the paytable and the readings of the ambiguous clauses
come from that rules submission (every line must then be its game; a line's
own "paytable" must agree). See docs/rules.md for the readings.

A bad line (not JSON, unknown game or bet, a bet the game does not offer,
dice out of range, a negative stake, ...) is reported on stderr with its line
number and field; the other lines are still settled, and the exit status is 2.
"""


def register(subparsers) -> None:
    parser = subparsers.add_parser("settle", help="settle rounds given as JSON lines on stdin",
                                   description=DESCRIPTION,
                                   formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--submission", metavar="FILE",
                        help="take the paytable and rules from this rules submission (YAML)")
    add_json_option(parser, "settle")    # the same settlements, each a "settlement" line; bad lines; the verdict
    parser.set_defaults(func=run)


def run(args) -> int:
    rules = None
    if args.submission:
        try:
            rules = load_submission(args.submission)
        except RulesError as err:
            print(f"bench settle: {err}", file=sys.stderr)
            return Exit.BAD_INPUT
    lines = JsonLines("settle") if args.json else None
    status, settled, bad = Exit.OK, 0, 0
    for number, text in numbered_lines(sys.stdin.buffer):
        if text is not None and not text.strip():
            continue
        try:
            if text is None:
                raise RulesError(f"a line over the {MAX_BYTES}-byte limit")
            result = settle_line(parse_line(text), rules)
        except (RulesError, JsonLineError) as err:
            print(f"bench settle: line {number}: {err}", file=sys.stderr)
            if lines is not None:
                lines.write("error", line=number, error=str(err))
            status, bad = Exit.BAD_INPUT, bad + 1
            continue
        settled += 1
        if lines is not None:
            lines.write("settlement", line=number, **result)
        else:
            print(json.dumps({"line": number, **result}), flush=True)
    if lines is not None:
        lines.verdict(passed=status == Exit.OK, status=status, settled=settled, bad_lines=bad)
    return status
