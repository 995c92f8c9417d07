//! The paper's testbed measurements, simulated: one flow alone (goodput, RTT,
//! retransmissions, stability), each module against CUBIC (friendliness), and two flows of
//! one module (convergence time, fairness, stability), on the LAN, WAN and Wi-Fi paths.

use std::collections::BTreeMap;

use cclab_analysis::plot::sweep::{SweepChart, SweepSeries, XAxis};

use super::super::{Comparison, Report, Studies, Verdict, metric, param};
use super::MODULES;
use super::claims::{excess_over_mean_of_others, fastest_first, gap_below_lowest_other};
use super::convergence_causes;
use super::data::{Path, Sample, Stat, by_path_cc, column, testbed, testbed_part};

/// Per (path, module) statistics.
type Grid = BTreeMap<(Path, String), Stat>;

/// The modules that ran, in the order of [`MODULES`].
pub fn modules_of(samples: &[Sample]) -> Vec<String> {
    MODULES
        .iter()
        .filter(|m| samples.iter().any(|s| s.cc == **m))
        .map(|m| m.to_string())
        .collect()
}

/// One chart: modules on x, one line per path, the metric × `scale`.
fn module_chart(
    title: &str,
    y_label: &str,
    grid: &Grid,
    paths: &[Path],
    modules: &[String],
    scale: f64,
) -> SweepChart {
    module_chart_of(title, y_label, paths, modules, |p, m| {
        grid.get(&(p, m.to_string())).map(|s| {
            let (a, b, c) = s.point();
            (a * scale, b * scale, c * scale)
        })
    })
}

/// One chart: modules on x, one line per path, each point (centre, low, high) from `point`.
pub fn module_chart_of(
    title: &str,
    y_label: &str,
    paths: &[Path],
    modules: &[String],
    point: impl Fn(Path, &str) -> Option<(f64, f64, f64)>,
) -> SweepChart {
    SweepChart {
        title: title.to_string(),
        x_label: "module".to_string(),
        y_label: y_label.to_string(),
        x: XAxis::Categories(modules.to_vec()),
        series: paths
            .iter()
            .map(|p| SweepSeries {
                label: p.label().to_string(),
                points: modules.iter().map(|m| point(*p, m)).collect(),
            })
            .collect(),
    }
}

/// The mean of one module on one path.
fn mean(grid: &Grid, path: Path, module: &str) -> Option<f64> {
    grid.get(&(path, module.to_string())).map(|s| s.mean)
}

/// Every module's mean on one path, for the claim arithmetic.
fn on_path(grid: &Grid, path: Path) -> Vec<(String, f64)> {
    grid.iter()
        .filter(|((p, _), _)| *p == path)
        .map(|((_, m), s)| (m.clone(), s.mean))
        .collect()
}

fn fmt(value: Option<f64>, digits: usize) -> String {
    value.map_or("—".to_string(), |v| format!("{v:.digits$}"))
}

/// The paper's bound is 22.5 %; within 5 points is our tolerance (its testbed's PHY rate,
/// stations and queues are unknown).
fn gap_verdict(gap: f64) -> Verdict {
    if gap >= 0.225 {
        Verdict::Agrees
    } else if gap >= 0.175 {
        Verdict::WithinTolerance
    } else {
        Verdict::Disagrees
    }
}

/// "BBR 16.2 % below scalable" or "BBR 154.4 % above vegas": BBR against the lowest other.
fn gap_text(gap: f64, lowest: &str) -> String {
    if gap >= 0.0 {
        format!("BBR {:.1} % below the lowest other ({lowest})", gap * 100.0)
    } else {
        // gap = 1 − bbr/lowest < 0: BBR is bbr/lowest − 1 = −gap above it.
        format!(
            "BBR {:.1} % above the lowest other ({lowest})",
            -gap * 100.0
        )
    }
}

fn gap_reason(verdict: Verdict, vegas_lowest: bool, gap: f64) -> String {
    match verdict {
        Verdict::Disagrees if !vegas_lowest && gap < 0.0 => "BBR gets more than every loss-based module here: they back off at each overflow of the short queue, BBR does not (it retransmits instead)".into(),
        Verdict::Agrees => "bound 22.5 %".into(),
        Verdict::WithinTolerance => "tolerance 5 points below the 22.5 % bound".into(),
        Verdict::Disagrees if vegas_lowest => "Vegas, delay-based, takes the Wi-Fi medium's aggregation and contention delay for queueing and gets less than BBR; see the next row for the other modules".into(),
        Verdict::Disagrees => "Linux's BBR (ACK-aggregation allowance, Linux 5.1) keeps the access point's aggregates nearly as full as CUBIC does (table above); the draft's BBR, as an older kernel had it, loses more for the paper's reason but still less than 22.5 % (study bbr-variant-wifi); see the discussion".into(),
    }
}

pub fn write(data: &Studies, report: &mut Report) -> anyhow::Result<()> {
    single(data, report)?;
    wifi_queue_alternative(data, report)?;
    bbr_variant(data, report)?;
    friendliness(data, report)?;
    convergence(data, report)?;
    Ok(())
}

fn single(data: &Studies, report: &mut Report) -> anyhow::Result<()> {
    let samples = testbed(data, "single")?;
    let modules = modules_of(&samples);
    let goodput = by_path_cc(&samples, column("flows.0.goodput_steady_bps"));
    let rtt = by_path_cc(&samples, column("flows.0.mean_rtt_steady_ms"));
    let retrans = by_path_cc(&samples, column("flows.0.retransmissions"));
    let ratio = by_path_cc(&samples, column("flows.0.retransmission_ratio"));
    let cv = by_path_cc(&samples, column("flows.0.stability_cv"));
    let aggregate = by_path_cc(&samples, column("links.0.wifi.mean_aggregate_frames"));
    let queue = by_path_cc(&samples, column("links.0.mean_queue_steady_pkts"));

    report.text(
        "## Testbed measurements (simulated)\n\n### One flow alone: goodput, RTT, retransmissions, stability\n\nEach module alone on each path for the whole run; goodput and RTT over the steady window, retransmissions over the run.",
    );
    let rows = modules
        .iter()
        .map(|m| {
            let mut row = vec![m.clone()];
            for p in Path::ALL {
                row.push(format!(
                    "{} / {} / {}",
                    fmt(mean(&goodput, p, m).map(|g| g / 1e6), 1),
                    fmt(mean(&rtt, p, m), 1),
                    fmt(mean(&retrans, p, m), 0)
                ));
            }
            row
        })
        .collect();
    report.table(
        &[
            "module",
            "LAN: goodput (Mbit/s) / mean RTT (ms) / retransmitted segments",
            "WAN",
            "Wi-Fi 2.4 GHz",
            "Wi-Fi 5 GHz",
        ],
        rows,
    );
    report.figure(
        "single-goodput",
        &module_chart("goodput of one flow", "goodput (Mbit/s)", &goodput, &Path::ALL, &modules, 1e-6),
        "Goodput of one flow alone, per module and path (steady window; mean of the replicates, bars from the smallest to the largest)",
    )?;
    report.figure(
        "single-rtt",
        &module_chart(
            "mean RTT of one flow",
            "mean RTT (ms)",
            &rtt,
            &Path::ALL,
            &modules,
            1.0,
        ),
        "Mean RTT of one flow alone (steady window)",
    )?;
    report.figure(
        "single-retransmissions",
        &module_chart(
            "retransmissions of one flow",
            "retransmission ratio (%)",
            &ratio,
            &Path::ALL,
            &modules,
            100.0,
        ),
        "Retransmitted segments as a share of the segments sent, one flow alone",
    )?;
    report.figure(
        "single-stability",
        &module_chart("stability of one flow", "CV of 100 ms throughput", &cv, &Path::ALL, &modules, 1.0),
        "Stability: the coefficient of variation of the flow's 100 ms throughput bins in the steady window (lower is steadier)",
    )?;

    // BBR's goodput against the others on Wi-Fi.
    let mut gaps = Vec::new();
    let mut evidence = Vec::new();
    for p in Path::WIFI {
        if let Some((gap, lowest)) = gap_below_lowest_other(&on_path(&goodput, p), "bbr") {
            gaps.push((p, gap, lowest));
        }
        evidence.push(vec![
            p.label().to_string(),
            fmt(mean(&goodput, p, "bbr").map(|g| g / 1e6), 1),
            fmt(mean(&goodput, p, "cubic").map(|g| g / 1e6), 1),
            fmt(mean(&aggregate, p, "bbr"), 1),
            fmt(mean(&aggregate, p, "cubic"), 1),
            fmt(mean(&queue, p, "bbr"), 1),
            fmt(mean(&queue, p, "cubic"), 1),
        ]);
    }
    report.text("Why BBR's goodput differs on Wi-Fi: the access point's aggregates and queue, BBR against CUBIC (an A-MPDU carries at most 64 frames; a short queue leaves it short).");
    report.table(
        &[
            "path",
            "BBR goodput (Mbit/s)",
            "CUBIC goodput (Mbit/s)",
            "BBR frames per AP aggregate",
            "CUBIC frames per AP aggregate",
            "BBR mean AP queue (packets)",
            "CUBIC mean AP queue (packets)",
        ],
        evidence,
    );
    for (p, gap, lowest) in &gaps {
        let verdict = gap_verdict(*gap);
        report.compare(Comparison {
            claim: format!("BBR's goodput below every other module's on {}", p.label()),
            paper: "≥ 22.5 % lower (Wi-Fi)".into(),
            ours: gap_text(*gap, lowest),
            verdict,
            reason: gap_reason(verdict, lowest == "vegas", *gap),
        });
    }
    for p in Path::WIFI {
        let loss_based: Vec<(String, f64)> = on_path(&goodput, p)
            .into_iter()
            .filter(|(m, _)| m != "vegas")
            .collect();
        if let Some((gap, lowest)) = gap_below_lowest_other(&loss_based, "bbr") {
            let verdict = gap_verdict(gap);
            report.compare(Comparison {
                claim: format!(
                    "BBR's goodput below every other module's but Vegas's on {}",
                    p.label()
                ),
                paper: "≥ 22.5 % lower (Wi-Fi)".into(),
                ours: gap_text(gap, &lowest),
                verdict,
                reason: gap_reason(verdict, false, gap),
            });
        }
    }
    // BBR on the wired paths: full use at a low RTT.
    for p in [Path::Lan, Path::Wan] {
        let (Some(bbr), Some(cubic_rtt), Some(bbr_rtt)) = (
            mean(&goodput, p, "bbr"),
            mean(&rtt, p, "cubic"),
            mean(&rtt, p, "bbr"),
        ) else {
            continue;
        };
        // The link's wire rate carries 1448/1500 of it as payload.
        let rate = if p == Path::Lan { 1e9 } else { 100e6 };
        let share = bbr / (rate * 1448.0 / 1500.0);
        let verdict = if share >= 0.95 && bbr_rtt < cubic_rtt {
            Verdict::Agrees
        } else {
            Verdict::Disagrees
        };
        report.compare(Comparison {
            claim: format!("BBR fully uses the {} bottleneck with a low RTT", p.label()),
            paper: "full use, low RTT (wired)".into(),
            ours: format!(
                "{:.1} % of the payload capacity; mean RTT {bbr_rtt:.1} ms (CUBIC {cubic_rtt:.1} ms)",
                share * 100.0
            ),
            verdict,
            reason: if verdict == Verdict::Agrees {
                "full: ≥ 95 % of the payload capacity; low: below CUBIC's".into()
            } else {
                "below 95 % of capacity, or an RTT not below CUBIC's".into()
            },
        });
    }

    // CUBIC's retransmissions on Wi-Fi.
    for p in Path::WIFI {
        report.compare(retransmission_comparison(
            &on_path(&retrans, p),
            p.label(),
            "1000-packet queues (Linux's txqueuelen)",
        ));
    }
    Ok(())
}

/// The Wi-Fi claims under both reconstructions of the access point's queue: 1000 packets
/// (Linux's txqueuelen, the main studies) and 100 (a shallow driver queue).
fn wifi_queue_alternative(data: &Studies, report: &mut Report) -> anyhow::Result<()> {
    let deep = testbed_part(data, "single-wifi")?;
    let shallow = testbed_part(data, "single-wifi-shallow")?;
    let mut rows = Vec::new();
    for (queue, samples) in [("1000 packets", &deep), ("100 packets", &shallow)] {
        let goodput = by_path_cc(samples, column("flows.0.goodput_steady_bps"));
        let retrans = by_path_cc(samples, column("flows.0.retransmissions"));
        for p in Path::WIFI {
            let all = on_path(&goodput, p);
            let gap_all = gap_below_lowest_other(&all, "bbr");
            let no_vegas: Vec<(String, f64)> =
                all.iter().filter(|(m, _)| m != "vegas").cloned().collect();
            let gap_loss = gap_below_lowest_other(&no_vegas, "bbr");
            let excess = excess_over_mean_of_others(&on_path(&retrans, p), "cubic");
            let gap_cell = |g: &Option<(f64, String)>| {
                g.as_ref().map_or("—".into(), |(g, m)| gap_text(*g, m))
            };
            rows.push(vec![
                queue.to_string(),
                p.label().to_string(),
                fmt(mean(&goodput, p, "bbr").map(|g| g / 1e6), 1),
                gap_cell(&gap_all),
                gap_cell(&gap_loss),
                fmt(mean(&retrans, p, "cubic"), 0),
                excess.map_or("—".into(), |e| format!("{:+.0} %", e * 100.0)),
            ]);
            if queue == "100 packets" {
                if let Some((gap, lowest)) = gap_loss {
                    let verdict = gap_verdict(gap);
                    report.compare(Comparison {
                        claim: format!(
                            "BBR's goodput below every other module's but Vegas's on {}, 100-packet Wi-Fi queues",
                            p.label()
                        ),
                        paper: "≥ 22.5 % lower (Wi-Fi)".into(),
                        ours: gap_text(gap, &lowest),
                        verdict,
                        reason: format!(
                            "the alternative reconstruction (study single-wifi-shallow); {}",
                            gap_reason(verdict, false, gap)
                        ),
                    });
                }
                report.compare(retransmission_comparison(
                    &on_path(&retrans, p),
                    &format!("{}, 100-packet Wi-Fi queues", p.label()),
                    "the alternative reconstruction (study single-wifi-shallow)",
                ));
            }
        }
    }
    report.text("### The Wi-Fi queue: an alternative reconstruction\n\nThe access point's queue is not in the abstract. With Linux's 1000-packet `txqueuelen` (the main studies) the receive window (auto-tuned) bounds most loss-based modules before the queue overflows, so they retransmit little (at 2.4 GHz Scalable and HighSpeed overflow it in one replicate each; at 5 GHz most of them overflow it now and then, Scalable, HighSpeed and BIC the most). The same single-flow runs with a 100-packet queue at the access point and the station (study `single-wifi-shallow`):");
    report.table(
        &[
            "AP queue",
            "path",
            "BBR goodput (Mbit/s)",
            "BBR against the lowest other",
            "against the lowest but Vegas",
            "CUBIC retransmissions",
            "CUBIC over the others' mean",
        ],
        rows,
    );
    Ok(())
}

/// CUBIC's retransmissions over the mean of the other modules' (whole-run counts, means of
/// the replicates) against the paper's +129 %: within ±30 points agrees; more than +50 %
/// is within tolerance (CUBIC clearly the most retransmitting); otherwise disagrees.
fn retransmission_comparison(values: &[(String, f64)], path: &str, setting: &str) -> Comparison {
    let cubic = values.iter().find(|(m, _)| m == "cubic").map(|(_, v)| *v);
    let others: Vec<f64> = values
        .iter()
        .filter(|(m, _)| m != "cubic")
        .map(|(_, v)| *v)
        .collect();
    let others_mean =
        (!others.is_empty()).then(|| others.iter().sum::<f64>() / others.len() as f64);
    let excess = excess_over_mean_of_others(values, "cubic");
    let verdict = match excess {
        Some(e) if (e - 1.29).abs() <= 0.3 => Verdict::Agrees,
        Some(e) if e > 0.5 => Verdict::WithinTolerance,
        _ => Verdict::Disagrees,
    };
    Comparison {
        claim: format!("CUBIC's retransmissions against the mean of the others' on {path}"),
        paper: "129 % more".into(),
        ours: format!(
            "{} (CUBIC {} segments, the others {} on average)",
            excess.map_or("—".into(), |e| format!("{:+.0} %", e * 100.0)),
            fmt(cubic, 0),
            fmt(others_mean, 0)
        ),
        verdict,
        reason: match verdict {
            Verdict::Agrees => format!("tolerance ±30 points; {setting}"),
            Verdict::WithinTolerance => format!(
                "CUBIC retransmits over 50 % more than the others, not 129 % ± 30 points; {setting}"
            ),
            Verdict::Disagrees => format!(
                "{setting}: the retransmissions come from queue overflows, and CUBIC overflows the access point's queue less often than several other modules (the retransmission figure); see the discussion"
            ),
        },
    }
}

/// BBR as the draft describes it against Linux's tcp_bbr.c (ACK-aggregation allowance), on
/// Wi-Fi, beside the lowest loss-based module of single-wifi.
fn bbr_variant(data: &Studies, report: &mut Report) -> anyhow::Result<()> {
    let mut by_variant: BTreeMap<(Path, String), (Vec<f64>, Vec<f64>)> = BTreeMap::new();
    for row in data.rows("bbr-variant-wifi")? {
        let path = param(&row, "topology.bottleneck")
            .and_then(Path::of_bottleneck)
            .ok_or_else(|| anyhow::anyhow!("bbr-variant-wifi: a run without a known path"))?;
        let variant = param(&row, "flows.0.params.variant")
            .ok_or_else(|| anyhow::anyhow!("bbr-variant-wifi: a run without a variant"))?
            .to_string();
        let entry = by_variant.entry((path, variant)).or_default();
        if let Some(g) = metric(&row, "flows.0.goodput_steady_bps") {
            entry.0.push(g);
        }
        if let Some(a) = metric(&row, "links.0.wifi.mean_aggregate_frames") {
            entry.1.push(a);
        }
    }
    let single = testbed_part(data, "single-wifi")?;
    let goodput = by_path_cc(&single, column("flows.0.goodput_steady_bps"));
    let mut rows = Vec::new();
    for ((path, variant), (g, a)) in &by_variant {
        let g = Stat::of(g).map(|s| s.mean);
        let lowest = on_path(&goodput, *path)
            .into_iter()
            .filter(|(m, _)| m != "vegas" && m != "bbr")
            .min_by(|x, y| x.1.total_cmp(&y.1));
        rows.push(vec![
            path.label().to_string(),
            variant.clone(),
            fmt(g.map(|g| g / 1e6), 1),
            fmt(Stat::of(a).map(|s| s.mean), 1),
            match (g, &lowest) {
                (Some(g), Some((m, l))) => gap_text(1.0 - g / l, m),
                _ => "—".into(),
            },
        ]);
    }
    report.text("### BBR as the draft describes it and as Linux has it\n\nEvery BBR flow above is Linux's BBR: `stack = \"linux\"` chooses `variant = \"linux\"`, tcp_bbr.c's gains and, since Linux 5.1 (2019), its ACK-aggregation allowance, which lets the window cover the data an aggregating link (Wi-Fi) releases at once. The draft's BBR (`variant = \"paper\"`) has no such allowance, nor had a kernel before 5.1, which a testbed of the paper's time (2019) may well have run. The same single-flow runs with both variants (study `bbr-variant-wifi`), against the lowest loss-based module of single-wifi:");
    report.table(
        &[
            "path",
            "BBR variant",
            "BBR goodput (Mbit/s)",
            "frames per AP aggregate",
            "against the lowest loss-based module",
        ],
        rows,
    );
    Ok(())
}

fn friendliness(data: &Studies, report: &mut Report) -> anyhow::Result<()> {
    let samples = testbed(data, "friendliness")?;
    let modules = modules_of(&samples);
    let share = by_path_cc(&samples, column("aggregate.share_first"));
    report.text("### Friendliness: each module against CUBIC\n\nTwo flows from t = 0, the module under test and CUBIC. The share is x1/(x1 + x2) of the steady goodput (0.5 fair; below 0.5 CUBIC takes more).");
    report.figure(
        "friendliness-share",
        &module_chart(
            "share against CUBIC",
            "share of the module x1/(x1+x2)",
            &share,
            &Path::ALL,
            &modules,
            1.0,
        ),
        "Friendliness: the share of the steady goodput the module gets against one CUBIC flow",
    )?;
    for p in [Path::Lan, Path::Wifi24, Path::Wifi5] {
        let others: Vec<(String, f64)> = on_path(&share, p)
            .into_iter()
            .filter(|(m, _)| m != "cubic")
            .collect();
        if others.is_empty() {
            continue;
        }
        let suppressed = others.iter().filter(|(_, s)| *s < 0.4).count();
        let below_half = others.iter().filter(|(_, s)| *s < 0.5).count();
        let mean_share = others.iter().map(|(_, s)| s).sum::<f64>() / others.len() as f64;
        let majority = others.len() / 2 + 1;
        let verdict = if suppressed >= majority {
            Verdict::Agrees
        } else if below_half >= majority {
            Verdict::WithinTolerance
        } else {
            Verdict::Disagrees
        };
        report.compare(Comparison {
            claim: format!(
                "CUBIC suppresses the other modules' goodput on {}",
                p.label()
            ),
            paper: "CUBIC too aggressive and unfriendly (LAN, Wi-Fi)".into(),
            ours: format!(
                "{suppressed} of {} modules get < 40 %, {below_half} < 50 %; mean share {:.2}",
                others.len(),
                mean_share
            ),
            verdict,
            reason: match verdict {
                Verdict::Agrees => {
                    "suppressed: a share below 0.4 (CUBIC gets ≥ 1.5× theirs) for most modules"
                        .into()
                }
                Verdict::WithinTolerance => {
                    "most modules get less than CUBIC, but fewer than half below 0.4".into()
                }
                Verdict::Disagrees => {
                    "most modules hold half or more against CUBIC on this path in the model".into()
                }
            },
        });
    }
    Ok(())
}

/// Convergence times per (path, module): the mean over replicates, or `None` when a
/// replicate never settled (then the module ranks last); with the count of unsettled and
/// all replicates. `time` gives one run's convergence time (`None`: never settled).
fn convergence_times(
    samples: &[Sample],
    time: impl Fn(&Sample) -> Option<f64>,
) -> BTreeMap<(Path, String), (Option<f64>, usize, usize)> {
    let mut out: BTreeMap<(Path, String), (Vec<f64>, usize)> = BTreeMap::new();
    for s in samples {
        let entry = out.entry((s.path, s.cc.clone())).or_default();
        match time(s) {
            Some(t) => entry.0.push(t),
            None => entry.1 += 1,
        }
    }
    out.into_iter()
        .map(|(k, (times, unsettled))| {
            let n = times.len() + unsettled;
            let mean = (unsettled == 0 && !times.is_empty())
                .then(|| times.iter().sum::<f64>() / times.len() as f64);
            (k, (mean, unsettled, n))
        })
        .collect()
}

fn convergence(data: &Studies, report: &mut Report) -> anyhow::Result<()> {
    let samples = testbed(data, "convergence")?;
    let modules = modules_of(&samples);
    let mut equal = BTreeMap::new();
    for (i, s) in samples.iter().enumerate() {
        equal.insert(i, convergence_causes::reports_time(data, s)?);
    }
    let index = |s: &Sample| samples.iter().position(|x| std::ptr::eq(x, s));
    let times = convergence_times(&samples, |s| index(s).and_then(|i| equal[&i]));
    let nominal = convergence_times(&samples, |s| metric(&s.row, "flows.1.convergence_time_s"));
    // The figure: the mean and range over replicates where every replicate settled.
    let mut settled: BTreeMap<(Path, String), Vec<f64>> = BTreeMap::new();
    for (i, s) in samples.iter().enumerate() {
        if let Some(t) = equal[&i] {
            settled.entry((s.path, s.cc.clone())).or_default().push(t);
        }
    }
    let time_grid: Grid = times
        .iter()
        .filter(|(_, (mean, _, _))| mean.is_some())
        .filter_map(|(k, _)| Some((k.clone(), Stat::of(settled.get(k)?)?)))
        .collect();
    let jain = by_path_cc(&samples, column("aggregate.jain_index_steady"));
    let cv = by_path_cc(&samples, column("aggregate.stability_cv"));

    report.text("### Convergence, fairness and stability: two flows of one module\n\nThe second flow joins at 10 s (plus up to 1 s). The summary's convergence time (`flows.1.convergence_time_s`, docs/metrics.md) measures the joiner against its max-min fair share of the link's *nominal* rate: half of 1 Gbit/s, 100 Mbit/s, and for Wi-Fi half the PHY rate (144.4 or 866.7 Mbit/s), which no TCP flow reaches over 802.11's contention and overheads (one flow alone gets 98 and 410 Mbit/s). On Wi-Fi that share is never met, so the comparisons use the same definition against an *equal split of what the two flows get*: from the joiner's start until its 1 s average throughput entered and stayed within ±20 % of the pair's mean until the run ended (computed from each run's `rates.csv`; on the wired paths the two agree wherever the link is full). A module with a replicate that never settled has no point and ranks last. Fairness (Jain's index) and stability (the flows' mean CV of 100 ms throughput) from 30 s on.");
    report.figure(
        "convergence-time",
        &module_chart("convergence time", "convergence time (s)", &time_grid, &Path::ALL, &modules, 1.0),
        "Convergence time of the joining flow, per module and path (no point: a replicate never settled within ±20 %)",
    )?;
    report.figure(
        "convergence-jain",
        &module_chart(
            "fairness of two flows",
            "Jain's index",
            &jain,
            &Path::ALL,
            &modules,
            1.0,
        ),
        "Fairness: Jain's index of the two flows' steady goodput",
    )?;
    report.figure(
        "convergence-stability",
        &module_chart(
            "stability of two flows",
            "mean CV of 100 ms throughput",
            &cv,
            &Path::ALL,
            &modules,
            1.0,
        ),
        "Stability: the mean of the two flows' coefficients of variation of 100 ms throughput",
    )?;
    let mut rows = Vec::new();
    for m in &modules {
        let mut row = vec![m.clone()];
        for p in Path::ALL {
            let text = |entry: Option<&(Option<f64>, usize, usize)>| match entry {
                Some((Some(t), _, _)) => format!("{t:.1}"),
                Some((None, unsettled, n)) => format!("none ({unsettled} of {n} unsettled)"),
                None => "—".into(),
            };
            let key = (p, m.clone());
            row.push(format!(
                "{} / {}",
                text(times.get(&key)),
                text(nominal.get(&key))
            ));
        }
        rows.push(row);
    }
    report.table(
        &[
            "module",
            "LAN: to an equal split / to half the nominal rate (s)",
            "WAN",
            "Wi-Fi 2.4 GHz",
            "Wi-Fi 5 GHz",
        ],
        rows,
    );
    let findings = convergence_causes::write(data, report)?;

    // BBR fastest on every path.
    let mut ranks = Vec::new();
    for p in Path::ALL {
        let on: Vec<(String, Option<f64>)> = times
            .iter()
            .filter(|((q, _), _)| *q == p)
            .map(|((_, m), (t, _, _))| (m.clone(), *t))
            .collect();
        if on.is_empty() {
            continue;
        }
        let order = fastest_first(&on);
        let rank = order.iter().position(|(m, _)| m == "bbr").map(|r| r + 1);
        let fastest = order.first().cloned();
        let bbr = on.iter().find(|(m, _)| m == "bbr").and_then(|(_, t)| *t);
        ranks.push((p, rank, order.len(), bbr, fastest));
    }
    let first_everywhere = ranks.iter().all(|(_, r, _, _, _)| *r == Some(1));
    // One averaging window (1 s) is the measurement's resolution.
    let within_window = ranks
        .iter()
        .all(|(_, _, _, bbr, fastest)| match (bbr, fastest) {
            (Some(b), Some((_, Some(f)))) => b - f <= 1.0,
            _ => false,
        });
    let ours: Vec<String> = ranks
        .iter()
        .map(|(p, r, n, bbr, _)| {
            format!(
                "{}: {} of {n} ({})",
                p.label(),
                r.map_or("—".into(), |r| r.to_string()),
                bbr.map_or("not settled".into(), |t| format!("{t:.1} s"))
            )
        })
        .collect();
    report.compare(Comparison {
        claim: "BBR converges fastest on every path".into(),
        paper: "BBR converges very quickly in all scenarios".into(),
        ours: format!("BBR's rank: {}", ours.join("; ")),
        verdict: if first_everywhere {
            Verdict::Agrees
        } else if within_window {
            Verdict::WithinTolerance
        } else {
            Verdict::Disagrees
        },
        reason: if first_everywhere {
            String::new()
        } else if within_window {
            "within 1 s (the averaging window, the measurement's resolution) of the fastest everywhere".into()
        } else {
            format!(
                "on some path another module settles more than 1 s sooner, or BBR does not settle within ±20 %; {}",
                findings.bbr
            )
        },
    });

    // Westwood+ and Veno: 5 GHz faster than 2.4 GHz.
    for m in ["westwood", "veno"] {
        let t24 = times.get(&(Path::Wifi24, m.to_string())).map(|t| t.0);
        let t5 = times.get(&(Path::Wifi5, m.to_string())).map(|t| t.0);
        let (Some(t24), Some(t5)) = (t24, t5) else {
            continue;
        };
        let text = |t: Option<f64>| t.map_or("not settled".to_string(), |t| format!("{t:.1} s"));
        let faster = match (t24, t5) {
            (Some(a), Some(b)) => b < a,
            (None, Some(_)) => true,
            _ => false,
        };
        let cause = if m == "westwood" {
            &findings.westwood
        } else {
            &findings.veno
        };
        report.compare(Comparison {
            claim: format!(
                "{} converges faster on 5 GHz than on 2.4 GHz",
                if m == "westwood" { "Westwood+" } else { "Veno" }
            ),
            paper: "faster at 5 GHz".into(),
            ours: format!("5 GHz {}, 2.4 GHz {}", text(t5), text(t24)),
            verdict: if faster { Verdict::Agrees } else { Verdict::Disagrees },
            reason: match (faster, t24, t5) {
                (true, None, _) => format!("it settled on 5 GHz but not on 2.4 GHz (a replicate never settled there); {cause}"),
                (true, Some(_), _) => format!("as the paper found; {cause}"),
                (false, None, None) => format!("on both bands a replicate never settled within ±20 % of an equal split before the run ended; {cause}"),
                (false, _, None) => format!("a replicate on 5 GHz never settled within ±20 % of an equal split before the run ended; {cause}"),
                (false, _, Some(_)) => format!("it settled sooner on 2.4 GHz; {cause}"),
            },
        });
    }
    Ok(())
}
