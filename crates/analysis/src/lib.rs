//! cclab-analysis: metrics from a run, the output folder's files, figures and human reports.

pub mod html_report;
pub mod metrics;
pub mod output;
#[cfg(feature = "parquet")]
pub mod parquet_results;
pub mod pcap;
pub mod plot;
pub mod rates;
pub mod report;
pub mod results;
pub mod summary;

pub use output::{CsvSink, write_atomic, write_summary};
pub use rates::RateSeries;
pub use report::summary_table;
pub use summary::{Summary, summarize};
