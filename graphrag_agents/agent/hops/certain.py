"""Whether a rule plan's reading of a question is certain enough to skip the model planner.

A rule plan (:func:`.plan.rule_hops`) is final: the planning call is skipped, so a misread question is walked as a
wrong chain. The rules read relative phrases by capitalisation, which wording outside the templates they were
written from breaks. A plan is certain only when

* **its first hop names a span the question writes in full**: the name the first hop asks about stands in the
  question as written, and does not end in a possessive ("What is the headquarters city of Kentucky Tavern's?" was
  read from "Kentucky Tavern's manufacturer"); and the later steps, where the question's words stand around
  ``#k``, do not continue the name cut off there ("... of #1 fida ninfa?" when the title is "La fida ninfa");
* **the span the first hop stands for is a name, not a common noun phrase**: the first hop's answer replaces a
  phrase of the question; a phrase read as a point in time ("after #1", "before #1") is an event and an abstract
  head noun ("-tion", "-ment", "-ness", "-ity", "-ance", "-ence", "-ism", "-sis") a quality: neither is an entity
  the next hop can retrieve by name.

Cases: the MuSiQue mix (``benchmarks/musique_mix.py``), whose free wording the rules were not written from.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ...text.wordnet import lemmas

__all__ = ["not_a_chain", "uncertain"]

_REFERENCE = re.compile(r"#(\d)")
# Both patterns read a text whose whitespace is one space (_spaced): a "\s+" beside a ".+?" would read a run of
# spaces in many ways (tests/test_regex_linear.py).
_FIRST_ASKS = re.compile(r"^(?:Who|What|Which) is (?:the (?P<rel>.+?) of (?:the )?(?P<of>.+)|"
                         r"(?P<poss>.+?)['’]s (?P<prel>[\w-]+(?: [\w-]+)?))\?$")
_POSSESSIVE_END = re.compile(r"['’]s$")
_ABSTRACT = re.compile(r"(?:tion|sion|ment|ness|ity|ance|ence|ism|sis)$")
# What may follow "#k" in a later step: the end, punctuation, a function word, a verb form, or one last lowercase
# word (a verb: "Which award #1 won?"); a longer lowercase run is the rest of a name the rule cut off.
_AFTER_FUNCTION = frozenset("""is was are were be been has have had do does did will would can could may might
in on at of for from by with to as into onto during than and or but after before when where since until that
which who named called""".split())
_VERB_FORM = re.compile(r"^[a-z]+(?:ed|en|wn|ne|lt|pt|ght)$|^born$")
_BEFORE_VERB = frozenset("do does did will would can could may might should to".split())
_IDENTITY = re.compile(r"^(?:what|who|which)(?:'s| (?:is|are|was|were)) (?:the |a |an )?(?P<span>.+?) ?\??$",
                       re.IGNORECASE)
_FUNCTION_WORDS = frozenset("what which who whom whose where when how is are was were does do did the a an".split())
_RELATING = frozenset("of in on at by for from with to under over behind".split())
_TIME = frozenset("after before during since until following".split())
_NAMING = frozenset("named called titled".split())  # "the prize named after #1": a name, not a time
_BEING = frozenset("is was are were".split())
_ARTICLES = frozenset("a an the".split())
_LOWER_WORD = re.compile(r"(?<![\w'’-])[a-z]+(?![\w'’-])")


def uncertain(question: str, steps: Sequence[str]) -> str | None:
    """Why the rule plan ``steps`` of ``question`` is not certain (a reason for the trace), or None when it is."""
    if len(steps) < 2:
        return None
    if (first := _first_hop_problem(question, steps[0])) is not None:
        return first
    for step in steps[1:]:
        for found in _REFERENCE.finditer(step):
            if (problem := _reference_problem(step, found)) is not None:
                return problem
    return None


def _spaced(text: str) -> str:
    """``text`` with every run of whitespace one space, and none at its ends."""
    return " ".join(text.split())


def _first_hop_problem(question: str, first: str) -> str | None:
    """Why the first hop's name is not one the question writes in full, or its relation not a name's."""
    asked = _FIRST_ASKS.match(_spaced(first))
    if asked is None:
        return None
    name = (asked["of"] or asked["poss"] or "").strip()
    relation = (asked["rel"] or asked["prel"] or "").strip()
    if _POSSESSIVE_END.search(name):
        return f"the first hop asks about {name!r}, a possessive, not a name written in full"
    if relation and _ABSTRACT.search(relation.split()[-1]):
        return f"the first hop asks for the {relation} of something, a common noun phrase, not a name"
    if name and name not in _spaced(question):
        return f"the first hop's name {name!r} is not written in full in the question"
    return None


def _reference_problem(step: str, found: re.Match[str]) -> str | None:
    """Why the words around ``#k`` in a later step show the rule cut a name off or read an event."""
    before = step[:found.start()].split()
    after = step[found.end():].split()
    if before and before[-1].lower() in _TIME and not (len(before) > 1 and before[-2].lower() in _NAMING):
        return f"the step {step!r} reads #{found[1]} as a point in time, an event, not a name"
    if not after:
        return None
    nxt = after[0].strip("?.,;:!").lower()
    last = len(after) == 1 and after[0].rstrip("?.!").islower()  # "Which award #1 won?"
    if not nxt or nxt[0] in "'’" or nxt in _AFTER_FUNCTION or _VERB_FORM.match(nxt) or last or (
            before and before[-1].lower() in _BEFORE_VERB):
        return None
    if nxt in _ARTICLES and before and before[-1].lower() in _BEING:
        return None  # "What country was #1 a citizen of?": the article opens what the question says #1 was
    return f"the step {step!r} continues #{found[1]} with {after[0]!r}: the name was cut off"


def _verbs(text: str) -> set[str]:
    """The lowercase words of ``text`` that are an inflected verb ("influenced", "starred", "wrote"): an "-ed"
    ending, or a form WordNet reads as another word's inflection that is not a plural's "-s"."""
    found = set()
    for word in _LOWER_WORD.findall(text):
        if word in _FUNCTION_WORDS or word in _AFTER_FUNCTION or len(word) < 4:
            continue
        if word.endswith("ed") or (not word.endswith("s") and lemmas(word) - {word}):
            found.add(word)
    return found


def _repeated_verb(question: str, earlier: str, later: str) -> str | None:
    """A verb both steps state that the question states once: the second step asks the first step's relation
    again with its answer added ("Who was X influenced by?", "Which painter influenced #1?"), so the plan split
    one relation in two; a chain takes a new relation at each step. None when there is no such verb."""
    said = _LOWER_WORD.findall(question)
    for verb in sorted(_verbs(earlier) & _verbs(later)):
        if said.count(verb) == 1:
            return verb
    return None


def _asks_what_it_is(step: str) -> bool:
    """Whether ``step`` only asks what an earlier answer is ("Which Danish composer was #1?", "Who is #1?"): its
    answer is that answer again, so it is no hop of its own."""
    words = _spaced(step).rstrip(" ?").split()
    return (len(words) >= 3 and words[0].lower() in ("what", "which", "who") and words[-2].lower() in _BEING
            and _REFERENCE.fullmatch(words[-1]) is not None and len(_REFERENCE.findall(step)) == 1)


def _units(text: str) -> list[str]:
    return re.findall(r"[\w.@/:-]+", text.casefold().replace("`", " "))


def not_a_chain(question: str, steps: Sequence[str]) -> str | None:
    """Why a planned ``steps`` is one hop split in two (a reason for the trace), or None: a step that asks again
    what the step before it asks, or names the earlier answer only after its question mark (the 1.5B model's
    usual split of a one-hop question: the question, then the question again with ``#1`` added after it,
    techdocs_a tuning half), two steps that ask one verb the question states once, or a later step that only asks
    what the earlier answer is ("Which painter was #1?"; both the 1.5B model's splits of one-hop questions on the
    HotpotQA mix, the tuning set), or a first step that only
    asks what a span of the question is, with no relation of it ("What is the save option?" for a question about
    that option, against "Who is the director of X?"), resolves nothing the next step could not look up itself,
    so the question takes the single path. (A plan whose first step is the whole question again stays a chain:
    its first hop's check, one sentence stating the subject and the answer, is stricter than the single path's;
    benchmarks/results/2026-12-07-agent-musique-train.md.)"""
    if len(steps) < 2:
        return None
    for k in range(1, len(steps)):
        asked = steps[k].rsplit("?", 1)
        if len(asked) == 2 and _REFERENCE.search(asked[1]) and not _REFERENCE.search(asked[0]):
            return f"step {k + 1} puts the earlier answer after its question, so it does not ask about it"
        later = set(_units(_REFERENCE.sub(" ", steps[k]))) - _FUNCTION_WORDS
        earlier = set(_units(steps[k - 1])) - _FUNCTION_WORDS
        if later <= earlier or earlier <= later:
            return f"step {k + 1} asks again what step {k} asks"
        if (verb := _repeated_verb(question, steps[k - 1], steps[k])) is not None:
            return f"steps {k} and {k + 1} both ask who or what {verb!r}, which the question states once"
        if _asks_what_it_is(steps[k]):
            return f"step {k + 1} only asks what the earlier answer is, which is that answer again"
    found = _IDENTITY.match(_spaced(steps[0]))
    if found is None:
        return None
    span, said = _units(found["span"]), _units(question)
    size = len(span)
    if _RELATING & set(span):
        return None  # "the director of film X": a relation of a name, a hop of its own
    if size and any(said[i:i + size] == span for i in range(len(said) - size + 1)):
        return f"the first step only asks what {found['span']!r} is, which the question names itself"
    return None
