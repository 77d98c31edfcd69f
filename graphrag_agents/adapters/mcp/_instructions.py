"""The guide an MCP server sends its clients as ``instructions``, written for the tools it actually serves."""

from __future__ import annotations

from collections.abc import Collection

__all__ = ["build_instructions"]


def _numbered(steps: list[str]) -> str:
    return "\n".join(f"{i}. {step}" for i, step in enumerate(steps, 1))


def _answer_steps(tools: Collection[str]) -> list[str]:
    steps: list[str] = []
    if "retrieve" in tools:
        steps.append("Call `retrieve` first with the user's question word for word. Leave `paths` unset (all "
                     "search paths) unless you know the question needs only some of them: facts, exact_names, "
                     "fuzzy_names, links, passages.")
        steps.append("If the first call did not answer the question, call `retrieve` again with the exact names "
                     "of what you look for, or with `expand_hops` 2-3 (up to 5) for questions that chain several "
                     "facts.")
    about = [f"`{name}`" for name in ("status", "get_ontology") if name in tools]
    if about:
        steps.append(f"For questions about the graph itself (what it holds, its entity and relation types) use "
                     f"{' or '.join(about)}.")
    if "check_citations" in tools or "retrieve" in tools:
        steps.append("Answer briefly. Cite every claim with the evidence numbers the tools returned on this "
                     "connection, as [n], [1, 4] or [1-3]; never cite a number a tool did not return. If the "
                     "evidence does not answer the question, say the graph does not contain the answer.")
    if "check_citations" in tools:
        steps.append("Always run `check_citations` on your draft before replying, and fix what it reports: remove "
                     "invalid numbers, cite or drop uncited claims, correct unsupported ones.")
    return steps


def _build_steps(tools: Collection[str]) -> list[str]:
    steps: list[str] = []
    files = "preview_files" in tools
    if "set_ontology" in tools:
        first = "Ask the user for their ontology (entity types, relation types and which types each relation " \
                "links) and declare it with `set_ontology` before the first ingest."
        if files:
            first += (" Without one, call `preview_files` until `next_offset` is null, then declare one ontology "
                      "for the whole corpus, with a specific relation type for each kind of link (owns, causes, "
                      "supplies, ...); a few broad types file facts under the wrong one.")
        steps.append(first)
    elif files:
        steps.append("Call `preview_files` until `next_offset` is null to see what the files hold.")
    if "ingest" in tools:
        how = "`ingest` text"
        if files:
            how += (", or files under the files root with `files` (at most 50 per call; globs such as "
                    "`reports/*.pdf` work) and a per-file `plan`; the tool description says what each plan "
                    "option costs")
        steps.append(how + ".")
    if "add_facts" in tools:
        steps.append("To add facts you read yourself, `add_facts` writes entities and relations tied to a stored "
                     "source text, checked against the ontology.")
    if "finalize" in tools:
        steps.append("Call `finalize` once, after the last batch, so new items are embedded and searchable.")
    if "ingest" in tools and "set_ontology" in tools:
        again = "ingest the affected files again with `reextract` true" if files else "ingest the text again"
        steps.append("Check `pruned` in each ingest result: to keep what the ontology missed, extend it with "
                     f"`set_ontology` (the result's hint gives the exact call), {again}"
                     + (", then `finalize` again." if "finalize" in tools else "."))
    return steps


def build_instructions(tools: Collection[str], max_result_chars: int) -> str:
    """The client guide for a server that serves ``tools``.

    Args:
        tools: the names of the tools served.
        max_result_chars: the size results are shortened to.
    """
    parts = ["This server answers questions from a knowledge graph and checks the citations of your answers. "
             "Every entity, relation, fact and passage a tool returns carries an evidence number [n]."]
    answer = _answer_steps(tools)
    if answer:
        parts.append("To answer a question:\n" + _numbered(answer))
    build = _build_steps(tools)
    if build:
        parts.append("To build the graph (these tools write; ask the user before running them):\n"
                     + _numbered(build))
    parts.append(f"Results over {max_result_chars:,} characters are shortened and marked `truncated`; evidence "
                 "cut from them cannot be cited. Narrow the call (fewer paths, a lower top_k, document_ids) "
                 "to see the rest.")
    return "\n\n".join(parts)
