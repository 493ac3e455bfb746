/* Temporary files after MPI_Init (issue 20 validation: gfortran's scratch units use mkostemp):
 * mkstemp in DIR (argument 1): 4096 bytes written, read back after lseek, closed, removed;
 * mkostemps with a 4-character suffix: 100 bytes written; tmpfile: 4096 bytes fwritten, read
 * back after fseek, fclosed. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  char buf[4096] = {0}, name[4096], sname[4096];
  snprintf(name, sizeof name, "%s/tmpXXXXXX", argc > 1 ? argv[1] : "/tmp");
  snprintf(sname, sizeof sname, "%s/sufXXXXXX.dat", argc > 1 ? argv[1] : "/tmp");
  int bad = 0;
  const int fd = mkstemp(name);
  bad |= fd < 0 || write(fd, buf, sizeof buf) != (ssize_t)sizeof buf || lseek(fd, 0, SEEK_SET) != 0 ||
         read(fd, buf, sizeof buf) != (ssize_t)sizeof buf || close(fd) != 0;
  unlink(name);
  const int sfd = mkostemps(sname, 4, O_CLOEXEC);
  bad |= sfd < 0 || write(sfd, buf, 100) != 100 || close(sfd) != 0;
  unlink(sname);
  FILE* f = tmpfile();
  bad |= f == NULL || fwrite(buf, 1, sizeof buf, f) != sizeof buf || fseek(f, 0, SEEK_SET) != 0 ||
         fread(buf, 1, sizeof buf, f) != sizeof buf || fclose(f) != 0;
  MPI_Finalize();
  return bad;
}
