/* Probes for MPI functions the way libraries detect features: dlsym(RTLD_DEFAULT, name), then a
 * call. With the preload injected, dlsym finds the preload's wrapper even where no library defines
 * the function. Prints one line per probe, "NAME absent" or "NAME success|unsupported|other" (the
 * C return code or the Fortran ierror), and exits 0.
 * Built twice: without MPI (a process with no MPI at all, such as a tool a job script starts) it
 * probes MPI_Comm_rank, PMPI_Comm_rank (twice) and the Fortran mpi_query_thread_; with WITH_MPI
 * (linked with MPICH's C library only) it runs MPI_Init, probes mpi_barrier_f08_ (a Fortran name
 * the preload exports and no loaded library defines: MPICH's mpi_f08 names differ, and its Fortran
 * library is not loaded) and MPI_Comm_rank (which MPICH defines), and finalizes. */
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>

static const char* verdict(int rc) {
  if (rc == MPI_SUCCESS) return "success";
  return rc == MPI_ERR_UNSUPPORTED_OPERATION ? "unsupported" : "other";
}

static void probe_c(const char* name, MPI_Comm comm) {
  int (*fn)(MPI_Comm, int*) = (int (*)(MPI_Comm, int*))dlsym(RTLD_DEFAULT, name);
  if (fn == NULL) {
    printf("%s absent\n", name);
    return;
  }
  int rank = -1;
  printf("%s %s\n", name, verdict(fn(comm, &rank)));
}

/* Fortran: every argument by reference, ierror last. */
static void probe_fortran(const char* name, MPI_Fint* arg) {
  void (*fn)(MPI_Fint*, MPI_Fint*) = (void (*)(MPI_Fint*, MPI_Fint*))dlsym(RTLD_DEFAULT, name);
  if (fn == NULL) {
    printf("%s absent\n", name);
    return;
  }
  MPI_Fint ierror = -1;
  fn(arg, &ierror);
  printf("%s %s\n", name, verdict(ierror));
}

int main(int argc, char** argv) {
  (void)argc;
  (void)argv;
#ifdef WITH_MPI
  MPI_Init(&argc, &argv);
  MPI_Fint world = MPI_Comm_c2f(MPI_COMM_WORLD);
  probe_fortran("mpi_barrier_f08_", &world);
  probe_c("MPI_Comm_rank", MPI_COMM_WORLD);
  MPI_Finalize();
#else
  MPI_Fint provided = -1;
  probe_c("MPI_Comm_rank", (MPI_Comm)0);
  probe_c("PMPI_Comm_rank", (MPI_Comm)0);
  probe_c("PMPI_Comm_rank", (MPI_Comm)0);
  probe_fortran("mpi_query_thread_", &provided);
#endif
  fflush(stdout);
  return 0;
}
