"""What the hop chain reads of the agent: :class:`HopContext`, built once per compiled graph."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from langchain_core.language_models import BaseChatModel

from ...adapters.langchain import GraphRAGLangChainToolkit
from ...tools.toolkit import GraphRAGToolkit
from ..accept import AcceptRule
from ..options import AgentOptions
from ..state import abstention
from ..structured import StructuredCaller

if TYPE_CHECKING:
    from ..state import AbstainReason, GroundedAgentState

__all__ = ["HopContext"]


@dataclass(frozen=True)
class HopContext:
    """The model, the run's evidence sessions and the options the hop chain runs with."""

    model: BaseChatModel
    """Plans a question the rules do not read (one structured call), and makes the multiple-choice call."""
    drafter: StructuredCaller
    """The agent's structured drafting call: each hop drafts with it, so a model that refuses ``response_format``
    is asked without it from then on by every node."""
    sessions: GraphRAGLangChainToolkit
    """The toolkit's evidence sessions, one per thread: a hop retrieves, and is checked, in its run's session."""
    retrieve_options: Mapping[str, Any]
    """:attr:`AgentOptions.retrieve_options`: the options of each hop's ``retrieve``."""
    accept: AcceptRule
    """:attr:`AgentOptions.accept`: which checked hop claims pass."""
    answer_fit: bool
    """:attr:`AgentOptions.answer_fit`: each hop's answer and the chain's last one must fit their questions."""
    choice_check: bool
    """:attr:`AgentOptions.choice_check`: the chain's answer is picked again among alternatives before serving."""
    refusal: str
    """:attr:`AgentOptions.refusal`: the fixed text of a chain that ends in the refusal."""

    @classmethod
    def of(cls, options: AgentOptions, *, model: BaseChatModel, drafter: StructuredCaller,
           sessions: GraphRAGLangChainToolkit) -> HopContext:
        """The context of an agent run with ``options`` (as :meth:`AgentOptions.for_mode` gives them)."""
        return cls(model=model, drafter=drafter, sessions=sessions, retrieve_options=options.retrieve_options,
                   accept=options.accept, answer_fit=options.answer_fit, choice_check=options.choice_check,
                   refusal=options.refusal)

    def session(self, state: GroundedAgentState) -> GraphRAGToolkit:
        """The run's evidence session (its thread's, or the run's own)."""
        return self.sessions.session_for({"configurable": {"thread_id": state["session_id"]}})

    def abstain(self, reason: AbstainReason) -> dict[str, Any]:
        """The update of a chain that ends in the refusal for ``reason``."""
        return abstention(self.refusal, reason)
