"""``twin edge``: what a player who watches a spin (or the tower's loading) can win.

Public API::

    from twin.edge import estimate_edge, Camera
    outcome = estimate_edge("fixtures/wheels/standard.yaml", runs=2000, workers=2)
    outcome.rows, outcome.safe_call("lightning"), outcome.verdict, outcome.lines_json()

Modules, one idea each: ``payouts`` (the payouts and their clauses),
``observer`` (what a camera tells the player), ``wheel`` (prediction and the
edge per cutoff), ``bets`` (how the player bets: sorting, skipping, how many
numbers), ``verdict`` (the latest safe call's interval, a call time shown
safe, comparisons), ``tower`` (the edge from the loaded faces), ``estimate``
(an edge's interval and the safe call time), ``pipeline`` (campaign,
predictions, edges), ``report`` (the HTML page). Method: docs/edge.md.
"""

from twin.edge.observer import Camera
from twin.edge.pipeline import EdgeError, EdgeOutcome, estimate_edge

__all__ = ["Camera", "EdgeError", "EdgeOutcome", "estimate_edge"]
