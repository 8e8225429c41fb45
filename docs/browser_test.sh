#!/usr/bin/env bash
# The book in a real browser: builds it with docs/make_book.sh, then docs/browser_test.py
# loads every page in headless chromium and checks links, anchors, diagrams, highlighting,
# and keeps screenshots.
#   bazel test //docs:browser_test      screenshots in bazel-testlogs/docs/browser_test/
#                                       test.outputs/ (outputs.zip)
#   docs/browser_test.sh HTML_DIR [OUT] checks a book already built, e.g. docs/_build/html
set -euo pipefail

if [ $# -ge 1 ]; then
  exec /usr/bin/python3 "$(dirname "$0")/browser_test.py" "$@"
fi
if [ -z "${TEST_TMPDIR:-}" ]; then
  echo "usage: $0 HTML_DIR [SCREENSHOT_DIR]   (or run it as bazel test //docs:browser_test)" >&2
  exit 2
fi
if ! command -v chromium >/dev/null; then
  echo "browser_test: chromium is not installed; run tools/setup.sh" >&2
  exit 1
fi
docs/make_book.sh "${TEST_TMPDIR}/book" 2>"${TEST_TMPDIR}/make_book.log" ||
  { cat "${TEST_TMPDIR}/make_book.log" >&2; exit 1; }
exec /usr/bin/python3 docs/browser_test.py "${TEST_TMPDIR}/book/html"
