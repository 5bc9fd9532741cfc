"""The edge of a player who watches a spin up to a cutoff and then bets straight ups.

For each spin and cutoff the player's estimate of the ball and rotor
(``twin.edge.observer``) is carried forward with the twin's own track model
(the design's track: the player does not know the spin's own irregularities,
``twin.wheel.track.Warp``) to where the ball will leave the track, and the
rotor (coasting down with the design's decay time) to where it will be then:
the pocket under the leaving point is the prediction. The descent over the
deflectors scatters the ball from there; how the player learns that scatter
and bets on it is ``twin.edge.bets``: learnt on the *fit* spins (even seeds),
measured on the other spins (odd seeds), so the edge is what the strategy
won, not what its fit promised. With nothing seen (cutoff 0, or fewer than
two sightings) the predicted pocket is the rotor's pocket 0: on a fair wheel
the edge of betting then is the house edge of the bets, as it must be.

Invalid spins are left out: a dealer spins again and the bets stand.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from twin import fixed_arithmetic as fx
from twin.edge import bets
from twin.edge.bets import POCKETS, Spins
from twin.edge.estimate import Edge, scaled_hits_edge, weighted_hits_edge
from twin.edge.observer import Camera, Estimate, observe
from twin.edge.payouts import StraightPayout
from twin.wheel.spin import draw_launch
from twin.wheel.track import LeavingMap, TrackModel

SPEED_SCAN = 9          # launch speeds and angles tried to bound the track times of a design
ANGLE_SCAN = 8


def predicted_pocket(design, leaving: LeavingMap, est: Estimate) -> tuple[int, float]:
    """The rotor pocket (index in ``design.pockets``) under the point where the ball
    is predicted to leave the track, when it leaves; and that point (stator degrees)."""
    dt, theta_leave = leaving.leave(est.ball_angle_rad, est.ball_speed_m_s)
    tau = design.rotor.decay_time_s
    rotor_then = est.rotor_angle_rad + est.rotor_speed_rad_s * tau * (1 - math.exp(-dt / tau))
    beta = theta_leave - rotor_then           # the ball's angle in the rotor's frame
    return int(round(-beta / (2 * math.pi / POCKETS))) % POCKETS, math.degrees(theta_leave) % 360.0


def noise_rng(noise_seed: int, seed: int, cutoff_s: float) -> np.random.Generator:
    """The observer's reading errors for one spin and cutoff: their own recorded seed."""
    return np.random.default_rng([noise_seed, seed, round(cutoff_s * 1000), 617])


def predict_spin(design, seed: int, cutoffs: list[float], camera: Camera, noise_seed: int = 0,
                 leaving: LeavingMap | None = None) -> dict:
    """One spin's predictions at each cutoff: the predicted pocket index (None:
    nothing known), where the ball is expected to leave the track (degrees) and
    the rotor's speed as timed (rev/s). A cutoff after this spin's ball left the
    track is, for this spin, its leaving time."""
    launch = draw_launch(design, seed)
    leaving = leaving or LeavingMap(TrackModel(design))       # what the player knows: the design's track
    exit_, solution = TrackModel.for_spin(design, seed).ride(launch.ball_angle_rad,
                                                             launch.ball_speed_m_s)   # what happens: this spin's track
    tau = design.rotor.decay_time_s

    def ball(t):
        y = solution.sol(np.clip(t, 0.0, exit_.time_s))
        return y[0], y[1]

    def rotor(t):
        angle = launch.rotor_angle_rad + launch.rotor_speed_rad_s * tau * (1 - fx.exp(-t / tau))
        return angle, launch.rotor_speed_rad_s * fx.exp(-t / tau)

    # Per cutoff; None where the camera had not yet seen enough to estimate.
    predicted: list[int | None] = []
    places: list[float | None] = []
    speeds: list[float | None] = []
    for c in cutoffs:
        est = observe(camera, min(c, exit_.time_s), ball, rotor, leaving.model.r, noise_rng(noise_seed, seed, c))
        if est is None:
            predicted.append(None)
            places.append(None)
            speeds.append(None)
            continue
        pocket, place = predicted_pocket(design, leaving, est)
        predicted.append(pocket)
        places.append(round(place, 3))
        speeds.append(round(abs(est.rotor_speed_rad_s) / (2 * math.pi), 5))
    return {"seed": seed, "track_time_s": round(exit_.time_s, 6), "predicted": predicted, "leave_deg": places,
            "rotor_rev_s": speeds}


def track_time_range(design) -> tuple[float, float]:
    """Shortest and longest time on the track over a scan of the launch ranges
    (speeds by angles): bounds a cutoff before any spin is run."""
    launch = design.launch
    times = []
    leaving = LeavingMap(TrackModel(design))
    for speed in np.linspace(launch.ball_speed_rev_s[0], launch.ball_speed_rev_s[1], SPEED_SCAN):
        for angle in np.linspace(launch.ball_angle_deg[0], launch.ball_angle_deg[1], ANGLE_SCAN, endpoint=False):
            times.append(leaving.leave(math.radians(angle), speed * 2 * math.pi * leaving.model.r)[0])
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
    edge: Edge                   # per unit staked, on the held-out spins bet
    informed: float              # share of held-out spins where the player had seen enough
    seen_at_s: float             # the cutoff whose prediction the player bets on (at most cutoff_s)
    strategy: str = "all spins alike"
    bet_share: float = 1.0       # share of held-out spins bet on (the rest skipped)

    def to_json(self) -> dict:
        return {"cutoff_s": self.cutoff_s, "payout": self.payout, "numbers_bet": self.numbers,
                "informed_share": round(self.informed, 4), "prediction_at_s": self.seen_at_s,
                "strategy": self.strategy, "bet_share": round(self.bet_share, 4), **self.edge.to_json()}


@dataclass(frozen=True)
class Ladder:
    """Every cutoff's spins, fit and held out, as arrays (what ``twin.edge.verdict`` resamples)."""
    cutoffs: list[float]
    fit: list[Spins]             # one per cutoff; the same spins in the same order at every cutoff
    held: list[Spins]

    def take(self, fit_index: np.ndarray, held_index: np.ndarray) -> "Ladder":
        return Ladder(self.cutoffs, [f.take(fit_index) for f in self.fit], [h.take(held_index) for h in self.held])


def place_bin(design, leave_deg: float) -> int:
    """Which third of the deflectors' spacing the ball is expected to leave the track in
    (measured from a deflector; the spacing is 360 degrees / their count)."""
    bowl = design.bowl
    count = max(1, len(bowl.deflectors))
    first = bowl.deflectors[0].angle_deg if bowl.deflectors else 0.0
    spacing = 360.0 / count
    return min(bets.BINS - 1, int(((leave_deg - first) % spacing) / spacing * bets.BINS))


def ladder_of(design, records: list[dict], predictions: dict[int, dict], cutoffs: list[float]) -> Ladder:
    """The spins at every cutoff: even seeds fit, odd seeds held out. The rotor's
    speed is binned at the fit spins' terciles of each cutoff."""
    valid = [r for r in records if r["valid"]]
    index_of = {n: i for i, n in enumerate(design.pockets)}
    groups = ([r for r in valid if r["seed"] % 2 == 0], [r for r in valid if r["seed"] % 2 == 1])
    fit_list, held_list = [], []
    for j in range(len(cutoffs)):
        speeds = [predictions[r["seed"]]["rotor_rev_s"][j] for r in groups[0]]
        known = [x for x in speeds if x is not None]
        edges = np.quantile(known, [1 / 3, 2 / 3]) if known else np.array([0.0, 0.0])
        out = []
        for group in groups:
            pred = [predictions[r["seed"]] for r in group]
            informed = np.array([p["predicted"][j] is not None for p in pred], dtype=bool)
            off = np.array([offset(index_of[r["number"]], p["predicted"][j]) for r, p in zip(group, pred)], dtype=int)
            rotor = np.array([0 if p["rotor_rev_s"][j] is None else int(np.searchsorted(edges, p["rotor_rev_s"][j]))
                              for p in pred], dtype=int)
            place = np.array([0 if p["leave_deg"][j] is None else place_bin(design, p["leave_deg"][j]) for p in pred],
                             dtype=int)
            out.append(Spins(off.reshape(-1), informed.reshape(-1), rotor.reshape(-1), place.reshape(-1)))
        fit_list.append(out[0])
        held_list.append(out[1])
    return Ladder(list(cutoffs), fit_list, held_list)


def ladder_edges(ladder: Ladder, payout: StraightPayout, confidence: float, conditions=bets.CONDITIONS,
                 weight: float = 1.0) -> list[CutoffEdge]:
    """Every cutoff's edge at one payout. A player betting at a cutoff may bet on
    the prediction made at any earlier cutoff of the ladder (near the leaving point
    the ball's speed is hard to time, so a later estimate is not always a better
    one); which one is chosen on the fit spins: the latest whose cross-validated
    return is within one standard error of the best. ``weight``: how many spins
    each spin counts for, in the player's tests and the edges' intervals (a
    halving judged as the whole campaign: ``twin.edge.verdict``)."""
    pays = 1 + payout.odds
    chosen = [bets.choose(fit, pays, conditions, weight) for fit in ladder.fit]
    out = []
    for j, c in enumerate(ladder.cutoffs):
        best = max(range(j + 1), key=lambda i: (chosen[i][1], i))
        floor = chosen[best][1] - chosen[best][2]
        use = max(i for i in range(j + 1) if chosen[i][1] >= floor)
        strategy, _, _, kept = chosen[use]
        fit, held = ladder.fit[use], ladder.held[use]
        got = bets.measure(fit, held, strategy, kept)
        edge = (scaled_hits_edge(got.hits, got.bets, pays / strategy.numbers, confidence, payout.house_edge, len(fit))
                if weight == 1.0 else
                weighted_hits_edge(got.hits, got.bets, pays / strategy.numbers, confidence, payout.house_edge,
                                   len(fit), weight))
        informed = float(held.informed.mean()) if len(held) else 0.0
        out.append(CutoffEdge(c, payout.key, strategy.numbers, edge, informed, ladder.cutoffs[use], strategy.label,
                              got.bets / max(1, got.spins)))
    return out


def wheel_edges(design, records: list[dict], predictions: dict[int, dict], cutoffs: list[float],
                payouts: list[StraightPayout], confidence: float, ladder: Ladder | None = None) -> list[CutoffEdge]:
    """Every (cutoff, payout) edge from the campaign's spin records and the predictions."""
    ladder = ladder or ladder_of(design, records, predictions, cutoffs)
    out = []
    for payout in payouts:
        out += ladder_edges(ladder, payout, confidence)
    order = {p.key: i for i, p in enumerate(payouts)}
    return sorted(out, key=lambda e: (e.cutoff_s, order[e.payout]))
