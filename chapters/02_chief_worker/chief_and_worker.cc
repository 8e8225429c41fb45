// chief_and_worker: the three ways a session can come to life in stage 02.
//
//   bazel run //chapters/02_chief_worker:chief_and_worker
//
// 1. A chief with an empty checkpoint directory initialises the model.
// 2. A chief started again over the same directory restores the checkpoint instead.
// 3. A worker polls for a model that nobody will initialise for it, logs what it waits for
//    at every poll, and gives up. (In one process, each session holds its own variables, so
//    the chief's values cannot reach the worker's session; in a distributed job they live on
//    parameter servers that both share, chapter 07.)
//
// Chapter 02 shows what this prints. To make that the same on every run, log lines are
// printed without their time and line number, the worker's waits go through a clock that
// jumps instead of sleeping, and the checkpoint directory is a relative one inside a fresh
// temporary directory.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "src/01_session/array_ops.h"
#include "src/platform/errors.h"
#include "src/01_session/training_util.h"
#include "src/01_session/variables.h"
#include "src/02_chief_worker/chief_session_creator.h"
#include "src/02_chief_worker/scaffold.h"
#include "src/02_chief_worker/worker_session_creator.h"
#include "src/platform/clock.h"
#include "src/platform/file_system.h"
#include "src/platform/logging.h"

namespace mts {
namespace {

// Prints each log line as "I file] message", with neither time nor line number.
class PlainLogSink : public LogSink {
 public:
  void Send(const LogEntry& entry) override {
    const char level = "IWE"[static_cast<int>(entry.severity)];
    std::printf("  %c %s] %s\n", level, entry.file.c_str(), entry.message.c_str());
  }
};

// A clock whose sleeps return at once, having moved time forward by the amount slept.
class JumpingClock : public Clock {
 public:
  int64_t NowMicros() const override { return now_; }
  int64_t WallTimeMicros() const override { return now_; }
  void SleepForMicros(int64_t micros) override { now_ += micros > 0 ? micros : 0; }
  bool WaitFor(std::unique_lock<std::mutex>&, std::condition_variable&, int64_t timeout_micros,
               const std::function<bool()>& done) override {
    if (!done()) SleepForMicros(timeout_micros);
    return done();
  }

 private:
  int64_t now_ = 0;
};

int Main() {
  char dir_template[] = "/tmp/chief_and_worker.XXXXXX";
  if (::mkdtemp(dir_template) == nullptr || ::chdir(dir_template) != 0) {
    std::perror("chief_and_worker: temporary directory");
    return 1;
  }
  // Log lines go to the sink below only; stderr would add the time of day.
  ::setenv("MTS_MIN_LOG_LEVEL", "2", /*overwrite=*/1);
  PlainLogSink sink;
  AddLogSink(&sink);
  FileSystem& fs = *DefaultFileSystem();
  fs.CreateDirectories("train");

  // [mts:chief-and-worker-model]
  Graph graph;
  DefaultGraphScope as_default(graph);
  Variable w(Tensor::Vector<float>({1.5f, -2.0f}), "w");
  Variable global_step = GetOrCreateGlobalStep();
  // Local: every process initialises its own, and checkpoints never hold it.
  Variable runs_here = LocalVariable(Tensor::Scalar<int64_t>(0), "runs_here");
  Operation* train = Group({w.Assign(Constant(Tensor::Vector<float>({3.0f, 4.0f}))).op(),
                            global_step.Assign(Constant(Tensor::Scalar<int64_t>(7))).op()});
  auto scaffold = std::make_shared<Scaffold>();
  // [mts:chief-and-worker-model-end]

  auto show = [&](SessionInterface& session) {
    std::printf("  w = %s, global_step = %s\n", session.Run(w).ToString().c_str(),
                session.Run(global_step).ToString().c_str());
  };

  ChiefSessionCreatorOptions in_train;  // Checkpoints in ./train.
  in_train.checkpoint_dir = "train";

  std::printf("1. A chief over an empty directory initialises:\n");
  {
    // [mts:chief-first-start]
    ChiefSessionCreator chief(scaffold, in_train);
    std::unique_ptr<SessionInterface> session = chief.CreateSession();
    show(*session);
    session->Run(train);  // "Training": w becomes [3 4], the step 7.
    scaffold->saver()->Save(*session, "train/model.ckpt", GlobalStepValue(*session, global_step));
    // [mts:chief-first-start-end]
    std::printf("  trained and saved:\n");
    show(*session);
  }

  std::printf("\n2. A chief started again over the same directory restores:\n");
  {
    ChiefSessionCreator chief(scaffold, in_train);
    std::unique_ptr<SessionInterface> session = chief.CreateSession();
    show(*session);
    std::printf("  runs_here = %s (local: initialised, never restored)\n",
                session->Run(runs_here).ToString().c_str());
  }

  std::printf("\n3. A worker waits for a model nobody initialises in its session:\n");
  {
    // [mts:worker-waits]
    JumpingClock clock;
    WorkerSessionCreator worker(scaffold, "", /*max_wait_secs=*/90, &clock);
    try {
      worker.CreateSession();
    } catch (const DeadlineExceededError& e) {
      std::printf("  DeadlineExceededError: %s (after %g secs of the clock)\n",
                  e.message().c_str(), clock.NowSeconds());
    }
    // [mts:worker-waits-end]
  }

  RemoveLogSink(&sink);
  for (const std::string& name : fs.ListDirectory("train")) fs.DeleteFile("train/" + name);
  ::rmdir("train");
  if (::chdir("/") != 0 || ::rmdir(dir_template) != 0) std::perror("chief_and_worker");
  return 0;
}

}  // namespace
}  // namespace mts

int main() { return mts::Main(); }
