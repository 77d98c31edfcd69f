"""Rows of the shared RAGTruth files copied to ``tests/data/`` (``ragtruth_rows.jsonl``, ``ragtruth_records.jsonl``;
license in ``tests/data/NOTICE.md``), and a row's answer sentence cited the way the shared files cite it."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

from graphrag_agents.evidence import Evidence

DATA = Path(__file__).parent / "data"


@cache
def rows() -> dict[str, dict[str, object]]:
    """Every copied row by its id (a row copied into both files is the same row)."""
    found: dict[str, dict[str, object]] = {}
    for name in ("ragtruth_rows.jsonl", "ragtruth_records.jsonl"):
        found.update({row["id"]: row for row in map(json.loads, (DATA / name).open(encoding="utf-8"))})
    return found


def evidence(row_id: str) -> list[Evidence]:
    """The row's passages as evidence items [1]..[k]."""
    passages = rows()[row_id]["passages"]
    assert isinstance(passages, list)
    return [Evidence(n=i, tool="retrieve", kind="passage", content=text) for i, text in enumerate(passages, 1)]


def cited(row_id: str, sentence: str, *, in_answer: bool = True) -> str:
    """``sentence`` (in the row's answer, unless ``in_answer`` is False) citing every passage, as the files cite."""
    answer = rows()[row_id]["answer"]
    assert isinstance(answer, str) and (sentence in answer) == in_answer
    return sentence + " " + "".join(f"[{e.n}]" for e in evidence(row_id))
