#!/usr/bin/env bash
# The labs' scorecard, as xv6's `make grade`: builds each lab's graded tests, runs them and
# prints points per test group, per lab and in total; writes grade_results/junit.xml and
# grade_results/results.json (Gradescope's format) for an autograder.
#
#   tools/grade.sh                    every lab, as the tree is (full marks on the reference)
#   tools/grade.sh 03_hooked 04_coordinated
#   tools/grade.sh --starter 03_hooked     the lab's starter (--define=lab=03_hooked): 0
#   tools/grade.sh --results_dir DIR  the reports elsewhere (Gradescope: /autograder/results)
#
# The labs, their groups and points: tools/labs/labs.bzl. Pages: chapters/NN_stage/lab.md.
set -euo pipefail
cd "$(dirname "$0")/.."
exec /usr/bin/python3 tools/labs/grade.py "$@"
