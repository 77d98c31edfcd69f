"""``answer_fit``: the short answer must fit the question (:func:`~graphrag_agents.agent.answer_fit`)."""

from __future__ import annotations

from ..drafting import StructuredDraft
from ..fit import ShownItem, answer_fit
from ..gate import Verdict
from .base import CheckContext, Rejection


async def fits_question(context: CheckContext, draft: StructuredDraft, verdict: Verdict) -> Rejection | None:
    """A misfit gets a revision turn with the rules' findings, then the ``off_question`` refusal."""
    if not context.options.answer_fit or context.chained:
        return None
    state = context.state
    ledger = context.session().ledger
    titles = dict(state.get("shown_titles") or [])
    numbers = list(dict.fromkeys([*(state.get("shown") or []), *verdict.check.cited]))
    shown = [ShownItem(n, titles.get(n, ""), item.content) for n in numbers if (item := ledger.get(n))]
    misfit = [p.detail for p in answer_fit(state["question"], draft.answer, verdict.check.cited, shown)]
    if not misfit:
        return None
    context.update["fit"] = misfit
    return Rejection("off_question", revise=True)
