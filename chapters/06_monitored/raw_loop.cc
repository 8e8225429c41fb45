// raw_loop: chapter 06's linear model trained with a raw Session, doing by hand every chore
// MonitoredTrainingSession does (monitored_loop.cc is the same training, monitored).
// Usage: raw_loop CHECKPOINT_DIR. Prints the final loss; run twice, it resumes.
#include <chrono>
#include <cstdio>
#include <string>

#include "chapters/06_monitored/linear_model.h"
#include "src/01_session/session.h"
#include "src/02_chief_worker/checkpoint/checkpoint_state.h"
#include "src/02_chief_worker/saver.h"
#include "src/03_hooked/events/file_writer.h"

int main(int argc, char** argv) {
  using namespace mts;
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s CHECKPOINT_DIR\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[1];
  constexpr int64_t kLastStep = 500;
  LinearModel model = BuildLinearModel();

  // [mts:raw-loop]
  Saver saver;                          // Chore: a saver, made before the graph is frozen.
  Output summary = *MergeAllSummaries();
  Operation* init = GlobalVariablesInitializer();
  GetDefaultGraph().Finalize();         // Chore: catch ops added by mistake inside the loop.
  Session session;
  if (auto latest = LatestCheckpoint(dir)) {
    saver.Restore(session, *latest);    // Chore: resume from the latest checkpoint,
  } else {
    session.Run(init);                  //   or initialise every variable.
  }
  FileWriter writer(dir);               // Chore: an event file for TensorBoard.
  int64_t step = GlobalStepValue(session, model.global_step);
  auto last_log = std::chrono::steady_clock::now();
  float loss = 0;
  try {
    while (step < kLastStep) {          // Chore: stop at the last step.
      std::vector<Tensor> out = session.Run({model.loss, summary}, {}, {model.train_op});
      loss = out[0].scalar<float>();
      step = GlobalStepValue(session, model.global_step);
      if (step % 100 == 0) {            // Chore: summaries, and steps per second.
        writer.AddSummary(out[1].scalar<std::string>(), step);
        const auto now = std::chrono::steady_clock::now();
        std::fprintf(stderr, "%.1f steps/sec\n",
                     100 / std::chrono::duration<double>(now - last_log).count());
        last_log = now;
      }
      if (step % 250 == 0) saver.Save(session, dir + "/model.ckpt", step);  // Chore: save.
    }
    saver.Save(session, dir + "/model.ckpt", step);  // Chore: the final checkpoint.
  } catch (...) {
    // Chore: close what is open on any error. Not done here: recovery. A preempted run would
    // need everything above, from `Session session;` on, inside a retry loop.
    writer.Close();
    session.Close();
    throw;
  }
  writer.Close();
  session.Close();
  // [mts:raw-loop-end]
  std::printf("step %lld  final loss %.6f\n", static_cast<long long>(step), loss);
  return 0;
}
