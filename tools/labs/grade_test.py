#!/usr/bin/python3
"""The grader never lies (bazel test //tools/labs:grade_test).

On a fake graded test (testdata/fake_lab_test.cc, a real gtest binary) and a fake Bazel
(a script that writes the build event file a real build would, here with the compiler error
a deleted semicolon gave in hooked_session.cc, testdata/build_failed_stderr.txt):

  - a failing EXPECT_EQ is shown whole, both values, with the command that reruns the case;
  - a stack overflow, in the main thread or another, is named as one, with its case; a
    write through a null pointer is a bad memory access, not an overflow; without the
    crash reporter the grader still names the case and says it may be an overflow;
  - a build that fails scores 0 for the group whose test did not build, prints the
    compiler's first error (file:line: message), and never runs the stale binary left in
    bazel-bin from an earlier build;
  - a group that needs a later lab waits while that lab is not written, and counts (and
    passes) once it is; the score line and results.json say so;
  - --results_dir: a relative path lands in the caller's directory; a file, or a path
    that cannot be made, is refused before anything is built;
  - --help lists the labs, their points and what each needs, and the scoring rule;
    an unknown lab is refused with the list of labs;
  - the scorecard ends with the stack the labs build, each lab marked written or not with
    its score, in the rows and order of the figure on the book's "What you will build"
    page (labs.STACK; stack.py draws the figure and the page's printout).
  - --tsan builds the groups marked "tsan" under ThreadSanitizer too, and a data race there
    fails the group with the report's first lines and the command that reruns the case
    under TSan; without --tsan the scorecard says the races were not checked.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import grade  # noqa: E402
import labs as labs_lib  # noqa: E402
import stack  # noqa: E402

FAKE = os.path.join(HERE, "fake_lab_test")
REPORTER = os.path.join(HERE, "libcrash_report.so")
STDERR = os.path.join(HERE, "testdata/build_failed_stderr.txt")

TABLE = """LABS = [
    {
        "name": "01_first",
        "title": "the first lab",
        "page": "chapters/01_first/lab.md",
        "libraries": [],
        "must_fail": "all",
        "groups": [
            {"name": "it passes", "test": "//fake:ok_test", "filter": "Fake.Passes",
             "points": 50, "needs": ["01_first"]},
            {"name": "it compares", "test": "//fake:ok_test", "filter": "Fake.ComparesValues",
             "points": 30, "needs": ["01_first"]},
            {"name": "the layer above", "test": "//fake:upper_test", "filter": "Fake.Passes",
             "points": 20, "needs": ["01_first", "02_second"]},
        ],
    },
    {
        "name": "02_second",
        "title": "the second lab",
        "page": "chapters/02_second/lab.md",
        "libraries": [],
        "must_fail": "all",
        "groups": [
            {"name": "its own", "test": "//fake:broken_test", "filter": "Fake.Passes",
             "points": 100, "needs": ["01_first", "02_second"], "tsan": True},
        ],
    },
]
"""

# Bazel as the grader calls it: writes the build events of FAKE_SCENARIO ("broken": the
# compile of broken_test's library fails; "fixed": everything builds), and its stderr.
FAKE_BAZEL = r'''
import json, os, sys
open(os.environ["FAKE_RAN"], "a").write(" ".join(sys.argv[1:]) + "\n")
events = next(a.split("=", 1)[1] for a in sys.argv if a.startswith("--build_event_json_file="))
broken = os.environ["FAKE_SCENARIO"] == "broken"
def done(label, path):
    return {"id": {"targetCompleted": {"label": label}},
            "completed": {"success": True, "importantOutput": [{"uri": "file://" + path}]}}
if "--config=tsan" in sys.argv:  # The ThreadSanitizer build of the targets asked for.
    with open(events, "w") as f:
        for label in [a for a in sys.argv if a.startswith("//")]:
            f.write(json.dumps(done(label, os.environ["FAKE_TSAN_BINARY"])) + "\n")
    sys.exit(0)
with open(events, "w") as f:
    for label in ("//fake:ok_test", "//fake:upper_test"):
        f.write(json.dumps(done(label, os.environ["FAKE_BINARY"])) + "\n")
    f.write(json.dumps(done("//tools/labs:libcrash_report.so", os.environ["FAKE_REPORTER"])) + "\n")
    if broken:
        f.write(json.dumps({"id": {"targetCompleted": {"label": "//fake:broken_test"}},
                            "completed": {"failureDetail": {"message": "failed"}}}) + "\n")
    else:
        f.write(json.dumps(done("//fake:broken_test", os.environ["FAKE_BINARY"])) + "\n")
if broken:
    sys.stderr.write(open(os.environ["FAKE_STDERR"]).read())
    sys.exit(1)
'''

# What an earlier, good build left in bazel-bin: it would pass, and tells if it ever runs.
STALE_BINARY = """#!/bin/sh
touch "$(dirname "$0")/STALE_BINARY_RAN"
echo "[ RUN      ] Fake.Passes"
echo "[       OK ] Fake.Passes (0 ms)"
"""


# A test binary built with ThreadSanitizer, as it ends when Fake.Passes races: TSan's report
# (halt_on_error=1), then exit code 66 and no XML report.
TSAN_BINARY = """#!/bin/sh
case "$*" in *--gtest_list_tests*) echo "Fake."; echo "  Passes"; exit 0;; esac
echo "[ RUN      ] Fake.Passes"
echo "=================="
echo "WARNING: ThreadSanitizer: data race (pid=4242)"
echo "  Write of size 1 at 0x7b0400000010 by thread T1 (mutexes: write M7):"
echo "    #0 mts::Coordinator::RequestStop(std::__exception_ptr::exception_ptr) src/04_coordinated/coordinator.cc:78"
echo "  Previous read of size 1 at 0x7b0400000010 by main thread:"
echo "    #0 mts::Coordinator::ShouldStop() const src/04_coordinated/coordinator.cc:94"
echo "SUMMARY: ThreadSanitizer: data race src/04_coordinated/coordinator.cc:78 in mts::Coordinator::RequestStop(std::__exception_ptr::exception_ptr)"
echo "=================="
exit 66
"""


class RunGroupTest(unittest.TestCase):
    """labs.run_group on the fake test: what a student reads for each way a case ends."""

    def run_case(self, case, reporter=True):
        group = {"name": case, "test": "//fake:test", "filter": case, "points": 10}
        return labs_lib.run_group(group, FAKE, tempfile.gettempdir(),
                                  [REPORTER] if reporter else None, timeout=120)

    def test_a_failed_comparison_is_shown_whole(self):
        result = self.run_case("Fake.ComparesValues")
        self.assertEqual(["Fake.ComparesValues"], result.failed)
        message = result.messages["Fake.ComparesValues"]
        for part in ("fake_lab_test.cc:", "Expected equality of these values:",
                     "fetched.size()", "Which is: 3", "2u", "Which is: 2",
                     "the hook's fetches were not cut to its own"):
            self.assertIn(part, message)

    def test_a_stack_overflow_is_named_with_its_case(self):
        for case in ("Fake.RecursesForever", "Fake.RecursesInAThread"):
            result = self.run_case(case)
            self.assertEqual([case], result.failed)
            self.assertEqual("killed by SIGSEGV (a stack overflow) in " + case, result.note)
            self.assertIn("killed by SIGSEGV: a stack overflow: the fault is at the end of "
                          "the stack", result.messages[case])

    def test_a_null_pointer_is_not_called_a_stack_overflow(self):
        result = self.run_case("Fake.WritesThroughNull")
        self.assertEqual("killed by SIGSEGV in Fake.WritesThroughNull", result.note)
        message = result.messages["Fake.WritesThroughNull"]
        self.assertIn("killed by SIGSEGV: a bad memory access at 0x0000000000000000", message)
        self.assertNotIn("stack overflow", message)

    def test_without_the_reporter_a_segfault_may_be_an_overflow(self):
        result = self.run_case("Fake.RecursesForever", reporter=False)
        self.assertEqual("killed by SIGSEGV in Fake.RecursesForever", result.note)
        self.assertIn("may be a stack overflow", result.messages["Fake.RecursesForever"])

    def test_cases_before_a_crash_count_and_those_after_say_why_not(self):
        result = self.run_case("Fake.Passes:Fake.WritesThroughNull:Fake.RecursesInAThread")
        self.assertEqual(["Fake.Passes"], result.passed)
        self.assertEqual(["Fake.WritesThroughNull", "Fake.RecursesInAThread"], result.failed)
        self.assertEqual("did not run: the binary died in Fake.WritesThroughNull",
                         result.messages["Fake.RecursesInAThread"])

    def test_the_first_compiler_error_is_found(self):
        with open(STDERR, encoding="utf-8") as f:
            shown = grade.first_build_error(f.read())
        self.assertEqual("src/03_hooked/hooked_session.cc:55:3: error: expected ',' or ';' "
                         "before 'RunOptions'", shown[0])
        self.assertIn("RunOptions merged_options = options;", shown[1])
        self.assertEqual(3, len(shown))  # The error, its source line and the caret.


class GradeMainTest(unittest.TestCase):
    """grade.py as tools/grade.sh runs it, on a tree of its own and a fake Bazel."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="grade_test_")
        self.tree = os.path.join(self.tmp, "tree")
        self.caller = os.path.join(self.tmp, "caller")
        os.makedirs(os.path.join(self.tree, "tools/labs"))
        os.makedirs(os.path.join(self.tree, "bazel-bin/fake"))
        os.makedirs(self.caller)
        open(os.path.join(self.tree, "WORKSPACE"), "w").close()
        for name in ("grade.py", "labs.py"):
            shutil.copy(os.path.join(HERE, name), os.path.join(self.tree, "tools/labs"))
        with open(os.path.join(self.tree, "tools/labs/labs.bzl"), "w") as f:
            f.write(TABLE)
        self.stale = os.path.join(self.tree, "bazel-bin/fake/broken_test")
        with open(self.stale, "w") as f:
            f.write(STALE_BINARY)
        os.chmod(self.stale, 0o755)
        self.fake_bazel = os.path.join(self.tmp, "fake_bazel.py")
        with open(self.fake_bazel, "w") as f:
            f.write(FAKE_BAZEL)
        self.bazel_ran = os.path.join(self.tmp, "bazel_ran")
        self.tsan_binary = os.path.join(self.tmp, "tsan_test")
        with open(self.tsan_binary, "w") as f:
            f.write(TSAN_BINARY)
        os.chmod(self.tsan_binary, 0o755)

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def grade(self, scenario, *args):
        env = dict(os.environ, MTS_GRADE_BAZEL="%s %s" % (sys.executable, self.fake_bazel),
                   MTS_GRADE_CALLER_DIR=self.caller, FAKE_SCENARIO=scenario,
                   FAKE_BINARY=FAKE, FAKE_REPORTER=REPORTER, FAKE_STDERR=STDERR,
                   FAKE_RAN=self.bazel_ran, FAKE_TSAN_BINARY=self.tsan_binary)
        done = subprocess.run([sys.executable, "tools/labs/grade.py"] + list(args),
                              cwd=self.tree, env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True, check=False)
        return done.returncode, done.stdout

    def test_a_build_error_scores_0_shows_the_error_and_runs_no_stale_binary(self):
        code, out = self.grade("broken", "--results_dir", "out")
        self.assertEqual(0, code, out)
        self.assertIn("grade: the build failed", out)
        self.assertIn("src/03_hooked/hooked_session.cc:55:3: error: expected ',' or ';' "
                      "before 'RunOptions'", out)
        self.assertRegex(out, r"its own \.+ FAIL +0/0 +cases +0/100 +\(not built\)")
        self.assertIn("lab 02_second: 0/100, not yet written", out)
        self.assertFalse(os.path.exists(os.path.join(self.tree, "bazel-bin/fake/"
                                                                "STALE_BINARY_RAN")),
                         "the grader ran a binary this build did not make")
        # Lab 01: its own groups graded, the one above waits for lab 02.
        self.assertRegex(out, r"it passes \.+ OK +1/1 +cases +50/50")
        self.assertRegex(out, r"the layer above \.+ waits for lab 02_second +\(20 points\)")
        self.assertIn("lab 01_first: 50/80, not yet written; 20 more points wait for lab "
                      "02_second", out)
        # The failure whole, and how to rerun it.
        self.assertIn("first failure: Fake.ComparesValues", out)
        self.assertIn("Which is: 3", out)
        self.assertIn("run it: bazel test //fake:ok_test --test_filter=Fake.ComparesValues "
                      "--test_output=errors", out)
        # The reports, in the caller's directory.
        with open(os.path.join(self.caller, "out/results.json"), encoding="utf-8") as f:
            report = json.load(f)
        self.assertEqual((50, 180, 20), (report["score"], report["max_score"],
                                         report["waiting_points"]))

    def test_a_waiting_group_counts_once_the_lab_it_needs_is_written(self):
        code, out = self.grade("fixed")
        self.assertEqual(0, code, out)
        self.assertNotIn("the build failed", out)
        self.assertIn("lab 02_second: 100/100, written", out)
        self.assertRegex(out, r"the layer above \.+ OK +1/1 +cases +20/20")
        self.assertIn("lab 01_first: 70/100, not yet written", out)
        self.assertIn("total 170/200", out)
        self.assertTrue(os.path.exists(os.path.join(self.tree, "grade_results/junit.xml")))

    def test_under_tsan_a_data_race_fails_the_group_with_the_report(self):
        code, out = self.grade("fixed", "--tsan", "02_second")
        self.assertEqual(0, code, out)
        self.assertIn("$ bazel build --keep_going --config=tsan --copt=-g1 <1 test targets>", out)
        self.assertRegex(out, r"its own \.+ FAIL +0/1 +cases +0/100 +\(a data race "
                              r"\(ThreadSanitizer\) in Fake\.Passes\)")
        self.assertIn("first failure: Fake.Passes", out)
        self.assertIn("WARNING: ThreadSanitizer: data race (pid=4242)", out)
        self.assertIn("#0 mts::Coordinator::ShouldStop() const", out)
        self.assertIn("SUMMARY: ThreadSanitizer: data race", out)
        self.assertIn("run it: bazel test //fake:broken_test --config=tsan "
                      "--test_filter=Fake.Passes --test_output=errors", out)
        self.assertIn("lab 02_second: 0/100, not yet written", out)
        self.assertNotIn("not checked for data races", out)

    def test_without_tsan_the_scorecard_says_races_were_not_checked(self):
        code, out = self.grade("fixed", "02_second")
        self.assertEqual(0, code, out)
        self.assertIn("lab 02_second: 100/100, written", out)
        self.assertIn("not checked for data races: 02_second. `tools/grade.sh --tsan "
                      "02_second`", out)
        with open(self.bazel_ran, encoding="utf-8") as f:
            self.assertNotIn("--config=tsan", f.read())

    def test_a_bad_results_dir_is_refused_before_building(self):
        open(os.path.join(self.caller, "a_file"), "w").close()
        for given, says in (("a_file", "is a file, not a directory"),
                            ("a_file/reports", "cannot be written")):
            code, out = self.grade("fixed", "--results_dir", given)
            self.assertEqual(2, code, out)
            self.assertIn(os.path.join(self.caller, given), out)
            self.assertIn(says, out)
        self.assertFalse(os.path.exists(self.bazel_ran), "Bazel ran before the check")

    def test_the_scorecard_ends_with_the_stack_and_each_labs_progress(self):
        code, out = self.grade("fixed")
        self.assertEqual(0, code, out)
        stack_at = out.index("== the stack you are building, top down")
        self.assertGreater(stack_at, out.index("total 170/200"))
        self.assertRegex(out[stack_at:], r"\n  \[x\] 02_second +02_second +the second lab +100/100\n"
                                         r"  \[ \] 01_first +01_first +the first lab +70/100\n")

    def test_help_lists_the_labs_points_needs_and_rule(self):
        code, out = self.grade("fixed", "--help")
        self.assertEqual(0, code, out)
        self.assertRegex(out, r"01_first +100 points +the first lab")
        self.assertRegex(out, r"02_second +100 points +the second lab")
        self.assertIn("needs: 01_first", out)
        self.assertIn("80 points its own; 20 in groups that wait for: 02_second", out)
        self.assertIn("How a lab is scored", out)

    def test_an_unknown_lab_is_refused(self):
        code, out = self.grade("fixed", "02_secnd")
        self.assertEqual(2, code, out)
        self.assertIn("no lab named 02_secnd; the labs are: 01_first 02_second", out)


class StackTest(unittest.TestCase):
    """The stack at the end of the scorecard, on the real table of labs, and the figure."""

    def setUp(self):
        self.table = labs_lib.load_labs()

    def grades(self, right):
        """The grader's rule applied to a student whose labs in `right` are right."""
        def run(group):
            result = labs_lib.GroupResult(group)
            (result.passed if set(group["needs"]) <= right else result.failed).append("Case")
            return result
        return labs_lib.grade_labs(self.table, self.table, run)

    def test_each_lab_is_a_line_with_its_layer_and_progress(self):
        grades, written = self.grades({"01_session", "01_learning", "02_chief_worker"})
        lines = labs_lib.stack_lines(self.table, written, grades)
        self.assertEqual("== the stack you are building, top down "
                         "(chapters/00_introduction/what_you_will_build.md)", lines[0])
        self.assertIn("your training loop", lines[1])
        self.assertIn("  [x] 01_session       Session            the plan and the executor: Run"
                      "           70/70", lines)
        self.assertIn("  [x] 02_chief_worker  Chief / Worker     SessionManager, Saver: a ready "
                      "model     80/80", lines)
        self.assertIn("  [ ] 03_hooked        HookedSession      the hooks around every Run"
                      "               0/70", lines)
        names = [line[6:].split()[0] for line in lines if line.startswith("  [")][:-1]
        self.assertEqual([row["lab"] for row in labs_lib.STACK], names)
        self.assertTrue(lines[-2].startswith("  [x] written: its own groups pass"))
        self.assertTrue(all(len(line) <= 92 for line in lines), lines)
        self.assertEqual(lines, stack.printout_written_up_to(self.table, "02_chief_worker"))

    def test_a_lab_not_graded_this_time_says_so_without_a_score(self):
        grades, written = self.grades({"01_session"})
        chosen = [g for g in grades if g.lab["name"] == "01_session"]
        lines = labs_lib.stack_lines(self.table, {"01_session": True}, chosen)
        self.assertIn("  [x] 01_session       Session            the plan and the executor: Run"
                      "           70/70", lines)
        self.assertIn("  [-] 06_monitored     MonitoredSession   assembles the stack, closes it "
                      "in order", lines)

    def test_the_figure_draws_the_same_rows_in_the_same_order(self):
        dot = labs_lib.stack_dot(self.table)
        boxes = [line.split('"')[1] for line in dot.splitlines()
                 if line.startswith('  "') and "[label=<" in line]
        grades, written = self.grades(set())
        printed = [line[6:].split()[0] for line in labs_lib.stack_lines(self.table, written, grades)
                   if line.startswith("  [ ] ")]
        self.assertEqual(printed, boxes)
        for lab in self.table:
            self.assertIn("you write: ", dot)
            self.assertIn(lab["title"].split()[0], dot)
        self.assertIn('{rank=same; "01_session"; "01_learning";}', dot)


if __name__ == "__main__":
    unittest.main()
