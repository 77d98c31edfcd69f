"""The comparison rule's "same value" decisions on a set's gold values, against the rule of an earlier commit.

    python benchmarks/agent_compare_rule.py QUESTIONS.jsonl CORPUS.jsonl --before COMMIT

No model: for every question the comparison rules plan as a "same" comparison (``same country``, ``same
nationality``, ``same place``, ...), each side's value is the set's own evidence triple for it (2Wiki's
``evidence``: the side's relation, or the relation of the entity it is linked to), and each side's evidence is the
question's supporting paragraph of the entity the value belongs to, when the corpus still holds it. It prints
what :func:`graphrag_agents.agent.hops.compare.decide` concludes today and what the module at ``--before``
concluded (read from git), every question whose decision changed, and the counts. The plans themselves come from
:mod:`graphrag_agents.agent.hops.compare_plan`, which both versions share.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import subprocess
import sys
from collections import Counter
from pathlib import Path
from types import ModuleType
from typing import Any

from graphrag_agents.agent.hops import compare
from graphrag_agents.agent.hops.compare_plan import Comparison, comparison_plan
from graphrag_agents.text import wordnet

_MODULE = "graphrag_agents/agent/hops/compare.py"


def _module_at(commit: str) -> ModuleType:
    """``compare.py`` as it was at ``commit``, loaded inside the package so its relative imports resolve."""
    source = subprocess.run(["git", "show", f"{commit}:{_MODULE}"], check=True, capture_output=True,
                            text=True).stdout
    name = "graphrag_agents.agent.hops._compare_before"
    spec = importlib.util.spec_from_loader(name, loader=None)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    module.__package__ = "graphrag_agents.agent.hops"
    sys.modules[name] = module
    exec(compile(source, f"{commit}:{_MODULE}", "exec"), module.__dict__)
    return module


def _values(row: dict[str, Any], comparison: Comparison) -> list[tuple[str, str]] | None:
    """Each option's (value, the entity it is the value of) from the row's evidence triples: the option's own
    triple whose object is not another entity of the triples (a comparison), else the triple of the entity the
    option links to (a bridge)."""
    triples = [tuple(t) for t in row.get("evidence") or []]
    subjects = {s.casefold() for s, _, _ in triples}
    out = []
    for option in comparison["options"]:
        own = [t for t in triples if t[0].casefold() == option.casefold()]
        linked = [o for _, _, o in own if o.casefold() in subjects]
        if linked:
            own = [t for t in triples if t[0].casefold() == linked[0].casefold()]
        if not own:
            return None
        out.append((own[0][2], own[0][0]))
    return out


def _side_texts(row: dict[str, Any], docs: dict[str, tuple[str, str]], entity: str) -> list[str]:
    """The question's supporting paragraphs left in the corpus whose title is (or starts with) ``entity``."""
    ids = [i for i in row.get("supporting_paragraph_ids") or [] if i in docs]
    return [docs[i][1] for i in ids if docs[i][0].casefold().startswith(entity.casefold())]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("questions", type=Path)
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--before", required=True, help="the commit whose compare.py is the baseline")
    args = parser.parse_args()
    before = _module_at(args.before)
    docs = {}
    for line in args.corpus.open(encoding="utf-8"):
        doc = json.loads(line)
        docs[doc["id"]] = (doc.get("title") or "", doc["text"])
    print(f"lexicon available: {wordnet.available()}")
    counts: Counter[str] = Counter()
    for number, line in enumerate(args.questions.open(encoding="utf-8"), 1):
        row = json.loads(line)
        planned = comparison_plan(row["question"])
        if planned is None or planned[1]["kind"] != "same":
            continue
        comparison = planned[1]
        sides = _values(row, comparison)
        if sides is None:
            counts["values not read from the triples"] += 1
            continue
        values = [value for value, _ in sides]
        evidence = [_side_texts(row, docs, entity) for _, entity in sides]
        now = compare.decide(comparison, values, evidence)
        then = before.decide(comparison, values)
        counts["same comparisons"] += 1
        counts[f"what={comparison.get('what')}"] += 1
        if now.answer == then.answer:
            counts["same decision"] += 1
            continue
        counts["changed"] += 1
        gold = row.get("answer")
        right = {"now": now.answer == gold, "before": then.answer == gold}
        counts[f"changed: before {'right' if right['before'] else 'not right'}, now "
               f"{'right' if right['now'] else 'not right'}"] += 1
        print(f"{number}\t{'answerable' if row.get('answerable', True) else 'unanswerable'}\tgold {gold!r}\t"
              f"{row['question']}\n\tvalues {values}\n\tbefore {then.answer!r} {then.reason}\n"
              f"\tnow    {now.answer!r} {now.reason}")
    for key, count in sorted(counts.items()):
        print(f"{key}: {count}")


if __name__ == "__main__":
    main()
