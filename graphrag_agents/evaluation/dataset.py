"""Load and validate an evaluation set: a questions JSONL and a corpus JSONL (the format of ``shared/eval/``).

Questions, one JSON object a line: ``id``, ``question``, ``answer``, ``answer_aliases``, ``answerable``,
``supporting_paragraph_ids`` (the gold paragraphs), optional ``paragraph_ids``, ``supporting_titles``,
``supporting_facts``, ``type`` and ``level``. Corpus, one paragraph a line: ``id``, ``title``, ``text``
(``sentences`` is optional and not used). Every problem is reported as ``file:line: what is wrong``, and a
question whose gold paragraph is not in the corpus is an error too, since its recall could never reach 1.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, TypeVar

from ..errors import DatasetError

__all__ = ["DatasetError", "Paragraph", "Question", "corpus_digest", "load_corpus", "load_dataset", "load_questions"]

_MAX_REPORTED = 10


class _HasId(Protocol):
    @property
    def id(self) -> str: ...


_T = TypeVar("_T", bound=_HasId)


@dataclass(frozen=True)
class Paragraph:
    """One corpus row, ingested as one document (``id`` = document id, ``title`` = its title)."""

    id: str
    title: str
    text: str


@dataclass(frozen=True)
class Question:
    """One evaluation question with its gold answer and gold paragraphs."""

    id: str
    question: str
    answer: str
    supporting_paragraph_ids: tuple[str, ...]
    """Corpus ids of the paragraphs needed to answer (recall is measured against these)."""
    answerable: bool = True
    """False for questions the corpus cannot answer: the right behaviour is to abstain."""
    answer_aliases: tuple[str, ...] = ()
    type: str = "unknown"
    """The question type (HotpotQA: ``bridge`` or ``comparison``); results are also broken down by it."""
    level: str = ""
    paragraph_ids: tuple[str, ...] = field(default=(), repr=False)
    """The question's context paragraphs in the source set (gold and distractors); informational."""

    @property
    def answers(self) -> list[str]:
        """The answer and its aliases (EM/F1 take the best match over these)."""
        return [self.answer, *self.answer_aliases]


def _lines(path: Path) -> Iterator[tuple[int, dict[str, Any] | str]]:
    """(line number, parsed object or an error text) for each non-blank line."""
    try:
        handle = path.open(encoding="utf-8")
    except OSError as exc:
        raise DatasetError(f"{path}: cannot read the file: {exc.strerror or exc}") from exc
    with handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                value = json.loads(line)
            except json.JSONDecodeError as exc:
                yield number, f"not valid JSON ({exc.msg} at column {exc.colno})"
                continue
            yield number, value if isinstance(value, dict) else f"expected a JSON object, got {type(value).__name__}"


def _text(row: dict[str, Any], key: str, *, required: bool = True, empty_ok: bool = False) -> str:
    value = row.get(key)
    if value is None and not required:
        return ""
    if not isinstance(value, str):
        raise ValueError(f"field {key!r} must be a string" if key in row else f"missing field {key!r}")
    if not value.strip() and not empty_ok:
        raise ValueError(f"field {key!r} is empty")
    return value


def _strings(row: dict[str, Any], key: str, *, required: bool) -> tuple[str, ...]:
    value = row.get(key)
    if value is None and not required:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise ValueError(f"field {key!r} must be a list of non-empty strings" if key in row
                         else f"missing field {key!r}")
    return tuple(value)


def _question(row: dict[str, Any]) -> Question:
    answerable = row.get("answerable", True)
    if not isinstance(answerable, bool):
        raise ValueError("field 'answerable' must be true or false")
    gold = _strings(row, "supporting_paragraph_ids", required=True)
    if answerable and not gold:
        raise ValueError("an answerable question needs at least one id in 'supporting_paragraph_ids'")
    return Question(
        id=_text(row, "id"), question=_text(row, "question"), answer=_text(row, "answer", empty_ok=not answerable),
        supporting_paragraph_ids=gold, answerable=answerable,
        answer_aliases=_strings(row, "answer_aliases", required=False),
        type=_text(row, "type", required=False) or "unknown", level=_text(row, "level", required=False),
        paragraph_ids=_strings(row, "paragraph_ids", required=False),
    )


def _paragraph(row: dict[str, Any]) -> Paragraph:
    return Paragraph(id=_text(row, "id"), title=_text(row, "title", empty_ok=True), text=_text(row, "text"))


def _load(path: Path, parse: Callable[[dict[str, Any]], _T], what: str) -> list[tuple[int, _T]]:
    """(line number, item) for each line; every bad line is collected and reported at once."""
    items: list[tuple[int, _T]] = []
    problems: list[str] = []
    seen: dict[str, int] = {}
    for number, row in _lines(path):
        try:
            if isinstance(row, str):
                raise ValueError(row)
            item = parse(row)
        except ValueError as exc:
            problems.append(f"{path}:{number}: {exc}")
            continue
        if item.id in seen:
            problems.append(f"{path}:{number}: duplicate id {item.id!r} (first on line {seen[item.id]})")
            continue
        seen[item.id] = number
        items.append((number, item))
    if not items and not problems:
        problems.append(f"{path}: no {what} in the file")
    _raise(problems, what)
    return items


def _raise(problems: list[str], what: str) -> None:
    if not problems:
        return
    shown = problems[:_MAX_REPORTED]
    more = f"\n…and {len(problems) - len(shown)} more" if len(problems) > len(shown) else ""
    raise DatasetError(f"{len(problems)} problem(s) in the {what}:\n" + "\n".join(shown) + more)


def load_questions(path: str | Path) -> list[Question]:
    """The questions of a JSONL file, in file order.

    Raises:
        DatasetError: a line is not a JSON object, lacks a field, has a field of the wrong type, or repeats an
            id; the message lists each bad line as ``file:line: problem``.
    """
    return [q for _, q in _load(Path(path), _question, "questions")]


def load_corpus(path: str | Path) -> list[Paragraph]:
    """The paragraphs of a corpus JSONL file, in file order (see :func:`load_questions` for the errors)."""
    return [p for _, p in _load(Path(path), _paragraph, "corpus")]


def load_dataset(questions_path: str | Path, corpus_path: str | Path) -> tuple[list[Question], list[Paragraph]]:
    """Both files, checked against each other: every gold paragraph id must be a corpus id.

    Example::

        questions, corpus = load_dataset("hotpotqa.questions.jsonl", "hotpotqa.corpus.jsonl")
    """
    numbered = _load(Path(questions_path), _question, "questions")
    corpus = load_corpus(corpus_path)
    ids = {p.id for p in corpus}
    problems: list[str] = []
    for number, question in numbered:
        missing = [pid for pid in question.supporting_paragraph_ids if pid not in ids]
        if missing:
            problems.append(f"{questions_path}:{number}: question {question.id!r} names supporting paragraphs "
                            f"that are not in {corpus_path}: {', '.join(missing)}")
    _raise(problems, "questions")
    return [q for _, q in numbered], corpus


def corpus_digest(corpus: Sequence[Paragraph]) -> str:
    """sha256 over the ids, titles and texts, in order: the key of a cached graph."""
    digest = hashlib.sha256()
    for p in corpus:
        for part in (p.id, p.title, p.text):
            digest.update(part.encode("utf-8"))
            digest.update(b"\x00")
    return digest.hexdigest()
