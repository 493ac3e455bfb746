"""The network-delay knob's line in each generated wrapper (gen_wrappers.py; see net_delay.h).

A send (a call with a sent-to field) is delayed as one message of its bytes; so is a one-sided
access (Put, Get, Accumulate and their kin: one message to or from target_rank); a start of
persistent sends (MPI_Start, MPI_Startall) as each started send's message (persistent_sends.h);
a collective as the critical path of its usual algorithm, named by its shape (net_delay_model.h).
Calls that move no message when called (receives, waits, persistent '_init' calls) get no line.
"""
import re

# Collective name (MPI_ and a non-blocking 'I' stripped, lower case) -> NetShape.
SHAPES = {
    "barrier": "barrier",
    "bcast": "bcast", "reduce": "reduce", "allreduce": "allreduce", "scan": "tree", "exscan": "tree",
    "gather": "gather", "gatherv": "gather", "scatter": "gather", "scatterv": "gather",
    "allgather": "allgather", "allgatherv": "allgather",
    "reduce_scatter": "halving", "reduce_scatter_block": "halving",
    "alltoall": "alltoall", "alltoallv": "scattered", "alltoallw": "scattered",
}


class ShapeError(Exception):
    pass


def collective_shape(call):
    """NetShape of a coll/icoll call; None for a persistent '_init' call (nothing moves yet)."""
    base = call["name"][len("MPI_"):]
    if base.endswith("_c"):
        base = base[:-2]
    if base.endswith("_init"):
        return None
    if call["cat"] == "icoll":
        base = base[1:]
    base = base.lower()
    if base.startswith("neighbor_"):
        return "neighbor"
    if base not in SHAPES:
        raise ShapeError(f"{call['name']}: no network-delay shape (add it to gen_net_delay.py)")
    return SHAPES[base]


def started_sends(call, ns):
    """The delay call of MPI_Start / MPI_Startall (their bytes column: start1 / startn), or None."""
    m = re.fullmatch(r"(start1|startn)\(([^()]*)\)", call["bytes"])
    if not m:
        return None
    a = [x.strip() for x in m.group(2).split(",")]
    if ns == "fb":
        count = "nullptr" if m.group(1) == "start1" else a[0]
        return f"delay_starts_f(start, {count}, {a[-1]});"
    return f"delay_starts(start, {'1' if m.group(1) == 'start1' else a[0]}, {a[-1]});"


def net_delay_lines(call, ns, bytes_expr):
    """Lines after `start` is read: the delay, behind one branch that is false when off."""
    names = {p[1] for p in call["params"]}
    guard = "  if (g_net_delay_on) [[unlikely]] "
    starts = started_sends(call, ns)
    if starts:
        return [guard + starts]
    if call["cat"] == "rma" and "target_rank" in names:
        nbytes = bytes_expr(call, ns) if call["bytes"] != "-" else "0"
        return [guard + f"net_delay_send(start, {ns}::rank(target_rank), MPI_PROC_NULL, "
                f"static_cast<std::int64_t>({nbytes}));"]
    if call["to"]:
        dest, comm, expr = call["to"]
        nbytes = bytes_expr(call, ns, expr)
        return [guard + f"net_delay_send(start, {ns}::rank({dest}), MPI_PROC_NULL, "
                f"static_cast<std::int64_t>({nbytes}), "
                f"g_net_inter_only ? {ns}::world_rank({dest}, {comm}) : -1);"]
    if call["cat"] not in ("coll", "icoll") or "comm" not in names:
        return []
    shape = collective_shape(call)
    if shape is None:
        return []
    nbytes = bytes_expr(call, ns) if call["bytes"] != "-" else "0"
    return [guard + f"net_delay_coll(start, NetShape::{shape}, {ns}::np(comm), "
            f"static_cast<std::int64_t>({nbytes}), {ns}::off_node(comm));"]
