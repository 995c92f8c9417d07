//! `--shard I/N` and `--shard auto`: which slice of a sweep's runs this process runs.
//!
//! Slices are interleaved (run `k` belongs to slice `k mod N + 1`), so that every slice gets
//! a similar mix of the grid's cheap and expensive corners.

/// `--shard I/N`: run the runs whose index `k` has `k mod N = I − 1`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    pub index: usize,
    pub count: usize,
}

/// What `--shard auto` reads, in this order.
pub const SCHEDULER_VARIABLES: &str = "SLURM_ARRAY_TASK_ID with SLURM_ARRAY_TASK_COUNT (Slurm job arrays), or JOB_COMPLETION_INDEX with CCLAB_SHARD_COUNT (Kubernetes indexed jobs)";

impl Shard {
    /// `I/N`, or `auto` to take the slice from the scheduler's environment.
    pub fn parse(text: &str) -> Result<Shard, String> {
        if text.trim() == "auto" {
            return Shard::from_environment(|name| std::env::var(name).ok());
        }
        let problem =
            || format!("--shard {text}: expected I/N with 1 <= I <= N (e.g. --shard 1/4), or auto");
        let (i, n) = text.split_once('/').ok_or_else(problem)?;
        let index: usize = i.trim().parse().map_err(|_| problem())?;
        let count: usize = n.trim().parse().map_err(|_| problem())?;
        if count == 0 || index == 0 || index > count {
            return Err(problem());
        }
        Ok(Shard { index, count })
    }

    /// The slice a scheduler gave this task, from its environment variables (`get`).
    ///
    /// Slurm numbers array tasks by the `--array` range, which may start anywhere and step
    /// (`--array=0-30:2`): the slice is the task's position in the range,
    /// (SLURM_ARRAY_TASK_ID − SLURM_ARRAY_TASK_MIN) / SLURM_ARRAY_TASK_STEP + 1, out of
    /// SLURM_ARRAY_TASK_COUNT. Kubernetes' indexed jobs set JOB_COMPLETION_INDEX (from 0) but
    /// not the number of completions, so that comes from CCLAB_SHARD_COUNT.
    pub fn from_environment(get: impl Fn(&str) -> Option<String>) -> Result<Shard, String> {
        let number =
            |name: &str| -> Result<Option<usize>, String> {
                match get(name) {
                    None => Ok(None),
                    Some(text) => text.trim().parse().map(Some).map_err(|_| {
                        format!("--shard auto: {name} = {text:?} is not a whole number")
                    }),
                }
            };
        let checked = |index: usize, count: usize, source: &str| {
            if count == 0 || index == 0 || index > count {
                Err(format!(
                    "--shard auto: {source} gives slice {index} of {count}, which does not exist"
                ))
            } else {
                Ok(Shard { index, count })
            }
        };
        if let Some(id) = number("SLURM_ARRAY_TASK_ID")? {
            let count = number("SLURM_ARRAY_TASK_COUNT")?.ok_or(
                "--shard auto: SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_COUNT is not (Slurm sets it for job arrays since 17.11); give --shard I/N",
            )?;
            let min = number("SLURM_ARRAY_TASK_MIN")?.unwrap_or(0);
            let step = number("SLURM_ARRAY_TASK_STEP")?.unwrap_or(1).max(1);
            if id < min || (id - min) % step != 0 {
                return Err(format!(
                    "--shard auto: array task {id} is not in the range that starts at {min} with step {step}"
                ));
            }
            return checked((id - min) / step + 1, count, "the Slurm array");
        }
        if let Some(index) = number("JOB_COMPLETION_INDEX")? {
            let count = number("CCLAB_SHARD_COUNT")?.ok_or(
                "--shard auto: JOB_COMPLETION_INDEX is set but Kubernetes does not say how many completions there are; set CCLAB_SHARD_COUNT to the job's completions",
            )?;
            return checked(index + 1, count, "the Kubernetes job");
        }
        Err(format!(
            "--shard auto: no scheduler index in the environment (looked for {SCHEDULER_VARIABLES}); give --shard I/N"
        ))
    }

    pub fn contains(&self, run_index: usize) -> bool {
        run_index % self.count == self.index - 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name| {
            pairs
                .iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| v.to_string())
        }
    }

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

    #[test]
    fn slurm_array_positions_become_slices() {
        // `--array=1-4`: tasks 1..4 are slices 1..4 of 4.
        let task = |id: &'static str| {
            Shard::from_environment(env(&[
                ("SLURM_ARRAY_TASK_ID", id),
                ("SLURM_ARRAY_TASK_COUNT", "4"),
                ("SLURM_ARRAY_TASK_MIN", "1"),
                ("SLURM_ARRAY_TASK_STEP", "1"),
            ]))
        };
        assert_eq!(task("1"), Ok(Shard { index: 1, count: 4 }));
        assert_eq!(task("4"), Ok(Shard { index: 4, count: 4 }));
        // `--array=0-30:10`: tasks 0, 10, 20, 30 are slices 1..4.
        let stepped = Shard::from_environment(env(&[
            ("SLURM_ARRAY_TASK_ID", "20"),
            ("SLURM_ARRAY_TASK_COUNT", "4"),
            ("SLURM_ARRAY_TASK_MIN", "0"),
            ("SLURM_ARRAY_TASK_STEP", "10"),
        ]));
        assert_eq!(stepped, Ok(Shard { index: 3, count: 4 }));
        let off_step = Shard::from_environment(env(&[
            ("SLURM_ARRAY_TASK_ID", "15"),
            ("SLURM_ARRAY_TASK_COUNT", "4"),
            ("SLURM_ARRAY_TASK_STEP", "10"),
        ]));
        assert!(off_step.unwrap_err().contains("not in the range"));
        let no_count = Shard::from_environment(env(&[("SLURM_ARRAY_TASK_ID", "1")]));
        assert!(no_count.unwrap_err().contains("SLURM_ARRAY_TASK_COUNT"));
    }

    #[test]
    fn kubernetes_indexes_count_from_zero() {
        let shard = Shard::from_environment(env(&[
            ("JOB_COMPLETION_INDEX", "0"),
            ("CCLAB_SHARD_COUNT", "3"),
        ]));
        assert_eq!(shard, Ok(Shard { index: 1, count: 3 }));
        let beyond = Shard::from_environment(env(&[
            ("JOB_COMPLETION_INDEX", "3"),
            ("CCLAB_SHARD_COUNT", "3"),
        ]));
        assert!(beyond.unwrap_err().contains("does not exist"));
        let no_count = Shard::from_environment(env(&[("JOB_COMPLETION_INDEX", "0")]));
        assert!(no_count.unwrap_err().contains("CCLAB_SHARD_COUNT"));
    }

    #[test]
    fn without_a_scheduler_auto_says_what_it_looked_for() {
        let message = Shard::from_environment(env(&[])).unwrap_err();
        assert!(message.contains("SLURM_ARRAY_TASK_ID"), "{message}");
        assert!(message.contains("--shard I/N"), "{message}");
    }
}
