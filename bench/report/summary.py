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

import math
import xml.etree.ElementTree as ET
from collections import Counter
from dataclasses import dataclass, field
from fractions import Fraction

from bench.errors import RulesError
from bench.rules import get_game
from bench.rules.coverage import Coverage, coverage


@dataclass
class Summary:
    game: str
    rounds: int
    no_rolls: int
    staked: int
    returned: int
    expected_rtp: Fraction | None
    violations_by_clause: Counter = field(default_factory=Counter)
    violations: list = field(default_factory=list)
    incomplete_rounds: list[int] = field(default_factory=list)
    failures: dict[int, str] = field(default_factory=dict)
    played: list = field(default_factory=list)        # the oracle's RoundSummary of each round settled
    coverage: Coverage | None = None                  # the outcome classes the rounds showed
    lucky_draw: object = None                         # bench.oracle.lucky_draw.DrawVerdict (lightning games)
    probe_rounds: dict[int, str] = field(default_factory=dict)   # round -> the outcome staged in it

    @property
    def ordinary(self) -> list:
        """The rounds settled whose outcome was not staged: what the return is measured on."""
        return [r for r in self.played if r.round not in self.probe_rounds]

    @property
    def ordinary_staked(self) -> int:
        return sum(r.staked for r in self.ordinary)

    @property
    def ordinary_returned(self) -> int:
        return sum(r.returned for r in self.ordinary)

    @property
    def observed_rtp(self) -> Fraction | None:
        """Returned over staked in the ordinary rounds (probe rounds left out)."""
        staked = self.ordinary_staked
        return Fraction(self.ordinary_returned, staked) if staked else None

    @property
    def passed(self) -> bool:
        return not self.violations and not self.failures

    def to_json(self) -> dict:
        return {"game": self.game, "rounds": self.rounds, "no_rolls": self.no_rolls, "staked": self.staked,
                "returned": self.returned,
                "observed_rtp": float(self.observed_rtp) if self.observed_rtp is not None else None,
                "expected_rtp": float(self.expected_rtp) if self.expected_rtp is not None else None,
                "return_measured_on": {"rounds": len(self.ordinary), "staked": self.ordinary_staked,
                                       "returned": self.ordinary_returned},
                "probe_rounds": {str(k): v for k, v in sorted(self.probe_rounds.items())},
                "violations_by_clause": dict(self.violations_by_clause),
                "incomplete_rounds": self.incomplete_rounds, "failed_rounds": self.failures,
                "coverage": self.coverage.to_json() if self.coverage else None,
                "lucky_draw": self.lucky_draw.to_json() if self.lucky_draw else None,
                "passed": self.passed}


def stakes_of_rounds(stakes_by_round: dict, leave_out) -> dict[str, int]:
    """Accepted stakes by bet over every round but those in ``leave_out`` (the probe rounds)."""
    total: dict[str, int] = {}
    for round_no, stakes in stakes_by_round.items():
        if round_no not in leave_out:
            for bet, stake in stakes.items():
                total[bet] = total.get(bet, 0) + stake
    return total


def summarise(game: str, rules, oracle, failures: dict[int, str], stakes_by_bet: dict[str, int], *,
              ignore_incomplete: set[int] = frozenset(), probe_rounds: dict[int, str] | None = None,
              staged: bool = True) -> Summary:
    """``stakes_by_bet``: the ordinary rounds' (``stakes_of_rounds``), for the
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
                   expected_rtp=expected, violations_by_clause=Counter(v.clause for v in oracle.violations),
                   violations=list(oracle.violations),
                   incomplete_rounds=[r for r in oracle.incomplete_rounds if r not in ignore_incomplete],
                   failures=dict(failures), played=list(oracle.rounds), probe_rounds=dict(probe_rounds or {}),
                   coverage=coverage(game, rules, [(r.round, r.throws, r.lucky) for r in oracle.rounds],
                                     staged=staged),
                   lucky_draw=getattr(oracle, "lucky_draw", None))


def return_interval(rounds, confidence: float = 0.95) -> tuple[float, float] | None:
    """The confidence interval of the observed return (returned / staked) over
    ``rounds`` (``RoundSummary``s). The rounds are the independent units, not
    the wagers: every wager of a round shares its outcome. The ratio
    estimator's variance, sum((r_i - R s_i)^2) * n / (n - 1) / (sum s_i)^2,
    with Student's t on n - 1 degrees of freedom: fair for tens of rounds,
    rough (and wide) for a few. None with fewer than two rounds with stakes."""
    from scipy.special import stdtrit      # Student's t quantile (scipy.stats takes seconds to import)
    played = [(r.staked, r.returned) for r in rounds if r.staked > 0]
    if len(played) < 2:
        return None
    staked = sum(s for s, _ in played)
    ratio = sum(r for _, r in played) / staked
    n = len(played)
    variance = sum((r - ratio * s) ** 2 for s, r in played) * n / (n - 1) / staked ** 2
    half = float(stdtrit(n - 1, 0.5 + confidence / 2)) * math.sqrt(variance)
    return max(0.0, ratio - half), ratio + half


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
        if len(summary.violations) > 10:
            lines.append(f"    ... and {len(summary.violations) - 10} more in the journal")
    else:
        lines.append("  violations: none")
    if summary.coverage is not None:
        lines.append(f"  {summary.coverage.line()}")
    if summary.lucky_draw is not None:
        lines.append(f"  {summary.lucky_draw.line()}")
    for round_no, failure in sorted(summary.failures.items()):
        lines.append(f"  round {round_no} failed: {failure}")
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
    """One testcase per round, named by the round; a round fails with every
    violation in it. Each carries as properties the clauses it was judged by
    (every clause ordering a round of the game, and any clause it violated)
    and its outcome, so a CI server can group the results by clause. A
    session that stopped early (``reason``) adds a ``session`` case in error."""
    from bench.oracle import PHASE_CLAUSES
    judged_by = set(PHASE_CLAUSES.get(summary.game, {}).values())
    played = {r.round: r for r in summary.played}
    by_round: dict[int | None, list] = {}
    for violation in summary.violations:
        by_round.setdefault(violation.round, []).append(violation)
    suite = ET.Element("testsuite", name=suite_name)
    rounds = sorted({s for s in range(1, summary.rounds + 1)} | {r for r in by_round if r is not None}
                    | set(summary.failures))
    failures = errors = 0
    for round_no in rounds:
        case = ET.SubElement(suite, "testcase", classname=f"bench.{summary.game}", name=f"round {round_no}")
        found = by_round.get(round_no, [])
        _properties(case, sorted(judged_by | {v.clause for v in found}),
                    outcome=_outcome_words(played[round_no]) if round_no in played else None,
                    violated=", ".join(sorted({v.clause for v in found})) or None)
        if found:
            failures += 1
            failure = ET.SubElement(case, "failure", message="; ".join(sorted({v.clause for v in found})))
            failure.text = "\n".join(f"{v.clause}: {v.message} (frame {v.frame})" for v in found)
        if round_no in summary.failures:
            errors += 1
            ET.SubElement(case, "error", message=summary.failures[round_no])
    for violation in by_round.get(None, []):
        failures += 1
        case = ET.SubElement(suite, "testcase", classname=f"bench.{summary.game}", name="session")
        _properties(case, [violation.clause], violated=violation.clause)
        ET.SubElement(case, "failure", message=violation.clause).text = violation.message
    if reason:
        errors += 1
        case = ET.SubElement(suite, "testcase", classname=f"bench.{summary.game}", name="session")
        ET.SubElement(case, "error", message=f"{ending}: {reason}")
    suite.set("tests", str(len(suite)))
    suite.set("failures", str(failures))
    suite.set("errors", str(errors))
    ET.ElementTree(suite).write(path, encoding="utf-8", xml_declaration=True)
