"""``build_grounded_agent``: the reference LangGraph agent whose last step always checks citations.

Two modes, the same ending::

    tools:           prepare -> [gate] -> agent <-> tools -> verify -> END
    retrieve_first:  prepare -> retrieve -> agent -> verify -> END
                                              ^          |
                                              +- revise -+   (at most max_revisions times)

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

import uuid
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolCall, ToolMessage
from langchain_core.runnables import Runnable, RunnableConfig
from langchain_core.utils.function_calling import convert_to_openai_tool
from langgraph.graph import END, START, StateGraph
from langgraph.prebuilt import ToolNode

from ..adapters.langchain import GraphRAGLangChainToolkit
from ..errors import ConfigurationError, ToolError
from ..models.langchain_model import langchain_chat_model
from ..tools.results import RetrieveResult, ToolResult
from ..tools.toolkit import READ_TOOLS, GraphRAGToolkit
from ._text_tool_calls import salvage_text_tool_calls
from .gate import REFUSAL, AcceptRule, last_ai_text, strictly_grounded, verify_draft
from .prompts import RETRIEVE_FIRST_SYSTEM_PROMPT, TOOLS_SYSTEM_PROMPT, evidence_prompt, revision_prompt
from .state import AbstainReason, GroundedAgentInput, GroundedAgentState, TokenUsage, ToolCallRecord, add_usage

if TYPE_CHECKING:
    from langgraph.graph.state import CompiledStateGraph
    from langgraph.types import Checkpointer

__all__ = ["AgentMode", "build_grounded_agent"]

AgentMode = Literal["tools", "retrieve_first"]
"""``tools``: the model calls the read tools itself. ``retrieve_first``: the agent retrieves the question, puts
the numbered evidence in the prompt and the model only drafts (for models without reliable tool calling)."""

State = GroundedAgentState
Update = dict[str, Any]


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
    name: str = "grounded_agent",
) -> CompiledStateGraph[GroundedAgentState, None, GroundedAgentInput, GroundedAgentState]:
    """The reference agent: answer from the graph with ``[n]`` citations, verified, or the fixed refusal.

    Args:
        model: any LangChain chat model; a litellm model name; or None for ``GRAPHRAG_MODEL``
            (``ChatLiteLLM``, needs ``pip install 'graphrag-agents[langchain]'``).
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
        evidence_chars: size of the evidence text the agent's own retrieve shows the model.
        text_tool_calls: in ``tools`` mode, run tool calls a model wrote as bare JSON text (small local models
            do) as real ones.
        repair_citations: when a draft fails the check, first give its uncited sentences the evidence numbers
            the check suggests (items holding all their figures and names) and check again; a repaired draft
            that passes is served (``repaired`` is true in the final state) without a revision turn. Off by
            default: it lets models that do not cite (small local ones) answer, at the check's literal standard.
        name: the compiled graph's name.

    Returns:
        A compiled graph. Run it with ``await agent.ainvoke({"question": ...})`` (or ``{"messages": [...]}``),
        or stream it with ``astream``; the final state holds ``answer``, ``abstained``, ``abstain_reason``,
        ``citation_check``, ``sources``, ``tool_calls``, ``llm_calls``, ``tokens`` and ``revisions``
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
    chat = model if isinstance(model, BaseChatModel) else langchain_chat_model(model)
    nodes = _Nodes(chat, toolkit, mode=mode, max_revisions=max_revisions, refusal=refusal, min_score=min_score,
                   accept=accept, system_prompt=system_prompt, max_tool_rounds=max_tool_rounds,
                   retrieve_options=dict(retrieve_options or {}), evidence_chars=evidence_chars,
                   text_tool_calls=text_tool_calls, repair_citations=repair_citations)
    builder = StateGraph(GroundedAgentState, input_schema=GroundedAgentInput)
    builder.add_node("prepare", nodes.prepare)
    builder.add_node("agent", nodes.agent)
    builder.add_node("verify", nodes.verify)
    builder.add_edge(START, "prepare")
    if mode == "retrieve_first":
        builder.add_node("retrieve", nodes.retrieve)
        builder.add_edge("prepare", "retrieve")
        builder.add_conditional_edges("retrieve", _after_retrieve, ["agent", END])
        builder.add_edge("agent", "verify")
    else:
        builder.add_node("tools", nodes.tools)
        if min_score is not None:
            builder.add_node("gate", nodes.gate)
            builder.add_edge("prepare", "gate")
            builder.add_conditional_edges("gate", _after_retrieve, ["agent", END])
        else:
            builder.add_edge("prepare", "agent")
        builder.add_conditional_edges("agent", _after_agent, ["tools", "verify"])
        builder.add_conditional_edges("tools", nodes.after_tools, ["agent", "verify"])
    builder.add_conditional_edges("verify", _after_verify, ["agent", END])
    return builder.compile(checkpointer=checkpointer, name=name)


def _after_retrieve(state: State) -> str:
    return END if state.get("abstained") else "agent"


def _after_agent(state: State) -> str:
    last = state["messages"][-1]
    return "tools" if isinstance(last, AIMessage) and last.tool_calls else "verify"


def _after_verify(state: State) -> str:
    return "agent" if state.get("verdict") == "revise" else END


class _Nodes:
    """The graph's nodes, sharing the model, the tools and the options."""

    def __init__(self, model: BaseChatModel, toolkit: GraphRAGToolkit, *, mode: AgentMode, max_revisions: int,
                 refusal: str, min_score: float | None, accept: AcceptRule, system_prompt: str | None,
                 max_tool_rounds: int, retrieve_options: dict[str, Any], evidence_chars: int,
                 text_tool_calls: bool, repair_citations: bool) -> None:
        self.mode = mode
        self.repair_citations = repair_citations
        self.max_revisions = max_revisions
        self.refusal = refusal
        self.min_score = min_score
        self.accept = accept
        self.max_tool_rounds = max_tool_rounds
        self.retrieve_options = retrieve_options
        self.evidence_chars = evidence_chars
        self.text_tool_calls = text_tool_calls
        self.system = system_prompt or (TOOLS_SYSTEM_PROMPT if mode == "tools" else RETRIEVE_FIRST_SYSTEM_PROMPT)
        # One evidence session per thread (or per run, see prepare), shared by the tools and verify.
        self.sessions = GraphRAGLangChainToolkit(toolkit=toolkit, scope="per_thread")
        tools = [tool for tool in self.sessions.get_tools() if tool.name in READ_TOOLS]
        self.tool_schemas = {tool.name: convert_to_openai_tool(tool)["function"].get("parameters") or {}
                             for tool in tools}
        self.tool_node = ToolNode(tools)
        self.model = model
        self.bound: Runnable[Any, BaseMessage] = model
        if mode == "tools":
            try:
                self.bound = model.bind_tools(tools)
            except NotImplementedError as exc:
                raise ConfigurationError(
                    f"{type(model).__name__} does not support tool calling. Fix: build the agent with "
                    "mode='retrieve_first'."
                ) from exc

    # -- helpers -----------------------------------------------------------------------------------------------

    def session(self, state: State) -> GraphRAGToolkit:
        return self.sessions.session_for(_thread_config(state["session_id"]))

    def abstain(self, reason: AbstainReason) -> Update:
        return {"answer": self.refusal, "abstained": True, "abstain_reason": reason,
                "messages": [AIMessage(self.refusal)]}

    async def own_retrieve(self, state: State) -> tuple[RetrieveResult | None, ToolCallRecord, Update]:
        """The agent's own ``retrieve(question)`` (gate and ``retrieve_first``): the result (None when it
        failed), its call record, and the state update both nodes start from (the record added, and the best
        score or the ``retrieve_failed`` abstention)."""
        args = {"question": state["question"], **self.retrieve_options}
        try:
            result: RetrieveResult | None = await self.session(state).retrieve(**args)
            record = _record("retrieve", args, result, by="agent")
        except ToolError as err:
            result, record = None, _record("retrieve", args, None, by="agent", error=str(err))
        update: Update = {"tool_calls": [*state.get("tool_calls", []), record]}
        if result is None:
            update.update(self.abstain("retrieve_failed"))
        else:
            update["best_score"] = result.best_evidence_score
        return result, record, update

    # -- nodes -------------------------------------------------------------------------------------------------

    async def prepare(self, state: State, config: RunnableConfig) -> Update:
        """Take the question (the last user message, or ``question``) and reset the run's results."""
        messages = state.get("messages") or []
        added: list[BaseMessage] = []
        last = messages[-1] if messages else None
        if isinstance(last, HumanMessage):
            question, question_id = last.text.strip(), str(last.id)
        else:
            question = (state.get("question") or "").strip()
            message = HumanMessage(question, id=str(uuid.uuid4()))
            added, question_id = [message], str(message.id)
        if not question:
            raise ConfigurationError("The agent needs a question. Fix: invoke it with {'question': '...'} or "
                                     "{'messages': [('user', '...')]}.")
        thread = ((config.get("configurable") or {}).get("thread_id"))
        return {
            "messages": added, "question": question, "question_id": question_id,
            "session_id": str(thread) if thread is not None else f"run-{uuid.uuid4().hex}",
            "answer": "", "abstained": False, "abstain_reason": None, "verdict": None, "draft": "",
            "citation_check": None,
            "sources": [], "tool_calls": [], "llm_calls": 0, "tokens": TokenUsage(input=0, output=0, total=0),
            "revisions": 0, "repaired": False, "tool_rounds": 0, "best_score": None, "context": "",
        }

    async def gate(self, state: State) -> Update:
        """``tools`` mode with ``min_score``: retrieve first; abstain on a low score, else hand the model the
        result as if it had called retrieve itself."""
        result, record, update = await self.own_retrieve(state)
        if result is None:
            return update
        assert self.min_score is not None
        if not result.evidence_numbers() or result.best_evidence_score < self.min_score:
            return {**update, **self.abstain("low_score")}
        call = ToolCall(name="retrieve", args=record["args"], id=f"gate_{uuid.uuid4().hex[:12]}", type="tool_call")
        update["messages"] = [
            AIMessage("", tool_calls=[call]),
            ToolMessage(result.to_llm_text(self.evidence_chars), artifact=result, tool_call_id=call["id"],
                        name="retrieve"),
        ]
        return update

    async def retrieve(self, state: State) -> Update:
        """``retrieve_first``: retrieve the question; abstain when nothing (or nothing good enough) is found."""
        result, _, update = await self.own_retrieve(state)
        if result is None:
            return update
        if not result.evidence_numbers():
            return {**update, **self.abstain("no_evidence")}
        if self.min_score is not None and result.best_evidence_score < self.min_score:
            return {**update, **self.abstain("low_score")}
        return {**update, "context": result.to_llm_text(self.evidence_chars)}

    async def agent(self, state: State, config: RunnableConfig) -> Update:
        """Call the model once: with the tools bound (``tools``), or on the evidence prompt (``retrieve_first``)."""
        prompt: list[BaseMessage] = [SystemMessage(self.system)]
        if self.mode == "tools":
            prompt += state["messages"]
        else:
            evidence = HumanMessage(evidence_prompt(state["question"], state.get("context", "")))
            prompt += [evidence if m.id == state.get("question_id") else m for m in state["messages"]]
        response = await self.bound.ainvoke(prompt, config)
        if not isinstance(response, AIMessage):  # a model wrapped to return something else
            response = AIMessage(str(response.content))
        if self.mode == "tools" and self.text_tool_calls:
            response = salvage_text_tool_calls(response, self.tool_schemas)
        return {"messages": [response], "llm_calls": state.get("llm_calls", 0) + 1,
                "tokens": add_usage(state.get("tokens"), response)}

    async def tools(self, state: State, config: RunnableConfig) -> Update:
        """Run the model's tool calls (LangGraph's ToolNode) in the run's evidence session."""
        output = await self.tool_node.ainvoke(state, _with_thread(config, state["session_id"]))
        results = [m for m in output["messages"] if isinstance(m, ToolMessage)]
        by_id = {m.tool_call_id: m for m in results}
        last = state["messages"][-1]
        calls = last.tool_calls if isinstance(last, AIMessage) else []
        records = [_tool_message_record(call, by_id.get(str(call["id"]))) for call in calls]
        return {"messages": output["messages"], "tool_calls": [*state.get("tool_calls", []), *records],
                "tool_rounds": state.get("tool_rounds", 0) + 1}

    def after_tools(self, state: State) -> str:
        return "verify" if state.get("tool_rounds", 0) >= self.max_tool_rounds else "agent"

    async def verify(self, state: State) -> Update:
        """Check the draft: serve it, ask for one more revision, or serve the refusal."""
        draft = last_ai_text(state["messages"])
        verdict = await verify_draft(draft, self.session(state), self.accept, repair=self.repair_citations)
        update: Update = {"draft": draft, "citation_check": verdict.check.model_dump(mode="json"),
                          "repaired": verdict.repaired}
        if verdict.accepted:
            return {**update, "verdict": "accepted", "answer": verdict.answer, "abstained": False,
                    "abstain_reason": None, "sources": [item.model_dump(mode="json") for item in verdict.sources]}
        revisions = state.get("revisions", 0)
        if revisions < self.max_revisions:
            return {**update, "verdict": "revise", "revisions": revisions + 1,
                    "messages": [HumanMessage(revision_prompt(verdict.check, draft))]}
        return {**update, "verdict": "refused", **self.abstain("ungrounded")}


def _thread_config(session_id: str) -> RunnableConfig:
    return {"configurable": {"thread_id": session_id}}


def _with_thread(config: RunnableConfig, session_id: str) -> RunnableConfig:
    """``config`` naming the run's session as its thread, so the tools number evidence in that session."""
    configurable = dict(config.get("configurable") or {})
    if configurable.get("thread_id") == session_id:
        return config
    configurable["thread_id"] = session_id
    return {**config, "configurable": configurable}


def _record(name: str, args: Mapping[str, Any], result: ToolResult | None, *, by: Literal["model", "agent"],
            error: str | None = None) -> ToolCallRecord:
    return ToolCallRecord(name=name, args=dict(args), ok=error is None, by=by,
                          evidence=result.evidence_numbers() if result is not None else [], error=error)


def _tool_message_record(call: ToolCall, message: ToolMessage | None) -> ToolCallRecord:
    if message is None:
        return _record(call["name"], call["args"], None, by="model", error="no result")
    artifact = message.artifact if isinstance(message.artifact, ToolResult) else None
    error = message.text if message.status == "error" else None
    return _record(call["name"], call["args"], artifact, by="model", error=error)

