"""Per-client receive-rate plots in the style of ADE²WiNFV Figs. 10-13: a line per client, a dashed line per
reserved rate, a marker per event. matplotlib with the Agg backend (no display needed)."""

from __future__ import annotations

from pathlib import Path

from .isolation import Experiment


def plot(exp: Experiment, path: Path, title: str, reserved_mbps: dict[str, float]) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 4.2), dpi=110)
    for name, series in exp.series.items():
        if series.points:
            ts, rates = zip(*series.points, strict=True)
            ax.plot(ts, rates, marker=".", linewidth=1.6, label=name)
    for label, mbps in reserved_mbps.items():
        ax.axhline(mbps, linestyle="--", linewidth=0.9, color="grey")
        ax.annotate(label, (0.2, mbps), fontsize=7, color="dimgrey", va="bottom")
    for t, what in exp.events:
        ax.axvline(t, linestyle=":", linewidth=1.0, color="black")
        ax.annotate(what, (t, ax.get_ylim()[1] * 0.97), rotation=90, fontsize=7, va="top", ha="right")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("receive rate (Mbit/s)")
    ax.set_title(title, fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="upper right")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)
    return path
