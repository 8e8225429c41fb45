// replay_main.cc: runs a fuzz target's LLVMFuzzerTestOneInput over files, without libFuzzer.
//
//   replay_main DIR_OR_FILE...
//
// Linked with a *_fuzzer.cc into an ordinary test binary (tests/fuzz/BUILD), it replays the
// seed corpus and every input that once crashed a target (tests/fuzz/regressions/<target>/)
// in the normal suite, under g++ and under the sanitizer configs, so a fixed crash stays
// fixed without a fuzzing run. A target reports a broken promise by trapping or by an
// exception escaping; either fails the test.
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int main(int argc, char** argv) {
  std::vector<std::filesystem::path> files;
  for (int i = 1; i < argc; ++i) {
    const std::filesystem::path arg = argv[i];
    if (std::filesystem::is_directory(arg)) {
      for (const auto& entry : std::filesystem::recursive_directory_iterator(arg)) {
        if (entry.is_regular_file()) files.push_back(entry.path());
      }
    } else if (std::filesystem::exists(arg)) {
      files.push_back(arg);
    } else {
      std::cout << "replay_main: " << arg.string() << " does not exist (no inputs there yet)\n";
    }
  }
  if (files.empty()) {
    std::cerr << "replay_main: no inputs given; pass the corpus directories\n";
    return 1;
  }
  for (const auto& path : files) {
    std::ifstream in(path, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::cout << "replaying " << path.string() << " (" << bytes.size() << " bytes)\n";
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  }
  std::cout << "replayed " << files.size() << " inputs, none broke a promise\n";
  return 0;
}
