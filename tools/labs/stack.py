#!/usr/bin/python3
"""The stack the labs build, for the book's "What you will build" page
(chapters/00_introduction/what_you_will_build.md); tools/labs/BUILD runs it while the book
is built.

    stack.py --dot               the figure: graphviz, one box per lab (labs.stack_dot)
    stack.py --written_up_to LAB the stack as tools/grade.sh prints it at the end of a
                                 scorecard, for a student whose labs are right up to LAB in
                                 book order and starters after it

The second is the grader's own printout (labs.stack_lines), on scores the grader's own
rule gives (labs.grade_labs) when every group passes whose needed labs are all right, and
no other: what the ladder test sees at LAB's rung. So the page shows what tools/grade.sh
prints, from the same rows the figure draws.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import labs as labs_lib  # noqa: E402


def printout_written_up_to(table, last):
    """grade.sh's closing stack for a student whose labs are right up to `last`."""
    order = [lab["name"] for lab in table]
    right = set(order[:order.index(last) + 1])

    def run(group):
        result = labs_lib.GroupResult(group)
        case = "%s.AllCases" % group["name"]
        (result.passed if set(group["needs"]) <= right else result.failed).append(case)
        return result

    grades, written = labs_lib.grade_labs(table, table, run)
    return labs_lib.stack_lines(table, written, grades)


def main():
    table = labs_lib.load_labs()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dot", action="store_true", help="print the figure (graphviz)")
    parser.add_argument("--written_up_to", metavar="LAB", choices=[l["name"] for l in table],
                        help="print grade.sh's stack with the labs up to LAB written")
    args = parser.parse_args()
    if args.dot == bool(args.written_up_to):
        parser.error("give exactly one of --dot and --written_up_to LAB")
    if args.dot:
        sys.stdout.write(labs_lib.stack_dot(table))
    else:
        print("\n".join(printout_written_up_to(table, args.written_up_to)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
