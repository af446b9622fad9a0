//! A cell's code object with its name loads made global loads: `LOAD_NAME` -> `LOAD_GLOBAL` at the top level.
//!
//! Why: a cell runs as module code, where the compiler emits `LOAD_NAME` for every name it reads. RustPython's
//! `LOAD_NAME` subscripts the frame's locals, and a miss (every builtin: `len`, `range`, `print`, `int`, ...)
//! makes, raises and drops a `KeyError` before it looks at globals and builtins: more than half the time of a
//! loop such as `for w in words: if len(w) > 3: n += 1`. A cell's frame has its globals as its locals
//! (`Scope::with_builtins(None, globals)` in `worker::run`), so there `LOAD_NAME` means exactly `LOAD_GLOBAL`:
//! the globals, then the builtins, the same `NameError`; and `LOAD_GLOBAL` reads both dicts without an
//! exception and specialises. Only the cell's own code object changes: functions already load globals, and
//! class bodies (their own code objects, whose locals are
//! the class namespace) keep `LOAD_NAME`. The equivalence holds where the code runs as a cell: the same code
//! object run again with separate locals (`exec(sys._getframe().f_code, g, l)`) reads names from `g`, not `l`.
//!
//! `LOAD_GLOBAL` has four cache units that `LOAD_NAME` has not, so the code is laid out again: every relative
//! jump, `EXTENDED_ARG` prefix, exception-table range and location moves with its unit. The VM runs bytecode
//! unverified, so anything this does not know how to move (a jump opcode not listed here, a table it cannot
//! read) keeps the compiler's code unchanged.

use rustpython_vm::bytecode::{
    decode_exception_table, encode_exception_table, Arg, CodeObject, CodeUnit, CodeUnits, Constant, Instruction,
    OpArgByte, OpArgState,
};

/// One instruction of the compiler's code: its opcode, full argument, and where it was.
pub(crate) struct Op {
    pub(crate) op: Instruction,
    pub(crate) arg: u32,
    /// Index of its first unit (its first `EXTENDED_ARG`, if any).
    pub(crate) start: usize,
    /// How many `EXTENDED_ARG` units came before it.
    pub(crate) prefixes: usize,
    pub(crate) caches: usize,
}

impl Op {
    /// The unit after the instruction and its caches, where a relative jump counts from.
    fn after(&self) -> usize {
        self.start + self.prefixes + 1 + self.caches
    }
}

/// How a relative jump counts: forward or backward from the unit after its caches.
enum Jump {
    Forward,
    Backward,
}

fn jump_kind(op: Instruction) -> Result<Option<Jump>, ()> {
    Ok(match op {
        Instruction::JumpForward { .. }
        | Instruction::PopJumpIfFalse { .. }
        | Instruction::PopJumpIfTrue { .. }
        | Instruction::PopJumpIfNone { .. }
        | Instruction::PopJumpIfNotNone { .. }
        | Instruction::ForIter { .. }
        | Instruction::Send { .. } => Some(Jump::Forward),
        // `END_ASYNC_FOR` never jumps, but its argument is the distance back to its `END_SEND`, which `dis`,
        // `co_branches()` and `sys.monitoring` read.
        Instruction::JumpBackward { .. } | Instruction::JumpBackwardNoInterrupt { .. } | Instruction::EndAsyncFor => {
            Some(Jump::Backward)
        }
        // Any other instruction with a code offset for an argument: not moved, so not rewritten.
        other if other.as_opcode().has_jump() || other.label_arg().is_some() => return Err(()),
        _ => None,
    })
}

/// How many `EXTENDED_ARG` units an argument needs.
fn prefixes_for(arg: u32) -> usize {
    match arg {
        0..=0xff => 0,
        0x100..=0xffff => 1,
        0x1_0000..=0xff_ffff => 2,
        _ => 3,
    }
}

/// The cell's code with global loads for its name loads, or `None` when it has none or cannot be moved.
pub fn with_global_loads<C>(code: &CodeObject<C>) -> Option<CodeObject<C>>
where
    C: Constant,
    C::Name: Clone,
{
    let units: &[CodeUnit] = &code.instructions;
    if !units.iter().any(|unit| matches!(unit.op, Instruction::LoadName { .. })) {
        return None;
    }
    let ops = decode(units)?;
    let new = ops
        .iter()
        .map(|op| match op.op {
            Instruction::LoadName { .. } => {
                let global = Instruction::LoadGlobal { namei: Arg::marker() };
                (global, op.arg << 1, global.cache_entries())
            }
            other => (other, op.arg, op.caches),
        })
        .collect();
    laid_out(code, &ops, new)
}

/// `code` with each of its instructions (`ops`, decoded from it) in a new form (`new`: its opcode, argument and
/// cache count; a jump's argument is filled in here), laid out again: every relative jump, `EXTENDED_ARG` prefix,
/// exception-table range and location moves with its unit. An instruction whose caches keep their count keeps
/// their contents; new caches start empty, as the compiler leaves them. `None` where a jump, the location table
/// or the exception table cannot be read, or the code would not fit.
pub(crate) fn laid_out<C>(
    code: &CodeObject<C>,
    ops: &[Op],
    mut new: Vec<(Instruction, u32, usize)>,
) -> Option<CodeObject<C>>
where
    C: Constant,
    C::Name: Clone,
{
    let units: &[CodeUnit] = &code.instructions;
    let lines = LineTable::decode(code)?;
    if lines.0.len() != units.len() || code.locations.len() != units.len() || new.len() != ops.len() {
        return None;
    }
    let kinds: Vec<Option<Jump>> = ops.iter().map(|op| jump_kind(op.op)).collect::<Result<_, _>>().ok()?;
    // The old index of each jump's target (the first unit of an instruction), and the instruction it is.
    let old_start: std::collections::HashMap<usize, usize> =
        ops.iter().enumerate().map(|(k, op)| (op.start, k)).collect();
    let mut targets: Vec<Option<usize>> = Vec::with_capacity(ops.len());
    for (op, kind) in ops.iter().zip(&kinds) {
        let after = op.after();
        let target = match kind {
            None => None,
            Some(Jump::Forward) => Some(after.checked_add(op.arg as usize)?),
            Some(Jump::Backward) => Some(after.checked_sub(op.arg as usize)?),
        };
        targets.push(match target {
            None => None,
            Some(index) => Some(*old_start.get(&index)?),
        });
    }

    // Lay out until every argument fits its prefixes: a jump that grows past 255 units takes one more, which
    // moves what follows it. Prefix counts only grow, so this ends.
    let mut prefixes: Vec<usize> =
        ops.iter().zip(&new).map(|(op, (_, arg, _))| op.prefixes.max(prefixes_for(*arg))).collect();
    let starts = loop {
        let mut starts = Vec::with_capacity(ops.len() + 1);
        let mut at = 0usize;
        for (p, (_, _, caches)) in prefixes.iter().zip(&new) {
            starts.push(at);
            at += p + 1 + caches;
        }
        starts.push(at);
        let mut grew = false;
        for k in 0..ops.len() {
            let (Some(kind), Some(target)) = (&kinds[k], targets[k]) else { continue };
            let after = starts[k] + prefixes[k] + 1 + new[k].2;
            let delta = match kind {
                Jump::Forward => starts[target].checked_sub(after)?,
                Jump::Backward => after.checked_sub(starts[target])?,
            };
            let delta = u32::try_from(delta).ok()?;
            new[k].1 = delta;
            if prefixes_for(delta) > prefixes[k] {
                prefixes[k] = prefixes_for(delta);
                grew = true;
            }
        }
        if !grew {
            break starts;
        }
    };
    let moved = |old: usize| -> Option<u32> {
        if old == units.len() {
            return u32::try_from(starts[ops.len()]).ok();
        }
        old_start.get(&old).and_then(|&k| u32::try_from(starts[k]).ok())
    };

    let total = starts[ops.len()];
    let mut out_units = Vec::with_capacity(total);
    let mut out_locations = Vec::with_capacity(total);
    let mut out_lines = Vec::with_capacity(total);
    for (k, op) in ops.iter().enumerate() {
        let (instruction, arg, caches) = new[k];
        let op_index = op.start + op.prefixes;
        let (location, line) = (code.locations[op_index], lines.0[op_index]);
        for j in (1..=prefixes[k]).rev() {
            out_units.push(CodeUnit::new(Instruction::ExtendedArg, OpArgByte::new((arg >> (8 * j)) as u8)));
        }
        out_units.push(CodeUnit::new(instruction, OpArgByte::new(arg as u8)));
        if caches == op.caches {
            out_units.extend_from_slice(&units[op_index + 1..op_index + 1 + caches]);
        } else {
            // A load made global: its caches start empty, as the compiler leaves them (the VM fills them).
            out_units.extend(std::iter::repeat_n(CodeUnit::new(Instruction::Cache, OpArgByte::new(0)), caches));
        }
        for _ in 0..prefixes[k] + 1 + caches {
            out_locations.push(location);
            out_lines.push(line);
        }
    }
    debug_assert_eq!(out_units.len(), total);

    let mut handlers = decode_exception_table(&code.exceptiontable);
    for entry in &mut handlers {
        entry.start = moved(entry.start as usize)?;
        entry.end = moved(entry.end as usize)?;
        entry.target = moved(entry.target as usize)?;
    }

    let mut rewritten = code.clone();
    rewritten.instructions = CodeUnits::from(out_units);
    rewritten.locations = out_locations.into_boxed_slice();
    rewritten.linetable = LineTable(out_lines, lines.1).encode();
    rewritten.exceptiontable = encode_exception_table(&handlers);
    Some(rewritten)
}

/// The instructions of a unit stream, or `None` when it ends inside one.
pub(crate) fn decode(units: &[CodeUnit]) -> Option<Vec<Op>> {
    let mut ops = Vec::new();
    let mut state = OpArgState::default();
    let (mut index, mut start, mut prefixes) = (0, 0, 0);
    while index < units.len() {
        let (op, arg) = state.get(units[index]);
        if matches!(op, Instruction::ExtendedArg) {
            prefixes += 1;
            index += 1;
            continue;
        }
        let caches = op.cache_entries();
        ops.push(Op { op, arg: u32::from(arg), start, prefixes, caches });
        index += 1 + caches;
        start = index;
        prefixes = 0;
    }
    (index == units.len() && prefixes == 0).then_some(ops)
}

/// One code unit's place in the source, as CPython's location table holds it (`Objects/locations.md`).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Place {
    /// No location (an instruction the compiler made for no line).
    Nowhere,
    At {
        line: i32,
        end_line: i32,
        column: Option<u32>,
        end_column: Option<u32>,
    },
}

/// The location table as one place per code unit, and the line it counts from.
pub(crate) struct LineTable(pub(crate) Vec<Place>, i32);

const NO_LOCATION: u8 = 15;
const LONG: u8 = 14;
const NO_COLUMNS: u8 = 13;

impl LineTable {
    pub(crate) fn decode<C: Constant>(code: &CodeObject<C>) -> Option<Self> {
        let first = i32::try_from(code.first_line_number?.get()).ok()?;
        let table = &code.linetable;
        let mut places = Vec::with_capacity(code.instructions.len());
        let (mut at, mut line) = (0usize, first);
        let byte = |at: &mut usize| -> Option<u8> {
            let b = *table.get(*at)?;
            *at += 1;
            Some(b)
        };
        let varint = |at: &mut usize| -> Option<u32> {
            let (mut value, mut shift) = (0u32, 0);
            loop {
                let b = byte(at)?;
                value |= u32::from(b & 0x3f).checked_shl(shift)?;
                shift += 6;
                if b & 0x40 == 0 {
                    return Some(value);
                }
            }
        };
        let signed = |at: &mut usize| -> Option<i32> {
            let value = varint(at)?;
            let magnitude = i32::try_from(value >> 1).ok()?;
            Some(if value & 1 != 0 { -magnitude } else { magnitude })
        };
        while at < table.len() {
            let head = byte(&mut at)?;
            if head & 0x80 == 0 {
                return None;
            }
            let (code, length) = ((head >> 3) & 0x0f, usize::from(head & 0x07) + 1);
            let place = match code {
                NO_LOCATION => Place::Nowhere,
                LONG => {
                    line += signed(&mut at)?;
                    let end_line = line + i32::try_from(varint(&mut at)?).ok()?;
                    let column = varint(&mut at)?.checked_sub(1);
                    let end_column = varint(&mut at)?.checked_sub(1);
                    Place::At { line, end_line, column, end_column }
                }
                NO_COLUMNS => {
                    line += signed(&mut at)?;
                    Place::At { line, end_line: line, column: None, end_column: None }
                }
                10..=12 => {
                    line += i32::from(code - 10);
                    let column = u32::from(byte(&mut at)?);
                    let end_column = u32::from(byte(&mut at)?);
                    Place::At { line, end_line: line, column: Some(column), end_column: Some(end_column) }
                }
                _ => {
                    let b = byte(&mut at)?;
                    let column = (u32::from(code) << 3) | u32::from(b >> 4);
                    let end_column = Some(column + u32::from(b & 0x0f));
                    Place::At { line, end_line: line, column: Some(column), end_column }
                }
            };
            places.extend(std::iter::repeat_n(place, length));
        }
        Some(Self(places, first))
    }

    /// The table again, in the long forms (CPython reads every form): runs of one place, eight units at most.
    fn encode(&self) -> Box<[u8]> {
        fn varint(out: &mut Vec<u8>, mut value: u32) {
            while value >= 0x40 {
                out.push(0x40 | (value & 0x3f) as u8);
                value >>= 6;
            }
            out.push(value as u8);
        }
        fn signed(out: &mut Vec<u8>, value: i32) {
            let zigzag = if value < 0 { (value.unsigned_abs() << 1) | 1 } else { (value as u32) << 1 };
            varint(out, zigzag);
        }
        let mut out = Vec::with_capacity(self.0.len() * 2);
        let mut line = self.1;
        let mut places = self.0.as_slice();
        while let Some(&place) = places.first() {
            let run = places.iter().take(8).take_while(|&&p| p == place).count();
            places = &places[run..];
            let head = |code: u8| 0x80 | (code << 3) | (run as u8 - 1);
            match place {
                Place::Nowhere => out.push(head(NO_LOCATION)),
                Place::At { line: at, end_line, column: None, end_column: None } if end_line == at => {
                    out.push(head(NO_COLUMNS));
                    signed(&mut out, at - line);
                    line = at;
                }
                Place::At { line: at, end_line, column, end_column } => {
                    out.push(head(LONG));
                    signed(&mut out, at - line);
                    varint(&mut out, (end_line - at).max(0) as u32);
                    varint(&mut out, column.map_or(0, |c| c + 1));
                    varint(&mut out, end_column.map_or(0, |c| c + 1));
                    line = at;
                }
            }
        }
        out.into_boxed_slice()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rustpython_vm::compiler::{compile, CompileOpts, Mode};

    fn compiled(source: &str) -> CodeObject {
        compile(source, Mode::Exec, "<cell>", CompileOpts::default()).expect("compiles")
    }

    /// Every unit's place, as the VM's own reader of the table sees it.
    fn places(code: &CodeObject) -> Vec<(i32, i32, Option<u32>, Option<u32>)> {
        LineTable::decode(code)
            .expect("readable")
            .0
            .iter()
            .map(|p| match *p {
                Place::Nowhere => (-1, -1, None, None),
                Place::At { line, end_line, column, end_column } => (line, end_line, column, end_column),
            })
            .collect()
    }

    #[test]
    fn a_table_encoded_again_reads_the_same() {
        let code = compiled("x = 1\nfor i in range(3):\n    if i:\n        x += len(str(i))\nprint(x)\n");
        let table = LineTable::decode(&code).expect("readable");
        assert_eq!(table.0.len(), code.instructions.len());
        let mut again = code.clone();
        again.linetable = table.encode();
        assert_eq!(places(&code), places(&again));
    }

    #[test]
    fn name_loads_become_global_loads_and_every_instruction_keeps_its_place() {
        let code =
            compiled("n = 0\nfor w in words:\n    try:\n        n += len(w)\n    except TypeError:\n        pass\n");
        let rewritten = with_global_loads(&code).expect("rewritten");
        let names = |code: &CodeObject| -> Vec<Instruction> {
            decode(&code.instructions).unwrap().into_iter().map(|op| op.op).collect()
        };
        assert!(names(&rewritten).iter().all(|op| !matches!(op, Instruction::LoadName { .. })));
        assert_eq!(names(&code).len(), names(&rewritten).len());
        // Each instruction's line is the one it had.
        let lines = |code: &CodeObject| -> Vec<i32> {
            let table = LineTable::decode(code).unwrap();
            let line = |op: &Op| match table.0[op.start + op.prefixes] {
                Place::Nowhere => -1,
                Place::At { line, .. } => line,
            };
            decode(&code.instructions).unwrap().iter().map(line).collect()
        };
        assert_eq!(lines(&code), lines(&rewritten));
        // Each handler covers the same instructions and lands on the same one.
        let handlers = |code: &CodeObject| -> Vec<(String, String, String)> {
            let ops = decode(&code.instructions).unwrap();
            let at = |index: u32| -> String {
                let found = ops.iter().find(|op| op.start == index as usize);
                // The load made global is the same instruction.
                found.map_or("end".to_owned(), |op| format!("{:?}", op.op).replace("LoadName", "LoadGlobal"))
            };
            let entries = decode_exception_table(&code.exceptiontable);
            entries.iter().map(|e| (at(e.start), at(e.end), at(e.target))).collect()
        };
        assert!(!handlers(&code).is_empty());
        assert_eq!(handlers(&code), handlers(&rewritten));
    }

    #[test]
    fn an_async_for_keeps_its_end_pointing_at_its_end_send() {
        let opts = CompileOpts { allow_top_level_await: true, ..CompileOpts::default() };
        let source = "n = 0\nasync for v in agen():\n    n += len(str(v))\n";
        let code = compile(source, Mode::Exec, "<cell>", opts).expect("compiles");
        let rewritten = with_global_loads(&code).expect("rewritten");
        let ops = decode(&rewritten.instructions).unwrap();
        let end = ops.iter().find(|op| matches!(op.op, Instruction::EndAsyncFor)).expect("an async for");
        let target = end.after() - end.arg as usize;
        let at = ops.iter().find(|op| op.start == target).expect("lands on an instruction");
        assert!(matches!(at.op, Instruction::EndSend), "{:?}", at.op);
    }

    #[test]
    fn a_jump_that_grows_past_a_byte_takes_a_prefix() {
        // 70 name loads inside one loop body: four caches each push the loop's backward jump past 255 units.
        let body: String = (0..70).map(|i| format!("    y{} = x\n", i % 5)).collect();
        let code = compiled(&format!("for x in xs:\n{body}"));
        let rewritten = with_global_loads(&code).expect("rewritten");
        let ops = decode(&rewritten.instructions).unwrap();
        let back = ops.iter().find(|op| matches!(op.op, Instruction::JumpBackward { .. })).expect("a loop");
        assert!(back.prefixes >= 1 && back.arg > 0xff);
        let target = back.after() - back.arg as usize;
        let at = ops.iter().find(|op| op.start == target).expect("the jump lands on an instruction");
        assert!(matches!(at.op, Instruction::ForIter { .. }));
    }
}
