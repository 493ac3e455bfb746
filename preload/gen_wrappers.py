#!/usr/bin/env python3
"""Generates the interposition layer from mpi_calls.tbl (run by CMake at build time).

Outputs, all in OUT_DIR:
  call_table.h / call_table.cpp   call ids, names and categories (accounting and the record use them)
  wrappers_c.cpp                  one C wrapper per MPI call: time it, forward to PMPI_<name>
                                  (calls of an '@include FILE if COND' table under #if COND)
  wrappers_fortran.cpp            the same for each Fortran mangling, forwarding to the next
                                  definition of the same Fortran symbol (so Open MPI keeps doing all
                                  Fortran handle and status conversion itself)

Usage: gen_wrappers.py TABLE OUT_DIR
"""
import re
import sys
from pathlib import Path

CATEGORIES = ["p2p", "wait", "coll", "icoll", "comm", "rma", "rma_sync", "io_meta", "io_read",
              "io_write", "posix_meta", "posix_read", "posix_write", "stdio_meta", "stdio_read",
              "stdio_write", "other"]
# Calls of these categories with a bytes expression get a message-size histogram.
HIST_CATEGORIES = {"p2p", "coll", "icoll", "rma"}
HELPERS = ["n", "t", "np", "nout", "sum", "sumn", "own", "sumw", "sumnw", "inplace", "rcv", "pend"]
# The Wait/Test and persistent-send forms of the bytes column are in gen_forms.py.
from gen_forms import (COMPLETIONS, PERSISTENT, completion, completion_after, completion_before,
                       fortran_completion_after, fortran_completion_before, persistent,
                       persistent_lines)
from gen_net_delay import ShapeError, net_delay_lines
from gen_files import file_lines, fortran_file_lines


class TableError(Exception):
    pass


def parse_params(text, where):
    """'const void *buf, int count' -> [(c_decl, name, is_char_ptr)]."""
    params = []
    for raw in text.split(","):
        decl = " ".join(raw.split())
        m = re.search(r"([A-Za-z_]\w*)\s*(\[\s*\d*\s*\])*$", decl)
        if not m:
            raise TableError(f"{where}: cannot find the parameter name in '{decl}'")
        is_char = re.match(r"^(const\s+)?char\s*\*", decl) is not None
        params.append((decl, m.group(1), is_char))
    return params


def check_expr(expr, names, name, where, field):
    if expr == "-":
        return
    for fn, args in re.findall(r"\b(\w+)\(([^()]*)\)", expr):
        if fn not in HELPERS and fn not in COMPLETIONS and fn not in PERSISTENT:
            raise TableError(f"{where}: field {field}: unknown helper '{fn}'")
        for a in args.split(","):
            if a.strip() not in names:
                raise TableError(f"{where}: field {field}: '{a.strip()}' is not a parameter of {name}")


# '@include FILE if COND': FILE's calls are wrapped only where mpi.h satisfies COND (an MPI-4
# call in an MPI-3.1 mpi.h has no prototype to wrap). The call ids exist in every build.
INCLUDE = re.compile(r"@include\s+(\S+)\s+if\s+(MPI_VERSION\s*>=\s*\d+)$")


def table_lines(path, cond=None):
    """(where, line, cond) of every call line of the table and the files it includes."""
    for lineno, line in enumerate(Path(path).read_text().splitlines(), 1):
        where = f"{path}:{lineno}"
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if line.startswith("@"):
            m = INCLUDE.fullmatch(line.strip())
            if not m or cond is not None:
                raise TableError(f"{where}: field directive: expected '@include FILE if "
                                 f"MPI_VERSION >= N' (not nested), found '{line.strip()}'")
            yield from table_lines(Path(path).parent / m.group(1), m.group(2))
            continue
        yield where, line, cond


def parse_table(path):
    calls = []
    seen = set()
    for where, line, cond in table_lines(path):
        fields = [f.strip() for f in line.split("|")]
        if len(fields) not in (5, 6):
            raise TableError(f"{where}: expected 5 or 6 '|'-separated fields, found {len(fields)}")
        name, cat, nbytes, cparams, fortran = fields[:5]
        sent_to = fields[5] if len(fields) == 6 else "-"
        if cat not in CATEGORIES:
            raise TableError(f"{where}: field category: unknown category '{cat}'")
        if name in seen:
            raise TableError(f"{where}: field name: '{name}' listed twice")
        seen.add(name)
        if cond and fortran != "-":
            raise TableError(f"{where}: field Fortran: a conditional call has no Fortran wrapper")
        received = "-"
        if ";" in nbytes:  # 'SENT ; RECEIVED': a call that sends and receives (MPI_Sendrecv)
            nbytes, received = (x.strip() for x in nbytes.split(";", 1))
        call = {"name": name, "cat": cat, "bytes": nbytes, "fortran": fortran, "params": None,
                "to": None, "cond": cond, "received": received}
        if cparams != "-":
            call["params"] = parse_params(cparams, where)
            names = {p[1] for p in call["params"]}
            check_expr(nbytes, names, name, where, "bytes")
            check_expr(received, names, name, where, "bytes")
            if sent_to != "-":
                parts = [x.strip() for x in sent_to.split(",", 2)]
                if len(parts) != 3 or parts[0] not in names or parts[1] not in names:
                    raise TableError(f"{where}: field sent-to: expected 'DEST,COMM,BYTES' over "
                                     f"parameters of {name}, found '{sent_to}'")
                check_expr(parts[2], names, name, where, "sent-to")
                call["to"] = parts
        elif sent_to != "-":
            raise TableError(f"{where}: field sent-to: needs C parameters")
        if fortran not in ("=", "-"):
            raise TableError(f"{where}: field Fortran: expected '=' or '-', found '{fortran}'")
        if fortran == "=" and call["params"] is None:
            raise TableError(f"{where}: field Fortran: a Fortran wrapper needs C parameters")
        calls.append(call)
    if not calls:
        raise TableError(f"{path}: no calls")
    hist = 0
    for c in calls:
        c["hist"] = None
        if c["bytes"] != "-" and c["cat"] in HIST_CATEGORIES and c["params"] is not None:
            c["hist"] = hist
            hist += 1
    return calls


def bytes_expr(call, ns, expr=None):
    expr = call["bytes"] if expr is None else expr
    if expr == "-" or (expr == call["bytes"] and (completion(call) or persistent(call))):
        return "0"
    m = re.fullmatch(r"pend\((\w+),(\w+),(\w+)\)", expr.replace(" ", ""))
    if m:
        req, count, dtype = m.groups()
        posted = f"{ns}::n({count}) * {ns}::t({dtype})"
        remember = "remember_recv_f" if ns == "fb" else "remember_recv"
        return (f"{remember}({req}, static_cast<std::uint64_t>({posted}), "
                f"call::{call['name']}, hist::{call['name']})")
    expr = re.sub(r"\b(" + "|".join(HELPERS) + r")\(", ns + r"::\1(", expr)
    return f"static_cast<std::uint64_t>({expr})"


def record_lines(c, ns, ok, site):
    """The accounting after the real call returned: counts, bytes, histogram, partner, timeline
    and call site (`site`: the expression of the caller's return address)."""
    name = c["name"]
    lines = [f"  const std::uint64_t nbytes = {ok} ? {bytes_expr(c, ns)} : 0;"]
    # A remembered receive gets its histogram entry at completion, a persistent send at each
    # start: not now.
    if c["hist"] is not None and not c["bytes"].startswith(("pend(", "psend(")):
        lines.append(f"  guard.record_msg(call::{name}, hist::{name}, elapsed, nbytes);")
    else:
        lines.append(f"  guard.record(call::{name}, elapsed, nbytes);")
    lines.append(f"  timeline_call(call::{name}, start, elapsed);")
    lines.append(f"  callsite_call(call::{name}, {site}, elapsed, nbytes);")
    if c["received"] != "-":
        lines.append(f"  if ({ok}) guard.add_received(call::{name}, "
                     f"{bytes_expr(c, ns, c['received'])});")
    if c["to"]:
        dest, comm, expr = c["to"]
        lines.append(f"  if ({ok}) guard.partner({ns}::world_rank({dest}, {comm}), "
                     f"{bytes_expr(c, ns, expr)});")
    return lines + persistent_lines(c, ns, ok, "after")


def received_status(call):
    """Status parameters the bytes expression reads the received size from (rcv(status,...))."""
    exprs = call["bytes"] + " " + call.get("received", "-")
    return sorted({args.split(",")[0].strip()
                   for fn, args in re.findall(r"\b(\w+)\(([^()]*)\)", exprs)
                   if fn == "rcv"})


def fortran_manglings(name):
    lower = name.lower()
    return [lower, lower + "_", lower + "__", name.upper(), lower + "_f08_"]


HEADER = "// Generated by preload/gen_wrappers.py from preload/mpi_calls.tbl. Do not edit.\n"


def min_version(call):
    return int(call["cond"].split(">=")[1]) if call["cond"] else 0


def gen_call_table(calls):
    h = [HEADER, "#pragma once", "#include <cstdint>", "",
         "namespace hpcsens::preload {", "",
         "enum class Category : std::uint8_t { " + ", ".join(CATEGORIES) + " };", "",
         "struct CallInfo {", "  const char* name;", "  Category category;",
         "  bool fortran;  // Fortran wrappers in every mangling",
         "  // Wrapped only where mpi.h has MPI_VERSION >= this ('@include FILE if ...'), else 0.",
         "  std::uint8_t min_mpi_version;", "};", "",
         f"inline constexpr int kNumCalls = {len(calls)};",
         f"inline constexpr int kNumHistCalls = {sum(1 for c in calls if c['hist'] is not None)};",
         "// Call id of each histogram (message-size statistics), in histogram order.",
         "extern const std::uint16_t kHistCalls[kNumHistCalls];",
         "extern const CallInfo kCalls[kNumCalls];", "",
         "namespace call {", "enum : std::uint16_t {"]
    h += [f"  {c['name']} = {i}," for i, c in enumerate(calls)]
    h += ["};", "}  // namespace call", "", "namespace hist {", "enum : std::uint16_t {"]
    h += [f"  {c['name']} = {c['hist']}," for c in calls if c["hist"] is not None]
    h += ["};", "}  // namespace hist", "", "}  // namespace hpcsens::preload", ""]
    cpp = [HEADER, '#include "call_table.h"', "", "namespace hpcsens::preload {", "",
           "const CallInfo kCalls[kNumCalls] = {"]
    cpp += [f'    {{"{c["name"]}", Category::{c["cat"]}, '
            f'{"true" if c["fortran"] == "=" else "false"}, {min_version(c)}}},' for c in calls]
    cpp += ["};", "", "const std::uint16_t kHistCalls[kNumHistCalls] = {"]
    cpp += [f"    call::{c['name']}," for c in calls if c["hist"] is not None]
    cpp += ["};", "", "}  // namespace hpcsens::preload", ""]
    return "\n".join(h), "\n".join(cpp)


def gen_c_wrappers(calls):
    out = [HEADER, '#include "preload/interpose/wrapper_support.h"', "",
           "using namespace hpcsens::preload;", ""]
    for c in calls:
        if c["params"] is None:
            continue
        name = c["name"]
        decl = ", ".join(p[0] for p in c["params"])
        args = ", ".join(p[1] for p in c["params"])
        # Both the MPI_ and the PMPI_ name, each forwarding to the next definition of its own
        # name: another PMPI tool preloaded before or after us then sees its calls too (the
        # nested call is not counted twice: the guard's depth).
        if c["cond"]:
            out.append(f"#if {c['cond']}")
        for sym in (name, "P" + name):
            out += [
                f'extern "C" HPCSENS_EXPORT int {sym}({decl}) {{',
                f'  static constinit RealSymbol<decltype(&P{name})> real{{"{sym}", true}};',
                "  Guard guard;",
                f"  if (!guard.counting()) return real.get()({args});"]
            for st in received_status(c):
                # The received size is in the status: give MPI one of ours when the caller
                # ignores it.
                out += [f"  MPI_Status own_{st};",
                        f"  if ({st} == MPI_STATUS_IGNORE) {st} = &own_{st};"]
            cpl = completion(c)
            if cpl:
                out += completion_before(*cpl)
            out += persistent_lines(c, "cb", None, "before")
            out += file_lines(c, "before")
            out += ["  const std::uint64_t start = now_ticks();"]
            out += net_delay_lines(c, "cb", bytes_expr)
            out += [
                f"  const int rc = real.get()({args});",
                "  const std::uint64_t elapsed = now_ticks() - start;"]
            out += record_lines(c, "cb", "rc == MPI_SUCCESS", "__builtin_return_address(0)")
            out += file_lines(c, "after")
            if cpl:
                out += completion_after(*cpl)
            out += ["  return rc;", "}", ""]
        if c["cond"]:
            out.append(f"#endif  // {c['cond']}")
    return "\n".join(out)


def gen_fortran_wrappers(calls):
    out = [HEADER, '#include "preload/interpose/wrapper_support.h"', "",
           "using namespace hpcsens::preload;", "", "namespace {", ""]
    exported = []
    for c in calls:
        if c["params"] is None or c["fortran"] != "=":
            continue
        name = c["name"]
        names = [p[1] for p in c["params"]] + ["ierror"]
        lens = [p[1] + "_len" for p in c["params"] if p[2]]
        sig = ", ".join([f"void* {n}" for n in names] + [f"std::size_t {n}" for n in lens])
        args = ", ".join(names + lens)
        ftype = f"F_{name}"
        fn_types = ", ".join(["void*"] * len(names) + ["std::size_t"] * len(lens))
        out += [
            f"using {ftype} = void (*)({fn_types});",
            # `site`: the user's return address, taken in the exported symbol it called.
            f"void fortran_{name}({ftype} real, const void* site, {sig}) {{",
            "  Guard guard;",
            f"  if (!guard.counting()) return real({args});"]
        for st in received_status(c):
            # As in C: MPI fills a status of ours where the caller ignores it.
            out += [f"  MPI_Fint own_{st}[kFortranStatusInts];",
                    f"  if (fb::status_ignored({st})) {st} = own_{st};"]
        cpl = completion(c)
        if cpl:
            out += fortran_completion_before(*cpl)
        out += persistent_lines(c, "fb", None, "before")
        out += fortran_file_lines(c, "before")
        out += ["  const std::uint64_t start = now_ticks();"]
        out += net_delay_lines(c, "fb", bytes_expr)
        out += [
            f"  real({args});",
            "  const std::uint64_t elapsed = now_ticks() - start;"]
        out += record_lines(c, "fb", "fb::ok(ierror)", "site")
        out += fortran_file_lines(c, "after")
        if cpl:
            out += fortran_completion_after(*cpl)
        out += ["}", ""]
        for sym in fortran_manglings(name):
            exported.append(
                f'extern "C" HPCSENS_EXPORT void {sym}({sig}) {{\n'
                f'  static constinit RealSymbol<{ftype}> real{{"{sym}", true}};\n'
                f"  fortran_{name}(real.get(), __builtin_return_address(0), {args});\n"
                "}\n")
    out += ["}  // namespace", ""] + exported
    return "\n".join(out)


def main(argv):
    if len(argv) != 3:
        print("usage: gen_wrappers.py TABLE OUT_DIR", file=sys.stderr)
        return 2
    try:
        calls = parse_table(argv[1])
    except TableError as e:
        print(f"gen_wrappers.py: {e}", file=sys.stderr)
        return 2
    try:
        return write_outputs(calls, Path(argv[2]))
    except ShapeError as e:
        print(f"gen_wrappers.py: {argv[1]}: {e}", file=sys.stderr)
        return 2


def write_outputs(calls, out):
    out.mkdir(parents=True, exist_ok=True)
    h, cpp = gen_call_table(calls)
    files = {"call_table.h": h, "call_table.cpp": cpp, "wrappers_c.cpp": gen_c_wrappers(calls),
             "wrappers_fortran.cpp": gen_fortran_wrappers(calls)}
    for fname, text in files.items():
        path = out / fname
        # Unchanged outputs keep their timestamps, so a table edit rebuilds only what changed.
        if not path.exists() or path.read_text() != text:
            path.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
