#pragma once
// The measured span of an MPI job, as in McCalpin's method (design.md):
//   after the real MPI_Init:   t0; barrier; t1; start counters; start counting calls
//   before the real MPI_Finalize: stop counters; t2; stop counting; barrier; t3;
//                                 gather rank records; rank 0 writes the run record
// A rank that never reaches MPI_Finalize (MPI_Abort, exit) leaves a partial per-rank record.
// Every function is idempotent and safe to call from the C and the Fortran entry points.
namespace hpcsens::preload {

void after_init() noexcept;
void before_finalize() noexcept;
void before_abort() noexcept;

}  // namespace hpcsens::preload
