// SPDX-License-Identifier: Apache-2.0
#pragma once
// Waiting on MPI requests with a deadline (docs/spec/tp_consensus.md "Rank faults"): a
// blocking collective never returns when a rank dies or hangs, so every exchange here is
// non-blocking and polled until it completes, the deadline passes, or mpirun asks this
// process to stop (SIGTERM: mpirun sends it to the survivors when a rank dies).
#include <mpi.h>

#include <chrono>
#include <csignal>
#include <string>
#include <vector>

namespace sampcheck::distributed {

enum class WaitOutcome { kDone, kTimedOut, kTerminated, kMpiError };

// Installs the SIGTERM flag handler (once per process).
void InstallTerminationFlag();
bool TerminationRequested();

// Polls `requests` (MPI_Testall) every millisecond until all complete or `deadline`.
// Requests left incomplete on a time-out are left as they are (the process then aborts).
WaitOutcome WaitAll(std::vector<MPI_Request>& requests, std::chrono::steady_clock::time_point deadline);
// Per request: which of them completed, polled until all did or `deadline`.
WaitOutcome WaitEach(std::vector<MPI_Request>& requests, std::vector<bool>& done,
                     std::chrono::steady_clock::time_point deadline);

std::string MpiErrorString(int code);

}  // namespace sampcheck::distributed
