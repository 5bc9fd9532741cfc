"""The oracle's summary of every round settled, in memory that stays flat
however long the session (issue 42, item 6).

A session's JUnit file has a case for every round and its outcome classes
are counted over every round, so every round's ``RoundSummary`` is kept. They
are kept as numbers: the money and counts in 64-bit columns, the outcome, the
readings and each Lucky Number as the index of a value seen before (a few
hundred values for three dice or a wheel, however many rounds). Each block of
``BLOCK_ROWS`` rows then goes to a temporary file of its own process (deleted
when it closes), and memory keeps a block's place, not its rows: 61 bytes a
round plus its Lucky Numbers' 8 each on disk, 48 bytes a block in memory.
A block read back is kept until another is asked for, so going over the
rounds in order reads each block once.

If the temporary file cannot be written (a full disk, no temporary folder),
the rows stay in memory, as before this module: nothing recorded is lost.
"""

from __future__ import annotations

import tempfile
from array import array
from typing import IO, Any, Callable, Iterator

from bench.oracle.records import RoundSummary

BLOCK_ROWS = 8192

_NUMBERS = ("round", "staked", "returned", "expected", "wagers", "violations")
# Every column of a block, in the order a block is written: the numbers, then
# no_roll, the outcome's and the readings' kinds, how many Lucky Numbers.
_COLUMNS = _NUMBERS + ("no_roll", "outcome", "throws", "lucky_count")


def _throws_key(throws: tuple) -> tuple:
    """The readings' value as a key (SENSOR fields are dicts, their lists made tuples)."""
    return tuple(tuple((k, tuple(v) if isinstance(v, list) else v) for k, v in sorted(throw.items()))
                 for throw in throws)


class _Kinds:
    """One index for each distinct value, the first object seen standing for
    the others; a value that cannot be a key (not hashable, or not SENSOR
    fields for the readings) is given an index of its own."""

    def __init__(self, key: Callable[[Any], Any] = lambda value: value) -> None:
        self.values: list = []
        self._index: dict = {}
        self._key = key

    def of(self, value: Any) -> int:
        try:
            key = self._key(value)
            found = self._index.get(key)
        except (AttributeError, TypeError):
            key, found = None, None
        if found is not None:
            return found
        self.values.append(value)
        if key is not None:
            self._index[key] = len(self.values) - 1
        return len(self.values) - 1


class _Block:
    """The columns of up to BLOCK_ROWS rows, in memory."""

    def __init__(self) -> None:
        self.columns = {name: array("q") for name in _COLUMNS}
        self.lucky = array("q")         # every row's Lucky Numbers' kinds, one after another
        self.starts = array("q")        # where each row's begin in ``lucky`` (not written: the counts say)

    def add_lucky(self, kinds: list[int]) -> None:
        self.starts.append(len(self.lucky))
        self.lucky.extend(kinds)

    def to_bytes(self) -> tuple[bytes, int]:
        return b"".join(self.columns[name].tobytes() for name in _COLUMNS) + self.lucky.tobytes(), len(self.lucky)

    @classmethod
    def from_bytes(cls, data: bytes, rows: int, lucky: int) -> _Block:
        block, width, at = cls(), array("q").itemsize, 0
        for name in _COLUMNS:
            block.columns[name].frombytes(data[at:at + rows * width])
            at += rows * width
        block.lucky.frombytes(data[at:at + lucky * width])
        start = 0
        for count in block.columns["lucky_count"]:
            block.starts.append(start)
            start += count
        return block


class RoundLog:
    """The oracle's ``RoundSummary`` of every round settled, made again on
    access. A sequence: ``len``, iteration, an index or a slice."""

    def __init__(self, block_rows: int = BLOCK_ROWS) -> None:
        self._block_rows = block_rows
        self._tail = _Block()                   # the rows not yet written out
        self._written: list[tuple[int, int, int]] = []   # each block on file: (offset, bytes, Lucky Numbers)
        self._file: IO[bytes] | None = None
        self._unwritable = False                # the file failed once: every later row stays in memory
        self._kept: list[_Block] = []           # blocks that could not be written, in order, in memory
        self._read: tuple[int, _Block] | None = None   # the last block read back
        self._outcomes = _Kinds(lambda outcome: (type(outcome), outcome))   # a pocket 1, never True
        self._throws = _Kinds(_throws_key)
        self._lucky = _Kinds()
        self._big: dict[tuple[str, int], int] = {}     # a number past 64 bits (a controller's absurd SETTLE)
        self._length = 0

    def append(self, summary: RoundSummary) -> None:
        index, columns = self._length, self._tail.columns
        for name in _NUMBERS:
            value = getattr(summary, name)
            try:
                columns[name].append(value)
            except OverflowError:
                columns[name].append(0)
                self._big[name, index] = value
        columns["no_roll"].append(bool(summary.no_roll))
        columns["outcome"].append(self._outcomes.of(summary.outcome))
        columns["throws"].append(self._throws.of(summary.throws))
        columns["lucky_count"].append(len(summary.lucky))
        self._tail.add_lucky([self._lucky.of(lucky) for lucky in summary.lucky])
        self._length += 1
        if len(columns["round"]) >= self._block_rows:
            self._write_out()

    def _write_out(self) -> None:
        """The full tail block to the file, or kept in memory if the file cannot take it."""
        block, self._tail = self._tail, _Block()
        if not self._unwritable:
            data, lucky = block.to_bytes()
            try:
                if self._file is None:
                    self._file = tempfile.TemporaryFile(prefix="tablebench-rounds-")
                offset = self._file.seek(0, 2)
                self._file.write(data)
                self._file.flush()
                self._written.append((offset, len(data), lucky))
                return
            except OSError:
                self._unwritable = True      # what the file holds is still read; the rest stays here
        self._kept.append(block)

    def _block(self, number: int) -> _Block:
        """Block ``number`` (0-based): on file, kept in memory, or the tail."""
        if number < len(self._written):
            if self._read is not None and self._read[0] == number:
                return self._read[1]
            assert self._file is not None
            offset, size, lucky = self._written[number]
            self._file.seek(offset)
            data = self._file.read(size)
            if len(data) != size:
                raise OSError(f"the oracle's temporary file of rounds gave {len(data)} of {size} bytes")
            block = _Block.from_bytes(data, self._block_rows, lucky)
            self._read = (number, block)
            return block
        number -= len(self._written)
        return self._kept[number] if number < len(self._kept) else self._tail

    def __len__(self) -> int:
        return self._length

    def _at(self, index: int) -> RoundSummary:
        block = self._block(index // self._block_rows)
        row = index % self._block_rows
        columns = block.columns
        numbers = {name: self._big.get((name, index), columns[name][row]) for name in _NUMBERS}
        start = block.starts[row]
        lucky = self._lucky.values
        return RoundSummary(outcome=self._outcomes.values[columns["outcome"][row]],
                            no_roll=bool(columns["no_roll"][row]),
                            lucky=tuple(lucky[i] for i in block.lucky[start:start + columns["lucky_count"][row]]),
                            throws=self._throws.values[columns["throws"][row]], **numbers)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self._at(i) for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError("round summary index out of range")
        return self._at(index)

    def __iter__(self) -> Iterator[RoundSummary]:
        return (self._at(i) for i in range(len(self)))

    def __repr__(self) -> str:
        return f"RoundLog({len(self)} rounds)"
