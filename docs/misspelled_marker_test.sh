#!/usr/bin/env bash
# Proves that the book's build catches a misspelled code marker. It builds a one-chapter
# book with the real docs/conf.py four times: with correct markers (must pass), with a
# misspelled end marker, with a misspelled start marker and with a marker inside a lab's
# region (all three must fail, naming the marker). If the first build failed too, the test
# would prove nothing, so it checks both.
set -uo pipefail

tmp="${TEST_TMPDIR:?run me with bazel test}/misspelled"
rm -rf "${tmp}"
mkdir -p "${tmp}/docs" "${tmp}/chapters/99_markers"
cp -rL docs/conf.py docs/student_edition.py docs/_extra docs/_static "${tmp}/docs/"
mkdir -p "${tmp}/tools/labs"
cp -L tools/labs/make_starter.py "${tmp}/tools/labs/"

cat >"${tmp}/docs/index.md" <<'MD'
# Marker test

```{toctree}
:glob:

/chapters/*/index
```
MD

cat >"${tmp}/chapters/99_markers/sample.cc" <<'CC'
int NotQuoted() { return 0; }
// [mts:answer]
int Answer() { return 42; }
// [mts:answer-end]
CC

# A lab's region (tools/labs/make_starter.py) with a marker inside: a student copy holds the
# starter there, without the marker, so no chapter may quote it (docs/student_edition.py).
cat >"${tmp}/chapters/99_markers/lab_sample.cc" <<'CC'
int Answer() {
  // [mts:lab 99_markers]
  // [mts:inside]
  return 42;
  // [mts:inside-end]
  // [mts:lab-end]
}
CC

# Writes the chapter quoting FILE (sample.cc) between START and END.
write_chapter() {
  cat >"${tmp}/chapters/99_markers/index.md" <<MD
# Markers

\`\`\`{literalinclude} /chapters/99_markers/${3:-sample.cc}
:language: text
:start-after: "$1"
:end-before: "$2"
\`\`\`
MD
}

# Builds the little book; prints Sphinx's output into build.log.
build() {
  rm -rf "${tmp}/out"
  (cd "${tmp}" && /usr/bin/python3 -m sphinx -W --keep-going -q -b html -c docs \
    -d out/doctrees . out/html) >"${tmp}/build.log" 2>&1
}

failures=0
fail() {
  echo "FAIL: $*"
  cat "${tmp}/build.log"
  failures=$((failures + 1))
}

write_chapter "[mts:answer]" "[mts:answer-end]"
if ! build; then
  fail "correct markers should build"
elif ! grep -q "int Answer()" "${tmp}/out/html/chapters/99_markers/index.html" ||
     grep -q "NotQuoted" "${tmp}/out/html/chapters/99_markers/index.html"; then
  fail "the quoted region should be exactly the marked one"
fi

write_chapter "[mts:answer]" "[mts:answr-end]"
if build; then
  fail "a misspelled end marker should fail the build"
elif ! grep -q 'end-before pattern not found: \[mts:answr-end\]' "${tmp}/build.log"; then
  fail "the error should name the misspelled end marker"
fi

write_chapter "[mts:anwser]" "[mts:answer-end]"
if build; then
  fail "a misspelled start marker should fail the build"
elif ! grep -q 'start-after pattern not found: \[mts:anwser\]' "${tmp}/build.log"; then
  fail "the error should name the misspelled start marker"
fi

write_chapter "[mts:inside]" "[mts:inside-end]" lab_sample.cc
if build; then
  fail "a quote that starts inside a lab's region should fail the build"
elif ! grep -q "start-after \[mts:inside\] is inside lab 99_markers's region of Answer" \
    "${tmp}/build.log"; then
  fail "the error should name the marker, the lab and the function"
fi

if [ "${failures}" -ne 0 ]; then
  exit 1
fi
echo "PASS: correct markers build; misspelled ones, and one inside a lab, fail the build and are named"
