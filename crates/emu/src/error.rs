//! What can go wrong: the scenario asks for what emulation cannot do, the machine cannot
//! emulate, or a system call failed during the run.

use std::io;

#[derive(Debug, thiserror::Error)]
pub enum EmuError {
    /// The scenario uses something the emulator does not (yet) provide; one sentence.
    #[error("{0}")]
    Unsupported(String),
    /// The machine cannot emulate (no root, no TUN, no `ip`); one sentence.
    #[error("{0}")]
    Unavailable(String),
    /// A system call or a helper program failed.
    #[error("{what}: {source}")]
    Io {
        what: String,
        #[source]
        source: io::Error,
    },
    /// An endpoint program misbehaved (exited early, printed something unexpected).
    #[error("{0}")]
    Endpoint(String),
}

impl EmuError {
    pub fn io(what: impl Into<String>, source: io::Error) -> Self {
        EmuError::Io {
            what: what.into(),
            source,
        }
    }

    /// The last OS error, as `Io` with `what`.
    pub fn last_os(what: impl Into<String>) -> Self {
        EmuError::io(what, io::Error::last_os_error())
    }
}
