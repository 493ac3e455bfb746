#include "common/json_input.h"

#include <unordered_set>
#include <vector>

#include "common/errors.h"
#include "common/json_bounds.h"
#include "common/safe_file.h"

namespace hpcsens::json_input {
namespace {

using nlohmann::json;

// Where the parser is, for messages: one frame per open object or array.
struct Frame {
  bool object = false;
  std::string key;                    // object: the key being read
  std::size_t index = 0;              // array: the element being read
  std::unordered_set<std::string> keys;  // object: keys seen so far
};

std::string path_of(const std::vector<Frame>& frames) {
  std::string p;
  for (const auto& f : frames) {
    if (f.object) {
      if (f.key.empty() && &f == &frames.back()) break;
      p += (p.empty() ? "" : ".") + f.key;
    } else {
      p += "[" + std::to_string(f.index) + "]";
    }
  }
  return p.empty() ? "(top level)" : p;
}

void element_done(std::vector<Frame>& frames) {
  if (!frames.empty() && !frames.back().object) ++frames.back().index;
}

}  // namespace

json parse_strict(std::string_view text, const std::string& source) {
  // Depth, string and number length first: nothing below (nlohmann's copies, dumps, comparisons,
  // our own walkers) then recurses deeper than kMaxDepth.
  check_bounds(text, source);
  std::vector<Frame> frames;
  const json::parser_callback_t track = [&](int, json::parse_event_t ev, json& parsed) {
    switch (ev) {
      case json::parse_event_t::object_start:
        frames.push_back(Frame{true, {}, 0, {}});
        break;
      case json::parse_event_t::array_start:
        frames.push_back(Frame{false, {}, 0, {}});
        break;
      case json::parse_event_t::key: {
        Frame& f = frames.back();
        f.key = parsed.get<std::string>();
        if (!f.keys.insert(f.key).second)
          throw InputError(source, "duplicate key '" + f.key + "' at " + path_of(frames));
        break;
      }
      case json::parse_event_t::object_end:
      case json::parse_event_t::array_end:
        frames.pop_back();
        element_done(frames);
        break;
      case json::parse_event_t::value:
        element_done(frames);
        break;
    }
    return true;
  };
  try {
    return json::parse(text.begin(), text.end(), track);
  } catch (const json::out_of_range& e) {
    throw InputError(source, "field '" + path_of(frames) + "': number out of range (" + e.what() + ")");
  } catch (const json::exception& e) {
    throw InputError(source, "not valid JSON at '" + path_of(frames) + "' (" + e.what() + ")");
  }
}

json load_strict(const std::string& path, std::size_t max_bytes) {
  return parse_strict(safe_file::read_input_file(path, max_bytes), path);
}

}  // namespace hpcsens::json_input
