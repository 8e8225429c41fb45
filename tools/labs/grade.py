#!/usr/bin/python3
"""The labs' scorecard (run through tools/grade.sh from the top of the tree).

    tools/grade.sh [LAB...] [--starter] [--tsan] [--results_dir DIR]

Builds the graded tests with Bazel, runs every test group that counts, and prints, as xv6's
`make grade` does, one line per group and a score per lab, then the total and the stack
the labs build, as the book's "What you will build" page draws it, with each lab written or
not and its score (labs.stack_lines):

    == lab 03_hooked: HookedSession::Run (chapters/03_hooked/lab.md)
    needs: 01_session (written), 02_chief_worker (written)
    HookedSession::Run ........................... OK    15/15 cases   45/45
    ...
    layer 04: CoordinatedSession ................. waits for lab 04_coordinated   (15)
    lab 03_hooked: 70/70, written; 30 more points wait for labs 04_coordinated, ...

How the groups become a score: labs.SCORING_RULE (also in --help and on every lab page).

The grader never reports a result it did not see in this run. It asks Bazel for a build
event file (--build_event_json_file) and runs only the test binaries whose targets built in
this invocation, from the paths Bazel names there, never an older binary left in bazel-bin:
a group whose test did not build scores 0 and shows the compiler's first error. A case that
crashes is named, with the signal, and a preloaded reporter (crash_report.cc) tells a stack
overflow from a bad pointer. A failure is shown whole (for an EXPECT_EQ, both values) with
the `bazel test ... --test_filter=` command that runs that case alone.

Writes DIR/junit.xml (one testsuite per lab, one testcase per group; GitHub Classroom and
most CI read it) and DIR/results.json (Gradescope's autograder format: score, max_score
and one entry per group). DIR defaults to grade_results/ at the top of the tree; a relative
DIR is taken from the directory grade.sh was called from.

--tsan grades the groups marked "tsan" in labs.bzl (those of the threaded labs, 04 to 07)
twice: as above, then, when they pass, from a second build with --config=tsan (its own
output directory), where ThreadSanitizer stops the binary at the first data race it sees.
A race fails the case it came in, so the group scores 0, and the scorecard shows the
report's first lines (the two accesses and the SUMMARY) with the `bazel test --config=tsan
... --test_filter=` command that reruns that case. Without --tsan, a scorecard that graded
such groups says that races were not checked and how to check them.

--starter grades each lab's starter instead of the code in the tree: it builds with
`--define=lab=NAME`, one lab at a time, and every lab should score 0. In a student copy
(tools/export_student_copy.sh --labs) the tree already holds the starters, and plain
`tools/grade.sh` grades the student's work.
"""

import argparse
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
import urllib.parse
import urllib.request
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import labs as labs_lib  # noqa: E402

CRASH_REPORT_TARGET = "//tools/labs:libcrash_report.so"
# The ThreadSanitizer build: .ci/run's flags exactly, so that the actions its TSan pass
# (and //tools/labs:fixtures_test under it) cached serve the grader too.
TSAN_FLAGS = ["--config=tsan", "--copt=-g1"]
# How the TSan-built binaries run: stop at the first report (the case it came in fails).
TSAN_ENV = {"TSAN_OPTIONS": "halt_on_error=1:second_deadlock_stack=1"}
MESSAGE_LINES = 40  # Of one failure, shown in the scorecard (the reports keep all of it).
# What a starter throws (make_starter.py): "lab NAME: Function is yours to write; see PAGE".
STARTER = re.compile(r"lab \w+: \S+ is yours to write; see [\w/.]+")
# gcc's and clang's "file:line:column: error: message" (and "fatal error").
COMPILER_ERROR = re.compile(r"^(\S+?):(\d+):(?:(\d+):)? (?:fatal )?error: (.*)$")


class Build:
    """What one `bazel build` made: {label: path of the executable built in this very
    invocation}, and if something failed, the first error to show."""

    def __init__(self):
        self.built = {}
        self.ran = False  # Bazel ran and wrote its build events
        self.failed = False
        self.first_error = []  # the lines to show: "file:line:col: error: ..." and context


def first_build_error(stderr):
    """The first error of a failed build, as the lines to show: the compiler's (with the
    source line and caret it prints after it), else the linker's, else Bazel's own."""
    lines = stderr.splitlines()
    for i, line in enumerate(lines):
        if COMPILER_ERROR.match(line):
            shown = [line]
            for follow in lines[i + 1:i + 4]:
                if (COMPILER_ERROR.match(follow) or follow.startswith(("ERROR:", "INFO:",
                                                                       "Target ", "In file"))
                        or re.match(r"^\S+:\d+:", follow)):
                    break
                shown.append(follow)
            return shown
    for line in lines:
        if "undefined reference to" in line or "multiple definition of" in line:
            return [line.strip()]
    for line in lines:
        if line.startswith("ERROR:"):
            # Bazel's line for a failed action goes on with the whole command: cut it there.
            return [re.split(r"\): |: \(Exit", line, maxsplit=1)[0][:300]]
    return []


def read_build_events(path):
    """{label: executable path} of the targets that built in the invocation whose build
    event file (--build_event_json_file) is `path`."""
    built = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            try:
                event = json.loads(line)
            except ValueError:
                continue
            target = event.get("id", {}).get("targetCompleted")
            completed = event.get("completed")
            if not target or not completed or not completed.get("success"):
                continue
            outputs = completed.get("importantOutput") or []
            if not outputs:
                continue
            uri = outputs[0].get("uri", "")
            if uri.startswith("file://"):
                built[target["label"]] = urllib.request.url2pathname(
                    urllib.parse.urlparse(uri).path)
    return built


def build(targets, define, config=None):
    """Builds the targets, going on past failures; a Build of what built in this run.
    `config` "tsan": with --config=tsan, into its own output directory (the plain build's
    binaries stay where they are)."""
    bazel = shlex.split(os.environ.get("MTS_GRADE_BAZEL", "bazel"))
    outcome = Build()
    with tempfile.TemporaryDirectory(prefix="grade_") as tmp:
        events = os.path.join(tmp, "build_events.json")
        command = bazel + ["build", "--noshow_progress", "--keep_going",
                           "--build_event_json_file=" + events]
        flags = (TSAN_FLAGS if config == "tsan" else []) + (
            ["--define=lab=" + define] if define else [])
        command += flags
        print("$ bazel build --keep_going%s <%d test targets>" % (
            "".join(" " + f for f in flags), len(targets)), flush=True)
        # The crash reporter is preloaded into the plain build's binaries only: under
        # ThreadSanitizer, its signal handlers are TSan's.
        extra = [] if config else [CRASH_REPORT_TARGET]
        try:
            done = subprocess.run(command + targets + extra, check=False,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                  text=True, errors="replace")
        except OSError as e:
            outcome.failed = True
            outcome.first_error = ["could not run bazel: %s" % e]
            return outcome
        if os.path.exists(events):
            outcome.ran = True
            outcome.built = read_build_events(events)
        if done.returncode != 0:
            outcome.failed = True
            outcome.first_error = first_build_error(done.stderr) or [
                "bazel exited %d: %s" % (done.returncode, done.stderr.strip()[-300:])]
    if outcome.failed:
        print("grade: the %sbuild failed; every group whose test did not build scores 0. "
              "The first error:" % ("ThreadSanitizer " if config else ""))
        for line in outcome.first_error:
            print("  " + line)
    return outcome




def group_runner(outcome, tsan_outcome=None):
    """run(group) for labs.grade_labs: runs the binary built in this invocation (each test
    and filter once), or scores 0 when its test did not build. With `tsan_outcome` (the
    --config=tsan build of --tsan), a group marked "tsan" that passes runs again from that
    build, and a data race or a failure there fails it: its result is then that run's."""
    cache = {}
    reporter = outcome.built.get(CRASH_REPORT_TARGET)

    def run_built(built, group, preload, config):
        binary = built.get(group["test"])
        if binary and os.path.exists(binary):
            result = labs_lib.run_group(group, binary, binary + ".runfiles", preload,
                                        extra_env=TSAN_ENV if config else None)
        else:
            result = labs_lib.GroupResult(group)
            result.note = "not built" + (" under ThreadSanitizer" if config else "")
        result.config = config
        return result

    def run(group):
        key = (group["test"], group["filter"])
        if key not in cache:
            cache[key] = run_built(outcome.built, group, [reporter] if reporter else None, None)
        shared = cache[key]
        if shared.ok and group.get("tsan") and tsan_outcome is not None:
            tsan_key = key + ("tsan",)
            if tsan_key not in cache:
                cache[tsan_key] = run_built(tsan_outcome.built, group, None, "tsan")
                tsan = cache[tsan_key]
                if not tsan.ok and "ThreadSanitizer" not in tsan.note:
                    tsan.note = "under ThreadSanitizer: " + (
                        tsan.note or "%d case(s) failed" % len(tsan.failed))
            if not cache[tsan_key].ok:
                shared = cache[tsan_key]
        result = labs_lib.GroupResult(group)  # The same cases, under this group's points.
        result.passed, result.failed = shared.passed, shared.failed
        result.messages, result.note = shared.messages, shared.note
        result.config = shared.config
        return result

    return run


def print_lab(grade, table, written, outcome, define, tsan_outcome=None):
    lab = grade.lab
    print("\n== lab %s: %s (%s)" % (lab["name"], lab["title"], lab["page"]), flush=True)
    needs = labs_lib.prerequisites(lab, table)
    if needs:
        print("needs: " + ", ".join("%s (%s)" % (n, "written" if written.get(n) else
                                                 "not yet written") for n in needs))
        if not all(written.get(n) for n in needs):
            print("       (this lab's tests run on the labs it needs: write those first)")
    shown_build_error = False
    for row in grade.rows:
        group = row.group
        dots = "." * max(3, 56 - len(group["name"]))
        if row.waiting:
            print("%s %s waits for lab%s %s  (%d points)" % (
                group["name"], dots, "s" if len(row.waiting_for) > 1 else "",
                ", ".join(row.waiting_for), group["points"]))
            continue
        result = row.result
        print("%s %s %-4s %3d/%-3d cases  %3d/%d%s" % (
            group["name"], dots, "OK" if result.ok else "FAIL", len(result.passed),
            result.total, result.score(), group["points"],
            "  (" + result.note + ")" if result.note else ""), flush=True)
        if result.note.startswith("not built"):
            failed_build = tsan_outcome if result.config and tsan_outcome else outcome
            if not shown_build_error:
                for line in failed_build.first_error[:1]:
                    print("    the build's first error: " + line)
                shown_build_error = True
        elif result.failed:
            first = result.failed[0]
            print("    first failure: %s" % first)
            message = result.messages.get(first, "").splitlines() or ["failed"]
            starter = STARTER.search(result.messages.get(first, ""))
            if starter:  # A starter's throw says all there is to say.
                message = ["stopped in a starter: " + starter.group(0)]
            for line in message[:MESSAGE_LINES]:
                print("      " + line)
            if len(message) > MESSAGE_LINES:
                print("      ... (%d more lines: run it)" % (len(message) - MESSAGE_LINES))
            print("    run it: " + labs_lib.reproduce_command(group, first, define,
                                                              result.config))
    line = "lab %s: %d/%d" % (lab["name"], grade.score, grade.max_score)
    line += ", written" if grade.written else ", not yet written"
    if grade.waiting_points:
        line += "; %d more points wait for lab%s %s" % (
            grade.waiting_points, "s" if len(grade.waiting_for()) > 1 else "",
            ", ".join(grade.waiting_for()))
    print(line)


def write_reports(grades, results_dir):
    suites = ET.Element("testsuites")
    tests = []
    for grade in grades:
        lab = grade.lab
        counted = [r for r in grade.rows if not r.waiting]
        suite = ET.SubElement(suites, "testsuite", name="lab " + lab["name"],
                              tests=str(len(grade.rows)),
                              failures=str(sum(1 for r in counted if not r.result.ok)),
                              skipped=str(len(grade.rows) - len(counted)))
        for row in grade.rows:
            group = row.group
            case = ET.SubElement(suite, "testcase", classname="lab " + lab["name"],
                                 name=group["name"])
            properties = ET.SubElement(case, "properties")
            properties.append(ET.Element("property", name="points", value="%d/%d" % (
                row.score(), 0 if row.waiting else group["points"])))
            if row.waiting:
                waiting = "waits for lab %s (%d points once written)" % (
                    ", ".join(row.waiting_for), group["points"])
                ET.SubElement(case, "skipped", message=waiting)
                tests.append({"name": "lab %s: %s" % (lab["name"], group["name"]),
                              "score": 0, "max_score": 0, "output": waiting})
                continue
            r = row.result
            if not r.ok:
                failure = ET.SubElement(case, "failure", message="%d of %d cases failed" % (
                    len(r.failed), r.total))
                failure.text = "\n".join("%s: %s" % (c, r.messages.get(c, ""))
                                         for c in r.failed) or r.note
            output = "%d/%d cases passed (%s, filter %s)" % (
                len(r.passed), r.total, group["test"], group["filter"])
            if r.note:
                output += "\n" + r.note
            if r.failed:
                output += "\nfailed:\n" + "\n".join(
                    "  %s: %s\n  run it: %s" % (c, r.messages.get(c, ""),
                                                labs_lib.reproduce_command(group, c,
                                                                           config=r.config))
                    for c in r.failed)
            tests.append({
                "name": "lab %s: %s" % (lab["name"], group["name"]),
                "score": r.score(),
                "max_score": group["points"],
                "status": "passed" if r.ok else "failed",
                "output": output,
            })
    ET.ElementTree(suites).write(os.path.join(results_dir, "junit.xml"), encoding="utf-8",
                                 xml_declaration=True)
    report = {
        "score": sum(g.score for g in grades),
        "max_score": sum(g.max_score for g in grades),
        "waiting_points": sum(g.waiting_points for g in grades),
        "tests": tests,
    }
    with open(os.path.join(results_dir, "results.json"), "w", encoding="utf-8") as f:
        json.dump(report, f, indent=2)
        f.write("\n")


def help_epilog(table):
    lines = ["the labs, in the order they are written (book order):", ""]
    for lab in table:
        points = sum(g["points"] for g in lab["groups"])
        own = sum(g["points"] for g in labs_lib.own_groups(lab, table))
        lines.append("  %-16s %3d points  %s (%s)" % (lab["name"], points, lab["title"],
                                                       lab["page"]))
        needs = labs_lib.prerequisites(lab, table)
        waits = labs_lib.waits_for(lab, table)
        lines.append("  %-16s             needs: %s" % ("", ", ".join(needs) or "no other lab"))
        if waits:
            lines.append("  %-16s             %d points its own; %d in groups that wait for: %s"
                         % ("", own, points - own, ", ".join(waits)))
    lines += ["", labs_lib.SCORING_RULE, "",
              "Every group, its test, filter and points: tools/labs/labs.bzl."]
    return "\n".join(lines)


def results_directory(given):
    """The reports' directory, checked before anything is built: (path, None) or (None, the
    error to print). A relative path is taken from the caller's directory (grade.sh passes
    it in MTS_GRADE_CALLER_DIR; the default stays at the top of the tree)."""
    if given is None:
        path = os.path.abspath("grade_results")
    else:
        caller = os.environ.get("MTS_GRADE_CALLER_DIR", os.getcwd())
        path = os.path.normpath(os.path.join(caller, os.path.expanduser(given)))
    if os.path.exists(path) and not os.path.isdir(path):
        return None, "--results_dir %s is a file, not a directory; name a directory" % path
    try:
        os.makedirs(path, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path, prefix=".grade_write_check_"):
            pass
    except OSError as e:
        return None, "--results_dir %s cannot be written (%s); name a directory you can " \
            "write to" % (path, e.strerror or e)
    return path, None


def main():
    table = labs_lib.load_labs()
    parser = argparse.ArgumentParser(
        prog="tools/grade.sh", description="Builds and grades the labs, as xv6's make grade.",
        epilog=help_epilog(table), formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("labs", nargs="*", metavar="LAB",
                        help="labs to grade (default: all); the labs they wait for are "
                             "built and run too, to know whether they are written")
    parser.add_argument("--starter", action="store_true",
                        help="grade each lab's starter (--define=lab=NAME), not the tree")
    parser.add_argument("--tsan", action="store_true",
                        help="also build the groups of the threaded labs (04 to 07) under "
                             "ThreadSanitizer (--config=tsan) and run them again: a data "
                             "race fails the group, with the report's first lines (a "
                             "teacher's final grade uses it)")
    parser.add_argument("--results_dir", default=None, metavar="DIR",
                        help="where junit.xml and results.json go (default: grade_results "
                             "at the top of the tree; a relative DIR is from where you are)")
    args = parser.parse_args()
    if not os.path.isfile("WORKSPACE"):
        print("grade: run me from the top of the tree (tools/grade.sh does)")
        return 2
    names = [lab["name"] for lab in table]
    unknown = [n for n in args.labs if n not in names]
    if unknown:
        print("grade: no lab named %s; the labs are: %s" % (", ".join(unknown), " ".join(names)))
        return 2
    results_dir, error = results_directory(args.results_dir)
    if error:
        print("grade: " + error)
        return 2
    chosen = [lab for lab in table if not args.labs or lab["name"] in args.labs]

    grades = []
    written = {}
    broken = False
    unchecked = set()  # Labs graded under ThreadSanitizer too when --tsan is given.
    for batch in ([[lab] for lab in chosen] if args.starter else [chosen]):
        define = batch[0]["name"] if args.starter else None
        required = labs_lib.required_labs(table, batch)
        targets = sorted({g["test"] for lab in batch for g in lab["groups"]} |
                         {g["test"] for lab in table if lab["name"] in required
                          for g in labs_lib.own_groups(lab, table)})
        outcome = build(targets, define)
        broken = broken or not outcome.ran
        tsan_outcome = None
        tsan_targets = sorted({g["test"] for lab in table if lab["name"] in required
                               for g in lab["groups"] if g.get("tsan") and g["test"] in targets})
        if args.tsan and tsan_targets:
            tsan_outcome = build(tsan_targets, define, config="tsan")
            broken = broken or not tsan_outcome.ran
        elif tsan_targets:
            unchecked.update(lab["name"] for lab in batch
                             if any(g.get("tsan") for g in lab["groups"]))
        batch_grades, batch_written = labs_lib.grade_labs(table, batch,
                                                          group_runner(outcome, tsan_outcome))
        for grade in batch_grades:
            print_lab(grade, table, batch_written, outcome, define, tsan_outcome)
        grades += batch_grades
        written.update(batch_written)

    print("\n== score")
    for grade in grades:
        print("lab %-16s %3d/%-3d%s" % (grade.lab["name"], grade.score, grade.max_score,
                                        "  (%d more points wait)" % grade.waiting_points
                                        if grade.waiting_points else ""))
    total = sum(g.score for g in grades)
    total_max = sum(g.max_score for g in grades)
    waiting = sum(g.waiting_points for g in grades)
    print("total %d/%d%s" % (total, total_max, "; %d more points wait for labs not yet "
                             "written (%d in all)" % (waiting, total_max + waiting)
                             if waiting else ""))
    if not args.starter:
        # The same stack the book's "What you will build" page draws (labs.STACK).
        print()
        for line in labs_lib.stack_lines(table, written, grades):
            print(line)
    if unchecked:
        names_unchecked = [lab["name"] for lab in table if lab["name"] in unchecked]
        print("\nnot checked for data races: %s. `tools/grade.sh --tsan %s` runs their groups "
              "under ThreadSanitizer too, where a race loses the group's points (your "
              "teacher's grade may)." % (", ".join(names_unchecked), " ".join(names_unchecked)))
    write_reports(grades, results_dir)
    print("reports: %s, %s" % (os.path.join(results_dir, "junit.xml"),
                               os.path.join(results_dir, "results.json")))
    if broken:
        print("grade: Bazel did not run, so nothing was graded; see the error above")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
