// trace_training_run: records one short training run through a MonitoredSession (its
// creation, four steps with a checkpoint every two, a preemption at the third step and the
// recovery from the checkpoint, the clean close) and prints it as a graphviz sequence
// diagram (the default) or as text (with --text, followed by what the layers logged), for
// chapter 06.
//
// The MonitoredSession is the real one; the tracing sits at its edges, where a reader can
// put it without touching the classes under study:
//   - the caller records its own calls on the MonitoredSession;
//   - the session creator is wrapped, so each (re)creation is drawn;
//   - a hook records its calls, and is the one that fails: its third BeforeRun raises
//     AbortedError, as a parameter server restarting under the step would. Before each
//     BeforeRun it draws the step's way down the stack, layer by layer, reading the layers
//     from the MonitoredSession itself (top_layer(), inner()); the error goes back up to the
//     RecoverableSession, which makes the stack anew and runs the step again from there;
//   - a CheckpointSaverListener records each save of the CheckpointSaverHook.
#include <cxxabi.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <string>
#include <typeinfo>
#include <vector>

#include "src/01_session/training_util.h"
#include "src/02_chief_worker/chief_session_creator.h"
#include "src/03_hooked/events/summary_writer_cache.h"
#include "src/03_hooked/hooks/checkpoint_saver_hook.h"
#include "src/06_monitored/monitored_session.h"
#include "src/platform/errors.h"
#include "src/platform/file_system.h"
#include "src/platform/logging.h"
#include "tests/testing/fault_injection.h"
#include "tools/tracing/call_tracer.h"

namespace {

using namespace mts;

// The class of a layer, without "mts::" ("RecoverableSession").
std::string TypeName(const SessionInterface& layer) {
  int status = 0;
  char* demangled = abi::__cxa_demangle(typeid(layer).name(), nullptr, nullptr, &status);
  std::string name = status == 0 ? demangled : typeid(layer).name();
  std::free(demangled);
  return name.rfind("mts::", 0) == 0 ? name.substr(5) : name;
}

// A hook that draws each call it gets, from the layer that makes it, and fails once. When a
// step reaches it, it first draws the step's way down the stack: the layers a Run passed
// through to reach the hooked layer, read from the MonitoredSession's stack as it is at that
// moment (top_layer(), then each layer's inner(), as chapter 00's program walks it).
class TracedHook : public SessionRunHook {
 public:
  TracedHook(std::shared_ptr<CallTracer> tracer, int fail_at_before_run)
      : tracer_(std::move(tracer)), fail_at_(fail_at_before_run) {}
  // The session whose stack the hook draws; until set, it draws no way down.
  void Watch(const MonitoredSession* session) { session_ = session; }
  void Begin() override { tracer_->Call("MonitoredSession", "hook", "Begin"); }
  void AfterCreateSession(SessionInterface&, Coordinator*) override {
    tracer_->Call("SessionCreator", "hook", "AfterCreateSession");
  }
  SessionRunArgs BeforeRun(SessionRunContext&) override {
    const std::vector<std::string> way = WayDown();
    if (++before_runs_ == fail_at_) {
      tracer_->Call("HookedSession", "hook", "BeforeRun: AbortedError!");
      // The error goes back up the way it came, to the layer that recovers from it, and
      // that layer runs the step again on the stack it makes anew.
      for (size_t i = way.size() - 1; i >= 2; --i) {
        tracer_->Return(way[i - 1], way[i], "Run", "raises AbortedError");
        if (way[i - 1] == "RecoverableSession") break;
      }
      retry_ = true;
      throw AbortedError("the parameter server restarted");
    }
    tracer_->Call("HookedSession", "hook", "BeforeRun");
    return {};
  }
  void AfterRun(SessionRunContext&, const SessionRunValues&) override {
    tracer_->Call("HookedSession", "hook", "AfterRun");
  }
  void End(SessionInterface&) override { tracer_->Call("MonitoredSession", "hook", "End"); }

 private:
  // Draws a Run from each layer to the next, from the top down to the HookedSession, and
  // returns the layers' names, "MonitoredSession" first. A step run again after a recovery
  // starts from the RecoverableSession, whose loop runs it again.
  std::vector<std::string> WayDown() {
    std::vector<std::string> way = {"MonitoredSession"};
    const SessionInterface* layer = session_ != nullptr ? session_->top_layer() : nullptr;
    while (layer != nullptr && way.back() != "HookedSession") {
      way.push_back(TypeName(*layer));
      const bool redone = retry_ && way.size() == 2;
      if (!redone) tracer_->Call(way[way.size() - 2], way.back(), "Run");
      const auto* wrapped = dynamic_cast<const WrappedSession*>(layer);
      layer = wrapped != nullptr ? wrapped->inner() : nullptr;
    }
    retry_ = false;
    return way;
  }

  std::shared_ptr<CallTracer> tracer_;
  const MonitoredSession* session_ = nullptr;
  int fail_at_;
  int before_runs_ = 0;
  bool retry_ = false;
};

// Draws each checkpoint the CheckpointSaverHook writes.
class TracedListener : public CheckpointSaverListener {
 public:
  explicit TracedListener(std::shared_ptr<CallTracer> tracer) : tracer_(std::move(tracer)) {}
  void BeforeSave(SessionInterface&, int64_t step) override {
    tracer_->Call("CheckpointSaverHook", "Saver", "Save (step " + std::to_string(step) + ")");
  }

 private:
  std::shared_ptr<CallTracer> tracer_;
};

// Keeps what the recoverable layer, the session manager and the saver log, with the temporary
// directory masked, so the text output is the same on every build.
class StackLog : public LogSink {
 public:
  explicit StackLog(std::string dir) : dir_(std::move(dir)) {}
  void Send(const LogEntry& entry) override {
    if (entry.file != "recoverable_session.cc" && entry.file != "session_manager.cc" &&
        entry.file != "saver.cc") {
      return;
    }
    std::string message = entry.message;
    for (size_t at; (at = message.find(dir_)) != std::string::npos;) {
      message.replace(at, dir_.size(), "<checkpoint_dir>");
    }
    lines.push_back(entry.file + ": " + message);
  }
  std::vector<std::string> lines;

 private:
  std::string dir_;
};

}  // namespace

int main(int argc, char** argv) {
  const bool text = argc > 1 && std::strcmp(argv[1], "--text") == 0;
  setenv("MTS_MIN_LOG_LEVEL", "2", /*overwrite=*/1);  // Timestamped lines stay out.
  char dir_template[] = "/tmp/trace_training_run_XXXXXX";
  const std::string checkpoint_dir = mkdtemp(dir_template);
  StackLog log(checkpoint_dir);
  AddLogSink(&log);

  Graph graph;
  DefaultGraphScope as_default(graph);
  GetOrCreateGlobalStep();
  Output train = IncrementGlobalStep();

  // [mts:trace-training-run]
  auto tracer = std::make_shared<CallTracer>();
  for (const char* layer :
       {"caller", "MonitoredSession", "RecoverableSession", "CoordinatedSession", "HookedSession",
        "hook", "SessionCreator", "CheckpointSaverHook", "Saver"}) {
    tracer->AddParticipant(layer);  // The stack from left to right, then its helpers.
  }
  ChiefSessionCreatorOptions chief_options;
  chief_options.checkpoint_dir = checkpoint_dir;
  auto chief = std::make_shared<ChiefSessionCreator>(nullptr, chief_options);
  auto creator = std::make_shared<FunctionSessionCreator>([=] {
    tracer->Call("RecoverableSession", "SessionCreator", "CreateSession");
    auto session = chief->CreateSession();  // Restores the latest checkpoint, or initialises.
    tracer->Return("RecoverableSession", "SessionCreator", "CreateSession");
    return session;
  });
  auto hook = std::make_shared<TracedHook>(tracer, /*fail_at_before_run=*/3);
  CheckpointSaverHookOptions saving;
  saving.save_steps = 2;
  saving.listeners = {std::make_shared<TracedListener>(tracer)};
  auto saver_hook = std::make_shared<CheckpointSaverHook>(checkpoint_dir, saving);

  tracer->Call("caller", "MonitoredSession", "construct");
  MonitoredSession session(creator, {saver_hook, hook});
  tracer->Return("caller", "MonitoredSession", "construct");
  hook->Watch(&session);
  int64_t step = 0;
  while (step < 4) {
    tracer->Call("caller", "MonitoredSession", "Run");
    step = session.Run(train).scalar<int64_t>();
    tracer->Return("caller", "MonitoredSession", "Run", "returns step " + std::to_string(step));
  }
  tracer->Call("caller", "MonitoredSession", "Close");
  session.Close();
  tracer->Return("caller", "MonitoredSession", "Close");
  // [mts:trace-training-run-end]

  RemoveLogSink(&log);
  SummaryWriterCache::Clear();
  std::filesystem::remove_all(checkpoint_dir);
  if (!text) {
    std::cout << tracer->ToGraphviz();
    return 0;
  }
  std::cout << tracer->ToText() << "\nThe layers logged:\n";
  for (const std::string& line : log.lines) std::cout << "  " << line << "\n";
  return 0;
}
