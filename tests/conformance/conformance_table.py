#!/usr/bin/python3
"""The conformance table: every TensorFlow test function considered, its mts case, its status.

    conformance_table.py CASES.txt                 prints the table as Markdown (the book's)
    conformance_table.py --check CASES.txt T.cc..  fails unless CASES.txt and the cases agree

The check is what keeps the table honest: every row that says "passes" names a gtest case
that exists in the named file (a "difference" names one too, unless what differs is a
feature mts lacks), every case in the files has a row, a
"difference" row starts with an anchor of the names page (docs/tensorflow_names.md), and no
TF test is listed twice. Whether the cases pass is bazel test's job: they run in //...
"""
import collections
import os
import re
import sys

STATUSES = ("passes", "difference", "n/a")
NAMES_PAGE = "../../docs/tensorflow_names.md"

Row = collections.namedtuple("Row", "tf_file tf_test status mts_case note")


def read_cases(path):
    rows = []
    with open(path) as f:
        for number, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            fields = [field.strip() for field in line.split("|")]
            if len(fields) != 5:
                sys.exit("%s:%d: expected 5 fields separated by |, got %d" %
                         (path, number, len(fields)))
            row = Row(*fields)
            if row.status not in STATUSES:
                sys.exit("%s:%d: status %r is not one of %s" % (path, number, row.status,
                                                                 ", ".join(STATUSES)))
            rows.append(row)
    return rows


def anchors_of(names_page):
    """The heading anchors MyST makes for the names page's ## and ### headings."""
    anchors = set()
    with open(names_page) as f:
        for line in f:
            m = re.match(r"#{2,3} (.*)", line)
            if m:
                slug = re.sub(r"[^\w\- ]", "", m.group(1).lower()).strip().replace(" ", "-")
                anchors.add(slug)
    return anchors


def check(cases_path, sources, names_page):
    rows = read_cases(cases_path)
    errors = []
    defined = set()
    for source in sources:
        binary = os.path.basename(source)[:-3]
        with open(source) as f:
            for suite, name in re.findall(r"^TEST(?:_F)?\((\w+), (\w+)\)", f.read(), re.M):
                defined.add("%s:%s.%s" % (binary, suite, name))
    listed = set()
    seen = set()
    anchors = anchors_of(names_page)
    for row in rows:
        if (row.tf_file, row.tf_test) in seen:
            errors.append("%s %s is listed twice" % (row.tf_file, row.tf_test))
        seen.add((row.tf_file, row.tf_test))
        if row.status == "n/a":
            if row.mts_case != "-" or not row.note:
                errors.append("%s: an n/a row has no mts case and says why" % row.tf_test)
            continue
        # A difference may have no case: what it differs in (a graph event, say) is absent.
        if row.mts_case == "-" and row.status == "difference":
            pass
        elif row.mts_case not in defined:
            errors.append("%s: no case %s in %s" % (row.tf_test, row.mts_case, " ".join(sources)))
        listed.add(row.mts_case)
        if row.status == "difference":
            anchor = row.note.split(" ")[0]
            if anchor not in anchors:
                errors.append("%s: a difference row's note must start with a names-page anchor "
                              "(one of %s), got %r" % (row.tf_test, sorted(anchors), anchor))
    for case in sorted(defined - listed):
        errors.append("case %s has no row in %s" % (case, cases_path))
    if errors:
        sys.exit("\n".join(errors))
    counts = collections.Counter(row.status for row in rows)
    print("conformance table OK: %d TF tests, %s" %
          (len(rows), ", ".join("%d %s" % (counts[s], s) for s in STATUSES)))


def markdown(cases_path):
    rows = read_cases(cases_path)
    counts = collections.Counter(row.status for row in rows)
    out = []
    out.append("%d TensorFlow test functions: **%d pass** in mts, **%d are deliberate "
               "differences**, **%d are not applicable**. Every passing row is a gtest case "
               "that `bazel test //tests/conformance/...` runs.\n" %
               (len(rows), counts["passes"], counts["difference"], counts["n/a"]))
    by_file = collections.OrderedDict()
    for row in rows:
        by_file.setdefault(row.tf_file, []).append(row)
    for tf_file, file_rows in by_file.items():
        file_counts = collections.Counter(row.status for row in file_rows)
        out.append("### `%s`\n" % tf_file)
        out.append("%d functions: %d pass, %d differ, %d not applicable.\n" %
                   (len(file_rows), file_counts["passes"], file_counts["difference"],
                    file_counts["n/a"]))
        out.append("| TensorFlow test | mts case | status |")
        out.append("| --- | --- | --- |")
        for row in file_rows:
            case = "`%s`" % row.mts_case if row.mts_case != "-" else "(none)"
            if row.status == "passes":
                status = "passes" + ("; " + row.note if row.note else "")
            elif row.status == "difference":
                anchor, _, why = row.note.partition(" ")
                status = "[deliberate difference](%s#%s): %s" % (NAMES_PAGE, anchor, why)
            else:
                status = "not applicable: " + row.note
            out.append("| `%s` | %s | %s |" % (row.tf_test, case, status.replace("|", "\\|")))
        out.append("")
    return "\n".join(out)


def main(argv):
    if len(argv) >= 2 and argv[1] == "--check":
        # --check CASES NAMES_PAGE SOURCES...
        check(argv[2], argv[4:], argv[3])
    elif len(argv) == 2:
        print(markdown(argv[1]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
