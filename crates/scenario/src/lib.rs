//! cclab-scenario: scenario files (TOML) → a validated [`Scenario`].
//!
//! Units are parsed only here ([`units`]); every problem becomes a [`ScenarioError`] naming
//! the file, the key and what is wrong, never a panic.

pub mod connection;
mod error;
pub mod link_kind;
pub mod model;
pub mod network;
mod overrides;
mod parse;
pub mod path_preset;
pub mod resources;
pub mod send_buffer;
pub mod sharing;
pub mod sweep;
pub mod trace_link;
pub mod traffic;
pub mod units;
pub mod wifi;

use std::path::Path;

pub use connection::{ConnectionOptions, ScalingRatio, TcpRmem};
pub use error::{ECHO_LIMIT, ScenarioError, one_line, shorten, shorten_quoted};
pub use link_kind::LinkKind;
pub use model::*;
pub use model::{MAX_OUTPUT_DEFAULT, OutputEstimate, format_bytes};
pub use network::*;
pub use overrides::{apply_override, parse_value, set_path};
pub use parse::scenario_from_table;
pub use send_buffer::{SendBuffer, SendBufferAccounting, SendBufferSize, TCP_WMEM_DEFAULT};
pub use sweep::{RunSpec, Sweep, load_sweep};
pub use traffic::{EmpiricalCdf, FlowKind, SizeDistribution, WorkloadConfig};
pub use wifi::{WIFI_PRESETS, WifiConfig};

/// Parse TOML text into a table, mapping syntax errors to line and column.
pub fn parse_table(file: &str, text: &str) -> Result<toml::Table, ScenarioError> {
    text.parse::<toml::Table>().map_err(|e| {
        let (line, column) = e
            .span()
            .map(|span| line_and_column(text, span.start))
            .unwrap_or((1, 1));
        let mut message = e.message().trim().to_string();
        // The TOML parser stores integers as i64 and says only "u64 value was too large".
        if message.contains("too large") {
            message = "integer too large: TOML integers stop at 9223372036854775807".into();
            let line_text = text.lines().nth(line - 1).unwrap_or("");
            if line_text.trim_start().starts_with("seed") {
                message.push_str(
                    "; a larger seed (up to 18446744073709551615) goes in a string, \
                     e.g. seed = \"18446744073709551615\"",
                );
            }
        }
        ScenarioError::Syntax {
            file: file.to_string(),
            line,
            column,
            message,
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

/// The largest scenario or sweep file read: 1 MiB. The largest example is about 1 kB; the
/// limit only stops `cclab run /dev/zero`-like inputs from reading until memory runs out.
pub const MAX_SCENARIO_BYTES: u64 = 1024 * 1024;

/// The text of a scenario (or sweep) file: a regular file of at most [`MAX_SCENARIO_BYTES`].
/// Devices, FIFOs and folders are refused before they are opened (opening a FIFO would
/// block, reading `/dev/zero` would never end).
pub fn read_scenario_text(path: &Path) -> Result<String, ScenarioError> {
    use std::io::Read;
    let file = path.display().to_string();
    let read_error = |e: std::io::Error| ScenarioError::Read {
        file: file.clone(),
        message: e.to_string(),
    };
    let refuse = |message: String| ScenarioError::File {
        file: file.clone(),
        message,
    };
    let kind = |m: &std::fs::Metadata| {
        if m.is_dir() {
            "a folder"
        } else {
            "not a regular file"
        }
    };
    let metadata = std::fs::metadata(path).map_err(read_error)?;
    if !metadata.is_file() {
        return Err(refuse(format!(
            "is {}; give a scenario file (TOML)",
            kind(&metadata)
        )));
    }
    let too_large = || {
        refuse(format!(
            "is larger than {} KiB, the limit for scenario files",
            MAX_SCENARIO_BYTES / 1024
        ))
    };
    if metadata.len() > MAX_SCENARIO_BYTES {
        return Err(too_large());
    }
    let mut bytes = Vec::new();
    // The file may have grown since metadata was read: read at most one byte past the limit.
    std::fs::File::open(path)
        .map_err(read_error)?
        .take(MAX_SCENARIO_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(read_error)?;
    if bytes.len() as u64 > MAX_SCENARIO_BYTES {
        return Err(too_large());
    }
    String::from_utf8(bytes).map_err(|_| refuse("is not UTF-8 text (TOML files are UTF-8)".into()))
}

/// Read and validate a scenario file.
pub fn load(path: &Path, overrides: &[String]) -> Result<Scenario, ScenarioError> {
    let file = path.display().to_string();
    let text = read_scenario_text(path)?;
    from_str(&file, &text, overrides)
}

/// Refuse a run whose output would exceed `output.max_size` (before any work): one sentence
/// with the estimate, naming the `[output]` key that sizes the largest file.
pub fn check_output_size(scenario: &Scenario) -> Result<OutputEstimate, ScenarioError> {
    let estimate = scenario.output_estimate();
    let Some(limit) = scenario.output.max_size else {
        return Ok(estimate);
    };
    let total = estimate.total_bytes();
    if total <= limit {
        return Ok(estimate);
    }
    let (file, rows, key) = estimate.largest();
    let flows = match estimate.flows {
        1 => "1 flow".to_string(),
        n => format!("{n} flows"),
    };
    let (cause, remedy) = match key {
        "interval" => (
            format!(
                "{flows} sampled every {} for {}",
                scenario.output.interval, scenario.duration
            ),
            "sample less often (a longer output.interval)",
        ),
        "rate_interval" => (
            format!(
                "{flows} in rate bins of {} for {}",
                scenario.output.rate_interval, scenario.duration
            ),
            "use wider rate bins (a longer output.rate_interval)",
        ),
        "load" => (
            format!(
                "about {rows} short flows of the workloads (one flows.csv row each) in {}",
                scenario.duration
            ),
            "lower a workload's `load`, stop its arrivals earlier (`stop`) or shorten the run",
        ),
        _ => (
            format!(
                "tracing every packet at {} bit/s for {}",
                scenario.topology.fastest_rate_bps(),
                scenario.duration
            ),
            "trace a shorter run",
        ),
    };
    // flows.csv grows with a workload's arrivals: name its `load`.
    let key = match key {
        "load" => {
            let first = scenario
                .flows
                .iter()
                .position(|g| g.kind.workload().is_some());
            format!("flows.{}.load", first.unwrap_or(0))
        }
        other => format!("output.{other}"),
    };
    Err(ScenarioError::Invalid {
        file: scenario.source.clone(),
        key,
        message: format!(
            "{cause} would write about {} ({file}: {rows} rows), more than the {} limit; \
             {remedy}, or raise the limit with --max-output SIZE or output.max_size",
            format_bytes(total),
            format_bytes(limit)
        ),
    })
}

#[cfg(test)]
mod tests;
