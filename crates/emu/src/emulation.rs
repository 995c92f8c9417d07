//! A whole emulation, in order: check the machine and the scenario, start the receiver's and
//! the sender's host, give each a TUN device in its namespace, forward until the end, collect
//! what the sender sampled. Everything created is owned by a value whose drop removes it
//! (hosts kill their process, and the namespace goes with it; TUN devices go when their
//! descriptor closes), so an error at any step leaves nothing behind; so does a signal that
//! ends the process, since the kernel then closes the descriptors and `PR_SET_PDEATHSIG`
//! ends the hosts.

use std::path::PathBuf;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use cclab_cc::SimTime;
use cclab_scenario::Scenario;
use cclab_sim::net::link::LinkStats;

use crate::error::EmuError;
use crate::forwarder::{Fidelity, Forwarder, QueueSample};
use crate::host::{Host, ip_here};
use crate::plan::{Plan, plan};
use crate::preflight::{check_machine, kernel_congestion_controls};
use crate::shaper::Shaper;
use crate::tcp_info::{ReceiverInfo, TcpInfo};
use crate::tun::Tun;

const SENDER_ADDRESS: &str = "10.77.0.1";
const RECEIVER_ADDRESS: &str = "10.77.0.2";

/// How to start the endpoint programs: `program args… sender|receiver …`.
pub struct Emulation {
    pub scenario: Scenario,
    pub program: PathBuf,
    pub program_args: Vec<String>,
}

/// One flow as the sender saw it.
#[derive(Clone, Debug, Default)]
pub struct FlowRecord {
    pub id: u32,
    /// cclab's name of its controller, and the kernel's.
    pub cc: String,
    pub kernel_cc: String,
    pub start: SimTime,
    pub size: Option<u64>,
    pub connected: Option<SimTime>,
    pub samples: Vec<(SimTime, TcpInfo)>,
    /// The receiving socket's window at the same ticks (`receiver,…` lines).
    pub receiver_samples: Vec<(SimTime, ReceiverInfo)>,
    pub last: Option<TcpInfo>,
    pub finished: Option<SimTime>,
    pub error: Option<String>,
}

pub struct EmulationReport {
    pub flows: Vec<FlowRecord>,
    pub queue: Vec<QueueSample>,
    pub bottleneck: LinkStats,
    pub bottleneck_rate_bps: u64,
    pub fidelity: Fidelity,
    pub wall_s: f64,
}

/// Check the scenario, then the machine: what to run, or one sentence why not. The
/// scenario first: its errors are the user's to fix whatever the machine.
pub fn prepare(scenario: &Scenario) -> Result<Plan, EmuError> {
    let available = kernel_congestion_controls()?;
    let plan = plan(scenario, &available)?;
    check_machine()?;
    Ok(plan)
}

/// Run `plan` (from [`prepare`]) in real time.
pub fn emulate(emulation: &Emulation, plan: Plan) -> Result<EmulationReport, EmuError> {
    let started = Instant::now();
    let pid = std::process::id();
    let args = |role: &str, rest: Vec<String>| {
        let mut args = emulation.program_args.clone();
        args.push(role.to_string());
        args.extend(rest);
        args
    };

    let mut receiver_args = vec![
        plan.interval.as_nanos().to_string(),
        plan.duration.as_nanos().to_string(),
    ];
    receiver_args.extend(plan.flows.iter().map(|f| f.port.to_string()));
    let mut receiver = Host::spawn(
        "receiver",
        &emulation.program,
        &args("receiver", receiver_args),
    )?;
    let receiver_name = format!("cce{pid}r");
    let receiver_tun = attach_tun(
        &receiver,
        &receiver_name,
        RECEIVER_ADDRESS,
        SENDER_ADDRESS,
        plan.mtu,
    )?;
    receiver.tell("go")?;
    let ready = receiver.read_line()?;
    if ready != "ready" {
        return Err(EmuError::Endpoint(format!(
            "the receiver said {ready:?} instead of ready"
        )));
    }

    let mut sender_args = vec![
        RECEIVER_ADDRESS.to_string(),
        plan.interval.as_nanos().to_string(),
        plan.duration.as_nanos().to_string(),
    ];
    sender_args.extend(plan.flows.iter().map(|f| f.to_arg()));
    let mut sender = Host::spawn("sender", &emulation.program, &args("sender", sender_args))?;
    // A new namespace starts with tcp_ecn = 2: accept ECN when asked, never ask
    // (Documentation/networking/ip-sysctl.rst); the receiver keeps it.
    let ecn = if plan.ecn { "1" } else { "2" };
    sender.run("sysctl", &["-q", "-w", &format!("net.ipv4.tcp_ecn={ecn}")])?;
    let sender_name = format!("cce{pid}s");
    let sender_tun = attach_tun(
        &sender,
        &sender_name,
        SENDER_ADDRESS,
        RECEIVER_ADDRESS,
        plan.mtu,
    )?;
    // Both hosts' lines, in one channel: the sender's and the receiver's samples.
    let (lines_tx, lines) = mpsc::channel::<String>();
    for host in [&mut sender, &mut receiver] {
        let output = host
            .take_stdout()
            .ok_or_else(|| EmuError::Endpoint("a host's output was taken".into()))?;
        let lines_tx = lines_tx.clone();
        std::thread::spawn(move || {
            use std::io::BufRead;
            for line in output.lines().map_while(Result::ok) {
                if lines_tx.send(line).is_err() {
                    break;
                }
            }
        });
    }

    let mut forwarder = Forwarder::new(
        sender_tun,
        receiver_tun,
        Shaper::new(plan.forward),
        Shaper::new(plan.reverse),
    );
    // Time zero for both: the receiver samples at the sender's ticks.
    sender.tell("go")?;
    receiver.tell("go")?;
    let end = SimTime::ZERO + plan.duration;
    forwarder.run(end, plan.interval)?;

    let mut flows: Vec<FlowRecord> = plan
        .flows
        .iter()
        .zip(&plan.cc_names)
        .map(|(f, cc)| FlowRecord {
            id: f.id,
            cc: cc.clone(),
            kernel_cc: f.cc.clone(),
            start: SimTime::from_nanos(f.start_ns),
            size: f.size,
            ..FlowRecord::default()
        })
        .collect();
    // Each host prints its last samples at the end, then `end`: a few seconds at most.
    let deadline = Instant::now() + Duration::from_secs(5);
    let mut ended = 0;
    while ended < 2 {
        let left = deadline.saturating_duration_since(Instant::now());
        match lines.recv_timeout(left) {
            Ok(line) if line == "end" => ended += 1,
            Ok(line) => take_line(&line, &mut flows),
            Err(_) => {
                return Err(EmuError::Endpoint(
                    "the sender and the receiver did not finish within 5 s of the end".into(),
                ));
            }
        }
    }
    // What the kernels handed to the TUN devices and the emulator never read: the data
    // (sender) and the ACKs (receiver) a device's ring had no room for.
    let ingress_drops = [(&sender, &sender_name), (&receiver, &receiver_name)]
        .into_iter()
        .map(|(host, name)| tun_tx_dropped(host, name))
        .sum::<Result<u64, EmuError>>()?;
    drop(sender);
    drop(receiver);
    let Forwarder {
        forward,
        mut fidelity,
        samples,
        ..
    } = forwarder;
    fidelity.ingress_drops = ingress_drops;
    Ok(EmulationReport {
        flows,
        queue: samples,
        bottleneck_rate_bps: forward.link.rate_bps(),
        bottleneck: forward.link.stats().clone(),
        fidelity,
        wall_s: started.elapsed().as_secs_f64(),
    })
}

/// A TUN device for `host`: created here, moved into the host's namespace, addressed
/// `address`, with a route to `peer` through it.
fn attach_tun(
    host: &Host,
    name: &str,
    address: &str,
    peer: &str,
    mtu: u64,
) -> Result<Tun, EmuError> {
    let tun = Tun::create(name)?;
    ip_here(&["link", "set", "dev", name, "netns", &host.pid().to_string()])?;
    host.ip(&["link", "set", "dev", "lo", "up"])?;
    host.ip(&["addr", "add", &format!("{address}/32"), "dev", name])?;
    host.ip(&[
        "link",
        "set",
        "dev",
        name,
        "mtu",
        &mtu.to_string(),
        "txqueuelen",
        &TUN_QUEUE_PACKETS.to_string(),
        "up",
    ])?;
    host.ip(&["route", "add", &format!("{peer}/32"), "dev", name])?;
    Ok(tun)
}

/// Packets a TUN device's ring holds for the emulator to read (its `txqueuelen`; the
/// default is 500). The kernel writes into it at memory speed: TCP Small Queues does not hold
/// a sender back, because the TUN driver orphans each packet as it takes it, and an unpaced
/// sender's slow-start burst is its whole window at once. With 500, bursts of Reno and CUBIC
/// at 100 Mbit/s × 200 ms lost thousands of packets there, before the emulated access link,
/// whose queue is unlimited as the simulator's is (docs/validation/linux.md, group 2).
/// 65 536 holds the largest window seen (about 7 300 segments) many times over; the ring is
/// an array of pointers (512 KiB), and only what waits in it takes memory.
const TUN_QUEUE_PACKETS: u32 = 65_536;

/// The `tx_dropped` count of the TUN device `name` in `host`'s namespace (`ip -s -j link`):
/// packets the kernel sent into it that did not fit its ring.
fn tun_tx_dropped(host: &Host, name: &str) -> Result<u64, EmuError> {
    let text = host.output("ip", &["-s", "-j", "link", "show", "dev", name])?;
    serde_json::from_str::<serde_json::Value>(&text)
        .ok()
        .and_then(|links| links[0]["stats64"]["tx"]["dropped"].as_u64())
        .ok_or_else(|| {
            EmuError::Endpoint(format!(
                "`ip -s -j link show dev {name}` gave no transmit drop count: {text}"
            ))
        })
}

/// One line of the sender's or the receiver's output into the flows' records; anything else
/// is ignored.
fn take_line(line: &str, flows: &mut [FlowRecord]) {
    let fields: Vec<&str> = line.split(',').collect();
    let number = |i: usize| fields.get(i).and_then(|f| f.parse::<u64>().ok());
    let flow = |i: usize| number(i).and_then(|id| usize::try_from(id).ok());
    match fields.first().copied() {
        Some("start") => {
            if let (Some(f), Some(t)) = (flow(1), number(2))
                && let Some(record) = flows.get_mut(f)
            {
                record.connected = Some(SimTime::from_nanos(t));
            }
        }
        Some("finish") => {
            if let (Some(f), Some(t)) = (flow(1), number(2))
                && let Some(record) = flows.get_mut(f)
            {
                record.finished = Some(SimTime::from_nanos(t));
            }
        }
        Some(kind @ ("sample" | "final")) => {
            if let (Some(t), Some(f)) = (number(1), flow(2))
                && let Some(info) = TcpInfo::from_fields(&fields[3..])
                && let Some(record) = flows.get_mut(f)
            {
                if kind == "sample" {
                    record.samples.push((SimTime::from_nanos(t), info));
                }
                record.last = Some(info);
            }
        }
        Some("receiver") => {
            if let (Some(t), Some(f)) = (number(1), flow(2))
                && let Some(info) = ReceiverInfo::from_fields(&fields[3..])
                && let Some(record) = flows.get_mut(f)
            {
                record.receiver_samples.push((SimTime::from_nanos(t), info));
            }
        }
        Some("error") => {
            if let Some(f) = flow(1)
                && let Some(record) = flows.get_mut(f)
            {
                record.error = Some(fields[2..].join(","));
            }
        }
        _ => {}
    }
}
