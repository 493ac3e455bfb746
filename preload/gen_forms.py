"""Bytes-column forms that act around a call rather than count its bytes (gen_wrappers.py):
the Wait/Test family completing non-blocking receives (recv_completion.h) and persistent sends
(persistent_sends.h). Each function returns lines of C++ for a generated wrapper."""
import re

# Bytes-column forms of the Wait/Test family: the call counts no bytes itself but completes
# non-blocking receives, whose received size it adds to the receive call (recv_completion.h).
COMPLETIONS = {"done1", "test1", "doneall", "testall", "doneany", "testany", "donesome"}
# Persistent sends (persistent_sends.h): psend(request,dest,comm,count,type) on an init call
# remembers the message and counts nothing then; start1(request) / startn(count,requests) on
# MPI_Start / MPI_Startall attribute each started send; free1(request) on MPI_Request_free
# forgets it.
PERSISTENT = {"psend", "start1", "startn", "free1"}


def completion(call):
    """(form, [args]) when the bytes column is a Wait/Test completion form, else None."""
    m = re.fullmatch(r"(\w+)\(([^()]*)\)", call["bytes"])
    if m and m.group(1) in COMPLETIONS:
        return m.group(1), [a.strip() for a in m.group(2).split(",")]
    return None


def persistent(call):
    """(form, [args]) when the bytes column is a persistent-send form, else None."""
    m = re.fullmatch(r"(\w+)\(([^()]*)\)", call["bytes"])
    if m and m.group(1) in PERSISTENT:
        return m.group(1), [a.strip() for a in m.group(2).split(",")]
    return None


def persistent_lines(call, ns, ok, when):
    """Statements of a persistent-send form: 'before' the real call or 'after' it returned."""
    p = persistent(call)
    if not p:
        return []
    form, a = p
    f = "_f" if ns == "fb" else ""
    if when == "before":
        return [f"  forget_send{f}({a[0]});"] if form == "free1" else []
    if form == "psend":
        name = call["name"]
        return [f"  if ({ok}) remember_send{f}({a[0]}, call::{name}, hist::{name}, "
                f"{ns}::world_rank({a[1]}, {a[2]}), "
                f"static_cast<std::uint64_t>({ns}::n({a[3]}) * {ns}::t({a[4]})), "
                f"{ns}::rank({a[1]}) == MPI_PROC_NULL);"]
    if form == "start1":
        if ns == "fb":
            return [f"  if ({ok}) started_f(guard, nullptr, {a[0]});"]
        return [f"  if ({ok}) started(guard, 1, {a[0]});"]
    if form == "startn":
        return [f"  if ({ok}) started{f}(guard, {a[0]}, {a[1]});"]
    return []


def completion_before(form, a):
    lines = ["  Completion cpl;"]
    if form in ("done1", "test1"):
        lines.append(f"  cpl.before_one({a[0]}, {a[-1]});")
    else:
        lines.append(f"  cpl.before_many(guard, {a[0]}, {a[1]}, {a[-1]});")
    return lines


def completion_after(form, a):
    after = {
        "done1": lambda: f"cpl.after_one(guard, nullptr, {a[1]});",
        "test1": lambda: f"cpl.after_one(guard, {a[1]}, {a[2]});",
        "doneall": lambda: f"cpl.after_many(guard, {a[0]}, nullptr, {a[2]});",
        "testall": lambda: f"if (*{a[2]}) cpl.after_many(guard, {a[0]}, nullptr, {a[3]});",
        "doneany": lambda: f"if (*{a[2]} != MPI_UNDEFINED) cpl.after_any(guard, *{a[2]}, {a[3]});",
        "testany": lambda: (f"if (*{a[3]} && *{a[2]} != MPI_UNDEFINED) "
                            f"cpl.after_any(guard, *{a[2]}, {a[4]});"),
        "donesome": lambda: (f"if (*{a[2]} != MPI_UNDEFINED) "
                             f"cpl.after_many(guard, *{a[2]}, {a[3]}, {a[4]});"),
    }[form]()
    return [f"  if (rc == MPI_SUCCESS) {after}"]


def fortran_completion_before(form, a):
    lines = ["  FortranCompletion cpl;"]
    if form in ("done1", "test1"):
        lines.append(f"  cpl.before_one({a[0]}, {a[-1]});")
    else:
        lines.append(f"  cpl.before_many(guard, {a[0]}, {a[1]}, {a[-1]});")
    return lines


def fortran_completion_after(form, a):
    """Fortran arguments are pointers; the flag, count and index are read by FortranCompletion."""
    after = {
        "done1": lambda: f"after_one(guard, nullptr, {a[1]})",
        "test1": lambda: f"after_one(guard, {a[1]}, {a[2]})",
        "doneall": lambda: f"after_many(guard, nullptr, {a[0]}, nullptr, {a[2]})",
        "testall": lambda: f"after_many(guard, {a[2]}, {a[0]}, nullptr, {a[3]})",
        "doneany": lambda: f"after_any(guard, nullptr, {a[2]}, {a[3]})",
        "testany": lambda: f"after_any(guard, {a[3]}, {a[2]}, {a[4]})",
        "donesome": lambda: f"after_many(guard, nullptr, {a[2]}, {a[3]}, {a[4]})",
    }[form]()
    return [f"  if (fb::ok(ierror)) cpl.{after};"]
