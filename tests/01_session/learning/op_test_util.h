// op_test_util.h: what every op test of stage 01 uses: an unknown dimension for expected
// shapes, and running a tensor once. (An op's errors are checked with gMock's
// ThrowsMessage; see tests/testing/expect_error.h.)
#ifndef MTS_TESTS_01_SESSION_OP_TEST_UTIL_H_
#define MTS_TESTS_01_SESSION_OP_TEST_UTIL_H_

#include "src/01_session/session.h"

namespace mts {
namespace testing_util {

/// A dimension unknown at build time, for expected shapes.
constexpr int64_t kUnknown = TensorShape::kUnknownDim;

/// Runs `y` once in a new session on the default graph.
inline Tensor Eval(const Output& y, const FeedDict& feeds = {}) {
  Session session;
  return session.Run(y, feeds);
}

}  // namespace testing_util
}  // namespace mts

#endif  // MTS_TESTS_01_SESSION_OP_TEST_UTIL_H_
