// Session 30: column span of each row of C for the SA products AP and R(AP) of a generated matrix
// (CPU build): span = last column - first column + 1 of a row of C, the width a dense per-row value
// window of the ESC count pass would need. Prints percentiles and the share of rows whose window
// (span doubles + its bitmap) fits 2, 4, 5 or 8 KB.
// Build (after `ninja -C build`), from build/:
//   c++ -I../perf_test -I../src -I../plugins -I/usr/include/trilinos -O2 -std=c++17 -o /tmp/c_spans \
//     ../scripts/gpu/session30/c_spans.cpp perf_test/libkkperm_perf_common.a libkkperm.a \
//     /usr/lib/x86_64-linux-gnu/libtrilinos_kokkoskernels.so.13.2 /usr/lib/x86_64-linux-gnu/liblapack.so \
//     /usr/lib/x86_64-linux-gnu/libblas.so /usr/lib/x86_64-linux-gnu/libtrilinos_kokkosalgorithms.so.13.2 \
//     /usr/lib/x86_64-linux-gnu/libtrilinos_kokkoscontainers.so.13.2 \
//     /usr/lib/x86_64-linux-gnu/libtrilinos_kokkoscore.so.13.2 -ldl /usr/lib/x86_64-linux-gnu/libz.so
// Run: /tmp/c_spans "laplace2d5:nx=1000,ny=1000"
#include <algorithm>
#include <cstdio>
#include <vector>
#include "common/cli.hpp"
#include "kkperm/kernels/spgemm/amg.hpp"
#include "kkperm/select/spgemm_candidates.hpp"
using Matrix = kkperm::Crs<double, int, kkperm::DefaultDevice, int>;
int main(int argc, char** argv) {
  Kokkos::initialize(argc, argv);
  {
    kkperm::perf::MatrixSource src; src.kind = kkperm::perf::MatrixSource::Kind::gen; src.spec = argv[1]; src.name = argv[1];
    Matrix A = kkperm::to_device<Matrix>(kkperm::perf::load_matrix(src));
    auto agg = kkperm::amg::aggregate_mis2(A);
    Matrix Pt = kkperm::amg::tentative_prolongator<Matrix>(agg.labels, agg.num_aggregates, A.numRows());
    Matrix P = kkperm::amg::smooth_prolongator(A, Pt, kkperm::amg::jacobi_omega(A));
    Matrix R = kkperm::amg::transpose(P);
    auto ap = kkperm::make_spgemm_plan<Matrix>(kkperm::SpgemmCandidate::esc);
    ap->setup(A, P);
    const Matrix& AP = ap->C();
    const Matrix* L[2] = {&A, &R};
    const Matrix* Rr[2] = {&P, &AP};
    const char* nm[2] = {"AP", "RAP"};
    for (int w = 0; w < 2; ++w) {
      auto pl = kkperm::make_spgemm_plan<Matrix>(kkperm::SpgemmCandidate::esc);
      pl->setup(*L[w], *Rr[w]);
      const Matrix& C = pl->C();
      auto rm = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), C.graph.row_map);
      auto en = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), C.graph.entries);
      std::vector<long> span;
      for (int i = 0; i < C.numRows(); ++i) if (rm(i+1) > rm(i)) span.push_back(en(rm(i+1)-1) - en(rm(i)) + 1);
      std::sort(span.begin(), span.end());
      auto pct = [&](double q) { return span[std::min<size_t>(span.size()-1, size_t(q*span.size()))]; };
      std::printf("%s %s rows %d nnzC %d span p10 %ld p50 %ld p90 %ld p99 %ld max %ld\n", argv[1], nm[w], C.numRows(), C.nnz(), pct(.1), pct(.5), pct(.9), pct(.99), span.back());
      for (int bytes : {2048, 4096, 5120, 8192}) {
        size_t fit = 0; for (long s : span) if (s * 8 + (s + 31) / 32 * 4 <= bytes) ++fit;
        std::printf("   window fits %d B: %.1f %%\n", bytes, 100.0 * fit / span.size());
      }
    }
  }
  Kokkos::finalize();
}
