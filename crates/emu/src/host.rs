//! A host: one process in a network namespace of its own, which it creates (`unshare`)
//! before it runs, so the namespace has no name and no mount: it lives exactly as long as
//! the process. The process gets SIGKILL when the thread that started it dies
//! (`PR_SET_PDEATHSIG`), so a cclab killed by any signal, SIGKILL included, leaves no
//! namespace and no process behind.

use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use crate::error::EmuError;

pub struct Host {
    pub label: &'static str,
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: Option<BufReader<ChildStdout>>,
    /// The namespace, held open to run configuration commands inside it.
    namespace: OwnedFd,
}

impl Host {
    /// Start `program args` in a new network namespace; its stdin and stdout are pipes.
    pub fn spawn(
        label: &'static str,
        program: &std::path::Path,
        args: &[String],
    ) -> Result<Host, EmuError> {
        // SAFETY: getpid has no preconditions.
        let parent = unsafe { libc::getpid() };
        let mut command = Command::new(program);
        command
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        // SAFETY: only async-signal-safe calls (prctl, getppid, unshare, _exit) between fork
        // and exec.
        unsafe {
            command.pre_exec(move || {
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                // The parent may have died before the line above: then no signal comes.
                if libc::getppid() != parent {
                    libc::_exit(1);
                }
                if libc::unshare(libc::CLONE_NEWNET) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let mut child = command
            .spawn()
            .map_err(|e| EmuError::io(format!("starting the {label} endpoint"), e))?;
        // `spawn` returns after the exec, so the namespace exists now.
        let namespace = File::open(format!("/proc/{}/ns/net", child.id()))
            .map_err(|e| EmuError::io(format!("opening the {label} namespace"), e))?;
        Ok(Host {
            label,
            stdin: child.stdin.take(),
            stdout: child.stdout.take().map(BufReader::new),
            child,
            namespace: namespace.into(),
        })
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Run `ip ARGS` inside this host's namespace.
    pub fn ip(&self, args: &[&str]) -> Result<(), EmuError> {
        self.run("ip", args)
    }

    /// Run `program ARGS` inside this host's namespace.
    pub fn run(&self, program: &str, args: &[&str]) -> Result<(), EmuError> {
        self.output(program, args).map(drop)
    }

    /// Run `program ARGS` inside this host's namespace, and return what it printed.
    pub fn output(&self, program: &str, args: &[&str]) -> Result<String, EmuError> {
        let namespace = self.namespace.as_raw_fd();
        let mut command = Command::new(program);
        command.args(args);
        // SAFETY: setns is async-signal-safe; the descriptor stays open across the fork.
        unsafe {
            command.pre_exec(move || {
                if libc::setns(namespace, libc::CLONE_NEWNET) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        run(
            command,
            &format!(
                "{program} {} (in the {} namespace)",
                args.join(" "),
                self.label
            ),
        )
    }

    /// Send one line to the program.
    pub fn tell(&mut self, line: &str) -> Result<(), EmuError> {
        let stdin = self.stdin.as_mut().ok_or_else(|| {
            EmuError::Endpoint(format!("the {} endpoint's input is closed", self.label))
        })?;
        writeln!(stdin, "{line}")
            .and_then(|()| stdin.flush())
            .map_err(|e| EmuError::io(format!("writing to the {} endpoint", self.label), e))
    }

    /// The program's output, for a reader thread.
    pub fn take_stdout(&mut self) -> Option<BufReader<ChildStdout>> {
        self.stdout.take()
    }

    /// Read one line from the program (before its output was taken).
    pub fn read_line(&mut self) -> Result<String, EmuError> {
        let label = self.label;
        let stdout = self.stdout.as_mut().ok_or_else(|| {
            EmuError::Endpoint(format!("the {label} endpoint's output was taken"))
        })?;
        let mut line = String::new();
        let n = stdout
            .read_line(&mut line)
            .map_err(|e| EmuError::io(format!("reading from the {label} endpoint"), e))?;
        if n == 0 {
            return Err(EmuError::Endpoint(format!(
                "the {label} endpoint exited early"
            )));
        }
        Ok(line.trim_end().to_string())
    }
}

impl Drop for Host {
    fn drop(&mut self) {
        // The namespace goes with its only process.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Run a command in the caller's namespace (moving a device into a host's).
pub fn ip_here(args: &[&str]) -> Result<(), EmuError> {
    let mut command = Command::new("ip");
    command.args(args);
    run(command, &format!("ip {}", args.join(" "))).map(drop)
}

/// Run `command`; its standard output, or its standard error as the error.
fn run(mut command: Command, what: &str) -> Result<String, EmuError> {
    let output = command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .map_err(|e| EmuError::io(what, e))?;
    if !output.status.success() {
        return Err(EmuError::io(
            what,
            std::io::Error::other(String::from_utf8_lossy(&output.stderr).trim().to_string()),
        ));
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}
