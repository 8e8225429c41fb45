// wrapped_session_contract.h: the contract every WrappedSession keeps, as one typed suite
// that each stage instantiates for its own layers.
//
//   RecoverableSession   each stage adds its wrapper to the suite, in its own tests
//     CoordinatedSession
//       HookedSession
//
// A stage joins by specialising WrapperFactory<T>::Wrap (make a T around a raw session) and
// instantiating the suite:
//
//   template <> struct WrapperFactory<HookedSession> { static std::unique_ptr<WrappedSession>
//       Wrap(std::unique_ptr<SessionInterface> raw) { ... } };
//   using Types = ::testing::Types<WrappedSession, HookedSession>;
//   INSTANTIATE_TYPED_TEST_SUITE_P(Stage03, WrappedSessionContractTest, Types);
//
// The contract: Run and graph() reach the raw session; after Close, ShouldStop is true,
// graph() is null and Run raises; a second Close does nothing; Close swallows preemption
// errors only, and counts as closed even when it raises; destructors never throw.
#ifndef MTS_TESTS_TESTING_WRAPPED_SESSION_CONTRACT_H_
#define MTS_TESTS_TESTING_WRAPPED_SESSION_CONTRACT_H_

#include <memory>

#include "gtest/gtest.h"
#include "src/01_session/array_ops.h"
#include "src/01_session/session.h"
#include "src/03_hooked/wrapped_session.h"

namespace mts {

/// How to make the wrapper under test around a raw session; each stage specialises it.
template <typename T>
struct WrapperFactory;

/// The base layer itself.
template <>
struct WrapperFactory<WrappedSession> {
  static std::unique_ptr<WrappedSession> Wrap(std::unique_ptr<SessionInterface> raw) {
    return std::make_unique<WrappedSession>(std::move(raw));
  }
};

/// A raw session whose Close raises a chosen error, to test what wrappers do with it.
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

template <typename T>
class WrappedSessionContractTest : public ::testing::Test {
 protected:
  std::unique_ptr<WrappedSession> Make(ErrorCode close_error = ErrorCode::kOk) {
    return WrapperFactory<T>::Wrap(std::make_unique<FailingCloseSession>(&graph_, close_error));
  }
  Graph graph_;
  DefaultGraphScope scope_{graph_};
  Output c_ = Constant(7.0f, "c");
};

TYPED_TEST_SUITE_P(WrappedSessionContractTest);

// Run reaches the raw session and returns its values; graph() is the raw session's.
TYPED_TEST_P(WrappedSessionContractTest, DelegatesRunAndGraph) {
  auto session = this->Make();
  EXPECT_EQ(session->Run(this->c_).template scalar<float>(), 7.0f);
  EXPECT_EQ(session->graph(), &this->graph_);
  EXPECT_FALSE(session->ShouldStop());
}

// After Close, ShouldStop is true, graph() is null and Run raises.
TYPED_TEST_P(WrappedSessionContractTest, ShouldStopAfterClose) {
  auto session = this->Make();
  session->Close();
  EXPECT_TRUE(session->ShouldStop());
  EXPECT_EQ(session->graph(), nullptr);
  EXPECT_THROW(session->Run(this->c_), RuntimeError);
}

// A second Close does nothing.
TYPED_TEST_P(WrappedSessionContractTest, SurvivesDoubleClose) {
  auto session = this->Make();
  session->Close();
  EXPECT_NO_THROW(session->Close());
}

// Preemption errors while closing are swallowed; the session is closed all the same.
TYPED_TEST_P(WrappedSessionContractTest, CloseSwallowsPreemptionErrors) {
  for (ErrorCode code : {ErrorCode::kAborted, ErrorCode::kUnavailable}) {
    auto session = this->Make(code);
    EXPECT_NO_THROW(session->Close()) << ErrorCodeName(code);
    EXPECT_TRUE(session->ShouldStop());
  }
}

// Other errors while closing never leave the session open; a second Close is quiet.
TYPED_TEST_P(WrappedSessionContractTest, CloseClosesEvenWhenTheInnerCloseFails) {
  auto session = this->Make(ErrorCode::kInternal);
  try {
    session->Close();
  } catch (const InternalError&) {
    // Layers differ on whether they report it (the coordinated layer logs it); either way
    // the session must count as closed.
  }
  EXPECT_TRUE(session->ShouldStop());
  EXPECT_NO_THROW(session->Close());
}

// The destructor never throws, whatever Close raises.
TYPED_TEST_P(WrappedSessionContractTest, DestructorNeverThrows) {
  auto session = this->Make(ErrorCode::kInternal);
  EXPECT_NO_THROW(session.reset());
}

REGISTER_TYPED_TEST_SUITE_P(WrappedSessionContractTest, DelegatesRunAndGraph,
                            ShouldStopAfterClose, SurvivesDoubleClose,
                            CloseSwallowsPreemptionErrors,
                            CloseClosesEvenWhenTheInnerCloseFails, DestructorNeverThrows);

}  // namespace mts

#endif  // MTS_TESTS_TESTING_WRAPPED_SESSION_CONTRACT_H_
