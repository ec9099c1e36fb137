// Downstream use of an installed kkperm: build a tiny matrix, validate it, run KK spmv.
#include <cstdio>

#include "kkperm/core/crs_utils.hpp"  // includes Kokkos_Core first: KK 3.4 headers need it
#include <KokkosSparse_spmv.hpp>

int main(int argc, char** argv) {
  Kokkos::ScopeGuard guard(argc, argv);
  kkperm::HostCsr<double, int, int> h;
  h.num_rows = 2;
  h.num_cols = 2;
  h.row_map = {0, 1, 3};
  h.entries = {0, 0, 1};
  h.values = {2.0, 1.0, 3.0};
  auto A = kkperm::to_device<kkperm::DefaultCrs>(h);
  kkperm::validate(A, "kkperm_consumer");
  Kokkos::View<double*> x("x", 2), y("y", 2);
  Kokkos::deep_copy(x, 1.0);
  KokkosSparse::spmv("N", 1.0, A, x, 0.0, y);
  auto hy = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y);
  const bool ok = hy(0) == 2.0 && hy(1) == 4.0;
  std::printf("kkperm consumer: y = (%g, %g) %s\n", hy(0), hy(1), ok ? "OK" : "WRONG");
  return ok ? 0 : 1;
}
