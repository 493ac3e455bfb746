! Test program: Fortran with mpif.h. Rank 0 sends 4 messages of 10 integers to rank 1,
! then 3 allreduces of one double precision value.
program prog_mpif
  implicit none
  include 'mpif.h'
  integer :: ierr, rank, i, buf(10), status(MPI_STATUS_SIZE)
  double precision :: x, y
  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  buf = 0
  do i = 1, 4
    if (rank == 0) call MPI_SEND(buf, 10, MPI_INTEGER, 1, i, MPI_COMM_WORLD, ierr)
    if (rank == 1) call MPI_RECV(buf, 10, MPI_INTEGER, 0, i, MPI_COMM_WORLD, status, ierr)
  end do
  x = 1.0d0
  do i = 1, 3
    call MPI_ALLREDUCE(x, y, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  end do
  call MPI_BARRIER(MPI_COMM_WORLD, ierr)
  call MPI_FINALIZE(ierr)
end program prog_mpif
