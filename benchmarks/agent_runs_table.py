"""One table for several ``graphrag-agents eval`` runs of the reference agent, over the questions they all asked.

    python benchmarks/agent_runs_table.py [--questions FIRST-LAST] [--without-choice] [--without-retry]
        [--without-gap] LABEL=OUT_DIR [...]

Each ``OUT_DIR`` is an eval output folder (``results.jsonl``). Runs asked back to back on the same graph with
the same ``--limit`` may still differ in how far they got (an interrupted run resumes later); the table counts only
the question ids every run finished, so the rows compare the same questions (``--questions 21-40``: only those
positions, 1-based, of the first run's records). Per run it prints:

* answerable served right: answered, with the gold answer in the answer (of the answerable questions);
* unanswerable refused: the fixed refusal on an unanswerable question;
* served answers right: the right ones among every answer served (an answer to an unanswerable question is wrong);
* answerable served with F1 >= 0.5, and served answers with F1 >= 0.5 (the lenient reading beside the strict one);
* EM / F1 of the short answer (the structured draft's; the answer without markers for text drafting);
* LLM calls, tokens and the mean and median seconds per question.

``--without-choice`` adds, for each run made with the multiple-choice check, the row that run would have given
without it, computed exactly from its records: a ``not_chosen`` refusal is its draft served (the check runs last,
so nothing before it changes).

``--without-gap`` adds the row without the chain's evidence check (``chain_gap``): an ``off_question`` refusal
of a chain whose ``chain_gap`` is set becomes what the multiple-choice check decided (it runs before the gap's
refusal, so it is recorded): its draft served when the model picked it or no choice was made, else ``not_chosen``.
With ``--without-choice`` beside it, the two rows show each check alone.

``--without-retry`` adds the row without the hop chain's second look at a failed hop (its subject's own passage
only): a run that retried would have ended in ``missing_hop`` at that hop (the retry only follows a failed hop),
so its record becomes that refusal (calls and tokens stay as recorded).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from graphrag_agents.evaluation.metrics import answer_in_prediction, mean, percentile, token_f1
from graphrag_agents.evaluation.runner import read_records


def _share(part: int, whole: int) -> str:
    return f"{part}/{whole} ({100 * part / whole:.0f}%)" if whole else "n/a"


def _row(label: str, records: list[dict[str, Any]]) -> str:
    agents = [(r, r["agent"]) for r in records]
    answerable = [a for r, a in agents if r["answerable"]]
    unanswerable = [a for r, a in agents if not r["answerable"]]
    served = [a for _, a in agents if not a["abstained"]]
    right = [a for r, a in agents if r["answerable"] and not a["abstained"]
             and (a.get("served_right") or a.get("contains"))]
    close = [a for r, a in agents if r["answerable"] and not a["abstained"] and float(a.get("f1") or 0) >= 0.5]
    refused = [a for a in unanswerable if a["abstained"]]
    cells = [
        label,
        _share(len(right), len(answerable)),
        _share(len(refused), len(unanswerable)),
        _share(len(right), len(served)) if served else "none served",
        _share(len(close), len(answerable)),
        _share(len(close), len(served)) if served else "none served",
        f"{100 * mean(float(a['em']) for a in answerable):.1f}",
        f"{100 * mean(float(a['f1']) for a in answerable):.1f}",
        f"{mean(float(a['llm_calls']) for _, a in agents):.2f}",
        f"{mean(float(a['tokens']) for _, a in agents):,.0f}",
        f"{mean(float(a['ms']) for _, a in agents) / 1000:.0f} / "
        f"{percentile([float(a['ms']) for _, a in agents], 0.5) / 1000:.0f}",
        str(sum(1 for _, a in agents if a.get("error"))),
    ]
    return "| " + " | ".join(cells) + " |"


def without_choice(record: dict[str, Any]) -> dict[str, Any]:
    """``record`` as the run would have written it without the multiple-choice check: a ``not_chosen`` refusal
    becomes its draft, served and scored (strict: the gold answer inside it; F1 against the gold answers)."""
    agent = record["agent"]
    if agent.get("abstain_reason") != "not_chosen" or not agent.get("choice"):
        return record
    draft = str(agent["choice"]["draft"])
    answers = record["answers"]
    answerable = record["answerable"]
    served = {**agent, "abstained": False, "abstain_reason": None, "short_answer": draft,
              "served_right": bool(answerable and answer_in_prediction(draft, answers)),
              "contains": answer_in_prediction(draft, answers) if answerable else None,
              "f1": round(token_f1(draft, answers), 4) if answerable else None,
              "em": float(any(draft.strip().lower() == a.strip().lower() for a in answers)) if answerable
              else None}
    return {**record, "agent": served}


def without_gap(record: dict[str, Any]) -> dict[str, Any]:
    """``record`` as the run would have written it without the chain's evidence check: a chain refused for its gap
    is what the multiple-choice check decided."""
    agent = record["agent"]
    if agent.get("abstain_reason") != "off_question" or not agent.get("chain_gap"):
        return record
    draft = str(agent.get("short_answer") or "")
    choice = agent.get("choice")
    if choice and choice.get("picked") != choice.get("draft"):
        return {**record, "agent": {**agent, "abstain_reason": "not_chosen"}}
    return without_choice({**record, "agent": {**agent, "abstain_reason": "not_chosen",
                                               "choice": choice or {"draft": draft}}})


def without_retry(record: dict[str, Any]) -> dict[str, Any]:
    """``record`` as the run would have written it without the retry of a failed hop: the ``missing_hop``
    refusal at that hop."""
    agent = record["agent"]
    if not agent.get("hop_retried"):
        return record
    refused = {**agent, "abstained": True, "abstain_reason": "missing_hop", "short_answer": "",
               "served_right": False, "contains": False if record["answerable"] else None,
               "f1": 0.0 if record["answerable"] else None, "em": 0.0 if record["answerable"] else None}
    return {**record, "agent": refused}


def main(argv: list[str]) -> int:
    """Print the table of the runs named on the command line."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("runs", nargs="*", metavar="LABEL=OUT_DIR")
    parser.add_argument("--questions", default=None, help="FIRST-LAST: only these positions (1-based)")
    parser.add_argument("--without-choice", action="store_true",
                        help="add each choice-checked run's row without the check (computed from its records)")
    parser.add_argument("--without-gap", action="store_true",
                        help="add each run's row without the chain's evidence check (computed from its records)")
    parser.add_argument("--without-retry", action="store_true",
                        help="add each run's row without the retry of a failed hop (computed from its records)")
    args = parser.parse_args(argv)
    first, last = 1, None
    if args.questions:
        low, _, high = args.questions.partition("-")
        first, last = int(low), int(high) if high else int(low)
    runs = [(label, Path(folder)) for label, _, folder in (arg.partition("=") for arg in args.runs)]
    if not runs or any(not (folder / "results.jsonl").exists() for _, folder in runs):
        print(__doc__, file=sys.stderr)
        return 2
    loaded = {label: {r["id"]: r for r in read_records(folder / "results.jsonl") if r.get("agent")}
              for label, folder in runs}
    common = set.intersection(*(set(records) for records in loaded.values()))
    order = [i for i in list(loaded[runs[0][0]])[first - 1:last] if i in common]
    answerable = sum(1 for i in order if loaded[runs[0][0]][i]["answerable"])
    print(f"{len(order)} questions every run finished ({answerable} answerable, {len(order) - answerable} not)\n")
    print("| run | answerable served right | unanswerable refused | served answers right | answerable served, "
          "F1 >= 0.5 | served, F1 >= 0.5 | EM | F1 | LLM calls / q | tokens / q | mean / p50 s / q | errors |")
    print("| - | - | - | - | - | - | - | - | - | - | - | - |")
    for label, folder in runs:
        print(_row(label, [loaded[label][i] for i in order]))
        config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
        if args.without_choice and config.get("choice_check"):
            print(_row(f"{label}, without the choice check", [without_choice(loaded[label][i]) for i in order]))
        if args.without_gap:
            print(_row(f"{label}, without the chain's evidence check", [without_gap(loaded[label][i])
                                                                        for i in order]))
        if args.without_retry:
            print(_row(f"{label}, without the hop retry", [without_retry(loaded[label][i]) for i in order]))
    settings = {label: json.loads((folder / "config.json").read_text(encoding="utf-8")) for label, folder in runs}
    for label, config in settings.items():
        print(f"\n{label}: model {config.get('model')}, {config.get('agent_mode')}, drafting "
              f"{config.get('drafting', 'text (before structured drafting)')}, repair "
              f"{config.get('repair_citations', 'default')}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
