"""The fleet judged together (``bench archive judge``; docs/archive.md, "What
the fleet statistics say and do not say").

For each table (or each table and dealer, dice set or wheel) and period, over
the rounds bench run did not stage (a staged outcome is chosen, not drawn):

- ``return``: the rounds' returns against the exact return of the wagers
  accepted (sum of stake x exact RTP, ``bench.rules``), a two-sided t-test on
  the per-round differences, the rounds the independent units: reported, not
  judged (``_return_test`` says why; what a return is made of is judged);
- ``no-roll``: the group's no-roll rate against the rest of the fleet's of the
  same game (an exact binomial test; no regulation fixes the rate: a tower
  that drifts from its siblings is what is found);
- ``outcome``: the faces of the settling throw (or the pockets) against a
  fair die's (or wheel's) equal chances, chi-square;
- ``lucky``: the Lucky draws against the rules submission's distribution,
  each position an exact binomial test, and the count and each odds
  distribution one test each (the smallest of its values' exact binomial
  p-values times their number), Holm within the family
  (``bench.archive.lucky_exact``: the oracle's chi-squares are too rough in
  the far tail the fleet's correction reads), whose smallest adjusted p is
  the group's;
- ``trend`` (a table over two periods or more): its no-roll rate the same in
  every period, a chi-square test of homogeneity.

Every p-value of the fleet is one family, controlled at false-discovery rate
``fdr`` by Benjamini-Hochberg (scipy.stats.false_discovery_control): of the
groups flagged, a fraction ``fdr`` or less are fair ones, on average. A
violation journalled for a round (a rule broken in a round) flags its group
whatever the statistics; a session's own statistical verdict on its Lucky
draw (at 99%, journalled with no round) is not counted as one: it is the same
question the fleet's ``lucky`` test asks with the fleet's correction.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

from bench.archive.query import connect
from bench.archive.store import Archive

CORRECTION = "Benjamini-Hochberg over every p-value of the fleet (scipy.stats.false_discovery_control)"
# 58 Pa. Code § 810a.5(c): randomness judged at a confidence of 95%; the fleet's reading of it
# is a false-discovery rate of 5% over all its tests at once (--fdr).
DEFAULT_FDR = 0.05
BY = ("table", "dealer", "dice_set", "wheel_id")
PERIODS = ("day", "week", "month", "all")
TESTS = ("return", "no-roll", "outcome", "lucky", "trend")


@dataclass
class Test:
    test: str
    p: float
    detail: str
    clause: str | None = None
    q: float | None = 1.0
    flagged: bool = False
    judged: bool = True     # in the fleet's family (a test whose approximation fails is reported only)

    def to_json(self) -> dict[str, Any]:
        return {"test": self.test, "p": self.p, "q": self.q, "flagged": self.flagged, "detail": self.detail,
                "clause": self.clause, "judged": self.judged}


@dataclass
class Group:
    table: str
    group_by: str
    group: str
    period: str
    game: str
    rounds: int = 0
    violations: int = 0
    tests: list[Test] = field(default_factory=list)

    @property
    def flagged(self) -> bool:
        return self.violations > 0 or any(t.flagged for t in self.tests)

    def to_json(self) -> dict[str, Any]:
        return {"table": self.table, "group_by": self.group_by, "group": self.group, "period": self.period,
                "game": self.game, "rounds": self.rounds, "violations": self.violations, "flagged": self.flagged,
                "tests": [t.to_json() for t in self.tests]}


@dataclass
class Fleet:
    groups: list[Group]
    trends: list[Group]
    fdr: float
    by: str
    period: str
    tables: int
    journals: int

    @property
    def flagged_tables(self) -> list[str]:
        return sorted({g.table for g in self.groups + self.trends if g.flagged})

    @property
    def tests(self) -> int:
        return sum(len(g.tests) for g in self.groups + self.trends)


def period_of(day: str, period: str) -> str:
    """The period a UTC day falls in: the day, its ISO week, its month, or all."""
    import datetime as dt
    if period == "day":
        return day
    if period == "month":
        return day[:7]
    if period == "week":
        try:
            year, week, _ = dt.date.fromisoformat(day).isocalendar()
        except ValueError:
            return day
        return f"{year}-W{week:02d}"
    return "all"


def symbol_range(game: str) -> range:
    """The values a fair outcome's symbols take with equal chances: a die's faces, or the wheel's
    pockets (asked of the game's outcome kind, bench.rules)."""
    from bench.rules import describe
    kind = describe(game).outcome
    return range(1, 7) if kind.dice_count or kind.series else range(getattr(kind, "POCKETS", 0))


def _return_test(n: int, total: float, squares: float, staked: int, exact: float) -> Test | None:
    """The t-test of the per-round differences (returned less exact return),
    reported and not judged (``judged`` False: kept out of the fleet's family).
    A lightning game's rare payouts of hundreds of times the stake make those
    differences so skewed that the t approximation fails over hundreds of
    rounds, both ways: rounds without a big win look like a short-paying table
    (benchmarks/archive_bench.py fdr: fair tables at t = -3.2 and 3.8 in 150
    rounds; the sample skewness, itself short of the rare wins, did not warn).
    What a return is made of is judged exactly elsewhere: each settlement
    against the rules by the oracle (a violation flags the table), the outcomes
    and the Lucky draws by their own tests."""
    from scipy.stats import t as student_t
    if n < 3 or staked <= 0:
        return None
    variance = (squares - total * total / n) / (n - 1)
    observed, expected = (exact + total) / staked, exact / staked
    detail = f"returned {observed:.4%} of stakes against {expected:.4%} exact over {n} rounds"
    if variance <= 0:
        return Test("return", 1.0 if total == 0 else 0.0, detail, judged=False)
    statistic = (total / n) / math.sqrt(variance / n)
    return Test("return", float(2 * student_t.sf(abs(statistic), n - 1)),
                detail + f" (t = {statistic:.2f}; reported, not judged: the t approximation fails on so skewed a "
                         "return)", judged=False)


def _outcome_test(counts: Counter, values: range) -> Test | None:
    from scipy.stats import chisquare
    observed = [counts.get(v, 0) for v in values]
    total = sum(observed)
    if total < 5 * len(values):       # chi-square's rule of thumb: 5 expected a cell
        return None
    p = float(chisquare(observed).pvalue)
    least, most = min(observed), max(observed)
    return Test("outcome", p, f"{total} faces or pockets; each seen {least} to {most} times, {total / len(values):.1f} "
                              "expected")


def _binomial(k: int, n: int, rate: float, what: str) -> Test | None:
    from scipy.stats import binomtest
    if n == 0 or not 0 < rate < 1:
        return None
    return Test("no-roll", float(binomtest(k, n, rate).pvalue),
                f"{k} {what} in {n} rounds ({k / n:.2%}) against the rest of the fleet's {rate:.2%}")


def load(archive: Archive, by: str) -> tuple[list[tuple], dict[tuple, list], Counter, dict[str, int]]:
    """(rounds, Lucky draws by (journal, round), violations by (table, label, day), tables' journals)."""
    label = "\"table\"" if by == "table" else f"coalesce({by}, '-')"
    con = connect(archive)
    try:
        rounds = con.execute(
            f"SELECT \"table\", {label}, day, journal, round, game, no_roll, staked, returned - exact_return, "
            "exact_return, symbols FROM rounds WHERE staged IS NULL ORDER BY \"table\", day, journal, round").fetchall()
        draws: dict[tuple, list] = defaultdict(list)
        for journal, round_no, bet, pays in con.execute(
                "SELECT l.journal, l.round, l.bet, l.pays FROM lucky l JOIN rounds r ON l.journal = r.journal AND "
                "l.round = r.round AND l.day = r.day WHERE r.staged IS NULL ORDER BY l.journal, l.round, l.position"
        ).fetchall():
            draws[journal, round_no].append((bet, pays))
        violations: Counter = Counter()
        label_r = "r.\"table\"" if by == "table" else f"coalesce(r.{by}, '-')"
        for table, group, day, count in con.execute(
                f"SELECT r.\"table\", {label_r}, r.day, count(*) FROM violations v JOIN rounds r "
                "ON v.journal = r.journal AND v.round = r.round GROUP BY 1, 2, 3").fetchall():
            violations[table, group, day] += count
        journals = dict(con.execute("SELECT \"table\", count(*) FROM journals GROUP BY 1").fetchall())
    finally:
        con.close()
    return rounds, draws, violations, journals


def judge_fleet(archive: Archive, *, by: str = "table", period: str = "day", fdr: float = DEFAULT_FDR) -> Fleet:
    from scipy.stats import false_discovery_control

    from bench.archive.rules_of import lucky_judge
    rounds, draws, violations, journals = load(archive, by)
    groups: dict[tuple[str, str, str], Group] = {}
    # n, Σd, Σd², staked, exact, no-rolls (d: a round's return less its exact return)
    sums: dict[tuple, list[float]] = defaultdict(lambda: [0, 0.0, 0.0, 0, 0.0, 0])
    faces: dict[tuple, Counter] = defaultdict(Counter)
    lucky: dict[tuple, list] = defaultdict(list)
    journal_of: dict[tuple, str] = {}
    for table, group, day, journal, round_no, game, no_roll, staked, difference, exact, symbols in rounds:
        key = (table, str(group), period_of(day, period))
        if key not in groups:
            groups[key] = Group(table, by, str(group), key[2], game)
        groups[key].rounds += 1
        s = sums[key]
        s[0] += 1
        s[5] += bool(no_roll)
        if staked:
            s[1] += difference
            s[2] += difference * difference
            s[3] += staked
            s[4] += exact
        if not no_roll:
            faces[key].update(symbols or ())
        if (journal, round_no) in draws:
            lucky[key].append(draws[journal, round_no])
        journal_of.setdefault(key, journal)
    for (table, group, day), count in violations.items():
        key = (table, str(group), period_of(day, period))
        if key in groups:
            groups[key].violations += count
    no_rolls_by_game: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for key, g in groups.items():
        no_rolls_by_game[g.game][0] += int(sums[key][5])
        no_rolls_by_game[g.game][1] += int(sums[key][0])
    ranges: dict[str, range] = {}
    for key, g in groups.items():
        n, total, squares, staked, exact, no_rolls = sums[key]
        found = [_return_test(int(n), total, squares, int(staked), exact)]
        rest_k, rest_n = no_rolls_by_game[g.game][0] - int(no_rolls), no_rolls_by_game[g.game][1] - int(n)
        if rest_n and rest_k:
            found.append(_binomial(int(no_rolls), int(n), rest_k / rest_n, "no rolls"))
        values = ranges.setdefault(g.game, symbol_range(g.game))
        found.append(_outcome_test(faces[key], values))
        if lucky[key]:
            judged = lucky_judge(archive, journal_of[key], lucky[key])
            found.append(None if judged is None else Test("lucky", *judged))
        g.tests = [t for t in found if t is not None]
    trends = _trends(groups, sums) if len({k[2] for k in groups}) > 1 else []
    every = [t for g in list(groups.values()) + trends for t in g.tests if t.judged]
    for g in list(groups.values()) + trends:
        for t in g.tests:
            if not t.judged:
                t.q = None
    if every:
        adjusted = false_discovery_control([min(1.0, max(0.0, t.p)) for t in every], method="bh")
        for t, q in zip(every, adjusted):
            t.q, t.flagged = float(q), bool(q <= fdr)
    ordered = sorted(groups.values(), key=lambda g: (g.table, g.group, g.period))
    return Fleet(ordered, trends, fdr, by, period, len({g.table for g in ordered}), sum(journals.values()))


def _trends(groups: dict[tuple, Group], sums: dict[tuple, list[float]]) -> list[Group]:
    """Each table's (or label's) no-roll rate across its periods: one rate throughout?"""
    from scipy.stats import chi2_contingency
    by_group: dict[tuple[str, str], list[tuple]] = defaultdict(list)
    for key in groups:
        by_group[key[0], key[1]].append(key)
    found = []
    for (table, label), keys in sorted(by_group.items()):
        if len(keys) < 2:
            continue
        rows = [[int(sums[k][5]), int(sums[k][0] - sums[k][5])] for k in sorted(keys, key=lambda k: k[2])]
        first = groups[keys[0]]
        trend = Group(table, first.group_by, label, "trend", first.game, sum(int(sums[k][0]) for k in keys))
        if sum(r[0] for r in rows) and sum(r[1] for r in rows):
            p = float(chi2_contingency(rows).pvalue)
            rates = ", ".join(f"{r[0] / max(1, r[0] + r[1]):.1%}" for r in rows)
            trend.tests = [Test("trend", p, f"no-roll rate by period {rates}: the same throughout?")]
        found.append(trend)
    return found
