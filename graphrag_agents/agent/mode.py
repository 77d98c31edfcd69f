"""``mode="auto"``: the agent's mode read off the configured model, ``tools`` when it calls tools natively.

A model named by string (a litellm model name, or ``GRAPHRAG_MODEL``) is looked up in litellm's capability table
(``litellm.supports_function_calling``); a model the table does not know gets ``retrieve_first``, which works
with any model. A LangChain chat model instance decides by its model profile (``tool_calling``) when it carries
one, else by its ``bind_tools``: raising ``NotImplementedError`` means no tool calling. A ``ChatLiteLLM``
instance is looked up by its model name, since its ``bind_tools`` accepts tools for every model.

Imports no agent framework (the command line and the evaluation choose the mode before the agent is built).

Example::

    choice = choose_mode("auto", "openai/gpt-4o-mini")   # ModeChoice(mode='tools', auto=True, why='...')
"""

from __future__ import annotations

import contextlib
import io
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from ..errors import ConfigurationError
from .options import AgentMode

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

__all__ = ["MODE_SETTINGS", "ModeChoice", "ModeSetting", "choose_mode", "tool_calling"]

ModeSetting = Literal["auto", "tools", "retrieve_first"]
"""What a caller may ask for: a mode, or ``auto`` (:func:`choose_mode` picks one for the model)."""

MODE_SETTINGS: tuple[ModeSetting, ...] = ("auto", "tools", "retrieve_first")

# A tool the probe binds: bind_tools of a model without tool calling raises before it reads it.
_PROBE = {"type": "function", "function": {"name": "retrieve", "description": "Retrieve evidence.",
                                           "parameters": {"type": "object", "properties": {}}}}


@dataclass(frozen=True)
class ModeChoice:
    """The mode a run uses, and how it was chosen."""

    mode: AgentMode
    """``tools`` or ``retrieve_first``."""
    auto: bool
    """True when ``auto`` picked it; False when the caller named it."""
    why: str
    """What ``auto`` read ("openai/local: no native tool calling (litellm)"); '' when the caller named the mode."""

    def describe(self) -> str:
        """One line for a person: ``retrieve_first (auto: openai/local: no native tool calling (litellm))``."""
        return f"{self.mode} (auto: {self.why})" if self.auto else self.mode


def choose_mode(mode: str, model: BaseChatModel | str | None) -> ModeChoice:
    """The mode a run in ``mode`` uses with ``model``: ``mode`` itself, or for ``auto`` ``tools`` when the model
    calls tools natively and ``retrieve_first`` otherwise.

    Args:
        mode: ``"auto"``, ``"tools"`` or ``"retrieve_first"``.
        model: a LangChain chat model, a litellm model name, or None for ``GRAPHRAG_MODEL``.

    Raises:
        ConfigurationError: ``mode`` is none of the three.
    """
    if mode not in MODE_SETTINGS:
        raise ConfigurationError(f"mode must be 'auto', 'tools' or 'retrieve_first', not {mode!r}. Fix: pass "
                                 "auto (tools for a model with native tool calling, retrieve_first otherwise), or "
                                 "name the mode.")
    if mode != "auto":
        return ModeChoice(mode=mode, auto=False, why="")
    calls, why = tool_calling(model)
    return ModeChoice(mode="tools" if calls else "retrieve_first", auto=True, why=why)


def tool_calling(model: BaseChatModel | str | None) -> tuple[bool, str]:
    """Whether ``model`` calls tools natively, and what said so."""
    if model is None or isinstance(model, str):
        from ..models.langchain_model import configured_model_name

        name = (model or "").strip() or configured_model_name()
        return _named(name) if name else (False, "no model named: retrieve_first works with any model")
    if any(cls.__name__.startswith("ChatLiteLLM") for cls in type(model).__mro__):
        name = str(getattr(model, "model", "") or "")
        if name:
            return _named(name)
    return _instance(model)


def _named(name: str) -> tuple[bool, str]:
    """litellm's capability table on ``name``; a name it does not know has no tool calling."""
    from ..models._litellm_retry import import_litellm

    litellm = import_litellm()
    # litellm prints its provider list to stdout for a name it cannot place.
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        try:
            calls = bool(litellm.supports_function_calling(model=name))
        except Exception:  # an unknown provider or model: litellm raises for some, returns False for others
            calls = False
    return calls, f"{name}: {'native' if calls else 'no native'} tool calling (litellm)"


def _instance(model: Any) -> tuple[bool, str]:
    """A LangChain chat model: its profile's ``tool_calling``, else whether its ``bind_tools`` is implemented."""
    kind = type(model).__name__
    profile = getattr(model, "profile", None)
    if isinstance(profile, dict) and isinstance(profile.get("tool_calling"), bool):
        calls = bool(profile["tool_calling"])
        return calls, f"{kind}: {'native' if calls else 'no native'} tool calling (its model profile)"
    try:
        model.bind_tools([_PROBE])
    except NotImplementedError:
        return False, f"{kind}: bind_tools is not implemented"
    return True, f"{kind}: bind_tools is implemented"
