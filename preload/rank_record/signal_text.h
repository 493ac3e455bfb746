#pragma once
// Text built inside a signal handler (signal_partial.cpp): a fixed buffer, no allocation, no
// stdio, no locale; what does not fit is dropped (the caller keeps room for its closing text).
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace hpcsens::preload {

struct SignalText {
  char* buf;
  std::size_t cap;
  std::size_t n = 0;

  void put(const char* s, std::size_t len) {
    if (n + len > cap) len = cap - n;
    std::memcpy(buf + n, s, len);
    n += len;
  }
  void put(const char* s) { put(s, std::strlen(s)); }
  void u64(std::uint64_t v) {
    char d[24];
    int i = 0;
    do d[i++] = static_cast<char>('0' + v % 10), v /= 10;
    while (v != 0);
    while (i > 0) put(&d[--i], 1);
  }
  // Non-negative seconds with nanosecond digits (no printf: not async-signal-safe).
  void seconds(double s) {
    if (!(s > 0)) s = 0;
    const auto ns = static_cast<std::uint64_t>(s * 1e9 + 0.5);
    u64(ns / 1000000000u);
    char frac[10] = {'.'};
    std::uint64_t f = ns % 1000000000u;
    for (int i = 9; i >= 1; --i) frac[i] = static_cast<char>('0' + f % 10), f /= 10;
    put(frac, 10);
  }
  // `bytes` as a JSON string of their encode_outside text (common/text_escape.h), quotes included:
  // what the full record writes for the same bytes.
  void outside_string(std::string_view bytes);
};

}  // namespace hpcsens::preload
