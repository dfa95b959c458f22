#include "preprocess/input_evaluation.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include "preprocess/fastq_records.hpp"
#include "preprocess/known_adapters.hpp"
#include "preprocess/report/read_stats.hpp"

namespace seqfuse::preprocess {
namespace {

constexpr int kKeyLength = 10;
constexpr int kKeys = 1 << (2 * kKeyLength);
constexpr int kFirstPosition = 20;  // fastp ignores the first 20 bases

std::string key_text(int key) {
  static constexpr char kBases[4] = {'A', 'T', 'C', 'G'};
  std::string text(kKeyLength, 'N');
  for (int i = kKeyLength - 1; i >= 0; --i, key >>= 2)
    text[static_cast<std::size_t>(i)] = kBases[key & 3];
  return text;
}

// Calls visit(position, key) for each position fastp keys a read at: from
// 20 to length - 10 - shift_tail, the key -1 where the 10-mer holds a
// non-ACGT base, rolled from the previous key otherwise, as fastp does.
template <typename Visit>
void for_each_key(std::string_view seq, int shift_tail, Visit visit) {
  const int last = static_cast<int>(seq.size()) - kKeyLength - shift_tail;
  int key = -1;
  for (int pos = kFirstPosition; pos <= last; ++pos) {
    if (key >= 0) {
      const int code = fastp_base_code(seq[static_cast<std::size_t>(pos + kKeyLength - 1)]);
      key = code < 0 ? -1 : ((key << 2) & (kKeys - 1)) + code;
    } else {
      key = 0;
      for (int i = pos; i < pos + kKeyLength; ++i) {
        const int code = fastp_base_code(seq[static_cast<std::size_t>(i)]);
        if (code < 0) {
          key = -1;
          break;
        }
        key = (key << 2) + code;
      }
    }
    visit(pos, key);
  }
}

// fastp's NucleotideTree: a trie over the letters of the added sequences
// (children by the letter's low 3 bits), each node counting the sequences
// through it; a sequence stops at its first N.
class LetterTrie {
 public:
  LetterTrie() : nodes_(1) {}

  void add(std::string_view seq) {
    std::size_t node = 0;
    for (char c : seq) {
      if (c == 'N') break;
      const auto slot = static_cast<std::size_t>(c & 7);
      if (nodes_[node].child[slot] == 0) {
        nodes_[node].child[slot] = static_cast<std::uint32_t>(nodes_.size());
        nodes_.push_back(Node{});
        nodes_.back().letter = c;
      }
      node = nodes_[node].child[slot];
      ++nodes_[node].count;
    }
  }

  // Follows the child holding at least 95% of at least 50 sequences; clears
  // reached_leaf when it stops at a node without such a child.
  std::string dominant_path(bool& reached_leaf) const {
    std::string path;
    std::size_t node = 0;
    for (;;) {
      int total = 0;
      for (std::uint32_t c : nodes_[node].child)
        if (c != 0) total += nodes_[c].count;
      if (total < 50) break;
      std::size_t next = 0;
      for (std::uint32_t c : nodes_[node].child) {
        if (c != 0 && nodes_[c].count / static_cast<double>(total) >= 0.95) {
          next = c;
          break;
        }
      }
      if (next == 0) {
        reached_leaf = false;
        break;
      }
      path += nodes_[next].letter;
      node = next;
    }
    return path;
  }

 private:
  struct Node {
    std::array<std::uint32_t, 8> child{};
    int count = 0;
    char letter = 'N';
  };
  std::vector<Node> nodes_;
};

std::string known_prefix(const std::string& seq) {
  for (const std::string& adapter : known_adapters())
    if (seq.size() >= adapter.size() && seq.compare(0, adapter.size(), adapter) == 0)
      return adapter;
  return {};
}

std::string adapter_with_seed(int seed, const std::vector<std::string>& reads, int shift_tail) {
  LetterTrie forward, backward;
  for (const std::string& read : reads) {
    const int length = static_cast<int>(read.size());
    for_each_key(read, shift_tail, [&](int pos, int key) {
      if (key != seed) return;
      forward.add(std::string_view(read).substr(
          static_cast<std::size_t>(pos + kKeyLength),
          static_cast<std::size_t>(length - kKeyLength - shift_tail - pos)));
      std::string before = read.substr(0, static_cast<std::size_t>(pos));
      std::reverse(before.begin(), before.end());
      backward.add(before);
    });
  }
  bool reached_leaf = true;
  const std::string forward_path = forward.dominant_path(reached_leaf);
  std::string backward_path = backward.dominant_path(reached_leaf);
  std::reverse(backward_path.begin(), backward_path.end());
  std::string adapter = backward_path + key_text(seed) + forward_path;
  if (adapter.size() > 60) adapter.resize(60);
  std::string known = known_prefix(adapter);
  if (!known.empty()) return known;
  return reached_leaf ? adapter : std::string();
}

bool low_complexity_key(int key) {
  std::array<int, 4> letters{};
  for (int i = 0; i < kKeyLength; ++i) ++letters[static_cast<std::size_t>((key >> (2 * i)) & 3)];
  for (int n : letters)
    if (n >= kKeyLength - 4) return true;
  if (letters[2] + letters[3] >= kKeyLength - 2) return true;  // C + G
  return (key >> 12) == 0xff;                                  // starts with GGGG
}

}  // namespace

InputGlance glance_at_input(const std::string& path) {
  InputGlance glance;
  FastqRecordReader reader(path);
  ReadChunk chunk;
  for (int i = 0; i < 1000 && reader.next(chunk); ++i) {
    if (i == 0) {
      const std::string_view name = chunk.header(chunk.records[0]);
      for (std::string_view prefix : {"@NS", "@NB", "@NDX", "@A0"})
        if (name.starts_with(prefix)) glance.two_colour = true;
    }
    glance.read_length =
        std::max(glance.read_length, static_cast<int>(chunk.records.back().length));
    ++glance.records;
    chunk.clear();
  }
  return glance;
}

std::optional<std::string> detect_adapter(const std::string& path, int trim_tail1) {
  constexpr std::size_t kReadLimit = 256 * 1024;
  constexpr std::uint64_t kBaseLimit = 151 * kReadLimit;
  FastqRecordReader reader(path);
  std::vector<std::string> reads;
  std::uint64_t bases = 0;
  ReadChunk chunk;
  while (reads.size() < kReadLimit && bases < kBaseLimit && reader.next(chunk)) {
    reads.emplace_back(chunk.seq(chunk.records[0]));
    bases += reads.back().size();
    chunk.clear();
  }
  if (reads.size() < 10000) return std::nullopt;
  const int shift_tail = std::max(1, trim_tail1);
  std::vector<std::uint32_t> counts(kKeys, 0);
  for (const std::string& read : reads)
    for_each_key(read, shift_tail, [&](int, int key) {
      if (key >= 0) ++counts[static_cast<std::size_t>(key)];
    });
  counts[0] = 0;  // AAAAAAAAAA

  // fastp's top 10 by count: a key equal to a listed one goes above it.
  constexpr int kTop = 10;
  std::array<int, kTop> top{};
  std::uint64_t total = 0;
  for (int k = 0; k < kKeys; ++k) {
    if (low_complexity_key(k)) continue;
    const std::uint32_t value = counts[static_cast<std::size_t>(k)];
    total += value;
    for (int t = kTop - 1; t >= 0; --t) {
      if (value < counts[static_cast<std::size_t>(top[static_cast<std::size_t>(t)])]) {
        if (t < kTop - 1) {
          for (int m = kTop - 1; m > t + 1; --m)
            top[static_cast<std::size_t>(m)] = top[static_cast<std::size_t>(m - 1)];
          top[static_cast<std::size_t>(t + 1)] = k;
        }
        break;
      }
      if (t == 0) {
        for (int m = kTop - 1; m > 0; --m)
          top[static_cast<std::size_t>(m)] = top[static_cast<std::size_t>(m - 1)];
        top[0] = k;
      }
    }
  }
  for (int key : top) {
    if (key == 0) continue;
    const std::uint64_t count = counts[static_cast<std::size_t>(key)];
    if (count < 10 || count * kKeys < total * 20) break;
    const std::string text = key_text(key);
    int changes = 0;
    for (std::size_t s = 0; s + 1 < text.size(); ++s)
      if (text[s] != text[s + 1]) ++changes;
    if (changes < 3) continue;
    std::string adapter = adapter_with_seed(key, reads, shift_tail);
    if (!adapter.empty()) return adapter;
  }
  return std::string();
}

}  // namespace seqfuse::preprocess
