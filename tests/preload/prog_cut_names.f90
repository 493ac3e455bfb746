! Fortran region names cut at the 63-byte limit inside a UTF-8 character (issue 22): 62 a's then
! "é" (bytes C3 A9) and 62 a's then "€" (E2 82 AC) become one region of the 62 a's, count 2.
program prog_cut_names
  use mpi
  implicit none
  integer :: ierr
  character(len=64) :: e_acute
  character(len=65) :: euro
  call MPI_Init(ierr)
  e_acute = repeat('a', 62) // achar(195) // achar(169)
  euro = repeat('a', 62) // achar(226) // achar(130) // achar(172)
  call hpcsens_region_begin(e_acute)
  call hpcsens_region_end(e_acute)
  call hpcsens_region_begin(euro)
  call hpcsens_region_end(euro)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call MPI_Finalize(ierr)
end program prog_cut_names
