#!/usr/bin/python3
"""Makes a student copy's book the student edition: what the reference printed, shipped.

    ship_book_outputs.py DEST [LAB,...]      (run by tools/export_student_copy.sh --labs)

The book shows what programs printed and drew while it was built (tools/build_defs/book.bzl).
In a student copy a program that goes through a lab's starter stops at the first
UnimplementedError, so its diagram would be a crash. This script, run in the reference tree
(the one the copy is exported from), does two things to the copy at DEST:

1. For every genrule of the book (tagged `mts_book_output`) whose programs depend on the
   libraries of the labs handed out (all labs, or LAB,...), it builds the outputs here, from
   the reference, and copies each to DEST/<package>/book_outputs/<file>. In the copy
   (`--define=student_copy=labs`) the genrule copies those files instead of running anything,
   so the student sees every diagram and transcript from the first day.
2. It writes DEST/docs/STUDENT_EDITION, the labs handed out: there the book quotes each of
   their regions as its starter, with the contract and "you write this in lab N"
   (docs/student_edition.py).
"""

import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import labs as labs_table  # noqa: E402  (tools/labs/labs.py, beside this file)

TAG = "mts_book_output"  # tools/build_defs/book.bzl, BOOK_OUTPUT_TAG
EDITION_FILE = "docs/STUDENT_EDITION"


def bazel(*args):
    """The stdout of `bazel ARGS` run at the top of the reference tree; exits on failure."""
    done = subprocess.run(["bazel", args[0], "--noshow_progress", "--ui_event_filters=-info"] +
                          list(args[1:]), cwd=ROOT,
                          stdout=subprocess.PIPE, text=True, check=False)
    if done.returncode != 0:
        sys.exit("ship_book_outputs.py: `bazel %s` failed in %s (see above); the reference "
                 "tree must build the book (tools/build_book.sh) before a student copy can "
                 "ship its outputs" % (" ".join(args), ROOT))
    return done.stdout.split()


def book_outputs(libraries):
    """The output files of the book's genrules that depend on any of `libraries`."""
    rules = "let book = deps(//docs:book) in attr(tags, '%s', $book) intersect " \
            "rdeps($book, set(%s))" % (TAG, " ".join(libraries))
    return bazel("query", "labels(outs, %s)" % rules)


def main(argv):
    if len(argv) not in (2, 3):
        print("usage: ship_book_outputs.py DEST [LAB,...]", file=sys.stderr)
        return 2
    dest = argv[1]
    table = labs_table.load_labs()
    names = [lab["name"] for lab in table]
    chosen = argv[2].split(",") if len(argv) == 3 and argv[2] else names
    unknown = [name for name in chosen if name not in names]
    if unknown:
        print("ship_book_outputs.py: no lab named %s; the labs are %s (tools/labs/labs.bzl)"
              % (", ".join(unknown), ", ".join(names)), file=sys.stderr)
        return 2
    libraries = [library for lab in table if lab["name"] in chosen
                 for library in lab["libraries"]]

    files = book_outputs(libraries)
    if files:
        bazel("build", *files)
    bin_dir = bazel("info", "bazel-bin")[0]
    for label in files:
        package, name = label[2:].split(":")
        target = os.path.join(dest, package, "book_outputs", name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile(os.path.join(bin_dir, package, name), target)

    with open(os.path.join(dest, EDITION_FILE), "w", encoding="utf-8") as f:
        f.write("# The student edition of the book (docs/student_edition.py): where the book\n"
                "# quotes a region of these labs it shows the starter, the contract and\n"
                "# \"you write this in lab N\". Written by tools/export_student_copy.sh.\n")
        f.write("".join(name + "\n" for name in chosen))
    print("ship_book_outputs.py: %d files the book shows, printed by the reference, in "
          "book_outputs/ folders; the book is the student edition of %s"
          % (len(files), "every lab" if chosen == names else "lab " + ", ".join(chosen)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
