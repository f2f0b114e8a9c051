#!/usr/bin/env python3
"""Draws a Chrome trace of 03_events_profiling (--trace FILE) as a PNG: one row per queue.

    python3 timeline.py TRACE.json OUT.png [TRACK_PREFIX]

Only queues (tracks) whose name starts with TRACK_PREFIX are drawn (e.g. "overlap"). Stretches
in which no drawn command runs and that are longer than a tenth of the busy time are cut short
and marked with a dashed line, so that runs far apart on the device clock fit one picture.
Needs matplotlib (Debian: apt-get install python3-matplotlib)."""
import json
import sys

if __name__ == "__main__" and len(sys.argv) < 3:
    print(__doc__, file=sys.stderr)
    sys.exit(2)
try:
    import matplotlib
except ImportError:
    print("timeline.py needs matplotlib (Debian: apt-get install python3-matplotlib; then run it "
          "with /usr/bin/python3)", file=sys.stderr)
    sys.exit(2)

matplotlib.use("Agg")
import matplotlib.patches  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402

COLOURS = {"upload": "#4c78a8", "write": "#4c78a8", "relax": "#f58518", "affine": "#f58518",
           "add": "#e45756", "download": "#54a24b", "read": "#54a24b"}


def gap_cutter(intervals):
    """A function from device time to plot time that shortens long idle gaps, and the cuts."""
    merged = []
    for start, end in sorted(intervals):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    busy = sum(end - start for start, end in merged)
    longest, kept = 0.1 * busy, 0.02 * busy
    removed, steps = 0.0, []  # (device time where the cut ends, time removed up to there)
    for (_, end), (start, _) in zip(merged, merged[1:]):
        if start - end > longest:
            removed += start - end - kept
            steps.append((start, removed))
    origin = merged[0][0]

    def to_plot(t):
        shift = 0.0
        for cut_end, total in steps:
            if t >= cut_end:
                shift = total
        return t - origin - shift

    return to_plot, [to_plot(cut_end) - kept / 2 for cut_end, _ in steps]


def main():
    prefix = sys.argv[3] if len(sys.argv) > 3 else ""
    try:
        with open(sys.argv[1]) as trace:
            events = json.load(trace)["traceEvents"]
        names = {(e["pid"], e["tid"]): e["args"]["name"] for e in events
                 if e.get("ph") == "M" and e["name"] == "thread_name"}
        tracks = [key for key in names if names[key].startswith(prefix)]
        commands = [e for e in events if e.get("ph") == "X" and (e["pid"], e["tid"]) in tracks]
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as error:
        print("timeline.py: %s is not a trace of 03_events_profiling --trace: %s: %s"
              % (sys.argv[1], type(error).__name__, error), file=sys.stderr)
        sys.exit(2)
    if not commands:
        sys.exit("no commands on queues whose name starts with '%s'" % prefix)
    to_plot, cuts = gap_cutter([(e["ts"], e["ts"] + e["dur"]) for e in commands])
    fig, ax = plt.subplots(figsize=(10, 0.6 * len(tracks) + 1.6))
    for row, key in enumerate(tracks):
        for e in (c for c in commands if (c["pid"], c["tid"]) == key):
            colour = next((v for k, v in COLOURS.items() if e["name"].startswith(k)), "#888888")
            start = to_plot(e["ts"]) / 1e3
            ax.broken_barh([(start, e["dur"] / 1e3)], (row - 0.4, 0.8), facecolors=colour,
                           edgecolors="black", linewidth=0.3)
    ax.legend(handles=[matplotlib.patches.Patch(color=c, label=l) for l, c in
                       (("upload / write", COLOURS["upload"]), ("kernel", COLOURS["relax"]),
                        ("download / read", COLOURS["download"]))],
              loc="upper center", bbox_to_anchor=(0.5, -0.25), ncol=3, frameon=False)
    for cut in cuts:
        ax.axvline(cut / 1e3, color="grey", linestyle="--", linewidth=0.8)
    ax.set_yticks(range(len(tracks)))
    ax.set_yticklabels([names[key] for key in tracks])
    ax.invert_yaxis()
    ax.set_xlabel("ms, device clock (START to END of each command; dashed: idle time cut out)")
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=110)


if __name__ == "__main__":
    main()
