"""The nodes of the reference agent's graph (:func:`~graphrag_agents.agent.build_grounded_agent` wires them):
prepare, the agent's own retrieve (gate, ``retrieve_first``), the model turns (agent, the structured final
answer), the tools and verify."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolCall, ToolMessage
from langchain_core.runnables import Runnable, RunnableConfig
from langchain_core.utils.function_calling import convert_to_openai_tool
from langgraph.prebuilt import ToolNode

from ..adapters.langchain import GraphRAGLangChainToolkit
from ..errors import ConfigurationError, ToolError
from ..tools.results import RetrieveResult, ToolResult
from ..tools.toolkit import READ_TOOLS, GraphRAGToolkit
from ._text_tool_calls import salvage_text_tool_calls
from .checks import SERVING_CHECKS, CheckContext, ServingCheck, run_checks
from .confidence import answer_probability, missing_logprobs, token_logprobs
from .confirm import confirm_response_format
from .drafting import StructuredDraft, draft_prompt, parse_draft, response_format, structured_revision_prompt
from .gate import Verdict, last_ai_text, verify_draft
from .options import AgentMode, AgentOptions
from .prompts import (
    FINAL_ANSWER_PROMPT,
    RETRIEVE_FIRST_SYSTEM_PROMPT,
    STRUCTURED_SYSTEM_PROMPT,
    TOOLS_SYSTEM_PROMPT,
    evidence_prompt,
    revision_prompt,
)
from .reader import reader_evidence, reader_titles
from .state import AbstainReason, GroundedAgentState, TokenUsage, ToolCallRecord, abstention, add_usage
from .structured import StructuredCaller, as_ai_message
from .structured_gate import verify_structured

State = GroundedAgentState
Update = dict[str, Any]


class Nodes:
    """The graph's nodes, sharing the model, the tools and the options."""

    def __init__(self, model: BaseChatModel, toolkit: GraphRAGToolkit, *, mode: AgentMode,
                 options: AgentOptions, mode_reason: str | None = None) -> None:
        self.mode = mode
        self.mode_reason = mode_reason
        """What ``mode="auto"`` read to pick ``mode``; None when the caller named it."""
        self.options = options
        """The options as this mode runs them (:meth:`AgentOptions.for_mode`: ``drafting`` filled in)."""
        drafting = options.drafting_for(mode)
        self.system = options.system_prompt or (TOOLS_SYSTEM_PROMPT if mode == "tools" else
                                                STRUCTURED_SYSTEM_PROMPT if drafting == "structured" else
                                                RETRIEVE_FIRST_SYSTEM_PROMPT)
        # One evidence session per thread (or per run, see prepare), shared by the tools and verify.
        self.sessions = GraphRAGLangChainToolkit(toolkit=toolkit, scope="per_thread")
        tools = [tool for tool in self.sessions.get_tools() if tool.name in READ_TOOLS]
        self.tool_schemas = {tool.name: convert_to_openai_tool(tool)["function"].get("parameters") or {}
                             for tool in tools}
        self.tool_node = ToolNode(tools)
        self.model = model
        self.checks: tuple[ServingCheck, ...] = SERVING_CHECKS
        """What ``verify`` runs, in order, on a structured draft that passed the citation check."""
        logprobs = options.min_confidence is not None
        self.structured = StructuredCaller(model, response_format(sentence=options.supporting_sentence),
                                           logprobs=logprobs)
        self.final_caller = StructuredCaller(model, response_format(hops=True), logprobs=logprobs)
        self.confirmer = StructuredCaller(model, confirm_response_format())
        self.bound: Runnable[Any, BaseMessage] = model
        if mode == "tools":
            try:
                self.bound = model.bind_tools(tools)
            except NotImplementedError as exc:
                raise ConfigurationError(
                    f"{type(model).__name__} does not support tool calling. Fix: build the agent with "
                    "mode='retrieve_first' (or mode='auto', which picks it for such a model)."
                ) from exc

    # -- helpers -----------------------------------------------------------------------------------------------

    def session(self, state: State) -> GraphRAGToolkit:
        return self.sessions.session_for(_thread_config(state["session_id"]))

    def abstain(self, reason: AbstainReason) -> Update:
        return abstention(self.options.refusal, reason)

    async def own_retrieve(self, state: State) -> tuple[RetrieveResult | None, ToolCallRecord, Update]:
        """The agent's own ``retrieve(question)`` (gate and ``retrieve_first``): the result (None when it
        failed), its call record, and the state update both nodes start from (the record added, and the best
        score or the ``retrieve_failed`` abstention)."""
        args = {"question": state["question"], **self.options.retrieve_options}
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
            "messages": added, "question": question, "question_id": question_id, "mode": self.mode,
            "mode_reason": self.mode_reason,
            "session_id": str(thread) if thread is not None else f"run-{uuid.uuid4().hex}",
            "answer": "", "abstained": False, "abstain_reason": None, "verdict": None, "draft": "",
            "citation_check": None,
            "sources": [], "tool_calls": [], "llm_calls": 0, "tokens": TokenUsage(input=0, output=0, total=0),
            "revisions": 0, "repaired": False, "tool_rounds": 0, "best_score": None, "context": "",
            "short_answer": "", "shown": None, "shown_titles": [], "fit": [], "confirmed": None,
            "confidence": None, "hops": [], "comparison": None, "plan_by": None, "chain": [], "missing_hop": None,
            "choice": None, "labels": [], "hop_retried": False, "trace": [],
        }

    async def gate(self, state: State) -> Update:
        """``tools`` mode with ``min_score``: retrieve first; abstain on a low score, else hand the model the
        result as if it had called retrieve itself."""
        result, record, update = await self.own_retrieve(state)
        if result is None:
            return update
        assert self.options.min_score is not None
        if not result.evidence_numbers() or result.best_evidence_score < self.options.min_score:
            return {**update, **self.abstain("low_score")}
        call = ToolCall(name="retrieve", args=record["args"], id=f"gate_{uuid.uuid4().hex[:12]}", type="tool_call")
        update["messages"] = [
            AIMessage("", tool_calls=[call]),
            ToolMessage(result.to_llm_text(self.options.evidence_chars), artifact=result, tool_call_id=call["id"],
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
        if self.options.min_score is not None and result.best_evidence_score < self.options.min_score:
            return {**update, **self.abstain("low_score")}
        if self.options.drafting == "structured":
            context, shown = reader_evidence(result, self.options.reader)
            return {**update, "context": context, "shown": shown, "shown_titles": reader_titles(result, shown)}
        return {**update, "context": result.to_llm_text(self.options.evidence_chars)}

    async def agent(self, state: State, config: RunnableConfig) -> Update:
        """Call the model once: with the tools bound (``tools``), or on the evidence prompt (``retrieve_first``)."""
        prompt: list[BaseMessage] = [SystemMessage(self.system)]
        if self.mode == "tools":
            prompt += state["messages"]
        else:
            context = state.get("context", "")
            question = state["question"]
            evidence = HumanMessage(draft_prompt(question, context, self.options.supporting_sentence)
                                    if self.options.drafting == "structured" else evidence_prompt(question, context))
            prompt += [evidence if m.id == state.get("question_id") else m for m in state["messages"]]
        if self.mode == "retrieve_first" and self.options.drafting == "structured":
            response = await self.structured.ainvoke(prompt, config)
            return self.drafted(state, response)
        response = as_ai_message(await self.bound.ainvoke(prompt, config))
        if self.mode == "tools" and self.options.text_tool_calls:
            response = salvage_text_tool_calls(response, self.tool_schemas)
        return {"messages": [response], "llm_calls": state.get("llm_calls", 0) + 1,
                "tokens": add_usage(state.get("tokens"), response)}

    def drafted(self, state: State, response: AIMessage, added: Sequence[BaseMessage] = ()) -> Update:
        """The update of a structured drafting call: the reply, its cost and (with ``min_confidence``) the
        model's confidence in its short answer."""
        update: Update = {"messages": [*added, response], "llm_calls": state.get("llm_calls", 0) + 1,
                          "tokens": add_usage(state.get("tokens"), response)}
        if self.options.min_confidence is not None:
            tokens = token_logprobs(response)
            if tokens is None:
                raise missing_logprobs(f"{type(self.model).__name__} returned no log-probabilities")
            update["confidence"] = answer_probability(tokens)
        return update

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

    def after_tools(self, answer: str) -> Callable[[State], str]:
        def route(state: State) -> str:
            return answer if state.get("tool_rounds", 0) >= self.options.max_tool_rounds else "agent"

        return route

    async def final(self, state: State, config: RunnableConfig) -> Update:
        """``tools`` mode, structured drafting: one structured call writes the answer from the conversation
        (the instruction is added once; a revision turn already ends the conversation with its findings)."""
        added = [] if isinstance(state["messages"][-1], HumanMessage) else \
            [HumanMessage(FINAL_ANSWER_PROMPT.format(question=state["question"]))]
        response = await self.final_caller.ainvoke([SystemMessage(self.system), *state["messages"], *added], config)
        return self.drafted(state, response, added)

    async def verify(self, state: State, config: RunnableConfig) -> Update:
        """Check the draft: serve it, ask for one more revision, or serve the refusal.

        A draft that passes the citation check is served once the serving checks (:data:`SERVING_CHECKS`) let it
        through; a check's rejection refuses, or first gives the model a revision turn with its findings."""
        draft = last_ai_text(state["messages"])
        structured = parse_draft(draft) if self.options.drafting == "structured" else None
        if structured is not None and structured.declines:
            return {"draft": draft, "short_answer": structured.answer, "verdict": "refused",
                    **self.abstain("not_in_evidence")}
        verdict, holders = await self.checked(state, draft, structured)
        update: Update = {"draft": draft, "citation_check": verdict.check.model_dump(mode="json"),
                          "repaired": verdict.repaired, "short_answer": structured.answer if structured else "",
                          "fit": []}
        context = CheckContext(self, state, config, draft, update, served=verdict.answer)
        rejection = await run_checks(self.checks, context, structured, verdict) \
            if verdict.accepted and structured is not None else None
        if verdict.accepted and rejection is None:
            served = [AIMessage(context.served, id=state["messages"][-1].id)] if structured else []
            return {**update, "verdict": "accepted", "answer": context.served, "abstained": False,
                    "abstain_reason": None, "sources": [item.model_dump(mode="json") for item in verdict.sources],
                    "messages": served}
        if rejection is not None and not rejection.revise:
            return {**update, "verdict": "refused", **self.abstain(rejection.reason)}
        revisions = state.get("revisions", 0)
        if revisions < self.options.max_revisions:
            turn = structured_revision_prompt(structured, verdict.check, holders, update["fit"]) if structured \
                else revision_prompt(verdict.check, draft)
            return {**update, "verdict": "revise", "revisions": revisions + 1, "messages": [HumanMessage(turn)]}
        return {**update, "verdict": "refused", **self.abstain(rejection.reason if rejection else "ungrounded")}

    async def checked(self, state: State, draft: str, structured: StructuredDraft | None) -> tuple[Verdict, list[int]]:
        """The citation check of the draft (rendered first when structured), and the items the check suggests
        for a structured draft's short answer."""
        if structured is None:
            return await verify_draft(draft, self.session(state), self.options.accept,
                                      repair=self.options.repair_citations), []
        checked = await verify_structured(structured, self.session(state), self.options.accept,
                                          repair=self.options.repair_citations, shown=state.get("shown"))
        return checked.verdict, checked.holders


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

