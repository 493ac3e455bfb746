#pragma once
// A small evaluator of Linux perf's metric expressions (the MetricExpr strings of
// tools/perf/pmu-events/arch/.../*metrics.json), written for the tests so that hpcsens's
// Top-Down formulas are checked against perf's own text rather than against a second hand-made
// copy of hpcsens's formulas. Supports what the Top-Down level-1/2 metrics use: numbers,
// + - * /, parentheses, max/min/d_ratio, "A if C else B" with C a comparison or a number, and
// names (events with perf's backslash escapes, cpu@...@ events, #constants, other metrics).
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace hpcsens::testing {

// Value of a name met in an expression; throws std::out_of_range for an unknown name.
using NameLookup = std::function<double(const std::string& name)>;

// Evaluates `expr`; throws std::invalid_argument on a syntax error (naming the position).
double eval_perf_expr(std::string_view expr, const NameLookup& lookup);

}  // namespace hpcsens::testing
