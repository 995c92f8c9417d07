//! `kind = "trace"` link keys: `trace`, `reverse_trace` (mahimahi files, relative to the
//! scenario file's folder), read and validated here so that the simulator does no file IO.

use std::path::{Path, PathBuf};

use toml::Value;

use super::section::Section;
use crate::error::ScenarioError;
use crate::trace_link::{DeliverySchedule, TraceConfig, parse_trace_text};

/// Keys of a trace link beyond a wired link's.
pub(super) const KEYS: &[&str] = &["kind", "trace", "reverse_trace"];

/// The largest trace file read: 64 MiB, about 8 million opportunities (an hour at 40 Mbit/s
/// is 12 MB). The limit only stops a mistaken path (a device, a huge log) from filling memory.
const MAX_TRACE_BYTES: u64 = 64 * 1024 * 1024;

pub(super) fn trace(section: &Section) -> Result<TraceConfig, ScenarioError> {
    let forward = match section.get("trace") {
        Some(_) => schedule(section, "trace")?,
        None => {
            return Err(section.invalid(
                "trace",
                "missing; a trace link names its mahimahi file, e.g. trace = \"traces/lte.trace\"",
            ));
        }
    };
    let reverse = match section.get("reverse_trace") {
        Some(_) => Some(schedule(section, "reverse_trace")?),
        None => None,
    };
    Ok(TraceConfig { forward, reverse })
}

/// `path` as the scenario file `file` names it: relative paths start at its folder.
fn resolve(file: &str, path: &str) -> PathBuf {
    let folder = Path::new(file).parent().unwrap_or(Path::new(""));
    folder.join(path)
}

/// The schedule in the file named by `key`.
fn schedule(section: &Section, key: &str) -> Result<DeliverySchedule, ScenarioError> {
    let name = match section.get(key) {
        Some(Value::String(s)) if !s.is_empty() => s.clone(),
        _ => {
            return Err(section.invalid(
                key,
                "must be the path of a mahimahi trace file, relative to the scenario file",
            ));
        }
    };
    let path = resolve(section.file, &name);
    let shown = path.display().to_string();
    let text = read(&path)
        .map_err(|problem| section.invalid(key, &format!("trace file {shown} {problem}")))?;
    let times = parse_trace_text(&text).map_err(|e| {
        section.invalid(
            key,
            &format!("trace file {shown} line {}: {}", e.line, e.problem),
        )
    })?;
    Ok(DeliverySchedule {
        file: name,
        times_ms: times.into(),
    })
}

/// The text of a regular file of at most [`MAX_TRACE_BYTES`], or what is wrong with it.
fn read(path: &Path) -> Result<String, String> {
    use std::io::Read;
    let metadata = std::fs::metadata(path).map_err(|e| format!("cannot be read: {e}"))?;
    if !metadata.is_file() {
        return Err("is not a regular file".into());
    }
    let too_large = || format!("is larger than {} MiB", MAX_TRACE_BYTES >> 20);
    if metadata.len() > MAX_TRACE_BYTES {
        return Err(too_large());
    }
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(MAX_TRACE_BYTES + 1).read_to_end(&mut bytes))
        .map_err(|e| format!("cannot be read: {e}"))?;
    if bytes.len() as u64 > MAX_TRACE_BYTES {
        return Err(too_large());
    }
    String::from_utf8(bytes).map_err(|_| "is not text (one integer per line)".into())
}

#[cfg(test)]
#[path = "trace_tests.rs"]
mod tests;
