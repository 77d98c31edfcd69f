"""A run's reports: the summary as Markdown tables, and every file of the output folder (``summary.json``,
``summary.md``, ``recall.png``, ``report.html``).

The plot needs matplotlib (the ``eval`` extra); without it the other files are still written and the summary
says how to get the plot.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from .._install import pip_extra
from .html_report import write_report
from .plot import plot_available, write_plot
from .summary import BASELINE, LABELS, OVERALL, summarize

__all__ = ["REPORT_FILES", "summary_markdown", "write_reports"]

REPORT_FILES = {"summary_json": "summary.json", "summary_md": "summary.md", "plot": "recall.png",
                "report": "report.html"}
"""The report files, by key, as named in the output folder."""


def write_reports(out: Path, records: Sequence[dict[str, Any]], meta: dict[str, Any],
                  titles: dict[str, str] | None = None) -> tuple[dict[str, Any], dict[str, Path]]:
    """Summarise ``records`` and write every report; returns the summary and the files written, by key.

    Args:
        out: the output folder.
        records: the per-question records, in question order.
        meta: run facts copied into the summary (``ks``, ``build``, ``corpus_paragraphs``, ...).
        titles: paragraph id -> title, so the HTML report lists paragraphs by title.
    """
    summary = summarize(records, meta)
    files: dict[str, Path] = {}
    plot: Path | None = None
    if records and plot_available():
        plot = files["plot"] = write_plot(summary, out / REPORT_FILES["plot"])
    elif records:
        summary["notes"].append(f"No plot: matplotlib is missing. Fix: {pip_extra('eval')}.")
    files["summary_json"] = out / REPORT_FILES["summary_json"]
    files["summary_json"].write_text(json.dumps(summary, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    if records:
        files["summary_md"] = out / REPORT_FILES["summary_md"]
        files["summary_md"].write_text(summary_markdown(summary), encoding="utf-8")
        files["report"] = write_report(out / REPORT_FILES["report"], records, summary, titles, plot)
    return summary, files


def _pct(value: float) -> str:
    return f"{100 * value:.1f}"


def _row(cells: Iterable[object]) -> str:
    return "| " + " | ".join(str(c) for c in cells) + " |"


def _time_line(runs: list[dict[str, Any]]) -> str:
    if not runs:
        return "Time: not recorded (no runs.jsonl in the output folder)."
    asked = sum(int(r["asked"]) for r in runs)
    seconds = sum(float(r["seconds"]) for r in runs)
    cpu = sum(float(r["cpu_seconds"]) for r in runs)
    where = "in one run" if len(runs) == 1 else f"over {len(runs)} runs (resumed)"
    build = "graph build included" if not all(r["graph_reused"] for r in runs) else "graph reused"
    return (f"Time: {asked} questions asked {where}, {seconds:.0f} s wall ({build}), {cpu:.0f} s of CPU in the "
            "eval process (the database server's own CPU is not counted).")


def summary_markdown(summary: dict[str, Any]) -> str:
    """The summary as Markdown: retrieval table (baseline first), per-type table, answers table, notes."""
    lines = [*_build_lines(summary), *_retrieval_lines(summary), *_type_lines(summary)]
    answers = summary.get("answers")
    if answers:
        lines += _answer_lines(summary, answers)
    for note in summary.get("notes", []):
        lines += ["", f"Note: {note}"]
    return "\n".join(lines) + "\n"


def _build_lines(summary: dict[str, Any]) -> list[str]:
    """What was asked of which graph, how it was built, and how long the run took."""
    build = summary["build"]
    runs = summary.get("runs", [])
    return [
        f"{summary['questions']} questions ({', '.join(f'{n} {t}' for t, n in summary['types'].items())}) "
        f"over {summary['corpus_paragraphs']} paragraphs; graph `{build['graph']}`: {build['chunks']} chunks, "
        f"{build['entities']} entities, {build['relations']} relations ({build['extractor']} extractor, "
        f"built in {build['ingest_seconds'] + build['finalize_seconds']:.0f} s: "
        f"ingest {build['ingest_seconds']:.0f} s, finalize {build['finalize_seconds']:.0f} s"
        + (f", {build['unchanged']} paragraphs already in the graph" if build.get("unchanged") else "")
        + ("; reused from the cache)." if build["reused"] and all(run["graph_reused"] for run in runs) else ")."),
        _time_line(runs),
    ]


def _retrieval_lines(summary: dict[str, Any]) -> list[str]:
    """The recall table, one row per method, and retrieve's gain over dense-only."""
    ks = [str(k) for k in summary["ks"]]
    top = ks[-1]
    methods: dict[str, dict[str, Any]] = summary["methods"]
    lines = [
        "",
        "Supporting-paragraph recall (%), top_k " + top + ", each method measured in the same run:",
        "",
        _row(["method", *(f"recall@{k}" for k in ks), *(f"all-gold@{k}" for k in ks), "p50 ms", "p95 ms",
              "items / q", "chars / q"]),
        _row(["-"] * (2 * len(ks) + 5)),
    ]
    for name, m in methods.items():
        lines.append(_row([LABELS.get(name, name), *(_pct(m["recall"][k]) for k in ks),
                           *(_pct(m["all_gold"][k]) for k in ks), f"{m['ms_p50']:.1f}", f"{m['ms_p95']:.1f}",
                           f"{m['items']:.1f}", f"{m['chars']:,}"]))
    if OVERALL in methods and BASELINE in methods:
        gain = 100 * (methods[OVERALL]["recall"][top] - methods[BASELINE]["recall"][top])
        lines += ["", f"retrieve vs dense-only: recall@{top} {gain:+.1f} points; the model reads "
                      f"{methods[OVERALL].get('llm_chars', 0):,} characters of rendered evidence per question."]
    return lines


def _type_lines(summary: dict[str, Any]) -> list[str]:
    """Recall at the largest k per question type."""
    top = str(summary["ks"][-1])
    methods: dict[str, dict[str, Any]] = summary["methods"]
    types = sorted(summary["types"])
    lines = ["", f"recall@{top} (%) by question type:", "", _row(["method", *types]), _row(["-"] * (len(types) + 1))]
    for name, m in methods.items():
        lines.append(_row([LABELS.get(name, name),
                           *(_pct(m["by_type"][t]["recall"][top]) if t in m["by_type"] else "-" for t in types)]))
    return lines


def _answer_lines(summary: dict[str, Any], answers: dict[str, Any]) -> list[str]:
    """The reference agent's tables: what it served and how right, then its scores and costs."""
    unans = answers["unanswerable_accuracy"]
    repair = ", citations repaired" if summary.get("repair_citations") else ""
    drafting = f", {summary['drafting']} drafting" if summary.get("drafting") else ""
    auto = f" (auto: {summary['agent_mode_auto']})" if summary.get("agent_mode_auto") else ""
    lines = ["", f"Reference agent (`{summary.get('model')}`, mode {summary.get('agent_mode')}{auto}{drafting}"
                 f"{repair}), {answers['questions']} questions:", ""]
    if answers.get("answerable_served_right") is not None:
        lines += _served_lines(answers)
    lines += [_row(["EM", "F1", "answer in text", "answer in draft", "grounded", "repaired", "abstained",
                    "unanswerable acc.", "LLM calls / q", "tokens / q", "p50 s", "p95 s"]), _row(["-"] * 12),
              _row([_pct(answers["em"]), _pct(answers["f1"]), _pct(answers["contains"]),
                    _pct(answers.get("draft_contains", 0.0)),
                    _pct(answers["grounded_rate"]), _pct(answers.get("repaired_rate", 0.0)),
                    _pct(answers["abstention_rate"]), "n/a" if unans is None else _pct(unans),
                    f"{answers['llm_calls']:.2f}", f"{answers['tokens']:,}", f"{answers['ms_p50'] / 1000:.1f}",
                    f"{answers['ms_p95'] / 1000:.1f}"])]
    return lines


def _served_lines(answers: dict[str, Any]) -> list[str]:
    unans = answers["unanswerable_accuracy"]
    served = answers.get("served_precision")
    close = answers.get("served_precision_f1")
    close_answerable = answers.get("answerable_served_f1")  # absent from summaries before the hop chain
    return [_row(["answerable served right", "unanswerable refused", "served answers right", "served",
                  "answerable served, F1 >= 0.5", "served answers, F1 >= 0.5", "chained", "missing hop"]),
            _row(["-"] * 8),
            _row([f"{_pct(answers['answerable_served_right'])} (of {answers['answerable']})",
                  "n/a" if unans is None else f"{_pct(unans)} (of {answers['unanswerable']})",
                  "n/a" if served is None else f"{_pct(served)} (of {answers['served']})",
                  str(answers["served"]), "n/a" if close_answerable is None else _pct(close_answerable),
                  "n/a" if close is None else _pct(close), str(answers.get("chained", 0)),
                  str(answers.get("missing_hop", 0))]), ""]
