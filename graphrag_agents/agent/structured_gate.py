"""The citation gate for a structured draft: render it, check it, and repair its citation by the check's rule.

A structured draft (:class:`~graphrag_agents.agent.drafting.StructuredDraft`) is rendered to ``Answer: <short
answer> [n].`` and checked exactly like a free-text draft (:func:`~graphrag_agents.agent.verify_draft`). With
``repair``, a draft that fails is checked again without its numbers, and an item the check suggests (one that
holds every name and figure of the short answer, among those the model was shown, best first) is cited
instead: the repaired answer is exactly as supported as a citation the model had written. ``holders`` (the
items the check suggests) also go into the revision turn, so the model can cite them itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from ..tools.toolkit import GraphRAGToolkit
from .drafting import StructuredDraft, render_draft
from .gate import AcceptRule, Verdict, verify_draft

__all__ = ["StructuredVerdict", "verify_structured"]


@dataclass
class StructuredVerdict:
    """The gate's decision on a structured draft."""

    verdict: Verdict
    """The decision on the rendered draft (the repaired rendering when the repair passed)."""
    rendered: str
    """The draft the check read last."""
    holders: list[int] = field(default_factory=list)
    """Evidence the check finds holding every name and figure of the short answer (newest first)."""


async def verify_structured(draft: StructuredDraft, session: GraphRAGToolkit, accept: AcceptRule, *,
                            repair: bool, shown: Sequence[int] | None = None) -> StructuredVerdict:
    """Check ``draft`` rendered with its own numbers; on failure find the items that hold its short answer and,
    with ``repair``, serve it citing the first of them when that passes ``accept``.

    ``shown``: the evidence numbers the model was shown, in the order it read them; only those are cited or
    named in the revision (None: any item of the session).
    """
    rendered = render_draft(draft)
    verdict = await verify_draft(rendered, session, accept)
    if verdict.accepted:
        return StructuredVerdict(verdict, rendered)
    bare = await session.check_citations(render_draft(draft, []))
    held = {n for suggestion in bare.suggested for n in suggestion.evidence}
    holders = [n for n in shown if n in held] if shown is not None else sorted(held, reverse=True)
    if repair and holders:
        fixed = render_draft(draft, holders[:1])
        second = await verify_draft(fixed, session, accept)
        if second.accepted:
            return StructuredVerdict(replace(second, repaired=True), fixed, holders)
    return StructuredVerdict(verdict, rendered, holders)
