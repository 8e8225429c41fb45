#!/usr/bin/env bash
# Installs every Debian package that building, testing and documenting mts needs.
# Idempotent: packages already present are left alone, so running it twice is safe.
set -euo pipefail
if [ $# -gt 0 ]; then
  echo "setup.sh: unexpected argument '$1': it takes none" >&2
  exit 2
fi

PACKAGES=(
  # The build: Debian's Bazel 4.2 and the C++ toolchain.
  bazel-bootstrap g++ clang libclang-rt-14-dev pkg-config
  # Libraries wired into WORKSPACE as local repositories.
  libeigen3-dev libgtest-dev libgmock-dev libbenchmark-dev libabsl-dev
  libprotobuf-dev protobuf-compiler libgrpc++-dev protobuf-compiler-grpc
  # Image summaries: zlib deflates the PNGs mts encodes; libpng decodes them in the tests only.
  zlib1g-dev libpng-dev
  # The independent decoder that checks event files mts writes (tests/03_hooked/events), and
  # python3-pil, which opens the pictures of image summaries in tests/tools.
  python3-protobuf python3-pil
  # tools/plot_scalars.py: a log directory's scalars drawn to PNG or SVG, without TensorBoard.
  python3-matplotlib
  # The book: Doxygen XML -> Breathe -> Sphinx (MyST Markdown), with graphviz diagrams.
  doxygen graphviz python3-sphinx python3-breathe python3-myst-parser python3-sphinx-rtd-theme
  # The book's browser test (//docs:browser_test): every page loaded in headless chromium.
  chromium chromium-driver
  # //tools:code_size_test: where each function of src/ starts and ends.
  universal-ctags
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup.sh: all ${#PACKAGES[@]} packages already installed"
  exit 0
fi

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
echo "setup.sh: installing ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
echo "setup.sh: done"
