#!/usr/bin/python3
"""The lab table against what it describes (bazel test //tools/labs:table_test).

  1. Each group's `needs` in labs.bzl is exactly the set of labs whose libraries its test
     links, as the build graph says: tools/labs/BUILD runs a genquery per graded test
     (`deps(TEST) intersect (the lab libraries)`), and a lab is needed when one of its
     libraries is in the answer. So a new dependency of a test (a test double that links a
     higher stage) shows here, and the grader never runs a group on a lab it did not wait
     for.
  2. `needs` names known labs, in book order, and includes the group's own lab; no lab or
     group has a key that no tool reads (a misspelt `need` would be ignored).
  3. A group that waits for a later lab has, among that last lab's own groups, one on the
     same test (ladder_test checks the cases themselves).
  4. Each lab page starts with the labs it needs and the labs some of its groups wait for,
     as labs.py derives them from the table: a line `**Needs:** ...` near the top, whose
     lab names before `**Waits for:**` are the prerequisites and after it the waited-for;
     and its table of groups has the table's groups, points, and when each counts, and
     its *How this lab is scored* gives the lab's own and full points.
  5. Each lab page's *First run* quotes a scorecard of this table: its heading names the
     lab, title and page, and its lines are the lab's groups, in order, with their points
     (a first run quoted from an older table is caught; its numbers of cases may grow).
  6. The stack the labs build (labs.STACK: the rows tools/grade.sh prints and the book's
     "What you will build" page draws) has one row per lab of the table, and a lab drawn
     beside another is beside a lab of the stack; the page's table of labs lists them in
     book order, each with the labs it needs.
  7. Each lab page has a section `## What the tests check`: a table mapping what the page
     says (each "must", trap and hint that states a behaviour) to the test cases that check
     it, `Suite.Case` (a `*` allowed) in one of the lab's graded tests. Every case it names
     exists in that test, under the filter of one of the lab's groups on it (the graded
     binaries are listed with --gtest_list_tests), so the table cannot name a case that is
     not graded, or one that was renamed.
  8. Each fixture (tools/labs/fixtures/LAB/NAME.patch, a wrong solution) is killed by a
     case its lab page's table names, so every fixture targets a behaviour the page states,
     and the instructor's guide names every fixture for the teachers.
"""

import fnmatch
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fixtures as fixtures_lib  # noqa: E402
import labs as labs_lib  # noqa: E402

# The keys a lab and a group may have. A new key (a group graded under ThreadSanitizer, say)
# joins here once labs.py and grade.py give it a meaning; until then a misspelt key (`need`)
# is an error instead of a silently ignored line.
LAB_KEYS = {"name", "title", "page", "libraries", "must_fail", "groups"}
GROUP_KEYS = {"name", "test", "filter", "points", "needs", "linkstatic", "tsan"}
LAB_NAME = re.compile(r"(?<![\w/])(0\d_[a-z_]*[a-z])\b")


def needs_query_file(root, test):
    """tools/labs/BUILD's genquery output for the test (lab.bzl, needs_query_name)."""
    return os.path.join(root, "tools/labs",
                        "needs_" + test.replace("/", "_").replace(":", "_"))


def check_keys(table, problems):
    for lab in table:
        unknown = sorted(set(lab) - LAB_KEYS)
        if unknown:
            problems.append("labs.bzl: lab %s has keys no tool reads: %s" % (lab["name"], unknown))
        for group in lab["groups"]:
            unknown = sorted(set(group) - GROUP_KEYS)
            if unknown:
                problems.append("labs.bzl: lab %s, group %r has keys no tool reads: %s (add "
                                "them to GROUP_KEYS in table_test.py with their meaning)" % (
                                    lab["name"], group["name"], unknown))


def check_needs(table, root, problems):
    order = [lab["name"] for lab in table]
    owner = {library: lab["name"] for lab in table for library in lab["libraries"]}
    for lab in table:
        for group in lab["groups"]:
            where = "labs.bzl: lab %s, group %r" % (lab["name"], group["name"])
            needs = group.get("needs")
            if not isinstance(needs, list):
                problems.append("%s has no `needs` list" % where)
                continue
            unknown = [n for n in needs if n not in order]
            if unknown:
                problems.append("%s needs unknown labs %s" % (where, unknown))
                continue
            if needs != sorted(set(needs), key=order.index):
                problems.append("%s: list `needs` once each, in book order: %s" % (
                    where, sorted(set(needs), key=order.index)))
            if lab["name"] not in needs:
                problems.append("%s does not need its own lab: its test links none of the "
                                "lab's libraries, so it grades nothing of it" % where)
            with open(needs_query_file(root, group["test"]), encoding="utf-8") as f:
                linked = {owner[line.strip()] for line in f if line.strip() in owner}
            graph = sorted(linked, key=order.index)
            if sorted(set(needs), key=order.index) != graph:
                problems.append(
                    "%s says needs %s, but %s links the libraries of %s (bazel query "
                    "'deps(%s)'); fix the table, or the dependency if it is incidental" % (
                        where, needs, group["test"], graph, group["test"]))


def check_waiting(table, problems):
    by_name = {lab["name"]: lab for lab in table}
    for lab in table:
        for group in lab["groups"]:
            later = labs_lib.later_needs(lab, group, table)
            if not later:
                continue
            last = by_name[later[-1]]
            if not any(g["test"] == group["test"] for g in labs_lib.own_groups(last, table)):
                problems.append(
                    "labs.bzl: lab %s, group %r waits for lab %s, whose own groups do not run "
                    "%s: once lab %s is written the group could still fail, and a later "
                    "lab would cost lab %s points; give lab %s a group on that test" % (
                        lab["name"], group["name"], last["name"], group["test"],
                        last["name"], lab["name"], last["name"]))


def names_in(text):
    return [m.group(1) for m in LAB_NAME.finditer(text)]


def check_pages(table, root, problems):
    for lab in table:
        path = os.path.join(root, lab["page"])
        with open(path, encoding="utf-8") as f:
            head = f.read().split("\n## ", 1)[0]  # Up to the first section.
        line = next((l for l in head.split("\n\n") if l.startswith("**Needs:**")), None)
        if line is None:
            problems.append("%s: no paragraph starting `**Needs:**` before its first section "
                            "(the labs it needs: %s)" % (lab["page"], ", ".join(
                                labs_lib.prerequisites(lab, table)) or "none"))
            continue
        needs_part, _, waits_part = " ".join(line.split()).partition("**Waits for:**")
        want_needs = labs_lib.prerequisites(lab, table)
        want_waits = labs_lib.waits_for(lab, table)
        got_needs = sorted(set(names_in(needs_part)) - {lab["name"]})
        got_waits = sorted(set(names_in(waits_part)) - {lab["name"]})
        if got_needs != sorted(want_needs):
            problems.append("%s: `**Needs:**` names %s; the table says %s" % (
                lab["page"], got_needs or "no lab", want_needs or "no lab"))
        if got_waits != sorted(want_waits):
            problems.append("%s: `**Waits for:**` names %s; the table says %s" % (
                lab["page"], got_waits or "no lab", want_waits or "no lab"))


def check_group_tables(table, root, problems):
    """The page's table of groups: the table's groups, in order, with their points and
    when they count ("now", or once the later labs they need are written)."""
    for lab in table:
        with open(os.path.join(root, lab["page"]), encoding="utf-8") as f:
            text = f.read()
        match = re.search(r"## Make the test groups pass in this order\n\n\| group[^\n]*\n"
                          r"\| ---[^\n]*\n((?:\|[^\n]*\n)+)", text)
        if not match:
            problems.append("%s: no table under `## Make the test groups pass in this order`"
                            % lab["page"])
            continue
        rows = [[c.strip() for c in row.strip().strip("|").split("|")]
                for row in match.group(1).splitlines()]
        if [r[0] for r in rows] != [g["name"] for g in lab["groups"]]:
            problems.append("%s: the table's groups are %s; labs.bzl has %s" % (
                lab["page"], [r[0] for r in rows], [g["name"] for g in lab["groups"]]))
            continue
        own = sum(g["points"] for g in labs_lib.own_groups(lab, table))
        full = sum(g["points"] for g in lab["groups"])
        said = re.search(r"scores (\d+)/(\d+) as soon as its own groups pass, (\d+)/(\d+) once",
                         " ".join(text.split())) or re.search(
                             r"the lab scores (\d+)/(\d+) when they all pass", " ".join(text.split()))
        expected = [own, own, full, full] if own != full else [full, full]
        if not said or [int(n) for n in said.groups()] != expected:
            problems.append("%s: *How this lab is scored* should say it scores %s" % (
                lab["page"], "%d/%d as soon as its own groups pass, %d/%d once the labs above "
                "are written" % (own, own, full, full) if own != full else "%d/%d" % (full, full)))
        for row, group in zip(rows, lab["groups"]):
            later = labs_lib.later_needs(lab, group, table)
            if len(row) < 4 or row[2] != str(group["points"]) or sorted(
                    names_in(row[3])) != sorted(later) or (row[3] == "now") != (not later):
                problems.append(
                    "%s: the row of %r should give %d points and count %s: %s" % (
                        lab["page"], group["name"], group["points"],
                        "now" if not later else "once %s are written" % ", ".join(later),
                        " | ".join(row)))


def check_first_run(table, root, problems):
    """The scorecard a lab page quotes under `## First run` is one of this table."""
    for lab in table:
        with open(os.path.join(root, lab["page"]), encoding="utf-8") as f:
            text = f.read()
        match = re.search(r"\n## First run\n.*?```text\n(.*?)```", text, re.S)
        if not match:
            problems.append("%s: no scorecard in a text block under `## First run`" % lab["page"])
            continue
        lines = match.group(1).splitlines()
        heading = "== lab %s: %s (%s)" % (lab["name"], lab["title"], lab["page"])
        if heading not in lines:
            problems.append("%s: the first run's scorecard does not start with %r" % (
                lab["page"], heading))
        rows = [re.match(r"^(\S.*?) \.{3,} (?:(?:FAIL|OK) +\d+/\d+ +cases +(\d+)/(\d+)"
                         r"|waits for .*\((\d+) points\))", line) for line in lines]
        rows = [r for r in rows if r]
        got = [(r.group(1), int(r.group(3) or r.group(4))) for r in rows]
        want = [(g["name"], g["points"]) for g in lab["groups"]]
        if got != want:
            problems.append("%s: the first run's scorecard shows the groups %s; labs.bzl has %s "
                            "(run `tools/grade.sh --starter %s` and quote it again)" % (
                                lab["page"], got, want, lab["name"]))


def check_stack(table, root, problems):
    names = [lab["name"] for lab in table]
    rows = [row["lab"] for row in labs_lib.STACK]
    for name in names:
        if rows.count(name) != 1:
            problems.append("labs.py: STACK has %d rows for lab %s; give it one (its layer and "
                            "what the layer does), where it sits in the stack" % (
                                rows.count(name), name))
    for row in labs_lib.STACK:
        if row["lab"] not in names:
            problems.append("labs.py: STACK draws %s, which labs.bzl does not have" % row["lab"])
        if row.get("beside") and row["beside"] not in rows:
            problems.append("labs.py: STACK draws %s beside %s, which is not in the stack" % (
                row["lab"], row["beside"]))
    path = os.path.join(root, labs_lib.STACK_PAGE)
    with open(path, encoding="utf-8") as f:
        text = f.read()
    listed = []
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if not line.startswith("| {doc}") or len(cells) < 3:
            continue
        lab = names_in(cells[0])[:1]
        listed.append(lab[0] if lab else cells[0])
        if not lab or lab[0] not in names:
            continue
        want = labs_lib.prerequisites(next(l for l in table if l["name"] == lab[0]), table)
        earlier = names[:names.index(lab[0])]
        got = earlier if cells[1] == "every lab before it" else sorted(
            set(names_in(cells[1])), key=names.index)
        if got != want or (not want and cells[1] != "no other lab"):
            problems.append("%s: the row of lab %s says it needs %r; labs.bzl says %s" % (
                labs_lib.STACK_PAGE, lab[0], cells[1], ", ".join(want) or "no other lab"))
    if listed != names:
        problems.append("%s: its table of labs lists %s; labs.bzl has, in book order, %s" % (
            labs_lib.STACK_PAGE, listed, names))


BEHAVIOUR_SECTION = "## What the tests check"
CASE = re.compile(r"`([A-Za-z_*][\w*/]*\.[\w*/]+)`")
TARGET = re.compile(r"`(//tests/[\w/]+:\w+)`")


def behaviour_rows(text):
    """[(what the page says, [case patterns], [test labels])] of the page's table under
    BEHAVIOUR_SECTION, or None when the page has no such section."""
    if "\n" + BEHAVIOUR_SECTION + "\n" not in text:
        return None
    section = text.split("\n" + BEHAVIOUR_SECTION + "\n", 1)[1].split("\n## ", 1)[0]
    rows = []
    for line in section.splitlines():
        if not line.startswith("|") or line.startswith("| ---") or line.startswith("| the page"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 3:
            rows.append((line, [], []))
            continue
        rows.append((cells[0], CASE.findall(cells[1]), TARGET.findall(cells[2])))
    return rows


def graded_cases(lab, root):
    """{test label: the cases the lab's groups on that test grade}."""
    cases = {}
    for group in lab["groups"]:
        binary = os.path.join(root, labs_lib.binary_path(group["test"]))
        cases.setdefault(group["test"], set()).update(
            labs_lib.list_cases(binary, group["filter"]))
    return cases


def check_behaviour_tables(table, root, problems):
    """Returns {lab name: the case patterns its page's table names}."""
    named = {}
    for lab in table:
        with open(os.path.join(root, lab["page"]), encoding="utf-8") as f:
            rows = behaviour_rows(f.read())
        if rows is None:
            problems.append("%s: no section `%s` (what the page says, and the cases that "
                            "check it)" % (lab["page"], BEHAVIOUR_SECTION))
            continue
        if not rows:
            problems.append("%s: `%s` has no table rows" % (lab["page"], BEHAVIOUR_SECTION))
        graded = graded_cases(lab, root)
        named[lab["name"]] = []
        for says, cases, targets in rows:
            where = "%s, `%s` row %r" % (lab["page"], BEHAVIOUR_SECTION, says[:60])
            if not cases or len(targets) != 1:
                problems.append("%s: a row names `Suite.Case` cases in its second column and "
                                "one `//tests/...:target` in its third" % where)
                continue
            target = targets[0]
            if target not in graded:
                problems.append("%s: %s is not a graded test of lab %s (labs.bzl): name a case "
                                "that counts" % (where, target, lab["name"]))
                continue
            for case in cases:
                if not fnmatch.filter(graded[target], case):
                    problems.append("%s: %s has no graded case %s (%d cases under the lab's "
                                    "filters)" % (where, target, case, len(graded[target])))
            named[lab["name"]] += cases
    return named


def check_fixtures_named(root, named, problems):
    """Each fixture is killed by a case its page names; the guide names every fixture."""
    with open(os.path.join(root, "docs/instructors_guide.md"), encoding="utf-8") as f:
        guide = f.read()
    for fixture in fixtures_lib.all_fixtures(os.path.join(root, "tools/labs/fixtures")):
        where = "tools/labs/fixtures/%s/%s.patch" % (fixture.lab, fixture.name)
        cases = named.get(fixture.lab, [])
        for killer in fixture.killed_by:
            if not any(fnmatch.fnmatch(c, killer) or fnmatch.fnmatch(killer, c) for c in cases):
                problems.append("%s is killed by %s, which the lab page's `%s` table does not "
                                "name: add the behaviour it checks there" % (
                                    where, killer, BEHAVIOUR_SECTION))
        if "`%s/%s`" % (fixture.lab, fixture.name) not in guide:
            problems.append("docs/instructors_guide.md does not name the fixture `%s/%s` (what "
                            "it does wrong, what catches it)" % (fixture.lab, fixture.name))


def main():
    srcdir = os.environ.get("TEST_SRCDIR")
    if not srcdir:
        print("table_test: run me with `bazel test //tools/labs:table_test`")
        return 2
    root = os.path.join(srcdir, "mts")
    table = labs_lib.load_labs()
    problems = []
    check_keys(table, problems)
    check_needs(table, root, problems)
    check_waiting(table, problems)
    check_pages(table, root, problems)
    check_group_tables(table, root, problems)
    check_first_run(table, root, problems)
    check_stack(table, root, problems)
    named = check_behaviour_tables(table, root, problems)
    check_fixtures_named(root, named, problems)
    for lab in table:
        print("lab %-16s needs %-60s waits for %s" % (
            lab["name"], ", ".join(labs_lib.prerequisites(lab, table)) or "-",
            ", ".join(labs_lib.waits_for(lab, table)) or "-"))
    for p in problems:
        print("  " + p)
    if problems:
        print("table_test: %d problem(s)" % len(problems))
        return 1
    print("table_test: PASSED")
    return 0


if __name__ == "__main__":
    sys.exit(main())
