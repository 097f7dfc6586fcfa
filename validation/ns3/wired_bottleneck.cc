// cellaqm validation: the wired-bottleneck scenario in ns-3.
//
//   server --core (rate_core, core_delay)--> router --[queue disc]--bottleneck (rate, bn_delay)--> client
//          <--core (rate_core)-------------         <------- reverse direction (up_rate) --------
//
// Written for cellaqm (not derived from an ns-3 example). The queue disc on the
// router's bottleneck device is the buffer: the device's own queue is cut to one
// packet (the slot the queue disc hands packets into) and, to keep the total
// waiting room equal to cellaqm's `buffer`, the queue disc's byte limit is the
// buffer minus that one-packet slot (--devslot_bytes, default one 1500-B packet);
// FQ-CoDel, which ns-3 limits in packets only, gets --buffer_packets minus one.
// Every other device has a large device queue and no queue disc (cellaqm's core
// and uplink have no buffer limit).
//
// The client opens each connection (SYN towards the server) as in cellaqm; the
// server, on accepting it, writes data without end (bulk) or `file_bytes` then
// closes. Prints one JSON line: goodput, one-way IP delay (server IP layer ->
// client IP layer) of every downlink data packet, queue-disc drops by reason,
// RTOs, fast retransmits, wall seconds.

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>
#include <vector>

using namespace ns3;

namespace
{

// ---------------------------------------------------------------- counters
uint64_t g_rtos = 0;
uint64_t g_fastRetransmits = 0;
std::vector<uint64_t> g_delaysNs; // one per downlink data packet reaching the client's IP layer
uint64_t g_rxBytes = 0;           // application bytes read by the clients
uint64_t g_bnTxBytes = 0;         // bytes (incl. PPP header) the bottleneck device transmitted
uint64_t g_bnTxPackets = 0;
uint64_t g_devDrops = 0; // drops in device queues (should stay 0)

} // namespace

// ---------------------------------------------------------------- congestion control that counts
// ns-3's TcpNewReno or TcpCubic, unchanged, plus two counters: every retransmission
// timeout calls CwndEvent(CA_EVENT_LOSS) (TcpSocketBase::ReTxTimeout), every fast
// retransmit moves the socket to CA_RECOVERY.
namespace ns3
{
template <typename Base>
class Counting : public Base
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::Counting" + Base::GetTypeId().GetName().substr(5))
                                .template SetParent<Base>()
                                .SetGroupName("Internet")
                                .template AddConstructor<Counting<Base>>();
        return tid;
    }

    Counting() = default;

    Counting(const Counting& sock) = default;

    std::string GetName() const override
    {
        return "Counting" + Base::GetName();
    }

    void CwndEvent(Ptr<TcpSocketState> tcb, const TcpSocketState::TcpCAEvent_t event) override
    {
        if (event == TcpSocketState::CA_EVENT_LOSS)
        {
            ++g_rtos;
        }
        Base::CwndEvent(tcb, event);
    }

    /// Whether a loss halves FlightSize (RFC 5681 (4), RFC 6675 (4.2)) instead of what
    /// TcpSocketBase passes: its bytes in flight, RFC 6675's pipe, which with SACK leaves
    /// out the SACKed and the lost segments (set before the sockets exist).
    static bool ssthreshFromFlightSize;

    uint32_t GetSsThresh(Ptr<const TcpSocketState> tcb, uint32_t bytesInFlight) override
    {
        if (ssthreshFromFlightSize)
        {
            // FlightSize: sent and not cumulatively acknowledged (RFC 5681 §2). TcpSocketBase
            // records the ACK being processed in m_lastAckedSeq before it enters recovery,
            // and a timeout comes after the last ACK processed.
            bytesInFlight = tcb->m_highTxMark.Get() - tcb->m_lastAckedSeq;
        }
        return Base::GetSsThresh(tcb, bytesInFlight);
    }

    void CongestionStateSet(Ptr<TcpSocketState> tcb,
                            const TcpSocketState::TcpCongState_t newState) override
    {
        if (newState == TcpSocketState::CA_RECOVERY &&
            tcb->m_congState != TcpSocketState::CA_RECOVERY)
        {
            ++g_fastRetransmits;
        }
        Base::CongestionStateSet(tcb, newState);
    }

    Ptr<TcpCongestionOps> Fork() override
    {
        return CopyObject<Counting<Base>>(this);
    }
};

template <typename Base>
bool Counting<Base>::ssthreshFromFlightSize = false;

using CountingNewReno = Counting<TcpNewReno>;
using CountingCubic = Counting<TcpCubic>;
NS_OBJECT_ENSURE_REGISTERED(CountingNewReno);
NS_OBJECT_ENSURE_REGISTERED(CountingCubic);

// ---------------------------------------------------------------- PRR, stated here (investigations only)
// Proportional Rate Reduction (RFC 6937) written for this program, to test one rule of
// ns-3's TcpPrrRecovery at decision level (docs/validation.md §7): with `dupAckSegment`
// every duplicate ACK adds one SMSS to DeliveredData, as the wheel's TcpPrrRecovery does
// even with SACK, where the bytes it is given already count the SACKed segment; without
// it DeliveredData is those bytes alone (RFC 6937 §3: the SMSS estimate is for a
// connection without SACK). Everything else follows the wheel's class as its header
// and behaviour show: RecoverFS = bytes in flight at the start, the proportional part
// while pipe > ssthresh, else the conservative bound (one SMSS more once a
// retransmission is cumulatively acknowledged), and one segment forced on entry.
// `--recovery=own_prr` must give the wheel's results bit for bit (the control).
class StatedPrr : public TcpClassicRecovery
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::StatedPrr")
                                .SetParent<TcpClassicRecovery>()
                                .SetGroupName("Internet")
                                .AddConstructor<StatedPrr>();
        return tid;
    }

    /// Whether a duplicate ACK adds one SMSS to DeliveredData (set before the sockets exist).
    static bool dupAckSegment;
    /// Whether RecoverFS is FlightSize at the start of recovery (RFC 6937 §3: snd.nxt −
    /// snd.una) instead of the wheel's bytes in flight, RFC 6675's pipe (set before the
    /// sockets exist).
    static bool recoverFsFlightSize;

    std::string GetName() const override
    {
        return "StatedPrr";
    }

    void EnterRecovery(Ptr<TcpSocketState> tcb, uint32_t, uint32_t unAckDataCount, uint32_t deliveredBytes) override
    {
        m_out = 0;
        m_delivered = 0;
        m_recoverFs = recoverFsFlightSize ? unAckDataCount : tcb->m_bytesInFlight.Get();
        DoRecovery(tcb, deliveredBytes, true);
    }

    void DoRecovery(Ptr<TcpSocketState> tcb, uint32_t deliveredBytes, bool isDupAck) override
    {
        if (dupAckSegment && isDupAck && m_delivered < m_recoverFs)
        {
            deliveredBytes += tcb->m_segmentSize;
        }
        if (deliveredBytes == 0)
        {
            return;
        }
        m_delivered += deliveredBytes;
        const int64_t pipe = tcb->m_bytesInFlight;
        const int64_t ssthresh = tcb->m_ssThresh;
        int64_t sndcnt;
        if (pipe > ssthresh)
        {
            // RFC 6937: sndcnt = CEIL(prr_delivered * ssthresh / RecoverFS) - prr_out
            sndcnt = static_cast<int64_t>(std::ceil(static_cast<double>(m_delivered) * ssthresh / m_recoverFs)) -
                     static_cast<int64_t>(m_out);
        }
        else
        {
            int64_t limit = std::max<int64_t>(static_cast<int64_t>(m_delivered) - m_out, deliveredBytes);
            if (tcb->m_isRetransDataAcked)
            {
                limit += tcb->m_segmentSize;
            }
            sndcnt = std::min(limit, ssthresh - pipe);
        }
        sndcnt = std::max<int64_t>(sndcnt, m_out > 0 ? 0 : tcb->m_segmentSize);
        tcb->m_cWnd = static_cast<uint32_t>(pipe + sndcnt);
        tcb->m_cWndInfl = tcb->m_cWnd;
    }

    void ExitRecovery(Ptr<TcpSocketState> tcb) override
    {
        tcb->m_cWndInfl = tcb->m_cWnd;
    }

    void UpdateBytesSent(uint32_t bytesSent) override
    {
        m_out += bytesSent;
    }

    Ptr<TcpRecoveryOps> Fork() override
    {
        return CopyObject<StatedPrr>(this);
    }

  private:
    uint32_t m_delivered{0}; // prr_delivered
    uint32_t m_out{0};       // prr_out
    uint32_t m_recoverFs{0}; // RecoverFS
};

bool StatedPrr::dupAckSegment = true;
bool StatedPrr::recoverFsFlightSize = false;
NS_OBJECT_ENSURE_REGISTERED(StatedPrr);

// ---------------------------------------------------------------- sending before recovery, stated here (investigations only)
// With SACK, TcpSocketBase sends whatever cwnd - pipe allows in every congestion state, pipe
// (its BytesInFlight) leaving out the SACKed segments; so between the first duplicate ACK and
// fast retransmit (CA_DISORDER) every duplicate ACK that SACKs a segment lets a new one out:
// RFC 6675 §5 (3), the SACK form of limited transmit, which its LimitedTransmit attribute does
// not switch off (that attribute acts without SACK only). With `withoutLimitedTransmit` this
// socket sends in CA_DISORDER only what cwnd allows above SND.UNA (FlightSize, SACKed data
// included), as a sender without limited transmit does (RFC 5681 §3.2 without its step 1
// option); every other state is TcpSocketBase's.
class StatedSocket : public TcpSocketBase
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::StatedSocket")
                                .SetParent<TcpSocketBase>()
                                .SetGroupName("Internet")
                                .AddConstructor<StatedSocket>();
        return tid;
    }

    /// Set before the sockets exist.
    static bool withoutLimitedTransmit;

    StatedSocket() = default;

    StatedSocket(const StatedSocket& sock) = default;

  protected:
    uint32_t AvailableWindow() const override
    {
        if (!withoutLimitedTransmit || !m_sackEnabled || m_tcb->m_congState != TcpSocketState::CA_DISORDER)
        {
            return TcpSocketBase::AvailableWindow();
        }
        uint32_t flightSize = UnAckDataCount();
        uint32_t window = Window();
        return window > flightSize ? window - flightSize : 0;
    }

    Ptr<TcpSocketBase> Fork() override
    {
        return CopyObject<StatedSocket>(this);
    }
};

bool StatedSocket::withoutLimitedTransmit = false;
NS_OBJECT_ENSURE_REGISTERED(StatedSocket);

// ---------------------------------------------------------------- send-time tag
// Set at the server's IP layer (Ipv4L3Protocol "SendOutgoing"), read at the
// client's IP layer ("LocalDeliver"): the one-way IP delay cellaqm reports.
class SendTimeTag : public Tag
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid =
            TypeId("ns3::CellaqmSendTimeTag").SetParent<Tag>().AddConstructor<SendTimeTag>();
        return tid;
    }

    TypeId GetInstanceTypeId() const override
    {
        return GetTypeId();
    }

    uint32_t GetSerializedSize() const override
    {
        return 8;
    }

    void Serialize(TagBuffer i) const override
    {
        i.WriteU64(m_ns);
    }

    void Deserialize(TagBuffer i) override
    {
        m_ns = i.ReadU64();
    }

    void Print(std::ostream& os) const override
    {
        os << "sent=" << m_ns << "ns";
    }

    uint64_t m_ns{0};
};

NS_OBJECT_ENSURE_REGISTERED(SendTimeTag);
} // namespace ns3

namespace
{

void
OnServerIpSend(const Ipv4Header&, Ptr<const Packet> p, uint32_t)
{
    SendTimeTag tag;
    tag.m_ns = Simulator::Now().GetNanoSeconds();
    p->AddPacketTag(tag);
}

void
OnClientIpDeliver(const Ipv4Header&, Ptr<const Packet> p, uint32_t)
{
    TcpHeader tcp;
    if (p->PeekHeader(tcp) == 0)
    {
        return;
    }
    if (p->GetSize() <= tcp.GetSerializedSize())
    {
        return; // no payload: not a data packet
    }
    SendTimeTag tag;
    if (p->PeekPacketTag(tag))
    {
        g_delaysNs.push_back(Simulator::Now().GetNanoSeconds() - tag.m_ns);
    }
}

void
OnBottleneckTx(Ptr<const Packet> p)
{
    g_bnTxBytes += p->GetSize();
    ++g_bnTxPackets;
}

void
OnDeviceDrop(Ptr<const Packet>)
{
    ++g_devDrops;
}

// ---------------------------------------------------------------- applications
struct ServerFlow
{
    uint64_t limit; // bytes to write (UINT64_MAX: bulk)
    uint64_t written{0};
    bool closed{false};
};

std::map<Ptr<Socket>, ServerFlow> g_serverFlows;
uint64_t g_fileBytes = 0; // 0: bulk
uint32_t g_writeChunk = 1460 * 64;

void
FillSendBuffer(Ptr<Socket> s, uint32_t)
{
    auto it = g_serverFlows.find(s);
    if (it == g_serverFlows.end() || it->second.closed)
    {
        return;
    }
    ServerFlow& f = it->second;
    while (f.written < f.limit)
    {
        uint32_t avail = s->GetTxAvailable();
        if (avail == 0)
        {
            break;
        }
        uint64_t left = f.limit - f.written;
        uint32_t n = static_cast<uint32_t>(std::min<uint64_t>({left, avail, g_writeChunk}));
        int sent = s->Send(Create<Packet>(n));
        if (sent <= 0)
        {
            break;
        }
        f.written += static_cast<uint64_t>(sent);
    }
    if (f.written >= f.limit && !f.closed)
    {
        f.closed = true;
        s->Close();
    }
}

bool g_traceCwnd = false;
int64_t g_traceFlow = -1; // with g_traceCwnd: the one flow traced, and its segments and ACKs (-1: every flow, windows only)

void
TraceCwnd(uint32_t flow, uint32_t, uint32_t now)
{
    std::cerr << Simulator::Now().GetSeconds() << " flow " << flow << " cwnd " << now << "\n";
}

void
TraceState(uint32_t flow, TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t now)
{
    std::cerr << Simulator::Now().GetSeconds() << " flow " << flow << " state " << TcpSocketState::TcpCongStateName[now] << "\n";
}

void
TraceRto(uint32_t flow, Time, Time now)
{
    std::cerr << Simulator::Now().GetSeconds() << " flow " << flow << " rto " << now.GetMilliSeconds() << "\n";
}

void
TraceSsThresh(uint32_t flow, uint32_t, uint32_t now)
{
    std::cerr << Simulator::Now().GetSeconds() << " flow " << flow << " ssthresh " << now << "\n";
}

/// A data segment the server sends: its sequence number and length (the ISN is 0, as in cellaqm).
void
TraceTx(uint32_t flow, Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase>)
{
    if (p->GetSize() > 0)
    {
        std::cerr << Simulator::Now().GetSeconds() << " flow " << flow << " tx "
                  << h.GetSequenceNumber().GetValue() << " " << p->GetSize() << "\n";
    }
}

/// An acknowledgement the server receives: its ACK number and SACK blocks.
void
TraceAck(uint32_t flow, Ptr<const Packet>, const TcpHeader& h, Ptr<const TcpSocketBase>)
{
    std::cerr << Simulator::Now().GetSeconds() << " flow " << flow << " ack " << h.GetAckNumber().GetValue();
    if (auto sack = DynamicCast<const TcpOptionSack>(h.GetOption(TcpOption::SACK)))
    {
        for (const auto& [start, end] : sack->GetSackList())
        {
            std::cerr << " " << start.GetValue() << "-" << end.GetValue();
        }
    }
    std::cerr << "\n";
}

std::map<uint16_t, uint32_t> g_flowOfClientPort; // flows numbered in the order the server accepts them

void
TraceDrop(Ptr<const QueueDiscItem> item)
{
    TcpHeader tcp;
    item->GetPacket()->PeekHeader(tcp);
    auto flow = g_flowOfClientPort.find(tcp.GetDestinationPort());
    std::cerr << Simulator::Now().GetSeconds() << " drop " << tcp.GetSequenceNumber().GetValue() << " flow "
              << (flow == g_flowOfClientPort.end() ? -1 : static_cast<int64_t>(flow->second)) << "\n";
}

void
OnAccept(Ptr<Socket> s, const Address&)
{
    // flows numbered in the order the server accepts them
    auto flow = static_cast<uint32_t>(g_serverFlows.size());
    if (g_traceCwnd && (g_traceFlow < 0 || g_traceFlow == static_cast<int64_t>(flow)))
    {
        Address peer;
        s->GetPeerName(peer);
        g_flowOfClientPort[InetSocketAddress::ConvertFrom(peer).GetPort()] = flow;
        s->TraceConnectWithoutContext("CongestionWindow", MakeBoundCallback(&TraceCwnd, flow));
        s->TraceConnectWithoutContext("SlowStartThreshold", MakeBoundCallback(&TraceSsThresh, flow));
        s->TraceConnectWithoutContext("CongState", MakeBoundCallback(&TraceState, flow));
        s->TraceConnectWithoutContext("RTO", MakeBoundCallback(&TraceRto, flow));
        if (g_traceFlow >= 0)
        {
            // the segment-level trace, for one flow only
            s->TraceConnectWithoutContext("Tx", MakeBoundCallback(&TraceTx, flow));
            s->TraceConnectWithoutContext("Rx", MakeBoundCallback(&TraceAck, flow));
        }
    }
    g_serverFlows[s] = ServerFlow{g_fileBytes > 0 ? g_fileBytes : UINT64_MAX};
    s->SetSendCallback(MakeCallback(&FillSendBuffer));
    FillSendBuffer(s, s->GetTxAvailable());
}

void
OnClientRecv(Ptr<Socket> s)
{
    Ptr<Packet> p;
    while ((p = s->Recv()))
    {
        g_rxBytes += p->GetSize();
    }
}

void
StartClient(Ptr<Node> client, Address server)
{
    Ptr<Socket> s = Socket::CreateSocket(client, TcpSocketFactory::GetTypeId());
    s->Bind();
    s->SetRecvCallback(MakeCallback(&OnClientRecv));
    s->Connect(server);
}

// ---------------------------------------------------------------- output helpers
double
Quantile(const std::vector<uint64_t>& sorted, double q)
{
    // Nearest rank, as cellaqm's histogram: the smallest value with at least ceil(q*n) at or below.
    if (sorted.empty())
    {
        return 0.0;
    }
    auto n = static_cast<double>(sorted.size());
    auto rank = static_cast<size_t>(std::ceil(q * n));
    rank = std::clamp<size_t>(rank, 1, sorted.size());
    return sorted[rank - 1] * 1e-6;
}

std::string
JsonEscape(const std::string& s)
{
    std::string out;
    for (char c : s)
    {
        if (c == '"' || c == '\\')
        {
            out += '\\';
        }
        out += c;
    }
    return out;
}

} // namespace

int
main(int argc, char* argv[])
{
    auto wallStart = std::chrono::steady_clock::now();

    std::string rate = "3.6Mbps";
    std::string upRate = "";
    std::string coreRate = "100Mbps";
    double coreDelayMs = 40;
    double bnDelayMs = 10;
    std::string queue = "tail_drop";
    uint32_t bufferBytes = 100000;
    uint32_t devSlotBytes = 1500;
    uint32_t bufferPackets = 0;
    double redMinBytes = 0;
    double redMaxBytes = 0;
    double redMaxP = 0.1;
    double redWq = 0.002;
    bool redGentle = true;
    double codelTargetMs = 5;
    double codelIntervalMs = 100;
    uint32_t fqFlows = 1024;
    uint32_t fqQuantum = 1500;
    uint32_t fqDropBatch = 64;
    double pieTargetMs = 15;
    double pieTupdateMs = 15;
    double pieMaxBurstMs = 150;
    bool pieRateEstimator = false; // ns-3's default: the sojourn time of the departing packet
    uint32_t flows = 1;
    double startS = 0;
    double spacingS = 0;
    uint64_t fileBytes = 0;
    uint32_t rwnd = 1000000;
    uint32_t mss = 1460;
    uint32_t initialWindow = 3;
    bool sack = true;
    bool delayedAck = false;
    double durationS = 60;
    uint32_t seed = 1;
    std::string ns3Set = "";
    bool traceCwnd = false;
    int64_t traceFlow = -1;
    bool sackLimitedTransmit = true;
    std::string ssthreshFrom = "bytes_in_flight";
    std::string recoverFs = "bytes_in_flight";
    std::string congestion = "newreno";
    std::string recovery = "prr";

    CommandLine cmd(__FILE__);
    cmd.AddValue("congestion", "newreno | cubic (TcpCubic: HyStart off, RFC 9438 constants stated)", congestion);
    cmd.AddValue("rate", "bottleneck rate (server->client)", rate);
    cmd.AddValue("up_rate", "reverse bottleneck rate (client->router); default = rate", upRate);
    cmd.AddValue("core_rate", "core link rate, both directions", coreRate);
    cmd.AddValue("core_delay_ms", "core link one-way delay, ms", coreDelayMs);
    cmd.AddValue("bn_delay_ms", "bottleneck link one-way delay (both directions), ms", bnDelayMs);
    cmd.AddValue("queue", "tail_drop | red | codel | pie | fq_codel", queue);
    cmd.AddValue("buffer", "buffer, bytes (queue disc limit + device slot)", bufferBytes);
    cmd.AddValue("devslot_bytes", "bytes of the one-packet device queue, taken off the disc limit", devSlotBytes);
    cmd.AddValue("buffer_packets", "fq_codel: buffer, packets (queue disc limit + the one-packet device slot)", bufferPackets);
    cmd.AddValue("fq_flows", "fq_codel: flow queues", fqFlows);
    cmd.AddValue("fq_quantum", "fq_codel: DRR quantum, bytes", fqQuantum);
    cmd.AddValue("fq_drop_batch", "fq_codel: most packets one overflow drops from the fattest queue", fqDropBatch);
    cmd.AddValue("red_min", "RED min threshold, bytes", redMinBytes);
    cmd.AddValue("red_max", "RED max threshold, bytes", redMaxBytes);
    cmd.AddValue("red_max_p", "RED max_p", redMaxP);
    cmd.AddValue("red_wq", "RED queue weight", redWq);
    cmd.AddValue("red_gentle", "gentle RED", redGentle);
    cmd.AddValue("codel_target_ms", "CoDel target", codelTargetMs);
    cmd.AddValue("codel_interval_ms", "CoDel interval", codelIntervalMs);
    cmd.AddValue("pie_target_ms", "PIE target delay", pieTargetMs);
    cmd.AddValue("pie_tupdate_ms", "PIE update interval", pieTupdateMs);
    cmd.AddValue("pie_max_burst_ms", "PIE max burst allowance", pieMaxBurstMs);
    cmd.AddValue("pie_rate_estimator", "PIE: queue delay from the departure-rate estimate (true) or timestamps (false)", pieRateEstimator);
    cmd.AddValue("flows", "parallel TCP connections", flows);
    cmd.AddValue("start_s", "first connection start, s", startS);
    cmd.AddValue("spacing_s", "time between connection starts, s", spacingS);
    cmd.AddValue("file_bytes", "bytes per flow (0 = bulk)", fileBytes);
    cmd.AddValue("rwnd", "advertised receive window, bytes", rwnd);
    cmd.AddValue("mss", "segment payload, bytes", mss);
    cmd.AddValue("iw", "initial window, segments", initialWindow);
    cmd.AddValue("sack", "SACK on/off", sack);
    cmd.AddValue("delayed_ack", "delayed ACKs (count 2, 200 ms)", delayedAck);
    cmd.AddValue("duration", "simulated seconds", durationS);
    cmd.AddValue("seed", "run number", seed);
    cmd.AddValue("ns3set", "extra Config::SetDefault overrides applied last, 'name=value;name=value' (investigations only)", ns3Set);
    cmd.AddValue("recovery",
                 "prr (the wheel's TcpPrrRecovery) | own_prr (StatedPrr, the same rules: the control) | "
                 "own_prr_rfc (StatedPrr without the SMSS per duplicate ACK when SACK is on); investigations only",
                 recovery);
    cmd.AddValue("ssthresh_from",
                 "bytes_in_flight (ns-3: what a loss halves is RFC 6675's pipe) | flight_size (RFC 5681 (4), "
                 "RFC 6675 (4.2): sent and not cumulatively acknowledged); investigations only",
                 ssthreshFrom);
    cmd.AddValue("recover_fs",
                 "with --recovery=own_prr*: RecoverFS is bytes_in_flight (the wheel's TcpPrrRecovery: pipe) | "
                 "flight_size (RFC 6937 §3: snd.nxt - snd.una); investigations only",
                 recoverFs);
    cmd.AddValue("sack_limited_transmit",
                 "with SACK: send new data on duplicate ACKs before fast retransmit as cwnd - pipe allows "
                 "(true: TcpSocketBase, RFC 6675 §5 (3)) or only what fits in cwnd above SND.UNA (false)",
                 sackLimitedTransmit);
    cmd.AddValue("trace_flow", "with --trace_cwnd: trace this flow only, with every data segment it sends and ACK it receives", traceFlow);
    cmd.AddValue("trace_cwnd", "print each flow's cwnd/ssthresh/state changes and the bottleneck's drops to stderr (investigations only)", traceCwnd);
    cmd.Parse(argc, argv);
    if (upRate.empty())
    {
        upRate = rate;
    }
    g_fileBytes = fileBytes;
    g_traceCwnd = traceCwnd;
    g_traceFlow = traceFlow;

    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(seed);

    // ---- TCP, aligned with cellaqm (docs/validation.md lists each alignment)
    if (congestion != "newreno" && congestion != "cubic")
    {
        std::cerr << "--congestion: newreno or cubic, got " << congestion << "\n";
        return 2;
    }
    TypeId congestionType = congestion == "cubic" ? CountingCubic::GetTypeId() : CountingNewReno::GetTypeId();
    Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(congestionType));
    // CUBIC (RFC 9438) as cellaqm's cubic.rs: standard slow start (cellaqm has no HyStart;
    // ns-3's default is on), beta 0.7, C 0.4, fast convergence and the Reno-friendly
    // region (TcpFriendliness) on, all stated although they are ns-3's defaults.
    Config::SetDefault("ns3::TcpCubic::HyStart", BooleanValue(false));
    Config::SetDefault("ns3::TcpCubic::Beta", DoubleValue(0.7));
    Config::SetDefault("ns3::TcpCubic::C", DoubleValue(0.4));
    Config::SetDefault("ns3::TcpCubic::FastConvergence", BooleanValue(true));
    Config::SetDefault("ns3::TcpCubic::TcpFriendliness", BooleanValue(true));
    // ns-3's default recovery, PRR (RFC 6937): its TcpClassicRecovery (RFC 5681 inflation) without
    // SACK over-sends during recovery (see docs/validation.md), so the default is kept.
    if (recovery != "prr" && recovery != "own_prr" && recovery != "own_prr_rfc")
    {
        std::cerr << "--recovery: prr, own_prr or own_prr_rfc, got " << recovery << "\n";
        return 2;
    }
    StatedPrr::dupAckSegment = !(recovery == "own_prr_rfc" && sack);
    if ((ssthreshFrom != "bytes_in_flight" && ssthreshFrom != "flight_size") ||
        (recoverFs != "bytes_in_flight" && recoverFs != "flight_size") ||
        (recoverFs == "flight_size" && recovery == "prr"))
    {
        std::cerr << "--ssthresh_from and --recover_fs: bytes_in_flight or flight_size "
                     "(--recover_fs=flight_size needs --recovery=own_prr or own_prr_rfc)\n";
        return 2;
    }
    CountingNewReno::ssthreshFromFlightSize = CountingCubic::ssthreshFromFlightSize = ssthreshFrom == "flight_size";
    StatedPrr::recoverFsFlightSize = recoverFs == "flight_size";
    TypeId recoveryType = recovery == "prr" ? TcpPrrRecovery::GetTypeId() : StatedPrr::GetTypeId();
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType", TypeIdValue(recoveryType));
    StatedSocket::withoutLimitedTransmit = !sackLimitedTransmit;
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(mss));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(initialWindow));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(delayedAck ? 2 : 1));
    Config::SetDefault("ns3::TcpSocket::DelAckTimeout", TimeValue(MilliSeconds(200)));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(rwnd));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(std::max<uint32_t>(4 * rwnd, 1 << 20)));
    Config::SetDefault("ns3::TcpSocket::ConnTimeout", TimeValue(Seconds(1)));
    Config::SetDefault("ns3::TcpSocket::ConnCount", UintegerValue(1000));
    Config::SetDefault("ns3::TcpSocket::DataRetries", UintegerValue(1000));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(MilliSeconds(200)));
    Config::SetDefault("ns3::TcpSocketBase::ClockGranularity", TimeValue(NanoSeconds(1)));
    Config::SetDefault("ns3::RttEstimator::InitialEstimation", TimeValue(Seconds(1)));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(sack));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::WindowScaling", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocketBase::LimitedTransmit", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::ReTxThreshold", UintegerValue(3));

    // CoDel's MAXPACKET guard (RFC 8289 §4.2): no drop while at most one full packet
    // (mss + 40 B) is queued, `bytes <= MAXPACKET` in the RFC, Linux and cellaqm. ns-3's
    // CoDelQueueDisc keeps a packet while `bytes < MinBytes`, so MinBytes is one more.
    // FQ-CoDel's flow queues are CoDelQueueDiscs made with the defaults, hence the
    // default too (--ns3set may override it).
    uint32_t codelMinBytes = mss + 40 + 1;
    Config::SetDefault("ns3::CoDelQueueDisc::MinBytes", UintegerValue(codelMinBytes));

    for (std::stringstream ss(ns3Set); ss.good();)
    {
        std::string item;
        std::getline(ss, item, ';');
        auto eq = item.find('=');
        if (eq != std::string::npos)
        {
            Config::SetDefault(item.substr(0, eq), StringValue(item.substr(eq + 1)));
        }
    }

    // ---- topology
    NodeContainer nodes;
    nodes.Create(3);
    Ptr<Node> server = nodes.Get(0);
    Ptr<Node> router = nodes.Get(1);
    Ptr<Node> client = nodes.Get(2);

    PointToPointHelper coreLink;
    coreLink.SetDeviceAttribute("DataRate", StringValue(coreRate));
    coreLink.SetChannelAttribute("Delay", TimeValue(MicroSeconds(std::llround(coreDelayMs * 1000))));
    coreLink.SetQueue("ns3::DropTailQueue", "MaxSize", StringValue("1000000p"));
    NetDeviceContainer coreDevs = coreLink.Install(server, router);

    PointToPointHelper bnLink;
    bnLink.SetChannelAttribute("Delay", TimeValue(MicroSeconds(std::llround(bnDelayMs * 1000))));
    bnLink.SetQueue("ns3::DropTailQueue", "MaxSize", StringValue("1000000p"));
    NetDeviceContainer bnDevs = bnLink.Install(router, client);
    Ptr<PointToPointNetDevice> bnDown = DynamicCast<PointToPointNetDevice>(bnDevs.Get(0));
    Ptr<PointToPointNetDevice> bnUp = DynamicCast<PointToPointNetDevice>(bnDevs.Get(1));
    bnDown->SetDataRate(DataRate(rate));
    bnUp->SetDataRate(DataRate(upRate));
    // The queue disc is the buffer: the device keeps a single packet waiting.
    bnDown->GetQueue()->SetMaxSize(QueueSize("1p"));

    InternetStackHelper stack;
    stack.Install(nodes);
    Ipv4AddressHelper addr;
    addr.SetBase("10.1.1.0", "255.255.255.0");
    Ipv4InterfaceContainer coreIfs = addr.Assign(coreDevs);
    addr.SetBase("10.1.2.0", "255.255.255.0");
    Ipv4InterfaceContainer bnIfs = addr.Assign(bnDevs);
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    // No queue disc anywhere but the bottleneck (Assign installs a default one).
    TrafficControlHelper none;
    none.Uninstall(coreDevs);
    none.Uninstall(bnDevs);

    uint32_t discBytes = bufferBytes > devSlotBytes ? bufferBytes - devSlotBytes : 1;
    std::string discLimit = std::to_string(discBytes) + "B";
    TrafficControlHelper tch;
    if (queue == "tail_drop")
    {
        tch.SetRootQueueDisc("ns3::FifoQueueDisc", "MaxSize", StringValue(discLimit));
    }
    else if (queue == "red")
    {
        if (redMinBytes <= 0 || redMaxBytes <= 0)
        {
            std::cerr << "red needs --red_min and --red_max" << std::endl;
            return 2;
        }
        tch.SetRootQueueDisc("ns3::RedQueueDisc",
                             "MaxSize", StringValue(discLimit),
                             "MinTh", DoubleValue(redMinBytes),
                             "MaxTh", DoubleValue(redMaxBytes),
                             "LInterm", DoubleValue(1.0 / redMaxP),
                             "QW", DoubleValue(redWq),
                             "Gentle", BooleanValue(redGentle),
                             "Wait", BooleanValue(false),
                             "MeanPktSize", UintegerValue(mss + 40),
                             "LinkBandwidth", DataRateValue(DataRate(rate)),
                             "LinkDelay", TimeValue(MicroSeconds(std::llround(bnDelayMs * 1000))));
    }
    else if (queue == "codel")
    {
        tch.SetRootQueueDisc("ns3::CoDelQueueDisc",
                             "MaxSize", StringValue(discLimit),
                             "Target", TimeValue(MicroSeconds(std::llround(codelTargetMs * 1000))),
                             "Interval", TimeValue(MicroSeconds(std::llround(codelIntervalMs * 1000))),
                             "MinBytes", UintegerValue(codelMinBytes));
    }
    else if (queue == "pie")
    {
        // Queue delay from the departing packet's timestamp (ns-3's default; RFC 8033
        // Appendix A): at a fixed link rate it lags cellaqm's backlog·8/rate by one
        // sojourn, where the §5.2 departure-rate estimator (`--pie_rate_estimator=true`)
        // needs 16 kB of departures per measurement (2 s at 64 kb/s).
        tch.SetRootQueueDisc("ns3::PieQueueDisc",
                             "MaxSize", StringValue(discLimit),
                             "QueueDelayReference", TimeValue(MicroSeconds(std::llround(pieTargetMs * 1000))),
                             "Tupdate", TimeValue(MicroSeconds(std::llround(pieTupdateMs * 1000))),
                             "MaxBurstAllowance", TimeValue(MicroSeconds(std::llround(pieMaxBurstMs * 1000))),
                             "A", DoubleValue(0.125),
                             "B", DoubleValue(1.25),
                             "UseDerandomization", BooleanValue(false),
                             "UseCapDropAdjustment", BooleanValue(true),
                             "UseDequeueRateEstimator", BooleanValue(pieRateEstimator),
                             "MeanPktSize", UintegerValue(mss + 40));
    }
    else if (queue == "fq_codel")
    {
        // FqCoDelQueueDisc takes a packet limit only (a byte MaxSize makes every
        // arrival an overlimit drop): --buffer_packets, less the device slot.
        if (bufferPackets < 2)
        {
            std::cerr << "fq_codel needs --buffer_packets (at least 2: the disc limit is one less)" << std::endl;
            return 2;
        }
        tch.SetRootQueueDisc("ns3::FqCoDelQueueDisc",
                             "MaxSize", StringValue(std::to_string(bufferPackets - 1) + "p"),
                             "Flows", UintegerValue(fqFlows),
                             "UseEcn", BooleanValue(false),
                             "DropBatchSize", UintegerValue(fqDropBatch),
                             // string attributes (FqCoDel passes them on to each flow's CoDel)
                             "Target", StringValue(std::to_string(std::llround(codelTargetMs * 1000)) + "us"),
                             "Interval", StringValue(std::to_string(std::llround(codelIntervalMs * 1000)) + "us"));
    }
    else
    {
        std::cerr << "unknown --queue " << queue << std::endl;
        return 2;
    }
    QueueDiscContainer discs = tch.Install(bnDevs.Get(0));
    Ptr<QueueDisc> disc = discs.Get(0);
    if (auto fq = DynamicCast<FqCoDelQueueDisc>(disc))
    {
        fq->SetQuantum(fqQuantum); // not an attribute; 0 (unset) would take the device MTU
    }

    // ---- traces
    server->GetObject<Ipv4L3Protocol>()->TraceConnectWithoutContext("SendOutgoing",
                                                                     MakeCallback(&OnServerIpSend));
    client->GetObject<Ipv4L3Protocol>()->TraceConnectWithoutContext("LocalDeliver",
                                                                     MakeCallback(&OnClientIpDeliver));
    bnDown->TraceConnectWithoutContext("PhyTxEnd", MakeCallback(&OnBottleneckTx));
    if (g_traceCwnd)
    {
        disc->TraceConnectWithoutContext("Drop", MakeCallback(&TraceDrop));
    }
    for (uint32_t i = 0; i < 2; ++i)
    {
        DynamicCast<PointToPointNetDevice>(coreDevs.Get(i))->GetQueue()->TraceConnectWithoutContext(
            "Drop", MakeCallback(&OnDeviceDrop));
        DynamicCast<PointToPointNetDevice>(bnDevs.Get(i))->GetQueue()->TraceConnectWithoutContext(
            "Drop", MakeCallback(&OnDeviceDrop));
    }

    // ---- applications
    uint16_t port = 5000;
    Ptr<Socket> listener;
    if (StatedSocket::withoutLimitedTransmit)
    {
        // The steps of TcpL4Protocol::CreateSocket, with this program's socket (its forks, the
        // accepted connections, are of the same class).
        auto stated = CreateObject<StatedSocket>();
        stated->SetNode(server);
        stated->SetTcp(server->GetObject<TcpL4Protocol>());
        stated->SetRtt(CreateObject<RttMeanDeviation>());
        ObjectFactory factory(congestionType.GetName());
        stated->SetCongestionControlAlgorithm(factory.Create<TcpCongestionOps>());
        factory.SetTypeId(recoveryType);
        stated->SetRecoveryAlgorithm(factory.Create<TcpRecoveryOps>());
        listener = stated;
    }
    else
    {
        listener = Socket::CreateSocket(server, TcpSocketFactory::GetTypeId());
    }
    listener->Bind(InetSocketAddress(Ipv4Address::GetAny(), port));
    listener->Listen();
    listener->SetAcceptCallback(MakeNullCallback<bool, Ptr<Socket>, const Address&>(),
                                MakeCallback(&OnAccept));
    Address serverAddr = InetSocketAddress(coreIfs.GetAddress(0), port);
    for (uint32_t i = 0; i < flows; ++i)
    {
        Simulator::Schedule(Seconds(startS + i * spacingS), &StartClient, client, serverAddr);
    }

    Simulator::Stop(Seconds(durationS));
    Simulator::Run();

    // ---- report
    QueueDisc::Stats st = disc->GetStats();
    std::size_t discClasses = disc->GetNQueueDiscClasses(); // FQ-CoDel: flow queues in use (hash buckets hit)
    std::sort(g_delaysNs.begin(), g_delaysNs.end());
    double sum = 0;
    for (uint64_t d : g_delaysNs)
    {
        sum += static_cast<double>(d);
    }
    double mean = g_delaysNs.empty() ? 0.0 : sum / g_delaysNs.size() * 1e-6;
    double maxMs = g_delaysNs.empty() ? 0.0 : g_delaysNs.back() * 1e-6;

    Simulator::Destroy();
    double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart).count();

    std::ostringstream js;
    js << std::setprecision(10);
    js << "{\"simulator\":\"ns-3.44\",\"seed\":" << seed << ",\"duration_s\":" << durationS
       << ",\"flows\":" << flows << ",\"delivered_bytes\":" << g_rxBytes
       << ",\"goodput_bps\":" << g_rxBytes * 8.0 / durationS << ",\"delay_ms\":{\"count\":"
       << g_delaysNs.size() << ",\"mean\":" << mean << ",\"p50\":" << Quantile(g_delaysNs, 0.5)
       << ",\"p95\":" << Quantile(g_delaysNs, 0.95) << ",\"p99\":" << Quantile(g_delaysNs, 0.99)
       << ",\"max\":" << maxMs << "},\"rtos\":" << g_rtos
       << ",\"fast_retransmits\":" << g_fastRetransmits << ",\"drops_total\":"
       << st.nTotalDroppedPackets << ",\"drops\":{";
    bool first = true;
    for (const auto* m : {&st.nDroppedPacketsBeforeEnqueue, &st.nDroppedPacketsAfterDequeue})
    {
        for (const auto& [reason, n] : *m)
        {
            js << (first ? "" : ",") << "\"" << JsonEscape(reason) << "\":" << n;
            first = false;
        }
    }
    js << "},\"queue_disc_classes\":" << discClasses << ",\"device_drops\":" << g_devDrops << ",\"bottleneck\":{\"packets_sent\":" << g_bnTxPackets
       << ",\"bytes_sent_with_ppp\":" << g_bnTxBytes
       << ",\"utilisation\":" << g_bnTxBytes * 8.0 / DataRate(rate).GetBitRate() / durationS
       << "},\"wall_s\":" << wall << "}";
    std::cout << js.str() << std::endl;
    return 0;
}
