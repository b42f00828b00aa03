// SPDX-License-Identifier: Apache-2.0
// Waiting on MPI requests with a deadline (distributed/mpi_wait.h).
#include "distributed/mpi_wait.h"

#include <unistd.h>

namespace sampcheck::distributed {
namespace {

volatile std::sig_atomic_t g_terminate = 0;

void OnTerminate(int) { g_terminate = 1; }

}  // namespace

void InstallTerminationFlag() {
  struct sigaction sa = {};
  sa.sa_handler = OnTerminate;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGTERM, &sa, nullptr);
}

bool TerminationRequested() { return g_terminate != 0; }

WaitOutcome WaitAll(std::vector<MPI_Request>& requests, std::chrono::steady_clock::time_point deadline) {
  std::vector<bool> done(requests.size(), false);
  return WaitEach(requests, done, deadline);
}

WaitOutcome WaitEach(std::vector<MPI_Request>& requests, std::vector<bool>& done,
                     std::chrono::steady_clock::time_point deadline) {
  done.assign(requests.size(), false);
  for (;;) {
    bool all = true;
    for (std::size_t i = 0; i < requests.size(); ++i) {
      if (done[i]) continue;
      int flag = 0;
      if (MPI_Test(&requests[i], &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS) return WaitOutcome::kMpiError;
      done[i] = flag != 0;
      all = all && done[i];
    }
    if (all) return WaitOutcome::kDone;
    if (TerminationRequested()) return WaitOutcome::kTerminated;
    if (std::chrono::steady_clock::now() > deadline) return WaitOutcome::kTimedOut;
    ::usleep(1000);
  }
}

std::string MpiErrorString(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(code, text, &len);
  return std::string(text, static_cast<std::size_t>(len));
}

}  // namespace sampcheck::distributed
