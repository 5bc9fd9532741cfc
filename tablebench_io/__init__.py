"""Reading the bench's and the twin's input files: one YAML reader with limits
against hostile files, one field reader (typed fields, unknown fields refused
with a suggestion) and one located-error class for both.

A package of its own because both ``twin`` (designs) and ``bench/rules``
(submissions, game files) read YAML, and neither may borrow from the other:
``twin`` never imports ``bench``, and ``bench/rules`` never imports ``twin``.
It imports nothing of either.
"""

from tablebench_io.fields import Fields
from tablebench_io.located import LocatedError
from tablebench_io.yamlfile import MAX_ALIASES, MAX_BYTES, MAX_DEPTH, read_yaml

__all__ = ["Fields", "LocatedError", "MAX_ALIASES", "MAX_BYTES", "MAX_DEPTH", "read_yaml"]
