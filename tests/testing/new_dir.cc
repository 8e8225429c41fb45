#include "tests/testing/new_dir.h"

#include <atomic>

#include "gtest/gtest.h"
#include "src/platform/file_system.h"

namespace mts {

std::string NewDir(const std::string& name) {
  static std::atomic<int> count{0};
  std::string stem = name;
  if (stem.empty()) {
    const ::testing::TestInfo* test = ::testing::UnitTest::GetInstance()->current_test_info();
    stem = test != nullptr ? test->name() : "test";
  }
  const std::string dir = JoinPath(::testing::TempDir(), stem + "_" + std::to_string(++count));
  DefaultFileSystem()->CreateDirectories(dir);
  return dir;
}

}  // namespace mts
