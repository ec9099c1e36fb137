// Session 28: what one Kokkos 3.4 launch costs on the GPU timeline, by launch path.
// Built with the CUDA build's compile and link lines (build_launch_cost.sh); run on the device.
// Prints, per case, the median over 200 calls of:
//   one   = CUDA-event time of one call alone (record, launch, record; what the perf tools time);
//   chain = CUDA-event time of 20 back-to-back calls / 20 (how fast the host can feed the GPU);
//   host  = host wall time of issuing the 20 calls / 20.
// Cases: raw CUDA empty kernel; Kokkos RangePolicy with a 16-byte functor; RangePolicy and
// TeamPolicy with a ~1 KB functor (40 Views), by default (Kokkos: constant memory, with a
// cudaEventSynchronize before each launch) and with HintLightWeight (kernel argument).
// "busy" cases: each kernel spins ~20 us first, so the host is ahead of the GPU; chain/call is
// then the kernel time plus the gap between kernels.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

__global__ void empty_kernel() {}

using V = Kokkos::View<int*, Kokkos::CudaSpace>;
using Light = Kokkos::Experimental::WorkItemProperty::HintLightWeight_t;

struct Big {  // 40 Views: sizeof about 1 KB -> constant-memory launch by default
  V v[40];
  long long spin = 0;
  KOKKOS_INLINE_FUNCTION void operator()(const int i) const {
#ifdef __CUDA_ARCH__
    if (spin > 0 && i == 0) {
      const long long t0 = clock64();
      while (clock64() - t0 < spin) {
      }
    }
#endif
    if (i == 0) v[i % 40](0) += 1;
  }
  KOKKOS_INLINE_FUNCTION void operator()(const Kokkos::TeamPolicy<Kokkos::Cuda>::member_type& t) const {
    (*this)(t.league_rank() * t.team_size() + t.team_rank());
  }
};
struct Small {
  V v;
  KOKKOS_INLINE_FUNCTION void operator()(const int i) const {
    if (i == 0) v(0) += 1;
  }
};

template <class F>
void measure(const char* name, F&& launch) {
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  std::vector<double> one, chain, host;
  for (int w = 0; w < 10; ++w) launch();
  cudaDeviceSynchronize();
  for (int r = 0; r < 200; ++r) {
    cudaEventRecord(a, 0);
    launch();
    cudaEventRecord(b, 0);
    cudaEventSynchronize(b);
    float ms = 0;
    cudaEventElapsedTime(&ms, a, b);
    one.push_back(ms * 1e3);
    cudaEventRecord(a, 0);
    const auto h0 = std::chrono::steady_clock::now();
    for (int k = 0; k < 20; ++k) launch();
    const auto h1 = std::chrono::steady_clock::now();
    cudaEventRecord(b, 0);
    cudaEventSynchronize(b);
    cudaEventElapsedTime(&ms, a, b);
    chain.push_back(ms * 1e3 / 20);
    host.push_back(std::chrono::duration<double, std::micro>(h1 - h0).count() / 20);
  }
  auto med = [](std::vector<double> x) {
    std::sort(x.begin(), x.end());
    return x[x.size() / 2];
  };
  std::printf("%-40s one %7.2f us  chain %7.2f us/call  host %7.2f us/call\n", name, med(one), med(chain), med(host));
  cudaEventDestroy(a);
  cudaEventDestroy(b);
}

int main(int argc, char** argv) {
  Kokkos::initialize(argc, argv);
  {
    using E = Kokkos::Cuda;
    V v("v", 64);
    Small s{v};
    Big big;
    for (auto& x : big.v) x = v;
    std::printf("sizeof(Small) %zu, sizeof(Big) %zu bytes\n", sizeof(Small), sizeof(Big));
    int clk = 0;
    cudaDeviceGetAttribute(&clk, cudaDevAttrClockRate, 0);  // kHz
    Big busy = big;
    busy.spin = static_cast<long long>(clk) * 20 / 1000;  // ~20 us
    for (int pass = 0; pass < 2; ++pass) {
      std::printf("-- pass %d\n", pass);
      measure("raw empty kernel <<<1,32>>>", [] { empty_kernel<<<1, 32>>>(); });
      measure("range, small functor", [&] { Kokkos::parallel_for(Kokkos::RangePolicy<E>(0, 32), s); });
      measure("range, 1 KB functor (constant memory)", [&] { Kokkos::parallel_for(Kokkos::RangePolicy<E>(0, 32), big); });
      measure("range, 1 KB functor, HintLightWeight",
              [&] { Kokkos::parallel_for(Kokkos::RangePolicy<E, Light>(0, 32), big); });
      measure("team, 1 KB functor (constant memory)",
              [&] { Kokkos::parallel_for(Kokkos::TeamPolicy<E>(1, 32), big); });
      measure("team, 1 KB functor, HintLightWeight",
              [&] { Kokkos::parallel_for(Kokkos::TeamPolicy<E, Light>(1, 32), big); });
      measure("busy 20us range, 1 KB (constant memory)",
              [&] { Kokkos::parallel_for(Kokkos::RangePolicy<E>(0, 32), busy); });
      measure("busy 20us range, 1 KB, HintLightWeight",
              [&] { Kokkos::parallel_for(Kokkos::RangePolicy<E, Light>(0, 32), busy); });
    }
  }
  Kokkos::finalize();
  return 0;
}
