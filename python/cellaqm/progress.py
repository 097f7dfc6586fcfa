"""Progress of a long run on a terminal: simulated time, share done, ETA."""

from __future__ import annotations

import time
from typing import Callable, TextIO


def _clock(seconds: float) -> str:
    """``1h02m03s``, ``2m03s`` or ``3s``."""
    s = int(round(seconds))
    h, m, s = s // 3600, s // 60 % 60, s % 60
    return f"{h}h{m:02d}m{s:02d}s" if h else f"{m}m{s:02d}s" if m else f"{s}s"


class RunProgress:
    """A ``progress`` callback for :func:`cellaqm.run` that keeps one status
    line on `stream` once the run has taken `after` seconds of wall time;
    :meth:`close` erases it."""

    def __init__(self, stream: TextIO, after: float = 3.0, clock: Callable[[], float] = time.monotonic):
        self.stream = stream
        self.after = after
        self.clock = clock
        self.start = clock()
        self.width = 0

    def __call__(self, simulated_s: float, duration_s: float) -> None:
        elapsed = self.clock() - self.start
        if elapsed < self.after or simulated_s <= 0 or duration_s <= 0:
            return
        eta = (duration_s - simulated_s) * elapsed / simulated_s
        line = (f"simulated {simulated_s:,.0f} of {duration_s:,.0f} s ({100 * simulated_s / duration_s:.0f}%),"
                f" {_clock(elapsed)} elapsed, ETA {_clock(eta)} (Ctrl-C stops)")
        self.stream.write("\r" + line.ljust(self.width))
        self.stream.flush()
        self.width = len(line)

    def close(self) -> None:
        """Erase the status line, if one was shown."""
        if self.width:
            self.stream.write("\r" + " " * self.width + "\r")
            self.stream.flush()
            self.width = 0
