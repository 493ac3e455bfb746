! MPICH `use mpi_f08` test program for mpich_test.cpp. With 2 ranks every rank makes exactly:
!   MPI_Allreduce x1 (in place, 4 integers = 16 bytes), MPI_Bcast x2 (16 bytes each), MPI_Barrier x1.
! MPICH's mpi_f08 procedures call the C MPI_ functions, so the C wrappers count them.
program mpich_prog_f08
  use mpi_f08
  implicit none
  integer :: rank, b(4)
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  b = rank
  call MPI_Allreduce(MPI_IN_PLACE, b, 4, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  call MPI_Bcast(b, 4, MPI_INTEGER, 0, MPI_COMM_WORLD)
  call MPI_Bcast(b, 4, MPI_INTEGER, 0, MPI_COMM_WORLD)
  call MPI_Barrier(MPI_COMM_WORLD)
  if (rank == 0) print '(a,i0)', 'mpich Fortran 2008: sum=', sum(b)
  call MPI_Finalize()
end program mpich_prog_f08
