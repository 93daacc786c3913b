//! This module declares `heaplab map`'s arguments and its help's examples.

use std::path::PathBuf;

use clap::Args;

use super::shared::{LenientArgs, RunInputArgs};

pub(super) const MAP_EXAMPLES: &str = "Examples:
  heaplab map -w churn --scale 0.0005 -p size-class --at 212 --heap-map heap.svg
  heaplab map -w workloads/examples/jit-arenas.trace -p free-list --set fit=first --at end --block-map first.svg
  heaplab map -w workloads/examples/jit-arenas.trace -p free-list --at peak --pages 0..3 --heap-map h.svg --block-map b.png
  heaplab map -w workloads/examples/jit-arenas.trace -p free-list --pages 0..0 --bytes 0xc0..0x1c0 --block-map bytes.svg";

/// `heaplab map`: the teaching panel's two maps of the heap at an event, written as files.
#[derive(Debug, Args)]
pub struct MapArgs {
    #[command(flatten)]
    pub input: RunInputArgs,
    /// The event to draw the heap after: a number (1-based), `peak`, `end`, or `phase:NAME`
    /// (the last event of that phase; `phase:NAME#K` for its K-th occurrence).
    #[arg(long, default_value = "end")]
    pub at: String,
    /// Write the heap map (pages by state, shaded by the live fraction) to FILE (.svg or
    /// .png).
    #[arg(long, value_name = "FILE")]
    pub heap_map: Option<PathBuf>,
    /// Write the block map (the blocks to scale with the policy's free lists drawn over
    /// them) to FILE (.svg or .png).
    #[arg(long, value_name = "FILE")]
    pub block_map: Option<PathBuf>,
    /// The pages shown, FIRST..LAST (both included), as the panel's zoom: the heap map's
    /// region, and the pages the block map cuts into blocks (by default the 12 committed
    /// pages from the first resident one).
    #[arg(long, value_name = "FIRST..LAST")]
    pub pages: Option<String>,
    /// The block map zoomed into the bytes FROM..TO of each page (offsets from its start,
    /// decimal or 0x hexadecimal), as the panel's zoom into a page: pieces to that scale,
    /// with a ruler of offsets under each bar.
    #[arg(long, value_name = "FROM..TO")]
    pub bytes: Option<String>,
    /// The pictures' width in pixels (their height is what they need).
    #[arg(long, default_value_t = 900)]
    pub width: u32,
    #[command(flatten)]
    pub trace: LenientArgs,
}
