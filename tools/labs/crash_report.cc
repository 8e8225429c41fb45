// The grader's crash reporter: a shared object tools/grade.sh preloads in front of every
// graded test binary, so that a case killed by SIGSEGV says whether it ran out of stack.
//
//   tools/labs/grade.py  ->  LD_PRELOAD=libcrash_report.so  test binary
//                            on SIGSEGV: "[mts-grade] a stack overflow ..." or "... a bad
//                            memory access at 0x...", then the usual death by SIGSEGV
//
// A stack overflow cannot be reported from the stack that overflowed, so the handler runs on
// an alternate signal stack; each thread needs its own, which is why pthread_create is
// wrapped here (the wrapper gives the new thread its alternate stack, then calls the real
// start routine). The fault is a stack overflow when its address lies within a few pages of
// the stack pointer: a call or a local variable that fell off the end of the stack. The
// handler only writes its line (async-signal-safe write(2)) and restores the default action;
// returning re-runs the faulting instruction, and the process dies of SIGSEGV as it would
// have without the reporter, so the grader's "killed by SIGSEGV in Suite.Case" still holds.
//
// Not part of mts: only the grader loads it (labs.py reads its line), never a test or src/.

#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>

namespace {

constexpr size_t kAltStackBytes = 64 * 1024;
// A fault this close to the stack pointer is the stack running out (a frame's locals can
// reach this far below it).
constexpr uintptr_t kNearStackPointer = 256 * 1024;

void Write(const char* text) {
  ssize_t ignored = write(STDERR_FILENO, text, strlen(text));
  (void)ignored;
}

// Writes "0x" and the address in hex, with no allocation.
void WriteAddress(uintptr_t value) {
  char digits[2 + 2 * sizeof(value) + 1];
  digits[0] = '0';
  digits[1] = 'x';
  for (size_t i = 0; i < 2 * sizeof(value); ++i) {
    int nibble = (value >> (4 * (2 * sizeof(value) - 1 - i))) & 0xf;
    digits[2 + i] = static_cast<char>(nibble < 10 ? '0' + nibble : 'a' + nibble - 10);
  }
  digits[sizeof(digits) - 1] = '\0';
  Write(digits);
}

void OnSegv(int signo, siginfo_t* info, void* context) {
  uintptr_t fault = reinterpret_cast<uintptr_t>(info->si_addr);
  uintptr_t sp = 0;
#if defined(__x86_64__)
  sp = static_cast<uintptr_t>(static_cast<ucontext_t*>(context)->uc_mcontext.gregs[REG_RSP]);
#elif defined(__aarch64__)
  sp = static_cast<uintptr_t>(static_cast<ucontext_t*>(context)->uc_mcontext.sp);
#endif
  uintptr_t distance = fault > sp ? fault - sp : sp - fault;
  if (sp != 0 && distance < kNearStackPointer) {
    Write(
        "\n[mts-grade] a stack overflow: the fault is at the end of the stack (a "
        "recursion that never ends, or one too deep for the stack)\n");
  } else {
    Write("\n[mts-grade] a bad memory access at ");
    WriteAddress(fault);
    Write(" (a null, dangling or out-of-range pointer)\n");
  }
  // Die of the same signal: the default action runs when the instruction faults again.
  signal(signo, SIG_DFL);
}

// Gives the calling thread an alternate signal stack (kept until the thread ends).
void* AddAltStack() {
  void* memory = malloc(kAltStackBytes);
  if (memory == nullptr) return nullptr;
  stack_t stack = {};
  stack.ss_sp = memory;
  stack.ss_size = kAltStackBytes;
  if (sigaltstack(&stack, nullptr) != 0) {
    free(memory);
    return nullptr;
  }
  return memory;
}

void RemoveAltStack(void* memory) {
  if (memory == nullptr) return;
  stack_t stack = {};
  stack.ss_flags = SS_DISABLE;
  sigaltstack(&stack, nullptr);
  free(memory);
}

struct Start {
  void* (*routine)(void*);
  void* arg;
};

void* RunWithAltStack(void* raw) {
  Start start = *static_cast<Start*>(raw);
  free(raw);
  void* memory = AddAltStack();
  void* result = start.routine(start.arg);
  RemoveAltStack(memory);
  return result;
}

__attribute__((constructor)) void Install() {
  AddAltStack();  // The main thread's; it lives as long as the process.
  struct sigaction action = {};
  action.sa_sigaction = OnSegv;
  action.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&action.sa_mask);
  sigaction(SIGSEGV, &action, nullptr);
}

}  // namespace

// Every thread the test starts gets its own alternate stack before its routine runs.
extern "C" int pthread_create(pthread_t* thread, const pthread_attr_t* attr,
                              void* (*routine)(void*), void* arg) {
  using Create = int (*)(pthread_t*, const pthread_attr_t*, void* (*)(void*), void*);
  static Create real = reinterpret_cast<Create>(dlsym(RTLD_NEXT, "pthread_create"));
  Start* start = static_cast<Start*>(malloc(sizeof(Start)));
  if (start == nullptr) return real(thread, attr, routine, arg);
  start->routine = routine;
  start->arg = arg;
  int error = real(thread, attr, RunWithAltStack, start);
  if (error != 0) free(start);
  return error;
}
