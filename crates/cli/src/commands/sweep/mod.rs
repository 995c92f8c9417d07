//! `cclab sweep FILE.toml` and `cclab sweep merge`: many runs over a parameter grid.
//!
//! An output folder holds `sweep.json` (what the sweep is), `rows/<run id>.json` (one per
//! finished run, written atomically), `results.csv` (gathered from the rows) and, with
//! `--keep-runs`, `runs/<run id>/` (each run's own output folder). A run whose row exists is
//! never run again, so an interrupted sweep resumes where it stopped.

pub mod merge;
pub mod plan;
pub mod runner;
pub mod schedule;
pub mod shard;
pub mod shared_folder;
pub mod slurm;
pub mod status;

pub use shard::Shard;
