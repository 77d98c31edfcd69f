"""Does a short answer answer *this* question? The answer-fit rules, read beside the citation check.

The citation check verifies that the cited items state the answer; it cannot see the question. With the
paragraph that holds the answer missing, small models answer from whatever is left, and the check then finds
the name they copied. :func:`answer_fit` runs every rule family of this package, each a yes / no reading with no
weights (each module names the case it came from):

* **echo** (:mod:`.echo`): the answer is a phrase of the question itself;
* **choice** (:mod:`.sides`): a comparison needs evidence about each side;
* **anchor** (:mod:`.anchor`): the cited items must be about the question's names, or one hop from them;
* **coverage** (:mod:`.coverage`): every name the question writes stands in a cited item or in an item linked to
  one (not for a comparison or a yes / no answer; read when no rule above found anything);
* **kind** and **order** (:mod:`.figures`): a number for "how many", a date for "when", and a comparison's
  answer on the side the evidence's own years or heights put first;
* **category** (:mod:`.category`): "what kind of university" is not answered by one university's name;
* **bridge** (:mod:`.bridge`): the answer carries the head noun of an entity the question describes but does not
  ask for (the hop chain also checks its own bridge entities, :mod:`~graphrag_agents.agent.hops.chain`).

A finding leads to the revision turn (with the finding in words) and then to the fixed refusal, as a failed
check does. Nothing was tuned on the questions it is measured on (``docs/agent.md``).
"""

from __future__ import annotations

from collections.abc import Sequence

from .anchor import anchor_problem
from .bridge import bridge_problem
from .category import category_problem
from .coverage import coverage_problem
from .echo import echo_problem
from .figures import Figure, Reader, kind_problem, order_problem
from .names import question_names, quoted_names, subject_item, words
from .shown import FitProblem, FitRule, ShownItem
from .sides import BOTH, both_sides, choice_options, is_option, missing_sides, sides_problem

__all__ = ["FitProblem", "FitRule", "ShownItem", "answer_fit", "both_sides", "choice_options", "kind_finding",
           "question_names", "quoted_names"]

_YES_NO = frozenset({"yes", "no"})


def answer_fit(question: str, answer: str, cited: Sequence[int], shown: Sequence[ShownItem]) -> list[FitProblem]:
    """What keeps ``answer`` (citing ``cited``, drafted from ``shown``) from answering ``question``; [] when
    nothing does. ``shown`` should hold the cited items too; a cited number it lacks is ignored (the citation
    check reports numbers that do not exist)."""
    by_n = {item.n: item for item in shown}
    cited_items = [by_n[n] for n in cited if n in by_n]
    options = choice_options(question)
    answer_words = words(answer)
    if not answer_words:
        return []
    problems: list[FitProblem] = []
    yes_no = answer_words <= _YES_NO
    if not options and not yes_no and (echo := echo_problem(question, answer)):
        problems.append(echo)
    sides = options if options and is_option(answer_words, options) else \
        (both_sides(question) if yes_no and BOTH.match(question) else [])
    missing = missing_sides(sides, shown)
    if choice := sides_problem(missing):
        problems.append(choice)
    if not yes_no and (kind := kind_finding(question, answer)):
        problems.append(kind)
    if options and not yes_no and not missing:
        by_text = {option.text: option for option in options}

        def figure(text: str, read: Reader) -> Figure | None:
            item = subject_item(by_text[text], shown)
            found = read(item.text) if item is not None else None
            return Figure(text, found[0], item.n, found[1]) if item is not None and found else None

        order = order_problem(question, lambda text: is_option(answer_words, [by_text[text]]), figure,
                              list(by_text))
        if order:
            problems.append(FitProblem("order", order))
    if names := _names_problem(question, answer, cited_items, shown, problems, yes_no or bool(options)):
        problems.append(names)
    if not yes_no and not options and (bridge := bridge_problem(question, answer)):
        problems.append(bridge)
    return problems


def kind_finding(question: str, answer: str) -> FitProblem | None:
    """The kind finding: a figure the question asks for that the answer lacks, or one thing's name where it asks
    for a kind of thing (read by the single path here and by each hop of a chain)."""
    found = kind_problem(question, answer) or category_problem(question, answer)
    return FitProblem("kind", found) if found else None


def _names_problem(question: str, answer: str, cited: Sequence[ShownItem], shown: Sequence[ShownItem],
                   found: Sequence[FitProblem], sided: bool) -> FitProblem | None:
    """The anchor finding (no cited item tied to any of the question's names), else the coverage finding (a name
    neither cited nor linked), read only when no rule ``found`` anything and nothing is ``sided`` (a yes / no
    answer, or a question that offers options: their sides have their own rule)."""
    if anchor := anchor_problem(question, cited, shown):
        return anchor
    return None if found or sided else coverage_problem(question, answer, cited, shown)
