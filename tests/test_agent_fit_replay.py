"""``benchmarks/agent_fit_replay.py``: the answer-fit rules read again on the answers recorded runs served."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from script_module import load_script

SCRIPT = Path(__file__).parent.parent / "benchmarks" / "agent_fit_replay.py"


def _record(answer: str, cited: list[int], chain: list[Any] | None = None) -> dict[str, Any]:
    evidence = [{"n": 1, "text": "(Sull (river)) The Sull flows past Port Halden.", "cited": 1 in cited},
                {"n": 2, "text": "(Lindby) Lindby is a village on the Sull.", "cited": 2 in cited}]
    return {"id": "q", "question": "Which river flows past Port Halden, where Edda Morvane was born?",
            "agent": {"abstained": False, "short_answer": answer, "cited": cited, "evidence": evidence,
                      "chain": chain or [], "served_right": False}}


def test_the_title_of_a_rendered_item_keeps_its_inner_parentheses() -> None:
    replay = load_script(SCRIPT)
    assert replay.title_of("(America (magazine)) America is a weekly.") == "America (magazine)"
    assert replay.title_of("no title here") == ""


def test_a_served_single_path_answer_is_read_by_the_rule_and_a_chain_is_not_by_coverage() -> None:
    replay = load_script(SCRIPT)
    found = replay.flagged(_record("Sull", [1]), "coverage")
    assert found and "'Edda Morvane'" in found[0]
    assert replay.flagged(_record("Sull", [1], chain=[{"answer": "Sull"}]), "coverage") == []
    assert replay.flagged(_record("Sull", [1]), "echo") == []


def test_a_served_chains_last_answer_is_read_by_the_echo_rule() -> None:
    replay = load_script(SCRIPT)
    record = _record("EM", [1], chain=[{"answer": "EM"}])
    record["question"] = "Which river flows past the birthplace of Edda Morvane?"
    assert replay.flagged(record, "echo") and "initials" in replay.flagged(record, "echo")[0]
    assert replay.flagged(record, "coverage") == []
    record["agent"]["short_answer"] = "Sull"
    assert replay.flagged(record, "echo") == []
