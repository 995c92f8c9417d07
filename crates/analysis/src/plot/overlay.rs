//! Two run folders on the same axes (`cclab compare A B --out DIR`): cwnd, goodput, RTT and
//! queue over time, each flow in one colour, A solid and B dashed. Typically the simulation
//! and the emulation of one scenario, whose folders have the same files (`timeseries.csv`,
//! `queue.csv`) but not all the same (an emulation has no `rates.csv`), so goodput is taken
//! from `bytes_acked` in both.

use std::path::{Path, PathBuf};

use super::chart::{Line, TimeChart};
use super::data::{FlowSeries, flow_series, for_each_row, required, run_info};
use super::{Formats, PlotError, color, save};

/// Goodput is averaged over at least this long: `bytes_acked` moves in whole segments, so
/// over one 10 ms sample the rate jumps between a few values.
pub const GOODPUT_BIN_S: f64 = 0.1;

/// Goodput (Mbit/s) from cumulative bytes acknowledged: the rate between samples at least
/// [`GOODPUT_BIN_S`] apart, placed at the end of each bin.
pub fn goodput_from_acked(points: &[(f64, f64)]) -> Vec<(f64, f64)> {
    let mut out = Vec::new();
    let Some(&(mut t0, mut b0)) = points.first() else {
        return out;
    };
    for &(t, bytes) in &points[1..] {
        if t - t0 >= GOODPUT_BIN_S - 1e-9 {
            out.push((t, (bytes - b0) * 8.0 / (t - t0) / 1e6));
            (t0, b0) = (t, bytes);
        }
    }
    out
}

/// A link's name and its queue (packets) over time.
type LinkQueue = (String, Vec<(f64, f64)>);

/// Each link's queue over time, in the order of `queue.csv`.
fn link_queues(dir: &Path) -> Result<Vec<LinkQueue>, PlotError> {
    let mut links: Vec<LinkQueue> = Vec::new();
    for_each_row(
        &dir.join("queue.csv"),
        &["time_s", "link", "queue_pkts"],
        |c| {
            let point = (required(c[0])?, required(c[2])?);
            match links.iter_mut().find(|(name, _)| name == c[1]) {
                Some((_, points)) => points.push(point),
                None => links.push((c[1].to_string(), vec![point])),
            }
            Ok(())
        },
    )?;
    Ok(links)
}

/// One folder's lines, each flow's label after `prefix` (the folder's label).
fn lines_of(
    series: FlowSeries,
    label: impl Fn(u32) -> String,
    prefix: &str,
    dashed: bool,
) -> Vec<Line> {
    series
        .into_iter()
        .map(|(flow, points)| Line {
            label: format!("{prefix}: {}", label(flow)),
            color: color(flow as usize),
            points,
            dashed,
        })
        .collect()
}

/// Draw the overlaid figures of run folders `a` and `b` (labelled `labels`) into
/// `out/figures`: cwnd, goodput, rtt, queue.
pub fn plot_overlay(
    a: &Path,
    b: &Path,
    labels: [&str; 2],
    out: &Path,
    formats: Formats,
) -> Result<Vec<PathBuf>, PlotError> {
    let dirs = [a, b];
    let infos = [run_info(a)?, run_info(b)?];
    let figures = out.join("figures");
    std::fs::create_dir_all(&figures).map_err(|source| PlotError::Io {
        path: figures.clone(),
        source,
    })?;
    let title = |what: &str| format!("{what}: {} (solid) and {} (dashed)", labels[0], labels[1]);
    let chart = |what: &str, y_label: &str, lines: Vec<Line>| TimeChart {
        title: title(what),
        x_label: "time (s)".into(),
        y_label: y_label.into(),
        lines,
        ..TimeChart::default()
    };
    let (mut cwnd, mut rtt, mut goodput, mut queue) = (vec![], vec![], vec![], vec![]);
    for (k, dir) in dirs.iter().enumerate() {
        let info = &infos[k];
        let dashed = k == 1;
        let mut columns = flow_series(
            &dir.join("timeseries.csv"),
            &["cwnd_bytes", "rtt_ms", "bytes_acked"],
            &[1e-3, 1.0, 1.0],
            (f64::NEG_INFINITY, f64::INFINITY),
        )?
        .into_iter();
        let mut next = || columns.next().unwrap_or_default();
        let (w, r, acked) = (next(), next(), next());
        let label = |flow| info.flow_label(flow);
        cwnd.extend(lines_of(w, label, labels[k], dashed));
        rtt.extend(lines_of(r, label, labels[k], dashed));
        let rates: FlowSeries = acked
            .into_iter()
            .map(|(flow, points)| (flow, goodput_from_acked(&points)))
            .collect();
        goodput.extend(lines_of(rates, label, labels[k], dashed));
        for (i, (name, points)) in link_queues(dir)?.into_iter().enumerate() {
            queue.push(Line {
                label: format!("{}: {name}", labels[k]),
                color: color(i),
                points,
                dashed,
            });
        }
    }
    let mut written = Vec::new();
    for (name, figure) in [
        ("cwnd", chart("congestion window", "cwnd (kB)", cwnd)),
        (
            "goodput",
            chart(
                &format!("goodput per flow ({GOODPUT_BIN_S} s bins)"),
                "goodput (Mbit/s)",
                goodput,
            ),
        ),
        ("rtt", chart("round-trip time", "RTT (ms)", rtt)),
        ("queue", chart("queue", "queue length (packets)", queue)),
    ] {
        written.extend(save(&figure, &figures, name, formats)?);
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn goodput_is_the_acked_rate_over_bins_of_a_tenth_of_a_second() {
        // 10 ms samples, 12 500 bytes acknowledged each: 12 500 × 8 / 0.01 = 10 Mbit/s; the
        // first bin ends at 0.1 s, the second at 0.2 s.
        let points: Vec<(f64, f64)> = (0..=20)
            .map(|i| (i as f64 * 0.01, i as f64 * 12_500.0))
            .collect();
        let rates = goodput_from_acked(&points);
        assert_eq!(rates.len(), 2);
        for (i, (t, mbps)) in rates.iter().enumerate() {
            assert!((t - 0.1 * (i + 1) as f64).abs() < 1e-9);
            assert!((mbps - 10.0).abs() < 1e-9, "{mbps}");
        }
        assert!(goodput_from_acked(&[]).is_empty());
    }
}
