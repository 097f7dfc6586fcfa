//! The fixed links of a run and the route each direction takes through them.

use crate::packet::Dir;

/// Links by position; routes index into this array.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum LinkId {
    CoreDown = 0,
    Bottleneck = 1,
    Uplink = 2,
    CoreUp = 3,
}

impl LinkId {
    /// The link's name, which also names its random streams.
    pub(super) fn name(self) -> &'static str {
        match self {
            LinkId::CoreDown => "core_down",
            LinkId::Bottleneck => "bottleneck",
            LinkId::Uplink => "uplink",
            LinkId::CoreUp => "core_up",
        }
    }
}

pub(super) const LINKS: [LinkId; 4] = [LinkId::CoreDown, LinkId::Bottleneck, LinkId::Uplink, LinkId::CoreUp];

/// The links of each direction's route. Every user shares them; with
/// `[radio]` each user's bearer stands in for the bottleneck and the uplink.
pub(super) fn route(dir: Dir) -> &'static [LinkId] {
    match dir {
        Dir::Down => &[LinkId::CoreDown, LinkId::Bottleneck],
        Dir::Up => &[LinkId::Uplink, LinkId::CoreUp],
    }
}

/// The link a `[radio]` bearer stands for in direction `dir`: its drops are
/// booked there, and what it delivers goes on from there.
pub(super) fn radio_link(dir: Dir) -> LinkId {
    match dir {
        Dir::Down => LinkId::Bottleneck,
        Dir::Up => LinkId::Uplink,
    }
}

/// The link after `id` on its [`route`], `None` at the end. The packet does not
/// carry its place on the route: a field changed just before the packet is copied
/// on into the next link stalls the copy's load until the store lands.
pub(super) fn next_hop(id: LinkId) -> Option<LinkId> {
    match id {
        LinkId::CoreDown => Some(LinkId::Bottleneck),
        LinkId::Uplink => Some(LinkId::CoreUp),
        LinkId::Bottleneck | LinkId::CoreUp => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn next_hop_follows_the_routes() {
        for dir in [Dir::Down, Dir::Up] {
            let r = route(dir);
            for pair in r.windows(2) {
                assert_eq!(next_hop(pair[0]), Some(pair[1]));
            }
            assert_eq!(next_hop(*r.last().unwrap()), None);
        }
    }
}
