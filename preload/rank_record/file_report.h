#pragma once
// The "files" array of a rank in the run record (docs/record-format.md), built at finalize from
// the file table (file_table.h); allocation is fine here.
#include <cstdint>

#include <nlohmann/json.hpp>

#include "preload/account/file_table.h"

namespace hpcsens::preload {

// One object per (path, interface) with counted I/O, most I/O time first: path (encoded
// losslessly, common/text_escape.h), interface, opens, reads, writes, meta_ops, bytes_read,
// bytes_written, read_s, write_s, meta_s, read_sizes and write_sizes (kFileSizeBuckets counts),
// consecutive, sequential, random, first_open_s and last_io_s (seconds from `t0_tick`; first_open_s
// absent when no open was counted). Entries sharing a key (claimed by two threads) are summed.
nlohmann::json files_json(const FileEntry* entries, int n, double seconds_per_tick, std::uint64_t t0_tick);

}  // namespace hpcsens::preload
