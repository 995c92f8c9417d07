//! The output folder: `summary.json`, `timeseries.csv`, `queue.csv`, `rates.csv`,
//! `events.csv` and, for traced flows, `packets.csv`, each written to a
//! temporary file and renamed into place, so a reader (or an interrupted run) never sees a
//! half-written file.

use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

use cclab_sim::{
    FinishedFlow, FlowEvent, FlowSample, GroupSample, LinkSample, PacketEvent, PacketEventKind,
    TraceSink,
};

use crate::summary::Summary;

mod cell;
mod csv_text;
use cell::{Cell, CellFormatter};

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

/// The columns `timeseries.csv` gains after [`TIMESERIES_COLUMNS`] in a run with TCB
/// sharing (docs/sharing.md): the flow's group (empty for a flow in none) and the window the
/// group assigns it.
pub const SHARING_COLUMNS: &[&str] = &["group", "assigned_cwnd_bytes"];

/// `groups.csv`, in runs with coupled groups: one row per group and sampling tick.
pub const GROUPS_COLUMNS: &[&str] = &[
    "time_s",
    "group",
    "members",
    "priority_sum",
    "aggregate_cwnd_bytes",
    "aggregate_ssthresh_bytes",
    "frozen",
];

pub const PACKETS_COLUMNS: &[&str] = &["time_s", "flow", "event", "seq", "bytes", "link"];

pub const EVENTS_COLUMNS: &[&str] = &[
    "time_s",
    "flow",
    "event",
    "from",
    "to",
    "detail",
    "cwnd_bytes",
    "ssthresh_bytes",
];

/// `flows.csv`: one row per finished short flow of a workload, in order of completion.
pub const FLOWS_COLUMNS: &[&str] = &[
    "id",
    "group",
    "slot",
    "size_bytes",
    "start_s",
    "fct_s",
    "ideal_fct_s",
    "slowdown",
    "retransmissions",
    "timeouts",
];

pub const QUEUE_COLUMNS: &[&str] = &[
    "time_s",
    "link",
    "queue_pkts",
    "queue_bytes",
    "drops",
    "tx_bytes",
];

/// The files `cclab run` writes in its folder (besides `figures/`); `report.html` last, as
/// it is written last ([`crate::html_report`]).
pub const RUN_FILES: &[&str] = &[
    "summary.json",
    "timeseries.csv",
    "queue.csv",
    "rates.csv",
    "events.csv",
    "packets.csv",
    "flows.csv",
    "groups.csv",
    crate::html_report::REPORT_FILE,
];

/// The folder of figures inside a run or sweep folder.
pub const FIGURES_DIR: &str = "figures";

/// Figure file extensions.
pub const FIGURE_EXTENSIONS: &[&str] = &["svg", "png"];

fn temporary_path(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    path.with_file_name(format!(".{name}.tmp"))
}

/// The file a temporary name stands for: `.summary.json.tmp` → `summary.json`.
fn temporary_of(name: &str) -> Option<&str> {
    name.strip_prefix('.')?.strip_suffix(".tmp")
}

/// Temporary files and folders being written by this process, so that an interrupted run
/// (Ctrl-C, SIGTERM) can remove them: see [`remove_temporaries_and_exit`]. Every change to
/// the set, and the creation or renaming of what it lists, happens under its lock, so the
/// cleanup sees each temporary either registered or not yet created (or already renamed).
static TEMPORARIES: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

fn temporaries() -> MutexGuard<'static, Vec<PathBuf>> {
    // The list stays consistent even if a holder panicked: every change is one push/retain.
    TEMPORARIES.lock().unwrap_or_else(|e| e.into_inner())
}

/// Remove every registered temporary file and folder, then exit with `code`. Called from a
/// signal handler's thread; the lock is held until the process ends, so no writer creates a
/// new temporary after the cleanup.
pub fn remove_temporaries_and_exit(code: i32) -> ! {
    let list = temporaries();
    for path in list.iter() {
        if path.is_dir() {
            let _ = fs::remove_dir_all(path);
        } else {
            let _ = fs::remove_file(path);
        }
    }
    std::process::exit(code)
}

/// A folder being filled under a temporary name: removed (with its content) when dropped,
/// unless [`TemporaryDir::keep`] was called, and by [`remove_temporaries_and_exit`].
pub struct TemporaryDir {
    path: PathBuf,
    kept: bool,
}

impl TemporaryDir {
    /// Create `path` afresh (a stale one from a killed run is removed first).
    pub fn create(path: PathBuf) -> io::Result<Self> {
        let mut list = temporaries();
        if path.exists() {
            fs::remove_dir_all(&path)?;
        }
        fs::create_dir(&path)?;
        list.push(path.clone());
        Ok(TemporaryDir { path, kept: false })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Run `f` (which renames the folder away) under the registry's lock, then forget it.
    pub fn keep(mut self, f: impl FnOnce(&Path) -> io::Result<()>) -> io::Result<()> {
        let mut list = temporaries();
        let result = f(&self.path);
        if result.is_ok() {
            list.retain(|p| p != &self.path);
            self.kept = true;
        }
        result
    }
}

impl Drop for TemporaryDir {
    fn drop(&mut self) {
        if !self.kept {
            let mut list = temporaries();
            let _ = fs::remove_dir_all(&self.path);
            list.retain(|p| p != &self.path);
        }
    }
}

/// A file written under its temporary name: removed when dropped unless renamed into place.
pub(crate) struct TemporaryFile {
    temporary: PathBuf,
    path: PathBuf,
    done: bool,
}

impl TemporaryFile {
    pub(crate) fn create(path: &Path) -> io::Result<(Self, File)> {
        let temporary = temporary_path(path);
        let mut list = temporaries();
        let file = File::create(&temporary)?;
        list.push(temporary.clone());
        Ok((
            TemporaryFile {
                temporary,
                path: path.to_path_buf(),
                done: false,
            },
            file,
        ))
    }

    /// Renamed by the caller: nothing to remove.
    fn forget(mut self) {
        self.done = true;
    }

    pub(crate) fn rename_into_place(mut self) -> io::Result<()> {
        let mut list = temporaries();
        fs::rename(&self.temporary, &self.path)?;
        list.retain(|p| p != &self.temporary);
        self.done = true;
        Ok(())
    }
}

impl Drop for TemporaryFile {
    fn drop(&mut self) {
        if !self.done {
            let mut list = temporaries();
            let _ = fs::remove_file(&self.temporary);
            list.retain(|p| p != &self.temporary);
        }
    }
}

/// Write `bytes` to `path` atomically (temporary file in the same folder, then rename). On
/// any error the temporary file is removed.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let (temporary, mut file) = TemporaryFile::create(path)?;
    file.write_all(bytes)?;
    file.sync_all()?;
    drop(file);
    temporary.rename_into_place()
}

/// [`write_atomic`] for a file that several processes may write at once with the same
/// content (a sweep's `sweep.json`, written by every task of a job array that finds none):
/// each writes its own temporary file (named after its process id), so no writer truncates
/// another's, and the last rename wins with identical bytes.
pub fn write_atomic_shared(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let own = path.with_file_name(format!("{name}.{}", std::process::id()));
    let (temporary, mut file) = TemporaryFile::create(&own)?;
    file.write_all(bytes)?;
    file.sync_all()?;
    drop(file);
    let mut list = temporaries();
    let renamed = fs::rename(&temporary.temporary, path);
    list.retain(|p| p != &temporary.temporary);
    drop(list);
    if renamed.is_ok() {
        temporary.forget();
    }
    renamed
}

/// Remove the temporary file of `path` left by a killed cclab, if there is one.
pub fn remove_stale_temporary_of(path: &Path) -> io::Result<()> {
    match fs::remove_file(temporary_path(path)) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

/// Remove temporary files left in `dir` by a killed cclab (`.NAME.tmp` where NAME is a file
/// cclab writes there: [`RUN_FILES`], a sweep's `results.csv`/`sweep.json`, a figure, or a
/// sweep's `rows/ID.json`), never anything else.
pub fn remove_stale_temporaries(dir: &Path) -> io::Result<()> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Ok(());
    };
    let in_rows = dir.file_name().is_some_and(|n| n == "rows");
    for entry in entries {
        let entry = entry?;
        let name = entry.file_name();
        let Some(of) = name.to_str().and_then(temporary_of) else {
            continue;
        };
        if (is_run_file(of)
            || is_sweep_file(of)
            || is_figure_file(of)
            || (in_rows && of.ends_with(".json")))
            && entry.file_type()?.is_file()
        {
            fs::remove_file(entry.path())?;
        }
    }
    Ok(())
}

fn is_run_file(name: &str) -> bool {
    RUN_FILES.contains(&name)
}

fn is_sweep_file(name: &str) -> bool {
    matches!(
        name,
        "results.csv" | "results.parquet" | "sweep.json" | crate::html_report::REPORT_FILE
    )
}

fn is_figure_file(name: &str) -> bool {
    Path::new(name)
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| FIGURE_EXTENSIONS.contains(&e))
}

/// What an output folder holds, judged from its entries before it is written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FolderKind {
    /// Nothing there yet.
    Missing,
    /// A folder with nothing in it.
    Empty,
    /// Only what `cclab run` writes (and its temporary files): safe to replace.
    Run,
    /// A sweep's folder (it has `sweep.json`).
    Sweep,
    /// A file, not a folder.
    File,
    /// Something cclab run does not write: this entry.
    Foreign(String),
}

/// Classify `dir`; only reads it.
pub fn folder_kind(dir: &Path) -> io::Result<FolderKind> {
    let metadata = match fs::metadata(dir) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(FolderKind::Missing),
        Err(e) => return Err(e),
    };
    if !metadata.is_dir() {
        return Ok(FolderKind::File);
    }
    if dir.join(crate::results::SweepManifest::FILE).exists() {
        return Ok(FolderKind::Sweep);
    }
    let mut empty = true;
    for entry in fs::read_dir(dir)? {
        let entry = entry?;
        empty = false;
        let name = entry.file_name().to_string_lossy().into_owned();
        let file_type = entry.file_type()?;
        let ours = if name == crate::pcap::PCAP_DIR && file_type.is_dir() {
            true
        } else if name == FIGURES_DIR && file_type.is_dir() {
            match foreign_figure(&entry.path())? {
                Some(inner) => return Ok(FolderKind::Foreign(format!("{FIGURES_DIR}/{inner}"))),
                None => true,
            }
        } else {
            file_type.is_file()
                && (is_run_file(&name) || temporary_of(&name).is_some_and(is_run_file))
        };
        if !ours {
            return Ok(FolderKind::Foreign(name));
        }
    }
    Ok(if empty {
        FolderKind::Empty
    } else {
        FolderKind::Run
    })
}

/// The first entry of a figures folder that is not a figure (or a figure's temporary file).
fn foreign_figure(dir: &Path) -> io::Result<Option<String>> {
    for entry in fs::read_dir(dir)? {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let figure = |n: &str| is_figure_file(n) && !n.starts_with('.');
        if !(entry.file_type()?.is_file()
            && (figure(&name) || temporary_of(&name).is_some_and(figure)))
        {
            return Ok(Some(name));
        }
    }
    Ok(None)
}

/// Write `path` atomically as [`write_atomic`] does, streaming through `write` instead of
/// holding the whole file in memory (large files: `rates.csv`, `summary.json` of many flows).
pub fn write_atomic_with(
    path: &Path,
    write: impl FnOnce(&mut BufWriter<File>) -> io::Result<()>,
) -> io::Result<()> {
    // Registered like every temporary: removed on error, on drop and on Ctrl-C.
    let (temporary, file) = TemporaryFile::create(path)?;
    let mut out = BufWriter::new(file);
    write(&mut out)?;
    out.into_inner().map_err(|e| e.into_error())?.sync_all()?;
    temporary.rename_into_place()
}

pub fn write_summary(dir: &Path, summary: &Summary) -> io::Result<()> {
    write_atomic_with(&dir.join("summary.json"), |out| {
        serde_json::to_writer_pretty(&mut *out, summary).map_err(io::Error::other)?;
        out.write_all(b"\n")
    })
}

/// A CSV file being written under a temporary name; dropped uncommitted, it is removed.
struct PendingCsv {
    // Declared first so that the file is closed before its temporary name is removed.
    writer: BufWriter<File>,
    temporary: TemporaryFile,
}

impl PendingCsv {
    fn create(path: PathBuf, columns: &[&str]) -> io::Result<Self> {
        let (temporary, file) = TemporaryFile::create(&path)?;
        let mut writer = BufWriter::new(file);
        csv_text::write_record(&mut writer, columns)?;
        Ok(PendingCsv { writer, temporary })
    }

    fn commit(self) -> io::Result<()> {
        let file = self.writer.into_inner().map_err(|e| e.into_error())?;
        file.sync_all()?;
        drop(file);
        self.temporary.rename_into_place()
    }
}

/// Streams samples into `timeseries.csv`, `queue.csv` and `events.csv` under temporary
/// names; [`CsvSink::commit`] renames them into place. Write errors are kept and reported by
/// commit.
pub struct CsvSink {
    timeseries: PendingCsv,
    queue: PendingCsv,
    events: PendingCsv,
    packets: Option<PendingCsv>,
    /// `flows.csv`, when the run has workloads.
    flows: Option<PendingCsv>,
    /// `groups.csv` and the group names, when flows share state.
    groups: Option<(PendingCsv, Vec<String>)>,
    error: Option<io::Error>,
    /// Cell text buffers, reused from row to row (see [`write_cells`]).
    cells: CellFormatter,
}

/// Write one CSV record (`csv_text.rs`), formatting each cell with `formatter`, whose buffers
/// are reused from row to row: a time-series row costs no allocation (thirteen `to_string`s
/// per row were a third of the time of a 100 000-flow run) and no `core::fmt` (`cell.rs`).
/// The text is `Display`'s, as `to_string` gives; an absent value is an empty cell.
fn write_cells(
    writer: &mut BufWriter<File>,
    formatter: &mut CellFormatter,
    cells: &[Cell<'_>],
) -> io::Result<()> {
    debug_assert!(
        cells.len() > 1,
        "a record of one field may need quotes when empty"
    );
    for (i, cell) in cells.iter().enumerate() {
        csv_text::write_field(writer, formatter.text(cell), i == 0)?;
    }
    csv_text::end_record(writer)
}

impl CsvSink {
    pub fn create(dir: &Path) -> io::Result<Self> {
        Self::create_with_columns(dir, TIMESERIES_COLUMNS)
    }

    /// For a run with TCB sharing: `timeseries.csv` also has [`SHARING_COLUMNS`], and
    /// `groups.csv` is written; `groups` names the run's groups in order.
    pub fn create_with_groups(dir: &Path, groups: Vec<String>) -> io::Result<Self> {
        let columns = [TIMESERIES_COLUMNS, SHARING_COLUMNS].concat();
        let mut sink = Self::create_with_columns(dir, &columns)?;
        sink.groups = Some((
            PendingCsv::create(dir.join("groups.csv"), GROUPS_COLUMNS)?,
            groups,
        ));
        Ok(sink)
    }

    fn create_with_columns(dir: &Path, timeseries: &[&str]) -> io::Result<Self> {
        Ok(CsvSink {
            timeseries: PendingCsv::create(dir.join("timeseries.csv"), timeseries)?,
            queue: PendingCsv::create(dir.join("queue.csv"), QUEUE_COLUMNS)?,
            events: PendingCsv::create(dir.join("events.csv"), EVENTS_COLUMNS)?,
            packets: None,
            flows: None,
            groups: None,
            error: None,
            cells: CellFormatter::default(),
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

    /// Also write `flows.csv` (the finished short flows of the workloads).
    pub fn with_flows(mut self, dir: &Path) -> io::Result<Self> {
        self.flows = Some(PendingCsv::create(dir.join("flows.csv"), FLOWS_COLUMNS)?);
        Ok(self)
    }

    fn keep(&mut self, result: io::Result<()>) {
        if let (Err(e), None) = (result, &self.error) {
            self.error = Some(e);
        }
    }

    /// Flush the files and move them into place.
    pub fn commit(mut self) -> io::Result<()> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        self.timeseries.commit()?;
        self.queue.commit()?;
        self.events.commit()?;
        if let Some(flows) = self.flows {
            flows.commit()?;
        }
        if let Some((groups, _)) = self.groups {
            groups.commit()?;
        }
        match self.packets {
            Some(packets) => packets.commit(),
            None => Ok(()),
        }
    }
}

impl TraceSink for CsvSink {
    fn flow_sample(&mut self, s: &FlowSample) {
        let cells: [Cell<'_>; 13] = [
            Cell::Seconds(s.time.as_nanos()),
            s.flow.into(),
            s.cwnd_bytes.into(),
            s.ssthresh_bytes.into(),
            s.srtt.map_or(Cell::Empty, |d| Cell::Millis(d.as_nanos())),
            s.inflight_bytes.into(),
            s.bytes_acked.into(),
            s.delivered_bytes.into(),
            s.retransmissions.into(),
            s.rtt.map_or(Cell::Empty, |d| Cell::Millis(d.as_nanos())),
            s.pacing_rate_bps.into(),
            s.mode.into(),
            s.bytes_sent.into(),
        ];
        let result = match &self.groups {
            None => write_cells(&mut self.timeseries.writer, &mut self.cells, &cells),
            Some((_, names)) => {
                // With TCB sharing the row goes on: the group's name and the window it
                // assigns, empty for a flow in no group.
                let group = s.shared.map(|shared| names[shared.group as usize].as_str());
                let assigned = s.shared.map(|shared| shared.assigned_cwnd_bytes);
                let mut all: [Cell<'_>; 15] = [Cell::Empty; 15];
                all[..13].copy_from_slice(&cells);
                all[13] = group.into();
                all[14] = assigned.into();
                write_cells(&mut self.timeseries.writer, &mut self.cells, &all)
            }
        };
        self.keep(result);
    }

    fn group_sample(&mut self, g: &GroupSample) {
        let Some((groups, names)) = &mut self.groups else {
            return;
        };
        let result = write_cells(
            &mut groups.writer,
            &mut self.cells,
            &[
                Cell::Seconds(g.time.as_nanos()),
                names[g.group as usize].as_str().into(),
                g.members.into(),
                g.priority_sum.into(),
                g.aggregate_cwnd_bytes.into(),
                g.aggregate_ssthresh_bytes.into(),
                g.frozen.into(),
            ],
        );
        self.keep(result);
    }

    fn link_sample(&mut self, s: &LinkSample<'_>) {
        let result = write_cells(
            &mut self.queue.writer,
            &mut self.cells,
            &[
                Cell::Seconds(s.time.as_nanos()),
                s.link.into(),
                s.queue_pkts.into(),
                s.queue_bytes.into(),
                s.drops.into(),
                s.tx_bytes.into(),
            ],
        );
        self.keep(result);
    }

    fn flow_event(&mut self, e: &FlowEvent) {
        let result = write_cells(
            &mut self.events.writer,
            &mut self.cells,
            &[
                Cell::Seconds(e.time.as_nanos()),
                e.flow.into(),
                e.kind.name().into(),
                e.from.into(),
                e.to.into(),
                e.detail.into(),
                e.cwnd_bytes.into(),
                e.ssthresh_bytes.into(),
            ],
        );
        self.keep(result);
    }

    fn finished_flow(&mut self, f: &FinishedFlow) {
        let Some(flows) = &mut self.flows else {
            return;
        };
        let result = write_cells(
            &mut flows.writer,
            &mut self.cells,
            &[
                f.id.into(),
                f.group.into(),
                f.slot.into(),
                f.size_bytes.into(),
                Cell::Seconds(f.start.as_nanos()),
                Cell::Seconds(f.fct.as_nanos()),
                Cell::Seconds(f.ideal_fct.as_nanos()),
                f.slowdown().into(),
                f.retransmissions.into(),
                f.timeouts.into(),
            ],
        );
        self.keep(result);
    }

    fn packet_event(&mut self, e: &PacketEvent, link: &str) {
        let Some(packets) = &mut self.packets else {
            return;
        };
        // Only a drop has a place worth naming.
        let link = match e.kind {
            PacketEventKind::Drop | PacketEventKind::AckDrop | PacketEventKind::SynDrop => link,
            _ => "",
        };
        let result = write_cells(
            &mut packets.writer,
            &mut self.cells,
            &[
                Cell::Seconds(e.time.as_nanos()),
                e.flow.into(),
                e.kind.name().into(),
                e.seq.into(),
                e.bytes.into(),
                link.into(),
            ],
        );
        self.keep(result);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("cclab-output-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn an_abandoned_sink_leaves_no_temporary_file() {
        let dir = scratch("abandoned");
        let sink = CsvSink::create(&dir).unwrap().with_packets(&dir).unwrap();
        assert_eq!(
            names(&dir),
            [
                ".events.csv.tmp",
                ".packets.csv.tmp",
                ".queue.csv.tmp",
                ".timeseries.csv.tmp"
            ]
        );
        drop(sink);
        assert!(names(&dir).is_empty(), "{:?}", names(&dir));
        // Other tests register their own temporaries meanwhile: look only at ours.
        assert!(!temporaries().iter().any(|p| p.starts_with(&dir)));
        let sink = CsvSink::create(&dir).unwrap();
        sink.commit().unwrap();
        assert_eq!(names(&dir), ["events.csv", "queue.csv", "timeseries.csv"]);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_temporary_dir_goes_unless_kept() {
        let dir = scratch("tempdir");
        let staging = TemporaryDir::create(dir.join(".x.tmp")).unwrap();
        write_atomic(&staging.path().join("summary.json"), b"{}").unwrap();
        drop(staging);
        assert!(names(&dir).is_empty());
        let staging = TemporaryDir::create(dir.join(".x.tmp")).unwrap();
        staging
            .keep(|from| fs::rename(from, dir.join("x")))
            .unwrap();
        assert_eq!(names(&dir), ["x"]);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn folders_are_told_apart_by_what_cclab_writes() {
        let dir = scratch("kinds");
        let run = dir.join("run");
        assert_eq!(folder_kind(&run).unwrap(), FolderKind::Missing);
        fs::create_dir(&run).unwrap();
        assert_eq!(folder_kind(&run).unwrap(), FolderKind::Empty);
        fs::create_dir(run.join(FIGURES_DIR)).unwrap();
        for file in [
            "summary.json",
            ".timeseries.csv.tmp",
            "figures/cwnd.svg",
            "figures/.rtt.png.tmp",
        ] {
            fs::write(run.join(file), "").unwrap();
        }
        assert_eq!(folder_kind(&run).unwrap(), FolderKind::Run);
        fs::write(run.join("figures/notes.txt"), "").unwrap();
        assert_eq!(
            folder_kind(&run).unwrap(),
            FolderKind::Foreign("figures/notes.txt".into())
        );
        fs::remove_file(run.join("figures/notes.txt")).unwrap();
        fs::write(run.join(".notes.tmp"), "").unwrap();
        assert_eq!(
            folder_kind(&run).unwrap(),
            FolderKind::Foreign(".notes.tmp".into())
        );
        fs::write(run.join(crate::results::SweepManifest::FILE), "{}").unwrap();
        assert_eq!(folder_kind(&run).unwrap(), FolderKind::Sweep);
        assert_eq!(
            folder_kind(&run.join("summary.json")).unwrap(),
            FolderKind::File
        );
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn stale_temporaries_of_our_files_only_are_removed() {
        let dir = scratch("stale");
        for file in [
            ".summary.json.tmp",
            ".cwnd.svg.tmp",
            ".results.csv.tmp",
            ".mine.tmp",
            "keep.tmp",
        ] {
            fs::write(dir.join(file), "").unwrap();
        }
        remove_stale_temporaries(&dir).unwrap();
        assert_eq!(names(&dir), [".mine.tmp", "keep.tmp"]);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_sweeps_stale_manifest_and_rows_are_removed_but_not_its_finished_rows() {
        let dir = scratch("stale-sweep");
        let rows = dir.join("rows");
        fs::create_dir_all(&rows).unwrap();
        fs::write(dir.join(".sweep.json.tmp"), "").unwrap();
        fs::write(dir.join(".notes.json.tmp"), "").unwrap();
        for file in [".0a1b.json.tmp", "0a1b.json", ".0a1b.txt.tmp"] {
            fs::write(rows.join(file), "").unwrap();
        }
        remove_stale_temporaries(&dir).unwrap();
        remove_stale_temporaries(&rows).unwrap();
        // Outside rows/, only files cclab writes there; inside, any half-written row.
        assert_eq!(names(&dir), [".notes.json.tmp", "rows"]);
        assert_eq!(names(&rows), [".0a1b.txt.tmp", "0a1b.json"]);
        fs::remove_dir_all(&dir).unwrap();
    }
}
