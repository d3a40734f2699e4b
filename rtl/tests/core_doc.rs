//! The integration guide (`docs/CORE.md`) against the core and the register map: its
//! testbench ("Testbench outline") runs against the exported core under Icarus and
//! passes, so a user who copies it gets a working start and the beat words the guide
//! prints are the core's; the offsets, bit fields and codes it restates are
//! `peach2_regmap`'s.

use peach2_rtl::verilog::checks::{iverilog_testbench, scratch_dir, VerilogSet};
use peach2_rtl::verilog::export::write_core;

/// The first Verilog code block after `heading` in `doc`.
fn verilog_block<'a>(doc: &'a str, heading: &str) -> &'a str {
    let after = &doc[doc.find(heading).expect("the heading")..];
    let start = after.find("```verilog\n").expect("a verilog block") + "```verilog\n".len();
    let len = after[start..].find("```").expect("the block's end");
    &after[start..start + len]
}

#[test]
fn the_guides_testbench_passes() {
    let doc = include_str!("../../docs/CORE.md");
    let tb = verilog_block(doc, "### Testbench outline");
    let dir = scratch_dir("core-doc").unwrap();
    let core = write_core(&dir).unwrap();
    let tb_path = dir.join("peach2_core_tb.v");
    std::fs::write(&tb_path, tb).unwrap();
    let set = VerilogSet {
        files: vec![tb_path, core.verilog],
        include_dirs: Vec::new(),
        top: "peach2_core_tb".to_string(),
        params: Vec::new(),
    };
    let out = iverilog_testbench(&set, &dir.join("sim")).unwrap_or_else(|e| panic!("{e}"));
    assert!(out.lines().any(|l| l.trim() == "PASS"), "{out}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A field `shift` bits up, `mask` wide once shifted down, as the guide's tables write
/// bit ranges: `7:4`, or `22` for one bit.
fn bits(shift: u32, mask: u32) -> String {
    let top = shift + (32 - mask.leading_zeros()) - 1;
    if top == shift {
        format!("{shift}")
    } else {
        format!("{top}:{shift}")
    }
}

/// The guide restates the register map for integrators who read no Rust: every offset,
/// stride, reset value, bit field and code it gives is the register map's
/// (`peach2_regmap`), so a change there that the guide misses fails here.
#[test]
fn the_guides_register_numbers_are_the_register_maps() {
    use peach2_regmap::config::{LinkError, LinkState};
    use peach2_regmap::csr::{self, port_reg, port_status as ps, Port};
    use peach2_regmap::dma::{self, ErrorCause};
    use peach2_regmap::notify;
    let doc = include_str!("../../docs/CORE.md");
    let port = |reg| port_reg(Port::N, reg);
    let port_stride = port_reg(Port::E, 0) - port_reg(Port::N, 0);
    let chan_reg = |reg| dma::channel_reg(0, reg) - dma::CHANNEL_BASE;
    let mut want = vec![
        format!("`NODE_ID` ({:#04x})", csr::NODE_ID),
        format!(
            "`ROUTE[n]`\n   ({:#x} + {}n: bit {} valid",
            csr::route(0),
            csr::route(1) - csr::route(0),
            csr::ROUTE_VALID.trailing_zeros()
        ),
        format!(
            "`TARGET_LO/HI/CTRL[t]` ({:#x} + {:#x}t)",
            csr::target_lo(0),
            csr::target_lo(1) - csr::target_lo(0)
        ),
        format!("at `{:#x} + {port_stride:#x}p`", port(0)),
        format!(
            "`CPL_UNEXPECTED` ({:#x}, global)",
            csr::CPL_UNEXPECTED
        ),
        format!(
            "`ID` ({:#x}) = `{:#010x}`",
            csr::ID,
            csr::ID_VALUE
        ),
        format!(
            "`VERSION` ({:#x}) = `{:#010x}`",
            csr::VERSION,
            csr::VERSION_VALUE
        ),
        format!("`SCRATCH` ({:#X})", csr::SCRATCH).replace("0X", "0x"),
        format!(
            "`DMA_CHAIN_LIMIT` = {}, `DMA_CPL_TIMEOUT` = {}, `DMA_CONFIG` = {}",
            dma::CHAIN_LIMIT_RESET,
            dma::CPL_TIMEOUT_RESET,
            dma::CONFIG_RESET
        ),
        format!(
            "`DMA_CONFIG` ({:#x}, `regmap/src/dma.rs`): bit {} `NOTIFY_AT_LAST_READ`",
            dma::CONFIG,
            dma::config::NOTIFY_AT_LAST_READ.trailing_zeros()
        ),
        format!(
            "at `{:#x} + {:#x}c`",
            dma::CHANNEL_BASE,
            dma::CHANNEL_STRIDE
        ),
        format!("`STATUS` (+{:#04x})", chan_reg(dma::CH_STATUS)),
        format!("`COUNT` (+{:#04x})", chan_reg(dma::CH_COUNT)),
        format!(
            "`CURRENT_LO/HI` (+{:#04X}/+{:#04x})",
            chan_reg(dma::CH_CURRENT_LO),
            chan_reg(dma::CH_CURRENT_HI)
        )
        .replacen("0X", "0x", 1),
        format!(
            "`CONTROL` (+{:#04x}) | write-only: bit {} start, bit {} host chain, bits {} first internal index",
            chan_reg(dma::CH_CONTROL),
            dma::CONTROL_START.trailing_zeros(),
            dma::CONTROL_HOST.trailing_zeros(),
            bits(dma::CONTROL_INDEX_SHIFT, dma::DESC_COUNT - 1)
        ),
        format!("the index (0..{})", dma::DESC_COUNT - 1),
        format!(
            "the DMA's range (tag bits 7:{} ≠ 0)",
            dma::tags::DMA_RANGE_END.trailing_zeros()
        ),
        format!(
            "read `PORT_STATUS[N]` (offset {:#x})",
            port_reg(Port::N, csr::PORT_STATUS)
        ),
        format!(
            "at BAR0 `{:#x} + {:#x}s + 4k` (sender node s 0..{}, slot k 0..{})",
            notify::BAR0_BASE,
            notify::bar0_offset(1, 0) - notify::bar0_offset(0, 0),
            notify::DWS / notify::SLOTS - 1,
            notify::SLOTS - 1
        ),
        format!(
            "offset\n`{:#x} + {:#x}s + 4k`",
            notify::INTERNAL_BASE,
            notify::internal_offset(1, 0) - notify::internal_offset(0, 0)
        ),
        format!("| {} | state:", bits(ps::STATE_SHIFT, ps::STATE_MASK)),
        format!("| {} | error:", bits(ps::ERROR_SHIFT, ps::ERROR_MASK)),
        format!(
            "| {} | partner port |",
            bits(ps::PARTNER_PORT_SHIFT, ps::PARTNER_PORT_MASK)
        ),
        format!(
            "| {} | partner node ID",
            bits(ps::PARTNER_NODE_SHIFT, ps::PARTNER_NODE_MASK)
        ),
        format!("| {} | partner valid", bits(ps::PARTNER_VALID.trailing_zeros(), 1)),
        format!("| {} | crossbar output", bits(ps::XBAR_BUSY.trailing_zeros(), 1)),
        format!(
            "| {} | beats in this port's ingress FIFO",
            bits(ps::FIFO_FILL_SHIFT, ps::FIFO_FILL_MASK)
        ),
    ];
    for (off, name) in [
        (csr::PORT_STATUS, "PORT_STATUS"),
        (csr::PORT_TLPS_IN, "TLPS_IN"),
        (csr::PORT_BYTES_IN, "BYTES_IN"),
        (csr::PORT_TLPS_OUT, "TLPS_OUT"),
        (csr::PORT_BYTES_OUT, "BYTES_OUT"),
        (csr::PORT_DROPS, "DROPS"),
        (csr::PORT_ERRORS, "ERRORS"),
        (csr::PORT_UR_SENT, "UR_SENT"),
        (csr::PORT_CONFIG, "PORT_CONFIG"),
    ] {
        want.push(format!("| +{off} | `{name}` |"));
    }
    for code in 0..dma::CAUSE_CODES as u32 {
        if let Some(cause) = ErrorCause::from_code(code) {
            want.push(format!("| {code} | {cause:?} |"));
        }
    }
    let mut missing: Vec<String> = want.into_iter().filter(|w| !doc.contains(w)).collect();
    // The state and error rows name each code with its variant (and a note).
    let row = |field: &str| {
        doc.lines()
            .find(|l| l.contains(&format!("| {field}:")))
            .unwrap_or_default()
    };
    let states = [
        LinkState::Down,
        LinkState::Identify,
        LinkState::Configure,
        LinkState::Ready,
        LinkState::Failed,
    ]
    .map(|s| ("state", format!("{} {s:?}", s as u32)));
    let errors = (0..=ps::ERROR_MASK)
        .filter_map(LinkError::from_code)
        .map(|e| ("error", format!("{} {e:?}", e as u32)));
    for (field, named) in states.into_iter().chain(errors) {
        if !row(field).contains(&named) {
            missing.push(format!("the {field} row's {named}"));
        }
    }
    assert!(
        missing.is_empty(),
        "docs/CORE.md does not say (or says otherwise):\n{}",
        missing
            .iter()
            .map(|m| format!("  {m:?}"))
            .collect::<Vec<_>>()
            .join("\n")
    );
}
