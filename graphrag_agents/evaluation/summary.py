"""Aggregate per-question records into the run's summary: recall per method and question type, latency,
evidence size, answer metrics. Rendering it is :mod:`.report`'s job."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .metrics import answer_in_prediction, mean, percentile, strip_markers

__all__ = ["BASELINE", "LABELS", "OVERALL", "method_order", "summarize"]

BASELINE = "dense"
"""The dense-only baseline: chunk vector search alone, measured in the same run."""
OVERALL = "retrieve"
"""``retrieve`` with every path (scored on its passages)."""
LABELS = {BASELINE: "dense-only (baseline)", OVERALL: "retrieve (all paths)", "passages": "passages alone",
          "facts": "facts alone", "exact_names": "exact_names alone", "fuzzy_names": "fuzzy_names alone",
          "links": "links alone"}
"""Display names of the methods."""


def method_order(records: Sequence[dict[str, Any]]) -> list[str]:
    """Baseline, all paths, then each path alone, as the records hold them."""
    paths = list(records[0].get("paths", {})) if records else []
    return [BASELINE, OVERALL, *paths]


def _measurement(record: dict[str, Any], method: str) -> dict[str, Any]:
    if method in (BASELINE, OVERALL):
        return dict(record[method])
    return dict(record["paths"][method])


def _rates(rows: Sequence[dict[str, Any]], ks: Sequence[int]) -> dict[str, dict[str, float]]:
    return {
        "recall": {str(k): round(mean(r["recall"][str(k)] for r in rows), 4) for k in ks},
        "all_gold": {str(k): round(mean(float(r["all_gold"][str(k)]) for r in rows), 4) for k in ks},
    }


def _method(records: Sequence[dict[str, Any]], method: str, ks: Sequence[int]) -> dict[str, Any]:
    rows = [_measurement(r, method) for r in records]
    latencies = [float(r["ms"]) for r in rows]
    summary: dict[str, Any] = {
        **_rates(rows, ks),
        "by_type": {t: _rates([m for m, rec in zip(rows, records, strict=True) if rec["type"] == t], ks)
                    for t in sorted({str(r["type"]) for r in records})},
        "ms_p50": round(percentile(latencies, 0.5), 1), "ms_p95": round(percentile(latencies, 0.95), 1),
        "items": round(mean(float(r["items"]) for r in rows), 1),
        "chars": round(mean(float(r["chars"]) for r in rows)),
    }
    if any("llm_chars" in r for r in rows):
        summary["llm_chars"] = round(mean(float(r.get("llm_chars", 0)) for r in rows))
    return summary


def _answers(records: Sequence[dict[str, Any]]) -> dict[str, Any] | None:
    agents = [(r, r["agent"]) for r in records if r.get("agent")]
    if not agents:
        return None
    return {**_served(agents), **_scores(agents), **_costs(agents)}


def _served(agents: Sequence[tuple[dict[str, Any], dict[str, Any]]]) -> dict[str, Any]:
    """How many were served, and how many of those were right, strictly and by token F1."""
    answerable = [a for r, a in agents if r["answerable"]]
    served = [a for _, a in agents if not a["abstained"]]
    right = sum(1 for a in served if a.get("served_right"))
    # The lenient reading beside the strict one: a served answer with token F1 >= 0.5 against the gold answer.
    close = sum(1 for r, a in agents if r["answerable"] and not a["abstained"] and float(a.get("f1") or 0) >= 0.5)
    return {
        "questions": len(agents),
        "answerable": len(answerable),
        # Of the answerable questions, the share answered with the gold answer in the answer; of the answers
        # served (answerable or not), the share that are right: an answer to an unanswerable question is wrong.
        "answerable_served_right": _share(right, len(answerable)),
        "served": len(served),
        "served_precision": _share(right, len(served)),
        "answerable_served_f1": _share(close, len(answerable)),
        "served_precision_f1": _share(close, len(served)),
        "chained": sum(1 for a in served if a.get("chain")),
        "missing_hop": sum(1 for _, a in agents if a.get("abstain_reason") == "missing_hop"),
    }


def _share(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None


def _scores(agents: Sequence[tuple[dict[str, Any], dict[str, Any]]]) -> dict[str, Any]:
    """Answer metrics over the answerable questions, and the rates over every question."""
    answerable = [a for r, a in agents if r["answerable"]]
    unanswerable = [a for r, a in agents if not r["answerable"]]
    return {
        "em": round(mean(float(a["em"]) for a in answerable), 4),
        "f1": round(mean(float(a["f1"]) for a in answerable), 4),
        "contains": round(mean(float(a.get("contains") or 0.0) for a in answerable), 4),
        "draft_contains": round(mean(answer_in_prediction(strip_markers(str(a.get("draft") or "")), r["answers"])
                                     for r, a in agents if r["answerable"]), 4),
        "grounded_rate": round(mean(float(bool(a["grounded"]) and not a["abstained"]) for _, a in agents), 4),
        "abstention_rate": round(mean(float(bool(a["abstained"])) for _, a in agents), 4),
        "repaired_rate": round(mean(float(bool(a.get("repaired"))) for _, a in agents), 4),
        "unanswerable_accuracy": (round(mean(float(bool(a["abstained"])) for a in unanswerable), 4)
                                  if unanswerable else None),
        "unanswerable": len(unanswerable),
    }


def _costs(agents: Sequence[tuple[dict[str, Any], dict[str, Any]]]) -> dict[str, Any]:
    """Model calls, tokens, time and errors per question."""
    latencies = [float(a.get("ms", 0.0)) for _, a in agents]
    return {
        "llm_calls": round(mean(float(a.get("llm_calls", 0)) for _, a in agents), 2),
        "tokens": round(mean(float(a.get("tokens", 0)) for _, a in agents)),
        "seconds": round(mean(float(a.get("ms", 0)) / 1000 for _, a in agents), 1),
        "tool_calls": round(mean(float(a.get("tool_calls", 0)) for _, a in agents), 2),
        "errors": sum(1 for _, a in agents if a.get("error")),
        "ms_p50": round(percentile(latencies, 0.5)), "ms_p95": round(percentile(latencies, 0.95)),
    }


def summarize(records: Sequence[dict[str, Any]], meta: dict[str, Any]) -> dict[str, Any]:
    """The summary of a run: recall@k / all-gold@k per method (overall and per question type), latency
    p50/p95, evidence size, and the answer metrics when an agent ran; ``meta`` is copied in."""
    ks = [int(k) for k in meta["ks"]]
    types: dict[str, int] = {}
    for r in records:
        types[str(r["type"])] = types.get(str(r["type"]), 0) + 1
    summary: dict[str, Any] = {
        "questions": len(records), "types": types, **meta,
        "methods": {m: _method(records, m, ks) for m in method_order(records)} if records else {},
        "answers": _answers(records),
    }
    notes: list[str] = []
    failed = int(meta.get("build", {}).get("failed", 0))
    if failed:
        notes.append(f"{failed} paragraphs could not be ingested; their recall counts as a miss, and the next run "
                     "tries them again.")
    if summary["answers"] is None:
        notes.append("Answer metrics skipped: no model configured (set GRAPHRAG_MODEL or pass --model to run the "
                     "reference agent).")
    elif summary["answers"]["unanswerable_accuracy"] is None:
        notes.append("Accuracy on unanswerable questions: n/a, the question set has none (answerable: false).")
    summary["notes"] = notes
    return summary
