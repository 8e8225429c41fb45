#!/usr/bin/env bash
# The labs' scorecard, as xv6's `make grade`: builds the graded tests, runs them and prints
# points per test group, per lab and in total, with the groups that wait for a later lab;
# writes grade_results/junit.xml and grade_results/results.json (Gradescope's format).
#
#   tools/grade.sh                    every lab, as the tree is (full marks on the reference)
#   tools/grade.sh 03_hooked 04_coordinated
#   tools/grade.sh --starter 03_hooked     the lab's starter (--define=lab=03_hooked): 0
#   tools/grade.sh --tsan 04_coordinated   the threaded labs' groups again under
#                                     ThreadSanitizer (--config=tsan): a data race loses
#                                     the group's points, with the report's first lines
#   tools/grade.sh --results_dir DIR  the reports elsewhere (Gradescope: /autograder/results);
#                                     a relative DIR is taken from where you run this
#   tools/grade.sh --help             the labs, their points, what each needs, the scoring rule
#
# The labs, their groups and points: tools/labs/labs.bzl. Pages: chapters/NN_stage/lab.md.
set -euo pipefail
export MTS_GRADE_CALLER_DIR="${PWD}"
cd "$(dirname "$0")/.."
exec /usr/bin/python3 tools/labs/grade.py "$@"
