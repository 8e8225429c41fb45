#include "tests/testing/faulty_thread_hook.h"

#include <exception>
#include <utility>

#include "src/04_coordinated/coordinated_thread.h"

namespace mts {

FaultyThreadHook::FaultyThreadHook(std::shared_ptr<FaultSchedule> schedule)
    : schedule_(std::move(schedule)) {}

void FaultyThreadHook::AfterCreateSession(SessionInterface&, Coordinator* coord) { coord_ = coord; }

void FaultyThreadHook::AfterRun(SessionRunContext&, const SessionRunValues&) {
  // The schedule builds the error (its message names the call); the thread raises it.
  std::exception_ptr error;
  try {
    schedule_->MaybeFail("an input thread");
  } catch (...) {
    error = std::current_exception();
  }
  if (error == nullptr || coord_ == nullptr) return;
  Coordinator* coord = coord_;
  auto thread = std::make_shared<CoordinatedThread>("faulty_input_thread", [coord, error] {
    coord->StopOnException([&] { std::rethrow_exception(error); });
  });
  coord->RegisterThread(thread);
  thread->Start();
  thread->Join();  // Recorded before the step returns: the next ShouldStop raises it.
  ++threads_failed_;
}

}  // namespace mts
