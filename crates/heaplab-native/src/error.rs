//! Why a real replay, or a model of one, could not be done.

use std::fmt;

use heaplab_core::params::ParamError;
use heaplab_core::provider::ProviderError;
use heaplab_core::simulate::SimError;

/// Why a real replay could not be done.
#[derive(Debug)]
pub enum ReplayError {
    /// Bad input: a config the real provider cannot run, a bad trace, an unknown workload.
    Input(String),
    /// The run itself failed: the platform refused, or an event could not be carried out.
    Failed(String),
}

impl fmt::Display for ReplayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReplayError::Input(m) | ReplayError::Failed(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for ReplayError {}

impl From<ParamError> for ReplayError {
    fn from(e: ParamError) -> ReplayError {
        ReplayError::Input(e.to_string())
    }
}

impl From<ProviderError> for ReplayError {
    fn from(e: ProviderError) -> ReplayError {
        ReplayError::Failed(e.to_string())
    }
}

impl From<SimError> for ReplayError {
    fn from(e: SimError) -> ReplayError {
        ReplayError::Failed(e.to_string())
    }
}
