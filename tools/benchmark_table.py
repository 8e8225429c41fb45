"""Turns the JSON of the benchmarks under tests/benchmarks into the appendix's table.

Each benchmark states its result with three counters (tests/benchmarks/compare.h): `value`,
`limit` (0: reported, no target) and `unit`. This prints one markdown row per benchmark, in
the order of the appendix's items, then the machine the numbers come from.
"""
import argparse
import datetime
import json

# Benchmark name (without arguments) -> (item, what is measured). Keeps the appendix's order.
ROWS = [
    ("BM_StackOverhead", "1", "training stack with default hooks, added per step over a raw Session::Run"),
    ("BM_LayerHooked", "1", "HookedSession (no hooks), added over the raw Session"),
    ("BM_LayerCoordinated", "1", "CoordinatedSession, added over HookedSession"),
    ("BM_LayerRecoverable", "1", "RecoverableSession, added over CoordinatedSession"),
    ("BM_SessionOverhead", "2", "Session::Run of one op, added over calling its kernel"),
    ("BM_ExecutorPerNode", "3", "executor cost per op ((101-op chain - 1 op) / 100)"),
    ("BM_TrainStepSpirals/64", "4", "spirals MLP step, batch 64: stack / Eigen by hand"),
    ("BM_TrainStepSpirals/1", "4", "spirals MLP step, batch 1: stack / Eigen by hand"),
    ("BM_TrainStepMlp784/64", "4", "784-256-10 MLP step, batch 64: stack / Eigen by hand"),
    ("BM_GemmFractionOfPeak", "4", "Eigen GEMM 64x784x256, fraction of the peak of the vector instructions the build uses"),
    ("BM_SaveLarge", "5", "Saver::Save of 64 MiB / write+fsync of the same bytes"),
    ("BM_RestoreLarge", "5", "Saver::Restore of 64 MiB / read of the same bytes"),
    ("BM_RestoreLargeWall", "5", "the same on the wall clock (two threads read)"),
    ("BM_SaveSmall", "5", "Saver::Save of the spirals model (21 tensors) / write+fsync"),
    ("BM_QueueFedStep/2", "6", "784-256-10 step fed by a queue (2 runners) / fed directly"),
    ("BM_QueueFedStep/1", "6", "the same with 1 runner thread"),
    ("BM_QueuePair", "6", "Enqueue+Dequeue on FIFOQueueResource / mutex+deque queue"),
    ("BM_SpiralsPicture/64", "8", "a 64x64 picture of the spirals' decision regions every 200 steps, added to the training time"),
]
UNITS = {0: "x", 1: "us", 2: "", 3: "s"}
# Rows made from a counter of another benchmark: heap allocations per steady-state step,
# target 0. (benchmark, counter, item, what is measured.)
ALLOCATION_ROWS = [
    ("BM_TrainStepSpirals/64", "session_allocs_per_step", "4",
     "heap allocations per spirals step (batch 64), bare Session"),
    ("BM_TrainStepSpirals/64", "allocs_per_step", "4",
     "heap allocations per spirals step (batch 64), through the stack"),
    ("BM_TrainStepMlp784/64", "session_allocs_per_step", "4",
     "heap allocations per 784-256-10 step (batch 64), bare Session"),
    ("BM_TrainStepMlp784/64", "allocs_per_step", "4",
     "heap allocations per 784-256-10 step (batch 64), through the stack"),
]


def fmt(value, unit):
    if unit == 2:
        return f"{value:.0%}"
    if unit == 1:
        return f"{value:.3f} us"
    return f"{value:.2f}{UNITS[unit]}"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--machine", required=True)
    parser.add_argument("--load", required=True)
    parser.add_argument("--commit", required=True)
    parser.add_argument("json", nargs="+")
    args = parser.parse_args()

    results = {}
    for path in args.json:
        with open(path) as f:
            for b in json.load(f)["benchmarks"]:
                name = b["name"].replace("/iterations:", "#").split("#")[0]
                results[name] = b

    print("| item | measurement | measured | target | met |")
    print("| --- | --- | --- | --- | --- |")
    for name, item, what in ROWS:
        b = results.get(name)
        if b is None:
            print(f"| {item} | {what} | not run | | |")
            continue
        unit = int(b["unit"])
        value, limit = b["value"], b["limit"]
        if b.get("at_least"):
            target = f"at least {fmt(limit, unit)}"
            met = "yes" if value >= limit else "**no**"
        else:
            target = f"at most {fmt(limit, unit)}" if limit > 0 else "reported"
            met = ("yes" if value <= limit else "**no**") if limit > 0 else ""
        print(f"| {item} | {what} (`{name}`) | {fmt(value, unit)} | {target} | {met} |")
        for alloc_name, counter, alloc_item, alloc_what in ALLOCATION_ROWS:
            b = results.get(alloc_name)
            if alloc_name != name or b is None or counter not in b:
                continue
            count = b[counter]
            shown = "not counted" if count < 0 else f"{count:.2f}"
            met = "" if count < 0 else ("yes" if count == 0 else "**no**")
            print(f"| {alloc_item} | {alloc_what} (`{alloc_name}`) | {shown} | 0 | {met} |")
    extras = []
    gemm = results.get("BM_GemmFractionOfPeak")
    if gemm:
        bits = int(gemm.get("vector_bits", 128))
        extras.append(
            f"GEMM {gemm['gemm_gflops']:.1f} GFLOP/s. This build compiles for {bits}-bit vectors, "
            f"whose peak here is {gemm['peak_used_gflops']:.1f} GFLOP/s; the core's: "
            f"{gemm['peak_sse_gflops']:.1f} (128-bit SSE2 multiply and add), "
            f"{gemm['peak_fma_gflops']:.1f} (256-bit FMA), "
            f"{gemm['peak_fma512_gflops']:.1f} (512-bit FMA) GFLOP/s; the GEMM reaches "
            f"{gemm['fraction_of_core_peak']:.0%} of the best."
        )
    for name in ("BM_TrainStepSpirals/1", "BM_TrainStepSpirals/64", "BM_TrainStepMlp784/64"):
        b = results.get(name)
        if b and "ops" in b:
            extras.append(
                f"`{name}`: {b['a_ns'] / 1000:.1f} us through the stack, {b['b_ns'] / 1000:.1f} us "
                f"by hand; {int(b['ops'])} ops per step, {b['added_per_op_us']:.3f} us added per op; "
                f"heap allocations per step: {b.get('allocs_per_step', -1):.2f} through the stack "
                f"(on {int(b.get('allocating_steps', -1))} of 200 steps), "
                f"{b.get('session_allocs_per_step', -1):.2f} in a bare Session, "
                f"{b.get('by_hand_allocs_per_step', -1):.2f} by hand; tensor buffers per step "
                f"in a bare Session: {b.get('buffers_per_step', -1):.1f} (op outputs that took no dying input's buffer)."
            )
    for name in ("BM_SpiralsPicture/64", "BM_SpiralsPicture/128"):
        b = results.get(name)
        if b and "steps_per_picture" in b:
            extras.append(
                f"`{name}`: {b['a_ns'] / 1e6:.2f} ms per picture against {b['b_ns'] / 1e3:.1f} us "
                f"per training step: one picture costs {b['steps_per_picture']:.0f} steps."
            )
    for name in ("BM_SaveLarge", "BM_RestoreLarge", "BM_RestoreLargeWall", "BM_SaveSmall",
                 "BM_QueueFedStep/2", "BM_QueueFedStep/1"):
        b = results.get(name)
        if b:
            extras.append(
                f"`{name}`: {b['a_ns'] / 1e6:.2f} ms against {b['b_ns'] / 1e6:.2f} ms."
            )
    print()
    if extras:
        for line in extras:
            print(f"- {line}")
        print()
    print(
        f"Machine: {args.machine}. Load average (1, 5, 15 min) before / after: {args.load}. "
        f"Commit {args.commit}, {datetime.datetime.utcnow():%Y-%m-%d %H:%M} UTC. "
        "Generated by `tools/run_benchmarks.sh`."
    )


if __name__ == "__main__":
    main()
