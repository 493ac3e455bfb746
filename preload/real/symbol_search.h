#pragma once
// Finding a symbol wherever its library was loaded. dlsym(RTLD_DEFAULT/RTLD_NEXT) sees only the
// global scope: the program, LD_PRELOAD and their dependencies. Python, Julia, R and Java load
// their MPI bindings (and so libmpi) with RTLD_LOCAL, where only the binding sees libmpi; the
// binding's calls still reach our wrappers (the global scope is searched first), but the real
// functions are in a scope dlsym without a handle never searches.
namespace hpcsens::preload {

// dlsym(RTLD_NEXT or RTLD_DEFAULT, name), and where that finds nothing, the first definition in
// any object loaded into this process other than this library (each object's own local scope).
// nullptr when no loaded object defines it. Takes the dynamic linker's locks and allocates: call
// it once per symbol, never on a counted path.
void* find_symbol(const char* name, bool next) noexcept;

// The second half alone: the first definition in a loaded object (and its dependencies) other
// than the library holding `self`, in load order; nullptr if none.
void* find_in_loaded_objects(const char* name, const void* self) noexcept;

}  // namespace hpcsens::preload
