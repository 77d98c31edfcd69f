"""Listing files in the ``files_root`` sandbox: glob matching by path component, and the bounded folder walk.

Every folder is opened through :class:`~graphrag_agents.tools._sandbox_resolve._PathResolver`, so a listing
follows symlinks only inside the root and skips hidden entries; ``max_entries`` bounds the walk of one call.
"""

from __future__ import annotations

import os
import stat
from contextlib import suppress
from fnmatch import fnmatchcase

from graphrag_agents.errors import PathNotFound, ToolError

from ._sandbox_resolve import _PATH_HINT, _PathResolver, _show

_GLOB_CHARS = frozenset("*?[")


def _match(parts: tuple[str, ...], pattern: tuple[str, ...]) -> bool:
    """Glob match by path component: ``*``, ``?``, ``[..]`` stay in one name, ``**`` spans any folders.

    Runs in len(parts) x len(pattern) steps however many ``**`` a pattern has (no backtracking).
    """
    size = len(pattern)

    def past_globstars(states: list[bool]) -> list[bool]:
        for j in range(size):
            states[j + 1] = states[j + 1] or (states[j] and pattern[j] == "**")
        return states

    states = past_globstars([True] + [False] * size)  # states[j]: pattern[:j] matches the names so far
    for name in parts:
        following = [False] * (size + 1)
        for j in range(size):
            if states[j] and pattern[j] == "**":
                following[j] = True
            elif states[j] and fnmatchcase(name, pattern[j]):
                following[j + 1] = True
        states = past_globstars(following)
    return states[size]


def glob_match(path: str, pattern: str) -> bool:
    """Whether a relative ``path`` fits a glob, name by name: ``*``, ``?``, ``[..]`` stay in one name, ``**``
    spans folders (``glob_match("a/b/c.md", "a/**/*.md")`` is True)."""
    names = tuple(p for p in path.split("/") if p)
    return _match(names, tuple(p for p in pattern.split("/") if p))


class _FileLister(_PathResolver):
    """Expands file paths, folders and globs into the real relative paths of the files they name."""

    max_entries: int
    """Folder entries one listing may walk before it gives up."""

    def _kind(self, parts: list[str]) -> tuple[tuple[str, ...], bool] | None:
        """``(real parts, is a folder)`` of an existing file or folder, None when nothing is there."""
        try:
            res = self._resolve(parts, want_dir=True)
        except PathNotFound:
            return None
        if res.fd is not None:
            os.close(res.fd)
        return res.parts, stat.S_ISDIR(res.st.st_mode)

    def _list_one(self, pattern: str, suffixes: set[str] | None, walked: list[int]) -> list[str]:
        if pattern.startswith("file:"):  # a document id, unless real names start with "file:"
            literal = [] if os.name == "nt" else self._expand(pattern, suffixes, walked, missing_ok=True)
            return literal or self._expand(pattern[len("file:"):], suffixes, walked)
        return self._expand(pattern, suffixes, walked)

    def _expand(self, pattern: str, suffixes: set[str] | None, walked: list[int],
                missing_ok: bool = False) -> list[str]:
        parts = tuple(self._split(pattern))
        found = self._kind(list(parts))
        if found is not None:
            real, is_dir = found
            everything = (*parts, "**", "*")
            return self._walk(real, parts, everything, suffixes, walked) if is_dir else ["/".join(real)]
        cut = next((i for i, p in enumerate(parts) if _GLOB_CHARS.intersection(p)), None)
        if cut is None:
            if missing_ok:
                return []
            raise PathNotFound(f"Path {_show(pattern)} not found under the files root.", _PATH_HINT)
        start = self._kind(list(parts[:cut])) if cut else ((), True)
        if start is None or not start[1]:
            return []
        return self._walk(start[0], parts[:cut], parts, suffixes, walked)

    def _walk(self, base: tuple[str, ...], prefix: tuple[str, ...], pattern: tuple[str, ...],
              suffixes: set[str] | None, walked: list[int]) -> list[str]:
        """Files under the real folder ``base`` (spelled ``prefix``) whose spelled paths match ``pattern``."""
        max_depth = None if "**" in pattern else len(pattern) - len(prefix)
        found: list[str] = []
        stack, seen = [(prefix, base)], {base}
        while stack:
            spelled, real = stack.pop()
            for name, kind in self._scan(real):
                walked[0] += 1
                if walked[0] > self.max_entries:
                    raise ToolError(
                        f"Listing stopped after walking {self.max_entries} entries under the files root.",
                        "Point files_root at the folder that holds the documents, or use a narrower pattern "
                        "such as 'reports/*.pdf'.")
                if name.startswith("."):
                    continue
                path, target = (*spelled, name), (*real, name)
                if kind == "link":
                    with suppress(ToolError):  # leaving the root, hidden, a loop, a FIFO: not listed
                        resolved = self._kind([*real, name])
                        if resolved:
                            target, kind = resolved[0], "dir" if resolved[1] else "file"
                deep_enough = max_depth is not None and len(path) - len(prefix) >= max_depth
                looping = real[:len(target)] == target  # a link to a folder that holds it
                if kind == "dir" and not deep_enough and not looping and target not in seen:
                    seen.add(target)
                    stack.append((path, target))
                elif kind == "file" and _match(path, pattern) and (
                        suffixes is None or os.path.splitext(target[-1])[1].lower() in suffixes):
                    found.append("/".join(target))
        return sorted(found)

    def _scan(self, real: tuple[str, ...]) -> list[tuple[str, str]]:
        """``(name, kind)`` of a folder's entries, kind being dir, file, link or other."""
        res = self._resolve(list(real), want_dir=True, exact=True)
        try:
            with os.scandir(res.fd if res.fd is not None else self.root.joinpath(*res.parts)) as entries:
                return sorted((e.name, "link" if e.is_symlink() or getattr(e, "is_junction", bool)()
                               else "dir" if e.is_dir(follow_symlinks=False)
                               else "file" if e.is_file(follow_symlinks=False) else "other") for e in entries)
        finally:
            if res.fd is not None:
                os.close(res.fd)
