#pragma once
/**
 * @brief CrsMatrix utilities: host <-> device conversion, structural validation.
 *
 * Usage: `auto A = kkperm::to_device<kkperm::DefaultCrs>(host_csr); kkperm::validate(A, "who");`
 * Preconditions: none for validate (it is the check); to_device requires a HostCsr whose sizes
 * fit the target ordinal/offset types (checked, std::invalid_argument otherwise).
 */
#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>

#include "kkperm/core/atomics.hpp"
#include "kkperm/core/error.hpp"
#include "kkperm/core/host_csr.hpp"
#include "kkperm/core/launch_policy.hpp"
#include "kkperm/core/read_back.hpp"
#include "kkperm/core/structure_hash.hpp"
#include "kkperm/core/types.hpp"
#include "kkperm/core/warp_ops.hpp"
#include "kkperm/core/workspace.hpp"

namespace kkperm {

/// Copies a HostCsr into a KokkosSparse::CrsMatrix of type `Matrix` (any memory space),
/// converting value/ordinal/offset types. Throws when a size does not fit the target types
/// (e.g. nnz > INT_MAX for int offsets).
template <class Matrix, class V, class O, class F>
Matrix to_device(const HostCsr<V, O, F>& h, const std::string& label = "kkperm::A") {
  using value_t = typename Matrix::non_const_value_type;
  using ordinal_t = typename Matrix::non_const_ordinal_type;
  using offset_t = typename Matrix::non_const_size_type;
  using rowmap_t = typename Matrix::row_map_type::non_const_type;
  using entries_t = typename Matrix::index_type::non_const_type;
  using values_t = typename Matrix::values_type::non_const_type;

  KKPERM_REQUIRE(h.num_rows >= 0 && h.num_cols >= 0,
                 "kkperm::to_device: negative dimensions " << h.num_rows << " x " << h.num_cols);
  KKPERM_REQUIRE(h.row_map.size() == static_cast<std::size_t>(h.num_rows) + 1,
                 "kkperm::to_device: row_map has " << h.row_map.size() << " entries, expected "
                                                   << (static_cast<std::size_t>(h.num_rows) + 1));
  const auto nnz = static_cast<std::uint64_t>(h.nnz());
  KKPERM_REQUIRE(h.entries.size() == nnz && h.values.size() == nnz,
                 "kkperm::to_device: entries/values sizes (" << h.entries.size() << ", "
                                                             << h.values.size()
                                                             << ") differ from nnz " << nnz);
  KKPERM_REQUIRE(static_cast<std::uint64_t>(h.num_rows) <=
                         static_cast<std::uint64_t>(std::numeric_limits<ordinal_t>::max()) &&
                     static_cast<std::uint64_t>(h.num_cols) <=
                         static_cast<std::uint64_t>(std::numeric_limits<ordinal_t>::max()),
                 "kkperm::to_device: dimensions " << h.num_rows << " x " << h.num_cols
                                                  << " overflow the ordinal type ("
                                                  << sizeof(ordinal_t) << " bytes)");
  KKPERM_REQUIRE(nnz <= static_cast<std::uint64_t>(std::numeric_limits<offset_t>::max()),
                 "kkperm::to_device: nnz " << nnz << " overflows the offset type ("
                                           << sizeof(offset_t) << " bytes); use 64-bit offsets");

  rowmap_t row_map(Kokkos::view_alloc(Kokkos::WithoutInitializing, label + "::row_map"),
                   h.num_rows + 1);
  entries_t entries(Kokkos::view_alloc(Kokkos::WithoutInitializing, label + "::entries"), nnz);
  values_t values(Kokkos::view_alloc(Kokkos::WithoutInitializing, label + "::values"), nnz);
  auto hr = Kokkos::create_mirror_view(row_map);
  auto he = Kokkos::create_mirror_view(entries);
  auto hv = Kokkos::create_mirror_view(values);
  for (std::size_t i = 0; i < h.row_map.size(); ++i) hr(i) = static_cast<offset_t>(h.row_map[i]);
  for (std::uint64_t k = 0; k < nnz; ++k) {
    he(k) = static_cast<ordinal_t>(h.entries[k]);
    hv(k) = static_cast<value_t>(h.values[k]);
  }
  Kokkos::deep_copy(row_map, hr);
  Kokkos::deep_copy(entries, he);
  Kokkos::deep_copy(values, hv);
  return Matrix(label, static_cast<ordinal_t>(h.num_rows), static_cast<ordinal_t>(h.num_cols),
                static_cast<offset_t>(nnz), values, row_map, entries);
}

/// Copies a CrsMatrix (any memory space) into a HostCsr with the matrix's own types.
template <class Matrix>
HostCsr<typename Matrix::non_const_value_type, typename Matrix::non_const_ordinal_type,
        typename Matrix::non_const_size_type>
to_host(const Matrix& A) {
  HostCsr<typename Matrix::non_const_value_type, typename Matrix::non_const_ordinal_type,
          typename Matrix::non_const_size_type>
      h;
  h.num_rows = A.numRows();
  h.num_cols = A.numCols();
  auto hr = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.graph.row_map);
  auto he = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.graph.entries);
  auto hv = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.values);
  h.row_map.assign(hr.data(), hr.data() + hr.extent(0));
  if (h.row_map.empty()) h.row_map.assign(1, 0);  // KK allows a 0-length row_map for 0 rows
  h.entries.assign(he.data(), he.data() + he.extent(0));
  h.values.assign(hv.data(), hv.data() + hv.extent(0));
  return h;
}

/// Result of a structural check: `first_bad_row` is -1 when the matrix is valid.
struct CrsCheck {
  std::int64_t first_bad_row = -1;
  std::string problem;  ///< human-readable description of the first problem found
  bool ok() const { return first_bad_row < 0 && problem.empty(); }
};

namespace detail {
/// The checks of check_crs that need no device pass (shapes and extents); empty when they pass.
template <class Matrix>
std::string crs_shape_problem(const Matrix& A) {
  const auto n = A.numRows();
  if (n == 0) {
    if (A.graph.entries.extent(0) != 0 || A.values.extent(0) != 0) return "a matrix with 0 rows has entries";
    return {};
  }
  if (A.graph.row_map.extent(0) != static_cast<std::size_t>(n) + 1)
    return "row_map has " + std::to_string(A.graph.row_map.extent(0)) + " entries, expected " +
           std::to_string(static_cast<std::size_t>(n) + 1);
  if (A.graph.entries.extent(0) != A.values.extent(0))
    return "entries has " + std::to_string(A.graph.entries.extent(0)) + " elements but values has " +
           std::to_string(A.values.extent(0));
  return {};
}

/// Row-start bitmap words check_crs_enqueue needs for A (none without the sorted check).
template <class Matrix>
std::int64_t crs_check_words(const Matrix& A, bool require_sorted) {
  return require_sorted ? (static_cast<std::int64_t>(A.graph.entries.extent(0)) + 31) / 32 : 0;
}

/// One matrix's part of the device structure check (see check_crs_enqueue): its arrays, sizes,
/// the 2-word verdict it writes and its row-start bitmap.
template <class Matrix, class Verdict, class Starts>
struct CrsCheckPart {
  using exec_t = typename Matrix::execution_space;
  using ordinal_t = typename Matrix::non_const_ordinal_type;
  using offset_t = typename Matrix::non_const_size_type;
  /// Entries a thread of the entry check walks, a chunk apart (coalesced): one entry per thread
  /// ran in 64-thread blocks at 27 % occupancy, 44 us for 4.4 M entries (H100 run 97, ncu).
  static constexpr std::int64_t kPer = 8;
  /// Rows a thread of the row check walks, a row chunk apart, their row_map loads issued first.
  /// With a row a thread the 2D 5-point R(AP)'s check (1.14 M rows and 6.9 M entries of R and
  /// AP, hashed) was 2.0 M threads at 26 % of DRAM bandwidth, 38 µs (H100, session 31, ncu).
  static constexpr std::int64_t kRowsPer = 8;
  typename Matrix::row_map_type row_map;
  typename Matrix::index_type entries;
  Verdict verdict;
  Starts starts;
  ordinal_t n = 0, m = 0;
  offset_t nnz_total = 0;
  std::int64_t chunk = 0;      ///< threads of the entry check
  std::int64_t row_chunk = 0;  ///< threads of the row check
  bool require_sorted = true;
  /// Structure-hash terms this part adds (structure_hash.hpp) while it reads the arrays: 0 (none),
  /// 1 (as A or as B of a product) or 2 (B = A: both matrices' terms from one read).
  int salts = 0;
  std::uint32_t row_salt0 = 0, row_salt1 = 0, entry_salt0 = 0, entry_salt1 = 0;

  CrsCheckPart() = default;
  CrsCheckPart(const Matrix& A, bool sorted, const Verdict& v, const Starts& st)
      : row_map(A.graph.row_map), entries(A.graph.entries), verdict(v), starts(st), n(A.numRows()),
        m(A.numCols()), nnz_total(static_cast<offset_t>(A.graph.entries.extent(0))),
        chunk((static_cast<std::int64_t>(A.graph.entries.extent(0)) + kPer - 1) / kPer),
        row_chunk((static_cast<std::int64_t>(A.numRows()) + kRowsPer - 1) / kRowsPer), require_sorted(sorted) {}

  /// Makes the checks of this part return its structure-hash terms as matrix A and/or B of the
  /// product (both: B = A, one read); check_crs_parts_enqueue sums them into its `hash_slots`.
  void hash_into(bool as_a, bool as_b) {
    salts = int(as_a) + int(as_b);
    row_salt0 = as_a ? kSaltRowMapA : kSaltRowMapB;
    entry_salt0 = as_a ? kSaltEntriesA : kSaltEntriesB;
    row_salt1 = kSaltRowMapB;  // (used only with both)
    entry_salt1 = kSaltEntriesB;
  }
  /// The hash terms of value v at position pos of an array with salts s0 (and s1 with both).
  KOKKOS_INLINE_FUNCTION std::uint64_t terms(std::int64_t pos, std::uint64_t v, std::uint32_t s0,
                                             std::uint32_t s1) const {
    std::uint64_t h = index_hash(static_cast<std::uint64_t>(pos), v, s0);
    if (salts > 1) h += index_hash(static_cast<std::uint64_t>(pos), v, s1);
    return h;
  }

  /// Rows t, t + row_chunk, ... (kRowsPer of them, below n): row_check of each, the row_map
  /// loads of all first. Returns their hash terms.
  KOKKOS_INLINE_FUNCTION std::uint64_t row_group(const std::int64_t t) const {
    const std::int64_t n64 = static_cast<std::int64_t>(n);
    offset_t b[kRowsPer], e[kRowsPer];
#pragma unroll
    for (std::int64_t j = 0; j < kRowsPer; ++j) {
      const std::int64_t i = t + j * row_chunk;
      b[j] = i < n64 ? row_map(i) : offset_t(0);
      e[j] = i < n64 ? row_map(i + 1) : offset_t(0);
    }
    std::uint64_t h = 0;
#pragma unroll
    for (std::int64_t j = 0; j < kRowsPer; ++j) {
      const std::int64_t i = t + j * row_chunk;
      if (i < n64) h += row_check(static_cast<ordinal_t>(i), b[j], e[j]);
    }
    return h;
  }
  /// Row i, its offsets b = row_map(i) and e = row_map(i + 1) loaded: row_map(0) == 0, monotone,
  /// within [0, nnz], row_map(n) == nnz; marks the first entry of a well-formed non-empty row in
  /// the bitmap (sorted checks only). Returns the hash terms of row_map(i) (and of row_map(n) for
  /// the last row), 0 without salts.
  KOKKOS_INLINE_FUNCTION std::uint64_t row_check(const ordinal_t i, const offset_t b, const offset_t e) const {
    const bool bad = (i == 0 && b != 0) || e < b || e > nnz_total || (i == n - 1 && e != nnz_total);
    if (bad) {
      (void)Kokkos::atomic_fetch_max(&verdict(0), static_cast<std::uint64_t>(n - i));
    } else if (require_sorted && e > b && b >= 0) {
      Kokkos::atomic_or(&starts(b / 32), std::uint32_t(1u) << (b % 32));
    }
    if (salts == 0) return 0;
    std::uint64_t h = terms(i, static_cast<std::uint64_t>(b), row_salt0, row_salt1);
    if (i == n - 1) h += terms(static_cast<std::int64_t>(n), static_cast<std::uint64_t>(e), row_salt0, row_salt1);
    return h;
  }
  /// Entries t, t + chunk, ...: column in range and, when sorted, above its predecessor unless it
  /// starts a row (needs the row pass's bitmap, so a later launch). Returns their hash terms.
  KOKKOS_INLINE_FUNCTION std::uint64_t entry_chunk(const std::int64_t t) const {
    const std::int64_t nnz64 = static_cast<std::int64_t>(nnz_total);
    std::int64_t worst = -1;  // first bad entry of this thread (smallest k)
    std::uint64_t h = 0;
    // every column loaded before any is used (H100 ncu, session 34, run 276: with the loads in the
    // checking loop two were in flight at a time and 42 % of the stall samples of the 2D 5-point
    // R(AP)'s pair check sat on the first use of a loaded column)
    ordinal_t col[kPer];
#pragma unroll
    for (std::int64_t j = 0; j < kPer; ++j) {
      const std::int64_t k = t + j * chunk;
      col[j] = k < nnz64 ? entries(k) : ordinal_t(0);
    }
#pragma unroll
    for (std::int64_t j = kPer - 1; j >= 0; --j) {
      const std::int64_t k = t + j * chunk;
      if (k >= nnz64) continue;
      const ordinal_t c = col[j];
      bool bad = c < 0 || c >= m;
      if (!bad && require_sorted && k > 0 && ((starts(k / 32) >> (k % 32)) & 1u) == 0 && entries(k - 1) >= c)
        bad = true;
      if (bad) worst = k;
      if (salts > 0) h += terms(k, static_cast<std::uint64_t>(c), entry_salt0, entry_salt1);
    }
    if (worst >= 0) (void)Kokkos::atomic_fetch_max(&verdict(1), static_cast<std::uint64_t>(nnz64 - worst));
    return h;
  }
};

/// parallel_for of f(t), t in [0, count), whose returned hash terms are summed into `slots`
/// (kHashSlots): a warp adds its threads' terms with shuffles, the team its warps' sums in scratch,
/// and one atomic a team goes to one slot. H100, traced 2D 5-point R(AP) setup: with an atomic a
/// warp (~2.6 k on each slot) the hashing check took 61 µs against 28 + 19 µs for check and hash
/// kernel apart (run 235); with one a team, 47 against 32 + 20 (run 238). Without `slots`, a
/// plain range launch (f's result unused).
template <class Exec, class F>
void for_each_hashed(const char* label, std::int64_t count, std::int64_t* slots, const F& f) {
  if (count <= 0) return;
  if (slots == nullptr) {
    kkperm::parallel_for(label, kkperm::range_policy<Exec>(0, count),
                         KOKKOS_LAMBDA(const std::int64_t t) { (void)f(t); });
    return;
  }
  using policy_t = kkperm::team_policy<Exec>;
  using member_t = typename policy_t::member_type;
  constexpr bool host = Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Exec::memory_space>::accessible;
  const int T = host ? 1 : 256, W = host ? 1 : 32;
  const std::int64_t league = (count + T - 1) / T;
  KKPERM_REQUIRE(league <= std::numeric_limits<int>::max(), label << ": " << count << " threads exceed one launch");
  policy_t policy(static_cast<int>(league), T);
  policy.set_scratch_size(0, Kokkos::PerTeam(sizeof(std::int64_t) * (T / W)));
  kkperm::parallel_for(
      label, policy, KOKKOS_LAMBDA(const member_t& team) {
        const int tr = team.team_rank();
        const std::int64_t t = std::int64_t(team.league_rank()) * T + tr;
        const std::uint64_t h = t < count ? f(t) : 0;  // every lane reaches the shuffles
        const std::int64_t sum = kkperm::detail::warp_sum(static_cast<std::int64_t>(h), W);
        auto* sh = static_cast<std::int64_t*>(team.team_scratch(0).get_shmem(sizeof(std::int64_t) * (T / W)));
        if (tr % W == 0) sh[tr / W] = sum;
        team.team_barrier();
        if (tr == 0) {
          std::uint64_t acc = 0;  // wraps mod 2^64
          for (int w = 0; w < T / W; ++w) acc += static_cast<std::uint64_t>(sh[w]);
          if (acc != 0) kkperm::atomic_add_i64(&slots[team.league_rank() % kHashSlots], static_cast<std::int64_t>(acc));
        }
      });
}

/**
 * The device part of check_crs for one or two matrices whose crs_shape_problem is empty and
 * numRows() > 0 (`b` null for one; both parts with the same require_sorted): each part writes its
 * `verdict` (2 words, zero on entry: n - first bad row, nnz - first bad entry; 0 = none) using its
 * `starts` (crs_check_words words, zero on entry); read the verdicts after a wait.
 * Balanced over rows and nonzeros (a thread per row stalled on the hub rows of power-law
 * matrices: 15 ms for 10 M nonzeros on an H100):
 * 1. one thread per kRowsPer rows of either matrix (CrsCheckPart::row_group);
 * 2. one thread per kPer nonzeros of either matrix (CrsCheckPart::entry_chunk). Entry 0 never
 *    reads a predecessor, so the pass is safe even when step 1 found a bad row (its verdict is
 *    then not used).
 * Without the sorted check step 2 needs nothing from step 1, and both run in one launch: the pair
 * check of an ESC setup (2D 5-point R(AP), H100 run 217) was four launches of 8-14 µs each, for
 * about 10 µs of work.
 * The first offender of each kind is kept as "count - index" with an atomic max, so the
 * zero-filled workspace means "none" and the usual case needs no atomics at all.
 * With `hash_slots` (kHashSlots words, zeroed), the parts' structure-hash terms (their `salts`)
 * are summed there too (for_each_hashed: team launches, a warp sum and one atomic a team).
 * (Was: two scalar copies, a RangePolicy Min reduction per pass and an allocated bitmap: 0.37 ms
 * on the 10 M-nnz stencil, H100 session 5, of which 0.13 ms the entry reduction.)
 */
template <class Part>
void check_crs_parts_enqueue(const Part& a, const Part* b, std::int64_t* hash_slots = nullptr) {
  using exec_t = typename Part::exec_t;
  using ordinal_t = typename Part::ordinal_t;
  const Part pb = b != nullptr ? *b : Part();  // n = 0, no entries: never called
  // row threads (kRowsPer rows each) of a, then of b; entry threads (kPer entries each) of a, then of b
  const std::int64_t ra = a.row_chunk;
  const std::int64_t rows = ra + pb.row_chunk, ca = a.chunk, entries = ca + pb.chunk;
  if (!a.require_sorted) {  // (b's flag is a's: both come from one caller's choice)
    for_each_hashed<exec_t>("kkperm::check_crs::rows_and_entries", rows + entries, hash_slots,
                            KOKKOS_LAMBDA(const std::int64_t t)->std::uint64_t {
                              if (t < ra) return a.row_group(t);
                              if (t < rows) return pb.row_group(t - ra);
                              if (t < rows + ca) return a.entry_chunk(t - rows);
                              return pb.entry_chunk(t - rows - ca);
                            });
    return;
  }
  for_each_hashed<exec_t>("kkperm::check_crs::rows", rows, hash_slots,
                          KOKKOS_LAMBDA(const std::int64_t t)->std::uint64_t {
                            return t < ra ? a.row_group(t) : pb.row_group(t - ra);
                          });
  for_each_hashed<exec_t>("kkperm::check_crs::entries", entries, hash_slots,
                          KOKKOS_LAMBDA(const std::int64_t t)->std::uint64_t {
                            return t < ca ? a.entry_chunk(t) : pb.entry_chunk(t - ca);
                          });
}

/// check_crs_parts_enqueue for one matrix.
template <class Matrix, class Verdict, class Starts>
void check_crs_enqueue(const Matrix& A, bool require_sorted, const Verdict& verdict, const Starts& starts) {
  const CrsCheckPart<Matrix, Verdict, Starts> a(A, require_sorted, verdict, starts);
  check_crs_parts_enqueue(a, static_cast<const CrsCheckPart<Matrix, Verdict, Starts>*>(nullptr));
}
}  // namespace detail

/**
 * @brief Checks a CrsMatrix's structure on its own execution space: row_map(0) == 0, row_map
 * monotone, row_map(n) == entries.extent(0) == values.extent(0), columns in [0, numCols) and,
 * when `require_sorted`, strictly increasing (sorted and unique) within every row.
 * The scan runs on the device (two kernels, one copy of the verdict); only the first offending row
 * is inspected on the host.
 */
template <class Matrix>
CrsCheck check_crs(const Matrix& A, bool require_sorted = true) {
  using ordinal_t = typename Matrix::non_const_ordinal_type;
  using offset_t = typename Matrix::non_const_size_type;
  using ws_t = detail::Workspace<typename Matrix::memory_space>;
  CrsCheck out;
  const ordinal_t n = A.numRows();
  const ordinal_t m = A.numCols();
  auto row_map = A.graph.row_map;
  auto entries = A.graph.entries;
  out.problem = detail::crs_shape_problem(A);
  if (n == 0 || !out.problem.empty()) return out;
  const auto nnz_total = static_cast<offset_t>(entries.extent(0));
  const std::int64_t words = detail::crs_check_words(A, require_sorted);
  ws_t ws(ws_t::template bytes_for<std::uint64_t>(2) + ws_t::template bytes_for<std::uint32_t>(words));
  const auto zero_from = ws.mark();
  const auto verdict = ws.template take<std::uint64_t>(2);
  const auto starts = ws.template take<std::uint32_t>(words);
  ws.template zero_since<typename Matrix::execution_space>(zero_from);
  detail::check_crs_enqueue(A, require_sorted, verdict, starts);
  std::uint64_t hv[2] = {0, 0};
  detail::read_back<typename Matrix::execution_space>(hv, verdict.data(), 2, "kkperm::check_crs");
  decltype(Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), row_map)) hr;  // host row_map, made once on failure
  std::int64_t first = n;
  if (hv[0] != 0) {
    hr = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), row_map);
    if (hr(0) != 0) {
      out.problem = "row_map(0) is " + std::to_string(hr(0)) + ", expected 0";
      return out;
    }
    if (hr(n) != nnz_total) {
      out.problem = "row_map(n) = " + std::to_string(hr(n)) + " but entries has " +
                    std::to_string(entries.extent(0)) + " and values " + std::to_string(A.values.extent(0)) +
                    " elements";
      return out;
    }
    first = static_cast<std::int64_t>(n) - static_cast<std::int64_t>(hv[0]);
  } else if (hv[1] != 0) {
    const std::int64_t first_k = static_cast<std::int64_t>(nnz_total) - static_cast<std::int64_t>(hv[1]);
    // the row holding entry first_k: the last row whose offset is <= first_k
    hr = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), row_map);
    first = static_cast<std::int64_t>(std::upper_bound(hr.data(), hr.data() + n + 1,
                                                       static_cast<offset_t>(first_k)) - hr.data()) - 1;
  }
  if (first >= n) return out;
  out.first_bad_row = first;
  // Describe the offending row on the host.
  if (hr.extent(0) == 0) hr = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), row_map);
  const offset_t b = hr(first), e = hr(first + 1);
  if (e < b || e > nnz_total) {
    out.problem = "row_map is not monotone at row " + std::to_string(first) + " (" +
                  std::to_string(b) + " -> " + std::to_string(e) + ")";
    return out;
  }
  auto he = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), entries);
  for (offset_t k = b; k < e; ++k) {
    const ordinal_t c = he(k);
    if (c < 0 || c >= m) {
      out.problem = "row " + std::to_string(first) + " has column " + std::to_string(c) +
                    " outside [0, " + std::to_string(m) + ")";
      return out;
    }
    if (k > b && he(k - 1) >= c) {
      out.problem = "row " + std::to_string(first) + " has " +
                    (he(k - 1) == c ? "a duplicate column " : "unsorted columns at ") +
                    std::to_string(c);
      return out;
    }
  }
  out.problem = "row " + std::to_string(first) + " is malformed";
  return out;
}

/// Throws std::invalid_argument "`who`: invalid matrix: <problem>" when check_crs fails.
template <class Matrix>
void validate(const Matrix& A, const char* who, bool require_sorted = true) {
  const CrsCheck c = check_crs(A, require_sorted);
  KKPERM_REQUIRE(c.ok(), who << ": invalid matrix (" << A.numRows() << " x " << A.numCols()
                             << ", nnz " << A.nnz() << "): " << c.problem);
}

namespace detail {
/**
 * validate_pair in two steps, so that work can be enqueued between the device checks and the
 * wait for their verdicts: the constructor enqueues the checks of A and B (sharing their
 * launches: one without the sorted check, else two) and, given `hash_slots` (kHashSlots words,
 * zeroed), adds the structure hash of (A, B) (structure_hash.hpp) from the same reads; check()
 * waits for the 4 verdict words and throws as validate_pair does; check(words) decides from the
 * words a caller read back itself from verdict_words() (the ESC analysis brings them back with
 * its bin plan, one host wait instead of two). Until then the matrices may be invalid: work
 * enqueued in between must not index memory through them unguarded.
 * Shape problems and empty matrices are decided in the constructor (plain checks, at once; no
 * hash: hashed() is false). When B is A (the same arrays and sizes, as for A²) A is checked once
 * and its single read adds both matrices' hash terms. On a failure the failing matrix is checked
 * again on its own for the message, so errors read exactly as validate's, A's first.
 * H100, session 30, run 228 (3D 7-point R(AP) setup, traced): the check took 39 µs and the hash
 * kept for numeric reuse another 34 µs over the same ~105 MB of index arrays; the verdict's own
 * read-back left the device idle for ~40 µs before the analysis.
 */
template <class Matrix>
class PairCheck {
 public:
  PairCheck(const Matrix& A, const char* whoA, const Matrix& B, const char* whoB, bool require_sorted = true,
            std::int64_t* hash_slots = nullptr)
      : A_(A), B_(B), who_a_(whoA), who_b_(whoB), sorted_(require_sorted) {
    using ws_t = Workspace<typename Matrix::memory_space>;
    same_ = A.numRows() == B.numRows() && A.numCols() == B.numCols() &&
            A.graph.row_map.data() == B.graph.row_map.data() &&
            A.graph.row_map.extent(0) == B.graph.row_map.extent(0) &&
            A.graph.entries.data() == B.graph.entries.data() &&
            A.graph.entries.extent(0) == B.graph.entries.extent(0) && A.values.extent(0) == B.values.extent(0);
    const bool devA = A.numRows() > 0 && crs_shape_problem(A).empty();
    const bool devB = same_ || (B.numRows() > 0 && crs_shape_problem(B).empty());
    if (!devA || !devB) {  // a shape problem or an empty matrix: the plain checks say it all
      validate(A, whoA, require_sorted);
      if (!same_) validate(B, whoB, require_sorted);
      return;
    }
    const std::int64_t wa = crs_check_words(A, require_sorted);
    const std::int64_t wb = same_ ? 0 : crs_check_words(B, require_sorted);
    ws_ = std::make_unique<ws_t>(ws_t::template bytes_for<std::uint64_t>(4) + ws_t::template bytes_for<std::uint32_t>(wa) +
                                 ws_t::template bytes_for<std::uint32_t>(wb));
    const auto zero_from = ws_->mark();
    const auto verdict = ws_->template take<std::uint64_t>(4);  // A's two words, then B's
    const auto sa = ws_->template take<std::uint32_t>(wa);
    const auto sb = ws_->template take<std::uint32_t>(wb);
    ws_->template zero_since<typename Matrix::execution_space>(zero_from);
    verdict_ = verdict.data();
    const auto va = Kokkos::subview(verdict, std::make_pair(0, 2));
    using part_t = CrsCheckPart<Matrix, decltype(va), decltype(sa)>;
    part_t pa(A, require_sorted, va, sa);
    part_t pb = same_ ? part_t() : part_t(B, require_sorted, Kokkos::subview(verdict, std::make_pair(2, 4)), sb);
    hashed_ = hash_slots != nullptr;
    if (hashed_) {
      pa.hash_into(true, same_);
      pb.hash_into(false, !same_);
    }
    check_crs_parts_enqueue(pa, same_ ? nullptr : &pb, hash_slots);
  }
  /// Tag of the unchecked form below.
  struct Unchecked {};
  /// No validation at all (SpgemmPlanOptions::trusted_inputs: the caller vouches for A and B):
  /// nothing is enqueued, check() is a no-op and hashed() is false.
  PairCheck(const Matrix& A, const Matrix& B, Unchecked) : A_(A), B_(B) {}
  PairCheck(const PairCheck&) = delete;
  PairCheck& operator=(const PairCheck&) = delete;

  /// Whether the hash of (A, B) went to the constructor's `hash_slots`.
  bool hashed() const { return hashed_; }
  /// Device address of the 4 verdict words while they are not decided; nullptr after check().
  const std::uint64_t* verdict_words() const { return ws_ ? verdict_ : nullptr; }
  /// Waits for the verdicts and throws std::invalid_argument naming the first bad matrix (no-op
  /// once decided).
  void check() {
    if (!ws_) return;
    std::uint64_t hv[4] = {0, 0, 0, 0};
    read_back<typename Matrix::execution_space>(hv, verdict_, 4, "kkperm::validate_pair");
    check(hv);
  }
  /// check() from the 4 words of verdict_words() read back by the caller.
  void check(const std::uint64_t* words) {
    if (!ws_) return;
    ws_.reset();
    if ((words[0] | words[1] | words[2] | words[3]) == 0) return;
    validate(A_, who_a_.c_str(), sorted_);
    if (!same_) validate(B_, who_b_.c_str(), sorted_);
    KKPERM_THROW(std::logic_error, who_a_ << " / " << who_b_ << ": the paired structure check failed but the "
                                              "single checks pass");
  }

 private:
  Matrix A_, B_;
  std::string who_a_, who_b_;
  bool sorted_ = true, same_ = false, hashed_ = false;
  std::unique_ptr<Workspace<typename Matrix::memory_space>> ws_;  ///< holds the verdicts until check()
  const std::uint64_t* verdict_ = nullptr;
};
}  // namespace detail

/// validate(A, whoA, sorted) and validate(B, whoB, sorted) with one wait for both verdicts (the
/// checks of both matrices share their launches: one without the sorted check, else two); on a
/// failure the failing matrix is checked again on its own for the message, so errors read exactly
/// as validate's, A's first. When B is A (the same arrays and sizes, as for A²) A is checked once.
template <class Matrix>
void validate_pair(const Matrix& A, const char* whoA, const Matrix& B, const char* whoB, bool require_sorted = true) {
  detail::PairCheck<Matrix>(A, whoA, B, whoB, require_sorted).check();
}

}  // namespace kkperm
