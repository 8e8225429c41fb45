// Tests of tests/testing/expect_error.h: what ThrowsMessage and the OpError matchers look at,
// so a test that uses them says what it means.
#include "tests/testing/expect_error.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/platform/errors.h"

namespace mts {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StrEq;
using ::testing::Throws;
using ::testing::ThrowsMessage;

// A kernel's error, naming its op, as Session::Run raises it.
void FailInMatMul() { throw InvalidArgumentError("Matrix size-incompatible", "dense/MatMul"); }

// ThrowsMessage reads what(), which carries the op annotation; HasMessage reads the message
// alone.
TEST(ExpectErrorTest, ThrowsMessageSeesTheOpAnnotationAndHasMessageDoesNot) {
  EXPECT_THAT(FailInMatMul, ThrowsMessage<InvalidArgumentError>(
                                StrEq("Matrix size-incompatible\n\t [[node dense/MatMul]]")));
  EXPECT_THAT(FailInMatMul, Throws<InvalidArgumentError>(HasMessage("Matrix size-incompatible")));
  EXPECT_THAT(FailInMatMul,
              Not(ThrowsMessage<InvalidArgumentError>(StrEq("Matrix size-incompatible"))));
}

// The op name and the code are matched on their own, and combine with AllOf.
TEST(ExpectErrorTest, OpNameAndCodeAreMatchedOnTheirOwn) {
  EXPECT_THAT(FailInMatMul,
              Throws<OpError>(AllOf(HasOpName("dense/MatMul"), HasCode(ErrorCode::kInvalidArgument),
                                    HasMessage(HasSubstr("incompatible")))));
  EXPECT_THAT(FailInMatMul, Not(Throws<OpError>(HasCode(ErrorCode::kInternal))));
  EXPECT_THAT([] { throw OutOfRangeError("End of sequence"); },
              Throws<OutOfRangeError>(HasOpName("")));
}

// Like a catch clause, Throws<E> accepts a subclass of E, and nothing else.
TEST(ExpectErrorTest, ThrowsAcceptsASubclassAsACatchDoes) {
  EXPECT_THAT(FailInMatMul, Throws<OpError>());
  EXPECT_THAT(FailInMatMul, Not(Throws<InternalError>()));
  EXPECT_THAT(FailInMatMul, Not(Throws<ValueError>()));
}

// A call that returns is no match, whatever was expected of its error.
TEST(ExpectErrorTest, ACallThatReturnsDoesNotMatch) {
  EXPECT_THAT([] {}, Not(Throws<OpError>()));
  EXPECT_THAT([] { return 42; }, Not(ThrowsMessage<ValueError>(HasSubstr(""))));
}

}  // namespace
}  // namespace mts
