#pragma once
// Device kernels of the ESC SpGEMM (expansion, sorting, contraction). Internal: use
// kkperm/kernels/spgemm/esc_spgemm.hpp. All kernels are free functions (nvcc rule: no
// KOKKOS_LAMBDA in constructors or private members) working on raw views; the caller owns plans.
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <limits>
#include <type_traits>

#include "kkperm/core/atomics.hpp"
#include "kkperm/core/device_scan.hpp"
#include "kkperm/core/launch_policy.hpp"
#include "kkperm/core/launch_trace.hpp"
#include "kkperm/core/pooled_array.hpp"
#include "kkperm/core/read_back.hpp"
#include "kkperm/core/structure_hash.hpp"
#include "kkperm/core/warp_ops.hpp"
#include "kkperm/core/workspace.hpp"
#if defined(KOKKOS_ENABLE_CUDA)
#include <cub/device/device_radix_sort.cuh>
#endif

namespace kkperm::spgemm::esc_impl {

/// Largest one-thread bin threshold: the expanded row lives in the thread's slice of team scratch
/// (StridedArray, at most kRowThreads * 32 * (4 + 8) bytes per team), so thread_max may not exceed it.
inline constexpr int kThreadCapacity = 32;

inline std::int64_t next_pow2(std::int64_t x) {
  std::int64_t p = 1;
  while (p < x) p <<= 1;
  return p;
}

KOKKOS_INLINE_FUNCTION std::int64_t next_pow2_dev(std::int64_t x) {
  std::int64_t p = 1;
  while (p < x) p <<= 1;
  return p;
}

template <class Exec>
constexpr bool is_host_exec() {
  return Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Exec::memory_space>::accessible;
}

template <class Exec>
int team_size_for(int requested) {
  if constexpr (is_host_exec<Exec>()) return 1;
  else return requested;
}

/// Team size for `functor` on Exec: `requested` clamped to what Kokkos allows for this functor
/// (registers, the level-0 scratch `scratch0` per team) — on CUDA a 512-thread request can exceed
/// TeamPolicy::team_size_max for a register-heavy kernel, which Kokkos would reject at launch.
/// Host backends: 1.
template <class Exec, class Functor>
int fit_team_size(int requested, const Functor& functor, std::size_t scratch0) {
  if constexpr (is_host_exec<Exec>()) {
    (void)requested;
    (void)functor;
    (void)scratch0;
    return 1;
  } else {
    kkperm::team_policy<Exec> probe(1, 1);
    if (scratch0 > 0) probe.set_scratch_size(0, Kokkos::PerTeam(scratch0));
    const int mx = probe.team_size_max(functor, Kokkos::ParallelForTag());
    return requested < mx ? requested : (mx > 0 ? mx : 1);
  }
}

/// Slots of the open-addressing table of one global-bin row with F products (load <= 0.8).
inline std::int64_t hash_slots(std::int64_t F) { return next_pow2(F + (F >> 2) + 1); }

/// Threads per team of the one-thread-per-row (bin 0) kernels on device backends.
inline constexpr int kRowThreads = 64;

/// Per-thread array in team scratch, interleaved across the team: element s of thread t sits at
/// s * T + t, so consecutive threads touch consecutive words (no shared-memory bank conflicts).
template <class T>
struct StridedArray {
  T* p;
  int stride;
  KOKKOS_INLINE_FUNCTION T& operator[](std::int64_t s) const { return p[s * stride]; }
};

/// Team policy of the bin-0 kernels: one thread per row in teams of kRowThreads (1 on host
/// backends), `bytes_per_thread` of level-0 scratch per thread for its arrays (StridedArray).
/// Why scratch: with the arrays in per-thread local memory (the previous form) ncu on the H100
/// (session 7) saw the AP numeric of a 1 M-row 2D Laplacian move 613 MB of DRAM for about
/// 210 MB of data (the arrays spilled past L1) and take 330 us.
template <class Exec>
kkperm::team_policy<Exec> row_thread_policy(std::int64_t rows, std::size_t bytes_per_thread, int& T) {
  T = team_size_for<Exec>(kRowThreads);
  kkperm::team_policy<Exec> pol(static_cast<int>((rows + T - 1) / T), T);
  pol.set_scratch_size(0, Kokkos::PerTeam(bytes_per_thread * static_cast<std::size_t>(T) + 64));
  return pol;
}

// The hash's pieces live in core/structure_hash.hpp (the plan's validation adds the same terms).
using kkperm::detail::index_hash;
using kkperm::detail::kHashSlots;
using kkperm::detail::mix64;

/// Order-independent 64-bit hash of two CRS structures together (row_map and entries of A and of
/// B, which determine them fully), used to check that numeric reuse receives the matrices the
/// symbolic phase saw: the wrapping sum of index_hash over the four index arrays, xor mix64 of
/// their total length. structure_hash2_launch only enqueues it (partial sums into kHashSlots
/// device slots, zeroed first, no host wait); structure_hash2_finish adds the slots on the host.
/// The index space is cut into chunks of 2048 indices of one array (the array is the same for the
/// whole team, no per-index branch); one wave of teams (as many as the device holds at once)
/// walks the chunks with a grid stride, a thread loads its 8 indices of a chunk before hashing
/// them, and at the end a warp adds its lanes with shuffles and one atomic per warp goes to one of
/// kHashSlots slots.
/// History: two Kokkos range reductions (75 + 21 us for a 5 M-nnz A and a 1 M-row P, H100 session
/// 7, and a host wait each), then one team reduction over the arrays laid end to end with a
/// branch per index (~37 us each for the 2D AMG products, run 102; the registry hashed twice a
/// setup and waited for each); a team per chunk, 30 us (run 110, ~1.1 TB/s, ~51 % warps active:
/// ~3900 short teams); the grid-stride wave replaces that (session 18). Since session 31 the
/// SpGEMM plan's symbolic() adds these terms in its validation pass (the same arrays, one read:
/// kkperm::detail::PairCheck); this kernel hashes what numeric() is given, and symbolic() when
/// the validation could not (an empty matrix, A² with B = A checked once).

/// Σ index_hash over a(b + u·T + rank) for u < kPer (below len): the kPer loads first, then the
/// hashes, so a thread has all its loads in flight at once. (16-byte loads of whole aligned
/// chunks were tried: 30.3 µs either way for the 2D R(AP) check, H100 runs 107 and 110.)
template <int kPer, class ArrayView>
KOKKOS_INLINE_FUNCTION std::uint64_t hash_chunk(const ArrayView& a, std::int64_t b, std::int64_t len,
                                                int T, int rank, std::uint32_t salt) {
  using E = typename ArrayView::non_const_value_type;
  E v[kPer];
#pragma unroll
  for (int u = 0; u < kPer; ++u) {
    const std::int64_t q = b + std::int64_t(u) * T + rank;
    v[u] = q < len ? a(q) : 0;
  }
  std::uint64_t h = 0;
#pragma unroll
  for (int u = 0; u < kPer; ++u) {
    const std::int64_t q = b + std::int64_t(u) * T + rank;
    if (q < len) h += index_hash(std::uint64_t(q), static_cast<std::uint64_t>(v[u]), salt);
  }
  return h;
}

/// Lengths of the four arrays structure_hash2 covers: A's entries, A's row_map, B's entries,
/// B's row_map (a 0 x 0 matrix may have no row_map).
template <class RA, class EA, class RB, class EB>
std::array<std::int64_t, 4> structure_hash2_lengths(const RA& rowA, const EA& entA, std::int64_t nA,
                                                    const RB& rowB, const EB& entB, std::int64_t nB) {
  const auto rows_of = [](std::int64_t extent, std::int64_t n) { return extent < n + 1 ? extent : n + 1; };
  return {static_cast<std::int64_t>(entA.extent(0)), rows_of(static_cast<std::int64_t>(rowA.extent(0)), nA),
          static_cast<std::int64_t>(entB.extent(0)), rows_of(static_cast<std::int64_t>(rowB.extent(0)), nB)};
}

/// Number of indices structure_hash2 covers (the finish step mixes it in).
template <class RA, class EA, class RB, class EB>
std::int64_t structure_hash2_length(const RA& rowA, const EA& entA, std::int64_t nA, const RB& rowB,
                                    const EB& entB, std::int64_t nB) {
  const auto l = structure_hash2_lengths(rowA, entA, nA, rowB, entB, nB);
  return l[0] + l[1] + l[2] + l[3];
}

template <class Exec, class RA, class EA, class RB, class EB>
void structure_hash2_launch(const RA& rowA, const EA& entA, std::int64_t nA, const RB& rowB,
                            const EB& entB, std::int64_t nB, std::int64_t* slots, int max_teams = 0) {
  using policy_t = kkperm::team_policy<Exec>;
  using member_t = typename policy_t::member_type;
  const auto l = structure_hash2_lengths(rowA, entA, nA, rowB, entB, nB);
  const std::int64_t len0 = l[0], len1 = l[1], len2 = l[2], len3 = l[3];
  kkperm::detail::zero_async<Exec>(slots, kHashSlots, "kkperm::spgemm structure hash");
  constexpr int kPer = 8;  // indices a thread
  const int T = is_host_exec<Exec>() ? 1 : 256;
  const int W = is_host_exec<Exec>() ? 1 : 32;
  const std::int64_t per_team = std::int64_t(T) * kPer;
  const auto chunks = [&](std::int64_t len) { return (len + per_team - 1) / per_team; };
  const std::int64_t t1 = chunks(len0), t2 = t1 + chunks(len1), t3 = t2 + chunks(len2), nchunk = t3 + chunks(len3);
  if (nchunk == 0) return;
  // one wave of teams walks the chunks (grid stride): as many teams as the device holds at once
  // (max_teams > 0 caps it: tests make a few teams walk many chunks)
  std::int64_t resident = std::max<std::int64_t>(1, static_cast<std::int64_t>(Exec().concurrency()) / T);
  if (max_teams > 0) resident = std::min<std::int64_t>(resident, max_teams);
  const std::int64_t league = std::min(nchunk, resident);
  kkperm::parallel_for(
      "kkperm::spgemm::esc::structure_hash", policy_t(static_cast<int>(league), T),
      KOKKOS_LAMBDA(const member_t& team) {
        const int tr = team.team_rank();
        std::uint64_t h = 0;
        for (std::int64_t r = team.league_rank(); r < nchunk; r += league) {
          const int k = r < t1 ? 0 : (r < t2 ? 1 : (r < t3 ? 2 : 3));  // the same for the whole team
          const std::int64_t b = (r - (k == 0 ? 0 : (k == 1 ? t1 : (k == 2 ? t2 : t3)))) * per_team;
          if (k == 0)
            h += hash_chunk<kPer>(entA, b, len0, T, tr, kkperm::detail::kSaltEntriesA);
          else if (k == 1)
            h += hash_chunk<kPer>(rowA, b, len1, T, tr, kkperm::detail::kSaltRowMapA);
          else if (k == 2)
            h += hash_chunk<kPer>(entB, b, len2, T, tr, kkperm::detail::kSaltEntriesB);
          else
            h += hash_chunk<kPer>(rowB, b, len3, T, tr, kkperm::detail::kSaltRowMapB);
        }
        const std::int64_t sum = kkperm::detail::warp_sum(static_cast<std::int64_t>(h), W);
        if (tr % W == 0)
          kkperm::atomic_add_i64(&slots[(team.league_rank() * (T / W) + tr / W) % kHashSlots], sum);  // wraps mod 2^64
      });
}

inline std::uint64_t structure_hash2_finish(const std::int64_t* host_slots, std::int64_t len) {
  return kkperm::detail::structure_hash_finish(host_slots, len);
}

/// The hash at once (launch, one copy of the slots from the reusable workspace, finish).
template <class Exec, class RA, class EA, class RB, class EB>
std::uint64_t structure_hash2(const RA& rowA, const EA& entA, std::int64_t nA, const RB& rowB,
                              const EB& entB, std::int64_t nB, int max_teams = 0) {
  using ws_t = kkperm::detail::Workspace<typename Exec::memory_space>;
  ws_t ws(ws_t::template bytes_for<std::int64_t>(kHashSlots));
  const auto slots = ws.template take<std::int64_t>(kHashSlots);
  structure_hash2_launch<Exec>(rowA, entA, nA, rowB, entB, nB, slots.data(), max_teams);
  std::int64_t h[kHashSlots];
  kkperm::detail::read_back<Exec>(h, slots.data(), kHashSlots, "kkperm::spgemm structure hash");
  return structure_hash2_finish(h, structure_hash2_length(rowA, entA, nA, rowB, entB, nB));
}

/// The structure check of numeric reuse: record() enqueues the hash of (A, B) at symbolic time
/// and does not wait; matches() hashes the matrices given to numeric and compares, with one copy
/// of both hashes' slots (so a setup waits once for the check, not twice).
template <class Device>
class StructureCheck {
 public:
  template <class Matrix>
  void record(const Matrix& A, const Matrix& B) {
    if (slots_.view().extent(0) == 0)
      slots_ = kkperm::detail::PooledArray<std::int64_t, Device>("kkperm::spgemm::structure_hash", 2 * kHashSlots);
    launch(A, B, 0);
    len_ = length(A, B);
  }
  /// record() for a caller whose own pass adds the hash terms of (A, B) (the plan's validation,
  /// kkperm::detail::PairCheck): begin_record() forgets what was recorded, zeroes the recording
  /// slots (enqueued) and returns them; end_record(A, B), once that pass is enqueued, keeps it.
  std::int64_t* begin_record() {
    if (slots_.view().extent(0) == 0)
      slots_ = kkperm::detail::PooledArray<std::int64_t, Device>("kkperm::spgemm::structure_hash", 2 * kHashSlots);
    len_ = -1;
    pending_len_ = -1;
    kkperm::detail::zero_async<typename Device::execution_space>(slots_.view().data(), kHashSlots,
                                                                 "kkperm::spgemm structure hash");
    return slots_.view().data();
  }
  template <class Matrix>
  void end_record(const Matrix& A, const Matrix& B) {
    len_ = length(A, B);
  }
  /// Whether A and B have the structure record() saw (false before any record()).
  template <class Matrix>
  bool matches(const Matrix& A, const Matrix& B) {
    enqueue(A, B);
    return verdict();
  }
  /// matches() in two steps, so that work can be enqueued between them: enqueue() hashes A and B
  /// without waiting, verdict() waits for the hash (and whatever was enqueued after it) and
  /// compares (false before any record(), or without an enqueue() since the last verdict()).
  template <class Matrix>
  void enqueue(const Matrix& A, const Matrix& B) {
    pending_len_ = -1;
    if (len_ < 0) return;
    launch(A, B, kHashSlots);
    pending_len_ = length(A, B);
  }
  bool verdict() {
    if (pending_len_ < 0) return false;
    const std::int64_t len = pending_len_;
    pending_len_ = -1;
    std::int64_t h[2 * kHashSlots];
    kkperm::detail::read_back<typename Device::execution_space>(h, slots_.view().data(), 2 * kHashSlots,
                                                                "kkperm::spgemm_numeric structure check");
    return structure_hash2_finish(h, len_) == structure_hash2_finish(h + kHashSlots, len);
  }
  void clear() {
    len_ = -1;
    pending_len_ = -1;
  }

 private:
  template <class Matrix>
  void launch(const Matrix& A, const Matrix& B, int at) {
    structure_hash2_launch<typename Device::execution_space>(A.graph.row_map, A.graph.entries, A.numRows(),
                                                             B.graph.row_map, B.graph.entries, B.numRows(),
                                                             slots_.view().data() + at);
  }
  template <class Matrix>
  static std::int64_t length(const Matrix& A, const Matrix& B) {
    return structure_hash2_length(A.graph.row_map, A.graph.entries, A.numRows(), B.graph.row_map,
                                  B.graph.entries, B.numRows());
  }
  kkperm::detail::PooledArray<std::int64_t, Device> slots_;
  std::int64_t len_ = -1;  ///< length at record(); -1: nothing recorded
  std::int64_t pending_len_ = -1;  ///< length at enqueue(); -1: no hash waiting for verdict()
};

/// F_i = Σ_{k in row i of A} nnz(B row k).
template <class RA, class EA, class RB>
KOKKOS_INLINE_FUNCTION std::int64_t row_products(const RA& rowA, const EA& entA, const RB& rowB, std::int64_t i) {
  std::int64_t f = 0;
  for (auto p = rowA(i); p < rowA(i + 1); ++p) {
    const auto k = entA(p);
    f += static_cast<std::int64_t>(rowB(k + 1) - rowB(k));
  }
  return f;
}

/// F_i = Σ_{k in row i of A} nnz(B row k) into `work` (unless `work` is empty); returns
/// {Σ F_i, max F_i}.
template <class Exec, class RA, class EA, class RB, class WorkView>
void row_work(const RA& rowA, const EA& entA, const RB& rowB, const WorkView& work, std::int64_t n,
              std::int64_t& sum, std::int64_t& maxw, const char* label = "kkperm::spgemm::esc::row_work") {
  sum = 0;
  maxw = 0;
  const bool store = work.extent(0) > 0;
  Kokkos::parallel_reduce(
      label, kkperm::range_policy<Exec>(0, n),
      KOKKOS_LAMBDA(const std::int64_t i, std::int64_t& s, std::int64_t& m) {
        const std::int64_t f = row_products(rowA, entA, rowB, i);
        if (store) work(i) = f;
        s += f;
        if (f > m) m = f;
      },
      sum, Kokkos::Max<std::int64_t>(maxw));
}

/// row_work's Σ F_i and max F_i without storing the F_i (the runaway guard's estimate).
template <class Exec, class RA, class EA, class RB>
void row_work_sum_max(const RA& rowA, const EA& entA, const RB& rowB, std::int64_t n, std::int64_t& sum,
                      std::int64_t& maxw) {
  row_work<Exec>(rowA, entA, rowB, Kokkos::View<std::int64_t*, typename Exec::memory_space>(), n, sum, maxw,
                 "kkperm::spgemm::row_work_sum_max");
}

/// Bin of row i: work used for binning is max(F_i, nnz(A row i)) so every per-row scratch
/// array (expanded products and the prefix over A's row) is bounded by the bin's capacity.
KOKKOS_INLINE_FUNCTION int bin_of(std::int64_t w, std::int64_t t0, std::int64_t t1, std::int64_t t2) {
  return w <= t0 ? 0 : (w <= t1 ? 1 : (w <= t2 ? 2 : 3));
}

/// perm(p) = p for p in [0, n).
template <class Exec, class PermView>
void identity_perm(const PermView& perm, std::int64_t n) {
  using idx_t = typename PermView::non_const_value_type;
  kkperm::parallel_for("kkperm::spgemm::esc::identity_perm", kkperm::range_policy<Exec>(0, n),
                       KOKKOS_LAMBDA(const std::int64_t p) { perm(p) = static_cast<idx_t>(p); });
}

/// Validation verdicts still in flight when the analysis is enqueued (kkperm::detail::PairCheck,
/// SpgemmPlanOptions::late_verdict): `words` (4 device words) come back with the bin plan, and
/// `decide` (throws for an invalid A or B) runs on them before anything uses the plan. Until
/// then the analysis kernel guards every index it follows. Default: nothing pending.
struct PendingVerdict {
  const std::uint64_t* words = nullptr;
  std::function<void(const std::uint64_t*)> decide;
};

#if defined(KOKKOS_ENABLE_CUDA)
inline constexpr int kPlanSlots = 32;  ///< copies of build_plan_cuda's 16 numbers (atomics spread)
#endif
/// build_plan_cuda: a warp a row from this mean nnz(A row) and up to kPlanWarpRowMaxRows rows
/// (thread a row: fewer than one 256-thread block an SM of an H100). H100 run 124 (a warp a row
/// from a mean of 16, with per-row warp reductions since removed): the 3D 27-point R(AP)'s
/// analysis 0.141 -> 0.036 ms (5.7 k rows, ~205 a row), but the 2D 5-point R(AP)'s 0.061 ->
/// 0.237 ms (144 k rows, ~17 a row) and the 3D 27-point A²'s 0.089 -> 0.417 ms (262 k rows, 27).
/// Session 31: lane groups of 1-16 lanes a row from the mean row length instead
/// (plan_lanes_for; -1 keeps this rule for measurements).
inline constexpr std::int64_t kPlanWarpRowKa = 32;
inline constexpr std::int64_t kPlanWarpRowMaxRows = 32768;

/// Lanes per row of the analysis kernel (build_plan_cuda) for n rows of A with nnz_a entries:
/// `forced` when > 0 (EscConfig::plan_lanes; -1: session 30's rule, a row a thread but a warp a
/// row for few long rows, kPlanWarpRowMaxRows / kPlanWarpRowKa); else a row a thread below a mean
/// of kPlanLanesMinMean entries a row, and above it the power of two nearest below a quarter of
/// the mean, 4 to 16 (a lane walks about four entries; the group's loads of A's row and B's row
/// offsets are in flight together instead of one chain a row).
/// H100 run 235 (traced analysis kernel, µs; lanes forced to 1 / 2 / 4 / 8 / 16, session 30's
/// rule in brackets): 2D 5-point AP, mean 5: 76 / 85 / 105 / 139 / 208 (76); 2D R(AP), mean 17:
/// 36 / 42 / 38 / 43 / 51 (36); 3D 27-point AP, mean 27: 67 / 69 / 61 / 83 / 92 (67); 3D 7-point
/// R(AP), mean 39: 59 / 83 / 58 / 53 / 60 (60); 3D 27-point R(AP), 5.7 k rows of 205: 84 / 59 /
/// 33 / 22 / 19 (22, a warp a row).
inline constexpr std::int64_t kPlanLanesMinMean = 24;
inline int plan_lanes_for(std::int64_t n, std::int64_t nnz_a, int forced) {
  if (forced > 0) return forced;
  if (n <= 0) return 1;
  if (forced < 0) return n <= kPlanWarpRowMaxRows && nnz_a >= kPlanWarpRowKa * n ? 32 : 1;
  const std::int64_t mean = nnz_a / n;
  if (mean < kPlanLanesMinMean) return 1;
  int l = 4;
  while (l < 16 && 2 * l <= mean / 4) l *= 2;
  return l;
}

/// Rows a lane group of the analysis kernel takes one after another (its team then holds
/// 256 / lanes · rounds rows): `lanes`, so that a team has 256 rows as with a row a thread and
/// pays its reductions and 16 atomics once per 256 rows (H100 run 232: with one row a group, 2D
/// AP's 10^6 rows took 71 µs a row a thread, 151 with 2 lanes, 1 550 with 32), halved while
/// fewer teams than `resident_teams` (one wave) would remain.
inline int plan_rounds_for(std::int64_t n, int lanes, std::int64_t resident_teams) {
  int r = lanes;
  while (r > 1 && n / (std::int64_t(256 / lanes) * r) < resident_teams) r /= 2;
  return r;
}

#if defined(KOKKOS_ENABLE_CUDA)
/// Row i's results in build_plan_cuda's key kernels: work(i) = F_i (`f`), its bin key from
/// max(F_i, nnz(A row) `ka`), rows(i) = perm(i) = i; and the row added to the calling thread's
/// per-bin numbers (count, largest F and nnz, Σ F). The arrays are written at constant indices
/// only: a runtime index put them in local memory (H100 ncu, session 34, run 276).
template <class WorkView, class KeyView, class RowView, class PermView>
KOKKOS_INLINE_FUNCTION void plan_row_out(std::int64_t i, std::int64_t f, std::int64_t ka, std::int64_t t0,
                                         std::int64_t t1, std::int64_t t2, const WorkView& work, const KeyView& keys,
                                         const RowView& rows, const PermView& perm, std::int64_t c[4],
                                         std::int64_t mw[4], std::int64_t mk[4], std::int64_t sw[4]) {
  using idx_t = typename RowView::non_const_value_type;
  work(i) = f;
  const int bin = bin_of(f > ka ? f : ka, t0, t1, t2);
  keys(i) = static_cast<unsigned char>(bin);
  rows(i) = static_cast<idx_t>(i);
  perm(i) = static_cast<idx_t>(i);
#pragma unroll
  for (int q = 0; q < 4; ++q) {
    if (q != bin) continue;
    c[q] += 1;
    sw[q] += f;
    if (f > mw[q]) mw[q] = f;
    if (ka > mk[q]) mk[q] = ka;
  }
}

/// The end of build_plan_cuda's key kernels: per bin, the rows counted (c), the largest F_i (mw)
/// and nnz(A row) (mk) and Σ F_i (sw) of the calling thread's rows, combined over each warp
/// (shuffles; with L = 32 lanes a row lane 0 holds the warp's numbers already), then over the T
/// threads of the team in `sh` (16 words a warp), and 16 threads add the team's 16 numbers to
/// stat slot (team % kPlanSlots) with atomics (counts, F and nnz are >= 0: 0 needs none).
template <int L, int T, class Member, class StatView>
KOKKOS_INLINE_FUNCTION void plan_team_stats(const Member& team, std::int64_t* sh, const std::int64_t c[4],
                                            const std::int64_t mw[4], const std::int64_t mk[4],
                                            const std::int64_t sw[4], const StatView& stats) {
  const int tr = team.team_rank(), lane = tr % 32, warp = tr / 32;
  for (int bb = 0; bb < 4; ++bb) {
    // a warp a row: lane 0 holds the warp's only row, nothing to combine (H100 run 124: with
    // the 16 warp reductions a row the key kernel took 0.24 ms for the 2D R(AP)'s 144 k rows)
    const std::int64_t cs = L == 32 ? c[bb] : kkperm::detail::warp_sum(c[bb], 32);
    const std::int64_t wm = L == 32 ? mw[bb] : kkperm::detail::warp_max(mw[bb], 32);
    const std::int64_t ks = L == 32 ? mk[bb] : kkperm::detail::warp_max(mk[bb], 32);
    const std::int64_t ss = L == 32 ? sw[bb] : kkperm::detail::warp_sum(sw[bb], 32);
    if (lane == 0) {
      sh[warp * 16 + bb] = cs;
      sh[warp * 16 + 4 + bb] = wm;
      sh[warp * 16 + 8 + bb] = ks;
      sh[warp * 16 + 12 + bb] = ss;
    }
  }
  team.team_barrier();
  if (tr < 16) {  // numbers 4..11 are maxima, the others sums
    const bool is_max = tr >= 4 && tr < 12;
    std::int64_t acc = 0;
    for (int w = 0; w < T / 32; ++w) {
      const std::int64_t v = sh[w * 16 + tr];
      acc = is_max ? (v > acc ? v : acc) : acc + v;
    }
    std::int64_t* dst = &stats((team.league_rank() % kPlanSlots) * 16 + tr);
    if (acc != 0) {
      if (is_max)
        Kokkos::atomic_fetch_max(dst, acc);
      else
        kkperm::atomic_add_i64(dst, acc);
    }
  }
}

/// The key kernel of build_plan_cuda: L lanes a row (1: a row a thread; 32: a warp a row), each
/// lane group taking `rounds` rows one after another (plan_rounds_for). Writes work(i) = F_i, keys(i) = bin, rows(i) = perm(i) = i (perm is final when the rows keep
/// their order; the sort overwrites it otherwise). Every index it follows is guarded (A's row
/// range clipped to A's entries, B's row skipped when outside B): the input may not be validated
/// yet (PendingVerdict); on valid input the guards change nothing.
template <int L, class RA, class EA, class RB, class WorkView, class KeyView, class RowView, class PermView,
          class StatView>
void plan_keys_launch(const RA& rowA, const EA& entA, const RB& rowB, const WorkView& work, const KeyView& keys,
                      const RowView& rows, const PermView& perm, const StatView& stats, std::int64_t n,
                      std::int64_t t0, std::int64_t t1, std::int64_t t2, int rounds) {
  using policy_t = kkperm::team_policy<Kokkos::Cuda>;
  using member_t = typename policy_t::member_type;
  constexpr int T = 256;
  constexpr std::int64_t groups = T / L;  // rows in flight a team
  const std::int64_t rows_per_team = groups * rounds;
  const std::int64_t nnz_a = static_cast<std::int64_t>(entA.extent(0));
  const std::int64_t n_b = static_cast<std::int64_t>(rowB.extent(0)) - 1;
  policy_t policy(static_cast<int>((n + rows_per_team - 1) / rows_per_team), T);
  policy.set_scratch_size(0, Kokkos::PerTeam(sizeof(std::int64_t) * 16 * (T / 32)));
  kkperm::parallel_for(
      "kkperm::spgemm::esc::work_bin_keys", policy, KOKKOS_LAMBDA(const member_t& team) {
        // L lanes a row, `rounds` rows a lane group; warps combine with shuffles, the team
        // through scratch, and 16 threads add the team's 16 numbers to stat slot (team % kPlanSlots)
        std::int64_t c[4] = {0, 0, 0, 0}, mw[4] = {0, 0, 0, 0}, mk[4] = {0, 0, 0, 0}, sw[4] = {0, 0, 0, 0};
        const int lane_w = team.team_rank() % L;
        const std::int64_t base = std::int64_t(team.league_rank()) * rows_per_team + team.team_rank() / L;
        for (int r = 0; r < rounds; ++r) {  // (the same count on every lane: the shuffles below)
          const std::int64_t i = base + r * groups;
          std::int64_t f = 0, ka = 0;
          if (i < n) {
            const std::int64_t a0 = static_cast<std::int64_t>(rowA(i)), a1 = static_cast<std::int64_t>(rowA(i + 1));
            ka = a1 - a0;
            const std::int64_t lo = a0 < 0 ? 0 : a0, hi = a1 < nnz_a ? a1 : nnz_a;
            for (std::int64_t p = lo + lane_w; p < hi; p += L) {
              const std::int64_t k = static_cast<std::int64_t>(entA(p));
              if (k >= 0 && k < n_b) f += static_cast<std::int64_t>(rowB(k + 1) - rowB(k));
            }
          }
          // every lane reaches the shuffles (rows past n add 0); the group's lanes sum its row
          if (L > 1) f = kkperm::detail::warp_sum(f, L);
          if (i < n && lane_w == 0) plan_row_out(i, f, ka, t0, t1, t2, work, keys, rows, perm, c, mw, mk, sw);
        }
        auto* sh = static_cast<std::int64_t*>(team.team_scratch(0).get_shmem(sizeof(std::int64_t) * 16 * (T / 32)));
        plan_team_stats<L, T>(team, sh, c, mw, mk, sw, stats);
      });
}

/// The key kernel of build_plan_cuda for short rows (a row a lane, EscConfig::plan_row_chunks): a
/// warp takes 32 consecutive rows, a lane each, and walks their entries together, kChunk at a
/// time. Lane l loads entries c0 + l + 32u (u < 8: coalesced, all in flight before any use), then
/// the offsets of the B rows they name; a warp scan of those lengths in entry order goes to the
/// warp's scratch as prefix sums, and each lane adds the part of its row inside the chunk as the
/// difference of two of them. Writes what plan_keys_launch writes.
/// Why: with a row a thread each thread walks its row one entry after another, each step a load of
/// A's column and then of B's row offsets, and a warp's 32 loads land in 32 rows' cache lines
/// (traced on the H100, run 235: 2D 5-point AP, 10^6 rows of 5 entries, 76 µs; 2D R(AP), 144 k
/// rows of 17, 36 µs).
/// Input not yet validated (PendingVerdict): a warp whose rows are not contiguous, monotone and
/// within A's entries gives them F = 0 (the verdict throws before the plan is used), so a warp
/// reads only its own rows' entries and no index it follows leaves A or B.
template <class RA, class EA, class RB, class WorkView, class KeyView, class RowView, class PermView, class StatView>
void plan_keys_chunks_launch(const RA& rowA, const EA& entA, const RB& rowB, const WorkView& work, const KeyView& keys,
                             const RowView& rows, const PermView& perm, const StatView& stats, std::int64_t n,
                             std::int64_t t0, std::int64_t t1, std::int64_t t2) {
  using policy_t = kkperm::team_policy<Kokkos::Cuda>;
  using member_t = typename policy_t::member_type;
  constexpr int T = 256, W = 32, kChunk = 256, kU = kChunk / W;
  constexpr int kBuf = kChunk + 8;  // prefix sums 0..kChunk of a chunk (a warp's share, padded)
  constexpr std::size_t stat_words = 16 * (T / 32), bytes = sizeof(std::int64_t) * (stat_words + kBuf * (T / W));
  const std::int64_t nnz_a = static_cast<std::int64_t>(entA.extent(0));
  const std::int64_t n_b = static_cast<std::int64_t>(rowB.extent(0)) - 1;
  policy_t policy(static_cast<int>((n + T - 1) / T), T);
  policy.set_scratch_size(0, Kokkos::PerTeam(bytes));
  kkperm::parallel_for(
      "kkperm::spgemm::esc::work_bin_keys_chunks", policy, KOKKOS_LAMBDA(const member_t& team) {
        namespace d = kkperm::detail;
        const int tr = team.team_rank(), lane = tr % W, warp = tr / W;
        auto* sh = static_cast<std::int64_t*>(team.team_scratch(0).get_shmem(bytes));
        std::int64_t* buf = sh + stat_words + warp * kBuf;
        const std::int64_t r0 = std::int64_t(team.league_rank()) * T + std::int64_t(warp) * W;  // the warp's rows
        const std::int64_t i = r0 + lane;
        const bool live = i < n;
        std::int64_t a0 = 0, a1 = 0;
        if (live) {
          a0 = static_cast<std::int64_t>(rowA(i));
          a1 = static_cast<std::int64_t>(rowA(i + 1));
        }
        const int nlive = r0 >= n ? 0 : (n - r0 < W ? static_cast<int>(n - r0) : W);
        const std::int64_t before = d::warp_shfl_idx(a1, lane > 0 ? lane - 1 : 0, W);
        const bool bad = live && (a0 < 0 || a1 < a0 || a1 > nnz_a || (lane > 0 && a0 != before));
        std::int64_t f = 0;
        if (d::warp_ballot(bad) == 0u && nlive > 0) {
          const std::int64_t e0 = d::warp_shfl_idx(a0, 0, W), e1 = d::warp_shfl_idx(a1, nlive - 1, W);
          for (std::int64_t c0 = e0; c0 < e1; c0 += kChunk) {
            std::int64_t len[kU];
#pragma unroll
            for (int u = 0; u < kU; ++u) {  // A's columns first, then B's offsets: all in flight
              const std::int64_t p = c0 + lane + std::int64_t(W) * u;
              len[u] = p < e1 ? static_cast<std::int64_t>(entA(p)) : -1;
            }
#pragma unroll
            for (int u = 0; u < kU; ++u) {
              const std::int64_t k = len[u];
              len[u] = k >= 0 && k < n_b ? static_cast<std::int64_t>(rowB(k + 1) - rowB(k)) : 0;
            }
            std::int64_t run = 0;  // the chunk's entries before round u
#pragma unroll
            for (int u = 0; u < kU; ++u) {
              const std::int64_t ex = d::warp_exclusive_scan(len[u], lane, W);
              buf[1 + lane + W * u] = run + ex + len[u];
              run += d::warp_shfl_idx(ex + len[u], W - 1, W);
            }
            if (lane == 0) buf[0] = 0;
            d::sync_warp_lanes();
            const std::int64_t lo = a0 > c0 ? a0 : c0, hi = a1 < c0 + kChunk ? a1 : c0 + kChunk;
            if (live && hi > lo) f += buf[hi - c0] - buf[lo - c0];
            d::sync_warp_lanes();  // the next chunk overwrites buf
          }
        }
        std::int64_t c[4] = {0, 0, 0, 0}, mw[4] = {0, 0, 0, 0}, mk[4] = {0, 0, 0, 0}, sw[4] = {0, 0, 0, 0};
        if (live) plan_row_out(i, f, a1 - a0, t0, t1, t2, work, keys, rows, perm, c, mw, mk, sw);
        plan_team_stats<1, T>(team, sh, c, mw, mk, sw, stats);
      });
}

/// analyze_and_plan on CUDA: one kernel computes each row's F_i into work(i) (plan_lanes_for's
/// lanes a row from EscConfig::plan_lanes `plan_lanes`; a row a lane, when that gives one lane a
/// row and `row_chunks`: plan_keys_chunks_launch), its bin key and, per bin, the row count, the largest F_i and nnz(A row) and
/// Σ F_i (warp shuffles, then the team through scratch: 16 threads add the team's 16 numbers to
/// one of kPlanSlots copies, summed on the host); one copy brings the numbers to the host (with
/// the pending validation verdicts, decided first); a 2-bit radix sort of (bin, row) pairs
/// (stable) gives perm, unless keep_order (then the key kernel's perm(i) = i stands).
/// Temporaries come from the reusable workspace. Why: the four Kokkos scans and reductions of
/// the portable form cost 12 launches and 8 host waits — 110 µs of kernels for the 144 k rows of
/// an AMG restriction (H100 run 96) plus the waits; with row_work fused in there is no separate
/// kernel, reduction or host wait for F_i (Σ F and max F come from the per-bin sums and maxima).
/// With an atomic per warp on the same 16 addresses the fused kernel took 167 µs for the 10^6
/// rows of the 2D AP (H100 run 114, ncu) against 56 + 50 µs for row_work and an 8-row key kernel.
/// `after_keys()` runs on the host right after the key kernel is enqueued (a phase mark; a
/// std::function: nvcc refuses a local lambda type among the template arguments of a function
/// holding an extended lambda).
template <class RA, class EA, class RB, class WorkView, class PermView>
bool build_plan_cuda(const RA& rowA, const EA& entA, const RB& rowB, const WorkView& work, const PermView& perm,
                     std::int64_t n, std::int64_t t0, std::int64_t t1, std::int64_t t2, int plan_lanes,
                     bool row_chunks, std::int64_t bin_off[5], std::int64_t bin_max_work[4], std::int64_t bin_max_ka[4],
                     std::int64_t bin_sum_work[4], const std::function<void()>& after_keys,
                     const std::function<bool(const std::int64_t*)>& keep_order, const PendingVerdict& pending,
                     const std::function<void()>& behind, const std::function<void(std::int64_t*)>& sample,
                     std::int64_t sample_out[2]) {
  using Exec = Kokkos::Cuda;
  using mem_t = typename PermView::memory_space;
  using ws_t = kkperm::detail::Workspace<mem_t>;
  using idx_t = typename PermView::non_const_value_type;
  const Exec exec;
  std::size_t sort_bytes = 0;
  cudaError_t err = cub::DeviceRadixSort::SortPairs(
      nullptr, sort_bytes, static_cast<const unsigned char*>(nullptr), static_cast<unsigned char*>(nullptr),
      static_cast<const idx_t*>(nullptr), static_cast<idx_t*>(nullptr), static_cast<int>(n), 0, 2,
      exec.cuda_stream());
  if (err != cudaSuccess)
    KKPERM_THROW(std::runtime_error, "kkperm::spgemm_symbolic: cub radix sort (size query) failed: "
                                         << cudaGetErrorString(err));
  // per slot: count[4], max work[4], max ka[4], sum work[4]; then the two words of `sample`
  constexpr int kStatWords = 16 * kPlanSlots + 2;
  ws_t ws(ws_t::template bytes_for<std::int64_t>(kStatWords) + 2 * ws_t::template bytes_for<unsigned char>(n) +
          ws_t::template bytes_for<idx_t>(n) + ws_t::template bytes_for<unsigned char>(sort_bytes));
  const auto from = ws.mark();
  auto stats = ws.template take<std::int64_t>(kStatWords);
  ws.template zero_since<Exec>(from);
  auto keys = ws.template take<unsigned char>(n);
  auto keys_out = ws.template take<unsigned char>(n);
  auto rows = ws.template take<idx_t>(n);
  auto temp = ws.template take<unsigned char>(sort_bytes);
  const int lanes = plan_lanes_for(n, static_cast<std::int64_t>(entA.extent(0)), plan_lanes);
  // session 30's rule (plan_lanes -1) kept its teams: a row a lane group (8 rows a team a warp a row)
  const int rounds =
      plan_lanes < 0 ? 1 : plan_rounds_for(n, lanes, static_cast<std::int64_t>(exec.concurrency()) / 256);
  switch (lanes == 1 && row_chunks ? 0 : lanes) {
    case 0: plan_keys_chunks_launch(rowA, entA, rowB, work, keys, rows, perm, stats, n, t0, t1, t2); break;
    case 32: plan_keys_launch<32>(rowA, entA, rowB, work, keys, rows, perm, stats, n, t0, t1, t2, rounds); break;
    case 16: plan_keys_launch<16>(rowA, entA, rowB, work, keys, rows, perm, stats, n, t0, t1, t2, rounds); break;
    case 8: plan_keys_launch<8>(rowA, entA, rowB, work, keys, rows, perm, stats, n, t0, t1, t2, rounds); break;
    case 4: plan_keys_launch<4>(rowA, entA, rowB, work, keys, rows, perm, stats, n, t0, t1, t2, rounds); break;
    case 2: plan_keys_launch<2>(rowA, entA, rowB, work, keys, rows, perm, stats, n, t0, t1, t2, rounds); break;
    case 1: plan_keys_launch<1>(rowA, entA, rowB, work, keys, rows, perm, stats, n, t0, t1, t2, rounds); break;
    default:
      KKPERM_THROW(std::invalid_argument, "kkperm::spgemm_symbolic: analysis lanes a row must be 1, 2, 4, 8, 16 "
                                          "or 32, not "
                                              << lanes);
  }
  // the column-window sample rides on the same read-back
  if (sample) sample(stats.data() + 16 * kPlanSlots);
  after_keys();
  std::int64_t hs[kStatWords];
  {
    const kkperm::detail::TraceRegion region("kkperm::spgemm::esc::plan_read_back");
    std::uint64_t hv[4] = {0, 0, 0, 0};
    kkperm::detail::read_back2<Exec>(hs, stats.data(), sample ? kStatWords : 16 * kPlanSlots, hv, pending.words,
                                     pending.words != nullptr ? 4 : 0, "kkperm::spgemm_symbolic (bin plan)", behind);
    if (pending.words != nullptr) pending.decide(hv);  // throws for an invalid A or B
  }
  sample_out[0] = sample ? hs[16 * kPlanSlots] : 0;
  sample_out[1] = sample ? hs[16 * kPlanSlots + 1] : 0;
  std::int64_t h[16] = {};
  for (int sl = 0; sl < kPlanSlots; ++sl)
    for (int q = 0; q < 16; ++q) {
      const std::int64_t v = hs[sl * 16 + q];
      h[q] = q >= 4 && q < 12 ? (v > h[q] ? v : h[q]) : h[q] + v;
    }
  bin_off[0] = 0;
  for (int b = 0; b < 4; ++b) {
    bin_off[b + 1] = bin_off[b] + h[b];
    bin_max_work[b] = h[4 + b];
    bin_max_ka[b] = h[8 + b];
    bin_sum_work[b] = h[12 + b];
  }
  // The bins known, the sort only when the caller needs the rows grouped (its kernels take
  // several bins apart); else perm is the identity the key kernel wrote.
  if (keep_order(bin_off)) return false;
  const kkperm::detail::TraceRegion region("kkperm::spgemm::esc::plan_sort (cub)");
  err = cub::DeviceRadixSort::SortPairs(temp.data(), sort_bytes, keys.data(), keys_out.data(), rows.data(),
                                        perm.data(), static_cast<int>(n), 0, 2, exec.cuda_stream());
  if (err != cudaSuccess)
    KKPERM_THROW(std::runtime_error, "kkperm::spgemm_symbolic: cub radix sort failed: " << cudaGetErrorString(err));
  return true;
}
#endif

/// Groups rows by bin (stable within a bin): perm[bin_off[b] .. bin_off[b+1]) = rows of bin b
/// in increasing row order. Also returns per bin max F_i, max nnz(A row) and Σ F_i. The portable
/// form (host backends; on CUDA only outside build_plan_cuda's int range), work(i) given.
template <class Exec, class RA, class WorkView, class PermView>
void build_plan(const RA& rowA, const WorkView& work, const PermView& perm, std::int64_t n,
                std::int64_t t0, std::int64_t t1, std::int64_t t2, std::int64_t bin_off[5],
                std::int64_t bin_max_work[4], std::int64_t bin_max_ka[4], std::int64_t bin_sum_work[4]) {
  bin_off[0] = 0;
  for (int b = 0; b < 4; ++b) {
    const std::int64_t base = bin_off[b];
    std::int64_t count = 0;
    Kokkos::parallel_scan(
        "kkperm::spgemm::esc::bin_scan", kkperm::range_policy<Exec>(0, n),
        KOKKOS_LAMBDA(const std::int64_t i, std::int64_t& upd, const bool final) {
          const std::int64_t ka = static_cast<std::int64_t>(rowA(i + 1) - rowA(i));
          const std::int64_t w = work(i) > ka ? work(i) : ka;
          if (bin_of(w, t0, t1, t2) == b) {
            if (final) perm(base + upd) = static_cast<typename PermView::value_type>(i);
            upd += 1;
          }
        },
        count);
    bin_off[b + 1] = base + count;
    std::int64_t mw = 0, mk = 0, sw = 0;
    Kokkos::parallel_reduce(
        "kkperm::spgemm::esc::bin_max", kkperm::range_policy<Exec>(base, base + count),
        KOKKOS_LAMBDA(const std::int64_t p, std::int64_t& a, std::int64_t& c, std::int64_t& u) {
          const auto i = perm(p);
          const std::int64_t ka = static_cast<std::int64_t>(rowA(i + 1) - rowA(i));
          if (work(i) > a) a = work(i);
          if (ka > c) c = ka;
          u += work(i);
        },
        Kokkos::Max<std::int64_t>(mw), Kokkos::Max<std::int64_t>(mk), sw);
    bin_max_work[b] = mw;
    bin_max_ka[b] = mk;
    bin_sum_work[b] = sw;
  }
}

/// Analysis and bin plan together: work(i) = F_i, perm/bin_* as build_plan, and {Σ F_i, max F_i}.
/// On CUDA one fused kernel (build_plan_cuda) and one host wait; elsewhere row_work then
/// build_plan. `after_work()` runs on the host once F_i is enqueued or computed (before the sort
/// that groups the rows: a phase mark between analysis and reorder). `keep_order(bin_off)`, asked
/// once the bins are known: true when the caller's kernels do not need the rows grouped by bin;
/// then perm is the identity (on CUDA the sort is skipped) and `identity` is set. `lanes`: the
/// CUDA key kernel's lanes a row (0: plan_lanes_for's choice); `row_chunks`: where that is one,
/// plan_keys_chunks_launch instead (EscConfig::plan_row_chunks). `pending`: validation verdicts
/// still in flight, decided before the plan is used (on CUDA read back with it; elsewhere first).
/// `behind()`: host code enqueuing device work that needs work(i) but not the plan; on CUDA it
/// runs while the host waits for the plan's read-back (read_back2), elsewhere after F_i.
/// `sample(words)` (optional): enqueues device work writing two words at `words` (zeroed; e.g.
/// window_sample) that come back with the plan into sample_out[0, 2) (on CUDA launched behind the
/// key kernel and read back with its numbers, elsewhere read back before F_i); sample_out gets
/// zeros without it.
template <class Exec, class RA, class EA, class RB, class WorkView, class PermView>
std::array<std::int64_t, 2> analyze_and_plan(const RA& rowA, const EA& entA, const RB& rowB, const WorkView& work,
                                             const PermView& perm, std::int64_t n, std::int64_t t0, std::int64_t t1,
                                             std::int64_t t2, std::int64_t bin_off[5], std::int64_t bin_max_work[4],
                                             std::int64_t bin_max_ka[4], std::int64_t bin_sum_work[4],
                                             const std::function<void()>& after_work,
                                             const std::function<bool(const std::int64_t*)>& keep_order,
                                             bool& identity, int lanes = 0, bool row_chunks = true,
                                             const PendingVerdict& pending = {},
                                             const std::function<void()>& behind = {},
                                             const std::function<void(std::int64_t*)>& sample = {},
                                             std::int64_t* sample_out = nullptr) {
  std::int64_t sum = 0, maxw = 0;
  bool fused = false;
  std::int64_t sampled[2] = {0, 0};
#if defined(KOKKOS_ENABLE_CUDA)
  if constexpr (std::is_same_v<Exec, Kokkos::Cuda>) {
    if (n > 0 && n <= std::int64_t(std::numeric_limits<int>::max())) {
      identity = !build_plan_cuda(rowA, entA, rowB, work, perm, n, t0, t1, t2, lanes, row_chunks, bin_off, bin_max_work,
                                  bin_max_ka, bin_sum_work, after_work, keep_order, pending, behind, sample, sampled);
      for (int b = 0; b < 4; ++b) {
        sum += bin_sum_work[b];
        maxw = bin_max_work[b] > maxw ? bin_max_work[b] : maxw;
      }
      fused = true;
    }
  }
#endif
  if (!fused) {
    if (pending.words != nullptr) {  // the portable passes index through A and B unguarded
      std::uint64_t hv[4] = {0, 0, 0, 0};
      kkperm::detail::read_back<Exec>(hv, pending.words, 4, "kkperm::spgemm_symbolic (validation)");
      pending.decide(hv);
    }
    (void)lanes;
    (void)row_chunks;
    if (sample) {
      Kokkos::View<std::int64_t*, typename WorkView::memory_space> words("kkperm::esc::window_sample", 2);
      sample(words.data());
      kkperm::detail::read_back<Exec>(sampled, words.data(), 2, "kkperm::spgemm_symbolic (window sample)");
    }
    row_work<Exec>(rowA, entA, rowB, work, n, sum, maxw);
    after_work();
    if (behind) behind();
    build_plan<Exec>(rowA, work, perm, n, t0, t1, t2, bin_off, bin_max_work, bin_max_ka, bin_sum_work);
    identity = keep_order(bin_off);
    if (identity) identity_perm<Exec>(perm, n);  // (the grouped order is not needed)
  }
  if (sample_out != nullptr) {
    sample_out[0] = sampled[0];
    sample_out[1] = sampled[1];
  }
  return {sum, maxw};
}

/// In-place heap sort of keys[0, n) (carrying vals): O(n log n) for one-thread teams (host
/// backends), where a bitonic network's O(n log² n) on the padded length would dominate.
template <class K, class V>
KOKKOS_INLINE_FUNCTION void serial_heap_sort(K* keys, V* vals, std::int64_t n, bool with_vals) {
  auto sift = [&](std::int64_t root, std::int64_t end) {
    while (2 * root + 1 < end) {
      std::int64_t c = 2 * root + 1;
      if (c + 1 < end && keys[c] < keys[c + 1]) ++c;
      if (!(keys[root] < keys[c])) return;
      const K tk = keys[root];
      keys[root] = keys[c];
      keys[c] = tk;
      if (with_vals) {
        const V tv = vals[root];
        vals[root] = vals[c];
        vals[c] = tv;
      }
      root = c;
    }
  };
  for (std::int64_t s = n / 2 - 1; s >= 0; --s) sift(s, n);
  for (std::int64_t e = n - 1; e > 0; --e) {
    const K tk = keys[0];
    keys[0] = keys[e];
    keys[e] = tk;
    if (with_vals) {
      const V tv = vals[0];
      vals[0] = vals[e];
      vals[e] = tv;
    }
    sift(0, e);
  }
}

/// Team-wide bitonic sort of keys[0, P) (P a power of two), carrying vals when with_vals.
/// One-thread teams (host backends) heap-sort instead (same result: the padding sentinels are
/// the largest keys and stay at the end).
template <class Team, class K, class V>
KOKKOS_INLINE_FUNCTION void team_bitonic_sort(const Team& team, K* keys, V* vals, std::int64_t P,
                                              bool with_vals) {
  if (team.team_size() == 1) {
    serial_heap_sort(keys, vals, P, with_vals);
    return;
  }
  for (std::int64_t size = 2; size <= P; size <<= 1) {
    for (std::int64_t stride = size >> 1; stride > 0; stride >>= 1) {
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, P / 2), [&](const std::int64_t t) {
        const std::int64_t i = 2 * t - (t & (stride - 1));
        const std::int64_t j = i + stride;
        const bool asc = (i & size) == 0;
        const K ki = keys[i], kj = keys[j];
        if (asc ? (ki > kj) : (ki < kj)) {
          keys[i] = kj;
          keys[j] = ki;
          if (with_vals) {
            const V tmp = vals[i];
            vals[i] = vals[j];
            vals[j] = tmp;
          }
        }
      });
      team.team_barrier();
    }
  }
}

/// One compare-exchange of the all-ascending ("flip") bitonic network on keys[0, n), padded
/// virtually with +inf to a power of two: comparator t of the step (size, stride); stride ==
/// size/2 is the flip step (i against the mirror of i in its size-block), smaller strides are
/// half-cleaners. A comparator whose upper element lies beyond n never swaps (+inf is in order),
/// so no padding is stored. Run t over [0, next_pow2(n)/2) per step, barrier between steps.
/// size and stride are powers of two, so the comparator's lower element is 2t - (t mod stride)
/// in both kinds of step and no division is needed (session 19: the form with t / stride put a
/// 64-bit division in every flip step of the warp-row count pass). I: the index type (int where
/// the caller's rows are known to be small: 32-bit arithmetic).
template <class K, class V, class I>
KOKKOS_INLINE_FUNCTION void flip_bitonic_step(K* keys, V* vals, I n, I size, I stride, I t,
                                              bool with_vals) {
  const I off = t & (stride - 1);
  const I i = 2 * t - off;
  const I j = stride == (size >> 1) ? i + size - 1 - 2 * off : i + stride;
  if (j < n && keys[j] < keys[i]) {
    const K tk = keys[i];
    keys[i] = keys[j];
    keys[j] = tk;
    if (with_vals) {
      const V tv = vals[i];
      vals[i] = vals[j];
      vals[j] = tv;
    }
  }
}

/// Team-wide sort of keys[0, n) for any n (flip bitonic network, no padding storage); one-thread
/// teams heap-sort. Works on scratch or global memory (team barriers order the steps).
template <class Team, class K, class V>
KOKKOS_INLINE_FUNCTION void team_sort_n(const Team& team, K* keys, V* vals, std::int64_t n,
                                        bool with_vals) {
  if (team.team_size() == 1) {
    serial_heap_sort(keys, vals, n, with_vals);
    return;
  }
  const std::int64_t P = next_pow2_dev(n > 0 ? n : 1);
  for (std::int64_t size = 2; size <= P; size <<= 1) {
    for (std::int64_t stride = size >> 1; stride > 0; stride >>= 1) {
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, P / 2), [&](const std::int64_t t) {
        flip_bitonic_step(keys, vals, n, size, stride, t, with_vals);
      });
      team.team_barrier();
    }
  }
}

/// Moves the occupied slots (not `empty`) of the scratch table table[0, H) to its front,
/// unordered (a sort follows), by the whole team: kCompactPerThread × team-size slots a round,
/// every thread reads its slots, a barrier, the occupied ones go to table[(*counter)++] (positions
/// below the round's end: slots every thread has read), another barrier. *counter (scratch) is 0
/// on entry, visible to the team, and ends at the number of occupied slots.
inline constexpr int kCompactPerThread = 4;
template <class Team, class O>
KOKKOS_INLINE_FUNCTION void team_compact_table(const Team& team, O* table, std::int64_t H, O empty, int* counter) {
  const std::int64_t ts = team.team_size();
  for (std::int64_t b = 0; b < H; b += kCompactPerThread * ts) {
    O c[kCompactPerThread];
#pragma unroll
    for (int u = 0; u < kCompactPerThread; ++u) {
      const std::int64_t t = b + u * ts + team.team_rank();
      c[u] = t < H ? table[t] : empty;
    }
    team.team_barrier();
#pragma unroll
    for (int u = 0; u < kCompactPerThread; ++u)
      if (c[u] != empty) table[Kokkos::atomic_fetch_add(counter, 1)] = c[u];
    team.team_barrier();
  }
}

/// hash_slots(F) on the device for a row's F that fits an int (warp- and block-row tables).
KOKKOS_INLINE_FUNCTION int hash_slots32(int F) {
  int H = 1;
  while (H < F + (F >> 2) + 1) H <<= 1;
  return H;
}

/// Position of column c in the sorted range ent[b, e), or -1.
template <class Ent, class O>
KOKKOS_INLINE_FUNCTION std::int64_t find_col(const Ent& ent, std::int64_t b, std::int64_t e, O c) {
  std::int64_t lo = b, hi = e;
  while (lo < hi) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    if (ent(mid) < c) lo = mid + 1;
    else hi = mid;
  }
  return (lo < e && ent(lo) == c) ? lo - b : -1;
}

/// Largest k in [0, ka) with pre[k] <= t (pre non-decreasing, pre[ka] > t).
template <class Pre>
KOKKOS_INLINE_FUNCTION std::int64_t find_segment(const Pre* pre, std::int64_t ka, std::int64_t t) {
  std::int64_t lo = 0, hi = ka - 1;
  while (lo < hi) {
    const std::int64_t mid = lo + (hi - lo + 1) / 2;
    if (pre[mid] <= t) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/// Views of one ESC call bundled for the kernels (all device views).
template <class Matrix, class PermView, class WorkView, class CntView, class RowMapC_, class EntC_,
          class ValC_>
struct EscArgs {
  using RowMapC = RowMapC_;
  using EntC = EntC_;
  using ValC = ValC_;
  typename Matrix::row_map_type rowA, rowB;
  typename Matrix::index_type entA, entB;
  typename Matrix::values_type valA, valB;
  PermView perm;
  WorkView work;    ///< F_i per original row
  CntView cnt;      ///< per output row count (symbolic count pass), indexed by destination row
  RowMapC rowC;     ///< destination row_map (direct: C's; permuted: C in permuted order)
  EntC entC;
  ValC valC;
  bool direct = true;  ///< destination row of position p: perm(p) if direct, else p
  bool drop = false;
  /// perm is the identity (one bin, or the thread bin folded into the only other one): the
  /// kernels take p as the row and skip the load of perm(p), one link of each row's chain of
  /// dependent loads (EscSpgemm::analyze)
  bool ident = false;
  /// The row of plan position p.
  KOKKOS_INLINE_FUNCTION typename PermView::non_const_value_type row_at(const std::int64_t p) const {
    return ident ? static_cast<typename PermView::non_const_value_type>(p) : perm(p);
  }
};

/// Level-0 scratch bytes of the tiled product loop below for a team of `team_size` threads.
inline std::size_t tiled_scratch_bytes(int team_size) {
  return static_cast<std::size_t>(team_size + 1) * sizeof(std::int64_t) + 128;
}

/// Calls body(pa, q) -> std::int64_t for every product a(pa)·b(q) of A's row [a0, a0+ka), the
/// products flattened across the team: A's row is taken in tiles of team_size entries, an
/// inclusive scan of their B-row lengths goes to pre[0..tile] (team scratch, team_size+1 int64),
/// and thread t of the tile's products finds its A entry by binary search. Every thread gets an
/// equal share of products and consecutive threads read consecutive entries of B (coalesced),
/// unlike one thread per A entry. Returns the team-wide sum of body's results.
template <class Team, class Args, class Body>
KOKKOS_INLINE_FUNCTION std::int64_t for_each_product_tiled(const Team& team, const Args& g,
                                                           std::int64_t a0, std::int64_t ka,
                                                           std::int64_t* pre, const Body& body) {
  const std::int64_t T = team.team_size();
  std::int64_t total = 0;
  for (std::int64_t s0 = 0; s0 < ka; s0 += T) {
    const std::int64_t sn = ka - s0 < T ? ka - s0 : T;
    Kokkos::parallel_scan(Kokkos::TeamThreadRange(team, sn),
                          [&](const std::int64_t t, std::int64_t& upd, const bool final) {
                            const auto k = g.entA(a0 + s0 + t);
                            const std::int64_t len =
                                static_cast<std::int64_t>(g.rowB(k + 1) - g.rowB(k));
                            if (final) {
                              pre[t + 1] = upd + len;
                              if (t == 0) pre[0] = 0;
                            }
                            upd += len;
                          });
    team.team_barrier();
    const std::int64_t products = pre[sn];
    std::int64_t part = 0;
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(team, products),
        [&](const std::int64_t t, std::int64_t& acc) {
          const std::int64_t s = find_segment(pre, sn, t);
          const std::int64_t pa = a0 + s0 + s;
          const auto k = g.entA(pa);
          acc += body(pa, static_cast<std::int64_t>(g.rowB(k)) + (t - pre[s]));
        },
        part);
    total += part;
    team.team_barrier();  // pre is rewritten by the next tile
  }
  return total;
}

/// Multiplicative hash of a column into [0, H), H a power of two.
KOKKOS_INLINE_FUNCTION std::int64_t hash_col(std::int64_t c, std::int64_t H) {
  std::uint64_t h = static_cast<std::uint64_t>(c) * 0x9E3779B97F4A7C15ull;
  h ^= h >> 29;
  return static_cast<std::int64_t>(h & static_cast<std::uint64_t>(H - 1));
}

/// Linear probing from slot h of the open-addressing table keys[0, H) (H a power of two; empty
/// slots hold `empty`): 1 when this call inserted c, 0 when it was already there. A plain read of
/// the slot comes first: a column already there returns without an atomic. Rows with many
/// products a column (an R(AP) row has ~7 to ~150 products per column of C) would otherwise have
/// their threads' CAS on the same few slots serialize.
template <class O, class I>
KOKKOS_INLINE_FUNCTION int hash_probe_insert(O* keys, I H, O c, O empty, I h) {
  while (true) {
    const O seen = static_cast<volatile O*>(keys)[h];
    if (seen == c) return 0;
    if (seen != empty) {
      h = (h + 1) & (H - 1);
      continue;
    }
    const O prev = Kokkos::atomic_compare_exchange(&keys[h], empty, c);
    if (prev == empty) return 1;
    if (prev == c) return 0;
    h = (h + 1) & (H - 1);
  }
}

/// Inserts column c into the open-addressing table keys[0, H) (atomic CAS, hash_probe_insert);
/// 1 when this call inserted it, 0 when it was already there.
template <class O>
KOKKOS_INLINE_FUNCTION std::int64_t hash_insert(O* keys, std::int64_t H, O c, O empty) {
  return hash_probe_insert(keys, H, c, empty, hash_col(static_cast<std::int64_t>(c), H));
}

/// hash_col and hash_insert for the small tables of the warp-row kernels (H <= 2^30 slots, a
/// power of two): 32-bit multiply, shift and probe (the 64-bit forms cost several instructions
/// each in a pass that is bound by issue and latency, not bandwidth).
KOKKOS_INLINE_FUNCTION int hash_col32(std::uint32_t c, int H) {
  std::uint32_t h = c * 0x9E3779B1u;
  h ^= h >> 15;
  return static_cast<int>(h & static_cast<std::uint32_t>(H - 1));
}
template <class O>
KOKKOS_INLINE_FUNCTION int hash_insert32(O* keys, int H, O c, O empty) {
  return hash_probe_insert(keys, H, c, empty, hash_col32(static_cast<std::uint32_t>(c), H));
}

/// Position of column c in cols[0, nc) (sorted, in scratch), or -1.
template <class O>
KOKKOS_INLINE_FUNCTION int staged_col_pos(const O* cols, int nc, O c) {
  int lo = 0, hi = nc;
  while (lo < hi) {
    const int mid = (lo + hi) >> 1;
    if (cols[mid] < c) lo = mid + 1;
    else hi = mid;
  }
  return lo < nc && cols[lo] == c ? lo : -1;
}

// ---------------------------------------------------------------------------------------------
// Symbolic: count (fill == false) or write sorted unique columns (fill == true).
// ---------------------------------------------------------------------------------------------

/// Bin 0 symbolic: one thread per row, F <= max_f products expanded into its scratch arrays with
/// insertion (expansion and sort in one sweep), contracted, counted or written.
template <class Exec, class Args>
void symbolic_thread_bin(const Args& g, std::int64_t begin, std::int64_t end, std::int64_t max_f,
                         bool fill, bool with_vals = false) {
  using O = typename Args::EntC::non_const_value_type;
  using V = typename Args::ValC::non_const_value_type;
  using member_t = typename kkperm::team_policy<Exec>::member_type;
  if (end <= begin) return;
  const std::int64_t cap = max_f > 0 ? max_f : 1;
  const auto rowA = g.rowA, rowB = g.rowB;
  const auto entA = g.entA, entB = g.entB;
  const auto valA = g.valA, valB = g.valB;
  const auto perm = g.perm;
  const auto cnt = g.cnt;
  const auto rowC = g.rowC;
  const auto entC = g.entC;
  const auto valC = g.valC;
  const bool direct = g.direct, drop = g.drop;
  // values carried through the sort and summed: with drop_zeros (the kept set depends on them) or
  // when asked (with_vals: setup()'s fill pass writes C's values, no numeric for these rows)
  const bool carry = drop || (fill && with_vals);
  const std::size_t per_thread = static_cast<std::size_t>(cap) * (sizeof(O) + (carry ? sizeof(V) : 0)) + 16;
  int T = 1;
  const auto policy = row_thread_policy<Exec>(end - begin, per_thread, T);
  kkperm::parallel_for(
      fill ? (carry ? "kkperm::spgemm::esc::symbolic_fill_values_thread" : "kkperm::spgemm::esc::symbolic_fill_thread")
           : "kkperm::spgemm::esc::symbolic_count_thread",
      policy, KOKKOS_LAMBDA(const member_t& team) {
        const int tr = team.team_rank();
        V* vbase = carry ? static_cast<V*>(team.team_scratch(0).get_shmem_aligned(sizeof(V) * T * cap, 8))
                         : nullptr;
        O* cbase = static_cast<O*>(team.team_scratch(0).get_shmem_aligned(sizeof(O) * T * cap, 8));
        const std::int64_t p = begin + std::int64_t(team.league_rank()) * T + tr;
        if (p >= end) return;
        const StridedArray<O> cols{cbase + tr, T};
        const StridedArray<V> vals{carry ? vbase + tr : vbase, T};
        const auto i = perm(p);
        const std::int64_t o = direct ? static_cast<std::int64_t>(i) : p;
        int n = 0;
        for (auto pa = rowA(i); pa < rowA(i + 1); ++pa) {
          const auto k = entA(pa);
          const V a = carry ? valA(pa) : V(0);
          for (auto pb = rowB(k); pb < rowB(k + 1); ++pb) {
            // insertion into the sorted prefix: expansion and sort in one sweep
            const O c = entB(pb);
            const V v = carry ? a * valB(pb) : V(0);
            // (values moved only when carried: otherwise they are never read, and moving them
            // cost local-memory traffic in every insertion)
            int t = n;
            if (carry) {
              while (t > 0 && cols[t - 1] > c) {
                cols[t] = cols[t - 1];
                vals[t] = vals[t - 1];
                --t;
              }
              vals[t] = v;
            } else {
              while (t > 0 && cols[t - 1] > c) {
                cols[t] = cols[t - 1];
                --t;
              }
            }
            cols[t] = c;
            ++n;
          }
        }
        // contraction (segmented sum of equal columns)
        int m = 0;
        for (int t = 0; t < n; ++t) {
          if (m > 0 && cols[m - 1] == cols[t]) {
            if (carry) vals[m - 1] += vals[t];
          } else {
            cols[m] = cols[t];
            if (carry) vals[m] = vals[t];
            ++m;
          }
        }
        if (drop) {
          int z = 0;
          for (int t = 0; t < m; ++t)
            if (vals[t] != V(0)) {
              cols[z] = cols[t];
              vals[z] = vals[t];
              ++z;
            }
          m = z;
        }
        if (!fill) {
          cnt(o) = m;
        } else {
          const std::int64_t base = static_cast<std::int64_t>(rowC(o));
          for (int t = 0; t < m; ++t) entC(base + t) = cols[t];
          if (carry)  // drop_zeros (the structure depends on the values) or with_vals
            for (int t = 0; t < m; ++t) valC(base + t) = vals[t];
        }
      });
}

/// Count or fill the columns of a sorted expanded row keys[0, F) (vals when drop).
template <class Team, class O, class V, class Args>
KOKKOS_INLINE_FUNCTION void contract_row(const Team& team, const O* keys, const V* vals,
                                         std::int64_t F, std::int64_t o, bool fill, bool drop,
                                         const Args& g) {
  auto run_sum = [&](std::int64_t t) {
    V s = vals[t];
    for (std::int64_t u = t + 1; u < F && keys[u] == keys[t]; ++u) s += vals[u];
    return s;
  };
  if (!fill) {
    std::int64_t count = 0;
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(team, F),
        [&](const std::int64_t t, std::int64_t& c) {
          if (t == 0 || keys[t] != keys[t - 1])
            if (!drop || run_sum(t) != V(0)) c += 1;
        },
        count);
    Kokkos::single(Kokkos::PerTeam(team), [&]() { g.cnt(o) = count; });
  } else {
    const std::int64_t base = static_cast<std::int64_t>(g.rowC(o));
    Kokkos::parallel_scan(Kokkos::TeamThreadRange(team, F),
                          [&](const std::int64_t t, std::int64_t& upd, const bool final) {
                            const bool keep = (t == 0 || keys[t] != keys[t - 1]) &&
                                              (!drop || run_sum(t) != V(0));
                            if (keep) {
                              if (final) {
                                g.entC(base + upd) = keys[t];
                                if (drop) g.valC(base + upd) = run_sum(t);
                              }
                              upd += 1;
                            }
                          });
  }
}

/// Bins 1 and 2: one team per row, expanded row in scratch (level 0 when it fits, else 1).
template <class Exec, class Args>
void symbolic_team_bin(const Args& g, std::int64_t begin, std::int64_t end, bool fill,
                       int team_size, std::int64_t max_work, std::int64_t max_ka,
                       int& level_out) {
  using O = typename Args::EntC::non_const_value_type;
  using V = typename Args::ValC::non_const_value_type;
  using policy_t = kkperm::team_policy<Exec>;
  using member_t = typename policy_t::member_type;
  if (end <= begin) return;
  const std::int64_t P = next_pow2(max_work > 0 ? max_work : 1);
  const bool drop = g.drop;
  const std::size_t bytes = static_cast<std::size_t>(P) * sizeof(O) +
                            (drop ? static_cast<std::size_t>(P) * sizeof(V) : 0) +
                            static_cast<std::size_t>(max_ka + 1) * sizeof(int) + 3 * 128;
  const int level = bytes <= static_cast<std::size_t>(policy_t::scratch_size_max(0)) ? 0 : 1;
  level_out = level;
  const O sentinel = std::numeric_limits<O>::max();
  const auto body = KOKKOS_LAMBDA(const member_t& team) {
        const std::int64_t p = begin + team.league_rank();
        const auto i = g.row_at(p);
        const std::int64_t o = g.direct ? static_cast<std::int64_t>(i) : p;
        const std::int64_t a0 = static_cast<std::int64_t>(g.rowA(i));
        const std::int64_t ka = static_cast<std::int64_t>(g.rowA(i + 1)) - a0;
        int* pre = static_cast<int*>(team.team_scratch(level).get_shmem_aligned(sizeof(int) * (ka + 1), 8));
        Kokkos::parallel_scan(Kokkos::TeamThreadRange(team, ka),
                              [&](const std::int64_t t, int& upd, const bool final) {
                                const auto k = g.entA(a0 + t);
                                if (final) pre[t] = upd;
                                upd += static_cast<int>(g.rowB(k + 1) - g.rowB(k));
                              });
        team.team_barrier();
        const std::int64_t F = g.work(i);
        const std::int64_t Pr = next_pow2_dev(F > 0 ? F : 1);
        O* keys = static_cast<O*>(team.team_scratch(level).get_shmem_aligned(sizeof(O) * Pr, 8));
        V* vals = drop ? static_cast<V*>(team.team_scratch(level).get_shmem_aligned(sizeof(V) * Pr, 8))
                       : nullptr;
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, Pr), [&](const std::int64_t t) {
          if (t < F) {
            const std::int64_t s = find_segment(pre, ka, t);
            const auto k = g.entA(a0 + s);
            const auto q = g.rowB(k) + (t - pre[s]);
            keys[t] = g.entB(q);
            if (drop) vals[t] = g.valA(a0 + s) * g.valB(q);
          } else {
            keys[t] = sentinel;
            if (drop) vals[t] = V(0);
          }
        });
        team.team_barrier();
        team_bitonic_sort(team, keys, vals, Pr, drop);
        contract_row(team, keys, vals, F, o, fill, drop, g);
  };
  const int ts = fit_team_size<Exec>(team_size, body, level == 0 ? bytes : 0);
  policy_t policy(static_cast<int>(end - begin), team_size_for<Exec>(ts));
  policy.set_scratch_size(level, Kokkos::PerTeam(bytes));
  kkperm::parallel_for(
      fill ? "kkperm::spgemm::esc::symbolic_fill_team" : "kkperm::spgemm::esc::symbolic_count_team",
      policy, body);
}

/// Bins 1 and 2 without drop_zeros: the row's columns inserted into an open-addressing table in
/// team scratch (hash_slots(F) entries, load <= 0.8) instead of expanding and bitonic-sorting
/// the padded row: the count pass needs no sort at all (count = successful inserts); the fill
/// pass compacts the table in scratch, sorts the nnz(C_i) unique columns there (flip bitonic;
/// heap sort on one-thread teams) and writes them to C's row once. Deterministic (the set of
/// columns does not depend on insertion order). With drop_zeros the sort path
/// (symbolic_team_bin) is used: the kept set depends on sums, which must not depend on order.
/// Single pass: with a `stash` (count pass only) the count pass also compacts and sorts, and
/// writes the row's sorted columns to stash + soff(soff_base + p - begin) (soff: exclusive
/// prefix of F over the stashed range), so the fill pass is copy_stashed_rows and each row is
/// hashed once (as the warp-row range does). Why (session 19): the fill pass sorted C's row in
/// place in global memory, a team barrier and a global round trip a bitonic step; for the 3D
/// 27-point R(AP), whose ~10^4 rows are block-bin rows, it took 0.58 ms of a 1.7 ms setup
/// against 0.34 ms for the count pass (H100 run 115).
template <class Exec, class Args, class StashOff>
void symbolic_team_hash_bin(const Args& g, std::int64_t begin, std::int64_t end, bool fill,
                            int team_size, std::int64_t max_work, std::int64_t max_ka,
                            int& level_out, typename Args::EntC::non_const_value_type* stash,
                            const StashOff& soff, std::int64_t soff_base) {
  using O = typename Args::EntC::non_const_value_type;
  using policy_t = kkperm::team_policy<Exec>;
  using member_t = typename policy_t::member_type;
  if (end <= begin) return;
  const std::int64_t H = hash_slots(max_work > 0 ? max_work : 1);
  const std::size_t bytes = static_cast<std::size_t>(H) * sizeof(O) +
                            static_cast<std::size_t>(max_ka + 1) * sizeof(int) + sizeof(int) + 3 * 128;
  const int level = bytes <= static_cast<std::size_t>(policy_t::scratch_size_max(0)) ? 0 : 1;
  level_out = level;
  const O empty = -1;  // columns are >= 0 (validated)
  const auto body = KOKKOS_LAMBDA(const member_t& team) {
    const std::int64_t p = begin + team.league_rank();
    const auto i = g.row_at(p);
    const std::int64_t o = g.direct ? static_cast<std::int64_t>(i) : p;
    const std::int64_t a0 = static_cast<std::int64_t>(g.rowA(i));
    const std::int64_t ka = static_cast<std::int64_t>(g.rowA(i + 1)) - a0;
    int* pre = static_cast<int*>(team.team_scratch(level).get_shmem_aligned(sizeof(int) * (ka + 1), 8));
    Kokkos::parallel_scan(Kokkos::TeamThreadRange(team, ka),
                          [&](const std::int64_t t, int& upd, const bool final) {
                            const auto k = g.entA(a0 + t);
                            if (final) pre[t] = upd;
                            upd += static_cast<int>(g.rowB(k + 1) - g.rowB(k));
                          });
    const std::int64_t F = g.work(i);
    const std::int64_t Hr = next_pow2_dev(F + (F >> 2) + 1);  // hash_slots(F)
    O* table = static_cast<O*>(team.team_scratch(level).get_shmem_aligned(sizeof(O) * Hr, 8));
    int* counter = static_cast<int*>(team.team_scratch(level).get_shmem_aligned(sizeof(int), 8));
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, Hr),
                         [&](const std::int64_t t) { table[t] = empty; });
    Kokkos::single(Kokkos::PerTeam(team), [&]() { *counter = 0; });
    team.team_barrier();
    std::int64_t unique = 0;
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(team, F),
        [&](const std::int64_t t, std::int64_t& acc) {
          const std::int64_t s = find_segment(pre, ka, t);
          const auto k = g.entA(a0 + s);
          const auto q = g.rowB(k) + (t - pre[s]);
          acc += hash_insert(table, Hr, static_cast<O>(g.entB(q)), empty);
        },
        unique);
    if (!fill) {
      Kokkos::single(Kokkos::PerTeam(team), [&]() { g.cnt(o) = unique; });
      if (stash == nullptr) return;  // the whole team leaves
    }
    team.team_barrier();
    team_compact_table(team, table, Hr, empty, counter);  // unordered: the sort follows
    team_sort_n(team, table, static_cast<O*>(nullptr), unique, false);
    O* out = fill ? g.entC.data() + static_cast<std::int64_t>(g.rowC(o))
                  : stash + soff(soff_base + (p - begin));
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, unique), [&](const std::int64_t t) { out[t] = table[t]; });
  };
  const int ts = fit_team_size<Exec>(team_size, body, level == 0 ? bytes : 0);
  policy_t policy(static_cast<int>(end - begin), team_size_for<Exec>(ts));
  policy.set_scratch_size(level, Kokkos::PerTeam(bytes));
  kkperm::parallel_for(fill ? "kkperm::spgemm::esc::symbolic_fill_team_hash"
                            : (stash != nullptr ? "kkperm::spgemm::esc::symbolic_count_stash_team_hash"
                                                : "kkperm::spgemm::esc::symbolic_count_team_hash"),
                       policy, body);
}

/// Bin 3 (rows above the team threshold) with drop_zeros: one team per row, expanded row in a
/// global buffer slice [buf_off(r), buf_off(r+1)) of keys and vals, sorted in global memory,
/// reduced by key (deterministic sums, so count and fill passes agree on which sums are zero).
/// Rows are processed in chunks whose buffers fit the configured budget.
template <class Exec, class Args, class OffView, class KeyBuf, class ValBuf>
void symbolic_global_chunk(const Args& g, std::int64_t begin, std::int64_t count, bool fill,
                           int team_size, const OffView& buf_off, const KeyBuf& key_buf,
                           const ValBuf& val_buf) {
  using O = typename Args::EntC::non_const_value_type;
  using V = typename Args::ValC::non_const_value_type;
  using policy_t = kkperm::team_policy<Exec>;
  using member_t = typename policy_t::member_type;
  if (count <= 0) return;
  const bool drop = g.drop;
  const O sentinel = std::numeric_limits<O>::max();
  const auto body = KOKKOS_LAMBDA(const member_t& team) {
        const std::int64_t r = team.league_rank();
        const std::int64_t p = begin + r;
        const auto i = g.row_at(p);
        const std::int64_t o = g.direct ? static_cast<std::int64_t>(i) : p;
        const std::int64_t a0 = static_cast<std::int64_t>(g.rowA(i));
        const std::int64_t ka = static_cast<std::int64_t>(g.rowA(i + 1)) - a0;
        O* keys = key_buf.data() + buf_off(r);
        V* vals = drop ? val_buf.data() + buf_off(r) : nullptr;
        const std::int64_t Pr = buf_off(r + 1) - buf_off(r);
        // expansion: exclusive scan over A's row gives each B row its slot
        Kokkos::parallel_scan(Kokkos::TeamThreadRange(team, ka),
                              [&](const std::int64_t t, std::int64_t& upd, const bool final) {
                                const auto k = g.entA(a0 + t);
                                const std::int64_t b0 = static_cast<std::int64_t>(g.rowB(k));
                                const std::int64_t len = static_cast<std::int64_t>(g.rowB(k + 1)) - b0;
                                if (final) {
                                  const V a = drop ? g.valA(a0 + t) : V(0);
                                  for (std::int64_t q = 0; q < len; ++q) {
                                    keys[upd + q] = g.entB(b0 + q);
                                    if (drop) vals[upd + q] = a * g.valB(b0 + q);
                                  }
                                }
                                upd += len;
                              });
        team.team_barrier();
        const std::int64_t F = g.work(i);
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, F, Pr), [&](const std::int64_t t) {
          keys[t] = sentinel;
          if (drop) vals[t] = V(0);
        });
        team.team_barrier();
        team_bitonic_sort(team, keys, vals, Pr, drop);
        contract_row(team, keys, vals, F, o, fill, drop, g);
  };
  const int ts = fit_team_size<Exec>(team_size, body, 0);
  kkperm::parallel_for(
      fill ? "kkperm::spgemm::esc::symbolic_fill_global" : "kkperm::spgemm::esc::symbolic_count_global",
      policy_t(static_cast<int>(count), team_size_for<Exec>(ts)), body);
}

/// Bin 3 without drop_zeros: one team per row, the row's columns inserted into a hash table in
/// its global buffer slice (hash_slots(F) entries, load <= 0.8) by the tiled product loop. The
/// count pass needs no sort at all (count = successful inserts); the fill pass compacts the
/// table straight into C's row and sorts only the nnz(C_i) unique columns there (flip bitonic,
/// O(u log² u) instead of O(F log² F) on the padded expansion). Deterministic: the set of
/// columns does not depend on insertion order. (With drop_zeros the sort path above is used:
/// the kept set depends on summed values, which must not depend on atomic order.)
template <class Exec, class Args, class OffView, class KeyBuf>
void symbolic_global_hash_chunk(const Args& g, std::int64_t begin, std::int64_t count, bool fill,
                                int team_size, const OffView& buf_off, const KeyBuf& key_buf) {
  using O = typename Args::EntC::non_const_value_type;
  using policy_t = kkperm::team_policy<Exec>;
  using member_t = typename policy_t::member_type;
  if (count <= 0) return;
  const O empty = -1;  // columns are >= 0 (validated)
  const auto body = KOKKOS_LAMBDA(const member_t& team) {
    const std::int64_t r = team.league_rank();
    const std::int64_t p = begin + r;
    const auto i = g.row_at(p);
    const std::int64_t o = g.direct ? static_cast<std::int64_t>(i) : p;
    const std::int64_t a0 = static_cast<std::int64_t>(g.rowA(i));
    const std::int64_t ka = static_cast<std::int64_t>(g.rowA(i + 1)) - a0;
    O* table = key_buf.data() + buf_off(r);
    const std::int64_t H = buf_off(r + 1) - buf_off(r);
    std::int64_t* pre = static_cast<std::int64_t*>(team.team_scratch(0).get_shmem_aligned(
        sizeof(std::int64_t) * (team.team_size() + 1), 8));
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, H),
                         [&](const std::int64_t t) { table[t] = empty; });
    team.team_barrier();
    const std::int64_t unique = for_each_product_tiled(
        team, g, a0, ka, pre, [&](const std::int64_t, const std::int64_t q) -> std::int64_t {
          return hash_insert(table, H, static_cast<O>(g.entB(q)), empty);
        });
    if (!fill) {
      Kokkos::single(Kokkos::PerTeam(team), [&]() { g.cnt(o) = unique; });
      return;
    }
    const std::int64_t base = static_cast<std::int64_t>(g.rowC(o));
    O* out = g.entC.data() + base;
    Kokkos::parallel_scan(Kokkos::TeamThreadRange(team, H),
                          [&](const std::int64_t t, std::int64_t& upd, const bool final) {
                            const O c = table[t];
                            if (c != empty) {
                              if (final) out[upd] = c;
                              upd += 1;
                            }
                          });
    team.team_barrier();
    team_sort_n(team, out, static_cast<O*>(nullptr), unique, false);
  };
  const int ts = fit_team_size<Exec>(team_size, body, tiled_scratch_bytes(team_size));
  policy_t policy(static_cast<int>(count), team_size_for<Exec>(ts));
  policy.set_scratch_size(0, Kokkos::PerTeam(tiled_scratch_bytes(team_size_for<Exec>(ts))));
  kkperm::parallel_for(fill ? "kkperm::spgemm::esc::symbolic_fill_global_hash"
                            : "kkperm::spgemm::esc::symbolic_count_global_hash",
                       policy, body);
}

// ---------------------------------------------------------------------------------------------
// Numeric: values only, reusing C's sorted structure: every product a_ik·b_kj is added at the
// position of column j in C's row (binary search). A product whose column is missing (A or B
// changed structure with the reuse check off) raises `missing`. With `record`, each product's
// position is also stored in the slot map (slot(aprod(pa) + q - rowB(k))), so the next numeric
// needs no search: the first numeric after symbolic builds the slot map at the cost of one
// store per product.
// ---------------------------------------------------------------------------------------------

/// Bin 0 numeric by search: one thread per row (max_c: longest C row of the bin), accumulator in
/// the thread's scratch array.
template <class Exec, class Args, class Flag, class AprodView, class SlotView>
void numeric_thread_bin(const Args& g, std::int64_t begin, std::int64_t end, std::int64_t max_c,
                        const Flag& missing, const AprodView& aprod, const SlotView& slot,
                        bool record) {
  using V = typename Args::ValC::non_const_value_type;
  using S = typename SlotView::non_const_value_type;
  using member_t = typename kkperm::team_policy<Exec>::member_type;
  if (end <= begin) return;
  const std::int64_t cap = max_c > 0 ? max_c : 1;
  int T = 1;
  const auto policy = row_thread_policy<Exec>(end - begin, static_cast<std::size_t>(cap) * sizeof(V), T);
  kkperm::parallel_for(
      "kkperm::spgemm::esc::numeric_thread", policy, KOKKOS_LAMBDA(const member_t& team) {
        const int tr = team.team_rank();
        V* base = static_cast<V*>(team.team_scratch(0).get_shmem_aligned(sizeof(V) * T * cap, 8));
        const std::int64_t p = begin + std::int64_t(team.league_rank()) * T + tr;
        if (p >= end) return;
        const StridedArray<V> acc{base + tr, T};
        const auto i = g.row_at(p);
        const std::int64_t o = g.direct ? static_cast<std::int64_t>(i) : p;
        const std::int64_t cb = static_cast<std::int64_t>(g.rowC(o));
        const std::int64_t ce = static_cast<std::int64_t>(g.rowC(o + 1));
        for (std::int64_t t = 0; t < ce - cb; ++t) acc[t] = V(0);
        for (auto pa = g.rowA(i); pa < g.rowA(i + 1); ++pa) {
          const auto k = g.entA(pa);
          const V a = g.valA(pa);
          const std::int64_t b0 = static_cast<std::int64_t>(g.rowB(k));
          const std::int64_t base = record ? aprod(pa) - b0 : 0;
          for (auto pb = g.rowB(k); pb < g.rowB(k + 1); ++pb) {
            const std::int64_t pos = find_col(g.entC, cb, ce, g.entB(pb));
            if (pos < 0) {
              missing() = 1;
            } else {
              acc[pos] += a * g.valB(pb);
              if (record) slot(base + static_cast<std::int64_t>(pb)) = static_cast<S>(pos);
            }
          }
        }
        for (std::int64_t t = 0; t < ce - cb; ++t) g.valC(cb + t) = acc[t];
      });
}

template <class Exec, class Args, class Flag, class AprodView, class SlotView>
void numeric_team_bin(const Args& g, std::int64_t begin, std::int64_t end, int team_size,
                      std::int64_t max_ka, std::int64_t max_c, const Flag& missing,
                      const AprodView& aprod, const SlotView& slot, bool record, int& level_out) {
  using O = typename Args::EntC::non_const_value_type;
  using V = typename Args::ValC::non_const_value_type;
  using S = typename SlotView::non_const_value_type;
  using policy_t = kkperm::team_policy<Exec>;
  using member_t = typename policy_t::member_type;
  if (end <= begin) return;
  const std::size_t bytes = static_cast<std::size_t>(max_c) * (sizeof(V) + sizeof(O)) +
                            static_cast<std::size_t>(max_ka + 1) * sizeof(int) + 3 * 128;
  const int level = bytes <= static_cast<std::size_t>(policy_t::scratch_size_max(0)) ? 0 : 1;
  level_out = level;
  const auto body = KOKKOS_LAMBDA(const member_t& team) {
        const std::int64_t p = begin + team.league_rank();
        const auto i = g.row_at(p);
        const std::int64_t o = g.direct ? static_cast<std::int64_t>(i) : p;
        const std::int64_t cb = static_cast<std::int64_t>(g.rowC(o));
        const std::int64_t ce = static_cast<std::int64_t>(g.rowC(o + 1));
        const std::int64_t a0 = static_cast<std::int64_t>(g.rowA(i));
        const std::int64_t ka = static_cast<std::int64_t>(g.rowA(i + 1)) - a0;
        V* acc = static_cast<V*>(team.team_scratch(level).get_shmem_aligned(sizeof(V) * (ce - cb), 8));
        O* cols = static_cast<O*>(team.team_scratch(level).get_shmem_aligned(sizeof(O) * (ce - cb), 8));
        int* pre = static_cast<int*>(team.team_scratch(level).get_shmem_aligned(sizeof(int) * (ka + 1), 8));
        // C's row staged next to its accumulators: each product's column is searched there, not
        // in global memory (session 19; H100 run 123: this kernel took 0.37 ms of the 3D
        // 27-point R(AP)'s 1.3 ms setup, each product a chain of global loads)
        const int nc = static_cast<int>(ce - cb);
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, nc), [&](const int t) {
          acc[t] = V(0);
          cols[t] = g.entC(cb + t);
        });
        Kokkos::parallel_scan(Kokkos::TeamThreadRange(team, ka),
                              [&](const std::int64_t t, int& upd, const bool final) {
                                const auto k = g.entA(a0 + t);
                                if (final) pre[t] = upd;
                                upd += static_cast<int>(g.rowB(k + 1) - g.rowB(k));
                              });
        team.team_barrier();
        const std::int64_t F = g.work(i);
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, F), [&](const std::int64_t t) {
          const std::int64_t s = find_segment(pre, ka, t);
          const auto k = g.entA(a0 + s);
          const auto q = g.rowB(k) + (t - pre[s]);
          const int pos = staged_col_pos(cols, nc, static_cast<O>(g.entB(q)));
          if (pos < 0) {
            missing() = 1;
          } else {
            Kokkos::atomic_add(&acc[pos], g.valA(a0 + s) * g.valB(q));
            // the row's products are contiguous in product order: product t is aprod(a0) + t
            if (record) slot(aprod(a0) + t) = static_cast<S>(pos);
          }
        });
        team.team_barrier();
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, ce - cb),
                             [&](const std::int64_t t) { g.valC(cb + t) = acc[t]; });
  };
  const int ts = fit_team_size<Exec>(team_size, body, level == 0 ? bytes : 0);
  policy_t policy(static_cast<int>(end - begin), team_size_for<Exec>(ts));
  policy.set_scratch_size(level, Kokkos::PerTeam(bytes));
  kkperm::parallel_for("kkperm::spgemm::esc::numeric_team", policy, body);
}

/// Bin 3 numeric: one team per row, products flattened across the team (tiled product loop:
/// balanced, coalesced reads of B), each added atomically at its column's position in C's row.
template <class Exec, class Args, class Flag, class AprodView, class SlotView>
void numeric_global_bin(const Args& g, std::int64_t begin, std::int64_t end, int team_size,
                        const Flag& missing, const AprodView& aprod, const SlotView& slot,
                        bool record) {
  using V = typename Args::ValC::non_const_value_type;
  using S = typename SlotView::non_const_value_type;
  using policy_t = kkperm::team_policy<Exec>;
  using member_t = typename policy_t::member_type;
  if (end <= begin) return;
  const auto body = KOKKOS_LAMBDA(const member_t& team) {
    const std::int64_t p = begin + team.league_rank();
    const auto i = g.row_at(p);
    const std::int64_t o = g.direct ? static_cast<std::int64_t>(i) : p;
    const std::int64_t cb = static_cast<std::int64_t>(g.rowC(o));
    const std::int64_t ce = static_cast<std::int64_t>(g.rowC(o + 1));
    const std::int64_t a0 = static_cast<std::int64_t>(g.rowA(i));
    const std::int64_t ka = static_cast<std::int64_t>(g.rowA(i + 1)) - a0;
    std::int64_t* pre = static_cast<std::int64_t*>(team.team_scratch(0).get_shmem_aligned(
        sizeof(std::int64_t) * (team.team_size() + 1), 8));
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, ce - cb),
                         [&](const std::int64_t t) { g.valC(cb + t) = V(0); });
    team.team_barrier();
    const std::int64_t misses = for_each_product_tiled(
        team, g, a0, ka, pre, [&](const std::int64_t pa, const std::int64_t q) -> std::int64_t {
          const std::int64_t pos = find_col(g.entC, cb, ce, g.entB(q));
          if (pos < 0) return 1;
          Kokkos::atomic_add(&g.valC(cb + pos), g.valA(pa) * g.valB(q));
          if (record)
            slot(aprod(pa) + q - static_cast<std::int64_t>(g.rowB(g.entA(pa)))) =
                static_cast<S>(pos);
          return 0;
        });
    if (misses > 0) Kokkos::single(Kokkos::PerTeam(team), [&]() { missing() = 1; });
  };
  const int ts = fit_team_size<Exec>(team_size, body, tiled_scratch_bytes(team_size));
  policy_t policy(static_cast<int>(end - begin), team_size_for<Exec>(ts));
  policy.set_scratch_size(0, Kokkos::PerTeam(tiled_scratch_bytes(team_size_for<Exec>(ts))));
  kkperm::parallel_for("kkperm::spgemm::esc::numeric_global", policy, body);
}

// ---------------------------------------------------------------------------------------------
// Slot map (numeric re-setup without any search). Allocated by symbolic when it fits the
// memory budget, filled by the first numeric (search path, one store per product):
//   aprod(pa)  = global index of the first product of A nonzero pa (exclusive scan over A's
//                nonzeros of nnz(B row entA(pa))), int64, nnz(A) + 1 entries;
//   slot(t)    = position of product t's column inside its C row (S = uint16 when every C row
//                has ≤ 65536 entries, else uint32), Σ F_i entries.
// Numeric then reads per product valB and one slot (coalesced along B's row) and accumulates
// a·b at acc[slot] — no sort, no binary search, no prefix over A's row. Memory:
// Σ F_i · sizeof(S) + (nnz(A) + 1) · 8 bytes (EscStats::slot_bytes).
// ---------------------------------------------------------------------------------------------

/// aprod(pa) for pa in [0, nnz(A)], aprod(nnz(A)) = Σ F_i.
template <class Exec, class Args, class AprodView>
void product_offsets(const Args& g, std::int64_t nnz_a, const AprodView& aprod) {
  const auto entA = g.entA;
  const auto rowB = g.rowB;
  exclusive_scan_to<Exec, std::int64_t>(
      "kkperm::spgemm::esc::product_offsets", nnz_a, KOKKOS_LAMBDA(const std::int64_t pa) {
        const auto k = entA(pa);
        return static_cast<std::int64_t>(rowB(k + 1) - rowB(k));
      },
      aprod);
}

/// Vector length for the nested (A entry × B row) loops: next power of two of the mean B-row
/// length seen by A's nonzeros (Σ F_i / nnz(A)), in [1, 32]; 1 on host backends.
template <class Exec>
int vector_length_for(std::int64_t sum_work, std::int64_t nnz_a) {
  if constexpr (is_host_exec<Exec>()) {
    (void)sum_work;
    (void)nnz_a;
    return 1;
  } else {
    const std::int64_t mean = nnz_a > 0 ? (sum_work + nnz_a - 1) / nnz_a : 1;
    int v = 1;
    while (v < 32 && v < mean) v <<= 1;
    return v;
  }
}

/// Team size (threads per team / vector length, clamped to what Kokkos allows for `functor`
/// with this vector length and level-0 scratch); 1 on host backends.
template <class Exec, class Functor>
int fit_team_size_v(int threads, int vec, const Functor& functor, std::size_t scratch0) {
  if constexpr (is_host_exec<Exec>()) {
    (void)threads;
    (void)vec;
    (void)functor;
    (void)scratch0;
    return 1;
  } else {
    const int want = threads / vec > 0 ? threads / vec : 1;
    kkperm::team_policy<Exec> probe(1, 1, vec);
    if (scratch0 > 0) probe.set_scratch_size(0, Kokkos::PerTeam(scratch0));
    const int mx = probe.team_size_max(functor, Kokkos::ParallelForTag());
    return want < mx ? want : (mx > 0 ? mx : 1);
  }
}

/// Calls f(pb, s) for every product of A nonzero pa in product order: pb = B's nonzero, s = the
/// product's slot (position of its column in C's row) from the slot map.
template <class Args, class AprodView, class SlotView, class F>
KOKKOS_INLINE_FUNCTION void for_each_slot_product(const Args& g, std::int64_t pa, const AprodView& aprod,
                                                  const SlotView& slot, const F& f) {
  const auto k = g.entA(pa);
  const std::int64_t b0 = static_cast<std::int64_t>(g.rowB(k));
  const std::int64_t len = static_cast<std::int64_t>(g.rowB(k + 1)) - b0;
  const std::int64_t base = aprod(pa);
  for (std::int64_t q = 0; q < len; ++q) f(b0 + q, static_cast<std::int64_t>(slot(base + q)));
}

/// Bin 0 numeric with the slot map: one thread per row (max_c: longest C row of the bin),
/// accumulator in the thread's scratch array.
template <class Exec, class Args, class AprodView, class SlotView>
void numeric_thread_bin_slots(const Args& g, std::int64_t begin, std::int64_t end, std::int64_t max_c,
                              const AprodView& aprod, const SlotView& slot) {
  using V = typename Args::ValC::non_const_value_type;
  using member_t = typename kkperm::team_policy<Exec>::member_type;
  if (end <= begin) return;
  const std::int64_t cap = max_c > 0 ? max_c : 1;
  int T = 1;
  const auto policy = row_thread_policy<Exec>(end - begin, static_cast<std::size_t>(cap) * sizeof(V), T);
  kkperm::parallel_for(
      "kkperm::spgemm::esc::numeric_thread_slots", policy, KOKKOS_LAMBDA(const member_t& team) {
        const int tr = team.team_rank();
        V* base = static_cast<V*>(team.team_scratch(0).get_shmem_aligned(sizeof(V) * T * cap, 8));
        const std::int64_t p = begin + std::int64_t(team.league_rank()) * T + tr;
        if (p >= end) return;
        const StridedArray<V> acc{base + tr, T};
        const auto i = g.row_at(p);
        const std::int64_t o = g.direct ? static_cast<std::int64_t>(i) : p;
        const std::int64_t cb = static_cast<std::int64_t>(g.rowC(o));
        const std::int64_t nc = static_cast<std::int64_t>(g.rowC(o + 1)) - cb;
        for (std::int64_t t = 0; t < nc; ++t) acc[t] = V(0);
        for (auto pa = g.rowA(i); pa < g.rowA(i + 1); ++pa) {
          const V a = g.valA(pa);
          for_each_slot_product(g, pa, aprod, slot,
                                [&](const std::int64_t pb, const std::int64_t s) { acc[s] += a * g.valB(pb); });
        }
        for (std::int64_t t = 0; t < nc; ++t) g.valC(cb + t) = acc[t];
      });
}

/// Bins 1-3 numeric with the slot map: a group of `threads` threads (threads / vec threads of
/// vec vector lanes) per row; A entries over the group's threads, B's row over the vector lanes
/// (coalesced reads of valB and slot); each product added atomically at acc[slot] — acc in team
/// scratch (level 0 when it fits, else level 1) for bins 1-2, C's values directly for the global
/// bin (`in_place`: rows owned by one team, so the atomics never conflict across teams). Then one
/// coalesced write of the row. With threads < 128 (the warp bin) a team holds 128 / threads row
/// groups: one 32-thread team per row (the previous form) capped the H100 at 32 resident blocks,
/// 50 % occupancy (ncu, session 7: RAP of a 2D Laplacian, 306 us for 144 k rows).
template <class Exec, class Args, class AprodView, class SlotView>
void numeric_team_bin_slots(const Args& g, std::int64_t begin, std::int64_t end, int threads,
                            int vec, std::int64_t max_c, bool in_place, const AprodView& aprod,
                            const SlotView& slot, int& level_out) {
  using V = typename Args::ValC::non_const_value_type;
  using policy_t = kkperm::team_policy<Exec>;
  using member_t = typename policy_t::member_type;
  if (end <= begin) return;
  const std::int64_t stride = (max_c + 3) / 4 * 4;  // per-row accumulator, 32-byte multiples
  const std::size_t row_bytes = in_place ? 0 : static_cast<std::size_t>(stride) * sizeof(V);
  const std::size_t max0 = static_cast<std::size_t>(policy_t::scratch_size_max(0));
  int rows = is_host_exec<Exec>() || in_place || threads >= 128 ? 1 : 128 / (threads > 0 ? threads : 1);
  while (rows > 1 && rows * row_bytes + 128 > max0) rows /= 2;
  const std::size_t bytes = in_place ? 0 : rows * row_bytes + 128;
  const int level = in_place || bytes <= max0 ? 0 : 1;
  level_out = in_place ? -1 : level;
  const auto body = KOKKOS_LAMBDA(const member_t& team) {
    const int tpr = team.team_size() / rows;  // threads (of vec lanes) per row group
    const int grp = team.team_rank() / tpr, gt = team.team_rank() % tpr;
    const int v = vec;  // lanes per thread (1 on host backends: vector_length_for)
    const std::int64_t p = begin + std::int64_t(team.league_rank()) * rows + grp;
    const bool live = p < end;
    const auto i = live ? g.row_at(p) : 0;
    const std::int64_t o = g.direct ? static_cast<std::int64_t>(i) : p;
    const std::int64_t cb = live ? static_cast<std::int64_t>(g.rowC(o)) : 0;
    const std::int64_t nc = live ? static_cast<std::int64_t>(g.rowC(o + 1)) - cb : 0;
    const std::int64_t a0 = live ? static_cast<std::int64_t>(g.rowA(i)) : 0;
    const std::int64_t a1 = live ? static_cast<std::int64_t>(g.rowA(i + 1)) : 0;
    V* acc = in_place ? g.valC.data() + cb
                      : static_cast<V*>(team.team_scratch(level).get_shmem_aligned(
                            rows * row_bytes > 0 ? rows * row_bytes : sizeof(V), 32)) +
                            std::int64_t(grp) * stride;
    const std::int64_t step = std::int64_t(tpr) * v;
    for (std::int64_t t0 = std::int64_t(gt) * v; t0 < nc; t0 += step)
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, v), [&](const int l) {
        if (t0 + l < nc) acc[t0 + l] = V(0);
      });
    team.team_barrier();
    for (std::int64_t pa = a0 + gt; pa < a1; pa += tpr) {
      const auto k = g.entA(pa);
      const V a = g.valA(pa);
      const std::int64_t b0 = static_cast<std::int64_t>(g.rowB(k));
      const std::int64_t len = static_cast<std::int64_t>(g.rowB(k + 1)) - b0;
      const std::int64_t base = aprod(pa);
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, len), [&](const std::int64_t q) {
        Kokkos::atomic_add(&acc[slot(base + q)], a * g.valB(b0 + q));
      });
    }
    if (!in_place) {
      team.team_barrier();
      for (std::int64_t t0 = std::int64_t(gt) * v; t0 < nc; t0 += step)
        Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, v), [&](const int l) {
          if (t0 + l < nc) g.valC(cb + t0 + l) = acc[t0 + l];
        });
    }
  };
  int ts = fit_team_size_v<Exec>(threads * rows, vec, body, level == 0 ? bytes : 0);
  ts = ts / rows * rows;  // whole row groups
  if (ts < rows) ts = rows;
  const std::int64_t league = (end - begin + rows - 1) / rows;
  policy_t policy(static_cast<int>(league), ts, vec);
  if (bytes > 0) policy.set_scratch_size(level, Kokkos::PerTeam(bytes));
  kkperm::parallel_for(in_place ? "kkperm::spgemm::esc::numeric_global_slots"
                                : "kkperm::spgemm::esc::numeric_team_slots",
                       policy, body);
}

// ---------------------------------------------------------------------------------------------
// Gather plan (numeric re-setup without search, scratch or atomics). For every destination entry
// e of C (C's own order, or permuted order), the list of its products as one word
// (pa << 32) | pb, the lists laid out by e: glist[gptr(e), gptr(e + 1)). Built once from a filled
// slot map; numeric is then one thread per C entry summing its list and writing once.
// Why: the slot-map kernels reach 3-6x the byte floor (ncu, H100, session 7: bin 0 of the 2D
// Laplacian's AP at 159 us, the warp bin of its RAP at 293 us, latency-bound on per-row chains
// of dependent loads and shared-memory atomics). Memory: Σ F_i · 8 + (nnz(C) + 1) · 4 bytes
// (EscStats::gather_bytes), plus nnz(C) + n ints while it is built. Within one entry the
// products (so the terms of the sum) are in product order (A index, then B index) in every row
// of C with F_i <= EscConfig::gather_ordered_max (4096) — bitwise reproducible from run to run,
// and on host backends equal to the search path's order; rows above keep the order the GPU
// fill's atomics gave.
// ---------------------------------------------------------------------------------------------

/// Rows with at most this many products get their lists in product order (the default of
/// EscConfig::gather_ordered_max, which the builder takes): the row's thread or lane group owns
/// its C entries; longer rows are walked by a team, one thread per A nonzero, with atomic
/// positions (a thread or warp walking a hub row would serialise the build). An insertion
/// sort of the lists after an all-atomic fill gave the same order but made the build up to 14x
/// slower (H100, session 7, run 37: 0.66 -> 9.0 ms for RAP of the 3D 27-point Laplacian).
inline constexpr std::int64_t kOrderedFillMax = 4096;

/// One gather-list word: A nonzero pa in the high 32 bits, B nonzero pb in the low 32 bits.
KOKKOS_INLINE_FUNCTION std::uint64_t pack_product(std::int64_t pa, std::int64_t pb) {
  return (static_cast<std::uint64_t>(pa) << 32) | static_cast<std::uint64_t>(pb);
}

/// C entries that share one base in the 4-byte gather lists (GatherListOut).
inline constexpr int kGatherTileEntries = 32;

/// Bits of a 4-byte gather word's field for values in [0, n): at least 1, since a zero width marks
/// the 8-byte lists (kkperm::detail::bits_for counts the bits of n - 1).
inline int gather_field_bits(std::int64_t n) {
  const int b = kkperm::detail::bits_for(static_cast<std::uint64_t>(n > 1 ? n - 1 : 0));
  return b > 1 ? b : 1;
}

/// Before a gather build with 4-byte lists: per tile t of kGatherTileEntries consecutive C entries,
/// the range [tlo(t), thi(t)) of A positions its products can name: the union of the A rows of
/// the plan positions whose C entries fall in the tile (read from the row offsets alone, not the
/// lists). Returns the largest thi - tlo. tlo / thi: ceil(nnz_c / 32) entries each.
template <class Exec, class Args, class TileView>
std::int64_t gather_tile_spans(const Args& g, std::int64_t n, std::int64_t nnz_c, const TileView& tlo,
                               const TileView& thi) {
  using T = typename TileView::non_const_value_type;
  const std::int64_t nt = (nnz_c + kGatherTileEntries - 1) / kGatherTileEntries;
  Kokkos::deep_copy(typename TileView::execution_space(), tlo, std::numeric_limits<T>::max());
  Kokkos::deep_copy(typename TileView::execution_space(), thi, T(0));
  kkperm::parallel_for(
      "kkperm::spgemm::esc::gather_tile_spans", kkperm::range_policy<Exec>(0, n), KOKKOS_LAMBDA(const std::int64_t p) {
        const auto i = g.row_at(p);
        const std::int64_t o = g.direct ? static_cast<std::int64_t>(i) : p;
        const std::int64_t c0 = static_cast<std::int64_t>(g.rowC(o)), c1 = static_cast<std::int64_t>(g.rowC(o + 1));
        if (c1 <= c0) return;
        const T a0 = static_cast<T>(g.rowA(i)), a1 = static_cast<T>(g.rowA(i + 1));
        for (std::int64_t t = c0 / kGatherTileEntries; t <= (c1 - 1) / kGatherTileEntries; ++t) {
          Kokkos::atomic_fetch_min(&tlo(t), a0);
          Kokkos::atomic_fetch_max(&thi(t), a1);
        }
      });
  std::int64_t span = 0;
  Kokkos::parallel_reduce(
      "kkperm::spgemm::esc::gather_tile_span_max", kkperm::range_policy<Exec>(0, nt),
      KOKKOS_LAMBDA(const std::int64_t t, std::int64_t& m) {
        const std::int64_t d = thi(t) > tlo(t) ? static_cast<std::int64_t>(thi(t) - tlo(t)) : 0;
        if (d > m) m = d;
      },
      Kokkos::Max<std::int64_t>(span));
  return span;
}

/// Where the gather build puts a product's word w = pack_product(pa, pb) at list position j, e
/// its C entry: the 8-byte list (bits_b == 0), or the 4-byte list ((pa - tlo(e / 32)) << bits_b)
/// | pb (EscConfig::gather_compact; the plan checked that every offset and pb fit).
template <class WideView, class CompactView, class TileView>
struct GatherListOut {
  WideView wide;
  CompactView compact;
  TileView tlo;
  int bits_b = 0;
  /// Whether put() reads e (the 4-byte list): otherwise any e will do.
  KOKKOS_INLINE_FUNCTION bool needs_entry() const { return bits_b > 0; }
  KOKKOS_INLINE_FUNCTION void put(std::int64_t j, std::int64_t e, std::uint64_t w) const {
    if (bits_b > 0)
      compact(j) = static_cast<std::uint32_t>(
          (((w >> 32) - static_cast<std::uint64_t>(tlo(e / kGatherTileEntries))) << bits_b) | (w & 0xFFFFFFFFull));
    else
      wide(j) = w;
  }
};

/// Where the gather lists of destination row o start in glist: the products of the rows before
/// it. Direct output (C's rows in A's row order): aprod(rowA(i)), nothing to build. Permuted
/// output (C's rows in plan order): rbase(p) = Σ_{p' < p} F_perm(p'), one scan over the plan.
template <class Exec, class Args, class IntView>
void gather_row_bases(const Args& g, std::int64_t n, const IntView& rbase) {
  if (g.direct || n <= 0) return;
  Kokkos::parallel_scan(
      "kkperm::spgemm::esc::gather_row_bases", kkperm::range_policy<Exec>(0, n),
      KOKKOS_LAMBDA(const std::int64_t p, int& upd, const bool final) {
        if (final) rbase(p) = upd;
        upd += static_cast<int>(g.work(g.row_at(p)));
      });
}

/// Calls f(pa, pb, e) for every product of the rows at plan positions [begin, end) with
/// F_i > max_work (pb: B's nonzero, e: its destination entry from the slot map): a team a row,
/// its threads over the row's A nonzeros; with `zero` the team first zeroes the row's entries of
/// cnt. Rows at or below max_work return at once.
template <class Exec, class Args, class AprodView, class SlotView, class IntView, class F>
void gather_long_rows(const char* label, const Args& g, std::int64_t begin, std::int64_t end, std::int64_t max_work,
                      const AprodView& aprod, const SlotView& slot, const IntView& cnt, bool zero, const F& f) {
  using policy_t = kkperm::team_policy<Exec>;
  using member_t = typename policy_t::member_type;
  if (end <= begin) return;
  kkperm::parallel_for(
      label, policy_t(static_cast<int>(end - begin), team_size_for<Exec>(256)), KOKKOS_LAMBDA(const member_t& team) {
        const std::int64_t p = begin + team.league_rank();
        const std::int64_t i = static_cast<std::int64_t>(g.row_at(p));
        if (static_cast<std::int64_t>(g.work(i)) <= max_work) return;
        const std::int64_t o = g.direct ? i : p;
        const std::int64_t cb = static_cast<std::int64_t>(g.rowC(o));
        if (zero) {
          Kokkos::parallel_for(Kokkos::TeamThreadRange(team, cb, static_cast<std::int64_t>(g.rowC(o + 1))),
                               [&](const std::int64_t e) { cnt(e) = 0; });
          team.team_barrier();
        }
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, static_cast<std::int64_t>(g.rowA(i)),
                                                     static_cast<std::int64_t>(g.rowA(i + 1))),
                             [&](const std::int64_t pa) {
                               for_each_slot_product(g, pa, aprod, slot, [&](const std::int64_t pb, const std::int64_t s) {
                                 f(pa, pb, cb + s);
                               });
                             });
      });
}

/// Gather lists of every row, a thread a row over plan positions [0, n): rows with
/// F_i <= max_work count their products per C entry in cnt, turn the counts into gptr (from the
/// row's base) and fill their lists in product order; longer rows (counted before by
/// gather_long_rows) only turn their counts into gptr. An ordered row zeroes its entries of cnt
/// before counting; every row leaves them zero, ready for the long rows' atomic fill. Also writes
/// gptr(nnz_c) = sum.
template <class Exec, class Args, class AprodView, class SlotView, class IntView, class ListView>
void gather_rows_thread(const Args& g, std::int64_t n, std::int64_t nnz_c, std::int64_t sum, std::int64_t max_work,
                        const AprodView& aprod, const SlotView& slot, const IntView& rbase, const IntView& gptr,
                        const IntView& cnt, const ListView& glist) {
  kkperm::parallel_for(
      "kkperm::spgemm::esc::gather_rows", kkperm::range_policy<Exec>(0, n), KOKKOS_LAMBDA(const std::int64_t p) {
        if (p == 0) gptr(nnz_c) = static_cast<int>(sum);
        const std::int64_t i = static_cast<std::int64_t>(g.row_at(p));
        const std::int64_t o = g.direct ? i : p;
        const std::int64_t a0 = static_cast<std::int64_t>(g.rowA(i)), a1 = static_cast<std::int64_t>(g.rowA(i + 1));
        const std::int64_t cb = static_cast<std::int64_t>(g.rowC(o));
        const std::int64_t nc = static_cast<std::int64_t>(g.rowC(o + 1)) - cb;
        const bool ordered = static_cast<std::int64_t>(g.work(i)) <= max_work;
        if (ordered) {
          for (std::int64_t t = 0; t < nc; ++t) cnt(cb + t) = 0;
          for (std::int64_t pa = a0; pa < a1; ++pa)
            for_each_slot_product(g, pa, aprod, slot, [&](std::int64_t, const std::int64_t s) { ++cnt(cb + s); });
        }
        int at = static_cast<int>(g.direct ? static_cast<std::int64_t>(aprod(a0)) : std::int64_t(rbase(p)));
        for (std::int64_t t = 0; t < nc; ++t) {
          gptr(cb + t) = at;
          at += cnt(cb + t);
          cnt(cb + t) = 0;
        }
        if (ordered)
          for (std::int64_t pa = a0; pa < a1; ++pa)
            for_each_slot_product(g, pa, aprod, slot, [&](const std::int64_t pb, const std::int64_t s) {
              const std::int64_t e = cb + s;
              glist.put(gptr(e) + cnt(e)++, e, pack_product(pa, pb));
            });
      });
}

/// Vector lanes per C entry of numeric_gather: 32 when the mean list length Σ F_i / nnz(C) is at
/// least 32, else 1 (a thread per entry); 1 on host backends. Measured (H100, session 7, run 34,
/// kkperm_spgemm re-setup, lanes = largest power of two <= the mean vs 1): mean 48.7 (RAP of the
/// 3D 27-point Laplacian) 0.162 ms with 32 lanes vs 0.240 with 1; every product with a mean of
/// 1.9-10.9 was slower with 2-8 lanes than with 1 (up to 2.4x: the 2D Laplacian's AP 0.246 vs
/// 0.102 ms). Means between 11 and 48 were not measured.
template <class Exec>
int gather_lanes_for(std::int64_t sum_work, std::int64_t nnz_c) {
  if constexpr (is_host_exec<Exec>()) {
    (void)sum_work;
    (void)nnz_c;
    return 1;
  } else {
    return nnz_c > 0 && sum_work / nnz_c >= 32 ? 32 : 1;
  }
}

/// The gather numerics' sums: valC(e) = Σ term(base(e), j) over j in [gptr(e), gptr(e + 1)), in
/// list order. lanes == 1: one thread per entry; lanes > 1: `lanes` vector lanes per entry split
/// its list (coalesced reads of the list, a lane reduction) — for long lists, where one thread
/// per entry leaves few threads each walking a long serial loop (RAP of the 3D 27-point
/// Laplacian: 49 products per entry, 262 k entries). See gather_lanes_for. base(e): what the
/// entry's words are relative to (the compact list's tile base), read once an entry.
template <class Exec, class IntView, class ValC, class Base, class Term>
void gather_sums(const char* label, const char* lanes_label, std::int64_t nnz_c, int lanes, const IntView& gptr,
                 const ValC& valC, const Base& base, const Term& term) {
  using V = typename ValC::non_const_value_type;
  using policy_t = kkperm::team_policy<Exec>;
  using member_t = typename policy_t::member_type;
  if (nnz_c <= 0) return;
  if (lanes <= 1) {
    kkperm::parallel_for(
        label, kkperm::range_policy<Exec>(0, nnz_c), KOKKOS_LAMBDA(const std::int64_t e) {
          const std::int64_t b = base(e);
          V sum = V(0);
          const int j1 = gptr(e + 1);
          for (int j = gptr(e); j < j1; ++j) sum += term(b, j);
          valC(e) = sum;
        });
    return;
  }
  const int ts = is_host_exec<Exec>() ? 1 : 256 / lanes;  // host: lanes run serially in list order
  const std::int64_t league = (nnz_c + ts - 1) / ts;
  kkperm::parallel_for(
      lanes_label, policy_t(static_cast<int>(league), ts, lanes), KOKKOS_LAMBDA(const member_t& team) {
        const std::int64_t e = std::int64_t(team.league_rank()) * ts + team.team_rank();
        if (e >= nnz_c) return;
        const std::int64_t b = base(e);
        const int j0 = gptr(e);
        V sum = V(0);
        Kokkos::parallel_reduce(
            Kokkos::ThreadVectorRange(team, gptr(e + 1) - j0), [&](const int t, V& acc) { acc += term(b, j0 + t); },
            sum);
        Kokkos::single(Kokkos::PerThread(team), [&]() { valC(e) = sum; });
      });
}

/// Numeric through the gather plan's 8-byte lists: valC(e) = Σ valA(pa) · valB(pb) over e's list.
template <class Exec, class Args, class IntView, class ListView>
void numeric_gather(const Args& g, std::int64_t nnz_c, int lanes, const IntView& gptr, const ListView& glist) {
  const auto valA = g.valA, valB = g.valB;
  gather_sums<Exec>(
      "kkperm::spgemm::esc::numeric_gather", "kkperm::spgemm::esc::numeric_gather_lanes", nnz_c, lanes, gptr, g.valC,
      [=] KOKKOS_FUNCTION(std::int64_t) { return std::int64_t(0); },
      [=] KOKKOS_FUNCTION(std::int64_t, const int j) {
        const std::uint64_t w = glist(j);
        return valA(static_cast<std::int64_t>(w >> 32)) * valB(static_cast<std::int64_t>(w & 0xFFFFFFFFull));
      });
}

/// The same on the 4-byte lists (EscConfig::gather_compact, GatherListOut): word
/// ((pa - tlo(e / 32)) << bits_b) | pb. Same products, same order of sums.
template <class Exec, class Args, class IntView, class CompactView, class TileView>
void numeric_gather_compact(const Args& g, std::int64_t nnz_c, int lanes, const IntView& gptr,
                            const CompactView& clist, const TileView& tlo, int bits_b) {
  const auto valA = g.valA, valB = g.valB;
  const std::uint32_t mask_b = bits_b >= 32 ? 0xFFFFFFFFu : ((1u << bits_b) - 1u);
  gather_sums<Exec>(
      "kkperm::spgemm::esc::numeric_gather_compact", "kkperm::spgemm::esc::numeric_gather_compact_lanes", nnz_c,
      lanes, gptr, g.valC,
      [=] KOKKOS_FUNCTION(const std::int64_t e) { return static_cast<std::int64_t>(tlo(e / kGatherTileEntries)); },
      [=] KOKKOS_FUNCTION(const std::int64_t b, const int j) {
        const std::uint32_t w = clist(j);
        return valA(b + static_cast<std::int64_t>(w >> bits_b)) * valB(static_cast<std::int64_t>(w & mask_b));
      });
}

/// Permuted → original order: C row i = Cp row p where perm(p) = i (columns, and/or values).
template <class Exec, class PermView, class RowP, class EntP, class ValP, class RowC, class EntC,
          class ValC>
void restore_rows(const PermView& perm, std::int64_t n, const RowP& rowP, const EntP& entP,
                  const ValP& valP, const RowC& rowC, const EntC& entC, const ValC& valC,
                  bool columns, bool values) {
  kkperm::parallel_for(
      "kkperm::spgemm::esc::restore_order", kkperm::range_policy<Exec>(0, n),
      KOKKOS_LAMBDA(const std::int64_t p) {
        const auto i = perm(p);
        const std::int64_t s = static_cast<std::int64_t>(rowP(p));
        const std::int64_t d = static_cast<std::int64_t>(rowC(i));
        const std::int64_t len = static_cast<std::int64_t>(rowP(p + 1)) - s;
        for (std::int64_t t = 0; t < len; ++t) {
          if (columns) entC(d + t) = entP(s + t);
          if (values) valC(d + t) = valP(s + t);
        }
      });
}

}  // namespace kkperm::spgemm::esc_impl
