#!/usr/bin/env bash
# Applies a lab's release (made by the teacher with tools/release_lab.sh) to this copy:
# the bodies of that lab's regions become the reference code; every other lab, and
# everything else in the files, stays as you wrote it. What the regions held is kept in
# lab_backups/LAB/. If a region cannot be matched (a marker deleted, a file missing), it
# says which and changes nothing.
#
#   tools/apply_release.sh /path/to/release-03
set -euo pipefail
if [ $# -ne 1 ]; then
  echo "usage: $0 RELEASE_FOLDER" >&2
  exit 2
fi
release="$(cd "$1" 2>/dev/null && pwd)" || {
  echo "apply_release.sh: no folder $1" >&2
  exit 1
}
cd "$(dirname "$0")/.."
exec /usr/bin/python3 tools/labs/release.py apply "${release}"
