#pragma once
// What to do next, for the errors users meet most: one small rule table from the words of an
// error message to the step that fixes it. main appends the advice to every "hpcsens: error:"
// line it prints, so the modules that find the problem need not know which command was run.
#include <string>

namespace hpcsens::cli {

// The advice for `message` (an InputError's text) from subcommand `sub` ("" when unknown),
// beginning "; " so it reads on as part of the line; empty when no rule applies or the message
// already says what to do.
std::string advice_for(const std::string& sub, const std::string& message);

}  // namespace hpcsens::cli
