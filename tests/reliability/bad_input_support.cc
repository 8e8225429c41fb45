#include "tests/reliability/bad_input_support.h"

#include <exception>
#include <optional>
#include <utility>

#include "src/platform/errors.h"
#include "src/01_session/session.h"
#include "src/01_session/tensor.h"
#include "src/01_session/variables.h"
#include "src/02_chief_worker/checkpoint/checkpoint_state.h"
#include "src/02_chief_worker/saver.h"

namespace mts {

std::string CheckpointHolds(const std::string& dir, const std::string& path, float w) {
  try {
    const std::optional<std::string> latest = LatestCheckpoint(dir);
    if (latest != path) return "the state file no longer names " + path;
    Fresh fresh;
    Variable variable(Tensor::Scalar(3.0f), "w");
    Saver saver;
    Session session(&fresh.graph);
    saver.Restore(session, path);
    if (session.Run(variable.value()).scalar<float>() != w) return path + " restores a wrong value";
    return "";
  } catch (const std::exception& e) {
    return std::string("the checkpoint no longer restores: ") + e.what();
  }
}

std::string CheckpointIntact(const std::string& dir, const std::string& path) {
  return CheckpointHolds(dir, path, 7.0f);
}

ThrowingHook::ThrowingHook(std::string where) : where_(std::move(where)) {}

void ThrowingHook::Begin() { MaybeThrow("Begin"); }

void ThrowingHook::AfterCreateSession(SessionInterface&, Coordinator*) {
  MaybeThrow("AfterCreateSession");
}

SessionRunArgs ThrowingHook::BeforeRun(SessionRunContext&) {
  MaybeThrow("BeforeRun");
  return {};
}

void ThrowingHook::AfterRun(SessionRunContext&, const SessionRunValues&) { MaybeThrow("AfterRun"); }

void ThrowingHook::End(SessionInterface&) { MaybeThrow("End"); }

void ThrowingHook::MaybeThrow(const std::string& method) const {
  if (method == where_) {
    throw InvalidArgumentError("ThrowingHook::" + method +
                               " failed on purpose; fix the hook, the session is unchanged");
  }
}

BadInput Row(std::string stage, std::string tried, std::string expected, std::string advice,
             std::function<void()> action, std::function<std::string()> after) {
  return {std::move(stage),  std::move(tried),  std::move(expected),
          std::move(advice), std::move(action), std::move(after)};
}

}  // namespace mts
