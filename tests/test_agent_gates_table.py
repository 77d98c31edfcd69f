"""``benchmarks/agent_gates_table.py``: what each gate combination serves, from one run's records."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from script_module import load_script

SCRIPT = Path(__file__).parent.parent / "benchmarks" / "agent_gates_table.py"


@pytest.fixture(scope="module")
def gates() -> ModuleType:
    return load_script(SCRIPT)


def record(answerable: bool, answer: str, reason: str | None, confidence: float) -> dict[str, Any]:
    verdict = {None: True, "not_confirmed": False}.get(reason)
    return {"id": f"{answer}-{reason}-{confidence}", "answerable": answerable, "answers": ["Manaslu"],
            "agent": {"short_answer": answer, "abstain_reason": reason, "confidence": confidence,
                      "confirmed": verdict}}


RECORDS = [
    record(True, "Manaslu", None, 0.9),               # right, confirmed
    record(True, "Manaslu", "not_confirmed", 0.8),    # right, refused by the confirmation turn only
    record(True, "Muztagh Ata", None, 0.2),           # wrong, confirmed, unsure
    record(False, "Nanga Parbat", "not_confirmed", 0.6),
    record(False, "not in evidence", "not_in_evidence", 0.9),
]


def test_each_gate_combination_is_computed_from_the_same_records(gates: ModuleType) -> None:
    rows = gates.table(RECORDS, [0.0, 0.5]).splitlines()[2:]
    assert rows == [
        "| no confirmation turn, no threshold | 2/3 (67%) | 1/2 (50%) | 2/4 (50%) | 2/4 (50%) |",
        "| confirmation turn, no threshold | 1/3 (33%) | 2/2 (100%) | 1/2 (50%) | 1/2 (50%) |",
        "| no confirmation turn, min_confidence 0.5 | 2/3 (67%) | 1/2 (50%) | 2/3 (67%) | 2/3 (67%) |",
        "| confirmation turn, min_confidence 0.5 | 1/3 (33%) | 2/2 (100%) | 1/1 (100%) | 1/1 (100%) |",
    ]


def test_a_run_without_the_confirmation_turn_has_no_rows_for_it(gates: ModuleType) -> None:
    unasked = [{**r, "agent": {**r["agent"], "confirmed": None}} for r in RECORDS if r["agent"]["abstain_reason"]
               != "not_confirmed"]
    rows = gates.table(unasked, [0.0]).splitlines()[2:]
    assert rows == ["| no confirmation turn, no threshold | 1/2 (50%) | 1/1 (100%) | 1/2 (50%) | 1/2 (50%) |"]


def test_a_run_without_confidences_is_refused_with_the_fix(gates: ModuleType, tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    rows = [{**r, "agent": {**r["agent"], "confidence": None}} for r in RECORDS]
    (tmp_path / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    assert gates.main([str(tmp_path)]) == 2 and "--min-confidence 0" in capsys.readouterr().err
