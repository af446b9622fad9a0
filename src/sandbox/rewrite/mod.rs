//! Changes to a cell's compiled code before it runs: its line table and names (`cell_code`), constants
//! RustPython's compiler folded unlike CPython (`folded_constants`), specialisations to forget
//! (`respecialise`).

pub mod cell_code;
pub mod folded_constants;
pub mod respecialise;
