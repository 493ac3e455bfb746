"""The per-file lines of the generated MPI-IO wrappers (file_table.h): which file a call's
handle is, and counting the call on it. A Fortran handle is an integer (MPI_Fint), keyed apart
from C handles (fb::file_key); Open MPI's Fortran layer calls the C PMPI_File_* functions inside
our Fortran wrapper, where they are not counted again, so the Fortran wrapper counts per file."""
import re

OPS = {"io_read": "FileOp::read", "io_write": "FileOp::write", "io_meta": "FileOp::meta"}


def file_param(call):
    """(name, is_pointer) of the call's MPI_File parameter, or None."""
    for decl, name, _ in call["params"] or []:
        m = re.fullmatch(r"MPI_File\s*(\*?)\s*\w+", decl)
        if m:
            return name, m.group(1) == "*"
    return None


def _lines(call, when, opened, handle):
    """The lines of either language: `opened(name)` is the open's line after the call, `handle(name,
    pointer)` the expression of the call's file handle as the table's key."""
    if call["cat"] not in OPS:
        return []
    fp = file_param(call)
    if fp is None:
        return []
    name, pointer = fp
    if call["name"].startswith("MPI_File_open"):
        return [opened(name)] if when == "after" else []
    if when == "before":
        return [f"  const void* const file_handle_ = {handle(name, pointer)};",
                "  const FileRef file_ref_ = mpiio_ref(file_handle_);"]
    op = "FileOp::sync" if call["name"] == "MPI_File_sync" else OPS[call["cat"]]  # with fsync and fflush
    lines = [f"  file_count(file_ref_, {op}, kNoOffset, start, elapsed, nbytes);"]
    if call["name"] == "MPI_File_close":
        lines.append("  mpiio_forget(file_handle_);")
    return lines


def file_lines(call, when):
    """C lines before the real call ('before') or after the accounting ('after')."""
    return _lines(call, when,
                  lambda name: f"  if (rc == MPI_SUCCESS && {name} != nullptr) mpiio_opened(*{name}, filename, start, elapsed);",
                  lambda name, pointer: f"{name} != nullptr ? *{name} : nullptr" if pointer else name)


def fortran_file_lines(call, when):
    """The same for a Fortran wrapper (every argument a pointer; the name has a hidden length)."""
    return _lines(call, when,
                  lambda name: f"  if (fb::ok(ierror)) mpiio_opened_fortran(fb::file_key({name}), "
                               "static_cast<const char*>(filename), filename_len, start, elapsed);",
                  lambda name, pointer: f"fb::file_key({name})")
