// SPDX-License-Identifier: Apache-2.0
// The sharded wrapper (distributed/sharded_backend.h) forwards its inner backend's
// capabilities whole (core/stage_capabilities.h), like every wrapper
// (tests/backend_wrapper_test.cc says why), and on one rank passes a range count through.
// Runs under mpirun -np 1 (label mpi): the wrapper needs an initialised MPI.
#include <memory>
#include <string>

#include <gtest/gtest.h>
#include <mpi.h>

#include "core/stage_catalogue.h"
#include "distributed/sharded_backend.h"
#include "tests/support/capability_probe.h"

namespace sampcheck {
namespace {

using testing::CapabilityProbe;
using testing::ProbeCapabilities;

TEST(BackendWrapper, ShardedForwardsTheWholeStructForEveryStage) {
  distributed::ShardedBackend sharded(std::make_unique<CapabilityProbe>(), MPI_COMM_WORLD);
  for (const auto& s : StageCatalogue()) {
    SCOPED_TRACE(s.name);
    EXPECT_EQ(sharded.Capabilities(s.name), ProbeCapabilities(s.name));
  }
  EXPECT_EQ(sharded.Capabilities("no_such_stage"), ProbeCapabilities("no_such_stage"));
}

// One rank owns the whole range [0, n), asked of the inner backend as a range.
TEST(BackendWrapper, ShardedOnOneRankCountsTheWholeRange) {
  distributed::ShardedBackend sharded(std::make_unique<CapabilityProbe>(), MPI_COMM_WORLD);
  Case c;
  c.id = "range";
  c.stage = "exponential_race";
  const Tensor counts = sharded.CountDraws("exponential_race", c, 9, 42);
  ASSERT_EQ(counts.numel(), 2);
  EXPECT_EQ(counts.data<std::int64_t>()[0], 0);
  EXPECT_EQ(counts.data<std::int64_t>()[1], 9);
  const Tensor range = sharded.CountDrawsRange("exponential_race", c, 3, 4, 42);
  EXPECT_EQ(range.data<std::int64_t>()[0], 3);
  EXPECT_EQ(range.data<std::int64_t>()[1], 4);
}

}  // namespace
}  // namespace sampcheck

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  ::testing::InitGoogleTest(&argc, argv);
  const int rc = RUN_ALL_TESTS();
  MPI_Finalize();
  return rc;
}
