"""The judge of the RNG battery of § 810a.5 (``bench rng``): each test of
810a.5(c) by the words bench rng names it with (``RNG_TESTS``), a clause
each, a test too short to run a caution; the clauses of 810a.5(a) as the
family of tests reads them.

Apart from the other judges because it alone reads the battery's output,
with its own mapping of tests to clauses.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from bench.certify.command_output import _verdict_line, json_lines
from bench.certify.step_records import CAUTION, FAIL, PASS, Evidence, Outcome, _rel, row_state

# The tests 810a.5(c) lists, by the words bench rng names them with: a test too short to
# run is a caution on its clause, not a silence.
RNG_TESTS = {
    "chi-square": "810a.5(c)(1)", "equi-distribution": "810a.5(c)(2)", "gap": "810a.5(c)(3)",
    "overlaps": "810a.5(c)(4)", "poker": "810a.5(c)(5)", "coupon": "810a.5(c)(6)", "permutation": "810a.5(c)(7)",
    "kolmogorov": "810a.5(c)(8)", "adjacency": "810a.5(c)(9)", "order statistic": "810a.5(c)(10)",
    "runs": "810a.5(c)(11)", "interplay": "810a.5(c)(12)", "serial": "810a.5(c)(13)",
    "independence of the previous game": "810a.5(c)(13)", "subsequence": "810a.5(c)(14)", "poisson": "810a.5(c)(15)",
}


def _rng_sources(lines: list[dict[str, Any]]) -> str:
    """What the battery read, in words: the collection over the link, the sessions' Lucky draws, or both."""
    sources = {str(t.get("source") or "") for t in lines if t.get("record") in ("test", "too-short")}
    sources |= {str(t.get("reason") or "").split(":", 1)[0] for t in lines if t.get("record") == "too-short"}
    collected = any(s.startswith(("raw(", "scaled(")) for s in sources)
    drawn = any(s.startswith("lucky") for s in sources)
    parts = (["the raw and scaled values collected over the link"] if collected else []) + \
        (["the sessions' Lucky draws"] if drawn or not collected else [])
    return " and ".join(parts)


def _judge_rng(folder: Path, statuses: list[int], where: str) -> Outcome:
    """The RNG family's tests, Holm-corrected by bench rng, a clause each; its too-short tests a caution.
    The physical family (the dice faces or pockets the sessions showed) is the design's, judged by the
    fairness campaign on unstaged drops: it is reported in the summary, not as a clause of § 810a.5."""
    lines = json_lines(folder / "rng.jsonl")
    verdict = _verdict_line(lines)
    if statuses[-1] not in (0, 1) or not verdict:
        return Outcome("error", f"bench rng could not collect or judge (exit {statuses}; see stderr.txt)")
    if statuses[0] == 1 and len(statuses) > 1 and (folder / "collection.jsonl").exists():
        said = _verdict_line(json_lines(folder / "collection.jsonl"))
        return Outcome(FAIL, f"the controller answered the raw RNG exchange wrongly: {said.get('error', '')}"[:300],
                       [Evidence("protocol", "bench rng --collect: the raw RNG exchange", "one exchange", FAIL)])
    page = _rel(where, "report.html") if (folder / "report.html").exists() else None
    by_clause: dict[str, list[dict[str, Any]]] = {}
    for line in lines:
        if line.get("record") == "test" and line.get("family") == "rng" and line.get("clause"):
            by_clause.setdefault(str(line["clause"]), []).append(line)
    short = [str(line.get("reason")) for line in lines if line.get("record") == "too-short" and line.get("family") == "rng"]
    read = _rng_sources(lines)
    evidence = []
    for clause, tests in by_clause.items():
        failed = [t for t in tests if t.get("family_passed") is False]
        evidence.append(Evidence(clause, f"bench rng on {_rng_sources(tests)}: " + ", ".join(
            dict.fromkeys(str(t.get("test")) for t in tests)), f"{max(int(t.get('n') or 0) for t in tests)} values",
            FAIL if failed else PASS, page, note="; ".join(str(t.get("detail", ""))[:120] for t in failed[:2])))
    for reason in short:
        words = reason.lower()
        named = next((c for name, c in RNG_TESTS.items() if re.search(rf"\b{re.escape(name)}", words)), None)
        if named:
            evidence.append(Evidence(named, f"bench rng on {_rng_sources([{'record': 'too-short', 'reason': reason}])}: "
                                     "not run", "too few values",
                                     CAUTION, page, note=reason[:200]))
    # 810a.5(a)(2) "fairly distributed ... over their range" is what the distribution tests ask;
    # (a)(3) "pass various recognized statistical tests" is the family as bench rng reads it (Holm).
    # (a)(1) "statistically independent": the runs, interplay and serial tests, where no test across
    # sessions (non-repeatability) speaks to it directly.
    # A clause of (c) is as the matrix reads its row: broken by a failed test, passed by a test that ran and
    # passed (a test too short for the sessions' few draws beside it is said, not a verdict), else a caution.
    held = {clause: row_state({e.verdict for e in evidence if e.clause == clause})
            for clause in dict.fromkeys(e.clause for e in evidence)}
    for clause, among in (("810a.5(a)(1)", ("810a.5(c)(11)", "810a.5(c)(12)", "810a.5(c)(13)")),
                          ("810a.5(a)(2)", ("810a.5(c)(1)", "810a.5(c)(2)", "810a.5(c)(8)")),
                          ("810a.5(a)(3)", tuple(RNG_TESTS.values()))):
        states = {held[c] for c in dict.fromkeys(among) if c in held}
        if clause in held or not states:
            continue
        evidence.append(Evidence(clause, f"bench rng's family of tests on {read}, Holm-corrected",
                                 f"{sum(c in held for c in dict.fromkeys(among))} clause(s) of 810a.5(c)",
                                 FAIL if FAIL in states else PASS if states == {PASS} else CAUTION, page))
        held[clause] = evidence[-1].verdict
    physical = [t for t in lines if t.get("record") == "test" and t.get("family") == "physical"]
    physical_failed = [str(t.get("test")) for t in physical if t.get("family_passed") is False]
    state = FAIL if FAIL in held.values() else CAUTION if CAUTION in held.values() or not held else PASS
    words = (f"{sum(len(t) for t in by_clause.values())} test(s) of the RNG family, "
             f"{sum(v == FAIL for v in held.values())} clause(s) failed; {len(short)} too short to run"
             + ("; every clause they speak to judged by a test that ran" if short and CAUTION not in held.values() else "")
             + (f"; the physical family (the design's, see the fairness campaign): {', '.join(physical_failed)} "
                "below the level" if physical_failed else ""))
    return Outcome(state, words, evidence, pages=[page] if page else [])
