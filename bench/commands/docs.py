"""``bench docs [NAME [SECTION]]``: the documents that ship with tablebench,
printed where it is installed (an error's "bench docs protocol 11")."""

from __future__ import annotations

import sys

from tablebench_io.commandline import Exit


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "docs", help="print a shipped document (protocol, rules, controller-testing, ...)",
        description="Print one of the documents that ship with tablebench, or one section of it. Without NAME: "
                    "the list. Error messages name the document and section to read, e.g. 'bench docs "
                    "protocol 11'. Exit status 0, or 2 for a document or section there is not.")
    p.add_argument("name", nargs="?", metavar="NAME", help="a document: protocol, rules, controller-testing, ...")
    p.add_argument("section", nargs="?", metavar="SECTION",
                   help="a section by its number (5) or the first words of its heading (deadlines)")
    p.set_defaults(func=run)


def run(args) -> int:
    import tablebench_docs
    if args.name is None:
        for name in tablebench_docs.names():
            print(f"{name:<20} {tablebench_docs.title(name)}")
        print("bench docs NAME [SECTION] prints one")
        return Exit.OK
    try:
        text = (tablebench_docs.section(args.name, args.section) if args.section
                else tablebench_docs.text(args.name))
    except KeyError as err:
        print(f"bench docs: {err.args[0]}", file=sys.stderr)
        return Exit.BAD_INPUT
    sys.stdout.write(text)
    return Exit.OK
