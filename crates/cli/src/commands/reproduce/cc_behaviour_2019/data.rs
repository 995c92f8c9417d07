//! The studies' rows, grouped: which testbed path a run used, and the mean (with the range)
//! of a metric over the replicates of one grid point.

use std::collections::BTreeMap;

use cclab_analysis::plot::data::{FlowSeries, flow_series, for_each_row, required};
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

/// One row of a kept run's `events.csv` (docs/outputs.md): when, which flow, the event, and
/// for `mode` rows the old and new mode labels.
#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    pub time: f64,
    pub flow: u32,
    pub event: String,
    pub from: String,
    pub to: String,
}

/// The rows of a kept run's `events.csv`, in time order.
pub fn read_events(run: &std::path::Path) -> anyhow::Result<Vec<Event>> {
    let mut events = Vec::new();
    for_each_row(
        &run.join("events.csv"),
        &["time_s", "flow", "event", "from", "to"],
        |c| {
            events.push(Event {
                time: required(c[0])?,
                flow: c[1]
                    .parse()
                    .map_err(|_| format!("`{}` is not a flow id", c[1]))?,
                event: c[2].to_string(),
                from: c[3].to_string(),
                to: c[4].to_string(),
            });
            Ok(())
        },
    )?;
    Ok(events)
}

/// The ProbeRTT episodes of BBR flows among `events` (a `mode` row each time a controller's
/// mode label changes): (flow, entered, left), in order of entry; an episode still running
/// at the end leaves at `end`.
pub fn probe_rtt_episodes(events: &[Event], end: f64) -> Vec<(u32, f64, f64)> {
    let mut open: BTreeMap<u32, f64> = BTreeMap::new();
    let mut episodes = Vec::new();
    for e in events.iter().filter(|e| e.event == "mode") {
        if e.from == "probe_rtt"
            && let Some(entered) = open.remove(&e.flow)
        {
            episodes.push((e.flow, entered, e.time));
        }
        if e.to == "probe_rtt" {
            open.insert(e.flow, e.time);
        }
    }
    episodes.extend(open.into_iter().map(|(flow, entered)| (flow, entered, end)));
    episodes.sort_by(|a, b| a.1.total_cmp(&b.1));
    episodes
}

/// Each flow's pacing rate over time in a kept run's `timeseries.csv` (docs/outputs.md):
/// (sample time, bit/s) per flow, in time order; unpaced samples (empty) are left out.
pub fn pacing_rates(run: &std::path::Path) -> anyhow::Result<FlowSeries> {
    let everything = (f64::NEG_INFINITY, f64::INFINITY);
    let mut series = flow_series(
        &run.join("timeseries.csv"),
        &["pacing_rate_bps"],
        &[1.0],
        everything,
    )?;
    Ok(series.remove(0))
}

/// The last sample at or before `time` of a series in time order.
pub fn value_at(series: &[(f64, f64)], time: f64) -> Option<f64> {
    let after = series.partition_point(|(t, _)| *t <= time);
    after.checked_sub(1).map(|i| series[i].1)
}

/// The times at which any flow began a loss recovery: a fast recovery (`recovery_start`) or a
/// retransmission timeout (`timeout`).
pub fn loss_episodes(events: &[Event]) -> Vec<f64> {
    events
        .iter()
        .filter(|e| e.event == "recovery_start" || e.event == "timeout")
        .map(|e| e.time)
        .collect()
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

    /// A run folder holding one file, for the readers' tests (the caller removes it).
    fn scratch_run(name: &str, file: &str, text: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("cclab-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(file), text).unwrap();
        dir
    }

    #[test]
    fn events_give_probe_rtt_episodes_and_loss_episodes() {
        // Flow 0 in ProbeRTT from 10.0 to 10.2 s; flow 1 from 20.3 s to the end (60 s); a
        // fast recovery at 10.1 s and a timeout at 30 s are the loss episodes.
        let dir = scratch_run(
            "events",
            "events.csv",
            "time_s,flow,event,from,to,detail,cwnd_bytes,ssthresh_bytes\n\
             0,0,mode,,startup,start,14480,\n\
             10.0,0,mode,probe_bw,probe_rtt,ack,5792,\n\
             10.1,0,recovery_start,,,rack,5792,\n\
             10.2,0,mode,probe_rtt,probe_bw,ack,400000,\n\
             20.3,1,mode,probe_bw,probe_rtt,ack,5792,\n\
             30,1,timeout,,,,2896,\n",
        );
        let events = read_events(&dir).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(events.len(), 6);
        assert_eq!(
            probe_rtt_episodes(&events, 60.0),
            [(0, 10.0, 10.2), (1, 20.3, 60.0)]
        );
        assert_eq!(loss_episodes(&events), [10.1, 30.0]);
    }

    #[test]
    fn pacing_rates_skip_unpaced_samples_and_are_read_at_the_last_sample() {
        let dir = scratch_run(
            "pacing",
            "timeseries.csv",
            "time_s,flow,cwnd_bytes,ssthresh_bytes,srtt_ms,inflight_bytes,bytes_acked,delivered_bytes,retransmissions,rtt_ms,pacing_rate_bps,mode,bytes_sent\n\
             0.01,0,14480,,1,0,0,0,0,1,,slow_start,0\n\
             0.01,1,14480,,1,0,0,0,0,1,5000000,startup,0\n\
             0.02,1,14480,,1,0,0,0,0,1,7000000,startup,0\n",
        );
        let rates = pacing_rates(&dir).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(!rates.contains_key(&0));
        let flow1 = &rates[&1];
        assert_eq!(flow1, &[(0.01, 5e6), (0.02, 7e6)]);
        // At 0.015 s the last sample is 0.01 s's; before the first there is none.
        assert_eq!(value_at(flow1, 0.015), Some(5e6));
        assert_eq!(value_at(flow1, 0.02), Some(7e6));
        assert_eq!(value_at(flow1, 0.005), None);
    }

    #[test]
    fn a_stat_is_the_mean_and_range_of_its_values() {
        // (1 + 2 + 6) / 3 = 3.
        let s = Stat::of(&[2.0, 6.0, 1.0]).unwrap();
        assert_eq!((s.mean, s.min, s.max, s.n), (3.0, 1.0, 6.0, 3));
        assert!(Stat::of(&[]).is_none());
    }
}
