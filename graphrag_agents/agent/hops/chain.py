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

from typing import TYPE_CHECKING, Any

from langchain_core.messages import AIMessage, HumanMessage, SystemMessage
from langchain_core.runnables import RunnableConfig

from ...errors import ToolError
from ...tools.results import RetrieveResult
from ..choice import CHOICE_SYSTEM_PROMPT, choice_options, choice_prompt, choice_response_format, parse_choice
from ..drafting import draft_prompt, parse_draft
from ..fit.bridge import bridge_problem
from ..fit.echo import echo_problem
from ..fit.figures import kind_problem
from ..fit.kind import kind_mismatch, label_index
from ..fit.shown import FitProblem
from ..prompts import STRUCTURED_SYSTEM_PROMPT
from ..reader import ReaderView, reader_evidence, reader_titles
from ..state import GroundedAgentState, add_usage
from ..structured import StructuredCaller
from .check import HopStep, MissingHop, chain_text, check_hop, hop_subject, same_name
from .compare import decide
from .compare_plan import Comparison, comparison_plan
from .plan import PLAN_SYSTEM_PROMPT, fill, is_comparison, parse_plan, plan_prompt, plan_response_format, rule_hops

if TYPE_CHECKING:
    from ..nodes import Nodes

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
    """The chain's nodes, sharing the model, the sessions and the options of the agent's :class:`Nodes`."""

    def __init__(self, nodes: Nodes, *, choice_check: bool) -> None:
        self.nodes = nodes
        self.choice_check = choice_check
        self.planner = StructuredCaller(nodes.model, plan_response_format())

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
        return {"hops": planned if len(planned) > 1 else [], "plan_by": "model",
                "llm_calls": state.get("llm_calls", 0) + 1, "tokens": add_usage(state.get("tokens"), response)}

    async def hop(self, state: State, config: RunnableConfig) -> Update:
        """Walk the next hop: retrieve its question, draft its short answer, check it; a hop that fails ends the
        run in the refusal (``missing_hop``)."""
        nodes = self.nodes
        chain: list[HopStep] = list(state.get("chain") or [])
        index = len(chain)
        template = state["hops"][index]
        answers = [step["answer"] for step in chain]
        question = fill(template, answers)
        comparison = state.get("comparison")
        subject = (comparison["subjects"][index] if comparison else "") or hop_subject(template, question, answers)
        args = {"question": question, **nodes.options.retrieve_options}
        calls = list(state.get("tool_calls") or [])
        session = nodes.session(state)
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
        nodes = self.nodes
        context, shown = reader_evidence(result, view)
        prompt = [SystemMessage(STRUCTURED_SYSTEM_PROMPT), HumanMessage(draft_prompt(question, context))]
        response = await nodes.structured.ainvoke(prompt, config)
        update.update({"llm_calls": update.get("llm_calls", state.get("llm_calls", 0)) + 1,
                       "tokens": add_usage(update.get("tokens", state.get("tokens")), response),
                       "context": "\n\n".join(filter(None, [update.get("context", state.get("context", "")),
                                                             context])),
                       "shown": [*(update.get("shown", state.get("shown")) or []), *shown], "draft": response.text})
        draft = parse_draft(response.text)
        if draft is None or draft.declines:
            update["short_answer"] = draft.answer if draft else ""
            return "the evidence does not answer it"
        update["short_answer"] = draft.answer
        problem = self.hop_misfit(question, draft.answer, subject, update["labels"])
        if problem is not None:
            update["fit"] = [problem.detail]
            return problem.detail
        n, check = await check_hop(draft, subject, nodes.session(state), shown, nodes.options.accept,
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
        if not self.nodes.options.answer_fit:
            return None
        if subject and (echo := echo_problem(subject, answer)):
            return echo
        if (kind := kind_problem(question, answer)) is not None:
            return FitProblem("kind", kind)
        return kind_mismatch(question, answer, label_index([(str(n), list(ls)) for n, ls in labels]))

    async def conclude(self, state: State, config: RunnableConfig) -> Update:
        """Check the chain's last answer against the whole question (kind, bridge) and, with ``choice_check``, the
        model's pick among alternatives; serve it with its chain, or refuse."""
        nodes = self.nodes
        chain = list(state.get("chain") or [])
        comparison = state.get("comparison")
        if comparison is not None:
            return self.compared(state, comparison, chain)
        final = chain[-1]
        question = state["question"]
        bridges = [chain[0]["subject"], *(step["answer"] for step in chain[:-1])]
        update: Update = {"short_answer": final["answer"], "fit": []}
        if nodes.options.answer_fit:
            labels = label_index([(str(n), list(ls)) for n, ls in state.get("labels") or []])
            found = [p for p in (bridge_problem(question, final["answer"], [b for b in bridges if b]),
                                 kind_mismatch(question, final["answer"], labels)) if p is not None]
            if found:
                return {**update, "fit": [p.detail for p in found], "verdict": "refused",
                        **nodes.abstain("off_question")}
        ledger = nodes.session(state).ledger
        cited = [(n, item.content) for step in chain for n in step["evidence"] if (item := ledger.get(n))]
        if self.choice_check:
            picked, choice_update = await self.choose(state, question, final["answer"], cited,
                                                      [b for b in bridges if b], config)
            update.update(choice_update)
            if picked is False:
                return {**update, "verdict": "refused", **nodes.abstain("not_chosen")}
        numbers = list(dict.fromkeys(n for step in chain for n in step["evidence"]))
        marker = "".join(f" [{n}]" for n in final["evidence"])
        answer = f"Answer: {final['answer']}{marker} ({chain_text(chain)})."
        sources = [item.model_dump(mode="json") for n in numbers if (item := ledger.get(n)) is not None]
        return {**update, "verdict": "accepted", "answer": answer, "abstained": False, "abstain_reason": None,
                "sources": sources, "messages": [AIMessage(answer)]}

    def compared(self, state: State, comparison: Comparison, chain: list[HopStep]) -> Update:
        """Serve what the comparison rule concludes from each side's checked value (:mod:`.compare`), citing both
        sides; refuse when the values decide nothing."""
        values = [chain[i]["answer"] for i in comparison["finals"]]
        decision = decide(comparison, values)
        if decision.answer is None:
            return {"short_answer": "", "fit": [decision.reason], "verdict": "refused",
                    **self.nodes.abstain("off_question")}
        numbers = list(dict.fromkeys(n for step in chain for n in step["evidence"]))
        cited = list(dict.fromkeys(n for i in comparison["finals"] for n in chain[i]["evidence"]))
        marker = "".join(f" [{n}]" for n in cited)
        answer = f"Answer: {decision.answer}{marker} ({chain_text(chain)})."
        ledger = self.nodes.session(state).ledger
        sources = [item.model_dump(mode="json") for n in numbers if (item := ledger.get(n)) is not None]
        return {"short_answer": decision.answer, "fit": [], "verdict": "accepted", "answer": answer,
                "abstained": False, "abstain_reason": None, "sources": sources, "messages": [AIMessage(answer)]}

    async def choose(self, state: State, question: str, answer: str, cited: list[tuple[int, str]],
                     bridges: list[str], config: RunnableConfig) -> tuple[bool | None, Update]:
        """The multiple-choice check: True when the model picks ``answer``, False when it picks another option,
        None when there was no alternative to show (no call made); and the state update."""
        options = choice_options(question, answer, [text for _, text in cited], bridges)
        if not options:
            return None, {"choice": None}
        caller = StructuredCaller(self.nodes.model, choice_response_format(len(options)))
        prompt = [SystemMessage(CHOICE_SYSTEM_PROMPT), HumanMessage(choice_prompt(question, options, cited))]
        response = await caller.ainvoke(prompt, config)
        picked = parse_choice(response.text, options)
        return picked == answer, {"choice": {"options": options, "draft": answer, "picked": picked},
                                  "llm_calls": state.get("llm_calls", 0) + 1,
                                  "tokens": add_usage(state.get("tokens"), response)}

    def missing(self, index: int, question: str, reason: str) -> Update:
        """The refusal of a hop no evidence answered, naming it."""
        return {"verdict": "refused", "missing_hop": MissingHop(index=index + 1, question=question, reason=reason),
                **self.nodes.abstain("missing_hop")}
