#!/usr/bin/env bash
# Writes the release of one lab: its reference code, to hand students after the deadline.
#
#   tools/release_lab.sh 03_hooked /tmp/release-03     in the reference tree
#
# The folder holds release.json (the bodies of the lab's regions, nothing else), a diff to
# read and a README. A student applies it in their copy with
#
#   tools/apply_release.sh /path/to/release-03
#
# which replaces only that lab's regions and keeps the rest of their work (tools/labs/release.py).
set -euo pipefail
if [ $# -ne 2 ]; then
  echo "usage: $0 LAB OUT" >&2
  exit 2
fi
lab="$1"
out="$(cd "$(dirname "$2")" 2>/dev/null && pwd)/$(basename "$2")" || {
  echo "release_lab.sh: the folder that would hold $2 does not exist" >&2
  exit 1
}
cd "$(dirname "$0")/.."
exec /usr/bin/python3 tools/labs/release.py make "${lab}" "${out}"
