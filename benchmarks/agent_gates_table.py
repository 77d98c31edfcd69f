"""What each of the reference agent's last gates would have served, from one ``graphrag-agents eval`` run.

    python benchmarks/agent_gates_table.py OUT_DIR [--thresholds 0,0.2,0.3,0.4,0.5]

``OUT_DIR`` is an eval folder run with ``--min-confidence 0`` (so every draft's ``confidence`` is recorded and
none is refused for it), and with ``--confirm`` for the confirmation turn's rows. The gates after the citation
check and the answer-fit rules are the threshold on the model's confidence, then the confirmation turn, and neither
changes anything before it, so one run gives, exactly, what every combination serves:

* without the confirmation turn: every draft that passed the check and the fit rules (``not_confirmed`` ones
  included), with confidence at least the threshold;
* with it: those the model also confirmed.

Per row: answerable questions served right (the gold answer in the short answer, as ``eval`` scores it),
unanswerable ones refused, the share of served answers that are right, and, for reading the misses, the share of
served answers whose token F1 with the gold answer is at least 0.5 ("Thomas De Quincey" for "Thomas Penson De
Quincey" is not right by the first rule). A threshold is chosen on questions the reported runs do not ask.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from graphrag_agents.evaluation.metrics import answer_in_prediction, token_f1
from graphrag_agents.evaluation.runner import read_records

Record = dict[str, Any]


def passed_check_and_fit(record: Record) -> bool:
    """The draft passed the citation check and the answer-fit rules (served unless a later gate refused it)."""
    return record["agent"]["abstain_reason"] in (None, "not_confirmed")


def confirmed(record: Record) -> bool:
    return record["agent"]["abstain_reason"] is None


def right(record: Record) -> bool:
    return bool(record["answerable"] and answer_in_prediction(record["agent"]["short_answer"], record["answers"]))


def close(record: Record) -> bool:
    return bool(record["answerable"] and token_f1(record["agent"]["short_answer"], record["answers"]) >= 0.5)


def row(label: str, records: list[Record], served: Callable[[Record], bool]) -> str:
    answerable = [r for r in records if r["answerable"]]
    unanswerable = [r for r in records if not r["answerable"]]
    shown = [r for r in records if served(r)]
    good = [r for r in shown if right(r)]
    near = [r for r in shown if close(r)]
    refused = [r for r in unanswerable if not served(r)]

    def share(part: int, whole: int) -> str:
        return f"{part}/{whole} ({100 * part / whole:.0f}%)" if whole else "n/a"

    return (f"| {label} | {share(len(good), len(answerable))} | {share(len(refused), len(unanswerable))} | "
            f"{share(len(good), len(shown)) if shown else 'none served'} | "
            f"{share(len(near), len(shown)) if shown else 'none served'} |")


def table(records: list[Record], thresholds: list[float]) -> str:
    """The gates' rows; the confirmation turn's only when the run asked it (some record has a verdict)."""
    lines = ["| gate | answerable served right | unanswerable refused | served answers right | served, F1 >= 0.5 |",
             "| - | - | - | - | - |"]
    gates = [("no confirmation turn", passed_check_and_fit)]
    if any(r["agent"].get("confirmed") is not None for r in records):
        gates.append(("confirmation turn", confirmed))
    for threshold in thresholds:
        for name, base in gates:
            label = f"{name}, min_confidence {threshold:g}" if threshold else f"{name}, no threshold"
            lines.append(row(label, records, lambda r, b=base, t=threshold: b(r) and
                             (r["agent"].get("confidence") or 0.0) >= t))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, help="an eval folder run with the confirmation turn and --min-confidence 0")
    parser.add_argument("--thresholds", default="0,0.2,0.3,0.4,0.5,0.6",
                        help="comma-separated min_confidence values (default: 0,0.2,0.3,0.4,0.5,0.6)")
    args = parser.parse_args(argv)
    records = [r for r in read_records(args.out / "results.jsonl") if r.get("agent")]
    if not records or all(r["agent"].get("confidence") is None for r in records):
        print(f"error: {args.out} holds no agent records with a confidence; run graphrag-agents eval with "
              "--min-confidence 0", file=sys.stderr)
        return 2
    try:
        thresholds = [float(t) for t in args.thresholds.split(",") if t.strip()]
    except ValueError:
        print(f"error: --thresholds must be numbers, not {args.thresholds!r}", file=sys.stderr)
        return 2
    print(f"{len(records)} questions ({sum(r['answerable'] for r in records)} answerable), {args.out}")
    print(table(records, thresholds))
    return 0


if __name__ == "__main__":
    sys.exit(main())
