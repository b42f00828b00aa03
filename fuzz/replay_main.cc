// SPDX-License-Identifier: Apache-2.0
// A main for the fuzz targets in builds without libFuzzer (docs/fuzzing.md "Corpus replay in
// CI"): feeds every file of the given directories to LLVMFuzzerTestOneInput once, in name
// order. The oracle is the target's own: an exception other than InputError escapes and ends
// the process through std::terminate, and under the asan preset a sanitizer report aborts it,
// so the checked-in seeds and former findings are replayed under ASan/UBSan on every CI run.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s CORPUS_DIR...\n", argv[0]);
    return 2;
  }
  std::size_t replayed = 0;
  for (int a = 1; a < argc; ++a) {
    std::error_code ec;
    std::vector<fs::path> files;
    for (const fs::directory_entry& e : fs::directory_iterator(argv[a], ec)) {
      if (e.is_regular_file()) files.push_back(e.path());
    }
    if (ec || files.empty()) {
      std::fprintf(stderr, "%s: no corpus files in %s\n", argv[0], argv[a]);
      return 2;
    }
    std::sort(files.begin(), files.end());
    for (const fs::path& f : files) {
      std::ifstream in(f, std::ios::binary);
      const std::vector<char> bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
      if (!in.good() && !in.eof()) {
        std::fprintf(stderr, "%s: cannot read %s\n", argv[0], f.c_str());
        return 2;
      }
      // A copy of exactly `size` bytes on the heap, as libFuzzer passes it, so ASan sees a
      // read past the end of the input.
      std::vector<std::uint8_t> input(bytes.begin(), bytes.end());
      (void)LLVMFuzzerTestOneInput(input.empty() ? nullptr : input.data(), input.size());
      ++replayed;
    }
  }
  std::printf("replayed %zu inputs\n", replayed);
  return 0;
}
