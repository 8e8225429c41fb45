// The contract every WrappedSession keeps, as one typed suite: it delegates Run, reports
// ShouldStop after Close, survives a double Close, and Close swallows preemption errors
// only. Each later layer (coordinated, recoverable, monitored) joins the suite.
#include <memory>

#include "gtest/gtest.h"
#include "src/01_session/array_ops.h"
#include "src/01_session/session.h"
#include "src/03_hooked/hooked_session.h"
#include "src/03_hooked/wrapped_session.h"

namespace mts {
namespace {

// A raw session whose Close raises a chosen error, to test what wrappers do with it.
class FailingCloseSession : public Session {
 public:
  FailingCloseSession(Graph* graph, ErrorCode code) : Session(graph), code_(code) {}
  void Close() override {
    Session::Close();
    if (code_ != ErrorCode::kOk) ThrowOpError(code_, "close failed");
  }

 private:
  ErrorCode code_;
};

// How to make each wrapper under test around a given raw session.
template <typename T>
std::unique_ptr<WrappedSession> Wrap(std::unique_ptr<SessionInterface> raw);

template <>
std::unique_ptr<WrappedSession> Wrap<WrappedSession>(std::unique_ptr<SessionInterface> raw) {
  return std::make_unique<WrappedSession>(std::move(raw));
}
template <>
std::unique_ptr<WrappedSession> Wrap<HookedSession>(std::unique_ptr<SessionInterface> raw) {
  return std::make_unique<HookedSession>(std::move(raw),
                                         std::vector<std::shared_ptr<SessionRunHook>>{});
}

template <typename T>
class WrappedSessionContractTest : public ::testing::Test {
 protected:
  std::unique_ptr<WrappedSession> Make(ErrorCode close_error = ErrorCode::kOk) {
    return Wrap<T>(std::make_unique<FailingCloseSession>(&graph_, close_error));
  }
  Graph graph_;
  DefaultGraphScope scope_{graph_};
  Output c_ = Constant(7.0f, "c");
};

using WrapperTypes = ::testing::Types<WrappedSession, HookedSession>;
TYPED_TEST_SUITE(WrappedSessionContractTest, WrapperTypes);

// Run reaches the raw session and returns its values; graph() is the raw session's.
TYPED_TEST(WrappedSessionContractTest, DelegatesRunAndGraph) {
  auto session = this->Make();
  EXPECT_EQ(session->Run(this->c_).template scalar<float>(), 7.0f);
  EXPECT_EQ(session->graph(), &this->graph_);
  EXPECT_FALSE(session->ShouldStop());
}

// After Close, ShouldStop is true, graph() is null and Run raises.
TYPED_TEST(WrappedSessionContractTest, ShouldStopAfterClose) {
  auto session = this->Make();
  session->Close();
  EXPECT_TRUE(session->ShouldStop());
  EXPECT_EQ(session->graph(), nullptr);
  EXPECT_THROW(session->Run(this->c_), RuntimeError);
}

// A second Close does nothing.
TYPED_TEST(WrappedSessionContractTest, SurvivesDoubleClose) {
  auto session = this->Make();
  session->Close();
  EXPECT_NO_THROW(session->Close());
}

// Preemption errors while closing are swallowed; the session is closed all the same.
TYPED_TEST(WrappedSessionContractTest, CloseSwallowsPreemptionErrors) {
  for (ErrorCode code : {ErrorCode::kAborted, ErrorCode::kUnavailable}) {
    auto session = this->Make(code);
    EXPECT_NO_THROW(session->Close()) << ErrorCodeName(code);
    EXPECT_TRUE(session->ShouldStop());
  }
}

// Other errors while closing propagate, and the session still counts as closed.
TYPED_TEST(WrappedSessionContractTest, CloseRaisesOtherErrorsButStillCloses) {
  auto session = this->Make(ErrorCode::kInternal);
  EXPECT_THROW(session->Close(), InternalError);
  EXPECT_TRUE(session->ShouldStop());
  EXPECT_NO_THROW(session->Close());
}

// The destructor never throws, whatever Close raises.
TYPED_TEST(WrappedSessionContractTest, DestructorNeverThrows) {
  auto session = this->Make(ErrorCode::kInternal);
  EXPECT_NO_THROW(session.reset());
}

// A wrapper asks the wrapper below whether to stop; a raw session never asks.
TEST(WrappedSessionTest, ShouldStopAsksTheInnerWrapper) {
  class StoppingWrapper : public WrappedSession {
   public:
    using WrappedSession::WrappedSession;
    bool stop = false;

   protected:
    bool CheckStop() override { return stop; }
  };
  Graph graph;
  auto inner = std::make_unique<StoppingWrapper>(std::make_unique<Session>(&graph));
  StoppingWrapper* inner_ptr = inner.get();
  WrappedSession outer(std::move(inner));
  EXPECT_FALSE(outer.ShouldStop());
  inner_ptr->stop = true;
  EXPECT_TRUE(outer.ShouldStop());
}

}  // namespace
}  // namespace mts
