#!/usr/bin/env bash
# Builds the mts book as HTML for reading, with warnings as errors, and prints where it is.
#
#   tools/build_book.sh            -> docs/_build/html/index.html
#
# Bazel first builds everything the book quotes or shows (example programs run and their
# output is captured, see tools/build_defs/book.bzl), then docs/make_book.sh runs Doxygen
# and Sphinx on that tree. Extra arguments go to Bazel (for example --config=asan).
set -euo pipefail

cd "$(dirname "$0")/.."
out="${PWD}/docs/_build"

bazel run "$@" //docs:book -- "${out}"
