// aqm-dumbbell: the cclab AQM side-by-side scenario in ns-3 (3.37).
//
// A dumbbell: each flow has its own sender and receiver, joined to two routers by 1 Gbit/s
// access links (1 ms one way); the routers share a 10 Mbit/s, 25 ms bottleneck. The
// bottleneck's queue discipline is chosen on the command line and installed with
// TrafficControlHelper. Bulk TCP flows (NewReno and/or CUBIC) run for the whole simulation;
// goodput, drops and the bottleneck queue are measured over a steady window
// [steadyFrom, duration]. One JSON object goes to stdout.
//
// The scenario mirrors examples/aqm/*.toml; docs/validation-ns3.md compares the two.
// tools/ns3/README.md says how to build and run it.

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include "dumbbell.h"

#include <chrono>
#include <cstdio>
#include <ctime>
#include <deque>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

// Measurements over the steady window, fed by trace sinks.
//
// "Waiting" means what cclab counts as the queue: packets that arrived at the bottleneck
// and have not begun transmission, i.e. the queue disc plus the device's one-packet queue
// (the packet being serialized is in neither).
struct Window
{
    double start_s = 0.0;
    bool open = false;
    // Queue-disc sojourn (QueueDisc "SojournTime": enqueue to dequeue from the queue disc)
    // of every packet dequeued in the window, including those CoDel drops at dequeue.
    double sojourn_sum_s = 0.0;
    uint64_t sojourn_count = 0;
    // Whole wait, queue-disc enqueue to start of transmission, of every packet that began
    // transmission in the window.
    double wait_sum_s = 0.0;
    uint64_t wait_count = 0;
    // Time-weighted number of waiting packets, integrated exactly between changes.
    double waiting_integral = 0.0; // packet·seconds
    uint32_t in_qdisc = 0;
    uint32_t in_device = 0;
    double waiting_since_s = 0.0;
    uint32_t waiting_max = 0;
    double qdisc_integral = 0.0; // the queue disc alone
    // Bytes (with the 2-byte PPP header) that began transmission on the bottleneck.
    uint64_t tx_bytes = 0;
};

// Arrival times at the queue disc of the packets it has released that have not begun
// transmission yet (at most the device queue's one packet and the one handed over). Past the
// queue disc everything is first in, first out, so times leave in the order they came.
// (Packet uids cannot key this: ns-3's TCP copies segments out of its send buffer, and a
// copy keeps its uid, so a retransmission shares the original's.)
std::deque<Time> g_released;

Window g_window;

// Per flow, in the window: loss-recovery episodes entered (CA_RECOVERY), retransmission
// timeouts (CA_LOSS), and data segments sent below the highest sequence already sent.
struct FlowCounters
{
    uint64_t recoveries = 0;
    uint64_t timeouts = 0;
    uint64_t retransmits = 0;
    SequenceNumber32 sent_end{0};
    bool any_sent = false;
};

std::vector<FlowCounters> g_flows;
bool g_print_events = false; // --events: one stderr line per recovery, timeout and drop

void
OnCongState(uint32_t flow,
            TcpSocketState::TcpCongState_t /*old*/,
            TcpSocketState::TcpCongState_t now)
{
    if (g_print_events && (now == TcpSocketState::CA_RECOVERY || now == TcpSocketState::CA_LOSS))
    {
        std::fprintf(stderr,
                     "%.6f %u %s\n",
                     Simulator::Now().GetSeconds(),
                     flow,
                     now == TcpSocketState::CA_RECOVERY ? "recovery_start" : "timeout");
    }
    if (!g_window.open)
    {
        return;
    }
    if (now == TcpSocketState::CA_RECOVERY)
    {
        g_flows[flow].recoveries++;
    }
    else if (now == TcpSocketState::CA_LOSS)
    {
        g_flows[flow].timeouts++;
    }
}

void
OnTcpTx(uint32_t flow, Ptr<const Packet> payload, const TcpHeader& header, Ptr<const TcpSocketBase>)
{
    if (payload->GetSize() == 0)
    {
        return;
    }
    FlowCounters& c = g_flows[flow];
    SequenceNumber32 end = header.GetSequenceNumber() + payload->GetSize();
    if (c.any_sent && header.GetSequenceNumber() < c.sent_end)
    {
        if (g_window.open)
        {
            c.retransmits++;
        }
    }
    if (!c.any_sent || end > c.sent_end)
    {
        c.sent_end = end;
        c.any_sent = true;
    }
}

void
OnQdiscDropEvent(Ptr<const QueueDiscItem> /*item*/)
{
    std::fprintf(stderr, "%.6f - drop\n", Simulator::Now().GetSeconds());
}

// BulkSendApplication creates its socket when it starts; hook the traces right after.
void
HookSocket(uint32_t flow, Ptr<BulkSendApplication> app)
{
    Ptr<Socket> socket = app->GetSocket();
    socket->TraceConnectWithoutContext("CongState", MakeBoundCallback(&OnCongState, flow));
    socket->TraceConnectWithoutContext("Tx", MakeBoundCallback(&OnTcpTx, flow));
}

void
OnSojourn(Time sojourn)
{
    if (g_window.open)
    {
        g_window.sojourn_sum_s += sojourn.GetSeconds();
        g_window.sojourn_count++;
    }
}

// Brings the waiting-packets integral up to now, then applies the new counts.
void
UpdateWaiting(uint32_t in_qdisc, uint32_t in_device)
{
    double t = Simulator::Now().GetSeconds();
    if (g_window.open)
    {
        double dt = t - g_window.waiting_since_s;
        g_window.waiting_integral += (g_window.in_qdisc + g_window.in_device) * dt;
        g_window.qdisc_integral += g_window.in_qdisc * dt;
        g_window.waiting_max = std::max(g_window.waiting_max, in_qdisc + in_device);
    }
    g_window.in_qdisc = in_qdisc;
    g_window.in_device = in_device;
    g_window.waiting_since_s = t;
}

void
OnQdiscBacklog(uint32_t /*old*/, uint32_t now)
{
    UpdateWaiting(now, g_window.in_device);
}

void
OnDeviceBacklog(uint32_t /*old*/, uint32_t now)
{
    UpdateWaiting(g_window.in_qdisc, now);
}

void
OnQdiscDequeue(Ptr<const QueueDiscItem> item)
{
    // The item's time stamp is its arrival at the queue disc (QueueDisc::Enqueue).
    g_released.push_back(item->GetTimeStamp());
}

// ns-3 fires the queue disc's Dequeue trace for a packet that CoDel (or FQ-CoDel's CoDel)
// then drops, and DropAfterDequeue right after it (QueueDisc::AddInternalQueue and
// AddQueueDiscClass connect the inner dequeue traces): that packet never reaches the device.
void
OnQdiscDropAfterDequeue(Ptr<const QueueDiscItem> /*item*/, const char* /*reason*/)
{
    if (!g_released.empty())
    {
        g_released.pop_back();
    }
}

void
OnPhyTxBegin(Ptr<const Packet> packet)
{
    if (g_released.empty())
    {
        return; // cannot happen: every packet on this device came through the queue disc
    }
    Time arrival = g_released.front();
    g_released.pop_front();
    if (g_window.open)
    {
        g_window.tx_bytes += packet->GetSize();
        g_window.wait_sum_s += (Simulator::Now() - arrival).GetSeconds();
        g_window.wait_count++;
    }
}

struct Snapshot
{
    std::vector<uint64_t> rx_bytes;
    QueueDisc::Stats qdisc;
};

Snapshot
TakeSnapshot(const ApplicationContainer& sinks, Ptr<QueueDisc> qdisc)
{
    Snapshot snap;
    for (uint32_t i = 0; i < sinks.GetN(); ++i)
    {
        snap.rx_bytes.push_back(DynamicCast<PacketSink>(sinks.Get(i))->GetTotalRx());
    }
    snap.qdisc = qdisc->GetStats();
    return snap;
}

Snapshot g_at_start;

void
OpenWindow(ApplicationContainer sinks, Ptr<QueueDisc> qdisc)
{
    g_at_start = TakeSnapshot(sinks, qdisc);
    g_window.open = true;
    g_window.start_s = Simulator::Now().GetSeconds();
    g_window.waiting_since_s = g_window.start_s;
    g_window.waiting_max = g_window.in_qdisc + g_window.in_device;
}

// Sets one attribute default of the chosen queue disc, e.g. ("ns3::RedQueueDisc", "MinTh", 5).
void
SetQdiscDefault(const std::string& type, const std::string& name, const AttributeValue& value)
{
    Config::SetDefault(type + "::" + name, value);
}

} // namespace

int
main(int argc, char* argv[])
{
    std::string queue = "pfifo";
    std::string params = "cclab"; // "cclab": cclab's defaults; "ns3": ns-3's own defaults
    uint32_t newreno = 1;
    uint32_t cubic = 1;
    double duration_s = 60.0;
    double steady_from_s = 20.0;
    std::string bottleneck_rate = "10Mbps";
    double bottleneck_delay_ms = 25.0;
    std::string access_rate = "1Gbps";
    double access_delay_ms = 1.0;
    double buffer_bdp = 10.0;
    uint32_t mss = 1448;
    bool delayed_ack = true;

    CommandLine cmd(__FILE__);
    cmd.AddValue("queue", "bottleneck queue disc: pfifo, red, codel, fq_codel, pie", queue);
    cmd.AddValue("params",
                 "queue disc parameters: cclab (set to cclab's documented defaults) or ns3 "
                 "(ns-3's attribute defaults; the size limit is 10 BDP either way)",
                 params);
    cmd.AddValue("newreno", "number of TcpNewReno bulk flows", newreno);
    cmd.AddValue("cubic", "number of TcpCubic bulk flows", cubic);
    cmd.AddValue("duration", "simulated seconds", duration_s);
    cmd.AddValue("steadyFrom", "start of the measurement window, seconds", steady_from_s);
    cmd.AddValue("bottleneckRate", "bottleneck rate", bottleneck_rate);
    cmd.AddValue("bottleneckDelay", "bottleneck one-way delay, ms", bottleneck_delay_ms);
    cmd.AddValue("accessRate", "access link rate", access_rate);
    cmd.AddValue("accessDelay", "access link one-way delay, ms", access_delay_ms);
    cmd.AddValue("bufferBdp", "bottleneck queue limit, multiples of the BDP", buffer_bdp);
    cmd.AddValue("mss", "TCP segment size (payload bytes)", mss);
    cmd.AddValue("delayedAck",
                 "ACK every second segment (40 ms timer), as cclab's delayed_ack = true; false: "
                 "ACK every segment",
                 delayed_ack);
    cmd.AddValue("events", "print each flow's recoveries and timeouts, and the bottleneck's drops, to stderr", g_print_events);
    cmd.Parse(argc, argv);

    const uint32_t flows = newreno + cubic;
    if (flows == 0 || steady_from_s >= duration_s)
    {
        std::fprintf(stderr, "aqm-dumbbell: need at least one flow and steadyFrom < duration\n");
        return 2;
    }
    if (params != "cclab" && params != "ns3")
    {
        std::fprintf(stderr, "aqm-dumbbell: --params must be cclab or ns3\n");
        return 2;
    }

    // Packet sizes as cclab counts them: payload + 52 header bytes (IPv4 20, TCP 20,
    // timestamps 12). ns-3's TCP sends the same 52 (SACK-permitted and window scale ride on
    // the SYN only); its point-to-point device adds a 2-byte PPP header on the wire.
    const uint32_t packet_bytes = mss + 52;
    const double bottleneck_bps = DataRate(bottleneck_rate).GetBitRate();
    // cclab: base RTT = 2 × (access + bottleneck + access) delay; BDP in whole packets.
    const double base_rtt_s = 2.0 * (2.0 * access_delay_ms + bottleneck_delay_ms) / 1000.0;
    const double bdp_packets = bottleneck_bps * base_rtt_s / 8.0 / packet_bytes;
    const uint32_t limit_packets =
        std::max<uint32_t>(1, static_cast<uint32_t>(std::lround(buffer_bdp * bdp_packets)));
    const std::string limit = std::to_string(limit_packets) + "p";

    // TCP: set to the cclab flow defaults (docs/scenarios.md [[flows]]) where ns-3 has the
    // knob. ns-3's own defaults differ: 536-byte segments, 128 KB socket buffers (they would
    // cap the window below 10 BDP), min RTO 1 s, delayed-ACK timer 200 ms.
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(mss));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(10));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(delayed_ack ? 2 : 1));
    Config::SetDefault("ns3::TcpSocket::DelAckTimeout", TimeValue(MilliSeconds(40)));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(64 << 20));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(64 << 20));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(MilliSeconds(200)));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(true));

    // Queue disc of the bottleneck's forward direction.
    std::string qdisc_type;
    if (queue == "pfifo")
    {
        qdisc_type = "ns3::FifoQueueDisc";
    }
    else if (queue == "red")
    {
        qdisc_type = "ns3::RedQueueDisc";
        if (params == "cclab")
        {
            // cclab's RedConfig defaults = ns-2's Queue/RED: thresh 5, maxthresh 15,
            // q_weight 0.002, max_p 0.1 (LInterm = 1/max_p), gentle; mean packet size = the
            // data packet (idle-time correction).
            SetQdiscDefault(qdisc_type, "MinTh", DoubleValue(5));
            SetQdiscDefault(qdisc_type, "MaxTh", DoubleValue(15));
            SetQdiscDefault(qdisc_type, "QW", DoubleValue(0.002));
            SetQdiscDefault(qdisc_type, "LInterm", DoubleValue(10));
            SetQdiscDefault(qdisc_type, "Gentle", BooleanValue(true));
            SetQdiscDefault(qdisc_type, "MeanPktSize", UintegerValue(packet_bytes));
        }
        // The idle-time correction needs the link's rate (ns-3 default 1.5 Mbit/s).
        SetQdiscDefault(qdisc_type, "LinkBandwidth", DataRateValue(DataRate(bottleneck_rate)));
        SetQdiscDefault(qdisc_type,
                        "LinkDelay",
                        TimeValue(MicroSeconds(static_cast<int64_t>(bottleneck_delay_ms * 1000))));
    }
    else if (queue == "codel")
    {
        qdisc_type = "ns3::CoDelQueueDisc";
        if (params == "cclab")
        {
            // RFC 8289 §4.3-4.4 (cclab CodelConfig): target 5 ms, interval 100 ms.
            SetQdiscDefault(qdisc_type, "Target", StringValue("5ms"));
            SetQdiscDefault(qdisc_type, "Interval", StringValue("100ms"));
        }
    }
    else if (queue == "fq_codel")
    {
        qdisc_type = "ns3::FqCoDelQueueDisc";
        if (params == "cclab")
        {
            // RFC 8290 / Linux (cclab FqCodelConfig): 1024 queues, quantum 1514 B (set below:
            // ns-3.37 has no Quantum attribute, only SetQuantum; unset, it takes the device
            // MTU, 1500), target 5 ms, interval 100 ms, no ECN (ns-3's default is UseEcn =
            // true; our TCP is not ECN-capable, so it makes no difference).
            SetQdiscDefault(qdisc_type, "Flows", UintegerValue(1024));
            SetQdiscDefault(qdisc_type, "Target", StringValue("5ms"));
            SetQdiscDefault(qdisc_type, "Interval", StringValue("100ms"));
            SetQdiscDefault(qdisc_type, "UseEcn", BooleanValue(false));
        }
    }
    else if (queue == "pie")
    {
        qdisc_type = "ns3::PieQueueDisc";
        if (params == "cclab")
        {
            // RFC 8033 §5 (cclab PieConfig): QDELAY_REF 15 ms, T_UPDATE 15 ms, alpha 0.125,
            // beta 1.25, MAX_BURST 150 ms.
            SetQdiscDefault(qdisc_type, "QueueDelayReference", TimeValue(MilliSeconds(15)));
            SetQdiscDefault(qdisc_type, "Tupdate", TimeValue(MilliSeconds(15)));
            SetQdiscDefault(qdisc_type, "A", DoubleValue(0.125));
            SetQdiscDefault(qdisc_type, "B", DoubleValue(1.25));
            SetQdiscDefault(qdisc_type, "MaxBurstAllowance", TimeValue(MilliSeconds(150)));
            SetQdiscDefault(qdisc_type, "MeanPktSize", UintegerValue(packet_bytes));
        }
    }
    else
    {
        std::fprintf(stderr,
                     "aqm-dumbbell: --queue must be pfifo, red, codel, fq_codel or pie, not %s\n",
                     queue.c_str());
        return 2;
    }
    // The size limit is the same 10 BDP for every discipline (ns-3's defaults vary: RED and
    // PIE 25 packets, CoDel 1.5 MB, FQ-CoDel 10240 packets, FIFO 1000 packets).
    SetQdiscDefault(qdisc_type, "MaxSize", QueueSizeValue(QueueSize(limit)));

    cclab_ns3::Dumbbell net = cclab_ns3::BuildDumbbell(
        flows, access_rate, access_delay_ms, bottleneck_rate, bottleneck_delay_ms);
    NetDeviceContainer& core = net.core;

    // Queue discs go in before the addresses (dumbbell.h).
    TrafficControlHelper chosen;
    chosen.SetRootQueueDisc(qdisc_type);
    QueueDiscContainer bottleneck_qdisc = chosen.Install(core.Get(0));
    if (queue == "fq_codel" && params == "cclab")
    {
        // Before Simulator::Run, where the queue disc is initialized and checks its quantum.
        DynamicCast<FqCoDelQueueDisc>(bottleneck_qdisc.Get(0))->SetQuantum(1514);
    }
    // The reverse direction (ACKs) and the access links: drop-tail FIFOs, as in cclab
    // (reverse: the bottleneck's buffer; access: "unlimited", here 100000 packets).
    TrafficControlHelper reverse_fifo;
    reverse_fifo.SetRootQueueDisc("ns3::FifoQueueDisc", "MaxSize", QueueSizeValue(QueueSize(limit)));
    reverse_fifo.Install(core.Get(1));
    cclab_ns3::InstallAccessFifos(net, "100000p");
    cclab_ns3::AssignAddresses(net);

    // Congestion control per sender node: the first `newreno` flows NewReno, then CUBIC.
    // ns-3's loss recovery is TcpPrrRecovery (RFC 6937) with SACK for both.
    ApplicationContainer sinks;
    g_flows.resize(flows);
    const uint16_t port = 5000;
    for (uint32_t i = 0; i < flows; ++i)
    {
        TypeId cc = i < newreno ? TcpNewReno::GetTypeId() : TcpCubic::GetTypeId();
        net.senders.Get(i)->GetObject<TcpL4Protocol>()->SetAttribute("SocketType", TypeIdValue(cc));

        BulkSendHelper source("ns3::TcpSocketFactory",
                              InetSocketAddress(net.receiver_interfaces[i].GetAddress(1), port));
        source.SetAttribute("MaxBytes", UintegerValue(0));
        source.SetAttribute("SendSize", UintegerValue(mss));
        ApplicationContainer app = source.Install(net.senders.Get(i));
        app.Start(Seconds(0));
        app.Stop(Seconds(duration_s));
        Simulator::Schedule(NanoSeconds(1),
                            &HookSocket,
                            i,
                            DynamicCast<BulkSendApplication>(app.Get(0)));

        PacketSinkHelper sink("ns3::TcpSocketFactory",
                              InetSocketAddress(Ipv4Address::GetAny(), port));
        ApplicationContainer sink_app = sink.Install(net.receivers.Get(i));
        sink_app.Start(Seconds(0));
        sink_app.Stop(Seconds(duration_s));
        sinks.Add(sink_app);
    }

    Ptr<QueueDisc> qdisc = bottleneck_qdisc.Get(0);
    qdisc->TraceConnectWithoutContext("SojournTime", MakeCallback(&OnSojourn));
    qdisc->TraceConnectWithoutContext("PacketsInQueue", MakeCallback(&OnQdiscBacklog));
    qdisc->TraceConnectWithoutContext("Dequeue", MakeCallback(&OnQdiscDequeue));
    if (g_print_events)
    {
        qdisc->TraceConnectWithoutContext("Drop", MakeCallback(&OnQdiscDropEvent));
    }
    qdisc->TraceConnectWithoutContext("DropAfterDequeue",
                                      MakeCallback(&OnQdiscDropAfterDequeue));
    DynamicCast<PointToPointNetDevice>(core.Get(0))
        ->GetQueue()
        ->TraceConnectWithoutContext("PacketsInQueue", MakeCallback(&OnDeviceBacklog));
    core.Get(0)->TraceConnectWithoutContext("PhyTxBegin", MakeCallback(&OnPhyTxBegin));
    Simulator::Schedule(Seconds(steady_from_s), &OpenWindow, sinks, qdisc);

    Snapshot at_end;
    Simulator::Schedule(Seconds(duration_s) - NanoSeconds(1), [&]() {
        at_end = TakeSnapshot(sinks, qdisc);
        UpdateWaiting(g_window.in_qdisc, g_window.in_device); // close the integrals
        g_window.open = false;
    });
    Simulator::Stop(Seconds(duration_s));

    // Wall time of the run alone (set-up excluded), and the process's CPU time over the same
    // span: on a shared machine CPU time is the steadier of the two.
    auto wall_start = std::chrono::steady_clock::now();
    std::clock_t cpu_start = std::clock();
    Simulator::Run();
    double wall_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
    double cpu_s = static_cast<double>(std::clock() - cpu_start) / CLOCKS_PER_SEC;

    const double window_s = duration_s - steady_from_s;
    uint64_t total_rx = 0;
    std::string per_flow;
    for (uint32_t i = 0; i < flows; ++i)
    {
        uint64_t bytes = at_end.rx_bytes[i] - g_at_start.rx_bytes[i];
        total_rx += bytes;
        char buf[256];
        std::snprintf(buf,
                      sizeof buf,
                      "%s{\"cc\":\"%s\",\"goodput_bps\":%.0f,\"recoveries\":%llu,"
                      "\"timeouts\":%llu,\"retransmits\":%llu}",
                      i ? "," : "",
                      i < newreno ? "newreno" : "cubic",
                      bytes * 8.0 / window_s,
                      static_cast<unsigned long long>(g_flows[i].recoveries),
                      static_cast<unsigned long long>(g_flows[i].timeouts),
                      static_cast<unsigned long long>(g_flows[i].retransmits));
        per_flow += buf;
    }
    const QueueDisc::Stats& s0 = g_at_start.qdisc;
    const QueueDisc::Stats& s1 = at_end.qdisc;
    uint64_t drops = s1.nTotalDroppedPackets - s0.nTotalDroppedPackets;
    uint64_t early = (s1.nTotalDroppedPacketsBeforeEnqueue - s0.nTotalDroppedPacketsBeforeEnqueue);
    uint64_t after_dequeue =
        (s1.nTotalDroppedPacketsAfterDequeue - s0.nTotalDroppedPacketsAfterDequeue);
    uint64_t dequeued = s1.nTotalDequeuedPackets - s0.nTotalDequeuedPackets;
    uint64_t marks = s1.nTotalMarkedPackets - s0.nTotalMarkedPackets;

    std::printf("{\"simulator\":\"ns-3.37\",\"queue\":\"%s\",\"params\":\"%s\","
                "\"delayed_ack\":%s,\"rng_run\":%llu,"
                "\"limit_pkts\":%u,\"bdp_pkts\":%.2f,\"window_s\":[%.3f,%.3f],"
                "\"goodput_bps\":%.0f,\"flows\":[%s],"
                "\"utilization\":%.4f,"
                "\"mean_queue_delay_ms\":%.3f,\"mean_qdisc_sojourn_ms\":%.3f,"
                "\"mean_queue_pkts\":%.2f,\"mean_qdisc_pkts\":%.2f,\"max_queue_pkts\":%u,"
                "\"drops\":%llu,\"drops_before_enqueue\":%llu,\"drops_after_dequeue\":%llu,"
                "\"marks\":%llu,\"dequeued\":%llu,\"wall_s\":%.3f,\"cpu_s\":%.3f}\n",
                queue.c_str(),
                params.c_str(),
                delayed_ack ? "true" : "false",
                static_cast<unsigned long long>(RngSeedManager::GetRun()),
                limit_packets,
                bdp_packets,
                steady_from_s,
                duration_s,
                total_rx * 8.0 / window_s,
                per_flow.c_str(),
                g_window.tx_bytes * 8.0 / window_s / bottleneck_bps,
                g_window.wait_count ? 1000.0 * g_window.wait_sum_s / g_window.wait_count : 0.0,
                g_window.sojourn_count ? 1000.0 * g_window.sojourn_sum_s / g_window.sojourn_count
                                       : 0.0,
                g_window.waiting_integral / window_s,
                g_window.qdisc_integral / window_s,
                g_window.waiting_max,
                static_cast<unsigned long long>(drops),
                static_cast<unsigned long long>(early),
                static_cast<unsigned long long>(after_dequeue),
                static_cast<unsigned long long>(marks),
                static_cast<unsigned long long>(dequeued),
                wall_s,
                cpu_s);

    Simulator::Destroy();
    return 0;
}
