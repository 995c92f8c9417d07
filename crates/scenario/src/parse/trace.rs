//! `kind = "trace"` link keys: `trace`, `reverse_trace` (mahimahi files, relative to the
//! scenario file).

use super::section::Section;
use crate::error::ScenarioError;
use crate::trace_link::TraceConfig;

/// Keys of a trace link beyond a wired link's.
pub(super) const KEYS: &[&str] = &["kind", "trace", "reverse_trace"];

pub(super) fn trace(section: &Section) -> Result<TraceConfig, ScenarioError> {
    Err(section.invalid("kind", "trace links are not built yet"))
}
