"""Whether a query states something to check (a claim) rather than asking or listing keywords.

Retrieval's final order picks a question's passages one by one for their score plus the share of the question's
words each adds to those before it (:mod:`graphrag_agents.retrieval.novelty`): a question's answer may be spread
over passages that together cover it. A claim to check is one proposition, and each passage that supports or
refutes it is evidence on its own, worded its own way; the order by new coverage then lifts passages that echo the
claim's other words above the evidence. So a statement's passages are ordered by score (measured on two sets of
claims, HealthVer and CLIMATE-FEVER: ``docs/retrieval-passages.md``, "Claims").

A statement here is a sentence that asks nothing:

* it asks when it holds a question mark, opens with an interrogative, an auxiliary or a request ("Which ...",
  "Does ...", "List ..."; also after an opening preposition: "In which ..."), or writes "what" anywhere
  ("... was driven by what Finnish driver");
* it is a sentence, not a list of keywords, when it ends with a full stop or an exclamation mark, or writes a
  finite auxiliary, copula, modal or negation ("is", "has", "can", "not", "never"). A search typed as keywords
  ("npm ci lockfile mismatch") has none of these, and coverage helps it
  (``benchmarks/results/2026-12-07-claims-ranking.md``).

A headline without a verb of that kind ("Vitamin C cures COVID-19") reads as keywords: the rule errs toward the
question's ranking, which is the previous behaviour.
"""

from __future__ import annotations

import re

__all__ = ["reads_as_statement"]

_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?")
_INTERROGATIVES = frozenset("what which who whom whose when where why how".split())
_AUXILIARIES = frozenset("is are was were am do does did can could should would has have had shall".split())
_REQUESTS = frozenset(
    "find list name give tell show explain describe compare identify define summarize summarise".split())
_OPENERS = _INTERROGATIVES | _AUXILIARIES | _REQUESTS
_PREPOSITIONS = frozenset("in at on for from by with of to during after before since".split())
_FINITE = frozenset(
    "is are was were am has have had can could will would may might must should shall does do did cannot "
    "not never no isn't aren't wasn't weren't hasn't haven't hadn't can't couldn't won't wouldn't doesn't "
    "don't didn't shouldn't mustn't".split())


def _asks(words: list[str], text: str) -> bool:
    if "?" in text or "what" in words:
        return True
    first = words[0]
    return first in _OPENERS or (first in _PREPOSITIONS and len(words) > 1 and words[1] in _INTERROGATIVES)


def reads_as_statement(text: str) -> bool:
    """True when ``text`` is a sentence that asks nothing: a claim to check (module docstring)."""
    words = [w.replace("’", "'") for w in _WORD.findall(text.lower())]
    if not words or _asks(words, text):
        return False
    return text.rstrip().endswith((".", "!")) or not _FINITE.isdisjoint(words)
