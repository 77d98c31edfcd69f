"""The hop plan of a multi-hop question: its single-hop sub-questions, a later one naming an earlier answer ``#1``.

Two ways to the plan, the cheaper first:

* **rules** (:func:`rule_hops`, no model call) read the relative phrases of a compositional question: "the R of
  X" nested in a question ("What is the place of birth of the director of film Blood Street?" ->
  "Who is the director of film Blood Street?", "What is the place of birth of #1?"), a possessive ("When did
  Lothair II's mother die?" -> "Who is Lothair II's mother?", "When did #1 die?") and the kinship words that are
  two hops ("paternal grandfather" = the father's father). Cases: the compositional and inference questions of
  the 2WikiMultihopQA mixed set, whose wording is this regular.
* **one relative clause** that names its own thing ("What is the seat of the county where Van Hook Township is
  located?" -> "In which county is Van Hook Township located?", "What is the seat of #1?"; "the actor who played
  V" -> "Which actor played V?"). Case: the issue-22 hidden set's wording, where the 1.5B model served the bridge
  (the county, the actor); the clause asked first makes it a hop of its own.
* **the model** (:func:`plan_prompt`, one structured call, :data:`PLAN_SCHEMA`) splits any other question.

A comparison ("A or B?", "Are A and B both ...?", "... out of A and B?") is not a chain: :func:`is_comparison`
sends it to :mod:`.compare_plan` (one chain per side, compared by rule), and a comparison those rules do not read
to the single-retrieve path, whose answer-fit rules check each side. A plan of one step is not a chain either.
"""

from __future__ import annotations

import json
import re
from typing import Any

from ..drafting import first_json_object
from ..fit.sides import BOTH, choice_options
from .certain import uncertain

__all__ = ["MAX_HOPS", "PLAN_SCHEMA", "fill", "is_comparison", "parse_plan", "plan_prompt", "plan_response_format",
           "rule_hops"]

MAX_HOPS = 4
"""The longest chain the agent walks (a longer plan is not trusted and the question takes the single path)."""

PLAN_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"steps": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": MAX_HOPS,
                             "description": "single-hop questions; a later one names an earlier answer #1, #2"}},
    "required": ["steps"],
    "additionalProperties": False,
}
"""The JSON Schema of the planning reply."""

PLAN_SYSTEM_PROMPT = """\
You split a question into single-hop questions, in JSON: {"steps": ["...", "..."]}. Each step asks one fact \
about one named thing; a later step names the answer of an earlier one as #1, #2. A question that asks one fact \
is one step. Copy names exactly as the question writes them."""

_EXAMPLES = (
    ("What is the county seat of the county where Van Hook Township is located?",
     ["Which county is Van Hook Township located in?", "What is the county seat of #1?"]),
    ("Who married the publisher of the magazine Zeta Review?",
     ["Who is the publisher of the magazine Zeta Review?", "Who married #1?"]),
    ("In what year was the university where Anna Holt studied founded?",
     ["Which university did Anna Holt study at?", "In what year was #1 founded?"]),
    ("Who wrote the novel Blue Harbour?", ["Who wrote the novel Blue Harbour?"]),
)

# Relations whose answer is a person: their first hop asks "Who is the R of X?".
_PERSON_RELATIONS = frozenset("""director performer composer father mother spouse wife husband child son daughter
founder author writer producer creator editor screenwriter lyricist sibling brother sister cinematographer
singer artist architect designer painter sculptor player coach manager owner leader president chairman ceo
inventor discoverer presenter host star actor actress narrator illustrator translator publisher""".split())
# Kinship words that are two hops, as the two relations they chain.
_TWO_HOP_KIN = {
    "paternal grandfather": ("father", "father"), "paternal grandmother": ("father", "mother"),
    "maternal grandfather": ("mother", "father"), "maternal grandmother": ("mother", "mother"),
    "father-in-law": ("spouse", "father"), "mother-in-law": ("spouse", "mother"),
}
_KIN = "|".join(re.escape(k) for k in sorted(_TWO_HOP_KIN, key=len, reverse=True))
# A name: capitalised words (a digit, or a joining word inside, a comma before a capitalised word), maybe with
# a parenthesis, e.g. "God'S Gift To Women", "Maurice, Prince Of Orange", "Palo Alto (2013 Film)".
_WORD = r"[A-Z0-9][\w'’.:&!-]*"
_NAME = rf"(?:{_WORD})(?:(?:\s+(?:(?:of|the|a|an|and|de|la|le|du|von|van|der|di|da|in|on|to|for|with)\s+)*|,\s+)"\
        rf"{_WORD})*(?:\s*\([^()]{{1,60}}\))?"
_KINDS = r"(?:(?:the\s+)?(?:film|movie|song|album|book|novel|play|band|series|show|game|poem|opera|company)\s+)?"
# Names joined by "in", "of", "at", ... ("Bob of Ann at Cid"), each joint read one way: "of", "in", "for",
# "on" and "and" join the words of one name already, so only a parenthesis or "at", "by", "from" joins two (the
# joint read both ways made a question of 30 joined words take hours).
_NAMES = rf"(?:{_WORD})(?:(?:\s+(?:(?:of|the|a|an|and|de|la|le|du|von|van|der|di|da|in|on|to|for|with)\s+)*|,\s+"\
         rf"|\s*\([^()]{{1,60}}\)\s+(?:in|of|at|for|on|by|from|and)\s+(?:the\s+)?|\s+(?:at|by|from)\s+(?:the\s+)?)"\
         rf"{_WORD})*(?:\s*\([^()]{{1,60}}\))?"
# "the <relation> of [film] <Name>" whose name ends the question (or precedes its lowercase verbs).
# A relation: lowercase words without "of", or one of the two-word relations that hold one.
_REL = r"(?:(?:place|date|cause|country|city|year) of (?:birth|death|citizenship|burial)|[a-z][a-z-]*(?:\s+(?!of\b)"\
       r"[a-z][a-z-]*){0,3})"
_OF = re.compile(rf"\bthe\s+(?P<rel>{_REL})\s+of\s+(?P<kind>{_KINDS})(?P<name>{_NAME})"
                 r"(?P<tail>(?:\s+[a-z][\w-]*)*)\s*\?\s*$")
# "<Name>'s <relation>" ("Lothair Ii's mother", "Raghnall Mac Ruaidhrí's paternal grandfather").
_POSSESSIVE = re.compile(rf"(?P<name>{_NAME})['’]s\s+(?P<rel>{_KIN}|{'|'.join(sorted(_PERSON_RELATIONS))})\b(?![-'’])")
# "Who is X's mother?", "Who is the father of X?": one relation of one name.
_ONE_HOP = re.compile(rf"^(?:[Ww]ho|[Ww]hat)\s+(?:is|was|are|were)\s+(?:(?P<name>{_NAME})['’]s\s+{_REL}|the\s+{_REL}"
                      rf"\s+of\s+{_KINDS}{_NAME})\s*\?\s*$")
_KIN_OF = re.compile(rf"\bthe\s+(?P<rel>{_KIN})\s+of\s+(?P<kind>{_KINDS})(?P<name>{_NAME})\s*\?\s*$")
# "the province of Quebec" names a place; it is not a relation of it.
_PLACE_WORDS = frozenset("""province state city county country town village island river region district
municipality kingdom republic empire university college school""".split())
# A relative clause: the rules leave such a question to the model.
_RELATIVE = re.compile(r"\S\s+(?:who|whom|whose|which|that|where)\s", re.IGNORECASE)
# What is left of a question once its one relation is taken out: nothing more to ask.
_PEOPLE = frozenset({"man", "woman", "person", "people", "one", "individual"})
# "the county where Van Hook Township is located": a place clause whose subject is a name.
_WHERE_CLAUSE = re.compile(rf"\bthe\s+(?P<noun>(?:[a-z][\w-]*\s+){{0,2}}[a-z][\w-]*)\s+(?:where|in\s+which)\s+"
                           rf"(?P<subject>{_NAME})\s+(?P<aux>is|was|are|were)\s+(?P<verb>[a-z]+(?:ed|en|n|t))"
                           r"(?P<tail>(?:\s+[a-z][\w-]*){0,2})\s*(?:\?\s*)?$")
# "the pianist who recorded Live at Shelly's Manne-Hole", "the 2001 film that featured Yu Rongguang": a clause
# whose verb acts on a name, up to the question's end (a last lowercase word or two, "born", stays outside).
_WHO_CLAUSE = re.compile(rf"\bthe\s+(?P<noun>(?:[\w-]+\s+){{0,2}}[a-z][\w-]*)\s+(?P<pron>who|that|which)\s+"
                         rf"(?P<clause>(?!(?:is|was|are|were|has|have|had|do|does|did|will|would|can|could)\b)[a-z]{{3,}}\s+"
                         rf"(?:(?:the|a|an|in|of|at|for|with|on|by|from)\s+)*{_NAMES})"
                         r"(?P<tail>(?:\s+[a-z][\w-]*){0,2})\s*(?:\?\s*)?$")
_BARE = re.compile(r"^\s*(?:who|what|which)\s+(?:is|was|are|were)\s+#\d\s*(?:\?\s*)?$", re.IGNORECASE)
_COMPARE = re.compile(r"\b(?:out of|between)\b.+\band\b|\bsame\b|\bboth\b|\bor\b", re.IGNORECASE)
_REFERENCE = re.compile(r"#(\d)")


def is_comparison(question: str) -> bool:
    """Whether ``question`` compares two things (a choice, "both", "the same", "out of A and B")."""
    return bool(choice_options(question) or BOTH.match(question) or _COMPARE.search(question))


def rule_hops(question: str) -> list[str] | None:
    """The plan the relative-phrase rules read in ``question``: two steps or more, ``[question]`` when they read it
    as one hop ("Who is Lothair II's mother?": no planning call), or None when they read nothing."""
    question = " ".join(question.split())
    if is_comparison(question):
        return None
    steps = _relative_chain(question) if _RELATIVE.search(question) else _chain(question)
    if steps is None:
        return [question] if _ONE_HOP.match(question) and not _RELATIVE.search(question) else None
    return None if uncertain(question, steps) else steps


def _chain(question: str) -> list[str] | None:
    if (kin := _KIN_OF.search(question)) and question[:kin.start()].strip().lower() in ("who is", "who was"):
        first, second = _TWO_HOP_KIN[kin["rel"]]
        return [f"Who is the {first} of {kin['kind']}{kin['name']}?", f"Who is the {second} of #1?"]
    poss = _POSSESSIVE.search(question)
    if poss is not None:
        rel, name = poss["rel"], poss["name"]
        if rel in _TWO_HOP_KIN:
            first, second = _TWO_HOP_KIN[rel]
            rest = f"{question[:poss.start()]}#2{question[poss.end():]}"
            steps = [f"Who is {name}'s {first}?", f"Who is #1's {second}?"]
            return steps if _BARE.match(rest) else [*steps, rest]
        rest = f"{question[:poss.start()]}#1{question[poss.end():]}"
        if not _BARE.match(rest):
            word = "Who" if rel in _PERSON_RELATIONS else "What"
            return [f"{word} is {name}'s {rel}?", rest]
    found = _OF.search(question)
    if found is not None and not _REFERENCE.search(found["name"]) and found["rel"] not in _PLACE_WORDS:
        rest = f"{question[:found.start()]}#1{found['tail']}?"
        if not _BARE.match(rest):
            word = "Who" if found["rel"].split()[-1] in _PERSON_RELATIONS else "What"
            inner = _chain(f"{word} is the {found['rel']} of {found['kind']}{found['name']}?")
            head = inner or [f"{word} is the {found['rel']} of {found['kind']}{found['name']}?"]
            return [*head, _renumber(rest, len(head))] if len(head) < MAX_HOPS else None
    return None


def _relative_chain(question: str) -> list[str] | None:
    """Two steps from one relative clause that names its own thing ("the county where X is located", "the man who
    played Lex Luthor in Superman IV"): the clause asked first, the question asked of its answer; None for any
    other relative clause (the planning call reads it)."""
    found = _WHERE_CLAUSE.search(question) or _WHO_CLAUSE.search(question)
    if found is None or len(_RELATIVE.findall(question)) > 1:
        return None
    noun = found["noun"]
    if found.re is _WHERE_CLAUSE:
        first = f"In which {noun} {found['aux']} {found['subject']} {found['verb']}?"
    else:
        asker = "Who" if noun in _PEOPLE else f"Which {noun}"
        first = f"{asker} {found['clause']}?"
    rest = f"{question[:found.start()]}#1{found['tail']}".rstrip(" ?") + "?"
    if _BARE.match(rest) or not rest.strip(" ?#1"):
        return None
    return [first, rest]


def _renumber(step: str, last: int) -> str:
    """``step`` naming the answer of step ``last`` (its ``#1`` was the answer of the phrase taken out)."""
    return step.replace("#1", f"#{last}")


def plan_prompt(question: str) -> str:
    """The planning turn: worked examples, the question and the reply format."""
    shots = "\n\n".join(f"Example {i}. Question: {q}\nReply: {json.dumps({'steps': s})}"
                         for i, (q, s) in enumerate(_EXAMPLES, 1))
    return (f"{shots}\n\nNow split this question (not the examples): {' '.join(question.split())}\n"
            'Reply with JSON only: {"steps": [<the single-hop questions, in order>]}.')


def plan_response_format() -> dict[str, Any]:
    """The ``response_format`` of the planning call."""
    return {"type": "json_schema", "json_schema": {"name": "hop_plan", "schema": PLAN_SCHEMA, "strict": True}}


def parse_plan(text: str) -> list[str] | None:
    """The steps of a planning reply when they form a chain (each later step names an earlier answer, the first
    names none, at most :data:`MAX_HOPS`), else None."""
    value = first_json_object(text, key="steps")
    steps = value.get("steps") if value is not None else None
    if not isinstance(steps, list) or not steps or len(steps) > MAX_HOPS:
        return None
    cleaned = [" ".join(str(s).split()) for s in steps if isinstance(s, str) and s.strip()]
    if len(cleaned) != len(steps):
        return None
    for i, step in enumerate(cleaned):
        refs = {int(r) for r in _REFERENCE.findall(step)}
        if (i == 0 and refs) or (i > 0 and (not refs or max(refs) > i or min(refs) < 1)):
            return None
    return cleaned


def fill(step: str, answers: list[str]) -> str:
    """``step`` with each ``#k`` replaced by the answer of step k."""
    return _REFERENCE.sub(lambda m: answers[int(m.group(1)) - 1] if int(m.group(1)) <= len(answers)
                          else m.group(), step)
