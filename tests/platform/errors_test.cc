// Tests of errors.h: one exception class per canonical code, numbered as TensorFlow numbers
// them, so the layers above can sort errors by type and never by message.
#include "src/platform/errors.h"

#include <functional>
#include <string>
#include <type_traits>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/expect_error.h"

namespace mts {
namespace {

using ::testing::AllOf;
using ::testing::StrEq;
using ::testing::Throws;
using ::testing::ThrowsMessage;
using ::testing::Truly;

// One row per canonical code: its class (checked by dynamic_cast), TensorFlow's number, its name.
struct CodeCase {
  ErrorCode code;
  int tf_number;
  const char* name;
  std::function<bool(const OpError&)> is_its_class;
};

template <typename E>
std::function<bool(const OpError&)> IsA() {
  return [](const OpError& e) { return dynamic_cast<const E*>(&e) != nullptr; };
}

const CodeCase kCodes[] = {
    {ErrorCode::kCancelled, 1, "CANCELLED", IsA<CancelledError>()},
    {ErrorCode::kUnknown, 2, "UNKNOWN", IsA<UnknownError>()},
    {ErrorCode::kInvalidArgument, 3, "INVALID_ARGUMENT", IsA<InvalidArgumentError>()},
    {ErrorCode::kDeadlineExceeded, 4, "DEADLINE_EXCEEDED", IsA<DeadlineExceededError>()},
    {ErrorCode::kNotFound, 5, "NOT_FOUND", IsA<NotFoundError>()},
    {ErrorCode::kAlreadyExists, 6, "ALREADY_EXISTS", IsA<AlreadyExistsError>()},
    {ErrorCode::kPermissionDenied, 7, "PERMISSION_DENIED", IsA<PermissionDeniedError>()},
    {ErrorCode::kResourceExhausted, 8, "RESOURCE_EXHAUSTED", IsA<ResourceExhaustedError>()},
    {ErrorCode::kFailedPrecondition, 9, "FAILED_PRECONDITION",
     IsA<FailedPreconditionError>()},
    {ErrorCode::kAborted, 10, "ABORTED", IsA<AbortedError>()},
    {ErrorCode::kOutOfRange, 11, "OUT_OF_RANGE", IsA<OutOfRangeError>()},
    {ErrorCode::kUnimplemented, 12, "UNIMPLEMENTED", IsA<UnimplementedError>()},
    {ErrorCode::kInternal, 13, "INTERNAL", IsA<InternalError>()},
    {ErrorCode::kUnavailable, 14, "UNAVAILABLE", IsA<UnavailableError>()},
    {ErrorCode::kDataLoss, 15, "DATA_LOSS", IsA<DataLossError>()},
    {ErrorCode::kUnauthenticated, 16, "UNAUTHENTICATED", IsA<UnauthenticatedError>()},
};

// ThrowOpError turns each code into exactly its own class, carrying the code.
TEST(ErrorsTest, ThrowOpErrorRaisesTheClassOfEachCode) {
  for (const CodeCase& c : kCodes) {
    SCOPED_TRACE(c.name);
    // No class but its own matches: the layers above rely on catching a precise type.
    const auto no_other_class = [](const OpError& e) {
      int matching_classes = 0;
      for (const CodeCase& other : kCodes) matching_classes += other.is_its_class(e) ? 1 : 0;
      return matching_classes == 1;
    };
    EXPECT_THAT([&] { ThrowOpError(c.code, "boom", "dense/MatMul"); },
                Throws<OpError>(AllOf(Truly(c.is_its_class), Truly(no_other_class), HasCode(c.code),
                                      HasMessage("boom"), HasOpName("dense/MatMul"))));
  }
}

// The numeric values of the codes are TensorFlow's, so they can cross an RPC (stage 07).
TEST(ErrorsTest, CodesHaveTensorFlowsNumbers) {
  EXPECT_EQ(static_cast<int>(ErrorCode::kOk), 0);
  for (const CodeCase& c : kCodes) {
    EXPECT_EQ(static_cast<int>(c.code), c.tf_number) << c.name;
  }
}

// ErrorCodeName spells each code as TensorFlow's error_codes.proto does.
TEST(ErrorsTest, ErrorCodeNameSpellsTheCodeAsTensorFlowDoes) {
  EXPECT_STREQ(ErrorCodeName(ErrorCode::kOk), "OK");
  for (const CodeCase& c : kCodes) EXPECT_STREQ(ErrorCodeName(c.code), c.name);
}

// what() names the failing op the way TensorFlow's logs do; message() stays bare.
TEST(ErrorsTest, WhatNamesTheOpAtFault) {
  const AbortedError e("Session was preempted", "train/update_w");
  EXPECT_EQ(std::string(e.what()), "Session was preempted\n\t [[node train/update_w]]");
  EXPECT_EQ(e.message(), "Session was preempted");
}

// Without an op, what() is the message alone.
TEST(ErrorsTest, WhatIsTheMessageWhenNoOpIsKnown) {
  const OutOfRangeError e("End of sequence");
  EXPECT_STREQ(e.what(), "End of sequence");
  EXPECT_EQ(e.op_name(), "");
}

// Every OpError is a std::runtime_error, so generic handlers still see it.
TEST(ErrorsTest, AnOpErrorIsARuntimeError) {
  EXPECT_THROW(throw UnavailableError("worker gone"), std::runtime_error);
  EXPECT_THROW(throw UnavailableError("worker gone"), OpError);
}

// Code OK is not an error: asking ThrowOpError for it is a bug, reported as InternalError.
TEST(ErrorsTest, ThrowOpErrorWithCodeOkRaisesInternalError) {
  EXPECT_THROW(ThrowOpError(ErrorCode::kOk, "fine"), InternalError);
}

// Python's ValueError and TypeError are std::invalid_argument; RuntimeError is a
// std::runtime_error but not an OpError, so recovery code never mistakes one for the other.
TEST(ErrorsTest, PythonStyleErrorsAreDistinctFromOpErrors) {
  EXPECT_THROW(throw ValueError("bad shape"), std::invalid_argument);
  EXPECT_THROW(throw TypeError("bad dtype"), std::invalid_argument);
  static_assert(!std::is_base_of_v<OpError, RuntimeError>, "RuntimeError must not be an OpError");
  EXPECT_THAT([] { throw RuntimeError("Attempted to use a closed Session."); },
              ThrowsMessage<std::runtime_error>(StrEq("Attempted to use a closed Session.")));
}

}  // namespace
}  // namespace mts
