"""The edge of a player who watches a spin up to a cutoff and then bets straight ups.

For each spin and cutoff the player's estimate of the ball and rotor
(``twin.edge.observer``) is carried forward with the twin's own track model
to where the ball will leave the track, and the rotor (coasting down with the
design's decay time) to where it will be then: the pocket under the leaving
point. The descent over the deflectors scatters the ball from there; its
scatter, together with the observer's error, is learnt as the distribution
of the offset (in pockets, on the rotor) from that predicted pocket to the
pocket the ball came to rest in, over the *fit* spins (even seeds). The
player bets one unit on each of the k most likely offsets from the predicted
pocket (the offsets' shares smoothed over +-2 pockets), k (1-18) chosen by
repeated cross-validation within the fit spins (``choose_numbers``); the
edge is measured on the other spins (odd seeds), so it is what the strategy
won, not what its fit promised.
With nothing seen (cutoff 0, or fewer than two sightings) the predicted
pocket is the rotor's pocket 0 and the offsets are the pockets themselves:
on a fair wheel the edge is then the house edge of the bets, as it must be.

Invalid spins are left out: a dealer spins again and the bets stand.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.integrate import solve_ivp

from twin.edge.estimate import Edge, scaled_hits_edge
from twin.edge.observer import POCKETS, Camera, Estimate, observe
from twin.edge.payouts import StraightPayout
from twin.wheel.spin import draw_launch
from twin.wheel.track import TrackModel

MAX_NUMBERS = 18        # half the wheel: more straight ups cannot beat the house
PREDICTOR_RTOL = 1e-7   # the player's integration; the twin's own is 1e-9 (a leaving time moves < 1 ms)
SPEED_SCAN = 9          # launch speeds and angles tried to bound the track times of a design
ANGLE_SCAN = 8
SMOOTHING = (1 / 9, 2 / 9, 3 / 9, 2 / 9, 1 / 9)   # offsets -2..2 pockets
CV_REPEATS = 10         # random halvings of the fit spins when choosing how many numbers to bet
CV_SEED = 617           # their seed: the choice is the same in every run


def _leaving_from(model: TrackModel, theta: float, v: float, horizon: float) -> tuple[float, float]:
    """Time from now and unwrapped angle at which a ball at (theta, v) leaves the track."""
    if model.wall_push(theta, v) <= 0:
        return 0.0, theta

    def leaves(_t, y):
        return model.wall_push(y[0], y[1])
    leaves.terminal = True
    leaves.direction = -1
    sol = solve_ivp(model.rhs, (0.0, horizon), [theta, v], method="DOP853", rtol=PREDICTOR_RTOL,
                    atol=1e-9, events=leaves)
    if sol.t_events[0].size:
        return float(sol.t_events[0][0]), float(sol.y_events[0][0][0])
    return float(sol.t[-1]), float(sol.y[0, -1])


def predicted_pocket(design, model: TrackModel, est: Estimate) -> int:
    """The rotor pocket (index in ``design.pockets``) under the point where the
    ball is predicted to leave the track, when it leaves."""
    dt, theta_leave = _leaving_from(model, est.ball_angle_rad, est.ball_speed_m_s,
                                    design.simulation.max_track_time_s)
    tau = design.rotor.decay_time_s
    rotor_then = est.rotor_angle_rad + est.rotor_speed_rad_s * tau * (1 - math.exp(-dt / tau))
    beta = theta_leave - rotor_then           # the ball's angle in the rotor's frame
    return int(round(-beta / (2 * math.pi / POCKETS))) % POCKETS


def noise_rng(noise_seed: int, seed: int, cutoff_s: float) -> np.random.Generator:
    """The observer's reading errors for one spin and cutoff: their own recorded seed."""
    return np.random.default_rng([noise_seed, seed, round(cutoff_s * 1000), 617])


def predict_spin(design, seed: int, cutoffs: list[float], camera: Camera, noise_seed: int = 0) -> dict:
    """The predicted pocket index (None: nothing known) of one spin at each cutoff.
    A cutoff after this spin's ball left the track is, for this spin, its leaving time."""
    launch = draw_launch(design, seed)
    model = TrackModel(design)                      # what the player knows: the design's track
    exit_, solution = TrackModel.for_spin(design, seed).ride(launch.ball_angle_rad, launch.ball_speed_m_s,
                                                             dense=True)   # what happens: this spin's track
    tau = design.rotor.decay_time_s

    def ball(t):
        y = solution.sol(np.clip(t, 0.0, exit_.time_s))
        return y[0], y[1]

    def rotor(t):
        angle = launch.rotor_angle_rad + launch.rotor_speed_rad_s * tau * (1 - np.exp(-t / tau))
        return angle, launch.rotor_speed_rad_s * np.exp(-t / tau)

    predicted = []
    for c in cutoffs:
        est = observe(camera, min(c, exit_.time_s), ball, rotor, model.r, noise_rng(noise_seed, seed, c))
        predicted.append(None if est is None else predicted_pocket(design, model, est))
    return {"seed": seed, "track_time_s": round(exit_.time_s, 6), "predicted": predicted}


def track_time_range(design) -> tuple[float, float]:
    """Shortest and longest time on the track over a scan of the launch ranges
    (speeds by angles): bounds a cutoff before any spin is run."""
    launch = design.launch
    times = []
    model = TrackModel(design)
    for speed in np.linspace(*launch.ball_speed_rev_s, SPEED_SCAN):
        for angle in np.linspace(launch.ball_angle_deg[0], launch.ball_angle_deg[1], ANGLE_SCAN, endpoint=False):
            exit_, _ = model.ride(math.radians(angle), speed * 2 * math.pi * model.r)
            times.append(exit_.time_s)
    return min(times), max(times)


def default_cutoffs(shortest_track_s: float) -> list[float]:
    """0, 0.5, 0.75, 1, 1.25, 1.5, 2, 3, then every 2 s, while the ball is still on
    the track in every spin. A passages observer needs two passages of the ball
    (0.5-1 s); the first seconds are the finest because that is where a wheel's
    predictability starts, and where a tilted wheel parts from a level one."""
    ladder = [0.0, 0.5, 0.75, 1.0, 1.25, 1.5, 2.0, 3.0] + [float(t) for t in range(4, 200, 2)]
    return [c for c in ladder if c < shortest_track_s]


def offset(final_index: int, predicted: int | None) -> int:
    return (final_index - (predicted or 0)) % POCKETS


@dataclass(frozen=True)
class CutoffEdge:
    cutoff_s: float
    payout: str
    numbers: int                 # straight ups bet per spin (k)
    edge: Edge
    informed: float              # share of held-out spins where the player had seen enough
    seen_at_s: float             # the cutoff whose prediction the player bets on (at most cutoff_s)

    def to_json(self) -> dict:
        return {"cutoff_s": self.cutoff_s, "payout": self.payout, "numbers_bet": self.numbers,
                "informed_share": round(self.informed, 4), "prediction_at_s": self.seen_at_s,
                **self.edge.to_json()}


def smoothed(offsets: list[int]) -> np.ndarray:
    """Share of each offset, smoothed over neighbouring pockets (the descent's
    scatter is smooth round the wheel; raw counts of a few hundred spins are not)."""
    counts = np.bincount(np.asarray(offsets, dtype=int), minlength=POCKETS).astype(float)
    spread = sum(w * np.roll(counts, s) for s, w in zip(range(-2, 3), SMOOTHING))
    return spread / max(1.0, spread.sum())


def best_offsets(offsets: list[int], k: int) -> list[int]:
    share = smoothed(offsets)
    return sorted(range(POCKETS), key=lambda o: (-share[o], o))[:k]


def choose_numbers(fit: list[int], pays: float) -> tuple[int, float, float]:
    """How many straight ups to bet, by two-fold cross-validation within the fit
    spins, repeated over ``CV_REPEATS`` random halvings (seeded), and the
    one-standard-error rule: the most numbers whose cross-validated return is
    within one standard error of the best. The in-sample best always looks
    like one number (its count is the luckiest), which then does worst on new
    spins; one halving alone still picks one to three numbers by luck now and
    then, and their wide interval decides a verdict without any prediction
    behind it; and with nothing to predict every k is as good as another, and
    the most numbers give the steadiest return (the tightest interval).
    Returns k, its cross-validated return and that return's standard error
    (over the fit spins: the repeats add no spins)."""
    values = np.asarray(fit, dtype=int)
    n = values.size
    if n < 2:
        return MAX_NUMBERS, -math.inf, math.inf
    rng = np.random.default_rng(CV_SEED)
    returns: dict[int, list[np.ndarray]] = {k: [] for k in range(1, MAX_NUMBERS + 1)}
    for _ in range(CV_REPEATS):
        order = rng.permutation(n)
        halves = (values[order[:n // 2]], values[order[n // 2:]])
        for train, test in (halves, halves[::-1]):
            ranked = best_offsets(list(train), MAX_NUMBERS)
            for k, got in returns.items():
                got.append(np.where(np.isin(test, ranked[:k]), pays / k - 1, -1.0))
    means, errors = {}, {}
    for k, got in returns.items():
        pooled = np.concatenate(got)
        means[k] = float(pooled.mean())
        errors[k] = float(pooled.std(ddof=1) / math.sqrt(n))
    best = max(means, key=lambda k: (means[k], -k))
    k = max(k for k in means if means[k] >= means[best] - errors[best])
    return k, means[k], errors[k]


def edge_at_cutoff(fit: list[int], held_out: list[int], payout: StraightPayout, confidence: float,
                   cutoff_s: float, informed: float, seen_at_s: float | None = None) -> CutoffEdge:
    """Choose the bets on the fit offsets, measure them on the held-out offsets."""
    pays = 1 + payout.odds
    k, _, _ = choose_numbers(fit, pays)
    chosen = set(best_offsets(fit, k))
    hits = sum(1 for o in held_out if o in chosen)
    edge = scaled_hits_edge(hits, len(held_out), pays / k, confidence, payout.house_edge, len(fit))
    return CutoffEdge(cutoff_s, payout.key, k, edge, informed, cutoff_s if seen_at_s is None else seen_at_s)


def wheel_edges(design, records: list[dict], predictions: dict[int, dict], cutoffs: list[float],
                payouts: list[StraightPayout], confidence: float) -> list[CutoffEdge]:
    """Every (cutoff, payout) edge from the campaign's spin records and the predictions.

    A player betting at a cutoff may bet on the prediction made at any earlier
    cutoff of the ladder (near the leaving point the ball's speed is hard to
    time and the leaving moment very sensitive to it, so a later estimate is
    not always a better one); which one is chosen on the fit spins: the latest
    whose cross-validated return is within one standard error of the best, so
    the edge never falls with the cutoff except by the held-out spins' noise."""
    valid = [r for r in records if r["valid"]]
    index_of = {n: i for i, n in enumerate(design.pockets)}
    fit_of, held_of, informed_of = [], [], []
    for j in range(len(cutoffs)):
        fit, held, informed = [], [], 0
        for r in valid:
            pred = predictions[r["seed"]]["predicted"][j]
            o = offset(index_of[r["number"]], pred)
            if r["seed"] % 2 == 0:
                fit.append(o)
            else:
                held.append(o)
                informed += pred is not None
        fit_of.append(fit)
        held_of.append(held)
        informed_of.append(informed / max(1, len(held)))
    out = []
    for payout in payouts:
        scores = [choose_numbers(fit, 1 + payout.odds)[1:] for fit in fit_of]
        for j, c in enumerate(cutoffs):
            best = max(range(j + 1), key=lambda i: (scores[i][0], i))
            floor = scores[best][0] - scores[best][1]
            use = max(i for i in range(j + 1) if scores[i][0] >= floor)
            out.append(edge_at_cutoff(fit_of[use], held_of[use], payout, confidence, c, informed_of[use],
                                      cutoffs[use]))
    order = {p.key: i for i, p in enumerate(payouts)}
    return sorted(out, key=lambda e: (e.cutoff_s, order[e.payout]))
