#!/usr/bin/env bash
# Builds the mts book as HTML, with warnings as errors, from the tree in the current
# directory (the repository's shape: docs/, chapters/, src/, ...). Bazel runs it in a
# runfiles tree, where generated files such as example outputs sit beside the sources:
#   //docs:book       (bazel run; tools/build_book.sh)  writes to the directory given
#   //docs:book_test  (bazel test)                       writes to $TEST_TMPDIR
# Usage: docs/make_book.sh [OUT_DIR]   -> OUT_DIR/html/index.html
set -euo pipefail

out="${1:-${TEST_TMPDIR:-}}"
if [ -z "${out}" ]; then
  echo "usage: $0 OUT_DIR" >&2
  exit 2
fi
if [ ! -f docs/conf.py ]; then
  echo "make_book.sh: run me from the top of the tree (no docs/conf.py in $PWD)" >&2
  exit 2
fi
mkdir -p "${out}"
out="$(cd "${out}" && pwd)"
rm -rf "${out}/doxygen" "${out}/html" "${out}/doctrees"
mkdir -p "${out}/doxygen"

# 1. Doxygen: XML of src/ for Breathe. With no src/ yet, an empty input keeps the API page
#    empty instead of letting Doxygen scan the whole tree.
input_line=""
if [ ! -d src ]; then
  mkdir -p "${out}/doxygen/empty"
  input_line="INPUT = ${out}/doxygen/empty"
fi
{
  cat docs/Doxyfile
  echo "OUTPUT_DIRECTORY = ${out}/doxygen"
  echo "WARN_LOGFILE = ${out}/doxygen/warnings.log"
  echo "${input_line}"
} | doxygen - >/dev/null
# Doxygen's warnings fail the build as Sphinx's do: each one is a comment that renders
# wrong (a <step> read as an HTML tag swallowed the text of two constructors' docs).
if [ -s "${out}/doxygen/warnings.log" ]; then
  echo "make_book.sh: Doxygen warnings (fix the comments they name):" >&2
  sort -u "${out}/doxygen/warnings.log" >&2
  exit 1
fi

# 2. Sphinx, warnings as errors: a broken marker or a dangling reference fails the build.
MTS_DOXYGEN_XML="${out}/doxygen/xml" /usr/bin/python3 -m sphinx \
  -W --keep-going -q -b html -c docs -d "${out}/doctrees" . "${out}/html"

echo "make_book.sh: the book is at ${out}/html/index.html"
