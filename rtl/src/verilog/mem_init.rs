//! Gives every memory of the export a power-up value of zero.
//!
//! rust-hdl declares a RAM as `reg[W:0] mem[N:0];` without an initial value. An FPGA's
//! block RAM powers up cleared (Stratix IV M9K/M144K and MLAB without a memory
//! initialization file), and so do Verilator's variables (`--x-initial fast`), but an
//! event-driven simulator starts every memory word at X. A word read before it was
//! written (a descriptor chain that runs into a slot software never wrote) then sends X
//! into the control logic, and the simulators disagree where the hardware would not. The
//! pass adds, after each memory declaration, an `initial` loop that clears it: a form
//! synthesis tools take as the memory's initial contents. The loop is left out where
//! `SYNTHESIS` is defined (Yosys defines it): the open flow's figures do not depend on
//! initial contents, and unrolling 13 000 words costs Yosys 40 % more time.

/// Adds a clearing `initial` block after every memory declaration of `verilog`.
pub fn zero_init_memories(verilog: &str) -> String {
    let mut out = String::with_capacity(verilog.len() + 4096);
    for line in verilog.lines() {
        out.push_str(line);
        out.push('\n');
        if let Some((name, last)) = memory_decl(line) {
            let pad = &line[..line.len() - line.trim_start().len()];
            out.push_str(&format!(
                "`ifndef SYNTHESIS\n\
                 {pad}initial begin : {name}$clear\n\
                 {pad}    integer i;\n\
                 {pad}    for (i = 0; i <= {last}; i = i + 1) {name}[i] = 0;\n\
                 {pad}end\n\
                 `endif\n"
            ));
        }
    }
    out
}

/// The name and last index of a memory declared on `line` (`reg[W:0] name[N:0];`).
fn memory_decl(line: &str) -> Option<(&str, u64)> {
    let rest = line.trim().strip_prefix("reg")?.trim_start();
    let rest = rest.strip_prefix('[')?;
    let (_, rest) = rest.split_once(']')?;
    let (name, rest) = rest.trim_start().split_once('[')?;
    let (last, rest) = rest.split_once(":0]")?;
    if rest.trim() != ";" || name.is_empty() || !name.bytes().all(is_ident_byte) {
        return None;
    }
    Some((name, last.trim().parse().ok()?))
}

fn is_ident_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$'
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memories_get_a_clearing_initial_block_and_nothing_else_does() {
        let v = "module m;\n    reg[31:0] mem[1023:0];\n    reg[3:0] state;\n    reg [7:0] x;\nendmodule\n";
        let out = zero_init_memories(v);
        assert!(out.contains(
            "    reg[31:0] mem[1023:0];\n`ifndef SYNTHESIS\n    initial begin : mem$clear\n        integer i;\n        for (i = 0; i <= 1023; i = i + 1) mem[i] = 0;\n    end\n`endif\n"
        ));
        assert_eq!(out.matches("initial").count(), 1);
        assert_eq!(memory_decl("reg[127:0] mem[31:0];"), Some(("mem", 31)));
        assert_eq!(memory_decl("reg[3:0] state;"), None);
        assert_eq!(memory_decl("reg[3:0] a[7:1];"), None);
    }
}
