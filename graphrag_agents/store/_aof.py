"""The embedded server's append-only file, as files: its manifest, its parts, and where each logged command ends.

Redis keeps the file as a folder (``appendonlydir``): a manifest naming a *base* (a snapshot written by the last
rewrite) and the *incr* parts logged after it, each a sequence of RESP commands. Two things are built from that
here, with no server: a copy of the folder cut after the first ``k`` commands logged since the base (what
:mod:`._recovery` starts a probe server on), and the known-good snapshot, hard links to the parts that a start
just loaded, with the length each part had then (a base is never written again and an incr part only grows, so
the links and the lengths are that state, at no copying cost until a part is restored).
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

__all__ = ["AOF_DIR", "SNAPSHOT_DIR", "AppendOnlyFile", "Part", "command_ends", "discard_snapshot",
           "keep_snapshot", "restore_snapshot", "snapshot_exists", "take_snapshot"]

AOF_DIR = "appendonlydir"
"""The folder Redis keeps the append-only file in, inside the data folder."""
SNAPSHOT_DIR = "falkordb.good"
"""The known-good snapshot: the parts the last successful start loaded, hard-linked, with their lengths."""
_PENDING_DIR = "falkordb.good.pending"
_LENGTHS = "lengths.json"


@dataclass(frozen=True)
class Part:
    """One file of the append-only folder, as its manifest names it."""

    name: str
    """The file name inside the folder."""
    kind: str
    """``b`` (the base snapshot), ``i`` (commands logged after it) or ``h`` (history, not loaded)."""
    line: str
    """Its manifest line."""


@dataclass(frozen=True)
class AppendOnlyFile:
    """The parts an append-only folder's manifest names, base first, then the incr parts in order."""

    folder: Path
    """The ``appendonlydir`` folder."""
    manifest: str
    """The manifest's file name."""
    base: Part | None
    """The base part (None when the file was never rewritten and holds commands only)."""
    incr: tuple[Part, ...]
    """The incr parts, in the order they are loaded."""

    @classmethod
    def read(cls, folder: Path) -> AppendOnlyFile | None:
        """The append-only file in ``folder``, or None when there is none (a new data folder)."""
        manifests = sorted(folder.glob("*.manifest")) if folder.is_dir() else []
        if not manifests:
            return None
        base: Part | None = None
        incr: list[Part] = []
        for line in manifests[0].read_text(errors="replace").splitlines():
            fields = line.split()
            if len(fields) < 6 or fields[0] != "file":
                continue
            values = dict(zip(fields[2::2], fields[3::2], strict=False))
            part = Part(fields[1], values.get("type", ""), line)
            if part.kind == "b":
                base = part
            elif part.kind == "i":
                incr.append(part)
        return cls(folder, manifests[0].name, base, tuple(incr))

    def parts(self) -> list[Part]:
        """Every part that a start loads, base first."""
        return ([self.base] if self.base else []) + list(self.incr)

    def commands(self) -> list[tuple[int, int]]:
        """Where each command logged after the base ends: ``(incr part index, byte offset after it)``, in order."""
        ends: list[tuple[int, int]] = []
        for index, part in enumerate(self.incr):
            ends.extend((index, end) for end in command_ends((self.folder / part.name).read_bytes()))
        return ends

    def write_prefix(self, target: Path, cut: tuple[int, int] | None) -> None:
        """Write into ``target`` (a new ``appendonlydir``) this file cut after the command ending at ``cut``
        (None: the base alone). The base is hard-linked; the incr parts are copied up to the cut."""
        target.mkdir(parents=True)
        lines = []
        if self.base is not None:
            _link_or_copy(self.folder / self.base.name, target / self.base.name)
            lines.append(_plain_line(self.base))
        keep = -1 if cut is None else cut[0]
        for index, part in enumerate(self.incr):
            data = b""
            if index < keep:
                data = (self.folder / part.name).read_bytes()
            elif index == keep and cut is not None:
                data = (self.folder / part.name).read_bytes()[:cut[1]]
            (target / part.name).write_bytes(data)
            lines.append(_plain_line(part))
        (target / self.manifest).write_text("\n".join(lines) + "\n")


def _plain_line(part: Part) -> str:
    """A manifest line without the replication offsets Redis records for a part (a cut part no longer ends
    there; Redis reads a line without them as an older version wrote it)."""
    return f"file {part.name} seq {part.line.split()[3]} type {part.kind}"


def command_ends(data: bytes) -> list[int]:
    """The offsets just after each complete top-level command in RESP ``data``: a ``MULTI`` ... ``EXEC`` block
    is one command (a cut inside it would leave half a transaction); an incomplete tail is not counted."""
    ends: list[int] = []
    pos, size, in_multi = 0, len(data), False
    while pos < size:
        if data[pos:pos + 1] == b"#":  # an annotation line (aof-timestamp-enabled)
            nl = data.find(b"\r\n", pos)
            if nl < 0:
                break
            pos = nl + 2
            if not in_multi:
                ends.append(pos)
            continue
        parsed = _command(data, pos)
        if parsed is None:
            break
        name, pos = parsed
        if name == b"MULTI":
            in_multi = True
        elif name == b"EXEC":
            in_multi = False
        if not in_multi:
            ends.append(pos)
    return ends


def _command(data: bytes, pos: int) -> tuple[bytes, int] | None:
    """The command name and the offset after the RESP array at ``pos``, or None when it is cut or malformed."""
    header = _header(data, pos, b"*")
    if header is None:
        return None
    count, pos = header
    name = b""
    for arg in range(count):
        header = _header(data, pos, b"$")
        if header is None:
            return None
        length, start = header
        pos = start + length + 2
        if pos > len(data):
            return None
        if arg == 0:
            name = data[start:start + length].upper()
    return name, pos


def _header(data: bytes, pos: int, marker: bytes) -> tuple[int, int] | None:
    """The number on the RESP header line at ``pos`` that starts with ``marker`` (``*`` an array's count, ``$`` a
    string's length) and the offset after that line, or None when the line is cut or not such a header."""
    nl = data.find(b"\r\n", pos)
    if nl < 0 or data[pos:pos + 1] != marker:
        return None
    try:
        return int(data[pos + 1:nl]), nl + 2
    except ValueError:
        return None


def _link_or_copy(source: Path, target: Path) -> None:
    try:
        os.link(source, target)
    except OSError:  # a file system without hard links
        shutil.copy2(source, target)


def take_snapshot(data_dir: Path) -> bool:
    """Before a start: link the parts about to be loaded, with their lengths, as the pending snapshot; False when
    there is no append-only file yet. :func:`keep_snapshot` makes it the known-good one once they loaded."""
    pending = data_dir / _PENDING_DIR
    shutil.rmtree(pending, ignore_errors=True)
    aof = AppendOnlyFile.read(data_dir / AOF_DIR)
    if aof is None or not aof.parts():
        return False
    pending.mkdir()
    lengths = {}
    for part in aof.parts():
        _link_or_copy(aof.folder / part.name, pending / part.name)
        lengths[part.name] = (pending / part.name).stat().st_size
    shutil.copy2(aof.folder / aof.manifest, pending / aof.manifest)
    (pending / _LENGTHS).write_text(json.dumps(lengths))
    return True


def keep_snapshot(data_dir: Path) -> None:
    """After a start that loaded the parts: the pending snapshot becomes the known-good one."""
    pending, good = data_dir / _PENDING_DIR, data_dir / SNAPSHOT_DIR
    if not pending.is_dir():
        return
    old = data_dir / (SNAPSHOT_DIR + ".old")
    shutil.rmtree(old, ignore_errors=True)
    if good.exists():
        good.rename(old)
    pending.rename(good)
    shutil.rmtree(old, ignore_errors=True)


def discard_snapshot(data_dir: Path) -> None:
    """After a start that failed: drop the pending snapshot (the known-good one stays)."""
    shutil.rmtree(data_dir / _PENDING_DIR, ignore_errors=True)


def snapshot_exists(data_dir: Path) -> bool:
    """Whether a known-good snapshot was kept."""
    return (data_dir / SNAPSHOT_DIR / _LENGTHS).is_file()


def restore_snapshot(data_dir: Path, target: Path) -> None:
    """Write the known-good snapshot into ``target`` (a new ``appendonlydir``): each part cut back to the length
    it had when it loaded (an incr part grew after that start)."""
    good = data_dir / SNAPSHOT_DIR
    lengths: dict[str, int] = json.loads((good / _LENGTHS).read_text())
    target.mkdir(parents=True)
    aof = AppendOnlyFile.read(good)
    for name, length in lengths.items():
        source = good / name
        if aof is not None and aof.base is not None and name == aof.base.name:
            _link_or_copy(source, target / name)
        else:
            with open(source, "rb") as handle:
                (target / name).write_bytes(handle.read(length))
    if aof is not None:
        (target / aof.manifest).write_text("\n".join(_plain_line(p) for p in aof.parts()) + "\n")
