! A Fortran MPI program (`use mpi`): ring exchange with point-to-point calls plus collectives.
! Open MPI's Fortran bindings call PMPI directly, so only Fortran interposition counts these.
!
! MPI calls per rank, exactly (NITER = 10):
!   MPI_Send       10  (one per ring step)
!   MPI_Recv       10  (one per ring step)
!   MPI_Bcast       2
!   MPI_Allreduce   3
!   MPI_Reduce      1
!   MPI_Barrier     1
! stdout (rank 0 only) is deterministic.
program ring_collectives
  use mpi
  implicit none
  integer, parameter :: niter = 10
  integer :: ierr, rank, nranks, right, left, i, token, incoming
  integer :: status(MPI_STATUS_SIZE)
  integer :: seed, scale, total, maxrank, minrank, ringsum, rank_sum

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  right = mod(rank + 1, nranks)
  left = mod(rank - 1 + nranks, nranks)

  ! Even ranks send first, odd ranks receive first: no deadlock for any number of ranks >= 2.
  token = rank
  ringsum = 0
  do i = 1, niter
    if (mod(rank, 2) == 0) then
      call MPI_Send(token, 1, MPI_INTEGER, right, i, MPI_COMM_WORLD, ierr)
      call MPI_Recv(incoming, 1, MPI_INTEGER, left, i, MPI_COMM_WORLD, status, ierr)
    else
      call MPI_Recv(incoming, 1, MPI_INTEGER, left, i, MPI_COMM_WORLD, status, ierr)
      call MPI_Send(token, 1, MPI_INTEGER, right, i, MPI_COMM_WORLD, ierr)
    end if
    token = incoming
    ringsum = ringsum + incoming
  end do

  seed = 0
  scale = 0
  if (rank == 0) then
    seed = 7
    scale = 3
  end if
  call MPI_Bcast(seed, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  call MPI_Bcast(scale, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  call MPI_Allreduce(rank * scale + seed, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call MPI_Allreduce(rank, maxrank, 1, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD, ierr)
  call MPI_Allreduce(rank, minrank, 1, MPI_INTEGER, MPI_MIN, MPI_COMM_WORLD, ierr)
  call MPI_Reduce(ringsum, rank_sum, 1, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    write (*, '(A,I0,A,I0,A,I0,A,I0,A,I0)') 'fortran: ranks=', nranks, ' total=', total, &
      ' max=', maxrank, ' min=', minrank, ' ringsum=', rank_sum
  end if
  call MPI_Finalize(ierr)
end program ring_collectives
