//! The cause study of the two disagreeing convergence rows (issue 14): "BBR converges very
//! quickly in all scenarios" and "Westwood+ converges faster at 5 GHz than at 2.4 GHz".
//!
//! Study `convergence-replicates` runs the convergence experiment with eight replicates per
//! module and path. From each run's `rates.csv` the analysis computes several definitions of
//! convergence time ([`DEFINITIONS`]), ranks the modules by their median per definition and
//! path, and compares Westwood+'s (and Veno's) replicates between the bands; from BBR's
//! `events.csv` it times the ProbeRTT episodes against the 1 s windows that leave the band,
//! and draws one replicate's two rates with them.

use std::collections::BTreeMap;
use std::fmt::Write;

use cclab_analysis::plot::chart::{Line, Markers, TimeChart};
use cclab_analysis::plot::color;
use cclab_analysis::plot::sweep::{SweepChart, SweepSeries, XAxis};

use super::super::{Report, Studies, metric};
use super::convergence::{Band, Rule, Spread, convergence_time, rank_by_median, share_sooner};
use super::data::{
    Path, Sample, loss_episodes, pacing_rates, paired_throughput, probe_rtt_episodes, read_events,
    testbed_part, value_at,
};
use super::testbed::{module_chart_of, modules_of};

/// The study's name.
pub const STUDY: &str = "convergence-replicates";
/// The LAN with one BDP of buffer.
pub const LAN_BUFFER_STUDY: &str = "convergence-lan-buffer";

/// What a definition measures the two flows' averaged rates against.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Test {
    /// Within ±tolerance of the pair's mean.
    EqualSplit(f64),
    /// Within ±tolerance of half the link's nominal payload rate (`flows.1.fair_share_bps`):
    /// out of reach on Wi-Fi (docs/metrics.md), so only on the wired paths.
    Nominal(f64),
    /// Jain's index at least this.
    Jain(f64),
}

/// One definition of convergence time: a band and a rule over 1 s windows.
struct Definition {
    /// The report's wording.
    label: &'static str,
    /// The figure's category.
    short: &'static str,
    test: Test,
    rule: Rule,
}

impl Definition {
    fn band(&self, share_bps: f64) -> Band {
        match self.test {
            Test::EqualSplit(tolerance) => Band::EqualSplit { tolerance },
            Test::Nominal(tolerance) => Band::Share {
                share_bps,
                tolerance,
            },
            Test::Jain(min) => Band::Jain { min },
        }
    }

    fn applies(&self, path: Path) -> bool {
        !matches!(self.test, Test::Nominal(_)) || !Path::WIFI.contains(&path)
    }
}

/// The index in [`DEFINITIONS`] of the report's definition and of the first entry.
const REPORTS: usize = 0;
const FIRST_ENTRY: usize = 2;

/// The definitions compared. The first is the report's (the comparisons' rows); the second
/// seed-spec §4.2's proposal; the third the time to the first fair split; the fourth a
/// Jain's-index rule; the last three the first three against the nominal share.
const DEFINITIONS: [Definition; 7] = [
    Definition {
        label: "±20 % of an equal split until the end (the report's)",
        short: "±20 % to the end",
        test: Test::EqualSplit(0.2),
        rule: Rule::UntilEnd,
    },
    Definition {
        label: "±10 % of an equal split held for 5 s (seed-spec)",
        short: "±10 % for 5 s",
        test: Test::EqualSplit(0.1),
        rule: Rule::HoldFor { seconds: 5.0 },
    },
    Definition {
        label: "first entry into ±20 % of an equal split",
        short: "first ±20 %",
        test: Test::EqualSplit(0.2),
        rule: Rule::FirstEntry,
    },
    Definition {
        label: "Jain's index ≥ 0.95 until the end",
        short: "Jain ≥ 0.95 to the end",
        test: Test::Jain(0.95),
        rule: Rule::UntilEnd,
    },
    Definition {
        label: "±20 % of half the link until the end (the summary's, wired)",
        short: "±20 % of C/2 to the end",
        test: Test::Nominal(0.2),
        rule: Rule::UntilEnd,
    },
    Definition {
        label: "±10 % of half the link held for 5 s (wired)",
        short: "±10 % of C/2 for 5 s",
        test: Test::Nominal(0.1),
        rule: Rule::HoldFor { seconds: 5.0 },
    },
    Definition {
        label: "first entry into ±20 % of half the link (wired)",
        short: "first ±20 % of C/2",
        test: Test::Nominal(0.2),
        rule: Rule::FirstEntry,
    },
];

/// Where a never-converged replicate is drawn: the run's end, 50 s after the nominal join.
const NEVER_DRAWN_AT: f64 = 50.0;

/// One run's times under every definition (`None`: never, or not applicable).
struct Replicate {
    path: Path,
    cc: String,
    times: Vec<Option<f64>>,
}

/// One run's paired 1 s averaging inputs.
struct RunBins {
    bins: Vec<(f64, f64, f64)>,
    start: f64,
    width: f64,
    window: usize,
    share_bps: f64,
}

/// One run's convergence time by the report's definition (the comparisons' rows), from its
/// kept `rates.csv` with the run's own rate bin and convergence window.
pub(super) fn reports_time(data: &Studies, s: &Sample) -> anyhow::Result<Option<f64>> {
    Ok(run_bins(data, s)?.time(&DEFINITIONS[REPORTS]))
}

fn run_bins(data: &Studies, s: &Sample) -> anyhow::Result<RunBins> {
    let need = |column: &str| {
        metric(&s.row, column).ok_or_else(|| anyhow::anyhow!("{}: no {column}", s.study))
    };
    let width = need("window.rate_interval_s")?;
    Ok(RunBins {
        bins: paired_throughput(&data.run_dir(&s.study, &s.row), 1, 0)?,
        start: need("flows.1.start_s")?,
        width,
        window: (need("window.convergence_window_s")? / width)
            .round()
            .max(1.0) as usize,
        share_bps: need("flows.1.fair_share_bps")?,
    })
}

impl RunBins {
    fn time(&self, d: &Definition) -> Option<f64> {
        convergence_time(
            &self.bins,
            self.start,
            self.width,
            self.window,
            d.band(self.share_bps),
            d.rule,
        )
    }

    /// The joiner's share j/(j + o) of the last `seconds` of the run.
    fn final_share(&self, seconds: f64) -> Option<f64> {
        let n = ((seconds / self.width).round() as usize).min(self.bins.len());
        let tail = &self.bins[self.bins.len() - n..];
        let joiner: f64 = tail.iter().map(|b| b.1).sum();
        let total: f64 = tail.iter().map(|b| b.1 + b.2).sum();
        (total > 0.0).then(|| joiner / total)
    }

    /// The 1 s windows (start, end, joiner's and other's average) from the joiner's first
    /// whole bin on.
    fn windows(&self) -> Vec<(f64, f64, f64, f64)> {
        if self.bins.len() < self.window {
            return Vec::new();
        }
        (0..=self.bins.len() - self.window)
            .map(|p| {
                let span = &self.bins[p..p + self.window];
                let n = self.window as f64;
                (
                    span[0].0 - self.width,
                    span[self.window - 1].0,
                    span.iter().map(|b| b.1).sum::<f64>() / n,
                    span.iter().map(|b| b.2).sum::<f64>() / n,
                )
            })
            .collect()
    }
}

/// What the study found, for the two rows' reasons.
pub struct Findings {
    pub bbr: String,
    pub westwood: String,
    pub veno: String,
}

/// One module's order between the Wi-Fi bands under one definition.
struct BandOrder {
    definition: &'static str,
    /// The share of replicate pairs in which 5 GHz converged sooner.
    share: f64,
    median5: Option<f64>,
    median24: Option<f64>,
}

/// "with 8 replicates 5 GHz converges sooner in 36 % of the replicate pairs under the
/// report's definition, and in more than half under …".
fn band_order_text(orders: &[BandOrder], per_path: usize) -> String {
    let t = |m: Option<f64>| m.map_or("never".to_string(), |m| format!("{m:.1} s"));
    let reports = orders.get(REPORTS).map_or("—".to_string(), |o| {
        format!(
            "{:.0} % of the replicate pairs under the report's definition (medians {} at 5 GHz, {} at 2.4 GHz)",
            o.share * 100.0,
            t(o.median5),
            t(o.median24)
        )
    });
    let holds: Vec<String> = orders
        .iter()
        .filter(|o| o.share > 0.5)
        .map(|o| {
            format!(
                "{} ({:.0} %; medians {} and {})",
                o.definition,
                o.share * 100.0,
                t(o.median5),
                t(o.median24)
            )
        })
        .collect();
    format!(
        "with {per_path} replicates 5 GHz converges sooner in {reports}, and in more than half under {}",
        if holds.is_empty() {
            "no definition".to_string()
        } else {
            holds.join("; ")
        }
    )
}

/// The times of one definition per (path, module), over the replicates.
type Times = BTreeMap<(Path, String), Vec<Option<f64>>>;

fn times_of(replicates: &[Replicate], definition: usize) -> Times {
    let mut out: Times = BTreeMap::new();
    for r in replicates {
        out.entry((r.path, r.cc.clone()))
            .or_default()
            .push(r.times[definition]);
    }
    out
}

/// "9.6 s (9.4–10.1)", "never (5 of 8)" or "29.8 s (3.1–never)".
fn spread_text(s: &Spread) -> String {
    let t = |v: Option<f64>| v.map_or("never".to_string(), |v| format!("{v:.1}"));
    match s.median {
        Some(m) => format!("{m:.1} s ({}–{})", t(s.lower), t(s.upper)),
        None => format!("never ({} of {})", s.n - s.converged, s.n),
    }
}

/// BBR's rank on one path under one definition.
struct Ranked {
    rank: usize,
    median: Option<f64>,
    /// "4 of 13: 40.0 s (39.8–40.1); fastest other vegas 0.0 s".
    text: String,
}

/// BBR's rank on one path under one definition, with its spread and the fastest other.
fn rank_text(times: &Times, path: Path) -> Option<Ranked> {
    let medians: Vec<(String, Option<f64>)> = times
        .iter()
        .filter(|((p, _), _)| *p == path)
        .map(|((_, m), t)| (m.clone(), Spread::of(t).median))
        .collect();
    let (rank, fastest) = rank_by_median(&medians, "bbr")?;
    let bbr = Spread::of(times.get(&(path, "bbr".to_string()))?);
    let fastest = fastest.map_or(String::new(), |(m, t)| {
        format!(
            "; fastest other {m} {}",
            t.map_or("never".to_string(), |t| format!("{t:.1} s"))
        )
    });
    Some(Ranked {
        rank,
        median: bbr.median,
        text: format!(
            "{rank} of {}: {}{fastest}",
            medians.len(),
            spread_text(&bbr)
        ),
    })
}

/// "3 (0.7 s)" or "10 (never)".
fn short_rank(r: &Ranked) -> String {
    format!(
        "{} ({})",
        r.rank,
        r.median
            .map_or("never".to_string(), |m| format!("{m:.1} s"))
    )
}

/// `module` at 5 GHz against 2.4 GHz under one definition: both spreads and the share of
/// replicate pairs in which 5 GHz converged sooner.
fn band_order(times: &Times, module: &str) -> Option<(f64, String)> {
    let t24 = times.get(&(Path::Wifi24, module.to_string()))?;
    let t5 = times.get(&(Path::Wifi5, module.to_string()))?;
    let share = share_sooner(t5, t24)?;
    Some((
        share,
        format!(
            "5 GHz {}, 2.4 GHz {}; 5 GHz sooner in {:.0} % of pairs",
            spread_text(&Spread::of(t5)),
            spread_text(&Spread::of(t24)),
            share * 100.0
        ),
    ))
}

/// BBR's ProbeRTT episodes against the windows that leave ±20 % of an equal split, per path:
/// over the replicates, the joiner's first ProbeRTT, the first entry, the end of the last
/// ProbeRTT episode and the report's time (all after the join); the windows outside the band
/// after the joiner's first ProbeRTT with how many of them overlap an episode of either flow;
/// and how much the joiner's share moves across each episode.
struct ProbeRttEvidence {
    joiner_first: Vec<f64>,
    first_entry: Vec<Option<f64>>,
    last_episode_end: Vec<f64>,
    until_end: Vec<Option<f64>>,
    outside: usize,
    outside_in_episode: usize,
    /// A flow's pacing rate 2 s after it left a ProbeRTT episode over its rate on entering
    /// it, for every episode after the join.
    pacing_after: Vec<f64>,
}

/// How long after leaving ProbeRTT a flow's pacing rate is read against its rate on entering:
/// ProbeBW's eight-phase cycle has run several times by then wherever the round trip is under
/// a quarter second.
const PACING_AFTER_S: f64 = 2.0;

fn probe_rtt_evidence(
    data: &Studies,
    samples: &[Sample],
    path: Path,
) -> anyhow::Result<Option<ProbeRttEvidence>> {
    let mut e = ProbeRttEvidence {
        joiner_first: Vec::new(),
        first_entry: Vec::new(),
        last_episode_end: Vec::new(),
        until_end: Vec::new(),
        outside: 0,
        outside_in_episode: 0,
        pacing_after: Vec::new(),
    };
    let band = DEFINITIONS[REPORTS].band(0.0);
    for s in samples.iter().filter(|s| s.path == path && s.cc == "bbr") {
        let run = run_bins(data, s)?;
        let duration = metric(&s.row, "duration_s")
            .ok_or_else(|| anyhow::anyhow!("{}: no duration_s", s.study))?;
        let episodes = probe_rtt_episodes(&read_events(&data.run_dir(&s.study, &s.row))?, duration);
        let Some(joiner_first) = episodes
            .iter()
            .find(|(flow, enter, _)| *flow == 1 && *enter >= run.start)
            .map(|(_, enter, _)| *enter)
        else {
            continue;
        };
        e.joiner_first.push(joiner_first - run.start);
        e.first_entry.push(run.time(&DEFINITIONS[FIRST_ENTRY]));
        e.until_end.push(run.time(&DEFINITIONS[REPORTS]));
        if let Some((_, _, end)) = episodes.last() {
            e.last_episode_end.push(end - run.start);
        }
        let pacing = pacing_rates(&data.run_dir(&s.study, &s.row))?;
        for (flow, entered, left) in episodes.iter().filter(|(_, t, _)| *t > run.start) {
            let Some(series) = pacing.get(flow) else {
                continue;
            };
            if let (Some(before), Some(after)) = (
                value_at(series, *entered),
                value_at(series, left + PACING_AFTER_S),
            ) && before > 0.0
                && *left + PACING_AFTER_S <= duration
            {
                e.pacing_after.push(after / before);
            }
        }
        let windows = run.windows();
        for &(from, to, joiner, other) in &windows {
            if from >= joiner_first && !band.holds(joiner, other) {
                e.outside += 1;
                if episodes
                    .iter()
                    .any(|(_, enter, exit)| *enter < to && *exit > from)
                {
                    e.outside_in_episode += 1;
                }
            }
        }
    }
    Ok((!e.joiner_first.is_empty()).then_some(e))
}

/// The joiner's share j/(j + o) of a window.
fn share_of(joiner: f64, other: f64) -> Option<f64> {
    (joiner + other > 0.0).then(|| joiner / (joiner + other))
}

/// How much the joiner's share moved across each event at time t: the 1 s window ending last
/// at or before t against the first one starting 1 s or more after it (past the recovery).
/// `windows` as [`RunBins::windows`].
fn share_moves(windows: &[(f64, f64, f64, f64)], times: &[f64]) -> Vec<f64> {
    times
        .iter()
        .filter_map(|&t| {
            let before = windows.iter().rev().find(|w| w.1 <= t)?;
            let after = windows.iter().find(|w| w.0 >= t + 1.0)?;
            Some((share_of(after.2, after.3)? - share_of(before.2, before.3)?).abs())
        })
        .collect()
}

/// Westwood+ on one Wi-Fi band: per replicate the loss episodes (fast recoveries and
/// timeouts of either flow) after the join, the last one's time after the join, the
/// joiner's share of the run's last 5 s, and whether the report's definition converged.
struct LossEvidence {
    episodes: Vec<f64>,
    last_episode: Vec<f64>,
    final_share: Vec<f64>,
    converged: usize,
    /// How far the joiner's share moved across each loss episode after the join.
    share_moves: Vec<f64>,
}

fn loss_evidence(
    data: &Studies,
    samples: &[Sample],
    path: Path,
    module: &str,
) -> anyhow::Result<Option<LossEvidence>> {
    let mut e = LossEvidence {
        episodes: Vec::new(),
        last_episode: Vec::new(),
        final_share: Vec::new(),
        converged: 0,
        share_moves: Vec::new(),
    };
    for s in samples.iter().filter(|s| s.path == path && s.cc == module) {
        let run = run_bins(data, s)?;
        let losses: Vec<f64> = loss_episodes(&read_events(&data.run_dir(&s.study, &s.row))?)
            .into_iter()
            .filter(|t| *t > run.start)
            .collect();
        e.episodes.push(losses.len() as f64);
        e.share_moves.extend(share_moves(&run.windows(), &losses));
        if let Some(last) = losses.last() {
            e.last_episode.push(last - run.start);
        }
        if let Some(share) = run.final_share(5.0) {
            e.final_share.push(share);
        }
        if run.time(&DEFINITIONS[REPORTS]).is_some() {
            e.converged += 1;
        }
    }
    Ok((!e.episodes.is_empty()).then_some(e))
}

/// "0.62 (24 of 51 below 0.6)": the median pacing ratio and how many fell below 0.6.
fn pacing_text(ratios: &[f64]) -> String {
    if ratios.is_empty() {
        return "—".to_string();
    }
    let below = ratios.iter().filter(|r| **r < 0.6).count();
    format!(
        "{} ({below} of {} below 0.6)",
        ratio_median(ratios),
        ratios.len()
    )
}

/// The median of ratios that all exist, as text with two decimals.
fn ratio_median(values: &[f64]) -> String {
    let all: Vec<Option<f64>> = values.iter().map(|v| Some(*v)).collect();
    Spread::of(&all)
        .median
        .map_or("—".to_string(), |m| format!("{m:.2}"))
}

/// The median of times that all exist, as text.
fn median_text(values: &[f64]) -> String {
    let times: Vec<Option<f64>> = values.iter().map(|v| Some(*v)).collect();
    Spread::of(&times)
        .median
        .map_or("—".to_string(), |m| format!("{m:.1}"))
}

/// One BBR replicate: the two flows' 1 s averages, the joiner's ±20 % band around the pair's
/// mean, and the ProbeRTT episodes' entries.
fn bbr_trace(data: &Studies, sample: &Sample, label: &str) -> anyhow::Result<(TimeChart, Vec<u8>)> {
    let run = run_bins(data, sample)?;
    let duration = metric(&sample.row, "duration_s")
        .ok_or_else(|| anyhow::anyhow!("{}: no duration_s", sample.study))?;
    let episodes = probe_rtt_episodes(
        &read_events(&data.run_dir(&sample.study, &sample.row))?,
        duration,
    );
    let windows = run.windows();
    let mbps = 1e-6;
    let line = |label: &str, i: usize, dashed: bool, f: &dyn Fn(f64, f64) -> f64| Line {
        label: label.to_string(),
        color: color(i),
        points: windows
            .iter()
            .map(|&(_, to, j, o)| (to, f(j, o) * mbps))
            .collect(),
        dashed,
    };
    // The incumbent's own bins before the join are not in the pair's bins; the chart starts
    // at the joiner's first window.
    let markers = |flow: u32, i: usize, name: &str| Markers {
        label: name.to_string(),
        color: color(i),
        points: episodes
            .iter()
            .filter(|(f, _, _)| *f == flow)
            .map(|(_, enter, _)| (*enter, 0.0))
            .collect(),
    };
    let chart = TimeChart {
        title: format!("Two BBR flows, {label}, replicate {}", sample.row.replicate),
        x_label: "time (s)".into(),
        y_label: "throughput, 1 s average (Mbit/s)".into(),
        lines: vec![
            line("first flow", 0, false, &|_, o| o),
            line("joining flow", 1, false, &|j, _| j),
            line("the pair's mean − 20 %", 2, true, &|j, o| {
                0.8 * (j + o) / 2.0
            }),
            line("the pair's mean + 20 %", 3, true, &|j, o| {
                1.2 * (j + o) / 2.0
            }),
        ],
        markers: vec![
            markers(0, 0, "ProbeRTT entered, first flow"),
            markers(1, 1, "ProbeRTT entered, joining flow"),
        ],
        ..TimeChart::default()
    };
    let mut csv = String::from("window_end_s,first_flow_bps,joining_flow_bps\n");
    for (_, to, j, o) in &windows {
        let _ = writeln!(csv, "{to},{o},{j}");
    }
    csv.push_str("\nprobe_rtt_flow,entered_s,left_s\n");
    for (flow, enter, exit) in &episodes {
        let _ = writeln!(csv, "{flow},{enter},{exit}");
    }
    Ok((chart, csv.into_bytes()))
}

/// Every run's times under every definition.
fn replicates(data: &Studies, samples: &[Sample]) -> anyhow::Result<Vec<Replicate>> {
    samples
        .iter()
        .map(|s| {
            let run = run_bins(data, s)?;
            Ok(Replicate {
                path: s.path,
                cc: s.cc.clone(),
                times: DEFINITIONS
                    .iter()
                    .map(|d| if d.applies(s.path) { run.time(d) } else { None })
                    .collect(),
            })
        })
        .collect()
}

/// The LAN with one BDP of buffer (study [`LAN_BUFFER_STUDY`]): BBR's rank per definition
/// beside the 1000-packet LAN's; whether BBR is first under any definition there.
fn lan_buffer(
    data: &Studies,
    report: &mut Report,
    deep: &[Replicate],
) -> anyhow::Result<Vec<&'static str>> {
    let samples = testbed_part(data, LAN_BUFFER_STUDY)?;
    let shallow = replicates(data, &samples)?;
    let mut first = Vec::new();
    let mut rows = Vec::new();
    for (i, d) in DEFINITIONS.iter().enumerate() {
        let on = |set: &[Replicate]| rank_text(&times_of(set, i), Path::Lan);
        let shallow_rank = on(&shallow);
        if shallow_rank.as_ref().is_some_and(|r| r.rank == 1) {
            first.push(d.label);
        }
        rows.push(vec![
            d.label.to_string(),
            on(deep).map_or("—".into(), |r| r.text),
            shallow_rank.map_or("—".into(), |r| r.text),
        ]);
    }
    report.text(format!("The LAN's queue is our choice (1000 packets, Linux's `txqueuelen`; 12 BDPs at 1 Gbit/s and 1 ms). Study `{LAN_BUFFER_STUDY}` runs the LAN with one BDP (83 packets), a switch's shallow buffer, with the same replicates: BBR's rank and time per definition on both."));
    report.table(
        &[
            "definition",
            "LAN, 1000 packets: BBR's rank, median (quartiles)",
            "LAN, 1 BDP",
        ],
        rows,
    );
    Ok(first)
}

pub fn write(data: &Studies, report: &mut Report) -> anyhow::Result<Findings> {
    let samples = testbed_part(data, STUDY)?;
    let modules = modules_of(&samples);
    let replicates = replicates(data, &samples)?;
    let per_path = samples
        .iter()
        .filter(|s| s.cc == "bbr" && s.path == Path::Lan)
        .count();

    report.text(format!("### Why the convergence rows disagree: replicates and definitions\n\nStudy `{STUDY}` runs the convergence experiment again with {per_path} replicates per module and path (the seed draws the joining flow's start offset, 0-1 s, and on Wi-Fi the medium's backoffs and frame errors), and computes from each run's 1 s averages of the two flows' rates ({} in all) these definitions of convergence time, each from the joiner's start: the report's (both flows within ±20 % of an equal split of what they get, from some window until the end of the run); seed-spec's proposal (within ±10 % for 5 s; the first such 5 s); the first window within ±20 %; Jain's index of the two averages at least 0.95 until the end (for two flows Jain's index is 1/(1 + d²), d the joiner's relative distance from the mean, so ≥ 0.95 is d ≤ 0.229: nearly the report's band); and the first three against half the link's nominal payload rate instead of an equal split, on the wired paths where one flow fills the link (on Wi-Fi that share is out of reach). A module's time is the median of its replicates, a replicate that never converged counting as slower than any that did; modules are ranked by it.", replicates.len()));

    // The ranking under each definition.
    let mut rows = Vec::new();
    let mut rank_series: Vec<Vec<Option<(f64, f64, f64)>>> = vec![Vec::new(); Path::ALL.len()];
    let mut bbr_first_everywhere = Vec::new();
    let mut first_entry = Vec::new();
    // Per module (Westwood+, Veno): per definition (label, share of pairs with 5 GHz sooner,
    // medians at 5 and 2.4 GHz).
    let mut orders: BTreeMap<&str, Vec<BandOrder>> = BTreeMap::new();
    for (i, d) in DEFINITIONS.iter().enumerate() {
        let times = times_of(&replicates, i);
        let mut row = vec![d.label.to_string()];
        let mut first_everywhere = true;
        for (k, p) in Path::ALL.iter().enumerate() {
            let ranked = d.applies(*p).then(|| rank_text(&times, *p)).flatten();
            rank_series[k].push(ranked.as_ref().map(|r| {
                let r = r.rank as f64;
                (r, r, r)
            }));
            if let Some(r) = &ranked {
                first_everywhere &= r.rank == 1;
                if i == FIRST_ENTRY {
                    first_entry.push(format!("{}: {}", p.label(), short_rank(r)));
                }
            }
            row.push(ranked.map_or("—".into(), |r| r.text));
        }
        if first_everywhere {
            bbr_first_everywhere.push(d.label);
        }
        for m in ["westwood", "veno"] {
            let order = d
                .applies(Path::Wifi5)
                .then(|| band_order(&times, m))
                .flatten();
            if let Some((share, _)) = &order {
                let median = |p: Path| {
                    times
                        .get(&(p, m.to_string()))
                        .and_then(|t| Spread::of(t).median)
                };
                orders.entry(m).or_default().push(BandOrder {
                    definition: d.label,
                    share: *share,
                    median5: median(Path::Wifi5),
                    median24: median(Path::Wifi24),
                });
            }
            row.push(order.map_or("—".into(), |(_, text)| text));
        }
        rows.push(row);
    }
    report.text("BBR's rank by median (1 = fastest) with its median and quartiles over the replicates, and the fastest other module's median; Westwood+ and Veno at 5 GHz against 2.4 GHz with the share of the replicate pairs (one of each band) in which 5 GHz converged sooner (a tie counts half).");
    report.table(
        &[
            "definition",
            "LAN: BBR's rank, median (quartiles)",
            "WAN",
            "Wi-Fi 2.4 GHz",
            "Wi-Fi 5 GHz",
            "Westwood+: 5 GHz against 2.4 GHz",
            "Veno: 5 GHz against 2.4 GHz",
        ],
        rows,
    );
    report.figure(
        "convergence-definitions",
        &SweepChart {
            title: "BBR's rank in convergence time, per definition".into(),
            x_label: "definition (1 s windows)".into(),
            y_label: "BBR's rank by median (1 = fastest)".into(),
            x: XAxis::Categories(DEFINITIONS.iter().map(|d| d.short.to_string()).collect()),
            series: Path::ALL
                .iter()
                .zip(rank_series)
                .map(|(p, points)| SweepSeries {
                    label: p.label().to_string(),
                    points,
                })
                .collect(),
        },
        "BBR's rank among the modules by the median of its replicates' convergence times, per definition and path (the definitions against half the link: wired paths only)",
    )?;
    for (i, name, what) in [
        (
            0,
            "convergence-replicates",
            "the report's definition (±20 % of an equal split until the end)",
        ),
        (
            1,
            "convergence-replicates-hold",
            "seed-spec's definition (±10 % of an equal split held for 5 s)",
        ),
    ] {
        let times = times_of(&replicates, i);
        let drawn = |v: Option<f64>| v.unwrap_or(NEVER_DRAWN_AT);
        let chart = module_chart_of(
            &format!("convergence time over replicates: {}", DEFINITIONS[i].short),
            "convergence time (s)",
            &Path::ALL,
            &modules,
            |p, m| {
                let s = Spread::of(times.get(&(p, m.to_string()))?);
                Some((drawn(s.median), drawn(s.lower), drawn(s.upper)))
            },
        );
        report.figure(
            name,
            &chart,
            &format!("Convergence time under {what}: the median of the replicates, bars from the lower to the upper quartile; a replicate that never converged is drawn at {NEVER_DRAWN_AT:.0} s (the run's end)"),
        )?;
    }

    // BBR's mechanism: ProbeRTT against the windows outside the band.
    let mut evidence_rows = Vec::new();
    let mut evidence = BTreeMap::new();
    for p in Path::ALL {
        let Some(e) = probe_rtt_evidence(data, &samples, p)? else {
            continue;
        };
        let spread = |t: &[Option<f64>]| spread_text(&Spread::of(t));
        evidence_rows.push(vec![
            p.label().to_string(),
            median_text(&e.joiner_first),
            spread(&e.first_entry),
            median_text(&e.last_episode_end),
            spread(&e.until_end),
            format!("{} of {}", e.outside_in_episode, e.outside),
            pacing_text(&e.pacing_after),
        ]);
        evidence.insert(p, e);
    }
    report.text("BBR's ProbeRTT (Linux's tcp_bbr.c: every 10 s without a lower RTT sample, the window drops to 4 packets for at least 200 ms and one round) against the convergence windows, per path: medians over the replicates, in seconds after the join, and the 1 s windows outside ±20 % of an equal split after the joining flow's first ProbeRTT, with how many of them overlap a ProbeRTT episode of either flow; and a flow's pacing rate (its bandwidth estimate times the gain) 2 s after leaving each ProbeRTT episode after the join, over its rate on entering it.");
    report.table(
        &[
            "path",
            "joiner's first ProbeRTT (s)",
            "first entry into ±20 % (s)",
            "end of the last ProbeRTT episode (s)",
            "the report's convergence time (s)",
            "windows outside ±20 % after the joiner's first ProbeRTT: in a ProbeRTT episode, of all",
            "a flow's pacing rate 2 s after its ProbeRTT over that on entering (median)",
        ],
        evidence_rows,
    );
    for (path, name) in [
        (Path::Lan, "convergence-bbr-trace-lan"),
        (Path::Wifi24, "convergence-bbr-trace-wifi24"),
        (Path::Wifi5, "convergence-bbr-trace-wifi5"),
    ] {
        if let Some(sample) = samples
            .iter()
            .find(|s| s.path == path && s.cc == "bbr" && s.row.replicate == 0)
        {
            let (chart, csv) = bbr_trace(data, sample, path.label())?;
            report.figure_with(
                name,
                &chart,
                &format!("Two BBR flows on the {} path (replicate 0): each flow's throughput averaged over 1 s windows, the joiner's ±20 % band around the pair's mean (dashed), and the ProbeRTT entries (markers at 0)", path.label()),
                csv,
            )?;
        }
    }

    let lan_shallow_first = lan_buffer(data, report, &replicates)?;

    // Westwood+ between the bands: its loss response.
    let mut loss_rows = Vec::new();
    let mut unequal_ends = Vec::new();
    for p in Path::WIFI {
        let Some(e) = loss_evidence(data, &samples, p, "westwood")? else {
            continue;
        };
        let unequal = e
            .final_share
            .iter()
            .filter(|s| (**s - 0.5).abs() > 0.1)
            .count();
        unequal_ends.push(format!(
            "{unequal} of {} at {}",
            e.final_share.len(),
            p.label()
        ));
        let lowest = e.final_share.iter().copied().fold(f64::INFINITY, f64::min);
        let highest = e
            .final_share
            .iter()
            .copied()
            .fold(f64::NEG_INFINITY, f64::max);
        loss_rows.push(vec![
            p.label().to_string(),
            median_text(&e.episodes),
            median_text(&e.last_episode),
            format!("{} of {}", e.converged, e.episodes.len()),
            format!("{lowest:.2}–{highest:.2}"),
            format!("{unequal} of {}", e.final_share.len()),
            format!(
                "{} ({} of {} by more than 0.2)",
                ratio_median(&e.share_moves),
                e.share_moves.iter().filter(|m| **m > 0.2).count(),
                e.share_moves.len()
            ),
        ]);
    }
    report.text("Westwood+ on the two Wi-Fi bands: loss episodes (fast recoveries and timeouts of either flow, overflows of the access point's 1000-packet queue) after the join, medians over the replicates; the replicates that converged under the report's definition; the joining flow's share of the two rates over the run's last 5 s (0.4-0.6 is ±20 % of an equal split); and how far that share moved across each loss episode (the 1 s before it against the 1 s from 1 s after it).");
    report.table(
        &[
            "path",
            "loss episodes after the join",
            "the last one, after the join (s)",
            "converged (the report's definition)",
            "joiner's share, last 5 s",
            "replicates ending outside 0.4-0.6",
            "the joiner's share moved across a loss episode (median)",
        ],
        loss_rows,
    );

    let lan = evidence.get(&Path::Lan);
    let lan_text = |f: fn(&ProbeRttEvidence) -> &Vec<f64>| {
        lan.map_or("—".to_string(), |e| median_text(f(e)))
    };
    let bbr = format!(
        "with {per_path} replicates per module and path BBR is the fastest on every path under {}; under the first entry into ±20 % of an equal split its rank is {}, and on the LAN with one BDP of buffer it is first under {} (study {LAN_BUFFER_STUDY}): with the 1000-packet LAN queue the joiner's first RTT samples include the first flow's queue, and its larger window holds most of the link until its first ProbeRTT {} s after the join; under the rules 'until the end' every ProbeRTT (each flow every 10 s, 4 packets for 200 ms) moves a 1 s average by about 20 %, so BBR settles only after its last one ({} s after the join on the LAN) (study {STUDY})",
        if bbr_first_everywhere.is_empty() {
            format!("none of the {} definitions", DEFINITIONS.len())
        } else {
            format!("only: {}", bbr_first_everywhere.join("; "))
        },
        first_entry.join(", "),
        if lan_shallow_first.is_empty() {
            "no definition".to_string()
        } else {
            lan_shallow_first.join("; ")
        },
        lan_text(|e| &e.joiner_first),
        lan_text(|e| &e.last_episode_end),
    );
    let order = |m: &str| band_order_text(orders.get(m).map_or(&[][..], Vec::as_slice), per_path);
    let westwood = format!(
        "{}; at each loss episode (an overflow of the 1000-packet queue) the flow that lost sets its window to its bandwidth estimate × its minimum RTT, a small part of the queue-inflated RTT, and regrows by one segment per round trip, so a loss episode leaves an unequal split that the next one resets: the replicates end outside 0.4-0.6 in {} (study {STUDY})",
        order("westwood"),
        unequal_ends.join(" and "),
    );
    let veno = format!("{} (study {STUDY})", order("veno"));
    Ok(Findings {
        bbr,
        westwood,
        veno,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_share_move_compares_the_window_before_an_event_with_one_a_second_after_it() {
        // 1 s windows ending every 0.5 s; the joiner has 3 of 4 (share 0.75) in the windows
        // ending by 20 s and 1 of 4 (0.25) in the later ones. An event at 20.0 s: the window
        // ending at 20.0 (0.75) against the first starting at or after 21.0 s, [21.0, 22.0]
        // (0.25): moved 0.5. An event at 22.0 s leaves no window starting by 23.0 s: nothing.
        let windows: Vec<(f64, f64, f64, f64)> = (0..8)
            .map(|k| {
                let to = 19.0 + 0.5 * k as f64;
                let (j, o) = if to <= 20.0 { (3.0, 1.0) } else { (1.0, 3.0) };
                (to - 1.0, to, j, o)
            })
            .collect();
        assert_eq!(share_moves(&windows, &[20.0, 22.0]), [0.5]);
    }

    #[test]
    fn the_final_share_is_the_joiners_part_of_the_last_seconds() {
        // 0.1 s bins: 8 of 2, then the last 5 bins 1 of 1; the last 0.5 s: 5/10 = 0.5; the
        // last 1 s: (5 × 8 + 5 × 1) / (5 × 10 + 5 × 2) = 45/60 = 0.75.
        let mut bins: Vec<(f64, f64, f64)> =
            (0..5).map(|k| (10.1 + 0.1 * k as f64, 8.0, 2.0)).collect();
        bins.extend((5..10).map(|k| (10.1 + 0.1 * k as f64, 1.0, 1.0)));
        let run = RunBins {
            bins,
            start: 10.0,
            width: 0.1,
            window: 10,
            share_bps: 5.0,
        };
        assert!((run.final_share(0.5).unwrap() - 0.5).abs() < 1e-12);
        assert!((run.final_share(1.0).unwrap() - 0.75).abs() < 1e-12);
    }

    #[test]
    fn the_nominal_definitions_apply_to_the_wired_paths_only() {
        for d in &DEFINITIONS {
            assert!(d.applies(Path::Lan) && d.applies(Path::Wan), "{}", d.label);
            assert_eq!(
                d.applies(Path::Wifi5),
                !matches!(d.test, Test::Nominal(_)),
                "{}",
                d.label
            );
        }
        // The first definition is the report's, which the comparison rows use.
        assert_eq!(DEFINITIONS[0].test, Test::EqualSplit(0.2));
        assert_eq!(DEFINITIONS[0].rule, Rule::UntilEnd);
        assert_eq!(DEFINITIONS[2].rule, Rule::FirstEntry);
    }
}
