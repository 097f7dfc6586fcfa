// cellaqm validation: what the two LENA programs (lte_uplink.cc, lte_downlink.cc) share.
//
// Written for cellaqm (not derived from an ns-3 example). The set-up is one
// sequence in both programs, kept in the same order here: ns-3 hands out node
// ids and random-variable streams in creation order, so an order change would
// change their results.
//   - TCP defaults aligned with cellaqm (validation/alignment.md, the LTE tables);
//   - RLC buffers and bandwidth (RLC AM or UM, no UM discard timer);
//   - the LTE helper with its EPC, and a remote host behind the PGW;
//   - one eNodeB with its UEs at fixed positions, attached, with IP routes;
//   - the counters both report: RTOs and fast retransmits, RLC drops, steady
//     state, one-way delay statistics, the most frequent transport block.
#pragma once

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/lte-module.h"
#include "ns3/mobility-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"

#include <algorithm>
#include <cstdint>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace lena
{
using namespace ns3;

// ---------------------------------------------------------------- counters both programs report
inline uint64_t g_rtos = 0;
inline uint64_t g_fastRetransmits = 0;
inline uint64_t g_rlcDrops = 0;
inline double g_steadyFromS = 0; // blocks, grants and PDUs from this time on count as steady state

inline bool
Steady()
{
    return Simulator::Now().GetSeconds() >= g_steadyFromS;
}

// A sender entering loss recovery after a timeout (CA_LOSS) or a fast retransmit (CA_RECOVERY).
inline void
OnCongState(TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t now)
{
    if (now == TcpSocketState::CA_LOSS)
    {
        ++g_rtos;
    }
    else if (now == TcpSocketState::CA_RECOVERY)
    {
        ++g_fastRetransmits;
    }
}

inline void
OnRlcDrop(Ptr<const Packet>)
{
    ++g_rlcDrops;
}

// ---------------------------------------------------------------- options
// The options both programs take (each program sets its defaults before `Register`): the
// cell, the RLC, the core network's delays, TCP, and the bulk transfer's timing.
struct Options
{
    uint16_t prbs = 0;
    double distanceM = 100;
    std::string rlc = "am";
    std::string scheduler = "pf";
    uint32_t rlcBuffer = 0;
    double s1uDelayMs = 0;
    double internetDelayMs = 0;
    uint32_t rwnd = 0;
    uint32_t mss = 1460;
    uint32_t initialWindow = 2;
    bool sack = true;
    double startS = 0.5;
    double durationS = 0;
    double steadyAfterS = 5;
    uint32_t seed = 1;

    // Adds them to `cmd`; `transfer` names the bulk transfer ("upload" or "download").
    void Register(CommandLine& cmd, const std::string& transfer)
    {
        cmd.AddValue("prbs", "uplink and downlink bandwidth, resource blocks (25: 5 MHz, 50: 10 MHz)", prbs);
        cmd.AddValue("distance_m", "every UE to the eNodeB, m (Friis path loss, no fading)", distanceM);
        cmd.AddValue("rlc", "am | um: RLC mode of the data bearers", rlc);
        cmd.AddValue("scheduler", "pf | rr: the eNodeB's MAC scheduler", scheduler);
        cmd.AddValue("rlc_buffer", "RLC transmission buffer per bearer (MaxTxBufferSize), bytes", rlcBuffer);
        cmd.AddValue("s1u_delay_ms", "eNodeB <-> SGW (S1-U) one-way delay, ms", s1uDelayMs);
        cmd.AddValue("internet_delay_ms", "PGW <-> remote host one-way delay, ms", internetDelayMs);
        cmd.AddValue("rwnd", "receive buffer (advertised window), bytes", rwnd);
        cmd.AddValue("mss", "segment payload, bytes", mss);
        cmd.AddValue("iw", "initial window, segments", initialWindow);
        cmd.AddValue("sack", "SACK on/off", sack);
        cmd.AddValue("start_s", transfer + " start (the UEs are attached by then), s", startS);
        cmd.AddValue("duration", transfer + " seconds (goodput over them)", durationS);
        cmd.AddValue("steady_after_s", "blocks after start + this count as steady state (TBS, MCS), s", steadyAfterS);
        cmd.AddValue("seed", "run number", seed);
    }

    // Whether --rlc names an RLC mode and --scheduler a scheduler (else says so on stderr).
    bool Valid() const
    {
        if ((rlc != "am" && rlc != "um") || (scheduler != "pf" && scheduler != "rr"))
        {
            std::cerr << "--rlc: am or um; --scheduler: pf or rr\n";
            return false;
        }
        return true;
    }
};

// ---------------------------------------------------------------- set-up
// TCP as cellaqm's: NewReno with PRR, no delayed ACKs, a 200 ms minimum RTO on a fine clock.
inline void
SetTcpDefaults(uint32_t mss, uint32_t initialWindow, uint32_t rwnd, bool sack)
{
    Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(TcpNewReno::GetTypeId()));
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType", TypeIdValue(TcpPrrRecovery::GetTypeId()));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(mss));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(initialWindow));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(1));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(rwnd));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(4 * rwnd));
    Config::SetDefault("ns3::TcpSocket::ConnTimeout", TimeValue(Seconds(1)));
    Config::SetDefault("ns3::TcpSocket::DataRetries", UintegerValue(1000));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(sack));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::WindowScaling", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(MilliSeconds(200)));
    Config::SetDefault("ns3::TcpSocketBase::ClockGranularity", TimeValue(NanoSeconds(1)));
}

// RLC buffers as cellaqm's managed buffer (`rlc_buffer` bytes, every bearer in `rlc` mode) and
// the cell's bandwidth in resource blocks, both directions.
inline void
SetRlcDefaults(const std::string& rlc, uint32_t rlcBuffer)
{
    Config::SetDefault("ns3::LteRlcAm::MaxTxBufferSize", UintegerValue(rlcBuffer));
    Config::SetDefault("ns3::LteRlcUm::MaxTxBufferSize", UintegerValue(rlcBuffer));
    // UM's default discards SDUs older than the bearer's delay budget (QCI 9: 300 ms);
    // cellaqm's drop-tail buffer has no such timer.
    Config::SetDefault("ns3::LteRlcUm::EnablePdcpDiscarding", BooleanValue(false));
    Config::SetDefault("ns3::LteEnbRrc::EpsBearerToRlcMapping",
                       EnumValue(rlc == "am" ? LteEnbRrc::RLC_AM_ALWAYS : LteEnbRrc::RLC_UM_ALWAYS));
}

inline void
SetBandwidth(uint16_t prbs)
{
    Config::SetDefault("ns3::LteEnbNetDevice::UlBandwidth", UintegerValue(prbs));
    Config::SetDefault("ns3::LteEnbNetDevice::DlBandwidth", UintegerValue(prbs));
}

// The LTE network: EPC, the eNodeB's scheduler, the remote host behind the PGW (100 Gb/s,
// `internetDelayMs` one way) and, once `InstallCell` ran, one eNodeB with its UEs.
struct Network
{
    Ptr<LteHelper> lte;
    Ptr<PointToPointEpcHelper> epc;
    Ptr<Node> remote;
    Ipv4Address remoteAddress;
    InternetStackHelper internet;
    Ipv4StaticRoutingHelper routing;
    NodeContainer enbs;
    NodeContainer ues;
    NetDeviceContainer enbDevices;
    NetDeviceContainer ueDevices;
    Ipv4InterfaceContainer ueInterfaces;
};

inline Network
MakeNetwork(const std::string& scheduler, double s1uDelayMs, double internetDelayMs)
{
    Network net;
    net.lte = CreateObject<LteHelper>();
    net.epc = CreateObject<PointToPointEpcHelper>();
    net.epc->SetAttribute("S1uLinkDelay", TimeValue(MilliSeconds(s1uDelayMs)));
    net.lte->SetEpcHelper(net.epc);
    net.lte->SetSchedulerType(scheduler == "pf" ? "ns3::PfFfMacScheduler" : "ns3::RrFfMacScheduler");

    Ptr<Node> pgw = net.epc->GetPgwNode();
    NodeContainer remote;
    remote.Create(1);
    net.remote = remote.Get(0);
    net.internet.Install(remote);
    PointToPointHelper p2p;
    p2p.SetDeviceAttribute("DataRate", DataRateValue(DataRate("100Gbps")));
    p2p.SetChannelAttribute("Delay", TimeValue(MilliSeconds(internetDelayMs)));
    p2p.SetDeviceAttribute("Mtu", UintegerValue(1500));
    NetDeviceContainer inetDevs = p2p.Install(pgw, net.remote);
    Ipv4AddressHelper ipv4;
    ipv4.SetBase("1.0.0.0", "255.0.0.0");
    net.remoteAddress = ipv4.Assign(inetDevs).GetAddress(1);
    net.routing.GetStaticRouting(net.remote->GetObject<Ipv4>())
        ->AddNetworkRouteTo(Ipv4Address("7.0.0.0"), Ipv4Mask("255.0.0.0"), 1);
    return net;
}

// One eNodeB at the origin and a UE at each of `uePositions` (fixed), attached to it, each
// with an IP address and its default route through the EPC.
inline void
InstallCell(Network& net, const std::vector<Vector>& uePositions)
{
    net.enbs.Create(1);
    net.ues.Create(uePositions.size());
    Ptr<ListPositionAllocator> positions = CreateObject<ListPositionAllocator>();
    positions->Add(Vector(0, 0, 0));
    for (const Vector& p : uePositions)
    {
        positions->Add(p);
    }
    MobilityHelper mobility;
    mobility.SetMobilityModel("ns3::ConstantPositionMobilityModel");
    mobility.SetPositionAllocator(positions);
    mobility.Install(net.enbs);
    mobility.Install(net.ues);
    net.enbDevices = net.lte->InstallEnbDevice(net.enbs);
    net.ueDevices = net.lte->InstallUeDevice(net.ues);
    net.internet.Install(net.ues);
    net.ueInterfaces = net.epc->AssignUeIpv4Address(net.ueDevices);
    for (uint32_t i = 0; i < net.ues.GetN(); ++i)
    {
        net.routing.GetStaticRouting(net.ues.Get(i)->GetObject<Ipv4>())
            ->SetDefaultRoute(net.epc->GetUeDefaultGatewayAddress(), 1);
    }
    net.lte->Attach(net.ueDevices, net.enbDevices.Get(0));
}

// ---------------------------------------------------------------- report
// The `q` quantile of sorted nanoseconds, in ms (nearest rank).
inline double
QuantileMs(const std::vector<int64_t>& sorted, double q)
{
    if (sorted.empty())
    {
        return 0.0;
    }
    auto i = static_cast<std::size_t>(q * static_cast<double>(sorted.size() - 1) + 0.5);
    return static_cast<double>(sorted[std::min(i, sorted.size() - 1)]) * 1e-6;
}

// {"count", "mean", "p50", "p95", "max"} of one-way delays given in ns (sorts them), in ms.
inline std::string
DelayJson(std::vector<int64_t>& ns)
{
    std::sort(ns.begin(), ns.end());
    double sum = 0;
    for (int64_t d : ns)
    {
        sum += static_cast<double>(d);
    }
    std::ostringstream js;
    js << std::setprecision(10) << "{\"count\":" << ns.size()
       << ",\"mean\":" << (ns.empty() ? 0.0 : sum / static_cast<double>(ns.size()) * 1e-6)
       << ",\"p50\":" << QuantileMs(ns, 0.5) << ",\"p95\":" << QuantileMs(ns, 0.95)
       << ",\"max\":" << (ns.empty() ? 0.0 : static_cast<double>(ns.back()) * 1e-6) << "}";
    return js.str();
}

// The most frequent transport block of a (TBS bytes, MCS) -> count tally (zeros when empty).
struct TransportBlock
{
    uint16_t bytes = 0;
    unsigned mcs = 0;
    uint64_t count = 0;
};

inline TransportBlock
MostFrequent(const std::map<std::pair<uint16_t, uint8_t>, uint64_t>& tally)
{
    auto mode =
        std::max_element(tally.begin(), tally.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
    if (mode == tally.end())
    {
        return {};
    }
    return {mode->first.first, mode->first.second, mode->second};
}

} // namespace lena
