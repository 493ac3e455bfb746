#include "common/human_units.h"

#include <fmt/core.h>

#include <cmath>

namespace hpcsens::human {

std::string bytes(double v) {
  if (!std::isfinite(v) || v < 0) return "-";
  static const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  int u = 0;
  while (v >= 1024 && u < 5) v /= 1024, ++u;
  if (u == 0) return fmt::format("{:.0f} B", v);
  return fmt::format("{:.{}f} {}", v, v < 10 ? 2 : v < 100 ? 1 : 0, units[u]);
}

std::string seconds(double v) {
  if (!std::isfinite(v)) return "-";
  const double a = std::fabs(v);
  auto sig3 = [](double x, const char* unit) {
    return fmt::format("{:.{}f} {}", x, std::fabs(x) < 10 ? 2 : std::fabs(x) < 100 ? 1 : 0, unit);
  };
  if (a == 0) return "0 s";
  if (a >= 1) return sig3(v, "s");
  if (a >= 1e-3) return sig3(v * 1e3, "ms");
  if (a >= 1e-6) return sig3(v * 1e6, "\u00b5s");
  return sig3(v * 1e9, "ns");
}

std::string grouped(double v, int decimals) {
  if (!std::isfinite(v)) return "-";
  const std::string text = fmt::format("{:.{}f}", std::fabs(v), decimals);
  const auto dot = text.find('.');
  const std::string whole = text.substr(0, dot), frac = dot == std::string::npos ? "" : text.substr(dot);
  std::string out;
  for (std::size_t i = 0; i < whole.size(); ++i) {
    if (i > 0 && (whole.size() - i) % 3 == 0) out += ',';
    out += whole[i];
  }
  return (v < 0 ? "-" : "") + out + frac;
}

std::string per_money(double v) {
  if (!std::isfinite(v)) return "-";
  if (v == 0) return "0";
  // Scale until the figure has a digit before the point: {:.3g} below 1000 never uses an exponent.
  static const char* scales[] = {"", " per thousand", " per million", " per billion", " per trillion"};
  int k = 0;
  while (std::fabs(v) < 0.1 && k < 4) v *= 1e3, ++k;
  if (std::fabs(v) >= 1000) return grouped(v, 0) + scales[k];
  return fmt::format("{:.3g}{}", v, scales[k]);
}

std::string percent(double f) {
  if (!std::isfinite(f)) return "-";
  const double p = 100 * f;
  return fmt::format("{:.{}f} %", p, std::fabs(p) >= 10 || p == 0 ? 0 : 1);
}

}  // namespace hpcsens::human
