#!/usr/bin/env python3
"""Plots the informer scale benchmark (bench_informers.py's results.json) as two PNGs: resident
memory per node after sync, and sync wall time, against the node count, one line per
implementation and form.

usage: plot_scale.py results.json memory.png sync.png
Needs matplotlib (scripts/bench-scale.sh installs it into a venv under ~/.cache/rdmastack).
"""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

STYLE = {"ours": "-", "client-go": "--"}
MARK = {"shipped": "o", "transform": "s", "metadata": "^"}


def series(results, value):
    out = {}
    for n, runs in results.items():
        for r in runs:
            out.setdefault((r["impl"], r["form"]), []).append((int(n), value(int(n), r)))
    return {k: sorted(v) for k, v in out.items()}


def plot(results, value, ylabel, title, path, log=False):
    fig, ax = plt.subplots(figsize=(9, 5), dpi=100)
    for (impl, form), points in sorted(series(results, value).items()):
        ax.plot([p[0] for p in points], [p[1] for p in points], STYLE[impl], marker=MARK[form],
                label=f"{impl}, {form}")
    ax.set_xlabel("kwok nodes (one Pod per node)")
    ax.set_ylabel(ylabel)
    if log:
        ax.set_yscale("log")
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path)


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    with open(sys.argv[1]) as f:
        results = json.load(f)
    plot(results, lambda n, r: (r["rss_synced_kb"] - r["rss_start_kb"]) / n,
         "resident memory per node after sync, KiB (log)",
         "Node + Pod informers: memory per node, ours vs client-go", sys.argv[2], log=True)
    plot(results, lambda n, r: r["sync_ms"] / 1000, "first sync, wall seconds",
         "Node + Pod informers: time to first sync, ours vs client-go", sys.argv[3])


if __name__ == "__main__":
    main()
