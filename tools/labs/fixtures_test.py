#!/usr/bin/python3
"""Every wrong solution loses points (bazel test //tools/labs:fixtures_test).

A fixture (tools/labs/fixtures.py) is a lab's reference region with one plausible mistake.
For each one this test loads the lab library built from the patched source
(lib<name>_fixture_<fixture>.so, tools/labs/lab.bzl) in place of the reference library
under the reference test binaries: they link the layers as shared objects, so a folder
holding the fixture's library under the reference library's file name, put first on
LD_LIBRARY_PATH, swaps the whole library and nothing else. Then the lab table is graded by
the grader's own rule (labs.grade_labs) and the test checks that

  - the fixture loses points: the total is below the reference's (a group it breaks may be
    another lab's, when the fixture's mistake shows only in the layers above: the scoring
    rule then costs that lab the points, as it would cost the student);
  - every case its patch names under `Killed by:` fails;
  - the table of fixtures (fixtures.bzl) and the patches agree, and each lab has at least
    MIN_PER_LAB of them;
  - each group's "linkstatic" mark is true of its binary (readelf's NEEDED list): a group
    not marked loads every lab library it needs as a shared object, so it can take a
    fixture's, and a group marked does not.

Only the groups whose test links the fixture's lab run again; the others are the
reference's results. A group marked "linkstatic" (the layers linked into the executable)
cannot take another library: it keeps the reference's result, so a fixture that only such
a group would catch survives here (lab 07's fixtures are written against its groups that
call the store directly). `tools/grade.sh` builds such groups for real and grades them.

Under --config=tsan (the CI's ThreadSanitizer pass; tools/labs/BUILD gives --tsan), the
binaries and the fixtures' libraries are built with ThreadSanitizer, and the fixtures marked
`Race: yes` (a lock skipped: nothing an assert sees) are graded instead: a TSan report fails
the case it came in (labs.run_group), so each must lose points there. Without TSan those
fixtures are not graded, since a race may or may not show.

Prints one line per fixture (the points it loses, the groups that fail, the first failing
case of each) and the kill rate per lab.
"""

import fnmatch
import os
import re
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fixtures as fixtures_lib  # noqa: E402
import labs as labs_lib  # noqa: E402

MIN_PER_LAB = 5
RUN_TIMEOUT_SECS = 60  # A fixture that hangs a test fails it after this.


def solib_name(library):
    """The file name under which the test binaries load a library (Bazel's _solib_k8 names):
    //src/03_hooked:hooked_session -> libsrc_S03_Uhooked_Slibhooked_Usession.so."""
    package, name = library[2:].split(":")

    def mangle(text):
        return text.replace("_", "_U").replace("/", "_S")

    return "lib%s_Slib%s.so" % (mangle(package), mangle(name))


def fixture_so(root, entry):
    package, name = entry["library"][2:].split(":")
    return os.path.join(root, package, "lib%s_fixture_%s.so" % (name, entry["name"]))


def check_table(table, entries, patches, problems):
    """fixtures.bzl against the patches and the lab table."""
    labs = {lab["name"]: lab for lab in table}
    by_key = {(f.lab, f.name): f for f in patches}
    listed = set()
    for entry in entries:
        key = (entry["lab"], entry["name"])
        listed.add(key)
        where = "fixtures.bzl: %s/%s" % key
        if entry["lab"] not in labs:
            problems.append("%s: no lab %s in labs.bzl" % (where, entry["lab"]))
            continue
        if entry["library"] not in labs[entry["lab"]]["libraries"]:
            problems.append("%s: %s is not a library of lab %s" % (
                where, entry["library"], entry["lab"]))
        fixture = by_key.get(key)
        if fixture is None:
            problems.append("%s: no tools/labs/fixtures/%s/%s.patch" % ((where,) + key))
            continue
        package = entry["library"][2:].split(":")[0]
        if fixture.src != "%s/%s" % (package, entry["src"]):
            problems.append("%s: the patch changes %s, the table says %s/%s" % (
                where, fixture.src, package, entry["src"]))
        if not fixture.killed_by:
            problems.append("%s: its patch names no case under `Killed by:`" % where)
        if fixture.race != bool(entry.get("race")):
            problems.append("%s: the patch says `Race: %s`, the table %s" % (
                where, "yes" if fixture.race else "no",
                '"race": True' if entry.get("race") else 'no "race"'))
    for fixture in patches:
        if (fixture.lab, fixture.name) not in listed:
            problems.append("%s: not in tools/labs/fixtures.bzl, so it is never built" %
                            fixture.path)
    for lab in table:
        count = sum(1 for e in entries if e["lab"] == lab["name"])
        if count < MIN_PER_LAB:
            problems.append("lab %s has %d fixtures, fewer than %d" % (
                lab["name"], count, MIN_PER_LAB))


def as_group(group, shared):
    """A run's cases under this group's points (groups of several labs share a run)."""
    result = labs_lib.GroupResult(group)
    result.passed, result.failed = shared.passed, shared.failed
    result.messages, result.note = shared.messages, shared.note
    return result


def needed_libraries(binary):
    """The shared objects the binary names as NEEDED (readelf), or None if it cannot tell."""
    try:
        out = subprocess.run(["readelf", "-d", binary], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    return set(re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", out))


def check_linkstatic(table, root, problems):
    """A group's "linkstatic" mark against its binary: a group marked so must not load its
    labs' libraries as shared objects (else the checks could reach it and do not), and one
    not marked must load each lab's library it needs (else a fixture could never reach it
    and would survive unseen)."""
    seen = {}
    libraries = {l["name"]: l["libraries"] for l in table}
    for lab in table:
        for group in lab["groups"]:
            binary = os.path.join(root, labs_lib.binary_path(group["test"]))
            if group["test"] not in seen:
                seen[group["test"]] = needed_libraries(binary) if os.path.exists(binary) else None
            needed = seen[group["test"]]
            if needed is None:
                continue
            loaded = [n for n in group["needs"]
                      if any(solib_name(l) in needed for l in libraries[n])]
            where = "labs.bzl: lab %s, group %r (%s)" % (lab["name"], group["name"], group["test"])
            if group.get("linkstatic") and loaded:
                problems.append("%s is marked linkstatic, but its binary loads the libraries "
                                "of %s as shared objects: remove the mark, so the checks reach "
                                "it" % (where, ", ".join(loaded)))
            elif not group.get("linkstatic") and len(loaded) != len(group["needs"]):
                problems.append("%s does not load the libraries of %s as shared objects: mark "
                                "it linkstatic" % (where, ", ".join(
                                    n for n in group["needs"] if n not in loaded)))


class Grader:
    """Runs groups with a fixture's library in place; each reference run once."""

    def __init__(self, table, root, srcdir, tsan):
        self.table = table
        self.tsan = tsan
        self.root = root
        self.srcdir = srcdir
        self.reference = {}

    def binary(self, group):
        return os.path.join(self.root, labs_lib.binary_path(group["test"]))

    def skipped(self, group):
        """Under ThreadSanitizer only the groups marked "tsan" that can take a fixture's
        library are built and run; the others keep their points (the plain run grades
        them, and .ci/run's TSan pass runs the linkstatic tests on the reference)."""
        return self.tsan and (not group.get("tsan") or group.get("linkstatic"))

    def run_reference(self, group):
        key = (group["test"], group["filter"])
        if self.skipped(group):
            result = labs_lib.GroupResult(group)
            result.passed = ["(not graded under ThreadSanitizer)"]
            return result
        if key not in self.reference:
            self.reference[key] = labs_lib.run_group(group, self.binary(group), self.srcdir,
                                                     timeout=120)
        return as_group(group, self.reference[key])

    def reachable(self, group, lab):
        """Whether the group's test links the lab and can take another library."""
        return lab in group["needs"] and not group.get("linkstatic") and not self.skipped(group)

    def runner(self, lab, library_dir, cache, chosen=None):
        """run(group) for labs.grade_labs: the group again with the fixture's library when
        its test links the fixture's lab and can take it (and, given `chosen`, its test and
        filter are among them); the reference result otherwise."""

        def run(group):
            key = (group["test"], group["filter"])
            if not self.reachable(group, lab) or (chosen is not None and key not in chosen):
                return self.run_reference(group)
            if key not in cache:
                cache[key] = labs_lib.run_group(group, self.binary(group), self.srcdir,
                                                timeout=RUN_TIMEOUT_SECS,
                                                library_path=library_dir)
            return as_group(group, cache[key])

        return run

    def killer_groups(self, lab, patterns):
        """The (test, filter) of the reachable groups holding a case the patterns name."""
        chosen = set()
        for grade_lab in self.table:
            for group in grade_lab["groups"]:
                if not self.reachable(group, lab):
                    continue
                cases = self.run_reference(group).passed
                if any(fnmatch.filter(cases, p) for p in patterns):
                    chosen.add((group["test"], group["filter"]))
        return chosen


def killed_by_failures(fixture, grades):
    """The `Killed by:` patterns that match no failing case of the graded groups."""
    failing = {c for g in grades for r in g.rows if not r.waiting for c in r.result.failed}
    return [p for p in fixture.killed_by if not fnmatch.filter(failing, p)]


def main():
    srcdir = os.environ.get("TEST_SRCDIR")
    if not srcdir:
        print("fixtures_test: run me with `bazel test //tools/labs:fixtures_test`")
        return 2
    root = os.path.join(srcdir, "mts")
    if os.path.exists(os.path.join(root, "tools/labs/STUDENT_COPY")):
        print("fixtures_test: a student copy has no reference for the fixtures to change")
        return 0
    tsan = "--tsan" in sys.argv[1:]
    full_run = "--full" in sys.argv[1:]  # `--test_arg=--full`: every group for every fixture
    table = labs_lib.load_labs()
    entries = fixtures_lib.load_table(os.path.join(root, "tools/labs/fixtures.bzl"))
    patches = fixtures_lib.all_fixtures(os.path.join(root, "tools/labs/fixtures"))
    for fixture in patches:
        fixture.path = os.path.relpath(fixture.path, root)  # As the messages name it.
    problems = []
    check_table(table, entries, patches, problems)
    if not tsan:  # Under TSan only the graded tests of the threaded labs are built.
        check_linkstatic(table, root, problems)
    by_key = {(f.lab, f.name): f for f in patches}

    grader = Grader(table, root, srcdir, tsan)
    start = time.monotonic()
    reference, _ = labs_lib.grade_labs(table, table, grader.run_reference)
    full = sum(g.score for g in reference)
    for grade in reference:
        for row in grade.rows:
            if row.waiting or not row.result.ok:
                problems.append("the reference does not pass lab %s's group %r (%s): %s" % (
                    grade.lab["name"], row.group["name"], row.group["test"],
                    row.result.note if row.result else "waiting"))
    print("reference: %d/%d (%.1f s)%s" % (full, sum(g.max_score for g in reference),
                                          time.monotonic() - start,
                                          ", under ThreadSanitizer" if tsan else ""))

    tally = {}
    for entry in entries:
        fixture = by_key.get((entry["lab"], entry["name"]))
        if fixture is None or fixture.race != tsan:
            continue
        lab = entry["lab"]
        so = fixture_so(root, entry)
        if not os.path.exists(so):
            problems.append("%s: its library %s is not in the runfiles" % (fixture.path, so))
            continue
        start = time.monotonic()
        cache = {}
        with tempfile.TemporaryDirectory(prefix="fixture_") as library_dir:
            os.symlink(so, os.path.join(library_dir, solib_name(entry["library"])))
            # First the groups that hold the cases its patch names: if those fail, it is
            # killed, and the other groups keep the reference's result (so the points it
            # loses are at least those). Else every group it can reach, to show what
            # (if anything) catches it. --full: every group, always.
            chosen = None if full_run else grader.killer_groups(lab, fixture.killed_by)
            grades, _ = labs_lib.grade_labs(table, table,
                                            grader.runner(lab, library_dir, cache, chosen))
            missed = killed_by_failures(fixture, grades)
            if missed and chosen is not None:
                grades, _ = labs_lib.grade_labs(table, table,
                                                grader.runner(lab, library_dir, cache))
                chosen = None
        score = sum(g.score for g in grades)
        failing = ["%s (%s: %s)" % (r.group["name"], g.lab["name"], r.result.failed[0])
                   for g in grades for r in g.rows if not r.waiting and not r.result.ok]
        killed = score < full
        counted = tally.setdefault(lab, [0, 0])
        counted[1] += 1
        counted[0] += killed
        print("%-16s %-34s %s (%d runs, %.1f s)" % (
            lab, entry["name"], "SURVIVES" if not killed else "loses %s%d points" % (
                "at least " if chosen is not None else "", full - score),
            len(cache), time.monotonic() - start), flush=True)
        for line in sorted(set(failing)):
            print("    " + line)
        if not killed:
            problems.append("%s survives: it scores full marks (%s)" % (
                fixture.path, fixture.title))
        if missed:
            problems.append("%s: `Killed by:` names %s, which pass with it" % (
                fixture.path, ", ".join(missed)))
    print("kill rate%s: %s" % (" under ThreadSanitizer (fixtures marked Race: yes)" if tsan else
                               "", ", ".join("%s %d/%d" % (lab, k, n)
                                             for lab, (k, n) in tally.items())))
    for p in problems:
        print("  " + p)
    if problems:
        print("fixtures_test: %d problem(s)" % len(problems))
        return 1
    print("fixtures_test: PASSED")
    return 0


if __name__ == "__main__":
    sys.exit(main())
