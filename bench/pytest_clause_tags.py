"""The clause-tags pytest plugin by its public name; it lives in
``bench.scenarios.clause_tags``, which the ``pytest11`` entry point of the
same name loads."""

from bench.scenarios.clause_tags import *  # noqa: F401,F403
