// Byte counts of intercepted calls (see the "bytes" column of mpi_calls.tbl).
#include "preload/real/mpi_abi.h"
#include "preload/interpose/wrapper_support.h"

namespace hpcsens::preload {
namespace {

bool null_type(MPI_Datatype type) {
  const auto& h = pmpi::handles();
  return !h.resolved || type == h.datatype_null;
}
bool null_comm(MPI_Comm comm) {
  const auto& h = pmpi::handles();
  return !h.resolved || comm == h.comm_null;
}

// Size of the group a collective on `comm` sends to: the remote group of an intercommunicator.
// This process's rank in an intracommunicator, for the in-place collectives whose contribution is
// its own entry of a count array; -1 for a null or inter-communicator (MPI_IN_PLACE is not allowed
// there).
int own_rank(MPI_Comm comm) {
  if (null_comm(comm)) return -1;
  int inter = 0, rank = -1;
  pmpi::Comm_test_inter.get()(comm, &inter);
  if (inter) return -1;
  pmpi::Comm_rank.get()(comm, &rank);
  return rank;
}

int group_size(MPI_Comm comm) {
  if (null_comm(comm)) return 0;
  int inter = 0, size = 0;
  pmpi::Comm_test_inter.get()(comm, &inter);
  if (inter)
    pmpi::Comm_remote_size.get()(comm, &size);
  else
    pmpi::Comm_size.get()(comm, &size);
  return size;
}

int out_degree(MPI_Comm comm) {
  if (null_comm(comm)) return 0;
  int topo = MPI_UNDEFINED;
  pmpi::Topo_test.get()(comm, &topo);
  if (topo == MPI_DIST_GRAPH) {
    int indeg = 0, outdeg = 0, weighted = 0;
    pmpi::Dist_graph_neighbors_count.get()(comm, &indeg, &outdeg, &weighted);
    return outdeg;
  }
  if (topo == MPI_GRAPH) {
    int rank = 0, nn = 0;
    pmpi::Comm_rank.get()(comm, &rank);
    pmpi::Graph_neighbors_count.get()(comm, rank, &nn);
    return nn;
  }
  if (topo == MPI_CART) {
    int ndims = 0;
    pmpi::Cartdim_get.get()(comm, &ndims);
    return 2 * ndims;  // MPI-3.1 7.6: two neighbours per dimension, MPI_PROC_NULL ones included
  }
  return 0;
}

// The size of the last predefined datatype this thread asked about. Asking MPI costs a call into
// the library on every send and receive (measured: ~5 ns of a 0-byte ping-pong's ~50 ns added
// per hop); programs nearly always reuse one or two predefined types. Only predefined (named)
// types are cached: they live until MPI_Finalize, while a freed derived type's handle can be
// reused for a type of another size.
struct TypeSizeCache {
  MPI_Datatype type{};
  std::int64_t size = 0;
  bool valid = false;
};
constinit thread_local TypeSizeCache t_type_cache __attribute__((tls_model("initial-exec")));

std::int64_t type_size(MPI_Datatype type) {
  if (t_type_cache.valid && type == t_type_cache.type) [[likely]]
    return t_type_cache.size;
  if (null_type(type)) return 0;
  int size = 0;
  if (pmpi::Type_size.get()(type, &size) != MPI_SUCCESS) return 0;
  int ni = 0, na = 0, nd = 0, combiner = MPI_UNDEFINED;
  if (pmpi::Type_get_envelope.get()(type, &ni, &na, &nd, &combiner) == MPI_SUCCESS &&
      combiner == MPI_COMBINER_NAMED)
    t_type_cache = {type, size, true};
  return size;
}

std::int64_t nonneg(std::int64_t v) { return v < 0 ? 0 : v; }

MPI_Fint fint(const void* p) { return p == nullptr ? 0 : *static_cast<const MPI_Fint*>(p); }
MPI_Datatype ftype(const void* p) {
  if (p == nullptr || !pmpi::handles().resolved) return pmpi::handles().datatype_null;
  return abi::type_f2c(fint(p));
}
MPI_Comm fcomm(const void* p) {
  if (p == nullptr || !pmpi::handles().resolved) return pmpi::handles().comm_null;
  return abi::comm_f2c(fint(p));
}

// Count arrays are int (MPI-3) or MPI_Count (the MPI-4 large-count '_c' variants).
template <class C>
std::int64_t sum_first(const C counts[], int k) {
  std::int64_t s = 0;
  for (int i = 0; counts != nullptr && i < k; ++i) s += nonneg(counts[i]);
  return s;
}
template <class C>
std::int64_t sum_typed(const C counts[], const MPI_Datatype types[], int k) {
  std::int64_t s = 0;
  for (int i = 0; counts != nullptr && types != nullptr && i < k; ++i)
    s += nonneg(counts[i]) * type_size(types[i]);
  return s;
}
template <class C>
std::int64_t own_entry(const C counts[], MPI_Comm comm) {
  const int rank = own_rank(comm);
  return counts != nullptr && rank >= 0 ? nonneg(counts[rank]) : 0;
}
template <class C>
std::int64_t received(const MPI_Status* status, C count, MPI_Datatype type) {
  const std::int64_t size = type_size(type);
  int got = MPI_UNDEFINED;
  if (status != MPI_STATUS_IGNORE && size > 0 &&
      pmpi::Get_count.get()(status, type, &got) == MPI_SUCCESS && got != MPI_UNDEFINED)
    return nonneg(got) * size;
  return nonneg(count) * size;  // also a count past INT_MAX elements: the posted size
}

}  // namespace

namespace cb {
std::int64_t n(int count) noexcept { return nonneg(count); }
std::int64_t n(MPI_Count count) noexcept { return nonneg(count); }
std::int64_t t(MPI_Datatype type) noexcept { return type_size(type); }
std::int64_t np(MPI_Comm comm) noexcept { return group_size(comm); }
std::int64_t nout(MPI_Comm comm) noexcept { return out_degree(comm); }
std::int64_t sum(const int counts[], MPI_Comm comm) noexcept {
  return sum_first(counts, group_size(comm));
}
std::int64_t sumn(const int counts[], MPI_Comm comm) noexcept {
  return sum_first(counts, out_degree(comm));
}
std::int64_t own(const int counts[], MPI_Comm comm) noexcept { return own_entry(counts, comm); }
std::int64_t sumw(const int counts[], const MPI_Datatype types[], MPI_Comm comm) noexcept {
  return sum_typed(counts, types, group_size(comm));
}
std::int64_t sumnw(const int counts[], const MPI_Datatype types[], MPI_Comm comm) noexcept {
  return sum_typed(counts, types, out_degree(comm));
}
std::int64_t sum(const MPI_Count counts[], MPI_Comm comm) noexcept {
  return sum_first(counts, group_size(comm));
}
std::int64_t sumn(const MPI_Count counts[], MPI_Comm comm) noexcept {
  return sum_first(counts, out_degree(comm));
}
std::int64_t own(const MPI_Count counts[], MPI_Comm comm) noexcept { return own_entry(counts, comm); }
std::int64_t sumw(const MPI_Count counts[], const MPI_Datatype types[], MPI_Comm comm) noexcept {
  return sum_typed(counts, types, group_size(comm));
}
std::int64_t sumnw(const MPI_Count counts[], const MPI_Datatype types[], MPI_Comm comm) noexcept {
  return sum_typed(counts, types, out_degree(comm));
}
bool inplace(const void* buf) noexcept { return buf == MPI_IN_PLACE; }
std::int64_t rcv(const MPI_Status* status, int count, MPI_Datatype type) noexcept {
  return received(status, count, type);
}
std::int64_t rcv(const MPI_Status* status, MPI_Count count, MPI_Datatype type) noexcept {
  return received(status, count, type);
}
}  // namespace cb

namespace fb {
bool ok(const void* ierror) noexcept { return ierror == nullptr || fint(ierror) == MPI_SUCCESS; }

const void* file_key(const void* fh) noexcept {
  if (fh == nullptr) return nullptr;
  const MPI_Fint h = fint(fh);
  if (h == 0) return nullptr;  // MPI_FILE_NULL in Fortran, in Open MPI and MPICH alike
  return reinterpret_cast<const void*>((std::uintptr_t{1} << 63) | static_cast<std::uint32_t>(h));
}
std::int64_t n(const void* count) noexcept { return nonneg(fint(count)); }
std::int64_t rank(const void* r) noexcept { return fint(r); }
std::int64_t t(const void* type) noexcept { return type_size(ftype(type)); }
std::int64_t np(const void* comm) noexcept { return group_size(fcomm(comm)); }
std::int64_t nout(const void* comm) noexcept { return out_degree(fcomm(comm)); }
std::int64_t sum(const void* counts, const void* comm) noexcept {
  std::int64_t s = 0;
  const int k = group_size(fcomm(comm));
  const auto* c = static_cast<const MPI_Fint*>(counts);
  for (int i = 0; c != nullptr && i < k; ++i) s += nonneg(c[i]);
  return s;
}
std::int64_t sumn(const void* counts, const void* comm) noexcept {
  std::int64_t s = 0;
  const int k = out_degree(fcomm(comm));
  const auto* c = static_cast<const MPI_Fint*>(counts);
  for (int i = 0; c != nullptr && i < k; ++i) s += nonneg(c[i]);
  return s;
}
std::int64_t own(const void* counts, const void* comm) noexcept {
  const int rank = own_rank(fcomm(comm));
  return counts != nullptr && rank >= 0 ? nonneg(static_cast<const MPI_Fint*>(counts)[rank]) : 0;
}
std::int64_t sumw(const void* counts, const void* types, const void* comm) noexcept {
  std::int64_t s = 0;
  const int k = group_size(fcomm(comm));
  const auto* c = static_cast<const MPI_Fint*>(counts);
  const auto* ty = static_cast<const MPI_Fint*>(types);
  for (int i = 0; c != nullptr && ty != nullptr && i < k; ++i)
    s += nonneg(c[i]) * type_size(ftype(&ty[i]));
  return s;
}
std::int64_t sumnw(const void* counts, const void* types, const void* comm) noexcept {
  std::int64_t s = 0;
  const int k = out_degree(fcomm(comm));
  const auto* c = static_cast<const MPI_Fint*>(counts);
  const auto* ty = static_cast<const MPI_Fint*>(types);
  for (int i = 0; c != nullptr && ty != nullptr && i < k; ++i)
    s += nonneg(c[i]) * type_size(ftype(&ty[i]));
  return s;
}
bool inplace(const void* buf) noexcept {
  if (buf == nullptr) return false;
  for (const void* p : pmpi::handles().fortran_in_place)
    if (p != nullptr && p == buf) return true;
  return false;
}
bool status_ignored(const void* status) noexcept {
  const auto& h = pmpi::handles();
  return status == nullptr || status == h.fortran_status_ignore || status == h.f08_status_ignore;
}
std::int64_t rcv(const void* status, const void* count, const void* type) noexcept {
  const std::int64_t posted = n(count) * t(type);
  const auto& h = pmpi::handles();
  if (!h.resolved || status_ignored(status)) return posted;
  MPI_Status c{};
  // Status_f2c also refuses the ignore sentinel (MPICH sets MPI_F_STATUS_IGNORE late).
  if (pmpi::Status_f2c.get()(static_cast<const MPI_Fint*>(status), &c) != MPI_SUCCESS)
    return posted;
  return received(&c, n(count), ftype(type));
}
}  // namespace fb

}  // namespace hpcsens::preload
