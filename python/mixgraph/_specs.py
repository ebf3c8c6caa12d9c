"""Where a stack:P1,P2,... spec reaches a call that needs one layer, the error names the Python calls that take
stacks (the library's message names the CLI's commands)."""


def stack_pointer(spec):
    """The UsageError message for Pattern('stack:...')."""
    return (f"pattern '{spec}': a stack of layers is not a single-layer pattern (mixgraph.Pattern); "
            "mixgraph.stack(spec, n) gives "
            "its profile, and mixgraph.distances, rank, congestion, gallery and compare take the spec string")


def install(pattern_class, is_stack, usage_error):
    """Pattern(spec, ...) with a stack spec raises usage_error(stack_pointer(spec)); other specs as before."""
    init = pattern_class.__init__

    def __init__(self, spec, *args, **kwargs):
        if is_stack(spec):
            raise usage_error(stack_pointer(spec.strip()))
        init(self, spec, *args, **kwargs)

    __init__.__doc__ = init.__doc__
    pattern_class.__init__ = __init__
