! Test program: Fortran MPI-IO per file (issue 20). Every rank opens "fmpiio.dat" (relative, from
! a blank-padded CHARACTER variable) on MPI_COMM_WORLD, writes 1000 bytes at rank x 1000, reads
! 500 of them back and closes it.
program prog_files
  use mpi
  implicit none
  integer :: ierr, rank, fh
  integer(kind=MPI_OFFSET_KIND) :: at
  character(len=32) :: name
  character(len=1) :: out(1000), back(500)
  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  name = 'fmpiio.dat'
  out = 'f'
  call MPI_FILE_OPEN(MPI_COMM_WORLD, name, MPI_MODE_CREATE + MPI_MODE_RDWR, MPI_INFO_NULL, fh, ierr)
  if (ierr /= MPI_SUCCESS) call MPI_ABORT(MPI_COMM_WORLD, 1, ierr)
  at = rank * 1000
  call MPI_FILE_WRITE_AT(fh, at, out, 1000, MPI_CHARACTER, MPI_STATUS_IGNORE, ierr)
  call MPI_FILE_READ_AT(fh, at, back, 500, MPI_CHARACTER, MPI_STATUS_IGNORE, ierr)
  call MPI_FILE_CLOSE(fh, ierr)
  call MPI_FINALIZE(ierr)
end program prog_files
