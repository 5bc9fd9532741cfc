"""What the bench and the twin share, in a package that imports neither:
reading input files (one YAML reader with limits against hostile files, one
field reader, one located-error class, bounded JSON lines) and the tool's
common face (the command-line conventions and exit statuses, progress bars,
the report page's frame and its charts).

A package of its own because both ``twin`` (designs) and ``bench/rules``
(submissions, game files) read YAML, and neither may borrow from the other:
``twin`` never imports ``bench``, and ``bench/rules`` never imports ``twin``.
It imports nothing of either.
"""

__version__ = "0.1.0"  # the one version of tablebench (bench and twin take it from here)

from tablebench_io.fields import Fields
from tablebench_io.located import LocatedError
from tablebench_io.yamlfile import MAX_ALIASES, MAX_BYTES, MAX_DEPTH, read_yaml

__all__ = ["Fields", "LocatedError", "MAX_ALIASES", "MAX_BYTES", "MAX_DEPTH", "read_yaml"]
