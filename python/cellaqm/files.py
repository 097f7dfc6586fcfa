"""Writing result files so that a reader never sees a partial one.

Every file goes to a temporary name in its directory (``.<name>.<random>.tmp``)
and is renamed into place once complete: a full disk, Ctrl-C or ``kill -9``
leaves the previous file or none, never a truncated one. The file gets the
mode any new file would (``0666`` less the umask), so that a store shared with
collaborators or Ray nodes stays readable.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Callable


def _read_umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


#: The process's umask, read once at import (reading it means setting it).
UMASK = _read_umask()


def atomic_write(path: Path, write: Callable[[str], object]) -> None:
    """Write via ``write(tmp_path)`` to a temporary file next to ``path``, then rename it into place."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(fd, 0o666 & ~UMASK)
        os.close(fd)
        write(tmp)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def remove_temporaries(directory: Path) -> None:
    """Remove temporary files left in ``directory`` by a killed writer (never complete results)."""
    if directory.is_dir():
        for p in directory.glob(".*.tmp"):
            try:
                p.unlink()
            except OSError:
                pass
