#include "mpi/elf_needed.h"

#include <elf.h>

#include <algorithm>
#include <cstring>
#include <fstream>

namespace hpcsens::mpi {
namespace {

template <class T>
bool read_at(std::string_view image, std::uint64_t offset, T* out) {
  if (offset > image.size() || image.size() - offset < sizeof(T)) return false;
  std::memcpy(out, image.data() + offset, sizeof(T));
  return true;
}

// File offset of a virtual address, through the PT_LOAD segment that maps it.
bool vaddr_to_offset(std::string_view image, const Elf64_Ehdr& eh, std::uint64_t vaddr,
                     std::uint64_t* offset) {
  for (unsigned i = 0; i < eh.e_phnum; ++i) {
    Elf64_Phdr ph;
    if (!read_at(image, eh.e_phoff + std::uint64_t{i} * eh.e_phentsize, &ph)) return false;
    if (ph.p_type == PT_LOAD && vaddr >= ph.p_vaddr && vaddr - ph.p_vaddr < ph.p_filesz) {
      *offset = ph.p_offset + (vaddr - ph.p_vaddr);
      return true;
    }
  }
  return false;
}

}  // namespace

std::vector<std::string> elf_needed_libraries(std::string_view image) {
  Elf64_Ehdr eh;
  if (!read_at(image, 0, &eh) || std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
      eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB ||
      eh.e_phentsize < sizeof(Elf64_Phdr))
    return {};
  // The dynamic segment lists DT_NEEDED as offsets into the string table at DT_STRTAB.
  std::uint64_t dyn_off = 0, dyn_size = 0;
  bool has_dynamic = false;
  for (unsigned i = 0; i < eh.e_phnum && !has_dynamic; ++i) {
    Elf64_Phdr ph;
    if (!read_at(image, eh.e_phoff + std::uint64_t{i} * eh.e_phentsize, &ph)) return {};
    if (ph.p_type == PT_DYNAMIC) {
      dyn_off = ph.p_offset;
      dyn_size = ph.p_filesz;
      has_dynamic = true;
    }
  }
  if (!has_dynamic) return {};
  std::vector<std::uint64_t> name_offsets;
  std::uint64_t strtab = 0;
  bool has_strtab = false;
  for (std::uint64_t p = dyn_off; p + sizeof(Elf64_Dyn) <= dyn_off + dyn_size; p += sizeof(Elf64_Dyn)) {
    Elf64_Dyn d;
    if (!read_at(image, p, &d) || d.d_tag == DT_NULL) break;
    if (d.d_tag == DT_NEEDED) name_offsets.push_back(d.d_un.d_val);
    if (d.d_tag == DT_STRTAB) {
      strtab = d.d_un.d_ptr;
      has_strtab = true;
    }
  }
  std::uint64_t strtab_off = 0;
  if (!has_strtab || !vaddr_to_offset(image, eh, strtab, &strtab_off)) return {};
  std::vector<std::string> out;
  for (std::uint64_t off : name_offsets) {
    if (strtab_off + off >= image.size()) continue;
    const std::string_view rest = image.substr(strtab_off + off);
    const auto end = rest.find('\0');
    if (end != std::string_view::npos) out.emplace_back(rest.substr(0, end));
  }
  return out;
}

std::vector<std::string> elf_needed_libraries_of_file(const std::string& path) {
  // The headers, dynamic section and string table sit near the start; HPC binaries can be huge.
  constexpr std::size_t kMaxRead = 64u << 20;
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return {};
  // Only as much as the file holds: zero-filling 64 MiB for a 100 KiB program took ~0.4 s of
  // every run's start on a loaded 2-core machine.
  const std::streamoff size = in.tellg();
  if (size <= 0) return {};
  in.seekg(0);
  std::string image(std::min<std::size_t>(kMaxRead, static_cast<std::size_t>(size)), '\0');
  in.read(image.data(), static_cast<std::streamsize>(image.size()));
  image.resize(static_cast<std::size_t>(in.gcount()));
  return elf_needed_libraries(image);
}

}  // namespace hpcsens::mpi
