"""``benchmarks/agent_gap_replay.py``: the chain's evidence check read again on the chains recorded runs walked."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from script_module import load_script

SCRIPT = Path(__file__).parent.parent / "benchmarks" / "agent_gap_replay.py"
QUESTION = "Where was the actress who played Ingrid in Blue Harbour born?"


def _record(evidence: list[tuple[int, str]], recorded_gap: str | None) -> dict[str, Any]:
    chain = [{"subject": "Blue Harbour", "answer": "Mara Lind", "evidence": [1]},
             {"subject": "Mara Lind", "answer": "Uppsala", "evidence": [2]}]
    return {"id": "q", "question": QUESTION, "answerable": True, "answers": ["Uppsala"],
            "agent": {"abstained": recorded_gap is not None, "chain": chain, "chain_gap": recorded_gap,
                      "evidence": [{"n": n, "text": text, "cited": n in (1, 2)} for n, text in evidence]}}


CITED = [(1, "(Blue Harbour) Blue Harbour is a 1990 film starring Mara Lind."),
         (2, "(Mara Lind) Mara Lind is an actress, born in Uppsala.")]


def test_a_chain_is_read_with_its_shown_items_and_their_titles() -> None:
    replay = load_script(SCRIPT)
    beside = (3, "(Blue Harbour (cast)) In Blue Harbour, Mara Lind played Ingrid.")
    assert replay.gap_now(_record([*CITED, beside], "no cited evidence holds 'Ingrid'")) == (True, None)
    walked, gap = replay.gap_now(_record(CITED, None))
    assert walked and gap is not None and "'Ingrid'" in gap


def test_a_record_without_a_walked_chain_is_not_read() -> None:
    replay = load_script(SCRIPT)
    record = _record(CITED, None)
    record["agent"]["chain"] = record["agent"]["chain"][:1]
    assert replay.gap_now(record) == (False, None)


def test_the_runs_print_the_chains_whose_finding_changes(tmp_path: Path, capsys: Any) -> None:
    import json

    replay = load_script(SCRIPT)
    beside = (3, "(Blue Harbour (cast)) In Blue Harbour, Mara Lind played Ingrid.")
    (tmp_path / "results.jsonl").write_text(
        json.dumps(_record([*CITED, beside], "no cited evidence holds 'Ingrid'")) + "\n" + json.dumps(
            _record(CITED, "no cited evidence holds 'Ingrid', which the question names")) + "\n")
    assert replay.main([f"run={tmp_path}"]) == 0
    out = capsys.readouterr().out
    assert "run: 2 chains read, 1 read differently" in out and "(right: 'Uppsala')" in out
