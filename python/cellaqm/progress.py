"""Progress of a long run on a terminal (simulated time, share done, ETA), and of a reproduction."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from typing import Any, Callable, TextIO


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


class StudyProgress:
    """Progress of a reproduction, on stderr.

    With stdout and stderr on a terminal: a bar of the simulations done, named
    after the first experiment not finished yet. Otherwise (a pipe, a log): a
    line as each experiment finishes (its runs, the simulations done of all,
    the time elapsed) and one every ``every`` seconds between. ``quiet``: nothing.
    """

    def __init__(self, study: str, done: int, total: int, bar: bool, stream: TextIO, quiet: bool = False,
                 every: float = 60.0, clock: Callable[[], float] = time.monotonic):
        self.study, self.done, self.total, self.quiet = study, done, total, quiet
        self.stream, self.every, self.clock = stream, every, clock
        self.start = self.last = clock()
        self._bar: Any = None
        if bar and not quiet and total > done:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

            self._bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                                 TextColumn("simulations"), TimeElapsedColumn(), console=Console(file=stream),
                                 transient=True, redirect_stdout=False, redirect_stderr=False)
            self._task = self._bar.add_task(study, total=total, completed=done)
            self._bar.start()

    def _elapsed(self) -> str:
        return _clock(self.clock() - self.start)

    def naming(self, experiment: str) -> None:
        """The experiment the bar is waiting for."""
        if self._bar is not None:
            self._bar.update(self._task, description=f"{self.study}: {experiment}")

    def advance(self) -> None:
        """One more simulation done."""
        self.done += 1
        if self._bar is not None:
            self._bar.update(self._task, completed=self.done)
        elif self.clock() - self.last >= self.every:
            self._line(f"{self.study}: {self.done} of {self.total} simulations, {self._elapsed()} elapsed")

    def finished(self, experiment: str, runs: int) -> None:
        """An experiment's runs are all in the store."""
        if self._bar is None:
            self._line(f"{self.study}: {experiment} done, {runs} runs ({self.done} of {self.total} simulations, "
                       f"{self._elapsed()} elapsed)")

    def _line(self, text: str) -> None:
        self.last = self.clock()
        if self.quiet:
            return
        self.stream.write(text + "\n")
        self.stream.flush()

    @contextlib.contextmanager
    def pause(self) -> Iterator[None]:
        """Steps the bar aside while something is printed."""
        if self._bar is None:
            yield
            return
        self._bar.stop()
        try:
            yield
        finally:
            self._bar.start()

    def close(self) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None
