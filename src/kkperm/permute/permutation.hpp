#pragma once
/**
 * @brief Row-permutation identities (enum class Permutation with to_string/from_string), build
 * parameters and the two permutation results: RowPermutation<O> (host std::vectors; what the
 * serial twins return) and DeviceRowPermutation<O, Mem> (Views in the matrix's memory space; what
 * build_permutation returns, so nothing crosses to the host unless `to_host()` is called).
 *
 * Convention: `perm[new_position] = old_row` (the gather map P: row p of the permuted matrix is
 * row perm[p] of A) and `inverse[old_row] = new_position` (P^-1).
 */
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "kkperm/core/error.hpp"
#include "kkperm/core/launch_policy.hpp"
#include "kkperm/core/workspace.hpp"
#include "kkperm/features/feature_params.hpp"

namespace kkperm {

enum class Permutation {
  identity,
  plain_sort,
  flipped_sort,
  lpt,
  warp_aware,
  cta_aware,
  hybrid_1,
  hybrid_2_1,
  hybrid_2_2,
  hybrid_2_3,
  rcm,
  dcsr
};

inline const std::vector<Permutation>& all_permutations() {
  static const std::vector<Permutation> all = {
      Permutation::identity,   Permutation::plain_sort, Permutation::flipped_sort,
      Permutation::lpt,        Permutation::warp_aware, Permutation::cta_aware,
      Permutation::hybrid_1,   Permutation::hybrid_2_1, Permutation::hybrid_2_2,
      Permutation::hybrid_2_3, Permutation::rcm,        Permutation::dcsr};
  return all;
}

inline std::string to_string(Permutation p) {
  switch (p) {
    case Permutation::identity: return "identity";
    case Permutation::plain_sort: return "plain_sort";
    case Permutation::flipped_sort: return "flipped_sort";
    case Permutation::lpt: return "lpt";
    case Permutation::warp_aware: return "warp_aware";
    case Permutation::cta_aware: return "cta_aware";
    case Permutation::hybrid_1: return "hybrid_1";
    case Permutation::hybrid_2_1: return "hybrid_2_1";
    case Permutation::hybrid_2_2: return "hybrid_2_2";
    case Permutation::hybrid_2_3: return "hybrid_2_3";
    case Permutation::rcm: return "rcm";
    case Permutation::dcsr: return "dcsr";
  }
  KKPERM_THROW(std::invalid_argument, "kkperm::to_string: invalid Permutation value "
                                          << static_cast<int>(p));
}

/// Parses a name produced by to_string; throws std::invalid_argument listing the valid names.
inline Permutation permutation_from_string(const std::string& s) {
  std::string valid;
  for (auto p : all_permutations()) {
    if (to_string(p) == s) return p;
    valid += (valid.empty() ? "" : ", ") + to_string(p);
  }
  KKPERM_THROW(std::invalid_argument,
               "kkperm::permutation_from_string: unknown permutation '" << s << "' (valid: " << valid << ")");
}
inline void from_string(const std::string& s, Permutation& out) { out = permutation_from_string(s); }

/// True for the greedy Hamming-distance orders (exact O(n^2) or chunk-exact, HammingMode).
inline bool is_hamming(Permutation p) {
  return p == Permutation::warp_aware || p == Permutation::cta_aware ||
         p == Permutation::hybrid_1 || p == Permutation::hybrid_2_1 ||
         p == Permutation::hybrid_2_2 || p == Permutation::hybrid_2_3;
}

/// How the greedy Hamming orders are built.
enum class HammingMode {
  exact,     ///< literal O(n^2) greedy on the host (reference; small n only)
  windowed,  ///< exact greedy within chunks of a locality-sorted order (scalable, device)
  automatic  ///< exact when n_row <= exact_max_rows, windowed otherwise
};

struct PermuteParams {
  FeatureParams feature{};          ///< Nt, Nw and cache-line width (masks have ceil(n_col/cpl) bits)
  HammingMode hamming = HammingMode::automatic;
  std::int64_t exact_max_rows = 2048;  ///< automatic: largest n_row built with the exact greedy
  /// windowed: rows per independent chunk (rounded up to k*Nw); every unplaced row of a chunk is
  /// a candidate at each step, so the work grows as chunk_rows * n. Quality vs the exact greedy
  /// per chunk size in test_permute_device.cpp.
  int chunk_rows = 256;
  /// windowed: line bound per chunk (0 = none). A chunk whose rows hold more distinct lines in
  /// all is cut, at Nw-row group borders, where its running line count crosses a multiple of it
  /// (detail::chunk_boundaries), so a chunk's work (rows x lines) stays bounded on long rows.
  /// 1024 keeps 256-row chunks of 2D stencils (~3 lines per row) whole, halves those of 3D
  /// 7-point stencils and 8-per-row random rows, and gives hub rows chunks of one Nw group.
  std::int64_t chunk_lines = 1024;
  std::uint64_t seed = 0x6b6b7065726dull;  ///< MinHash seed (fixed => deterministic orders)
  /// true (default): build_permutation runs kkperm::validate(A) (sorted unique columns, O(nnz)).
  /// false: the caller has already validated this structure (e.g. the SpMV/SpMM registries,
  /// whose precondition is a validated A); an invalid A then gives unspecified orders.
  bool validate_matrix = true;
};

/// A row permutation: perm[new] = old, inverse[old] = new. `symmetric` asks PermutedCrsMatrix to
/// permute columns too (RCM). For DCSR the first `num_nonempty` positions hold the non-empty rows.
template <class O>
struct RowPermutation {
  Permutation kind = Permutation::identity;
  bool symmetric = false;
  O num_nonempty = 0;
  std::vector<O> perm;
  std::vector<O> inverse;
};

/// A permutation resident in memory space Mem (perm[new] = old, inverse[old] = new), as built by
/// build_permutation on the matrix's execution space. `to_host()` copies it into a RowPermutation.
template <class O, class Mem>
struct DeviceRowPermutation {
  using view_type = Kokkos::View<O*, Mem>;
  Permutation kind = Permutation::identity;
  bool symmetric = false;
  O num_nonempty = 0;
  view_type perm;
  view_type inverse;

  std::size_t size() const { return perm.extent(0); }
  /// Host copy (tests, serial consumers): two deep copies.
  RowPermutation<O> to_host() const {
    RowPermutation<O> r;
    r.kind = kind;
    r.symmetric = symmetric;
    r.num_nonempty = num_nonempty;
    r.perm.resize(perm.extent(0));
    r.inverse.resize(inverse.extent(0));
    Kokkos::deep_copy(Kokkos::View<O*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(r.perm.data(), r.perm.size()), perm);
    Kokkos::deep_copy(Kokkos::View<O*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(r.inverse.data(), r.inverse.size()),
                      inverse);
    return r;
  }
};

namespace detail {
/// inverse(perm(k)) = k on Exec, counting the entries that break bijectivity (out of range or a
/// repeated target; every bad entry of a non-bijection is counted at least once). Returns the count.
template <class Exec, class O, class Mem>
std::int64_t device_inverse(const Kokkos::View<O*, Mem>& perm, const Kokkos::View<O*, Mem>& inv) {
  const std::int64_t n = static_cast<std::int64_t>(perm.extent(0));
  if (n == 0) return 0;
  Kokkos::deep_copy(Exec(), inv, O(-1));
  // One parallel_for; the rare bad entries count through an atomic in workspace memory, and one
  // scalar copy ends it (was a RangePolicy reduction).
  Workspace<Mem> ws(Workspace<Mem>::template bytes_for<unsigned long long>(1));
  const auto from = ws.mark();
  auto bad = ws.template take<unsigned long long>(1);
  ws.template zero_since<Exec>(from);
  kkperm::parallel_for(
      "kkperm::permute::inverse", kkperm::range_policy<Exec>(0, n), KOKKOS_LAMBDA(const std::int64_t k) {
        const O r = perm(k);
        if (r < 0 || static_cast<std::int64_t>(r) >= n || Kokkos::atomic_exchange(&inv(r), static_cast<O>(k)) != O(-1))
          Kokkos::atomic_add(&bad(0), 1ull);
      });
  unsigned long long h = 0;
  Kokkos::deep_copy(Kokkos::View<unsigned long long, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(&h), Kokkos::subview(bad, 0));
  return static_cast<std::int64_t>(h);
}
}  // namespace detail

/// Wraps a device perm into a DeviceRowPermutation, computing inverse and checking bijectivity on
/// Exec (throws std::invalid_argument naming `who`).
template <class Exec, class O, class Mem>
DeviceRowPermutation<O, Mem> make_device_permutation(Permutation kind, const Kokkos::View<O*, Mem>& perm,
                                                     const char* who) {
  DeviceRowPermutation<O, Mem> r;
  r.kind = kind;
  r.perm = perm;
  r.inverse = Kokkos::View<O*, Mem>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kkperm::permute::inverse"),
                                    perm.extent(0));
  const std::int64_t bad = detail::device_inverse<Exec>(perm, r.inverse);
  KKPERM_REQUIRE(bad == 0, who << ": not a permutation (" << bad << " of " << perm.extent(0)
                               << " entries out of range or repeated)");
  return r;
}

/// Copies a host order to Mem and wraps it (inverse + bijection check on Exec).
template <class Exec, class Mem, class O>
DeviceRowPermutation<O, Mem> device_permutation_from_host(Permutation kind, const std::vector<O>& perm,
                                                          const char* who) {
  Kokkos::View<O*, Mem> d(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kkperm::permute::perm"), perm.size());
  Kokkos::deep_copy(d, Kokkos::View<const O*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(perm.data(), perm.size()));
  return make_device_permutation<Exec>(kind, d, who);
}

/// Fills `inverse` from `perm`, checking that perm is a bijection of [0, n) (throws otherwise).
template <class O>
void fill_inverse(RowPermutation<O>& p, const char* who = "kkperm::fill_inverse") {
  const std::size_t n = p.perm.size();
  p.inverse.assign(n, O(-1));
  for (std::size_t k = 0; k < n; ++k) {
    const O r = p.perm[k];
    KKPERM_REQUIRE(r >= 0 && static_cast<std::size_t>(r) < n && p.inverse[r] == O(-1),
                   who << ": not a permutation (entry " << k << " = " << r << ")");
    p.inverse[r] = static_cast<O>(k);
  }
}

}  // namespace kkperm
