"""``build_grounded_agent``: the reference LangGraph agent whose last step always checks citations.

Two modes, the same ending::

    tools:           prepare -> [gate] -> agent <-> tools -> [final] -> verify -> END
    retrieve_first:  prepare -> plan -> retrieve -> agent -> verify -> END
                                 |                   ^          |
                                 |                   +- revise -+   (at most max_revisions times)
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

import inspect
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage
from langgraph.graph import END, START, StateGraph

from ..errors import ConfigurationError
from ..models.langchain_model import langchain_chat_model
from ..tools.toolkit import GraphRAGToolkit
from .chain_nodes import ChainNodes
from .gate import REFUSAL, AcceptRule, strictly_grounded
from .nodes import Nodes
from .reader import ReaderView
from .state import AgentMode, Drafting, GroundedAgentInput, GroundedAgentState

if TYPE_CHECKING:
    from langgraph.graph.state import CompiledStateGraph
    from langgraph.types import Checkpointer

__all__ = ["AgentMode", "Drafting", "build_grounded_agent"]

State = GroundedAgentState


def build_grounded_agent(
    model: BaseChatModel | str | None,
    toolkit: GraphRAGToolkit,
    *,
    mode: AgentMode = "tools",
    max_revisions: int = 1,
    refusal: str = REFUSAL,
    min_score: float | None = None,
    checkpointer: Checkpointer = None,
    accept: AcceptRule = strictly_grounded,
    system_prompt: str | None = None,
    max_tool_rounds: int = 6,
    retrieve_options: Mapping[str, Any] | None = None,
    evidence_chars: int = 8000,
    text_tool_calls: bool = True,
    repair_citations: bool = False,
    drafting: Drafting | None = None,
    reader: ReaderView | None = None,
    answer_fit: bool = True,
    confirm: bool = False,
    supporting_sentence: bool = False,
    min_confidence: float | None = None,
    hops: bool = True,
    choice_check: bool = True,
    name: str = "grounded_agent",
) -> CompiledStateGraph[GroundedAgentState, None, GroundedAgentInput, GroundedAgentState]:
    """The reference agent: answer from the graph with ``[n]`` citations, verified, or the fixed refusal.

    Args:
        model: any LangChain chat model; a litellm model name; or None for ``GRAPHRAG_MODEL``
            (``ChatLiteLLM``, needs ``pip install '.[langchain]'`` in the source folder).
        toolkit: the graph toolkit (or a session of it). The agent uses its read tools only.
        mode: ``"tools"`` or ``"retrieve_first"`` (see :data:`AgentMode`).
        max_revisions: revision turns after a draft fails the check, before the refusal.
        refusal: the fixed text of every abstention.
        min_score: abstain without calling the model when the best passage or fact score of
            ``retrieve(question)`` is under it (the pre-generation gate; None: no gate). Entity scores do not
            count: an exact name match scores 1 whether or not the graph holds the answer. Scores depend on the
            corpus and the embedder: read real ones off your own questions first.
        checkpointer: any LangGraph checkpointer; with one, pass ``configurable.thread_id`` and a thread keeps
            its conversation and its evidence numbering across runs.
        accept: which checked drafts pass; default :func:`~graphrag_agents.agent.strictly_grounded`.
        system_prompt: replaces the mode's system prompt.
        max_tool_rounds: rounds of model tool calls per run; after that the draft goes to ``verify`` as it is.
        retrieve_options: options of the agent's own retrieve (``top_k``, ``expand_hops``, ``paths``, ...).
        evidence_chars: size of the evidence text the agent's own retrieve shows the model in ``text``
            drafting (structured drafting shows ``reader``'s view instead).
        text_tool_calls: in ``tools`` mode, run tool calls a model wrote as bare JSON text (small local models
            do) as real ones.
        repair_citations: when a draft fails the check, first cite the evidence the check suggests (items
            holding all the figures and names of its uncited sentences, or of the structured short answer) and
            check again; a repaired draft that passes is served (``repaired`` is true in the final state)
            without a revision turn. Off by default: measured with the local models (``docs/agent.md``), the
            revision turn refuses most of the drafts that repair would serve, and those were wrong.
        drafting: ``"structured"`` or ``"text"`` (see :data:`Drafting`); None: structured in
            ``retrieve_first``, text in ``tools``.
        reader: the evidence the structured drafting turn shows (default :class:`ReaderView`: 4 passages,
            then 2 facts, no entity cards).
        answer_fit: with structured drafting, a short answer that passes the check must also fit the question
            (:func:`~graphrag_agents.agent.answer_fit`: not an echo of it, evidence about each side
            of a comparison, cited evidence tied to its names), else a revision turn and then the refusal
            (``abstain_reason="off_question"``); measured in ``docs/agent.md``.
        confirm: with structured drafting, before serving an answer ask the model once more, shown only the
            question, the answer and the items it cited, whether they state it (``{"supported": ...}``); no is
            the refusal (``abstain_reason="not_confirmed"``). One extra call per served answer; measured in
            ``docs/agent.md``.
        supporting_sentence: with structured drafting, the reply format asks for the evidence sentence that
            states the answer (copied) before the answer itself; measured in ``docs/agent.md``.
        min_confidence: with structured drafting, refuse an answer the model itself gave a probability under
            this (0-1, read from the reply's token log-probabilities,
            :func:`~graphrag_agents.agent.answer_confidence`; ``abstain_reason="low_confidence"``). The model
            must return log-probabilities (OpenAI, llama.cpp, vLLM). None: no threshold; 0.3 was chosen for the
            local models on held-out questions (``docs/agent.md``).
        hops: in ``retrieve_first`` with structured drafting, answer a multi-hop question as a chain of single-hop
            steps (:mod:`~graphrag_agents.agent.chain_nodes`): plan the sub-questions (by rule, else one structured
            call), and for each retrieve, draft and check that one cited sentence states the hop's subject and its
            answer together; a hop no evidence answers ends in the refusal (``abstain_reason="missing_hop"``, the
            hop in ``missing_hop``), and the served answer carries its chain. A comparison or a one-hop question
            takes the single-retrieve path. False: the single-retrieve path for every question (the previous
            default); measured in ``docs/agent.md``.
        choice_check: with structured drafting in ``retrieve_first``, before serving, show the model its cited
            evidence, the question and its answer among alternatives from that evidence (and the chain's bridge
            entities, or a comparison's other side) plus "none of these", shuffled, and serve only when it picks
            its own answer (``abstain_reason="not_chosen"``; :mod:`~graphrag_agents.agent.choice`). One call when
            there is an alternative to show; measured in ``docs/agent.md``.
        name: the compiled graph's name.

    Returns:
        A compiled graph. Run it with ``await agent.ainvoke({"question": ...})`` (or ``{"messages": [...]}``),
        or stream it with ``astream``; the final state holds ``answer``, ``abstained``, ``abstain_reason``,
        ``citation_check``, ``sources``, ``tool_calls``, ``llm_calls``, ``tokens``, ``revisions`` and, with
        structured drafting, ``short_answer``
        (:meth:`GroundedAnswer.from_state <graphrag_agents.agent.GroundedAnswer.from_state>` types them).
        The nodes are async: use the async API.

    Example::

        agent = build_grounded_agent(ChatOpenAI(model="gpt-4o-mini"), GraphRAGToolkit(kg, read_only=True))
        state = await agent.ainvoke({"question": "Which band did Neil Peart play in?"})
        print(state["answer"], state["abstained"])
    """
    if mode not in ("tools", "retrieve_first"):
        raise ValueError(f"mode must be 'tools' or 'retrieve_first', not {mode!r}")
    if max_revisions < 0 or max_tool_rounds < 1:
        raise ValueError("max_revisions must be >= 0 and max_tool_rounds >= 1")
    drafting = drafting or ("structured" if mode == "retrieve_first" else "text")
    if drafting not in ("structured", "text"):
        raise ValueError(f"drafting must be 'structured' or 'text', not {drafting!r}")
    if min_confidence is not None:
        if not 0.0 <= min_confidence <= 1.0:
            raise ValueError(f"min_confidence must be a probability from 0 to 1, not {min_confidence!r}")
        if drafting != "structured":
            raise ConfigurationError("min_confidence reads the short answer of a structured draft. Fix: build the "
                                     "agent with drafting='structured', or min_confidence=None.")
    _check_retrieve_options(retrieve_options or {})
    chat = model if isinstance(model, BaseChatModel) else langchain_chat_model(model)
    nodes = Nodes(chat, toolkit, mode=mode, max_revisions=max_revisions, refusal=refusal, min_score=min_score,
                   accept=accept, system_prompt=system_prompt, max_tool_rounds=max_tool_rounds,
                   retrieve_options=dict(retrieve_options or {}), evidence_chars=evidence_chars,
                   text_tool_calls=text_tool_calls,
                   repair_citations=repair_citations,
                   drafting=drafting, reader=reader or ReaderView(), answer_fit=answer_fit, confirm=confirm,
                   supporting_sentence=supporting_sentence, min_confidence=min_confidence,
                   choice_check=choice_check and mode == "retrieve_first" and drafting == "structured")
    chained = hops and mode == "retrieve_first" and drafting == "structured"
    if nodes.choice_check or chained:
        nodes.chain = ChainNodes(nodes, choice_check=nodes.choice_check)
    builder = StateGraph(GroundedAgentState, input_schema=GroundedAgentInput)
    builder.add_node("prepare", nodes.prepare)
    builder.add_node("agent", nodes.agent)
    builder.add_node("verify", nodes.verify)
    builder.add_edge(START, "prepare")
    if mode == "retrieve_first":
        builder.add_node("retrieve", nodes.retrieve)
        if chained and nodes.chain is not None:
            builder.add_node("plan", nodes.chain.plan)
            builder.add_node("hop", nodes.chain.hop)
            builder.add_node("conclude", nodes.chain.conclude)
            builder.add_edge("prepare", "plan")
            builder.add_conditional_edges("plan", _after_plan, ["hop", "retrieve"])
            builder.add_conditional_edges("hop", _after_hop, ["hop", "conclude", END])
            builder.add_edge("conclude", END)
        else:
            builder.add_edge("prepare", "retrieve")
        builder.add_conditional_edges("retrieve", _after_retrieve, ["agent", END])
        builder.add_edge("agent", "verify")
        builder.add_conditional_edges("verify", _after_verify("agent"), ["agent", END])
    else:
        builder.add_node("tools", nodes.tools)
        if min_score is not None:
            builder.add_node("gate", nodes.gate)
            builder.add_edge("prepare", "gate")
            builder.add_conditional_edges("gate", _after_retrieve, ["agent", END])
        else:
            builder.add_edge("prepare", "agent")
        answer = "verify"
        if drafting == "structured":
            builder.add_node("final", nodes.final)
            builder.add_edge("final", "verify")
            answer = "final"
        builder.add_conditional_edges("agent", _after_agent(answer), ["tools", answer])
        builder.add_conditional_edges("tools", nodes.after_tools(answer), ["agent", answer])
        builder.add_conditional_edges("verify", _after_verify(answer if answer == "final" else "agent"),
                                      [answer if answer == "final" else "agent", END])
    return builder.compile(checkpointer=checkpointer, name=name)


def _check_retrieve_options(options: Mapping[str, Any]) -> None:
    """Refuse an option ``GraphRAGToolkit.retrieve`` does not take when the agent is built, not at its first run."""
    known = [name for name in inspect.signature(GraphRAGToolkit.retrieve).parameters if name not in ("self",
                                                                                                    "question")]
    unknown = sorted(set(options) - set(known))
    if unknown:
        raise ConfigurationError(f"retrieve_options has no option {', '.join(map(repr, unknown))}. Fix: use "
                                 f"{', '.join(known)} (the agent passes the question itself).")


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
