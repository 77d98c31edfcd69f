"""The HTML report: one self-contained file with the summary, an index of the questions and one section each.

Each section shows the question, the gold answer and paragraphs, the recall of every method, the agent's answer
(when one ran) with each sentence's citation verdict and the evidence span behind it highlighted (when the record
holds the check's ``claims`` and ``sources``, :mod:`.html_claims`), next to the evidence the model read with the
*cited* items highlighted, and the evidence
``retrieve`` returned with the items from *supporting* paragraphs marked. Corpus text, questions and model output
are untrusted: every piece of text goes through :func:`html.escape`, and nothing from the data lands in a tag,
an attribute name, a URL or a script.
"""

from __future__ import annotations

import base64
import html
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from .answer import split_evidence
from .html_claims import CLAIMS_CSS, claims_html
from .summary import BASELINE, LABELS, OVERALL

__all__ = ["render_report", "write_report"]

_CSS = """
body{font:14px/1.45 system-ui,sans-serif;margin:1.5em auto;max-width:1100px;color:#222;padding:0 1em}
table{border-collapse:collapse;margin:.6em 0}td,th{border:1px solid #ccc;padding:3px 7px;vertical-align:top}
th{background:#f3f3f3}td.num{text-align:right}section{border-top:2px solid #1565c0;margin-top:2em}
.ev{border:1px solid #ddd;border-left:5px solid #ddd;margin:4px 0;padding:4px 8px;white-space:pre-wrap}
.ev.gold{border-left-color:#2e7d32}.ev.cited{background:#fff59d}.n{font-weight:bold;margin-right:.4em}
.kind{color:#666;font-size:12px}.ok{color:#2e7d32}.bad{color:#c62828}.muted{color:#777}
details{margin:.4em 0}summary{cursor:pointer}img{max-width:100%}
""" + CLAIMS_CSS


def _e(value: object) -> str:
    return html.escape(str(value), quote=True)


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.1f}"


def _table(head: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    out = ["<table><tr>", *(f"<th>{_e(h)}</th>" for h in head), "</tr>"]
    for row in rows:
        out.append("<tr>" + "".join(f"<td>{cell}</td>" for cell in row) + "</tr>")
    out.append("</table>")
    return "".join(out)


def _summary_html(summary: dict[str, Any], plot: Path | None) -> str:
    ks = [str(k) for k in summary["ks"]]
    rows = [[_e(LABELS.get(name, name)), *(_pct(m["recall"][k]) for k in ks), *(_pct(m["all_gold"][k]) for k in ks),
             _e(m["ms_p50"]), _e(m["ms_p95"]), _e(m["items"]), _e(m["chars"])]
            for name, m in summary["methods"].items()]
    parts = [f"<p>{_e(summary['questions'])} questions, {_e(summary['corpus_paragraphs'])} paragraphs; "
             "supporting-paragraph recall (%), each method measured in the same run.</p>",
             _table(["method", *(f"recall@{k}" for k in ks), *(f"all-gold@{k}" for k in ks), "p50 ms", "p95 ms",
                     "items/q", "chars/q"], rows)]
    answers = summary.get("answers")
    if answers:
        parts.append(_table(["EM", "F1", "answer in text", "grounded", "abstained", "LLM calls/q", "tokens/q"],
                            [[_pct(answers["em"]), _pct(answers["f1"]), _pct(answers.get("contains")),
                              _pct(answers["grounded_rate"]), _pct(answers["abstention_rate"]),
                              _e(answers["llm_calls"]), _e(answers["tokens"])]]))
    parts += [f"<p class=muted>Note: {_e(note)}</p>" for note in summary.get("notes", [])]
    if plot is not None and plot.exists():
        data = base64.b64encode(plot.read_bytes()).decode("ascii")
        parts.append(f'<img alt="recall plot" src="data:image/png;base64,{data}">')
    return "".join(parts)


def _index(records: Sequence[dict[str, Any]], top: str) -> str:
    rows = []
    for i, r in enumerate(records):
        agent = r.get("agent") or {}
        verdict = ("abstained" if agent.get("abstained") else "grounded" if agent.get("grounded") else
                   "not grounded") if agent else "–"
        rows.append([f'<a href="#q{i}">{i + 1}</a>', _e(r["type"]), _e(r["question"]),
                     _pct(r["retrieve"]["recall"][top]), _pct(r["dense"]["recall"][top]),
                     _pct(agent.get("f1")) if agent else "–", _e(verdict)])
    return _table(["#", "type", "question", f"retrieve r@{top}", f"dense r@{top}", "F1", "agent"], rows)


def _as_read(record: dict[str, Any]) -> list[dict[str, Any]]:
    """Retrieve's evidence as the model reads it (``evidence_text``), each item with its kind and gold flag."""
    rows = {int(row["n"]): row for row in record.get("evidence", [])}
    if not record.get("evidence_text"):
        return list(rows.values())
    items = split_evidence(str(record["evidence_text"]), set())
    for item in items:
        row = rows.get(int(item["n"]), {})
        item.update(kind=row.get("kind"), gold=row.get("gold", False))
    return items


def _evidence(items: Sequence[dict[str, Any]]) -> str:
    out = []
    for item in items:
        classes = "ev" + (" gold" if item.get("gold") else "") + (" cited" if item.get("cited") else "")
        about = (item.get("kind"), item.get("title"), item.get("score"))
        kind = " · ".join(_e(x) for x in about if x not in (None, ""))
        out.append(f'<div class="{classes}"><span class=n>[{_e(item["n"])}]</span>'
                   f'<span class=kind>{kind}</span>\n{_e(item.get("text", ""))}</div>')
    return "".join(out) or "<p class=muted>No evidence.</p>"


def _agent_html(agent: dict[str, Any]) -> str:
    if agent.get("error"):
        return f"<p class=bad>Agent failed: {_e(agent['error'])}</p>"
    verdict = ('<span class=bad>abstained</span> (' + _e(agent.get("abstain_reason")) + ")" if agent["abstained"]
               else "<span class=ok>grounded</span>" if agent["grounded"] else "<span class=bad>not grounded</span>")
    facts = (f"EM {_pct(agent.get('em'))} · F1 {_pct(agent.get('f1'))} · cites {_e(agent.get('cited'))} · "
             f"{_e(agent.get('llm_calls'))} LLM calls · {_e(agent.get('tokens'))} tokens · {_e(agent.get('ms'))} ms")
    findings = ""
    if agent.get("draft") and agent["draft"] != agent["answer"]:
        lines = [f"<li>uncited: {_e(u)}</li>" for u in agent.get("uncited") or []]
        lines += [f"<li>unsupported: {_e(c.get('sentence'))} (evidence lacks "
                  f"{_e(', '.join([*c.get('missing_names', []), *c.get('missing_figures', [])]))})</li>"
                  for c in agent.get("unsupported") or []]
        findings = (f"<p>Last draft the citation check read:</p><blockquote>{_e(agent['draft'])}</blockquote>"
                    + (f"<ul>{''.join(lines)}</ul>" if lines else ""))
    chain = ""
    if agent.get("chain"):
        hops = "".join(f"<li>{_e(step.get('question'))} &rarr; <b>{_e(step.get('answer'))}</b> "
                       f"{_e(' '.join(f'[{n}]' for n in step.get('evidence') or []))}</li>" for step in agent["chain"])
        chain = f"<p>Chain: {_e(agent.get('chain_text', ''))}</p><ol>{hops}</ol>"
    missing = agent.get("missing_hop")
    if missing:
        chain += (f"<p class=bad>Hop {_e(missing.get('index'))} unanswered: {_e(missing.get('question'))} "
                  f"({_e(missing.get('reason'))})</p>")
    choice = agent.get("choice")
    if choice:
        chain += (f"<p class=muted>Choice check: options {_e(' | '.join(choice.get('options') or []))}; picked "
                  f"{_e(choice.get('picked'))}</p>")
    claims = claims_html(agent.get("claims") or [], agent.get("sources") or [])
    if claims:
        claims = f"<p>Each sentence, with the evidence behind its citation verdict (highlighted):</p>{claims}"
    return (f"<h4>Agent answer: {verdict}</h4><blockquote>{_e(agent['answer'])}</blockquote>{claims}{chain}"
            f"<p>{facts}</p>{findings}"
            f"<details open><summary>Evidence the model read (cited items highlighted)</summary>"
            f"{_evidence(agent.get('evidence', []))}</details>")


def _section(i: int, r: dict[str, Any], titles: dict[str, str], ks: Sequence[str]) -> str:
    methods = {BASELINE: r["dense"], OVERALL: r["retrieve"], **r.get("paths", {})}
    recall_rows = [[_e(LABELS.get(name, name)), *(_pct(m["recall"][k]) for k in ks), _e(m["ms"]),
                    _e(", ".join(titles.get(d, d) for d in m["docs"][:int(ks[-1])]))]
                   for name, m in methods.items()]
    gold = ", ".join(titles.get(g, g) for g in r["gold"])
    parts = [f'<section id="q{i}"><h3>{i + 1}. {_e(r["question"])}</h3>',
             f"<p>Type {_e(r['type'])} · id <code>{_e(r['id'])}</code> · gold answer <b>{_e(' | '.join(r['answers']))}"
             f"</b> · supporting paragraphs: {_e(gold)} · <a href=\"#index\">index</a></p>",
             _table(["method", *(f"recall@{k}" for k in ks), "ms", "paragraphs found, best first"], recall_rows)]
    if r.get("agent"):
        parts.append(_agent_html(r["agent"]))
    parts.append("<details><summary>Evidence retrieve returned, as a model reads it (green edge: from a supporting "
                 f"paragraph)</summary>{_evidence(_as_read(r))}</details></section>")
    return "".join(parts)


def render_report(records: Sequence[dict[str, Any]], summary: dict[str, Any], titles: dict[str, str] | None = None,
                  plot: Path | None = None) -> str:
    """The report as one HTML document (``titles``: paragraph id -> title, for readable paragraph lists)."""
    ks = [str(k) for k in summary["ks"]]
    names = titles or {}
    body = [f"<h1>graphrag-agents evaluation</h1>{_summary_html(summary, plot)}",
            f'<h2 id="index">Questions</h2>{_index(records, ks[-1])}',
            *(_section(i, r, names, ks) for i, r in enumerate(records))]
    return ("<!DOCTYPE html><html lang=en><head><meta charset=utf-8><title>graphrag-agents evaluation</title>"
            f"<style>{_CSS}</style></head><body>{''.join(body)}</body></html>\n")


def write_report(path: Path, records: Sequence[dict[str, Any]], summary: dict[str, Any],
                 titles: dict[str, str] | None = None, plot: Path | None = None) -> Path:
    """Write :func:`render_report` to ``path``."""
    path.write_text(render_report(records, summary, titles, plot), encoding="utf-8")
    return path
