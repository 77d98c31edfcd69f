"""Front matter: the YAML (``---``) or TOML (``+++``) block at the top of a Markdown file, read as fields.

Only flat fields are read, with a small reader of its own (no YAML library is a dependency): ``key: value``
(YAML) or ``key = value`` (TOML) at column 0, the value a plain or quoted scalar, a list (``[a, b]``, or YAML
``- item`` lines, joined with ", "), or a YAML block scalar (``|`` / ``>``). Nested mappings and TOML tables are
skipped. Numbers and ``true`` / ``false`` keep their type; every other value is a string.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

__all__ = ["FrontMatter", "Scalar", "read_front_matter"]

Scalar = str | int | float | bool

_YAML_KEY = re.compile(r"([A-Za-z_][\w-]*)[ \t]*:(?=[ \t]|$)")
_TOML_KEY = re.compile(r"([A-Za-z_][\w-]*)[ \t]*=")
_INT = re.compile(r"[-+]?[0-9]{1,18}")
_FLOAT = re.compile(r"[-+]?[0-9]{1,18}\.[0-9]{1,18}")
_DELIMITERS = {"---": ("---", "..."), "+++": ("+++",)}


@dataclass(frozen=True)
class FrontMatter:
    """A document's front matter: where its body starts and the fields read from it."""

    body_start: int
    """Offset of the first character after the block's closing line."""
    fields: dict[str, Scalar] = field(default_factory=dict)
    """Field name -> value, in the order written (a nested mapping or TOML table is left out)."""


def read_front_matter(text: str) -> FrontMatter | None:
    """The front matter block at the very start of ``text``, or None when it has none.

    A block opens with ``---`` (YAML) or ``+++`` (TOML) on the first line and closes at the next line holding
    the same delimiter (``...`` closes YAML too); its first line that is not blank or a comment must be a field
    (``title: ...`` / ``title = ...``), so a document opening with a ``---`` rule is not read as one.

    Example::

        read_front_matter("---\\ntitle: npm-ci\\nsection: 1\\n---\\n### Synopsis\\n").fields
        # {'title': 'npm-ci', 'section': 1}
    """
    first, _, _ = text.partition("\n")
    closers = _DELIMITERS.get(first.rstrip(" \t"))
    if closers is None:
        return None
    toml = first.startswith("+")
    lines: list[str] = []
    pos, started = len(first) + 1, False
    while pos <= len(text):
        end = text.find("\n", pos)
        end = len(text) if end < 0 else end
        line = text[pos:end]
        if line.rstrip(" \t") in closers:
            return FrontMatter(min(end + 1, len(text)), _toml_fields(lines) if toml else _yaml_fields(lines))
        if not started and line.strip() and not line.lstrip().startswith("#"):
            if not (_TOML_KEY if toml else _YAML_KEY).match(line):
                return None  # not a field: a rule, a table or text, not front matter
            started = True
        lines.append(line)
        pos = end + 1
    return None


def _yaml_fields(lines: list[str]) -> dict[str, Scalar]:
    fields: dict[str, Scalar] = {}
    i = 0
    while i < len(lines):
        found = _YAML_KEY.match(lines[i])
        i += 1
        if found is None:
            continue
        key, raw = found.group(1), _uncomment(lines[i - 1][found.end():].strip(" \t"))
        block: list[str] = []
        while i < len(lines) and (not lines[i].strip() or lines[i][:1] in " \t-"):
            block.append(lines[i])
            i += 1
        value = _yaml_value(raw, block)
        if value is not None:
            fields[key] = value
    return fields


def _yaml_value(raw: str, block: list[str]) -> Scalar | None:
    if raw[:1] in ("|", ">"):
        texts = [line.strip() for line in block]
        while texts and not texts[-1]:
            texts.pop()
        joined = "\n".join(texts) if raw[0] == "|" else " ".join(t for t in texts if t)
        return joined or None
    if raw:
        return _scalar(raw, yaml=True)
    items = [line.strip()[1:].strip() for line in block if line.strip().startswith("-")]
    if items and all(line.strip().startswith("-") or not line.strip() for line in block):
        return ", ".join(str(_scalar(item, yaml=True)) for item in items if item)
    return None  # a nested mapping, or nothing


def _toml_fields(lines: list[str]) -> dict[str, Scalar]:
    fields: dict[str, Scalar] = {}
    for line in lines:
        if line.startswith("["):
            break  # a table: its keys belong to it, not to the document
        found = _TOML_KEY.match(line)
        if found is None:
            continue
        value = _scalar(_uncomment(line[found.end():].strip(" \t")), yaml=False)
        if value is not None:
            fields[found.group(1)] = value
    return fields


def _uncomment(raw: str) -> str:
    """``raw`` without a trailing `` # comment`` (a "#" inside quotes stays)."""
    if raw[:1] in ("'", '"'):
        close = raw.find(raw[0], 1)
        return raw if close < 0 else raw[:close + 1]
    cut = raw.find(" #")
    return raw if cut < 0 else raw[:cut].rstrip(" \t")


def _scalar(raw: str, *, yaml: bool) -> Scalar | None:
    if not raw or (yaml and raw in ("~", "null", "Null", "NULL")):
        return None
    if raw[0] == "[" and raw.endswith("]"):
        items = [_scalar(item.strip(), yaml=yaml) for item in raw[1:-1].split(",")]
        return ", ".join(str(item) for item in items if item is not None) or None
    if raw[0] in ("'", '"') and len(raw) >= 2 and raw.endswith(raw[0]):
        inner = raw[1:-1]
        if raw[0] == "'":
            return inner.replace("''", "'") if yaml else inner
        return inner.replace('\\"', '"').replace("\\n", "\n").replace("\\\\", "\\")
    if raw in ("true", "True", "TRUE", "false", "False", "FALSE"):
        return raw.lower() == "true"
    if _INT.fullmatch(raw):
        return int(raw)
    if _FLOAT.fullmatch(raw):
        return float(raw)
    return raw
