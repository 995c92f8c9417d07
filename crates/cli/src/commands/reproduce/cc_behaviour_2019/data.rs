//! The studies' rows, grouped: which testbed path a run used, and the mean (with the range)
//! of a metric over the replicates of one grid point.

use std::collections::BTreeMap;

use cclab_analysis::results::Row;

use super::super::{Studies, metric, param};

/// The four testbed paths of the paper's measurements (simulated here; see the setup).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Path {
    Lan,
    Wan,
    Wifi24,
    Wifi5,
}

impl Path {
    pub const ALL: [Path; 4] = [Path::Lan, Path::Wan, Path::Wifi24, Path::Wifi5];
    pub const WIFI: [Path; 2] = [Path::Wifi24, Path::Wifi5];

    pub fn label(self) -> &'static str {
        match self {
            Path::Lan => "LAN",
            Path::Wan => "WAN",
            Path::Wifi24 => "Wi-Fi 2.4 GHz",
            Path::Wifi5 => "Wi-Fi 5 GHz",
        }
    }

    /// The path of a swept `topology.bottleneck` value (its text as `results.csv` writes it,
    /// e.g. `{buffer = 1000, delay = 0.5ms, rate = 100Mbps}`): the study files give each
    /// path a distinct preset or delay.
    pub fn of_bottleneck(text: &str) -> Option<Path> {
        if text.contains("wifi-2.4ghz") {
            Some(Path::Wifi24)
        } else if text.contains("wifi-5ghz") {
            Some(Path::Wifi5)
        } else if text.contains("delay = 0.5ms") {
            Some(Path::Lan)
        } else if text.contains("delay = 25ms") {
            Some(Path::Wan)
        } else {
            None
        }
    }
}

/// One run of a testbed study.
pub struct Sample {
    /// The sweep file it ran in.
    pub study: String,
    pub path: Path,
    pub cc: String,
    pub row: Row,
}

/// The rows of a testbed study's two sweep files (`<study>-wired`, `<study>-wifi`), each
/// with its path and the module under test (`flows.0.cc`, or `flows.*.cc` when all flows
/// run the same one).
pub fn testbed(data: &Studies, study: &str) -> anyhow::Result<Vec<Sample>> {
    let mut out = testbed_part(data, &format!("{study}-wired"))?;
    out.extend(testbed_part(data, &format!("{study}-wifi"))?);
    Ok(out)
}

/// The rows of one testbed sweep file.
pub fn testbed_part(data: &Studies, study: &str) -> anyhow::Result<Vec<Sample>> {
    let mut out = Vec::new();
    for row in data.rows(study)? {
        let path = param(&row, "topology.bottleneck")
            .and_then(Path::of_bottleneck)
            .ok_or_else(|| anyhow::anyhow!("{study}: a run without a known path"))?;
        let cc = param(&row, "flows.0.cc")
            .or_else(|| param(&row, "flows.*.cc"))
            .ok_or_else(|| anyhow::anyhow!("{study}: a run without a module"))?
            .to_string();
        out.push(Sample {
            study: study.to_string(),
            path,
            cc,
            row,
        });
    }
    Ok(out)
}

/// Mean, smallest and largest of the replicates' values.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stat {
    pub mean: f64,
    pub min: f64,
    pub max: f64,
    pub n: usize,
}

impl Stat {
    pub fn of(values: &[f64]) -> Option<Stat> {
        if values.is_empty() {
            return None;
        }
        let sum: f64 = values.iter().sum();
        Some(Stat {
            mean: sum / values.len() as f64,
            min: values.iter().copied().fold(f64::INFINITY, f64::min),
            max: values.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            n: values.len(),
        })
    }

    pub fn point(self) -> (f64, f64, f64) {
        (self.mean, self.min, self.max)
    }
}

/// A metric per (path, module), over the replicates that have it.
pub fn by_path_cc(
    samples: &[Sample],
    value: impl Fn(&Row) -> Option<f64>,
) -> BTreeMap<(Path, String), Stat> {
    let mut values: BTreeMap<(Path, String), Vec<f64>> = BTreeMap::new();
    for s in samples {
        if let Some(v) = value(&s.row).filter(|v| v.is_finite()) {
            values.entry((s.path, s.cc.clone())).or_default().push(v);
        }
    }
    values
        .into_iter()
        .filter_map(|(k, v)| Stat::of(&v).map(|s| (k, s)))
        .collect()
}

/// A metric per value of the swept keys `keys` (their texts, in order), over replicates.
pub fn by_params(
    rows: &[Row],
    keys: &[&str],
    value: impl Fn(&Row) -> Option<f64>,
) -> BTreeMap<Vec<String>, Stat> {
    let mut values: BTreeMap<Vec<String>, Vec<f64>> = BTreeMap::new();
    for row in rows {
        let Some(key) = keys
            .iter()
            .map(|k| param(row, k).map(str::to_string))
            .collect::<Option<Vec<String>>>()
        else {
            continue;
        };
        if let Some(v) = value(row).filter(|v| v.is_finite()) {
            values.entry(key).or_default().push(v);
        }
    }
    values
        .into_iter()
        .filter_map(|(k, v)| Stat::of(&v).map(|s| (k, s)))
        .collect()
}

/// A kept run's throughput bins (`rates.csv`: bin end, flow, goodput, throughput) of flows
/// `joiner` and `other`, paired by bin: (bin end in s, joiner's throughput, other's
/// throughput), from the joiner's first bin on.
pub fn paired_throughput(
    run: &std::path::Path,
    joiner: u64,
    other: u64,
) -> anyhow::Result<Vec<(f64, f64, f64)>> {
    let path = run.join("rates.csv");
    let text = std::fs::read_to_string(&path)
        .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", path.display()))?;
    // Bin ends are written identically for every flow of a bin, so the text pairs them.
    let mut by_bin: BTreeMap<String, (f64, Option<f64>, Option<f64>)> = BTreeMap::new();
    for line in text.lines().skip(1) {
        let fields: Vec<&str> = line.split(',').collect();
        let [time, flow, _goodput, throughput] = fields[..] else {
            anyhow::bail!("{}: a row without four fields: {line}", path.display());
        };
        let parse = |s: &str| -> anyhow::Result<f64> {
            s.parse()
                .map_err(|_| anyhow::anyhow!("{}: not a number: {s}", path.display()))
        };
        let flow: u64 = flow
            .parse()
            .map_err(|_| anyhow::anyhow!("{}: not a flow id: {flow}", path.display()))?;
        let entry = by_bin
            .entry(time.to_string())
            .or_insert((parse(time)?, None, None));
        if flow == joiner {
            entry.1 = Some(parse(throughput)?);
        } else if flow == other {
            entry.2 = Some(parse(throughput)?);
        }
    }
    let mut bins: Vec<(f64, f64, f64)> = by_bin
        .into_values()
        .filter_map(|(t, j, o)| Some((t, j?, o?)))
        .collect();
    bins.sort_by(|a, b| a.0.total_cmp(&b.0));
    Ok(bins)
}

/// A column as a number.
pub fn column(name: &'static str) -> impl Fn(&Row) -> Option<f64> {
    move |row| metric(row, name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_told_apart_by_the_bottleneck_texts_the_study_files_write() {
        // The texts are those of `value_text` for the inline tables of single-*.toml.
        assert_eq!(
            Path::of_bottleneck("{buffer = 1000, delay = 0.5ms, rate = 100Mbps}"),
            Some(Path::Lan)
        );
        assert_eq!(
            Path::of_bottleneck("{buffer = 1bdp, delay = 25ms, rate = 100Mbps}"),
            Some(Path::Wan)
        );
        assert_eq!(
            Path::of_bottleneck("{buffer = 1000, delay = 1ms, kind = wifi, preset = wifi-2.4ghz}"),
            Some(Path::Wifi24)
        );
        assert_eq!(
            Path::of_bottleneck("{buffer = 1000, delay = 1ms, kind = wifi, preset = wifi-5ghz}"),
            Some(Path::Wifi5)
        );
        assert_eq!(Path::of_bottleneck("{delay = 10ms, rate = 100Mbps}"), None);
    }

    #[test]
    fn a_stat_is_the_mean_and_range_of_its_values() {
        // (1 + 2 + 6) / 3 = 3.
        let s = Stat::of(&[2.0, 6.0, 1.0]).unwrap();
        assert_eq!((s.mean, s.min, s.max, s.n), (3.0, 1.0, 6.0, 3));
        assert!(Stat::of(&[]).is_none());
    }
}
