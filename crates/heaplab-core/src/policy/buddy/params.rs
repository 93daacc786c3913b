//! The buddy family's knobs, declared once: the specs the registry lists, the typed struct
//! [`Buddy::new`](super::Buddy::new) reads them as, and the family's entry in the registry.

use crate::params::{knobs, ParamKind};
use crate::policy::FamilySpec;

knobs! {
    /// The buddy family's knobs, read once when a heap is built.
    pub(super) struct Knobs, names KnobNames, specs PARAMS;

    min_block: u64 = ParamSpec {
        kind: ParamKind::Bytes {
            min: 8,
            max: 4096,
            pow2: true,
        },
        default: "16",
        unit: "bytes",
        doc: "Size of the smallest block, order 0. Malloc-style buddy heaps use a few words \
              (16 bytes here); the Linux page allocator's smallest block is a 4 KiB page.",
        zero_means: "",
    },
    max_order: u64 = ParamSpec {
        kind: ParamKind::Int { min: 1, max: 30 },
        default: "22",
        unit: "orders",
        doc: "The largest block is `min_block << max_order` bytes, and arenas of that size are \
              reserved from the provider; the default gives 64 MiB arenas of 16-byte blocks \
              (Linux: orders up to 10, so 4 MiB of 4 KiB pages).",
        zero_means: "",
    },
    header_size: u64 = ParamSpec {
        kind: ParamKind::Bytes {
            min: 0,
            max: 64,
            pow2: false,
        },
        default: "0",
        unit: "bytes",
        doc: "In-band bytes before each payload, where Knuth's buddy system keeps a block's \
              tag and order; 0 keeps them out of band, as Linux keeps a free page's order in \
              its struct page.",
        zero_means: "no header",
    },
    decommit_merged: bool = ParamSpec {
        kind: ParamKind::Bool,
        default: "false",
        unit: "",
        doc: "Decommit the pages of every free block of a page or more once it forms by \
              freeing and merging, as allocators that purge with madvise do; off, freed \
              memory stays committed until it is reused, as in a classic buddy heap.",
        zero_means: "",
    },
}

pub static FAMILY: FamilySpec = FamilySpec {
    id: "buddy",
    title: "Binary buddy (Knuth, Linux page allocator)",
    description: "Power-of-two blocks split on allocation and merged with their buddy on free, \
                  in size-aligned arenas committed as blocks are used; a size just above a \
                  power of two wastes almost half its block.",
    params: PARAMS,
};
