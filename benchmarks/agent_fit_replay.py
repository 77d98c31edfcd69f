"""The answer-fit rules of this checkout, read again on the answers recorded eval runs served.

    python benchmarks/agent_fit_replay.py [--rule coverage] LABEL=OUT_DIR [...]

Each ``OUT_DIR`` is a ``graphrag-agents eval`` output folder of the reference agent (``results.jsonl``). For each
answer served on the single path, the rules of :func:`graphrag_agents.agent.answer_fit` are run on the question,
the short answer, the cited numbers and the evidence items the record shows (each item's title read from its
leading ``(title)``, and its text without it, as the agent's ledger holds it); a served chain's last answer is read
by the echo rule, as the chain's ``conclude`` reads it. Printed per run: how many served answers were right and
wrong, and how many of each the rule (``--rule``, default ``coverage``) finds a problem with, with the questions it
flags.

What this measures is the rule's reading of recorded drafts, not a new run: a flagged single-path draft would get
the revision turn, whose second draft may be served (a flagged chain is refused: a chain has no revision turn). The
eval's resume asks exactly those questions again: copy the folder without their records and run the same ``eval``
command on it.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from graphrag_agents.agent import ShownItem, answer_fit
from graphrag_agents.agent.fit.echo import echo_problem
from graphrag_agents.agent.fit.sides import choice_options


def title_of(text: str) -> str:
    """The title a rendered evidence item opens with, ``(title) text``, parentheses inside it kept."""
    if not text.startswith("("):
        return ""
    depth = 0
    for i, char in enumerate(text):
        depth += char == "("
        depth -= char == ")"
        if depth == 0:
            return text[1:i]
    return ""


def _item(n: int, rendered: str) -> ShownItem:
    """The item as the agent's rules read it: its title apart, its text without the rendered ``(title) `` head."""
    title = title_of(rendered)
    return ShownItem(n, title, rendered[len(title) + 2:].lstrip() if title else rendered)


def flagged(record: dict[str, Any], rule: str) -> list[str]:
    """The findings of ``rule`` on the record's served answer ([] when none, or nothing to read). A served chain's
    last answer is read only by the rule its ``conclude`` shares with the single path and can read from a record,
    ``echo`` (the bridge and kind rules read the run's entity cards, which records do not keep)."""
    agent = record.get("agent") or {}
    if agent.get("abstained") or agent.get("error"):
        return []
    if agent.get("chain"):
        answer = str(agent.get("short_answer") or "")
        plain = answer.strip().lower() not in ("yes", "no") and not choice_options(str(record["question"]))
        echo = echo_problem(str(record["question"]), answer) if rule == "echo" and plain else None
        return [echo.detail] if echo is not None else []
    shown = [_item(int(e["n"]), str(e["text"])) for e in agent.get("evidence") or []]
    found = answer_fit(str(record["question"]), str(agent.get("short_answer") or ""), list(agent.get("cited") or []),
                       shown)
    return [p.detail for p in found if p.rule == rule]


def replay(label: str, folder: Path, rule: str) -> None:
    """Print the counts of one run, and each question the rule flags."""
    counts = {"right": [0, 0], "wrong": [0, 0]}  # [served, flagged]
    for line in (folder / "results.jsonl").read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        agent = record.get("agent") or {}
        if agent.get("abstained") or agent.get("error") or not agent.get("short_answer"):
            continue
        kind = "right" if agent.get("served_right") else "wrong"
        counts[kind][0] += 1
        findings = flagged(record, rule)
        if findings:
            counts[kind][1] += 1
            print(f"  {label} {kind} {record['id']}: {agent.get('short_answer')!r} | {findings[0]}")
    print(f"{label}: served right {counts['right'][0]}, flagged {counts['right'][1]}; "
          f"served wrong {counts['wrong'][0]}, flagged {counts['wrong'][1]}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--rule", default="coverage", help="the answer-fit rule to count (its FitProblem.rule)")
    parser.add_argument("runs", nargs="+", help="LABEL=OUT_DIR")
    args = parser.parse_args(argv)
    for run in args.runs:
        label, _, folder = run.partition("=")
        if not folder:
            parser.error(f"{run!r}: write LABEL=OUT_DIR")
        replay(label, Path(folder), args.rule)
    return 0


if __name__ == "__main__":
    sys.exit(main())
