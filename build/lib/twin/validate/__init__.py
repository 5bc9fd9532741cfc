"""``twin validate``: fairness campaigns for tower and wheel designs.

Public API::

    from twin.validate import validate
    outcome = validate("fixtures/towers/standard.yaml", runs=2000, workers=2)
    outcome.passed, outcome.failed, outcome.to_json()

Modules, one idea each: ``runs`` (one drop or spin as a plain record),
``campaign`` (seeds, the resumable JSONL file, progress), ``engines`` (a local
process pool, or Ray), ``verdict`` (a check and Holm's correction over the
family), ``tower_checks`` and ``wheel_checks`` (the statistics), ``report``
(the HTML page and its pictures), ``pipeline`` (all of it in order).
"""

from twin.validate.pipeline import Outcome, validate

__all__ = ["Outcome", "validate"]
