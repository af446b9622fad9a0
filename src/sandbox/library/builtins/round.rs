//! `round(number, ndigits=None)` as CPython calls it: `ndigits` goes to the type's `__round__` as it was given
//! (RustPython converts it to an int first, so `round(obj, ['x'])` fails before `obj.__round__` can see it).

use rustpython_vm::function::FuncArgs;
use rustpython_vm::{PyObjectRef, PyResult, VirtualMachine};

pub fn round(args: FuncArgs, vm: &VirtualMachine) -> PyResult {
    let (number, ndigits) = bind(args, vm)?;
    let name = vm.ctx.names.__round__;
    if number.class().get_attr(name).is_none() {
        return Err(vm.new_type_error(format!("type {} doesn't define __round__ method", number.class().name())));
    }
    match ndigits.filter(|ndigits| !vm.is_none(ndigits)) {
        Some(ndigits) => vm.call_special_method(&number, name, (ndigits,)),
        None => vm.call_special_method(&number, name, ()),
    }
}

/// CPython's argument rules for `round`: both parameters by position or by name.
fn bind(args: FuncArgs, vm: &VirtualMachine) -> PyResult<(PyObjectRef, Option<PyObjectRef>)> {
    let FuncArgs { args: positional, kwargs } = args;
    let given = positional.len() + kwargs.len();
    if given > 2 {
        return Err(vm.new_type_error(format!("round() takes at most 2 arguments ({given} given)")));
    }
    let mut slots: [Option<PyObjectRef>; 2] = [None, None];
    let positional_count = positional.len();
    for (slot, value) in slots.iter_mut().zip(positional) {
        *slot = Some(value);
    }
    for (name, value) in kwargs {
        let index = if *name == *"number" {
            0
        } else if *name == *"ndigits" {
            1
        } else {
            return Err(vm.new_type_error(format!("round() got an unexpected keyword argument '{name}'")));
        };
        if index < positional_count {
            return Err(vm.new_type_error(format!(
                "argument for round() given by name ('{name}') and position ({})",
                index + 1
            )));
        }
        slots[index] = Some(value);
    }
    let [number, ndigits] = slots;
    let number = number.ok_or_else(|| vm.new_type_error("round() missing required argument 'number' (pos 1)"))?;
    Ok((number, ndigits))
}
