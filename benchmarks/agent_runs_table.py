"""One table for several ``graphrag-agents eval`` runs of the reference agent, over the questions they all asked.

    python benchmarks/agent_runs_table.py [--questions FIRST-LAST] LABEL=OUT_DIR [LABEL=OUT_DIR ...]

Each ``OUT_DIR`` is an eval output folder (``results.jsonl``). Runs asked back to back on the same graph with
the same ``--limit`` may still differ in how far they got (an interrupted run resumes later); the table counts only
the question ids every run finished, so the rows compare the same questions (``--questions 21-40``: only those
positions, 1-based, of the first run's records). Per run it prints:

* answerable served right: answered, with the gold answer in the answer (of the answerable questions);
* unanswerable refused: the fixed refusal on an unanswerable question;
* served answers right: the right ones among every answer served (an answer to an unanswerable question is wrong);
* EM / F1 of the short answer (the structured draft's; the answer without markers for text drafting);
* LLM calls, tokens and the median seconds per question.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from graphrag_agents.evaluation.metrics import mean, percentile
from graphrag_agents.evaluation.runner import read_records


def _row(label: str, records: list[dict[str, Any]]) -> str:
    agents = [(r, r["agent"]) for r in records]
    answerable = [a for r, a in agents if r["answerable"]]
    unanswerable = [a for r, a in agents if not r["answerable"]]
    served = [a for _, a in agents if not a["abstained"]]
    right = [a for r, a in agents if r["answerable"] and not a["abstained"]
             and (a.get("served_right") or a.get("contains"))]
    refused = [a for a in unanswerable if a["abstained"]]
    cells = [
        label,
        f"{len(right)}/{len(answerable)} ({100 * len(right) / max(len(answerable), 1):.0f}%)",
        f"{len(refused)}/{len(unanswerable)} ({100 * len(refused) / max(len(unanswerable), 1):.0f}%)"
        if unanswerable else "n/a",
        f"{len(right)}/{len(served)} ({100 * len(right) / len(served):.0f}%)" if served else "none served",
        f"{100 * mean(float(a['em']) for a in answerable):.1f}",
        f"{100 * mean(float(a['f1']) for a in answerable):.1f}",
        f"{mean(float(a['llm_calls']) for _, a in agents):.2f}",
        f"{mean(float(a['tokens']) for _, a in agents):,.0f}",
        f"{percentile([float(a['ms']) for _, a in agents], 0.5) / 1000:.0f}",
        str(sum(1 for _, a in agents if a.get("error"))),
    ]
    return "| " + " | ".join(cells) + " |"


def main(argv: list[str]) -> int:
    """Print the table of the runs named on the command line."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("runs", nargs="*", metavar="LABEL=OUT_DIR")
    parser.add_argument("--questions", default=None, help="FIRST-LAST: only these positions (1-based)")
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
    print("| run | answerable served right | unanswerable refused | served answers right | EM | F1 | LLM calls / q "
          "| tokens / q | p50 s / q | errors |")
    print("| - | - | - | - | - | - | - | - | - | - |")
    for label, _ in runs:
        print(_row(label, [loaded[label][i] for i in order]))
    settings = {label: json.loads((folder / "config.json").read_text(encoding="utf-8")) for label, folder in runs}
    for label, config in settings.items():
        print(f"\n{label}: model {config.get('model')}, {config.get('agent_mode')}, drafting "
              f"{config.get('drafting', 'text (before structured drafting)')}, repair "
              f"{config.get('repair_citations', 'default')}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
