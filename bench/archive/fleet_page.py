"""The fleet's report page (``bench archive judge --report``), on the shared
frame (tablebench_io.report_page): the verdict, the provenance, then a
table-by-table view, flagged groups first, each test's p and its
Benjamini-Hochberg q."""

from __future__ import annotations

from bench.archive.fleet import CORRECTION, TESTS, Fleet, Group
from tablebench_io.report_page import FAIL, PASS, Input, Provenance, Verdict, esc, report_page, utc

SHOWN = 500      # rows of the table-by-table view at most (the flagged ones first; --json has every one)


def _cell(group: Group, test: str) -> str:
    found = [t for t in group.tests if t.test == test]
    if not found:
        return '<td class="na">–</td>'
    t = found[0]
    mark = ' class="flagged"' if t.flagged else ""
    q = f"q {t.q:.2g}" if t.q is not None else "not judged"
    return (f'<td{mark} title="{esc(t.detail)}">p {t.p:.2g}<br>{q}'
            + (" <strong>flagged</strong>" if t.flagged else "") + "</td>")


def fleet_page(fleet: Fleet, archive: str, command: str, at: float) -> str:
    flagged = fleet.flagged_tables
    state = FAIL if flagged else PASS
    headline = (f"{len(flagged)} of {fleet.tables} tables flagged at a false-discovery rate of {fleet.fdr:g}"
                if flagged else f"none of {fleet.tables} tables flagged at a false-discovery rate of {fleet.fdr:g}")
    reasons = [f"{g.table} ({g.group_by} {g.group}, {g.period}): " +
               "; ".join([f"{t.test}: {t.detail} (q {t.q:.2g})" for t in g.tests if t.flagged]
                         + ([f"{g.violations} violations"] if g.violations else []))
               for g in fleet.groups + fleet.trends if g.flagged]
    verdict = Verdict(state, headline, reasons, [("tables", str(fleet.tables)), ("journals", str(fleet.journals)),
                                                 ("groups", str(len(fleet.groups))), ("tests", str(fleet.tests)),
                                                 ("false-discovery rate", f"{fleet.fdr:g}")])
    provenance = Provenance(date=utc(at), inputs=[Input("archive", archive)], seeds="those of each journal",
                            engine=esc(f"DuckDB over the archive's Parquet; SciPy's tests; {CORRECTION}"),
                            repeat=command)
    rows = sorted(fleet.groups + fleet.trends, key=lambda g: (not g.flagged, g.table, g.group, g.period))
    head = "".join(f"<th>{esc(t)}</th>" for t in TESTS)
    body = "".join(
        f'<tr data-table="{esc(g.table)}" data-flagged="{str(g.flagged).lower()}"><th scope="row">{esc(g.table)}'
        + (f" / {esc(g.group)}" if g.group_by != "table" else "") + f"</th><td>{esc(g.period)}</td>"
        f"<td>{g.rounds}</td><td>{g.violations}</td>" + "".join(_cell(g, t) for t in TESTS) + "</tr>"
        for g in rows[:SHOWN])
    more = f"<p>… and {len(rows) - SHOWN} more groups, none flagged (--json lists every one).</p>" \
        if len(rows) > SHOWN else ""
    view = (f'<section id="tables"><h2>Table by table</h2><p>By {esc(fleet.by)} and {esc(fleet.period)}; '
            f"staged rounds left out. p: the test's own p-value; q: after {esc(CORRECTION)}; a group is flagged "
            f"when a q is at most {fleet.fdr:g} or a round broke a rule (violations).</p>"
            f'<div class="wide"><table class="rounds"><thead><tr><th>table</th><th>period</th><th>rounds</th>'
            f"<th>violations</th>{head}</tr></thead><tbody>{body}</tbody></table></div>{more}</section>")
    says = ("<section id=\"reading\"><h2>How to read it</h2><p>Of the groups flagged, a fraction of at most "
            f"{fleet.fdr:g} are fair ones on average: a flag is a reason to look (replay the journals, see the "
            "drops), not a finding. A group not flagged is not shown fair: a small bias over few rounds goes "
            "unseen (docs/archive.md).</p></section>")
    return report_page(kind="fleet judgement", title=f"Fleet judgement: {headline}", heading="Fleet judgement",
                       verdict=verdict, provenance=provenance, sections=[view, says])
