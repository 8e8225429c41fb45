// trace_queue_runner: a QueueRunner with two enqueue threads feeds a queue, the main thread
// consumes, then stops and joins them through a Coordinator; the program draws what
// happened, for chapter 04.
//
//   bazel run //chapters/04_coordinated:trace_queue_runner > runner.dot
//
// Nothing in the picture is typed by hand. The runner's threads run their ops through a
// session wrapper that records each Run in a CallTracer (chapter 03's instrument) as a call
// from the thread that made it, with what it returned or raised; each thread's end is
// recorded by an exit observer on it (CoordinatedThread::AddExitObserver); the main thread
// records its own calls of the Coordinator. The threads are the runner's own, made by
// CreateThreads and started one at a time, so that the picture's first part is the same on
// every run: the first thread fills the queue and blocks before the second starts and
// blocks too. From the consumer's first dequeue on, the threads run as the scheduler lets
// them, and rows made at the same moment on different threads may come in either order.
// What may not vary is checked, and the program fails (exit 1) if the run broke it: the
// cancelling close runs after the stop was requested, every blocked enqueue then raises
// CancelledError, every thread ends after that close and before Join returns, Join raises
// nothing, and the consumer takes every element that was put in before OutOfRangeError.
#include <algorithm>
#include <condition_variable>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "src/01_session/array_ops.h"
#include "src/01_session/session.h"
#include "src/01_session/variables.h"
#include "src/04_coordinated/coordinator.h"
#include "src/04_coordinated/exception_description.h"
#include "src/04_coordinated/queue/fifo_queue.h"
#include "src/04_coordinated/queue_runner.h"
#include "src/platform/errors.h"
#include "tools/tracing/call_tracer.h"

namespace mts {
namespace {

constexpr char kQueue[] = "queue (capacity 2)";
constexpr char kCoordinator[] = "Coordinator";
constexpr char kMain[] = "main thread: consumer";

// One recorded event, for the checks: who, what ("Run(dequeue)", "ends", ...), how it ended.
struct Record {
  std::string who;
  std::string what;
  std::string outcome;  // "returns 1", "raises CancelledError", "" for a call.
};

// Records events in the tracer and in a list the checks and the waits below read.
class Recorder {
 public:
  CallTracer tracer;

  void Call(const std::string& who, const std::string& to, const std::string& what) {
    tracer.Call(who, to, what);
    Add({who, what, ""});
  }
  void Return(const std::string& who, const std::string& to, const std::string& what,
              const std::string& outcome) {
    tracer.Return(who, to, what, outcome);
    Add({who, what, outcome});
  }
  // Blocks until `done(records)` holds.
  void WaitUntil(const std::function<bool(const std::vector<Record>&)>& done) {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return done(records_); });
  }
  std::vector<Record> records() {
    std::lock_guard<std::mutex> lock(mu_);
    return records_;
  }

 private:
  void Add(Record record) {
    std::lock_guard<std::mutex> lock(mu_);
    records_.push_back(std::move(record));
    cv_.notify_all();
  }
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<Record> records_;  // Guarded by mu_.
};

// How many records of `who` there are with `what` and, if given, with `outcome` ("" matches
// calls only).
int Count(const std::vector<Record>& records, const std::string& who, const std::string& what,
          const std::string* outcome = nullptr) {
  int n = 0;
  for (const Record& r : records) {
    if (r.who == who && r.what == what && (outcome == nullptr || r.outcome == *outcome)) ++n;
  }
  return n;
}

// [mts:recording-runner-session]
// The session the runner's threads and the consumer run their ops in: records each Run as a
// call from the thread that makes it (known by the op: one thread per enqueue op) to the
// queue, with what it returned or raised.
class RecordingSession : public SessionInterface {
 public:
  RecordingSession(Session& session, Recorder& recorder,
                   std::map<const Operation*, std::string> who)
      : session_(session), recorder_(recorder), who_(std::move(who)) {}

  using SessionInterface::Run;
  std::vector<Tensor> Run(const std::vector<Output>& fetches, const FeedDict& feeds,
                          const std::vector<Operation*>& targets, const RunOptions& options,
                          RunMetadata* run_metadata) override {
    const Operation* op = targets.empty() ? fetches.at(0).op() : targets.at(0);
    const std::string who = who_.count(op) ? who_.at(op) : kMain;
    const std::string what = "Run(" + op->name() + ")";
    recorder_.Call(who, kQueue, what);
    try {
      std::vector<Tensor> out = session_.Run(fetches, feeds, targets, options, run_metadata);
      recorder_.Return(who, kQueue, what, out.empty() ? "returns" : "returns " + out[0].ToString());
      return out;
    } catch (const OpError&) {
      // "mts::CancelledError" -> "CancelledError": the class, as the chapter names it.
      const std::string type = ExceptionTypeName(std::current_exception());
      recorder_.Return(who, kQueue, what, "raises " + type.substr(type.rfind(':') + 1));
      throw;
    }
  }
  Graph* graph() const override { return session_.graph(); }
  void Close() override { session_.Close(); }

 private:
  Session& session_;
  Recorder& recorder_;
  std::map<const Operation*, std::string> who_;
};
// [mts:recording-runner-session-end]

int Fail(Recorder& recorder, const std::string& why) {
  std::fprintf(stderr, "trace_queue_runner: the run broke the protocol: %s\n%s", why.c_str(),
               recorder.tracer.ToText().c_str());
  return 1;
}

int Main() {
  // [mts:trace-queue-runner-model]
  Graph graph;
  DefaultGraphScope as_default(graph);
  Variable counter(Tensor::Scalar(0.0f), "counter");
  Queue queue = FIFOQueue(/*capacity=*/2, {DataType::kFloat}, {TensorShape{}}, "input");
  // Two enqueue ops, so two threads; each enqueues the next value of the counter.
  Operation* enqueue_1 = queue.Enqueue({counter.AssignAdd(Constant(1.0f))}, "enqueue_1");
  Operation* enqueue_2 = queue.Enqueue({counter.AssignAdd(Constant(1.0f))}, "enqueue_2");
  QueueRunner runner(queue, {enqueue_1, enqueue_2});
  Output dequeue = queue.Dequeue("dequeue")[0];
  Operation* init = GlobalVariablesInitializer();
  // [mts:trace-queue-runner-model-end]

  const std::string thread_1 = "enqueue thread 1", thread_2 = "enqueue thread 2",
                    closer = "close_on_stop thread";
  Recorder recorder;
  for (const std::string& column : {std::string(kCoordinator), thread_1, thread_2, closer,
                                    std::string(kQueue), std::string(kMain)}) {
    recorder.tracer.AddParticipant(column);
  }
  Session raw(&graph);
  raw.Run(init);
  RecordingSession session(
      raw, recorder, {{enqueue_1, thread_1}, {enqueue_2, thread_2}, {runner.cancel_op(), closer}});

  // [mts:trace-queue-runner-run]
  Coordinator coord;
  // The runner's threads, in its order: one per enqueue op, then close_on_stop.
  auto threads = runner.CreateThreads(session, &coord, /*start=*/false);
  const std::vector<std::string> names = {thread_1, thread_2, closer};
  for (size_t i = 0; i < threads.size(); ++i) {
    threads[i]->AddExitObserver(
        [&recorder, name = names.at(i)] { recorder.Call(name, kCoordinator, "ends"); });
  }
  const std::string run_1 = "Run(enqueue_1)", run_2 = "Run(enqueue_2)", call = "";
  threads[2]->Start();  // close_on_stop: waits for the stop.
  threads[0]->Start();  // Fills the queue (two enqueues), then blocks on a third.
  recorder.WaitUntil([&](const auto& r) { return Count(r, thread_1, run_1, &call) == 3; });
  threads[1]->Start();  // Blocks at once: the queue is full.
  recorder.WaitUntil([&](const auto& r) { return Count(r, thread_2, run_2, &call) == 1; });

  std::vector<std::string> taken;  // What the consumer dequeued.
  taken.push_back(session.Run(dequeue).ToString());
  // One of the blocked enqueues went in, and its thread is blocked on its next.
  recorder.WaitUntil([&](const auto& r) {
    return Count(r, thread_1, run_1, &call) + Count(r, thread_2, run_2, &call) == 5;
  });

  // RequestStop only sets the flag and wakes the waiters; it returns at once, so its return
  // is not drawn (the threads would often be seen to end before the main thread records it).
  recorder.Call(kMain, kCoordinator, "RequestStop()");
  coord.RequestStop();
  recorder.Call(kMain, kCoordinator, "Join(threads)");
  std::string joined = "returns";
  try {
    coord.Join(threads);
  } catch (const std::exception& e) {
    joined = std::string("raises ") + e.what();
  }
  recorder.Return(kMain, kCoordinator, "Join(threads)", joined);
  // The queue is closed: the consumer takes what is left, then meets OutOfRange.
  try {
    while (true) taken.push_back(session.Run(dequeue).ToString());
  } catch (const OutOfRangeError&) {
  }
  // [mts:trace-queue-runner-run-end]

  // [mts:trace-queue-runner-checks]
  const std::vector<Record> r = recorder.records();
  auto first = [&](const std::string& who, const std::string& what) {
    for (size_t i = 0; i < r.size(); ++i) {
      if (r[i].who == who && r[i].what == what) return i;
    }
    return r.size();
  };
  const std::string cancelled = "raises CancelledError", returned = "returns";
  const size_t stop = first(kMain, "RequestStop()");
  const size_t cancel = first(closer, "Run(" + runner.cancel_op()->name() + ")");
  if (cancel == r.size() || cancel < stop) return Fail(recorder, "no cancel after the stop");
  if (Count(r, thread_1, run_1, &cancelled) + Count(r, thread_2, run_2, &cancelled) != 2) {
    return Fail(recorder, "the two blocked enqueues did not both raise CancelledError");
  }
  size_t last_end = 0;
  for (const std::string& name : names) {
    const size_t end = first(name, "ends");
    if (end == r.size() || end < cancel)
      return Fail(recorder, name + " did not end after the close");
    last_end = std::max(last_end, end);
  }
  size_t join_return = r.size();
  for (size_t i = 0; i < r.size(); ++i) {
    if (r[i].who == kMain && r[i].what == "Join(threads)" && !r[i].outcome.empty()) join_return = i;
  }
  if (join_return == r.size() || join_return < last_end || joined != returned) {
    return Fail(recorder, "Join did not return cleanly after every thread ended");
  }
  const int put_in = Count(r, thread_1, run_1, &returned) + Count(r, thread_2, run_2, &returned);
  if (static_cast<int>(taken.size()) != put_in || taken.size() != 3) {
    return Fail(recorder, "the consumer took " + std::to_string(taken.size()) + " of " +
                              std::to_string(put_in) + " elements");
  }
  // [mts:trace-queue-runner-checks-end]
  std::printf("%s", recorder.tracer.ToGraphviz().c_str());
  return 0;
}

}  // namespace
}  // namespace mts

int main() { return mts::Main(); }
