#include "preload/rank_record/signal_files.h"

#include <algorithm>
#include <atomic>

#include "common/text_escape.h"
#include "preload/account/file_table.h"

namespace hpcsens::preload {

void SignalText::outside_string(std::string_view bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  put("\"");
  for (std::size_t i = 0; i < bytes.size();) {
    const auto c = static_cast<unsigned char>(bytes[i]);
    const std::size_t len = text::utf8_sequence_length(bytes, i);
    if (len == 0) {  // not UTF-8: the four characters \xHH, the backslash escaped for JSON
      const char e[] = {'\\', '\\', 'x', kHex[c >> 4], kHex[c & 15]};
      put(e, sizeof e);
    } else if (c == '\\') {  // doubled by encode_outside, then each escaped for JSON
      put("\\\\\\\\");
    } else if (c == '"') {
      put("\\\"");
    } else if (c < 0x20) {
      const char e[] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 15]};
      put(e, sizeof e);
    } else {
      put(bytes.data() + i, len);
    }
    i += len == 0 ? 1 : len;
  }
  put("\"");
}

namespace {

constexpr auto kR = std::memory_order_relaxed;

std::uint64_t entry_ticks(const FileEntry& e) {
  return e.read_ticks.load(kR) + e.write_ticks.load(kR) + e.meta_ticks.load(kR) + e.sync_ticks.load(kR);
}

bool counted(const FileEntry& e) {
  return e.ready.load(std::memory_order_acquire) == 1 &&
         e.opens.load(kR) + e.reads.load(kR) + e.writes.load(kR) + e.metas.load(kR) + e.syncs.load(kR) > 0;
}

void put_sizes(SignalText& o, const std::atomic<std::uint64_t> (&sizes)[kFileSizeBuckets]) {
  o.put("[");
  for (int b = 0; b < kFileSizeBuckets; ++b) {
    if (b > 0) o.put(",");
    o.u64(sizes[b].load(kR));
  }
  o.put("]");
}

void put_entry(SignalText& o, const FileEntry& e, double spt, std::uint64_t t0) {
  const auto secs = [&](std::uint64_t ticks) { return static_cast<double>(ticks) * spt; };
  const auto since = [&](std::uint64_t tick) { return tick > t0 ? secs(tick - t0) : 0.0; };
  o.put("{\"path\":"), o.outside_string({file_path(e), e.path_len});
  o.put(",\"interface\":\""), o.put(file_api_name(e.api)), o.put("\"");
  o.put(",\"opens\":"), o.u64(e.opens.load(kR)), o.put(",\"reads\":"), o.u64(e.reads.load(kR));
  o.put(",\"writes\":"), o.u64(e.writes.load(kR)), o.put(",\"meta_ops\":"), o.u64(e.metas.load(kR));
  o.put(",\"syncs\":"), o.u64(e.syncs.load(kR));
  o.put(",\"bytes_read\":"), o.u64(e.bytes_read.load(kR));
  o.put(",\"bytes_written\":"), o.u64(e.bytes_written.load(kR));
  o.put(",\"read_s\":"), o.seconds(secs(e.read_ticks.load(kR)));
  o.put(",\"write_s\":"), o.seconds(secs(e.write_ticks.load(kR)));
  o.put(",\"meta_s\":"), o.seconds(secs(e.meta_ticks.load(kR)));
  o.put(",\"sync_s\":"), o.seconds(secs(e.sync_ticks.load(kR)));
  o.put(",\"read_sizes\":"), put_sizes(o, e.read_sizes);
  o.put(",\"write_sizes\":"), put_sizes(o, e.write_sizes);
  o.put(",\"consecutive\":"), o.u64(e.consecutive.load(kR));
  o.put(",\"sequential\":"), o.u64(e.sequential.load(kR)), o.put(",\"random\":"), o.u64(e.random.load(kR));
  o.put(",\"last_io_s\":"), o.seconds(since(e.last_io_tick.load(kR)));
  if (const std::uint64_t f = e.first_open_tick.load(kR); f != 0) o.put(",\"first_open_s\":"), o.seconds(since(f));
  o.put("}");
}

}  // namespace

void put_signal_files(SignalText& o, double spt, std::uint64_t t0_tick) {
  int order[kFileEntries];
  int n = 0;
  const int used = std::min(files_used(), kFileEntries);
  for (int i = 0; i < used; ++i) {
    if (!counted(g_files[i])) continue;
    int at = n++;  // insertion sort by time, longest first: at most kFileEntries entries
    for (; at > 0 && entry_ticks(g_files[order[at - 1]]) < entry_ticks(g_files[i]); --at) order[at] = order[at - 1];
    order[at] = i;
  }
  o.put(",\"files\":[");
  for (int k = 0; k < n; ++k) {
    const FileEntry& e = g_files[order[k]];
    if (o.n + 5 * std::size_t{e.path_len} + 2048 > o.cap) break;  // room for it and the closing text
    if (k > 0) o.put(",");
    put_entry(o, e, spt, t0_tick);
  }
  o.put("],\"files_dropped\":"), o.u64(files_dropped());
}

}  // namespace hpcsens::preload
