#!/usr/bin/python3
"""Both directions of every lab (bazel test //tools/labs:labs_test).

For each lab of labs.bzl:
  1. with the reference code, every case of every graded group passes;
  2. with the lab's starter, at least `must_fail` of those cases fail ("all": every one),
     and at least one in every group, so that the starter scores 0.

The starter is swapped in without building the stack a second time: the reference test
binaries link the layers as shared objects, and the lab's functions alone, with their
starter bodies (make_starter.py --functions_only, built as lib<name>_lab_starter.so by
mts_lab_library), are preloaded in front of them, so the dynamic linker resolves every call
of those functions to the starter. `tools/grade.sh --starter` checks the same thing the way
a student builds it (--define=lab=NAME).

Groups marked "linkstatic" in labs.bzl (the distributed tests over gRPC link the layers into the
executable, for ThreadSanitizer's suppressions) cannot be reached by a preload: they are
checked with the reference only here, and with the starter by `tools/grade.sh --starter`.

Prints one line per lab: graded cases, how many pass with the reference, how many of the
checked ones fail with the starter, and the seconds each direction took.
"""

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import labs as labs_lib  # noqa: E402


def main():
    srcdir = os.environ.get("TEST_SRCDIR")
    if not srcdir:
        print("labs_test: run me with `bazel test //tools/labs:labs_test`")
        return 2
    root = os.path.join(srcdir, "mts")
    if os.path.exists(os.path.join(root, "tools/labs/STUDENT_COPY")):
        print("labs_test: a student copy (tools/export_student_copy.sh --labs): the labs hold "
              "their starters and there is no reference to check; tools/grade.sh grades them")
        return 0
    problems = []
    only = sys.argv[1:]  # `--test_arg=03_hooked`: check these labs only
    for lab in labs_lib.load_labs():
        if only and lab["name"] not in only:
            continue
        preload = [os.path.join(root, labs_lib.library_starter_path(l))
                   for l in lab["libraries"]]
        missing = [p for p in preload if not os.path.exists(p)]
        missing += [g["test"] for g in lab["groups"]
                    if not os.path.exists(os.path.join(root, labs_lib.binary_path(g["test"])))]
        if missing:
            problems.append("lab %s: not in the runfiles (tools/labs/BUILD builds them from "
                            "labs.bzl): %s" % (lab["name"], ", ".join(missing)))
            continue
        cases = passed = failed = checked = 0
        timings = []
        for preloaded in (None, preload):
            start = time.monotonic()
            for group in lab["groups"]:
                if preloaded and group.get("linkstatic"):
                    continue  # A preloaded starter cannot reach into a static executable.
                binary = os.path.join(root, labs_lib.binary_path(group["test"]))
                # A starter that hangs a test counts as failing it after 60 s, well inside
                # this test's own timeout.
                result = labs_lib.run_group(group, binary, srcdir, preloaded, timeout=60)
                where = "%s (%s, %s)" % (group["name"], group["test"], group["filter"])
                if result.total == 0:
                    problems.append("lab %s: %s has no test case (%s)"
                                    % (lab["name"], where, result.note))
                if preloaded is None:
                    cases += result.total
                    if not group.get("linkstatic"):
                        checked += result.total
                    passed += len(result.passed)
                    for case in result.failed:
                        problems.append("lab %s: with the reference, %s fails: %s: %s" % (
                            lab["name"], where, case, result.messages.get(case, "")))
                else:
                    failed += len(result.failed)
                    if result.total and not result.failed:
                        problems.append("lab %s: the starter passes every case of %s, so it "
                                        "would score that group's points" % (lab["name"], where))
                    for case in result.passed:
                        if lab["must_fail"] == "all":
                            problems.append("lab %s: with the starter, %s passes: %s" % (
                                lab["name"], where, case))
            timings.append(time.monotonic() - start)
        required = checked if lab["must_fail"] == "all" else lab["must_fail"]
        if failed < required:
            problems.append("lab %s: the starter fails %d graded cases, fewer than the %d it "
                            "must (must_fail in labs.bzl)" % (lab["name"], failed, required))
        print("lab %-16s %4d graded cases: reference passes %4d (%.1f s); starter fails %4d"
              " of %d checked, %s required (%.1f s)" % (
                  lab["name"], cases, passed, timings[0], failed, checked, lab["must_fail"],
                  timings[1]), flush=True)
    for p in problems:
        print("  " + p)
    if problems:
        print("labs_test: %d problem(s)" % len(problems))
        return 1
    print("labs_test: PASSED")
    return 0


if __name__ == "__main__":
    sys.exit(main())
