/* Opens the binding named by argv[1] with RTLD_LOCAL and runs it: what python3 does with
 * mpi4py, without Python. The exit status is the binding's (2: the binding could not be loaded). */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  void* binding = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (binding == NULL) {
    fprintf(stderr, "local_loader: %s\n", dlerror());
    return 2;
  }
  int (*run)(void) = (int (*)(void))dlsym(binding, "binding_run");
  return run != NULL ? run() : 2;
}
