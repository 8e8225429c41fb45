#!/usr/bin/python3
"""Every package of a stage's tests runs the reach-up check, the one added tomorrow too.

    reach_up_coverage_test.py

Each package under tests/NN_stage/ (sub-packages included) and tests/platform/ must end its
BUILD file with `mts_reach_up_test()` (tools/build_defs/reach_up.bzl), after every target it
defines, so that its :reach_up_test sees them all. Bazel cannot list packages at build time
(a genquery accepts no `//tests/...`), so this test walks the source tree itself: it finds
the tree through its own script, which Bazel links from the tree, and it is tagged
`external` so that Bazel runs it every time instead of trusting a cached pass from before a
package was added.
"""

import os
import re
import sys

STAGE_TESTS = re.compile(r"^tests/(\d\d_[^/]+|platform)(/|$)")
CALL = re.compile(r"^mts_reach_up_test\(.*\)$")
HOW = 'load("//tools/build_defs:reach_up.bzl", "mts_reach_up_test")\n\n    mts_reach_up_test()'


def source_root():
    """The top of the source tree: three levels above this script's real path."""
    here = os.path.realpath(sys.argv[0])
    root = os.path.dirname(os.path.dirname(os.path.dirname(here)))
    if not os.path.isfile(os.path.join(root, "WORKSPACE")) or \
            not os.path.isdir(os.path.join(root, "tests")):
        sys.exit("reach_up_coverage_test: cannot find the source tree from %s (resolved to "
                 "%s); run it with `bazel test`, whose runfiles link back to the tree" %
                 (sys.argv[0], here))
    return root


def stage_test_packages(root):
    """The packages (directories with a BUILD file) of the stages' tests, relative to root."""
    found = []
    for directory, subdirs, files in os.walk(os.path.join(root, "tests")):
        subdirs.sort()
        relative = os.path.relpath(directory, root)
        if STAGE_TESTS.match(relative) and ("BUILD" in files or "BUILD.bazel" in files):
            found.append(relative)
    return found


def problem(build_file):
    """What is wrong with how the BUILD file calls mts_reach_up_test, or None."""
    with open(build_file, encoding="utf-8") as f:
        text = f.read()
    code = [line.split("#", 1)[0].strip() for line in text.splitlines()]
    code = [line for line in code if line]
    if not any(CALL.match(line) for line in code):
        return "does not call mts_reach_up_test()"
    if not CALL.match(code[-1]):
        return ("calls mts_reach_up_test() before its last target: the call sees only the "
                "targets defined above it, so it must be the file's last statement")
    return None


def main():
    root = source_root()
    packages = stage_test_packages(root)
    if not any(p.startswith("tests/01_") for p in packages):
        sys.exit("reach_up_coverage_test: found no tests/01_* package under %s" % root)
    failures = []
    for package in packages:
        build = os.path.join(root, package, "BUILD")
        if not os.path.isfile(build):
            build += ".bazel"
        what = problem(build)
        if what:
            failures.append("%s/%s %s" % (package, os.path.basename(build), what))
    if failures:
        print("reach_up_coverage_test: a package of a stage's tests is not checked for "
              "reaching up a stage:\n  " + "\n  ".join(failures))
        print("End each of these BUILD files with\n\n    %s\n" % HOW)
        return 1
    print("reach_up_coverage_test: all %d packages of the stages' tests end with "
          "mts_reach_up_test():\n  %s" % (len(packages), "\n  ".join(packages)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
