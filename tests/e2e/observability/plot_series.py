#!/usr/bin/env python3
"""Plots what observability_e2e_test saved from the real Prometheus (RDMASTACK_OBSERVABILITY_OUT):
one panel per query_range answer in series.json, the same series the dashboard's panels show.

usage: plot_series.py SERIES.json OUT.png
"""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    panels = json.load(open(sys.argv[1]))
    t0 = min(float(v[0]) for p in panels for s in p["answer"]["data"]["result"] for v in s["values"])
    fig, axes = plt.subplots(len(panels), 1, figsize=(9, 2.4 * len(panels)), sharex=True)
    for ax, panel in zip(axes, panels):
        for s in panel["answer"]["data"]["result"]:
            label = ",".join("%s" % v for k, v in sorted(s["metric"].items())) or panel["title"]
            xs = [float(v[0]) - t0 for v in s["values"]]
            ys = [float(v[1]) for v in s["values"]]
            ax.step(xs, ys, where="post", label=label, marker=".", markersize=2)
        ax.set_title(panel["title"], fontsize=10)
        ax.grid(alpha=0.3)
        if panel["answer"]["data"]["result"]:
            ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    axes[-1].set_xlabel("seconds since the first sample")
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=110)


if __name__ == "__main__":
    main()
