#pragma once
/**
 * @brief Smoothed-aggregation pieces for the Galerkin (RAP) benchmark: MIS-2 aggregation (KK's
 * graph_mis2_coarsen), tentative prolongator, one damped-Jacobi smoothing step and R = Pᵀ, all on
 * the matrix's execution space, each with a serial twin on HostCsr.
 *
 * Usage:
 *   auto agg = kkperm::amg::aggregate_mis2(A);                 // labels, num_aggregates
 *   auto Pt  = kkperm::amg::tentative_prolongator<Matrix>(agg, A.numRows());
 *   double w = kkperm::amg::jacobi_omega(A);                  // 4/3 / ρ bound
 *   auto P   = kkperm::amg::smooth_prolongator(A, Pt, w);     // (I − ω D⁻¹A) Pt
 *   auto R   = kkperm::amg::transpose(P);
 * Preconditions: A square with a structurally symmetric pattern (aggregation works on A's
 * graph) and a nonzero diagonal entry in every row (checked: std::invalid_argument).
 * ω choice (stated): ρ(D⁻¹A) is bounded by the Gershgorin bound max_i Σ_j |a_ij| / |a_ii|
 * (cheap, deterministic, never underestimates), ω = (4/3) / that bound.
 */
#include <Kokkos_Core.hpp>
#include <KokkosGraph_MIS2.hpp>
#include <KokkosKernels_SparseUtils.hpp>

#include <cmath>
#include <cstdint>
#include <vector>

#include "kkperm/core/crs_utils.hpp"
#include "kkperm/core/error.hpp"
#include "kkperm/core/host_csr.hpp"
#include "kkperm/core/launch_policy.hpp"
#include "kkperm/kernels/spgemm/esc_spgemm.hpp"
#include "kkperm/kernels/spgemm/spgemm_reference.hpp"

namespace kkperm::amg {

template <class Device, class O = int>
struct Aggregates {
  Kokkos::View<O*, Device> labels;  ///< aggregate of each row, in [0, num_aggregates)
  O num_aggregates = 0;
};

/// MIS-2 aggregation of A's graph (KK 3.4 graph_mis2_coarsen, MIS2_FAST).
template <class Matrix>
Aggregates<typename Matrix::device_type, typename Matrix::non_const_ordinal_type> aggregate_mis2(
    const Matrix& A) {
  using O = typename Matrix::non_const_ordinal_type;
  using device = typename Matrix::device_type;
  KKPERM_REQUIRE(A.numRows() == A.numCols(), "kkperm::amg::aggregate_mis2: A is "
                                                 << A.numRows() << " x " << A.numCols()
                                                 << ", expected square");
  Aggregates<device, O> out;
  if (A.numRows() == 0) return out;
  O n_agg = 0;
  out.labels = KokkosGraph::Experimental::graph_mis2_coarsen<device>(
      A.graph.row_map, A.graph.entries, n_agg, KokkosGraph::MIS2_FAST);
  out.num_aggregates = n_agg;
  // every row must be labelled in range
  const auto labels = out.labels;
  std::int64_t bad = 0;
  Kokkos::parallel_reduce(
      "kkperm::amg::check_labels",
      kkperm::range_policy<typename Matrix::execution_space>(0, A.numRows()),
      KOKKOS_LAMBDA(const std::int64_t i, std::int64_t& b) {
        if (labels(i) < 0 || labels(i) >= n_agg) b += 1;
      },
      bad);
  KKPERM_ASSERT(bad == 0, bad << " rows left unaggregated by graph_mis2_coarsen");
  return out;
}

/// P_tent(i, agg(i)) = 1/sqrt(|agg|): columns orthonormal, constant vector reproduced per aggregate.
template <class Matrix, class Labels>
Matrix tentative_prolongator(const Labels& labels, typename Matrix::non_const_ordinal_type n_agg,
                             typename Matrix::non_const_ordinal_type n) {
  using exec = typename Matrix::execution_space;
  using V = typename Matrix::non_const_value_type;
  using rowmap_t = typename Matrix::row_map_type::non_const_type;
  using entries_t = typename Matrix::index_type::non_const_type;
  using values_t = typename Matrix::values_type::non_const_type;
  using F = typename Matrix::non_const_size_type;
  Kokkos::View<int*, typename Matrix::device_type> size("kkperm::amg::agg_size", n_agg);
  kkperm::parallel_for(
      "kkperm::amg::agg_size", kkperm::range_policy<exec>(0, n),
      KOKKOS_LAMBDA(const std::int64_t i) { Kokkos::atomic_add(&size(labels(i)), 1); });
  rowmap_t rm("kkperm::amg::Ptent::row_map", n + 1);
  entries_t en("kkperm::amg::Ptent::entries", n);
  values_t va("kkperm::amg::Ptent::values", n);
  kkperm::parallel_for(
      "kkperm::amg::tentative", kkperm::range_policy<exec>(0, n), KOKKOS_LAMBDA(const std::int64_t i) {
        rm(i + 1) = static_cast<F>(i + 1);
        en(i) = labels(i);
        va(i) = V(1) / Kokkos::Experimental::sqrt(static_cast<V>(size(labels(i))));
      });
  return Matrix("kkperm::amg::Ptent", n, n_agg, static_cast<F>(n), va, rm, en);
}

/// Gershgorin bound based ω = (4/3) / max_i Σ_j |a_ij| / |a_ii|. Throws on a zero/missing diagonal.
template <class Matrix>
double jacobi_omega(const Matrix& A) {
  using exec = typename Matrix::execution_space;
  const auto rm = A.graph.row_map;
  const auto en = A.graph.entries;
  const auto va = A.values;
  double rho = 0.0;
  std::int64_t missing = 0;
  Kokkos::parallel_reduce(
      "kkperm::amg::gershgorin", kkperm::range_policy<exec>(0, A.numRows()),
      KOKKOS_LAMBDA(const std::int64_t i, double& r, std::int64_t& m) {
        double d = 0.0, s = 0.0;
        for (auto p = rm(i); p < rm(i + 1); ++p) {
          const double a = Kokkos::Experimental::fabs(static_cast<double>(va(p)));
          if (en(p) == i) d += a;
          s += a;
        }
        if (d == 0.0) m += 1;
        else if (s / d > r) r = s / d;
      },
      Kokkos::Max<double>(rho), missing);
  KKPERM_REQUIRE(missing == 0, "kkperm::amg::jacobi_omega: " << missing
                                                             << " rows have a zero or missing diagonal");
  return rho > 0.0 ? (4.0 / 3.0) / rho : 0.0;
}

/// P = Pt − ω D⁻¹ (A Pt), the A·Pt product computed by the ESC kernel; sorted rows.
template <class Matrix>
Matrix smooth_prolongator(const Matrix& A, const Matrix& Pt, double omega) {
  using exec = typename Matrix::execution_space;
  using V = typename Matrix::non_const_value_type;
  using F = typename Matrix::non_const_size_type;
  using rowmap_t = typename Matrix::row_map_type::non_const_type;
  using entries_t = typename Matrix::index_type::non_const_type;
  using values_t = typename Matrix::values_type::non_const_type;
  KKPERM_REQUIRE(A.numRows() == A.numCols() && A.numCols() == Pt.numRows(),
                 "kkperm::amg::smooth_prolongator: A " << A.numRows() << " x " << A.numCols()
                                                       << ", Pt " << Pt.numRows() << " rows");
  const Matrix AP = spgemm::esc_multiply(A, Pt);
  const std::int64_t n = A.numRows();
  const auto rA = A.graph.row_map;
  const auto eA = A.graph.entries;
  const auto vA = A.values;
  const auto rP = Pt.graph.row_map;
  const auto eP = Pt.graph.entries;
  const auto vP = Pt.values;
  const auto rM = AP.graph.row_map;
  const auto eM = AP.graph.entries;
  const auto vM = AP.values;
  // union of the row structures of Pt and AP (both sorted)
  Kokkos::View<std::int64_t*, typename Matrix::device_type> cnt("kkperm::amg::P_counts", n);
  kkperm::parallel_for(
      "kkperm::amg::smooth_count", kkperm::range_policy<exec>(0, n), KOKKOS_LAMBDA(const std::int64_t i) {
        std::int64_t c = rM(i + 1) - rM(i);
        for (auto p = rP(i); p < rP(i + 1); ++p)
          if (spgemm::esc_impl::find_col(eM, rM(i), rM(i + 1), eP(p)) < 0) ++c;
        cnt(i) = c;
      });
  rowmap_t rm("kkperm::amg::P::row_map", n + 1);
  spgemm::esc_impl::counts_to_rowmap<exec>(cnt, rm, n);
  F nnz = 0;
  Kokkos::deep_copy(nnz, Kokkos::subview(rm, n));
  entries_t en(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kkperm::amg::P::entries"), nnz);
  values_t va(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kkperm::amg::P::values"), nnz);
  const V w = static_cast<V>(omega);
  kkperm::parallel_for(
      "kkperm::amg::smooth_fill", kkperm::range_policy<exec>(0, n), KOKKOS_LAMBDA(const std::int64_t i) {
        V d = 0;
        for (auto p = rA(i); p < rA(i + 1); ++p)
          if (eA(p) == i) d += vA(p);
        // merge two sorted lists: AP row (scaled) and Pt row
        auto a = rM(i), ae = rM(i + 1);
        auto b = rP(i), be = rP(i + 1);
        auto o = rm(i);
        while (a < ae || b < be) {
          if (b >= be || (a < ae && eM(a) < eP(b))) {
            en(o) = eM(a);
            va(o) = -w * vM(a) / d;
            ++a;
          } else if (a >= ae || eP(b) < eM(a)) {
            en(o) = eP(b);
            va(o) = vP(b);
            ++b;
          } else {
            en(o) = eP(b);
            va(o) = vP(b) - w * vM(a) / d;
            ++a;
            ++b;
          }
          ++o;
        }
      });
  return Matrix("kkperm::amg::P", A.numRows(), Pt.numCols(), nnz, va, rm, en);
}

/// Pᵀ on the device (KK transpose_matrix), rows sorted afterwards.
template <class Matrix>
Matrix transpose(const Matrix& P) {
  using exec = typename Matrix::execution_space;
  using rowmap_t = typename Matrix::row_map_type::non_const_type;
  using entries_t = typename Matrix::index_type::non_const_type;
  using values_t = typename Matrix::values_type::non_const_type;
  rowmap_t rm("kkperm::amg::R::row_map", static_cast<std::size_t>(P.numCols()) + 1);
  entries_t en(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kkperm::amg::R::entries"), P.nnz());
  values_t va(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kkperm::amg::R::values"), P.nnz());
  KokkosKernels::Impl::transpose_matrix<typename Matrix::row_map_type, typename Matrix::index_type,
                                        typename Matrix::values_type, rowmap_t, entries_t,
                                        values_t, rowmap_t, exec>(
      P.numRows(), P.numCols(), P.graph.row_map, P.graph.entries, P.values, rm, en, va);
  KokkosKernels::Impl::sort_crs_matrix<exec>(rm, en, va);
  return Matrix("kkperm::amg::R", P.numCols(), P.numRows(), P.nnz(), va, rm, en);
}

// ---- serial twins -------------------------------------------------------------------------

template <class V, class O, class F>
HostCsr<V, O, F> tentative_prolongator_serial(const std::vector<O>& labels, O n_agg) {
  HostCsr<V, O, F> P;
  P.num_rows = static_cast<O>(labels.size());
  P.num_cols = n_agg;
  std::vector<int> size(static_cast<std::size_t>(n_agg), 0);
  for (O l : labels) ++size[l];
  P.row_map.assign(labels.size() + 1, 0);
  for (std::size_t i = 0; i < labels.size(); ++i) {
    P.entries.push_back(labels[i]);
    P.values.push_back(V(1) / std::sqrt(static_cast<V>(size[labels[i]])));
    P.row_map[i + 1] = static_cast<F>(i + 1);
  }
  return P;
}

template <class V, class O, class F>
HostCsr<V, O, F> smooth_prolongator_serial(const HostCsr<V, O, F>& A, const HostCsr<V, O, F>& Pt,
                                           double omega) {
  const auto AP = spgemm::reference_multiply(A, Pt).C;
  HostCsr<V, O, F> P;
  P.num_rows = A.num_rows;
  P.num_cols = Pt.num_cols;
  P.row_map.assign(static_cast<std::size_t>(A.num_rows) + 1, 0);
  const V w = static_cast<V>(omega);
  for (O i = 0; i < A.num_rows; ++i) {
    V d = 0;
    for (F p = A.row_map[i]; p < A.row_map[i + 1]; ++p)
      if (A.entries[p] == i) d += A.values[p];
    F a = AP.row_map[i], ae = AP.row_map[i + 1], b = Pt.row_map[i], be = Pt.row_map[i + 1];
    while (a < ae || b < be) {
      if (b >= be || (a < ae && AP.entries[a] < Pt.entries[b])) {
        P.entries.push_back(AP.entries[a]);
        P.values.push_back(-w * AP.values[a] / d);
        ++a;
      } else if (a >= ae || Pt.entries[b] < AP.entries[a]) {
        P.entries.push_back(Pt.entries[b]);
        P.values.push_back(Pt.values[b]);
        ++b;
      } else {
        P.entries.push_back(Pt.entries[b]);
        P.values.push_back(Pt.values[b] - w * AP.values[a] / d);
        ++a;
        ++b;
      }
    }
    P.row_map[i + 1] = static_cast<F>(P.entries.size());
  }
  return P;
}

}  // namespace kkperm::amg
