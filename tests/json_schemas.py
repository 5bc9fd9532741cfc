"""Checking a command's ``--json`` output against its shipped schema
(tablebench_io.json_lines): every line an object of the kind's schema, the
last one its verdict. Tests import ``assert_json_lines``."""

from __future__ import annotations

import json
from typing import Any

from jsonschema import Draft202012Validator

from tablebench_io.json_lines import load_schema, schema_name


def assert_json_lines(text: str, kind: str, version: int = 1) -> list[dict[str, Any]]:
    """The lines of ``text``, each valid against the kind's schema, the last a verdict."""
    validator = Draft202012Validator(load_schema(kind, version))
    lines = [json.loads(line) for line in text.splitlines() if line.strip()]
    assert lines, f"no JSON lines from a tablebench.{kind} command"
    for number, obj in enumerate(lines, 1):
        errors = sorted(validator.iter_errors(obj), key=lambda e: list(e.path))
        assert not errors, f"line {number}: {errors[0].message} at {list(errors[0].path)}: {obj}"
        assert obj["schema"] == schema_name(kind, version), obj
    assert lines[-1]["record"] == "verdict", lines[-1]
    assert all(obj["record"] != "verdict" for obj in lines[:-1]), "a verdict before the last line"
    return lines


def json_records(text: str, kind: str, record: str, version: int = 1) -> list[dict[str, Any]]:
    """The ``record`` lines of a command's ``--json`` output, the whole of it checked first."""
    return [obj for obj in assert_json_lines(text, kind, version) if obj["record"] == record]


def json_record(text: str, kind: str, record: str, version: int = 1) -> dict[str, Any]:
    """The one ``record`` line of a command's ``--json`` output (its verdict, its summary)."""
    found = json_records(text, kind, record, version)
    assert len(found) == 1, f"{len(found)} {record!r} lines from a tablebench.{kind} command"
    return found[0]
