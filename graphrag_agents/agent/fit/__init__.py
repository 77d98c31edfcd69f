"""The answer-fit rules: does a short answer that passed the citation check answer *this* question?

One rule family per module, each module naming the case it came from:

* :mod:`.echo`: the answer repeats the question;
* :mod:`.sides`: a comparison's sides, and evidence about each;
* :mod:`.anchor`: the cited items are about the question's names, or one hop from them;
* :mod:`.coverage`: the cited items, with the items linked to them, hold every name the question writes;
* :mod:`.figures`: the kind of figure a question asks for (a number, a date) and a comparison's order;
* :mod:`.category`: "what kind of N" is not answered by the name of one N;
* :mod:`.kind`: the kind of thing a question asks for (a person, a place, ...) against the answer's entity card;
* :mod:`.bridge`: the answer is not an entity the question itself describes;
* :mod:`.life_event`: a hop about a birth or a death is answered by a sentence that states one;

:mod:`.rules` runs them all (:func:`answer_fit`); :mod:`.names` and :mod:`.shown` hold what they share. The
agent's core (graph, nodes, gate, state) calls :func:`answer_fit` only.
"""

from .rules import answer_fit
from .shown import FitProblem, FitRule, ShownItem

__all__ = ["FitProblem", "FitRule", "ShownItem", "answer_fit"]
