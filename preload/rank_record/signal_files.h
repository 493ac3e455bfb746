#pragma once
// The per-file table (account/file_table.h) written into a partial record from a signal handler:
// the same fields as the full record's "files" (rank_record/file_report.h), one entry per table
// entry (the full record merges the rare duplicates of a path opened twice at once), sorted by
// time. Async-signal-safe: reads the static table, writes into the handler's text.
#include <cstdint>

#include "preload/rank_record/signal_text.h"

namespace hpcsens::preload {

// Appends `,"files":[...],"files_dropped":N`; `spt` seconds per tick, `t0_tick` the record's t1.
void put_signal_files(SignalText& o, double spt, std::uint64_t t0_tick);

}  // namespace hpcsens::preload
