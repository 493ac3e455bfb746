#pragma once
// One self-contained HTML page: the charting library (Chart.js from Debian's libjs-chart.js),
// our glue script and style are compiled into the binary and inlined. The page's content is one
// JSON document (sections of text, charts and tables), written out as plain HTML (readable with
// JavaScript off: report/html_static.h); the glue script draws the charts into it. Nothing is
// loaded from the network and nothing from the input is ever inserted unescaped.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/headline.h"
#include "report/table.h"

namespace hpcsens::report::html {

using json = nlohmann::json;

// {title, header, rows, numeric} for the glue script's table().
json table_json(const Table& t);

// A data series: `data` holds numbers (bars), [lo, hi] pairs (floating bars) or {x, y} points.
// `extra` adds options: kind (bar|line|scatter|bubble), stack, color, dash, thin, order, line.
json series(const std::string& name, json data, json extra = json::object());

// A category chart (bars, optionally stacked or horizontal; series may be lines or floating bars).
json bar_chart(const std::string& title, const std::string& x_label, const std::string& y_label,
               std::vector<std::string> labels, std::vector<json> series_list, bool stacked = false,
               bool horizontal = false);
// An x/y chart (scatter points, lines between points, bubbles).
json xy_chart(const std::string& title, const std::string& x_label, const std::string& y_label,
              std::vector<json> series_list, const std::string& type = "scatter");

json section(const std::string& title);

// {headline, caveats[], advice[], tone} for the page's "answer" (shown first, coloured by tone).
json answer(const Answer& a);

// The whole page: {title, emulated, notes[], sections[]} -> HTML text.
std::string document(const json& page);

// Escapes text for HTML element content and attribute values.
std::string escape(const std::string& text);

}  // namespace hpcsens::report::html
