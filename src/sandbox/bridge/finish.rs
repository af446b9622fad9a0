//! The finish calls: `SUBMIT(...)` (dspy 3.4) and `FINAL(...)` / `FINAL_VAR(...)` (the seed protocol).
//!
//! An accepted call records the output fields and unwinds the sandbox with a private exception. If sandbox
//! code catches it, the stop request (see `limits`) raises it again before the next instruction, so nothing
//! after an accepted finish call runs, `try/except BaseException` included.

use rustpython_vm::builtins::{PyStr, PyTypeRef};
use rustpython_vm::function::FuncArgs;
use rustpython_vm::{AsObject, PyObjectRef, PyResult, VirtualMachine};

use crate::sandbox::vm::limits;
use std::cell::RefCell;

use crate::protocol::message::{Field, FinishKind};

/// The current run's finish call, on the VM thread.
#[derive(Default)]
struct Finish {
    /// The output fields the run was given (dspy's signature), if any.
    fields: Option<Vec<Field>>,
    /// The accepted finish call of the current run: its kind and the output dict (a sandbox dict).
    finish: Option<(FinishKind, PyObjectRef)>,
}

thread_local! {
    static FINISH: RefCell<Finish> = RefCell::new(Finish::default());
}

fn with_state<R>(f: impl FnOnce(&mut Finish) -> R) -> R {
    FINISH.with(|state| f(&mut state.borrow_mut()))
}

/// A run starts with these output fields and no finish call.
pub fn begin_run(fields: Option<Vec<Field>>) {
    with_state(|s| *s = Finish { fields, finish: None });
}

/// The run's accepted finish call, taken.
pub fn take_finish() -> Option<(FinishKind, PyObjectRef)> {
    with_state(|s| s.finish.take())
}

pub fn install(vm: &VirtualMachine, globals: &rustpython_vm::builtins::PyDictRef) -> PyResult<()> {
    globals.set_item("SUBMIT", vm.new_function("SUBMIT", submit).into(), vm)?;
    globals.set_item("FINAL", vm.new_function("FINAL", final_).into(), vm)?;
    globals.set_item("FINAL_VAR", vm.new_function("FINAL_VAR", final_var).into(), vm)?;
    Ok(())
}

/// The private exception that unwinds the sandbox after an accepted finish call.
pub fn new_stop_exception_type(vm: &VirtualMachine) -> PyTypeRef {
    let base = vm.ctx.exceptions.base_exception_type.to_owned();
    vm.ctx.new_exception_type("sandbox", "FinishCalled", Some(vec![base]))
}

fn submit(args: FuncArgs, vm: &VirtualMachine) -> PyResult {
    accept(FinishKind::Submit, "SUBMIT", args.args, named(args.kwargs), vm)
}

fn final_(args: FuncArgs, vm: &VirtualMachine) -> PyResult {
    accept(FinishKind::Final, "FINAL", args.args, named(args.kwargs), vm)
}

fn named(kwargs: rustpython_vm::function::KwArgs) -> Vec<(String, PyObjectRef)> {
    kwargs.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
}

/// `FINAL_VAR("a", "b", field="c")`: the values of the named globals, as FINAL would take them.
fn final_var(args: FuncArgs, vm: &VirtualMachine) -> PyResult {
    let globals = crate::sandbox::vm::namespace::globals().expect("globals exist while code runs");
    let lookup = |value: &PyObjectRef| -> PyResult<(String, PyObjectRef)> {
        let name = value.downcast_ref::<PyStr>().map(|s| s.to_string_lossy().into_owned()).ok_or_else(|| {
            vm.new_type_error(format!(
                "FINAL_VAR() takes the names of variables as strings, e.g. FINAL_VAR(\"result\"); got {}",
                value.class().name()
            ))
        })?;
        match globals.get_item_opt(name.as_str(), vm)? {
            Some(found) => Ok((name, found)),
            None => Err(vm.new_name_error(
                format!("FINAL_VAR(): name '{name}' is not defined; assign it first, or pass the value to FINAL(...)"),
                vm.ctx.new_str(name.as_str()),
            )),
        }
    };
    let has_fields = with_state(|s| s.fields.is_some());
    let mut positional = Vec::new();
    let mut keyword = Vec::new();
    for (i, value) in args.args.iter().enumerate() {
        let (name, found) = lookup(value)?;
        // Without declared fields the first variable is the answer and the others keep their names.
        if has_fields || i == 0 {
            positional.push(found);
        } else {
            keyword.push((name, found));
        }
    }
    for (field, value) in named(args.kwargs) {
        keyword.push((field, lookup(&value)?.1));
    }
    accept(FinishKind::Final, "FINAL_VAR", positional, keyword, vm)
}

fn field_list(fields: &[Field]) -> String {
    fields
        .iter()
        .map(|f| match &f.declared_type {
            Some(t) => format!("{} ({t})", f.name),
            None => f.name.clone(),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Names as CPython lists them in an arity error: `'a'`, `'a' and 'b'`, `'a', 'b' and 'c'`.
fn quoted_names(names: &[&str]) -> String {
    let quoted: Vec<String> = names.iter().map(|name| format!("'{name}'")).collect();
    match quoted.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => quoted.concat(),
    }
}

fn call_hint(func: &str, fields: &[Field]) -> String {
    let args: Vec<String> = fields.iter().map(|f| format!("{}=...", f.name)).collect();
    format!("{func}({})", args.join(", "))
}

/// Check the values against the declared fields and, if they fit, record them and stop the run.
fn accept(
    kind: FinishKind,
    func: &str,
    positional: Vec<PyObjectRef>,
    keyword: Vec<(String, PyObjectRef)>,
    vm: &VirtualMachine,
) -> PyResult {
    let fields = with_state(|s| s.fields.clone());
    let output = vm.ctx.new_dict();
    match fields {
        None => {
            let default = if kind == FinishKind::Submit { "output" } else { "answer" };
            if positional.len() > 1 {
                return Err(vm.new_type_error(format!(
                    "{func}() takes one positional value when no output fields are declared, got {}; \
                     pass a single value, or name each value: {func}(name=value, ...)",
                    positional.len()
                )));
            }
            if positional.is_empty() && keyword.is_empty() {
                return Err(vm.new_type_error(format!("{func}() needs a value: {func}(value) or {func}(name=value)")));
            }
            if let Some(value) = positional.into_iter().next() {
                output.set_item(default, value, vm)?;
            }
            for (name, value) in keyword {
                output.set_item(name.as_str(), value, vm)?;
            }
        }
        Some(fields) => {
            if positional.len() > fields.len() {
                return Err(vm.new_type_error(format!(
                    "{func}() got {} positional values but there are {} output fields: {}",
                    positional.len(),
                    fields.len(),
                    field_list(&fields)
                )));
            }
            for (field, value) in fields.iter().zip(positional) {
                output.set_item(field.name.as_str(), value, vm)?;
            }
            for (name, value) in keyword {
                if !fields.iter().any(|f| f.name == name) {
                    return Err(vm.new_type_error(format!(
                        "{func}() got an unexpected output field '{name}'; the output fields are: {}",
                        field_list(&fields)
                    )));
                }
                if output.get_item_opt(name.as_str(), vm)?.is_some() {
                    return Err(vm.new_type_error(format!("{func}() got two values for output field '{name}'")));
                }
                output.set_item(name.as_str(), value, vm)?;
            }
            let missing: Vec<&str> =
                fields.iter().filter(|f| !output.contains_key(f.name.as_str(), vm)).map(|f| f.name.as_str()).collect();
            if !missing.is_empty() {
                // CPython's arity wording (dspy's SUBMIT is a Python function), then how to call it.
                return Err(vm.new_type_error(format!(
                    "{func}() missing {} required positional argument{}: {}; call {} with every output field: {}",
                    missing.len(),
                    if missing.len() > 1 { "s" } else { "" },
                    quoted_names(&missing),
                    call_hint(func, &fields),
                    field_list(&fields)
                )));
            }
            for field in &fields {
                let Some(expected) = &field.declared_type else { continue };
                let value = output.get_item(field.name.as_str(), vm)?;
                if !matches_declared_type(vm, &value, expected) {
                    let shown = value.repr(vm).map(|r| r.to_string_lossy().into_owned()).unwrap_or_default();
                    let shown: String = if shown.chars().count() > 80 {
                        shown.chars().take(77).chain("...".chars()).collect()
                    } else {
                        shown
                    };
                    return Err(vm.new_type_error(format!(
                        "{func}() output field '{}' must be {expected}, got {} {shown}",
                        field.name,
                        value.class().name()
                    )));
                }
            }
        }
    }
    with_state(|s| s.finish = Some((kind, output.into())));
    if let Some(shared) = limits::shared() {
        shared.request_stop(limits::Stopping::Finish);
    }
    Err(vm.new_exception_msg(limits::finish_exception_type(), format!("{func}() accepted").into()))
}

/// The simple types dspy declares for output fields. `bool` is not an `int` here and an `int` is a `float`,
/// as a reader of the field's type would expect.
fn matches_declared_type(vm: &VirtualMachine, value: &PyObjectRef, expected: &str) -> bool {
    let types = &vm.ctx.types;
    let is_bool = value.class().is(types.bool_type);
    match expected {
        "str" => value.fast_isinstance(types.str_type),
        "int" => value.fast_isinstance(types.int_type) && !is_bool,
        "float" => (value.fast_isinstance(types.float_type) || value.fast_isinstance(types.int_type)) && !is_bool,
        "bool" => is_bool,
        "list" => value.fast_isinstance(types.list_type),
        "dict" => value.fast_isinstance(types.dict_type),
        "NoneType" => vm.is_none(value),
        _ => true,
    }
}
