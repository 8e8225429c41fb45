// A stand-in for a graded test, for //tools/labs:grade_test: one case for each way a case
// can end that the grader must report truthfully. Each graded "group" of the test selects
// one case with its filter (a crash ends the whole binary).
//
//   Fake.Passes               passes
//   Fake.ComparesValues       an EXPECT_EQ that fails: the report must show both values
//   Fake.RecursesForever      a recursion that never ends: SIGSEGV, a stack overflow
//   Fake.WritesThroughNull    a write through a null pointer: SIGSEGV, not a stack overflow
//   Fake.RecursesInAThread    the stack overflow again, in a thread the case starts

#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace {

// How deep to recurse comes from the environment, so the compiler cannot see that the
// recursion never ends (and warn, or turn it into a loop).
int Depth() {
  const char* value = std::getenv("FAKE_LAB_DEPTH");
  return value ? std::atoi(value) : 1 << 30;
}

// Each frame keeps a buffer the optimizer cannot drop, and works after the call returns.
int Recurse(int depth) {
  volatile char frame[512];
  frame[0] = static_cast<char>(depth);
  if (depth <= 0) return frame[0];
  return Recurse(depth - 1) + frame[0];
}

int* volatile null_pointer = nullptr;

// The one case here that passes.
TEST(Fake, Passes) { EXPECT_EQ(2, 1 + 1); }

// Fails with two values the report must show.
TEST(Fake, ComparesValues) {
  std::vector<int> fetched = {1, 2, 3};
  EXPECT_EQ(fetched.size(), 2u) << "the hook's fetches were not cut to its own";
}

// Runs out of stack.
TEST(Fake, RecursesForever) { EXPECT_NE(Recurse(Depth()), -1); }

// Writes through a null pointer.
TEST(Fake, WritesThroughNull) { *null_pointer = 1; }

// Runs out of stack in a thread of its own.
TEST(Fake, RecursesInAThread) {
  int result = 0;
  std::thread thread([&] { result = Recurse(Depth()); });
  thread.join();
  EXPECT_NE(result, -1);
}

}  // namespace
