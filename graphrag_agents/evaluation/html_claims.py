"""The HTML report's view of a citation check: each sentence of the answer with its verdict, and the evidence span
behind it highlighted in its item's text.

It reads the check's ``claims`` and the cited items' ``content`` (``sources``), as :class:`CitationCheck` dumps
them. A verified sentence shows each of its support spans, an unsupported one its closest sentence and what that
lacks. The item's text around a span is cut to :data:`CONTEXT` characters each side. Every piece of text goes
through :func:`html.escape`: a span's offsets choose where ``<mark>`` goes, never what it holds.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["CLAIMS_CSS", "CONTEXT", "claims_html"]

CONTEXT = 160
"""Characters of the item's text shown on each side of a span."""
CLAIMS_CSS = """
.claims{list-style:none;padding-left:0}.claims li{margin:.35em 0;padding:3px 8px;border-left:5px solid #ccc}
.claims li.verified{border-left-color:#2e7d32}.claims li.unsupported{border-left-color:#c62828}
.claims li.uncited{border-left-color:#ef6c00}.verdict{font-size:12px;font-weight:bold;margin-right:.5em}
.span{margin:2px 0 2px 1.2em;color:#444;white-space:pre-wrap}mark{background:#fff59d}mark.closest{background:#ffcdd2}
"""
_LABELS = {"verified": "verified", "unsupported": "unsupported", "uncited": "uncited", "no_claim": "no claim"}


def _e(value: object) -> str:
    return html.escape(str(value), quote=True)


def _span(span: Mapping[str, Any], contents: Mapping[int, str], css: str) -> str:
    """The item's text around the span, the span marked; the number alone when the item's text is not there."""
    n = span.get("n")
    content = contents.get(n) if isinstance(n, int) else None
    if content is None:
        return f'<div class=span><span class=n>[{_e(n)}]</span> (text not in the record)</div>'
    start = max(0, min(len(content), int(span.get("start", 0))))
    end = max(start, min(len(content), int(span.get("end", start))))
    left, right = max(0, start - CONTEXT), min(len(content), end + CONTEXT)
    before = ("…" if left else "") + content[left:start]
    after = content[end:right] + ("…" if right < len(content) else "")
    mark = f'<mark class="{css}">' if css else "<mark>"
    return (f"<div class=span><span class=n>[{_e(n)}]</span>{_e(before)}{mark}{_e(content[start:end])}</mark>"
            f"{_e(after)}</div>")


def claims_html(claims: Sequence[Mapping[str, Any]], sources: Sequence[Mapping[str, Any]]) -> str:
    """The check's sentences, in order, each with its verdict and its evidence spans highlighted."""
    contents = {int(s["n"]): str(s.get("content", "")) for s in sources if isinstance(s.get("n"), int)}
    rows = []
    for claim in claims:
        verdict = str(claim.get("verdict", "no_claim"))
        css = verdict if verdict in _LABELS else "no_claim"
        cited = " ".join(f"[{_e(n)}]" for n in claim.get("cited") or [])
        parts = [f'<li class="{css}"><span class=verdict>{_e(_LABELS.get(verdict, verdict))}</span>'
                 f'{_e(claim.get("text", ""))} <span class=muted>{cited}</span>']
        parts += [_span(span, contents, "") for span in claim.get("support") or []]
        closest = claim.get("closest")
        if closest:
            parts.append("<div class=muted>closest sentence of the cited evidence:</div>"
                         + _span(closest, contents, "closest"))
        if claim.get("missing"):
            parts.append(f"<div class=bad>lacks: {_e(', '.join(str(m) for m in claim['missing']))}</div>")
        rows.append("".join(parts) + "</li>")
    return f"<ol class=claims>{''.join(rows)}</ol>" if rows else ""
