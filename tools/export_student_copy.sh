#!/usr/bin/env bash
# Exports a student's copy of mts: every file git knows about (tracked, or new and not
# ignored), without the exercises' reference solutions.
#
#   tools/export_student_copy.sh DEST
#
# Removed: every `solution.*` file under an `exercises/` folder. mts_exercise builds an
# exercise from its starter when solution.cc is absent, so the copy builds as it is and
# each exercise test fails until the student has written the missing part:
#
#   cd DEST && bazel test //chapters/...
set -euo pipefail

if [ $# -ne 1 ]; then
  echo "usage: $0 DEST" >&2
  exit 2
fi
dest="$1"
if [ -e "${dest}" ] && [ -n "$(ls -A "${dest}")" ]; then
  echo "export_student_copy.sh: ${dest} exists and is not empty; choose a new folder" >&2
  exit 1
fi

root="$(cd "$(dirname "$0")/.." && pwd)"
list="$(mktemp)"
trap 'rm -f "${list}"' EXIT

kept=0
removed=0
while IFS= read -r -d '' file; do
  [ -e "${root}/${file}" ] || continue  # deleted in the work tree, not yet committed
  case "${file}" in
    */exercises/*/solution.*)
      removed=$((removed + 1))
      continue
      ;;
  esac
  printf '%s\0' "${file}" >>"${list}"
  kept=$((kept + 1))
done < <(git -C "${root}" ls-files -z --cached --others --exclude-standard)

mkdir -p "${dest}"
tar -C "${root}" --null -T "${list}" -cf - | tar -C "${dest}" -xf -

echo "export_student_copy.sh: ${kept} files in ${dest}; ${removed} solutions left out"
