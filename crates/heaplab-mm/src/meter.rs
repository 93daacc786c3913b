//! Fuel for a module's calls, written into the module itself.
//!
//! A module comes from a stranger and may loop for ever, so every call into it runs on a
//! budget. The budget is kept by the module: it is rewritten once, when it is loaded, so
//! that the head of every loop subtracts the instructions up to the next loop from a
//! counter, and traps once the counter is spent. The rewritten
//! module runs the same way in any engine: the interpreter natively, and the browser's
//! own compiler in the page, where it runs many times faster. Both stop a runaway call
//! at the same instruction, so a budget means the same in both places.
//!
//! The rewrite adds one mutable `i64` global after the module's own (so no index it
//! uses moves), exported as [`FUEL`]: what the current call has left. The runtime sets
//! it before every call it makes into the module.

use wasm_encoder::reencode::{self, Reencode};
use wasm_encoder::{
    BlockType, CodeSection, ConstExpr, ExportKind, ExportSection, Function, GlobalSection,
    GlobalType, Instruction, SectionId, ValType,
};
use wasmparser::{Operator, Parser, Payload, TypeRef};

/// The export of the counter the current call spends.
pub const FUEL: &str = "hl_fuel";

/// What the counter holds before the runtime sets it: what a start function runs on. It
/// is the module family's default budget.
const START_FUEL: i64 = 100_000_000;

/// Rewrites a module so that its loops are metered (see the module's comment). The
/// module must already be valid.
pub fn meter(wasm: &[u8]) -> Result<Vec<u8>, String> {
    // The counter goes after every global the module imports or defines.
    let mut meter = Meter {
        fuel: 0,
        has_globals: false,
        globals_written: false,
    };
    for payload in Parser::new(0).parse_all(wasm) {
        match payload.map_err(|e| e.to_string())? {
            Payload::ImportSection(imports) => {
                for import in imports.into_imports() {
                    if let TypeRef::Global(_) = import.map_err(|e| e.to_string())?.ty {
                        meter.fuel += 1;
                    }
                }
            }
            Payload::GlobalSection(globals) => {
                meter.has_globals = true;
                meter.fuel += globals.count();
            }
            Payload::ExportSection(exports) => {
                for export in exports {
                    if export.map_err(|e| e.to_string())?.name == FUEL {
                        return Err(format!(
                            "it exports {FUEL}, a name heaplab keeps for itself"
                        ));
                    }
                }
            }
            _ => {}
        }
    }
    let mut module = wasm_encoder::Module::new();
    meter
        .parse_core_module(&mut module, Parser::new(0), wasm)
        .map_err(|e| e.to_string())?;
    Ok(module.finish())
}

struct Meter {
    /// The counter's global index.
    fuel: u32,
    has_globals: bool,
    globals_written: bool,
}

impl Meter {
    fn add_counter(&mut self, globals: &mut GlobalSection) {
        let ty = GlobalType {
            val_type: ValType::I64,
            mutable: true,
            shared: false,
        };
        globals.global(ty, &ConstExpr::i64_const(START_FUEL));
        self.globals_written = true;
    }

    /// Subtracts `cost` from the counter and traps once it is spent.
    fn charge(&self, f: &mut Function, cost: usize) {
        f.instruction(&Instruction::GlobalGet(self.fuel))
            .instruction(&Instruction::I64Const(cost.max(1) as i64))
            .instruction(&Instruction::I64Sub)
            .instruction(&Instruction::GlobalSet(self.fuel))
            .instruction(&Instruction::GlobalGet(self.fuel))
            .instruction(&Instruction::I64Const(0))
            .instruction(&Instruction::I64LtS)
            .instruction(&Instruction::If(BlockType::Empty))
            .instruction(&Instruction::Unreachable)
            .instruction(&Instruction::End);
    }
}

type Failure = reencode::Error<std::convert::Infallible>;

impl Reencode for Meter {
    type Error = std::convert::Infallible;

    fn parse_global_section(
        &mut self,
        globals: &mut GlobalSection,
        section: wasmparser::GlobalSectionReader<'_>,
    ) -> Result<(), Failure> {
        reencode::utils::parse_global_section(self, globals, section)?;
        self.add_counter(globals);
        Ok(())
    }

    fn intersperse_section_hook(
        &mut self,
        module: &mut wasm_encoder::Module,
        _after: Option<SectionId>,
        before: Option<SectionId>,
    ) -> Result<(), Failure> {
        // A module without globals gets a global section of its own, in its place before
        // the exports.
        let past_globals = matches!(
            before,
            None | Some(
                SectionId::Export
                    | SectionId::Start
                    | SectionId::Element
                    | SectionId::DataCount
                    | SectionId::Code
                    | SectionId::Data
            )
        );
        if !self.has_globals && !self.globals_written && past_globals {
            let mut globals = GlobalSection::new();
            self.add_counter(&mut globals);
            module.section(&globals);
        }
        Ok(())
    }

    fn parse_export_section(
        &mut self,
        exports: &mut ExportSection,
        section: wasmparser::ExportSectionReader<'_>,
    ) -> Result<(), Failure> {
        reencode::utils::parse_export_section(self, exports, section)?;
        exports.export(FUEL, ExportKind::Global, self.fuel);
        Ok(())
    }

    fn parse_function_body(
        &mut self,
        code: &mut CodeSection,
        func: wasmparser::FunctionBody<'_>,
    ) -> Result<(), Failure> {
        let mut f = self.new_function_with_parsed_locals(&func)?;
        let mut reader = func.get_operators_reader()?;
        let mut ops = Vec::new();
        while !reader.eof() {
            ops.push(reader.read()?);
        }
        // A charge at the head of every loop body, for the instructions up to the next
        // loop: a loop's back edge lands after its `loop`, on the charge. Only a loop can
        // run for ever (a call that recurses without end runs out of stack), so code
        // outside every loop is not charged, and a call costs nothing to meter until it
        // loops.
        let mut heads: Vec<usize> = ops
            .iter()
            .enumerate()
            .filter(|(_, op)| matches!(op, Operator::Loop { .. }))
            .map(|(i, _)| i + 1)
            .collect();
        heads.push(ops.len());
        for op in &ops[..heads[0]] {
            f.instruction(&self.instruction(op.clone())?);
        }
        for w in heads.windows(2) {
            self.charge(&mut f, w[1] - w[0]);
            for op in &ops[w[0]..w[1]] {
                f.instruction(&self.instruction(op.clone())?);
            }
        }
        code.function(&f);
        Ok(())
    }
}
