//! Turning failures into reports the host raises: syntax errors, sandbox exceptions with tracebacks in
//! terms of the submitted code, and host (tool) exceptions raised inside the sandbox.

use rustpython_vm::builtins::{PyBaseExceptionRef, PyTypeRef};
use rustpython_vm::compiler::Mode;
use rustpython_vm::vm::VmCompileError;
use rustpython_vm::{AsObject, PyObjectRef, VirtualMachine};

/// Where a syntax error is, in the terms of Python's `SyntaxError(msg, (filename, lineno, offset, text))`.
#[derive(Debug)]
pub struct SyntaxReport {
    /// The exception's class: `SyntaxError`, `IndentationError` or `TabError`.
    pub kind: String,
    pub message: String,
    pub lineno: Option<usize>,
    pub offset: Option<usize>,
    pub text: Option<String>,
}

/// An exception that escaped the submitted code.
#[derive(Debug)]
pub struct ExceptionReport {
    pub type_name: String,
    pub message: String,
    pub traceback: String,
}

fn attr_string(vm: &VirtualMachine, obj: &PyObjectRef, name: &'static str) -> Option<String> {
    let value = obj.get_attr(name, vm).ok()?;
    if vm.is_none(&value) {
        return None;
    }
    value.str(vm).ok().map(|s| s.to_string_lossy().into_owned())
}

fn attr_usize(vm: &VirtualMachine, obj: &PyObjectRef, name: &'static str) -> Option<usize> {
    let value = obj.get_attr(name, vm).ok()?;
    value.try_into_value::<usize>(vm).ok()
}

pub fn syntax_report(vm: &VirtualMachine, err: VmCompileError, source: &str) -> SyntaxReport {
    let exc: PyObjectRef = err.into_pyexception(vm, Some(source)).into();
    let text = attr_string(vm, &exc, "text").map(|t| t.trim_end_matches(['\n', '\r']).to_owned());
    let kind = exc.class().name().to_string();
    let offset = attr_usize(vm, &exc, "offset");
    let message = attr_string(vm, &exc, "msg").unwrap_or_else(|| "invalid syntax".to_owned());
    let (message, offset) = in_cpythons_words(message, text.as_deref(), offset);
    SyntaxReport { kind, message, lineno: attr_usize(vm, &exc, "lineno"), offset, text }
}

/// The parser's message as CPython's tokenizer and parser put it, where they differ and the model would repair
/// its code from CPython's: a character no token can hold (the dashes, quotes and symbols models write:
/// `3 – 2`, `“hi”`, `a × b`, `x ≤ 3`) is named, where RustPython's parser said only "invalid syntax" at it.
/// An unexpected indent is placed where CPython places it, at the indent's last character.
fn in_cpythons_words(message: String, line: Option<&str>, offset: Option<usize>) -> (String, Option<usize>) {
    if message == "unexpected indentation" {
        let indent = line.map(|line| line.chars().take_while(|c| *c == ' ' || *c == '\t').count());
        return ("unexpected indent".to_owned(), indent.filter(|indent| *indent > 0).or(offset));
    }
    if message == "invalid syntax" {
        let at = line.zip(offset.and_then(|offset| offset.checked_sub(1))).and_then(|(line, at)| line.chars().nth(at));
        if let Some(character) = at.filter(|c| !c.is_ascii() && !c.is_alphabetic()) {
            return (format!("invalid character '{character}' (U+{:04X})", u32::from(character)), offset);
        }
    }
    (message, offset)
}

pub fn exception_message(vm: &VirtualMachine, exc: &PyBaseExceptionRef) -> String {
    exc.as_object().str(vm).map(|s| s.to_string_lossy().into_owned()).unwrap_or_default()
}

/// Report an exception, with a traceback whose lines point into the submitted code. `source_line` gives
/// the text of a line of a code cell by its file name (each `execute()` is a cell named `<cell N>`); such a
/// frame shows its line with CPython's markers under the failing expression (`_sandbox_traceback`).
pub fn exception_report(
    vm: &VirtualMachine,
    exc: &PyBaseExceptionRef,
    source_line: impl Fn(&str, usize) -> Option<String>,
) -> ExceptionReport {
    let mut frames = Vec::new();
    // Each distinct place is put into words once: a deep recursion repeats the same frame a thousand times.
    let mut texts: std::collections::HashMap<(usize, i32, usize), String> = std::collections::HashMap::new();
    if let Some(tb) = exc.traceback() {
        for entry in tb.iter() {
            let code = entry.frame.f_code();
            let file = code.source_path().as_str();
            // The import machinery's, the tool stand-ins' and the sandbox's own machinery's frames say nothing
            // about the submitted code: CPython shows none for its C implementation of `open` or `os.stat`.
            if file.starts_with("<frozen importlib") || file == "<tools>" || file.starts_with("<sandbox _sandbox_") {
                continue;
            }
            let line = entry.lineno.get();
            let text = texts.entry((code.as_object().get_id(), entry.lasti, line)).or_insert_with(|| {
                let name = code.obj_name.as_str();
                let Some(source) = source_line(file, line) else {
                    return format!("  File \"{file}\", line {line}, in {name}\n");
                };
                let args = (code.clone(), entry.lasti, file, line, name, source.clone());
                let marked =
                    vm.import("_sandbox_traceback", 0).and_then(|module| module.get_attr("frame", vm)?.call(args, vm));
                match marked.and_then(|text| text.str(vm)) {
                    Ok(frame) => frame.to_string_lossy().into_owned(),
                    Err(_) => format!("  File \"{file}\", line {line}, in {name}\n    {}\n", source.trim()),
                }
            });
            frames.push(text.clone());
        }
    }
    ExceptionReport {
        type_name: exc.class().name().to_string(),
        message: exception_message(vm, exc).trim_end().to_owned(),
        traceback: format_traceback(frames),
    }
}

/// CPython's words for a module no finder found, and why it is not here (the model would otherwise try to install
/// it, or guess its name again): only the standard library and the host's packages, and no network.
pub fn with_missing_module_reason(message: String) -> String {
    let missing = message
        .strip_prefix("No module named '")
        .and_then(|rest| rest.strip_suffix('\''))
        .filter(|name| !name.contains(' ') && !name.contains('\''));
    match missing {
        Some(name) => {
            let top = name.split('.').next().unwrap_or(name);
            format!(
                "{message}: the sandbox has Python's standard library and the third-party packages its host installed \
                 for it (importable as usual; none unless the host gave some), and no network to install more; the \
                 host gives it one it has installed with RustInterpreter(packages=[\"{top}\"])"
            )
        }
        None => message,
    }
}

/// Frames shown around the ones left out of a long traceback.
const FIRST_FRAMES: usize = 10;
const LAST_FRAMES: usize = 20;
/// Identical consecutive frames shown before the rest are counted, as CPython does.
const REPEATS_SHOWN: usize = 3;

/// A traceback an LLM can read: runs of identical frames (deep recursion) are counted rather than listed,
/// and a traceback that is still long keeps its first and last frames.
fn format_traceback(frames: Vec<String>) -> String {
    if frames.is_empty() {
        return String::new();
    }
    let mut lines: Vec<String> = Vec::new();
    let mut index = 0;
    while index < frames.len() {
        let run = frames[index..].iter().take_while(|f| **f == frames[index]).count();
        lines.extend(frames[index..index + run.min(REPEATS_SHOWN)].iter().cloned());
        if run > REPEATS_SHOWN {
            lines.push(format!("  [Previous line repeated {} more times]\n", run - REPEATS_SHOWN));
        }
        index += run;
    }
    if lines.len() > FIRST_FRAMES + LAST_FRAMES + 1 {
        let omitted = lines.len() - FIRST_FRAMES - LAST_FRAMES;
        let tail = lines.split_off(lines.len() - LAST_FRAMES);
        lines.truncate(FIRST_FRAMES);
        lines.push(format!("  ... ({omitted} more lines of traceback) ...\n"));
        lines.extend(tail);
    }
    let mut text = String::from("Traceback (most recent call last):\n");
    text.extend(lines);
    text.trim_end().to_owned()
}

/// Exception types a host error cannot become: they are not built from a message alone.
const NOT_FROM_A_MESSAGE: &[&str] =
    &["UnicodeDecodeError", "UnicodeEncodeError", "UnicodeTranslateError", "BaseExceptionGroup", "ExceptionGroup"];

/// The types a host tool's exception takes in the sandbox, by the host type's name: for each of the VM's
/// built-in `Exception` types that a message alone makes, a subclass of it and of `RuntimeError` with the
/// same name (so both `except ValueError` and dspy's `except RuntimeError` catch a tool's ValueError), or the
/// type itself where it is a RuntimeError already or the two cannot be combined. Taken from a fresh VM's
/// `builtins`, before sandbox code can rebind a name there. Not `SystemExit`, `KeyboardInterrupt` and the
/// other `BaseException`s outside `Exception`: a host's arrives as `RuntimeError`, which `except Exception`
/// catches.
pub fn tool_error_types(vm: &VirtualMachine) -> std::collections::HashMap<String, PyTypeRef> {
    let base = vm.ctx.exceptions.exception_type;
    let runtime_error = vm.ctx.exceptions.runtime_error;
    vm.builtins
        .dict()
        .into_iter()
        .filter_map(|(name, value)| {
            let name = name.downcast_ref::<rustpython_vm::builtins::PyStr>()?.to_string();
            let cls = value.downcast::<rustpython_vm::builtins::PyType>().ok()?;
            let native = !cls.slots.flags.has_feature(rustpython_vm::types::PyTypeFlags::HEAPTYPE);
            (native && cls.fast_issubclass(base) && !NOT_FROM_A_MESSAGE.contains(&name.as_str())).then_some((name, cls))
        })
        .map(|(name, cls)| {
            if cls.fast_issubclass(runtime_error) {
                return (name, cls);
            }
            let combined = combined_type(vm, &name, cls.clone(), runtime_error.to_owned());
            (name, combined.unwrap_or(cls))
        })
        .collect()
}

/// `class <name>(builtin, RuntimeError)`, in `builtins`; None where the two layouts do not combine.
fn combined_type(vm: &VirtualMachine, name: &str, builtin: PyTypeRef, runtime_error: PyTypeRef) -> Option<PyTypeRef> {
    let args = (vm.ctx.new_str(name), vm.ctx.new_tuple(vec![builtin.into(), runtime_error.into()]), vm.ctx.new_dict());
    let made =
        vm.ctx.types.type_type.as_object().call(args, vm).ok()?.downcast::<rustpython_vm::builtins::PyType>().ok()?;
    made.as_object().set_attr("__module__", vm.ctx.new_str("builtins"), vm).ok()?;
    Some(made)
}

/// Whether the submitted code ends in an expression statement, whose value `execute()` reports.
pub fn compile_mode(source: &str) -> Mode {
    use rustpython_vm::compiler::parser;
    match parser::parse_module(source) {
        Ok(parsed) => match parsed.syntax().body.last() {
            Some(rustpython_vm::compiler::ast::Stmt::Expr(_)) => Mode::BlockExpr,
            _ => Mode::Exec,
        },
        // The compiler will report the error properly.
        Err(_) => Mode::Exec,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sandbox::prepare::with_test_vm;

    #[test]
    fn trailing_expression_selects_block_mode() {
        assert!(matches!(compile_mode("x = 1\nx + 1"), Mode::BlockExpr));
        assert!(matches!(compile_mode("x = 1"), Mode::Exec));
        assert!(matches!(compile_mode("def f():\n    return 1"), Mode::Exec));
        assert!(matches!(compile_mode(""), Mode::Exec));
        assert!(matches!(compile_mode("if"), Mode::Exec));
    }

    #[test]
    fn syntax_errors_carry_line_offset_and_text() {
        with_test_vm(|vm| {
            let source = "x = 1\ny = (2 +\n";
            let err = vm.compile(source, Mode::Exec, "<cell 1>".to_owned()).unwrap_err();
            let report = syntax_report(vm, err, source);
            assert_eq!(report.lineno, Some(2));
            assert!(report.offset.is_some());
            assert!(!report.message.is_empty());
        });
    }

    #[test]
    fn tracebacks_point_into_the_submitted_code() {
        with_test_vm(|vm| {
            let source = "def f(a):\n    return 1 / a\nf(0)";
            let code = vm.compile(source, Mode::Exec, "<cell 7>".to_owned()).unwrap();
            let exc = vm.run_code_obj(code, vm.new_scope_with_builtins()).unwrap_err();
            let report = exception_report(vm, &exc, |file, line| {
                (file == "<cell 7>").then(|| source.lines().nth(line - 1).unwrap().to_owned())
            });
            assert_eq!(report.type_name, "ZeroDivisionError");
            assert_eq!(report.message, "division by zero");
            assert_eq!(
                report.traceback,
                "Traceback (most recent call last):\n  File \"<cell 7>\", line 3, in <module>\n    f(0)\n    ~^^^\n  \
                 File \"<cell 7>\", line 2, in f\n    return 1 / a\n           ~~^~~"
            );
        });
    }

    #[test]
    fn repeated_frames_are_counted_and_long_tracebacks_shortened() {
        let frame = |n: usize| format!("  File \"<cell 1>\", line {n}, in f\n");
        let recursion = format_traceback(vec![frame(1); 1000]);
        assert_eq!(
            recursion,
            format!(
                "Traceback (most recent call last):\n{}{}{}  [Previous line repeated 997 more times]",
                frame(1),
                frame(1),
                frame(1)
            )
        );
        let long = format_traceback((1..=100).map(frame).collect());
        assert_eq!(long.lines().count(), 1 + FIRST_FRAMES + 1 + LAST_FRAMES);
        assert!(long.contains("... (70 more lines of traceback) ..."));
        assert!(long.ends_with(&frame(100).trim_end().to_owned()));
    }

    #[test]
    fn tool_error_types_are_found_by_name_and_nothing_else() {
        with_test_vm(|vm| {
            let types = tool_error_types(vm);
            let key_error = &types["KeyError"];
            assert_eq!(key_error.name().to_string(), "KeyError");
            assert!(key_error.fast_issubclass(vm.ctx.exceptions.key_error));
            assert!(key_error.fast_issubclass(vm.ctx.exceptions.runtime_error));
            assert!(types["NotImplementedError"].is(vm.ctx.exceptions.not_implemented_error));
            assert!(types.contains_key("OSError") && types.contains_key("TimeoutError"));
            assert!(!types.contains_key("len"));
            assert!(!types.contains_key("UnicodeDecodeError"));
            assert!(!types.contains_key("SystemExit") && !types.contains_key("KeyboardInterrupt"));
        });
    }
}
