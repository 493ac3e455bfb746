#pragma once
// Two escapings for strings that come from the outside world (argv, host names, environment,
// file contents), which are bytes, not necessarily UTF-8.
//
// 1. Lossless storage in JSON (`encode_outside` / `decode_outside`). JSON strings must be UTF-8,
//    so a Latin-1 file name in argv or a host name like "h\xE9" would make the serialiser throw,
//    stopping a job or a gather. The encoding, documented in docs/record-format.md:
//      - every byte that is not part of a well-formed UTF-8 sequence becomes the four characters
//        \xHH (lower-case hex);
//      - every backslash becomes two backslashes;
//      - everything else (all valid UTF-8 other than '\') is kept as it is.
//    So plain text is unchanged and decoding gives back the exact bytes.
// 2. Messages (`escape_for_message`): control characters and invalid bytes are shown as \n, \t,
//    \r or \xHH so an error line is one line and no escape sequence reaches the terminal. It does
//    not touch backslashes, so escaping an already escaped message changes nothing.
#include <string>
#include <string_view>

namespace hpcsens::text {

// Length of the well-formed UTF-8 sequence starting at s[i], or 0 when the byte there does not
// start one (RFC 3629, table 3-7 of the Unicode standard). Async-signal-safe (no allocation).
std::size_t utf8_sequence_length(std::string_view s, std::size_t i);

// True when `s` is well-formed UTF-8 (no overlong forms, no surrogates, at most U+10FFFF).
bool is_valid_utf8(std::string_view s);

// Bytes -> valid UTF-8 text, losslessly (see above). Never throws except std::bad_alloc.
std::string encode_outside(std::string_view bytes);

// The inverse of encode_outside. Returns false (and leaves *bytes unspecified) when `text` is not
// something encode_outside produces (a lone backslash, a bad \x escape).
bool decode_outside(std::string_view text, std::string* bytes);

// For one-line messages: C0 controls, DEL, C1 controls and invalid bytes escaped (\n \r \t \xHH).
std::string escape_for_message(std::string_view s);

}  // namespace hpcsens::text
