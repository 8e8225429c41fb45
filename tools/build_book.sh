#!/usr/bin/env bash
# Builds the mts book as HTML for reading, with warnings as errors, and prints where it is.
#
#   tools/build_book.sh                 -> docs/_build/html/index.html
#   tools/build_book.sh --student[=LAB,...]
#                                       -> docs/_build/student/html/index.html
#
# Bazel first builds everything the book quotes or shows (example programs run and their
# output is captured, see tools/build_defs/book.bzl), then docs/make_book.sh runs Doxygen
# and Sphinx on that tree. Extra arguments go to Bazel (for example --config=asan).
#
# Two editions (docs/student_edition.py). In the reference tree the book is the teacher's:
# it quotes the labs' code as written. --student builds the student edition there (every
# lab, or those named): each quote of a lab's code shows the starter, the contract and "you
# write this in lab NN", for a teacher to publish. A student copy made with
# `tools/export_student_copy.sh --labs` builds the student edition of its labs by default
# (docs/STUDENT_EDITION), with the diagrams and transcripts the reference made at export.
set -euo pipefail

cd "$(dirname "$0")/.."
out="${PWD}/docs/_build"
case "${1:-}" in
  --student)
    export MTS_STUDENT_EDITION=all
    out="${out}/student"
    shift
    ;;
  --student=*)
    export MTS_STUDENT_EDITION="${1#--student=}"
    out="${out}/student"
    shift
    ;;
esac

bazel run "$@" //docs:book -- "${out}"
