"""Boolean settings read from the environment: one spelling of true and false for every variable."""

from __future__ import annotations

import os
from collections.abc import Mapping

from .errors import ConfigurationError

__all__ = ["env_bool", "env_flag"]

_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"0", "false", "no", "off"})


def env_bool(name: str, env: Mapping[str, str] | None = None) -> bool | None:
    """``name`` as true (1/true/yes/on) or false (0/false/no/off), any case; None when unset or empty.

    Raises:
        ConfigurationError: any other value.
    """
    raw = (os.environ if env is None else env).get(name, "").strip().lower()
    if raw in _TRUE:
        return True
    if raw in _FALSE:
        return False
    if raw:
        raise ConfigurationError(f"{name} must be true or false, got {raw!r}.")
    return None


def env_flag(name: str, env: Mapping[str, str] | None = None) -> bool:
    """:func:`env_bool` with unset meaning false."""
    return bool(env_bool(name, env))
