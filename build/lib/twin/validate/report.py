"""The validation report: one HTML page with its PNG (and GIF) pictures
beside it in the report folder, plus ``validation.json`` (what ``--json``
prints). The page says the verdict first, then why, in words, for every
failed check, then every check's figures, then the charts, then example
drops or spins to look at, and how to repeat the campaign."""

from __future__ import annotations

import html
import json
import sys
from pathlib import Path

from twin.validate import plots
from twin.validate.runs import TOWER
from twin.validate.tower_checks import TOTALS
from twin.validate.verdict import Check, meaning_of

STYLE = """body{font-family:sans-serif;max-width:1000px;margin:2em auto;color:#222}
table{border-collapse:collapse;font-size:90%}td,th{border:1px solid #ccc;padding:4px 6px;vertical-align:top}
.pass{color:#1b6e2a;font-weight:bold}.fail{color:#b3261e;font-weight:bold}.info{color:#666}
.verdict{font-size:160%;padding:.4em .8em;display:inline-block;border-radius:6px}
.vpass{background:#dff3e3}.vfail{background:#fbe0dc}figure{display:inline-block;margin:.5em}
figcaption{font-size:85%;max-width:560px}"""


def _fmt(x) -> str:
    if x is None:
        return "-"
    if isinstance(x, float):
        return f"{x:.3g}" if abs(x) < 1e4 else f"{x:.0f}"
    return html.escape(str(x))


def _p(x: float) -> str:
    return "< 1e-300" if x == 0 else _fmt(x)


def _by_key(checks: list[Check]) -> dict[str, Check]:
    return {c.key: c for c in checks}


def _tower_charts(outcome, folder: Path) -> list[tuple[str, str]]:
    checks = _by_key(outcome.checks)
    out = []
    for die in (1, 2, 3):
        c = checks[f"faces_die_{die}"]
        observed = c.data["observed"]
        plots.bars(observed, sum(observed) / 6, [str(f) for f in range(1, 7)],
                   f"die {die}: faces (drops that count)", failed=c.passed is False).save(folder / f"faces-die-{die}.png")
        out.append((f"faces-die-{die}.png", f"Die {die}: {c.finding}."))
    c = checks["totals"]
    plots.bars(c.data["observed"], c.data["expected"], [str(t) for t in TOTALS],
               "totals of the three dice", failed=c.passed is False).save(folder / "totals.png")
    out.append(("totals.png", f"Totals against the exact three-dice distribution: {c.finding}."))
    c = checks["loaded_face_dependence"]
    plots.grid(c.data["table"], "loaded top face (rows) -> resting face (columns)", "loaded", "resting",
               failed=c.passed is False).save(folder / "loaded-face.png")
    out.append(("loaded-face.png", "Each row is one loaded top face; a fair tower spreads it evenly over the "
                                   f"six resting faces (the diagonal outlined would hold 1/6): {c.finding}."))
    c = checks["no_roll_rate"]
    i = c.data["interval"]
    plots.rate("no-roll rate with its interval", i["rate"], i["low"], i["high"], c.data["ceiling"],
               c.passed is False).save(folder / "no-roll.png")
    out.append(("no-roll.png", f"No rolls: {c.finding}."))
    c = checks["settle_time"]
    plots.histogram(c.data["times"], "settle time", "s").save(folder / "settle-time.png")
    out.append(("settle-time.png", f"Settle time: {c.finding}."))
    return out


def _wheel_charts(outcome, folder: Path) -> list[tuple[str, str]]:
    checks = _by_key(outcome.checks)
    out = []
    c = checks["pocket_uniformity"]
    plots.bars(c.data["observed_in_wheel_order"], c.data["expected"], [str(p) for p in c.data["wheel_order"]],
               "pockets, in the wheel's order", failed=c.passed is False,
               size=(760, 260)).save(folder / "pockets.png")
    out.append(("pockets.png", f"Pockets: {c.finding}."))
    arc = checks["leaving_angle_empty_arc"]
    failed = arc.passed is False or checks["leaving_angle_uniformity"].passed is False
    plots.rose(arc.data["angles"], "where the ball left the track", arc.data["empty_from_deg"],
               arc.data["empty_to_deg"], failed).save(folder / "leaving-angles.png")
    out.append(("leaving-angles.png", "A rose of the leaving angles (petal area = count; the circle is what a "
                                      f"uniform wheel gives; shaded: the widest empty arc): {arc.finding}."))
    c = checks["sector_bias"]
    labels = [f"{s[0]}..{s[-1]}" for s in c.data["sectors"]]
    plots.bars(c.data["observed"], c.data["expected"], labels, "sectors of neighbouring pockets",
               failed=c.passed is False).save(folder / "sectors.png")
    out.append(("sectors.png", f"Sectors: {c.finding}."))
    c = checks["invalid_spin_rate"]
    from twin.stats import wilson_interval
    from twin.validate.wheel_checks import INVALID_CEILING
    i = wilson_interval(c.data["invalid"], outcome.runs, outcome.confidence)
    plots.rate("invalid-spin rate with its interval", i.rate, i.low, i.high, INVALID_CEILING,
               c.passed is False).save(folder / "invalid.png")
    out.append(("invalid.png", f"Invalid spins: {c.finding}."))
    return out


def _tower_examples(outcome, design, folder: Path) -> list[tuple[str, str]]:
    from twin.tower import drop_traced
    from twin.tower.picture import drop_gif, tray_png
    from twin.validate.runs import tower_load
    records = outcome.records
    picks = [records[0]] + [r for r in records if r["no_roll"]][:1]
    out = []
    for k, r in enumerate(picks):
        result, trace = drop_traced(design, r["seed"], tower_load(design, r["seed"]))
        tray_png(design, result, folder / f"drop-{r['seed']}.png")
        what = "NO ROLL" if result.no_roll else " ".join(map(str, result.faces))
        out.append((f"drop-{r['seed']}.png", f"Drop with seed {r['seed']} (loaded "
                    f"{' '.join(map(str, result.loaded))}): {what}."))
        if k == 0:
            drop_gif(design, result, trace, folder / f"drop-{r['seed']}.gif")
            out.append((f"drop-{r['seed']}.gif", f"The drop with seed {r['seed']}, from the side."))
    return out


def _wheel_examples(outcome, design, folder: Path) -> list[tuple[str, str]]:
    from twin.wheel import trace
    from twin.wheel.picture import save_gif, save_png
    seed = outcome.records[0]["seed"]
    t = trace(design, seed)
    save_png(design, t, folder / f"spin-{seed}.png")
    save_gif(design, t, folder / f"spin-{seed}.gif", size=240)
    return [(f"spin-{seed}.png", f"Spin with seed {seed} at rest: "
             f"{t.result.number if t.result.valid else 'invalid'}; it left the track at "
             f"{t.result.leave_angle_deg:.0f} deg."),
            (f"spin-{seed}.gif", f"The spin with seed {seed}.")]


def chart_of(key: str) -> str | None:
    """The chart that shows a check's data, shown again beside the words when it fails."""
    if key.startswith("faces_die_"):
        return f"faces-die-{key.rsplit('_', 1)[1]}.png"
    if key.startswith("leaving_angle"):
        return "leaving-angles.png"
    return {"totals": "totals.png", "loaded_face_dependence": "loaded-face.png", "no_roll_rate": "no-roll.png",
            "pocket_uniformity": "pockets.png", "sector_bias": "sectors.png",
            "invalid_spin_rate": "invalid.png"}.get(key)


def _figures(items: list[tuple[str, str]]) -> str:
    return "\n".join(f'<figure><img src="{html.escape(name)}" alt="{html.escape(text)}">'
                     f"<figcaption>{html.escape(text)}</figcaption></figure>" for name, text in items)


def command_line(outcome) -> str:
    flag = "--drops" if outcome.kind == TOWER else "--spins"
    return (f"twin validate {outcome.design_path} {flag} {outcome.runs} --seed {outcome.first_seed} "
            f"--confidence {outcome.confidence:g} --workers {outcome.workers} --engine {outcome.engine}")


def write_report(outcome, design, folder: Path, examples: bool = True) -> Path:
    """Write ``index.html``, its pictures and ``validation.json`` into ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    charts = _tower_charts(outcome, folder) if outcome.kind == TOWER else _wheel_charts(outcome, folder)
    samples: list[tuple[str, str]] = []
    if examples:
        try:
            samples = (_tower_examples if outcome.kind == TOWER else _wheel_examples)(outcome, design, folder)
        except Exception as err:        # a picture must not cost the user the verdict
            print(f"twin validate: warning: example pictures failed: {err}", file=sys.stderr)
    tested = [c for c in outcome.checks if c.tested]
    conf = f"{100 * outcome.confidence:g}%"
    unit = "drops" if outcome.kind == TOWER else "spins"
    verdict = "PASSES" if outcome.passed else "FAILS"
    shown: set[str] = set()
    why = ""
    for c in outcome.checks:
        if c.passed is not False:
            continue
        picture = chart_of(c.key)
        why += (f"<li><b>{html.escape(c.title)}</b>: {html.escape(c.finding)}. {html.escape(meaning_of(c.key))} "
                f"(p {'=' if c.result.p_value else ''} {_p(c.result.p_value)}, {_p(c.adjusted_p)} after Holm's correction; "
                f"{html.escape(c.result.detail)})")
        if picture and picture not in shown and (folder / picture).exists():
            why += f'<br><img src="{picture}" alt="{html.escape(c.title)}">'
            shown.add(picture)
        why += "</li>"
    rows = "".join(
        f"<tr><td>{html.escape(c.title)}</td>"
        f"<td>{_fmt(c.result.statistic) if c.tested else '-'}</td>"
        f"<td>{_p(c.result.p_value) if c.tested else '-'}</td>"
        f"<td>{_p(c.adjusted_p) if c.tested else '-'}</td>"
        f"<td class=\"{'info' if c.passed is None else 'pass' if c.passed else 'fail'}\">"
        f"{'-' if c.passed is None else 'pass' if c.passed else 'FAIL'}</td>"
        f"<td>{html.escape(c.detectable)}</td><td>{html.escape(c.finding)}</td></tr>"
        for c in outcome.checks)
    page = f"""<!doctype html><html><head><meta charset="utf-8">
<title>twin validate: {html.escape(outcome.design_name)}</title><style>{STYLE}</style></head><body>
<h1>Validation of {html.escape(outcome.design_name)}</h1>
<p>{html.escape(outcome.design_path)} &middot; {outcome.runs} {unit}, seeds {outcome.first_seed}&ndash;{outcome.first_seed + outcome.runs - 1}
&middot; confidence {conf} &middot; engine {outcome.engine}, {outcome.workers} worker(s)</p>
<p class="verdict {'vpass' if outcome.passed else 'vfail'}">The design {verdict} at {conf}</p>
<p>{len(tested)} tests form the family. Each p-value is adjusted by Holm's step-down method over the family, and
a test fails when its adjusted p-value is below {1 - outcome.confidence:g}: a fair design then fails
<i>any</i> test in at most {100 * (1 - outcome.confidence):g}% of campaigns (58 Pa. Code 810a.5 asks for 95%;
many labs ask for 99%). "Smallest detectable bias" is the bias this campaign would flag with 80% power:
a pass says no bias at least that large, not that there is none.</p>
{f"<h2>Why it fails</h2><ul>{why}</ul>" if why else ""}
<h2>Checks</h2>
<table><tr><th>check</th><th>statistic</th><th>p</th><th>Holm p</th><th>verdict</th>
<th>smallest detectable bias</th><th>what the campaign saw</th></tr>{rows}</table>
<h2>Charts</h2>{_figures(charts)}
<h2>Examples</h2>{_figures(samples) if samples else "<p>none</p>"}
<h2>Repeat it</h2><pre>{html.escape(command_line(outcome))}</pre>
<p>Each run's record is in {html.escape(outcome.results_path)}; run <i>i</i> uses seed
{outcome.first_seed}+<i>i</i> whatever the engine or number of workers, and
<code>twin {'drop' if outcome.kind == TOWER else 'spin'} {html.escape(outcome.design_path)} --seed N</code> repeats one.</p>
</body></html>
"""
    (folder / "index.html").write_text(page, encoding="utf-8")
    (folder / "validation.json").write_text(json.dumps(outcome.to_json(), indent=2) + "\n", encoding="utf-8")
    return folder / "index.html"
