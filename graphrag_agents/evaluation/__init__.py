"""Evaluation: ``graphrag-agents eval`` on a questions file and a corpus (the format of ``shared/eval/``).

Builds one graph from the corpus (cached), measures supporting-paragraph recall@k of ``retrieve``, of each of its
paths alone and of a dense-only baseline in the same run, and, with a model, runs the reference agent and scores
its answers; writes per-question records and a summary, a plot and an HTML report. See ``docs/evaluation.md``.
"""

from .dataset import DatasetError, Paragraph, Question, load_corpus, load_dataset, load_questions
from .metrics import all_gold_at_k, exact_match, normalize_answer, percentile, recall_at_k, token_f1
from .runner import EvalOptions, EvalRun, run_eval

__all__ = [
    "DatasetError",
    "EvalOptions",
    "EvalRun",
    "Paragraph",
    "Question",
    "all_gold_at_k",
    "exact_match",
    "load_corpus",
    "load_dataset",
    "load_questions",
    "normalize_answer",
    "percentile",
    "recall_at_k",
    "run_eval",
    "token_f1",
]
