//! What every file the page exports says once: the name each configuration goes by (the
//! label the page's table heads its column with, overrides included), where the numbers
//! come from ([`Provenance`]: the workload or trace with its hash, the provider, the page
//! size, heaplab's version and the link), and the CSV files themselves. The page calls
//! these through wasm rather than writing files of its own, so a file reads the same
//! whichever of the page's views it was exported from.

mod csv;
mod provenance;

pub use csv::{summary_csv, sweep_csv, SeriesColumns};
pub use provenance::Provenance;

use heaplab_core::config::PolicyConfig;

/// The letter a configuration goes by in the page, `A` for the first.
pub fn letter(index: usize) -> char {
    char::from(b'A' + (index % 26) as u8)
}

/// Each configuration's label in the page's table, charts and exports: its letter, its
/// preset or family and the parameters it changes (`B: llvm-bump (slab_size=64 KiB)`),
/// so two configurations of one preset never read alike.
pub fn labels(policies: &[PolicyConfig]) -> Vec<String> {
    policies
        .iter()
        .enumerate()
        .map(|(i, p)| format!("{}: {}", letter(i), p.label()))
        .collect()
}

#[cfg(test)]
mod tests;
