"""Reading a YAML input file (a design, a rules submission) so that a file
that cannot be read or parsed is refused with an error naming it. Each
caller passes its own error class (``twin.errors.DesignError``,
``bench.errors.RulesError``): both take ``(message, file=...)``."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

import yaml


def read_yaml(path: str | Path, error: Callable[..., Exception]) -> Any:
    """The parsed contents of ``path``; ``error(message, file=path)`` is raised
    if it cannot be read or is not YAML."""
    file = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as err:
        raise error(f"cannot read: {err.strerror or err}", file=file) from None
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as err:
        raise error(f"is not valid YAML: {err}", file=file) from None
