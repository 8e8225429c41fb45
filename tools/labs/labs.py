"""What grade.py, labs_test.py and ladder_test.py share: the lab table, running one test
group, and the rule that turns the groups' results into each lab's score.

A group is one gtest binary and a gtest filter. Its cases are those the binary lists under
the filter; a case passes when the binary's XML report says it ran without a failure. A
case the report does not mention (the binary crashed, hung past the timeout or aborted on
an uncaught exception) counts as failed, so a starter that kills its test binary still
scores 0 for that group, never an error of the grader.

The scoring rule (SCORING_RULE below, printed by `tools/grade.sh --help` and stated on each
lab page) is applied by grade_labs(), once, for the grader and for the ladder test alike.
"""

import ast
import html
import os
import signal
import subprocess
import tempfile
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
TIMEOUT_SECS = 300  # One group's run; a layer that hangs a test is cut off here.
# What the preloaded crash reporter (crash_report.cc) prints on a fault; run_group reads it.
CRASH_REPORT_PREFIX = "[mts-grade] "

SCORING_RULE = """\
How a lab is scored. Each group of tests scores its points when every one of its cases
passes, else 0. A group *needs* the labs whose code its test links (labs.bzl, checked
against the build graph). A lab's *own* groups need no lab after it; a lab is *written*
when all of its own groups pass. A group that needs a later lab *waits* until every later
lab it needs is written: it is shown as "waits for lab K" and is left out of both the score
and the maximum. Once those labs are written it counts, and it passes then, because each of
its cases is also a case of the own groups of the last lab it needs (ladder_test checks
this). So a lab's score depends only on its code and the labs before it; a later lab can
add points to it (its waiting groups), never take any away."""


def load_labs(path=os.path.join(HERE, "labs.bzl")):
    """LABS from labs.bzl, read as a Python literal."""
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), path)
    for node in tree.body:
        if isinstance(node, ast.Assign) and [t.id for t in node.targets] == ["LABS"]:
            return ast.literal_eval(node.value)
    raise ValueError("%s has no LABS" % path)


def binary_path(label):
    """//tests/03_hooked:hooked_session_test -> tests/03_hooked/hooked_session_test."""
    package, name = label[2:].split(":")
    return os.path.join(package, name)


def library_starter_path(label):
    """//src/03_hooked:hooked_session -> src/03_hooked/libhooked_session_lab_starter.so."""
    package, name = label[2:].split(":")
    return os.path.join(package, "lib%s_lab_starter.so" % name)


def reproduce_command(group, case=None, define=None, config=None):
    """The command that runs the group (or one case of it) as the student would; `config`
    "tsan" for a failure seen under ThreadSanitizer."""
    command = "bazel test %s" % group["test"]
    if config:
        command += " --config=" + config
    if define:
        command += " --define=lab=" + define
    return command + " --test_filter=%s --test_output=errors" % (case or group["filter"])


# The lab table's order and the groups' needs.

def later_needs(lab, group, table):
    """The labs the group needs that come after `lab` in the book, in book order."""
    order = [l["name"] for l in table]
    after = order[order.index(lab["name"]) + 1:]
    return [name for name in after if name in group["needs"]]


def own_groups(lab, table):
    """The lab's groups that need no lab after it."""
    return [g for g in lab["groups"] if not later_needs(lab, g, table)]


def prerequisites(lab, table):
    """The earlier labs its own groups need, in book order: the labs a student writes
    first."""
    needed = {n for g in own_groups(lab, table) for n in g["needs"]}
    return [l["name"] for l in table if l["name"] in needed and l["name"] != lab["name"]]


def waits_for(lab, table):
    """The later labs some of its groups wait for, in book order."""
    needed = {n for g in lab["groups"] for n in later_needs(lab, g, table)}
    return [l["name"] for l in table if l["name"] in needed]


class GroupResult:
    """The cases of one group: passed, failed (with each failure's message)."""

    def __init__(self, group):
        self.group = group
        self.passed = []
        self.failed = []
        self.messages = {}  # failed case -> its failure: the whole assertion, or the crash
        self.note = ""  # how the run ended when it did not end by itself, or "not built"
        self.config = None  # "tsan" when this is the ThreadSanitizer run's result

    @property
    def total(self):
        return len(self.passed) + len(self.failed)

    @property
    def ok(self):
        return self.total > 0 and not self.failed

    def score(self):
        """The group's points when every one of its cases passes, else 0 (as each test of
        xv6's `make grade`): a layer that is right most of the time is not done, and a
        starter whose untouched paths happen to pass a few cases scores nothing."""
        return self.group["points"] if self.ok else 0


class GroupGrade:
    """One row of a lab's scorecard: the group, and either its result or the later labs it
    waits for."""

    def __init__(self, group, result=None, waiting_for=()):
        self.group = group
        self.result = result  # None while waiting
        self.waiting_for = list(waiting_for)

    @property
    def waiting(self):
        return self.result is None

    def score(self):
        return 0 if self.waiting else self.result.score()


class LabGrade:
    """A lab's scorecard: its rows, whether it is written, its counted score and maximum."""

    def __init__(self, lab, rows, written, order):
        self.lab = lab
        self.rows = rows
        self.written = written
        self.order = order  # the labs' names in book order

    @property
    def score(self):
        return sum(r.score() for r in self.rows)

    @property
    def max_score(self):
        """The points of the groups that count now (the waiting ones do not)."""
        return sum(r.group["points"] for r in self.rows if not r.waiting)

    @property
    def waiting_points(self):
        return sum(r.group["points"] for r in self.rows if r.waiting)

    @property
    def full_points(self):
        return sum(g["points"] for g in self.lab["groups"])

    def waiting_for(self):
        """The later labs the waiting rows wait for, in book order."""
        waited = {name for row in self.rows for name in row.waiting_for}
        return [name for name in self.order if name in waited]


def required_labs(table, chosen):
    """The labs whose own groups grading `chosen` runs: the chosen labs, the labs they need
    (to say whether those are written) and the later labs their groups wait for."""
    required = set()
    for lab in chosen:
        required.add(lab["name"])
        required.update(prerequisites(lab, table))
        for group in lab["groups"]:
            required.update(later_needs(lab, group, table))
    return required


def grade_labs(table, chosen, run):
    """Applies the scoring rule: (a LabGrade per chosen lab, {lab name: written} for every
    lab whose own groups were run).

    `run(group)` returns the group's GroupResult (the caller may cache runs of the same test
    and filter). The own groups of the required labs (required_labs) are run first, in book
    order, to learn which labs are written; then each waiting group of a chosen lab runs
    only if every later lab it needs is written.
    """
    required = required_labs(table, chosen)
    own_results = {}
    written = {}
    for lab in table:
        if lab["name"] not in required:
            continue
        results = [run(g) for g in own_groups(lab, table)]
        for group, result in zip(own_groups(lab, table), results):
            own_results[id(group)] = result
        written[lab["name"]] = all(r.ok for r in results)
    grades = []
    for lab in chosen:
        rows = []
        for group in lab["groups"]:
            later = later_needs(lab, group, table)
            if not later:
                rows.append(GroupGrade(group, own_results[id(group)]))
                continue
            unwritten = [name for name in later if not written.get(name)]
            rows.append(GroupGrade(group, None if unwritten else run(group), unwritten))
        grades.append(LabGrade(lab, rows, written[lab["name"]], [l["name"] for l in table]))
    return grades, written


# The stack the labs build, drawn once and printed twice: the book's "What you will build"
# page draws it (stack_dot, a graphviz figure made during the book's build) and shows it as
# tools/grade.sh prints it at the end of a scorecard, where each lab carries the student's
# progress (stack_lines). Both read the rows below, so the picture and the printout cannot
# disagree. Top down, as a call to Run passes through the layers: each row is a lab, the
# layer it writes and what that layer does there; `beside` is the layer a row sits next to
# rather than under (the figure draws it on the same level). table_test checks that every
# lab of labs.bzl has its row, once.
STACK_PAGE = "chapters/00_introduction/what_you_will_build.md"
STACK_TOP = "your training loop: while (!session.ShouldStop()) session.Run(...)"
STACK = [
    {"lab": "06_monitored", "layer": "MonitoredSession",
     "does": "assembles the stack, closes it in order"},
    {"lab": "05_recoverable", "layer": "RecoverableSession",
     "does": "rebuilds the stack after a preemption"},
    {"lab": "04_coordinated", "layer": "CoordinatedSession",
     "does": "Coordinator, QueueRunner threads"},
    {"lab": "03_hooked", "layer": "HookedSession",
     "does": "the hooks around every Run"},
    {"lab": "02_chief_worker", "layer": "Chief / Worker",
     "does": "SessionManager, Saver: a ready model"},
    {"lab": "01_session", "layer": "Session",
     "does": "the plan and the executor: Run"},
    {"lab": "01_learning", "layer": "Gradients", "beside": "01_session",
     "does": "beside the Session: ops that learn"},
    {"lab": "07_distributed", "layer": "VariableStore",
     "does": "the Session over gRPC: a ps's variables"},
]
STACK_LEGEND = [
    "[x] written: its own groups pass   [ ] not yet written   [-] not graded this time",
    "a score counts the groups that count now; the others wait for a later lab",
]


def stack_rows(table):
    """The rows of STACK for the labs of `table`, top down. A lab of the table that STACK
    does not place (a table of fixtures, in the tests) goes on top, in reverse book order,
    drawn with its title."""
    names = {lab["name"] for lab in table}
    placed = [row for row in STACK if row["lab"] in names]
    known = {row["lab"] for row in placed}
    extra = [{"lab": lab["name"], "layer": lab["name"], "does": lab["title"]}
             for lab in reversed(table) if lab["name"] not in known]
    return extra + placed


def stack_lines(table, written, grades=None):
    """The stack as tools/grade.sh prints it at the end of a scorecard: a heading, the
    training loop on top, one line per lab with its layer, what the layer does, and the
    student's progress (written or not, and the lab's score when it was graded: the
    points of the groups that count now), then the legend. `written` maps the labs graded
    in this run to whether they are written; `grades` are the LabGrades of this run."""
    by_name = {g.lab["name"]: g for g in (grades or [])}
    lines = ["== the stack you are building, top down (%s)" % STACK_PAGE,
             "      " + STACK_TOP]
    for row in stack_rows(table):
        name = row["lab"]
        mark = "[-]" if name not in written else "[x]" if written[name] else "[ ]"
        grade = by_name.get(name)
        score = "%d/%d" % (grade.score, grade.max_score) if grade else ""
        does = row["does"] if len(row["does"]) <= 40 else row["does"][:37] + "..."
        lines.append(("  %s %-16s %-18s %-40s %s" % (mark, name, row["layer"][:18], does,
                                                    score)).rstrip())
    lines += ["  " + line for line in STACK_LEGEND]
    return lines


def _wrapped(text, width):
    """The text as lines of at most `width` characters, broken at spaces."""
    lines = [""]
    for word in text.split():
        if lines[-1] and len(lines[-1]) + 1 + len(word) > width:
            lines.append(word)
        else:
            lines[-1] = (lines[-1] + " " + word).strip()
    return lines


def stack_dot(table):
    """The stack as a graphviz figure, for the book: the same rows as stack_lines, each lab
    a box with its layer, what the layer does and what the lab has the student write (its
    title in labs.bzl). It stays under 7.2 inches wide (the book's text column is about 800
    pixels), so the browser never shrinks its text."""
    titles = {lab["name"]: lab["title"] for lab in table}
    rows = stack_rows(table)
    side = {row["lab"] for row in rows if row.get("beside")}
    out = [
        "digraph what_you_will_build {",
        '  graph [rankdir=TB, nodesep=0.3, ranksep=0.22, fontname="Helvetica"];',
        '  node [shape=box, style="rounded,filled", fillcolor="#eef3fb", color="#5577aa",',
        '        fontname="Helvetica", fontsize=11, width=4.4, margin="0.12,0.06"];',
        '  edge [color="#5577aa", arrowsize=0.7];',
        '  loop [label=<%s>, fillcolor="#ffffff", style="rounded,dashed"];'
        % html.escape(STACK_TOP, quote=False),
    ]
    for row in rows:
        name = row["lab"]
        width = 34 if name in side else 60
        write = _wrapped("you write: " + titles.get(name, name), width)
        # The lab and its layer on lines of their own: set on one line, a bold name drawn
        # wider than graphviz measured it ran into the layer's name.
        label = "<B>lab %s</B><BR/>%s<BR/>%s<BR/><I>%s</I>" % (
            html.escape(name, quote=False), html.escape(row["layer"], quote=False),
            "<BR/>".join(html.escape(l, quote=False) for l in _wrapped(row["does"], width)),
            "<BR/>".join(html.escape(l, quote=False) for l in write))
        style = ', width=2.3, fillcolor="#f4f4f4", color="#888888"' if name in side else ""
        out.append('  "%s" [label=<%s>%s];' % (name, label, style))
    column = ["loop"] + [row["lab"] for row in rows if row["lab"] not in side]
    out.append("  " + " -> ".join('"%s"' % n for n in column) + ";")
    for row in rows:
        if row.get("beside"):
            out.append('  {rank=same; "%s"; "%s";}' % (row["beside"], row["lab"]))
            out.append('  "%s" -> "%s" [style=dashed, arrowhead=none];'
                       % (row["beside"], row["lab"]))
    out.append("}")
    return "\n".join(out) + "\n"


# Running one group.

def _list_cases(binary, gtest_filter, env):
    out = subprocess.run([binary, "--gtest_list_tests", "--gtest_filter=" + gtest_filter],
                         env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                         text=True, timeout=120, check=False).stdout
    cases, suite = [], None
    for line in out.splitlines():
        if not line.strip() or line.startswith("Running main()"):
            continue
        name = line.split("#")[0].strip()
        if not line.startswith(" "):
            suite = name
        elif suite is not None:
            cases.append(suite + name)
    return cases


def list_cases(binary, gtest_filter):
    """The cases the binary runs under the filter (ladder_test compares groups with it)."""
    return _list_cases(os.path.abspath(binary), gtest_filter, dict(os.environ))


def _run(binary, args, env, cwd, timeout):
    """Runs the binary in its own process group; (returncode or None on timeout, output)."""
    proc = subprocess.Popen([binary] + args, env=env, cwd=cwd, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, errors="replace",
                            start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=timeout)
        return proc.returncode, out
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
        return None, out


def _cases_from_console(out):
    """({case: None if it passed, else its failure text}, the case that was running when the
    output ends) from gtest's console output."""
    ran, running, failure = {}, None, []
    for line in out.splitlines():
        if line.startswith("[ RUN      ] "):
            running, failure = line[13:].strip(), []
        elif running and line.startswith(("[       OK ] ", "[  FAILED  ] ")):
            ran[running] = None if line.startswith("[       OK") else (
                "\n".join(failure).strip() or "failed")
            running = None
        elif running and not line.startswith(CRASH_REPORT_PREFIX):
            failure.append(line.rstrip())
    return ran, running


def _signal_name(number):
    try:
        return signal.Signals(number).name
    except ValueError:
        return "signal %d" % number


def _crash_note(code, out):
    """How a binary killed by a signal died, in a student's words: (a short note for the
    group's line, the whole explanation for the case)."""
    name = _signal_name(-code)
    reports = [l[len(CRASH_REPORT_PREFIX):].strip() for l in out.splitlines()
               if l.startswith(CRASH_REPORT_PREFIX)]
    if reports:
        short = "killed by %s%s" % (name, " (a stack overflow)"
                                    if reports[-1].startswith("a stack overflow") else "")
        return short, "killed by %s: %s" % (name, reports[-1])
    if -code == signal.SIGSEGV:
        return "killed by " + name, (
            "killed by %s: a bad memory access (a null, dangling or out-of-range pointer); if "
            "the case recurses deeply, it may be a stack overflow" % name)
    what = [l.strip() for l in out.splitlines() if l.strip().startswith("what():")]
    if -code == signal.SIGABRT and what:
        return "killed by " + name, "killed by %s: an exception escaped (%s)" % (name, what[-1])
    return "killed by " + name, "killed by " + name


def _cases_from_report(report):
    """{case: None if it passed, else the whole failure message} from gtest's XML report."""
    ran = {}
    try:
        for case in ET.parse(report).iter("testcase"):
            name = case.get("classname", "") + "." + case.get("name", "")
            failures = case.findall("failure") + case.findall("error")
            if failures:
                # Each failure is "file:line" then what went wrong (for an EXPECT_EQ, the
                # two expressions and their values): all of it, every failure of the case.
                ran[name] = "\n".join((f.get("message") or "failed").strip() for f in failures)
            elif case.get("result") == "skipped" or case.get("status") == "notrun":
                ran[name] = "skipped"
            else:
                ran[name] = None
    except ET.ParseError:
        pass
    return ran


# The first line of a ThreadSanitizer report, and how much of one a failure shows.
TSAN_REPORT = "WARNING: ThreadSanitizer:"
TSAN_REPORT_LINES = 16


def _sanitizer_reports(out):
    """[(the case running when it was printed, or None; its first lines)] for each
    ThreadSanitizer report in gtest's console output."""
    reports, running, lines = [], None, out.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("[ RUN      ] "):
            running = line[13:].strip()
        elif line.startswith(("[       OK ] ", "[  FAILED  ] ")):
            running = None
        elif TSAN_REPORT in line:
            # Each access (or location, mutex, thread) with the first two frames of its
            # stack, then the SUMMARY: the standard library's frames that follow say little.
            shown, frames = [line.strip()], 0
            for more in lines[i + 1:]:
                if more.startswith("==================") or more.startswith("[ "):
                    break
                stripped = more.strip()
                if stripped.startswith("#"):
                    frames += 1
                    if frames <= 2:
                        shown.append(more.rstrip())
                elif stripped.startswith("SUMMARY:"):
                    shown.append(stripped)
                elif stripped:
                    frames = 0
                    shown.append(more.rstrip())
            if len(shown) > TSAN_REPORT_LINES:
                shown = shown[:TSAN_REPORT_LINES - 1] + [l for l in shown if
                                                         l.startswith("SUMMARY:")][-1:]
            reports.append((running, shown))
    return reports


def run_group(group, binary, srcdir, preload=None, timeout=TIMEOUT_SECS, library_path=None,
              extra_env=None):
    """Runs one group's binary under its filter. `srcdir` is the runfiles root the test
    finds its data under (TEST_SRCDIR); `preload` a list of shared objects to load first;
    `library_path` a folder whose shared objects are loaded instead of the binary's own of
    the same name (fixtures_test puts a fixture's library there); `extra_env` variables to
    set (TSAN_OPTIONS).

    A ThreadSanitizer report fails the case that was running when it was printed (or, if
    none was, every case): a data race loses the group's points, whatever the asserts said.
    """
    result = GroupResult(group)
    binary = os.path.abspath(binary)
    srcdir = os.path.abspath(srcdir)
    # As under `bazel test`: the working directory is the workspace in the runfiles.
    cwd = os.path.join(srcdir, "mts") if os.path.isdir(os.path.join(srcdir, "mts")) else None
    with tempfile.TemporaryDirectory(prefix="lab_group_") as tmp:
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("GTEST_", "TEST_", "XML_OUTPUT_FILE", "LD_PRELOAD"))}
        env.update({"TEST_SRCDIR": srcdir, "TEST_WORKSPACE": "mts", "TEST_TMPDIR": tmp,
                    "HOME": tmp})
        if preload:
            env["LD_PRELOAD"] = ":".join(preload)
        env.update(extra_env or {})
        if library_path:
            env["LD_LIBRARY_PATH"] = ":".join(
                [library_path] + [p for p in [env.get("LD_LIBRARY_PATH")] if p])
        cases = _list_cases(binary, group["filter"], env)
        report = os.path.join(tmp, "report.xml")
        code, out = _run(binary, ["--gtest_filter=" + group["filter"],
                                  "--gtest_output=xml:" + report], env, cwd or tmp, timeout)
        ran = _cases_from_report(report) if os.path.exists(report) else {}
        dying = None
        if not ran and (code is None or code < 0 or TSAN_REPORT in out):
            # Died before writing its report (a crash, a hang, a starter's exception escaping
            # a thread): what the console says instead, and which case was running.
            ran, dying = _cases_from_console(out)
        detail = None
        if code is None:
            result.note = detail = "timed out after %d s" % timeout
        elif code < 0:
            result.note, detail = _crash_note(code, out)
        if dying and (code is None or code < 0):
            result.note = "%s in %s" % (result.note, dying)
            ran[dying] = "%s, in %s" % (detail, dying)
        last_line = next((l for l in reversed(out.splitlines()) if l.strip()), "")
        if code is not None and code > 0 and not ran and TSAN_REPORT not in out:
            result.note = "exited %d without a report: %s" % (code, last_line[-300:])
        for racing, report in _sanitizer_reports(out):
            where = [racing] if racing in cases else cases
            for case in where:
                if ran.get(case) is None or ran.get(case) == "skipped":
                    ran[case] = "\n".join(report)
            if not result.note.startswith("a data race"):
                result.note = "a data race (ThreadSanitizer)%s" % (
                    " in " + racing if racing in cases else "")
        for case in cases:
            if case in ran and ran[case] is None:
                result.passed.append(case)
            else:
                result.failed.append(case)
                if case in ran:
                    result.messages[case] = ran[case]
                elif dying:
                    result.messages[case] = "did not run: the binary died in " + dying
                else:
                    result.messages[case] = result.note or last_line
        if not cases:
            result.note = result.note or "no test case matched " + group["filter"]
    return result
