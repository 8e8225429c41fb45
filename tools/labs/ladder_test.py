#!/usr/bin/python3
"""The ladder (bazel test //tools/labs:ladder_test): the labs written one at a time, in book
order, starting from a copy where every lab is a starter.

Rung 0 has every lab's starter; rung K has the reference code of the first K labs and the
starters of the rest; the last rung is the reference tree. At every rung the lab table is
graded by the grader's own rule (labs.grade_labs), and the test checks that

  - every lab put back so far is written and has full marks on the groups that count, the
    lab put back at this rung included (so it went from 0 to full marks at its own rung);
  - no lab put back earlier lost a point since the rung before (its score only grows, as
    the groups waiting for the lab just written start to count);
  - every lab not put back yet scores 0 and is not written;
  - on the last rung nothing waits: every lab has all its points.

A rung costs no build. The reference test binaries link the layers as shared objects; a
rung's starters are the lab functions alone, with their starter bodies
(lib<name>_lab_starter.so, as labs_test uses them), preloaded in front of each binary: for a
group, those of the labs it needs that the rung has not put back. A group's run depends only
on that set, so each (test, filter, starters) runs once for the whole ladder.

Groups marked "linkstatic" (lab 07's over gRPC, and lab 06's group over gRPC) link the layers into
the executable, where no preload reaches. Where such a group needs a lab the rung has not
put back, the ladder takes it as failing and says so ("assumed"); that is what the real
builds check: `.ci/run` grades an exported all-starters copy (rung 0, built for real) and
runs `tools/grade.sh --starter 07_distributed` (rung 7 for these groups: only lab 07 a
starter), and both must give lab 07 0. On the last rung they run for real.

Two more checks ride on the same runfiles:
  - the invariant the scoring rule rests on: each case of a waiting group is a case of the
    own groups of the last lab it waits for, so a group that starts to count passes;
  - the release (release.py, tools/release_lab.sh): from the lab sources with every region
    a starter (as tools/export_student_copy.sh --labs writes them), applying the release of
    each lab in book order gives, after lab K, exactly the reference for labs up to K and
    the starters for the rest, file by file.
"""

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import labs as labs_lib  # noqa: E402
import make_starter  # noqa: E402
import release  # noqa: E402

ASSUMED = "assumed failing: a linkstatic test cannot take a preloaded starter (see .ci/run)"


class Ladder:
    """Runs groups for the rungs, each (test, filter, starters) once."""

    def __init__(self, table, root, srcdir):
        self.table = table
        self.root = root
        self.srcdir = srcdir
        self.cache = {}
        self.assumed = set()  # (lab, group) taken as failing at some rung
        self.runs = 0

    def starter_objects(self, labs):
        return [os.path.join(self.root, labs_lib.library_starter_path(library))
                for lab in self.table if lab["name"] in labs for library in lab["libraries"]]

    def runner(self, put_back):
        def run(group):
            starters = tuple(n for n in group["needs"] if n not in put_back)
            key = (group["test"], group["filter"], starters)
            if key not in self.cache:
                if starters and group.get("linkstatic"):
                    result = labs_lib.GroupResult(group)
                    result.failed = ["(every case)"]
                    result.note = ASSUMED
                    self.assumed.add(group["name"])
                else:
                    binary = os.path.join(self.root, labs_lib.binary_path(group["test"]))
                    result = labs_lib.run_group(group, binary, self.srcdir,
                                                self.starter_objects(starters), timeout=60)
                    self.runs += 1
                self.cache[key] = result
            shared = self.cache[key]
            result = labs_lib.GroupResult(group)
            result.passed, result.failed = shared.passed, shared.failed
            result.messages, result.note = shared.messages, shared.note
            return result

        return run


def check_rung(rung, grades, previous, names, problems):
    for index, grade in enumerate(grades):
        name = names[index]
        where = "rung %d (%s): lab %s" % (rung, "all starters" if rung == 0 else
                                           "reference up to " + names[rung - 1], name)
        failing = ["%s: %s" % (r.group["name"], r.result.note or (
            r.result.failed[0] + ": " + r.result.messages.get(r.result.failed[0], ""))[:300])
            for r in grade.rows if not r.waiting and not r.result.ok]
        if index < rung:
            if not grade.written or grade.score != grade.max_score:
                problems.append("%s is put back but scores %d/%d%s; failing: %s" % (
                    where, grade.score, grade.max_score,
                    "" if grade.written else ", not written", "; ".join(failing)))
            if previous and grade.score < previous[index].score:
                problems.append("%s lost points: %d at the rung before, %d now" % (
                    where, previous[index].score, grade.score))
        elif grade.score != 0 or grade.written:
            passing = [r.group["name"] for r in grade.rows if not r.waiting and r.result.ok]
            problems.append("%s is a starter but scores %d/%d (passing: %s)" % (
                where, grade.score, grade.max_score, ", ".join(passing)))
        if rung == len(names) and grade.waiting_points:
            problems.append("%s: on the reference, %d points still wait" % (
                where, grade.waiting_points))


def check_waiting_cases(table, root, problems):
    """Each case of a waiting group is a case of the own groups of the last lab it needs."""
    by_name = {lab["name"]: lab for lab in table}
    checked = 0
    for lab in table:
        for group in lab["groups"]:
            later = labs_lib.later_needs(lab, group, table)
            if not later:
                continue
            last = by_name[later[-1]]
            binary = os.path.join(root, labs_lib.binary_path(group["test"]))
            covered = set()
            for own in labs_lib.own_groups(last, table):
                if own["test"] == group["test"]:
                    covered.update(labs_lib.list_cases(binary, own["filter"]))
            cases = labs_lib.list_cases(binary, group["filter"])
            missing = [c for c in cases if c not in covered]
            checked += 1
            if not cases or missing:
                problems.append(
                    "lab %s, group %r waits for lab %s, but %s of its cases are in none of "
                    "lab %s's own groups: %s" % (lab["name"], group["name"], last["name"],
                                                 len(missing) if cases else "none",
                                                 last["name"], ", ".join(missing[:5])))
    return checked


def check_releases(table, root, problems):
    """Release by release in book order, from all starters: reference up to K, starters
    after; returns the number of files checked."""
    names = [lab["name"] for lab in table]
    reference = {}
    for name in names:
        reference.update(release.lab_files(root, name))
    if not reference:
        problems.append("no lab source in the runfiles (tools/labs/BUILD: lab_srcs)")
        return 0
    current = {path: release.starters_of_all(text, path) for path, text in reference.items()}
    for k, name in enumerate(names):
        files = {p: t for p, t in reference.items() if "// [mts:lab %s]" % name in t}
        made = release.make_release(name, files)
        for path, entry in made["files"].items():
            try:
                current[path] = release.release_text(current[path], path, name, entry)
            except release.ReleaseError as e:
                problems.append("release of %s: %s" % (name, e))
        written = set(names[:k + 1])
        for path, text in reference.items():
            expected = text
            for lab in sorted({r.lab for r in release.regions(text, path)} - written):
                expected, _ = make_starter.starter(expected, lab, path, student=True)
            if current[path] != expected:
                got, want = current[path].splitlines(), expected.splitlines()
                line = next((i for i, (a, b) in enumerate(zip(got, want)) if a != b),
                            min(len(got), len(want)))
                problems.append(
                    "after the releases up to %s, %s differs from reference-up-to-%s at line "
                    "%d: %r, expected %r" % (name, path, name, line + 1,
                                             got[line] if line < len(got) else "<end>",
                                             want[line] if line < len(want) else "<end>"))
    return len(reference)


def main():
    srcdir = os.environ.get("TEST_SRCDIR")
    if not srcdir:
        print("ladder_test: run me with `bazel test //tools/labs:ladder_test`")
        return 2
    root = os.path.join(srcdir, "mts")
    if os.path.exists(os.path.join(root, "tools/labs/STUDENT_COPY")):
        print("ladder_test: a student copy holds no reference to climb to; tools/grade.sh "
              "grades it")
        return 0
    table = labs_lib.load_labs()
    names = [lab["name"] for lab in table]
    problems = []

    start = time.monotonic()
    files = check_releases(table, root, problems)
    print("releases: %d lab sources, %d releases applied in book order (%.1f s)" % (
        files, len(names), time.monotonic() - start))

    start = time.monotonic()
    waiting = check_waiting_cases(table, root, problems)
    print("waiting groups: %d, each covered by the own groups of the lab it waits for "
          "(%.1f s)" % (waiting, time.monotonic() - start))

    ladder = Ladder(table, root, srcdir)
    previous = None
    for rung in range(len(names) + 1):
        start = time.monotonic()
        runs = ladder.runs
        grades, _ = labs_lib.grade_labs(table, table, ladder.runner(set(names[:rung])))
        check_rung(rung, grades, previous, names, problems)
        print("rung %d %-24s %s  (%d runs, %.1f s)" % (
            rung, "(all starters)" if rung == 0 else "(+ " + names[rung - 1] + ")",
            " ".join("%d/%d" % (g.score, g.max_score) for g in grades),
            ladder.runs - runs, time.monotonic() - start), flush=True)
        previous = grades
    if ladder.assumed:
        print("assumed failing where a lab they need is a starter (linkstatic): %s" %
              ", ".join(sorted(ladder.assumed)))
    for p in problems:
        print("  " + p)
    if problems:
        print("ladder_test: %d problem(s)" % len(problems))
        return 1
    print("ladder_test: PASSED")
    return 0


if __name__ == "__main__":
    sys.exit(main())
