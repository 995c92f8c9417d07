//! A sweep folder that several processes write at once: the tasks of a Slurm job array (or
//! any scheduler with an index), each running its slice of the runs into the same folder on a
//! shared file system.
//!
//! Every run's row is its own file, written atomically by the one task that owns the run, so
//! rows never collide. What several tasks would write — `results.csv` and the figures — is
//! written under a lock (a directory, created atomically even on NFS), and by a task only
//! after its own rows are on disk: the last task to take the lock sees every row.
//! `failed/<run id>.txt` records a run that failed (removed when it succeeds on a retry), for
//! `cclab sweep status`.

use std::io;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// The folder of failure records in a sweep folder.
pub const FAILED_DIR: &str = "failed";

/// The lock taken to write a sweep folder's gathered files.
const LOCK_NAME: &str = ".gather.lock";

/// A lock older than this was left by a killed task (gathering takes seconds): it is broken.
const STALE_LOCK: Duration = Duration::from_secs(600);

/// How long to wait between attempts to take the lock.
const POLL: Duration = Duration::from_millis(200);

/// Run `write` while holding the folder's gather lock (waiting for another task to finish
/// with it; breaking it if it is older than [`STALE_LOCK`]).
pub fn with_gather_lock<T>(dir: &Path, write: impl FnOnce() -> T) -> io::Result<T> {
    let lock = dir.join(LOCK_NAME);
    loop {
        match std::fs::create_dir(&lock) {
            Ok(()) => break,
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                let age = std::fs::metadata(&lock)
                    .and_then(|m| m.modified())
                    .ok()
                    .and_then(|t| SystemTime::now().duration_since(t).ok());
                if age.is_some_and(|a| a > STALE_LOCK) {
                    let _ = std::fs::remove_dir(&lock);
                } else {
                    std::thread::sleep(POLL);
                }
            }
            Err(e) => return Err(e),
        }
    }
    let outcome = write();
    std::fs::remove_dir(&lock)?;
    Ok(outcome)
}

fn failure_path(dir: &Path, id: &str) -> PathBuf {
    dir.join(FAILED_DIR).join(format!("{id}.txt"))
}

/// Record that run `id` failed, with its error.
pub fn record_failure(dir: &Path, id: &str, error: &str) -> io::Result<()> {
    std::fs::create_dir_all(dir.join(FAILED_DIR))?;
    cclab_analysis::output::write_atomic(&failure_path(dir, id), format!("{error}\n").as_bytes())
}

/// Run `id` succeeded: forget an earlier failure.
pub fn clear_failure(dir: &Path, id: &str) -> io::Result<()> {
    match std::fs::remove_file(failure_path(dir, id)) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

/// The recorded failure of run `id`, if any.
pub fn failure(dir: &Path, id: &str) -> Option<String> {
    std::fs::read_to_string(failure_path(dir, id)).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lock_serialises_writers_and_is_released() {
        let dir = std::env::temp_dir().join(format!("cclab-lock-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let inside = std::sync::atomic::AtomicU32::new(0);
        std::thread::scope(|scope| {
            for _ in 0..4 {
                scope.spawn(|| {
                    with_gather_lock(&dir, || {
                        let others = inside.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                        assert_eq!(others, 0, "two writers held the lock at once");
                        std::thread::sleep(Duration::from_millis(20));
                        inside.fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
                    })
                    .unwrap();
                });
            }
        });
        assert!(!dir.join(LOCK_NAME).exists());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn failures_are_recorded_and_cleared() {
        let dir = std::env::temp_dir().join(format!("cclab-failed-{}", std::process::id()));
        record_failure(&dir, "abc", "run abc failed: invariant").unwrap();
        assert_eq!(
            failure(&dir, "abc").as_deref(),
            Some("run abc failed: invariant\n")
        );
        clear_failure(&dir, "abc").unwrap();
        assert_eq!(failure(&dir, "abc"), None);
        clear_failure(&dir, "abc").unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
