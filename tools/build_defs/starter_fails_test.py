#!/usr/bin/python3
"""The other direction of an exercise: its tests, built against starter.cc, must fail.

    starter_fails_test.py BINARY

mts_exercise declares one of these per exercise (NAME_starter_fails_test) in the
instructor's tree, beside NAME_test, which passes on the solution. Together they prove that
the exercise is one: the tests decide, and the starter does not already pass them. A
starter that ends in a crash fails this check too: a student should meet a failing test
naming what is left to write, not a dead process.
"""

import os
import re
import subprocess
import sys


def main():
    if len(sys.argv) != 2:
        print("usage: starter_fails_test.py BINARY")
        return 2
    # Not Bazel's report files: gtest would write the starter's failing cases into this
    # test's own test.xml (XML_OUTPUT_FILE), and CI would count them as this test's.
    env = {k: v for k, v in os.environ.items()
           if k not in ("XML_OUTPUT_FILE", "GTEST_OUTPUT", "TEST_PREMATURE_EXIT_FILE")}
    done = subprocess.run([sys.argv[1]], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, errors="replace", timeout=240, check=False, env=env)
    ran = re.search(r"^\[==========\] (\d+) tests? from .* ran\.", done.stdout, re.M)
    failed = sorted(set(re.findall(r"^\[  FAILED  \] (\S+\.\S+?)(?: \(|,|$)", done.stdout,
                                   re.M)))
    if done.returncode < 0 or not ran:
        print(done.stdout[-3000:])
        print("starter_fails_test: the tests built against the starter did not run to the "
              "end (exit %d): a starter should make them fail, not crash them"
              % done.returncode)
        return 1
    if done.returncode == 0 or not failed:
        print(done.stdout[-3000:])
        print("starter_fails_test: every test passes against starter.cc: the exercise asks "
              "nothing. Leave the part the student writes out of the starter.")
        return 1
    print("%d of %s test cases fail against the starter, as they should:" % (
        len(failed), ran.group(1)))
    for case in failed:
        print("  " + case)
    return 0


if __name__ == "__main__":
    sys.exit(main())
