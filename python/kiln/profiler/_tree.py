"""The profile tree: one node per scope and per kernel name inside it, each with its own (exclusive)
metrics, and its JSON form (the `<name>.hatchet` file; docs/python.md, "Profiler").
"""

# How a kernel node's "time (ns)" was measured (the node's frame "clock"; the table marks the last two).
CLOCK_GPU = "gpu"                        # CUDA events around the launch on its stream
CLOCK_INTERPRETER = "interpreter wall"   # the wall time of an interpreter run (kiln runs it on the CPU)
CLOCK_NONE = "untimed"                   # a GPU launch without torch.cuda events: counted, not timed

FORMAT_VERSION = 1


class Node:
    """A frame: a scope ("function", as Proton calls it) or a kernel; metrics are this node's own."""

    __slots__ = ("name", "kind", "clock", "metrics", "children")

    def __init__(self, name, kind="function"):
        self.name = name
        self.kind = kind
        self.clock = None  # kernels only: one of the CLOCK_* values (mixed clocks keep the weaker one)
        self.metrics = {}
        self.children = {}

    def child(self, name, kind="function"):
        key = (name, kind)
        node = self.children.get(key)
        if node is None:
            node = self.children[key] = Node(name, kind)
        return node

    def at(self, path):
        node = self
        for name in path:
            node = node.child(name)
        return node

    def add(self, metrics):
        for k, v in metrics.items():
            self.metrics[k] = self.metrics.get(k, 0) + v

    def set_clock(self, clock):
        # One node may see both clocks (a kernel run on the GPU and on the interpreter in one scope):
        # the label says the weaker one, so a wall-clock time is never presented as GPU time.
        order = (CLOCK_GPU, CLOCK_INTERPRETER, CLOCK_NONE)
        if self.clock is None or order.index(clock) > order.index(self.clock):
            self.clock = clock

    def to_json(self):
        frame = {"name": self.name, "type": self.kind}
        if self.clock is not None:
            frame["clock"] = self.clock
        return {"frame": frame, "metrics": dict(self.metrics),
                "children": [c.to_json() for c in self.children.values()]}


def from_json(d):
    """A Node from its JSON form (the first element of a .hatchet file written by kiln)."""
    frame = d["frame"]
    node = Node(frame["name"], frame.get("type", "function"))
    node.clock = frame.get("clock")
    node.metrics = dict(d.get("metrics", {}))
    for c in d.get("children", []):
        child = from_json(c)
        node.children[(child.name, child.kind)] = child
    return node


def document(root, session_name):
    """The JSON document of a profile: [tree, header], as Proton's tree files are laid out."""
    return [root.to_json(), {"kiln": {"format": FORMAT_VERSION, "session": session_name,
                                      "metrics": "exclusive: each node's own; a scope's totals are the sums "
                                                 "over its subtree",
                                      "clocks": {CLOCK_GPU: "CUDA events around each launch",
                                                 CLOCK_INTERPRETER: "wall time of the interpreter's run",
                                                 CLOCK_NONE: "GPU launch without torch: count only"}}}]
