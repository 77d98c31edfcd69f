"""The chain's evidence check (``chain_gap``) of this checkout, read again on the chains recorded eval runs walked.

    python benchmarks/agent_gap_replay.py LABEL=OUT_DIR [...]

Each ``OUT_DIR`` is a ``graphrag-agents eval`` output folder of the reference agent (``results.jsonl``). For each
record whose chain reached its last hop (two or more hops, every planned hop answered, not a comparison "A or B?",
which its own rule concludes), :func:`chain_gap` runs on the
question, the last answer, the chain and the evidence items the record shows (each item's title read from its leading
``(title)``, as ``agent_fit_replay.py`` reads them; the run's entity cards are not recorded, so hops are linked
through their answers, identifiers and headings only). Printed per run: the chains read, and each one whose finding
changes from the recorded ``chain_gap``, with whether its answer is right.

A chain the check no longer refuses would go on to the choice check when it is on (off by default), then be served;
the eval's resume asks such questions again: copy the folder without their records and run the same ``eval`` command.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from graphrag_agents.agent.fit.sides import choice_options
from graphrag_agents.agent.hops.links import chain_gap
from graphrag_agents.evaluation.metrics import answer_in_prediction
from graphrag_agents.evaluation.runner import read_records
from graphrag_agents.evidence.ledger import Evidence

sys.path.insert(0, str(Path(__file__).resolve().parent))  # agent_fit_replay.py beside it
from agent_fit_replay import _item

_LINKS = "share no document, entity"
"""The link finding's words: a run may have linked two hops through an entity card, which records do not keep."""


def gap_now(record: dict[str, Any]) -> tuple[bool, str | None]:
    """Whether the record holds a chain this check reads, and its finding now (None: the chain holds together)."""
    agent = record.get("agent") or {}
    chain = agent.get("chain") or []
    # a chain that stopped at a missing hop, or a comparison (concluded by its own rule), never reached the check
    if len(chain) < 2 or len(chain) < len(agent.get("hops") or []) or agent.get("missing_hop") \
            or choice_options(str(record["question"])):
        return False, None
    items = {int(e["n"]): _item(int(e["n"]), str(e["text"])) for e in agent.get("evidence") or []}

    def get(n: int) -> Evidence | None:
        item = items.get(n)
        return None if item is None else Evidence(n=n, tool="retrieve", kind="passage", content=item.text)

    return True, chain_gap(str(record["question"]), str(chain[-1]["answer"]), chain, get,
                           {n: item.title for n, item in items.items()})


def main(argv: list[str]) -> int:
    """Print, per run named on the command line, the chains whose finding changes."""
    runs = [(label, Path(folder)) for label, _, folder in (arg.partition("=") for arg in argv)]
    if not runs or any(not (folder / "results.jsonl").exists() for _, folder in runs):
        print(__doc__, file=sys.stderr)
        return 2
    for label, folder in runs:
        read = changed = unlinked = 0
        lines = []
        for record in read_records(folder / "results.jsonl"):
            walked, now = gap_now(record)
            if not walked:
                continue
            read += 1
            before = (record.get("agent") or {}).get("chain_gap")
            if before is None and now is not None and _LINKS in now:
                unlinked += 1  # the run linked the hops through an entity card, which the record does not keep
                continue
            if (before is None) != (now is None):
                changed += 1
                answer = str(record["agent"]["chain"][-1]["answer"])
                right = bool(record["answerable"]) and answer_in_prediction(answer, record.get("answers") or [])
                lines.append(f"- {record['id']} ({'right' if right else 'wrong'}: {answer!r}): {before!r} -> {now!r}")
        print(f"{label}: {read} chains read, {changed} read differently"
              + (f" ({unlinked} more whose hops only the run's entity cards linked)" if unlinked else ""))
        print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
