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
//
// Two decisions are the exercise's. A supervisor that has just restarted a ps wants the
// new process, and the old one may still answer for a while (it is draining, or the
// restart has not happened yet): an answer is only "up" if its incarnation is not the one
// restarted from. And the limit is a promise to the caller: the error comes when the
// limit is reached, not up to one poll later, and the last attempt is made at the limit
// rather than skipped.
#ifndef MTS_CHAPTERS_07_DISTRIBUTED_EXERCISES_WAIT_FOR_PS_WAIT_FOR_PS_H_
#define MTS_CHAPTERS_07_DISTRIBUTED_EXERCISES_WAIT_FOR_PS_WAIT_FOR_PS_H_

#include <cstdint>
#include <optional>
#include <string>

#include "src/platform/clock.h"

namespace mts {

// [mts:wait-for-ps-api]
/// Asks the ps at `address` ("host:port") for its incarnation every `poll_secs` until it
/// answers, and returns it. Each attempt is a PsClient::GetIncarnation with a deadline of
/// `poll_secs`; UnavailableError means "not yet", and so does an answer whose incarnation
/// is `restarted_from` (the process being replaced). Time (the waits between attempts and
/// the limit) is read from `clock`, RealClock() if null, so a test can run it on fake time:
/// attempts at 0, poll, 2 poll, ... and one at `timeout_secs` itself.
/// \throws DeadlineExceededError at `timeout_secs` exactly: "No parameter server answered
///   at ADDRESS within N s." or, if only the old process answered, "The parameter server
///   at ADDRESS still answers with incarnation I, the one it should have restarted from,
///   after N s."; another OpError as the server raises it, at once.
uint64_t WaitForPs(const std::string& address, double timeout_secs, double poll_secs = 0.05,
                   Clock* clock = nullptr, std::optional<uint64_t> restarted_from = std::nullopt);
// [mts:wait-for-ps-api-end]

}  // namespace mts

#endif  // MTS_CHAPTERS_07_DISTRIBUTED_EXERCISES_WAIT_FOR_PS_WAIT_FOR_PS_H_
