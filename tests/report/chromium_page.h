#pragma once
// Headless Chromium for the HTML tests: the command line (network and extras off), a page's DOM
// after its script ran, the <body> attributes the glue script sets, and the data every drawn
// chart holds (each chart box's data-rendered attribute, written from the Chart.js instance).
#include <nlohmann/json.hpp>

#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include "process.h"

namespace hpcsens::testing {

inline std::vector<std::string> chromium(const std::filesystem::path& profile) {
  return {"chromium", "--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=" + profile.string(),
          "--disable-background-networking", "--disable-component-update", "--disable-default-apps",
          "--disable-sync", "--disable-extensions", "--no-first-run", "--no-default-browser-check",
          "--mute-audio", "--hide-scrollbars", "--enable-logging=stderr", "--v=0",
          "--virtual-time-budget=10000"};
}

// The page's DOM after its script ran (exit status checked by the caller).
inline ProcessResult dump_dom(const std::filesystem::path& profile, const std::filesystem::path& page) {
  auto argv = chromium(profile);
  argv.push_back("--dump-dom");
  argv.push_back("file://" + page.string());
  return run_process(argv, 120);
}

// An integer attribute of <body>, -1 when absent.
inline int body_attribute(const std::string& dom, const std::string& name) {
  std::smatch m;
  if (!std::regex_search(dom, m, std::regex("<body[^>]*\\s" + name + "=\"(\\d+)\""))) return -1;
  return std::stoi(m[1]);
}

inline std::string html_unescape(std::string s) {
  const std::pair<const char*, const char*> entities[] = {{"&quot;", "\""}, {"&lt;", "<"}, {"&gt;", ">"},
                                                         {"&#39;", "'"}, {"&nbsp;", "\u00a0"}, {"&amp;", "&"}};
  for (const auto& [from, to] : entities)
    for (auto at = s.find(from); at != std::string::npos; at = s.find(from, at + std::string(to).size()))
      s.replace(at, std::string(from).size(), to);
  return s;
}

// Every drawn chart's data as Chart.js holds it, in page order: {title, labels, scales, datasets}.
inline std::vector<nlohmann::json> rendered_charts(const std::string& dom) {
  std::vector<nlohmann::json> out;
  const std::regex attr("data-rendered=\"([^\"]*)\"");
  for (auto it = std::sregex_iterator(dom.begin(), dom.end(), attr); it != std::sregex_iterator(); ++it)
    out.push_back(nlohmann::json::parse(html_unescape((*it)[1].str())));
  return out;
}

// The drawn chart whose title starts with `title` (null when none).
inline nlohmann::json chart_titled(const std::vector<nlohmann::json>& charts, const std::string& title) {
  for (const auto& c : charts)
    if (c.value("title", std::string()).rfind(title, 0) == 0) return c;
  return nullptr;
}

}  // namespace hpcsens::testing
