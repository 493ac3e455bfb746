// Units of counters from their event names, and counter values as cells of a column of counts.
#include <gtest/gtest.h>

#include "report/counter_units.h"
#include "report/run_report.h"
#include "report_fixtures.h"

namespace hpcsens::report {
namespace {

TEST(CounterUnits, NamedFromTheEvent) {
  EXPECT_EQ(counter_unit("perf::TASK-CLOCK"), "ns");
  EXPECT_EQ(counter_unit("perf::CPU-CLOCK"), "ns");
  EXPECT_EQ(counter_unit("PAPI_TOT_CYC"), "cycles");
  EXPECT_EQ(counter_unit("PAPI_TOT_INS"), "instructions");
  EXPECT_EQ(counter_unit("perf::CONTEXT-SWITCHES:k=1"), "switches");  // modifiers do not change it
  EXPECT_EQ(counter_unit("perf::PAGE-FAULTS"), "faults");
  EXPECT_EQ(counter_unit("skx::CPU_CLK_UNHALTED:THREAD_P"), "cycles");  // a libpfm4 PMU prefix
  EXPECT_EQ(counter_unit("INST_RETIRED:ANY_P"), "instructions");
  EXPECT_EQ(counter_unit("IDQ_UOPS_NOT_DELIVERED:CYCLES_0_UOPS_DELIV_CORE"), "cycles");
  EXPECT_EQ(counter_unit("UOPS_ISSUED:ANY"), "uops");
  EXPECT_EQ(counter_unit("PAPI_L1_DCM"), "misses");
  EXPECT_EQ(counter_unit("PAPI_BR_MSP"), "branches");
  EXPECT_EQ(counter_unit("MACHINE_CLEARS:COUNT"), "count");
  EXPECT_EQ(counter_unit("SOMETHING_UNKNOWN"), "count");
}

// The Top-Down tables' events (topdown/event_tables.h) by what their vendors say they count.
TEST(CounterUnits, TopDownEventsByWhatTheyCount) {
  EXPECT_EQ(counter_unit("UOPS_QUEUE_EMPTY"), "cycles");  // AMD PMCx0A9: cycles the op queue is empty
  EXPECT_EQ(counter_unit("RETIRED_BRANCH_INSTRUCTIONS_MISPREDICTED"), "branches");
  EXPECT_EQ(counter_unit("BR_MIS_PRED"), "branches");
  EXPECT_EQ(counter_unit("DISPATCH_STALLS_1:FE_NO_OPS"), "slots");  // AMD PMCx1A0: dispatch slots
  EXPECT_EQ(counter_unit("DISPATCH_STALLS_1:FE_NO_OPS:c=6"), "cycles");  // counter mask: cycles
  EXPECT_EQ(counter_unit("DISPATCH_STALLS_1:FE_NO_OPS:c=0"), "slots");   // no mask
  EXPECT_EQ(counter_unit("TOPDOWN:SLOTS"), "slots");
  EXPECT_EQ(counter_unit("topdown-retiring"), "slots");
  EXPECT_EQ(counter_unit("STALL_SLOT_BACKEND"), "slots");
  EXPECT_EQ(counter_unit("STALL_FRONTEND"), "cycles");
  EXPECT_EQ(counter_unit("INT_MISC:UOP_DROPPING"), "uops");
  EXPECT_EQ(counter_unit("UOPS_RETIRED:RETIRE_SLOTS"), "uops");
  EXPECT_EQ(counter_unit("CYCLES_NO_RETIRE:NOT_COMPLETE_MISSING_LOAD"), "cycles");
}

TEST(CounterUnits, ValuesNeverPrintWithAnExponent) {
  EXPECT_EQ(counter_value_text(214021960), "214,021,960");
  EXPECT_EQ(counter_value_text(298617234.5), "298,617,234.5");
  EXPECT_EQ(counter_value_text(2.25), "2.250");
  EXPECT_EQ(counter_value_text(0), "0");
  EXPECT_EQ(counter_value_text(1e18), "1,000,000,000,000,000,000");
  EXPECT_EQ(counter_value_text(std::numeric_limits<double>::quiet_NaN()), "-");
}

TEST(CounterUnits, TheSummaryTableHasAUnitColumnAndGroupedMeans) {
  const auto t = counter_summary_table(testing::small_job(4, false));
  ASSERT_GE(t.header.size(), 2u);
  EXPECT_EQ(t.header[1], "unit");
  for (const auto& row : t.rows) {
    EXPECT_EQ(row[1], counter_unit(row[0]));
    for (const auto& cell : row) EXPECT_EQ(cell.find("e+"), std::string::npos) << cell;
  }
}

}  // namespace
}  // namespace hpcsens::report
