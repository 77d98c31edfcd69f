"""The reference agent's state, and :class:`GroundedAnswer`, a typed view of a finished run.

State values are plain JSON-like data (dicts, lists, strings, numbers) besides ``messages``, so every
LangGraph checkpointer stores them without registering our types.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal

from langchain_core.messages import AIMessage, AnyMessage
from langgraph.graph.message import add_messages
from typing_extensions import TypedDict

from ..evidence import Evidence
from ..tools.citations import CitationCheck
from .hops.check import HopStep, MissingHop, chain_text
from .hops.compare_plan import Comparison
from .options import AgentMode, Drafting
from .trace import TraceStep, add_trace, refusal_reason

__all__ = [
    "AbstainReason",
    "AgentMode",
    "Drafting",
    "GroundedAgentInput",
    "GroundedAgentState",
    "GroundedAnswer",
    "TokenUsage",
    "ToolCallRecord",
    "abstention",
    "add_usage",
    "format_sources",
]

AbstainReason = Literal["low_score", "no_evidence", "retrieve_failed", "not_in_evidence", "ungrounded",
                        "off_question", "not_confirmed", "low_confidence", "missing_hop", "not_chosen"]
"""Why a run ended in the refusal: the gate's best score was under ``min_score``; retrieve found nothing
(``retrieve_first``); the agent's own retrieve failed; the model's structured answer was "not in evidence"; the
drafts never passed the citation check; or they passed it but did not answer the question
(:func:`~graphrag_agents.agent.answer_fit`: an echo of the question, one side of a comparison, or
evidence unrelated to the question's names); or, with ``confirm``, the model answered that its cited evidence does
not state the answer; or, with ``min_confidence``, the model's probability of its own short answer was under the
threshold; or a hop of the chain had no evidence stating its answer with its subject (``missing_hop``, the hop named
in the state's ``missing_hop``); or, with ``choice_check``, the model picked another option than its own answer
(``not_chosen``)."""


class TokenUsage(TypedDict):
    """Tokens the chat model reported for one run (0 when the provider reports none)."""

    input: int
    output: int
    total: int


class ToolCallRecord(TypedDict):
    """One tool call of the run: the model's, or the agent's own ``retrieve`` (gate, ``retrieve_first``)."""

    name: str
    args: dict[str, Any]
    ok: bool
    """False when the tool returned an error (the model saw the error text and its hint)."""
    by: Literal["model", "agent"]
    evidence: list[int]
    """The evidence numbers the call issued."""
    error: str | None


class GroundedAgentInput(TypedDict, total=False):
    """What a run takes: a ``question``, or ``messages`` ending with the user's question."""

    question: str
    messages: Annotated[list[AnyMessage], add_messages]


class GroundedAgentState(TypedDict, total=False):
    """The state of :func:`~graphrag_agents.agent.build_grounded_agent`'s graph; after a run it holds the result."""

    messages: Annotated[list[AnyMessage], add_messages]
    question: str
    """The question of the current run (the last user message)."""
    mode: AgentMode
    """The mode the run used (``tools`` or ``retrieve_first``)."""
    mode_reason: str | None
    """What ``mode="auto"`` read to pick it (:func:`~graphrag_agents.agent.choose_mode`); None when the caller named
    the mode."""
    question_id: str
    """The id of that user message (prompts of ``retrieve_first`` put the evidence beside it)."""
    session_id: str
    """The evidence session of the run: the ``thread_id`` when the run has one, else a key of its own."""
    answer: str
    """The verified answer (invalid citation numbers removed), or the fixed refusal string."""
    abstained: bool
    abstain_reason: AbstainReason | None
    verdict: Literal["accepted", "revise", "refused"] | None
    """What ``verify`` decided last (None when the run ended before it: an abstention of the gate)."""
    draft: str
    """The last draft the citation check read."""
    citation_check: dict[str, Any] | None
    """The last :class:`CitationCheck` as a dict (``GroundedAnswer.check`` gives it typed)."""
    sources: list[dict[str, Any]]
    """The evidence the accepted answer cites (:class:`Evidence` dicts: n, tool, kind, content, source)."""
    tool_calls: list[ToolCallRecord]
    llm_calls: int
    tokens: TokenUsage
    revisions: int
    """Revision turns used (each after a draft failed the check)."""
    repaired: bool
    """The answer passed only once the check's suggested citations were added (``repair_citations``)."""
    tool_rounds: int
    """Rounds of model tool calls run (``tools`` mode)."""
    best_score: float | None
    """The best score of the agent's own retrieve (gate or ``retrieve_first``); None when it ran none."""
    context: str
    """The numbered evidence text ``retrieve_first`` puts in the prompt."""
    shown: list[int] | None
    """The evidence numbers the structured drafting turn of ``retrieve_first`` showed, in order (None: the
    model saw whatever its tools returned)."""
    shown_titles: list[tuple[int, str]]
    """(number, document title) of the passages the structured drafting turn showed (the answer-fit rules
    read them)."""
    fit: list[str]
    """What the answer-fit rules found in the last structured draft ([] when nothing, or when they are off)."""
    confirmed: bool | None
    """The confirmation turn's verdict (``confirm``); None when it did not run."""
    confidence: float | None
    """The model's probability of the last structured draft's short answer (``min_confidence``); None when not
    measured."""
    short_answer: str
    """The short answer of the last structured draft, without markers ('' with text drafting); on a refusal it
    is what the model had answered."""
    hops: list[str]
    """The hop plan: the chain's sub-questions, a later one naming an earlier answer ``#1`` ([]: no chain)."""
    comparison: Comparison | None
    """A comparison plan's rule (:mod:`.hops.compare_plan`): which hops hold each option's value and how they are
    compared; None for a chain or no plan."""
    plan_by: Literal["rules", "model"] | None
    """Who planned the hops (the relative-phrase rules, or the model's planning call); None: no plan was read."""
    plan_note: str | None
    """Why a planned split was not walked (:func:`~graphrag_agents.agent.hops.certain.not_a_chain`); None
    otherwise."""
    chain: list[HopStep]
    """The hops walked, each checked: question, subject, answer and the evidence number stating them together."""
    missing_hop: MissingHop | None
    """The hop no evidence answered (``abstain_reason="missing_hop"``): its number, question and why."""
    choice: dict[str, Any] | None
    """The multiple-choice check (``choice_check``): ``options`` shown, the ``draft`` and the option ``picked``;
    None when it did not run."""
    chain_gap: str | None
    """What keeps a walked chain from holding together (:func:`~graphrag_agents.agent.hops.links.chain_gap`: a name
    of the question no cited item holds, or two hops whose items share nothing); None when it holds, or was not
    read."""
    labels: list[Any]
    """(name, labels) of the entity cards the chain's retrieves returned (the answer-kind rule reads them)."""
    hop_retried: bool
    """Whether a failed hop of this run was drafted again from its subject's own passage (once a run)."""
    trace: Annotated[list[TraceStep], add_trace]
    """What each node of the run did (:class:`~graphrag_agents.agent.trace.TraceStep`: node, outcome, reason,
    detail), in order."""


def abstention(refusal: str, reason: AbstainReason) -> dict[str, Any]:
    """The update of a run that ends in the fixed ``refusal`` text for ``reason``."""
    return {"answer": refusal, "abstained": True, "abstain_reason": reason, "messages": [AIMessage(refusal)]}


def add_usage(tokens: TokenUsage | None, message: AIMessage) -> TokenUsage:
    """``tokens`` plus the usage ``message`` reports."""
    total = TokenUsage(input=0, output=0, total=0) if tokens is None else TokenUsage(**tokens)
    usage = message.usage_metadata
    if usage:
        total["input"] += int(usage.get("input_tokens") or 0)
        total["output"] += int(usage.get("output_tokens") or 0)
        total["total"] += int(usage.get("total_tokens") or 0)
    return total


@dataclass
class GroundedAnswer:
    """A finished run, typed: the answer or refusal, the check, the evidence it used and what it cost.

    Example::

        state = await agent.ainvoke({"question": "Who founded Acme?"})
        result = GroundedAnswer.from_state(state)
        print(result.to_text())
    """

    question: str
    answer: str
    abstained: bool
    abstain_reason: AbstainReason | None = None
    check: CitationCheck | None = None
    """The last citation check (of the accepted answer, or of the last rejected draft)."""
    sources: list[Evidence] = field(default_factory=list)
    """The evidence the accepted answer cites; empty on a refusal."""
    tool_calls: list[ToolCallRecord] = field(default_factory=list)
    llm_calls: int = 0
    tokens: TokenUsage = field(default_factory=lambda: TokenUsage(input=0, output=0, total=0))
    revisions: int = 0
    repaired: bool = False
    """The served answer carries citations the check suggested, not the model (``repair_citations``)."""
    short_answer: str = ""
    """The short answer of a structured draft (what EM / F1 score); '' with text drafting."""
    fit: list[str] = field(default_factory=list)
    """What the answer-fit rules found in the last structured draft (why an ``off_question`` run refused)."""
    confirmed: bool | None = None
    """The confirmation turn's verdict (``confirm``); None when it did not run."""
    confidence: float | None = None
    """The model's probability of its short answer (``min_confidence``); None when not measured."""
    chain: list[HopStep] = field(default_factory=list)
    """The hops of a chained answer, each with its checked evidence ([] when the question took one hop)."""
    missing_hop: MissingHop | None = None
    """The hop no evidence answered (``missing_hop`` refusals)."""
    choice: dict[str, Any] | None = None
    """The multiple-choice check's options and pick (``choice_check``); None when it did not run."""
    reason: str | None = None
    """Why the run refused, in words, from its trace ("hop 2 unanswered: ...", "the draft answered another
    question: ...", "the model answered nothing"); None when it answered."""
    mode: str = ""
    """The mode the run used ('' for a state without one)."""
    mode_reason: str | None = None
    """What ``mode="auto"`` read to pick the mode; None when the caller named it."""

    @classmethod
    def from_state(cls, state: Mapping[str, Any]) -> GroundedAnswer:
        """The result held by a final state of the reference agent."""
        check = state.get("citation_check")
        return cls(
            question=str(state.get("question", "")),
            answer=str(state.get("answer", "")),
            abstained=bool(state.get("abstained", False)),
            abstain_reason=state.get("abstain_reason"),
            reason=refusal_reason(state.get("trace")) if state.get("abstained") else None,
            mode=str(state.get("mode") or ""),
            mode_reason=state.get("mode_reason"),
            check=CitationCheck.model_validate(check) if check else None,
            sources=[Evidence.model_validate(s) for s in state.get("sources") or ()],
            tool_calls=list(state.get("tool_calls") or ()),
            llm_calls=int(state.get("llm_calls", 0)),
            tokens=state.get("tokens") or TokenUsage(input=0, output=0, total=0),
            revisions=int(state.get("revisions", 0)),
            repaired=bool(state.get("repaired", False)),
            short_answer=str(state.get("short_answer") or ""),
            fit=[str(p) for p in state.get("fit") or ()],
            confirmed=state.get("confirmed"),
            confidence=state.get("confidence"),
            chain=list(state.get("chain") or []),
            missing_hop=state.get("missing_hop"),
            choice=state.get("choice"),
        )

    @property
    def chain_text(self) -> str:
        """The chain as one line (``Van Hook Township -> Mountrail County [1] -> Stanley [3]``); '' without one."""
        return chain_text(self.chain) if self.chain and not self.abstained else ""

    def to_text(self, source_chars: int = 200) -> str:
        """The answer, its chain (one line per hop), then one line per cited source (its content shortened to
        ``source_chars``); a refusal, then why in words (a ``missing_hop`` refusal names the hop)."""
        if self.abstained:
            return self.answer + (f"\n({self.reason})" if self.reason else "")
        text = self.answer
        if self.chain:
            text += "\n\nChain:\n" + "\n".join(
                f"{step['index']}. {step['question']} -> {step['answer']}"
                f"{''.join(f' [{n}]' for n in step['evidence'])}" for step in self.chain)
        if self.sources:
            text += "\n\nSources:\n" + format_sources(self.sources, source_chars)
        return text


def format_sources(sources: Sequence[Evidence], chars: int = 200) -> str:
    """``[n] kind (source): content`` lines, the content shortened to ``chars``."""
    lines = []
    for item in sources:
        where = f" ({item.source})" if item.source else ""
        text = " ".join(item.content.split())
        text = text if len(text) <= chars else text[: chars - 1] + "…"
        lines.append(f"[{item.n}] {item.kind}{where}: {text}")
    return "\n".join(lines)
