//! The UMTS DSCH with prioritised radio resource management of
//! umts-dsch-rrm.md (Ferrús et al.; issue 23): each 10 ms frame a cell's
//! manager serves its conversational DCH users first and fits interactive
//! users' DSCH transmissions into what is left of the codes, the load factor
//! and the transmit power, halving a user's rate until it fits.
//!
//! One concept per file:
//! - [`transport_format`]: the DSCH transport formats TF0–TF6 (rates, spreading factors);
//! - [`checks`]: the availability checks — OVSF codes (Kraft), load factor η, transmit power;
//! - [`rrm`]: the frame's three steps (service credit → TF, priority, availability with halving).
//!
//! The multi-cell system around it (layout, mobility, interference, power
//! control, the users' traffic) is issue 23's next step.

pub mod checks;
pub mod rrm;
pub mod transport_format;
