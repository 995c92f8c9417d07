// dumbbell.h: the ns-3 (3.37) dumbbell that aqm-dumbbell.cc and bulk-dumbbell.cc share, built
// as cclab's `[topology] bottleneck + access` builds it.
//
// Each flow has its own sender and receiver, joined to two routers by access links; the
// routers share the bottleneck. Every device queue holds one packet, so the queue builds in
// the queue disc, which the device stops and wakes (flow control): a packet waits at most one
// transmission time in the device.
//
// Queue discs must be installed between BuildDumbbell and AssignAddresses:
// Ipv4AddressHelper::Assign installs ns-3's default (FqCoDelQueueDisc) on any device that has
// none yet.

#ifndef CCLAB_TOOLS_NS3_DUMBBELL_H
#define CCLAB_TOOLS_NS3_DUMBBELL_H

#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <cstdint>
#include <string>
#include <vector>

namespace cclab_ns3
{

struct Dumbbell
{
    ns3::NodeContainer senders;
    ns3::NodeContainer receivers;
    ns3::NodeContainer routers;
    /// The bottleneck: Get(0) sends forward (data), Get(1) backward (ACKs).
    ns3::NetDeviceContainer core;
    /// Per flow: sender to the first router, and the second router to the receiver.
    std::vector<ns3::NetDeviceContainer> left;
    std::vector<ns3::NetDeviceContainer> right;
    /// Per flow, filled by AssignAddresses: GetAddress(1) is the receiver's.
    std::vector<ns3::Ipv4InterfaceContainer> receiver_interfaces;
};

inline ns3::PointToPointHelper
OnePacketDeviceLink(const std::string& rate, double delay_ms)
{
    ns3::PointToPointHelper link;
    link.SetDeviceAttribute("DataRate", ns3::StringValue(rate));
    link.SetChannelAttribute(
        "Delay",
        ns3::TimeValue(ns3::MicroSeconds(static_cast<int64_t>(delay_ms * 1000))));
    link.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", ns3::StringValue("1p"));
    return link;
}

/// The nodes, the links and the internet stack; no queue discs and no addresses yet.
inline Dumbbell
BuildDumbbell(uint32_t flows,
              const std::string& access_rate,
              double access_delay_ms,
              const std::string& bottleneck_rate,
              double bottleneck_delay_ms)
{
    Dumbbell net;
    net.senders.Create(flows);
    net.receivers.Create(flows);
    net.routers.Create(2);
    ns3::PointToPointHelper access = OnePacketDeviceLink(access_rate, access_delay_ms);
    ns3::PointToPointHelper bottleneck = OnePacketDeviceLink(bottleneck_rate, bottleneck_delay_ms);
    net.core = bottleneck.Install(net.routers.Get(0), net.routers.Get(1));
    for (uint32_t i = 0; i < flows; ++i)
    {
        net.left.push_back(access.Install(net.senders.Get(i), net.routers.Get(0)));
        net.right.push_back(access.Install(net.routers.Get(1), net.receivers.Get(i)));
    }
    ns3::InternetStackHelper stack;
    stack.InstallAll();
    return net;
}

/// A FIFO queue disc of `limit` (e.g. "100000p") on both ends of every access link: cclab's
/// access links have no limit.
inline void
InstallAccessFifos(const Dumbbell& net, const std::string& limit)
{
    ns3::TrafficControlHelper fifo;
    fifo.SetRootQueueDisc("ns3::FifoQueueDisc",
                          "MaxSize",
                          ns3::QueueSizeValue(ns3::QueueSize(limit)));
    for (size_t i = 0; i < net.left.size(); ++i)
    {
        fifo.Install(net.left[i]);
        fifo.Install(net.right[i]);
    }
}

/// A /30 per link, the bottleneck first, and global routing.
inline void
AssignAddresses(Dumbbell& net)
{
    ns3::Ipv4AddressHelper address;
    address.SetBase("10.0.0.0", "255.255.255.252");
    address.Assign(net.core);
    address.NewNetwork();
    for (size_t i = 0; i < net.left.size(); ++i)
    {
        address.Assign(net.left[i]);
        address.NewNetwork();
        net.receiver_interfaces.push_back(address.Assign(net.right[i]));
        address.NewNetwork();
    }
    ns3::Ipv4GlobalRoutingHelper::PopulateRoutingTables();
}

} // namespace cclab_ns3

#endif
