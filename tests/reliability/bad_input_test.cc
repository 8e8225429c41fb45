// bad_input_test.cc: every row of the bad-input table (bad_inputs.h), one test case each.
//
// For each row: the action throws the expected class (or, for "none", nothing); the message
// (or the log) contains the row's advice, the part that says what to do; and whatever the
// action did, the checkpoint it started from is still there and restores (`after`). A crash
// or a hang fails the test binary; Bazel's timeout bounds it.
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/reliability/bad_inputs.h"

namespace mts {
namespace {

using ::testing::HasSubstr;

class BadInputTest : public ::testing::TestWithParam<size_t> {};

TEST_P(BadInputTest, FailsWithTheDocumentedErrorAndSaysWhatToDo) {
  const BadInput& row = BadInputs()[GetParam()];
  SCOPED_TRACE("stage " + row.stage + ": " + row.tried);
  const BadInputOutcome outcome = RunBadInput(row);
  EXPECT_EQ(outcome.error_class, row.expected) << outcome.message;
  EXPECT_THAT(outcome.message, HasSubstr(row.advice));
  EXPECT_EQ(outcome.after_problem, "");
}

// An error row whose advice is empty would check nothing about its message.
TEST(BadInputTableTest, EveryErrorRowNamesItsAdviceAndTheTableIsLongEnough) {
  EXPECT_GE(BadInputs().size(), 40u);
  for (const BadInput& row : BadInputs()) {
    if (row.expected != "none") {
      EXPECT_NE(row.advice, "") << row.tried;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllRows, BadInputTest, ::testing::Range<size_t>(0, BadInputs().size()),
                         [](const ::testing::TestParamInfo<size_t>& info) {
                           return "row" + std::to_string(info.param + 1);
                         });

}  // namespace
}  // namespace mts
