"""mypy, ratcheted: fail on any error not in the baseline, so that the type
check holds from today while the errors it found on the day it was set up
(mostly Optional values used before a check narrows them) are fixed one by one.

    python .ci/mypy_ratchet.py            # mypy's errors against .ci/mypy-baseline.txt: exit 1 on a new one
    python .ci/mypy_ratchet.py --update   # write the baseline from today's errors (after fixing some)

An error is kept as "file: [code] message", without its line number, so that
an edit above it does not count as a new error; a count per such key, so that
a second copy of a known error in the same file does.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BASELINE = ROOT / ".ci" / "mypy-baseline.txt"
LINE = re.compile(r"^(?P<file>[^:]+):\d+: error: (?P<message>.*?)\s+\[(?P<code>[a-z-]+)\]$")


def errors() -> Counter[str]:
    done = subprocess.run([sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"),
                           "--no-error-summary", "--no-pretty", "--show-error-codes"],
                          cwd=ROOT, capture_output=True, text=True, timeout=1800)
    if done.returncode not in (0, 1):
        sys.exit(f"mypy failed to run (exit status {done.returncode}): {done.stderr.strip()[-2000:]}")
    found: Counter[str] = Counter()
    for line in done.stdout.splitlines():
        m = LINE.match(line)
        if m:
            found[f"{m['file']}: [{m['code']}] {m['message']}"] += 1
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--update", action="store_true", help="write the baseline from today's errors")
    args = parser.parse_args()
    found = errors()
    if args.update:
        BASELINE.write_text("".join(f"{n}\t{key}\n" for key, n in sorted(found.items())), encoding="utf-8")
        print(f"mypy baseline: {sum(found.values())} errors in {len({k.split(':')[0] for k in found})} files")
        return 0
    known: Counter[str] = Counter()
    for line in BASELINE.read_text(encoding="utf-8").splitlines():
        count, _, key = line.partition("\t")
        known[key] = int(count)
    new = found - known
    fixed = sum((known - found).values())
    if new:
        print(f"mypy: {sum(new.values())} new error(s), not in {BASELINE.relative_to(ROOT)}:")
        for key, n in sorted(new.items()):
            print(f"  {key}" + (f" (x{n})" if n > 1 else ""))
        return 1
    print(f"mypy: no new errors ({sum(found.values())} known in the baseline"
          + (f"; {fixed} fixed since: make lint-baseline to shrink it)" if fixed else ")"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
