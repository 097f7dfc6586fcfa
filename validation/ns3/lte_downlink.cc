// cellaqm validation: LTE downlink bulk TCP flows in ns-3's LTE module (LENA).
//
//   remote host --Internet (internet_delay)--> PGW --S5 (0 ms)--> SGW --S1-U (s1u_delay)--> eNodeB
//      --radio (DL: PDSCH, the eNodeB's scheduler; UL: the ACKs)--> UE 1..n
//
// Written for cellaqm (not derived from an ns-3 example): the cross-check of
// `bearer = "lte_downlink"` asked by issue 41. One eNodeB, `ues` UEs all at
// the same fixed distance with no fading, so that every UE's SINR is high and
// constant: the scheduler picks one MCS, and the full-band transport block
// size (TBS) at that MCS is the channel's rate; no block fails (HARQ
// retransmissions are counted to show it). The remote host sends each UE a
// bulk TCP download without end (BulkSend, TCP with SACK) from `start` to
// `start + duration`.
//
// Prints one JSON line: goodput over `duration` (the cell's and each UE's),
// the one-way IP delay (remote host IP -> UE IP) of every data packet, the
// one-way delay of the UEs' ACKs (UE IP -> remote host IP), RTOs and fast
// retransmits (the senders' congestion-state changes), the eNodeB RLC's drops
// (its transmission buffers overflowing), the eNodeB's downlink blocks in steady
// state (count, bytes, the most frequent TBS and MCS, the scheduled bytes
// per TTI), its RLC PDUs (data, and 2-byte STATUS PDUs answering the UEs'
// uplink), the UEs' downlink receptions, errors and HARQ retransmissions,
// their mean reported SINR, and wall seconds.

#include "lena_common.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>
#include <vector>

using namespace ns3;
using namespace lena;

namespace
{

using Key = std::pair<uint32_t, uint32_t>; // (UE address, TCP sequence or ACK number)

// ---------------------------------------------------------------- counters
std::vector<uint64_t> g_rxBytes;  // application bytes each UE's sink read
std::map<Key, int64_t> g_sent;    // data: latest send time at the remote host's IP layer, ns
std::vector<int64_t> g_delaysNs;  // one per data packet reaching a UE's IP layer
std::map<Key, int64_t> g_ackSent; // ACKs: first send time at a UE's IP layer, ns
std::vector<int64_t> g_ackDelaysNs;
uint64_t g_dataPdus = 0;   // the eNodeB's data-bearer RLC PDUs carrying data, in steady state
uint64_t g_statusPdus = 0; // its 2-byte PDUs (AM STATUS PDUs for the UEs' ACKs), in steady state
uint64_t g_blocks = 0;     // downlink blocks to the UEs in steady state
uint64_t g_blockBytes = 0;
std::map<std::pair<uint16_t, uint8_t>, uint64_t> g_tbs; // (TBS bytes, MCS) -> blocks in steady state
std::map<uint64_t, uint64_t> g_ttiBytes;                // TTI index -> bytes scheduled, steady state
uint64_t g_dlReceptions = 0;
uint64_t g_dlErrors = 0;
uint64_t g_dlRetx = 0;
double g_sinrSum = 0;
uint64_t g_sinrCount = 0;
std::vector<uint16_t> g_rntis;

bool
IsData(Ptr<const Packet> p, TcpHeader& tcp)
{
    return p->PeekHeader(tcp) > 0 && p->GetSize() > tcp.GetSerializedSize();
}

// ---------------------------------------------------------------- traces
void
OnRemoteIpSend(const Ipv4Header& ip, Ptr<const Packet> p, uint32_t)
{
    TcpHeader tcp;
    if (IsData(p, tcp))
    {
        g_sent[{ip.GetDestination().Get(), tcp.GetSequenceNumber().GetValue()}] = Simulator::Now().GetNanoSeconds();
    }
}

void
OnUeIpDeliver(const Ipv4Header& ip, Ptr<const Packet> p, uint32_t)
{
    TcpHeader tcp;
    if (!IsData(p, tcp))
    {
        return;
    }
    auto it = g_sent.find({ip.GetDestination().Get(), tcp.GetSequenceNumber().GetValue()});
    if (it != g_sent.end())
    {
        g_delaysNs.push_back(Simulator::Now().GetNanoSeconds() - it->second);
        g_sent.erase(it);
    }
}

void
OnUeIpSend(const Ipv4Header& ip, Ptr<const Packet> p, uint32_t)
{
    TcpHeader tcp;
    if (p->PeekHeader(tcp) > 0 && p->GetSize() == tcp.GetSerializedSize() && (tcp.GetFlags() & TcpHeader::ACK))
    {
        g_ackSent.emplace(Key{ip.GetSource().Get(), tcp.GetAckNumber().GetValue()}, Simulator::Now().GetNanoSeconds());
    }
}

void
OnRemoteIpDeliver(const Ipv4Header& ip, Ptr<const Packet> p, uint32_t)
{
    TcpHeader tcp;
    if (p->PeekHeader(tcp) == 0 || p->GetSize() != tcp.GetSerializedSize())
    {
        return;
    }
    auto it = g_ackSent.find({ip.GetSource().Get(), tcp.GetAckNumber().GetValue()});
    if (it != g_ackSent.end())
    {
        g_ackDelaysNs.push_back(Simulator::Now().GetNanoSeconds() - it->second);
        g_ackSent.erase(it);
    }
}

void
OnSinkRx(std::size_t ue, Ptr<const Packet> p, const Address&)
{
    g_rxBytes[ue] += p->GetSize();
}

void
OnDlScheduling(DlSchedulingCallbackInfo info)
{
    if (!Steady() || std::find(g_rntis.begin(), g_rntis.end(), info.rnti) == g_rntis.end())
    {
        return;
    }
    ++g_blocks;
    g_blockBytes += info.sizeTb1;
    ++g_tbs[{info.sizeTb1, info.mcsTb1}];
    g_ttiBytes[static_cast<uint64_t>(Simulator::Now().GetMilliSeconds())] += info.sizeTb1;
}

void
OnDlPhyReception(PhyReceptionStatParameters r)
{
    if (std::find(g_rntis.begin(), g_rntis.end(), r.m_rnti) == g_rntis.end())
    {
        return;
    }
    ++g_dlReceptions;
    g_dlErrors += r.m_correctness == 0;
    g_dlRetx += r.m_ndi == 0; // a HARQ retransmission carries the same NDI (LENA sets it to 0)
}

void
OnSinr(uint16_t, uint16_t, double, double sinr, uint8_t)
{
    if (Steady())
    {
        g_sinrSum += 10.0 * std::log10(sinr);
        ++g_sinrCount;
    }
}

void
OnRlcTxPdu(uint16_t, uint8_t, uint32_t bytes)
{
    if (!Steady())
    {
        return;
    }
    ++(bytes <= 2 ? g_statusPdus : g_dataPdus);
}

void
OnConnected(uint64_t, uint16_t, uint16_t rnti)
{
    g_rntis.push_back(rnti);
}

void
HookSenders(ApplicationContainer apps)
{
    for (uint32_t i = 0; i < apps.GetN(); ++i)
    {
        DynamicCast<BulkSendApplication>(apps.Get(i))
            ->GetSocket()
            ->TraceConnectWithoutContext("CongState", MakeCallback(&OnCongState));
    }
    // The eNodeB's data radio bearers exist once the UEs are attached (before `start`).
    Config::ConnectWithoutContextFailSafe("/NodeList/*/DeviceList/*/LteEnbRrc/UeMap/*/DataRadioBearerMap/*/LteRlc/TxDrop",
                                          MakeCallback(&OnRlcDrop));
    Config::ConnectWithoutContextFailSafe("/NodeList/*/DeviceList/*/LteEnbRrc/UeMap/*/DataRadioBearerMap/*/LteRlc/TxPDU",
                                          MakeCallback(&OnRlcTxPdu));
}

} // namespace

int
main(int argc, char* argv[])
{
    auto wallStart = std::chrono::steady_clock::now();

    Options o;
    o.prbs = 50;
    o.scheduler = "rr";
    o.rlcBuffer = 300000;
    o.s1uDelayMs = 10;
    o.internetDelayMs = 10;
    o.rwnd = 4000000;
    o.durationS = 20;
    uint32_t nUes = 1;

    CommandLine cmd(__FILE__);
    cmd.AddValue("ues", "UEs, each with its own download", nUes);
    o.Register(cmd, "download");
    cmd.Parse(argc, argv);
    if (!o.Valid())
    {
        return 2;
    }
    if (nUes == 0)
    {
        std::cerr << "--ues: at least 1\n";
        return 2;
    }
    g_steadyFromS = o.startS + o.steadyAfterS;
    g_rxBytes.assign(nUes, 0);

    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(o.seed);

    SetTcpDefaults(o.mss, o.initialWindow, o.rwnd, o.sack);
    SetRlcDefaults(o.rlc, o.rlcBuffer);
    // Enough SRS periodicity for up to 40 UEs (the default, 40, also serves 10).
    Config::SetDefault("ns3::LteEnbRrc::SrsPeriodicity", UintegerValue(nUes > 20 ? 80 : 40));
    SetBandwidth(o.prbs);

    Network net = MakeNetwork(o.scheduler, o.s1uDelayMs, o.internetDelayMs);
    // ---- the cell: every UE at `distance_m`, spread on a circle
    std::vector<Vector> uePositions;
    for (uint32_t i = 0; i < nUes; ++i)
    {
        double a = 2.0 * M_PI * i / nUes;
        uePositions.emplace_back(o.distanceM * std::cos(a), o.distanceM * std::sin(a), 0);
    }
    InstallCell(net, uePositions);
    NodeContainer& ues = net.ues;

    // ---- traces
    Ptr<LteEnbNetDevice> enb = DynamicCast<LteEnbNetDevice>(net.enbDevices.Get(0));
    enb->GetRrc()->TraceConnectWithoutContext("ConnectionEstablished", MakeCallback(&OnConnected));
    enb->GetMac()->TraceConnectWithoutContext("DlScheduling", MakeCallback(&OnDlScheduling));
    Ptr<Ipv4L3Protocol> remoteIp = net.remote->GetObject<Ipv4L3Protocol>();
    remoteIp->TraceConnectWithoutContext("SendOutgoing", MakeCallback(&OnRemoteIpSend));
    remoteIp->TraceConnectWithoutContext("LocalDeliver", MakeCallback(&OnRemoteIpDeliver));
    for (uint32_t i = 0; i < nUes; ++i)
    {
        Ptr<LteUeNetDevice> ue = DynamicCast<LteUeNetDevice>(net.ueDevices.Get(i));
        ue->GetPhy()->GetDlSpectrumPhy()->TraceConnectWithoutContext("DlPhyReception",
                                                                     MakeCallback(&OnDlPhyReception));
        ue->GetPhy()->TraceConnectWithoutContext("ReportCurrentCellRsrpSinr", MakeCallback(&OnSinr));
        Ptr<Ipv4L3Protocol> ip = ues.Get(i)->GetObject<Ipv4L3Protocol>();
        ip->TraceConnectWithoutContext("SendOutgoing", MakeCallback(&OnUeIpSend));
        ip->TraceConnectWithoutContext("LocalDeliver", MakeCallback(&OnUeIpDeliver));
    }

    // ---- the downloads: one bulk flow from the remote host to each UE
    uint16_t port = 5000;
    ApplicationContainer bulkApps;
    for (uint32_t i = 0; i < nUes; ++i)
    {
        PacketSinkHelper sinkHelper("ns3::TcpSocketFactory", InetSocketAddress(Ipv4Address::GetAny(), port));
        ApplicationContainer sink = sinkHelper.Install(ues.Get(i));
        sink.Start(Seconds(0));
        sink.Get(0)->TraceConnectWithoutContext("Rx", MakeBoundCallback(&OnSinkRx, std::size_t{i}));
        BulkSendHelper bulk("ns3::TcpSocketFactory", InetSocketAddress(net.ueInterfaces.GetAddress(i), port));
        bulk.SetAttribute("SendSize", UintegerValue(o.mss));
        bulkApps.Add(bulk.Install(net.remote));
    }
    bulkApps.Start(Seconds(o.startS));
    Simulator::Schedule(Seconds(o.startS) + NanoSeconds(1), &HookSenders, bulkApps);

    Simulator::Stop(Seconds(o.startS + o.durationS));
    Simulator::Run();

    // ---- report
    TransportBlock tb = MostFrequent(g_tbs);
    double steadyTtis = (o.startS + o.durationS - g_steadyFromS) * 1000.0;
    uint64_t total = 0;
    std::ostringstream perUe;
    for (std::size_t i = 0; i < g_rxBytes.size(); ++i)
    {
        total += g_rxBytes[i];
        perUe << (i ? "," : "") << static_cast<double>(g_rxBytes[i]) * 8.0 / o.durationS;
    }

    Simulator::Destroy();
    double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart).count();

    std::ostringstream js;
    js << std::setprecision(10);
    js << "{\"simulator\":\"ns-3.44 LENA\",\"seed\":" << o.seed << ",\"duration_s\":" << o.durationS << ",\"ues\":" << nUes
       << ",\"connected\":" << g_rntis.size() << ",\"rlc\":\"" << o.rlc << "\",\"scheduler\":\"" << o.scheduler
       << "\",\"prbs\":" << o.prbs << ",\"delivered_bytes\":" << total
       << ",\"goodput_bps\":" << static_cast<double>(total) * 8.0 / o.durationS << ",\"ue_goodput_bps\":["
       << perUe.str() << "],\"delay_ms\":" << DelayJson(g_delaysNs) << ",\"ack_delay_ms\":" << DelayJson(g_ackDelaysNs)
       << ",\"rtos\":" << g_rtos << ",\"fast_retransmits\":" << g_fastRetransmits << ",\"rlc_drops\":" << g_rlcDrops
       << ",\"dl\":{\"blocks\":" << g_blocks << ",\"block_bytes\":" << g_blockBytes
       << ",\"ttis_used_share\":" << static_cast<double>(g_ttiBytes.size()) / steadyTtis
       << ",\"bytes_per_tti\":" << static_cast<double>(g_blockBytes) / steadyTtis << ",\"tb_bytes\":" << tb.bytes
       << ",\"mcs\":" << tb.mcs << ",\"tb_share\":"
       << (g_blocks ? static_cast<double>(tb.count) / static_cast<double>(g_blocks) : 0.0)
       << ",\"tb_sizes\":" << g_tbs.size() << ",\"data_pdus\":" << g_dataPdus << ",\"status_pdus\":" << g_statusPdus
       << ",\"receptions\":" << g_dlReceptions << ",\"errors\":" << g_dlErrors << ",\"harq_retx\":" << g_dlRetx
       << ",\"sinr_db\":" << (g_sinrCount ? g_sinrSum / static_cast<double>(g_sinrCount) : 0.0)
       << "},\"wall_s\":" << wall << "}";
    std::cout << js.str() << std::endl;
    return 0;
}
