"""What a session comes to: a summary for a person, JUnit XML for CI.

The summary gives the rounds played, no rolls, violations by clause, the
observed return against the exact RTP of the wagers actually placed (the
exact figure from ``bench.rules``, weighted by stake), the outcome classes
the session covered (``bench.rules.coverage``) and, in a lightning game, the
verdict on its Lucky draws (``bench.oracle.lucky_draw``). The return figures
are of the ordinary rounds: a staged round's outcome was chosen by the bench
(``bench.play.coverage``: a triple, a no roll, a winning pocket), so its
return says nothing of the game's and is left out; the staged rounds are
listed apart.
"""

from __future__ import annotations

import copy
import math
import os
import weakref
import xml.etree.ElementTree as ET
from pathlib import Path
from xml.sax.saxutils import quoteattr
from collections import Counter
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, AbstractSet, Sequence

from bench.errors import RulesError
from tablebench_io.commandline import doc_ref
from bench.rules import get_game
from bench.rules.coverage import Coverage, coverage

if TYPE_CHECKING:
    from bench.oracle.lucky_draw import DrawVerdict

FAILURES_LISTED = 20        # failed rounds in the printed summary; the rest are counted
JUNIT_PER_CLAUSE = 10       # violations of a clause written out in one JUnit case; the rest are counted


@dataclass
class Summary:
    game: str
    rounds: int
    no_rolls: int
    staked: int
    returned: int
    expected_rtp: Fraction | None
    violations_by_clause: Counter = field(default_factory=Counter)   # every violation, counted
    violations: list = field(default_factory=list)     # the first of each clause (Oracle.keep_per_clause)
    incomplete_rounds: list[int] = field(default_factory=list)
    failures: dict[int, str] = field(default_factory=dict)
    # A controller that stayed on between sessions voided its earlier session's
    # open round at this session's HELLO: journalled, not judged (docs/protocol.md section 5).
    earlier_rounds: list[int] = field(default_factory=list)
    earlier_frames: int = 0
    played: Sequence = field(default_factory=list)    # the oracle's RoundSummary of each round settled (a RoundLog)
    clauses_by_round: dict = field(default_factory=dict)   # round (None: outside any) -> its violations by clause
    coverage: Coverage | None = None                  # the outcome classes the rounds showed
    lucky_draw: DrawVerdict | None = None             # the verdict on the Lucky draws (lightning games)
    probe_rounds: dict[int, str] = field(default_factory=dict)   # round -> the outcome staged in it
    # ``ordinary_totals`` as last counted, with the counts of rounds it was counted over: the
    # summary, summary.json and the report ask for it eight times, each a pass over every round.
    _totals: tuple = field(default=(), repr=False, compare=False)

    @property
    def violation_count(self) -> int:
        return sum(self.violations_by_clause.values())

    def ordinary_totals(self) -> tuple[int, int, int]:
        """(rounds, staked, returned) of the rounds settled whose outcome was
        not staged: what the return is measured on. Counted in one pass, with
        no list of them made (a session may have 20,000), and counted again
        only when the rounds or the probe rounds have changed in number."""
        counts = (len(self.played), len(self.probe_rounds))
        if self._totals and self._totals[0] == counts:
            return self._totals[1]
        rounds = staked = returned = 0
        for r in self.played:
            if r.round not in self.probe_rounds:
                rounds, staked, returned = rounds + 1, staked + r.staked, returned + r.returned
        self._totals = (counts, (rounds, staked, returned))
        return rounds, staked, returned

    @property
    def ordinary(self) -> list:
        """The rounds settled whose outcome was not staged."""
        return [r for r in self.played if r.round not in self.probe_rounds]

    @property
    def ordinary_staked(self) -> int:
        return self.ordinary_totals()[1]

    @property
    def ordinary_returned(self) -> int:
        return self.ordinary_totals()[2]

    @property
    def observed_rtp(self) -> Fraction | None:
        """Returned over staked in the ordinary rounds (probe rounds left out)."""
        _, staked, returned = self.ordinary_totals()
        return Fraction(returned, staked) if staked else None

    @property
    def passed(self) -> bool:
        return not self.violation_count and not self.failures

    def to_json(self) -> dict:
        return {"game": self.game, "rounds": self.rounds, "no_rolls": self.no_rolls, "staked": self.staked,
                "returned": self.returned,
                "observed_rtp": float(self.observed_rtp) if self.observed_rtp is not None else None,
                "expected_rtp": float(self.expected_rtp) if self.expected_rtp is not None else None,
                "return_measured_on": dict(zip(("rounds", "staked", "returned"), self.ordinary_totals())),
                "probe_rounds": {str(k): v for k, v in sorted(self.probe_rounds.items())},
                "violations_by_clause": dict(self.violations_by_clause),
                "incomplete_rounds": self.incomplete_rounds, "failed_rounds": self.failures,
                "earlier_session": {"voided_rounds": self.earlier_rounds, "frames": self.earlier_frames},
                "coverage": self.coverage.to_json() if self.coverage else None,
                "lucky_draw": self.lucky_draw.to_json() if self.lucky_draw else None,
                "passed": self.passed}


def ordinary_stakes(stakes_by_bet: dict[str, int], stakes_by_round: dict, leave_out) -> dict[str, int]:
    """Accepted stakes by bet over every round but those in ``leave_out``
    (the probe rounds): the session's totals less the rounds left out, which
    are the only rounds ``bench run`` keeps stakes of round by round."""
    total = dict(stakes_by_bet)
    for round_no in leave_out:
        for bet, stake in stakes_by_round.get(round_no, {}).items():
            total[bet] -= stake
    return {bet: stake for bet, stake in total.items() if stake}


def summarise(game: str, rules, oracle, failures: dict[int, str], stakes_by_bet: dict[str, int], *,
              ignore_incomplete: AbstractSet[int] = frozenset(), probe_rounds: dict[int, str] | None = None,
              staged: bool = True) -> Summary:
    """``stakes_by_bet``: the ordinary rounds' (``ordinary_stakes``), for the
    exact return of the wagers the observed return is measured on; ``staged``:
    whether the session staged outcome classes (bench.play.coverage)."""
    staked = returned = no_rolls = 0
    for summary in oracle.rounds:
        staked += summary.staked
        returned += summary.returned
        no_rolls += bool(summary.no_roll)
    game_rules = get_game(game)
    # A bet the game does not offer, accepted all the same, is a violation; it has no return to expect.
    stakes_by_bet = {bet: stake for bet, stake in stakes_by_bet.items() if _offered(game_rules, bet, rules)}
    total = sum(stakes_by_bet.values())
    expected = (sum(stake * game_rules.rtp(bet, rules) for bet, stake in stakes_by_bet.items()) / total
                if total else None)
    return Summary(game=game, rounds=len(oracle.rounds), no_rolls=no_rolls, staked=staked, returned=returned,
                   expected_rtp=expected, violations_by_clause=Counter(oracle.violations_by_clause),
                   violations=list(oracle.violations),
                   incomplete_rounds=[r for r in oracle.incomplete_rounds if r not in ignore_incomplete],
                   failures=dict(failures), played=oracle.rounds, clauses_by_round=oracle.clauses_by_round,
                   probe_rounds=dict(probe_rounds or {}),
                   earlier_rounds=list(oracle.earlier_rounds), earlier_frames=oracle.earlier_frames,
                   coverage=_coverage_of(game, rules, oracle, staged),
                   lucky_draw=getattr(oracle, "lucky_draw", None))


# The outcome classes an oracle's rounds covered, by oracle: ``bench run`` sums up its session twice
# (summary.json and JUnit, then the report's facts), and the account goes over every round (0.05 ms
# a round: a second at 20,000 rounds, after SIGTERM). Kept while the oracle lives, for as many rounds
# as it had (an oracle only gains rounds); each caller is given its own copy to add to.
_COVERAGE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _coverage_of(game: str, rules, oracle, staged: bool) -> Coverage:
    key = (game, id(rules), staged, len(oracle.rounds))
    try:
        kept_key, kept_rules, kept = _COVERAGE[oracle]
    except (KeyError, TypeError):       # TypeError: an oracle that cannot be weakly referred to
        kept_key, kept_rules, kept = None, None, None
    if kept is None or kept_key != key or kept_rules is not rules:
        kept = coverage(game, rules, ((r.round, r.throws, r.lucky) for r in oracle.rounds), staged=staged)
        try:
            _COVERAGE[oracle] = (key, rules, copy.deepcopy(kept))
        except TypeError:
            return kept
        return kept
    return copy.deepcopy(kept)


def return_interval(rounds, confidence: float = 0.95) -> tuple[float, float] | None:
    """The confidence interval of the observed return (returned / staked) over
    ``rounds`` (``RoundSummary``s). The rounds are the independent units, not
    the wagers: every wager of a round shares its outcome. The ratio
    estimator's variance, sum((r_i - R s_i)^2) * n / (n - 1) / (sum s_i)^2,
    with Student's t on n - 1 degrees of freedom: fair for tens of rounds,
    rough (and wide) for a few. None with fewer than two rounds with stakes.
    One pass over ``rounds`` (any iterable: 20,000 of them are not held), the
    sum of squares expanded, sum(r^2) - 2R sum(rs) + R^2 sum(s^2), in exact
    integers and fractions (stakes are minor units), so nothing cancels."""
    n = staked = returned = rr = rs = ss = 0
    for r in rounds:
        if r.staked > 0:
            n += 1
            staked, returned = staked + r.staked, returned + r.returned
            rr, rs, ss = rr + r.returned * r.returned, rs + r.returned * r.staked, ss + r.staked * r.staked
    if n < 2:
        return None
    ratio = Fraction(returned, staked)
    squares = rr - 2 * ratio * rs + ratio * ratio * ss
    variance = float(squares * n / (n - 1) / staked ** 2)
    from scipy.stats import t as student_t     # here, not at import: bench run's start-up stays light
    half = float(student_t.ppf(0.5 + confidence / 2, n - 1)) * math.sqrt(variance)
    return max(0.0, float(ratio) - half), float(ratio) + half


def _offered(game_rules, bet: str, rules) -> bool:
    try:
        game_rules.check_bet(bet, rules)
    except RulesError:
        return False
    return True


def format_summary(summary: Summary, journal: str | None = None, head: str | None = None, *,
                   ending: str | None = None, reason: str | None = None) -> str:
    """``ending`` and ``reason``: how a session that stopped early ended (``bench.journal.ending``)."""
    pct = lambda f: "n/a" if f is None else f"{float(f) * 100:.2f}%"   # noqa: E731
    probes = sorted(summary.probe_rounds)
    lines = [f"{summary.game}: {summary.rounds} rounds settled, {summary.no_rolls} no rolls, "
             f"staked {summary.staked}, returned {summary.returned} (minor units)",
             f"  return to player: observed {pct(summary.observed_rtp)}, exact for these wagers "
             f"{pct(summary.expected_rtp)}"
             + (f" (over {len(summary.ordinary)} ordinary rounds; probe round{'s' * (len(probes) != 1)} "
                f"{', '.join(map(str, probes))}, staged, left out)" if probes else "")]
    if summary.violations_by_clause:
        lines.append("  violations by clause:")
        for clause, count in sorted(summary.violations_by_clause.items()):
            lines.append(f"    {clause}: {count}")
        for violation in summary.violations[:10]:
            lines.append(f"    round {violation.round}, frame {violation.frame}: {violation.clause}: {violation.message}")
        if summary.violation_count > 10:
            lines.append(f"    ... and {summary.violation_count - 10} more in the journal")
    else:
        lines.append("  violations: none")
    if summary.coverage is not None:
        lines.append(f"  {summary.coverage.line()}")
    if summary.lucky_draw is not None:
        lines.append(f"  {summary.lucky_draw.line()}")
    failed = sorted(summary.failures.items())
    for round_no, failure in failed[:FAILURES_LISTED]:
        lines.append(f"  round {round_no} failed: {failure}")
    if len(failed) > FAILURES_LISTED:
        lines.append(f"  ... and {len(failed) - FAILURES_LISTED} more failed rounds in the journal")
    if summary.earlier_rounds or summary.earlier_frames:
        voided = ", ".join(map(str, summary.earlier_rounds)) or "none"
        lines.append(f"  the controller's earlier session: round(s) {voided} voided at the bench's HELLO, "
                     f"{summary.earlier_frames} frame(s) still in flight; journalled, not judged "
                     f"({doc_ref('protocol', 5)})")
    if reason:
        lines.append(f"  session ended early ({ending}): {reason}")
    if journal:
        lines.append(f"  journal: {journal}" + (f" (head {head[:16]}…)" if head else ""))
    lines.append("PASS" if summary.passed and not reason else "FAIL")
    return "\n".join(lines)


def _outcome_words(played) -> str:
    if played.no_roll:
        return "no roll"
    outcome = played.outcome
    if isinstance(outcome, tuple) and outcome and isinstance(outcome[0], tuple):
        return "rolls " + ", ".join("-".join(map(str, roll)) for roll in outcome)
    if isinstance(outcome, (tuple, list)):
        return "faces " + " ".join(map(str, outcome))
    return f"pocket {outcome}" if outcome is not None else "none"


def _properties(case, clauses, **more) -> None:
    """A test case's ``<properties>``: each clause it was judged by, then the rest."""
    properties = ET.SubElement(case, "properties")
    for clause in clauses:
        ET.SubElement(properties, "property", name="clause", value=clause)
    for name, value in more.items():
        if value is not None:
            ET.SubElement(properties, "property", name=name, value=str(value))


def write_junit(path, summary: Summary, suite_name: str, *, ending: str | None = None,
                reason: str | None = None) -> None:
    """One testcase per round, named by the round; a round fails with its
    violations (the first ``JUNIT_PER_CLAUSE`` of each clause written out,
    the rest counted: every one is in the journal). Each carries as
    properties the clauses it was judged by (every clause ordering a round
    of the game, and any clause it violated) and its outcome, so a CI server
    can group the results by clause. Violations outside any round make one
    ``session`` case; a session that stopped early (``reason``) adds a
    ``session`` case in error. Written a case at a time (a session of 20,000
    rounds never holds its whole XML tree) to a file beside, renamed when
    whole: a half-written file is worse than none to a CI server."""
    path = Path(path)
    partial = path.with_name(path.name + ".partial")
    try:
        with open(partial, "w", encoding="utf-8") as out:
            for text in _junit_text(summary, suite_name, ending, reason):
                out.write(text)
        os.replace(partial, path)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise


_NAME = "\x00name\x00"          # where a passed round's name goes in its case's text (no outcome holds it)


def _junit_text(summary: Summary, suite_name: str, ending: str | None, reason: str | None):
    """The JUnit file, piece by piece: the suite's opening tag, each case, the end."""
    from bench.oracle import PHASE_CLAUSES
    judged_by = set(PHASE_CLAUSES.get(summary.game, {}).values())
    played = summary.played
    index = {round_no: i for i, round_no in enumerate(r.round for r in played)}
    by_round = summary.clauses_by_round
    listed: dict[int | None, list] = {}
    for violation in summary.violations:
        listed.setdefault(violation.round, []).append(violation)
    rounds = sorted({s for s in range(1, summary.rounds + 1)} | {r for r in by_round if r is not None}
                    | set(summary.failures))
    outside = by_round.get(None)
    tests = len(rounds) + bool(outside) + bool(reason)
    failures = sum(1 for r in rounds if by_round.get(r)) + bool(outside)
    errors = sum(1 for r in rounds if r in summary.failures) + bool(reason)
    classname = f"bench.{summary.game}"
    yield (f"<?xml version='1.0' encoding='utf-8'?>\n<testsuite name={quoteattr(suite_name)} tests=\"{tests}\" "
           f"failures=\"{failures}\" errors=\"{errors}\">")
    # A round that passed differs from another with its outcome only in its name: its case is
    # ElementTree's text for that outcome, made once, with the name put in (a tenth of the cost a
    # round; ``bench run`` writes JUnit after SIGTERM too).
    passed: dict[str | None, list[str]] = {}
    for round_no in rounds:
        clauses = by_round.get(round_no) or Counter()
        outcome = _outcome_words(played[index[round_no]]) if round_no in index else None
        if not clauses and round_no not in summary.failures:
            text = passed.get(outcome)
            if text is None:
                case = ET.Element("testcase", classname=classname, name=_NAME)
                _properties(case, sorted(judged_by), outcome=outcome)
                text = passed[outcome] = ET.tostring(case, encoding="unicode").split(_NAME)
            yield f"{text[0]}round {round_no}{text[1]}"    # "round N" is as ElementTree escapes it
            continue
        case = ET.Element("testcase", classname=classname, name=f"round {round_no}")
        _properties(case, sorted(judged_by | set(clauses)), outcome=outcome,
                    violated=", ".join(sorted(clauses)) or None)
        if clauses:
            failure = ET.SubElement(case, "failure", message="; ".join(sorted(clauses)))
            failure.text = _failure_text(listed.get(round_no, ()), clauses)
        if round_no in summary.failures:
            ET.SubElement(case, "error", message=summary.failures[round_no])
        yield ET.tostring(case, encoding="unicode")
    if outside:
        case = ET.Element("testcase", classname=classname, name="session")
        _properties(case, sorted(outside), violated=", ".join(sorted(outside)))
        failure = ET.SubElement(case, "failure", message="; ".join(sorted(outside)))
        failure.text = _failure_text(listed.get(None, ()), outside)
        yield ET.tostring(case, encoding="unicode")
    if reason:
        case = ET.Element("testcase", classname=classname, name="session")
        ET.SubElement(case, "error", message=f"{ending}: {reason}")
        yield ET.tostring(case, encoding="unicode")
    yield "</testsuite>\n"


def _failure_text(listed, clauses: Counter) -> str:
    """The violations of one case: the first JUNIT_PER_CLAUSE of each clause
    (of those the oracle kept), then how many more."""
    lines: list[str] = []
    shown: Counter[str] = Counter()
    for v in listed:
        if shown[v.clause] < JUNIT_PER_CLAUSE:
            shown[v.clause] += 1
            lines.append(f"{v.clause}: {v.message} (frame {v.frame})")
    for clause, count in sorted(clauses.items()):
        if count > shown[clause]:
            lines.append(f"{clause}: {'… and ' if shown[clause] else ''}{count - shown[clause]} "
                         f"{'more ' if shown[clause] else ''}violation{'s' * (count - shown[clause] != 1)} "
                         "in this round (every one is in the journal)")
    return "\n".join(lines)
