// checkpoint_benchmark: what Saver costs over the file system (item 5 of the performance
// appendix).
//
//   BM_SaveLarge     Saver::Save of 64 MiB of variables (16 of 4 MiB) against write(2) of
//                    the same bytes into one file and fsync(2): at most 1.25x
//   BM_RestoreLarge  Saver::Restore of that checkpoint against read(2) of the raw file:
//                    at most 1.25x
//   BM_SaveSmall     Saver::Save of the spirals MLP with Adam (21 small tensors) against
//                    write+fsync of the same bytes: at most 2x
//
// Saving waits for the disk, so it is timed on the wall clock; restoring reads what the
// page cache holds on both sides, so it is CPU work, timed on the process's CPU clock.
#include <fcntl.h>
#include <unistd.h>

#include <memory>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "src/01_session/session.h"
#include "src/01_session/tensor_types.h"
#include "src/01_session/variables.h"
#include "src/02_chief_worker/saver.h"
#include "src/platform/file_system.h"
#include "tests/benchmarks/compare.h"
#include "tests/benchmarks/mlp.h"
#include "tests/benchmarks/training_stack.h"

namespace mts {
namespace bench {
namespace {

// Writes `bytes` bytes from `data` to `path` and makes them durable, as a program would
// without a checkpoint format.
void WriteAndSync(const std::string& path, const char* data, size_t bytes) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  for (size_t done = 0; done < bytes;) {
    const ssize_t n = ::write(fd, data + done, bytes - done);
    if (n <= 0) std::abort();
    done += n;
  }
  ::fsync(fd);
  ::close(fd);
}

void ReadAll(const std::string& path, char* data, size_t bytes) {
  const int fd = ::open(path.c_str(), O_RDONLY);
  for (size_t done = 0; done < bytes;) {
    const ssize_t n = ::read(fd, data + done, bytes - done);
    if (n <= 0) std::abort();
    done += n;
  }
  ::close(fd);
}

// Variables' values, a saver of them and an initialised session.
struct Model {
  Graph graph;
  std::vector<Variable> variables;
  std::unique_ptr<Saver> saver;
  std::unique_ptr<Session> session;
  size_t bytes = 0;  // Of all values.

  void Finish() {
    DefaultGraphScope as_default(graph);
    variables = GlobalVariables();
    saver = std::make_unique<Saver>(variables);
    Operation* init = GlobalVariablesInitializer();
    session = std::make_unique<Session>(&graph);
    session->Run(init);
    for (const Variable& v : variables) {
      bytes += session->Run(v.value()).num_elements() * DataTypeSize(v.dtype());
    }
  }
};

// [mts:bench-checkpoint]
void SaveAgainstWrite(benchmark::State& state, Model& model, double limit) {
  const std::string dir = MakeTempDir("ckpt");
  const std::vector<char> raw(model.bytes, 1);
  Comparison c = CompareInterleaved(
      state, [&] { model.saver->Save(*model.session, JoinPath(dir, "model.ckpt")); },
      [&] { WriteAndSync(JoinPath(dir, "raw"), raw.data(), raw.size()); }, /*batch=*/1,
      Clock::kWall);
  state.counters["MiB"] = model.bytes / 1048576.0;
  SetResult(state, c.a_ns / c.b_ns, limit, Unit::kRatio);
  RemoveTempDir(dir);
}
// [mts:bench-checkpoint-end]

void BuildLargeModel(Model& m) {
  {
    DefaultGraphScope as_default(m.graph);
    for (int i = 0; i < 16; ++i) {
      Tensor value(DataType::kFloat, {1024, 1024});
      value.flat<float>().setConstant(float(i));
      Variable v(value, "v" + std::to_string(i));
    }
  }
  m.Finish();
}

void BM_SaveLarge(benchmark::State& state) {
  Model m;
  BuildLargeModel(m);
  SaveAgainstWrite(state, m, 1.25);
}
BENCHMARK(BM_SaveLarge)->Iterations(10)->Unit(benchmark::kMillisecond);

void RestoreAgainstRead(benchmark::State& state, Clock clock, double limit) {
  Model m;
  BuildLargeModel(m);
  const std::string dir = MakeTempDir("restore");
  const std::string path = JoinPath(dir, "model.ckpt");
  m.saver->Save(*m.session, path);
  std::vector<char> raw(m.bytes, 1);
  WriteAndSync(JoinPath(dir, "raw"), raw.data(), raw.size());
  Comparison c = CompareInterleaved(
      state, [&] { m.saver->Restore(*m.session, path); },
      [&] { ReadAll(JoinPath(dir, "raw"), raw.data(), raw.size()); }, /*batch=*/1, clock);
  SetResult(state, c.a_ns / c.b_ns, limit, Unit::kRatio);
  RemoveTempDir(dir);
}
void BM_RestoreLarge(benchmark::State& state) {
  RestoreAgainstRead(state, Clock::kProcessCpu, 1.25);
}
BENCHMARK(BM_RestoreLarge)->Iterations(20)->Unit(benchmark::kMillisecond);
// The same on the wall clock, reported without a target: a large checkpoint is read on two
// threads (saver.cc, ReadAll), which shortens the wait but not the CPU time the row above
// compares.
void BM_RestoreLargeWall(benchmark::State& state) { RestoreAgainstRead(state, Clock::kWall, 0); }
BENCHMARK(BM_RestoreLargeWall)->Iterations(20)->Unit(benchmark::kMillisecond);

void BM_SaveSmall(benchmark::State& state) {
  Model m;
  {
    DefaultGraphScope as_default(m.graph);
    MlpGraph model(MlpShape{{2, 32, 32, 3}, false});
  }
  m.Finish();
  state.counters["tensors"] = m.variables.size();
  SaveAgainstWrite(state, m, 2.0);
}
BENCHMARK(BM_SaveSmall)->Iterations(30)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace bench
}  // namespace mts

BENCHMARK_MAIN();
