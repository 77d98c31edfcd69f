"""How the hop chain plans a set's questions: by rule, by the model, or as one hop, against each question's type.

    python benchmarks/agent_plans.py QUESTIONS.jsonl [QUESTIONS.jsonl ...] [--model openai/local] [--limit N]

For every question it prints who planned it (``rules``, ``model``, ``comparison`` for a comparison the rules read,
``single`` for a comparison they do not) and the steps; with ``--model`` it makes the planning call for every
question the rules leave (one call each, the agent's own prompt and schema) and applies the check that a plan
only naming its subject again is one hop (:func:`graphrag_agents.agent.hops.certain.not_a_chain`). The last lines
count, per question type (``single``, ``two_hop``, ``2hop``, ``compositional``, ...), how many questions were
walked as a chain: a single-hop question walked as one is a split the agent should not make.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from collections import Counter
from pathlib import Path
from typing import Any

from graphrag_agents.agent.hops.certain import not_a_chain
from graphrag_agents.agent.hops.compare_plan import comparison_plan
from graphrag_agents.agent.hops.plan import (
    PLAN_SYSTEM_PROMPT,
    is_comparison,
    parse_plan,
    plan_prompt,
    plan_response_format,
    rule_hops,
)


async def _model_plan(model: Any, question: str) -> tuple[list[str], str | None, int]:
    from langchain_core.messages import HumanMessage, SystemMessage

    from graphrag_agents.agent.structured import StructuredCaller

    caller = StructuredCaller(model, plan_response_format())
    response = await caller.ainvoke([SystemMessage(PLAN_SYSTEM_PROMPT), HumanMessage(plan_prompt(question))], None)
    planned = parse_plan(response.text) or []
    usage = getattr(response, "usage_metadata", None) or {}
    return planned, not_a_chain(question, planned), int(usage.get("total_tokens", 0))


async def _main(args: argparse.Namespace) -> None:
    model = None
    if args.model:
        from graphrag_agents.models.langchain_model import langchain_chat_model

        model = langchain_chat_model(args.model)
    for path in args.questions:
        rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        rows = rows[:args.limit] if args.limit else rows
        walked: Counter[str] = Counter()
        total: Counter[str] = Counter()
        by: Counter[str] = Counter()
        notes = calls = tokens = 0
        started = time.process_time()
        wall = time.monotonic()
        print(f"## {path}")
        for row in rows:
            question, kind = row["question"], str(row.get("type", "?"))
            total[kind] += 1
            note = None
            if is_comparison(question):
                compared = comparison_plan(question)
                who, steps = ("comparison", compared[0]) if compared else ("single", [])
            elif (ruled := rule_hops(question)) is not None:
                who, steps = "rules", ruled
            elif model is not None:
                steps, note, used = await _model_plan(model, question)
                who, calls, tokens = "model", calls + 1, tokens + used
                notes += note is not None
            else:
                who, steps = "model (not asked)", []
            chain = len(steps) > 1 and note is None
            walked[kind] += chain
            by[who] += 1
            print(json.dumps({"id": row.get("id"), "type": kind, "by": who, "chain": chain, "steps": steps,
                              "note": note, "question": question}, ensure_ascii=False))
        print(f"planned by: {dict(by)}; model plans read as one hop by not_a_chain: {notes}; planning calls "
              f"{calls}, tokens {tokens}, {time.monotonic() - wall:.0f} s wall, "
              f"{time.process_time() - started:.1f} s CPU here")
        for kind in sorted(total):
            print(f"{kind}: walked as a chain {walked[kind]} of {total[kind]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("questions", type=Path, nargs="+", help="questions JSONL (format of shared/eval/)")
    parser.add_argument("--model", help="litellm model name for the planning call (default: rules only)")
    parser.add_argument("--limit", type=int, default=0, help="only the first N questions of each file")
    asyncio.run(_main(parser.parse_args()))


if __name__ == "__main__":
    main()
