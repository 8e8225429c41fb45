// python_beside: the C++ half of chapter 05's "TF1 Python beside C++" blocks. Each block of
// the chapter cuts one `[mts:pair-NAME]` region out of this file (docs/conf.py, `beside`),
// and this test runs them all, with preemptions injected below the session, so a listed
// call that stops compiling or recovering fails the build. docs/python_beside_test.py checks
// each pair's names against the names page.
#include <cstdio>
#include <memory>
#include <vector>

#include "chapters/python_beside_support.h"
#include "src/01_session/array_ops.h"
#include "src/01_session/graph.h"
#include "src/01_session/learning/math_ops.h"
#include "src/01_session/variables.h"
#include "src/02_chief_worker/chief_session_creator.h"
#include "src/02_chief_worker/scaffold.h"
#include "src/05_recoverable/recoverable_session.h"
#include "src/platform/errors.h"
#include "tests/testing/fault_injection.h"

namespace {

using namespace mts;
using python_beside::Expect;
using python_beside::failures;
using python_beside::FreshDir;

// A chief's sessions whose runs fail as `faults` says, counting the sessions made.
std::shared_ptr<SessionCreator> PreemptedChief(std::shared_ptr<FaultSchedule> faults,
                                               int* created) {
  auto chief = std::make_shared<ChiefSessionCreator>(std::make_shared<Scaffold>());
  return std::make_shared<FunctionSessionCreator>([chief, faults, created] {
    ++*created;
    return std::make_unique<FaultySession>(chief->CreateSession(), faults);
  });
}

void Recovers() {
  Graph graph;
  DefaultGraphScope as_default(graph);
  Variable w(Tensor::Scalar(0.0f), "w");
  Operation* train_op = w.AssignAdd(Constant(1.0f)).op();
  int created = 0;
  // The third raw run is lost to a preemption.
  std::shared_ptr<SessionCreator> creator =
      PreemptedChief(FaultSchedule::AtCall(3, ErrorCode::kAborted), &created);
  // [mts:pair-recoverable-session]
  RecoverableSession sess(creator);  // creator: any SessionCreator, e.g. a ChiefSessionCreator
  for (int i = 0; i < 10; ++i) {
    sess.Run(train_op);  // Preempted? Close, create anew (restoring), run the same call again.
  }
  // [mts:pair-recoverable-session-end]
  Expect(created == 2, "the preempted session was not replaced exactly once");
}

// [mts:pair-preemption-errors]
std::vector<Tensor> RunRecovering(SessionCreator& creator, std::unique_ptr<SessionInterface>& sess,
                                  const std::vector<Output>& fetches) {
  while (true) {
    if (!sess) sess = creator.CreateSession();  // Restores the newest checkpoint.
    try {
      return sess->Run(fetches);
    } catch (const OpError& e) {
      if (!IsPreemptionError(e.code())) throw;  // AbortedError, UnavailableError only.
      sess->Close();
      sess = nullptr;  // Lost: make a new one and run the same call again.
    }
  }
}
// [mts:pair-preemption-errors-end]

void RecoversByHand() {
  Graph graph;
  DefaultGraphScope as_default(graph);
  Output two = Constant(2.0f, "two");
  int created = 0;
  std::shared_ptr<SessionCreator> creator = PreemptedChief(
      FaultSchedule::AtCalls({{1, ErrorCode::kUnavailable}, {2, ErrorCode::kAborted}}), &created);
  std::unique_ptr<SessionInterface> sess;
  std::vector<Tensor> out = RunRecovering(*creator, sess, {two});
  Expect(out[0].scalar<float>() == 2.0f, "RunRecovering did not return the value");
  Expect(created == 3, "two preemptions did not make three sessions");
}

void OtherErrorsPass() {
  Graph graph;
  DefaultGraphScope as_default(graph);
  Output x = Placeholder(DataType::kFloat, TensorShape({}), "x");
  Output y = Mul(x, Constant(2.0f), "y");
  int created = 0;
  std::shared_ptr<SessionCreator> creator = PreemptedChief(FaultSchedule::Never(), &created);
  RecoverableSession sess(creator);
  bool raised = false;
  // [mts:pair-not-preemption]
  try {
    sess.Run(y);  // x is not fed: InvalidArgumentError.
  } catch (const InvalidArgumentError& e) {
    raised = true;  // Not a preemption: raised to the caller, nothing re-created.
  }
  // [mts:pair-not-preemption-end]
  Expect(raised, "the missing feed was not raised");
  Expect(created == 1, "a non-preemption error made a new session");
}

}  // namespace

int main() {
  Recovers();
  RecoversByHand();
  OtherErrorsPass();
  if (failures == 0) std::printf("python_beside: every pair of chapter 05 works\n");
  return failures == 0 ? 0 : 1;
}
