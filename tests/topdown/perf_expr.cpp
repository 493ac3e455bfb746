#include "tests/topdown/perf_expr.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>

namespace hpcsens::testing {
namespace {

class Parser {
 public:
  Parser(std::string_view s, const NameLookup& lookup) : s_(s), lookup_(lookup) {}

  double parse() {
    const double v = ternary();
    skip();
    if (pos_ != s_.size()) error("unexpected text");
    return v;
  }

 private:
  std::string_view s_;
  const NameLookup& lookup_;
  size_t pos_ = 0;

  [[noreturn]] void error(const std::string& what) const {
    throw std::invalid_argument(what + " at " + std::to_string(pos_) + " in \"" + std::string(s_) + "\"");
  }
  void skip() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  bool eat(char c) {
    skip();
    if (pos_ < s_.size() && s_[pos_] == c) return ++pos_, true;
    return false;
  }
  // A keyword ("if", "else") as a whole word.
  bool eat_word(std::string_view w) {
    skip();
    if (s_.substr(pos_, w.size()) != w) return false;
    const size_t end = pos_ + w.size();
    if (end < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[end])) || s_[end] == '_')) return false;
    pos_ = end;
    return true;
  }

  // perf: "A if C else B", lowest precedence, right-associative.
  double ternary() {
    const double a = comparison();
    if (!eat_word("if")) return a;
    const double cond = comparison();
    if (!eat_word("else")) error("'else' expected");
    const double b = ternary();
    return cond != 0 ? a : b;
  }
  double comparison() {
    const double a = additive();
    if (eat('<')) return a < additive() ? 1 : 0;
    if (eat('>')) return a > additive() ? 1 : 0;
    return a;
  }
  double additive() {
    double v = multiplicative();
    for (;;) {
      if (eat('+')) v += multiplicative();
      else if (eat('-')) v -= multiplicative();
      else return v;
    }
  }
  double multiplicative() {
    double v = unary();
    for (;;) {
      if (eat('*')) v *= unary();
      else if (eat('/')) v /= unary();
      else return v;
    }
  }
  double unary() {
    if (eat('-')) return -unary();
    return primary();
  }
  double primary() {
    skip();
    if (pos_ >= s_.size()) error("operand expected");
    if (eat('(')) {
      const double v = ternary();
      if (!eat(')')) error("')' expected");
      return v;
    }
    const char c = s_[pos_];
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') return number();
    const std::string name = identifier();
    if (name == "max" || name == "min" || name == "d_ratio") return call(name);
    return lookup_(name);
  }
  double number() {
    const std::string rest(s_.substr(pos_));
    char* end = nullptr;
    const double v = std::strtod(rest.c_str(), &end);
    const auto used = static_cast<size_t>(end - rest.c_str());
    if (used == 0) error("number expected");
    pos_ += used;
    return v;
  }
  // Event and metric names: letters, digits, '_', '.', ':', '#', perf's backslash escapes
  // ("topdown\-fe\-bound", "cpu@EVENT\,cmask\=1@"); a cpu@...@ term is one name.
  std::string identifier() {
    std::string out;
    bool in_at = false;
    while (pos_ < s_.size()) {
      const char c = s_[pos_];
      if (c == '\\' && pos_ + 1 < s_.size()) {
        out += s_[pos_ + 1];
        pos_ += 2;
        continue;
      }
      if (c == '@') {
        in_at = !in_at;
        out += c;
        ++pos_;
        if (!in_at) break;
        continue;
      }
      const bool word = std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == ':' || c == '#';
      if (!in_at && !word) break;
      out += c;
      ++pos_;
    }
    if (out.empty()) error("name expected");
    return out;
  }
  double call(const std::string& fn) {
    if (!eat('(')) error("'(' expected after " + fn);
    const double a = ternary();
    if (!eat(',')) error("',' expected in " + fn);
    const double b = ternary();
    if (!eat(')')) error("')' expected after " + fn);
    if (fn == "max") return std::max(a, b);
    if (fn == "min") return std::min(a, b);
    return b == 0 ? 0 : a / b;  // perf's d_ratio: 0 when the denominator is 0
  }
};

}  // namespace

double eval_perf_expr(std::string_view expr, const NameLookup& lookup) { return Parser(expr, lookup).parse(); }

}  // namespace hpcsens::testing
