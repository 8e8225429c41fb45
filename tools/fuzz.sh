#!/usr/bin/env bash
# Builds mts's libFuzzer targets with clang and runs each for a bounded time.
#
#   tools/fuzz.sh [SECONDS] [TARGET...]
#
# SECONDS per target (default 60); TARGETs default to all of them (tests/fuzz/*_fuzzer.cc).
# Each target starts from its checked-in seed corpus, tests/fuzz/corpus/<target>/, and
# writes what it discovers into a scratch corpus under the build directory, never into the
# repository. A crash leaves its input in tests/fuzz/crashes/ (to become a regression test)
# and makes this script exit non-zero. Prints one line per target: executions, corpus size,
# and crashes. The targets fuzz side by side, one per core.
#
# Why a script and not Bazel: Bazel here builds with g++, and libFuzzer needs clang's
# coverage instrumentation. Switching Bazel's toolchain to clang for a few binaries would
# re-configure and rebuild everything else, so the few sources a target needs are compiled
# directly, with -fsanitize=fuzzer,address,undefined. MTS_FUZZ_OUT picks the build
# directory (default /tmp/mts-fuzz).
set -euo pipefail

cd "$(dirname "$0")/.."
seconds="${1:-60}"
shift || true
# libFuzzer reads a -max_total_time it cannot parse as 0, which means "forever".
if ! [[ "${seconds}" =~ ^[1-9][0-9]*$ ]]; then
  echo "fuzz.sh: SECONDS must be a whole number above 0 (got '${seconds}');" \
    "usage: tools/fuzz.sh [SECONDS] [TARGET...]" >&2
  exit 2
fi
out="${MTS_FUZZ_OUT:-/tmp/mts-fuzz}"
mkdir -p "${out}/obj" "${out}/gen" tests/fuzz/crashes

CXX="${CXX_FUZZ:-clang++-14}"
SAN="-fsanitize=address,undefined -fno-sanitize-recover=all"
# Line tables are all a crash report needs to name file and line; full debug info compiles slower.
CXXFLAGS=(-std=c++17 -gline-tables-only -O1 -fno-omit-frame-pointer ${SAN} -I. -I"${out}/gen"
          -isystem /usr/include/eigen3 -Wall -Werror -Wno-unused-parameter)

# The library sources each target needs (the deps of its cc_library, flattened).
BASE=(src/platform/errors.cc src/platform/clock.cc src/platform/logging.cc
      src/platform/file_system.cc src/platform/posix_file_system.cc
      src/platform/crc32c.cc)
declare -A SOURCES=(
  [checkpoint_reader_fuzzer]="${BASE[*]} src/01_session/allocator.cc src/01_session/tensor.cc src/01_session/tensor_shape.cc
      src/01_session/types.cc src/02_chief_worker/checkpoint/checkpoint_reader.cc
      src/02_chief_worker/checkpoint/checkpoint_writer.cc"
  [checkpoint_state_fuzzer]="${BASE[*]} src/02_chief_worker/checkpoint/checkpoint_state.cc
      src/02_chief_worker/checkpoint/checkpoint_state_text.cc
      ${out}/gen/src/02_chief_worker/checkpoint/checkpoint_state.pb.cc"
  [event_file_reader_fuzzer]="${BASE[*]} src/03_hooked/events/record_reader.cc
      src/03_hooked/events/event_file_reader.cc ${out}/gen/src/01_session/summary.pb.cc
      ${out}/gen/src/01_session/graph_def.pb.cc ${out}/gen/src/03_hooked/events/event.pb.cc"
  # Stage 07's messages reach the whole of stage 01: the store re-makes and runs update ops.
  [ps_message_fuzzer]="$(ls src/01_session/*.cc src/01_session/learning/*.cc src/platform/*.cc |
                         tr '\n' ' ')
      ${out}/gen/src/01_session/summary.pb.cc ${out}/gen/src/01_session/graph_def.pb.cc
      ${out}/gen/src/01_session/step_stats.pb.cc ${out}/gen/src/07_distributed/parameter_server.pb.cc
      src/07_distributed/tensor_coding.cc src/07_distributed/variable_store.cc"
)
declare -A LIBS=([checkpoint_state_fuzzer]=-lprotobuf [event_file_reader_fuzzer]=-lprotobuf
                 [ps_message_fuzzer]="-lprotobuf -lpthread -lz")

if [ $# -eq 0 ]; then
  set -- $(cd tests/fuzz && ls -- *_fuzzer.cc | sed 's/\.cc$//')
fi

# The protobuf classes the readers parse into, with Debian's protoc (messages only: the
# parameter server's gRPC service is not fuzzed, what it decodes is).
/usr/bin/protoc --proto_path=. --cpp_out="${out}/gen" src/01_session/summary.proto \
  src/01_session/graph_def.proto src/01_session/step_stats.proto \
  src/02_chief_worker/checkpoint/checkpoint_state.proto src/03_hooked/events/event.proto \
  src/07_distributed/parameter_server.proto

# The object file of one source, under ${out}/obj.
object_of() { echo "${out}/obj/${1//\//_}.o"; }

# Compiles the sources whose objects are missing or older than the source or any header, as
# many at once as there are cores (stage 07's target needs all of stage 01). Library code
# gets coverage instrumentation without libFuzzer's main (fuzzer-no-link).
compile_all() {
  local src obj failed=0
  for src in "$@"; do
    obj="$(object_of "${src}")"
    if [ ! -f "${obj}" ] || [ "${src}" -nt "${obj}" ] ||
       [ -n "$(find src tests/fuzz -newer "${obj}" -name '*.h' | head -1)" ]; then
      while [ "$(jobs -rp | wc -l)" -ge "$(nproc)" ]; do wait -n || failed=1; done
      "${CXX}" "${CXXFLAGS[@]}" -fsanitize=fuzzer-no-link -c "${src}" -o "${obj}" &
    fi
  done
  while [ "$(jobs -rp | wc -l)" -gt 0 ]; do wait -n || failed=1; done
  return "${failed}"
}

status=0
built=()
for target in "$@"; do
  [ -n "${SOURCES[${target}]:-}" ] || { echo "fuzz.sh: unknown target ${target}"; exit 2; }
  sources=(${SOURCES[${target}]} "tests/fuzz/${target}.cc")
  objs=()
  for src in "${sources[@]}"; do objs+=("$(object_of "${src}")"); done
  # A target that does not build is a failed target, counted as one, never skipped: a moved
  # source once left two of four targets unbuilt while the run still said "2 passed".
  if ! compile_all "${sources[@]}" ||
     ! "${CXX}" "${CXXFLAGS[@]}" -fsanitize=fuzzer "${objs[@]}" ${LIBS[${target}]:-} \
         -o "${out}/${target}"; then
    echo "fuzz ${target}: FAILED, does not build (a source listed in tools/fuzz.sh moved?)"
    status=1
    continue
  fi
  built+=("${target}")
done

# Runs one built target for its time and writes its exit status (non-zero: it found a crash)
# beside its log.
run_target() {
  local target="$1" scratch="${out}/corpus/$1" rc=0
  mkdir -p "${scratch}"
  # -rss_limit_mb: a reader must never allocate beyond its input's size; 1 GiB is far beyond.
  "${out}/${target}" -max_total_time="${seconds}" -rss_limit_mb=1024 -timeout=10 \
    -print_final_stats=1 -artifact_prefix="tests/fuzz/crashes/${target}-" \
    "${scratch}" "tests/fuzz/corpus/${target}" >"${out}/${target}.log" 2>&1 || rc=$?
  echo "${rc}" >"${out}/${target}.status"
}

# The targets are independent and each fuzzes on one core, so as many run at once as there
# are cores (four targets of 30 s, say, take 60 s on two cores instead of 120 s). Their result
# lines are printed once all have finished, in the order of the targets.
# A fuzzer left running would outlive a killed script (a CI timeout): stop them with it.
trap 'kill $(jobs -p) 2>/dev/null || true' EXIT
for target in "${built[@]}"; do
  rm -f "${out}/${target}.status" "${out}/${target}.log"
  while [ "$(jobs -rp | wc -l)" -ge "$(nproc)" ]; do wait -n || true; done
  run_target "${target}" &
done
wait
for target in "${built[@]}"; do
  log="${out}/${target}.log"
  rc="$(cat "${out}/${target}.status" 2>/dev/null || echo none)"
  if [ "${rc}" = 0 ]; then
    result="no crash"
  elif [ "${rc}" = 72 ]; then  # libFuzzer's exit status when interrupted (Ctrl-C).
    result="interrupted before its time was up, no crash found"
    status=1
  else
    result="CRASH (see ${log} and tests/fuzz/crashes/)"
    status=1
  fi
  scratch="${out}/corpus/${target}"
  execs="$(sed -n 's/^stat::number_of_executed_units: *//p' "${log}")"
  corpus="$(ls "${scratch}" "tests/fuzz/corpus/${target}" | grep -cv '^$\|:$' || true)"
  echo "fuzz ${target}: ${seconds} s, ${execs:-?} executions, ${corpus} corpus files, ${result}"
done
exit "${status}"
