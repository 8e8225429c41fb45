// saver_crash_child: a training job reduced to its checkpoints, for saver_crash_test to kill.
//
//   saver_crash_child DIR
//
// Restores the latest checkpoint in DIR if there is one (and recovers the saver's list of
// old checkpoints, as SessionManager does), then forever: sets every variable to the next
// step's values, saves, and reports "saved STEP" on stdout once Save has returned.
#include <unistd.h>

#include <cstdio>
#include <string>

#include "src/02_chief_worker/checkpoint/checkpoint_state.h"
#include "src/02_chief_worker/saver.h"
#include "tests/02_chief_worker/saver_crash_model.h"

namespace {

// One unbuffered write per line, so a line the parent reads is a save that completed.
void Report(const std::string& line) {
  const std::string text = line + "\n";
  if (::write(1, text.data(), text.size()) != static_cast<ssize_t>(text.size())) _exit(3);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: saver_crash_child DIR\n");
    return 2;
  }
  const std::string dir = argv[1];
  mts::CrashModel model;
  mts::SaverOptions options;
  options.max_to_keep = 3;  // Rotation runs too, so deletions are among the kill points.
  mts::Saver saver({}, options);
  mts::Session session;

  int64_t step = 0;
  if (std::optional<std::string> latest = mts::LatestCheckpoint(dir)) {
    saver.Restore(session, *latest);
    saver.RecoverLastCheckpoints(mts::GetCheckpointState(dir)->all_model_checkpoint_paths);
    step = model.CheckedStep(session);
  } else {
    session.Run(mts::GlobalVariablesInitializer());
  }
  Report("start " + std::to_string(step));
  for (;;) {
    ++step;
    session.Run(model.set_all, model.FeedsFor(step));
    saver.Save(session, dir + "/model.ckpt", step);
    Report("saved " + std::to_string(step));
  }
}
