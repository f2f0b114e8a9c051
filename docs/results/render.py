#!/usr/bin/env python3
"""Plots and tables of the measured results, and the results blocks of the chapter pages.

    render.py [--no-docs] [--check] [RESULTS_DIR ...]

Every RESULTS_DIR (default: each folder under docs/results/ that has a results.csv) holds what
docs/results/collect.sh wrote for one device. For each, this draws the plots into the folder.
Then it rewrites, in every chapter page, the block that starts at the marker line
<!-- results:<chapter> --> (and ends at <!-- /results:<chapter> -->) with the tables of all the
devices under docs/results/, so that no figure in the docs is typed by hand.

--check: change nothing; exit 1 when a page's block differs from what the results give.
--no-docs: only draw the plots of the given folders.
"""
import argparse
import csv
import math
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DOCS = os.path.dirname(HERE)

REDUCE_STEPS = ["reduce0", "reduce1", "reduce2", "reduce3", "reduce4", "reduce5", "reduce6",
                "reduce7"]
# Chapter 04 rows that are not steps: an aside and the advanced (vendor-specific) variants.
REDUCE_ASIDES = [("reduce3_async", "aside"), ("reduce6_warp", "advanced"),
                 ("reduce6_subgroup", "advanced")]
# Chapter 05 rows that are not steps: the roof and the libraries. Every other variant of the
# chapter's CSV is a step, in the order the chapter ran it (so a new step needs no change here).
MATMUL_BASELINES = ("fp32_peak", "clblast", "openblas", "cublas")


def matmul_steps(rows):
    return [v for v in rows if v not in MATMUL_BASELINES]
TRANSFER_METHODS = ["write_blocking", "read_blocking", "write_nonblocking", "read_nonblocking",
                    "map_write", "map_read", "pinned_write", "pinned_read"]
# Our transfer rows and the clpeak lines measuring the same thing.
CLPEAK_TRANSFER = [
    ("write_blocking", "enqueueWriteBuffer"),
    ("read_blocking", "enqueueReadBuffer"),
    ("write_nonblocking", "enqueueWriteBuffer non-blocking"),
    ("read_nonblocking", "enqueueReadBuffer non-blocking"),
    ("map_read/map", "enqueueMapBuffer(for read)"),
    ("map_read/memcpy", "memcpy from mapped ptr"),
    ("map_write/unmap", "enqueueUnmap(after write)"),
    ("map_write/memcpy", "memcpy to mapped ptr"),
]


# ---- Reading a results folder ---------------------------------------------------------------

class Device:
    """Everything collect.sh kept about one device."""

    def __init__(self, path):
        self.path = path
        self.folder = os.path.basename(os.path.normpath(path))
        self.meta = {"commands": []}
        with open(os.path.join(path, "meta.txt"), encoding="utf-8") as f:
            for line in f:
                key, _, value = line.rstrip("\n").partition("=")
                if key == "command":
                    self.meta["commands"].append(value)
                else:
                    self.meta[key] = value
        with open(os.path.join(path, "results.csv"), newline="", encoding="utf-8") as f:
            self.rows = [r for r in csv.DictReader(f)]
        for r in self.rows:
            r["time"] = float(r["time_ms"]) if r["time_ms"] else None
            r["value"] = float(r["figure"]) if r["figure"] else None
        self.outputs = {}
        for name in os.listdir(path):
            if name.endswith(".txt") and name not in ("meta.txt", "clpeak.txt"):
                with open(os.path.join(path, name), encoding="utf-8", errors="replace") as f:
                    self.outputs[name[:-4]] = f.read()
        self.clpeak = parse_clpeak(os.path.join(path, "clpeak.txt"))

    @property
    def title(self):
        return "%s, driver %s, %s" % (self.meta.get("device", "?"), self.meta.get("driver", "?"),
                                      self.meta.get("date", "?"))

    def chapter(self, chapter):
        return [r for r in self.rows if r["chapter"] == chapter]


def parse_clpeak(path):
    """clpeak's figures: {'bandwidth': best GB/s, 'sp': best GFLOP/s, 'latency': us,
    'transfer': {line label: GB/s}}; empty when there is no clpeak.txt."""
    result = {"transfer": {}}
    if not os.path.exists(path):
        return result
    section = ""
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            text = line.strip()
            if text.endswith(")") and "(" in text and ":" not in text:
                section = text
                continue
            m = re.match(r"(.+?)\s*:\s*([0-9]+(?:\.[0-9]+)?)(?:\s*us)?$", text)
            if not m:
                continue
            label, value = m.group(1).strip(), float(m.group(2))
            if section.startswith("Global memory bandwidth"):
                result["bandwidth"] = max(result.get("bandwidth", 0.0), value)
            elif section.startswith("Single-precision compute"):
                result["sp"] = max(result.get("sp", 0.0), value)
            elif section.startswith("Transfer bandwidth"):
                result["transfer"][label] = value
            if label.startswith("Kernel launch latency"):
                result["latency"] = value
    return result


# ---- Formatting ---------------------------------------------------------------------------

def fmt(value, digits=3):
    """A figure with `digits` significant digits, no exponent for ordinary sizes."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    if value == 0:
        return "0"
    magnitude = int(math.floor(math.log10(abs(value))))
    decimals = max(0, digits - 1 - magnitude)
    return "{:,.{}f}".format(value, decimals)


def table(header, rows):
    lines = ["| " + " | ".join(header) + " |",
             "| " + " | ".join("---" for _ in header) + " |"]
    for row in rows:
        lines.append("| " + " | ".join(str(c) for c in row) + " |")
    return "\n".join(lines)


def human_bytes(n):
    n = int(n)
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size and n % size == 0:
            return "%d %s" % (n // size, unit)
    return "%d B" % n


def code_block(text):
    return "```\n" + text.rstrip("\n") + "\n```"


def output_excerpt(text, start, stop_blank_lines=2):
    """The lines of text from the line starting with `start` up to `stop_blank_lines` blank
    lines later (or the end)."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.startswith(start):
            blanks, out = 0, []
            for l in lines[i:]:
                if not l.strip():
                    blanks += 1
                    if blanks == stop_blank_lines:
                        break
                out.append(l)
            return "\n".join(out).rstrip()
    return ""


# ---- Plots ----------------------------------------------------------------------------------

def pyplot():
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        return plt
    except ImportError:
        sys.exit("render.py: matplotlib is missing (Debian/Ubuntu: apt-get install "
                 "python3-matplotlib)")


def save(fig, dev, name):
    path = os.path.join(dev.path, name)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    import matplotlib.pyplot as plt
    plt.close(fig)
    return name


# ---- One function per chapter: (markdown for the page, plot drawer) -----------------------

def ch01(dev):
    text = dev.outputs.get("01_platform_query", "")
    if not text:
        return ""
    return ("<details><summary>Output of <code>%s</code></summary>\n\n%s\n\n</details>"
            % (" ".join(dev.meta["commands"][:1]) or "01_platform_query", code_block(text)))


def ch02_rows(dev):
    rows = dev.chapter("02_buffers_mapping")
    sweep = [r for r in rows if r["variant"].split("/")[0] in TRANSFER_METHODS and r["value"]]
    return rows, sweep


def ch02(dev):
    rows, sweep = ch02_rows(dev)
    if not rows:
        return ""
    out = []
    demos = [r for r in rows if r["value"] is None]
    if demos:
        out.append("Demonstrations: " + ", ".join(
            "`%s` %s" % (r["variant"], r["check"]) for r in demos) + ".")
    # Steps 9 and 10: each variant beside its reference, measured in the same rounds.
    reference = {"constant_memory/constant": "constant_memory/global",
                 "constant_memory/program_scope": "constant_memory/global_16",
                 "image_bilinear/image": "image_bilinear/buffer"}
    timed = {r["variant"]: r for r in rows if r["variant"] in reference or
             r["variant"] in reference.values()}
    body = []
    for variant, ref in reference.items():
        if variant in timed and ref in timed and timed[variant]["time"] and timed[ref]["time"]:
            v, r = timed[variant], timed[ref]
            body.append(["`%s`" % variant, fmt(v["time"]), "`%s`" % ref, fmt(r["time"]),
                         fmt(r["time"] / v["time"]), v["check"]])
    if body:
        out.append("Steps 9 and 10 (best of interleaved rounds; kernel event time):\n\n" + table(
            ["variant", "time (ms)", "reference", "reference time (ms)", "speed-up", "check"],
            body))
    if sweep:
        largest = max(int(r["size"]) for r in sweep)
        at = {r["variant"]: r for r in sweep if int(r["size"]) == largest}
        body = []
        for method in TRANSFER_METHODS + [m for m, _ in CLPEAK_TRANSFER if "/" in m]:
            if method not in at:
                continue
            clp_label = dict(CLPEAK_TRANSFER).get(method)
            clp = dev.clpeak["transfer"].get(clp_label) if clp_label else None
            ours = at[method]["value"]
            body.append(["`%s`" % method, fmt(at[method]["time"]), fmt(ours),
                         ("%s: %s" % (clp_label, fmt(clp))) if clp else "",
                         ("%+.0f%%" % (100.0 * (ours / clp - 1))) if clp else ""])
        out.append("Transfers of %s (median of the runs; wall-clock time):\n\n" % human_bytes(largest)
                   + table(["method", "time (ms)", "GB/s", "clpeak, same device", "ours vs clpeak"],
                           body))
        best = []
        for size in sorted({int(r["size"]) for r in sweep}):
            cands = [r for r in sweep if int(r["size"]) == size and "/" not in r["variant"]]
            if cands:
                b = max(cands, key=lambda r: r["value"])
                best.append([human_bytes(size), "`%s`" % b["variant"], fmt(b["value"])])
        out.append("Best method per size:\n\n" + table(["size", "best method", "GB/s"], best))
        out.append("![Transfer bandwidth vs size](results/%s/ch02_transfer.png)" % dev.folder)
    return "\n\n".join(out)


def ch02_plot(dev, plt):
    _, sweep = ch02_rows(dev)
    if not sweep:
        return
    fig, ax = plt.subplots(figsize=(8, 5))
    for method in TRANSFER_METHODS:
        pts = sorted((int(r["size"]), r["value"]) for r in sweep if r["variant"] == method)
        if pts:
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=method)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("bytes per transfer")
    ax.set_ylabel("GB/s")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    ax.set_title("Host-device transfers: %s" % dev.title, fontsize=9)
    save(fig, dev, "ch02_transfer.png")


def ch03(dev):
    rows = dev.chapter("03_events_profiling")
    if not rows:
        return ""
    body = []
    for r in rows:
        body.append(["`%s`" % r["variant"], r["size"], fmt(r["time"]),
                     (fmt(r["value"]) + " " + r["unit"]) if r["value"] is not None else "",
                     r["check"]])
    out = [table(["scenario", "size", "time (ms)", "figure", "check"], body)]
    if "latency" in dev.clpeak:
        out.append("clpeak's kernel launch latency on the same device: %s µs."
                   % fmt(dev.clpeak["latency"]))
    if any(r["variant"].startswith(("launch_", "overlap_")) and (r["value"] or r["time"])
           for r in rows):
        out.append("![Launch latency and overlap](results/%s/ch03_latency_overlap.png)"
                   % dev.folder)
    return "\n\n".join(out)


def ch03_plot(dev, plt):
    rows = [r for r in dev.chapter("03_events_profiling") if r["value"] is not None]
    latency = [r for r in rows if r["variant"].startswith("launch_")]
    overlap = [r for r in dev.chapter("03_events_profiling")
               if r["variant"] in ("overlap_serial", "overlap_pipelined") and r["time"]]
    if not latency and not overlap:
        return
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    labels = [r["variant"] for r in latency]
    values = [r["value"] for r in latency]
    if "latency" in dev.clpeak:
        labels.append("clpeak")
        values.append(dev.clpeak["latency"])
    axes[0].bar(range(len(values)), values, color="tab:blue")
    axes[0].set_xticks(range(len(values)), labels, rotation=30, ha="right", fontsize=8)
    axes[0].set_ylabel("µs")
    axes[0].set_title("kernel launch latency", fontsize=9)
    axes[1].bar(range(len(overlap)), [r["time"] for r in overlap], color="tab:orange")
    axes[1].set_xticks(range(len(overlap)), [r["variant"] for r in overlap], rotation=30,
                       ha="right", fontsize=8)
    axes[1].set_ylabel("ms")
    axes[1].set_title("pipeline: serial vs overlapped", fontsize=9)
    fig.suptitle(dev.title, fontsize=9)
    save(fig, dev, "ch03_latency_overlap.png")


def ch04_groups(dev):
    """{type: {variant: row}} for chapter 04 (its main run; the sweep is in ch04_sweep.csv)."""
    groups = {}
    for r in dev.chapter("04_reduction_naive_to_cascade"):
        name, _, typ = r["variant"].partition("/")
        groups.setdefault(typ or "float", {})[name] = r
    return groups


def ch04_e2e(r):
    """End-to-end time (ms) of a chapter 04 row and its GB/s, or (None, None) (a CSV written
    before the e2e_ms column)."""
    e2e = float(r["e2e_ms"]) if r.get("e2e_ms") else None
    if not e2e or not r["time"] or not r["value"]:
        return e2e, None
    return e2e, r["value"] * r["time"] / e2e


def ch04_row(label, r, stream, speedups=("", "")):
    e2e, e2e_gbps = ch04_e2e(r)
    return ["`%s`" % label, fmt(r["time"], 4), fmt(r["value"]), fmt(e2e, 4), fmt(e2e_gbps),
            speedups[0], speedups[1],
            ("%.0f%%" % (100 * r["value"] / stream)) if stream else "", r["check"]]


def ch04_sweep(dev):
    """The GB/s-against-n sweep (04_reduction_naive_to_cascade/sweep.sh) of this device:
    {variant: {n: row}}, best round of each point (kernel and end-to-end taken separately), and
    {n: CUB end-to-end ms} from ch04_cub.csv (torch_sum_reference.py), when present."""
    points, cub = {}, {}
    path = os.path.join(dev.path, "ch04_sweep.csv")
    if os.path.exists(path):
        with open(path, newline="", encoding="utf-8") as f:
            for r in csv.DictReader(f):
                if not r["size"] or not r["time_ms"] or r["check"] != "PASS":
                    continue
                name = r["variant"].partition("/")[0]
                n, kernel, e2e = int(r["size"]), float(r["time_ms"]), float(r["e2e_ms"] or "nan")
                best = points.setdefault(name, {}).setdefault(n, {"kernel": kernel, "e2e": e2e})
                best["kernel"], best["e2e"] = min(best["kernel"], kernel), min(best["e2e"], e2e)
    path = os.path.join(dev.path, "ch04_cub.csv")
    if os.path.exists(path):
        with open(path, newline="", encoding="utf-8") as f:
            cub = {int(r["n"]): float(r["cub_e2e_ms"]) for r in csv.DictReader(f)}
    return points, cub


def ch04_sweep_table(dev):
    points, cub = ch04_sweep(dev)
    if "reduce7" not in points:
        return ""
    sizes = sorted(n for n in points["reduce7"] if n >= 1 << 16 and (n.bit_length() - 1) % 2 == 0)
    body = []
    for n in sizes:
        row = ["2^%d" % (n.bit_length() - 1)]
        for name in ("stream_read", "reduce6", "reduce7"):
            p = points.get(name, {}).get(n)
            row.append("%s / %s" % (fmt(p["kernel"] * 1e3), fmt(p["e2e"] * 1e3)) if p else "–")
        c = cub.get(n)
        r7 = points["reduce7"][n]["e2e"]
        row += [fmt(c * 1e3) if c else "–", ("×%s" % fmt(c / r7)) if c else "–"]
        body.append(row)
    return ("Kernel / end-to-end time in µs, float (best of the sweep's rounds"
            + ("; `torch.sum` timed end to end the same way, right after it on the same device"
               if cub else "")
            + "):\n\n" + table(["n", "`stream_read`", "`reduce6`", "`reduce7`", "torch.sum (CUB)",
                               "CUB e2e / `reduce7` e2e"], body))


def ch04(dev):
    out = []
    for typ, rows in ch04_groups(dev).items():
        stream = rows.get("stream_read", {}).get("value")
        body, first, prev = [], None, None
        for step in REDUCE_STEPS:
            r = rows.get(step)
            if not r or r["value"] is None:
                continue
            first = first or r
            body.append(ch04_row(step, r, stream, (
                ("×%s" % fmt(prev["time"] / r["time"])) if prev else "",
                ("×%s" % fmt(first["time"] / r["time"])) if r is not first else "")))
            prev = r
        for aux, what in REDUCE_ASIDES + [("stream_read", "reference"),
                                          ("strided_read", "reference")]:
            r = rows.get(aux)
            if r and r["value"] is not None:
                body.append(ch04_row(aux, r, stream))
                body[-1][0] += " (%s)" % what
        if not body:
            continue
        size = next(iter(rows.values()))["size"]
        out.append("%s, n = %s:\n\n" % (typ, size) + table(
            ["variant", "kernel (ms)", "kernel GB/s", "end to end (ms)", "end-to-end GB/s",
             "step speedup", "cumulative", "% of stream_read (kernel)", "check"], body))
    if not out:
        return ""
    if "bandwidth" in dev.clpeak:
        out.append("clpeak's global memory bandwidth on the same device: %s GB/s."
                   % fmt(dev.clpeak["bandwidth"]))
    out.append("![Reduction bandwidth per step](results/%s/ch04_reduction.png)" % dev.folder)
    sweep = ch04_sweep_table(dev)
    if sweep:
        out.append(sweep)
        out.append("![GB/s against n](results/%s/ch04_sweep.png)" % dev.folder)
    return "\n\n".join(out)


def ch04_plot(dev, plt):
    groups = ch04_groups(dev)
    rows = groups.get("float") or next(iter(groups.values()), None)
    if rows:
        steps = [s for s in REDUCE_STEPS + [a for a, _ in REDUCE_ASIDES]
                 if s in rows and rows[s]["value"] is not None]
        fig, ax = plt.subplots(figsize=(9, 4.8))
        xs = range(len(steps))
        ax.bar([x - 0.2 for x in xs], [rows[s]["value"] for s in steps], width=0.4,
               color="tab:blue", label="kernel time (events, all passes)")
        e2e = [ch04_e2e(rows[s])[1] or 0.0 for s in steps]
        if any(e2e):
            ax.bar([x + 0.2 for x in xs], e2e, width=0.4, color="tab:orange",
                   label="end to end (host clock, first enqueue to the scalar on the host)")
        ax.set_xticks(list(xs), steps, rotation=30, ha="right", fontsize=8)
        for name, style in (("stream_read", "--"), ("strided_read", ":")):
            if name in rows and rows[name]["value"]:
                ax.axhline(rows[name]["value"], linestyle=style, color="tab:red",
                           label="%s %s GB/s" % (name, fmt(rows[name]["value"])))
        if "bandwidth" in dev.clpeak:
            ax.axhline(dev.clpeak["bandwidth"], linestyle="-.", color="gray",
                       label="clpeak %s GB/s" % fmt(dev.clpeak["bandwidth"]))
        ax.set_yscale("log")
        ax.set_ylabel("GB/s of input")
        ax.legend(fontsize=7)
        ax.set_title("Reduction, float, n = %s: %s" % (rows[steps[0]]["size"] if steps else "?",
                                                          dev.title), fontsize=9)
        save(fig, dev, "ch04_reduction.png")
    points, cub = ch04_sweep(dev)
    if not points:
        return
    fig, ax = plt.subplots(figsize=(9, 5))
    colors = {"stream_read": "tab:red", "reduce6": "tab:blue", "reduce7": "tab:green",
              "reduce6_warp": "tab:purple", "reduce6_subgroup": "tab:brown"}
    for name, by_n in points.items():
        ns = sorted(by_n)
        color = colors.get(name, "tab:gray")
        ax.plot(ns, [4 * n / (by_n[n]["kernel"] * 1e6) for n in ns], marker=".", color=color,
                label="%s, kernel" % name)
        ax.plot(ns, [4 * n / (by_n[n]["e2e"] * 1e6) for n in ns], marker=".", color=color,
                linestyle="--", label="%s, end to end" % name)
    if cub:
        ns = sorted(cub)
        ax.plot(ns, [4 * n / (cub[n] * 1e6) for n in ns], marker="x", color="black",
                linestyle="--", label="torch.sum (CUB), end to end")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("n (float elements)")
    ax.set_ylabel("GB/s of input")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, ncol=2)
    ax.set_title("Reduction GB/s against n: %s" % dev.title, fontsize=9)
    save(fig, dev, "ch04_sweep.png")


def ch05_sizes(dev):
    sizes = {}
    for r in dev.chapter("05_matmul_tiled_vector"):
        sizes.setdefault(r["size"], {})[r["variant"]] = r
    return dict(sorted(sizes.items(), key=lambda kv: math.prod(int(x) for x in kv[0].split("x"))))


def host_blas_on_gpu(dev, variant):
    """OpenBLAS runs on the host CPU: beside a GPU's steps its figure compares two different
    processors, so the GPU tables leave it out (it stays in results.csv)."""
    return variant == "openblas" and dev.meta.get("profile") == "gpu"


def ch05(dev):
    out = []
    for size, rows in ch05_sizes(dev).items():
        peak = rows.get("fp32_peak", {}).get("value")
        body, first, prev = [], None, None
        for step in matmul_steps(rows):
            r = rows.get(step)
            if not r or r["value"] is None:
                if r:
                    body.append(["`%s`" % step, "", "", "", "", "", r["check"]])
                continue
            first = first or r
            body.append(["`%s`" % step, fmt(r["time"], 4), fmt(r["value"]),
                         ("×%s" % fmt(r["value"] / first["value"])) if r is not first else "",
                         ("×%s" % fmt(r["value"] / prev["value"])) if prev else "",
                         ("%.0f%%" % (100 * r["value"] / peak)) if peak else "", r["check"]])
            prev = r
        for aux in ("clblast", "openblas", "cublas", "fp32_peak"):
            r = rows.get(aux)
            if r and r["value"] is not None and not host_blas_on_gpu(dev, aux):
                body.append(["`%s`" % aux, fmt(r["time"], 4), fmt(r["value"]), "", "",
                             ("%.0f%%" % (100 * r["value"] / peak)) if peak else "", r["check"]])
        out.append("%s:\n\n" % size + table(
            ["variant", "time (ms)", "GFLOP/s", "× naive", "× previous", "% of fp32_peak",
             "check"], body))
    if not out:
        return ""
    if "sp" in dev.clpeak:
        out.append("clpeak's single-precision peak on the same device: %s GFLOP/s."
                   % fmt(dev.clpeak["sp"]))
    out.append("![GFLOP/s per step](results/%s/ch05_steps.png) "
               "![Roofline](results/%s/ch05_roofline.png)" % (dev.folder, dev.folder))
    return "\n\n".join(out)


def ch05_intensity(dev, size):
    """FLOP per byte of global memory traffic of each step, from the tile sizes the chapter
    printed: naive reads 2 floats per multiply-add; a TS x TS tile reads each element of A
    and B once per tile (TS/4); a TSM x TSN block reads TSM + TSN floats per k
    (TSM*TSN / (2*(TSM+TSN)))."""
    text = dev.outputs.get("05_matmul_tiled_vector", "")
    result = {}
    for line in text.splitlines():
        m = re.match(r"\s+(\w+)\s+(\d+x\d+x\d+)\s.*\((.*?)[;)]", line)
        if not m or m.group(2) != size:
            continue
        params = dict(re.findall(r"(\w+)=(\d+)", m.group(3)))
        step = m.group(1)
        if step == "naive":
            result[step] = 0.25
        elif "TSM" in params and "TSN" in params:
            tsm, tsn = int(params["TSM"]), int(params["TSN"])
            result[step] = tsm * tsn / (2.0 * (tsm + tsn))
        elif "BM" in params and "BN" in params:  # warp_tiled, split_k: a BM x BN block
            bm, bn = int(params["BM"]), int(params["BN"])
            result[step] = bm * bn / (2.0 * (bm + bn))
        elif "TS" in params:
            result[step] = int(params["TS"]) / 4.0
    return result


def ch05_plot(dev, plt):
    sizes = ch05_sizes(dev)
    if not sizes:
        return
    size, rows = list(sizes.items())[-1]
    steps = [s for s in matmul_steps(rows) if rows[s]["value"] is not None]
    fig, ax = plt.subplots(figsize=(8, 4.5))
    ax.bar(steps, [rows[s]["value"] for s in steps], color="tab:green")
    for name, style, color in (("fp32_peak", "--", "tab:red"), ("clblast", ":", "tab:red"),
                               ("openblas", "-.", "tab:blue")):
        if name in rows and rows[name]["value"]:
            ax.axhline(rows[name]["value"], linestyle=style, color=color,
                       label="%s %s GFLOP/s" % (name, fmt(rows[name]["value"])))
    ax.set_yscale("log")
    ax.set_ylabel("GFLOP/s (2MNK / time)")
    ax.tick_params(axis="x", labelsize=8, labelrotation=30)
    plt.setp(ax.get_xticklabels(), ha="right")
    ax.legend(fontsize=8)
    ax.set_title("SGEMM %s: %s" % (size, dev.title), fontsize=9)
    save(fig, dev, "ch05_steps.png")

    intensity = ch05_intensity(dev, size)
    stream = ch04_groups(dev).get("float", {}).get("stream_read", {}).get("value")
    peak = rows.get("fp32_peak", {}).get("value")
    fig, ax = plt.subplots(figsize=(7, 4.5))
    xs = [0.05, 1000.0]
    if stream and peak:
        ridge = peak / stream
        ax.plot([xs[0], ridge, xs[1]], [stream * xs[0], peak, peak], color="gray",
                label="roof: %s GB/s (ch04 stream_read), %s GFLOP/s (fp32_peak)"
                % (fmt(stream), fmt(peak)))
    markers = "osD^vP*X"
    for i, s in enumerate(steps):
        if s in intensity:
            ax.scatter(intensity[s], rows[s]["value"], zorder=3, marker=markers[i % len(markers)],
                       label=s)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("FLOP per byte of global memory traffic (from the tile sizes)")
    ax.set_ylabel("GFLOP/s")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, loc="lower right")
    ax.set_title("Roofline, SGEMM %s: %s" % (size, dev.title), fontsize=9)
    save(fig, dev, "ch05_roofline.png")


def ch06(dev):
    rows = dev.chapter("06_subgroup_builtin")
    if not rows:
        return ""
    reduce6 = {}
    for typ, group in ch04_groups(dev).items():
        if "reduce6" in group:
            reduce6[typ] = group["reduce6"]
    body = []
    for r in rows:
        name, _, rest = r["variant"].partition("/")
        typ = rest.split("/")[-1] if rest else ""
        ref = reduce6.get(typ) if rest.startswith("sum/") else None
        ratio = ""
        if ref and r["value"] and ref["value"] and ref["size"] == r["size"]:
            ratio = "%.2f" % (r["value"] / ref["value"])
        e2e, e2e_gbps = ch04_e2e(r)  # the same columns as chapter 04
        body.append(["`%s`" % r["variant"], r["size"], fmt(r["time"], 4), fmt(r["value"]),
                     fmt(e2e, 4), fmt(e2e_gbps), ratio, r["check"]])
    out = [table(["variant", "n", "kernel time (ms)", "kernel GB/s", "end-to-end time (ms)",
                  "end-to-end GB/s", "kernel GB/s vs ch04 reduce6 (same n, its own run)", "check"], body)]
    if any(r["value"] for r in rows):
        out.append("![Sub-group variants](results/%s/ch06_variants.png)" % dev.folder)
    caps = output_excerpt(dev.outputs.get("06_subgroup_builtin", ""), "What the device reports", 2)
    if caps:
        out.append("<details><summary>What the device reports, and the variants it enables"
                   "</summary>\n\n" + code_block(caps) + "\n\n</details>")
    return "\n\n".join(out)


def ch06_plot(dev, plt):
    rows = [r for r in dev.chapter("06_subgroup_builtin") if r["value"]]
    if not rows:
        return
    labels = ["%s\nn=%s" % (r["variant"], r["size"]) for r in rows]
    kernel = [r["value"] for r in rows]
    e2e = [ch04_e2e(r)[1] or 0.0 for r in rows]
    ref = ch04_groups(dev).get("float", {}).get("reduce6")
    fig, ax = plt.subplots(figsize=(9, 4.8))
    xs = range(len(rows))
    ax.bar([x - 0.2 for x in xs], kernel, width=0.4, color="tab:purple", label="kernel time")
    if any(e2e):
        ax.bar([x + 0.2 for x in xs], e2e, width=0.4, color="tab:orange",
               label="end-to-end time (first enqueue to the result on the host)")
    ax.set_xticks(list(xs), labels, rotation=30, ha="right", fontsize=7)
    if ref and ref["value"]:
        ax.axhline(ref["value"], linestyle="--", color="tab:blue",
                   label="ch04 reduce6/float %s GB/s (n = %s)" % (fmt(ref["value"]), ref["size"]))
    ax.legend(fontsize=8)
    ax.set_ylabel("GB/s of input")
    ax.set_title("Reductions with built-ins: %s" % dev.title, fontsize=9)
    save(fig, dev, "ch06_variants.png")


# ---- The optimisation checklist: each tip with the measurement that shows it --------------

def find(dev, chapter, variant, size=None):
    """The last row of chapter/variant (at `size` if given), or None."""
    rows = [r for r in dev.chapter(chapter) if r["variant"] == variant and
            (size is None or r["size"] == size)]
    return rows[-1] if rows else None


def step(dev, chapter, a, b, unit):
    """'a X -> b Y unit (xR)' from two rows' figures, or None."""
    ra, rb = find(dev, chapter, a), find(dev, chapter, b)
    if not ra or not rb or not ra["value"] or not rb["value"]:
        return None
    return "`%s` %s → `%s` %s %s (×%s)" % (a.split("/")[0], fmt(ra["value"]), b.split("/")[0],
                                           fmt(rb["value"]), unit, fmt(rb["value"] / ra["value"]))


def largest_matmul(dev, a, b):
    sizes = list(ch05_sizes(dev).items())
    if not sizes:
        return None
    size, rows = sizes[-1]
    ra, rb = rows.get(a), rows.get(b)
    if not ra or not rb or not ra["value"] or not rb["value"]:
        return None
    return "%s: `%s` %s → `%s` %s GFLOP/s (×%s)" % (size, a, fmt(ra["value"]), b,
                                                    fmt(rb["value"]), fmt(rb["value"] / ra["value"]))


def transfer_sizes(dev):
    rows = sorted((int(r["size"]), r) for r in dev.chapter("02_buffers_mapping")
                  if r["variant"] == "write_blocking" and r["value"])
    if len(rows) < 2:
        return None
    (s0, r0), (s1, r1) = rows[0], rows[-1]
    return "`write_blocking` %s: %s → %s: %s GB/s" % (human_bytes(s0), fmt(r0["value"]),
                                                     human_bytes(s1), fmt(r1["value"]))


def overlap(dev):
    serial = find(dev, "03_events_profiling", "overlap_serial")
    piped = find(dev, "03_events_profiling", "overlap_pipelined")
    if not serial or not piped or not serial["time"] or not piped["time"]:
        return None
    return "serial %s ms → pipelined %s ms (×%s)" % (fmt(serial["time"]), fmt(piped["time"]),
                                                     fmt(serial["time"] / piped["time"]))


def latency(dev):
    r = find(dev, "03_events_profiling", "launch_latency")
    rt = find(dev, "03_events_profiling", "launch_roundtrip")
    if not r or not r["value"]:
        return None
    text = "%s µs queued→start" % fmt(r["value"])
    if rt and rt["value"]:
        text += ", %s µs enqueue+finish" % fmt(rt["value"])
    return text


def collectives(dev):
    """local_tree against the fastest variant that replaces its tree with a sub-group or
    work-group exchange (built-in, or NVIDIA's warp shuffles), at the largest size measured."""
    trees = [r for r in dev.chapter("06_subgroup_builtin")
             if r["variant"] == "local_tree/sum/float" and r["value"]]
    if not trees:
        return None
    base = max(trees, key=lambda r: int(r["size"]))
    names = ("work_group_reduce", "sub_group_reduce", "intel_sub_group", "nv_warp_shuffle")
    rivals = [r for r in dev.chapter("06_subgroup_builtin")
              if r["variant"] in ["%s/sum/float" % n for n in names] and r["value"] and
              r["size"] == base["size"]]
    if not rivals:
        return "no collectives on this device (those variants SKIP): `local_tree` %s GB/s" % fmt(
            base["value"])
    top = max(rivals, key=lambda r: r["value"])
    name = top["variant"].split("/")[0]
    note = " (inline PTX shuffles: no built-in collectives here)" if name == "nv_warp_shuffle" else ""
    return "`local_tree` %s → `%s` %s GB/s (×%s)%s" % (
        fmt(base["value"]), name, fmt(top["value"]), fmt(top["value"] / base["value"]), note)


R = "04_reduction_naive_to_cascade"


def reduction_step(tip, a, b):
    """A checklist row: chapter 04's step from kernel a to kernel b, in GB/s."""
    where = "[04](04_reduction_naive_to_cascade.md) `%s` → `%s`" % (a, b)
    return (tip, where, lambda d: step(d, R, a + "/float", b + "/float", "GB/s"))


def matmul_step(tip, a, b):
    """A checklist row: chapter 05's step from kernel a to kernel b, at the largest size."""
    where = "[05](05_matmul_tiled_vector.md) `%s` → `%s`" % (a, b)
    return (tip, where, lambda d: largest_matmul(d, a, b))


CHECKLIST = [
    ("Fewer and larger transfers", "[02](02_buffers_mapping.md) bandwidth sweep", transfer_sizes),
    ("Overlap transfers with computation", "[03](03_events_profiling.md) `overlap`", overlap),
    ("Launch fewer, larger kernels (launch latency)", "[03](03_events_profiling.md) "
     "`launch_latency`", latency),
    ("Coalesced global memory access", "[04](04_reduction_naive_to_cascade.md) `stream_read` "
     "vs `strided_read`", lambda d: step(d, R, "strided_read/float", "stream_read/float", "GB/s")),
    reduction_step("Avoid divergence", "reduce0", "reduce1"),
    reduction_step("Avoid local-memory bank conflicts", "reduce1", "reduce2"),
    reduction_step("Do more work per work-item (first add during the load)", "reduce2", "reduce3"),
    reduction_step("Unroll the last tree steps", "reduce3", "reduce4"),
    reduction_step("Unroll loops (compile-time sizes)", "reduce4", "reduce5"),
    reduction_step("Algorithm cascading", "reduce5", "reduce6"),
    reduction_step("One launch instead of two (atomic ticket)", "reduce6", "reduce7"),
    ("Built-in collectives instead of local-memory trees", "[06](06_subgroup_builtin.md)",
     collectives),
    matmul_step("Local memory for data reuse (tiling)", "naive", "tiled"),
    matmul_step("Vector loads and arithmetic", "more_work", "vector"),
    matmul_step("Register blocking", "vector", "reg2d"),
    matmul_step("Prefetch the next tile (double buffering)", "reg2d", "double_buffer"),
]


def checklist(devices):
    header = ["tip", "where"] + ["%s (%s)" % (d.meta.get("device", d.folder),
                                              d.meta.get("date", "?")) for d in devices]
    body = []
    for tip, where, evidence in CHECKLIST:
        body.append([tip, where] + [evidence(d) or "not measured" for d in devices])
    return table(header, body)


# ---- The README's headline table -------------------------------------------------------------

def headline(devices):
    """One row per device: the figures each chapter is measured against. The reduction comes
    from chapter 04's sweep at its largest n, the best of interleaved rounds (so a machine that
    speeds up during the run does not favour whichever variant ran last), with the reference
    measured the same way in the same run."""
    def cell(value, unit, ref=None, ref_name=None):
        if value is None:
            return "–"
        text = "%s %s" % (fmt(value), unit)
        if ref:
            text += " (%s: %s)" % (ref_name, fmt(ref))
        return text

    body = []
    for d in devices:
        points, cub = ch04_sweep(d)
        reduction = "–"
        if points.get("reduce6") and points.get("stream_read"):
            n = max(set(points["reduce6"]) & set(points["stream_read"]))
            gbs = lambda name: (4 * n / (points[name][n]["kernel"] * 1e6)  # noqa: E731
                                if n in points.get(name, {}) else None)
            reduction = "n = 2^%d: `reduce6` %s GB/s, `reduce7` %s (`stream_read` %s)" % (
                n.bit_length() - 1, fmt(gbs("reduce6")), fmt(gbs("reduce7")),
                fmt(gbs("stream_read")))
            if n in cub and n in points.get("reduce7", {}):
                reduction += "; end to end `reduce7` %s µs, torch.sum (CUB) %s µs" % (
                    fmt(points["reduce7"][n]["e2e"] * 1e3), fmt(cub[n] * 1e3))
        sizes = list(ch05_sizes(d).items())
        sgemm = "–"
        if sizes:
            size, rows = max(sizes, key=lambda item: [int(v) for v in item[0].split("x")])
            steps = [rows[s] for s in matmul_steps(rows) if rows[s]["value"]]
            best = max(steps, key=lambda r: r["value"]) if steps else None
            if best:
                sgemm = "%s: `%s` %s GFLOP/s" % (size, best["variant"], fmt(best["value"]))
                refs = ["%s %s" % (name, fmt(rows[key]["value"]))
                        for key, name in (("cublas", "cuBLAS"), ("clblast", "CLBlast"),
                                          ("openblas", "OpenBLAS"))
                        if rows.get(key) and rows[key]["value"] and not host_blas_on_gpu(d, key)]
                if refs:
                    sgemm += " (%s)" % ", ".join(refs)
        lat = find(d, "03_events_profiling", "launch_latency")
        body.append([
            "%s, %s (driver %s, %s%s)" % (d.meta.get("device", d.folder),
                                           d.meta.get("platform", "?"), d.meta.get("driver", "?"),
                                           d.meta.get("date", "?"),
                                           "; `%s`" % d.meta["environment"]
                                           if d.meta.get("environment") else ""),
            reduction, sgemm,
            cell(lat["value"] if lat else None, "µs", d.clpeak.get("latency"), "clpeak"),
        ])
    return table(["device", "reduction, float, kernel time (best of interleaved rounds)",
                  "SGEMM, best step (same-run references)", "launch latency"], body)


CHAPTERS = {
    "01_platform_query": (ch01, None),
    "02_buffers_mapping": (ch02, ch02_plot),
    "03_events_profiling": (ch03, ch03_plot),
    "04_reduction_naive_to_cascade": (ch04, ch04_plot),
    "05_matmul_tiled_vector": (ch05, ch05_plot),
    "06_subgroup_builtin": (ch06, ch06_plot),
}


# ---- The docs pages ---------------------------------------------------------------------------

def block_for(chapter, devices):
    parts = ["<!-- Generated by docs/results/render.py from docs/results/*/: do not edit. -->"]
    if chapter == "headline":
        parts.append(headline(devices) if devices else
                     "*No results collected yet: run `docs/results/collect.sh`.*")
        return "\n\n".join(parts)
    if chapter == "optimization_checklist":
        parts.append(checklist(devices) if devices else
                     "*No results collected yet: run `docs/results/collect.sh`.*")
        return "\n\n".join(parts)
    for dev in devices:
        body = CHAPTERS[chapter][0](dev)
        if body:
            # The environment the programs ran with (POCL_AFFINITY=1 on the PoCL CPU) changes
            # the figures: a reader repeating a run needs it.
            environment = dev.meta.get("environment")
            parts.append("#### %s (%s)\n\n*%s; %s; %s%s.*\n\n%s" % (
                dev.meta.get("device", dev.folder), dev.meta.get("platform", "?"),
                "driver %s" % dev.meta.get("driver", "?"),
                "measured %s" % dev.meta.get("date", "?"),
                dev.meta.get("host", ""),
                "; run with `%s`" % environment if environment else "", body))
    if len(parts) == 1:
        parts.append("*No results collected yet: run `docs/results/collect.sh`.*")
    return "\n\n".join(parts)


def update_page(path, chapter, devices, check):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    start = "<!-- results:%s -->" % chapter
    end = "<!-- /results:%s -->" % chapter
    if start not in text:
        return True
    head, _, rest = text.partition(start)
    tail = rest.partition(end)[2] if end in rest else rest
    new = head + start + "\n" + block_for(chapter, devices) + "\n" + end + tail
    if new == text:
        return True
    if check:
        print("render.py: %s is out of date with docs/results (run docs/results/render.py)"
              % os.path.relpath(path, os.path.dirname(DOCS)))
        return False
    with open(path, "w", encoding="utf-8") as f:
        f.write(new)
    print("updated %s" % os.path.relpath(path, os.path.dirname(DOCS)))
    return True


def all_result_dirs():
    return sorted(os.path.join(HERE, d) for d in os.listdir(HERE)
                  if os.path.exists(os.path.join(HERE, d, "results.csv")))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    parser.add_argument("dirs", nargs="*")
    parser.add_argument("--no-docs", action="store_true")
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()

    if not args.check:
        plt = pyplot()
        for path in args.dirs or all_result_dirs():
            dev = Device(path)
            for _, plot in CHAPTERS.values():
                if plot:
                    plot(dev, plt)
            print("plots in %s" % os.path.relpath(path))
    if args.no_docs:
        return 0
    devices = [Device(p) for p in all_result_dirs()]
    ok = True
    for chapter in CHAPTERS:
        page = os.path.join(DOCS, chapter + ".md")
        if os.path.exists(page):
            ok = update_page(page, chapter, devices, args.check) and ok
    page = os.path.join(DOCS, "optimization_checklist.md")
    if os.path.exists(page):
        ok = update_page(page, "optimization_checklist", devices, args.check) and ok
    readme = os.path.join(os.path.dirname(DOCS), "README.md")
    if os.path.exists(readme):
        ok = update_page(readme, "headline", devices, args.check) and ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
