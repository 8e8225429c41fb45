#!/bin/bash
# export_student_copy_test.sh: tools/export_student_copy.sh against the careless and the
# hostile uses the reliability appendix lists, on a small git repository of its own (the
# script, the lab tools, one lab source with regions of two labs, one exercise):
#   1. --labs with a lab that does not exist is refused with the list of labs, and so is an
#      empty --labs=; nothing is written;
#   2. a destination inside the tree is refused (also reached through `..` or a symlink),
#      so a second export can never nest the first; the tree has a .bazelignore as well;
#   3. files git does not track in an exercise folder (a vim swap file of the solution, a
#      solution_v2.cc) are refused, named, and nothing is written; a tracked
#      solution_v2.cc is left out like solution.cc;
#   4. with --labs, an untracked file holding a lab region (an .orig of a lab source) is
#      refused;
#   5. a good export: no solution text anywhere in the copy, the chosen lab's regions are
#      starters and the other lab's stay, the chosen lab's fixtures (tools/labs/fixtures/)
#      are left out and the other's stay, the copy is marked as a student copy.
# Each check that fails says which and exits 1.
set -u

fail() { echo "FAIL: $*"; exit 1; }
# expect STATUS GOT FILE PATTERN...: the exit status, and each grep -F pattern in FILE.
expect() {
  want="$1"; got="$2"; file="$3"; shift 3
  [ "$got" -eq "$want" ] || { cat "$file"; fail "exit status $got, not $want ($file)"; }
  for pattern in "$@"; do
    grep -qF -- "$pattern" "$file" || { cat "$file"; fail "'$pattern' not in $file"; }
  done
}

work="${TEST_TMPDIR:-/tmp}/export_test"
rm -rf "$work"
repo="$work/repo"
mkdir -p "$repo/tools/labs" "$repo/src/03_hooked" "$repo/chapters/03_hooked/exercises/ex"
cp tools/export_student_copy.sh "$repo/tools/"
cp tools/labs/make_starter.py tools/labs/labs.py tools/labs/labs.bzl tools/labs/fixtures.py \
  "$repo/tools/labs/"
mkdir -p "$repo/tools/labs/fixtures/01_session" "$repo/tools/labs/fixtures/03_hooked"
cat > "$repo/tools/labs/fixtures.bzl" <<'BZL'
"""The labs' fixtures."""

FIXTURES = [
    {"lab": "01_session", "name": "wrong", "library": "//src/03_hooked:hooked", "src": "hooked.cc"},
    {"lab": "03_hooked", "name": "wrong", "library": "//src/03_hooked:hooked", "src": "hooked.cc"},
]
BZL
printf '# SessionFixtureSecret\n' > "$repo/tools/labs/fixtures/01_session/wrong.patch"
printf '# HookedFixtureSecret\n' > "$repo/tools/labs/fixtures/03_hooked/wrong.patch"
cp .bazelignore "$repo/"
# A stand-in for the step that ships the book's outputs (it builds them with Bazel in the
# reference tree: //docs:student_edition_test and .ci/run check the real one).
cat > "$repo/tools/labs/ship_book_outputs.py" <<'PY'
import os, sys
os.makedirs(os.path.join(sys.argv[1], "docs"), exist_ok=True)
with open(os.path.join(sys.argv[1], "docs", "STUDENT_EDITION"), "w") as f:
    f.write((sys.argv[2] if len(sys.argv) > 2 else "") + "\n")
PY
printf '/student/\n' > "$repo/.gitignore"
touch "$repo/WORKSPACE" "$repo/.bazelrc"
cat > "$repo/src/03_hooked/hooked.cc" <<'CC'
namespace mts {

void Session::Run() {
  // [mts:lab 01_session]
  SessionRunSecret();
  // [mts:lab-end]
}

void HookedSession::Run() {
  // [mts:lab 03_hooked]
  HookedRunSecret();
  // [mts:lab-end]
}

}  // namespace mts
CC
cat > "$repo/chapters/03_hooked/exercises/ex/solution.cc" <<'CC'
void Ex() {
  // [mts:lab ex]
  ExerciseSecret();
  // [mts:lab-end]
}
CC
printf 'mts_exercise(name = "ex")\n' > "$repo/chapters/03_hooked/exercises/ex/BUILD"
git -C "$repo" init -q
git -C "$repo" add -A
script="$repo/tools/export_student_copy.sh"
grep -qx student "$repo/.bazelignore" || fail ".bazelignore does not make Bazel skip student/"

# 1. A typo in --labs, and an empty list.
"$script" --labs=03_hoked "$work/typo" > "$work/1.txt" 2>&1
expect 2 $? "$work/1.txt" "no lab named '03_hoked' in --labs; the labs are: 01_session" \
  "03_hooked"
[ ! -e "$work/typo" ] || fail "--labs=03_hoked wrote $work/typo"
"$script" --labs= "$work/empty" > "$work/1b.txt" 2>&1
expect 2 $? "$work/1b.txt" "--labs= names no lab"
[ ! -e "$work/empty" ] || fail "--labs= wrote $work/empty"

# 2. Inside the tree: directly, through `..`, through a symlink to the tree.
ln -s "$repo" "$work/link"
for inside in "$repo/student" "$repo/src/../student" "$work/link/student" "$repo"; do
  "$script" --labs "$inside" > "$work/2.txt" 2>&1
  expect 1 $? "$work/2.txt" "is inside the tree" "Export outside it"
done
[ ! -e "$repo/student" ] || fail "an export inside the tree was written"

# 3. Untracked files in an exercise folder.
ex="$repo/chapters/03_hooked/exercises/ex"
cp "$ex/solution.cc" "$ex/.solution.cc.swp"
cp "$ex/solution.cc" "$ex/solution_v2.cc"
"$script" "$work/swap" > "$work/3.txt" 2>&1
expect 1 $? "$work/3.txt" "would ship answers" \
  "chapters/03_hooked/exercises/ex/.solution.cc.swp: not tracked by git, in an exercise folder" \
  "chapters/03_hooked/exercises/ex/solution_v2.cc: not tracked by git"
[ ! -e "$work/swap" ] || fail "an export with a swap file in an exercise was written"
rm "$ex/.solution.cc.swp"
git -C "$repo" add "$ex/solution_v2.cc"  # Tracked: left out like solution.cc.

# 4. An untracked copy of a lab source, with --labs.
cp "$repo/src/03_hooked/hooked.cc" "$repo/src/03_hooked/hooked.cc.orig"
"$script" --labs "$work/orig" > "$work/4.txt" 2>&1
expect 1 $? "$work/4.txt" "src/03_hooked/hooked.cc.orig: not tracked by git, and holds a lab region"
[ ! -e "$work/orig" ] || fail "an export with an .orig lab source was written"
rm "$repo/src/03_hooked/hooked.cc.orig"

# 5. A good export of lab 03 only.
"$script" --labs=03_hooked "$work/copy" > "$work/5.txt" 2>&1
expect 0 $? "$work/5.txt" "1 lab regions in 1 files replaced by their starters"
if grep -rqE "ExerciseSecret|HookedRunSecret|HookedFixtureSecret" "$work/copy"; then
  grep -rlE "ExerciseSecret|HookedRunSecret|HookedFixtureSecret" "$work/copy"
  fail "solution text shipped"
fi
# Lab 03's fixtures are gone, from the folder and the table; lab 01's stay with its code.
grep -q '"lab": "03_hooked"' "$work/copy/tools/labs/fixtures.bzl" \
  && fail "fixtures.bzl still lists lab 03's fixtures"
grep -q '"lab": "01_session"' "$work/copy/tools/labs/fixtures.bzl" \
  || fail "fixtures.bzl lost lab 01's fixtures, whose lab keeps its code"
grep -q "SessionFixtureSecret" "$work/copy/tools/labs/fixtures/01_session/wrong.patch" \
  || fail "lab 01's fixture should ship with --labs=03_hooked"
grep -q "SessionRunSecret" "$work/copy/src/03_hooked/hooked.cc" \
  || fail "lab 01's region should keep its code with --labs=03_hooked"
grep -q 'lab 03_hooked: HookedSession::Run is yours to write' \
  "$work/copy/src/03_hooked/hooked.cc" || fail "lab 03's region is not its starter"
[ -f "$work/copy/tools/labs/STUDENT_COPY" ] || fail "the copy is not marked as a student copy"
[ -f "$work/copy/chapters/03_hooked/exercises/ex/starter.cc" ] || fail "the starter is missing"

# A second export, to a new folder, holds no trace of the first.
"$script" --labs "$work/copy2" > "$work/6.txt" 2>&1
expect 0 $? "$work/6.txt" "2 lab regions in 1 files replaced"
grep -qE "FixtureSecret|\"lab\":" -r "$work/copy2/tools/labs/fixtures" \
  "$work/copy2/tools/labs/fixtures.bzl" && fail "a fixture shipped with --labs"
[ "$(find "$work/copy2" -name STUDENT_COPY | wc -l)" -eq 1 ] \
  || fail "the second copy nests another copy"
"$script" --labs "$work/copy2" > "$work/7.txt" 2>&1
expect 1 $? "$work/7.txt" "exists and is not an empty folder"
echo "PASS"
