"""``bench adapters``: the wire formats the bench speaks (docs/adapters.md):
one line each, name first; one adapter in full; or the template of a new one."""

from __future__ import annotations

import sys

from tablebench_io.commandline import Exit
from tablebench_io.json_lines import JsonLines, add_json_option

TEMPLATE_FILES = ("pyproject.toml", "tablebench_json_lines.py", "README.md")


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "adapters", help="list the protocol adapters (the controllers' wire formats) the bench can speak",
        description="List the adapters: the bench's own protocol and every adapter an installed package declares "
                    "under the entry point group tablebench.adapters, one a line: name, version, the package it "
                    "comes from, what it speaks. With NAME: that adapter in full (its timeouts, its link checks "
                    "for bench conformance, its link misbehaviours for bench emulate). With --template DIR: write "
                    "a working template adapter package to start a new one from (docs/adapters.md). "
                    "Exit status: 0 listed, shown or written; 2 an adapter there is not (or a broken one named), "
                    "or a --template folder that is not new or cannot be written.")
    p.add_argument("name", nargs="?", metavar="NAME", help="show this adapter in full")
    p.add_argument("--template", metavar="DIR", help="write the template adapter package into DIR (a new folder)")
    add_json_option(p, "adapters")       # an "adapter" line each (or the one NAME), or a "template" line; the verdict
    p.set_defaults(func=run)


def run(args) -> int:
    from bench.adapters.registry import AdapterError, found, get_adapter, source_of

    lines = JsonLines("adapters") if args.json else None
    if args.template:
        status = _template(args.template, lines)
        if lines is not None and status == Exit.OK:
            lines.verdict(passed=True, status=status)
        return status
    if args.name:
        try:
            adapter = get_adapter(args.name)
            said = _described(adapter, source_of(adapter.name))
        except AdapterError as err:
            print(f"bench adapters: {err}", file=sys.stderr)
            return Exit.BAD_INPUT
        if lines is None:
            _print_described(said)
        else:
            lines.write("adapter", **said)
            lines.verdict(passed=True, status=Exit.OK)
        return Exit.OK
    # Third parties' adapters are tried in child processes under one bound
    # (bench.adapters.probe): a broken one is a BROKEN line, not this
    # command's end, and the listing is never held up longer than the bound.
    items = found()
    if lines is not None:
        for item in items:
            lines.write("adapter", name=item.name, version=None if item.problem else item.version,
                        source=item.source, summary=None if item.problem else item.summary, problem=item.problem)
        lines.verdict(passed=True, status=Exit.OK, adapters=len(items),
                      broken=sum(item.problem is not None for item in items))
        return Exit.OK
    width = max(len(item.name) for item in items)
    for item in items:
        if item.problem is None:
            print(f"{item.name:<{width}}  {item.version:<8}  {item.source:<24}  {item.summary}")
        else:
            print(f"{item.name:<{width}}  {'-':<8}  {item.source:<24}  BROKEN: {item.problem}")
    return Exit.OK


def _described(adapter, source: str) -> dict:
    """One adapter in full: what its text and its JSON line say."""
    from bench.adapters.loading import one_line
    from bench.adapters.registry import AdapterBroken

    try:
        t = adapter.timeouts
        checks = adapter.conformance_checks()
        misbehaviours = adapter.link_misbehaviours()
        return {"name": adapter.name, "version": adapter.version, "source": source, "summary": adapter.summary,
                "document": adapter.document or None,
                "timeouts": {"byte_s": t.byte, "frame_s": t.frame, "response_s": t.response, "retries": t.retries},
                "link_checks": [c.name for c in checks], "link_misbehaviours": sorted(misbehaviours)}
    except Exception as err:        # a third party's code: its failure is the adapter's, in one line
        raise AdapterBroken(adapter.name, source, one_line(f"{type(err).__name__}: {err}")) from None


def _print_described(said: dict) -> None:
    t = said["timeouts"]
    print(f"{said['name']} {said['version']} (from {said['source']})")
    print(f"  {said['summary']}")
    if said["document"]:
        print(f"  specification: {said['document']}")
    print(f"  timeouts: byte {t['byte_s']} s, frame {t['frame_s']} s, response {t['response_s']} s, "
          f"{t['retries']} retries")
    print(f"  its own link checks (bench conformance --adapter {said['name']}): "
          + (", ".join(said["link_checks"]) or "none"))
    print(f"  link misbehaviours (bench emulate --adapter {said['name']} --misbehave-link NAME): "
          + (", ".join(said["link_misbehaviours"]) or "none"))


def install_command(target) -> str:
    """How to install the written template: pip given a path installs that
    folder; a bare name (``my-adapter``) would ask the package index for it."""
    from pathlib import Path
    shown = str(target)
    if not Path(shown).is_absolute() and not shown.startswith(("./", "../")):
        shown = f"./{shown}"
    return f"pip install {shown}"


def _template(folder: str, lines: JsonLines | None = None) -> int:
    from importlib import resources
    from pathlib import Path

    target = Path(folder)
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        print(f"bench adapters: --template {folder}: not a new or empty folder", file=sys.stderr)
        return Exit.BAD_INPUT
    source = resources.files("bench.adapters") / "template"
    try:
        target.mkdir(parents=True, exist_ok=True)
        for name in TEMPLATE_FILES:
            (target / name).write_text((source / name).read_text(encoding="utf-8"), encoding="utf-8")
    except OSError as err:
        print(f"bench adapters: --template {folder}: {err.strerror or err}", file=sys.stderr)
        return Exit.BAD_INPUT
    if lines is not None:
        lines.write("template", adapter="json-lines", folder=str(target), files=list(TEMPLATE_FILES),
                    install=install_command(target))
    else:
        print(f"wrote the template adapter json-lines to {target}/ ({', '.join(TEMPLATE_FILES)}); "
              f"{install_command(target)} and it is listed here")
    return Exit.OK
