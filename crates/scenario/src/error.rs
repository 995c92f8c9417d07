use thiserror::Error;

/// Why a scenario was rejected: one sentence naming the file, the key and the problem.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum ScenarioError {
    #[error("{file}: cannot read: {message}")]
    Read { file: String, message: String },
    #[error("{file}: line {line}, column {column}: {message}")]
    Syntax {
        file: String,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("{file}: {key}: {message}")]
    Invalid {
        file: String,
        key: String,
        message: String,
    },
    /// A `[sweep]` key, or a run it produces, is invalid.
    #[error("{file}: [sweep] {key}: {message}")]
    Sweep {
        file: String,
        key: String,
        message: String,
    },
    #[error("--set {assignment}: {message}")]
    Override { assignment: String, message: String },
}
