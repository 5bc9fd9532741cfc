"""An edge estimate from end to end: the design, the campaign, the predictions, the edges.

The spins or drops are a ``twin validate`` campaign (``twin.validate.campaign``):
the same seeds, engines, resumable JSON-lines file and default file name, so
an edge estimate after a validation (or the other way round) runs no physics
twice. The wheel's predictions (an ODE per spin and cutoff) run on a local
process pool and are themselves kept in a resumable JSON-lines file beside
the campaign's, keyed by the observer's settings.
"""

from __future__ import annotations

import hashlib
import json
import multiprocessing as mp
import time
from dataclasses import dataclass, field
from pathlib import Path

from twin.edge.estimate import latest_safe_cutoff
from twin.edge.observer import Camera
from twin.edge.payouts import StraightPayout, dice_game, lucky_means, straight_payouts
from twin.edge.tower import TowerEdge, tower_edge
from twin.edge.verdict import RESAMPLES, Verdict, verdict
from twin.edge.wheel import CutoffEdge, default_cutoffs, ladder_of, predict_spin, track_time_range, wheel_edges
from twin.errors import TwinError
from twin.fingerprint import canary_of
from tablebench_io.progress import bar as progress_bar
from twin.shipped import shipped_design
from twin.validate.campaign import (CampaignError, Plan, appending, campaign_twin, complete_lines,
                                    default_results_path, run_campaign)
from twin.kinds import WHEEL, design_kind, plant_kind
from twin.validate.engines import make_engine, worker_start
from twin.validate.runs import design_for
from twin.wheel.track import LeavingMap, TrackModel

PREDICT_BLOCK = 20       # spins per task of the prediction pool
VALIDATE_PAYOUT = "lightning"      # the game's base straight up, 617c.3(f)
MAIN_PAYOUT = VALIDATE_PAYOUT      # the verdict line's payout when it is among those asked for
FORMAT = 2               # 2: each prediction also holds the leaving place and the rotor's speed


class EdgeError(TwinError):
    """Bad input to an edge estimate (a cutoff past the spin, a negative noise)."""


@dataclass
class EdgeOutcome:
    kind: str
    design_path: str
    design_name: str
    first_seed: int
    runs: int
    confidence: float
    results_path: str
    camera: Camera | None = None
    cutoffs: list[float] = field(default_factory=list)
    payouts: list[StraightPayout] = field(default_factory=list)
    rows: list[CutoffEdge] = field(default_factory=list)
    tower: TowerEdge | None = None
    campaign_s: float = 0.0
    predict_s: float = 0.0
    resample_s: float = 0.0
    invalid: int = 0
    report_path: str | None = None
    verdict: Verdict | None = None       # the main payout's latest safe call with its interval
    call_time_s: float | None = None     # --call-time-s: the call time asked about
    engine: str = "local"          # how the campaign ran, for the report's provenance
    workers: int = 1
    noise_seed: int = 0
    paytable: str = ""             # the file the payouts were read from (a game file, a rules submission)
    twin: dict | None = None       # the twin that drew the campaign's runs (twin.fingerprint); None: not recorded

    def safe_call(self, payout: str) -> float | None:
        rows = [r for r in self.rows if r.payout == payout]
        return latest_safe_cutoff([r.cutoff_s for r in rows], [r.edge for r in rows])

    def verdict_json(self) -> dict:
        out = {"design": self.design_path, "kind": self.kind, "runs": self.runs, "first_seed": self.first_seed,
               "confidence": self.confidence, "campaign_s": round(self.campaign_s, 1),
               "predict_s": round(self.predict_s, 1), "results_file": self.results_path,
               "paytable": self.paytable, "twin": self.twin}
        if plant_kind(self.kind).watched:     # a wheel: the observer, and each payout's latest safe call
            if self.camera is None or self.verdict is None:
                raise RuntimeError("a wheel's edge outcome not measured yet (estimate_edge measures it)")
            out["camera"] = self.camera.to_json()
            out["invalid_spins_left_out"] = self.invalid
            out["resample_s"] = round(self.resample_s, 1)
            out["latest_safe_call_by_payout_s"] = {p.key: self.safe_call(p.key) for p in self.payouts}
            out.update(self.verdict.to_json())
            if self.call_time_s is not None:
                out["call_time_s"] = self.call_time_s
                out["call_time_shown_safe"] = self.verdict.shows_safe(self.call_time_s)
        else:
            if self.tower is None:
                raise RuntimeError("a tower's edge outcome not measured yet (estimate_edge measures it)")
            out.update(self.tower.to_json())
        if self.report_path:
            out["report"] = self.report_path
        return out

    def lines_json(self) -> list[dict]:
        """One object per cutoff and payout (a tower has none), then the verdict."""
        return [r.to_json() for r in self.rows] + [dict(self.verdict_json(), verdict=True)]


def check_cutoffs(design, cutoffs: list[float] | None, call_time_s: float | None = None
                  ) -> tuple[list[float], float, float]:
    """The cutoffs to estimate (a call time asked about among them), checked against the design."""
    shortest, longest = track_time_range(design)
    asked = [] if call_time_s is None else [call_time_s]
    if cutoffs is None:
        cutoffs = default_cutoffs(shortest)
        if not asked:
            return cutoffs, shortest, longest
    for c, field_name in [(c, "cutoff-s") for c in cutoffs] + [(c, "call-time-s") for c in asked]:
        if not c >= 0:
            raise EdgeError(f"{design.source}: {field_name}: {c:g} s is before the launch: a cutoff is 0 or more")
        if c >= longest:
            raise EdgeError(f"{design.source}: {field_name}: {c:g} s is past the spin: the ball leaves the track "
                            f"{shortest:.1f}-{longest:.1f} s after the launch on this design (617c.3(c): bets "
                            "close while the ball runs)")
    return sorted(set(cutoffs) | set(asked)), shortest, longest


def _predict_task(job) -> list[dict]:
    path, seeds, cutoffs, camera, noise_seed = job
    design = design_for(WHEEL, path, None)
    leaving = LeavingMap(TrackModel(design))       # the player's model of the track, built once a block
    return [predict_spin(design, s, cutoffs, camera, noise_seed, leaving) for s in seeds]


def predictions_path(results: Path, settings: dict) -> Path:
    """Beside the campaign's file, one per observer's settings."""
    key = hashlib.sha256(json.dumps(settings, sort_keys=True).encode()).hexdigest()[:10]
    return results.with_name(f"{results.stem}.edge-{key}.jsonl")


def _read_predictions(path: Path, header: dict) -> dict[int, dict]:
    lines = complete_lines(path)
    if not lines:
        return {}
    if json.loads(lines[0]) != header:
        raise CampaignError(f"{path}: holds predictions of other settings; delete it")
    out = {}
    for line in lines[1:]:
        record = json.loads(line)
        out[int(record["seed"])] = record
    return out


def prediction_settings(plan: Plan, cutoffs: list[float], camera: Camera, noise_seed: int) -> dict:
    """What a file of predictions was made with: the observer's settings and the
    twin's wheel canary (twin.fingerprint), so that predictions of another twin
    (another track integrator, another libm) are made again, not reused."""
    return {"twin_edge": FORMAT, "design_sha256": plan.design_sha256, "cutoffs": cutoffs,
            "camera": camera.to_json(), "noise_seed": noise_seed, "twin_wheel": canary_of("wheel")}


def predict_all(plan: Plan, results: Path, seeds: list[int], cutoffs: list[float], camera: Camera, noise_seed: int,
                workers: int, progress: bool) -> dict[int, dict]:
    settings = prediction_settings(plan, cutoffs, camera, noise_seed)
    path = predictions_path(results, settings)
    with appending(path) as out:
        done = _read_predictions(path, settings)     # under the lock: it may cut a torn last line off
        if out.tell() == 0:
            out.write(json.dumps(settings, sort_keys=True) + "\n")
        _append_predictions(plan, out, done, seeds, cutoffs, camera, noise_seed, workers, progress)
    return done


def _append_predictions(plan: Plan, out, done: dict[int, dict], seeds: list[int], cutoffs: list[float],
                        camera: Camera, noise_seed: int, workers: int, progress: bool) -> None:
    """Predict the spins not yet in ``done`` (on ``workers`` processes), appending each block as it comes."""
    todo = [s for s in seeds if s not in done]
    jobs = [(plan.design_path, todo[i:i + PREDICT_BLOCK], cutoffs, camera, noise_seed)
            for i in range(0, len(todo), PREDICT_BLOCK)]
    pool = mp.get_context("spawn").Pool(workers, initializer=worker_start) if workers > 1 and len(jobs) > 1 else None
    try:
        results = pool.imap_unordered(_predict_task, jobs) if pool else map(_predict_task, jobs)
        with progress_bar(total=len(seeds), initial=len(seeds) - len(todo), desc="predictions", unit="spin",
                          disable=not progress, dynamic_ncols=True) as bar:
            for chunk in results:
                out.write("".join(json.dumps(r, sort_keys=True) + "\n" for r in chunk))
                out.flush()
                for r in chunk:
                    done[r["seed"]] = r
                bar.update(len(chunk))
    finally:
        if pool is not None:
            pool.terminate()
            pool.join()


def estimate_edge(design: str | Path, runs: int, *, cutoffs: list[float] | None = None,
                  camera: Camera | None = None, payouts: list[str] | None = None, game: str | Path | None = None,
                  lucky_mean_count: float | None = None, lucky_mean_odds: float | None = None,
                  workers: int = 1, engine: str = "local", ray_address: str | None = None, seed: int = 0,
                  noise_seed: int = 0, confidence: float = 0.99, results: str | Path | None = None,
                  progress: bool = False, records: list[dict] | None = None, call_time_s: float | None = None,
                  resamples: int = RESAMPLES) -> EdgeOutcome:
    """The edge of a design: a wheel's per cutoff and payout, a tower's from its loaded faces.
    ``records`` (a finished campaign's) skips running one. A wheel's verdict (the main
    payout's latest safe call) gets its interval from ``resamples`` halvings of the spins
    (0: none); ``call_time_s`` is added to the cutoffs and judged (``Verdict.shows_safe``).
    ``game``: where the payouts come from, a Lightning Dice game file for a tower, a
    Lightning Roulette rules submission (its Lucky draw) for a wheel; default the shipped ones."""
    path = shipped_design(design)
    kind = design_kind(path)
    loaded = design_for(kind, path, None)
    if not 0.5 <= confidence < 1:
        raise EdgeError(f"confidence must be in [0.5, 1), got {confidence}")
    ask = EdgeAsk(cutoffs, camera, payouts, game, lucky_mean_count, lucky_mean_odds, noise_seed, workers, progress,
                  call_time_s, resamples, confidence)
    # the kind's own estimate (twin.kinds): its input checked before any run
    estimate = plant_kind(kind).part("edge_estimate")(loaded, path, ask)
    plan = Plan(kind, path, Path(path).read_text(encoding="utf-8"), seed, runs)
    results_path = Path(results) if results else default_results_path(plan)
    started = time.perf_counter()
    if records is None:
        runner = make_engine(engine, workers, ray_address)
        try:
            records = run_campaign(plan, runner, results_path, progress)
        finally:
            runner.close()
    outcome = EdgeOutcome(kind, path, getattr(loaded, "name", Path(path).stem), seed, len(records), confidence,
                          str(results_path), campaign_s=time.perf_counter() - started, engine=engine,
                          workers=workers, noise_seed=noise_seed, paytable=estimate.paytable,
                          twin=campaign_twin(results_path))
    estimate.measure(outcome, plan, results_path, records)
    return outcome


@dataclass
class EdgeAsk:
    """What an edge estimate is asked besides the design and its campaign (``estimate_edge``'s arguments)."""
    cutoffs: list[float] | None
    camera: Camera | None
    payouts: list[str] | None
    game: str | Path | None
    lucky_mean_count: float | None
    lucky_mean_odds: float | None
    noise_seed: int
    workers: int
    progress: bool
    call_time_s: float | None
    resamples: int
    confidence: float


class TowerEstimate:
    """A tower's edge: what the loaded faces are worth, by a game's paytable."""

    def __init__(self, loaded, path: str, ask: EdgeAsk):
        if ask.cutoffs or ask.call_time_s is not None:
            raise EdgeError(f"{path}: {'call-time-s' if ask.call_time_s is not None else 'cutoff-s'}: a tower has "
                            "no cutoff: the player sees the loaded faces before betting")
        self.ask = ask
        self.dice = dice_game(ask.game)          # a bad file is refused before any drop is run
        self.paytable = self.dice.source

    def measure(self, outcome: EdgeOutcome, plan: Plan, results_path: Path, records: list[dict]) -> None:
        outcome.tower = tower_edge(records, self.ask.confidence, self.dice)


class WheelEstimate:
    """A wheel's edge: per cutoff and payout, of a player who watches the spin until the cutoff."""

    def __init__(self, loaded, path: str, ask: EdgeAsk):
        self.loaded, self.ask = loaded, ask
        self.camera = ask.camera or Camera()
        if ask.resamples < 0:
            raise EdgeError(f"resamples must be 0 or more, got {ask.resamples}")
        self.cutoffs, _, _ = check_cutoffs(loaded, ask.cutoffs, ask.call_time_s)
        means = lucky_means(ask.game)            # a bad file is refused before any spin is run
        try:
            table = straight_payouts(means.count if ask.lucky_mean_count is None else ask.lucky_mean_count,
                                     means.odds if ask.lucky_mean_odds is None else ask.lucky_mean_odds)
        except ValueError as err:
            raise EdgeError(f"lucky: {err}") from None
        self.paytable = means.source
        keys = ask.payouts or list(table)
        unknown = [k for k in keys if k not in table]
        if unknown:
            raise EdgeError(f"payout: unknown {', '.join(unknown)}; expected one of {', '.join(table)}")
        self.chosen = [table[k] for k in keys]

    def measure(self, outcome: EdgeOutcome, plan: Plan, results_path: Path, records: list[dict]) -> None:
        ask, loaded, cutoffs, chosen = self.ask, self.loaded, self.cutoffs, self.chosen
        started = time.perf_counter()
        valid = [r for r in records if r["valid"]]
        predictions = predict_all(plan, results_path, [r["seed"] for r in valid], cutoffs, self.camera,
                                  ask.noise_seed, ask.workers, ask.progress)
        outcome.predict_s = time.perf_counter() - started
        outcome.camera, outcome.cutoffs, outcome.payouts = self.camera, cutoffs, chosen
        outcome.invalid = len(records) - len(valid)
        ladder = ladder_of(loaded, records, predictions, cutoffs)
        outcome.rows = wheel_edges(loaded, records, predictions, cutoffs, chosen, ask.confidence, ladder)
        main = next((p for p in chosen if p.key == MAIN_PAYOUT), chosen[0])
        started = time.perf_counter()
        with progress_bar(total=ask.resamples, desc="resamples", unit="draw",
                          disable=not ask.progress or ask.resamples == 0, dynamic_ncols=True) as bar:
            outcome.verdict = verdict(ladder, main, ask.confidence, outcome.safe_call(main.key), ask.resamples,
                                      progress=bar.update)
        outcome.resample_s = time.perf_counter() - started
        outcome.call_time_s = ask.call_time_s


def call_time_summary(path: str, records: list[dict], results: Path, workers: int, confidence: float,
                      progress: bool) -> dict:
    """What ``twin validate`` reports beside the fairness tests of a wheel: the
    latest safe "no more bets" for the default observer, at the base payout."""
    outcome = estimate_edge(path, len(records), payouts=[VALIDATE_PAYOUT], workers=workers,
                            seed=records[0]["seed"] if records else 0, confidence=confidence,
                            results=results, progress=progress, records=records, resamples=0)
    if outcome.camera is None:
        # Not reached: a wheel's estimate (WheelEstimate.measure) keeps the camera that watched.
        raise AssertionError("a wheel's edge outcome without its camera")
    rows = [r for r in outcome.rows if r.payout == VALIDATE_PAYOUT]
    base = next(p for p in outcome.payouts if p.key == VALIDATE_PAYOUT)
    return {"latest_safe_call_s": outcome.safe_call(VALIDATE_PAYOUT), "payout": f"{base.odds:g} to 1 ({base.clause})",
            "observer": outcome.camera.to_json(),
            "edges": [{"cutoff_s": r.cutoff_s, "edge": round(r.edge.edge, 4), "high": round(r.edge.high, 4)}
                      for r in rows],
            "method": "twin edge, docs/edge.md"}


def call_time_text(summary: dict) -> str:
    safe = summary["latest_safe_call_s"]
    when = ("none: even at the launch the edge's interval reaches zero" if safe is None
            else f"{safe:g} s after the launch")
    return f"  info  latest safe 'no more bets' (617c.3(c)), straight ups at {summary['payout']}: {when} (twin edge)"
