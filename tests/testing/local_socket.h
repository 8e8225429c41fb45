// local_socket.h: sockets and addresses of 127.0.0.1 for the tests of the distributed
// runtime: a port that is taken, a server that accepts connections and never answers, an
// address where nothing listens.
//
//   tests/07_distributed, the bad-input table   start servers, or fail to reach them
//     LocalSocket, AddressNobodyListensOn      <-- this file: ports chosen by binding port 0
//       the kernel's sockets
//
// Binding port 0 lets the kernel choose a free port, so tests never collide on a fixed one:
//
//   LocalSocket silent(/*listening=*/true);   // Connections queue in the backlog; no reply.
//   RemoteSession(&graph, {}, ClusterSpec({{"ps", {silent.address()}}}), {0.2});  // Times out.
//   const std::string nobody = AddressNobodyListensOn();  // Connections are refused.
//
// Thread safety: a LocalSocket is used by one thread; AddressNobodyListensOn by any.
#ifndef MTS_TESTS_TESTING_LOCAL_SOCKET_H_
#define MTS_TESTS_TESTING_LOCAL_SOCKET_H_

#include <string>

namespace mts {

/// A TCP socket bound to a free port of 127.0.0.1, listening or not; closed when destroyed.
class LocalSocket {
 public:
  /// Binds a free port, and listens on it if `listening` (a backlog of 8: connections are
  /// accepted by the kernel and then wait, unanswered).
  /// \throws the error ThrowFileSystemError makes of the failing call's errno.
  explicit LocalSocket(bool listening);
  ~LocalSocket();
  LocalSocket(const LocalSocket&) = delete;
  LocalSocket& operator=(const LocalSocket&) = delete;

  /// Closes the socket (idempotent): the port is free again.
  void Close();
  /// "127.0.0.1:<port>".
  const std::string& address() const { return address_; }

 private:
  int fd_;
  std::string address_;
};

/// "127.0.0.1:<port>" where nothing listens: a port bound, then released at once. Another
/// process could take it in between; on a test machine that is rare, and a test then fails
/// with another error rather than hanging.
std::string AddressNobodyListensOn();

}  // namespace mts

#endif  // MTS_TESTS_TESTING_LOCAL_SOCKET_H_
