//! The output folder: `summary.json`, `timeseries.csv`, `queue.csv`, `rates.csv` and, for
//! traced flows, `packets.csv`, each written to a
//! temporary file and renamed into place, so a reader (or an interrupted run) never sees a
//! half-written file.

use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use cclab_sim::{FlowSample, LinkSample, PacketEvent, PacketEventKind, TraceSink};

use crate::summary::Summary;

pub const TIMESERIES_COLUMNS: &[&str] = &[
    "time_s",
    "flow",
    "cwnd_bytes",
    "ssthresh_bytes",
    "srtt_ms",
    "inflight_bytes",
    "bytes_acked",
    "delivered_bytes",
    "retransmissions",
    "rtt_ms",
    "pacing_rate_bps",
    "mode",
    "bytes_sent",
];

pub const PACKETS_COLUMNS: &[&str] = &["time_s", "flow", "event", "seq", "bytes", "link"];

pub const QUEUE_COLUMNS: &[&str] = &[
    "time_s",
    "link",
    "queue_pkts",
    "queue_bytes",
    "drops",
    "tx_bytes",
];

fn temporary_path(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    path.with_file_name(format!(".{name}.tmp"))
}

/// Write `bytes` to `path` atomically (temporary file in the same folder, then rename).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let temporary = temporary_path(path);
    {
        let mut file = File::create(&temporary)?;
        file.write_all(bytes)?;
        file.sync_all()?;
    }
    fs::rename(&temporary, path)
}

pub fn write_summary(dir: &Path, summary: &Summary) -> io::Result<()> {
    let mut json = serde_json::to_vec_pretty(summary).map_err(io::Error::other)?;
    json.push(b'\n');
    write_atomic(&dir.join("summary.json"), &json)
}

/// A CSV file being written under a temporary name.
struct PendingCsv {
    writer: csv::Writer<BufWriter<File>>,
    temporary: PathBuf,
    path: PathBuf,
}

impl PendingCsv {
    fn create(path: PathBuf, columns: &[&str]) -> io::Result<Self> {
        let temporary = temporary_path(&path);
        let mut writer = csv::Writer::from_writer(BufWriter::new(File::create(&temporary)?));
        writer.write_record(columns).map_err(io::Error::other)?;
        Ok(PendingCsv {
            writer,
            temporary,
            path,
        })
    }

    fn commit(self) -> io::Result<()> {
        let file = self
            .writer
            .into_inner()
            .map_err(|e| io::Error::other(e.to_string()))?
            .into_inner()
            .map_err(|e| e.into_error())?;
        file.sync_all()?;
        fs::rename(&self.temporary, &self.path)
    }
}

/// Streams samples into `timeseries.csv` and `queue.csv` under temporary names;
/// [`CsvSink::commit`] renames them into place. Write errors are kept and reported by commit.
pub struct CsvSink {
    timeseries: PendingCsv,
    queue: PendingCsv,
    packets: Option<PendingCsv>,
    error: Option<csv::Error>,
}

fn optional<T: ToString>(value: Option<T>) -> String {
    value.map(|v| v.to_string()).unwrap_or_default()
}

impl CsvSink {
    pub fn create(dir: &Path) -> io::Result<Self> {
        Ok(CsvSink {
            timeseries: PendingCsv::create(dir.join("timeseries.csv"), TIMESERIES_COLUMNS)?,
            queue: PendingCsv::create(dir.join("queue.csv"), QUEUE_COLUMNS)?,
            packets: None,
            error: None,
        })
    }

    /// Also write `packets.csv` (the packet events of the traced flows).
    pub fn with_packets(mut self, dir: &Path) -> io::Result<Self> {
        self.packets = Some(PendingCsv::create(
            dir.join("packets.csv"),
            PACKETS_COLUMNS,
        )?);
        Ok(self)
    }

    fn keep(&mut self, result: csv::Result<()>) {
        if let (Err(e), None) = (result, &self.error) {
            self.error = Some(e);
        }
    }

    /// Flush both files and move them into place.
    pub fn commit(mut self) -> io::Result<()> {
        if let Some(e) = self.error.take() {
            return Err(io::Error::other(e));
        }
        self.timeseries.commit()?;
        self.queue.commit()?;
        match self.packets {
            Some(packets) => packets.commit(),
            None => Ok(()),
        }
    }
}

impl TraceSink for CsvSink {
    fn flow_sample(&mut self, s: &FlowSample) {
        let result = self.timeseries.writer.write_record([
            s.time.as_secs_f64().to_string(),
            s.flow.to_string(),
            s.cwnd_bytes.to_string(),
            optional(s.ssthresh_bytes),
            optional(s.srtt.map(|d| d.as_millis_f64())),
            s.inflight_bytes.to_string(),
            s.bytes_acked.to_string(),
            s.delivered_bytes.to_string(),
            s.retransmissions.to_string(),
            optional(s.rtt.map(|d| d.as_millis_f64())),
            optional(s.pacing_rate_bps),
            s.mode.to_string(),
            s.bytes_sent.to_string(),
        ]);
        self.keep(result);
    }

    fn link_sample(&mut self, s: &LinkSample<'_>) {
        let result = self.queue.writer.write_record([
            s.time.as_secs_f64().to_string(),
            s.link.to_string(),
            s.queue_pkts.to_string(),
            s.queue_bytes.to_string(),
            s.drops.to_string(),
            s.tx_bytes.to_string(),
        ]);
        self.keep(result);
    }

    fn packet_event(&mut self, e: &PacketEvent) {
        let Some(packets) = &mut self.packets else {
            return;
        };
        let link = match (e.kind, e.hop) {
            (PacketEventKind::Drop, 0) => "sender-access",
            (PacketEventKind::Drop, 1) => "bottleneck",
            (PacketEventKind::Drop, _) => "receiver-access",
            (PacketEventKind::AckDrop, 0) => "receiver-access",
            (PacketEventKind::AckDrop, 1) => "bottleneck-reverse",
            (PacketEventKind::AckDrop, _) => "sender-access",
            _ => "",
        };
        let result = packets.writer.write_record([
            e.time.as_secs_f64().to_string(),
            e.flow.to_string(),
            e.kind.name().to_string(),
            e.seq.to_string(),
            e.bytes.to_string(),
            link.to_string(),
        ]);
        self.keep(result);
    }
}
