"""``twin.commandline`` by the name it had before issue 29 grouped the code into wings
(docs/bench-run.md documented ``twin.commandline.Exit``): what both scripts
share now lives in ``tablebench_io.commandline``, which this module re-exports so
that code written against the old path keeps working."""

from tablebench_io.commandline import *  # noqa: F401,F403
