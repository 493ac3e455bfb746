#include "report/html_static.h"

#include <fmt/core.h>

#include <cmath>

#include "common/answer.h"
#include "common/human_units.h"
#include "report/html_page.h"

namespace hpcsens::report::html {
namespace {

using nlohmann::json;

std::string number_text(double v) {
  if (!std::isfinite(v)) return "-";
  if (std::fabs(v) >= 1e6) return human::grouped(v, 0);  // bytes and counts: never in exponent form
  if (v != 0 && std::fabs(v) < 1e-3) {
    std::string s = fmt::format("{:.4e}", v);  // "1.2346e+06" -> "1.2346e+6", as JavaScript writes it
    const auto e = s.find('e');
    std::size_t digits = e + 2;
    while (digits + 1 < s.size() && s[digits] == '0') s.erase(digits, 1);
    return s;
  }
  return fmt::format("{:.6g}", v);  // 1e-3 <= |v| < 1e6: never the exponent form
}

std::string tag(const char* name, const std::string& text, const char* cls = nullptr) {
  const std::string open = cls ? fmt::format("<{} class=\"{}\">", name, cls) : fmt::format("<{}>", name);
  return open + escape(text) + "</" + name + ">\n";
}

std::string str(const json& j, const char* key) {
  return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : std::string();
}

std::string table_html(const json& t) {
  std::string out = "<div class=\"table-wrap\">\n";
  if (!str(t, "title").empty()) out += tag("h3", str(t, "title"));
  out += "<table>\n<tr>";
  for (const auto& h : t["header"]) out += "<th>" + escape(cell_text(h)) + "</th>";
  out += "</tr>\n";
  const json numeric = t.value("numeric", json::array());
  // `badges`: the column of verdict words (ok, caution, unreliable), each drawn as a coloured badge.
  const long badges = t.contains("badges") && t["badges"].is_number_integer() ? t["badges"].get<long>() : -1;
  for (const auto& r : t["rows"]) {
    out += "<tr>";
    for (std::size_t i = 0; i < r.size(); ++i) {
      const bool num = i < numeric.size() && numeric[i].is_boolean() && numeric[i].get<bool>();
      const std::string word = cell_text(r[i]);
      if (static_cast<long>(i) == badges && (word == "ok" || word == "caution" || word == "unreliable")) {
        out += "<td><span class=\"badge verdict-" + word + "\">" + word + "</span></td>";
        continue;
      }
      out += (num ? "<td class=\"num\">" : "<td>") + escape(word) + "</td>";
    }
    out += "</tr>\n";
  }
  return out + "</table>\n</div>\n";
}

// The numbers behind a chart: one row per category, or one per point.
json numbers(const json& c) {
  if (c.contains("numbers")) return c["numbers"];  // a chart that is no series (the heat map) gives its own
  json t = {{"header", json::array()}, {"rows", json::array()}, {"numeric", json::array()}};
  const json& series = c["series"];
  if (c.contains("labels") && c["labels"].is_array()) {
    t["header"].push_back(str(c, "x"));
    t["numeric"].push_back(false);
    for (const auto& s : series) t["header"].push_back(str(s, "name")), t["numeric"].push_back(true);
    for (std::size_t i = 0; i < c["labels"].size(); ++i) {
      json row = {c["labels"][i]};
      for (const auto& s : series) row.push_back(i < s["data"].size() ? s["data"][i] : json());
      t["rows"].push_back(row);
    }
    return t;
  }
  t["header"] = {"series", str(c, "x"), str(c, "y")};
  t["numeric"] = {false, true, true};
  for (const auto& s : series) {
    if (s.value("hidden_in_table", false)) continue;
    for (const auto& p : s["data"]) {
      const std::string label = p.contains("label") && p["label"].is_string() ? " " + p["label"].get<std::string>() : "";
      t["rows"].push_back({str(s, "name") + label, p.value("x", json()), p.value("y", json())});
    }
  }
  return t;
}

std::string chart_html(const json& c, std::size_t k, bool emulated) {
  const bool emu = emulated || c.value("emulated", false);
  std::string out = fmt::format("<div class=\"chart\" data-chart=\"{}\">\n", k);
  out += tag("h3", str(c, "title") + (emu ? " \u2014 EMULATED" : ""), "chart-title");
  if (emu) out += tag("p", "EMULATED data: computed from a model, not measured", "warning chart-title");
  if (!str(c, "note").empty()) out += tag("p", str(c, "note"), "note");
  const json t = numbers(c);
  out += fmt::format("<details class=\"numbers\" open>\n<summary>Numbers behind this chart ({} rows)</summary>\n",
                     t["rows"].size());
  return out + table_html(t) + "</details>\n</div>\n";
}

std::string tree_html(const json& nodes) {
  std::string out = "<ul class=\"tree\">\n";
  for (const auto& n : nodes) {
    const bool flagged = n.value("flagged", false);
    const std::string value = n["value"].is_number() ? fmt::format("{:.1f} %", 100 * n["value"].get<double>()) : "-";
    out += flagged ? "<li class=\"flagged\">" : "<li>";
    out += "<span class=\"node\">" + escape(str(n, "name") + ": " + value + (flagged ? "  \u2190 flagged" : "")) +
           "</span>\n";
    if (n.contains("children") && !n["children"].empty()) out += tree_html(n["children"]);
    out += "</li>\n";
  }
  return out + "</ul>\n";
}

// The answer first: the headline in a box coloured by its tone, then what to try.
std::string answer_html(const json& a) {
  const std::string tone = str(a, "tone");
  const bool known = tone == "ok" || tone == "caution" || tone == "bad";
  std::string out = fmt::format("<section class=\"answer tone-{}\" id=\"answer\">\n", known ? tone : "info");
  out += tag("h2", "Answer");
  out += tag("p", str(a, "headline"), "headline");
  for (const auto& c : a.value("caveats", json::array())) out += tag("p", answer::caveat_line(cell_text(c)), "caveat");
  const json advice = a.value("advice", json::array());
  if (!advice.empty()) {
    out += tag("h3", "What to try");
    out += "<ul class=\"advice\">\n";
    for (const auto& x : advice) out += tag("li", cell_text(x));
    out += "</ul>\n";
  }
  return out + "</section>\n";
}

}  // namespace

std::string cell_text(const json& v) {
  if (v.is_null()) return "-";
  if (v.is_number()) return number_text(v.get<double>());
  if (v.is_array() && v.size() == 2) return cell_text(v[0]) + " to " + cell_text(v[1]);
  if (v.is_object())
    return cell_text(v.value("x", json())) + ", " + cell_text(v.value("y", json())) +
           (v.contains("r") ? " (" + cell_text(v.value("v", json())) + ")" : "");
  if (v.is_string()) return v.get<std::string>();
  return v.dump();
}

std::string static_body(const json& page, json& charts) {
  const bool emulated = page.value("emulated", false);
  charts = json::array();
  std::string out = tag("h1", page.value("title", std::string("hpcsens report")));
  out += "<noscript><p class=\"note\">The charts need JavaScript, which is switched off; every number "
         "is in the tables below.</p></noscript>\n";
  if (emulated)
    out += tag("p", "EMULATED: the numbers on this page come from a model (the emulated launcher), "
                    "not from a measurement.", "banner");
  if (page.contains("answer") && page["answer"].is_object()) out += answer_html(page["answer"]);
  for (const auto& n : page.value("notes", json::array())) out += tag("p", cell_text(n), "lead");
  for (const auto& s : page.value("sections", json::array())) {
    out += "<section>\n" + tag("h2", str(s, "title"));
    if (s.contains("verdict") && s["verdict"].is_object()) {
      const std::string word = str(s["verdict"], "word");
      const bool known = word == "ok" || word == "caution" || word == "unreliable";
      out += tag("p", str(s["verdict"], "text"), known ? ("verdict verdict-" + word).c_str() : "verdict");
    }
    for (const auto& w : s.value("warnings", json::array())) out += tag("p", cell_text(w), "warning");
    for (const auto& t : s.value("text", json::array())) out += tag("p", cell_text(t));
    for (const auto& c : s.value("charts", json::array())) {
      out += chart_html(c, charts.size(), emulated);
      json for_script = c;
      for_script["emulated"] = emulated || c.value("emulated", false);
      charts.push_back(std::move(for_script));
    }
    if (s.contains("tree")) out += tree_html(s["tree"]);
    for (const auto& p : s.value("pre", json::array())) out += tag("pre", cell_text(p));
    for (const auto& t : s.value("tables", json::array())) out += table_html(t);
    out += "</section>\n";
  }
  return out;
}

}  // namespace hpcsens::report::html
