//! `kind = "trace"`: a link whose packets leave at the delivery opportunities of a trace file
//! (mahimahi's format), loaded and validated at parse time.

/// A trace-driven link's schedules, one per direction.
#[derive(Clone, Debug, PartialEq)]
pub struct TraceConfig {}
