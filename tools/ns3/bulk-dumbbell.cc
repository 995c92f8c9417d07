// bulk-dumbbell: cclab's bench dumbbell (examples/bench-*.toml) in ns-3 (3.37), for the
// side-by-side speed comparison of docs/performance.md ("Side by side with ns-3 and htsim").
//
// Each flow has its own sender and receiver, joined to two routers by access links
// (10 Gbit/s, 1 ms one way); the routers share the bottleneck (100 Mbit/s, 30 ms by default:
// base RTT 64 ms) with a drop-tail FIFO of 1 BDP. Bulk NewReno flows, an ACK per segment,
// run for the whole simulation. Nothing is traced while it runs (a trace sink on every packet
// would be work cclab and htsim do not do); the bottleneck's packets are read from its queue
// disc's counters at the end. One JSON line on stdout: bottleneck packets, events executed,
// wall and CPU seconds of Simulator::Run, peak RSS.
//
// tools/ns3/README.md says how to build and run it; tools/bench-side-by-side runs it.

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include "dumbbell.h"

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <string>
#include <vector>

using namespace ns3;

int
main(int argc, char* argv[])
{
    uint32_t flows = 1;
    double duration_s = 60.0;
    std::string bottleneck_rate = "100Mbps";
    double bottleneck_delay_ms = 30.0;
    std::string access_rate = "10Gbps";
    double access_delay_ms = 1.0;
    double buffer_bdp = 1.0;
    uint32_t mss = 1448;
    bool delayed_ack = false;
    bool sack = false;
    uint32_t ssthresh_packets = 0; // 0: unbounded (ns-3's default)

    CommandLine cmd(__FILE__);
    cmd.AddValue("flows", "number of TcpNewReno bulk flows", flows);
    cmd.AddValue("duration", "simulated seconds", duration_s);
    cmd.AddValue("bottleneckRate", "bottleneck rate", bottleneck_rate);
    cmd.AddValue("bottleneckDelay", "bottleneck one-way delay, ms", bottleneck_delay_ms);
    cmd.AddValue("accessRate", "access link rate", access_rate);
    cmd.AddValue("accessDelay", "access link one-way delay, ms", access_delay_ms);
    cmd.AddValue("bufferBdp", "bottleneck queue limit, multiples of the BDP", buffer_bdp);
    cmd.AddValue("mss", "TCP segment size (payload bytes)", mss);
    cmd.AddValue("delayedAck", "ACK every second segment (40 ms timer); false: every segment", delayed_ack);
    cmd.AddValue("sack", "SACK loss recovery (cclab's recovery = \"sack\"); false: NewReno (RFC 6582)", sack);
    cmd.AddValue("ssthreshPkts", "initial slow-start threshold, segments (0: unbounded)", ssthresh_packets);
    cmd.Parse(argc, argv);
    if (flows == 0 || duration_s <= 0.0)
    {
        std::fprintf(stderr, "bulk-dumbbell: need at least one flow and a positive duration\n");
        return 2;
    }

    // Packets as cclab counts them: payload + 52 header bytes (IPv4 20, TCP 20, timestamps
    // 12); the buffer is buffer_bdp × rate × base RTT in whole packets, rounded to nearest,
    // base RTT = 2 × (access + bottleneck + access) delay (crates/scenario's buffer_limit_at).
    const uint32_t packet_bytes = mss + 52;
    const double bottleneck_bps = DataRate(bottleneck_rate).GetBitRate();
    const double base_rtt_s = 2.0 * (2.0 * access_delay_ms + bottleneck_delay_ms) / 1000.0;
    const double bdp_packets = bottleneck_bps * base_rtt_s / 8.0 / packet_bytes;
    const uint32_t limit_packets =
        std::max<uint32_t>(1, static_cast<uint32_t>(std::lround(buffer_bdp * bdp_packets)));
    const std::string limit = std::to_string(limit_packets) + "p";

    // TCP as cclab's bench flows (cc = "newreno", recovery = "newreno", delayed_ack = false):
    // MSS 1448, initial window 10, timestamps, min RTO 200 ms, socket buffers of 2.5 BDP:
    // a window never exceeds BDP + buffer = 2 BDP here, so they never bind (ns-3's 128 KB
    // default would cap it far below that at 1 Gbit/s), and no larger, because
    // BulkSendApplication keeps the send buffer full and ns-3 holds its bytes: 256 MB
    // buffers took 544 MB of memory for 10 flows at 1 Gbit/s.
    const uint32_t socket_buffer = std::max<uint32_t>(
        128 * 1024,
        static_cast<uint32_t>(std::ceil(2.5 * bdp_packets * mss)));
    Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(TcpNewReno::GetTypeId()));
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType",
                       TypeIdValue(TcpClassicRecovery::GetTypeId()));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(mss));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(10));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(delayed_ack ? 2 : 1));
    Config::SetDefault("ns3::TcpSocket::DelAckTimeout", TimeValue(MilliSeconds(40)));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(socket_buffer));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(socket_buffer));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(MilliSeconds(200)));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(sack));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(true));
    if (ssthresh_packets > 0)
    {
        Config::SetDefault("ns3::TcpSocket::InitialSlowStartThreshold",
                           UintegerValue(ssthresh_packets * mss));
    }

    cclab_ns3::Dumbbell net = cclab_ns3::BuildDumbbell(
        flows, access_rate, access_delay_ms, bottleneck_rate, bottleneck_delay_ms);

    // Both directions of the bottleneck get a 1-BDP FIFO, the access links an effectively
    // unlimited one (cclab's access links have no limit).
    TrafficControlHelper bottleneck_fifo;
    bottleneck_fifo.SetRootQueueDisc("ns3::FifoQueueDisc", "MaxSize", QueueSizeValue(QueueSize(limit)));
    QueueDiscContainer bottleneck_qdiscs = bottleneck_fifo.Install(net.core);
    cclab_ns3::InstallAccessFifos(net, "1000000p");
    cclab_ns3::AssignAddresses(net);

    const uint16_t port = 5000;
    for (uint32_t i = 0; i < flows; ++i)
    {
        BulkSendHelper source("ns3::TcpSocketFactory",
                              InetSocketAddress(net.receiver_interfaces[i].GetAddress(1), port));
        source.SetAttribute("MaxBytes", UintegerValue(0));
        source.SetAttribute("SendSize", UintegerValue(mss));
        ApplicationContainer app = source.Install(net.senders.Get(i));
        app.Start(Seconds(0));
        app.Stop(Seconds(duration_s));

        PacketSinkHelper sink("ns3::TcpSocketFactory",
                              InetSocketAddress(Ipv4Address::GetAny(), port));
        ApplicationContainer sink_app = sink.Install(net.receivers.Get(i));
        sink_app.Start(Seconds(0));
        sink_app.Stop(Seconds(duration_s));
    }
    Simulator::Stop(Seconds(duration_s));

    // Wall time of the run alone (set-up excluded), and CPU time over the same span.
    const auto wall_start = std::chrono::steady_clock::now();
    const std::clock_t cpu_start = std::clock();
    Simulator::Run();
    const double wall_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
    const double cpu_s = static_cast<double>(std::clock() - cpu_start) / CLOCKS_PER_SEC;

    // Packets that left the forward queue disc for the device: those that crossed the
    // bottleneck, up to the one or two in the device at the end.
    const QueueDisc::Stats& stats = bottleneck_qdiscs.Get(0)->GetStats();
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    std::printf("{\"simulator\":\"ns-3.37\",\"flows\":%u,\"rate\":\"%s\",\"duration_s\":%g,"
                "\"buffer_pkts\":%u,\"packets\":%llu,\"drops\":%llu,\"events\":%llu,"
                "\"wall_s\":%.4f,\"cpu_s\":%.4f,\"peak_rss_kib\":%ld}\n",
                flows,
                bottleneck_rate.c_str(),
                duration_s,
                limit_packets,
                static_cast<unsigned long long>(stats.nTotalDequeuedPackets),
                static_cast<unsigned long long>(stats.nTotalDroppedPackets),
                static_cast<unsigned long long>(Simulator::GetEventCount()),
                wall_s,
                cpu_s,
                usage.ru_maxrss);

    Simulator::Destroy();
    return 0;
}
