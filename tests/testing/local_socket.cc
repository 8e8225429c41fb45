#include "tests/testing/local_socket.h"

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

#include "src/platform/file_system.h"

namespace mts {

LocalSocket::LocalSocket(bool listening) : fd_(::socket(AF_INET, SOCK_STREAM, 0)) {
  if (fd_ < 0) ThrowFileSystemError("socket", errno);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
      (listening && ::listen(fd_, 8) != 0)) {
    const int error = errno;
    Close();  // The destructor will not run: the constructor throws.
    ThrowFileSystemError("127.0.0.1:0", error);
  }
  socklen_t len = sizeof(addr);
  ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
  address_ = "127.0.0.1:" + std::to_string(ntohs(addr.sin_port));
}

LocalSocket::~LocalSocket() { Close(); }

void LocalSocket::Close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

std::string AddressNobodyListensOn() { return LocalSocket(/*listening=*/false).address(); }

}  // namespace mts
