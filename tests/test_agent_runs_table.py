"""``benchmarks/agent_runs_table.py --without-choice``: a choice-checked run's row without the check."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from script_module import load_script

SCRIPT = Path(__file__).parent.parent / "benchmarks" / "agent_runs_table.py"


def _table() -> Any:
    return load_script(SCRIPT)


def test_a_not_chosen_refusal_is_its_draft_served_and_scored() -> None:
    table = _table()
    refused = {"id": "q", "answerable": True, "answers": ["Uppsala"],
               "agent": {"abstained": True, "abstain_reason": "not_chosen", "short_answer": "Uppsala",
                         "choice": {"options": ["Uppsala", "none of these"], "draft": "Uppsala", "picked": None}}}
    served = table.without_choice(refused)["agent"]
    assert not served["abstained"] and served["served_right"] and served["f1"] == 1.0
    other = {**refused, "agent": {**refused["agent"], "abstain_reason": "missing_hop"}}
    assert table.without_choice(other) is other  # only the choice check's refusals change
