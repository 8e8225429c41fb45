// Stage 03's layers in the WrappedSession contract suite (tests/testing/
// wrapped_session_contract.h): the base itself and HookedSession. The layers above join the
// same suite in their own stages' tests.
#include "tests/testing/wrapped_session_contract.h"

#include "src/03_hooked/hooked_session.h"

namespace mts {

template <>
struct WrapperFactory<HookedSession> {
  static std::unique_ptr<WrappedSession> Wrap(std::unique_ptr<SessionInterface> raw) {
    return std::make_unique<HookedSession>(std::move(raw),
                                           std::vector<std::shared_ptr<SessionRunHook>>{});
  }
};

namespace {

using Stage03Wrappers = ::testing::Types<WrappedSession, HookedSession>;
INSTANTIATE_TYPED_TEST_SUITE_P(Stage03, WrappedSessionContractTest, Stage03Wrappers);

// The base's own close contract: errors other than preemption propagate from Close.
TEST(WrappedSessionTest, CloseRaisesOtherErrorsButStillCloses) {
  Graph graph;
  WrappedSession session(std::make_unique<FailingCloseSession>(&graph, ErrorCode::kInternal));
  EXPECT_THROW(session.Close(), InternalError);
  EXPECT_TRUE(session.ShouldStop());
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
