//! `Watch<P>`: a provider that forwards every call to `P` and keeps, for the event being
//! applied, the policy's decisions and the page operations they led to. The only provider
//! that overrides [`PageProvider::note`]; the simulator over any other never builds a
//! decision.

use heaplab_core::decision::Decision;
use heaplab_core::provider::{Addr, PageProvider, ProviderCaps, ProviderError};

#[derive(Clone, Debug)]
pub struct Watch<P> {
    inner: P,
    /// Decisions since the last [`Watch::take`], in the order they were made.
    pub(crate) log: Vec<Decision>,
    /// A reason noted and not yet attached to a page operation.
    reason: Option<&'static str>,
    /// While set, nothing is kept and no decision is built: a session moving fast to a
    /// far event pays only for the simulation.
    quiet: bool,
}

impl<P: PageProvider> Watch<P> {
    pub fn new(inner: P) -> Watch<P> {
        Watch {
            inner,
            log: Vec::new(),
            reason: None,
            quiet: false,
        }
    }

    /// Keeps nothing while `quiet` is set (see the field).
    pub fn set_quiet(&mut self, quiet: bool) {
        self.quiet = quiet;
        if quiet {
            self.take();
        }
    }

    /// The decisions since the last call, leaving none.
    pub fn take(&mut self) -> Vec<Decision> {
        self.reason = None;
        std::mem::take(&mut self.log)
    }

    fn page_op(&mut self, op: &'static str, addr: Addr, bytes: u64) {
        if self.quiet {
            return;
        }
        let reason = self.reason.take();
        self.log.push(Decision::PageOp {
            op,
            addr,
            bytes,
            reason,
        });
    }
}

impl<P: PageProvider> PageProvider for Watch<P> {
    fn watching(&self) -> bool {
        !self.quiet
    }

    fn caps(&self) -> ProviderCaps {
        self.inner.caps()
    }

    fn populate(&mut self, addr: Addr, bytes: u64) {
        self.inner.populate(addr, bytes);
    }

    fn reserve(&mut self, bytes: u64, align: u64) -> Result<Addr, ProviderError> {
        let addr = self.inner.reserve(bytes, align)?;
        self.page_op("reserve", addr, bytes);
        Ok(addr)
    }

    fn commit(&mut self, addr: Addr, bytes: u64) -> Result<(), ProviderError> {
        self.inner.commit(addr, bytes)?;
        self.page_op("commit", addr, bytes);
        Ok(())
    }

    fn decommit(&mut self, addr: Addr, bytes: u64) -> Result<(), ProviderError> {
        self.inner.decommit(addr, bytes)?;
        self.page_op("decommit", addr, bytes);
        Ok(())
    }

    fn release(&mut self, addr: Addr, bytes: u64) -> Result<(), ProviderError> {
        self.inner.release(addr, bytes)?;
        self.page_op("release", addr, bytes);
        Ok(())
    }

    fn write(&mut self, addr: Addr, bytes: u64) {
        self.inner.write(addr, bytes);
    }

    fn verify(&self, addr: Addr, bytes: u64) -> Result<(), ProviderError> {
        self.inner.verify(addr, bytes)
    }

    fn note<F: FnOnce() -> Decision>(&mut self, decision: F) {
        if self.quiet {
            return;
        }
        match decision() {
            // A reason belongs to the page operation that follows it, not to the log.
            Decision::Reason { why } => self.reason = Some(why),
            d => self.log.push(d),
        }
    }
}
