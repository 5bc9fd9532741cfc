"""A process's resident memory as Linux reports it (/proc/PID/status), for the
benchmarks that measure memory (flood, long session, monitor)."""

from __future__ import annotations

from pathlib import Path


def memory_mb(pid: int | str = "self", field: str = "VmHWM") -> float:
    """The peak (VmHWM) or present (VmRSS) resident memory of ``pid`` in MB;
    0.0 once the process is gone (or where /proc does not exist)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0
