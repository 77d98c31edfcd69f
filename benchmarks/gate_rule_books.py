"""The reference agent's gate under two rule books of ``check_citations`` in one run, and the logged drafts
re-checked by a later release.

    python benchmarks/gate_rule_books.py run LOG -- QUESTIONS CORPUS [graphrag-agents eval options]
    python benchmarks/gate_rule_books.py recheck LOG RESULTS

``run`` runs ``graphrag-agents eval`` with every check the agent's gate makes through the toolkit also made with
``support=False`` (the rule book before claim support); each check is one JSON line of ``LOG``: the draft, the
session's evidence and both verdicts (:func:`~graphrag_agents.agent.gate.strictly_grounded`). The agent is served
the default check's verdict, so the run is the default's. The hop check reads its own rule book
(``support=False``) and is not logged.

``recheck`` checks every logged draft again with the installed code and counts the verdicts that change, and
among them the drafts whose answer is a gold answer of an answerable question of ``RESULTS`` (the run's
``results.jsonl``): whether a rule change would refuse a right answer the run served.
"""

from __future__ import annotations

import json
import re
import sys
import unicodedata
from pathlib import Path
from typing import Any


def _normal(text: str) -> str:
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()
    text = re.sub(r"\[\d+(?:,\s*\d+)*\]", " ", text.replace("answer:", " "))
    text = re.sub(r"\b(?:a|an|the)\b", " ", text)
    return " ".join(re.sub(r"[^\w\s]", " ", text).split())


def run(log: Path, eval_args: list[str]) -> int:
    """``graphrag-agents eval eval_args`` with each gate check logged under both rule books."""
    import graphrag_agents.tools.toolkit as toolkit
    from graphrag_agents.agent.gate import strictly_grounded
    from graphrag_agents.cli.commands import main

    check = getattr(toolkit, "check_citations")  # noqa: B009 (the name the toolkit calls, replaced below)

    def logged(answer: str, evidence: Any, **options: Any) -> Any:
        result = check(answer, evidence, **options)
        options.pop("cache", None)
        before = check(answer, evidence, support=False, **options)
        items = evidence.values() if hasattr(evidence, "values") else evidence
        with log.open("a", encoding="utf-8") as out:
            out.write(json.dumps({"answer": answer, "default": strictly_grounded(result),
                                  "before": strictly_grounded(before),
                                  "evidence": [item.model_dump(mode="json") for item in items]}) + "\n")
        return result

    setattr(toolkit, "check_citations", logged)  # noqa: B010
    return main(["eval", *eval_args])


def recheck(log: Path, results: Path) -> None:
    """Print the logged drafts whose verdict the installed check changes, and the counts."""
    from graphrag_agents.agent.gate import strictly_grounded
    from graphrag_agents.citations import check_citations
    from graphrag_agents.evidence import Evidence

    rows = [json.loads(line) for line in results.open(encoding="utf-8")]
    golds = [[_normal(a) for a in row["answers"]] for row in rows if row["answerable"]]
    checks = [json.loads(line) for line in log.open(encoding="utf-8")]
    differ = sum(c["default"] != c["before"] for c in checks)
    print(f"{len(checks)} gate checks logged; the two rule books differed on {differ}")
    changed = lost = 0
    for logged in checks:
        if "evidence" not in logged:
            continue
        now = strictly_grounded(check_citations(logged["answer"], [Evidence(**e) for e in logged["evidence"]]))
        if now == logged["default"]:
            continue
        changed += 1
        answer = _normal(logged["answer"])
        right = any(g and (g == answer or f" {g} " in f" {answer} ") for gold in golds for g in gold)
        lost += right and not now
        print(f"  {'accepted' if now else 'refused'} now ({'a right answer' if right else 'not right'}): "
              f"{logged['answer'][:100]}")
    print(f"re-checked with the installed code: {changed} verdicts changed, {lost} right answers newly refused")


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "run":
        rest = sys.argv[3:]
        sys.exit(run(Path(sys.argv[2]), rest[1:] if rest[:1] == ["--"] else rest))
    if len(sys.argv) == 4 and sys.argv[1] == "recheck":
        recheck(Path(sys.argv[2]), Path(sys.argv[3]))
        sys.exit(0)
    sys.exit(__doc__)
