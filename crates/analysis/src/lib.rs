//! cclab-analysis: metrics from a run, the output folder's files, and human reports.

pub mod metrics;
pub mod output;
pub mod report;
pub mod summary;

pub use output::{CsvSink, write_atomic, write_summary};
pub use report::summary_table;
pub use summary::{Summary, summarize};
