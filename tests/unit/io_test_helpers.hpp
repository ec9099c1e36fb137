#pragma once
// Helpers for the I/O tests: a per-test temporary directory and whole-file read/write.
#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>
#include <stdexcept>
#include <string>
#include <unistd.h>

namespace kkperm::test {

/// A fresh directory under $TMPDIR (or /tmp), removed with its files at destruction.
class TempDir {
 public:
  TempDir() {
    const char* base = std::getenv("TMPDIR");
    std::string tmpl = std::string(base ? base : "/tmp") + "/kkperm_io_XXXXXX";
    if (!mkdtemp(&tmpl[0])) throw std::runtime_error("mkdtemp failed");
    dir_ = tmpl;
  }
  ~TempDir() { std::system(("rm -rf '" + dir_ + "'").c_str()); }
  std::string path(const std::string& name) const { return dir_ + "/" + name; }
  /// Writes `content` to name (gzip-compressed when name ends in .gz, unless `raw`); returns the
  /// path.
  std::string write(const std::string& name, const std::string& content, bool raw = false) const {
    const std::string p = path(name);
    if (!raw && name.size() > 3 && name.compare(name.size() - 3, 3, ".gz") == 0) {
      gzFile f = gzopen(p.c_str(), "wb");
      if (!f ||
          gzwrite(f, content.data(), static_cast<unsigned>(content.size())) !=
              static_cast<int>(content.size()) ||
          gzclose(f) != Z_OK)
        throw std::runtime_error("gz write failed: " + p);
    } else {
      std::ofstream(p, std::ios::binary) << content;
    }
    return p;
  }

 private:
  std::string dir_;
};

inline std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

/// Decompresses a gzip file (independently of kkperm::io) into a string.
inline std::string gunzip(const std::string& path) {
  gzFile f = gzopen(path.c_str(), "rb");
  if (!f) throw std::runtime_error("cannot open " + path);
  std::string out;
  char buf[1 << 16];
  int got;
  while ((got = gzread(f, buf, sizeof buf)) > 0) out.append(buf, static_cast<std::size_t>(got));
  gzclose(f);
  return out;
}

}  // namespace kkperm::test
