// wait_for_ps.h: chapter 07's exercise: wait until a parameter server answers.
//
//   launcher / worker   before making a session, wait for the ps to come up
//     WaitForPs         <-- this exercise: polls GetStatus with short deadlines
//       PsClient        one RPC, its deadline, UnavailableError when nobody answers
//
// Processes of a job start in any order. A worker that starts before its parameter server
// gets UnavailableError from its first RPC; RecoverableSession retries, but a launcher or a
// health check wants something plainer: wait until the server answers, up to a limit, and
// learn its incarnation.
#ifndef MTS_CHAPTERS_07_DISTRIBUTED_EXERCISES_WAIT_FOR_PS_WAIT_FOR_PS_H_
#define MTS_CHAPTERS_07_DISTRIBUTED_EXERCISES_WAIT_FOR_PS_WAIT_FOR_PS_H_

#include <cstdint>
#include <string>

#include "src/platform/clock.h"

namespace mts {

// [mts:wait-for-ps-api]
/// Asks the ps at `address` ("host:port") for its incarnation every `poll_secs` until it
/// answers, and returns it. Each attempt is a PsClient::GetIncarnation with a deadline of
/// `poll_secs`; UnavailableError means "not yet". Time (the waits between attempts and the
/// limit) is read from `clock`, RealClock() if null, so a test can run it on fake time.
/// \throws DeadlineExceededError "No parameter server answered at ADDRESS within N s." once
///   `timeout_secs` have passed without an answer; another OpError as the server raises it.
uint64_t WaitForPs(const std::string& address, double timeout_secs, double poll_secs = 0.05,
                   Clock* clock = nullptr);
// [mts:wait-for-ps-api-end]

}  // namespace mts

#endif  // MTS_CHAPTERS_07_DISTRIBUTED_EXERCISES_WAIT_FOR_PS_WAIT_FOR_PS_H_
