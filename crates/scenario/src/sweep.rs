//! Sweep files: a base scenario plus a `[sweep]` grid, expanded to runs in a fixed order.
//!
//! ```toml
//! # ... any scenario keys: the base ...
//! [sweep]
//! "topology.bottleneck.rate" = ["10Mbps", "100Mbps"]   # a scenario key and its values
//! "flows.*.cc" = ["reno", "westwood"]                  # `*`: every entry of the array
//! "flows.0.extra_rtt+flows.1.extra_rtt" = [["0ms", "10ms"], "20ms"]  # linked keys
//! seeds = 2                                            # or a list: seeds = [1, 7]
//! ```
//!
//! Axes are taken in key order (TOML tables are sorted by key), the first varying slowest,
//! and replicates (seeds) vary fastest. Every run gets an id: the FNV-1a hash of its axis
//! values and replicate, so it does not depend on which other runs exist, how the grid is
//! ordered or how it is split into shards. With `seeds = N` the seed of a run is derived from
//! its id; with a list, the listed seed is used (and is part of the id).
//!
//! Runs are never materialised all at once: [`Plan::run`] maps a run's index to its
//! parameters (mixed-radix digits over the axes, replicates fastest), so a grid costs memory
//! only for the runs being built. Grids larger than [`DEFAULT_MAX_RUNS`] are refused unless
//! the caller raises the limit (`--max-runs`), with the size in the message.

use toml::{Table, Value};

use crate::error::ScenarioError;
use crate::model::Scenario;
use crate::overrides::set_path;
use crate::parse::scenario_from_table;

/// Largest sweep (runs, replicates included) accepted without `--max-runs`. A sweep keeps
/// every run id (in `sweep.json`) and one row file per run, and each run validates a whole
/// scenario before anything runs: 100 000 runs is about 2 MB of ids and seconds of checking;
/// a grid of 10⁹ is an accident (a list too many), not an experiment.
pub const DEFAULT_MAX_RUNS: u64 = 100_000;

/// One swept key (or group of linked keys) and its values.
#[derive(Clone, Debug, PartialEq)]
pub struct Axis {
    /// As written in `[sweep]`, e.g. `topology.bottleneck.rate` or `flows.*.cc`.
    pub key: String,
    pub values: Vec<Value>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Seeds {
    /// `seeds = N`: replicates 0..N, seeds derived from the run ids.
    Count(u64),
    /// `seeds = [..]`: these seeds.
    List(Vec<u64>),
}

#[derive(Clone, Debug)]
pub struct Sweep {
    pub file: String,
    /// The scenario without its `[sweep]` table.
    pub base: Table,
    pub axes: Vec<Axis>,
    pub seeds: Seeds,
}

/// One run of a sweep.
#[derive(Clone, Debug)]
pub struct RunSpec {
    /// Position in the sweep's order.
    pub index: usize,
    /// 16 hex digits from the parameters.
    pub id: String,
    /// (axis key, value as text) in axis order.
    pub params: Vec<(String, String)>,
    pub replicate: usize,
    pub seed: u64,
    pub scenario: Scenario,
}

fn sweep_error(file: &str, key: &str, message: impl Into<String>) -> ScenarioError {
    ScenarioError::Sweep {
        file: file.to_string(),
        key: key.to_string(),
        message: message.into(),
    }
}

/// A value as text: strings bare, everything else as TOML writes it. Used in run ids and in
/// the parameter columns of `results.csv`, so it must never change.
pub fn value_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Integer(i) => i.to_string(),
        Value::Float(x) => format!("{x:?}"),
        Value::Boolean(b) => b.to_string(),
        Value::Datetime(d) => d.to_string(),
        Value::Array(items) => {
            let inner: Vec<String> = items.iter().map(value_text).collect();
            format!("[{}]", inner.join(", "))
        }
        Value::Table(t) => {
            let inner: Vec<String> = t
                .iter()
                .map(|(k, v)| format!("{k} = {}", value_text(v)))
                .collect();
            format!("{{{}}}", inner.join(", "))
        }
    }
}

/// FNV-1a, 64 bits: fixed forever, unlike std's hasher.
pub fn fnv1a(text: &str) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in text.bytes() {
        hash = (hash ^ byte as u64).wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash
}

/// A seed from a run id (SplitMix64 finalizer of its hash), a non-negative TOML integer.
fn seed_from_id(id: &str) -> u64 {
    let mut z = fnv1a(id).wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    (z ^ (z >> 31)) >> 1
}

/// The concrete key paths a sweep key stands for: `a+b` links keys, `*` takes every index of
/// the array at that point of the base.
fn concrete_paths(base: &Table, key: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    for linked in key.split('+') {
        let linked = linked.trim();
        if linked.is_empty() || linked.split('.').any(str::is_empty) {
            return Err(format!(
                "`{linked}` is not a key path such as topology.bottleneck.rate"
            ));
        }
        expand_stars(&Value::Table(base.clone()), "", linked, &mut out)?;
    }
    Ok(out)
}

fn expand_stars(node: &Value, done: &str, rest: &str, out: &mut Vec<String>) -> Result<(), String> {
    let join = |a: &str, b: &str| {
        if a.is_empty() {
            b.to_string()
        } else {
            format!("{a}.{b}")
        }
    };
    let (head, tail) = match rest.split_once('.') {
        Some((h, t)) => (h, Some(t)),
        None => (rest, None),
    };
    if head == "*" {
        let Value::Array(items) = node else {
            return Err(format!(
                "`{}` is not an array, so `*` cannot stand for its indexes",
                if done.is_empty() {
                    "the scenario"
                } else {
                    done
                }
            ));
        };
        if items.is_empty() {
            return Err(format!("`{done}` is empty, so `*` stands for nothing"));
        }
        for (i, item) in items.iter().enumerate() {
            let here = join(done, &i.to_string());
            match tail {
                Some(t) => expand_stars(item, &here, t, out)?,
                None => out.push(here),
            }
        }
        return Ok(());
    }
    let here = join(done, head);
    match tail {
        None => out.push(here),
        Some(t) if !t.contains('*') => out.push(join(&here, t)),
        Some(t) => {
            let child = match node {
                Value::Table(table) => table.get(head),
                Value::Array(items) => head.parse::<usize>().ok().and_then(|i| items.get(i)),
                _ => None,
            };
            let child =
                child.ok_or_else(|| format!("`{here}` does not exist in the base scenario"))?;
            expand_stars(child, &here, t, out)?;
        }
    }
    Ok(())
}

impl Sweep {
    /// Split a sweep table into its base scenario and its grid.
    pub fn from_table(file: &str, mut root: Table) -> Result<Sweep, ScenarioError> {
        let grid = match root.remove("sweep") {
            Some(Value::Table(t)) => t,
            Some(_) => return Err(sweep_error(file, "sweep", "must be a table ([sweep])")),
            None => {
                return Err(sweep_error(
                    file,
                    "sweep",
                    "missing; add a [sweep] table mapping scenario keys to lists of values",
                ));
            }
        };
        let mut axes = Vec::new();
        let mut seeds = Seeds::Count(1);
        for (key, value) in grid {
            if key == "seeds" {
                seeds = match value {
                    Value::Integer(n) if n >= 1 => Seeds::Count(n as u64),
                    Value::Array(items) if !items.is_empty() => Seeds::List(
                        items
                            .iter()
                            .map(|v| match v {
                                Value::Integer(s) if *s >= 0 => Ok(*s as u64),
                                _ => Err(sweep_error(
                                    file,
                                    "seeds",
                                    "seeds must be non-negative integers",
                                )),
                            })
                            .collect::<Result<_, _>>()?,
                    ),
                    _ => {
                        return Err(sweep_error(
                            file,
                            "seeds",
                            "must be a count (seeds = 3) or a list of seeds (seeds = [1, 2])",
                        ));
                    }
                };
                continue;
            }
            if key == "seed" {
                return Err(sweep_error(
                    file,
                    &key,
                    "sweep seeds with `seeds = N` or `seeds = [..]`",
                ));
            }
            let values = match value {
                Value::Array(items) if !items.is_empty() => items,
                _ => {
                    return Err(sweep_error(
                        file,
                        &key,
                        "must be a non-empty list of values, e.g. [\"10Mbps\", \"100Mbps\"]",
                    ));
                }
            };
            // A set of each value's debug text (canonical: tables are sorted maps), where
            // comparing every pair took minutes for a list of 100 000 values. Only -0.0 against
            // 0.0 and NaN against NaN judge differently from `==`: by their text.
            let mut seen = std::collections::HashSet::with_capacity(values.len());
            for v in &values {
                if !seen.insert(format!("{v:?}")) {
                    return Err(sweep_error(
                        file,
                        &key,
                        format!("the value {} is listed twice", value_text(v)),
                    ));
                }
            }
            axes.push(Axis { key, values });
        }
        if let Seeds::List(list) = &seeds {
            let mut seen = std::collections::HashSet::with_capacity(list.len());
            for s in list {
                if !seen.insert(*s) {
                    return Err(sweep_error(
                        file,
                        "seeds",
                        format!("seed {s} is listed twice"),
                    ));
                }
            }
        }
        Ok(Sweep {
            file: file.to_string(),
            base: root,
            axes,
            seeds,
        })
    }

    /// Replicates per grid point (the seed count, or the length of the seed list).
    pub fn replicates(&self) -> u64 {
        match &self.seeds {
            Seeds::Count(n) => *n,
            Seeds::List(list) => list.len() as u64,
        }
    }

    /// Number of runs: the product of the axes' lengths times the replicates; `None` when it
    /// does not fit in 64 bits.
    pub fn run_count(&self) -> Option<u64> {
        self.axes.iter().try_fold(self.replicates(), |n, a| {
            n.checked_mul(a.values.len() as u64)
        })
    }

    /// The grid's size as a product, for messages: `1000 × 1000 × 1000 values × 2 seeds`.
    fn size_text(&self) -> String {
        let lengths: Vec<String> = self
            .axes
            .iter()
            .map(|a| a.values.len().to_string())
            .collect();
        let replicates = self.replicates();
        let seeds = format!(
            "{replicates} {}",
            if replicates == 1 { "seed" } else { "seeds" }
        );
        if lengths.is_empty() {
            seeds
        } else {
            format!("{} values × {seeds}", lengths.join(" × "))
        }
    }

    /// The run plan, refused when it has more than `max_runs` runs. Resolves the axes' key
    /// paths once; the runs themselves are built on demand by [`Plan::run`].
    pub fn plan(&self, max_runs: u64) -> Result<Plan<'_>, ScenarioError> {
        let file = self.file.as_str();
        let too_many = |count: String| {
            sweep_error(
                file,
                "sweep",
                format!(
                    "the grid has {count} runs ({}), more than the limit of {max_runs}; shrink \
                     the lists or the seeds, split the grid into several sweep files, or raise \
                     the limit with --max-runs",
                    self.size_text()
                ),
            )
        };
        let runs = match self.run_count() {
            Some(n) if n <= max_runs => n,
            Some(n) => return Err(too_many(n.to_string())),
            None => return Err(too_many(format!("more than {}", u64::MAX))),
        };
        // Fits in memory indexes: it is at most `max_runs`, a count the caller chose to hold.
        let runs = usize::try_from(runs).map_err(|_| too_many(runs.to_string()))?;
        let paths = self
            .axes
            .iter()
            .map(|a| concrete_paths(&self.base, &a.key).map_err(|m| sweep_error(file, &a.key, m)))
            .collect::<Result<_, _>>()?;
        Ok(Plan {
            sweep: self,
            paths,
            runs,
        })
    }

    /// Every run, validated, in the sweep's order (for small grids: tests, figures). The
    /// first invalid point is reported with the sweep key and value that produced it.
    pub fn expand(&self) -> Result<Vec<RunSpec>, ScenarioError> {
        let plan = self.plan(DEFAULT_MAX_RUNS)?;
        (0..plan.len()).map(|i| plan.run(i)).collect()
    }

    /// A fingerprint of everything that decides the runs' results (base scenario, axes,
    /// seeds), to tell whether an output folder holds this sweep.
    pub fn fingerprint(&self) -> String {
        let mut text = value_text(&Value::Table(self.base.clone()));
        for axis in &self.axes {
            let values: Vec<String> = axis.values.iter().map(value_text).collect();
            text.push_str(&format!("\n{} = [{}]", axis.key, values.join(", ")));
        }
        text.push_str(&format!("\nseeds = {:?}", self.seeds));
        format!("{:016x}", fnv1a(&text))
    }
}

/// A sweep's runs, built one at a time from their index (see [`Sweep::plan`]).
#[derive(Debug)]
pub struct Plan<'a> {
    sweep: &'a Sweep,
    /// Per axis: the concrete key paths it sets.
    paths: Vec<Vec<String>>,
    runs: usize,
}

impl Plan<'_> {
    /// Number of runs.
    pub fn len(&self) -> usize {
        self.runs
    }

    pub fn is_empty(&self) -> bool {
        self.runs == 0
    }

    /// Run `index` (0 ≤ index < len), validated: the index is a mixed-radix number whose
    /// lowest digit is the replicate and whose next digits are the axes' value indexes, the
    /// last axis fastest, so runs come in the documented order.
    pub fn run(&self, index: usize) -> Result<RunSpec, ScenarioError> {
        let sweep = self.sweep;
        let file = sweep.file.as_str();
        // `replicates()` ≥ 1 (validated) and the product fits in usize (checked in `plan`).
        let replicates = sweep.replicates() as usize;
        let replicate = index % replicates;
        let mut rest = index / replicates;
        let mut digits = vec![0; sweep.axes.len()];
        for (d, axis) in digits.iter_mut().zip(&sweep.axes).rev() {
            *d = rest % axis.values.len();
            rest /= axis.values.len();
        }
        let mut table = sweep.base.clone();
        let mut params = Vec::with_capacity(sweep.axes.len());
        for ((axis, &digit), paths) in sweep.axes.iter().zip(&digits).zip(&self.paths) {
            let value = &axis.values[digit];
            let context = |m: String| {
                sweep_error(file, &axis.key, format!("value {}: {m}", value_text(value)))
            };
            let per_path: Vec<Value> = match value {
                Value::Array(items) if paths.len() > 1 => {
                    if items.len() != paths.len() {
                        return Err(context(format!(
                            "a list for {} linked keys needs {} entries",
                            paths.len(),
                            paths.len()
                        )));
                    }
                    items.clone()
                }
                _ => vec![value.clone(); paths.len()],
            };
            for (path, v) in paths.iter().zip(per_path) {
                set_path(&mut table, path, v).map_err(context)?;
            }
            params.push((axis.key.clone(), value_text(value)));
        }
        let mut id_text: String = params.iter().map(|(k, v)| format!("{k}={v}\n")).collect();
        let explicit = match &sweep.seeds {
            Seeds::Count(_) => {
                id_text.push_str(&format!("replicate={replicate}"));
                None
            }
            Seeds::List(list) => {
                id_text.push_str(&format!("seed={}", list[replicate]));
                Some(list[replicate])
            }
        };
        let id = format!("{:016x}", fnv1a(&id_text));
        let seed = explicit.unwrap_or_else(|| seed_from_id(&id));
        table.insert("seed".into(), Value::Integer(seed as i64));
        let scenario = scenario_from_table(file, &table).map_err(|e| {
            let inner = match &e {
                ScenarioError::Invalid { key, message, .. } => format!("{key}: {message}"),
                other => other.to_string(),
            };
            let point: Vec<String> = params.iter().map(|(k, v)| format!("{k} = {v}")).collect();
            sweep_error(
                file,
                &params.first().map_or("sweep".into(), |(k, _)| k.clone()),
                format!("the run with {} is invalid: {inner}", point.join(", ")),
            )
        })?;
        Ok(RunSpec {
            index,
            id,
            params,
            replicate,
            seed,
            scenario,
        })
    }
}

/// Read a sweep file (with `--set` overrides applied to its base).
pub fn load_sweep(path: &std::path::Path, overrides: &[String]) -> Result<Sweep, ScenarioError> {
    let file = path.display().to_string();
    let text = crate::read_scenario_text(path)?;
    let mut table = crate::parse_table(&file, &text)?;
    for assignment in overrides {
        crate::apply_override(&mut table, assignment)?;
    }
    Sweep::from_table(&file, table)
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: &str = r#"
duration = "2s"
[topology]
bottleneck = { rate = "10Mbps", delay = "10ms" }
[[flows]]
cc = "reno"
[[flows]]
cc = "reno"
"#;

    fn sweep(grid: &str) -> Result<Sweep, ScenarioError> {
        let text = format!("{BASE}[sweep]\n{grid}");
        Sweep::from_table("s.toml", crate::parse_table("s.toml", &text).unwrap())
    }

    /// Sweeps reach the keys of the other topology kinds: a parking lot's shared `link` and
    /// one hop's override.
    #[test]
    fn parking_lot_keys_can_be_swept() {
        let text = "[topology]\nkind = \"parking-lot\"\nhops = 2\nlink = { rate = \"10Mbps\", delay = \"5ms\" }\n[[flows]]\ncc = \"reno\"\n[sweep]\n\"topology.link.rate\" = [\"20Mbps\", \"40Mbps\"]\n\"topology.hop2.rate\" = [\"5Mbps\"]\n";
        let runs = Sweep::from_table("s.toml", crate::parse_table("s.toml", text).unwrap())
            .unwrap()
            .expand()
            .unwrap();
        let rates: Vec<(u64, u64)> = runs
            .iter()
            .map(|r| match &r.scenario.topology {
                crate::Topology::ParkingLot(p) => (p.hops[0].rate_bps, p.hops[1].rate_bps),
                _ => panic!("a parking lot"),
            })
            .collect();
        assert_eq!(rates, [(20_000_000, 5_000_000), (40_000_000, 5_000_000)]);
    }

    #[test]
    fn grid_order_ids_and_seeds() {
        let s = sweep(
            "\"topology.bottleneck.rate\" = [\"10Mbps\", \"20Mbps\", \"30Mbps\"]\n\"flows.*.cc\" = [\"reno\", \"westwood\"]\nseeds = 2\n",
        )
        .unwrap();
        let runs = s.expand().unwrap();
        assert_eq!(runs.len(), 12);
        // Keys in table order ("flows..." < "topology..."), the first slowest, seeds fastest.
        let first: Vec<_> = runs[..3]
            .iter()
            .map(|r| (r.params[0].1.as_str(), r.params[1].1.as_str(), r.replicate))
            .collect();
        assert_eq!(
            first,
            [
                ("reno", "10Mbps", 0),
                ("reno", "10Mbps", 1),
                ("reno", "20Mbps", 0)
            ]
        );
        assert_eq!(runs[6].scenario.flows[0].cc.name, "westwood");
        assert_eq!(runs[6].scenario.flows[1].cc.name, "westwood");
        assert_eq!(
            runs[2]
                .scenario
                .topology
                .dumbbell()
                .unwrap()
                .bottleneck
                .rate_bps,
            20_000_000
        );
        // Ids are distinct and depend only on the run's own parameters.
        let mut ids: Vec<_> = runs.iter().map(|r| r.id.clone()).collect();
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), 12);
        let smaller = sweep(
            "\"topology.bottleneck.rate\" = [\"20Mbps\"]\n\"flows.*.cc\" = [\"reno\"]\nseeds = 1\n",
        )
        .unwrap()
        .expand()
        .unwrap();
        assert_eq!(smaller[0].id, runs[2].id);
        assert_eq!(smaller[0].seed, runs[2].seed);
        assert_eq!(runs[2].scenario.seed, runs[2].seed);
        assert_ne!(runs[0].seed, runs[1].seed);
    }

    #[test]
    fn linked_keys_and_seed_lists() {
        let s = sweep("\"flows.0.extra_rtt+flows.1.extra_rtt\" = [[\"0ms\", \"10ms\"], \"20ms\"]\nseeds = [7, 9]\n").unwrap();
        let runs = s.expand().unwrap();
        assert_eq!(runs.len(), 4);
        assert_eq!(runs[0].scenario.flows[1].extra_rtt.as_nanos(), 10_000_000);
        assert_eq!(runs[2].scenario.flows[0].extra_rtt.as_nanos(), 20_000_000);
        assert_eq!((runs[0].seed, runs[1].seed), (7, 9));
        assert_eq!(runs[0].params[0].1, "[0ms, 10ms]");
    }

    #[test]
    fn bad_sweeps_name_the_key() {
        let message = |grid: &str| match sweep(grid).and_then(|s| s.expand().map(|_| ())) {
            Err(e) => e.to_string(),
            Ok(()) => panic!("accepted: {grid}"),
        };
        let m = message("\"topology.bottleneck.rat\" = [\"1Mbps\"]\n");
        assert!(
            m.starts_with("s.toml: [sweep] topology.bottleneck.rat:"),
            "{m}"
        );
        assert!(m.contains("unknown key"), "{m}");
        let m = message("\"flows.3.cc\" = [\"reno\"]\n");
        assert!(
            m.contains("[sweep] flows.3.cc") && m.contains("index 3 does not exist"),
            "{m}"
        );
        let m = message("\"flows.0.cc\" = [\"nosuch\"]\n");
        assert!(
            m.contains("[sweep] flows.0.cc") && m.contains("nosuch"),
            "{m}"
        );
        let m = message("\"topology.*.rate\" = [\"1Mbps\"]\n");
        assert!(m.contains("`topology` is not an array"), "{m}");
        assert!(message("\"seed\" = [1]\n").contains("seeds"));
        assert!(message("seeds = 0\n").contains("[sweep] seeds"));
        assert!(message("\"duration\" = \"1s\"\n").contains("non-empty list"));
        assert!(message("\"duration\" = [\"1s\", \"1s\"]\n").contains("listed twice"));
        assert!(message("\"flows.0.cc+flows.1.cc\" = [[\"reno\"]]\n").contains("2 entries"));
        let none = Sweep::from_table("s.toml", crate::parse_table("s.toml", BASE).unwrap());
        assert!(
            none.unwrap_err()
                .to_string()
                .contains("[sweep] sweep: missing")
        );
    }

    /// A `[sweep]` line giving `key` the values 1..=n (as durations, so the runs are valid).
    fn axis(key: &str, n: usize) -> String {
        let values: Vec<String> = (1..=n).map(|i| format!("\"{i}ms\"")).collect();
        format!("\"{key}\" = [{}]\n", values.join(", "))
    }

    #[test]
    fn huge_grids_are_refused_with_their_size() {
        let keys = ["flows.0.extra_rtt", "flows.1.extra_rtt", "duration"];
        let grid: String = keys.iter().map(|k| axis(k, 1000)).collect();
        let s = sweep(&grid).unwrap();
        // 1000 × 1000 × 1000 = 10⁹ runs, over the default limit of 10⁵.
        assert_eq!(s.run_count(), Some(1_000_000_000));
        let m = s.plan(DEFAULT_MAX_RUNS).unwrap_err().to_string();
        assert!(
            m.starts_with("s.toml: [sweep] sweep: the grid has 1000000000 runs (1000 × 1000 × 1000 values × 1 seed), more than the limit of 100000;"),
            "{m}"
        );
        // `seeds = 9·10¹⁸` is a count like any other, not an allocation.
        let m = sweep("seeds = 9000000000000000000\n")
            .unwrap()
            .plan(DEFAULT_MAX_RUNS)
            .unwrap_err()
            .to_string();
        assert!(
            m.contains("9000000000000000000 runs (9000000000000000000 seeds)"),
            "{m}"
        );
        // 3 × 9·10¹⁸ does not fit in 64 bits (2⁶⁴ ≈ 1.8·10¹⁹).
        let s = sweep(&format!(
            "{}seeds = 9000000000000000000\n",
            axis("duration", 3)
        ))
        .unwrap();
        assert_eq!(s.run_count(), None);
        let m = s.plan(u64::MAX).unwrap_err().to_string();
        assert!(m.contains("more than 18446744073709551615 runs"), "{m}");
    }

    #[test]
    fn long_lists_are_checked_for_repeats_without_comparing_every_pair() {
        // 100 000 values (the largest grid allowed) and as many seeds: accepted, 10⁵ runs
        // each, where comparing every pair (5·10⁹ comparisons) took minutes.
        let values = axis("duration", 100_000);
        let s = sweep(&values).unwrap();
        assert_eq!(s.run_count(), Some(100_000));
        let seeds: Vec<String> = (0..100_000).map(|i| i.to_string()).collect();
        let s = sweep(&format!("seeds = [{}]\n", seeds.join(", "))).unwrap();
        assert_eq!(s.run_count(), Some(100_000));
        // A repeat at the end of a long list is still found, and named.
        let ms: Vec<String> = (1..=1000).map(|i| format!("\"{i}ms\"")).collect();
        let m = sweep(&format!("duration = [{}, \"1ms\"]\n", ms.join(", ")))
            .unwrap_err()
            .to_string();
        assert!(
            m.contains("[sweep] duration: the value 1ms is listed twice"),
            "{m}"
        );
        let m = sweep(&format!("seeds = [{}, 7]\n", seeds[..1000].join(", ")))
            .unwrap_err()
            .to_string();
        assert!(m.contains("seed 7 is listed twice"), "{m}");
    }

    #[test]
    fn runs_are_built_from_their_index() {
        // Raising the limit lets a 10⁹-run grid be planned: nothing is enumerated up front.
        let keys = ["duration", "flows.0.extra_rtt", "flows.1.extra_rtt"];
        let grid: String = keys.iter().map(|k| axis(k, 1000)).collect();
        let s = sweep(&grid).unwrap();
        let plan = s.plan(1_000_000_000).unwrap();
        assert_eq!(plan.len(), 1_000_000_000);
        // Index = (d·1000 + a)·1000 + b for values d+1, a+1, b+1 ms (last axis fastest), so
        // run 1_002_003 is duration 2ms, flows.0.extra_rtt 3ms, flows.1.extra_rtt 4ms and the
        // last run takes every axis' last value.
        let run = plan.run(1_002_003).unwrap();
        let values: Vec<&str> = run.params.iter().map(|(_, v)| v.as_str()).collect();
        assert_eq!(values, ["2ms", "3ms", "4ms"]);
        assert_eq!(run.scenario.flows[1].extra_rtt.as_nanos(), 4_000_000);
        let last = plan.run(999_999_999).unwrap();
        assert!(last.params.iter().all(|(_, v)| v == "1000ms"));
        // The same run from a small grid has the same id and seed (ids depend on the run only).
        let small = sweep("duration = [\"2ms\"]\n\"flows.0.extra_rtt\" = [\"3ms\"]\n\"flows.1.extra_rtt\" = [\"4ms\"]\n")
            .unwrap()
            .expand()
            .unwrap();
        assert_eq!((&small[0].id, small[0].seed), (&run.id, run.seed));
    }

    #[test]
    fn fingerprint_tracks_base_and_grid() {
        let a = sweep("duration = [\"1s\", \"2s\"]\n").unwrap();
        let b = sweep("duration = [\"1s\", \"3s\"]\n").unwrap();
        assert_eq!(
            a.fingerprint(),
            sweep("duration = [\"1s\", \"2s\"]\n")
                .unwrap()
                .fingerprint()
        );
        assert_ne!(a.fingerprint(), b.fingerprint());
    }
}
