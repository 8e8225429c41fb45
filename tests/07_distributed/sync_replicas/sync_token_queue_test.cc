// SyncTokenQueue in one session: tokens in order, a dequeue that waits, and a wait that
// goes on too long logged with what it waits for.
#include "src/07_distributed/sync_replicas/sync_token_queue.h"

#include <future>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/01_session/array_ops.h"
#include "src/01_session/session.h"
#include "src/platform/logging.h"
#include "tests/testing/expect_error.h"
#include "tests/testing/log_latch.h"

namespace mts {
namespace {

using ::testing::HasSubstr;

class SyncTokenQueueTest : public ::testing::Test {
 protected:
  void SetUp() override { ResetDefaultGraph(); }
};

// Tokens come out in the order they went in; the size counts them.
TEST_F(SyncTokenQueueTest, TokensComeOutInOrder) {
  SyncTokenQueue tokens("sync_token_q");
  Output step = Placeholder(DataType::kInt64, TensorShape{}, "step");
  Operation* put = tokens.EnqueueTokens(step, 2);
  Output token = tokens.DequeueToken();
  Session session;
  session.Run({}, {{step, Tensor::Scalar(int64_t{3})}}, {put});
  session.Run({}, {{step, Tensor::Scalar(int64_t{4})}}, {put});
  EXPECT_EQ(session.Run(tokens.Size()).scalar<int32_t>(), 4);
  EXPECT_EQ(session.Run(token).scalar<int64_t>(), 3);
  EXPECT_EQ(session.Run(token).scalar<int64_t>(), 3);
  EXPECT_EQ(session.Run(token).scalar<int64_t>(), 4);
}

// A dequeue that waits longer than wait_warning_secs logs what it waits for, and still
// takes the token when it comes.
TEST_F(SyncTokenQueueTest, ALongWaitIsLoggedWithWhatIsMissing) {
  SyncTokenQueue tokens("sync_token_q");
  Output token = tokens.DequeueToken(0.01, "a token the chief puts after each update");
  Operation* put = tokens.EnqueueTokens(Constant(int64_t{7}), 1);
  Session session;
  LogLatch latch("has waited");
  auto taken = std::async(std::launch::async, [&] { return session.Run(token).scalar<int64_t>(); });
  EXPECT_THAT(latch.Wait(), AllOf(HasSubstr("DequeueToken on sync_token_q"),
                                  HasSubstr("a token the chief puts after each update")));
  session.Run({}, {}, {put});
  EXPECT_EQ(taken.get(), 7);
}

// Cancelling the queue's waits ends a waiting dequeue with CancelledError, and later ones.
TEST_F(SyncTokenQueueTest, CancelWaitsEndsAWaitingDequeue) {
  SyncTokenQueue tokens("sync_token_q");
  Output token = tokens.DequeueToken();
  Session session;
  auto taken = std::async(std::launch::async, [&] { session.Run(token); });
  session.Run({}, {}, {CancelWaits(tokens.op())});
  EXPECT_THROW(taken.get(), CancelledError);
  EXPECT_THROW(session.Run(token), CancelledError);
}

// A request for an absurd number of tokens (a damaged message to a ps) is refused before
// anything is queued.
TEST_F(SyncTokenQueueTest, AbsurdlyManyTokensAreRefused) {
  SyncTokenQueueResource queue("sync_token_q");
  EXPECT_THAT(
      [&] {
        queue.RunOp("EnqueueTokens", "put", {Tensor::Scalar(int64_t{1})},
                    {{"num_tokens", int64_t{1} << 40}}, {});
      },
      ::testing::Throws<InvalidArgumentError>(HasMessage(HasSubstr("tokens at once"))));
  EXPECT_EQ(queue.Size(), 0);
}

}  // namespace
}  // namespace mts
