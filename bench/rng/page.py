"""``bench rng --report PAGE.html``: the battery's judgement as one
self-contained page on the shared report frame (tablebench_io.report_page):
the verdict, the provenance (each file with its SHA-256), then each family
(the RNG's, the physical randomiser's) as a table of its tests, the tests
not run and why, and what a pass does not show (docs/rng.md 5)."""

from __future__ import annotations

import hashlib
import math
import shlex
import sys
import time
from pathlib import Path

from tablebench_io.report_page import (CAUTION, FAIL, PASS, Input, Provenance, Verdict, esc, report_page,
                                       utc)

LIMITS = ("A pass says no test found a departure larger than its 'detects' column at this N, with a false-alarm "
          "rate of at most the profile's alpha for the family (Holm). It does not show cryptographic strength "
          "(810a.5(a)(4)): that needs the source code read the clause asks for (docs/rng.md, 5).")


def _digest(path: str) -> str | None:
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError:
        return None


def _table(name: str, fam) -> str:
    profile = fam.profile
    rows = []
    for o, adjusted in zip(fam.outcomes, fam.adjusted):
        failed = adjusted < profile.alpha
        value = "–" if not math.isfinite(o.detectable.value) else f"{o.detectable.value:.3g}"
        rows.append(f'<tr class="{"fail" if failed else ""}"><td>{esc(o.source)}</td><td>{esc(o.test)}</td>'
                    f'<td>{esc(o.clause)}</td><td class="num">{o.n:,}</td>'
                    f'<td class="num">{o.statistic:.4g}{f" ({o.dof} df)" if o.dof else ""}</td>'
                    f'<td class="num">{o.p_value:.3g}</td><td class="num">{adjusted:.3g}</td>'
                    f'<td>{"FAIL" if failed else "pass"}</td><td>{esc(value)} {esc(o.detectable.measure)}</td>'
                    f'<td>{esc(o.detail)}<br><small>{esc(o.reference)}</small></td></tr>')
    head = ("source", "test", "clause", "N", "statistic", "p", "Holm p", "family", "detects (80% power)", "detail")
    table = ('<div class="wide"><table><thead><tr>' + "".join(f"<th>{h}</th>" for h in head) + "</tr></thead><tbody>"
             + "".join(rows) + "</tbody></table></div>") if rows else "<p>No test could run.</p>"
    short = ("<h3>Not run</h3><ul>" + "".join(f"<li>{esc(r)}</li>" for r in fam.too_short) + "</ul>"
             if fam.too_short else "")
    return f'<section id="{esc(name)}"><h2>{esc(name)}</h2><p>{esc(fam.rule())}</p>{table}{short}</section>'


def write_page(judgement, verdict: str, path: str) -> None:
    failed = judgement.failures()
    state = {"pass": PASS, "fail": FAIL}.get(verdict, CAUTION)
    headline = {"pass": "PASS: no test of the 810a.5 battery failed",
                "fail": f"FAIL: {len(failed)} test(s) of the 810a.5 battery failed",
                "too-short": "TOO SHORT: no test failed, but some could not run"}[verdict]
    reasons = [f"{o.test} on {o.source} ({o.clause}): Holm p = {a:.3g}" for o, a in failed]
    reasons += [r for _, fam in judgement.families() for r in fam.too_short][:4 if not reasons else 0]
    profile = judgement.profile
    figures = [("profile", f"{profile.name}, {profile.confidence:.0%}"), ("files", str(len(judgement.files))),
               ("tests", str(sum(len(f.outcomes) for _, f in judgement.families())))]
    provenance = Provenance(
        date=utc(time.time()),
        inputs=[Input("journal" if d.kind != "rng-collection" else "collection", d.path, _digest(d.path))
                for d in judgement.files],
        seeds=esc(", ".join(sorted({str(d.seed) for d in judgement.files if d.seed is not None})) or "none recorded"),
        engine="SciPy's distributions; Knuth, TAOCP vol. 2, 3.3.2; NIST SP 800-22 rev. 1a",
        repeat=" ".join(shlex.quote(a) for a in ["bench", *sys.argv[1:]]) if sys.argv else "bench rng FILES")
    sections = [_table("the RNG" if name == "rng" else "the physical randomiser", fam)
                for name, fam in judgement.families()]
    if judgement.notes:
        sections.append("<section><h2>Notes</h2><ul>" + "".join(f"<li>{esc(n)}</li>" for n in judgement.notes)
                        + "</ul></section>")
    sections.append(f"<section><h2>What a pass means</h2><p>{esc(LIMITS)}</p></section>")
    Path(path).write_text(report_page(kind="RNG battery report", title="bench rng: 58 Pa. Code 810a.5",
                                      heading="The Lucky Number RNG, 810a.5", verdict=Verdict(state, headline,
                                                                                            reasons, figures),
                                      provenance=provenance, sections=sections), encoding="utf-8")
