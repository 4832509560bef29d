"""Host-side objects of the kernel language: constexpr, dtypes, and builtin stubs (see __init__.py)."""
import builtins
import operator

# int1 counts as unsigned, as in Triton (tl.int1.is_int_unsigned()).
_SIGNED = {"int8": 8, "int16": 16, "int32": 32, "int64": 64}
_UNSIGNED = {"int1": 1, "uint8": 8, "uint16": 16, "uint32": 32, "uint64": 64}
_FLOATS = {"fp8e4nv": (8, 3, 7), "fp8e5": (8, 2, 15), "fp8e4b15": (8, 3, 15), "fp8e4b8": (8, 3, 8),
           "fp8e5b16": (8, 2, 16), "fp16": (16, 10, 15), "bf16": (16, 7, 127), "fp32": (32, 23, 127),
           "fp64": (64, 52, 1023)}
_PYTHON_NAMES = {"int1": "int1", "fp8e4nv": "float8e4nv", "fp8e5": "float8e5", "fp16": "float16", "bf16": "bfloat16",
                 "fp32": "float32", "fp64": "float64", "fp8e4b15": "float8e4b15", "fp8e4b8": "float8e4b8",
                 "fp8e5b16": "float8e5b16"}


class dtype:
    """An element type: tl.float16.name == "fp16", tl.int32.primitive_bitwidth == 32."""

    # The names dtype() takes, grouped as Triton 3.6 groups them (its tests parametrize over these).
    SINT_TYPES = list(_SIGNED)
    UINT_TYPES = list(_UNSIGNED)
    FP_TYPES = ["fp8e4b15", "fp8e4nv", "fp8e4b8", "fp8e5", "fp8e5b16", "fp16", "bf16", "fp32", "fp64"]
    STANDARD_FP_TYPES = ["fp16", "bf16", "fp32", "fp64"]
    OTHER_TYPES = ["void"]

    def __init__(self, name):
        self.name = name
        if name in _SIGNED:
            self.int_signedness, self.int_bitwidth = "signed", _SIGNED[name]
            self.primitive_bitwidth = self.int_bitwidth
        elif name in _UNSIGNED:
            self.int_signedness, self.int_bitwidth = "unsigned", _UNSIGNED[name]
            self.primitive_bitwidth = self.int_bitwidth
        elif name in _FLOATS:
            self.primitive_bitwidth, self.fp_mantissa_width, self.exponent_bias = _FLOATS[name]
        elif name != "void":
            raise ValueError(f"unknown dtype '{name}'")

    def is_fp8(self): return self.name.startswith("fp8")
    def is_fp8e4nv(self): return self.name == "fp8e4nv"
    def is_fp8e5(self): return self.name == "fp8e5"
    def is_fp16(self): return self.name == "fp16"
    def is_bf16(self): return self.name == "bf16"
    def is_fp32(self): return self.name == "fp32"
    def is_fp64(self): return self.name == "fp64"
    def is_int1(self): return self.name == "int1"
    def is_int8(self): return self.name == "int8"
    def is_int16(self): return self.name == "int16"
    def is_int32(self): return self.name == "int32"
    def is_int64(self): return self.name == "int64"
    def is_uint8(self): return self.name == "uint8"
    def is_uint16(self): return self.name == "uint16"
    def is_uint32(self): return self.name == "uint32"
    def is_uint64(self): return self.name == "uint64"
    def is_floating(self): return self.name in _FLOATS
    def is_standard_floating(self): return self.name in ("fp16", "bf16", "fp32", "fp64")
    def is_int_signed(self): return self.name in _SIGNED
    def is_int_unsigned(self): return self.name in _UNSIGNED
    def is_int(self): return self.is_int_signed() or self.is_int_unsigned()
    def is_bool(self): return self.name == "int1"
    def is_ptr(self): return False
    def is_block(self): return False

    @property
    def scalar(self):
        return self

    def __eq__(self, other):
        return isinstance(other, dtype) and type(other) is type(self) and other.name == self.name

    def __hash__(self):
        return hash((type(self).__name__, self.name))

    def __str__(self):
        return self.name

    def __repr__(self):
        return f"triton.language.{_PYTHON_NAMES.get(self.name, self.name)}"


class pointer_type(dtype):
    """tl.pointer_type(tl.float32): a global-memory pointer."""

    def __init__(self, element_ty, address_space=1, const=False):
        self.element_ty = element_ty
        self.address_space = address_space
        self.const = const
        self.name = f"pointer<{element_ty}>"
        self.primitive_bitwidth = 64

    def is_ptr(self):
        return True

    def __eq__(self, other):
        return isinstance(other, pointer_type) and other.element_ty == self.element_ty

    def __hash__(self):
        return hash(("pointer_type", self.element_ty))


class block_type(dtype):
    def __init__(self, element_ty, shape):
        self.element_ty = element_ty
        self.shape = tuple(shape)
        self.name = f"<{self.shape}, {element_ty}>"

    def is_block(self):
        return True

    @property
    def scalar(self):
        return self.element_ty


int1, int8, int16, int32, int64 = (dtype(n) for n in ("int1", "int8", "int16", "int32", "int64"))
uint8, uint16, uint32, uint64 = (dtype(n) for n in ("uint8", "uint16", "uint32", "uint64"))
float8e4nv, float8e5 = dtype("fp8e4nv"), dtype("fp8e5")
float16, bfloat16, float32, float64 = dtype("fp16"), dtype("bf16"), dtype("fp32"), dtype("fp64")
pi32_t = pointer_type(int32)


def _binary(op, reflected=False):
    def f(self, other):
        a, b = self.value, getattr(other, "value", other) if isinstance(other, constexpr) else other
        return constexpr(op(b, a) if reflected else op(a, b))
    return f


class constexpr:
    """A compile-time value. As an annotation (x: tl.constexpr) it makes a parameter part of the
    specialization; as a module constant (BLOCK = tl.constexpr(128)) it behaves like its value."""

    def __init__(self, value):
        self.value = value.value if isinstance(value, constexpr) else value

    def __repr__(self):
        return f"constexpr[{self.value!r}]"

    def __index__(self): return operator.index(self.value)
    def __int__(self): return int(self.value)
    def __float__(self): return float(self.value)
    def __bool__(self): return bool(self.value)
    def __hash__(self): return hash(self.value)
    def __eq__(self, other): return self.value == getattr(other, "value", other)
    def __ne__(self, other): return self.value != getattr(other, "value", other)
    def __lt__(self, other): return self.value < getattr(other, "value", other)
    def __le__(self, other): return self.value <= getattr(other, "value", other)
    def __gt__(self, other): return self.value > getattr(other, "value", other)
    def __ge__(self, other): return self.value >= getattr(other, "value", other)
    def __neg__(self): return constexpr(-self.value)
    def __pos__(self): return constexpr(+self.value)
    def __invert__(self): return constexpr(~self.value)
    def __call__(self, *args, **kwargs): return self.value(*args, **kwargs)
    def __getitem__(self, i): return self.value[i]
    def __len__(self): return len(self.value)
    def __iter__(self): return iter(self.value)

    __add__, __radd__ = _binary(operator.add), _binary(operator.add, True)
    __sub__, __rsub__ = _binary(operator.sub), _binary(operator.sub, True)
    __mul__, __rmul__ = _binary(operator.mul), _binary(operator.mul, True)
    __truediv__, __rtruediv__ = _binary(operator.truediv), _binary(operator.truediv, True)
    __floordiv__, __rfloordiv__ = _binary(operator.floordiv), _binary(operator.floordiv, True)
    __mod__, __rmod__ = _binary(operator.mod), _binary(operator.mod, True)
    __pow__, __rpow__ = _binary(operator.pow), _binary(operator.pow, True)
    __and__, __rand__ = _binary(operator.and_), _binary(operator.and_, True)
    __or__, __ror__ = _binary(operator.or_), _binary(operator.or_, True)
    __xor__, __rxor__ = _binary(operator.xor), _binary(operator.xor, True)
    __lshift__, __rlshift__ = _binary(operator.lshift), _binary(operator.lshift, True)
    __rshift__, __rrshift__ = _binary(operator.rshift), _binary(operator.rshift, True)


class tensor:
    """The type of tile values inside kernels (for annotations; kernels are compiled, not run, in Python)."""

    def __init__(self, *args, **kwargs):
        raise TypeError("tl.tensor values exist only inside @jit kernels")


class PropagateNan:
    NONE = 0
    ALL = 0xFFFF


class range:
    """tl.range(start, end, step, num_stages=..., loop_unroll_factor=...): a kernel loop. On the host it
    iterates like Python's range, so the same code can be read and stepped through."""

    def __init__(self, arg1, arg2=None, step=None, num_stages=None, loop_unroll_factor=None, disallow_acc_multi_buffer=False,
                 flatten=False, warp_specialize=False, disable_licm=False):
        start, end = (0, arg1) if arg2 is None else (arg1, arg2)
        self._range = builtins.range(int(start), int(end), int(step) if step is not None else 1)

    def __iter__(self):
        return iter(self._range)


class static_range(range):
    """tl.static_range: a loop the compiler unrolls."""


# A stub's namespace: how messages name it, and the Triton path the compiler knows it by.
_STUB_NAMESPACES = {
    "tl": ("tl.", "triton.language."),
    "math": ("tl.math.", "triton.language.math."),
    "random": ("tl.random.", "triton.language.random."),
    "libdevice": ("libdevice.", "triton.language.extra.libdevice."),
    "cuda": ("tl.extra.cuda.", "triton.language.extra.cuda."),
}


def _stub(namespace, name):
    prefix, path = _STUB_NAMESPACES[namespace]
    display = prefix + name

    def stub(*args, **kwargs):
        raise RuntimeError(f"{display}() runs only inside a @jit kernel, where kiln's compiler translates it "
                           "(did you forget @kiln.jit, or call a kernel without [grid]?)")

    stub.__name__ = name
    stub.__qualname__ = name
    stub.__doc__ = f"{display}: a kernel builtin (see docs/language.md)."
    stub._kiln_path = path + name  # what kiln/_resolve.py hands the compiler for this object
    return stub
