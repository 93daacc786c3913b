//! `CliError`, the CLI's one error type, carries a message for the user and an exit code.

use heaplab_core::run::RunError;
use heaplab_native::ReplayError;

/// An error for the user: the message to print and the exit code. Bad input (unknown
/// names, bad values, broken files) exits with 2; a run that fails on good input with 1.
#[derive(Debug)]
pub struct CliError {
    pub code: u8,
    pub message: String,
}

impl CliError {
    pub fn input(message: impl Into<String>) -> CliError {
        CliError {
            code: 2,
            message: message.into(),
        }
    }

    pub fn failed(message: impl Into<String>) -> CliError {
        CliError {
            code: 1,
            message: message.into(),
        }
    }
}

/// A run's errors are the input's: a config that does not resolve, or a trace line or
/// event that cannot be carried out.
impl From<RunError> for CliError {
    fn from(e: RunError) -> CliError {
        match e {
            RunError::Config(e) => CliError::input(e.to_string()),
            RunError::Event(msg) => CliError::input(msg),
        }
    }
}

/// Decoding and replaying over real memory name bad input (a config, a trace line) apart
/// from a failure of the replay itself.
impl From<ReplayError> for CliError {
    fn from(e: ReplayError) -> CliError {
        match e {
            ReplayError::Input(m) => CliError::input(m),
            ReplayError::Failed(m) => CliError::failed(m),
        }
    }
}
