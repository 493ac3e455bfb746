! Known call sites in Fortran (`use mpi`; the test finds each "site:" marker's line):
! MPI_Barrier 3 times from one line, MPI_Allreduce once from subroutine reduce_once, and 5
! messages from one MPI_Send line (rank 0) to one MPI_Recv line (rank 1).
module callsite_sub
  use mpi
  implicit none
contains
  subroutine reduce_once(v, total)
    integer, intent(in) :: v
    integer, intent(out) :: total
    integer :: ierr
    call MPI_Allreduce(v, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr) ! site:allreduce
  end subroutine reduce_once
end module callsite_sub

program callsites
  use mpi
  use callsite_sub
  implicit none
  integer :: ierr, rank, i, v, total
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  do i = 1, 3
    call MPI_Barrier(MPI_COMM_WORLD, ierr) ! site:barrier
  end do
  do i = 1, 5
    if (rank == 0) then
      call MPI_Send(i, 1, MPI_INTEGER, 1, 7, MPI_COMM_WORLD, ierr) ! site:send
    else if (rank == 1) then
      call MPI_Recv(v, 1, MPI_INTEGER, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr) ! site:recv
    end if
  end do
  call reduce_once(rank, total)
  call MPI_Finalize(ierr)
end program callsites
