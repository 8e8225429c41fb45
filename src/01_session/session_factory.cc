#include "src/01_session/session_factory.h"

#include <map>
#include <mutex>

#include "src/platform/errors.h"

namespace mts {
namespace {

struct Registry {
  std::mutex mu;
  std::map<std::string, SessionFactoryFn> factories;  // Guarded by mu.
};

Registry& GetRegistry() {
  static Registry* registry = new Registry;  // Never destroyed: used during static init.
  return *registry;
}

}  // namespace

void RegisterSessionFactory(const std::string& prefix, SessionFactoryFn factory) {
  Registry& registry = GetRegistry();
  std::lock_guard<std::mutex> lock(registry.mu);
  if (!registry.factories.emplace(prefix, factory).second) {
    throw AlreadyExistsError("A session factory for targets starting with '" + prefix +
                             "' is registered already.");
  }
}

std::unique_ptr<Session> NewSession(Graph* graph, const SessionOptions& options) {
  SessionFactoryFn chosen = nullptr;
  {
    Registry& registry = GetRegistry();
    std::lock_guard<std::mutex> lock(registry.mu);
    size_t longest = 0;
    for (const auto& [prefix, factory] : registry.factories) {
      if (options.target.compare(0, prefix.size(), prefix) == 0 && prefix.size() >= longest) {
        longest = prefix.size();
        chosen = factory;
      }
    }
  }
  if (chosen != nullptr) return chosen(graph, options);
  if (!options.target.empty()) {
    // A mistyped master, or "grpc://" without the distributed stage linked in, must not
    // quietly train alone in process.
    throw NotFoundError("No session factory is registered for the target '" + options.target +
                        "'. Use \"\" for an in-process session, or grpc://host:port with "
                        "//src/07_distributed:remote_session linked into the binary.");
  }
  return std::make_unique<Session>(graph, options);
}

}  // namespace mts
