#!/usr/bin/env bash
# Exports a student's copy of mts: every file git knows about (tracked, or new and not
# ignored), without the exercises' reference solutions.
#
#   tools/export_student_copy.sh DEST
#   tools/export_student_copy.sh --labs DEST
#   tools/export_student_copy.sh --labs=03_hooked,04_coordinated DEST
#
# Removed: every file under an `exercises/` folder whose name holds `solution`
# (solution.cc, and a tracked solution_v2.cc too), and the answer keys (docs/answer_keys/).
# In its place each exercise gets its starter.cc, derived from the solution's regions
# (`// [mts:lab NAME]` ... `// [mts:lab-end]`, NAME the exercise) by
# tools/labs/make_starter.py --student, as the build derives it in this tree.
# mts_exercise builds an exercise from its starter when solution.cc is absent, so the copy
# builds as it is and each exercise test fails until the student has written the missing
# part:
#
#   cd DEST && bazel test //chapters/...
#
# With --labs, also the labs: in every source of src/ that holds lab regions
# (`// [mts:lab NAME]` ... `// [mts:lab-end]`), each region's body is replaced by its
# starter (tools/labs/make_starter.py --student), which throws UnimplementedError naming the
# lab, the function and the lab's page (--labs=LIST: only the regions of those labs; the
# others keep the reference code), and those labs' fixtures (tools/labs/fixtures/) are left
# out. The copy builds; `tools/grade.sh` there grades the
# student's work (0 for every lab at first, the groups above waiting), and
# tools/labs/STUDENT_COPY tells //tools/labs:labs_test that there is no reference to check.
# After a lab's deadline, tools/release_lab.sh (here) and tools/apply_release.sh (in the
# copy) hand its reference out without any other lab's.
#
# Refused, before anything is written (so that no answer ships by accident):
#   - a lab name in --labs that is not a lab (the list of labs is printed);
#   - a DEST inside this tree (Bazel would build the copy as part of the tree, and the next
#     export would copy it again); export outside the tree;
#   - a file git does not track in an exercise folder (a `.solution.cc.swp` of vim, a
#     `solution_v2.cc`): only what the exercise's rules name ships; remove the file, or
#     `git add` it if it belongs to the exercise;
#   - with --labs, a file git does not track that holds a lab region (a `hooked_session.cc.orig`
#     would ship the reference code).
set -euo pipefail

labs=0
only=""  # empty: every lab
case "${1:-}" in
  --labs)
    labs=1
    shift
    ;;
  --labs=*)
    labs=1
    only=",${1#--labs=},"
    shift
    ;;
esac
if [ $# -ne 1 ]; then
  echo "usage: $0 [--labs[=LAB,...]] DEST" >&2
  exit 2
fi
dest="$1"
root="$(cd "$(dirname "$0")/.." && pwd -P)"

if [ -n "${only}" ]; then
  known="$(/usr/bin/python3 -c "import sys; sys.path.insert(0, sys.argv[1]); import labs
print(' '.join(lab['name'] for lab in labs.load_labs()))" "${root}/tools/labs")"
  IFS=',' read -r -a asked <<<"${only#,}"
  named=0
  for lab in "${asked[@]}"; do
    [ -n "${lab}" ] || continue
    if [[ " ${known} " != *" ${lab} "* ]]; then
      echo "export_student_copy.sh: no lab named '${lab}' in --labs; the labs are: ${known}" >&2
      exit 2
    fi
    named=$((named + 1))
  done
  if [ "${named}" -eq 0 ]; then
    echo "export_student_copy.sh: --labs= names no lab; the labs are: ${known}" >&2
    exit 2
  fi
fi

dest_abs="$(realpath -m "${dest}")"
if [ "${dest_abs}" = "${root}" ] || [[ "${dest_abs}" == "${root}/"* ]]; then
  echo "export_student_copy.sh: ${dest} is inside the tree (${root}); Bazel would build the" \
    "copy as part of the tree and the next export would copy it again. Export outside it," \
    "for example /tmp/mts-student" >&2
  exit 1
fi
if [ -e "${dest}" ] && { [ ! -d "${dest}" ] || [ -n "$(ls -A "${dest}")" ]; }; then
  echo "export_student_copy.sh: ${dest} exists and is not an empty folder; choose a new one" >&2
  exit 1
fi

# A lab region's first line, as make_starter.py reads it.
region='^[[:space:]]*// \[mts:lab [A-Za-z0-9_]+\][[:space:]]*$'
refused=()
while IFS= read -r -d '' file; do
  case "${file}" in
    */exercises/*)
      refused+=("${file}: not tracked by git, in an exercise folder")
      continue
      ;;
  esac
  if [ "${labs}" -eq 1 ] && [ -f "${root}/${file}" ] && grep -qaE "${region}" "${root}/${file}"; then
    refused+=("${file}: not tracked by git, and holds a lab region")
  fi
done < <(git -C "${root}" ls-files -z --others --exclude-standard)
if [ "${#refused[@]}" -gt 0 ]; then
  echo "export_student_copy.sh: these files would ship answers; remove them (or git add" \
    "those that belong to the tree) and export again:" >&2
  printf '  %s\n' "${refused[@]}" >&2
  exit 1
fi

list="$(mktemp)"
trap 'rm -f "${list}"' EXIT
kept=0
removed=0
while IFS= read -r -d '' file; do
  [ -e "${root}/${file}" ] || continue  # deleted in the work tree, not yet committed
  case "${file}" in
    */exercises/*/*solution* | docs/answer_keys/*)
      removed=$((removed + 1))
      continue
      ;;
  esac
  printf '%s\0' "${file}" >>"${list}"
  kept=$((kept + 1))
done < <(git -C "${root}" ls-files -z --cached --others --exclude-standard)

mkdir -p "${dest}"
tar -C "${root}" --null -T "${list}" -cf - | tar -C "${dest}" -xf -

# The exercises' starters, each derived from the solution the copy leaves out.
starters=0
while IFS= read -r -d '' solution; do
  [ -e "${root}/${solution}" ] || continue
  exercise="$(dirname "${solution}")"
  /usr/bin/python3 "${root}/tools/labs/make_starter.py" --student \
    --lab "$(basename "${exercise}")" --path "${solution}" \
    "${root}/${solution}" "${dest}/${exercise}/starter.cc"
  starters=$((starters + 1))
done < <(git -C "${root}" ls-files -z --cached --others --exclude-standard \
           -- ':(glob)chapters/*/exercises/*/solution.cc')
echo "export_student_copy.sh: ${starters} exercise starters derived from their solutions"

if [ "${labs}" -eq 0 ]; then
  echo "export_student_copy.sh: ${kept} files in ${dest}; ${removed} solutions left out"
  exit 0
fi

regions=0
files=0
while IFS= read -r file; do
  replaced=0
  for lab in $(sed -n 's|^ *// \[mts:lab \([A-Za-z0-9_]*\)\] *$|\1|p' "${dest}/${file}" | sort -u); do
    if [ -n "${only}" ] && [[ "${only}" != *",${lab},"* ]]; then
      continue
    fi
    /usr/bin/python3 "${root}/tools/labs/make_starter.py" --student --lab "${lab}" \
      --path "${file}" "${dest}/${file}" "${dest}/${file}.starter"
    mv "${dest}/${file}.starter" "${dest}/${file}"
    regions=$((regions + $(grep -c "^ *// \[mts:lab ${lab}\]" "${dest}/${file}")))
    replaced=1
  done
  files=$((files + replaced))
done < <(cd "${dest}" && grep -rlE --include='*.cc' --include='*.h' "${region}" src)
# The fixtures of the stubbed labs (tools/labs/fixtures/LAB/*.patch: wrong solutions, as
# patches of the reference region) go too: they hold reference lines, and with no reference
# left to patch they could not be built.
stubbed=()
for lab in $(/usr/bin/python3 -c "import sys; sys.path.insert(0, sys.argv[1]); import labs
print(' '.join(lab['name'] for lab in labs.load_labs()))" "${root}/tools/labs"); do
  if [ -z "${only}" ] || [[ "${only}" == *",${lab},"* ]]; then
    stubbed+=("${lab}")
    rm -rf "${dest}/tools/labs/fixtures/${lab}"
  fi
done
/usr/bin/python3 -B "${root}/tools/labs/fixtures.py" strip --labs "$(IFS=,; echo "${stubbed[*]}")" \
  "${dest}/tools/labs/fixtures.bzl"
echo "This tree is a student copy: the lab regions hold their starters." \
  >"${dest}/tools/labs/STUDENT_COPY"
cat >>"${dest}/.bazelrc" <<'RC'

# A student copy with the labs (tools/export_student_copy.sh --labs): the programs the book
# runs during the build may stop at a lab not written yet, and say so (tools/build_defs).
build --define=student_copy=labs
RC
# The student edition of the book: what the programs the book runs printed and drew, built
# here from the reference and shipped in book_outputs/ folders, and the labs whose quoted
# regions the book shows as starters (docs/STUDENT_EDITION).
only_list="${only#,}"
/usr/bin/python3 "${root}/tools/labs/ship_book_outputs.py" "${dest}" "${only_list%,}"

echo "export_student_copy.sh: ${kept} files in ${dest}; ${removed} solutions and answer keys" \
  "left out; ${regions} lab regions in ${files} files replaced by their starters"
