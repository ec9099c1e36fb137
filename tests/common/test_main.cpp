// GoogleTest main shared by every kkperm test executable: Kokkos lives for the whole run.
#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  Kokkos::ScopeGuard kokkos_guard(argc, argv);
  return RUN_ALL_TESTS();
}
