#include "align/matrix_file.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <fstream>
#include <sstream>

#include "core/error.hpp"
#include "core/output_file.hpp"
#include "core/regular_file.hpp"

namespace seqfuse::align {
namespace {

constexpr std::size_t kMaxLetters = 64;

std::vector<std::string_view> split_whitespace(std::string_view line) {
  std::vector<std::string_view> tokens;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    const std::size_t start = i;
    while (i < line.size() && !std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    if (i > start) tokens.push_back(line.substr(start, i - start));
  }
  return tokens;
}

char fold(char letter) {
  return static_cast<char>(std::toupper(static_cast<unsigned char>(letter)));
}

class MatrixParser {
 public:
  explicit MatrixParser(std::string_view source) : source_(source) {}

  MatrixTable parse(std::string_view text) {
    std::size_t line_number = 0;
    std::size_t start = 0;
    while (start < text.size()) {
      std::size_t end = text.find('\n', start);
      if (end == std::string_view::npos) end = text.size();
      std::string_view line = text.substr(start, end - start);
      ++line_number;
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      parse_line(line, line_number);
      start = end + 1;
    }
    if (table_.letters.empty())
      fail("no header row of letters", std::max<std::size_t>(line_number, 1));
    for (std::size_t a = 0; a < table_.letters.size(); ++a) {
      if (!row_seen_[a]) {
        fail("no row for letter '" + std::string(1, table_.letters[a]) + "'", header_line_);
      }
    }
    return std::move(table_);
  }

 private:
  [[noreturn]] void fail(const std::string& what, std::size_t line) const {
    throw Error(what + ", " + std::string(source_) + ":" + std::to_string(line));
  }

  void parse_line(std::string_view line, std::size_t line_number) {
    const std::vector<std::string_view> tokens = split_whitespace(line);
    if (tokens.empty() || tokens.front().front() == '#') return;
    if (table_.letters.empty()) {
      parse_header(tokens, line_number);
    } else {
      parse_row(tokens, line_number);
    }
  }

  void parse_header(const std::vector<std::string_view>& tokens, std::size_t line_number) {
    if (tokens.size() > kMaxLetters) {
      fail("header has " + std::to_string(tokens.size()) + " letters, at most " +
               std::to_string(kMaxLetters) + " are supported",
           line_number);
    }
    for (std::string_view token : tokens) {
      if (token.size() != 1)
        fail("header entry '" + std::string(token) + "' is not one letter", line_number);
      const char letter = fold(token.front());
      if (table_.letters.find(letter) != std::string::npos) {
        fail("letter '" + std::string(1, letter) + "' appears twice in the header", line_number);
      }
      table_.letters.push_back(letter);
    }
    header_line_ = line_number;
    table_.scores.assign(table_.letters.size() * table_.letters.size(), 0);
    row_seen_.assign(table_.letters.size(), false);
  }

  void parse_row(const std::vector<std::string_view>& tokens, std::size_t line_number) {
    const std::string_view label = tokens.front();
    if (label.size() != 1)
      fail("row label '" + std::string(label) + "' is not one letter", line_number);
    const char letter = fold(label.front());
    const std::size_t row = table_.letters.find(letter);
    if (row == std::string::npos) {
      fail("row letter '" + std::string(1, letter) +
               "' is not in the header (the matrix is not square)",
           line_number);
    }
    if (row_seen_[row]) fail("second row for letter '" + std::string(1, letter) + "'", line_number);
    row_seen_[row] = true;
    const std::size_t expected = table_.letters.size();
    const std::size_t given = tokens.size() - 1;
    if (given != expected) {
      fail("row '" + std::string(1, letter) + "' has " + std::to_string(given) +
               " scores, expected " + std::to_string(expected),
           line_number);
    }
    for (std::size_t column = 0; column < expected; ++column) {
      table_.scores[row * expected + column] = parse_score(tokens[column + 1], line_number);
    }
  }

  int parse_score(std::string_view token, std::size_t line_number) const {
    int value = 0;
    const char* first = token.data();
    if (*first == '+') ++first;  // from_chars takes '-' but not '+'
    const char* last = token.data() + token.size();
    const auto [end, error] = std::from_chars(first, last, value);
    if (error == std::errc::result_out_of_range ||
        (error == std::errc{} && end == last && (value < -127 || value > 127))) {
      fail("score " + std::string(token) + " is outside -127..127", line_number);
    }
    if (error != std::errc{} || end != last || first == last) {
      fail("score '" + std::string(token) + "' is not an integer", line_number);
    }
    return value;
  }

  std::string_view source_;
  MatrixTable table_;
  std::vector<bool> row_seen_;
  std::size_t header_line_ = 0;
};

}  // namespace

MatrixTable parse_ncbi_matrix(std::string_view text, std::string_view source) {
  return MatrixParser(source).parse(text);
}

MatrixTable read_ncbi_matrix_file(const std::string& path) {
  register_input(path);
  return parse_ncbi_matrix(read_regular_file(path, "matrix file"), path);
}

}  // namespace seqfuse::align
