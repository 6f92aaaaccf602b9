#!/usr/bin/env python3
"""Plots the upgrade benchmark's phase counts over time (the CSV that
GatewayPoolBench.SideBySideUpgradeAgainstTheFloor writes) as a PNG.

usage: plot_upgrade.py upgrade-phases.csv out.png [title]
Needs matplotlib (scripts/bench-upgrade.sh installs it into a venv under ~/.cache/rdmastack).
"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

PHASES = ["pending", "startNew", "validate", "switch", "drain", "stopOld", "done", "rollBack",
          "failed"]


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    with open(sys.argv[1]) as f:
        rows = list(csv.DictReader(f))
    if not rows:
        sys.exit(f"{sys.argv[1]}: no samples")
    t = [float(r["seconds"]) for r in rows]
    fig, ax = plt.subplots(figsize=(10, 5), dpi=100)
    for phase in PHASES:
        values = [int(r[phase]) for r in rows]
        if any(values):
            ax.plot(t, values, label=phase, linewidth=1.5)
    ax.plot(t, [int(r["readyEndpoints"]) for r in rows], label="nodes with a ready endpoint",
            linestyle="--", color="black", linewidth=1)
    ax.set_xlabel("seconds since the spec moved to 2.0.0.109")
    ax.set_ylabel("nodes")
    ax.set_title(sys.argv[3] if len(sys.argv) > 3 else "GatewayPool upgrade: nodes per phase")
    ax.grid(alpha=0.3)
    ax.legend(loc="center right", fontsize=8)
    fig.tight_layout()
    fig.savefig(sys.argv[2])


if __name__ == "__main__":
    main()
