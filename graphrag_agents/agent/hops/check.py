"""One hop of a chain, checked: its short answer must be stated *with its subject* in one cited sentence.

A hop's structured draft (``{"answer": "Mountrail County", "evidence": [1]}``) is rendered with the hop's subject,
``Answer: Van Hook Township: Mountrail County [1].``, and read by ``check_citations`` citing one item at a time:
the check's co-occurrence rule (the names and figures of a claim stated together in one sentence of the evidence,
a pronoun credited with the name it stands for) then passes the hop only when one sentence of that item states
the subject and the answer together. The model's own numbers are tried first, then the shown items the check
finds holding the answer, so a right answer cited by the wrong number is not lost; an answer no shown sentence
states with its subject fails the hop (``missing_hop``).

The hop's subject is the earlier answer its question names (``#1``), or for the first hop the main name of its
question (a quoted title, else its longest name).
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Mapping, Sequence
from functools import partial
from typing import Any

from typing_extensions import TypedDict

from ...citations import check_citations
from ...tools.citations import CitationCheck
from ...tools.toolkit import GraphRAGToolkit
from ..drafting import StructuredDraft, render_draft
from ..fit.echo import question_units
from ..fit.life_event import asked_event, states_event
from ..fit.names import question_names, quoted_names, sentences_stating, without_note, words
from ..gate import AcceptRule

__all__ = ["HopStep", "MissingHop", "chain_text", "check_hop", "hop_subject", "passage_topic", "render_hop",
           "same_name"]

_REFERENCE = re.compile(r"#(\d)")
_POSSESSIVE = re.compile(r"['’]s$")
_TITLE_NUMBER = re.compile(r" \d{1,3}\b(?![,.]?\d)")
_MAX_TRIES = 4
# A passage's opening name: capitalised words (joined by "de", "von", ... or initials) up to the first
# parenthesis, comma or lowercase word.
_OPENING_NAME = re.compile(r"(?:[A-Z][\w'’.-]*)(?:\s+(?:(?:de|da|di|del|der|van|von|of|the|la|le|du|bin|ibn)\s+)*"
                           r"[A-Z][\w'’.-]*)*")


class HopStep(TypedDict):
    """One hop of a served chain (plain data, so every checkpointer stores it)."""

    index: int
    """1 for the first hop."""
    question: str
    """The hop's question, earlier answers filled in."""
    subject: str
    """The name the hop asks about ('' when its question names none)."""
    answer: str
    evidence: list[int]
    """The one evidence number whose sentence states the subject and the answer together."""


class MissingHop(TypedDict):
    """The hop no evidence answered: its number, its question and why."""

    index: int
    question: str
    reason: str


def hop_subject(template: str, question: str, answers: Sequence[str]) -> str:
    """The subject of a hop: the last earlier answer ``template`` names (``#k``), else ``question``'s quoted title
    or longest name ('' when it names none)."""
    refs = [int(r) for r in _REFERENCE.findall(template) if 0 < int(r) <= len(answers)]
    if refs:
        return answers[refs[-1] - 1]
    quoted = quoted_names(question)
    if quoted:
        return quoted[0].text
    names = sorted(question_names(question), key=lambda n: (-len(n.words), n.start))
    if not names:
        return ""
    # A title's number is part of it ("film Student Of The Year 2"), though a name is read as capitalised words.
    number = _TITLE_NUMBER.match(question, names[0].start + len(names[0].text))
    return _POSSESSIVE.sub("", names[0].text + (number.group() if number else ""))


def render_hop(subject: str, answer: str, n: int | None) -> str:
    """The claim the check reads for a hop: ``Answer: <subject>: <answer> [n].`` (the subject left out when the
    answer holds it, or there is none)."""
    draft = StructuredDraft(answer=answer, evidence=[n] if n is not None else [])
    if subject and not words(subject) <= words(answer):
        draft = StructuredDraft(answer=f"{subject}: {answer}", evidence=draft.evidence)
    return render_draft(draft)


async def check_hop(draft: StructuredDraft, subject: str, session: GraphRAGToolkit, shown: Sequence[int],
                    accept: AcceptRule, titles: Mapping[int, str] | None = None,
                    question: str = "") -> tuple[int | None, CitationCheck | None]:
    """The evidence number whose one sentence states ``subject`` and ``draft.answer`` together (the check passes
    citing it alone), and that check; (None, the last failed check) when no shown item does.

    ``titles`` (evidence number -> passage title): a passage titled with the subject names it in its own words,
    often longer ("Michael Stephen Portnoy (born April 20, 1967)" under the title "Mike Portnoy"), so its claim
    reads the subject as the passage's opening name (:func:`passage_topic`). ``question`` (the hop's): a birth or
    a death it asks about must be stated as one (:mod:`..fit.life_event`)."""
    event = asked_event(question)
    shown_set = set(shown)
    tried: list[int] = [n for n in draft.evidence if n in shown_set]
    bare = await _check_claim(render_hop(subject, draft.answer, None), session)
    held = {n for suggestion in bare.suggested for n in suggestion.evidence}
    about = [n for n in shown if titles and same_name(titles.get(n, ""), subject)]
    tried += [n for n in shown if (n in held or n in about) and n not in tried]
    last: CitationCheck | None = bare
    for n in tried[:_MAX_TRIES]:
        if titles and _only_inside_longer_title(session, n, titles.get(n, ""), subject, draft.answer):
            continue
        item = session.ledger.get(n)
        if event and item is not None and not states_event(item.content, draft.answer, event):
            continue
        answers = _answer_forms(draft.answer, item.content if item is not None else "")
        for named in _subject_forms(subject, n, titles, session):
            for said in answers:
                check = await _check_claim(render_hop(named, said, n), session)
                if accept(check):
                    return n, check
                last = check
    return None, last


def passage_topic(text: str) -> str:
    """The name a passage opens with (its capitalised words before a parenthesis, a comma or a lowercase word):
    ``Michael Stephen Portnoy`` in "Michael Stephen Portnoy (born April 20, 1967) is ..."; '' when it opens
    otherwise."""
    found = _OPENING_NAME.match(text.strip().lstrip('"“'))
    return found.group().strip() if found else ""


def _subject_forms(subject: str, n: int, titles: Mapping[int, str] | None, session: GraphRAGToolkit) -> list[str]:
    """The subject as the claim reads it against item ``n``: as the question names it, then, in a passage titled
    with it, as the passage's opening name."""
    forms = [subject]
    item = session.ledger.get(n)
    if titles and item is not None and same_name(titles.get(n, ""), subject):
        topic = passage_topic(item.content)
        if topic and words(topic) != words(subject):
            forms.append(topic)
    return forms


def _answer_forms(answer: str, text: str) -> list[str]:
    """The answer as the claim reads it against an item's ``text``: as drafted, then, for a name of two or more
    capitalised words that ``text`` writes in full and mentions again by its last word alone, that last word.

    English names a person in full once and then by the surname ("... the publication of G. Stanley Hall's
    "Adolescence". Hall, who was the first president of the American Psychological Association, ..."), so the
    sentence stating the hop's subject with the answer may hold only the surname (case: a MuSiQue train-split mix
    built for tuning, where the right first president failed the hop). The full name written in the same item is
    what ties the surname to it."""
    forms = [answer]
    parts = answer.split()
    if len(parts) < 2 or not all(p[:1].isupper() for p in parts):
        return forms
    last = parts[-1].strip(".,;:")
    if len(last) < 3 or not last.isalpha():
        return forms
    full, units = question_units(answer), question_units(text)
    size = len(full)
    in_full = sum(units[i:i + size] == full for i in range(len(units) - size + 1))
    if in_full and units.count(question_units(last)[0]) > in_full:
        forms.append(last)
    return forms


def _only_inside_longer_title(session: GraphRAGToolkit, n: int, title: str, subject: str, answer: str) -> bool:
    """Whether item ``n`` is a passage about a longer name that starts with the subject (its title is "Student of
    the Year 2" for the subject "Student of the Year") and names the subject, in every sentence stating the
    answer, only inside that longer name. Such a passage is about the sequel: the check's co-occurrence rule reads
    the subject inside "Student of the Year 2 ... directed by Punit Malhotra" and passed the sequel's director as
    the film's (2Wiki mixed, "Who is the mother of the director of film Student Of The Year?")."""
    longer = without_note(title).casefold()
    named = subject.casefold()
    item = session.ledger.get(n)
    if (item is None or not named or words(subject) <= words(answer) or not longer.startswith(named)
            or len(longer) == len(named) or longer[len(named)].isalnum()):
        return False
    text = item.content
    stating = sentences_stating(text, answer)
    return bool(stating) and all(named not in sentence.replace(longer, "") for sentence in stating)


def same_name(title: str, subject: str) -> bool:
    """Whether a passage title is the subject's name (its note in parentheses aside: "Dark River (2017 film)")."""
    bare = words(without_note(title))
    return bool(subject) and bool(bare) and bare == words(without_note(subject))


async def _check_claim(claim: str, session: GraphRAGToolkit) -> CitationCheck:
    """``claim`` checked against the session's evidence with the co-occurrence rule read against every cited
    sentence. The check's default (``support=True``) reads the meaning rules only against an evidence sentence the
    claim restates, and a hop's short ``subject: answer`` claim restates none, so by default it would pass an
    answer that no sentence states with its subject."""
    evidence = {item.n: item for item in session.ledger.items()}
    return await asyncio.to_thread(partial(check_citations, support=False), claim, evidence)


def chain_text(steps: Sequence[HopStep] | Sequence[dict[str, Any]]) -> str:
    """The chain as one line, ``Van Hook Township -> Mountrail County [1] -> Stanley [3]``; a step that does not
    ask about the previous answer (the other side of a comparison) starts a new run after ``; ``:
    ``Aas Ka Panchhi -> 1961 [1]; Phoolwari -> 1946 [3]``."""
    runs: list[list[str]] = []
    previous: str | None = None
    for step in steps:
        subject = str(step.get("subject") or "")
        if not runs or (subject and subject != previous):
            runs.append([subject] if subject else [])
        cited = "".join(f" [{n}]" for n in step.get("evidence") or [])
        runs[-1].append(f"{step['answer']}{cited}")
        previous = str(step["answer"])
    return "; ".join(" -> ".join(run) for run in runs)
