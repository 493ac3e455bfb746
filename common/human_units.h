#pragma once
// Numbers as a person reads them on a page or in a text report: bytes in B/KiB/MiB/GiB/TiB,
// durations in s/ms/µs, large counts with thousands separators, and small money ratios scaled to
// "per million" so no figure a reader must compare ever prints in scientific notation.
#include <string>

namespace hpcsens::human {

// 1536 -> "1.5 KiB", 12583000 -> "12.0 MiB", 0 -> "0 B"; "-" when not finite or negative.
std::string bytes(double value);
// 45.3 -> "45.3 s", 0.0123 -> "12.3 ms", 4.5e-6 -> "4.5 µs", 0 -> "0 s"; "-" when not finite.
std::string seconds(double value);
// 12583000 -> "12,583,000"; fractional values keep `decimals` digits after the point.
std::string grouped(double value, int decimals = 0);
// A ratio of something to money (throughput per price): 4.12e-7 -> "0.412 per million";
// ratios of 1e-3 and above print as plain decimals with 3 significant digits.
std::string per_money(double value);
// A fraction as a percentage with no more decimals than it needs: 0.4917 -> "49 %", 0.012 -> "1.2 %".
std::string percent(double fraction);

}  // namespace hpcsens::human
