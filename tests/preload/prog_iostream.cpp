// Test program: C++ iostream I/O and I/O that is not file I/O. argv[1]: a directory.
// Each rank writes <dir>/stream.<rank> through std::ofstream: 100 writes of 1,000 'a' and the
// 12 bytes "hello world\n" (100,012 bytes), then reads it back whole through std::ifstream
// (100,012 bytes). Not file I/O: 10,225 bytes written to /dev/null through std::ofstream and 100
// with write(); /proc/self/statm read 20 times with read() and once with std::ifstream; a pipe
// written and read 5 bytes.
#include <fcntl.h>
#include <mpi.h>
#include <unistd.h>

#include <fstream>
#include <string>
#include <vector>

namespace {

int file_io(const std::string& path) {
  {
    std::ofstream out(path, std::ios::binary);
    const std::string block(1000, 'a');
    for (int i = 0; i < 100; ++i) out.write(block.data(), static_cast<std::streamsize>(block.size()));
    out << "hello world\n";
    if (!out) return 1;
  }
  std::ifstream in(path, std::ios::binary);
  std::vector<char> buf(300000);
  in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
  return in.gcount() == 100012 ? 0 : 1;
}

int other_io() {
  {
    std::ofstream null("/dev/null", std::ios::binary);
    null << std::string(10225, 'q');
  }
  const int fd = open("/dev/null", O_WRONLY);
  char zeros[100] = {};
  if (fd < 0 || write(fd, zeros, sizeof zeros) != 100) return 1;
  close(fd);
  char statm[256];
  for (int i = 0; i < 20; ++i) {
    const int s = open("/proc/self/statm", O_RDONLY);
    if (s < 0 || read(s, statm, sizeof statm) <= 0) return 1;
    close(s);
  }
  std::ifstream proc("/proc/self/statm");
  std::string line;
  if (!std::getline(proc, line)) return 1;
  int p[2];
  if (pipe(p) != 0 || write(p[1], "pipe!", 5) != 5 || read(p[0], statm, 5) != 5) return 1;
  close(p[0]);
  close(p[1]);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const std::string dir = argc > 1 ? argv[1] : ".";
  const int bad = file_io(dir + "/stream." + std::to_string(rank)) + other_io();
  MPI_Finalize();
  return bad;
}
