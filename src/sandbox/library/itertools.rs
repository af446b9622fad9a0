//! `itertools.compress` as CPython runs it: each step takes the next datum first and only then the next
//! selector. RustPython takes the selector first, so when the data runs out one selector too many has been
//! consumed (more-itertools counts what it consumed with `compress(it, count(1))`: `islice_extended` with a
//! negative start, and `before_and_after` lose an item), and a selector iterable that never ends with data
//! that does and false selectors never stops.

use rustpython_vm::builtins::PyType;
use rustpython_vm::protocol::{PyIter, PyIterReturn};
use rustpython_vm::types::{Constructor, IterNext, Iterable, SelfIter};
use rustpython_vm::{pyclass, FromArgs, Py, PyPayload, PyResult, Traverse, VirtualMachine};

#[pyclass(module = "itertools", name = "compress", traverse)]
#[derive(Debug, PyPayload)]
pub struct Compress {
    data: PyIter,
    selectors: PyIter,
}

#[derive(FromArgs)]
pub struct CompressArgs {
    #[pyarg(any)]
    data: PyIter,
    #[pyarg(any)]
    selectors: PyIter,
}

impl Constructor for Compress {
    type Args = CompressArgs;

    fn py_new(_cls: &Py<PyType>, CompressArgs { data, selectors }: Self::Args, _vm: &VirtualMachine) -> PyResult<Self> {
        Ok(Self { data, selectors })
    }
}

#[pyclass(with(IterNext, Iterable, Constructor), flags(BASETYPE))]
impl Compress {}

impl SelfIter for Compress {}

impl IterNext for Compress {
    fn next(zelf: &Py<Self>, vm: &VirtualMachine) -> PyResult<PyIterReturn> {
        loop {
            let datum = match zelf.data.next(vm)? {
                PyIterReturn::Return(datum) => datum,
                stop => return Ok(stop),
            };
            let selector = match zelf.selectors.next(vm)? {
                PyIterReturn::Return(selector) => selector,
                stop => return Ok(stop),
            };
            if selector.try_to_bool(vm)? {
                return Ok(PyIterReturn::Return(datum));
            }
        }
    }
}

/// Put it in `itertools` (the zygote does it once, before any code imports it).
pub fn install(vm: &VirtualMachine) -> PyResult<()> {
    use rustpython_vm::class::PyClassImpl;
    let class = Compress::make_static_type();
    vm.import("itertools", 0)?.set_attr("compress", class, vm)
}
