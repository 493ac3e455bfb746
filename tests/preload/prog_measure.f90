! Fortran I/O and phases under the preload (run on 2 ranks): per rank a formatted file of 18
! bytes ('hello world' line + an I5 line) and an unformatted sequential record of 100 doubles
! (800 bytes + two 4-byte record markers) = 826 bytes, written through libgfortran's POSIX
! calls (counted once, as POSIX; nothing as stdio); MPI_PCONTROL(1)/(0) and a named region
! "fortran-io" around the writes.
program prog_measure
  use mpi
  implicit none
  integer :: ierr, rank
  double precision :: x(100)
  character(len=4096) :: dir
  character(len=4200) :: fname
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call get_command_argument(1, dir)
  x = 1.5d0
  call MPI_Pcontrol(1)
  call hpcsens_region_begin('fortran-io')
  write(fname, '(A,A,I0)') trim(dir), '/formatted.', rank
  open(unit=10, file=trim(fname), form='formatted', status='replace')
  write(10, '(A)') 'hello world'
  write(10, '(I5)') 42
  close(10)
  write(fname, '(A,A,I0)') trim(dir), '/unformatted.', rank
  open(unit=11, file=trim(fname), form='unformatted', access='sequential', status='replace')
  write(11) x
  close(11)
  call hpcsens_region_end('fortran-io')
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call MPI_Pcontrol(0)
  call MPI_Finalize(ierr)
end program prog_measure
