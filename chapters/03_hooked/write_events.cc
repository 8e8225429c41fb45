// write_events: a tiny training loop whose SummarySaverHook writes the loss into an event
// file, then that file read back, record by record, with EventFileReader; for chapter 03.
//
//   usage: write_events [--logdir DIR]
//
//   HookedSession       SummarySaverHook fetches the summary every 2 steps, StopAtStepHook
//     Session           stops at step 6; gradient descent on (w - 1)^2 from w = 3
//   FileWriter          -> events.out.tfevents.<secs>.<host>
//   EventFileReader     <- the same file, decoded
//
// The numbers are exact (every value is a power of two), so the output is the same on every
// run except for the clock: the file name's seconds, the host name and the wall times. Those
// are masked, or checked rather than printed. Without --logdir the program writes into a
// fresh directory under /tmp and removes it at the end; with it, the file stays there for
// another decoder (write_events_decoder_test.sh) to read.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "src/01_session/array_ops.h"
#include "src/01_session/graph_def.pb.h"
#include "src/01_session/learning/gradient_descent_optimizer.h"
#include "src/01_session/learning/math_ops.h"
#include "src/01_session/learning/summary_ops.h"
#include "src/01_session/session.h"
#include "src/01_session/training_util.h"
#include "src/01_session/variables.h"
#include "src/03_hooked/events/event_file_reader.h"
#include "src/03_hooked/events/summary_writer_cache.h"
#include "src/03_hooked/hooked_session.h"
#include "src/03_hooked/hooks/stop_at_step_hook.h"
#include "src/03_hooked/hooks/summary_saver_hook.h"
#include "src/platform/file_system.h"

namespace mts {
namespace {

// Trains for six steps with a SummarySaverHook writing into `logdir`; returns the event file.
std::string Train(const std::string& logdir) {
  Graph graph;
  DefaultGraphScope as_default(graph);
  Variable step = GetOrCreateGlobalStep();
  // [mts:write-events-loop]
  Variable w(Tensor::Scalar(3.0), "w");
  Output loss = Square(Sub(w.value(), Constant(Tensor::Scalar(1.0))), "squared_error");
  ScalarSummary("loss", loss);
  ScalarSummary("weight", w.value());
  Operation* train_op = GradientDescentOptimizer(0.25).Minimize(loss, step);

  SummarySaverHookOptions summaries;
  summaries.save_steps = 2;
  summaries.output_dir = logdir;
  summaries.summary_op = {*MergeAllSummaries()};
  std::vector<std::shared_ptr<SessionRunHook>> hooks = {
      std::make_shared<SummarySaverHook>(summaries), StopAtStepHook::AtLastStep(6)};

  // What MonitoredSession (chapter 06) will do for us: Begin, a session, AfterCreateSession.
  for (const auto& hook : hooks) hook->Begin();
  Operation* init = GlobalVariablesInitializer();
  graph.Finalize();
  auto raw = std::make_unique<Session>(&graph);
  raw->Run(init);
  for (const auto& hook : hooks) hook->AfterCreateSession(*raw, nullptr);
  HookedSession session(std::move(raw), hooks);

  while (!session.ShouldStop()) session.Run(train_op);

  for (const auto& hook : hooks) hook->End(*session.inner());  // A clean end: flushes.
  session.Close();
  // [mts:write-events-loop-end]
  SummaryWriterCache::Clear();  // Closes the writer: the file is complete.
  return ListEventFiles(logdir).front();
}

// "brain.Event:2", "START", "summary loss=4 weight=3": what one Event holds.
std::string Describe(const tensorflow::Event& event) {
  if (event.has_file_version()) return "file_version \"" + event.file_version() + "\"";
  if (event.has_session_log()) {
    return "session_log " + tensorflow::SessionLog::SessionStatus_Name(event.session_log().status());
  }
  if (event.has_summary()) {
    std::string text = "summary";
    for (const auto& value : event.summary().value()) {
      char number[32];
      std::snprintf(number, sizeof(number), "%g", value.simple_value());
      text += std::string(" ") + value.tag() + "=" + number;
    }
    return text;
  }
  if (event.what_case() == tensorflow::Event::kGraphDef) {
    // The graph SummaryWriterCache adds to a writer it makes (graph_def.h).
    tensorflow::GraphDef graph;
    if (!graph.ParseFromString(event.graph_def())) return "graph_def (not a GraphDef)";
    return "graph_def, " + std::to_string(graph.node_size()) + " nodes";
  }
  return "(other)";
}

// The first record's frame, byte by byte, with the bytes that depend on the clock as "__".
void PrintFirstFrame(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // 8 length bytes, 4 length-CRC bytes, a 24-byte payload, 4 payload-CRC bytes.
  const struct { const char* name; size_t begin, end; } parts[] = {
      {"length       ", 0, 8},   {"length CRC   ", 8, 12}, {"payload      ", 12, 36},
      {"payload CRC  ", 36, 40}};
  for (const auto& part : parts) {
    std::printf("  %s", part.name);
    for (size_t i = part.begin; i < part.end; ++i) {
      // The wall time (payload bytes 1-8) and the CRC over it change with the clock.
      const bool clock_dependent = (i >= 13 && i < 21) || i >= 36;
      if (clock_dependent) {
        std::printf(" __");
      } else {
        std::printf(" %02x", static_cast<unsigned char>(bytes[i]));
      }
    }
    std::printf("\n");
  }
}

// Prints the event file at `path` as EventFileReader decodes it.
void PrintEvents(const std::string& path) {
  // The name is events.out.tfevents.<secs>.<host>: both vary, so mask them.
  const std::string name = Basename(path);
  const std::string prefix = "events.out.tfevents.";
  const std::string secs = name.substr(prefix.size(), 10);
  std::printf("event file: %s<secs>.<host>\n\n", prefix.c_str());

  std::printf("first record, as framed on disk (__: depends on the clock):\n");
  PrintFirstFrame(path);

  std::printf("\nevery record, decoded:\n");
  std::printf("  %-6s %-6s %-7s %-5s %s\n", "record", "offset", "length", "step", "content");
  EventFileReader reader(path);
  tensorflow::Event event;
  int index = 0;
  uint64_t offset = reader.offset();
  bool first_time_matches_name = false;
  while (reader.Next(&event)) {
    // The frame adds 16 bytes around the payload: 8 + 4 before, 4 after.
    const uint64_t length = reader.offset() - offset - 16;
    if (index == 0) {
      first_time_matches_name = event.wall_time() == std::strtod(secs.c_str(), nullptr);
    }
    std::printf("  %-6d %-6llu %-7llu %-5lld %s\n", index,
                static_cast<unsigned long long>(offset), static_cast<unsigned long long>(length),
                static_cast<long long>(event.step()), Describe(event).c_str());
    offset = reader.offset();
    ++index;
  }
  std::printf("\nthe first record's wall_time is the <secs> of the file name: %s\n",
              first_time_matches_name ? "yes" : "NO");
}

}  // namespace
}  // namespace mts

int main(int argc, char** argv) {
  using namespace mts;
  std::string logdir;
  bool remove = false;
  if (argc == 3 && std::strcmp(argv[1], "--logdir") == 0) {
    logdir = argv[2];
  } else if (argc == 1) {
    char pattern[] = "/tmp/write_events.XXXXXX";
    if (mkdtemp(pattern) == nullptr) {
      std::perror("mkdtemp");
      return 1;
    }
    logdir = pattern;
    remove = true;
  } else {
    std::fprintf(stderr, "usage: %s [--logdir DIR]\n", argv[0]);
    return 2;
  }
  try {
    const std::string path = Train(logdir);
    PrintEvents(path);
    if (remove) {
      FileSystem* fs = DefaultFileSystem();
      for (const std::string& name : fs->ListDirectory(logdir)) {
        fs->DeleteFile(JoinPath(logdir, name));
      }
      ::rmdir(logdir.c_str());
    } else {
      std::fprintf(stderr, "%s\n", path.c_str());
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "write_events: %s\n", e.what());
    return 1;
  }
  return 0;
}
