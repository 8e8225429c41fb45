// chief_worker_protocol: a chief and a worker bring up one model, and the program draws what
// happened between them, for chapter 02.
//
//   bazel run //chapters/02_chief_worker:chief_worker_protocol > protocol.dot
//
// The two must share the model's variables, which sessions of one process do not (each holds
// its own, chapter 01), so the variables live where a real job keeps them: on a parameter
// server, here a ps task started in this process (chapter 07 explains it). The chief and the
// worker each have a task of their own and make their sessions on it, through their real
// creators: ChiefSessionCreator on one thread, WorkerSessionCreator on this one.
//
// Nothing in the picture is typed by hand. Every session the two SessionManagers make comes
// from a session factory registered here, which returns a RemoteSession that records each
// Run in a CallTracer: which of the scaffold's ops it ran and what came back. The worker's
// clock records its sleeps. To make the run show the case the chapter is about, a worker
// that starts first, the chief starts only once the worker has gone to sleep after a poll,
// and the worker's sleep ends when the chief's session is made (the clock's sleeps wait for
// that instead of for time to pass). The program checks the recorded run against the
// protocol and fails (exit 1) if it does not hold: the worker's first poll must name the
// unset variables, the chief must initialise after it and be ready before the worker is,
// and the worker's ready session must read the chief's values. The output is graphviz
// source with no addresses or times in it, the same on every run.
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "src/01_session/session_factory.h"
#include "src/01_session/training_util.h"
#include "src/01_session/variables.h"
#include "src/02_chief_worker/chief_session_creator.h"
#include "src/02_chief_worker/scaffold.h"
#include "src/02_chief_worker/worker_session_creator.h"
#include "src/07_distributed/cluster_spec.h"
#include "src/07_distributed/remote_session.h"
#include "src/07_distributed/replica_device_setter.h"
#include "src/07_distributed/server.h"
#include "src/platform/clock.h"
#include "src/platform/errors.h"
#include "tools/tracing/call_tracer.h"

namespace mts {
namespace {

constexpr char kModel[] = "the model (ps task 0)";

// One recorded Run: who ran it, which of the scaffold's ops, and the names it answered
// (a ready op's unset variables) or the values it read.
struct RunRecord {
  std::string who;
  std::string what;
  std::vector<std::string> answer;
};

// What the factory and the clock record into; filled in by Main before any session exists.
struct Recorder {
  CallTracer tracer;
  std::mutex mu;
  std::vector<RunRecord> runs;  // Guarded by mu.
  std::shared_ptr<Scaffold> scaffold;
  Output w;
} recorder;

// The scaffold's op a Run was for, by its role in the protocol.
std::string WhatRan(const std::vector<Output>& fetches, const std::vector<Operation*>& targets) {
  const Scaffold& s = *recorder.scaffold;
  if (fetches.size() == 1 && s.ready_for_local_init_op() &&
      fetches[0] == *s.ready_for_local_init_op()) {
    return "ready_for_local_init_op";
  }
  if (fetches.size() == 1 && s.ready_op() && fetches[0] == *s.ready_op()) return "ready_op";
  if (fetches.size() == 1 && fetches[0] == recorder.w) return "w";
  if (targets.size() == 1 && targets[0] == s.init_op()) return "init_op";
  if (targets.size() == 1 && targets[0] == s.local_init_op()) return "local_init_op";
  return "another op";
}

// [mts:recording-session]
// A RemoteSession that records every Run: the call, then what it answered.
class RecordingSession : public RemoteSession {
 public:
  RecordingSession(Graph* graph, const SessionOptions& options, std::string who)
      : RemoteSession(graph, options, ClusterOfTarget(options.target)), who_(std::move(who)) {}

  // A Session's runs all go through the Run that fills `outputs` (the one that returns a
  // vector calls it), so that is the one to record.
  using RemoteSession::Run;
  void Run(const std::vector<Output>& fetches, const FeedDict& feeds,
           const std::vector<Operation*>& targets, const RunOptions& options,
           RunMetadata* run_metadata, std::vector<Tensor>* outputs) override {
    RunRecord record{who_, WhatRan(fetches, targets), {}};
    recorder.tracer.Call(who_, kModel, "Run(" + record.what + ")");
    try {
      RemoteSession::Run(fetches, feeds, targets, options, run_metadata, outputs);
    } catch (const OpError& e) {
      recorder.tracer.Return(who_, kModel, "Run(" + record.what + ")",
                             "raises " + std::string(ErrorCodeName(e.code())));
      throw;
    }
    const std::vector<Tensor>& out = *outputs;
    std::string outcome;  // Stays empty for a run of targets alone: it just returns.
    if (!out.empty() && out[0].dtype() == DataType::kString) {  // A ready op's answer.
      record.answer = out[0].ToVector<std::string>();
      std::string names;
      for (const std::string& name : record.answer) names += (names.empty() ? "" : ", ") + name;
      outcome = "returns [" + names + "]";
    } else if (!out.empty()) {  // A value read.
      record.answer = {out[0].ToString()};
      outcome = "returns " + record.answer[0];
    }
    recorder.tracer.Return(who_, kModel, "Run(" + record.what + ")", outcome);
    std::lock_guard<std::mutex> lock(recorder.mu);
    recorder.runs.push_back(record);
  }

 private:
  std::string who_;
};

// Targets "recorded:WHO:grpc://host:port": a RecordingSession for WHO on that task.
std::unique_ptr<Session> MakeRecordingSession(Graph* graph, const SessionOptions& options) {
  const std::string rest = options.target.substr(std::string("recorded:").size());
  const size_t colon = rest.find(':');
  SessionOptions remote = options;
  remote.target = rest.substr(colon + 1);
  return std::make_unique<RecordingSession>(graph, remote, rest.substr(0, colon));
}
// [mts:recording-session-end]

// The order of the run: the chief waits for the worker's first sleep, the worker's sleep
// waits for the chief. The clock's time moves by the amount slept, so the worker's
// deadline arithmetic is as it would be.
class Rendezvous : public Clock {
 public:
  int64_t NowMicros() const override { return now_; }
  int64_t WallTimeMicros() const override { return now_; }
  void SleepForMicros(int64_t micros) override {
    const std::string secs = std::to_string(micros / 1000000);
    recorder.tracer.Call("worker", "clock", "SleepForMicros(" + secs + " s)");
    {
      std::unique_lock<std::mutex> lock(mu_);
      ++sleeps_;
      cv_.notify_all();
      cv_.wait(lock, [&] { return chief_done_; });
    }
    now_ += micros;
    recorder.tracer.Return("worker", "clock", "SleepForMicros", "returns " + secs + " s later");
  }
  bool WaitFor(std::unique_lock<std::mutex>&, std::condition_variable&, int64_t timeout_micros,
               const std::function<bool()>& done) override {
    if (!done()) now_ += timeout_micros;
    return done();
  }

  // Blocks the chief until the worker has slept once or has finished without sleeping.
  void WaitForWorkerToSleep() {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return sleeps_ > 0 || worker_done_; });
  }
  void ChiefDone() { Set(&chief_done_); }
  void WorkerDone() { Set(&worker_done_); }
  int sleeps() {
    std::lock_guard<std::mutex> lock(mu_);
    return sleeps_;
  }

 private:
  void Set(bool* flag) {
    std::lock_guard<std::mutex> lock(mu_);
    *flag = true;
    cv_.notify_all();
  }

  int64_t now_ = 0;  // Read and written by the worker's thread only.
  std::mutex mu_;
  std::condition_variable cv_;
  int sleeps_ = 0;            // Guarded by mu_.
  bool chief_done_ = false;   // Guarded by mu_.
  bool worker_done_ = false;  // Guarded by mu_.
};

// The index of the first run of `who` and `what` at or after `from` matching `ready`
// (an empty answer) or not; runs.size() if none.
size_t Find(const std::vector<RunRecord>& runs, const std::string& who, const std::string& what,
            bool empty_answer, size_t from = 0) {
  for (size_t i = from; i < runs.size(); ++i) {
    if (runs[i].who == who && runs[i].what == what && runs[i].answer.empty() == empty_answer) {
      return i;
    }
  }
  return runs.size();
}

int Fail(const std::string& why) {
  std::fprintf(stderr, "chief_worker_protocol: the run did not follow the protocol: %s\n%s",
               why.c_str(), recorder.tracer.ToText().c_str());
  return 1;
}

int Main() {
  ::setenv("MTS_MIN_LOG_LEVEL", "2", /*overwrite=*/1);  // The picture alone on the output.
  RegisterSessionFactory("recorded:", MakeRecordingSession);
  for (const char* column : {"clock", "worker", kModel, "chief"}) {
    recorder.tracer.AddParticipant(column);
  }
  Server ps(ClusterSpec::FromFlag("ps=127.0.0.1:0"), "ps", 0);
  const ClusterSpec cluster = ClusterSpec::FromFlag("ps=127.0.0.1:" + std::to_string(ps.port()) +
                                                    ";worker=127.0.0.1:0,127.0.0.1:0");
  Server chief_task(cluster, "worker", 0);
  Server worker_task(cluster, "worker", 1);

  // [mts:protocol-model]
  Graph graph;
  DefaultGraphScope as_default(graph);
  std::vector<float> initial = {1.5f, -2.0f};
  {
    ReplicaDeviceSetter on_ps(/*ps_tasks=*/1);
    Variable w(Tensor::Vector<float>(initial), "w");
    GetOrCreateGlobalStep();
    recorder.w = w.value();
  }
  recorder.scaffold = std::make_shared<Scaffold>();
  recorder.scaffold->Finalize();  // Before either creator, each of which finalizes it again.

  Rendezvous clock;  // The worker's.
  std::thread chief_thread([&] {
    clock.WaitForWorkerToSleep();
    try {
      ChiefSessionCreatorOptions on_chief_task;
      on_chief_task.master = "recorded:chief:" + chief_task.target();
      ChiefSessionCreator chief(recorder.scaffold, on_chief_task);
      chief.CreateSession();  // Restores, or (here: no checkpoint directory) initialises.
    } catch (const std::exception& e) {
      recorder.tracer.Call("chief", kModel, std::string("failed: ") + e.what());
    }
    clock.ChiefDone();
  });
  std::unique_ptr<SessionInterface> session;
  try {
    WorkerSessionCreator worker(recorder.scaffold, "recorded:worker:" + worker_task.target(),
                                /*max_wait_secs=*/90, &clock);
    session = worker.CreateSession();  // Polls until the model is ready.
    session->Run(recorder.w);          // The worker's first read of the model.
  } catch (const std::exception& e) {
    recorder.tracer.Call("worker", kModel, std::string("failed: ") + e.what());
  }
  clock.WorkerDone();
  chief_thread.join();
  // [mts:protocol-model-end]

  // [mts:protocol-checks]
  std::vector<RunRecord> runs;
  {
    std::lock_guard<std::mutex> lock(recorder.mu);
    runs = recorder.runs;
  }
  const size_t n = runs.size();
  // 1. The worker's first poll found the model unset, and said which variables.
  if (n == 0 || runs[0].who != "worker" || runs[0].answer.empty()) {
    return Fail("the worker's first run did not name unset variables");
  }
  // 2. The chief initialised after that poll, and its own check then found it ready.
  const size_t init = Find(runs, "chief", "init_op", /*empty_answer=*/true);
  const size_t chief_ready = Find(runs, "chief", "ready_op", /*empty_answer=*/true, init);
  if (init == n || chief_ready == n) return Fail("the chief did not initialise a ready model");
  // 3. The worker became ready only after that, and read the chief's values.
  const size_t worker_ready = Find(runs, "worker", "ready_op", /*empty_answer=*/true);
  if (worker_ready == n || worker_ready < chief_ready) {
    return Fail("the worker was not ready after the chief, or never");
  }
  if (runs.back().who != "worker" || runs.back().what != "w" ||
      runs.back().answer != std::vector<std::string>{Tensor::Vector<float>(initial).ToString()}) {
    return Fail("the worker's session did not read the chief's w");
  }
  // 4. One sleep between the polls: the chief came up during it.
  if (clock.sleeps() != 1) {
    return Fail("the worker slept " + std::to_string(clock.sleeps()) + " times");
  }
  // [mts:protocol-checks-end]

  std::printf("%s", recorder.tracer.ToGraphviz().c_str());
  return 0;
}

}  // namespace
}  // namespace mts

int main() { return mts::Main(); }
