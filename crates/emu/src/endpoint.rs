//! The programs at the two ends of the emulated network, each started in its host's
//! namespace as `cclab emulate-endpoint sender|receiver …`: real kernel TCP, so whatever the
//! kernel does (its congestion control, SACK, RACK, pacing, autotuning) is what is measured.
//!
//! Protocol with the emulator, one line each: the emulator writes `go` when the namespace's
//! network is configured; the receiver then listens and answers `ready`. The emulator then
//! writes `go` to the sender and a second `go` to the receiver at the same moment, which
//! both take as time zero. The sender prints, per flow, `start,FLOW,T_NS` when connected,
//! `sample,T_NS,FLOW,<TCP_INFO fields>` every interval, `finish,FLOW,T_NS` when a finite
//! flow's bytes are all acknowledged, and at the end `final,T_NS,FLOW,<fields>` then `end`;
//! the receiver prints `receiver,T_NS,FLOW,<receive-window fields>` at the same ticks for
//! each connection it has accepted, then `end`.

use std::io::{BufRead, Read, Write};
use std::net::{Ipv4Addr, SocketAddrV4, TcpListener, TcpStream};
use std::os::fd::{AsRawFd, FromRawFd, RawFd};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::error::EmuError;
use crate::tcp_info::{ReceiverInfo, TcpInfo};

/// One flow as the sender runs it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FlowSpec {
    pub id: u32,
    pub port: u16,
    /// The kernel's name for the congestion control (`TCP_CONGESTION`).
    pub cc: String,
    pub start_ns: u64,
    /// Bytes to send; `None`: until the end.
    pub size: Option<u64>,
}

impl FlowSpec {
    /// `ID:PORT:CC:START_NS:SIZE|bulk`, one command-line argument.
    pub fn to_arg(&self) -> String {
        let size = self.size.map_or("bulk".to_string(), |s| s.to_string());
        format!(
            "{}:{}:{}:{}:{}",
            self.id, self.port, self.cc, self.start_ns, size
        )
    }

    pub fn from_arg(arg: &str) -> Option<FlowSpec> {
        let parts: Vec<&str> = arg.split(':').collect();
        let [id, port, cc, start, size] = parts.as_slice() else {
            return None;
        };
        Some(FlowSpec {
            id: id.parse().ok()?,
            port: port.parse().ok()?,
            cc: cc.to_string(),
            start_ns: start.parse().ok()?,
            size: match *size {
                "bulk" => None,
                s => Some(s.parse().ok()?),
            },
        })
    }
}

/// Entry point: `sender PEER INTERVAL_NS DURATION_NS FLOW…` or
/// `receiver INTERVAL_NS DURATION_NS PORT…` (the ports in flow order).
pub fn run(args: &[String]) -> Result<(), EmuError> {
    let usage = || {
        EmuError::Endpoint(
            "usage: emulate-endpoint sender PEER INTERVAL_NS DURATION_NS FLOW… \
             | receiver INTERVAL_NS DURATION_NS PORT…"
                .into(),
        )
    };
    match args.first().map(String::as_str) {
        Some("receiver") if args.len() >= 3 => {
            let interval: u64 = args[1].parse().map_err(|_| usage())?;
            let duration: u64 = args[2].parse().map_err(|_| usage())?;
            let ports: Option<Vec<u16>> = args[3..].iter().map(|p| p.parse().ok()).collect();
            receiver(interval, duration, &ports.ok_or_else(usage)?)
        }
        Some("sender") if args.len() >= 5 => {
            let peer: Ipv4Addr = args[1].parse().map_err(|_| usage())?;
            let interval: u64 = args[2].parse().map_err(|_| usage())?;
            let duration: u64 = args[3].parse().map_err(|_| usage())?;
            let flows: Option<Vec<FlowSpec>> =
                args[4..].iter().map(|a| FlowSpec::from_arg(a)).collect();
            sender(peer, interval, duration, flows.ok_or_else(usage)?)
        }
        _ => Err(usage()),
    }
}

fn wait_for_go() -> Result<(), EmuError> {
    let mut line = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut line)
        .map_err(|e| EmuError::io("reading the emulator's go", e))?;
    if line.trim() != "go" {
        return Err(EmuError::Endpoint(format!("expected go, got {line:?}")));
    }
    Ok(())
}

fn say(line: &str) {
    let mut out = std::io::stdout().lock();
    // A closed pipe means the emulator is gone; the process is about to be killed.
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

/// Accept every connection on `ports` (flow `i` on `ports[i]`) and read it to the end,
/// discarding the bytes; from the second `go`, sample each connection's receive window every
/// `interval_ns` until `duration_ns`.
fn receiver(interval_ns: u64, duration_ns: u64, ports: &[u16]) -> Result<(), EmuError> {
    wait_for_go()?;
    let sockets: Arc<Mutex<Vec<(u32, RawFd)>>> = Arc::default();
    for (flow, &port) in (0u32..).zip(ports) {
        let listener = TcpListener::bind(SocketAddrV4::new(Ipv4Addr::UNSPECIFIED, port))
            .map_err(|e| EmuError::io(format!("listening on port {port}"), e))?;
        let sockets = Arc::clone(&sockets);
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                if let Ok(mut s) = sockets.lock() {
                    s.push((flow, stream.as_raw_fd()));
                }
                std::thread::spawn(move || drain(stream));
            }
        });
    }
    say("ready");
    wait_for_go()?;
    let epoch = Instant::now();
    let mut tick = interval_ns;
    while tick < duration_ns {
        sleep_until(epoch, tick);
        let sockets = sockets.lock().map(|s| s.clone()).unwrap_or_default();
        for (flow, fd) in sockets {
            if let Ok(info) = ReceiverInfo::read(fd) {
                say(&format!("receiver,{tick},{flow},{}", info.to_fields()));
            }
        }
        tick += interval_ns;
    }
    say("end");
    // Run until the emulator closes our input (or kills us): the readers keep the
    // connections open and acknowledged.
    let mut rest = Vec::new();
    let _ = std::io::stdin().lock().read_to_end(&mut rest);
    Ok(())
}

/// Read `stream` to the end, discarding the bytes. The socket stays open afterwards (the
/// sampler may still read its descriptor) until the process ends.
fn drain(mut stream: TcpStream) {
    let mut buf = vec![0u8; 1 << 18];
    while matches!(stream.read(&mut buf), Ok(n) if n > 0) {}
    loop {
        std::thread::park();
    }
}

/// A connected socket with `TCP_CONGESTION` set before the handshake, so the kernel
/// initializes that controller at connection setup (tcp_init_congestion_control).
fn connect(peer: Ipv4Addr, port: u16, cc: &str) -> Result<TcpStream, EmuError> {
    // SAFETY: plain socket creation; the result is checked and owned by the TcpStream.
    let fd = unsafe { libc::socket(libc::AF_INET, libc::SOCK_STREAM | libc::SOCK_CLOEXEC, 0) };
    if fd < 0 {
        return Err(EmuError::last_os("socket"));
    }
    // SAFETY: `fd` is ours; the stream closes it on drop, also on the error paths below.
    let stream = unsafe { TcpStream::from_raw_fd(fd) };
    // SAFETY: the option value is `cc.len()` valid bytes.
    let rc = unsafe {
        libc::setsockopt(
            fd,
            libc::IPPROTO_TCP,
            libc::TCP_CONGESTION,
            cc.as_ptr().cast(),
            cc.len() as libc::socklen_t,
        )
    };
    if rc != 0 {
        return Err(EmuError::last_os(format!("setting TCP_CONGESTION to {cc}")));
    }
    let address = libc::sockaddr_in {
        sin_family: libc::AF_INET as libc::sa_family_t,
        sin_port: port.to_be(),
        sin_addr: libc::in_addr {
            s_addr: u32::from(peer).to_be(),
        },
        sin_zero: [0; 8],
    };
    // SAFETY: `address` is a valid sockaddr_in of the length given.
    let rc = unsafe {
        libc::connect(
            fd,
            (&address as *const libc::sockaddr_in).cast(),
            std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t,
        )
    };
    if rc != 0 {
        return Err(EmuError::last_os(format!("connecting to {peer}:{port}")));
    }
    Ok(stream)
}

fn since(epoch: Instant) -> u64 {
    epoch.elapsed().as_nanos() as u64
}

fn sleep_until(epoch: Instant, t_ns: u64) {
    let target = epoch + Duration::from_nanos(t_ns);
    let now = Instant::now();
    if target > now {
        std::thread::sleep(target - now);
    }
}

/// Run the flows, sample `TCP_INFO` every `interval_ns`, stop at `duration_ns`.
fn sender(
    peer: Ipv4Addr,
    interval_ns: u64,
    duration_ns: u64,
    flows: Vec<FlowSpec>,
) -> Result<(), EmuError> {
    wait_for_go()?;
    let epoch = Instant::now();
    // The sockets of the flows that have connected, for the sampler.
    let sockets: Arc<Mutex<Vec<(u32, RawFd)>>> = Arc::default();
    for flow in flows {
        let sockets = Arc::clone(&sockets);
        std::thread::spawn(move || {
            if let Err(e) = send_flow(peer, epoch, &flow, &sockets) {
                eprintln!("emulate-endpoint: flow {}: {e}", flow.id);
                say(&format!("error,{},{e}", flow.id));
            }
        });
    }
    let mut tick = interval_ns;
    while tick < duration_ns {
        sleep_until(epoch, tick);
        sample_all(&sockets, "sample", tick);
        tick += interval_ns;
    }
    sleep_until(epoch, duration_ns);
    sample_all(&sockets, "final", duration_ns);
    say("end");
    // The writer threads are blocked in the kernel; leaving ends them.
    std::process::exit(0);
}

fn sample_all(sockets: &Mutex<Vec<(u32, RawFd)>>, label: &str, t_ns: u64) {
    let sockets = sockets.lock().map(|s| s.clone()).unwrap_or_default();
    for (id, fd) in sockets {
        if let Ok(info) = TcpInfo::read(fd) {
            say(&format!("{label},{t_ns},{id},{}", info.to_fields()));
        }
    }
}

fn send_flow(
    peer: Ipv4Addr,
    epoch: Instant,
    flow: &FlowSpec,
    sockets: &Mutex<Vec<(u32, RawFd)>>,
) -> Result<(), EmuError> {
    sleep_until(epoch, flow.start_ns);
    let mut stream = connect(peer, flow.port, &flow.cc)?;
    let fd = stream.as_raw_fd();
    say(&format!("start,{},{}", flow.id, since(epoch)));
    if let Ok(mut s) = sockets.lock() {
        s.push((flow.id, fd));
    }
    let chunk = vec![0u8; 1 << 16];
    let mut left = flow.size;
    loop {
        let n = match left {
            Some(0) => break,
            Some(l) => l.min(chunk.len() as u64) as usize,
            None => chunk.len(),
        };
        stream
            .write_all(&chunk[..n])
            .map_err(|e| EmuError::io("sending", e))?;
        if let Some(l) = left.as_mut() {
            *l -= n as u64;
        }
    }
    let size = flow.size.unwrap_or(0);
    // Finished when the last byte is acknowledged: poll TCP_INFO every millisecond.
    // tcpi_bytes_acked counts the SYN too (tcp_snd_una_update on the SYN-ACK), hence `>`.
    loop {
        let info = TcpInfo::read(fd)?;
        if info.bytes_acked > size {
            say(&format!("finish,{},{}", flow.id, since(epoch)));
            break;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    // Keep the socket open (the sampler reads it) until the process ends.
    loop {
        std::thread::park();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flow_spec_round_trips_through_its_argument() {
        for size in [None, Some(1_000_000)] {
            let spec = FlowSpec {
                id: 3,
                port: 5003,
                cc: "cubic".into(),
                start_ns: 2_000_000_000,
                size,
            };
            assert_eq!(FlowSpec::from_arg(&spec.to_arg()), Some(spec));
        }
        assert_eq!(FlowSpec::from_arg("1:2:cubic"), None);
    }
}
