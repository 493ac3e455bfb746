! Test program: Fortran `use mpi` receives that post more than is sent. Rank 0 sends 10 integers
! twice to rank 1, which posts 25 each time: once with a status (40 bytes arrive, as the status
! says), once with MPI_STATUS_IGNORE (the preload hands MPI a status of its own: 40 again).
program prog_frecv
  use mpi
  implicit none
  integer :: ierr, rank, buf(25), status(MPI_STATUS_SIZE)
  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  buf = 0
  if (rank == 0) then
    call MPI_SEND(buf, 10, MPI_INTEGER, 1, 1, MPI_COMM_WORLD, ierr)
    call MPI_SEND(buf, 10, MPI_INTEGER, 1, 2, MPI_COMM_WORLD, ierr)
  else if (rank == 1) then
    call MPI_RECV(buf, 25, MPI_INTEGER, 0, 1, MPI_COMM_WORLD, status, ierr)
    call MPI_RECV(buf, 25, MPI_INTEGER, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  end if
  call MPI_FINALIZE(ierr)
end program prog_frecv
