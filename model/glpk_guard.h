#pragma once
// GLPK reports internal errors (e.g. "invalid scale factor") by printing and calling abort().
// Every GLPK call goes through glpk_guarded so such a failure becomes a GlpkError instead
// (GLPK's documented glp_error_hook + longjmp route), and a library bug or extreme input
// never kills `hpcsens fit`/`predict`.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace hpcsens::model {

struct GlpkError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Runs fn(arg), which must only make GLPK calls on data owned outside it: on a GLPK error the
// stack between here and GLPK is unwound by longjmp, without destructors. GLPK's whole
// environment (every problem object) is then freed and GlpkError is thrown with GLPK's message.
void glpk_guarded_call(void (*fn)(void*), void* arg);

template <class F>
void glpk_guarded(F&& f) {
  glpk_guarded_call([](void* p) { (*static_cast<std::remove_reference_t<F>*>(p))(); }, &f);
}

// Bumped each time a GLPK error freed the environment: problem objects created under an older
// generation are already gone and must not be deleted again.
std::uint64_t glpk_generation();

}  // namespace hpcsens::model
