//! `cclab sweep FILE.toml` and `cclab sweep merge`: many runs over a parameter grid.
//!
//! An output folder holds `sweep.json` (what the sweep is), `rows/<run id>.json` (one per
//! finished run, written atomically), `results.csv` (gathered from the rows) and, with
//! `--keep-runs`, `runs/<run id>/` (each run's own output folder). A run whose row exists is
//! never run again, so an interrupted sweep resumes where it stopped.

pub mod merge;
pub mod runner;

/// `--shard I/N`: run the runs whose index `k` has `k mod N = I − 1`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    pub index: usize,
    pub count: usize,
}

impl Shard {
    pub fn parse(text: &str) -> Result<Shard, String> {
        let problem = || format!("--shard {text}: expected I/N with 1 <= I <= N, e.g. --shard 1/4");
        let (i, n) = text.split_once('/').ok_or_else(problem)?;
        let index: usize = i.trim().parse().map_err(|_| problem())?;
        let count: usize = n.trim().parse().map_err(|_| problem())?;
        if count == 0 || index == 0 || index > count {
            return Err(problem());
        }
        Ok(Shard { index, count })
    }

    pub fn contains(&self, run_index: usize) -> bool {
        run_index % self.count == self.index - 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_partition_the_runs() {
        let shards: Vec<Shard> = (1..=3)
            .map(|i| Shard::parse(&format!("{i}/3")).unwrap())
            .collect();
        for k in 0..20 {
            assert_eq!(shards.iter().filter(|s| s.contains(k)).count(), 1);
        }
        assert!(Shard::parse("0/2").is_err());
        assert!(Shard::parse("3/2").is_err());
        assert!(Shard::parse("1/0").is_err());
        assert!(Shard::parse("1").is_err());
        assert!(Shard::parse("a/b").is_err());
    }
}
