! Test program: Fortran non-blocking receives posted larger than the messages (compiled twice:
! `use mpi`, and with -DF08 `use mpi_f08`). Rank 0 sends ten 40-byte messages (10 integers);
! rank 1 posts 25 integers (100 bytes) for each and completes them through every Wait/Test
! form: Wait with a status and with MPI_STATUS_IGNORE, Waitall (MPI_STATUSES_IGNORE), Waitany,
! Waitsome, Test, Testall, Testany, Testsome. Then two blocking MPI_Recv of 25 for 40-byte
! messages, with a status and with MPI_STATUS_IGNORE, and two of 10 for the two starts of rank
! 0's persistent send (MPI_Send_init, MPI_Start twice, MPI_Request_free). Expected on rank 1:
! MPI_Irecv 10 calls, 400 bytes (posted: 1000); MPI_Recv 4 calls, 40 + 40 + 80 bytes (the
! preload hands MPI a status of its own for MPI_STATUS_IGNORE). Rank 0: partner rank 1, 14
! messages, 560 bytes; MPI_Send_init 80 bytes.
program prog_firecv
#ifdef F08
  use mpi_f08
  implicit none
  type(MPI_Request) :: req(2)
  type(MPI_Status) :: st, sts(2)
#else
  use mpi
  implicit none
  integer :: req(2), st(MPI_STATUS_SIZE), sts(MPI_STATUS_SIZE, 2)
#endif
  integer :: ierr, rank, i, idx, outc, inds(2), buf(25, 2)
  logical :: flag
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  buf = 0
  if (rank == 0) then
    do i = 1, 12
      call MPI_Send(buf, 10, MPI_INTEGER, 1, i, MPI_COMM_WORLD, ierr)
    end do
    call MPI_Send_init(buf, 10, MPI_INTEGER, 1, 13, MPI_COMM_WORLD, req(1), ierr)
    do i = 1, 2
      call MPI_Start(req(1), ierr)
      call MPI_Wait(req(1), st, ierr)
    end do
    call MPI_Request_free(req(1), ierr)
  else if (rank == 1) then
    call MPI_Irecv(buf, 25, MPI_INTEGER, 0, 1, MPI_COMM_WORLD, req(1), ierr)
    call MPI_Wait(req(1), st, ierr)
    call MPI_Irecv(buf, 25, MPI_INTEGER, 0, 2, MPI_COMM_WORLD, req(1), ierr)
    call MPI_Wait(req(1), MPI_STATUS_IGNORE, ierr)
    call MPI_Irecv(buf(1, 1), 25, MPI_INTEGER, 0, 3, MPI_COMM_WORLD, req(1), ierr)
    call MPI_Irecv(buf(1, 2), 25, MPI_INTEGER, 0, 4, MPI_COMM_WORLD, req(2), ierr)
    call MPI_Waitall(2, req, MPI_STATUSES_IGNORE, ierr)
    call MPI_Irecv(buf, 25, MPI_INTEGER, 0, 5, MPI_COMM_WORLD, req(1), ierr)
    call MPI_Waitany(1, req, idx, st, ierr)
    call MPI_Irecv(buf, 25, MPI_INTEGER, 0, 6, MPI_COMM_WORLD, req(1), ierr)
    outc = 0
    do while (outc == 0)
      call MPI_Waitsome(1, req, outc, inds, sts, ierr)
    end do
    call MPI_Irecv(buf, 25, MPI_INTEGER, 0, 7, MPI_COMM_WORLD, req(1), ierr)
    flag = .false.
    do while (.not. flag)
      call MPI_Test(req(1), flag, st, ierr)
    end do
    call MPI_Irecv(buf, 25, MPI_INTEGER, 0, 8, MPI_COMM_WORLD, req(1), ierr)
    flag = .false.
    do while (.not. flag)
      call MPI_Testall(1, req, flag, sts, ierr)
    end do
    call MPI_Irecv(buf, 25, MPI_INTEGER, 0, 9, MPI_COMM_WORLD, req(1), ierr)
    flag = .false.
    do while (.not. flag)
      call MPI_Testany(1, req, idx, flag, MPI_STATUS_IGNORE, ierr)
    end do
    call MPI_Irecv(buf, 25, MPI_INTEGER, 0, 10, MPI_COMM_WORLD, req(1), ierr)
    outc = 0
    do while (outc == 0)
      call MPI_Testsome(1, req, outc, inds, MPI_STATUSES_IGNORE, ierr)
    end do
    call MPI_Recv(buf, 25, MPI_INTEGER, 0, 11, MPI_COMM_WORLD, st, ierr)
    call MPI_Recv(buf, 25, MPI_INTEGER, 0, 12, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    do i = 1, 2
      call MPI_Recv(buf, 10, MPI_INTEGER, 0, 13, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    end do
  end if
  call MPI_Finalize(ierr)
end program prog_firecv
