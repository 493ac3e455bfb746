#pragma once
// What a recorded counter's value counts, and its value as a cell of a column of counts. Pure.
#include <string>
#include <string_view>

namespace hpcsens::report {

// The unit of a counter's value from its event name: "ns" for the kernel's clocks
// (perf::TASK-CLOCK, perf::CPU-CLOCK), "cycles", "instructions", "uops", "slots", "branches",
// "misses", "faults", "switches", "migrations", "FP operations"; "count" where the name says
// nothing more. A libpfm4 PMU prefix ("skx::") and modifiers (":k=1", ":u") do not change the
// unit; a counter mask (":c=6") does: the event then counts cycles.
std::string counter_unit(std::string_view event);

// A counter value in a column of counts: whole numbers with thousands separators
// ("214,021,960"), a mean or a multiplexed estimate with one decimal ("298,617,234.5"), values
// below 100 with three; never an exponent. "-" when not finite.
std::string counter_value_text(double value);

}  // namespace hpcsens::report
