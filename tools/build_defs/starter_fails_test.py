#!/usr/bin/python3
"""The other direction of an exercise: its tests, built against starter.cc, must fail.

    starter_fails_test.py BINARY

mts_exercise declares one of these per exercise (NAME_starter_fails_test) in the
instructor's tree, beside NAME_test, which passes on the solution. Together they prove that
the exercise is one: the tests decide, and the starter does not already pass them. A
starter that ends in a crash fails this check too: a student should meet a failing test
naming what is left to write, not a dead process.
"""

import concurrent.futures
import os
import re
import subprocess
import sys
import tempfile

# Cases run at once. Most of a starter's failing cases fail by waiting out a deadline (a
# stop that never comes), so running them side by side takes the longest one's time, not
# the sum: a few seconds where one after another took up to half a minute.
PARALLEL_CASES = 8


def list_cases(binary, env):
    """The binary's test cases as gtest filter names, in its own order."""
    listing = subprocess.run([binary, "--gtest_list_tests"], stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True, errors="replace",
                             timeout=60, check=False, env=env)
    cases, suite = [], None
    for line in listing.stdout.splitlines():
        name = line.split("#")[0].strip()
        if not name:
            continue
        if not line.startswith(" "):
            suite = name  # "Suite." (a typed suite's own "Suite/0.")
        elif suite and "DISABLED_" not in suite + name:  # gtest lists them but runs none.
            cases.append(suite + name)
    return cases


def run_case(binary, case, env):
    """Runs one case in a process and a scratch directory of its own."""
    with tempfile.TemporaryDirectory(dir=env.get("TEST_TMPDIR")) as scratch:
        done = subprocess.run([binary, "--gtest_filter=" + case], stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True, errors="replace",
                              timeout=240, check=False, env=dict(env, TEST_TMPDIR=scratch))
    ran = re.search(r"^\[==========\] 1 test from .* ran\.", done.stdout, re.M)
    failed = re.search(r"^\[  FAILED  \] ", done.stdout, re.M) is not None
    return case, done, ran is not None, failed


def main():
    if len(sys.argv) != 2:
        print("usage: starter_fails_test.py BINARY")
        return 2
    binary = sys.argv[1]
    # Not Bazel's report files: gtest would write the starter's failing cases into this
    # test's own test.xml (XML_OUTPUT_FILE), and CI would count them as this test's.
    env = {k: v for k, v in os.environ.items()
           if k not in ("XML_OUTPUT_FILE", "GTEST_OUTPUT", "TEST_PREMATURE_EXIT_FILE")}
    cases = list_cases(binary, env)
    if not cases:
        print("starter_fails_test: %s lists no test cases" % binary)
        return 1
    with concurrent.futures.ThreadPoolExecutor(PARALLEL_CASES) as pool:
        results = list(pool.map(lambda case: run_case(binary, case, env), cases))
    failed = []
    for case, done, ran, case_failed in results:
        if done.returncode < 0 or not ran:
            print(done.stdout[-3000:])
            print("starter_fails_test: %s, built against the starter, did not run to the end "
                  "(exit %d): a starter should make it fail, not crash it"
                  % (case, done.returncode))
            return 1
        if done.returncode != 0 and case_failed:
            failed.append(case)
    if not failed:
        print("starter_fails_test: every test passes against starter.cc: the exercise asks "
              "nothing. Leave the part the student writes out of the starter.")
        return 1
    print("%d of %d test cases fail against the starter, as they should:" % (
        len(failed), len(cases)))
    for case in sorted(failed):
        print("  " + case)
    return 0


if __name__ == "__main__":
    sys.exit(main())
