// SPDX-License-Identifier: Apache-2.0
// `sampcheck-mpi tp` (distributed/mpi_commands.h, docs/spec/tp_consensus.md "Real ranks").
//
// Per case, every rank draws its ids with the divergence model (distributed/tp_divergence.h)
// on its own backend, then:
//   1. each rank sends [status, ids] to rank 0 (point to point, polled with a deadline), so
//      rank 0 holds every input and can name a rank that died, hung or sent garbage;
//   2. rank 0 broadcasts go / skip (skip: a rank's ids were garbage, its backend failed, or its
//      ids are not the single-process reference's gumbel_max of the rank's own inputs);
//   3. the real collective: MPI_Iallreduce(MPI_MIN) for sglang (or the planted MPI_SUM, or
//      ncclAllReduce(ncclMin)), MPI_Ibcast from rank 0 for vllm;
//   4. MIN and MAX all-reduces of the agreed ids show whether every rank holds the same id;
//   5. rank 0 checks the collective's result against the reference tp_consensus of the
//      gathered inputs (a SUM for MIN fails here) and tallies the divergence statistics.
// A rank that misses a deadline, or dies (mpirun then sends SIGTERM to the others), ends the
// job: rank 0 writes the report with the failing rank and case first, then MPI_Abort(3). Each
// case starts with a barrier after rank 0 has prepared that case's death reports, so a rank
// that runs ahead of rank 0 cannot die in a case rank 0 is not yet reporting.
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "cli/backend_registry.h"
#include "core/error.h"
#include "core/exception_text.h"
#include "distributed/mpi_commands.h"
#include "distributed/mpi_wait.h"
#include "distributed/nccl_consensus.h"
#include "distributed/tp_divergence.h"
#include "reference/reference_backend.h"
#include "reference/tp_consensus.h"
#include "reports/conform_report.h"

namespace sampcheck::distributed {
namespace {

using Clock = std::chrono::steady_clock;

struct Run {
  int rank = 0, size = 1;
  const TpOptions* options = nullptr;
  std::vector<int> pids;  // rank 0: every rank's pid (same host: loopback)
  std::vector<CaseResult> results;
};

// Rank 0's reports for "a rank died in the current case", made before the case starts, so
// that the SIGTERM mpirun sends when a rank dies can be answered from the signal handler with
// async-signal-safe calls only (kill, open, write, rename): rank 0 may be in the middle of its
// own draws then, and mpirun follows with SIGKILL about a second later.
struct DeathReports {
  std::vector<std::string> texts;  // [r]: rank r died; [0]: no dead rank found (report.json)
  std::vector<std::string> lines;  // the same as a FAIL line for stderr
};
struct DeathTarget {
  std::vector<int> pids;
  std::string tmp_path, path;
};
DeathTarget g_death_target;
// Two slots: the next case's reports are built in the slot the handler is not reading, then
// published by one store, so a SIGTERM at any moment finds a whole set (-1: none, exit 143).
DeathReports g_death_slots[2];
volatile std::sig_atomic_t g_death_slot = -1;

bool PidGone(int pid) { return pid > 0 && ::kill(pid, 0) != 0; }

void WriteAll(int fd, const std::string& text) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n <= 0) return;
    done += static_cast<std::size_t>(n);
  }
}

void OnTerminateRankZero(int) {
  const int slot = g_death_slot;
  if (slot < 0) ::_exit(143);
  std::atomic_signal_fence(std::memory_order_acquire);
  const DeathReports& armed = g_death_slots[slot];
  const DeathTarget& target = g_death_target;
  std::size_t which = 0;
  for (std::size_t r = 1; r < target.pids.size(); ++r) {
    if (PidGone(target.pids[r])) {
      which = r;
      break;
    }
  }
  WriteAll(2, armed.lines[which]);
  const int fd = target.path.empty() ? -1 : ::open(target.tmp_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd >= 0) {
    WriteAll(fd, armed.texts[which]);
    ::close(fd);
    ::rename(target.tmp_path.c_str(), target.path.c_str());
  }
  static const char kMsg[] = "sampcheck-mpi tp: mpirun ended the job; rank 0 wrote the report\n";
  [[maybe_unused]] const ssize_t ignored = ::write(2, kMsg, sizeof kMsg - 1);
  ::_exit(3);
}

// Rank 0 waits the rank timeout; the other ranks, which mostly wait on rank 0, twice that, so
// that when a rank hangs rank 0 gives up first and writes the report naming it (a healthy
// rank's MPI_Abort first would end the job before rank 0 had written it).
Clock::time_point Deadline(const Run& run) {
  const double seconds = run.options->rank_timeout_s * (run.rank == 0 ? 1.0 : 2.0);
  return Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

void WriteReport(const Run& run, bool complete) {
  if (run.rank != 0 || run.options->report_dir.empty()) return;
  const auto path = reports::WriteJsonReport(run.options->report_dir, {"mpi:" + run.options->backend, ""}, run.results,
                                             complete);
  if (complete) std::printf("report: %s\n", path.c_str());
}

bool ProcessAlive(int pid) {
  if (pid <= 0 || ::kill(pid, 0) != 0) return false;
  // A zombie (dead, not yet reaped by its orted) counts as dead: /proc/<pid>/stat field 3.
  FILE* f = std::fopen(("/proc/" + std::to_string(pid) + "/stat").c_str(), "r");
  if (!f) return true;  // another host: cannot tell
  char buf[512] = {};
  const std::size_t n = std::fread(buf, 1, sizeof buf - 1, f);
  std::fclose(f);
  const std::string stat(buf, n);
  const auto close = stat.rfind(')');
  return !(close != std::string::npos && close + 2 < stat.size() && stat[close + 2] == 'Z');
}

// A failed divergence case, as report.json records it.
CaseResult FailedCase(const Run& run, const DivergenceCase& c, const std::string& reason) {
  CaseResult r;
  r.id = c.Id(run.size);
  r.stage = "tp_consensus";
  r.profile = std::string(ProfileName(c.profile));
  r.comparison = "distribution";
  r.verdict = Verdict::kFail;
  r.reason = reason;
  return r;
}

// Rank 0: the job cannot go on. Report, then end every rank.
[[noreturn]] void AbortRun(Run& run, const DivergenceCase& c, const std::string& reason) {
  g_death_slot = -1;  // this report is the one to keep
  run.results.push_back(FailedCase(run, c, reason));
  std::fprintf(stderr, "sampcheck-mpi tp: FAIL %s\n     %s\n", run.results.back().id.c_str(), reason.c_str());
  try {
    WriteReport(run, /*complete=*/false);
    if (!run.options->report_dir.empty()) {
      std::fprintf(stderr, "report (run ended early): %s/report.json\n", run.options->report_dir.c_str());
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sampcheck-mpi tp: cannot write the report: %s\n", e.what());
  }
  std::fflush(stdout);
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 3);
  std::_Exit(3);
}

// Any rank but 0: a deadline passed or mpirun asked to stop.
[[noreturn]] void RankGivesUp(const Run& run, const DivergenceCase& c, const char* what, WaitOutcome w) {
  if (w == WaitOutcome::kTerminated) std::_Exit(143);  // mpirun ends the job: rank 0 reports
  std::fprintf(stderr, "sampcheck-mpi tp: rank %d: %s in case %s %s\n", run.rank, what, c.Id(run.size).c_str(),
               w == WaitOutcome::kTimedOut ? "did not complete in time" : "failed in MPI");
  MPI_Abort(MPI_COMM_WORLD, 3);
  std::_Exit(3);
}

// A collective every rank takes part in: on a missed deadline or mpirun's stop, rank 0 reports
// `rank0_reason` against case c and ends the job; another rank gives up naming `what`.
void WaitOrEnd(Run& run, const DivergenceCase& c, std::vector<MPI_Request>& req, const char* rank0_reason,
               const char* what) {
  const WaitOutcome w = WaitAll(req, Deadline(run));
  if (w == WaitOutcome::kDone) return;
  if (run.rank == 0) AbortRun(run, c, rank0_reason);
  RankGivesUp(run, c, what, w);
}

std::string Describe(const Run& run, const std::vector<bool>& delivered, double timeout, WaitOutcome w) {
  std::string out;
  for (int r = 1; r < run.size; ++r) {
    if (delivered[static_cast<std::size_t>(r)]) continue;
    const bool alive = ProcessAlive(run.pids[static_cast<std::size_t>(r)]);
    std::string line = "rank " + std::to_string(r) + (alive ? " sent no ids within " + std::to_string(timeout).substr(0, 5) +
                                                                   " s (hung)"
                                                             : " died (process " +
                                                                   std::to_string(run.pids[static_cast<std::size_t>(r)]) +
                                                                   " is gone)");
    if (w == WaitOutcome::kTerminated && alive) line = "rank " + std::to_string(r) + " had not sent its ids when mpirun ended the job";
    out += (out.empty() ? "" : "; ") + line;
  }
  return out.empty() ? "an MPI exchange failed" : out;
}

// Rank 0, before case c: the reports the SIGTERM handler writes if a rank dies in it.
void ArmDeathReports(const Run& run, const DivergenceCase& c) {
  const int slot = g_death_slot == 0 ? 1 : 0;
  DeathReports& next = g_death_slots[slot];
  next.texts.assign(static_cast<std::size_t>(run.size), "");
  next.lines.assign(static_cast<std::size_t>(run.size), "");
  for (int r = 0; r < run.size; ++r) {
    CaseResult fail;
    fail.id = c.Id(run.size);
    fail.stage = "tp_consensus";
    fail.profile = std::string(ProfileName(c.profile));
    fail.comparison = "distribution";
    fail.verdict = Verdict::kFail;
    fail.reason = r == 0 ? "mpirun ended the job during this case (a rank failed; no rank's process was found gone)"
                         : "rank " + std::to_string(r) + " died (process " +
                               std::to_string(run.pids[static_cast<std::size_t>(r)]) + " is gone)";
    next.lines[static_cast<std::size_t>(r)] = "sampcheck-mpi tp: FAIL " + fail.id + "\n     " + fail.reason + "\n";
    if (!run.options->report_dir.empty()) {
      std::vector<CaseResult> results = run.results;
      results.push_back(std::move(fail));
      next.texts[static_cast<std::size_t>(r)] =
          reports::ReportToJson({"mpi:" + run.options->backend, ""}, results, /*complete=*/false).dump(2) + "\n";
    }
  }
  // The slot's strings are written before it is published (the handler runs on this thread:
  // a signal fence orders the compiler's stores, no hardware fence is needed).
  std::atomic_signal_fence(std::memory_order_release);
  g_death_slot = slot;
}

void Plant(const TpOptions& o, std::vector<std::int64_t>& ids, std::int64_t vocab) {
  if (o.fault == "die" || o.fault == "die-ahead") ::raise(SIGKILL);  // as a crash of the rank's process would
  if (o.fault == "hang") {
    for (;;) ::pause();
  }
  if (o.fault == "garbage") {  // bits that are no token id: a negative and one past V
    ids[0] = -0x5eed;
    ids[ids.size() / 2] = vocab + 7;
  }
  if (o.fault == "lie") std::fill(ids.begin(), ids.end(), 0);  // valid ids, not the rank's draws
}

// The first rank whose ids are not the single-process reference's gumbel_max of that rank's
// own inputs (RankDrawCase: its perturbed logits and its noise), as a reason; "" when all are.
// gumbel_max with the noise as input is an exact-tier stage, so every conforming backend
// returns these ids bit for bit; without this a rank answering token 0 on every draw passed
// the shared-noise cases, whose statistics only measure bias and are reported, not judged.
std::string CheckAgainstReference(const DivergenceCase& c, std::uint64_t seed, int ranks, std::int64_t n,
                                  const std::vector<std::int64_t>& all, const std::string& backend) {
  reference::ReferenceBackend reference;
  for (int r = 0; r < ranks; ++r) {
    const std::vector<std::int64_t> want = RankDraws(reference, c, seed, r, 0, n);
    const std::int64_t* row = all.data() + static_cast<std::size_t>(r) * static_cast<std::size_t>(n + 1) + 1;
    std::int64_t differ = 0, first = -1;
    for (std::int64_t d = 0; d < n; ++d) {
      if (row[d] != want[static_cast<std::size_t>(d)] && differ++ == 0) first = d;
    }
    if (differ > 0) {
      const auto i = static_cast<std::size_t>(first);
      return "rank " + std::to_string(r) + ": backend '" + backend + "' drew ids that are not gumbel_max of the rank's inputs: " +
             std::to_string(differ) + " of " + std::to_string(n) + " draws differ from the single-process reference; draw " +
             std::to_string(first) + ": the rank sent " + std::to_string(row[first]) + ", the reference draws " +
             std::to_string(want[i]);
    }
  }
  return "";
}

}  // namespace

int RunTp(const TpOptions& options) {
  Run run;
  run.options = &options;
  MPI_Comm_rank(MPI_COMM_WORLD, &run.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &run.size);
  InstallTerminationFlag();
  if (options.collective == "nccl-min" && !NcclConsensusAvailable()) {
    throw InputError("--collective nccl-min: this sampcheck-mpi was built without NCCL (" + NcclConsensusStatus() + ")");
  }
  if (options.fault != "none" && (options.fault_rank < 0 || options.fault_rank >= run.size)) {
    throw InputError("--fault-rank " + std::to_string(options.fault_rank) + " is not a rank of this job (0.." +
                     std::to_string(run.size - 1) + ")");
  }
  std::vector<DivergenceCase> cases;
  for (auto& c : DivergenceCases()) {
    const bool case_ok = options.cases.empty() || std::count(options.cases.begin(), options.cases.end(), c.name);
    const std::string profile(ProfileName(c.profile));
    const bool profile_ok = options.profiles.empty() || std::count(options.profiles.begin(), options.profiles.end(), profile);
    if (case_ok && profile_ok) cases.push_back(std::move(c));
  }
  if (cases.empty()) throw InputError("no divergence case is selected (cases: shared_noise_4ulp, shared_noise_renorm, independent_noise; profiles: sglang, vllm)");
  const std::string fault_case = options.fault_case.empty() ? cases.front().name : options.fault_case;
  if (options.fault != "none" &&
      std::none_of(cases.begin(), cases.end(), [&](const DivergenceCase& c) { return c.name == fault_case; })) {
    // A fault planted in no case would leave a fault test passing without testing anything.
    throw InputError("--fault-case '" + fault_case + "' is not a selected divergence case (cases: shared_noise_4ulp, "
                     "shared_noise_renorm, independent_noise, narrowed by --case and --profile)");
  }
  if (options.fault == "die-ahead" && (options.fault_rank == 0 || cases.front().name == fault_case)) {
    // Rank 0 lags in the case before the fault case; without one, or dying itself, it tests nothing.
    throw InputError("--fault die-ahead needs a --fault-rank other than 0 and a --fault-case after the first selected case");
  }
  auto backend = cli::MakeBackend(options.backend, cli::BackendOptions{});

  const int my_pid = static_cast<int>(::getpid());
  run.pids.assign(static_cast<std::size_t>(run.size), 0);
  MPI_Gather(&my_pid, 1, MPI_INT, run.pids.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (run.rank == 0) {
    g_death_target.pids = run.pids;
    if (!options.report_dir.empty()) {
      std::filesystem::create_directories(options.report_dir);
      g_death_target.path = (std::filesystem::path(options.report_dir) / "report.json").string();
      g_death_target.tmp_path = g_death_target.path + ".dying";
    }
    struct sigaction sa = {};
    sa.sa_handler = OnTerminateRankZero;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, nullptr);
  }

  const std::int64_t n = options.draws;
  bool any_failed = false;
  for (std::size_t k = 0; k < cases.size(); ++k) {
    const DivergenceCase& c = cases[k];
    const auto vocab = static_cast<std::int64_t>(c.logits.size());
    const std::uint64_t seed = DivergenceSeed(c, run.size, options.seed_epoch);
    if (run.rank == 0) ArmDeathReports(run, c);
    {  // 0. No rank starts case c before rank 0 reports deaths in c (see the file comment).
      std::vector<MPI_Request> req(1);
      MPI_Ibarrier(MPI_COMM_WORLD, &req[0]);
      WaitOrEnd(run, c, req, "the ranks did not all reach the start of this case within the rank timeout",
                "waiting for the case to start");
    }
    // [status, ids...]: status 0 ok, 1 the backend failed on this rank.
    std::vector<std::int64_t> mine(static_cast<std::size_t>(n + 1), 0);
    std::string error;
    try {
      const auto ids = RankDraws(*backend, c, seed, run.rank, 0, n);
      std::copy(ids.begin(), ids.end(), mine.begin() + 1);
    } catch (const std::exception& e) {
      mine[0] = 1;
      error = ExceptionText(e);
    }
    if (options.fault != "none" && run.rank == options.fault_rank && c.name == fault_case) {
      std::vector<std::int64_t> ids(mine.begin() + 1, mine.end());
      Plant(options, ids, vocab);
      std::copy(ids.begin(), ids.end(), mine.begin() + 1);
    }
    const int tag = static_cast<int>(2 * k);
    // 1. Inputs to rank 0.
    std::vector<std::int64_t> all;  // rank 0: [R, n + 1]
    std::vector<std::string> errors(static_cast<std::size_t>(run.size));
    if (run.rank == 0) {
      all.assign(static_cast<std::size_t>(run.size * (n + 1)), 0);
      std::copy(mine.begin(), mine.end(), all.begin());
      errors[0] = error;
      std::vector<MPI_Request> reqs(static_cast<std::size_t>(run.size - 1));
      for (int r = 1; r < run.size; ++r) {
        MPI_Irecv(all.data() + static_cast<std::size_t>(r) * static_cast<std::size_t>(n + 1), static_cast<int>(n + 1),
                  MPI_INT64_T, r, tag, MPI_COMM_WORLD, &reqs[static_cast<std::size_t>(r - 1)]);
      }
      std::vector<bool> got;
      const WaitOutcome w = WaitEach(reqs, got, Deadline(run));
      if (w != WaitOutcome::kDone) {
        std::vector<bool> delivered(static_cast<std::size_t>(run.size), true);
        for (int r = 1; r < run.size; ++r) delivered[static_cast<std::size_t>(r)] = got[static_cast<std::size_t>(r - 1)];
        AbortRun(run, c, Describe(run, delivered, options.rank_timeout_s, w));
      }
    } else {
      std::vector<MPI_Request> req(1);
      MPI_Isend(mine.data(), static_cast<int>(n + 1), MPI_INT64_T, 0, tag, MPI_COMM_WORLD, &req[0]);
      const WaitOutcome w = WaitAll(req, Deadline(run));
      if (w != WaitOutcome::kDone) RankGivesUp(run, c, "sending ids to rank 0", w);
    }
    // Error messages of failing backends (only from ranks that said status 1).
    if (run.rank != 0 && mine[0] == 1) {
      MPI_Send(error.data(), static_cast<int>(error.size()), MPI_CHAR, 0, tag + 1, MPI_COMM_WORLD);
    }
    // 2. Rank 0 checks the inputs and says whether the collective runs.
    std::string bad;
    if (run.rank == 0) {
      for (int r = 0; r < run.size && bad.empty(); ++r) {
        const std::int64_t* row = all.data() + static_cast<std::size_t>(r) * static_cast<std::size_t>(n + 1);
        if (row[0] != 0) {
          if (r != 0) {
            MPI_Status st;
            int len = 0;
            MPI_Probe(r, tag + 1, MPI_COMM_WORLD, &st);
            MPI_Get_count(&st, MPI_CHAR, &len);
            errors[static_cast<std::size_t>(r)].resize(static_cast<std::size_t>(len));
            MPI_Recv(errors[static_cast<std::size_t>(r)].data(), len, MPI_CHAR, r, tag + 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
          }
          bad = "rank " + std::to_string(r) + ": backend '" + options.backend + "' failed: " + errors[static_cast<std::size_t>(r)];
          continue;
        }
        for (std::int64_t d = 0; d < n; ++d) {
          const std::int64_t id = row[d + 1];
          if (id < 0 || id >= vocab) {
            bad = "rank " + std::to_string(r) + " sent garbage: id " + std::to_string(id) + " at draw " + std::to_string(d) +
                  " is outside [0, " + std::to_string(vocab) + ")";
            break;
          }
        }
      }
      if (bad.empty()) bad = CheckAgainstReference(c, seed, run.size, n, all, options.backend);
    }
    int go = bad.empty() ? 1 : 0;
    {
      std::vector<MPI_Request> req(1);
      MPI_Ibcast(&go, 1, MPI_INT, 0, MPI_COMM_WORLD, &req[0]);
      const WaitOutcome w = WaitAll(req, Deadline(run));
      if (w != WaitOutcome::kDone) {
        if (run.rank == 0) AbortRun(run, c, "the go/skip broadcast did not complete: " + std::string(w == WaitOutcome::kTerminated ? "mpirun ended the job" : "a rank stopped answering"));
        RankGivesUp(run, c, "waiting for rank 0's go", w);
      }
    }
    if (!go) {
      if (run.rank == 0) {
        CaseResult r = FailedCase(run, c, bad);
        // Printed as every other verdict is: this FAIL used to reach report.json only.
        std::printf("FAIL %s\n     %s\n", r.id.c_str(), r.reason.c_str());
        std::fflush(stdout);
        run.results.push_back(std::move(r));
        any_failed = true;
        WriteReport(run, false);
      }
      continue;
    }
    // 3. The collective.
    std::vector<std::int64_t> ids(mine.begin() + 1, mine.end());
    std::vector<std::int64_t> agreed(static_cast<std::size_t>(n), 0);
    {
      std::vector<MPI_Request> req(1);
      if (c.profile == Profile::kVllm) {
        agreed = ids;
        MPI_Ibcast(agreed.data(), static_cast<int>(n), MPI_INT64_T, 0, MPI_COMM_WORLD, &req[0]);
      } else if (options.collective == "nccl-min") {
        NcclAllReduceMin(ids, agreed);  // blocking on the device stream; see nccl_consensus.h
        req.clear();
      } else {
        const MPI_Op op = options.collective == "planted-sum" ? MPI_SUM : MPI_MIN;
        MPI_Iallreduce(ids.data(), agreed.data(), static_cast<int>(n), MPI_INT64_T, op, MPI_COMM_WORLD, &req[0]);
      }
      WaitOrEnd(run, c, req, "the consensus collective did not complete within the rank timeout",
                "the consensus collective");
    }
    // 4. Does every rank hold the same ids now?
    std::vector<std::int64_t> lo(static_cast<std::size_t>(n)), hi(static_cast<std::size_t>(n));
    {
      std::vector<MPI_Request> req(2);
      MPI_Iallreduce(agreed.data(), lo.data(), static_cast<int>(n), MPI_INT64_T, MPI_MIN, MPI_COMM_WORLD, &req[0]);
      MPI_Iallreduce(agreed.data(), hi.data(), static_cast<int>(n), MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD, &req[1]);
      WaitOrEnd(run, c, req, "the post-consensus agreement check did not complete within the rank timeout",
                "the agreement check");
    }
    // 5. Rank 0: the collective against the reference consensus, and the statistics.
    if (run.rank == 0) {
      // die-ahead: the other ranks are free to start the next case while rank 0 is here.
      if (options.fault == "die-ahead" && k + 1 < cases.size() && cases[k + 1].name == fault_case) ::sleep(2);
      Tensor rank_ids(DType::kI64, {run.size, n});
      for (int r = 0; r < run.size; ++r) {
        std::copy_n(all.begin() + static_cast<std::ptrdiff_t>(r * (n + 1) + 1), n,
                    rank_ids.data<std::int64_t>().begin() + static_cast<std::ptrdiff_t>(r * n));
      }
      Case cc{c.Id(run.size), "tp_consensus", c.profile, nlohmann::json::object(), {}};
      cc.inputs.emplace("rank_ids", std::move(rank_ids));
      const TensorMap expected = reference::RunTpConsensus(cc, c.profile);
      const auto want = expected.at("token").data<std::int64_t>();
      const auto unanimous = expected.at("unanimous").data<std::uint8_t>();
      DivergenceTally t;
      t.ranks = run.size;
      t.draws = n;
      t.counts.assign(static_cast<std::size_t>(vocab), 0);
      std::int64_t wrong = 0, first_wrong = -1;
      for (std::int64_t d = 0; d < n; ++d) {
        const auto i = static_cast<std::size_t>(d);
        t.disagreements += unanimous[i] == 0;
        t.post_mismatches += lo[i] != hi[i];
        if (agreed[i] != want[i]) {
          if (wrong++ == 0) first_wrong = d;
        }
        if (agreed[i] >= 0 && agreed[i] < vocab) ++t.counts[static_cast<std::size_t>(agreed[i])];
      }
      CaseResult r = DivergenceResult(c, t, seed);
      if (wrong > 0) {
        const auto i = static_cast<std::size_t>(first_wrong);
        std::string inputs;
        for (int q = 0; q < run.size; ++q) {
          inputs += (q ? ", " : "") + std::to_string(all[static_cast<std::size_t>(q * (n + 1) + 1) + i]);
        }
        r.verdict = Verdict::kFail;
        r.reason = "the collective is not " + std::string(c.profile == Profile::kVllm ? "rank 0's id" : "the MIN") + ": " +
                   std::to_string(wrong) + " of " + std::to_string(n) + " draws differ; draw " + std::to_string(first_wrong) +
                   ": ranks held {" + inputs + "}, the collective gave " + std::to_string(agreed[i]) + ", " +
                   (c.profile == Profile::kVllm ? "rank 0 held " : "their MIN is ") + std::to_string(want[i]) +
                   " (collective: " + options.collective + ")";
        r.statistics->consensus->collective_mismatches = wrong;
      }
      any_failed = any_failed || r.verdict == Verdict::kFail;
      std::printf("%s %s\n     %s\n", r.verdict == Verdict::kFail ? "FAIL" : "ok  ", r.id.c_str(),
                  r.verdict == Verdict::kFail ? r.reason.c_str() : r.statistics->consensus->summary.c_str());
      std::fflush(stdout);
      run.results.push_back(std::move(r));
      WriteReport(run, false);
    }
  }
  if (run.rank == 0) {
    g_death_slot = -1;
    std::printf("tp consensus on %d ranks, backend '%s', collective %s, %lld draws per case\n", run.size,
                options.backend.c_str(), options.collective.c_str(), static_cast<long long>(n));
    std::cout << reports::SummaryTable(reports::SummariseByStage(run.results));
    WriteReport(run, true);
  }
  int failed = any_failed ? 1 : 0, any = 0;
  MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return any;
}

}  // namespace sampcheck::distributed
