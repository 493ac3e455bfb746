! MPICH Fortran (`use mpi`) test program for mpich_test.cpp. With 2 ranks every rank makes exactly:
!   MPI_Send x3 and MPI_Recv x3 (5 integers = 20 bytes each), MPI_Allreduce x2, MPI_Gather x1
!   (the root gathers in place, so both ranks contribute one integer: 4 bytes), MPI_Barrier x1.
! Rank 0 prints one deterministic line.
program mpich_prog
  use mpi
  implicit none
  integer :: ierr, rank, nranks, partner, k, total
  integer :: buf(5), status(MPI_STATUS_SIZE), gathered(2)
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  partner = ieor(rank, 1)
  buf = rank
  do k = 1, 3
    if (rank == 0) then
      call MPI_Send(buf, 5, MPI_INTEGER, partner, k, MPI_COMM_WORLD, ierr)
      call MPI_Recv(buf, 5, MPI_INTEGER, partner, k, MPI_COMM_WORLD, status, ierr)
    else
      call MPI_Recv(buf, 5, MPI_INTEGER, partner, k, MPI_COMM_WORLD, status, ierr)
      call MPI_Send(buf, 5, MPI_INTEGER, partner, k, MPI_COMM_WORLD, ierr)
    end if
  end do
  call MPI_Allreduce(rank, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call MPI_Allreduce(MPI_IN_PLACE, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  gathered = -1
  gathered(rank + 1) = rank
  if (rank == 0) then
    call MPI_Gather(MPI_IN_PLACE, 0, MPI_INTEGER, gathered, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  else
    call MPI_Gather(gathered(rank + 1), 1, MPI_INTEGER, gathered, 1, MPI_INTEGER, 0, &
                    MPI_COMM_WORLD, ierr)
  end if
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a,i0,a,i0,a,i0)', 'mpich Fortran: ranks=', nranks, ' total=', total, &
                        ' gathered=', sum(gathered)
  call MPI_Finalize(ierr)
end program mpich_prog
