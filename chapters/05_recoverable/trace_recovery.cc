// trace_recovery: records every call of one RecoverableSession::Run whose first attempt is
// preempted, and prints the trace, as a graphviz sequence diagram (the default) or as text
// (with --text, followed by what the recoverable layer logged), for chapter 05.
//
//   caller -> RecoverableSession -> HookedSession -> hook, Session   (fails: AbortedError)
//             RecoverableSession -> HookedSession: Close
//             RecoverableSession -> SessionCreator: CreateSession -> hook: AfterCreateSession
//             RecoverableSession -> HookedSession -> hook, Session   (the same call, again)
//
// The stack is built by a creator function, as CoordinatedSessionCreator builds it but
// without the coordinated layer (this run has no threads), so that a tracing layer can sit
// between every two layers. The fault comes from the fault-injection harness: a
// FaultySession below the tracing "Session" fails the first raw run with AbortedError.
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "src/01_session/training_util.h"
#include "src/02_chief_worker/chief_session_creator.h"
#include "src/03_hooked/hooked_session.h"
#include "src/05_recoverable/recoverable_session.h"
#include "src/platform/logging.h"
#include "tests/testing/fault_injection.h"
#include "tools/tracing/call_tracer.h"

namespace {

using namespace mts;

// A TracingSession that records Close too: a recovery is mostly closing and creating.
class ClosingTracingSession : public TracingSession {
 public:
  ClosingTracingSession(std::unique_ptr<SessionInterface> inner,
                        std::shared_ptr<CallTracer> tracer, std::string name, std::string caller)
      : TracingSession(std::move(inner), tracer, name, caller),
        tracer_(tracer),
        name_(std::move(name)),
        caller_(std::move(caller)) {}
  ~ClosingTracingSession() override {
    try {
      Close();
    } catch (const std::exception& e) {
      MTS_LOG(ERROR) << "Error while closing in a destructor: " << e.what();
    }
  }
  void Close() override {
    if (inner() == nullptr) return;  // Already closed: nothing to draw.
    tracer_->Call(caller_, name_, "Close");
    WrappedSession::Close();
    tracer_->Return(caller_, name_, "Close");
  }

 private:
  std::shared_ptr<CallTracer> tracer_;
  std::string name_;
  std::string caller_;
};

// A TracingHook whose AfterCreateSession is drawn as a call from the creator, which is who
// makes it (the other methods come from HookedSession).
class CreatorAwareTracingHook : public TracingHook {
 public:
  CreatorAwareTracingHook(std::shared_ptr<CallTracer> tracer, std::string name)
      : TracingHook(tracer, name), tracer_(tracer), name_(std::move(name)) {}
  void AfterCreateSession(SessionInterface&, Coordinator*) override {
    tracer_->Call("SessionCreator", name_, "AfterCreateSession");
  }

 private:
  std::shared_ptr<CallTracer> tracer_;
  std::string name_;
};

// Keeps the messages the recoverable layer logs, without their timestamps, so the text
// output is the same on every build.
class RecoveryLog : public LogSink {
 public:
  void Send(const LogEntry& entry) override {
    if (entry.file == "recoverable_session.cc") lines.push_back(entry.message);
  }
  std::vector<std::string> lines;
};

}  // namespace

int main(int argc, char** argv) {
  const bool text = argc > 1 && std::strcmp(argv[1], "--text") == 0;
  // stderr is captured with stdout for the book: keep the chief's INFO lines (timestamped,
  // different on every build) out of the diagram. The sink below still sees every message.
  setenv("MTS_MIN_LOG_LEVEL", "2", /*overwrite=*/1);
  RecoveryLog log;
  AddLogSink(&log);

  Graph graph;
  DefaultGraphScope as_default(graph);
  GetOrCreateGlobalStep();
  Output train = IncrementGlobalStep();

  // [mts:trace-recovery-stack]
  auto tracer = std::make_shared<CallTracer>();
  auto hook = std::make_shared<CreatorAwareTracingHook>(tracer, "hook");
  auto chief = std::make_shared<ChiefSessionCreator>();  // Initialises each new session.
  auto faults = FaultSchedule::AtCall(1, ErrorCode::kAborted);  // The first raw run fails.

  // What the recoverable layer calls to (re)build everything below it.
  auto creator = std::make_shared<FunctionSessionCreator>([=] {
    tracer->Call("RecoverableSession", "SessionCreator", "CreateSession");
    auto raw = std::make_unique<ClosingTracingSession>(
        std::make_unique<FaultySession>(chief->CreateSession(), faults), tracer, "Session",
        "HookedSession");
    hook->AfterCreateSession(*raw, nullptr);
    auto hooked = std::make_unique<HookedSession>(
        std::move(raw), std::vector<std::shared_ptr<SessionRunHook>>{hook});
    tracer->Return("RecoverableSession", "SessionCreator", "CreateSession");
    return std::make_unique<ClosingTracingSession>(std::move(hooked), tracer, "HookedSession",
                                                   "RecoverableSession");
  });
  auto recoverable = std::make_unique<RecoverableSession>(creator);
  TracingSession session(std::move(recoverable), tracer, "RecoverableSession", "caller");
  tracer->Clear();  // Draw the step, not the first creation.

  const int64_t step = session.Run(train).scalar<int64_t>();  // Fails once, recovers.
  // [mts:trace-recovery-stack-end]

  RemoveLogSink(&log);
  if (!text) {
    std::cout << tracer->ToGraphviz();
    return 0;
  }
  std::cout << tracer->ToText() << "\nThe step returned global step " << step
            << "; the raw session ran " << faults->calls() << " times.\n"
            << "\nThe recoverable layer logged:\n";
  for (const std::string& line : log.lines) std::cout << "  " << line << "\n";
  return 0;
}
