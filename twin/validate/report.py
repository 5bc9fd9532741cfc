"""The validation report: one self-contained HTML page (``index.html``: every
chart and picture inside it, so it can be mailed alone and read offline),
plus ``validation.json`` (what ``--json`` prints, with ``report`` naming the
page). The page says the verdict first, then where it comes from (date,
software, the design's full SHA-256, seeds, run counts, engine), then why,
in words, for every failed check, then every check's figures, the charts,
example drops or spins to look at, and how to repeat the campaign.

The page is a list of sections (``_sections``); a new kind of evidence is a
new section, or a new chart in ``_tower_charts`` / ``_wheel_charts``."""

from __future__ import annotations

import hashlib
import json
import logging
import tempfile
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable

from tablebench_io import charts
from twin.pvalue import format_p, p_equals
from tablebench_io.report_page import (FAIL, PASS, Picture, Provenance, Verdict, code, esc, figure, figures,
                                       file_input, picture_of, report_page)
from twin.fingerprint import describe as describe_twin
from twin.kinds import plant_kind
from twin.validate.tower_checks import TOTALS
from twin.validate.verdict import Check, meaning_of

log = logging.getLogger(__name__)   # unconfigured, a warning still reaches stderr (logging.lastResort)

REPORT_PAGE = "index.html"


def _fmt(x) -> str:
    if x is None:
        return "-"
    if isinstance(x, float):
        return f"{x:.3g}" if abs(x) < 1e4 else f"{x:.0f}"
    return esc(x)


def _by_key(checks: list[Check]) -> dict[str, Check]:
    return {c.key: c for c in checks}


def _tower_charts(outcome, design) -> dict[str, Picture]:
    checks = _by_key(outcome.checks)
    out = {}
    faces = [checks[f"faces_die_{die}"] for die in (1, 2, 3)]
    out["faces"] = picture_of(charts.counts_small_multiples(
        [(f"die {die}", c.data["observed"], sum(c.data["observed"]) / 6, c.passed is False)
         for die, c in zip((1, 2, 3), faces)],
        [str(f) for f in range(1, 7)], xlabel="face up", ylabel="drops that count"),
        "Faces of each die against a fair die (a black tick: expected; grey: what chance allows, ±2 sd): "
        + "; ".join(f"die {k}: {c.finding}" for k, c in enumerate(faces, 1)) + ".")
    c = checks["totals"]
    out["totals"] = picture_of(charts.counts_against_expected(
        c.data["observed"], c.data["expected"], [str(t) for t in TOTALS], title="totals of the three dice",
        xlabel="total of the three dice", ylabel="drops that count", failed=c.passed is False),
        f"Totals against the exact three-dice distribution: {c.finding}.")
    c = checks["loaded_face_dependence"]
    out["loaded"] = picture_of(charts.share_grid(
        c.data["table"], title="loaded top face → resting face", row_label="top face as loaded",
        col_label="face up at rest", row_names=[str(f) for f in range(1, 7)],
        col_names=[str(f) for f in range(1, 7)], failed=c.passed is False, expected_share=1 / 6),
        "Each row is one loaded top face, shaded by its share of the row and counted in dice; a tower that "
        f"randomises spreads it evenly (the outlined diagonal would hold 1/6): {c.finding}.")
    c = checks["no_roll_rate"]
    i = c.data["interval"]
    out["no_roll"] = picture_of(charts.intervals(
        [("no-roll rate", i["rate"], i["low"], i["high"])], title="no rolls (625b.2(d)(5))",
        xlabel="share of drops", reference=c.data["ceiling"],
        reference_label=f"ceiling {100 * c.data['ceiling']:g}%", failed=c.passed is False),
        f"No rolls with their {100 * outcome.confidence:g}% interval: {c.finding}.")
    c = checks["settle_time"]
    out["settle"] = picture_of(charts.histogram(
        c.data["times"], title="time from release to rest", xlabel="settle time (s)", ylabel="drops",
        resolution=getattr(getattr(design, "physics", None), "timestep_s", None)),
        f"Settle time, binned in whole physics steps: {c.finding}.")
    return out


def _wheel_charts(outcome, design) -> dict[str, Picture]:
    checks = _by_key(outcome.checks)
    out = {}
    c = checks["pocket_uniformity"]
    out["pockets"] = picture_of(charts.counts_against_expected(
        c.data["observed_in_wheel_order"], c.data["expected"], [str(p) for p in c.data["wheel_order"]],
        title="pockets, in the wheel's order", xlabel="pocket (clockwise on the rotor)", ylabel="valid spins",
        failed=c.passed is False, width_in=8.6), f"Pockets: {c.finding}.")
    arc = checks["leaving_angle_empty_arc"]
    failed = arc.passed is False or checks["leaving_angle_uniformity"].passed is False
    out["angles"] = picture_of(charts.rose(
        arc.data["angles"], title="where the ball left the track", empty_from=arc.data["empty_from_deg"],
        empty_to=arc.data["empty_to_deg"], failed=failed),
        "A rose of the leaving angles on the stator, counter-clockwise from +x (petal area ∝ count; the "
        f"circle is what a uniform wheel gives; shaded: the widest empty arc): {arc.finding}.")
    c = checks["sector_bias"]
    out["sectors"] = picture_of(charts.counts_against_expected(
        c.data["observed"], c.data["expected"], [f"{s[0]}…{s[-1]}" for s in c.data["sectors"]],
        title="sectors of neighbouring pockets", xlabel="sector (first … last pocket)", ylabel="valid spins",
        failed=c.passed is False), f"Sectors: {c.finding}.")
    if outcome.records and "leave_pocket" in outcome.records[0]:      # campaigns run before the scatter was kept lack it
        from twin.wheel.scatter import chart, scatter_groups
        groups = scatter_groups(outcome.records, design, "leave", "rotor")
        out["scatter"] = picture_of(chart(groups, "from the pocket under the leaving point to the resting pocket"),
                                    "The descent's scatter by the rotor's period: how many pockets on (in the ball's "
                                    "direction on the rotor) the ball came to rest from the pocket under the point "
                                    f"where it left the track; concentration over all spins {groups[0].concentration:.2f} "
                                    "(0: the leaving pocket tells nothing of the resting one; docs/wheel.md).")
    c = checks["invalid_spin_rate"]
    from twin.stats import wilson_interval
    from twin.validate.wheel_checks import INVALID_CEILING
    i = wilson_interval(c.data["invalid"], outcome.runs, outcome.confidence)
    out["invalid"] = picture_of(charts.intervals(
        [("invalid-spin rate", i.rate, i.low, i.high)], title="invalid spins", xlabel="share of spins",
        reference=INVALID_CEILING, reference_label=f"ceiling {100 * INVALID_CEILING:g}%",
        failed=c.passed is False), f"Invalid spins with their {100 * outcome.confidence:g}% interval: {c.finding}.")
    return out


def _tower_examples(outcome, design) -> list[Picture]:
    from twin.tower import drop_traced
    from twin.tower.picture import drop_gif, tray_png
    from twin.validate.runs import tower_load
    records = outcome.records
    picks = [records[0]] + [r for r in records if r["no_roll"]][:1]
    out = []
    with tempfile.TemporaryDirectory() as folder:
        for k, r in enumerate(picks):
            result, trace = drop_traced(design, r["seed"], tower_load(design, r["seed"]))
            png = tray_png(design, result, Path(folder) / f"drop-{r['seed']}.png")
            what = "NO ROLL" if result.no_roll else " ".join(map(str, result.faces))
            out.append(picture_of(png.read_bytes(), f"Drop with seed {r['seed']} (loaded "
                                  f"{' '.join(map(str, result.loaded))}), the tray from above: {what}."))
            if k == 0:
                gif = drop_gif(design, result, trace, Path(folder) / f"drop-{r['seed']}.gif", px_per_m=600)
                out.append(picture_of(gif.read_bytes(), f"The drop with seed {r['seed']}, from the side."))
    return out


def _wheel_examples(outcome, design) -> list[Picture]:
    from twin.wheel import trace
    from twin.wheel.picture import save_gif, save_png
    seed = outcome.records[0]["seed"]
    t = trace(design, seed)
    with tempfile.TemporaryDirectory() as folder:
        save_png(design, t, Path(folder) / "spin.png")
        save_gif(design, t, Path(folder) / "spin.gif", size=240)
        return [picture_of((Path(folder) / "spin.png").read_bytes(),
                           f"Spin with seed {seed} at rest: {t.result.number if t.result.valid else 'invalid'}; "
                           f"it left the track at {t.result.leave_angle_deg:.0f}°."),
                picture_of((Path(folder) / "spin.gif").read_bytes(), f"The spin with seed {seed}.")]


def chart_of(key: str) -> str | None:
    """The chart that shows a check's data, shown again beside the words when it fails."""
    if key.startswith("faces_die_"):
        return "faces"
    if key.startswith("leaving_angle"):
        return "angles"
    return {"totals": "totals", "loaded_face_dependence": "loaded", "no_roll_rate": "no_roll",
            "settle_time": "settle", "pocket_uniformity": "pockets", "sector_bias": "sectors",
            "invalid_spin_rate": "invalid"}.get(key)


def command_line(outcome) -> str:
    flag = plant_kind(outcome.kind).size_option
    return (f"twin validate {outcome.design_path} {flag} {outcome.runs} --seed {outcome.first_seed} "
            f"--confidence {outcome.confidence:g} --workers {outcome.workers} --engine {outcome.engine}")


def design_sha256(path: str) -> str:
    """The SHA-256 of the design file's bytes (what ``sha256sum`` prints)."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def _run_counts(outcome) -> str:
    return page_of(outcome).run_counts(outcome.records)


def _tower_counts(records: list[dict]) -> str:
    no_rolls = sum(bool(r.get("no_roll")) for r in records)
    return f"{len(records)} drops: {len(records) - no_rolls} that count, {no_rolls} no rolls"


def _wheel_counts(records: list[dict]) -> str:
    valid = sum(bool(r.get("valid")) for r in records)
    return f"{len(records)} spins: {valid} valid, {len(records) - valid} invalid"


def provenance(outcome, written: datetime) -> Provenance:
    last = outcome.first_seed + outcome.runs - 1
    return Provenance(
        date=written.strftime("%Y-%m-%d %H:%M:%S UTC"),
        inputs=[file_input(f"design (a {outcome.kind})", outcome.design_path, design_sha256(outcome.design_path),
                           outcome.kind)],
        seeds=esc(f"{outcome.first_seed}–{last} (run i uses seed {outcome.first_seed} + i)"),
        engine=esc(f"{outcome.engine}, {outcome.workers} worker(s), {outcome.elapsed_s:.1f} s"),
        repeat=command_line(outcome),
        more=[("runs", esc(_run_counts(outcome))),
              ("confidence", esc(f"{100 * outcome.confidence:g}% over the family of tests (Holm)")),
              ("records", code(outcome.results_path)),
              ("twin", esc(describe_twin(outcome.twin)))])


def verdict(outcome) -> Verdict:
    """Pass or fail at the campaign's confidence; for a wheel, the latest safe
    call the same spins give (info beside the fairness tests, docs/edge.md)."""
    conf = f"{100 * outcome.confidence:g}%"
    tested = [c for c in outcome.checks if c.tested]
    figures = [("tests", f"{sum(1 for c in tested if c.passed)} of {len(tested)} pass"),
               ("runs", _run_counts(outcome)), ("confidence", f"{conf}, Holm over the family")]
    call = outcome.no_more_bets
    if call:
        safe = call.get("latest_safe_call_s")
        figures.append(("latest safe 'no more bets' (twin edge)",
                        "none shown" if safe is None else f"{safe:g} s after the launch"))
    failed = [c for c in outcome.checks if c.passed is False]
    headline = (f"PASS: the design randomises at {conf}" if outcome.passed else
                f"FAIL: {len(failed)} test{'s' * (len(failed) != 1)} of the design fail at {conf}")
    return Verdict(PASS if outcome.passed else FAIL, headline, [f"{c.title}: {c.finding}" for c in failed], figures)


def _why(outcome, pictures: dict[str, Picture]) -> str:
    shown: set[str] = set()
    items = ""
    for c in outcome.checks:
        if c.passed is not False:
            continue
        items += (f"<li><b>{esc(c.title)}</b>: {esc(c.finding)}. {esc(meaning_of(c.key))} "
                  f"({esc(p_equals(c.result.p_value))}, {esc(format_p(c.adjusted_p))} after Holm's correction; "
                  f"{esc(c.result.detail)})")
        name = chart_of(c.key)
        if name in pictures and name not in shown:
            items += figure(pictures[name])
            shown.add(name)
        items += "</li>"
    return f"<h2>Why it fails</h2><ul>{items}</ul>" if items else ""


def _checks_table(outcome) -> str:
    rows = "".join(
        f"<tr><td>{esc(c.title)}</td>"
        f"<td class=num>{_fmt(c.result.statistic) if c.tested else '-'}</td>"
        f"<td class=num>{esc(format_p(c.result.p_value)) if c.tested else '-'}</td>"
        f"<td class=num>{esc(format_p(c.adjusted_p)) if c.tested else '-'}</td>"
        f"<td class=\"{'info' if c.passed is None else 'pass' if c.passed else 'fail'}\">"
        f"{'-' if c.passed is None else 'pass' if c.passed else 'FAIL'}</td>"
        f"<td>{esc(c.detectable)}</td><td>{esc(c.finding)}</td></tr>"
        for c in outcome.checks)
    return ("<h2>Checks</h2><table><tr><th>check</th><th>statistic</th><th>p</th><th>Holm p</th><th>verdict</th>"
            f"<th>smallest detectable bias</th><th>what the campaign saw</th></tr>{rows}</table>")


def _sections(outcome, design, pictures: dict[str, Picture], samples: list[Picture], written: datetime) -> list[str]:
    tested = [c for c in outcome.checks if c.tested]
    return [
        _why(outcome, pictures),
        _checks_table(outcome),
        f"""<h2>How it is judged</h2><p>{len(tested)} tests form the family. Each p-value is adjusted by Holm's step-down method over the
family, and a test fails when its adjusted p-value is below {1 - outcome.confidence:g}: a fair design then fails
<i>any</i> test in at most {100 * (1 - outcome.confidence):g}% of campaigns (58 Pa. Code 810a.5 asks for 95%;
many labs ask for 99%). "Smallest detectable bias" is the bias this campaign would flag with 80% power:
a pass says no bias at least that large, not that there is none.</p>""",
        "<h2>Charts</h2>" + "".join(figure(p) for p in pictures.values()),
        "<h2>Examples</h2>" + (figures(samples) if samples else "<p>none</p>"),
        f"""<h2>Repeat it</h2><p>The command in the provenance above runs the campaign again. Each run's record is in {code(outcome.results_path)}; run <i>i</i> uses seed
{outcome.first_seed}+<i>i</i> whatever the engine or number of workers, and
<code>twin {plant_kind(outcome.kind).run} {esc(outcome.design_path)} --seed N</code> repeats one.</p>""",
    ]


def write_report(outcome, design, folder: Path, examples: bool = True) -> Path:
    """Write the self-contained ``index.html`` and ``validation.json`` into ``folder``."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    report_path = folder / REPORT_PAGE
    page = page_of(outcome)
    pictures = page.charts(outcome, design)
    samples: list[Picture] = []
    if examples:
        try:
            samples = page.examples(outcome, design)
        except Exception as err:        # a picture must not cost the user the verdict
            log.warning("twin validate: warning: example pictures failed: %s", err)
    written = datetime.now(timezone.utc)
    html = report_page(kind="validation report", title=f"twin validate: {outcome.design_name}",
                       heading=f"Validation of {outcome.design_name}", verdict=verdict(outcome),
                       provenance=provenance(outcome, written),
                       sections=_sections(outcome, design, pictures, samples, written))
    report_path.write_text(html, encoding="utf-8")
    outcome.report_path = str(report_path)
    (folder / "validation.json").write_text(json.dumps(outcome.to_json(), indent=2) + "\n", encoding="utf-8")
    return report_path


@dataclass(frozen=True)
class ValidationPage:
    """What the page shows of one kind of plant (``twin.kinds``: ``validation_page``)."""
    charts: Callable           # (outcome, design) -> the charts, by name
    examples: Callable         # (outcome, design) -> pictures of example runs
    run_counts: Callable       # records -> "N drops: ..." in words


TOWER_PAGE = ValidationPage(_tower_charts, _tower_examples, _tower_counts)
WHEEL_PAGE = ValidationPage(_wheel_charts, _wheel_examples, _wheel_counts)


def page_of(outcome) -> ValidationPage:
    page = plant_kind(outcome.kind).part("validation_page")
    # PlantKind.part gives what the name names: here the page's parts, not a function as its type says.
    if not isinstance(page, ValidationPage):
        raise TypeError(f"{outcome.kind}'s validation_page is not a ValidationPage: {page!r}")
    return page
