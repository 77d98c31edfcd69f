"""Recovery of an embedded data folder whose append-only file no longer replays.

A start that dies while loading (FalkorDB 4.16 can crash replaying a file in which a verbatim write query and
logged effects do not compose, after a rewrite that overlapped writes) would otherwise refuse every later open
of the folder. Instead the last state that replays is found and kept, and nothing is deleted:

1. the base (the snapshot the last rewrite wrote) with the longest run of the commands logged after it that a
   server loads: a binary search over command boundaries, each step a probe server started on a copy in a work
   folder (replay is deterministic, so a prefix that loads is followed only by prefixes that load, up to the
   first command that crashes);
2. if the base itself does not load: the known-good snapshot, the files the last successful start loaded;
3. if neither loads, nothing is changed and the start fails as before.

The original files move to ``falkordb.unreplayable-<UTC time>/`` beside a ``RECOVERY.txt`` saying what was kept.
"""

from __future__ import annotations

import dataclasses
import logging
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ._aof import AOF_DIR, AppendOnlyFile, restore_snapshot, snapshot_exists

__all__ = ["Recovery", "recover_folder"]

_log = logging.getLogger(__name__)
_WORK_DIR = "falkordb.recovery"
_NOTE = "RECOVERY.txt"


@dataclass(frozen=True)
class Recovery:
    """What a start kept of an append-only file that did not replay."""

    data_dir: Path
    """The data folder that was recovered."""
    kept: Path
    """Where the original, unreplayable files were moved (nothing was deleted)."""
    logged: int
    """Commands logged after the base of the original file."""
    replayed: int
    """How many of them the recovered state holds (``logged`` minus what was lost)."""
    from_snapshot: bool
    """True when the base itself did not load and the last known-good snapshot was restored instead."""

    def describe(self) -> str:
        """One paragraph for the log and the user: what was kept, what was lost, where the originals are."""
        if self.from_snapshot:
            kept = ("the state its last successful start loaded (the known-good snapshot); the writes made since "
                    "that start are not in the graph")
        elif self.replayed == self.logged:
            kept = "every logged write"
        else:
            lost = self.logged - self.replayed
            kept = (f"the state up to write {self.replayed} of the {self.logged} logged since its last rewrite; "
                    f"{'the write' if lost == 1 else f'the {lost} writes'} after it "
                    f"{'is' if lost == 1 else 'are'} not in the graph")
        return (f"The embedded FalkorDB in {self.data_dir} could not replay its append-only file, and was "
                f"recovered to {kept}. The original files are kept in {self.kept}. Fix: check the documents "
                "written last (kg.status(), and re-ingest any that are missing or old: ingest skips those stored "
                "unchanged), then run finalize.")


def recover_folder(data_dir: Path, loads: Callable[[Path], bool]) -> Recovery | None:
    """Replace the folder's unreplayable append-only file with the last state that loads, keeping the original.

    Args:
        data_dir: the embedded server's data folder, its server stopped.
        loads: starts a probe server on a data folder holding only an ``appendonlydir``; True when it loaded it.

    Returns:
        What was kept, or None when there is no append-only file, or neither its base nor the known-good snapshot
        loads (then nothing was changed).
    """
    aof = AppendOnlyFile.read(data_dir / AOF_DIR)
    if aof is None:
        return None
    work = data_dir / _WORK_DIR
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir()
    ends = aof.commands()
    try:
        replayed = _longest_prefix(aof, ends, work, loads)
        if replayed is None:
            return _from_snapshot(data_dir, len(ends), work, loads)
        kept = _keep_original(data_dir)
        moved = dataclasses.replace(aof, folder=kept / AOF_DIR)
        moved.write_prefix(data_dir / AOF_DIR, ends[replayed - 1] if replayed else None)
        return _noted(Recovery(data_dir, kept, len(ends), replayed, from_snapshot=False))
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _longest_prefix(aof: AppendOnlyFile, ends: list[tuple[int, int]], work: Path,
                    loads: Callable[[Path], bool]) -> int | None:
    """How many of the commands logged after the base (ending at ``ends``) load with it; None when the base alone
    does not load."""
    probes = 0

    def prefix_loads(count: int) -> bool:
        nonlocal probes
        probes += 1
        folder = work / f"probe-{probes}"
        aof.write_prefix(folder / AOF_DIR, ends[count - 1] if count else None)
        try:
            return loads(folder)
        finally:
            shutil.rmtree(folder, ignore_errors=True)

    _log.warning("The embedded FalkorDB in %s did not load its append-only file; searching for the last of its %d "
                 "logged writes that replays (about %d test starts).", work.parent, len(ends),
                 max(1, len(ends).bit_length()))
    if not prefix_loads(0):
        return None
    good, bad = 0, len(ends)  # the whole file did not load
    while bad - good > 1:
        middle = (good + bad) // 2
        if prefix_loads(middle):
            good = middle
        else:
            bad = middle
        _log.info("recovery of %s: writes 1-%d replay, %d does not (%d test starts)", work.parent, good, bad, probes)
    return good


def _from_snapshot(data_dir: Path, logged: int, work: Path, loads: Callable[[Path], bool]) -> Recovery | None:
    if not snapshot_exists(data_dir):
        return None
    probe = work / "snapshot"
    restore_snapshot(data_dir, probe / AOF_DIR)
    if not loads(probe):
        return None
    kept = _keep_original(data_dir)
    restore_snapshot(data_dir, data_dir / AOF_DIR)
    return _noted(Recovery(data_dir, kept, logged, 0, from_snapshot=True))


def _keep_original(data_dir: Path) -> Path:
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    kept = data_dir / f"falkordb.unreplayable-{stamp}"
    suffix = 1
    while kept.exists():
        suffix += 1
        kept = data_dir / f"falkordb.unreplayable-{stamp}-{suffix}"
    kept.mkdir()
    (data_dir / AOF_DIR).rename(kept / AOF_DIR)
    return kept


def _noted(recovery: Recovery) -> Recovery:
    (recovery.kept / _NOTE).write_text(recovery.describe() + "\n")
    return recovery
