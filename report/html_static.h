#pragma once
// The page's content as plain HTML, readable with JavaScript switched off: headings, notes,
// warnings, the Top-Down tree, every table, and for every chart its title and the table of the
// numbers behind it. The script only adds the drawn charts (progressive enhancement).
#include <string>

#include <nlohmann/json.hpp>

namespace hpcsens::report::html {

// The body of `page` ({title, emulated, notes[], sections[]}). Charts become placeholders
// <div class="chart" data-chart="K">, K counting from 0 in page order; `charts` receives their
// descriptions in that order, for the script.
std::string static_body(const nlohmann::json& page, nlohmann::json& charts);

// A cell as the script used to print it: numbers to 6 significant digits (exponent form beyond
// 1e6 or below 1e-3), [lo, hi] as "lo to hi", points as "x, y", null as "-".
std::string cell_text(const nlohmann::json& v);

}  // namespace hpcsens::report::html
