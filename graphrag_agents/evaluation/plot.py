"""The summary plot (PNG): recall@k per retrieve path and per question type, next to the dense baseline.

matplotlib is imported here only, lazily, with the non-interactive Agg backend (the ``eval`` extra:
``pip install '.[eval]'`` in the source folder).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .._install import pip_extra
from ..errors import ConfigurationError
from .summary import BASELINE, LABELS, OVERALL

__all__ = ["plot_available", "write_plot"]

_BASELINE_COLOR = "#9e9e9e"
_OVERALL_COLOR = "#1565c0"
_PATH_COLOR = "#64b5f6"
_TYPE_COLORS = ("#ef6c00", "#2e7d32", "#6a1b9a", "#c62828")


def plot_available() -> bool:
    """Whether matplotlib is installed."""
    import importlib.util

    return importlib.util.find_spec("matplotlib") is not None


def _label(method: str) -> str:
    return LABELS.get(method, method).replace(" ", "\n", 1)


def write_plot(summary: dict[str, Any], path: Path) -> Path:
    """Draw two panels into ``path``: recall@k for each method, and recall@(largest k) per question type.

    Raises:
        ConfigurationError: matplotlib is not installed (the message names the extra to install).
    """
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise ConfigurationError(f"The summary plot needs matplotlib. Fix: {pip_extra('eval')}.") \
            from exc
    methods: dict[str, dict[str, Any]] = summary["methods"]
    names = list(methods)
    ks = [str(k) for k in summary["ks"]]
    top = ks[-1]
    types = sorted(summary["types"])
    fig, (left, right) = plt.subplots(1, 2, figsize=(13, 4.8), gridspec_kw={"width_ratios": [1.1, 1]})
    width = 0.8 / len(ks)
    for j, k in enumerate(ks):
        shade = 0.45 + 0.55 * (j + 1) / len(ks)
        for i, name in enumerate(names):
            color = {BASELINE: _BASELINE_COLOR, OVERALL: _OVERALL_COLOR}.get(name, _PATH_COLOR)
            value = methods[name]["recall"][k]
            x = i - 0.4 + width * (j + 0.5)
            left.bar(x, value, width * 0.95, color=color, alpha=shade, edgecolor="black", linewidth=0.4,
                     label=f"recall@{k}" if i == 0 else None)
            left.text(x, value + 0.01, f"{100 * value:.0f}", ha="center", va="bottom", fontsize=7)
    if BASELINE in methods:
        left.axhline(methods[BASELINE]["recall"][top], color=_BASELINE_COLOR, linestyle="--", linewidth=1,
                     label=f"baseline recall@{top}")
    left.set_xticks(range(len(names)), [_label(n) for n in names], fontsize=8)
    left.set_ylim(0, 1.08)
    left.set_ylabel("supporting-paragraph recall")
    left.set_title(f"recall@k per retrieve path ({summary['questions']} questions)")
    left.legend(fontsize=8, loc="upper right")
    width = 0.8 / max(1, len(types))
    for j, qtype in enumerate(types):
        values = [methods[n]["by_type"].get(qtype, {}).get("recall", {}).get(top, 0.0) for n in names]
        xs = [i - 0.4 + width * (j + 0.5) for i in range(len(names))]
        right.bar(xs, values, width * 0.95, color=_TYPE_COLORS[j % len(_TYPE_COLORS)], edgecolor="black",
                  linewidth=0.4, label=f"{qtype} ({summary['types'][qtype]})")
    if BASELINE in methods:
        for j, qtype in enumerate(types):
            base = methods[BASELINE]["by_type"].get(qtype, {}).get("recall", {}).get(top)
            if base is not None:
                right.axhline(base, color=_TYPE_COLORS[j % len(_TYPE_COLORS)], linestyle="--", linewidth=0.8)
    right.set_xticks(range(len(names)), [_label(n) for n in names], fontsize=8)
    right.set_ylim(0, 1.08)
    right.set_title(f"recall@{top} per question type (dashed: baseline)")
    right.legend(fontsize=8, loc="upper right")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
