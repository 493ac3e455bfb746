#pragma once
// The timeline in the report: a phase table (text, Markdown) and, on the HTML run page, a heat
// map of ranks x time (each cell coloured by its compute / MPI / I/O shares) with the phase marks
// drawn as vertical lines, above the same phase table.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/table.h"
#include "report/timeline_view.h"

namespace hpcsens::report {

// Ranks drawn in the heat map; beyond, the page says so and shows the phases only.
inline constexpr std::size_t kHeatMapRanks = 512;

// "Timeline phases": from, to, activity, shares, main MPI call, marks. Empty title: no timelines.
Table timeline_phase_table(const std::vector<RankTimeline>& ranks);
// The phase table and a line on the resolution, rendered; "" when no rank has a timeline.
std::string timeline_text(const std::vector<RankTimeline>& ranks, Format format);
// The HTML section (null json when no rank has a timeline).
nlohmann::json timeline_html_section(const std::vector<RankTimeline>& ranks);

}  // namespace hpcsens::report
