#!/usr/bin/python3
"""Checks the pitfalls appendix against the tests it cites (run from the top of the tree).

    bazel test //docs:pitfalls_test      or      /usr/bin/python3 docs/pitfalls_test.py

chapters/appendix_pitfalls/index.md is a list of `###` entries, each a report of TF1 users:
what they saw, why, what TensorFlow 1 did, what mts does, and the test that reproduces it.
Every entry has the four parts (`**Symptom.**`, `**Cause.**`, `**TF1.**`, `**mts.**`) and
a `**Test.**` or `**Tests.**` part citing at least one `Suite.Case` (`tests/...cc`); each
such case must be a TEST, TEST_F or TEST_P of that file, and no part may run past 150
words. An entry still to be written by another hand says "To be filled in at merge" and
which chapter it belongs to; it is counted, and cites nothing yet. Under Bazel the cited
files are the test's data (docs/BUILD PITFALL_TEST_SOURCES): a citation of another file
fails until it joins that list.
"""

import os
import re
import sys

APPENDIX = "chapters/appendix_pitfalls/index.md"
PARTS = ["Symptom", "Cause", "TF1", "mts"]
SLOT = "To be filled in at merge"
MAX_WORDS = 150
CITATION_RE = re.compile(r"`(\w+)\.(\w+)`\s*\(`(tests/[\w./]+\.cc)`\)")
TEST_CASE_RE = re.compile(r"\b(?:TEST|TEST_F|TEST_P)\(\s*(\w+)\s*,\s*(\w+)\s*\)")


def entries(text):
    """The `###` entries of the page: [(title, body)]."""
    found = []
    for chunk in re.split(r"^### ", text, flags=re.M)[1:]:
        title, _, body = chunk.partition("\n")
        body = re.split(r"^#{1,2} |^\(\S+\)=$", body, flags=re.M)[0]
        found.append((title.strip(), body))
    return found


def parts(body):
    """The entry's parts, {label: text}, from its `- **Label.** text` list items."""
    out = {}
    for item in re.split(r"^- ", body, flags=re.M)[1:]:
        m = re.match(r"\*\*(\w+)\.\*\*\s*(.*)", item, re.S)
        if m:
            out[m.group(1)] = " ".join(m.group(2).split())
    return out


def cases_in(path, cache):
    """The (suite, case) pairs defined in the test file `path`, or None if it is missing."""
    if path not in cache:
        if not os.path.isfile(path):
            cache[path] = None
        else:
            with open(path, encoding="utf-8") as f:
                cache[path] = set(TEST_CASE_RE.findall(f.read()))
    return cache[path]


def check_entry(title, body, cache, failures):
    """Checks one entry; returns the number of test cases it cites."""
    if SLOT in body:
        if "chapter" not in body:
            failures.append("%s: a slot to fill at merge names no chapter" % title)
        return 0
    found = parts(body)
    for label in PARTS:
        if label not in found:
            failures.append("%s: no **%s.** part" % (title, label))
    for label, text in found.items():
        if len(text.split()) > MAX_WORDS:
            failures.append("%s: its %s part has %d words (at most %d)" %
                            (title, label, len(text.split()), MAX_WORDS))
    cited = CITATION_RE.findall(found.get("Test", "") + " " + found.get("Tests", ""))
    if not cited:
        failures.append("%s: no **Test.** part citing `Suite.Case` (`tests/...cc`)" % title)
    for suite, case, path in cited:
        cases = cases_in(path, cache)
        if cases is None:
            failures.append("%s: %s is not here; add it to PITFALL_TEST_SOURCES in docs/BUILD"
                            " (and export it from its package)" % (title, path))
        elif (suite, case) not in cases:
            failures.append("%s: %s has no test %s.%s" % (title, path, suite, case))
    return len(cited)


def main():
    if not os.path.isfile(APPENDIX):
        print("pitfalls_test: %s is missing" % APPENDIX)
        return 1
    with open(APPENDIX, encoding="utf-8") as f:
        text = f.read()
    failures = []
    cache = {}
    found = entries(text)
    if not found:
        failures.append("%s has no `###` entries" % APPENDIX)
    cited = sum(check_entry(title, body, cache, failures) for title, body in found)
    slots = sum(1 for _, body in found if SLOT in body)
    print("pitfalls_test: %d entries (%d still to fill at merge), %d test cases cited" %
          (len(found), slots, cited))
    for failure in failures:
        print("  " + failure)
    if failures:
        print("pitfalls_test: %d problem(s)" % len(failures))
        return 1
    print("pitfalls_test: PASSED")
    return 0


if __name__ == "__main__":
    sys.exit(main())
