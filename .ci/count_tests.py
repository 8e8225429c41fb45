#!/usr/bin/python3
"""Counts the test cases of one `bazel test //...` run and prints `N passed, N failed`.

Usage: count_tests.py BAZEL_LOG TESTLOGS_DIR LABEL...

LABELs are the test targets that `bazel test //...` was asked to run. For each, the
summary line in BAZEL_LOG says what Bazel made of it, and TESTLOGS_DIR/<pkg>/<name>/test.xml
(JUnit XML; gtest writes one testcase per TEST) says how many test cases passed or failed.
A target that did not run (it failed to build, or the run stopped) counts as one failed
case; so does a target Bazel calls failed whose XML shows no failing case (a crash after
the last test, a sanitizer report at exit, a timeout). Skipped and disabled cases count
as neither.
"""

import os
import re
import sys
import xml.etree.ElementTree as ET

SUMMARY = re.compile(
    r"^(//\S+)\s+(?:\(cached\)\s+)?"
    r"(PASSED|FLAKY|FAILED TO BUILD|FAILED|TIMEOUT|NO STATUS|INCOMPLETE|SKIPPED|"
    r"REMOTE FAILURE|BUILD FAILURE)\b"
)


def count_xml(path):
    """Returns (passed, failed) test cases in one JUnit XML file."""
    passed = failed = 0
    for case in ET.parse(path).getroot().iter("testcase"):
        if case.find("failure") is not None or case.find("error") is not None:
            failed += 1
        elif case.find("skipped") is not None or case.get("status") == "notrun":
            continue
        else:
            passed += 1
    return passed, failed


def main(argv):
    log_path, testlogs, labels = argv[1], argv[2], argv[3:]
    status = {}
    with open(log_path, errors="replace") as log:
        for line in log:
            match = SUMMARY.match(line.strip())
            if match:
                status[match.group(1)] = match.group(2)

    passed = failed = 0
    for label in labels:
        state = status.get(label)
        package, _, name = label[2:].partition(":")
        xml_path = os.path.join(testlogs, package, name, "test.xml")
        if state in ("PASSED", "FLAKY", "FAILED", "TIMEOUT") and os.path.exists(xml_path):
            try:
                p, f = count_xml(xml_path)
            except ET.ParseError:
                p, f = 0, 1
            if state in ("FAILED", "TIMEOUT") and f == 0:
                f = 1
            passed += p
            failed += f
        else:
            print(f"count_tests: {label}: {state or 'no result'}", file=sys.stderr)
            failed += 1
    if not labels:
        failed += 1  # No test target at all: something is wrong with the query or tree.
    print(f"{passed} passed, {failed} failed")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
