// kkperm::time_median's time budget (--budget-ms of the perf tools) and the native 64-bit integer
// atomics of kkperm/core/atomics.hpp, on the default execution space.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <thread>
#include <vector>

#include "common/test_utils.hpp"
#include "kkperm/core/atomics.hpp"
#include "kkperm/core/timing.hpp"
#include "kkperm/core/types.hpp"

namespace {
void sleep_ms(int ms) { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); }

using I64View = Kokkos::View<std::int64_t*, kkperm::DefaultDevice>;
// sums(i % slots) += d(i); every thread also draws a ticket from counter(0) by fetch-add and adds
// it to fetched(0) (tickets 0..n-1, so fetched == n(n-1)/2 when every fetch-add was atomic).
void add_all(const I64View& d, const I64View& sums, const I64View& counter, const I64View& fetched) {
  const std::int64_t slots = static_cast<std::int64_t>(sums.extent(0));
  Kokkos::parallel_for(
      "test::atomics", Kokkos::RangePolicy<kkperm::DefaultExecSpace>(0, d.extent(0)),
      KOKKOS_LAMBDA(const std::int64_t i) {
        kkperm::atomic_add_i64(&sums(i % slots), d(i));
        const std::int64_t t = kkperm::atomic_fetch_add_int(&counter(0), std::int64_t(1));
        kkperm::atomic_add_int(&fetched(0), t);
      });
}
}  // namespace

TEST(Timing, WithoutBudgetEveryRepeatIsTaken) {
  int calls = 0;
  const auto s = kkperm::time_median([&] { ++calls; }, 2, 7);
  EXPECT_EQ(calls, 9);
  EXPECT_EQ(s.repeat, 7);
  EXPECT_EQ(s.samples_ms.size(), 7u);
}

TEST(Timing, BudgetStopsAfterThreeSamplesOnceSpent) {
  // Each call sleeps 4 ms; a 6 ms budget is spent after two samples, but three are the minimum.
  int calls = 0;
  const auto s = kkperm::time_median([&] { ++calls; sleep_ms(4); }, 0, 20, 6.0);
  EXPECT_EQ(s.repeat, 3);
  EXPECT_EQ(s.samples_ms.size(), 3u);
  EXPECT_EQ(calls, 3);
  EXPECT_GE(s.median_ms, 3.5);  // the sleep is inside every sample
}

TEST(Timing, BudgetNeverTakesMoreThanRepeat) {
  int calls = 0;
  const auto s = kkperm::time_median([&] { ++calls; }, 0, 2, 1000.0);
  EXPECT_EQ(s.repeat, 2);  // repeat < 3: the minimum is repeat itself
  EXPECT_EQ(calls, 2);
}

TEST(Timing, BudgetCutsWarmupAfterOneSlowCall) {
  // The first warm-up call takes >= budget/4 = 2 ms: the other 4 warm-ups are skipped.
  int calls = 0;
  const auto s = kkperm::time_median([&] { ++calls; sleep_ms(3); }, 5, 3, 8.0);
  EXPECT_EQ(s.repeat, 3);
  EXPECT_EQ(calls, 1 + 3);
}

TEST(Timing, FastCallsKeepTheirWarmup) {
  int calls = 0;
  kkperm::time_median([&] { ++calls; }, 4, 3, 1000.0);
  EXPECT_EQ(calls, 4 + 3);
}

TEST(Timing, RejectsBadArguments) {
  EXPECT_THROW(kkperm::time_median([] {}, 0, 0), std::invalid_argument);
  EXPECT_THROW(kkperm::time_median([] {}, -1, 1), std::invalid_argument);
  EXPECT_THROW(kkperm::time_median([] {}, 0, 1, -1.0), std::invalid_argument);
}

TEST(Atomics, SignedSixtyFourBitSumsMatchSerial) {
  // Many threads add signed 64-bit values (negative ones and values beyond 2^32) into a few
  // addresses; the device sums must equal the serial sums exactly.
  const std::uint64_t seed = kkperm::test::fresh_seed();
  std::mt19937_64 rng(seed);
  const int n = 200000, slots = 7;
  std::vector<std::int64_t> v(n);
  std::uniform_int_distribution<std::int64_t> dist(-(std::int64_t(1) << 40), std::int64_t(1) << 40);
  for (auto& x : v) x = dist(rng);
  std::vector<std::int64_t> want(slots, 0);
  for (int i = 0; i < n; ++i) want[i % slots] += v[i];

  Kokkos::View<std::int64_t*, kkperm::DefaultDevice> d("v", n), sums("sums", slots), fetched("fetched", 1);
  Kokkos::deep_copy(d, Kokkos::View<const std::int64_t*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(v.data(), n));
  Kokkos::View<std::int64_t*, kkperm::DefaultDevice> counter("counter", 1);
  add_all(d, sums, counter, fetched);
  auto hs = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), sums);
  auto hf = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), fetched);
  auto hc = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), counter);
  for (int s = 0; s < slots; ++s) EXPECT_EQ(hs(s), want[s]) << "slot " << s << " (seed " << seed << ")";
  EXPECT_EQ(hc(0), n);
  EXPECT_EQ(hf(0), std::int64_t(n) * (n - 1) / 2);
}
