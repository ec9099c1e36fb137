// kkperm::time_median's time budget (...), the team kernels' shared-memory carveout
// (kkperm/core/launch_policy.hpp: the mode's parser, fit_carveout_percent, kkperm::parallel_for),
// kkperm::time_median's time budget (--budget-ms of the perf tools) and the native 64-bit integer
// atomics of kkperm/core/atomics.hpp (plus the warp-aggregated increment) and the reusable
// workspace of kkperm/core/workspace.hpp and the pooled view blocks of kkperm/core/pooled_array.hpp,
// on the default execution space.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <string>
#include <type_traits>
#include <memory>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <thread>
#include <vector>

#include "common/test_utils.hpp"
#include "kkperm/core/atomics.hpp"
#include "kkperm/core/launch_policy.hpp"
#include "kkperm/core/launch_trace.hpp"
#include "kkperm/core/phase_clock.hpp"
#include "kkperm/core/pooled_array.hpp"
#include "kkperm/core/read_back.hpp"
#include "kkperm/core/timing.hpp"
#include "kkperm/core/types.hpp"
#include "kkperm/core/workspace.hpp"

namespace {
void sleep_ms(int ms) { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); }

using I64View = Kokkos::View<std::int64_t*, kkperm::DefaultDevice>;
// device work that takes measurable time on any backend: a long dependent loop per thread
void busy_loop(const I64View& out, std::int64_t iters) {
  Kokkos::parallel_for(
      "test::phase_clock_busy", Kokkos::RangePolicy<kkperm::DefaultExecSpace>(0, out.extent(0)),
      KOKKOS_LAMBDA(const std::int64_t i) {
        std::int64_t x = i;
        for (std::int64_t k = 0; k < iters; ++k) x = x * 6364136223846793005LL + 1442695040888963407LL;
        out(i) = x;
      });
}
// a parallel_reduce for the launch trace ("test::trace_reduce"): how many out(i) are odd
std::int64_t count_odd(const I64View& out) {
  std::int64_t sum = 0;
  Kokkos::parallel_reduce(
      "test::trace_reduce", Kokkos::RangePolicy<kkperm::DefaultExecSpace>(0, out.extent(0)),
      KOKKOS_LAMBDA(const std::int64_t i, std::int64_t& a) { a += out(i) & 1; }, sum);
  return sum;
}
// d(i) = 3 i - 7
void fill_affine(const I64View& d) {
  Kokkos::parallel_for(
      "test::read_back_fill", Kokkos::RangePolicy<kkperm::DefaultExecSpace>(0, d.extent(0)),
      KOKKOS_LAMBDA(const std::int64_t i) { d(i) = 3 * i - 7; });
}
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
// counts(t(i)) += 1, c(i) times for every i, through the warp-aggregated increment.
void increment_all(const Kokkos::View<int*, kkperm::DefaultDevice>& t, const Kokkos::View<int*, kkperm::DefaultDevice>& c,
                   const Kokkos::View<int*, kkperm::DefaultDevice>& counts) {
  Kokkos::parallel_for(
      "test::aggregated", Kokkos::RangePolicy<kkperm::DefaultExecSpace>(0, static_cast<int>(t.extent(0))),
      KOKKOS_LAMBDA(const int i) {
        for (int k = 0; k < c(i); ++k) kkperm::atomic_increment_aggregated(&counts(t(i)));
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

// Phase spans: a span brackets the work between its marks (device events on CUDA, resolved
// later; host clock elsewhere), spans may share marks, restart reuses the marks.
TEST(PhaseClock, SpansCoverTheirWorkAndResolveLater) {
  using Exec = kkperm::DefaultExecSpace;
  kkperm::detail::PhaseClock<Exec> clock;
  I64View out("out", 256);
  const auto busy = [&](std::int64_t iters) { busy_loop(out, iters); };
  double whole = -1.0, first = -1.0, second = -1.0;
  const auto m0 = clock.mark();
  busy(200000);
  const auto m1 = clock.mark();
  busy(2000000);
  clock.span(&second, m1);
  clock.span(&first, m0, m1);
  clock.span(&whole, m0);
  EXPECT_EQ(clock.marks(), 4u);
  EXPECT_THROW(clock.span(&whole, 0, 7), std::invalid_argument);  // unknown mark
  clock.resolve();
  EXPECT_GT(first, 0.0);
  EXPECT_GT(second, first);  // ten times the work
  EXPECT_GE(whole, first + second - 1e-4);
  EXPECT_LT(whole, 60.0);
  double again = -1.0;
  clock.restart();
  EXPECT_EQ(clock.marks(), 0u);
  const auto r0 = clock.mark();
  clock.span(&again, r0);
  clock.resolve();
  EXPECT_GE(again, 0.0);
  EXPECT_LT(again, whole);
}

// Clocks one after another (a fresh plan per setup) take the events earlier clocks gave back
// (CUDA: CudaEventPool): a later clock's spans still bracket their own work, ordered as it is, and
// two live clocks never share an event (their spans differ by the work between their marks).
TEST(PhaseClock, FreshClocksReuseEventsSafely) {
  using Exec = kkperm::DefaultExecSpace;
  I64View out("out", 256);
  for (int round = 0; round < 3; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    kkperm::detail::PhaseClock<Exec> a, b;
    double small = -1.0, large = -1.0, outer = -1.0;
    const auto a0 = a.mark();
    const auto b0 = b.mark();
    busy_loop(out, 200000);
    const auto b1 = b.mark();
    busy_loop(out, 2000000);
    const auto a1 = a.mark();
    b.span(&small, b0, b1);
    a.span(&outer, a0, a1);
    b.resolve();
    a.resolve();
    EXPECT_GT(small, 0.0);
    EXPECT_GT(outer, 5.0 * small);  // eleven times the work
    a.span(&large, a0);
    a.resolve();
    EXPECT_GE(large, outer);
  }
}

TEST(LaunchTrace, RecordsKernelsCopiesAndAllocationsInOrder) {
  using kkperm::detail::TraceEvent;
  I64View out("out", 64);
  std::vector<TraceEvent> ev;
  {
    kkperm::detail::LaunchTrace trace;
    EXPECT_THROW(kkperm::detail::LaunchTrace(), std::logic_error);  // one at a time
    auto h = Kokkos::create_mirror_view(out);
    {
      I64View tmp("test::trace_tmp", 1000);
      busy_loop(out, 1000);
      (void)count_odd(out);
      Kokkos::deep_copy(h, out);
    }  // tmp is freed here, after the copy
    ev = trace.stop();
    EXPECT_THROW(trace.stop(), std::logic_error);
  }
  // after stop() nothing is recorded: a kernel here must not reach the vector or crash
  busy_loop(out, 10);
  const auto find = [&](TraceEvent::Kind k, const std::string& name) {
    for (std::size_t i = 0; i < ev.size(); ++i)
      if (ev[i].kind == k && ev[i].name.find(name) != std::string::npos) return static_cast<int>(i);
    return -1;
  };
  const int a = find(TraceEvent::Kind::allocate, "test::trace_tmp");
  const int k = find(TraceEvent::Kind::kernel, "test::phase_clock_busy");
  const int r = find(TraceEvent::Kind::kernel, "test::trace_reduce");
  const int c = find(TraceEvent::Kind::deep_copy, "out");
  const int d = find(TraceEvent::Kind::deallocate, "test::trace_tmp");
  ASSERT_GE(a, 0);
  ASSERT_GT(k, a);
  ASSERT_GT(r, k);
  ASSERT_GT(c, r);
  ASSERT_GT(d, c);
  EXPECT_EQ(ev[static_cast<std::size_t>(a)].bytes, 1000u * sizeof(std::int64_t));
  EXPECT_EQ(ev[static_cast<std::size_t>(c)].bytes, 64u * sizeof(std::int64_t));
  for (std::size_t i = 0; i < ev.size(); ++i) {
    EXPECT_GE(ev[i].host_end_us, ev[i].host_begin_us) << ev[i].name;
    if (i > 0) EXPECT_GE(ev[i].host_begin_us, ev[i - 1].host_begin_us) << ev[i].name;
  }
  const auto s = kkperm::detail::summarize(ev);
  EXPECT_GE(s.kernels, 2);
  EXPECT_GE(s.copies, 1);
  EXPECT_GE(s.allocations, 1);
  EXPECT_GE(s.host_span_us, ev[static_cast<std::size_t>(k)].host_end_us - ev[static_cast<std::size_t>(a)].host_begin_us);
  if (ev[static_cast<std::size_t>(k)].device_begin_us >= 0.0) {  // device backends
    EXPECT_GE(ev[static_cast<std::size_t>(k)].device_end_us, ev[static_cast<std::size_t>(k)].device_begin_us);
    EXPECT_GT(s.device_busy_us, 0.0);
    EXPECT_NEAR(s.device_busy_us + s.device_idle_us, s.device_span_us, 1e-6);
  } else {
    EXPECT_EQ(s.device_span_us, 0.0);
  }
}

TEST(LaunchTrace, SummaryUnitesOverlapsAndFindsTheLargestGap) {
  using kkperm::detail::TraceEvent;
  const auto dev = [](const char* name, double b, double e) {
    TraceEvent t;
    t.name = name;
    t.device_begin_us = b;
    t.device_end_us = e;
    t.host_begin_us = b;
    t.host_end_us = b + 1;
    return t;
  };
  TraceEvent alloc;
  alloc.kind = TraceEvent::Kind::allocate;  // no device times: not part of the device span
  alloc.host_begin_us = 3;
  alloc.host_end_us = 3;
  // [0,10] and [5,12] overlap (busy 12), gap 12->20 after "b", [20,25], gap 25->26 after "c", [26,30]
  const std::vector<TraceEvent> ev = {dev("a", 0, 10), alloc, dev("b", 5, 12), dev("c", 20, 25), dev("d", 26, 30)};
  const auto s = kkperm::detail::summarize(ev);
  EXPECT_EQ(s.kernels, 4);
  EXPECT_EQ(s.allocations, 1);
  EXPECT_DOUBLE_EQ(s.device_span_us, 30.0);
  EXPECT_DOUBLE_EQ(s.device_busy_us, 21.0);
  EXPECT_DOUBLE_EQ(s.device_idle_us, 9.0);
  EXPECT_DOUBLE_EQ(s.largest_gap_us, 8.0);
  EXPECT_EQ(s.largest_gap_after, "b");
  EXPECT_DOUBLE_EQ(s.host_span_us, 27.0);
  EXPECT_EQ(kkperm::detail::summarize({}).kernels, 0);
}

TEST(LaunchTrace, RegionsMarkHostPhasesAndAreNotDeviceWork) {
  using kkperm::detail::TraceEvent;
  { const kkperm::detail::TraceRegion idle("test::no_trace"); }  // nothing records: a no-op
  I64View out("out", 64);
  kkperm::detail::LaunchTrace trace;
  {
    const kkperm::detail::TraceRegion outer("test::outer");
    busy_loop(out, 100);
    const kkperm::detail::TraceRegion inner("test::inner");
  }
  const auto ev = trace.stop();
  ASSERT_EQ(ev.size(), 3u);
  EXPECT_EQ(ev[0].kind, TraceEvent::Kind::region);
  EXPECT_EQ(ev[0].name, "test::outer");
  EXPECT_EQ(ev[1].kind, TraceEvent::Kind::kernel);
  EXPECT_EQ(ev[2].name, "test::inner");
  EXPECT_LE(ev[0].host_begin_us, ev[1].host_begin_us);
  EXPECT_GE(ev[0].host_end_us, ev[2].host_end_us);  // the outer region closes last
  const auto s = kkperm::detail::summarize(ev);
  EXPECT_EQ(s.regions, 2);
  EXPECT_EQ(s.kernels, 1);
  if (ev[1].device_begin_us >= 0.0)  // busy time is the kernel's alone
    EXPECT_NEAR(s.device_busy_us, ev[1].device_end_us - ev[1].device_begin_us, 1e-6);
}

TEST(LaunchTrace, PhasesFollowEachOther) {
  using kkperm::detail::TraceEvent;
  kkperm::detail::LaunchTrace trace;
  {
    kkperm::detail::TracePhases phase;
    phase.next("test::first");
    phase.next("test::second");  // ends the first
    phase.end();
    phase.end();  // nothing open: no effect
    phase.next("test::third");
  }  // ends the third
  const auto ev = trace.stop();
  ASSERT_EQ(ev.size(), 3u);
  EXPECT_EQ(ev[0].name, "test::first");
  EXPECT_EQ(ev[1].name, "test::second");
  EXPECT_EQ(ev[2].name, "test::third");
  for (const auto& e : ev) EXPECT_EQ(e.kind, TraceEvent::Kind::region) << e.name;
  EXPECT_LE(ev[0].host_end_us, ev[1].host_begin_us);
  EXPECT_LE(ev[1].host_end_us, ev[2].host_begin_us);
  EXPECT_GE(ev[2].host_end_us, ev[2].host_begin_us);
}

TEST(ReadBack, CopiesDeviceNumbersAfterEarlierWork) {
  for (const std::size_t n : {std::size_t(1), std::size_t(5), std::size_t(700), std::size_t(20000)}) {
    I64View d("d", n);
    fill_affine(d);
    std::vector<std::int64_t> h(n + 1, -1);  // the element past the end stays untouched
    kkperm::detail::read_back<kkperm::DefaultExecSpace>(h.data(), d.data(), n, "test");
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(h[i], 3 * static_cast<std::int64_t>(i) - 7) << "n " << n << " i " << i;
    EXPECT_EQ(h[n], -1);
  }
  std::int64_t untouched = 42;
  kkperm::detail::read_back<kkperm::DefaultExecSpace>(&untouched, static_cast<const std::int64_t*>(nullptr), 0, "test");
  EXPECT_EQ(untouched, 42);
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

TEST(Atomics, AggregatedIncrementCountsEveryCall) {
  // Threads increment counters chosen at random with heavy sharing (few addresses, runs of equal
  // targets among neighbouring threads, divergent call counts): on CUDA lanes of a warp combine
  // before one atomic; every count must still equal the serial count.
  const std::uint64_t seed = kkperm::test::fresh_seed();
  std::mt19937_64 rng(seed);
  const int n = 100000, slots = 37;
  std::vector<int> target(n), calls(n);
  for (int i = 0; i < n; ++i) {
    target[i] = (rng() % 4 == 0) ? static_cast<int>(rng() % slots) : (i / 16) % slots;
    calls[i] = static_cast<int>(rng() % 3);
  }
  std::vector<int> want(slots, 0);
  for (int i = 0; i < n; ++i) want[target[i]] += calls[i];
  Kokkos::View<int*, kkperm::DefaultDevice> t("t", n), c("c", n), counts("counts", slots);
  Kokkos::deep_copy(t, Kokkos::View<const int*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(target.data(), n));
  Kokkos::deep_copy(c, Kokkos::View<const int*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(calls.data(), n));
  increment_all(t, c, counts);
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), counts);
  for (int s = 0; s < slots; ++s) EXPECT_EQ(h(s), want[s]) << "slot " << s << " (seed " << seed << ")";
}

TEST(Workspace, LeasesAreReusedNestedLeasesAreDisjointAndZeroingIsExact) {
  using Mem = kkperm::DefaultDevice::memory_space;
  using Ws = kkperm::detail::Workspace<Mem>;
  kkperm::release_workspaces<Mem>();
  const std::size_t n = 1000;
  const void* first = nullptr;
  {
    Ws a(Ws::bytes_for<int>(n) + Ws::bytes_for<double>(n));
    auto x = a.take<int>(n);
    auto y = a.take<double>(n);
    first = x.data();
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(x.data()) % Ws::kAlign, 0u);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(y.data()) % Ws::kAlign, 0u);
    EXPECT_GE(reinterpret_cast<const char*>(y.data()), reinterpret_cast<const char*>(x.data() + n));
    EXPECT_THROW(a.take<char>(1), std::logic_error);  // past the reservation
    Ws b(Ws::bytes_for<int>(n));  // nested: another arena
    auto z = b.take<int>(n);
    EXPECT_TRUE(z.data() + n <= x.data() || z.data() >= reinterpret_cast<const int*>(y.data() + n));
  }
  {
    Ws again(Ws::bytes_for<int>(n / 2));  // smaller request: the same memory again
    EXPECT_EQ(again.take<int>(n / 2).data(), first);
  }
  {  // more simultaneous leases than arenas: the extra ones allocate privately and still work
    std::vector<std::unique_ptr<Ws>> many;
    for (int s = 0; s < Ws::kSlots + 2; ++s) many.push_back(std::make_unique<Ws>(Ws::bytes_for<int>(n)));
    for (auto& w : many) EXPECT_EQ(w->take<int>(n).extent(0), n);
  }
  {  // zero_since zeroes exactly what was carved after the mark
    Ws w(3 * Ws::bytes_for<int>(n));
    auto before = w.take<int>(n);
    Kokkos::deep_copy(before, 7);
    const auto m = w.mark();
    auto z1 = w.take<int>(n);
    auto z2 = w.take<int>(n);
    Kokkos::deep_copy(z1, -1);
    Kokkos::deep_copy(z2, -1);
    w.zero_since<kkperm::DefaultExecSpace>(m);
    auto hb = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), before);
    auto h1 = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), z1);
    auto h2 = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), z2);
    for (std::size_t i = 0; i < n; ++i) {
      ASSERT_EQ(hb(i), 7) << i;
      ASSERT_EQ(h1(i), 0) << i;
      ASSERT_EQ(h2(i), 0) << i;
    }
  }
  kkperm::release_workspaces<Mem>();
}

namespace {
// d(i) = i / 2, k(i) = 3i + 1 on the device (an extended lambda cannot sit in a TEST body)
void write_pattern(const Kokkos::View<double*, kkperm::DefaultDevice>& d,
                   const Kokkos::View<int*, kkperm::DefaultDevice>& k) {
  const std::int64_t nk = static_cast<std::int64_t>(k.extent(0));
  Kokkos::parallel_for(
      "test::pooled_block_write", Kokkos::RangePolicy<kkperm::DefaultExecSpace>(0, d.extent(0)),
      KOKKOS_LAMBDA(const std::int64_t i) {
        d(i) = 0.5 * static_cast<double>(i);
        if (i < nk) k(i) = static_cast<int>(3 * i + 1);
      });
}
}  // namespace

// pooled_view_block: a managed View (from kkperm's CUDA pool on CUDA, a Kokkos allocation
// elsewhere) whose carved typed Views keep it alive after the block View and every other copy
// are gone; the memory is written and read through the carved Views; the label is kept; reference
// counts follow copies; a second block does not overlap a live one.
TEST(PooledViewBlock, CarvedViewsOwnTheBlock) {
  using Dev = kkperm::DefaultDevice;
  const std::size_t n = 100000;
  Kokkos::View<double*, Dev> carved;
  Kokkos::View<int*, Dev> carved_int;
  {
    auto block = kkperm::detail::pooled_view_block<Dev>("kkperm::test::block", n * sizeof(double) + 256 * sizeof(int));
    ASSERT_EQ(block.extent(0), n * sizeof(double) + 256 * sizeof(int));
    EXPECT_EQ(block.label(), "kkperm::test::block");
    EXPECT_EQ(block.use_count(), 1);
    const Kokkos::View<double*, Dev, Kokkos::MemoryUnmanaged> ud(reinterpret_cast<double*>(block.data()), n);
    const Kokkos::View<int*, Dev, Kokkos::MemoryUnmanaged> ui(
        reinterpret_cast<int*>(block.data() + n * sizeof(double)), 256);
    carved = Kokkos::View<double*, Dev>(block.impl_track(), ud.impl_map());
    carved_int = Kokkos::View<int*, Dev>(block.impl_track(), ui.impl_map());
    EXPECT_EQ(block.use_count(), 3);
    auto copy = carved;
    EXPECT_EQ(block.use_count(), 4);
  }
  EXPECT_EQ(carved.use_count(), 2);  // carved and carved_int
  // a second live block of the same size must be other memory
  auto other = kkperm::detail::pooled_view_block<Dev>("kkperm::test::other", n * sizeof(double));
  EXPECT_NE(static_cast<void*>(other.data()), static_cast<void*>(carved.data()));
  Kokkos::deep_copy(Kokkos::View<double*, Dev, Kokkos::MemoryUnmanaged>(reinterpret_cast<double*>(other.data()), n),
                    -1.0);
  write_pattern(carved, carved_int);
  {  // (create_mirror_view on a host backend would be another reference to the same block)
    Kokkos::View<double*, Kokkos::HostSpace> hd("hd", n), ho("ho", n);
    Kokkos::View<int*, Kokkos::HostSpace> hi("hi", 256);
    Kokkos::deep_copy(hd, carved);
    Kokkos::deep_copy(hi, carved_int);
    Kokkos::deep_copy(ho, Kokkos::View<double*, Dev, Kokkos::MemoryUnmanaged>(reinterpret_cast<double*>(other.data()), n));
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(hd(i), 0.5 * static_cast<double>(i)) << i;
    for (int i = 0; i < 256; ++i) ASSERT_EQ(hi(i), 3 * i + 1) << i;
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(ho(i), -1.0) << i;
  }
  carved = Kokkos::View<double*, Dev>();
  EXPECT_EQ(carved_int.use_count(), 1);
  carved_int = Kokkos::View<int*, Dev>();  // the block goes back (to the pool on CUDA)
  Kokkos::fence();
  auto empty = kkperm::detail::pooled_view_block<Dev>("kkperm::test::empty", 0);
  EXPECT_EQ(empty.extent(0), 0u);
}

// The plan pool's retain threshold: by default a quarter of the device's memory, at least 1 GiB;
// set_pooled_memory_retain_bytes changes it. Freed memory within the threshold stays mapped across
// a synchronization (reserved does not drop), and a threshold of 0 returns it at the next
// synchronization; the usage's high-water marks cover the block. Host backends have no pool:
// threshold and usage read 0 whatever was set.
TEST(PooledMemory, RetainThresholdKeepsFreedMemoryMapped) {
  using Dev = kkperm::DefaultDevice;
  const std::uint64_t mib = std::uint64_t(1) << 20;
  const std::size_t n = (256 * mib) / sizeof(double);  // a 256 MiB block
#if defined(KOKKOS_ENABLE_CUDA)
  std::size_t free_b = 0, total_b = 0;
  ASSERT_EQ(cudaMemGetInfo(&free_b, &total_b), cudaSuccess);
  const std::uint64_t quarter = static_cast<std::uint64_t>(total_b) / 4;
  const std::uint64_t def = quarter > 1024 * mib ? quarter : 1024 * mib;
  EXPECT_EQ(kkperm::pooled_memory_retain_bytes(), def);
  kkperm::set_pooled_memory_retain_bytes(2048 * mib);
  EXPECT_EQ(kkperm::pooled_memory_retain_bytes(), 2048 * mib);
  kkperm::release_pooled_memory();
  const std::uint64_t before = kkperm::pooled_memory_usage().reserved_bytes;
  {
    kkperm::detail::PooledArray<double, Dev> a("kkperm::test::retained", n);
    Kokkos::deep_copy(a.view(), 1.0);
    Kokkos::fence();
    const auto u = kkperm::pooled_memory_usage();
    EXPECT_GE(u.used_bytes, 256 * mib);
    EXPECT_GE(u.used_high_bytes, 256 * mib);
    EXPECT_GE(u.reserved_high_bytes, 256 * mib);
  }
  Kokkos::fence();  // the block is free now; within the threshold it stays mapped
  EXPECT_GE(kkperm::pooled_memory_usage().reserved_bytes, before + 256 * mib);
  kkperm::set_pooled_memory_retain_bytes(0);
  Kokkos::fence();  // above a threshold of 0: free memory goes back at this synchronization
  EXPECT_LT(kkperm::pooled_memory_usage().reserved_bytes, 256 * mib);
  kkperm::set_pooled_memory_retain_bytes(def);
  EXPECT_EQ(kkperm::pooled_memory_retain_bytes(), def);
#else
  kkperm::set_pooled_memory_retain_bytes(2048 * mib);
  EXPECT_EQ(kkperm::pooled_memory_retain_bytes(), 0u);
  kkperm::detail::PooledArray<double, Dev> a("kkperm::test::retained", n);
  Kokkos::deep_copy(a.view(), 1.0);
  const auto u = kkperm::pooled_memory_usage();
  EXPECT_EQ(u.reserved_bytes, 0u);
  EXPECT_EQ(u.used_high_bytes, 0u);
  EXPECT_EQ(a.view().extent(0), n);
#endif
}

// KKPERM_TEAM_CARVEOUT's values: fit, kokkos or an integer percent; anything else is refused with
// a message naming the variable and the value.
TEST(TeamCarveout, ParsesModesAndRefusesTheRest) {
  EXPECT_EQ(kkperm::parse_team_carveout("fit"), kkperm::kCarveoutFit);
  EXPECT_EQ(kkperm::parse_team_carveout("kokkos"), kkperm::kCarveoutKokkos);
  EXPECT_EQ(kkperm::parse_team_carveout("0"), 0);
  EXPECT_EQ(kkperm::parse_team_carveout("14"), 14);
  EXPECT_EQ(kkperm::parse_team_carveout("100"), 100);
  for (const char* bad : {"", "101", "-1", "-2", "Fit", "fit ", "12%", "1e1", "kokkos2"}) {
    try {
      kkperm::parse_team_carveout(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const std::invalid_argument& e) {
      const std::string m = e.what();
      EXPECT_NE(m.find("KKPERM_TEAM_CARVEOUT"), std::string::npos) << m;
      EXPECT_NE(m.find(std::string("'") + bad + "'"), std::string::npos) << m;
    }
  }
  // this process's mode is the variable's value (or fit), and its name reads back the same way
  const char* e = std::getenv("KKPERM_TEAM_CARVEOUT");
  EXPECT_EQ(kkperm::team_carveout_mode(), e ? kkperm::parse_team_carveout(e) : kkperm::kCarveoutFit);
  EXPECT_EQ(kkperm::parse_team_carveout(kkperm::team_carveout_name()), kkperm::team_carveout_mode());
}

// fit_carveout_percent on an H100/H200 SM (65536 registers, 2048 threads, 32 blocks, 228 KiB of
// shared memory, 1 KiB reserved a block), each expectation worked out by hand.
TEST(TeamCarveout, FitKeepsTheOccupancyTheLargestConfigurationGives) {
  kkperm::CarveoutInputs h;  // the defaults are the sm_90 numbers
  EXPECT_EQ(h.shared_per_sm, 233472);
  auto with = [&](int threads, int regs, long dyn, long stat = 0) {
    kkperm::CarveoutInputs c = h;
    c.threads_per_block = threads;
    c.regs_per_thread = regs;
    c.dynamic_shared = dyn;
    c.static_shared = stat;
    return kkperm::fit_carveout_percent(c);
  };
  // 256 threads, 32 registers: 8 blocks by threads (2048 / 256) and by registers (65536 / (32 * 32)
  // = 64 warps); Kokkos' 8 * (256 + 2) = 2064 bytes + 1024 of scratch + 1024 reserved = 4112 a
  // block; 8 * 4112 = 32896 = 14.09 % of 233472 -> 15
  EXPECT_EQ(with(256, 32, 2064 + 1024), 15);
  // 128 registers: 4096 a warp -> 16 warps -> 2 blocks; 2 * 4112 = 8224 = 3.52 % -> 4
  EXPECT_EQ(with(256, 128, 2064 + 1024), 4);
  // 40 registers: 1280 a warp -> 51 warps -> 6 blocks of 8 warps; 6 * 4112 = 24672 = 10.57 % -> 11
  EXPECT_EQ(with(256, 40, 2064 + 1024), 11);
  // 33 registers round up to 1280 a warp, like 40
  EXPECT_EQ(with(256, 33, 2064 + 1024), 11);
  // 32 threads, 16 registers: the 32-block limit binds; 32 * (1024 + 280 + 1024) = 74496 = 31.9 % -> 32
  EXPECT_EQ(with(32, 16, 280, 1024), 32);
  // 36 KiB of scratch a block: 8 * (36864 + 2064 + 1024) = 319616 > 233472: shared memory limits
  // the occupancy, so the whole of it (100)
  EXPECT_EQ(with(256, 32, 36864 + 2064), 100);
  // exactly filling the largest configuration is shared-limited too
  EXPECT_EQ(with(256, 32, 233472 / 8 - 1024), 100);
  // register count unknown (0): threads and the block limit only
  EXPECT_EQ(with(256, 0, 2064 + 1024), 15);
  // a 1-thread block counts as one warp: 32 blocks * (0 + 1024) = 32768 = 14.04 % -> 15
  EXPECT_EQ(with(1, 0, 0), 15);
  // no launchable block
  EXPECT_EQ(with(0, 32, 0), -1);
  EXPECT_EQ(with(1024, 255, 0), -1);  // 255 -> 8192 a warp -> 8 warps < 32 of the block
  kkperm::CarveoutInputs none = h;
  none.shared_per_sm = 0;
  none.threads_per_block = 256;
  EXPECT_EQ(kkperm::fit_carveout_percent(none), -1);
}

// kkperm::parallel_for runs team and range kernels exactly as Kokkos::parallel_for does (on CUDA
// through the carveout path: the default mode, fit, fixed percents and Kokkos' preference, with
// launches whose scratch changes the fitted percent): every entry
// written, poisoned output first. The kernels live outside the TEST bodies (CUDA extended lambdas
// cannot sit in gtest's private TestBody).
namespace {
using CarveoutView = Kokkos::View<double*, kkperm::DefaultDevice>;
void carveout_team_fill(const CarveoutView& y, std::size_t scratch, int carveout) {
  using Exec = kkperm::DefaultExecSpace;
  using policy_t = kkperm::team_policy<Exec>;
  using member_t = policy_t::member_type;
  const int n = static_cast<int>(y.extent(0));
  constexpr bool host = Kokkos::SpaceAccessibility<Kokkos::HostSpace, Exec::memory_space>::accessible;
  policy_t policy((n + 63) / 64, host ? 1 : 64);
  if (scratch > 0) policy.set_scratch_size(0, Kokkos::PerTeam(scratch));
  const double shift = static_cast<double>(scratch);
  const auto body = KOKKOS_LAMBDA(const member_t& team) {
    const int base = team.league_rank() * 64;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, 64), [&](const int k) {
      if (base + k < n) y(base + k) = 2.0 * (base + k) + shift;
    });
  };
  if (carveout == kkperm::kCarveoutDefault)
    kkperm::parallel_for("kkperm::test::carveout_team", policy, body);  // the mode's own path
  else
    kkperm::parallel_for("kkperm::test::carveout_team", policy, body, carveout);
}
void carveout_range_fill(const CarveoutView& y) {
  kkperm::parallel_for("kkperm::test::carveout_range",
                       kkperm::range_policy<kkperm::DefaultExecSpace>(0, static_cast<int>(y.extent(0))),
                       KOKKOS_LAMBDA(const int i) { y(i) = -1.0 * i; });
}
}  // namespace

TEST(TeamCarveout, ParallelForRunsTeamAndRangeKernels) {
  const int n = 5000;
  CarveoutView y("kkperm::test::carveout_y", n);
  // the default mode, then fixed hints (the row-major SpMM kernels' way) and Kokkos' preference
  for (const int carveout : {kkperm::kCarveoutDefault, kkperm::kCarveoutFit, 14, 0, kkperm::kCarveoutKokkos})
    for (const std::size_t scratch : {std::size_t(0), std::size_t(512), std::size_t(40000), std::size_t(512)}) {
      Kokkos::deep_copy(y, std::nan(""));
      carveout_team_fill(y, scratch, carveout);
      const auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y);
      for (int i = 0; i < n; ++i)
        ASSERT_EQ(h(i), 2.0 * i + static_cast<double>(scratch))
            << "carveout " << carveout << " scratch " << scratch << " entry " << i;
    }
  Kokkos::deep_copy(y, std::nan(""));
  carveout_range_fill(y);
  const auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y);
  for (int i = 0; i < n; ++i) ASSERT_EQ(h(i), -1.0 * i) << i;
}
