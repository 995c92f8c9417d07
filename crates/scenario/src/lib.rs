//! cclab-scenario: scenario files (TOML) → a validated [`Scenario`].
//!
//! Units are parsed only here ([`units`]); every problem becomes a [`ScenarioError`] naming
//! the file, the key and what is wrong, never a panic.

mod error;
pub mod model;
mod overrides;
mod parse;
pub mod sweep;
pub mod units;

use std::path::Path;

pub use error::ScenarioError;
pub use model::*;
pub use overrides::{apply_override, parse_value, set_path};
pub use parse::scenario_from_table;
pub use sweep::{RunSpec, Sweep, load_sweep};

/// Parse TOML text into a table, mapping syntax errors to line and column.
pub fn parse_table(file: &str, text: &str) -> Result<toml::Table, ScenarioError> {
    text.parse::<toml::Table>().map_err(|e| {
        let (line, column) = e
            .span()
            .map(|span| line_and_column(text, span.start))
            .unwrap_or((1, 1));
        ScenarioError::Syntax {
            file: file.to_string(),
            line,
            column,
            message: e.message().trim().to_string(),
        }
    })
}

fn line_and_column(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

/// Validate scenario text with `--set` overrides applied first.
pub fn from_str(file: &str, text: &str, overrides: &[String]) -> Result<Scenario, ScenarioError> {
    let mut table = parse_table(file, text)?;
    for assignment in overrides {
        apply_override(&mut table, assignment)?;
    }
    scenario_from_table(file, &table)
}

/// Read and validate a scenario file.
pub fn load(path: &Path, overrides: &[String]) -> Result<Scenario, ScenarioError> {
    let file = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| ScenarioError::Read {
        file: file.clone(),
        message: e.to_string(),
    })?;
    from_str(&file, &text, overrides)
}

#[cfg(test)]
mod tests;
