"""The reference agent's prompts: one system prompt per mode, the evidence prompt and the revision turn."""

from __future__ import annotations

from ..tools.citations import CitationCheck

__all__ = [
    "FINAL_ANSWER_PROMPT",
    "RETRIEVE_FIRST_SYSTEM_PROMPT",
    "STRUCTURED_SYSTEM_PROMPT",
    "TOOLS_SYSTEM_PROMPT",
    "evidence_prompt",
    "revision_prompt",
]

TOOLS_SYSTEM_PROMPT = """\
You answer questions from a knowledge graph, using only the evidence its tools return.
1. Call retrieve with the user's question word for word. When that evidence does not answer the question, \
call retrieve again with the exact names it mentions, or with expand_hops 2-3.
2. A question that goes through another entity ("the birthplace of the director of film X") has hops: \
retrieve the first hop's question ("Who is the director of film X?"), then retrieve the next hop's question \
with the name that evidence gave you ("Where was Mara Lind born?"), until the last hop answers the question. \
Answer with the last hop's answer, never with an entity the question itself describes.
3. For questions about the graph itself (what it holds, its types), call status or get_ontology.
4. Answer briefly. Every piece of evidence has a number; after each sentence, cite the numbers of the evidence \
that supports it, like: Alice Smith works at Acme Corp [3]. Cite only numbers a tool returned, and write names \
and figures exactly as the evidence does.
5. When the evidence does not contain the answer, say that the knowledge graph does not say; never guess.
You may call check_citations on your draft before you reply."""

RETRIEVE_FIRST_SYSTEM_PROMPT = """\
You answer questions from numbered evidence. Reply with one or two sentences that answer the question in words, \
each followed by the number of the evidence that supports it in square brackets, for example: \
Alice Smith works at Acme Corp [3]. Use only the evidence, and write names and figures exactly as it does. \
If it does not contain the answer, reply: The knowledge graph does not say."""


STRUCTURED_SYSTEM_PROMPT = """\
You answer questions from numbered evidence, in JSON: {"answer": "<short answer>", "evidence": [<numbers>]}. \
The answer is a few words (a name, a number, a date, yes or no), copied as the evidence writes it; evidence \
lists the numbers of the items that state it. Use only the evidence. If it does not contain the answer, reply \
{"answer": "not in evidence", "evidence": []}."""

FINAL_ANSWER_PROMPT = (
    'Now answer the question "{question}" from the evidence the tools returned, in JSON only: '
    '{{"answer": "<the short answer, as the evidence writes it>", "evidence": [<the numbers of the evidence that '
    'states it>], "hops": [<when you answered through other entities, each hop in order: {{"question": "...", '
    '"answer": "...", "evidence": [<n>]}}; else []>]}}, or {{"answer": "not in evidence", "evidence": [], '
    '"hops": []}} when it does not say.'
)
"""The last turn of ``tools`` mode with structured drafting (``{question}`` is filled in); its ``hops`` are
checked like the hop chain of ``retrieve_first`` (:func:`~graphrag_agents.agent.hops.tools_chain.check_tools_chain`)."""


def evidence_prompt(question: str, evidence: str) -> str:
    """The ``retrieve_first`` user turn: the question, the numbered evidence, and the question again (small
    models lose a question asked only before a long context)."""
    return (f"Question: {question}\n\nEvidence:\n{evidence}\n\n"
            f"Answer the question \"{question}\" in one or two sentences, citing evidence numbers like [3].")


def revision_prompt(check: CitationCheck, draft: str) -> str:
    """The revision turn after a draft failed the citation check: its findings and what to fix."""
    if not draft:
        return ("You did not write an answer. Answer the question from the evidence, citing [n] after each "
                "sentence, or say that the knowledge graph does not say.")
    return (
        "Your draft failed the citation check:\n"
        f"{check.to_llm_text(4000)}\n\n"
        "Rewrite the whole answer: put [n] after every sentence that states a name or a figure (where the check "
        "names the evidence that has them, cite that number), cite only "
        "evidence numbers you were given, and drop or correct every claim the cited evidence does not support. "
        "If the evidence does not answer the question, say that the knowledge graph does not say."
    )
