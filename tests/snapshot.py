"""Snapshot tests: compare generated text (JSON Schemas, ``to_llm_text`` output) with a file under ``snapshots/``."""

from __future__ import annotations

from pathlib import Path

SNAPSHOTS = Path(__file__).parent / "snapshots"


def assert_snapshot(name: str, text: str) -> None:
    """``text`` must equal ``snapshots/<name>``; the first run writes the file (commit it)."""
    path = SNAPSHOTS / name
    if not path.exists():
        path.parent.mkdir(exist_ok=True)
        path.write_text(text)
    assert text == path.read_text(), f"{name} changed: delete the snapshot to accept the new output"
