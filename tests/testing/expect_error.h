// expect_error.h: the one way a test checks an error: gMock's Throws and ThrowsMessage, plus
// matchers for what only an OpError carries (its bare message, its op, its code).
//
//   a test                     EXPECT_THAT([&] { call(); }, ThrowsMessage<E>(...))
//     gMock Throws<E>          runs the callable, catches an E (or a subclass of E)
//       HasMessage, HasOpName, HasCode   <-- this file: look inside an OpError
//         errors.h             the classes thrown
//
// Most tests of an error want its class and its text; gMock says both in one line:
//
//   EXPECT_THAT([&] { graph.GetTensorByName("nope:0"); },
//               ThrowsMessage<ValueError>(HasSubstr("refers to a Tensor which does not exist")));
//
// ThrowsMessage matches what(). An OpError's what() is its message plus the op annotation
// "\n\t [[node NAME]]" when it names an op, so to check the message alone, the op name or
// the code, match the error itself with Throws<E> and these matchers:
//
//   EXPECT_THAT([&] { session.Run(dequeue); },
//               Throws<OutOfRangeError>(AllOf(HasMessage(HasSubstr("is closed")),
//                                             HasOpName("q_Dequeue"))));
//   EXPECT_THAT([&] { Step(session); }, Throws<OpError>(HasCode(ErrorCode::kAborted)));
//
// Several checks of one message are one AllOf (AllOf(HasSubstr("b"), HasSubstr("c"))), so no
// test needs to catch an error by hand to look at it twice. Like a catch clause, Throws<E>
// accepts a subclass of E; where a test must tell a class from its subclasses, it adds
// Truly(predicate) on the error (errors_test.cc does, to prove each code has its own class).
//
// Use these, not try { ...; FAIL(); } catch: a matcher says what was expected in one place,
// and on failure prints what was thrown instead (class and what()), or that nothing was.
// EXPECT_THROW(call, E) remains the way to check the class alone.
//
// TensorFlow: its tests say the same with assertRaisesRegex(errors.OutOfRangeError, "...").
#ifndef MTS_TESTS_TESTING_EXPECT_ERROR_H_
#define MTS_TESTS_TESTING_EXPECT_ERROR_H_

#include <string>

#include "gmock/gmock.h"
#include "src/platform/errors.h"

namespace mts {

/// Matches an OpError whose message() (what() without the op annotation) matches
/// `matcher`: a string for equality, or a string matcher (HasSubstr, StartsWith, AllOf...).
template <typename M>
auto HasMessage(M matcher) {
  return ::testing::Property("message", &OpError::message,
                             ::testing::MatcherCast<const std::string&>(matcher));
}

/// Matches an OpError whose op_name() matches `matcher` ("" when no op is named).
template <typename M>
auto HasOpName(M matcher) {
  return ::testing::Property("op_name", &OpError::op_name,
                             ::testing::MatcherCast<const std::string&>(matcher));
}

/// Matches an OpError of canonical code `code`, whatever its class (for a code a test holds
/// as a value: a table's row, a parameter).
inline auto HasCode(ErrorCode code) {
  return ::testing::Property("code", &OpError::code, code);
}

}  // namespace mts

#endif  // MTS_TESTS_TESTING_EXPECT_ERROR_H_
