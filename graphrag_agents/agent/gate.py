"""The citation gate: check a draft's ``[n]`` citations and accept it, or replace it with the fixed refusal.

:func:`verify_draft` is the check itself; :func:`citation_gate` wraps it as a LangGraph node for your own graph.

Which drafts pass. ``CitationCheck.grounded`` only says the draft cites at least one real evidence number; the
claim checks are reported beside it. The gate is stricter by default (:func:`strictly_grounded`): a draft passes
only when it says something besides its markers (``"[1]"`` alone is no answer) **and** is grounded **and** cites no
invalid number **and** has no uncited sentence (a figure or a name without ``[n]``) **and** no unsupported one (a
cited sentence whose figures or names its evidence lacks). Pass
``accept=cites_evidence`` for the literal ``grounded`` rule, or any ``(CitationCheck) -> bool``.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Annotated, Any, Protocol, runtime_checkable

from langchain_core.messages import AIMessage, AnyMessage, BaseMessage
from langchain_core.runnables import RunnableConfig
from langgraph.graph.message import add_messages
from typing_extensions import TypedDict

from ..errors import ToolError
from ..evidence import Evidence
from ..tools.citations import CitationCheck
from ..tools.toolkit import GraphRAGToolkit
from .accept import REFUSAL, AcceptRule, cites_evidence, says_something, strictly_grounded

__all__ = [
    "REFUSAL",
    "AcceptRule",
    "CitationGateState",
    "SessionSource",
    "Verdict",
    "add_suggested_citations",
    "citation_gate",
    "cites_evidence",
    "last_ai_text",
    "says_something",
    "strictly_grounded",
    "verify_draft",
]

# Sentence-final punctuation and closing quotes: a repaired marker goes before them ("... Acme Corp [4].").
_CLOSERS = ".!?…\"'”’)"


@dataclass
class Verdict:
    """The gate's decision on one draft."""

    check: CitationCheck
    accepted: bool
    sources: list[Evidence] = field(default_factory=list)
    """The cited evidence, with its document (``source``), when accepted."""
    repaired: bool = False
    """The draft passed only after :func:`add_suggested_citations` gave its uncited sentences their markers."""

    @property
    def answer(self) -> str:
        """The answer to serve when accepted: the draft with invalid citation numbers removed."""
        return self.check.answer


async def verify_draft(draft: str, session: GraphRAGToolkit, accept: AcceptRule = strictly_grounded, *,
                       repair: bool = False) -> Verdict:
    """Check ``draft`` against ``session``'s evidence (no LLM) and apply ``accept``.

    With ``repair``, a draft that fails is given the citations the check suggests for its uncited sentences
    (:func:`add_suggested_citations`) and checked again; it passes only if the repaired text passes ``accept``.
    """
    try:
        check = await session.check_citations(draft)
    except ToolError as err:  # a draft the check refuses (e.g. over its length limit) cannot be verified
        return Verdict(check=CitationCheck(answer=draft, grounded=False, hint=str(err)), accepted=False)
    repaired = False
    if not accept(check) and repair and (fixed := add_suggested_citations(check)) is not None:
        second = await session.check_citations(fixed)
        if accept(second):
            check, repaired = second, True
    if not accept(check):
        return Verdict(check=check, accepted=False)
    sources = [item for n in check.cited if (item := session.ledger.get(n)) is not None]
    return Verdict(check=check, accepted=True, sources=sources, repaired=repaired)


def add_suggested_citations(check: CitationCheck) -> str | None:
    """``check.answer`` with each uncited sentence given the newest evidence number the check suggests for it.

    A suggested item holds every figure and name of its sentence, by the same literal rule the check applies to
    the citations a model writes, so a repaired sentence is exactly as supported as a cited one. Returns None
    when there is nothing to repair or some uncited sentence has no suggestion (the draft cannot pass).
    """
    suggested = {s.sentence: s.evidence[0] for s in check.suggested if s.evidence}
    if not check.uncited or any(sentence not in suggested for sentence in check.uncited):
        return None
    text = check.answer
    for sentence, n in suggested.items():
        found = re.search(r"\s+".join(re.escape(word) for word in sentence.split()), text)
        if found is None:
            return None
        body = found.group().rstrip(_CLOSERS)
        end = found.start() + len(body)
        text = f"{text[:end]} [{n}]{text[end:]}"
    return text


def last_ai_text(messages: list[BaseMessage] | list[AnyMessage]) -> str:
    """The text of the last AI message ('' when there is none)."""
    for message in reversed(messages):
        if isinstance(message, AIMessage):
            return message.text.strip()
    return ""


@runtime_checkable
class SessionSource(Protocol):
    """Anything that names the evidence session of a run, such as ``GraphRAGLangChainToolkit``."""

    def session_for(self, config: RunnableConfig | None = None) -> GraphRAGToolkit:
        """The session whose evidence the run's tools numbered."""
        ...


class CitationGateState(TypedDict, total=False):
    """The keys :func:`citation_gate` writes; extend it (or use it as is) for your graph's state."""

    messages: Annotated[list[AnyMessage], add_messages]
    answer: str
    abstained: bool
    citation_check: dict[str, Any] | None
    sources: list[dict[str, Any]]


GateNode = Callable[[Mapping[str, Any], RunnableConfig], Awaitable[dict[str, Any]]]


def citation_gate(session: GraphRAGToolkit | SessionSource, *, accept: AcceptRule = strictly_grounded,
                  refusal: str = REFUSAL, messages_only: bool = False, repair: bool = False) -> GateNode:
    """A LangGraph node that checks the last AI message and serves it, or the refusal.

    Put it last in your own graph, after the model stops calling tools. It writes the keys of
    :class:`CitationGateState`: ``answer`` (the draft with invalid numbers removed, or ``refusal``),
    ``abstained``, ``citation_check`` (a dict) and ``sources`` (the cited evidence); on a refusal it also appends
    the refusal as an AI message. With ``messages_only=True`` it writes only that message, for a plain
    ``MessagesState``.

    Args:
        session: the session your tools number evidence in (the toolkit or session you gave
            ``as_langchain_tools``), or a ``GraphRAGLangChainToolkit`` (its ``session_for(config)`` is used, so
            ``scope="per_thread"`` works).
        accept: which checked drafts pass; default :func:`strictly_grounded`.
        refusal: the fixed text served instead of a rejected draft.
        messages_only: write only ``messages``.
        repair: give uncited sentences the citations the check suggests before deciding (see
            :func:`verify_draft`); the served answer then carries them.

    Example::

        tools = as_langchain_tools(session)
        builder = StateGraph(CitationGateState)
        builder.add_node("agent", call_model)
        builder.add_node("tools", ToolNode(tools))
        builder.add_node("verify", citation_gate(session))
        builder.add_edge(START, "agent")
        builder.add_conditional_edges("agent", tools_condition, {"tools": "tools", END: "verify"})
        builder.add_edge("tools", "agent")
        builder.add_edge("verify", END)
    """

    def resolve(config: RunnableConfig) -> GraphRAGToolkit:
        if isinstance(session, GraphRAGToolkit):
            return session
        return session.session_for(config)

    async def gate(state: Mapping[str, Any], config: RunnableConfig) -> dict[str, Any]:
        verdict = await verify_draft(last_ai_text(list(state.get("messages") or [])), resolve(config), accept,
                                     repair=repair)
        refused = [] if verdict.accepted else [AIMessage(refusal)]
        if messages_only:
            return {"messages": refused} if refused else {}
        return {
            "messages": refused,
            "answer": verdict.answer if verdict.accepted else refusal,
            "abstained": not verdict.accepted,
            "citation_check": verdict.check.model_dump(mode="json"),
            "sources": [item.model_dump(mode="json") for item in verdict.sources],
        }

    return gate
