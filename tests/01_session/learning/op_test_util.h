// op_test_util.h: the two helpers every op test of stage 01 uses: run a tensor once, and
// read the message of the exception a build-time check throws.
#ifndef MTS_TESTS_01_SESSION_OP_TEST_UTIL_H_
#define MTS_TESTS_01_SESSION_OP_TEST_UTIL_H_

#include <functional>
#include <string>

#include "gtest/gtest.h"
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

/// The message of the E that `f` throws; a test failure if it throws nothing or another type.
template <typename E>
std::string MessageOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "threw the wrong exception type: " << e.what();
    return "";
  }
  ADD_FAILURE() << "threw nothing";
  return "";
}

}  // namespace testing_util
}  // namespace mts

#endif  // MTS_TESTS_01_SESSION_OP_TEST_UTIL_H_
