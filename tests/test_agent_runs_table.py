"""``benchmarks/agent_runs_table.py --without-choice`` and ``--without-retry``: rows computed from a run's records."""

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


def test_a_retried_hop_is_the_missing_hop_refusal_without_the_retry() -> None:
    table = _table()
    served = {"id": "q", "answerable": True, "answers": ["Stanley"],
              "agent": {"abstained": False, "abstain_reason": None, "short_answer": "Stanley", "served_right": True,
                        "f1": 1.0, "hop_retried": True}}
    refused = table.without_retry(served)["agent"]
    assert refused["abstained"] and refused["abstain_reason"] == "missing_hop" and not refused["served_right"]
    plain = {**served, "agent": {**served["agent"], "hop_retried": False}}
    assert table.without_retry(plain) is plain  # only runs that retried change


def test_a_chain_refused_for_its_gap_is_what_the_choice_check_decided_without_the_gap() -> None:
    table = _table()
    gap = {"id": "q", "answerable": True, "answers": ["Uppsala"],
           "agent": {"abstained": True, "abstain_reason": "off_question", "short_answer": "Uppsala",
                     "chain_gap": "no cited evidence holds 'Norwegian', which the question names",
                     "choice": {"options": ["Uppsala", "Mara Lind"], "draft": "Uppsala", "picked": "Uppsala"}}}
    served = table.without_gap(gap)["agent"]
    assert not served["abstained"] and served["served_right"]
    picked_other = {**gap, "agent": {**gap["agent"], "choice": {**gap["agent"]["choice"], "picked": "Mara Lind"}}}
    assert table.without_gap(picked_other)["agent"]["abstain_reason"] == "not_chosen"
    bridge = {**gap, "agent": {**gap["agent"], "chain_gap": None}}
    assert table.without_gap(bridge) is bridge  # an off_question refusal of another rule stays
