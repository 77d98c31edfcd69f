"""The hop chain of ``retrieve_first`` (the default there): plan the hops, walk them, and conclude.

::

    prepare -> plan -> hop -> hop ... -> conclude -> END
                 |      |
                 |      +-> END (missing_hop: a hop no evidence answered, named in ``missing_hop``)
                 +-> retrieve -> agent -> verify ...   (one hop, or a comparison: the single-retrieve path)

``plan`` reads the sub-questions by rule, else with one structured call (:mod:`.plan`). Each ``hop``
retrieves its question (earlier answers filled in for ``#1``), drafts a structured short answer from
reader-sized evidence, and checks it (:mod:`.check`: one cited sentence states the hop's subject and its
answer together). ``conclude`` applies the answer-fit rules that read a chain (the kind the question asks for,
not the bridge) and, with ``choice_check``, the multiple-choice check (:mod:`..choice`), then serves the last
answer with its chain: ``Answer: Stanley [3] (Van Hook Township -> Mountrail County [1] -> Stanley [3]).``
A 2-hop question costs at most 4 calls: plan, two drafts, the choice.

A comparison the rules read (:mod:`.compare_plan`) is planned as one run of hops per side ("When was A
born?", "When was B born?"), each checked the same way, and ``conclude`` then compares the sides' values by rule
(:mod:`.compare`) instead of asking the model: ``Answer: B [1] [3] (A -> 1961 [1]; B -> 1946 [3]).``
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage, HumanMessage, SystemMessage
from langchain_core.runnables import RunnableConfig

from ...errors import ToolError
from ...tools.results import RetrieveResult
from ..choice import choose
from ..drafting import StructuredDraft, draft_prompt, parse_draft
from ..fit.bridge import bridge_problem
from ..fit.echo import echo_problem
from ..fit.kind import kind_mismatch, label_index
from ..fit.rules import kind_finding
from ..fit.shown import FitProblem
from ..prompts import STRUCTURED_SYSTEM_PROMPT
from ..reader import ReaderView, reader_evidence, reader_titles
from ..state import GroundedAgentState, add_usage
from ..structured import StructuredCaller
from .certain import not_a_chain
from .check import HopStep, MissingHop, chain_text, check_hop, hop_subject, same_name
from .compare import decide
from .compare_plan import Comparison, comparison_plan
from .context import HopContext
from .links import chain_gap
from .plan import PLAN_SYSTEM_PROMPT, fill, is_comparison, parse_plan, plan_prompt, plan_response_format, rule_hops
from .restated import restated_answer

__all__ = ["ChainNodes"]

State = GroundedAgentState
Update = dict[str, Any]

HOP_READER = ReaderView(passages=3, facts=1, passage_chars=700, max_chars=2600)
"""The evidence each hop's drafting turn shows: a single-hop question needs fewer passages than the whole
multi-hop question's view (:class:`ReaderView`'s default, 4), and every hop costs a call, so its prompt is kept
to about 700 tokens."""


FOCUSED_READER = ReaderView(passages=1, facts=0, passage_chars=900, max_chars=1000)
"""The second look at a failed hop: only the passage titled with the hop's subject."""


def _subject_passage(result: RetrieveResult, subject: str) -> RetrieveResult | None:
    """``result`` holding only its passage titled with ``subject`` (a note in parentheses aside), or None when no
    passage is, or it is the only item there is to show."""
    about = [p for p in result.passages if same_name(p.file, subject)]
    if not about or len(result.passages) < 2:
        return None
    return result.model_copy(update={"passages": about[:1], "facts": [], "entities": [], "relations": []})


class ChainNodes:
    """The chain's nodes (``plan``, ``hop``, ``conclude``), reading the agent through ``context``."""

    def __init__(self, context: HopContext) -> None:
        self.context = context
        self.planner = StructuredCaller(context.model, plan_response_format())
        """The planning call, constrained to :data:`~.plan.PLAN_SCHEMA`."""

    async def plan(self, state: State, config: RunnableConfig) -> Update:
        """The hop plan: by rule, else one structured call; a comparison's per-side hops and its rule
        (:mod:`.compare_plan`); [] for a comparison the rules do not read, or a one-step question."""
        question = state["question"]
        if is_comparison(question):
            compared = comparison_plan(question)
            if compared is None:
                return {"hops": [], "plan_by": None}
            return {"hops": compared[0], "comparison": compared[1], "plan_by": "rules"}
        steps = rule_hops(question)
        if steps is not None:
            return {"hops": steps if len(steps) > 1 else [], "plan_by": "rules"}
        prompt = [SystemMessage(PLAN_SYSTEM_PROMPT), HumanMessage(plan_prompt(question))]
        response = await self.planner.ainvoke(prompt, config)
        planned = parse_plan(response.text) or []
        note = not_a_chain(question, planned)
        return {"hops": planned if len(planned) > 1 and note is None else [], "plan_by": "model", "plan_note": note,
                "llm_calls": state.get("llm_calls", 0) + 1, "tokens": add_usage(state.get("tokens"), response)}

    async def hop(self, state: State, config: RunnableConfig) -> Update:
        """Walk the next hop: retrieve its question, draft its short answer, check it; a hop that fails ends the
        run in the refusal (``missing_hop``)."""
        context = self.context
        chain: list[HopStep] = list(state.get("chain") or [])
        index = len(chain)
        template = state["hops"][index]
        answers = [step["answer"] for step in chain]
        question = fill(template, answers)
        comparison = state.get("comparison")
        subject = (comparison["subjects"][index] if comparison else "") or hop_subject(template, question, answers)
        args = {"question": question, **context.retrieve_options}
        calls = list(state.get("tool_calls") or [])
        session = context.session(state)
        try:
            result: RetrieveResult | None = await session.retrieve(**args)
        except ToolError as err:
            result = None
            calls.append({"name": "retrieve", "args": args, "ok": False, "by": "agent", "evidence": [],
                          "error": str(err)})
        update: Update = {"tool_calls": calls}
        if result is None:
            return {**update, **self.missing(index, question, "retrieve failed")}
        calls.append({"name": "retrieve", "args": args, "ok": True, "by": "agent",
                      "evidence": result.evidence_numbers(), "error": None})
        if not result.evidence_numbers():
            return {**update, **self.missing(index, question, "retrieve found nothing")}
        update.update({"labels": [*(state.get("labels") or []),
                                  *([e.name, [e.label, *e.aliases]] for e in result.entities)]})
        outcome = await self.draft_hop(state, update, question, subject, result, HOP_READER, config)
        focused = _subject_passage(result, subject)
        if (isinstance(outcome, str) and focused is not None and state.get("plan_by") == "rules"
                and not state.get("hop_retried")):
            # Case: the 1.5B model answered a hop from a sentence about another thing among the shown passages
            # (the birthplace of another director); shown only the passage about the hop's subject, it reads the
            # subject's own sentence. Once a run, so a rule-planned 2-hop question stays within 4 calls.
            update["hop_retried"] = True
            outcome = await self.draft_hop(state, update, question, subject, focused, FOCUSED_READER, config)
        if isinstance(outcome, str):
            return {**update, **self.missing(index, question, outcome)}
        step = HopStep(index=index + 1, question=question, subject=subject, answer=outcome[0], evidence=[outcome[1]])
        return {**update, "chain": [*chain, step]}

    async def draft_hop(self, state: State, update: Update, question: str, subject: str, result: RetrieveResult,
                        view: ReaderView, config: RunnableConfig) -> tuple[str, int] | str:
        """One structured draft of a hop from ``result`` shown by ``view``, checked: (answer, the evidence number
        stating it with the subject), or why it failed. Records the call in ``update``."""
        evidence, shown = reader_evidence(result, view)
        prompt = [SystemMessage(STRUCTURED_SYSTEM_PROMPT), HumanMessage(draft_prompt(question, evidence))]
        response = await self.context.drafter.ainvoke(prompt, config)
        update.update({"llm_calls": update.get("llm_calls", state.get("llm_calls", 0)) + 1,
                       "tokens": add_usage(update.get("tokens", state.get("tokens")), response),
                       "context": "\n\n".join(filter(None, [update.get("context", state.get("context", "")),
                                                             evidence])),
                       "shown": [*(update.get("shown", state.get("shown")) or []), *shown], "draft": response.text,
                       "shown_titles": [*(update.get("shown_titles", state.get("shown_titles")) or []),
                                        *reader_titles(result, shown)]})
        draft = parse_draft(response.text)
        if draft is None or draft.declines:
            update["short_answer"] = draft.answer if draft else ""
            return "the evidence does not answer it"
        draft = StructuredDraft(answer=restated_answer(question, subject, draft.answer), evidence=draft.evidence)
        update["short_answer"] = draft.answer
        problem = self.hop_misfit(question, draft.answer, subject, update["labels"])
        if problem is not None:
            update["fit"] = [problem.detail]
            return problem.detail
        n, check = await check_hop(draft, subject, self.context.session(state), shown, self.context.accept,
                                   dict(reader_titles(result, shown)), question)
        if check is not None:
            update["citation_check"] = check.model_dump(mode="json")
        if n is None:
            return f"no cited sentence states {subject or 'it'} and {draft.answer!r} together"
        update["fit"] = []
        return draft.answer, n

    def hop_misfit(self, question: str, answer: str, subject: str,
                   labels: list[Any]) -> FitProblem | None:
        """A hop's answer that cannot answer its question: its subject again, or not the kind it asks for."""
        if not self.context.answer_fit:
            return None
        if subject and (echo := echo_problem(subject, answer)):
            return echo
        if (kind := kind_finding(question, answer)) is not None:
            return kind
        return kind_mismatch(question, answer, label_index([(str(n), list(ls)) for n, ls in labels]))

    async def conclude(self, state: State, config: RunnableConfig) -> Update:
        """Check the chain's last answer against the whole question (kind, bridge) and, with ``choice_check``, the
        model's pick among alternatives; serve it with its chain, or refuse."""
        context = self.context
        chain = list(state.get("chain") or [])
        comparison = state.get("comparison")
        if comparison is not None:
            return self.compared(state, comparison, chain)
        final = chain[-1]
        question = state["question"]
        bridges = [b for b in [chain[0]["subject"], *(step["answer"] for step in chain[:-1])] if b]
        update: Update = {"short_answer": final["answer"], "fit": []}
        ledger = context.session(state).ledger
        if context.answer_fit and (misfit := _chain_misfit(question, final["answer"], bridges, state)):
            return {**update, "fit": misfit, "verdict": "refused", **context.abstain("off_question")}
        entities = [str(name) for name, _ in state.get("labels") or []]
        gap = chain_gap(question, final["answer"], chain, ledger.get, dict(state.get("shown_titles") or []), entities)
        update["chain_gap"] = gap
        cited = [(n, item.content) for step in chain for n in step["evidence"] if (item := ledger.get(n))]
        picked: bool | None = None
        if context.choice_check:
            # The choice call runs even when the chain has a gap, so the records say what each check alone would
            # have refused (docs/agent-measured.md weighs one against the other).
            picked, choice_update = await choose(context.model, state, question, final["answer"], cited, bridges,
                                                 config)
            update.update(choice_update)
        if context.answer_fit and gap is not None:
            return {**update, "fit": [gap], "verdict": "refused", **context.abstain("off_question")}
        if picked is False:
            return {**update, "verdict": "refused", **context.abstain("not_chosen")}
        return {**update, **self.served(state, chain, final["answer"], final["evidence"])}

    def compared(self, state: State, comparison: Comparison, chain: list[HopStep]) -> Update:
        """Serve what the comparison rule concludes from each side's checked value (:mod:`.compare`), citing both
        sides; refuse when the values decide nothing."""
        values = [chain[i]["answer"] for i in comparison["finals"]]
        ledger = self.context.session(state).ledger
        evidence = [[item.content for n in chain[i]["evidence"] if (item := ledger.get(n)) is not None]
                    for i in comparison["finals"]]
        decision = decide(comparison, values, evidence)
        if decision.answer is None:
            return {"short_answer": "", "fit": [decision.reason], "verdict": "refused",
                    **self.context.abstain("off_question")}
        cited = list(dict.fromkeys(n for i in comparison["finals"] for n in chain[i]["evidence"]))
        return {"short_answer": decision.answer, "fit": [], **self.served(state, chain, decision.answer, cited)}

    def served(self, state: State, chain: list[HopStep], answer: str, cited: list[int]) -> Update:
        """The update serving ``answer`` marked with ``cited``, followed by its chain; every hop's cited item is a
        source."""
        numbers = list(dict.fromkeys(n for step in chain for n in step["evidence"]))
        marker = "".join(f" [{n}]" for n in cited)
        text = f"Answer: {answer}{marker} ({chain_text(chain)})."
        ledger = self.context.session(state).ledger
        sources = [item.model_dump(mode="json") for n in numbers if (item := ledger.get(n)) is not None]
        return {"verdict": "accepted", "answer": text, "abstained": False, "abstain_reason": None,
                "sources": sources, "messages": [AIMessage(text)]}

    def missing(self, index: int, question: str, reason: str) -> Update:
        """The refusal of a hop no evidence answered, naming it."""
        return {"verdict": "refused", "missing_hop": MissingHop(index=index + 1, question=question, reason=reason),
                **self.context.abstain("missing_hop")}


def _chain_misfit(question: str, answer: str, bridges: list[str], state: State) -> list[str]:
    """The findings of the answer-fit rules that read a chain's last answer: a bridge entity of the chain, the
    question's own words or a name's initials (an echo), or not the kind the whole question asks for (by the
    entity cards the hops' retrieves returned)."""
    labels = label_index([(str(n), list(ls)) for n, ls in state.get("labels") or []])
    found = [bridge_problem(question, answer, bridges), echo_problem(question, answer),
             kind_mismatch(question, answer, labels)]
    return [p.detail for p in found if p is not None]
