! Test program: Fortran with the mpi_f08 module. Same calls as prog_mpif.f90.
program prog_f08
  use mpi_f08
  implicit none
  integer :: rank, i, buf(10)
  double precision :: x, y
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  buf = 0
  do i = 1, 4
    if (rank == 0) call MPI_Send(buf, 10, MPI_INTEGER, 1, i, MPI_COMM_WORLD)
    if (rank == 1) call MPI_Recv(buf, 10, MPI_INTEGER, 0, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
  end do
  x = 1.0d0
  do i = 1, 3
    call MPI_Allreduce(x, y, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD)
  end do
  call MPI_Barrier(MPI_COMM_WORLD)
  call MPI_Finalize()
end program prog_f08
