"""What a serving check reads and returns: :class:`CheckContext` in, a :class:`Rejection` (or None) out.

A serving check runs in ``verify`` after a structured draft passed the citation check, before it is served::

    async def check(context: CheckContext, draft: StructuredDraft, verdict: Verdict) -> Rejection | None
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from langchain_core.runnables import RunnableConfig

from ...tools.toolkit import GraphRAGToolkit
from ..drafting import StructuredDraft
from ..gate import Verdict
from ..options import AgentOptions
from ..state import AbstainReason, GroundedAgentState

if TYPE_CHECKING:
    from ..nodes import Nodes

__all__ = ["CheckContext", "Rejection", "ServingCheck"]


@dataclass(frozen=True)
class Rejection:
    """Why a check will not serve the draft."""

    reason: AbstainReason
    """The ``abstain_reason`` of the refusal."""
    revise: bool = False
    """The model gets a revision turn first (while ``max_revisions`` lasts), with the check's findings in ``fit``."""


@dataclass
class CheckContext:
    """The run a check reads, and what it adds to ``verify``'s state update."""

    nodes: Nodes
    state: GroundedAgentState
    config: RunnableConfig
    text: str
    """The draft as the model wrote it (its JSON object)."""
    update: dict[str, Any]
    """``verify``'s state update so far; a check adds what it found (``fit``, ``chain``, its model call's cost)."""
    served: str
    """The answer to serve (the rendered draft; a checked chain appends itself)."""
    chained: bool = False
    """A checked chain of two hops or more stands in for the one-hop answer-fit rules."""

    @property
    def options(self) -> AgentOptions:
        """The agent's options."""
        return self.nodes.options

    def session(self) -> GraphRAGToolkit:
        """The run's evidence session."""
        return self.nodes.session(self.state)

    def current(self) -> GroundedAgentState:
        """The state with the update so far applied."""
        return cast(GroundedAgentState, {**dict(self.state), **self.update})

    def cited_items(self, numbers: list[int]) -> list[tuple[int, str]]:
        """(number, content) of the items ``numbers`` name that the session holds."""
        ledger = self.session().ledger
        return [(n, item.content) for n in numbers if (item := ledger.get(n)) is not None]


ServingCheck = Callable[[CheckContext, StructuredDraft, Verdict], Awaitable[Rejection | None]]
"""One serving check: None lets the draft on to the next check."""
