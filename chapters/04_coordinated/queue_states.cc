// queue_states: puts a real FIFOQueue of capacity 2 in each of its states, tries an
// enqueue, a dequeue and a close there, and draws what each did, for chapter 04.
//
//   bazel run //chapters/04_coordinated:queue_states > queue.dot && dot -Tsvg queue.dot
//
// Every arrow is an observation, not a belief: for each state (open or closed, with 0, 1
// or 2 elements) the program makes a fresh session, runs the ops that
// bring its queue there, runs the op under test on another thread, and records how that
// ended: the state the queue is in afterwards (its Size, and whether a close ran), or the
// error it raised. An op still waiting after a while is released by what releases it in a
// training job (a close for a dequeue, a cancelling close for an enqueue), and the arrow
// says so. The output is graphviz source with no times in it: a waiting op is shown as
// waiting whatever the wait lasted.
#include <chrono>
#include <cstdio>
#include <functional>
#include <future>
#include <map>
#include <string>
#include <vector>

#include "src/01_session/array_ops.h"
#include "src/01_session/session.h"
#include "src/04_coordinated/queue/fifo_queue.h"
#include "src/platform/errors.h"

namespace mts {
namespace {

// A state of the queue: how many elements it holds, and whether a close ran.
struct State {
  int size;
  bool closed;
  std::string Id() const { return (closed ? "closed" : "open") + std::to_string(size); }
  std::string Label() const {
    return std::string(closed ? "closed" : "open") + "\\n" +
           (size == 0   ? "empty"
            : size == 2 ? "full (2 of 2)"
                        : "1 of 2");
  }
  bool operator<(const State& o) const { return closed != o.closed ? !closed : size < o.size; }
};

// The error class of an OpError, as the chapter names it.
std::string ErrorName(const OpError& e) {
  if (dynamic_cast<const CancelledError*>(&e)) return "CancelledError";
  if (dynamic_cast<const OutOfRangeError*>(&e)) return "OutOfRangeError";
  return "OpError";
}

// [mts:queue-probe]
// Brings a fresh queue to `state`, runs `op` on another thread and says what it did: the
// state it led to, or the error it raised. If it is still waiting after `patience`, runs
// `release` (on this thread) and says what the waiting op did then.
struct Outcome {
  State next;
  std::string what;  // "" when the op completed and moved the queue to `next`.
  bool waited = false;
};

using MakeOp = std::function<Operation*(const Queue&)>;

Outcome Probe(const State& state, const std::string& op_name, const MakeOp& make_op,
              const std::string& release_name, const MakeOp& make_release) {
  Graph graph;
  DefaultGraphScope as_default(graph);
  Queue queue = FIFOQueue(/*capacity=*/2, {DataType::kFloat}, {TensorShape{}}, "input");
  Operation* put = queue.Enqueue({Constant(1.0f)});
  Output size = queue.Size();
  Operation* close = queue.Close();
  Session session(&graph);
  for (int i = 0; i < state.size; ++i) session.Run(put);
  if (state.closed) session.Run(close);
  // The ops are made here: a thread's default graph is its own.
  Operation* op = make_op(queue);
  Operation* release = make_release ? make_release(queue) : nullptr;

  Outcome outcome{state, ""};
  auto run = std::async(std::launch::async, [&] {
    try {
      session.Run(op);
      return std::string();
    } catch (const OpError& e) {
      return ErrorName(e);
    }
  });
  if (run.wait_for(std::chrono::milliseconds(500)) == std::future_status::timeout && release) {
    outcome.waited = true;
    session.Run(release);
    outcome.what = "waits; " + release_name + ": " + run.get();
  } else {
    outcome.what = run.get();
  }
  if (outcome.what.empty() || outcome.waited) {
    const bool closed_now = state.closed || op_name.rfind("Close", 0) == 0 || outcome.waited;
    outcome.next = {session.Run(size).scalar<int32_t>(), closed_now};
  }
  return outcome;
}
// [mts:queue-probe-end]

int Main() {
  const std::vector<State> states = {{0, false}, {1, false}, {2, false},
                                     {2, true},  {1, true},  {0, true}};
  const MakeOp enqueue = [](const Queue& q) { return q.Enqueue({Constant(2.0f)}); };
  const MakeOp dequeue = [](const Queue& q) { return q.Dequeue()[0].op(); };
  const MakeOp close = [](const Queue& q) { return q.Close(); };
  const MakeOp cancel = [](const Queue& q) { return q.Close(/*cancel_pending_enqueues=*/true); };

  std::printf(
      "digraph queue {\n"
      "  graph [rankdir=TB, nodesep=0.5, ranksep=0.6, pad=0.15, fontname=\"Helvetica\"];\n"
      "  node [shape=box, style=\"rounded,filled\", fillcolor=\"#eef3fb\", color=\"#5577aa\", "
      "fontname=\"Helvetica\", fontsize=11, width=1.3];\n"
      "  edge [fontname=\"Helvetica\", fontsize=9, arrowsize=0.7];\n");
  for (const State& s : states) {
    std::printf("  %s [label=\"%s\"%s];\n", s.Id().c_str(), s.Label().c_str(),
                s.closed ? ", fillcolor=\"#fbf3e6\", color=\"#aa7733\"" : "");
  }
  std::printf(
      "  { rank=same; open0; closed0; }\n  { rank=same; open1; closed1; }\n"
      "  { rank=same; open2; closed2; }\n");
  for (const State& s : states) {
    const std::vector<Outcome> outcomes = {
        Probe(s, "enqueue", enqueue, "Close(true)", cancel),
        Probe(s, "dequeue", dequeue, "Close()", close),
        Probe(s, s.closed ? "Close() again" : "Close()", close, "", {})};
    const char* names[] = {"enqueue", "dequeue", s.closed ? "Close() again" : "Close()"};
    // The errors (the queue stays as it was) share one loop, one line each.
    std::string errors;
    for (int i = 0; i < 3; ++i) {
      const Outcome& o = outcomes[i];
      if (!o.what.empty() && !o.waited) {
        errors += std::string(errors.empty() ? "" : "\\n") + names[i] + ": " + o.what;
        continue;
      }
      std::string what = o.what;
      const size_t semicolon = what.find("; ");
      if (semicolon != std::string::npos) what.replace(semicolon, 2, ";\\n");
      std::printf("  %s -> %s [label=\" %s%s%s\"%s];\n", s.Id().c_str(), o.next.Id().c_str(),
                  names[i], what.empty() ? "" : " ", what.c_str(),
                  o.waited ? ", style=dashed, color=\"#777777\""
                  : i == 2 ? ", color=\"#aa7733\""
                           : ", color=\"#2255aa\"");
    }
    if (!errors.empty()) {
      std::printf("  %s -> %s [label=\"%s\", color=\"#cc3333\", fontcolor=\"#cc3333\"];\n",
                  s.Id().c_str(), s.Id().c_str(), errors.c_str());
    }
  }
  std::printf("}\n");
  return 0;
}

}  // namespace
}  // namespace mts

int main() { return mts::Main(); }
