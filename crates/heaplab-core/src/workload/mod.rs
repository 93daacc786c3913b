//! Built-in workloads: generators that push events into a sink, deterministic for a given
//! seed, with a `scale` knob so each fits a browser tab.

mod mallocbench;

use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;

use crate::event::Event;
use crate::params::{ParamError, ParamKind, ParamSpec, Params};

/// Where a generator sends its events. The error stops the generator at once; it is the
/// simulator's, passed through untouched.
pub type Sink<'a, E> = dyn FnMut(Event) -> Result<(), E> + 'a;

/// A built-in workload: id, what it is, its knobs and its generator.
#[derive(Clone, Copy, Debug)]
pub struct WorkloadSpec {
    pub id: &'static str,
    pub title: &'static str,
    pub description: &'static str,
    pub params: &'static [ParamSpec],
    kind: Kind,
}

#[derive(Clone, Copy, Debug)]
enum Kind {
    Churn,
    TreeChurn,
    Medium,
}

impl WorkloadSpec {
    /// Runs the generator with resolved parameters.
    pub fn generate<E>(&self, params: &Params, sink: &mut Sink<'_, E>) -> Result<(), E> {
        match self.kind {
            Kind::Churn => mallocbench::churn(params, sink),
            Kind::TreeChurn => mallocbench::tree_churn(params, sink),
            Kind::Medium => mallocbench::medium(params, sink),
        }
    }
}

const SEED: ParamSpec = ParamSpec {
    name: "seed",
    kind: ParamKind::Int {
        min: 0,
        max: 1 << 53,
    },
    default: "1",
    unit: "",
    doc: "Seed of the random choices; the same seed gives the same events.",
};

const fn scale(default: &'static str) -> ParamSpec {
    ParamSpec {
        name: "scale",
        kind: ParamKind::Float {
            min: 0.0001,
            max: 10.0,
        },
        default,
        unit: "x",
        doc: "Fraction of MallocBench's full size (1 = the original benchmark).",
    }
}

/// Every built-in workload.
pub const WORKLOADS: &[WorkloadSpec] = &[
    WorkloadSpec {
        id: "churn",
        title: "churn (MallocBench)",
        description: "Allocate an 8-byte object, use it, free it, 7 million times, next to one \
                      long-lived object. At most two blocks are live: the allocator's fast path \
                      and nothing else.",
        params: &[SEED, scale("0.1")],
        kind: Kind::Churn,
    },
    WorkloadSpec {
        id: "tree_churn",
        title: "tree_churn (MallocBench)",
        description: "Build a complete binary tree of depth 15 (48-byte nodes, each with a small \
                      payload), then walk it in order 160 times; every 8th node visited gets both \
                      subtrees replaced by new ones and the old ones freed. A long-lived structure \
                      with steady churn of mixed small sizes.",
        params: &[SEED, scale("0.05")],
        kind: Kind::TreeChurn,
    },
    WorkloadSpec {
        id: "medium",
        title: "medium (MallocBench)",
        description: "Allocate 1 GiB in total of zeroed objects of 1 to 8 KiB, all live at once, \
                      then free them in allocation order. Tests how medium sizes are packed and \
                      whether freed memory goes back to the system.",
        params: &[SEED, scale("0.05")],
        kind: Kind::Medium,
    },
];

/// Looks a workload up by id.
pub fn find(id: &str) -> Result<&'static WorkloadSpec, ParamError> {
    WORKLOADS.iter().find(|w| w.id == id).ok_or_else(|| {
        let ids: Vec<&str> = WORKLOADS.iter().map(|w| w.id).collect();
        ParamError {
            field: "workload.id".into(),
            message: format!(
                "unknown workload {id:?}; built-in ones are: {} (or give a .trace file)",
                ids.join(", ")
            ),
        }
    })
}

/// The generator's random source: a fixed algorithm, so a seed means the same events on
/// every platform, native or wasm.
pub(crate) fn rng(params: &Params) -> Pcg64Mcg {
    Pcg64Mcg::seed_from_u64(params.u64("seed"))
}

/// `full` scaled, at least one.
pub(crate) fn scaled(params: &Params, full: f64) -> u64 {
    ((full * params.f64("scale")).round() as u64).max(1)
}
