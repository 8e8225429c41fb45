// monitored_loop: chapter 06's linear model trained through MonitoredTrainingSession, the
// same training as raw_loop.cc without the chores.
// Usage: monitored_loop CHECKPOINT_DIR. Prints the final loss; run twice, it resumes.
#include <cstdio>
#include <string>

#include "chapters/06_monitored/linear_model.h"
#include "src/03_hooked/hooks/stop_at_step_hook.h"
#include "src/06_monitored/monitored_session_scope.h"
#include "src/06_monitored/monitored_training_session.h"

int main(int argc, char** argv) {
  using namespace mts;
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s CHECKPOINT_DIR\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[1];
  constexpr int64_t kLastStep = 500;
  LinearModel model = BuildLinearModel();

  // [mts:monitored-loop]
  MonitoredTrainingSessionOptions options;
  options.checkpoint_dir = argv[1];        // Restore, save, and write summaries here,
  options.save_checkpoint_steps = 250;     // every 250 steps (and at the end),
  options.save_summaries_steps = 100;      // summaries and steps/sec every 100.
  options.hooks = {std::make_shared<StopAtStepHook>(std::nullopt, kLastStep)};
  Output step_read = *GetOrCreateGlobalStepRead();  // Read before the step's increment.
  std::unique_ptr<MonitoredSession> session = MonitoredTrainingSession(options);
  int64_t step = 0;
  float loss = 0;
  WithMonitoredSession(*session, [&](MonitoredSession& sess) {
    while (!sess.ShouldStop()) {
      std::vector<Tensor> out = sess.Run({model.loss, step_read}, {}, {model.train_op});
      loss = out[0].scalar<float>();
      step = out[1].scalar<int64_t>() + 1;
    }
  });
  // [mts:monitored-loop-end]
  std::printf("step %lld  final loss %.6f\n", static_cast<long long>(step), loss);
  return 0;
}
