#pragma once
/**
 * @brief Portable, bit-reproducible random numbers and elementary functions for the generators.
 *
 * Every generator in kkperm::gen draws from these, never from <random> distributions (whose
 * output differs between standard libraries) nor from libm's log/exp/pow (whose last bits may
 * differ between libm versions). Only IEEE-754 +, -, *, /, floor, frexp and ldexp are used, so
 * results are identical on every conforming host as long as the compiler does not contract
 * a*b+c into FMA: C++17 (non-GNU) mode on GCC/Clang implies -ffp-contract=off, which is what the
 * kkperm build uses (CMAKE_CXX_EXTENSIONS OFF).
 *
 * Usage: `kkperm::gen::Rng rng(seed, kkperm::gen::stream::values, row); double v = rng.value();`
 */
#include <cmath>
#include <cstdint>

namespace kkperm::gen {

/// SplitMix64 step (Steele, Lea, Flood 2014): advances `state` and returns a mixed output.
inline std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/// Stateless 64-bit mix of one word (the SplitMix64 finalizer applied to x + gamma).
inline std::uint64_t mix64(std::uint64_t x) {
  std::uint64_t s = x;
  return splitmix64(s);
}

/// Stream tags: one independent stream per (seed, purpose, index) so e.g. values never change
/// when a structural parameter changes the number of structural draws.
namespace stream {
constexpr std::uint64_t structure = 0x5354525543540001ull;
constexpr std::uint64_t values = 0x56414C5545530002ull;
constexpr std::uint64_t global = 0x474C4F42414C0003ull;
constexpr std::uint64_t jitter = 0x4A49545445520004ull;
}  // namespace stream

/**
 * @brief xoshiro256** 1.0 (Blackman & Vigna), seeded through SplitMix64 from
 * (seed, stream, index). Streams for different (stream, index) pairs are statistically
 * independent for all practical purposes (distinct SplitMix64-hashed starting states).
 */
class Rng {
 public:
  explicit Rng(std::uint64_t seed, std::uint64_t stream_tag = stream::global,
               std::uint64_t index = 0) {
    std::uint64_t sm = mix64(mix64(seed ^ stream_tag) + index);
    for (auto& w : s_) w = splitmix64(sm);
    // An all-zero state is the one invalid xoshiro state; SplitMix64 outputs make it
    // practically impossible, but guard anyway.
    if ((s_[0] | s_[1] | s_[2] | s_[3]) == 0) s_[0] = 1;
  }

  std::uint64_t next() {
    const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }

  /// Uniform double in [0, 1) with 53 random bits.
  double uniform01() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  /// Uniform double in (0, 1] (safe argument for log).
  double uniform_open01() { return static_cast<double>((next() >> 11) + 1) * 0x1.0p-53; }

  /// Uniform integer in [0, range) for 1 <= range <= 2^32 (Lemire's multiply-shift with
  /// rejection: exactly uniform, no modulo bias, portable).
  std::uint64_t bounded(std::uint64_t range) {
    if (range > 0xFFFFFFFFull) return bounded64(range);
    const std::uint32_t r = static_cast<std::uint32_t>(range);
    std::uint64_t m = (next() >> 32) * r;
    std::uint32_t low = static_cast<std::uint32_t>(m);
    if (low < r) {
      const std::uint32_t threshold = static_cast<std::uint32_t>(-r) % r;
      while (low < threshold) {
        m = (next() >> 32) * r;
        low = static_cast<std::uint32_t>(m);
      }
    }
    return m >> 32;
  }

  /// Uniform integer in [lo, hi] (inclusive), lo <= hi.
  std::int64_t uniform_int(std::int64_t lo, std::int64_t hi) {
    return lo + static_cast<std::int64_t>(bounded(static_cast<std::uint64_t>(hi - lo) + 1));
  }

  /// Matrix value: uniform in [-1, 1) on a 2^-52 grid, never exactly 0 (0 is redrawn).
  double value() {
    for (;;) {
      const std::int64_t k = static_cast<std::int64_t>(next() >> 11) - (std::int64_t(1) << 52);
      if (k != 0) return static_cast<double>(k) * 0x1.0p-52;
    }
  }

  /// Bernoulli(p) for p in [0, 1]; p >= 1 never consumes a draw.
  bool bernoulli(double p) { return p >= 1.0 || uniform01() < p; }

 private:
  static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  std::uint64_t bounded64(std::uint64_t range) {
    // Rejection with modulo for ranges > 2^32 (rare: only very large index spaces).
    const std::uint64_t threshold = (0 - range) % range;
    for (;;) {
      const std::uint64_t x = next();
      if (x >= threshold) return x % range;
    }
  }
  std::uint64_t s_[4];
};

// ---- deterministic elementary functions (basic IEEE operations only) ------------------------
namespace detail {
constexpr double ln2_hi = 6.93147180369123816490e-01;  // fdlibm split of ln 2
constexpr double ln2_lo = 1.90821492927058770002e-10;
constexpr double ln2 = 0.69314718055994530942;

/// 1/(2k+1) for k = 0..20 and 1/i for i = 0..18 (entry 0 unused), rounded once at compile time.
struct Reciprocals {
  double odd[21];
  double inv[19];
  constexpr Reciprocals() : odd(), inv() {
    for (int k = 0; k < 21; ++k) odd[k] = 1.0 / (2 * k + 1);
    inv[0] = 0.0;
    for (int i = 1; i < 19; ++i) inv[i] = 1.0 / i;
  }
};
constexpr Reciprocals recip{};

/// 2*atanh(s) = log((1+s)/(1-s)) by its odd series truncated after s^(2*terms+1): the tail is
/// below 1e-17 relative for |s| <= 0.1716 with 11 terms and for |s| <= 1/3 with 18 terms.
inline double two_atanh_series(double s, int terms) {
  const double s2 = s * s;
  double sum = 0.0;
  for (int k = terms; k >= 1; --k) sum = (sum + recip.odd[k]) * s2;  // Horner from the tail
  return 2.0 * s * (1.0 + sum);
}
}  // namespace detail

/// Natural logarithm of x > 0 (returns -inf for 0), deterministic on every IEEE host.
inline double det_log(double x) {
  if (x <= 0.0) return -HUGE_VAL;
  int e = 0;
  double m = std::frexp(x, &e);  // x = m * 2^e, m in [0.5, 1)
  if (m < 0.70710678118654752440) {
    m *= 2.0;
    --e;
  }
  const double s = (m - 1.0) / (m + 1.0);  // |s| <= 0.1716
  return detail::two_atanh_series(s, 11) + e * detail::ln2;
}

/// log(1 - p) for p in [0, 1), accurate also for tiny p.
inline double det_log1m(double p) {
  if (p < 0.5) return detail::two_atanh_series(-p / (2.0 - p), 18);  // |s| <= 1/3
  return det_log(1.0 - p);                                           // exact subtraction here
}

/// exp(x), deterministic; underflows to 0 below -745, overflows to +inf above 709.
inline double det_exp(double x) {
  if (x > 709.78) return HUGE_VAL;
  if (x < -745.2) return 0.0;
  const double k = std::floor(x / detail::ln2 + 0.5);
  const double r = (x - k * detail::ln2_hi) - k * detail::ln2_lo;  // |r| <= ~0.347
  double t = 1.0;
  for (int i = 18; i >= 1; --i) t = 1.0 + t * r * detail::recip.inv[i];  // Taylor, Horner
  return std::ldexp(t, static_cast<int>(k));
}

/// x^y for x > 0, deterministic.
inline double det_pow(double x, double y) { return det_exp(y * det_log(x)); }

}  // namespace kkperm::gen
