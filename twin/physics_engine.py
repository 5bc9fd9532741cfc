"""PyBullet, imported without its banner.

The C extension prints ``pybullet build time: …`` on the process's standard
error when it is first imported, which lands in every command's output (and
in a ``--json`` consumer's logs). Every twin module imports PyBullet from
here, so the banner is silenced in one place: file descriptor 2 points at
/dev/null for the length of the import and nothing else.
"""

from __future__ import annotations

import os
import sys


def _import_quietly():
    try:
        sys.stderr.flush()
        saved = os.dup(2)
    except (OSError, ValueError):          # no real stderr (embedded, closed): import as it is
        import pybullet
        return pybullet
    try:
        with open(os.devnull, "wb") as null:
            os.dup2(null.fileno(), 2)
            import pybullet
    finally:
        os.dup2(saved, 2)
        os.close(saved)
    return pybullet


pybullet = _import_quietly()
