"""Layers 1 and 2: parse checks and AST rules against the known reward hacks.

The static layer is the first line of defence (clear messages, cheap); the runtime layers in the
sandboxed worker (launch detection, torch-op logging, fresh seeds, odd shapes) are the backstop
for anything a rule here cannot see.
"""
from __future__ import annotations

import ast
import builtins
import collections
import importlib.util
import os
import types
from dataclasses import dataclass, field
from functools import lru_cache

from .verdict import Finding

ALLOWED_IMPORTS = ("torch", "torch.nn", "torch.nn.functional", "torch.nn.init", "triton", "triton.language",
                   "triton.language.extra", "math", "typing", "dataclasses", "itertools", "__future__")
AUTOGRAD_FUNCTION = {"torch.autograd.Function", "torch.autograd.function.Function"}
AUTOGRAD_ONLY = {"backward", "jvp", "vjp"}
# itertools builds autotune config lists (itertools.product over block sizes); a frozen dataclass of tile sizes is a
# common way to hold a kernel's launch configuration
DATACLASS_NAMES = {"dataclass", "field", "fields", "replace"}

# torch.* calls that only allocate or describe; anything else in the forward path is torch compute.
TORCH_ALLOC = {"empty", "empty_like", "empty_strided", "zeros", "zeros_like", "ones", "ones_like", "full",
               "full_like", "Size", "device", "finfo", "iinfo", "is_tensor", "numel", "get_default_dtype",
               "promote_types", "result_type", "broadcast_shapes", "is_floating_point", "is_complex", "no_grad",
               "tensor", "as_tensor"}  # torch.tensor([..]): a small table made from Python values (lift_fresh, a copy)
TORCH_CUDA_OK = {"current_device", "current_stream", "synchronize", "device", "is_available", "device_count",
                 "get_device_properties", "get_device_capability"}
# Tensor methods that allocate, describe or re-view memory (plus copies and fills of scratch buffers).
TENSOR_OK = {"view", "view_as", "reshape", "reshape_as", "contiguous", "permute", "transpose", "t", "T",
             "unsqueeze", "squeeze", "expand", "expand_as", "flatten", "unflatten", "narrow", "select",
             "split", "chunk", "unbind", "size", "stride", "dim", "ndimension", "numel", "nelement",
             "element_size", "data_ptr", "is_contiguous", "storage_offset", "new_empty", "new_zeros",
             "new_ones", "new_full", "new_empty_strided", "to", "cuda", "cpu", "float", "half", "double",
             "bfloat16", "int", "long", "bool", "type_as", "clone", "copy_", "zero_", "fill_", "detach",
             "as_strided", "movedim", "get_device", "is_floating_point", "is_complex", "unfold"}
# Names of tensor compute methods: calling one in the forward path means torch does the work.
TENSOR_COMPUTE = set("""abs absolute acos add addbmm addcdiv addcmul addmm addmv addr all allclose amax amin
aminmax any argmax argmin argsort asin atan atan2 baddbmm bmm ceil clamp clamp_min clamp_max clip cos cosh
count_nonzero cross cummax cummin cumprod cumsum deg2rad diag diag_embed diagonal diff digamma dist div
divide dot eig einsum eq equal erf erfc erfinv exp exp2 expm1 fmax fmin fmod floor floor_divide frac gather ge
gelu greater gt hardtanh heaviside histc hypot index_add index_copy index_fill index_put index_select inner
inverse isclose isfinite isinf isnan kron kthvalue lerp le less lgamma log log10 log1p log2 log_softmax
logaddexp logcumsumexp logical_and logical_not logical_or logical_xor logit logsumexp lt masked_fill
masked_scatter masked_select matmul matrix_power max maximum mean median min minimum mm mode mul multiply mv
nan_to_num nanmean nansum ne neg negative nonzero norm normal_ not_equal outer pow prod quantile rad2deg
reciprocal relu remainder renorm repeat repeat_interleave roll rot90 round rsqrt scatter scatter_add
scatter_reduce sgn sigmoid sign signbit silu sin sinh slogdet softmax sort sqrt square std sub subtract sum
svd take take_along_dim tan tanh tensordot tile topk trace tril triu true_divide trunc uniform_ unique var
where xlogy item tolist numpy softplus mish hardswish leaky_relu elu selu celu threshold layer_norm
group_norm batch_norm instance_norm linear conv1d conv2d conv3d dropout bernoulli multinomial flip fliplr
flipud index_reduce put put_ bincount bucketize searchsorted cov corrcoef apply_ map_ map2_""".split())
FORBIDDEN_CALLS = {"exec", "eval", "compile", "getattr", "setattr", "delattr", "__import__", "open",
                   "breakpoint", "input", "memoryview"}
# type() and hasattr() tell objects apart by their class: under TRITON_INTERPRET=1 @triton.jit makes an
# InterpretedFunction, on a GPU a JITFunction, so type(kernel).__name__ told the CPU verifier from the user's GPU
# (type with three arguments builds a class: the runtime layers judge what such an object does)
REFLECTION_CALLS = {"globals", "locals", "vars", "dir", "id", "type", "hasattr"}
# Methods through which torch's C++ reads a Python object as numbers or as a sequence (tensor constructors, legacy
# ones included: torch.Tensor(seq), x.new(seq), torch.FloatTensor(seq)). It calls them with the Python dispatch key
# switched off, so torch ops they run never reach the worker's op log (a red-team pass, 2026-12-06: ReLU and matmul
# computed in a dict subclass's __float__ verified). No kernel needs its own numbers or sequences; a class that
# defines one, or a string naming one (type(name, bases, {"__float__": f})), is refused.
CONVERSION_DUNDERS = {"__float__", "__int__", "__index__", "__complex__", "__len__", "__getitem__", "__iter__",
                      "__array__", "__array_interface__", "__array_struct__", "__cuda_array_interface__",
                      "__dlpack__", "__dlpack_device__", "__buffer__", "__bytes__", "__trunc__", "__round__"}
# typing's evaluators run the text of string annotations as code (`def f(a: "__import__('ctypes')")`, then
# typing.get_type_hints(f)): code no rule reads, imports included (a red-team pass, 2026-12-06)
TYPING_EVAL = {"get_type_hints", "ForwardRef", "_eval_type", "evaluate_forward_ref", "get_annotations",
               "_type_check", "_GenericAlias"}
TORCH_FORBIDDEN_ATTRS = {"ops", "compile", "jit", "library", "fx", "overrides", "autograd", "backends",
                         "manual_seed", "seed", "use_deterministic_algorithms", "utils", "hub", "export",
                         "compiler", "func", "vmap", "package", "distributed", "multiprocessing", "profiler",
                         "set_grad_enabled", "inference_mode", "enable_grad", "random", "testing",
                         "load", "save", "from_file", "serialization", "UntypedStorage", "TypedStorage", "storage"}
# torch.no_grad() (a context manager or a decorator of forward) changes only whether autograd records: allowed
TORCH_CUDA_FORBIDDEN = {"Event", "Stream", "stream", "graph", "CUDAGraph", "set_stream", "manual_seed",
                        "manual_seed_all", "set_device", "nvtx", "memory", "empty_cache", "set_rng_state",
                        "ExternalStream", "make_graphed_callables"}
TRITON_FORBIDDEN = {"runtime", "testing", "knobs", "compiler", "tools", "backends", "profiler", "set_allocator",
                    "ops", "experimental"}
# The seed and state of torch's generators: the worker seeds torch identically before constructing Model and ModelNew
# (equal parameters). Trial inputs now come from a seed that never leaves the reference's sandbox (worker_reference),
# so the construction seed no longer reveals them; a candidate still has no use for a generator's seed or state.
RNG_ATTRS = {"initial_seed", "get_rng_state", "get_rng_state_all", "default_generator", "default_generators",
             "Generator", "seed_all"}
MODE_ATTRS = {"training", "is_cuda", "is_cpu", "is_meta", "requires_grad", "grad_fn", "is_leaf", "grad",
              "is_inference", "is_mps", "is_xpu"}
DEVICE_ATTRS = {"is_cuda", "is_cpu", "is_meta", "is_mps", "is_xpu"}  # refused anywhere in the file, not only forward
# torch.cuda calls a candidate may make: waiting, device and stream context (no-ops on a CPU: see the worker)
CUDA_ALLOWED = {"synchronize", "device", "current_stream", "stream", "Stream", "Event", "default_stream"}
MODE_CALLS = {"is_grad_enabled", "is_inference_mode_enabled", "is_scripting", "is_compiling",
              "is_tracing", "are_deterministic_algorithms_enabled", "is_autocast_enabled"}
# Annotations of values that are not tensors (a parameter so annotated holds a Python number, a shape, a dtype…)
SCALAR_TYPES = {"int", "float", "bool", "str", "complex", "None", "NoneType", "tuple", "Tuple", "list", "List",
                "Sequence", "Optional", "Union", "Literal", "Final", "constexpr", "dtype", "Size"}
# Tensor methods that return Python numbers or shapes (x.numel(), x.size(1), x.stride())
SCALAR_METHODS = {"numel", "size", "stride", "dim", "ndimension", "nelement", "element_size", "storage_offset",
                  "is_contiguous", "is_floating_point", "is_complex"}
# Python builtins kernel code may call (on constexprs, or Triton's own overloads)
KERNEL_BUILTINS = {"range", "min", "max", "len", "print", "isinstance", "abs"}
MUTATING_METHODS = {"append", "extend", "insert", "update", "setdefault", "pop", "popitem", "add", "clear",
                    "remove", "discard", "__setitem__", "send"}
ALLOWED_DUNDERS = {"__init__", "__name__"}
# nn.Module's own machinery: the dicts its __call__ reads hooks from, its registries and its call path. A hook put
# straight into `self._forward_hooks` runs inside model(x) as a function no forward-path rule checks (register_*_hook
# is refused by name); a candidate reads and writes its own attributes, not these.
MODULE_INTERNALS = {"_forward_hooks", "_forward_pre_hooks", "_forward_hooks_with_kwargs", "_forward_hooks_always_called",
                    "_forward_pre_hooks_with_kwargs", "_backward_hooks", "_backward_pre_hooks", "_is_full_backward_hook",
                    "_state_dict_hooks", "_state_dict_pre_hooks", "_load_state_dict_pre_hooks",
                    "_load_state_dict_post_hooks", "_parameters", "_buffers", "_modules", "_non_persistent_buffers_set",
                    "_call_impl", "_wrapped_call_impl", "_compiled_call_impl", "_slow_forward", "_apply",
                    "_named_members", "_global_forward_hooks", "_global_forward_pre_hooks", "_global_backward_hooks",
                    "_global_module_registration_hooks", "_global_parameter_registration_hooks",
                    "_global_buffer_registration_hooks"}
# nn.Module's own (non-dunder) methods: a candidate class that overrides one changes what the verifier and the user call
# outside forward (eval() calls train(False): an override kept the mode in an attribute of its own, and forward
# branched on that, with no '.training' read anywhere). forward and extra_repr are the module's to define.
MODULE_METHODS = set("""_apply _call_impl _get_backward_hooks _get_backward_pre_hooks _get_name _load_from_state_dict
_maybe_warn_non_full_backward_hook _named_members _register_load_state_dict_pre_hook _register_state_dict_hook
_replicate_for_data_parallel _save_to_state_dict _slow_forward _wrapped_call_impl add_module apply bfloat16 buffers
children compile cpu cuda double eval float get_buffer get_extra_state get_parameter get_submodule half ipu
load_state_dict modules mtia named_buffers named_children named_modules named_parameters parameters
register_backward_hook register_buffer register_forward_hook register_forward_pre_hook register_full_backward_hook
register_full_backward_pre_hook register_load_state_dict_post_hook register_load_state_dict_pre_hook register_module
register_parameter register_state_dict_post_hook register_state_dict_pre_hook requires_grad_ set_extra_state
set_submodule share_memory state_dict to to_empty train type xpu zero_grad""".split())
# Methods that run at construction (or class creation), not when the module is called: every other dunder a candidate
# class defines may run inside forward without being named there (__getitem__, __getattr__, __iter__, __del__, …)
CONSTRUCTION_DUNDERS = {"__init__", "__new__", "__init_subclass__", "__set_name__", "__class_getitem__"}
# Attributes of frames, generators, coroutines and tracebacks: a running generator's `gi_frame.f_back.f_globals`
# reaches the caller's globals (the worker's own state) without a dunder or an import.
FRAME_ATTRS = {"gi_frame", "gi_code", "gi_yieldfrom", "gi_running", "cr_frame", "cr_code", "cr_await", "cr_origin",
               "ag_frame", "ag_code", "ag_await", "f_back", "f_globals", "f_locals", "f_builtins", "f_code", "f_trace",
               "f_lasti", "tb_frame", "tb_next", "co_code", "co_consts", "co_names", "co_filename"}
# Standard-library (and numpy) modules that the allowed ones import and keep as attributes (`torch.sys`,
# `torch.os`, `typing.sys`, `torch.nn.modules.module.sys`): an attribute of that name reaches the process
# (sys.modules, files, environment, threads, the garbage collector) without an import statement.
ESCAPE_MODULES = {"sys", "os", "builtins", "gc", "inspect", "importlib", "ctypes", "threading", "_thread",
                  "subprocess", "weakref", "operator", "multiprocessing", "mp", "traceback", "types", "io", "pathlib",
                  "pickle", "dill", "marshal", "copyreg", "signal", "concurrent", "asyncio", "shutil", "tempfile",
                  "linecache", "atexit", "faulthandler", "runpy", "mmap", "socket", "sysconfig", "posix", "np",
                  "numpy", "ast", "dis", "glob", "zipfile", "tarfile", "pkgutil", "contextvars", "_sys", "_os"}
# Namespaces a candidate may reach by attribute: torch.relu, nn.Linear, F.gelu, tl.load, libdevice.tanh, …
# Any other module reached through them (torch.nn.parallel, torch.nn.modules.module, torch.nn.functional.torch)
# is outside the API a Triton candidate needs.
ALLOWED_NAMESPACES = ("torch", "torch.nn", "torch.nn.functional", "torch.nn.init", "torch.cuda", "torch.linalg",
                      "torch.special", "torch.fft", "triton", "triton.language", "triton.language.math",
                      "triton.language.extra", "math", "typing", "dataclasses", "itertools")
TOP_LEVEL_MODULES = ESCAPE_MODULES | {"torch", "triton", "math", "typing", "functools", "itertools", "collections",
                                      "random", "time", "warnings", "logging", "json", "re", "copy", "contextlib"}
MODULE_NAMES_ROOTS = {"torch", "triton", "math", "nn", "F", "tl"}


@lru_cache(maxsize=None)
def _tensor_private() -> frozenset[str]:
    """torch.Tensor's private (single-underscore) attributes: `_version` (bumped by every in-place write), `_base`,
    `_cdata`, `_use_count`, `_typed_storage`, `_addmm_activation`, … read from torch itself."""
    try:
        import torch

        names = dir(torch.Tensor)
    except Exception:
        names = ["_version", "_base", "_cdata", "_use_count", "_typed_storage", "_grad_fn", "_backward_hooks"]
    return frozenset(n for n in names if n.startswith("_") and not (n.startswith("__") and n.endswith("__")))


def _root(node: ast.AST) -> str | None:
    """The base name of an attribute chain (`torch` for torch.nn.functional.relu)."""
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call)):
        node = node.value if not isinstance(node, ast.Call) else node.func
    return node.id if isinstance(node, ast.Name) else None


def _dotted(node: ast.AST) -> str:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return ""


@lru_cache(maxsize=None)
def _submodules(namespace: str) -> frozenset[str]:
    """Names of the modules and packages inside an installed package, read from its directory (nothing imported)."""
    top, *rest = namespace.split(".")
    try:
        spec = importlib.util.find_spec(top)
    except (ImportError, ValueError):
        return frozenset()
    if spec is None or not spec.submodule_search_locations:
        return frozenset()
    out = set()
    for base in spec.submodule_search_locations:
        d = os.path.join(base, *rest)
        try:
            entries = os.listdir(d)
        except OSError:
            continue
        for e in entries:
            if os.path.isfile(os.path.join(d, e, "__init__.py")):
                out.add(e)
            elif e.endswith(".py") or e.endswith(".so"):
                out.add(e.split(".")[0])
    return frozenset(out)


def _namespace_of(dotted: str) -> str | None:
    """The longest allowed namespace that `dotted` starts with."""
    parts = dotted.split(".")
    for k in range(len(parts), 0, -1):
        head = ".".join(parts[:k])
        if head in ALLOWED_NAMESPACES:
            return head
        if head.startswith("triton.language.extra.") and parts[k - 1] in _submodules(".".join(parts[:k - 1])):
            return head  # libdevice, cuda.libdevice, …
    return None


_MUTABLE_CONTAINERS = (list, dict, set, bytearray, collections.deque)


@lru_cache(maxsize=4096)
def _library_value(dotted: str) -> object:
    """The object an import-resolved dotted name of an allowed library names (modules imported as needed, attributes
    read from the library itself: no candidate code runs), or None where it cannot be found."""
    import importlib
    import sys

    parts = dotted.split(".")
    obj = None
    for k in range(len(parts), 0, -1):
        head = ".".join(parts[:k])
        if head in sys.modules or _namespace_of(head) == head:
            try:
                obj = sys.modules.get(head) or importlib.import_module(head)
            except Exception:
                continue
            for part in parts[k:]:
                try:
                    obj = getattr(obj, part)
                except Exception:
                    return None
            return obj
    return None


def _import_machinery(value: object) -> bool:
    """Whether a library's attribute is an object of Python's import machinery (triton.language.extra keeps
    importlib's module_from_spec, a FileFinder and a ModuleSpec at module level), by the module its class or
    function is defined in."""
    if value is None:
        return False
    mod = getattr(value, "__module__", None) if isinstance(value, (type, types.FunctionType,
                                                                   types.BuiltinFunctionType)) else None
    mod = mod if isinstance(mod, str) else getattr(type(value), "__module__", "")
    return str(mod).split(".")[0] in ("importlib", "_frozen_importlib", "_frozen_importlib_external", "pkgutil",
                                      "zipimport", "_imp", "sys")


def _is_module_path(dotted: str) -> bool:
    """Whether an import-resolved dotted name is one of the allowed namespaces or a top-level module."""
    return bool(dotted) and (_namespace_of(dotted) == dotted or dotted in TOP_LEVEL_MODULES)


def _is_jit_decorator(dec: ast.AST, aliases: "_Aliases") -> bool:
    target = dec.func if isinstance(dec, ast.Call) else dec
    name = aliases.resolve(_dotted(target))
    return name in ("triton.jit", "triton.language.jit")


@dataclass
class _Aliases:
    """Local names bound by imports: `tl` -> triton.language, `F` -> torch.nn.functional, …"""

    names: dict[str, str] = field(default_factory=dict)

    def resolve(self, dotted: str) -> str:
        if not dotted:
            return ""
        head, _, rest = dotted.partition(".")
        full = self.names.get(head)
        if full is None:
            return dotted
        return f"{full}.{rest}" if rest else full


class _Checker:
    def __init__(self, tree: ast.Module):
        self.tree = tree
        self.findings: list[Finding] = []
        self.aliases = _Aliases()
        self.functions: dict[str, ast.FunctionDef] = {}
        self.classes: dict[str, ast.ClassDef] = {}
        self.kernels: set[str] = set()
        self.kernel_defs: dict[str, ast.FunctionDef] = {}  # name -> the def whose body runs as kernel code
        self.module_names: set[str] = set()
        # attribute names the candidate binds itself (self._cache = ..., a method _launch): reading those is its own
        self.own_attrs: set[str] = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)
                                    and isinstance(n.ctx, ast.Store)} | {
            n.name for c in ast.walk(tree) if isinstance(c, ast.ClassDef) for n in c.body
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
        self.module_values: dict[str, ast.AST] = {}
        # forward's arguments that the problem's get_inputs() gives as numbers (None: unknown, annotations decide)
        self.forward_scalar_positions: set[int] | None = None
        self.grid_meta: set[str] = set()  # the parameter of each launch grid callable (lambda meta: …)
        self.autograd_classes: set[str] = set()  # classes that subclass torch.autograd.Function
        self.autograd_base_nodes: set[int] = set()  # the nodes of those base expressions

    def _imported(self, node: ast.AST) -> str:
        """The import-resolved dotted name of a Name/Attribute chain rooted at an imported name, else ''."""
        dotted = _dotted(node)
        if not dotted or dotted.split(".")[0] not in self.aliases.names:
            return ""
        return self.aliases.resolve(dotted)

    def add(self, rule: str, msg: str, node: ast.AST | None, stage: str = "static") -> None:
        line = getattr(node, "lineno", None)
        if not any(f.rule == rule and f.line == line for f in self.findings):
            self.findings.append(Finding(stage, rule, msg, line))

    # -- collection -------------------------------------------------------------------------------
    def collect(self) -> None:
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Import):
                for a in node.names:
                    self.aliases.names[(a.asname or a.name).split(".")[0]] = a.name if a.asname else a.name.split(".")[0]
            elif isinstance(node, ast.ImportFrom) and node.module:
                for a in node.names:
                    self.aliases.names[a.asname or a.name] = f"{node.module}.{a.name}"
        # `m = torch.nn` (anywhere): m is another name of that module, and chains through it are checked as such
        for _ in range(2):
            for node in ast.walk(self.tree):
                if (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                        and isinstance(node.value, (ast.Name, ast.Attribute))):
                    full = self._imported(node.value)
                    if full and _is_module_path(full):
                        self.aliases.names[node.targets[0].id] = full
        for node in self.tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.functions[node.name] = node  # type: ignore[assignment]
                if any(_is_jit_decorator(d, self.aliases) for d in node.decorator_list):
                    self.kernels.add(node.name)
                    self.kernel_defs[node.name] = node  # type: ignore[assignment]
            elif isinstance(node, ast.ClassDef):
                self.classes[node.name] = node
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for t in targets:
                    if isinstance(t, ast.Name):
                        self.module_names.add(t.id)
                        self.module_values[t.id] = node.value if node.value is not None else ast.Constant(None)
                        # kernel = triton.jit(fn)
                        v = node.value
                        if isinstance(v, ast.Call) and _is_jit_decorator(v, self.aliases):
                            self.kernels.add(t.id)
        # class _Fn(torch.autograd.Function): a kernel wrapped for autograd (its base, and only that, may name
        # torch.autograd; its backward runs only when a gradient is asked for, never inside model(x))
        for c in self.classes.values():
            for b in c.bases:
                if self.aliases.resolve(_dotted(b)) in AUTOGRAD_FUNCTION:
                    self.autograd_classes.add(c.name)
                    self.autograd_base_nodes |= {id(n) for n in ast.walk(b)}
        # Kernel code is wherever Triton runs it: a @triton.jit def at any depth (in a class, in a function), and the
        # function handed to triton.jit(fn), whose body lives under fn's name, not the kernel's
        for node in ast.walk(self.tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and any(
                    _is_jit_decorator(d, self.aliases) for d in node.decorator_list):
                self.kernel_defs.setdefault(node.name, node)  # type: ignore[arg-type]
            elif isinstance(node, ast.Call) and _is_jit_decorator(node, self.aliases) and node.args:
                a = node.args[0]
                if isinstance(a, ast.Name) and a.id in self.functions:
                    self.kernel_defs.setdefault(a.id, self.functions[a.id])
                    self.kernels.add(a.id)
                else:
                    self.add("forbidden-call", f"'{ast.unparse(node)}': a kernel is a top-level function made with "
                             "@triton.jit or triton.jit(name); other code handed to Triton is not checked as kernel "
                             "code", node)

    # -- rules on the whole file ------------------------------------------------------------------
    def check_imports(self) -> None:
        for node in ast.walk(self.tree):
            mods = []
            if isinstance(node, ast.Import):
                mods = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    mods = ["." * node.level + (node.module or "")]
                else:
                    mods = [node.module or ""]
                    if node.module in ("torch", "triton", "torch.nn"):
                        mods += [f"{node.module}.{a.name}" for a in node.names]
            if isinstance(node, ast.ImportFrom):
                for a in node.names:
                    if a.name in ESCAPE_MODULES:
                        # `from typing import sys`: typing keeps sys as an attribute, and the name imported is sys
                        self.add("forbidden-import", f"'from {node.module} import {a.name}' imports the module "
                                 f"'{a.name}'; not allowed in a candidate", node)
                    elif node.module == "torch.autograd" and a.name != "Function":
                        self.add("forbidden-import", f"'from torch.autograd import {a.name}': a candidate may subclass "
                                 "torch.autograd.Function, nothing else of torch.autograd", node)
                    elif node.module == "typing" and a.name in TYPING_EVAL:
                        self.add("forbidden-import", f"'from typing import {a.name}': it evaluates annotation text as "
                                 "code; not allowed in a candidate", node)
                    elif node.module == "dataclasses" and a.name not in DATACLASS_NAMES:
                        self.add("forbidden-import", f"'from dataclasses import {a.name}': a candidate may use "
                                 f"dataclasses for configuration ({', '.join(sorted(DATACLASS_NAMES))})", node)
            for m in mods:
                ok = any(m == a or (a in ("triton.language.extra",) and m.startswith(a + ".")) for a in ALLOWED_IMPORTS)
                if m in ("torch.nn.Module", "torch.nn.Parameter", "torch.Tensor", "torch.nn.functional"):
                    ok = True
                if m == "torch.autograd" and isinstance(node, ast.ImportFrom):
                    ok = all(a.name == "Function" for a in node.names)
                if m.startswith("triton.") and m.split(".")[1] in ("jit", "cdiv", "next_power_of_2", "autotune",
                                                                   "heuristics", "Config", "language"):
                    ok = True
                if m.startswith("torch.nn.") and m.split(".")[2][:1].isupper():
                    ok = True  # from torch.nn import Linear, LayerNorm, …
                if not ok:
                    self.add("forbidden-import", f"import of '{m}' is not allowed in a candidate "
                             f"(allowed: {', '.join((a for a in ALLOWED_IMPORTS if a != '__future__'))})", node)

    def check_module_values(self) -> None:
        """Modules are reached only as the base of an attribute chain (torch.empty, tl.load) or renamed (m = torch.nn):
        a module passed, stored or returned as a value escapes every rule that reads attribute chains."""
        parents: dict[int, ast.AST] = {}
        for node in ast.walk(self.tree):
            for child in ast.iter_child_nodes(node):
                parents[id(child)] = node
        for node in ast.walk(self.tree):
            if not isinstance(node, (ast.Name, ast.Attribute)) or not isinstance(node.ctx, ast.Load):
                continue
            parent = parents.get(id(node))
            if isinstance(parent, ast.Attribute) and parent.value is node:
                continue  # the base of a longer chain
            if (isinstance(parent, ast.Assign) and parent.value is node and len(parent.targets) == 1
                    and isinstance(parent.targets[0], ast.Name)):
                continue  # a new name for it (an alias, checked as one)
            if _is_main_guard(parent):
                continue
            full = self._imported(node)
            if full and _is_module_path(full):
                self.add("reflection", f"the module '{full}' is used as a value ({ast.unparse(node)}); a candidate "
                         "may only reach a module's attributes", node)

    def check_attribute_chains(self) -> None:
        """Attribute chains may only reach the allowed namespaces' members, not other modules through them."""
        for node in ast.walk(self.tree):
            if not isinstance(node, ast.Attribute):
                continue
            if node.attr in ESCAPE_MODULES:
                self.add("forbidden-import", f"'.{node.attr}' reaches the module '{node.attr}' through an attribute; "
                         "not allowed in a candidate", node)
            elif node.attr in FRAME_ATTRS:
                self.add("reflection", f"'.{node.attr}' (frames, generators, tracebacks) is not allowed", node)
            elif node.attr == "handle":
                self.add("forbidden-call", "'.handle' reaches Triton's internals (in the interpreter: the values as a "
                         "numpy array); kernels compute with triton.language", node)
            elif node.attr in RNG_ATTRS:
                self.add("forbidden-call", f"'.{node.attr}' reads or makes torch's random generators (a candidate "
                         "draws no random numbers of its own)", node)
            elif node.attr == "from_file":
                self.add("forbidden-call", "'.from_file' reads files; a candidate reads only its arguments", node)
            full = self._imported(node)
            ns = _namespace_of(full) if full else None
            if ns is None or full == ns or id(node) in self.autograd_base_nodes:
                continue
            leaf = full[len(ns) + 1:].split(".")[0]
            if leaf in TOP_LEVEL_MODULES or (leaf in _submodules(ns) and _namespace_of(f"{ns}.{leaf}") != f"{ns}.{leaf}"):
                self.add("forbidden-import", f"'{ast.unparse(node)}' reaches the module '{ns}.{leaf}', which is outside "
                         f"the API a candidate may use ({', '.join(ALLOWED_NAMESPACES)})", node)

    def check_library_data(self) -> None:
        """No reference to a mutable container a library keeps (torch.nn.functional.reproducibility_notes, a dict;
        typing.EXCLUDED_ATTRIBUTES, a list; tl.dtype.FP_TYPES): a heuristics function that appended to one kept a
        call counter in the library's globals, where no walk of the candidate's own objects looks (red-teaming
        2026-12-07: a kernel that stopped computing after 40 launches verified). A candidate reads the libraries'
        functions, classes, dtypes and constants, never their data structures."""
        for node in ast.walk(self.tree):
            if not isinstance(node, (ast.Name, ast.Attribute)):
                continue
            full = self._imported(node)
            if not full or "." not in full or _namespace_of(full) is None:
                continue
            value = _library_value(full)
            if isinstance(value, _MUTABLE_CONTAINERS):
                # triton.language.extra.modules is sys.modules itself (`from sys import modules`): every imported
                # module (ctypes, numpy) with no import statement for the guard to refuse
                self.add("monkey-patch", f"'{ast.unparse(node)}' is a mutable container of the library ({full}); a "
                         "candidate may not read or change a library's data (state kept there outlives every call; "
                         "some hold the process's modules)", node)
            elif _import_machinery(value):
                self.add("forbidden-import", f"'{ast.unparse(node)}' ({full}) is Python's import machinery, "
                         "re-exported by the library; a candidate imports nothing beyond the allowed modules", node)

    def check_everywhere(self) -> None:
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Try) or (hasattr(ast, "TryStar") and isinstance(node, getattr(ast, "TryStar"))):
                if node.handlers:
                    self.add("try-except-fallback", "try/except is not allowed: a failing kernel must fail, "
                             "not fall back to another implementation", node)
            elif isinstance(node, ast.Name):
                if node.id == "Model":
                    self.add("reference-reuse", "the candidate must not use the reference class Model", node)
                elif node.id in FORBIDDEN_CALLS:
                    self.add("forbidden-call", f"'{node.id}' is not allowed in a candidate", node)
                elif (node.id in REFLECTION_CALLS and not (node.id == "type" and self._class_built(node))) or \
                        node.id in ("__builtins__", "__builtin__", "__loader__", "__spec__", "__file__", "__warningregistry__"):
                    self.add("reflection", f"'{node.id}' (introspection) is not allowed in a candidate", node)
            elif isinstance(node, ast.Attribute):
                if node.attr in MODULE_INTERNALS:
                    self.add("reflection", f"'.{node.attr}' is nn.Module's own machinery (hooks, registries, its call "
                             "path); a candidate uses its own attributes", node)
                elif node.attr.startswith("register_") and node.attr.endswith("hook"):
                    self.add("forbidden-call", f"hooks ('{node.attr}') are not allowed", node)
                if node.attr.startswith("__") and node.attr.endswith("__") and node.attr not in ALLOWED_DUNDERS:
                    self.add("reflection", f"dunder attribute '.{node.attr}' is not allowed", node)
                elif node.attr.startswith("_") and _root(node) in MODULE_NAMES_ROOTS | set(self.aliases.names):
                    self.add("forbidden-call", f"private attribute '{_dotted(node) or node.attr}' is not allowed",
                             node)
                elif node.attr in _tensor_private() and not (
                        isinstance(node.value, ast.Name) and node.value.id == "self" and node.attr in self.own_attrs):
                    # self.flag.zero_() each call (same values) and self.flag._version as the call count
                    self.add("reflection", f"'.{node.attr}' is a private attribute of torch tensors (version counters, "
                             "reference counts, autograd and storage internals); a candidate reads shapes, strides and "
                             "dtypes", node)
                self._check_api(node)
            elif isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Delete)):
                targets = node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [node.target]
                for t in targets:
                    for sub in ast.walk(t):
                        if isinstance(sub, (ast.Attribute, ast.Subscript)):
                            root = _root(sub)
                            if root and (root in self.aliases.names or root in MODULE_NAMES_ROOTS):
                                self.add("monkey-patch", f"assigning to '{_dotted(sub) or root}' patches a library "
                                         "module; not allowed", node)
                            if isinstance(sub, ast.Attribute) and sub.attr in ("forward", "__call__", "_call_impl",
                                                                               "__class__"):
                                self.add("monkey-patch", f"replacing '.{sub.attr}' is not allowed", node)
            elif isinstance(node, ast.ClassDef):
                for item in node.body:
                    if (isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.bases
                            and item.name in MODULE_METHODS):
                        self.add("monkey-patch", f"class {node.name} overrides nn.Module.{item.name}; a candidate "
                                 "defines __init__ and forward (and helpers of its own names)", item)
                    targets = (item.targets if isinstance(item, ast.Assign) else [item.target]
                               if isinstance(item, (ast.AnnAssign, ast.AugAssign)) else [])
                    for t in targets:
                        for n in ast.walk(t):
                            if isinstance(n, ast.Name) and (n.id in ("forward", "__call__") or n.id in MODULE_INTERNALS
                                                            or n.id in MODULE_METHODS
                                                            or (n.id.startswith("__") and n.id.endswith("__"))):
                                # `forward = other_fn` in the class body: the static rules read the def'd forward,
                                # Python calls the assigned one
                                self.add("monkey-patch", f"class {node.name} binds '{n.id}' by assignment; methods "
                                         "are defined with def", item)
                for b in node.bases:
                    name = self.aliases.resolve(_dotted(b))
                    if name.endswith("Tensor") or name in ("torch.Tensor",):
                        self.add("tensor-subclass", f"class {node.name} subclasses a tensor type", node)
                for item in node.body:
                    if isinstance(item, ast.FunctionDef) and item.name in ("__torch_function__", "__torch_dispatch__",
                                                                         "__eq__", "__ne__", "__bool__"):
                        self.add("tensor-subclass", f"class {node.name} overrides {item.name}", item)
                    elif isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name in CONVERSION_DUNDERS:
                        self.add("conversion-dunder", f"class {node.name} defines {item.name}: torch reads such an "
                                 "object as numbers or a sequence (a tensor constructor) with its op log's key switched "
                                 "off, so compute there is unseen; kernels take tensors and plain numbers", item)
            elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in CONVERSION_DUNDERS:
                self.add("conversion-dunder", f"the string '{node.value}' names a conversion method (a class built "
                         "with type() or given one by name); not allowed in a candidate", node)
            elif isinstance(node, ast.Call):
                name = self.aliases.resolve(_dotted(node.func))
                if name.split(".")[-1] in ("register_forward_hook", "register_forward_pre_hook",
                                           "register_full_backward_hook", "register_module_forward_hook",
                                           "register_module_forward_pre_hook", "register_hook",
                                           "register_dispatch_mode"):
                    self.add("forbidden-call", f"hooks ('{name.split('.')[-1]}') are not allowed", node)
            elif isinstance(node, (ast.Global, ast.Nonlocal)):
                self.add("state-in-forward", "global/nonlocal state is not allowed in a candidate", node)

    def _class_built(self, name: ast.Name) -> bool:
        """Whether this `type` is called with three arguments (a class built, not an object's class read)."""
        return any(isinstance(n, ast.Call) and n.func is name and len(n.args) == 3 for n in ast.walk(self.tree))

    def _check_api(self, node: ast.Attribute) -> None:
        """Forbidden parts of the torch and triton APIs, wherever referenced."""
        if id(node) in self.autograd_base_nodes:
            return
        full = self.aliases.resolve(_dotted(node))
        parts = full.split(".")
        if len(parts) >= 2 and parts[0] == "torch":
            if parts[1] in TORCH_FORBIDDEN_ATTRS or parts[1].startswith("set_"):
                self.add("forbidden-call", f"'{full}' is not allowed in a candidate", node)
            elif parts[1] == "cuda" and len(parts) >= 3 and parts[2] in TORCH_CUDA_FORBIDDEN:
                self.add("forbidden-call", f"'{full}' (streams, events, graphs, RNG) is not allowed", node)
            elif parts[1] == "Tensor" and len(parts) >= 3 and parts[2] not in ("__init__",):
                self.add("forbidden-call", f"'{full}': reaching tensor methods through torch.Tensor "
                         "is not allowed", node)
        elif len(parts) >= 2 and parts[0] == "typing" and parts[1] in TYPING_EVAL:
            self.add("forbidden-call", f"'{full}' evaluates annotation text as code; not allowed in a candidate", node)
        elif len(parts) >= 2 and parts[0] == "triton":
            if parts[1] in TRITON_FORBIDDEN:
                self.add("forbidden-call", f"'{full}' (Triton internals) is not allowed", node)

    def check_names(self) -> None:
        """Every name the candidate reads is one it binds (an import, a def, a class, an assignment, a parameter, a
        loop or comprehension variable) or a Python builtin. Under TRITON_INTERPRET=1 Triton's interpreter copies its
        own module's globals into a kernel's module at the first launch (numpy as `np`, `inspect`, `time`), so code
        that reads a name it never imported ran numpy on a tensor's memory on the CPU verifier (and fails with a
        NameError on a GPU)."""
        import builtins

        bound = set(self.aliases.names) | {"__name__", "__doc__", "__qualname__", "__module__", "__annotations__"}
        star = [n.module for n in ast.walk(self.tree) if isinstance(n, ast.ImportFrom) and n.module
                and any(a.name == "*" for a in n.names)]
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
                bound.add(node.id)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                bound.add(node.name)
            elif isinstance(node, ast.arg):
                bound.add(node.arg)
            elif isinstance(node, (ast.alias,)):
                bound.add((node.asname or node.name).split(".")[0])
            elif isinstance(node, ast.ExceptHandler) and node.name:
                bound.add(node.name)
            elif isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name:
                bound.add(node.name)
            elif isinstance(node, ast.MatchMapping) and node.rest:
                bound.add(node.rest)
        for node in ast.walk(self.tree):
            if (isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id not in bound
                    and not hasattr(builtins, node.id) and not any(self._star_provides(m, node.id) for m in star)):
                self.add("undefined-name", f"'{node.id}' is never imported or defined in the candidate (under "
                         "Triton's interpreter the kernel's module gets the interpreter's own globals, numpy as 'np' "
                         "among them; on a GPU it is a NameError): import what the code uses", node)

    @staticmethod
    def _star_provides(module: str, name: str) -> bool:
        """Whether `from module import *` (an allowed module: torch, triton, …) binds `name`."""
        if not any(module == a or module.startswith(a + ".") for a in ALLOWED_IMPORTS):
            return False
        try:
            mod = importlib.import_module(module)
        except Exception:
            return False
        names = getattr(mod, "__all__", None)
        return name in names if names is not None else (hasattr(mod, name) and not name.startswith("_"))

    def check_module_level(self) -> None:
        for node in self.tree.body:
            if isinstance(node, ast.Expr) and not (isinstance(node.value, ast.Constant)):
                self.add("module-side-effect", "module-level statements other than imports, definitions and "
                         "constants are not allowed", node)
            elif isinstance(node, (ast.If, ast.For, ast.While, ast.With)):
                if not _is_main_guard(node):
                    self.add("module-side-effect", "module-level control flow is not allowed", node)
            elif isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
                for sub in ast.walk(node.value):
                    if isinstance(sub, ast.Call):
                        name = self.aliases.resolve(_dotted(sub.func))
                        if name.startswith("torch.") and name.split(".")[1] not in ("dtype", "device"):
                            self.add("module-side-effect", f"module-level call '{name}' is not allowed "
                                     "(compute nothing at import time)", sub)

    # -- rules on the forward path ----------------------------------------------------------------
    def forward_path(self, cls: ast.ClassDef) -> list[ast.AST]:
        """Functions that may run when the module is called: ModelNew.forward / __call__, forward / __call__ of helper
        classes, every dunder a candidate class defines (Python calls __getitem__, __getattr__, __iter__, __del__, …
        without their names in forward), functions named in a class body outside its defs, and everything these reach:
        the functions and classes they name, and the candidate's methods they name as attributes (`self.m(x)`, but also
        `g = self.m; g(x)` and `self.helper.run(x)`), not only `self.m(...)` calls."""
        methods = {n.name: n for n in cls.body if isinstance(n, ast.FunctionDef)}
        by_attr: dict[str, list[ast.AST]] = {}
        for c in self.classes.values():
            for n in c.body:
                if isinstance(n, ast.FunctionDef) and n.name not in CONSTRUCTION_DUNDERS:
                    by_attr.setdefault(n.name, []).append(n)
        todo: list[ast.AST] = [methods[m] for m in ("forward", "__call__") if m in methods]
        for c in self.classes.values():
            for n in c.body:
                if isinstance(n, ast.FunctionDef):
                    if (c is not cls and n.name in ("forward", "__call__")) or (
                            n.name.startswith("__") and n.name.endswith("__") and n.name not in CONSTRUCTION_DUNDERS):
                        todo.append(n)
                elif not isinstance(n, (ast.AsyncFunctionDef, ast.ClassDef)):
                    # `forward = _impl` (refused on its own), `op = staticmethod(_impl)`: the function runs as a method
                    todo += [self.functions[s.id] for s in ast.walk(n) if isinstance(s, ast.Name)
                             and s.id in self.functions and s.id not in self.kernels]
        seen: dict[int, ast.AST] = {}
        while todo:
            fn = todo.pop()
            if id(fn) in seen:
                continue
            seen[id(fn)] = fn
            for sub in ast.walk(fn):
                # a candidate function or class named (not only called) in forward runs there: `h = helper; h(x)`
                if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Load):
                    if sub.id in self.functions and sub.id not in self.kernels:
                        todo.append(self.functions[sub.id])
                    elif sub.id in self.classes and self.classes[sub.id] is not cls:
                        todo += self._run_methods(self.classes[sub.id])
                    elif sub.id in self.module_values and sub.id not in self.aliases.names:
                        # `_tick = _make()` at module level: what forward calls is a closure _make built
                        todo += [self.functions[n.id] for n in ast.walk(self.module_values[sub.id])
                                 if isinstance(n, ast.Name) and n.id in self.functions and n.id not in self.kernels]
                elif isinstance(sub, ast.Attribute) and sub.attr in by_attr:
                    todo += by_attr[sub.attr]  # self.m, obj.m, g = self.m: a method of one of the candidate's classes
                if isinstance(sub, ast.Call):
                    f = sub.func
                    if isinstance(f, ast.Name) and f.id in self.functions and f.id not in self.kernels:
                        todo.append(self.functions[f.id])
                    elif isinstance(f, ast.Name) and f.id in self.classes:
                        todo += self._run_methods(self.classes[f.id])
                    elif (isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == "self"
                          and f.attr in methods):
                        todo.append(methods[f.attr])
        return [fn for fn in seen.values() if fn.name not in self.kernel_defs or fn is not self.kernel_defs[fn.name]]

    # -- which names hold Python numbers, not tensors ----------------------------------------------
    def _scalar_annotation(self, ann: ast.AST | None, depth: int = 0) -> bool:
        """An annotation that names only non-tensor types: int, float, Optional[int], Tuple[int, int], tl.constexpr…"""
        if ann is None or depth > 10:
            return False
        if isinstance(ann, ast.Constant):
            if isinstance(ann.value, str):  # a forward reference, "Optional[int]"
                try:
                    return self._scalar_annotation(ast.parse(ann.value, mode="eval").body, depth + 1)
                except SyntaxError:
                    return False
            return ann.value is None or ann.value is Ellipsis
        if isinstance(ann, (ast.Name, ast.Attribute)):
            name = self.aliases.resolve(_dotted(ann))
            return bool(name) and name.split(".")[-1] in SCALAR_TYPES and (
                "." not in name or name.split(".")[0] in ("typing", "triton", "torch", "builtins"))
        if isinstance(ann, ast.Subscript):
            return self._scalar_annotation(ann.value, depth + 1) and self._scalar_annotation(ann.slice, depth + 1)
        if isinstance(ann, (ast.Tuple, ast.List)):
            return all(self._scalar_annotation(e, depth + 1) for e in ann.elts)
        if isinstance(ann, ast.BinOp) and isinstance(ann.op, ast.BitOr):
            return self._scalar_annotation(ann.left, depth + 1) and self._scalar_annotation(ann.right, depth + 1)
        return False

    def _scalar_expr(self, e: ast.AST, names: set[str], attrs: set[str], depth: int = 0) -> bool:
        """Whether `e` is a Python number (or a tuple of them, a shape, a string) wherever it runs: constants, sizes
        and strides read from tensors, builtins and math on such values, and the names in `names` (locals and
        parameters known to hold them) and `self.<attrs>`."""
        if depth > 30:
            return False
        rec = lambda v: self._scalar_expr(v, names, attrs, depth + 1)  # noqa: E731
        if isinstance(e, ast.Constant):
            return True
        if isinstance(e, ast.Name):
            return e.id in names or (e.id not in self.aliases.names and e.id in self.module_values
                                     and self._constant(self.module_values[e.id]))
        if isinstance(e, ast.Attribute):
            if e.attr in ("ndim", "shape"):
                return True  # an int, a torch.Size
            return isinstance(e.value, ast.Name) and e.value.id == "self" and e.attr in attrs
        if isinstance(e, ast.Subscript):
            v = e.value
            if (isinstance(v, ast.Name) and v.id in self.grid_meta and isinstance(e.slice, ast.Constant)
                    and isinstance(e.slice.value, str)):
                return True  # meta['BLOCK'] in a launch grid: the kernel's constexprs, numbers
            return (rec(v) or (isinstance(v, ast.Call) and isinstance(v.func, ast.Attribute)
                               and v.func.attr in SCALAR_METHODS)) and rec(e.slice)
        if isinstance(e, ast.Slice):
            return all(rec(x) for x in (e.lower, e.upper, e.step) if x is not None)
        if isinstance(e, ast.Call):
            f = e.func
            args = [*e.args, *(k.value for k in e.keywords)]
            if isinstance(f, ast.Attribute) and f.attr in SCALAR_METHODS and not isinstance(f.value, ast.Constant):
                return _root(f.value) not in self.aliases.names and all(rec(a) for a in args)
            if isinstance(f, ast.Name) and f.id in ("int", "float", "bool", "len", "str"):
                return True  # a Python number (or text) whatever the argument is
            if isinstance(f, ast.Name) and f.id in ("min", "max", "abs", "round", "divmod", "sum", "pow"):
                return all(rec(a) for a in args)
            name = self.aliases.resolve(_dotted(f))
            if name.startswith("math.") or name in ("triton.cdiv", "triton.next_power_of_2"):
                return all(rec(a) for a in args)
            return False
        if isinstance(e, ast.BinOp):
            return not isinstance(e.op, ast.MatMult) and rec(e.left) and rec(e.right)
        if isinstance(e, ast.UnaryOp):
            return rec(e.operand)
        if isinstance(e, ast.BoolOp):
            return all(rec(v) for v in e.values)
        if isinstance(e, ast.Compare):
            return rec(e.left) and all(rec(c) for c in e.comparators)
        if isinstance(e, ast.IfExp):
            return rec(e.body) and rec(e.orelse) and rec(e.test)
        if isinstance(e, (ast.Tuple, ast.List)):
            return all(rec(x) for x in e.elts)
        return False

    @staticmethod
    def _bindings(fn: ast.AST) -> dict[str, list[ast.AST | None]]:
        """name -> the expressions bound to it in `fn` (None: a binding that is not a plain value: `with … as n`,
        a loop over anything but range(), a tuple unpacked from a call); AugAssign binds the BinOp it computes."""
        out: dict[str, list[ast.AST | None]] = {}

        def bind(t: ast.AST, v: ast.AST | None) -> None:
            if isinstance(t, ast.Name):
                out.setdefault(t.id, []).append(v)
            elif isinstance(t, (ast.Tuple, ast.List)):
                if isinstance(v, (ast.Tuple, ast.List)) and len(v.elts) == len(t.elts) and not any(
                        isinstance(x, ast.Starred) for x in [*t.elts, *v.elts]):
                    for a, b in zip(t.elts, v.elts):
                        bind(a, b)
                else:  # a, b = x.shape: each element is a number if the whole is a shape or a tuple of numbers
                    for a in t.elts:
                        bind(a.value if isinstance(a, ast.Starred) else a,
                             ast.Subscript(value=v, slice=ast.Constant(0)) if v is not None else None)
            else:
                for n in ast.walk(t):
                    if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                        out.setdefault(n.id, []).append(None)

        for sub in ast.walk(fn):
            if isinstance(sub, ast.Assign):
                for t in sub.targets:
                    bind(t, sub.value)
            elif isinstance(sub, ast.AnnAssign) and sub.value is not None:
                bind(sub.target, sub.value)
            elif isinstance(sub, ast.AugAssign):
                bind(sub.target, ast.BinOp(left=sub.target, op=sub.op, right=sub.value))
            elif isinstance(sub, ast.NamedExpr):
                bind(sub.target, sub.value)
            elif isinstance(sub, (ast.For, ast.comprehension)):
                it = sub.iter
                ok = isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range"
                bind(sub.target, ast.Call(func=ast.Name(id="int", ctx=ast.Load()), args=[], keywords=[]) if ok
                     else None)
            elif isinstance(sub, ast.withitem) and sub.optional_vars is not None:
                bind(sub.optional_vars, None)
            elif isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and sub is not fn:
                out.setdefault(sub.name, []).append(None)
        return out

    def _scalar_locals(self, fn: ast.AST, params: set[str], attrs: set[str]) -> set[str]:
        """Parameters in `params` and the locals of `fn` whose every binding is a Python number (largest fixed point:
        `n = n + 1` keeps n a number)."""
        bindings = self._bindings(fn)
        args = fn.args if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) else None
        all_params = {a.arg for a in (args.posonlyargs + args.args + args.kwonlyargs)} if args else set()
        if args:
            all_params |= {a.arg for a in (args.vararg, args.kwarg) if a}
        names = (set(bindings) - all_params) | (params & all_params)
        names = {n for n in names if n not in all_params or n in params}
        while True:
            drop = {n for n in names for v in bindings.get(n, [])
                    if v is None or not self._scalar_expr(v, names, attrs)}
            if not drop:
                return names
            names -= drop

    def scalar_params(self, cls: ast.ClassDef, path: list[ast.AST]) -> dict[int, set[str]]:
        """For each forward-path function, its parameters that hold Python numbers: annotated as int/float/…,
        ModelNew.forward's positions where the problem's get_inputs() returns a number, and a helper's parameter that
        every call in the file passes a number (the helper named nowhere else: not stored, not passed as a value)."""
        fns = [fn for fn in path if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef))]
        # launch grids: kernel[lambda meta: …] or kernel[grid] with grid a lambda or a def of the same file
        grids = {node.slice.id for node in ast.walk(self.tree) if isinstance(node, ast.Subscript)
                 and isinstance(node.value, ast.Name) and node.value.id in self.kernels
                 and isinstance(node.slice, ast.Name)}
        for node in ast.walk(self.tree):
            g = None
            if (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id in self.kernels
                    and isinstance(node.slice, ast.Lambda)):
                g = node.slice
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in grids:
                g = node
            elif (isinstance(node, ast.Assign) and isinstance(node.value, ast.Lambda)
                  and any(isinstance(t, ast.Name) and t.id in grids for t in node.targets)):
                g = node.value
            if g is not None and g.args.args:
                self.grid_meta.add(g.args.args[0].arg)
        parents: dict[int, ast.AST] = {}
        for node in ast.walk(self.tree):
            for child in ast.iter_child_nodes(node):
                parents[id(child)] = node
        owner: dict[int, ast.ClassDef] = {id(n): c for c in self.classes.values() for n in c.body}
        # self.<attr> assigned only Python numbers, in any method of any candidate class
        attr_values: dict[str, list[tuple[ast.AST, ast.AST]]] = {}
        for c in self.classes.values():
            for m in c.body:
                if isinstance(m, (ast.Assign, ast.AnnAssign)) and m.value is not None:  # BLOCK = 256 in the class
                    for t in (m.targets if isinstance(m, ast.Assign) else [m.target]):
                        if isinstance(t, ast.Name):
                            attr_values.setdefault(t.id, []).append((c, m.value))
                if not isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    continue
                for sub in ast.walk(m):
                    if isinstance(sub, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and sub.value is not None:
                        for t in (sub.targets if isinstance(sub, ast.Assign) else [sub.target]):
                            for n in ast.walk(t):
                                if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Store):
                                    v = sub.value if t is n else None
                                    if isinstance(sub, ast.AugAssign):
                                        v = ast.BinOp(left=ast.Attribute(value=n.value, attr=n.attr, ctx=ast.Load()),
                                                      op=sub.op, right=sub.value)
                                    attr_values.setdefault(n.attr, []).append((m, v))

        def annotated(fn: ast.AST) -> set[str]:
            a = fn.args
            return {p.arg for p in a.posonlyargs + a.args + a.kwonlyargs if self._scalar_annotation(p.annotation)}

        def positional(fn: ast.AST) -> list[str]:
            names = [p.arg for p in fn.args.posonlyargs + fn.args.args]
            static = any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in fn.decorator_list)
            return names[1:] if names and id(fn) in owner and not static else names  # self, cls

        # where each function is called by name, or None when it is also named some other way
        calls: dict[int, list[tuple[ast.AST, ast.Call]] | None] = {}
        enclosing: dict[int, ast.AST] = {}
        for f in [*self.functions.values(), *(n for c in self.classes.values() for n in c.body)]:
            if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for sub in ast.walk(f):
                    enclosing.setdefault(id(sub), f)
        forward = {id(n) for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "forward"}
        for fn in fns:
            is_method = id(fn) in owner
            if (id(fn) in forward or any(not self._plain_decorator(d) or (isinstance(d, ast.Name) and d.id == "property")
                                         for d in fn.decorator_list) or fn.name.startswith("__")
                    or (not is_method and self.functions.get(fn.name) is not fn)
                    or (is_method and sum(isinstance(n, ast.FunctionDef) and n.name == fn.name
                                          for c in self.classes.values() for n in c.body) != 1)):
                calls[id(fn)] = None
                continue
            sites: list[tuple[ast.AST, ast.Call]] | None = []
            for node in ast.walk(self.tree):
                named = ((not is_method and isinstance(node, ast.Name) and node.id == fn.name)
                         or (is_method and isinstance(node, ast.Attribute) and node.attr == fn.name))
                if not named:
                    continue
                call = parents.get(id(node))
                caller = enclosing.get(id(node))
                if (not isinstance(call, ast.Call) or call.func is not node or caller is None
                        or any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords)):
                    sites = None
                    break
                sites.append((caller, call))
            calls[id(fn)] = sites or None

        known = self.forward_scalar_positions
        problem_scalars = {p for n in cls.body if id(n) in forward
                           for i, p in enumerate(positional(n)) if known is not None and i in known}
        methods = [m for c in self.classes.values() for m in c.body if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))]
        # every function whose locals matter: the forward path, the callers of its helpers, the methods that set attrs
        everything = list({id(x): x for x in [*fns, *methods, *(caller for sites in calls.values() if sites
                                                                 for caller, _ in sites)]}.values())
        facts: dict[int, set[str]] = {}
        for fn in everything:
            a = fn.args
            allp = {p.arg for p in a.posonlyargs + a.args + a.kwonlyargs}
            if id(fn) in forward:  # the problem's inputs where it writes them out, else forward's annotations
                facts[id(fn)] = problem_scalars if known is not None else annotated(fn)
            else:  # optimistic for a helper called by name: dropped below where a call passes anything else
                facts[id(fn)] = annotated(fn) | (allp if calls.get(id(fn)) else set())
        attrs = set(attr_values)
        for _ in range(20):
            local = {id(fn): self._scalar_locals(fn, facts[id(fn)], attrs) for fn in everything}
            new_attrs = {k for k, vs in attr_values.items()
                         if all(v is not None and self._scalar_expr(v, local.get(id(m), set()), attrs) for m, v in vs)}
            new = {}
            for fn in everything:
                keep = set(facts[id(fn)])
                sites = calls.get(id(fn))
                if sites:
                    pos = positional(fn)
                    defaults = dict(zip(pos[len(pos) - len(fn.args.defaults):], fn.args.defaults))
                    defaults.update({p.arg: d for p, d in zip(fn.args.kwonlyargs, fn.args.kw_defaults) if d is not None})
                    for p in list(keep):
                        for caller, call in sites:
                            given = [a for i, a in enumerate(call.args) if i < len(pos) and pos[i] == p]
                            given += [k.value for k in call.keywords if k.arg == p]
                            value = given[0] if given else defaults.get(p)
                            c = caller.args
                            caller_params = {a.arg for a in c.posonlyargs + c.args + c.kwonlyargs} - {"self"}
                            if p in annotated(fn):  # an annotation is believed unless a possible tensor is passed
                                lie = (isinstance(value, ast.Name) and value.id in caller_params
                                       and value.id not in facts.get(id(caller), set()))
                            else:
                                lie = value is None or not self._scalar_expr(value, local[id(caller)], new_attrs)
                            if lie:
                                keep.discard(p)
                                break
                new[id(fn)] = keep
            if new == facts and new_attrs == attrs:
                break
            facts, attrs = new, new_attrs
        return facts

    def _own_instance_attr(self, attr: str) -> bool:
        """Whether every assignment of `self.<attr>` (in any class of the candidate) is an instance of one of the
        candidate's own classes (self.act = TritonGELU()): calling it runs that class's forward or __call__, which is
        on the forward path and checked, not a torch module."""
        values = [sub.value for c in self.classes.values() for sub in ast.walk(c)
                  if isinstance(sub, (ast.Assign, ast.AnnAssign)) and sub.value is not None
                  and any(isinstance(t, ast.Attribute) and t.attr == attr and isinstance(t.value, ast.Name)
                          and t.value.id == "self" for t in (sub.targets if isinstance(sub, ast.Assign) else [sub.target]))]
        return bool(values) and all(isinstance(v, ast.Call) and isinstance(v.func, ast.Name) and v.func.id in self.classes
                                    and self._plain_module_class(self.classes[v.func.id]) for v in values)

    def _plain_module_class(self, c: ast.ClassDef, depth: int = 0) -> bool:
        """A class of the candidate built on nn.Module (or object) alone: `class Act(nn.ReLU): pass` would run torch's
        forward, which no rule reads."""
        if depth > 10:
            return False
        for b in c.bases:
            name = self.aliases.resolve(_dotted(b))
            if isinstance(b, ast.Name) and b.id in self.classes:
                if not self._plain_module_class(self.classes[b.id], depth + 1):
                    return False
            elif name not in ("torch.nn.Module", "torch.nn.modules.module.Module", "object"):
                return False
        return True

    def _run_methods(self, c: ast.ClassDef) -> list[ast.AST]:
        """The methods of a class forward names that may run there: all of them, but an autograd.Function's backward
        (and jvp/vjp), which autograd runs only when a gradient is asked for (a `.backward` named on the forward path
        puts it there by name)."""
        skip = AUTOGRAD_ONLY if c.name in self.autograd_classes else set()
        return [n for n in c.body if isinstance(n, ast.FunctionDef) and n.name not in skip]

    def check_forward(self, cls: ast.ClassDef) -> None:
        methods = {n.name for c in [cls] + [self.classes[b.id] for b in cls.bases
                                             if isinstance(b, ast.Name) and b.id in self.classes]
                   for n in c.body if isinstance(n, ast.FunctionDef)}
        path = self.forward_path(cls)
        scalars = self.scalar_params(cls, path)
        for fn in path:
            assert isinstance(fn, ast.FunctionDef)
            params = {a.arg for a in fn.args.args + fn.args.kwonlyargs} - {"self"}
            # arithmetic on a parameter that holds a Python number (an int from get_inputs, a helper's block size) is
            # host arithmetic, not torch compute; the runtime log still sees any ATen op it would run
            maybe_tensors = params - scalars.get(id(fn), set())
            local_names = params | {t.id for sub in ast.walk(fn) if isinstance(sub, (ast.Assign, ast.For, ast.With))
                                    for t in ast.walk(sub) if isinstance(t, ast.Name) and isinstance(t.ctx, ast.Store)}
            held = self._held_names(fn, params, local_names)
            self._check_closure_state(fn)
            for sub in ast.walk(fn):
                if isinstance(sub, ast.Call):
                    self._check_forward_call(sub, methods, local_names, held)
                elif isinstance(sub, ast.BinOp):
                    if isinstance(sub.op, ast.MatMult):
                        self.add("torch-compute", "the '@' operator runs torch matmul in forward", sub)
                    elif any(isinstance(s, ast.Name) and s.id in maybe_tensors for s in (sub.left, sub.right)):
                        self.add("torch-compute", "arithmetic on an input tensor in forward runs torch, "
                                 "not Triton", sub)
                elif (isinstance(sub, ast.AugAssign) and isinstance(sub.target, ast.Name)
                      and sub.target.id in maybe_tensors):
                    self.add("torch-compute", "in-place arithmetic on an input tensor runs torch", sub)
                elif isinstance(sub, ast.UnaryOp) and isinstance(sub.op, ast.USub) and isinstance(sub.operand, ast.Name) \
                        and sub.operand.id in maybe_tensors:
                    self.add("torch-compute", "negating an input tensor runs torch", sub)
                elif isinstance(sub, ast.Attribute):
                    if sub.attr in MODE_ATTRS and isinstance(sub.ctx, ast.Load):
                        self.add("mode-dependent", f"forward reads '.{sub.attr}': behaviour must not depend on "
                                 "training/grad mode or device", sub)
                    elif sub.attr == "type" and isinstance(sub.value, ast.Attribute) and sub.value.attr == "device":
                        self.add("mode-dependent", "forward branches on the device type", sub)
                if isinstance(sub, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
                    targets = sub.targets if isinstance(sub, ast.Assign) else [sub.target]
                    for t in targets:
                        if isinstance(t, (ast.Attribute, ast.Subscript)):
                            root = _root(t)
                            if root == "self" or (root and root not in local_names):
                                self.add("state-in-forward", f"forward stores into '{ast.unparse(t)}': state kept "
                                         "across calls (caching, memoization) is not allowed", sub)
                            elif root in held:
                                self.add("state-in-forward", f"forward stores into '{ast.unparse(t)}', and '{root}' "
                                         "is not an object forward made (an argument, self or a module-level object, "
                                         "under another name): state kept across calls is not allowed", sub)
            for dec in fn.decorator_list:
                if not self._plain_decorator(dec):
                    self.add("state-in-forward", f"decorator '{ast.unparse(dec)}' on a forward-path function "
                             "is not allowed (staticmethod, classmethod, property and torch.no_grad() are)", dec)

    def _plain_decorator(self, dec: ast.AST) -> bool:
        """staticmethod, classmethod, property (and a property's .setter) and torch.no_grad(): they keep no state
        and run nothing of their own (the builtins' names not rebound by the candidate)."""
        if isinstance(dec, ast.Name):
            return dec.id in ("staticmethod", "classmethod", "property") and not (
                dec.id in self.functions or dec.id in self.classes or dec.id in self.module_names
                or dec.id in self.aliases.names)
        if isinstance(dec, ast.Attribute) and dec.attr in ("setter", "getter", "deleter"):
            return isinstance(dec.value, ast.Name)
        return (isinstance(dec, ast.Call) and not dec.args and not dec.keywords
                and self.aliases.resolve(_dotted(dec.func)) == "torch.no_grad")

    def _held_names(self, fn: ast.FunctionDef, params: set[str], local_names: set[str]) -> set[str]:
        """Names in a forward-path function that may refer to objects outliving the call: its parameters (self, an
        argument: a helper may be handed self or a module-level list), and locals bound to what such a name or a
        module-level object reaches (`me = self`, `box = _CALLS`, `for m in self.parts`, `c = self.cfg`). Storing into
        one, or mutating it, keeps state across calls as surely as `self.calls += 1` does."""
        import builtins

        held = set(params) | {a.arg for a in fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs} | {"self"}
        held |= {a.arg for a in (fn.args.vararg, fn.args.kwarg) if a}

        def outer(e: ast.AST) -> bool:
            names = [e] if not isinstance(e, (ast.Tuple, ast.List)) else list(e.elts)
            for x in names:
                if (isinstance(x, ast.Call) and isinstance(x.func, ast.Attribute)
                        and x.func.attr in ("new_empty", "new_zeros", "new_ones", "new_full", "new_empty_strided",
                                            "clone", "new_tensor")):
                    continue  # x.new_zeros(...), w.clone(): a tensor forward made, not the one it was called on
                if isinstance(x, (ast.IfExp, ast.BoolOp, ast.NamedExpr)):
                    if any(outer(v) for v in ast.iter_child_nodes(x)):
                        return True
                    continue
                r = _root(x)
                if r is None:
                    if isinstance(x, (ast.Subscript, ast.Attribute, ast.Starred)):
                        return outer(x.value)  # (self,)[0], [_CALLS][0]
                    continue
                if r in held or (r not in local_names and r not in self.aliases.names and not hasattr(builtins, r)):
                    return True
            return False

        for _ in range(4):
            for sub in ast.walk(fn):
                pairs = []
                if isinstance(sub, ast.Assign):
                    pairs = [(t, sub.value) for t in sub.targets]
                elif isinstance(sub, (ast.AnnAssign, ast.NamedExpr)) and sub.value is not None:
                    pairs = [(sub.target, sub.value)]
                elif isinstance(sub, (ast.For, ast.comprehension)):
                    pairs = [(sub.target, sub.iter)]
                elif isinstance(sub, ast.withitem) and sub.optional_vars is not None:
                    pairs = [(sub.optional_vars, sub.context_expr)]
                for target, value in pairs:
                    if outer(value):
                        held |= _bound_names(target)
        return held

    def _check_closure_state(self, fn: ast.FunctionDef) -> None:
        """A function defined inside another that changes the enclosing function's variables (seen.append(1),
        box[0] += 1) keeps state across calls in a closure: a call counter that stayed right for the verifier's calls."""
        def stored(f: ast.AST) -> set[str]:
            args = f.args if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) else None
            names = {a.arg for a in (args.posonlyargs + args.args + args.kwonlyargs)} if args else set()
            names |= {a.arg for a in (args.vararg, args.kwarg) if a} if args else set()
            return names | {t.id for t in ast.walk(f) if isinstance(t, ast.Name) and isinstance(t.ctx, ast.Store)}

        outer = stored(fn)
        # only a function that outlives the call of its enclosing one keeps state: one returned (a factory), not a
        # helper forward defines and calls on its own fresh variables
        escaped = {id(n) for r in ast.walk(fn) if isinstance(r, ast.Return) and r.value is not None
                   for n in ast.walk(r.value) if isinstance(n, ast.Lambda)}
        returned = {n.id for r in ast.walk(fn) if isinstance(r, ast.Return) and r.value is not None
                    for n in ast.walk(r.value) if isinstance(n, ast.Name)}
        for g in ast.walk(fn):
            if g is fn or not isinstance(g, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                continue
            if id(g) not in escaped and getattr(g, "name", None) not in returned:
                continue
            free = outer - stored(g)
            for sub in ast.walk(g):
                target = None
                if isinstance(sub, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
                    for t in (sub.targets if isinstance(sub, ast.Assign) else [sub.target]):
                        if isinstance(t, (ast.Attribute, ast.Subscript)) and _root(t) in free:
                            target = t
                elif (isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute)
                      and sub.func.attr in MUTATING_METHODS and _root(sub.func.value) in free):
                    target = sub.func.value
                if target is not None:
                    self.add("state-in-forward", f"'{ast.unparse(target)}' is a variable of the enclosing function, "
                             "changed by a function defined inside it: state kept across calls in a closure", sub)

    def check_defaults(self) -> None:
        """No mutable default argument on any function or lambda of the file: a heuristics function's
        `_c=itertools.count()` or `_c=triton.Config({})` counted launches where the forward-path rules did not look
        (red-teaming, 2026-12-06). Defaults are numbers, strings, names and attributes. `__init__` may take an
        object default (`config: TileConfig = TileConfig()`): it runs once per construction, not per call."""
        for fn in ast.walk(self.tree):
            if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) and fn.name == "__init__":
                continue
            if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                for default in fn.args.defaults + [d for d in fn.args.kw_defaults if d is not None]:
                    if isinstance(default, (ast.Dict, ast.List, ast.Set, ast.Call, ast.ListComp, ast.DictComp,
                                            ast.SetComp, ast.GeneratorExp)):
                        self.add("state-in-forward", "a mutable default argument keeps state across calls (a "
                                 "counter in a list, an iterator, an object); defaults are plain values", default)

    def check_device_probes(self) -> None:
        """Device probes anywhere in the file, not only on the forward path: `self.fast = torch.cuda.is_available()` in
        __init__ and a heuristics lambda reading `args["x_ptr"].is_cuda` chose a half-work kernel only on a GPU
        (red-teaming, 2026-12-06). Construction and Triton's decorators run on the user's machine as forward does."""
        self._check_device_probes(self.tree)
        for sub in ast.walk(self.tree):
            if isinstance(sub, ast.Attribute) and sub.attr in DEVICE_ATTRS and isinstance(sub.ctx, ast.Load):
                self.add("mode-dependent", f"the candidate reads '.{sub.attr}': behaviour must not depend on the "
                         "device", sub)

    def _check_device_probes(self, fn: ast.AST) -> None:
        """The candidate may pass a device along (device=x.device, .to(x.device)), not look at it: a candidate verified
        on a CPU that branches on the device runs other code on the user's GPU. '.is_cuda' and '.device.type' were
        refused (MODE_ATTRS), but x.get_device() < 0, x.device.index is None, x.device == torch.device('cpu'),
        'cpu' in str(x.device) and torch.cuda.is_available() told the same."""
        def is_device(e: ast.AST) -> bool:
            return ((isinstance(e, ast.Attribute) and e.attr == "device")
                    or (isinstance(e, ast.Name) and e.id in device_names))

        def is_device_literal(e: ast.AST) -> bool:
            return (isinstance(e, ast.Call) and self.aliases.resolve(_dotted(e.func)) == "torch.device"
                    and any(isinstance(a, ast.Constant) and isinstance(a.value, (str, int)) for a in e.args))

        device_names: set[str] = set()
        for _ in range(2):  # d = x.device; e = d
            for sub in ast.walk(fn):
                if isinstance(sub, ast.Assign) and is_device(sub.value):
                    device_names |= {t.id for t in sub.targets if isinstance(t, ast.Name)}
        for sub in ast.walk(fn):
            probe = None
            if isinstance(sub, ast.Call):
                name = self.aliases.resolve(_dotted(sub.func))
                if isinstance(sub.func, ast.Attribute) and sub.func.attr == "get_device":
                    probe = "x.get_device()"
                elif name.startswith("torch.cuda.") and name.split(".")[2] not in CUDA_ALLOWED:
                    probe = name  # an allow-list: is_bf16_supported, is_tf32_supported... told a GPU too
                elif isinstance(sub.func, ast.Name) and sub.func.id in ("str", "repr", "format") and any(
                        is_device(a) for a in sub.args):
                    probe = "the device as text"
            elif isinstance(sub, ast.Attribute) and sub.attr in ("index", "type") and is_device(sub.value):
                probe = f"'.{sub.attr}' of a device"
            elif isinstance(sub, ast.Compare) and any(is_device(e) for e in [sub.left, *sub.comparators]):
                probe = "a comparison of devices"
            elif isinstance(sub, ast.FormattedValue) and is_device(sub.value):
                probe = "the device as text"
            elif isinstance(sub, ast.Dict) and any(k is not None and (is_device(k) or is_device_literal(k))
                                                   for k in sub.keys):
                probe = "a device as a dict key"  # {torch.device("cpu"): 0}.get(x.device, 1)
            elif isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute) and \
                    sub.func.attr in ("get", "index", "count", "setdefault", "pop", "__contains__") and \
                    any(is_device(a) for a in sub.args):
                probe = f"a lookup by device ('.{sub.func.attr}')"
            elif isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name) and sub.func.id in ("hash", "id") and \
                    any(is_device(a) for a in sub.args):
                probe = f"{sub.func.id}() of a device"
            elif hasattr(ast, "Match") and isinstance(sub, getattr(ast, "Match")) and any(
                    is_device(e) for e in ast.walk(sub.subject)):
                probe = "a match on the device"
            elif is_device_literal(sub):
                probe = "a device named in the code"  # torch.device("cuda"): only to compare or look up with
            if probe:
                self.add("mode-dependent", f"the candidate looks at the device ({probe}): behaviour must not depend on "
                         "the device (pass x.device along to allocations, do not test it)", sub)

    def _check_forward_call(self, call: ast.Call, methods: set[str], local_names: set[str],
                            held: set[str] = frozenset()) -> None:
        f = call.func
        name = self.aliases.resolve(_dotted(f))
        parts = name.split(".") if name else []
        if isinstance(f, ast.Name) and f.id == "next" and f.id not in self.functions and call.args:
            root = _root(call.args[0])
            # next(_calls) on an iterator made once (iter(range(10**9)) at module level, kept on self, or reached
            # through another name) counts the calls: right for as many as the verifier makes, then less work
            if root and (root == "self" or root in held or root not in local_names):
                self.add("state-in-forward", f"'{ast.unparse(call)}' advances an iterator that outlives the call: "
                         "its position is a call counter (state kept across calls)", call)
                return
        if parts and parts[-1] in MODE_CALLS:
            self.add("mode-dependent", f"forward calls '{name}': behaviour must not depend on grad mode", call)
            return
        if parts and parts[0] == "torch":
            if parts[1:2] == ["cuda"]:
                if len(parts) > 2 and parts[2] not in TORCH_CUDA_OK:
                    self.add("torch-compute", f"'{name}' in forward", call)
            elif parts[1:3] == ["nn", "functional"] or parts[1] in ("special", "linalg", "fft", "sparse", "nested"):
                self.add("torch-compute", f"'{name}' runs torch compute in forward", call)
            elif parts[1:2] == ["nn"]:
                if len(parts) > 2 and parts[2] not in ("Parameter", "Buffer"):
                    self.add("torch-compute", f"'{name}' builds a torch module in forward", call)
            elif len(parts) == 2 and parts[1] not in TORCH_ALLOC:
                self.add("torch-compute", f"'torch.{parts[1]}' runs torch compute in forward "
                         "(torch may only allocate, describe shapes and view memory)", call)
            return
        if parts and parts[0] in ("triton", "math", "typing"):
            return
        if isinstance(f, ast.Attribute):
            meth = f.attr
            if isinstance(f.value, ast.Name) and f.value.id == "self":
                if meth not in methods and not self._own_instance_attr(meth):
                    self.add("torch-compute", f"forward calls submodule 'self.{meth}': torch computes it, "
                             "not a Triton kernel", call)
                return
            if meth in TENSOR_COMPUTE or (meth.endswith("_") and meth[:-1] in TENSOR_COMPUTE):
                self.add("torch-compute", f"tensor method '.{meth}()' runs torch compute in forward", call)
            elif meth in MUTATING_METHODS:
                root = _root(f.value)
                if root == "self" or root in held or (root and root not in local_names and root in self.module_names):
                    self.add("state-in-forward", f"forward mutates '{ast.unparse(f.value)}' (state kept across "
                             "calls is not allowed)", call)

    def _check_kernel_node(self, kernel: str, sub: ast.AST, params: dict[str, ast.arg]) -> None:
        """Kernel code is Triton: it calls triton.language, other @triton.jit functions, functions passed in as
        arguments (checked at launch) and a few builtins on constants. Under the interpreter anything else runs as
        plain Python on the kernel's values (`str(x)` prints them), which a compiled kernel could not do."""
        if isinstance(sub, ast.Call):
            f = sub.func
            if not isinstance(f, (ast.Name, ast.Attribute)):
                # [str][0](x), (lambda: f)()(x), d['k'](x): a callee the rules below cannot name (under the
                # interpreter it could be any Python function, run on the kernel's values)
                self.add("forbidden-call", f"kernel '{kernel}' calls '{ast.unparse(f)}': kernel code calls functions "
                         "by name (triton.language, @triton.jit functions, its arguments)", sub)
                return
            if self.aliases.resolve(_dotted(f)).startswith("math.") and not all(
                    self._constant(a, params) for a in [*sub.args, *(k.value for k in sub.keywords)]):
                # math.ldexp(q, -20) on a value the kernel loaded: the interpreter hands math a Python number (through
                # __index__) and the work runs in plain Python; a compiled kernel cannot call math on its values
                self.add("forbidden-call", f"kernel '{kernel}' calls '{ast.unparse(f)}' on a runtime value: math.* in "
                         "kernel code is for constants (use tl.math / libdevice on values)", sub)
                return
            if isinstance(f, ast.Name):
                if f.id in self.kernels or f.id in params or f.id in KERNEL_BUILTINS:
                    return
                if f.id in ("int", "float", "bool") and all(isinstance(a, ast.Constant) or (
                        isinstance(a, ast.Name) and a.id in params) for a in sub.args):
                    return
                self.add("forbidden-call", f"kernel '{kernel}' calls '{f.id}': a kernel may call only triton.language, "
                         "@triton.jit functions and range/min/max (the interpreter would run it as plain Python)", sub)
            elif isinstance(f, ast.Attribute):
                root = _root(f)
                if isinstance(f.value, ast.Constant) or (root and root not in self.aliases.names and root not in params
                                                         and (root in self.functions or root in self.classes
                                                              or root in self.module_names)):
                    self.add("forbidden-call", f"kernel '{kernel}' calls '{ast.unparse(f)}', which is not Triton", sub)
        elif isinstance(sub, ast.FormattedValue) or (isinstance(sub, ast.BinOp) and isinstance(sub.op, ast.Mod)
                                                     and isinstance(sub.left, ast.Constant)
                                                     and isinstance(sub.left.value, str)):
            self.add("forbidden-call", f"kernel '{kernel}' formats its values into a string (plain Python)", sub)

    def _constant(self, v: ast.AST, params: dict[str, ast.arg] | None = None, depth: int = 0) -> bool:
        """A value known when the kernel is compiled: a constant, tl.constexpr(constant), tl.float32, math.log(2), a
        module-level name bound to such a value, a tl.constexpr parameter of the kernel (`params`), arithmetic and
        math.* of them."""
        if depth > 20:
            return False
        if isinstance(v, ast.Name) and params and v.id in params:
            ann = params[v.id].annotation
            return ann is not None and self.aliases.resolve(_dotted(ann)).endswith("constexpr")
        if isinstance(v, ast.Constant):
            return True
        if isinstance(v, ast.Name) and v.id in self.module_values and v.id not in self.aliases.names:
            return self._constant(self.module_values[v.id], None, depth + 1)
        if isinstance(v, (ast.Attribute, ast.Name)):
            return bool(self._imported(v)) and self._imported(v).split(".")[0] in ("triton", "math")
        if isinstance(v, ast.UnaryOp):
            return self._constant(v.operand, params, depth + 1)
        if isinstance(v, ast.BinOp):
            return self._constant(v.left, params, depth + 1) and self._constant(v.right, params, depth + 1)
        if isinstance(v, ast.Call):
            f = self.aliases.resolve(_dotted(v.func))
            builtin = (isinstance(v.func, ast.Name) and v.func.id in ("float", "int", "bool")
                       and v.func.id not in self.functions and v.func.id not in self.classes
                       and v.func.id not in self.module_names and v.func.id not in self.aliases.names)
            return ((f in ("triton.language.constexpr", "triton.language.core.constexpr") or f.startswith("math.")
                     or builtin)  # NEG_INF = float("-inf")
                    and all(self._constant(a, params, depth + 1) for a in v.args) and not v.keywords)
        return False

    def check_kernel_objects(self) -> None:
        """A kernel object is launched (k[grid](...)), called from kernel code, or handed to triton's decorators; its
        attributes and its text (str, repr, f-strings, comparisons) tell Triton's interpreter (the CPU verifier) from a
        compiled GPU run, and reach Triton's internals (k.fn, k.cache, k.run)."""
        parents: dict[int, ast.AST] = {}
        for node in ast.walk(self.tree):
            for child in ast.iter_child_nodes(node):
                parents[id(child)] = node
        for node in ast.walk(self.tree):
            if not (isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in self.kernels):
                continue
            parent = parents.get(id(node))
            if isinstance(parent, ast.Attribute):
                self.add("reflection", f"'{ast.unparse(parent)}': a kernel object's attributes are Triton's internals "
                         "(and tell the interpreter from a GPU); a kernel is launched as kernel[grid](...)", parent)
            elif isinstance(parent, (ast.Compare, ast.FormattedValue)) or (
                    isinstance(parent, ast.Call) and node in parent.args and isinstance(parent.func, ast.Name)
                    and parent.func.id in ("str", "repr", "format", "print", "isinstance")):
                self.add("reflection", f"'{ast.unparse(parent)}' inspects the kernel object (its type tells Triton's "
                         "interpreter from a GPU); a kernel is launched as kernel[grid](...)", parent)

    def check_kernels(self) -> None:
        for name, fn in self.kernel_defs.items():
            params = {a.arg: a for a in fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs}
            for d in [*fn.args.defaults, *(d for d in fn.args.kw_defaults if d is not None)]:
                if not self._constant(d):
                    # FMT=str as a default is never passed at launch, so the launch log never sees it
                    self.add("forbidden-call", f"kernel '{name}' has the default '{ast.unparse(d)}': a kernel "
                             "parameter's default must be a constant", d)
            # the kernel's parameters and body: its decorators (@triton.autotune(configs=_CONFIGS), heuristics) are
            # host code that runs at launch, under the rules for the rest of the file and the launch log
            nodes = [n for part in [fn.args, *fn.body] for n in ast.walk(part)]
            for sub in nodes:
                self._check_kernel_node(name, sub, params)
            for sub in nodes:
                if (isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Load) and sub.id not in params
                        and sub.id not in self.kernels and sub.id not in self.aliases.names
                        and (sub.id in self.classes or sub.id in self.functions
                             or (sub.id in self.module_values and not self._constant(self.module_values[sub.id])))):
                    self.add("forbidden-call", f"kernel '{name}' uses the module-level object '{sub.id}': kernel code "
                             "reads only its arguments, constants and triton.language (the interpreter would run an "
                             "object's methods on the kernel's values as plain Python)", sub)
            for sub in nodes:
                if isinstance(sub, ast.Name) and self.aliases.resolve(sub.id).split(".")[0] == "torch":
                    self.add("torch-compute", f"kernel '{name}' uses torch inside device code", sub)
                    break


def _bound_names(target: ast.AST) -> set[str]:
    """The names an assignment target binds (a, (a, b), [a, *b]); not those a store into x[i] or x.y reads."""
    if isinstance(target, ast.Name):
        return {target.id}
    if isinstance(target, (ast.Tuple, ast.List)):
        return {n for e in target.elts for n in _bound_names(e)}
    if isinstance(target, ast.Starred):
        return _bound_names(target.value)
    return set()


def _positional_arity(fn: ast.FunctionDef | None) -> tuple[int, int, bool]:
    """(required positionals, total positionals, has *args), not counting self."""
    if fn is None:
        return 0, 0, False
    pos = fn.args.posonlyargs + fn.args.args
    n = len(pos) - 1 if pos and pos[0].arg == "self" else len(pos)
    return n - len(fn.args.defaults), n, fn.args.vararg is not None


def _class_method(tree: ast.Module, cls: str, meth: str) -> tuple[ast.ClassDef | None, ast.FunctionDef | None]:
    for node in tree.body:  # follow `Model = UserClass` (problems built from a user's file)
        if (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                and node.targets[0].id == cls and isinstance(node.value, ast.Name)):
            cls = node.value.id
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == cls:
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and item.name == meth:
                    return node, item
            return node, None
    return None, None


def _number_positions(problem: ast.Module) -> set[int] | None:
    """Positions of get_inputs()'s list that are Python numbers in every return (`[x, 0.5, factor]` with
    `factor = 3` at module level): forward receives those arguments as numbers, not tensors. None where get_inputs
    returns no list written out."""
    consts: dict[str, ast.AST] = {}
    for node in problem.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            consts[node.targets[0].id] = node.value

    def number(e: ast.AST, depth: int = 0) -> bool:
        if depth > 10:
            return False
        if isinstance(e, ast.Constant):
            return type(e.value) in (int, float, bool)
        if isinstance(e, ast.Name):
            return e.id in consts and number(consts[e.id], depth + 1)
        if isinstance(e, ast.UnaryOp):
            return number(e.operand, depth + 1)
        if isinstance(e, ast.BinOp):
            return number(e.left, depth + 1) and number(e.right, depth + 1)
        return False

    found: set[int] | None = None
    for node in problem.body:
        if isinstance(node, ast.FunctionDef) and node.name == "get_inputs":
            for r in ast.walk(node):
                if isinstance(r, ast.Return):
                    if not isinstance(r.value, (ast.List, ast.Tuple)):
                        return None
                    here = set()
                    for i, e in enumerate(r.value.elts):
                        if isinstance(e, ast.Starred):
                            break
                        if number(e):
                            here.add(i)
                    found = here if found is None else found & here
    return found


def _is_main_guard(node: ast.AST) -> bool:
    """`if __name__ == "__main__":` at module level, written exactly so."""
    if not isinstance(node, ast.If) or not isinstance(node.test, ast.Compare) or len(node.test.ops) != 1 \
            or not isinstance(node.test.ops[0], ast.Eq):
        return False
    sides = [node.test.left, node.test.comparators[0]]
    return (any(isinstance(e, ast.Name) and e.id == "__name__" for e in sides)
            and any(isinstance(e, ast.Constant) and e.value == "__main__" for e in sides))


def _without_main_block(tree: ast.Module) -> tuple[ast.Module, list[Finding]]:
    """The module without its `if __name__ == "__main__":` blocks (a self-test: timing with triton.testing, checks
    with torch.testing, prints), which never run when the candidate is imported, by the verifier or the user's code.
    `__name__` must not be rebound anywhere, or the block could run."""
    rebinds = [n for n in ast.walk(tree) if (isinstance(n, ast.Name) and n.id == "__name__"
                                            and not isinstance(n.ctx, ast.Load))
               or (isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and n.name == "__name__")
               or (isinstance(n, ast.alias) and (n.asname or n.name) == "__name__")
               or (isinstance(n, ast.arg) and n.arg == "__name__")]
    if rebinds:
        return tree, [Finding("static", "monkey-patch", "the candidate rebinds '__name__'", getattr(rebinds[0], "lineno", None))]
    body = [n for n in tree.body if not _is_main_guard(n)]
    if len(body) == len(tree.body):
        return tree, []
    return ast.Module(body=body, type_ignores=tree.type_ignores), []


def check_candidate(candidate_src: str, problem_src: str | None = None) -> list[Finding]:
    """Run the parse and static layers; return findings (empty when the candidate may run)."""
    try:
        tree = ast.parse(candidate_src)
    except SyntaxError as e:
        return [Finding("parse", "syntax-error", f"candidate does not parse: {e.msg}", e.lineno)]
    tree, rebound = _without_main_block(tree)
    if rebound:
        return rebound
    cls, _ = _class_method(tree, "ModelNew", "forward")
    if cls is None:
        return [Finding("parse", "missing-modelnew", "candidate defines no top-level class ModelNew", None)]
    out: list[Finding] = []
    ref = None
    if problem_src is not None:
        try:
            ref = ast.parse(problem_src)
        except SyntaxError:
            ref = None
        if ref is not None:
            for meth in ("__init__", "forward"):
                _, a = _class_method(ref, "Model", meth)
                _, b = _class_method(tree, "ModelNew", meth)
                ra, ta, va = _positional_arity(a)
                rb, tb, vb = _positional_arity(b)
                if b is None and meth == "forward":
                    out.append(Finding("parse", "signature-mismatch", "ModelNew has no forward method", cls.lineno))
                elif a is not None and not vb and (rb > ta or tb < ra):
                    out.append(Finding("parse", "signature-mismatch",
                                       f"ModelNew.{meth} takes {rb}..{tb} positional arguments, Model.{meth} "
                                       f"takes {ra}..{ta}", b.lineno if b else cls.lineno))
    if out:
        return out
    c = _Checker(tree)
    if problem_src is not None and ref is not None:
        c.forward_scalar_positions = _number_positions(ref)
    c.collect()
    if not c.kernels:
        c.add("no-triton-kernel", "candidate defines no @triton.jit kernel", None)
    for b in cls.bases:
        name = c.aliases.resolve(_dotted(b))
        root = _root(b)
        if root and root not in c.aliases.names and root not in c.classes and root not in c.module_names \
                and not hasattr(builtins, root):
            # `class ModelNew(nn.Module)` in a file that never imports torch.nn: say that, not "must subclass"
            c.add("undefined-name", f"ModelNew subclasses {ast.unparse(b)}, but '{root}' is never imported or "
                  "defined in the candidate (import torch.nn as nn)", cls)
        elif name not in ("torch.nn.Module", "torch.nn.modules.module.Module") and name not in c.classes:
            c.add("reference-reuse" if "Model" in name else "forbidden-call",
                  f"ModelNew must subclass nn.Module (it subclasses {ast.unparse(b)})", cls)
    c.check_imports()
    c.check_everywhere()
    c.check_library_data()
    c.check_device_probes()
    c.check_defaults()
    c.check_attribute_chains()
    c.check_module_values()
    c.check_module_level()
    c.check_names()
    c.check_forward(cls)
    c.check_kernels()
    c.check_kernel_objects()
    return c.findings
