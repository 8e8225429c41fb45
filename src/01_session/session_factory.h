// session_factory.h: which kind of Session a target string asks for.
//
//   Chief / Worker   SessionManager makes every raw session through NewSession(graph, options)
//     Session        <-- this file: "" is the in-process Session; a stage above may register
//                        a factory for a prefix ("grpc://" in stage 07) and return a subclass
//
// A target no factory claims raises NotFoundError. Thread safety: registration happens at
// static-initialisation time; NewSession may be called from any thread.
//
// TensorFlow: SessionFactory::Register and NewSession
// (tensorflow/core/common_runtime/session_factory.h, session.cc).
#ifndef MTS_SRC_01_SESSION_SESSION_FACTORY_H_
#define MTS_SRC_01_SESSION_SESSION_FACTORY_H_

#include <memory>
#include <string>

#include "src/01_session/graph.h"
#include "src/01_session/session.h"

namespace mts {

/// Makes a session on `graph` for a target its factory accepts.
using SessionFactoryFn = std::unique_ptr<Session> (*)(Graph* graph, const SessionOptions& options);

/// Makes sessions whose target starts with `prefix` with `factory` (call once per prefix,
/// usually from a namespace-scope static). \throws AlreadyExistsError if `prefix` is taken.
void RegisterSessionFactory(const std::string& prefix, SessionFactoryFn factory);

/// A new session on `graph` (the default graph if null) for `options.target`: the factory
/// registered for the longest matching prefix, or an in-process Session for the empty target.
/// \throws NotFoundError "No session factory" if the target is not empty and no factory
///   claims it.
/// \throws OpError as the factory raises it (UnavailableError for a server that is down).
std::unique_ptr<Session> NewSession(Graph* graph, const SessionOptions& options);

}  // namespace mts

#endif  // MTS_SRC_01_SESSION_SESSION_FACTORY_H_
