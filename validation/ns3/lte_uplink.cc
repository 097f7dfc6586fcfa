// cellaqm validation: one LTE uplink bulk TCP flow in ns-3's LTE module (LENA).
//
//   UE --radio (UL: PUSCH, grants from the eNodeB's scheduler; DL: the ACKs)--> eNodeB
//      --S1-U (s1u_delay)--> SGW --S5 (0 ms)--> PGW --Internet (internet_delay)--> remote host
//
// Written for cellaqm (not derived from an ns-3 example): the cross-check of
// `bearer = "lte_uplink"` asked by issue 21. One eNodeB, one UE at a fixed
// short distance with no fading and no uplink power control, so that the SINR
// is high and constant: the scheduler picks one MCS and one transport block
// size (TBS) for the UE's grants, and no block fails (HARQ retransmissions are
// counted to show it). The UE uploads without end (BulkSend, TCP with SACK)
// to a sink at the remote host from `start` to `start + duration`.
//
// Prints one JSON line: goodput at the remote host over `duration`, the
// one-way IP delay (UE IP layer -> remote host IP layer) of every data
// packet, RTOs and fast retransmits (the sender's congestion-state changes),
// the UE's RLC drops (its transmission buffer overflowing), the eNodeB's
// uplink grants (count, bytes, the most frequent TBS and MCS: the radio rate),
// the UE's RLC PDUs in steady state (data PDUs and their bytes, 2-byte STATUS PDUs),
// the eNodeB PHY's uplink receptions and HARQ retransmissions, wall seconds.

#include "lena_common.h"

#include <algorithm>
#include <chrono>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>
#include <vector>

using namespace ns3;
using namespace lena;

namespace
{

// ---------------------------------------------------------------- counters
uint64_t g_rxBytes = 0;             // application bytes the sink read over [start, start + duration]
std::map<uint32_t, int64_t> g_sent; // TCP sequence number -> latest send time at the UE's IP layer, ns
std::vector<int64_t> g_delaysNs;    // one per data packet reaching the remote host's IP layer
uint64_t g_dataPdus = 0;     // the UE's data-bearer RLC PDUs carrying data, in steady state
uint64_t g_dataPduBytes = 0; // their bytes (RLC headers included)
uint64_t g_statusPdus = 0;   // its 2-byte PDUs (AM STATUS PDUs for the downlink ACKs), in steady state
uint16_t g_rnti = 0; // the UE's C-RNTI (UlScheduling reports every RNTI's grants)
uint64_t g_grants = 0;
uint64_t g_grantedBytes = 0;
std::map<std::pair<uint16_t, uint8_t>, uint64_t> g_tbs; // (TBS bytes, MCS) -> grants in steady state
uint64_t g_steadyGrants = 0;
uint64_t g_ulReceptions = 0;
uint64_t g_ulErrors = 0;
uint64_t g_ulRetx = 0;
double g_connectedS = -1;

// ---------------------------------------------------------------- traces
void
OnUeIpSend(const Ipv4Header&, Ptr<const Packet> p, uint32_t)
{
    TcpHeader tcp;
    if (p->PeekHeader(tcp) > 0 && p->GetSize() > tcp.GetSerializedSize())
    {
        g_sent[tcp.GetSequenceNumber().GetValue()] = Simulator::Now().GetNanoSeconds();
    }
}

void
OnRemoteIpDeliver(const Ipv4Header&, Ptr<const Packet> p, uint32_t)
{
    TcpHeader tcp;
    if (p->PeekHeader(tcp) == 0 || p->GetSize() <= tcp.GetSerializedSize())
    {
        return; // no payload: not a data packet
    }
    auto it = g_sent.find(tcp.GetSequenceNumber().GetValue());
    if (it != g_sent.end())
    {
        g_delaysNs.push_back(Simulator::Now().GetNanoSeconds() - it->second);
        g_sent.erase(it);
    }
}

void
OnSinkRx(Ptr<const Packet> p, const Address&)
{
    g_rxBytes += p->GetSize();
}

void
OnUlScheduling(uint32_t, uint32_t, uint16_t rnti, uint8_t mcs, uint16_t tbBytes, uint8_t)
{
    if (rnti != g_rnti)
    {
        return;
    }
    ++g_grants;
    g_grantedBytes += tbBytes;
    if (Steady())
    {
        ++g_steadyGrants;
        ++g_tbs[{tbBytes, mcs}];
    }
}

void
OnUlPhyReception(PhyReceptionStatParameters r)
{
    if (r.m_rnti != g_rnti)
    {
        return;
    }
    ++g_ulReceptions;
    g_ulErrors += r.m_correctness == 0;
    g_ulRetx += r.m_ndi == 0; // a HARQ retransmission carries the same NDI (LENA sets it to 0)
}

void
OnRlcTxPdu(uint16_t, uint8_t, uint32_t bytes)
{
    if (!Steady())
    {
        return;
    }
    if (bytes <= 2)
    {
        ++g_statusPdus;
        return;
    }
    ++g_dataPdus;
    g_dataPduBytes += bytes;
}

void
OnConnected(uint64_t, uint16_t, uint16_t rnti)
{
    g_rnti = rnti;
    g_connectedS = Simulator::Now().GetSeconds();
}

void
HookSender(Ptr<BulkSendApplication> app)
{
    app->GetSocket()->TraceConnectWithoutContext("CongState", MakeCallback(&OnCongState));
    // The UE's data radio bearer exists once the UE is attached (before `start`).
    Config::ConnectWithoutContextFailSafe("/NodeList/*/DeviceList/*/LteUeRrc/DataRadioBearerMap/*/LteRlc/TxDrop",
                                          MakeCallback(&OnRlcDrop));
    Config::ConnectWithoutContextFailSafe("/NodeList/*/DeviceList/*/LteUeRrc/DataRadioBearerMap/*/LteRlc/TxPDU",
                                          MakeCallback(&OnRlcTxPdu));
}

} // namespace

int
main(int argc, char* argv[])
{
    auto wallStart = std::chrono::steady_clock::now();

    Options o;
    o.prbs = 25;
    o.rlcBuffer = 1250000;
    o.s1uDelayMs = 20;
    o.internetDelayMs = 40;
    o.rwnd = 2097000;
    o.durationS = 60;
    double ueTxPowerDbm = 23;

    CommandLine cmd(__FILE__);
    o.Register(cmd, "upload");
    cmd.AddValue("ue_tx_power_dbm", "UE transmit power, dBm (uplink power control off)", ueTxPowerDbm);
    cmd.Parse(argc, argv);
    if (!o.Valid())
    {
        return 2;
    }
    g_steadyFromS = o.startS + o.steadyAfterS;

    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(o.seed);

    SetTcpDefaults(o.mss, o.initialWindow, o.rwnd, o.sack);
    SetRlcDefaults(o.rlc, o.rlcBuffer);
    SetBandwidth(o.prbs);
    Config::SetDefault("ns3::LteUePhy::EnableUplinkPowerControl", BooleanValue(false));
    Config::SetDefault("ns3::LteUePhy::TxPower", DoubleValue(ueTxPowerDbm));

    Network net = MakeNetwork(o.scheduler, o.s1uDelayMs, o.internetDelayMs);
    // ---- the cell: the UE at `distance_m`
    InstallCell(net, {Vector(o.distanceM, 0, 0)});

    // ---- traces
    Ptr<LteEnbNetDevice> enb = DynamicCast<LteEnbNetDevice>(net.enbDevices.Get(0));
    enb->GetRrc()->TraceConnectWithoutContext("ConnectionEstablished", MakeCallback(&OnConnected));
    enb->GetMac()->TraceConnectWithoutContext("UlScheduling", MakeCallback(&OnUlScheduling));
    enb->GetPhy()->GetUlSpectrumPhy()->TraceConnectWithoutContext("UlPhyReception", MakeCallback(&OnUlPhyReception));
    net.ues.Get(0)->GetObject<Ipv4L3Protocol>()->TraceConnectWithoutContext("SendOutgoing", MakeCallback(&OnUeIpSend));
    net.remote->GetObject<Ipv4L3Protocol>()->TraceConnectWithoutContext("LocalDeliver",
                                                                           MakeCallback(&OnRemoteIpDeliver));

    // ---- the upload
    uint16_t port = 5000;
    PacketSinkHelper sinkHelper("ns3::TcpSocketFactory", InetSocketAddress(Ipv4Address::GetAny(), port));
    ApplicationContainer sinkApps = sinkHelper.Install(net.remote);
    sinkApps.Start(Seconds(0));
    sinkApps.Get(0)->TraceConnectWithoutContext("Rx", MakeCallback(&OnSinkRx));
    BulkSendHelper bulk("ns3::TcpSocketFactory", InetSocketAddress(net.remoteAddress, port));
    bulk.SetAttribute("SendSize", UintegerValue(o.mss));
    ApplicationContainer bulkApps = bulk.Install(net.ues.Get(0));
    bulkApps.Start(Seconds(o.startS));
    Simulator::Schedule(Seconds(o.startS) + NanoSeconds(1), &HookSender,
                        DynamicCast<BulkSendApplication>(bulkApps.Get(0)));

    Simulator::Stop(Seconds(o.startS + o.durationS));
    Simulator::Run();

    // ---- report
    TransportBlock tb = MostFrequent(g_tbs);
    double steadyTtis = (o.startS + o.durationS - g_steadyFromS) * 1000.0;

    Simulator::Destroy();
    double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart).count();

    std::ostringstream js;
    js << std::setprecision(10);
    js << "{\"simulator\":\"ns-3.44 LENA\",\"seed\":" << o.seed << ",\"duration_s\":" << o.durationS
       << ",\"rlc\":\"" << o.rlc << "\",\"scheduler\":\"" << o.scheduler << "\",\"prbs\":" << o.prbs
       << ",\"connected_s\":" << g_connectedS << ",\"delivered_bytes\":" << g_rxBytes
       << ",\"goodput_bps\":" << static_cast<double>(g_rxBytes) * 8.0 / o.durationS
       << ",\"delay_ms\":" << DelayJson(g_delaysNs)
       << ",\"rtos\":" << g_rtos << ",\"fast_retransmits\":" << g_fastRetransmits
       << ",\"rlc_drops\":" << g_rlcDrops << ",\"ul\":{\"grants\":" << g_grants
       << ",\"granted_bytes\":" << g_grantedBytes << ",\"steady_grants\":" << g_steadyGrants
       << ",\"steady_tti_share\":" << static_cast<double>(g_steadyGrants) / steadyTtis
       << ",\"tb_bytes\":" << tb.bytes << ",\"mcs\":" << tb.mcs << ",\"tb_share\":"
       << (g_steadyGrants ? static_cast<double>(tb.count) / static_cast<double>(g_steadyGrants) : 0.0)
       << ",\"tb_sizes\":" << g_tbs.size() << ",\"data_pdus\":" << g_dataPdus
       << ",\"data_pdu_bytes\":" << g_dataPduBytes << ",\"status_pdus\":" << g_statusPdus << ",\"receptions\":" << g_ulReceptions
       << ",\"errors\":" << g_ulErrors << ",\"harq_retx\":" << g_ulRetx << "},\"wall_s\":" << wall << "}";
    std::cout << js.str() << std::endl;
    return 0;
}
