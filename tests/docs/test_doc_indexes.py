"""Lists in docs/ that the code makes in a second (tests/docs/checked_blocks.py):
the `--json` kinds of docs/json.md, from the schemas shipped; the kinds of
page of docs/reports.md, from the calls that write them; the endings and exit
statuses of docs/bench-run.md, from bench.journal.ending."""

from __future__ import annotations

import ast
import json
import re

from tests.docs.checked_blocks import ROOT, check

SOURCES = ("bench", "twin", "tablebench_io")


def json_kinds() -> str:
    """A row per schema in schemas/: its kind, what its title says it is, its records."""
    lines = ["| schema | what writes it (the schema's title) | records, in order |", "| --- | --- | --- |"]
    for path in sorted((ROOT / "schemas").glob("*-1.schema.json")):
        schema = json.loads(path.read_text(encoding="utf-8"))
        kind, _, what = schema["title"].partition(": ")
        assert kind == schema["properties"]["schema"]["const"], path.name
        records = ", ".join(f"`{r}`" for r in schema["properties"]["record"]["enum"])
        lines.append(f"| `{kind}` | {what.replace('|', '/')} | {records} |")
    return "\n".join(lines)


def test_the_json_kinds_of_docs_json_are_the_schemas_shipped():
    check("docs/json.md", "json-kinds", json_kinds())


def _strings(node: ast.AST) -> list[str]:
    """The string constants of an expression (an f-string's literal parts apart)."""
    formatted = {id(n) for p in ast.walk(node) if isinstance(p, ast.JoinedStr) for n in ast.walk(p)}
    return [n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str)
            and id(n) not in formatted]


def page_kinds() -> dict[str, set[str]]:
    """Each kind of page a ``report_page(kind=...)`` call writes, with the
    modules that write it: the kind given as a string, or the strings a
    function assigns to the name it passes."""
    found: dict[str, set[str]] = {}
    for package in SOURCES:
        for path in sorted((ROOT / package).rglob("*.py")):
            text = path.read_text(encoding="utf-8")
            if "report_page(" not in text:
                continue
            tree = ast.parse(text)
            module = path.relative_to(ROOT).as_posix()
            for function in (n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))):
                for call in (n for n in ast.walk(function) if isinstance(n, ast.Call)):
                    name = getattr(call.func, "id", getattr(call.func, "attr", None))
                    kind = next((k.value for k in call.keywords if k.arg == "kind"), None)
                    if name != "report_page" or kind is None:
                        continue
                    if isinstance(kind, ast.Name):
                        kinds = [s for node in ast.walk(function) if isinstance(node, ast.Assign)
                                 for target, value in _pairs(node) if getattr(target, "id", None) == kind.id
                                 for s in _strings(value)]
                    else:
                        kinds = _strings(kind)
                    for text in kinds:
                        found.setdefault(text, set()).add(module)
    return found


def _pairs(node: ast.Assign):
    """(target, value) of an assignment, a tuple assigned element by element."""
    for target in node.targets:
        if isinstance(target, ast.Tuple) and isinstance(node.value, ast.Tuple):
            yield from zip(target.elts, node.value.elts)
        else:
            yield target, node.value


def test_the_kinds_of_page_of_docs_reports_are_the_ones_the_code_writes():
    kinds = page_kinds()
    assert "session report" in kinds and "recognition report" in kinds, kinds      # the scan finds them
    rows = [f"| {kind} | {', '.join(f'`{m}`' for m in sorted(kinds[kind]))} |" for kind in sorted(kinds)]
    check("docs/reports.md", "page-kinds",
          "\n".join(["| kind (the small line above the heading) | written in |", "| --- | --- |", *rows]))


def exit_statuses() -> str:
    from bench.journal.ending import STATUS
    from tablebench_io.commandline import Exit
    lines = ["| status | `Exit` | endings (`bench.journal.ending.STATUS`) |", "| --- | --- | --- |"]
    for status in Exit:
        endings = ", ".join(f"`{e}`" for e, s in STATUS.items() if s == status) or "none: not a session's ending"
        lines.append(f"| {int(status)} | `{status.name}` | {endings} |")
    return "\n".join(lines)


def test_the_exit_statuses_of_docs_bench_run_are_the_code_s():
    check("docs/bench-run.md", "exit-statuses", exit_statuses())
    table = (ROOT / "docs/bench-run.md").read_text(encoding="utf-8").split("<!-- checked: exit-statuses -->")[0]
    told = dict(re.findall(r"^\| (\d) \| (`[^|]+`) \|", table, re.M))       # the table of meanings above it
    made = dict(re.findall(r"^\| (\d) \| `[A-Z_]+` \| (`[^|]+`) \|", exit_statuses(), re.M))
    assert told == made, f"docs/bench-run.md's table of meanings names other endings than the code: {told} {made}"
