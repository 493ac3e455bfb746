#include "model/glpk_guard.h"

#include <glpk.h>

#include <csetjmp>
#include <sstream>

namespace hpcsens::model {
namespace {

thread_local std::jmp_buf* t_jump = nullptr;
thread_local std::string t_output;  // what GLPK printed inside the current guard
thread_local std::uint64_t t_generation = 0;

int swallow_output(void*, const char* s) {
  t_output += s;
  return 1;  // nonzero: GLPK prints nothing itself
}

[[noreturn]] void jump_out(void*) { std::longjmp(*t_jump, 1); }

// GLPK prints "glp_xxx: <problem>" then "Error detected in file ... at line N", possibly after
// progress lines such as "Scaling...": keep the line just before "Error detected".
std::string error_line(const std::string& s) {
  std::istringstream in(s);
  std::string line, prev;
  while (std::getline(in, line)) {
    if (line.rfind("Error detected", 0) == 0) break;
    if (!line.empty()) prev = line;
  }
  return prev.empty() ? "GLPK internal error" : prev;
}

}  // namespace

std::uint64_t glpk_generation() { return t_generation; }

void glpk_guarded_call(void (*fn)(void*), void* arg) {
  t_output.clear();
  glp_term_hook(swallow_output, nullptr);  // reinstalled each time: glp_free_env resets hooks
  glp_error_hook(jump_out, nullptr);
  std::jmp_buf jb;
  std::jmp_buf* const outer = t_jump;  // guards may nest
  t_jump = &jb;
  if (setjmp(jb) == 0) {
    fn(arg);
    t_jump = outer;
    if (!outer) glp_error_hook(nullptr, nullptr);
    return;
  }
  t_jump = outer;
  // GLPK's state is inconsistent after an error; its manual says to free the environment.
  glp_free_env();
  ++t_generation;
  const std::string msg = error_line(t_output);
  t_output.clear();
  if (outer) {  // let the outer guard's caller see it too, with hooks back in place
    glp_term_hook(swallow_output, nullptr);
    glp_error_hook(jump_out, nullptr);
  }
  throw GlpkError(msg);
}

}  // namespace hpcsens::model
