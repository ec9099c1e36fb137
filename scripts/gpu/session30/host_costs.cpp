// Session 30: host-side costs of the calls an ESC SpGEMM setup makes between its kernels, on the
// GPU machine. Built with the CUDA Kokkos (build_host_costs.sh); run on the device.
// Per case, medians over 200 samples:
//   host  = host wall time of one call (20 back to back, / 20), the device otherwise idle;
//   wait  = (read-backs) host wall time from an idle device to the numbers on the host.
// Why: the launch trace of a 2D 5-point R(AP) setup (run 218) shows the device idle ~96 us between
// the bin plan's read-back and the count kernel, the host busy with a guard check, pooled
// allocations, a CUB scan and launches. Which of them cost what decides what to remove.
#include <Kokkos_Core.hpp>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "kkperm/core/launch_policy.hpp"
#include "kkperm/core/read_back.hpp"

using clk = std::chrono::steady_clock;
using I64 = Kokkos::View<std::int64_t*, Kokkos::CudaSpace>;

static double med(std::vector<double> x) {
  std::sort(x.begin(), x.end());
  return x[x.size() / 2];
}

template <class F>
void host_cost(const char* name, F&& call, int chain = 20) {
  for (int w = 0; w < 5; ++w) call();
  cudaDeviceSynchronize();
  std::vector<double> h;
  for (int r = 0; r < 200; ++r) {
    cudaDeviceSynchronize();
    const auto t0 = clk::now();
    for (int k = 0; k < chain; ++k) call();
    h.push_back(std::chrono::duration<double, std::micro>(clk::now() - t0).count() / chain);
  }
  cudaDeviceSynchronize();
  std::printf("%-58s host %8.2f us/call\n", name, med(h));
}

template <class F>
void wait_cost(const char* name, F&& call) {
  for (int w = 0; w < 5; ++w) call();
  std::vector<double> h;
  for (int r = 0; r < 200; ++r) {
    cudaDeviceSynchronize();
    const auto t0 = clk::now();
    call();
    h.push_back(std::chrono::duration<double, std::micro>(clk::now() - t0).count());
  }
  std::printf("%-58s wait %8.2f us\n", name, med(h));
}

struct CntAt {
  I64 c;
  KOKKOS_INLINE_FUNCTION std::int64_t operator()(const std::int64_t i) const { return c(i); }
};

int main(int argc, char** argv) {
  Kokkos::initialize(argc, argv);
  {
    const Kokkos::Cuda exec;
    const cudaStream_t s = exec.cuda_stream();
    const std::int64_t n = 144098;  // rows of the 2D 5-point R(AP)
    I64 cnt("cnt", n), out("out", n + 1), d5("d5", 5);
    Kokkos::deep_copy(cnt, 3);
    std::int64_t h5[5];
    for (int pass = 0; pass < 2; ++pass) {
      std::printf("-- pass %d\n", pass);
      host_cost("cudaMemGetInfo", [] {
        std::size_t f = 0, t = 0;
        cudaMemGetInfo(&f, &t);
      });
      host_cost("cudaEventCreate + cudaEventDestroy", [] {
        cudaEvent_t e;
        cudaEventCreate(&e);
        cudaEventDestroy(e);
      });
      cudaEvent_t ev;
      cudaEventCreate(&ev);
      host_cost("cudaEventRecord", [&] { cudaEventRecord(ev, s); });
      host_cost("cudaMemsetAsync 1 MB", [&] { cudaMemsetAsync(cnt.data(), 0, 1 << 20, s); });
      cudaMemPool_t pool;
      cudaDeviceGetDefaultMemPool(&pool, 0);
      std::uint64_t keep = 1ull << 30;
      cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep);
      host_cost("cudaMallocAsync + cudaFreeAsync 42 MB (warm pool)", [&] {
        void* p = nullptr;
        cudaMallocAsync(&p, 42u << 20, s);
        cudaFreeAsync(p, s);
      });
      const auto in = thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0), CntAt{cnt});
      std::size_t tb = 0;
      cub::DeviceScan::ExclusiveSum(nullptr, tb, in, out.data(), static_cast<int>(n + 1), s);
      void* temp = nullptr;
      cudaMalloc(&temp, tb);
      host_cost("cub ExclusiveSum size query", [&] {
        std::size_t b = 0;
        cub::DeviceScan::ExclusiveSum(nullptr, b, in, out.data(), static_cast<int>(n + 1), s);
      });
      host_cost("cub ExclusiveSum run (144k)", [&] {
        std::size_t b = tb;
        cub::DeviceScan::ExclusiveSum(temp, b, in, out.data(), static_cast<int>(n + 1), s);
      });
      host_cost("Kokkos range parallel_for (kkperm range_policy)", [&] {
        Kokkos::parallel_for("k", kkperm::range_policy<Kokkos::Cuda>(0, n),
                             KOKKOS_LAMBDA(const std::int64_t i) { out(i) = cnt(i); });
      });
      using tp = kkperm::team_policy<Kokkos::Cuda>;
      host_cost("Kokkos team parallel_for + 2 KB scratch", [&] {
        tp p(static_cast<int>(n / 256), 256);
        p.set_scratch_size(0, Kokkos::PerTeam(2048));
        Kokkos::parallel_for("t", p, KOKKOS_LAMBDA(const tp::member_type& t) {
          const std::int64_t i = std::int64_t(t.league_rank()) * 256 + t.team_rank();
          out(i) = cnt(i);
        });
      });
      wait_cost("read back 5 x int64: Kokkos::deep_copy (pageable)", [&] {
        Kokkos::deep_copy(Kokkos::View<std::int64_t*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(h5, 5), d5);
      });
      wait_cost("read back 5 x int64: cudaMemcpy (pageable)",
                [&] { cudaMemcpy(h5, d5.data(), 40, cudaMemcpyDeviceToHost); });
      wait_cost("read back 5 x int64: kkperm read_back (pinned, stream sync)",
                [&] { kkperm::detail::read_back<Kokkos::Cuda>(h5, d5.data(), 5, "host_costs"); });
      wait_cost("cudaStreamSynchronize (idle)", [&] { cudaStreamSynchronize(s); });
      wait_cost("Kokkos::fence (idle)", [] { Kokkos::fence(); });
      cudaFree(temp);
      cudaEventDestroy(ev);
    }
  }
  Kokkos::finalize();
  return 0;
}
