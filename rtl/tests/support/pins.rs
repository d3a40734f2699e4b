//! The flat port pins of one `Peach2Core`, by `Port`: what a cable or a host model drives
//! and samples.

use pcie_model::beats::Beat;
use peach2_regmap::csr::Port;
use peach2_rtl::chip::Peach2Core;
use peach2_rtl::harness::bits128;

macro_rules! port_pins {
    ($($port:ident: $rx_data:ident $rx_valid:ident $rx_ready:ident $rx_sop:ident $rx_eop:ident
        $rx_empty:ident $tx_data:ident $tx_valid:ident $tx_ready:ident $tx_sop:ident
        $tx_eop:ident $tx_empty:ident $link_up:ident;)*) => {
        /// Presents `beat` on the port's RX stream (`None`: valid low).
        pub fn drive_rx(chip: &mut Peach2Core, port: Port, beat: Option<Beat>) {
            let b = beat.unwrap_or_default();
            match port {
                $(Port::$port => {
                    chip.$rx_valid.next = beat.is_some();
                    chip.$rx_data.next = bits128(b.data);
                    chip.$rx_sop.next = b.sop;
                    chip.$rx_eop.next = b.eop;
                    chip.$rx_empty.next = u64::from(b.empty).into();
                })*
            }
        }

        /// The chip takes the RX beat (meaningful after settling).
        pub fn rx_ready(chip: &Peach2Core, port: Port) -> bool {
            match port {
                $(Port::$port => chip.$rx_ready.val(),)*
            }
        }

        /// The beat the chip presents on the port's TX stream, if valid.
        pub fn tx_beat(chip: &Peach2Core, port: Port) -> Option<Beat> {
            match port {
                $(Port::$port => chip.$tx_valid.val().then(|| Beat {
                    data: chip.$tx_data.val().to_u128(),
                    sop: chip.$tx_sop.val(),
                    eop: chip.$tx_eop.val(),
                    empty: chip.$tx_empty.val().to_u64() as u8,
                }),)*
            }
        }

        /// Drives the port's TX `ready`.
        pub fn set_tx_ready(chip: &mut Peach2Core, port: Port, ready: bool) {
            match port {
                $(Port::$port => chip.$tx_ready.next = ready,)*
            }
        }

        /// Drives the port's data-link-up input.
        pub fn set_link_up(chip: &mut Peach2Core, port: Port, up: bool) {
            match port {
                $(Port::$port => chip.$link_up.next = up,)*
            }
        }
    };
}

port_pins! {
    N: n_rx_data n_rx_valid n_rx_ready n_rx_sop n_rx_eop n_rx_empty
       n_tx_data n_tx_valid n_tx_ready n_tx_sop n_tx_eop n_tx_empty n_link_up;
    E: e_rx_data e_rx_valid e_rx_ready e_rx_sop e_rx_eop e_rx_empty
       e_tx_data e_tx_valid e_tx_ready e_tx_sop e_tx_eop e_tx_empty e_link_up;
    W: w_rx_data w_rx_valid w_rx_ready w_rx_sop w_rx_eop w_rx_empty
       w_tx_data w_tx_valid w_tx_ready w_tx_sop w_tx_eop w_tx_empty w_link_up;
    S: s_rx_data s_rx_valid s_rx_ready s_rx_sop s_rx_eop s_rx_empty
       s_tx_data s_tx_valid s_tx_ready s_tx_sop s_tx_eop s_tx_empty s_link_up;
}

/// Bytes a beat carries (its used lanes), as the chip's byte counters count them.
pub fn beat_bytes(beat: &Beat) -> u64 {
    4 * beat.used_lanes() as u64
}
