"""``build_grounded_agent``: the reference LangGraph agent whose last step always checks citations.

Two modes, the same ending (``mode="auto"``, the default, picks ``tools`` for a model with native tool calling and
``retrieve_first`` otherwise: :func:`~graphrag_agents.agent.choose_mode`)::

    tools:           prepare -> [gate] -> agent <-> tools -> [final] -> verify -> END
    retrieve_first:  prepare -> plan -> retrieve -> agent -> verify -> END
                                 |                   ^          |
                                 |                   +- revise -+   (at most options.max_revisions times)
                                 +-> hop -> hop ... -> conclude -> END   (a multi-hop question: the hop chain)

Drafting. ``retrieve_first`` drafts structured by default: the model gets reader-sized evidence (the best few
passages, then facts: :class:`~graphrag_agents.agent.ReaderView`) and replies with a JSON object, a short
answer and the evidence numbers that state it (:mod:`~graphrag_agents.agent.drafting`), which ``verify`` renders
to ``Answer: Stanley [34].`` before the check. ``tools`` mode with ``drafting="structured"`` adds the ``final``
node: once the model stops calling tools, one structured call writes the answer. A reply with no JSON object is
checked as a free-text draft (the text fallback), and "not in evidence" ends in the fixed refusal.

``verify`` runs ``check_citations`` on the draft (the last AI message). A draft that passes ``accept`` is the
answer, with the evidence it cites; one that fails gets a revision turn with the check's findings (invalid
numbers, uncited and unsupported sentences), and after ``max_revisions`` failed revisions the run ends with the
fixed refusal string. ``gate`` (only with ``min_score``) and ``retrieve`` run ``retrieve(question)`` themselves
and abstain without calling the model when its best score is under ``min_score``; ``retrieve`` also abstains
when nothing at all is found.

Evidence numbering: each run numbers evidence in its own session (a ``thread_id``'s session when the run has
one, so a conversation keeps its numbers across turns), and ``verify`` checks against that same session.
"""

from __future__ import annotations

import warnings
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any, cast

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage
from langgraph.graph import END, START, StateGraph

from ..models.langchain_model import langchain_chat_model
from ..tools.toolkit import GraphRAGToolkit
from .hops.chain import ChainNodes
from .hops.context import HopContext
from .mode import ModeChoice, ModeSetting, choose_mode
from .nodes import Nodes
from .options import AgentMode, AgentOptions, Drafting, option_names
from .state import GroundedAgentInput, GroundedAgentState
from .trace import (
    TraceStep,
    describe_conclude,
    describe_hop,
    describe_model,
    describe_plan,
    describe_prepare,
    describe_retrieve,
    describe_tools,
    describe_verify,
    traced,
)

if TYPE_CHECKING:
    from langgraph.graph.state import CompiledStateGraph
    from langgraph.types import Checkpointer

__all__ = ["AgentMode", "AgentOptions", "Drafting", "ModeSetting", "build_grounded_agent"]

State = GroundedAgentState


def build_grounded_agent(
    model: BaseChatModel | str | None,
    toolkit: GraphRAGToolkit,
    *,
    mode: ModeSetting = "auto",
    options: AgentOptions | None = None,
    checkpointer: Checkpointer = None,
    name: str = "grounded_agent",
    **deprecated: Any,
) -> CompiledStateGraph[GroundedAgentState, None, GroundedAgentInput, GroundedAgentState]:
    """The reference agent: answer from the graph with ``[n]`` citations, verified, or the fixed refusal.

    Args:
        model: any LangChain chat model; a litellm model name; or None for ``GRAPHRAG_MODEL``
            (``ChatLiteLLM``, needs ``pip install '.[langchain]'`` in the source folder).
        toolkit: the graph toolkit (or a session of it). The agent uses its read tools only.
        mode: ``"auto"`` (tools for a model with native tool calling, retrieve_first otherwise; the run's
            ``mode`` and ``mode_reason`` say which and why), ``"tools"`` or ``"retrieve_first"`` (see
            :data:`AgentMode`).
        options: how the agent drafts, checks and serves (:class:`~graphrag_agents.agent.AgentOptions`; None:
            the defaults).
        checkpointer: any LangGraph checkpointer; with one, pass ``configurable.thread_id`` and a thread keeps
            its conversation and its evidence numbering across runs.
        name: the compiled graph's name.
        deprecated: the fields of :class:`AgentOptions` as keywords (``min_score=0.3``), still accepted for one
            release with a ``DeprecationWarning`` naming the field; they override ``options``.

    Returns:
        A compiled graph. Run it with ``await agent.ainvoke({"question": ...})`` (or ``{"messages": [...]}``),
        or stream it with ``astream``; the final state holds ``answer``, ``abstained``, ``abstain_reason``,
        ``citation_check``, ``sources``, ``tool_calls``, ``llm_calls``, ``tokens``, ``revisions`` and, with
        structured drafting, ``short_answer``
        (:meth:`GroundedAnswer.from_state <graphrag_agents.agent.GroundedAnswer.from_state>` types them).
        The nodes are async: use the async API.

    Raises:
        ConfigurationError: an unknown mode, options no run in the mode can use (:meth:`AgentOptions.validate`),
            or a model without tool calling in ``tools`` mode.

    Example::

        agent = build_grounded_agent(ChatOpenAI(model="gpt-4o-mini"), GraphRAGToolkit(kg, read_only=True),
                                     options=AgentOptions(min_score=0.35))
        state = await agent.ainvoke({"question": "Which band did Neil Peart play in?"})
        print(state["answer"], state["abstained"])
    """
    options = _with_deprecated(options or AgentOptions(), deprecated)
    named = None if mode == "auto" else choose_mode(mode, None)
    if named is not None:  # a named mode is checked before the model is built
        options.validate(named.mode)
    chat = model if isinstance(model, BaseChatModel) else langchain_chat_model(model)
    choice: ModeChoice = named or choose_mode(mode, chat)
    options.validate(choice.mode)
    options = options.for_mode(choice.mode)
    nodes = Nodes(chat, toolkit, mode=choice.mode, options=options, mode_reason=choice.why or None)
    builder = StateGraph(GroundedAgentState, input_schema=GroundedAgentInput)
    _add(builder, "prepare", nodes.prepare, describe_prepare)
    _add(builder, "agent", nodes.agent, describe_model)
    _add(builder, "verify", nodes.verify, describe_verify)
    builder.add_edge(START, "prepare")
    if choice.mode == "retrieve_first":
        chain = ChainNodes(HopContext.of(options, model=chat, drafter=nodes.structured, sessions=nodes.sessions)) \
            if options.hops else None
        _wire_retrieve_first(builder, nodes, chain)
    else:
        _wire_tools(builder, nodes)
    return builder.compile(checkpointer=checkpointer, name=name)


Builder = StateGraph[GroundedAgentState, None, GroundedAgentInput, GroundedAgentState]


def _wire_retrieve_first(builder: Builder, nodes: Nodes, chain: ChainNodes | None) -> None:
    """prepare -> [plan -> hop ... -> conclude] -> retrieve -> agent -> verify (-> agent to revise)."""
    _add(builder, "retrieve", nodes.retrieve, describe_retrieve)
    if chain is not None:
        _add(builder, "plan", chain.plan, describe_plan)
        _add(builder, "hop", chain.hop, describe_hop)
        _add(builder, "conclude", chain.conclude, describe_conclude)
        builder.add_edge("prepare", "plan")
        builder.add_conditional_edges("plan", _after_plan, ["hop", "retrieve"])
        builder.add_conditional_edges("hop", _after_hop, ["hop", "conclude", END])
        builder.add_edge("conclude", END)
    else:
        builder.add_edge("prepare", "retrieve")
    builder.add_conditional_edges("retrieve", _after_retrieve, ["agent", END])
    builder.add_edge("agent", "verify")
    builder.add_conditional_edges("verify", _after_verify("agent"), ["agent", END])


def _wire_tools(builder: Builder, nodes: Nodes) -> None:
    """prepare -> [gate] -> agent <-> tools -> [final] -> verify (-> agent, or final, to revise)."""
    _add(builder, "tools", nodes.tools, describe_tools)
    if nodes.options.min_score is not None:
        _add(builder, "gate", nodes.gate, describe_retrieve)
        builder.add_edge("prepare", "gate")
        builder.add_conditional_edges("gate", _after_retrieve, ["agent", END])
    else:
        builder.add_edge("prepare", "agent")
    answer = "verify"
    if nodes.options.drafting == "structured":
        _add(builder, "final", nodes.final, describe_model)
        builder.add_edge("final", "verify")
        answer = "final"
    builder.add_conditional_edges("agent", _after_agent(answer), ["tools", answer])
    builder.add_conditional_edges("tools", nodes.after_tools(answer), ["agent", answer])
    revise = answer if answer == "final" else "agent"
    builder.add_conditional_edges("verify", _after_verify(revise), [revise, END])


def _add(builder: Builder, name: str, node: Callable[..., Awaitable[dict[str, Any]]],
         describe: Callable[[str, dict[str, Any]], list[TraceStep]]) -> None:
    """Add ``node``, its steps read off each update by ``describe`` into the state's ``trace``."""
    # The wrapper takes the state as Any, so LangGraph reads the node's input schema off the graph's state.
    builder.add_node(name, cast(Any, traced(node, name, describe)))


def _with_deprecated(options: AgentOptions, deprecated: dict[str, Any]) -> AgentOptions:
    """``options`` with the fields passed the old way, as keywords of ``build_grounded_agent``, each warned of."""
    known = option_names()
    for key in deprecated:
        if key not in known:
            raise TypeError(f"build_grounded_agent() got an unexpected keyword argument {key!r}. Fix: pass one of "
                            f"mode, options, checkpointer, name; the agent's options go in AgentOptions.")
        warnings.warn(f"build_grounded_agent({key}=...) is deprecated and will be removed in the next release. "
                      f"Fix: pass options=AgentOptions({key}=...).", DeprecationWarning, stacklevel=3)
    # None meant "the default" for these two keywords.
    given = {k: v for k, v in deprecated.items() if not (v is None and k in ("retrieve_options", "reader"))}
    return replace(options, **given) if given else options


def _after_plan(state: State) -> str:
    return "hop" if len(state.get("hops") or []) > 1 else "retrieve"


def _after_hop(state: State) -> str:
    if state.get("abstained"):
        return END
    return "hop" if len(state.get("chain") or []) < len(state.get("hops") or []) else "conclude"


def _after_retrieve(state: State) -> str:
    return END if state.get("abstained") else "agent"


def _after_agent(answer: str) -> Callable[[State], str]:
    def route(state: State) -> str:
        last = state["messages"][-1]
        return "tools" if isinstance(last, AIMessage) and last.tool_calls else answer

    return route


def _after_verify(revise: str) -> Callable[[State], str]:
    def route(state: State) -> str:
        return revise if state.get("verdict") == "revise" else END

    return route
