//! Sweep results: one row per run (its parameters and its summary's metrics, flattened), kept
//! as a small JSON file per run and gathered into `results.csv`.
//!
//! A row holds its cells as the exact text that goes into the CSV, so gathering rows from
//! several folders (shards) reproduces the full sweep's file byte for byte. Wall-clock time
//! is kept in the row but never written to `results.csv`, which is therefore deterministic.

use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::output::{write_atomic, write_atomic_with};
use crate::summary::Summary;

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Row {
    pub id: String,
    /// Position in the sweep's order.
    pub index: usize,
    /// (sweep key, value) in axis order.
    pub params: Vec<(String, String)>,
    pub replicate: usize,
    pub seed: u64,
    /// Metric column names and their cells.
    pub columns: Vec<String>,
    pub values: Vec<String>,
    pub wall_s: f64,
}

/// Summary fields that are not metrics of the run (or not deterministic).
const SKIPPED: &[&str] = &["scenario", "seed", "run.wall_s"];

fn cell(value: &Value) -> String {
    match value {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn flatten(prefix: &str, value: &Value, out: &mut Vec<(String, String)>) {
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                let key = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                flatten(&key, v, out);
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                flatten(&format!("{prefix}.{i}"), v, out);
            }
        }
        leaf => {
            if !SKIPPED.contains(&prefix) {
                out.push((prefix.to_string(), cell(leaf)));
            }
        }
    }
}

/// A summary as (column, cell) pairs: `aggregate.utilization`, `flows.0.goodput_bps`,
/// `links.0.p99_queue_pkts`, ... in the order of `summary.json`; nulls are empty cells.
pub fn summary_cells(summary: &Summary) -> Vec<(String, String)> {
    let value = serde_json::to_value(summary).expect("a summary serializes");
    let mut out = Vec::new();
    // The figures a sweep is usually about first.
    for section in ["aggregate", "links", "flows", "window", "duration_s", "run"] {
        flatten(section, &value[section], &mut out);
    }
    // Only runs with workloads have them (`workloads.0.buckets.1.slowdown_p99`, ...).
    if let Some(workloads) = value.get("workloads") {
        flatten("workloads", workloads, &mut out);
    }
    out
}

impl Row {
    pub fn new(
        id: String,
        index: usize,
        params: Vec<(String, String)>,
        replicate: usize,
        summary: &Summary,
        wall_s: f64,
    ) -> Row {
        let (columns, values) = summary_cells(summary).into_iter().unzip();
        Row {
            id,
            index,
            params,
            replicate,
            seed: summary.seed,
            columns,
            values,
            wall_s,
        }
    }

    pub fn path(rows_dir: &Path, id: &str) -> PathBuf {
        rows_dir.join(format!("{id}.json"))
    }

    /// Write `rows_dir/<id>.json` atomically: a run is either recorded whole or not at all.
    pub fn write(&self, rows_dir: &Path) -> io::Result<()> {
        let mut json = serde_json::to_vec(self).map_err(io::Error::other)?;
        json.push(b'\n');
        write_atomic(&Row::path(rows_dir, &self.id), &json)
    }

    /// The row of run `id`, if it was recorded (a missing or unreadable file is "not run").
    pub fn read(rows_dir: &Path, id: &str) -> Option<Row> {
        let bytes = std::fs::read(Row::path(rows_dir, id)).ok()?;
        serde_json::from_slice::<Row>(&bytes)
            .ok()
            .filter(|row| row.id == id)
    }

    pub fn get(&self, column: &str) -> Option<&str> {
        self.columns
            .iter()
            .position(|c| c == column)
            .map(|i| self.values[i].as_str())
    }
}

/// The metric columns of the results table, gathered row by row: every column any row has,
/// in order of first appearance, less the swept keys (a swept key that is also a summary
/// field, `flows.0.cc`, is given once, as parameter).
struct ColumnUnion {
    seen: std::collections::HashSet<String>,
    columns: Vec<String>,
}

impl ColumnUnion {
    fn new(axis_keys: &[String]) -> Self {
        ColumnUnion {
            seen: axis_keys.iter().cloned().collect(),
            columns: Vec::new(),
        }
    }

    fn add(&mut self, row: &Row) {
        for c in &row.columns {
            if !self.seen.contains(c) {
                self.seen.insert(c.clone());
                self.columns.push(c.clone());
            }
        }
    }
}

fn header(axis_keys: &[String], metric_columns: &[String]) -> Vec<String> {
    let mut header = vec!["run_id".to_string()];
    header.extend(axis_keys.iter().cloned());
    header.extend(["replicate".to_string(), "seed".to_string()]);
    header.extend(metric_columns.iter().cloned());
    header
}

fn record(row: &Row, axis_keys: &[String], metric_columns: &[String]) -> Vec<String> {
    let mut record = vec![row.id.clone()];
    for key in axis_keys {
        let value = row
            .params
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.clone());
        record.push(value.unwrap_or_default());
    }
    record.push(row.replicate.to_string());
    record.push(row.seed.to_string());
    // A map, not `Row::get` per column (quadratic in the columns); the first of a
    // duplicated column wins, as with `Row::get`.
    let mut cells = std::collections::HashMap::with_capacity(row.columns.len());
    for (c, v) in row.columns.iter().zip(&row.values) {
        cells.entry(c.as_str()).or_insert(v.as_str());
    }
    for c in metric_columns {
        record.push(
            cells
                .get(c.as_str())
                .copied()
                .unwrap_or_default()
                .to_string(),
        );
    }
    record
}

/// The results table: header and one record per row (see [`results_csv`]).
pub fn results_table(axis_keys: &[String], rows: &[Row]) -> (Vec<String>, Vec<Vec<String>>) {
    let mut union = ColumnUnion::new(axis_keys);
    rows.iter().for_each(|row| union.add(row));
    let metric_columns = union.columns;
    let records = rows
        .iter()
        .map(|row| record(row, axis_keys, &metric_columns))
        .collect();
    (header(axis_keys, &metric_columns), records)
}

/// `results.csv` text: `run_id`, the swept keys, `replicate`, `seed`, then every metric
/// column any row has (in order of first appearance; empty where a row lacks it). Rows come
/// in the order given (the sweep's).
pub fn results_csv(axis_keys: &[String], rows: &[Row]) -> io::Result<Vec<u8>> {
    let (header, records) = results_table(axis_keys, rows);
    let mut writer = csv::Writer::from_writer(Vec::new());
    writer.write_record(&header).map_err(io::Error::other)?;
    for record in records {
        writer.write_record(&record).map_err(io::Error::other)?;
    }
    writer
        .into_inner()
        .map_err(|e| io::Error::other(e.to_string()))
}

/// `sweep.json`: what a sweep folder holds, so that a re-run, a shard and a merge can tell
/// whether rows belong together. Written once when the sweep starts.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct SweepManifest {
    pub name: String,
    /// Fingerprint of the base scenario, the grid and the seeds.
    pub fingerprint: String,
    /// The swept keys, in axis order.
    pub axes: Vec<String>,
    /// Every run id of the whole sweep, in the sweep's order.
    pub runs: Vec<String>,
}

impl SweepManifest {
    pub const FILE: &str = "sweep.json";

    pub fn read(dir: &Path) -> io::Result<SweepManifest> {
        let bytes = std::fs::read(dir.join(Self::FILE))?;
        serde_json::from_slice(&bytes).map_err(io::Error::other)
    }

    pub fn write(&self, dir: &Path) -> io::Result<()> {
        let mut json = serde_json::to_vec_pretty(self).map_err(io::Error::other)?;
        json.push(b'\n');
        // The tasks of a job array may all find no sweep.json and write it at once.
        crate::output::write_atomic_shared(&dir.join(Self::FILE), &json)
    }

    /// How many runs of this sweep have a row in `dir/rows` (a file check per run; the rows
    /// are not read).
    pub fn recorded_count(&self, dir: &Path) -> usize {
        let rows_dir = dir.join("rows");
        self.runs
            .iter()
            .filter(|id| Row::path(&rows_dir, id).exists())
            .count()
    }

    /// The recorded rows of this sweep in `dir/rows`, in the sweep's order.
    pub fn rows(&self, dir: &Path) -> Vec<Row> {
        let rows_dir = dir.join("rows");
        self.runs
            .iter()
            .filter_map(|id| Row::read(&rows_dir, id))
            .collect()
    }

    /// Gather the recorded rows into `dir/results.csv` (and `results.parquet` with the
    /// `parquet` feature); returns how many there were.
    ///
    /// The CSV is streamed in two passes over the row files (the columns, then the records),
    /// so it never holds the rows: with 100 000 runs they would take over a gigabyte. It is
    /// the same text as [`results_csv`] of all the rows.
    pub fn write_results(&self, dir: &Path) -> io::Result<usize> {
        let rows_dir = dir.join("rows");
        let each_row = || self.runs.iter().filter_map(|id| Row::read(&rows_dir, id));
        let mut union = ColumnUnion::new(&self.axes);
        let mut recorded = 0;
        for row in each_row() {
            recorded += 1;
            union.add(&row);
        }
        let columns = union.columns;
        write_atomic_with(&dir.join("results.csv"), |out| {
            let mut writer = csv::Writer::from_writer(out);
            writer
                .write_record(header(&self.axes, &columns))
                .map_err(io::Error::other)?;
            for row in each_row() {
                writer
                    .write_record(record(&row, &self.axes, &columns))
                    .map_err(io::Error::other)?;
            }
            writer.flush()
        })?;
        #[cfg(feature = "parquet")]
        write_atomic(
            &dir.join("results.parquet"),
            &crate::parquet_results::results_parquet(&self.axes, &self.rows(dir))?,
        )?;
        Ok(recorded)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(id: &str, columns: &[(&str, &str)]) -> Row {
        Row {
            id: id.into(),
            index: 0,
            params: vec![("flows.0.cc".into(), "reno".into())],
            replicate: 0,
            seed: 5,
            columns: columns.iter().map(|(c, _)| c.to_string()).collect(),
            values: columns.iter().map(|(_, v)| v.to_string()).collect(),
            wall_s: 1.5,
        }
    }

    #[test]
    fn csv_takes_the_union_of_columns_and_skips_wall_time() {
        let rows = [
            row(
                "a",
                &[("aggregate.utilization", "0.9"), ("flows.0.fct_s", "")],
            ),
            row(
                "b",
                &[
                    ("aggregate.utilization", "0.5"),
                    ("flows.1.goodput_bps", "7"),
                ],
            ),
        ];
        let text = String::from_utf8(results_csv(&["flows.0.cc".into()], &rows).unwrap()).unwrap();
        assert_eq!(
            text,
            "run_id,flows.0.cc,replicate,seed,aggregate.utilization,flows.0.fct_s,flows.1.goodput_bps\n\
             a,reno,0,5,0.9,,\n\
             b,reno,0,5,0.5,,7\n"
        );
    }

    #[test]
    fn streamed_results_equal_the_table_of_all_rows() {
        // The rows of the test above, written as a sweep folder with a run not yet done
        // between them: the streamed file is the same text, written out by hand.
        let dir = std::env::temp_dir().join(format!("cclab-results-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("rows")).unwrap();
        row(
            "a",
            &[("aggregate.utilization", "0.9"), ("flows.0.fct_s", "")],
        )
        .write(&dir.join("rows"))
        .unwrap();
        row(
            "b",
            &[
                ("aggregate.utilization", "0.5"),
                ("flows.0.cc", "reno"),
                ("flows.1.goodput_bps", "7"),
            ],
        )
        .write(&dir.join("rows"))
        .unwrap();
        let manifest = SweepManifest {
            name: "t".into(),
            fingerprint: "0".into(),
            axes: vec!["flows.0.cc".into()],
            runs: vec!["a".into(), "not-run".into(), "b".into()],
        };
        assert_eq!(manifest.write_results(&dir).unwrap(), 2);
        let text = std::fs::read_to_string(dir.join("results.csv")).unwrap();
        // `flows.0.cc` is swept, so it is a parameter column and not repeated as a metric.
        assert_eq!(
            text,
            "run_id,flows.0.cc,replicate,seed,aggregate.utilization,flows.0.fct_s,flows.1.goodput_bps\n\
             a,reno,0,5,0.9,,\n\
             b,reno,0,5,0.5,,7\n"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn rows_round_trip_through_files() {
        let dir = std::env::temp_dir().join(format!("cclab-rows-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let r = row("abc", &[("aggregate.jain_index", "0.3333333333333333")]);
        r.write(&dir).unwrap();
        assert_eq!(Row::read(&dir, "abc"), Some(r));
        assert_eq!(Row::read(&dir, "missing"), None);
        std::fs::write(Row::path(&dir, "torn"), b"{\"id\": \"to").unwrap();
        assert_eq!(Row::read(&dir, "torn"), None);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
