// write_example_events: writes one small event file, the way MonitoredTrainingSession's hooks
// would, for independent_decoder_test.sh to decode with a decoder that shares no code with
// mts (decode_events.py).
//
//   usage: write_example_events <logdir>
//
// The time comes from a FakeClock (wall time 1600000000 s at the start), so every run writes
// the same records; only the host name in the file name differs between machines.
#include <cfloat>
#include <cstdio>
#include <exception>

#include "src/01_session/summary.pb.h"
#include "src/03_hooked/events/event.pb.h"
#include "src/03_hooked/events/file_writer.h"
#include "tests/testing/fake_clock.h"

namespace mts {
namespace {

constexpr int64_t kMillisecond = 1000;

tensorflow::SessionLog Log(tensorflow::SessionLog::SessionStatus status,
                           const char* checkpoint_path = "") {
  tensorflow::SessionLog log;
  log.set_status(status);
  log.set_checkpoint_path(checkpoint_path);
  return log;
}

void AddScalar(tensorflow::Summary* summary, const char* tag, float value) {
  tensorflow::Summary::Value* v = summary->add_value();
  v->set_tag(tag);
  v->set_simple_value(value);
}

void WriteExample(const char* logdir) {
  FakeClock clock;
  FileWriterOptions options;
  options.clock = &clock;
  FileWriter writer(logdir, options);

  // As SummarySaverHook after the first run: START, then the merged summaries.
  writer.AddSessionLog(Log(tensorflow::SessionLog::START), 0);
  tensorflow::Summary first;
  AddScalar(&first, "loss", 2.5f);
  AddScalar(&first, "accuracy", 0.0f);  // A zero scalar is still written: oneof presence.
  writer.AddSummary(first, 0);

  // As CheckpointSaverHook: the save prefix, without "-<step>".
  clock.Advance(250 * kMillisecond);
  writer.AddSessionLog(Log(tensorflow::SessionLog::CHECKPOINT, "logs/model.ckpt"), 0);

  // A hundred steps later: StepCounterHook's rate, then a summary with a histogram.
  clock.Advance(10000 * kMillisecond);
  tensorflow::Summary rate;
  AddScalar(&rate, "global_step/sec", 9.75f);
  writer.AddSummary(rate, 100);

  clock.Advance(1 * kMillisecond);
  tensorflow::Summary later;
  AddScalar(&later, "loss", 0.1328125f);
  tensorflow::Summary::Value* weights = later.add_value();
  weights->set_tag("weights");
  tensorflow::HistogramProto* histo = weights->mutable_histo();
  histo->set_min(-0.5);
  histo->set_max(1.5);
  histo->set_num(3);
  histo->set_sum(2.0);
  histo->set_sum_squares(3.5);
  for (double limit : {0.0, 1.0, 1.65, DBL_MAX}) histo->add_bucket_limit(limit);
  for (double count : {1.0, 1.0, 1.0, 0.0}) histo->add_bucket(count);
  writer.AddSummary(later, 100);

  // The end of training.
  clock.Advance(500 * kMillisecond);
  writer.AddSessionLog(Log(tensorflow::SessionLog::CHECKPOINT, "logs/model.ckpt"), 100);
  writer.AddSessionLog(Log(tensorflow::SessionLog::STOP), 100);
  writer.Close();
  std::printf("%s\n", writer.filename().c_str());
}

}  // namespace
}  // namespace mts

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <logdir>\n", argv[0]);
    return 2;
  }
  try {
    mts::WriteExample(argv[1]);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "write_example_events: %s\n", e.what());
    return 1;
  }
  return 0;
}
