#pragma once
// Outside text cut to fit and shown on a terminal or a page (implemented beside the escapings of
// common/text_escape.h, whose UTF-8 rules they share).
#include <cstddef>
#include <string>
#include <string_view>

namespace hpcsens::text {

// The length of the longest prefix of `s` of at most `max` bytes that cuts no character and no
// escape of encode_outside apart: units are a well-formed UTF-8 sequence, "\\", "\xHH", or one
// other byte. So a name cut to fit a fixed field stays valid UTF-8 (and decodable) and two names
// cut from different characters never collapse into the same replacement character.
std::size_t cut_at_boundary(std::string_view s, std::size_t max);

// For text of several lines bound for a terminal or a page (tables, CSV on stdout, HTML text): as
// escape_for_message but line ends and tabs are kept, so names from input files (system, mix, CSV
// labels, host names) can carry no escape sequence, bell or other control byte to the screen.
std::string escape_for_terminal(std::string_view s);

}  // namespace hpcsens::text
