#include "tests/testing/fault_injection.h"

#include <utility>

namespace mts {

namespace {

// SplitMix64's finaliser: a well-mixed 64-bit value from any input, so that consecutive
// call numbers give unrelated draws.
uint64_t Mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// A uniform draw in [0, 1) from 53 well-mixed bits.
double Uniform(uint64_t bits) { return static_cast<double>(bits >> 11) * 0x1.0p-53; }

}  // namespace

FaultSchedule::FaultSchedule(Rule rule) : rule_(std::move(rule)) {}

std::shared_ptr<FaultSchedule> FaultSchedule::Never() {
  return std::make_shared<FaultSchedule>([](int64_t) { return std::optional<ErrorCode>(); });
}

std::shared_ptr<FaultSchedule> FaultSchedule::AtCall(int64_t call, ErrorCode code) {
  return AtCalls({{call, code}});
}

std::shared_ptr<FaultSchedule> FaultSchedule::AtCalls(std::map<int64_t, ErrorCode> calls) {
  return std::make_shared<FaultSchedule>([calls = std::move(calls)](int64_t call) {
    auto it = calls.find(call);
    return it == calls.end() ? std::optional<ErrorCode>() : it->second;
  });
}

std::shared_ptr<FaultSchedule> FaultSchedule::EveryKth(int64_t k, ErrorCode code) {
  if (k < 1) throw ValueError("EveryKth needs k >= 1, got " + std::to_string(k));
  return std::make_shared<FaultSchedule>([k, code](int64_t call) {
    return call % k == 0 ? std::optional<ErrorCode>(code) : std::nullopt;
  });
}

// [mts:random-fault-schedule]
std::shared_ptr<FaultSchedule> FaultSchedule::Random(double rate, std::vector<ErrorCode> codes,
                                                     uint64_t seed) {
  if (!(rate >= 0 && rate <= 1)) throw ValueError("A fault rate must be in [0, 1].");
  if (codes.empty()) throw ValueError("A random schedule needs at least one error code.");
  for (ErrorCode code : codes) {
    if (code == ErrorCode::kOk) throw ValueError("OK is not an error to inject.");
  }
  return std::make_shared<FaultSchedule>([rate, codes = std::move(codes), seed](int64_t call) {
    // A pure function of (seed, call): no generator state, so the faults sit at the same
    // call numbers however the calls interleave with recoveries.
    const uint64_t bits = Mix(seed ^ Mix(static_cast<uint64_t>(call)));
    if (Uniform(bits) >= rate) return std::optional<ErrorCode>();
    return std::optional<ErrorCode>(codes[Mix(bits) % codes.size()]);
  });
}
// [mts:random-fault-schedule-end]

std::optional<ErrorCode> FaultSchedule::Next() { return Count().second; }

std::pair<int64_t, std::optional<ErrorCode>> FaultSchedule::Count() {
  std::lock_guard<std::mutex> lock(mu_);
  const int64_t call = ++calls_;
  if (!enabled_) return {call, std::nullopt};
  std::optional<ErrorCode> code = rule_(call);
  if (code) ++faults_by_code_[*code];
  return {call, code};
}

void FaultSchedule::MaybeFail(const std::string& what) {
  const auto [call, code] = Count();
  if (!code) return;
  ThrowOpError(*code, std::string("injected fault: ") + ErrorCodeName(*code) + " at " + what +
                          " (call " + std::to_string(call) + ")");
}

void FaultSchedule::set_enabled(bool enabled) {
  std::lock_guard<std::mutex> lock(mu_);
  enabled_ = enabled;
}

int64_t FaultSchedule::calls() const {
  std::lock_guard<std::mutex> lock(mu_);
  return calls_;
}

int64_t FaultSchedule::faults() const {
  std::lock_guard<std::mutex> lock(mu_);
  int64_t total = 0;
  for (const auto& [code, n] : faults_by_code_) total += n;
  return total;
}

std::map<ErrorCode, int64_t> FaultSchedule::faults_by_code() const {
  std::lock_guard<std::mutex> lock(mu_);
  return faults_by_code_;
}

FaultySession::FaultySession(std::unique_ptr<SessionInterface> inner,
                             std::shared_ptr<FaultSchedule> schedule, FaultTiming timing)
    : WrappedSession(std::move(inner)), schedule_(std::move(schedule)), timing_(timing) {
  if (schedule_ == nullptr) throw ValueError("A FaultySession needs a schedule.");
}

std::vector<Tensor> FaultySession::Run(const std::vector<Output>& fetches,
                                       const FeedDict& feeds,
                                       const std::vector<Operation*>& targets,
                                       const RunOptions& options, RunMetadata* run_metadata) {
  if (timing_ == FaultTiming::kBeforeRun) schedule_->MaybeFail("Run");
  std::vector<Tensor> out = WrappedSession::Run(fetches, feeds, targets, options, run_metadata);
  if (timing_ == FaultTiming::kAfterRun) schedule_->MaybeFail("Run (after the inner run)");
  return out;
}

FaultySessionCreator::FaultySessionCreator(std::shared_ptr<SessionCreator> creator,
                                           std::shared_ptr<FaultSchedule> creation_faults,
                                           std::shared_ptr<FaultSchedule> run_faults,
                                           FaultTiming timing)
    : creator_(std::move(creator)),
      creation_faults_(creation_faults != nullptr ? std::move(creation_faults)
                                                  : FaultSchedule::Never()),
      run_faults_(std::move(run_faults)),
      timing_(timing) {}

std::unique_ptr<SessionInterface> FaultySessionCreator::CreateSession() {
  creation_faults_->MaybeFail("CreateSession");
  std::unique_ptr<SessionInterface> session = creator_->CreateSession();
  if (run_faults_ == nullptr) return session;
  return std::make_unique<FaultySession>(std::move(session), run_faults_, timing_);
}

CountingSessionCreator::CountingSessionCreator(std::shared_ptr<SessionCreator> creator)
    : creator_(std::move(creator)) {}

std::unique_ptr<SessionInterface> CountingSessionCreator::CreateSession() {
  ++attempts_;
  std::unique_ptr<SessionInterface> session = creator_->CreateSession();
  ++created_;
  return session;
}

FunctionSessionCreator::FunctionSessionCreator(
    std::function<std::unique_ptr<SessionInterface>()> make)
    : make_(std::move(make)) {}

std::unique_ptr<SessionInterface> FunctionSessionCreator::CreateSession() { return make_(); }

FaultyHook::FaultyHook(Phase phase, std::shared_ptr<FaultSchedule> schedule)
    : phase_(phase), schedule_(std::move(schedule)) {}

void FaultyHook::AfterCreateSession(SessionInterface&, Coordinator*) {
  ++after_create_session_calls_;
  if (phase_ == Phase::kAfterCreateSession) schedule_->MaybeFail("AfterCreateSession");
}

SessionRunArgs FaultyHook::BeforeRun(SessionRunContext&) {
  ++before_run_calls_;
  if (phase_ == Phase::kBeforeRun) schedule_->MaybeFail("BeforeRun");
  return {};
}

void FaultyHook::AfterRun(SessionRunContext&, const SessionRunValues&) {
  ++after_run_calls_;
  if (phase_ == Phase::kAfterRun) schedule_->MaybeFail("AfterRun");
}

std::exception_ptr ErrorOf(ErrorCode code, const std::string& message) {
  try {
    ThrowOpError(code, message);
  } catch (...) {  // Only to capture it: the caller rethrows it where it is reported.
    return std::current_exception();
  }
}

}  // namespace mts
