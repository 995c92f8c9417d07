// htsim-dumbbell: cclab's bench dumbbell (examples/bench-*.toml) built in htsim
// (Broadcom/csg-htsim), for the side-by-side speed comparison of docs/performance.md.
//
// Bulk TCP flows (htsim's TcpSrc/TcpSink: NewReno-style fast recovery, an ACK per segment)
// share one drop-tail bottleneck. Two forms of the same dumbbell:
//
//   --hops matched   as cclab builds it: every link is a queue (serialization) followed by a
//                    pipe (propagation). Data: sender access link, bottleneck, receiver access
//                    link; ACKs: receiver access link, the bottleneck's reverse direction,
//                    sender access link. Each flow has its own access links on both sides.
//   --hops onequeue  htsim's usual dumbbell: one shared bottleneck queue, then one pipe with
//                    the whole one-way delay; ACKs cross one pipe back. The access links and
//                    the reverse queue (whose serialization is a few microseconds at these
//                    rates) are left out.
//
// One JSON line on stdout (htsim itself prints a few lines, e.g. on a retransmission
// timeout, so read the last line): bottleneck packets (data packets that finished
// transmission on the bottleneck), events executed, wall seconds of the event loop, peak RSS.
// tools/htsim/README.md says how to build and run it.

#include "config.h"
#include "eventlist.h"
#include "network.h"
#include "pipe.h"
#include "queue.h"
#include "route.h"
#include "tcp.h"

#include <sys/resource.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace
{

// Counts the packets handed on by the hop before it and passes them to the next hop of
// their route. A plain function call inside the bottleneck's service event: it schedules
// nothing, so it adds no event.
class PacketCounter : public PacketSink
{
  public:
    void receivePacket(Packet& pkt) override
    {
        ++count;
        pkt.sendOn();
    }

    const std::string& nodename() override { return name; }

    uint64_t count = 0;

  private:
    std::string name = "bottleneck-counter";
};

// One direction of one link: a FIFO drop-tail queue that serializes at the link's rate,
// then a pipe that delays by its propagation delay.
struct Link
{
    Link(linkspeed_bps rate, mem_b limit_bytes, simtime_picosec delay, EventList& events)
        : queue(rate, limit_bytes, events, nullptr), pipe(delay, events)
    {
    }
    Queue queue;
    Pipe pipe;
};

struct Options
{
    uint32_t flows = 1;
    double rate_mbps = 100.0;
    double bottleneck_delay_ms = 30.0;
    double access_rate_mbps = 10000.0;
    double access_delay_ms = 1.0;
    double buffer_bdp = 1.0;
    uint32_t packet_bytes = 1500;
    double duration_s = 60.0;
    std::string hops = "matched";
    double ssthresh_packets = 0.0; // 0: unbounded
};

[[noreturn]] void
usage(const char* problem)
{
    std::fprintf(stderr,
                 "htsim-dumbbell: %s\n"
                 "usage: htsim-dumbbell [--flows N] [--rate-mbps R] [--delay-ms D] "
                 "[--access-rate-mbps R] [--access-delay-ms D] [--buffer-bdp B] "
                 "[--packet-bytes P] [--duration-s S] [--hops matched|onequeue] "
                 "[--ssthresh-pkts N]\n",
                 problem);
    std::exit(2);
}

double
number(const char* flag, const char* text)
{
    char* end = nullptr;
    double value = std::strtod(text, &end);
    if (end == text || *end != '\0' || !(value > 0.0))
    {
        std::fprintf(stderr, "htsim-dumbbell: %s needs a positive number, not %s\n", flag, text);
        std::exit(2);
    }
    return value;
}

Options
parse(int argc, char** argv)
{
    Options o;
    for (int i = 1; i < argc; ++i)
    {
        const char* flag = argv[i];
        if (i + 1 >= argc)
        {
            usage("every option takes a value");
        }
        const char* value = argv[++i];
        if (!std::strcmp(flag, "--flows"))
            o.flows = static_cast<uint32_t>(number(flag, value));
        else if (!std::strcmp(flag, "--rate-mbps"))
            o.rate_mbps = number(flag, value);
        else if (!std::strcmp(flag, "--delay-ms"))
            o.bottleneck_delay_ms = number(flag, value);
        else if (!std::strcmp(flag, "--access-rate-mbps"))
            o.access_rate_mbps = number(flag, value);
        else if (!std::strcmp(flag, "--access-delay-ms"))
            o.access_delay_ms = number(flag, value);
        else if (!std::strcmp(flag, "--buffer-bdp"))
            o.buffer_bdp = number(flag, value);
        else if (!std::strcmp(flag, "--packet-bytes"))
            o.packet_bytes = static_cast<uint32_t>(number(flag, value));
        else if (!std::strcmp(flag, "--duration-s"))
            o.duration_s = number(flag, value);
        else if (!std::strcmp(flag, "--hops"))
            o.hops = value;
        else if (!std::strcmp(flag, "--ssthresh-pkts"))
            o.ssthresh_packets = number(flag, value);
        else
            usage("unknown option");
    }
    if (o.hops != "matched" && o.hops != "onequeue")
    {
        usage("--hops must be matched or onequeue");
    }
    return o;
}

long
peak_rss_kib()
{
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_maxrss; // KiB on Linux
}

} // namespace

int
main(int argc, char** argv)
{
    const Options o = parse(argc, argv);

    EventList events;
    events.setEndtime(timeFromSec(o.duration_s));
    // htsim's data packets are packet_bytes on the wire and its sequence numbers count them
    // whole (TcpSrc's MSS is the packet size); ACKs are 40 bytes.
    Packet::set_packet_size(static_cast<int>(o.packet_bytes));

    // cclab's dumbbell: base RTT = 2 × (access + bottleneck + access) one-way delays; the
    // buffer is buffer_bdp × rate × base RTT in whole packets, rounded to nearest
    // (crates/scenario's buffer_limit_at). cclab's limit counts the packets waiting, not the
    // one being serialized (docs/scenarios.md); htsim's is in bytes and counts the packet in
    // service too, so it gets one packet more.
    const double one_way_ms = o.bottleneck_delay_ms + 2.0 * o.access_delay_ms;
    const double bdp_bytes = o.rate_mbps * 1e6 * (2.0 * one_way_ms / 1000.0) / 8.0;
    const double buffer_packets =
        std::max(1.0, std::round(bdp_bytes * o.buffer_bdp / o.packet_bytes));
    const mem_b buffer_bytes = memFromPkt(buffer_packets + 1);
    // Access links: cclab's are unlimited; a limit no window reaches.
    const mem_b access_limit = memFromPkt(1e7);

    const linkspeed_bps rate = speedFromMbps(o.rate_mbps);
    const linkspeed_bps access_rate = speedFromMbps(o.access_rate_mbps);
    const simtime_picosec bottleneck_delay = timeFromMs(o.bottleneck_delay_ms);
    const simtime_picosec access_delay = timeFromMs(o.access_delay_ms);

    PacketCounter counter;
    // Shared by every flow.
    Link forward(rate, buffer_bytes, bottleneck_delay, events);
    Link reverse(rate, buffer_bytes, bottleneck_delay, events);
    Pipe one_way_out(timeFromMs(one_way_ms), events);
    Pipe one_way_back(timeFromMs(one_way_ms), events);

    // htsim's retransmission timer is a periodic scan of every source (its examples use 10 ms).
    TcpRtxTimerScanner rtx_scanner(timeFromMs(10), events);

    std::vector<std::unique_ptr<Link>> access_links;
    std::vector<std::unique_ptr<TcpSrc>> sources;
    std::vector<std::unique_ptr<TcpSink>> sinks;
    std::vector<std::unique_ptr<Route>> routes;
    for (uint32_t i = 0; i < o.flows; ++i)
    {
        sources.push_back(std::make_unique<TcpSrc>(nullptr, nullptr, events));
        sinks.push_back(std::make_unique<TcpSink>());
        TcpSrc& src = *sources.back();
        TcpSink& sink = *sinks.back();
        // cclab's flows start with an unbounded slow-start threshold (RFC 5681 §3.1 allows
        // it "arbitrarily high") unless told otherwise; htsim's default is 100 packets.
        src.set_ssthresh(o.ssthresh_packets > 0.0
                             ? static_cast<uint32_t>(o.ssthresh_packets * o.packet_bytes)
                             : 0xffffffffu);
        rtx_scanner.registerTcp(src);

        auto out = std::make_unique<Route>();
        auto back = std::make_unique<Route>();
        if (o.hops == "matched")
        {
            auto link = [&]() -> Link& {
                access_links.push_back(
                    std::make_unique<Link>(access_rate, access_limit, access_delay, events));
                return *access_links.back();
            };
            Link& sender_up = link();
            Link& receiver_down = link();
            Link& receiver_up = link();
            Link& sender_down = link();
            out->push_back(&sender_up.queue);
            out->push_back(&sender_up.pipe);
            out->push_back(&forward.queue);
            out->push_back(&counter);
            out->push_back(&forward.pipe);
            out->push_back(&receiver_down.queue);
            out->push_back(&receiver_down.pipe);
            back->push_back(&receiver_up.queue);
            back->push_back(&receiver_up.pipe);
            back->push_back(&reverse.queue);
            back->push_back(&reverse.pipe);
            back->push_back(&sender_down.queue);
            back->push_back(&sender_down.pipe);
        }
        else
        {
            out->push_back(&forward.queue);
            out->push_back(&counter);
            out->push_back(&one_way_out);
            back->push_back(&one_way_back);
        }
        out->push_back(&sink);
        back->push_back(&src);
        // Every flow starts at time zero, as cclab's bench flows do.
        src.connect(*out, *back, sink, 0);
        routes.push_back(std::move(out));
        routes.push_back(std::move(back));
    }

    uint64_t executed = 0;
    const auto wall_start = std::chrono::steady_clock::now();
    while (events.doNextEvent())
    {
        ++executed;
    }
    const double wall_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();

    std::printf("{\"simulator\":\"htsim\",\"hops\":\"%s\",\"flows\":%u,\"rate_mbps\":%g,"
                "\"duration_s\":%g,\"buffer_pkts\":%.0f,\"packets\":%llu,\"drops\":%d,"
                "\"events\":%llu,\"wall_s\":%.4f,\"peak_rss_kib\":%ld}\n",
                o.hops.c_str(),
                o.flows,
                o.rate_mbps,
                o.duration_s,
                buffer_packets,
                static_cast<unsigned long long>(counter.count),
                forward.queue.num_drops(),
                static_cast<unsigned long long>(executed),
                wall_s,
                peak_rss_kib());
    return 0;
}
