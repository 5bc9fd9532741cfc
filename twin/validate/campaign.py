"""A campaign: the seeds of its runs, the file its records go to, the progress bar.

Run i of a campaign starting at seed S uses seed S + i, whatever engine and
however many workers run it: the record of a run depends on nothing else
(``twin drop DESIGN --seed S+i`` or ``twin spin`` repeats it). Records are
appended to a JSON-lines file as their chunk finishes, one line each, after a
header line naming the design (and its SHA-256), the kind, the first seed and
the twin that draws the runs (``twin``: ``twin.fingerprint``). Started again
on the same file, a campaign reads what is there and runs only the seeds
still missing, so an interrupted campaign resumes where it stopped and a
longer one extends a shorter one; but not on a twin whose canary differs
from the one that started it (the runs of two twins are not one campaign). A line cut short by the interruption
is dropped. Work goes out in fixed blocks of seeds (see ``twin.validate.runs``).
"""

from __future__ import annotations

import hashlib
import json
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, TextIO

from tablebench_io.locking import try_lock
from tablebench_io.progress import bar as progress_bar

from twin import fingerprint as twin_fingerprint
from twin.errors import TwinError
from twin.validate.engines import Engine
from twin.kinds import plant_kind
from twin.validate.runs import block_of

FORMAT = 1


class CampaignError(TwinError):
    """A results file that belongs to another campaign, or cannot be read."""


@dataclass(frozen=True)
class Plan:
    kind: str              # "tower" or "wheel"
    design_path: str
    design_text: str
    first_seed: int
    runs: int

    @property
    def design_sha256(self) -> str:
        return hashlib.sha256(self.design_text.encode("utf-8")).hexdigest()

    @property
    def seeds(self) -> range:
        return range(self.first_seed, self.first_seed + self.runs)

    @property
    def unit(self) -> str:
        return plant_kind(self.kind).run

    def header(self) -> dict:
        return {"twin_validate": FORMAT, "kind": self.kind, "design": self.design_path,
                "design_sha256": self.design_sha256, "first_seed": self.first_seed}


def default_results_path(plan: Plan) -> Path:
    """Where records go when the user names no file: a hidden folder in the
    current directory, one file per design content, kind and first seed."""
    stem = Path(plan.design_path).stem
    return Path(".twin-validate") / f"{stem}-{plan.design_sha256[:12]}-{plan.kind}-seed{plan.first_seed}.jsonl"


@contextmanager
def appending(path: Path) -> Iterator[TextIO]:
    """``path`` opened for appending, held by this process alone until the
    block ends (an advisory lock, released by the OS if the process dies).
    Two runs appending to one campaign's file would interleave their lines
    and each resume from a file the other is changing; the second is refused
    at once instead, naming the file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as out:
        if not try_lock(out.fileno()):
            raise CampaignError(f"{path}: another twin run is writing this file; wait for it to end, "
                                "or name another file with --results") from None
        yield out


def complete_lines(path: Path) -> list[str]:
    """The whole lines of an append-only JSON-lines file (a campaign's records,
    the edge's predictions). A last line without its newline (the writer was
    interrupted) is cut off the file, so that appending resumes cleanly."""
    if not path.exists() or path.stat().st_size == 0:
        return []
    raw = path.read_bytes()
    if not raw.endswith(b"\n"):
        keep = raw.rfind(b"\n") + 1
        with path.open("r+b") as f:
            f.truncate(keep)
        raw = raw[:keep]
    return raw.decode("utf-8").splitlines()


def read_records(path: Path, plan: Plan) -> dict[int, dict]:
    """The records already in ``path`` for this plan, by seed."""
    lines = complete_lines(path)
    if not lines:
        return {}
    try:
        header = json.loads(lines[0])
    except json.JSONDecodeError:
        header = None
    wanted = plan.header()
    # The design is matched by its contents: the same file named by another
    # relative path (or a copy) continues the campaign.
    if not isinstance(header, dict) or any(header.get(k) != v for k, v in wanted.items() if k != "design"):
        raise CampaignError(f"{path}: holds another campaign ({lines[0][:200]}); expected {json.dumps(wanted)}. "
                            "Name another file with --results, or delete this one.")
    records: dict[int, dict] = {}
    for number, line in enumerate(lines[1:], start=2):
        try:
            record = json.loads(line)
            records[int(record["seed"])] = record
        except (json.JSONDecodeError, KeyError, TypeError, ValueError):
            raise CampaignError(f"{path}: line {number} is not a run record: {line[:200]}") from None
    return records


def campaign_twin(path: Path) -> dict | None:
    """The fingerprint of the twin that drew a campaign's runs (its file's
    header); None for a file written before campaigns recorded it."""
    try:
        with Path(path).open(encoding="utf-8") as f:
            header = json.loads(f.readline())
    except (OSError, ValueError):
        return None
    twin = header.get("twin") if isinstance(header, dict) else None
    return twin if isinstance(twin, dict) else None


def check_same_twin(path: Path, plan: Plan) -> None:
    """Runs are about to be added to ``path``: refused (CampaignError) if the
    twin that started it draws its canary runs of the kind otherwise than
    this one. A file that names no twin is continued."""
    recorded = campaign_twin(path)
    if recorded is None:
        return
    here = twin_fingerprint.fingerprint()
    if not twin_fingerprint.draws_alike(recorded, here, plan.kind):
        differs = "; ".join(twin_fingerprint.differences(recorded, here))
        raise CampaignError(f"{path}: its {plan.unit}s were drawn by another twin ({differs}); the runs of two "
                            "twins do not make one campaign. Name another file with --results, or delete this one.")


def blocks_to_run(plan: Plan, done: dict[int, dict]) -> list[list[int]]:
    """The campaign's seeds in blocks (``runs.block_of``), for every block with
    a seed still missing. A block is the unit of work and of resuming: one
    cut short is run again whole (each run depends on its seed alone, so its
    records come out the same) and only the missing records are appended."""
    blocks: dict[int, list[int]] = {}
    for seed in plan.seeds:
        blocks.setdefault(block_of(plan.kind, seed), []).append(seed)
    return [seeds for seeds in blocks.values() if any(s not in done for s in seeds)]


def run_campaign(plan: Plan, engine: Engine, results: Path, progress: bool = True) -> list[dict]:
    """Every run of the plan, in seed order: read from ``results`` when done
    before, run by ``engine`` (and appended to ``results``) when not."""
    with appending(results) as out:
        done = read_records(results, plan)      # under the lock: it may cut a torn last line off
        todo = [s for s in plan.seeds if s not in done]
        if todo and out.tell() > 0:
            check_same_twin(results, plan)
        with progress_bar(total=plan.runs, initial=plan.runs - len(todo), desc=f"{plan.unit}s", unit=plan.unit,
                          disable=not progress, dynamic_ncols=True) as bar:
            _append_runs(plan, engine, out, done, todo, bar)
    return [done[s] for s in plan.seeds]


def _append_runs(plan: Plan, engine: Engine, out: TextIO, done: dict[int, dict], todo: list[int], bar) -> None:
    """Run the missing seeds' blocks, appending each block's new records as it comes."""
    if out.tell() == 0:
        out.write(json.dumps({**plan.header(), "twin": twin_fingerprint.fingerprint()}, sort_keys=True) + "\n")
        out.flush()
    if not todo:
        return
    for records in engine.run(plan.kind, plan.design_path, plan.design_text, blocks_to_run(plan, done)):
        new = [r for r in records if int(r["seed"]) not in done]
        out.write("".join(json.dumps(r, sort_keys=True) + "\n" for r in new))
        out.flush()
        for r in new:
            done[int(r["seed"])] = r
        bar.update(len(new))
