// The SimGrid platform and run for sim.h. C++ only because SimGrid builds
// platforms programmatically through its S4U API.
//
// Platform: one star zone. Every flow gets its own sender host whose "up"
// route is the flow's link list (torus links, then the gateway exit link);
// receivers have empty routes. Links are shared between the routes that
// cross them, which is all the contention the model needs; the star zone
// stores one route per host instead of one per host pair.
#include <simgrid/s4u.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "sim.h"

namespace sg4 = simgrid::s4u;

namespace {

// Receivers do kServiceSpeed units of work per second and a request costs
// msg_cost x kServiceSpeed units: large enough amounts that the solver's
// absolute precision (maxmin/precision, 1e-5) is negligible.
constexpr double kServiceSpeed = 1e9;

void flow_actor(const sim_spec* s, size_t f, sg4::Host* from, sg4::Host* to)
{
  int n              = s->msgs[f];
  auto bytes         = static_cast<uint64_t>(s->msg_bytes[f] + 0.5);
  bool has_route     = s->route_off[f + 1] > s->route_off[f];
  std::vector<sg4::ExecPtr> service;
  auto serve = [&]() {
    if (s->msg_cost > 0)
      service.push_back(sg4::Exec::init()->set_flops_amount(s->msg_cost * kServiceSpeed)->set_host(to)->start());
  };
  if (has_route && bytes > 0) {
    std::vector<sg4::CommPtr> comms;
    comms.reserve(n);
    for (int k = 0; k < n; k++)
      comms.push_back(sg4::Comm::sendto_async(from, to, bytes));
    while (not comms.empty()) {
      ssize_t i = sg4::Comm::wait_any(comms);
      comms.erase(comms.begin() + i);
      serve();
    }
  } else {
    for (int k = 0; k < n; k++)
      serve(); // inside a node: no link, only the receiver's work
  }
  for (auto const& e : service)
    e->wait();
}

} // namespace

static int run(const sim_spec* s, double* t_sim)
{
  int argc           = 2;
  char name[]        = "ferry-topo";
  char quiet[]       = "--log=root.thres:critical"; // no configuration chatter on stderr
  char* argv[]       = {name, quiet, nullptr};
  sg4::Engine e(&argc, argv);
  // Max-min sharing without TCP corrections, so that simple cases have a
  // closed form: no bandwidth/latency factors, no RTT weighting, no
  // window bound, no reverse (ACK) traffic.
  sg4::Engine::set_config("network/model:CM02");
  sg4::Engine::set_config("network/crosstraffic:0");
  sg4::Engine::set_config("network/TCP-gamma:0");
  sg4::Engine::set_config("network/weight-S:0");
  sg4::Engine::set_config("network/latency-factor:1");
  sg4::Engine::set_config("network/bandwidth-factor:1");
  sg4::Engine::set_config("contexts/stack-size:64");

  auto* zone = sg4::create_star_zone("ferry");
  // CM02 weighs a flow's share by its route's latency (TCP's RTT
  // unfairness): flows with more hops would get less. Shared links
  // therefore have no latency, and each flow gets a private link, never a
  // bottleneck, with the longest route's latency: equal weights (plain
  // max-min), and every message pays the latency the floor adds.
  std::vector<sg4::Link*> links(s->nlinks);
  for (int l = 0; l < s->nlinks; l++)
    links[l] = zone->create_link("l" + std::to_string(l), s->link_bw[l])->set_latency(0)->seal();
  double lat = std::max(1e-12, s->latency);
  std::vector<sg4::Host*> sinks(s->nsinks);
  for (int k = 0; k < s->nsinks; k++)
    sinks[k] = zone->create_host("r" + std::to_string(k), kServiceSpeed)->seal();
  std::vector<sg4::Host*> senders(s->nflows);
  for (size_t f = 0; f < s->nflows; f++) {
    senders[f] = zone->create_host("f" + std::to_string(f), 1e9)->seal();
    std::vector<sg4::LinkInRoute> up;
    up.emplace_back(zone->create_link("p" + std::to_string(f), 1e18)->set_latency(lat)->seal());
    for (size_t q = s->route_off[f]; q < s->route_off[f + 1]; q++)
      up.emplace_back(links[s->route[q]]);
    zone->add_route(senders[f]->get_netpoint(), nullptr, nullptr, nullptr, up, false);
  }
  zone->seal();
  for (size_t f = 0; f < s->nflows; f++) {
    sg4::Host* from = senders[f];
    sg4::Host* to   = sinks[s->sink[f]];
    sg4::Actor::create("a" + std::to_string(f), from, [s, f, from, to]() { flow_actor(s, f, from, to); });
  }
  e.run();
  *t_sim = sg4::Engine::get_clock();
  return 0;
}

extern "C" int sim_engine_run(const sim_spec* s, double* t_sim)
{
  try {
    return run(s, t_sim);
  } catch (const std::exception& ex) {
    fprintf(stderr, "ferry-topo: simgrid: %s\n", ex.what());
    return -1;
  }
}

