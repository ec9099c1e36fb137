// kkperm_gen: writes any kkperm::gen generator's matrix to a file and reports its shape.
//
//   kkperm_gen --gen SPEC [--out FILE] [--format mtx|mtx.gz|bin]
//
// --format defaults from FILE's name (.mtx.gz, .mtx, .kkcsr or .bin); "bin" is kkperm's binary
// CSR (kkperm::io::write_binary_csr). Without --out the matrix is generated and described but
// not written (for timing the generator alone). Prints the canonical spec, rows, cols, nnz,
// min/mean/max nnz per row, empty rows, and generation and write times (steady_clock, seconds).
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <stdexcept>
#include <string>

#include "kkperm/gen/generators.hpp"
#include "kkperm/io/binary_csr.hpp"
#include "kkperm/io/matrix_market.hpp"

namespace {

const char* usage_text =
    "usage: kkperm_gen --gen SPEC [--out FILE] [--format mtx|mtx.gz|bin]\n"
    "  --gen SPEC     generator spec (see below)\n"
    "  --out FILE     output file; without it the matrix is only generated and described\n"
    "  --format F     mtx (plain Matrix Market), mtx.gz (gzip), bin (kkperm binary CSR);\n"
    "                 default from FILE's suffix (.mtx.gz, .mtx, .kkcsr, .bin)\n";

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string format_from_path(const std::string& path) {
  if (ends_with(path, ".mtx.gz")) return "mtx.gz";
  if (ends_with(path, ".mtx")) return "mtx";
  if (ends_with(path, ".kkcsr") || ends_with(path, ".bin")) return "bin";
  throw std::invalid_argument("kkperm_gen: cannot infer --format from '" + path +
                              "' (use .mtx, .mtx.gz, .kkcsr or .bin, or give --format)");
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  try {
    std::string spec, out, format;
    for (int i = 1; i < argc; ++i) {
      std::string a = argv[i], value;
      const auto eq = a.find('=');
      if (a.rfind("--", 0) == 0 && eq != std::string::npos) {
        value = a.substr(eq + 1);
        a = a.substr(0, eq);
      } else if ((a == "--gen" || a == "--out" || a == "--format")) {
        if (i + 1 >= argc) throw std::invalid_argument("kkperm_gen: " + a + " needs a value");
        value = argv[++i];
      }
      if (a == "--help" || a == "-h") {
        std::cout << usage_text << "\n" << kkperm::gen::spec_help() << "\n";
        return 0;
      } else if (a == "--gen") {
        spec = value;
      } else if (a == "--out") {
        out = value;
      } else if (a == "--format") {
        format = value;
      } else {
        throw std::invalid_argument("kkperm_gen: unknown argument '" + a + "'\n" + usage_text);
      }
    }
    if (spec.empty())
      throw std::invalid_argument(std::string("kkperm_gen: --gen is required\n") + usage_text);
    if (!out.empty()) {
      if (format.empty()) format = format_from_path(out);
      if (format != "mtx" && format != "mtx.gz" && format != "bin")
        throw std::invalid_argument("kkperm_gen: --format '" + format +
                                    "' is not one of mtx, mtx.gz, bin");
      // write_matrix_market compresses exactly when the name ends in .gz: keep them consistent.
      if (format == "mtx.gz" && !ends_with(out, ".gz"))
        throw std::invalid_argument(
            "kkperm_gen: --format mtx.gz needs an output name ending in .gz");
      if (format == "mtx" && ends_with(out, ".gz"))
        throw std::invalid_argument(
            "kkperm_gen: --format mtx with a .gz name would compress; "
            "use --format mtx.gz");
    } else if (!format.empty()) {
      throw std::invalid_argument("kkperm_gen: --format given without --out");
    }

    const std::string canonical = kkperm::gen::normalize_spec(spec);
    const auto t0 = std::chrono::steady_clock::now();
    const kkperm::gen::GenCsr A = kkperm::gen::from_spec(spec);
    const double t_gen = seconds_since(t0);

    std::int64_t min_row = A.num_rows > 0 ? INT64_MAX : 0, max_row = 0, empty = 0;
    for (std::int64_t i = 0; i < A.num_rows; ++i) {
      const std::int64_t len = A.row_map[i + 1] - A.row_map[i];
      min_row = std::min(min_row, len);
      max_row = std::max(max_row, len);
      empty += len == 0;
    }
    const double mean_row = A.num_rows > 0 ? static_cast<double>(A.nnz()) / A.num_rows : 0.0;

    double t_write = 0.0;
    if (!out.empty()) {
      const auto t1 = std::chrono::steady_clock::now();
      if (format == "bin")
        kkperm::io::write_binary_csr(out, A);
      else
        kkperm::io::write_matrix_market(out, A);
      t_write = seconds_since(t1);
    }

    std::printf("spec        %s\n", canonical.c_str());
    std::printf("rows        %d\ncols        %d\nnnz         %lld\n", A.num_rows, A.num_cols,
                static_cast<long long>(A.nnz()));
    std::printf("nnz/row     min %lld  mean %.3f  max %lld  (empty rows %lld)\n",
                static_cast<long long>(min_row), mean_row, static_cast<long long>(max_row),
                static_cast<long long>(empty));
    std::printf("gen_s       %.3f\n", t_gen);
    if (!out.empty())
      std::printf("write_s     %.3f  (%s, %s)\n", t_write, out.c_str(), format.c_str());
    else
      std::printf("write_s     -  (no --out)\n");
    return 0;
  } catch (const std::exception& e) {
    std::cerr << e.what() << "\n";
    return 2;
  }
}
