#!/usr/bin/python3
"""book_charts.py: the appendices' charts, drawn as SVG from the files their tables come from.

    book_charts.py targets   RESULTS.inc  OUT.svg   each measurement against its target
    book_charts.py step_cost RESULTS.inc  OUT.svg   what a step costs, layer by layer and
                                                    by hand against through the stack
    book_charts.py campaigns CRASH.txt FAULT.txt OUT.svg
                                                    what each campaign did: its kills and
                                                    faults, and what came of them

RESULTS.inc is the performance appendix's table, written by tools/run_benchmarks.sh from one
benchmark run (chapters/appendix_performance/results.inc); CRASH.txt and FAULT.txt are the
campaigns' printed reports (chapters/appendix_campaigns/). The book's build draws the charts
from those files (chapters/appendix_performance/BUILD, chapters/appendix_campaigns/BUILD), so
a chart can never disagree with the table beside it.

The SVG is written by hand, with no plotting library: bars, text and lines, at most 800 px
wide (the book's column is 876 px) and with 12 px text, so the browser shows it at its own
size. Exit status: 0 when written; 1 when the input holds nothing to draw; 2 for a usage error.
"""

import html
import re
import sys

WIDTH = 800
FONT = 'font-family="DejaVu Sans, Helvetica, sans-serif"'
MET, NOT_MET, PLAIN, LIGHT = "#4e8f4e", "#c0504d", "#5577aa", "#a9bcdc"


class Svg:
    """An SVG picture built element by element, top to bottom."""

    def __init__(self):
        self.parts = []
        self.height = 0

    def text(self, x, y, words, size=12, anchor="start", weight="normal", fill="#222"):
        self.parts.append('<text x="%.1f" y="%.1f" font-size="%d" text-anchor="%s" '
                          'font-weight="%s" fill="%s" %s>%s</text>'
                          % (x, y, size, anchor, weight, fill, FONT, html.escape(words)))

    def rect(self, x, y, w, h, fill):
        self.parts.append('<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"/>'
                          % (x, y, max(w, 0.5), h, fill))

    def line(self, x1, y1, x2, y2, stroke="#888", dash=""):
        self.parts.append('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s"%s/>'
                          % (x1, y1, x2, y2, stroke,
                             ' stroke-dasharray="%s"' % dash if dash else ""))

    def write(self, path):
        with open(path, "w", encoding="utf-8") as f:
            f.write('<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
                    'viewBox="0 0 %d %d">\n' % (WIDTH, self.height, WIDTH, self.height))
            f.write('<rect x="0" y="0" width="%d" height="%d" fill="white"/>\n'
                    % (WIDTH, self.height))
            f.write("\n".join(self.parts) + "\n</svg>\n")


def number(text):
    m = re.search(r"-?\d+(\.\d+)?", text)
    return float(m.group(0)) if m else None


def table_rows(path):
    """The rows of the results table: item, measurement, measured, target, met."""
    rows = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) == 5 and cells[0].isdigit():
                rows.append(cells)
    return rows


def short_name(measurement):
    """A row's benchmark name (`BM_StackOverhead`), else the start of its text."""
    m = re.search(r"`(BM_[^`]+)`", measurement)
    return m.group(1)[len("BM_"):] if m else measurement[:30]


def targets(results, out):
    """Each measurement with a target, as a bar: how far it is from the target (1)."""
    bars, zero = [], []
    for item, measurement, measured, target, met in table_rows(results):
        value, goal = number(measured), number(target)
        if goal == 0 and value is not None:
            where = "bare" if "bare" in measurement else "stack" if "stack" in measurement else ""
            zero.append("%s (%s) %s" % (short_name(measurement), where, measured))
        if value is None or goal is None or goal <= 0 or "reported" in target:
            continue
        at_least = target.startswith("at least")
        ratio = goal / value if at_least else value / goal
        label = "%s. %s" % (item, short_name(measurement))
        if "allocations" in measurement:
            label += " (allocs)"
        bars.append((label, ratio, "%s (target %s)" % (measured, target), "yes" in met))
    if not bars:
        return 1
    svg = Svg()
    svg.text(10, 20, "Each measurement against its target (1 = the target; a bar past it "
             "misses)", size=13, weight="bold")
    left, right, top, row = 250, WIDTH - 20, 50, 22
    top_ratio = max(2.0, max(r for _, r, _, _ in bars) * 1.05)
    scale = (right - left) / top_ratio
    for tick in range(0, int(top_ratio) + 1):
        x = left + tick * scale
        svg.line(x, top - 8, x, top + row * len(bars), stroke="#ddd")
        svg.text(x, top - 12, "%dx" % tick if tick else "0", size=11, anchor="middle")
    svg.line(left + scale, top - 8, left + scale, top + row * len(bars) + 4, stroke="#222",
             dash="4,3")  # The target, under the bars.
    for i, (label, ratio, detail, met) in enumerate(bars):
        y = top + i * row
        svg.text(left - 8, y + 14, label, size=12, anchor="end")
        svg.rect(left, y + 3, ratio * scale, row - 8, MET if met else NOT_MET)
        # The figures right of the bar and of the target's line, or inside a long bar.
        inside = ratio * scale > 330
        x = left + ratio * scale - 6 if inside else left + max(ratio, 1.0) * scale + 6
        svg.text(x, y + 14, detail, size=11, anchor="end" if inside else "start",
                 fill="white" if inside else "#222")
    y = top + row * len(bars) + 24
    svg.rect(left, y - 10, 12, 12, MET)
    svg.text(left + 18, y, "target met", size=12)
    svg.rect(left + 120, y - 10, 12, 12, NOT_MET)
    svg.text(left + 138, y, "target missed", size=12)
    svg.text(10, y + 22, "An \"at most\" target: measured / target. The one \"at least\" target "
             "(GemmFractionOfPeak): target / measured.", size=11, fill="#555")
    svg.text(10, y + 38, "Not drawn, in the table: the rows only reported, and those whose "
             "target is 0 (heap allocations per step):", size=11, fill="#555")
    svg.text(10, y + 54, ", ".join(zero), size=11, fill="#555")
    svg.height = y + 66
    svg.write(out)
    return 0


STEP_BULLET = re.compile(r"`BM_(\w+/\d+)`: ([\d.]+) us through the stack, ([\d.]+) us by hand; "
                         r"(\d+) ops per step, ([\d.]+) us added per op")


def step_cost(results, out):
    """Two panels: the microseconds each layer adds to a step, and each training step by
    hand against through the stack, with its number of ops."""
    layers, steps = [], []
    with open(results, encoding="utf-8") as f:
        text = f.read()
    for item, measurement, measured, target, met in table_rows(results):
        if item in ("1", "2", "3") and measured.endswith(" us"):
            layers.append((short_name(measurement), number(measured), measurement))
    for m in STEP_BULLET.finditer(text):
        steps.append((m.group(1), float(m.group(2)), float(m.group(3)), int(m.group(4)),
                      float(m.group(5))))
    if not layers or not steps:
        return 1
    svg = Svg()
    svg.text(10, 20, "What a step costs above its ops, in microseconds", size=13, weight="bold")
    left, right, row, top = 250, WIDTH - 170, 22, 44
    most = max(v for _, v, _ in layers)
    for i, (name, value, _) in enumerate(layers):
        y = top + i * row
        svg.text(left - 8, y + 14, name, anchor="end")
        svg.rect(left, y + 3, value / most * (right - left), row - 8, PLAIN)
        svg.text(left + value / most * (right - left) + 6, y + 14, "%.3f us" % value, size=11)
    y = top + len(layers) * row + 6
    svg.text(10, y + 4, "StackOverhead: the whole stack with its default hooks, per step; "
             "Layer*: each layer alone; ExecutorPerNode: per op.", size=11, fill="#555")
    y += 36
    svg.text(10, y, "A training step by hand (Eigen) and through the stack, with its ops "
             "(each row to its own scale)", size=13, weight="bold")
    y += 14
    for name, stack, hand, ops, per_op in steps:
        svg.text(left - 8, y + 14, "%s, %d ops" % (name, ops), anchor="end")
        svg.rect(left, y + 3, hand / stack * (right - left), 8, LIGHT)
        svg.rect(left, y + 12, right - left, 8, PLAIN)
        svg.text(right + 6, y + 14, "%.1f -> %.1f us" % (hand, stack), size=11)
        svg.text(right + 6, y + 27, "+%.3f us per op" % per_op, size=11, fill="#555")
        y += 34
    svg.rect(left, y, 12, 10, LIGHT)
    svg.text(left + 18, y + 10, "by hand", size=12)
    svg.rect(left + 100, y, 12, 10, PLAIN)
    svg.text(left + 118, y + 10, "through the stack", size=12)
    svg.height = y + 24
    svg.write(out)
    return 0


def crash_runs(path):
    runs, summary = [], {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = re.match(r"run (\d+): (\d+) processes, (\d+) killed \((\d+) during a save\).*"
                         r"bit-equal to the reference: (\w+)", line)
            if m:
                runs.append((int(m.group(3)), int(m.group(4)), m.group(5) == "yes"))
            elif ":" in line:
                key, value = line.split(":", 1)
                summary[key.strip()] = value.strip()
    return runs, summary


def fault_phases(path):
    phases, summary = [], {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = re.match(r"\s+(.+?)\s+(\d+) of\s+(\d+) calls \(([^)]*)\)", line)
            if m:
                codes = dict((c.split()[0], int(c.split()[1])) for c in m.group(4).split(", "))
                phases.append((m.group(1), int(m.group(2)), int(m.group(3)), codes))
            elif ":" in line and not line.startswith(" "):
                key, value = line.split(":", 1)
                summary[key.strip()] = value.strip()
    return phases, summary


def campaigns(crash, fault, out):
    """The crash campaign's kills run by run, the fault campaign's faults phase by phase,
    each with what came of them."""
    runs, crashed = crash_runs(crash)
    phases, faulted = fault_phases(fault)
    if not runs or not phases:
        return 1
    svg = Svg()
    svg.text(10, 20, "Crash campaign: SIGKILLs into training processes, kills per run",
             size=13, weight="bold")
    left, right, base = 50, WIDTH - 20, 150
    most = max(k for k, _, _ in runs)
    unit = (base - 40) / most
    width = (right - left) / len(runs)
    for tick in range(0, most + 1, 2):
        svg.line(left, base - tick * unit, right, base - tick * unit, stroke="#eee")
        svg.text(left - 6, base - tick * unit + 4, str(tick), size=10, anchor="end")
    for i, (kills, in_save, equal) in enumerate(runs):
        x = left + i * width
        svg.rect(x + 1, base - kills * unit, width - 2, (kills - in_save) * unit, LIGHT)
        svg.rect(x + 1, base - in_save * unit, width - 2, in_save * unit, PLAIN)
        if not equal:
            svg.text(x + width / 2, base + 12, "x", size=10, anchor="middle", fill=NOT_MET)
    svg.line(left, base, right, base, stroke="#222")
    svg.text(left, base + 16, "run 1", size=10)
    svg.text(right, base + 16, "run %d" % len(runs), size=10, anchor="end")
    y = base + 34
    svg.rect(left, y - 10, 12, 10, PLAIN)
    svg.text(left + 18, y, "killed during a checkpoint save", size=12)
    svg.rect(left + 260, y - 10, 12, 10, LIGHT)
    svg.text(left + 278, y, "killed at another moment", size=12)
    y += 22
    for key in ("kills", "final model equal to the uninterrupted run's, bit for bit",
                "corrupt checkpoints", "data lost"):
        if key in crashed:
            svg.text(left, y, "%s: %s" % (key, crashed[key]), size=12, fill=MET
                     if key != "kills" else "#222")
            y += 18
    y += 20
    svg.text(10, y, "Fault campaign: errors injected at each phase of the stack",
             size=13, weight="bold")
    y += 12
    label_right, bar_left, bar_right = 250, 258, WIDTH - 150
    most = max(n for _, n, _, _ in phases)
    for name, count, calls, codes in phases:
        aborted = codes.get("ABORTED", 0)
        svg.text(label_right, y + 14, name, anchor="end")
        scale = (bar_right - bar_left) / most
        svg.rect(bar_left, y + 4, aborted * scale, 13, PLAIN)
        svg.rect(bar_left + aborted * scale, y + 4, (count - aborted) * scale, 13, LIGHT)
        svg.text(bar_left + count * scale + 6, y + 15, "%d of %d calls" % (count, calls),
                 size=11)
        y += 22
    y += 14
    svg.rect(bar_left, y - 10, 12, 10, PLAIN)
    svg.text(bar_left + 18, y, "AbortedError", size=12)
    svg.rect(bar_left + 140, y - 10, 12, 10, LIGHT)
    svg.text(bar_left + 158, y, "UnavailableError", size=12)
    y += 22
    for key in ("final step", "train steps executed", "final model equal to the fault-free "
                "run's, bit for bit"):
        if key in faulted:
            svg.text(left, y, "%s: %s" % (key, faulted[key]), size=12,
                     fill=MET if "equal" in key else "#222")
            y += 18
    svg.height = y + 6
    svg.write(out)
    return 0


def main(argv):
    commands = {"targets": (targets, 2), "step_cost": (step_cost, 2),
                "campaigns": (campaigns, 3)}
    if len(argv) < 2 or argv[1] not in commands or len(argv) != commands[argv[1]][1] + 2:
        print(__doc__, file=sys.stderr)
        return 2
    function, _ = commands[argv[1]]
    status = function(*argv[2:])
    if status:
        print("book_charts.py: nothing to draw in %s" % " ".join(argv[2:-1]), file=sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv))
