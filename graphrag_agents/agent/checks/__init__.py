"""The serving checks of ``verify``: each runs on a structured draft that passed the citation check, in order,
and the first that rejects it decides the run (:class:`~.base.Rejection`).

A check is a module with one function ``(context, draft, verdict) -> Rejection | None`` that reads its own option
from ``context.options`` (and returns None when it is off); adding one is a module plus an entry in
:data:`SERVING_CHECKS`.
"""

from __future__ import annotations

from ..drafting import StructuredDraft
from ..gate import Verdict
from .answer_fit import fits_question
from .base import CheckContext, Rejection, ServingCheck
from .choice import chosen
from .confidence import confident
from .confirm import confirmed
from .reported_chain import reported_chain

__all__ = ["SERVING_CHECKS", "CheckContext", "Rejection", "ServingCheck", "run_checks"]

SERVING_CHECKS: tuple[ServingCheck, ...] = (reported_chain, fits_question, confident, confirmed, chosen)
"""The order: the free rules first (a chain the model reported, answer fit, its confidence), then the checks
that cost a model call (confirmation, the multiple choice)."""


async def run_checks(checks: tuple[ServingCheck, ...], context: CheckContext, draft: StructuredDraft,
                     verdict: Verdict) -> Rejection | None:
    """The first rejection of ``checks`` run in order, or None when every check lets the draft be served."""
    for check in checks:
        rejection = await check(context, draft, verdict)
        if rejection is not None:
            return rejection
    return None
